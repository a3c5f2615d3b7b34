// SPDX-License-Identifier: GPL-2.0
/*
 * Ground-truth routines built with no unwind information at all (no
 * -g, no unwind tables), as C library code in libc.a is: only prologue
 * analysis gives them rules.  Their shapes are the ones it must follow:
 * saved registers, a trap on an impossible value, a call that never
 * returns at the end of the function, a call to an undefined weak
 * function that the linker turned into a nop at the end of one (static
 * glibc has such), a literal pool, a stack allocation of run-time size,
 * whose frame the frame pointer holds and moves, alloca on some paths
 * only or in a loop, a switch whose cases return through tail calls, and
 * a computed goto's dispatch through a table of label addresses, as an
 * interpreter's loop (Lua's) has: its handlers are reached through that
 * table alone; a local's address taken on one path only.
 * nocfi_classes() dispatches as glibc's printf does: a character through
 * a table of byte classes, then a table of label offsets.
 */
#include <setjmp.h>
#include <stdlib.h>

#include "gt_nocfi.h"

static volatile unsigned int nocfi_sink;
static volatile int nocfi_trap;	/* never set: the trap stays in the code */

/* Defined nowhere: a static link leaves a nop where it is called. */
extern void nocfi_absent(unsigned int h) __attribute__((weak, noreturn));

__attribute__((noinline)) static unsigned int mix(const unsigned int *v,
						  unsigned int n)
{
	unsigned int h = 0x811c9dc5u;

	for (unsigned int i = 0; i < n; i++)
		h = (h ^ v[i]) * 0x01000193u;
	if (nocfi_trap == 2)
		nocfi_absent(h);	/* never */
	return h;
}

/*
 * A variable-length array: sp moves by a register, r7 keeps the frame.
 * With fixed locals below the saved registers too, gcc moves r7 back up
 * before sp is restored from it ("adds r7, #32; mov sp, r7").
 */
__attribute__((noinline)) static unsigned int scratch(unsigned int n)
{
	volatile unsigned int fixed[8];
	volatile unsigned int buf[n + 1];

	for (unsigned int i = 0; i <= n; i++)
		buf[i] = i * 3u;
	for (unsigned int i = 0; i < 8; i++)
		fixed[i] = n ^ i;
	return mix((const unsigned int *)buf, n + 1) + fixed[n & 7];
}

/*
 * alloca on some paths only, once or twice, as glibc's loader has
 * (open_verify): the paths meet with sp lowered by a run-time size on one
 * and not on the other, and only the frame pointer holds the frame on
 * both.  An alloca of a constant size after one moves sp by a constant
 * (_dl_map_object_deps).
 */
__attribute__((noinline)) static unsigned int maybe_alloca(unsigned int n,
							   const unsigned int *v)
{
	const unsigned int *p = v;
	unsigned int k = 8 + (n & 7);

	if (n & 1) {
		unsigned int *a = __builtin_alloca(((n & 63) + 16) * sizeof(*a));

		for (unsigned int i = 0; i < k; i++)
			a[i] = v[i] ^ n;
		if (n & 2) {
			unsigned int *b = __builtin_alloca(((n & 31) + 16) *
							   sizeof(*b));

			for (unsigned int i = 0; i < k; i++)
				b[i] = a[i] + i;
			a = b;
		}
		/* a constant size, in a loop: "sub sp, #16" each time */
		for (unsigned int i = 0; i < (n & 12); i += 4) {
			unsigned int *c = __builtin_alloca(12);

			c[0] = a[i];
			c[1] = mix(a, k);
			c[2] = c[0] ^ c[1];
			a[i] = c[2];
		}
		p = a;
	}
	nocfi_sink = p[1];
	return mix(p, k) + p[0];
}

/*
 * An alloca of a constant size in a loop: the loop's head is reached with
 * sp lowered by different constants (glibc's dl_main), and a table branch
 * after it with the frame pointer alone holding the frame.
 */
__attribute__((noinline)) static unsigned int alloca_loop(unsigned int n,
							  const unsigned int *v)
{
	const unsigned int *list = NULL;
	unsigned int h = n;

	for (unsigned int i = 0; i <= (n & 3); i++) {
		unsigned int *c;

		switch ((v[i] + n) % 7) {
		case 0: h += mix(v, 3); break;
		case 1: h ^= v[i + 1]; break;
		case 2: h = h * 33 + mix(v + i, 2); break;
		case 3: h -= v[i + 2]; break;
		case 4: h = (h >> 3) ^ mix(v, 5); break;
		case 5: h += i; break;
		default: h ^= 0x5bd1e995u; break;
		}
		c = __builtin_alloca(3 * sizeof(*c));
		c[0] = h;
		c[1] = (unsigned int)(unsigned long)list;
		list = c;
	}
	for (; list; list = (const unsigned int *)(unsigned long)list[1])
		h += mix(list, 1);
	return h;
}

/* A leaf that cases of dispatch() tail-call. */
__attribute__((noinline, noclone)) static unsigned int other(unsigned int a,
							     unsigned int b)
{
	unsigned int h = a;

	for (unsigned int i = 0; i < (b & 15) + 8; i++)
		h = (h ^ i) * 0x01000193u;
	return h;
}

/*
 * A switch compiled to a table branch (tbb) whose cases either call and
 * come back or leave through a tail call after the epilogue ("ldmia sp!,
 * {r3, r4, r5, lr}; mov r1, r0; b.w other"): the code after that pop
 * runs with the frame gone, whatever the table branch's frame was.
 */
__attribute__((noinline, noclone)) static unsigned int dispatch(unsigned int k,
								const unsigned int *v)
{
	unsigned int r;

	switch (k % 11) {
	case 0: r = mix(v, 4) + v[1]; break;
	case 1: return other(v[0], k);
	case 2: r = mix(v, 8) ^ v[2]; break;
	case 3: return other(v[3] + 1, k);
	case 4: r = mix(v + 1, 3) * 3; break;
	case 5: r = v[5] + k; break;
	case 6: return other(v[6], v[7]);
	case 7: r = mix(v, 2) - k; break;
	case 8: r = v[1] - v[2]; break;
	case 9: return other(k, k);
	default: r = mix(v, 16); break;
	}
	nocfi_sink = r;
	return r + v[0];
}

/*
 * Byte code run through a table of handler addresses (labels as values),
 * as an interpreter's loop (Lua's) is: gcc loads an entry ("ldr rT, [rB,
 * rI, lsl #2]", the index a byte), sets the Thumb bit ("orr rT, rT, #1")
 * and jumps ("bx rT"); clang jumps with "mov pc, rT".  With 256 handlers,
 * each reading a variable of its own through a literal, the function
 * outgrows a literal's reach and gcc puts pools between handlers: code
 * after a pool is reached through the table alone.  Handlers call now
 * and then, so samples find the loop's frame under a callee too.
 */
#define GT_X4(m, a) m(a##0) m(a##1) m(a##2) m(a##3)
#define GT_X16(m, a) GT_X4(m, a##0) GT_X4(m, a##1) GT_X4(m, a##2) GT_X4(m, a##3)
#define GT_X64(m, a) GT_X16(m, a##0) GT_X16(m, a##1) GT_X16(m, a##2) \
		     GT_X16(m, a##3)
#define GT_X256(m) GT_X64(m, 0) GT_X64(m, 1) GT_X64(m, 2) GT_X64(m, 3)
#define GT_OP_ADDR(i) &&op_##i,
#define GT_NEXT_OP							\
	do {								\
		if (pc == len)						\
			goto done;					\
		goto *ops[code[pc++]];					\
	} while (0)
#define GT_OP(i)							\
	op_##i: {							\
		static unsigned int g;					\
									\
		g += acc;						\
		acc ^= g + pc;						\
		if (!(acc & 0x1f))					\
			acc += mix(v, 4);				\
		else if (!(acc & 0x3e0))				\
			acc += other(acc, pc);				\
		GT_NEXT_OP;						\
	}

__attribute__((noinline, noclone)) static unsigned int run_ops(const unsigned char *code,
							       unsigned int len,
							       const unsigned int *v)
{
	static const void *const ops[256] = { GT_X256(GT_OP_ADDR) };
	unsigned int acc = v[0], pc = 0;

	GT_NEXT_OP;
	GT_X256(GT_OP)
done:
	nocfi_sink = acc;
	return acc;
}

/* Called from gt_pic_switch's cases (by name from its assembly). */
__attribute__((noinline, noclone, used)) static unsigned int gt_rotate(unsigned int x)
{
	nocfi_sink = x;
	return x >> 5 | x << 27;
}

/* Thumb functions written out: their start, and the end back in this
 * file's instruction set. */
#define GT_ASM_FUNC(name)						\
	"	.text\n"						\
	"	.syntax unified\n"					\
	"	.thumb\n"						\
	"	.p2align 2\n"						\
	"	.type " #name ", %function\n"				\
	"	.thumb_func\n"						\
	#name ":\n"
#ifdef __thumb__
#define GT_ASM_MODE "	.thumb\n"
#else
#define GT_ASM_MODE "	.arm\n"
#endif
#define GT_ASM_END(name)						\
	"	.size " #name ", . - " #name "\n" GT_ASM_MODE

/* The switches' tables of offsets, from 3, and their cases (on r5). */
#define GT_SWITCH_ENTRIES						\
	"	.word (1b - 3b) + 1, (4f - 3b) + 1, (5f - 3b) + 1\n"	\
	"	.word (6f - 3b) + 1, (2b - 3b) + 1, (7f - 3b) + 1\n"
#define GT_SWITCH_TABLE							\
	"	nop\n"							\
	"	.p2align 2\n"						\
	"3:\n"								\
	GT_SWITCH_ENTRIES
#define GT_SWITCH_CASES							\
	"4:	adds r5, #3\n"						\
	"	b 2b\n"							\
	"5:	mov r0, r5\n"						\
	"	bl gt_rotate\n"						\
	"	mov r5, r0\n"						\
	"	b 2b\n"							\
	"6:	lsls r5, r5, #1\n"					\
	"	b 2b\n"							\
	"7:	eor r5, r5, #0x55\n"					\
	"	b 1b\n"							\
	"9:	mov r0, r5\n"						\
	"	pop {r4, r5, r6, pc}\n"

/*
 * A switch as gcc compiles it for position-independent Thumb code when a
 * case lies before the jump (tbb and tbh reach forward only): "adr rB,
 * table; ldr rT, [rB, rI, lsl #2]; add rB, rT; bx rB", a table of offsets
 * from its own start, bounded by "cmp rI, #k; bhi", as Lua's lexer has.
 * Written out, because where gcc puts a case is its own choice.  Sums
 * the bytes of @s up to a zero, by their low three bits.
 */
unsigned int gt_pic_switch(const unsigned char *s);
__asm__(
GT_ASM_FUNC(gt_pic_switch)
"	push {r4, r5, r6, lr}\n"
"	mov r4, r0\n"
"	movs r5, #0\n"
"1:	adds r5, #1\n"
"2:	ldrb r3, [r4], #1\n"
"	cbz r3, 9f\n"
"	and r3, r3, #7\n"
"	cmp r3, #5\n"
"	bhi 2b\n"
"	adr r2, 3f\n"
"	ldr.w r3, [r2, r3, lsl #2]\n"
"	add r2, r3\n"
"	bx r2\n"
GT_SWITCH_TABLE
GT_SWITCH_CASES
GT_ASM_END(gt_pic_switch)
);

/*
 * glibc's printf dispatch on a format's characters: "sub rT, rC, #' ';
 * cmp rT, #'z' - ' '; bhi" bounds the character, "ldrb" reads its class
 * from a table of bytes, "ldr rO, [rB, rK, lsl #2]" the class's offset
 * from a table of label differences, and "bx" jumps to a label plus that
 * offset (gcc shares one "orr; bx" among the handlers).  The handlers
 * are reached through the tables alone, and with 64 of them, each
 * reading a variable of its own through a literal, gcc puts pools
 * between them: only the tables tell code from data there.  Some call,
 * so samples find the dispatching frame under a callee too.
 */
#define GT_X64C(m) GT_X16(m, 0) GT_X16(m, 1) GT_X16(m, 2) GT_X16(m, 3)
#define GT_FMT_STEP(i) &&k_##i - &&k_other,
#define GT_FMT_NEXT							\
	do {								\
		int off;						\
									\
		c = *f++;						\
		off = c < ' ' || c > 'z' ? 0 : steps[classes[c - ' ']];	\
		goto *(&&k_other + off);				\
	} while (0)
#define GT_FMT(i)							\
	k_##i: {							\
		static unsigned int g;					\
									\
		g += acc ^ c;						\
		acc = acc * 33 + g;					\
		if (!(acc & 0x3f))					\
			acc += mix(v, 4);				\
		else if (!(acc & 0xfc0))				\
			acc += other(acc, c);				\
		GT_FMT_NEXT;						\
	}

__attribute__((noinline, noclone)) static unsigned int run_format(const unsigned char *f,
								  const unsigned int *v)
{
	/* the class of each character from ' ' to 'z': every one of 1-64 */
	static const unsigned char classes['z' - ' ' + 1] = {
		6, 43, 16, 53, 26, 63, 36, 9, 46, 19, 56, 29, 2, 39, 12,
		49, 22, 59, 32, 5, 42, 15, 52, 25, 62, 35, 8, 45, 18,
		55, 28, 1, 38, 11, 48, 21, 58, 31, 4, 41, 14, 51, 24,
		61, 34, 7, 44, 17, 54, 27, 64, 37, 10, 47, 20, 57, 30,
		3, 40, 13, 50, 23, 60, 33, 1, 2, 3, 4, 5, 6, 7, 8, 9,
		10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23,
		24, 25, 26, 0,
	};
	static const int steps[65] = {
		0, GT_X64C(GT_FMT_STEP)
	};
	unsigned int acc = v[0], c;

	GT_FMT_NEXT;
k_other:
	if (!c)
		goto done;
	acc = acc * 31 + c;
	GT_FMT_NEXT;
	GT_X64C(GT_FMT)
done:
	nocfi_sink = acc;
	return acc;
}

unsigned int nocfi_classes(unsigned int n)
{
	unsigned char fmt[64];
	unsigned int v[16];

	for (unsigned int i = 0; i < 16; i++)
		v[i] = n * 0x9e3779b9u + i;
	for (unsigned int i = 0; i < sizeof(fmt) - 1; i++)
		fmt[i] = (unsigned char)(' ' + (n + i * 7 + (i >> 3) * n) % 92);
	fmt[sizeof(fmt) - 1] = 0;
	return run_format(fmt, v);
}

/*
 * The same switch with 300 cases, as grep's main has: a bound over 255
 * is a constant in a register first ("movw rK, #299; cmp rI, rK; bhi").
 * Sums the bytes of @s up to a zero, by their value and a quarter of it.
 */
unsigned int gt_pic_switch_wide(const unsigned char *s);
__asm__(
GT_ASM_FUNC(gt_pic_switch_wide)
"	push {r4, r5, r6, lr}\n"
"	mov r4, r0\n"
"	movs r5, #0\n"
"1:	adds r5, #1\n"
"2:	ldrb r3, [r4], #1\n"
"	cmp r3, #0\n"
"	beq.w 9f\n"
"	add r3, r3, r3, lsr #2\n"
"	movw r2, #299\n"
"	cmp r3, r2\n"
"	bhi 2b\n"
"	adr r2, 3f\n"
"	ldr.w r3, [r2, r3, lsl #2]\n"
"	add r2, r3\n"
"	bx r2\n"
"	nop\n"
"	.p2align 2\n"
"3:	.rept 50\n"
GT_SWITCH_ENTRIES
"	.endr\n"
GT_SWITCH_CASES
GT_ASM_END(gt_pic_switch_wide)
);

/*
 * gt_pic_switch with lr for the index, a scratch register once it is
 * saved, as gcc takes it in tar's switches ("ldr.w lr, [r3, lr, lsl #2];
 * add r3, lr; bx r3").
 */
unsigned int gt_pic_switch_lr(const unsigned char *s);
__asm__(
GT_ASM_FUNC(gt_pic_switch_lr)
"	push {r4, r5, r6, lr}\n"
"	mov r4, r0\n"
"	movs r5, #0\n"
"1:	adds r5, #1\n"
"2:	ldrb lr, [r4], #1\n"
"	cmp lr, #0\n"
"	beq 9f\n"
"	and lr, lr, #7\n"
"	cmp lr, #5\n"
"	bhi 2b\n"
"	adr r3, 3f\n"
"	ldr.w lr, [r3, lr, lsl #2]\n"
"	add r3, lr\n"
"	bx r3\n"
GT_SWITCH_TABLE
GT_SWITCH_CASES
GT_ASM_END(gt_pic_switch_lr)
);

/*
 * A function only a pointer the program computes reaches ("adr; blx"):
 * discovery finds it as the code after its caller, and takes it only
 * when its walk returns.  It returns as gcc does after "push {r0, r1,
 * r2, lr}" kept room for locals: "add sp, #12; ldr.w pc, [sp], #4", a
 * pop of pc alone (busybox's helpers end so).
 */
unsigned int gt_call_hidden(unsigned int x);
__asm__(
GT_ASM_FUNC(gt_call_hidden)
"	push {r4, lr}\n"
"	ldr r4, 1f\n"
"	adr.w r3, gt_pop_pc_alone\n"
"	orr r3, r3, #1\n"
"	blx r3\n"
"	eors r0, r4\n"
"	pop {r4, pc}\n"
"	.p2align 2\n"
"1:	.word 0x9e3779b9\n"
"	.size gt_call_hidden, . - gt_call_hidden\n"
"	.type gt_pop_pc_alone, %function\n"
"	.thumb_func\n"
"gt_pop_pc_alone:\n"
"	ldr r3, 2f\n"
"	push {r0, r1, r2, lr}\n"
"	eors r0, r3\n"
"	str r0, [sp, #4]\n"
"	bl gt_rotate\n"
"	ldr r1, [sp, #4]\n"
"	add r0, r0, r1\n"
"	add sp, #12\n"
"	ldr.w pc, [sp], #4\n"
"	.p2align 2\n"
"2:	.word 0x5bd1e995\n"
GT_ASM_END(gt_pop_pc_alone)
);

/*
 * A function that never returns, also reached only through a computed
 * pointer and found as the code after its caller: it ends with its call
 * to gt_leave(), which longjmps out, then one nop and the literal it
 * read before (busybox's "die" helpers).  Its walk has no return, but
 * the call followed by data it read ends it as a return would.
 */
static jmp_buf gt_leave_to;

/*
 * Not noreturn, and returning when the trap is set (never): clang keeps
 * no return address in a function that cannot return, so samples in it
 * could not be unwound by anything.
 */
__attribute__((noinline, used)) static void gt_leave(unsigned int x)
{
	for (unsigned int i = 0; i < 32; i++)
		x = gt_rotate(x) + i;
	nocfi_sink = x;
	if (!nocfi_trap)
		longjmp(gt_leave_to, 1);
}

void gt_call_never(unsigned int x);
__asm__(
GT_ASM_FUNC(gt_call_never)
"	push {r4, lr}\n"
"	adr.w r3, gt_never_returns\n"
"	orr r3, r3, #1\n"
"	blx r3\n"
"	pop {r4, pc}\n"
"	.size gt_call_never, . - gt_call_never\n"
"	.p2align 2\n"
"	.type gt_never_returns, %function\n"
"	.thumb_func\n"
"gt_never_returns:\n"
"	ldr r1, 1f\n"
"	push {r3, lr}\n"
"	eors r0, r1\n"
"	bl gt_leave\n"
"	nop\n"
"1:	.word 0x27d4eb2f\n"
GT_ASM_END(gt_never_returns)
);

static unsigned int never_returns(unsigned int n)
{
	if (!setjmp(gt_leave_to))
		gt_call_never(n);
	return nocfi_sink;
}

/*
 * glibc's printf_positional keeps the addresses of its dispatch tables in
 * its frame, at [r7, #k], and reloads them where the dispatch is, past a
 * branch: the walk carries the frame's constants and the bound that
 * "cmp; bls" proves along the branch.  The byte of classes and the table
 * of offsets lie between the cases, where only the tables tell them from
 * code.  Sums the bytes of @s up to a zero, by their low three bits.
 */
unsigned int gt_fp_dispatch(const unsigned char *s);
__asm__(
GT_ASM_FUNC(gt_fp_dispatch)
"	push {r4, r5, r7, lr}\n"
"	sub sp, #16\n"
"	add r7, sp, #0\n"
"	mov r4, r0\n"
"	movs r5, #0\n"
"	adr.w r3, 8f\n"
"	str r3, [r7, #4]\n"
"	adr.w r3, 5f\n"
"	str r3, [r7, #8]\n"
"	adr.w r3, 7f\n"
"	str r3, [r7, #12]\n"
"2:	ldrb r3, [r4], #1\n"
"	cmp r3, #0\n"
"	beq.w 9f\n"
"	and r3, r3, #7\n"
"	cmp r3, #5\n"
"	bls.w 3f\n"
"	b 2b\n"
"5:	adds r5, #3\n"
"	b 2b\n"
"	.p2align 2\n"
"8:	.word 0, 4f - 5b, 6f - 5b, 1f - 5b\n"
"7:	.byte 1, 0, 2, 3, 2, 1, 0, 0\n"
"4:	mov r0, r5\n"
"	bl gt_rotate\n"
"	mov r5, r0\n"
"	b 2b\n"
"6:	lsls r5, r5, #1\n"
"	b 2b\n"
"1:	eor r5, r5, #0x5a\n"
"	b 2b\n"
"3:	ldr r2, [r7, #12]\n"
"	ldrb r3, [r2, r3]\n"
"	ldr r2, [r7, #4]\n"
"	ldr.w r3, [r2, r3, lsl #2]\n"
"	ldr r2, [r7, #8]\n"
"	add r2, r3\n"
"	orr r2, r2, #1\n"
"	bx r2\n"
"9:	mov r0, r5\n"
"	add sp, #16\n"
"	pop {r4, r5, r7, pc}\n"
GT_ASM_END(gt_fp_dispatch)
);

/* Never called: gt_noret's call that does not return (by name). */
__attribute__((noinline, noclone, used, noreturn)) static void gt_never(void)
{
	abort();
}

/* Work for gt_fp_local and gt_r7_local to call (by name). */
__attribute__((noinline, noclone, used)) static unsigned int gt_fp_sum(const unsigned int *p,
								   unsigned int n)
{
	unsigned int h = 0x811c9dc5u;

	for (unsigned int i = 0; i < 64; i++)
		h = (h ^ p[i & (n - 1)]) * 0x01000193u;
	return h;
}

/*
 * A local's address taken on one path only, before the branch that
 * leaves the other ("subeq r8, fp, #56; bne"), as gcc compiles V8's ARM
 * code (frame pointer in r11, pointing at lr's slot); and the same in
 * Thumb code with r7 ("it eq; subeq r2, r7, #40").  The register written
 * is none the frame's rules read: both paths go on with it written.
 * Written out, because gcc if-converts such an address only under its
 * own register pressure.  Mixes the first words of @v once per bit of
 * @n.
 *
 * gt_arm_switch: a switch as gcc compiles it in ARM code ("addls pc, pc,
 * r3, lsl #2" into a table of branches), bounded by a register as a
 * bound too large for an immediate is (V8's 930 cases: "movw r2, #929;
 * cmp r3, r2"), with a literal pool inside the function that only a case
 * reads, another read through "adr r2, 7f; ldr r0, [r2]" (V8's double
 * constants: "add r3, pc, #268; ldrd r2, [r3]").  Their words are "bx
 * lr": read as instructions they would be returns with the frame up.
 * Function discovery follows such a table only with an immediate bound,
 * so in a stripped build only the loads show the words are data.
 *
 * gt_noret: a call that never returns made with the frame up, the code
 * after it another path's, in the caller's frame (node's napi functions
 * call node::OnFatalError so, the code after it their early return).
 *
 * gt_guard_ret: clang's stack protector epilogue in Thumb code: the guard
 * kept in the frame compared, a conditional return in an IT block that
 * undoes the frame ("ittt eq; addeq sp; ldmiaeq.w sp!, {r8-r11}; popeq
 * {r4-r7, pc}"), then the call that never returns (__stack_chk_fail's
 * place, gt_never here) and clang's "bkpt; udf #0" after it.  The guard
 * is derived from @n, so it always matches.  Hashes the first four
 * words of @v.  gt_guard_alloca: the same after an alloca, sp set back
 * from a copy of r7 made under the condition, over two IT blocks ("itttt eq; ...; subeq.w r4, r7, #48;
 * moveq sp, r4; vpopeq {d8-d9}; ittt eq; addeq sp, #4; ...").
 * gt_guard_tail: the same ending in a tail call, as clang ends a
 * function whose last act is a call ("itttt eq; addeq sp, #24; ldreq.w
 * r8, [sp], #4; ldmiaeq.w sp!, {r4-r7, lr}; beq.w f"): the frame undone
 * under the condition, lr loaded back, the branch to gt_tail_sum (a
 * leaf, called directly too, so that function discovery knows its start
 * in the stripped builds) returning for both.  gt_ptr_leaf, right
 * after its "bkpt; udf #0", is a leaf called only through a pointer in
 * the data: no walk reaches the udf, and function discovery takes the
 * pointer only after code it knows, traps between.
 *
 * gt_thunk: a thunk that adjusts its argument and branches to the
 * function right after it ("adds r0, #16; b.w f", C++'s this-adjusting
 * thunks), lld's fill 0xd4d4 ("bmi" in Thumb code) between them for the
 * alignment.  gt_thunk_body is reached only through it: in the stripped
 * builds the thunk's code runs on into it, the fill unreached between.
 *
 * gt_neon_const: a 16-byte constant after the code, read through "adr
 * r2, 7f; ldr r3, [r0]; vld1.64 {d0-d1}, [r2 :128]" (clang's Thumb code
 * loads NEON constants so), its words undefined as Thumb instructions,
 * before a literal "ldr r1, 8f" reads.  In the stripped builds only the
 * vld1 shows the 16 bytes are data.
 *
 * gt_ptr_sched: called only through a pointer in the data, as busybox's
 * applets are, after a word no code reads (the literal pool of code no
 * walk reaches, in busybox), and with its prologue scheduled below the
 * loads of constants (gcc's GOT base and stack guard: "ldr r2, [pc];
 * movw r3; ldr r1, [pc]; add r2, pc; push {r4, r5, r6, lr}").  Function
 * discovery takes the pointer from the push that saves lr after them.
 *
 * gt_tail_stub2 and gt_tail_stub: 6 bytes each, their symbols' sizes
 * covering them ("movs r2, #5; b.w 3f", libgcc's __gnu_ashl* stubs),
 * tail-calling helpers after them that no symbol names (libgcc's static
 * helpers in a stripped file), the last stub the second helper.
 * Discovery ends each stub's walk at its size and finds both helpers
 * as tail calls' targets; a walk of the last stub run on to the next
 * known start would cover the first helper, and no start would be
 * taken inside it.
 *
 * gt_jump_over ends in a tail call to gt_jumped_to over gt_ptr_between,
 * which only a pointer in the data names and which saves lr first
 * (busybox's applet table names such a function between one applet's
 * main and the one it tail-calls).  In a stripped build the walk of
 * gt_jump_over runs on into gt_jumped_to; discovery still takes the
 * pointer, as the code it names saves lr and no walk reached it.
 *
 * gt_pool_pick: one of two doubles after the code, picked as clang
 * picks a constant: "adr r2, 7f; it ne; addne r2, #8; vldr d0, [r2]",
 * both undefined as Thumb instructions, before a literal "ldr r1, 9f"
 * reads.  In the stripped builds only the vldr, through either value of
 * r2, shows the 16 bytes are data (chromium's code has this shape).
 *
 * gt_adr_switch: a switch whose table of halfword offsets lies after
 * the code, not after the tbh ("adr r3, 6f; tbh [r3, r2, lsl #1]", as
 * clang's Thumb code has it where the table cannot follow the
 * instruction), a literal right after the tbh, one case reading a pool
 * word that code after it follows; both words undefined as Thumb
 * instructions.  In the stripped builds only the table, read through
 * r3, shows where the cases are (chromium's code has this shape).
 *
 * gt_push8: lr pushed with room, sp kept 8-byte aligned ("str lr, [sp,
 * #-8]!" ... "ldr pc, [sp], #8", libgcc's __aeabi_dcmpeq and its kin).
 *
 * gt_fill_call ends in a call that never returns, followed by lld's fill
 * (0xd4d4, "bmi" in Thumb code) up to the 8-byte aligned gt_fill_next, a
 * leaf that only a pointer in the data names (chromium's code has this
 * shape).  In the stripped builds the walk of gt_fill_call ends at the
 * call, as a conditional instruction never follows one, and the end of
 * the fill starts a function; read as code, the fill would carry the
 * walk into gt_fill_next, which would then start nowhere.
 *
 * gt_push_iter pushes r3-r11 and lr, calls the function in r2 with sp in
 * r2, then drops the ten slots but lr's with "add sp, #36" and returns
 * with "pop {pc}" (chromium's stack scan for its garbage collector has
 * this shape): r4-r11 were stored, not written, so they still hold the
 * caller's values once their slots go.
 */
/*
 * gt_guard_ret's and gt_guard_tail's body: the guard derived from r0
 * kept at [sp, #20], then gt_fp_sum of the four words at r1, copied to
 * sp.
 */
#define GT_GUARD_SUM							\
"	movw r8, #0x4b1d\n"						\
"	movt r8, #0x5eed\n"						\
"	eor r8, r8, r0\n"						\
"	str.w r8, [sp, #20]\n"						\
"	ldm r1, {r0, r1, r2, r3}\n"					\
"	stm.w sp, {r0, r1, r2, r3}\n"					\
"	mov r0, sp\n"							\
"	movs r1, #4\n"							\
"	bl gt_fp_sum\n"
unsigned int gt_fp_local(unsigned int n, const unsigned int *v);
unsigned int gt_r7_local(unsigned int n, const unsigned int *v);
unsigned int gt_arm_switch(unsigned int n, const unsigned int *v);
unsigned int gt_noret(unsigned int n, const unsigned int *v);
unsigned int gt_guard_ret(unsigned int n, const unsigned int *v);
unsigned int gt_guard_alloca(unsigned int n, const unsigned int *v);
unsigned int gt_guard_tail(unsigned int n, const unsigned int *v);
unsigned int gt_tail_sum(const unsigned int *v, unsigned int n);
unsigned int gt_ptr_leaf(const unsigned int *v, unsigned int n);
unsigned int gt_thunk(const unsigned int *v, unsigned int n);
unsigned int gt_neon_const(const unsigned int *v, unsigned int n);
unsigned int gt_ptr_sched(const unsigned int *v, unsigned int n);
unsigned int gt_tail_stub(const unsigned int *v, unsigned int n);
unsigned int gt_tail_stub2(const unsigned int *v, unsigned int n);
unsigned int gt_push8(const unsigned int *v, unsigned int n);
unsigned int gt_jump_over(const unsigned int *v, unsigned int n);
unsigned int gt_ptr_between(const unsigned int *v, unsigned int n);
unsigned int gt_pool_pick(const unsigned int *v, unsigned int n);
unsigned int gt_adr_switch(const unsigned int *v, unsigned int n);
unsigned int gt_fill_call(const unsigned int *v, unsigned int n);
unsigned int gt_fill_next(const unsigned int *v, unsigned int n);
unsigned int gt_push_iter(const unsigned int *v, unsigned int n,
			  unsigned int (*fn)(const unsigned int *v,
					     unsigned int n, const void *sp));
__asm__(
"	.text\n"
"	.syntax unified\n"
"	.arm\n"
"	.p2align 2\n"
"	.type gt_fp_local, %function\n"
"gt_fp_local:\n"
"	push {r4, r5, r6, r8, fp, lr}\n"
"	add fp, sp, #20\n"
"	sub sp, sp, #40\n"
"	mov r4, r0\n"
"	mov r5, r1\n"
"	mov r6, #0\n"
"1:	tst r4, #1\n"
"	subeq r8, fp, #56\n"
"	bne 2f\n"
"	ldm r5, {r0, r1, r2, r3}\n"
"	stm r8, {r0, r1, r2, r3}\n"
"	mov r0, r8\n"
"	mov r1, #4\n"
"	bl gt_fp_sum\n"
"	add r6, r6, r0\n"
"	b 3f\n"
"2:	ldr r0, [r5]\n"
"	add r6, r6, r0\n"
"3:	lsrs r4, r4, #1\n"
"	bne 1b\n"
"	mov r0, r6\n"
"	sub sp, fp, #20\n"
"	pop {r4, r5, r6, r8, fp, pc}\n"
"	.size gt_fp_local, . - gt_fp_local\n"
"	.thumb\n"
"	.p2align 1\n"
"	.type gt_r7_local, %function\n"
"	.thumb_func\n"
"gt_r7_local:\n"
"	push {r4, r5, r6, r7, lr}\n"
"	add r7, sp, #12\n"
"	sub sp, #36\n"
"	mov r4, r0\n"
"	mov r5, r1\n"
"	movs r6, #0\n"
"1:	tst r4, #1\n"
"	it eq\n"
"	subeq r2, r7, #40\n"
"	bne 2f\n"
"	ldr r0, [r5]\n"
"	ldr r1, [r5, #4]\n"
"	strd r0, r1, [r2]\n"
"	mov r0, r2\n"
"	movs r1, #2\n"
"	bl gt_fp_sum\n"
"	add r6, r0\n"
"	b 3f\n"
"2:	ldr r0, [r5]\n"
"	add r6, r0\n"
"3:	lsrs r4, r4, #1\n"
"	bne 1b\n"
"	mov r0, r6\n"
"	subs r7, #12\n"
"	mov sp, r7\n"
"	pop {r4, r5, r6, r7, pc}\n"
"	.size gt_r7_local, . - gt_r7_local\n"
"	.arm\n"
"	.p2align 2\n"
"	.type gt_arm_switch, %function\n"
"gt_arm_switch:\n"
"	push {r4, r5, r6, fp, lr}\n"
"	add fp, sp, #12\n"
"	sub sp, sp, #4\n"
"	mov r4, r0\n"
"	mov r6, r1\n"
"	mov r5, #0\n"
"1:	and r3, r4, #3\n"
"	movw r2, #2\n"
"	cmp r3, r2\n"
"	addls pc, pc, r3, lsl #2\n"
"	b 6f\n"
"	b 2f\n"
"	b 3f\n"
"	b 4f\n"
"2:	ldr r0, 5f\n"
"	add r5, r5, r0\n"
"	b 6f\n"
"5:	.word 0xe12fff1e\n"
"3:	mov r0, r6\n"
"	mov r1, #4\n"
"	bl gt_fp_sum\n"
"	add r5, r5, r0\n"
"	b 6f\n"
"4:	adr r2, 7f\n"
"	ldr r0, [r2]\n"
"	eor r5, r5, r0\n"
"	ldr r0, [r6]\n"
"	eor r5, r5, r0\n"
"	b 6f\n"
"7:	.word 0xe12fff1e\n"
"6:	lsrs r4, r4, #2\n"
"	bne 1b\n"
"	mov r0, r5\n"
"	sub sp, fp, #12\n"
"	pop {r4, r5, r6, fp, pc}\n"
"	.size gt_arm_switch, . - gt_arm_switch\n"
"	.thumb\n"
"	.p2align 1\n"
"	.type gt_noret, %function\n"
"	.thumb_func\n"
"gt_noret:\n"
"	cbz r1, 9f\n"
"	push {r4, r5, r7, lr}\n"
"	add r7, sp, #0\n"
"	mov r4, r0\n"
"	mov r5, r1\n"
"	cmp r4, #0x1000\n"
"	bhs 8f\n"
"	mov r0, r5\n"
"	movs r1, #4\n"
"	bl gt_fp_sum\n"
"	add r0, r4\n"
"	pop {r4, r5, r7, pc}\n"
"8:	bl gt_never\n"
"9:	movs r0, #1\n"
"	bx lr\n"
"	.size gt_noret, . - gt_noret\n"
"	.p2align 1\n"
"	.type gt_guard_ret, %function\n"
"	.thumb_func\n"
"gt_guard_ret:\n"
"	push {r4, r5, r6, r7, lr}\n"
"	add r7, sp, #12\n"
"	push.w {r8, r9, r10, r11}\n"
"	sub sp, #24\n"
"	mov r4, r0\n"
GT_GUARD_SUM
"	add r0, r4\n"
"	ldr r1, [sp, #20]\n"
"	cmp r1, r8\n"
"	ittt eq\n"
"	addeq sp, #24\n"
"	ldmiaeq.w sp!, {r8, r9, r10, r11}\n"
"	popeq {r4, r5, r6, r7, pc}\n"
"	bl gt_never\n"
"	bkpt #0\n"
"	udf #0\n"
"	.size gt_guard_ret, . - gt_guard_ret\n"
"	.p2align 1\n"
"	.type gt_guard_alloca, %function\n"
"	.thumb_func\n"
"gt_guard_alloca:\n"
"	push {r4, r5, r6, r7, lr}\n"
"	add r7, sp, #12\n"
"	push.w {r8, r9, r10, r11}\n"
"	sub sp, #4\n"
"	vpush {d8-d9}\n"
"	mov r5, r1\n"
"	and r6, r0, #3\n"
"	lsls r2, r6, #3\n"
"	adds r2, #16\n"
"	sub.w sp, sp, r2\n"
"	movw r8, #0x4b1d\n"
"	movt r8, #0x5eed\n"
"	eor r8, r8, r0\n"
"	str r8, [r7, #-32]\n"
"	ldm r5, {r0, r1, r2, r3}\n"
"	stm.w sp, {r0, r1, r2, r3}\n"
"	mov r0, sp\n"
"	movs r1, #4\n"
"	bl gt_fp_sum\n"
"	ldr r1, [r7, #-32]\n"
"	cmp r1, r8\n"
"	itttt eq\n"
"	addeq r0, r6\n"
"	subeq.w r4, r7, #48\n"
"	moveq sp, r4\n"
"	vpopeq {d8-d9}\n"
"	ittt eq\n"
"	addeq sp, #4\n"
"	ldmiaeq.w sp!, {r8, r9, r10, r11}\n"
"	popeq {r4, r5, r6, r7, pc}\n"
"	bl gt_never\n"
"	.size gt_guard_alloca, . - gt_guard_alloca\n"
"	.p2align 1\n"
"	.type gt_guard_tail, %function\n"
"	.thumb_func\n"
"gt_guard_tail:\n"
"	push {r4, r5, r6, r7, lr}\n"
"	add r7, sp, #12\n"
"	str.w r8, [sp, #-4]!\n"
"	sub sp, #24\n"
"	mov r4, r0\n"
"	mov r5, r1\n"
GT_GUARD_SUM
"	add r4, r0\n"
"	ldr r1, [sp, #20]\n"
"	cmp r1, r8\n"
"	mov r0, r5\n"
"	mov r1, r4\n"
"	itttt eq\n"
"	addeq sp, #24\n"
"	ldreq.w r8, [sp], #4\n"
"	ldmiaeq.w sp!, {r4, r5, r6, r7, lr}\n"
"	beq.w gt_tail_sum\n"
"	bl gt_never\n"
"	bkpt #0\n"
"	udf #0\n"
"	.size gt_guard_tail, . - gt_guard_tail\n"
"	.p2align 1\n"
"	.type gt_ptr_leaf, %function\n"
"	.thumb_func\n"
"gt_ptr_leaf:\n"
"	mov r2, r1\n"
"	movs r3, #32\n"
"1:	ldr.w ip, [r0], #4\n"
"	eor.w r2, ip, r2, ror #5\n"
"	subs r3, #1\n"
"	bne 1b\n"
"	mov r0, r2\n"
"	bx lr\n"
"	.size gt_ptr_leaf, . - gt_ptr_leaf\n"
"	.p2align 2\n"
"	.type gt_thunk, %function\n"
"	.thumb_func\n"
"gt_thunk:\n"
"	adds r0, #16\n"
"	b.w gt_thunk_body\n"
"	.size gt_thunk, . - gt_thunk\n"
"	.hword 0xd4d4\n"
"	.type gt_thunk_body, %function\n"
"	.thumb_func\n"
"gt_thunk_body:\n"
"	push {r4, r5, r7, lr}\n"
"	add r7, sp, #8\n"
"	mov r5, r1\n"
"	movs r1, #4\n"
"	bl gt_fp_sum\n"
"	add r0, r5\n"
"	pop {r4, r5, r7, pc}\n"
"	.size gt_thunk_body, . - gt_thunk_body\n"
"	.p2align 1\n"
"	.type gt_tail_sum, %function\n"
"	.thumb_func\n"
"gt_tail_sum:\n"
"	ldr r2, [r0]\n"
"	ldr r3, [r0, #4]\n"
"	add r2, r3\n"
"	ldr r3, [r0, #8]\n"
"	eor r2, r2, r3, ror #7\n"
"	add r0, r2, r1\n"
"	bx lr\n"
"	.size gt_tail_sum, . - gt_tail_sum\n"
"	.fpu neon\n"
"	.p2align 2\n"
"	.type gt_neon_const, %function\n"
"	.thumb_func\n"
"gt_neon_const:\n"
"	push {r4, lr}\n"
"	mov r4, r1\n"
"	adr r2, 7f\n"
"	ldr r3, [r0]\n"
"	vld1.64 {d0-d1}, [r2 :128]\n"
"	vmov r0, r1, d0\n"
"	eors r0, r3\n"
"	add r0, r1\n"
"	vmov r1, r2, d1\n"
"	add r0, r2\n"
"	add r0, r4\n"
"	ldr r1, 8f\n"
"	add r0, r1\n"
"	pop {r4, pc}\n"
"	.p2align 4\n"
"7:	.word 0xffffffff, 0xffffffd7, 0x01858000, 0xfffffb49\n"
"8:	.word 0x9e3779b9\n"
"	.size gt_neon_const, . - gt_neon_const\n"
"	.word 0xffffffff\n"
"	.type gt_ptr_sched, %function\n"
"	.thumb_func\n"
"gt_ptr_sched:\n"
"	ldr r2, 9f\n"
"	movw r3, #0x2545\n"
"	ldr r1, 8b\n"
"	6: add r2, pc\n"
"	push {r4, r5, r6, lr}\n"
"	ldr r4, [r2]\n"
"	eors r4, r3\n"
"	add r4, r1\n"
"	mov r5, r0\n"
"	movs r1, #8\n"
"	bl gt_fp_sum\n"
"	add r0, r4\n"
"	ldr r6, [r5, #12]\n"
"	add r0, r6\n"
"	pop {r4, r5, r6, pc}\n"
"	.p2align 2\n"
"9:	.word 7b - (6b + 4)\n"
"	.size gt_ptr_sched, . - gt_ptr_sched\n"
"	.p2align 2\n"
"	.type gt_tail_stub2, %function\n"
"	.thumb_func\n"
"gt_tail_stub2:\n"
"	movs r2, #5\n"
"	b.w 3f\n"
"	.size gt_tail_stub2, . - gt_tail_stub2\n"
"	nop\n"
"	.type gt_tail_stub, %function\n"
"	.thumb_func\n"
"gt_tail_stub:\n"
"	movs r2, #3\n"
"	b.w 4f\n"
"	.size gt_tail_stub, . - gt_tail_stub\n"
"	nop\n"
"3:	push {r4, lr}\n"
"	mov r4, r2\n"
"	movs r1, #4\n"
"	bl gt_fp_sum\n"
"	add r0, r4\n"
"	pop {r4, pc}\n"
"4:	push {r4, r5, r6, lr}\n"
"	mov r4, r2\n"
"	movs r1, #8\n"
"	bl gt_fp_sum\n"
"	eors r0, r4\n"
"	pop {r4, r5, r6, pc}\n"
"	.p2align 2\n"
"	.type gt_push8, %function\n"
"	.thumb_func\n"
"gt_push8:\n"
"	str lr, [sp, #-8]!\n"
"	movs r1, #4\n"
"	bl gt_fp_sum\n"
"	adds r0, #1\n"
"	ldr pc, [sp], #8\n"
"	.size gt_push8, . - gt_push8\n"
"	.p2align 2\n"
"	.type gt_jump_over, %function\n"
"	.thumb_func\n"
"gt_jump_over:\n"
"	push {r4, lr}\n"
"	ldr r4, [r0]\n"
"	adds r1, r4\n"
"	pop {r4, lr}\n"
"	b.w gt_jumped_to\n"
"	.size gt_jump_over, . - gt_jump_over\n"
"	.p2align 2\n"
"	.type gt_ptr_between, %function\n"
"	.thumb_func\n"
"gt_ptr_between:\n"
"	push {r4, r5, r6, lr}\n"
"	mov r4, r1\n"
"	movs r1, #4\n"
"	bl gt_fp_sum\n"
"	add r0, r4\n"
"	pop {r4, r5, r6, pc}\n"
"	.size gt_ptr_between, . - gt_ptr_between\n"
"	.type gt_jumped_to, %function\n"
"	.thumb_func\n"
"gt_jumped_to:\n"
"	push {r4, lr}\n"
"	mov r4, r1\n"
"	movs r1, #8\n"
"	bl gt_fp_sum\n"
"	eors r0, r4\n"
"	pop {r4, pc}\n"
"	.size gt_jumped_to, . - gt_jumped_to\n"
"	.p2align 2\n"
"	.type gt_pool_pick, %function\n"
"	.thumb_func\n"
"gt_pool_pick:\n"
"	push {r4, r5, r6, lr}\n"
"	mov r5, r0\n"
"	mov r4, r1\n"
"	adr r2, 7f\n"
"	tst r4, #1\n"
"	it ne\n"
"	addne r2, #8\n"
"	vldr d0, [r2]\n"
"	vmov r6, r3, d0\n"
"	eors r6, r3\n"
"	movs r1, #8\n"
"	bl gt_fp_sum\n"
"	add r0, r6\n"
"	add r0, r4\n"
"	ldr r1, 9f\n"
"	add r0, r1\n"
"	pop {r4, r5, r6, pc}\n"
"	.p2align 3\n"
"7:	.word 0xffffffff, 0xffffffd7, 0xffffffff, 0xfffffb49\n"
"9:	.word 0x9e3779b9\n"
"	.size gt_pool_pick, . - gt_pool_pick\n"
"	.p2align 2\n"
"	.type gt_adr_switch, %function\n"
"	.thumb_func\n"
"gt_adr_switch:\n"
"	push {r4, lr}\n"
"	mov r4, r0\n"
"	and r2, r1, #3\n"
"	ldr r1, 9f\n"
"	cmp r2, #2\n"
"	bhi 5f\n"
"	adr r3, 6f\n"
"	tbh [r3, r2, lsl #1]\n"
"3:	.p2align 2\n"
"9:	.word 0xffffffd7\n"
"0:	ldr r0, [r4]\n"
"	b 4f\n"
"1:	mov r0, r4\n"
"	movs r1, #4\n"
"	bl gt_fp_sum\n"
"	b 4f\n"
"2:	ldr r0, [r4, #8]\n"
"	ldr r3, 8f\n"
"	eors r0, r3\n"
"4:	add r0, r1\n"
"	pop {r4, pc}\n"
"	.p2align 2\n"
"8:	.word 0xfffffb49\n"
"5:	movs r0, #0\n"
"	b 4b\n"
"	.p2align 2\n"
"6:	.hword (0b - 3b) / 2, (1b - 3b) / 2, (2b - 3b) / 2\n"
"	.size gt_adr_switch, . - gt_adr_switch\n"
"	.p2align 2\n"
"	.type gt_fill_call, %function\n"
"	.thumb_func\n"
"gt_fill_call:\n"
"	push {r4, lr}\n"
"	cmp r1, #4096\n"
"	bhi 1f\n"
"	mov r4, r1\n"
"	movs r1, #4\n"
"	bl gt_fp_sum\n"
"	add r0, r4\n"
"	pop {r4, pc}\n"
"1:	bl abort\n"
"	.size gt_fill_call, . - gt_fill_call\n"
"	.hword 0xd4d4, 0xd4d4, 0xd4d4\n"
"	.p2align 3, 0xd4\n"
"	.type gt_fill_next, %function\n"
"	.thumb_func\n"
"gt_fill_next:\n"
"	ldr r2, [r0, #4]\n"
"	adds r0, r1, r2\n"
"	bx lr\n"
"	.size gt_fill_next, . - gt_fill_next\n"
"	.p2align 2\n"
"	.type gt_push_iter, %function\n"
"	.thumb_func\n"
"gt_push_iter:\n"
"	push {r3, r4, r5, r6, r7, r8, r9, sl, fp, lr}\n"
"	mov r3, r2\n"
"	mov r2, sp\n"
"	blx r3\n"
"	add sp, #36\n"
"	pop {pc}\n"
"	.size gt_push_iter, . - gt_push_iter\n"
#ifdef __thumb__
"	.thumb\n"
#else
"	.arm\n"
#endif
);

/* A program for run_ops, different for each n. */
static unsigned int interpret(unsigned int n, const unsigned int *v)
{
	unsigned char code[48];
	unsigned int h = 0;

	for (unsigned int i = 0; i < sizeof(code); i++)
		code[i] = (unsigned char)((v[i & 31] >> (i & 7)) + i * 37 + n);
	for (unsigned int i = 0; i < 16; i++)
		h += gt_call_hidden(n + i);
	h += never_returns(n);
	return run_ops(code, sizeof(code), v) + gt_pic_switch(code) +
	       gt_pic_switch_wide(code) + gt_pic_switch_lr(code) +
	       gt_fp_dispatch(code) + h;
}

/* gt_ptr_leaf's, gt_ptr_sched's, gt_ptr_between's and gt_fill_next's only
 * references: pointers in the data */
static unsigned int (*volatile gt_ptr)(const unsigned int *, unsigned int) =
	gt_ptr_leaf;
static unsigned int (*volatile gt_ptr2)(const unsigned int *, unsigned int) =
	gt_ptr_sched;
static unsigned int (*volatile gt_ptr3)(const unsigned int *, unsigned int) =
	gt_ptr_between;
static unsigned int (*volatile gt_ptr4)(const unsigned int *, unsigned int) =
	gt_fill_next;

/* gt_push_iter's callee: the words from its sp up, summed with v's */
static unsigned int push_iter_fn(const unsigned int *v, unsigned int n,
				 const void *sp)
{
	const unsigned int *w = sp;
	unsigned int h = n;

	for (unsigned int i = 0; i < 10; i++)
		h = h * 31 + (w[i] != 0);
	return h + mix(v, 32);
}

unsigned int nocfi_work(unsigned int n)
{
	unsigned int v[32];

	if (n > 4096)
		abort();	/* never: a noreturn call at the end */
	for (unsigned int i = 0; i < 32; i++)
		v[i] = n + i * 0x9e3779b9u;
	if (nocfi_trap)
		__builtin_trap();
	nocfi_sink = mix(v, 32) + scratch(n & 63) + dispatch(n, v) +
		     interpret(n, v) + maybe_alloca(n, v) + alloca_loop(n, v) +
		     gt_fp_local(n, v) + gt_r7_local(n, v) +
		     gt_arm_switch(n, v) + gt_noret(n, v) +
		     gt_guard_ret(n, v) + gt_guard_alloca(n, v) +
		     gt_guard_tail(n, v) + gt_tail_sum(v, n) + gt_ptr(v, n) +
		     gt_thunk(v, n) + gt_neon_const(v, n) + gt_ptr2(v, n) +
		     gt_tail_stub(v, n) + gt_tail_stub2(v, n) + gt_push8(v, n) +
		     gt_jump_over(v, n) + gt_ptr3(v, n) + gt_pool_pick(v, n) +
		     gt_adr_switch(v, n) + gt_fill_call(v, n) + gt_ptr4(v, n) +
		     gt_push_iter(v, n, push_iter_fn);
	return nocfi_sink;
}
