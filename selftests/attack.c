// SPDX-License-Identifier: GPL-2.0
/*
 * Valid input used at its worst: tables built to be slow to validate,
 * uploaded and timed; tables and stacks built to make one sample as long
 * as the module lets it be, sampled and timed by the module's own
 * handler_ns_max.  docs/ABI.md ("Bounded work") states the bounds these
 * check.
 */
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>

#include "fuse_hang.h"
#include "kselftest_harness.h"
#include "unwind_v2.h"
#include "uwprof_util.h"
#include "worst_tables.h"

/* Upload limits in the VM (the acceptance of the bounded-work rules). */
#define UPLOAD_4M_MS		2000
#define SAMPLE_MAX_NS		2000000

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Table bytes beyond tables_bytes_all, all files together: ENOSPC. */
TEST(upload_global_cap)
{
	static const unsigned char finish[] = { 0xb0 };
	unsigned char blob[64];
	size_t len = uwprof_tiny_table(blob, finish, sizeof(finish));
	int a, b, id = -1;

	ASSERT_EQ(0, uwprof_load());
	/*
	 * room for one tiny table, its memo, and its shapes and their scratch
	 * while they are found (18 and 26 bytes for a one-byte UIT), not for
	 * two tables
	 */
	ASSERT_EQ(0, uwprof_set_param("tables_bytes_all", 3 * len + 44));
	a = uwprof_open_dev();
	b = uwprof_open_dev();
	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	/* files closed by the tests before give their bytes back in a while */
	for (int i = 0; i < 50 && (id = uwprof_upload(a, blob, len, NULL)) < 0;
	     i++)
		usleep(100000);
	EXPECT_EQ(1, id);
	EXPECT_EQ(-ENOSPC, uwprof_upload(b, blob, len, NULL));
	close(a);
	/* the first file's bytes are given back once it is freed */
	for (int i = 0; i < 50 && (id = uwprof_upload(b, blob, len, NULL)) < 0;
	     i++)
		usleep(100000);
	EXPECT_EQ(1, id);
	close(b);
	ASSERT_EQ(0, uwprof_set_param("tables_bytes_all", 256 << 20));
}

/* Every worst shape at 4 MiB: valid, and validated within the limit. */
TEST(upload_worst_tables_4m)
{
	uint32_t size = 4 << 20, n, verr;
	uint8_t *b = malloc(size);
	double t0, ms;
	int fd, id;

	ASSERT_TRUE(b != NULL);
	ASSERT_EQ(0, uwprof_load());
	for (size_t i = 0; i < sizeof(wt_shapes) / sizeof(wt_shapes[0]); i++) {
		fd = uwprof_open_dev();
		ASSERT_LE(0, fd);
		n = wt_build(b, size, &wt_shapes[i]);
		ASSERT_LT(size - 4096, n);
		t0 = now_ms();
		id = uwprof_upload(fd, b, n, &verr);
		ms = now_ms() - t0;
		ksft_print_msg("shape %zu: %u bytes uploaded in %.0f ms (id %d, verr %u)\n",
			       i, n, ms, id, verr);
		EXPECT_LT(0, id);
		EXPECT_GT(UPLOAD_4M_MS, ms);
		close(fd);
	}
	free(b);
}

/* The slowest shape at table_bytes_max (64 MiB), validated within 30 s. */
TEST(upload_worst_table_max_size)
{
	uint32_t size = 64 << 20, n;
	uint8_t *b = malloc(size);
	double t0, ms;
	int fd, id;

	ASSERT_TRUE(b != NULL);
	ASSERT_EQ(0, uwprof_load());
	fd = uwprof_open_dev();
	ASSERT_LE(0, fd);
	n = wt_build(b, size, &wt_shapes[1]);
	t0 = now_ms();
	id = uwprof_upload(fd, b, n, NULL);
	ms = now_ms() - t0;
	ksft_print_msg("%u bytes uploaded in %.0f ms\n", n, ms);
	EXPECT_LT(0, id);
	EXPECT_GT(30000, ms);
	close(fd);
	free(b);
}

/* A killed uploader does not wait for its validation to end. */
TEST(upload_killed_midway)
{
	uint32_t size = 64 << 20, n;
	uint8_t *b = malloc(size);
	double t0, kill_ms, ms;
	int fd, status;
	pid_t pid;

	ASSERT_TRUE(b != NULL);
	ASSERT_EQ(0, uwprof_load());
	/* room for this file's table while the one before is freed */
	ASSERT_EQ(0, uwprof_set_param("tables_bytes_all", 512 << 20));
	n = wt_build(b, size, &wt_shapes[1]);
	fd = uwprof_open_dev();
	ASSERT_LE(0, fd);
	t0 = now_ms();
	uwprof_upload(fd, b, n, NULL);
	ms = now_ms() - t0;
	close(fd);
	pid = fork();
	if (!pid) {
		fd = uwprof_open_dev();
		_exit(-uwprof_upload(fd, b, n, NULL) & 0xff);
	}
	/* half way through its validation, by the time one took */
	usleep(ms * 500);
	t0 = now_ms();
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	kill_ms = now_ms() - t0;
	ksft_print_msg("upload %.0f ms; killed half way, gone in %.0f ms (status %#x)\n",
		       ms, kill_ms, status);
	/* it was still uploading: the kill ended it, not its own exit */
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	EXPECT_GT(ms / 4, kill_ms);
	ASSERT_EQ(0, uwprof_set_param("tables_bytes_all", 256 << 20));
	free(b);
}

/* An argument larger than a page is refused at once, whatever it holds. */
TEST(argument_over_a_page)
{
	size_t big = 64 << 20;
	struct uwprof_version *v = calloc(1, big);
	double t0;
	int fd;

	ASSERT_TRUE(v != NULL);
	ASSERT_EQ(0, uwprof_load());
	fd = uwprof_open_dev();
	ASSERT_LE(0, fd);
	v->size = big;
	t0 = now_ms();
	EXPECT_EQ(-1, ioctl(fd, UWPROF_IOC_VERSION, v));
	EXPECT_EQ(E2BIG, errno);
	EXPECT_GT(100, now_ms() - t0);
	v->size = getpagesize();
	EXPECT_EQ(0, ioctl(fd, UWPROF_IOC_VERSION, v));
	close(fd);
	free(v);
}

/*
 * Spins with sp at @base, sliding it up 8 bytes a turn and back to @base
 * at @end, until *@stop: the sampled frame's stack is a table's playground,
 * and each sample starts at other words.  ARM code, 64-byte aligned: the
 * table's text starts at attack_spin.
 */
void attack_spin(uint32_t *base, volatile int *stop, uint32_t *end);
asm(".text\n"
    ".balign 64\n"
    ".arm\n"
    ".global attack_spin\n"
    ".type attack_spin, %function\n"
    "attack_spin:\n"
    "	mov	r12, sp\n"
    "	mov	sp, r0\n"
    "1:	ldr	r3, [r1]\n"
    "	cmp	r3, #0\n"
    "	bne	2f\n"
    "	add	sp, sp, #8\n"
    "	cmp	sp, r2\n"
    "	movhs	sp, r0\n"
    "	b	1b\n"
    "2:	mov	sp, r12\n"
    "	bx	lr\n"
    ".size attack_spin, .-attack_spin\n");

/* Return addresses into row 0 of the one function: 1..ra_count halfwords in. */
#define RA_STRIDE	8192u	/* halfwords between FOT offsets */

/*
 * A table of one function at attack_spin whose list has @pairs pairs
 * RA_STRIDE halfwords apart, all to sequence @uit: a return address in
 * the first RA_STRIDE halfwords walks the whole list.  Pages cover the
 * list's span.
 */
static uint32_t attack_table(uint8_t *b, uint32_t pairs, const uint8_t *uit,
			     uint32_t uit_size, uint32_t *span)
{
	uint32_t pages = (uint64_t)pairs * RA_STRIDE * 2 / (128 << 10) + 1;
	uint32_t ft = 32 + 4 * pages, fot = ft + 4, n = fot, i;

	for (i = 0; i < pairs; i++) {
		n += wt_uleb(b + n, (pairs - 1 - i) * RA_STRIDE, 3);
		b[n++] = 0;
	}
	wt_header(b, pages, ft, 1, fot, n - fot, n, uit_size);
	for (i = 0; i < pages; i++)
		wt_put32(b + 32 + 4 * i, i ? 1 : 0);
	wt_put32(b + ft, 0);
	memcpy(b + n, uit, uit_size);
	*span = pages * (128 << 10);
	return n + uit_size;
}

struct spinner {
	uint32_t *base, *end;
	volatile int stop;
};

static void *spin_thread(void *arg)
{
	struct spinner *s = arg;

	attack_spin(s->base, &s->stop, s->end);
	return NULL;
}

/* The counters of attack_sample()'s last session. */
static struct uwprof_stats attack_stats;

/*
 * Sample a thread spinning in attack_spin over a stack of (r4, return
 * address) pairs, each return address another of RA_STRIDE - 1, with the
 * table of @pairs pairs and sequence @uit; returns handler_ns_max, and
 * the budget stops in *@budget (the rest in attack_stats).
 */
static uint64_t attack_sample(struct __test_metadata *_metadata,
			      uint32_t pairs, const uint8_t *uit,
			      uint32_t uit_size, uint64_t *budget,
			      uint64_t *taken)
{
	/* sp slides over 64 KiB; the window's 256 KiB above stay mapped */
	uint32_t words = 16 << 10, total = words + (64 << 10) + 1024;
	uint32_t span, len, text = (uintptr_t)attack_spin;
	uint8_t *blob = calloc(1, 64 << 10);
	struct uwprof_stats st;
	struct spinner s;
	pthread_t th;
	int fd, id;

	s.base = calloc(total, 4);
	s.end = s.base + words;
	s.stop = 0;
	/* distinct return addresses, in no order the cache could learn */
	for (uint32_t i = 0; i < total; i++)
		s.base[i] = i & 1 ? text + 2 + 2 * (i * 2654435761u %
						    (RA_STRIDE - 2)) : i;
	len = attack_table(blob, pairs, uit, uit_size, &span);
	fd = uwprof_open_dev();
	EXPECT_LE(0, fd);
	id = uwprof_upload(fd, blob, len, NULL);
	EXPECT_LT(0, id);
	EXPECT_EQ(0, uwprof_attach(fd, getpid(), id, text, text + span));
	pthread_create(&th, NULL, spin_thread, &s);
	EXPECT_EQ(0, uwprof_start(fd, 1000));
	usleep(1500000);
	ioctl(fd, UWPROF_IOC_STOP);
	s.stop = 1;
	pthread_join(th, NULL);
	EXPECT_EQ(0, uwprof_stats(fd, &st));
	ksft_print_msg("%u pairs: %llu taken, handler mean %llu ns, max %llu ns, budget stops %llu, max-depth %llu\n",
		       pairs, (unsigned long long)st.taken,
		       st.taken ? (unsigned long long)(st.handler_ns_sum / st.taken) : 0,
		       (unsigned long long)st.handler_ns_max,
		       (unsigned long long)st.stop[UWPROF_STOP_BUDGET],
		       (unsigned long long)st.stop[UWPROF_STOP_MAX_DEPTH]);
	for (int k = 0; k < UWPROF_STOP_NR; k++)
		if (st.stop[k])
			ksft_print_msg("  stop %d: %llu\n", k,
				       (unsigned long long)st.stop[k]);
	*budget = st.stop[UWPROF_STOP_BUDGET];
	*taken = st.taken;
	attack_stats = st;
	close(fd);
	free(s.base);
	free(blob);
	return st.handler_ns_max;
}

/* Every frame reads a FOT list of 4096 pairs: the step budget ends it. */
TEST(sample_long_lists)
{
	static const uint8_t uit[] = { 0xa8, 0xb0 };	/* pop {r4, lr} */
	uint64_t budget, taken, max;

	ASSERT_EQ(0, uwprof_load());
	max = attack_sample(_metadata, UW2_FOT_PAIRS_MAX, uit, sizeof(uit),
			    &budget, &taken);
	EXPECT_LT(100, taken);
	EXPECT_LT(taken / 2, budget);
	EXPECT_GT(SAMPLE_MAX_NS, max);
}

/*
 * A frame's sequence: @unit (@len bytes, two opcodes) 31 times, then
 * "pop {r4, lr}; finish", 64 opcodes in all, in @uit.  Returns its size.
 */
static uint32_t frame_of(uint8_t *uit, const uint8_t *unit, uint32_t len)
{
	uint32_t n = 0;

	for (int k = 0; k < 31; k++, n += len)
		memcpy(uit + n, unit, len);
	uit[n++] = 0xa8;
	uit[n++] = 0xb0;
	return n;
}

/*
 * Every frame runs a sequence of 64 opcodes, 31 of them pops of ten
 * registers: the depth limit or the step budget ends it.
 */
TEST(sample_long_sequences)
{
	/* pop r4-r11, r14, r15; vsp -= 40 */
	static const uint8_t unit[] = { 0x8c, 0xff, 0x49 };
	uint8_t uit[128];
	uint32_t n = frame_of(uit, unit, sizeof(unit));
	uint64_t budget, taken, max;

	ASSERT_EQ(0, uwprof_load());
	ASSERT_EQ(0, uwprof_set_param("max_depth", 256));
	max = attack_sample(_metadata, 1, uit, n, &budget, &taken);
	ASSERT_EQ(0, uwprof_set_param("max_depth", 128));
	EXPECT_LT(100, taken);
	EXPECT_GT(SAMPLE_MAX_NS, max);
}

/*
 * Every opcode pair leaps 2 KiB up the stack and pops a word there
 * (2,056 bytes on, an even count of words, so the frame's return address
 * is one).  The module loads each popped word in place
 * (unwind_v2_user.h), so the leaps go on up to the window's top, where
 * the walk stops as bad-sp; where words are copied instead (a window past
 * TASK_SIZE), each pop would copy another line, and the sample's copy
 * budget would end it first.  Either way within the bound.
 */
TEST(sample_stack_leaps)
{
	/* vsp += 0x204 + 4 * 384 (2 KiB); pop {r4} */
	static const uint8_t unit[] = { 0xb2, 0x80, 0x03, 0xa0 };
	uint8_t uit[160];
	uint32_t n = frame_of(uit, unit, sizeof(unit));
	uint64_t budget, taken, max;

	ASSERT_EQ(0, uwprof_load());
	max = attack_sample(_metadata, 1, uit, n, &budget, &taken);
	EXPECT_LT(100, taken);
	EXPECT_EQ(taken, budget + attack_stats.stop[UWPROF_STOP_BAD_SP]);
	EXPECT_GT(SAMPLE_MAX_NS, max);
}

/*
 * 32,768 executable mappings, every other page, each holding a loop
 * ("subs r0, r0, #1; bne; bx lr") that the process runs in turn, forever:
 * its samples fall in code no table covers, mapping after mapping.
 */
static void run_in_many_mappings(int go)
{
	static const uint32_t loop[] = { 0xe2500001, 0x1afffffd, 0xe12fff1e };
	long page = getpagesize(), i;
	char *base = mmap(NULL, 65536 * page, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (base == MAP_FAILED)
		_exit(1);
	for (i = 0; i < 65536; i += 2) {
		memcpy(base + i * page, loop, sizeof(loop));
		__builtin___clear_cache(base + i * page,
					base + i * page + sizeof(loop));
		if (mprotect(base + i * page, page, PROT_READ | PROT_EXEC))
			_exit(1);
	}
	if (write(go, "x", 1) != 1)
		_exit(1);
	for (;;)
		for (i = 0; i < 65536; i += 2)
			((void (*)(int))(base + i * page))(2000);
}

/*
 * A followed process of 32,768 executable mappings, sampled while tables
 * by build-id are uploaded (so every unknown mapping is worth examining)
 * and running code in one after another, dies within 2 s of SIGKILL: no
 * deferred sample walks its mappings.
 */
TEST(many_mappings_die_quickly)
{
	struct uwprof_attach a = {
		.size = sizeof(a), .flags = UWPROF_ATTACH_FOLLOW,
	};
	unsigned char blob[64];
	struct uwprof_stats st;
	double t0, ms;
	int fd, go[2];
	pid_t pid;

	ASSERT_EQ(0, uwprof_load());
	/* 65,536 mappings in all, over the default vm.max_map_count */
	ASSERT_EQ(0, system("echo 131072 >/proc/sys/vm/max_map_count"));
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	if (!pid)
		run_in_many_mappings(go[1]);
	close(go[1]);
	t0 = now_ms();
	ASSERT_EQ(1, read(go[0], blob, 1));
	ksft_print_msg("mapped in %.0f ms\n", now_ms() - t0);
	fd = uwprof_open_dev();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, uwprof_upload_any_build_id(fd));
	a.pid = pid;
	ASSERT_EQ(0, ioctl(fd, UWPROF_IOC_ATTACH, &a));
	ASSERT_EQ(0, uwprof_start(fd, 1000));
	/* long enough for examined mappings to pile up */
	usleep(4000000);
	t0 = now_ms();
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	ms = now_ms() - t0;
	EXPECT_EQ(0, uwprof_stats(fd, &st));
	ksft_print_msg("32768 mappings: gone %.0f ms after SIGKILL; %llu samples, %llu deferred\n",
		       ms, (unsigned long long)st.taken,
		       (unsigned long long)st.deferred);
	EXPECT_LT(100, st.taken);
	EXPECT_GT(2000, ms);
	close(fd);
}

/* Spin in code of our own, after mapping @path for execution if given. */
static void spin_mapping(const char *path, int go)
{
	volatile unsigned int n = 0;
	int fd;

	if (path) {
		fd = open(path, O_RDONLY);
		if (fd < 0 || mmap(NULL, FUSE_HANG_SIZE, PROT_READ | PROT_EXEC,
				   MAP_PRIVATE, fd, 0) == MAP_FAILED)
			_exit(1);
	}
	if (write(go, "x", 1) != 1)
		_exit(1);
	for (;;)
		n++;
}

static pid_t fork_spinner(const char *path)
{
	int go[2];
	char c;
	pid_t pid;

	if (pipe(go))
		return -1;
	pid = fork();
	if (!pid)
		spin_mapping(path, go[1]);
	close(go[1]);
	if (read(go[0], &c, 1) != 1)
		pid = -1;
	close(go[0]);
	return pid;
}

/* Milliseconds an ioctl takes; -1 if it fails. */
static double ioctl_ms(int fd, unsigned long req, void *arg)
{
	double t0 = now_ms();

	return ioctl(fd, req, arg) ? -1 : now_ms() - t0;
}

/*
 * A followed process that maps a file whose reads never complete (a FUSE
 * server that does not answer READ): the module looks for build-ids in
 * the page cache only, so it never reads that file, and the process,
 * which never read it either, runs on.  Before, the module's read of the
 * build-id held the process in an uninterruptible wait that not even
 * SIGKILL ended.  STATS, ATTACH, STOP and close return at once.
 */
TEST(hung_file_read_blocks_no_one)
{
	struct uwprof_attach a = {
		.size = sizeof(a), .flags = UWPROF_ATTACH_FOLLOW,
	};
	struct pollfd pf = { .events = POLLIN };
	struct uwprof_stats st1, st2;
	struct fuse_hang fh;
	pid_t mapper, late;
	double ms;
	int fd;

	ASSERT_EQ(0, uwprof_load());
	if (fuse_hang_mount(&fh))
		SKIP(return, "no FUSE in this kernel (%s)", strerror(errno));
	mapper = fork_spinner(FUSE_HANG_FILE);
	late = fork_spinner(NULL);
	ASSERT_LT(0, mapper);
	ASSERT_LT(0, late);
	fd = uwprof_open_dev();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, uwprof_upload_any_build_id(fd));
	a.pid = mapper;
	ASSERT_EQ(0, ioctl(fd, UWPROF_IOC_ATTACH, &a));
	ASSERT_EQ(0, uwprof_start(fd, 1000));
	/* sweeps have looked at every mapping by now, many times over */
	usleep(2000000);
	ASSERT_EQ(0, uwprof_stats(fd, &st1));
	usleep(1000000);
	ms = now_ms();
	ASSERT_EQ(0, uwprof_stats(fd, &st2));
	ms = now_ms() - ms;
	pf.fd = fh.reads;
	EXPECT_EQ(0, poll(&pf, 1, 0)) {
		ksft_print_msg("the module read the mapped file\n");
	}
	ksft_print_msg("hung file: STATS %.1f ms; in 1 s %llu samples taken, %llu deferred\n",
		       ms, (unsigned long long)(st2.taken - st1.taken),
		       (unsigned long long)(st2.deferred - st1.deferred));
	EXPECT_GT(100, ms);
	EXPECT_LT(100, st2.taken - st1.taken);	/* it runs */
	a.pid = late;
	ms = ioctl_ms(fd, UWPROF_IOC_ATTACH, &a);
	ksft_print_msg("hung file: ATTACH %.1f ms\n", ms);
	EXPECT_LE(0, ms);
	EXPECT_GT(100, ms);
	ms = ioctl_ms(fd, UWPROF_IOC_STOP, NULL);
	ksft_print_msg("hung file: STOP %.1f ms\n", ms);
	EXPECT_LE(0, ms);
	EXPECT_GT(100, ms);
	ms = now_ms();
	close(fd);
	ms = now_ms() - ms;
	ksft_print_msg("hung file: close %.1f ms\n", ms);
	EXPECT_GT(100, ms);
	/* the connection aborted first, so that the test ends either way */
	kill(mapper, SIGKILL);
	kill(late, SIGKILL);
	fuse_hang_unmount(&fh);
	waitpid(mapper, NULL, 0);
	waitpid(late, NULL, 0);
	for (ms = now_ms(); uwprof_unload() && now_ms() - ms < 2000;)
		usleep(10000);
	EXPECT_GT(2000, now_ms() - ms);
}

TEST_HARNESS_MAIN
