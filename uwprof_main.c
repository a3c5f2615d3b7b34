// SPDX-License-Identifier: GPL-2.0
/*
 * uwprof: sample user-space stacks of ARM32 processes and unwind them in
 * the kernel with uploaded unwind tables.  This file holds the module's
 * parameters and ties the parts together; each part lives in its own
 * file, in layers that call only downward (docs/LAYERS.md):
 *
 *   chardev.c      the device file and the ioctl dispatch
 *   sampler.c      perf events and the sample handler
 *   follow.c       following processes, samples finished in the task's
 *                  context
 *   session.c      the session's lifetime, reference count and lock
 *                  order
 *   registry.c     tables and process entries (attachments)
 *   ringbuf.c, tablemem.c, mmwatch.c, buildid.c, uarg.c, workq.c
 *                  records, table memory and validated blobs kept,
 *                  the mm watch, ELF build-ids, ioctl arguments, the
 *                  module's workqueue
 *   unwind_v2.c    the unwinder
 */
#include <linux/module.h>
#include <linux/moduleparam.h>

#include "uwprof_mod.h"

unsigned int uwprof_table_bytes_max = 64 << 20;
module_param_named(table_bytes_max, uwprof_table_bytes_max, uint, 0644);
MODULE_PARM_DESC(table_bytes_max,
		 "Largest table, and most table bytes per open file (64 MiB)");

unsigned int uwprof_tables_bytes_all = 256 << 20;
module_param_named(tables_bytes_all, uwprof_tables_bytes_all, uint, 0644);
MODULE_PARM_DESC(tables_bytes_all,
		 "Most table bytes of all open files together, with validations under way and the bytes kept (256 MiB)");

unsigned int uwprof_table_keep_bytes = 16 << 20;

/* Set lower, it lets go of what it kept beyond the new bound at once. */
static int uwprof_keep_bytes_set(const char *val,
				 const struct kernel_param *kp)
{
	int ret = param_set_uint(val, kp);

	if (!ret)
		uwprof_tables_kept_trim(false);
	return ret;
}

static const struct kernel_param_ops uwprof_keep_bytes_ops = {
	.set = uwprof_keep_bytes_set,
	.get = param_get_uint,
};

module_param_cb(table_keep_bytes, &uwprof_keep_bytes_ops,
		&uwprof_table_keep_bytes, 0644);
MODULE_PARM_DESC(table_keep_bytes,
		 "Validated table bytes kept after their file closed, for the same user's next upload of them (16 MiB; 0: none)");

/* A gauge: the bytes kept now, which writing table_keep_bytes bounds. */
static int uwprof_kept_bytes_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%llu\n", uwprof_tables_kept_bytes());
}

/* Not to be set, at insmod either (which calls .set unchecked). */
static int uwprof_kept_bytes_set(const char *val,
				 const struct kernel_param *kp)
{
	return -EPERM;
}

static const struct kernel_param_ops uwprof_kept_bytes_ops = {
	.set = uwprof_kept_bytes_set,
	.get = uwprof_kept_bytes_get,
};

module_param_cb(table_kept_bytes, &uwprof_kept_bytes_ops, NULL, 0444);
MODULE_PARM_DESC(table_kept_bytes,
		 "Validated table bytes kept now (read only)");

unsigned int uwprof_buffer_bytes = 512 << 10;
module_param_named(buffer_bytes, uwprof_buffer_bytes, uint, 0644);
MODULE_PARM_DESC(buffer_bytes,
		 "Record buffer bytes per CPU, rounded up to a power of two (512 KiB)");

unsigned int uwprof_wakeup_bytes;
module_param_named(wakeup_bytes, uwprof_wakeup_bytes, uint, 0644);
MODULE_PARM_DESC(wakeup_bytes,
		 "Wake the reader when a CPU's buffer holds this many bytes (0: a quarter of the buffer)");

unsigned int uwprof_wakeup_ms = 200;
module_param_named(wakeup_ms, uwprof_wakeup_ms, uint, 0644);
MODULE_PARM_DESC(wakeup_ms,
		 "Otherwise wake it this often while records wait, 1 to 1000 (200 ms)");

unsigned int uwprof_max_depth = 128;
module_param_named(max_depth, uwprof_max_depth, uint, 0644);
MODULE_PARM_DESC(max_depth, "Most frames per sample, at most 256 (128)");

unsigned int uwprof_stack_window = 256 << 10;
module_param_named(stack_window, uwprof_stack_window, uint, 0644);
MODULE_PARM_DESC(stack_window,
		 "Bytes of user stack above sp an unwind may read (256 KiB)");

static int __init uwprof_init(void)
{
	int ret = uwprof_workq_module_init();

	if (ret)
		return ret;
	ret = uwprof_tablemem_module_init();
	if (ret)
		goto err_workq;
	ret = uwprof_sampler_module_init();
	if (ret)
		goto err_tablemem;
	ret = uwprof_chardev_init();
	if (ret)
		goto err_sampler;
	return 0;
err_sampler:
	uwprof_sampler_module_exit();
err_tablemem:
	uwprof_tablemem_module_exit();
err_workq:
	uwprof_workq_module_exit();
	return ret;
}

static void __exit uwprof_exit(void)
{
	uwprof_chardev_exit();
	uwprof_sampler_module_exit();
	/* entries of exited processes still queued for freeing */
	uwprof_workq_module_exit();
	/* every session freed: what they kept */
	uwprof_tablemem_module_exit();
}

module_init(uwprof_init);
module_exit(uwprof_exit);

MODULE_DESCRIPTION("Table-driven user-space stack sampling for ARM32");
MODULE_LICENSE("GPL");
