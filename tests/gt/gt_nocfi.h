/* SPDX-License-Identifier: GPL-2.0 */
#ifndef GT_NOCFI_H
#define GT_NOCFI_H

/* A few hundred instructions of work, without any unwind information. */
unsigned int nocfi_work(unsigned int n);

/* glibc printf's dispatch through two tables, without unwind information. */
unsigned int nocfi_classes(unsigned int n);

/* The same in ARM code with APCS frames (gt_apcs.c). */
unsigned int apcs_work(unsigned int n);

/* Described by an .ARM.exidx entry alone (gt_ehabi.c). */
unsigned int ehabi_work(unsigned int n);
unsigned int ehabi_shrink(unsigned int n);

#endif
