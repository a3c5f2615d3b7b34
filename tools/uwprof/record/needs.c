// SPDX-License-Identifier: GPL-2.0
/*
 * uwprof record: the files a new image will map before its code runs,
 * found as its loader finds them: the program's interpreter (PT_INTERP)
 * and the closure of DT_NEEDED, each name looked up in the requesting
 * object's DT_RPATH (and the program's), LD_LIBRARY_PATH, its DT_RUNPATH
 * ($ORIGIN expanded), then the system's directories (SYSTEM_DIRS after
 * the interpreter's own and the same under /usr).  /etc/ld.so.cache and
 * ld.so.conf are not read: a
 * library found only through them is missed here, and its table is
 * uploaded when its mapping is seen, as before (record/procs.c).  A
 * candidate counts only if it is a 32-bit ARM ELF file, as for the
 * loader, which skips files of another machine.
 *
 * record uploads these files' tables before the command runs, so the
 * module attaches them by build-id as the loader maps them: no sample
 * of theirs waits for record to read the mapping from the side-band.
 * A wrong guess costs an unused upload, never a wrong attachment (the
 * module attaches by the build-id of what is mapped).  libc only.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/elf.h"
#include "record/record.h"

/* The directory of @path into @dir ("." if none). */
static void dir_of(const char *path, char *dir, size_t room)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, room, ".");
	else if (slash == path)
		snprintf(dir, room, "/");
	else
		snprintf(dir, room, "%.*s", (int)(slash - path), path);
}

/* @dir with $ORIGIN or ${ORIGIN} replaced by @origin, into @out. */
static int expand_origin(const char *dir, size_t len, const char *origin,
			 char *out, size_t room)
{
	size_t o = 0;

	while (len && o + 1 < room) {
		size_t k = !strncmp(dir, "${ORIGIN}", 9) && len >= 9 ? 9 :
			   !strncmp(dir, "$ORIGIN", 7) && len >= 7 ? 7 : 0;

		if (k) {
			o += snprintf(out + o, room - o, "%s", origin);
			dir += k;
			len -= k;
			continue;
		}
		out[o++] = *dir++;
		len--;
	}
	if (o >= room)
		return -1;
	out[o] = 0;
	return 0;
}

/*
 * @name in the ':'-separated directories @dirs: its path in @out and
 * true, if one holds a 32-bit ARM ELF of that name.
 */
static bool find_in(const char *dirs, const char *name, const char *origin,
		    char *out, size_t room)
{
	char dir[PATH_MAX];
	struct uw_elf_deps *d;
	bool found = false;

	if (!dirs || !*dirs)
		return false;
	d = malloc(sizeof(*d));
	for (const char *p = dirs; d && !found && *p; p += *p == ':') {
		size_t len = strcspn(p, ":");

		if (len && !expand_origin(p, len, origin, dir, sizeof(dir)) &&
		    (size_t)snprintf(out, room, "%s/%s", dir, name) < room)
			found = !access(out, R_OK) && !uw_elf_deps(out, d);
		p += len;
	}
	free(d);
	return found;
}

/*
 * Where loaders look when nothing else names a directory: glibc's own
 * (Debian's multiarch ones for armhf and armel included, which its
 * loader has built in), and Android's (the system's, the vendor's, the
 * runtime's bionic libraries).
 */
#define SYSTEM_DIRS	"/lib/arm-linux-gnueabihf:/usr/lib/arm-linux-gnueabihf:" \
			"/lib/arm-linux-gnueabi:/usr/lib/arm-linux-gnueabi:" \
			"/lib:/usr/lib:/system/lib:/vendor/lib:" \
			"/apex/com.android.runtime/lib/bionic"

struct needs_walk {
	struct rec_needs *out;
	char exe_rpath[1024];	/* the program's DT_RPATH */
	char exe_dir[PATH_MAX];
	/* the system's directories */
	char sys[2 * PATH_MAX + sizeof(SYSTEM_DIRS) + 8];
};

/* The system's directories: the interpreter's first, from where it is. */
static void system_dirs(struct needs_walk *w, const char *interp)
{
	char real[PATH_MAX], dir[PATH_MAX];
	bool usr;

	if (!interp[0] || !realpath(interp, real))
		snprintf(real, sizeof(real), "/lib/ld");
	dir_of(real, dir, sizeof(dir));
	usr = !strncmp(dir, "/usr/", 5);
	snprintf(w->sys, sizeof(w->sys), "%s:%s%s:" SYSTEM_DIRS, dir,
		 usr ? "" : "/usr", usr ? "" : dir);
}

/* Add @path to the list unless it is there (by its real path). */
static void add(struct rec_needs *out, const char *path)
{
	char real[PATH_MAX];

	if (!realpath(path, real) || strlen(real) >= sizeof(out->path[0]))
		return;
	for (unsigned int i = 0; i < out->n; i++)
		if (!strcmp(out->path[i], real))
			return;
	if (out->n < REC_NEEDS_MAX)
		snprintf(out->path[out->n++], sizeof(out->path[0]), "%s", real);
}

/* Where the loader would find @name, needed by @d (the file @obj). */
static void resolve_name(struct needs_walk *w, const struct uw_elf_deps *d,
			 const char *obj, const char *name)
{
	char origin[PATH_MAX], path[PATH_MAX];

	if (strchr(name, '/')) {
		add(w->out, name);
		return;
	}
	dir_of(obj, origin, sizeof(origin));
	/* DT_RPATH: the object's, then the program's; not with DT_RUNPATH */
	if ((d->rpath && find_in(d->runpath, name, origin, path, sizeof(path))) ||
	    ((!d->runpath[0] || d->rpath) &&
	     find_in(w->exe_rpath, name, w->exe_dir, path, sizeof(path))) ||
	    find_in(getenv("LD_LIBRARY_PATH"), name, origin, path, sizeof(path)) ||
	    (!d->rpath && find_in(d->runpath, name, origin, path, sizeof(path))) ||
	    find_in(w->sys, name, origin, path, sizeof(path)))
		add(w->out, path);
}

void rec_image_needs(const char *exe, struct rec_needs *out)
{
	struct needs_walk w = { .out = out };
	struct uw_elf_deps *d = malloc(sizeof(*d));

	out->n = 0;
	if (!d || uw_elf_deps(exe, d)) {
		free(d);
		return;
	}
	add(out, exe);
	if (d->interp[0])
		add(out, d->interp);
	system_dirs(&w, d->interp);
	if (d->rpath)
		snprintf(w.exe_rpath, sizeof(w.exe_rpath), "%s", d->runpath);
	dir_of(exe, w.exe_dir, sizeof(w.exe_dir));
	/* breadth first, as the loader maps them */
	for (unsigned int i = 0; i < out->n; i++) {
		if (i && uw_elf_deps(out->path[i], d))
			continue;
		for (unsigned int j = 0; j < d->nneeded; j++)
			resolve_name(&w, d, out->path[i], d->needed[j]);
	}
	free(d);
}
