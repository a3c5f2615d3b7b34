/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Declarations shared by the files of the uwprof module, by file.  The
 * files call only downward (docs/LAYERS.md): chardev.c; sampler.c,
 * follow.c, session.c, registry.c; then pmu.c, ringbuf.c, tablemem.c,
 * mmwatch.c, buildid.c, uarg.c, workq.c; then unwind_v2.c.  session.c's
 * header comment has the lock order.
 */
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
#include <linux/workqueue.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/task_work.h>
#include <linux/timekeeping.h>
#include <linux/u64_stats_sync.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "uapi/uwprof.h"
#include "unwind_v2.h"

/*
 * Module parameters (uwprof_main.c), read when a file is opened; but
 * table_keep_bytes, read as a table is kept (tablemem.c).
 */
extern unsigned int uwprof_table_bytes_max;
extern unsigned int uwprof_tables_bytes_all;
extern unsigned int uwprof_table_keep_bytes;
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
	void *blob;
	struct uw2_table t;
	void *shapes;		/* t's shapes (uw2_shapes_store()), or NULL */
	u32 shapes_bytes;	/* charged with the blob, kept with it */
	/*
	 * UWPROF_TABLE_*; with UWPROF_TABLE_BY_BUILD_ID, which file and its
	 * link-time range
	 */
	u32 flags;
	u32 text_addr;
	u32 text_size;
	u32 build_id_size;
	u8 build_id[UWPROF_BUILD_ID_MAX];
};

/*
 * One attached process: its modules, sorted by text start.  Readers in the
 * sample path see it under RCU; writers replace the module array whole.
 * Entries with a NULL table are code the module examined and found no
 * table for (valid while gen equals the session's table_gen); the unwinder
 * treats them as no table.  An entry whose range was unmapped is ended in
 * place (text_end = text_start, by the mm watch) and dropped at the next
 * replacement.
 */
struct uwprof_mods {
	struct rcu_head rcu;
	u32 gen;
	/*
	 * Names these contents for the lookup caches (uw2_cache.gen): never
	 * 0, never given to two arrays, and changed when an entry is ended
	 * in place (uwprof_mods_tag()).
	 */
	u32 tag;
	u32 n;
	/*
	 * The unwinder's UW2_F_* for this process: UW2_F_CHROME_COMPAT when
	 * every table in the array was uploaded as Chrome's.  The lookup rule
	 * is the walk's, not a table's, so a process that mixes the two kinds
	 * is unwound by uwprof's rules.  UW2_F_JIT when an entry is code of a
	 * JIT kind.
	 */
	u32 uw2_flags;
	struct uw2_module mod[];
};

struct uwprof_mmwatch;

struct uwprof_proc {
	u32 tgid;		/* global tgid, the xarray key */
	u32 user_pid;		/* the pid as the opener named it */
	struct mm_struct *mm;	/* mmgrab()bed: identity, not the memory */
	u64 start_time;		/* of the process: exec keeps it, reuse not */
	/*
	 * Per task: since when (CLOCK_MONOTONIC, as start_time) its threads
	 * carry this file's events, made for it or inherited at its fork; 0
	 * if not known to.  A child forked later inherits them.
	 */
	u64 events_ns;
	bool ignored;		/* not to be sampled: the opener may not */
	struct uwprof_mods __rcu *mods;
	spinlock_t lock;	/* mods replacement against the mm watch */
	struct uwprof_mmwatch *watch;	/* ends attachments on munmap */
	u32 sweep_at;		/* where follow.c's next sweep of code starts */
	struct uwprof_proc *next_dead;	/* in the session's graveyard */
	struct rcu_work free_work;	/* frees it after a grace period */
};

/* Per-CPU ring: written only by that CPU's sample handler. */
struct uwprof_ring {
	u8 *data;
	u32 size;		/* power of two */
	u32 head;		/* next write offset, owned by the writer */
	u32 tail;		/* next read offset, owned by the reader */
	u32 pending;		/* padding written by the last reserve */
};

/* The handler's lookup caches (struct uw2_cache_counts, in 64 bits). */
struct uwprof_lookup_stats {
	u64 pc_hits;
	u64 pc_misses;
	u64 ra_hits;
	u64 ra_misses;
	u64 ra_loop;
};

struct uwprof_cpu_stats {
	/* taken: the sum of stop[], each sample taken counts one stop */
	u64 dropped_full;
	u64 dropped_not32;
	u64 kernel_context;
	u64 handler_ns_sum;
	u64 handler_ns_max;
	u64 stop[UWPROF_STOP_SLOTS];
	u64 frames;
	u64 bytes;
	u64 deferred;
	u64 deferred_failed;
	u64 followed;
	u64 dropped_exec;
};

/*
 * Most bytes of user stack copied per miss of the handler's stack cache
 * (uw2_view_fill(): from the missed word's 64-byte line, past a 4 KiB
 * boundary only up to the view's top).  make bench-unwind's real lua
 * stacks needed 1.82 copies, 2.4 KB, per sample (2.71 copies, 2.3 KB,
 * with 1 KiB), against 1.84 whole pages (7.5 KB) before, with copies
 * ending at the page; docs/UNWIND-COST.md has the trade-off per size.
 */
#define UWPROF_STACK_LINE	2048

/*
 * Most bytes of the first copy, at sp, which reaches up to where the
 * thread's last walk ended (struct uw2_view's top) when that lies above:
 * in one copy, not two.  Later copies take UWPROF_STACK_LINE, so one
 * sample copies at most 2 KiB more than before.  Made before the walk
 * only without direct loads (unwind_v2_user.h: an sp past TASK_SIZE).
 */
#define UWPROF_STACK_FIRST	4096

/*
 * Most such copies per sample (130 KiB, the first one's 4 KiB included):
 * a hostile table's vsp can leap about the window, so copies are bounded
 * apart from opcodes; real samples make one to three.
 */
#define UWPROF_STACK_FILLS	64

/*
 * The handler's unwind scratch, per CPU (sampler.c): 94 KB on 32-bit ARM,
 * 107 KB on arm64, most of it the lookup cache (docs/UNWIND-COST.md).
 */
struct uwprof_unwind_scratch {
	struct uw2_cache lookups;	/* kept from sample to sample */
	struct uw2_view view;		/* what line holds, per sample */
	/*
	 * The task of the last unwind here: while the same one is sampled,
	 * view.top is where its walk ended, and copies end there too.
	 */
	const struct task_struct *top_task;
	u8 line[UWPROF_STACK_FIRST] __aligned(8);
};

/* Scratch the handler needs per CPU: the unwind's, frames. */
struct uwprof_cpu {
	struct uwprof_ring ring;
	struct u64_stats_sync syncp;	/* 64-bit counters on 32-bit CPUs */
	struct uwprof_cpu_stats stats;
	/*
	 * Lookups folded from the cache's 32-bit counts (sampler.c): a
	 * seqcount of their own, as the fold and the counts still in the
	 * cache must be read together on 64-bit CPUs too, where syncp is
	 * empty.
	 */
	seqcount_t lookups_seq;
	struct uwprof_lookup_stats lookups;
	struct perf_event *event;
	struct uwprof_unwind_scratch *unwind;
	u32 *frames;
	struct uwprof_proc *last_proc;	/* found by the last sample here */
	u32 last_gen;			/* the procs_gen it was found under */
};

/*
 * One more of a CPU's counters, on that CPU with interrupts off: the
 * write section holds the increment alone, as readers spin while it runs.
 */
static inline void uwprof_count(struct uwprof_cpu *c, u64 *counter)
{
	u64_stats_update_begin(&c->syncp);
	(*counter)++;
	u64_stats_update_end(&c->syncp);
}

/*
 * The samples' clock: a record's time_ns and the handler's time.
 * CLOCK_MONOTONIC as perf reads it for events with that clockid (the
 * recorder's sideband, record/sideband.c): the same clock, so the two
 * sort together, and NMI-safe, with no seqcount retry or suspend check
 * (docs/UNWIND-COST.md, sixth pass).
 */
static inline u64 uwprof_now(void)
{
	return ktime_get_mono_fast_ns();
}

/*
 * Tasks that never run user code.  PF_IO_WORKER: io_uring's workers (5.12
 * and later), PF_USER_WORKER: every such worker of a process (6.4 and
 * later); they share the process's mm but have no user context.
 */
#ifndef PF_IO_WORKER
#define PF_IO_WORKER		0
#endif
#ifndef PF_USER_WORKER
#define PF_USER_WORKER		0
#endif
#define UWPROF_NO_USER_CODE	(PF_KTHREAD | PF_IO_WORKER | PF_USER_WORKER)

/* A sample handed from the interrupt to the task's own context. */
struct uwprof_defer {
	struct callback_head work;
	struct uwprof_session *s;
	/* whose sample it is, while queued: followed only under RCU */
	struct task_struct *task;
	struct uw2_regs regs;
	const struct mm_struct *mm;	/* the image sampled; never read */
	u64 time_ns;
	u64 last_ns;	/* of the last sample the slot counted */
	u16 extra;	/* samples counted in the slot after the first */
	u16 cpu;
	bool in_kernel;
	bool thumb;
	bool inherited;	/* taken by an event the task inherited */
	/* last, not copied with the sample: queued at close, once (follow.c) */
	struct callback_head kick;
};

#define UWPROF_DEFER_SLOTS	128

/* Everything one open file owns. */
struct uwprof_session {
	refcount_t ref;			/* the file, and each queued defer */
	bool closed;			/* the file is gone: defers only drop */
	struct mutex lock;		/* ioctls, teardown: order in session.c */
	struct xarray tables;		/* id -> struct uwprof_table */
	u32 next_table_id;
	u64 table_bytes;
	bool retiring;			/* freed soon, its tables to be kept */
	bool retired_waited;		/* its first upload waited for those */
	struct xarray procs;		/* tgid -> struct uwprof_proc */
	u32 procs_gen;			/* changes with every store or erase */
	struct uwprof_proc *graveyard;	/* unlinked, freed after a grace period */
	struct rcu_work free_work;	/* the session's own, after the last put */
	struct pid_namespace *pid_ns;
	struct uwprof_cpu __percpu *cpu;
	u32 max_depth;
	u32 stack_window;
	bool sampling;
	bool per_task;			/* events follow threads, not CPUs */
	/*
	 * The sampler's hook, set while it samples (under s->lock): a
	 * process ATTACH added gets its per-task events.  registry.c calls
	 * it, as it may not call sampler.c, which sits above it.
	 */
	int (*proc_attached)(struct uwprof_session *s, struct uwprof_proc *p);
	u32 freq_hz;
	struct hlist_node cpuhp_node;	/* per-CPU mode: CPUs that come and go */
	bool cpuhp_added;
	struct perf_event **task_events;	/* per-task mode */
	u32 n_task_events;
	struct irq_work wakeup_work;	/* a ring passed wakeup_bytes */
	struct timer_list flush_timer;	/* every wakeup_ms while sampling */
	u32 wakeup_bytes;
	u32 wakeup_ms;
	wait_queue_head_t readers;
	struct mutex read_lock;		/* one reader drains at a time */
	int read_first;			/* the CPU a read drains first */
	struct delayed_work reap_work;
	/* process tracking (follow.c) */
	bool inherit;			/* UWPROF_START_INHERIT */
	bool follow_all;		/* UWPROF_START_ALL */
	u32 n_bid_tables;		/* tables uploaded by build-id */
	u32 table_gen;			/* bumped by each such upload */
	u32 anon_frames;		/* uwprof_start.anon_frames */
	const struct cred *cred;	/* the opener's, to judge followers */
	struct file *file;		/* the open file: valid in ioctls only */
	bool cap_ptrace;		/* the opener had CAP_SYS_PTRACE */
	struct uwprof_defer *defer;	/* UWPROF_DEFER_SLOTS slots */
	unsigned long defer_busy[BITS_TO_LONGS(UWPROF_DEFER_SLOTS)];
};

/* chardev.c */
int uwprof_chardev_init(void);
void uwprof_chardev_exit(void);

/* session.c: the session's lifetime */
struct uwprof_session *uwprof_session_create(struct file *file);
void uwprof_session_close(struct uwprof_session *s);
void uwprof_session_get(struct uwprof_session *s);
void uwprof_session_put(struct uwprof_session *s);

/* tablemem.c: table memory of all files, validated blobs kept */
bool uwprof_tables_charge(u64 bytes);
void uwprof_tables_uncharge(u64 bytes);
bool uwprof_tables_kept_take(const struct cred *owner,
			     const void __user *src, u32 size,
			     struct uwprof_table *t);
void uwprof_tables_keep(const struct cred *owner, struct uwprof_table *t);
void uwprof_tables_kept_trim(bool all);
u64 uwprof_tables_kept_bytes(void);
int uwprof_tablemem_module_init(void);
void uwprof_tablemem_module_exit(void);

/* registry.c: tables and attachments */
void uwprof_registry_init(struct uwprof_session *s);
void uwprof_registry_free(struct uwprof_session *s);
void uwprof_registry_retiring(struct uwprof_session *s);
long uwprof_ioctl_table_upload(struct uwprof_session *s, void __user *arg);
long uwprof_ioctl_attach(struct uwprof_session *s, void __user *arg);
long uwprof_ioctl_detach(struct uwprof_session *s, void __user *arg);
long uwprof_ioctl_list(struct uwprof_session *s, void __user *arg);
void uwprof_reap_dead(struct uwprof_session *s);
void uwprof_registry_held(struct uwprof_session *s, u64 *procs, u64 *bytes);
struct uwprof_proc *uwprof_proc_of_current(struct uwprof_session *s,
					   struct uwprof_cpu *c);
bool uwprof_may_follow_current(struct uwprof_session *s);
struct uwprof_proc *uwprof_proc_for_mm(struct uwprof_session *s, u32 tgid,
				       u32 user_pid, struct mm_struct *mm,
				       u64 start_time, bool ignored,
				       bool *fresh);
int uwprof_mods_update(struct uwprof_session *s, struct uwprof_proc *p,
		       const struct uw2_module *add, u32 nadd, bool drop,
		       u32 drop_start);
bool uwprof_mod_live(const struct uw2_module *m);
bool uwprof_mod_attached(const struct uw2_module *m);
/* Does @m overlap one of @add[0..@nadd)? */
bool uwprof_mod_overlaps(const struct uw2_module *m,
			 const struct uw2_module *add, u32 nadd);
struct uwprof_mmwatch *uwprof_proc_watch_new(struct mm_struct *mm);
int uwprof_proc_watch(struct uwprof_proc *p, struct uwprof_mmwatch **w);

/* mmwatch.c: its owner is told when a range of an mm is unmapped */
struct uwprof_mmwatch_ops {
	/* [@start, @end) is being unmapped; may neither sleep nor allocate */
	void (*unmapped)(void *owner, unsigned long start, unsigned long end);
};

struct uwprof_mmwatch *uwprof_mmwatch_new(struct mm_struct *mm,
					  const struct uwprof_mmwatch_ops *ops);
void uwprof_mmwatch_own(struct uwprof_mmwatch *w, void *owner);
size_t uwprof_mmwatch_bytes(const struct uwprof_mmwatch *w);
void uwprof_mmwatch_unlink(struct uwprof_mmwatch *w);
void uwprof_mmwatch_free(struct uwprof_mmwatch *w);

/* buildid.c: what the module reads of an executable file mapping */
struct uwprof_elf_map {
	u32 build_id_size;
	u8 build_id[UWPROF_BUILD_ID_MAX];
	u32 seg_vaddr;		/* the executable PT_LOAD mapped there */
	u32 seg_offset;
};

int uwprof_elf_map_info(struct file *file, u64 map_off, u64 map_len,
			struct uwprof_elf_map *out);
int uwprof_elf_user_info(unsigned long start, u64 len,
			 struct uwprof_elf_map *out);
u32 uwprof_map_bias(const struct uwprof_elf_map *e, u32 map_start,
		    u64 map_off);

/* follow.c: following processes, deferred samples */
bool uwprof_follow_wanted(struct uwprof_session *s, bool inherited);
bool uwprof_inherits_events(struct uwprof_session *s, u32 tgid);
bool uwprof_defer_stop_wanted(struct uwprof_session *s,
			      struct uwprof_proc *p, enum uw2_stop stop,
			      const u32 *frames, u32 nframes);

/*
 * In the interrupt: would task context finish this unwind better?  Only
 * after a read fault, a JIT chain or code without a table; the unwinds
 * that end otherwise, nearly all, are told so here without a call.
 */
static inline bool uwprof_defer_wanted(struct uwprof_session *s,
				       struct uwprof_proc *p,
				       enum uw2_stop stop, const u32 *frames,
				       u32 nframes)
{
	if (stop != UW2_STOP_READ_FAULT && stop != UW2_STOP_JIT_CHAIN &&
	    stop != UW2_STOP_NO_TABLE)
		return false;
	return uwprof_defer_stop_wanted(s, p, stop, frames, nframes);
}

bool uwprof_defer(struct uwprof_session *s, const struct uw2_regs *regs,
		  bool in_kernel, bool thumb, bool inherited);
void uwprof_defer_kick_all(struct uwprof_session *s);

/* uarg.c: ioctl arguments */
int uwprof_copy_arg(void *dst, size_t dst_size, void __user *src);

/* workq.c: the module's workqueue */
int uwprof_workq_module_init(void);
void uwprof_workq_module_exit(void);
void uwprof_free_after_gp(struct rcu_work *rw, work_func_t fn);
void uwprof_frees_flush(void);
void uwprof_queue_work(struct work_struct *work);

/* ringbuf.c: records */
struct uwprof_rec_info {
	u32 pid;
	u32 tid;
	u64 time_ns;
	u16 cpu;
	u8 flags;		/* UWPROF_RF_* */
	u8 stop;		/* enum uw2_stop */
	u32 nframes;
	const u32 *frames;
	struct uwprof_record *rec;	/* reserved, or NULL */
};

/*
 * current's thread id in the opener's pid namespace; in the initial one,
 * where most sessions are, without the namespace walk, in the handler.
 */
static inline u32 uwprof_tid(const struct uwprof_session *s)
{
	if (s->pid_ns == &init_pid_ns)
		return current->pid;
	return task_pid_nr_ns(current, s->pid_ns);
}

struct uwprof_record *uwprof_rec_reserve(struct uwprof_cpu *c, u32 max_frames);
u64 uwprof_deliver(struct uwprof_session *s, struct uwprof_cpu *c,
		   const struct uwprof_rec_info *ri, u64 t0);
int uwprof_rings_alloc(struct uwprof_session *s, u32 bytes_per_cpu);
void uwprof_rings_free(struct uwprof_session *s);
void *uwprof_ring_reserve(struct uwprof_ring *r, u32 len);
void uwprof_ring_commit(struct uwprof_session *s, struct uwprof_ring *r,
			u32 len);
ssize_t uwprof_read(struct uwprof_session *s, char __user *buf, size_t len,
		    bool nonblock);
bool uwprof_rings_empty(struct uwprof_session *s);
void uwprof_readers_init(struct uwprof_session *s);
void uwprof_readers_sync(struct uwprof_session *s);
void uwprof_flush_start(struct uwprof_session *s);
void uwprof_flush_stop(struct uwprof_session *s);

/* pmu.c: the sampling clock */
typedef u64 (*uwprof_tick_t)(struct perf_event *event, struct pt_regs *regs);
void uwprof_pmu_attr(struct perf_event_attr *attr, u64 period_ns);
struct perf_event *uwprof_pmu_cpu_event(struct perf_event_attr *attr,
					int cpu, void *context);
struct perf_event *uwprof_pmu_task_event(struct perf_event_attr *attr,
					 struct task_struct *task,
					 void *context);
int uwprof_pmu_module_init(uwprof_tick_t tick);
void uwprof_pmu_module_exit(void);

/* sampler.c */
int uwprof_sampler_module_init(void);
void uwprof_sampler_module_exit(void);
long uwprof_ioctl_start(struct uwprof_session *s, void __user *arg);
long uwprof_ioctl_stop(struct uwprof_session *s);
void uwprof_sampler_stop(struct uwprof_session *s);
long uwprof_ioctl_stats(struct uwprof_session *s, void __user *arg);

#endif /* UWPROF_MOD_H */
