// SPDX-License-Identifier: GPL-2.0
/*
 * unwind_v2: validation, lookup and EHABI opcode execution for "unwind
 * info v2" tables, and the frame loop that walks a user stack with them.
 *
 * Everything here is bounded by the table and stack sizes it is given:
 * tables come from user space, so even a validated table is never trusted
 * to terminate a loop by its contents alone.  docs/FORMAT.md describes
 * what is accepted and how each opcode is executed.
 */
#include "unwind_v2.h"

/*
 * The module's build gives unwind_v2_user.h's in-place user loads (Kbuild:
 * -include); host builds have the stack's word callback stand in.
 */
#ifndef __KERNEL__
static inline unsigned int uw2_user_open(void)
{
	return 0;
}

static inline void uw2_user_close(unsigned int flags)
{
	(void)flags;
}

static inline bool uw2_user_load(const struct uw2_stack *st, u32 addr,
				 u32 *val)
{
	return st->word(st->ctx, addr, val) == 0;
}

static inline u32 uw2_user_word(const struct uw2_stack *st, u32 addr)
{
	u32 val;

	return uw2_user_load(st, addr, &val) ? val : 0;
}

static inline bool uw2_user_loads(const struct uw2_stack *st, u32 addr,
				  u32 count, u32 *buf)
{
	bool ok = true;
	u32 k;

	for (k = 0; k < count; k++)
		ok &= uw2_user_load(st, addr + 4 * k, &buf[k]);
	return ok;
}
#endif

/*
 * The kernel's, for the validation walks the module's build must keep
 * out of line (for their registers); host builds, whose speed nothing
 * here measures, may inline what they like.
 */
#ifndef noinline
#define noinline
#endif

#define UW2_U32_MAX		0xffffffffu
#define UW2_PAGE_UNITS_SHIFT	(UW2_PAGE_SHIFT - 1)	/* 2-byte units */

/*
 * Validation walks every FOT list a function names and every sequence a
 * pair names.  With a memo (the module's) each pair is walked once, and
 * counted at most once more where another list joins it (not charged), so
 * a budget of a few steps per byte is never reached by a table that is
 * valid; without one (the tools), a hostile table could make it
 * quadratic by pointing many functions at one long list, and anything far
 * beyond what real tables need is refused rather than left to run.
 */
#define UW2_STEPS_PER_BYTE	64
#define UW2_STEPS_PER_BYTE_MEMO	4
#define UW2_STEPS_BASE		0x100000u
/* how often validation offers the caller to pause or give up */
#define UW2_PAUSE_STEPS		0x10000u

static u32 uw2_le16(const u8 *p)
{
	return p[0] | (u32)p[1] << 8;
}

static u32 uw2_le32(const u8 *p)
{
	return p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 | (u32)p[3] << 24;
}

enum uw2_uleb_res { UW2_ULEB_OK, UW2_ULEB_BIG, UW2_ULEB_TRUNC };

/*
 * Decode the ULEB128 at buf[*pos].  On OK and BIG (a value that needs
 * more than 32 bits) *pos moves past the last byte; on TRUNC the number
 * runs off the buffer and *pos is untouched.
 */
static enum uw2_uleb_res uw2_uleb_long(const u8 *buf, u32 len, u32 *pos,
				       u32 *val)
{
	enum uw2_uleb_res res = UW2_ULEB_OK;
	u32 p = *pos, v = 0, shift = 0;
	u8 b;

	do {
		if (p >= len)
			return UW2_ULEB_TRUNC;
		b = buf[p++];
		if (shift < 28)
			v |= (u32)(b & 0x7f) << shift;
		else if (shift == 28 && !(b & 0x70))
			v |= (u32)(b & 0x0f) << 28;
		else if (b & 0x7f)
			res = UW2_ULEB_BIG;
		if (shift < 35)
			shift += 7;
	} while (b & 0x80);
	*pos = p;
	*val = v;
	return res;
}

/*
 * Most numbers in a table are one or two bytes (a large function's row
 * offsets, a UIT of over 127 bytes' indexes): those cases inline.  The
 * ULEB128 at buf[@pos] if it is one of them, in *@val: its length, or 0.
 */
static inline u32 uw2_uleb_short(const u8 *buf, u32 len, u32 pos, u32 *val)
{
	if (pos < len && buf[pos] < 0x80) {
		*val = buf[pos];
		return 1;
	}
	if (pos < len && len - pos >= 2 && buf[pos + 1] < 0x80) {
		*val = (buf[pos] & 0x7f) | (u32)buf[pos + 1] << 7;
		return 2;
	}
	return 0;
}

static inline enum uw2_uleb_res uw2_uleb(const u8 *buf, u32 len, u32 *pos,
					 u32 *val)
{
	u32 n = uw2_uleb_short(buf, len, *pos, val);

	if (n) {
		*pos += n;
		return UW2_ULEB_OK;
	}
	return uw2_uleb_long(buf, len, pos, val);
}

/* One decoded opcode.  Register masks use bit n for rn. */
enum uw2_kind {
	UW2_K_VSP_ADD,
	UW2_K_VSP_SUB,
	UW2_K_VSP_WRAP,		/* an increment too large for 32 bits */
	UW2_K_VSP_REG,
	UW2_K_POP,
	UW2_K_FINISH,
	UW2_K_REFUSE,
	UW2_K_ROOT,
	UW2_K_NORETURN,
	UW2_K_CLONE,
};

struct uw2_insn {
	enum uw2_kind kind;
	u32 arg;		/* byte count, register number or mask */
};

enum uw2_dec_res { UW2_DEC_OK, UW2_DEC_SPARE, UW2_DEC_TRUNC };

/* VFP register ranges must stay within one bank of 16 D registers. */
static bool uw2_vfp_range_ok(u8 b)
{
	return (b >> 4) + (b & 0xf) <= 15;
}

static enum uw2_dec_res uw2_decode_b2(const u8 *ops, u32 len, u32 *pos,
				      struct uw2_insn *in)
{
	u32 p = *pos + 1, v;
	enum uw2_uleb_res r = uw2_uleb(ops, len, &p, &v);

	if (r == UW2_ULEB_TRUNC)
		return UW2_DEC_TRUNC;
	*pos = p;
	if (r == UW2_ULEB_BIG || v > (UW2_U32_MAX - 0x204) >> 2) {
		in->kind = UW2_K_VSP_WRAP;
		in->arg = 0;
	} else {
		in->kind = UW2_K_VSP_ADD;
		in->arg = 0x204 + (v << 2);
	}
	return UW2_DEC_OK;
}

/* The opcodes that carry a second byte (other than B2's ULEB). */
static enum uw2_dec_res uw2_decode_two(u8 op, u8 b, struct uw2_insn *in)
{
	if (op < 0x90) {
		u32 mask = (u32)(op & 0xf) << 8 | b;

		in->kind = mask ? UW2_K_POP : UW2_K_REFUSE;
		in->arg = mask << 4;
		return UW2_DEC_OK;
	}
	if (op == 0xb1) {
		if (b == UW2_OP_NORETURN_1 || b == UW2_OP_CLONE_1) {
			in->kind = b == UW2_OP_CLONE_1 ? UW2_K_CLONE :
							 UW2_K_NORETURN;
			in->arg = 0;
			return UW2_DEC_OK;
		}
		if (b & 0xf0)
			return UW2_DEC_SPARE;
		in->kind = b ? UW2_K_POP : UW2_K_ROOT;
		in->arg = b;
		return UW2_DEC_OK;
	}
	/* B3 (FSTMFDX adds a pad word), C8 and C9 (VPUSH): vsp skips only */
	if (!uw2_vfp_range_ok(b))
		return UW2_DEC_SPARE;
	in->kind = UW2_K_VSP_ADD;
	in->arg = 8 * ((b & 0xf) + 1) + (op == 0xb3 ? 4 : 0);
	return UW2_DEC_OK;
}

static bool uw2_is_two_byte(u8 op)
{
	return (op >= 0x80 && op < 0x90) || op == 0xb1 || op == 0xb3 ||
	       op == 0xc8 || op == 0xc9;
}

/* The single-byte opcodes. */
static enum uw2_dec_res uw2_decode_one(u8 op, struct uw2_insn *in)
{
	u32 n = op & 7;

	in->arg = 0;
	if (op < 0x40) {
		in->kind = UW2_K_VSP_ADD;
		in->arg = ((u32)(op & 0x3f) << 2) + 4;
	} else if (op < 0x80) {
		in->kind = UW2_K_VSP_SUB;
		in->arg = ((u32)(op & 0x3f) << 2) + 4;
	} else if (op >= 0x90 && op < 0xa0) {
		if (op == 0x9d || op == 0x9f)
			return UW2_DEC_SPARE;
		in->kind = UW2_K_VSP_REG;
		in->arg = op & 0xf;
	} else if (op >= 0xa0 && op < 0xb0) {
		in->kind = UW2_K_POP;
		in->arg = ((2u << n) - 1) << 4;
		if (op & 8)
			in->arg |= 1u << UW2_LR;
	} else if (op == 0xb0) {
		in->kind = UW2_K_FINISH;
	} else if ((op >= 0xb8 && op < 0xc0) || (op >= 0xd0 && op < 0xd8)) {
		/* FSTMFDX (B8-BF) saves a pad word, VPUSH (D0-D7) does not */
		in->kind = UW2_K_VSP_ADD;
		in->arg = 8 * (n + 1) + (op < 0xc0 ? 4 : 0);
	} else {
		return UW2_DEC_SPARE;
	}
	return UW2_DEC_OK;
}

/*
 * Decode the opcode at ops[*pos]; on OK, *pos moves past it.  Validation
 * and execution share this, so a validated sequence always decodes the
 * same way when it runs.  Inline in its three callers (the check of a
 * sequence, its run, the shape of a cache entry): each reads the result
 * at once, and a call would pass it through memory.
 */
static __always_inline enum uw2_dec_res
uw2_decode(const u8 *ops, u32 len, u32 *pos, struct uw2_insn *in)
{
	enum uw2_dec_res r;
	u8 op;

	if (*pos >= len)
		return UW2_DEC_TRUNC;
	op = ops[*pos];
	if (op == 0xb2)
		return uw2_decode_b2(ops, len, pos, in);
	if (!uw2_is_two_byte(op)) {
		r = uw2_decode_one(op, in);
		if (r == UW2_DEC_OK)
			*pos += 1;
		return r;
	}
	if (len - *pos < 2)
		return UW2_DEC_TRUNC;
	r = uw2_decode_two(op, ops[*pos + 1], in);
	if (r == UW2_DEC_OK)
		*pos += 2;
	return r;
}

/* ---- header and validation ---- */

struct uw2_span {
	u32 off;		/* byte offset in the blob */
	u32 count;		/* as stored in the header */
	u32 shift;		/* log2 of the bytes per counted item */
	u32 field;		/* header offset of the offset field */
};

static enum uw2_verr uw2_fail(struct uw2_verror *err, enum uw2_verr code,
			      u32 offset)
{
	if (err) {
		err->code = code;
		err->offset = offset;
	}
	return code;
}

static u32 uw2_span_bytes(const struct uw2_span *s)
{
	return s->count << s->shift;
}

/* Emptiness, bounds and alignment of one span, in that order. */
static enum uw2_verr uw2_check_span(const struct uw2_span *s, u32 size,
				    struct uw2_verror *err)
{
	if (!s->count)
		return uw2_fail(err, UW2_ERR_EMPTY, s->field + 4);
	if (s->off > size || s->count > (size - s->off) >> s->shift)
		return uw2_fail(err, UW2_ERR_BOUNDS, s->field);
	if (s->shift && (s->off & 3))
		return uw2_fail(err, UW2_ERR_ALIGN, s->field);
	return UW2_OK;
}

static bool uw2_spans_overlap(const struct uw2_span *a,
			      const struct uw2_span *b)
{
	return a->off < b->off + uw2_span_bytes(b) &&
	       b->off < a->off + uw2_span_bytes(a);
}

static enum uw2_verr uw2_check_overlaps(const struct uw2_span *s, u32 n,
					struct uw2_verror *err)
{
	u32 i, j;

	for (i = 0; i < n; i++) {
		if (s[i].off < UW2_HEADER_SIZE)
			return uw2_fail(err, UW2_ERR_OVERLAP, s[i].field);
		for (j = 0; j < i; j++)
			if (uw2_spans_overlap(&s[i], &s[j]))
				return uw2_fail(err, UW2_ERR_OVERLAP,
						s[i].field);
	}
	return UW2_OK;
}

enum uw2_verr uw2_table_parse_header(struct uw2_table *t, const void *blob,
				     u32 size, struct uw2_verror *err)
{
	static const u32 shifts[4] = { 2, 2, 0, 0 };
	const u8 *b = blob;
	struct uw2_span s[4];
	enum uw2_verr r;
	u32 i;

	if (size < UW2_HEADER_SIZE)
		return uw2_fail(err, UW2_ERR_SHORT, size);
	for (i = 0; i < 4; i++) {
		s[i].field = 8 * i;
		s[i].off = uw2_le32(b + 8 * i);
		s[i].count = uw2_le32(b + 8 * i + 4);
		s[i].shift = shifts[i];
		r = uw2_check_span(&s[i], size, err);
		if (r)
			return r;
	}
	r = uw2_check_overlaps(s, 4, err);
	if (r)
		return r;
	t->page_table = b + s[0].off;
	t->page_count = s[0].count;
	t->func_table = b + s[1].off;
	t->func_count = s[1].count;
	t->fot = b + s[2].off;
	t->fot_size = s[2].count;
	t->uit = b + s[3].off;
	t->uit_size = s[3].count;
	t->shape_at = NULL;	/* uw2_shapes_store() */
	t->shapes = NULL;
	return uw2_fail(err, UW2_OK, 0);
}

/*
 * Validation state: where each table sits in the blob, the budget, and
 * optionally a memo (struct uw2_check) of what was found valid, so that
 * what functions share is checked once and validation stays linear.
 */
struct uw2_vstate {
	const struct uw2_table *t;
	const u8 *blob;
	u32 steps_left;		/* of the budget, not yet in chunk_left */
	u32 chunk_left;		/* steps to the next uw2_spend_chunk() */
	u32 chunks;		/* chunks handed out */
	const struct uw2_check *c;
	u16 *memo_fot;		/* fot_size counts, then ... */
	u8 *memo_uit;		/* ... uit_size counts; or both NULL */
	struct uw2_verror *err;
	u32 pair_off, pair_uit;	/* the pair uw2_check_long_pair() read, */
	u32 pair_next;		/* and where the next one starts */
};

/*
 * The memo's UIT counts, 0 where not checked: opcodes to the end of the
 * sequence from UIT byte @pos (at most UW2_SEQ_OPS_MAX), with
 * UW2_MEMO_NAMED where a FOT pair names it.  Its FOT slots:
 * UW2_MEMO_SEEN, below.
 */
static u32 uw2_memo_uit(const struct uw2_vstate *v, u32 pos)
{
	return v->memo_uit ? v->memo_uit[pos] & ~UW2_MEMO_NAMED : 0;
}

u32 uw2_memo_bytes(const struct uw2_table *t)
{
	return 2 * t->fot_size + t->uit_size;
}

static u32 uw2_blob_off(const struct uw2_vstate *v, const u8 *p)
{
	return (u32)(p - v->blob);
}

static u32 uw2_page_entry(const struct uw2_table *t, u32 page)
{
	return uw2_le32(t->page_table + 4 * page);
}

static u32 uw2_func_poff(const struct uw2_table *t, u32 i)
{
	return uw2_le16(t->func_table + 4 * i);
}

static u32 uw2_func_fot(const struct uw2_table *t, u32 i)
{
	return uw2_le16(t->func_table + 4 * i + 2);
}

/*
 * The budget is handed out UW2_PAUSE_STEPS steps at a time (or what is
 * left of it), so that a step costs one counter: the step at @p that
 * needs a new chunk is refused past the budget, and between chunks the
 * caller's pause (the module's cond_resched() and fatal signal check)
 * may end validation.
 */
static enum uw2_verr uw2_spend_chunk(struct uw2_vstate *v, const u8 *p)
{
	u32 n;

	if (!v->steps_left)
		return uw2_fail(v->err, UW2_ERR_TOO_COMPLEX, uw2_blob_off(v, p));
	if (v->chunks++ && v->c && v->c->pause && v->c->pause(v->c->ctx))
		return uw2_fail(v->err, UW2_ERR_INTERRUPTED,
				uw2_blob_off(v, p));
	n = v->steps_left < UW2_PAUSE_STEPS ? v->steps_left : UW2_PAUSE_STEPS;
	v->steps_left -= n;
	v->chunk_left = n - 1;
	return UW2_OK;
}

/* One step of validation at @p, within the budget. */
static inline enum uw2_verr uw2_spend(struct uw2_vstate *v, const u8 *p)
{
	if (v->chunk_left) {
		v->chunk_left--;
		return UW2_OK;
	}
	return uw2_spend_chunk(v, p);
}

/*
 * @n steps at once, for a run of work already bounded by its own size (a
 * run of functions, a list just walked): the pause comes between runs.
 */
static enum uw2_verr uw2_spend_run(struct uw2_vstate *v, u32 n, const u8 *p)
{
	enum uw2_verr r;

	while (n > v->chunk_left) {
		n -= v->chunk_left + 1;
		r = uw2_spend_chunk(v, p);
		if (r)
			return r;
	}
	v->chunk_left -= n;
	return UW2_OK;
}

static enum uw2_verr uw2_check_pages(struct uw2_vstate *v)
{
	const struct uw2_table *t = v->t;
	u32 p, cur, prev = 0;
	enum uw2_verr r;

	for (p = 0; p < t->page_count; p++) {
		r = uw2_spend(v, t->page_table + 4 * p);
		if (r)
			return r;
		cur = uw2_page_entry(t, p);
		if (p == 0 && cur != 0)
			return uw2_fail(v->err, UW2_ERR_PAGE_FIRST,
					uw2_blob_off(v, t->page_table));
		if (cur < prev)
			return uw2_fail(v->err, UW2_ERR_PAGE_ORDER,
					uw2_blob_off(v, t->page_table + 4 * p));
		if (cur > t->func_count)
			return uw2_fail(v->err, UW2_ERR_PAGE_RANGE,
					uw2_blob_off(v, t->page_table + 4 * p));
		prev = cur;
	}
	return UW2_OK;
}

static bool uw2_ends_sequence(const struct uw2_insn *in)
{
	return in->kind == UW2_K_FINISH || in->kind == UW2_K_REFUSE ||
	       in->kind == UW2_K_ROOT || in->kind == UW2_K_NORETURN;
}

/*
 * A sequence: the opcodes from UIT byte @pos to its end (Finish, Refuse
 * or a marker) each decode, and there are at most UW2_SEQ_OPS_MAX of
 * them.  The walk stops early at an opcode the memo knows, whose count
 * it adds; with a memo, each opcode walked then gets its count to the
 * end, from where the walk noted it, so no opcode is decoded twice.
 */
/* Is the opcode at UIT byte @pos the clone marker? */
static bool uw2_clone_at(const struct uw2_table *t, u32 pos)
{
	return pos + 1 < t->uit_size && t->uit[pos] == UW2_OP_CLONE_0 &&
	       t->uit[pos + 1] == UW2_OP_CLONE_1;
}

static enum uw2_verr uw2_check_sequence(struct uw2_vstate *v, u32 pos)
{
	const struct uw2_table *t = v->t;
	u32 at[UW2_SEQ_OPS_MAX] __uninitialized;
	u32 start = pos, n = 0, known, op, i;
	struct uw2_insn in;
	enum uw2_dec_res d;
	enum uw2_verr r;

	for (;;) {
		/* not at the UIT's end: that byte is another table's */
		known = pos < t->uit_size ? uw2_memo_uit(v, pos) : 0;
		/*
		 * The clone marker only first, where r0 is the frame's own.
		 * A tail the memo knows passed this check, so it can hold
		 * the marker only at its start.
		 */
		if (known && n && uw2_clone_at(t, pos))
			return uw2_fail(v->err, UW2_ERR_UIT_OPCODE,
					uw2_blob_off(v, t->uit + pos));
		if (known)
			break;
		r = uw2_spend(v, t->uit + pos);
		if (r)
			return r;
		op = pos;
		d = uw2_decode(t->uit, t->uit_size, &pos, &in);
		if (d == UW2_DEC_TRUNC)
			return uw2_fail(v->err, UW2_ERR_UIT_TRUNC,
					uw2_blob_off(v, t->uit + pos));
		if (d == UW2_DEC_SPARE || (n && in.kind == UW2_K_CLONE))
			return uw2_fail(v->err, UW2_ERR_UIT_OPCODE,
					uw2_blob_off(v, t->uit + op));
		if (n == UW2_SEQ_OPS_MAX) {
			known = 1;	/* one more than may be */
			break;
		}
		at[n++] = op;
		if (uw2_ends_sequence(&in))
			break;
	}
	if (n + known > UW2_SEQ_OPS_MAX)
		return uw2_fail(v->err, UW2_ERR_SEQ_LONG,
				uw2_blob_off(v, t->uit + start));
	if (v->memo_uit)
		for (i = 0; i < n; i++)
			v->memo_uit[at[i]] = n + known - i;
	return UW2_OK;
}

/*
 * A sequence a pair names: most were checked already, for another row
 * (the memo knows them), which this tells without a call.  @idx is
 * inside the UIT (the pair walk checked it).
 */
static inline enum uw2_verr uw2_check_named(struct uw2_vstate *v, u32 idx)
{
	enum uw2_verr r = UW2_OK;

	if (!uw2_memo_uit(v, idx))
		r = uw2_check_sequence(v, idx);
	if (!r && v->memo_uit)
		v->memo_uit[idx] |= UW2_MEMO_NAMED;
	return r;
}

/* One FOT ULEB: a number that runs off the FOT or exceeds 32 bits. */
static enum uw2_verr uw2_fot_uleb(struct uw2_vstate *v, u32 *pos, u32 *val)
{
	u32 at = *pos;

	if (uw2_uleb(v->t->fot, v->t->fot_size, pos, val) != UW2_ULEB_OK)
		return uw2_fail(v->err, UW2_ERR_FOT_TRUNC,
				uw2_blob_off(v, v->t->fot + at));
	return UW2_OK;
}

/*
 * The pair at @pos whose numbers are not both one byte, by the general
 * decoder, into @v (so that the walk's locals have no address taken and
 * stay in registers).
 */
static enum uw2_verr uw2_check_long_pair(struct uw2_vstate *v, u32 pos)
{
	enum uw2_verr r;
	u32 at;

	r = uw2_fot_uleb(v, &pos, &v->pair_off);
	if (r)
		return r;
	at = pos;
	r = uw2_fot_uleb(v, &pos, &v->pair_uit);
	v->pair_next = pos;
	if (r)
		return r;
	if (v->pair_uit >= v->t->uit_size)
		return uw2_fail(v->err, UW2_ERR_UIT_INDEX,
				uw2_blob_off(v, v->t->fot + at));
	return UW2_OK;
}

/*
 * The memo's FOT slot of a pair whose list was checked: UW2_MEMO_SEEN, or
 * its count to the end of the list once a later list needed it (joined
 * the list there).  Real tables' lists do not join, so a walk only marks
 * its pairs, and counts are made on demand (uw2_memo_count()); counts are
 * at most UW2_FOT_PAIRS_MAX, below the flag.
 */
#define UW2_MEMO_SEEN		0x8000u

/*
 * The count of pairs from the checked pair at @pos to the end of its
 * list, given to each of them that had none: one walk counts, a second
 * writes, both over pairs already checked (and decoded by the general
 * decoder, as the walk did), and each pair is counted once in all.
 */
static noinline u32 uw2_memo_count(struct uw2_vstate *v, u32 pos)
{
	const u8 *f = v->t->fot;
	u32 size = v->t->fot_size, p = pos, n = 0, m, off = 0, idx;
	u16 *memo = v->memo_fot;

	for (;;) {
		if (memo[p] != UW2_MEMO_SEEN) {
			n += memo[p];
			break;
		}
		n++;
		uw2_uleb(f, size, &p, &off);
		uw2_uleb(f, size, &p, &idx);
		if (!off)
			break;
	}
	for (p = pos, m = n; memo[p] == UW2_MEMO_SEEN; m--) {
		memo[p] = m;
		uw2_uleb(f, size, &p, &off);
		uw2_uleb(f, size, &p, &idx);
		if (!off)
			break;
	}
	return n;
}

/*
 * The pair at @pos when both its numbers are one byte (most pairs): one
 * test of both.  The validation's walk and the lookup's both take it.
 */
static inline bool uw2_fot_short_pair(const u8 *f, u32 size, u32 pos,
				      u32 *off, u32 *idx)
{
	if (pos + 1 >= size || ((f[pos] | f[pos + 1]) & 0x80))
		return false;
	*off = f[pos];
	*idx = f[pos + 1];
	return true;
}

/*
 * The pair at @pos when each of its numbers is one or two bytes (the
 * offsets of functions up to 32 KiB, the indexes of UITs up to 16 KiB):
 * its length, with no position kept in memory (two one-byte numbers in
 * one test); else 0, for the decoder.
 */
static inline u32 uw2_fot_pair(const u8 *f, u32 size, u32 pos, u32 *off,
			       u32 *idx)
{
	const u8 *p = f + pos;
	u32 n = 1;

	if (uw2_fot_short_pair(f, size, pos, off, idx))
		return 2;
	/*
	 * four bytes there: no bound to test byte by byte, as
	 * uw2_uleb_short() does (with it, uw2_find_uncached() took 411 to
	 * 419 instructions a miss in a profiled node run, 398 without)
	 */
	if (pos >= size || size - pos < 4)
		return 0;
	*off = p[0];
	if (p[0] & 0x80) {
		if (p[1] & 0x80)
			return 0;
		*off = (p[0] & 0x7f) | (u32)p[1] << 7;
		n = 2;
	}
	*idx = p[n];
	if (!(p[n] & 0x80))
		return n + 1;
	if (p[n + 1] & 0x80)
		return 0;
	*idx = (p[n] & 0x7f) | (u32)p[n + 1] << 7;
	return n + 2;
}

/*
 * The pair at @pos by the decoder: its length, or 0 when it does not
 * decode.  Out of line, so that the walk's own position and numbers stay
 * in registers.
 */
static noinline u32 uw2_fot_long_pair(const u8 *f, u32 size, u32 pos,
				      u32 *off, u32 *idx)
{
	u32 p = pos;

	if (uw2_uleb(f, size, &p, off) != UW2_ULEB_OK ||
	    uw2_uleb(f, size, &p, idx) != UW2_ULEB_OK)
		return 0;
	return p - pos;
}

/*
 * A FOT list from @pos: offsets strictly decreasing down to 0, sequences
 * valid, at most UW2_FOT_PAIRS_MAX pairs.  At a pair the memo knows (the
 * rest of the list was checked as another function's list), only its
 * offset is checked against ours, and its count added; the pairs walked
 * are marked UW2_MEMO_SEEN.  The walk keeps the table's fields and its
 * counts in locals, as the memo's stores could alias anything reached
 * through a pointer, is compiled apart for the memo and without it (the
 * module always has one), and pays for its pairs once it has walked
 * them: a list's length bounds the walk.
 */
static __always_inline enum uw2_verr
uw2_fot_walk(struct uw2_vstate *v, u32 pos, u16 *memo)
{
	const u8 *f = v->t->fot;
	u8 *memo_uit = v->memo_uit;
	u32 size = v->t->fot_size, uit_size = v->t->uit_size;
	u32 at, off, idx, max_off = UW2_U32_MAX, prev_idx = 0, known = 0;
	u32 count = 0, start = pos, n1, n2;
	enum uw2_verr r;

	for (;;) {
		at = pos;
		if (uw2_fot_short_pair(f, size, pos, &off, &idx)) {
			pos += 2;
			if (idx >= uit_size)
				return uw2_fail(v->err, UW2_ERR_UIT_INDEX,
						uw2_blob_off(v, f + at + 1));
		} else {
			/* numbers of two bytes: a large function, a large UIT */
			n1 = uw2_uleb_short(f, size, pos, &off);
			n2 = n1 ? uw2_uleb_short(f, size, pos + n1, &idx) : 0;
			if (n2 && idx >= uit_size)
				return uw2_fail(v->err, UW2_ERR_UIT_INDEX,
						uw2_blob_off(v, f + at + n1));
			if (n2) {
				pos += n1 + n2;
			} else {
				r = uw2_check_long_pair(v, pos);
				if (r)
					return r;
				pos = v->pair_next;
				off = v->pair_off;
				idx = v->pair_uit;
			}
		}
		/* at is inside the FOT: its pair decoded */
		if (memo)
			known = memo[at];
		/* below the one before (the walk ends at offset 0) */
		if (off > max_off)
			return uw2_fail(v->err, UW2_ERR_FOT_ORDER,
					uw2_blob_off(v, f + at));
		if (known) {
			if (known == UW2_MEMO_SEEN)
				known = uw2_memo_count(v, at);
			count += known;
			break;
		}
		count++;
		if (memo)
			memo[at] = UW2_MEMO_SEEN;
		if (!off)
			break;
		if (count > UW2_FOT_PAIRS_MAX)
			break;
		/*
		 * Each sequence once: the memo knows those checked; without
		 * it, consecutive rows often share one.
		 */
		if (memo ? !memo_uit[idx] : count == 1 || idx != prev_idx) {
			r = uw2_check_sequence(v, idx);
			if (r)
				return r;
		}
		if (memo)
			memo_uit[idx] |= UW2_MEMO_NAMED;
		max_off = off - 1;
		if (!memo)
			prev_idx = idx;
	}
	/* the pairs walked: the new ones and the known one it stopped at */
	r = uw2_spend_run(v, known ? count - known + 1 : count, f + start);
	if (r)
		return r;
	if (count > UW2_FOT_PAIRS_MAX)
		return uw2_fail(v->err, UW2_ERR_FOT_LONG,
				uw2_blob_off(v, f + start));
	/* the last pair's sequence, when the walk ended at offset 0 */
	if (!known && (memo || count == 1 || idx != prev_idx))
		return uw2_check_named(v, idx);
	return UW2_OK;
}

/* Out of line, so that the walk has the registers to itself. */
static noinline enum uw2_verr uw2_check_fot_list(struct uw2_vstate *v, u32 pos)
{
	if (v->memo_fot)
		return uw2_fot_walk(v, pos, v->memo_fot);
	return uw2_fot_walk(v, pos, NULL);
}

/*
 * Function entries: the first one starts page 0 at offset 0 (so every pc
 * in the table's pages resolves to some function) and offsets strictly
 * increase within each page (so a page holds at most 65,536 entries, and
 * a lookup's binary search at most 17 probes).  Here functions @from to
 * @end - 1 of the page whose first is @first.
 */
static enum uw2_verr uw2_check_order(struct uw2_vstate *v, u32 first,
				     u32 from, u32 end)
{
	const u8 *ft = v->t->func_table;
	u32 i = from > first ? from : first + 1;

	for (; i < end; i++)
		if (uw2_le16(ft + 4 * i) <= uw2_le16(ft + 4 * i - 4))
			return uw2_fail(v->err, UW2_ERR_FUNC_ORDER,
					uw2_blob_off(v, ft + 4 * i));
	return UW2_OK;
}

/*
 * The FOT lists of functions @from to @end - 1, each list once: a run of
 * functions often shares one (*@prev_fot, the last checked), and the memo
 * knows those checked for functions before.
 */
static enum uw2_verr uw2_check_lists(struct uw2_vstate *v, u32 from, u32 end,
				     u32 *prev_fot)
{
	const u8 *ft = v->t->func_table;
	u32 size = v->t->fot_size, i, fot, prev = *prev_fot;
	const u16 *memo = v->memo_fot;
	enum uw2_verr r = UW2_OK;

	for (i = from; i < end; i++) {
		fot = uw2_le16(ft + 4 * i + 2);
		if (fot >= size) {
			r = uw2_fail(v->err, UW2_ERR_FOT_INDEX,
				     uw2_blob_off(v, ft + 4 * i + 2));
			break;
		}
		if (fot == prev || (memo && memo[fot]))
			continue;
		r = uw2_check_fot_list(v, fot);
		if (r)
			break;
		prev = fot;
	}
	*prev_fot = prev;
	return r;
}

/* functions checked between two offers of the pause, at most */
#define UW2_FUNC_RUN		256

/*
 * One pass over the function table, page by page and a run of functions
 * at a time: their order, then their lists.  A fault in a list is only
 * reported once every function's order has passed (as a table's shape is
 * checked before what it points to), so past one the pass checks order
 * alone.
 */
static enum uw2_verr uw2_check_functions(struct uw2_vstate *v)
{
	const struct uw2_table *t = v->t;
	u32 p, first, end, i, stop, prev_fot = UW2_U32_MAX;	/* none yet */
	enum uw2_verr r, lists = UW2_OK;

	end = t->page_count > 1 ? uw2_page_entry(t, 1) : t->func_count;
	if (uw2_func_poff(t, 0) != 0 || end == 0)
		return uw2_fail(v->err, UW2_ERR_FUNC_FIRST,
				uw2_blob_off(v, t->func_table));
	for (p = 0; p < t->page_count; p++) {
		first = uw2_page_entry(t, p);
		end = p + 1 < t->page_count ? uw2_page_entry(t, p + 1) :
					      t->func_count;
		for (i = first; i < end; i = stop) {
			stop = end - i > UW2_FUNC_RUN ? i + UW2_FUNC_RUN : end;
			r = uw2_check_order(v, first, i, stop);
			if (r)
				return r;
			if (lists)
				continue;
			r = uw2_spend_run(v, stop - i, t->func_table + 4 * i);
			if (!r)
				r = uw2_check_lists(v, i, stop, &prev_fot);
			if (r == UW2_ERR_INTERRUPTED)
				return r;
			lists = r;
		}
	}
	return lists;
}

/*
 * With a memo every pair is charged by one walk and once more where a
 * list joins it, opcodes once, and pages and functions once each, so a
 * few steps per byte suffice;
 * without one, shared lists are walked again for each function.
 */
static u32 uw2_step_budget(u32 size, bool memo)
{
	u64 steps = UW2_STEPS_BASE +
		    (u64)size * (memo ? UW2_STEPS_PER_BYTE_MEMO :
					UW2_STEPS_PER_BYTE);

	return steps > UW2_U32_MAX ? UW2_U32_MAX : (u32)steps;
}

enum uw2_verr uw2_table_check(struct uw2_table *t, const void *blob, u32 size,
			      const struct uw2_check *c,
			      struct uw2_verror *err)
{
	struct uw2_vstate v = {
		.t = t, .blob = blob, .err = err, .c = c,
	};
	enum uw2_verr r;

	v.steps_left = uw2_step_budget(size, c && c->memo);
	r = uw2_table_parse_header(t, blob, size, err);
	if (!r && c && c->memo) {
		v.memo_fot = c->memo;
		v.memo_uit = (u8 *)c->memo + 2 * t->fot_size;
	}
	if (!r)
		r = uw2_check_pages(&v);
	if (!r)
		r = uw2_check_functions(&v);
	return r;
}

#ifndef __KERNEL__
enum uw2_verr uw2_table_init(struct uw2_table *t, const void *blob, u32 size,
			     struct uw2_verror *err)
{
	return uw2_table_check(t, blob, size, NULL, err);
}

enum uw2_verr uw2_table_init_memo(struct uw2_table *t, const void *blob,
				  u32 size, void *memo, struct uw2_verror *err)
{
	struct uw2_check c = { .memo = memo };

	return uw2_table_check(t, blob, size, &c, err);
}

u32 uw2_table_text_span(const struct uw2_table *t)
{
	if (t->page_count >= 1u << (32 - UW2_PAGE_SHIFT))
		return UW2_U32_MAX;
	return t->page_count << UW2_PAGE_SHIFT;
}

const char *uw2_verr_str(enum uw2_verr code)
{
	static const char *const str[UW2_ERR_COUNT] = {
		[UW2_OK] = "valid",
		[UW2_ERR_SHORT] = "blob smaller than the 32-byte header",
		[UW2_ERR_BOUNDS] = "table runs past the end of the blob",
		[UW2_ERR_OVERLAP] = "tables overlap each other or the header",
		[UW2_ERR_ALIGN] = "page or function table not 4-byte aligned",
		[UW2_ERR_EMPTY] = "empty table",
		[UW2_ERR_PAGE_ORDER] = "page table entries decrease",
		[UW2_ERR_PAGE_RANGE] = "page table entry beyond the function table",
		[UW2_ERR_FUNC_FIRST] = "first function not at page 0 offset 0",
		[UW2_ERR_FUNC_ORDER] = "function offsets not increasing in a page",
		[UW2_ERR_FOT_INDEX] = "function offset table index out of range",
		[UW2_ERR_FOT_TRUNC] = "function offset list truncated or ULEB overflow",
		[UW2_ERR_FOT_ORDER] = "function offsets not decreasing to 0",
		[UW2_ERR_UIT_INDEX] = "unwind instruction index out of range",
		[UW2_ERR_UIT_OPCODE] = "spare or reserved unwind opcode",
		[UW2_ERR_UIT_TRUNC] = "unwind instructions run off the table",
		[UW2_ERR_PAGE_FIRST] = "page table does not start at function 0",
		[UW2_ERR_TOO_COMPLEX] = "table too costly to validate",
		[UW2_ERR_SEQ_LONG] = "unwind instruction sequence too long",
		[UW2_ERR_FOT_LONG] = "function offset list too long",
		[UW2_ERR_INTERRUPTED] = "validation interrupted",
	};

	if ((u32)code >= UW2_ERR_COUNT)
		return "unknown error";
	return str[code];
}

#endif /* !__KERNEL__ */

/* ---- lookup ---- */

/* The function-table range [*first, *end) of @page, clamped for safety. */
static void uw2_page_range(const struct uw2_table *t, u32 page, u32 *first,
			   u32 *end)
{
	*end = page + 1 < t->page_count ? uw2_page_entry(t, page + 1) :
					  t->func_count;
	if (*end > t->func_count)
		*end = t->func_count;
	*first = uw2_page_entry(t, page);
	if (*first > *end)
		*first = *end;
}

/* The first entry in [lo, hi) whose page offset is above @poff. */
static u32 uw2_upper_bound(const struct uw2_table *t, u32 lo, u32 hi,
			   u32 poff)
{
	const u8 *funcs = t->func_table;	/* not reloaded each round */
	u32 mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (uw2_le16(funcs + 4 * mid) <= poff)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The page that entry @e belongs to: the last page up to @page whose
 * first entry is at or before @e.  Empty pages share the next page's
 * first entry, so they are passed over.  Returns false when none is.
 */
static bool uw2_entry_page(const struct uw2_table *t, u32 page, u32 e,
			   u32 *fpage)
{
	u32 lo = 0, hi = page + 1, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (uw2_page_entry(t, mid) <= e)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return false;
	*fpage = lo - 1;
	return true;
}

/*
 * uw2_lookup_function(), and in *@next how far (a byte offset like
 * @byte_off, up to 2^32) the function surely runs: to the next function's
 * start on this page, or to the page's end.
 */
static bool uw2_lookup_function_to(const struct uw2_table *t, u32 byte_off,
				   u32 *instr_off, u32 *fot_index, u64 *next)
{
	u32 page = byte_off >> UW2_PAGE_SHIFT;
	u32 units = byte_off >> 1;
	u32 first, end, e, fpage;

	if (page >= t->page_count)
		return false;
	uw2_page_range(t, page, &first, &end);
	e = uw2_upper_bound(t, first, end, units & 0xffff);
	if (e > first) {
		/* the common case: a function that starts on this page */
		fpage = page;
	} else {
		/* no start on this page at or before pc: one runs into it */
		if (!e)
			return false;
		if (!uw2_entry_page(t, page, e - 1, &fpage))
			return false;
	}
	*next = ((u64)page + 1) << UW2_PAGE_SHIFT;
	if (e < end && e >= first)
		*next = ((u64)page << UW2_PAGE_SHIFT) + 2 * uw2_func_poff(t, e);
	e--;
	*instr_off = units - ((fpage << UW2_PAGE_UNITS_SHIFT) +
			      uw2_func_poff(t, e));
	*fot_index = uw2_func_fot(t, e);
	return true;
}

#ifndef __KERNEL__
bool uw2_lookup_function(const struct uw2_table *t, u32 byte_off,
			 u32 *instr_off, u32 *fot_index)
{
	u64 next;

	return uw2_lookup_function_to(t, byte_off, instr_off, fot_index,
				      &next);
}
#endif

/*
 * uw2_lookup_sequence(), and the row found: the instruction offsets
 * [*@row, *@row_end) of the function that share the sequence (*@row_end
 * is 2^32 for the last row, which runs to the function's end).  Offsets
 * strictly decrease along a validated list.  The walk keeps the table's
 * fields and the budget in locals, and takes a pair of numbers of one or
 * two bytes in registers (uw2_fot_pair()); a longer pair goes to the
 * decoder.
 */
static bool uw2_lookup_row(const struct uw2_table *t, u32 fot_index,
			   u32 instr_off, u32 *uit_index, u32 *row,
			   u64 *row_end, u32 *steps)
{
	const u8 *f = t->fot;
	u32 size = t->fot_size, pos = fot_index, left = *steps, off, idx, n;
	u64 end = 1ull << 32;
	bool found = false;

	while (pos < size && left) {
		left--;
		n = uw2_fot_pair(f, size, pos, &off, &idx);
		if (!n) {
			/* the numbers through memory on this path only */
			u32 o, i;

			n = uw2_fot_long_pair(f, size, pos, &o, &i);
			if (!n)
				break;
			off = o;
			idx = i;
		}
		pos += n;
		if (off <= instr_off) {
			found = true;
			break;
		}
		end = off;
	}
	*steps = left;
	if (!found)
		return false;
	*uit_index = idx;
	*row = off;
	*row_end = end;
	return true;
}

#ifndef __KERNEL__
bool uw2_lookup_sequence(const struct uw2_table *t, u32 fot_index,
			 u32 instr_off, u32 *uit_index)
{
	u32 row, steps = UW2_FOT_PAIRS_MAX;
	u64 row_end;

	return uw2_lookup_row(t, fot_index, instr_off, uit_index, &row,
			      &row_end, &steps);
}
#endif

const struct uw2_module *uw2_find_module(const struct uw2_module *mods,
					 u32 nmods, u32 addr)
{
	u32 lo = 0, hi = nmods, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (mods[mid].text_start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr >= mods[lo - 1].text_end)
		return NULL;
	return &mods[lo - 1];
}

/* ---- execution ---- */

/* [addr, addr + bytes) lies in the window and addr is word aligned. */
static bool uw2_in_window(const struct uw2_stack *s, u32 addr, u32 bytes)
{
	return !(addr & 3) && addr >= s->lo && addr <= s->hi &&
	       bytes <= s->hi - addr;
}

/*
 * @count words at @addr from the view, when all of them are in it.  Both
 * ends are 4-aligned, so a word is either wholly inside or wholly out.
 */
static bool uw2_view_words(const struct uw2_view *v, u32 addr, u32 count,
			   u32 *val)
{
	u32 off;

	if (!v)
		return false;
	off = addr - v->lo;
	if (off >= v->len || count * 4 > v->len - off)
		return false;
	__builtin_memcpy(val, v->data + off, count * 4);
	return true;
}

int uw2_view_fill(struct uw2_view *v, u8 *buf, u32 line, u32 addr, u32 *val,
		  int (*copy)(void *ctx, void *dst, u32 src, u32 len),
		  void *ctx)
{
	u32 base = addr & ~63u, page = 4096 - (base & 4095), len = line;

	if (addr - v->lo >= v->len) {
		v->len = 0;
		if (!v->fills_left)
			return UW2_READ_BUDGET;
		v->fills_left--;
		/* line is a multiple of 64: the rounded top is no longer */
		if (v->top > addr && v->top - base < len)
			len = (v->top - base + 63) & ~63u;
		else if (v->top <= addr && len > page)
			len = page;
		/*
		 * Across a page boundary only up to top, which the last walk
		 * read up to; if that fails, within the page, so that a fault
		 * is the missed word's own page's, and top is dropped: one
		 * failed guess a sample, however the walk leaps.
		 */
		if (copy(ctx, buf, base, len)) {
			if (len <= page)
				return -1;
			v->top = 0;
			len = page;
			if (copy(ctx, buf, base, len))
				return -1;
		}
		v->data = buf;
		v->lo = base;
		v->len = len;
	}
	__builtin_memcpy(val, v->data + (addr - v->lo), 4);
	return 0;
}

/* Bits set in a 16-bit mask, summed in pairs, nibbles, then bytes. */
static u32 uw2_popcount16(u32 mask)
{
	u32 m = mask - ((mask >> 1) & 0x5555);

	m = (m & 0x3333) + ((m >> 2) & 0x3333);
	m = (m + (m >> 4)) & 0x0f0f;
	return (m + (m >> 8)) & 0x1f;
}

/*
 * The @count words at @vsp, in the window, loaded in place into @buf
 * (struct uw2_stack's direct): false if one fails to load.
 */
static bool uw2_load_words(const struct uw2_stack *st, u32 vsp, u32 count,
			   u32 *buf)
{
	unsigned int ua;
	bool ok;

	if (count > UW2_SHAPE_WORDS)
		return false;
	ua = uw2_user_open();
	ok = uw2_user_loads(st, vsp, count, buf);
	uw2_user_close(ua);
	return ok;
}

/*
 * @count words at @addr, in the window, from the view, loaded in place
 * (a stack with direct loads), or from the reader, which says what went
 * wrong when a load fails: UW2_EXEC_NEXT, or why they could not be had.
 */
static enum uw2_exec uw2_read_words(const struct uw2_stack *stack, u32 addr,
				    u32 count, u32 *val)
{
	u32 k;

	if (!uw2_in_window(stack, addr, count * 4))
		return UW2_EXEC_BAD_SP;
	if (uw2_view_words(stack->view, addr, count, val))
		return UW2_EXEC_NEXT;
	if (stack->direct && uw2_load_words(stack, addr, count, val))
		return UW2_EXEC_NEXT;
	for (k = 0; k < count; k++) {
		int r = stack->read(stack->ctx, addr + 4 * k, &val[k]);

		if (r == UW2_READ_BUDGET)
			return UW2_EXEC_BUDGET;
		if (r)
			return UW2_EXEC_READ_FAULT;
	}
	return UW2_EXEC_NEXT;
}

/*
 * Pop the registers of @mask, lowest first.  All words are read before
 * any register changes, so a failed pop leaves @regs as it was.  A popped
 * r13 becomes vsp only once the whole pop is done (EHABI's rule).
 */
static enum uw2_exec uw2_pop(struct uw2_regs *regs, u32 mask,
			     bool *pc_updated, u32 *popped,
			     const struct uw2_stack *stack)
{
	u32 vsp = regs->r[UW2_SP], count = uw2_popcount16(mask);
	u32 val[16] __uninitialized, m, k;
	enum uw2_exec res;

	res = uw2_read_words(stack, vsp, count, val);
	if (res != UW2_EXEC_NEXT)
		return res;
	regs->r[UW2_SP] = vsp + 4 * count;
	/* set bits only, lowest first; a popped r13 overrides the line above */
	for (m = mask, k = 0; m; m &= m - 1)
		regs->r[__builtin_ctz(m)] = val[k++];
	if (mask & (1u << UW2_PC))
		*pc_updated = true;
	*popped |= mask;
	return UW2_EXEC_NEXT;
}

/* One opcode; @popped collects the registers it loaded from the stack. */
static enum uw2_exec uw2_exec(const u8 *ops, u32 len, u32 *pos,
			      struct uw2_regs *regs, bool *pc_updated,
			      u32 *popped, const struct uw2_stack *stack)
{
	u32 *sp = &regs->r[UW2_SP];
	struct uw2_insn in;

	if (uw2_decode(ops, len, pos, &in) != UW2_DEC_OK)
		return UW2_EXEC_BAD_OPCODE;
	switch (in.kind) {
	case UW2_K_VSP_ADD:
		if (*sp > UW2_U32_MAX - in.arg)
			return UW2_EXEC_BAD_SP;
		*sp += in.arg;
		return UW2_EXEC_NEXT;
	case UW2_K_VSP_SUB:
		if (*sp < in.arg)
			return UW2_EXEC_BAD_SP;
		*sp -= in.arg;
		return UW2_EXEC_NEXT;
	case UW2_K_VSP_WRAP:
		return UW2_EXEC_BAD_SP;
	case UW2_K_VSP_REG:
		*sp = regs->r[in.arg];
		return UW2_EXEC_NEXT;
	case UW2_K_POP:
		return uw2_pop(regs, in.arg, pc_updated, popped, stack);
	case UW2_K_FINISH:
		if (!*pc_updated)
			regs->r[UW2_PC] = regs->r[UW2_LR];
		return UW2_EXEC_FINISH;
	case UW2_K_REFUSE:
		return UW2_EXEC_REFUSE;
	case UW2_K_ROOT:
		return UW2_EXEC_ROOT;
	case UW2_K_NORETURN:
		return UW2_EXEC_NORETURN;
	case UW2_K_CLONE:
		return UW2_EXEC_CLONE;
	}
	return UW2_EXEC_BAD_OPCODE;
}

#ifndef __KERNEL__
enum uw2_exec uw2_exec_op(const u8 *ops, u32 len, u32 *pos,
			  struct uw2_regs *regs, bool *pc_updated,
			  const struct uw2_stack *stack)
{
	u32 popped = 0;

	return uw2_exec(ops, len, pos, regs, pc_updated, &popped, stack);
}
#endif

/* ---- frames of JIT code: their kinds (enum uw2_frames) ---- */

/*
 * A JIT kind's frames, as EHABI opcodes run by the one opcode walker
 * (vsp starting at sp, so every read passes the window and rising-sp
 * checks any table's frame does):
 *  - frame: an ordinary frame of its code, which holds the caller's frame
 *    pointer and return address at fixed places;
 *  - entry: the frame where native code called into it, which holds what
 *    the native caller needs back (its callee-saved registers, its sp);
 *  - an entry frame is known by @nmarkers words just below the frame
 *    pointer, each holding one value of @markers: a frame whose return
 *    address leaves the kind's code without that proof ends the walk.
 */
struct uw2_jit_kind {
	u8 frame[4];
	u8 entry[8];
	u8 frame_len;
	u8 entry_len;
	u8 nmarkers;
	u8 ra_reg;		/* an ordinary frame's return address is at */
	u8 ra_off;		/* [r(ra_reg) + ra_off] (uw2_jit_ra_at()) */
	/* frame is "vsp = r(ra_reg); pop {r(ra_reg), lr}; finish" */
	bool chain;
	/*
	 * The caller loop's copy of what entry's opcodes do past the chain
	 * link (uw2_walk_chain()), held to them by the tests that compare the
	 * loop's walks with the opcodes': the native caller's registers
	 * r(entry_first) on, entry_count of them, in the words from
	 * fp + entry_regs, the last the frame pops: its sp is past them.
	 */
	u8 entry_first;
	u8 entry_count;
	u8 entry_regs;
	u32 markers[2];
};

/*
 * V8 on 32-bit ARM (its frame-constants-arm.h and the JSEntry builtin):
 * r11 is the frame pointer, [fp] the caller's fp and [fp + 4] the return
 * address, the caller's sp fp + 8.  JSEntry pushes r4-r10, then d8-d15,
 * then its frame: [fp + 72, fp + 100) the caller's r4-r10, the caller's
 * sp fp + 100, and at [fp - 8] and [fp - 4] the frame's type marker twice:
 * 2 for ENTRY, 4 for CONSTRUCT_ENTRY (the type shifted left as a Smi).
 * Exit frames (JavaScript calling C++) need nothing here: the C++ code
 * unwinds by its tables up to the return address into V8, with r11 still
 * the exit frame's fp, an ordinary frame.
 */
static const struct uw2_jit_kind uw2_jit_kinds[UW2_FRAMES_COUNT] = {
	[UW2_FRAMES_V8_ARM] = {
		/* vsp = r11; pop {r11, lr}; finish */
		.frame = { 0x9b, 0x84, 0x80, 0xb0 },
		.frame_len = 4,
		/* ... and vsp += 64 (d8-d15); pop {r4-r10}; finish */
		.entry = { 0x9b, 0x84, 0x80, 0x0f, 0xa6, 0xb0 },
		.entry_len = 6,
		.nmarkers = 2,
		.ra_reg = UW2_FP,
		.ra_off = 4,
		.chain = true,
		.entry_first = 4,
		.entry_count = 7,
		.entry_regs = 72,
		.markers = { 2, 4 },
	},
};

/* The kind of JIT code of module @m (or NULL), or NULL. */
static const struct uw2_jit_kind *uw2_jit_of(const struct uw2_module *m,
					     u32 *frames)
{
	if (!m || !m->frames || m->frames >= UW2_FRAMES_COUNT)
		return NULL;
	*frames = m->frames;
	return &uw2_jit_kinds[m->frames];
}

/* ---- the frame loop ---- */

/* What stays fixed, or changes only between frames, during one unwind. */
struct uw2_walk {
	const struct uw2_module *mods;
	u32 nmods;
	const struct uw2_stack *stack;
	unsigned int flags;
	u32 first_pc;		/* the sampled pc */
	u32 frame_sp;		/* sp when the current frame was entered */
	u32 first_func;		/* start of the sampled pc's function */
	u32 steps;		/* left of UW2_SAMPLE_STEPS */
	struct uw2_cache *cache;	/* or NULL */
	const struct uw2_module *last_mod;	/* of the last miss, or NULL */
};

/* Returned by uw2_step() when the frame unwound and the walk goes on. */
#define UW2_STEP_MORE	UW2_STOP_COUNT
/* ... and when the frame it was given is not one: drop it, noreturn. */
#define UW2_STEP_STALE	(UW2_STOP_COUNT + 1)
/* By the caller loop without copies: a frame that needs them (a chain). */
#define UW2_STEP_COPY	(UW2_STOP_COUNT + 2)
/* By the caller loop: a return address with no entry (uw2_walk_fill()). */
#define UW2_STEP_FILL	(UW2_STOP_COUNT + 3)

/* The sp checks made after every opcode. */
static bool uw2_sp_ok(const struct uw2_walk *w, u32 sp)
{
	return sp <= w->stack->hi && sp >= w->frame_sp &&
	       sp >= w->stack->lo && !(sp & 3);
}

static enum uw2_stop uw2_exec_stop(enum uw2_exec res)
{
	switch (res) {
	case UW2_EXEC_ROOT:
		return UW2_STOP_ROOT;
	case UW2_EXEC_NORETURN:
		return UW2_STOP_NORETURN;
	case UW2_EXEC_REFUSE:
		return UW2_STOP_REFUSED;
	case UW2_EXEC_BAD_SP:
		return UW2_STOP_BAD_SP;
	case UW2_EXEC_READ_FAULT:
		return UW2_STOP_READ_FAULT;
	case UW2_EXEC_BUDGET:
		return UW2_STOP_BUDGET;
	default:
		return UW2_STOP_BAD_OPCODE;
	}
}

/*
 * The opcodes most frames are made of, without the general decoder:
 * vsp += 4..256 (00-3f), pop r4-r[4+n] with or without lr (a0-af) and
 * finish (b0), executed exactly as uw2_exec() does.  Returns false to
 * leave the opcode at @pos to uw2_exec().
 */
static bool uw2_fast_op(const u8 *ops, u32 *pos, struct uw2_regs *regs,
			bool *pc_updated, u32 *popped,
			const struct uw2_stack *stack, enum uw2_exec *res)
{
	u8 op = ops[*pos];
	u32 arg;

	if (op < 0x40) {
		arg = ((u32)op << 2) + 4;
		*res = regs->r[UW2_SP] > UW2_U32_MAX - arg ? UW2_EXEC_BAD_SP :
							     UW2_EXEC_NEXT;
		if (*res == UW2_EXEC_NEXT)
			regs->r[UW2_SP] += arg;
	} else if (op >= 0xa0 && op < 0xb0) {
		arg = ((2u << (op & 7)) - 1) << 4;
		if (op & 8)
			arg |= 1u << UW2_LR;
		*res = uw2_pop(regs, arg, pc_updated, popped, stack);
	} else if (op == 0xb0) {
		if (!*pc_updated)
			regs->r[UW2_PC] = regs->r[UW2_LR];
		*res = UW2_EXEC_FINISH;
	} else {
		return false;
	}
	*pos += 1;
	return true;
}

/*
 * The clone marker (B1 20); @first: the first opcode the sampled frame
 * ran.  Between a clone wrapper's system call and its test of the
 * result, the caller and the new thread run the same instructions in
 * different frames, and only r0, the call's result, tells them apart.
 * r0 is the frame's own only there (a caller frame's r0 holds a callee's
 * value, and an opcode before could have popped it): else, refused.
 *
 * The new thread's r0 is 0: the kernel's copy_thread() sets it in the
 * registers the thread starts with, both those it returns to user space
 * with and those a sample in the kernel reads (pt_regs, until the thread
 * first leaves the kernel).  The caller's r0 in user space is the
 * result, a thread id or an error, never 0: go on, the caller's frame.
 * A caller sampled in the kernel, inside the call, shows pt_regs' r0:
 * the flags argument until the kernel stores the result there, on both
 * 32-bit ARM and arm64.  Flags may be 0 (nothing shared, no exit
 * signal), so in registers saved on kernel entry (UW2_F_KERNEL_REGS)
 * r0 == 0 proves no thread start and is refused; any other r0 is still
 * the caller's.
 */
static enum uw2_exec uw2_clone_split(const struct uw2_walk *w,
				     const struct uw2_regs *regs, bool first)
{
	if (!first)
		return UW2_EXEC_REFUSE;
	if (regs->r[0])
		return UW2_EXEC_NEXT;
	return w->flags & UW2_F_KERNEL_REGS ? UW2_EXEC_REFUSE : UW2_EXEC_ROOT;
}

/*
 * Run one sequence; validation bounds it to UW2_SEQ_OPS_MAX opcodes, the
 * sample's budget all sequences together.  @sampled: the frame is the
 * sampled one.
 */
static enum uw2_exec uw2_run_sequence(struct uw2_walk *w,
				      const struct uw2_table *t, u32 pos,
				      struct uw2_regs *regs, u32 *popped,
				      bool sampled)
{
	bool pc_updated = false;
	enum uw2_exec res;
	u32 start = pos;

	do {
		if (w->steps < UW2_OP_STEPS)
			return UW2_EXEC_BUDGET;
		w->steps -= UW2_OP_STEPS;
		if (pos >= t->uit_size ||
		    !uw2_fast_op(t->uit, &pos, regs, &pc_updated, popped,
				 w->stack, &res))
			res = uw2_exec(t->uit, t->uit_size, &pos, regs,
				       &pc_updated, popped, w->stack);
		if (res == UW2_EXEC_CLONE)
			res = uw2_clone_split(w, regs, sampled &&
					      pos - start == 2);
		if (!uw2_sp_ok(w, regs->r[UW2_SP]))
			return UW2_EXEC_BAD_SP;
	} while (res == UW2_EXEC_NEXT);
	return res;
}

/*
 * What uw2_run_sequence() gives for a sequence that starts with a
 * refusal, from sp @sp, without copying the registers it leaves as they
 * are: only cache entries know their sequence does (UW2_SHAPE_REFUSE).
 */
static enum uw2_exec uw2_run_refusal(struct uw2_walk *w, u32 sp)
{
	if (w->steps < UW2_OP_STEPS)
		return UW2_EXEC_BUDGET;
	w->steps -= UW2_OP_STEPS;
	return uw2_sp_ok(w, sp) ? UW2_EXEC_REFUSE : UW2_EXEC_BAD_SP;
}

/*
 * The address to look a frame up at.  The sampled pc is exact; a return
 * address is looked up inside the call before it, so a call ending a
 * function is not taken for the start of the next one.
 */
static u32 uw2_lookup_addr(const struct uw2_walk *w, u32 pc, u32 depth)
{
	if (depth == 1 || (w->flags & UW2_F_CHROME_COMPAT))
		return pc;
	return (pc & ~1u) - 2;
}

/* The pop's word count and its lowest run of consecutive registers. */
static void uw2_shape_runs(struct uw2_shape *sh)
{
	u32 m = sh->mask, first = m ? __builtin_ctz(m) : 0;
	/* the run ends at the first clear bit: bit 16 is, as masks are u16 */
	u32 len = __builtin_ctz(~(m >> first));

	sh->count = uw2_popcount16(m);
	sh->run_first = first;
	sh->run_len = len;
	sh->rest = m & ~(((1u << len) - 1) << first);
}

/*
 * Does the sequence at @pos have the shape of struct uw2_shape?  Reads at
 * most a few opcodes, with the decoder execution uses.
 */
static bool uw2_shape_of(const struct uw2_table *t, u32 pos,
			 struct uw2_shape *sh)
{
	struct uw2_insn in;
	bool popped = false;
	u32 add = 0, n;

	sh->mask = 0;
	sh->base = UW2_SP;
	for (n = 0; n < 8; n++) {
		if (uw2_decode(t->uit, t->uit_size, &pos, &in) != UW2_DEC_OK)
			return false;
		/* vsp = rN first: the frame's words from rN up */
		if (in.kind == UW2_K_VSP_REG && !n) {
			sh->base = in.arg;
			continue;
		}
		if (in.kind == UW2_K_FINISH) {
			if (!popped)
				sh->pre = add;
			uw2_shape_runs(sh);
			/* add: what follows the pop, if there was one */
			add = sh->pre + 4 * sh->count + (popped ? add : 0);
			sh->size = add;
			return add <= 0xffff;
		}
		/* add < 0x8000 throughout: the test cannot wrap (b2's arg can) */
		if (in.kind == UW2_K_VSP_ADD && in.arg < 0x8000 - add) {
			add += in.arg;
		} else if (in.kind == UW2_K_POP && !popped &&
			   !(in.arg & (1u << UW2_SP))) {
			sh->pre = add;
			sh->mask = in.arg;
			popped = true;
			add = 0;
		} else if (in.kind == UW2_K_POP && popped && !add &&
			   !(in.arg & (1u << UW2_SP)) &&
			   (in.arg & -in.arg) > sh->mask) {
			/*
			 * pop {r3}; pop {r4, r5, lr}: the second pop's words
			 * follow the first's, and its registers all lie
			 * above, so one pop of both masks reads the same.
			 */
			sh->mask |= in.arg;
		} else {
			return false;
		}
	}
	return false;
}

/* The registers a return address is restored into. */
#define UW2_RA_REGS	((1u << UW2_LR) | (1u << UW2_PC))

/*
 * The set of return address @ra, two entries: bits 1 to 9 of it folded
 * with bits 10 to 18 (bit 0 is the Thumb bit), two instructions on ARM
 * without a constant, so the caller loop hashes its pc as it comes.  Two
 * ways: hot return addresses that share a set of a direct-mapped cache
 * would evict each other on every sample.
 */
static inline u32 uw2_cache_index_ra(u32 ra)
{
	return 2 * (((ra ^ (ra >> (UW2_CACHE_BITS - 1))) >> 1) &
		    (UW2_CACHE_ENTRIES / 2 - 1));
}

/* The set of lookup address @addr: a return address less 2. */
static u32 uw2_cache_index(u32 addr)
{
	return uw2_cache_index_ra(addr + 2);
}

static struct uw2_cache_entry *uw2_cache_set(struct uw2_cache *c, u32 addr)
{
	return &c->e[uw2_cache_index(addr)];
}

/* The entry of @addr in its set, if any: an address is in one way only. */
static inline struct uw2_cache_entry *uw2_cache_find(struct uw2_cache *c,
						     u32 addr)
{
	struct uw2_cache_entry *e = uw2_cache_set(c, addr);

	if (e->addr == addr)
		return e;
	e++;
	return e->addr == addr ? e : NULL;
}

/*
 * Without a gen: does the module array still have @e's table at the
 * entry's index and place, around @addr?  The table is then live, and the
 * entry's pointer is never followed unless it equals a live one.
 */
static bool uw2_cache_live(const struct uw2_walk *w,
			   const struct uw2_cache_entry *e, u32 addr)
{
	const struct uw2_module *m;

	if (e->mod >= w->nmods)
		return false;
	m = &w->mods[e->mod];
	return m->table == e->table && m->text_start == e->text_start &&
	       addr >= m->text_start && addr < m->text_end && m->table;
}

/* A cached lookup of @addr that may be used (struct uw2_cache), or NULL. */
static inline struct uw2_cache_entry *
uw2_cache_get(const struct uw2_walk *w, u32 addr)
{
	struct uw2_cache_entry *e = uw2_cache_find(w->cache, addr);

	if (!e || e->gen != w->cache->gen ||
	    (!e->gen && !uw2_cache_live(w, e, addr)))
		return NULL;
	return e;
}

/* The entry now holding @addr's lookup, or NULL. */
static struct uw2_cache_entry *
uw2_cache_put(const struct uw2_walk *w, u32 addr, const struct uw2_module *m,
	      u32 uit_index, u32 func)
{
	struct uw2_cache_entry *e = uw2_cache_find(w->cache, addr);

	if (m - w->mods > 0xffff)
		return NULL;
	/* a new address goes first, the older one of the set out */
	if (!e) {
		e = uw2_cache_set(w->cache, addr);
		e[1] = e[0];
		w->cache->fast[e - w->cache->e + 1] =
			w->cache->fast[e - w->cache->e];
	}
	w->cache->fast[e - w->cache->e].tag = 0;	/* shape unknown */
	e->addr = addr;
	e->gen = w->cache->gen;
	e->text_start = m->text_start;
	e->table = m->table;
	e->uit_index = uit_index;
	e->func = func;
	e->mod = m - w->mods;
	e->simple = UW2_SHAPE_UNKNOWN;
	return e;
}

/* Does the sequence at @pos start with the opcode bytes @b0 @b1? */
static bool uw2_seq_starts(const struct uw2_table *t, u32 pos, u8 b0, u8 b1)
{
	return pos < t->uit_size && t->uit_size - pos >= 2 &&
	       t->uit[pos] == b0 && t->uit[pos + 1] == b1;
}

/* Where a frame's sequence is, and its shape if it has a simple one. */
struct uw2_found {
	const struct uw2_table *t;
	u32 uit_index;
	u32 func;		/* start of the function holding the address */
	const struct uw2_shape *shape;	/* or NULL */
	bool refuse;		/* the sequence starts with a refusal */
	/* the module the lookup used, or NULL (uw2_module_at()) */
	const struct uw2_module *m;
};

/* The caller loop's copy of return-address entry @e (struct uw2_fast). */
static void uw2_fast_fill(struct uw2_fast *fe, const struct uw2_cache_entry *e)
{
	const struct uw2_shape *sh = &e->shape;
	bool r7 = sh->base == UW2_R7;

	if (e->simple != UW2_SHAPE_CALLER && e->simple != UW2_SHAPE_ROOT)
		return;		/* left empty by uw2_cache_put() */
	/* from r7 the loop knows only a span of ra + 4; no other base */
	if (e->simple == UW2_SHAPE_CALLER && sh->base != UW2_SP &&
	    (!r7 || sh->size - sh->pre != 4 * sh->count))
		return;
	fe->pre = e->simple == UW2_SHAPE_CALLER ? e->shape.pre : 0;
	fe->span = e->simple != UW2_SHAPE_CALLER ? UW2_FAST_SPAN_ROOT :
		   r7 ? UW2_FAST_SPAN_R7 : e->shape.size - e->shape.pre;
	fe->rest = e->shape.rest;
	fe->ra = e->simple == UW2_SHAPE_CALLER ? 4 * (e->shape.count - 1) : 0;
	fe->run = e->shape.run_first | e->shape.run_len << 4;
	fe->tag = uw2_fast_tag(e->addr + 3, e->gen);
}

/*
 * The caller loop's copy of return-address entry @e, in the code of frame
 * kind @frames with no row that unwinds it: a chain link (see
 * uw2_walk_run()) when the kind's frames are, else left empty.
 */
static void uw2_fast_chain(struct uw2_fast *fe, const struct uw2_cache_entry *e,
			   u32 frames)
{
	/* the loop keeps r11 as it goes, not another register */
	if (!frames || frames >= UW2_FRAMES_COUNT ||
	    !uw2_jit_kinds[frames].chain ||
	    uw2_jit_kinds[frames].ra_reg != UW2_FP)
		return;
	fe->pre = 0;
	fe->span = UW2_FAST_SPAN_CHAIN;
	fe->rest = 0;
	fe->ra = 0;
	fe->run = frames;
	fe->tag = uw2_fast_tag(e->addr + 3, e->gen);
}

/*
 * The shape of @t's sequence from UIT byte @pos into @s, all of it set:
 * the common one (uw2_shape_of()), else the root marker or a refusal
 * (their shape zero), else none.
 */
static void uw2_seq_shape_of(const struct uw2_table *t, u32 pos,
			     struct uw2_seq_shape *s)
{
	*s = (struct uw2_seq_shape){ .simple = UW2_SHAPE_NONE };
	if (uw2_shape_of(t, pos, &s->shape)) {
		s->simple = s->shape.mask & UW2_RA_REGS ?
			    UW2_SHAPE_CALLER : UW2_SHAPE_SIMPLE;
		return;
	}
	s->shape = (struct uw2_shape){ 0 };
	if (uw2_seq_starts(t, pos, UW2_OP_ROOT_0, UW2_OP_ROOT_1))
		s->simple = UW2_SHAPE_ROOT;
	else if (uw2_seq_starts(t, pos, UW2_OP_REFUSE_0, UW2_OP_REFUSE_1))
		s->simple = UW2_SHAPE_REFUSE;
}

/* at most this many distinct shapes, numbered from 1 in a u16 */
#define UW2_SHAPES_MAX		0xffffu
/* the positions found between pauses */
#define UW2_SHAPES_PAUSE	0x10000u

/* The scratch: the count, then the shapes, each UIT byte's, the hash. */
struct uw2_shapes_scratch {
	u32 n;
	struct uw2_seq_shape s[];
};

static u32 uw2_shapes_cap(const struct uw2_table *t)
{
	return t->uit_size < UW2_SHAPES_MAX ? t->uit_size : UW2_SHAPES_MAX;
}

/* log2 of the hash's slots: at least twice the shapes it may hold */
static u32 uw2_shapes_hash_bits(const struct uw2_table *t)
{
	u32 bits = 1;

	while ((1u << bits) < 2 * uw2_shapes_cap(t))
		bits++;
	return bits;
}

u32 uw2_shapes_scratch_bytes(const struct uw2_table *t)
{
	if (!t->uit_size || t->uit_size > UW2_SHAPES_UIT_MAX)
		return 0;
	return sizeof(struct uw2_shapes_scratch) +
	       uw2_shapes_cap(t) * sizeof(struct uw2_seq_shape) +
	       2 * t->uit_size + (2u << uw2_shapes_hash_bits(t));
}

static bool uw2_seq_shape_eq(const struct uw2_seq_shape *a,
			     const struct uw2_seq_shape *b)
{
	return a->simple == b->simple && a->shape.pre == b->shape.pre &&
	       a->shape.size == b->shape.size &&
	       a->shape.mask == b->shape.mask &&
	       a->shape.base == b->shape.base;
}

static u32 uw2_seq_shape_hash(const struct uw2_seq_shape *a, u32 bits)
{
	u32 h = a->shape.pre ^ a->shape.size << 16;

	h = (h * 0x9e3779b1u) ^ a->shape.mask ^ a->shape.base << 16 ^
	    (u32)a->simple << 24;
	return (h * 0x9e3779b1u) >> (32 - bits);
}

/*
 * The number (from 1) of shape @a among the @x->n found, added if new;
 * 0 when it is new and there is no room.  @slot: the hash, numbers or 0.
 */
static u16 uw2_shapes_add(struct uw2_shapes_scratch *x, u16 *slot, u32 bits,
			  u32 cap, const struct uw2_seq_shape *a)
{
	u32 h = uw2_seq_shape_hash(a, bits), mask = (1u << bits) - 1;

	for (;; h = (h + 1) & mask) {
		if (!slot[h])
			break;
		if (uw2_seq_shape_eq(&x->s[slot[h] - 1], a))
			return slot[h];
	}
	if (x->n == cap)
		return 0;
	x->s[x->n++] = *a;
	slot[h] = x->n;
	return slot[h];
}

/*
 * Returns the bytes of the table's copy, or 0 when the UIT is too large
 * (uw2_shapes_scratch_bytes() is 0) or @c's pause said to stop.  Only the
 * starts a FOT pair names, which the validation's memo marked, get a
 * shape: a lookup asks for no other.
 */
u32 uw2_shapes_find(const struct uw2_table *t, void *scratch,
		    const struct uw2_check *c)
{
	const u8 *named = (const u8 *)c->memo + 2 * t->fot_size;
	struct uw2_shapes_scratch *x = scratch;
	u32 cap = uw2_shapes_cap(t), bits = uw2_shapes_hash_bits(t), pos;
	struct uw2_seq_shape a;
	u16 *at, *slot;

	if (!uw2_shapes_scratch_bytes(t))
		return 0;
	at = (u16 *)(x->s + cap);
	slot = at + t->uit_size;
	x->n = 0;
	for (pos = 0; pos < 1u << bits; pos++)
		slot[pos] = 0;
	for (pos = 0; pos < t->uit_size; pos++) {
		if (pos && !(pos % UW2_SHAPES_PAUSE) && c->pause &&
		    c->pause(c->ctx))
			return 0;
		at[pos] = 0;
		if (!(named[pos] & UW2_MEMO_NAMED))
			continue;
		uw2_seq_shape_of(t, pos, &a);
		at[pos] = uw2_shapes_add(x, slot, bits, cap, &a);
	}
	return x->n * sizeof(struct uw2_seq_shape) + 2 * t->uit_size;
}

void uw2_shapes_use(struct uw2_table *t, const void *mem, u32 bytes)
{
	u32 n = (bytes - 2 * t->uit_size) / sizeof(struct uw2_seq_shape);

	t->shapes = mem;
	t->shape_at = (const u16 *)(t->shapes + n);
}

void uw2_shapes_store(struct uw2_table *t, const void *scratch, void *mem,
		      u32 bytes)
{
	const struct uw2_shapes_scratch *x = scratch;
	const u16 *at = (const u16 *)(x->s + uw2_shapes_cap(t));
	struct uw2_seq_shape *s = mem;
	u16 *to = (u16 *)(s + x->n);
	u32 i;

	for (i = 0; i < x->n; i++)
		s[i] = x->s[i];
	for (i = 0; i < t->uit_size; i++)
		to[i] = at[i];
	uw2_shapes_use(t, mem, bytes);
}

/*
 * The shape of @e's sequence, found at the entry's first use, right after
 * the miss that filled it, so that the frame that missed runs from it at
 * once: the table's, found when it was loaded, else decoded.  Copied to
 * @fe, the caller loop's copy of a return address's entry (NULL for a
 * sampled pc's).
 */
static noinline void uw2_entry_shape(struct uw2_cache_entry *e,
				     struct uw2_fast *fe)
{
	const struct uw2_table *t = e->table;
	u32 i = t->shape_at ? t->shape_at[e->uit_index] : 0;
	struct uw2_seq_shape s __uninitialized;
	const struct uw2_seq_shape *p = &s;

	if (i)
		p = &t->shapes[i - 1];
	else
		uw2_seq_shape_of(t, e->uit_index, &s);
	e->simple = p->simple;
	e->shape = p->shape;
	if (fe)
		uw2_fast_fill(fe, e);
}

/* The caller loop's copy of @e, a return address's entry unless @pc. */
static struct uw2_fast *uw2_fast_of(struct uw2_cache *c,
				    const struct uw2_cache_entry *e, bool pc)
{
	return pc ? NULL : &c->fast[e - c->e];
}

/*
 * Where @e, a sampled pc's entry if @pc, says a frame's sequence is, and
 * its shape.  Inline: a hit's few copies cost less than a call; the first
 * use's work is uw2_entry_shape(), which alone needs the loop's copy.
 */
static __always_inline void uw2_found_entry(struct uw2_found *f,
					    struct uw2_cache *c,
					    struct uw2_cache_entry *e, bool pc)
{
	f->t = e->table;
	f->uit_index = e->uit_index;
	f->func = e->func;
	if (e->simple == UW2_SHAPE_UNKNOWN)
		uw2_entry_shape(e, uw2_fast_of(c, e, pc));
	f->shape = e->simple == UW2_SHAPE_SIMPLE ||
		   e->simple == UW2_SHAPE_CALLER ? &e->shape : NULL;
	f->refuse = e->simple == UW2_SHAPE_REFUSE;
}

/* The set of sampled pc @addr, two slots (struct uw2_pc_slot). */
static struct uw2_pc_slot *uw2_pc_set(struct uw2_cache *c, u32 addr)
{
	return &c->pc[2 * (((addr >> 6) * 0x9e3779b1u) >> (33 - UW2_PC_BITS))];
}

/* Does @s hold @addr, under the cache's gen (or live without one)? */
static bool uw2_range_holds(const struct uw2_walk *w,
			    const struct uw2_pc_slot *s, u32 addr)
{
	return addr - s->lo < s->len && s->e.gen == w->cache->gen &&
	       (s->e.gen || uw2_cache_live(w, &s->e, addr));
}

/* The wide slot of sampled pc @addr (UW2_PC_WIDE_MIN). */
static struct uw2_pc_slot *uw2_pc_wide(struct uw2_cache *c, u32 addr)
{
	return &c->wide[((addr >> UW2_PC_WIDE_SHIFT) * 0x9e3779b1u) >>
			(32 - UW2_PC_WIDE_BITS)];
}

/* A cached range holding the sampled pc @addr that may be used, or NULL. */
static struct uw2_cache_entry *uw2_range_get(const struct uw2_walk *w,
					     u32 addr)
{
	struct uw2_pc_slot *s = uw2_pc_set(w->cache, addr);

	if (uw2_range_holds(w, s, addr))
		return &s[0].e;
	if (uw2_range_holds(w, &s[1], addr))
		return &s[1].e;
	s = uw2_pc_wide(w->cache, addr);
	return uw2_range_holds(w, s, addr) ? &s->e : NULL;
}

/*
 * Keep [@lo, @hi) of @m, the pcs whose lookup gives @uit_index and @func,
 * first in the set of @addr, a pc among them; the older slot goes out.
 * Returns the slot's entry, or NULL.
 */
static struct uw2_cache_entry *
uw2_range_put(const struct uw2_walk *w, const struct uw2_module *m, u32 addr,
	      u32 lo, u64 hi, u32 uit_index, u32 func, u8 simple)
{
	struct uw2_pc_slot *s = uw2_pc_set(w->cache, addr);

	if (m - w->mods > 0xffff)
		return NULL;
	if (hi > m->text_end)
		hi = m->text_end;
	s[1] = s[0];
	s->lo = lo;
	s->len = hi - lo;
	s->e.addr = lo;
	s->e.gen = w->cache->gen;
	s->e.text_start = m->text_start;
	s->e.table = m->table;
	s->e.uit_index = uit_index;
	s->e.func = func;
	s->e.mod = m - w->mods;
	s->e.simple = simple;
	/* its shape is found apart, at the wide slot's first use */
	if (s->len >= UW2_PC_WIDE_MIN)
		*uw2_pc_wide(w->cache, addr) = *s;
	return &s->e;
}

/*
 * Keep @addr, in module @m that has no table, as JIT code when @m has a
 * kind of frames: a sampled pc as the whole module's range, a return
 * address as itself.  Under a gen only, which vouches for the module's
 * index (uw2_cache_live() wants a table).
 */
static void uw2_jit_put(const struct uw2_walk *w, const struct uw2_module *m,
			u32 addr, bool pc)
{
	struct uw2_cache_entry *e;

	if (!w->cache || !w->cache->gen || !m->frames ||
	    m->frames >= UW2_FRAMES_COUNT)
		return;
	if (pc) {
		uw2_range_put(w, m, addr, m->text_start, m->text_end, 0, 0,
			      UW2_SHAPE_JIT);
		return;
	}
	e = uw2_cache_put(w, addr, m, 0, 0);
	if (!e)
		return;
	e->simple = UW2_SHAPE_JIT;
	uw2_fast_chain(&w->cache->fast[e - w->cache->e], e, m->frames);
}

/*
 * The module holding @addr: @m, the one its lookup used, when it does
 * (the module array's entries never overlap), else the one the search
 * finds (a cached range may start below its module's text).
 */
static const struct uw2_module *uw2_module_at(const struct uw2_walk *w,
					      const struct uw2_module *m,
					      u32 addr)
{
	if (m && addr - m->text_start < m->text_end - m->text_start)
		return m;
	return uw2_find_module(w->mods, w->nmods, addr);
}

/*
 * uw2_find_sequence() without the cache's answer: the module, the function
 * and the row of @addr, kept in the cache if there is one.  Out of line,
 * so that a hit pays for none of its registers.
 */
static noinline enum uw2_stop uw2_find_uncached(struct uw2_walk *w, u32 addr,
						bool pc, struct uw2_found *f)
{
	struct uw2_cache_entry *e = NULL;
	const struct uw2_module *m;
	/* the lookups' outputs: not zeroed first (INIT_STACK_ALL_ZERO) */
	u32 __uninitialized instr_off, fot_index, row;
	u64 __uninitialized next, row_end;

	/* a walk's misses are mostly in the module of the one before */
	m = uw2_module_at(w, w->last_mod, addr);
	f->m = m;
	if (!m)
		return UW2_STOP_NO_TABLE;
	w->last_mod = m;
	if (!m->table) {
		uw2_jit_put(w, m, addr, pc);
		return UW2_STOP_NO_TABLE;
	}
	f->t = m->table;
	f->shape = NULL;
	f->refuse = false;
	if (!uw2_lookup_function_to(f->t, addr - m->text_start + m->skip,
				    &instr_off,
				    &fot_index, &next))
		return UW2_STOP_NO_TABLE;
	f->func = (addr & ~1u) - 2 * instr_off;
	if (!uw2_lookup_row(f->t, fot_index, instr_off, &f->uit_index, &row,
			    &row_end, &w->steps))
		return w->steps ? UW2_STOP_NO_TABLE : UW2_STOP_BUDGET;
	if (w->cache && pc) {
		/* the row, up to where the function surely runs */
		next += m->text_start;
		next -= m->skip;
		if (next > f->func + 2 * row_end)
			next = f->func + 2 * row_end;
		e = uw2_range_put(w, m, addr, f->func + 2 * row, next,
				  f->uit_index, f->func, UW2_SHAPE_UNKNOWN);
	} else if (w->cache) {
		e = uw2_cache_put(w, addr, m, f->uit_index, f->func);
	}
	/* the shape now: the frame that missed runs from it at once */
	if (e)
		uw2_found_entry(f, w->cache, e, pc);
	/* a refusal in code of a frame kind: the kind walks the frame */
	if (e && !pc && e->simple == UW2_SHAPE_REFUSE)
		uw2_fast_chain(&w->cache->fast[e - w->cache->e], e, m->frames);
	return UW2_STEP_MORE;
}

/*
 * The sequence for @addr, and the start of the function holding it.  A
 * sampled pc (@pc) is looked up among the cached ranges of pcs that share
 * a sequence, a return address among the cached addresses: sampled pcs
 * are too many to cache one by one, and would evict return addresses.
 * Returns UW2_STEP_MORE when found, else why the walk stops.  Inline in
 * its one caller, uw2_step(): a hit is a few loads.
 */
static __always_inline enum uw2_stop
uw2_find_sequence(struct uw2_walk *w, u32 addr, bool pc, struct uw2_found *f)
{
	struct uw2_cache_entry *e;

	if (w->cache) {
		e = pc ? uw2_range_get(w, addr) : uw2_cache_get(w, addr);
		if (e) {
			f->m = e->mod < w->nmods ? &w->mods[e->mod] : NULL;
			if (e->simple == UW2_SHAPE_JIT)
				return UW2_STOP_NO_TABLE;
			uw2_found_entry(f, w->cache, e, pc);
			return UW2_STEP_MORE;
		}
		/* hits are counted by what is left (struct uw2_cache_counts) */
		if (pc)
			w->cache->counts.pc_misses++;
		else
			w->cache->counts.ra_misses++;
	}
	return uw2_find_uncached(w, addr, pc, f);
}

/*
 * Are the @count words at @vsp in the view, once the reader has had the
 * chance to move it there?  A reader with a view refills it on a miss.
 */
static bool uw2_view_holds(const struct uw2_stack *stack, u32 vsp,
			   u32 count)
{
	struct uw2_view *v = stack->view;
	u32 word;

	if (vsp - v->lo < v->len && 4 * count <= v->len - (vsp - v->lo))
		return true;
	/* the words run past the view's end: have it refilled from vsp */
	if (vsp - v->lo < v->len)
		v->len = 0;
	if (stack->read(stack->ctx, vsp, &word) != 0)
		return false;
	return vsp - v->lo < v->len && 4 * count <= v->len - (vsp - v->lo);
}

/*
 * Where the words a frame of simple shape pops are, from @vsp (the value
 * of its base: sp, or the register its first opcode names), after the
 * checks the opcodes would make: vsp only rises, so the checks made after
 * each opcode hold throughout when they hold at the start and the end.
 * In the view, or else, on a stack with direct loads, loaded into @buf.
 * Returns false to leave anything else (an sp that fails a check, words
 * outside the view) to the opcodes, which give the precise result.  On
 * success *@src is NULL when nothing is popped.
 */
static inline bool uw2_shape_src(const struct uw2_walk *w,
				 const struct uw2_shape *sh, u32 vsp,
				 const u8 **src, u32 *buf)
{
	const struct uw2_view *v = w->stack->view;
	u32 count = sh->count;

	/* sp_ok: vsp <= hi, so hi - vsp does not wrap */
	if (!v || !uw2_sp_ok(w, vsp) || sh->size > w->stack->hi - vsp)
		return false;
	vsp += sh->pre;
	*src = NULL;
	if (!count)
		return true;
	if (vsp - v->lo < v->len && 4 * count <= v->len - (vsp - v->lo)) {
		*src = v->data + (vsp - v->lo);
		return true;
	}
	if (w->stack->direct) {
		if (!uw2_load_words(w->stack, vsp, count, buf))
			return false;
		*src = (const u8 *)buf;
		return true;
	}
	if (!uw2_view_holds(w->stack, vsp, count))
		return false;
	*src = v->data + (vsp - v->lo);
	return true;
}

/*
 * @n words from @src to @r, unrolled: a push of r4-r11 and lr is the
 * commonest frame, and a loop spent more on itself than on the words.
 */
static inline void uw2_copy_run(u32 *r, const u8 *src, u32 n)
{
	u32 k;

	switch (n) {
	default:
		for (k = 8; k < n; k++)
			__builtin_memcpy(&r[k], src + 4 * k, 4);
		fallthrough;
	case 8:
		__builtin_memcpy(&r[7], src + 28, 4);
		fallthrough;
	case 7:
		__builtin_memcpy(&r[6], src + 24, 4);
		fallthrough;
	case 6:
		__builtin_memcpy(&r[5], src + 20, 4);
		fallthrough;
	case 5:
		__builtin_memcpy(&r[4], src + 16, 4);
		fallthrough;
	case 4:
		__builtin_memcpy(&r[3], src + 12, 4);
		fallthrough;
	case 3:
		__builtin_memcpy(&r[2], src + 8, 4);
		fallthrough;
	case 2:
		__builtin_memcpy(&r[1], src + 4, 4);
		fallthrough;
	case 1:
		__builtin_memcpy(&r[0], src, 4);
		fallthrough;
	case 0:
		break;
	}
}

/*
 * Run a frame of simple shape, popping from @src (uw2_shape_src()), to
 * new sp @sp: its base's value and its size, found before the pop, which
 * may load the base register.
 */
static inline void uw2_shape_apply(const struct uw2_shape *sh,
				   const u8 *src, u32 sp, struct uw2_regs *regs)
{
	u32 k = sh->run_len, m;

	/* the run first (r4-rN of a push), then the rest (lr, pc) */
	uw2_copy_run(&regs->r[sh->run_first], src, k);
	for (m = sh->rest; m; m &= m - 1, k++)
		__builtin_memcpy(&regs->r[__builtin_ctz(m)], src + 4 * k, 4);
	regs->r[UW2_SP] = sp;
	if (!(sh->mask & (1u << UW2_PC)))
		regs->r[UW2_PC] = regs->r[UW2_LR];
}

/*
 * The pc a frame of simple shape gives, popping from @src: its last word
 * when it pops lr or pc (the highest registers), else lr as it is.
 */
static u32 uw2_shape_pc(const struct uw2_shape *sh, const u8 *src,
			const struct uw2_regs *regs)
{
	u32 pc;

	if (!(sh->mask & UW2_RA_REGS))
		return regs->r[UW2_LR];
	__builtin_memcpy(&pc, src + 4 * sh->count - 4, 4);
	return pc;
}

/*
 * Checks on a completed frame, which gave @sp and @pc; @depth counts the
 * frames stored so far and @popped holds the registers the frame loaded
 * from the stack.
 */
static enum uw2_stop uw2_check_frame(const struct uw2_walk *w, u32 sp, u32 pc,
				     u32 depth, u32 popped)
{
	/*
	 * uwprof's own tables ask only word alignment (uw2_sp_ok): AAPCS asks
	 * for 8 at public interfaces, but hand-written code calls with sp at
	 * 4 mod 8 (glibc's syscall wrappers push {lr} and call
	 * __libc_do_syscall).  Chrome's reader asks for 8 of every finished
	 * frame, so a --chrome-compat walk does too.  Compat walks never
	 * take uw2_walk_fast(), which has no such check.  sp is tested
	 * first: an 8-aligned frame, nearly every one, does not load flags.
	 */
	if ((sp & 7) && (w->flags & UW2_F_CHROME_COMPAT))
		return UW2_STOP_BAD_SP;
	if (depth > 1 && sp == w->frame_sp)
		return UW2_STOP_BAD_SP;
	if (!pc)
		return UW2_STOP_ROOT;
	if (depth == 1 && sp == w->frame_sp && !((pc ^ w->first_pc) & ~1u))
		return UW2_STOP_NO_PROGRESS;
	/*
	 * A caller's own call overwrote lr, so a caller frame that restores
	 * neither lr nor pc (a noreturn function that never saved them) has
	 * no return address left: lr would give back this frame's pc, or a
	 * stale one.
	 */
	if (depth > 1 && !(popped & UW2_RA_REGS) &&
	    !(w->flags & UW2_F_CHROME_COMPAT))
		return UW2_STOP_NO_PROGRESS;
	return UW2_STEP_MORE;
}

/*
 * A frame that ran to its end into @next: kept in @regs if it passes the
 * checks of a completed frame (uw2_check_frame()).
 */
static enum uw2_stop uw2_commit_frame(const struct uw2_walk *w,
				      struct uw2_regs *regs,
				      const struct uw2_regs *next, u32 depth,
				      u32 popped)
{
	enum uw2_stop stop = uw2_check_frame(w, next->r[UW2_SP],
					     next->r[UW2_PC], depth, popped);

	if (stop == UW2_STEP_MORE)
		*regs = *next;
	return stop;
}

/* ---- frames of JIT code: the walk ---- */

/*
 * The kind of the JIT code holding @addr, or NULL; @m a guess of its
 * module (uw2_module_at()): a JIT frame's caller is mostly in its own.
 */
static const struct uw2_jit_kind *uw2_jit_at(const struct uw2_walk *w,
					     const struct uw2_module *m,
					     u32 addr, u32 *frames)
{
	return uw2_jit_of(uw2_module_at(w, m, addr), frames);
}

u32 uw2_jit_ra_at(const struct uw2_module *mods, u32 nmods,
		  const struct uw2_regs *regs)
{
	const struct uw2_module *m;
	const struct uw2_jit_kind *k;

	m = uw2_find_module(mods, nmods, (regs->r[UW2_PC] & ~1u) - 2);
	if (!m || !m->frames || m->frames >= UW2_FRAMES_COUNT)
		return 0;
	k = &uw2_jit_kinds[m->frames];
	return regs->r[k->ra_reg] + k->ra_off;
}

/* Run @len opcodes of a kind's layout on a copy of @regs into @next. */
static enum uw2_exec uw2_jit_run(struct uw2_walk *w, const u8 *ops, u32 len,
				 const struct uw2_regs *regs,
				 struct uw2_regs *next, u32 *popped)
{
	const struct uw2_table t = { .uit = ops, .uit_size = len };

	*next = *regs;
	*popped = 0;
	return uw2_run_sequence(w, &t, 0, next, popped, false);
}

/*
 * The ordinary frame of a kind whose frame is a chain link (k->chain),
 * without the opcode walker: the same budget, checks and reads, in the
 * same order, as uw2_jit_run() of k->frame, and the same result.  Only
 * walks with a cache take it, so that the tests and the fuzz target, which
 * hold those to the plain walk, hold it to the opcodes.
 */
static enum uw2_exec uw2_jit_chain(struct uw2_walk *w,
				   const struct uw2_jit_kind *k,
				   const struct uw2_regs *regs,
				   struct uw2_regs *next, u32 *popped)
{
	u32 vsp = regs->r[k->ra_reg], val[2];
	enum uw2_exec res;

	/* vsp = r(ra_reg) */
	if (w->steps < UW2_OP_STEPS)
		return UW2_EXEC_BUDGET;
	w->steps -= UW2_OP_STEPS;
	if (!uw2_sp_ok(w, vsp))
		return UW2_EXEC_BAD_SP;
	/* pop {r(ra_reg), lr} */
	if (w->steps < UW2_OP_STEPS)
		return UW2_EXEC_BUDGET;
	w->steps -= UW2_OP_STEPS;
	res = uw2_read_words(w->stack, vsp, 2, val);
	if (res != UW2_EXEC_NEXT)
		return res;
	vsp += 8;
	if (!uw2_sp_ok(w, vsp))
		return UW2_EXEC_BAD_SP;
	/* finish: pc = lr */
	if (w->steps < UW2_OP_STEPS)
		return UW2_EXEC_BUDGET;
	w->steps -= UW2_OP_STEPS;
	*next = *regs;
	next->r[k->ra_reg] = val[0];
	next->r[UW2_LR] = val[1];
	next->r[UW2_SP] = vsp;
	next->r[UW2_PC] = val[1];
	*popped = 1u << k->ra_reg | 1u << UW2_LR;
	return UW2_EXEC_FINISH;
}

/*
 * Is the frame at @fp (inside the current one, so above sp) an entry
 * frame of @k: its marker words all hold the same value of k->markers?
 */
static enum uw2_stop uw2_jit_is_entry(const struct uw2_walk *w,
				      const struct uw2_jit_kind *k, u32 fp)
{
	u32 val[2], at = fp - 4 * k->nmarkers, i;
	enum uw2_exec res;

	if (fp < 4 * k->nmarkers || at < w->frame_sp)
		return UW2_STOP_JIT_CHAIN;
	res = uw2_read_words(w->stack, at, k->nmarkers, val);
	if (res != UW2_EXEC_NEXT)
		return uw2_exec_stop(res);
	for (i = 1; i < k->nmarkers; i++)
		if (val[i] != val[0])
			return UW2_STOP_JIT_CHAIN;
	for (i = 0; i < 2; i++)
		if (val[0] == k->markers[i])
			return UW2_STEP_MORE;
	return UW2_STOP_JIT_CHAIN;
}

/*
 * A frame of JIT code of kind @k (uw2_jit_at() of the pc's lookup
 * address, which no table row unwinds; @frames its number): an ordinary
 * frame when its return address lies in code of the same kind, else it
 * must prove to be an entry frame, and gives back the native caller's
 * registers.  The sampled pc's frame is taken as set up: a sample in a
 * prologue or a frameless stub gives the caller's caller as the first
 * return address, as V8's own unwinder does.
 */
static enum uw2_stop uw2_step_jit(struct uw2_walk *w, struct uw2_regs *regs,
				  u32 depth, const struct uw2_module *m,
				  const struct uw2_jit_kind *k, u32 frames)
{
	const struct uw2_jit_kind *up;
	struct uw2_regs next __uninitialized;
	u32 popped, up_frames;
	enum uw2_stop stop;
	enum uw2_exec res;

	if (k->chain && w->cache)
		res = uw2_jit_chain(w, k, regs, &next, &popped);
	else
		res = uw2_jit_run(w, k->frame, k->frame_len, regs, &next,
				  &popped);
	if (res != UW2_EXEC_FINISH)
		return uw2_exec_stop(res);
	up = uw2_jit_at(w, m, uw2_lookup_addr(w, next.r[UW2_PC], depth + 1),
			&up_frames);
	if (!up || up_frames != frames) {
		stop = uw2_jit_is_entry(w, k, regs->r[UW2_FP]);
		if (stop != UW2_STEP_MORE)
			return stop;
		res = uw2_jit_run(w, k->entry, k->entry_len, regs, &next,
				  &popped);
		if (res != UW2_EXEC_FINISH)
			return uw2_exec_stop(res);
	}
	return uw2_commit_frame(w, regs, &next, depth, popped);
}

/* Unwind the frame whose pc is regs->r[15]; @depth frames stored so far. */
static enum uw2_stop uw2_step(struct uw2_walk *w, struct uw2_regs *regs,
			      u32 depth)
{
	u32 addr = uw2_lookup_addr(w, regs->r[UW2_PC], depth);
	const struct uw2_jit_kind *k;
	const struct uw2_module *jm;
	/*
	 * Written before they are read: a kernel that zeroes every local
	 * (INIT_STACK_ALL_ZERO) would spend a memset on each, in every
	 * sample's path.
	 */
	struct uw2_found f __uninitialized;
	struct uw2_regs next __uninitialized;
	u32 words[UW2_SHAPE_WORDS] __uninitialized;	/* direct loads' */
	enum uw2_stop stop;
	enum uw2_exec res;
	u32 popped = 0, func, frames, base;
	const u8 *src;

	stop = uw2_find_sequence(w, addr, depth == 1, &f);
	if (stop == UW2_STOP_NO_TABLE) {
		/* f.m: the module holding addr, or NULL when none does */
		k = uw2_jit_of(f.m, &frames);
		return k ? uw2_step_jit(w, regs, depth, f.m, k, frames) : stop;
	}
	if (stop != UW2_STEP_MORE)
		return stop;
	func = f.func;
	if (depth == 1)
		w->first_func = func;
	/*
	 * A simple frame whose words are found cannot fail half way: what it
	 * gives is checked first, and then it is run in place.
	 */
	if (f.shape) {
		base = regs->r[f.shape->base];
		if (uw2_shape_src(w, f.shape, base, &src, words)) {
			stop = uw2_check_frame(w, base + f.shape->size,
					       uw2_shape_pc(f.shape, src, regs),
					       depth, f.shape->mask);
			if (stop == UW2_STEP_MORE)
				uw2_shape_apply(f.shape, src,
						base + f.shape->size, regs);
			return stop;
		}
	}
	if (f.refuse) {
		res = uw2_run_refusal(w, regs->r[UW2_SP]);
	} else {
		/* a frame that fails half way leaves no half of its registers */
		next = *regs;
		res = uw2_run_sequence(w, f.t, f.uit_index, &next, &popped,
				       depth == 1);
	}
	/*
	 * The sampled function's own lr, left by a call that never returns
	 * made from that very function, is no caller: the sampled frame
	 * alone is the complete chain.
	 */
	if (res == UW2_EXEC_NORETURN && depth == 2 && func == w->first_func)
		return UW2_STEP_STALE;
	/*
	 * JIT code whose table refuses here (a runtime's builtin not proven
	 * to the table's rules): the frame is its kind's to walk.
	 */
	if (res == UW2_EXEC_REFUSE) {
		jm = uw2_module_at(w, f.m, addr);
		k = uw2_jit_of(jm, &frames);
		if (k)
			return uw2_step_jit(w, regs, depth, jm, k, frames);
	}
	if (res != UW2_EXEC_FINISH)
		return uw2_exec_stop(res);
	return uw2_commit_frame(w, regs, &next, depth, popped);
}

/*
 * The caller loop's own top: frames ending above it, and sps above it,
 * are left to uw2_step(), so that sp + pre + span, below sp + 64 KiB,
 * never wraps in the loop.  (32-bit tasks on arm64 have their stacks up
 * to 0xfffff000: their frames in the last 64 KiB take the general step.)
 */
#define UW2_FAST_HI	0xffff0000u

static inline u32 uw2_walk_top(const struct uw2_stack *st)
{
	return st->hi < UW2_FAST_HI ? st->hi : UW2_FAST_HI;
}

/*
 * The caller loop's view is at most this long, so that the root marker's
 * span (UW2_FAST_SPAN_ROOT) exceeds every view.
 */
#define UW2_FAST_VIEW_MAX	0xfffcu

/*
 * The view's bytes up to @hi, at most UW2_FAST_VIEW_MAX: a frame whose
 * words and rise lie in them ends in the window.  The view starts at or
 * below the window's top: its copies start at words the walk read.
 */
static inline u32 uw2_view_len_to(const struct uw2_view *v, u32 hi)
{
	u32 len = v->len < UW2_FAST_VIEW_MAX ? v->len : UW2_FAST_VIEW_MAX;

	if (v->lo > hi)
		return 0;
	return len < hi - v->lo ? len : hi - v->lo;
}

/*
 * The caller loop's rare case: a frame's words and rise, @span bytes from
 * @vsp, are not all in the view's bytes below the window's top.  When the
 * frame ends in the window, the reader refills the view from @vsp.
 * Returns the view's bytes below the top, or 0 when they still do not
 * hold the frame.  A call (gcc keeps it out of line, as it calls the
 * reader), so that the loop keeps no register for the window's top.
 */
static u32 uw2_walk_refill(const struct uw2_stack *st, u32 sp, u32 vsp,
			   u32 span)
{
	u32 hi = uw2_walk_top(st), len, off;

	/* sp <= hi throughout, so hi - sp does not wrap */
	if (vsp - sp + span > hi - sp || !uw2_view_holds(st, vsp, span / 4))
		return 0;
	len = uw2_view_len_to(st->view, hi);
	off = vsp - st->view->lo;
	return off < len && span <= len - off ? len : 0;
}

/*
 * The caller loop's register copies with direct loads: the words of a
 * frame at @vsp, its run (@run: run_first | run_len << 4) and then the
 * registers of @rest, loaded into @regs; false when one fails, with
 * @regs part written.  Inside the loop's user-access window.
 */
static __always_inline bool uw2_load_frame(const struct uw2_stack *st,
					   u32 vsp, u32 run, u32 rest,
					   struct uw2_regs *regs)
{
	u32 n = run >> 4;

	if (!uw2_user_loads(st, vsp, n, &regs->r[run & 15]))
		return false;
	for (vsp += 4 * n; rest; rest &= rest - 1, vsp += 4)
		if (!uw2_user_load(st, vsp, &regs->r[__builtin_ctz(rest)]))
			return false;
	return true;
}

/*
 * The caller loop's @count words at @addr (at or above @sp) into @val: in
 * the view's bytes below *@vend, at *@base + their address (refilled when
 * they are not), or @direct, loaded in place.  False when they cannot be
 * had, for uw2_step() to read them and find why.
 */
static __always_inline bool uw2_walk_words(const struct uw2_stack *st, u32 sp,
					   u32 addr, u32 count, u32 *vend,
					   unsigned long *base, const bool direct,
					   u32 *val)
{
	u32 len;

	if (addr + 4 * count > *vend) {
		if (direct)
			return false;
		len = uw2_walk_refill(st, sp, addr, 4 * count);
		if (!len)
			return false;
		*base = (unsigned long)st->view->data - st->view->lo;
		*vend = st->view->lo + len;
	}
	if (direct)
		return uw2_user_loads(st, addr, count, val);
	__builtin_memcpy(val, (const u8 *)(*base + addr), 4 * count);
	return true;
}

/*
 * Is return address @ra in code of JIT kind @kind, as the caller loop
 * knows it: 1 when its entry says so (a chain link of the kind, or a row
 * in a module of the kind), 0 when it says not, -1 without an entry.
 */
static __always_inline int uw2_walk_kind_of(const struct uw2_walk *w, u32 ra,
					    u32 kind)
{
	const struct uw2_cache *c = w->cache;
	const struct uw2_fast *up = c->fast + uw2_cache_index_ra(ra);
	u64 tag = uw2_fast_tag(ra | 1, c->gen);
	u32 mod;

	if (up->tag != tag && (++up)->tag != tag)
		return -1;
	if (up->span == UW2_FAST_SPAN_CHAIN)
		return up->run == kind;
	mod = c->e[up - c->fast].mod;
	return mod < w->nmods && w->mods[mod].frames == kind;
}

/*
 * A frame whose words are counted from r7 (UW2_FAST_SPAN_R7), at sp @sp:
 * its words from @r7 + pre (*@vsp is sp + pre) and its span, ra + 4, as
 * the opcodes would take them.  False, to leave the frame to uw2_step(),
 * for an r7 the opcodes would refuse (below sp, not a word's address) or
 * past the loop's view, which ends at @vend.
 */
static __always_inline bool uw2_walk_r7(u32 r7, u32 sp, u32 vend, u32 *vsp,
					u32 *span, u32 ra)
{
	if ((r7 & 3) || r7 < sp || r7 > vend)
		return false;
	/* vend <= UW2_FAST_HI: r7 + pre + span does not wrap */
	*vsp = r7 + (*vsp - sp);
	*span = ra + 4;
	return true;
}

/* What uw2_walk_chain() is given of the caller loop's state, and gives. */
struct uw2_chain_io {
	u32 fp;			/* the frame pointer; then the caller's */
	u32 ra;			/* the return address found */
	u32 vend;		/* the view as uw2_walk_words() has it */
	unsigned long base;
};

/*
 * The caller loop's frame of JIT kind @kind (UW2_FAST_SPAN_CHAIN), from
 * frame pointer io->fp: as uw2_step_jit() runs it, with the same reads and
 * checks, and uw2_check_frame()'s (its words lie at or above @sp, so sp
 * rises).  The kind's ordinary frame when the return address is in the
 * kind's code, else its entry frame, proven by its markers, which gives
 * back the native caller's registers (into @regs, with @copy; read all the
 * same without).  The loop knows the return address's code by its entry
 * (uw2_walk_kind_of()): one not cached yet, a return address of 0 and a
 * frame that fails a check are left to uw2_step().  Words as
 * uw2_walk_words() has them.  Returns the new sp, with the new frame
 * pointer and the return address in @io (and r11 and lr in @regs with
 * @copy), or 0 with the registers as they came.  Out of line, so that the
 * loop's straight line keeps its registers.
 */
static noinline u32 uw2_walk_chain(const struct uw2_walk *w, u32 kind,
				   struct uw2_chain_io *io,
				   struct uw2_regs *regs, u32 sp,
				   const bool copy, const bool direct)
{
	const struct uw2_jit_kind *k = &uw2_jit_kinds[kind];
	u32 at = io->fp, end = at + 8, val[2], mark[2], saved[8];
	u32 *vend = &io->vend;
	unsigned long *base = &io->base;
	int same;

	/* sp <= UW2_FAST_HI: at + the entry frame's words does not wrap */
	if ((at & 3) || at < sp || at - sp > UW2_FAST_VIEW_MAX ||
	    !uw2_walk_words(w->stack, sp, at, 2, vend, base, direct, val) ||
	    !val[1])
		return 0;
	same = uw2_walk_kind_of(w, val[1], kind);
	if (same < 0)
		return 0;
	if (!same) {
		/* the markers, inside the frame: above sp */
		if (k->nmarkers != 2 || at - sp < 8 || k->entry_count > 8 ||
		    !uw2_walk_words(w->stack, sp, at - 8, 2, vend, base, direct,
				    mark) ||
		    mark[0] != mark[1] ||
		    (mark[0] != k->markers[0] && mark[0] != k->markers[1]))
			return 0;
		if (!uw2_walk_words(w->stack, sp, at + k->entry_regs,
				    k->entry_count, vend, base, direct, saved))
			return 0;
		if (copy)
			__builtin_memcpy(&regs->r[k->entry_first], saved,
					 4 * k->entry_count);
		/* sp past the registers, in the words just read */
		end = at + k->entry_regs + 4 * k->entry_count;
	}
	if (copy) {
		regs->r[UW2_FP] = val[0];
		regs->r[UW2_LR] = val[1];
	}
	io->fp = val[0];
	io->ra = val[1];
	return end;
}

/*
 * r11 as a frame of the caller loop without the register copies pops it,
 * if it does (@run and @rest as struct uw2_fast's), from its words at
 * @vsp (@src in the view): into *@fp.  False when the load faults.
 */
static __always_inline bool uw2_walk_fp(const struct uw2_stack *st,
					const u8 *src, u32 vsp, u32 run,
					u32 rest, u32 *fp, const bool direct)
{
	u32 i = UW2_FP - (run & 15);

	if (i >= run >> 4) {
		if (!(rest & (1u << UW2_FP)))
			return true;
		i = (run >> 4) + uw2_popcount16(rest & ((1u << UW2_FP) - 1));
	}
	if (direct)
		return uw2_user_load(st, vsp + 4 * i, fp);
	__builtin_memcpy(fp, src + 4 * i, 4);
	return true;
}

/*
 * Caller frames that cache hits of caller shape, under a gen (struct
 * uw2_cache), unwind and uw2_check_frame() would pass, one after another,
 * in place; a caller frame whose sequence starts with the outermost-frame
 * marker, which ends the walk as its opcodes would; and, with the register
 * copies, frames of JIT code from one chain link to the next
 * (uw2_walk_chain()).  Without the copies a chain link ends the loop with
 * UW2_STEP_COPY, as its frame pointer is a register.
 * Called with frames[*@n - 1] the pc of @regs, not unwound yet
 * (*@n > 1), and regs->r[13] checked by uw2_sp_ok() and at most
 * UW2_FAST_HI; the loop's top is uw2_walk_top().
 * For each frame: the last word it pops (lr or pc, the highest register
 * popped, and so the new pc either way) is not 0; sp rises, as it pops a
 * word; and it ends at most at the window's top: its words and its rise
 * lie in the view's bytes below the top (uw2_view_len_to()), one test for
 * both, as sp never leaves those bytes (below).  sp only rises, by
 * multiples of 4, so the checks made after each opcode hold throughout.
 * The first frame that is not like that is left, as it came, to
 * uw2_step(): UW2_STEP_MORE.  Else returns why the walk ended: the frame
 * array full after a frame unwound, or the marker.  With
 * UW2_F_FRAMES_ONLY the frames' register words are not copied; if the walk
 * goes on past the loop, the loop runs again from where it started, with
 * them, so that the next frame's opcodes find the registers they may read.
 * With @direct (on a stack with direct loads), each frame's last word is
 * loaded in place, inside one user-access window, and its first too when
 * the two lie in different pages (UW2_USER_PAGE), so that every word the
 * frame pops can be read (with @copy, those words are then loaded too);
 * the view is not used: the frame must end in the window, at most
 * UW2_FAST_VIEW_MAX bytes above the loop's first sp, and a load that
 * fails leaves the frame to uw2_step(), whose reads give the precise stop.
 */
static __always_inline enum uw2_stop
uw2_walk_run(struct uw2_walk *w, struct uw2_regs *regs, u32 *frames, u32 *n,
	     u32 max, const bool copy, const bool direct, const bool track)
{
	const struct uw2_stack *st = w->stack;
	const struct uw2_view *v = st->view;
	const struct uw2_fast *fast = w->cache->fast;
	u32 *f = frames + *n, *fend = frames + max;
	const u32 gen = w->cache->gen;
	u32 pc = regs->r[UW2_PC], sp = regs->r[UW2_SP], fp = regs->r[UW2_FP];
	enum uw2_stop stop = UW2_STEP_MORE;
	/* set before use: not zeroed at each start (INIT_STACK_ALL_ZERO) */
	struct uw2_chain_io io __uninitialized;
	u32 link[2] __uninitialized;
	unsigned int ua = 0;
	unsigned long base;
	u32 lo, len, vend;

	/* the view in registers: only a refill below changes it */
	lo = v->lo;
	len = uw2_view_len_to(v, uw2_walk_top(st));
	/*
	 * sp stays in the view's bytes, lo <= sp <= vend, so that a frame's
	 * words, from sp up, are at base + their address: each frame ends in
	 * them, and a refill starts below the frame.  An sp outside them
	 * starts the loop with an empty view at sp, which the first frame
	 * refills.  sp + pre + span, at most UW2_FAST_HI + 0xffff, does not
	 * wrap.  Direct loads bound the frames the same way, from sp up to
	 * the window's top (sp is below it: walk_fast's bound, and
	 * uw2_sp_ok()'s), and read no view.
	 */
	if (direct) {
		lo = sp;
		len = uw2_walk_top(st) - sp;
		if (len > UW2_FAST_VIEW_MAX)
			len = UW2_FAST_VIEW_MAX;
		ua = uw2_user_open();
	} else if (sp - lo > len) {
		lo = sp;
		len = 0;
	}
	base = (unsigned long)v->data - lo;
	vend = lo + len;
	for (;;) {
		u64 tag = uw2_fast_tag(pc | 1, gen);
		u32 vsp, last, m, span, run, ra, first;
		const struct uw2_fast *sh = fast + uw2_cache_index_ra(pc);
		const u8 *src;

		/*
		 * The address and the gen in one compare a way; the second
		 * way out of the loop's straight line (unlikely(), which
		 * this file, built for the device too, spells out).
		 */
		if (__builtin_expect(sh->tag != tag, 0) && (++sh)->tag != tag) {
			stop = UW2_STEP_FILL;
			break;
		}
		span = sh->span;
		/*
		 * The shape in locals: the register stores below could alias
		 * the entry, which would be read again after each one.
		 */
		run = sh->run;
		m = sh->rest;
		ra = sh->ra;
		vsp = sp + sh->pre;
		if (vsp + span > vend) {
			/* the root marker's span is longer than any view */
			if (span == UW2_FAST_SPAN_ROOT) {
				stop = UW2_STOP_ROOT;
				break;
			}
			if (span == UW2_FAST_SPAN_CHAIN) {
				/* r11: copied, or kept (track), or not known */
				if (!copy && !track) {
					stop = UW2_STEP_COPY;
					break;
				}
				if (copy)
					fp = regs->r[UW2_FP];
				/* the kind's ordinary frame, direct: in line */
				if (direct && !(fp & 3) && fp >= sp && fp < vend &&
				    vend - fp >= 8 &&
				    uw2_user_loads(st, fp, 2, link) && link[1] &&
				    uw2_walk_kind_of(w, link[1], run) > 0) {
					if (copy) {
						regs->r[UW2_FP] = link[0];
						regs->r[UW2_LR] = link[1];
					}
					sp = fp + 8;
					fp = link[0];
					pc = link[1];
					goto unwound;
				}
				io.fp = fp;
				io.vend = vend;
				io.base = base;
				vsp = uw2_walk_chain(w, run, &io, regs, sp,
						     copy, direct);
				if (!vsp)
					break;
				vend = io.vend;
				base = io.base;
				fp = io.fp;
				sp = vsp;
				pc = io.ra;
				goto unwound;
			}
			if (span == UW2_FAST_SPAN_R7) {
				/* r7 is known only with the copies */
				if (!copy) {
					stop = UW2_STEP_COPY;
					break;
				}
				if (!uw2_walk_r7(regs->r[UW2_R7], sp, vend,
						 &vsp, &span, ra))
					break;
			}
			if (vsp + span > vend) {
				if (direct)
					break;
				len = uw2_walk_refill(st, sp, vsp, span);
				if (!len)
					break;
				base = (unsigned long)v->data - v->lo;
				vend = v->lo + len;
			}
		}
		src = (const u8 *)(base + vsp);
		/* a load that faults gives 0, which stops the loop too */
		if (!direct)
			__builtin_memcpy(&last, src + ra, 4);
		else
			last = uw2_user_word(st, vsp + ra);
		if (!last)
			break;
		if (direct && (vsp ^ (vsp + ra)) >= UW2_USER_PAGE &&
		    !uw2_user_load(st, vsp, &first))
			break;
		if (track && !copy &&
		    !uw2_walk_fp(st, src, vsp, run, m, &fp, direct))
			break;
		/* the run (r4-rN of a push), then the rest (lr, pc) */
		if (copy && direct) {
			/*
			 * the frame's pages load (above): a load fails only if
			 * another thread unmapped one since, and then the
			 * frame's own step reads every word it pops again
			 */
			if (!uw2_load_frame(st, vsp, run, m, regs))
				break;
		} else if (copy) {
			uw2_copy_run(&regs->r[run & 15], src, run >> 4);
			src += 4 * (run >> 4);
		}
		if (!copy || direct || m == 1u << UW2_PC) {
			/* pc: stored at the end */
		} else if (m == 1u << UW2_LR) {
			regs->r[UW2_LR] = last;
		} else {
			for (; m; m &= m - 1, src += 4)
				__builtin_memcpy(&regs->r[__builtin_ctz(m)],
						 src, 4);
		}
		sp = vsp + span;
		pc = last;
unwound:
		if (f == fend) {
			stop = UW2_STOP_MAX_DEPTH;
			break;
		}
		*f++ = pc;
	}
	if (direct)
		uw2_user_close(ua);
	/* unchanged when no frame unwound: sp is frame_sp then */
	regs->r[UW2_SP] = sp;
	regs->r[UW2_PC] = pc;
	if (track && !copy)
		regs->r[UW2_FP] = fp;
	w->frame_sp = sp;
	*n = f - frames;
	return stop;
}

/*
 * The caller loop's miss (UW2_STEP_FILL): return address @pc, with no
 * entry in the cache, looked up as uw2_step() would look it up, which
 * fills its entry and, for a caller's shape, the root marker or a chain
 * link, the loop's copy.  Returns true when it did, for the loop to go on
 * from the frame, else false to leave the frame to uw2_step(), which finds
 * what the lookup kept.  A miss is counted once: here when the lookup kept
 * the address, else by uw2_step(), which looks it up again.
 */
static noinline bool uw2_walk_fill(struct uw2_walk *w, u32 pc)
{
	u32 addr = uw2_lookup_addr(w, pc, 2);
	struct uw2_found f __uninitialized;
	const struct uw2_fast *sh;
	u64 tag;

	/* an entry of another shape: uw2_step()'s */
	if (uw2_cache_get(w, addr))
		return false;
	uw2_find_uncached(w, addr, false, &f);
	if (!uw2_cache_get(w, addr))
		return false;
	w->cache->counts.ra_misses++;
	sh = w->cache->fast + uw2_cache_index_ra(pc);
	tag = uw2_fast_tag(pc | 1, w->cache->gen);
	return sh->tag == tag || sh[1].tag == tag;
}

/*
 * uw2_walk_run() on, from each miss it can look up itself
 * (uw2_walk_fill()), until it ends or leaves a frame to uw2_step().
 */
static __always_inline enum uw2_stop
uw2_walk_runs(struct uw2_walk *w, struct uw2_regs *regs, u32 *frames, u32 *n,
	      u32 max, const bool copy, const bool direct, const bool track)
{
	enum uw2_stop stop;

	do {
		stop = uw2_walk_run(w, regs, frames, n, max, copy, direct,
				    track);
	} while (stop == UW2_STEP_FILL && uw2_walk_fill(w, regs->r[UW2_PC]));
	return stop == UW2_STEP_FILL ? UW2_STEP_MORE : stop;
}

/*
 * The lookups the caller loop made, all hits: one for each frame it
 * unwound (@stored of them stored) and, when it ended the walk
 * (UW2_STOP_ROOT, or UW2_STOP_MAX_DEPTH with a frame that did not fit),
 * one more.  A frame it left to uw2_step() is looked up there.
 */
static void uw2_count_loop(struct uw2_cache_counts *n, u32 stored,
			   enum uw2_stop stop)
{
	n->ra_loop += stored + (stop != UW2_STEP_MORE);
}

/*
 * The caller loop, compiled with the register copies and without (and,
 * with direct loads, without them but keeping r11, for the frames of JIT
 * code: UW2_F_JIT).  Inline in its one caller: a call costs a sample more
 * than the loop's frames.
 */
static __always_inline enum uw2_stop
uw2_walk_fast(struct uw2_walk *w, struct uw2_regs *regs, u32 *frames, u32 *n,
	      u32 max)
{
	u32 pc = regs->r[UW2_PC], sp = regs->r[UW2_SP], n0 = *n;
	u32 fp = regs->r[UW2_FP];
	bool direct = w->stack->direct;
	enum uw2_stop stop;

	/* only entries of a gen, trusted without the module array */
	if (!w->stack->view || !w->cache->gen ||
	    (w->flags & UW2_F_CHROME_COMPAT) || sp > UW2_FAST_HI)
		return UW2_STEP_MORE;
	if (!(w->flags & UW2_F_FRAMES_ONLY)) {
		stop = uw2_walk_runs(w, regs, frames, n, max, true, false,
				     false);
	} else {
		if (direct && (w->flags & UW2_F_JIT))
			stop = uw2_walk_runs(w, regs, frames, n, max, false,
					     true, true);
		else if (direct)
			stop = uw2_walk_runs(w, regs, frames, n, max, false,
					     true, false);
		else
			stop = uw2_walk_runs(w, regs, frames, n, max, false,
					     false, false);
		if (stop == UW2_STEP_COPY ||
		    (stop == UW2_STEP_MORE && regs->r[UW2_SP] != sp)) {
			/* the same frames again (or fewer), same cache */
			regs->r[UW2_PC] = pc;
			regs->r[UW2_SP] = sp;
			regs->r[UW2_FP] = fp;
			*n = n0;
			if (direct)
				stop = uw2_walk_runs(w, regs, frames, n, max,
						     true, true, false);
			else
				stop = uw2_walk_runs(w, regs, frames, n, max,
						     true, false, false);
		}
	}
	uw2_count_loop(&w->cache->counts, *n - n0, stop);
	return stop;
}

#ifndef __KERNEL__
enum uw2_stop uw2_unwind(const struct uw2_module *mods, u32 nmods,
			 struct uw2_regs *regs, const struct uw2_stack *stack,
			 u32 *frames, u32 max_frames, u32 *nframes,
			 unsigned int flags)
{
	return uw2_unwind_cached(mods, nmods, regs, stack, frames, max_frames,
				 nframes, flags, NULL);
}
#endif

enum uw2_stop uw2_unwind_cached(const struct uw2_module *mods, u32 nmods,
				struct uw2_regs *regs,
				const struct uw2_stack *stack, u32 *frames,
				u32 max_frames, u32 *nframes,
				unsigned int flags, struct uw2_cache *cache)
{
	/* every member named: no memset before the stores */
	struct uw2_walk w = {
		.mods = mods, .nmods = nmods, .stack = stack, .flags = flags,
		.first_pc = regs->r[UW2_PC], .frame_sp = regs->r[UW2_SP],
		.first_func = 0, .steps = UW2_SAMPLE_STEPS, .cache = cache,
		.last_mod = NULL,
	};
	struct uw2_regs sampled __uninitialized;	/* set at n == 0 */
	enum uw2_stop stop;
	u32 n = 0, kept = 0, stale = 0;

	/*
	 * Ends: every frame but a leaf raises sp by at least 8 and sp never
	 * passes stack->hi, and the frame array bounds the rest.
	 */
	for (;;) {
		if (n == max_frames) {
			stop = UW2_STOP_MAX_DEPTH;
			break;
		}
		if (!n)
			sampled = *regs;
		else if (n == 1)
			kept = frames[1];	/* a stale frame leaves no trace */
		frames[n++] = regs->r[UW2_PC];
		if (n > 1 && cache) {
			stop = uw2_walk_fast(&w, regs, frames, &n, max_frames);
			if (stop != UW2_STEP_MORE)
				break;
		}
		stop = uw2_step(&w, regs, n);
		if (stop == UW2_STEP_STALE) {
			frames[--n] = kept;
			*regs = sampled;
			stop = UW2_STOP_NORETURN;
			stale = 1;	/* looked up all the same */
		}
		if (stop != UW2_STEP_MORE)
			break;
		w.frame_sp = regs->r[UW2_SP];
	}
	/* every frame stored was looked up once, the first as a sampled pc */
	if (cache) {
		cache->counts.walks += n != 0;
		cache->counts.lookups += n + stale;
	}
	*nframes = n;
	return stop;
}

#ifndef __KERNEL__
const char *uw2_stop_name(enum uw2_stop stop)
{
	static const char *const names[UW2_STOP_COUNT] = {
		[UW2_STOP_ROOT] = "root",
		[UW2_STOP_NO_TABLE] = "no-table",
		[UW2_STOP_REFUSED] = "refused",
		[UW2_STOP_BAD_SP] = "bad-sp",
		[UW2_STOP_NO_PROGRESS] = "no-progress",
		[UW2_STOP_READ_FAULT] = "read-fault",
		[UW2_STOP_BAD_OPCODE] = "bad-opcode",
		[UW2_STOP_MAX_DEPTH] = "max-depth",
		[UW2_STOP_NORETURN] = "noreturn",
		[UW2_STOP_BUDGET] = "budget",
		[UW2_STOP_JIT_CHAIN] = "jit-chain",
	};

	if ((u32)stop >= UW2_STOP_COUNT)
		return "unknown";
	return names[stop];
}

const char *uw2_frames_name(enum uw2_frames frames)
{
	static const char *const names[UW2_FRAMES_COUNT] = {
		[UW2_FRAMES_TABLE] = "table",
		[UW2_FRAMES_V8_ARM] = "v8-arm",
	};

	return (u32)frames < UW2_FRAMES_COUNT ? names[frames] : NULL;
}
#endif
