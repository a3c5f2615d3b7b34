// SPDX-License-Identifier: GPL-2.0
/*
 * 64-bit processes on an arm64 kernel: v2 tables describe 32-bit code only,
 * so attaching one is refused (ENOEXEC), and the samples of an attached
 * 32-bit process that exec'd a 64-bit program are counted as dropped_not32,
 * never unwound.  The 64-bit program is spin64 (no C library).  On a 32-bit
 * kernel it cannot run (ENOEXEC) and these tests say they are skipped; on
 * an arm64 kernel, which exists to run them, any failure to start it is a
 * failure.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "uwprof_util.h"

#define SPIN64 "/selftests/spin64"

static const unsigned char finish[] = { 0xb0 };

/*
 * Shares the mm of the process that cloned it, and so keeps that mm alive
 * after the process execs, until the process exits.  It closes its copy of
 * the exec-status pipe @arg, or the reader would never see its end.
 */
static int hold_mm(void *arg)
{
	close((int)(long)arg);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (;;)
		pause();
	return 0;
}

/*
 * A child that runs spin64 once @go_fd (if not -1) has a byte, first
 * starting a holder of its 32-bit mm if @hold.  Returns its pid, or -errno
 * (ENOEXEC on a 32-bit kernel) if the exec failed.  With @status_fd the
 * caller reads the exec's outcome there itself, after the go.
 */
static pid_t spawn_spin64(int go_fd, bool hold, int *status_fd)
{
	static char stack[16384] __attribute__((aligned(16)));
	int p[2], e = 0;
	char c;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid == 0) {
		if (hold && clone(hold_mm, stack + sizeof(stack),
				  CLONE_VM | SIGCHLD, (void *)(long)p[1]) < 0)
			_exit(1);
		if (go_fd >= 0 && read(go_fd, &c, 1) != 1)
			_exit(1);
		execl(SPIN64, "spin64", NULL);
		e = errno;
		write(p[1], &e, sizeof(e));
		_exit(1);
	}
	close(p[1]);
	if (status_fd) {
		*status_fd = p[0];
		return pid;
	}
	if (read(p[0], &e, sizeof(e)) == sizeof(e)) {
		waitpid(pid, NULL, 0);
		pid = -e;
	}
	close(p[0]);
	return pid;
}

/* The exec's errno after a go: 0 if spin64 runs. */
static int exec_outcome(int status_fd)
{
	int e = 0;

	if (read(status_fd, &e, sizeof(e)) != sizeof(e))
		e = 0;
	close(status_fd);
	return e;
}

/*
 * The kernel's machine, as uname gives it to this 32-bit program: aarch64,
 * or armv8l under the 32-bit personality, on an arm64 kernel.
 */
static bool kernel_is_64bit(void)
{
	struct utsname u;

	return uname(&u) == 0 && (!strcmp(u.machine, "aarch64") ||
				  !strcmp(u.machine, "armv8l"));
}

/*
 * spin64 did not start (@err): the test is skipped only on a 32-bit
 * kernel that refused it as it must (ENOEXEC); anything else fails it.
 */
#define NEED_SPIN64(err, ...) do { \
	ASSERT_FALSE(kernel_is_64bit()) \
		TH_LOG("%s does not start on this arm64 kernel: %s", SPIN64, strerror(err)); \
	ASSERT_EQ(ENOEXEC, err) \
		TH_LOG("%s: %s (make selftests builds it)", SPIN64, strerror(err)); \
	__VA_ARGS__; \
	SKIP(return, "64-bit programs cannot run on a 32-bit kernel (exec of %s: %s)", \
	     SPIN64, strerror(err)); \
} while (0)

static int upload_tiny(int fd)
{
	unsigned char blob[64];
	size_t len = uwprof_tiny_table(blob, finish, sizeof(finish));

	return uwprof_upload(fd, blob, len, NULL);
}

TEST(attach_64bit_process_refused)
{
	unsigned int start = 0x1000, end = 0x2000;
	struct uwprof_list l = { .size = sizeof(l) };
	char pid_s[16];
	pid_t pid;
	int fd, id;

	ASSERT_EQ(0, uwprof_load());
	pid = spawn_spin64(-1, false, NULL);
	if (pid < 0)
		NEED_SPIN64(-pid);
	fd = uwprof_open_dev();
	ASSERT_LE(0, fd);
	id = upload_tiny(fd);
	ASSERT_LT(0, id);
	snprintf(pid_s, sizeof(pid_s), "%d", pid);
	EXPECT_EQ(0, uwprof_text_of(pid_s, &start, &end));
	EXPECT_EQ(-ENOEXEC, uwprof_attach(fd, pid, id, start, end));
	/* A 32-bit process still attaches: the refusal is the 64-bit one's. */
	ASSERT_EQ(0, uwprof_text_of("self", &start, &end));
	EXPECT_EQ(0, uwprof_attach(fd, getpid(), id, start, end));
	ASSERT_EQ(0, ioctl(fd, UWPROF_IOC_LIST, &l));
	EXPECT_EQ(1, l.count);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(fd);
}

/*
 * A 32-bit process attached and sampled (@flags: per CPU, or per task) that
 * then execs spin64.  Its entry is kept by the holder of its old mm (an
 * entry is reaped once its mm has no users), so every later sample of it is
 * a 64-bit one of an attached process: each must be counted as
 * dropped_not32 and none unwound with the 32-bit table.
 */
static void exec_64bit_while_sampled(struct __test_metadata *_metadata,
				     unsigned int flags)
{
	struct uwprof_start st = { .size = sizeof(st), .freq_hz = 1000,
				   .flags = flags };
	struct uwprof_stats before, after;
	struct uwprof_list l = { .size = sizeof(l) };
	unsigned int start, end;
	int fd, id, go[2], status_fd, e;
	pid_t x;

	ASSERT_EQ(0, uwprof_load());
	ASSERT_EQ(0, pipe(go));
	x = spawn_spin64(go[0], true, &status_fd);
	ASSERT_LT(0, x);
	close(go[0]);
	fd = uwprof_open_dev();
	ASSERT_LE(0, fd);
	id = upload_tiny(fd);
	ASSERT_LT(0, id);
	ASSERT_EQ(0, uwprof_text_of("self", &start, &end));	/* x is a fork of us */
	ASSERT_EQ(0, uwprof_attach(fd, x, id, start, end));
	ASSERT_EQ(0, ioctl(fd, UWPROF_IOC_START, &st));
	ASSERT_EQ(0, uwprof_stats(fd, &before));
	ASSERT_EQ(1, write(go[1], "g", 1));
	e = exec_outcome(status_fd);
	if (e)
		NEED_SPIN64(e, waitpid(x, NULL, 0); close(fd));
	usleep(500000);
	ASSERT_EQ(0, uwprof_stats(fd, &after));
	ASSERT_EQ(0, ioctl(fd, UWPROF_IOC_LIST, &l));
	kill(x, SIGKILL);
	waitpid(x, NULL, 0);
	ASSERT_EQ(0, ioctl(fd, UWPROF_IOC_STOP));
	close(fd);
	TH_LOG("after the exec: %llu dropped_not32, %llu taken",
	       (unsigned long long)(after.dropped_not32 - before.dropped_not32),
	       (unsigned long long)(after.taken - before.taken));
	EXPECT_EQ(1, l.count);	/* the entry lives on with the old mm */
	EXPECT_LT(0, after.dropped_not32 - before.dropped_not32);
	/* x ran 32-bit code for a moment only: nearly every sample is 64-bit */
	EXPECT_LT(after.taken - before.taken,
		  after.dropped_not32 - before.dropped_not32);
}

TEST(exec_64bit_counted_per_cpu)
{
	exec_64bit_while_sampled(_metadata, 0);
}

TEST(exec_64bit_counted_per_task)
{
	exec_64bit_while_sampled(_metadata, UWPROF_START_PER_TASK);
}

TEST_HARNESS_MAIN
