// SPDX-License-Identifier: GPL-2.0
/*
 * The mm watch: an attachment is used only while its code is mapped.
 *
 * A process entry registers an mmu interval notifier over its whole
 * address space before its first attachment (or code found to have no
 * table) is published.  When a range is unmapped (munmap, dlclose, a
 * MAP_FIXED mapping over it, mremap away), the invalidate callback runs
 * before the pages go, under the mmap lock of the unmapping thread: it
 * ends every entry of the process that overlaps the range, in place
 * (text_end = text_start), so the very next sample finds no table there.
 * It neither allocates nor sleeps; the ended entry is dropped from the
 * array at its next replacement (registry.c).
 *
 * An interval notifier, not a plain one: an mm with a plain notifier
 * waits for an SRCU grace period when it is torn down, so every exit and
 * exec of a profiled process would wait several milliseconds for it.
 *
 * Lifetime: the watch's proc pointer is cleared (unlink) before the entry
 * is freed, the callback reads it under RCU, and removing the notifier
 * (put, after a grace period, in process context) waits for a callback
 * still running; then the watch is freed.
 */
#include <linux/mmu_notifier.h>
#include <linux/slab.h>

#include "uwprof_mod.h"

struct uwprof_mmwatch {
	struct mmu_interval_notifier mni;
	struct uwprof_proc __rcu *proc;
};

/* End the entries of @p that overlap [start, end). */
static void uwprof_mods_end_range(struct uwprof_proc *p, unsigned long start,
				  unsigned long end)
{
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

static bool uwprof_mm_invalidate(struct mmu_interval_notifier *mni,
				 const struct mmu_notifier_range *range,
				 unsigned long cur_seq)
{
	struct uwprof_mmwatch *w = container_of(mni, struct uwprof_mmwatch,
						mni);
	struct uwprof_proc *p;

	if (range->event != MMU_NOTIFY_UNMAP)
		return true;
	rcu_read_lock();
	p = rcu_dereference(w->proc);
	if (p)
		uwprof_mods_end_range(p, range->start, range->end);
	rcu_read_unlock();
	return true;
}

static const struct mmu_interval_notifier_ops uwprof_mm_ops = {
	.invalidate = uwprof_mm_invalidate,
};

/*
 * Watch @mm for @p before its first entry is published; a no-op once it
 * is watched.  The watch comes with the first entry, not with the
 * process: a child the recorder follows from before its exec needs none
 * until its new image has tables.  @mm must have a user (the caller's
 * reference, or current's own mm) and not be locked by the caller.
 */
int uwprof_mmwatch_start(struct uwprof_proc *p, struct mm_struct *mm)
{
	struct uwprof_mmwatch *w;
	int ret;

	if (p->watch)
		return 0;
	w = kzalloc(sizeof(*w), GFP_KERNEL_ACCOUNT);
	if (!w)
		return -ENOMEM;
	RCU_INIT_POINTER(w->proc, p);
	ret = mmu_interval_notifier_insert(&w->mni, mm, 0, ULONG_MAX,
					   &uwprof_mm_ops);
	if (ret) {
		kfree(w);
		return ret;
	}
	p->watch = w;
	return 0;
}

/* What the watch of @p holds, for the STATS gauges. */
size_t uwprof_mmwatch_bytes(const struct uwprof_proc *p)
{
	return p->watch ? sizeof(*p->watch) : 0;
}

/* The entry is leaving: the watch must not touch it after a grace period. */
void uwprof_mmwatch_unlink(struct uwprof_proc *p)
{
	if (p->watch)
		RCU_INIT_POINTER(p->watch->proc, NULL);
}

/* After uwprof_mmwatch_unlink() and a grace period; may sleep. */
void uwprof_mmwatch_put(struct uwprof_proc *p)
{
	if (!p->watch)
		return;
	mmu_interval_notifier_remove(&p->watch->mni);
	kfree(p->watch);
	p->watch = NULL;
}
