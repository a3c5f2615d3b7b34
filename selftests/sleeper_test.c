// SPDX-License-Identifier: GPL-2.0
/*
 * Tasks sampled in the kernel that then sleep there must not keep the
 * module once the file is closed, and must not notice it either.  A
 * sample of a process not followed yet (START_ALL) is finished in the
 * task's own context: task work that runs when the task next returns to
 * user space.  Closing the file makes each task with such a sample run it
 * at once (follow.c, "Lifetime").
 *
 * Each child is inside its one blocking call before sampling starts, and
 * the parent then makes that call work in the kernel without returning:
 * a write of 8 MiB into a 1 MiB pipe copies another 256 KiB each time
 * the parent reads as much, and a poll of one full pipe's write end,
 * named 5,000 times, looks at all of them again each time the parent
 * reads a byte of that pipe (not enough to make room).  So the first sample of a child
 * is taken in the kernel, and its work stays queued while it sleeps on
 * (at least one of them must be sampled: the case is not made otherwise).
 * After the close rmmod must succeed within a few seconds, and each call
 * must still do what it was asked: the writes deliver every byte in
 * order, a poll wakes for the room made later and its write of a message
 * arrives, and a poll with a timeout returns 0 after all of its time.
 * (A nanosleep has no work in the kernel to sample before it sleeps; its
 * restart with the time left is the one the timed poll has.)
 */
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

#include "kselftest_harness.h"
#include "uwprof_util.h"

#define WRITER_PIPE	(1 << 20)
#define WRITE_LEN	(8 << 20)	/* one call, eight pipes' worth */
#define POLL_FDS	5000	/* RLIMIT_NOFILE is raised to allow it */
#define POLL_DATA_MS	60000	/* a bound only: room comes long before */
#define POLL_TIMED_MS	8000	/* long after the close */
#define POLL_SLACK_MS	3000	/* a loaded host's lateness, no more */
#define POKES		20	/* the parent's reads while sampling */
#define POKE_BYTES	(256 << 10)	/* a writer copies as much again */
#define UNLOAD_MS	3000	/* rmmod must work this soon after close */
#define ASLEEP_MS	2000	/* poked children asleep again, at most */
#define KIDS		6

enum kind { WRITER, POLL_DATA, POLL_TIMED };

static const char message[] = "data after rmmod";

struct kid {
	enum kind kind;
	int seed;	/* of the pattern in its pipe */
	pid_t pid;
	int fd;		/* the parent's end of the child's pipe */
	size_t filled;	/* bytes the parent put in a poller's pipe */
	size_t taken;	/* bytes the parent read so far */
};

static unsigned char buf[WRITE_LEN];
static struct pollfd pfd[POLL_FDS];

/* The module's reference count, or -1. */
static long mod_refcnt(void)
{
	return uwprof_read_long("/sys/module/uwprof/refcnt");
}

static long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static unsigned char pattern(size_t i, int seed)
{
	return (unsigned char)(i * 7 + seed);
}

/* Write all of @len bytes, however many calls it takes. */
static int write_all(int fd, const unsigned char *p, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

/* Read @len bytes that must be @seed's pattern from @at on. */
static bool read_pattern(int fd, size_t at, size_t len, int seed)
{
	static unsigned char rbuf[65536];
	size_t i, want;
	ssize_t n;

	while (len) {
		want = len < sizeof(rbuf) ? len : sizeof(rbuf);
		n = read(fd, rbuf, want);
		if (n <= 0)
			return false;
		for (i = 0; i < (size_t)n; i++)
			if (rbuf[i] != pattern(at + i, seed))
				return false;
		at += n;
		len -= n;
	}
	return true;
}

/*
 * Poll the write end @fd of a full pipe, named POLL_FDS times, for room,
 * for @ms.  With @want_room, write the message once there is room;
 * without, no room comes and the poll must time out, on time.
 */
static int kid_poll(int fd, int ms, bool want_room)
{
	long t0, took;
	int i, n;

	for (i = 0; i < POLL_FDS; i++)
		pfd[i] = (struct pollfd){ .fd = fd, .events = POLLOUT };
	t0 = now_ms();
	n = poll(pfd, POLL_FDS, ms);
	took = now_ms() - t0;
	if (!want_room) {
		if (!n && took >= ms && took <= ms + POLL_SLACK_MS)
			return 0;
		fprintf(stderr, "# poll of %d ms: %d after %ld ms (%s)\n", ms,
			n, took, n < 0 ? strerror(errno) : "no error");
		return 20;
	}
	if (n != POLL_FDS) {
		fprintf(stderr, "# poll for room: %d after %ld ms (%s)\n", n,
			took, n < 0 ? strerror(errno) : "no error");
		return 21;
	}
	return write_all(fd, (const unsigned char *)message,
			 sizeof(message)) ? 22 : 0;
}

/* Fill the pipe @fd (blocking again after); how many bytes it took. */
static size_t fill(int fd, int seed)
{
	unsigned char page[4096];
	size_t at = 0, i;
	ssize_t n;

	fcntl(fd, F_SETFL, O_NONBLOCK);
	do {
		for (i = 0; i < sizeof(page); i++)
			page[i] = pattern(at + i, seed);
		n = write(fd, page, sizeof(page));
		at += n > 0 ? n : 0;
	} while (n > 0);
	fcntl(fd, F_SETFL, 0);
	return at;
}

/*
 * A child of @kind, made before the file is opened so that it holds no
 * copy of it, asleep in its one call when this returns (or pid -1).
 */
static struct kid spawn(enum kind kind, int seed)
{
	struct kid k = { .kind = kind, .seed = seed, .pid = -1, .fd = -1 };
	char path[64], wchan[64] = "";
	int p[2], i;
	FILE *f;

	if (pipe(p))
		return k;
	if (kind == WRITER) {
		fcntl(p[1], F_SETPIPE_SZ, WRITER_PIPE);
		for (i = 0; i < WRITE_LEN; i++)
			buf[i] = pattern(i, seed);
	} else {
		k.filled = fill(p[1], seed);
	}
	k.pid = fork();
	if (k.pid == 0) {
		close(p[0]);
		if (kind == WRITER)
			_exit(write_all(p[1], buf, WRITE_LEN) ? 10 : 0);
		_exit(kid_poll(p[1], kind == POLL_DATA ? POLL_DATA_MS :
			       POLL_TIMED_MS, kind == POLL_DATA));
	}
	close(p[1]);
	k.fd = p[0];
	/* asleep in pipe_write or in do_sys_poll: not in user space again */
	snprintf(path, sizeof(path), "/proc/%d/wchan", k.pid);
	for (i = 0; i < 500 && !strstr(wchan, kind == WRITER ? "pipe_write" :
					"do_sys_poll"); i++) {
		usleep(10000);
		f = fopen(path, "r");
		if (f && !fgets(wchan, sizeof(wchan), f))
			wchan[0] = 0;
		if (f)
			fclose(f);
	}
	return k;
}

/*
 * Make a child work in the kernel, in the call it sleeps in: a writer
 * copies as much as a read makes room for; a poller looks at its 5,000
 * entries again when a byte is read off its full pipe.
 */
static bool poke(struct kid *k)
{
	size_t n = k->kind == WRITER ? POKE_BYTES : 1;

	if (!read_pattern(k->fd, k->taken, n, k->seed))
		return false;
	k->taken += n;
	return true;
}

static int start_all(int fd, unsigned int hz)
{
	struct uwprof_start st = {
		.size = sizeof(st), .freq_hz = hz, .flags = UWPROF_START_ALL,
	};

	return ioctl(fd, UWPROF_IOC_START, &st) ? -errno : 0;
}

/* Is @pid asleep (not gone, not a zombie)? */
static bool asleep(pid_t pid)
{
	char path[64], line[256], *state;
	FILE *f;
	bool ret = false;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (f && fgets(line, sizeof(line), f)) {
		state = strrchr(line, ')');
		ret = state && state[1] == ' ' && state[2] == 'S';
	}
	if (f)
		fclose(f);
	return ret;
}

/*
 * How many of @kids are asleep, once all are or @ms passed: a child
 * just poked sleeps again at once on an idle machine, and later on a
 * host that shares its CPU with other VMs.
 */
static int all_asleep(const struct kid *kids, int ms)
{
	long t0 = now_ms();
	int i, n;

	for (;;) {
		for (i = 0, n = 0; i < KIDS; i++)
			n += asleep(kids[i].pid);
		if (n == KIDS || now_ms() - t0 >= ms)
			return n;
		usleep(10000);
	}
}

/* rmmod, tried until it works or @ms passed; how long it took, or -1. */
static long unload_within(int ms)
{
	long t0 = now_ms();

	do {
		if (!uwprof_unload())
			return now_ms() - t0;
		usleep(50000);
	} while (now_ms() - t0 < ms);
	return -1;
}

/* The rest of a child's pipe, and its result. */
static void finish(struct __test_metadata *_metadata, struct kid *k)
{
	char msg[sizeof(message)];
	int status;

	if (k->kind == WRITER)
		EXPECT_TRUE(read_pattern(k->fd, k->taken,
					 WRITE_LEN - k->taken, k->seed));
	if (k->kind == POLL_DATA) {
		/* the room the poller waits for, then what it writes there */
		EXPECT_TRUE(read_pattern(k->fd, k->taken,
					 k->filled - k->taken, k->seed));
		EXPECT_EQ(sizeof(msg), read(k->fd, msg, sizeof(msg)));
		EXPECT_EQ(0, memcmp(msg, message, sizeof(msg)));
	}
	ASSERT_EQ(k->pid, waitpid(k->pid, &status, 0));
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		printf("# child of kind %d: status %#x\n", k->kind, status);
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	close(k->fd);
}

TEST(kernel_sleepers_let_module_go)
{
	struct rlimit nofile = { POLL_FDS + 64, POLL_FDS + 64 };
	struct uwprof_stats st;
	long before, open_ref, unload_ms;
	struct kid kids[KIDS];
	int fd, i, round, sleeping = 0;

	ASSERT_EQ(0, uwprof_load());
	ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &nofile));
	for (i = 0; i < KIDS; i++) {
		kids[i] = spawn(i % 3, i);
		ASSERT_LT(0, kids[i].pid);
	}
	before = mod_refcnt();
	ASSERT_LE(0, before);
	fd = uwprof_open_dev();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, start_all(fd, 10000));
	for (round = 0; round < POKES; round++) {
		for (i = 0; i < KIDS; i++)
			ASSERT_TRUE(poke(&kids[i]));
		usleep(10000);
	}
	ASSERT_EQ(0, ioctl(fd, UWPROF_IOC_STOP));
	ASSERT_EQ(0, uwprof_stats(fd, &st));
	/* the file's own reference, and one per sample still queued */
	open_ref = mod_refcnt();
	sleeping = all_asleep(kids, ASLEEP_MS);
	close(fd);
	unload_ms = unload_within(UNLOAD_MS);
	printf("# %d of %d children asleep at close; refcnt %ld before open, %ld at close (%ld samples queued); deferred %llu, failed %llu; rmmod %s %ld ms after close\n",
	       sleeping, KIDS, before, open_ref, open_ref - before - 1,
	       (unsigned long long)st.deferred,
	       (unsigned long long)st.deferred_failed,
	       unload_ms < 0 ? "failed for" : "worked", unload_ms < 0 ?
	       (long)UNLOAD_MS : unload_ms);
	/* whatever happened, let every child finish and check it */
	for (i = 0; i < KIDS; i++)
		finish(_metadata, &kids[i]);
	/* all still in their calls, and one's sample at least queued there */
	EXPECT_EQ(KIDS, sleeping);
	EXPECT_LE(1, open_ref - before - 1);
	EXPECT_LE(0, unload_ms);
	ASSERT_EQ(0, uwprof_load());
}

#define HELD		3	/* processes blocked through a per-task session */

/*
 * Per-task timers are perf events on the threads themselves, and a
 * thread keeps its perf context after the events are gone, until it
 * exits.  Processes that sleep through a whole per-task session (never
 * switched in while it samples), then outlive the module's unload, must
 * exit as any other: nothing of the module may be left in their
 * contexts.  Each child blocks on its pipe before START and is let go
 * after rmmod; it must exit 0.
 */
TEST(per_task_sleepers_outlive_the_module)
{
	static const unsigned char finish[] = { 0xb0 };
	int fd, id, pipes[HELD][2], i, status;
	unsigned int start, end;
	struct uwprof_start st = {
		.size = sizeof(st), .freq_hz = 1000,
		.flags = UWPROF_START_PER_TASK,
	};
	unsigned char blob[64];
	pid_t pids[HELD];
	char c;

	ASSERT_EQ(0, uwprof_load());
	for (i = 0; i < HELD; i++) {
		ASSERT_EQ(0, pipe(pipes[i]));
		pids[i] = fork();
		ASSERT_LE(0, pids[i]);
		if (!pids[i])
			_exit(read(pipes[i][0], &c, 1) == 1 ? 0 : 1);
	}
	usleep(100 * 1000);	/* each asleep in its read */
	fd = uwprof_open_dev();
	ASSERT_LE(0, fd);
	id = uwprof_upload(fd, blob, uwprof_tiny_table(blob, finish,
							sizeof(finish)),
			   NULL);
	ASSERT_LE(0, id);
	ASSERT_EQ(0, uwprof_text_of("self", &start, &end));
	for (i = 0; i < HELD; i++)
		ASSERT_EQ(0, uwprof_attach(fd, pids[i], id, start, end));
	ASSERT_EQ(0, ioctl(fd, UWPROF_IOC_START, &st));
	usleep(50 * 1000);
	ASSERT_EQ(0, ioctl(fd, UWPROF_IOC_STOP));
	close(fd);
	ASSERT_EQ(0, uwprof_unload());
	for (i = 0; i < HELD; i++) {
		ASSERT_EQ(1, write(pipes[i][1], "x", 1));
		ASSERT_EQ(pids[i], waitpid(pids[i], &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	}
	ASSERT_EQ(0, uwprof_load());
}

TEST_HARNESS_MAIN
