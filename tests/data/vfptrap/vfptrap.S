@ SPDX-License-Identifier: GPL-2.0
@ Frames that push and pop d8 with VFP off: a context switch (the
@ sched_yield before each) leaves VFP disabled, so the first VFP
@ instruction after it traps to the kernel, which enables VFP and runs
@ the instruction again.  Until then the thread's saved pc is the
@ instruction after the trapped one, which has not run
@ (tests/host/vfptrap_vm.sh).  The words the rows would misread as the
@ return address are 0: the caller's [sp, #4] (vf) and d8's upper half
@ (vg).
	.syntax unified
	.thumb
	.text

	.global vf
	.type vf, %function
	.thumb_func
vf:
	.fnstart
	.save {r4, lr}
	push {r4, lr}
	.vsave {d8}
	vpush {d8}		@ traps: VFP off since the sched_yield
	.global vf_after
vf_after:
	movs r4, #0
	vpop {d8}
	pop {r4, pc}
	.fnend
	.size vf, .-vf

	.global vg
	.type vg, %function
	.thumb_func
vg:
	.fnstart
	.save {r4, lr}
	push {r4, lr}
	.vsave {d8}
	vpush {d8}
	bl sched_yield
	vpop {d8}		@ traps: VFP off since the sched_yield
	.global vg_after
vg_after:
	pop {r4, pc}
	.fnend
	.size vg, .-vg

	.global spin
	.type spin, %function
	.thumb_func
spin:
	.fnstart
	.save {r4, lr}
	push {r4, lr}
	.pad #8
	sub sp, #8
	movs r0, #0
	str r0, [sp]
	str r0, [sp, #4]
	vmov d8, r0, r0
1:	bl sched_yield
	bl vf
	bl vg
	b 1b
	.fnend
	.size spin, .-spin
	.section .note.GNU-stack,"",%progbits
