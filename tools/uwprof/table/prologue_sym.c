// SPDX-License-Identifier: GPL-2.0
/*
 * Prologue analysis: from an ELF symbol to the code to analyse.  Where it
 * ends (its size, the next symbol, a clone wrapper's child path past its
 * size), its instruction set and literal pools from the mapping symbols,
 * the other symbols inside it (entry points too), code after it that no
 * symbol names, and GNU ld's Thumb-to-ARM interworking stubs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "table/prologue_int.h"
#include "table/elf.h"

static char map_at(const struct tb_elf *e, u32 addr)
{
	return tb_elf_map_at(e, addr);
}

/*
 * The literal pools inside [lo, hi) of code in instruction set @isa, from
 * the mapping symbols, into @v (at most @max).  A pool that runs to the
 * end is cut off instead: *@len is the code's length up to it.  Returns
 * the number of pools, or -1 when the instruction set changes inside or
 * there are too many.
 */
static int data_ranges(const struct tb_elf *e, u32 lo, u32 hi, char isa,
		       struct pa_range *v, u32 max, u32 *len)
{
	u32 n = 0;

	*len = hi - lo;
	for (u32 k = tb_elf_maps_upto(e, lo); k < e->nmaps &&
	     e->maps[k].addr < hi; k++) {
		const struct tb_map *m = &e->maps[k];

		if (m->kind != 'd') {
			if (m->kind != isa)
				return -1;
			if (n && v[n - 1].hi == hi)
				v[n - 1].hi = m->addr;
			continue;
		}
		if (n && v[n - 1].hi == hi)
			continue;	/* still in the same pool */
		if (n == max)
			return -1;
		v[n++] = (struct pa_range){ m->addr, hi };
	}
	if (n && v[n - 1].hi == hi) {
		*len = v[n - 1].lo - lo;
		n--;
	}
	return n;
}

/* Where symbol @s (@e's symbol @i, or code after it) ends. */
u32 pa_sym_limit(const struct tb_elf *e, const struct tb_sym *s, u32 i,
		 u32 text_end)
{
	if (s->size)
		return s->addr + s->size;
	for (u32 k = i + 1; k < e->nsyms; k++)
		if (e->syms[k].addr > s->addr)
			return e->syms[k].addr < text_end ? e->syms[k].addr : text_end;
	return text_end;
}

/* The next symbol's start after symbol @i's, or @limit. */
static u32 next_sym_addr(const struct tb_elf *e, u32 i, u32 limit)
{
	for (u32 k = i + 1; k < e->nsyms; k++)
		if (e->syms[k].addr > e->syms[i].addr)
			return e->syms[k].addr < limit ? e->syms[k].addr : limit;
	return limit;
}

/* Addresses of the other symbols inside [lo, hi): entry points too. */
static u32 *inner_symbols(const struct tb_elf *e, u32 lo, u32 hi, u32 *n)
{
	u32 a = 0, b = e->nsyms, k, *v;

	while (a < b) {		/* symbols are sorted by address */
		u32 mid = a + (b - a) / 2;

		if (e->syms[mid].addr <= lo)
			a = mid + 1;
		else
			b = mid;
	}
	for (k = a; k < e->nsyms && e->syms[k].addr < hi; k++)
		;
	v = malloc((k - a + 1) * sizeof(*v));
	*n = 0;
	for (; v && a < k; a++)
		v[(*n)++] = e->syms[a].addr;
	return v;
}

/*
 * GNU ld's Thumb-to-ARM interworking stub NAME_from_thumb: "bx pc", a
 * filler halfword, then the ARM branch to NAME ("b NAME", or "ldr pc,
 * [pc, #-4]" and the address).  It touches neither sp nor lr: the
 * caller's frame throughout, one row.  1 with @f filled, 0 if the bytes
 * are not that.
 */
static int veneer_rows(const u8 *code, u32 len, u32 addr,
		       struct tb_cfi_func *f)
{
	u32 w = len >= 8 ? code[4] | code[5] << 8 | code[6] << 16 |
			   (u32)code[7] << 24 : 0;
	struct pa_state entry;

	if (len < 8 || code[0] != 0x78 || code[1] != 0x47 ||
	    ((w & 0xff000000) != 0xea000000 && w != 0xe51ff004))
		return 0;
	memset(&entry, 0, sizeof(entry));
	pa_clear_slots(&entry);
	memset(f, 0, sizeof(*f));
	f->addr = addr;
	f->size = len;
	f->source = TB_SRC_PROLOGUE;
	return pa_add_row(f, &entry, addr, 0) ? -1 : 1;
}

static bool is_veneer(const char *name)
{
	size_t n = strlen(name), k = strlen("_from_thumb");

	return n > k && !strcmp(name + n - k, "_from_thumb");
}

/*
 * Symbol @i of @e, or the code @s after it that no symbol names (@pt's
 * gap).  @pt, if not NULL, says how (gap, rules to check) and gets the
 * section's bytes.
 */
int pa_analyse_symbol(struct tb_elf *e, const struct tb_sym *s, u32 i,
		      bool thread_entry, struct pa_text *pt,
		      struct tb_cfi_func *f, char *why, size_t wlen)
{
	struct pa_text plain = { 0 };
	const struct tb_sec *sec = tb_elf_sec(e, s->addr);
	const u8 *text = sec ? tb_elf_sec_bytes(e, sec) : NULL;
	u32 taddr = sec ? sec->addr : 0, tsize = sec ? sec->size : 0, end, len;
	char want = s->thumb ? 't' : 'a';
	struct pa_range data[PA_MAX_POOLS];
	u32 *entries, nentries;
	int r, ndata;

	/* Code of any executable section (.init, .text, .fini, ...) inside
	 * the table's range; a symbol ends with its section. */
	snprintf(why, wlen, "not in the table's code");
	if (!text || s->addr < e->meta.text_addr ||
	    s->addr - e->meta.text_addr >= e->meta.text_size)
		return 0;
	/*
	 * A clone wrapper's child path may lie past the symbol's size
	 * (glibc's __clone ends its symbol before it), so it runs to the
	 * next symbol; only what its paths reach may be there.
	 */
	end = thread_entry ? next_sym_addr(e, i, taddr + tsize) :
			     pa_sym_limit(e, s, i, taddr + tsize);
	if (s->addr < taddr || end > taddr + tsize || end <= s->addr)
		return 0;
	if (!thread_entry && s->thumb && is_veneer(s->name)) {
		snprintf(why, wlen, "not an interworking stub");
		return veneer_rows(text + (s->addr - taddr), end - s->addr,
				   s->addr, f);
	}
	/*
	 * The instruction set must be certain (bit 0 and $a/$t agree), and
	 * data must be known: without mapping symbols a literal pool after
	 * an in-function branch would be decoded as instructions.
	 */
	snprintf(why, wlen, "mapping symbols disagree with bit 0");
	if (e->nmaps && map_at(e, s->addr) != want)
		return 0;
	/*
	 * Without any (stripped to .dynsym), pools are found from the loads
	 * (note_literal), also besides those discovery made: its walks do
	 * not reach code only a computed jump enters (V8's ARM switches,
	 * "addls pc, pc, r3, lsl #2"), nor the pools it reads.  A sizeless symbol runs to the next one; code of an
	 * unexported function in between that no path reaches refuses it.
	 */
	snprintf(why, wlen, "instruction sets mix, or too many literal pools");
	ndata = data_ranges(e, s->addr, end, want, data, PA_MAX_POOLS, &len);
	if (ndata < 0 || !len)
		return 0;
	entries = NULL;
	nentries = 0;
	if (!thread_entry)
		entries = inner_symbols(e, s->addr, s->addr + len, &nentries);
	if (!pt)
		pt = &plain;
	if (!pt->dec)
		pt->dec = tb_elf_decoder(e);
	pt->b = text;
	pt->addr = taddr;
	pt->size = tsize;
	pt->thumb = s->thumb;
	pt->no_maps = !e->nmaps || e->maps_found;
	pt->sized = s->size != 0;
	pt->starts = s->found ? e : NULL;
	pt->jumps = e->jumps;
	pt->njumps = e->njumps;
	r = pa_analyse(text + (s->addr - taddr), len, s->addr, s->thumb, entries,
		       nentries, thread_entry, data, ndata, pt, f, why, wlen);
	free(entries);
	if (thread_entry)
		r = pa_child_found(r, f, why, wlen);
	if (r <= 0)
		return r;
	f->size = end - s->addr;	/* a trailing literal pool included */
	return 1;
}

int tb_prologue_sym(struct tb_elf *e, u32 i, struct tb_cfi_func *f,
		    char *why, size_t wlen)
{
	return pa_analyse_symbol(e, &e->syms[i], i, false, NULL, f, why, wlen);
}

/*
 * Code after symbol @i's end that no symbol names, into @gap: hand-written
 * assembly keeps code there (glibc's strcmp has its early return before
 * its symbol, branched to from its first instructions).  The EHABI entry
 * before it covers it only because entries have no end.  Data at its
 * start (alignment fill) is stepped over.  False if there is none.
 */
bool pa_gap_after(const struct tb_elf *e, u32 i, u32 text_end,
		  struct tb_sym *gap)
{
	const struct tb_sym *s = &e->syms[i];
	u32 lo = s->addr + s->size, hi = next_sym_addr(e, i, text_end);
	char kind = s->thumb ? 't' : 'a';

	if (!s->size || lo >= hi)
		return false;
	if (e->nmaps)
		kind = map_at(e, lo);
	while (kind == 'd') {
		u32 k = tb_elf_maps_upto(e, lo);

		if (k >= e->nmaps || e->maps[k].addr >= hi)
			return false;
		lo = e->maps[k].addr;
		kind = e->maps[k].kind;
	}
	*gap = (struct tb_sym){ lo, hi - lo, "", kind == 't', false };
	return true;
}
