/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uwprof record's state, shared by the command (cmd_record.c) and the
 * process tracking (record/procs.c).  libc only.
 */
#ifndef UWPROF_RECORD_H
#define UWPROF_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/elf.h"
#include "lib/datafile.h"
#include "lib/procmaps.h"
#include "record/sideband.h"
#include "lib/uwt.h"
#include "uapi/uwprof.h"

struct rec_opts {
	pid_t *pids;
	unsigned int npids;
	pid_t *tids;		/* --tid: only these threads' samples are kept */
	unsigned int ntids;
	bool all;
	bool quiet;		/* no progress line, no summary */
	bool no_inherit;	/* --no-inherit: children are not followed */
	char **cmd;
	uint32_t freq;
	double duration;	/* 0: until Ctrl-C or the targets end */
	const char *tables;
	const char *out;
	const char *table_cache;	/* --table-cache DIR, or NULL */
	bool no_auto_tables;	/* --no-auto-tables */
	bool no_wait_tables;	/* --no-wait-tables: the command is not paused */
	uint32_t jit_frames;	/* --jit: frame kind of anonymous code, or 0 */
	struct rec_jit_range *jit_ranges;	/* --jit-range */
	unsigned int njit_ranges;
};

/* A file looked at for V8's builtins, and what was found. */
struct rec_v8_file {
	char path[256];
	bool found;
	uint32_t start, end;
};

/* --jit-range FILE:START-END: JIT code at link addresses of a file. */
struct rec_jit_range {
	const char *file;	/* the mapped file's path, or its base name */
	uint32_t start, end;
	bool named;		/* a mapping of the file was seen */
	bool marked;		/* the range was attached in one */
};

/* A table by build-id: uploaded once, shared by every mapping of the file. */
/* One uploaded part of a split table (a .uwt of several v2 tables). */
struct table_part {
	int id;			/* the module's table id */
	uint32_t off;		/* its code's start from meta.text_addr */
	uint32_t size;		/* bytes of code it covers */
};

struct table_ent {
	char bid[2 * UW_BUILD_ID_MAX + 1];
	int id;			/* > 0 uploaded; 0 no such table; < 0 unusable */
	struct uwt_meta meta;
	/* a split table: every part, each attached to its range (id: parts[0]'s) */
	struct table_part *parts;
	unsigned int nparts;	/* 0: one table, e->id over the whole range */
	/* tables made on the device (record/autotable.c) */
	bool from_cache;	/* loaded from the table cache */
	bool made;		/* made by this record, uploaded at ready_ns */
	bool queued;		/* to be made: waits for a free worker */
	bool make_failed;	/* the generator could not make it */
	pid_t worker;		/* > 0: being made by this child process */
	uint64_t ready_ns;	/* when it was uploaded */
	uint64_t cpu_ns;	/* the worker's CPU time */
	char src[256];		/* the file to make it from, or [vdso] */
	uint8_t want_bid[UW_BUILD_ID_MAX];
	uint32_t want_bid_len;
};

/* A mapping seen in a target, written to the file once the target counts. */
struct seen_map {
	struct uwd_mapping m;
	char path[256];
	bool written;
	bool retry;		/* its table did not fit yet: look again next scan */
	uint64_t attach_ns;	/* when record attached its table, 0 if not */
	int table_id;		/* its table's, > 0 if it has one */
	bool inherited_table;	/* a fork's copy of a parent's attached map */
	bool waits_table;	/* its table is being made on the device */
};

/* A process: a pid from its start (or first sight) to its exit. */
struct target {
	pid_t pid;
	bool explicit;		/* named by -p or started by us */
	bool followed;		/* a child of a followed process (inherit) */
	bool gone;
	bool announced;		/* its process record is written */
	bool forked;		/* seen starting: fork_ns, ppid are known */
	pid_t ppid;
	uint64_t fork_ns;
	char comm[16];		/* its name, from the side-band */
	char exe[256];		/* its program, as last read */
	/*
	 * It exec'd (the side-band said so at exec_ns): its process record
	 * waits for the new image's program, its first executable mapping.
	 */
	bool exec_pending;
	uint64_t exec_ns;
	uint64_t comm_ns;
	unsigned int attached;	/* attachments made since its last exec */
	unsigned int attached_ever;
	unsigned int module_tables;	/* tables the module attaches, by build-id */
	bool held;		/* stopped (SIGSTOP) while its tables are made */
	bool exec_stop;		/* stopped by ptrace at its exec (the command) */
	dev_t exe_dev;
	ino_t exe_ino;
	struct seen_map *seen;
	unsigned int nseen, room;
};

struct rec {
	struct rec_opts o;
	int fd;
	struct uwd_writer w;
	struct target *t;
	unsigned int nt, troom;
	struct table_ent *tab;
	unsigned int ntab, tabroom;
	uint8_t *buf;
	uint64_t samples, stops[UWPROF_STOP_NR], bad_records;
	uint64_t other_threads;	/* left out by --tid */
	uint64_t lost;
	uint64_t t0;
	bool new_maps;		/* the last scan found something */
	bool want_scan;		/* a sample hit code with no table attached */
	bool failed;		/* a fatal error (EACCES on an explicit target) */
	bool by_build_id;	/* the module attaches tables by build-id */
	bool bid_taken;		/* it took one so */
	bool compat_refused;	/* the module knows no UWPROF_TABLE_CHROME_COMPAT */
	bool jit_rows_refused;	/* nor UWPROF_TABLE_JIT_ROWS */
	bool inherit;		/* the module follows children (START_INHERIT) */
	bool use_sb;		/* the side-band runs: no polling of maps */
	struct rec_v8_file *v8files;	/* files looked at for V8's builtins */
	unsigned int nv8files, v8room;
	struct sideband sb;
	uint64_t stale_detached;	/* old-image attachments undone after an exec */
	/* tables made on the device (record/autotable.c) */
	char cache[4096];	/* the table cache directory */
	unsigned int workers, max_workers;	/* generators running, at most */
	uint64_t tables_made, tables_cached, tables_failed, make_cpu_ns;
	uint64_t pending_samples;	/* stopped no-table in code whose table
					 * was being made */
	uint64_t late_samples;	/* stopped no-table in code whose table
				 * (--tables, the cache) was uploaded later */
	uint64_t uploads;		/* table uploads the module took */
	uint64_t uploads_kept;		/* of them, validated before (kept) */
	uint64_t needs_uploaded;	/* tables uploaded before their files
					 * were mapped (record/needs.c) */
	uint64_t held_ns;	/* time targets spent paused for tables */
	uint64_t hold_t0;	/* when the first of them was paused */
	unsigned int nheld;
};

/* record/base.c: below every other record file */
uint64_t rec_now_ns(void);
/* @p with room for n + 1 elements of @sz bytes; exits when out of memory */
void *rec_grow(void *p, unsigned int *room, unsigned int n, size_t sz);
/* One record into the data file; exits if it cannot be written. */
void rec_write(struct rec *r, uint32_t type, const void *a, size_t len,
	       const char *str);
/* @n sample records as read (@len bytes) into the data file, as one */
void rec_write_samples(struct rec *r, const void *recs, size_t len,
		       uint32_t n);
void rec_close_inherited(void);

/* record/procs.c */
struct target *rec_add_target(struct rec *r, pid_t pid, bool explicit);
struct target *rec_find_target(struct rec *r, pid_t pid);
void rec_scan_all(struct rec *r);
bool rec_explicit_alive(const struct rec *r);
void rec_sideband_event(void *ctx, const struct sb_event *e);
int rec_upload_all(struct rec *r);
void rec_not_32bit(pid_t pid);
void rec_tables_reap(struct rec *r, bool wait);

/*
 * record/jitmaps.c: JIT code's ranges inside files (--jit-range, V8's
 * builtins) marked, and JITs' perf-PID.map and jit-PID.dump copied into
 * the file
 */
void rec_jit_mark(struct rec *r, pid_t pid, const struct seen_map *s);
void rec_write_jitmaps(struct rec *r);
/* a warning for each --jit-range that marked nothing, saying why */
void rec_jit_ranges_check(const struct rec *r);

/*
 * record/procs.c: why a sample stopped no-table at code that has a table:
 * its table was being made on the device, or it was uploaded after the
 * sample (from --tables or the cache)
 */
enum rec_late { REC_LATE_NO, REC_LATE_MAKING, REC_LATE_UPLOAD };
enum rec_late rec_sample_late(struct rec *r, const struct uwprof_record *s);

/*
 * record/needs.c, below procs.c: the files a new image's loader will map
 * (the program first, its interpreter, the DT_NEEDED closure), by their
 * real paths
 */
#define REC_NEEDS_MAX	128
struct rec_needs {
	unsigned int n;
	char path[REC_NEEDS_MAX][256];
};
void rec_image_needs(const char *exe, struct rec_needs *out);

/*
 * record/autotable.c, below procs.c: tables made on the device by child
 * processes, the table cache, pausing the command meanwhile
 */
void rec_cache_init(struct rec *r);
struct table_ent *rec_table_lookup(struct rec *r, const char *bid);
int rec_cache_load(struct rec *r, struct table_ent *e, struct uwt_file *f,
		   char *path, size_t room);
void rec_table_make(struct rec *r, struct target *t, struct table_ent *e,
		    const char *path, const uint8_t *bid, uint32_t bid_len);
bool rec_table_pending(const struct table_ent *e);
struct table_ent *rec_worker_reap(struct rec *r, bool wait);
void rec_release_ready(struct rec *r);
void rec_release_all(struct rec *r);
bool rec_is_worker(const struct rec *r, pid_t pid);

/* record/holdguard.c: continues paused processes should record die */
bool rec_guard_mark(pid_t pid);
void rec_guard_unmark(pid_t pid);
bool rec_is_guard(pid_t pid);
void rec_guard_stop(void);

#endif
