// SPDX-License-Identifier: GPL-2.0
/*
 * uwprof record and JIT code.  A JIT's code inside a file (V8's builtins
 * embedded in libnode: --jit-range, or for --jit v8-arm found in the file
 * by lib/v8blob.c) is attached as JIT code of the --jit kind wherever
 * the file is mapped.  The symbol files JITs write for perf
 * are copied into the data file at the end of the recording, as perf
 * copies them, so that report can name frames in JIT code
 * (docs/DATAFILE.md, UWD_JITMAP):
 *
 *  - /tmp/perf-PID.map, "START SIZE name" lines (node --perf-basic-prof,
 *    chromium --js-flags=--perf-basic-prof);
 *  - jit-PID.dump in the process's working directory, perf's jitdump
 *    format with the code bytes (node --perf-prof).  The directory is
 *    read through /proc/PID/cwd while the process lives, else record's
 *    own (a command started by record starts there).
 *
 * Each is copied once per process, whole, up to REC_JIT_MAX bytes.
 * libc only.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/regfile.h"
#include "lib/v8blob.h"
#include "record/attach.h"
#include "record/record.h"
#include "unwind_v2.h"
#include "uwprof.h"

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/* Attach [@start, @end) of mapping @s (link addresses) as JIT code. */
static bool mark_range(struct rec *r, pid_t pid, const struct seen_map *s,
		       uint32_t start, uint32_t end)
{
	int err;

	start += s->m.bias;
	end += s->m.bias;
	if (start < s->m.start || end > s->m.end || end < start)
		return false;
	err = uw_dev_attach_frames(r->fd, pid, r->o.jit_frames, start, end);
	/* EEXIST: this mapping's, marked at an earlier look */
	if (err && err != -EEXIST)
		uw_err("record: warning: pid %d: JIT code of %s at 0x%08x-0x%08x: %s",
		       (int)pid, s->path, start, end, strerror(-err));
	return true;
}

/* V8's builtins in the file of @s, looked for once a file. */
static const struct rec_v8_file *v8_file(struct rec *r,
					 const struct seen_map *s)
{
	struct rec_v8_file *f;
	struct uw_v8_blob blob;

	for (unsigned int i = 0; i < r->nv8files; i++)
		if (!strcmp(r->v8files[i].path, s->path))
			return &r->v8files[i];
	r->v8files = rec_grow(r->v8files, &r->v8room, r->nv8files,
			      sizeof(*r->v8files));
	f = &r->v8files[r->nv8files++];
	snprintf(f->path, sizeof(f->path), "%s", s->path);
	f->found = !uw_v8_blob(s->path, &blob);
	f->start = blob.code;
	f->end = blob.code + blob.code_size;
	return f;
}

/*
 * Whether --jit-range's FILE names the file mapped at @path: a path names
 * that file only (as the kernel shows it, symbolic links resolved), a
 * base name the file of that name in any directory.
 */
static bool range_names(const struct rec_jit_range *j, const char *path)
{
	return strchr(j->file, '/') ? !strcmp(j->file, path) :
				      !strcmp(j->file, base_name(path));
}

void rec_jit_mark(struct rec *r, pid_t pid, const struct seen_map *s)
{
	const struct rec_v8_file *v8;
	bool marked = false;

	if (!(s->m.flags & UWD_MAP_BIAS) || !r->o.jit_frames)
		return;
	for (unsigned int i = 0; i < r->o.njit_ranges; i++) {
		struct rec_jit_range *j = &r->o.jit_ranges[i];

		if (!range_names(j, s->path))
			continue;
		j->named = true;
		if (!mark_range(r, pid, s, j->start, j->end))
			continue;
		j->marked = true;
		marked = true;
	}
	if (marked || r->o.jit_frames != UW2_FRAMES_V8_ARM ||
	    s->m.elf_offset)
		return;
	v8 = v8_file(r, s);
	if (v8->found)
		mark_range(r, pid, s, v8->start, v8->end);
}

void rec_jit_ranges_check(const struct rec *r)
{
	for (unsigned int i = 0; i < r->o.njit_ranges; i++) {
		const struct rec_jit_range *j = &r->o.jit_ranges[i];

		if (j->marked)
			continue;
		if (!j->named)
			uw_err("record: warning: --jit-range %s:0x%x-0x%x marked nothing: no process mapped %s; give the file's path as /proc/PID/maps shows it, or its base name alone to match it in any directory",
			       j->file, j->start, j->end, j->file);
		else
			uw_err("record: warning: --jit-range %s:0x%x-0x%x marked nothing: no executable mapping of %s holds that range; give link addresses inside its code (its executable PT_LOAD, readelf -lW)",
			       j->file, j->start, j->end, j->file);
	}
}

#define REC_JIT_MAX	(256u << 20)

/* Copy the file at @path for @pid as a record of @format, if there is one. */
static bool copy_jit_file(struct rec *r, pid_t pid, uint32_t format,
			  const char *path)
{
	struct uwd_jitmap *j;
	uint8_t *buf;
	size_t len;

	if (uw_read_regular(path, REC_JIT_MAX, &buf, &len)) {
		if (errno != ENOENT)
			uw_err("record: warning: %s: %s: its JIT frames stay unnamed",
			       path, uw_file_strerror(errno));
		return false;
	}
	j = malloc(sizeof(*j) + len);
	if (!j) {
		uw_err("record: warning: %s: out of memory: its JIT frames stay unnamed",
		       path);
		free(buf);
		return false;
	}
	*j = (struct uwd_jitmap){ .pid = (uint32_t)pid, .format = format,
				  .size = (uint32_t)len };
	memcpy(j + 1, buf, len);
	rec_write(r, UWD_JITMAP, j, sizeof(*j) + len, NULL);
	free(j);
	free(buf);
	return true;
}

/* jit-PID.dump: in the process's working directory, or in record's. */
static void copy_jitdump(struct rec *r, pid_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/cwd/jit-%d.dump", (int)pid,
		 (int)pid);
	if (copy_jit_file(r, pid, UWD_JIT_DUMP, path))
		return;
	snprintf(path, sizeof(path), "jit-%d.dump", (int)pid);
	copy_jit_file(r, pid, UWD_JIT_DUMP, path);
}

void rec_write_jitmaps(struct rec *r)
{
	char path[64];

	for (unsigned int i = 0; i < r->nt; i++) {
		pid_t pid = r->t[i].pid;
		bool dup = false;

		/* a pid reused within the recording: its files are one */
		for (unsigned int k = 0; k < i && !dup; k++)
			dup = r->t[k].pid == pid;
		if (dup)
			continue;
		snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)pid);
		copy_jit_file(r, pid, UWD_JIT_PERF_MAP, path);
		copy_jitdump(r, pid);
	}
}
