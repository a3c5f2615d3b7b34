/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * uwprof user-space ABI: the ioctls of /dev/unwind_samples and the records
 * read from it.  Shared by the module, the selftests and the uwprof command.
 *
 * Every ioctl argument struct starts with a __u32 size that the caller sets
 * to sizeof() of the struct it was built with.  The module accepts a
 * smaller size (older callers: missing fields read as zero) or a larger one
 * whose extra bytes are zero, so the ABI can grow by appending fields.
 */
#ifndef _UAPI_UWPROF_H
#define _UAPI_UWPROF_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define UWPROF_DEVICE		"/dev/unwind_samples"

/* Bumped when an existing struct or ioctl changes meaning. */
#define UWPROF_ABI_VERSION	1

#define UWPROF_IOC_MAGIC	'u'

struct uwprof_version {
	__u32 size;		/* in: sizeof(struct uwprof_version) */
	__u32 abi_version;	/* out: UWPROF_ABI_VERSION */
	__u32 table_format;	/* out: unwind table format, 2 */
	__u32 reserved;		/* out: 0 */
};

#define UWPROF_IOC_VERSION	_IOWR(UWPROF_IOC_MAGIC, 0x80, struct uwprof_version)

#endif /* _UAPI_UWPROF_H */
