// SPDX-License-Identifier: GPL-2.0
/*
 * bench-unwind: the cost of unwind_v2 on synthetic stacks.
 *
 * One module of NFUNCS functions spread over many 128 KiB pages, each with
 * one of several prologue shapes (pops, a frame pointer, VFP saves, a big
 * frame, r0-r3 saves), and stacks of depth 8, 16 and 32 whose frames pick
 * functions at random (fixed seed), written so that every unwind ends at
 * a root marker.  Modes:
 *
 *   bench_unwind time        ns per frame and per lookup (clock_gettime)
 *   bench_unwind unwind N D  N passes over the depth-D stacks in
 *                            bench_unwind_work()
 *   bench_unwind lookup N    N passes of lookups in bench_lookup_work()
 *   bench_unwind jit N       N passes over stacks of JIT_DEPTH frames of
 *                            V8's kind (JIT code after the module, its
 *                            frame chain in r11) and an entry frame
 *                            returning to the root function, in
 *                            bench_jit_work()
 *   bench_unwind replay N FILE DIR
 *                            N passes over the real stacks of FILE (a
 *                            replay file, bench/replay.h) in
 *                            bench_replay_work(), with the tables
 *                            DIR/NAME.uwt; every unwind must give the
 *                            frames and stop found when it was captured
 *
 * The last two exist for callgrind --toggle-collect, which counts the
 * instructions of exactly one function; they print the number of frames
 * or lookups done so bench/run.sh can divide.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "replay.h"
#include "lib/uwt.h"
#include "test_unwind_v2_gen.h"
#include "unwind_v2.h"

#define NFUNCS		8192
#define FUNC_SIZE	0x200		/* 4 MiB of text, 32 pages */
#define CALL_OFF	0x100		/* return addresses sit here */
#define TEXT_START	0x00400000u
#define STACK_TOP	0x7f000000u
#define STACK_BYTES	(64 * 1024)
#define STACKS_PER_DEPTH 64
#define MAX_DEPTH	32

/* Prologue shapes: the unwind sequence and the frame it describes. */
struct shape {
	const u8 *seq;
	u32 len;
	u32 frame;		/* bytes the frame occupies */
	u32 lr_slot;		/* offset of the saved lr in the frame */
	int r7_slot;		/* offset of the saved r7, or -1 */
	bool uses_fp;		/* vsp comes from r7 */
};

static const u8 seq_push2[] = { 0xa8, 0xb0 };
static const u8 seq_sub_push5[] = { 0x02, 0xab, 0xb0 };
static const u8 seq_fp[] = { 0x97, 0x41, 0x84, 0x0b, 0xb0 };
static const u8 seq_vfp[] = { 0x00, 0xd1, 0xa9, 0xb0 };
static const u8 seq_big[] = { 0xb2, 0x10, 0xaf, 0xb0 };
static const u8 seq_r0r1[] = { 0xb1, 0x03, 0xa8, 0xb0 };
static const u8 seq_finish[] = { 0xb0 };
static const u8 seq_root[] = { 0xb1, 0x00 };

#define SEQ(s) (s), sizeof(s)

static const struct shape shapes[] = {
	{ SEQ(seq_push2), 8, 4, -1, false },
	{ SEQ(seq_sub_push5), 32, 28, 24, false },
	{ SEQ(seq_fp), 24, 20, 16, true },	/* 8 bytes of locals */
	{ SEQ(seq_vfp), 32, 28, -1, false },
	{ SEQ(seq_big), 0x244 + 36, 0x244 + 32, 0x244 + 12, false },
	{ SEQ(seq_r0r1), 16, 12, -1, false },
};

#define NSHAPES (sizeof(shapes) / sizeof(shapes[0]))

struct sample {
	struct uw2_regs regs;
	u8 *stack;		/* STACK_BYTES, ending at STACK_TOP */
	u32 lo;
	u32 depth;
};

static struct uw2_table table;
static struct uw2_module module;
static struct sample samples[3][STACKS_PER_DEPTH];
static const u32 depths[3] = { 8, 16, 32 };
static u32 lookup_pcs[4096];

static u32 rng_state = 12345;

static u32 rng(void)
{
	rng_state = rng_state * 1103515245u + 12345u;
	return rng_state >> 8;
}

static const struct shape *func_shape(u32 f)
{
	return &shapes[f % NSHAPES];
}

/* Function NFUNCS - 1 is the thread entry, marked as the root. */
static void build_table(void)
{
	static struct uw2g_row rows[NFUNCS][2];
	static struct uw2g_func funcs[NFUNCS];
	static u8 blob[1 << 20];
	struct uw2_verror err;
	u32 size;

	for (u32 f = 0; f < NFUNCS; f++) {
		const struct shape *s = func_shape(f);

		rows[f][0] = (struct uw2g_row){ 8, s->seq, s->len };
		rows[f][1] = (struct uw2g_row){ 0, SEQ(seq_finish) };
		funcs[f] = (struct uw2g_func){ f * FUNC_SIZE, rows[f], 2 };
	}
	rows[NFUNCS - 1][0] = (struct uw2g_row){ 0, SEQ(seq_root) };
	funcs[NFUNCS - 1].nrows = 1;
	size = uw2g_build(funcs, NFUNCS, NFUNCS * FUNC_SIZE, blob,
			  sizeof(blob));
	if (!size || uw2_table_init(&table, blob, size, &err) != UW2_OK) {
		fprintf(stderr, "bench: table: %s at 0x%x\n",
			uw2_verr_str(err.code), err.offset);
		exit(1);
	}
	module.text_start = TEXT_START;
	module.text_end = TEXT_START + NFUNCS * FUNC_SIZE;
	module.table = &table;
}

static void put_word(struct sample *s, u32 addr, u32 val)
{
	memcpy(s->stack + (addr - s->lo), &val, 4);
}

/*
 * Lay out frames from the sampled one outwards.  The r7 a frame-pointer
 * function needs is whatever the nearest inner frame that saved r7 pops,
 * or the sampled r7 if none did: @r7_dest tracks where that is.
 */
static void build_sample(struct sample *s, u32 depth)
{
	u32 sp = STACK_TOP - STACK_BYTES + 64, r7_dest = 0, f;
	bool r7_in_regs = true;

	s->stack = calloc(1, STACK_BYTES);
	s->lo = STACK_TOP - STACK_BYTES;
	s->depth = depth;
	memset(&s->regs, 0, sizeof(s->regs));
	s->regs.r[UW2_SP] = sp;
	f = rng() % (NFUNCS - 1);
	s->regs.r[UW2_PC] = TEXT_START + f * FUNC_SIZE + CALL_OFF;
	for (u32 d = 1; d < depth; d++) {
		const struct shape *sh = func_shape(f);
		u32 caller = d < depth - 1 ? rng() % (NFUNCS - 1) : NFUNCS - 1;

		if (sh->uses_fp) {
			u32 r7 = sp + 16;

			if (r7_in_regs)
				s->regs.r[7] = r7;
			else
				put_word(s, r7_dest, r7);
		}
		if (sh->r7_slot >= 0) {
			r7_dest = sp + sh->r7_slot;
			r7_in_regs = false;
		}
		put_word(s, sp + sh->lr_slot,
			 TEXT_START + caller * FUNC_SIZE + CALL_OFF + 1);
		sp += sh->frame;
		f = caller;
	}
}

static void build_samples(void)
{
	for (u32 i = 0; i < 3; i++)
		for (u32 k = 0; k < STACKS_PER_DEPTH; k++)
			build_sample(&samples[i][k], depths[i]);
	for (u32 i = 0; i < 4096; i++)
		lookup_pcs[i] = TEXT_START + rng() % (NFUNCS * FUNC_SIZE);
}

struct reader_ctx {
	const struct sample *s;
};

static int read_word(void *ctx, u32 addr, u32 *val)
{
	const struct sample *s = ((struct reader_ctx *)ctx)->s;

	memcpy(val, s->stack + (addr - s->lo), 4);
	return 0;
}

/*
 * One unwind of @s with the @nmods modules @mods (the bench's one module,
 * or it and JIT code); returns the frames found, exits if it went wrong.
 */
static u32 unwind_sample(const struct sample *s,
			 const struct uw2_module *mods, u32 nmods)
{
	static struct uw2_cache cache;	/* one CPU's, kept across samples */
	struct reader_ctx rc = { s };
	struct uw2_view view = { s->stack, s->lo, STACK_BYTES, 0, 0 };
	struct uw2_stack stack = { .lo = s->lo, .hi = STACK_TOP,
				   .read = read_word, .ctx = &rc,
				   .view = &view };
	struct uw2_regs regs = s->regs;
	u32 frames[MAX_DEPTH + 2], n;
	enum uw2_stop stop;

	cache.gen = nmods;	/* two module arrays: a gen each */
	stop = uw2_unwind_cached(mods, nmods, &regs, &stack, frames,
				 MAX_DEPTH + 2, &n, 0, &cache);
	if (stop != UW2_STOP_ROOT || n != s->depth) {
		fprintf(stderr, "bench: depth %u stack: %s after %u frames\n",
			s->depth, uw2_stop_name(stop), n);
		exit(1);
	}
	return n;
}

__attribute__((noinline)) u64 bench_unwind_work(u32 passes, int depth_i)
{
	u64 frames = 0;

	for (u32 p = 0; p < passes; p++)
		for (u32 k = 0; k < STACKS_PER_DEPTH; k++)
			frames += unwind_sample(&samples[depth_i][k], &module,
						1);
	return frames;
}

__attribute__((noinline)) u64 bench_lookup_work(u32 passes)
{
	u32 instr_off, fot, uit, sink = 0;
	u64 n = 0;

	for (u32 p = 0; p < passes; p++) {
		for (u32 i = 0; i < 4096; i++) {
			u32 pc = lookup_pcs[i];
			const struct uw2_module *m;

			m = uw2_find_module(&module, 1, pc);
			if (!m || !uw2_lookup_function(m->table,
						       pc - m->text_start,
						       &instr_off, &fot) ||
			    !uw2_lookup_sequence(m->table, fot, instr_off,
						 &uit))
				exit(1);
			sink += uit;
			n++;
		}
	}
	if (sink == 0xffffffff)
		puts("");
	return n;
}

/* ---- JIT frames (UW2_FRAMES_V8_ARM) ---- */

#define JIT_START	(TEXT_START + NFUNCS * FUNC_SIZE)
#define JIT_SIZE	0x100000
#define JIT_DEPTH	16

static struct uw2_module jit_mods[2];
static struct sample jit_samples[STACKS_PER_DEPTH];

/*
 * JIT_DEPTH V8 frames, 16 to 48 bytes apart ([fp] the caller's fp,
 * [fp + 4] a return address in the JIT code), then an entry frame (its
 * type marker at fp - 8 and fp - 4) returning to the root function.
 */
static void build_jit_sample(struct sample *s)
{
	u32 fp = STACK_TOP - STACK_BYTES + 64, next;

	s->stack = calloc(1, STACK_BYTES);
	s->lo = STACK_TOP - STACK_BYTES;
	s->depth = JIT_DEPTH + 2;
	memset(&s->regs, 0, sizeof(s->regs));
	s->regs.r[UW2_SP] = fp - 16;
	s->regs.r[UW2_FP] = fp;
	s->regs.r[UW2_PC] = JIT_START + (rng() % JIT_SIZE & ~3u);
	for (u32 d = 0; d < JIT_DEPTH; d++, fp = next) {
		next = fp + 16 + 16 * (rng() % 3);
		put_word(s, fp, next);
		put_word(s, fp + 4, JIT_START + (rng() % JIT_SIZE & ~3u) + 4);
	}
	put_word(s, fp - 8, 2);
	put_word(s, fp - 4, 2);
	put_word(s, fp, 0);
	put_word(s, fp + 4, TEXT_START + (NFUNCS - 1) * FUNC_SIZE + CALL_OFF +
		 1);
}

static void build_jit(void)
{
	jit_mods[0] = module;
	jit_mods[1] = (struct uw2_module){ JIT_START, JIT_START + JIT_SIZE,
					   NULL, UW2_FRAMES_V8_ARM, 0 };
	for (u32 k = 0; k < STACKS_PER_DEPTH; k++)
		build_jit_sample(&jit_samples[k]);
}

/* Returns the JIT frames walked: each stack's sampled pc and return
 * addresses in JIT code (the entry frame's return goes to the table). */
__attribute__((noinline)) u64 bench_jit_work(u32 passes, int unused)
{
	u64 frames = 0;

	(void)unused;
	for (u32 p = 0; p < passes; p++)
		for (u32 k = 0; k < STACKS_PER_DEPTH; k++)
			frames += unwind_sample(&jit_samples[k], jit_mods,
						2) - 1;
	return frames;
}

/* ---- real stacks (bench/replay.h) ---- */

#define REPLAY_MAX_MODS	8

static struct uw2_module rmods[REPLAY_MAX_MODS];
static struct uw2_table rtables[REPLAY_MAX_MODS];
static u32 nrmods;
static const struct uwr_sample **rsamples;
static u8 **rpages;		/* each window in whole pages, zero-padded */
static u32 nrsamples;

static void *read_all(const char *path, u32 *size)
{
	FILE *f = fopen(path, "rb");
	long n;
	void *buf;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET))
		goto fail;
	buf = malloc(n ? n : 1);
	if (!buf || fread(buf, 1, n, f) != (size_t)n)
		goto fail;
	fclose(f);
	*size = n;
	return buf;
fail:
	fprintf(stderr, "bench: cannot read %s\n", path);
	exit(1);
}

static const u8 *replay_words(const struct uwr_sample *s)
{
	return (const u8 *)(s + 1) + s->nframes * 4;
}

static void load_replay(const char *file, const char *dir)
{
	u32 size, off, i;
	u8 *buf = read_all(file, &size);
	const struct uwr_header *h = (const void *)buf;
	const struct uwr_mod *m = (const void *)(h + 1);

	if (size < sizeof(*h) || h->magic != UWR_MAGIC ||
	    h->version != UWR_VERSION || h->nmods > REPLAY_MAX_MODS ||
	    size - sizeof(*h) < h->nmods * sizeof(*m)) {
		fprintf(stderr, "bench: %s is no replay file\n", file);
		exit(1);
	}
	for (i = 0; i < h->nmods; i++) {
		char path[4096], err[256];
		struct uwt_file u;

		snprintf(path, sizeof(path), "%s/%.56s.uwt", dir, m[i].name);
		if (uwt_load_file(path, &u, err, sizeof(err)) ||
		    uw2_table_init(&rtables[i], u.blob, u.blob_size, NULL)) {
			fprintf(stderr, "bench: table %s: %s\n", path, err);
			exit(1);
		}
		rmods[i] = (struct uw2_module){ m[i].text_start,
						m[i].text_end, &rtables[i],
						0, 0 };
	}
	nrmods = h->nmods;
	rsamples = calloc(h->nsamples, sizeof(*rsamples));
	rpages = calloc(h->nsamples, sizeof(*rpages));
	off = sizeof(*h) + h->nmods * sizeof(*m);
	for (i = 0; i < h->nsamples; i++) {
		const struct uwr_sample *s = (const void *)(buf + off);

		if (size - off < sizeof(*s) || s->hi < s->lo ||
		    s->nframes > UWR_MAX_FRAMES ||
		    size - off < uwr_sample_size(s)) {
			fprintf(stderr, "bench: %s: sample %u truncated\n",
				file, i);
			exit(1);
		}
		rsamples[i] = s;
		rpages[i] = calloc(1, ((s->hi + 4095) & ~4095u) -
				      (s->lo & ~4095u));
		memcpy(rpages[i] + (s->lo & 4095), replay_words(s),
		       s->hi - s->lo);
		off += uwr_sample_size(s);
	}
	nrsamples = h->nsamples;
}

/*
 * The stack reader of the module, modelled: a one-line cache filled by a
 * copy of the aligned line (copy_from_user_nofault() in the module,
 * memcpy here) through the same uw2_view_fill().  replay_line 0 instead
 * puts the whole window in the view, so no reader runs at all.
 */
static u32 replay_line;
static bool replay_top;		/* copies end at the last unwind's sp */
static u32 replay_last_sp;
static bool replay_checked;	/* every frame of every sample once */
static u64 replay_copies, replay_copy_bytes;
static struct uw2_cache replay_cache;	/* one CPU's, kept across samples */

struct replay_ctx {
	u32 i;
	struct uw2_view view;
};

static u8 replay_buf[4096];	/* the module's per-CPU line */

static int replay_copy(void *ctx, void *dst, u32 src, u32 len)
{
	u32 i = ((struct replay_ctx *)ctx)->i;

	memcpy(dst, rpages[i] + (src - (rsamples[i]->lo & ~4095u)), len);
	replay_copies++;
	replay_copy_bytes += len;
	return 0;
}

static int replay_read(void *ctx, u32 addr, u32 *val)
{
	struct replay_ctx *rc = ctx;

	return uw2_view_fill(&rc->view, replay_buf, replay_line, addr, val,
			     replay_copy, rc);
}

/* One unwind of real stack @i; exits unless it is the one captured. */
static u32 replay_sample(u32 i)
{
	const struct uwr_sample *s = rsamples[i];
	/* no copy budget: the replay measures, the module bounds */
	struct replay_ctx rc = { .i = i, .view.fills_left = UINT32_MAX };
	struct uw2_stack stack = { .lo = s->lo, .hi = s->hi,
				   .read = replay_read, .ctx = &rc,
				   .view = &rc.view };
	u32 frames[UWR_MAX_FRAMES], n;
	struct uw2_regs regs;
	enum uw2_stop stop;

	if (!replay_line)
		rc.view = (struct uw2_view){ replay_words(s), s->lo,
					     s->hi - s->lo, 0, 0 };
	else if (replay_top)
		rc.view.top = replay_last_sp;	/* as the module's handler */
	memcpy(regs.r, s->regs, sizeof(regs.r));
	replay_cache.gen = 1;	/* one module array: the module's per-sample gen */
	stop = uw2_unwind_cached(rmods, nrmods, &regs, &stack, frames,
				 UWR_MAX_FRAMES, &n, 0, &replay_cache);
	replay_last_sp = regs.r[UW2_SP];
	/* every frame on the first pass; later ones redo the same work */
	if (stop != s->stop || n != s->nframes ||
	    (!replay_checked && memcmp(frames, s + 1, n * 4)) ||
	    (n && frames[n - 1] != ((const u32 *)(s + 1))[n - 1])) {
		fprintf(stderr,
			"bench: real stack %u: %s after %u frames, captured %s after %u\n",
			i, uw2_stop_name(stop), n, uw2_stop_name(s->stop),
			s->nframes);
		exit(1);
	}
	return n;
}

__attribute__((noinline)) u64 bench_replay_work(u32 passes)
{
	u64 frames = 0;

	for (u32 p = 0; p < passes; p++) {
		for (u32 i = 0; i < nrsamples; i++)
			frames += replay_sample(i);
		replay_checked = true;
	}
	return frames;
}

/* What the real stacks are: depth and how they end. */
static void replay_summary(void)
{
	u32 stops[UW2_STOP_COUNT] = { 0 }, i;
	u64 frames = 0, bytes = 0;

	for (i = 0; i < nrsamples; i++) {
		if (rsamples[i]->stop < UW2_STOP_COUNT)
			stops[rsamples[i]->stop]++;
		frames += rsamples[i]->nframes;
		bytes += rsamples[i]->hi - rsamples[i]->lo;
	}
	printf("real stacks: %u samples, %.1f frames and %.0f stack bytes each;",
	       nrsamples, (double)frames / nrsamples,
	       (double)bytes / nrsamples);
	for (i = 0; i < UW2_STOP_COUNT; i++)
		if (stops[i])
			printf(" %s %u", uw2_stop_name(i), stops[i]);
	printf("\n");
	/*
	 * The reader's cost in copies: what each line size asks of it, with
	 * the copies ending at most at the last unwind's final sp or not.
	 */
	for (u32 k = 0; k < 14; k++) {
		replay_line = 64u << (k % 7);
		replay_top = k >= 7;
		replay_copies = replay_copy_bytes = 0;
		bench_replay_work(1);
		printf("  stack reader, %4u-byte spans%s: %.2f copies, %.0f bytes per sample\n",
		       replay_line, replay_top ? " to the last sp" : "",
		       (double)replay_copies / nrsamples,
		       (double)replay_copy_bytes / nrsamples);
	}
	replay_top = false;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Repeat until at least 0.3 s have passed; the best of 5 rounds. */
static double time_per_item(u64 (*work)(u32, int), int arg)
{
	double best = 1e30;

	for (int round = 0; round < 5; round++) {
		u32 passes = 1;
		double t0, t;
		u64 items;

		for (;;) {
			t0 = now_ns();
			items = work(passes, arg);
			t = now_ns() - t0;
			if (t > 3e8 / 5)
				break;
			passes *= 2;
		}
		if (t / items < best)
			best = t / items;
	}
	return best;
}

static u64 lookup_adapter(u32 passes, int unused)
{
	(void)unused;
	return bench_lookup_work(passes);
}

int main(int argc, char **argv)
{
	build_table();
	build_samples();
	build_jit();
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "replay")) {
		load_replay(argv[3], argv[4]);
		replay_line = argc == 6 ? atoi(argv[5]) : 0;
		if (replay_line % 64 || replay_line > 4096) {
			fprintf(stderr, "bench: line: a multiple of 64 up to 4096\n");
			return 2;
		}
		if (!strcmp(argv[2], "summary")) {
			replay_summary();
			return 0;
		}
		printf("frames %llu\n", (unsigned long long)
		       bench_replay_work(atoi(argv[2])));
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "unwind")) {
		for (int i = 0; i < 3; i++) {
			if (depths[i] != (u32)atoi(argv[3]))
				continue;
			printf("frames %llu\n", (unsigned long long)
			       bench_unwind_work(atoi(argv[2]), i));
			return 0;
		}
	}
	if (argc == 3 && !strcmp(argv[1], "jit")) {
		printf("frames %llu\n",
		       (unsigned long long)bench_jit_work(atoi(argv[2]), 0));
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "lookup")) {
		printf("lookups %llu\n",
		       (unsigned long long)bench_lookup_work(atoi(argv[2])));
		return 0;
	}
	if (argc != 2 || strcmp(argv[1], "time")) {
		fprintf(stderr,
			"usage: bench_unwind time|unwind N 8|16|32|lookup N|jit N|replay N|summary FILE DIR [LINE]\n");
		return 2;
	}
	printf("table: %u functions, %u pages, %u bytes of FOT, %u of UIT\n",
	       table.func_count, table.page_count, table.fot_size,
	       table.uit_size);
	for (int i = 0; i < 3; i++)
		printf("depth %2u: %6.1f ns/frame\n", depths[i],
		       time_per_item(bench_unwind_work, i));
	printf("lookup alone: %6.1f ns/lookup\n",
	       time_per_item(lookup_adapter, 0));
	printf("JIT frames (V8): %6.1f ns/frame\n",
	       time_per_item(bench_jit_work, 0));
	return 0;
}
