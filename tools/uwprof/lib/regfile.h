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
#include <stddef.h>
#include <stdint.h>
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

/*
 * The whole of regular file @path, in a malloc'd buffer of exactly its
 * size (so that a reader running past the end is caught), into *@buf and
 * *@size.  Returns 0, or -1 with errno set: EFBIG when the file holds more
 * than @max bytes, ENOMEM, or what opening or reading it failed with.
 */
int uw_read_regular(const char *path, size_t max, uint8_t **buf, size_t *size);

/* strerror(), with "not a regular file" for what was refused above. */
const char *uw_file_strerror(int err);

#endif
