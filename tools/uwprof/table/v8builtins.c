// SPDX-License-Identifier: GPL-2.0
/*
 * V8's embedded builtins in a binary that holds them (libnode): uwprof
 * record marks their code as JIT code (--jit v8-arm), which the module
 * walks by V8's frame chain (r11).  A builtin that C++ calls through a
 * pointer as a plain leaf has no V8 frame there, so that walk cannot pass
 * it.  Here every builtin the blob's own rows (lib/v8blob.c) name is
 * given one rule, in place of what other sources found in its code:
 *
 *  - a frameless leaf: no instruction word in its code writes sp, lr or
 *    a callee-saved register (r4-r11), nor calls.  Entered only at its
 *    start (V8 calls and jumps to builtins at their entry; nothing calls
 *    from it, so nothing returns into it), it runs with its caller's sp,
 *    lr and callee-saved registers at every instruction: the entry's row
 *    (return address in lr) holds throughout.  Every word is checked,
 *    data too, so that no instruction escapes the check (ARM code is
 *    word-aligned; a data word that reads as such a write only refuses).
 *  - any other builtin (and the padding after each) refuses.  Their
 *    frames follow V8's conventions (a callee pops its stack arguments),
 *    not the ones prologue analysis proves rows by.
 *
 * The table is then flagged (UWT_F_JIT_ROWS): inside the code a frame
 * kind walks, the module takes its rows first, and a row that refuses
 * leaves the frame to the kind (unwind_v2.c, uw2_step()).  A table made
 * without this pass is cut around JIT code as before.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/v8blob.h"
#include "table/elf.h"
#include "table/prologue_int.h"
#include "table/v8builtins.h"

/* Does the word @w at @addr keep sp, lr and r4-r11 as they were? */
static bool word_keeps_frame(csh cs, cs_insn *in, const u8 *w, u32 addr)
{
	const u8 *code = w;
	size_t size = 4;
	uint64_t at = addr;
	struct tb_dec_form f;
	struct tb_insn x;
	bool wr[16];

	if (!cs_disasm_iter(cs, &code, &size, &at, in) ||
	    !tb_insn_of_cs(in, &f, &x) || pa_is_call(&x))
		return false;
	pa_writes(&x, wr, 16);
	for (int r = 4; r <= 11; r++)
		if (wr[r])
			return false;
	return !wr[13] && !wr[14];
}

static bool is_leaf(csh cs, cs_insn *in, const u8 *code, u32 addr, u32 len)
{
	for (u32 off = 0; off + 4 <= len; off += 4)
		if (!word_keeps_frame(cs, in, code + off, addr + off))
			return false;
	return !(len & 3);
}

/* The entry's row: return address in lr, nothing saved. */
static int leaf_rows(struct tb_cfi_func *f)
{
	struct pa_state st;

	pa_state_entry(&st);
	return pa_add_row(f, &st, f->addr, 0);
}

static int refuse(struct tb_cfi_func *f)
{
	return tb_func_set_ops(f, tb_ops_refuse, 2);
}

/*
 * @in without what lies in [lo, hi): 1, changing nothing, when a
 * function crosses an edge; 0; -1 out of memory.
 */
static int take_out(struct tb_input *in, u32 lo, u32 hi)
{
	struct tb_input out = { 0 };
	struct tb_cfi_func *g;

	for (u32 i = 0; i < in->n; i++) {
		const struct tb_cfi_func *f = &in->funcs[i];

		if (f->addr < hi && f->addr + f->size > lo &&
		    (f->addr < lo || f->addr + f->size > hi))
			return 1;
	}
	for (u32 i = 0; i < in->n; i++) {
		struct tb_cfi_func *f = &in->funcs[i];

		if (f->addr < hi && f->addr + f->size > lo)
			continue;
		if (!(g = tb_input_add(&out))) {
			tb_input_free(&out);
			return -1;
		}
		*g = *f;
		memset(f, 0, sizeof(*f));
	}
	tb_input_free(in);
	*in = out;
	return 0;
}

/* Builtin @b's function (its padding to @end included), leaf or refused. */
static int add_builtin(struct tb_input *in, csh cs, cs_insn *ins,
		       const u8 *code, const struct uw_v8_builtin *b, u32 end,
		       u32 *leaves)
{
	struct tb_cfi_func *f = tb_input_add(in);

	if (!f)
		return -1;
	*f = (struct tb_cfi_func){ .addr = b->start, .size = end - b->start,
				   .source = TB_SRC_V8 };
	if (code && is_leaf(cs, ins, code, b->start, b->len)) {
		/* the padding never runs: it refuses */
		++*leaves;
		f->size = b->len;
		if (leaf_rows(f) < 0)
			return -1;
		if (end == b->start + b->len)
			return 0;
		f = tb_input_add(in);
		if (!f)
			return -1;
		*f = (struct tb_cfi_func){ .addr = b->start + b->len,
					   .size = end - b->start - b->len,
					   .source = TB_SRC_V8 };
	}
	return refuse(f);
}

int tb_v8_builtins_pass(struct tb_elf *e, const char *path,
			struct tb_input *in, struct tb_v8_stats *st)
{
	struct uw_v8_builtin *b;
	struct uw_v8_blob blob;
	const struct tb_sec *s;
	const u8 *text;
	cs_insn *ins;
	csh cs;
	u32 n, i;
	int r;

	memset(st, 0, sizeof(*st));
	if (uw_v8_builtins(path, &blob, &b, &n))
		return 0;
	s = tb_elf_sec(e, blob.code);
	text = s ? tb_elf_sec_bytes(e, s) : NULL;
	if (!text || blob.code_size > s->size - (blob.code - s->addr)) {
		free(b);
		return 0;
	}
	r = take_out(in, blob.code, blob.code + blob.code_size);
	if (r) {
		free(b);
		return r < 0 ? -1 : 0;
	}
	if (cs_open(CS_ARCH_ARM, CS_MODE_ARM, &cs) != CS_ERR_OK) {
		free(b);
		return -1;
	}
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	ins = cs_malloc(cs);
	r = ins ? 0 : -1;
	for (i = 0; !r && i < n; i++) {
		u32 end = i + 1 < n ? b[i + 1].start :
			  blob.code + blob.code_size;

		r = add_builtin(in, cs, ins, text + (b[i].start - s->addr),
				&b[i], end, &st->leaves);
	}
	if (ins)
		cs_free(ins, 1);
	cs_close(&cs);
	free(b);
	if (r)
		return -1;
	st->builtins = n;
	st->start = blob.code;
	st->end = blob.code + blob.code_size;
	return 1;
}
