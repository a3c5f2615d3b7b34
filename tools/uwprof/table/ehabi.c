// SPDX-License-Identifier: GPL-2.0
/*
 * .ARM.exidx / .ARM.extab: the EHABI index, for code without DWARF CFI.
 *
 * Each index entry is (prel31 function start, word).  The word is 1 for
 * CANTUNWIND, an inline compact entry (bit 31 set, personality 0, three
 * opcode bytes), or a prel31 offset into .ARM.extab, where the entry is
 * compact (bit 31 set: PR0 with three opcodes, PR1/PR2 with a count of
 * extra words) or generic (a prel31 personality routine followed by a
 * word with the count in its top byte and three opcodes).
 *
 * The opcodes describe the function after its prologue: read here as
 * one sequence from the function start, then checked against its
 * prologue and epilogues (prologue_ehabi.c), which give the rows before
 * and after the body's, or refuse the function.
 */
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include "lib/ehabi.h"
#include "table/elf.h"
#include "table/spans.h"

static u32 rd32(const u8 *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (u32)p[3] << 24;
}

static u32 prel31(const u8 *p, u32 where)
{
	u32 v = rd32(p);

	return where + (((s32)(v << 1)) >> 1);
}

int tb_ehabi_decode(const u8 *words, u32 nwords, u8 *ops, u32 max)
{
	u32 w0 = rd32(words), extra, n = 0, i;
	int idx;

	if (!nwords)
		return -1;
	if (w0 == 1)
		return 0;
	if (!(w0 & 0x80000000u))
		return -1;	/* generic: the caller skips the personality */
	idx = (w0 >> 24) & 0xf;
	if (idx == 0) {
		extra = 0;
		for (i = 0; i < 3; i++)
			ops[n++] = w0 >> (16 - 8 * i);
	} else if (idx == 1 || idx == 2) {
		extra = (w0 >> 16) & 0xff;
		ops[n++] = w0 >> 8;
		ops[n++] = w0;
	} else {
		return -1;
	}
	if (extra + 1 > nwords || n + 4 * extra + 1 > max)
		return -1;
	for (i = 1; i <= extra; i++) {
		u32 w = rd32(words + 4 * i);

		ops[n++] = w >> 24;
		ops[n++] = w >> 16;
		ops[n++] = w >> 8;
		ops[n++] = w;
	}
	/* Trailing finishes are padding; one ends the sequence. */
	while (n && ops[n - 1] == 0xb0)
		n--;
	ops[n++] = 0xb0;
	return n;
}

/*
 * What the uwprof unwinder executes: Chrome's subset plus r0-r3 pops,
 * VFP pops and 10100nnn.  WMMX and spare encodings are refused here so
 * that a table never carries them.
 */
bool tb_ehabi_ops_ok(const u8 *ops, u32 n)
{
	struct uw_eh_op op;

	for (u32 i = 0; i < n;) {
		switch (uw_eh_next(ops, n, &i, &op)) {
		case UW_EH_FINISH:
			return i == n;
		case UW_EH_VSP_ADD:
		case UW_EH_VSP_SUB:
		case UW_EH_VSP_REG:
		case UW_EH_POP:
		case UW_EH_VPOP:
			if (op.reserved)
				return false;
			break;
		default:	/* refuse, root, noreturn: handled apart */
			return false;
		}
	}
	return false;	/* no finish */
}

static bool is_refuse(const u8 *ops, int n)
{
	return n >= 2 && ops[0] == 0x80 && ops[1] == 0x00;
}

/*
 * Code that starts a thread: the outermost frame, never unwound past.
 * The dynamic loader's _start calls _dl_start, then goes on at
 * _dl_start_user (running the constructors) with the process's first
 * stack frame.
 */
static bool is_root_sym(const char *name)
{
	return !strcmp(name, "_start") || !strcmp(name, "_dl_start_user") ||
	       tb_thread_entry_sym(name);
}

/*
 * A sizeless symbol runs to the next symbol, which in a file with .dynsym
 * alone (chromium and programs linked to export _start) lies past the
 * functions after the program's entry: crtstuff's, or every function of
 * the program.  When function discovery runs later, the entry is left to
 * it (prologue_pass.c bounds it by the starts found).
 */
static bool entry_found_later(const struct tb_elf *e, const struct tb_sym *s)
{
	return e->entry_found_later && !s->size &&
	       tb_elf_program_entry(e, s->addr);
}

static bool dwarf_covers(const struct tb_input *in, u32 ndwarf, u32 addr,
			 u32 *next)
{
	*next = UINT32_MAX;
	for (u32 i = 0; i < ndwarf; i++) {
		const struct tb_cfi_func *f = &in->funcs[i];

		if (addr >= f->addr && addr < f->addr + f->size)
			return true;
		if (f->addr > addr && f->addr < *next)
			*next = f->addr;
	}
	return false;
}

static int add_func(struct tb_input *in, u32 addr, u32 size, u8 source,
		    const u8 *ops, u32 n)
{
	struct tb_cfi_func *f = tb_input_add(in);

	if (!f || tb_func_set_ops(f, ops, n))
		return -1;
	f->addr = addr;
	f->size = size;
	f->source = source;
	return 0;
}


/* Whole root symbols found inside [lo, hi): marked root, rest refused. */
static int add_cantunwind(struct tb_elf *e, struct tb_input *in, u32 lo,
			  u32 hi)
{
	u32 at = lo;

	for (u32 i = tb_elf_first_sym(e, lo); i < e->nsyms && e->syms[i].addr < hi;
	     i++) {
		const struct tb_sym *s = &e->syms[i];
		u32 end;

		if (s->addr < at || s->addr >= hi || !is_root_sym(s->name) ||
		    entry_found_later(e, s))
			continue;
		/* A sizeless symbol (_start in crt1) runs to the next one. */
		end = hi;
		if (s->size)
			end = s->addr + s->size;
		else
			for (u32 k = i + 1; k < e->nsyms; k++)
				if (e->syms[k].addr > s->addr) {
					end = e->syms[k].addr;
					break;
				}
		if (end > hi)
			end = hi;
		if (s->addr > at &&
		    add_func(in, at, s->addr - at, TB_SRC_EHABI, tb_ops_refuse, 2))
			return -1;
		if (add_func(in, s->addr, end - s->addr, TB_SRC_ROOT, tb_ops_root, 2))
			return -1;
		at = end;
	}
	if (at < hi && add_func(in, at, hi - at, TB_SRC_EHABI, tb_ops_refuse, 2))
		return -1;
	return 0;
}

/* The end of @s: its size, or up to the next symbol when it has none. */
static u32 sym_end(const struct tb_elf *e, u32 i, u32 limit)
{
	const struct tb_sym *s = &e->syms[i];

	if (s->size)
		return s->addr + s->size;
	for (u32 k = i + 1; k < e->nsyms; k++)
		if (e->syms[k].addr > s->addr)
			return e->syms[k].addr < limit ? e->syms[k].addr : limit;
	return limit;
}

/*
 * Thread entry code with no unwind information at all (crt1's _start in a
 * static binary carries neither DWARF CFI nor an exidx entry) would fall
 * into a gap filler and unwind into garbage.  It is the outermost frame,
 * so mark it root; for a stripped binary, the ELF entry point is _start.
 */
int tb_add_uncovered_roots(struct tb_elf *e, struct tb_input *in)
{
	u32 text_end = e->meta.text_addr + e->meta.text_size, next, end;
	GElf_Ehdr eh;
	bool entry_named = false;

	for (u32 i = 0; i < e->nsyms; i++) {
		const struct tb_sym *s = &e->syms[i];

		if (!is_root_sym(s->name) || s->addr < e->meta.text_addr ||
		    s->addr >= text_end)
			continue;
		if (gelf_getehdr(e->elf, &eh) && (eh.e_entry & ~1u) == s->addr)
			entry_named = true;
		if (dwarf_covers(in, in->n, s->addr, &next) ||
		    entry_found_later(e, s))
			continue;
		end = sym_end(e, i, next < text_end ? next : text_end);
		if (add_func(in, s->addr, end - s->addr, TB_SRC_ROOT, tb_ops_root, 2))
			return -1;
	}
	if (entry_named || !gelf_getehdr(e->elf, &eh) || eh.e_type != ET_EXEC)
		return 0;
	/* Stripped executable: the entry point alone, up to what follows. */
	if (eh.e_entry < e->meta.text_addr || eh.e_entry >= text_end ||
	    dwarf_covers(in, in->n, eh.e_entry & ~1u, &next))
		return 0;
	end = next < text_end ? next : text_end;
	return add_func(in, eh.e_entry & ~1u, end - (eh.e_entry & ~1u),
			TB_SRC_ROOT, tb_ops_root, 2);
}

/* The generic model: a personality word, then a count and opcodes. */
static int decode_generic(const u8 *tw, u32 nw, u8 *ops, u32 max)
{
	u8 tmp[4 * 256 + 8];
	u32 w1, extra;
	int n = 0;

	if (nw < 2)
		return -1;
	/* Count in the top byte, then 3 ops: the same layout as PR1
	 * shifted by one byte. */
	w1 = rd32(tw + 4);
	tw += 4;
	nw--;
	extra = w1 >> 24;
	if (extra + 1 > nw)
		return -1;
	for (int k = 2; k >= 0; k--)
		tmp[n++] = w1 >> (8 * k);
	for (u32 k = 1; k <= extra && n + 4 < (int)max; k++) {
		u32 x = rd32(tw + 4 * k);

		tmp[n++] = x >> 24;
		tmp[n++] = x >> 16;
		tmp[n++] = x >> 8;
		tmp[n++] = x;
	}
	while (n && tmp[n - 1] == 0xb0)
		n--;
	if (n + 1 > (int)max)
		return -1;
	memcpy(ops, tmp, n);
	ops[n++] = 0xb0;
	return n;
}

struct exidx_secs {
	Elf_Data *ix, *tab;
	u32 ix_addr, tab_addr, tab_size;
};

/* One index entry's opcodes: see tb_ehabi_decode for the return value. */
static int decode_entry(const struct exidx_secs *x, u32 i, u8 *ops, u32 max)
{
	const u8 *p = (const u8 *)x->ix->d_buf + i;
	u32 w = rd32(p + 4), t, off;
	const u8 *tw;

	if (w == 1 || (w & 0x80000000u))
		return tb_ehabi_decode(p + 4, 1, ops, max);
	t = prel31(p + 4, x->ix_addr + i + 4);
	off = t - x->tab_addr;
	/* off + 4 could wrap past 2^32: compare against what is left. */
	if (!x->tab || t < x->tab_addr || off >= x->tab_size ||
	    x->tab_size - off < 4)
		return -1;
	tw = (const u8 *)x->tab->d_buf + off;
	if (!(rd32(tw) & 0x80000000u))
		return decode_generic(tw, (x->tab_size - off) / 4, ops, max);
	return tb_ehabi_decode(tw, (x->tab_size - off) / 4, ops, max);
}

/*
 * An index entry covers [fn, end); DWARF wins per function.  The entry's
 * opcodes describe the function at fn, so they are used only when no
 * DWARF function covers fn, up to the first DWARF function.  Other parts
 * of the range that no DWARF function covers refuse: in glibc one merged
 * CANTUNWIND entry spans many asm functions with FDEs, and the code
 * between them (__clone's after its FDE ends, padding after syscall
 * stubs) has no rule anyone stated; a gap filler there would "return to
 * lr" with whatever sp the code left.
 */
static int add_uncovered(struct tb_elf *e, struct tb_input *in,
			 const struct tb_spans *d, u32 fn, u32 end,
			 const u8 *ops, int n)
{
	u32 at = fn, next, cend, hi;
	int added = 0;

	while (at < end) {
		cend = tb_spans_cover_end(d, at, &next);
		if (cend) {
			at = cend;
			continue;
		}
		hi = next < end ? next : end;
		if (n == 0 ? add_cantunwind(e, in, at, hi)
			   : at == fn ? add_func(in, at, hi - at, TB_SRC_EHABI, ops, n)
			   : add_func(in, at, hi - at, TB_SRC_EHABI, tb_ops_refuse, 2))
			return -1;
		/* the opcodes describe the function that starts here */
		if (n && at == fn)
			in->funcs[in->n - 1].ehabi_entry = true;
		added += at == fn;
		at = hi;
	}
	return added;
}

/* True when an executable section ends exactly at @addr. */
static bool sec_ends_at(const struct tb_elf *e, u32 addr)
{
	for (u32 i = 0; i < e->nsecs; i++)
		if (e->secs[i].addr + e->secs[i].size == addr)
			return true;
	return false;
}

/*
 * An entry covers code up to the next entry, but never past the end of
 * the section its function is in.  lld ends the index with a CANTUNWIND
 * sentinel at the end of the last section with entries (.fini) and
 * places .plt after that: stretched to the end of the code, the sentinel
 * would refuse every PLT stub.  Returns true when the entry covers
 * nothing: @fn lies in no executable section (the sentinel in the
 * padding before .plt), or @sentinel (the last entry, CANTUNWIND) starts
 * where a section ends (the sentinel right at .plt's start).  Without a
 * complete section list nothing is clipped.
 */
static bool clip_to_section(const struct tb_elf *e, u32 fn, u32 *end,
			    bool sentinel)
{
	const struct tb_sec *s;

	if (!e->nsecs || e->nsecs >= TB_MAX_SECS)
		return false;
	s = tb_elf_sec(e, fn);
	if (!s || (sentinel && sec_ends_at(e, fn)))
		return true;
	if (*end > s->addr + s->size)
		*end = s->addr + s->size;
	return false;
}

int tb_read_ehabi(struct tb_elf *e, struct tb_input *in,
		  struct tb_notes *notes, char *err, size_t errlen)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	const char *name;
	struct exidx_secs x = { 0 };
	struct tb_spans dw;
	u32 text_end = e->meta.text_addr + e->meta.text_size;
	size_t shstrndx;
	int added = 0;

	if (elf_getshdrstrndx(e->elf, &shstrndx))
		return 0;
	while ((scn = tb_elf_next_named(e->elf, shstrndx, scn, &sh, &name))) {
		if (sh.sh_type == SHT_ARM_EXIDX) {
			x.ix = elf_getdata(scn, NULL);
			x.ix_addr = sh.sh_addr;
		} else if (!strcmp(name, ".ARM.extab")) {
			x.tab = elf_getdata(scn, NULL);
			x.tab_addr = sh.sh_addr;
			/* The bytes libelf holds: none for SHT_NOBITS. */
			x.tab_size = x.tab && x.tab->d_buf ? x.tab->d_size : 0;
		}
	}
	if (!x.ix || !x.ix->d_buf || x.ix->d_size < 8)
		return 0;
	e->meta.sources |= UWT_SRC_EXIDX;
	if (tb_spans_init(&dw, in, 0, in->n))
		goto oom;
	for (u32 i = 0; i + 8 <= x.ix->d_size; i += 8) {
		const u8 *p = (const u8 *)x.ix->d_buf + i;
		u32 fn = prel31(p, x.ix_addr + i) & ~1u, end, w = rd32(p + 4);
		enum tb_reason reason;
		u8 ops[64];
		int n, k;

		end = i + 16 <= x.ix->d_size ?
			prel31(p + 8, x.ix_addr + i + 8) & ~1u : text_end;
		if (clip_to_section(e, fn, &end,
				    i + 16 > x.ix->d_size && w == 1))
			continue;
		if (end <= fn)
			continue;
		n = decode_entry(&x, i, ops, sizeof(ops));
		reason = TB_N_COUNT;
		if (n > 0 && is_refuse(ops, n)) {
			reason = TB_N_EHABI_REFUSE;
			n = 2;
		} else if (n < 0 || (n > 0 && !tb_ehabi_ops_ok(ops, n))) {
			reason = TB_N_EHABI_BAD;
			ops[0] = 0x80;
			ops[1] = 0x00;
			n = 2;
		}
		k = add_uncovered(e, in, &dw, fn, end, ops, n);
		if (k < 0) {
			tb_spans_free(&dw);
			goto oom;
		}
		/* Noted only when the entry's own function uses it. */
		if (k && reason == TB_N_EHABI_REFUSE)
			tb_note_add(notes, fn, fn, reason, "refuse opcode");
		else if (k && reason == TB_N_EHABI_BAD)
			tb_note_add(notes, fn, fn, reason, "entry word 0x%08x", w);
		added += k;
	}
	tb_spans_free(&dw);
	return added;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}
