/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Function discovery in stripped code: where functions start, and how far
 * their code reaches, without symbols or unwind information.  The starts
 * found join the ELF's symbols (tb_sym.found) so that prologue analysis
 * runs over them as over named functions.  docs/TABLES.md ("Function
 * discovery") says which evidence counts and why.
 */
#ifndef UWPROF_TABLE_DISCOVER_H
#define UWPROF_TABLE_DISCOVER_H

#include "table/table.h"

struct tb_elf;
struct tb_insn;

/* What discovery found, for --stats. */
struct tb_discover_stats {
	u32 seeds;		/* symbols, entry, arrays, unwind entries */
	u32 calls;		/* starts first found as call targets */
	u32 tails;		/* ... as tail-call targets */
	u32 pointers;		/* ... as address-taken code */
	u32 boundaries;		/* starts whose instruction set is unknown */
	u32 gaps;		/* ... as the first code after a function */
	u32 passes;
};

/* A candidate function start, and how it was found. */
enum dc_kind { DC_K_SEED, DC_K_CALL, DC_K_TAIL, DC_K_PTR, DC_K_BOUND,
	      DC_K_GAP };

struct dc_cand {
	u32 addr;
	u32 site;		/* the instruction that named it, or 0 */
	u8 thumb;
	u8 kind;		/* enum dc_kind */
};

struct dc_cands {
	struct dc_cand *v;
	u32 n, cap;
};

/* Room for one more candidate in @c: 0, or -1 (memory). */
int dc_cands_grow(struct dc_cands *c);

/* Every walk and pass adds its candidates here (a million for libc). */
static inline int dc_cands_add(struct dc_cands *c, u32 addr, bool thumb,
			       enum dc_kind k, u32 site)
{
	if (c->n == c->cap && dc_cands_grow(c))
		return -1;
	c->v[c->n++] = (struct dc_cand){ addr, site, thumb, k };
	return 0;
}

/* Flags per halfword of the covered code. */
enum {
	DC_START = 1,		/* a function starts here */
	DC_THUMB = 2,		/* ... in Thumb code */
	DC_NOMODE = 4,		/* ... in an instruction set not known */
	DC_CODE = 8,		/* an instruction reached this pass starts here */
	DC_IN = 16,		/* inside an instruction reached this pass */
	DC_DATA = 32,		/* a literal or table that reached code reads */
	DC_NOFALL = 64,		/* the instruction before is a return */
};

struct dc_fn {
	u32 addr, size;
	bool thumb, nomode, sym;	/* sym: a symbol names it already */
	bool sym_asked;		/* sym_end looked up (dc_fn_bound) */
	u32 sym_end;		/* where the symbol's size ends it, or 0 */
};

/* A flag set outside the bounds of the walk that set it. */
struct dc_or {
	u32 addr, bits;
};

struct dc_memo;

/* The state of discovery over the code the table covers. */
struct dc {
	struct tb_elf *e;
	struct tb_dec *dec;	/* tb_elf_decoder(e) */
	struct tb_insn *insn;	/* the instruction a walk decoded last */
	u8 *fl;			/* flags, one per halfword from lo */
	uint64_t *starts;		/* DC_START again, a bit per halfword: the
				 * next start is found 64 halfwords a step */
	u8 *fixed;		/* may a function start here (discover.c's
				 * may_start()): two bits per halfword */
	u32 lo, n;
	const u8 *secb[32];	/* each executable section's bytes */
	/* the section bytes_at() found last: its bytes, address, size */
	const u8 *hint_b;
	u32 hint_addr, hint_size;
	struct dc_fn *fn;
	u32 nfn, capfn;
	struct dc_cands found;	/* one walk's candidates */
	struct dc_cand *cand;	/* the last walk's: found's, or those its
				 * memo keeps (after_walk() drops for good
				 * the ones never taken) */
	u32 *ncand;
	struct dc_cands later;	/* tail targets, pointers: after a pass */
	struct dc_cands ptrs;	/* code addresses stored as data */
	u32 *order;		/* fn indexes by address, for extents */
	u32 norder;
	u32 nsorted;		/* order's first entries that are fn's first
				 * indexes, by address: the next order_build()
				 * merges only those added since */
	u32 *merged;		/* room for order_build()'s merge */
	uint64_t *walked;	/* a bit per halfword: inside_walked() of
				 * the functions in order */
	u32 last_lo, last_hi;	/* the extent of the last one taken */
	bool last_thumb;
	u32 *stack;
	u32 nstack, capstack;
	struct tb_discover_stats *st;
	u32 walk_bad, walk_returns;	/* the last walk's undecodable
					 * instructions and returns */
	struct tb_jump *jumps;	/* this pass's table targets (table_goto) */
	u32 njumps, capjumps;
	struct dc_memo *memo;	/* each function's last walk (discover_memo.c) */
	u32 capmemo;
	struct dc_or *out;	/* the walk's flags set outside [out_lo,
				 * out_hi), while out_on */
	u32 nout, capout, out_lo, out_hi;
	struct dc_or *undo;	/* ... inside: what each halfword held */
	u32 nundo, capundo;
	u32 touch_hi;		/* ... above the highest read or set inside */
	bool out_on, out_fail;
};

static inline bool dc_inside(const struct dc *d, u32 a)
{
	return a - d->lo < 2 * d->n;
}

static inline u8 *dc_flag(struct dc *d, u32 a)
{
	return &d->fl[(a - d->lo) >> 1];
}

void dc_out_add(struct dc *d, u32 a, u8 bits);
void dc_undo_grow(struct dc *d, u32 a, u8 old);

/*
 * A walk changed the flags at @a, which held @old (each walk's first
 * change of most halfwords it reaches: inline while there is room).
 */
static inline void dc_undo_add(struct dc *d, u32 a, u8 old)
{
	if (d->nundo < d->capundo)
		d->undo[d->nundo++] = (struct dc_or){ a, old };
	else
		dc_undo_grow(d, a, old);
}

/*
 * A walk sets @bits at @a.  For the walk to be repeated from memory
 * (discover_memo.c), what it set outside its bounds is noted, and inside
 * them what each halfword held before and how high it set or read.
 */
static inline void dc_set(struct dc *d, u32 a, u8 bits)
{
	u8 *f = dc_flag(d, a);

	if (d->out_on && (a < d->out_lo || a >= d->out_hi)) {
		dc_out_add(d, a, bits);
	} else if (d->out_on) {
		if ((*f | bits) != *f)
			dc_undo_add(d, a, *f);
		if (a + 2 > d->touch_hi)
			d->touch_hi = a + 2;
	}
	*f |= bits;
}

/* A walk reads the flags at @a: only inside its bounds (and the flags),
 * or it is not repeated from memory. */
static inline u8 dc_get(struct dc *d, u32 a)
{
	if (d->out_on && (a < d->out_lo || a >= d->out_hi || !dc_inside(d, a)))
		d->out_fail = true;
	else if (d->out_on && a + 2 > d->touch_hi)
		d->touch_hi = a + 2;
	return *dc_flag(d, a);
}

/*
 * Walk function @k of @d (discover_walk.c): mark the instructions its
 * paths reach and the literals and tables they read, gather the calls,
 * branches out and code addresses it names into @d->found.  Returns the
 * end of the highest code or data it reaches, or 0 (-1u on error).
 */
u32 dc_walk(struct dc *d, u32 k);

/* The bound dc_walk() gives a walk from @a: the next known start after
 * it, or the end of its section. */
u32 dc_fn_bound(struct dc *d, u32 k);

/* Note @t, a target of the computed jump at @site.  0, or -1 (memory). */
int dc_jump_add(struct dc *d, u32 site, u32 t);

/*
 * dc_walk(), or what it did when last asked with the same start,
 * instruction set, bound and flags inside the bound (discover_memo.c):
 * a walk reads nothing else, so its marks, candidates, table targets
 * and end are those again.  Passes after the first walk again only the
 * functions whose bound or neighbourhood changed.
 */
u32 dc_walk_cached(struct dc *d, u32 k);

/* Free what dc_walk_cached() kept. */
void dc_memo_free(struct dc *d);

/*
 * Does the code at @a save lr first, as a prologue does (Thumb "push
 * {..., lr}", "push.w {..., lr}"; ARM "push {..., lr}", "str lr, [sp,
 * #-4]!"), after at most @lead instructions that only put constants in
 * r0-r12 (literal loads, "add rN, pc", mov of immediates: the GOT base
 * and stack guard loads gcc schedules above the push)?  A label inside a
 * function does not.
 */
#define DC_MAX_LEAD 4
bool dc_saves_lr(struct dc *d, u32 a, bool thumb, u32 lead);

/*
 * The instruction set of a function at @a whose start is known but not
 * its mode: 1 Thumb, 0 ARM, -1 not clear.
 */
int dc_guess_mode(struct dc *d, u32 a);

/*
 * Seeds and address-taken code from the ELF itself (discover_seeds.c):
 * the entry point, .init_array/.fini_array/.preinit_array, symbols, the
 * starts of @in's functions (unwind entries), and code addresses in
 * relocations or, for a file without dynamic relocations, in its data.
 * 0, or -1 (memory).
 */
int dc_seeds(struct tb_elf *e, const struct tb_input *in,
	     struct dc_cands *out);

/* The word at link address @addr in any section with file bytes. */
bool dc_read_word(struct tb_elf *e, u32 addr, u32 *w);

/*
 * Discover @e's functions and add each start no symbol names to @e->syms
 * (found = true, size = the code its paths reach).  A file without
 * mapping symbols gets them from the walks: $t or $a at each function
 * and where code resumes, $d at the literals and tables reached code
 * reads.  Default mode, before prologue analysis.  Returns the number added, or -1 (capstone, memory).
 */
int tb_discover(struct tb_elf *e, const struct tb_input *in,
		struct tb_discover_stats *st);

/*
 * Drop the mapping symbols tb_discover made for a file without any: they
 * serve prologue analysis only (the PLT and later passes read the file's
 * own, and a stripped file has none).
 */
void tb_discover_drop_maps(struct tb_elf *e);

#endif
