// SPDX-License-Identifier: GPL-2.0
/*
 * From CFI rows to (offset, complete sequence) pairs.
 *
 * Two conversions live here.  The Chrome-compatible one reproduces the
 * action model of FORMAT-v2.md §5.2-5.4 bit for bit: each row becomes an
 * action relative to the previous row, a row's complete sequence is its
 * action followed by every earlier action, and everything from the first
 * epilogue on is dropped.  The default one accumulates the rows into full
 * CFI states and encodes each state on its own, so epilogues, r0-r3 and
 * VFP saves, vsp = r[n] with any offset and large frames come out exact.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "table/table.h"

static const char *const reason_names[TB_N_COUNT][2] = {
	[TB_N_CFA_EXPR] = { "cfa-expr", "CFA is a DWARF expression" },
	[TB_N_CFA_REG] = { "cfa-reg", "CFA based on a register vsp cannot start from" },
	[TB_N_RA_LOC] = { "ra-location", "return address neither in lr nor on the stack" },
	[TB_N_SAVE_BELOW] = { "save-below-sp", "register saved below the frame's base" },
	[TB_N_SAVE_ABOVE] = { "save-above-cfa", "register saved at or above the CFA" },
	[TB_N_SP_SAVED] = { "sp-saved", "sp saved on the stack" },
	[TB_N_SLOT_CLASH] = { "slot-clash", "two registers saved in overlapping slots" },
	[TB_N_REG_LOST] = { "reg-not-restored", "callee-saved register kept in a register or computed; not restored (rows kept)" },
	[TB_N_SEQ_LONG] = { "seq-too-long", "unwind sequence longer than 64 bytes" },
	[TB_N_NO_INIT] = { "no-entry-rule", "no rule for the entry state" },
	[TB_N_OVERLAP] = { "overlap", "overlaps an earlier function (dropped)" },
	[TB_N_OUTSIDE_TEXT] = { "outside-text", "outside .text (dropped)" },
	[TB_N_EMPTY] = { "empty", "size 0 or no usable row (dropped)" },
	[TB_N_EPILOGUE] = { "epilogue-dropped", "--chrome-compat: rows from the first epilogue on dropped" },
	[TB_N_UNPARSED] = { "row-unparsed", "--chrome-compat: no Chrome row parser accepts the row (skipped)" },
	[TB_N_EHABI_BAD] = { "ehabi-undecodable", "EHABI entry that cannot be decoded (refused)" },
	[TB_N_PROLOGUE] = { "prologue-refused", "--prologue-analysis could not justify rules (still refused)" },
	[TB_N_CFI_WRONG] = { "cfi-wrong", "--prologue-analysis: CFI the instructions contradict (analysed rows used)" },
	[TB_N_CFI_PATCHED] = { "cfi-patched", "--prologue-analysis: CFI the instructions contradict where the analysis assumed states: analysed rows where it follows from agreeing rows, else refused there; the CFI elsewhere" },
	[TB_N_PLT] = { "plt-undecoded", "PLT code that is not a known stub form (refused from there on)" },
	[TB_N_EHABI_REFUSE] = { "ehabi-cantunwind", "EHABI says CANTUNWIND or refuse (refused)" },
	[TB_N_ROWS_MAX] = { "rows-max", "more than 4096 unwind rows, the most a FOT list may hold (refused)" },
	[TB_N_EHABI_UNPROVEN] = { "ehabi-unproven", "EHABI-only function whose prologue or epilogues do not match its opcodes (refused)" },
};

const char *tb_reason_name(enum tb_reason r)
{
	return r < TB_N_COUNT ? reason_names[r][0] : "?";
}

const char *tb_reason_text(enum tb_reason r)
{
	return r < TB_N_COUNT ? reason_names[r][1] : "?";
}

void tb_note_add(struct tb_notes *notes, u32 func, u32 addr,
		 enum tb_reason reason, const char *fmt, ...)
{
	struct tb_note *n;
	va_list ap;

	if (!notes)
		return;
	if (notes->n == notes->cap) {
		u32 cap = notes->cap ? notes->cap * 2 : 64;
		struct tb_note *v = realloc(notes->v, cap * sizeof(*v));

		if (!v)
			return;
		notes->v = v;
		notes->cap = cap;
	}
	n = &notes->v[notes->n++];
	n->func = func;
	n->addr = addr;
	n->reason = reason;
	va_start(ap, fmt);
	vsnprintf(n->detail, sizeof(n->detail), fmt, ap);
	va_end(ap);
}

/* ---------------------------- Chrome mode ---------------------------- */

static int act_cmp_desc(const void *a, const void *b)
{
	const struct tb_action *x = a, *y = b;

	return x->off < y->off ? 1 : x->off > y->off ? -1 : 0;
}

bool tb_complete_seqs(struct tb_action *acts, u32 n, struct tb_pair *pairs)
{
	struct tb_seq tail = { 0 };

	qsort(acts, n, sizeof(*acts), act_cmp_desc);
	/* Build from the offset-0 end: each sequence is its action + tail. */
	for (u32 i = n; i-- > 0;) {
		struct tb_seq s = { 0 };

		if (!tb_enc_action(&acts[i], &s) ||
		    !tb_seq_put(&s, tail.b, tail.len))
			return false;
		pairs[i].off = acts[i].off;
		pairs[i].seq = s;
		tail = s;
	}
	return true;
}

static bool rule_is_cfa_slot(const struct tb_rule *r)
{
	return r->kind == TB_R_OFFSET;
}

int tb_compat_parse_row(const struct tb_row *row, u32 func_addr, s32 *cfa,
			struct tb_action *act, bool *epilogue)
{
	const struct tb_rule *ra = &row->r[TB_RA];
	bool has_core = false, has_vfp = false, core_ok = true, vfp_ok = true;
	bool sp_cfa = row->cfa_kind == TB_CFA_REG && row->cfa_reg == 13;
	s32 new_cfa = *cfa;
	u32 regs = 0;

	memset(act, 0, sizeof(*act));
	act->off = row->addr - func_addr;
	*epilogue = false;
	if (row->compat_unparsable || row->cfa_kind == TB_CFA_EXPR)
		return 0;
	for (int i = 0; i < 16; i++) {
		if (row->r[i].kind == TB_R_UNSET)
			continue;
		has_core = true;
		core_ok &= rule_is_cfa_slot(&row->r[i]);
		if (i >= 4)
			regs |= 1u << i;
	}
	for (int i = TB_D0; i < TB_D0 + 32; i++) {
		if (row->r[i].kind == TB_R_UNSET)
			continue;
		has_vfp = true;
		vfp_ok &= rule_is_cfa_slot(&row->r[i]);
	}

	/* 1. ".cfa: sp 0 + .ra: lr" exactly. */
	if (sp_cfa && row->cfa_off == 0 && ra->kind == TB_R_REG &&
	    ra->reg == 14 && !has_core && !has_vfp) {
		act->kind = TB_A_RETURN_TO_LR;
		new_cfa = 0;
		goto done;
	}
	/* 2. Optional sp CFA, optional .ra slot, then rN slots. */
	if ((row->cfa_kind == TB_CFA_UNSET || sp_cfa) && !has_vfp && core_ok &&
	    (ra->kind == TB_R_UNSET || ra->kind == TB_R_OFFSET)) {
		s32 sp = 0;

		if (ra->kind == TB_R_OFFSET)
			regs |= 1u << 14;
		if (sp_cfa) {
			sp = row->cfa_off - *cfa;
			new_cfa = row->cfa_off;
		}
		if (sp >= 4 * __builtin_popcount(regs))
			sp -= 4 * __builtin_popcount(regs);
		act->kind = TB_A_UPDATE_SP_POP;
		act->sp = sp;
		act->regs = regs;
		goto done;
	}
	/* 3. ".cfa: rK N +" and nothing else. */
	if (row->cfa_kind == TB_CFA_REG && !sp_cfa && !has_core && !has_vfp &&
	    ra->kind == TB_R_UNSET) {
		act->kind = TB_A_RESTORE_SP;
		act->reg = row->cfa_reg;
		act->sp = row->cfa_off - *cfa;
		*cfa = row->cfa_off;
		return 1;
	}
	/* 4. Optional sp CFA, then VFP slots only: a plain vsp skip. */
	if ((row->cfa_kind == TB_CFA_UNSET || sp_cfa) && has_vfp && vfp_ok &&
	    !has_core && ra->kind == TB_R_UNSET) {
		if (sp_cfa) {
			act->kind = TB_A_UPDATE_SP_POP;
			act->sp = row->cfa_off - *cfa;
			new_cfa = row->cfa_off;
		} else {
			act->kind = TB_A_NO_ACTION;
		}
		goto done;
	}
	return 0;
done:
	*epilogue = new_cfa < *cfa;
	*cfa = new_cfa;
	return 1;
}

int tb_convert_compat(const struct tb_cfi_func *f, struct tb_func *out,
		      struct tb_notes *notes, char *err, size_t errlen)
{
	struct tb_action *acts;
	struct tb_rows_it it;
	const struct tb_row *row;
	u32 n = 0;
	s32 cfa = 0;

	memset(out, 0, sizeof(*out));
	acts = calloc(f->nrows ? f->nrows : 1, sizeof(*acts));
	if (!acts) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	tb_rows_begin(&it, f);
	for (u32 i = 0; (row = tb_rows_next(&it)); i++) {
		bool epi;

		if (!tb_compat_parse_row(row, f->addr, &cfa, &acts[n], &epi)) {
			tb_note_add(notes, f->addr, row->addr,
				    TB_N_UNPARSED, "row skipped");
			continue;
		}
		if (epi) {
			tb_note_add(notes, f->addr, row->addr,
				    TB_N_EPILOGUE, "%u rows dropped",
				    f->nrows - i);
			break;
		}
		n++;
	}
	if (!n) {
		free(acts);
		tb_note_add(notes, f->addr, f->addr, TB_N_EMPTY, "no action");
		return 0;
	}
	out->pairs = calloc(n, sizeof(*out->pairs));
	if (!out->pairs || !tb_complete_seqs(acts, n, out->pairs) ||
	    acts[n - 1].off != 0 || acts[n - 1].kind != TB_A_RETURN_TO_LR) {
		snprintf(err, errlen,
			 "function 0x%x: the first unwind action is not \"return to lr\" at offset 0, or an action cannot be encoded (Chrome's generator asserts here)",
			 f->addr);
		free(acts);
		free(out->pairs);
		out->pairs = NULL;
		return -1;
	}
	free(acts);
	out->addr = f->addr;
	out->size = f->size;
	out->npairs = n;
	out->source = f->source;
	out->name = f->name;
	return 1;
}

/* ---------------------------- full states ---------------------------- */

void tb_state_apply(struct tb_row *st, const struct tb_row *row)
{
	st->addr = row->addr;
	st->clone_r0 = row->clone_r0;
	if (row->cfa_kind != TB_CFA_UNSET) {
		st->cfa_kind = row->cfa_kind;
		st->cfa_reg = row->cfa_reg;
		st->cfa_off = row->cfa_off;
	}
	for (int i = 0; i < TB_NREGS; i++)
		if (row->r[i].kind != TB_R_UNSET)
			st->r[i] = row->r[i];
}

struct slot {
	s32 rel;		/* from the vsp base */
	u8 reg;			/* 0-15 core, TB_D0+n VFP */
};

/*
 * @v by rel, equal ones in the order given: an insertion sort, as a
 * state has a few slots (at most a register each) and every row of
 * every function is encoded (qsort() was 1.7% of tabling libc).
 */
static void sort_slots(struct slot *v, int n)
{
	for (int i = 1; i < n; i++) {
		struct slot x = v[i];
		int j = i;

		for (; j > 0 && v[j - 1].rel > x.rel; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

static u32 slot_size(const struct slot *s)
{
	return s->reg >= TB_D0 ? 8 : 4;
}

/* vsp += delta, any size or sign, in the fewest §5.3 encodings. */
static bool put_vsp(struct tb_seq *s, s32 delta)
{
	u8 b[8];
	int n;

	while (delta < -0x200) {
		n = tb_enc_sp(-0x200, b);
		if (!tb_seq_put(s, b, n))
			return false;
		delta += 0x200;
	}
	if (!delta)
		return true;
	n = tb_enc_sp(delta, b);
	return n > 0 && tb_seq_put(s, b, n);
}

/* How many slots from @i form one pop, and its bytes. */
static u32 put_group(struct tb_seq *s, const struct slot *v, u32 i, u32 n,
		     bool *ok)
{
	u32 first = v[i].reg, last = first, j = i + 1;
	u8 b[4];
	int len;

	/* Ascending registers of one class in adjacent slots. */
	while (j < n && v[j].reg == last + 1 &&
	       v[j].rel == v[j - 1].rel + (s32)slot_size(&v[j - 1]) &&
	       (first < 4) == (v[j].reg < 4) &&
	       (first >= TB_D0) == (v[j].reg >= TB_D0) &&
	       (first < TB_D0 + 16) == (v[j].reg < TB_D0 + 16)) {
		last = v[j].reg;
		j++;
	}
	if (first >= TB_D0) {
		u32 d = first - TB_D0, c = last - first;

		if (d == 8 && c < 8) {
			b[0] = 0xd0 | c;
			len = 1;
		} else {
			b[0] = d < 16 ? 0xc9 : 0xc8;
			b[1] = ((d & 15) << 4) | c;
			len = 2;
		}
	} else if (first < 4) {
		b[0] = 0xb1;
		b[1] = ((2u << last) - 1) & ~((1u << first) - 1);
		len = 2;
	} else {
		/*
		 * A pop mask is in ascending order anyway; taking a run of
		 * ascending registers keeps the addresses right even when
		 * registers are skipped (push {r4, r5, r7, lr}).
		 */
		u32 mask = 0;

		last = first;
		j = i;
		while (j < n && v[j].reg < 16 && v[j].reg >= 4 &&
		       (j == i || (v[j].reg > last &&
				   v[j].rel == v[j - 1].rel + 4))) {
			mask |= 1u << v[j].reg;
			last = v[j].reg;
			j++;
		}
		len = tb_enc_pop(mask, b);
	}
	*ok = len > 0 && tb_seq_put(s, b, len);
	return j - i;
}

static bool fail(enum tb_reason *reason, enum tb_reason r, char *detail,
		 size_t dlen, const char *what, int reg)
{
	*reason = r;
	if (reg >= 0)
		snprintf(detail, dlen, "%s %s%d", what, reg >= TB_D0 ? "d" : "r",
			 reg >= TB_D0 ? reg - TB_D0 : reg);
	else
		snprintf(detail, dlen, "%s", what);
	return false;
}

bool tb_encode_state(const struct tb_row *st, struct tb_seq *out,
		     enum tb_reason *reason, char *detail, size_t dlen,
		     u32 *lost)
{
	const struct tb_rule *ra = &st->r[TB_RA];
	struct slot v[TB_NREGS];
	u32 n = 0, i;
	s32 cur = 0;
	u8 b;

	memset(out, 0, sizeof(*out));
	*lost = 0;
	if (ra->kind == TB_R_UNDEF) {
		return tb_seq_put(out, tb_ops_root, 2);
	}
	if (ra->kind == TB_R_NORETURN) {
		return tb_seq_put(out, tb_ops_noreturn, 2);
	}
	if (ra->kind == TB_R_AMBIGUOUS) {
		return tb_seq_put(out, tb_ops_refuse, 2);
	}
	if (st->clone_r0) {
		/* first, where the unwinder takes r0 as the frame's own */
		static const u8 clone[] = { 0xb1, 0x20 };

		if (!tb_seq_put(out, clone, 2))
			goto too_long;
	}
	if (st->cfa_kind == TB_CFA_EXPR)
		return fail(reason, TB_N_CFA_EXPR, detail, dlen, "CFA", -1);
	if (st->cfa_kind != TB_CFA_REG)
		return fail(reason, TB_N_NO_INIT, detail, dlen, "no CFA rule", -1);
	if (st->cfa_reg != 13 && (st->cfa_reg < 4 || st->cfa_reg > 14))
		return fail(reason, TB_N_CFA_REG, detail, dlen, "CFA from",
			    st->cfa_reg);
	if (ra->kind == TB_R_OFFSET)
		v[n++] = (struct slot){ st->cfa_off + ra->off, 14 };
	else if (ra->kind != TB_R_UNSET && ra->kind != TB_R_SAME &&
		 !(ra->kind == TB_R_REG && ra->reg == 14))
		return fail(reason, TB_N_RA_LOC, detail, dlen, "return address",
			    -1);
	for (int r = 0; r < TB_RA; r++) {
		const struct tb_rule *rule = &st->r[r];

		if (r == 14 && ra->kind != TB_R_UNSET)
			continue;	/* lr is the return address column */
		if (rule->kind == TB_R_OFFSET) {
			if (r == 13)
				return fail(reason, TB_N_SP_SAVED, detail, dlen,
					    "sp", -1);
			v[n++] = (struct slot){ st->cfa_off + rule->off, r };
		} else if (rule->kind >= TB_R_VAL_OFFSET && r >= 4 && r <= 11) {
			*lost |= 1u << r;
		}
	}
	sort_slots(v, n);
	if (st->cfa_reg != 13) {
		b = 0x90 | st->cfa_reg;
		tb_seq_put(out, &b, 1);
	} else if (n && v[0].rel < 0) {
		return fail(reason, TB_N_SAVE_BELOW, detail, dlen, "slot of",
			    v[0].reg);
	}
	for (i = 0; i < n;) {
		bool ok;

		/* vsp = r[n] may start above the lowest slot: no clash. */
		if (i && v[i].rel < cur)
			return fail(reason, TB_N_SLOT_CLASH, detail, dlen,
				    "slot of", v[i].reg);
		if (v[i].rel + (s32)slot_size(&v[i]) > st->cfa_off)
			return fail(reason, TB_N_SAVE_ABOVE, detail, dlen,
				    "slot of", v[i].reg);
		if (!put_vsp(out, v[i].rel - cur))
			goto too_long;
		cur = v[i].rel;
		u32 k = put_group(out, v, i, n, &ok);

		if (!ok)
			goto too_long;
		cur = v[i + k - 1].rel + slot_size(&v[i + k - 1]);
		i += k;
	}
	if (!put_vsp(out, st->cfa_off - cur))
		goto too_long;
	b = 0xb0;
	if (tb_seq_put(out, &b, 1))
		return true;
too_long:
	return fail(reason, TB_N_SEQ_LONG, detail, dlen, "sequence", -1);
}

static const char *reg_list(u32 mask, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = 0;
	for (int r = 0; r < 16 && o < len; r++)
		if (mask & (1u << r))
			o += snprintf(buf + o, len - o, "%sr%d", o ? "," : "", r);
	return buf;
}

int tb_convert_full(const struct tb_cfi_func *f, struct tb_func *out,
		    struct tb_notes *notes)
{
	struct tb_row st;
	struct tb_rows_it it;
	const struct tb_row *row;
	u32 n = 0, lost_all = 0;

	memset(out, 0, sizeof(*out));
	memset(&st, 0, sizeof(st));
	if (!f->size || !f->nrows) {
		tb_note_add(notes, f->addr, f->addr, TB_N_EMPTY, "%s",
			    f->size ? "no rows" : "size 0");
		return 0;
	}
	out->pairs = calloc(f->nrows, sizeof(*out->pairs));
	if (!out->pairs)
		return 0;
	tb_rows_begin(&it, f);
	while ((row = tb_rows_next(&it))) {
		struct tb_seq s;
		enum tb_reason why;
		char detail[40];
		u32 lost;
		u32 off = row->addr - f->addr;

		if (row->addr < f->addr)
			continue;	/* rows outside the function: ignore */
		/*
		 * The table counts halfwords, and no pc lies on an odd byte:
		 * a row there (an odd advance, or a neighbour FDE's odd end)
		 * holds from the next halfword on, where a later row at the
		 * same offset replaces it below.
		 */
		off += off & 1;
		if (off >= f->size)
			continue;
		tb_state_apply(&st, row);
		if (!tb_encode_state(&st, &s, &why, detail, sizeof(detail),
				     &lost)) {
			tb_note_add(notes, f->addr, row->addr, why, "%s",
				    detail);
			memset(&s, 0, sizeof(s));
			tb_seq_put(&s, tb_ops_refuse, 2);
		}
		lost_all |= lost;
		/* A later row at the same address replaces the earlier. */
		if (n && out->pairs[n - 1].off == off)
			n--;
		/* Rows that encode the same as the previous need no pair. */
		if (n && out->pairs[n - 1].seq.len == s.len &&
		    !memcmp(out->pairs[n - 1].seq.b, s.b, s.len))
			continue;
		out->pairs[n].off = off;
		out->pairs[n].seq = s;
		n++;
	}
	if (!n || out->pairs[0].off != 0) {
		tb_note_add(notes, f->addr, f->addr, TB_N_NO_INIT,
			    "first row not at the function start");
		free(out->pairs);
		out->pairs = NULL;
		return 0;
	}
	if (lost_all) {
		char buf[48];

		tb_note_add(notes, f->addr, f->addr, TB_N_REG_LOST, "%s",
			    reg_list(lost_all, buf, sizeof(buf)));
	}
	/* held until the layout: no room for rows that gave no pair */
	if (n < f->nrows) {
		struct tb_pair *v = realloc(out->pairs, n * sizeof(*v));

		if (v)
			out->pairs = v;
	}
	/* Layout wants offsets descending. */
	for (u32 i = 0; i < n / 2; i++) {
		struct tb_pair t = out->pairs[i];

		out->pairs[i] = out->pairs[n - 1 - i];
		out->pairs[n - 1 - i] = t;
	}
	out->addr = f->addr;
	out->size = f->size;
	out->npairs = n;
	out->source = f->source;
	out->name = f->name;
	return 1;
}
