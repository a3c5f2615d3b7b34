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
 */
#include <linux/cred.h>
#include <linux/jhash.h>
#include <linux/mm.h>
#include <linux/sched/coredump.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/uaccess.h>

#include "uwprof_arch.h"
#include "uwprof_mod.h"

void uwprof_registry_init(struct uwprof_session *s)
{
	xa_init_flags(&s->tables, XA_FLAGS_ALLOC1);
	xa_init(&s->procs);
}

static void uwprof_table_free(struct uwprof_table *t)
{
	kvfree(t->blob);
	kfree(t);
}

static struct uwprof_table *
uwprof_table_find_same(struct uwprof_session *s, const void *blob, u32 len,
		       u32 hash)
{
	struct uwprof_table *t;
	unsigned long id;

	xa_for_each(&s->tables, id, t)
		if (t->size == len && t->hash == hash &&
		    !memcmp(t->blob, blob, len))
			return t;
	return NULL;
}

/* Copy the blob in and validate it; on a bad blob report why in @up. */
static int uwprof_table_load(struct uwprof_table_upload *up,
			     struct uwprof_table **out)
{
	struct uw2_verror verr = { UW2_OK, 0 };
	struct uwprof_table *t;
	int ret;

	t = kzalloc(sizeof(*t), GFP_KERNEL_ACCOUNT);
	if (!t)
		return -ENOMEM;
	t->size = up->len;
	t->blob = kvmalloc(up->len, GFP_KERNEL_ACCOUNT);
	if (!t->blob) {
		ret = -ENOMEM;
		goto err;
	}
	if (copy_from_user(t->blob, u64_to_user_ptr(up->data), up->len)) {
		ret = -EFAULT;
		goto err;
	}
	if (uw2_table_init(&t->t, t->blob, t->size, &verr) != UW2_OK) {
		up->verr = verr.code;
		up->verr_offset = verr.offset;
		ret = -EINVAL;
		goto err;
	}
	t->hash = jhash(t->blob, t->size, 0);
	*out = t;
	return 0;
err:
	uwprof_table_free(t);
	return ret;
}

long uwprof_ioctl_table_upload(struct uwprof_session *s, void __user *arg)
{
	struct uwprof_table_upload up;
	struct uwprof_table *t, *same;
	int ret;

	ret = uwprof_copy_arg(&up, sizeof(up), arg);
	if (ret)
		return ret;
	if (up.flags || up.build_id_size)
		return -EINVAL;
	if (up.len > uwprof_table_bytes_max)
		return -EFBIG;
	up.table_id = 0;
	up.verr = 0;
	up.verr_offset = 0;
	ret = uwprof_table_load(&up, &t);
	if (ret == -EINVAL)
		goto reply;
	if (ret)
		return ret;

	mutex_lock(&s->lock);
	same = uwprof_table_find_same(s, t->blob, t->size, t->hash);
	if (same) {
		up.table_id = same->id;
		uwprof_table_free(t);
	} else if (s->table_bytes + t->size > uwprof_table_bytes_max) {
		uwprof_table_free(t);
		ret = -ENOSPC;
	} else {
		ret = xa_alloc(&s->tables, &t->id, t, xa_limit_31b,
			       GFP_KERNEL_ACCOUNT);
		if (ret) {
			uwprof_table_free(t);
		} else {
			s->table_bytes += t->size;
			up.table_id = t->id;
		}
	}
	mutex_unlock(&s->lock);
	if (ret)
		return ret;
reply:
	if (copy_to_user(arg, &up, min_t(u32, up.size, sizeof(up))))
		return -EFAULT;
	return ret;
}

/*
 * The credential rule of a PTRACE_MODE_READ_REALCREDS check: the caller's
 * real ids match all of the target's ids and the target is dumpable, or
 * the caller has CAP_SYS_PTRACE over it.  Modules cannot call
 * ptrace_may_access(), so LSM hooks (Yama) are not consulted here.
 */
static bool uwprof_may_read(struct task_struct *task, struct mm_struct *mm)
{
	const struct cred *me = current_cred();
	const struct cred *tcred = get_task_cred(task);
	bool same_ids, ok;

	same_ids = uid_eq(me->uid, tcred->euid) &&
		   uid_eq(me->uid, tcred->suid) &&
		   uid_eq(me->uid, tcred->uid) &&
		   gid_eq(me->gid, tcred->egid) &&
		   gid_eq(me->gid, tcred->sgid) &&
		   gid_eq(me->gid, tcred->gid);
	ok = same_ids || ns_capable(tcred->user_ns, CAP_SYS_PTRACE);
	put_cred(tcred);
	if (ok && get_dumpable(mm) != SUID_DUMP_USER)
		ok = ns_capable(mm->user_ns, CAP_SYS_PTRACE);
	return ok;
}

/* Look up @pid in the caller's namespace; returns the mm, grabbed. */
static int uwprof_find_process(u32 pid, u32 *tgid, struct mm_struct **mmp)
{
	struct task_struct *task;
	struct mm_struct *mm;
	int ret = 0;

	if (!pid || pid > PID_MAX_LIMIT)
		return -ESRCH;
	rcu_read_lock();
	task = pid_task(find_vpid(pid), PIDTYPE_PID);
	if (task)
		get_task_struct(task);
	rcu_read_unlock();
	if (!task)
		return -ESRCH;
	mm = get_task_mm(task);
	if (!mm) {
		ret = -ESRCH;	/* a kernel thread, or exiting */
	} else if (!uwprof_may_read(task, mm)) {
		ret = -EACCES;
	} else if (!uwprof_arch_task_is_32bit(task)) {
		ret = -ENOEXEC;	/* AArch64 code: v2 tables cannot unwind it */
	} else {
		mmgrab(mm);
		*mmp = mm;
		*tgid = task_tgid_nr(task);
	}
	if (mm)
		mmput(mm);
	put_task_struct(task);
	return ret;
}

static void uwprof_proc_free(struct uwprof_proc *p)
{
	kfree(rcu_dereference_protected(p->mods, true));
	mmdrop(p->mm);
	kfree(p);
}

static bool uwprof_proc_dead(struct uwprof_proc *p)
{
	return atomic_read(&p->mm->mm_users) == 0;
}

/* Entries whose process exited or exec'd.  Called with s->lock held. */
void uwprof_reap_dead(struct uwprof_session *s)
{
	struct uwprof_proc *p, *dead[16];
	unsigned long tgid;
	int n, i;

	do {
		n = 0;
		xa_for_each(&s->procs, tgid, p) {
			if (!uwprof_proc_dead(p))
				continue;
			xa_erase(&s->procs, tgid);
			dead[n++] = p;
			if (n == ARRAY_SIZE(dead))
				break;
		}
		if (!n)
			return;
		synchronize_rcu();
		for (i = 0; i < n; i++)
			uwprof_proc_free(dead[i]);
	} while (n == ARRAY_SIZE(dead));
}

/*
 * Get the entry of @tgid for @mm, replacing one left from before an exec.
 * *@fresh tells whether the process is new to the session.
 */
static struct uwprof_proc *uwprof_proc_get(struct uwprof_session *s, u32 tgid,
					   u32 user_pid, struct mm_struct *mm,
					   bool *fresh)
{
	struct uwprof_proc *p = xa_load(&s->procs, tgid), *old;

	*fresh = !p;
	if (p && p->mm == mm) {
		mmdrop(mm);	/* the entry holds one already */
		return p;
	}
	p = kzalloc(sizeof(*p), GFP_KERNEL_ACCOUNT);
	if (!p)
		return ERR_PTR(-ENOMEM);
	p->tgid = tgid;
	p->user_pid = user_pid;
	p->mm = mm;
	old = xa_store(&s->procs, tgid, p, GFP_KERNEL_ACCOUNT);
	if (xa_is_err(old)) {
		kfree(p);
		return ERR_PTR(xa_err(old));
	}
	if (old) {
		synchronize_rcu();
		uwprof_proc_free(old);
	}
	return p;
}

/* Remove the entry of a process an attach added, then failed for. */
static void uwprof_proc_drop(struct uwprof_session *s, struct uwprof_proc *p)
{
	xa_erase(&s->procs, p->tgid);
	synchronize_rcu();
	uwprof_proc_free(p);
}

static int uwprof_mod_cmp(const void *a, const void *b)
{
	const struct uw2_module *x = a, *y = b;

	return x->text_start < y->text_start ? -1 :
	       x->text_start > y->text_start;
}

/*
 * Publish @p's modules with @add added (if non-NULL) and the one starting
 * at @drop_start removed (if @drop).  The old array is freed after readers
 * are done with it.
 */
static int uwprof_mods_replace(struct uwprof_proc *p,
			       const struct uw2_module *add, bool drop,
			       u32 drop_start)
{
	struct uwprof_mods *old = rcu_dereference_protected(p->mods, true);
	u32 n_old = old ? old->n : 0, n = 0, i;
	struct uwprof_mods *new;

	new = kmalloc(struct_size(new, mod, n_old + 1), GFP_KERNEL_ACCOUNT);
	if (!new)
		return -ENOMEM;
	for (i = 0; i < n_old; i++)
		if (!drop || old->mod[i].text_start != drop_start)
			new->mod[n++] = old->mod[i];
	if (add)
		new->mod[n++] = *add;
	new->n = n;
	sort(new->mod, n, sizeof(new->mod[0]), uwprof_mod_cmp, NULL);
	rcu_assign_pointer(p->mods, new);
	kfree_rcu(old, rcu);
	return 0;
}

static bool uwprof_overlaps(struct uwprof_proc *p, u32 start, u32 end)
{
	struct uwprof_mods *m = rcu_dereference_protected(p->mods, true);
	u32 i;

	for (i = 0; m && i < m->n; i++)
		if (start < m->mod[i].text_end && m->mod[i].text_start < end)
			return true;
	return false;
}

static long uwprof_attach_locked(struct uwprof_session *s,
				 struct uwprof_attach *a)
{
	struct uwprof_mods *m;
	struct uwprof_table *t;
	struct uw2_module mod;
	struct mm_struct *mm;
	struct uwprof_proc *p;
	bool fresh;
	u32 tgid;
	int ret;

	t = xa_load(&s->tables, a->table_id);
	if (!t)
		return -ENOENT;
	ret = uwprof_find_process(a->pid, &tgid, &mm);
	if (ret)
		return ret;
	p = uwprof_proc_get(s, tgid, a->pid, mm, &fresh);
	if (IS_ERR(p)) {
		mmdrop(mm);
		return PTR_ERR(p);
	}
	m = rcu_dereference_protected(p->mods, true);
	if (m && m->n >= UWPROF_MAX_MODULES)
		return -E2BIG;
	if (uwprof_overlaps(p, a->text_start, a->text_end))
		return -EEXIST;
	mod.text_start = a->text_start;
	mod.text_end = a->text_end;
	mod.table = &t->t;
	ret = uwprof_mods_replace(p, &mod, false, 0);
	/* Following creates events last: nothing to undo after it fails. */
	if (!ret && fresh)
		ret = uwprof_sampler_follow(s, tgid);
	/* A failed attach leaves no trace: no entry, no events. */
	if (ret && fresh)
		uwprof_proc_drop(s, p);
	return ret;
}

long uwprof_ioctl_attach(struct uwprof_session *s, void __user *arg)
{
	struct uwprof_attach a;
	long ret;

	ret = uwprof_copy_arg(&a, sizeof(a), arg);
	if (ret)
		return ret;
	if (a.flags || a.text_start >= a.text_end)
		return -EINVAL;
	mutex_lock(&s->lock);
	uwprof_reap_dead(s);
	ret = uwprof_attach_locked(s, &a);
	mutex_unlock(&s->lock);
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
	else if (!uwprof_overlaps(p, d.text_start, d.text_start + 1))
		ret = -ENOENT;
	else
		ret = uwprof_mods_replace(p, NULL, true, d.text_start);
	mutex_unlock(&s->lock);
	return ret;
}

static u32 uwprof_list_proc(struct uwprof_proc *p,
			    struct uwprof_attachment __user *out, u32 room,
			    u32 done, struct uwprof_session *s, int *err)
{
	struct uwprof_mods *m = rcu_dereference_protected(p->mods, true);
	struct uwprof_attachment e;
	struct uwprof_table *t;
	unsigned long id;
	u32 i;

	for (i = 0; m && i < m->n; i++, done++) {
		if (done >= room || *err)
			continue;
		e.pid = p->user_pid;
		e.text_start = m->mod[i].text_start;
		e.text_end = m->mod[i].text_end;
		e.table_id = 0;
		xa_for_each(&s->tables, id, t)
			if (&t->t == m->mod[i].table)
				e.table_id = t->id;
		if (copy_to_user(&out[done], &e, sizeof(e)))
			*err = -EFAULT;
	}
	return done;
}

long uwprof_ioctl_list(struct uwprof_session *s, void __user *arg)
{
	struct uwprof_attachment __user *out;
	struct uwprof_list l;
	struct uwprof_proc *p;
	unsigned long tgid;
	u32 n = 0;
	int err = 0;

	err = uwprof_copy_arg(&l, sizeof(l), arg);
	if (err)
		return err;
	if (l.flags)
		return -EINVAL;
	out = u64_to_user_ptr(l.entries);
	mutex_lock(&s->lock);
	uwprof_reap_dead(s);
	xa_for_each(&s->procs, tgid, p)
		if (!l.pid || p->user_pid == l.pid)
			n = uwprof_list_proc(p, out, l.count, n, s, &err);
	mutex_unlock(&s->lock);
	if (err)
		return err;
	l.count = n;
	if (copy_to_user(arg, &l, min_t(u32, l.size, sizeof(l))))
		return -EFAULT;
	return 0;
}

/* Sample path: the entry for the interrupted task, under rcu_read_lock. */
struct uwprof_proc *uwprof_proc_of_current(struct uwprof_session *s)
{
	struct uwprof_proc *p = xa_load(&s->procs, current->tgid);

	return p && p->mm == current->mm ? p : NULL;
}

/* Called once sampling has stopped and nothing else uses the session. */
void uwprof_registry_free(struct uwprof_session *s)
{
	struct uwprof_table *t;
	struct uwprof_proc *p;
	unsigned long i;

	/* The sampler is stopped; one grace period covers every reader. */
	synchronize_rcu();
	xa_for_each(&s->procs, i, p)
		uwprof_proc_free(p);
	xa_destroy(&s->procs);
	xa_for_each(&s->tables, i, t)
		uwprof_table_free(t);
	xa_destroy(&s->tables);
}
