// SPDX-License-Identifier: GPL-2.0
/*
 * An attach while sampling per task whose perf event cannot be made on one
 * of the process's threads (docs/HOSTILE.md, "What they found" 2): the
 * follow is all threads or none, so the attach fails with the error, leaves
 * no entry and no event behind, and attaching again samples each thread
 * once.  fault_test reaches this path through fault injection on the debug
 * kernel only; here the test-only module uwprof_kfail (selftests/kfail/)
 * makes the chosen creation fail on any kernel with kprobes.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "kselftest_harness.h"
#include "uwprof_util.h"

#define KFAIL_KO "/selftests/uwprof_kfail.ko"
#define KFAIL_PARAM "/sys/module/uwprof_kfail/parameters/"
#define THREADS 3

static const unsigned char finish[] = { 0xb0 };

static int kfail_set(const char *name, int v)
{
	char path[128], s[16];
	int fd, len = snprintf(s, sizeof(s), "%d", v), ok;

	snprintf(path, sizeof(path), KFAIL_PARAM "%s", name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ok = write(fd, s, len) == len;
	close(fd);
	return ok ? 0 : -EIO;
}

static int kfail_load(void)
{
	int fd = open(KFAIL_KO, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, "", 0);
	ret = (ret && errno != EEXIST) ? -errno : 0;
	close(fd);
	return ret;
}

static void *spin(void *arg)
{
	for (;;)
		;
	return arg;
}

/* A process of THREADS spinning threads, until killed. */
static pid_t spawn_spinner(void)
{
	pthread_t th;
	pid_t pid = fork();
	int i;

	if (pid == 0) {
		for (i = 1; i < THREADS; i++)
			pthread_create(&th, NULL, spin, NULL);
		spin(NULL);
	}
	return pid;
}

static int thread_count(pid_t pid)
{
	char path[64], line[256];
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Threads: %d", &n) == 1)
			break;
	fclose(f);
	return n;
}

/* The CPU time thread @tid of @pid has used, in ms (USER_HZ 100). */
static long cpu_ms(pid_t pid, pid_t tid)
{
	char path[96], buf[1024], *p;
	unsigned long ut, st;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
	fclose(f);
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
			 &ut, &st) != 2)
		return -1;
	return (long)(ut + st) * 10;
}

/* The threads of @pid: their tids into @tids, at most THREADS. */
static int tids_of(pid_t pid, pid_t *tids)
{
	char path[64];
	struct dirent *d;
	int n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return -1;
	while ((d = readdir(dir)) && n < THREADS)
		if (d->d_name[0] != '.')
			tids[n++] = atoi(d->d_name);
	closedir(dir);
	return n;
}

/* Reads every record waiting; counts the samples of each of @tids. */
static void drain(int fd, const pid_t *tids, long *count)
{
	static char buf[1 << 16];
	ssize_t n;
	char *p;
	int i;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (p = buf; p < buf + n; p += ((struct uwprof_record *)p)->size) {
			const struct uwprof_record *r = (void *)p;

			if (r->size < sizeof(*r))
				return;
			for (i = 0; count && i < THREADS; i++)
				count[i] += r->tid == (__u32)tids[i];
		}
}

static int list_count(int fd, int pid)
{
	struct uwprof_list l = { .size = sizeof(l), .pid = pid };

	return ioctl(fd, UWPROF_IOC_LIST, &l) ? -errno : (int)l.count;
}

FIXTURE(ff) {
	int fd, id;
	pid_t pid;
	bool no_kprobes;	/* a SKIP in the set-up does not stop the test */
};

FIXTURE_SETUP(ff)
{
	struct uwprof_start st = { .size = sizeof(st), .freq_hz = 1000,
				   .flags = UWPROF_START_PER_TASK };
	unsigned char blob[64];
	size_t len = uwprof_tiny_table(blob, finish, sizeof(finish));
	int i, ret;

	self->pid = -1;
	self->fd = -1;
	ASSERT_EQ(0, uwprof_load());
	ret = kfail_load();
	/* register_kprobe() without CONFIG_KPROBES (the debug kernel) */
	self->no_kprobes = ret == -EOPNOTSUPP || ret == -ENOSYS;
	if (self->no_kprobes)
		return;
	ASSERT_EQ(0, ret) TH_LOG("%s: %s", KFAIL_KO, strerror(-ret));
	self->fd = uwprof_open_dev();
	ASSERT_LE(0, self->fd);
	fcntl(self->fd, F_SETFL, fcntl(self->fd, F_GETFL) | O_NONBLOCK);
	self->id = uwprof_upload(self->fd, blob, len, NULL);
	ASSERT_LT(0, self->id);
	self->pid = spawn_spinner();
	ASSERT_LT(0, self->pid);
	for (i = 0; i < 100 && thread_count(self->pid) < THREADS; i++)
		usleep(10000);
	ASSERT_EQ(THREADS, thread_count(self->pid));
	ASSERT_EQ(0, ioctl(self->fd, UWPROF_IOC_START, &st));
}

FIXTURE_TEARDOWN(ff)
{
	kfail_set("fail_at", 0);
	if (self->pid > 0) {
		kill(self->pid, SIGKILL);
		waitpid(self->pid, NULL, 0);
	}
	if (self->fd >= 0)
		close(self->fd);
}

static int do_attach(struct __test_metadata *_metadata, FIXTURE_DATA(ff) *self)
{
	return uwprof_attach(self->fd, self->pid, self->id, 0x10000, 0x200000);
}

/* The last thread's event fails: no entry, no sample, then a clean attach. */
TEST_F(ff, attach_fails_whole_when_one_thread_cannot_be_followed)
{
	long ms0[THREADS], ms1[THREADS], count[THREADS] = { 0 };
	double rate[THREADS], lo = 0, hi = 0;
	struct uwprof_stats a, b;
	pid_t tids[THREADS];
	int i;

	if (self->no_kprobes)
		SKIP(return, "this kernel has no kprobes (CONFIG_KPROBES): fault_test covers the path where it has fault injection");
	ASSERT_EQ(0, kfail_set("fail_tgid", getpid()));
	ASSERT_EQ(0, kfail_set("seen", 0));
	ASSERT_EQ(0, kfail_set("fail_at", THREADS));
	EXPECT_EQ(-EINVAL, do_attach(_metadata, self));
	ASSERT_EQ(0, kfail_set("fail_at", 0));
	EXPECT_EQ(0, list_count(self->fd, self->pid));
	/* the events made for the other threads went with the attach */
	ASSERT_EQ(0, uwprof_stats(self->fd, &a));
	usleep(300000);
	ASSERT_EQ(0, uwprof_stats(self->fd, &b));
	EXPECT_EQ(a.taken, b.taken);

	ASSERT_EQ(0, do_attach(_metadata, self));
	EXPECT_EQ(1, list_count(self->fd, self->pid));
	/*
	 * Every thread followed once: each takes as many samples per ms of
	 * its own CPU time as the others.  Events the failed attach left on
	 * the first threads would double theirs against the last one's.
	 */
	ASSERT_EQ(THREADS, tids_of(self->pid, tids));
	usleep(200000);
	drain(self->fd, tids, NULL);
	for (i = 0; i < THREADS; i++)
		ms0[i] = cpu_ms(self->pid, tids[i]);
	sleep(2);
	for (i = 0; i < THREADS; i++)
		ms1[i] = cpu_ms(self->pid, tids[i]);
	drain(self->fd, tids, count);
	for (i = 0; i < THREADS; i++) {
		ASSERT_LT(100, ms1[i] - ms0[i]);
		ASSERT_LT(0, count[i]);
		rate[i] = (double)count[i] / (ms1[i] - ms0[i]);
		TH_LOG("thread %d: %ld samples in %ld ms of its CPU time, %.3f a ms",
		       tids[i], count[i], ms1[i] - ms0[i], rate[i]);
		lo = i ? (rate[i] < lo ? rate[i] : lo) : rate[i];
		hi = i ? (rate[i] > hi ? rate[i] : hi) : rate[i];
	}
	EXPECT_GT(1.4, hi / lo);
}

TEST_HARNESS_MAIN
