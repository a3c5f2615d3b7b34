// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation failures (a kernel with FAULT_INJECTION: failslab and
 * fail_page_alloc, i.e. the debug kernel; skipped elsewhere).  Each call
 * that allocates runs again and again with the n-th allocation of the
 * calling thread made to fail (/proc/thread-self/fail-nth), n = 1, 2, ...
 * until a run completes with none failed: so every allocation on the
 * call's path fails once.  Each time the call either absorbs the failure
 * or fails with the errno docs/ABI.md gives (ENOMEM), leaves no partial
 * state behind (LIST, STOP), and the file works again at once.  Leaks are
 * looked for by kmemleak after the run (selftests/run-in-vm.sh).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <time.h>

#include "kselftest_harness.h"
#include "uwprof_util.h"

#define DBG "/sys/kernel/debug"
#define MAX_NTH 2000

static const unsigned char finish[] = { 0xb0 };

static int write_str(const char *path, const char *v)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, v, strlen(v)) == (ssize_t)strlen(v);
	close(fd);
	return ok ? 0 : -1;
}

/* No task's allocations fail at random (fi.deferred_unwind's setting). */
static void fail_none(void)
{
	write_str(DBG "/failslab/probability", "0");
	write_str(DBG "/failslab/task-filter", "N");
}

/*
 * Let fail-nth reach sleeping and highmem allocations of any order; with
 * probability 0 nothing fails but what fail-nth names.  Returns 1 when
 * set, 0 when the kernel has no fault injection at all (no fail-nth: the
 * tests cannot run there), -1 when it has but failslab or fail_page_alloc
 * cannot be set up (a failure: the tests could run and do not).
 */
static int faults_available(void)
{
	const char *const set[][2] = {
		{ DBG "/failslab/probability", "0" },
		{ DBG "/failslab/ignore-gfp-wait", "N" },
		{ DBG "/failslab/cache-filter", "N" },
		{ DBG "/failslab/verbose", getenv("FI_VERBOSE") ?: "0" },
		{ DBG "/fail_page_alloc/probability", "0" },
		{ DBG "/fail_page_alloc/ignore-gfp-wait", "N" },
		{ DBG "/fail_page_alloc/ignore-gfp-highmem", "N" },
		{ DBG "/fail_page_alloc/min-order", "0" },
		{ DBG "/fail_page_alloc/verbose", getenv("FI_VERBOSE") ?: "0" },
	};
	size_t i;

	if (access("/proc/thread-self/fail-nth", F_OK))
		return 0;
	mount("none", DBG, "debugfs", 0, NULL);
	for (i = 0; i < sizeof(set) / sizeof(set[0]); i++)
		if (write_str(set[i][0], set[i][1]))
			return -1;
	return 1;
}

/* The calling thread's n-th allocation from now on fails. */
static int nth_fd = -1;

static void fail_nth(int n)
{
	char v[16];
	int len = snprintf(v, sizeof(v), "%d", n);

	if (nth_fd < 0)
		nth_fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	if (pwrite(nth_fd, v, len, 0) != len)
		abort();
}

/* Whether the failure happened; clears what is left of the count. */
static int fail_nth_hit(void)
{
	char v[16] = "";

	if (pread(nth_fd, v, sizeof(v) - 1, 0) <= 0)
		abort();
	if (atoi(v) == 0)
		return 1;
	fail_nth(0);
	return 0;
}

static void spin_ms(int ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 +
		 (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

static void *spin_thread(void *arg)
{
	for (;;)
		spin_ms(10);
	return arg;
}

/* A target of two spinning threads, until killed. */
static pid_t spawn_spinner(void)
{
	pthread_t th;
	pid_t pid = fork();

	if (pid == 0) {
		pthread_create(&th, NULL, spin_thread, NULL);
		spin_thread(NULL);
	}
	return pid;
}

static void reap(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

static const char *proc_cpu(int pid)
{
	static char line[512];
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	line[0] = 0;
	if (f) {
		fgets(line, sizeof(line), f);
		fclose(f);
	}
	return line;
}

static int list_count(int fd, int pid)
{
	struct uwprof_list l = { .size = sizeof(l), .pid = pid };

	return ioctl(fd, UWPROF_IOC_LIST, &l) ? -errno : (int)l.count;
}

static int start_flags(int fd, unsigned int hz, unsigned int flags)
{
	struct uwprof_start st = { .size = sizeof(st), .freq_hz = hz,
				   .flags = flags };

	return ioctl(fd, UWPROF_IOC_START, &st) ? -errno : 0;
}

/* A valid table of @len bytes: the tiny one, padded. */
static unsigned char *table(size_t len)
{
	unsigned char *blob = calloc(1, len);

	uwprof_tiny_table(blob, finish, sizeof(finish));
	return blob;
}

/* What one case does: set up, the call under test, the checks after. */
struct fcase {
	int fd;
	pid_t pid;
	int id;
	unsigned char *blob;
	size_t len;
	unsigned int flags;
};

struct tally {
	int points, failed, absorbed;
};

#define SETUP_FILE(c) do { \
	(c)->fd = uwprof_open_dev(); \
	ASSERT_LE(0, (c)->fd); \
	fcntl((c)->fd, F_SETFL, O_NONBLOCK); \
} while (0)

#define TEARDOWN(c) do { \
	close((c)->fd); \
	reap((c)->pid); \
	(c)->pid = 0; \
} while (0)

/*
 * Run @call with the n-th allocation failing for n = 1, 2, ... until a
 * run has none failed; @setup and @after are statements on struct fcase c
 * and int ret (0 or -errno).
 */
#define EVERY_FAILURE(t, setup, call, after) do { \
	int n, hit; \
	for (n = 1; n < MAX_NTH; n++) { \
		struct fcase c = { .fd = -1 }; \
		int ret; \
		setup; \
		fail_nth(n); \
		ret = (call); \
		hit = fail_nth_hit(); \
		if (!hit) { \
			ASSERT_EQ(0, ret); \
			after; \
			TEARDOWN(&c); \
			break; \
		} \
		(t)->points++; \
		if (ret) \
			(t)->failed++; \
		else \
			(t)->absorbed++; \
		ASSERT_TRUE(ret == 0 || ret == -ENOMEM) \
			TH_LOG("allocation %d: %s", n, strerror(-ret)); \
		after; \
		TEARDOWN(&c); \
	} \
	ASSERT_LT(n, MAX_NTH); \
	TH_LOG("%d allocations on the path: %d failed the call with ENOMEM, %d absorbed", \
	       (t)->points, (t)->failed, (t)->absorbed); \
} while (0)

FIXTURE(fi) {
	struct tally t;
	int faults;
};

/*
 * A SKIP in the set-up does not stop the test: each test asks.  Skipped
 * only where the kernel cannot inject faults at all; make test-debug runs
 * these on the debug kernel, which can.
 */
#define NEED_FAULTS() do { \
	ASSERT_LE(0, self->faults) \
		TH_LOG("fail-nth is there but failslab or fail_page_alloc cannot be set in " DBG); \
	if (!self->faults) \
		SKIP(return, "this kernel has no fault injection (no /proc/thread-self/fail-nth: built without CONFIG_FAULT_INJECTION, as Debian's are); make test-debug runs it on the debug kernel"); \
} while (0)

FIXTURE_SETUP(fi)
{
	self->faults = faults_available();
	if (self->faults <= 0)
		return;
	ASSERT_EQ(0, uwprof_load());
	/* One page per CPU: the ring's pages are allocation points too. */
	ASSERT_EQ(0, uwprof_set_param("buffer_bytes", 4096));
	memset(&self->t, 0, sizeof(self->t));
}

FIXTURE_TEARDOWN(fi)
{
	if (self->faults > 0) {
		uwprof_set_param("buffer_bytes", 512 << 10);
		fail_none();
	}
}

static int do_open(struct fcase *c)
{
	c->fd = uwprof_open_dev();
	return c->fd < 0 ? -errno : 0;
}

TEST_F(fi, open)
{
	NEED_FAULTS();
	EVERY_FAILURE(&self->t, (void)0, do_open(&c),
		if (c.fd < 0) {
			ASSERT_EQ(0, do_open(&c));
		}
		ASSERT_EQ(-1, ioctl(c.fd, UWPROF_IOC_STOP));
		ASSERT_EQ(EALREADY, errno);
	);
	EXPECT_LT(0, self->t.failed);
}

static int do_upload(struct fcase *c)
{
	c->id = uwprof_upload(c->fd, c->blob, c->len, NULL);
	return c->id < 0 ? c->id : 0;
}

/* A failed upload leaves no table; the same upload then works. */
#define UPLOAD_CASE(len_) do { \
	EVERY_FAILURE(&self->t, \
		SETUP_FILE(&c); c.len = (len_); c.blob = table(c.len), \
		do_upload(&c), \
		if (c.id < 0) { \
			ASSERT_EQ(0, do_upload(&c)); \
		} \
		ASSERT_EQ(1, c.id); \
		free(c.blob); \
	); \
	EXPECT_LT(0, self->t.failed); \
} while (0)

TEST_F(fi, upload_small)
{
	NEED_FAULTS();
	UPLOAD_CASE(64);
}

/* Larger than a page: kvmalloc's vmalloc path. */
TEST_F(fi, upload_large)
{
	NEED_FAULTS();
	UPLOAD_CASE(3 * 4096);
}

static void attach_setup(struct __test_metadata *_metadata, struct fcase *c)
{
	unsigned char blob[64];
	size_t len = uwprof_tiny_table(blob, finish, sizeof(finish));

	SETUP_FILE(c);
	c->id = uwprof_upload(c->fd, blob, len, NULL);
	ASSERT_LT(0, c->id);
	c->pid = spawn_spinner();
	ASSERT_LT(0, c->pid);
}

static int do_attach(struct fcase *c)
{
	return uwprof_attach(c->fd, c->pid, c->id, 0x10000, 0x200000);
}

/* A failed attach leaves no attachment; attaching again works. */
#define AFTER_ATTACH \
	if (ret) { \
		ASSERT_EQ(0, list_count(c.fd, c.pid)); \
		ASSERT_EQ(0, do_attach(&c)); \
	} \
	ASSERT_EQ(1, list_count(c.fd, c.pid))

TEST_F(fi, attach)
{
	NEED_FAULTS();
	EVERY_FAILURE(&self->t, attach_setup(_metadata, &c), do_attach(&c),
		      AFTER_ATTACH);
	EXPECT_LT(0, self->t.failed);
}

/* Attach while sampling per task: following the threads allocates too. */
TEST_F(fi, attach_while_sampling_per_task)
{
	NEED_FAULTS();
	EVERY_FAILURE(&self->t,
		attach_setup(_metadata, &c);
		ASSERT_EQ(0, start_flags(c.fd, 1000, UWPROF_START_PER_TASK)),
		do_attach(&c),
		AFTER_ATTACH;
		/* attached means followed: its threads are sampled */
		struct uwprof_stats st;
		for (int i = 0; i < 30; i++) {
			usleep(100000);
			ASSERT_EQ(0, uwprof_stats(c.fd, &st));
			if (st.taken)
				break;
		}
		ASSERT_LT(0, st.taken)
			TH_LOG("allocation %d (%s): attached, not sampled; list %d, cpu %s", n,
			       ret ? strerror(-ret) : "absorbed", list_count(c.fd, c.pid), proc_cpu(c.pid)));
	EXPECT_LT(0, self->t.failed);
}

static int do_detach(struct fcase *c)
{
	struct uwprof_detach d = { .size = sizeof(d), .pid = c->pid,
				   .text_start = 0x10000 };

	return ioctl(c->fd, UWPROF_IOC_DETACH, &d) ? -errno : 0;
}

TEST_F(fi, detach)
{
	NEED_FAULTS();
	EVERY_FAILURE(&self->t,
		attach_setup(_metadata, &c); ASSERT_EQ(0, do_attach(&c)),
		do_detach(&c),
		if (ret) {
			ASSERT_EQ(1, list_count(c.fd, c.pid));
			ASSERT_EQ(0, do_detach(&c));
		}
		ASSERT_EQ(0, list_count(c.fd, c.pid)));
	EXPECT_LT(0, self->t.failed);
}

static int do_start(struct fcase *c)
{
	return start_flags(c->fd, 1000, c->flags);
}

/* A failed start leaves sampling off; starting again works. */
#define START_CASE(flags_) do { \
	EVERY_FAILURE(&self->t, \
		attach_setup(_metadata, &c); ASSERT_EQ(0, do_attach(&c)); \
		c.flags = (flags_), \
		do_start(&c), \
		if (ret) { \
			ASSERT_EQ(-1, ioctl(c.fd, UWPROF_IOC_STOP)); \
			ASSERT_EQ(EALREADY, errno); \
			ASSERT_EQ(0, do_start(&c)); \
		} \
		ASSERT_EQ(0, ioctl(c.fd, UWPROF_IOC_STOP))); \
	EXPECT_LT(0, self->t.failed); \
} while (0)

TEST_F(fi, start_per_cpu)
{
	NEED_FAULTS();
	START_CASE(0);
}

TEST_F(fi, start_per_task)
{
	NEED_FAULTS();
	START_CASE(UWPROF_START_PER_TASK);
}

/*
 * Read into pages never touched, so that copying the records faults
 * pages in: a failed page allocation is EFAULT (the records stay) or a
 * shorter read; every delivered record is read exactly once.
 */
static int records_in(const char *p, ssize_t n)
{
	int k = 0;

	for (const char *q = p; q < p + n; q += ((struct uwprof_record *)q)->size)
		k++;
	return k;
}

TEST_F(fi, read)
{
	NEED_FAULTS();
	static char buf[1 << 16];
	unsigned long got;
	struct uwprof_stats st;
	int n, hit, efault = 0, points = 0;
	ssize_t len;

	for (n = 1; n < MAX_NTH; n++) {
		struct fcase c = { .fd = -1 };
		char *map;

		attach_setup(_metadata, &c);
		ASSERT_EQ(0, do_attach(&c));
		ASSERT_EQ(0, start_flags(c.fd, 2000, 0));
		/* a loaded debug kernel may take a while to run the target */
		for (int i = 0; i < 50; i++) {
			usleep(100000);
			ASSERT_EQ(0, uwprof_stats(c.fd, &st));
			if (st.delivered > 20)
				break;
		}
		ASSERT_EQ(0, ioctl(c.fd, UWPROF_IOC_STOP));
		ASSERT_EQ(0, uwprof_stats(c.fd, &st));
		ASSERT_LT(0, st.delivered);
		map = mmap(NULL, sizeof(buf), PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ASSERT_TRUE(map != MAP_FAILED);
		fail_nth(n);
		len = read(c.fd, map, sizeof(buf));
		if (len < 0)
			len = -errno;
		hit = fail_nth_hit();
		ASSERT_TRUE(len >= 0 || len == -EFAULT)
			TH_LOG("read: %s", strerror(-len));
		efault += len == -EFAULT;
		points += hit;
		got = len > 0 ? records_in(map, len) : 0;
		while ((len = read(c.fd, buf, sizeof(buf))) > 0)
			got += records_in(buf, len);
		ASSERT_EQ(st.delivered, got);
		munmap(map, sizeof(buf));
		TEARDOWN(&c);
		if (!hit)
			break;
	}
	ASSERT_LT(n, MAX_NTH);
	TH_LOG("%d allocations on the path, %d reads failed with EFAULT", points,
	       efault);
}

/*
 * A deferred sample: with a table by build-id uploaded, a followed
 * process's sample that stops in code not examined yet is finished in
 * the task's own context (task work), which examines its mappings and
 * publishes what it found.  That work runs in the sampled task, whenever
 * it next returns to user space, so its allocations are made to fail at
 * random in that task alone (failslab's task filter and the task's
 * make-it-fail), process after process: each deferred sample is then
 * written or counted failed, the session's counts add up, and the target
 * goes on being sampled.  A checker report (KASAN, a NULL pointer) fails
 * the VM run.
 */
#define DEFER_KIDS	40
#define DEFER_SPIN_MS	300
#define DEFER_PERCENT	"20"

/*
 * The target: ready, then on "go" it runs user code, where it is sampled,
 * and a few system calls, on whose way back its deferred samples run at
 * the latest; then it says so.
 */
static void deferred_target(int fd, int ready, int go, int done)
{
	char c;

	close(fd);	/* no process of the test outlives the file */
	if (write(ready, "r", 1) != 1 || read(go, &c, 1) != 1)
		_exit(1);
	spin_ms(DEFER_SPIN_MS);
	for (int i = 0; i < 3; i++)
		getppid();
	if (write(done, "d", 1) != 1)
		_exit(1);
	for (;;)
		spin_ms(10);
}

/* Allocations of @pid alone fail, @percent of them (0: none). */
static int fail_task(pid_t pid, const char *percent)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/make-it-fail", pid);
	return write_str(path, "1") ||
	       write_str(DBG "/failslab/task-filter", "Y") ||
	       write_str(DBG "/failslab/times", "-1") ||
	       write_str(DBG "/failslab/probability", percent) ? -1 : 0;
}

TEST_F_TIMEOUT(fi, deferred_unwind, 900)
{
	int k, i, pipes[3][2];
	unsigned long long failed = 0, deferred = 0;
	struct uwprof_stats a, b;
	char c;

	NEED_FAULTS();
	for (k = 0; k < DEFER_KIDS; k++) {
		struct fcase cs = { .fd = -1 };

		SETUP_FILE(&cs);
		ASSERT_EQ(0, uwprof_upload_any_build_id(cs.fd));
		cs.blob = table(64);
		cs.id = uwprof_upload(cs.fd, cs.blob, 64, NULL);
		free(cs.blob);
		ASSERT_LT(0, cs.id);
		for (i = 0; i < 3; i++)
			ASSERT_EQ(0, pipe(pipes[i]));
		cs.pid = fork();
		if (cs.pid == 0)
			deferred_target(cs.fd, pipes[0][1], pipes[1][0],
					pipes[2][1]);
		ASSERT_LT(0, cs.pid);
		ASSERT_EQ(1, read(pipes[0][0], &c, 1));
		/* followed, with no table over its own code */
		ASSERT_EQ(0, uwprof_attach(cs.fd, cs.pid, cs.id, 0x1000,
					   0x2000));
		ASSERT_EQ(0, start_flags(cs.fd, 1000, 0));
		ASSERT_EQ(0, fail_task(cs.pid, DEFER_PERCENT));
		ASSERT_EQ(1, write(pipes[1][1], "g", 1));
		ASSERT_EQ(1, read(pipes[2][0], &c, 1));
		fail_none();
		ASSERT_EQ(0, uwprof_stats(cs.fd, &a));
		/* every sample written or counted */
		ASSERT_EQ(a.taken, a.delivered + a.dropped_full);
		deferred += a.deferred;
		failed += a.deferred_failed;
		/* and the target is still sampled */
		for (i = 0; i < 50; i++) {
			usleep(20000);
			ASSERT_EQ(0, uwprof_stats(cs.fd, &b));
			if (b.taken > a.taken)
				break;
		}
		ASSERT_LT(a.taken, b.taken)
			TH_LOG("target %d: no longer sampled", k);
		ASSERT_EQ(1, list_count(cs.fd, cs.pid));
		ASSERT_EQ(0, ioctl(cs.fd, UWPROF_IOC_STOP));
		for (i = 0; i < 3; i++) {
			close(pipes[i][0]);
			close(pipes[i][1]);
		}
		TEARDOWN(&cs);
	}
	/* the work ran, and some of it failed */
	EXPECT_LT(0, deferred);
	EXPECT_LT(0, failed);
	TH_LOG("%d targets: %llu deferred samples written, %llu counted failed",
	       DEFER_KIDS, deferred, failed);
}

TEST_HARNESS_MAIN
