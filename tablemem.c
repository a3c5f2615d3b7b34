// SPDX-License-Identifier: GPL-2.0
/*
 * Table memory of every open file together: the bound on it
 * (tables_bytes_all), and validated blobs kept after their file closed.
 *
 * A recording uploads the same tables as the one before it, and
 * validating them is most of the module's part of its start-up
 * (docs/UNWIND-COST.md, eleventh pass).  So a validated blob whose file
 * is freed is kept, up to table_keep_bytes in all (the oldest dropped
 * first), and an upload whose bytes equal a kept blob's takes it and
 * skips validation, and its table's shapes (struct uw2_seq_shape) kept
 * with it: both depend on the bytes alone.  The match is made on the
 * bytes in full (no hash an uploader could collide) and only for files
 * opened by the same effective uid as the one that uploaded the kept
 * blob, so that no user learns, even by timing, what another uploaded.
 * Kept bytes stay charged to tables_bytes_all, and an upload that finds
 * it full drops kept blobs first; table_keep_bytes 0 keeps none.  They
 * are a cache: memory pressure takes them back, the oldest first,
 * through a shrinker (not memcg-aware: global reclaim, and drop_caches,
 * not a cgroup's own limit).  Module exit frees them all.
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
#include <linux/shrinker.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "uwprof_mod.h"

struct uwprof_kept {
	struct list_head node;	/* uwprof_kept_list, oldest first */
	kuid_t owner;
	u32 size;
	void *blob;		/* kvmalloc()ed, charged */
	void *shapes;		/* its table's shapes, the same, or NULL */
	u32 shapes_bytes;
};

static atomic64_t uwprof_tables_bytes = ATOMIC64_INIT(0);
static LIST_HEAD(uwprof_kept_list);
static DEFINE_MUTEX(uwprof_kept_lock);
static u64 uwprof_kept_bytes;	/* under uwprof_kept_lock */
static unsigned long uwprof_kept_pages;	/* the same, in pages a blob */

/*
 * Kept blob @k joins the kept totals (@add) or leaves them; under the
 * lock.  The bytes are the blob's, which table_keep_bytes bounds; the
 * pages, which the shrinker reads without the lock, its shapes' too.
 */
static void uwprof_kept_account(const struct uwprof_kept *k, bool add)
{
	u32 size = k->size;
	unsigned long pages = DIV_ROUND_UP(k->size, PAGE_SIZE) +
			      DIV_ROUND_UP(k->shapes_bytes, PAGE_SIZE);

	if (add) {
		uwprof_kept_bytes += size;
		WRITE_ONCE(uwprof_kept_pages, uwprof_kept_pages + pages);
	} else {
		uwprof_kept_bytes -= size;
		WRITE_ONCE(uwprof_kept_pages, uwprof_kept_pages - pages);
	}
}

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
	uwprof_kept_account(k, false);
	uwprof_tables_uncharge((u64)k->size + k->shapes_bytes);
	kvfree(k->shapes);
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

/* Bytes compared a copy, and candidates tried, by uwprof_tables_kept_take() */
#define UWPROF_CMP_CHUNK	4096
#define UWPROF_KEPT_TRIES	4

/*
 * Are @n bytes of @a and @b equal?  Words four at a time: the kernel's
 * memcmp() is a byte loop on 32-bit ARM, 2.8 instructions a byte in
 * bench-profile against 1.5 here.  Both are word aligned (kvmalloc()ed,
 * or an offset into one by whole chunks).
 */
static bool uwprof_bytes_equal(const void *a, const void *b, u32 n)
{
	const unsigned long *x = a, *y = b;
	u32 i, words = n / sizeof(long);
	unsigned long d = 0;

	for (i = 0; i + 4 <= words; i += 4)
		d |= (x[i] ^ y[i]) | (x[i + 1] ^ y[i + 1]) |
		     (x[i + 2] ^ y[i + 2]) | (x[i + 3] ^ y[i + 3]);
	for (; i < words; i++)
		d |= x[i] ^ y[i];
	return !d && !memcmp(x + words, y + words, n % sizeof(long));
}

/*
 * Do the @size bytes at @src equal @blob's?  Copied in a chunk at a time
 * into @buf, with no lock held: the copy may fault and sleep.
 */
static bool uwprof_user_equal(const void __user *src, const void *blob,
			      u32 size, void *buf)
{
	u32 off, n;

	for (off = 0; off < size; off += n) {
		n = min_t(u32, size - off, UWPROF_CMP_CHUNK);
		if (copy_from_user(buf, src + off, n) ||
		    !uwprof_bytes_equal(buf, blob + off, n))
			return false;
		cond_resched();
	}
	return true;
}

/* The first kept blob of @owner's with @size bytes, unlinked; under the lock. */
static struct uwprof_kept *uwprof_kept_unlink(kuid_t owner, u32 size)
{
	struct uwprof_kept *k;

	list_for_each_entry(k, &uwprof_kept_list, node)
		if (k->size == size && uid_eq(k->owner, owner)) {
			list_del(&k->node);
			uwprof_kept_account(k, false);
			return k;
		}
	return NULL;
}

/* Kept blobs down to table_keep_bytes, read now.  Under the lock. */
static void uwprof_kept_fit(void)
{
	u32 limit = READ_ONCE(uwprof_table_keep_bytes);

	while (uwprof_kept_bytes > limit && uwprof_kept_drop_oldest())
		;
}

/*
 * A kept blob, validated for a file of @owner since closed, whose bytes
 * are the @size bytes at @src, into @t (its blob, and its shapes if it
 * had them): the caller's now, charged already (the charge goes with
 * them); false if none.  The bytes are compared where they
 * are, so that a match costs no copy: the kernel's copy, validated, is
 * what is used, whatever the caller's memory holds meanwhile.  Blobs
 * being compared are off the list, each tried once; those that differ
 * go back among the oldest.
 */
bool uwprof_tables_kept_take(const struct cred *owner,
			     const void __user *src, u32 size,
			     struct uwprof_table *t)
{
	struct uwprof_kept *k, *found = NULL;
	LIST_HEAD(tried);
	u32 tries;
	void *buf;

	if (list_empty(&uwprof_kept_list))	/* a hint: checked below */
		return false;
	buf = kmalloc(UWPROF_CMP_CHUNK, GFP_KERNEL);
	if (!buf)
		return false;
	for (tries = 0; tries < UWPROF_KEPT_TRIES && !found; tries++) {
		mutex_lock(&uwprof_kept_lock);
		k = uwprof_kept_unlink(owner->euid, size);
		mutex_unlock(&uwprof_kept_lock);
		if (!k)
			break;
		if (uwprof_user_equal(src, k->blob, size, buf))
			found = k;
		else
			list_add_tail(&k->node, &tried);
	}
	kfree(buf);
	if (!list_empty(&tried)) {
		mutex_lock(&uwprof_kept_lock);
		list_for_each_entry(k, &tried, node)
			uwprof_kept_account(k, true);
		list_splice(&tried, &uwprof_kept_list);
		uwprof_kept_fit();	/* the bound may have come down */
		mutex_unlock(&uwprof_kept_lock);
	}
	if (!found)
		return false;
	t->blob = found->blob;
	t->shapes = found->shapes;
	t->shapes_bytes = found->shapes_bytes;
	kfree(found);
	return true;
}

/*
 * The validated, charged blob of table @t of @owner's, which no file
 * holds, with its shapes: kept while table_keep_bytes has room for them
 * (the oldest dropped to make it), else freed and uncharged; @t's are
 * NULL after.  The bound is read under the lock, so a
 * lower one written meanwhile holds here too.  No compare with what is
 * kept: a file holds each blob once, and two files of one owner with the
 * same table leave two copies, one for each of the next two uploads.
 */
void uwprof_tables_keep(const struct cred *owner, struct uwprof_table *t)
{
	struct uwprof_kept *k = kmalloc(sizeof(*k), GFP_KERNEL);

	if (k) {
		mutex_lock(&uwprof_kept_lock);
		if (t->size > READ_ONCE(uwprof_table_keep_bytes)) {
			kfree(k);
			k = NULL;
		} else {
			k->owner = owner->euid;
			k->size = t->size;
			k->blob = t->blob;
			k->shapes = t->shapes;
			k->shapes_bytes = t->shapes_bytes;
			list_add_tail(&k->node, &uwprof_kept_list);
			uwprof_kept_account(k, true);
			uwprof_kept_fit();	/* the oldest, never @k */
		}
		mutex_unlock(&uwprof_kept_lock);
	}
	if (!k) {
		uwprof_tables_uncharge((u64)t->size + t->shapes_bytes);
		kvfree(t->shapes);
		kvfree(t->blob);
	}
	t->blob = NULL;
	t->shapes = NULL;
	t->shapes_bytes = 0;
}

/* Kept blobs down to table_keep_bytes (written lower), or none (exit). */
void uwprof_tables_kept_trim(bool all)
{
	mutex_lock(&uwprof_kept_lock);
	if (all)
		while (uwprof_kept_drop_oldest())
			;
	else
		uwprof_kept_fit();
	mutex_unlock(&uwprof_kept_lock);
}

/* The bytes kept now (the read-only parameter table_kept_bytes). */
u64 uwprof_tables_kept_bytes(void)
{
	u64 n;

	mutex_lock(&uwprof_kept_lock);
	n = uwprof_kept_bytes;
	mutex_unlock(&uwprof_kept_lock);
	return n;
}

/* Memory pressure: the kept blobs' pages, whole blobs given back. */
static unsigned long uwprof_kept_count(struct shrinker *sh,
				       struct shrink_control *sc)
{
	unsigned long n = READ_ONCE(uwprof_kept_pages);

	return n ? n : SHRINK_EMPTY;
}

/*
 * The oldest first, until @sc's pages are freed.  A trylock: reclaim
 * does not wait for an upload's compare, and nothing under the lock
 * allocates, so reclaim never runs under it either.
 */
static unsigned long uwprof_kept_scan(struct shrinker *sh,
				      struct shrink_control *sc)
{
	unsigned long before, freed;

	if (!mutex_trylock(&uwprof_kept_lock))
		return SHRINK_STOP;
	before = uwprof_kept_pages;
	while (before - uwprof_kept_pages < sc->nr_to_scan &&
	       uwprof_kept_drop_oldest())
		;
	freed = before - uwprof_kept_pages;
	mutex_unlock(&uwprof_kept_lock);
	return freed;
}

/*
 * The shrinker API of the kernel built against, told by Kbuild from its
 * <linux/shrinker.h>: shrinker_alloc() (6.7 and later), or
 * register_shrinker() with a name (6.0 and later) or without one.
 */
#ifdef UWPROF_SHRINKER_ALLOC
static struct shrinker *uwprof_kept_shrinker;

int uwprof_tablemem_module_init(void)
{
	uwprof_kept_shrinker = shrinker_alloc(0, "uwprof-kept-tables");
	if (!uwprof_kept_shrinker)
		return -ENOMEM;
	uwprof_kept_shrinker->count_objects = uwprof_kept_count;
	uwprof_kept_shrinker->scan_objects = uwprof_kept_scan;
	uwprof_kept_shrinker->seeks = DEFAULT_SEEKS;
	shrinker_register(uwprof_kept_shrinker);
	return 0;
}

static void uwprof_kept_shrinker_free(void)
{
	shrinker_free(uwprof_kept_shrinker);
}
#else
static struct shrinker uwprof_kept_shrinker = {
	.count_objects = uwprof_kept_count,
	.scan_objects = uwprof_kept_scan,
	.seeks = DEFAULT_SEEKS,
};

int uwprof_tablemem_module_init(void)
{
#ifdef UWPROF_SHRINKER_NAMED
	return register_shrinker(&uwprof_kept_shrinker, "uwprof-kept-tables");
#else
	return register_shrinker(&uwprof_kept_shrinker);
#endif
}

static void uwprof_kept_shrinker_free(void)
{
	unregister_shrinker(&uwprof_kept_shrinker);
}
#endif

/* Module exit, every session freed: the shrinker, then what is kept. */
void uwprof_tablemem_module_exit(void)
{
	uwprof_kept_shrinker_free();
	uwprof_tables_kept_trim(true);
}
