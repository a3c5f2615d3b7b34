// SPDX-License-Identifier: GPL-2.0
/*
 * The mm watch: tells its owner, before the pages go, that a range of an
 * address space is being unmapped (munmap, dlclose, a MAP_FIXED mapping
 * over it, mremap away).  The registry owns one per process entry, made
 * before the entry's first attachment (or code found to have no table)
 * is published, and ends every attachment over the range in place, so the
 * very next sample finds no table there (registry.c).
 *
 * A shared service: it calls no other file of the module.  Its owner
 * hands it a struct uwprof_mmwatch_ops whose unmapped() it calls, under
 * the unmapping thread's mmap lock and rcu_read_lock(): the callback may
 * neither allocate nor sleep.
 *
 * An interval notifier, not a plain one: an mm with a plain notifier
 * waits for an SRCU grace period when it is torn down, so every exit and
 * exec of a profiled process would wait several milliseconds for it.
 *
 * Lifetime: uwprof_mmwatch_new() inserts the notifier with no owner
 * (unmaps are ignored); uwprof_mmwatch_own() names the owner, under the
 * owner's lock; uwprof_mmwatch_unlink() clears it before the owner is
 * freed; the callback reads it under RCU, and uwprof_mmwatch_free()
 * (after a grace period, in process context) removes the notifier, which
 * waits for a callback still running, then frees the watch.
 *
 * Locks: new() may take the mm's mmap lock for writing (the first
 * notifier of an mm registers it) and free() waits for callbacks that
 * run under the mmap lock: callers of either hold no lock at all that is
 * taken under the mmap lock or in the callback.
 */
#include <linux/err.h>
#include <linux/mmu_notifier.h>
#include <linux/slab.h>

#include "uwprof_mod.h"

struct uwprof_mmwatch {
	struct mmu_interval_notifier mni;
	const struct uwprof_mmwatch_ops *ops;
	void __rcu *owner;
};

static bool uwprof_mm_invalidate(struct mmu_interval_notifier *mni,
				 const struct mmu_notifier_range *range,
				 unsigned long cur_seq)
{
	struct uwprof_mmwatch *w = container_of(mni, struct uwprof_mmwatch,
						mni);
	void *owner;

	if (range->event != MMU_NOTIFY_UNMAP)
		return true;
	rcu_read_lock();
	owner = rcu_dereference(w->owner);
	if (owner)
		w->ops->unmapped(owner, range->start, range->end);
	rcu_read_unlock();
	return true;
}

static const struct mmu_interval_notifier_ops uwprof_mm_ops = {
	.invalidate = uwprof_mm_invalidate,
};

/*
 * A watch over all of @mm, with no owner yet.  @mm must have a user (the
 * caller's reference, or current's own mm); the caller holds no lock
 * (above).
 */
struct uwprof_mmwatch *uwprof_mmwatch_new(struct mm_struct *mm,
					  const struct uwprof_mmwatch_ops *ops)
{
	struct uwprof_mmwatch *w;
	int ret;

	w = kzalloc(sizeof(*w), GFP_KERNEL_ACCOUNT);
	if (!w)
		return ERR_PTR(-ENOMEM);
	w->ops = ops;
	ret = mmu_interval_notifier_insert(&w->mni, mm, 0, ULONG_MAX,
					   &uwprof_mm_ops);
	/*
	 * The first notifier of an mm takes all its locks, which gives up
	 * on any pending signal, one with a handler or a task work's
	 * wake-up included (-EINTR): a system call restarts by itself.
	 */
	if (ret == -EINTR)
		ret = -ERESTARTSYS;
	if (ret) {
		kfree(w);
		return ERR_PTR(ret);
	}
	return w;
}

/* Unmaps of the watched mm are told to @owner from now on. */
void uwprof_mmwatch_own(struct uwprof_mmwatch *w, void *owner)
{
	rcu_assign_pointer(w->owner, owner);
}

/* What a watch holds, for the STATS gauges. */
size_t uwprof_mmwatch_bytes(const struct uwprof_mmwatch *w)
{
	return w ? sizeof(*w) : 0;
}

/* The owner is leaving: the watch must not tell it after a grace period. */
void uwprof_mmwatch_unlink(struct uwprof_mmwatch *w)
{
	if (w)
		RCU_INIT_POINTER(w->owner, NULL);
}

/*
 * After uwprof_mmwatch_unlink() and a grace period, or with no owner
 * ever; may sleep.  NULL is no watch.
 */
void uwprof_mmwatch_free(struct uwprof_mmwatch *w)
{
	if (!w)
		return;
	mmu_interval_notifier_remove(&w->mni);
	kfree(w);
}
