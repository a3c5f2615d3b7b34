/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uwprof table: the model shared by the table generator's stages.
 *
 *   readers (breakpad, DWARF CFI, EHABI)  ->  struct tb_cfi_func (CFI rows)
 *   conversion (conv.c)                   ->  struct tb_func (offset, sequence)
 *   layout (layout.c)                     ->  the v2 blob
 *
 * CFI rows are deltas, as breakpad prints them: a row names only the rules
 * that changed at its address.  The Chrome-compatible conversion works on
 * those deltas; the default conversion accumulates them into full states.
 */
#ifndef UWPROF_TABLE_H
#define UWPROF_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef int32_t s32;

/* Register slots in a row: r0-r15, then d0-d31, then the return address. */
#define TB_D0		16
#define TB_RA		48
#define TB_NREGS	49

/*
 * The lowest set bit of @m (not 0).  On the 32-bit device
 * __builtin_ctzll() is a call into libgcc; two halves are inline.
 */
static inline int tb_ctz64(uint64_t m)
{
	uint32_t lo = (uint32_t)m;

	return lo ? __builtin_ctz(lo) : 32 + __builtin_ctz((uint32_t)(m >> 32));
}

enum tb_rule_kind {
	TB_R_UNSET = 0,		/* not mentioned in this row */
	TB_R_UNDEF,		/* not recoverable (outermost frame for RA) */
	TB_R_SAME,		/* unchanged by this frame */
	TB_R_OFFSET,		/* saved at CFA + off */
	TB_R_VAL_OFFSET,	/* value is CFA + off */
	TB_R_REG,		/* value is in register reg */
	TB_R_EXPR,		/* a DWARF expression or breakpad postfix form */
	TB_R_NORETURN,		/* RA only: a call that never returns was made
				 * here (the never-returning-call marker) */
	TB_R_AMBIGUOUS,		/* RA only: two frames meet at this address
				 * (prologue analysis): refused, no note */
};

struct tb_rule {
	u8 kind;
	u8 reg;
	s32 off;
};

enum tb_cfa_kind { TB_CFA_UNSET = 0, TB_CFA_REG, TB_CFA_EXPR };

struct tb_row {
	u32 addr;		/* absolute (link-time) address */
	u8 cfa_kind;
	u8 cfa_reg;
	s32 cfa_off;
	/*
	 * Breakpad text that Chrome's row parsers would not accept although
	 * the rules themselves are understood: tokens out of the order the
	 * parsers expect, registers named other than "rN", unknown names.
	 */
	bool compat_unparsable;
	/*
	 * Between a clone wrapper's system call and its test of the result
	 * (prologue analysis of thread entries): the rules are the caller's,
	 * and where r0 is 0 the new thread's outermost frame runs instead
	 * (the clone marker, docs/FORMAT.md).  Stated by each row, not
	 * carried to the next; --chrome-compat never analyses thread entries.
	 */
	bool clone_r0;
	struct tb_rule r[TB_NREGS];
};

/* Where a function's rows came from. */
enum tb_source { TB_SRC_BREAKPAD, TB_SRC_DEBUG_FRAME, TB_SRC_EH_FRAME,
		 TB_SRC_EHABI, TB_SRC_ROOT,
		 TB_SRC_DEBUG_FILE,	/* .debug_frame of a separate debug file */
		 TB_SRC_PROLOGUE,	/* rules from prologue analysis */
		 TB_SRC_PLT,		/* a decoded PLT stub (.plt, .iplt) */
		 TB_SRC_UNCOVERED,	/* code outside .text nothing describes:
					 * refused */
		 TB_SRC_THREAD,		/* a clone wrapper, its child path root */
		 TB_SRC_V8,		/* V8's embedded builtins (v8builtins.c) */
		 TB_SRC_COUNT };

struct tb_cfi_func {
	u32 addr;
	u32 size;
	u32 nrows;
	struct tb_row *rows;	/* rows[0].addr == addr; NULL when packed */
	u8 *packed;		/* or the rows packed (rows.c), and its bytes */
	u32 packed_len;
	u8 source;
	char *name;		/* symbol, or NULL */
	/*
	 * EHABI functions arrive already encoded: the opcodes that unwind
	 * the post-prologue state, ending in B0, or a refusal.
	 */
	u8 *ehabi;
	u32 ehabi_len;
	bool ehabi_entry;	/* starts where its exidx entry's function
				 * does, so the opcodes describe its body */
	/*
	 * An EHABI function whose prologue and epilogues were read against
	 * its opcodes (prologue_ehabi.c): a sequence per offset, ascending,
	 * the first at 0, in place of the one sequence above.
	 */
	struct tb_pair *epairs;
	u32 nepairs;
};

/* Why something could not be expressed.  See tb_note_name(). */
enum tb_reason {
	TB_N_CFA_EXPR,		/* CFA is a DWARF expression */
	TB_N_CFA_REG,		/* CFA based on a register vsp cannot start from */
	TB_N_RA_LOC,		/* return address neither in lr nor on the stack */
	TB_N_SAVE_BELOW,	/* a save slot below the frame's vsp base */
	TB_N_SAVE_ABOVE,	/* a save slot at or above the CFA */
	TB_N_SP_SAVED,		/* sp itself saved on the stack */
	TB_N_SLOT_CLASH,	/* two registers saved at overlapping slots */
	TB_N_REG_LOST,		/* callee-saved register kept in a register or
				 * computed: not restored (row kept) */
	TB_N_SEQ_LONG,		/* sequence longer than the encoder allows */
	TB_N_NO_INIT,		/* no rule for the entry state */
	TB_N_OVERLAP,		/* function overlaps an earlier one (dropped) */
	TB_N_OUTSIDE_TEXT,	/* function outside .text (dropped) */
	TB_N_EMPTY,		/* size 0 or no usable row (dropped) */
	TB_N_EPILOGUE,		/* --chrome-compat: rows from the first
				 * epilogue on dropped */
	TB_N_UNPARSED,		/* --chrome-compat: row no parser accepts */
	TB_N_EHABI_BAD,		/* EHABI entry that cannot be decoded */
	TB_N_EHABI_REFUSE,	/* EHABI CANTUNWIND or refuse: kept as refuse */
	TB_N_PROLOGUE,		/* prologue analysis found no justified rules */
	TB_N_CFI_WRONG,		/* DWARF CFI the instructions contradict:
				 * the analysed rows replace it */
	TB_N_CFI_PATCHED,	/* DWARF CFI the instructions contradict
				 * where the analysis cannot replace it
				 * whole: patched there (analysed rows or
				 * refused) */
	TB_N_PLT,		/* a PLT stub that does not decode as one:
				 * the rest of the section refuses */
	TB_N_ROWS_MAX,		/* more rows than a FOT list may hold:
				 * the function refuses */
	TB_N_EHABI_UNPROVEN,	/* an EHABI-only function whose prologue or
				 * epilogues its opcodes do not prove */
	TB_N_COUNT
};

const char *tb_reason_name(enum tb_reason r);
const char *tb_reason_text(enum tb_reason r);

struct tb_note {
	u32 func;		/* function start */
	u32 addr;		/* row address (== func for whole functions) */
	u8 reason;
	char detail[112];	/* room for the instruction the analysis stopped at */
};

struct tb_notes {
	struct tb_note *v;
	u32 n, cap;
};

void tb_note_add(struct tb_notes *notes, u32 func, u32 addr,
		 enum tb_reason reason, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* ------------------------------------------------------------------ */
/* Encoding (enc.c)                                                   */

#define TB_SEQ_MAX	64

struct tb_seq {
	u8 len;
	u8 b[TB_SEQ_MAX];
};

/* Append to a sequence; false when it would overflow. */
bool tb_seq_put(struct tb_seq *s, const u8 *b, u32 n);

/* The two-byte opcodes written whole: refuse, root, never returns. */
extern const u8 tb_ops_refuse[2], tb_ops_root[2], tb_ops_noreturn[2];

/* @f's opcodes: a copy of @ops[0, @n); -1 without memory. */
int tb_func_set_ops(struct tb_cfi_func *f, const u8 *ops, u32 n);

/* ULEB128 of @v into @out (at least 5 bytes); returns the length. */
u32 tb_uleb128(u32 v, u8 *out);

/*
 * The vsp update of §5.3 for a non-zero multiple of 4, -0x200 or more.
 * Returns the number of bytes written to @out (up to 6), or -1 for an
 * offset Chrome's encoder asserts on.
 */
int tb_enc_sp(s32 off, u8 *out);

/*
 * A pop of the registers in @mask (bit n = rn), all within r4-r15.
 * Returns the byte count (1 or 2) or -1 when the mask is empty or names
 * r0-r3 or anything above r15.
 */
int tb_enc_pop(u32 mask, u8 *out);

/* Chrome's unwind actions (§5.2). */
enum tb_action_kind {
	TB_A_RETURN_TO_LR,
	TB_A_UPDATE_SP_POP,	/* sp then pops */
	TB_A_RESTORE_SP,	/* vsp = r[reg], then sp */
	TB_A_NO_ACTION,
};

struct tb_action {
	u32 off;		/* byte offset in the function */
	u8 kind;
	u8 reg;
	s32 sp;
	u32 regs;		/* pop mask, bit n = rn */
};

/* One action's bytes (§5.3); false on an encoder assertion. */
bool tb_enc_action(const struct tb_action *a, struct tb_seq *out);

/* ------------------------------------------------------------------ */
/* Conversion (conv.c)                                                */

/* A function ready for layout: (offset, sequence) pairs, offsets descending. */
struct tb_pair {
	u32 off;		/* bytes from the function start */
	struct tb_seq seq;
};

struct tb_func {
	u32 addr;
	u32 size;
	u32 npairs;
	struct tb_pair *pairs;
	u8 source;
	u8 filler;		/* 0, or TB_FILL_* */
	bool overlapped;	/* left out by the layout: an earlier
				 * function covers its start */
	const char *name;
};

enum { TB_FILL_NONE, TB_FILL_REFUSE, TB_FILL_TRIVIAL };

/*
 * Complete sequences from a function's actions (§5.4): @acts in any order;
 * @pairs receives one pair per action, offsets descending.  Returns false
 * if a sequence overflows or an action cannot be encoded.
 */
bool tb_complete_seqs(struct tb_action *acts, u32 n, struct tb_pair *pairs);

/*
 * Chrome's row parsers (§5.2).  Returns 1 with @act filled, 0 when no
 * parser accepts the row.  @cfa is the running CFA offset, updated.
 * @epilogue is set when the row lowers the CFA (not for vsp = r[n]).
 */
int tb_compat_parse_row(const struct tb_row *row, u32 func_addr, s32 *cfa,
			struct tb_action *act, bool *epilogue);

/*
 * Convert one function.  Returns 1 with @out filled, 0 when the function
 * has nothing to encode (noted), -1 on an error Chrome's generator asserts
 * on (message in @err).
 */
int tb_convert_compat(const struct tb_cfi_func *f, struct tb_func *out,
		      struct tb_notes *notes, char *err, size_t errlen);
int tb_convert_full(const struct tb_cfi_func *f, struct tb_func *out,
		    struct tb_notes *notes);

/*
 * The full-state encoder: the complete sequence that unwinds the state
 * @st (accumulated rules).  Returns true, or false with @reason set and
 * @detail filled.  A row whose return address is undefined gives the
 * root marker.  Rules that lose only a callee-saved register are noted
 * but still encoded (@lost gets a bit per lost register).
 */
bool tb_encode_state(const struct tb_row *st, struct tb_seq *out,
		     enum tb_reason *reason, char *detail, size_t dlen,
		     u32 *lost);

/* Merge delta @row into the full state @st. */
void tb_state_apply(struct tb_row *st, const struct tb_row *row);

/* ------------------------------------------------------------------ */
/* Layout (layout.c)                                                  */

struct tb_blob {
	u8 *data;
	u32 size;
	u32 text_start;		/* where its offsets count from */
	u32 text_size;		/* code it covers (0: unknown) */
	/* part sizes for --stats */
	u32 page_entries, func_entries, fot_size, uit_size;
	u32 nseqs, nlists;
};

struct tb_layout_opts {
	bool chrome_compat;
	u32 text_start;
	u32 text_size;		/* 0: unknown (breakpad input) */
	bool gaps_refuse;	/* code between functions refuses instead of
				 * returning to lr: no function is known
				 * there (--prologue-analysis of an ELF) */
	u32 fot_index_max;	/* 0: the format's 65535; lower only in
				 * tests, to split small inputs */
};

/*
 * Fillers, the UIT, the FOT, the page and function tables and the header.
 * @funcs is sorted in place.  Code too large for one v2 table (a FOT
 * list starting beyond its 16-bit index) is split into parts over
 * consecutive ranges, each a v2 table of its own, in address order:
 * *@out (free with tb_blobs_free()), *@nout of them.  Returns 0, or -1
 * with a message in @err (overlap or an overflow in --chrome-compat
 * mode, which makes one table).
 */
int tb_layout(struct tb_func *funcs, u32 nfuncs,
	      const struct tb_layout_opts *o, struct tb_blob **out, u32 *nout,
	      struct tb_notes *notes, char *err, size_t errlen);

void tb_blobs_free(struct tb_blob *b, u32 n);

/* Steps of tb_layout, exposed for the tests. */

/* Sort and add fillers; returns the new array (caller frees) or NULL. */
struct tb_func *tb_add_fillers(struct tb_func *funcs, u32 n,
			       const struct tb_layout_opts *o, u32 *nout,
			       struct tb_notes *notes, char *err,
			       size_t errlen);

struct tb_uit_seq {
	struct tb_seq seq;
	u32 count;
	u32 offset;		/* in the UIT once ordered */
};

/*
 * Order distinct sequences by count per byte, then bytes, both descending
 * (§5.6) and assign offsets.  Returns the UIT size.
 */
u32 tb_order_uit(struct tb_uit_seq *v, u32 n);

/* A sequence's UIT offset, or -1. */
long tb_uit_lookup(const struct tb_uit_seq *v, u32 n, const struct tb_seq *s);

/*
 * Build the FOT: lists in function order, identical lists shared.
 * @index gets each function's FOT byte index.  With @reorder, lists are
 * moved (longest last) when address order would start one beyond
 * @index_max (0: the format's 65535).  Returns the FOT size, -2 when a
 * list would still start beyond it, or -1 (message in @err either way).
 */
long tb_build_fot(const struct tb_func *funcs, u32 n,
		  const struct tb_uit_seq *uit, u32 nuit, bool reorder,
		  u32 index_max, u8 **fot, u32 *index, char *err,
		  size_t errlen);

/*
 * Page table and function table from the functions' addresses and FOT
 * indexes (§5.8).  Returns 0 or -1.
 */
int tb_build_pages(const struct tb_func *funcs, u32 n, u32 text_start,
		   const u32 *index, u32 **pages, u32 *npages,
		   u8 **ftab, u32 *nftab);

/* ------------------------------------------------------------------ */
/* Readers                                                            */

struct tb_input {
	struct tb_cfi_func *funcs;
	u32 n, cap;
};

struct tb_cfi_func *tb_input_add(struct tb_input *in);
void tb_input_free(struct tb_input *in);
struct tb_row *tb_func_add_row(struct tb_cfi_func *f);

/*
 * A function's rows packed (rows.c), for code whose rows are held long:
 * f->rows becomes f->packed.  The rows are read back one after the other
 * (tb_rows_begin, tb_rows_next: each row valid until the next call), from
 * either form, or unpacked into f->rows again.  0, or -1 (memory; the
 * rows stay as they were).
 */
int tb_rows_pack(struct tb_cfi_func *f);
int tb_rows_unpack(struct tb_cfi_func *f);

/* Free @f's rows, either form: it has none after. */
void tb_rows_free(struct tb_cfi_func *f);

struct tb_rows_it {
	const struct tb_cfi_func *f;
	u32 i, pos;		/* the next row and its packed byte */
	struct tb_row row;	/* the last row unpacked */
};

void tb_rows_begin(struct tb_rows_it *it, const struct tb_cfi_func *f);
const struct tb_row *tb_rows_next(struct tb_rows_it *it);

/*
 * Breakpad symbol file (breakpad.c): STACK CFI records.  Returns 0
 * or -1 with a message in @err.  INIT 0 (tombstone) functions are skipped.
 */
int tb_read_breakpad(FILE *f, struct tb_input *in, char *err, size_t errlen);

/*
 * What the generator needs of breakpad input read so: INIT records that
 * do not overlap (sorted here) and rows in address order inside them.
 * Returns 0, or -1 with @err set.
 */
int tb_breakpad_check(struct tb_input *in, char *err, size_t errlen);

/* Parse one breakpad rule string into @row; false on garbage. */
bool tb_parse_breakpad_rules(const char *s, struct tb_row *row);

#endif
