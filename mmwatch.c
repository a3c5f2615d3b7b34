// SPDX-License-Identifier: GPL-2.0
/*
 * The mm watch: an attachment is used only while its code is mapped.
 *
 * Every process entry registers an mmu notifier on its mm.  When a range
 * is unmapped (munmap, dlclose, a MAP_FIXED mapping over it, mremap away),
 * invalidate_range_start runs before the pages go, under the mmap lock of
 * the unmapping thread: it ends every entry of the process that overlaps
 * the range, in place (text_end = text_start), so the very next sample
 * finds no table there.  It neither allocates nor sleeps; the ended entry
 * is dropped from the array at its next replacement (registry.c).
 *
 * Lifetime: the watch is a separate object because the notifier may run
 * until an SRCU grace period after it is put.  Its proc pointer is cleared
 * (unlink) before the entry is freed, readers see it under RCU, and the
 * watch itself is freed by the notifier core (free_notifier).  Module exit
 * waits for those frees with mmu_notifier_synchronize().
 */
#include <linux/mmu_notifier.h>
#include <linux/slab.h>

#include "uwprof_mod.h"

struct uwprof_mmwatch {
	struct mmu_notifier mn;
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

static int uwprof_mm_invalidate(struct mmu_notifier *mn,
				const struct mmu_notifier_range *range)
{
	struct uwprof_mmwatch *w = container_of(mn, struct uwprof_mmwatch, mn);
	struct uwprof_proc *p;

	if (range->event != MMU_NOTIFY_UNMAP)
		return 0;
	rcu_read_lock();
	p = rcu_dereference(w->proc);
	if (p)
		uwprof_mods_end_range(p, range->start, range->end);
	rcu_read_unlock();
	return 0;
}

static void uwprof_mm_free(struct mmu_notifier *mn)
{
	kfree(container_of(mn, struct uwprof_mmwatch, mn));
}

static const struct mmu_notifier_ops uwprof_mm_ops = {
	.invalidate_range_start = uwprof_mm_invalidate,
	.free_notifier = uwprof_mm_free,
};

/* @mm must have a user (the caller's reference, or current's own mm). */
int uwprof_mmwatch_start(struct uwprof_proc *p, struct mm_struct *mm)
{
	struct uwprof_mmwatch *w;
	int ret;

	w = kzalloc(sizeof(*w), GFP_KERNEL_ACCOUNT);
	if (!w)
		return -ENOMEM;
	w->mn.ops = &uwprof_mm_ops;
	RCU_INIT_POINTER(w->proc, p);
	ret = mmu_notifier_register(&w->mn, mm);
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

void uwprof_mmwatch_put(struct uwprof_proc *p)
{
	if (p->watch)
		mmu_notifier_put(&p->watch->mn);
	p->watch = NULL;
}

/* Module exit: every watch put has been freed. */
void uwprof_mmwatch_exit(void)
{
	mmu_notifier_synchronize();
}
