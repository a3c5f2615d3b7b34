// SPDX-License-Identifier: GPL-2.0
/*
 * Thread entries (clone wrappers: __clone, __clone3, __bionic_clone, ...)
 * analysed as any function, with the new thread's path after the clone
 * system call as the outermost frame (prologue_clone.c); their rows
 * replace whatever else covered them, before prologue analysis.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "table/prologue_int.h"
#include "table/elf.h"

int tb_thread_entry_analyse(const u8 *code, u32 len, u32 addr, bool thumb,
			    struct tb_cfi_func *f, char *why, size_t wlen)
{
	struct pa_text text = { .b = code, .addr = addr, .size = len,
				.thumb = thumb, .sized = true };

	return pa_child_found(pa_analyse(code, len, addr, thumb, NULL, 0, true,
					 NULL, 0, &text, f, why, wlen), f, why, wlen);
}

/*
 * Take [lo, hi) out of the functions of @in: functions inside it go,
 * EHABI ones across its edges are cut.  Returns 1, changing nothing, when
 * any other function crosses an edge (its rules would need cutting).
 */
static int clear_range(struct tb_input *in, u32 lo, u32 hi)
{
	struct tb_input out = { 0 };
	struct tb_cfi_func *g;

	for (u32 i = 0; i < in->n; i++) {
		const struct tb_cfi_func *f = &in->funcs[i];

		if (f->addr < hi && f->addr + f->size > lo && !pa_is_ehabi(f) &&
		    (f->addr < lo || f->addr + f->size > hi))
			return 1;
	}
	for (u32 i = 0; i < in->n; i++) {
		struct tb_cfi_func *f = &in->funcs[i];
		u32 end = f->addr + f->size;

		if (f->addr >= hi || end <= lo) {
			if (!(g = tb_input_add(&out)))
				goto oom;
			*g = *f;
			memset(f, 0, sizeof(*f));
			continue;
		}
		if ((f->addr < lo && pa_add_piece(&out, f, f->addr, lo)) ||
		    (end > hi && pa_add_piece(&out, f, hi, end)))
			goto oom;
	}
	tb_input_free(in);
	*in = out;
	return 0;
oom:
	tb_input_free(&out);
	return -1;
}

/*
 * Analyse symbol @i as a thread entry; on success its rows replace what
 * covered it: 1.  0 if it is none (noted, with @notes), -1 on error.
 */
static int take_entry(struct tb_elf *e, struct tb_input *in, u32 i,
		      struct tb_notes *notes)
{
	const struct tb_sym *s = &e->syms[i];
	struct tb_cfi_func f, *g;
	char why[160];
	int r;

	r = pa_analyse_symbol(e, s, i, true, NULL, &f, why, sizeof(why));
	if (r > 0) {
		r = clear_range(in, f.addr, f.addr + f.size);
		if (!r && (g = tb_input_add(in))) {
			f.source = TB_SRC_THREAD;
			*g = f;
			return 1;
		}
		free(f.rows);
		if (r <= 0)
			return -1;
		snprintf(why, sizeof(why), "other unwind rules cross its ends");
		r = 0;
	}
	if (!r && notes)
		tb_note_add(notes, s->addr, s->addr, TB_N_PROLOGUE,
			    "thread entry not analysed: %s", why);
	return r;
}

/* Thread entries (clone wrappers) named in @e's symbols. */
int tb_thread_entry_pass(struct tb_elf *e, struct tb_input *in,
			 struct tb_notes *notes)
{
	u32 done = 0;
	int n = 0, r;

	for (u32 i = 0; i < e->nsyms; i++) {
		const struct tb_sym *s = &e->syms[i];

		/* Once per address: clone and __clone are one function. */
		if (!tb_thread_entry_sym(s->name) || (n && s->addr == done))
			continue;
		done = s->addr;
		r = take_entry(e, in, i, notes);
		if (r < 0)
			return -1;
		n += r;
	}
	return n;
}

/* Does found function @s hold a system call ("svc #0")? */
static bool has_svc(struct tb_elf *e, const struct tb_sym *s)
{
	const struct tb_sec *sec = tb_elf_sec(e, s->addr);
	const u8 *b = sec ? tb_elf_sec_bytes(e, sec) : NULL;
	u32 step = s->thumb ? 2 : 4;

	if (!b || s->size > sec->addr + sec->size - s->addr)
		return false;
	b += s->addr - sec->addr;
	for (u32 k = 0; k + step <= s->size; k += step)
		if (s->thumb ? b[k] == 0x00 && b[k + 1] == 0xdf :
			       !b[k] && !b[k + 1] && !b[k + 2] && b[k + 3] == 0xef)
			return true;
	return false;
}

int tb_thread_entry_found_pass(struct tb_elf *e, struct tb_input *in)
{
	int n = 0, r;

	for (u32 i = 0; i < e->nsyms; i++) {
		const struct tb_sym *s = &e->syms[i];

		if (!s->found || !s->size || !has_svc(e, s))
			continue;
		r = take_entry(e, in, i, NULL);
		if (r < 0)
			return -1;
		n += r;
	}
	return n;
}
