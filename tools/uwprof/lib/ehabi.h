/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ARM EHABI unwind opcodes read one at a time (ARM IHI 0038, 10.3, with
 * uwprof's root, noreturn and clone markers, docs/FORMAT.md): the one
 * walker the generator's check of the opcodes it takes in (table/ehabi.c)
 * and the dumper (inspect/dump.c) share.  The unwinder executes them itself
 * (unwind_v2.c), as the kernel cannot link this.  libc only.
 */
#ifndef UWPROF_EHABI_H
#define UWPROF_EHABI_H

#include <stdbool.h>
#include <stdint.h>

enum uw_eh_kind {
	UW_EH_VSP_ADD,		/* vsp += val (00xxxxxx, 10110010 ULEB) */
	UW_EH_VSP_SUB,		/* vsp -= val (01xxxxxx) */
	UW_EH_VSP_REG,		/* vsp = r[val] (1001nnnn) */
	UW_EH_POP,		/* pop the core registers of mask val */
	UW_EH_VPOP,		/* pop d[first] to d[first + count - 1] */
	UW_EH_FINISH,		/* 10110000 */
	UW_EH_REFUSE,		/* 10000000 00000000 */
	UW_EH_ROOT,		/* 10110001 00000000: the outermost frame */
	UW_EH_NORETURN,		/* 10110001 00010000: a call that never returns */
	UW_EH_CLONE,		/* 10110001 00100000: r0 0 is a new thread's
				 * outermost frame, else the opcodes after */
	UW_EH_SPARE,		/* a spare encoding, one byte */
	UW_EH_TRUNC,		/* the sequence ends inside the opcode */
};

struct uw_eh_op {
	enum uw_eh_kind kind;
	uint8_t byte;		/* the opcode's first byte */
	uint32_t val;		/* bytes, register number or mask */
	uint8_t first, count;	/* UW_EH_VPOP */
	bool fstmx;		/* UW_EH_VPOP saved by FSTMX (one more word) */
	/*
	 * A form the EHABI leaves reserved, decoded as its neighbours are:
	 * vsp = sp or pc (10011101, 10011111), 10110001 with any of
	 * bits 4-7 set (as a pop of that mask), or a VFP range that runs
	 * past the last register of its bank (10110011, 1100100x).
	 */
	bool reserved;
	bool big;		/* ULEB vsp increment beyond 32 bits */
};

/*
 * Decode the opcode at @ops[*@pos] (*@pos < @len) into @op and move *@pos
 * past it (to @len on UW_EH_TRUNC).  Returns op->kind.
 */
enum uw_eh_kind uw_eh_next(const uint8_t *ops, uint32_t len, uint32_t *pos,
			   struct uw_eh_op *op);

/* What uw_uleb() found: the same as the unwinder's own decoder. */
enum uw_uleb_res { UW_ULEB_OK, UW_ULEB_BIG, UW_ULEB_TRUNC };

/*
 * The ULEB128 at @buf[*@pos]: on OK and BIG (a value needing more than
 * 32 bits, of which *@val has the low bits that fit) *@pos moves past its
 * last byte; on TRUNC it runs off @len and *@pos is left alone.
 */
enum uw_uleb_res uw_uleb(const uint8_t *buf, uint32_t len, uint32_t *pos,
			 uint32_t *val);

#endif
