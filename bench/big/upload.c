// SPDX-License-Identifier: GPL-2.0
/*
 * upload FILE...: make bench-big's measure of what a table costs the
 * kernel to take (bench/big/bench-big.sh), in the benchmark VM.
 *
 * Opens the device (its memory for one CPU is allocated then), and
 * uploads every part of each .uwt file (or raw blob) as a plain table,
 * one UWPROF_IOC_TABLE_UPLOAD each: the copy in, validation and
 * the search for an identical table.  Under -icount shift=0 a guest
 * nanosecond is one instruction, so the call's CLOCK_MONOTONIC time is
 * its instruction count.  Kernel memory is how much /proc/meminfo's
 * MemFree fell (kB): the VM runs nothing else meanwhile, and the
 * uploader's own pages are all touched before.  Prints, one line each:
 *	open kb=N
 *	table file=F part=I bytes=N ns=N kb=N verr=N
 * The file stays open until the end, so the tables stay uploaded.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "uapi/uwprof.h"
#include "lib/uwt.h"

/* Memory in use, by /proc/meminfo's MemFree, in kB. */
static long kernel_kb(void)
{
	static char buf[4096];
	long free_kb = 0;
	char *p;
	ssize_t n;
	int fd = open("/proc/meminfo", O_RDONLY);

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	p = strstr(buf, "MemFree:");
	if (p)
		sscanf(p + 8, "%ld", &free_kb);
	return -free_kb;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int upload_part(int fd, const char *path, unsigned int i,
		       const struct uwt_part *p)
{
	struct uwprof_table_upload up;
	long kb0, kb1;
	long long t0, t1;
	int ret;

	memset(&up, 0, sizeof(up));
	up.size = sizeof(up);
	up.data = (unsigned long)p->blob;
	up.len = p->blob_size;
	kb0 = kernel_kb();
	t0 = now_ns();
	ret = ioctl(fd, UWPROF_IOC_TABLE_UPLOAD, &up);
	t1 = now_ns();
	kb1 = kernel_kb();
	if (ret && errno != EINVAL) {
		fprintf(stderr, "upload: %s part %u: %s\n", path, i,
			strerror(errno));
		return -1;
	}
	printf("table file=%s part=%u bytes=%u ns=%lld kb=%ld verr=%u\n",
	       path, i, p->blob_size, t1 - t0, kb1 - kb0, up.verr);
	return 0;
}

int main(int argc, char **argv)
{
	struct uwt_file f;
	struct uwt_part p;
	char err[256];
	long kb0;
	unsigned int i;
	int fd, a;

	if (argc < 2) {
		fprintf(stderr, "usage: upload FILE...\n");
		return 2;
	}
	kb0 = kernel_kb();
	fd = open(UWPROF_DEVICE, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "upload: %s: %s (is uwprof.ko loaded?)\n",
			UWPROF_DEVICE, strerror(errno));
		return 1;
	}
	printf("open kb=%ld\n", kernel_kb() - kb0);
	for (a = 1; a < argc; a++) {
		if (uwt_load_file(argv[a], &f, err, sizeof(err))) {
			fprintf(stderr, "upload: %s\n", err);
			return 1;
		}
		for (i = 0; i < f.nparts; i++) {
			uwt_part(&f, i, &p);
			if (upload_part(fd, argv[a], i, &p))
				return 1;
		}
		free(f.buf);
	}
	close(fd);
	return 0;
}
