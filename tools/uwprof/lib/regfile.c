// SPDX-License-Identifier: GPL-2.0
/* Open only regular files, without blocking on FIFOs or devices. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/regfile.h"

int uw_open_regular(const char *path)
{
	struct stat st;
	int fd, flags;

	/* O_NONBLOCK: opening a FIFO with no writer returns at once. */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st)) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		errno = S_ISDIR(st.st_mode) ? EISDIR : UW_ENOTREG;
		return -1;
	}
	/* Reads of a regular file do not block anyway; keep the usual mode. */
	flags = fcntl(fd, F_GETFL);
	if (flags >= 0)
		fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
	return fd;
}

FILE *uw_fopen_regular(const char *path)
{
	int fd = uw_open_regular(path), e;
	FILE *f;

	if (fd < 0)
		return NULL;
	f = fdopen(fd, "rb");
	if (!f) {
		e = errno;
		close(fd);
		errno = e;
	}
	return f;
}

int uw_read_regular(const char *path, size_t max, uint8_t **buf, size_t *size)
{
	size_t room = 64 << 10, n = 0, got;
	FILE *f = uw_fopen_regular(path);
	uint8_t *b, *g;
	int e;

	if (!f)
		return -1;
	b = malloc(room);
	if (!b) {
		e = ENOMEM;
		goto fail;
	}
	while ((got = fread(b + n, 1, room - n, f)) > 0) {
		n += got;
		if (n > max) {
			e = EFBIG;
			goto fail;
		}
		if (n == room) {
			g = realloc(b, room *= 2);
			if (!g) {
				e = ENOMEM;
				goto fail;
			}
			b = g;
		}
	}
	if (ferror(f)) {
		e = errno ? errno : EIO;
		goto fail;
	}
	fclose(f);
	g = realloc(b, n ? n : 1);
	*buf = g ? g : b;
	*size = n;
	return 0;
fail:
	free(b);
	fclose(f);
	errno = e;
	return -1;
}

const char *uw_file_strerror(int err)
{
	if (err == UW_ENOTREG)
		return "not a regular file (a FIFO, device or socket)";
	return strerror(err);
}
