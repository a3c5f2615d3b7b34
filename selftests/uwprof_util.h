/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the uwprof selftests (run as root inside the VM). */
#ifndef UWPROF_SELFTEST_UTIL_H
#define UWPROF_SELFTEST_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "uapi/uwprof.h"

/* Where the VM image puts the module; UWPROF_KO overrides. */
static inline const char *uwprof_ko_path(void)
{
	const char *p = getenv("UWPROF_KO");

	return p ? p : "/uwprof.ko";
}

/* Load the module unless it is loaded; 0 or -errno. */
static inline int uwprof_load(void)
{
	int fd = open(uwprof_ko_path(), O_RDONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, "", 0);
	ret = (ret && errno != EEXIST) ? -errno : 0;
	close(fd);
	return ret;
}

/* Unload without waiting; 0 or -errno (EWOULDBLOCK while in use). */
static inline int uwprof_unload(void)
{
	return syscall(SYS_delete_module, "uwprof", O_NONBLOCK) ? -errno : 0;
}

static inline int uwprof_open_dev(void)
{
	return open(UWPROF_DEVICE, O_RDWR | O_CLOEXEC);
}

#endif
