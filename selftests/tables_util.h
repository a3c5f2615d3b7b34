/* SPDX-License-Identifier: GPL-2.0 */
/*
 * For selftests that sample a program of their own with real tables
 * (chain_test.c, jit_test.c): the program started again as the child to
 * sample, the tables of its files, made by "uwprof table" at build time,
 * attached to its mappings, the link-time range of named functions from
 * <program>.syms (nm -S), and the records read back.
 *
 * Tables are found as $UWPROF_TABLES/<file name>.uwt (default: the
 * directory of this program).  Include after record/attach.h.
 */
#ifndef UWPROF_TABLES_UTIL_H
#define UWPROF_TABLES_UTIL_H

#include <libgen.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/uwt.h"
#include "uapi/uwprof.h"

/*
 * Start this program again as "NAME FLAG READY GO [ARG]": once exec'd
 * (so tables go to the new image) the child writes @len bytes of what it
 * has to say to READY, which land in @msg, then waits for a byte on GO,
 * the pipe *@go_fd writes.  Returns its pid, or -1.
 */
static inline pid_t spawn_self(const char *name, const char *flag,
			       const char *arg, int *go_fd, void *msg,
			       size_t len)
{
	int ready[2], go[2];
	char a[16], b[16];
	pid_t pid;

	if (pipe(ready) || pipe(go))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(ready[0]);
		close(go[1]);
		snprintf(a, sizeof(a), "%d", ready[1]);
		snprintf(b, sizeof(b), "%d", go[0]);
		execl("/proc/self/exe", name, flag, a, b, arg, NULL);
		_exit(127);
	}
	close(ready[1]);
	close(go[0]);
	if (read(ready[0], msg, len) != (ssize_t)len) {
		close(ready[0]);
		return -1;
	}
	close(ready[0]);
	*go_fd = go[1];
	return pid;
}

/*
 * Every record the device has for @fd now, to @judge; returns how many
 * were malformed (a size below the header's, where reading stops).
 */
static inline unsigned int drain_records(int fd,
			void (*judge)(const struct uwprof_record *r, void *ctx),
			void *ctx)
{
	static char buf[1 << 16];
	unsigned int bad = 0;
	ssize_t n;
	char *p;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (p = buf; p < buf + n;
		     p += ((struct uwprof_record *)p)->size) {
			const struct uwprof_record *r = (void *)p;

			if (r->size < sizeof(*r)) {
				bad++;
				break;
			}
			judge(r, ctx);
		}
	return bad;
}

/*
 * Whether @pc lies in [@start, @end) of a program loaded at @bias; a
 * return address is taken one byte back, since it may sit just past a
 * call that ends its function.
 */
static inline bool pc_in_func(uint32_t start, uint32_t end, uint32_t bias,
			      uint32_t pc, bool return_address)
{
	uint32_t a = (pc & ~1u) - bias - (return_address ? 1 : 0);

	return a >= start && a < end;
}

/* A record's stop and first frames, to show where a missed sample went. */
static inline void print_miss(const struct uwprof_record *r)
{
	unsigned int i;

	printf("# miss: stop %u, %u frames:", r->stop, r->nframes);
	for (i = 0; i < r->nframes && i < 12; i++)
		printf(" %08x", r->frames[i]);
	printf("\n");
}

static inline const char *own_dir(void)
{
	static char exe[512];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	exe[n > 0 ? n : 0] = 0;
	return dirname(exe);
}

static inline const char *table_dir(void)
{
	const char *d = getenv("UWPROF_TABLES");

	return d ? d : own_dir();
}

/*
 * Link-time [start, end) of the @n functions @names, from <exe>.syms;
 * 0, or -1 unless all were found.
 */
static inline int read_syms_named(const char *const *names, unsigned int n,
				  uint32_t *start, uint32_t *end)
{
	char path[600], name[64], line[256];
	unsigned int addr, size, i, found = 0;
	ssize_t len;
	FILE *f;

	len = readlink("/proc/self/exe", path, sizeof(path) - 6);
	if (len <= 0)
		return -1;
	strcpy(path + len, ".syms");
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%x %x %*s %63s", &addr, &size, name) == 3)
			for (i = 0; i < n; i++)
				if (!strcmp(name, names[i])) {
					start[i] = addr & ~1u;
					end[i] = (addr & ~1u) + size;
					found |= 1u << i;
				}
	fclose(f);
	return found == (1u << n) - 1 ? 0 : -1;
}

/*
 * Attach the table of every executable file mapping of @pid.  Returns
 * how many were attached; *exe_bias gets the load bias of this program.
 */
static inline int attach_all(int fd, pid_t pid, uint32_t *exe_bias)
{
	char self[512], tpath[700], err[256];
	struct uw_mapping *maps;
	unsigned int n, i;
	int attached = 0, id;
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);

	self[len > 0 ? len : 0] = 0;
	if (uw_read_maps(pid, &maps, &n))
		return -1;
	for (i = 0; i < n; i++) {
		struct uwt_file t;
		uint32_t start, end;

		if (!maps[i].exec || maps[i].path[0] != '/')
			continue;
		snprintf(tpath, sizeof(tpath), "%s/%s.uwt", table_dir(),
			 basename(maps[i].path));
		if (uwt_load_file(tpath, &t, err, sizeof(err))) {
			printf("# no table for %s: %s\n", maps[i].path, err);
			continue;
		}
		if (uw_runtime_text(&t.meta, &maps[i], &start, &end) == 0) {
			id = uw_dev_upload(fd, t.blob, t.blob_size, 0, NULL);
			if (id > 0 && !uw_dev_attach(fd, pid, id, start, end)) {
				attached++;
				if (!strcmp(maps[i].path, self))
					*exe_bias = start - t.meta.text_addr;
			}
		}
		free(t.buf);
	}
	free(maps);
	return attached;
}

#endif
