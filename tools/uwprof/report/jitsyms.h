/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names of JIT code from the symbol files JITs write for perf, as record
 * copied them (UWD_JITMAP: /tmp/perf-PID.map, jit-PID.dump).  libc only.
 */
#ifndef UWPROF_REPORT_JITSYMS_H
#define UWPROF_REPORT_JITSYMS_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <string.h>

struct rp_jit_sym {
	uint32_t pid, start, end;
	uint32_t seq;		/* order seen: a newer symbol over an older wins */
	char *name;
};

struct rp_jitsyms {
	struct rp_jit_sym *syms;
	uint32_t n, room;
	uint32_t bad;		/* lines or records that could not be read */
};

/* Add the symbols of one UWD_JITMAP record's payload (@len bytes). */
void rp_jit_add(struct rp_jitsyms *j, const void *rec, size_t len);

/* Once all are added: ready for lookups. */
void rp_jit_done(struct rp_jitsyms *j);

/* The name of @pid's JIT code at @addr, or NULL. */
const char *rp_jit_name(const struct rp_jitsyms *j, uint32_t pid,
			uint32_t addr);

void rp_jit_free(struct rp_jitsyms *j);

/*
 * A mapping of anonymous memory, where JIT code lives: the perf side-band
 * names it "//anon" (perf's name too).
 */
static inline bool rp_jit_anon(const char *path)
{
	return path[0] == '/' && path[1] == '/' && !strcmp(path, "//anon");
}

#endif
