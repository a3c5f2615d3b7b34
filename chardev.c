// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/unwind_samples: the only door into uwprof.  Opening it needs the
 * same privilege as system-wide perf (CAP_PERFMON or CAP_SYS_ADMIN); the
 * node itself is 0600.
 */
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/uaccess.h>

#include "uapi/uwprof.h"
#include "uwprof_mod.h"

static int uwprof_open(struct inode *inode, struct file *file)
{
	if (!perfmon_capable())
		return -EPERM;
	return nonseekable_open(inode, file);
}

/*
 * Copy an ioctl argument that begins with its own size.  Callers built
 * against an older, shorter struct get the missing fields zeroed; newer,
 * longer structs are accepted only if the part we do not know is zero.
 */
static int uwprof_copy_arg(void *dst, size_t dst_size, void __user *src)
{
	u32 usize;

	if (get_user(usize, (u32 __user *)src))
		return -EFAULT;
	if (usize < sizeof(u32))
		return -EINVAL;
	return copy_struct_from_user(dst, dst_size, src, usize);
}

static long uwprof_ioctl_version(void __user *arg)
{
	struct uwprof_version ver;
	int ret;

	ret = uwprof_copy_arg(&ver, sizeof(ver), arg);
	if (ret)
		return ret;
	ver.abi_version = UWPROF_ABI_VERSION;
	ver.table_format = 2;
	ver.reserved = 0;
	/* Never write more than the caller said it has room for. */
	if (copy_to_user(arg, &ver, min_t(u32, ver.size, sizeof(ver))))
		return -EFAULT;
	return 0;
}

static long uwprof_ioctl(struct file *file, unsigned int cmd,
			 unsigned long arg)
{
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case UWPROF_IOC_VERSION:
		return uwprof_ioctl_version(uarg);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations uwprof_fops = {
	.owner = THIS_MODULE,
	.open = uwprof_open,
	.unlocked_ioctl = uwprof_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = no_llseek,
};

static struct miscdevice uwprof_miscdev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "unwind_samples",
	.fops = &uwprof_fops,
	.mode = 0600,
};

int uwprof_chardev_init(void)
{
	return misc_register(&uwprof_miscdev);
}

void uwprof_chardev_exit(void)
{
	misc_deregister(&uwprof_miscdev);
}
