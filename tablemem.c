// SPDX-License-Identifier: GPL-2.0
/*
 * Table memory of every open file together: the bound on it
 * (tables_bytes_all), and validated blobs kept after their file closed.
 *
 * A recording uploads the same tables as the one before it, and
 * validating them is most of the module's part of its start-up
 * (docs/UNWIND-COST.md, eleventh pass).  So a validated blob whose file
 * is freed is kept, up to table_keep_bytes in all (the oldest dropped
 * first), and an upload whose bytes equal a kept blob's skips
 * validation: validation depends on the bytes alone.  The match is made
 * on the bytes in full (memcmp(): no hash an uploader could collide) and
 * only for files opened by the same effective uid as the one that
 * uploaded the kept blob, so that no user learns, even by timing, what
 * another uploaded.  A matched blob is freed: the new upload keeps its
 * own copy.  Kept bytes stay charged to tables_bytes_all, and an upload
 * that finds it full drops kept blobs first; table_keep_bytes 0 keeps
 * none.  Module exit frees them all.
 *
 * uwprof_kept_lock (a mutex) guards the list; it is taken in process
 * context only (uploads, a session's free on the module's workqueue),
 * under no other lock of the module.  A shared service: it calls no
 * other file of the module.
 */
#include <linux/atomic.h>
#include <linux/cred.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "uwprof_mod.h"

struct uwprof_kept {
	struct list_head node;	/* uwprof_kept_list, oldest first */
	kuid_t owner;
	u32 size;
	void *blob;		/* kvmalloc()ed, charged */
};

static atomic64_t uwprof_tables_bytes = ATOMIC64_INIT(0);
static LIST_HEAD(uwprof_kept_list);
static DEFINE_MUTEX(uwprof_kept_lock);
static u64 uwprof_kept_bytes;	/* under uwprof_kept_lock */

void uwprof_tables_uncharge(u64 bytes)
{
	atomic64_sub(bytes, &uwprof_tables_bytes);
}

/* Unlink and free the oldest kept blob; false if none.  Under the lock. */
static bool uwprof_kept_drop_oldest(void)
{
	struct uwprof_kept *k;

	k = list_first_entry_or_null(&uwprof_kept_list, struct uwprof_kept,
				     node);
	if (!k)
		return false;
	list_del(&k->node);
	uwprof_kept_bytes -= k->size;
	uwprof_tables_uncharge(k->size);
	kvfree(k->blob);
	kfree(k);
	return true;
}

static bool uwprof_tables_try_charge(u64 bytes)
{
	if (atomic64_add_return(bytes, &uwprof_tables_bytes) <=
	    uwprof_tables_bytes_all)
		return true;
	atomic64_sub(bytes, &uwprof_tables_bytes);
	return false;
}

/*
 * Charge @bytes of table memory, dropping kept blobs while they stand
 * in the way; false when the tables of open files and the validations
 * under way leave no room.
 */
bool uwprof_tables_charge(u64 bytes)
{
	bool ok;

	if (uwprof_tables_try_charge(bytes))
		return true;
	mutex_lock(&uwprof_kept_lock);
	while (!(ok = uwprof_tables_try_charge(bytes)) &&
	       uwprof_kept_drop_oldest())
		;
	mutex_unlock(&uwprof_kept_lock);
	return ok;
}

/*
 * Was @blob (@size bytes) validated before, for a file of @owner since
 * closed?  The kept copy is freed either way it is found: the upload
 * keeps its own.
 */
bool uwprof_tables_kept_match(const struct cred *owner, const void *blob,
			      u32 size)
{
	struct uwprof_kept *k, *found = NULL;

	mutex_lock(&uwprof_kept_lock);
	list_for_each_entry(k, &uwprof_kept_list, node)
		if (k->size == size && uid_eq(k->owner, owner->euid) &&
		    !memcmp(k->blob, blob, size)) {
			found = k;
			list_del(&k->node);
			uwprof_kept_bytes -= k->size;
			break;
		}
	mutex_unlock(&uwprof_kept_lock);
	if (!found)
		return false;
	uwprof_tables_uncharge(found->size);
	kvfree(found->blob);
	kfree(found);
	return true;
}

/* Is the same blob of the same owner kept already?  Under the lock. */
static bool uwprof_kept_has(kuid_t owner, const void *blob, u32 size)
{
	struct uwprof_kept *k;

	list_for_each_entry(k, &uwprof_kept_list, node)
		if (k->size == size && uid_eq(k->owner, owner) &&
		    !memcmp(k->blob, blob, size))
			return true;
	return false;
}

/*
 * The validated, charged @blob of a file of @owner that is being freed:
 * kept while table_keep_bytes has room for it (the oldest dropped to
 * make it), else freed and uncharged.
 */
void uwprof_tables_keep(const struct cred *owner, void *blob, u32 size)
{
	u32 limit = READ_ONCE(uwprof_table_keep_bytes);
	struct uwprof_kept *k = NULL;

	if (size <= limit)
		k = kmalloc(sizeof(*k), GFP_KERNEL);
	if (k) {
		mutex_lock(&uwprof_kept_lock);
		if (uwprof_kept_has(owner->euid, blob, size)) {
			kfree(k);
			k = NULL;
		} else {
			while (uwprof_kept_bytes + size > limit &&
			       uwprof_kept_drop_oldest())
				;
			k->owner = owner->euid;
			k->size = size;
			k->blob = blob;
			list_add_tail(&k->node, &uwprof_kept_list);
			uwprof_kept_bytes += size;
		}
		mutex_unlock(&uwprof_kept_lock);
	}
	if (!k) {
		uwprof_tables_uncharge(size);
		kvfree(blob);
	}
}

/*
 * Kept blobs down to @limit bytes, the oldest dropped: table_keep_bytes
 * set lower, and module exit (0: no file is open, every session freed).
 */
void uwprof_tables_kept_trim(u32 limit)
{
	mutex_lock(&uwprof_kept_lock);
	while (uwprof_kept_bytes > limit && uwprof_kept_drop_oldest())
		;
	mutex_unlock(&uwprof_kept_lock);
}
