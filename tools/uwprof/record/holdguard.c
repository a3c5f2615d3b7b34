// SPDX-License-Identifier: GPL-2.0
/*
 * uwprof record: the guard of paused processes.  record pauses the
 * processes it started with SIGSTOP while their tables are made
 * (record/autotable.c); if record itself dies without letting them go
 * (SIGKILL, the OOM killer, a crash), nothing else would ever continue
 * them.  The guard is a small child of record, started at the first
 * pause, that sleeps until its parent dies (PR_SET_PDEATHSIG) and then
 * sends SIGCONT to every process still marked paused.  The marks live in
 * a page shared with it: record marks a pid before it stops it and
 * unmarks it after it has continued it, so no pause escapes the guard.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record/record.h"
#include "uwprof.h"

/* Pids marked paused; a process beyond them is not paused at all. */
#define GUARD_SLOTS	1024

struct hold_guard {
	pid_t pid;
	volatile pid_t *slots;
};

static struct hold_guard guard;

static void guard_main(pid_t parent)
{
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGINT, SIG_IGN);	/* Ctrl-C is record's to handle */
	signal(SIGTERM, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	rec_close_inherited();
	if (prctl(PR_SET_PDEATHSIG, SIGHUP))
		_exit(1);
	/* record may have died before the line above */
	while (getppid() == parent)
		if (!sigwait(&set, &sig))
			break;
	for (unsigned int i = 0; i < GUARD_SLOTS; i++)
		if (guard.slots[i] > 0)
			kill(guard.slots[i], SIGCONT);
	_exit(0);
}

static int guard_start(void)
{
	pid_t parent = getpid();
	void *page;

	page = mmap(NULL, GUARD_SLOTS * sizeof(pid_t), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		return -1;
	guard.slots = page;
	guard.pid = fork();
	if (guard.pid == 0)
		guard_main(parent);
	if (guard.pid < 0) {
		munmap(page, GUARD_SLOTS * sizeof(pid_t));
		guard.slots = NULL;
		return -1;
	}
	return 0;
}

/*
 * Mark @pid paused before record stops it; false when it cannot be
 * guarded (no guard, or its page full): then it is not paused.
 */
bool rec_guard_mark(pid_t pid)
{
	if (!guard.slots && guard_start()) {
		uw_err("record: warning: cannot start the guard of paused "
		       "processes (%s): the command is not paused while its "
		       "tables are made", strerror(errno));
		return false;
	}
	for (unsigned int i = 0; i < GUARD_SLOTS; i++)
		if (!guard.slots[i]) {
			guard.slots[i] = pid;
			return true;
		}
	return false;
}

/* @pid was continued (or is gone): the guard forgets it. */
void rec_guard_unmark(pid_t pid)
{
	for (unsigned int i = 0; guard.slots && i < GUARD_SLOTS; i++)
		if (guard.slots[i] == pid)
			guard.slots[i] = 0;
}

/* Is @pid the guard (a child of record, not a process to profile)? */
bool rec_is_guard(pid_t pid)
{
	return guard.pid > 0 && pid == guard.pid;
}

/* record ends normally, every process continued: the guard goes. */
void rec_guard_stop(void)
{
	if (guard.pid <= 0)
		return;
	kill(guard.pid, SIGKILL);
	while (waitpid(guard.pid, NULL, 0) < 0 && errno == EINTR)
		;
	guard.pid = 0;
}
