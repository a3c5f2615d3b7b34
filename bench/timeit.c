// SPDX-License-Identifier: GPL-2.0
/*
 * timeit -o FILE -- COMMAND [ARGS...]
 *
 * Runs COMMAND and appends one line to FILE:
 *	wall_ns=N user_us=N sys_us=N nvcsw=N status=N
 * wall_ns: CLOCK_MONOTONIC from fork to the end of wait; user_us/sys_us:
 * CPU time of COMMAND and of every descendant it waited for (so, for a
 * profiler that runs the workload, profiler and workload together);
 * nvcsw: their voluntary context switches (a collector's wake-ups).
 * Built static for the benchmark VM; libc only.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static unsigned long long tv_us(const struct timeval *tv)
{
	return tv->tv_sec * 1000000ull + tv->tv_usec;
}

int main(int argc, char **argv)
{
	const char *out = NULL;
	unsigned long long t0, t1;
	struct rusage ru;
	int status, i = 1;
	pid_t pid;
	FILE *f;

	if (argc > 2 && !strcmp(argv[1], "-o")) {
		out = argv[2];
		i = 3;
	}
	if (i < argc && !strcmp(argv[i], "--"))
		i++;
	if (!out || i >= argc) {
		fprintf(stderr, "usage: timeit -o FILE -- COMMAND [ARGS...]\n");
		return 2;
	}
	t0 = now_ns();
	pid = fork();
	if (pid == 0) {
		execvp(argv[i], argv + i);
		fprintf(stderr, "timeit: %s: %s\n", argv[i], strerror(errno));
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		perror("timeit");
		return 1;
	}
	t1 = now_ns();
	getrusage(RUSAGE_CHILDREN, &ru);
	f = fopen(out, "a");
	if (!f) {
		perror(out);
		return 1;
	}
	fprintf(f, "wall_ns=%llu user_us=%llu sys_us=%llu nvcsw=%ld status=%d\n",
		t1 - t0, tv_us(&ru.ru_utime), tv_us(&ru.ru_stime), ru.ru_nvcsw,
		WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	fclose(f);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
