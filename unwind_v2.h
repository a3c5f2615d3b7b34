/* SPDX-License-Identifier: GPL-2.0 */
/*
 * unwind_v2: a table-driven unwinder for ARM32 user stacks.
 *
 * Tables use the "unwind info v2" layout (see docs/FORMAT.md): a page
 * table and a function table map a pc to a list of (offset, sequence)
 * pairs, and each sequence is a run of ARM EHABI frame-unwinding opcodes.
 *
 * This file and unwind_v2.c are plain C with no allocation and no calls
 * into the kernel or libc, so that the module, the host tests, the fuzzers
 * and the uwprof command all compile the same source.  All memory outside
 * the table is read through a caller-supplied callback.
 */
#ifndef UNWIND_V2_H
#define UNWIND_V2_H

#include <linux/types.h>

#define UW2_HEADER_SIZE		32
#define UW2_PAGE_SHIFT		17	/* a page is 128 KiB of .text */

/*
 * The outermost-frame marker, a uwprof extension.  EHABI calls "B1 00"
 * spare, so Chrome's reader aborts on it; uwprof ends the unwind there as
 * "root".  Tables built with --chrome-compat never contain it.
 */
#define UW2_OP_ROOT_0		0xb1
#define UW2_OP_ROOT_1		0x00

/*
 * The never-returning-call marker, a uwprof extension on another spare
 * EHABI encoding ("B1 10").  The table generator puts it at the return
 * address of a call made with the return address saved nowhere (clang's
 * noreturn main calling exit): nothing above that frame can run again, so
 * the live chain is complete there and the unwind ends as "noreturn".
 */
#define UW2_OP_NORETURN_0	0xb1
#define UW2_OP_NORETURN_1	0x10

/*
 * The clone marker, a uwprof extension on a third spare EHABI encoding
 * ("B1 20"), only ever first in a sequence: the instructions between a
 * clone wrapper's system call and its test of the result, which the
 * caller and the new thread both run, in different frames.  The new
 * thread's r0 is 0 there and the caller's never is (uw2_clone_split() in
 * unwind_v2.c says why), so in the sampled frame r0 == 0 ends the unwind
 * as "root", the thread's outermost frame, and any other r0 goes on with
 * the opcodes after the marker: the caller's frame.
 */
#define UW2_OP_CLONE_0		0xb1
#define UW2_OP_CLONE_1		0x20

/* "Refuse to unwind" (EHABI's pop of no register, 80 00). */
#define UW2_OP_REFUSE_0		0x80
#define UW2_OP_REFUSE_1		0x00

/* A table whose header has been checked; the spans point into the blob. */
struct uw2_table {
	const u8 *page_table;	/* page_count little-endian u32 */
	u32 page_count;
	const u8 *func_table;	/* func_count entries of (u16 poff, u16 fot) */
	u32 func_count;
	const u8 *fot;		/* function offset table, fot_size bytes */
	u32 fot_size;
	const u8 *uit;		/* unwind instruction table, uit_size bytes */
	u32 uit_size;
	/*
	 * The shapes of its sequences, found when it was loaded, or NULL
	 * (uw2_shapes_store()): per UIT byte, 0 or 1 + the index in shapes
	 * of the shape of the sequence from there.
	 */
	const u16 *shape_at;
	const struct uw2_seq_shape *shapes;
};

/* Why a blob was refused.  uw2_table_init() sets one and an offset. */
enum uw2_verr {
	UW2_OK = 0,
	UW2_ERR_SHORT,		/* blob smaller than the header */
	UW2_ERR_BOUNDS,		/* a table runs past the end of the blob */
	UW2_ERR_OVERLAP,	/* two tables, or a table and the header, overlap */
	UW2_ERR_ALIGN,		/* page or function table not 4-byte aligned */
	UW2_ERR_EMPTY,		/* page, function, FOT or UIT table is empty */
	UW2_ERR_PAGE_ORDER,	/* page table entries decrease */
	UW2_ERR_PAGE_RANGE,	/* page table entry beyond the function table */
	UW2_ERR_FUNC_FIRST,	/* first function entry not at page offset 0 */
	UW2_ERR_FUNC_ORDER,	/* function entries of a page not increasing */
	UW2_ERR_FOT_INDEX,	/* function's FOT index outside the FOT */
	UW2_ERR_FOT_TRUNC,	/* FOT list runs off the FOT or a ULEB overflows */
	UW2_ERR_FOT_ORDER,	/* FOT offsets not strictly decreasing to 0 */
	UW2_ERR_UIT_INDEX,	/* UIT index outside the UIT */
	UW2_ERR_UIT_OPCODE,	/* spare or reserved opcode in a sequence */
	UW2_ERR_UIT_TRUNC,	/* sequence runs off the UIT before it ends */
	UW2_ERR_PAGE_FIRST,	/* page table does not start at function 0 */
	UW2_ERR_TOO_COMPLEX,	/* validation needs more steps than allowed */
	UW2_ERR_SEQ_LONG,	/* a sequence of over UW2_SEQ_OPS_MAX opcodes */
	UW2_ERR_FOT_LONG,	/* a FOT list of over UW2_FOT_PAIRS_MAX pairs */
	UW2_ERR_INTERRUPTED,	/* the caller's pause gave up (a fatal signal) */
	UW2_ERR_COUNT
};

struct uw2_verror {
	enum uw2_verr code;
	u32 offset;		/* byte offset in the blob where it was found */
};

/*
 * Bounds a valid table keeps, so that one frame's work is bounded: a
 * sequence runs at most UW2_SEQ_OPS_MAX opcodes to its end (real ones
 * need under 16), a FOT list has at most UW2_FOT_PAIRS_MAX pairs (a
 * function of that many unwind rows).  A page holds at most 65,536
 * functions, as their offsets strictly increase.
 */
#define UW2_SEQ_OPS_MAX		64
#define UW2_FOT_PAIRS_MAX	4096

/*
 * How to validate: @memo, uw2_memo_bytes() zeroed bytes (or NULL), 2-byte
 * aligned, keeps what was found valid, so that what functions share is
 * checked once and validation is linear in the blob's size; without it,
 * a table that shares much may be refused as too complex.  @pause, when
 * set, is called every 65,536 steps; returning true ends validation with
 * UW2_ERR_INTERRUPTED.
 */
struct uw2_check {
	void *memo;
	bool (*pause)(void *ctx);
	void *ctx;
};

/*
 * The memo's size for a table whose header passed uw2_table_parse_header()
 * (two bytes a FOT byte, one a UIT byte); UW2_MEMO_BYTES(size) is enough
 * for any table of @size bytes.
 */
u32 uw2_memo_bytes(const struct uw2_table *t);
#define UW2_MEMO_BYTES(size)	(2 * (size_t)(size))
/*
 * In the memo's byte of a UIT byte that a FOT pair names (past its 2 *
 * fot_size bytes), once validated: the starts a table's shapes are found
 * at (uw2_shapes_find()).
 */
#define UW2_MEMO_NAMED		0x80u

/*
 * Check a whole blob and fill @t.  Returns UW2_OK or the first error, with
 * its blob offset in @err (which may be NULL).  Only a table that passed
 * this may be given to uw2_unwind().  @c may be NULL.
 */
enum uw2_verr uw2_table_check(struct uw2_table *t, const void *blob, u32 size,
			      const struct uw2_check *c,
			      struct uw2_verror *err);

#ifndef __KERNEL__
/* uw2_table_check() without a memo, and with one. */
enum uw2_verr uw2_table_init(struct uw2_table *t, const void *blob, u32 size,
			     struct uw2_verror *err);
enum uw2_verr uw2_table_init_memo(struct uw2_table *t, const void *blob,
				  u32 size, void *memo, struct uw2_verror *err);
const char *uw2_verr_str(enum uw2_verr code);
#endif

/*
 * The shapes of a table's sequences (struct uw2_seq_shape), found once
 * when the table is loaded, so that a lookup that misses the cache reads
 * its sequence's shape instead of decoding it.  Right after
 * uw2_table_check() passed with memo and pause @c: uw2_shapes_find()
 * finds the shape of each sequence a FOT pair names, into @scratch
 * (uw2_shapes_scratch_bytes() bytes; 0: the table gets none), and returns
 * the bytes the table's copy needs; uw2_shapes_store() lays it out in
 * @mem (that many bytes, 4-byte aligned) and points @t at it, and
 * uw2_shapes_use() points another uw2_table of the same blob at it again.
 * A table without them decodes each new entry's sequence.
 */
u32 uw2_shapes_scratch_bytes(const struct uw2_table *t);
/*
 * Tables get shapes for a UIT of at most this many bytes (real ones have
 * tens of KiB); a larger one decodes each new entry's sequence, as the
 * two-bytes-a-UIT-byte index would be too large.
 */
#define UW2_SHAPES_UIT_MAX	(256u << 10)
u32 uw2_shapes_find(const struct uw2_table *t, void *scratch,
		    const struct uw2_check *c);
void uw2_shapes_store(struct uw2_table *t, const void *scratch, void *mem,
		      u32 bytes);
void uw2_shapes_use(struct uw2_table *t, const void *mem, u32 bytes);

/*
 * The layout checks of uw2_table_init() alone (size, bounds, alignment,
 * overlap, empty spans): fills @t without looking at the table contents.
 * A table that passed only this must not be given to uw2_unwind().
 */
enum uw2_verr uw2_table_parse_header(struct uw2_table *t, const void *blob,
				     u32 size, struct uw2_verror *err);

#ifndef __KERNEL__
/*
 * Bytes of .text, from text_start, that lookups in @t can resolve: the
 * page count times 128 KiB, saturated at 4 GiB - 1.
 */
u32 uw2_table_text_span(const struct uw2_table *t);

/*
 * Address lookup (§3.1): @byte_off is pc - text_start.  On success returns
 * true with the instruction offset (2-byte units) inside the function and
 * the function's FOT byte index.
 */
bool uw2_lookup_function(const struct uw2_table *t, u32 byte_off,
			 u32 *instr_off, u32 *fot_index);

/* FOT walk (§3.2): the UIT index for @instr_off in the list at @fot_index. */
bool uw2_lookup_sequence(const struct uw2_table *t, u32 fot_index,
			 u32 instr_off, u32 *uit_index);
#endif

/*
 * How the frames of a module's code are unwound.  Code with no table
 * built for it may still keep a frame chain its runtime defines (a JIT's
 * code and its stubs): each such convention is a kind, with its frame
 * layout in unwind_v2.c's table of kinds, so that another runtime is a
 * new row there rather than a new case in the walk.
 */
enum uw2_frames {
	UW2_FRAMES_TABLE = 0,	/* by the module's table (none: no-table) */
	UW2_FRAMES_V8_ARM,	/* V8's frame-pointer chain on 32-bit ARM */
	UW2_FRAMES_COUNT
};

/*
 * One loaded module: its runtime .text range and its (validated) table,
 * or a frame kind other than UW2_FRAMES_TABLE, or both.  A table's range
 * may be cut around code of a frame kind inside it (a JIT's builtins
 * embedded in its binary): each part is a module with the same table, and
 * @skip, the bytes of the table's range before the part's start, places
 * the table (its offset 0 is at text_start - skip).  Code of a frame kind
 * with a table (rows made for it) is unwound by a row first, by its kind
 * where the row refuses or no row covers it.
 */
struct uw2_module {
	u32 text_start;		/* runtime address of .text */
	u32 text_end;		/* exclusive */
	const struct uw2_table *table;
	u32 frames;		/* enum uw2_frames */
	u32 skip;		/* 0 unless a part of a cut table's range */
};

/*
 * Stack words already in memory: [lo, lo + len) at @data, len a multiple
 * of 4 and lo 4-aligned.  The unwinder takes words from here without a
 * call; the reader may point it elsewhere whenever it is called.
 */
struct uw2_view {
	const u8 *data;
	u32 lo;
	u32 len;
	u32 fills_left;		/* copies uw2_view_fill() may still make */
	u32 top;		/* where the copies likely end; 0: unknown */
};

/*
 * What a stack reader returns when the sample may copy no more: the
 * unwind stops as UW2_STOP_BUDGET, not as a read fault.
 */
#define UW2_READ_BUDGET		(-2)

/*
 * A reader's half of a one-span stack cache: the word at @addr from the
 * view, after a miss has filled @buf through @copy with the bytes from
 * @addr's 64-byte line on, @line of them (a multiple of 64, at most 4096)
 * or fewer, and pointed the view at them.  The walk only climbs the
 * stack, so what lies above the miss is what it reads next.  A view's top
 * above the miss is the caller's guess of where the walk ends (the last
 * unwind's final sp, as a thread's outermost frames stay put): the copy
 * ends at top's 64-byte line, across a page boundary if top lies past
 * one (a copy across one that fails is made again up to it, so a failure
 * is always the missed word's page's, and top is set to 0), and a walk
 * that reads past top pays one more copy.  Without such a top the copy ends at the next 4 KiB
 * boundary if that is nearer.  @copy returns 0 or negative (nothing
 * read).  Returns 0, or negative when @copy failed (the view is then
 * empty), or UW2_READ_BUDGET when the view's fills_left was 0: the caller
 * bounds the bytes one sample copies.
 */
int uw2_view_fill(struct uw2_view *v, u8 *buf, u32 line, u32 addr, u32 *val,
		  int (*copy)(void *ctx, void *dst, u32 src, u32 len),
		  void *ctx);

/*
 * What the stack's direct loads fail by: a page, never a word alone, as
 * the MMU's faults do; a frame's words lie in at most two.
 */
#define UW2_USER_PAGE		4096

/*
 * The stack window [lo, hi).  @read is only called for 4-aligned addresses
 * with lo <= addr and addr + 4 <= hi; it returns 0 or a negative value when
 * the word cannot be read (not resident, fault; UW2_READ_BUDGET when it
 * may read no more in this unwind).  @view is optional (NULL):
 * words inside it, and inside [lo, hi), are read from it instead.  Before
 * calling @read for words that start inside the view and run past its
 * end, the unwinder empties the view (len 0), so that a reader that
 * caches (uw2_view_fill()) refills it from the first of them.
 * With @direct, the words the view does not hold are loaded one at a time
 * in place first, where a fill would copy a line, and @read is asked only
 * for those a load cannot give (the module's loads, unwind_v2_user.h; in
 * host builds @word stands in, 0 or negative as @read, without touching
 * the view).  Such loads fail by pages (UW2_USER_PAGE).
 */
struct uw2_stack {
	u32 lo;
	u32 hi;
	int (*read)(void *ctx, u32 addr, u32 *val);
	void *ctx;
	struct uw2_view *view;
	bool direct;
#ifndef __KERNEL__
	int (*word)(void *ctx, u32 addr, u32 *val);
#endif
};

enum uw2_stop {
	UW2_STOP_ROOT,		/* outermost frame reached */
	UW2_STOP_NO_TABLE,	/* pc in no module, or outside its table */
	UW2_STOP_REFUSED,	/* the table says this pc cannot be unwound */
	UW2_STOP_BAD_SP,	/* sp out of the window, not word aligned, not rising */
	UW2_STOP_NO_PROGRESS,	/* leaf frame gave back the same pc and sp */
	UW2_STOP_READ_FAULT,	/* the stack reader failed */
	UW2_STOP_BAD_OPCODE,	/* spare or reserved opcode */
	UW2_STOP_MAX_DEPTH,	/* the frame array is full */
	UW2_STOP_NORETURN,	/* a call that never returns: chain complete */
	UW2_STOP_BUDGET,	/* the sample's step or stack-copy budget is spent */
	UW2_STOP_JIT_CHAIN,	/* JIT frames left JIT code but by no entry frame */
	UW2_STOP_COUNT
};

/* The module whose [text_start, text_end) holds @addr, or NULL. */
const struct uw2_module *uw2_find_module(const struct uw2_module *mods,
					 u32 nmods, u32 addr);

#ifndef __KERNEL__
/* Short names used by the tools and records: "root", "no-table", ... */
const char *uw2_stop_name(enum uw2_stop stop);

/* The tools' names of frame kinds: "table", "v8-arm"; NULL past them. */
const char *uw2_frames_name(enum uw2_frames frames);
#endif

/* Register indexes in uw2_regs. */
enum {
	UW2_R7 = 7,		/* Thumb code's frame pointer */
	UW2_FP = 11, UW2_IP = 12, UW2_SP = 13, UW2_LR = 14, UW2_PC = 15
};

struct uw2_regs {
	u32 r[16];
};

/*
 * Where an ordinary frame of the JIT code holding the return address
 * regs->r[15] (a frame's state, as a walk that stopped UW2_STOP_JIT_CHAIN
 * leaves @regs) keeps its own return address, by its kind's layout; 0
 * when that code is no JIT code.  Code met there that is not known yet
 * (a JIT's new code) can be examined, and the walk tried again.
 */
u32 uw2_jit_ra_at(const struct uw2_module *mods, u32 nmods,
		  const struct uw2_regs *regs);

/* What executing one opcode did (uw2_exec_op). */
enum uw2_exec {
	UW2_EXEC_NEXT,		/* done; more opcodes follow */
	UW2_EXEC_FINISH,	/* frame complete, pc holds the return address */
	UW2_EXEC_ROOT,		/* the outermost-frame marker */
	UW2_EXEC_NORETURN,	/* the never-returning-call marker */
	UW2_EXEC_CLONE,		/* the clone marker: the frame's r0 decides */
	UW2_EXEC_REFUSE,	/* "refuse to unwind" */
	UW2_EXEC_BAD_OPCODE,	/* spare, reserved or truncated opcode */
	UW2_EXEC_BAD_SP,	/* vsp would wrap, or a pop leaves the window */
	UW2_EXEC_READ_FAULT,	/* the stack reader failed */
	UW2_EXEC_BUDGET,	/* the sample's budget is spent */
};

#ifndef __KERNEL__
/*
 * Execute the opcode at @ops[*pos] (@len bytes in all) on @regs, where
 * r13 is vsp.  *@pos moves past the whole opcode whenever it could be
 * decoded, even if it aborted.  *@pc_updated is set when r15 is popped and
 * read by Finish; clear it at the start of each frame.  On any result but
 * NEXT and FINISH, @regs is left as it was.
 */
enum uw2_exec uw2_exec_op(const u8 *ops, u32 len, u32 *pos,
			  struct uw2_regs *regs, bool *pc_updated,
			  const struct uw2_stack *stack);
#endif

/*
 * Steps one unwind may take outside the caller loop's cache hits, which
 * the frame count bounds: a FOT pair read is one, an opcode executed two
 * (a pop of ten registers costs about twice a long pair).  A frame that
 * missed the cache takes a dozen or two; docs/ABI.md states the worst
 * case, about 0.75 million instructions.
 */
#define UW2_SAMPLE_STEPS	4096
#define UW2_OP_STEPS		2

/*
 * Chrome's reader's rules: callers looked up at their return address, not
 * at the call; every finished frame's sp 8-byte aligned (uwprof's own
 * tables ask word alignment only); no rule for a caller that saved no
 * return address.
 */
#define UW2_F_CHROME_COMPAT	0x1

/*
 * The caller reads the frames and the stop, never the registers @regs
 * ends with (the module's handler): the caller loop (uw2_walk_fast())
 * then leaves out the register words of its frames, unless the walk goes
 * on past the loop to a frame whose opcodes may read them.  Frames and
 * stop are the same as without it.
 */
#define UW2_F_FRAMES_ONLY	0x2

/*
 * @regs are the user registers the kernel saved when the task entered it
 * (a sample taken in the kernel), not those user code was interrupted
 * with: the clone marker then refuses where r0 is 0, which there may be
 * the caller's flags argument rather than the new thread's result.
 */
#define UW2_F_KERNEL_REGS	0x4

/*
 * The module array holds code of a JIT kind (struct uw2_module's frames):
 * with UW2_F_FRAMES_ONLY and direct loads, the caller loop without the
 * register copies keeps r11 as it goes, so that the kind's frames stay in
 * it.  Frames and stop are the same as without it.
 */
#define UW2_F_JIT		0x8

#ifndef __KERNEL__
/*
 * Unwind from @regs (the sampled frame).  @mods is sorted by text_start
 * with no overlaps.  Frame 0 is the sampled pc; each later frame is a
 * return address, stored as found (Thumb bit included).  At most
 * @max_frames are written to @frames and their number to @nframes.
 * Returns why the unwind ended.  @regs ends as the state of the last frame
 * reached: that of frames[*nframes - 1], or after UW2_STOP_MAX_DEPTH that
 * of the first frame that did not fit.  A frame that fails leaves no trace.
 */
enum uw2_stop uw2_unwind(const struct uw2_module *mods, u32 nmods,
			 struct uw2_regs *regs, const struct uw2_stack *stack,
			 u32 *frames, u32 max_frames, u32 *nframes,
			 unsigned int flags);
#endif

/*
 * Recent lookups: address to (module, sequence, function start), kept
 * across unwinds, one per CPU in the module.  Zero it before first use.
 *
 * Which entries may be used is up to gen, set by the caller before each
 * unwind.  With gen 0 an entry is used only while the module array given
 * to the unwind still holds the same table at the same place for that
 * address, so entries left by another process or a replaced table are
 * misses, never dereferenced.  (A new table at a freed one's address,
 * index and place would inherit its entries: still bounded by its own
 * sizes, see docs/UNWIND-COST.md.)  A nonzero gen is the caller's promise
 * that every module array it passes with that gen has the same contents,
 * and that no other array ever gets that gen: an entry filled under the
 * same gen is then used without looking at the array, and entries filled
 * under any other gen are misses.
 */
#define UW2_CACHE_BITS		10
#define UW2_CACHE_ENTRIES	1024	/* 2^UW2_CACHE_BITS */

/* Most words loaded in place at once (uw2_shape_src(), uw2_read_words()). */
#define UW2_SHAPE_WORDS		16

/*
 * A sequence of the common shape "vsp += pre; pop mask; vsp += post;
 * finish" (mask without r13, may be empty; pops whose words and registers
 * follow each other count as one), found at the entry's first hit, so
 * later hits run the frame without decoding it.  It may start with
 * "vsp = rN" (a Thumb frame pointer, r7, set past a variable-sized
 * allocation): its words are then counted from rN, not sp.
 */
struct uw2_shape {
	u16 pre;		/* bytes, below 0x8000 */
	u16 size;		/* pre + 4 * count + post: base to the new sp */
	u16 mask;		/* registers popped */
	u16 rest;		/* of them, those outside the run */
	u8 count;		/* words popped */
	u8 run_first;		/* the lowest run of consecutive registers */
	u8 run_len;
	u8 base;		/* the register vsp starts at: UW2_SP, or rN */
};

struct uw2_cache_entry {
	u32 addr;		/* the lookup address; 0 when empty */
	u32 gen;		/* the cache's gen when it was filled */
	u32 text_start;		/* of the module it was found in */
	const struct uw2_table *table;
	u32 uit_index;
	u32 func;		/* start of the function holding addr */
	u16 mod;		/* index in the module array */
	u8 simple;		/* enum uw2_shape_state */
	u8 pad;
	struct uw2_shape shape;
};

/*
 * What the caller loop reads of the entry at the same index of
 * uw2_cache.e, once its shape is known to be a caller's, or its sequence
 * the root marker, or its frame one of a JIT kind whose frames are chain
 * links (the return address in that kind's code, with no table row or a
 * refusal): 16 bytes, so that a set is one 32-byte line.  Its tag
 * holds its key, what the loop has (the return address with bit 0 set),
 * and the gen it was filled under, so one compare tests both (0: none).  A
 * caller's pop never holds sp, so its run is at most 13 long.  The frame
 * in the loop's terms: its words start pre bytes above sp, the return
 * address (the last word popped) ra bytes above them, and the new sp
 * span bytes above them.
 */
struct uw2_fast {
	u64 tag;		/* uw2_fast_tag(): the key and the entry's gen */
	u16 pre;		/* of the shape */
	u16 span;		/* shape's size less pre, or UW2_FAST_SPAN_* */
	u16 rest;
	u8 ra;			/* 4 * (count - 1) */
	u8 run;			/* run_first | run_len << 4; a chain's kind */
};

/*
 * The span of the root marker's entry: no frame's (spans are multiples of
 * 4), and longer than the caller loop's view, so that the loop's bounds
 * test, which a frame in the view passes, sends the marker out of the
 * loop's straight line.
 */
#define UW2_FAST_SPAN_ROOT	0xffff

/*
 * The span of a JIT chain link's entry (enum uw2_frames in run): out of
 * the straight line the same way, as its words are at the frame pointer,
 * not at sp.
 */
#define UW2_FAST_SPAN_CHAIN	0xfffe

/*
 * The span of a frame whose words are counted from r7 (a shape whose base
 * is r7, with nothing skipped past its pop, so that its span is ra + 4):
 * out of the straight line the same way, as its words are not at sp.
 */
#define UW2_FAST_SPAN_R7	0xfffd

/* A caller-loop entry's tag: its key and gen, compared at once (0: none). */
static inline u64 uw2_fast_tag(u32 key, u32 gen)
{
	return (u64)gen << 32 | key;
}

/*
 * UW2_SHAPE_CALLER: simple, and it pops lr or pc, so a caller frame of
 * that shape can be unwound without the general frame checks.
 * UW2_SHAPE_ROOT: the sequence starts with the outermost-frame marker.
 * UW2_SHAPE_REFUSE: it starts with a refusal (a runtime's builtins, whose
 * frames JIT kinds walk).
 * UW2_SHAPE_JIT: no sequence; the address is in JIT code, a module with no
 * table and a kind of frames (the entry's mod), walked by that kind.
 */
enum uw2_shape_state {
	UW2_SHAPE_NONE, UW2_SHAPE_SIMPLE, UW2_SHAPE_CALLER, UW2_SHAPE_UNKNOWN,
	UW2_SHAPE_ROOT, UW2_SHAPE_REFUSE, UW2_SHAPE_JIT
};

/*
 * Sampled pcs are cached by range: the pcs [lo, lo + len) of one function
 * that share a sequence (a row of its FOT list).  A range is kept in the
 * set of the 64-byte block of the pc that was looked up, hashed: two
 * slots, so a lookup reads at most two, and a range longer than a block is
 * found again, and kept again, from each block sampled in it.  The sampled
 * pcs of a lua run fall in about a hundred ranges and two hundred blocks.
 *
 * A range of UW2_PC_WIDE_MIN bytes or more (an interpreter's loop, a large
 * function's body) is kept besides in one of the wide slots, by the 1 KiB
 * block of the pc looked up: a pc whose 64-byte block has not been sampled
 * yet, or lost its slot, finds it there before the full lookup.
 */
#define UW2_PC_BITS		9
#define UW2_PC_SLOTS		512	/* 2^UW2_PC_BITS */
#define UW2_PC_WIDE_BITS	7
#define UW2_PC_WIDE		128	/* 2^UW2_PC_WIDE_BITS */
#define UW2_PC_WIDE_SHIFT	10
#define UW2_PC_WIDE_MIN		512

struct uw2_pc_slot {
	u32 lo;
	u32 len;		/* bytes; 0: empty */
	struct uw2_cache_entry e;
};

/*
 * The shape of a sequence, as the cache's entries take it
 * (uw2_table.shapes); the shape is zero unless simple is
 * UW2_SHAPE_SIMPLE or UW2_SHAPE_CALLER.
 */
struct uw2_seq_shape {
	struct uw2_shape shape;
	u8 simple;		/* enum uw2_shape_state, never UNKNOWN */
	u8 pad[3];
};

/*
 * Lookups made through the cache since its owner last took the counts
 * (the module moves them to its 64-bit counters now and then).  Every
 * address the walk resolves is one lookup, wherever it is served: each
 * walk that stores a frame looks up one sampled pc, and each frame it
 * stores is looked up once (a frame dropped as stale too).  So the walk
 * counts its lookups once at its end, and misses where they are made (a
 * miss pays the full lookup anyway); hits are what is left
 * (uw2_counts_pc_hits(), uw2_counts_ra_hits()), and a hit costs nothing
 * to count.  Code with no table (JIT code too) is a miss.  ra_loop: of
 * all return addresses, the frames the caller loop unwound from their
 * entries' copies (a hit's, or the one the loop made at a miss).  Plain
 * additions, by the one CPU that owns the cache.
 */
struct uw2_cache_counts {
	u32 walks;		/* one sampled pc looked up by each */
	u32 lookups;		/* sampled pcs and return addresses */
	u32 pc_misses;
	u32 ra_misses;
	u32 ra_loop;
};

static inline u32 uw2_counts_pc_hits(const struct uw2_cache_counts *n)
{
	return n->walks - n->pc_misses;
}

static inline u32 uw2_counts_ra_hits(const struct uw2_cache_counts *n)
{
	return n->lookups - n->walks - n->ra_misses;
}

/* gen and counts first: within an instruction's offset of the pointer */
struct uw2_cache {
	u32 gen;		/* set by the caller before each unwind */
	struct uw2_cache_counts counts;
	u32 pad[2];		/* fast's sets start a 32-byte line */
	struct uw2_fast fast[UW2_CACHE_ENTRIES];	/* e's caller frames */
	struct uw2_cache_entry e[UW2_CACHE_ENTRIES];	/* return addresses */
	struct uw2_pc_slot pc[UW2_PC_SLOTS];		/* sampled pcs */
	struct uw2_pc_slot wide[UW2_PC_WIDE];		/* their long ranges */
};

/* uw2_unwind() with a lookup cache (may be NULL). */
enum uw2_stop uw2_unwind_cached(const struct uw2_module *mods, u32 nmods,
				struct uw2_regs *regs,
				const struct uw2_stack *stack, u32 *frames,
				u32 max_frames, u32 *nframes,
				unsigned int flags, struct uw2_cache *cache);

#endif /* UNWIND_V2_H */
