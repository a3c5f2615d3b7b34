// SPDX-License-Identifier: GPL-2.0
/*
 * Frames of JIT code, walked by the V8 frame kind (UWPROF_FRAMES_V8_ARM).
 *
 * A child copies the ARM code of jit_code.S into anonymous memory it maps
 * executable, as a JIT writes its code, and runs
 *	main -> chain_main -> run_jit -> [jit_entry -> jit_outer ->
 *	jit_inner] -> native_leaf
 * where the bracketed frames are JIT code that no table covers: jit_inner
 * spins a while itself, then calls back into native code.  The test
 * attaches the tables of the program's files (tables_util.h) and the
 * JIT range with the V8 frame kind, samples at 1 kHz, and judges each
 * sample's frames exactly: a pc in native_leaf must show jit_inner's,
 * jit_outer's and jit_entry's return addresses at their known offsets in
 * the copy, then run_jit, and end at the outermost frame; a pc in
 * jit_inner's spin loop the same from jit_outer's.  Every sample of the
 * two must be exact, both must be seen, and they must be at least 95% of
 * all samples; the rest (run_jit's loop and clock, and the few JIT
 * instructions where a frame is not set up yet, counted apart) are not
 * judged.
 *
 * Three times: with the JIT range attached (ATTACH's frames; an unknown
 * kind and a table id beside a kind must be EINVAL, the same range twice
 * EEXIST); with the module finding the anonymous mapping itself (START's
 * anon_frames; an unknown kind EINVAL); and with the same code run from
 * .text, attached as JIT code inside the range the program's table
 * covers, as V8's builtins are embedded in libnode (the table's range is
 * cut around it, and the frames above resume in the table's second part).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>

#include "kselftest_harness.h"
#include "record/attach.h"
#include "tables_util.h"
#include "uwprof_util.h"
#include "unwind_v2.h"

#define RUN_SECONDS	5
#define SAMPLE_HZ	1000
/*
 * Samples judged (in the spin loop or the native leaf) of all samples:
 * most, though not as many as the ranged case's 99%: a fresh-clone make
 * check's anonymous-mapping run had 1,115 of 4,846 samples in the JIT
 * code outside its spin loop (3 to 13 in other runs), all walked right.
 */
#define MIN_JUDGED_PERMILLE 500

#define NOINLINE __attribute__((noinline))

/* jit_code.S: both copies, and the offsets the frames are judged by */
extern const unsigned char jit_code_start[], jit_code_end[];
extern const unsigned char jit_code_ret_entry[], jit_code_ret_outer[];
extern const unsigned char jit_code_ret_inner[];
extern const unsigned char jit_code_spin_start[], jit_code_spin_end[];
extern const unsigned char jit_text_start[], jit_text_end[];

#define JIT_OFF(sym) ((uint32_t)(jit_code_##sym - jit_code_start))
#define JIT_SIZE ((uint32_t)(jit_code_end - jit_code_start))

/* Where the JIT code is: copied to anonymous memory, or in .text. */
enum jit_where { JIT_RANGE, JIT_ANON, JIT_IN_TEXT };

typedef unsigned long (*jit_fn)(void);

static volatile unsigned long sink;

NOINLINE unsigned long native_leaf(void)
{
	unsigned long x = sink;
	int i;

	for (i = 0; i < 20000; i++)
		x = x * 1103515245u + 12345u;
	sink = x;
	return x;
}

/* Calls into the JIT code, with work after the call so it stays a call. */
NOINLINE unsigned long run_jit(jit_fn fn, int seconds)
{
	unsigned long r = 0;
	time_t end = time(NULL) + seconds;
	int i;

	do {
		for (i = 0; i < 16; i++) {
			r += fn();
			__asm__ volatile("" : "+r"(r));
		}
	} while (time(NULL) < end);
	return r;
}

/* The code copied to fresh anonymous memory, made executable. */
static unsigned char *jit_map(void)
{
	unsigned char *code;

	code = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED)
		return NULL;
	memcpy(code, jit_code_start, JIT_SIZE);
	if (mprotect(code, 4096, PROT_READ | PROT_EXEC))
		return NULL;
	__builtin___clear_cache((char *)code, (char *)code + JIT_SIZE);
	return code;
}

enum { F_NATIVE_LEAF, F_RUN_JIT, F_NR };
static const char *const func_names[F_NR] = { "native_leaf", "run_jit" };

struct syms {
	uint32_t start[F_NR], end[F_NR];
	uint32_t bias;		/* of this program */
	uint32_t jit;		/* where the child's copy is */
};

struct verdict {
	unsigned int samples, in_native, in_jit, wrong, not_root, bad_record;
	unsigned int jit_edge, other;
	unsigned int stops[UWPROF_STOP_NR];
};

static bool in_func(const struct syms *s, int f, uint32_t pc, bool ra)
{
	return pc_in_func(s->start[f], s->end[f], s->bias, pc, ra);
}

/* Frames @f[0..n) are the JIT return addresses @want, then run_jit. */
static bool jit_tail(const struct syms *s, const uint32_t *f, uint32_t n,
		     const uint32_t *want, uint32_t nwant)
{
	uint32_t i;

	if (n < nwant + 1)
		return false;
	for (i = 0; i < nwant; i++)
		if (f[i] != s->jit + want[i])
			return false;
	return in_func(s, F_RUN_JIT, f[nwant], true);
}

static void show_miss(const struct uwprof_record *r, struct verdict *v)
{
	if (v->wrong + v->not_root <= 3)
		print_miss(r);
}

static void judge(const struct uwprof_record *r, const struct syms *s,
		  struct verdict *v)
{
	const uint32_t from_native[] = {
		JIT_OFF(ret_inner), JIT_OFF(ret_outer), JIT_OFF(ret_entry),
	};
	const uint32_t *f = r->frames;
	uint32_t n = r->nframes, pc = n ? f[0] - s->jit : ~0u;
	bool ok = false, native = false;

	v->samples++;
	if (r->stop < UWPROF_STOP_NR)
		v->stops[r->stop]++;
	if (n && in_func(s, F_NATIVE_LEAF, f[0], false)) {
		ok = jit_tail(s, f + 1, n - 1, from_native, 3);
		native = true;
	} else if (pc >= JIT_OFF(spin_start) && pc <= JIT_OFF(spin_end)) {
		ok = jit_tail(s, f + 1, n - 1, from_native + 1, 2);
	} else {
		/* not judged: outside JIT code, or where no frame is set up */
		if (pc < JIT_SIZE)
			v->jit_edge++;
		else
			v->other++;
		return;
	}
	if (!ok) {
		v->wrong++;
		show_miss(r, v);
	} else if (r->stop != UWPROF_STOP_ROOT) {
		v->not_root++;
		show_miss(r, v);
	} else if (native) {
		v->in_native++;
	} else {
		v->in_jit++;
	}
}

struct judging {
	const struct syms *s;
	struct verdict *v;
};

static void judge_one(const struct uwprof_record *r, void *ctx)
{
	struct judging *j = ctx;

	judge(r, j->s, j->v);
}

static void drain(int fd, const struct syms *s, struct verdict *v)
{
	struct judging j = { s, v };

	v->bad_record += drain_records(fd, judge_one, &j);
}

/*
 * This program again as "--run-jit READY GO WHERE" (spawn_self()): once
 * its JIT code is mapped it writes the code's address.
 */
static pid_t spawn_jit(int *go_fd, uint32_t *jit, enum jit_where where)
{
	char w[16];

	snprintf(w, sizeof(w), "%d", where);
	return spawn_self("jit", "--run-jit", w, go_fd, jit, 4);
}

static int jit_main(int ready, int go, enum jit_where where)
{
	const unsigned char *code = where == JIT_IN_TEXT ? jit_text_start :
				    jit_map();
	uint32_t at = (uint32_t)(unsigned long)code;
	char c;

	if (!code || write(ready, &at, 4) != 4 || read(go, &c, 1) != 1)
		return 1;
	return run_jit((jit_fn)code, RUN_SECONDS) == 42;
}

static int attach_jit(int fd, pid_t pid, uint32_t start, uint32_t size,
		      uint32_t frames, uint32_t table_id)
{
	return uw_dev_attach_as(fd, pid, table_id, frames, start, start + size);
}

static int start_anon(int fd, uint32_t anon_frames)
{
	struct uwprof_start st = {
		.size = sizeof(st),
		.freq_hz = SAMPLE_HZ,
		.anon_frames = anon_frames,
	};

	return ioctl(fd, UWPROF_IOC_START, &st) ? -errno : 0;
}

/*
 * Run the child and judge its samples.  JIT_RANGE: the copy's range is
 * attached; JIT_ANON: the module finds it as an anonymous executable
 * mapping (START's anon_frames); JIT_IN_TEXT: the code in .text is
 * attached as JIT code inside the range of the program's own table,
 * which is cut around it.
 */
static void run_case(struct __test_metadata *_metadata, enum jit_where where)
{
	bool anon = where == JIT_ANON;
	struct syms s = { 0 };
	struct verdict v = { 0 };
	pid_t child;
	int fd, i, go;

	ASSERT_EQ(0, read_syms_named(func_names, F_NR, s.start, s.end));
	ASSERT_EQ(0, uwprof_load());
	child = spawn_jit(&go, &s.jit, where);
	ASSERT_LT(0, child);
	ASSERT_NE(0, s.jit);
	fd = uwprof_open_dev();
	ASSERT_LE(0, fd);
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	ASSERT_LT(0, attach_all(fd, child, &s.bias));
	if (anon) {
		EXPECT_EQ(-EINVAL, start_anon(fd, UWPROF_FRAMES_NR));
		ASSERT_EQ(0, start_anon(fd, UWPROF_FRAMES_V8_ARM));
	} else {
		/* an unknown kind, and a table beside a kind: refused */
		EXPECT_EQ(-EINVAL, attach_jit(fd, child, s.jit, JIT_SIZE,
					      UWPROF_FRAMES_NR, 0));
		EXPECT_EQ(-EINVAL, attach_jit(fd, child, s.jit, JIT_SIZE,
					      UWPROF_FRAMES_V8_ARM, 1));
		ASSERT_EQ(0, attach_jit(fd, child, s.jit, JIT_SIZE,
					UWPROF_FRAMES_V8_ARM, 0));
		/* and it is an attachment: the same range again overlaps */
		EXPECT_EQ(-EEXIST, attach_jit(fd, child, s.jit, JIT_SIZE,
					      UWPROF_FRAMES_V8_ARM, 0));
		ASSERT_EQ(0, uwprof_start(fd, SAMPLE_HZ));
	}
	ASSERT_EQ(1, write(go, "g", 1));
	close(go);
	while (waitpid(child, NULL, WNOHANG) == 0) {
		drain(fd, &s, &v);
		usleep(100000);
	}
	ASSERT_EQ(0, ioctl(fd, UWPROF_IOC_STOP));
	drain(fd, &s, &v);
	close(fd);

	printf("# %u samples: %u in native code under JIT frames, %u in JIT"
	       " code, both walked to root; wrong chain %u, not root %u;"
	       " not judged: %u at JIT code's edges, %u elsewhere\n",
	       v.samples, v.in_native, v.in_jit, v.wrong, v.not_root,
	       v.jit_edge, v.other);
	for (i = 0; i < UWPROF_STOP_NR; i++)
		if (v.stops[i])
			printf("#   stop %s: %u\n", uw2_stop_name(i), v.stops[i]);
	EXPECT_EQ(0, v.bad_record);
	EXPECT_LT(RUN_SECONDS * SAMPLE_HZ / 5, v.samples);
	EXPECT_LT(0, v.in_native);
	EXPECT_LT(0, v.in_jit);
	EXPECT_EQ(0, v.wrong);
	EXPECT_EQ(0, v.not_root);
	EXPECT_LE(MIN_JUDGED_PERMILLE * v.samples,
		  1000 * (v.in_native + v.in_jit));
}

TEST(jit_range_walked_to_root)
{
	run_case(_metadata, JIT_RANGE);
}

TEST(jit_anon_mapping_walked_to_root)
{
	run_case(_metadata, JIT_ANON);
}

TEST(jit_inside_tabled_text_walked_to_root)
{
	run_case(_metadata, JIT_IN_TEXT);
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "--run-jit"))
		return jit_main(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));
	return test_harness_run(argc, argv);
}
