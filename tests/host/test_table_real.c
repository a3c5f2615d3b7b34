// SPDX-License-Identifier: GPL-2.0
/*
 * uwprof table on real code.
 *
 * lua5.4 built with gcc and with clang (-O2 -g, Thumb-2): every FDE is a
 * function of the table, and at every CFI row address one unwind step
 * through the table (uwprof's unwinder, synthetic registers and stack)
 * lands on the CFA and the return address that libdw computes from the
 * same CFI.  Rows the table refuses must be listed in the generator's
 * report with a reason; they are counted by reason.
 *
 * Debian's libc.so.6 (armhf): every .ARM.exidx entry that is not
 * CANTUNWIND starts a function of the table, with a sequence that
 * unwinds (not a refusal).
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "harness.h"
#include "unwind_v2.h"
#include "lib/uwt.h"

static const char *build_dir(void)
{
	const char *b = getenv("BUILD");

	return b && *b ? b : "build";
}

static const char *uwprof(void)
{
	const char *u = getenv("UWPROF");

	return u && *u ? u : "build/host/uwprof";
}

static bool ensure_inputs(void)
{
	char path[512], cmd[1024];

	snprintf(path, sizeof(path), "%s/arm/lua-clang/lua", build_dir());
	if (!access(path, R_OK))
		return true;
	snprintf(cmd, sizeof(cmd), "scripts/build-lua.sh '%s' >&2", build_dir());
	return system(cmd) == 0 && !access(path, R_OK);
}

/* Generate with the real command; returns the loaded blob. */
static bool generate_with(const char *elf, const char *tag, const char *args,
			  struct uwt_file *u, char *report, size_t rlen)
{
	char out[512], cmd[2048], err[256];

	snprintf(out, sizeof(out), "%s/host/tests/%s.uwt", build_dir(), tag);
	snprintf(report, rlen, "%s/host/tests/%s.report", build_dir(), tag);
	snprintf(cmd, sizeof(cmd), "'%s' table '%s' %s -o '%s' --report '%s'",
		 uwprof(), elf, args, out, report);
	if (system(cmd)) {
		th_fail(__FILE__, __LINE__, "%s failed", cmd);
		return false;
	}
	if (uwt_load_file(out, u, err, sizeof(err))) {
		th_fail(__FILE__, __LINE__, "%s", err);
		return false;
	}
	return true;
}

static bool generate(const char *elf, const char *tag, struct uwt_file *u,
		     char *report, size_t rlen)
{
	return generate_with(elf, tag, "", u, report, rlen);
}

/* ---- synthetic stack ---- */

#define STK_LO	0x100000u
#define STK_HI	0x110000u
#define CFA_AT	0x108000u

static u32 stack_word(u32 addr)
{
	/* Distinct, even, outside any module: popped values are known. */
	return 0xc0000000u | addr;
}

static int read_word(void *ctx, u32 addr, u32 *val)
{
	(void)ctx;
	*val = stack_word(addr);
	return 0;
}

struct counts {
	u32 rows, agree, refused, refused_listed, root, fdes, fdes_found;
	u32 by_reason[32];
	char reason_names[32][64];
	u32 nreasons;
};

/* The report line for a row address, "name func addr reason detail". */
static const char *report_reason(const char *report, u32 addr, char *buf,
				 size_t len)
{
	FILE *f = fopen(report, "r");
	char line[512], name[256], reason[64];
	unsigned int fn, a;

	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%255s %x %x %63s", name, &fn, &a, reason) == 4 &&
		    a == addr) {
			fclose(f);
			snprintf(buf, len, "%s", reason);
			return buf;
		}
	fclose(f);
	return NULL;
}

static void count_reason(struct counts *c, const char *r)
{
	u32 i;

	for (i = 0; i < c->nreasons; i++)
		if (!strcmp(c->reason_names[i], r))
			break;
	if (i == c->nreasons && c->nreasons < 32)
		snprintf(c->reason_names[c->nreasons++], 64, "%s", r);
	if (i < 32)
		c->by_reason[i]++;
}

static void note_refused(u32 addr, const char *report, struct counts *c)
{
	char buf[64];
	const char *why = report_reason(report, addr, buf, sizeof(buf));

	c->refused++;
	if (why) {
		c->refused_listed++;
		count_reason(c, why);
	} else {
		th_fail(__FILE__, __LINE__, "0x%x: refused but not in the report",
			addr);
	}
}

struct mod_table {
	const struct uwt_file *u;
	const struct uw2_table *t;
};

static struct mod_table mod_table(const struct uwt_file *u,
				  const struct uw2_table *t)
{
	return (struct mod_table){ u, t };
}

/* A row libdw states in a form the format cannot hold: it must refuse. */
static void expect_refused(u32 addr, struct mod_table m, const char *report,
			   struct counts *c)
{
	u32 instr, fot, uit;

	c->rows++;
	if (uw2_lookup_function(m.t, addr - m.u->meta.text_addr, &instr, &fot) &&
	    uw2_lookup_sequence(m.t, fot, instr, &uit) &&
	    m.t->uit[uit] == 0x80 && m.t->uit[uit + 1] == 0) {
		note_refused(addr, report, c);
		return;
	}
	th_fail(__FILE__, __LINE__,
		"0x%x: CFA or return address not reg/offset, yet the table does not refuse",
		addr);
}

/*
 * One row: registers chosen so the CFA is CFA_AT (8-aligned), every other
 * register distinct; the expected caller sp and pc come from libdw.
 */
static void check_row(Dwarf_CFI *cfi, u32 addr, u32 row, const struct uwt_file *u,
		      const struct uw2_table *t, const char *report,
		      struct counts *c)
{
	struct uw2_module mod = { u->meta.text_addr,
				  u->meta.text_addr + u->meta.text_size, t,
				  0, 0 };
	struct uw2_stack stk = { .lo = STK_LO, .hi = STK_HI, .read = read_word };
	struct uw2_regs regs;
	Dwarf_Frame *fr;
	Dwarf_Op *ops, mem[3];
	size_t n;
	u32 frames[4], nf, want_pc;
	enum uw2_stop stop;
	bool root = false;

	if (dwarf_cfi_addrframe(cfi, addr, &fr))
		return;
	for (int r = 0; r < 16; r++)
		regs.r[r] = 0xa0000000u + 0x100 * r;
	if (dwarf_frame_cfa(fr, &ops, &n) || n != 1 || ops[0].atom != DW_OP_bregx) {
		/* Not expressible: the table must refuse, and say why. */
		free(fr);
		expect_refused(row, mod_table(u, t), report, c);
		return;
	}
	regs.r[ops[0].number] = CFA_AT - (u32)ops[0].number2;
	/* sp below the frame's slots, and below a frame pointer that
	 * points low into a large frame. */
	if (ops[0].number != 13)
		regs.r[13] = (CFA_AT - 0x800 < regs.r[ops[0].number] ?
			      CFA_AT - 0x800 : regs.r[ops[0].number]) - 0x100;
	regs.r[14] = 0xb0000000u;		/* lr: outside any module */
	regs.r[15] = addr;
	if (dwarf_frame_register(fr, 14, mem, &ops, &n)) {
		free(fr);
		return;
	}
	if (!n && ops) {
		root = true;			/* undefined return address */
		want_pc = 0;
	} else if (!n) {
		want_pc = regs.r[14];		/* same value: still in lr */
	} else if (n == 2 && ops[0].atom == DW_OP_call_frame_cfa &&
		   ops[1].atom == DW_OP_plus_uconst) {
		want_pc = stack_word(CFA_AT + (u32)ops[1].number);
	} else {
		free(fr);
		expect_refused(row, mod_table(u, t), report, c);
		return;
	}
	free(fr);
	c->rows++;
	stop = uw2_unwind(&mod, 1, &regs, &stk, frames, 4, &nf, 0);
	if (root && stop == UW2_STOP_ROOT) {
		c->root++;
		c->agree++;
		return;
	}
	if (stop == UW2_STOP_REFUSED) {
		/* The report names the row, by its first address. */
		note_refused(row, report, c);
		return;
	}
	if (nf < 2 || regs.r[13] != CFA_AT || frames[1] != want_pc) {
		th_fail(__FILE__, __LINE__,
			"0x%x: stop %s frames %u sp 0x%x (want 0x%x) ra 0x%x (want 0x%x)",
			addr, uw2_stop_name(stop), nf, regs.r[13], CFA_AT,
			nf > 1 ? frames[1] : 0, want_pc);
		return;
	}
	c->agree++;
}

static Elf_Data *section(Elf *elf, const char *want, GElf_Shdr *out)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	elf_getshdrstrndx(elf, &shstrndx);
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		gelf_getshdr(scn, out);
		name = elf_strptr(elf, shstrndx, out->sh_name);
		if (!name || strcmp(name, want))
			continue;
		/* Debian's debug files compress their sections. */
		if ((out->sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
			return NULL;
		return elf_getdata(scn, NULL);
	}
	return NULL;
}

/*
 * The differential check: @elfpath's table (made with @args) against
 * libdw on the .debug_frame of @cfipath (the ELF itself, or its separate
 * debug file), at every row of every @every-th FDE.
 */
struct diff_case {
	const char *tag, *elfpath, *cfipath, *args;
	u32 every;
	bool compressed;	/* out: the .debug_frame was SHF_COMPRESSED */
};

static void differential_case(struct diff_case *dc, struct counts *c)
{
	char report[512];
	struct uwt_file u;
	struct uw2_table t;
	GElf_Shdr sh;
	Elf_Data *d;
	Dwarf *dw;
	Dwarf_CFI *cfi;
	Dwarf_Off off = 0, next;
	u32 nth = 0;
	int fd;
	Elf *elf;

	memset(c, 0, sizeof(*c));
	if (!generate_with(dc->elfpath, dc->tag, dc->args, &u, report,
			   sizeof(report)))
		return;
	CHECK(u.container);
	CHECK_EQ_U32(uw2_table_init(&t, u.blob, u.blob_size, NULL), UW2_OK);
	elf_version(EV_CURRENT);
	fd = open(dc->cfipath, O_RDONLY);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	d = section(elf, ".debug_frame", &sh);
	dc->compressed = sh.sh_flags & SHF_COMPRESSED;
	dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	cfi = dw ? dwarf_getcfi(dw) : NULL;
	CHECK(cfi && d);
	while (cfi && d && off < d->d_size) {
		Dwarf_CFI_Entry ent;
		u32 lo, range, addr, instr, fot;

		if (dwarf_next_cfi((const unsigned char *)elf_getident(elf, NULL), d, false, off, &next,
				   &ent))
			break;
		off = next;
		if (dwarf_cfi_cie_p(&ent))
			continue;
		memcpy(&lo, ent.fde.start, 4);
		memcpy(&range, ent.fde.start + 4, 4);
		lo &= ~1u;
		if (!lo || !range || nth++ % dc->every)
			continue;
		c->fdes++;
		/* The FDE start is a function start in the table. */
		if (uw2_lookup_function(&t, lo - u.meta.text_addr, &instr, &fot) &&
		    instr == 0)
			c->fdes_found++;
		else
			th_fail(__FILE__, __LINE__, "%s: FDE 0x%x not a table function",
				dc->tag, lo);
		/* Every row, and the middle of long rows. */
		for (addr = lo; addr < lo + range;) {
			Dwarf_Frame *fr;
			Dwarf_Addr s, e;

			if (dwarf_cfi_addrframe(cfi, addr, &fr))
				break;
			dwarf_frame_info(fr, &s, &e, NULL);
			free(fr);
			check_row(cfi, addr, addr, &u, &t, report, c);
			if (e > addr + 4)
				check_row(cfi, ((addr + e) / 2) & ~1u, addr, &u, &t,
					  report, c);
			if (e <= addr)
				break;
			addr = e;
		}
	}
	printf("# %s: %u FDEs checked, %u in the table; %u row checks, %u agree with libdw (%u root), %u refused (%u listed in the report)\n",
	       dc->tag, c->fdes, c->fdes_found, c->rows, c->agree, c->root,
	       c->refused, c->refused_listed);
	for (u32 i = 0; i < c->nreasons; i++)
		printf("#   not expressible: %s %u rows\n", c->reason_names[i],
		       c->by_reason[i]);
	CHECK_EQ_U32(c->fdes_found, c->fdes);
	CHECK_EQ_U32(c->agree + c->refused, c->rows);
	CHECK_EQ_U32(c->refused_listed, c->refused);
	if (dw)
		dwarf_end(dw);
	elf_end(elf);
	close(fd);
	free(u.buf);
}

static void differential(const char *tag)
{
	char elfpath[512];
	struct diff_case dc = { tag, elfpath, elfpath, "", 1, false };
	struct counts c;

	snprintf(elfpath, sizeof(elfpath), "%s/arm/%s/lua", build_dir(), tag);
	differential_case(&dc, &c);
	CHECK(c.fdes > 300);
	/* Most rows must be expressible, not refused wholesale. */
	CHECK(c.agree * 100 >= c.rows * 95);
}

TEST(lua_gcc_differential)
{
	CHECK(ensure_inputs());
	differential("lua-gcc");
}

TEST(lua_clang_differential)
{
	CHECK(ensure_inputs());
	differential("lua-clang");
}

static u32 rd32(const u8 *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (u32)p[3] << 24;
}

/* Does @report name the function at @fn with @reason? */
static bool reported(const char *report, u32 fn, const char *reason)
{
	char line[512], want[64];
	FILE *f = fopen(report, "r");
	bool hit = false;

	if (!f)
		return false;
	snprintf(want, sizeof(want), " 0x%x ", fn);
	while (!hit && fgets(line, sizeof(line), f))
		hit = strstr(line, want) && strstr(line, reason);
	fclose(f);
	return hit;
}

/* Is @ops, @n bytes, the sequence of some row of the function at @off? */
static bool holds_seq(const struct uw2_table *t, u32 off, const u8 *ops,
		      u32 n)
{
	u32 fot, uit, instr;

	/* each halfword of the function, up to where the next one starts */
	for (u32 k = 0; k < 4096; k++) {
		u32 f;

		if (!uw2_lookup_function(t, off + 2 * k, &instr, &f) ||
		    instr != k || (k && f != fot))
			break;
		fot = f;
		if (uw2_lookup_sequence(t, fot, k, &uit) &&
		    uit + n <= t->uit_size && !memcmp(t->uit + uit, ops, n))
			return true;
	}
	return false;
}

TEST(libc_exidx_coverage)
{
	char path[512], report[512];
	struct uwt_file u;
	struct uw2_table t;
	GElf_Shdr sh;
	Elf_Data *d;
	u32 entries = 0, cant = 0, found = 0, inline_same = 0, inl = 0;
	u32 unproven = 0;
	int fd;
	Elf *elf;

	CHECK(ensure_inputs());
	snprintf(path, sizeof(path),
		 "%s/arm/libc6/lib/arm-linux-gnueabihf/libc.so.6", build_dir());
	if (!generate(path, "libc", &u, report, sizeof(report)))
		return;
	CHECK_EQ_U32(uw2_table_init(&t, u.blob, u.blob_size, NULL), UW2_OK);
	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	d = section(elf, ".ARM.exidx", &sh);
	CHECK(d != NULL);
	for (u32 i = 0; d && i + 8 <= d->d_size; i += 8) {
		const u8 *p = (const u8 *)d->d_buf + i;
		u32 fn = sh.sh_addr + i + (u32)(((s32)(rd32(p) << 1)) >> 1);
		u32 w = rd32(p + 4), instr, fot, uit;

		fn &= ~1u;
		entries++;
		if (w == 1) {
			cant++;
			continue;
		}
		if (!uw2_lookup_function(&t, fn - u.meta.text_addr, &instr, &fot) ||
		    instr || !uw2_lookup_sequence(&t, fot, 0, &uit)) {
			th_fail(__FILE__, __LINE__, "exidx entry 0x%x missing", fn);
			continue;
		}
		/* refused only where the report says the code and the
		 * opcodes disagree (prologue_ehabi.c) */
		if (t.uit[uit] == 0x80 && t.uit[uit + 1] == 0) {
			if (!reported(report, fn, "ehabi-unproven"))
				th_fail(__FILE__, __LINE__, "exidx entry 0x%x refused", fn);
			unproven++;
			continue;
		}
		found++;
		/*
		 * Inline PR0 entries: the table holds exactly their opcodes,
		 * in the body (at +0 the entry's row, the return address
		 * still in lr, once the prologue is checked).
		 */
		if (w & 0x80000000u && !((w >> 24) & 0xf)) {
			u8 ops[4] = { w >> 16, w >> 8, w, 0xb0 };
			u32 n = 3;

			while (n && ops[n - 1] == 0xb0)
				n--;
			ops[n++] = 0xb0;
			inl++;
			if (holds_seq(&t, fn - u.meta.text_addr, ops, n))
				inline_same++;
		}
	}
	printf("# libc.so.6: %u exidx entries, %u CANTUNWIND, %u unwindable entries in the table, %u refused (ehabi-unproven); %u/%u inline entries byte-identical in a row\n",
	       entries, cant, found, unproven, inline_same, inl);
	CHECK(entries > 500);
	CHECK(found > 400);
	CHECK_EQ_U32(inline_same, inl);
	elf_end(elf);
	close(fd);
	free(u.buf);
}

/* ---- Debian's libc.so.6 with its separate debug file (libc6-dbg) ---- */

static void libc_path(char *buf, size_t n)
{
	snprintf(buf, n, "%s/arm/root/lib/arm-linux-gnueabihf/libc.so.6",
		 build_dir());
}

static void dbg_dir(char *buf, size_t n)
{
	snprintf(buf, n, "%s/arm/dbg/usr/lib/debug", build_dir());
}

/* DIR/.build-id/xx/rest.debug for @elf's build-id; false without one. */
static bool debug_file_of(const char *elf, char *out, size_t n)
{
	char hex[65] = "", dir[256];
	Elf_Scn *scn = NULL;
	int fd = open(elf, O_RDONLY);
	Elf *e;

	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	while (e && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		GElf_Nhdr nh;
		size_t no, dof, o = 0;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		while (d && (o = gelf_getnote(d, o, &nh, &no, &dof)))
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_descsz <= 32)
				for (u32 i = 0; i < nh.n_descsz; i++)
					sprintf(hex + 2 * i, "%02x",
						((u8 *)d->d_buf)[dof + i]);
	}
	if (e)
		elf_end(e);
	close(fd);
	dbg_dir(dir, sizeof(dir));
	snprintf(out, n, "%s/.build-id/%.2s/%s.debug", dir, hex, hex + 2);
	return hex[0] && !access(out, R_OK);
}

static bool have_libc_dbg(char *dbg, size_t n)
{
	char libc[512];

	libc_path(libc, sizeof(libc));
	if (debug_file_of(libc, dbg, n))
		return true;
	th_fail(__FILE__, __LINE__,
		"%s: no debug file (%s); 'make setup' unpacks libc6-dbg:armhf into build/arm/dbg",
		libc, dbg);
	return false;
}

/* How many report lines name @source for a function called @name (NULL:
 * any function). */
static u32 report_count(const char *report, const char *name,
			const char *source)
{
	FILE *f = fopen(report, "r");
	char line[512], fn[256], why[64];
	unsigned int a, b;
	u32 n = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%255s %x %x %63s", fn, &a, &b, why) == 4 &&
		    !strcmp(why, source) && (!name || !strcmp(fn, name)))
			n++;
	if (f)
		fclose(f);
	return n;
}

TEST(libc_debug_file_coverage)
{
	static const char *const hot[] = { "memset", "strspn", "__memcpy_neon",
					   "__vfprintf_internal", "_int_malloc" };
	char libc[512], dbg[512], dir[512], args[1024], rep0[512], rep1[512];
	struct uwt_file u0, u1;

	if (!have_libc_dbg(dbg, sizeof(dbg)))
		return;
	libc_path(libc, sizeof(libc));
	dbg_dir(dir, sizeof(dir));
	snprintf(args, sizeof(args), "--debug-dir '%s'", dir);
	if (!generate_with(libc, "libc-nodbg", "--no-debug-file", &u0, rep0,
			   sizeof(rep0)) ||
	    !generate_with(libc, "libc-dbg", args, &u1, rep1, sizeof(rep1)))
		return;
	printf("# libc.so.6 .text covered: %u of %u bytes (%.1f%%) from exidx alone, %u of %u (%.1f%%) with the debug file\n",
	       u0.meta.text_covered, u0.meta.text_size,
	       100.0 * u0.meta.text_covered / u0.meta.text_size,
	       u1.meta.text_covered, u1.meta.text_size,
	       100.0 * u1.meta.text_covered / u1.meta.text_size);
	CHECK(!(u0.meta.sources & UWT_SRC_DEBUG_FILE));
	CHECK(u1.meta.sources & UWT_SRC_DEBUG_FILE);
	CHECK(u1.meta.text_covered > u0.meta.text_covered);
	/* glibc's CFI covers nearly all of its code, asm included. */
	CHECK((uint64_t)u1.meta.text_covered * 100 >= (uint64_t)u1.meta.text_size * 95);
	CHECK(report_count(rep1, NULL, "debug-file") > 3000);
	CHECK_EQ_U32(report_count(rep0, NULL, "debug-file"), 0);
	/* The functions the demo's samples stopped in now have DWARF rows. */
	for (u32 i = 0; i < sizeof(hot) / sizeof(hot[0]); i++)
		if (!report_count(rep1, hot[i], "debug-file"))
			th_fail(__FILE__, __LINE__, "%s not from the debug file",
				hot[i]);
	free(u0.buf);
	free(u1.buf);
}

TEST(libc_debug_file_differential)
{
	char libc[512], dbg[512], dir[512], args[1024];
	struct diff_case dc = { "libc-dbg-diff", libc, dbg, args, 1, false };
	struct counts c;

	if (!have_libc_dbg(dbg, sizeof(dbg)))
		return;
	libc_path(libc, sizeof(libc));
	dbg_dir(dir, sizeof(dir));
	snprintf(args, sizeof(args), "--debug-dir '%s'", dir);
	differential_case(&dc, &c);
	/* Debian compresses it: libdw must have read it all the same. */
	CHECK(dc.compressed);
	CHECK(c.fdes > 3000);
	CHECK(c.agree * 100 >= c.rows * 99);
}

/* A debug file of another build is refused with a message, never used. */
TEST(libc_debug_file_mismatch)
{
	char libc[512], dbg[512], libm[512], other[512], cmd[2048];
	char errf[512], msg[1024] = "";
	FILE *f;
	int rc;

	if (!have_libc_dbg(dbg, sizeof(dbg)))
		return;
	libc_path(libc, sizeof(libc));
	snprintf(libm, sizeof(libm), "%s/arm/root/lib/arm-linux-gnueabihf/libm.so.6",
		 build_dir());
	if (!debug_file_of(libm, other, sizeof(other))) {
		th_fail(__FILE__, __LINE__, "no debug file for libm.so.6");
		return;
	}
	snprintf(errf, sizeof(errf), "%s/host/tests/mismatch.err", build_dir());
	snprintf(cmd, sizeof(cmd),
		 "'%s' table '%s' --debug-file '%s' -o /dev/null 2>'%s'",
		 uwprof(), libc, other, errf);
	rc = system(cmd);
	CHECK(WIFEXITED(rc) && WEXITSTATUS(rc) == 2);
	f = fopen(errf, "r");
	if (f) {
		if (!fgets(msg, sizeof(msg), f))
			msg[0] = 0;
		fclose(f);
	}
	CHECK(strstr(msg, "build-id") != NULL);
	CHECK(strstr(msg, "another build") != NULL);
}

/* ---- code outside .text: PLT stubs ---- */

/*
 * Every pc of .plt and .iplt resolves to a function of the table, and one
 * unwind step from it (uwprof's unwinder) gives what the stub does: an
 * entry touches neither sp nor lr, so the frame returns to lr with sp
 * unchanged; PLT0 returns to lr at its first instruction and, after its
 * "str lr, [sp, #-4]!", pops lr back (sp + 4).  lr points into a
 * function of .text, as after a call.  Returns the pcs checked.
 */
static u32 plt_case(const char *elf, const char *tag)
{
	struct uwt_file u;
	struct uw2_table t;
	char report[512];
	u32 checked = 0, caller = 0;
	Elf *e;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int fd;

	if (!generate(elf, tag, &u, report, sizeof(report)))
		return 0;
	CHECK_EQ_U32(uw2_table_init(&t, u.blob, u.blob_size, NULL), UW2_OK);
	fd = open(elf, O_RDONLY);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_getshdrstrndx(e, &shstrndx)) {
		th_fail(__FILE__, __LINE__, "%s: not an ELF", elf);
		return 0;
	}
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) ||
		    !(name = elf_strptr(e, shstrndx, sh.sh_name)))
			continue;
		if (!strcmp(name, ".text")) {
			caller = (u32)sh.sh_addr + 0x100;
			/* The region starts at or below .text. */
			CHECK(u.meta.text_addr <= sh.sh_addr);
			CHECK(u.meta.text_addr + u.meta.text_size >=
			      sh.sh_addr + sh.sh_size);
		}
	}
	scn = NULL;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name;
		bool plt;

		if (!gelf_getshdr(scn, &sh) ||
		    !(name = elf_strptr(e, shstrndx, sh.sh_name)))
			continue;
		plt = !strcmp(name, ".plt");
		if (!plt && strcmp(name, ".iplt"))
			continue;
		CHECK(sh.sh_addr >= u.meta.text_addr);
		for (u32 pc = (u32)sh.sh_addr; pc < sh.sh_addr + sh.sh_size;
		     pc += 4) {
			struct uw2_module mod = { u.meta.text_addr,
				u.meta.text_addr + u.meta.text_size, &t, 0, 0 };
			struct uw2_stack stk = { .lo = STK_LO, .hi = STK_HI, .read = read_word };
			struct uw2_regs regs;
			u32 off = pc - (u32)sh.sh_addr, frames[2], nf;
			u32 sp = CFA_AT, want_pc = caller;
			enum uw2_stop stop;

			if (plt && off == 16)
				continue;	/* PLT0's literal word */
			if (plt && off >= 4 && off < 16) {
				sp = CFA_AT - 4;	/* lr pushed */
				want_pc = stack_word(sp);
			}
			for (int r = 0; r < 16; r++)
				regs.r[r] = 0xa0000000u + 0x100 * r;
			regs.r[13] = sp;
			regs.r[14] = caller;
			regs.r[15] = pc;
			stop = uw2_unwind(&mod, 1, &regs, &stk, frames, 1, &nf, 0);
			checked++;
			if (stop != UW2_STOP_MAX_DEPTH || regs.r[13] != CFA_AT ||
			    regs.r[15] != want_pc)
				th_fail(__FILE__, __LINE__,
					"%s %s+0x%x (0x%x): stop %s sp 0x%x (want 0x%x) pc 0x%x (want 0x%x)",
					tag, name, off, pc, uw2_stop_name(stop),
					regs.r[13], CFA_AT, regs.r[15], want_pc);
		}
	}
	CHECK(caller != 0);
	elf_end(e);
	close(fd);
	free(u.buf);
	return checked;
}

TEST(plt_stubs_unwind)
{
	char lua[512], libc[512];
	u32 n;

	if (!ensure_inputs()) {
		th_fail(__FILE__, __LINE__, "lua builds missing");
		return;
	}
	elf_version(EV_CURRENT);
	snprintf(lua, sizeof(lua), "%s/arm/lua-gcc/lua", build_dir());
	n = plt_case(lua, "plt-lua-gcc");
	CHECK(n > 250);
	snprintf(lua, sizeof(lua), "%s/arm/lua-clang/lua", build_dir());
	n = plt_case(lua, "plt-lua-clang");
	CHECK(n > 250);
	/* Stripped, no mapping symbols; has .iplt too. */
	libc_path(libc, sizeof(libc));
	n = plt_case(libc, "plt-libc");
	CHECK(n > 50);
	printf("# PLT pcs unwound: lua gcc/clang and libc.so.6 (.plt and .iplt)\n");
}

static u32 sec_addr(const char *elf, const char *want)
{
	int fd = open(elf, O_RDONLY);
	Elf *e;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	u32 addr = 0;

	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e && !elf_getshdrstrndx(e, &shstrndx))
		while ((scn = elf_nextscn(e, scn))) {
			GElf_Shdr sh;
			const char *name;

			if (gelf_getshdr(scn, &sh) &&
			    (name = elf_strptr(e, shstrndx, sh.sh_name)) &&
			    !strcmp(name, want))
				addr = (u32)sh.sh_addr;
		}
	if (e)
		elf_end(e);
	close(fd);
	return addr;
}

/* --chrome-compat keeps Chrome's .text as the table's start. */
TEST(plt_chrome_compat_keeps_text)
{
	char lua[512], report[512];
	struct uwt_file u;

	if (!ensure_inputs())
		return;
	snprintf(lua, sizeof(lua), "%s/arm/lua-gcc/lua", build_dir());
	if (!generate_with(lua, "plt-compat", "--chrome-compat", &u, report,
			   sizeof(report)))
		return;
	CHECK_EQ_U32(u.meta.text_addr, sec_addr(lua, ".text"));
	free(u.buf);
	/* The default mode starts at .init, below .text. */
	if (!generate(lua, "plt-default", &u, report, sizeof(report)))
		return;
	CHECK_EQ_U32(u.meta.text_addr, sec_addr(lua, ".init"));
	CHECK(u.meta.text_addr < sec_addr(lua, ".text"));
	free(u.buf);
}
