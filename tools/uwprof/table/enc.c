// SPDX-License-Identifier: GPL-2.0
/*
 * EHABI byte encoders used by the table generator: ULEB128, vsp updates,
 * register pops and Chrome's unwind actions (FORMAT-v2.md §5.3).
 */
#include <stdlib.h>
#include <string.h>
#include "table/table.h"
#include "unwind_v2.h"

const u8 tb_ops_refuse[2] = { UW2_OP_REFUSE_0, UW2_OP_REFUSE_1 };
const u8 tb_ops_root[2] = { UW2_OP_ROOT_0, UW2_OP_ROOT_1 };
const u8 tb_ops_noreturn[2] = { UW2_OP_NORETURN_0, UW2_OP_NORETURN_1 };

int tb_func_set_ops(struct tb_cfi_func *f, const u8 *ops, u32 n)
{
	f->ehabi = malloc(n ? n : 1);
	if (!f->ehabi)
		return -1;
	memcpy(f->ehabi, ops, n);
	f->ehabi_len = n;
	return 0;
}

bool tb_seq_put(struct tb_seq *s, const u8 *b, u32 n)
{
	if (s->len + n > TB_SEQ_MAX)
		return false;
	memcpy(s->b + s->len, b, n);
	s->len += n;
	return true;
}

u32 tb_uleb128(u32 v, u8 *out)
{
	u32 n = 0;

	do {
		u8 b = v & 0x7f;

		v >>= 7;
		out[n++] = b | (v ? 0x80 : 0);
	} while (v);
	return n;
}

int tb_enc_sp(s32 off, u8 *out)
{
	u32 mag = off < 0 ? -(u32)off : (u32)off;
	u8 sign = off < 0 ? 0x40 : 0x00;
	u32 first;

	if (off == 0 || (mag & 3))
		return -1;
	if (off > 0x200) {
		/* B2 covers 0x204 and up; the encoder never uses it lower. */
		out[0] = 0xb2;
		return 1 + tb_uleb128((mag - 0x204) >> 2, out + 1);
	}
	if (mag > 0x200)
		return -1;
	first = mag < 0x100 ? mag : 0x100;
	out[0] = sign | ((first - 4) >> 2);
	if (mag < 0x104)
		return 1;
	out[1] = sign | ((mag - 0x104) >> 2);
	return 2;
}

int tb_enc_pop(u32 mask, u8 *out)
{
	u32 low, n;

	if (!mask || (mask & 0xf) || (mask >> 16))
		return -1;
	/* r4..r(3+n) plus lr, 1 <= n <= 8, has a one-byte form. */
	low = (mask >> 4) & 0xff;
	if ((mask & ~(0xffu << 4)) == (1u << 14) && low &&
	    !(low & (low + 1))) {
		n = __builtin_popcount(low);
		out[0] = 0xa8 | (n - 1);
		return 1;
	}
	out[0] = 0x80 | ((mask >> 12) & 0xf);
	out[1] = (mask >> 4) & 0xff;
	return 2;
}

bool tb_enc_action(const struct tb_action *a, struct tb_seq *out)
{
	u8 b[8];
	int n;

	switch (a->kind) {
	case TB_A_RETURN_TO_LR:
		b[0] = 0xb0;
		return tb_seq_put(out, b, 1);
	case TB_A_UPDATE_SP_POP:
		if (a->sp) {
			n = tb_enc_sp(a->sp, b);
			if (n < 0 || !tb_seq_put(out, b, n))
				return false;
		}
		if (a->regs) {
			n = tb_enc_pop(a->regs, b);
			if (n < 0 || !tb_seq_put(out, b, n))
				return false;
		}
		return true;
	case TB_A_RESTORE_SP:
		if (a->reg > 15)
			return false;
		b[0] = 0x90 | a->reg;
		if (!tb_seq_put(out, b, 1))
			return false;
		if (a->sp) {
			n = tb_enc_sp(a->sp, b);
			if (n < 0 || !tb_seq_put(out, b, n))
				return false;
		}
		return true;
	case TB_A_NO_ACTION:
		return true;
	}
	return false;
}
