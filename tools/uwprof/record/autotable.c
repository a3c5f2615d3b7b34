// SPDX-License-Identifier: GPL-2.0
/*
 * uwprof record: tables made on the device.  A mapped ELF (or the vDSO)
 * with no table in --tables gets one from the file itself, made by the
 * same generator as "uwprof table FILE --prologue-analysis" (table/make.h)
 * in a child process, so the reader goes on draining samples meanwhile.
 * Tables are kept by build-id in a cache directory (docs/USAGE.md, "Tables
 * made on the device"), so the next recording only uploads them.
 *
 * While a table is being made, the processes record started (the command
 * and the children it follows) are paused with SIGSTOP, unless
 * --no-wait-tables: their code is not sampled with no table.  Samples of
 * other processes (-p, -a) in that code stop no-table until the upload;
 * record counts them (rec->pending_samples) and says so.  Should record
 * die meanwhile, its guard (record/holdguard.c) lets them go on.
 *
 * A table that exists (--tables, the cache) is uploaded before the
 * command runs for the files its loader will map (record/needs.c); one
 * met only at its mapping (dlopen, a later exec, a library found where
 * needs.c does not look) is uploaded when record reads the mapping, the
 * process not paused (pausing lost more samples than it saved, procs.c).
 * Samples of that code until then are counted (rec->late_samples).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record/record.h"
#include "table/make.h"
#include "uwprof.h"

/* Android's place for tools run through adb, when it exists. */
#define ANDROID_TMP	"/data/local/tmp"

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/*
 * --table-cache DIR; else $UWPROF_TABLE_CACHE; else on Android
 * /data/local/tmp/uwprof/tables; else $XDG_CACHE_HOME/uwprof/tables, else
 * $HOME/.cache/uwprof/tables, else /tmp/uwprof/tables.
 */
void rec_cache_init(struct rec *r)
{
	const char *env = getenv("UWPROF_TABLE_CACHE");
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	r->max_workers = n > 1 ? (unsigned int)n : 1;
	if (r->o.table_cache)
		snprintf(r->cache, sizeof(r->cache), "%s", r->o.table_cache);
	else if (env && *env)
		snprintf(r->cache, sizeof(r->cache), "%s", env);
	else if (is_dir(ANDROID_TMP))
		snprintf(r->cache, sizeof(r->cache), "%s/uwprof/tables", ANDROID_TMP);
	else if (xdg && xdg[0] == '/')
		snprintf(r->cache, sizeof(r->cache), "%s/uwprof/tables", xdg);
	else if (home && home[0] == '/' && home[1])
		snprintf(r->cache, sizeof(r->cache), "%s/.cache/uwprof/tables", home);
	else
		snprintf(r->cache, sizeof(r->cache), "/tmp/uwprof/tables");
}

/* mkdir -p */
static int make_dirs(const char *dir)
{
	char p[4096];

	snprintf(p, sizeof(p), "%s", dir);
	for (char *c = p + 1; *c; c++) {
		if (*c != '/')
			continue;
		*c = 0;
		if (mkdir(p, 0755) && errno != EEXIST)
			return -1;
		*c = '/';
	}
	return mkdir(p, 0755) && errno != EEXIST ? -1 : 0;
}

struct table_ent *rec_table_lookup(struct rec *r, const char *bid)
{
	for (unsigned int i = 0; i < r->ntab; i++)
		if (!strcmp(r->tab[i].bid, bid))
			return &r->tab[i];
	return NULL;
}

/*
 * The cached table of @e's build-id into @f (its path into @path): 0, or
 * -1 if there is none.
 */
int rec_cache_load(struct rec *r, struct table_ent *e, struct uwt_file *f,
		   char *path, size_t room)
{
	char err[256];

	snprintf(path, room, "%s/%s.uwt", r->cache, e->bid);
	if (uwt_load_file(path, f, err, sizeof(err))) {
		if (access(path, F_OK) == 0)	/* damaged: made again */
			uw_err("record: warning: %s; making it again", err);
		return -1;
	}
	return 0;
}

/*
 * The worker: the kernel's vDSO has no file, so its image (the one this
 * process maps, as every 32-bit process here) is written to the cache
 * first; the generator reads it from there.
 */
static int make_in_child(const char *cache, const struct table_ent *e)
{
	char tmp[4200];
	const uint8_t *image;
	size_t len;
	FILE *f;
	int ret;

	if (strcmp(e->src, UW_VDSO_NAME))
		return tb_make_table(e->src, cache, e->want_bid, e->want_bid_len);
	if (uw_vdso_image(&image, &len))
		return UWPROF_EXIT_FAIL;
	snprintf(tmp, sizeof(tmp), "%s/%s.vdso.%d", cache, e->bid, (int)getpid());
	f = fopen(tmp, "wb");
	if (!f || fwrite(image, 1, len, f) != len || fclose(f)) {
		uw_err("record: cannot write %s: %s", tmp, strerror(errno));
		return UWPROF_EXIT_FAIL;
	}
	ret = tb_make_table(tmp, cache, e->want_bid, e->want_bid_len);
	unlink(tmp);
	return ret;
}

static void start_worker(struct rec *r, struct table_ent *e)
{
	pid_t pid;

	e->queued = false;
	if (make_dirs(r->cache)) {
		uw_err("record: warning: cannot make the table cache %s: %s",
		       r->cache, strerror(errno));
		e->make_failed = true;
		r->tables_failed++;
		return;
	}
	pid = fork();
	if (pid == 0) {
		signal(SIGINT, SIG_IGN);	/* it finishes its table */
		signal(SIGTERM, SIG_DFL);
		signal(SIGCHLD, SIG_DFL);
		rec_close_inherited();
		_exit(make_in_child(r->cache, e));
	}
	if (pid < 0) {
		uw_err("record: warning: cannot start making the table of %s: %s",
		       e->src, strerror(errno));
		e->make_failed = true;
		r->tables_failed++;
		return;
	}
	e->worker = pid;
	r->workers++;
}

bool rec_table_pending(const struct table_ent *e)
{
	return e->worker > 0 || e->queued;
}

/* Paused while its tables are made: the processes record started. */
static void hold(struct rec *r, struct target *t)
{
	if (t->held || r->o.no_wait_tables || !r->o.cmd ||
	    !(t->explicit || t->followed) || t->gone)
		return;
	if (!rec_guard_mark(t->pid))
		return;
	if (kill(t->pid, SIGSTOP)) {
		rec_guard_unmark(t->pid);
		return;
	}
	t->held = true;
	if (!r->nheld++)
		r->hold_t0 = rec_now_ns();
}

static void release(struct rec *r, struct target *t)
{
	if (!t->held)
		return;
	t->held = false;
	kill(t->pid, SIGCONT);
	rec_guard_unmark(t->pid);
	if (!--r->nheld)
		r->held_ns += rec_now_ns() - r->hold_t0;
}

/* Does a mapping of @t wait for a table still being made? */
static bool waits(struct rec *r, const struct target *t)
{
	char bid[2 * UW_BUILD_ID_MAX + 1];
	struct table_ent *e;

	for (unsigned int j = 0; j < t->nseen; j++) {
		if (!t->seen[j].waits_table)
			continue;
		uw_hex(t->seen[j].m.build_id, t->seen[j].m.build_id_len, bid);
		e = rec_table_lookup(r, bid);
		if (e && rec_table_pending(e))
			return true;
	}
	return false;
}

/*
 * Make @e's table from the file @path (build-id @bid) unless it is made
 * or being made; @t, the process that maps it, is paused until then
 * (NULL: a file not mapped yet, made ahead).
 */
void rec_table_make(struct rec *r, struct target *t, struct table_ent *e,
		    const char *path, const uint8_t *bid, uint32_t bid_len)
{
	if (e->id || e->make_failed)
		return;
	if (!rec_table_pending(e)) {
		if (!bid_len || bid_len > sizeof(e->want_bid))
			return;
		snprintf(e->src, sizeof(e->src), "%s", path);
		memcpy(e->want_bid, bid, bid_len);
		e->want_bid_len = bid_len;
		e->queued = true;
		if (r->workers < r->max_workers)
			start_worker(r, e);
	}
	if (t && rec_table_pending(e))
		hold(r, t);
}

/* A worker ended: its CPU time, and whether it made the table. */
static void worker_done(struct rec *r, struct table_ent *e, int status,
			const struct rusage *ru)
{
	e->worker = 0;
	r->workers--;
	e->cpu_ns = (uint64_t)(ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) * 1000000000ull +
		    (uint64_t)(ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) * 1000ull;
	r->make_cpu_ns += e->cpu_ns;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		uw_err("record: warning: could not make the table of %s on this "
		       "device (%s)", e->src, WIFEXITED(status) ?
		       "the generator failed, above" : "its maker was killed");
		e->make_failed = true;
		r->tables_failed++;
	}
}

/*
 * A table maker that ended (with @wait, the first one running, waited
 * for), its table made or e->make_failed; NULL when none.  Starts queued
 * ones as workers free up.
 */
struct table_ent *rec_worker_reap(struct rec *r, bool wait)
{
	struct table_ent *e;
	struct rusage ru;
	unsigned int i;
	int status;
	pid_t p;

	for (i = 0; i < r->ntab && r->workers < r->max_workers; i++)
		if (r->tab[i].queued)
			start_worker(r, &r->tab[i]);
	for (i = 0; i < r->ntab && r->workers; i++) {
		e = &r->tab[i];
		if (e->worker <= 0)
			continue;
		/* with @wait, the first one running: it ends in time */
		do
			p = wait4(e->worker, &status, wait ? 0 : WNOHANG, &ru);
		while (p < 0 && errno == EINTR);
		if (p != e->worker && !(p < 0 && errno == ECHILD))
			continue;
		if (p < 0) {
			memset(&ru, 0, sizeof(ru));
			status = 1 << 8;
		}
		worker_done(r, e, status, &ru);
		for (i = 0; i < r->ntab && r->workers < r->max_workers; i++)
			if (r->tab[i].queued)
				start_worker(r, &r->tab[i]);
		return e;
	}
	return NULL;
}

/* Let a paused process go once nothing it maps waits for a table. */
void rec_release_ready(struct rec *r)
{
	for (unsigned int i = 0; i < r->nt; i++)
		if (r->t[i].held && (r->t[i].gone || !waits(r, &r->t[i])))
			release(r, &r->t[i]);
}

/* Is @pid one of record's table makers (not a process to profile)? */
bool rec_is_worker(const struct rec *r, pid_t pid)
{
	for (unsigned int i = 0; i < r->ntab; i++)
		if (r->tab[i].worker == pid)
			return true;
	return false;
}

/* Every paused process goes on (record stops). */
void rec_release_all(struct rec *r)
{
	for (unsigned int i = 0; i < r->nt; i++)
		release(r, &r->t[i]);
	rec_guard_stop();
}
