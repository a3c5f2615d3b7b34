// SPDX-License-Identifier: GPL-2.0
/*
 * A program with a known call chain, sampled with real tables.
 *
 * The build compiles this file with gcc and clang, for Thumb and ARM,
 * linked statically and dynamically (against the C library the VM runs),
 * and makes a table for each binary and for libc.so.6 with
 * "uwprof table".  A child runs
 *	run_chain -> level1 -> level2 -> level3 -> leaf (spinning)
 * and every sample whose pc is in one of those functions must show
 * exactly that chain from there, then main and the C library's start
 * code, and end at the outermost frame.  At least 99% of those samples
 * must do so.  Samples with the pc elsewhere (the child's read of the
 * pipe that starts it, the clock, the PLT) are counted apart and may be
 * at most 5% of all: the kernel charges its work for the child's first
 * samples (following the process, in the child's own context, at the
 * return from that read) to the child, and on a loaded host that work
 * alone has taken 1% of a run.  The child is this program re-executed with
 * --run-chain, so its stack is that of a plain program rather than of the
 * test harness (whose main never returns and so, under clang, never saves
 * its return address: nothing can unwind past it).
 *
 * Tables and the symbols of the chain functions: tables_util.h.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "kselftest_harness.h"
#include "record/attach.h"
#include "tables_util.h"
#include "uwprof_util.h"
#include "unwind_v2.h"

#define RUN_SECONDS	5
#define SAMPLE_HZ	1000
#define MIN_MATCH_PERMILLE 990
#define MAX_OUTSIDE_PERMILLE 50

#define NOINLINE __attribute__((noinline))

static volatile unsigned long sink;

NOINLINE unsigned long leaf(unsigned long n)
{
	unsigned long x = n;
	int i;

	for (i = 0; i < 2000000; i++)
		x = x * 1103515245u + 12345u;
	sink = x;
	return x;
}

/* Work after each call keeps the compilers from turning it into a jump. */
#define CHAIN_LEVEL(name, next)				\
NOINLINE unsigned long name(unsigned long n)		\
{							\
	unsigned long r = next(n + 1);			\
							\
	__asm__ volatile("" : "+r"(r));			\
	return r ^ n;					\
}

CHAIN_LEVEL(level3, leaf)
CHAIN_LEVEL(level2, level3)
CHAIN_LEVEL(level1, level2)

/*
 * time() runs in the vdso, which has no table; look at the clock rarely
 * so that its samples stay far below the 1% the test allows.
 */
NOINLINE unsigned long run_chain(int seconds)
{
	unsigned long r = 0;
	time_t end = time(NULL) + seconds;
	int i;

	do {
		for (i = 0; i < 16; i++)
			r += level1(r);
	} while (time(NULL) < end);
	return r;
}

enum { F_LEAF, F_LEVEL3, F_LEVEL2, F_LEVEL1, F_RUN_CHAIN, F_NR };
static const char *const chain_names[F_NR] = {
	"leaf", "level3", "level2", "level1", "run_chain",
};

struct chain_syms {
	uint32_t start[F_NR], end[F_NR];
};

/* Link-time addresses of the chain functions, from <exe>.syms. */
static int read_syms(struct chain_syms *s)
{
	return read_syms_named(chain_names, F_NR, s->start, s->end);
}

struct verdict {
	unsigned int samples, outside, match, wrong_chain, not_root;
	unsigned int bad_record;
	unsigned int stops[UWPROF_STOP_NR];
};

static bool in_func(const struct chain_syms *s, uint32_t bias, int f,
		    uint32_t pc, bool return_address)
{
	return pc_in_func(s->start[f], s->end[f], bias, pc, return_address);
}

/* The first few samples that miss, in full, to show where they went. */
static void show_miss(const struct uwprof_record *r, struct verdict *v)
{
	if (v->wrong_chain + v->not_root <= 3)
		print_miss(r);
}

/*
 * A sample with its pc in one of the chain's functions matches when the
 * frames from there are exactly that function's callers in the chain (a
 * pc in level2 must show level2 <- level1 <- run_chain), then main and
 * the start code, ending at root; otherwise it is a miss.  A sample with
 * its pc anywhere else is outside the chain and not judged.
 */
static void judge(const struct uwprof_record *r, const struct chain_syms *s,
		  uint32_t bias, struct verdict *v)
{
	int f, k = F_NR;

	v->samples++;
	if (r->stop < UWPROF_STOP_NR)
		v->stops[r->stop]++;
	for (f = 0; f < F_NR && r->nframes; f++)
		if (in_func(s, bias, f, r->frames[0], false)) {
			k = f;
			break;
		}
	for (f = k; f < F_NR; f++)
		if ((uint32_t)(f - k) >= r->nframes ||
		    !in_func(s, bias, f, r->frames[f - k], f > k))
			break;
	if (k == F_NR) {
		v->outside++;
		return;
	}
	if (f < F_NR) {
		v->wrong_chain++;
		show_miss(r, v);
		return;
	}
	if (r->stop != UWPROF_STOP_ROOT) {
		v->not_root++;
		show_miss(r, v);
		return;
	}
	v->match++;
}

struct judging {
	const struct chain_syms *s;
	uint32_t bias;
	struct verdict *v;
};

static void judge_one(const struct uwprof_record *r, void *ctx)
{
	struct judging *j = ctx;

	judge(r, j->s, j->bias, j->v);
}

static void drain(int fd, const struct chain_syms *s, uint32_t bias,
		  struct verdict *v)
{
	struct judging j = { s, bias, v };

	v->bad_record += drain_records(fd, judge_one, &j);
}

/* This program again as "--run-chain READY GO" (spawn_self()). */
static pid_t spawn_chain(int *go_fd)
{
	char c;

	return spawn_self("chain", "--run-chain", NULL, go_fd, &c, 1);
}

static int chain_main(int ready, int go)
{
	char c;

	if (write(ready, "r", 1) != 1 || read(go, &c, 1) != 1)
		return 1;
	return run_chain(RUN_SECONDS) == 42;
}

TEST(known_chain_unwinds_to_root)
{
	struct chain_syms syms;
	struct verdict v = { 0 };
	unsigned int inside;
	uint32_t bias = 0;
	pid_t child;
	int fd, i, go;

	ASSERT_EQ(0, read_syms(&syms));
	ASSERT_EQ(0, uwprof_load());
	child = spawn_chain(&go);
	ASSERT_LT(0, child);
	fd = uwprof_open_dev();
	ASSERT_LE(0, fd);
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	ASSERT_LT(0, attach_all(fd, child, &bias));
	ASSERT_EQ(0, uwprof_start(fd, SAMPLE_HZ));
	ASSERT_EQ(1, write(go, "g", 1));
	close(go);
	while (waitpid(child, NULL, WNOHANG) == 0) {
		drain(fd, &syms, bias, &v);
		usleep(100000);
	}
	ASSERT_EQ(0, ioctl(fd, UWPROF_IOC_STOP));
	drain(fd, &syms, bias, &v);
	close(fd);

	inside = v.samples - v.outside;
	printf("# %s: %u of %u samples in the chain match it down to root"
	       " (%.2f%%); wrong chain %u, not root %u; %u of %u samples"
	       " outside the chain\n", program_invocation_short_name,
	       v.match, inside, inside ? 100.0 * v.match / inside : 0,
	       v.wrong_chain, v.not_root, v.outside, v.samples);
	for (i = 0; i < UWPROF_STOP_NR; i++)
		if (v.stops[i])
			printf("#   stop %s: %u\n", uw2_stop_name(i), v.stops[i]);
	EXPECT_EQ(0, v.bad_record);
	/* enough samples for the share to mean something, even on a busy host */
	EXPECT_LT(RUN_SECONDS * SAMPLE_HZ / 5, inside);
	EXPECT_LE(MIN_MATCH_PERMILLE * inside, 1000 * v.match);
	EXPECT_LE(1000 * v.outside, MAX_OUTSIDE_PERMILLE * v.samples);
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "--run-chain"))
		return chain_main(atoi(argv[2]), atoi(argv[3]));
	return test_harness_run(argc, argv);
}
