// SPDX-License-Identifier: GPL-2.0
/*
 * Following processes, and samples finished in the task's own context.
 *
 * The sample interrupt can neither allocate, sleep, take the mmap lock nor
 * fault a page in.  When it meets a sample it cannot finish there, it
 * copies the user registers into a free slot of a preallocated pool and
 * queues the slot as task_work (TWA_RESUME) on the interrupted task, which
 * runs it before it next returns to user space (or as it exits).  There,
 * in uwprof_defer_run(), the module may do all of that:
 *
 *  - follow the process: a thread with no entry whose process descends
 *    from a followed one (START_INHERIT: fork, vfork, clone without
 *    CLONE_THREAD, found through real_parent), or that is the new image
 *    of a followed process (same pid and start time, new mm), or any
 *    process (START_ALL), gets its entry here (registry.c);
 *  - resolve the process's executable file mappings: each one not
 *    attached and not examined yet is read for its build-id (buildid.c)
 *    and a table uploaded for that build-id is attached at the mapping's
 *    load bias; mappings without one are remembered as examined (no-table
 *    entries) until another table is uploaded by build-id;
 *  - unwind the sample with the registers taken in the interrupt, reading
 *    the stack with get_user(), which faults pages in, and write the
 *    record with UWPROF_RF_DEFERRED and the interrupt's time and CPU.  The
 *    unwind runs on a copy of the module array, without s->lock, so a
 *    fault that waits holds up nobody else.
 *
 * A process the opener may not read (or cannot name in its pid namespace)
 * gets an ignored entry, so that its samples are not deferred again.
 *
 * The interrupt defers a sample of a followed process when its unwind
 * ended at code with no table that was not examined yet (the session has
 * tables by build-id, or START named the frame kind of anonymous code,
 * which is then attached as JIT code of that kind), or at a stack page
 * that was not resident (the session follows processes or has tables by
 * build-id).  If no slot is
 * free the interrupt's own result is delivered instead; a sample of a
 * process not followed yet is then lost and counted (deferred_failed).
 *
 * Lifetime: a queued slot holds a reference to the session
 * (uwprof_session_get(), session.c) and one to the module, so neither
 * goes while it is pending: closing the file only marks the session
 * closed (pending slots then drop their sample, counted), and the last
 * slot to run frees it.  task_work cannot be cancelled from a module
 * (task_work_cancel() is not exported); every queued work runs, at the
 * latest when its task exits.  The slots are the session's memory; a
 * slot is owned by whoever set its bit in s->defer_busy, from the
 * interrupt until uwprof_defer_run() copied it.
 *
 * A sample taken in the kernel is deferred too (a child's first samples
 * are often its fork's return or a page fault), and its task may then
 * sleep there for good (a read of an idle pipe, a long nanosleep).  So
 * that it does not keep the module, closing the file kicks each task
 * whose slot is still pending: a second work on the slot, queued with
 * TWA_SIGNAL, wakes an interruptible sleep the way a signal with no
 * handler does; the task runs both works and restarts its call (or, for
 * the calls the kernel never restarts, such as epoll_wait, returns EINTR
 * as after a stop and SIGCONT).  A task stopped, traced or in an
 * uninterruptible sleep is not woken: it holds the module (rmmod says
 * busy) until it goes on.  Not deferring samples taken in the kernel
 * avoids all of this but loses those first samples, and TWA_SIGNAL at
 * sample time would interrupt every sampled call, not only at close.
 *
 * Locks (session.c has the whole order): the interrupt takes none.  In
 * the task's context, s->lock is held only to look up or make the entry
 * and to copy its modules (a snapshot); mappings are listed under the
 * mmap lock alone, files are read holding no lock, and the results are
 * published holding the mmap lock (read) and, inside it, s->lock, after
 * the entry's mm watch was made holding neither.
 */
#include <linux/file.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "uwprof_arch.h"
#include "uwprof_mod.h"

#define UWPROF_ANCESTRY_MAX	64	/* parents looked at per sample */
#define UWPROF_RESOLVE_MAX	64	/* unwinds again per deferral */
#define UWPROF_SWEEP_VMAS	64	/* mappings a sweep looks at */
#define UWPROF_SWEEP_NEW	8	/* of them, examined per sweep */

/* @p's entry exists and is for @t's process (not a reused pid). */
static bool uwprof_is_followed(struct uwprof_session *s,
			       struct task_struct *t)
{
	struct uwprof_proc *p = xa_load(&s->procs, t->tgid);

	return p && p->start_time == t->group_leader->start_time;
}

/*
 * Should current's process be followed?  Under rcu_read_lock, from the
 * interrupt or from task context; current has no live entry.  @inherited:
 * the sample came from a per-task event current inherited, which only a
 * descendant of an attached process has, even one whose parent exited
 * and that was reparented before its first sample.
 */
bool uwprof_follow_wanted(struct uwprof_session *s, bool inherited)
{
	struct task_struct *t = current, *parent;
	int i;

	if (!uwprof_arch_task_is_32bit(current))
		return false;
	if (s->follow_all)
		return true;
	if (!s->inherit)
		return false;
	if (inherited)
		return true;
	/* itself after an exec, or a descendant of a followed process */
	for (i = 0; i < UWPROF_ANCESTRY_MAX; i++) {
		if (uwprof_is_followed(s, t))
			return true;
		parent = rcu_dereference(t->real_parent);
		if (!parent || parent == t || parent->pid == 0)
			return false;
		t = parent;
	}
	return false;
}

/*
 * Per task: do @tgid's threads carry this file's events already, inherited
 * at its fork from an ancestor whose threads had them then?  Then making
 * events for it (an ATTACH of a child) would sample it twice.
 */
bool uwprof_inherits_events(struct uwprof_session *s, u32 tgid)
{
	struct task_struct *leader, *t;
	struct uwprof_proc *p;
	bool ret = false;
	int i;

	rcu_read_lock();
	leader = pid_task(find_pid_ns(tgid, &init_pid_ns), PIDTYPE_PID);
	t = leader ? rcu_dereference(leader->real_parent) : NULL;
	for (i = 0; t && t->pid && i < UWPROF_ANCESTRY_MAX && !ret; i++) {
		p = xa_load(&s->procs, t->tgid);
		ret = p && p->start_time == t->group_leader->start_time &&
		      p->events_ns && p->events_ns <= leader->start_time;
		t = rcu_dereference(t->real_parent);
	}
	rcu_read_unlock();
	return ret;
}

/* @addr lies in code of @p that was attached or examined already. */
static bool uwprof_code_known(struct uwprof_session *s, struct uwprof_proc *p,
			      u32 addr)
{
	struct uwprof_mods *m = rcu_dereference(p->mods);
	const struct uw2_module *mod;

	if (!m)
		return false;
	mod = uw2_find_module(m->mod, m->n, addr);
	return mod && (uwprof_mod_attached(mod) ||
		       m->gen == READ_ONCE(s->table_gen));
}

/*
 * Does task context examine code met without a table: tables were
 * uploaded by build-id, or anonymous code is a JIT's (START)?
 */
static bool uwprof_examines(struct uwprof_session *s)
{
	return READ_ONCE(s->n_bid_tables) || READ_ONCE(s->anon_frames);
}

/* uwprof_defer_wanted() for the stops it names */
bool uwprof_defer_stop_wanted(struct uwprof_session *s,
			      struct uwprof_proc *p, enum uw2_stop stop,
			      const u32 *frames, u32 nframes)
{
	bool bid = uwprof_examines(s);

	if (stop == UW2_STOP_READ_FAULT)
		return bid || s->inherit || s->follow_all;
	/* a JIT chain may leave for a JIT's code not examined yet */
	if (stop == UW2_STOP_JIT_CHAIN)
		return READ_ONCE(s->anon_frames);
	/* the last frame is the address no table covered */
	return stop == UW2_STOP_NO_TABLE && bid && nframes &&
	       !uwprof_code_known(s, p, frames[nframes - 1]);
}

static void uwprof_defer_run(struct callback_head *work);

/* Module references of deferred samples that ran, to be dropped. */
static atomic_t uwprof_puts_pending = ATOMIC_INIT(0);

static void uwprof_put_module(struct work_struct *work)
{
	while (atomic_dec_if_positive(&uwprof_puts_pending) >= 0)
		module_put(THIS_MODULE);
}

static DECLARE_WORK(uwprof_put_work, uwprof_put_module);

/*
 * For a task work that ran: not module_put() in it, since a task preempted
 * between that and the work's return could return into freed module text.
 * A work item on the module's own workqueue drops the reference, and the
 * module's exit flushes that workqueue, which waits for it to return.
 */
static void uwprof_put_module_later(void)
{
	atomic_inc(&uwprof_puts_pending);
	uwprof_queue_work(&uwprof_put_work);
}

/* Is a sample of current queued to its own context already? */
static struct uwprof_defer *uwprof_defer_pending(struct uwprof_session *s)
{
	unsigned int i;

	for_each_set_bit(i, s->defer_busy, UWPROF_DEFER_SLOTS)
		if (READ_ONCE(s->defer[i].task) == current)
			return &s->defer[i];
	return NULL;
}

/*
 * In the interrupt: hand the sample of current to its own context.
 * Returns false if it could not (no free slot, the task is exiting).
 */
bool uwprof_defer(struct uwprof_session *s, const struct uw2_regs *regs,
		  bool in_kernel, bool thumb, bool inherited)
{
	struct uwprof_defer *d;
	unsigned int i;

	/* in exec the registers and the mm may belong to different images */
	if ((current->flags & PF_EXITING) || current->in_execve)
		return false;
	/*
	 * One pending sample per task, so that no task holds the pool.  The
	 * task has not been back in user space since (the work runs first),
	 * so its user registers are those the slot holds: the slot counts
	 * this sample too, and its unwind is written once for each.
	 */
	d = uwprof_defer_pending(s);
	if (d) {
		if (d->extra == U16_MAX)
			return false;
		d->extra++;
		d->last_ns = uwprof_now();
		return true;
	}
	do {
		i = find_first_zero_bit(s->defer_busy, UWPROF_DEFER_SLOTS);
		if (i >= UWPROF_DEFER_SLOTS)
			return false;
	} while (test_and_set_bit_lock(i, s->defer_busy));
	d = &s->defer[i];
	WRITE_ONCE(d->task, current);
	d->regs = *regs;
	d->mm = current->mm;
	d->in_kernel = in_kernel;
	d->thumb = thumb;
	d->inherited = inherited;
	d->time_ns = uwprof_now();
	d->last_ns = d->time_ns;
	d->extra = 0;
	d->cpu = smp_processor_id();
	/* the file is open while its sampler runs: neither count is 0 */
	uwprof_session_get(s);
	__module_get(THIS_MODULE);
	init_task_work(&d->work, uwprof_defer_run);
	if (task_work_add(current, &d->work, TWA_RESUME)) {
		d->task = NULL;
		module_put(THIS_MODULE);
		uwprof_session_put(s);	/* not the last: the file's is held */
		clear_bit_unlock(i, s->defer_busy);
		return false;
	}
	return true;
}

/* Was @t uploaded for @e's build-id? */
static bool uwprof_table_of(const struct uwprof_table *t,
			    const struct uwprof_elf_map *e)
{
	return (t->flags & UWPROF_TABLE_BY_BUILD_ID) &&
	       t->build_id_size == e->build_id_size &&
	       !memcmp(t->build_id, e->build_id, e->build_id_size);
}

/* How many tables were uploaded for @e's build-id. */
static u32 uwprof_tables_for(struct uwprof_session *s,
			     const struct uwprof_elf_map *e)
{
	struct uwprof_table *t;
	unsigned long id;
	u32 n = 0;

	xa_for_each(&s->tables, id, t)
		n += uwprof_table_of(t, e);
	return n;
}

/* An executable mapping as it was when listed, its file pinned. */
struct uwprof_cand {
	unsigned long start;
	unsigned long end;
	unsigned long pgoff;
	struct file *file;	/* NULL: anonymous code */
	bool vdso;		/* the kernel's vDSO: read from memory */
	bool anon;		/* anonymous memory (no file, no special pages) */
	bool again;		/* not in the page cache: not examined yet */
	/*
	 * Its entries: one (a table, or none over the mapping), or one per
	 * part of a table split over consecutive ranges (several tables of
	 * one build-id), then in @parts, which is kmalloc'd.
	 */
	struct uw2_module mod;
	struct uw2_module *parts;
	u32 n;
};

/* @c's entries. */
static const struct uw2_module *uwprof_cand_mods(const struct uwprof_cand *c)
{
	return c->parts ? c->parts : &c->mod;
}

/*
 * Place each table of @e's build-id whose range the mapping @c holds, at
 * its bias @bias, in @out (room for @max): all parts of a split table;
 * of tables whose ranges overlap, the first uploaded.  Returns how many.
 */
static u32 uwprof_place(struct uwprof_session *s, const struct uwprof_cand *c,
			const struct uwprof_elf_map *e, u32 bias,
			struct uw2_module *out, u32 max)
{
	struct uwprof_table *t;
	struct uw2_module m;
	unsigned long id;
	u32 start, n = 0;

	xa_for_each(&s->tables, id, t) {
		if (n == max)
			break;
		if (!uwprof_table_of(t, e))
			continue;
		start = bias + t->text_addr;
		/* start >= c->end first: c->end - start must not wrap */
		if (start < c->start || start >= c->end ||
		    t->text_size > c->end - start)
			continue;
		m = (struct uw2_module){
			.text_start = start,
			.text_end = start + t->text_size,
			.table = &t->t,
		};
		if (!uwprof_mod_overlaps(&m, out, n))
			out[n++] = m;
	}
	return n;
}

/*
 * @c's entry: its table placed at the mapping's bias if one was uploaded
 * for the file (or the vDSO image) and the mapping holds all of the range
 * the table covers; otherwise a no-table entry over the mapping, unless
 * the file's pages were not in the page cache (@c->again).  Reads the
 * file or the image: called without the mmap lock.
 */
static void uwprof_examine(struct uwprof_session *s, struct uwprof_cand *c)
{
	u64 off = c->vdso ? 0 : (u64)c->pgoff << PAGE_SHIFT;
	struct uwprof_elf_map e;
	struct uw2_module *parts;
	u32 bias, n;
	int err;

	c->mod = (struct uw2_module){
		.text_start = c->start,
		.text_end = c->end,
		/* anonymous code: a JIT's, of the kind START named, if any */
		.frames = c->anon ? READ_ONCE(s->anon_frames) :
			  UW2_FRAMES_TABLE,
	};
	c->n = 1;
	if (c->vdso)
		err = uwprof_elf_user_info(c->start, c->end - c->start, &e);
	else if (c->file)
		err = uwprof_elf_map_info(c->file, off, c->end - c->start, &e);
	else
		err = -ENOENT;		/* anonymous code */
	/* pages not cached (a file's only): looked at again later */
	c->again = err == -EAGAIN && c->file;
	if (err)
		return;
	n = uwprof_tables_for(s, &e);
	if (!n)
		return;
	bias = uwprof_map_bias(&e, c->start, off);
	if (n == 1) {
		/* one table: no allocation; none that fits: no-table entry */
		uwprof_place(s, c, &e, bias, &c->mod, 1);
		return;
	}
	/* more may be uploaded meanwhile: only @n are placed */
	parts = kmalloc_array(n, sizeof(*parts), GFP_KERNEL);
	if (!parts)
		return;		/* a no-table entry, until the next upload */
	n = uwprof_place(s, c, &e, bias, parts, n);
	if (n) {
		c->parts = parts;
		c->n = n;
	} else {
		kfree(parts);
	}
}

/* An executable mapping as a candidate, its file pinned. */
static void uwprof_cand_of(struct mm_struct *mm, struct vm_area_struct *vma,
			   struct uwprof_cand *c)
{
	*c = (struct uwprof_cand){
		.start = vma->vm_start,
		.end = vma->vm_end,
		.pgoff = vma->vm_pgoff,
		.file = vma->vm_file ? get_file(vma->vm_file) : NULL,
		.vdso = !vma->vm_file && vma->vm_start == uwprof_arch_vdso(mm),
		/* not the kernel's special pages (sigpage, vectors): no JIT's */
		.anon = vma_is_anonymous(vma),
	};
}

static bool uwprof_vma_code(struct vm_area_struct *vma)
{
	return (vma->vm_flags & VM_EXEC) && vma->vm_end <= U32_MAX;
}

/* @c still maps what it mapped when it was listed.  Under the mmap lock. */
static bool uwprof_cand_current(struct mm_struct *mm,
				const struct uwprof_cand *c)
{
	struct vm_area_struct *vma = find_vma(mm, c->start);

	return vma && vma->vm_start == c->start && vma->vm_end == c->end &&
	       vma->vm_pgoff == c->pgoff && vma->vm_file == c->file &&
	       (vma->vm_flags & VM_EXEC);
}

/*
 * What the unwind needs of the process, copied under s->lock so that the
 * unwind itself, whose reads may fault and wait, runs without it.  The
 * tables stay: they live as long as the session, which the slot pins.
 */
struct uwprof_snapshot {
	u32 tgid;
	u32 user_pid;
	u32 n;
	bool examined_ok;	/* no-table entries are current (gen) */
	u32 uw2_flags;		/* how to unwind (UW2_F_*: rules, JIT) */
	u32 sweep_at;		/* where the next sweep starts */
	bool watched;		/* the entry has its mm watch */
	struct uw2_module *mods;
};

/*
 * A fresh copy of @p's modules in @snap.  Under s->lock.  If the copy
 * cannot be made, @snap is left as it was: the caller may go on with it,
 * out of date but whole (its modules point to tables that live as long
 * as the session), and -ENOMEM says so.
 */
static int uwprof_snapshot(struct uwprof_session *s, struct uwprof_proc *p,
			   struct uwprof_snapshot *snap)
{
	struct uw2_module *mods = NULL;
	struct uwprof_mods *m;
	u32 n;

	m = rcu_dereference_protected(p->mods, lockdep_is_held(&s->lock));
	n = m ? m->n : 0;
	if (n) {
		mods = kmemdup(m->mod, n * sizeof(*m->mod), GFP_KERNEL);
		if (!mods)
			return -ENOMEM;
	}
	kfree(snap->mods);
	snap->mods = mods;
	snap->n = n;
	snap->tgid = p->tgid;
	snap->user_pid = p->user_pid;
	snap->sweep_at = p->sweep_at;
	snap->watched = !!p->watch;
	snap->examined_ok = m && m->gen == s->table_gen;
	snap->uw2_flags = m ? m->uw2_flags : 0;
	return 0;
}

/*
 * Does @snap know anything of [@start, @end): an attachment, or code
 * examined under the current gen?  A binary search of the sorted entries.
 */
static bool uwprof_snap_knows(const struct uwprof_snapshot *snap, u32 start,
			      u32 end)
{
	u32 lo = 0, hi = snap->n, mid;
	const struct uw2_module *m;

	/* the last entry starting before @end */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (snap->mods[mid].text_start < end)
			lo = mid + 1;
		else
			hi = mid;
	}
	/*
	 * Live entries do not overlap, so the last live one is the only one
	 * to look at; entries ended by a munmap (empty) are passed over.
	 */
	while (lo && !uwprof_mod_live(&snap->mods[lo - 1]))
		lo--;
	if (!lo)
		return false;
	m = &snap->mods[lo - 1];
	return m->text_end > start &&
	       (uwprof_mod_attached(m) || snap->examined_ok);
}

/*
 * Executable mappings of current to examine, at most @max in @c: the one
 * holding @addr (code an unwind stopped at, or 0 for none), then unknown
 * ones of a sweep that looks at UWPROF_SWEEP_VMAS mappings from where the
 * last one stopped, so that code mapped but not yet run gets its table
 * too, without a walk of every mapping.  Returns how many, or 0 if the
 * mmap lock could not be had (a fatal signal).
 */
static u32 uwprof_list_cands(struct uwprof_snapshot *snap, u32 addr,
			     struct uwprof_cand *c, u32 max)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	u32 n = 0, seen;

	if (mmap_read_lock_killable(mm))
		return 0;
	/* the code the unwind stopped at first: the sweep may not reach it */
	vma = addr ? find_vma(mm, addr) : NULL;
	if (vma && vma->vm_start <= addr && uwprof_vma_code(vma))
		uwprof_cand_of(mm, vma, &c[n++]);
	vma = find_vma(mm, snap->sweep_at);
	for (seen = 0; vma && seen < UWPROF_SWEEP_VMAS && n < max; seen++) {
		if (uwprof_vma_code(vma) && (!n || vma->vm_start != c[0].start) &&
		    !uwprof_snap_knows(snap, vma->vm_start, vma->vm_end))
			uwprof_cand_of(mm, vma, &c[n++]);
		vma = find_vma(mm, vma->vm_end);
	}
	/* the next sweep goes on from here, or from the start */
	snap->sweep_at = vma ? vma->vm_start : 0;
	mmap_read_unlock(mm);
	return n;
}

/* current's entry, if it still is the one @snap was taken of.  Under s->lock. */
static struct uwprof_proc *uwprof_proc_again(struct uwprof_session *s,
					     const struct uwprof_snapshot *snap)
{
	struct uwprof_proc *p = xa_load(&s->procs, snap->tgid);

	return !s->closed && p && p->mm == current->mm && !p->ignored ?
	       p : NULL;
}

/*
 * Publish what was found of the @n mappings of @c in current's entry
 * (attachments of tables by build-id, or code examined), and refresh
 * @snap.  The entries are published under the mmap lock, after checking
 * each mapping is still there, so a munmap either comes before (and the
 * entry is not made) or after (and the mm watch sees the entry).
 *
 * The mmap lock is taken before s->lock, and the entry's mm watch is
 * made before either (inserting one may take the mmap lock for writing):
 * session.c, "Locks".
 */
static int uwprof_publish(struct uwprof_session *s, struct uwprof_cand *c,
			  u32 n, struct uwprof_snapshot *snap)
{
	struct mm_struct *mm = current->mm;
	struct uwprof_mmwatch *w = NULL;
	struct uw2_module *add;
	struct uwprof_proc *p;
	u32 i, k = 0, nadd = 0;
	int ret;

	for (i = 0; i < n; i++)
		nadd += c[i].n;
	add = kmalloc_array(nadd, sizeof(*add), GFP_KERNEL);
	if (!add)
		return -ENOMEM;
again:
	if (!snap->watched && !w) {
		w = uwprof_proc_watch_new(mm);
		if (IS_ERR(w)) {
			ret = PTR_ERR(w);
			w = NULL;
			goto out;
		}
	}
	ret = mmap_read_lock_killable(mm);
	if (ret)
		goto out;
	ret = mutex_lock_killable(&s->lock);
	if (ret)
		goto out_mmap;
	p = uwprof_proc_again(s, snap);
	ret = p ? uwprof_proc_watch(p, &w) : -ESRCH;
	if (ret == -EAGAIN) {
		/* a new entry since the snapshot, not watched yet: once more */
		mutex_unlock(&s->lock);
		mmap_read_unlock(mm);
		snap->watched = false;
		goto again;
	}
	if (!ret) {
		p->sweep_at = snap->sweep_at;
		for (i = 0; i < n; i++) {
			if (c[i].again || !uwprof_cand_current(mm, &c[i]))
				continue;
			memcpy(add + k, uwprof_cand_mods(&c[i]),
			       c[i].n * sizeof(*add));
			k += c[i].n;
		}
		if (k)
			ret = uwprof_mods_update(s, p, add, k, false, 0);
	}
	if (!ret)
		ret = uwprof_snapshot(s, p, snap);
	mutex_unlock(&s->lock);
out_mmap:
	mmap_read_unlock(mm);
out:
	uwprof_mmwatch_free(w);	/* made, then not needed (or NULL) */
	kfree(add);
	return ret;
}

/*
 * Examine the mapping of current at @addr, code the unwind met with no
 * table (0: none), and those a sweep finds: read each one's build-id
 * (file I/O, holding no lock that another task could wait on: a hung
 * file blocks this task alone), and publish the results.
 */
static int uwprof_resolve_at(struct uwprof_session *s, u32 addr,
			     struct uwprof_snapshot *snap)
{
	struct uwprof_cand c[UWPROF_SWEEP_NEW + 1];
	u32 n, i;
	int ret;

	n = uwprof_list_cands(snap, addr, c, UWPROF_SWEEP_NEW + 1);
	if (!n)
		return -ENOENT;
	for (i = 0; i < n; i++)
		uwprof_examine(s, &c[i]);
	ret = uwprof_publish(s, c, n, snap);
	for (i = 0; i < n; i++) {
		if (c[i].file)
			fput(c[i].file);
		kfree(c[i].parts);
	}
	return ret;
}

/* uw2_stack reader in task context: faults pages in. */
static int uwprof_defer_read(void *ctx, u32 addr, u32 *val)
{
	return get_user(*val, (u32 __user *)(unsigned long)addr);
}

/*
 * The code an unwind that ended with @stop and @regs (the last frame's
 * state) ended at: the last frame, which no table covered (no-table); or
 * the return address a frame of JIT code keeps, which left that code
 * without an entry frame (jit-chain), read from the task's stack: the
 * code it lands in may be a JIT's that was not examined yet.  0: none.
 */
static u32 uwprof_stop_at(const struct uwprof_snapshot *snap,
			  enum uw2_stop stop, const u32 *frames, u32 n,
			  const struct uw2_regs *regs)
{
	u32 ra_at, ra;

	if (stop == UW2_STOP_NO_TABLE)
		return n ? frames[n - 1] : 0;
	if (stop != UW2_STOP_JIT_CHAIN)
		return 0;
	ra_at = uw2_jit_ra_at(snap->mods, snap->n, regs);
	if (!ra_at || (ra_at & 3) ||
	    get_user(ra, (u32 __user *)(unsigned long)ra_at))
		return 0;
	return ra & ~1u;
}

/* The sampler's uwprof_pc_maybe_ahead(), reading the code with faults. */
static bool uwprof_defer_pc_ahead(const struct uw2_regs *regs, bool thumb)
{
	unsigned long at = (regs->r[UW2_PC] & ~1ul) - 4;
	u32 insn;

	/* a Thumb pc may be 2 bytes off a word: copied, not get_user() */
	if (!UWPROF_ARCH_VFP_TRAPS ||
	    copy_from_user(&insn, (const void __user *)at, sizeof(insn)))
		return false;
	return uwprof_arch_vfp_moves_sp(insn, thumb);
}

/*
 * Unwind the sample in @d with @snap into @frames.  With tables by
 * build-id uploaded, the process's code is examined first by a sweep (a
 * few mappings each time), and an unwind that ends at code not examined
 * yet (uwprof_stop_at()) examines that code and goes again, at most
 * UWPROF_RESOLVE_MAX times: each time a few mappings, never a walk of
 * them all.
 */
static enum uw2_stop uwprof_defer_walk(struct uwprof_session *s,
				       struct uwprof_snapshot *snap,
				       const struct uwprof_defer *d,
				       u32 *frames, u32 *nframes)
{
	u32 sp = d->regs.r[UW2_SP], tries = 0, at;
	struct uw2_stack stack = {
		.lo = sp,
		.hi = sp + s->stack_window < sp ? 0xfffffffc :
		      sp + s->stack_window,
		.read = uwprof_defer_read,
	};
	const struct uw2_module *m;
	struct uw2_regs regs;
	enum uw2_stop stop;

	/* in a trapped VFP instruction's window: as the sampler refuses */
	if (d->in_kernel && uwprof_defer_pc_ahead(&d->regs, d->thumb)) {
		frames[0] = d->regs.r[UW2_PC] & ~1u;
		*nframes = 1;
		return UW2_STOP_REFUSED;
	}
	if (uwprof_examines(s))
		uwprof_resolve_at(s, 0, snap);	/* a sweep */
	for (;;) {
		regs = d->regs;
		stop = uw2_unwind_cached(snap->mods, snap->n, &regs, &stack,
					 frames, s->max_depth, nframes,
					 snap->uw2_flags |
					 (d->in_kernel ? UW2_F_KERNEL_REGS : 0),
					 NULL);
		at = uwprof_stop_at(snap, stop, frames, *nframes, &regs);
		if (!at || !uwprof_examines(s) ||
		    uwprof_snap_knows(snap, at, at + 1) ||
		    tries++ == UWPROF_RESOLVE_MAX)
			return stop;
		uwprof_resolve_at(s, at, snap);
		/* again only if that code has a table now */
		m = uw2_find_module(snap->mods, snap->n, at);
		if (!m || !uwprof_mod_attached(m))
			return stop;
	}
}

/* Unwind the sample in @d with @snap and write its record. */
static int uwprof_defer_unwind(struct uwprof_session *s,
			       struct uwprof_snapshot *snap,
			       const struct uwprof_defer *d, u64 t0)
{
	struct uwprof_rec_info ri;
	enum uw2_stop stop;
	struct uwprof_cpu *c;
	unsigned long flags;
	u32 *frames, nframes = 0, i;

	frames = kmalloc_array(s->max_depth, sizeof(*frames), GFP_KERNEL);
	if (!frames)
		return -ENOMEM;
	stop = uwprof_defer_walk(s, snap, d, frames, &nframes);
	if (nframes && d->thumb)
		frames[0] |= 1;
	ri = (struct uwprof_rec_info){
		.pid = snap->user_pid,
		.tid = uwprof_tid(s),
		.time_ns = d->time_ns,
		.cpu = d->cpu,
		.flags = UWPROF_RF_DEFERRED |
			 (d->in_kernel ? UWPROF_RF_KERNEL : 0),
		.stop = stop,
		.nframes = nframes,
		.frames = frames,
	};
	/* this CPU's ring and counters, as its interrupt would write them */
	local_irq_save(flags);
	c = this_cpu_ptr(s->cpu);
	t0 = uwprof_deliver(s, c, &ri, t0) - t0;
	/* the samples the slot counted while pending: the same stack */
	ri.time_ns = d->last_ns;
	for (i = 0; i < d->extra; i++)
		uwprof_deliver(s, c, &ri, uwprof_now());
	u64_stats_update_begin(&c->syncp);
	c->stats.handler_ns_sum += t0;
	u64_stats_update_end(&c->syncp);
	local_irq_restore(flags);
	kfree(frames);
	return 0;
}

/* @n samples that needed the task's context were lost. */
static void uwprof_count_failed(struct uwprof_session *s, u32 n)
{
	struct uwprof_cpu *c;
	unsigned long flags;

	local_irq_save(flags);
	c = this_cpu_ptr(s->cpu);
	u64_stats_update_begin(&c->syncp);
	c->stats.deferred_failed += n;
	u64_stats_update_end(&c->syncp);
	local_irq_restore(flags);
}

/*
 * Task context of a thread the sample path found worth following (a child
 * or new image of a followed process, any process with START_ALL): its
 * entry, made now if need be, ignored unless @allowed
 * (uwprof_may_follow_current()).  NULL if it cannot be followed.  Called
 * with s->lock held.
 */
static struct uwprof_proc *uwprof_follow_current(struct uwprof_session *s,
						 bool inherited, bool allowed)
{
	struct mm_struct *mm = current->mm;
	struct uwprof_cpu *c;
	struct uwprof_proc *p;
	unsigned long flags;
	bool fresh, wanted, ignored;
	u32 user_pid;

	p = xa_load(&s->procs, current->tgid);
	if (p && p->mm == mm)
		return p;
	rcu_read_lock();
	wanted = uwprof_follow_wanted(s, inherited);
	rcu_read_unlock();
	if (!wanted)
		return NULL;
	/* one that may not be sampled is remembered, not asked about again */
	user_pid = task_tgid_nr_ns(current, s->pid_ns);
	ignored = !user_pid || !allowed;
	p = uwprof_proc_for_mm(s, current->tgid, user_pid, mm,
			       current->group_leader->start_time, ignored,
			       &fresh);
	if (IS_ERR(p) || ignored)
		return IS_ERR(p) ? NULL : p;
	/* an inherited event sampled it: it has carried one since its fork */
	if (inherited && !p->events_ns)
		p->events_ns = current->group_leader->start_time;
	local_irq_save(flags);
	c = this_cpu_ptr(s->cpu);
	uwprof_count(c, &c->stats.followed);
	local_irq_restore(flags);
	return p;
}

/*
 * current's entry, followed now if it should be, and a copy of its
 * modules: the only part of a deferred sample under s->lock, and none of
 * it waits on files or user memory.  -EPERM: not to be sampled.
 */
static int uwprof_defer_follow(struct uwprof_session *s,
			       const struct uwprof_defer *d,
			       struct uwprof_snapshot *snap)
{
	struct uwprof_proc *p;
	bool allowed;
	int ret;

	/* whether the opener may read current: decided before any lock */
	allowed = uwprof_may_follow_current(s);
	ret = mutex_lock_killable(&s->lock);
	if (ret)
		return ret;
	p = s->closed ? NULL : uwprof_follow_current(s, d->inherited, allowed);
	if (!p)
		ret = s->closed ? -EPIPE : -ESRCH;
	else if (p->ignored)
		ret = -EPERM;
	else
		ret = uwprof_snapshot(s, p, snap);
	mutex_unlock(&s->lock);
	return ret;
}

static void uwprof_defer_finish(struct uwprof_session *s,
				const struct uwprof_defer *d)
{
	struct uwprof_snapshot snap = { 0 };
	u64 t0 = uwprof_now();
	int ret = -ESRCH;

	/*
	 * At exit the mm is gone before task work runs; after an exec the
	 * registers are the old image's.  (The new mm was allocated while
	 * the old one lived, so the pointers differ.)
	 */
	if (current->mm && current->mm == d->mm)
		ret = uwprof_defer_follow(s, d, &snap);
	if (!ret)
		ret = uwprof_defer_unwind(s, &snap, d, t0);
	/* a closed file drops its samples uncounted: no one reads them */
	if (ret && ret != -EPIPE)
		uwprof_count_failed(s, 1 + d->extra);
	kfree(snap.mods);
}

static void uwprof_defer_run(struct callback_head *work)
{
	struct uwprof_defer *d = container_of(work, struct uwprof_defer, work);
	struct uwprof_session *s = d->s;
	struct uwprof_defer copy;

	/*
	 * An interrupt of this task on this CPU either counts its sample in
	 * the slot before the copy, or finds the slot no longer pending.
	 */
	WRITE_ONCE(d->task, NULL);
	barrier();
	/* not the kick, which a close may be queueing now */
	memcpy(&copy, d, offsetof(struct uwprof_defer, kick));
	clear_bit_unlock(d - s->defer, s->defer_busy);
	uwprof_defer_finish(s, &copy);
	uwprof_session_put(s);
	uwprof_put_module_later();
}

/*
 * A kick (uwprof_defer_kick()) does nothing itself: the task ran its
 * slot's work in the same task_work_run(), or will before user space.
 */
static void uwprof_kick_run(struct callback_head *work)
{
	struct uwprof_defer *d = container_of(work, struct uwprof_defer, kick);

	uwprof_session_put(d->s);
	uwprof_put_module_later();
}

/*
 * At close: make the task of the pending slot @d run its work soon rather
 * than when it next returns to user space, which a task that sleeps in a
 * system call may never do, holding the module.  A second work queued
 * with TWA_SIGNAL wakes an interruptible sleep as a signal would, without
 * one: the call is restarted after the works ran, or returns EINTR where
 * any signal makes it (docs/ABI.md, "Following processes and deferred
 * unwinding").
 *
 * The task is not pinned: it clears d->task first when it runs the slot,
 * before it can exit, and a task is freed a grace period after its exit
 * at the earliest, so one read under rcu_read_lock() stays valid there.
 * Each slot is kicked at most once: the sampler was stopped, no slot is
 * taken again.  The kick holds what the slot holds, for the same reasons.
 */
static void uwprof_defer_kick(struct uwprof_session *s,
			      struct uwprof_defer *d)
{
	struct task_struct *t;
	int ret = -ESRCH;

	uwprof_session_get(s);
	__module_get(THIS_MODULE);
	init_task_work(&d->kick, uwprof_kick_run);
	rcu_read_lock();
	t = READ_ONCE(d->task);
	if (t)
		ret = task_work_add(t, &d->kick, TWA_SIGNAL);
	rcu_read_unlock();
	if (ret) {
		/* ran meanwhile, or exited: the file holds both still */
		module_put(THIS_MODULE);
		uwprof_session_put(s);
	}
}

/* At close, after the sampler stopped: kick every pending slot's task. */
void uwprof_defer_kick_all(struct uwprof_session *s)
{
	unsigned int i;

	for_each_set_bit(i, s->defer_busy, UWPROF_DEFER_SLOTS)
		uwprof_defer_kick(s, &s->defer[i]);
}
