// SPDX-License-Identifier: GPL-2.0
/*
 * Copying ioctl arguments in: one rule for every call that takes a
 * struct (docs/ABI.md, "Struct sizes").  A shared service: it calls no
 * other file of the module.
 */
#include <linux/uaccess.h>

#include "uwprof_mod.h"

/*
 * Copy an ioctl argument that begins with its own size.  Callers built
 * against an older, shorter struct get the missing fields zeroed; newer,
 * longer structs are accepted only if the part we do not know is zero,
 * and only up to a page, so that no size makes the check long (E2BIG
 * either way: the argument is larger than this module takes).
 */
int uwprof_copy_arg(void *dst, size_t dst_size, void __user *src)
{
	u32 usize;

	if (get_user(usize, (u32 __user *)src))
		return -EFAULT;
	if (usize < sizeof(u32))
		return -EINVAL;
	if (usize > PAGE_SIZE)
		return -E2BIG;
	return copy_struct_from_user(dst, dst_size, src, usize);
}
