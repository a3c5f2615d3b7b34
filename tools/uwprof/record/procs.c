// SPDX-License-Identifier: GPL-2.0
/*
 * uwprof record: the processes it follows and their code.
 *
 * For every executable file mapping of a target it reads the file's
 * build-id, loads TABLES/<build-id>.uwt, uploads it (once per build-id)
 * and attaches it to the mapping's runtime .text.  It learns about
 * mappings from the side-band (record/sideband.c: forks, exits, names,
 * execs and mmaps in order) after one read of /proc/PID/maps for
 * processes already running; where perf events are not available, by
 * reading the maps again now and then.  libc only.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/archive.h"
#include "record/attach.h"
#include "record/record.h"
#include "uwprof.h"

/* ---- tables ---- */

static int unhex(const char *s, uint8_t *out, unsigned int room)
{
	unsigned int n = 0, v;

	while (s[0] && s[1] && n < room && sscanf(s, "%2x", &v) == 1) {
		out[n++] = (uint8_t)v;
		s += 2;
	}
	return (int)n;
}

/* One upload's answer: its validation error, and whether it was kept. */
static int upload_counted(struct rec *r, int id,
			  const struct uw_upload_reply *reply, uint32_t *verr)
{
	*verr = reply->verr;
	if (id > 0) {
		r->uploads++;
		r->uploads_kept += !!(reply->result & UWPROF_UPLOAD_KEPT);
	}
	return id;
}

/*
 * Upload a blob with UWPROF_TABLE_* @flags: by build-id while the module
 * takes that, else plainly.
 */
static int upload_as(struct rec *r, const char *bid, const struct uwt_file *f,
		     const struct uwt_part *p, uint32_t flags, uint32_t *verr)
{
	struct uw_upload_reply reply = { 0 };
	uint8_t b[UWPROF_BUILD_ID_MAX];
	int n = unhex(bid, b, sizeof(b)), id;

	/* the module places a table by its link-time range: a container's */
	if (r->by_build_id && n > 0 && 2 * (size_t)n == strlen(bid) &&
	    f->container && p->text_size) {
		id = uw_dev_upload_by_build_id(r->fd, p->blob, p->blob_size,
					       flags, b, (uint32_t)n,
					       p->text_addr, p->text_size,
					       &reply);
		if (id > 0)
			r->bid_taken = true;
		if (id != -EINVAL || reply.verr)
			return upload_counted(r, id, &reply, verr);
		r->by_build_id = false;	/* this module attaches per mapping only */
	}
	id = uw_dev_upload(r->fd, p->blob, p->blob_size, flags, &reply);
	return upload_counted(r, id, &reply, verr);
}

/*
 * Upload a table, telling the module when it was made to Chrome's rules
 * (the module then unwinds by them) and when its rows inside a runtime's
 * builtins were made for them (UWPROF_TABLE_JIT_ROWS).  A module older
 * than a flag refuses it (EINVAL, no validation error): the table goes up
 * without it, and the flag is not tried again.
 */
static int upload(struct rec *r, const char *bid, const struct uwt_file *f,
		  const struct uwt_part *p, uint32_t *verr)
{
	bool compat = f->container && (f->meta.flags & UWT_F_CHROME_COMPAT) &&
		      !r->compat_refused;
	bool jit_rows = f->container && (f->meta.flags & UWT_F_JIT_ROWS) &&
			!r->jit_rows_refused;
	uint32_t flags = (compat ? UWPROF_TABLE_CHROME_COMPAT : 0) |
			 (jit_rows ? UWPROF_TABLE_JIT_ROWS : 0);
	bool by_build_id = r->by_build_id;
	int id;

	id = upload_as(r, bid, f, p, flags, verr);
	if (!flags || id != -EINVAL || *verr)
		return id;
	r->by_build_id = by_build_id;	/* the flag was refused, not this */
	if (jit_rows) {
		/* the newer flag first: a module may know the older one */
		r->jit_rows_refused = true;
		uw_err("record: warning: the module does not know tables with rows for V8's builtins; their code is walked by V8's frames alone");
		return upload(r, bid, f, p, verr);
	}
	r->compat_refused = true;
	uw_err("record: warning: the module does not know Chrome-compatible "
	       "tables; they are unwound by uwprof's rules");
	return upload_as(r, bid, f, p, 0, verr);
}

/*
 * Upload every part of a split table @f as @e's (e->parts); the first
 * refusal refuses the table.  Returns 0 or the module's -errno.
 */
static int upload_parts(struct rec *r, struct table_ent *e,
			const struct uwt_file *f, uint32_t *verr)
{
	struct uwt_part p;

	e->parts = calloc(f->nparts, sizeof(*e->parts));
	if (!e->parts)
		return -ENOMEM;
	for (uint32_t i = 0; i < f->nparts; i++) {
		uwt_part(f, i, &p);
		e->parts[i] = (struct table_part){
			.id = upload(r, e->bid, f, &p, verr),
			.off = p.text_addr - f->meta.text_addr,
			.size = p.text_size,
		};
		if (e->parts[i].id < 0)
			return e->parts[i].id;
	}
	e->nparts = f->nparts;
	return e->parts[0].id;
}

/* Upload the table @f (from @path) as @e's: its id, or < 0 refused. */
static int table_upload(struct rec *r, struct table_ent *e,
		     const struct uwt_file *f, const char *path)
{
	uint32_t verr = 0;
	struct uwt_part p;

	e->meta = f->meta;
	if (f->nparts > 1) {
		e->id = upload_parts(r, e, f, &verr);
	} else {
		uwt_part(f, 0, &p);
		e->id = upload(r, e->bid, f, &p, &verr);
	}
	e->ready_ns = rec_now_ns();
	if (e->id < 0)
		uw_err("record: warning: the device refused %s: %s%s", path,
		       strerror(-e->id), verr ? " (invalid table; remake it)" : "");
	return e->id;
}

/*
 * The table of build-id @bid: from --tables (the host's, preferred), else
 * from the cache of tables made on the device.  e->id 0: none yet.
 */
static struct table_ent *table_for(struct rec *r, const char *bid)
{
	struct table_ent *e = rec_table_lookup(r, bid);
	struct uwt_file f;
	char path[4096], err[256];

	if (e)
		return e;
	r->tab = rec_grow(r->tab, &r->tabroom, r->ntab, sizeof(*r->tab));
	e = &r->tab[r->ntab++];
	memset(e, 0, sizeof(*e));
	snprintf(e->bid, sizeof(e->bid), "%s", bid);
	snprintf(path, sizeof(path), "%s/%s.uwt", r->o.tables, bid);
	if (uwt_load_file(path, &f, err, sizeof(err))) {
		if (access(path, F_OK) == 0) {
			uw_err("record: warning: %s", err);
			e->id = -1;
		} else if (!r->o.no_auto_tables &&
			   !rec_cache_load(r, e, &f, path, sizeof(path))) {
			e->from_cache = true;
			r->tables_cached++;
			table_upload(r, e, &f, path);
			free(f.buf);
		}
		return e;
	}
	table_upload(r, e, &f, path);
	free(f.buf);
	return e;
}

/*
 * With tables by build-id the module attaches them by itself, also
 * before record has seen a mapping: upload every table in the directory
 * now.  Stops when the module's table memory is full (the rest are
 * uploaded as their files are mapped).  Returns how many were uploaded.
 */
int rec_upload_all(struct rec *r)
{
	DIR *dir = opendir(r->o.tables);
	struct table_ent *e;
	struct dirent *d;
	char bid[2 * UW_BUILD_ID_MAX + 1];
	size_t len;
	int n = 0;

	if (!dir)
		return 0;
	while (r->by_build_id && (d = readdir(dir))) {
		len = strlen(d->d_name);
		if (len < 5 || len - 4 >= sizeof(bid) ||
		    strcmp(d->d_name + len - 4, ".uwt"))
			continue;
		memcpy(bid, d->d_name, len - 4);
		bid[len - 4] = 0;
		e = table_for(r, bid);
		if (e->id == -ENOSPC)
			break;
		n += e->id > 0;
	}
	closedir(dir);
	return n;
}

/* ---- targets ---- */

struct target *rec_add_target(struct rec *r, pid_t pid, bool explicit)
{
	struct target *t;

	r->t = rec_grow(r->t, &r->troom, r->nt, sizeof(*r->t));
	t = &r->t[r->nt++];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->explicit = explicit;
	/*
	 * A named target is followed at once, table or not (a shell running
	 * the programs to profile has none): the module then attaches tables
	 * by build-id and follows its children by itself.
	 */
	if (explicit && r->inherit && r->by_build_id)
		uw_dev_follow(r->fd, pid);
	return t;
}

struct target *rec_find_target(struct rec *r, pid_t pid)
{
	for (unsigned int i = r->nt; i-- > 0;)
		if (r->t[i].pid == pid && !r->t[i].gone)
			return &r->t[i];
	return NULL;
}

bool rec_explicit_alive(const struct rec *r)
{
	for (unsigned int i = 0; i < r->nt; i++)
		if (r->t[i].explicit && !r->t[i].gone)
			return true;
	return false;
}

static void read_exe(pid_t pid, char *exe, size_t room)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	n = readlink(link, exe, room - 1);
	exe[n > 0 ? n : 0] = 0;
}

static void write_comm(struct rec *r, struct target *t, uint32_t tid,
		       const char *name, uint64_t time_ns, uint32_t flags)
{
	struct uwd_comm c = {
		.pid = (uint32_t)t->pid, .tid = tid, .flags = flags,
		.time_ns = time_ns,
	};

	rec_write(r, UWD_COMM, &c, sizeof(c), name);
}

/* The records that start a process in the file: fork, process, name. */
static void announce(struct rec *r, struct target *t, uint32_t flags,
		     uint64_t time_ns)
{
	struct uwd_process p = { .pid = (uint32_t)t->pid, .flags = flags };

	if (t->forked && !t->announced) {
		struct uwd_fork f = {
			.pid = (uint32_t)t->pid, .ppid = (uint32_t)t->ppid,
			.time_ns = t->fork_ns,
		};

		rec_write(r, UWD_FORK, &f, sizeof(f), NULL);
		time_ns = t->fork_ns;
	}
	/* A child before its exec runs its parent's program. */
	if (!t->exe[0])
		read_exe(t->pid, t->exe, sizeof(t->exe));
	p.time_ns = time_ns;
	rec_write(r, UWD_PROCESS, &p, sizeof(p), t->exe);
	if (t->comm[0])
		write_comm(r, t, (uint32_t)t->pid, t->comm,
			   t->forked || flags ? time_ns : t->comm_ns,
			   flags ? UWD_COMM_EXEC : 0);
	t->announced = true;
}

/*
 * A target's records go to the file once it counts: named, followed, with
 * a table attached, or any process under -a (the module samples them all).
 */
static bool counts(const struct rec *r, const struct target *t)
{
	return t->explicit || t->followed || t->attached_ever || r->o.all;
}

static void flush_maps(struct rec *r, struct target *t)
{
	if (!counts(r, t))
		return;
	if (!t->announced)
		announce(r, t, 0, r->use_sb ? 0 : rec_now_ns());
	for (unsigned int i = 0; i < t->nseen; i++)
		if (!t->seen[i].written) {
			rec_write(r, UWD_MAPPING, &t->seen[i].m,
				  sizeof(t->seen[i].m), t->seen[i].path);
			t->seen[i].written = true;
		}
}

/* The slot of a mapping seen before, or -1. */
static int seen_slot(const struct target *t, const struct uw_mapping *m)
{
	for (unsigned int i = 0; i < t->nseen; i++)
		if (t->seen[i].m.start == m->start && t->seen[i].m.end == m->end &&
		    t->seen[i].m.offset == m->offset &&
		    rec_same_file(t->seen[i].path, m->path))
			return (int)i;
	return -1;
}

/* The module's ENOEXEC, and record's own check of -p targets. */
void rec_not_32bit(pid_t pid)
{
	uw_err("record: cannot profile pid %d: it runs 64-bit code; uwprof "
	       "unwinds 32-bit ARM processes only", (int)pid);
}

static void attach_failed(struct rec *r, struct target *t, const char *path,
			  int err)
{
	if (err == -ENOEXEC) {
		rec_not_32bit(t->pid);
		if (t->explicit)
			r->failed = true;
		t->gone = true;
	} else if (err == -EACCES || err == -EPERM) {
		uw_err("record: cannot profile pid %d: %s (needs root or "
		       "CAP_PERFMON, and ptrace access to the process)",
		       (int)t->pid, strerror(-err));
		if (t->explicit)
			r->failed = true;
		t->gone = true;
	} else if (err == -ESRCH) {
		t->gone = true;
	} else {
		uw_err("record: warning: cannot attach the table of %s to pid %d: %s",
		       path, (int)t->pid, strerror(-err));
	}
}

/* What the module has attached in @pid: *@n entries of @a. */
static int list_attached(struct rec *r, pid_t pid,
			 struct uwprof_attachment a[UWPROF_MAX_MODULES],
			 unsigned int *n)
{
	struct uwprof_list l = {
		.size = sizeof(l), .pid = (uint32_t)pid,
		.entries = (uintptr_t)a, .count = UWPROF_MAX_MODULES,
	};

	if (ioctl(r->fd, UWPROF_IOC_LIST, &l))
		return -1;
	*n = l.count < UWPROF_MAX_MODULES ? l.count : UWPROF_MAX_MODULES;
	return 0;
}

/*
 * EEXIST: something is attached over [start, end).  The same table at
 * that range (the module attached it by build-id, or a copy from the
 * parent) is what we want, in one piece or cut around JIT code inside
 * it; JIT code (table id 0) is no conflict: the module cuts the table's
 * range around it.  Any other table there is stale (a library unmapped
 * since, an old image) and is detached before attaching again.
 */
static int attach_range(struct rec *r, pid_t pid, uint32_t id, uint32_t start,
			uint32_t end)
{
	struct uwprof_attachment a[UWPROF_MAX_MODULES];
	int err = uw_dev_attach(r->fd, pid, id, start, end);
	unsigned int i, n, ours = 0, other = 0;

	if (err != -EEXIST)
		return err;
	if (list_attached(r, pid, a, &n))
		return -errno;
	for (i = 0; i < n; i++) {
		if (a[i].text_start >= end || a[i].text_end <= start ||
		    !a[i].table_id)
			continue;
		if (a[i].table_id == id && a[i].text_start >= start &&
		    a[i].text_end <= end)
			ours++;
		else
			other++;
	}
	if (ours && !other)
		return 0;
	for (i = 0; i < n; i++)
		if (a[i].table_id && a[i].text_start < end &&
		    a[i].text_end > start)
			uw_dev_detach(r->fd, pid, a[i].text_start);
	return uw_dev_attach(r->fd, pid, id, start, end);
}

/*
 * The kernel maps an ELF image (the program, the loader), and the loader
 * a library, as one span of the image's whole size with the first
 * segment's rights, then maps the other segments over the rest.  The
 * side-band reports that first span only: when it starts with an
 * executable segment, the segment is its first file pages.
 */
static void clip_to_segment(struct uw_mapping *m, const struct uw_elf_info *info)
{
	uint32_t bias, end;

	if (!uw_map_bias(info->loads, info->nloads, m->start, m->end, m->offset,
			 &bias))
		return;
	for (uint32_t i = 0; i < info->nloads; i++) {
		const struct uw_seg *g = &info->loads[i];

		if (!(g->flags & UW_PF_X) || (g->offset & ~0xfffu) != m->offset)
			continue;
		end = m->start + (((g->offset & 0xfffu) + g->filesz + 0xfffu) & ~0xfffu);
		if (end > m->start && end < m->end)
			m->end = end;
		return;
	}
}

/* Find the table of one executable mapping and attach it. */
/*
 * The kernel's vDSO: every 32-bit process on this kernel maps the image
 * record has itself, so its build-id and segments are read from there.
 */
static bool is_vdso(const char *path)
{
	return !strcmp(path, UW_VDSO_NAME);
}

/* Code record looks at: a file's, or the vDSO. */
static bool code_mapping(const char *path)
{
	return path[0] == '/' || is_vdso(path);
}

/*
 * A process the module follows by itself (a child, a new image) gets its
 * tables from the module, by build-id.  record attaching them too would
 * race the module, and per task would give the process a second event
 * besides the one it inherited: twice the samples.
 */
static bool module_attaches(const struct rec *r, const struct target *t)
{
	return r->inherit && r->by_build_id && !t->explicit;
}

/*
 * Attach @e's table over @s's code: each part of a split table to its
 * own range, consecutive from the start of the code.
 */
static int attach_table(struct rec *r, pid_t pid, const struct table_ent *e,
			const struct seen_map *s)
{
	uint32_t start = s->m.text_start;
	int err = 0;

	if (!e->nparts)
		return attach_range(r, pid, (uint32_t)e->id, start,
				    s->m.text_end);
	for (unsigned int i = 0; i < e->nparts && !err; i++)
		err = attach_range(r, pid, (uint32_t)e->parts[i].id,
				   start + e->parts[i].off,
				   start + e->parts[i].off + e->parts[i].size);
	return err;
}

/* Whether @id is the id of @e's table or of one of its parts. */
static bool table_has_id(const struct table_ent *e, uint32_t id)
{
	if (!e->nparts)
		return id == (uint32_t)e->id;
	for (unsigned int i = 0; i < e->nparts; i++)
		if (id == (uint32_t)e->parts[i].id)
			return true;
	return false;
}

/*
 * @s's table is the module's to attach, by build-id, when the samples of
 * @t meet that code: the data file says "attached" if the module shows
 * it attached already (LIST), else "left to the module".  The module
 * tells no one when it attaches later, so that is all record can know.
 */
static void left_to_module(struct rec *r, struct target *t,
			   const struct table_ent *e, struct seen_map *s)
{
	struct uwprof_attachment a[UWPROF_MAX_MODULES];
	unsigned int n = 0;
	bool attached = false;

	if (list_attached(r, t->pid, a, &n))
		n = 0;
	for (unsigned int i = 0; i < n && !attached; i++)
		attached = table_has_id(e, a[i].table_id) &&
			   a[i].text_start < s->m.text_end &&
			   a[i].text_end > s->m.text_start;
	s->m.flags |= attached ? UWD_MAP_TABLE : UWD_MAP_TABLE_MODULE;
	t->module_tables++;
}

/*
 * Attach @e's table to the mapping @s of @t (or leave it to the module,
 * which attaches by build-id).
 */
static void attach_seen(struct rec *r, struct target *t, struct seen_map *s,
			struct table_ent *e)
{
	/* offsets in the stored ELF for a library inside an APK */
	struct uw_mapping m = {
		.start = s->m.start, .end = s->m.end,
		.offset = s->m.offset - s->m.elf_offset, .exec = true,
	};
	int err;

	snprintf(m.path, sizeof(m.path), "%s", s->path);
	/*
	 * The loader maps a library in steps (the whole file, then each
	 * segment over it): a mapping caught half-way is looked at again.
	 */
	if (uw_runtime_text(&e->meta, &m, &s->m.text_start, &s->m.text_end)) {
		s->retry = true;
		return;
	}
	s->table_id = e->id;
	/* The module reads build-ids at a file's start: not an APK's ELF. */
	if (module_attaches(r, t) && !s->m.elf_offset) {
		left_to_module(r, t, e, s);
		return;
	}
	s->attach_ns = rec_now_ns();
	err = attach_table(r, t->pid, e, s);
	if (err) {
		s->attach_ns = 0;
		attach_failed(r, t, m.path, err);
		return;
	}
	s->m.flags |= UWD_MAP_TABLE;
	t->attached++;
	t->attached_ever++;
}

/*
 * A table made on the device is uploaded: attach it where it waited (the
 * module attaches it by itself to the processes it follows).
 */
static void table_ready(struct rec *r, struct table_ent *e)
{
	char bid[2 * UW_BUILD_ID_MAX + 1];

	for (unsigned int i = 0; i < r->nt; i++) {
		struct target *t = &r->t[i];

		for (unsigned int j = 0; j < t->nseen && !t->gone; j++) {
			struct seen_map *s = &t->seen[j];

			if (!s->waits_table)
				continue;
			uw_hex(s->m.build_id, s->m.build_id_len, bid);
			if (strcmp(bid, e->bid))
				continue;
			s->waits_table = false;
			if (e->id > 0)
				attach_seen(r, t, s, e);
		}
	}
}

/*
 * Tables made on the device (record/autotable.c): each that is ready goes
 * into the module and onto the mappings that wait for it (all of them,
 * waiting for the makers still running, with @wait); then the paused
 * processes whose tables are all there go on.
 */
void rec_tables_reap(struct rec *r, bool wait)
{
	char path[4200];
	struct table_ent *e;
	struct uwt_file f;

	while ((e = rec_worker_reap(r, wait))) {
		if (!e->make_failed) {
			if (rec_cache_load(r, e, &f, path, sizeof(path))) {
				uw_err("record: warning: the table of %s was not "
				       "written to %s", e->src, path);
				e->make_failed = true;
				r->tables_failed++;
			} else {
				e->made = true;
				r->tables_made++;
				table_upload(r, e, &f, path);
				free(f.buf);
			}
		}
		table_ready(r, e);
	}
	rec_release_ready(r);
}

/*
 * A sample that stopped no-table at code whose table was being made when
 * it was taken (made by this record, uploaded after the sample), or that
 * existed but was uploaded after it (--tables, the cache).
 */
enum rec_late rec_sample_late(struct rec *r, const struct uwprof_record *s)
{
	char bid[2 * UW_BUILD_ID_MAX + 1];
	struct table_ent *e;
	struct target *t;
	uint32_t pc;

	if (s->stop != UWPROF_STOP_NO_TABLE || !s->nframes)
		return REC_LATE_NO;
	t = rec_find_target(r, (pid_t)s->pid);
	if (!t)
		return REC_LATE_NO;
	pc = s->frames[s->nframes - 1];
	for (unsigned int j = 0; j < t->nseen; j++) {
		const struct seen_map *m = &t->seen[j];

		if (pc < m->m.start || pc >= m->m.end || !m->m.build_id_len)
			continue;
		uw_hex(m->m.build_id, m->m.build_id_len, bid);
		e = rec_table_lookup(r, bid);
		if (!e)
			return REC_LATE_NO;
		if (rec_table_pending(e) || (e->made && s->time_ns < e->ready_ns))
			return REC_LATE_MAKING;
		return e->id > 0 && s->time_ns < e->ready_ns ? REC_LATE_UPLOAD :
		       REC_LATE_NO;
	}
	return REC_LATE_NO;
}

static void resolve(struct rec *r, struct target *t, const struct uw_mapping *mp,
		    struct seen_map *s, uint64_t time_ns,
		    const uint8_t *bid_given, uint32_t bid_len)
{
	struct uw_mapping mc = *mp, *m = &mc;
	struct uw_elf_info info;
	struct table_ent *e;
	char bid[2 * UW_BUILD_ID_MAX + 1];
	uint32_t elf_off = 0;

	s->m.pid = (uint32_t)t->pid;
	s->m.time_ns = time_ns;
	memcpy(s->path, m->path, sizeof(s->path));
	s->path[sizeof(s->path) - 1] = 0;
	/* A library inside an APK: offsets in the stored ELF from here on. */
	if (!is_vdso(m->path) &&
	    rec_archive_mapping(m, s->path, sizeof(s->path), &elf_off))
		m->offset -= elf_off;
	if (is_vdso(m->path) ? uw_vdso_info(&info) : uw_elf_info(s->path, &info)) {
		/* Gone or replaced since: the kernel's build-id still names it. */
		memset(&info, 0, sizeof(info));
		if (bid_len)
			memcpy(info.build_id, bid_given, bid_len);
		info.build_id_len = bid_len;
	} else if (r->use_sb) {
		clip_to_segment(m, &info);
	}
	s->m.start = m->start;
	s->m.end = m->end;
	s->m.offset = m->offset + elf_off;
	s->m.elf_offset = elf_off;
	if (info.nloads && !uw_map_bias(info.loads, info.nloads, m->start, m->end,
					 m->offset, &s->m.bias))
		s->m.flags |= UWD_MAP_BIAS;
	rec_jit_mark(r, t->pid, s);
	if (!info.build_id_len)
		return;
	memcpy(s->m.build_id, info.build_id, info.build_id_len);
	s->m.build_id_len = info.build_id_len;
	uw_hex(info.build_id, info.build_id_len, bid);
	e = table_for(r, bid);
	/*
	 * None: made on the device from the file itself, which must still be
	 * the one mapped (the kernel's build-id of the mapping, if it gave
	 * one).  The mapping is attached once the table is ready.
	 */
	if (e->id == 0 && !r->o.no_auto_tables) {
		rec_table_make(r, t, e, s->path, bid_len ? bid_given : info.build_id,
			       bid_len ? bid_len : info.build_id_len);
		s->waits_table = e->worker > 0 || e->queued;
	}
	if (e->id <= 0)
		return;
	attach_seen(r, t, s, e);
}

/*
 * The command, stopped at its exec, maps its program @exe: upload the
 * tables (--tables, the cache) of every file its loader will map, before
 * it runs, so that the module attaches each as it is mapped.  Those with
 * no table start being made now, in parallel, rather than one by one as
 * the loader maps them (the command is paused at each such mapping, as
 * before).  Not for a followed process's later exec: it runs meanwhile,
 * and measured through "sh -c" both pausing it for the uploads (the first
 * pause forks the guard) and uploading every table before attaching its
 * loader's lost more samples than uploading each table as its mapping is
 * read (the stock corpus's sqlite3 run by "sh -c" in the VM, three runs
 * each: 14 to 64 samples of 1,100 to 1,600 stopped no-table, against 0
 * to 9 this way).
 */
static void upload_needs(struct rec *r, const char *exe)
{
	char bid[2 * UW_BUILD_ID_MAX + 1];
	struct uw_elf_info info;
	struct rec_needs *n;
	struct table_ent *e;

	if (!r->by_build_id || !(n = malloc(sizeof(*n))))
		return;
	rec_image_needs(exe, n);
	for (unsigned int i = 0; i < n->n; i++) {
		if (uw_elf_info(n->path[i], &info) || !info.build_id_len)
			continue;
		uw_hex(info.build_id, info.build_id_len, bid);
		if (rec_table_lookup(r, bid))
			continue;
		e = table_for(r, bid);
		r->needs_uploaded += e->id > 0;
		if (e->id == 0 && !r->o.no_auto_tables)
			rec_table_make(r, NULL, e, n->path[i], info.build_id,
				       info.build_id_len);
	}
	free(n);
}

/* An exec replaces every mapping and drops the attachments with the mm. */
static bool check_exec(struct rec *r, struct target *t)
{
	char link[64];
	struct stat st;
	bool changed;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)t->pid);
	if (stat(link, &st))
		return false;
	changed = t->nseen && (st.st_dev != t->exe_dev || st.st_ino != t->exe_ino);
	if (!changed && t->attached && !r->use_sb) {
		struct uwprof_list l = { .size = sizeof(l), .pid = (uint32_t)t->pid };

		changed = !ioctl(r->fd, UWPROF_IOC_LIST, &l) && l.count == 0;
	}
	t->exe_dev = st.st_dev;
	t->exe_ino = st.st_ino;
	if (!changed)
		return false;
	t->nseen = 0;
	t->attached = 0;
	t->exe[0] = 0;		/* the new program, read now */
	if (t->announced)
		announce(r, t, UWD_PROC_EXEC, rec_now_ns());
	return true;
}

/* The maps of @t, read between two looks at its executable: one image. */
static int read_one_image(struct rec *r, struct target *t,
			  struct uw_mapping **maps, unsigned int *n)
{
	for (int tries = 0; tries < 4; tries++) {
		check_exec(r, t);
		if (uw_read_maps(t->pid, maps, n))
			return -1;
		/* An exec in between: these may be the old image's ranges. */
		if (!check_exec(r, t))
			return 0;
		free(*maps);
	}
	return -1;
}

static void scan_target(struct rec *r, struct target *t)
{
	struct uw_mapping *maps = NULL;
	unsigned int n = 0, i;
	/* Found by reading /proc: there before the side-band began. */
	uint64_t when = r->use_sb ? 0 : rec_now_ns();

	if (read_one_image(r, t, &maps, &n)) {
		t->gone = true;
		return;
	}
	for (i = 0; i < n && !t->gone; i++) {
		bool was_written;
		int slot;

		if (!maps[i].exec || !code_mapping(maps[i].path))
			continue;
		slot = seen_slot(t, &maps[i]);
		if (slot >= 0 && !t->seen[slot].retry)
			continue;
		if (slot < 0) {
			t->seen = rec_grow(t->seen, &t->room, t->nseen, sizeof(*t->seen));
			slot = (int)t->nseen++;
		}
		was_written = t->seen[slot].written && t->seen[slot].retry;
		memset(&t->seen[slot], 0, sizeof(t->seen[0]));
		resolve(r, t, &maps[i], &t->seen[slot], when, NULL, 0);
		/* Written once without a table; again only once it has one. */
		if (t->seen[slot].retry)
			t->seen[slot].written = was_written;
		if (!t->seen[slot].retry)
			r->new_maps = true;
	}
	free(maps);
	if (!t->gone)
		flush_maps(r, t);
}

/* -a: every process but this one. */
static void discover_all(struct rec *r)
{
	struct dirent *d;
	DIR *dir = opendir("/proc");
	uint32_t pid;

	if (!dir)
		return;
	while ((d = readdir(dir)))
		if (uw_parse_u32(d->d_name, &pid) && pid != (uint32_t)getpid() &&
		    !rec_find_target(r, (pid_t)pid))
			rec_add_target(r, (pid_t)pid, false);
	closedir(dir);
}

void rec_scan_all(struct rec *r)
{
	r->new_maps = false;
	if (r->o.all)
		discover_all(r);
	for (unsigned int i = 0; i < r->nt; i++)
		if (!r->t[i].gone)
			scan_target(r, &r->t[i]);
}

/* ---- the side-band ---- */

/*
 * A child needs its own attachments of its parent's tables (the same
 * tables at the same ranges: nothing to read again), unless the module
 * follows it.
 */
static void attach_inherited(struct rec *r, struct target *t)
{
	if (module_attaches(r, t))
		return;
	for (unsigned int i = 0; i < t->nseen; i++) {
		struct seen_map *s = &t->seen[i];
		char bid[2 * UW_BUILD_ID_MAX + 1];
		struct table_ent *e;
		int err;

		if (!s->inherited_table)
			continue;
		uw_hex(s->m.build_id, s->m.build_id_len, bid);
		e = rec_table_lookup(r, bid);
		s->attach_ns = rec_now_ns();
		err = e && e->id == s->table_id ?
		      attach_table(r, t->pid, e, s) :
		      attach_range(r, t->pid, (uint32_t)s->table_id,
				   s->m.text_start, s->m.text_end);
		if (err) {
			s->attach_ns = 0;
			attach_failed(r, t, s->path, err);
			if (t->gone)
				return;
			continue;
		}
		s->m.flags |= UWD_MAP_TABLE;
		t->attached++;
		t->attached_ever++;
	}
}

static void on_fork(struct rec *r, const struct sb_event *e)
{
	struct target *parent, *t, *old;
	bool follow;

	if (e->pid == e->ppid || e->pid == (uint32_t)getpid())
		return;		/* a thread, or the recorder's own command */
	if (e->ppid == (uint32_t)getpid() &&
	    (rec_is_worker(r, (pid_t)e->pid) || rec_is_guard((pid_t)e->pid)))
		return;		/* record's table maker or guard (-a) */
	parent = rec_find_target(r, (pid_t)e->ppid);
	follow = r->o.all || (parent && !r->o.no_inherit &&
			      (parent->explicit || parent->followed));
	if (!follow)
		return;
	old = rec_find_target(r, (pid_t)e->pid);
	if (old)
		old->gone = true;	/* its exit was missed: the pid is reused */
	/* rec_add_target may move the array. */
	t = rec_add_target(r, (pid_t)e->pid, false);
	parent = rec_find_target(r, (pid_t)e->ppid);
	t->followed = !r->o.all;
	t->forked = true;
	t->ppid = (pid_t)e->ppid;
	t->fork_ns = e->time_ns;
	if (!parent)
		return;
	memcpy(t->comm, parent->comm, sizeof(t->comm));
	memcpy(t->exe, parent->exe, sizeof(t->exe));
	t->comm_ns = e->time_ns;
	t->exe_dev = parent->exe_dev;
	t->exe_ino = parent->exe_ino;
	/* The child has its parent's mappings. */
	for (unsigned int i = 0; i < parent->nseen; i++) {
		struct seen_map *s;

		t->seen = rec_grow(t->seen, &t->room, t->nseen, sizeof(*t->seen));
		parent = rec_find_target(r, (pid_t)e->ppid);	/* may have moved */
		s = &t->seen[t->nseen++];
		*s = parent->seen[i];
		s->m.pid = (uint32_t)t->pid;
		s->m.time_ns = e->time_ns;
		s->m.flags &= ~(UWD_MAP_TABLE | UWD_MAP_TABLE_MODULE);
		s->attach_ns = 0;
		/* The fork record gives them to the child in the file. */
		s->written = parent->announced;
		s->inherited_table = parent->seen[i].m.flags &
				     (UWD_MAP_TABLE | UWD_MAP_TABLE_MODULE);
		/* the module's to attach in the child, as in a new image */
		if (s->inherited_table && module_attaches(r, t)) {
			s->m.flags |= UWD_MAP_TABLE_MODULE;
			t->module_tables++;
		}
	}
	/*
	 * Its records first: a short-lived child may be gone before the
	 * attachments below, and its samples (the module follows children
	 * itself) still need its name and mappings.
	 */
	flush_maps(r, t);
	attach_inherited(r, t);
}

/* The process record of an exec, once its program is known (or never). */
static void announce_exec(struct rec *r, struct target *t)
{
	if (!t->exec_pending)
		return;
	t->exec_pending = false;
	announce(r, t, UWD_PROC_EXEC, t->exec_ns);
}

static void on_exit_ev(struct rec *r, const struct sb_event *e)
{
	struct target *t;
	struct uwd_exit x = { .pid = e->pid, .time_ns = e->time_ns };

	if (e->pid != e->tid)
		return;		/* a thread */
	t = rec_find_target(r, (pid_t)e->pid);
	if (!t)
		return;
	announce_exec(r, t);	/* gone before mapping anything */
	if (t->announced)
		rec_write(r, UWD_EXIT, &x, sizeof(x), NULL);
	t->gone = true;
}

/*
 * An exec: every mapping and attachment of the old image is gone with
 * its mm.  An old-image mapping that record attached after the exec
 * happened (it read the side-band late) went onto the new mm: undo it.
 */
static void on_exec(struct rec *r, struct target *t, const struct sb_event *e)
{
	for (unsigned int i = 0; i < t->nseen; i++) {
		const struct seen_map *s = &t->seen[i];

		if (s->attach_ns && s->attach_ns >= e->time_ns &&
		    !uw_dev_detach(r->fd, t->pid, s->m.text_start))
			r->stale_detached++;
	}
	t->nseen = 0;
	t->attached = 0;
	memcpy(t->comm, e->comm, sizeof(t->comm));
	t->comm_ns = e->time_ns;
	/*
	 * /proc/PID/exe may name a later image by now (sh -c 'exec PROG' runs
	 * two execs at once): the program is the image's first executable
	 * mapping, which the side-band gives right after this.
	 */
	t->exe[0] = 0;
	if (t->announced) {
		t->exec_pending = true;
		t->exec_ns = e->time_ns;
	}
}


static void on_comm(struct rec *r, const struct sb_event *e)
{
	struct target *t = rec_find_target(r, (pid_t)e->pid);

	if (!t)
		return;
	if (e->exec) {
		on_exec(r, t, e);
		return;
	}
	if (e->tid == e->pid) {
		memcpy(t->comm, e->comm, sizeof(t->comm));
		t->comm_ns = e->time_ns;
	}
	if (t->announced)
		write_comm(r, t, e->tid, e->comm, e->time_ns, 0);
}

/* A new executable mapping replaces whatever was mapped there. */
static void on_mmap(struct rec *r, const struct sb_event *e)
{
	struct target *t = rec_find_target(r, (pid_t)e->pid);
	struct uw_mapping m = {
		.start = e->start, .end = e->start + e->len, .offset = e->pgoff,
		.exec = true,
	};
	struct seen_map *s;
	unsigned int i, k = 0;

	if (!t || !(e->prot & PROT_EXEC) || !code_mapping(e->path))
		return;
	/* the first executable file an image maps is its program */
	if (e->path[0] == '/' && !t->exe[0]) {
		snprintf(t->exe, sizeof(t->exe), "%s", e->path);
		if (t->exec_stop)
			upload_needs(r, t->exe);
	}
	if (t->exe[0])
		announce_exec(r, t);
	snprintf(m.path, sizeof(m.path), "%s", e->path);
	for (i = 0; i < t->nseen; i++) {
		s = &t->seen[i];
		if (s->m.start < m.end && s->m.end > m.start) {
			if (s->attach_ns)
				uw_dev_detach(r->fd, t->pid, s->m.text_start);
			continue;
		}
		t->seen[k++] = *s;
	}
	t->nseen = k;
	t->seen = rec_grow(t->seen, &t->room, t->nseen, sizeof(*t->seen));
	s = &t->seen[t->nseen++];
	memset(s, 0, sizeof(*s));
	resolve(r, t, &m, s, e->time_ns, e->build_id, e->build_id_len);
	if (!t->gone)
		flush_maps(r, t);
}

void rec_sideband_event(void *ctx, const struct sb_event *e)
{
	struct rec *r = ctx;

	switch (e->type) {
	case SB_FORK: on_fork(r, e); break;
	case SB_EXIT: on_exit_ev(r, e); break;
	case SB_COMM: on_comm(r, e); break;
	case SB_MMAP: on_mmap(r, e); break;
	case SB_LOST: break;	/* counted by the side-band */
	}
}
