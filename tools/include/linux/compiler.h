/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host stand-in for the kernel's <linux/compiler.h>: the attributes
 * unwind_v2.c uses, so that it compiles unchanged on the host.  Only
 * unwind_v2.c includes it (programs that spell __attribute__((noinline))
 * themselves would break on the macro).
 */
#ifndef UWPROF_HOST_LINUX_COMPILER_H
#define UWPROF_HOST_LINUX_COMPILER_H

#ifndef noinline
#define noinline __attribute__((__noinline__))
#endif

#endif
