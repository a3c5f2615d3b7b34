// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/unwind_samples: the only door into uwprof.  Opening it needs the
 * same privilege as system-wide perf (CAP_PERFMON or CAP_SYS_ADMIN); the
 * node itself is 0600.
 *
 * The top of the module's layers (docs/LAYERS.md): the device file and
 * the ioctl dispatch.  Opening makes a session (session.c); each ioctl is
 * handed to the part that owns it (registry.c: tables and attachments;
 * sampler.c: sampling and counters); closing stops the sampler, then
 * closes the session.  Takes no lock of its own.
 */
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/uaccess.h>

#include "uapi/uwprof.h"
#include "uwprof_mod.h"

/*
 * One ABI for 32-bit and 64-bit callers: the static armhf uwprof talks to
 * an arm64 module through compat_ptr_ioctl, which only works if every
 * struct has the same size on both.  These sizes are the armhf ones; the
 * arm64 build checks it agrees.
 */
static_assert(sizeof(struct uwprof_version) == 16);
static_assert(sizeof(struct uwprof_table_upload) == 72);
static_assert(sizeof(struct uwprof_attach) == 28);
static_assert(sizeof(struct uwprof_detach) == 16);
static_assert(sizeof(struct uwprof_attachment) == 16);
static_assert(sizeof(struct uwprof_list) == 24);
static_assert(sizeof(struct uwprof_start) == 16);
static_assert(sizeof(struct uwprof_stats) == 296);
static_assert(sizeof(struct uwprof_record) == 32);
/* records carry the unwinder's stop reasons as they are */
static_assert((int)UWPROF_STOP_NR == (int)UW2_STOP_COUNT);
static_assert(UWPROF_STOP_NR <= UWPROF_STOP_SLOTS);
/* attachments name the unwinder's frame kinds as they are */
static_assert((int)UWPROF_FRAMES_NR == (int)UW2_FRAMES_COUNT);
static_assert((int)UWPROF_FRAMES_V8_ARM == (int)UW2_FRAMES_V8_ARM);

static int uwprof_open(struct inode *inode, struct file *file)
{
	struct uwprof_session *s;

	if (!perfmon_capable())
		return -EPERM;
	s = uwprof_session_create(file);
	if (IS_ERR(s))
		return PTR_ERR(s);
	file->private_data = s;
	/* lseek() fails with ESPIPE: no .llseek, and FMODE_LSEEK cleared */
	return nonseekable_open(inode, file);
}

static int uwprof_release(struct inode *inode, struct file *file)
{
	struct uwprof_session *s = file->private_data;

	mutex_lock(&s->lock);
	uwprof_sampler_stop(s);
	mutex_unlock(&s->lock);
	uwprof_session_close(s);
	/* tasks asleep in the kernel with a queued sample: run it now */
	uwprof_defer_kick_all(s);
	uwprof_session_put(s);	/* the file's reference */
	return 0;
}

static ssize_t uwprof_read_fop(struct file *file, char __user *buf,
			       size_t len, loff_t *ppos)
{
	return uwprof_read(file->private_data, buf, len,
			   file->f_flags & O_NONBLOCK);
}

static __poll_t uwprof_poll(struct file *file, poll_table *wait)
{
	struct uwprof_session *s = file->private_data;

	poll_wait(file, &s->readers, wait);
	return uwprof_rings_empty(s) ? 0 : EPOLLIN | EPOLLRDNORM;
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

#define UWPROF_CMD(cmd)	((cmd) & ~IOCSIZE_MASK)

static long uwprof_ioctl(struct file *file, unsigned int cmd,
			 unsigned long arg)
{
	struct uwprof_session *s = file->private_data;
	void __user *uarg = (void __user *)arg;

	/*
	 * The size in a command is that of the caller's struct, which may be
	 * older or newer than the module's: the struct's own size field
	 * tells them apart (docs/ABI.md), so the command's size bits do not.
	 */
	switch (UWPROF_CMD(cmd)) {
	case UWPROF_CMD(UWPROF_IOC_VERSION):
		return uwprof_ioctl_version(uarg);
	case UWPROF_CMD(UWPROF_IOC_TABLE_UPLOAD):
		return uwprof_ioctl_table_upload(s, uarg);
	case UWPROF_CMD(UWPROF_IOC_ATTACH):
		return uwprof_ioctl_attach(s, uarg);
	case UWPROF_CMD(UWPROF_IOC_DETACH):
		return uwprof_ioctl_detach(s, uarg);
	case UWPROF_CMD(UWPROF_IOC_LIST):
		return uwprof_ioctl_list(s, uarg);
	case UWPROF_CMD(UWPROF_IOC_START):
		return uwprof_ioctl_start(s, uarg);
	case UWPROF_CMD(UWPROF_IOC_STOP):
		return uwprof_ioctl_stop(s);
	case UWPROF_CMD(UWPROF_IOC_STATS):
		return uwprof_ioctl_stats(s, uarg);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations uwprof_fops = {
	.owner = THIS_MODULE,
	.open = uwprof_open,
	.release = uwprof_release,
	.read = uwprof_read_fop,
	.poll = uwprof_poll,
	.unlocked_ioctl = uwprof_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
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
