/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Prologue analysis, private to its files (table/prologue_*.c): the state
 * a path carries, the frame forms an instruction is classified as, the
 * walk over one function (struct pa_flow) and what the symbol passes hand
 * it (struct pa_text), and the functions the files share.  The public
 * entry points are in table/prologue.h.
 *
 * The files, lowest first; each calls only files above it in this list
 * (scripts/call-graph.py checks it):
 *   prologue_state.c   the state: comparisons, and the row it states
 *   prologue_insn.c    one instruction's conditions, branches, writes
 *   prologue_dp.c      data-processing frame forms (mov, add, sub)
 *   prologue_ldst.c    load, store, push and pop frame forms
 *   prologue_frame.c   what a frame form does to the state
 *   prologue_apcs.c    APCS returns (ldm of sp and pc)
 *   prologue_clone.c   thread entries: the clone system call's result
 *   prologue_decode.c  the function's bytes into instructions
 *   prologue_cfi.c     CFI rows checked against the analysed states
 *   prologue_path.c    the walker's paths: reaching an address in a state
 *   prologue_jump.c    the walker at branches, calls and computed jumps
 *   prologue_step.c    the walker at one instruction
 *   prologue_walk.c    one function's analysis, start to rows
 *   prologue_sym.c     from a symbol to the code to analyse
 *   prologue_cover.c   what other rules cover, and cutting EHABI ranges
 *   prologue_par.c     workers: one thread's decoder and buffers, and
 *                      running per-function work on them all
 *   prologue_pass.c    the prologue-analysis pass over a file's symbols
 *   prologue_thread.c  thread entries: their analysis and pass
 *   prologue_ehabi.c   EHABI-only functions: prologue and epilogues
 *                      read against their opcodes
 */
#ifndef UWPROF_TABLE_PROLOGUE_INT_H
#define UWPROF_TABLE_PROLOGUE_INT_H

#include <capstone/capstone.h>
#include "table/decode_once.h"
#include "table/prologue.h"

struct tb_elf;
struct tb_sym;

#define PA_NONE	INT32_MIN	/* register not saved */

/* Thread entries: what is known of the clone system call's result. */
enum pa_clone { PA_CL_NONE, PA_CL_R0, PA_CL_FLAGS };

/* What a path knows before an instruction (prologue_state.c). */
struct pa_state {
	s32 cfa;		/* CFA = sp + cfa */
	uint64_t saved;		/* bit s: register s is saved, at
				 * slot_at[s] */
	uint64_t touched;	/* bit s: saved at some point, SAME when
				 * back */
	u16 dirty;		/* r0-r14 written since entry and not put
				 * back: no longer the caller's values */
#define PA_ALL_WRITTEN	0x7fff
	bool child;		/* the new thread's path: outermost frame */
	bool ambiguous;		/* two frames meet here: refused */
	s32 fp;			/* r7 or r11 holding CFA - fp_off, or -1 */
	bool on_fp;		/* sp unknown (alloca): CFA = fp + fp_off */
	s32 fp_off;
	s32 spreg;		/* a register set from fp to CFA - spreg_off,
				 * to restore sp from (clang), or -1 */
	s32 spreg_off;
	s32 cfa_copy;		/* CFA-relative slot holding the CFA's value
				 * (APCS: ip = sp pushed), or PA_NONE */
	u8 clone;		/* enum pa_clone */
	/*
	 * CFA-relative, meaningful where saved says so (pa_slot()): last,
	 * so that a copy takes only the slots up to the highest saved one
	 * (pa_state_copy()).
	 */
	s32 slot_at[TB_NREGS];
};

/* The frame forms an instruction is classified as. */
enum pa_kind { PA_OTHER, PA_PUSH, PA_POP, PA_SUB_SP, PA_ADD_SP,
	       PA_STRD,		/* strd rA, rB, [sp, #-N]! or str rA, [sp,
				 * #-N]! (N > 4): a push with room */
	       PA_STORE,	/* str(d) rA(, rB), [sp, #k]: into the frame */
	       PA_LOAD,		/* ldr(d) rA(, rB), [sp, #k]: from the frame */
	       PA_SET_FP,	/* add r7, sp, #k (r11 in ARM code) */
	       PA_SP_DYN,	/* sub sp, sp, rN: alloca, sp unknown */
	       PA_SP_FROM_FP,	/* mov sp, r7 / sub sp, r7, #k */
	       PA_FP_COPY,	/* sub r4, r7, #k: sp's value to come */
	       PA_SP_COPY,	/* mov ip, sp (APCS) */
	       PA_FP_FROM_COPY };	/* sub fp, ip, #4: fp from sp's copy */

/* Computed jumps (pa_computed_jump, prologue_insn.c says which). */
enum pa_jump { PA_J_NONE, PA_J_FORWARD, PA_J_ANY };

/* Data inside a function (a literal pool between its instructions). */
#define PA_MAX_POOLS	64
#define PA_MAX_FWD	16	/* forward computed jumps in one function */
#define PA_MAX_NORET	16	/* calls found never to return (pa_reach) */
struct pa_range {
	u32 lo, hi;
};

/*
 * Where DWARF CFI says another frame than the analysis (prologue_cfi.c);
 * @follows: entered only from an instruction where both agree, so the
 * analysed rows hold there.
 */
struct pa_stretch {
	u32 lo, hi;
	bool follows;
};

/* One function's walk (prologue_walk.c): its instructions and states. */
struct tb_dec;

struct pa_flow {
	csh cs;
	u32 lo, hi;		/* the function */
	const u8 *code;		/* the function's bytes, at lo */
	struct tb_insn *ins;	/* decoded, in address order */
	u32 n, capins;
	struct tb_dec_op *op;	/* operands and registers of those whose
				 * decoder's would not last, copied */
	u32 nop, capop;
	u8 *reg;
	u32 nreg, capreg;
	struct pa_state *st;	/* state before each instruction */
	bool *have;
	u32 *work;		/* instruction indexes still to follow */
	u32 nwork;
	bool thread_entry;	/* a clone wrapper: its child path is root */
	bool ra_on_stack;	/* entered with the return address at [sp],
				 * to be popped with it (prologue_walk.c) */
	const struct pa_text *text;	/* the whole section, for veneers */
	const struct pa_range *data;	/* literal pools inside, by address */
	u32 ndata;
	bool thumb;
	bool infer_pools;	/* no mapping symbols: pools from the loads */
	struct pa_range lits[PA_MAX_POOLS];	/* pools the loads read */
	u32 nlits;
	u32 data_next;		/* no data or pool below it, from the
				 * address decoding last found none at */
	int adr_reg;		/* set by the instruction before from pc
				 * ("add r3, pc, #268"), or -1 */
	u32 adr_at;		/* to this address */
	struct pa_state jump;	/* the state of its "anywhere" jumps */
	bool have_jump;
	struct pa_fwd { u32 addr; struct pa_state st; } fwd[PA_MAX_FWD];
	u32 nfwd;		/* forward jumps, in the order found */
	bool flooded;		/* code was reached in their states */
	bool returns;		/* some path returns (or tail-calls) */
	const struct tb_insn *clobber;	/* first callee-saved register written
				 * unsaved, allowed if nothing returns */
	u32 noret[PA_MAX_NORET];	/* calls found never to return */
	u32 nnoret;
	bool again;		/* one was found: walk the paths again */
	bool wants_known;	/* met a branch text->known_later leaves
				 * open (pa_text.wants_known) */
	char *why;
	size_t wlen;
};

/*
 * What one thread's analyses hand on to the next (prologue_decode.c):
 * the largest instruction, operand and register arrays the last
 * functions freed.  Malloc()ed and freed for each function, they were
 * fresh pages (a fault each) every time.
 */
struct pa_reuse {
	struct tb_insn *ins;
	u32 capins;
	struct tb_dec_op *op;
	u32 capop;
	u8 *reg;
	u32 capreg;
};

/* The bytes of the section a function lies in. */
struct pa_text {
	struct tb_dec *dec;	/* the file's instructions decoded once (or
				 * the thread's reader of them), or NULL:
				 * capstone decodes them */
	struct pa_reuse *reuse;	/* the thread's, or NULL: none */
	const u8 *b;
	u32 addr, size;
	bool thumb;
	bool no_maps;		/* the file has no mapping symbols (those
				 * discovery made name only the data its
				 * walks read: the loads show the rest) */
	bool gap;		/* code past a symbol's end that no symbol
				 * names: it must end in returns */
	bool sized;		/* the symbol's size is known */
	struct pa_find *known[2];	/* rows of other functions, for
					 * branches into them */
	bool known_later;	/* known[0], the functions analysed before
				 * this one, is not known yet (a worker
				 * thread): a branch back before the
				 * function sets wants_known instead */
	bool wants_known;	/* out: analyse again with known[0] */
	const struct tb_cfi_func *cfi;	/* rules to check, or NULL */
	u32 cfi_wrong;		/* out: where they are first wrong, or 0 */
	struct pa_stretch *cfi_bad;	/* out: every stretch where they are
					 * wrong (malloc'd), ascending */
	u32 ncfi_bad;
	bool cfi_followed;	/* out: every state was followed, none
				 * assumed: the analysis may replace them */
	const struct tb_elf *starts;	/* a function discovery found: its
					 * tail calls must reach a start */
	const struct tb_jump *jumps;	/* computed jumps' targets that
					 * discovery read in their tables */
	u32 njumps;
};

/*
 * What covers the code, sorted by address, for one question per symbol:
 * is [lo, hi) covered by EHABI rules only, or by nothing?  @maxend[k] is
 * the largest end among the first k + 1 ranges, so the first range that
 * can reach past lo is found by bisection even where ranges overlap.
 */
struct pa_cover {
	u32 n;
	struct pa_range *r;	/* by start */
	bool *ehabi;
	u32 *maxend;
};

/* prologue_state.c */
/*
 * Register @reg's slot: r0-r15 0-15, d0-d31 TB_D0 on; -1 for none.
 * Inline: asked for each register of each instruction walked.
 */
static inline int pa_slot_of(unsigned int reg)
{
	if (reg >= ARM_REG_R0 && reg <= ARM_REG_R12)
		return reg - ARM_REG_R0;
	if (reg == ARM_REG_SP)
		return 13;
	if (reg == ARM_REG_LR)
		return 14;
	if (reg == ARM_REG_PC)
		return 15;
	if (reg >= ARM_REG_D0 && reg <= ARM_REG_D31)
		return TB_D0 + (reg - ARM_REG_D0);
	return -1;
}
/* The registers a callee keeps for its caller, as a mask of slots. */
static inline uint64_t pa_callee_saved_mask(void)
{
	/* r4-r11, d8-d15 */
	return 0xff0ull | 0xffull << (TB_D0 + 8);
}

static inline bool pa_callee_saved(int s)
{
	return pa_callee_saved_mask() >> s & 1;
}

bool pa_is_dirty(const struct pa_state *st, int s);
bool pa_frame_eq(const struct pa_state *a, const struct pa_state *b);
bool pa_frame_eq_on_fp(const struct pa_state *a, const struct pa_state *b);
/* Where register @s is saved, CFA-relative, or PA_NONE. */
static inline s32 pa_slot(const struct pa_state *st, int s)
{
	return st->saved >> s & 1 ? st->slot_at[s] : PA_NONE;
}

/* Register @s saved at @at (PA_NONE: not saved). */
static inline void pa_set_slot(struct pa_state *st, int s, s32 at)
{
	st->slot_at[s] = at;
	if (at == PA_NONE)
		st->saved &= ~(1ull << s);
	else
		st->saved |= 1ull << s;
}

/* @from into @to, its slots up to the highest saved one alone. */
void pa_state_copy(struct pa_state *to, const struct pa_state *from);

/* No register saved. */
void pa_clear_slots(struct pa_state *st);
bool pa_state_eq(const struct pa_state *a, const struct pa_state *b);
int pa_add_row(struct tb_cfi_func *f, const struct pa_state *st, u32 addr,
	       uint64_t saved_anywhere);
/* A function's entry: return address in lr, nothing saved or moved. */
void pa_state_entry(struct pa_state *st);
bool pa_ra_in_lr(const struct pa_state *st);
s32 pa_reg_size(int s);

/* prologue_insn.c */
static inline bool pa_conditional(const struct tb_insn *in)
{
	arm_cc cc = in->detail->arm.cc;

	return cc != ARM_CC_AL && cc != ARM_CC_INVALID;
}

/*
 * Which of sp, lr, pc and the callee-saved registers @in writes, as a
 * mask of slots (bit s: slot s).
 */
uint64_t pa_write_mask(const struct tb_insn *in);
/* The same below slot @nw (at most 64), and in @w. */
uint64_t pa_writes(const struct tb_insn *in, bool *w, u32 nw);
/* Bit @s of mask @m. */
static inline bool pa_bit(uint64_t m, int s)
{
	return m >> s & 1;
}
/*
 * The registers capstone 4's cs_regs_access() lists as written, a mask of
 * slots, read from the detail as it reads them (the implicit ones,
 * register operands written, a memory operand's base with write-back):
 * its call and two lists were a tenth of prologue analysis.
 * tests/host/test_pa_writes.c holds the two to the same lists.
 */
uint64_t pa_listed_writes(const struct tb_insn *in);
u32 pa_branch_target(const struct tb_insn *in);
bool pa_is_call(const struct tb_insn *in);
bool pa_plain_branch(const struct tb_insn *in);
enum pa_jump pa_computed_jump(const struct tb_insn *in);
bool pa_is_trap(const struct tb_insn *in);
bool pa_is_padding(const struct tb_insn *in);

/* prologue_dp.c, prologue_ldst.c */
enum pa_kind pa_classify_dp(const struct tb_insn *in, bool thumb, int *regs,
			    s32 *imm);
enum pa_kind pa_classify_mem(const struct tb_insn *in, int *regs, int *n, s32 *imm);

/* prologue_frame.c */
bool pa_pop_frame(struct pa_state *st, const int *regs, int n, s32 extra);
void pa_load_slots(struct pa_state *st, const int *regs, int n, s32 k,
		   uint64_t *wr);
bool pa_apply(struct pa_state *st, enum pa_kind k, const int *regs,
	      int n, s32 imm);

/* prologue_apcs.c */
bool pa_loads_sp_and_pc(const struct tb_insn *in);
const char *pa_apcs_undo(const struct tb_insn *in, const struct pa_state *st,
			 struct pa_state *after);

/* prologue_clone.c */
void pa_clone_split(const struct tb_insn *in, const struct pa_state *st,
		    struct pa_state *taken, struct pa_state *fall);
void pa_clone_track(const struct pa_flow *fl, const struct tb_insn *in,
		    struct pa_state *st);
int pa_child_found(int r, struct tb_cfi_func *f, char *why, size_t wlen);

/* prologue_decode.c */
int pa_decode_all(struct pa_flow *fl, const u8 *code, u32 len);
/* Free what pa_decode_all() allocated. */
void pa_decode_free(struct pa_flow *fl);
/* Free what a thread's analyses handed on. */
void pa_reuse_free(struct pa_reuse *ru);

/* "mnemonic operands" of @in, for messages (decode_once.h keeps none). */
void pa_insn_text(const struct pa_flow *fl, const struct tb_insn *in, char *buf,
		  size_t len);

/* prologue_cfi.c */
int pa_cfi_check(const struct pa_flow *fl, struct pa_text *t);
int pa_cfi_patch(struct tb_cfi_func *f, const struct pa_stretch *bad,
		 u32 nbad, const struct tb_cfi_func *g);

/* prologue_path.c */
long pa_index_of(const struct pa_flow *fl, u32 addr);
int pa_fail(struct pa_flow *fl, const struct tb_insn *in, const char *what);
int pa_reach(struct pa_flow *fl, const struct tb_insn *from, u32 addr,
	     const struct pa_state *st);
/*
 * Two paths' states where only the frame pointer holds the frame on
 * both (an alloca on one, or sp lowered by different constants): both
 * become that state, true; @old_changed when @old was not it already.
 * False, nothing changed, when they do not meet so.
 */
bool pa_alloca_join(struct pa_state *old, struct pa_state *st,
		    bool *old_changed);
int pa_path_end(struct pa_flow *fl, const struct tb_insn *in);
bool pa_noreturn_call(const struct pa_flow *fl, const struct tb_insn *in);
int pa_next(struct pa_flow *fl, u32 i, const struct pa_state *st);
int pa_ret_ok(struct pa_flow *fl, const struct tb_insn *in,
	      const struct pa_state *st);
bool pa_falls_into_data(const struct pa_flow *fl, u32 i);

/* prologue_jump.c */
u32 pa_sym_at(const struct tb_elf *e, u32 addr);
/*
 * A direct branch at @in to @t taken in state @st: inside the function
 * @t is reached in it; out of it, a veneer's way back, a shared tail or
 * a tail call to a known start with the frame gone.  0, or -1 refused.
 */
int pa_branch_to(struct pa_flow *fl, const struct tb_insn *in, u32 t,
		 const struct pa_state *st);
int pa_flow_branch(struct pa_flow *fl, u32 i, const struct pa_state *st);

/* prologue_step.c */
/* The instruction @i, reached in state @before. */
int pa_flow_insn(struct pa_flow *fl, u32 i, const struct pa_state *before);

/* prologue_walk.c */
int pa_analyse(const u8 *code, u32 len, u32 addr, bool thumb,
	       const u32 *entries, u32 nentries, bool thread_entry,
	       const struct pa_range *data, u32 ndata,
	       struct pa_text *text,
	       struct tb_cfi_func *f, char *why, size_t wlen);

/* prologue_sym.c */
u32 pa_sym_limit(const struct tb_elf *e, const struct tb_sym *s, u32 i,
		 u32 text_end);
int pa_analyse_symbol(struct tb_elf *e, const struct tb_sym *s, u32 i,
		      bool thread_entry, struct pa_text *pt,
		      struct tb_cfi_func *f, char *why, size_t wlen);
bool pa_gap_after(const struct tb_elf *e, u32 i, u32 text_end,
		  struct tb_sym *gap);

/*
 * Functions with rows of their own (not EHABI's) by start, to find the
 * first of @in, in its order, that holds an address (prologue_cover.c).
 * A growing one (@grows: the functions analysed so far, appended by
 * start) indexes those appended since at each question; if one comes out
 * of order, every question scans @in.
 */
struct pa_find {
	const struct tb_input *in;
	bool grows, unsorted;
	u32 n;			/* of in's functions indexed */
	u32 *by, nby, cap;	/* their indexes, findable ones, by start */
	u32 *maxend;		/* the largest end among by[0..k] */
};

/* prologue_cover.c */
bool pa_is_ehabi(const struct tb_cfi_func *f);
int pa_cover_build(struct pa_cover *c, const struct tb_input *in);
void pa_cover_free(struct pa_cover *c);
bool pa_only_ehabi(const struct pa_cover *c, u32 lo, u32 hi);
int pa_add_piece(struct tb_input *in, const struct tb_cfi_func *f,
		 u32 lo, u32 hi);
int pa_carve(struct tb_input *in, struct tb_input *done);
int pa_find_build(struct pa_find *fi, const struct tb_input *in, bool grows);
void pa_find_free(struct pa_find *fi);
/* The first function of fi->in, in its order, holding @t and not at
 * @not_at, with rows of its own; NULL if none. */
const struct tb_cfi_func *pa_find_first(struct pa_find *fi, u32 t,
					u32 not_at);

/* prologue_par.c: one thread's own decoder and buffers */
struct pa_worker {
	struct tb_dec dec;	/* a reader of the file's kept forms */
	struct pa_reuse reuse;
};

struct pa_par {
	struct pa_worker *w;
	u32 nw;
};

/* @jobs workers (0: one) over @e's decoder.  0, or -1 (capstone, memory). */
int pa_par_open(struct pa_par *p, struct tb_elf *e, u32 jobs);
void pa_par_close(struct pa_par *p);
/*
 * @fn(@arg, worker, k) for every k in [0, @n), on p->nw threads (this one
 * too), each call on one of them in any order: @fn writes only what is
 * k's own and its worker's.  Returns once every call has.
 */
void pa_par_run(struct pa_par *p, u32 n,
		void (*fn)(void *arg, struct pa_worker *w, u32 k), void *arg);

#endif
