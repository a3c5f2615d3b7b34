/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Prologue analysis: unwind rules for code that has no usable CFI
 * (CANTUNWIND asm, libgcc helpers), read from the instructions with
 * capstone.  docs/TABLES.md says what is recognised and why each rule is
 * justified; anything else ends the analysis and the rest refuses.
 */
#ifndef UWPROF_PROLOGUE_H
#define UWPROF_PROLOGUE_H

#include "table/table.h"

struct tb_elf;

/*
 * Analyse the function at @addr (@len bytes of @code; Thumb when @thumb),
 * entered at @addr and at each of @entries with the caller's frame.
 * Rows (full states at every change) go to @f, which the caller owns.
 * Returns @len when every path was followed and the rows hold for the
 * whole function, 0 when they cannot be justified (@why says why), -1
 * when capstone fails or memory runs out.
 */
int tb_prologue_analyse(const u8 *code, u32 len, u32 addr, bool thumb,
			const u32 *entries, u32 nentries,
			struct tb_cfi_func *f, char *why, size_t wlen);

/*
 * Analyse the function of symbol @i of @e (its size, or up to the next
 * symbol; a trailing literal pool after a $d mapping symbol included).
 * 1 with @f filled, 0 when not justified (@why), -1 on error.
 */
int tb_prologue_sym(struct tb_elf *e, u32 i, struct tb_cfi_func *f,
		    char *why, size_t wlen);

/* DWARF CFI checked against the code (tb_prologue_pass), for --stats. */
struct tb_cfi_stats {
	u32 agree;		/* the analysis says what the CFI says */
	u32 replaced;		/* contradicted: the analysed rows used */
	u32 patched;		/* contradicted where the analysis assumed
				 * states: patched where contradicted */
	u32 followed, followed_bytes;	/* stretches given analysed rows */
	u32 refused, refused_bytes;	/* stretches refused */
	u32 unchecked;		/* the analysis refused: the CFI kept as is */
};

/*
 * For every function symbol whose code is only refused (a CANTUNWIND
 * EHABI range) or covered by nothing, replace that part with analysed
 * rows (source TB_SRC_PROLOGUE); the unjustified rest keeps refusing.
 * The functions are analysed on @jobs threads (0 or 1: this one alone),
 * with the same result.  Returns the number of functions analysed, or -1.
 */
int tb_prologue_pass(struct tb_elf *e, struct tb_input *in,
		     struct tb_notes *notes, struct tb_cfi_stats *stats,
		     u32 jobs);

/*
 * A clone wrapper (__clone, __clone3, __bionic_clone, ...) analysed as
 * tb_prologue_analyse does, with one addition: after "svc 0", a branch on
 * r0 == 0 (cmp/tst/movs then beq/bne, or cbz/cbnz) starts the new
 * thread's path, whose every instruction is the outermost frame (rows
 * with the return address undefined, the root marker).  Returns as
 * tb_prologue_analyse, and 0 when no such path was found.
 */
int tb_thread_entry_analyse(const u8 *code, u32 len, u32 addr, bool thumb,
			    struct tb_cfi_func *f, char *why, size_t wlen);

/*
 * Every thread entry symbol of @e analysed so: on success its rows
 * replace whatever else covered it (its CFI ends at the system call, the
 * rest refused or whole-root before); otherwise it keeps those, with a
 * note.  Default mode, before prologue analysis.  Returns the number of
 * entries analysed, or -1.
 */
int tb_thread_entry_pass(struct tb_elf *e, struct tb_input *in,
			 struct tb_notes *notes);

/*
 * The same for functions function discovery found (a stripped static
 * program's clone wrapper has no name): each holding a system call is
 * analysed as a thread entry, and taken only if the analysis finds the
 * new thread's path.  After discovery, before prologue analysis.
 */
int tb_thread_entry_found_pass(struct tb_elf *e, struct tb_input *in);

/* What tb_ehabi_rows_pass did, for --stats. */
struct tb_ehabi_stats {
	u32 rows;		/* EHABI-only functions given rows per state */
	u32 frameless;		/* of which with no prologue at all */
	u32 windows;		/* stretches refused up to a path's end */
	u32 refused;		/* refused as a whole (noted) */
	u32 pieces;		/* pieces not at their entry's start: refused */
};

/*
 * Every EHABI-only function whose opcodes describe it from its start:
 * its prologue (the first instructions) must be the steps the opcodes
 * undo, in order; it then gets one row per state, the entry's (return
 * address in lr) first, the partial frames after each prologue
 * instruction, the opcodes in the body, and its epilogues' states;
 * otherwise the whole function refuses (noted ehabi-unproven).  After
 * prologue analysis, or in its place.  Returns 0, or -1 (capstone or
 * memory).
 */
int tb_ehabi_rows_pass(struct tb_elf *e, struct tb_input *in,
		       struct tb_notes *notes, struct tb_ehabi_stats *stats);

#endif
