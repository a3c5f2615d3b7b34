// SPDX-License-Identifier: GPL-2.0
/*
 * The sampler: one perf event per online CPU, or, per task, one inherited
 * event per thread of each attached process, all of the module's own PMU
 * (pmu.c: a timer of the CPU's time, or of the task's while it runs).  The
 * tick (uwprof_tick()) runs in hard interrupt context on the CPU that was
 * interrupted; if the task there belongs to an attached process, it takes
 * the task's user registers, unwinds its user stack with the process's
 * tables and appends one record to that CPU's ring.
 *
 * The handler never sleeps, allocates or takes the mmap lock: the process
 * entry is found under RCU, and the stack is read a line at a time
 * (UWPROF_STACK_LINE bytes) with page faults disabled into a per-CPU
 * buffer, so a page that is not resident ends the unwind as a read fault
 * instead of faulting it in.  Lookups go through a per-CPU cache that
 * outlives the sample; uw2_unwind_cached() uses an entry only under the
 * tag of the module array it was filled from (struct uwprof_mods).
 * Samples it cannot finish (a process to follow, code not examined yet, a
 * page not resident) it hands to the task's own context (follow.c).
 *
 * This file owns the perf events (per CPU in struct uwprof_cpu, per task
 * in s->task_events): made at START, released at STOP or when the file is
 * closed, under s->lock; cpus_read_lock() and perf's locks nest inside it
 * (session.c has the whole order), and the hotplug callbacks take no lock
 * of the session's.  While it samples it sets s->proc_attached, the hook
 * through which ATTACH (registry.c, below this file) has a new process
 * followed per task.
 */
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/ktime.h>
#include <linux/overflow.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "uwprof_arch.h"
#include "uwprof_mod.h"

#define UWPROF_FREQ_MAX		10000

/* The hotplug state of per-CPU sampling (uwprof_sampler_module_init()). */
static enum cpuhp_state uwprof_cpuhp;

/*
 * What copy_from_user_nofault() does, without its check of the kernel
 * destination (hardened usercopy), which costs a slab lookup per copy and
 * would take a spinlock, in an interrupt, for vmalloc memory: the
 * destination is the handler's own line buffer, len at most
 * UWPROF_STACK_FIRST (uw2_view_fill()).
 */
static int uwprof_copy_line(void *ctx, void *dst, u32 src, u32 len)
{
	const void __user *from = (const void __user *)(unsigned long)src;
	unsigned long left;
#ifdef CONFIG_SET_FS
	/*
	 * A kernel with set_fs() (5.10): the interrupted code may have
	 * raised the address limit, and access_ok() would then pass kernel
	 * addresses.  The user limit for the copy, as the nofault helpers do.
	 */
	mm_segment_t old_fs = force_uaccess_begin();
#endif

	left = len;
	if (access_ok(from, len)) {
		pagefault_disable();
		left = raw_copy_from_user(dst, from, len);
		pagefault_enable();
	}
#ifdef CONFIG_SET_FS
	force_uaccess_end(old_fs);
#endif
	return left ? -EFAULT : 0;
}

/*
 * uw2_stack reader, called only for words outside the line in the view:
 * copies the aligned UWPROF_STACK_LINE bytes holding @addr.  The unwinder
 * reads the words of the line itself, without calling here.
 */
static int uwprof_stack_read(void *ctx, u32 addr, u32 *val)
{
	struct uwprof_unwind_scratch *u = ctx;

	return uw2_view_fill(&u->view, u->line, UWPROF_STACK_LINE, addr, val,
			     uwprof_copy_line, NULL);
}

/*
 * A sample taken in the kernel whose saved pc may lie past a VFP
 * instruction that has not run yet (uwprof_arch.h): refused, as the rows
 * there would read the frame off.  A pc whose code cannot be read is
 * unwound: the trapped instruction was just fetched, so its page is
 * there.  follow.c checks a deferred sample the same way.
 */
static bool uwprof_pc_maybe_ahead(const struct uw2_regs *regs, bool thumb)
{
	u32 insn;

	if (!UWPROF_ARCH_VFP_TRAPS)
		return false;
	if (uwprof_copy_line(NULL, &insn, (regs->r[UW2_PC] & ~1u) - 4, 4))
		return false;
	return uwprof_arch_vfp_moves_sp(insn, thumb);
}

/*
 * The user registers of current; *in_kernel when it was not in user mode.
 * Inline: a call here costs the sample path a spill of its locals.
 */
static __always_inline void uwprof_user_regs(struct pt_regs *regs,
					     struct uw2_regs *out,
					     bool *in_kernel, bool *thumb)
{
	*in_kernel = !user_mode(regs);
	if (*in_kernel)
		regs = task_pt_regs(current);
	*thumb = uwprof_arch_regs(regs, out);
}

/*
 * The lookups the cache counted in 32 bits (unwind_v2.h), moved into the
 * CPU's 64-bit counters once every UWPROF_FOLD_WALKS walks: a walk makes
 * at most 257 lookups, so no count wraps in between, and the samples in
 * between pay one compare.  STATS adds what is still in the cache
 * (uwprof_lookups_add()).
 */
#define UWPROF_FOLD_WALKS	65536

static void uwprof_fold_lookups(struct uwprof_cpu *c,
				struct uw2_cache_counts *n)
{
	struct uwprof_lookup_stats *l = &c->lookups;

	/* the handler: interrupts off, the CPU's only writer */
	raw_write_seqcount_begin(&c->lookups_seq);
	l->pc_hits += uw2_counts_pc_hits(n);
	l->pc_misses += n->pc_misses;
	l->ra_hits += uw2_counts_ra_hits(n);
	l->ra_misses += n->ra_misses;
	l->ra_loop += n->ra_loop;
	*n = (struct uw2_cache_counts){ 0 };
	raw_write_seqcount_end(&c->lookups_seq);
}

static u32 uwprof_unwind(struct uwprof_session *s, struct uwprof_cpu *c,
			 struct uwprof_proc *p, struct uw2_regs *regs,
			 bool in_kernel, u32 *frames, enum uw2_stop *stop)
{
	struct uwprof_mods *mods = rcu_dereference(p->mods);
	/* in a local: the stores below could alias c->unwind */
	struct uwprof_unwind_scratch *u = c->unwind;
	u32 sp = regs->r[UW2_SP], nframes = 0;
	struct uw2_stack stack = {
		.lo = sp,
		.hi = sp + s->stack_window < sp ? 0xfffffffc :
		      sp + s->stack_window,
		.read = uwprof_stack_read,
		.ctx = u,
		.view = &u->view,
	};

	u32 word;

	/*
	 * The unwinder loads the words it reads in place (unwind_v2_user.h;
	 * on 32-bit ARM, loads that check no address): only in a window
	 * below TASK_SIZE, where no user stack word lies above anyway.
	 */
	if (sp < TASK_SIZE) {
		if (stack.hi > TASK_SIZE)
			stack.hi = TASK_SIZE;
		stack.direct = true;
	}
	u->view.len = 0;	/* the stack changed since: nothing held */
	u->view.fills_left = UWPROF_STACK_FILLS;
	/*
	 * A thread's outermost frames stay where they are from sample to
	 * sample: its last walk's final sp is where this one likely ends,
	 * and the copies reach up to it, across a page boundary too, and
	 * not past it.  Another thread's is no guide.
	 */
	if (u->top_task != current) {
		u->top_task = current;
		u->view.top = 0;
	}
	/*
	 * Without direct loads (an sp past TASK_SIZE), the line at sp now,
	 * as the copies' reader would take it: a failed copy leaves the view
	 * empty, and the unwinder meets the fault itself.  With them, lines
	 * are copied only for what a load cannot give.
	 */
	if (!stack.direct)
		uw2_view_fill(&u->view, u->line, UWPROF_STACK_FIRST, sp,
			      &word, uwprof_copy_line, NULL);
	/* 0 without modules: no entry is used, none is filled */
	u->lookups.gen = mods ? READ_ONCE(mods->tag) : 0;
	*stop = uw2_unwind_cached(mods ? mods->mod : NULL, mods ? mods->n : 0,
				  regs, &stack, frames, s->max_depth,
				  &nframes, (mods ? mods->uw2_flags : 0) |
				  UW2_F_FRAMES_ONLY |
				  (in_kernel ? UW2_F_KERNEL_REGS : 0),
				  &u->lookups);
	if (unlikely(u->lookups.counts.walks >= UWPROF_FOLD_WALKS))
		uwprof_fold_lookups(c, &u->lookups.counts);
	u->view.top = regs->r[UW2_SP];
	return nframes;
}

/*
 * Sample current, interrupted at @t0 (the sample's time); returns when
 * the handler's work for it ended, or 0 if it wrote no record (whose
 * delivery counts the handler's time).
 */
static u64 uwprof_sample(struct uwprof_session *s, struct uwprof_cpu *c,
			 struct uwprof_proc *p, struct pt_regs *regs, u64 t0)
{
	/* filled before use; not zeroed first (INIT_STACK_ALL_ZERO) */
	struct uw2_regs uregs __uninitialized;
	struct uwprof_rec_info ri __uninitialized;
	bool in_kernel, thumb;
	enum uw2_stop stop;
	u32 nframes, *frames;

	uwprof_user_regs(regs, &uregs, &in_kernel, &thumb);
	/* in exec past the new image's mm: the user registers are the old one's */
	if (in_kernel && current->in_execve) {
		uwprof_count(c, &c->stats.dropped_exec);
		return 0;
	}
	/*
	 * Into the ring's record, where it fits: the frames are not copied
	 * again.  Else into c->frames, and the record is tried again with
	 * its real length.
	 */
	ri.rec = uwprof_rec_reserve(c, s->max_depth);
	frames = ri.rec ? ri.rec->frames : c->frames;
	if (unlikely(in_kernel && uwprof_pc_maybe_ahead(&uregs, thumb))) {
		frames[0] = uregs.r[UW2_PC] & ~1u;
		nframes = 1;
		stop = UW2_STOP_REFUSED;
	} else {
		nframes = uwprof_unwind(s, c, p, &uregs, in_kernel, frames,
					&stop);
	}
	/* code not resolved yet, or a stack page not resident: task context */
	if (uwprof_defer_wanted(s, p, stop, frames, nframes)) {
		uwprof_user_regs(regs, &uregs, &in_kernel, &thumb);
		if (uwprof_defer(s, &uregs, in_kernel, thumb, false))
			return 0;
	}
	if (nframes && thumb)
		frames[0] |= 1;	/* frames keep the Thumb bit, as lr does */
	/* member by member: a compound literal would be zeroed first */
	ri.pid = p->user_pid;
	ri.tid = uwprof_tid(s);
	ri.time_ns = t0;
	ri.cpu = smp_processor_id();
	ri.flags = in_kernel ? UWPROF_RF_KERNEL : 0;
	ri.stop = stop;
	ri.nframes = nframes;
	ri.frames = frames;
	return uwprof_deliver(s, c, &ri, t0);
}

/*
 * A thread of a process the session should follow but does not yet.
 * @inherited: the event is one the thread inherited (per-task mode).
 */
static void uwprof_sample_unfollowed(struct uwprof_session *s,
				     struct uwprof_cpu *c,
				     struct pt_regs *regs, bool inherited)
{
	struct uw2_regs uregs;
	bool in_kernel, thumb;

	if (!uwprof_follow_wanted(s, inherited))
		return;
	uwprof_user_regs(regs, &uregs, &in_kernel, &thumb);
	if (!uwprof_defer(s, &uregs, in_kernel, thumb, inherited))
		uwprof_count(c, &c->stats.deferred_failed);
}

/*
 * An event's tick (pmu.c), in the interrupt.  Returns the time it last
 * read, which the timer is forwarded from, or 0 when it read none.
 */
static u64 uwprof_tick(struct perf_event *event, struct pt_regs *regs)
{
	struct uwprof_session *s = event->overflow_handler_context;
	struct uwprof_cpu *c = this_cpu_ptr(s->cpu);
	struct uwprof_proc *p;
	u64 t0, now = 0;

	/*
	 * Threads that never run user code: kernel threads, and the kernel's
	 * workers of a user process (io_uring's), which share its mm but
	 * have no user registers of their own to unwind.
	 */
	if ((current->flags & UWPROF_NO_USER_CODE) || !current->mm)
		return 0;
	t0 = uwprof_now();
	rcu_read_lock();
	p = uwprof_proc_of_current(s, c);
	if (p && p->ignored) {
		/* a process the opener may not read: not sampled */
	} else if (p && !uwprof_arch_task_is_32bit(current)) {
		/* AArch64 code has no v2 tables: count it, never misread it */
		uwprof_count(c, &c->stats.dropped_not32);
	} else if (p) {
		now = uwprof_sample(s, c, p, regs, t0);
		if (!now) {
			/* no record written, which would have counted it */
			now = uwprof_now();
			/* only the counters in the write section */
			u64_stats_update_begin(&c->syncp);
			c->stats.handler_ns_sum += now - t0;
			if (now - t0 > c->stats.handler_ns_max)
				c->stats.handler_ns_max = now - t0;
			u64_stats_update_end(&c->syncp);
		}
	} else if (s->inherit || s->follow_all) {
		uwprof_sample_unfollowed(s, c, regs, !!event->parent);
	}
	rcu_read_unlock();
	return now;
}

static void uwprof_events_release(struct uwprof_session *s)
{
	int cpu;
	u32 i;

	/* no hotplug callback for @s after this: the events are ours */
	if (s->cpuhp_added) {
		cpuhp_state_remove_instance_nocalls(uwprof_cpuhp,
						    &s->cpuhp_node);
		s->cpuhp_added = false;
	}
	/* Each release cancels the timer and waits for a running handler. */
	for_each_possible_cpu(cpu) {
		struct uwprof_cpu *c = per_cpu_ptr(s->cpu, cpu);

		if (c->event) {
			perf_event_release_kernel(c->event);
			c->event = NULL;
		}
	}
	/* Releasing a task's event releases what its new threads inherited. */
	for (i = 0; i < s->n_task_events; i++)
		perf_event_release_kernel(s->task_events[i]);
	kfree(s->task_events);
	s->task_events = NULL;
	s->n_task_events = 0;
}

/* @s's event on @cpu, unless it has one.  Hotplug excluded. */
static int uwprof_event_create(struct uwprof_session *s, unsigned int cpu)
{
	struct uwprof_cpu *c = per_cpu_ptr(s->cpu, cpu);
	struct perf_event_attr attr;
	struct perf_event *ev;

	if (c->event)
		return 0;
	uwprof_pmu_attr(&attr, NSEC_PER_SEC / s->freq_hz);
	attr.pinned = 1;
	ev = uwprof_pmu_cpu_event(&attr, cpu, s);
	if (IS_ERR(ev))
		return PTR_ERR(ev);
	c->event = ev;
	return 0;
}

/*
 * CPU hotplug, per CPU: a CPU that comes online while a session samples
 * gets its event, and one going down gives its event up, so that sampling
 * resumes when it comes back.  The callbacks run in the hotplug thread,
 * which may sleep; they take no lock of the session's (s->lock ranks above
 * the hotplug lock: START and STOP take it inside s->lock).
 */

static int uwprof_cpu_online(unsigned int cpu, struct hlist_node *node)
{
	struct uwprof_session *s = hlist_entry(node, struct uwprof_session,
					       cpuhp_node);

	/* a CPU that cannot be sampled is no reason to keep it offline */
	if (uwprof_event_create(s, cpu))
		pr_warn_ratelimited("uwprof: no sampling on CPU %u\n", cpu);
	return 0;
}

static int uwprof_cpu_offline(unsigned int cpu, struct hlist_node *node)
{
	struct uwprof_session *s = hlist_entry(node, struct uwprof_session,
					       cpuhp_node);
	struct uwprof_cpu *c = per_cpu_ptr(s->cpu, cpu);

	if (c->event) {
		perf_event_release_kernel(c->event);
		c->event = NULL;
	}
	return 0;
}

int uwprof_sampler_module_init(void)
{
	int ret = uwprof_pmu_module_init(uwprof_tick);

	if (ret)
		return ret;
	ret = cpuhp_setup_state_multi(CPUHP_AP_ONLINE_DYN, "uwprof:online",
				      uwprof_cpu_online, uwprof_cpu_offline);
	if (ret < 0) {
		uwprof_pmu_module_exit();
		return ret;
	}
	uwprof_cpuhp = ret;
	return 0;
}

void uwprof_sampler_module_exit(void)
{
	cpuhp_remove_multi_state(uwprof_cpuhp);
	uwprof_pmu_module_exit();
}

/*
 * Per CPU: the hotplug instance first, so that a CPU coming online from
 * then on gets its event from the callback, then the CPUs online now.
 */
static int uwprof_events_create(struct uwprof_session *s)
{
	int cpu, ret;

	ret = cpuhp_state_add_instance_nocalls(uwprof_cpuhp, &s->cpuhp_node);
	if (ret)
		return ret;
	s->cpuhp_added = true;
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		ret = uwprof_event_create(s, cpu);
		if (ret)
			break;
	}
	cpus_read_unlock();
	return ret;
}

/*
 * The leader of @p's process, if it is still that process: a pid is
 * reused once its process is reaped, and the start time and mm tell the
 * new one apart.  Under rcu_read_lock().
 */
static struct task_struct *uwprof_leader(const struct uwprof_proc *p)
{
	struct task_struct *leader;

	leader = pid_task(find_pid_ns(p->tgid, &init_pid_ns), PIDTYPE_PID);
	if (!leader || leader->start_time != p->start_time ||
	    READ_ONCE(leader->mm) != p->mm)
		return NULL;
	return leader;
}

/* References to the threads of @p's process, at most @max; how many. */
static u32 uwprof_threads(const struct uwprof_proc *p,
			  struct task_struct **out, u32 max)
{
	struct task_struct *leader, *t;
	u32 n = 0;

	rcu_read_lock();
	leader = uwprof_leader(p);
	if (leader)
		for_each_thread(leader, t) {
			if (n == max)
				break;
			get_task_struct(t);
			out[n++] = t;
		}
	rcu_read_unlock();
	return n;
}

static u32 uwprof_thread_count(const struct uwprof_proc *p)
{
	struct task_struct *leader;
	u32 n = 0;

	rcu_read_lock();
	leader = uwprof_leader(p);
	if (leader)
		n = get_nr_threads(leader);
	rcu_read_unlock();
	return n;
}

/*
 * Per-task mode: an inherited event of pmu.c on every thread of @p's
 * process.  Threads it creates later inherit the event of the thread that
 * creates them; its child processes only with START_INHERIT, where the
 * kernel can tell them apart (inherit_thread, 5.13 and later).  A thread
 * that exits meanwhile is skipped.  Called with s->lock.
 */
static int uwprof_follow_process(struct uwprof_session *s,
				 struct uwprof_proc *p)
{
	u32 room = uwprof_thread_count(p) + 8, n, i;
	u32 first = s->n_task_events;
	struct task_struct **tasks;
	struct perf_event **evs, *ev;
	struct perf_event_attr attr;
	int ret = 0;

	tasks = kcalloc(room, sizeof(*tasks), GFP_KERNEL);
	/* krealloc_array() is 5.12 and later; array_size() saturates */
	evs = krealloc(s->task_events,
		       array_size(s->n_task_events + room, sizeof(*evs)),
		       GFP_KERNEL_ACCOUNT);
	if (evs)
		s->task_events = evs;
	if (!tasks || !evs) {
		kfree(tasks);
		return -ENOMEM;
	}
	uwprof_pmu_attr(&attr, NSEC_PER_SEC / s->freq_hz);
	attr.inherit = 1;
#ifdef PERF_ATTR_SIZE_VER7	/* 5.13, with inherit_thread */
	attr.inherit_thread = !s->inherit;
#endif
	/* before: a child forked meanwhile may inherit them */
	p->events_ns = ktime_get_ns();
	n = uwprof_threads(p, tasks, room);
	for (i = 0; i < n; i++) {
		ev = uwprof_pmu_task_event(&attr, tasks[i], s);
		if (!IS_ERR(ev))
			s->task_events[s->n_task_events++] = ev;
		else if (PTR_ERR(ev) != -ESRCH && !ret)
			ret = PTR_ERR(ev);
		put_task_struct(tasks[i]);
	}
	kfree(tasks);
	/*
	 * All threads or none: a process followed in part would lose
	 * samples uncounted, and following it again would sample some
	 * threads twice.
	 */
	while (ret && s->n_task_events > first)
		perf_event_release_kernel(s->task_events[--s->n_task_events]);
	if (ret)
		p->events_ns = 0;
	return ret;
}

/*
 * Do a per-task session's child processes inherit their parent's events?
 * With START_INHERIT, and on kernels that cannot inherit to threads alone.
 */
static bool uwprof_children_inherit(struct uwprof_session *s)
{
#ifdef PERF_ATTR_SIZE_VER7
	return s->inherit;
#else
	return true;
#endif
}

/*
 * s->proc_attached while sampling: a process attached while sampling per
 * task is followed too; if it cannot be, the attach fails.  Called with
 * s->lock held.
 */
static int uwprof_sampler_follow(struct uwprof_session *s,
				 struct uwprof_proc *p)
{
	if (!s->sampling || !s->per_task || p->ignored ||
	    (uwprof_children_inherit(s) && uwprof_inherits_events(s, p->tgid)))
		return 0;
	return uwprof_follow_process(s, p);
}

/*
 * Per task, at START: the attached processes.  Entries a run before
 * marked ignored (the opener may not read them) get no events.
 */
static int uwprof_follow_all(struct uwprof_session *s)
{
	struct uwprof_proc *p;
	unsigned long tgid;
	int ret = 0;

	xa_for_each(&s->procs, tgid, p)
		if (!ret && !p->ignored)
			ret = uwprof_follow_process(s, p);
	return ret;
}

long uwprof_ioctl_start(struct uwprof_session *s, void __user *arg)
{
	struct uwprof_start st;
	long ret;

	ret = uwprof_copy_arg(&st, sizeof(st), arg);
	if (ret)
		return ret;
	if ((st.flags & ~(UWPROF_START_PER_TASK | UWPROF_START_INHERIT |
			  UWPROF_START_ALL)) ||
	    st.anon_frames >= UWPROF_FRAMES_NR ||
	    !st.freq_hz || st.freq_hz > UWPROF_FREQ_MAX)
		return -EINVAL;
	/* per-task timers follow known threads: they cannot find new ones */
	if ((st.flags & UWPROF_START_ALL) && (st.flags & UWPROF_START_PER_TASK))
		return -EINVAL;
	mutex_lock(&s->lock);
	if (s->sampling) {
		ret = -EBUSY;
	} else {
		s->freq_hz = st.freq_hz;
		s->per_task = st.flags & UWPROF_START_PER_TASK;
		s->inherit = st.flags & UWPROF_START_INHERIT;
		s->follow_all = st.flags & UWPROF_START_ALL;
		/* anonymous code examined under another kind: look again */
		if (st.anon_frames != s->anon_frames)
			WRITE_ONCE(s->table_gen, s->table_gen + 1);
		WRITE_ONCE(s->anon_frames, st.anon_frames);
		ret = s->per_task ? uwprof_follow_all(s) :
				    uwprof_events_create(s);
		if (ret)
			uwprof_events_release(s);
		s->sampling = !ret;
		if (s->sampling) {
			s->proc_attached = uwprof_sampler_follow;
			uwprof_flush_start(s);
		}
	}
	mutex_unlock(&s->lock);
	return ret;
}

/* Called with s->lock held, or at teardown. */
void uwprof_sampler_stop(struct uwprof_session *s)
{
	if (!s->sampling)
		return;
	uwprof_events_release(s);
	s->proc_attached = NULL;
	WRITE_ONCE(s->sampling, false);
	uwprof_flush_stop(s);
}

long uwprof_ioctl_stop(struct uwprof_session *s)
{
	long ret = 0;

	mutex_lock(&s->lock);
	if (s->sampling)
		uwprof_sampler_stop(s);
	else
		ret = -EALREADY;
	mutex_unlock(&s->lock);
	return ret;
}

/*
 * The lookups @c's cache counted since the last fold, read while the CPU
 * may be counting more: each count is a word, read whole.  A walk in
 * flight may have counted a miss and not yet its lookups, so a hit count
 * worked out here may come out below 0 for a moment: it counts as 0.
 */
static void uwprof_lookups_unfolded(struct uwprof_lookup_stats *l,
				    const struct uw2_cache_counts *n)
{
	struct uw2_cache_counts v = {
		.walks = READ_ONCE(n->walks),
		.lookups = READ_ONCE(n->lookups),
		.pc_misses = READ_ONCE(n->pc_misses),
		.ra_misses = READ_ONCE(n->ra_misses),
		.ra_loop = READ_ONCE(n->ra_loop),
	};

	l->pc_hits += max_t(s32, uw2_counts_pc_hits(&v), 0);
	l->pc_misses += v.pc_misses;
	l->ra_hits += max_t(s32, uw2_counts_ra_hits(&v), 0);
	l->ra_misses += v.ra_misses;
	l->ra_loop += v.ra_loop;
}

/*
 * Add @c's lookups to @sum: those folded, and those its cache counted
 * since, which only grow between folds; a fold meanwhile is retried.
 */
static void uwprof_lookups_add(struct uwprof_stats *sum, struct uwprof_cpu *c)
{
	const struct uw2_cache_counts *n = &c->unwind->lookups.counts;
	struct uwprof_lookup_stats l;
	unsigned int seq;

	do {
		seq = read_seqcount_begin(&c->lookups_seq);
		l = c->lookups;
		uwprof_lookups_unfolded(&l, n);
	} while (read_seqcount_retry(&c->lookups_seq, seq));
	sum->lookup_pc_hits += l.pc_hits;
	sum->lookup_pc_misses += l.pc_misses;
	sum->lookup_ra_hits += l.ra_hits;
	sum->lookup_ra_misses += l.ra_misses;
	sum->lookup_ra_loop += l.ra_loop;
}

static void uwprof_stats_add(struct uwprof_stats *sum, struct uwprof_cpu *c)
{
	struct uwprof_cpu_stats v;
	unsigned int seq;
	u64 taken = 0;
	int i;

	do {
		seq = u64_stats_fetch_begin(&c->syncp);
		v = c->stats;
	} while (u64_stats_fetch_retry(&c->syncp, seq));
	/*
	 * each sample taken counts one stop, and is delivered or dropped_full
	 * (uwprof_deliver())
	 */
	for (i = 0; i < UWPROF_STOP_SLOTS; i++)
		taken += v.stop[i];
	sum->taken += taken;
	sum->delivered += taken - v.dropped_full;
	sum->dropped_full += v.dropped_full;
	sum->dropped_not32 += v.dropped_not32;
	sum->kernel_context += v.kernel_context;
	sum->handler_ns_sum += v.handler_ns_sum;
	sum->handler_ns_max = max(sum->handler_ns_max, v.handler_ns_max);
	for (i = 0; i < UWPROF_STOP_SLOTS; i++)
		sum->stop[i] += v.stop[i];
	sum->frames += v.frames;
	sum->bytes += v.bytes;
	sum->deferred += v.deferred;
	sum->deferred_failed += v.deferred_failed;
	sum->followed += v.followed;
	sum->dropped_exec += v.dropped_exec;
	uwprof_lookups_add(sum, c);
}

long uwprof_ioctl_stats(struct uwprof_session *s, void __user *arg)
{
	struct uwprof_stats st;
	u32 usize;
	int cpu;
	long ret;

	ret = uwprof_copy_arg(&st, sizeof(st), arg);
	if (ret)
		return ret;
	usize = st.size;
	memset(&st, 0, sizeof(st));
	st.size = usize;
	st.flags = UWPROF_STATS_LOOKUPS;
	for_each_possible_cpu(cpu)
		uwprof_stats_add(&st, per_cpu_ptr(s->cpu, cpu));
	mutex_lock(&s->lock);
	uwprof_registry_held(s, &st.procs, &st.proc_bytes);
	mutex_unlock(&s->lock);
	if (copy_to_user(arg, &st, min_t(u32, usize, sizeof(st))))
		return -EFAULT;
	return 0;
}
