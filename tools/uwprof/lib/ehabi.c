// SPDX-License-Identifier: GPL-2.0
/* EHABI unwind opcodes, one at a time (ehabi.h). */
#include <string.h>

#include "lib/ehabi.h"

enum uw_uleb_res uw_uleb(const uint8_t *buf, uint32_t len, uint32_t *pos,
			 uint32_t *val)
{
	enum uw_uleb_res res = UW_ULEB_OK;
	uint32_t p = *pos, v = 0, shift = 0;
	uint8_t b;

	do {
		if (p >= len)
			return UW_ULEB_TRUNC;
		b = buf[p++];
		if (shift < 28)
			v |= (uint32_t)(b & 0x7f) << shift;
		else if (shift == 28)
			v |= (uint32_t)(b & 0x0f) << 28;
		if ((shift == 28 && (b & 0x70)) || (shift > 28 && (b & 0x7f)))
			res = UW_ULEB_BIG;
		if (shift < 35)
			shift += 7;
	} while (b & 0x80);
	*pos = p;
	*val = v;
	return res;
}

enum uw_eh_kind uw_eh_next(const uint8_t *ops, uint32_t len, uint32_t *pos,
			   struct uw_eh_op *op)
{
	uint32_t i = *pos;
	uint8_t b = ops[i++], x = 0;

	memset(op, 0, sizeof(*op));
	op->byte = b;
	/* The two-byte forms need their second byte. */
	if ((b & 0xf0) == 0x80 || b == 0xb1 || b == 0xb3 || b == 0xc8 ||
	    b == 0xc9) {
		if (i >= len) {
			*pos = len;
			return op->kind = UW_EH_TRUNC;
		}
		x = ops[i++];
	}
	if (b < 0x40) {
		op->kind = UW_EH_VSP_ADD;
		op->val = ((b & 0x3f) << 2) + 4;
	} else if (b < 0x80) {
		op->kind = UW_EH_VSP_SUB;
		op->val = ((b & 0x3f) << 2) + 4;
	} else if (b < 0x90) {
		op->val = ((b & 0xf) << 8 | x) << 4;
		op->kind = op->val ? UW_EH_POP : UW_EH_REFUSE;
	} else if (b < 0xa0) {
		op->kind = UW_EH_VSP_REG;
		op->val = b & 0xf;
		op->reserved = b == 0x9d || b == 0x9f;
	} else if (b < 0xb0) {
		op->kind = UW_EH_POP;
		op->val = ((2u << (4 + (b & 7))) - 1) & ~0xfu;
		if (b & 8)
			op->val |= 1u << 14;
	} else if (b == 0xb0) {
		op->kind = UW_EH_FINISH;
	} else if (b == 0xb1) {
		if (!x) {
			op->kind = UW_EH_ROOT;
		} else if (x == 0x10) {
			op->kind = UW_EH_NORETURN;
		} else if (x == 0x20) {
			op->kind = UW_EH_CLONE;
		} else {
			op->kind = UW_EH_POP;
			op->val = x;
			op->reserved = x & 0xf0;
		}
	} else if (b == 0xb2) {
		uint32_t v;
		enum uw_uleb_res r = uw_uleb(ops, len, &i, &v);

		if (r == UW_ULEB_TRUNC) {
			*pos = len;
			return op->kind = UW_EH_TRUNC;
		}
		op->kind = UW_EH_VSP_ADD;
		op->val = 0x204 + (v << 2);
		op->big = r == UW_ULEB_BIG || v > (UINT32_MAX - 0x204) >> 2;
	} else if (b == 0xb3 || b == 0xc8 || b == 0xc9) {
		op->kind = UW_EH_VPOP;
		op->first = (x >> 4) + (b == 0xc8 ? 16 : 0);
		op->count = (x & 15) + 1;
		op->fstmx = b == 0xb3;
		/* the range ends past its bank's D15 (D31 for C8) */
		op->reserved = (x >> 4) + (x & 15) > 15;
	} else if ((b & 0xf8) == 0xb8 || (b & 0xf8) == 0xd0) {
		op->kind = UW_EH_VPOP;
		op->first = 8;
		op->count = (b & 7) + 1;
		op->fstmx = (b & 0xf8) == 0xb8;
	} else {
		op->kind = UW_EH_SPARE;
	}
	*pos = i;
	return op->kind;
}
