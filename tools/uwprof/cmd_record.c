// SPDX-License-Identifier: GPL-2.0
/*
 * uwprof record: sample processes through /dev/unwind_samples and write
 * uwprof.data.
 *
 * For every executable file mapping of a target it reads the file's
 * build-id, loads TABLES/<build-id>.uwt, uploads it (once per build-id)
 * and attaches it to the mapping's runtime .text.  The maps are read
 * again now and then, so libraries mapped later (the dynamic loader,
 * dlopen) and new images after an exec get their tables too.  libc only:
 * this file is part of the static armhf uwprof that runs on the device.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* pipe2 */
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "attach.h"
#include "buildid.h"
#include "datafile.h"
#include "uapi/uwprof.h"
#include "uwprof.h"

#define REC_DEFAULT_HZ		1000
#define REC_READ_BUF		(256 * 1024)
#define REC_SCAN_MIN_MS		1
#define REC_SCAN_MAX_MS		250
#define REC_SCAN_MAX_ALL_MS	1000
#define REC_SCAN_HINT_MS	10	/* at most this often for no-table hints */
/*
 * After the maps change (an exec, the loader mapping libraries), keep
 * scanning at the fastest rate for a while: the loader maps the next
 * library a few milliseconds later, and main may already run in it.
 */
#define REC_SCAN_SETTLE_MS	50
#define REC_POLL_MAX_MS		100
#define REC_PROGRESS_MS		500

struct rec_opts {
	pid_t *pids;
	unsigned int npids;
	pid_t *tids;		/* --tid: only these threads' samples are kept */
	unsigned int ntids;
	bool all;
	bool quiet;		/* no progress line, no summary */
	char **cmd;
	uint32_t freq;
	double duration;	/* 0: until Ctrl-C or the targets end */
	const char *tables;
	const char *out;
};

/* A table by build-id: uploaded once, shared by every mapping of the file. */
struct table_ent {
	char bid[2 * UW_BUILD_ID_MAX + 1];
	int id;			/* > 0 uploaded; 0 no such table; < 0 unusable */
	struct uwt_meta meta;
};

/* A mapping seen in a target, written to the file once the target counts. */
struct seen_map {
	struct uwd_mapping m;
	char path[256];
	bool written;
	bool retry;		/* its table did not fit yet: look again next scan */
};

struct target {
	pid_t pid;
	bool explicit;		/* named by -p or started by us */
	bool gone;
	bool announced;		/* its process record is written */
	unsigned int attached;	/* attachments made since its last exec */
	unsigned int attached_ever;
	dev_t exe_dev;
	ino_t exe_ino;
	struct seen_map *seen;
	unsigned int nseen, room;
};

struct rec {
	struct rec_opts o;
	int fd;
	struct uwd_writer w;
	struct target *t;
	unsigned int nt, troom;
	struct table_ent *tab;
	unsigned int ntab, tabroom;
	uint8_t *buf;
	uint64_t samples, stops[UWPROF_STOP_NR], bad_records;
	uint64_t other_threads;	/* left out by --tid */
	uint64_t lost;
	uint64_t t0;
	bool new_maps;		/* the last scan found something */
	bool want_scan;		/* a sample hit code with no table attached */
	bool failed;		/* a fatal error (EACCES on an explicit target) */
};

static volatile sig_atomic_t rec_stop;

static void on_signal(int sig)
{
	(void)sig;
	rec_stop = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *grow(void *p, unsigned int *room, unsigned int n, size_t sz)
{
	void *g;

	if (n < *room)
		return p;
	*room = *room ? *room * 2 : 16;
	g = realloc(p, *room * sz);
	if (!g) {
		uw_err("record: out of memory");
		exit(UWPROF_EXIT_FAIL);
	}
	return g;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: uwprof record [options] -- COMMAND [ARGS...]\n"
		"       uwprof record [options] -p PID[,PID...]\n"
		"       uwprof record [options] -t TID[,TID...]\n"
		"       uwprof record [options] -a\n"
		"\n"
		"Sample the user-space call stacks of processes, unwound in the kernel\n"
		"by uwprof.ko with tables made by 'uwprof table', and write them to a\n"
		"data file for 'uwprof report'.\n"
		"\n"
		"  -p, --pid PID[,PID...]  profile these running processes\n"
		"  -t, --tid TID[,TID...]  profile these threads (of running processes)\n"
		"  -a, --all               every process whose code has tables\n"
		"  -F, --freq HZ           samples per second per thread (default %d, max 10000)\n"
		"  -d, --duration SECONDS  stop after this long (default: Ctrl-C, or when\n"
		"                          the command or every PID has exited)\n"
		"      --tables DIR        tables as DIR/<build-id>.uwt (default\n"
		"                          $UWPROF_TABLES, else ./tables)\n"
		"  -o, --output FILE       data file (default uwprof.data)\n"
		"  -q, --quiet             no progress line and no summary\n",
		REC_DEFAULT_HZ);
}

/* "1,2,3" appended to @ids; @opt names the option in errors. */
static int parse_pids(const char *s, const char *opt, pid_t **ids,
		      unsigned int *n)
{
	char *copy = strdup(s), *tok, *save = NULL;
	unsigned int room = *n;
	uint32_t v;

	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!uw_parse_u32(tok, &v) || !v || v > 0x3fffffff) {
			uw_err("record: bad id '%s' in %s %s", tok, opt, s);
			free(copy);
			return -1;
		}
		*ids = grow(*ids, &room, *n, sizeof(**ids));
		(*ids)[(*n)++] = (pid_t)v;
	}
	free(copy);
	return 0;
}

static int parse_duration(const char *s, double *d)
{
	char *end;

	errno = 0;
	*d = strtod(s, &end);
	return errno || end == s || *end || !(*d > 0) || *d > 1e7 ? -1 : 0;
}

static int parse_args(int argc, char **argv, struct rec_opts *o)
{
	static const struct option lo[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "all", no_argument, NULL, 'a' },
		{ "freq", required_argument, NULL, 'F' },
		{ "duration", required_argument, NULL, 'd' },
		{ "tid", required_argument, NULL, 't' },
		{ "tables", required_argument, NULL, 'T' },
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c, modes;

	memset(o, 0, sizeof(*o));
	o->freq = REC_DEFAULT_HZ;
	o->out = "uwprof.data";
	o->tables = getenv("UWPROF_TABLES");
	if (!o->tables || !*o->tables)
		o->tables = "tables";
	optind = 1;
	/* "+": stop at the first non-option, the command to run. */
	while ((c = getopt_long(argc, argv, "+p:t:aF:d:o:qh", lo, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (parse_pids(optarg, "-p", &o->pids, &o->npids))
				return -1;
			break;
		case 't':
			if (parse_pids(optarg, "-t", &o->tids, &o->ntids))
				return -1;
			break;
		case 'q': o->quiet = true; break;
		case 'a': o->all = true; break;
		case 'F':
			if (!uw_parse_u32(optarg, &o->freq) || !o->freq ||
			    o->freq > 10000) {
				uw_err("record: -F wants a rate from 1 to 10000 Hz, not '%s'",
				       optarg);
				return -1;
			}
			break;
		case 'd':
			if (parse_duration(optarg, &o->duration)) {
				uw_err("record: -d wants a positive number of seconds, not '%s'",
				       optarg);
				return -1;
			}
			break;
		case 'T': o->tables = optarg; break;
		case 'o': o->out = optarg; break;
		case 'h': usage(stdout); exit(UWPROF_EXIT_OK);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc)
		o->cmd = argv + optind;
	modes = !!o->npids + !!o->ntids + o->all + !!o->cmd;
	if (modes != 1) {
		uw_err("record: %s; give one of -p PID, -t TID, -a or -- COMMAND",
		       modes ? "more than one target" : "nothing to profile");
		return -1;
	}
	return 0;
}

/* ---- the device ---- */

static int open_device(void)
{
	int fd = open(UWPROF_DEVICE, O_RDWR | O_CLOEXEC | O_NONBLOCK);

	if (fd >= 0)
		return fd;
	if (errno == ENOENT || errno == ENODEV || errno == ENXIO)
		uw_err("record: no %s: is uwprof.ko loaded? insmod uwprof.ko",
		       UWPROF_DEVICE);
	else if (errno == EACCES || errno == EPERM)
		uw_err("record: %s: %s; recording needs root (or CAP_PERFMON)",
		       UWPROF_DEVICE, strerror(errno));
	else
		uw_err("record: cannot open %s: %s", UWPROF_DEVICE, strerror(errno));
	return -1;
}

static int attachments_of(int fd, pid_t pid)
{
	struct uwprof_list l = { .size = sizeof(l), .pid = (uint32_t)pid };

	return ioctl(fd, UWPROF_IOC_LIST, &l) ? -1 : (int)l.count;
}

/* ---- tables ---- */

static struct table_ent *table_for(struct rec *r, const char *bid)
{
	struct table_ent *e;
	struct uwt_file f;
	char path[4096], err[256];
	uint32_t verr = 0;
	unsigned int i;

	for (i = 0; i < r->ntab; i++)
		if (!strcmp(r->tab[i].bid, bid))
			return &r->tab[i];
	r->tab = grow(r->tab, &r->tabroom, r->ntab, sizeof(*r->tab));
	e = &r->tab[r->ntab++];
	memset(e, 0, sizeof(*e));
	snprintf(e->bid, sizeof(e->bid), "%s", bid);
	snprintf(path, sizeof(path), "%s/%s.uwt", r->o.tables, bid);
	if (uwt_load_file(path, &f, err, sizeof(err))) {
		if (access(path, F_OK) == 0) {
			uw_err("record: warning: %s", err);
			e->id = -1;
		}
		return e;
	}
	e->meta = f.meta;
	e->id = uw_dev_upload(r->fd, f.blob, f.blob_size, &verr);
	if (e->id < 0)
		uw_err("record: warning: the device refused %s: %s%s", path,
		       strerror(-e->id), verr ? " (invalid table; remake it)" : "");
	free(f.buf);
	return e;
}

/* ---- targets ---- */

static struct target *add_target(struct rec *r, pid_t pid, bool explicit)
{
	struct target *t;

	r->t = grow(r->t, &r->troom, r->nt, sizeof(*r->t));
	t = &r->t[r->nt++];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->explicit = explicit;
	return t;
}

static struct target *find_target(struct rec *r, pid_t pid)
{
	for (unsigned int i = 0; i < r->nt; i++)
		if (r->t[i].pid == pid && !r->t[i].gone)
			return &r->t[i];
	return NULL;
}

static void write_or_die(struct rec *r, uint32_t type, const void *a,
			 size_t len, const char *str)
{
	if (uwd_write(&r->w, type, a, len, str)) {
		uw_err("record: cannot write %s: %s", r->o.out, strerror(errno));
		exit(UWPROF_EXIT_FAIL);
	}
}

static void announce(struct rec *r, struct target *t, uint32_t flags)
{
	struct uwd_process p = { .pid = (uint32_t)t->pid, .flags = flags };
	char link[64], exe[4096];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)t->pid);
	n = readlink(link, exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = 0;
	p.time_ns = now_ns();
	write_or_die(r, UWD_PROCESS, &p, sizeof(p), exe);
	t->announced = true;
}

/* Mappings go to the file only for targets that are sampled. */
static void flush_maps(struct rec *r, struct target *t)
{
	if (!t->explicit && !t->attached_ever)
		return;
	if (!t->announced)
		announce(r, t, 0);
	for (unsigned int i = 0; i < t->nseen; i++)
		if (!t->seen[i].written) {
			write_or_die(r, UWD_MAPPING, &t->seen[i].m,
				     sizeof(t->seen[i].m), t->seen[i].path);
			t->seen[i].written = true;
		}
}

/* The slot of a mapping seen before, or -1. */
static int seen_slot(const struct target *t, const struct uw_mapping *m)
{
	for (unsigned int i = 0; i < t->nseen; i++)
		if (t->seen[i].m.start == m->start && t->seen[i].m.end == m->end &&
		    t->seen[i].m.offset == m->offset &&
		    !strcmp(t->seen[i].path, m->path))
			return (int)i;
	return -1;
}

/* The module's ENOEXEC, and record's own check of -p targets below. */
static void not_32bit(pid_t pid)
{
	uw_err("record: cannot profile pid %d: it runs 64-bit code; uwprof "
	       "unwinds 32-bit ARM processes only", (int)pid);
}

static void attach_failed(struct rec *r, struct target *t, const char *path,
			  int err)
{
	if (err == -ENOEXEC) {
		not_32bit(t->pid);
		if (t->explicit)
			r->failed = true;
		t->gone = true;
	} else if (err == -EACCES || err == -EPERM) {
		uw_err("record: cannot profile pid %d: %s (needs root or "
		       "CAP_PERFMON, and ptrace access to the process)",
		       (int)t->pid, strerror(-err));
		if (t->explicit)
			r->failed = true;
		t->gone = true;
	} else if (err == -ESRCH) {
		t->gone = true;
	} else {
		uw_err("record: warning: cannot attach the table of %s to pid %d: %s",
		       path, (int)t->pid, strerror(-err));
	}
}

/* Find the table of one new executable mapping and attach it. */
static void resolve(struct rec *r, struct target *t, const struct uw_mapping *m,
		    struct seen_map *s)
{
	struct uw_elf_info info;
	struct table_ent *e;
	char bid[2 * UW_BUILD_ID_MAX + 1];
	int err;

	s->m.pid = (uint32_t)t->pid;
	s->m.start = m->start;
	s->m.end = m->end;
	s->m.offset = m->offset;
	s->m.time_ns = now_ns();
	snprintf(s->path, sizeof(s->path), "%s", m->path);
	if (uw_elf_info(m->path, &info))
		return;
	memcpy(s->m.build_id, info.build_id, info.build_id_len);
	s->m.build_id_len = info.build_id_len;
	if (!uw_map_bias(info.loads, info.nloads, m->start, m->end, m->offset,
			 &s->m.bias))
		s->m.flags |= UWD_MAP_BIAS;
	if (!info.build_id_len)
		return;
	uw_hex(info.build_id, info.build_id_len, bid);
	e = table_for(r, bid);
	if (e->id <= 0)
		return;
	/*
	 * The loader maps a library in steps (the whole file, then each
	 * segment over it): a mapping caught half-way is looked at again.
	 */
	if (uw_runtime_text(&e->meta, m, &s->m.text_start, &s->m.text_end)) {
		s->retry = true;
		return;
	}
	err = uw_dev_attach(r->fd, t->pid, (uint32_t)e->id, s->m.text_start,
			    s->m.text_end);
	if (err && err != -EEXIST) {
		attach_failed(r, t, m->path, err);
		return;
	}
	s->m.flags |= UWD_MAP_TABLE;
	t->attached++;
	t->attached_ever++;
}

/* An exec replaces every mapping and drops the attachments with the mm. */
static void check_exec(struct rec *r, struct target *t)
{
	char link[64];
	struct stat st;
	bool changed;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)t->pid);
	if (stat(link, &st))
		return;
	changed = t->nseen && (st.st_dev != t->exe_dev || st.st_ino != t->exe_ino);
	if (!changed && t->attached && attachments_of(r->fd, t->pid) == 0)
		changed = true;
	t->exe_dev = st.st_dev;
	t->exe_ino = st.st_ino;
	if (!changed)
		return;
	t->nseen = 0;
	t->attached = 0;
	if (t->announced)
		announce(r, t, UWD_PROC_EXEC);
}

static void scan_target(struct rec *r, struct target *t)
{
	struct uw_mapping *maps;
	unsigned int n, i;

	if (uw_read_maps(t->pid, &maps, &n)) {
		t->gone = true;
		return;
	}
	check_exec(r, t);
	for (i = 0; i < n && !t->gone; i++) {
		bool was_written;
		int slot;

		if (!maps[i].exec || maps[i].path[0] != '/')
			continue;
		slot = seen_slot(t, &maps[i]);
		if (slot >= 0 && !t->seen[slot].retry)
			continue;
		if (slot < 0) {
			t->seen = grow(t->seen, &t->room, t->nseen, sizeof(*t->seen));
			slot = (int)t->nseen++;
		}
		was_written = t->seen[slot].written && t->seen[slot].retry;
		memset(&t->seen[slot], 0, sizeof(t->seen[0]));
		resolve(r, t, &maps[i], &t->seen[slot]);
		/* Written once without a table; again only once it has one. */
		if (t->seen[slot].retry)
			t->seen[slot].written = was_written;
		if (!t->seen[slot].retry)
			r->new_maps = true;
	}
	free(maps);
	if (!t->gone)
		flush_maps(r, t);
}

/* -a: every process but this one. */
static void discover_all(struct rec *r)
{
	struct dirent *d;
	DIR *dir = opendir("/proc");
	uint32_t pid;

	if (!dir)
		return;
	while ((d = readdir(dir)))
		if (uw_parse_u32(d->d_name, &pid) && pid != (uint32_t)getpid() &&
		    !find_target(r, (pid_t)pid))
			add_target(r, (pid_t)pid, false);
	closedir(dir);
}

static void scan_all(struct rec *r)
{
	r->new_maps = false;
	if (r->o.all)
		discover_all(r);
	for (unsigned int i = 0; i < r->nt; i++)
		if (!r->t[i].gone)
			scan_target(r, &r->t[i]);
}

static bool explicit_alive(const struct rec *r)
{
	for (unsigned int i = 0; i < r->nt; i++)
		if (r->t[i].explicit && !r->t[i].gone)
			return true;
	return false;
}

/* ---- samples ---- */

static bool wanted_thread(const struct rec *r, uint32_t tid)
{
	if (!r->o.ntids)
		return true;
	for (unsigned int i = 0; i < r->o.ntids; i++)
		if ((uint32_t)r->o.tids[i] == tid)
			return true;
	return false;
}

static void take(struct rec *r, const struct uwprof_record *s)
{
	if (!wanted_thread(r, s->tid)) {
		r->other_threads++;
		return;
	}
	write_or_die(r, UWD_SAMPLE, s, s->size, NULL);
	r->samples++;
	if (s->stop < UWPROF_STOP_NR)
		r->stops[s->stop]++;
	/* Maybe a library mapped since the last scan: look sooner. */
	if (s->stop == UWPROF_STOP_NO_TABLE)
		r->want_scan = true;
}

static void drain(struct rec *r)
{
	ssize_t n;
	size_t pos;

	while ((n = read(r->fd, r->buf, REC_READ_BUF)) > 0)
		for (pos = 0; pos + sizeof(struct uwprof_record) <= (size_t)n;) {
			const struct uwprof_record *s = (void *)(r->buf + pos);

			if (s->size < sizeof(*s) || s->size > (size_t)n - pos ||
			    s->nframes > (s->size - sizeof(*s)) / 4) {
				r->bad_records++;
				break;
			}
			if (s->type == UWPROF_RECORD_SAMPLE)
				take(r, s);
			pos += (s->size + 7) & ~7u;
		}
	if (n < 0 && errno != EAGAIN && errno != EINTR) {
		uw_err("record: reading %s: %s", UWPROF_DEVICE, strerror(errno));
		rec_stop = 1;
	}
}

static int get_stats(struct rec *r, struct uwprof_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	if (ioctl(r->fd, UWPROF_IOC_STATS, st))
		return -1;
	r->lost = st->dropped_full;
	return 0;
}

/* ---- the command ---- */

/*
 * Fork and exec @argv.  The exec is seen through a close-on-exec pipe:
 * EOF means the new image is in place (its maps can be read), an int on
 * it is the errno of a failed exec.
 */
static pid_t start_command(char **argv)
{
	int p[2], e = 0;
	pid_t pid;
	ssize_t n;

	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		execvp(argv[0], argv);
		e = errno;
		if (write(p[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return -1;
	}
	do
		n = read(p[0], &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(p[0]);
	if (n > 0) {
		waitpid(pid, NULL, 0);
		uw_err("record: cannot run '%s': %s", argv[0], strerror(e));
		errno = e;
		return 0;
	}
	return pid;
}

static void progress(struct rec *r, bool last)
{
	static uint64_t next;
	uint64_t now = now_ns();
	struct uwprof_stats st;

	if (r->o.quiet || !isatty(STDERR_FILENO) || (!last && now < next))
		return;
	next = now + REC_PROGRESS_MS * 1000000ull;
	get_stats(r, &st);
	fprintf(stderr, "\r[ uwprof record: %.1f s, %llu samples, %llu lost ]%s",
		(now - r->t0) / 1e9, (unsigned long long)r->samples,
		(unsigned long long)r->lost, last ? "\n" : "");
}

/* The attach loop: drain, re-scan now and then, stop when it is time. */
static void run_loop(struct rec *r, pid_t child)
{
	uint64_t deadline = r->o.duration ? r->t0 + (uint64_t)(r->o.duration * 1e9) : 0;
	uint64_t next_scan = 0, last_scan = 0, last_change = 0, now;
	unsigned int interval = REC_SCAN_MIN_MS;
	unsigned int max_ms = r->o.all ? REC_SCAN_MAX_ALL_MS : REC_SCAN_MAX_MS;
	struct pollfd pfd = { .fd = r->fd, .events = POLLIN };
	int timeout, status;

	while (!rec_stop) {
		now = now_ns();
		if (deadline && now >= deadline)
			break;
		if (r->want_scan && now >= last_scan + REC_SCAN_HINT_MS * 1000000ull)
			next_scan = now;
		if (now >= next_scan) {
			drain(r);	/* samples of an old image before its exec is seen */
			scan_all(r);
			r->want_scan = false;
			last_scan = now;
			if (r->new_maps)
				last_change = now;
			interval = now < last_change + REC_SCAN_SETTLE_MS * 1000000ull ?
				REC_SCAN_MIN_MS :
				(interval * 2 > max_ms ? max_ms : interval * 2);
			next_scan = now + interval * 1000000ull;
		}
		if (child > 0 && waitpid(child, &status, WNOHANG) == child) {
			if (WIFEXITED(status) && WEXITSTATUS(status))
				uw_err("record: the command exited with status %d",
				       WEXITSTATUS(status));
			else if (WIFSIGNALED(status) && WTERMSIG(status) != SIGINT)
				uw_err("record: the command was killed by signal %d",
				       WTERMSIG(status));
			break;
		}
		if (!r->o.all && !explicit_alive(r))
			break;
		timeout = (int)((next_scan - now) / 1000000);
		if (timeout > REC_POLL_MAX_MS)
			timeout = REC_POLL_MAX_MS;
		if (deadline && (deadline - now) / 1000000 < (uint64_t)timeout)
			timeout = (int)((deadline - now) / 1000000);
		poll(&pfd, 1, timeout < 1 ? 1 : timeout);
		drain(r);
		progress(r, false);
	}
}

static void summary_stops(const struct rec *r)
{
	unsigned int i, j, order[UWPROF_STOP_NR], shown = 0;

	for (i = 0; i < UWPROF_STOP_NR; i++)
		order[i] = i;
	for (i = 1; i < UWPROF_STOP_NR; i++)	/* by count, most first */
		for (j = i; j > 0 && r->stops[order[j]] > r->stops[order[j - 1]]; j--) {
			unsigned int x = order[j];

			order[j] = order[j - 1];
			order[j - 1] = x;
		}
	fprintf(stderr, "uwprof record: unwinds ended:");
	for (i = 0; i < UWPROF_STOP_NR && shown < 4; i++)
		if (r->stops[order[i]]) {
			fprintf(stderr, "%s %s %llu (%.1f%%)", shown ? "," : "",
				uwd_stop_name(order[i]),
				(unsigned long long)r->stops[order[i]],
				100.0 * r->stops[order[i]] / r->samples);
			shown++;
		}
	fprintf(stderr, "\n");
}

/* Each file of a sampled process with no table, once, with its fix. */
static void summary_missing(const struct rec *r)
{
	char bid[2 * UW_BUILD_ID_MAX + 1], done[64][256];
	unsigned int i, j, k, ndone = 0;

	for (i = 0; i < r->nt; i++) {
		const struct target *t = &r->t[i];

		if (!t->explicit && !t->attached_ever)
			continue;
		for (j = 0; j < t->nseen; j++) {
			const struct seen_map *s = &t->seen[j];

			if (s->m.flags & UWD_MAP_TABLE)
				continue;
			/* Before the retry warning too: it names the table. */
			uw_hex(s->m.build_id, s->m.build_id_len, bid);
			if (s->retry) {
				uw_err("record: warning: the table %s/%s.uwt does not "
				       "fit the mapping of %s in pid %d (made from "
				       "another build?)", r->o.tables, bid, s->path,
				       (int)t->pid);
				continue;
			}
			for (k = 0; k < ndone && strcmp(done[k], bid[0] ? bid : s->path); k++)
				;
			if (k < ndone || ndone == 64)
				continue;
			snprintf(done[ndone++], sizeof(done[0]), "%s", bid[0] ? bid : s->path);
			if (!s->m.build_id_len) {
				uw_err("record: no table for %s: it has no build-id "
				       "(tables are found by build-id; link with "
				       "-Wl,--build-id)", s->path);
				continue;
			}
			uw_err("record: no table for %s (build-id %s); make it on "
			       "the host from an unstripped copy of that file:\n"
			       "    uwprof table %s --build-id-dir %s", s->path, bid,
			       s->path, r->o.tables);
		}
	}
}

static void summary(const struct rec *r, double secs)
{
	unsigned int procs = 0;

	if (r->o.quiet)
		return;
	for (unsigned int i = 0; i < r->nt; i++)
		procs += r->t[i].attached_ever > 0;
	fprintf(stderr, "uwprof record: %llu samples of %u process%s in %.2f s "
		"written to %s; %llu lost (buffer full)\n",
		(unsigned long long)r->samples, procs, procs == 1 ? "" : "es",
		secs, r->o.out, (unsigned long long)r->lost);
	if (r->samples) {
		fprintf(stderr, "uwprof record: fully unwound: %.1f%% (%llu of %llu)\n",
			100.0 * uwd_complete_count(r->stops) / r->samples,
			(unsigned long long)uwd_complete_count(r->stops),
			(unsigned long long)r->samples);
		summary_stops(r);
	}
	if (r->other_threads)
		fprintf(stderr, "uwprof record: %llu samples of other threads left "
			"out (--tid)\n", (unsigned long long)r->other_threads);
	if (r->bad_records)
		uw_err("record: warning: %llu malformed records from the device "
		       "were skipped", (unsigned long long)r->bad_records);
	summary_missing(r);
}

/* The process a thread belongs to, from /proc/TID/status; 0 if none. */
static pid_t tgid_of(pid_t tid)
{
	char path[64], line[128];
	unsigned int tgid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %u", &tgid) == 1)
			break;
	fclose(f);
	return (pid_t)tgid;
}

/* -t: each thread's process becomes a target, once. */
static int add_thread_pids(struct rec_opts *o)
{
	unsigned int room = o->npids, i, j;
	pid_t tgid;

	for (i = 0; i < o->ntids; i++) {
		tgid = tgid_of(o->tids[i]);
		if (tgid <= 0) {
			uw_err("record: no thread %d (not running)", (int)o->tids[i]);
			return -1;
		}
		for (j = 0; j < o->npids && o->pids[j] != tgid; j++)
			;
		if (j < o->npids)
			continue;
		o->pids = grow(o->pids, &room, o->npids, sizeof(*o->pids));
		o->pids[o->npids++] = tgid;
	}
	return 0;
}

/*
 * Each -p process runs and is 32-bit.  A 64-bit one would never reach the
 * module's refusal: none of its mappings has a table to attach.
 */
static int check_pids(const struct rec_opts *o)
{
	char path[64];

	for (unsigned int i = 0; i < o->npids; i++) {
		snprintf(path, sizeof(path), "/proc/%d/maps", (int)o->pids[i]);
		if (access(path, R_OK)) {
			uw_err("record: no process %d (%s)", (int)o->pids[i],
			       errno == ENOENT ? "not running" : strerror(errno));
			return -1;
		}
		snprintf(path, sizeof(path), "/proc/%d/exe", (int)o->pids[i]);
		if (uw_elf_is_64bit(path)) {
			not_32bit(o->pids[i]);
			return -1;
		}
	}
	return 0;
}

static int start_targets(struct rec *r, pid_t *child)
{
	for (unsigned int i = 0; i < r->o.npids; i++)
		add_target(r, r->o.pids[i], true);
	if (r->o.cmd) {
		*child = start_command(r->o.cmd);
		if (*child <= 0)
			return -1;
		add_target(r, *child, true);
	}
	scan_all(r);
	if (!r->o.all && !r->nt)
		return -1;
	return r->failed ? -1 : 0;
}

static void finish(struct rec *r)
{
	struct uwprof_stats st;

	if (ioctl(r->fd, UWPROF_IOC_STOP) && errno != EALREADY)
		uw_err("record: warning: stopping the sampler: %s", strerror(errno));
	drain(r);
	if (get_stats(r, &st) == 0)
		write_or_die(r, UWD_STATS, &st, sizeof(st), NULL);
	progress(r, true);
	if (uwd_close(&r->w, now_ns())) {
		uw_err("record: cannot write %s: %s", r->o.out, strerror(errno));
		exit(UWPROF_EXIT_FAIL);
	}
}

static int run(struct rec *r)
{
	/*
	 * As perf does: -p and a command are sampled per task (timers follow
	 * their threads), -a per CPU (one timer per CPU for every process).
	 */
	struct uwprof_start st = {
		.size = sizeof(st), .freq_hz = r->o.freq,
		.flags = r->o.all ? 0 : UWPROF_START_PER_TASK,
	};
	struct sigaction sa = { .sa_handler = on_signal };
	pid_t child = 0;

	r->fd = open_device();
	if (r->fd < 0)
		return UWPROF_EXIT_FAIL;
	r->buf = malloc(REC_READ_BUF);
	if (!r->buf || uwd_open(&r->w, r->o.out, r->o.freq)) {
		uw_err("record: cannot create %s: %s", r->o.out, strerror(errno));
		return UWPROF_EXIT_FAIL;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	r->t0 = now_ns();
	if (ioctl(r->fd, UWPROF_IOC_START, &st)) {
		uw_err("record: cannot start sampling: %s", strerror(errno));
		return UWPROF_EXIT_FAIL;
	}
	if (start_targets(r, &child)) {
		if (child > 0)
			kill(child, SIGTERM);
		finish(r);
		return UWPROF_EXIT_FAIL;
	}
	run_loop(r, child);
	/* Stopped by -d or a signal: the command does not outlive the recording. */
	if (child > 0 && waitpid(child, NULL, WNOHANG) == 0)
		kill(child, SIGTERM);
	finish(r);
	summary(r, (now_ns() - r->t0) / 1e9);
	if (child > 0)
		waitpid(child, NULL, 0);
	return UWPROF_EXIT_OK;
}

static int cmd_record(int argc, char **argv)
{
	struct rec r;

	memset(&r, 0, sizeof(r));
	if (parse_args(argc, argv, &r.o))
		return UWPROF_EXIT_USAGE;
	if (add_thread_pids(&r.o) || check_pids(&r.o))
		return UWPROF_EXIT_USAGE;
	return run(&r);
}

UWPROF_COMMAND(record, "record", "sample processes' call stacks into uwprof.data",
	       cmd_record)
