// SPDX-License-Identifier: GPL-2.0
/*
 * Ground truth for the unwinder, under qemu-user: an armhf program that
 * profiles itself.  Threads run known call chains that end in the C
 * library's and libgcc's hand-written routines; a SIGPROF handler
 * (ITIMER_PROF) unwinds its own interrupted stack from the ucontext with
 * unwind_v2.c and the tables uwprof built for this program and its
 * libraries, and records the frames.  After the run every sample is
 * judged against the chain its thread was known to run:
 *
 *   frames inside the routine (not a chain function), then exactly the
 *   rest of the chain from the first chain function on, ending at the
 *   thread's outermost frame (stop root or noreturn).
 *
 *   gt [--samples N] [--seconds S (CPU time)] [--timer prof|thread]
 *      [--only ROUTINE] --table NAME=FILE... --syms NAME=FILE...
 *
 * The timer is ITIMER_PROF (process CPU time, checked at the kernel's
 * tick: a few hundred samples a second) or, with --timer thread, one
 * CLOCK_MONOTONIC timer per thread signalling that thread at 10 kHz:
 * twenty times as many samples a second under qemu-user.  The clone
 * routine runs on ITIMER_PROF only: while its caller has a timer of its
 * own, qemu-user delivers the started thread no signal, so --timer thread
 * leaves it out (run it alone with --timer prof --only clone).  --only
 * runs one routine, beside the main thread's chain, which always runs.
 *
 * NAME is "main" for the program or a library's file name (libc.so.6);
 * --syms files are `nm -n` output of the unstripped program or the
 * library's debug file.  Prints one line per routine and a count line.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <link.h>
#include <sys/syscall.h>
#include <linux/futex.h>

#include "unwind_v2.h"
#include "lib/uwt.h"
#include "lib/v8blob.h"
#include "gt_nocfi.h"

#define MAX_FRAMES	64
#define MAX_MODS	12

/* gt_v8.S: builtin 0 of its V8-style blob, a frameless leaf */
void gt_v8_copy(void *dst, const void *src, uint32_t bytes);
static void (*volatile v8_copy)(void *, const void *, uint32_t) = gt_v8_copy;
/* gt_cfitail.S: CFI with prologue rows only, epilogues ending in tail calls */
uint32_t gt_cfi_tail(uint32_t i);
/* gt_plt0.S: a resolver entered as PLT0 enters it, tail-calling a leaf */
uint32_t gt_plt0_call(uint32_t x);

/* ---- the known chains ---- */

enum { R_MEMCPY, R_MEMMOVE, R_MEMSET, R_STRLEN, R_STRCMP, R_SYSCALL,
       R_UIDIV, R_IDIV, R_ULDIVMOD, R_L2D, R_NOCFI, R_CLASSES, R_APCS,
       R_EHABI, R_V8LEAF, R_CFITAIL, R_PLT0, R_CLONE,
       R_CHAIN, R_COUNT };

static const char *const routine_name[R_COUNT] = {
	"memcpy", "memmove", "memset", "strlen", "strcmp", "syscall", "uidiv",
	"idiv", "uldivmod", "l2d", "no-cfi", "no-cfi-classes", "apcs",
	"ehabi-only", "v8-leaf", "cfi-tail", "plt0", "clone", "chain",
};

static int routine_index(const char *name)
{
	for (int r = 0; r < R_COUNT; r++)
		if (!strcmp(routine_name[r], name))
			return r;
	return -1;
}

/* Written by one thread each; read by the judge after the joins. */
struct sample {
	uint8_t stop, n;
	uint32_t frames[MAX_FRAMES];
};

struct worker {
	pthread_t tid;
	int routine;
	bool main_thread;
	uint32_t stack_lo, stack_hi;
	struct sample *samples;
	uint32_t nsamples, cap;
	struct sample *tsamples;	/* routine clone: its threads' */
	uint32_t ntsamples;
	volatile uint32_t sink;
};

/* volatile: only the signal handler reads it, which the compiler cannot see */
static __thread struct worker *volatile self;
static bool thread_timers;
static bool routine_on[R_COUNT];
static volatile int stop_all;
static struct worker *workers;
static double cpu_deadline;
static time_t wall_deadline;

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Every worker has its samples, or time is up: CPU time, which is what
 * the profiling timer counts, so a loaded host gives the same samples
 * later rather than fewer; wall time only as a guard against a hang.
 */
static bool all_done(void)
{
	for (int r = 0; r < R_COUNT; r++)
		if (workers[r].nsamples < workers[r].cap)
			return cpu_seconds() >= cpu_deadline ||
			       time(NULL) >= wall_deadline;
	return true;
}

static char buf_a[8192] __attribute__((aligned(8)));
static char buf_b[8192] __attribute__((aligned(8)));
/* strcmp's own pair (the other buffers are written meanwhile) */
static char str_a[4096] __attribute__((aligned(8)));
static char str_b[4096] __attribute__((aligned(8)));
static char *volatile str_y = "y";	/* volatile: no folding */
static volatile uint32_t div_num = 0x7fffffff, div_den = 7;
static volatile uint64_t ldiv_num = 0x123456789abcdefull, ldiv_den = 12345;

/*
 * Routine clone: the C library's clone wrapper starts a thread that
 * shares all but its stack, runs clone_child and exits; the caller
 * signals it at once, so that samples of both fall right after the
 * wrapper's system call, where they run the same instructions in
 * different frames (the clone marker's rows), and waits for its exit.
 * The thread shares the caller's TLS (no CLONE_SETTLS), so the handler
 * finds the caller's worker there and tells the thread by its stack.
 */
static char clone_stack[65536] __attribute__((aligned(8)));
static volatile pid_t clone_tid;	/* 0 once the thread has exited */
static volatile uint32_t clone_ret;	/* the system call's return */

/*
 * The return address of the wrapper's system call, "svc 0" the last
 * before its call of the thread's function at @ra (Thumb): 0 if not
 * found.  Only to count the samples that fall there.
 */
static uint32_t svc_return_before(uint32_t ra)
{
	for (uint32_t a = (ra & ~1u) - 2; a + 64 >= (ra & ~1u); a -= 2)
		if (*(const uint16_t *)(uintptr_t)a == 0xdf00)
			return (a + 2) | 1;
	return 0;
}

__attribute__((noinline)) static int clone_child(void *arg)
{
	volatile uint32_t sink = (uint32_t)(uintptr_t)arg;

	if (!clone_ret)
		clone_ret = svc_return_before((uint32_t)(uintptr_t)
					      __builtin_return_address(0));
	for (int k = 0; k < 64; k++)
		sink = sink * 33 + k;
	return 0;
}

__attribute__((noinline)) static void clone_once(struct worker *w)
{
	const int flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
			  CLONE_THREAD | CLONE_SYSVSEM | CLONE_CHILD_CLEARTID;
	pid_t t, v;

	clone_tid = -1;
	t = clone(clone_child, clone_stack + sizeof(clone_stack), flags, w,
		  NULL, NULL, &clone_tid);
	if (t <= 0) {
		clone_tid = 0;
		return;
	}
	syscall(SYS_tgkill, getpid(), t, SIGPROF);
	while ((v = clone_tid) != 0)
		syscall(SYS_futex, &clone_tid, FUTEX_WAIT, v, NULL, NULL, 0);
}

/*
 * glibc's memcpy for cores without NEON, in the static builds (libc.a's
 * memcpy object holds it; libc.so.6 exports none): its long copies keep
 * r8 in a 32-byte frame made by "str r8, [sp, #-32]!".  qemu's cores
 * have NEON, so memcpy alone would never run it.
 */
extern void *__memcpy_vfp(void *dst, const void *src, size_t n)
	__attribute__((weak));

/* One call of the routine: the leaf of the chain. */
__attribute__((noinline)) static void leaf(struct worker *w, int i)
{
	switch (w->routine) {
	case R_MEMCPY:
		/* every other call the VFP variant, where it is linked in */
		if ((i & 1) && __memcpy_vfp)
			__memcpy_vfp(buf_b + (i & 7), buf_a, 64 + (i & 4095));
		else
			memcpy(buf_b + (i & 7), buf_a, 64 + (i & 4095));
		break;
	case R_MEMMOVE:
		memmove(buf_a + 1 + (i & 15), buf_a, 32 + (i & 2047));
		break;
	case R_MEMSET:
		memset(buf_b + (i & 3), i, 16 + (i & 4095));
		break;
	case R_STRLEN:
		buf_a[1000 + (i & 1023)] = 0;
		w->sink += strlen(buf_a);
		buf_a[1000 + (i & 1023)] = 'x';
		break;
	case R_STRCMP:
		/* every relative alignment and end: each of its returns; and
		 * every other call a first byte that differs, whose early
		 * return glibc keeps before the function's symbol */
		if (i & 1) {
			w->sink += strcmp(str_a, str_y);
			break;
		}
		str_b[600 + (i & 1023)] = 'y';
		w->sink += strcmp(str_a + (i & 7), str_b + ((i >> 3) & 7));
		str_b[600 + (i & 1023)] = 'x';
		break;
	case R_SYSCALL:
		w->sink += getppid();
		break;
	case R_UIDIV:
		w->sink += div_num / (div_den + (i & 15));
		break;
	case R_IDIV:
		w->sink += (int32_t)div_num / -(int32_t)(div_den + (i & 15));
		break;
	case R_ULDIVMOD:
		w->sink += ldiv_num / (ldiv_den + (i & 255));
		break;
	case R_L2D:
		/* libgcc's __aeabi_l2d: its frame up, it branches into
		 * __adddf3 */
		w->sink += (uint32_t)((double)(int64_t)(ldiv_num * (i + 1)) /
				      1e9);
		break;
	case R_NOCFI:
		w->sink += nocfi_work(i & 4095);
		break;
	case R_CLASSES:
		w->sink += nocfi_classes(i & 4095);
		break;
	case R_APCS:
		w->sink += apcs_work(i & 4095);
		break;
	case R_V8LEAF:
		/* through a pointer, as C++ calls V8's MemCopy */
		v8_copy(buf_b + (i & 7), buf_a, 64 + (i & 2047));
		break;
	case R_CFITAIL:
		for (int k = 0; k < 16; k++)
			w->sink += gt_cfi_tail(i + k);
		break;
	case R_PLT0:
		for (int k = 0; k < 16; k++)
			w->sink += gt_plt0_call(i + k);
		break;
	case R_CLONE:
		/*
		 * one call in 8 starts a thread; the others keep the caller
		 * busy in its own code, where its timer's samples are taken
		 */
		if (i & 7) {
			for (int k = 0; k < 2048; k++)
				w->sink = w->sink * 33 + k;
		} else {
			clone_once(w);
		}
		break;
	case R_EHABI:
		/* many calls: samples at its first instruction */
		for (int k = 0; k < 16; k++)
			w->sink += ehabi_work(i + k) + ehabi_shrink(i + k);
		break;
	default:
		for (int k = 0; k < 64; k++)
			w->sink = w->sink * 33 + k;
		break;
	}
}

/* Three frames of different shapes above the leaf. */
__attribute__((noinline)) static void chain_c(struct worker *w, int i)
{
	volatile uint32_t big[300];	/* a large frame: sub sp */

	big[i % 300] = i;
	leaf(w, i + big[(i + 1) % 300]);
	w->sink += big[i % 300];
}

__attribute__((noinline)) static void chain_b(struct worker *w, int i)
{
	double d = w->sink * 0.5;	/* VFP registers kept across calls */

	for (int k = 0; k < 4; k++) {
		chain_c(w, i + k);
		d = d * 1.000001 + k;
	}
	w->sink += (uint32_t)d;
}

__attribute__((noinline)) static void chain_a(struct worker *w)
{
	for (int i = 0; !stop_all; i++) {
		chain_b(w, i);
		if (w->main_thread && !(i & 15) && all_done())
			stop_all = 1;
	}
}

static const char *const chain_names[] = { "leaf", "chain_c", "chain_b", "chain_a" };
#define NCHAIN (int)(sizeof(chain_names) / sizeof(chain_names[0]))

/* ---- sampling ---- */

static struct uw2_module mods[MAX_MODS];
static struct uw2_table tables[MAX_MODS];
static uint32_t nmods;

static int read_word(void *ctx, uint32_t addr, uint32_t *val)
{
	(void)ctx;
	*val = *(const uint32_t *)(uintptr_t)addr;
	return 0;
}

static void on_prof(int sig, siginfo_t *si, void *ucv)
{
	const mcontext_t *mc = &((ucontext_t *)ucv)->uc_mcontext;
	struct worker *w = self;
	struct uw2_stack st;
	struct uw2_regs r;
	struct sample *s;
	uint32_t n;

	(void)sig;
	(void)si;
	if (!w)
		return;
	memcpy(r.r, &mc->arm_r0, sizeof(r.r));	/* r0-r10, fp, ip, sp, lr, pc */
	if (mc->arm_cpsr & 0x20)
		r.r[UW2_PC] |= 1;
	if (w->tsamples && r.r[UW2_SP] >= (uint32_t)(uintptr_t)clone_stack &&
	    r.r[UW2_SP] <= (uint32_t)(uintptr_t)clone_stack + sizeof(clone_stack)) {
		/* the clone routine's thread, in the caller's TLS */
		if (w->ntsamples == w->cap)
			return;
		s = &w->tsamples[w->ntsamples];
		st = (struct uw2_stack){
			.lo = r.r[UW2_SP],
			.hi = (uint32_t)(uintptr_t)clone_stack +
			      sizeof(clone_stack),
			.read = read_word,
		};
		s->stop = uw2_unwind(mods, nmods, &r, &st, s->frames,
				     MAX_FRAMES, &n, 0);
		s->n = n;
		w->ntsamples++;
		return;
	}
	if (w->nsamples == w->cap)
		return;
	s = &w->samples[w->nsamples];
	st = (struct uw2_stack){ .lo = r.r[UW2_SP], .hi = w->stack_hi,
				 .read = read_word };
	if (r.r[UW2_SP] < w->stack_lo || r.r[UW2_SP] > w->stack_hi)
		return;		/* on a signal stack or another: not ours */
	s->stop = uw2_unwind(mods, nmods, &r, &st, s->frames, MAX_FRAMES, &n, 0);
	s->n = n;
	w->nsamples++;
}

static void stack_bounds(struct worker *w)
{
	pthread_attr_t a;
	void *addr;
	size_t size;

	pthread_getattr_np(pthread_self(), &a);
	pthread_attr_getstack(&a, &addr, &size);
	pthread_attr_destroy(&a);
	w->stack_lo = (uint32_t)(uintptr_t)addr;
	w->stack_hi = (uint32_t)(uintptr_t)addr + size;
}

/* --timer thread: this thread's own 10 kHz SIGPROF, until it is done. */
static int thread_timer(timer_t *t)
{
	struct sigevent ev = { 0 };
	struct itimerspec its = { { 0, 100000 }, { 0, 100000 } };

	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = SIGPROF;
	ev._sigev_un._tid = syscall(SYS_gettid);
	if (timer_create(CLOCK_MONOTONIC, &ev, t) ||
	    timer_settime(*t, 0, &its, NULL)) {
		perror("gt: timer_create");
		return -1;
	}
	return 0;
}

/* The thread's chain, sampled while it runs. */
__attribute__((noinline)) static void run_sampled(struct worker *w)
{
	timer_t t;

	stack_bounds(w);
	if (thread_timers && thread_timer(&t))
		exit(2);
	self = w;
	chain_a(w);
	self = NULL;
	if (thread_timers)
		timer_delete(t);
}

__attribute__((noinline)) static void *worker_main(void *arg)
{
	run_sampled(arg);
	__asm__ volatile("");	/* a call, not a tail call */
	return NULL;
}

/* ---- modules and symbols ---- */

struct named { const char *name, *file; };
static struct named tabs[MAX_MODS], syms_files[MAX_MODS];
static uint32_t ntabs, nsymfiles;

struct sym { uint32_t addr; char name[64]; };
static struct sym *syms;
static uint32_t nsyms, capsyms;

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

static const char *lookup(const struct named *v, uint32_t n, const char *name)
{
	for (uint32_t i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return v[i].file;
	return NULL;
}

static int load_syms(const char *file, uint32_t bias)
{
	FILE *f = fopen(file, "r");
	char line[512], type, name[64];
	unsigned long a;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx %c %63s", &a, &type, name) != 3 ||
		    (type != 'T' && type != 't' && type != 'W' && type != 'w'))
			continue;
		if (nsyms == capsyms) {
			capsyms = capsyms ? 2 * capsyms : 4096;
			syms = realloc(syms, capsyms * sizeof(*syms));
			if (!syms)
				exit(2);
		}
		syms[nsyms].addr = ((uint32_t)a & ~1u) + bias;
		snprintf(syms[nsyms].name, sizeof(syms[nsyms].name), "%s", name);
		nsyms++;
	}
	fclose(f);
	return 0;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The nearest function symbol at or before @addr. */
static const char *sym_name(uint32_t addr)
{
	uint32_t lo = 0, hi = nsyms;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* past the last function of a module: no function at all */
	return lo && addr - syms[lo - 1].addr < 0x10000 ? syms[lo - 1].name : "?";
}

/*
 * V8's builtins in the module just added (gt_v8.S in the dynamic builds,
 * where its accessors are exported), marked as JIT code of the V8 kind
 * as uwprof record --jit v8-arm marks them, the table cut around them as
 * the kernel module cuts it (registry.c, uwprof_mods_cut()): the
 * builtins' part keeps the table's rows if they were made for them
 * (@jit_rows).
 */
static void mark_v8(const char *path, uint32_t bias, bool jit_rows)
{
	struct uw2_module *t = &mods[nmods - 1], j, after;
	struct uw_v8_blob b;

	if (uw_v8_blob(path, &b) || nmods + 2 > MAX_MODS)
		return;
	j = (struct uw2_module){ .text_start = bias + b.code,
				 .text_end = bias + b.code + b.code_size,
				 .frames = UW2_FRAMES_V8_ARM };
	if (j.text_start <= t->text_start || j.text_end >= t->text_end)
		return;
	if (jit_rows) {
		j.table = t->table;
		j.skip = t->skip + j.text_start - t->text_start;
	}
	after = *t;
	after.skip += j.text_end - t->text_start;
	after.text_start = j.text_end;
	t->text_end = j.text_start;
	mods[nmods++] = j;
	mods[nmods++] = after;
}

static int add_module(struct dl_phdr_info *info, size_t size, void *data)
{
	const char *name = info->dlpi_name[0] ? base_name(info->dlpi_name) : "main";
	const char *tf = lookup(tabs, ntabs, name), *sf;
	struct uwt_file u;
	char err[256];
	uint32_t bias = info->dlpi_addr;

	(void)size;
	(void)data;
	sf = lookup(syms_files, nsymfiles, name);
	if (sf && load_syms(sf, bias))
		fprintf(stderr, "gt: cannot read %s\n", sf);
	if (!tf || nmods == MAX_MODS)
		return 0;
	if (uwt_load_file(tf, &u, err, sizeof(err)) ||
	    uw2_table_init(&tables[nmods], u.blob, u.blob_size, NULL) != UW2_OK) {
		fprintf(stderr, "gt: bad table %s: %s\n", tf, err);
		exit(2);
	}
	mods[nmods].text_start = bias + u.meta.text_addr;
	mods[nmods].text_end = mods[nmods].text_start +
			       uw2_table_text_span(&tables[nmods]);
	mods[nmods].table = &tables[nmods];
	nmods++;
	mark_v8(info->dlpi_name[0] ? info->dlpi_name : "/proc/self/exe", bias,
		u.meta.flags & UWT_F_JIT_ROWS);
	return 0;
}

static int mod_cmp(const void *a, const void *b)
{
	const struct uw2_module *x = a, *y = b;

	return x->text_start < y->text_start ? -1 : 1;
}

/* ---- judging ---- */

static int chain_index(const char *name)
{
	for (int k = 0; k < NCHAIN; k++)
		if (!strcmp(name, chain_names[k]))
			return k;
	return -1;
}

/* The names a frame may have above chain_a: the thread's own start. */
static bool outer_ok(const struct worker *w, const struct sample *s, uint32_t k)
{
	static const char *const main_chain[] = {
		"run_sampled", "main", "__libc_start_call_main",
		"__libc_start_main", "_start",
	};
	static const char *const thread_chain[] = {
		"run_sampled", "worker_main", "start_thread", "__clone",
	};
	const char *const *want = w->main_thread ? main_chain : thread_chain;
	uint32_t nwant = w->main_thread ? 5 : 4, j;

	for (j = 0; j < nwant && k + j < s->n; j++) {
		const char *got = sym_name((s->frames[k + j] & ~1u) - (k + j ? 1 : 0));

		/* aliases: __libc_start_main_impl, clone */
		if (strncmp(got, want[j], strlen(want[j])) &&
		    !(!strcmp(want[j], "__clone") && !strcmp(got, "clone")))
			return false;
	}
	return j == nwant && k + j == s->n;
}

static uint32_t half(uint32_t a)
{
	return *(const uint16_t *)(uintptr_t)a;
}

/*
 * Is the instruction before return address @ra a call?  Thumb (bit 0
 * set): BL or BLX (immediate), or BLX (register); ARM: BL, BLX.
 */
static bool after_call(uint32_t ra)
{
	uint32_t a = ra & ~1u, w;

	if (ra & 1)
		return (half(a - 2) & 0xff87) == 0x4780 ||
		       ((half(a - 4) & 0xf800) == 0xf000 &&
			(half(a - 2) & 0xc000) == 0xc000);
	w = *(const uint32_t *)(uintptr_t)(a - 4);
	return (w & 0x0f000000) == 0x0b000000 ||
	       (w & 0xfe000000) == 0xfa000000 ||
	       (w & 0x0ffffff0) == 0x012fff30;
}

/*
 * Is Thumb @pc one of the instructions an IT block holds?  An IT is
 * looked for up to 16 bytes back and its block walked forward; a 0xbfXY
 * halfword that is the second half of a 32-bit instruction could pass
 * for one, which at worst counts a refusal as by design.
 */
static bool in_it_block(uint32_t pc)
{
	if (!(pc & 1))
		return false;
	pc &= ~1u;
	for (uint32_t it = pc - 2; it >= pc - 16; it -= 2) {
		uint32_t hw = half(it), a = it + 2, mask = hw & 0xf;
		int n;

		if ((hw & 0xff00) != 0xbf00 || !mask)
			continue;
		n = 4 - __builtin_ctz(mask);
		for (int i = 0; i < n && a <= pc; i++) {
			if (a == pc)
				return true;
			a += (half(a) >> 11) >= 0x1d ? 4 : 2;
		}
	}
	return false;
}

/*
 * Is ARM @pc just after a conditional pop ("popcc {r8}" before "bcc" in
 * glibc's __memcpy_neon, "ldrcc r8, [sp], #32" in its __memcpy_vfp)?
 * Until the condition is tested again one path has taken the register
 * back, the other not: no row is true on both.
 */
static bool after_cond_pop(uint32_t pc)
{
	uint32_t w;

	if (pc & 1)
		return false;
	w = *(const uint32_t *)(uintptr_t)(pc - 4);
	/* ldr<c> rN, [sp], #imm (post-indexed, up); ldm<c> sp!, {...} */
	return (w >> 28) < 0xe && ((w & 0x0fff0000) == 0x049d0000 ||
				   (w & 0x0fff0000) == 0x08bd0000);
}

/*
 * 0: exact; 1: stopped early; 2: a wrong frame; 3: every frame right out
 * to the thread's start, which is not marked root; 4: a stop the tables
 * make by design (see below); 5: not in the routine but in run_sampled,
 * between setting the thread's worker and calling the chain or after it
 * returned (-singlestep samples there), every frame a return address.
 */
static int judge(const struct worker *w, const struct sample *s,
		 char *why, size_t wlen)
{
	uint32_t k;
	int c = -1;

	for (k = 0; k < s->n; k++) {
		c = chain_index(sym_name((s->frames[k] & ~1u) - (k ? 1 : 0)));
		if (c >= 0)
			break;
	}
	if (k == s->n || c < 0) {
		/*
		 * glibc's __longjmp moves sp to the saved context's: no rule
		 * holds across that, so the generator refuses the function
		 * by design (gt_leave() longjmps out of the no-CFI routine).
		 */
		if (s->n == 1 && s->stop == UW2_STOP_REFUSED &&
		    !strcmp(sym_name(s->frames[0] & ~1u), "__longjmp"))
			return 4;
		/*
		 * Inside the IT block of a conditional return (clang's stack
		 * protector epilogue) one path has taken registers back that
		 * the other still keeps in the frame: no row is true on both,
		 * so the generator refuses the block's instructions by design
		 * (docs/TABLES.md); so after a conditional pop in ARM code.
		 */
		if (s->n == 1 && s->stop == UW2_STOP_REFUSED &&
		    (in_it_block(s->frames[0]) || after_cond_pop(s->frames[0])))
			return 4;
		/*
		 * A stop is no excuse for a frame that is none: each given
		 * must be a return address just after a call, in a known
		 * function (a body's frame applied at a function's entry
		 * gives a stack word, then stops).
		 */
		for (uint32_t j = 1; j < s->n; j++)
			if (!strcmp(sym_name((s->frames[j] & ~1u) - 1), "?") ||
			    !after_call(s->frames[j])) {
				snprintf(why, wlen, "no chain frame, frame %u (%s) is no return address (stop %s)",
					 j, sym_name((s->frames[j] & ~1u) - 1),
					 uw2_stop_name(s->stop));
				return 2;
			}
		if (s->n && !strcmp(sym_name(s->frames[0] & ~1u), "run_sampled"))
			return 5;
		snprintf(why, wlen, "no chain frame (stop %s at %s)",
			 uw2_stop_name(s->stop),
			 s->n ? sym_name((s->frames[s->n - 1] & ~1u) -
					 (s->n > 1)) : "-");
		return s->stop == UW2_STOP_ROOT || s->stop == UW2_STOP_NORETURN ? 2 : 1;
	}
	/*
	 * Before it, the routine's own frames (the loader's lazy binding
	 * adds six): each a return address just after a call, in a known
	 * function.
	 */
	for (uint32_t j = 1; j < k; j++)
		if (!strcmp(sym_name((s->frames[j] & ~1u) - 1), "?") ||
		    !after_call(s->frames[j])) {
			snprintf(why, wlen, "frame %u (%s) is no return address",
				 j, sym_name((s->frames[j] & ~1u) - 1));
			return 2;
		}
	/* from chain_X on: exactly the rest of the chain */
	for (int want = c; want < NCHAIN; want++, k++) {
		const char *got = k < s->n ?
			sym_name((s->frames[k] & ~1u) - (k ? 1 : 0)) : "(end)";

		if (k >= s->n) {
			snprintf(why, wlen, "stopped %s in %s", uw2_stop_name(s->stop),
				 chain_names[want - 1]);
			return 1;
		}
		if (strcmp(got, chain_names[want])) {
			snprintf(why, wlen, "frame %u is %s, not %s", k, got,
				 chain_names[want]);
			return 2;
		}
	}
	if (s->stop != UW2_STOP_ROOT && s->stop != UW2_STOP_NORETURN) {
		snprintf(why, wlen, "stopped %s at %s", uw2_stop_name(s->stop),
			 sym_name((s->frames[s->n - 1] & ~1u) - 1));
		/*
		 * Every frame out to the thread's start, and that start not
		 * marked root: a failure in a stripped build too, where the
		 * entry point is found and marked without a symbol.
		 */
		return outer_ok(w, s, k) ? 3 : 1;
	}
	if (!outer_ok(w, s, k)) {
		snprintf(why, wlen, "outer frames wrong from frame %u (%s)", k,
			 k < s->n ? sym_name((s->frames[k] & ~1u) - 1) : "(none)");
		return 2;
	}
	return 0;
}

static bool is_clone(const char *name)
{
	return !strcmp(name, "__clone") || !strcmp(name, "clone");
}

/*
 * A sample of the clone routine's thread, judged as judge() does: the
 * wrapper's frame alone (from its system call's return to its call of
 * the thread's function), or clone_child's and then the wrapper's, whose
 * return address follows that call, ending root.
 */
static int judge_thread(const struct sample *s, char *why, size_t wlen)
{
	const char *f0 = s->n ? sym_name(s->frames[0] & ~1u) : "-";
	bool child = !strcmp(f0, "clone_child");

	if (s->n == 2 && child &&
	    is_clone(sym_name((s->frames[1] & ~1u) - 1)) &&
	    after_call(s->frames[1])) {
		snprintf(why, wlen, "thread: stopped %s after clone_child",
			 uw2_stop_name(s->stop));
		return s->stop == UW2_STOP_ROOT ? 0 : 1;
	}
	if (s->n == 1 && (child || is_clone(f0))) {
		snprintf(why, wlen, "thread: stopped %s in %s",
			 uw2_stop_name(s->stop), f0);
		if (s->stop == UW2_STOP_ROOT)
			return child ? 2 : 0;
		return 1;
	}
	snprintf(why, wlen, "thread: %u frames from %s, stop %s", s->n, f0,
		 uw2_stop_name(s->stop));
	return 2;
}

/* Samples of @w (@tsamples: its threads') right after the clone call. */
static uint32_t at_clone_return(const struct worker *w, bool tsamples)
{
	const struct sample *v = tsamples ? w->tsamples : w->samples;
	uint32_t n = tsamples ? w->ntsamples : w->nsamples, k, c = 0;

	for (k = 0; clone_ret && k < n; k++)
		c += v[k].n && v[k].frames[0] == clone_ret;
	return c;
}

/* The distinct reasons of one routine's failed samples, with counts. */
static struct { char text[208]; uint32_t n; } reasons[16];
static uint32_t nreasons;

static void reasons_reset(void)
{
	nreasons = 0;
}

static void reason_add(const char *kind, const char *why)
{
	char text[208];
	uint32_t k;

	snprintf(text, sizeof(text), "%s: %s", kind, why);
	for (k = 0; k < nreasons; k++)
		if (!strcmp(reasons[k].text, text))
			break;
	if (k == nreasons) {
		if (nreasons == 16)
			return;
		snprintf(reasons[nreasons].text, sizeof(reasons[0].text), "%s", text);
		reasons[nreasons++].n = 0;
	}
	reasons[k].n++;
}

static void reasons_print(const char *routine)
{
	for (uint32_t k = 0; k < nreasons; k++)
		printf("# %s: %u x %s\n", routine, reasons[k].n, reasons[k].text);
}

static void dump_sample(const struct sample *s, const char *why)
{
	fprintf(stderr, "sample (%s), stop %s:\n", why, uw2_stop_name(s->stop));
	for (uint32_t k = 0; k < s->n; k++)
		fprintf(stderr, "  #%u 0x%08x %s\n", k, s->frames[k],
			sym_name((s->frames[k] & ~1u) - (k ? 1 : 0)));
}

int main(int argc, char **argv)
{
	struct worker w[R_COUNT];
	uint32_t want = 2000, seconds = 60;
	struct sigaction sa = { 0 };
	struct itimerval it = { { 0, 200 }, { 0, 200 } };
	int passed = 0, failed = 0, only = -1;
	bool early_ok = false;

	for (int i = 1; i < argc; i++) {
		char *eq = i + 1 < argc ? strchr(argv[i + 1], '=') : NULL;

		if (!strcmp(argv[i], "--samples") && i + 1 < argc) {
			want = strtoul(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--seconds") && i + 1 < argc) {
			seconds = strtoul(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--early-ok")) {
			early_ok = true;
		} else if (!strcmp(argv[i], "--timer") && i + 1 < argc) {
			thread_timers = !strcmp(argv[++i], "thread");
		} else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
			only = routine_index(argv[++i]);
			if (only < 0) {
				fprintf(stderr, "gt: no routine %s\n", argv[i]);
				return 2;
			}
		} else if ((!strcmp(argv[i], "--table") || !strcmp(argv[i], "--syms")) &&
			   eq && ntabs < MAX_MODS && nsymfiles < MAX_MODS) {
			struct named *v = argv[i][2] == 't' ? &tabs[ntabs++] :
				&syms_files[nsymfiles++];

			*eq = 0;
			v->name = argv[++i];
			v->file = eq + 1;
		} else {
			fprintf(stderr, "usage: gt [--samples N] [--seconds S] [--timer prof|thread] [--only ROUTINE] [--early-ok] --table NAME=FILE... --syms NAME=FILE...\n");
			return 2;
		}
	}
	dl_iterate_phdr(add_module, NULL);
	qsort(mods, nmods, sizeof(mods[0]), mod_cmp);
	qsort(syms, nsyms, sizeof(syms[0]), sym_cmp);
	memset(buf_a, 'x', sizeof(buf_a) - 1);
	memset(str_a, 'x', sizeof(str_a) - 1);
	memset(str_b, 'x', sizeof(str_b) - 1);

	for (int r = 0; r < R_COUNT; r++)
		routine_on[r] = only < 0 ? !thread_timers || r != R_CLONE :
			r == only || r == R_CHAIN;
	if (thread_timers && only == R_CLONE) {
		fprintf(stderr, "gt: routine clone runs on --timer prof only\n");
		return 2;
	}
	memset(w, 0, sizeof(w));
	workers = w;
	cpu_deadline = cpu_seconds() + seconds;
	wall_deadline = time(NULL) + 4 * (time_t)seconds;
	for (int r = 0; r < R_COUNT; r++) {
		w[r].routine = r;
		w[r].cap = routine_on[r] ? want : 0;
		w[r].samples = calloc(want, sizeof(struct sample));
		if (r == R_CLONE)
			w[r].tsamples = calloc(want, sizeof(struct sample));
		if (!w[r].samples || (r == R_CLONE && !w[r].tsamples))
			return 2;
	}
	sa.sa_sigaction = on_prof;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGPROF, &sa, NULL);
	if (!thread_timers)
		setitimer(ITIMER_PROF, &it, NULL);
	/* the last routine runs on the main thread */
	for (int r = 0; r < R_COUNT - 1; r++)
		if (routine_on[r])
			pthread_create(&w[r].tid, NULL, worker_main, &w[r]);
	w[R_COUNT - 1].main_thread = true;
	/* main's own chain runs until every thread has its samples */
	run_sampled(&w[R_COUNT - 1]);
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_PROF, &it, NULL);
	for (int r = 0; r < R_COUNT - 1; r++)
		if (routine_on[r])
			pthread_join(w[r].tid, NULL);

	for (int r = 0; r < R_COUNT; r++) {
		uint32_t exact = 0, early = 0, wrong = 0, by_design = 0;
		char why[200], first_wrong[200] = "", first_early[200] = "";

		if (!routine_on[r]) {
			if (only < 0)
				printf("#   %s: not run on --timer thread (--timer prof --only %s runs it)\n",
				       routine_name[r], routine_name[r]);
			continue;
		}
		reasons_reset();
		for (uint32_t i = 0; i < w[r].nsamples; i++) {
			int v = judge(&w[r], &w[r].samples[i], why, sizeof(why));

			if (!v) {
				exact++;
				continue;
			}
			if (v >= 4) {
				by_design += v == 4;
				continue;
			}
			reason_add(v == 1 ? "early" : v == 3 ? "NOT ROOT" : "WRONG",
				   why);
			/* the first wrong ones always: the log says where */
			if (getenv("GT_DUMP") || (v == 2 && wrong < 5))
				dump_sample(&w[r].samples[i], why);
			if (v == 1 && !early++)
				snprintf(first_early, sizeof(first_early), "%s", why);
			else if (v >= 2 && !wrong++)	/* wrong, or not root */
				snprintf(first_wrong, sizeof(first_wrong), "%s", why);
		}
		/* the clone routine's threads: judged alike, counted apart */
		for (uint32_t i = 0; i < w[r].ntsamples; i++) {
			int v = judge_thread(&w[r].tsamples[i], why, sizeof(why));

			if (!v)
				continue;
			reason_add(v == 1 ? "early" : "WRONG", why);
			if (getenv("GT_DUMP") || (v == 2 && wrong < 5))
				dump_sample(&w[r].tsamples[i], why);
			if (v == 1 && !early++)
				snprintf(first_early, sizeof(first_early), "%s", why);
			else if (v == 2 && !wrong++)
				snprintf(first_wrong, sizeof(first_wrong), "%s", why);
		}
		if (r == R_CLONE)
			printf("#   clone: %u samples of its threads (judged with the caller's); right after the system call (0x%08x): %u of the caller's, %u of its threads'\n",
			       w[r].ntsamples, clone_ret, at_clone_return(&w[r], false),
			       at_clone_return(&w[r], true));
		reasons_print(routine_name[r]);
		if (by_design)
			printf("#   %s: %u samples refused by design in __longjmp, an IT block's conditional return or after a conditional pop (not counted)\n",
			       routine_name[r], by_design);
		/* a stripped build's stops are refusals: only wrong frames fail */
		if (early_ok && w[r].nsamples >= w[r].cap && !wrong) {
			passed++;
			printf("ok %d - %s (%s thread): %u samples, %u exact, %u stopped early, none wrong\n",
			       r + 1, routine_name[r],
			       w[r].main_thread ? "main" : "other", w[r].nsamples,
			       exact, early);
		} else if (w[r].nsamples >= w[r].cap && !early && !wrong) {
			/* every sample exact: no wrong frame, no unexplained stop */
			passed++;
			printf("ok %d - %s (%s thread): %u samples, all exact\n",
			       r + 1, routine_name[r],
			       w[r].main_thread ? "main" : "other", w[r].nsamples);
		} else {
			failed++;
			printf("not ok %d - %s (%s thread): %u of %u samples, %u exact, %u stopped early%s%s, %u wrong%s%s\n",
			       r + 1, routine_name[r],
			       w[r].main_thread ? "main" : "other", w[r].nsamples,
			       w[r].cap, exact, early, early ? ": " : "",
			       first_early, wrong, wrong ? ": " : "", first_wrong);
		}
	}
	printf("gt: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
