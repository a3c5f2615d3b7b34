// SPDX-License-Identifier: GPL-2.0
/*
 * Calls that never return.  A function that calls with its return
 * address still in lr (clang does this in a noreturn main, which never
 * saves lr before calling exit) loses that address to the call: it can
 * never return, so nothing above it can run again, and the live call
 * chain is complete at the call.  The unwinder cannot tell this from a
 * broken frame, so the generator proves it here, from the CFI at the call
 * and the decoded instruction, and marks the return address with the
 * never-returning-call marker (docs/TABLES.md).
 *
 * CFI alone is not proof: hand-written code states "return address in
 * lr" while it keeps lr elsewhere (glibc's getcontext stores lr in the
 * context, calls sigprocmask and loads lr back).  So a function is only
 * marked when nothing but its calls touches lr and nothing loads pc.
 */
#include <capstone/capstone.h>
#include <stdlib.h>
#include <string.h>
#include "table/elf.h"

/* One marked call: its return address. */
struct nr_site {
	u32 ret;		/* address after the call */
	struct tb_rule ra;	/* the rule the code after it keeps */
};

struct nr_sites {
	struct nr_site *v;
	u32 n, cap;
};

static int add_site(struct nr_sites *s, u32 ret, const struct tb_rule *ra)
{
	if (s->n == s->cap) {
		u32 cap = s->cap ? 2 * s->cap : 16;
		struct nr_site *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -1;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = (struct nr_site){ ret, *ra };
	return 0;
}

/* The return address is in lr: stated so, or never stated otherwise. */
static bool ra_in_lr(const struct tb_row *st)
{
	const struct tb_rule *ra = &st->r[TB_RA];

	return st->cfa_kind == TB_CFA_REG &&
	       (ra->kind == TB_R_UNSET || ra->kind == TB_R_SAME ||
		(ra->kind == TB_R_REG && ra->reg == 14));
}

struct nr_walk {
	const struct tb_cfi_func *f;
	struct tb_row st;	/* the state at the last instruction seen */
	u32 next_row;		/* rows before it are in st */
	struct nr_sites *sites;
	bool lr_used;		/* lr read or written other than by a call,
				 * or pc loaded: the function may return */
};

/* A load into pc: a return (pop {pc}, ldr pc) or a computed jump. */
static bool loads_pc(const cs_insn *in)
{
	const cs_arm *a = &in->detail->arm;

	switch (in->id) {
	case ARM_INS_LDR: case ARM_INS_POP: case ARM_INS_LDM:
	case ARM_INS_LDMDA: case ARM_INS_LDMDB: case ARM_INS_LDMIB:
		break;
	default:
		return false;
	}
	for (int i = 0; i < a->op_count; i++)
		if (a->operands[i].type == ARM_OP_REG &&
		    a->operands[i].reg == ARM_REG_PC)
			return true;
	return false;
}

/* @in reads or writes lr (not as a call), or loads pc. */
static bool uses_lr(csh cs, const cs_insn *in)
{
	const cs_arm *a = &in->detail->arm;
	cs_regs rd, wr;
	uint8_t nrd = 0, nwr = 0;

	if (in->id == ARM_INS_BL || in->id == ARM_INS_BLX)
		return false;
	if (loads_pc(in) || cs_regs_access(cs, in, rd, &nrd, wr, &nwr))
		return true;
	for (int i = 0; i < nrd; i++)
		if (rd[i] == ARM_REG_LR)
			return true;
	for (int i = 0; i < nwr; i++)
		if (wr[i] == ARM_REG_LR)
			return true;
	/* capstone 4 does not list lr for every form (bx lr, push {lr}) */
	for (int i = 0; i < a->op_count; i++)
		if (a->operands[i].type == ARM_OP_REG &&
		    a->operands[i].reg == ARM_REG_LR)
			return true;
	return false;
}

/* The CFI state at @addr (instructions come in address order). */
static const struct tb_row *state_at(struct nr_walk *w, u32 addr)
{
	while (w->next_row < w->f->nrows &&
	       w->f->rows[w->next_row].addr <= addr)
		tb_state_apply(&w->st, &w->f->rows[w->next_row++]);
	return &w->st;
}

/*
 * Decode [lo, hi) (code of one instruction set) and note its calls made
 * with the return address in lr.  Decoding stops at the first word
 * capstone rejects rather than guess where the next instruction starts.
 */
static int scan_code(csh cs, const u8 *code, u32 lo, u32 hi,
		     struct nr_walk *w, cs_insn *in)
{
	const uint8_t *p = code;
	size_t left = hi - lo;
	uint64_t at = lo;

	while (left && cs_disasm_iter(cs, &p, &left, &at, in)) {
		u32 a = (u32)in->address, ret = a + in->size;

		if (uses_lr(cs, in))
			w->lr_used = true;
		if (in->id != ARM_INS_BL && in->id != ARM_INS_BLX)
			continue;
		if (ra_in_lr(state_at(w, a)) &&
		    add_site(w->sites, ret, &w->st.r[TB_RA]))
			return -1;
	}
	return 0;
}

/* The calls of @f made with the return address in lr. */
static int find_sites(struct tb_elf *e, csh cs_arm, csh cs_thumb,
		      const struct tb_cfi_func *f, struct nr_sites *sites,
		      cs_insn *in)
{
	const struct tb_sec *sec = tb_elf_sec(e, f->addr);
	const u8 *text = sec ? tb_elf_sec_bytes(e, sec) : NULL;
	u32 end = f->addr + f->size, lo = f->addr, hi;
	struct nr_walk w = { .f = f, .sites = sites };
	u32 k;

	if (!text || end > sec->addr + sec->size)
		return 0;
	/* runs of one kind between mapping symbols */
	k = tb_elf_maps_upto(e, lo);
	while (lo < end) {
		char kind = k ? e->maps[k - 1].kind : 0;

		while (k < e->nmaps && e->maps[k].addr <= lo)
			kind = e->maps[k++].kind;
		hi = k < e->nmaps && e->maps[k].addr < end ? e->maps[k].addr : end;
		if ((kind == 'a' || kind == 't') &&
		    scan_code(kind == 't' ? cs_thumb : cs_arm,
			      text + (lo - sec->addr), lo, hi, &w, in))
			return -1;
		lo = hi;
	}
	if (w.lr_used)
		sites->n = 0;
	return 0;
}

/* Rows ordered by address; among equal ones, the later wins. */
static void put_row(struct tb_row *v, u32 *n, u32 addr,
		    const struct tb_rule *ra)
{
	memset(&v[*n], 0, sizeof(v[*n]));
	v[*n].addr = addr;
	v[*n].r[TB_RA] = *ra;
	(*n)++;
}

/*
 * Merge the marker rows into @f: at ret - 2 (where the unwinder looks a
 * return address up) the marker, at ret the rule before it again.  The
 * function's own rows at ret come after the restoring one, so they win.
 */
static int insert_rows(struct tb_cfi_func *f, const struct nr_sites *s)
{
	static const struct tb_rule mark = { .kind = TB_R_NORETURN };
	static const struct tb_rule lr = { .kind = TB_R_REG, .reg = 14 };
	struct tb_row *v = malloc((f->nrows + 2 * s->n) * sizeof(*v));
	u32 end = f->addr + f->size, n = 0, j = 0;

	if (!v)
		return -1;
	for (u32 i = 0; i < s->n; i++) {
		const struct nr_site *x = &s->v[i];

		while (j < f->nrows && f->rows[j].addr <= x->ret - 2)
			v[n++] = f->rows[j++];
		put_row(v, &n, x->ret - 2, &mark);
		while (j < f->nrows && f->rows[j].addr < x->ret)
			v[n++] = f->rows[j++];
		if (x->ret < end)
			put_row(v, &n, x->ret, x->ra.kind == TB_R_UNSET ?
				&lr : &x->ra);
	}
	while (j < f->nrows)
		v[n++] = f->rows[j++];
	free(f->rows);
	f->rows = v;
	f->nrows = n;
	return 0;
}

int tb_noreturn_pass(struct tb_elf *e, struct tb_input *in)
{
	struct nr_sites sites = { 0 };
	csh cs_arm = 0, cs_thumb = 0;
	cs_insn *insn = NULL;
	int marked = 0;

	/* Without mapping symbols neither the instruction set nor the
	 * literal pools are known: nothing can be proved. */
	if (!e->nmaps)
		return 0;
	if (cs_open(CS_ARCH_ARM, CS_MODE_ARM, &cs_arm) ||
	    cs_open(CS_ARCH_ARM, CS_MODE_THUMB, &cs_thumb))
		goto fail;
	cs_option(cs_arm, CS_OPT_DETAIL, CS_OPT_ON);
	cs_option(cs_thumb, CS_OPT_DETAIL, CS_OPT_ON);
	insn = cs_malloc(cs_arm);
	if (!insn)
		goto fail;
	for (u32 i = 0; i < in->n; i++) {
		struct tb_cfi_func *f = &in->funcs[i];
		bool packed = f->packed;

		if (!f->nrows || f->ehabi)
			continue;
		sites.n = 0;
		/* rows read and changed unpacked, kept as they came */
		if (tb_rows_unpack(f) ||
		    find_sites(e, cs_arm, cs_thumb, f, &sites, insn) ||
		    (sites.n && insert_rows(f, &sites)) ||
		    (packed && tb_rows_pack(f)))
			goto fail;
		marked += sites.n;
	}
	cs_free(insn, 1);
	cs_close(&cs_arm);
	cs_close(&cs_thumb);
	free(sites.v);
	return marked;
fail:
	if (insn)
		cs_free(insn, 1);
	if (cs_arm)
		cs_close(&cs_arm);
	if (cs_thumb)
		cs_close(&cs_thumb);
	free(sites.v);
	return -1;
}
