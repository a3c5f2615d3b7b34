// SPDX-License-Identifier: GPL-2.0
/*
 * Our own decoder of the common instructions (decode_fast.h), from the
 * ARM Architecture Reference Manual's encodings.  Each form is what
 * capstone 4's detail holds for the instruction, quirks included: the
 * access it gives each operand (from its tables, not always the
 * architecture's: "ldrb"'s memory operand has none), the implicit
 * registers and the groups of the opcode it decodes to.  Encodings whose
 * form is not certain are left to capstone (false).
 */
#include <string.h>
#include "table/decode_fast.h"
#include "table/decode_once.h"

#define R	CS_AC_READ
#define W	CS_AC_WRITE
#define RW	(CS_AC_READ | CS_AC_WRITE)

/* Groups: Thumb, Thumb-1 only; Thumb-2; v6 (extend, reverse). */
static const u8 g_t1[] = { ARM_GRP_THUMB, ARM_GRP_THUMB1ONLY };

/* Register number @n (0-15) as capstone names it. */
static u8 reg(u32 n)
{
	return n < 13 ? (u8)(ARM_REG_R0 + n) :
	       n == 13 ? ARM_REG_SP : n == 14 ? ARM_REG_LR : ARM_REG_PC;
}

static void start(struct tb_dec_form *f, unsigned int id, u32 size)
{
	memset(&f->rec, 0, sizeof(f->rec));
	f->rec.id = (u16)id;
	f->rec.size = (u8)size;
	f->rec.cc = ARM_CC_AL;
}

static struct tb_dec_op *add_op(struct tb_dec_form *f, u8 type, u8 access)
{
	struct tb_dec_op *o = &f->op[f->rec.op_count++];

	memset(o, 0, sizeof(*o));
	o->type = type;
	o->access = access;
	o->neon_lane = -1;
	o->vector_index = -1;
	return o;
}

static void op_reg(struct tb_dec_form *f, u32 n, u8 access)
{
	u32 r = reg(n);

	memcpy(add_op(f, ARM_OP_REG, access)->raw, &r, 4);
}

static void op_imm(struct tb_dec_form *f, s32 v)
{
	memcpy(add_op(f, ARM_OP_IMM, 0)->raw, &v, 4);
}

/* [rB, rI] or [rB, #disp]: @index 0xff for none */
static void op_mem(struct tb_dec_form *f, u32 base, u32 index, s32 disp,
		   u8 access)
{
	struct tb_dec_op *o = add_op(f, ARM_OP_MEM, access);

	o->mem.base = reg(base);
	o->mem.index = index == 0xff ? ARM_REG_INVALID : reg(index);
	o->mem.scale = 1;
	o->mem.disp = disp;
}

/* The implicit registers and groups. */
static void regs(struct tb_dec_form *f, const u8 *rd, u8 nr, const u8 *wr,
		 u8 nw, const u8 *g, u8 ng)
{
	f->rec.nread = nr;
	f->rec.nwrite = nw;
	f->rec.ngroups = ng;
	for (u8 i = 0; i < nr; i++)
		f->reg[i] = rd[i];
	for (u8 i = 0; i < nw; i++)
		f->reg[nr + i] = wr[i];
	for (u8 i = 0; i < ng; i++)
		f->reg[nr + nw + i] = g[i];
}

static void groups(struct tb_dec_form *f, const u8 *g, u8 ng)
{
	regs(f, NULL, 0, NULL, 0, g, ng);
}

static const u8 r_sp[] = { ARM_REG_SP }, r_pc[] = { ARM_REG_PC },
	r_lr[] = { ARM_REG_LR }, r_cpsr[] = { ARM_REG_CPSR },
	r_lrpc[] = { ARM_REG_LR, ARM_REG_PC };

/* Thumb 16-bit: shift by immediate, add, subtract, move, compare. */
static bool t16_shift_add(u32 h, struct tb_dec_form *f)
{
	static const unsigned int shift[] = { ARM_INS_LSL, ARM_INS_LSR,
					      ARM_INS_ASR };
	u32 op = h >> 11 & 7, rd = h & 7, rn = h >> 3 & 7, imm5 = h >> 6 & 31;
	u32 r8 = h >> 8 & 7, imm8 = h & 0xff;

	if (op < 3) {
		start(f, op == 0 && !imm5 ? ARM_INS_MOV : shift[op], 2);
		op_reg(f, rd, W);
		op_reg(f, rn, R);
		if (op || imm5) {
			op_imm(f, imm5 ? (s32)imm5 : 32);
		} else {	/* movs rd, rm */
			f->rec.update_flags = 1;
			regs(f, NULL, 0, r_cpsr, 1, g_t1, 2);
			return true;
		}
	} else if (op == 3) {
		start(f, h & 1u << 9 ? ARM_INS_SUB : ARM_INS_ADD, 2);
		op_reg(f, rd, W);
		op_reg(f, rn, R);
		if (h & 1u << 10)
			op_imm(f, (s32)(h >> 6 & 7));
		else
			op_reg(f, h >> 6 & 7, R);
	} else if (op == 4) {
		start(f, ARM_INS_MOV, 2);
		op_reg(f, r8, W);
		op_imm(f, (s32)imm8);
	} else if (op == 5) {
		start(f, ARM_INS_CMP, 2);
		op_reg(f, r8, R);
		op_imm(f, (s32)imm8);
		f->rec.update_flags = 1;
		regs(f, NULL, 0, r_cpsr, 1, g_t1, 2);
		return true;
	} else {
		start(f, op == 6 ? ARM_INS_ADD : ARM_INS_SUB, 2);
		op_reg(f, r8, RW);
		op_imm(f, (s32)imm8);
	}
	f->rec.update_flags = 1;
	groups(f, g_t1, 2);
	return true;
}

/* Thumb 16-bit: data processing on two low registers. */
static bool t16_dp(u32 h, struct tb_dec_form *f)
{
	static const unsigned int id[16] = {
		ARM_INS_AND, ARM_INS_EOR, ARM_INS_LSL, ARM_INS_LSR,
		ARM_INS_ASR, ARM_INS_ADC, ARM_INS_SBC, ARM_INS_ROR,
		ARM_INS_TST, ARM_INS_RSB, ARM_INS_CMP, ARM_INS_CMN,
		ARM_INS_ORR, ARM_INS_MUL, ARM_INS_BIC, ARM_INS_MVN };
	u32 op = h >> 6 & 15, rd = h & 7, rm = h >> 3 & 7;

	start(f, id[op], 2);
	f->rec.update_flags = 1;
	if (op == 8 || op == 10 || op == 11) {
		op_reg(f, rd, R);
		op_reg(f, rm, R);
		regs(f, NULL, 0, r_cpsr, 1, g_t1, 2);
		return true;
	}
	if (op == 9) {		/* rsbs rd, rm, #0 */
		op_reg(f, rd, W);
		op_reg(f, rm, R);
		op_imm(f, 0);
	} else if (op == 13) {	/* muls rd, rm, rd */
		op_reg(f, rd, RW);
		op_reg(f, rm, R);
		op_reg(f, rd, RW);
	} else if (op == 15) {
		op_reg(f, rd, W);
		op_reg(f, rm, R);
	} else {
		op_reg(f, rd, RW);
		op_reg(f, rm, R);
	}
	if (op == 5 || op == 6)
		regs(f, r_cpsr, 1, NULL, 0, g_t1, 2);
	else
		groups(f, g_t1, 2);
	return true;
}

/* Thumb 16-bit: add, compare, move with high registers; bx, blx. */
static bool t16_special(u32 h, struct tb_dec_form *f)
{
	static const u8 g_bx[] = { ARM_GRP_THUMB, ARM_GRP_JUMP },
		g_blx[] = { ARM_GRP_THUMB, ARM_GRP_V5T, ARM_GRP_CALL,
			    ARM_GRP_JUMP };
	u32 op = h >> 8 & 3, rdn = (h >> 4 & 8) | (h & 7), rm = h >> 3 & 15;

	if (op == 3) {
		if (h & 7)
			return false;
		start(f, h & 0x80 ? ARM_INS_BLX : ARM_INS_BX, 2);
		op_reg(f, rm, R);
		if (h & 0x80)
			regs(f, r_pc, 1, r_lrpc, 2, g_blx, 4);
		else
			regs(f, NULL, 0, r_pc, 1, g_bx, 2);
		return true;
	}
	if (op == 0 && rm == 13)
		return false;	/* "add rd, sp, rd": capstone's three operands */
	start(f, op == 0 ? ARM_INS_ADD : op == 1 ? ARM_INS_CMP : ARM_INS_MOV, 2);
	op_reg(f, rdn, op == 0 ? RW : op == 1 ? R : W);
	op_reg(f, rm, R);
	if (op == 1) {
		f->rec.update_flags = 1;
		regs(f, NULL, 0, r_cpsr, 1, g_t1, 2);
	} else {
		groups(f, g_t1, 2);
	}
	return true;
}

/* Thumb 16-bit loads and stores of one register. */
static bool t16_ldst(u32 h, struct tb_dec_form *f)
{
	static const unsigned int reg_id[8] = {
		ARM_INS_STR, ARM_INS_STRH, ARM_INS_STRB, ARM_INS_LDRSB,
		ARM_INS_LDR, ARM_INS_LDRH, ARM_INS_LDRB, ARM_INS_LDRSH };
	u32 rt = h & 7, rn = h >> 3 & 7, imm5 = h >> 6 & 31;
	bool load;
	unsigned int id;
	s32 disp;

	switch (h >> 12) {
	case 4:			/* ldr rt, [pc, #imm8 * 4] */
		start(f, ARM_INS_LDR, 2);
		op_reg(f, h >> 8 & 7, W);
		op_mem(f, 15, 0xff, (s32)(h & 0xff) * 4, R);
		groups(f, g_t1, 2);
		return true;
	case 5:
		id = reg_id[h >> 9 & 7];
		load = (h >> 9 & 7) >= 3;
		start(f, id, 2);
		op_reg(f, rt, load ? W : R);
		op_mem(f, rn, h >> 6 & 7, 0, load ? (id == ARM_INS_LDR ? R : 0) :
					       W);
		groups(f, g_t1, 2);
		return true;
	case 6:
		id = h & 0x800 ? ARM_INS_LDR : ARM_INS_STR;
		disp = (s32)imm5 * 4;
		break;
	case 7:
		id = h & 0x800 ? ARM_INS_LDRB : ARM_INS_STRB;
		disp = (s32)imm5;
		break;
	case 8:
		id = h & 0x800 ? ARM_INS_LDRH : ARM_INS_STRH;
		disp = (s32)imm5 * 2;
		break;
	default:		/* 9: [sp, #imm8 * 4] */
		id = h & 0x800 ? ARM_INS_LDR : ARM_INS_STR;
		rn = 13;
		rt = h >> 8 & 7;
		disp = (s32)(h & 0xff) * 4;
		break;
	}
	load = h & 0x800;
	start(f, id, 2);
	op_reg(f, rt, load ? W : R);
	op_mem(f, rn, 0xff, disp, load ? (id == ARM_INS_LDR ? R : 0) : W);
	groups(f, g_t1, 2);
	return true;
}

/* A register list's operands, lowest first. */
static void op_list(struct tb_dec_form *f, u32 list, u8 access)
{
	for (u32 n = 0; n < 16; n++)
		if (list & 1u << n)
			op_reg(f, n, access);
}

/* Thumb 16-bit miscellaneous (1011 xxxx): sp, cbz, extend, push, pop. */
static bool t16_misc(u32 h, u32 addr, struct tb_dec_form *f)
{
	static const unsigned int ext[4] = { ARM_INS_SXTH, ARM_INS_SXTB,
					     ARM_INS_UXTH, ARM_INS_UXTB },
		rev[4] = { ARM_INS_REV, ARM_INS_REV16, 0, ARM_INS_REVSH };
	static const u8 g_cb[] = { ARM_GRP_BRANCH_RELATIVE, ARM_GRP_THUMB2,
				   ARM_GRP_JUMP },
		g_v6[] = { ARM_GRP_THUMB, ARM_GRP_THUMB1ONLY, ARM_GRP_V6 };
	u32 op = h >> 8 & 15, list;

	switch (op) {
	case 0:			/* add/sub sp, #imm7 * 4 */
		start(f, h & 0x80 ? ARM_INS_SUB : ARM_INS_ADD, 2);
		op_reg(f, 13, RW);
		op_imm(f, (s32)(h & 0x7f) * 4);
		groups(f, g_t1, 2);
		return true;
	case 1: case 3: case 9: case 11:	/* cbz, cbnz */
		start(f, op & 8 ? ARM_INS_CBNZ : ARM_INS_CBZ, 2);
		op_reg(f, h & 7, R);
		op_imm(f, (s32)(addr + 4 + ((h >> 3 & 31) << 1 | (h >> 9 & 1) << 6)));
		groups(f, g_cb, 3);
		return true;
	case 2:
		start(f, ext[h >> 6 & 3], 2);
		op_reg(f, h & 7, W);
		op_reg(f, h >> 3 & 7, R);
		groups(f, g_v6, 3);
		return true;
	case 4: case 5: case 12: case 13:	/* push, pop */
		list = (h & 0xff) | (h & 0x100 ? (op & 8 ? 1u << 15 : 1u << 14) : 0);
		if (!list)
			return false;
		start(f, op & 8 ? ARM_INS_POP : ARM_INS_PUSH, 2);
		op_list(f, list, op & 8 ? W : R);
		regs(f, r_sp, 1, r_sp, 1, g_t1, 2);
		return true;
	case 10:
		if (!rev[h >> 6 & 3])
			return false;
		start(f, rev[h >> 6 & 3], 2);
		op_reg(f, h & 7, W);
		op_reg(f, h >> 3 & 7, R);
		groups(f, g_v6, 3);
		return true;
	case 14:
		start(f, ARM_INS_BKPT, 2);
		op_imm(f, (s32)(h & 0xff));
		groups(f, g_t1, 2);
		return true;
	default:
		return false;
	}
}

/* Thumb 16-bit stm, ldm; conditional branch, udf, svc; b. */
static bool t16_multi_branch(u32 h, u32 addr, struct tb_dec_form *f)
{
	static const u8 g_b[] = { ARM_GRP_BRANCH_RELATIVE, ARM_GRP_THUMB,
				  ARM_GRP_THUMB1ONLY, ARM_GRP_JUMP },
		g_svc[] = { ARM_GRP_THUMB, ARM_GRP_THUMB1ONLY, ARM_GRP_INT },
		g_udf[] = { ARM_GRP_THUMB };
	u32 rn = h >> 8 & 7, list = h & 0xff, cond = h >> 8 & 15;

	if (h >> 12 == 12) {
		bool load = h & 0x800, wb = !load || !(list & 1u << rn);

		if (!list)
			return false;
		start(f, load ? ARM_INS_LDM : ARM_INS_STM, 2);
		f->rec.writeback = wb;
		op_reg(f, rn, RW);
		op_list(f, list, load ? W : R);
		groups(f, g_t1, 2);
		return true;
	}
	if (h >> 11 == 0x1c) {
		start(f, ARM_INS_B, 2);
		op_imm(f, (s32)(addr + 4 + (u32)((s32)(h << 21) >> 20)));
		regs(f, NULL, 0, NULL, 0, g_b, 4);
		return true;
	}
	if (h >> 12 != 13)
		return false;
	if (cond == 14 && (h & 0xff) != 0xfe) {	/* 0xdefe: capstone's trap */
		start(f, ARM_INS_UDF, 2);
		op_imm(f, (s32)(h & 0xff));
		groups(f, g_udf, 1);
		return true;
	}
	if (cond == 14)
		return false;
	if (cond == 15) {
		start(f, ARM_INS_SVC, 2);
		op_imm(f, (s32)(h & 0xff));
		regs(f, r_pc, 1, r_lr, 1, g_svc, 3);
		return true;
	}
	start(f, ARM_INS_B, 2);
	f->rec.cc = (u8)(cond + 1);	/* capstone's ARM_CC_EQ is 1 */
	op_imm(f, (s32)(addr + 4 + (u32)((s32)(h << 24) >> 23)));
	regs(f, NULL, 0, r_pc, 1, g_b, 4);
	return true;
}

/* One 16-bit Thumb instruction, @h. */
static bool t16(u32 h, u32 addr, struct tb_dec_form *f)
{
	static const u8 g_nop[] = { ARM_GRP_THUMB, ARM_GRP_V6M };

	switch (h >> 10) {
	case 0x10:
		return t16_dp(h, f);
	case 0x11:
		return t16_special(h, f);
	default:
		break;
	}
	if (h >> 14 == 0)
		return t16_shift_add(h, f);
	if (h >> 12 >= 4 && h >> 12 <= 9 && h >> 11 != 8)
		return t16_ldst(h, f);
	if (h >> 12 == 10) {	/* adr; add rd, sp, #imm8 * 4 */
		start(f, h & 0x800 ? ARM_INS_ADD : ARM_INS_ADR, 2);
		op_reg(f, h >> 8 & 7, W);
		if (h & 0x800)
			op_reg(f, 13, R);
		op_imm(f, (s32)(h & 0xff) * 4);
		groups(f, g_t1, 2);
		return true;
	}
	if (h == 0xbf00) {
		start(f, ARM_INS_NOP, 2);
		groups(f, g_nop, 2);
		return true;
	}
	if (h >> 12 == 11)
		return t16_misc(h, addr, f);
	return t16_multi_branch(h, addr, f);
}

static const u8 g_t2[] = { ARM_GRP_THUMB2 };

/* Thumb-2 b<c>.w, b.w, bl, blx (@h the first halfword, @l the second). */
static bool t32_branch(u32 h, u32 l, u32 addr, struct tb_dec_form *f)
{
	static const u8 g_bw[] = { ARM_GRP_BRANCH_RELATIVE, ARM_GRP_THUMB2,
				   ARM_GRP_JUMP },
		g_bl[] = { ARM_GRP_BRANCH_RELATIVE, ARM_GRP_THUMB,
			   ARM_GRP_CALL, ARM_GRP_JUMP },
		g_blx[] = { ARM_GRP_BRANCH_RELATIVE, ARM_GRP_THUMB,
			    ARM_GRP_V5T, ARM_GRP_NOTMCLASS, ARM_GRP_CALL,
			    ARM_GRP_JUMP };
	u32 s = h >> 10 & 1, j1 = l >> 13 & 1, j2 = l >> 11 & 1, cond = h >> 6 & 15;
	u32 i1 = !(j1 ^ s), i2 = !(j2 ^ s), off;

	if (!(l & 0x1000)) {		/* b<c>.w (T3), or blx */
		if (l & 0x4000) {
			if (l & 1)
				return false;
			off = s << 24 | i1 << 23 | i2 << 22 | (h & 0x3ff) << 12 |
			      (l & 0x7ff) << 1;
			start(f, ARM_INS_BLX, 4);
			op_imm(f, (s32)(((addr + 4) & ~3u) +
					(u32)((s32)(off << 7) >> 7)));
			regs(f, r_pc, 1, r_lrpc, 2, g_blx, 6);
			return true;
		}
		if (cond >= 14)
			return false;
		off = s << 20 | j2 << 19 | j1 << 18 | (h & 0x3f) << 12 |
		      (l & 0x7ff) << 1;
		start(f, ARM_INS_B, 4);
		f->rec.cc = (u8)(cond + 1);
		op_imm(f, (s32)(addr + 4 + (u32)((s32)(off << 11) >> 11)));
		groups(f, g_bw, 3);
		return true;
	}
	off = s << 24 | i1 << 23 | i2 << 22 | (h & 0x3ff) << 12 | (l & 0x7ff) << 1;
	off = (u32)((s32)(off << 7) >> 7);
	if (l & 0x4000) {
		start(f, ARM_INS_BL, 4);
		op_imm(f, (s32)(addr + 4 + off));
		regs(f, r_pc, 1, r_lrpc, 2, g_bl, 4);
	} else {
		start(f, ARM_INS_B, 4);
		op_imm(f, (s32)(addr + 4 + off));
		groups(f, g_bw, 3);
	}
	return true;
}

/*
 * Thumb-2 loads and stores of one register (1111 100x xxxx): ldr, ldrb,
 * ldrh, ldrsb, ldrsh, str, strb, strh; immediate, literal and register
 * offsets.  capstone's access for the memory operand is its opcode's:
 * none for ldr and ldrb with an immediate, read for the others.
 */
static bool t32_ldst(u32 h, u32 l, struct tb_dec_form *f)
{
	u32 size = h >> 5 & 3, sign = h >> 8 & 1, load = h >> 4 & 1;
	u32 rn = h & 15, rt = l >> 12 & 15, imm8 = l & 0xff, puw = l >> 8 & 7;
	unsigned int id;
	u8 macc;
	s32 disp;

	if (size == 3 || (sign && !load) || rt == 13 ||
	    (rt == 15 && (!load || size != 2 || sign)))
		return false;	/* pld, pli; sp; pc but by ldr */
	id = !load ? (size == 0 ? ARM_INS_STRB : size == 1 ? ARM_INS_STRH :
		      ARM_INS_STR) :
	     sign ? (size == 0 ? ARM_INS_LDRSB : size == 1 ? ARM_INS_LDRSH : 0) :
	     (size == 0 ? ARM_INS_LDRB : size == 1 ? ARM_INS_LDRH : ARM_INS_LDR);
	if (!id)
		return false;
	start(f, id, 4);
	op_reg(f, rt, load ? W : R);
	if (rn == 15) {
		if (!load)
			return false;
		op_mem(f, 15, 0xff, h & 0x80 ? (s32)(l & 0xfff) :
					       -(s32)(l & 0xfff), R);
		groups(f, g_t2, 1);
		return true;
	}
	macc = !load ? W : id == ARM_INS_LDR || id == ARM_INS_LDRB ? 0 : R;
	if (h & 0x80) {			/* [rn, #imm12] */
		op_mem(f, rn, 0xff, (s32)(l & 0xfff), macc);
	} else if (!(l & 0x800)) {	/* [rn, rm, lsl #k] */
		struct tb_dec_op *o;

		if (l & 0x7c0 || (l & 15) >= 13)
			return false;
		o = add_op(f, ARM_OP_MEM, load ? R : W);
		o->mem.base = reg(rn);
		o->mem.index = reg(l & 15);
		o->mem.scale = 1;
		if (l >> 4 & 3) {
			o->shift.type = ARM_SFT_LSL;
			o->shift.value = (u8)(l >> 4 & 3);
		}
	} else {
		disp = puw & 2 ? (s32)imm8 : -(s32)imm8;
		if (puw == 6 || !(puw & 5))
			return false;	/* ldrt and kin; no index, no writeback */
		f->rec.writeback = puw & 1;
		if (puw & 4) {
			op_mem(f, rn, 0xff, disp, macc);
		} else {		/* [rn], #k */
			op_mem(f, rn, 0xff, 0, id == ARM_INS_STRH ? W : 0);
			op_imm(f, disp);
		}
	}
	groups(f, g_t2, 1);
	return true;
}

/* Thumb-2 ldm, stm (increment after, decrement before); push, pop. */
static bool t32_multi(u32 h, u32 l, struct tb_dec_form *f)
{
	u32 rn = h & 15, wb = h >> 5 & 1, load = h >> 4 & 1, db = h >> 8 & 1;
	u32 n = (u32)__builtin_popcount(l);

	if (!l || l & 0x2000 || (!load && l & 0x8000) || rn == 15 ||
	    (load && (l & 0xc000) == 0xc000) || (wb && l & 1u << rn))
		return false;
	if (rn == 13 && wb && n >= 2 && db != load) {
		start(f, load ? ARM_INS_POP : ARM_INS_PUSH, 4);
		op_list(f, l, load ? W : RW);
		regs(f, r_sp, 1, r_sp, 1, g_t2, 1);
		return true;
	}
	start(f, load ? (db ? ARM_INS_LDMDB : ARM_INS_LDM) :
			(db ? ARM_INS_STMDB : ARM_INS_STM), 4);
	f->rec.writeback = (u8)wb;
	op_reg(f, rn, wb ? RW : R);
	op_list(f, l, load ? W : R);
	groups(f, g_t2, 1);
	return true;
}

/* Thumb-2 ldrd, strd with an immediate offset, indexed or not. */
static bool t32_dual(u32 h, u32 l, struct tb_dec_form *f)
{
	u32 rn = h & 15, rt = l >> 12 & 15, rt2 = l >> 8 & 15, load = h >> 4 & 1;
	s32 disp = (s32)(l & 0xff) * 4;

	if (!(h & 0x100) || rn == 15 || rt >= 13 || rt2 >= 13 ||
	    (load && rt == rt2) || (h & 0x20 && (rn == rt || rn == rt2)))
		return false;	/* post-indexed, literal, unpredictable */
	start(f, load ? ARM_INS_LDRD : ARM_INS_STRD, 4);
	f->rec.writeback = h >> 5 & 1;
	op_reg(f, rt, load ? W : R);
	op_reg(f, rt2, load ? W : R);
	op_mem(f, rn, 0xff, h & 0x80 ? disp : -disp, 0);
	groups(f, g_t2, 1);
	return true;
}

/* ThumbExpandImm of i:imm3:imm8; false where unpredictable. */
static bool expand_imm(u32 v, u32 *out)
{
	u32 b = v & 0xff;

	switch (v >> 8) {
	case 0: *out = b; return true;
	case 1: *out = b << 16 | b; return b != 0;
	case 2: *out = b << 24 | b << 8; return b != 0;
	case 3: *out = b << 24 | b << 16 | b << 8 | b; return b != 0;
	default:
		b |= 0x80;
		v >>= 7;
		*out = b >> v | b << (32 - v);
		return true;
	}
}

/* Thumb-2 addw, subw, movw, movt (plain binary immediates). */
static bool t32_bin_imm(u32 h, u32 l, struct tb_dec_form *f)
{
	u32 op = h >> 4 & 0x1f, rn = h & 15, rd = l >> 8 & 15;
	u32 imm12 = (h >> 10 & 1) << 11 | (l >> 4 & 0x700) | (l & 0xff);

	if (rd >= 13)
		return false;
	if (op == 0 || op == 0xa) {
		start(f, op ? ARM_INS_SUBW : ARM_INS_ADDW, 4);
		op_reg(f, rd, W);
		op_reg(f, rn, R);
		op_imm(f, (s32)imm12);
	} else if (op == 4 || op == 0xc) {
		start(f, op == 4 ? ARM_INS_MOVW : ARM_INS_MOVT, 4);
		op_reg(f, rd, op == 4 ? W : RW);
		op_imm(f, (s32)(rn << 12 | imm12));
	} else {
		return false;
	}
	groups(f, g_t2, 1);
	return true;
}

/* A shifted register operand's shift: type @t, amount @imm, as capstone. */
static void shift_of(struct tb_dec_op *o, u32 t, u32 imm)
{
	static const u8 type[4] = { ARM_SFT_LSL, ARM_SFT_LSR, ARM_SFT_ASR,
				    ARM_SFT_ROR };

	if (!imm && t == 0)
		return;
	o->shift.type = !imm && t == 3 ? ARM_SFT_RRX : type[t];
	o->shift.value = (u8)(imm || t == 3 ? imm : 32);
}

/* Thumb-2 mov.w, lsl.w and kin: orr/orrs with pc as the first source. */
static bool t32_mov_reg(u32 h, u32 l, struct tb_dec_form *f)
{
	static const unsigned int shift[4] = { ARM_INS_LSL, ARM_INS_LSR,
					       ARM_INS_ASR, ARM_INS_ROR };
	u32 t = l >> 4 & 3, imm = (l >> 10 & 0x1c) | (l >> 6 & 3);

	if (t == 3 && !imm)
		return false;	/* rrx */
	start(f, !imm && !t ? ARM_INS_MOV : shift[t], 4);
	f->rec.update_flags = h >> 4 & 1;
	op_reg(f, l >> 8 & 15, W);
	op_reg(f, l & 15, R);
	if (imm || t)
		op_imm(f, imm || t == 3 ? (s32)imm : 32);
	groups(f, g_t2, 1);
	return true;
}

/* A data-processing instruction's second operand. */
struct t32_src {
	bool reg;		/* rm shifted, else imm */
	u32 imm, rm, t, sh;	/* shift type and amount as encoded */
};

static void op_src(struct tb_dec_form *f, const struct t32_src *src)
{
	if (!src->reg) {
		op_imm(f, (s32)src->imm);
		return;
	}
	op_reg(f, src->rm, R);
	shift_of(&f->op[f->rec.op_count - 1], src->t, src->sh);
}

/*
 * Thumb-2 data processing, its second operand a modified immediate or a
 * shifted register (@src): and, bic, orr, orn, eor, add, adc, sbc, sub,
 * rsb; tst, teq, cmn, cmp (rd pc, flags set); mov, mvn (rn pc).
 */
static bool t32_dp(u32 h, u32 l, const struct t32_src *src,
		   struct tb_dec_form *f)
{
	static const unsigned int id[16] = {
		ARM_INS_AND, ARM_INS_BIC, ARM_INS_ORR, ARM_INS_ORN,
		ARM_INS_EOR, 0, 0, 0, ARM_INS_ADD, 0, ARM_INS_ADC, ARM_INS_SBC,
		0, ARM_INS_SUB, ARM_INS_RSB, 0 },
		cmp[16] = { [0] = ARM_INS_TST, [4] = ARM_INS_TEQ,
			    [8] = ARM_INS_CMN, [13] = ARM_INS_CMP };
	u32 op = h >> 5 & 15, sbit = h >> 4 & 1, rn = h & 15, rd = l >> 8 & 15;

	if (!id[op])
		return false;
	if (rd == 15 && sbit && cmp[op]) {
		if (rn >= 14)
			return false;
		start(f, cmp[op], 4);
		f->rec.update_flags = 1;
		op_reg(f, rn, R);
		op_src(f, src);
		regs(f, NULL, 0, r_cpsr, 1, g_t2, 1);
		return true;
	}
	if (rd >= 13 || (rn == 15 && op != 2 && op != 3) ||
	    (rn == 13 && op != 8 && op != 13))
		return false;
	if (rn == 15 && op == 2 && src->reg)
		return t32_mov_reg(h, l, f);
	start(f, rn == 15 ? (op == 2 ? ARM_INS_MOV : ARM_INS_MVN) : id[op], 4);
	f->rec.update_flags = (u8)sbit;
	op_reg(f, rd, W);
	if (rn != 15)
		op_reg(f, rn, R);
	op_src(f, src);
	if (op == 10 || op == 11) {	/* adc, sbc: carry in, flags "set" */
		f->rec.update_flags = 1;
		regs(f, r_cpsr, 1, r_cpsr, 1, g_t2, 1);
	} else {
		groups(f, g_t2, 1);
	}
	return true;
}

/* The second operand of a data-processing instruction, then the rest. */
static bool t32_dp_src(u32 h, u32 l, struct tb_dec_form *f)
{
	struct t32_src src = { 0 };

	if ((h & 0xfe00) == 0xea00) {	/* shifted register */
		src.reg = true;
		src.rm = l & 15;
		src.t = l >> 4 & 3;
		src.sh = (l >> 10 & 0x1c) | (l >> 6 & 3);
		if (l & 0x8000 || src.rm >= 13)
			return false;
	} else if (!expand_imm((h >> 10 & 1) << 11 | (l >> 4 & 0x700) |
			       (l & 0xff), &src.imm)) {
		return false;
	}
	return t32_dp(h, l, &src, f);
}

/*
 * Thumb-2 ldrex, strex (word) with r0-r12: glibc's atomics, as common as
 * calls in its locking code.  capstone gives strex's memory operand no
 * access.
 */
static bool t32_excl(u32 h, u32 l, struct tb_dec_form *f)
{
	u32 rn = h & 15, rt = l >> 12, rd = l >> 8 & 15, load = h >> 4 & 1;

	if (rn >= 13 || rt >= 13 || (load ? rd != 15 : rd >= 13))
		return false;
	start(f, load ? ARM_INS_LDREX : ARM_INS_STREX, 4);
	if (!load)
		op_reg(f, rd, W);
	op_reg(f, rt, load ? W : R);
	op_mem(f, rn, 0xff, (s32)(l & 0xff) * 4, load ? R : 0);
	groups(f, g_t2, 1);
	return true;
}

/* Thumb-2 dmb ish, ishst, st, sy (glibc's atomics). */
static bool t32_dmb(u32 l, struct tb_dec_form *f)
{
	static const u8 g[] = { ARM_GRP_THUMB, ARM_GRP_DATABARRIER };
	u32 opt = l & 15;

	if (opt != 0xb && opt != 0xa && opt != 0xe && opt != 0xf)
		return false;
	start(f, ARM_INS_DMB, 4);
	f->rec.mem_barrier = (u8)(ARM_MB_RESERVED_0 + opt);
	groups(f, g, 2);
	return true;
}

/*
 * Thumb-2 "mrc p15, #opc1, rT, cN, cM, #opc2" with r0-r12: the thread
 * pointer's read (c13, c0, 3), in every function that touches TLS.
 * capstone gives rT read access.
 */
static bool t32_mrc15(u32 h, u32 l, struct tb_dec_form *f)
{
	static const u8 g[] = { ARM_GRP_PRIVILEGE, ARM_GRP_THUMB2 };
	u32 v[6] = { 15, h >> 5 & 7, l >> 12, h & 15, l & 15, l >> 5 & 7 };
	static const u8 type[6] = { ARM_OP_PIMM, ARM_OP_IMM, ARM_OP_REG,
				    ARM_OP_CIMM, ARM_OP_CIMM, ARM_OP_IMM };

	if (v[2] >= 13)
		return false;
	start(f, ARM_INS_MRC, 4);
	for (u32 i = 0; i < 6; i++) {
		u32 x = i == 2 ? reg(v[2]) : v[i];

		memcpy(add_op(f, type[i], i == 2 ? R : 0)->raw, &x, 4);
	}
	groups(f, g, 2);
	return true;
}

/* One 32-bit Thumb instruction: halfwords @h then @l. */
static bool t32(u32 h, u32 l, u32 addr, struct tb_dec_form *f)
{
	if ((h & 0xffe0) == 0xe840)
		return t32_excl(h, l, f);
	if (h == 0xf3bf && (l & 0xfff0) == 0x8f50)
		return t32_dmb(l, f);
	if ((h & 0xff10) == 0xee10 && (l & 0x0f10) == 0x0f10)
		return t32_mrc15(h, l, f);
	if ((h & 0xf800) == 0xf000 && (l & 0x8000))
		return t32_branch(h, l, addr, f);
	if ((h & 0xfe00) == 0xf800)
		return t32_ldst(h, l, f);
	if ((h & 0xfe40) == 0xe800 && (h & 0x180) && (h & 0x180) != 0x180)
		return t32_multi(h, l, f);
	if ((h & 0xfe40) == 0xe840 && (h & 0x120))
		return t32_dual(h, l, f);
	if (((h & 0xfa00) == 0xf000 && !(l & 0x8000)) || (h & 0xfe00) == 0xea00)
		return t32_dp_src(h, l, f);
	if ((h & 0xfa00) == 0xf200 && !(l & 0x8000))
		return t32_bin_imm(h, l, f);
	return false;
}

/* capstone's IT instruction, outside a block (@h's mask not 0). */
static void t16_it(u32 h, struct tb_dec_form *f)
{
	static const u8 w_it[] = { ARM_REG_ITSTATE };

	start(f, ARM_INS_IT, 2);
	f->rec.cc = (u8)((h >> 4 & 15) + 1);
	regs(f, NULL, 0, w_it, 1, g_t2, 1);
}

/*
 * An instruction inside an IT block, decoded as outside it (@f): what
 * capstone gives it there, or false where that is not ours to say.
 * capstone gives it the block's condition, and a 16-bit instruction
 * whose encoding sets the flags outside a block ("adds") sets none
 * inside; those whose opcode writes them (cmp, tst) still do.
 */
static bool in_block(const struct tb_it *it, struct tb_dec_form *f)
{
	bool wcpsr = false;

	for (u8 i = 0; i < f->rec.nwrite; i++)
		wcpsr |= f->reg[f->rec.nread + i] == ARM_REG_CPSR;
	switch (f->rec.id) {
	case ARM_INS_B: case ARM_INS_CBZ: case ARM_INS_CBNZ:
	case ARM_INS_BKPT: case ARM_INS_UDF:
		return false;	/* their own condition, or none */
	case ARM_INS_MOV:
		if (f->rec.size == 2 && wcpsr)
			return false;	/* "movs rd, rm": its own */
		break;
	default:
		break;
	}
	if (f->rec.size == 2 && f->rec.update_flags && !wcpsr)
		f->rec.update_flags = 0;
	f->rec.cc = (u8)(it->cc[0] + 1);	/* ARM_CC_EQ is 1 */
	return true;
}

bool tb_fast_decode(bool thumb, const u8 *b, size_t size, u32 addr,
		    struct tb_it *it, struct tb_dec_form *f)
{
	u32 h;
	bool ok;

	if (!thumb || size < 2)
		return false;
	h = (u32)b[0] | (u32)b[1] << 8;
	if ((h & 0xff00) == 0xbf00 && (h & 15)) {
		/* an IT inside a block changes nothing in capstone: its */
		if (it->n || !tb_it_set(it, h))
			return false;
		t16_it(h, f);
		return true;
	}
	if (h >> 11 < 0x1d)
		ok = t16(h, addr, f);
	else
		ok = size >= 4 && t32(h, (u32)b[2] | (u32)b[3] << 8, addr, f);
	if (!ok || !it->n)
		return ok;
	if (!in_block(it, f))
		return false;
	tb_it_advance(it);
	return true;
}

/*
 * The block as capstone's decoder (ARMDisassembler.c) sets it: the first
 * instruction takes firstcond, the next ones, one a mask bit from the
 * top, firstcond (then) or its inverse (else); the lowest set bit ends
 * the mask.
 */
bool tb_it_set(struct tb_it *it, u32 h)
{
	u32 cond = h >> 4 & 15, mask = h & 15;

	if (!mask || cond >= 14)
		return false;
	it->n = (u8)(4 - __builtin_ctz(mask));
	it->cc[0] = (u8)cond;
	for (u32 i = 1; i < it->n; i++)
		it->cc[i] = (u8)((mask >> (4 - i) & 1) == (cond & 1) ? cond :
							    cond ^ 1);
	return true;
}

/*
 * The ARMv8 FP, NEON and crypto instructions capstone decodes from the
 * tables that leave the IT state alone (VFPV8, v8Crypto, v8NEON); some
 * (vrintx, vrintz) share their id with an FP instruction that takes a
 * block's condition.
 */
static bool may_keep_it(unsigned int id)
{
	switch (id) {
	case ARM_INS_AESD: case ARM_INS_AESE: case ARM_INS_AESIMC:
	case ARM_INS_AESMC: case ARM_INS_SHA1C: case ARM_INS_SHA1H:
	case ARM_INS_SHA1M: case ARM_INS_SHA1P: case ARM_INS_SHA1SU0:
	case ARM_INS_SHA1SU1: case ARM_INS_SHA256H: case ARM_INS_SHA256H2:
	case ARM_INS_SHA256SU0: case ARM_INS_SHA256SU1:
	case ARM_INS_VCVTA: case ARM_INS_VCVTM: case ARM_INS_VCVTN:
	case ARM_INS_VCVTP: case ARM_INS_VMAXNM: case ARM_INS_VMINNM:
	case ARM_INS_VRINTA: case ARM_INS_VRINTM: case ARM_INS_VRINTN:
	case ARM_INS_VRINTP: case ARM_INS_VRINTX: case ARM_INS_VRINTZ:
	case ARM_INS_VSELEQ: case ARM_INS_VSELGE: case ARM_INS_VSELGT:
	case ARM_INS_VSELVS:
		return true;
	default:
		return false;
	}
}

bool tb_it_follow(struct tb_it *it, unsigned int id, u32 h)
{
	if (id == ARM_INS_IT)
		return it->n || tb_it_set(it, h);	/* nested: nothing */
	if (!it->n)
		return true;
	if (may_keep_it(id))
		return false;
	tb_it_advance(it);
	return true;
}

void tb_it_advance(struct tb_it *it)
{
	memmove(it->cc, it->cc + 1, sizeof(it->cc) - 1);
	it->n--;
}

u32 tb_it_encode(const struct tb_it *it)
{
	u32 cond = it->cc[0], mask = 1u << (4 - it->n);

	for (u32 i = 1; i < it->n; i++)
		if ((it->cc[i] == cond) == (cond & 1))
			mask |= 1u << (4 - i);
	return 0xbf00 | cond << 4 | mask;
}

void tb_it_text(u32 h, char *mnemonic, size_t mlen, char *ops, size_t olen)
{
	static const char name[16][3] = {
		"eq", "ne", "hs", "lo", "mi", "pl", "vs", "vc",
		"hi", "ls", "ge", "lt", "gt", "le", "", "" };
	u32 cond = h >> 4 & 15, mask = h & 15, k = 2;
	char m[8] = "it";

	/* an IT is decoded on every visit: no snprintf() */
	for (int pos = 3; pos > __builtin_ctz(mask | 16); pos--)
		m[k++] = (mask >> pos & 1) == (cond & 1) ? 't' : 'e';
	m[k] = 0;
	if (mlen > k)
		memcpy(mnemonic, m, k + 1);
	if (olen > 2)
		memcpy(ops, name[cond], 3);
}
