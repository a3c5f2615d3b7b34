// SPDX-License-Identifier: GPL-2.0
/*
 * Two threads on one CPU that yield to each other and push and pop d8
 * right after (vfptrap.S): every yield switches, and the switch leaves
 * VFP off, so those VFP instructions trap.  Runs argv[1] seconds.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

void spin(void);

static void *run(void *arg)
{
	(void)arg;
	spin();
	return NULL;
}

int main(int argc, char **argv)
{
	cpu_set_t one;
	pthread_t t[2];
	int i;

	CPU_ZERO(&one);
	CPU_SET(0, &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		return 1;
	for (i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, run, NULL))
			return 1;
	sleep(argc > 1 ? atoi(argv[1]) : 8);
	_exit(0);
}
