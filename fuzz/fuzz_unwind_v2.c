// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for unwind_v2.c over (table bytes, registers, stack).
 *
 * Input layout: u16 table length, then the table, then 16 little-endian
 * register words (missing bytes read as 0), then the stack bytes.  The
 * table and the stack each get an exact-size heap copy, so ASan reports
 * any read past either.  The stack reader aborts on any address outside
 * the window, and a validated table must never yield a bad-opcode stop.
 * Some inputs put JIT code of V8's frame kind beside the table's code
 * (add_jit()).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "unwind_v2.h"

#define MAX_FRAMES 64

struct fuzz_stack {
	const u8 *bytes;
	u32 lo, hi;
	u32 fail_at;		/* reads of this word fail, to reach that path */
};

static int fuzz_read(void *ctx, u32 addr, u32 *val)
{
	const struct fuzz_stack *s = ctx;

	if ((addr & 3) || addr < s->lo || addr > s->hi || s->hi - addr < 4)
		abort();
	if (addr == s->fail_at)
		return -1;
	memcpy(val, s->bytes + (addr - s->lo), 4);
	return 0;
}

/*
 * The module's reader, modelled: spans copied through uw2_view_fill().
 * Bytes outside the fuzz stack read as zero (memory below sp, say); the
 * unwinder must never use them, which the comparison with the plain
 * reader checks.  Only used when no word is told to fail: a real copy
 * fails by pages, a span never crosses one, so it fails just when the
 * word asked for would.
 */
struct fuzz_lines {
	const struct fuzz_stack *fs;
	struct uw2_view view;
	u32 line;
	bool fail_cross;	/* a copy across a page boundary faults */
	u8 buf[4096];
};

static int fuzz_copy(void *ctx, void *dst, u32 src, u32 len)
{
	const struct fuzz_lines *fl = ctx;
	const struct fuzz_stack *fs = fl->fs;
	u32 i;

	if ((src & 63) || !len || len > 4096)
		abort();
	/* across a page only up to top, which lies past the boundary */
	if ((src & 4095) + len > 4096) {
		if (fl->view.top <= src || fl->view.top - src < len - 63)
			abort();
		if (fl->fail_cross)
			return -1;
	}
	memset(dst, 0, len);
	for (i = 0; i < len; i += 4)
		if (src + i >= fs->lo && src + i < fs->hi &&
		    fs->hi - (src + i) >= 4)
			memcpy((u8 *)dst + i, fs->bytes + (src + i - fs->lo),
			       4);
	return 0;
}

static int fuzz_line_read(void *ctx, u32 addr, u32 *val)
{
	struct fuzz_lines *fl = ctx;

	if ((addr & 3) || addr < fl->fs->lo || addr > fl->fs->hi ||
	    fl->fs->hi - addr < 4)
		abort();
	return uw2_view_fill(&fl->view, fl->buf, fl->line, addr, val,
			     fuzz_copy, fl);
}

/*
 * The direct loads' stand-in: the stack's words, failing as the MMU fails
 * them, for the whole page of the word the reader fails on.
 */
static int fuzz_word(void *ctx, u32 addr, u32 *val)
{
	const struct fuzz_stack *s = ctx;

	if ((addr ^ s->fail_at) < UW2_USER_PAGE)
		return -1;
	return fuzz_read(ctx, addr, val);
}

/* The same beside the module's reader, whose context is its lines. */
static int fuzz_line_word(void *ctx, u32 addr, u32 *val)
{
	const struct fuzz_lines *fl = ctx;

	return fuzz_word((void *)fl->fs, addr, val);
}

static u32 take_u32(const u8 **p, size_t *left)
{
	u8 b[4] = { 0 };
	size_t n = *left < 4 ? *left : 4;

	memcpy(b, *p, n);
	*p += n;
	*left -= n;
	return b[0] | (u32)b[1] << 8 | (u32)b[2] << 16 | (u32)b[3] << 24;
}

/*
 * In a validated table every offset inside its pages resolves to a
 * function, a FOT pair and a UIT index inside the UIT.
 */
static void check_lookup(const struct uw2_table *t, u32 byte_off)
{
	u32 instr_off, fot_index, uit_index;

	byte_off %= uw2_table_text_span(t);
	if (!uw2_lookup_function(t, byte_off, &instr_off, &fot_index) ||
	    fot_index >= t->fot_size ||
	    !uw2_lookup_sequence(t, fot_index, instr_off, &uit_index) ||
	    uit_index >= t->uit_size)
		abort();
}

/*
 * The lookup cache (cold, then warm) and a view over part of the stack
 * must change nothing: the same stop, frames and final registers.  The
 * view leaves out the word the reader is told to fail on.
 */
/*
 * Sampled pcs are cached by range: from another pc near the first, with
 * the cache the first left, the same as the plain unwind from there.
 */
static void same_at_other_pc(const struct uw2_module *mods, u32 nmods,
			     const struct uw2_regs *start,
			     const struct uw2_stack *plain, u32 max, u32 flags,
			     u32 pick, struct uw2_cache *cache)
{
	u32 f1[MAX_FRAMES], f2[MAX_FRAMES], n1, n2;
	struct uw2_regs r1 = *start, r2;
	enum uw2_stop stop;

	r1.r[UW2_PC] += 2 * ((pick >> 2) & 0x3ff) - 0x400;
	r2 = r1;
	stop = uw2_unwind(mods, nmods, &r1, plain, f1, max, &n1, flags);
	/* the cache spares steps: past the budget, it may go further */
	if (stop == UW2_STOP_BUDGET)
		return;
	if (uw2_unwind_cached(mods, nmods, &r2, plain, f2, max, &n2, flags,
			      cache) != stop || n2 != n1 ||
	    memcmp(f2, f1, n1 * 4) || memcmp(&r1, &r2, sizeof(r1)))
		abort();
}

static void same_with_fast_paths(const struct uw2_module *mods, u32 nmods,
				 const struct uw2_regs *start,
				 const struct uw2_stack *plain,
				 const struct fuzz_stack *fs, u32 max,
				 u32 flags, enum uw2_stop stop,
				 const u32 *frames, u32 n,
				 const struct uw2_regs *end, u32 pick)
{
	static struct uw2_cache cache;
	static struct fuzz_lines lines;
	struct uw2_stack stack = *plain;
	u32 f2[MAX_FRAMES], n2, size = fs->hi - fs->lo, a, b, jit = 0;
	struct uw2_view view;
	struct uw2_regs r;

	/* the cache spares steps: past the budget, it may go further */
	if (stop == UW2_STOP_BUDGET)
		return;
	a = (pick & 0xfffc) % (size + 4);
	b = ((pick >> 16) & 0xfffc) % (size + 4);
	if (a > b) {
		u32 t = a;

		a = b;
		b = t;
	}
	/* offsets, not addresses: a window at the top of the address space
	 * must not wrap (the view held the failing word, and the fast path
	 * read what the plain one could not) */
	if (b > size)
		b = size;
	if (a > b)
		a = b;
	if (fs->fail_at - fs->lo >= a && fs->fail_at - fs->lo < b)
		b = fs->fail_at - fs->lo;
	view = (struct uw2_view){ fs->bytes + a, fs->lo + a, b - a, 0, 0 };
	stack.view = &view;
	memset(&cache, 0, sizeof(cache));
	/* entries checked against the module array, or trusted by gen */
	cache.gen = pick & 1;
	for (int pass = 0; pass < 3; pass++) {
		if (pass == 2) {
			/* the module's reader, with spans of 64 B to 4 KiB */
			if (fs->fail_at != 1)
				break;
			lines.fs = fs;
			lines.view.len = 0;
			lines.view.fills_left = UINT32_MAX;
			/* where copies end: anywhere, right or wrong */
			lines.view.top = (pick & 2) ? fs->lo + b : 0;
			lines.fail_cross = pick & 4;
			lines.line = 64 << ((pick >> 8) % 7);
			stack.read = fuzz_line_read;
			stack.ctx = &lines;
			stack.view = &lines.view;
		}
		r = *start;
		if (uw2_unwind_cached(mods, nmods, &r, &stack, f2, max, &n2, flags,
				      &cache) != stop || n2 != n ||
		    memcmp(f2, frames, n * 4) || memcmp(&r, end, sizeof(r)))
			abort();
	}
	/*
	 * frames only: the same stop and frames, and the same sp and pc;
	 * then with direct loads, as the module walks, beside the plain
	 * reader and an empty view, and (when no word fails) beside the
	 * module's reader
	 */
	/* direct loads keep r11 where a module is JIT code, as the module's */
	for (u32 i = 0; i < nmods; i++)
		if (mods[i].frames != UW2_FRAMES_TABLE)
			jit = UW2_F_JIT;
	for (int pass = 0; pass < 3; pass++) {
		if (pass == 1) {
			stack = *plain;
			view.len = 0;
			stack.view = &view;
			stack.direct = true;
			stack.word = fuzz_word;
		} else if (pass == 2) {
			if (fs->fail_at != 1)
				break;
			lines.view.len = 0;
			stack.read = fuzz_line_read;
			stack.word = fuzz_line_word;
			stack.ctx = &lines;
			stack.view = &lines.view;
		}
		r = *start;
		if (uw2_unwind_cached(mods, nmods, &r, &stack, f2, max, &n2,
				      flags | UW2_F_FRAMES_ONLY |
				      (pass ? jit : 0),
				      &cache) != stop ||
		    n2 != n || memcmp(f2, frames, n * 4) ||
		    r.r[UW2_SP] != end->r[UW2_SP] ||
		    r.r[UW2_PC] != end->r[UW2_PC])
			abort();
	}
	same_at_other_pc(mods, nmods, start, plain, max, flags, pick, &cache);
}

/*
 * With r5 bit 6, 4 KiB of JIT code inside the table's range, at 256-byte
 * steps given by r5 bits 8-15 (a binary's embedded builtins): the table's
 * range cut around it, its second part placed by skip.  Returns the
 * modules there are then, with the JIT code's last.
 */
static u32 cut_table(struct uw2_module *mods, u32 mode)
{
	struct uw2_module t = mods[0];
	u32 js = t.text_start + ((mode >> 8) & 0xff) * 0x100, n = 0;

	if (t.text_end - t.text_start < 0x1000 || js < t.text_start ||
	    js > t.text_end - 0x1000)
		return 0;
	if (js > t.text_start) {
		mods[n] = t;
		mods[n++].text_end = js;
	}
	if (js + 0x1000 < t.text_end) {
		mods[n] = t;
		mods[n].text_start = js + 0x1000;
		mods[n++].skip = js + 0x1000 - t.text_start;
	}
	/* with bit 7 the table lends the JIT code its rows there */
	mods[n++] = (struct uw2_module){ js, js + 0x1000,
					 mode & 128 ? t.table : NULL,
					 UW2_FRAMES_V8_ARM,
					 mode & 128 ? js - t.text_start : 0 };
	/* sorted: the JIT code between the parts */
	if (n == 3) {
		t = mods[1];
		mods[1] = mods[2];
		mods[2] = t;
	} else if (n == 2 && mods[0].text_start > js) {
		t = mods[0];
		mods[0] = mods[1];
		mods[1] = t;
	}
	return n;
}

/*
 * With r5 bit 2, JIT code of V8's kind (no table) follows the table's
 * range (or with bit 6 lies inside it: cut_table(), with bit 7 keeping the
 * table's rows there, as a table flagged UWPROF_TABLE_JIT_ROWS lends
 * them), and with bit 3 the
 * pc is there; with bit 4 r11, its frame pointer, points into the window
 * (misaligned with bit 5), so that the stack's words make frame chains:
 * ones that loop, leave the window, or never reach the table's code.
 */
static u32 add_jit(struct uw2_module *mods, struct uw2_regs *regs,
		   const struct fuzz_stack *fs)
{
	u32 start = (mods[0].text_end + 0xfff) & ~0xfffu, mode = regs->r[5];
	u32 n = 2, size = 0x10000, k;

	if (!(mode & 4))
		return 1;
	if (mode & 64) {
		n = cut_table(mods, mode);
		if (!n)
			return 1;
		for (k = 0; k < n && !mods[k].frames; k++)
			;
		start = mods[k].text_start;
		size = 0x1000;
	} else if (start < mods[0].text_end || start > 0xffffffffu - 0x10000) {
		return 1;
	} else {
		mods[1] = (struct uw2_module){ start, start + 0x10000, NULL,
					       UW2_FRAMES_V8_ARM, 0 };
	}
	if (mode & 8)
		regs->r[UW2_PC] = start + (regs->r[UW2_PC] & (size - 2));
	if (mode & 16)
		regs->r[UW2_FP] = fs->lo + (regs->r[UW2_FP] & 0xfc) +
				  (mode & 32 ? 2 : 0);
	return n;
}

static void unwind_one(const struct uw2_table *t, const u8 *in, size_t left)
{
	struct uw2_regs regs, start;
	struct uw2_module mods[3], *mod = &mods[0];
	struct fuzz_stack fs;
	struct uw2_stack stack;
	u32 frames[MAX_FRAMES], n = 0, flags, max, nmods;
	u8 *copy;
	enum uw2_stop stop;

	for (int i = 0; i < 16; i++)
		regs.r[i] = take_u32(&in, &left);
	check_lookup(t, regs.r[UW2_PC]);
	check_lookup(t, regs.r[UW2_LR]);
	/* keep pc and sp near the module and the window most of the time */
	mod->text_start = regs.r[0] & 0xfff00000u;
	mod->text_end = mod->text_start + uw2_table_text_span(t);
	if (mod->text_end < mod->text_start)
		mod->text_end = 0xffffffffu;
	mod->table = t;
	mod->frames = UW2_FRAMES_TABLE;
	mod->skip = 0;
	flags = regs.r[1] & UW2_F_CHROME_COMPAT;
	max = regs.r[2] % (MAX_FRAMES + 1);
	copy = malloc(left ? left : 1);
	memcpy(copy, in, left);
	fs.bytes = copy;
	fs.lo = regs.r[3] & ~3u;
	if (fs.lo > 0xffffffffu - left)
		fs.lo = 0xffffffffu - (u32)left;
	fs.hi = fs.lo + (u32)left;
	fs.fail_at = (regs.r[4] & 0x80000000u) ? fs.lo + (regs.r[4] & 0xfc) : 1;
	stack = (struct uw2_stack){ .lo = fs.lo, .hi = fs.hi, .read = fuzz_read,
				    .ctx = &fs };
	if (regs.r[5] & 1)
		regs.r[UW2_SP] = fs.lo + (regs.r[UW2_SP] & 0xff);
	if (regs.r[5] & 2)
		regs.r[UW2_PC] = mod->text_start + (regs.r[UW2_PC] & 0x3ffff);
	nmods = add_jit(mods, &regs, &fs);
	start = regs;
	stop = uw2_unwind(mods, nmods, &regs, &stack, frames, max, &n, flags);
	if (n > max || stop >= UW2_STOP_COUNT || stop == UW2_STOP_BAD_OPCODE)
		abort();
	same_with_fast_paths(mods, nmods, &start, &stack, &fs, max, flags,
			     stop, frames, n, &regs, regs.r[6]);
	free(copy);
}

/*
 * Validation with a memo of what was found valid gives the same verdict
 * at the same offset; only a table too complex for the step budget
 * without it may pass, or fail further on, with it.
 */
static void memo_agrees(const u8 *blob, u32 len)
{
	struct uw2_verror plain, memo;
	u8 *done = calloc(1, UW2_MEMO_BYTES(len));
	struct uw2_table t;

	uw2_table_init(&t, blob, len, &plain);
	uw2_table_init_memo(&t, blob, len, done, &memo);
	free(done);
	if (plain.code == UW2_ERR_TOO_COMPLEX)
		return;
	if (memo.code != plain.code ||
	    (plain.code && memo.offset != plain.offset))
		abort();
}

/*
 * @t's shapes as the module finds them (validated again, with a memo),
 * in memory of their own, returned, so that the cached walks take them;
 * none (NULL) for a UIT too large for them.
 */
static void *add_shapes(struct uw2_table *t, const u8 *blob, u32 len)
{
	struct uw2_check c = { .memo = calloc(1, UW2_MEMO_BYTES(len)) };
	void *scratch, *mem = NULL;
	u32 bytes;

	/* what passed without a memo passes with one */
	if (uw2_table_check(t, blob, len, &c, NULL) != UW2_OK)
		abort();
	scratch = malloc(uw2_shapes_scratch_bytes(t) + 1);
	bytes = uw2_shapes_find(t, scratch, &c);
	if (bytes) {
		mem = malloc(bytes);
		uw2_shapes_store(t, scratch, mem, bytes);
	}
	free(scratch);
	free(c.memo);
	return mem;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct uw2_verror err;
	struct uw2_table t;
	void *shapes;
	size_t tlen;
	u8 *blob;

	if (size < 2)
		return 0;
	tlen = data[0] | (size_t)data[1] << 8;
	if (tlen > size - 2)
		tlen = size - 2;
	blob = malloc(tlen ? tlen : 1);
	memcpy(blob, data + 2, tlen);
	memo_agrees(blob, (u32)tlen);
	if (uw2_table_init(&t, blob, (u32)tlen, &err) == UW2_OK) {
		if (err.code != UW2_OK)
			abort();
		shapes = add_shapes(&t, blob, (u32)tlen);
		unwind_one(&t, data + 2 + tlen, size - 2 - tlen);
		free(shapes);
	} else if (err.code == UW2_OK || err.offset > tlen ||
		   !uw2_verr_str(err.code)) {
		abort();
	}
	free(blob);
	return 0;
}
