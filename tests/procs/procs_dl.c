// SPDX-License-Identifier: GPL-2.0
/*
 * procs_dl ROUNDS DIR: dlopen DIR/libprocs_a.so, call its lib_entry,
 * dlclose it, then the same with libprocs_b.so, ROUNDS times.  The two
 * libraries are the same size, so each lands where the other was: the
 * report must name each frame from the library mapped at its time.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int one(const char *dir, const char *name)
{
	char path[512];
	void (*entry)(unsigned int);
	void *h;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "procs_dl: %s\n", dlerror());
		return -1;
	}
	entry = (void (*)(unsigned int))dlsym(h, "lib_entry");
	if (!entry) {
		fprintf(stderr, "procs_dl: %s\n", dlerror());
		return -1;
	}
	/* When it ran, for the test to check each sample's library. */
	unsigned long long t0 = now_ns();

	entry(3000000);
	printf("%s %llu %llu\n", name, t0, now_ns());
	dlclose(h);
	return 0;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 10;
	const char *dir = argc > 2 ? argv[2] : ".";

	for (int i = 0; i < rounds; i++)
		if (one(dir, "libprocs_a.so") || one(dir, "libprocs_b.so"))
			return 1;
	return 0;
}
