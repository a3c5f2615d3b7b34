// SPDX-License-Identifier: GPL-2.0
/*
 * Processes as they live: children of a followed process are followed
 * (START_INHERIT, per CPU and per task), START_ALL follows a process
 * nobody attached, an exec into a static program is unwound with its table
 * uploaded by build-id (the module attaches it itself, the first sample in
 * task context), munmap ends an attachment, and the new arguments are
 * checked.  The exec tests use chain-gcc-thumb-{static,dynamic}_test and
 * the tables of those and of libc.so.6 (<file>.uwt beside this program,
 * made at build time).
 */
#include <errno.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>

#include "kselftest_harness.h"
#include "lib/uwt.h"
#include "uwprof_util.h"

#define CHAIN_PROG	"chain-gcc-thumb-static_test"
#define CHAIN_DYN_PROG	"chain-gcc-thumb-dynamic_test"

static const unsigned char finish[] = { 0xb0 };

static void spin_clock_ms(clockid_t clock, int ms)
{
	struct timespec t0, t;

	clock_gettime(clock, &t0);
	do {
		clock_gettime(clock, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 +
		 (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

static void spin_ms(int ms)
{
	spin_clock_ms(CLOCK_MONOTONIC, ms);
}

/* @ms of CPU time: as many samples however busy the machine is. */
static void spin_cpu_ms(int ms)
{
	spin_clock_ms(CLOCK_THREAD_CPUTIME_ID, ms);
}

static int open_nonblock(void)
{
	int fd = uwprof_open_dev();

	if (fd >= 0)
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	return fd;
}

static int tiny_id(int fd)
{
	unsigned char blob[64];
	size_t len = uwprof_tiny_table(blob, finish, sizeof(finish));

	return uwprof_upload(fd, blob, len, NULL);
}

static int start_flags(int fd, unsigned int hz, unsigned int flags)
{
	struct uwprof_start st = {
		.size = sizeof(st), .freq_hz = hz, .flags = flags,
	};

	return ioctl(fd, UWPROF_IOC_START, &st) ? -errno : 0;
}

/* Attachments of @pid (0: all). */
static int list_count(int fd, pid_t pid)
{
	struct uwprof_list l = { .size = sizeof(l), .pid = pid };

	return ioctl(fd, UWPROF_IOC_LIST, &l) ? -errno : (int)l.count;
}

struct seen {
	pid_t pid;
	int records, with_frames, deferred, root, bad;
	int first_flags;	/* flags of its earliest record */
	int verbose;		/* print (20 of) the records not unwound to the root */
	unsigned long long since;	/* CLOCK_MONOTONIC: "late" from here */
	int late, late_root;
	unsigned long long first_time;
};

/* Read what is there; count the records of each pid in @ps[0..n). */
static void drain(int fd, struct seen *ps, int n)
{
	static char buf[1 << 16];
	ssize_t len;
	char *p;
	int i;

	while ((len = read(fd, buf, sizeof(buf))) > 0) {
		for (p = buf; p < buf + len; p += ((struct uwprof_record *)p)->size) {
			struct uwprof_record *r = (void *)p;

			if (r->size < sizeof(*r) || r->size % 8) {
				ps[0].bad++;
				break;
			}
			for (i = 0; i < n; i++) {
				struct seen *s = &ps[i];

				if ((__u32)s->pid != r->pid)
					continue;
				if (!s->records || r->time_ns < s->first_time) {
					s->first_time = r->time_ns;
					s->first_flags = r->flags;
				}
				s->records++;
				s->with_frames += r->nframes > 0;
				s->deferred += !!(r->flags & UWPROF_RF_DEFERRED);
				if (r->time_ns >= s->since)
					s->late++;
				if (r->stop == UWPROF_STOP_ROOT ||
				    r->stop == UWPROF_STOP_NORETURN) {
					s->root++;
					s->late_root += r->time_ns >= s->since;
				}
				else if (s->verbose && s->verbose++ <= 20)
					printf("#   stop %u flags %u frames %u pc %#x\n",
					       r->stop, r->flags, r->nframes,
					       r->frames[0]);
			}
		}
	}
}

/* Children of a followed process, and theirs, are sampled as themselves. */
static void children_followed(struct __test_metadata *_metadata,
			      unsigned int flags)
{
	struct seen ps[4] = { { 0 } };
	struct uwprof_stats st;
	int fd, i, go[2], pids[2];
	pid_t parent;
	char c;

	ASSERT_EQ(0, uwprof_load());
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(pids));
	/*
	 * The parent forks two spinners and one that forks a grandchild.  It
	 * is forked before the device is opened, so no process of the test
	 * keeps the file open if the test fails.
	 */
	parent = fork();
	if (parent == 0) {
		pid_t kids[3];
		int k;

		if (read(go[0], &c, 1) != 1)
			_exit(1);
		for (k = 0; k < 3; k++) {
			kids[k] = fork();
			if (kids[k] == 0) {
				if (k == 2 && fork() == 0) {
					spin_cpu_ms(300);
					_exit(0);
				}
				spin_cpu_ms(300);
				while (wait(NULL) > 0)
					;
				_exit(0);
			}
			if (write(pids[1], &kids[k], sizeof(kids[k])) < 0)
				_exit(1);
		}
		while (wait(NULL) > 0)
			;
		_exit(0);
	}
	fd = open_nonblock();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, uwprof_attach(fd, parent, tiny_id(fd), 0x1000, 0x2000));
	ASSERT_EQ(0, start_flags(fd, 1000, UWPROF_START_INHERIT | flags));
	c = 'g';
	ASSERT_EQ(1, write(go[1], &c, 1));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(sizeof(pid_t), read(pids[0], &ps[i].pid, sizeof(pid_t)));
	ps[3].pid = parent;
	waitpid(parent, NULL, 0);
	ASSERT_EQ(0, ioctl(fd, UWPROF_IOC_STOP));
	usleep(100000);
	drain(fd, ps, 4);
	ASSERT_EQ(0, uwprof_stats(fd, &st));
	EXPECT_EQ(0, ps[0].bad);
	printf("# children %d %d %d records; followed %llu, deferred %llu, failed %llu\n",
	       ps[0].records, ps[1].records, ps[2].records,
	       (unsigned long long)st.followed,
	       (unsigned long long)st.deferred,
	       (unsigned long long)st.deferred_failed);
	for (i = 0; i < 3; i++) {
		EXPECT_LT(20, ps[i].records) TH_LOG("child %d", i);
		EXPECT_EQ(ps[i].records, ps[i].with_frames);
	}
	/* three children and the grandchild */
	EXPECT_LE(4, st.followed);
	EXPECT_EQ(st.taken, st.delivered + st.dropped_full);
	close(fd);
}

TEST(inherit_follows_children_per_cpu)
{
	children_followed(_metadata, 0);
}

TEST(inherit_follows_children_per_task)
{
	children_followed(_metadata, UWPROF_START_PER_TASK);
}

/*
 * Per task, a child whose parent exits before the child's first sample is
 * reparented, so no parent chain leads to a followed process any more; the
 * event it inherited still marks it as a descendant.
 */
TEST(orphan_followed_per_task)
{
	struct seen ps[1] = { { 0 } };
	struct uwprof_stats st;
	int fd, pids[2];
	pid_t parent;

	ASSERT_EQ(0, uwprof_load());
	ASSERT_EQ(0, pipe(pids));
	parent = fork();
	if (parent == 0) {
		pid_t self = getpid(), kid;

		usleep(100000);		/* until the events are there */
		kid = fork();
		if (kid == 0) {
			while (getppid() == self)	/* asleep: no sample */
				usleep(5000);
			spin_cpu_ms(300);
			_exit(0);
		}
		if (write(pids[1], &kid, sizeof(kid)) < 0)
			_exit(1);
		_exit(0);
	}
	fd = open_nonblock();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, uwprof_attach(fd, parent, tiny_id(fd), 0x1000, 0x2000));
	ASSERT_EQ(0, start_flags(fd, 1000, UWPROF_START_INHERIT |
				 UWPROF_START_PER_TASK));
	ASSERT_EQ(sizeof(pid_t), read(pids[0], &ps[0].pid, sizeof(pid_t)));
	waitpid(parent, NULL, 0);
	/* the orphan's 300 ms of CPU; the test's own is not sampled */
	while (kill(ps[0].pid, 0) == 0 && ps[0].records < 100) {
		usleep(50000);
		drain(fd, ps, 1);
	}
	ASSERT_EQ(0, ioctl(fd, UWPROF_IOC_STOP));
	drain(fd, ps, 1);
	ASSERT_EQ(0, uwprof_stats(fd, &st));
	printf("# orphan %d: %d records; followed %llu\n", ps[0].pid,
	       ps[0].records, (unsigned long long)st.followed);
	EXPECT_LT(20, ps[0].records);
	EXPECT_EQ(ps[0].records, ps[0].with_frames);
	EXPECT_LE(1, st.followed);
	close(fd);
}

/*
 * A parent, forked before the device is opened (it must not keep the
 * file), that on a byte from @go forks a child spending 300 ms of CPU
 * (after a second byte, with @kid_waits), writes the child's pid to @pids
 * and waits for it.  Its pid, or -1.
 */
static pid_t parent_of_spinner(int go, int pids, bool kid_waits)
{
	pid_t parent = fork(), kid;
	char c;

	if (parent)
		return parent;
	if (read(go, &c, 1) != 1)
		_exit(1);
	kid = fork();
	if (kid == 0) {
		if (kid_waits && read(go, &c, 1) != 1)
			_exit(1);
		spin_cpu_ms(300);
		_exit(0);
	}
	if (write(pids, &kid, sizeof(kid)) < 0)
		_exit(1);
	waitpid(kid, NULL, 0);
	_exit(0);
}

/*
 * Per task, attaching a child that inherited its parent's event (as a
 * recorder that attaches every process it sees would) must not give it a
 * second one: 300 ms of its CPU are about 300 samples at 1 kHz, not 600.
 */
TEST(attached_child_sampled_once_per_task)
{
	struct seen ps[1] = { { 0 } };
	int fd, go[2], pids[2];
	pid_t parent;
	char c;

	ASSERT_EQ(0, uwprof_load());
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(pids));
	parent = parent_of_spinner(go[0], pids[1], true);
	ASSERT_LT(0, parent);
	fd = open_nonblock();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, uwprof_attach(fd, parent, tiny_id(fd), 0x1000, 0x2000));
	ASSERT_EQ(0, start_flags(fd, 1000, UWPROF_START_PER_TASK));
	c = 'g';
	ASSERT_EQ(1, write(go[1], &c, 1));
	ASSERT_EQ(sizeof(pid_t), read(pids[0], &ps[0].pid, sizeof(pid_t)));
	ASSERT_EQ(0, uwprof_attach(fd, ps[0].pid, tiny_id(fd), 0x1000, 0x2000));
	ASSERT_EQ(1, write(go[1], &c, 1));
	waitpid(parent, NULL, 0);
	ASSERT_EQ(0, ioctl(fd, UWPROF_IOC_STOP));
	drain(fd, ps, 1);
	printf("# child %d: %d records for 300 ms of CPU at 1 kHz\n",
	       ps[0].pid, ps[0].records);
	EXPECT_LT(150, ps[0].records);
	EXPECT_GT(420, ps[0].records);
	close(fd);
}

/* Without START_INHERIT the children are not sampled. */
TEST(children_not_followed_without_inherit)
{
	struct seen ps[1] = { { 0 } };
	struct uwprof_stats st;
	int fd, go[2], pids[2];
	pid_t parent;
	char c;

	ASSERT_EQ(0, uwprof_load());
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(pids));
	parent = parent_of_spinner(go[0], pids[1], false);
	ASSERT_LT(0, parent);
	fd = open_nonblock();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, uwprof_attach(fd, parent, tiny_id(fd), 0x1000, 0x2000));
	ASSERT_EQ(0, uwprof_start(fd, 1000));
	c = 'g';
	ASSERT_EQ(1, write(go[1], &c, 1));
	ASSERT_EQ(sizeof(pid_t), read(pids[0], &ps[0].pid, sizeof(pid_t)));
	waitpid(parent, NULL, 0);
	drain(fd, ps, 1);
	ASSERT_EQ(0, uwprof_stats(fd, &st));
	EXPECT_EQ(0, ps[0].records);
	EXPECT_EQ(0, st.followed);
	close(fd);
}

/* START_ALL samples a process nobody attached. */
TEST(all_follows_unattached_process)
{
	struct seen ps[1] = { { 0 } };
	struct uwprof_stats st;
	int fd;

	ASSERT_EQ(0, uwprof_load());
	fd = open_nonblock();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, start_flags(fd, 1000, UWPROF_START_ALL));
	ps[0].pid = fork();
	if (ps[0].pid == 0) {
		spin_cpu_ms(300);
		_exit(0);
	}
	waitpid(ps[0].pid, NULL, 0);
	ASSERT_EQ(0, ioctl(fd, UWPROF_IOC_STOP));
	usleep(100000);
	drain(fd, ps, 1);
	ASSERT_EQ(0, uwprof_stats(fd, &st));
	EXPECT_LT(20, ps[0].records);
	EXPECT_LE(1, st.followed);
	close(fd);
}

#define PARTS_MAX	64

/*
 * Upload @path's table by the build-id and range its container names:
 * each part of a split table with its own range.  The parts' ids go to
 * @ids (room for PARTS_MAX) if given.  Returns the first id or -errno.
 */
static int upload_parts_by_build_id(int fd, const char *path, int *ids,
				    int *nparts, uint32_t max)
{
	struct uwprof_table_upload up = { .size = sizeof(up) };
	struct uwt_part p;
	struct uwt_file t;
	char err[256];
	int ret = -ENOENT, first = 0;

	if (uwt_load_file(path, &t, err, sizeof(err)))
		return -ENOENT;
	if (!t.container || !t.meta.build_id_len || !t.meta.text_size ||
	    t.nparts > PARTS_MAX)
		goto out;
	if (max && t.nparts > max)
		t.nparts = max;
	for (uint32_t i = 0; i < t.nparts; i++) {
		uwt_part(&t, i, &p);
		memset(&up, 0, sizeof(up));
		up.size = sizeof(up);
		up.flags = UWPROF_TABLE_BY_BUILD_ID;
		up.data = (unsigned long)p.blob;
		up.len = p.blob_size;
		up.build_id_size = t.meta.build_id_len;
		memcpy(up.build_id, t.meta.build_id, t.meta.build_id_len);
		up.text_addr = p.text_addr;
		up.text_size = p.text_size;
		if (ioctl(fd, UWPROF_IOC_TABLE_UPLOAD, &up)) {
			ret = -errno;
			goto out;
		}
		if (ids)
			ids[i] = (int)up.table_id;
		if (!i)
			first = (int)up.table_id;
	}
	if (nparts)
		*nparts = (int)t.nparts;
	ret = first;
out:
	free(t.buf);
	return ret;
}

static int upload_by_build_id(int fd, const char *path)
{
	return upload_parts_by_build_id(fd, path, NULL, NULL, 0);
}

static const char *here(void)
{
	static char dir[256];

	snprintf(dir, sizeof(dir), "%s", program_invocation_name);
	return dirname(dir);
}

/*
 * A followed process execs @cmd after sampling started (through a shell
 * if @via_shell), with the tables of @tables uploaded by build-id only.
 * The module attaches them itself, the first sample of the new process is
 * finished in task context, and once the program runs its chain (after
 * "go") its samples unwind to the root.
 */
static void exec_followed(struct __test_metadata *_metadata,
			  const char *prog_name, const char *const *tables,
			  int via_shell)
{
	struct seen ps[1] = { { .verbose = 1 } };
	char prog[300], tpath[320], cmd[400], a[16], b[16], c;
	int fd, ready[2], go[2], start[2], i;
	struct uwprof_stats st;
	struct timespec t;

	snprintf(prog, sizeof(prog), "%s/%s", here(), prog_name);
	ASSERT_EQ(0, uwprof_load());
	fd = open_nonblock();
	ASSERT_LE(0, fd);
	for (i = 0; tables[i]; i++) {
		snprintf(tpath, sizeof(tpath), "%s/%s.uwt", here(), tables[i]);
		if (access(tpath, R_OK))
			SKIP(return, "no %s", tpath);
		ASSERT_LT(0, upload_by_build_id(fd, tpath)) TH_LOG("%s", tpath);
	}
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(start));
	ps[0].pid = fork();
	if (ps[0].pid == 0) {
		close(fd);	/* no process of the test outlives the file */
		if (read(start[0], &c, 1) != 1)
			_exit(1);
		snprintf(a, sizeof(a), "%d", ready[1]);
		snprintf(b, sizeof(b), "%d", go[0]);
		snprintf(cmd, sizeof(cmd), "exec %s --run-chain %s %s", prog,
			 a, b);
		if (via_shell)
			execl("/bin/sh", "sh", "-c", cmd, NULL);
		else
			execl(prog, "chain", "--run-chain", a, b, NULL);
		_exit(127);
	}
	/* the process is known before the exec, with nothing it will use */
	ASSERT_EQ(0, uwprof_attach(fd, ps[0].pid, tiny_id(fd), 0x1000, 0x2000));
	ASSERT_EQ(0, start_flags(fd, 1000, UWPROF_START_INHERIT));
	ASSERT_EQ(1, write(start[1], "s", 1));
	ASSERT_EQ(1, read(ready[0], &c, 1));
	clock_gettime(CLOCK_MONOTONIC, &t);
	ps[0].since = t.tv_sec * 1000000000ull + t.tv_nsec;
	ASSERT_EQ(1, write(go[1], "g", 1));
	/* the chain runs 5 s; enough samples come sooner unless the host is slow */
	for (i = 0; i < 50 && ps[0].late < 300; i++) {
		usleep(100000);
		drain(fd, ps, 1);
	}
	kill(ps[0].pid, SIGKILL);
	waitpid(ps[0].pid, NULL, 0);
	ASSERT_EQ(0, ioctl(fd, UWPROF_IOC_STOP));
	usleep(100000);
	drain(fd, ps, 1);
	ASSERT_EQ(0, uwprof_stats(fd, &st));
	printf("# %d records, %d deferred, %d to the root; %d after go, %d of them to the root\n",
	       ps[0].records, ps[0].deferred, ps[0].root, ps[0].late,
	       ps[0].late_root);
	EXPECT_LT(100, ps[0].late);
	/*
	 * The new image's first sample is finished in task context.  (Not
	 * necessarily the process's first record: one taken inside execve
	 * is never deferred.)
	 */
	EXPECT_LE(1, ps[0].deferred);
	EXPECT_LE(1, st.deferred);
	/* unattached, none would reach the root */
	EXPECT_LE(ps[0].late * 99, ps[0].late_root * 100);
	EXPECT_EQ(st.taken, st.delivered + st.dropped_full);
	close(fd);
}

TEST(exec_static_unwound_by_build_id)
{
	static const char *const tables[] = { CHAIN_PROG, NULL };

	exec_followed(_metadata, CHAIN_PROG, tables, 0);
}

TEST(shell_exec_dynamic_unwound_by_build_id)
{
	static const char *const tables[] = {
		CHAIN_DYN_PROG, "libc.so.6", NULL,
	};

	exec_followed(_metadata, CHAIN_DYN_PROG, tables, 1);
}

/*
 * While the program runs, the module's own attachments show in LIST with
 * the uploaded tables' ids: one per part of the table @suffix names (the
 * program's own, or the same split into parts), each once, in address
 * order and over consecutive ranges.
 */
static void attachments_listed(struct __test_metadata *_metadata,
			       const char *suffix, int want_parts,
			       uint32_t upload)
{
	struct uwprof_attachment at[PARTS_MAX + 4];
	struct uwprof_list l = {
		.size = sizeof(l), .entries = (unsigned long)at,
		.count = PARTS_MAX + 4,
	};
	char prog[300], tpath[320], a[16], b[16], c;
	int fd, ids[PARTS_MAX], nparts = 0, ready[2], go[2], start[2], i, j;
	int found = 0;
	pid_t pid;

	snprintf(prog, sizeof(prog), "%s/%s", here(), CHAIN_PROG);
	snprintf(tpath, sizeof(tpath), "%s%s.uwt", prog, suffix);
	if (access(tpath, R_OK))
		SKIP(return, "no %s", tpath);
	ASSERT_EQ(0, uwprof_load());
	fd = open_nonblock();
	ASSERT_LE(0, fd);
	ASSERT_LT(0, upload_parts_by_build_id(fd, tpath, ids, &nparts, upload));
	EXPECT_LE(want_parts, nparts);
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(start));
	pid = fork();
	if (pid == 0) {
		close(fd);	/* no process of the test outlives the file */
		if (read(start[0], &c, 1) != 1)
			_exit(1);
		snprintf(a, sizeof(a), "%d", ready[1]);
		snprintf(b, sizeof(b), "%d", go[0]);
		execl(prog, "chain", "--run-chain", a, b, NULL);
		_exit(127);
	}
	ASSERT_EQ(0, uwprof_attach(fd, pid, tiny_id(fd), 0x1000, 0x2000));
	ASSERT_EQ(0, start_flags(fd, 1000, UWPROF_START_INHERIT));
	ASSERT_EQ(1, write(start[1], "s", 1));
	ASSERT_EQ(1, read(ready[0], &c, 1));
	ASSERT_EQ(1, write(go[1], "g", 1));
	usleep(300000);
	l.pid = pid;
	ASSERT_EQ(0, ioctl(fd, UWPROF_IOC_LIST, &l));
	for (j = 0; j < nparts; j++)
		for (i = 0; i < (int)l.count && i < PARTS_MAX + 4; i++) {
			if (at[i].table_id != (__u32)ids[j])
				continue;
			found++;
			/* part j + 1 starts where part j ends */
			if (j + 1 < nparts && i + 1 < (int)l.count)
				EXPECT_EQ(at[i].text_end, at[i + 1].text_start);
		}
	EXPECT_EQ(nparts, found);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(fd);
}

TEST(build_id_attachment_listed)
{
	attachments_listed(_metadata, "", 1, 0);
}

/*
 * A table split into parts (a .uwt of several v2 tables, made with a
 * lowered FOT limit so that a small program needs several): every part,
 * uploaded by build-id, is attached to its range of the one mapping.
 */
TEST(split_table_every_part_attached)
{
	attachments_listed(_metadata, ".split", 3, 0);
}

/*
 * The first part alone: the program runs in code outside its range, so
 * the module examines the mapping again at its samples; the part is
 * still attached once, not once per examination.
 */
TEST(part_attached_once_when_code_outside_it_runs)
{
	attachments_listed(_metadata, ".split", 1, 1);
}

/* ...and the program's samples unwind through them to the root. */
TEST(exec_static_unwound_by_split_table)
{
	static const char *const tables[] = { CHAIN_PROG ".split", NULL };

	exec_followed(_metadata, CHAIN_PROG, tables, 0);
}

/* The file bytes of the first PT_LOAD (the code, at offset 0), paged. */
static size_t code_len(const char *tpath)
{
	struct uwt_file t;
	char err[256];
	size_t len;

	if (uwt_load_file(tpath, &t, err, sizeof(err)) || !t.meta.nsegs ||
	    t.meta.segs[0].offset)
		return 0;
	len = (t.meta.segs[0].filesz + 4095) & ~4095u;
	free(t.buf);
	return len;
}

/* Map @path's first PT_LOAD executable at @at, as a loader would. */
static void *map_code(const char *path, void *at, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	void *m;

	if (fd < 0)
		return MAP_FAILED;
	m = mmap(at, len, PROT_READ | PROT_EXEC,
		 MAP_PRIVATE | (at ? MAP_FIXED : 0), fd, 0);
	close(fd);
	return m;
}

/* The table id attached at or after @lo in this process, or 0. */
static __u32 table_at(int fd, unsigned long lo, unsigned long hi)
{
	struct uwprof_attachment at[16];
	struct uwprof_list l = {
		.size = sizeof(l), .pid = getpid(),
		.entries = (unsigned long)at, .count = 16,
	};
	unsigned int i;

	if (ioctl(fd, UWPROF_IOC_LIST, &l))
		return 0;
	for (i = 0; i < l.count && i < 16; i++)
		if (at[i].text_start >= lo && at[i].text_end <= hi)
			return at[i].table_id;
	return 0;
}

/*
 * A file mapped executable gets its table by build-id; unmapped, the
 * attachment ends; another file mapped at the same address gets its own.
 * (The two chain programs stand in for two libraries.)
 */
TEST(remapped_address_gets_its_own_table)
{
	static const char *const names[2] = {
		"chain-gcc-thumb-static_test", "chain-gcc-arm-static_test",
	};
	char path[2][300], tpath[640];
	size_t len[2];
	unsigned long lo;
	int fd, id[2], i;
	void *m;

	for (i = 0; i < 2; i++) {
		snprintf(path[i], sizeof(path[i]), "%s/%s", here(), names[i]);
		snprintf(tpath, sizeof(tpath), "%s.uwt", path[i]);
		if (access(tpath, R_OK))
			SKIP(return, "no %s", tpath);
		len[i] = code_len(tpath);
		ASSERT_LT(0, len[i]);
	}
	ASSERT_EQ(0, uwprof_load());
	fd = open_nonblock();
	ASSERT_LE(0, fd);
	snprintf(tpath, sizeof(tpath), "%s.uwt", path[0]);
	id[0] = upload_by_build_id(fd, tpath);
	ASSERT_LT(0, id[0]);
	/* room for either at the same address */
	m = mmap(NULL, len[0] + len[1], PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, m);
	munmap(m, len[0] + len[1]);
	ASSERT_EQ(m, map_code(path[0], m, len[0]));
	lo = (unsigned long)m;
	/* followed; samples in this program's own code make it look */
	ASSERT_EQ(0, uwprof_attach(fd, getpid(), tiny_id(fd), 0x1000, 0x2000));
	ASSERT_EQ(0, start_flags(fd, 1000, 0));
	spin_ms(200);
	EXPECT_EQ((__u32)id[0], table_at(fd, lo, lo + len[0]));
	ASSERT_EQ(0, munmap(m, len[0]));
	EXPECT_EQ(0, table_at(fd, lo, lo + len[0]));
	ASSERT_EQ(m, map_code(path[1], m, len[1]));
	snprintf(tpath, sizeof(tpath), "%s.uwt", path[1]);
	id[1] = upload_by_build_id(fd, tpath);
	ASSERT_LT(0, id[1]);
	spin_ms(200);
	EXPECT_EQ((__u32)id[1], table_at(fd, lo, lo + len[1]));
	munmap(m, len[1]);
	close(fd);
}

/* munmap of an attached range ends that attachment, and only that one. */
TEST(munmap_ends_attachment)
{
	long pg = sysconf(_SC_PAGESIZE);
	unsigned long a1, a2;
	int fd, id;
	char *m1, *m2;

	ASSERT_EQ(0, uwprof_load());
	fd = open_nonblock();
	ASSERT_LE(0, fd);
	id = tiny_id(fd);
	ASSERT_LT(0, id);
	m1 = mmap(NULL, 4 * pg, PROT_READ | PROT_EXEC,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	m2 = mmap(NULL, 4 * pg, PROT_READ | PROT_EXEC,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, m1);
	ASSERT_NE(MAP_FAILED, m2);
	a1 = (unsigned long)m1;
	a2 = (unsigned long)m2;
	ASSERT_EQ(0, uwprof_attach(fd, getpid(), id, a1, a1 + 2 * pg));
	ASSERT_EQ(0, uwprof_attach(fd, getpid(), id, a2, a2 + 2 * pg));
	EXPECT_EQ(2, list_count(fd, getpid()));
	/* a page of the range is enough */
	ASSERT_EQ(0, munmap(m1 + pg, pg));
	EXPECT_EQ(1, list_count(fd, getpid()));
	/* the range is free again for another table */
	EXPECT_EQ(0, uwprof_attach(fd, getpid(), id, a1, a1 + pg));
	/* the other mapping's attachment stays until its own munmap */
	EXPECT_EQ(-EEXIST, uwprof_attach(fd, getpid(), id, a2, a2 + pg));
	ASSERT_EQ(0, munmap(m2, 4 * pg));
	EXPECT_EQ(1, list_count(fd, getpid()));
	munmap(m1, 4 * pg);
	EXPECT_EQ(0, list_count(fd, getpid()));
	close(fd);
}

TEST(bad_build_id_and_start_arguments)
{
	unsigned char blob[64];
	size_t len = uwprof_tiny_table(blob, finish, sizeof(finish));
	struct uwprof_table_upload up = {
		.size = sizeof(up), .data = (unsigned long)blob, .len = len,
		.flags = UWPROF_TABLE_BY_BUILD_ID, .build_id_size = 21,
		.text_addr = 0x1000, .text_size = 0x100,
	};
	int fd, plain;

	ASSERT_EQ(0, uwprof_load());
	fd = uwprof_open_dev();
	ASSERT_LE(0, fd);
	/* build-id longer than 20 */
	EXPECT_EQ(-1, ioctl(fd, UWPROF_IOC_TABLE_UPLOAD, &up));
	EXPECT_EQ(EINVAL, errno);
	/* the flag without a size */
	up.build_id_size = 0;
	EXPECT_EQ(-1, ioctl(fd, UWPROF_IOC_TABLE_UPLOAD, &up));
	EXPECT_EQ(EINVAL, errno);
	/* the flag without a range */
	up.build_id_size = 20;
	up.text_size = 0;
	EXPECT_EQ(-1, ioctl(fd, UWPROF_IOC_TABLE_UPLOAD, &up));
	EXPECT_EQ(EINVAL, errno);
	/* a size without the flag */
	up.flags = 0;
	up.text_addr = 0;
	EXPECT_EQ(-1, ioctl(fd, UWPROF_IOC_TABLE_UPLOAD, &up));
	EXPECT_EQ(EINVAL, errno);
	/* an unknown flag (0x2, 0x4: UWPROF_TABLE_CHROME_COMPAT, _JIT_ROWS) */
	up.flags = 0x8;
	up.build_id_size = 0;
	EXPECT_EQ(-1, ioctl(fd, UWPROF_IOC_TABLE_UPLOAD, &up));
	EXPECT_EQ(EINVAL, errno);
	/* valid; the same blob without a build-id is another table */
	up.flags = UWPROF_TABLE_BY_BUILD_ID;
	up.build_id_size = 20;
	up.text_size = 0x100;
	EXPECT_EQ(0, ioctl(fd, UWPROF_IOC_TABLE_UPLOAD, &up));
	plain = uwprof_upload(fd, blob, len, NULL);
	EXPECT_LT(0, plain);
	EXPECT_NE((int)up.table_id, plain);
	/* START_ALL cannot be per task; unknown start flags */
	EXPECT_EQ(-EINVAL, start_flags(fd, 100, UWPROF_START_ALL |
					       UWPROF_START_PER_TASK));
	EXPECT_EQ(-EINVAL, start_flags(fd, 100, 0x8));
	close(fd);
}

/* Stats now; fails the test if the call does. */
static struct uwprof_stats stats_now(int fd)
{
	struct uwprof_stats st;

	if (uwprof_stats(fd, &st))
		memset(&st, 0xff, sizeof(st));
	return st;
}

#define STORM_KIDS	500
#define STORM_MS	20000

/*
 * The parent of the fork storm: STORM_KIDS children, one each 10 ms,
 * each running 5 ms of CPU; then it reaps them, writes their number on
 * @done and waits to be killed, so its own entry stays.  On a host whose
 * CPU other VMs share, forks take longer: the storm stops at STORM_MS
 * with the children it had.
 */
static void __attribute__((noreturn)) fork_storm(int done)
{
	struct timespec t0, t;
	long ms = 0;
	int i;

	usleep(200000);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < STORM_KIDS && ms < STORM_MS; i++) {
		if (fork() == 0) {
			spin_cpu_ms(5);
			_exit(0);
		}
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		do {		/* the next child 10 ms after this one */
			clock_gettime(CLOCK_MONOTONIC, &t);
			ms = (t.tv_sec - t0.tv_sec) * 1000 +
			     (t.tv_nsec - t0.tv_nsec) / 1000000;
			if (ms < (i + 1) * 10)
				usleep(1000);
		} while (ms < (i + 1) * 10);
	}
	while (wait(NULL) > 0)
		;
	if (write(done, &i, sizeof(i)) != sizeof(i))
		_exit(1);
	pause();
	_exit(0);
}

/*
 * A fork storm under START_INHERIT: every child is followed or counted,
 * nothing warns, the counters add up, and once the children are gone the
 * module holds what it held before the storm.
 */
TEST(fork_storm_followed)
{
	struct uwprof_stats idle, st;
	unsigned long peak = 0;
	int fd, pipefd[2], waited, kids;
	pid_t parent;

	ASSERT_EQ(0, uwprof_load());
	ASSERT_EQ(0, pipe(pipefd));
	parent = fork();	/* before open: it must not keep the file */
	if (parent == 0) {
		close(pipefd[0]);
		fork_storm(pipefd[1]);
	}
	close(pipefd[1]);
	fcntl(pipefd[0], F_SETFL, O_NONBLOCK);
	fd = open_nonblock();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, uwprof_attach(fd, parent, tiny_id(fd), 0x1000, 0x2000));
	idle = stats_now(fd);
	ASSERT_EQ(1, idle.procs);
	ASSERT_LT(0, idle.proc_bytes);
	ASSERT_EQ(0, start_flags(fd, 2000, UWPROF_START_INHERIT));
	while (read(pipefd[0], &kids, sizeof(kids)) != sizeof(kids)) {
		char buf[4096];

		ASSERT_EQ(0, waitpid(parent, NULL, WNOHANG));
		while (read(fd, buf, sizeof(buf)) > 0)
			;
		st = stats_now(fd);
		peak = st.procs > peak ? st.procs : peak;
		usleep(20000);
	}
	/* exited children are reaped within about a second */
	for (waited = 0; waited < 3000; waited += 100) {
		st = stats_now(fd);
		if (st.procs == idle.procs)
			break;
		usleep(100000);
	}
	ASSERT_EQ(0, ioctl(fd, UWPROF_IOC_STOP));
	st = stats_now(fd);
	printf("# %d children; followed %llu, deferred %llu, failed %llu, taken %llu; entries: idle %llu (%llu bytes), peak %lu, after %llu (%llu bytes) %d ms after the storm\n",
	       kids, (unsigned long long)st.followed,
	       (unsigned long long)st.deferred,
	       (unsigned long long)st.deferred_failed,
	       (unsigned long long)st.taken,
	       (unsigned long long)idle.procs,
	       (unsigned long long)idle.proc_bytes, peak,
	       (unsigned long long)st.procs,
	       (unsigned long long)st.proc_bytes, waited);
	/*
	 * children of 5 ms at 2 kHz: each is followed from its first
	 * sample; a busy host may leave a few unsampled
	 */
	EXPECT_LE(STORM_KIDS / 5, kids);
	EXPECT_LE(kids * 4 / 5, st.followed);
	EXPECT_LT(idle.procs, peak);
	EXPECT_EQ(idle.procs, st.procs);
	EXPECT_EQ(idle.proc_bytes, st.proc_bytes);
	EXPECT_EQ(st.taken, st.delivered + st.dropped_full);
	kill(parent, SIGKILL);
	waitpid(parent, NULL, 0);
	close(pipefd[0]);
	close(fd);
	/* the entries of 100s of exited children are gone with the file */
	EXPECT_EQ(0, uwprof_unload());
	ASSERT_EQ(0, uwprof_load());
}

TEST_HARNESS_MAIN
