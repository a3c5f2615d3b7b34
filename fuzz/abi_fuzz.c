// SPDX-License-Identifier: GPL-2.0
/*
 * abi_fuzz: random, well-typed sequences of calls on /dev/unwind_samples,
 * run as root inside the test VM (make fuzz-abi).
 *
 *   abi_fuzz [-s SECONDS] [-n SEQUENCES] [-w WORKERS] [-t THREADS]
 *            [-k MODULE.ko] [-r SEED] [-u SECONDS] [-F]
 *
 * The supervisor loads the module, forks a target spawner and WORKERS
 * worker processes of THREADS threads each, and meanwhile tries to unload
 * the module, reloads it when an unload succeeded, and changes module
 * parameters; every 5 s (-u) the workers close their files and the
 * unload must succeed.  Targets spin, create threads, fork, exec themselves,
 * run ARM code from anonymous memory (JIT code, with frames good and bad)
 * and exit.  Each worker thread runs sequences of 1 to 8 calls (open, close,
 * every ioctl of uapi/uwprof.h with valid, boundary and garbage
 * arguments, valid and corrupted v2 tables, read, poll, fork) on the
 * worker's few open files, which its threads share.  Every errno seen is
 * checked against what docs/ABI.md lists for that call (allowed[] below);
 * one that is not listed is a failure.  At the end every file is closed
 * and the module must unload.  -F turns on failslab/fail_page_alloc for
 * allocations made by uwprof.ko (a debug kernel with FAULT_INJECTION).
 * The kernel log is checked by the VM runner.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <dirent.h>
#include <time.h>
#include <unistd.h>

#include "uapi/uwprof.h"

enum op {
	OP_OPEN, OP_CLOSE, OP_VERSION, OP_UPLOAD, OP_ATTACH, OP_DETACH,
	OP_LIST, OP_START, OP_STOP, OP_STATS, OP_BADCMD, OP_READ, OP_POLL,
	OP_FORK, OP_RMMOD, OP_INSMOD, OP_NR
};

static const char *const op_name[OP_NR] = {
	"open", "close", "VERSION", "TABLE_UPLOAD", "ATTACH", "DETACH",
	"LIST", "START", "STOP", "STATS", "unknown-ioctl", "read", "poll",
	"fork", "rmmod", "insmod",
};

/* What docs/ABI.md lists for each call, 0-terminated. */
#define STRUCT_ERRS EFAULT, EINVAL, E2BIG	/* "Struct sizes" */
static const int allowed[OP_NR][12] = {
	/* open: ENOENT/ENODEV while the module is being unloaded */
	[OP_OPEN] = { ENOMEM, ENOENT, ENODEV, ENXIO },
	[OP_VERSION] = { STRUCT_ERRS },
	[OP_UPLOAD] = { STRUCT_ERRS, EFBIG, ENOSPC, ENOMEM, EINTR },
	[OP_ATTACH] = { STRUCT_ERRS, EINTR, ESRCH, ENOEXEC, EACCES, ENOENT, EEXIST,
			ENOSPC, ENOMEM },
	[OP_DETACH] = { STRUCT_ERRS, ESRCH, ENOENT, ENOMEM },
	[OP_LIST] = { STRUCT_ERRS, ENOMEM },
	[OP_START] = { STRUCT_ERRS, EBUSY, ENOMEM },
	[OP_STOP] = { EALREADY },
	[OP_STATS] = { STRUCT_ERRS },
	[OP_BADCMD] = { ENOTTY },
	[OP_READ] = { EINVAL, EAGAIN, EFAULT, EINTR },
	[OP_POLL] = { EINTR },
	[OP_FORK] = { EAGAIN, ENOMEM },
	[OP_RMMOD] = { EWOULDBLOCK, EBUSY, ENOENT },
	[OP_INSMOD] = { EEXIST, EBUSY, ENOMEM },
};

#define MAX_ERRNO	140
#define NSLOT		4	/* open files per worker */
#define NTARGET		4	/* live target processes */
#define NTABLE		8	/* table ids a slot remembers */

/* Shared by every process (MAP_SHARED, and a file so targets keep it). */
struct shared {
	unsigned long seq;		/* sequences run */
	unsigned long calls[OP_NR];
	unsigned long err[OP_NR][MAX_ERRNO];
	unsigned long mismatch;
	unsigned long ebadf;		/* fd closed by a sibling thread */
	unsigned long valid_rejected;	/* generated valid table refused */
	unsigned long unloads, reloads, quiet_unload_failed;
	unsigned long taken, delivered, frames;	/* of the files closed */
	int stop, done;			/* done: the supervisor finished */
	int pause, parked;		/* all files closed for an unload */
	int target[NTARGET];		/* live target pids, 0 = free */
	char mismatch_log[8][160];
};

static struct shared *sh;
static const char *ko_path = "/uwprof.ko";
static const char *self_exe;
static const char *shm_path = "/tmp/abi_fuzz.shm";

struct rng { uint64_t s; };

static uint32_t rnd(struct rng *r)
{
	r->s ^= r->s << 13;
	r->s ^= r->s >> 7;
	r->s ^= r->s << 17;
	return r->s >> 16;
}

static uint32_t below(struct rng *r, uint32_t n)
{
	return n ? rnd(r) % n : 0;
}

static int chance(struct rng *r, int pct)
{
	return (int)below(r, 100) < pct;
}

static void note(enum op op, int ret, int err, const char *fmt, ...)
{
	const int *a = allowed[op];
	char what[96];
	va_list ap;
	unsigned long n;

	__atomic_fetch_add(&sh->calls[op], 1, __ATOMIC_RELAXED);
	if (ret >= 0)
		return;
	if (err > 0 && err < MAX_ERRNO)
		__atomic_fetch_add(&sh->err[op][err], 1, __ATOMIC_RELAXED);
	if (err == EBADF && op != OP_OPEN && op < OP_FORK) {
		__atomic_fetch_add(&sh->ebadf, 1, __ATOMIC_RELAXED);
		return;
	}
	for (; *a; a++)
		if (*a == err)
			return;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	n = __atomic_fetch_add(&sh->mismatch, 1, __ATOMIC_RELAXED);
	if (n < 8)
		snprintf(sh->mismatch_log[n], sizeof(sh->mismatch_log[n]),
			 "%s -> %s (%d) %s", op_name[op], strerror(err), err,
			 what);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- v2 tables: valid ones built here, then maybe corrupted ---- */

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void put16(uint8_t *p, uint16_t v)
{
	memcpy(p, &v, 2);
}

/* Sequences that validate (docs/FORMAT.md "Opcodes"). */
static const uint8_t good_seq[][4] = {
	{ 1, 0xb0 },			/* finish */
	{ 2, 0xb1, 0x00 },		/* root */
	{ 2, 0x80, 0x00 },		/* refuse */
	{ 2, 0xa8, 0xb0 },		/* pop r4, r14; finish */
	{ 3, 0x01, 0xa9, 0xb0 },	/* vsp += 8; pop r4-r5, r14 */
	{ 3, 0x97, 0x02, 0xb0 },	/* vsp = r7; vsp += 12 */
	{ 3, 0x84, 0x00, 0xb0 },	/* pop r14 (mask) */
	{ 2, 0xb1, 0x10 },		/* noreturn */
	{ 3, 0xb1, 0x20, 0xb0 },	/* clone: r0 0 root, else finish */
	{ 3, 0xb2, 0x7f, 0xb0 },	/* big vsp add */
};

/*
 * A valid table: 1-4 pages of 0-5 functions (page 0 at least one, the
 * first at offset 0), each with a FOT list of 1-3 pairs into the UIT.
 */
static size_t table_valid(struct rng *r, uint8_t *buf, size_t room)
{
	uint32_t pages = 1 + below(r, 4), nfunc = 0, p, i, k;
	uint32_t nseq = sizeof(good_seq) / sizeof(good_seq[0]);
	uint8_t fot[64], uit[64];
	uint32_t fot_n = 0, uit_n = 0, seq_at[16], lists = 1 + below(r, 4);
	uint32_t list_at[4], pt[4];
	uint16_t fstart[21], flist[21];
	size_t off;

	for (i = 0; i < nseq; i++) {
		seq_at[i] = uit_n;
		memcpy(uit + uit_n, good_seq[i] + 1, good_seq[i][0]);
		uit_n += good_seq[i][0];
	}
	for (i = 0; i < lists; i++) {
		uint32_t pairs = 1 + below(r, 3), o = 1 + pairs * 3;

		list_at[i] = fot_n;
		for (k = 0; k < pairs; k++) {
			o = k + 1 == pairs ? 0 : o - 1 - below(r, 3);
			fot[fot_n++] = o;	/* < 128: one-byte ULEBs */
			fot[fot_n++] = seq_at[below(r, nseq)];
		}
	}
	for (p = 0; p < pages; p++) {
		uint32_t n = below(r, 6) + (p == 0), start = 0;

		pt[p] = nfunc;
		for (i = 0; i < n; i++) {
			start = i ? start + 1 + below(r, 5000) : 0;
			if (start > 0xffff)
				break;
			fstart[nfunc] = start;
			flist[nfunc] = list_at[below(r, lists)];
			nfunc++;
		}
	}
	off = 32 + 4 * pages + 4 * nfunc + fot_n + uit_n;
	if (off > room)
		return 0;
	put32(buf, 32);
	put32(buf + 4, pages);
	put32(buf + 8, 32 + 4 * pages);
	put32(buf + 12, nfunc);
	put32(buf + 16, 32 + 4 * pages + 4 * nfunc);
	put32(buf + 20, fot_n);
	put32(buf + 24, 32 + 4 * pages + 4 * nfunc + fot_n);
	put32(buf + 28, uit_n);
	for (p = 0; p < pages; p++)
		put32(buf + 32 + 4 * p, pt[p]);
	for (i = 0; i < nfunc; i++) {
		put16(buf + 32 + 4 * pages + 4 * i, fstart[i]);
		put16(buf + 32 + 4 * pages + 4 * i + 2, flist[i]);
	}
	memcpy(buf + 32 + 4 * pages + 4 * nfunc, fot, fot_n);
	memcpy(buf + 32 + 4 * pages + 4 * nfunc + fot_n, uit, uit_n);
	return off;
}

/* Flip, overwrite or cut a valid table; returns the new length. */
static size_t table_corrupt(struct rng *r, uint8_t *buf, size_t len,
			    size_t room)
{
	int n = 1 + below(r, 4);

	while (n--) {
		switch (below(r, 5)) {
		case 0:
			buf[below(r, len)] ^= 1 << below(r, 8);
			break;
		case 1:
			buf[below(r, len)] = rnd(r);
			break;
		case 2:	/* a header field */
			put32(buf + 4 * below(r, 8), chance(r, 50) ? rnd(r) :
			      below(r, len + 8));
			break;
		case 3:
			len = below(r, len + 1);
			break;
		default:
			if (len + 16 <= room)
				len += below(r, 16);
			break;
		}
	}
	return len;
}

/* ---- argument memory: good buffers, bad pointers, page edges ---- */

struct thr {
	struct rng r;
	struct worker *w;
	uint8_t *buf;		/* 4 pages, then a PROT_NONE page */
	timer_t timer;		/* interrupts a blocking read */
	int child;		/* a forked child: no timer, no blocking read */
};

#define BUF_PAGES	4

/* A pointer to room for @len bytes: usually good, sometimes not. */
static void *arg_ptr(struct thr *t, size_t len)
{
	long pg = sysconf(_SC_PAGESIZE);

	switch (below(&t->r, 40)) {
	case 0:
		return NULL;
	case 1:
		return (void *)1;
	case 2:
		return (void *)0xc0000000ul;	/* kernel */
	case 3:
		return t->buf + BUF_PAGES * pg;	/* the guard page */
	case 4:	/* the last bytes run into the guard page */
		return t->buf + BUF_PAGES * pg - (len > 1 ? len / 2 : 1);
	default:
		if (len > (size_t)BUF_PAGES * pg)
			return t->buf;
		return t->buf + BUF_PAGES * pg - len -
		       (below(&t->r, 2) ? 0 : below(&t->r, 64) * 8 % (BUF_PAGES * pg - len + 1));
	}
}

/* The size field: usually the struct's, sometimes short, long or junk. */
static uint32_t arg_size(struct thr *t, uint32_t real, int *junk_tail)
{
	*junk_tail = 0;
	switch (below(&t->r, 30)) {
	case 0: return 0;
	case 1: return 3;
	case 2: return 4;
	case 3: return real > 8 ? real - 4 : real;
	case 4: return real + 8;			/* zero tail */
	case 5: *junk_tail = 1; return real + 8;	/* junk tail: E2BIG */
	case 6: return 4096;
	case 7: return rnd(&t->r);
	default: return real;
	}
}

/*
 * Place struct @s (its first u32 is the size) at a chosen pointer,
 * followed by a zero or junk tail; returns the pointer given to ioctl.
 */
static void *place(struct thr *t, void *s, uint32_t real)
{
	int junk;
	uint32_t size = arg_size(t, real, &junk);
	size_t room = real + 16;
	uint8_t *p = arg_ptr(t, room);
	uint8_t *buf_end = t->buf + BUF_PAGES * sysconf(_SC_PAGESIZE);

	memcpy(s, &size, 4);
	if (p < t->buf || p >= buf_end)
		return p;
	memcpy(p, s, (size_t)(buf_end - p) < real ? (size_t)(buf_end - p) : real);
	if ((size_t)(buf_end - p) >= room)
		memset(p + real, 0, 16);
	if (junk && (size_t)(buf_end - p) >= room)
		p[real + below(&t->r, 8)] = 1 + below(&t->r, 255);
	return p;
}

/* ---- one worker process: NSLOT files shared by its threads ---- */

struct slot {
	int fd;
	uint32_t table[NTABLE];
	uint32_t att_pid[NTABLE], att_start[NTABLE];
};

struct worker {
	struct slot slot[NSLOT];
	struct rng seed;
	unsigned long my_seq;
};

static int pick_pid(struct thr *t)
{
	int p;

	switch (below(&t->r, 13)) {
	case 0: return getpid();
	case 1: return getppid();
	case 2: return 1;
	case 3: return 0;
	case 4: return rnd(&t->r);
	case 5: return 0x7fffffff;
	case 6: return 2;		/* kthreadd: no mm */
	case 7: return 1 + below(&t->r, 4096);	/* in range, mostly unused */
	default:
		p = __atomic_load_n(&sh->target[below(&t->r, NTARGET)],
				    __ATOMIC_RELAXED);
		return p ? p : getpid();
	}
}

static uint32_t pick_table(struct thr *t, struct slot *s)
{
	switch (below(&t->r, 10)) {
	case 0: return 0;
	case 1: return rnd(&t->r);
	case 2: return 0xffffffff;
	default:	/* one this file uploaded, if any */
		for (int i = 0, k = below(&t->r, NTABLE); i < NTABLE; i++)
			if (s->table[(k + i) % NTABLE])
				return s->table[(k + i) % NTABLE];
		return 1;
	}
}

static void do_open(struct thr *t, struct slot *s)
{
	int flags = O_RDWR | O_CLOEXEC | (chance(&t->r, 50) ? O_NONBLOCK : 0);
	int fd, old;

	if (chance(&t->r, 5))
		flags = (flags & ~O_RDWR) | O_RDONLY;
	fd = open(UWPROF_DEVICE, flags);
	note(OP_OPEN, fd, errno, "");
	if (fd < 0 && errno == ENOENT)
		usleep(2000);	/* unloaded: wait for the reload */
	if (fd < 0)
		return;
	old = __atomic_exchange_n(&s->fd, fd, __ATOMIC_ACQ_REL);
	memset(s->table, 0, sizeof(s->table));
	if (old > 0)
		close(old);
}

static void do_close(struct thr *t, struct slot *s)
{
	int fd = __atomic_exchange_n(&s->fd, -1, __ATOMIC_ACQ_REL);

	struct uwprof_stats st = { .size = sizeof(st) };

	(void)t;
	if (fd <= 0)
		return;
	/* What sampling this file saw, for the summary. */
	if (!ioctl(fd, UWPROF_IOC_STATS, &st)) {
		__atomic_fetch_add(&sh->taken, st.taken, __ATOMIC_RELAXED);
		__atomic_fetch_add(&sh->delivered, st.delivered, __ATOMIC_RELAXED);
		__atomic_fetch_add(&sh->frames, st.frames, __ATOMIC_RELAXED);
	}
	note(OP_CLOSE, close(fd), errno, "");
}

static void do_version(struct thr *t, int fd)
{
	struct uwprof_version v = { 0 };

	note(OP_VERSION, ioctl(fd, UWPROF_IOC_VERSION, place(t, &v, sizeof(v))),
	     errno, "");
}

/*
 * A generated valid table refused as malformed: counted, and the first
 * few printed with what the module said, so that the failure can be
 * replayed.
 */
static void valid_refused(const struct uwprof_table_upload *u,
			  const uint8_t *blob, size_t len)
{
	char hex[2 * 256 + 1];
	size_t i;

	if (__atomic_fetch_add(&sh->valid_rejected, 1, __ATOMIC_RELAXED) >= 4)
		return;
	for (i = 0; i < len && i < 256; i++)
		snprintf(hex + 2 * i, 3, "%02x", blob[i]);
	hex[2 * i] = 0;
	printf("# abi_fuzz: valid table refused: verr %u at %u, flags %#x, "
	       "len %zu: %s\n", u->verr, u->verr_offset, u->flags, len, hex);
	fflush(stdout);
}

static void do_upload(struct thr *t, struct slot *s, int fd)
{
	struct uwprof_table_upload up = { 0 }, *u;
	size_t pg = sysconf(_SC_PAGESIZE), len;
	uint8_t *blob = t->buf + pg;	/* pages 1-2: the blob */
	int valid = 0, ret;

	len = table_valid(&t->r, blob, 2 * pg);
	switch (below(&t->r, 10)) {
	case 0: case 1: case 2:
		len = table_corrupt(&t->r, blob, len, 2 * pg);
		break;
	case 3:	/* random bytes */
		len = below(&t->r, 2 * pg);
		for (size_t i = 0; i < len; i++)
			blob[i] = rnd(&t->r);
		break;
	default:
		valid = 1;
	}
	up.data = (uintptr_t)blob;
	up.len = len;
	switch (below(&t->r, 20)) {
	case 0: up.data = (uintptr_t)arg_ptr(t, len); valid = 0; break;
	case 1: up.len = 0xffffffff; valid = 0; break;
	case 2: up.len = 64 << 20; valid = 0; break;
	case 3: up.len = len + 1 + below(&t->r, 64); valid = 0; break;
	case 4: up.flags = UWPROF_TABLE_BY_BUILD_ID;
		up.build_id_size = below(&t->r, UWPROF_BUILD_ID_MAX + 2);
		for (int i = 0; i < UWPROF_BUILD_ID_MAX; i++)
			up.build_id[i] = rnd(&t->r);
		valid = 0;
		break;
	case 5: up.flags = rnd(&t->r); valid = 0; break;
	case 6: up.build_id_size = 1 + below(&t->r, 20); valid = 0; break;
	/* still valid: a process whose tables all are is walked as Chrome's */
	case 7: up.flags = UWPROF_TABLE_CHROME_COMPAT; break;
	/* still valid: JIT code attached inside it takes its rows */
	case 8: up.flags = UWPROF_TABLE_JIT_ROWS; break;
	}
	u = place(t, &up, sizeof(up));
	ret = ioctl(fd, UWPROF_IOC_TABLE_UPLOAD, u);
	note(OP_UPLOAD, ret, errno, "len %u flags %#x", up.len, up.flags);
	if (ret == 0 && (uint8_t *)u >= t->buf &&
	    (uint8_t *)u + sizeof(*u) <= t->buf + BUF_PAGES * pg)
		s->table[below(&t->r, NTABLE)] = u->table_id;
	/* A generated valid table passed whole is never malformed. */
	if (ret && errno == EINVAL && valid && up.size == sizeof(up) &&
	    (uint8_t *)u >= t->buf &&
	    (uint8_t *)u + sizeof(*u) <= t->buf + BUF_PAGES * pg)
		valid_refused(u, blob, len);
}

static void do_attach(struct thr *t, struct slot *s, int fd)
{
	struct uwprof_attach a = { 0 };
	int ret, i;

	a.pid = pick_pid(t);
	a.table_id = pick_table(t, s);
	switch (below(&t->r, 8)) {
	case 0: a.text_start = rnd(&t->r); a.text_end = rnd(&t->r); break;
	case 1: a.text_start = 0; a.text_end = 0xffffffff; break;
	case 2: a.text_start = a.text_end = 0x10000; break;
	default:	/* where a static armhf binary's .text is */
		a.text_start = 0x10000 + 0x1000 * below(&t->r, 64);
		a.text_end = a.text_start + 0x1000 * (1 + below(&t->r, 256));
	}
	if (chance(&t->r, 5))
		a.flags = 1u << below(&t->r, 32);
	/* JIT code: a valid kind without a table, a kind beside one, junk */
	if (chance(&t->r, 20)) {
		a.frames = chance(&t->r, 10) ? rnd(&t->r) : UWPROF_FRAMES_V8_ARM;
		if (chance(&t->r, 70))
			a.table_id = 0;
	}
	ret = ioctl(fd, UWPROF_IOC_ATTACH, place(t, &a, sizeof(a)));
	note(OP_ATTACH, ret, errno, "pid %u [%#x,%#x)", a.pid, a.text_start,
	     a.text_end);
	if (!ret) {
		i = below(&t->r, NTABLE);
		s->att_pid[i] = a.pid;
		s->att_start[i] = a.text_start;
	}
}

static void do_detach(struct thr *t, struct slot *s, int fd)
{
	struct uwprof_detach d = { 0 };
	int i = below(&t->r, NTABLE);

	d.pid = chance(&t->r, 80) ? s->att_pid[i] : (uint32_t)pick_pid(t);
	d.text_start = chance(&t->r, 80) ? s->att_start[i] : rnd(&t->r);
	if (chance(&t->r, 5))
		d.flags = rnd(&t->r);
	note(OP_DETACH, ioctl(fd, UWPROF_IOC_DETACH, place(t, &d, sizeof(d))),
	     errno, "pid %u start %#x", d.pid, d.text_start);
}

static void do_list(struct thr *t, int fd)
{
	struct uwprof_list l = { 0 };
	uint32_t room = below(&t->r, 300);

	l.pid = chance(&t->r, 50) ? 0 : (uint32_t)pick_pid(t);
	l.count = chance(&t->r, 10) ? rnd(&t->r) : room;
	l.entries = (uintptr_t)arg_ptr(t, room * sizeof(struct uwprof_attachment));
	if (chance(&t->r, 5))
		l.flags = rnd(&t->r);
	note(OP_LIST, ioctl(fd, UWPROF_IOC_LIST, place(t, &l, sizeof(l))),
	     errno, "count %u", l.count);
}

static void do_start(struct thr *t, int fd)
{
	static const uint32_t freqs[] = { 0, 1, 10000, 10001, 0xffffffff };
	static const uint32_t flag_set[] = {
		0, UWPROF_START_PER_TASK, UWPROF_START_INHERIT,
		UWPROF_START_ALL, UWPROF_START_PER_TASK | UWPROF_START_INHERIT,
		UWPROF_START_PER_TASK | UWPROF_START_ALL,
		UWPROF_START_INHERIT | UWPROF_START_ALL,
	};
	struct uwprof_start st = { 0 };

	st.freq_hz = chance(&t->r, 20) ? freqs[below(&t->r, 5)] :
		     1 + below(&t->r, chance(&t->r, 50) ? 10000 : 1000);
	st.flags = chance(&t->r, 5) ? rnd(&t->r) :
		   flag_set[below(&t->r, chance(&t->r, 50) ? 2 : 7)];
	if (chance(&t->r, 30))
		st.anon_frames = chance(&t->r, 10) ? rnd(&t->r) :
				 UWPROF_FRAMES_V8_ARM;
	note(OP_START, ioctl(fd, UWPROF_IOC_START, place(t, &st, sizeof(st))),
	     errno, "freq %u flags %#x", st.freq_hz, st.flags);
}

static void do_stats(struct thr *t, int fd)
{
	struct uwprof_stats st = { 0 };

	note(OP_STATS, ioctl(fd, UWPROF_IOC_STATS, place(t, &st, sizeof(st))),
	     errno, "");
}

static void do_badcmd(struct thr *t, int fd)
{
	static const unsigned int good[] = {
		UWPROF_IOC_VERSION, UWPROF_IOC_TABLE_UPLOAD, UWPROF_IOC_ATTACH,
		UWPROF_IOC_DETACH, UWPROF_IOC_LIST, UWPROF_IOC_START,
		UWPROF_IOC_STOP, UWPROF_IOC_STATS,
	};
	unsigned int cmd;
	size_t i;

	do {
		switch (below(&t->r, 3)) {
		case 0:	/* a valid nr with another direction */
			cmd = _IOC(below(&t->r, 4), UWPROF_IOC_MAGIC,
				   0x80 + below(&t->r, 8), below(&t->r, 300));
			break;
		case 1:
			cmd = _IOC(below(&t->r, 4), UWPROF_IOC_MAGIC,
				   below(&t->r, 256), below(&t->r, 64));
			break;
		default:
			cmd = rnd(&t->r);
		}
		/* the size bits are the caller's struct's: not a bad command */
		for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
			if ((cmd & ~IOCSIZE_MASK) == (good[i] & ~IOCSIZE_MASK))
				break;
	} while (i < sizeof(good) / sizeof(good[0]));
	note(OP_BADCMD, ioctl(fd, cmd, arg_ptr(t, 64)), errno, "cmd %#x", cmd);
}

static void on_usr1(int sig)
{
	(void)sig;
}

static void do_poll(struct thr *t, int fd);

static void do_read(struct thr *t, int fd)
{
	static const size_t lens[] = { 0, 1, 31, 32, 40, 4096, 65536 };
	size_t len = chance(&t->r, 30) ? lens[below(&t->r, 7)] :
		     below(&t->r, BUF_PAGES * 4096);
	void *p = arg_ptr(t, len);
	/* Repeating: the first signal may come before read() sleeps. */
	struct itimerspec its = { .it_value.tv_nsec = 5000000,
				  .it_interval.tv_nsec = 5000000 };
	struct itimerspec off = { 0 };
	int blocking = !(fcntl(fd, F_GETFL) & O_NONBLOCK);
	ssize_t n;

	/* A blocking read sleeps until the timer: rarely, it is slow. */
	if (blocking && !chance(&t->r, 10)) {
		do_poll(t, fd);
		return;
	}
	/*
	 * Always: a sibling may close the file and open a blocking one
	 * under the same number before this read.
	 */
	timer_settime(t->timer, 0, &its, NULL);
	n = read(fd, p, len);
	note(OP_READ, n < 0 ? -1 : 0, errno, "len %zu", len);
	timer_settime(t->timer, 0, &off, NULL);
}

static void do_poll(struct thr *t, int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	note(OP_POLL, poll(&p, 1, below(&t->r, 3)), errno, "");
}

static int one_call(struct thr *t, struct slot *s, int depth);

/* A child shares the files: a few calls, then exit closes its copies. */
static void do_fork(struct thr *t, struct slot *s)
{
	pid_t pid = fork();

	note(OP_FORK, pid, errno, "");
	if (pid == 0) {
		t->child = 1;
		for (int i = 0; i < 4; i++)
			one_call(t, s, 1);
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

/* One call; returns 0 if it was only an open. */
static int one_call(struct thr *t, struct slot *s, int depth)
{
	int fd = __atomic_load_n(&s->fd, __ATOMIC_ACQUIRE);
	uint32_t k = below(&t->r, 100);

	if (fd < 0 || k < 4) {
		do_open(t, s);
		return 0;
	}
	if (k < 8)
		do_close(t, s);
	else if (k < 12)
		do_version(t, fd);
	else if (k < 26)
		do_upload(t, s, fd);
	else if (k < 44)
		do_attach(t, s, fd);
	else if (k < 50)
		do_detach(t, s, fd);
	else if (k < 55)
		do_list(t, fd);
	else if (k < 66)
		do_start(t, fd);
	else if (k < 72)
		note(OP_STOP, ioctl(fd, UWPROF_IOC_STOP), errno, "");
	else if (k < 77)
		do_stats(t, fd);
	else if (k < 80)
		do_badcmd(t, fd);
	else if (k < 92 && !t->child)
		do_read(t, fd);
	else if (k < 99)
		do_poll(t, fd);
	else if (!depth)
		do_fork(t, s);
	return 1;
}

/* The supervisor wants the module unused: close everything and wait. */
static void park(struct thr *t)
{
	for (int i = 0; i < NSLOT; i++)
		do_close(t, &t->w->slot[i]);
	__atomic_fetch_add(&sh->parked, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(&sh->pause, __ATOMIC_ACQUIRE) &&
	       !__atomic_load_n(&sh->stop, __ATOMIC_RELAXED))
		usleep(1000);
	__atomic_fetch_sub(&sh->parked, 1, __ATOMIC_ACQ_REL);
}

static unsigned long seq_limit;
static double deadline;

static void *worker_thread(void *arg)
{
	struct thr *t = arg;
	struct sigevent sev = {
		.sigev_notify = SIGEV_THREAD_ID,
		.sigev_signo = SIGUSR1,
	};
	long pg = sysconf(_SC_PAGESIZE);

	sev._sigev_un._tid = gettid();
	/* every read is bounded by this timer (do_read) */
	if (timer_create(CLOCK_MONOTONIC, &sev, &t->timer)) {
		perror("abi_fuzz: timer_create");
		_exit(3);
	}
	t->buf = mmap(NULL, (BUF_PAGES + 1) * pg, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	mprotect(t->buf + BUF_PAGES * pg, pg, PROT_NONE);
	while (!__atomic_load_n(&sh->stop, __ATOMIC_RELAXED)) {
		struct slot *s = &t->w->slot[below(&t->r, NSLOT)];

		if (__atomic_load_n(&sh->pause, __ATOMIC_ACQUIRE)) {
			park(t);
			continue;
		}
		int n = 1 + below(&t->r, 8), used = 0;
		unsigned long seq;

		while (n--)
			used |= one_call(t, s, 0);
		/* Only sequences that reached an open file count. */
		if (!used)
			continue;
		seq = __atomic_add_fetch(&sh->seq, 1, __ATOMIC_RELAXED);
		if ((seq_limit && seq >= seq_limit) || now() > deadline)
			__atomic_store_n(&sh->stop, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void worker(int id, int threads, uint64_t seed)
{
	struct worker w = { 0 };
	struct thr t[16];
	pthread_t th[16];
	struct sigaction sa = { .sa_handler = on_usr1 };	/* no SA_RESTART */
	int i;

	sigaction(SIGUSR1, &sa, NULL);
	for (i = 0; i < NSLOT; i++)
		w.slot[i].fd = -1;
	for (i = 0; i < threads; i++) {
		t[i].w = &w;
		t[i].r.s = seed * 1000003 + id * 131 + i + 1;
		pthread_create(&th[i], NULL, worker_thread, &t[i]);
	}
	for (i = 0; i < threads; i++)
		pthread_join(th[i], NULL);
	for (i = 0; i < NSLOT; i++)
		if (w.slot[i].fd > 0)
			close(w.slot[i].fd);
	_exit(0);
}

/* ---- targets: spin, make threads, fork, exec, exit, run JIT code ---- */

static void __attribute__((noreturn)) target(int slot, uint64_t seed);

/*
 * ARM code run from anonymous memory, as a JIT's: a frame V8's kind
 * walks (push {fp, lr}; mov fp, sp; spin; pop {fp, pc}), or with word 1
 * "add fp, sp, #4", a frame pointer the walk must refuse.
 */
static const uint32_t jit_words[] = {
	0xe92d4800, 0xe1a0b00d, 0xe2500001, 0x1afffffd, 0xe8bd8800,
};
#define JIT_BAD_FP	0xe28db004

/* Map (or keep), run, and sometimes unmap a page of JIT code. */
static void run_jit_code(struct rng *r)
{
	static unsigned char *page;
	uint32_t w1 = chance(r, 50) ? JIT_BAD_FP : jit_words[1];

	if (!page) {
		page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (page == MAP_FAILED) {
			page = NULL;
			return;
		}
		memcpy(page, jit_words, sizeof(jit_words));
		memcpy(page + 4, &w1, 4);
		if (mprotect(page, 4096, PROT_READ | PROT_EXEC)) {
			munmap(page, 4096);
			page = NULL;
			return;
		}
		__builtin___clear_cache((char *)page,
					(char *)page + sizeof(jit_words));
	}
	((unsigned long (*)(unsigned long))page)(1 + below(r, 200000));
	if (chance(r, 30)) {
		munmap(page, 4096);
		page = NULL;
	}
}

static void *spin_thread(void *arg)
{
	double end = now() + (uintptr_t)arg / 1000.0;

	while (now() < end)
		;
	return NULL;
}

static int claim_slot(int pid)
{
	for (int i = 0; i < NTARGET; i++) {
		int zero = 0;

		if (__atomic_compare_exchange_n(&sh->target[i], &zero, pid, 0,
						__ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED))
			return i;
	}
	return -1;
}

static void __attribute__((noreturn)) target(int slot, uint64_t seed)
{
	struct rng r = { seed ^ (getpid() * 2654435761u) };
	double end = now() + (50 + below(&r, 400)) / 1000.0;
	char arg[32];

	__atomic_store_n(&sh->target[slot], getpid(), __ATOMIC_RELEASE);
	while (now() < end && !__atomic_load_n(&sh->stop, __ATOMIC_RELAXED)) {
		pthread_t th;
		int k = below(&r, 100);

		/* Run about half the time, so the workers get the CPUs too. */
		spin_thread((void *)(uintptr_t)(1 + below(&r, 2)));
		usleep(500 + below(&r, 2000));
		if (k < 10 && pthread_create(&th, NULL, spin_thread,
				(void *)(uintptr_t)(1 + below(&r, 10))) == 0)
			pthread_detach(th);
		if (k == 10 || k == 11) {	/* fork a target of its own */
			pid_t pid;
			int c = claim_slot(-1);

			if (c < 0)
				continue;
			pid = fork();
			if (pid == 0)
				target(c, rnd(&r));
			if (pid < 0)
				__atomic_store_n(&sh->target[c], 0, __ATOMIC_RELEASE);
		}
		if (k >= 13 && k < 30)
			run_jit_code(&r);
		if (k == 12) {			/* exec: same pid, new mm */
			snprintf(arg, sizeof(arg), "%d", slot);
			execl(self_exe, self_exe, "--target", arg, shm_path,
			      (char *)NULL);
		}
	}
	__atomic_store_n(&sh->target[slot], 0, __ATOMIC_RELEASE);
	_exit(0);
}

/* Keeps NTARGET targets alive; reaps every descendant (subreaper). */
static void spawner(uint64_t seed)
{
	struct rng r = { seed * 7 + 3 };

	prctl(PR_SET_CHILD_SUBREAPER, 1);
	while (!__atomic_load_n(&sh->stop, __ATOMIC_RELAXED)) {
		int c = claim_slot(-1);

		if (c >= 0) {
			pid_t pid = fork();

			if (pid == 0)
				target(c, rnd(&r));
			if (pid < 0)
				__atomic_store_n(&sh->target[c], 0, __ATOMIC_RELEASE);
		}
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		usleep(5000);
	}
	while (waitpid(-1, NULL, 0) > 0)
		;
	_exit(0);
}

/* ---- watchdog: a hang is a failure, with the stacks that show it ---- */

/* Prints a small /proc file, each line prefixed. */
static void print_file(const char *path, const char *prefix)
{
	char line[256];
	FILE *f = fopen(path, "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		printf("%s%s", prefix, line);
	fclose(f);
}

/*
 * Every thread of the fuzzer (@all: of every process), with the kernel
 * stack it sleeps in.
 */
static void dump_tasks(int all)
{
	DIR *procs = opendir("/proc"), *tasks;
	struct dirent *p, *t;
	char path[600];	/* two d_name of 255 at most */

	printf("# abi_fuzz: %s and their kernel stacks:\n",
	       all ? "every thread" : "its threads");
	while (procs && (p = readdir(procs))) {
		snprintf(path, sizeof(path), "/proc/%s/task", p->d_name);
		tasks = p->d_name[0] >= '1' && p->d_name[0] <= '9' ?
			opendir(path) : NULL;
		while (tasks && (t = readdir(tasks))) {
			char stat[256] = "";
			FILE *f;

			snprintf(path, sizeof(path), "/proc/%s/task/%s/stat",
				 p->d_name, t->d_name);
			f = t->d_name[0] != '.' ? fopen(path, "r") : NULL;
			if (f && !fgets(stat, sizeof(stat), f))
				stat[0] = 0;
			if (f)
				fclose(f);
			if (!all && !strstr(stat, "(abi_fuzz)"))
				continue;
			printf("#   %s", stat);
			snprintf(path, sizeof(path), "/proc/%s/task/%s/stack",
				 p->d_name, t->d_name);
			print_file(path, "#       ");
		}
		if (tasks)
			closedir(tasks);
	}
	if (procs)
		closedir(procs);
}

static unsigned long calls_made(void)
{
	unsigned long n = 0;

	for (int op = 0; op < OP_NR; op++)
		n += __atomic_load_n(&sh->calls[op], __ATOMIC_RELAXED);
	return n;
}

/*
 * A process of its own: if no call completes for STALL seconds, or the
 * run has not finished STALL seconds after the stop, it prints every
 * thread's kernel stack, says FAIL and kills the whole run.
 */
static void watchdog(void)
{
	const double stall = 60;
	unsigned long calls = 0, c;
	double moved = now(), stopped = 0;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	while (!__atomic_load_n(&sh->done, __ATOMIC_ACQUIRE)) {
		sleep(1);
		c = calls_made();
		if (c != calls) {
			calls = c;
			moved = now();
		}
		if (!stopped && __atomic_load_n(&sh->stop, __ATOMIC_RELAXED))
			stopped = now();
		if (now() - moved < stall && (!stopped || now() - stopped < stall))
			continue;
		printf("# abi_fuzz: %s for %.0f s\n",
		       stopped ? "not finished after the stop" : "no call returned",
		       stall);
		dump_tasks(0);
		printf("# abi_fuzz: FAIL (a hang)\n");
		fflush(stdout);
		kill(0, SIGKILL);
	}
	_exit(0);
}

/* ---- module load, unload, parameters ---- */

static int mod_load(const char *params)
{
	int fd = open(ko_path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0) {
		perror(ko_path);
		exit(2);
	}
	ret = syscall(SYS_finit_module, fd, params, 0);
	note(OP_INSMOD, ret, errno, "");
	close(fd);
	return ret;
}

static int mod_loaded(void)
{
	return access("/sys/module/uwprof", F_OK) == 0;
}

static const char *mod_params =
	"buffer_bytes=16384 table_bytes_max=65536 wakeup_ms=10";

static void set_param(const char *name, unsigned long v)
{
	char path[96];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/uwprof/parameters/%s", name);
	f = fopen(path, "w");
	if (!f)
		return;
	fprintf(f, "%lu\n", v);
	fclose(f);
}

/* Set one parameter to an odd value; the next call puts it back. */
static void fuzz_params(struct rng *r)
{
	static const char *const names[] = {
		"buffer_bytes", "max_depth", "stack_window", "wakeup_ms",
		"wakeup_bytes", "table_bytes_max", "table_keep_bytes",
	};
	static const unsigned long dflt[] = {
		16384, 128, 262144, 10, 0, 65536, 16 << 20,
	};
	static int changed = -1;

	if (changed >= 0) {
		set_param(names[changed], dflt[changed]);
		changed = -1;
		return;
	}
	changed = below(r, 7);
	static const unsigned long buffer[] = { 0, 1, 4096, 16384, 65536 };
	static const unsigned long depth[] = { 0, 1, 128, 256, 257, 100000 };
	static const unsigned long window[] = { 0, 16, 4096, 262144, 0xffffffff };
	static const unsigned long wms[] = { 0, 1, 10, 1000, 5000 };
	static const unsigned long tbm[] = { 0, 64, 4096, 65536 };
	static const unsigned long keep[] = { 0, 64, 4096, 16 << 20 };

	switch (changed) {
	case 0: set_param("buffer_bytes", buffer[below(r, 5)]); break;
	case 1: set_param("max_depth", depth[below(r, 6)]); break;
	case 2: set_param("stack_window", window[below(r, 5)]); break;
	case 3: set_param("wakeup_ms", wms[below(r, 5)]); break;
	case 4: set_param("wakeup_bytes", below(r, 2) ? 0 : rnd(r)); break;
	case 5: set_param("table_bytes_max", tbm[below(r, 4)]); break;
	default: set_param("table_keep_bytes", keep[below(r, 4)]); break;
	}
}

/*
 * Failslab and fail_page_alloc, for allocations with uwprof.ko's code on
 * the stack, 1 in 20 of them.  Needs debugfs and a FAULT_INJECTION kernel.
 */
static int write_file(const char *path, const char *v)
{
	FILE *f = fopen(path, "w");
	int ok;

	if (!f)
		return -1;
	ok = fputs(v, f) >= 0;
	return fclose(f) == 0 && ok ? 0 : -1;
}

static int faults_on(int on)
{
	static const char *const kinds[] = { "failslab", "fail_page_alloc" };
	unsigned long base = 0, size = 0;
	char line[256], v[32];
	FILE *f = fopen("/proc/modules", "r");
	int ret = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "uwprof %lu %*s %*s %*s %lx", &size, &base) == 2)
			break;
	if (f)
		fclose(f);
	for (int i = 0; i < 2; i++) {
		char p[128];
		const char *d = kinds[i];

#define SET(file, val) do { snprintf(p, sizeof(p), "/sys/kernel/debug/%s/%s", d, file); \
		ret |= write_file(p, val); } while (0)
		if (!on) {
			SET("probability", "0");
			continue;
		}
		snprintf(v, sizeof(v), "%lu", base);
		SET("require-start", v);
		snprintf(v, sizeof(v), "%lu", base + size);
		SET("require-end", v);
		SET("stacktrace-depth", "32");
		SET("ignore-gfp-wait", "N");
		SET("task-filter", "N");
		SET("verbose", "0");
		SET("times", "-1");
		SET("interval", "1");
		SET("probability", "5");
		if (i == 0)
			SET("cache-filter", "N");
		else {
			SET("ignore-gfp-highmem", "N");
			SET("min-order", "0");
		}
#undef SET
	}
	return ret;
}

/*
 * Unload, retrying until @give_up: a sample queued for a task's own
 * context holds the module until that task returns to user space, and
 * the reference it held goes from the module's workqueue (docs/ABI.md).
 * 0, or -1 with errno.
 */
static int unload_until(double give_up)
{
	int ret = 0;

	while (mod_loaded()) {
		ret = syscall(SYS_delete_module, "uwprof", O_NONBLOCK);
		note(OP_RMMOD, ret, errno, "");
		if (!ret) {
			sh->unloads++;
			break;
		}
		if (now() > give_up)
			return -1;
		usleep(10000);
	}
	return 0;
}

/*
 * Every worker thread closes its files and waits: the unload must then
 * succeed (a file, event or work item left behind would keep the module).
 */
static void unload_quiet(int threads)
{
	double give_up = now() + 10;

	__atomic_store_n(&sh->pause, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&sh->parked, __ATOMIC_ACQUIRE) < threads &&
	       now() < give_up)
		usleep(1000);
	if (unload_until(give_up)) {
		printf("# abi_fuzz: unload with every file closed failed for 10 s: %s\n",
		       strerror(errno));
		print_file("/sys/module/uwprof/refcnt", "# abi_fuzz: refcnt ");
		dump_tasks(1);
		sh->quiet_unload_failed++;
	}
	__atomic_store_n(&sh->pause, 0, __ATOMIC_RELEASE);
}

static void print_summary(double secs)
{
	printf("# abi_fuzz: %lu sequences in %.1f s, %lu unloads, %lu reloads\n",
	       sh->seq, secs, sh->unloads, sh->reloads);
	for (int op = 0; op < OP_NR; op++) {
		printf("#   %-13s %9lu calls", op_name[op], sh->calls[op]);
		for (int e = 1; e < MAX_ERRNO; e++)
			if (sh->err[op][e])
				printf(" %s:%lu", strerrorname_np(e) ?: "?",
				       sh->err[op][e]);
		printf("\n");
	}
	printf("# abi_fuzz: EBADF from a sibling's close: %lu\n", sh->ebadf);
	printf("# abi_fuzz: samples taken %lu, delivered %lu, frames %lu (files closed by close())\n",
	       sh->taken, sh->delivered, sh->frames);
	for (unsigned long i = 0; i < sh->mismatch && i < 8; i++)
		printf("# abi_fuzz: errno not in docs/ABI.md: %s\n",
		       sh->mismatch_log[i]);
}

int main(int argc, char **argv)
{
	int workers = 3, threads = 2, faults = 0, opt, fd, rc = 0;
	double secs = 0, start, report, next_unload, unload_every = 5;
	uint64_t seed = time(NULL);
	pid_t pids[17], spawn;
	struct rng r;

	self_exe = "/proc/self/exe";
	if (argc == 4 && !strcmp(argv[1], "--target")) {
		shm_path = argv[3];
		fd = open(shm_path, O_RDWR);
		sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
			  MAP_SHARED, fd, 0);
		if (fd < 0 || sh == MAP_FAILED)
			_exit(1);
		target(atoi(argv[2]), time(NULL));
	}
	while ((opt = getopt(argc, argv, "s:n:w:t:k:r:u:F")) != -1) {
		switch (opt) {
		case 's': secs = atof(optarg); break;
		case 'n': seq_limit = strtoul(optarg, NULL, 0); break;
		case 'w': workers = atoi(optarg); break;
		case 't': threads = atoi(optarg); break;
		case 'k': ko_path = optarg; break;
		case 'r': seed = strtoull(optarg, NULL, 0); break;
		case 'F': faults = 1; break;
		case 'u': unload_every = atof(optarg); break;
		default:
			fprintf(stderr, "usage: abi_fuzz [-s SECONDS] [-n SEQUENCES] [-w WORKERS] [-t THREADS] [-k KO] [-r SEED] [-u UNLOAD_EVERY] [-F]\n");
			return 2;
		}
	}
	if (workers < 1 || workers > 16 || threads < 1 || threads > 16)
		return 2;
	setpgid(0, 0);		/* the watchdog's kill ends the run, not the shell */
	if (!secs && !seq_limit)
		seq_limit = 100000;
	fd = open(shm_path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, sizeof(*sh))) {
		perror(shm_path);
		return 2;
	}
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	printf("# abi_fuzz: seed %llu, %d workers x %d threads, %s\n",
	       (unsigned long long)seed, workers, threads,
	       faults ? "failslab/fail_page_alloc on" : "no fault injection");
	fflush(stdout);
	if (!mod_loaded() && mod_load(mod_params))
		return 2;
	if (faults && faults_on(1)) {
		fprintf(stderr, "abi_fuzz: cannot set up fault injection\n");
		return 2;
	}
	start = now();
	deadline = start + (secs ? secs : 3600);
	report = start + 10;
	next_unload = start + unload_every;
	r.s = seed * 31 + 7;
	if (fork() == 0)
		watchdog();
	spawn = fork();
	if (spawn == 0)
		spawner(seed);
	for (int i = 0; i < workers; i++) {
		pids[i] = fork();
		if (pids[i] == 0)
			worker(i, threads, seed);
	}
	while (!__atomic_load_n(&sh->stop, __ATOMIC_RELAXED)) {
		int k = below(&r, 100), ret;

		usleep(2000 + below(&r, 20000));
		if (now() > deadline + 5)
			sh->stop = 1;
		if (now() > report) {
			printf("# abi_fuzz: %.0f s: %lu sequences\n",
			       now() - start, sh->seq);
			fflush(stdout);
			report += 10;
		}
		if (k < 30) {
			ret = syscall(SYS_delete_module, "uwprof", O_NONBLOCK);
			note(OP_RMMOD, ret, errno, "");
			if (!ret)
				sh->unloads++;
		}
		if (now() > next_unload) {
			unload_quiet(workers * threads);
			next_unload = now() + unload_every;
		}
		if (!mod_loaded()) {
			if (!mod_load(mod_params)) {
				sh->reloads++;
				if (faults)
					faults_on(1);
			}
		} else if (k >= 90) {
			fuzz_params(&r);
		}
	}
	/* A worker that died (a signal, glibc aborting) ran nothing more. */
	for (int i = 0; i < workers; i++) {
		int status = 0;

		waitpid(pids[i], &status, 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			printf("# abi_fuzz: worker %d died (status %#x)\n", i, status);
			rc = 1;
		}
	}
	waitpid(spawn, NULL, 0);
	if (faults)
		faults_on(0);
	print_summary(now() - start);
	if (sh->mismatch || !sh->seq)
		rc = 1;
	if (sh->quiet_unload_failed)
		rc = 1;
	if (sh->valid_rejected) {
		printf("# abi_fuzz: %lu generated valid tables were refused\n",
		       sh->valid_rejected);
		rc = 1;
	}
	/* Every file is closed now: the module must go, within 10 s. */
	if (unload_until(now() + 10)) {
		printf("# abi_fuzz: final unload failed for 10 s: %s\n",
		       strerror(errno));
		rc = 1;
	}
	__atomic_store_n(&sh->done, 1, __ATOMIC_RELEASE);
	printf("# abi_fuzz: %s\n", rc ? "FAIL" : "ok");
	return rc;
}
