/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host stand-in for the kernel's <linux/types.h>: the UAPI types from the
 * real header plus the kernel's short names, so unwind_v2.[ch] compile
 * unchanged on the host.
 */
#ifndef UWPROF_HOST_LINUX_TYPES_H
#define UWPROF_HOST_LINUX_TYPES_H

#include_next <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s32 s32;
typedef __s64 s64;

/* The kernel's statement attribute (compiler_attributes.h). */
#ifndef fallthrough
#define fallthrough __attribute__((__fallthrough__))
#endif

/*
 * The kernel's compiler_types.h: inlined whatever the optimizer thinks.
 * The UAPI <linux/stddef.h>, which the real header pulls in, defines it
 * as a plain inline: replaced, so that host builds inline what the
 * module's does (the unwinder's fast paths count on it).
 */
#undef __always_inline
#define __always_inline inline __attribute__((__always_inline__))

/* A local the kernel's automatic zeroing leaves alone: host builds have none. */
#ifndef __uninitialized
#define __uninitialized
#endif

#endif
