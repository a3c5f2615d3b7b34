// SPDX-License-Identifier: GPL-2.0
/*
 * Sampling: every thread of an attached process is sampled, records are
 * whole and counted, a full buffer drops and counts, and exit, exec and
 * rmmod while sampling are normal events.  The tables here are tiny ones
 * that cover the program's text; stacks against real tables are checked
 * by chain_test.
 */
#include <errno.h>
#include <linux/io_uring.h>
#include <poll.h>
#include <sched.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>

#include "kselftest_harness.h"
#include "uwprof_util.h"

static const unsigned char finish[] = { 0xb0 };

static volatile int stop_spinning;

static void spin_ms(int ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 +
		 (t.tv_nsec - t0.tv_nsec) / 1000000 < ms && !stop_spinning);
}

static void *spin_thread(void *arg)
{
	spin_ms((int)(long)arg);
	return NULL;
}

/* Upload the tiny table and attach it to @pid's text. */
static int attach_tiny(int fd, pid_t pid)
{
	unsigned char blob[64];
	unsigned int start, end;
	size_t len = uwprof_tiny_table(blob, finish, sizeof(finish));
	int id = uwprof_upload(fd, blob, len, NULL);

	if (id < 0 || uwprof_text_of("self", &start, &end))
		return -1;
	return uwprof_attach(fd, pid, id, start, end);
}

struct tally {
	int records, kernel, bad, tids[8], ntids;
	unsigned int zero_time, max_time;	/* record handler_ns */
	pid_t pid;
};

static void tally_tid(struct tally *t, int tid)
{
	int i;

	for (i = 0; i < t->ntids; i++)
		if (t->tids[i] == tid)
			return;
	if (t->ntids < 8)
		t->tids[t->ntids++] = tid;
}

/* The tally of @pid among @n, or NULL. */
static struct tally *tally_of(struct tally **ts, int n, __u32 pid)
{
	int i;

	for (i = 0; i < n; i++)
		if ((__u32)ts[i]->pid == pid)
			return ts[i];
	return NULL;
}

/*
 * Read every record that is there now, check each one's shape and count
 * it in the tally of its process; a bad record is counted in the first.
 */
static void drain_into(int fd, struct tally **ts, int n)
{
	static char buf[1 << 16];
	struct tally *t;
	ssize_t len;
	char *p;

	while ((len = read(fd, buf, sizeof(buf))) > 0) {
		for (p = buf; p < buf + len;) {
			struct uwprof_record *r = (void *)p;

			t = tally_of(ts, n, r->pid);
			if (r->size < sizeof(*r) || r->size % 8 ||
			    r->type != UWPROF_RECORD_SAMPLE ||
			    r->size != ((sizeof(*r) + 4 * r->nframes + 7) & ~7) ||
			    r->stop >= UWPROF_STOP_NR || !t || !r->nframes) {
				ts[0]->bad++;
				break;
			}
			t->records++;
			t->kernel += !!(r->flags & UWPROF_RF_KERNEL);
			t->zero_time += !r->handler_ns;
			if (r->handler_ns > t->max_time)
				t->max_time = r->handler_ns;
			tally_tid(t, r->tid);
			p += r->size;
		}
	}
}

static void drain(int fd, struct tally *t)
{
	drain_into(fd, &t, 1);
}

static int open_nonblock(void)
{
	int fd = uwprof_open_dev();

	if (fd >= 0)
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	return fd;
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* A child that spins, starting a second thread after @late_ms. */
static pid_t spawn_spinner(int late_ms, int total_ms)
{
	pthread_t th;
	pid_t pid = fork();

	if (pid == 0) {
		spin_ms(late_ms);
		pthread_create(&th, NULL, spin_thread,
			       (void *)(long)(total_ms - late_ms));
		spin_ms(total_ms - late_ms);
		pthread_join(th, NULL);
		_exit(0);
	}
	return pid;
}

/*
 * Sample @pid, a child, with the tiny table at @hz until it exits: its
 * records into @t, the counters into @st.  Returns the open file, or -1
 * (the child killed).
 */
static int sample_until_exit(struct tally *t, pid_t pid, int hz,
			     struct uwprof_stats *st)
{
	int fd;

	if (pid <= 0)
		return -1;
	fd = open_nonblock();
	t->pid = pid;
	if (fd < 0 || attach_tiny(fd, pid) || uwprof_start(fd, hz)) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return -1;
	}
	waitpid(pid, NULL, 0);
	if (ioctl(fd, UWPROF_IOC_STOP))
		return -1;
	drain(fd, t);
	return uwprof_stats(fd, st) ? -1 : fd;
}

TEST(all_threads_sampled_including_later_ones)
{
	struct tally t = { 0 };
	struct uwprof_stats st;
	int fd;

	ASSERT_EQ(0, uwprof_load());
	fd = sample_until_exit(&t, spawn_spinner(300, 1500), 1000, &st);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, t.bad);
	EXPECT_LT(100, t.records);
	EXPECT_EQ(2, t.ntids) TH_LOG("threads seen: %d", t.ntids);
	EXPECT_EQ(st.delivered, t.records);
	EXPECT_EQ(st.taken, st.delivered + st.dropped_full);
	/* each record's own handler time, bounded by the counters' maximum */
	EXPECT_EQ(0, t.zero_time);
	EXPECT_LE(t.max_time, st.handler_ns_max);
	close(fd);
}

/* Per task: the timers follow the threads, including one created later. */
TEST(per_task_follows_threads_including_later_ones)
{
	struct uwprof_start st = {
		.size = sizeof(st), .freq_hz = 1000,
		.flags = UWPROF_START_PER_TASK,
	};
	struct tally t = { 0 }, u = { 0 };
	struct uwprof_stats stats;
	int fd;

	ASSERT_EQ(0, uwprof_load());
	fd = open_nonblock();
	ASSERT_LE(0, fd);
	t.pid = spawn_spinner(300, 1500);
	ASSERT_EQ(0, attach_tiny(fd, t.pid));
	ASSERT_EQ(0, ioctl(fd, UWPROF_IOC_START, &st));
	/* attached while sampling: followed from then on */
	u.pid = spawn_spinner(0, 800);
	ASSERT_EQ(0, attach_tiny(fd, u.pid));
	waitpid(t.pid, NULL, 0);
	waitpid(u.pid, NULL, 0);
	ASSERT_EQ(0, ioctl(fd, UWPROF_IOC_STOP));
	ASSERT_EQ(0, uwprof_stats(fd, &stats));
	drain_into(fd, (struct tally *[]){ &t, &u }, 2);
	EXPECT_EQ(0, t.bad + u.bad);
	EXPECT_LT(100, t.records);
	EXPECT_EQ(2, t.ntids) TH_LOG("threads seen: %d", t.ntids);
	EXPECT_LT(50, u.records);
	EXPECT_EQ(stats.delivered, t.records + u.records);
	EXPECT_EQ(stats.taken, stats.delivered + stats.dropped_full);
	close(fd);
}

/* An endless loop, entered by a call: sp is 8-aligned there (AAPCS). */
static void __attribute__((naked, noinline)) spin_at_call_sp(void)
{
	__asm__ volatile("1: b 1b");
}

/* Samples of @pid taken in spin_at_call_sp(), by how the unwind ended. */
struct loop_tally {
	pid_t pid;
	int n, bad_sp_at_0, went_on;
};

static void drain_loop(int fd, struct loop_tally *a, struct loop_tally *b)
{
	static char buf[1 << 16];
	__u32 loop = (__u32)(unsigned long)spin_at_call_sp & ~1u;
	struct loop_tally *t;
	ssize_t len;
	char *p;

	while ((len = read(fd, buf, sizeof(buf))) > 0) {
		for (p = buf; p < buf + len; p += ((struct uwprof_record *)p)->size) {
			struct uwprof_record *r = (void *)p;
			__u32 *frames = (__u32 *)(r + 1);

			if (r->size < sizeof(*r))
				break;
			t = (__u32)a->pid == r->pid ? a :
			    (__u32)b->pid == r->pid ? b : NULL;
			if (!t || !r->nframes || (frames[0] & ~1u) != loop)
				continue;
			t->n++;
			t->bad_sp_at_0 += r->stop == UWPROF_STOP_BAD_SP &&
					  r->nframes == 1;
			t->went_on += r->nframes >= 2 &&
				      r->stop != UWPROF_STOP_BAD_SP;
		}
	}
}

/*
 * The same "sp += 4" table uploaded twice, plainly and as Chrome's: in the
 * process whose table is Chrome's, the frame's sp at 4 mod 8 ends every
 * unwind as bad-sp (Chrome's reader asks 8-byte alignment), where uwprof's
 * own rule (word alignment) goes on to the caller.
 */
TEST(chrome_compat_table_asks_8_aligned_frames)
{
	static const unsigned char sp4[] = { 0x00, 0xb0 };
	struct loop_tally plain = { 0 }, compat = { 0 };
	struct uwprof_table_upload up = { .size = sizeof(up) };
	unsigned char blob[64];
	unsigned int start, end;
	int fd, id;

	ASSERT_EQ(0, uwprof_load());
	fd = open_nonblock();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, uwprof_text_of("self", &start, &end));
	up.len = uwprof_tiny_table(blob, sp4, sizeof(sp4));
	up.data = (unsigned long)blob;
	id = uwprof_upload(fd, blob, up.len, NULL);
	ASSERT_LT(0, id);
	up.flags = UWPROF_TABLE_CHROME_COMPAT;
	ASSERT_EQ(0, ioctl(fd, UWPROF_IOC_TABLE_UPLOAD, &up));
	EXPECT_NE(id, (int)up.table_id);	/* not the plain one */
	up.flags = 0x80000000u;
	EXPECT_EQ(-1, ioctl(fd, UWPROF_IOC_TABLE_UPLOAD, &up));
	EXPECT_EQ(EINVAL, errno);
	plain.pid = fork();
	if (plain.pid == 0)
		spin_at_call_sp();
	compat.pid = fork();
	if (compat.pid == 0)
		spin_at_call_sp();
	ASSERT_EQ(0, uwprof_attach(fd, plain.pid, id, start, end));
	ASSERT_EQ(0, uwprof_attach(fd, compat.pid, up.table_id, start, end));
	ASSERT_EQ(0, uwprof_start(fd, 1000));
	usleep(600 * 1000);
	ASSERT_EQ(0, ioctl(fd, UWPROF_IOC_STOP));
	reap(plain.pid);
	reap(compat.pid);
	drain_loop(fd, &plain, &compat);
	EXPECT_LT(20, plain.n);
	EXPECT_EQ(plain.n, plain.went_on);
	EXPECT_LT(20, compat.n);
	EXPECT_EQ(compat.n, compat.bad_sp_at_0)
		TH_LOG("%d of %d samples", compat.bad_sp_at_0, compat.n);
	close(fd);
}

/* A buffer too small to hold a run: drops are counted, never lost. */
TEST(tiny_buffer_counts_every_sample)
{
	struct tally t = { 0 };
	struct uwprof_stats st;
	unsigned long long stops = 0;
	int fd, i;

	ASSERT_EQ(0, uwprof_load());
	ASSERT_EQ(0, uwprof_set_param("buffer_bytes", 4096));
	fd = open_nonblock();
	ASSERT_EQ(0, uwprof_set_param("buffer_bytes", 512 << 10));
	ASSERT_LE(0, fd);
	t.pid = spawn_spinner(0, 1000);
	ASSERT_EQ(0, attach_tiny(fd, t.pid));
	ASSERT_EQ(0, uwprof_start(fd, 5000));
	waitpid(t.pid, NULL, 0);
	ASSERT_EQ(0, ioctl(fd, UWPROF_IOC_STOP));
	drain(fd, &t);
	ASSERT_EQ(0, uwprof_stats(fd, &st));
	EXPECT_LT(0, st.dropped_full);
	EXPECT_EQ(st.taken, st.delivered + st.dropped_full);
	EXPECT_EQ(st.delivered, t.records);
	for (i = 0; i < UWPROF_STOP_SLOTS; i++)
		stops += st.stop[i];
	EXPECT_EQ(st.taken, stops);
	/* the slowest sample is one of them, and no sample beats it */
	EXPECT_LT(0, st.handler_ns_max);
	EXPECT_LE(st.handler_ns_max, st.handler_ns_sum);
	EXPECT_LE(st.handler_ns_sum, st.handler_ns_max * st.taken);
	close(fd);
}

static volatile sig_atomic_t alarmed;

static void on_alarm(int sig)
{
	alarmed = 1;
}

/* A child that spins @ms in this loop alone: no call, no system call. */
static pid_t spawn_tight_loop(int ms)
{
	pid_t pid = fork();
	unsigned int n = 0;

	if (pid)
		return pid;
	signal(SIGALRM, on_alarm);
	ualarm(ms * 1000, 0);
	while (!alarmed)
		n++;
	_exit(n == 0);
}

/*
 * The handler's lookup caches are counted: a loop sampled at the same
 * few pcs again and again hits the cached ranges, and each sample
 * unwound in the interrupt makes one pc lookup, a hit or a miss.
 */
TEST(lookups_counted)
{
	struct tally t = { 0 };
	struct uwprof_stats st;
	int fd;

	ASSERT_EQ(0, uwprof_load());
	fd = sample_until_exit(&t, spawn_tight_loop(500), 2000, &st);
	ASSERT_LE(0, fd);
	ASSERT_EQ(UWPROF_STATS_LOOKUPS, st.flags & UWPROF_STATS_LOOKUPS);
	ASSERT_LT(20, st.taken);
	EXPECT_LT(0, st.lookup_pc_hits);
	EXPECT_LT(st.lookup_pc_misses, st.lookup_pc_hits);
	/* nothing here is deferred: every sample was unwound in the handler */
	EXPECT_EQ(0, st.deferred + st.deferred_failed);
	EXPECT_EQ(st.taken, st.lookup_pc_hits + st.lookup_pc_misses);
	EXPECT_LE(st.lookup_ra_loop, st.lookup_ra_hits + st.lookup_ra_misses);
	TH_LOG("%llu samples: pcs %llu hits %llu misses, return addresses "
	       "%llu hits (%llu in the loop) %llu misses",
	       (unsigned long long)st.taken,
	       (unsigned long long)st.lookup_pc_hits,
	       (unsigned long long)st.lookup_pc_misses,
	       (unsigned long long)st.lookup_ra_hits,
	       (unsigned long long)st.lookup_ra_loop,
	       (unsigned long long)st.lookup_ra_misses);
	close(fd);
}

/*
 * A read whose buffer turns bad part way (the page after it is not
 * mapped) returns the records that fitted before the bad part, and the
 * one it could not copy stays for the next read: every delivered record
 * is read exactly once.
 */
TEST(read_into_a_partly_bad_buffer_loses_nothing)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *map = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct tally t = { 0 };
	struct uwprof_stats st;
	unsigned long got = 0;
	int fd, faults = 0, i;
	ssize_t n;

	ASSERT_TRUE(map != MAP_FAILED);
	ASSERT_EQ(0, mprotect(map + pg, pg, PROT_NONE));
	ASSERT_EQ(0, uwprof_load());
	fd = open_nonblock();
	ASSERT_LE(0, fd);
	t.pid = spawn_spinner(0, 300);
	ASSERT_EQ(0, attach_tiny(fd, t.pid));
	ASSERT_EQ(0, uwprof_start(fd, 1000));
	waitpid(t.pid, NULL, 0);
	ASSERT_EQ(0, ioctl(fd, UWPROF_IOC_STOP));
	ASSERT_EQ(0, uwprof_stats(fd, &st));
	ASSERT_LT(2, st.delivered);
	/* Room for one small record before the bad page, a page claimed. */
	for (i = 0; i < 8; i++) {
		n = read(fd, map + pg - 48, pg);
		if (n < 0) {
			ASSERT_EQ(EFAULT, errno);
			faults++;
			continue;
		}
		for (char *p = map + pg - 48; p < map + pg - 48 + n;
		     p += ((struct uwprof_record *)p)->size)
			got++;
	}
	drain(fd, &t);
	EXPECT_EQ(0, t.bad);
	EXPECT_EQ(st.delivered, got + t.records)
		TH_LOG("%lu records read past the bad page, %d EFAULT, %d drained",
		       got, faults, t.records);
	close(fd);
	munmap(map, 2 * pg);
}

/* A thread inside a system call is sampled from its saved user context. */
TEST(kernel_context_is_marked)
{
	struct tally t = { 0 };
	int fd;

	ASSERT_EQ(0, uwprof_load());
	fd = open_nonblock();
	ASSERT_LE(0, fd);
	t.pid = fork();
	if (t.pid == 0) {
		for (int i = 0; i < 400000; i++)
			getppid();
		_exit(0);
	}
	ASSERT_EQ(0, attach_tiny(fd, t.pid));
	ASSERT_EQ(0, uwprof_start(fd, 2000));
	waitpid(t.pid, NULL, 0);
	ASSERT_EQ(0, ioctl(fd, UWPROF_IOC_STOP));
	drain(fd, &t);
	EXPECT_EQ(0, t.bad);
	EXPECT_LT(0, t.kernel) TH_LOG("%d records", t.records);
	close(fd);
}

/* Records per CPU and pc-0 records, of any process, now in @fd. */
static void count_cpus(int fd, int *per_cpu, int ncpu, int *pc0)
{
	static char buf[1 << 16];
	ssize_t len;
	char *p;

	while ((len = read(fd, buf, sizeof(buf))) > 0)
		for (p = buf; p < buf + len; p += ((struct uwprof_record *)p)->size) {
			struct uwprof_record *r = (void *)p;

			if (r->cpu < ncpu)
				per_cpu[r->cpu]++;
			*pc0 += r->nframes && !r->frames[0];
		}
}

static int set_cpu_online(int cpu, int on)
{
	char path[64];
	int fd, ok;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online",
		 cpu);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	ok = write(fd, on ? "1" : "0", 1) == 1;
	close(fd);
	return ok ? 0 : -1;
}

/* A child spinning on CPU @cpu for @ms. */
static pid_t spawn_pinned(int cpu, int ms)
{
	pid_t pid = fork();

	if (pid == 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		sched_setaffinity(0, sizeof(set), &set);
		spin_ms(ms);
		_exit(0);
	}
	return pid;
}

/* A CPU that goes offline and comes back is sampled again. */
TEST(cpu_hotplug_resumes_sampling)
{
	int before[2] = { 0 }, after[2] = { 0 }, pc0 = 0, fd;
	pid_t pid;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2 || set_cpu_online(1, 1))
		SKIP(return, "needs a second CPU that can go offline");
	ASSERT_EQ(0, uwprof_load());
	fd = open_nonblock();
	ASSERT_LE(0, fd);
	pid = spawn_pinned(1, 600);
	ASSERT_EQ(0, attach_tiny(fd, pid));
	ASSERT_EQ(0, uwprof_start(fd, 1000));
	waitpid(pid, NULL, 0);
	count_cpus(fd, before, 2, &pc0);
	ASSERT_EQ(0, set_cpu_online(1, 0));
	ASSERT_EQ(0, set_cpu_online(1, 1));
	pid = spawn_pinned(1, 600);
	ASSERT_EQ(0, attach_tiny(fd, pid));
	waitpid(pid, NULL, 0);
	ASSERT_EQ(0, ioctl(fd, UWPROF_IOC_STOP));
	count_cpus(fd, after, 2, &pc0);
	/*
	 * 600 at 1 kHz on an idle host; a loaded host that takes the
	 * vCPU away fires the timer once for many periods (162 seen).
	 */
	EXPECT_LT(50, before[1]);
	EXPECT_LT(50, after[1]) TH_LOG("CPU 1: %d samples before, %d after",
					before[1], after[1]);
	close(fd);
}

/*
 * io_uring's submission thread shares the process's mm but runs no user
 * code: it is not sampled (a record of it would have no user pc).
 */
TEST(io_uring_workers_not_sampled)
{
	struct io_uring_params params = {
		.flags = IORING_SETUP_SQPOLL, .sq_thread_idle = 2000,
	};
	int cpus[2] = { 0 }, pc0 = 0, fd, ring;

	ASSERT_EQ(0, uwprof_load());
	fd = open_nonblock();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, attach_tiny(fd, getpid()));
	ASSERT_EQ(0, uwprof_start(fd, 1000));
	ring = syscall(__NR_io_uring_setup, 4, &params);
	if (ring < 0) {
		close(fd);
		SKIP(return, "no io_uring in this kernel (errno %d)", errno);
	}
	/* the submission thread polls for sq_thread_idle: 2 s */
	spin_ms(1000);
	ASSERT_EQ(0, ioctl(fd, UWPROF_IOC_STOP));
	count_cpus(fd, cpus, 2, &pc0);
	EXPECT_LT(200, cpus[0] + cpus[1]);
	EXPECT_EQ(0, pc0);
	close(ring);
	close(fd);
}

TEST(poll_wakes_reader)
{
	struct pollfd pfd;
	struct tally t = { 0 };
	int fd;

	ASSERT_EQ(0, uwprof_load());
	fd = open_nonblock();
	ASSERT_LE(0, fd);
	t.pid = spawn_spinner(0, 2000);
	ASSERT_EQ(0, attach_tiny(fd, t.pid));
	pfd.fd = fd;
	pfd.events = POLLIN;
	EXPECT_EQ(0, poll(&pfd, 1, 0));
	ASSERT_EQ(0, uwprof_start(fd, 1000));
	EXPECT_EQ(1, poll(&pfd, 1, 2000));
	EXPECT_TRUE(pfd.revents & POLLIN);
	drain(fd, &t);
	EXPECT_LT(0, t.records);
	reap(t.pid);
	close(fd);
}

/* Exit and exec of sampled processes while sampling runs. */
TEST(exit_and_exec_while_sampling)
{
	struct uwprof_list l = { .size = sizeof(l) };
	struct tally t = { 0 };
	pid_t execer;
	int fd;

	ASSERT_EQ(0, uwprof_load());
	fd = open_nonblock();
	ASSERT_LE(0, fd);
	t.pid = spawn_spinner(0, 300);
	execer = fork();
	if (execer == 0) {
		spin_ms(300);
		execl("/bin/busybox", "sleep", "1", NULL);
		_exit(1);
	}
	ASSERT_EQ(0, attach_tiny(fd, t.pid));
	ASSERT_EQ(0, attach_tiny(fd, execer));
	ASSERT_EQ(0, uwprof_start(fd, 2000));
	waitpid(t.pid, NULL, 0);
	usleep(500000);
	ASSERT_EQ(0, ioctl(fd, UWPROF_IOC_LIST, &l));
	EXPECT_EQ(0, l.count);
	waitpid(execer, NULL, 0);
	ASSERT_EQ(0, ioctl(fd, UWPROF_IOC_STOP));
	close(fd);
}

/* rmmod waits for the last user: a blocked reader, or a sampling file. */
TEST(rmmod_while_reading_and_sampling)
{
	pid_t reader, target;
	char buf[64];
	int fd, status, opened[2];

	ASSERT_EQ(0, uwprof_load());
	ASSERT_EQ(0, pipe(opened));
	reader = fork();
	if (reader == 0) {
		int rfd = uwprof_open_dev();

		/* say the file is open, not "a while has passed" */
		write(opened[1], "o", 1);
		_exit(read(rfd, buf, sizeof(buf)) < 0 ? errno : 0);
	}
	ASSERT_EQ(1, read(opened[0], buf, 1));
	usleep(100000);		/* most likely asleep in read() by now */
	EXPECT_EQ(-EWOULDBLOCK, uwprof_unload());
	kill(reader, SIGTERM);
	ASSERT_EQ(reader, waitpid(reader, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status));

	target = spawn_spinner(0, 3000);	/* before open: no fd to inherit */
	fd = uwprof_open_dev();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, attach_tiny(fd, target));
	ASSERT_EQ(0, uwprof_start(fd, 4000));
	usleep(300000);
	EXPECT_EQ(-EWOULDBLOCK, uwprof_unload());
	close(fd);		/* stops sampling and frees everything */
	EXPECT_EQ(0, uwprof_unload());
	reap(target);
	ASSERT_EQ(0, uwprof_load());
}

TEST_HARNESS_MAIN
