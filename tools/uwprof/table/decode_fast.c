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

bool tb_fast_decode(bool thumb, const u8 *b, size_t size, u32 addr,
		    struct tb_dec_form *f)
{
	u32 h;

	if (!thumb || size < 2)
		return false;
	h = (u32)b[0] | (u32)b[1] << 8;
	if (h >> 11 >= 0x1d)
		return false;	/* 32-bit: not yet */
	return t16(h, addr, f);
}
