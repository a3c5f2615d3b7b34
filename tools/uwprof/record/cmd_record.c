// SPDX-License-Identifier: GPL-2.0
/*
 * uwprof record: sample processes through /dev/unwind_samples and write
 * uwprof.data.  The command: options, the device, the command it runs,
 * the loop and the summary.  Which processes are followed and how their
 * tables get attached is record/procs.c; the side-band that tells it
 * about forks, execs and mmaps is record/sideband.c.  libc only: this
 * file is part of the static armhf uwprof that runs on the device.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* pipe2 */
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "record/attach.h"
#include "lib/elf.h"
#include "record/record.h"
#include "unwind_v2.h"
#include "uwprof.h"

#define REC_DEFAULT_HZ		1000
#define REC_READ_BUF		(256 * 1024)
#define REC_SCAN_MIN_MS		1
#define REC_SCAN_MAX_MS		250
#define REC_SCAN_MAX_ALL_MS	1000
#define REC_SCAN_HINT_MS	10	/* at most this often for no-table hints */
/*
 * After the maps change (an exec, the loader mapping libraries), keep
 * scanning at the fastest rate for a while: the loader maps the next
 * library a few milliseconds later, and main may already run in it.
 */
#define REC_SCAN_SETTLE_MS	50
#define REC_POLL_MAX_MS		100
/*
 * With the side-band, mappings and exits wake the loop, and SIGCHLD the
 * reaping: the timeout is only a backstop, and samples come when the
 * module wakes the reader (its wakeup_ms).
 */
#define REC_POLL_MAX_SB_MS	1000
#define REC_PROGRESS_MS		500

static volatile sig_atomic_t rec_stop;

static void on_signal(int sig)
{
	(void)sig;
	rec_stop = 1;
}

/* Only to cut poll() short when the command exits. */
static void on_child(int sig)
{
	(void)sig;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: uwprof record [options] -- COMMAND [ARGS...]\n"
		"       uwprof record [options] -p PID[,PID...]\n"
		"       uwprof record [options] -t TID[,TID...]\n"
		"       uwprof record [options] -a\n"
		"\n"
		"Sample the user-space call stacks of processes, unwound in the kernel\n"
		"by uwprof.ko, and write them to a data file for 'uwprof report'.\n"
		"Tables come from --tables (made on the host by 'uwprof table', with\n"
		"debug files); a file with none there gets one made on this device\n"
		"from the file itself, kept by build-id in the table cache.\n"
		"\n"
		"  -p, --pid PID[,PID...]  profile these running processes\n"
		"  -t, --tid TID[,TID...]  profile these threads (of running processes)\n"
		"  -a, --all               every process whose code has tables, also\n"
		"                          those started while recording\n"
		"      --no-inherit        do not follow the processes the command or\n"
		"                          the PIDs start (followed by default)\n"
		"  -F, --freq HZ           samples per second per thread (default %d, max 10000)\n"
		"  -d, --duration SECONDS  stop after this long (default: Ctrl-C, or when\n"
		"                          the command or every PID has exited)\n"
		"      --tables DIR        tables as DIR/<build-id>.uwt (default\n"
		"                          $UWPROF_TABLES, else ./tables); preferred\n"
		"      --table-cache DIR   tables made on this device, by build-id (default\n"
		"                          $UWPROF_TABLE_CACHE, else " "/data/local/tmp/uwprof/tables\n"
		"                          on Android, else $XDG_CACHE_HOME/uwprof/tables,\n"
		"                          ~/.cache/uwprof/tables or /tmp/uwprof/tables)\n"
		"      --no-auto-tables    make no table on this device: --tables only\n"
		"      --no-wait-tables    do not pause the command while its tables are\n"
		"                          made (its samples there stop no-table, counted)\n"
		"      --jit KIND          anonymous executable code is a JIT's of this\n"
		"                          frame kind, walked by its frame chain: v8-arm\n"
		"                          (node, chromium); names come from the\n"
		"                          perf-PID.map and jit-PID.dump files it writes\n"
		"                          (--perf-basic-prof, --perf-prof)\n"
		"      --jit-range FILE:START-END  JIT code of the --jit kind inside a\n"
		"                          file, at link addresses, where record does\n"
		"                          not find it (V8's builtins in libnode are\n"
		"                          found); FILE is the mapped file's path, or\n"
		"                          a base name for that file in any directory;\n"
		"                          one that marks nothing is warned of at the\n"
		"                          end; repeatable\n"
		"  -o, --output FILE       data file (default uwprof.data)\n"
		"  -q, --quiet             no progress line and no summary\n"
		"\n"
		"Exit status: the command's own (128 + N if signal N killed it); 127 if\n"
		"it could not be started; 1 if a target cannot be profiled; 0 with -p\n"
		"or -a once recorded.\n",
		REC_DEFAULT_HZ);
}

/* "1,2,3" appended to @ids; @opt names the option in errors. */
static int parse_pids(const char *s, const char *opt, pid_t **ids,
		      unsigned int *n)
{
	char *copy = strdup(s), *tok, *save = NULL;
	unsigned int room = *n;
	uint32_t v;

	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!uw_parse_u32(tok, &v) || !v || v > 0x3fffffff) {
			uw_err("record: bad id '%s' in %s %s", tok, opt, s);
			free(copy);
			return -1;
		}
		*ids = rec_grow(*ids, &room, *n, sizeof(**ids));
		(*ids)[(*n)++] = (pid_t)v;
	}
	free(copy);
	return 0;
}

static int parse_duration(const char *s, double *d)
{
	char *end;

	errno = 0;
	*d = strtod(s, &end);
	return errno || end == s || *end || !(*d > 0) || *d > 1e7 ? -1 : 0;
}

/* --jit KIND: a frame kind of JIT code by its name (uw2_frames_name()). */
static int parse_jit(const char *s, uint32_t *frames)
{
	for (uint32_t k = UW2_FRAMES_TABLE + 1; uw2_frames_name(k); k++)
		if (!strcmp(s, uw2_frames_name(k))) {
			*frames = k;
			return 0;
		}
	uw_err("record: --jit: unknown frame kind '%s' (v8-arm)", s);
	return -1;
}

/*
 * --jit-range's FILE: a path as the kernel shows the mapped file (from
 * the root, symbolic links resolved) where it exists here, else as given;
 * a base name as given.
 */
static char *jit_range_file(const char *s, size_t len)
{
	char *file = strndup(s, len), *real;

	if (!strchr(file, '/'))
		return file;
	real = realpath(file, NULL);
	if (!real)
		return file;
	free(file);
	return real;
}

/* --jit-range FILE:START-END */
static int parse_jit_range(const char *s, struct rec_opts *o)
{
	const char *colon = strrchr(s, ':');
	char *dash, num[32];
	struct rec_jit_range j = { 0 };
	unsigned int room = o->njit_ranges;

	if (!colon || colon == s || strlen(colon + 1) >= sizeof(num))
		goto bad;
	snprintf(num, sizeof(num), "%s", colon + 1);
	dash = strchr(num, '-');
	if (!dash)
		goto bad;
	*dash = 0;
	if (!uw_parse_u32(num, &j.start) || !uw_parse_u32(dash + 1, &j.end) ||
	    j.start >= j.end)
		goto bad;
	j.file = jit_range_file(s, colon - s);
	o->jit_ranges = rec_grow(o->jit_ranges, &room, o->njit_ranges,
				 sizeof(*o->jit_ranges));
	o->jit_ranges[o->njit_ranges++] = j;
	return 0;
bad:
	uw_err("record: --jit-range wants FILE:START-END (link addresses, START below END), not '%s'",
	       s);
	return -1;
}

static int parse_args(int argc, char **argv, struct rec_opts *o)
{
	static const struct option lo[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "all", no_argument, NULL, 'a' },
		{ "freq", required_argument, NULL, 'F' },
		{ "duration", required_argument, NULL, 'd' },
		{ "tid", required_argument, NULL, 't' },
		{ "tables", required_argument, NULL, 'T' },
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "no-inherit", no_argument, NULL, 'I' },
		{ "table-cache", required_argument, NULL, 'C' },
		{ "no-auto-tables", no_argument, NULL, 'A' },
		{ "no-wait-tables", no_argument, NULL, 'W' },
		{ "jit", required_argument, NULL, 'J' },
		{ "jit-range", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c, modes;

	memset(o, 0, sizeof(*o));
	o->freq = REC_DEFAULT_HZ;
	o->out = "uwprof.data";
	o->tables = getenv("UWPROF_TABLES");
	if (!o->tables || !*o->tables)
		o->tables = "tables";
	optind = 1;
	/* "+": stop at the first non-option, the command to run. */
	while ((c = getopt_long(argc, argv, "+p:t:aF:d:o:qh", lo, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (parse_pids(optarg, "-p", &o->pids, &o->npids))
				return -1;
			break;
		case 't':
			if (parse_pids(optarg, "-t", &o->tids, &o->ntids))
				return -1;
			break;
		case 'q': o->quiet = true; break;
		case 'a': o->all = true; break;
		case 'I': o->no_inherit = true; break;
		case 'F':
			if (!uw_parse_u32(optarg, &o->freq) || !o->freq ||
			    o->freq > 10000) {
				uw_err("record: -F wants a rate from 1 to 10000 Hz, not '%s'",
				       optarg);
				return -1;
			}
			break;
		case 'd':
			if (parse_duration(optarg, &o->duration)) {
				uw_err("record: -d wants a positive number of seconds, not '%s'",
				       optarg);
				return -1;
			}
			break;
		case 'T': o->tables = optarg; break;
		case 'C': o->table_cache = optarg; break;
		case 'A': o->no_auto_tables = true; break;
		case 'W': o->no_wait_tables = true; break;
		case 'J':
			if (parse_jit(optarg, &o->jit_frames))
				return -1;
			break;
		case 'R':
			if (parse_jit_range(optarg, o))
				return -1;
			break;
		case 'o': o->out = optarg; break;
		case 'h': usage(stdout); exit(UWPROF_EXIT_OK);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc)
		o->cmd = argv + optind;
	if (o->njit_ranges && !o->jit_frames) {
		uw_err("record: --jit-range needs --jit KIND: the frame kind of the code");
		return -1;
	}
	modes = !!o->npids + !!o->ntids + o->all + !!o->cmd;
	if (modes != 1) {
		uw_err("record: %s; give one of -p PID, -t TID, -a or -- COMMAND",
		       modes ? "more than one target" : "nothing to profile");
		return -1;
	}
	return 0;
}

/* ---- the device ---- */

static int open_device(void)
{
	int fd = open(UWPROF_DEVICE, O_RDWR | O_CLOEXEC | O_NONBLOCK);

	if (fd >= 0)
		return fd;
	if (errno == ENOENT || errno == ENODEV || errno == ENXIO)
		uw_err("record: no %s: is uwprof.ko loaded? insmod uwprof.ko",
		       UWPROF_DEVICE);
	else if (errno == EACCES || errno == EPERM)
		uw_err("record: %s: %s; recording needs root (or CAP_PERFMON)",
		       UWPROF_DEVICE, strerror(errno));
	else
		uw_err("record: cannot open %s: %s", UWPROF_DEVICE, strerror(errno));
	return -1;
}

/*
 * The vDSO has no file to copy off the device: the data file carries its
 * image, for report to name its functions.
 */
static void write_vdso(struct rec *r)
{
	const uint8_t *image;
	struct uwd_image *im;
	struct uw_elf_info info;
	size_t len;

	if (uw_vdso_image(&image, &len) || uw_vdso_info(&info))
		return;
	im = malloc(sizeof(*im) + len);
	if (!im)
		return;
	memset(im, 0, sizeof(*im));
	im->size = (uint32_t)len;
	im->build_id_len = info.build_id_len;
	memcpy(im->build_id, info.build_id, info.build_id_len);
	memcpy(im + 1, image, len);
	rec_write(r, UWD_IMAGE, im, sizeof(*im) + len, NULL);
	free(im);
}

/* ---- samples ---- */

static bool wanted_thread(const struct rec *r, uint32_t tid)
{
	if (!r->o.ntids)
		return true;
	for (unsigned int i = 0; i < r->o.ntids; i++)
		if ((uint32_t)r->o.tids[i] == tid)
			return true;
	return false;
}

/* Is sample @s one to keep?  Counted if so. */
static bool take(struct rec *r, const struct uwprof_record *s)
{
	if (!wanted_thread(r, s->tid)) {
		r->other_threads++;
		return false;
	}
	r->samples++;
	if (s->stop < UWPROF_STOP_NR)
		r->stops[s->stop]++;
	switch (rec_sample_late(r, s)) {
	case REC_LATE_MAKING: r->pending_samples++; break;
	case REC_LATE_UPLOAD: r->late_samples++; break;
	case REC_LATE_NO: break;
	}
	/* Maybe a library mapped since the last scan: look sooner. */
	if (s->stop == UWPROF_STOP_NO_TABLE)
		r->want_scan = true;
	return true;
}

/*
 * The records of one read, @n bytes of r->buf, up to a malformed one.  The
 * samples kept go to the file as they lie, a run of neighbours at a time
 * (one UWD_SAMPLES record each, usually the whole read), not one by one.
 */
static void drain_read(struct rec *r, size_t n)
{
	size_t pos, run = 0, step;
	uint32_t kept = 0;

	for (pos = 0; pos + sizeof(struct uwprof_record) <= n; pos += step) {
		const struct uwprof_record *s = (void *)(r->buf + pos);

		step = ((size_t)s->size + 7) & ~(size_t)7;
		if (s->size < sizeof(*s) || step > n - pos ||
		    s->nframes > (s->size - sizeof(*s)) / 4) {
			r->bad_records++;
			break;
		}
		if (s->type == UWPROF_RECORD_SAMPLE && take(r, s)) {
			kept++;
			continue;
		}
		rec_write_samples(r, r->buf + run, pos - run, kept);
		run = pos + step;
		kept = 0;
	}
	rec_write_samples(r, r->buf + run, pos - run, kept);
}

static void drain(struct rec *r)
{
	ssize_t n;

	while ((n = read(r->fd, r->buf, REC_READ_BUF)) > 0)
		drain_read(r, (size_t)n);
	if (n < 0 && errno != EAGAIN && errno != EINTR) {
		uw_err("record: reading %s: %s", UWPROF_DEVICE, strerror(errno));
		rec_stop = 1;
	}
}

static int get_stats(struct rec *r, struct uwprof_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	if (ioctl(r->fd, UWPROF_IOC_STATS, st))
		return -1;
	r->lost = st->dropped_full;
	return 0;
}

/* ---- the command ---- */

/*
 * Fork @argv's process; it waits for go_command() before it execs, so
 * the side-band follows it from its exec on.  A failed exec writes its
 * errno on a close-on-exec pipe and the child exits 127.
 *
 * The child is not sampled until its exec of the command succeeds (perf's
 * enable-on-exec): before it, it runs uwprof itself, inside execve(), and
 * its samples would be of the recorder.  record traces it (PTRACE_SEIZE,
 * exec events only), meets it stopped after the exec, before the first
 * instruction of the new image, makes it a target there (its image and
 * loader known and attached before it runs on) and detaches.  Where
 * tracing is refused (Yama's ptrace_scope 3, a security module), the child
 * is a target from before its exec, as the warning says.
 */
struct command {
	pid_t pid;
	int go, done;		/* pipes: parent's ends */
	bool traced;		/* seized: stopped at its exec */
};

static int fork_command(char **argv, struct command *c, bool quiet)
{
	int go[2], done[2], e = 0;
	char b;

	if (pipe2(go, O_CLOEXEC))
		return -1;
	if (pipe2(done, O_CLOEXEC)) {
		close(go[0]);
		close(go[1]);
		return -1;
	}
	c->pid = fork();
	if (c->pid == 0) {
		close(go[1]);
		close(done[0]);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		if (read(go[0], &b, 1) != 1)
			_exit(127);	/* record gave up */
		execvp(argv[0], argv);
		e = errno;
		if (write(done[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(done[1]);
	c->go = go[1];
	c->done = done[0];
	if (c->pid < 0) {
		close(c->go);
		close(c->done);
		return -1;
	}
	/* Killed with record if record dies before the exec. */
	if (ptrace(PTRACE_SEIZE, c->pid, NULL,
		   (void *)(long)(PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL)) == 0)
		c->traced = true;
	else if (!quiet)
		uw_err("record: warning: cannot trace the command (PTRACE_SEIZE: "
		       "%s): it is sampled from before its exec, so its first "
		       "samples are of uwprof itself, inside execve()",
		       strerror(errno));
	return 0;
}

/*
 * Wait for the traced command's exec: 0 when it is stopped there, 1 with
 * *status when it ended before, -1 on an error of waitpid.  Signals sent
 * to it meanwhile (Ctrl-C's SIGINT to the terminal's process group) are
 * passed on; a stop (SIGSTOP) is not kept, as it has nothing to stop yet.
 * record told to stop (SIGINT, SIGTERM) ends it: the command does not
 * outlive the recording.
 */
static int wait_exec(struct command *c, int *status)
{
	bool killed = false;
	int st, sig;

	for (;;) {
		if (waitpid(c->pid, &st, 0) < 0) {
			if (errno != EINTR)
				return -1;
			if (rec_stop && !killed) {
				kill(c->pid, SIGTERM);
				killed = true;
			}
			continue;
		}
		if (!WIFSTOPPED(st)) {
			*status = st;
			return 1;
		}
		if (st >> 8 == (SIGTRAP | (PTRACE_EVENT_EXEC << 8)))
			return 0;
		sig = st >> 16 == PTRACE_EVENT_STOP ? 0 : WSTOPSIG(st);
		if (ptrace(PTRACE_CONT, c->pid, NULL, (void *)(long)sig) && errno != ESRCH)
			return -1;
	}
}

/*
 * The command is stopped right after its exec: a target from here on,
 * with what the side-band (or its maps) says of its new image, before it
 * runs an instruction.
 */
static void command_execd(struct rec *r, struct command *c)
{
	struct target *t = rec_add_target(r, c->pid, true);

	t->exec_stop = true;
	if (r->use_sb)
		sb_read(&r->sb, rec_sideband_event, r);
	else
		rec_scan_all(r);
	t = rec_find_target(r, c->pid);
	if (t)
		t->exec_stop = false;
	if (ptrace(PTRACE_DETACH, c->pid, NULL, NULL) && errno != ESRCH)
		uw_err("record: warning: cannot let the command go on "
		       "(PTRACE_DETACH: %s)", strerror(errno));
}

/* The command ended before it ran: why, and what record exits with. */
static int command_gone(char **argv, struct command *c, int status, int e)
{
	ssize_t n;

	if (!e) {
		do
			n = read(c->done, &e, sizeof(e));
		while (n < 0 && errno == EINTR);
		if (n != sizeof(e))
			e = 0;
	}
	c->pid = 0;
	if (e) {	/* its exec failed */
		uw_err("record: cannot run '%s': %s", argv[0], strerror(e));
		return 127;
	}
	if (rec_stop || (WIFSIGNALED(status) && WTERMSIG(status) == SIGINT)) {
		uw_err("record: stopped before '%s' ran", argv[0]);
		return UWPROF_EXIT_OK;	/* as Ctrl-C during a recording */
	}
	if (WIFSIGNALED(status)) {
		uw_err("record: '%s' was killed by signal %d before it ran",
		       argv[0], WTERMSIG(status));
		return 128 + WTERMSIG(status);
	}
	uw_err("record: '%s' exited with status %d before it ran", argv[0],
	       WEXITSTATUS(status));
	return WIFEXITED(status) && WEXITSTATUS(status) ? WEXITSTATUS(status) : 127;
}

/*
 * Let the command exec: true once its image runs, a target; else false
 * with what record exits with in *ret (127 if it could not be run, as a
 * shell says).
 */
static bool go_command(struct rec *r, char **argv, struct command *c, int *ret)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	int e = 0, status = 0, w;
	ssize_t n;

	if (!c->traced)		/* sampled from now on, its exec included */
		rec_add_target(r, c->pid, true);
	/* A child killed before this is an EPIPE, not the end of record. */
	sigaction(SIGPIPE, &ign, &old);
	n = rec_stop ? 0 : write(c->go, "g", 1);	/* 0: told to stop first */
	sigaction(SIGPIPE, &old, NULL);
	close(c->go);
	if (n == 1 && c->traced) {
		w = wait_exec(c, &status);
		if (w == 0) {
			close(c->done);
			command_execd(r, c);
			return true;
		}
		if (w < 0) {
			uw_err("record: waiting for '%s' to start: %s", argv[0],
			       strerror(errno));
			kill(c->pid, SIGKILL);
			waitpid(c->pid, NULL, 0);
			close(c->done);
			c->pid = 0;
			*ret = UWPROF_EXIT_FAIL;
			return false;
		}
	} else {
		if (n == 1) {	/* untraced: EOF is the exec, an int its errno */
			do
				n = read(c->done, &e, sizeof(e));
			while (n < 0 && errno == EINTR);
			if (n == 0) {
				close(c->done);
				return true;
			}
			if (n != sizeof(e))
				e = 0;
		}
		while (waitpid(c->pid, &status, 0) < 0 && errno == EINTR)
			;
		if (!c->traced)
			r->t[r->nt - 1].gone = true;
	}
	*ret = command_gone(argv, c, status, e);
	close(c->done);
	return false;
}

static void progress(struct rec *r, bool last)
{
	static uint64_t next;
	uint64_t now = rec_now_ns();
	struct uwprof_stats st;

	if (r->o.quiet || !isatty(STDERR_FILENO) || (!last && now < next))
		return;
	next = now + REC_PROGRESS_MS * 1000000ull;
	get_stats(r, &st);
	fprintf(stderr, "\r[ uwprof record: %.1f s, %llu samples, %llu lost ]%s",
		(now - r->t0) / 1e9, (unsigned long long)r->samples,
		(unsigned long long)r->lost, last ? "\n" : "");
}

/* Polling (no side-band): read the maps again now and then. */
struct scan_clock {
	uint64_t next, last, last_change;
	unsigned int interval;
};

static void maybe_scan(struct rec *r, struct scan_clock *c, uint64_t now)
{
	unsigned int max_ms = r->o.all ? REC_SCAN_MAX_ALL_MS : REC_SCAN_MAX_MS;

	if (r->want_scan && now >= c->last + REC_SCAN_HINT_MS * 1000000ull)
		c->next = now;
	if (now < c->next)
		return;
	drain(r);	/* samples of an old image before its exec is seen */
	rec_scan_all(r);
	r->want_scan = false;
	c->last = now;
	if (r->new_maps)
		c->last_change = now;
	c->interval = now < c->last_change + REC_SCAN_SETTLE_MS * 1000000ull ?
		REC_SCAN_MIN_MS :
		(c->interval * 2 > max_ms ? max_ms : c->interval * 2);
	c->next = now + c->interval * 1000000ull;
}

/*
 * The loop: apply the side-band (or scan), drain samples, stop when it
 * is time.  Returns true with *status when the command was reaped.
 */
static bool run_loop(struct rec *r, pid_t child, int *status)
{
	uint64_t deadline = r->o.duration ? r->t0 + (uint64_t)(r->o.duration * 1e9) : 0;
	struct scan_clock sc = { .interval = REC_SCAN_MIN_MS };
	struct pollfd pfd[1 + 64];
	int fds[64], timeout;
	unsigned int nfd = 1, i, n;
	uint64_t now;

	pfd[0] = (struct pollfd){ .fd = r->fd, .events = POLLIN };
	n = r->use_sb ? sb_pollfds(&r->sb, fds, 64) : 0;
	for (i = 0; i < n; i++)
		pfd[nfd++] = (struct pollfd){ .fd = fds[i], .events = POLLIN };
	while (!rec_stop) {
		now = rec_now_ns();
		if (deadline && now >= deadline)
			break;
		if (r->use_sb)
			sb_read(&r->sb, rec_sideband_event, r);
		else
			maybe_scan(r, &sc, now);
		if (child > 0 && waitpid(child, status, WNOHANG) == child) {
			if (r->use_sb)	/* its last mmaps and exits */
				sb_read(&r->sb, rec_sideband_event, r);
			return true;
		}
		/* The command ends when it is reaped, not at its exit record. */
		if (child <= 0 && !r->o.all && !rec_explicit_alive(r))
			break;
		timeout = r->use_sb ? REC_POLL_MAX_SB_MS : REC_POLL_MAX_MS;
		if (!r->use_sb && (sc.next - now) / 1000000 < (uint64_t)timeout)
			timeout = (int)((sc.next - now) / 1000000);
		if (deadline && (deadline - now) / 1000000 < (uint64_t)timeout)
			timeout = (int)((deadline - now) / 1000000);
		poll(pfd, nfd, timeout < 1 ? 1 : timeout);
		/*
		 * A side-band event whose task has exited reports POLLHUP
		 * from then on: poll() would return at once, round and round,
		 * until the command is reaped (its exit may wait on a grace
		 * period).  Its ring is still read each time round.
		 */
		for (i = 1; i < nfd; i++)
			if (pfd[i].revents & (POLLHUP | POLLERR))
				pfd[i].fd = -1;
		if (r->use_sb)	/* mappings before the samples that need them */
			sb_read(&r->sb, rec_sideband_event, r);
		drain(r);
		if (r->workers)	/* tables made meanwhile (SIGCHLD woke us) */
			rec_tables_reap(r, false);
		progress(r, false);
	}
	return false;
}

/* perf record's rule: the command's own status; a signal as a shell says. */
static int command_status(int status)
{
	if (WIFEXITED(status)) {
		if (WEXITSTATUS(status))
			uw_err("record: the command exited with status %d",
			       WEXITSTATUS(status));
		return WEXITSTATUS(status);
	}
	if (WIFSIGNALED(status)) {
		if (WTERMSIG(status) == SIGINT)
			return UWPROF_EXIT_OK;	/* Ctrl-C ended the recording */
		uw_err("record: the command was killed by signal %d",
		       WTERMSIG(status));
		return 128 + WTERMSIG(status);
	}
	return UWPROF_EXIT_OK;
}

static void summary_stops(const struct rec *r)
{
	unsigned int i, j, order[UWPROF_STOP_NR], shown = 0;

	for (i = 0; i < UWPROF_STOP_NR; i++)
		order[i] = i;
	for (i = 1; i < UWPROF_STOP_NR; i++)	/* by count, most first */
		for (j = i; j > 0 && r->stops[order[j]] > r->stops[order[j - 1]]; j--) {
			unsigned int x = order[j];

			order[j] = order[j - 1];
			order[j - 1] = x;
		}
	fprintf(stderr, "uwprof record: unwinds ended:");
	for (i = 0; i < UWPROF_STOP_NR && shown < 4; i++)
		if (r->stops[order[i]]) {
			fprintf(stderr, "%s %s %llu (%.1f%%)", shown ? "," : "",
				uwd_stop_name(order[i]),
				(unsigned long long)r->stops[order[i]],
				100.0 * r->stops[order[i]] / r->samples);
			shown++;
		}
	fprintf(stderr, "\n");
}

/* A quote for a shell around an APK's "base.apk!/lib/..." ('!' is special). */
static const char *q(const char *path)
{
	return strchr(path, '!') ? "'" : "";
}

/* Each file of a sampled process with no table, once, with its fix. */
static void summary_missing(const struct rec *r)
{
	char bid[2 * UW_BUILD_ID_MAX + 1], done[64][256];
	unsigned int i, j, k, ndone = 0;

	for (i = 0; i < r->nt; i++) {
		const struct target *t = &r->t[i];

		if (!t->explicit && !t->followed && !t->attached_ever)
			continue;
		for (j = 0; j < t->nseen; j++) {
			const struct seen_map *s = &t->seen[j];

			/* a table there, attached or not (a child gone first) */
			if ((s->m.flags & UWD_MAP_TABLE) || s->table_id > 0)
				continue;
			/* Before the retry warning too: it names the table. */
			uw_hex(s->m.build_id, s->m.build_id_len, bid);
			if (s->retry) {
				uw_err("record: warning: the table %s/%s.uwt does not "
				       "fit the mapping of %s in pid %d (made from "
				       "another build?)", r->o.tables, bid, s->path,
				       (int)t->pid);
				continue;
			}
			for (k = 0; k < ndone && strcmp(done[k], bid[0] ? bid : s->path); k++)
				;
			if (k < ndone || ndone == 64)
				continue;
			snprintf(done[ndone++], sizeof(done[0]), "%s", bid[0] ? bid : s->path);
			if (!s->m.build_id_len) {
				uw_err("record: no table for %s: it has no build-id "
				       "(tables are found by build-id; link with "
				       "-Wl,--build-id)", s->path);
				continue;
			}
			if (!strcmp(s->path, UW_VDSO_NAME))
				uw_err("record: no table for the kernel's %s (build-id "
				       "%s); copy its image off this device, made with\n"
				       "    uwprof vdso -o vdso.so\n"
				       "and make the table on the host:\n"
				       "    uwprof table vdso.so --build-id-dir %s",
				       s->path, bid, r->o.tables);
			else
				uw_err("record: no table for %s (build-id %s); make it on "
				       "the host from an unstripped copy of that file:\n"
				       "    uwprof table %s%s%s --build-id-dir %s", s->path,
				       bid, q(s->path), s->path, q(s->path), r->o.tables);
		}
	}
}

/*
 * Tables uploaded before their files were mapped, and the samples of
 * code whose table came after them.
 */
static void summary_uploads(const struct rec *r)
{
	if (r->uploads_kept)
		fprintf(stderr, "uwprof record: %llu of %llu table uploads were "
			"validated for an earlier recording and kept by the "
			"module (table_keep_bytes)\n",
			(unsigned long long)r->uploads_kept,
			(unsigned long long)r->uploads);
	if (r->needs_uploaded)
		fprintf(stderr, "uwprof record: %llu tables uploaded as the "
			"command started (program, loader, libraries)\n",
			(unsigned long long)r->needs_uploaded);
	if (r->late_samples || r->tables_cached || r->needs_uploaded)
		fprintf(stderr, "uwprof record: %llu samples stopped no-table in "
			"code whose table (--tables, the cache) was uploaded "
			"after them\n", (unsigned long long)r->late_samples);
}

/* Tables made on this device, and the samples that waited for them. */
static void summary_made(const struct rec *r)
{
	summary_uploads(r);
	if (r->o.no_auto_tables ||
	    !(r->tables_made || r->tables_cached || r->tables_failed))
		return;
	fprintf(stderr, "uwprof record: tables made on this device: %llu "
		"(%.2f s CPU), %llu from the cache, %llu failed; cache %s\n",
		(unsigned long long)r->tables_made, r->make_cpu_ns / 1e9,
		(unsigned long long)r->tables_cached,
		(unsigned long long)r->tables_failed, r->cache);
	if (r->held_ns)
		fprintf(stderr, "uwprof record: the command was paused %.2f s "
			"while its tables were made\n",
			r->held_ns / 1e9);
	if (r->tables_made || r->pending_samples)
		fprintf(stderr, "uwprof record: %llu samples stopped no-table in "
			"code whose table was being made\n",
			(unsigned long long)r->pending_samples);
}

static void summary(const struct rec *r, double secs)
{
	unsigned int procs = 0;

	if (r->o.quiet)
		return;
	for (unsigned int i = 0; i < r->nt; i++)
		procs += r->t[i].attached_ever || r->t[i].module_tables;
	fprintf(stderr, "uwprof record: %llu samples of %u process%s in %.2f s "
		"written to %s; %llu lost (buffer full)\n",
		(unsigned long long)r->samples, procs, procs == 1 ? "" : "es",
		secs, r->o.out, (unsigned long long)r->lost);
	if (r->samples) {
		fprintf(stderr, "uwprof record: fully unwound: %.1f%% (%llu of %llu)\n",
			100.0 * uwd_complete_count(r->stops) / r->samples,
			(unsigned long long)uwd_complete_count(r->stops),
			(unsigned long long)r->samples);
		summary_stops(r);
	}
	fprintf(stderr, "uwprof record: processes followed through %s; the module %s "
		"children and %s tables by build-id\n",
		r->use_sb ? "the perf side-band" : "polling /proc/PID/maps",
		r->inherit ? "follows" : "does not follow (record attaches them)",
		r->bid_taken ? "takes" : "does not take");
	summary_made(r);
	if (r->stale_detached)
		fprintf(stderr, "uwprof record: %llu attachments of old images undone "
			"after an exec\n", (unsigned long long)r->stale_detached);
	if (r->sb.lost)
		uw_err("record: warning: %llu side-band records lost (its ring was "
		       "full): some processes or mappings may be missing",
		       (unsigned long long)r->sb.lost);
	if (r->other_threads)
		fprintf(stderr, "uwprof record: %llu samples of other threads left "
			"out (--tid)\n", (unsigned long long)r->other_threads);
	if (r->bad_records)
		uw_err("record: warning: %llu malformed records from the device "
		       "were skipped", (unsigned long long)r->bad_records);
	summary_missing(r);
}

/* The process a thread belongs to, from /proc/TID/status; 0 if none. */
static pid_t tgid_of(pid_t tid)
{
	char path[64], line[128];
	unsigned int tgid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %u", &tgid) == 1)
			break;
	fclose(f);
	return (pid_t)tgid;
}

/* -t: each thread's process becomes a target, once. */
static int add_thread_pids(struct rec_opts *o)
{
	unsigned int room = o->npids, i, j;
	pid_t tgid;

	for (i = 0; i < o->ntids; i++) {
		tgid = tgid_of(o->tids[i]);
		if (tgid <= 0) {
			uw_err("record: no thread %d (not running)", (int)o->tids[i]);
			return -1;
		}
		for (j = 0; j < o->npids && o->pids[j] != tgid; j++)
			;
		if (j < o->npids)
			continue;
		o->pids = rec_grow(o->pids, &room, o->npids, sizeof(*o->pids));
		o->pids[o->npids++] = tgid;
	}
	return 0;
}

/*
 * Each -p process runs and is 32-bit.  A 64-bit one would never reach the
 * module's refusal: none of its mappings has a table to attach.
 */
static int check_pids(const struct rec_opts *o)
{
	char path[64];

	for (unsigned int i = 0; i < o->npids; i++) {
		snprintf(path, sizeof(path), "/proc/%d/maps", (int)o->pids[i]);
		if (access(path, R_OK)) {
			uw_err("record: no process %d (%s)", (int)o->pids[i],
			       errno == ENOENT ? "not running" : strerror(errno));
			return -1;
		}
		snprintf(path, sizeof(path), "/proc/%d/exe", (int)o->pids[i]);
		if (uw_elf_is_64bit(path)) {
			rec_not_32bit(o->pids[i]);
			return -1;
		}
	}
	return 0;
}

/* -p: the side-band follows each thread of each process. */
static int sideband_pids(struct rec *r)
{
	char path[64];
	struct dirent *d;
	uint32_t tid;
	int err = 0;
	DIR *dir;

	for (unsigned int i = 0; i < r->o.npids && !err; i++) {
		snprintf(path, sizeof(path), "/proc/%d/task", (int)r->o.pids[i]);
		dir = opendir(path);
		if (!dir)
			return -errno;
		while (!err && (d = readdir(dir)))
			if (uw_parse_u32(d->d_name, &tid))
				err = r->sb.ring ? sb_add(&r->sb, (pid_t)tid) :
					sb_open(&r->sb, (pid_t)tid);
		closedir(dir);
	}
	return err;
}

/*
 * The side-band where perf events allow it; else polling the maps, as
 * the summary then says.
 */
static void open_sideband(struct rec *r, pid_t child)
{
	const char *why = getenv("UWPROF_NO_SIDEBAND");
	int err;

	if (why && *why) {
		err = -ENOSYS;
	} else if (r->o.all) {
		err = sb_open(&r->sb, -1);
	} else if (child > 0) {
		err = sb_open(&r->sb, child);
	} else {
		err = sideband_pids(r);
		if (err && r->sb.ring)
			sb_close(&r->sb);
	}
	r->use_sb = !err;
	if (err && !r->o.quiet)
		uw_err("record: warning: no perf side-band (%s%s); reading "
		       "/proc/PID/maps now and then instead: children are not "
		       "followed and new code is seen late", strerror(-err),
		       err == -EACCES || err == -EPERM ?
		       ", see /proc/sys/kernel/perf_event_paranoid" : "");
}

/*
 * Sampling, with the module following children (and every process for
 * -a) if it can; a module that cannot says EINVAL (a uwprof.ko older than
 * this uwprof), and record then follows them itself, attaching as it
 * learns about them: said as a warning, since a child's first samples
 * then go without a table.
 */
static int start_sampling(struct rec *r)
{
	struct uwprof_start st = {
		.size = sizeof(st), .freq_hz = r->o.freq,
		/* As perf: -p and a command per task, -a per CPU. */
		.flags = r->o.all ? UWPROF_START_ALL : UWPROF_START_PER_TASK,
		.anon_frames = r->o.jit_frames,
	};

	if (!r->o.all && !r->o.no_inherit)
		st.flags |= UWPROF_START_INHERIT;
	if (ioctl(r->fd, UWPROF_IOC_START, &st) == 0) {
		r->inherit = st.flags & (UWPROF_START_INHERIT | UWPROF_START_ALL);
		return 0;
	}
	if (errno == EINVAL && st.anon_frames) {
		uw_err("record: the module does not walk JIT code (START with "
		       "anon_frames: EINVAL; is uwprof.ko older than this uwprof?): "
		       "load this uwprof's module, or record without --jit");
		errno = EINVAL;
		return -1;
	}
	if (errno != EINVAL || !(st.flags & (UWPROF_START_INHERIT | UWPROF_START_ALL)))
		return -1;
	st.flags &= ~(UWPROF_START_INHERIT | UWPROF_START_ALL);
	uw_err("record: warning: the module does not follow children (START "
	       "with %s: EINVAL; is uwprof.ko older than this uwprof?); record "
	       "attaches them as it learns of them, so their first samples "
	       "may have no table", r->o.all ? "START_ALL" : "START_INHERIT");
	return ioctl(r->fd, UWPROF_IOC_START, &st);
}

static void finish(struct rec *r)
{
	struct uwprof_stats st;

	if (ioctl(r->fd, UWPROF_IOC_STOP) && errno != EALREADY)
		uw_err("record: warning: stopping the sampler: %s", strerror(errno));
	drain(r);
	rec_write_jitmaps(r);
	rec_jit_ranges_check(r);
	if (get_stats(r, &st) == 0)
		rec_write(r, UWD_STATS, &st, sizeof(st), NULL);
	progress(r, true);
	if (uwd_close(&r->w, rec_now_ns())) {
		uw_err("record: cannot write %s: %s", r->o.out, strerror(errno));
		exit(UWPROF_EXIT_FAIL);
	}
}

static int run(struct rec *r)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct sigaction sc = { .sa_handler = on_child };
	struct command c = { 0 };
	bool reaped = false;
	int status = 0, ret;

	r->fd = open_device();
	if (r->fd < 0)
		return UWPROF_EXIT_FAIL;
	rec_cache_init(r);
	if (r->o.cmd && fork_command(r->o.cmd, &c, r->o.quiet)) {
		uw_err("record: cannot start '%s': %s", r->o.cmd[0], strerror(errno));
		return UWPROF_EXIT_FAIL;
	}
	open_sideband(r, c.pid);
	r->buf = malloc(REC_READ_BUF);
	if (!r->buf || uwd_open(&r->w, r->o.out, r->o.freq,
				(r->use_sb ? UWD_HDR_TIMED : 0) |
				(r->o.all ? UWD_HDR_ALL : 0))) {
		uw_err("record: cannot create %s: %s", r->o.out, strerror(errno));
		goto fail;
	}
	write_vdso(r);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGCHLD, &sc, NULL);
	r->t0 = rec_now_ns();
	if (start_sampling(r)) {
		uw_err("record: cannot start sampling: %s", strerror(errno));
		goto fail;
	}
	r->by_build_id = true;	/* until the module says otherwise */
	rec_upload_all(r);
	for (unsigned int i = 0; i < r->o.npids; i++)
		rec_add_target(r, r->o.pids[i], true);
	if (c.pid > 0 && !go_command(r, r->o.cmd, &c, &ret)) {
		finish(r);
		return ret;
	}
	/* Processes already running; with the side-band, the only scan. */
	if (!r->use_sb || !c.pid)
		rec_scan_all(r);
	if (r->failed || (!r->o.all && !rec_explicit_alive(r) && !c.pid)) {
		if (c.pid > 0)
			kill(c.pid, SIGTERM);
		finish(r);
		return UWPROF_EXIT_FAIL;
	}
	reaped = run_loop(r, c.pid, &status);
	rec_release_all(r);
	/* Stopped by -d or a signal: the command does not outlive the recording. */
	if (c.pid > 0 && !reaped && waitpid(c.pid, NULL, WNOHANG) == 0)
		kill(c.pid, SIGTERM);
	finish(r);
	/* Tables still being made go on into the cache, for next time. */
	if (r->workers && !r->o.quiet)
		fprintf(stderr, "uwprof record: finishing %u table%s being made "
			"into %s\n", r->workers, r->workers == 1 ? "" : "s", r->cache);
	rec_tables_reap(r, true);
	summary(r, (rec_now_ns() - r->t0) / 1e9);
	if (c.pid > 0 && !reaped)
		waitpid(c.pid, NULL, 0);
	if (r->use_sb)
		sb_close(&r->sb);
	return reaped ? command_status(status) : UWPROF_EXIT_OK;
fail:
	if (c.pid > 0) {
		close(c.go);	/* the child exits 127 without running anything */
		close(c.done);
		waitpid(c.pid, NULL, 0);
	}
	return UWPROF_EXIT_FAIL;
}

static int cmd_record(int argc, char **argv)
{
	struct rec r;

	memset(&r, 0, sizeof(r));
	if (parse_args(argc, argv, &r.o))
		return UWPROF_EXIT_USAGE;
	if (add_thread_pids(&r.o) || check_pids(&r.o))
		return UWPROF_EXIT_USAGE;
	return run(&r);
}

UWPROF_COMMAND(record, "record", "sample processes' call stacks into uwprof.data",
	       cmd_record)
