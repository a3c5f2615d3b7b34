// SPDX-License-Identifier: GPL-2.0
/*
 * Prologue analysis (tools/uwprof/table/prologue_*.c).
 *
 * Hand-assembled ARM and Thumb sequences (bytes checked against the
 * encodings in the ARM ARM) with the rules each instruction boundary must
 * get, and the forms the analysis must refuse.  Then lua5.4 (gcc and
 * clang builds, which carry DWARF CFI): every function the analysis
 * accepts must agree with libdw's CFI at every address where either
 * changes.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdlib.h>
#include "harness.h"
#include "table/prologue.h"
#include "table/elf.h"

/* The full state the analysis gives at @addr (rows are full states). */
static const struct tb_row *state_at(const struct tb_cfi_func *f, u32 addr)
{
	const struct tb_row *r = NULL;

	for (u32 i = 0; i < f->nrows && f->rows[i].addr <= addr; i++)
		r = &f->rows[i];
	return r;
}

static void free_func(struct tb_cfi_func *f)
{
	free(f->rows);
	memset(f, 0, sizeof(*f));
}

/* Expected state: cfa, then (slot, offset) pairs; slot TB_RA for lr. */
struct want {
	u32 off;
	s32 cfa;
	int nsaved;
	int reg[8];
	s32 at[8];
};

static void check_state(const struct tb_cfi_func *f, u32 base,
			const struct want *w)
{
	const struct tb_row *r = state_at(f, base + w->off);
	int saved = 0;

	if (!r) {
		th_fail(__FILE__, __LINE__, "+0x%x: no row", w->off);
		return;
	}
	if (r->cfa_kind != TB_CFA_REG || r->cfa_reg != 13 || r->cfa_off != w->cfa)
		th_fail(__FILE__, __LINE__, "+0x%x: CFA sp+%d, want sp+%d",
			w->off, r->cfa_off, w->cfa);
	for (int i = 0; i < TB_NREGS; i++)
		saved += r->r[i].kind == TB_R_OFFSET;
	if (saved != w->nsaved)
		th_fail(__FILE__, __LINE__, "+0x%x: %d saved, want %d", w->off,
			saved, w->nsaved);
	for (int k = 0; k < w->nsaved; k++) {
		const struct tb_rule *ru = &r->r[w->reg[k]];

		if (ru->kind != TB_R_OFFSET || ru->off != w->at[k])
			th_fail(__FILE__, __LINE__, "+0x%x: slot %d at %d, want %d",
				w->off, w->reg[k], ru->kind == TB_R_OFFSET ?
				ru->off : 0, w->at[k]);
	}
	if (!w->nsaved && !(r->r[TB_RA].kind == TB_R_SAME ||
			    (r->r[TB_RA].kind == TB_R_REG && r->r[TB_RA].reg == 14)))
		th_fail(__FILE__, __LINE__, "+0x%x: return address not in lr",
			w->off);
}

static int analyse(const u8 *b, u32 n, bool thumb, struct tb_cfi_func *f)
{
	char why[160];
	int r;

	memset(f, 0, sizeof(*f));
	r = tb_prologue_analyse(b, n, 0x1000, thumb, NULL, 0, f, why, sizeof(why));
	if (r <= 0)
		printf("# not analysed: %s\n", why);
	return r;
}

/* @code analysed whole, with the states @w at their offsets. */
static void analysed_as(const u8 *code, u32 n, bool thumb,
			const struct want *w, u32 nw)
{
	struct tb_cfi_func f;

	CHECK_EQ_U32(analyse(code, n, thumb, &f), n);
	for (u32 i = 0; i < nw; i++)
		check_state(&f, 0x1000, &w[i]);
	free_func(&f);
}

TEST(thumb_push_sub_epilogue)
{
	/* push {r4-r7, lr}; sub sp, #16; movs r0, #0; add sp, #16;
	 * pop {r4-r7, pc} */
	static const u8 code[] = { 0xf0, 0xb5, 0x84, 0xb0, 0x00, 0x20,
				   0x04, 0xb0, 0xf0, 0xbd };
	static const struct want w[] = {
		{ 0, 0, 0, { 0 }, { 0 } },
		{ 2, 20, 5, { 4, 5, 6, 7, TB_RA }, { -20, -16, -12, -8, -4 } },
		{ 4, 36, 5, { 4, 5, 6, 7, TB_RA }, { -20, -16, -12, -8, -4 } },
		{ 6, 36, 5, { 4, 5, 6, 7, TB_RA }, { -20, -16, -12, -8, -4 } },
		{ 8, 20, 5, { 4, 5, 6, 7, TB_RA }, { -20, -16, -12, -8, -4 } },
	};
	struct tb_cfi_func f;

	CHECK_EQ_U32(analyse(code, sizeof(code), true, &f), sizeof(code));
	for (u32 i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		check_state(&f, 0x1000, &w[i]);
	CHECK_EQ_U32(f.source, TB_SRC_PROLOGUE);
	free_func(&f);
}

TEST(thumb_vpush)
{
	/* push {r4, lr}; vpush {d8-d9}; movs r0, #0; vpop {d8-d9};
	 * pop {r4, pc} */
	static const u8 code[] = { 0x10, 0xb5, 0x2d, 0xed, 0x04, 0x8b, 0x00,
				   0x20, 0xbd, 0xec, 0x04, 0x8b, 0x10, 0xbd };
	static const struct want w[] = {
		{ 2, 8, 2, { 4, TB_RA }, { -8, -4 } },
		{ 6, 24, 4, { 4, TB_RA, TB_D0 + 8, TB_D0 + 9 },
		  { -8, -4, -24, -16 } },
		{ 12, 8, 2, { 4, TB_RA }, { -8, -4 } },
	};

	analysed_as(code, sizeof(code), true, w, sizeof(w) / sizeof(w[0]));
}

TEST(thumb_leaf_returns_to_lr)
{
	/* adds r0, r0, r1; bx lr */
	static const u8 code[] = { 0x40, 0x18, 0x70, 0x47 };
	static const struct want w = { 2, 0, 0, { 0 }, { 0 } };
	struct tb_cfi_func f;

	CHECK_EQ_U32(analyse(code, sizeof(code), true, &f), sizeof(code));
	check_state(&f, 0x1000, &w);
	CHECK_EQ_U32(f.nrows, 1);
	free_func(&f);
}

TEST(arm_push_sub_epilogue)
{
	/* push {r4, r5, fp, lr}; sub sp, sp, #8; mov r0, #0;
	 * add sp, sp, #8; pop {r4, r5, fp, pc} */
	static const u8 code[] = { 0x30, 0x48, 0x2d, 0xe9, 0x08, 0xd0, 0x4d,
				   0xe2, 0x00, 0x00, 0xa0, 0xe3, 0x08, 0xd0,
				   0x8d, 0xe2, 0x30, 0x88, 0xbd, 0xe8 };
	static const struct want w[] = {
		{ 0, 0, 0, { 0 }, { 0 } },
		{ 4, 16, 4, { 4, 5, 11, TB_RA }, { -16, -12, -8, -4 } },
		{ 8, 24, 4, { 4, 5, 11, TB_RA }, { -16, -12, -8, -4 } },
		{ 16, 16, 4, { 4, 5, 11, TB_RA }, { -16, -12, -8, -4 } },
	};

	analysed_as(code, sizeof(code), false, w, sizeof(w) / sizeof(w[0]));
}

TEST(arm_single_register_push)
{
	/* str lr, [sp, #-4]!; mov r0, #0; ldr pc, [sp], #4 */
	static const u8 code[] = { 0x04, 0xe0, 0x2d, 0xe5, 0x00, 0x00, 0xa0,
				   0xe3, 0x04, 0xf0, 0x9d, 0xe4 };
	static const struct want w = { 4, 4, 1, { TB_RA }, { -4 } };
	struct tb_cfi_func f;

	CHECK_EQ_U32(analyse(code, sizeof(code), false, &f), sizeof(code));
	check_state(&f, 0x1000, &w);
	free_func(&f);
}

TEST(thumb_shrink_wrapped)
{
	/* cbz r0, 1f; push {r4, lr}; movs r4, #1; pop {r4, pc};
	 * 1: bx lr -- the early return has no frame */
	static const u8 code[] = { 0x10, 0xb1, 0x10, 0xb5, 0x01, 0x24, 0x10,
				   0xbd, 0x70, 0x47 };
	static const struct want w[] = {
		{ 0, 0, 0, { 0 }, { 0 } },
		{ 2, 0, 0, { 0 }, { 0 } },
		{ 4, 8, 2, { 4, TB_RA }, { -8, -4 } },
		{ 6, 8, 2, { 4, TB_RA }, { -8, -4 } },
		{ 8, 0, 0, { 0 }, { 0 } },
	};

	analysed_as(code, sizeof(code), true, w, sizeof(w) / sizeof(w[0]));
}

TEST(thumb_strd_frame)
{
	/* The libgcc division wrappers: sub.w ip, sp, #8;
	 * strd ip, lr, [sp, #-16]!; bl .; ldr.w lr, [sp, #4];
	 * add sp, #16; bx lr */
	static const u8 code[] = { 0xad, 0xf1, 0x08, 0x0c, 0x6d, 0xe9, 0x04,
				   0xce, 0xff, 0xf7, 0xfe, 0xff, 0xdd, 0xf8,
				   0x04, 0xe0, 0x04, 0xb0, 0x70, 0x47 };
	static const struct want w[] = {
		{ 4, 0, 0, { 0 }, { 0 } },
		{ 8, 16, 2, { 12, TB_RA }, { -16, -12 } },
		{ 12, 16, 2, { 12, TB_RA }, { -16, -12 } },
		{ 16, 16, 1, { 12 }, { -16 } },
		{ 18, 0, 0, { 0 }, { 0 } },
	};

	analysed_as(code, sizeof(code), true, w, sizeof(w) / sizeof(w[0]));
}

TEST(thumb_saves_into_the_frame)
{
	/* glibc's strcmp: strd r4, r5, [sp, #-16]!; strd r6, r7, [sp, #8];
	 * movs r7, #0; ldrd r6, r7, [sp, #8]; ldrd r4, r5, [sp], #16;
	 * bx lr */
	static const u8 code[] = { 0x6d, 0xe9, 0x04, 0x45, 0xcd, 0xe9, 0x02,
				   0x67, 0x00, 0x27, 0xdd, 0xe9, 0x02, 0x67,
				   0xfd, 0xe8, 0x04, 0x45, 0x70, 0x47 };
	static const struct want w[] = {
		{ 4, 16, 2, { 4, 5 }, { -16, -12 } },
		{ 8, 16, 4, { 4, 5, 6, 7 }, { -16, -12, -8, -4 } },
		{ 10, 16, 4, { 4, 5, 6, 7 }, { -16, -12, -8, -4 } },
		{ 14, 16, 2, { 4, 5 }, { -16, -12 } },
		{ 18, 0, 0, { 0 }, { 0 } },
	};

	analysed_as(code, sizeof(code), true, w, sizeof(w) / sizeof(w[0]));
}

TEST(arm_push_with_room)
{
	/* glibc's ARM memcpy, long copies: str r8, [sp, #-32]!;
	 * strd r4, r5, [sp, #8]; mov r8, #0; ldrd r4, r5, [sp, #8];
	 * ldr r8, [sp], #32; bx lr */
	static const u8 code[] = { 0x20, 0x80, 0x2d, 0xe5, 0xf8, 0x40, 0xcd,
				   0xe1, 0x00, 0x80, 0xa0, 0xe3, 0xd8, 0x40,
				   0xcd, 0xe1, 0x20, 0x80, 0x9d, 0xe4, 0x1e,
				   0xff, 0x2f, 0xe1 };
	static const struct want w[] = {
		{ 4, 32, 1, { 8 }, { -32 } },
		{ 8, 32, 3, { 8, 4, 5 }, { -32, -24, -20 } },
		{ 12, 32, 3, { 8, 4, 5 }, { -32, -24, -20 } },
		{ 16, 32, 1, { 8 }, { -32 } },
		{ 20, 0, 0, { 0 }, { 0 } },
	};

	analysed_as(code, sizeof(code), false, w, sizeof(w) / sizeof(w[0]));
}

TEST(thumb_pop_past_unwritten_slots)
{
	/* strcmp's other return: strd r4, r5, [sp, #-16]!; movs r4, #1;
	 * ldr.w r4, [sp], #16 (r5 never written: its slot may go); bx lr */
	static const u8 code[] = { 0x6d, 0xe9, 0x04, 0x45, 0x01, 0x24, 0x5d,
				   0xf8, 0x10, 0x4b, 0x70, 0x47 };
	static const struct want w[] = {
		{ 4, 16, 2, { 4, 5 }, { -16, -12 } },
		{ 6, 16, 2, { 4, 5 }, { -16, -12 } },
		{ 10, 0, 0, { 0 }, { 0 } },
	};

	analysed_as(code, sizeof(code), true, w, sizeof(w) / sizeof(w[0]));
}

TEST(thumb_weak_call_nop_ends_the_path)
{
	/* push {r4, lr}; cbz r0, 1f; pop {r4, pc}; 1: nop.w (a call to an
	 * undefined weak function, as GNU ld leaves it) */
	static const u8 code[] = { 0x10, 0xb5, 0x00, 0xb1, 0x10, 0xbd, 0xaf,
				   0xf3, 0x00, 0x80 };
	static const struct want w[] = {
		{ 2, 8, 2, { 4, TB_RA }, { -8, -4 } },
		{ 6, 8, 2, { 4, TB_RA }, { -8, -4 } },
	};

	analysed_as(code, sizeof(code), true, w, sizeof(w) / sizeof(w[0]));
}

TEST(thumb_early_return_after_the_body)
{
	/* cmp r0, #1; bhi 1f; push {r3, lr}; pop {r3, pc};
	 * 1: movs r0, #22; bx lr: the row at 1 follows one that saved r3
	 * (a scratch register), so it must say r3 is not saved, not leave
	 * it to the row before */
	static const u8 code[] = { 0x01, 0x28, 0x01, 0xd8, 0x08, 0xb5, 0x08,
				   0xbd, 0x16, 0x20, 0x70, 0x47 };
	static const struct want w[] = {
		{ 6, 8, 2, { 3, TB_RA }, { -8, -4 } },
		{ 8, 0, 0, { 0 }, { 0 } },
	};
	struct tb_cfi_func f;

	CHECK_EQ_U32(analyse(code, sizeof(code), true, &f), sizeof(code));
	for (u32 i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		check_state(&f, 0x1000, &w[i]);
	CHECK(state_at(&f, 0x1008) && state_at(&f, 0x1008)->r[3].kind == TB_R_SAME);
	free_func(&f);
}

TEST(thumb_conditional_return_in_an_it_block)
{
	/* push {r4, r5, r7, lr}; push.w {r8, r9}; sub sp, #8; cmp r0, #0;
	 * ittt eq; addeq sp, #8; ldmiaeq.w sp!, {r8, r9};
	 * popeq {r4, r5, r7, pc}; bl . (clang's stack protector epilogue):
	 * the return's instructions after the first are reached with the
	 * frame undone in part (condition true) or whole (false) */
	static const u8 code[] = { 0xb0, 0xb5, 0x2d, 0xe9, 0x00, 0x03, 0x82,
				   0xb0, 0x00, 0x28, 0x02, 0xbf, 0x02, 0xb0,
				   0xbd, 0xe8, 0x00, 0x03, 0xb0, 0xbd, 0xff,
				   0xf7, 0xfe, 0xff };
	static const struct want w[] = {
		{ 8, 32, 6, { 4, 5, 7, 8, 9, TB_RA },
		  { -16, -12, -8, -24, -20, -4 } },
		{ 0xc, 32, 6, { 4, 5, 7, 8, 9, TB_RA },
		  { -16, -12, -8, -24, -20, -4 } },
		{ 0x14, 32, 6, { 4, 5, 7, 8, 9, TB_RA },
		  { -16, -12, -8, -24, -20, -4 } },
	};
	struct tb_cfi_func f;

	CHECK_EQ_U32(analyse(code, sizeof(code), true, &f), sizeof(code));
	for (u32 i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		check_state(&f, 0x1000, &w[i]);
	for (u32 a = 0x100e; a <= 0x1012; a += 4)
		CHECK(state_at(&f, a) &&
		      state_at(&f, a)->r[TB_RA].kind == TB_R_AMBIGUOUS);
	free_func(&f);
}

TEST(thumb_conditional_return_after_an_alloca)
{
	/* push {r4-r7, lr}; add r7, sp, #12; push.w {r8-r11}; sub sp, #4;
	 * vpush {d8-d9}; sub.w sp, sp, r0; cmp r1, #0; itttt eq;
	 * moveq r0, r6; subeq.w r4, r7, #48; moveq sp, r4;
	 * vpopeq {d8-d9}; ittt eq; addeq sp, #4;
	 * ldmiaeq.w sp!, {r8-r11}; popeq {r4-r7, pc}; bl .: sp set back
	 * from a copy of r7 made under the condition, over two IT blocks */
	static const u8 code[] = {
		0xf0, 0xb5, 0x03, 0xaf, 0x2d, 0xe9, 0x00, 0x0f, 0x81, 0xb0,
		0x2d, 0xed, 0x04, 0x8b, 0xad, 0xeb, 0x00, 0x0d, 0x00, 0x29,
		0x01, 0xbf, 0x30, 0x46, 0xa7, 0xf1, 0x30, 0x04, 0xa5, 0x46,
		0xbd, 0xec, 0x04, 0x8b, 0x02, 0xbf, 0x01, 0xb0, 0xbd, 0xe8,
		0x00, 0x0f, 0xf0, 0xbd, 0xff, 0xf7, 0xfe, 0xff };
	static const u32 on_r7[] = { 0x18, 0x2c };
	static const u32 both[] = { 0x1c, 0x1e, 0x22, 0x24, 0x26, 0x2a };
	struct tb_cfi_func f;

	CHECK_EQ_U32(analyse(code, sizeof(code), true, &f), sizeof(code));
	for (u32 i = 0; i < sizeof(on_r7) / sizeof(on_r7[0]); i++) {
		const struct tb_row *r = state_at(&f, 0x1000 + on_r7[i]);

		CHECK(r && r->r[TB_RA].kind == TB_R_OFFSET &&
		      r->cfa_kind == TB_CFA_REG && r->cfa_reg == 7 &&
		      r->cfa_off == 8);
	}
	for (u32 i = 0; i < sizeof(both) / sizeof(both[0]); i++)
		CHECK(state_at(&f, 0x1000 + both[i]) &&
		      state_at(&f, 0x1000 + both[i])->r[TB_RA].kind ==
		      TB_R_AMBIGUOUS);
	free_func(&f);
}

TEST(thumb_trap_after_a_trap_never_runs)
{
	/* push {r4, lr}; cmp r0, #0; it eq; popeq {r4, pc}; bl .; bkpt;
	 * udf #0; nop: clang's end after __stack_chk_fail, the udf
	 * reached by no path */
	static const u8 code[] = { 0x10, 0xb5, 0x00, 0x28, 0x08, 0xbf, 0x10,
				   0xbd, 0xff, 0xf7, 0xfe, 0xff, 0x00, 0xbe,
				   0x00, 0xde, 0xc0, 0x46 };
	static const struct want w[] = {
		{ 8, 8, 2, { 4, TB_RA }, { -8, -4 } },
		{ 0xc, 8, 2, { 4, TB_RA }, { -8, -4 } },
	};

	analysed_as(code, sizeof(code), true, w, sizeof(w) / sizeof(w[0]));
}

/* What must never get rows. */
TEST(arm_apcs_frame)
{
	/* mov ip, sp; push {r4, fp, ip, lr, pc}; sub fp, ip, #4;
	 * sub sp, sp, #8; mov r0, #0; sub sp, fp, #16;
	 * ldm sp, {r4, fp, sp, pc}: the pc slot is never read, sp comes
	 * back from ip's */
	static const u8 code[] = { 0x0d, 0xc0, 0xa0, 0xe1, 0x10, 0xd8, 0x2d, 0xe9,
				   0x04, 0xb0, 0x4c, 0xe2, 0x08, 0xd0, 0x4d, 0xe2,
				   0x00, 0x00, 0xa0, 0xe3, 0x10, 0xd0, 0x4b, 0xe2,
				   0x10, 0xa8, 0x9d, 0xe8 };
	static const struct want w[] = {
		{ 0, 0, 0, { 0 }, { 0 } },
		{ 8, 20, 4, { 4, 11, 12, TB_RA }, { -20, -16, -12, -8 } },
		{ 16, 28, 4, { 4, 11, 12, TB_RA }, { -20, -16, -12, -8 } },
		{ 24, 20, 4, { 4, 11, 12, TB_RA }, { -20, -16, -12, -8 } },
	};

	analysed_as(code, sizeof(code), false, w, sizeof(w) / sizeof(w[0]));
}

TEST(arm_apcs_return_from_fp)
{
	/* mov ip, sp; push {fp, ip, lr, pc}; sub fp, ip, #4;
	 * ldmdb fp, {fp, sp, pc} */
	static const u8 code[] = { 0x0d, 0xc0, 0xa0, 0xe1, 0x00, 0xd8, 0x2d, 0xe9,
				   0x04, 0xb0, 0x4c, 0xe2, 0x00, 0xa8, 0x1b, 0xe9 };
	static const struct want w[] = {
		{ 8, 16, 3, { 11, 12, TB_RA }, { -16, -12, -8 } },
		{ 12, 16, 3, { 11, 12, TB_RA }, { -16, -12, -8 } },
	};

	analysed_as(code, sizeof(code), false, w, sizeof(w) / sizeof(w[0]));
}

TEST(arm_return_address_at_sp)
{
	/* glibc's _dl_runtime_resolve, entered from PLT0 with the return
	 * address at [sp]: push {r0-r4}; bl .; mov ip, r0;
	 * pop {r0-r4, lr}; bx ip */
	static const u8 code[] = { 0x1f, 0x00, 0x2d, 0xe9, 0xfe, 0xff, 0xff,
				   0xeb, 0x00, 0xc0, 0xa0, 0xe1, 0x1f, 0x40,
				   0xbd, 0xe8, 0x1c, 0xff, 0x2f, 0xe1 };
	static const struct want w[] = {
		{ 0, 4, 1, { TB_RA }, { -4 } },
		{ 4, 24, 6, { 0, 1, 2, 3, 4, TB_RA },
		  { -24, -20, -16, -12, -8, -4 } },
		{ 12, 24, 6, { 0, 1, 2, 3, 4, TB_RA },
		  { -24, -20, -16, -12, -8, -4 } },
		{ 16, 0, 0, { 0 }, { 0 } },
	};

	analysed_as(code, sizeof(code), false, w, sizeof(w) / sizeof(w[0]));
}

TEST(refused_forms)
{
	static const struct {
		const char *what;
		bool thumb;
		u8 n;
		u8 b[20];
	} v[] = {
		/* push {r4, lr}; mov sp, r7; pop {r4, pc} */
		{ "sp from a register", true, 6,
		  { 0x10, 0xb5, 0xbd, 0x46, 0x10, 0xbd } },
		/* movs r4, #1; bx lr: a callee-saved register clobbered */
		{ "callee-saved written unsaved", true, 4,
		  { 0x01, 0x24, 0x70, 0x47 } },
		/* bl .; bx lr: the call overwrites the return address */
		{ "call from a leaf", true, 6,
		  { 0xff, 0xf7, 0xfe, 0xff, 0x70, 0x47 } },
		/* cbz r0, 1f; push {r4, lr}; 1: pop {r4, pc}: the pop is
		 * reached with and without the frame */
		{ "paths disagree", true, 6,
		  { 0x00, 0xb1, 0x10, 0xb5, 0x10, 0xbd } },
		/* push {r4, lr}; movs r4, #1; add sp, #8; bx lr: the slots
		 * are freed before anything reloads them, r4 written (with r4
		 * unwritten, freeing its slot loses nothing) */
		{ "frame freed unread", true, 8,
		  { 0x10, 0xb5, 0x01, 0x24, 0x02, 0xb0, 0x70, 0x47 } },
		/* push {r4, lr}; pop {r4, pc}; movs r1, #2: code after the
		 * return that only another function could reach */
		{ "unreached code", true, 6, { 0x10, 0xb5, 0x10, 0xbd, 0x02, 0x21 } },
		/* push {r4, lr}; movs r0, #0: runs off the end */
		{ "falls off the end", true, 4, { 0x10, 0xb5, 0x00, 0x20 } },
		/* push {r4, lr}; cbz r0, 1f; pop {r4, pc}; 1: nop: a 2-byte
		 * nop is padding, no call the linker removed */
		{ "falls off the end past a nop", true, 8,
		  { 0x10, 0xb5, 0x00, 0xb1, 0x10, 0xbd, 0x00, 0xbf } },
		/* strd r4, r5, [sp, #-16]!; movs r5, #1; ldr.w r4, [sp], #16;
		 * bx lr: r5's slot freed after r5 was written */
		{ "slot of a written register freed", true, 12,
		  { 0x6d, 0xe9, 0x04, 0x45, 0x01, 0x25, 0x5d, 0xf8, 0x10, 0x4b,
		    0x70, 0x47 } },
		/* push {r4, lr}; str r0, [sp, #4]; pop {r4, pc}: a spill onto
		 * the saved return address */
		{ "spill onto a slot", true, 6,
		  { 0x10, 0xb5, 0x01, 0x90, 0x10, 0xbd } },
		/* push {r4, lr}; bl .; str.w lr, [sp, #4]; pop {r4, pc}: lr,
		 * written by the call, over its own saved value */
		{ "written register onto its own slot", true, 12,
		  { 0x10, 0xb5, 0xff, 0xf7, 0xfe, 0xff, 0xcd, 0xf8, 0x04, 0xe0,
		    0x10, 0xbd } },
		/* ARM: push {r4, lr}; ldr r4, [sp], #-16; pop {r4, pc}: a
		 * post-indexed step down is no pop */
		{ "post-indexed step down", false, 12,
		  { 0x10, 0x40, 0x2d, 0xe9, 0x10, 0x40, 0x1d, 0xe4, 0x10, 0x80,
		    0xbd, 0xe8 } },
		/* push {r4, lr}; pop {r5, pc}: pops a slot it did not save */
		{ "epilogue mismatch", true, 4, { 0x10, 0xb5, 0x20, 0xbd } },
		/* ARM: push {fp, ip, lr, pc}; ldm sp, {fp, sp, pc}: ip was
		 * no copy of sp */
		{ "sp loaded from a slot that holds no sp", false, 8,
		  { 0x00, 0xd8, 0x2d, 0xe9, 0x00, 0xa8, 0x9d, 0xe8 } },
		/* ARM: mov ip, sp; push {fp, ip, lr, pc}; sub sp, sp, #8;
		 * ldm sp, {fp, sp, pc}: sp not moved back first */
		{ "APCS return from the wrong place", false, 16,
		  { 0x0d, 0xc0, 0xa0, 0xe1, 0x00, 0xd8, 0x2d, 0xe9,
		    0x08, 0xd0, 0x4d, 0xe2, 0x00, 0xa8, 0x9d, 0xe8 } },
		/* ARM: mov ip, sp; push {fp, ip, lr, pc}; mov ip, #0;
		 * str ip, [sp, #4]; ldm sp, {fp, sp, pc}: the copy of sp
		 * written over */
		{ "copy of sp written over", false, 20,
		  { 0x0d, 0xc0, 0xa0, 0xe1, 0x00, 0xd8, 0x2d, 0xe9,
		    0x00, 0xc0, 0xa0, 0xe3, 0x04, 0xc0, 0x8d, 0xe5,
		    0x00, 0xa8, 0x9d, 0xe8 } },
		/* push {r4, lr}; sub sp, #8; cmp r0, #0; itt eq;
		 * addeq sp, #4; popeq {r4, pc}; bl .: the conditional
		 * return leaves 4 bytes of the frame up */
		{ "conditional return that does not undo the frame", true, 16,
		  { 0x10, 0xb5, 0x82, 0xb0, 0x00, 0x28, 0x04, 0xbf, 0x01, 0xb0,
		    0x10, 0xbd, 0xff, 0xf7, 0xfe, 0xff } },
		/* push {r4, lr}; pop {r4, pc}; udf #0: a trap no path
		 * reaches, after no trap */
		{ "unreached trap", true, 6, { 0x10, 0xb5, 0x10, 0xbd, 0x00, 0xde } },
		/* ARM: push {r0-r4}; bl .; pop {r0-r4}; bx ip: the word at
		 * the entry's sp is never popped (no return address at sp) */
		{ "entry word not popped", false, 16,
		  { 0x1f, 0x00, 0x2d, 0xe9, 0xfe, 0xff, 0xff, 0xeb,
		    0x1f, 0x00, 0xbd, 0xe8, 0x1c, 0xff, 0x2f, 0xe1 } },
		/* ARM: push {r0-r4}; bl .; pop {r0-r4, lr}; add sp, sp,
		 * #4; bx ip: sp past the entry word */
		{ "sp past the entry word", false, 20,
		  { 0x1f, 0x00, 0x2d, 0xe9, 0xfe, 0xff, 0xff, 0xeb,
		    0x1f, 0x40, 0xbd, 0xe8, 0x04, 0xd0, 0x8d, 0xe2,
		    0x1c, 0xff, 0x2f, 0xe1 } },
		/* ARM: push {r0-r4}; bl .; pop {r0-r4}; bx lr: lr holds
		 * no return address once the call wrote it */
		{ "return through lr after a call", false, 16,
		  { 0x1f, 0x00, 0x2d, 0xe9, 0xfe, 0xff, 0xff, 0xeb,
		    0x1f, 0x00, 0xbd, 0xe8, 0x1e, 0xff, 0x2f, 0xe1 } },
		/* ARM: push {r0-r4}; bl .; b .: no exit pops the entry
		 * word, nothing shows it is a return address */
		{ "no exit after a call", false, 12,
		  { 0x1f, 0x00, 0x2d, 0xe9, 0xfe, 0xff, 0xff, 0xeb,
		    0xfe, 0xff, 0xff, 0xea } },
		/* push {r4, lr}; movs r0, r0 then undecodable bytes */
		{ "undecodable", false, 8,
		  { 0x10, 0x40, 0x2d, 0xe9, 0xff, 0xff, 0xff, 0xff } },
	};

	for (u32 i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct tb_cfi_func f;
		int r = analyse(v[i].b, v[i].n, v[i].thumb, &f);

		if (r != 0)
			th_fail(__FILE__, __LINE__, "%s: analysed (%d)", v[i].what, r);
		free_func(&f);
	}
}

/* ---- against DWARF on lua5.4 ---- */

static const char *build_dir(void)
{
	const char *b = getenv("BUILD");

	return b && *b ? b : "build";
}

struct agree {
	u32 funcs, analysed, points, agree, skipped;
};

/* Is DWARF register @regno saved at CFA + @off? */
static bool dw_slot(Dwarf_Frame *fr, int regno, s32 *off)
{
	Dwarf_Op mem[3], *ops;
	size_t n;

	if (dwarf_frame_register(fr, regno, mem, &ops, &n) || n != 2 ||
	    ops[0].atom != DW_OP_call_frame_cfa ||
	    ops[1].atom != DW_OP_plus_uconst)
		return false;
	*off = (s32)ops[1].number;
	return true;
}

/* Compare the analysis with libdw at one address. */
static bool same_at(Dwarf_CFI *cfi, const struct tb_cfi_func *f, u32 addr,
		    struct agree *c)
{
	const struct tb_row *r = state_at(f, addr);
	Dwarf_Frame *fr;
	Dwarf_Op *ops;
	size_t n;
	bool ok = true;

	if (!r || dwarf_cfi_addrframe(cfi, addr, &fr))
		return true;
	if (dwarf_frame_cfa(fr, &ops, &n) || n != 1 ||
	    ops[0].atom != DW_OP_bregx || ops[0].number != 13) {
		c->skipped++;		/* fp-based CFA: not comparable */
		free(fr);
		return true;
	}
	c->points++;
	ok = (s32)ops[0].number2 == r->cfa_off;
	for (int i = 0; ok && i < TB_NREGS; i++) {
		int regno = i == TB_RA ? 14 : i < 16 ? i : 256 + (i - TB_D0);
		bool dw_saved = false, pa_saved = r->r[i].kind == TB_R_OFFSET;
		s32 dw_off = 0;

		if (i == 13 || i == 14 || i == 15)
			continue;
		dw_saved = dw_slot(fr, regno, &dw_off);
		/* gcc describes d0-d15 as pairs of s registers (64 + 2n). */
		if (!dw_saved && i >= TB_D0 && i < TB_D0 + 16)
			dw_saved = dw_slot(fr, 64 + 2 * (i - TB_D0), &dw_off);
		/* r0-r3 pushed for alignment: gcc may leave them out of the
		 * CFI; restoring them is harmless, losing others is not. */
		if (i <= 3 && pa_saved && !dw_saved)
			continue;
		ok = dw_saved == pa_saved && (!pa_saved || dw_off == r->r[i].off);
	}
	free(fr);
	if (ok)
		c->agree++;
	else
		th_fail(__FILE__, __LINE__,
			"0x%x (function 0x%x): prologue analysis disagrees with DWARF (CFA sp+%d)",
			addr, f->addr, r->cfa_off);
	return ok;
}

/*
 * At every address where the DWARF CFI changes.  Not between: gcc states
 * a multi-instruction sp adjustment once, after its last instruction
 * (e.g. add.w sp, #8192; add sp, #36), so DWARF is stale in between
 * where the analysis is exact.
 */
static void compare_fn(Dwarf_CFI *cfi, const struct tb_cfi_func *f,
		       struct agree *c)
{
	for (u32 a = f->addr; a < f->addr + f->size;) {
		Dwarf_Frame *fr;
		Dwarf_Addr s, e;

		if (dwarf_cfi_addrframe(cfi, a, &fr))
			break;
		dwarf_frame_info(fr, &s, &e, NULL);
		free(fr);
		same_at(cfi, f, a, c);
		if (e <= a)
			break;
		a = e;
	}
}

static void against_dwarf(const char *tag)
{
	char path[512], err[256], why[160];
	struct tb_elf e;
	struct agree c = { 0 };
	Dwarf *dw;
	Dwarf_CFI *cfi;

	snprintf(path, sizeof(path), "%s/arm/%s/lua", build_dir(), tag);
	if (tb_elf_open(&e, path, err, sizeof(err))) {
		th_fail(__FILE__, __LINE__, "%s (run scripts/build-lua.sh)", err);
		return;
	}
	dw = dwarf_begin_elf(e.elf, DWARF_C_READ, NULL);
	cfi = dw ? dwarf_getcfi(dw) : NULL;
	CHECK(cfi != NULL);
	for (u32 i = 0; cfi && i < e.nsyms; i++) {
		struct tb_cfi_func f = { 0 };
		Dwarf_Frame *fr;

		if ((i && e.syms[i].addr == e.syms[i - 1].addr) ||
		    dwarf_cfi_addrframe(cfi, e.syms[i].addr, &fr))
			continue;	/* no CFI to compare with */
		free(fr);
		c.funcs++;
		if (tb_prologue_sym(&e, i, &f, why, sizeof(why)) == 1) {
			c.analysed++;
			compare_fn(cfi, &f, &c);
		}
		free_func(&f);
	}
	printf("# %s: %u functions with CFI, %u analysed; %u points agree of %u compared (%u fp-based skipped)\n",
	       tag, c.funcs, c.analysed, c.agree, c.points, c.skipped);
	CHECK(c.funcs > 300);
	/* The analysis must accept a real share, and never disagree. */
	CHECK(c.analysed * 4 >= c.funcs);
	CHECK_EQ_U32(c.agree, c.points);
	if (dw)
		dwarf_end(dw);
	tb_elf_close(&e);
}

TEST(lua_gcc_agrees_with_dwarf)
{
	against_dwarf("lua-gcc");
}

TEST(lua_clang_agrees_with_dwarf)
{
	against_dwarf("lua-clang");
}
