/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading an ARM32 ELF for the table generator: metadata (build-id, .text,
 * load segments, symbols), DWARF CFI through libdw, and the EHABI index.
 */
#ifndef UWPROF_TABLE_ELF_H
#define UWPROF_TABLE_ELF_H

#include <gelf.h>

#include "table/table.h"
#include "lib/uwt.h"

struct tb_sym {
	u32 addr;		/* Thumb bit cleared */
	u32 size;
	const char *name;
	bool thumb;		/* the symbol's value had bit 0 set */
	bool found;		/* no symbol: a start discovery found */
};

/* ARM ELF mapping symbols: where ARM code, Thumb code and data start. */
struct tb_map {
	u32 addr;
	char kind;		/* 'a', 't' or 'd' */
};

/* A computed jump's target that function discovery read in its table. */
struct tb_jump {
	u32 site, target;
};

/* An executable section (SHF_EXECINSTR, allocated, with bytes). */
struct tb_sec {
	u32 addr, size;
	char name[32];
};

#define TB_MAX_SECS	32

struct tb_dec;

struct tb_elf {
	int fd;
	void *elf;		/* Elf * */
	void *dwarf;		/* Dwarf *, or NULL without .debug_frame */
	/* The separate debug file (tb_elf_attach_debug), or -1/NULL. */
	int dbg_fd;
	void *dbg_elf;		/* Elf * */
	void *dbg_dwarf;	/* Dwarf * */
	char dbg_path[4096];
	u32 dbg_frame_bytes;	/* its .debug_frame, uncompressed */
	bool dbg_frame_compressed;
	struct uwt_meta meta;
	struct tb_sym *syms;	/* FUNC symbols, sorted by address */
	u32 nsyms;
	struct tb_map *maps;	/* mapping symbols, sorted by address */
	u32 nmaps;
	bool maps_found;	/* maps are discovery's, not the file's */
	bool entry_found_later;	/* discovery bounds a sizeless entry */
	struct tb_jump *jumps;	/* by site, then target (discovery) */
	u32 njumps;
	u32 exidx_entries, exidx_bytes, extab_bytes, debug_frame_bytes,
	    eh_frame_bytes;
	struct tb_sec secs[TB_MAX_SECS];	/* executable, by address */
	u32 nsecs;
	u32 dot_text_addr, dot_text_size;	/* .text itself */
	bool has_symtab, has_debugdata, has_debuglink;
	void *dwfl;		/* Dwfl * holding names from extsyms.c */
	struct tb_dec *dec;	/* instructions decoded once (decode_once.h),
				 * from the first tb_elf_decoder() */
	/* the section tb_elf_read() found last: bytes, address, size, and
	 * whether nothing writes it */
	const u8 *rd_b;
	u32 rd_addr, rd_size;
	bool rd_ro;
};

/*
 * A stripped file's function symbols from its MiniDebugInfo
 * (.gnu_debugdata) or a debug file its .gnu_debuglink names (libdwfl's
 * standard places; not without @debuglink, as for --no-debug-file),
 * joining @e's (extsyms.c) and sorted with them.  Only for a file without
 * .symtab.  Returns the number added, or -1 (memory).
 */
int tb_elf_read_ext_symbols(struct tb_elf *e, const char *path,
			    bool debuglink);

/* Sort @e's symbols and mapping symbols by address (after adding some). */
void tb_elf_sort_symbols(struct tb_elf *e);

/*
 * Is @addr a program's entry point: the ELF's e_entry in an executable, a
 * position-independent one (ET_DYN with an interpreter), or an ET_DYN
 * that needs no library and has no interpreter (the dynamic loader, where
 * the kernel starts a dynamic program; a static PIE)?  A process's first
 * instruction, its main thread's outermost frame.
 */
bool tb_elf_program_entry(const struct tb_elf *e, u32 addr);

/* Open @path and read its metadata; 0, or -1 with a message in @err. */
int tb_elf_open(struct tb_elf *e, const char *path, char *err, size_t errlen);
void tb_elf_close(struct tb_elf *e);

/*
 * The separate debug file for @e: @file when given, else
 * DIR/.build-id/xx/rest.debug for each of @dirs in turn (by @e's
 * build-id).  Returns 1 with the path in @out, 0 when there is none.
 */
int tb_find_debug_file(const struct tb_elf *e, const char *file,
		       const char *const *dirs, u32 ndirs, char *out,
		       size_t outlen);

/*
 * Use @path as @e's separate debug file: its build-id must match @e's.
 * Its .symtab joins @e's symbols; tb_read_dwarf reads its .debug_frame
 * first.  0, or -1 with a message in @err.
 */
int tb_elf_attach_debug(struct tb_elf *e, const char *path, char *err,
			size_t errlen);

/*
 * Widen @e->meta's text_addr/text_size from .text to the code the table
 * covers: from the start of the first executable section to the end of
 * the last one inside the R-X PT_LOAD that holds .text (.init, .plt,
 * .iplt, .text, __libc_freeres_fn, .fini).  Default mode only:
 * --chrome-compat keeps .text.
 */
void tb_elf_cover_code(struct tb_elf *e);

/* The executable section holding @addr, or NULL. */
const struct tb_sec *tb_elf_sec(const struct tb_elf *e, u32 addr);

/*
 * The next section of @elf after @scn (NULL: the first) that has a header
 * and a name: its header in *@sh and name in *@name; NULL after the last.
 * @shstrndx is elf_getshdrstrndx()'s.
 */
Elf_Scn *tb_elf_next_named(Elf *elf, size_t shstrndx, Elf_Scn *scn,
			   GElf_Shdr *sh, const char **name);

/*
 * The file's bytes at link address [@addr, @addr + @size), inside one
 * allocated section that has bytes in the file (with @ro, a PROGBITS one
 * nothing writes), or NULL.
 */
const u8 *tb_elf_read(struct tb_elf *e, u32 addr, u32 size, bool ro);

/* The bytes of executable section @s (NULL when unreadable). */
const u8 *tb_elf_sec_bytes(struct tb_elf *e, const struct tb_sec *s);

/*
 * Halfwords from the text's start (meta.text_addr & ~1) to its end: the
 * code discovery and the decoder cover; 0 for a span far beyond the bytes
 * of the executable sections, a crafted file's (fuzz_table: 2 GiB of
 * .text in 1 KiB asked for a 1 GiB map), not code to walk.
 */
u32 tb_elf_text_halfwords(struct tb_elf *e);

/*
 * @e's instructions decoded once (decode_once.h), shared by discovery
 * and prologue analysis; opened on the first call, closed with @e.  NULL
 * (capstone, memory).
 */
struct tb_dec *tb_elf_decoder(struct tb_elf *e);

/*
 * PLT stubs (.plt, .iplt) decoded into functions (source TB_SRC_PLT),
 * then every part of an executable section other than .text that no
 * function covers made a refusal (TB_SRC_UNCOVERED).  Default mode,
 * after tb_elf_cover_code and every other source.  Returns the number
 * of PLT functions added, or -1 (capstone or memory).
 */
int tb_plt_pass(struct tb_elf *e, struct tb_input *in,
		struct tb_notes *notes);

/* The first symbol at or above @addr (@e->syms is sorted by address). */
u32 tb_elf_first_sym(const struct tb_elf *e, u32 addr);

/* The mapping symbol in force at @addr ('a', 't', 'd'), or 0. */
char tb_elf_map_at(const struct tb_elf *e, u32 addr);

/* How many mapping symbols are at or before @addr (the index of the
 * first one above it). */
u32 tb_elf_maps_upto(const struct tb_elf *e, u32 addr);

/*
 * Calls made with the return address saved nowhere (still in lr, which
 * the call overwrites) can never return: nothing above their frame runs
 * again.  For each such call in a function with CFI rows, a row marks
 * the call's return address (looked up 2 bytes before it) with the
 * never-returning-call marker.  Needs mapping symbols; default mode,
 * after every other source.  Returns the number of call sites marked,
 * or -1 (capstone or memory).
 */
int tb_noreturn_pass(struct tb_elf *e, struct tb_input *in);

/* The function symbol containing @addr, or NULL. */
const struct tb_sym *tb_elf_sym(const struct tb_elf *e, u32 addr);

/*
 * DWARF CFI (.debug_frame first, then .eh_frame for functions it lacks):
 * one function per FDE, one row at every address where the CFI changes.
 * Returns the number of functions added or -1.
 */
int tb_read_dwarf(struct tb_elf *e, struct tb_input *in, char *err,
		  size_t errlen);

/*
 * .ARM.exidx/.ARM.extab for code that no DWARF function covers.  Adds
 * functions with source TB_SRC_EHABI (their opcodes in ->ehabi) and root
 * ranges for _start and clone.  Returns the number added or -1.
 */
int tb_read_ehabi(struct tb_elf *e, struct tb_input *in,
		  struct tb_notes *notes, char *err, size_t errlen);

/*
 * Decode one exidx entry's opcodes (the second word and, for extab
 * entries, the table words).  Returns the opcode count in @ops (without
 * trailing padding finishes, with one B0 at the end), 0 for CANTUNWIND,
 * -1 for an entry uwprof cannot decode.
 */
/*
 * A clone wrapper of a C library (glibc's __clone, musl's __clone,
 * bionic's __bionic_clone): its child path is a thread's outermost frame.
 */
bool tb_thread_entry_sym(const char *name);

/* Root markers for thread entry code that has no unwind information. */
int tb_add_uncovered_roots(struct tb_elf *e, struct tb_input *in);

int tb_ehabi_decode(const u8 *words, u32 nwords, u8 *ops, u32 max);

/* Check EHABI opcodes against what the unwinder executes. */
bool tb_ehabi_ops_ok(const u8 *ops, u32 n);

#endif
