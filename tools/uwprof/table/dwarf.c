// SPDX-License-Identifier: GPL-2.0
/*
 * DWARF CFI through libdw.  FDEs are enumerated with dwarf_next_cfi on the
 * raw sections; each FDE's rows are then walked with dwarf_cfi_addrframe,
 * whose dwarf_frame_info range says where the next row starts.  libdw
 * evaluates the CIE, the FDE and the ARM ABI's initial rules, so uwprof
 * sees the same state a DWARF unwinder would.
 *
 * Rows are stored as deltas (rules that changed since the previous row),
 * like breakpad's, so --chrome-compat treats both inputs the same.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include "lib/ehabi.h"
#include "table/elf.h"
#include "table/spans.h"

/* libdw's answer for one register as a tb_rule. */
static struct tb_rule reg_rule(Dwarf_Frame *fr, int regno)
{
	struct tb_rule r = { TB_R_EXPR, 0, 0 };
	Dwarf_Op mem[3], *ops;
	size_t n;

	if (dwarf_frame_register(fr, regno, mem, &ops, &n))
		return r;
	if (!n) {
		/* No ops: NULL means same value, ops_mem means undefined. */
		r.kind = ops ? TB_R_UNDEF : TB_R_SAME;
		return r;
	}
	if (ops[0].atom == DW_OP_call_frame_cfa) {
		bool val = ops[n - 1].atom == DW_OP_stack_value;
		size_t k = n - val;

		if (k == 1 || (k == 2 && ops[1].atom == DW_OP_plus_uconst)) {
			r.kind = val ? TB_R_VAL_OFFSET : TB_R_OFFSET;
			r.off = k == 2 ? (s32)ops[1].number : 0;
		}
		return r;
	}
	if (n == 1 && ops[0].atom == DW_OP_regx && ops[0].number < 16) {
		r.kind = ops[0].number == (Dwarf_Word)regno ? TB_R_SAME : TB_R_REG;
		r.reg = ops[0].number;
	}
	return r;
}

/* The full state at one row. */
static void frame_state(Dwarf_Frame *fr, struct tb_row *st)
{
	Dwarf_Op *ops;
	size_t n;

	memset(st, 0, sizeof(*st));
	st->cfa_kind = TB_CFA_EXPR;
	if (!dwarf_frame_cfa(fr, &ops, &n) && n == 1 &&
	    ops[0].atom == DW_OP_bregx && ops[0].number < 16) {
		st->cfa_kind = TB_CFA_REG;
		st->cfa_reg = ops[0].number;
		st->cfa_off = (s32)ops[0].number2;
	}
	/* r13 is always "CFA" and r15 is the return address column's copy. */
	for (int r = 0; r < 13; r++)
		st->r[r] = reg_rule(fr, r);
	st->r[TB_RA] = reg_rule(fr, 14);
	for (int d = 0; d < 32; d++)
		st->r[TB_D0 + d] = reg_rule(fr, 256 + d);
	/* Caller-saved registers the ABI leaves undefined are not news. */
	for (int r = 0; r < 13; r++)
		if (st->r[r].kind == TB_R_UNDEF)
			st->r[r].kind = TB_R_UNSET;
	for (int d = 0; d < 32; d++)
		if (st->r[TB_D0 + d].kind == TB_R_UNDEF ||
		    st->r[TB_D0 + d].kind == TB_R_SAME)
			st->r[TB_D0 + d].kind = TB_R_UNSET;
}

static bool rule_eq(const struct tb_rule *a, const struct tb_rule *b)
{
	return a->kind == b->kind && a->reg == b->reg && a->off == b->off;
}

/* The delta from @prev to @st, as breakpad would print it. */
static void delta(const struct tb_row *prev, const struct tb_row *st,
		  struct tb_row *out, bool first)
{
	memset(out, 0, sizeof(*out));
	out->addr = st->addr;
	if (first || st->cfa_kind != prev->cfa_kind ||
	    st->cfa_reg != prev->cfa_reg || st->cfa_off != prev->cfa_off) {
		out->cfa_kind = st->cfa_kind;
		out->cfa_reg = st->cfa_reg;
		out->cfa_off = st->cfa_off;
	}
	for (int i = 0; i < TB_NREGS; i++) {
		const struct tb_rule *a = &prev->r[i], *b = &st->r[i];

		if (first) {
			if (b->kind != TB_R_SAME && b->kind != TB_R_UNSET)
				out->r[i] = *b;
		} else if (!rule_eq(a, b)) {
			out->r[i] = *b;
			if (b->kind == TB_R_UNSET)
				out->r[i].kind = TB_R_SAME;
		}
	}
	/* The entry row names the return address, as ".ra: lr". */
	if (first && (st->r[TB_RA].kind == TB_R_SAME)) {
		out->r[TB_RA].kind = TB_R_REG;
		out->r[TB_RA].reg = 14;
	}
}

/*
 * The rows of [@lo, @hi).  Each row after the first needs an advance
 * instruction of at least a byte among the FDE's @insn_bytes, so a walk
 * past that many rows is of a malformed FDE (a range of 4 GiB gave libdw
 * rows a few bytes long: gigabytes of rows).
 */
static int walk_fde(Dwarf_CFI *cfi, u32 lo, u32 hi, u32 insn_bytes,
		    struct tb_cfi_func *f)
{
	struct tb_row prev, st;
	u32 addr = lo;

	memset(&prev, 0, sizeof(prev));
	while (addr < hi) {
		Dwarf_Frame *fr;
		Dwarf_Addr s, e;
		struct tb_row *row;

		if (f->nrows > insn_bytes)
			return -1;
		if (dwarf_cfi_addrframe(cfi, addr, &fr))
			return f->nrows ? 0 : -1;
		dwarf_frame_info(fr, &s, &e, NULL);
		frame_state(fr, &st);
		free(fr);
		st.addr = addr;
		row = tb_func_add_row(f);
		if (!row)
			return -1;
		delta(&prev, &st, row, addr == lo);
		prev = st;
		if (e <= addr)
			break;
		addr = e;
	}
	return 0;
}

/* Decode an FDE's initial location and range (.debug_frame: absolute
 * u32; .eh_frame: the CIE's 'R' encoding, of which ARM uses pcrel/sdata4
 * or absolute). */
static bool fde_range(const Dwarf_CFI_Entry *ent, const u8 *cie_aug_enc,
		      bool eh, u32 sec_addr, const u8 *sec_base, u32 *lo,
		      u32 *hi)
{
	const u8 *p = ent->fde.start;
	u32 loc, range;
	u8 enc = eh && cie_aug_enc ? *cie_aug_enc : DW_EH_PE_absptr;

	if (ent->fde.end - p < 8)
		return false;
	memcpy(&loc, p, 4);
	memcpy(&range, p + 4, 4);
	if ((enc & 0x70) == DW_EH_PE_pcrel)
		loc += sec_addr + (u32)(p - sec_base);
	if ((enc & 0x0f) != DW_EH_PE_absptr && (enc & 0x0f) != DW_EH_PE_udata4 &&
	    (enc & 0x0f) != DW_EH_PE_sdata4)
		return false;
	*lo = loc & ~1u;
	*hi = *lo + range;
	return true;
}

/*
 * ARM's DWARF register numbers end at 287 (d31).  libdw sizes a frame's
 * state by the largest register its instructions name, so a crafted
 * number (DW_CFA_register r238942451) would take gigabytes.
 */
#define TB_DWARF_MAX_REG	1023

/* Skip the ULEBs (or SLEBs) at @b[*@pos]; the last one's value, if
 * 32 bits hold it, in @val. */
static bool skip_lebs(const u8 *b, u32 len, u32 *pos, int n, u32 *val)
{
	u32 v = 0;

	while (n--)
		if (uw_uleb(b, len, pos, &v) != UW_ULEB_OK)
			return false;
	if (val)
		*val = v;
	return true;
}

/*
 * Every register the call frame instructions @b[0, @len) name is a
 * plausible one, and every instruction is whole.  An encoded address
 * (DW_CFA_set_loc, which no ARM compiler emits) is refused: its size is
 * the pointer encoding's, and the check cannot stop there, or a register
 * after it would reach libdw unchecked.
 */
static bool cfa_insns_sane(const u8 *b, u32 len)
{
	u32 pos = 0, reg, blk;

	while (pos < len) {
		u8 op = b[pos++];
		bool ok = true;

		reg = 0;
		switch (op >> 6) {
		case 1:				/* advance_loc */
			continue;
		case 2:				/* offset: reg, ULEB */
			ok = skip_lebs(b, len, &pos, 1, NULL);
			continue;
		case 3:				/* restore */
			continue;
		}
		switch (op) {
		case DW_CFA_nop: case DW_CFA_remember_state:
		case DW_CFA_restore_state:
			break;
		case DW_CFA_set_loc:
			return false;
		case DW_CFA_advance_loc1: case DW_CFA_advance_loc2:
		case DW_CFA_advance_loc4:
			pos += op == DW_CFA_advance_loc1 ? 1 :
			       op == DW_CFA_advance_loc2 ? 2 : 4;
			ok = pos <= len;
			break;
		case DW_CFA_def_cfa_offset: case DW_CFA_def_cfa_offset_sf:
		case DW_CFA_GNU_args_size:
			ok = skip_lebs(b, len, &pos, 1, NULL);
			break;
		case DW_CFA_restore_extended: case DW_CFA_undefined:
		case DW_CFA_same_value: case DW_CFA_def_cfa_register:
			ok = skip_lebs(b, len, &pos, 1, &reg);
			break;
		case DW_CFA_offset_extended: case DW_CFA_def_cfa:
		case DW_CFA_offset_extended_sf: case DW_CFA_def_cfa_sf:
		case DW_CFA_val_offset: case DW_CFA_val_offset_sf:
		case DW_CFA_GNU_negative_offset_extended:
			ok = skip_lebs(b, len, &pos, 1, &reg) &&
			     skip_lebs(b, len, &pos, 1, NULL);
			break;
		case DW_CFA_register:
			ok = skip_lebs(b, len, &pos, 1, &reg) && reg <= TB_DWARF_MAX_REG &&
			     skip_lebs(b, len, &pos, 1, &reg);
			break;
		case DW_CFA_def_cfa_expression:
			ok = skip_lebs(b, len, &pos, 1, &blk) && blk <= len - pos;
			pos += ok ? blk : 0;
			break;
		case DW_CFA_expression: case DW_CFA_val_expression:
			ok = skip_lebs(b, len, &pos, 1, &reg) &&
			     skip_lebs(b, len, &pos, 1, &blk) && blk <= len - pos;
			pos += ok ? blk : 0;
			break;
		default:
			return false;
		}
		if (!ok || reg > TB_DWARF_MAX_REG)
			return false;
	}
	return true;
}

/*
 * The instructions of an FDE and of its CIE are sane (cfa_insns_sane):
 * the FDE's follow its two 4-byte address words (fde_range() takes no
 * other size) and, with a 'z' augmentation, its augmentation data.
 */
static bool fde_insns_sane(const Dwarf_CFI_Entry *fde, const Dwarf_CIE *cie)
{
	const u8 *p = fde->fde.start + 8;
	u32 len = fde->fde.end - p, pos = 0, aug;

	if (!cfa_insns_sane(cie->initial_instructions,
			    cie->initial_instructions_end -
			    cie->initial_instructions))
		return false;
	if (cie->augmentation && cie->augmentation[0] == 'z') {
		if (!skip_lebs(p, len, &pos, 1, &aug) || aug > len - pos)
			return false;
		pos += aug;
	}
	return cfa_insns_sane(p + pos, len - pos);
}

/* The 'R' augmentation byte of a CIE, if it has one. */
static const u8 *cie_r_encoding(const Dwarf_CIE *cie)
{
	const char *a = cie->augmentation;
	const u8 *d = cie->augmentation_data;

	if (!a || a[0] != 'z')
		return NULL;
	for (a++; *a; a++) {
		switch (*a) {
		case 'R':
			return d;
		case 'L':
			d++;
			break;
		case 'P':
			return NULL;	/* skipping an encoded pointer: rare */
		default:
			return NULL;
		}
	}
	return NULL;
}

/*
 * The section's bytes, decompressed when SHF_COMPRESSED (Debian's debug
 * files compress .debug_frame; dwarf_next_cfi wants the plain bytes).
 */
static Elf_Data *section_data(Elf *elf, const char *secname, u32 *addr)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	const char *name;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = tb_elf_next_named(elf, shstrndx, scn, &sh, &name))) {
		if (strcmp(name, secname) || sh.sh_type == SHT_NOBITS)
			continue;
		if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
			return NULL;
		*addr = sh.sh_addr;
		return elf_getdata(scn, NULL);
	}
	return NULL;
}

/*
 * The entry at *@off, moving *@off past it: 1 for an FDE with its CIE and
 * a range to take (@lo, @hi), 0 for anything else, -1 past the last.
 */
static int next_fde(const u8 *ident, Elf_Data *d, bool eh, u32 sec_addr,
		    Dwarf_Off *off, Dwarf_CFI_Entry *ent, Dwarf_CFI_Entry *cie,
		    u32 *lo, u32 *hi)
{
	const u8 *renc = NULL;
	Dwarf_Off next, cnext;

	if (dwarf_next_cfi(ident, d, eh, *off, &next, ent))
		return -1;
	*off = next;
	if (dwarf_cfi_cie_p(ent))
		return 0;
	if (dwarf_next_cfi(ident, d, eh, ent->fde.CIE_pointer, &cnext, cie) ||
	    !dwarf_cfi_cie_p(cie))
		return 0;	/* an FDE without its CIE */
	if (eh)
		renc = cie_r_encoding(&cie->cie);
	if (!fde_range(ent, renc, eh, sec_addr, d->d_buf, lo, hi))
		return 0;
	return *lo && *hi > *lo;	/* else discarded code */
}

/*
 * The ranges of the FDEs whose instructions are not sane: libdw finds an
 * FDE by address, so for an address one of them also covers it may run
 * that one's instructions while another FDE is walked.
 */
static int bad_fde_spans(const u8 *ident, Elf_Data *d, bool eh,
			 u32 sec_addr, struct tb_spans *bad)
{
	struct tb_input in = { 0 };
	Dwarf_CFI_Entry ent, cie;
	Dwarf_Off off = 0;
	struct tb_cfi_func *f;
	u32 lo, hi;
	int r;

	while (off < d->d_size &&
	       (r = next_fde(ident, d, eh, sec_addr, &off, &ent, &cie, &lo,
			     &hi)) >= 0) {
		if (!r || fde_insns_sane(&ent, &cie.cie))
			continue;
		f = tb_input_add(&in);
		if (!f) {
			tb_input_free(&in);
			return -1;
		}
		f->addr = lo;
		f->size = hi - lo;
	}
	r = tb_spans_init(bad, &in, 0, in.n);
	tb_input_free(&in);
	return r;
}

/* Where one section's FDEs go: earlier functions [skip_from, skip_to) win. */
struct cfi_src {
	Elf *elf;
	const char *secname;
	bool eh;
	u8 source;
	Dwarf_CFI *cfi;
	u32 skip_from, skip_to;
};

static int read_section(const struct cfi_src *cs, struct tb_input *in,
			char *err, size_t errlen)
{
	Elf_Data *d;
	u32 sec_addr = 0;
	Dwarf_Off off;
	int added = 0;
	GElf_Ehdr eh_mem;
	u8 ident[EI_NIDENT];
	bool eh = cs->eh;
	struct tb_spans earlier, bad;

	d = section_data(cs->elf, cs->secname, &sec_addr);
	if (!d || !cs->cfi)
		return 0;
	if (tb_spans_init(&earlier, in, cs->skip_from, cs->skip_to)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	gelf_getehdr(cs->elf, &eh_mem);
	memcpy(ident, eh_mem.e_ident, EI_NIDENT);
	if (bad_fde_spans(ident, d, eh, sec_addr, &bad)) {
		tb_spans_free(&earlier);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (off = 0; off < d->d_size;) {
		Dwarf_CFI_Entry ent, cie;
		struct tb_cfi_func *f;
		u32 lo, hi;
		int r = next_fde(ident, d, eh, sec_addr, &off, &ent, &cie, &lo,
				 &hi);

		if (r < 0)
			break;
		if (!r)
			continue;
		/* An earlier source wins for the same code. */
		if (tb_spans_cover_end(&earlier, lo, NULL))
			continue;
		f = tb_input_add(in);
		if (!f) {
			snprintf(err, errlen, "out of memory");
			tb_spans_free(&earlier);
			return -1;
		}
		f->addr = lo;
		f->size = hi - lo;
		f->source = cs->source;
		/* an insane FDE is among @bad, as it overlaps itself */
		if (tb_spans_overlap(&bad, lo, hi) ||
		    walk_fde(cs->cfi, lo, hi,
			     (u32)(ent.fde.end - ent.fde.start), f)) {
			/* malformed, or libdw could not evaluate it: keep
			 * it out, noted by the caller as an empty function */
			f->nrows = 0;
		}
		added++;
	}
	tb_spans_free(&earlier);
	tb_spans_free(&bad);
	return added;
}

/* The separate debug file's .debug_frame, before the ELF's own CFI. */
static int read_debug_file(struct tb_elf *e, struct tb_input *in, char *err,
			   size_t errlen)
{
	struct cfi_src cs = { e->dbg_elf, ".debug_frame", false,
			      TB_SRC_DEBUG_FILE, NULL, 0, 0 };
	int n;

	if (!e->dbg_elf)
		return 0;
	e->dbg_dwarf = dwarf_begin_elf(e->dbg_elf, DWARF_C_READ, NULL);
	if (e->dbg_dwarf)
		cs.cfi = dwarf_getcfi(e->dbg_dwarf);
	n = read_section(&cs, in, err, errlen);
	if (n > 0)
		e->meta.sources |= UWT_SRC_DEBUG_FILE;
	return n;
}

int tb_read_dwarf(struct tb_elf *e, struct tb_input *in, char *err,
		  size_t errlen)
{
	struct cfi_src cs;
	Dwarf_CFI *ehcfi;
	int a, b, c;

	c = read_debug_file(e, in, err, errlen);
	if (c < 0)
		return -1;
	e->dwarf = dwarf_begin_elf(e->elf, DWARF_C_READ, NULL);
	cs = (struct cfi_src){ e->elf, ".debug_frame", false,
			       TB_SRC_DEBUG_FRAME,
			       e->dwarf ? dwarf_getcfi(e->dwarf) : NULL, 0,
			       in->n };
	a = read_section(&cs, in, err, errlen);
	if (a < 0)
		return -1;
	if (a)
		e->meta.sources |= UWT_SRC_DEBUG_FRAME;
	ehcfi = dwarf_getcfi_elf(e->elf);
	cs = (struct cfi_src){ e->elf, ".eh_frame", true, TB_SRC_EH_FRAME,
			       ehcfi, 0, in->n };
	b = read_section(&cs, in, err, errlen);
	if (ehcfi)
		dwarf_cfi_end(ehcfi);
	if (b < 0)
		return -1;
	if (b)
		e->meta.sources |= UWT_SRC_EH_FRAME;
	return a + b + c;
}
