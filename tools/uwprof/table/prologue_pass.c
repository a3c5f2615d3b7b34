// SPDX-License-Identifier: GPL-2.0
/*
 * Prologue analysis over a file (--prologue-analysis): every function
 * symbol whose code only EHABI rules or nothing cover is analysed, with
 * the code after it that no symbol names; analysed rows replace the EHABI
 * ones, and DWARF CFI that the instructions contradict is replaced, or
 * patched where they do (check_cfi).
 */
#include <stdlib.h>
#include <string.h>
#include "table/prologue_int.h"
#include "table/elf.h"

/*
 * A stripped program's entry point, which only function discovery found:
 * the main thread's outermost frame, over the code its walk reached.  It
 * gets the root marker; analysed, it would refuse (it clears fp and lr).
 */
static int entry_root(struct tb_cfi_func *f, const struct tb_sym *s, u32 end)
{
	static const u8 root[] = { 0xb1, 0x00 };

	memset(f, 0, sizeof(*f));
	f->ehabi = malloc(sizeof(root));
	if (!f->ehabi)
		return -1;
	memcpy(f->ehabi, root, sizeof(root));
	f->ehabi_len = sizeof(root);
	f->addr = s->addr;
	f->size = end - s->addr;
	f->source = TB_SRC_ROOT;
	return 1;
}

static int analyse_sym(struct tb_elf *e, const struct pa_cover *in,
		       const struct tb_input *all, u32 i,
		       struct tb_input *done, struct tb_notes *notes)
{
	struct pa_text pt = { .known = { done, all } };
	const struct tb_sym *s = &e->syms[i];
	const struct tb_sec *sec = tb_elf_sec(e, s->addr);
	u32 end = pa_sym_limit(e, s, i, sec ? sec->addr + sec->size :
			       e->meta.text_addr + e->meta.text_size);
	struct tb_cfi_func *f;
	char why[160];
	int r;

	if (end <= s->addr || !pa_only_ehabi(in, s->addr, end))
		return 0;
	if (!(f = tb_input_add(done)))
		return -1;
	if (s->found && tb_elf_program_entry(e, s->addr))
		return entry_root(f, s, end);
	r = pa_analyse_symbol(e, s, i, false, &pt, f, why, sizeof(why));
	if (r <= 0) {
		free(f->rows);
		done->n--;
	}
	if (!r)
		tb_note_add(notes, s->addr, s->addr, TB_N_PROLOGUE, "%s", why);
	/* held until the table is made: packed */
	return r > 0 && tb_rows_pack(f) ? -1 : r;
}

/*
 * The gap after symbol @i, analysed as a function entered at its start
 * with the caller's frame: it replaces EHABI rules that describe the
 * function before it.  Code that leaves it by anything but a return is
 * refused (pa_analyse_symbol's @gap).
 */
static int analyse_gap(struct tb_elf *e, const struct pa_cover *in, u32 i,
		       struct tb_input *done, struct tb_notes *notes)
{
	const struct tb_sec *sec = tb_elf_sec(e, e->syms[i].addr);
	struct tb_cfi_func *f;
	struct tb_sym gap;
	char why[160];
	int r;

	if (!sec || !pa_gap_after(e, i, sec->addr + sec->size, &gap) ||
	    !pa_only_ehabi(in, gap.addr, gap.addr + gap.size))
		return 0;
	if (!(f = tb_input_add(done)))
		return -1;
	r = pa_analyse_symbol(e, &gap, i, false, &(struct pa_text){ .gap = true },
			      f, why, sizeof(why));
	if (r <= 0) {
		free(f->rows);
		done->n--;
	}
	if (!r && why[0])
		tb_note_add(notes, gap.addr, gap.addr, TB_N_PROLOGUE, "%s", why);
	return r > 0 && tb_rows_pack(f) ? -1 : r;
}

static bool is_dwarf(const struct tb_cfi_func *f)
{
	return f->source == TB_SRC_DEBUG_FRAME || f->source == TB_SRC_EH_FRAME ||
	       f->source == TB_SRC_DEBUG_FILE;
}

/* Count the stretches of @pt, and their bytes, by kind, into @stats. */
static void count_stretches(const struct pa_text *pt, struct tb_cfi_stats *stats)
{
	for (u32 j = 0; j < pt->ncfi_bad; j++) {
		const struct pa_stretch *b = &pt->cfi_bad[j];

		if (b->follows) {
			stats->followed++;
			stats->followed_bytes += b->hi - b->lo;
		} else {
			stats->refused++;
			stats->refused_bytes += b->hi - b->lo;
		}
	}
}

/*
 * DWARF CFI of function @f checked against its instructions.  Where the
 * analysis followed every path of the whole function and the CFI's CFA
 * or return address differ from it at an instruction, the analysed rows
 * replace the CFI's (hand-written CFI).  Where it assumed states (after
 * a computed jump, at an inner entry) or covers another size, it cannot
 * overrule the CFI as a whole, only where the CFI is proven wrong: most
 * often the stretch after an epilogue that clang's CFI does not describe
 * (its rows are the prologue's), where a row would unwind a frame already
 * popped.  A stretch entered by falling through from an instruction
 * where both agree gets the analysed rows; any other refuses; the rest
 * keeps the CFI.  Unchecked when the analysis refuses the function.
 */
static int check_cfi(struct tb_elf *e, struct tb_cfi_func *f,
		     struct tb_notes *notes, struct tb_cfi_stats *stats)
{
	struct pa_text pt = { .cfi = f };
	struct tb_cfi_func g = { 0 };
	u32 i = pa_sym_at(e, f->addr);
	char why[160];
	int r;

	if (i == e->nsyms) {
		stats->unchecked++;
		return 0;
	}
	r = pa_analyse_symbol(e, &e->syms[i], i, false, &pt, &g, why, sizeof(why));
	if (r > 0 && pt.ncfi_bad && (!pt.cfi_followed || g.size != f->size)) {
		r = pa_cfi_patch(f, pt.cfi_bad, pt.ncfi_bad, &g) ? -1 : 1;
		tb_note_add(notes, f->addr, pt.cfi_wrong, TB_N_CFI_PATCHED,
			    "CFI says another frame at 0x%x, %u stretches in all",
			    pt.cfi_wrong, pt.ncfi_bad);
		stats->patched++;
		count_stretches(&pt, stats);
	} else if (r > 0 && pt.ncfi_bad) {
		tb_note_add(notes, f->addr, f->addr, TB_N_CFI_WRONG,
			    "CFI says another frame at 0x%x", pt.cfi_wrong);
		stats->replaced++;
		free(f->rows);
		f->rows = g.rows;
		f->nrows = g.nrows;
		f->source = TB_SRC_PROLOGUE;
		g.rows = NULL;
		r = tb_rows_pack(f) ? -1 : 1;
	} else if (r >= 0) {
		stats->agree += r > 0;
		stats->unchecked += !r;
		r = 0;
	}
	free(g.rows);
	free(pt.cfi_bad);
	return r;
}

int tb_prologue_pass(struct tb_elf *e, struct tb_input *in,
		     struct tb_notes *notes, struct tb_cfi_stats *stats)
{
	struct tb_input done = { 0 };
	struct pa_cover cover;
	int n = 0;

	memset(stats, 0, sizeof(*stats));
	if (pa_cover_build(&cover, in)) {
		pa_cover_free(&cover);
		return -1;
	}
	for (u32 i = 0; i < e->nsyms; i++) {
		int r;

		/* One function per address: aliases share the code. */
		if (i && e->syms[i].addr == e->syms[i - 1].addr)
			continue;
		if (done.n && e->syms[i].addr < done.funcs[done.n - 1].addr +
		    done.funcs[done.n - 1].size)
			continue;
		r = analyse_sym(e, &cover, in, i, &done, notes);
		if (r >= 0) {
			n += r;
			r = analyse_gap(e, &cover, i, &done, notes);
		}
		if (r < 0) {
			pa_cover_free(&cover);
			tb_input_free(&done);
			return -1;
		}
		n += r;
	}
	pa_cover_free(&cover);
	if (n && pa_carve(in, &done)) {
		tb_input_free(&done);
		return -1;
	}
	tb_input_free(&done);
	for (u32 k = 0; k < in->n; k++) {
		int r = is_dwarf(&in->funcs[k]) ?
			check_cfi(e, &in->funcs[k], notes, stats) : 0;

		if (r < 0)
			return -1;
		n += r;
	}
	if (n)
		e->meta.sources |= UWT_SRC_PROLOGUE;
	return n;
}
