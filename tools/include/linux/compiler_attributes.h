/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel attributes unwind_v2.c uses beyond those of types.h, for
 * the host build.  Apart from types.h: host code that spells the
 * attribute itself (__attribute__((noinline))) includes types.h.
 */
#ifndef UWPROF_TOOLS_COMPILER_ATTRIBUTES_H
#define UWPROF_TOOLS_COMPILER_ATTRIBUTES_H

#ifndef noinline
#define noinline __attribute__((__noinline__))
#endif

#endif
