// SPDX-License-Identifier: GPL-2.0
/*
 * The sampling clock: a perf PMU of the module's own, "uwprof", whose
 * events are hrtimers that call the sampler's tick directly.
 *
 * perf's cpu-clock and task-clock events pass each tick through perf's
 * generic sample path first: a struct perf_sample_data built on the stack
 * (256 bytes, zeroed on kernels with INIT_STACK_ALL_ZERO), the event's
 * count read from the clock, the exclusion tests and the interrupt
 * accounting.  The sampler uses none of it.  An event of this PMU keeps
 * what perf's scheduling gives those events (per CPU, or per task with
 * inheritance, started when the task is switched in and stopped when it is
 * switched out, the rest of its period kept) and on expiry calls the tick
 * with the interrupted registers, nothing else.  So perf's limits on
 * sample rates (perf_event_max_sample_rate, throttling) do not apply: the
 * sampler bounds its rate itself (UWPROF_FREQ_MAX).
 *
 * Only the module makes these events (uwprof_pmu_cpu_event(),
 * uwprof_pmu_task_event()): one whose overflow handler is not the
 * module's mark, as an event opened from user space has, is refused, so
 * perf_event_open() of this PMU gets ENOENT.  An event holds a reference
 * on the module (perf's, through .module), and perf stops its timer before
 * the event is freed.  The events count nothing.
 */
#include <linux/hrtimer.h>
#include <linux/perf_event.h>
#include <asm/irq_regs.h>

#include "uwprof_mod.h"

/* The shortest period, as perf's own clock events have. */
#define UWPROF_PMU_PERIOD_MIN	10000

static uwprof_tick_t uwprof_pmu_tick_fn;

/*
 * The mark of the module's own events, their overflow handler.  perf
 * never calls it: these events do not overflow, their timer calls the
 * sampler itself.
 */
static void uwprof_pmu_overflow(struct perf_event *event,
				struct perf_sample_data *data,
				struct pt_regs *regs)
{
}

/*
 * The next expiry, a period on, from @now: the sampler's last clock read,
 * the same clock as the timer's, instead of reading it again (it is
 * behind by the few instructions since, against a period of 10 us or
 * more).  When that is still ahead of @now, it is one period on, as nearly
 * always, without hrtimer_forward()'s division; a tick late by a period
 * or more goes to it, and one with no read (@now 0) reads the clock.
 */
static void uwprof_pmu_forward(struct hrtimer *timer, u64 now, u64 period)
{
	s64 next = ktime_to_ns(hrtimer_get_expires(timer)) + period;

	if (!now)
		hrtimer_forward_now(timer, ns_to_ktime(period));
	else if ((s64)now < next)
		hrtimer_add_expires_ns(timer, period);
	else
		hrtimer_forward(timer, ns_to_ktime(now), ns_to_ktime(period));
}

static enum hrtimer_restart uwprof_pmu_tick(struct hrtimer *timer)
{
	struct perf_event *event = container_of(timer, struct perf_event,
						hw.hrtimer);
	struct pt_regs *regs;
	u64 now = 0;

	if (event->state != PERF_EVENT_STATE_ACTIVE)
		return HRTIMER_NORESTART;
	/* NULL when the timer ran outside an interrupt */
	regs = get_irq_regs();
	if (regs)
		now = uwprof_pmu_tick_fn(event, regs);
	uwprof_pmu_forward(timer, now, event->hw.sample_period);
	return HRTIMER_RESTART;
}

/*
 * Start the timer with what is left of the period (soon, when that ran
 * out as it stopped), or a whole one.
 */
static void uwprof_pmu_start(struct perf_event *event, int flags)
{
	struct hw_perf_event *hwc = &event->hw;
	s64 left = local64_read(&hwc->period_left);

	hwc->state = 0;
	local64_set(&hwc->period_left, 0);
	if (left < 0)
		left = UWPROF_PMU_PERIOD_MIN;
	else if (!left || left > hwc->sample_period)
		left = hwc->sample_period;
	hrtimer_start(&hwc->hrtimer, ns_to_ktime(left),
		      HRTIMER_MODE_REL_PINNED_HARD);
}

/*
 * Stop it, keeping what is left of the period for the next start; once:
 * a stopped timer has nothing left to keep.
 */
static void uwprof_pmu_stop(struct perf_event *event, int flags)
{
	struct hw_perf_event *hwc = &event->hw;

	if (hwc->state & PERF_HES_STOPPED)
		return;
	local64_set(&hwc->period_left,
		    ktime_to_ns(hrtimer_get_remaining(&hwc->hrtimer)));
	hrtimer_cancel(&hwc->hrtimer);
	hwc->state = PERF_HES_STOPPED;
}

static int uwprof_pmu_add(struct perf_event *event, int flags)
{
	event->hw.state = PERF_HES_STOPPED;
	if (flags & PERF_EF_START)
		uwprof_pmu_start(event, flags);
	return 0;
}

static void uwprof_pmu_del(struct perf_event *event, int flags)
{
	uwprof_pmu_stop(event, flags);
}

/* Nothing is counted. */
static void uwprof_pmu_read(struct perf_event *event)
{
}

static int uwprof_pmu_init(struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;

	if (event->attr.type != event->pmu->type)
		return -ENOENT;
	/* the module's events and their inherited copies, nothing else */
	if (event->overflow_handler != uwprof_pmu_overflow ||
	    event->attr.freq || event->attr.config)
		return -ENOENT;
	if (hwc->sample_period < UWPROF_PMU_PERIOD_MIN)
		return -EINVAL;
#ifdef UWPROF_HRTIMER_SETUP
	hrtimer_setup(&hwc->hrtimer, uwprof_pmu_tick, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL_HARD);
#else
	hrtimer_init(&hwc->hrtimer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	hwc->hrtimer.function = uwprof_pmu_tick;
#endif
	return 0;
}

static struct pmu uwprof_pmu = {
	.module		= THIS_MODULE,
	.task_ctx_nr	= perf_sw_context,
	.capabilities	= PERF_PMU_CAP_NO_NMI,
	.event_init	= uwprof_pmu_init,
	.add		= uwprof_pmu_add,
	.del		= uwprof_pmu_del,
	.start		= uwprof_pmu_start,
	.stop		= uwprof_pmu_stop,
	.read		= uwprof_pmu_read,
};

/* The attr of an event of this PMU that ticks every @period_ns. */
void uwprof_pmu_attr(struct perf_event_attr *attr, u64 period_ns)
{
	memset(attr, 0, sizeof(*attr));
	attr->type = uwprof_pmu.type;
	attr->size = sizeof(*attr);
	attr->sample_period = period_ns;
}

/* An event of @attr on @cpu, whose ticks carry @context. */
struct perf_event *uwprof_pmu_cpu_event(struct perf_event_attr *attr,
					int cpu, void *context)
{
	return perf_event_create_kernel_counter(attr, cpu, NULL,
						uwprof_pmu_overflow, context);
}

/*
 * An event of @attr on @task, whose ticks carry @context.
 *
 * Kernels before 6.2 keep in a task's perf context the PMU of the event
 * that made it, and the context stays with the task after its events are
 * gone, until it exits, and passes to the children it forks: one made by
 * this PMU would name it after the module is unloaded.  There a software
 * event of perf's own, never enabled and released at once, makes the
 * context first, so that the context names perf's PMU.
 */
struct perf_event *uwprof_pmu_task_event(struct perf_event_attr *attr,
					 struct task_struct *task,
					 void *context)
{
	struct perf_event *ev;
#ifdef UWPROF_TASK_CTX_PMU
	struct perf_event_attr owner_attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.size = sizeof(owner_attr),
		.disabled = 1,
	};
	struct perf_event *owner;

	owner = perf_event_create_kernel_counter(&owner_attr, -1, task, NULL,
						 NULL);
	if (IS_ERR(owner))
		return owner;
#endif
	ev = perf_event_create_kernel_counter(attr, -1, task,
					      uwprof_pmu_overflow, context);
#ifdef UWPROF_TASK_CTX_PMU
	perf_event_release_kernel(owner);
#endif
	return ev;
}

/* At load: @tick is what every event's timer calls. */
int uwprof_pmu_module_init(uwprof_tick_t tick)
{
	uwprof_pmu_tick_fn = tick;
	return perf_pmu_register(&uwprof_pmu, "uwprof", -1);
}

void uwprof_pmu_module_exit(void)
{
	perf_pmu_unregister(&uwprof_pmu);
}
