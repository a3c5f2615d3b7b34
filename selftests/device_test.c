// SPDX-License-Identifier: GPL-2.0
/*
 * The device itself: loading, opening, permissions, the ABI-version ioctl
 * and its struct-size rules, the module's perf PMU, and unloading.
 */
#include <errno.h>
#include <linux/capability.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "uwprof_util.h"

FIXTURE(dev) {
	int fd;
};

FIXTURE_SETUP(dev)
{
	ASSERT_EQ(0, uwprof_load());
	self->fd = uwprof_open_dev();
	ASSERT_LE(0, self->fd) TH_LOG("open: %s", strerror(errno));
}

FIXTURE_TEARDOWN(dev)
{
	close(self->fd);
}

TEST_F(dev, version)
{
	struct uwprof_version v = { .size = sizeof(v) };

	ASSERT_EQ(0, ioctl(self->fd, UWPROF_IOC_VERSION, &v));
	EXPECT_EQ(UWPROF_ABI_VERSION, v.abi_version);
	EXPECT_EQ(2, v.table_format);
	EXPECT_EQ(sizeof(v), v.size);
}

/* An older caller with a shorter struct gets only what it has room for. */
TEST_F(dev, version_short_struct)
{
	struct uwprof_version v[2];

	memset(v, 0xaa, sizeof(v));
	v[0].size = 8;
	ASSERT_EQ(0, ioctl(self->fd, UWPROF_IOC_VERSION, &v[0]));
	EXPECT_EQ(UWPROF_ABI_VERSION, v[0].abi_version);
	EXPECT_EQ(0xaaaaaaaa, v[0].table_format);
}

TEST_F(dev, version_size_too_small)
{
	struct uwprof_version v = { .size = 2 };

	EXPECT_EQ(-1, ioctl(self->fd, UWPROF_IOC_VERSION, &v));
	EXPECT_EQ(EINVAL, errno);
}

/* A newer caller's extra fields must be zero: they mean nothing to us. */
TEST_F(dev, version_longer_struct)
{
	struct {
		struct uwprof_version v;
		__u32 newer;
	} big = { .v.size = sizeof(big) };

	EXPECT_EQ(0, ioctl(self->fd, UWPROF_IOC_VERSION, &big));
	big.newer = 1;
	EXPECT_EQ(-1, ioctl(self->fd, UWPROF_IOC_VERSION, &big));
	EXPECT_EQ(E2BIG, errno);
}

TEST_F(dev, version_bad_pointer)
{
	EXPECT_EQ(-1, ioctl(self->fd, UWPROF_IOC_VERSION, (void *)16));
	EXPECT_EQ(EFAULT, errno);
}

TEST_F(dev, unknown_ioctl)
{
	EXPECT_EQ(-1, ioctl(self->fd, _IO(UWPROF_IOC_MAGIC, 0x7f), 0));
	EXPECT_EQ(ENOTTY, errno);
}

TEST(device_node_is_root_only)
{
	struct stat st;

	ASSERT_EQ(0, uwprof_load());
	ASSERT_EQ(0, stat(UWPROF_DEVICE, &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(0600, st.st_mode & 07777);
}

/* Drop every capability but keep uid 0, so only our own check can refuse. */
static int drop_all_caps(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = {};

	return syscall(SYS_capset, &hdr, data);
}

static int open_errno_in_child(int (*prepare)(void))
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		if (prepare())
			_exit(200);
		_exit(uwprof_open_dev() < 0 ? errno : 0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

TEST(open_without_perfmon_is_refused)
{
	ASSERT_EQ(0, uwprof_load());
	EXPECT_EQ(EPERM, open_errno_in_child(drop_all_caps));
}

static int become_nobody(void)
{
	return setgid(65534) || setuid(65534);
}

TEST(open_as_other_user_is_refused)
{
	ASSERT_EQ(0, uwprof_load());
	EXPECT_EQ(EACCES, open_errno_in_child(become_nobody));
}

#define UWPROF_PMU_TYPE "/sys/bus/event_source/devices/uwprof/type"

static int open_pmu_event(long type, __u64 config, __u64 period)
{
	struct perf_event_attr attr = {
		.type = type,
		.size = sizeof(attr),
		.config = config,
		.sample_period = period,
	};

	return syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0);
}

/*
 * The sampling clock is a PMU of the module's own (pmu.c); its events are
 * the module's alone: root's perf_event_open() of it, sampling or
 * counting, is refused.  The PMU goes with the module.
 */
TEST(pmu_is_the_modules_alone)
{
	struct stat st;
	long type;
	int fd;

	ASSERT_EQ(0, uwprof_load());
	type = uwprof_read_long(UWPROF_PMU_TYPE);
	ASSERT_LT(0, type) TH_LOG("no %s", UWPROF_PMU_TYPE);
	fd = open_pmu_event(type, 0, 1000000);
	EXPECT_EQ(-1, fd);
	EXPECT_EQ(ENOENT, errno) TH_LOG("sampling: %s", strerror(errno));
	if (fd >= 0)
		close(fd);
	fd = open_pmu_event(type, 0, 0);
	EXPECT_EQ(-1, fd);
	EXPECT_EQ(ENOENT, errno) TH_LOG("counting: %s", strerror(errno));
	if (fd >= 0)
		close(fd);
	ASSERT_EQ(0, uwprof_unload());
	EXPECT_EQ(-1, stat(UWPROF_PMU_TYPE, &st));
	ASSERT_EQ(0, uwprof_load());
}

TEST(unload_refused_while_open_then_clean)
{
	struct stat st;
	int fd;

	ASSERT_EQ(0, uwprof_load());
	fd = uwprof_open_dev();
	ASSERT_LE(0, fd);
	EXPECT_EQ(-EWOULDBLOCK, uwprof_unload());
	close(fd);
	ASSERT_EQ(0, uwprof_unload());
	EXPECT_EQ(-1, stat(UWPROF_DEVICE, &st));
	EXPECT_EQ(ENOENT, errno);
	/* and it comes back for the tests after this one */
	ASSERT_EQ(0, uwprof_load());
	EXPECT_EQ(0, stat(UWPROF_DEVICE, &st));
}

TEST_HARNESS_MAIN
