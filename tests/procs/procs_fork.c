// SPDX-License-Identifier: GPL-2.0
/*
 * procs_fork RATE SECONDS: a parent that forks RATE short-lived children
 * a second for SECONDS; each child spins about 2 ms in child_spin and
 * exits; at the end it prints how many children it forked.  For the
 * process-tracking test (tests/host/procs_vm.sh).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static volatile unsigned int sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

NOINLINE void child_spin(double secs)
{
	double end = now() + secs;
	unsigned int x = 1;

	while (now() < end)
		for (int i = 0; i < 1000; i++)
			x = x * 1103515245u + 12345u;
	sink = x;
}

NOINLINE void child_main(void)
{
	child_spin(0.002);
	_exit(0);
}

NOINLINE int parent_loop(int rate, double secs)
{
	double start = now(), step = 1.0 / rate;
	int n = 0;

	while (now() < start + secs) {
		pid_t pid = fork();

		if (pid == 0)
			child_main();
		n++;
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		while (now() < start + n * step)
			usleep(200);
	}
	while (wait(NULL) > 0)
		;
	return n;
}

int main(int argc, char **argv)
{
	int n = parent_loop(argc > 1 ? atoi(argv[1]) : 100,
			    argc > 2 ? atof(argv[2]) : 5);

	/* what the test judges the followed children against */
	printf("procs_fork: %d children\n", n);
	return 0;
}
