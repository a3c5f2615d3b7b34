/* SPDX-License-Identifier: GPL-2.0 */
/* Declarations shared by the files of the uwprof module. */
#ifndef UWPROF_MOD_H
#define UWPROF_MOD_H

#include <linux/irq_work.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/timer.h>
#include <linux/u64_stats_sync.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "uapi/uwprof.h"
#include "unwind_v2.h"

/* Module parameters (uwprof_main.c), read when a file is opened. */
extern unsigned int uwprof_table_bytes_max;
extern unsigned int uwprof_buffer_bytes;
extern unsigned int uwprof_wakeup_bytes;
extern unsigned int uwprof_wakeup_ms;
extern unsigned int uwprof_max_depth;
extern unsigned int uwprof_stack_window;

#define UWPROF_DEPTH_LIMIT	256	/* hard cap on max_depth */

/* An uploaded, validated table; shared by every attachment that uses it. */
struct uwprof_table {
	struct kref ref;
	u32 id;
	u32 size;
	u32 hash;
	void *blob;
	struct uw2_table t;
};

/*
 * One attached process: its modules, sorted by text start.  Readers in the
 * sample path see it under RCU; writers replace the module array whole.
 */
struct uwprof_mods {
	struct rcu_head rcu;
	u32 n;
	struct uw2_module mod[];
};

struct uwprof_proc {
	u32 tgid;		/* global tgid, the xarray key */
	u32 user_pid;		/* the pid as the opener named it */
	struct mm_struct *mm;	/* mmgrab()bed: identity, not the memory */
	struct uwprof_mods __rcu *mods;
	struct uwprof_table **tables;	/* parallel to mods->mod[], refs */
	struct rcu_head rcu;
};

/* Per-CPU ring: written only by that CPU's sample handler. */
struct uwprof_ring {
	u8 *data;
	u32 size;		/* power of two */
	u32 head;		/* next write offset, owned by the writer */
	u32 tail;		/* next read offset, owned by the reader */
	u32 pending;		/* padding written by the last reserve */
};

struct uwprof_cpu_stats {
	u64 taken;
	u64 delivered;
	u64 dropped_full;
	u64 dropped_not32;
	u64 kernel_context;
	u64 handler_ns_sum;
	u64 handler_ns_max;
	u64 stop[UWPROF_STOP_SLOTS];
	u64 frames;
	u64 bytes;
};

/* Scratch the handler needs per CPU: the cached stack page, frames. */
struct uwprof_cpu {
	struct uwprof_ring ring;
	struct u64_stats_sync syncp;	/* 64-bit counters on 32-bit CPUs */
	struct uwprof_cpu_stats stats;
	struct perf_event *event;
	unsigned long page_addr;	/* user address cached in page, or 1 */
	u8 *page;
	u32 *frames;
};

/* Everything one open file owns. */
struct uwprof_session {
	struct mutex lock;		/* serialises ioctls and teardown */
	struct xarray tables;		/* id -> struct uwprof_table */
	u32 next_table_id;
	u64 table_bytes;
	struct xarray procs;		/* tgid -> struct uwprof_proc */
	struct pid_namespace *pid_ns;
	struct uwprof_cpu __percpu *cpu;
	u32 max_depth;
	u32 stack_window;
	bool sampling;
	bool per_task;			/* events follow threads, not CPUs */
	u32 freq_hz;
	struct perf_event **task_events;	/* per-task mode */
	u32 n_task_events;
	struct irq_work wakeup_work;	/* a ring passed wakeup_bytes */
	struct timer_list flush_timer;	/* every wakeup_ms while sampling */
	u32 wakeup_bytes;
	u32 wakeup_ms;
	wait_queue_head_t readers;
	struct mutex read_lock;		/* one reader drains at a time */
	struct delayed_work reap_work;
};

/* chardev.c */
int uwprof_chardev_init(void);
void uwprof_chardev_exit(void);
int uwprof_copy_arg(void *dst, size_t dst_size, void __user *src);

/* registry.c: tables and attachments */
void uwprof_registry_init(struct uwprof_session *s);
void uwprof_registry_free(struct uwprof_session *s);
long uwprof_ioctl_table_upload(struct uwprof_session *s, void __user *arg);
long uwprof_ioctl_attach(struct uwprof_session *s, void __user *arg);
long uwprof_ioctl_detach(struct uwprof_session *s, void __user *arg);
long uwprof_ioctl_list(struct uwprof_session *s, void __user *arg);
void uwprof_reap_dead(struct uwprof_session *s);
struct uwprof_proc *uwprof_proc_of_current(struct uwprof_session *s);

/* ringbuf.c */
int uwprof_rings_alloc(struct uwprof_session *s, u32 bytes_per_cpu);
void uwprof_rings_free(struct uwprof_session *s);
void *uwprof_ring_reserve(struct uwprof_ring *r, u32 len);
void uwprof_ring_commit(struct uwprof_session *s, struct uwprof_ring *r,
			u32 len);
ssize_t uwprof_read(struct uwprof_session *s, char __user *buf, size_t len,
		    bool nonblock);
bool uwprof_rings_empty(struct uwprof_session *s);
void uwprof_flush_init(struct uwprof_session *s);
void uwprof_flush_start(struct uwprof_session *s);
void uwprof_flush_stop(struct uwprof_session *s);

/* sampler.c */
long uwprof_ioctl_start(struct uwprof_session *s, void __user *arg);
long uwprof_ioctl_stop(struct uwprof_session *s);
void uwprof_sampler_stop(struct uwprof_session *s);
int uwprof_sampler_follow(struct uwprof_session *s, u32 tgid);
long uwprof_ioctl_stats(struct uwprof_session *s, void __user *arg);

#endif /* UWPROF_MOD_H */
