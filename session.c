// SPDX-License-Identifier: GPL-2.0
/*
 * The session: everything one open file of /dev/unwind_samples owns
 * (struct uwprof_session), its lifetime, its reference count and its
 * lock.  chardev.c makes one at open and closes it at release; the parts
 * above this file (sampler.c, follow.c) work on it, and it frees the
 * parts below it (registry.c, ringbuf.c).
 *
 * Lifetime: uwprof_session_create() at open.  The file holds one
 * reference, and each sample queued to a task's own context one
 * (follow.c, uwprof_session_get()), as does the kick that makes its task
 * run it at close.  At release the sampler is stopped first, then
 * uwprof_session_close() marks the session closed (queued samples then
 * drop theirs), and the release kicks their tasks and drops the file's
 * reference.  The last uwprof_session_put() comes after sampling
 * stopped; a grace period later no handler can still see the session's
 * tables and processes, and the module's workqueue frees them: closing
 * the file, or the exit of the process that holds it, does not wait for
 * that.
 *
 * Locks, outermost first (the order of the whole module):
 *
 *   mmap lock of current's mm (read; only follow.c's publish holds it
 *   |                          while it takes s->lock)
 *   +-> s->lock (mutex): the ioctls, the reaper, a deferred sample's
 *       |                bookkeeping; the registry's tables and process
 *       |                entries, the sampler's events and the session's
 *       |                flags change under it
 *       +-> cpus_read_lock(), perf's own locks (sampler.c: events made
 *       |                and released under s->lock)
 *       +-> p->lock (spinlock, registry.c): a process entry's module
 *                        array replaced against the mm watch, whose
 *                        callback also takes it under the unmapping
 *                        thread's mmap lock (mmwatch.c)
 *
 *   s->read_lock (mutex, ringbuf.c): one reader drains at a time; taken
 *                        alone, and user memory is written under it.
 *
 * Nothing under s->lock touches user memory or an mmap lock: ioctl
 * arguments are copied in before it and results out after it, a task's
 * mm is looked up and mmput() outside it, and mm watches are made and
 * removed holding no lock (inserting one may take the mmap lock for
 * writing; removing one waits for its callback).  The sample handler
 * (sampler.c) takes none of these locks: it reads the registry under RCU
 * and writes its own CPU's ring.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/pid_namespace.h>
#include <linux/slab.h>

#include "uwprof_mod.h"

/* Processes that exit or exec while attached are dropped within a second. */
static void uwprof_reap_work(struct work_struct *work)
{
	struct uwprof_session *s = container_of(to_delayed_work(work),
						struct uwprof_session,
						reap_work);

	mutex_lock(&s->lock);
	uwprof_reap_dead(s);
	mutex_unlock(&s->lock);
	schedule_delayed_work(&s->reap_work, HZ);
}

static int uwprof_cpus_init(struct uwprof_session *s)
{
	int cpu;

	s->cpu = alloc_percpu_gfp(struct uwprof_cpu, GFP_KERNEL_ACCOUNT);
	if (!s->cpu)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct uwprof_cpu *c = per_cpu_ptr(s->cpu, cpu);

		u64_stats_init(&c->syncp);
		seqcount_init(&c->lookups_seq);
		/* 94 KB: vmalloc when no contiguous pages are free */
		c->unwind = kvzalloc(sizeof(*c->unwind), GFP_KERNEL_ACCOUNT);
		c->frames = kcalloc(UWPROF_DEPTH_LIMIT, sizeof(u32),
				    GFP_KERNEL_ACCOUNT);
		if (!c->unwind || !c->frames)
			return -ENOMEM;
	}
	return uwprof_rings_alloc(s, uwprof_buffer_bytes);
}

/* The slots of samples handed to a task's own context (follow.c). */
static int uwprof_defer_slots_alloc(struct uwprof_session *s)
{
	int i;

	s->defer = kcalloc(UWPROF_DEFER_SLOTS, sizeof(*s->defer),
			   GFP_KERNEL_ACCOUNT);
	if (!s->defer)
		return -ENOMEM;
	for (i = 0; i < UWPROF_DEFER_SLOTS; i++)
		s->defer[i].s = s;
	return 0;
}

static void uwprof_session_free(struct uwprof_session *s)
{
	int cpu;

	if (s->cpu) {
		uwprof_rings_free(s);
		for_each_possible_cpu(cpu) {
			kvfree(per_cpu_ptr(s->cpu, cpu)->unwind);
			kfree(per_cpu_ptr(s->cpu, cpu)->frames);
		}
		free_percpu(s->cpu);
	}
	uwprof_registry_free(s);
	kfree(s->defer);
	if (s->pid_ns)
		put_pid_ns(s->pid_ns);
	if (s->cred)
		put_cred(s->cred);
	kfree(s);
}

static void uwprof_session_free_work(struct work_struct *work)
{
	uwprof_session_free(container_of(to_rcu_work(work),
					 struct uwprof_session, free_work));
}

/* One more holder; the caller holds a reference already (the file's). */
void uwprof_session_get(struct uwprof_session *s)
{
	refcount_inc(&s->ref);
}

/* Drop a reference; the last one frees the session after a grace period. */
void uwprof_session_put(struct uwprof_session *s)
{
	if (refcount_dec_and_test(&s->ref)) {
		uwprof_registry_retiring(s);
		uwprof_free_after_gp(&s->free_work, uwprof_session_free_work);
	}
}

/* A session for @file, opened by current; holds the file's reference. */
struct uwprof_session *uwprof_session_create(struct file *file)
{
	struct uwprof_session *s;
	int ret;

	s = kzalloc(sizeof(*s), GFP_KERNEL_ACCOUNT);
	if (!s)
		return ERR_PTR(-ENOMEM);
	refcount_set(&s->ref, 1);
	mutex_init(&s->lock);
	uwprof_readers_init(s);
	INIT_DELAYED_WORK(&s->reap_work, uwprof_reap_work);
	uwprof_registry_init(s);
	s->pid_ns = get_pid_ns(task_active_pid_ns(current));
	s->cred = get_current_cred();
	s->file = file;
	s->cap_ptrace = capable(CAP_SYS_PTRACE);
	s->max_depth = clamp_t(u32, uwprof_max_depth, 1, UWPROF_DEPTH_LIMIT);
	s->stack_window = clamp_t(u32, uwprof_stack_window, 16, SZ_8M);
	ret = uwprof_cpus_init(s);
	if (!ret)
		ret = uwprof_defer_slots_alloc(s);
	if (ret) {
		uwprof_session_free(s);
		return ERR_PTR(ret);
	}
	schedule_delayed_work(&s->reap_work, HZ);
	return s;
}

/*
 * The file is being released, and the sampler was stopped: samples still
 * queued to tasks are dropped when they run, which the release then makes
 * their tasks do soon (chardev.c, follow.c's uwprof_defer_kick_all())
 * before it drops the file's reference.
 */
void uwprof_session_close(struct uwprof_session *s)
{
	cancel_delayed_work_sync(&s->reap_work);
	mutex_lock(&s->lock);
	s->closed = true;
	mutex_unlock(&s->lock);
	/* No handler runs now; let a queued wakeup finish before freeing. */
	uwprof_readers_sync(s);
}
