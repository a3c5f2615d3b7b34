// SPDX-License-Identifier: GPL-2.0
/*
 * Prologue analysis over a file (--prologue-analysis): every function
 * symbol whose code only EHABI rules or nothing cover is analysed, with
 * the code after it that no symbol names; analysed rows replace the EHABI
 * ones, and DWARF CFI that the instructions contradict is replaced, or
 * patched where they do (check_cfi).
 */
#include <stdlib.h>
#include <string.h>
#include "table/prologue_int.h"
#include "table/elf.h"

#define PA_WHY	160	/* room for why an analysis refused */
/*
 * Functions a batch holds: the threads wait for the slowest at each
 * batch's end, and one descheduled on a busy machine idles the others.
 * Chromium's analysis at a load of 8 on two CPUs: in batches of 4,096,
 * 65.8 s of wall time on two threads, 56.2 s on one; of 16,384, 55.2 s
 * and 64.2 s.  16,384 jobs take 8 MB.
 */
#define PA_BATCH	16384

/*
 * A program's entry point that only function discovery found, or that a
 * symbol names without a size (chromium's .dynsym): the main thread's
 * outermost frame, up to the next start known or found.  It gets the
 * root marker; analysed, it would refuse (it clears fp and lr).
 */
static int entry_root(struct tb_cfi_func *f, const struct tb_sym *s, u32 end)
{
	memset(f, 0, sizeof(*f));
	if (tb_func_set_ops(f, tb_ops_root, 2))
		return -1;
	f->addr = s->addr;
	f->size = end - s->addr;
	f->source = TB_SRC_ROOT;
	return 1;
}

/* What an analysis gave: no function to analyse there, refused, rows. */
enum { PA_R_NONE = 2 };

/*
 * Symbol @i's function, if only EHABI rules or nothing cover it, into
 * @f: 1, 0 refused (@why), PA_R_NONE not to analyse, -1 on error.  @done
 * holds the functions analysed before it, or is NULL on a worker, which
 * does not know them yet: @again then says whether the analysis must be
 * done again with them (a branch into code before the function).
 */
static int analyse_sym(struct tb_elf *e, const struct pa_cover *in,
		       struct pa_find *all, struct pa_find *done,
		       struct pa_worker *w, u32 i, struct tb_cfi_func *f,
		       char *why, bool *again)
{
	struct pa_text pt = { .known = { done, all }, .known_later = !done,
			      .dec = &w->dec, .reuse = &w->reuse };
	const struct tb_sym *s = &e->syms[i];
	const struct tb_sec *sec = tb_elf_sec(e, s->addr);
	u32 end = pa_sym_limit(e, s, i, sec ? sec->addr + sec->size :
			       e->meta.text_addr + e->meta.text_size);
	int r;

	*again = false;
	if (end <= s->addr || !pa_only_ehabi(in, s->addr, end))
		return PA_R_NONE;
	if ((s->found || !s->size) && tb_elf_program_entry(e, s->addr))
		return entry_root(f, s, end);
	r = pa_analyse_symbol(e, s, i, false, &pt, f, why, PA_WHY);
	*again = pt.wants_known;
	if (r <= 0) {
		free(f->rows);
		f->rows = NULL;
	}
	/* held until the table is made: packed */
	return r > 0 && tb_rows_pack(f) ? -1 : r;
}

/*
 * The gap after symbol @i, analysed as a function entered at its start
 * with the caller's frame: it replaces EHABI rules that describe the
 * function before it.  Code that leaves it by anything but a return is
 * refused (pa_analyse_symbol's @gap).  As analyse_sym(), and PA_R_NONE
 * also when refused with no reason to note.
 */
static int analyse_gap(struct tb_elf *e, const struct pa_cover *in,
		       struct pa_worker *w, u32 i, struct tb_cfi_func *f,
		       char *why)
{
	struct pa_text pt = { .gap = true, .dec = &w->dec, .reuse = &w->reuse };
	const struct tb_sec *sec = tb_elf_sec(e, e->syms[i].addr);
	struct tb_sym gap;
	int r;

	if (!sec || !pa_gap_after(e, i, sec->addr + sec->size, &gap) ||
	    !pa_only_ehabi(in, gap.addr, gap.addr + gap.size))
		return PA_R_NONE;
	r = pa_analyse_symbol(e, &gap, i, false, &pt, f, why, PA_WHY);
	if (r <= 0) {
		free(f->rows);
		f->rows = NULL;
		f->addr = gap.addr;	/* where the note goes */
	}
	if (!r && !why[0])
		return PA_R_NONE;
	return r > 0 && tb_rows_pack(f) ? -1 : r;
}

/* One symbol's work, done by a worker: its function's, then its gap's. */
struct pa_job {
	u32 sym;
	int8_t r[2];
	bool again;
	struct tb_cfi_func f[2];
	char why[2][PA_WHY];
};

struct pa_batch {
	struct tb_elf *e;
	const struct pa_cover *cover;
	struct pa_find *all;	/* the input's functions */
	struct pa_find *done;	/* those analysed so far, for the merge */
	struct pa_job *jobs;
};

static void job_run(void *arg, struct pa_worker *w, u32 k)
{
	struct pa_batch *b = arg;
	struct pa_job *j = &b->jobs[k];

	memset(j->f, 0, sizeof(j->f));
	j->r[0] = (int8_t)analyse_sym(b->e, b->cover, b->all, NULL, w, j->sym,
				  &j->f[0], j->why[0], &j->again);
	j->r[1] = (int8_t)(j->r[0] < 0 ? PA_R_NONE :
		       analyse_gap(b->e, b->cover, w, j->sym, &j->f[1],
				   j->why[1]));
}

/* Job @j's function (@t 0) or gap (1) dropped. */
static void job_drop(struct pa_job *j, int t)
{
	tb_rows_free(&j->f[t]);
	free(j->f[t].ehabi);
	memset(&j->f[t], 0, sizeof(j->f[t]));
}

static void job_free(struct pa_job *j)
{
	job_drop(j, 0);
	job_drop(j, 1);
}

/* Result @t of job @j into @done (rows) or @notes (refused): 1, 0, -1. */
static int job_take(struct tb_elf *e, struct pa_job *j, int t,
		    struct tb_input *done, struct tb_notes *notes)
{
	u32 addr = t ? j->f[1].addr : e->syms[j->sym].addr;
	struct tb_cfi_func *f;

	if (j->r[t] < 0)
		return -1;
	if (j->r[t] == PA_R_NONE)
		return 0;
	if (!j->r[t]) {
		tb_note_add(notes, addr, addr, TB_N_PROLOGUE, "%s", j->why[t]);
		return 0;
	}
	if (!(f = tb_input_add(done)))
		return -1;
	*f = j->f[t];
	memset(&j->f[t], 0, sizeof(j->f[t]));
	return 1;
}

/*
 * The jobs' results into @done and @notes in symbol order, as one thread
 * working through the symbols would have made them: a symbol inside the
 * function analysed last is none (its work is dropped), and one whose
 * analysis met a branch back into the functions before is analysed
 * again now that they are known.  Returns the functions analysed, or -1.
 */
static int merge(struct pa_batch *b, u32 n, struct pa_worker *w,
		 struct tb_input *done, struct tb_notes *notes)
{
	struct tb_elf *e = b->e;
	int got = 0;

	for (u32 k = 0; k < n; k++) {
		struct pa_job *j = &b->jobs[k];
		const struct tb_cfi_func *last = done->n ?
			&done->funcs[done->n - 1] : NULL;
		int r0, r1;

		if (last && e->syms[j->sym].addr < last->addr + last->size) {
			job_free(j);
			continue;
		}
		if (j->again && j->r[0] >= 0) {
			job_drop(j, 0);
			j->r[0] = (int8_t)analyse_sym(e, b->cover, b->all, b->done, w,
						  j->sym, &j->f[0], j->why[0],
						  &j->again);
		}
		r0 = job_take(e, j, 0, done, notes);
		r1 = r0 < 0 ? -1 : job_take(e, j, 1, done, notes);
		if (r1 < 0)
			return -1;
		got += r0 + r1;
	}
	return got;
}

/*
 * Every symbol's function (one per address: aliases share the code)
 * and gap that only EHABI rules or nothing cover, analysed on @p's
 * workers in batches, merged in order.  Returns how many were, or -1.
 */
static int analyse_all(struct tb_elf *e, const struct pa_cover *cover,
		       const struct tb_input *in, struct pa_par *p,
		       struct tb_input *done, struct tb_notes *notes)
{
	struct pa_find all, before;
	struct pa_batch b = { e, cover, &all, &before,
			      calloc(PA_BATCH, sizeof(struct pa_job)) };
	u32 i = 0;
	int n = 0;

	pa_find_build(&before, done, true);
	if (!b.jobs || pa_find_build(&all, in, false)) {
		pa_find_free(&all);
		free(b.jobs);
		return -1;
	}
	while (i < e->nsyms) {
		u32 nj = 0;
		int r;

		for (; i < e->nsyms && nj < PA_BATCH; i++)
			if (!i || e->syms[i].addr != e->syms[i - 1].addr)
				b.jobs[nj++].sym = i;
		pa_par_run(p, nj, job_run, &b);
		r = merge(&b, nj, &p->w[0], done, notes);
		if (r < 0) {
			for (u32 k = 0; k < nj; k++)
				job_free(&b.jobs[k]);
			n = -1;
			break;
		}
		n += r;
	}
	pa_find_free(&all);
	pa_find_free(&before);
	free(b.jobs);
	return n;
}

static bool is_dwarf(const struct tb_cfi_func *f)
{
	return f->source == TB_SRC_DEBUG_FRAME || f->source == TB_SRC_EH_FRAME ||
	       f->source == TB_SRC_DEBUG_FILE;
}

/* Count the stretches of @pt, and their bytes, by kind, into @stats. */
static void count_stretches(const struct pa_text *pt, struct tb_cfi_stats *stats)
{
	for (u32 j = 0; j < pt->ncfi_bad; j++) {
		const struct pa_stretch *b = &pt->cfi_bad[j];

		if (b->follows) {
			stats->followed++;
			stats->followed_bytes += b->hi - b->lo;
		} else {
			stats->refused++;
			stats->refused_bytes += b->hi - b->lo;
		}
	}
}

/* One DWARF function's check: a worker's analysis, for check_take(). */
struct pa_check {
	struct pa_text pt;
	struct tb_cfi_func g;
	int r;			/* pa_analyse_symbol()'s; PA_R_NONE: no
				 * symbol there; PA_R_SKIP: no DWARF CFI */
};

#define PA_R_SKIP	3

struct pa_checks {
	struct tb_elf *e;
	const struct tb_input *in;
	u32 base;		/* the function of c[0] */
	struct pa_check *c;
};

static void check_run(void *arg, struct pa_worker *w, u32 k)
{
	struct pa_checks *b = arg;
	struct pa_check *c = &b->c[k];
	const struct tb_cfi_func *f = &b->in->funcs[b->base + k];
	u32 i = is_dwarf(f) ? pa_sym_at(b->e, f->addr) : b->e->nsyms;
	char why[PA_WHY];

	memset(c, 0, sizeof(*c));
	c->r = is_dwarf(f) ? PA_R_NONE : PA_R_SKIP;
	if (i == b->e->nsyms)
		return;
	c->pt = (struct pa_text){ .cfi = f, .dec = &w->dec, .reuse = &w->reuse };
	c->r = pa_analyse_symbol(b->e, &b->e->syms[i], i, false, &c->pt, &c->g,
				 why, sizeof(why));
}

/*
 * DWARF CFI of function @f checked against its instructions (@c).  Where
 * the analysis followed every path of the whole function and the CFI's
 * CFA or return address differ from it at an instruction, the analysed
 * rows replace the CFI's (hand-written CFI).  Where it assumed states
 * (after a computed jump, at an inner entry) or covers another size, it
 * cannot overrule the CFI as a whole, only where the CFI is proven wrong:
 * most often the stretch after an epilogue that clang's CFI does not
 * describe (its rows are the prologue's), where a row would unwind a
 * frame already popped.  A stretch entered by falling through from an
 * instruction where both agree gets the analysed rows; any other
 * refuses; the rest keeps the CFI.  Unchecked when the analysis refuses
 * the function.  1 changed, 0 not, -1 on error.
 */
static int check_take(struct tb_cfi_func *f, struct pa_check *c,
		      struct tb_notes *notes, struct tb_cfi_stats *stats)
{
	const struct pa_text *pt = &c->pt;
	int r = c->r;

	if (r == PA_R_SKIP)
		return 0;
	if (r == PA_R_NONE) {
		stats->unchecked++;
		return 0;
	}
	if (r > 0 && pt->ncfi_bad && (!pt->cfi_followed || c->g.size != f->size)) {
		r = pa_cfi_patch(f, pt->cfi_bad, pt->ncfi_bad, &c->g) ? -1 : 1;
		tb_note_add(notes, f->addr, pt->cfi_wrong, TB_N_CFI_PATCHED,
			    "CFI says another frame at 0x%x, %u stretches in all",
			    pt->cfi_wrong, pt->ncfi_bad);
		stats->patched++;
		count_stretches(pt, stats);
	} else if (r > 0 && pt->ncfi_bad) {
		tb_note_add(notes, f->addr, f->addr, TB_N_CFI_WRONG,
			    "CFI says another frame at 0x%x", pt->cfi_wrong);
		stats->replaced++;
		free(f->rows);
		f->rows = c->g.rows;
		f->nrows = c->g.nrows;
		f->source = TB_SRC_PROLOGUE;
		c->g.rows = NULL;
		r = tb_rows_pack(f) ? -1 : 1;
	} else if (r >= 0) {
		stats->agree += r > 0;
		stats->unchecked += !r;
		r = 0;
	}
	return r;
}

/*
 * Every function of @in with DWARF CFI checked (check_take()), analysed
 * on @p's workers in batches and taken in order.  Returns how many
 * changed, or -1.
 */
static int check_all(struct tb_elf *e, struct tb_input *in, struct pa_par *p,
		     struct tb_notes *notes, struct tb_cfi_stats *stats)
{
	struct pa_checks b = { e, in, 0,
			       calloc(PA_BATCH, sizeof(struct pa_check)) };
	int n = 0, r = 0;

	if (!b.c)
		return -1;
	for (; b.base < in->n && r >= 0; b.base += PA_BATCH) {
		u32 nb = in->n - b.base < PA_BATCH ? in->n - b.base : PA_BATCH;

		pa_par_run(p, nb, check_run, &b);
		for (u32 k = 0; k < nb; k++) {
			if (r >= 0)
				r = check_take(&in->funcs[b.base + k], &b.c[k],
					       notes, stats);
			n += r > 0;
			free(b.c[k].g.rows);
			free(b.c[k].pt.cfi_bad);
		}
	}
	free(b.c);
	return r < 0 ? -1 : n;
}

int tb_prologue_pass(struct tb_elf *e, struct tb_input *in,
		     struct tb_notes *notes, struct tb_cfi_stats *stats,
		     u32 jobs)
{
	struct tb_input done = { 0 };
	struct pa_cover cover;
	struct pa_par par = { 0 };
	int n, r;

	memset(stats, 0, sizeof(*stats));
	if (pa_cover_build(&cover, in) || pa_par_open(&par, e, jobs)) {
		pa_cover_free(&cover);
		pa_par_close(&par);
		return -1;
	}
	n = analyse_all(e, &cover, in, &par, &done, notes);
	pa_cover_free(&cover);
	if (n > 0 && pa_carve(in, &done))
		n = -1;
	tb_input_free(&done);
	r = n < 0 ? -1 : check_all(e, in, &par, notes, stats);
	pa_par_close(&par);
	if (r < 0)
		return -1;
	n += r;
	if (n)
		e->meta.sources |= UWT_SRC_PROLOGUE;
	return n;
}
