// SPDX-License-Identifier: GPL-2.0
/*
 * The table registry of one open file: uploaded tables, and the processes
 * they are attached to with the runtime .text range of each module.
 *
 * Tables live until the file is closed; they are never freed while the
 * sampler could use them.  A process entry is keyed by its global tgid and
 * remembers its mm (mmgrab()bed, so the pointer cannot be reused): after
 * exec the mm differs and the entry no longer applies; once the mm has no
 * users the entry is reaped.  The sample path reads entries under RCU;
 * every change publishes a new module array and frees the old one after a
 * grace period.
 *
 * While the session follows processes (START_INHERIT, START_ALL), the entry
 * of a process that exec'd is kept until its new image is followed (the
 * start time tells an exec from a reused pid); follow.c creates entries for
 * processes the module follows by itself.  Tables uploaded by build-id are
 * attached by follow.c, in the task's own context.
 *
 * This file owns both objects.  A table (struct uwprof_table) lives from
 * its upload to the session's free; it has no count of its own.  Its
 * validated blob may then be kept for the opener's next file
 * (tablemem.c), which owns the bound on all files' table bytes.  A
 * process entry (struct uwprof_proc) lives from uwprof_proc_for_mm() until
 * it is unlinked from s->procs (reaped, replaced after an exec, dropped
 * by a failed ATTACH, or at the session's free), then is buried and freed
 * a grace period later on the module's workqueue, with its mm watch.
 *
 * Locks (session.c has the whole order): s->procs, s->tables and every
 * entry's fields change under s->lock; p->lock (spinlock) nests inside it
 * and keeps a module array's replacement (uwprof_mods_update()) from
 * racing the mm watch's callback, which ends entries in place under it
 * (uwprof_mods_end_range(), called under the unmapping thread's mmap
 * lock).  Nothing here touches user memory or an mmap lock under s->lock:
 * ATTACH finds the process and makes its mm watch before taking it, and
 * LIST copies its answer out after.
 */
#include <linux/cred.h>
#include <linux/capability.h>
#include <linux/mm.h>
#include <linux/sched/coredump.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include "uwprof_arch.h"
#include "uwprof_mod.h"

void uwprof_registry_init(struct uwprof_session *s)
{
	xa_init_flags(&s->tables, XA_FLAGS_ALLOC1);
	xa_init(&s->procs);
}

/* @t, its blob and its shapes; the shapes' charge given back. */
static void uwprof_table_free(struct uwprof_table *t)
{
	if (t->shapes)
		uwprof_tables_uncharge(t->shapes_bytes);
	kvfree(t->shapes);
	kvfree(t->blob);
	kfree(t);
}

/*
 * The same blob, uploaded for the same file (or for none).  No hash of
 * the blob: one cost a pass over every upload (a twentieth of a recording's
 * start-up), where the blobs compared are only those of the same size and
 * file, whose compare stops at their first difference.  It runs under
 * s->lock, which followed tasks take in their own context (follow.c):
 * the session's table bytes bound it, as they bounded a compare after a
 * hash collision, which anyone could make of jhash().
 */
static struct uwprof_table *
uwprof_table_find_same(struct uwprof_session *s, const struct uwprof_table *n)
{
	struct uwprof_table *t;
	unsigned long id;

	xa_for_each(&s->tables, id, t)
		if (t->size == n->size && t->flags == n->flags &&
		    t->text_addr == n->text_addr &&
		    t->text_size == n->text_size &&
		    t->build_id_size == n->build_id_size &&
		    !memcmp(t->build_id, n->build_id, n->build_id_size) &&
		    !memcmp(t->blob, n->blob, n->size))
			return t;
	return NULL;
}

/* A by-build-id upload names a file and a range; a plain one neither. */
static int uwprof_upload_check(const struct uwprof_table_upload *up)
{
	if (up->flags & ~(UWPROF_TABLE_BY_BUILD_ID | UWPROF_TABLE_CHROME_COMPAT |
			  UWPROF_TABLE_JIT_ROWS) || up->reserved)
		return -EINVAL;
	if (!(up->flags & UWPROF_TABLE_BY_BUILD_ID))
		return up->build_id_size || up->text_addr || up->text_size ?
		       -EINVAL : 0;
	if (!up->build_id_size || up->build_id_size > UWPROF_BUILD_ID_MAX ||
	    !up->text_size || up->text_addr + up->text_size < up->text_addr)
		return -EINVAL;
	return 0;
}

/*
 * Validation's pause: a large table takes a while, which other tasks on
 * this CPU need not wait out, and a killed uploader need not finish.
 */
static bool uwprof_validate_pause(void *ctx)
{
	cond_resched();
	return fatal_signal_pending(current);
}

/*
 * The shapes of @t's sequences (uw2_shapes_find()), found right after
 * validation with its memo @check, in the uploader's context, so that a
 * sample's lookup that misses reads its shape instead of decoding it;
 * charged as table memory, their scratch while it is used.  A UIT too
 * large for them gets none: lookups decode.
 */
static int uwprof_table_shapes(struct uwprof_table *t,
			       const struct uw2_check *check)
{
	u32 scratch_bytes = uw2_shapes_scratch_bytes(&t->t), bytes;
	void *scratch;
	int ret = 0;

	if (!scratch_bytes)
		return 0;
	if (!uwprof_tables_charge(scratch_bytes))
		return -ENOSPC;
	scratch = kvmalloc(scratch_bytes, GFP_KERNEL_ACCOUNT);
	if (!scratch) {
		ret = -ENOMEM;
		goto out;
	}
	/* 0: the pause ended it, for a fatal signal */
	bytes = uw2_shapes_find(&t->t, scratch, check);
	if (!bytes)
		ret = -EINTR;
	else if (!uwprof_tables_charge(bytes))
		ret = -ENOSPC;
	if (!ret) {
		t->shapes = kvmalloc(bytes, GFP_KERNEL_ACCOUNT);
		if (t->shapes) {
			t->shapes_bytes = bytes;
			uw2_shapes_store(&t->t, scratch, t->shapes, bytes);
		} else {
			uwprof_tables_uncharge(bytes);
			ret = -ENOMEM;
		}
	}
	kvfree(scratch);
out:
	uwprof_tables_uncharge(scratch_bytes);
	return ret;
}

/*
 * Validate @t's blob, and find its shapes; a bad one gets EINVAL and why
 * in @up.  What functions share is checked once (the memo), so
 * validation is linear in the blob's size.
 */
static int uwprof_table_validate(struct uwprof_table *t,
				 struct uwprof_table_upload *up)
{
	struct uw2_check check = { .pause = uwprof_validate_pause };
	struct uw2_verror verr = { UW2_OK, 0 };
	int ret = 0;

	verr.code = uw2_table_parse_header(&t->t, t->blob, t->size, &verr);
	if (verr.code == UW2_OK) {
		check.memo = kvzalloc(uw2_memo_bytes(&t->t), GFP_KERNEL_ACCOUNT);
		if (!check.memo)
			return -ENOMEM;
		verr.code = uw2_table_check(&t->t, t->blob, t->size, &check,
					    &verr);
		ret = verr.code ? 0 : uwprof_table_shapes(t, &check);
		kvfree(check.memo);
	}
	if (verr.code == UW2_ERR_INTERRUPTED)
		return -EINTR;
	if (verr.code == UW2_OK)
		return ret;
	up->verr = verr.code;
	up->verr_offset = verr.offset;
	return -EINVAL;
}

/*
 * Sessions whose last reference is gone and whose tables are not retired
 * yet: uwprof_registry_free() comes a grace period later (session.c).  A
 * recording started just after another closed uploads the same tables
 * meanwhile, and would find none of them kept.
 */
static atomic_t uwprof_retiring = ATOMIC_INIT(0);

/*
 * The last reference to @s is gone; it is freed a grace period later.
 * No lock: nothing adds a table to it any more.
 */
void uwprof_registry_retiring(struct uwprof_session *s)
{
	s->retiring = !xa_empty(&s->tables);
	if (s->retiring)
		atomic_inc(&uwprof_retiring);
}

/*
 * Before a session's first upload looks for a kept blob, the sessions
 * closed before it keep theirs: at most a grace period and their frees,
 * and only when one is on its way.  Once a session, so that others
 * closing cannot hold its uploads back again; two first uploads at once
 * may both wait.
 */
static void uwprof_wait_retiring(struct uwprof_session *s)
{
	if (READ_ONCE(s->retired_waited))
		return;
	WRITE_ONCE(s->retired_waited, true);
	if (atomic_read(&uwprof_retiring) &&
	    READ_ONCE(uwprof_table_keep_bytes))
		uwprof_frees_flush();
}

/*
 * A kept blob of the same bytes (tablemem.c), validated for a file of the
 * same owner since closed: its header alone is read again.  Its charge
 * comes with it.
 */
static int uwprof_table_take_kept(struct uwprof_session *s,
				  struct uwprof_table *t,
				  struct uwprof_table_upload *up)
{
	struct uw2_verror verr;

	if (!uwprof_tables_kept_take(s->cred, u64_to_user_ptr(up->data),
				     up->len, t))
		return -ENOENT;
	up->result |= UWPROF_UPLOAD_KEPT;
	/* it passed before: never fails */
	if (uw2_table_parse_header(&t->t, t->blob, t->size, &verr)) {
		uwprof_tables_uncharge(t->size);
		return -EINVAL;
	}
	if (t->shapes)
		uw2_shapes_use(&t->t, t->shapes, t->shapes_bytes);
	return 0;
}

/*
 * Copy the blob in and validate it: its bytes charged, and its memo's
 * while it is checked.
 */
static int uwprof_table_copy_check(struct uwprof_table *t,
				   struct uwprof_table_upload *up)
{
	int ret = 0;

	if (!uwprof_tables_charge(up->len + UW2_MEMO_BYTES(up->len)))
		return -ENOSPC;
	t->blob = kvmalloc(up->len, GFP_KERNEL_ACCOUNT);
	if (!t->blob)
		ret = -ENOMEM;
	else if (copy_from_user(t->blob, u64_to_user_ptr(up->data), up->len))
		ret = -EFAULT;
	else
		ret = uwprof_table_validate(t, up);
	uwprof_tables_uncharge(UW2_MEMO_BYTES(up->len));
	if (ret)
		uwprof_tables_uncharge(up->len);
	return ret;
}

/* Take a kept copy of the blob, or copy it in and validate it. */
static int uwprof_table_load(struct uwprof_session *s,
			     struct uwprof_table_upload *up,
			     struct uwprof_table **out)
{
	struct uwprof_table *t;
	int ret;

	t = kzalloc(sizeof(*t), GFP_KERNEL_ACCOUNT);
	if (!t)
		return -ENOMEM;
	t->size = up->len;
	uwprof_wait_retiring(s);
	ret = uwprof_table_take_kept(s, t, up);
	if (ret == -ENOENT)
		ret = uwprof_table_copy_check(t, up);
	if (ret) {
		uwprof_table_free(t);
		return ret;
	}
	t->flags = up->flags;
	t->text_addr = up->text_addr;
	t->text_size = up->text_size;
	t->build_id_size = up->build_id_size;
	memcpy(t->build_id, up->build_id, up->build_id_size);
	*out = t;
	return 0;
}

/*
 * A validated table no file holds (its file freed, or an upload that
 * found no room for it): its blob and shapes go to tablemem.c, kept for
 * the owner's next upload of the same bytes or freed.  Not under s->lock.
 */
static void uwprof_table_retire(struct uwprof_session *s,
				struct uwprof_table *t)
{
	uwprof_tables_keep(s->cred, t);
	kfree(t);
}

long uwprof_ioctl_table_upload(struct uwprof_session *s, void __user *arg)
{
	struct uwprof_table_upload up;
	struct uwprof_table *t, *same;
	int ret;

	ret = uwprof_copy_arg(&up, sizeof(up), arg);
	if (ret)
		return ret;
	ret = uwprof_upload_check(&up);
	if (ret)
		return ret;
	if (up.len > uwprof_table_bytes_max)
		return -EFBIG;
	up.table_id = 0;
	up.verr = 0;
	up.verr_offset = 0;
	up.result = 0;
	ret = uwprof_table_load(s, &up, &t);
	if (ret == -EINVAL)
		goto reply;
	if (ret)
		return ret;

	mutex_lock(&s->lock);
	same = uwprof_table_find_same(s, t);
	if (same) {
		up.table_id = same->id;
		up.result |= UWPROF_UPLOAD_SAME;
	} else if (s->table_bytes + t->size > uwprof_table_bytes_max) {
		ret = -ENOSPC;
	} else {
		ret = xa_alloc(&s->tables, &t->id, t, xa_limit_31b,
			       GFP_KERNEL_ACCOUNT);
		if (!ret) {
			s->table_bytes += t->size;
			up.table_id = t->id;
			if (t->flags & UWPROF_TABLE_BY_BUILD_ID) {
				/* code examined before may match it now */
				WRITE_ONCE(s->n_bid_tables, s->n_bid_tables + 1);
				WRITE_ONCE(s->table_gen, s->table_gen + 1);
			}
			t = NULL;
		}
	}
	mutex_unlock(&s->lock);
	if (t && same) {
		/* the file's own copy is kept when the file is freed */
		uwprof_tables_uncharge(t->size);
		uwprof_table_free(t);
	} else if (t) {
		uwprof_table_retire(s, t);
	}
	if (ret)
		return ret;
reply:
	if (copy_to_user(arg, &up, min_t(u32, up.size, sizeof(up))))
		return -EFAULT;
	return ret;
}

/*
 * The credential rule of a PTRACE_MODE_READ_REALCREDS check: the real ids
 * of @me match all of the target's ids and the target is dumpable, or the
 * opener has CAP_SYS_PTRACE over it.  Modules cannot call
 * ptrace_may_access() and the kernel exports no LSM hook for it, so LSMs
 * (Yama's ptrace_scope) are not consulted (docs/ABI.md, "Who may see
 * what").
 */
static bool uwprof_same_ids(const struct cred *me, const struct cred *tcred)
{
	return uid_eq(me->uid, tcred->euid) &&
	       uid_eq(me->uid, tcred->suid) &&
	       uid_eq(me->uid, tcred->uid) &&
	       gid_eq(me->gid, tcred->egid) &&
	       gid_eq(me->gid, tcred->sgid) &&
	       gid_eq(me->gid, tcred->gid);
}

/*
 * May the opener of @s read @task, whose mm is @mm?  Judged with the
 * credentials the file was opened with, not the caller's: a descriptor
 * passed to another process grants what its opener had, no more.
 */
static bool uwprof_may_read(struct uwprof_session *s, struct task_struct *task,
			    struct mm_struct *mm)
{
	const struct cred *tcred = get_task_cred(task);
	bool ok;

	ok = uwprof_same_ids(s->file->f_cred, tcred) ||
	     file_ns_capable(s->file, tcred->user_ns, CAP_SYS_PTRACE);
	put_cred(tcred);
	if (ok && get_dumpable(mm) != SUID_DUMP_USER)
		ok = file_ns_capable(s->file, mm->user_ns, CAP_SYS_PTRACE);
	return ok;
}

/*
 * The same rule for a process the module follows by itself, judged in the
 * target's context with the opener's credentials (saved at open).
 */
static bool uwprof_may_follow(struct uwprof_session *s, struct mm_struct *mm)
{
	bool ok = uwprof_same_ids(s->cred, current_cred()) || s->cap_ptrace;

	if (ok && get_dumpable(mm) != SUID_DUMP_USER)
		ok = s->cap_ptrace;
	return ok;
}

/*
 * Look up @pid in the opener's pid namespace; returns its mm with a user
 * reference (mmput() it) and the process's start time.  The check is
 * made on that mm, and the entry made of it applies to that mm alone: an
 * exec (of a setuid program, say) racing with the check gives a new mm,
 * which the entry never matches, so no exec_update_lock is needed.
 * Called without s->lock.
 */
static int uwprof_find_process(struct uwprof_session *s, u32 pid, u32 *tgid,
			       struct mm_struct **mmp, u64 *start_time)
{
	struct task_struct *task;
	struct mm_struct *mm;
	int ret = 0;

	if (!pid || pid > PID_MAX_LIMIT)
		return -ESRCH;
	rcu_read_lock();
	task = pid_task(find_pid_ns(pid, s->pid_ns), PIDTYPE_PID);
	if (task)
		get_task_struct(task);
	rcu_read_unlock();
	if (!task)
		return -ESRCH;
	mm = get_task_mm(task);
	if (!mm) {
		ret = -ESRCH;	/* a kernel thread, or exiting */
	} else if (!uwprof_may_read(s, task, mm)) {
		ret = -EACCES;
	} else if (!uwprof_arch_task_is_32bit(task)) {
		ret = -ENOEXEC;	/* AArch64 code: v2 tables cannot unwind it */
	} else {
		*mmp = mm;
		*tgid = task_tgid_nr(task);
		*start_time = task->group_leader->start_time;
		mm = NULL;
	}
	if (mm)
		mmput(mm);
	put_task_struct(task);
	return ret;
}

/* After uwprof_mmwatch_unlink() and a grace period. */
static void uwprof_proc_free(struct uwprof_proc *p)
{
	uwprof_mmwatch_free(p->watch);
	kfree(rcu_dereference_protected(p->mods, true));
	mmdrop(p->mm);
	kfree(p);
}

static void uwprof_proc_free_work(struct work_struct *work)
{
	uwprof_proc_free(container_of(to_rcu_work(work), struct uwprof_proc,
				      free_work));
}

static bool uwprof_proc_dead(struct uwprof_proc *p)
{
	return atomic_read(&p->mm->mm_users) == 0;
}

/* The process of @p still runs, in a new image: it exec'd. */
static bool uwprof_proc_execd(struct uwprof_proc *p)
{
	struct task_struct *leader;
	bool ret;

	rcu_read_lock();
	leader = pid_task(find_pid_ns(p->tgid, &init_pid_ns), PIDTYPE_PID);
	ret = leader && !(leader->flags & PF_EXITING) &&
	      leader->group_leader->start_time == p->start_time;
	rcu_read_unlock();
	return ret;
}

/* Gone for good: exited, or exec'd while the session does not follow. */
static bool uwprof_proc_gone(struct uwprof_session *s, struct uwprof_proc *p)
{
	if (!uwprof_proc_dead(p))
		return false;
	return !(s->inherit || s->follow_all) || !uwprof_proc_execd(p);
}

/*
 * After an entry was added to or removed from s->procs: the sample path's
 * per-CPU memory of the last entry found is out of date.
 */
static void uwprof_procs_changed(struct uwprof_session *s)
{
	WRITE_ONCE(s->procs_gen, s->procs_gen + 1);
}

/*
 * An entry no reader may find any more: queued at the next reap to be
 * freed after a grace period.
 */
static void uwprof_proc_bury(struct uwprof_session *s, struct uwprof_proc *p)
{
	uwprof_mmwatch_unlink(p->watch);
	p->next_dead = s->graveyard;
	s->graveyard = p;
}

static u64 uwprof_proc_bytes(struct uwprof_proc *p)
{
	struct uwprof_mods *m = rcu_dereference_protected(p->mods, true);

	return sizeof(*p) + uwprof_mmwatch_bytes(p->watch) +
	       (m ? struct_size(m, mod, m->n) : 0);
}

/* The gauges of UWPROF_IOC_STATS.  Called with s->lock held. */
void uwprof_registry_held(struct uwprof_session *s, u64 *procs, u64 *bytes)
{
	struct uwprof_proc *p;
	unsigned long tgid;

	*procs = 0;
	*bytes = 0;
	xa_for_each(&s->procs, tgid, p) {
		(*procs)++;
		*bytes += uwprof_proc_bytes(p);
	}
	for (p = s->graveyard; p; p = p->next_dead) {
		(*procs)++;
		*bytes += uwprof_proc_bytes(p);
	}
}

/*
 * Free the buried entries after a grace period, from the workqueue: an
 * ioctl that finds a process gone does not wait for one (several ms on an
 * idle CPU).
 */
static void uwprof_graveyard_free(struct uwprof_session *s)
{
	struct uwprof_proc *p, *next;

	for (p = s->graveyard; p; p = next) {
		next = p->next_dead;
		uwprof_free_after_gp(&p->free_work, uwprof_proc_free_work);
	}
	s->graveyard = NULL;
}

/* Entries whose process exited or exec'd.  Called with s->lock held. */
void uwprof_reap_dead(struct uwprof_session *s)
{
	struct uwprof_proc *p;
	unsigned long tgid;

	xa_for_each(&s->procs, tgid, p) {
		if (!uwprof_proc_gone(s, p))
			continue;
		xa_erase(&s->procs, tgid);
		uwprof_procs_changed(s);
		uwprof_proc_bury(s, p);
	}
	uwprof_graveyard_free(s);
}

/*
 * The entry of @tgid for @mm, made if need be, replacing one left from
 * before an exec.  *@fresh tells whether the process is new to the
 * session.  Called with s->lock held.
 */
struct uwprof_proc *uwprof_proc_for_mm(struct uwprof_session *s, u32 tgid,
				       u32 user_pid, struct mm_struct *mm,
				       u64 start_time, bool ignored,
				       bool *fresh)
{
	struct uwprof_proc *p = xa_load(&s->procs, tgid), *old;

	*fresh = !p;
	if (p && p->mm == mm && p->ignored == ignored)
		return p;
	p = kzalloc(sizeof(*p), GFP_KERNEL_ACCOUNT);
	if (!p)
		return ERR_PTR(-ENOMEM);
	p->tgid = tgid;
	p->user_pid = user_pid;
	p->start_time = start_time;
	p->ignored = ignored;
	spin_lock_init(&p->lock);
	mmgrab(mm);
	p->mm = mm;
	old = xa_store(&s->procs, tgid, p, GFP_KERNEL_ACCOUNT);
	uwprof_procs_changed(s);
	if (xa_is_err(old)) {
		uwprof_proc_bury(s, p);	/* freed as any other entry */
		return ERR_PTR(xa_err(old));
	}
	if (old && old->start_time == start_time)
		p->events_ns = old->events_ns;	/* exec keeps the events */
	if (old)
		uwprof_proc_bury(s, old);
	return p;
}

/* Remove the entry of a process an attach added, then failed for. */
static void uwprof_proc_drop(struct uwprof_session *s, struct uwprof_proc *p)
{
	xa_erase(&s->procs, p->tgid);
	uwprof_procs_changed(s);
	uwprof_proc_bury(s, p);	/* its watch may be running */
}

/*
 * A tag for a module array's contents, unique over the module's lifetime
 * (it would take 2^32 updates to wrap: the caches' entries of an array
 * would have to outlive them all).
 */
static u32 uwprof_mods_tag(void)
{
	static atomic_t last = ATOMIC_INIT(0);
	u32 tag;

	do {
		tag = atomic_inc_return(&last);
	} while (!tag);
	return tag;
}

/*
 * The mm watch's callback: end the entries of @owner (a struct
 * uwprof_proc) that overlap [start, end), which is being unmapped.  Under
 * the unmapping thread's mmap lock and rcu_read_lock(): it neither
 * allocates nor sleeps; the ended entries are dropped from the array at
 * its next replacement (uwprof_mods_update()).
 */
static void uwprof_mods_end_range(void *owner, unsigned long start,
				  unsigned long end)
{
	struct uwprof_proc *p = owner;
	struct uwprof_mods *m;
	bool ended = false;
	u32 i;

	spin_lock(&p->lock);
	m = rcu_dereference_protected(p->mods, lockdep_is_held(&p->lock));
	for (i = 0; m && i < m->n; i++) {
		struct uw2_module *mod = &m->mod[i];

		if (mod->text_start < end && start < mod->text_end) {
			WRITE_ONCE(mod->text_end, mod->text_start);
			ended = true;
		}
	}
	/* the lookup caches' entries for the old contents are misses now */
	if (ended)
		WRITE_ONCE(m->tag, uwprof_mods_tag());
	spin_unlock(&p->lock);
}

static const struct uwprof_mmwatch_ops uwprof_proc_watch_ops = {
	.unmapped = uwprof_mods_end_range,
};

/*
 * A watch of @mm for a process entry, not yet given to one.  Made with no
 * lock held: inserting it may take the mmap lock of @mm for writing.
 * @mm must have a user (the caller's reference, or current's own mm).
 */
struct uwprof_mmwatch *uwprof_proc_watch_new(struct mm_struct *mm)
{
	return uwprof_mmwatch_new(mm, &uwprof_proc_watch_ops);
}

/*
 * Have @p watched before its first entry is published, with *@w (from
 * uwprof_proc_watch_new(), taken and cleared if used) unless it is
 * watched already.  The watch comes with the first entry, not with the
 * process: a child the recorder follows from before its exec needs none
 * until its new image has tables.  -EAGAIN: @p is not watched and *@w is
 * NULL; make one without s->lock and call again.  Called with s->lock.
 */
int uwprof_proc_watch(struct uwprof_proc *p, struct uwprof_mmwatch **w)
{
	if (p->watch)
		return 0;
	if (!*w)
		return -EAGAIN;
	uwprof_mmwatch_own(*w, p);
	p->watch = *w;
	*w = NULL;
	return 0;
}

static int uwprof_mod_cmp(const void *a, const void *b)
{
	const struct uw2_module *x = a, *y = b;

	return x->text_start < y->text_start ? -1 :
	       x->text_start > y->text_start;
}

bool uwprof_mod_live(const struct uw2_module *m)
{
	return READ_ONCE(m->text_end) > m->text_start;
}

/*
 * An attachment: a table, or code of a frame kind (JIT code), as opposed
 * to code examined and found without either.
 */
bool uwprof_mod_attached(const struct uw2_module *m)
{
	return m->table || m->frames != UW2_FRAMES_TABLE;
}

static bool uwprof_mod_overlap(const struct uw2_module *a,
			       const struct uw2_module *b)
{
	return a->text_start < b->text_end && b->text_start < a->text_end;
}

/* Does @m overlap one of @add[0..@nadd)? */
bool uwprof_mod_overlaps(const struct uw2_module *m,
			 const struct uw2_module *add, u32 nadd)
{
	u32 i;

	for (i = 0; i < nadd; i++)
		if (uwprof_mod_overlap(m, &add[i]))
			return true;
	return false;
}

/*
 * Does an entry added over @m replace it?  Code examined without a table
 * is replaced by anything; JIT code by JIT code (anonymous mappings grow
 * and merge, and the newer look at one replaces the older); a table by
 * nothing (JIT code inside it cuts it instead: uwprof_mods_cut()).
 */
static bool uwprof_mod_replaced(const struct uw2_module *m,
				const struct uw2_module *add, u32 nadd)
{
	u32 i;

	if (m->table && !m->frames)
		return false;
	for (i = 0; i < nadd; i++)
		if (uwprof_mod_overlap(m, &add[i]) &&
		    (!uwprof_mod_attached(m) || add[i].frames))
			return true;
	return false;
}

/*
 * Does @t's table hold rows made for the JIT code @j inside its range
 * (UWPROF_TABLE_JIT_ROWS: a runtime's builtins, tabled where proven)?
 */
static bool uwprof_mod_jit_rows(const struct uw2_module *t,
				const struct uw2_module *j)
{
	const struct uwprof_table *tt;

	if (!t->table || t->text_start > j->text_start ||
	    j->text_end > t->text_end)
		return false;
	tt = container_of(t->table, struct uwprof_table, t);
	return tt->flags & UWPROF_TABLE_JIT_ROWS;
}

/*
 * Where the attachment of @m starts: a table's range cut around JIT code
 * starts where its first part does; JIT code (with a table's rows or not)
 * at its own start.
 */
static u32 uwprof_mod_attach_start(const struct uw2_module *m)
{
	return m->frames ? m->text_start : m->text_start - m->skip;
}

/*
 * Cut the ranges of tables (and of code examined without one) in
 * @mod[0..*@n) around the JIT code inside them (a runtime's builtins
 * embedded in its binary), which frame kinds walk instead: an entry keeps
 * the part before, and one more entry the part after, its skip placing
 * the table there.  A table whose rows were made for that code
 * (uwprof_mod_jit_rows()) gives them to the JIT entry, placed by its skip:
 * the unwinder takes them first there (uw2_step()).  Room: one more entry
 * per JIT entry, as one range of JIT code lies inside at most one other
 * entry's.
 */
static void uwprof_mods_cut(struct uw2_module *mod, u32 *n)
{
	u32 i, k, end = *n;

	for (k = 0; k < end; k++) {
		const struct uw2_module j = mod[k];

		if (!j.frames || !uwprof_mod_live(&j))
			continue;
		for (i = 0; i < *n; i++) {
			struct uw2_module *t = &mod[i];

			if (t->frames || !uwprof_mod_overlap(t, &j))
				continue;
			if (uwprof_mod_jit_rows(t, &j)) {
				mod[k].table = t->table;
				mod[k].skip = t->skip + j.text_start -
					      t->text_start;
			}
			if (j.text_end < t->text_end) {
				mod[*n] = *t;
				mod[*n].skip += j.text_end - t->text_start;
				mod[*n].text_start = j.text_end;
				++*n;
			}
			/* ended (empty) when the JIT code starts it */
			t->text_end = t->text_start < j.text_start ?
				      j.text_start : t->text_start;
		}
	}
}

/* The number of JIT code entries in @m[0..@n). */
static u32 uwprof_mods_jit(const struct uw2_module *m, u32 n)
{
	u32 i, k = 0;

	for (i = 0; i < n; i++)
		k += m[i].frames != UW2_FRAMES_TABLE;
	return k;
}

/*
 * The walk's UW2_F_* for the modules of @m (struct uwprof_mods): Chrome's
 * rules when every table asks for them, UW2_F_JIT when code of a JIT kind
 * is there.
 */
static u32 uwprof_mods_uw2_flags(const struct uwprof_mods *m)
{
	const struct uwprof_table *t;
	u32 i, tables = 0, compat = 0, flags = 0;

	for (i = 0; i < m->n; i++) {
		if (m->mod[i].frames != UW2_FRAMES_TABLE)
			flags = UW2_F_JIT;
		if (!m->mod[i].table)
			continue;
		t = container_of(m->mod[i].table, struct uwprof_table, t);
		tables++;
		compat += !!(t->flags & UWPROF_TABLE_CHROME_COMPAT);
	}
	return flags | (tables && compat == tables ? UW2_F_CHROME_COMPAT : 0);
}

/*
 * Publish @p's modules with @add[0..@nadd) added and the attachment
 * starting at @drop_start removed (if @drop).  Ended entries go, and so do
 * no-table entries from an older table_gen, and entries without a table
 * under an added range.  The old array is freed after readers are done
 * with it; p->lock keeps the mm watch from ending an entry of the old
 * array after it was copied.
 */
int uwprof_mods_update(struct uwprof_session *s, struct uwprof_proc *p,
		       const struct uw2_module *add, u32 nadd, bool drop,
		       u32 drop_start)
{
	struct uwprof_mods *old, *new;
	u32 n_old, n = 0, i, room;

	old = rcu_dereference_protected(p->mods, lockdep_is_held(&s->lock));
	n_old = old ? old->n : 0;
	room = n_old + nadd + uwprof_mods_jit(add, nadd) +
	       (old ? uwprof_mods_jit(old->mod, n_old) : 0);
	new = kmalloc(struct_size(new, mod, room), GFP_KERNEL_ACCOUNT);
	if (!new)
		return -ENOMEM;
	spin_lock(&p->lock);
	for (i = 0; i < n_old; i++) {
		const struct uw2_module *m = &old->mod[i];

		/* JIT code keeps its range when the table lending it rows goes */
		if (drop && m->frames && m->table && m->skip &&
		    uwprof_mod_live(m) && m->text_start - m->skip == drop_start) {
			new->mod[n] = *m;
			new->mod[n].table = NULL;
			new->mod[n++].skip = 0;
			continue;
		}
		/* every part of a cut table's range goes with it */
		if (!uwprof_mod_live(m) ||
		    (drop && uwprof_mod_attached(m) &&
		     uwprof_mod_attach_start(m) == drop_start))
			continue;
		if (!uwprof_mod_attached(m) && old->gen != s->table_gen)
			continue;
		if (uwprof_mod_replaced(m, add, nadd))
			continue;
		new->mod[n++] = *m;
	}
	for (i = 0; i < nadd; i++)
		new->mod[n++] = add[i];
	uwprof_mods_cut(new->mod, &n);
	/* no empty entries: one may sort after the JIT code at its start */
	for (i = 0, room = n, n = 0; i < room; i++)
		if (uwprof_mod_live(&new->mod[i]))
			new->mod[n++] = new->mod[i];
	new->n = n;
	new->gen = s->table_gen;
	new->tag = uwprof_mods_tag();
	sort(new->mod, n, sizeof(new->mod[0]), uwprof_mod_cmp, NULL);
	new->uw2_flags = uwprof_mods_uw2_flags(new);
	rcu_assign_pointer(p->mods, new);
	spin_unlock(&p->lock);
	if (old)
		kfree_rcu(old, rcu);
	return 0;
}

/* Attachments (entries with a table that were not ended). */
static u32 uwprof_attachments(struct uwprof_proc *p)
{
	struct uwprof_mods *m = rcu_dereference_protected(p->mods, true);
	u32 i, n = 0;

	for (i = 0; m && i < m->n; i++)
		n += uwprof_mod_attached(&m->mod[i]) &&
		     uwprof_mod_live(&m->mod[i]);
	return n;
}

/*
 * Does [@start, @end) overlap an attachment of its own sort: a table's
 * range another table's, JIT code other JIT code (@jit)?  JIT code inside
 * a table's range is no conflict: it cuts the table's (uwprof_mods_cut()).
 */
static bool uwprof_overlaps(struct uwprof_proc *p, u32 start, u32 end,
			    bool jit)
{
	struct uwprof_mods *m = rcu_dereference_protected(p->mods, true);
	u32 i;

	for (i = 0; m && i < m->n; i++)
		if (uwprof_mod_attached(&m->mod[i]) &&
		    uwprof_mod_live(&m->mod[i]) &&
		    !m->mod[i].frames == !jit &&
		    start < m->mod[i].text_end && m->mod[i].text_start < end)
			return true;
	return false;
}

/*
 * Is a live attachment of @p's at exactly @start?  A table's range cut
 * around JIT code starts where its first part's table starts.
 */
static bool uwprof_attached_at(struct uwprof_proc *p, u32 start)
{
	struct uwprof_mods *m = rcu_dereference_protected(p->mods, true);
	u32 i;

	for (i = 0; m && i < m->n; i++)
		if (uwprof_mod_attached(&m->mod[i]) &&
		    uwprof_mod_live(&m->mod[i]) &&
		    uwprof_mod_attach_start(&m->mod[i]) == start)
			return true;
	return false;
}

/* Would attaching a table to @tgid's @mm need a watch made first? */
static bool uwprof_needs_watch(struct uwprof_session *s, u32 tgid,
			       struct mm_struct *mm)
{
	struct uwprof_proc *p = xa_load(&s->procs, tgid);

	/* the entry uwprof_proc_for_mm() would reuse, if watched */
	return !(p && p->mm == mm && !p->ignored && p->watch);
}

/*
 * Attach as @a asks to the process @tgid, whose @mm the caller holds a
 * user reference to.  -EAGAIN (before any change): a range (a table's or
 * a frame kind's) needs a watch of @mm and *@w is NULL.  Called with s->lock held.
 */
static long uwprof_attach_locked(struct uwprof_session *s,
				 struct uwprof_attach *a, u32 tgid,
				 struct mm_struct *mm, u64 start_time,
				 struct uwprof_mmwatch **w)
{
	bool range = !(a->flags & UWPROF_ATTACH_FOLLOW);
	struct uwprof_table *t;
	struct uw2_module mod;
	struct uwprof_proc *p;
	bool fresh;
	int ret = 0;

	t = range && !a->frames ? xa_load(&s->tables, a->table_id) : NULL;
	if (!t && range && !a->frames)
		return -ENOENT;
	if (range && !*w && uwprof_needs_watch(s, tgid, mm))
		return -EAGAIN;
	p = uwprof_proc_for_mm(s, tgid, a->pid, mm, start_time, false, &fresh);
	if (IS_ERR(p))
		return PTR_ERR(p);
	if (range) {
		if (uwprof_attachments(p) >= UWPROF_MAX_MODULES)
			ret = -ENOSPC;
		else if (uwprof_overlaps(p, a->text_start, a->text_end,
					 a->frames))
			ret = -EEXIST;
		else
			ret = uwprof_proc_watch(p, w);
		if (!ret) {
			mod.text_start = a->text_start;
			mod.text_end = a->text_end;
			mod.table = t ? &t->t : NULL;
			mod.frames = a->frames;
			mod.skip = 0;
			ret = uwprof_mods_update(s, p, &mod, 1, false, 0);
		}
	}
	/*
	 * The sampler's events last (its hook, while it samples): nothing
	 * to undo after they fail.
	 */
	if (!ret && fresh && s->proc_attached)
		ret = s->proc_attached(s, p);
	/* A failed attach leaves no trace: no entry, no events. */
	if (ret && fresh)
		uwprof_proc_drop(s, p);
	return ret;
}

long uwprof_ioctl_attach(struct uwprof_session *s, void __user *arg)
{
	struct uwprof_mmwatch *w = NULL;
	struct uwprof_attach a;
	struct mm_struct *mm;
	u64 start_time;
	u32 tgid;
	long ret;

	ret = uwprof_copy_arg(&a, sizeof(a), arg);
	if (ret)
		return ret;
	if (a.flags & ~UWPROF_ATTACH_FOLLOW)
		return -EINVAL;
	if (a.flags ? a.table_id || a.text_start || a.text_end || a.frames :
		      a.text_start >= a.text_end)
		return -EINVAL;
	/* a frame kind is code without a table */
	if (a.frames >= UWPROF_FRAMES_NR || (a.frames && a.table_id))
		return -EINVAL;
	/* tables are only added while the file is open: no lock needed */
	if (!a.flags && !a.frames && !xa_load(&s->tables, a.table_id))
		return -ENOENT;
	/* the process and its mm, before s->lock: see session.c, "Locks" */
	ret = uwprof_find_process(s, a.pid, &tgid, &mm, &start_time);
	if (ret)
		return ret;
	for (;;) {
		mutex_lock(&s->lock);
		uwprof_reap_dead(s);
		ret = uwprof_attach_locked(s, &a, tgid, mm, start_time, &w);
		mutex_unlock(&s->lock);
		if (ret != -EAGAIN || w)
			break;
		/* not watched yet: the watch is made holding no lock */
		w = uwprof_proc_watch_new(mm);
		if (IS_ERR(w)) {
			ret = PTR_ERR(w);
			w = NULL;
			break;
		}
	}
	uwprof_mmwatch_free(w);	/* made, then not needed (or NULL) */
	mmput(mm);
	return ret;
}

/* The live entry of the process @pid names, or NULL. */
static struct uwprof_proc *uwprof_proc_of_pid(struct uwprof_session *s,
					      u32 pid)
{
	struct uwprof_proc *p;
	unsigned long tgid;

	xa_for_each(&s->procs, tgid, p)
		if (p->user_pid == pid)
			return p;
	return NULL;
}

long uwprof_ioctl_detach(struct uwprof_session *s, void __user *arg)
{
	struct uwprof_detach d;
	struct uwprof_proc *p;
	long ret;

	ret = uwprof_copy_arg(&d, sizeof(d), arg);
	if (ret)
		return ret;
	if (d.flags)
		return -EINVAL;
	mutex_lock(&s->lock);
	uwprof_reap_dead(s);
	p = uwprof_proc_of_pid(s, d.pid);
	if (!p)
		ret = -ESRCH;
	else if (!uwprof_attached_at(p, d.text_start))
		ret = -ENOENT;	/* an address inside a range is not its start */
	else
		ret = uwprof_mods_update(s, p, NULL, 0, true, d.text_start);
	mutex_unlock(&s->lock);
	return ret;
}

/*
 * @p's attachments at @out[@done..@room), counted from @done: returns the
 * count, which goes on past @room.  Called with s->lock held.
 */
static u32 uwprof_list_proc(struct uwprof_session *s, struct uwprof_proc *p,
			    struct uwprof_attachment *out, u32 room, u32 done)
{
	struct uwprof_mods *m = rcu_dereference_protected(p->mods, true);
	struct uwprof_attachment *e;
	struct uwprof_table *t;
	unsigned long id;
	u32 i;

	for (i = 0; m && i < m->n; i++) {
		if (!uwprof_mod_attached(&m->mod[i]) ||
		    !uwprof_mod_live(&m->mod[i]))
			continue;
		if (done++ >= room)
			continue;
		e = &out[done - 1];
		e->pid = p->user_pid;
		e->text_start = m->mod[i].text_start;
		e->text_end = m->mod[i].text_end;
		e->table_id = 0;
		xa_for_each(&s->tables, id, t)
			if (&t->t == m->mod[i].table && !m->mod[i].frames)
				e->table_id = t->id;
	}
	return done;
}

/* The attachments LIST reports, at most @room of them in @out. */
static u32 uwprof_list_all(struct uwprof_session *s, u32 pid,
			   struct uwprof_attachment *out, u32 room)
{
	struct uwprof_proc *p;
	unsigned long tgid;
	u32 n = 0;

	xa_for_each(&s->procs, tgid, p)
		if ((!pid || p->user_pid == pid) && !uwprof_proc_dead(p))
			n = uwprof_list_proc(s, p, out, room, n);
	return n;
}

/*
 * The entries are gathered under s->lock and copied out after it: no
 * user memory is touched under s->lock (session.c, "Locks").
 */
long uwprof_ioctl_list(struct uwprof_session *s, void __user *arg)
{
	struct uwprof_attachment *buf = NULL;
	struct uwprof_list l;
	u32 n, room;
	int err;

	err = uwprof_copy_arg(&l, sizeof(l), arg);
	if (err)
		return err;
	if (l.flags)
		return -EINVAL;
	mutex_lock(&s->lock);
	uwprof_reap_dead(s);
	n = uwprof_list_all(s, l.pid, NULL, 0);
	room = min(l.count, n);
	if (room) {
		buf = kvmalloc_array(room, sizeof(*buf), GFP_KERNEL_ACCOUNT);
		if (buf)
			uwprof_list_all(s, l.pid, buf, room);
	}
	mutex_unlock(&s->lock);
	if (room && !buf)
		return -ENOMEM;
	if (room && copy_to_user(u64_to_user_ptr(l.entries), buf,
				 array_size(room, sizeof(*buf))))
		err = -EFAULT;
	kvfree(buf);
	if (err)
		return err;
	l.count = n;
	if (copy_to_user(arg, &l, min_t(u32, l.size, sizeof(l))))
		return -EFAULT;
	return 0;
}

/*
 * Sample path: the entry for the interrupted task, under rcu_read_lock.
 * After an exec the mm differs and the entry no longer applies, except
 * that a process that exec'd a 64-bit program keeps it: the sampler counts
 * those samples (dropped_not32) instead of losing them unseen.
 */
struct uwprof_proc *uwprof_proc_of_current(struct uwprof_session *s,
					   struct uwprof_cpu *c)
{
	u32 gen = READ_ONCE(s->procs_gen);
	struct uwprof_proc *p = c->last_proc;

	/*
	 * The entry this CPU found last, while no entry was added or
	 * removed since: most samples on a CPU are of one process.  An
	 * entry removed after the gen was read is not freed before this
	 * RCU read section ends, as with xa_load().
	 */
	if (!p || c->last_gen != gen || p->tgid != current->tgid) {
		p = xa_load(&s->procs, current->tgid);
		c->last_proc = p;
		c->last_gen = gen;
	}
	if (p && (p->mm == current->mm || !uwprof_arch_task_is_32bit(current)))
		return p;
	return NULL;
}

/* May the opener read current's process?  Called before any lock. */
bool uwprof_may_follow_current(struct uwprof_session *s)
{
	return current->mm && uwprof_may_follow(s, current->mm);
}

/*
 * Called a grace period after sampling stopped (uwprof_session_put()), or
 * before it ever started: no reader is left.
 */
void uwprof_registry_free(struct uwprof_session *s)
{
	struct uwprof_proc *p;
	struct uwprof_table *t;
	unsigned long i;

	xa_for_each(&s->procs, i, p) {
		xa_erase(&s->procs, i);
		uwprof_proc_bury(s, p);
	}
	xa_destroy(&s->procs);
	/* an mm watch may still be looking at an entry: another period */
	uwprof_graveyard_free(s);
	xa_for_each(&s->tables, i, t)
		uwprof_table_retire(s, t);
	xa_destroy(&s->tables);
	if (s->retiring)
		atomic_dec(&uwprof_retiring);
}
