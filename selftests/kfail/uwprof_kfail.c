// SPDX-License-Identifier: GPL-2.0
/*
 * uwprof_kfail: a test-only module for selftests/follow_fail_test.c, so
 * that the failure of a perf event's creation can be tested on kernels
 * without fault injection (Debian's).  A kprobe on
 * perf_event_create_kernel_counter() hands the fail_at-th call made by the
 * process fail_tgid (both parameters, and the count seen, written by the
 * test) an impossible CPU, which perf refuses with EINVAL before it
 * allocates anything: the caller's error path runs, and nothing leaks.
 */
#include <linux/kprobes.h>
#include <linux/limits.h>
#include <linux/module.h>
#include <linux/sched.h>

static int fail_tgid;
module_param(fail_tgid, int, 0600);
MODULE_PARM_DESC(fail_tgid, "the process whose calls are counted (0: none)");
static int fail_at;
module_param(fail_at, int, 0600);
MODULE_PARM_DESC(fail_at, "which of its calls fails, from 1 (0: none)");
static int seen;
module_param(seen, int, 0600);
MODULE_PARM_DESC(seen, "its calls counted so far (write 0 to start over)");

/* The cpu argument, the second: r1 on ARM, x1 on arm64. */
static void kfail_set_cpu(struct pt_regs *regs, int cpu)
{
#if defined(CONFIG_ARM64)
	regs->regs[1] = cpu;
#elif defined(CONFIG_ARM)
	regs->ARM_r1 = cpu;
#else
#error "uwprof_kfail: ARM and arm64 only"
#endif
}

static int kfail_pre(struct kprobe *p, struct pt_regs *regs)
{
	int at = READ_ONCE(fail_at);

	if (!at || current->tgid != READ_ONCE(fail_tgid))
		return 0;
	/* the caller's calls are serialized by the uwprof session's lock */
	WRITE_ONCE(seen, READ_ONCE(seen) + 1);
	if (READ_ONCE(seen) == at)
		kfail_set_cpu(regs, INT_MAX);
	return 0;
}

static struct kprobe kfail_probe = {
	.symbol_name = "perf_event_create_kernel_counter",
	.pre_handler = kfail_pre,
};

static int __init kfail_init(void)
{
	return register_kprobe(&kfail_probe);
}

static void __exit kfail_exit(void)
{
	unregister_kprobe(&kfail_probe);
}

module_init(kfail_init);
module_exit(kfail_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("uwprof selftests: fail a chosen perf event creation");
