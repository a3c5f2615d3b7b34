// SPDX-License-Identifier: GPL-2.0
/*
 * uwprof: sample user-space stacks of ARM32 processes and unwind them in
 * the kernel with uploaded unwind tables.  This file ties the parts
 * together; each part lives in its own file.
 */
#include <linux/module.h>

#include "uwprof_mod.h"

static int __init uwprof_init(void)
{
	return uwprof_chardev_init();
}

static void __exit uwprof_exit(void)
{
	uwprof_chardev_exit();
}

module_init(uwprof_init);
module_exit(uwprof_exit);

MODULE_DESCRIPTION("Table-driven user-space stack sampling for ARM32");
MODULE_LICENSE("GPL");
