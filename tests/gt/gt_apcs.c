// SPDX-License-Identifier: GPL-2.0
/*
 * gt_nocfi.c's routines again, built as ARM code with APCS frames (gcc
 * -marm -mapcs-frame) and no unwind information: the shape of vDSOs
 * built with frame pointers for ARM (Debian's 5.10 vDSO), "mov ip, sp;
 * push {..., fp, ip, lr, pc}; sub fp, ip, #4" and back with "sub sp, fp,
 * #k; ldm sp, {..., fp, sp, pc}", sp reloaded from ip's slot.  Only
 * prologue analysis gives them rules.
 */
#define nocfi_work apcs_work
#define nocfi_classes apcs_classes
#include "gt_nocfi.c"
