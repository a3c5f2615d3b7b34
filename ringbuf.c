// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU record rings, the sample records written to them (from the
 * interrupt, sampler.c, or a task's own context, follow.c) and the read
 * side of /dev/unwind_samples.
 *
 * Why not the kernel's ring_buffer: each ring has exactly one writer, the
 * sampling interrupt of its CPU, which cannot nest with itself, and one
 * reader at a time (read_lock).  A single-producer single-consumer ring
 * then needs no atomics on the sample path, only acquire/release on the
 * two offsets, and read() can hand out our own record layout unchanged.
 *
 * Offsets run freely and are masked on use; a record never wraps: if it
 * does not fit before the end, a padding record fills the end first.
 * When the ring is full the new record is dropped (and counted by the
 * caller); the writer never waits.
 *
 * The reader is not woken for every record: a wake-up costs the sampled
 * CPU a context switch and the collector a pass through its loop, which
 * at 1 kHz would cost more than the samples themselves.  A ring that
 * passes wakeup_bytes wakes it at once (so a burst cannot fill a ring
 * unread); otherwise the flush timer wakes it every wakeup_ms while
 * records wait, which bounds both the wake-up rate and a record's delay.
 */
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "uwprof_mod.h"

#define UWPROF_RECORD_PAD	0	/* type of a padding record */

struct uwprof_rec_hdr {
	u16 size;
	u16 type;
};

int uwprof_rings_alloc(struct uwprof_session *s, u32 bytes_per_cpu)
{
	u32 size = roundup_pow_of_two(clamp_t(u32, bytes_per_cpu, PAGE_SIZE,
					      SZ_64M));
	int cpu;

	for_each_possible_cpu(cpu) {
		struct uwprof_ring *r = &per_cpu_ptr(s->cpu, cpu)->ring;

		r->data = __vmalloc(size, GFP_KERNEL_ACCOUNT | __GFP_ZERO);
		if (!r->data)
			return -ENOMEM;
		r->size = size;
	}
	s->wakeup_bytes = uwprof_wakeup_bytes ?
			  min(uwprof_wakeup_bytes, size / 2) : size / 4;
	s->wakeup_ms = clamp_t(u32, uwprof_wakeup_ms, 1, 1000);
	return 0;
}

void uwprof_rings_free(struct uwprof_session *s)
{
	int cpu;

	for_each_possible_cpu(cpu)
		vfree(per_cpu_ptr(s->cpu, cpu)->ring.data);
}

/*
 * Writer side, on the ring's own CPU with interrupts off.  @len is a
 * multiple of 8.  Returns where to build the record, or NULL when full.
 */
void *uwprof_ring_reserve(struct uwprof_ring *r, u32 len)
{
	u32 head = r->head, mask = r->size - 1;
	/* Pairs with the reader's release: its copy-out is done. */
	u32 tail = smp_load_acquire(&r->tail);
	u32 to_end = r->size - (head & mask);
	u32 need = len + (len > to_end ? to_end : 0);
	struct uwprof_rec_hdr *pad;

	if (need > r->size - (head - tail))
		return NULL;
	if (len > to_end) {
		pad = (struct uwprof_rec_hdr *)(r->data + (head & mask));
		pad->size = to_end;
		pad->type = UWPROF_RECORD_PAD;
		head += to_end;
		r->pending = to_end;
	} else {
		r->pending = 0;
	}
	return r->data + (head & mask);
}

void uwprof_ring_commit(struct uwprof_session *s, struct uwprof_ring *r,
			u32 len)
{
	u32 head = r->head + r->pending + len;

	/* Pairs with the reader's acquire: the record is written. */
	smp_store_release(&r->head, head);
	if (head - READ_ONCE(r->tail) >= s->wakeup_bytes &&
	    wq_has_sleeper(&s->readers))
		irq_work_queue(&s->wakeup_work);
}

static u32 uwprof_rec_len(u32 nframes)
{
	return ALIGN(sizeof(struct uwprof_record) + nframes * sizeof(u32), 8);
}

/*
 * Room in @c's ring for a sample record of up to @max_frames frames, for
 * the interrupt to unwind into (rec->frames) and then to pass to
 * uwprof_deliver() as ri->rec, so that its frames are not copied again;
 * NULL when that much does not fit.  Nothing is written to the ring
 * until uwprof_deliver() commits the record.
 */
struct uwprof_record *uwprof_rec_reserve(struct uwprof_cpu *c, u32 max_frames)
{
	return uwprof_ring_reserve(&c->ring, uwprof_rec_len(max_frames));
}

/*
 * Count one taken sample and write its record to @c's ring; on the ring's
 * own CPU with interrupts off (the interrupt, or a deferred sample).  The
 * record is ri->rec when the caller reserved it (uwprof_rec_reserve(),
 * nothing written to the ring since).  The interrupt's time in the
 * handler is counted here, in the same update of the counters; a
 * deferred sample's by its caller.  Returns the time the record's
 * handler_ns ends at.
 */
u64 uwprof_deliver(struct uwprof_session *s, struct uwprof_cpu *c,
		   const struct uwprof_rec_info *ri, u64 t0)
{
	u32 len = uwprof_rec_len(ri->nframes);
	/* per sample, so collectors can see the spread, not just sum and max */
	u64 end = uwprof_now();
	struct uwprof_record *rec;

	rec = ri->rec ? ri->rec : uwprof_ring_reserve(&c->ring, len);
	u64_stats_update_begin(&c->syncp);
	if (!(ri->flags & UWPROF_RF_DEFERRED)) {
		c->stats.handler_ns_sum += end - t0;
		if (end - t0 > c->stats.handler_ns_max)
			c->stats.handler_ns_max = end - t0;
	}
	/* rare: tested, not added as 0 to 64 bits */
	if (unlikely(ri->flags & (UWPROF_RF_KERNEL | UWPROF_RF_DEFERRED))) {
		c->stats.kernel_context += !!(ri->flags & UWPROF_RF_KERNEL);
		c->stats.deferred += !!(ri->flags & UWPROF_RF_DEFERRED);
	}
	c->stats.stop[ri->stop]++;
	/*
	 * taken: the sum of stop[]; delivered: taken less dropped_full; both
	 * at read (uwprof_stats_add()), one counter less a sample.
	 */
	if (rec) {
		c->stats.frames += ri->nframes;
		c->stats.bytes += len;
	} else {
		c->stats.dropped_full++;
	}
	u64_stats_update_end(&c->syncp);
	if (!rec)
		return end;
	rec->size = len;
	rec->type = UWPROF_RECORD_SAMPLE;
	rec->stop = ri->stop;
	rec->flags = ri->flags;
	rec->cpu = ri->cpu;
	rec->pid = ri->pid;
	rec->tid = ri->tid;
	rec->time_ns = ri->time_ns;
	rec->nframes = ri->nframes;
	rec->handler_ns = min_t(u64, end - t0, U32_MAX);
	if (ri->frames != rec->frames)
		memcpy(rec->frames, ri->frames, ri->nframes * sizeof(u32));
	uwprof_ring_commit(s, &c->ring, len);
	return end;
}

static bool uwprof_ring_empty(struct uwprof_ring *r)
{
	/* Pairs with the writer's release in uwprof_ring_commit(). */
	return smp_load_acquire(&r->head) == r->tail;
}

bool uwprof_rings_empty(struct uwprof_session *s)
{
	int cpu;

	for_each_possible_cpu(cpu)
		if (!uwprof_ring_empty(&per_cpu_ptr(s->cpu, cpu)->ring))
			return false;
	return true;
}

static void uwprof_flush(struct timer_list *t)
{
	struct uwprof_session *s = from_timer(s, t, flush_timer);

	if (!uwprof_rings_empty(s))
		wake_up_interruptible(&s->readers);
	if (READ_ONCE(s->sampling))
		mod_timer(&s->flush_timer,
			  jiffies + msecs_to_jiffies(s->wakeup_ms));
}

static void uwprof_wakeup(struct irq_work *work)
{
	struct uwprof_session *s = container_of(work, struct uwprof_session,
						wakeup_work);

	wake_up_interruptible(&s->readers);
}

/* The read side of a new session: readers, their wake-ups. */
void uwprof_readers_init(struct uwprof_session *s)
{
	init_waitqueue_head(&s->readers);
	mutex_init(&s->read_lock);
	init_irq_work(&s->wakeup_work, uwprof_wakeup);
	timer_setup(&s->flush_timer, uwprof_flush, 0);
}

/* Sampling stopped: a wakeup still queued has finished on return. */
void uwprof_readers_sync(struct uwprof_session *s)
{
	irq_work_sync(&s->wakeup_work);
}

/* With s->lock held, once s->sampling is set. */
void uwprof_flush_start(struct uwprof_session *s)
{
	mod_timer(&s->flush_timer, jiffies + msecs_to_jiffies(s->wakeup_ms));
}

/* With s->lock held, once s->sampling is clear: the rest is read now. */
void uwprof_flush_stop(struct uwprof_session *s)
{
	del_timer_sync(&s->flush_timer);
	wake_up_interruptible(&s->readers);
}

/*
 * Hand the @run bytes of records at *@tail to @buf + *@done and consume
 * them; false if the copy failed.
 */
static bool uwprof_ring_flush(struct uwprof_ring *r, char __user *buf,
			      size_t *done, u32 *tail, u32 run)
{
	if (copy_to_user(buf + *done, r->data + (*tail & (r->size - 1)), run))
		return false;
	*done += run;
	*tail += run;
	/* Pairs with the writer's acquire: the space is free again. */
	smp_store_release(&r->tail, *tail);
	return true;
}

/*
 * Copy whole records of one ring to @buf; returns bytes copied or an
 * error.  *@too_small is set when the next record did not fit.  Records
 * that lie one after another in the ring go out in one copy.
 */
static ssize_t uwprof_ring_drain(struct uwprof_ring *r, char __user *buf,
				 size_t room, bool *too_small)
{
	/* Pairs with the writer's release: records up to head are whole. */
	u32 head = smp_load_acquire(&r->head), tail = r->tail;
	u32 mask = r->size - 1, run = 0;
	size_t done = 0;

	while (tail + run != head) {
		u32 off = (tail + run) & mask;
		struct uwprof_rec_hdr *h = (void *)(r->data + off);
		bool pad = h->type == UWPROF_RECORD_PAD;

		/* a run ends before a padding record and at the ring's end */
		if (run && (pad || !off)) {
			if (!uwprof_ring_flush(r, buf, &done, &tail, run))
				return done ? done : -EFAULT;
			run = 0;
		}
		if (pad) {
			tail += h->size;
			/* Pairs with the writer's acquire, as in the flush. */
			smp_store_release(&r->tail, tail);
			continue;
		}
		if (h->size > room - done - run) {
			/* this one stays for the next read */
			*too_small = true;
			break;
		}
		run += h->size;
	}
	if (run && !uwprof_ring_flush(r, buf, &done, &tail, run))
		return done ? done : -EFAULT;
	return done;
}

ssize_t uwprof_read(struct uwprof_session *s, char __user *buf, size_t len,
		    bool nonblock)
{
	bool too_small = false;
	ssize_t done = 0, n;
	int cpu, first, ret;

	for (;;) {
		if (!nonblock) {
			ret = wait_event_interruptible(s->readers,
						       !uwprof_rings_empty(s));
			if (ret)
				return ret;
		}
		if (mutex_lock_interruptible(&s->read_lock))
			return -ERESTARTSYS;
		/*
		 * Each read starts one CPU further: a reader whose buffer
		 * fills from the first rings would starve the others.
		 */
		first = s->read_first;
		s->read_first = cpumask_next(first, cpu_possible_mask);
		if (s->read_first >= nr_cpu_ids)
			s->read_first = cpumask_first(cpu_possible_mask);
		for_each_cpu_wrap(cpu, cpu_possible_mask, first) {
			n = uwprof_ring_drain(&per_cpu_ptr(s->cpu, cpu)->ring,
					      buf + done, len - done,
					      &too_small);
			if (n < 0) {
				done = done ? done : n;
				break;
			}
			done += n;
		}
		mutex_unlock(&s->read_lock);
		if (done)
			return done;
		if (too_small)
			return -EINVAL;
		if (nonblock)
			return -EAGAIN;
	}
}
