// SPDX-License-Identifier: GPL-2.0
/*
 * Every ioctl with good and bad arguments, and the errno each documents
 * (uapi/uwprof.h, docs/ABI.md).
 */
#include <errno.h>
#include <stddef.h>
#include <linux/capability.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "unwind_v2.h"
#include "uwprof_util.h"

static const unsigned char finish[] = { 0xb0 };

FIXTURE(ioc) {
	int fd;
	unsigned char blob[64];
	size_t len;
};

FIXTURE_SETUP(ioc)
{
	ASSERT_EQ(0, uwprof_load());
	self->fd = uwprof_open_dev();
	ASSERT_LE(0, self->fd);
	self->len = uwprof_tiny_table(self->blob, finish, sizeof(finish));
}

FIXTURE_TEARDOWN(ioc)
{
	close(self->fd);
}

static pid_t spawn_sleeper(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		pause();
		_exit(0);
	}
	return pid;
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static int list_count(int fd, int pid)
{
	struct uwprof_list l = { .size = sizeof(l), .pid = pid };

	return ioctl(fd, UWPROF_IOC_LIST, &l) ? -errno : (int)l.count;
}

TEST_F(ioc, upload_valid_and_shared)
{
	unsigned char other[64], same_size[64];
	size_t olen = uwprof_tiny_table(other, (unsigned char[]){ 0x00, 0xb0 },
					2);
	int id1, id2, id3, id4;

	id1 = uwprof_upload(self->fd, self->blob, self->len, NULL);
	ASSERT_LT(0, id1);
	id2 = uwprof_upload(self->fd, self->blob, self->len, NULL);
	EXPECT_EQ(id1, id2);	/* identical bytes share one table */
	id3 = uwprof_upload(self->fd, other, olen, NULL);
	ASSERT_LT(0, id3);
	EXPECT_NE(id1, id3);
	/* the same size and header, other bytes: a table of its own */
	ASSERT_EQ(olen, uwprof_tiny_table(same_size,
					  (unsigned char[]){ 0x04, 0xb0 }, 2));
	id4 = uwprof_upload(self->fd, same_size, olen, NULL);
	ASSERT_LT(0, id4);
	EXPECT_NE(id3, id4);
	EXPECT_EQ(id4, uwprof_upload(self->fd, same_size, olen, NULL));
}

TEST_F(ioc, upload_bad_arguments)
{
	struct uwprof_table_upload up = {
		.size = sizeof(up), .data = (unsigned long)self->blob,
		.len = self->len, .flags = 1,
	};

	EXPECT_EQ(-1, ioctl(self->fd, UWPROF_IOC_TABLE_UPLOAD, &up));
	EXPECT_EQ(EINVAL, errno);
	up.flags = 0;
	up.data = 16;
	EXPECT_EQ(-1, ioctl(self->fd, UWPROF_IOC_TABLE_UPLOAD, &up));
	EXPECT_EQ(EFAULT, errno);
	up.size = 3;
	EXPECT_EQ(-1, ioctl(self->fd, UWPROF_IOC_TABLE_UPLOAD, &up));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(self->fd, UWPROF_IOC_TABLE_UPLOAD, (void *)16));
	EXPECT_EQ(EFAULT, errno);
}

TEST_F(ioc, upload_absurd_length)
{
	EXPECT_EQ(-EFBIG, uwprof_upload(self->fd, self->blob, 0xfffffff0,
					NULL));
}

/* The per-file byte cap: a second distinct table no longer fits. */
TEST(upload_cap_per_file)
{
	unsigned char a[64], b[64];
	size_t la = uwprof_tiny_table(a, finish, 1);
	size_t lb = uwprof_tiny_table(b, (unsigned char[]){ 0x00, 0xb0 }, 2);
	int fd;

	ASSERT_EQ(0, uwprof_load());
	ASSERT_EQ(0, uwprof_set_param("table_bytes_max", 60));
	fd = uwprof_open_dev();
	ASSERT_LE(0, fd);
	EXPECT_LT(0, uwprof_upload(fd, a, la, NULL));
	EXPECT_EQ(-ENOSPC, uwprof_upload(fd, b, lb, NULL));
	EXPECT_EQ(-EFBIG, uwprof_upload(fd, b, 61, NULL));
	close(fd);
	ASSERT_EQ(0, uwprof_set_param("table_bytes_max", 64 << 20));
}

/* The effective capabilities less CAP_SYS_PTRACE (@drop), or all permitted. */
static int set_effective_caps(bool drop)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = {};

	if (syscall(SYS_capget, &hdr, data))
		return -1;
	if (drop) {
		data[0].effective &= ~(1u << CAP_SYS_PTRACE);
	} else {
		data[0].effective = data[0].permitted;
		data[1].effective = data[1].permitted;
	}
	return syscall(SYS_capset, &hdr, data);
}

static int drop_ptrace_cap(void)
{
	return set_effective_caps(true);
}

/* After a setuid() with PR_SET_KEEPCAPS: what root could do, as another uid. */
static int raise_permitted_caps(void)
{
	return set_effective_caps(false);
}

/* Upload @blob on @fd; its id, or -errno; *result what the upload found. */
static int upload_result(int fd, const void *blob, size_t len,
			 unsigned int *result, unsigned int *verr)
{
	struct uwprof_table_upload up = {
		.size = sizeof(up), .data = (unsigned long)blob, .len = len,
	};
	int ret = ioctl(fd, UWPROF_IOC_TABLE_UPLOAD, &up);

	*result = up.result;
	if (verr)
		*verr = up.verr;
	return ret ? -errno : (int)up.table_id;
}

/* The module's gauge of kept table bytes, or -1. */
static long kept_bytes(void)
{
	return uwprof_get_param("table_kept_bytes");
}

/*
 * Wait for the gauge to read @want: a file's tables are kept a grace
 * period after its close, on the module's workqueue.  False if not
 * within 5 s.
 */
static bool kept_bytes_become(long want)
{
	int i;

	for (i = 0; i < 100 && kept_bytes() != want; i++)
		usleep(50000);
	return kept_bytes() == want;
}

/* Open a file, upload @blob, close it: the upload's result, or ~0u. */
static unsigned int upload_once(const void *blob, size_t len,
				unsigned int *verr)
{
	unsigned int result = ~0u;
	int fd = uwprof_open_dev();

	if (fd >= 0 && upload_result(fd, blob, len, &result, verr) < 0 &&
	    !verr)
		result = ~0u;
	close(fd);
	return result;
}

/*
 * A validated blob is kept after its file is freed, and the same owner's
 * next upload of the same bytes takes it without validation; other bytes
 * of the same size, and another user's upload of the same bytes, are
 * validated while it is kept; reclaim takes it back; table_keep_bytes 0
 * lets go of it at once and keeps no more.  The gauge tells each time
 * that the blob is kept.
 */
TEST(upload_kept_after_close)
{
	static const unsigned char uit[] = { 0x01, 0x02, 0x03, 0xb0 };
	unsigned char blob[64], bad[64];
	size_t len = uwprof_tiny_table(blob, uit, sizeof(uit));
	unsigned int result, verr;
	pid_t child;
	int fd, status;

	ASSERT_EQ(0, uwprof_load());
	/*
	 * Nothing kept from before, the earlier tests' files freed meanwhile
	 * (a grace period after their close) keeping nothing either: the
	 * first upload is validated, and the gauge counts this test's alone.
	 */
	ASSERT_EQ(0, uwprof_set_param("table_keep_bytes", 0));
	ASSERT_EQ(0, kept_bytes());
	usleep(1000000);
	ASSERT_EQ(0, uwprof_set_param("table_keep_bytes", 16 << 20));
	fd = uwprof_open_dev();
	ASSERT_LE(0, fd);
	ASSERT_LT(0, upload_result(fd, blob, len, &result, NULL));
	EXPECT_EQ(0, result);
	ASSERT_LT(0, upload_result(fd, blob, len, &result, NULL));
	EXPECT_EQ(UWPROF_UPLOAD_SAME, result);
	close(fd);
	ASSERT_TRUE(kept_bytes_become(len));
	/* one byte else, the same size: validated and refused, the kept one left */
	memcpy(bad, blob, len);
	bad[len - 1] = 0x9d;		/* reserved opcode, no finish */
	verr = 0;
	result = upload_once(bad, len, &verr);
	EXPECT_EQ(0, result & UWPROF_UPLOAD_KEPT);
	EXPECT_NE(0, verr);
	EXPECT_EQ(len, kept_bytes());
	/* another user's file: uid 65534 with root's capabilities kept */
	child = fork();
	if (child == 0) {
		if (prctl(PR_SET_KEEPCAPS, 1) || setgid(65534) ||
		    setuid(65534) || raise_permitted_caps())
			_exit(1);
		result = upload_once(blob, len, NULL);
		_exit(result == ~0u ? 2 : result & UWPROF_UPLOAD_KEPT ? 3 : 0);
	}
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	/* the owner's copy was there all along; the other user's kept too */
	ASSERT_TRUE(kept_bytes_become(2 * len));
	EXPECT_EQ(UWPROF_UPLOAD_KEPT, upload_once(blob, len, NULL));
	ASSERT_TRUE(kept_bytes_become(2 * len));
	/* a cache: reclaim takes it back (the shrinker, by drop_caches) */
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(2, write(fd, "2\n", 2));
	close(fd);
	EXPECT_EQ(0, kept_bytes());
	EXPECT_EQ(0, upload_once(blob, len, NULL));
	ASSERT_TRUE(kept_bytes_become(len));
	/* none kept: at once, and not after */
	ASSERT_EQ(0, uwprof_set_param("table_keep_bytes", 0));
	EXPECT_EQ(0, kept_bytes());
	EXPECT_EQ(0, upload_once(blob, len, NULL));
	usleep(500000);
	EXPECT_EQ(0, kept_bytes());
	ASSERT_EQ(0, uwprof_set_param("table_keep_bytes", 16 << 20));
}

/*
 * A recording that starts as the one before it closes finds that one's
 * tables kept: the first upload of the new file waits for the closed
 * file's free, a grace period away, rather than validate the bytes again.
 * The bytes are this test's own, so nothing else can have kept them.
 */
TEST(upload_kept_right_after_close)
{
	static const unsigned char uit[] = { 0x02, 0x01, 0x03, 0xb0 };
	unsigned char blob[64];
	size_t len = uwprof_tiny_table(blob, uit, sizeof(uit));
	unsigned int result;
	int fd, i;

	ASSERT_EQ(0, uwprof_load());
	ASSERT_EQ(0, uwprof_set_param("table_keep_bytes", 16 << 20));
	for (i = 0; i < 4; i++) {
		fd = uwprof_open_dev();
		ASSERT_LE(0, fd);
		ASSERT_LT(0, upload_result(fd, blob, len, &result, NULL));
		EXPECT_EQ(i ? UWPROF_UPLOAD_KEPT : 0, result)
			TH_LOG("upload %d of the same bytes", i);
		close(fd);
	}
}

/* One corrupted table per validation error the unwinder reports. */
struct corruption {
	const char *what;
	unsigned int hdr[8];
	unsigned char body[16];	/* bytes from offset 32 */
	size_t len;
	unsigned int verr;
};

static const struct corruption corruptions[] = {
	{ "short", { 32, 1, 36, 1, 40, 2, 42, 1 }, {}, 20, UW2_ERR_SHORT },
	{ "uit past end", { 32, 1, 36, 1, 40, 2, 42, 100 },
	  { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xb0 }, 43, UW2_ERR_BOUNDS },
	{ "tables overlap", { 32, 1, 32, 1, 40, 2, 42, 1 },
	  { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xb0 }, 43, UW2_ERR_OVERLAP },
	{ "page table unaligned", { 33, 1, 40, 1, 44, 2, 46, 1 },
	  { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xb0 }, 47,
	  UW2_ERR_ALIGN },
	{ "no pages", { 32, 0, 36, 1, 40, 2, 42, 1 },
	  { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xb0 }, 43, UW2_ERR_EMPTY },
	{ "first page not at function 0", { 32, 1, 36, 1, 40, 2, 42, 1 },
	  { 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xb0 }, 43, UW2_ERR_PAGE_FIRST },
	{ "first function not at 0", { 32, 1, 36, 1, 40, 2, 42, 1 },
	  { 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0xb0 }, 43, UW2_ERR_FUNC_FIRST },
	{ "fot index out of range", { 32, 1, 36, 1, 40, 2, 42, 1 },
	  { 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0xb0 }, 43, UW2_ERR_FOT_INDEX },
	{ "fot uleb runs off", { 32, 1, 36, 1, 40, 2, 42, 1 },
	  { 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x80, 0xb0 }, 43, UW2_ERR_FOT_TRUNC },
	{ "fot offsets increase", { 32, 1, 36, 1, 40, 4, 44, 1 },
	  { 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 2, 0, 0xb0 }, 45, UW2_ERR_FOT_ORDER },
	{ "uit index out of range", { 32, 1, 36, 1, 40, 2, 42, 1 },
	  { 0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0xb0 }, 43, UW2_ERR_UIT_INDEX },
	{ "reserved opcode", { 32, 1, 36, 1, 40, 2, 42, 2 },
	  { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x9d, 0xb0 }, 44, UW2_ERR_UIT_OPCODE },
	{ "no finish", { 32, 1, 36, 1, 40, 2, 42, 1 },
	  { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x00 }, 43, UW2_ERR_UIT_TRUNC },
};

TEST_F(ioc, upload_corrupted_tables)
{
	unsigned char blob[64];
	unsigned int verr, i;

	for (i = 0; i < sizeof(corruptions) / sizeof(corruptions[0]); i++) {
		const struct corruption *c = &corruptions[i];

		memcpy(blob, c->hdr, 32);
		memcpy(blob + 32, c->body, sizeof(c->body));
		verr = 0;
		EXPECT_EQ(-EINVAL, uwprof_upload(self->fd, blob, c->len, &verr))
			TH_LOG("%s", c->what);
		EXPECT_EQ(c->verr, verr) TH_LOG("%s", c->what);
	}
}

TEST_F(ioc, attach_errors)
{
	int id = uwprof_upload(self->fd, self->blob, self->len, NULL);
	pid_t dead = spawn_sleeper(), child;

	ASSERT_LT(0, id);
	reap(dead);
	EXPECT_EQ(-ESRCH, uwprof_attach(self->fd, dead, id, 0x1000, 0x2000));
	EXPECT_EQ(-ESRCH, uwprof_attach(self->fd, 0, id, 0x1000, 0x2000));
	EXPECT_EQ(-ESRCH, uwprof_attach(self->fd, -5, id, 0x1000, 0x2000));
	child = spawn_sleeper();
	EXPECT_EQ(-ENOENT, uwprof_attach(self->fd, child, id + 100, 0x1000,
					 0x2000));
	EXPECT_EQ(-EINVAL, uwprof_attach(self->fd, child, id, 0x2000, 0x2000));
	EXPECT_EQ(0, uwprof_attach(self->fd, child, id, 0x1000, 0x2000));
	EXPECT_EQ(-EEXIST, uwprof_attach(self->fd, child, id, 0x1800, 0x2800));
	EXPECT_EQ(0, uwprof_attach(self->fd, child, id, 0x2000, 0x3000));
	EXPECT_EQ(2, list_count(self->fd, child));
	reap(child);
}

static int follow(int fd, int pid, int table_id, unsigned int start,
		  unsigned int end)
{
	struct uwprof_attach a = {
		.size = sizeof(a), .pid = pid, .table_id = table_id,
		.text_start = start, .text_end = end,
		.flags = UWPROF_ATTACH_FOLLOW,
	};

	return ioctl(fd, UWPROF_IOC_ATTACH, &a) ? -errno : 0;
}

/* UWPROF_ATTACH_FOLLOW: followed with nothing attached; no table or range. */
TEST_F(ioc, attach_follow)
{
	int id = uwprof_upload(self->fd, self->blob, self->len, NULL);
	pid_t dead = spawn_sleeper(), child = spawn_sleeper();

	ASSERT_LT(0, id);
	reap(dead);
	EXPECT_EQ(-ESRCH, follow(self->fd, dead, 0, 0, 0));
	EXPECT_EQ(-EINVAL, follow(self->fd, child, id, 0, 0));
	EXPECT_EQ(-EINVAL, follow(self->fd, child, 0, 0x1000, 0x2000));
	EXPECT_EQ(0, follow(self->fd, child, 0, 0, 0));
	EXPECT_EQ(0, list_count(self->fd, child));
	/* a table attached afterwards goes to the same entry */
	EXPECT_EQ(0, uwprof_attach(self->fd, child, id, 0x1000, 0x2000));
	EXPECT_EQ(1, list_count(self->fd, child));
	reap(child);
}

TEST_F(ioc, attach_kernel_thread_refused)
{
	int id = uwprof_upload(self->fd, self->blob, self->len, NULL);

	/* pid 2 is kthreadd: no user memory to sample */
	EXPECT_EQ(-ESRCH, uwprof_attach(self->fd, 2, id, 0x1000, 0x2000));
}

/*
 * Without CAP_SYS_PTRACE, another user's process cannot be attached; what
 * counts is the opener's credentials, not the caller's: a file opened with
 * the capability keeps it, one opened without it never has it.
 */
TEST_F(ioc, attach_needs_ptrace_read)
{
	int id = uwprof_upload(self->fd, self->blob, self->len, NULL);
	pid_t other = fork(), checker;
	int status;

	if (other == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(1);
		pause();
		_exit(0);
	}
	usleep(100000);
	checker = fork();
	if (checker == 0) {
		int fd, mine;

		if (drop_ptrace_cap())
			_exit(200);
		/* its own file, opened without the capability */
		fd = uwprof_open_dev();
		mine = uwprof_upload(fd, self->blob, self->len, NULL);
		if (fd < 0 || mine < 0)
			_exit(201);
		if (uwprof_attach(fd, other, mine, 0x1000, 0x2000) != -EACCES)
			_exit(202);
		/* the file opened with it: the opener's credentials count */
		_exit(-uwprof_attach(self->fd, other, id, 0x1000, 0x2000));
	}
	ASSERT_EQ(checker, waitpid(checker, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(1, list_count(self->fd, other));
	reap(other);
}

TEST_F(ioc, list_and_detach)
{
	int id = uwprof_upload(self->fd, self->blob, self->len, NULL);
	struct uwprof_attachment e[4];
	struct uwprof_list l = {
		.size = sizeof(l), .entries = (unsigned long)e, .count = 1,
	};
	struct uwprof_detach d = { .size = sizeof(d) };
	pid_t a = spawn_sleeper(), b = spawn_sleeper();

	ASSERT_EQ(0, uwprof_attach(self->fd, a, id, 0x1000, 0x2000));
	ASSERT_EQ(0, uwprof_attach(self->fd, b, id, 0x5000, 0x6000));
	ASSERT_EQ(0, ioctl(self->fd, UWPROF_IOC_LIST, &l));
	EXPECT_EQ(2, l.count);	/* room for one, two exist */
	l.pid = b;
	l.count = 4;
	ASSERT_EQ(0, ioctl(self->fd, UWPROF_IOC_LIST, &l));
	ASSERT_EQ(1, l.count);
	EXPECT_EQ(b, e[0].pid);
	EXPECT_EQ(id, e[0].table_id);
	EXPECT_EQ(0x5000, e[0].text_start);
	EXPECT_EQ(0x6000, e[0].text_end);
	l.entries = 16;
	EXPECT_EQ(-1, ioctl(self->fd, UWPROF_IOC_LIST, &l));
	EXPECT_EQ(EFAULT, errno);

	d.pid = b;
	/* inside the range is not its start: nothing is detached */
	d.text_start = 0x5800;
	EXPECT_EQ(-1, ioctl(self->fd, UWPROF_IOC_DETACH, &d));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(1, list_count(self->fd, b));
	d.text_start = 0x5000;
	EXPECT_EQ(0, ioctl(self->fd, UWPROF_IOC_DETACH, &d));
	EXPECT_EQ(-1, ioctl(self->fd, UWPROF_IOC_DETACH, &d));
	EXPECT_EQ(ENOENT, errno);
	d.pid = 999999;
	EXPECT_EQ(-1, ioctl(self->fd, UWPROF_IOC_DETACH, &d));
	EXPECT_EQ(ESRCH, errno);
	EXPECT_EQ(0, list_count(self->fd, b));
	EXPECT_EQ(1, list_count(self->fd, 0));
	reap(a);
	reap(b);
}

/* Attachments end when the process exits, and when it execs. */
TEST_F(ioc, exit_and_exec_end_attachments)
{
	int id = uwprof_upload(self->fd, self->blob, self->len, NULL);
	int go[2];
	pid_t a = spawn_sleeper(), b;
	char c = 0;

	ASSERT_EQ(0, pipe(go));
	b = fork();
	if (b == 0) {
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		execl("/bin/busybox", "sleep", "30", NULL);
		_exit(1);
	}
	ASSERT_EQ(0, uwprof_attach(self->fd, a, id, 0x1000, 0x2000));
	ASSERT_EQ(0, uwprof_attach(self->fd, b, id, 0x1000, 0x2000));
	EXPECT_EQ(2, list_count(self->fd, 0));
	reap(a);
	EXPECT_EQ(1, list_count(self->fd, 0));
	ASSERT_EQ(1, write(go[1], &c, 1));
	usleep(300000);		/* let it exec */
	EXPECT_EQ(0, list_count(self->fd, 0));
	/* a new attachment to the new image works */
	EXPECT_EQ(0, uwprof_attach(self->fd, b, id, 0x1000, 0x2000));
	EXPECT_EQ(1, list_count(self->fd, b));
	reap(b);
}

TEST_F(ioc, start_stop_rules)
{
	struct uwprof_start st = { .size = sizeof(st) };

	EXPECT_EQ(-EINVAL, uwprof_start(self->fd, 0));
	EXPECT_EQ(-EINVAL, uwprof_start(self->fd, 10001));
	st.freq_hz = 100;
	st.flags = 8;
	EXPECT_EQ(-1, ioctl(self->fd, UWPROF_IOC_START, &st));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(self->fd, UWPROF_IOC_STOP));
	EXPECT_EQ(EALREADY, errno);
	EXPECT_EQ(0, uwprof_start(self->fd, 10000));
	EXPECT_EQ(-EBUSY, uwprof_start(self->fd, 100));
	EXPECT_EQ(0, ioctl(self->fd, UWPROF_IOC_STOP));
	EXPECT_EQ(-1, ioctl(self->fd, UWPROF_IOC_STOP));
	EXPECT_EQ(EALREADY, errno);
	EXPECT_EQ(0, uwprof_start(self->fd, 1));
	/* closing while sampling is the normal way to end */
}

TEST_F(ioc, stats_and_nonblocking_read)
{
	struct uwprof_stats st;
	char buf[256];
	int flags = fcntl(self->fd, F_GETFL);

	ASSERT_EQ(0, uwprof_stats(self->fd, &st));
	EXPECT_EQ(0, st.taken);
	EXPECT_EQ(-1, ioctl(self->fd, UWPROF_IOC_STATS, (void *)16));
	EXPECT_EQ(EFAULT, errno);
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, flags | O_NONBLOCK));
	EXPECT_EQ(-1, read(self->fd, buf, sizeof(buf)));
	EXPECT_EQ(EAGAIN, errno);
}

/*
 * A caller built before the struct grew: its command carries its own,
 * smaller size, and the module writes no byte past it.
 */
TEST_F(ioc, stats_of_an_older_caller)
{
	const size_t old_size = offsetof(struct uwprof_stats, procs);
	union {
		struct uwprof_stats st;
		unsigned char raw[sizeof(struct uwprof_stats)];
	} u;
	unsigned int old_cmd = _IOC(_IOC_READ | _IOC_WRITE, UWPROF_IOC_MAGIC,
				    _IOC_NR(UWPROF_IOC_STATS), old_size);

	ASSERT_NE(UWPROF_IOC_STATS, old_cmd);
	memset(&u, 0xab, sizeof(u));
	u.st.size = old_size;
	ASSERT_EQ(0, ioctl(self->fd, old_cmd, &u));
	EXPECT_EQ(0, u.st.taken);
	EXPECT_EQ(0, u.st.followed);
	for (size_t i = old_size; i < sizeof(u); i++)
		ASSERT_EQ(0xab, u.raw[i]);
	/* and the new fields, to a caller that has them */
	ASSERT_EQ(0, uwprof_stats(self->fd, &u.st));
	EXPECT_EQ(0, u.st.procs);
	EXPECT_EQ(0, u.st.proc_bytes);
	EXPECT_EQ(UWPROF_STATS_LOOKUPS, u.st.flags);
	EXPECT_EQ(0, u.st.lookup_pc_hits + u.st.lookup_ra_misses);
}

TEST_HARNESS_MAIN
