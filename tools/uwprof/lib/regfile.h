/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Opening files named by untrusted data (a mapping's path in a data file,
 * a build-id directory, a table directory): only regular files, and the
 * open itself never blocks (a FIFO or a tty would otherwise wait for a
 * writer forever).  libc only: the device-side uwprof links it.
 */
#ifndef UWPROF_REGFILE_H
#define UWPROF_REGFILE_H

#include <errno.h>
#include <stdio.h>

/*
 * Open @path read-only if it is a regular file.  Returns the descriptor,
 * or -1 with errno set; errno is UW_ENOTREG for a directory, FIFO,
 * device or socket (open(2) never returns EINVAL for a plain O_RDONLY
 * open, so the value is free to mean this).
 */
#define UW_ENOTREG	EINVAL
int uw_open_regular(const char *path);

/* The same as a stdio stream opened "rb"; NULL with errno set. */
FILE *uw_fopen_regular(const char *path);

/* strerror(), with "not a regular file" for what was refused above. */
const char *uw_file_strerror(int err);

#endif
