/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The .uwt container: a v2 table plus what is needed to attach it to a
 * running process.  Layout in docs/TABLES.md.
 *
 * This reader and writer use only libc, so the device-side tools (built
 * static for armhf) can load tables too.
 */
#ifndef UWPROF_TABLE_UWT_H
#define UWPROF_TABLE_UWT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define UWT_MAGIC	"UWPROFT\0"
#define UWT_VERSION	1	/* one table */
#define UWT_VERSION_PARTS 2	/* several tables over consecutive ranges */
#define UWT_MAX_PARTS	4096
#define UWT_MAX_SEGS	16
#define UWT_BUILD_ID_MAX 32

/* Source bits (uwt_meta.sources). */
#define UWT_SRC_DEBUG_FRAME	0x1
#define UWT_SRC_EH_FRAME	0x2
#define UWT_SRC_EXIDX		0x4
#define UWT_SRC_BREAKPAD	0x8
#define UWT_SRC_DEBUG_FILE	0x10	/* .debug_frame of a separate debug file */
#define UWT_SRC_PROLOGUE	0x20	/* prologue analysis */
#define UWT_SRC_PLT		0x40	/* decoded PLT stubs */

/* Flag bits (uwt_meta.flags). */
#define UWT_F_CHROME_COMPAT	0x1	/* built with --chrome-compat */
/*
 * Rows inside a runtime's builtins are made for them (table/v8builtins.c):
 * where that code is marked as JIT code, the module takes them first.
 */
#define UWT_F_JIT_ROWS		0x2

struct uwt_seg {
	uint32_t vaddr;		/* PT_LOAD p_vaddr */
	uint32_t offset;	/* p_offset */
	uint32_t filesz;
	uint32_t memsz;
	uint32_t flags;		/* PF_R/PF_W/PF_X */
};

struct uwt_meta {
	uint32_t flags;
	uint32_t sources;
	uint32_t text_addr;	/* start of the covered code (.text in
				 * --chrome-compat and breakpad tables) */
	uint32_t text_size;
	uint32_t build_id_len;
	uint8_t build_id[UWT_BUILD_ID_MAX];
	uint32_t nsegs;
	struct uwt_seg segs[UWT_MAX_SEGS];
	/* coverage */
	uint32_t funcs_total;	/* functions seen in the inputs */
	uint32_t funcs_in_table;
	uint32_t funcs_ehabi_only;
	uint32_t rows;		/* (offset, sequence) pairs */
	uint32_t text_covered;	/* bytes of .text inside table functions */
};

/*
 * One v2 table of a file and the link-time code it covers: its offsets
 * count from @text_addr.  A raw blob's part has text_addr and text_size 0.
 */
struct uwt_part {
	uint32_t text_addr;
	uint32_t text_size;
	const uint8_t *blob;
	uint32_t blob_size;
};

/*
 * A loaded table: @blob points into @buf, which the caller frees.  A file
 * of several parts (a code range too large for one v2 table) has @nparts
 * above 1; @blob is then its first part, and uwt_part() gives each.
 */
struct uwt_file {
	void *buf;
	uint32_t size;
	const uint8_t *blob;
	uint32_t blob_size;
	bool container;		/* false: a raw v2 blob */
	struct uwt_meta meta;	/* zero for a raw blob */
	uint32_t nparts;	/* 1 unless split */
	const uint8_t *part_list; /* version 2: the list, inside the file */
	uint32_t part_list_off;	/* its offset in the file */
};

/* Serialize; returns a malloc'd buffer and its size in @len, or NULL. */
uint8_t *uwt_build(const struct uwt_meta *m, const uint8_t *blob,
		   uint32_t blob_size, uint32_t *len);

/*
 * Serialize @n parts, in address order without overlap (version 1 for
 * one, version 2 for several); @m's text range spans them all.
 */
uint8_t *uwt_build_parts(const struct uwt_meta *m, const struct uwt_part *p,
			 uint32_t n, uint32_t *len);

/* Part @i (below f->nparts) of a parsed file. */
void uwt_part(const struct uwt_file *f, uint32_t i, struct uwt_part *out);

/*
 * Parse a container or take a raw blob (anything without the magic).
 * Returns 0, or -1 with a message in @err.  @buf stays owned by the
 * caller and must outlive @out.
 */
int uwt_parse(const void *buf, uint32_t size, struct uwt_file *out,
	      char *err, size_t errlen);

/* Read @path and parse it; out->buf must be freed with free(). */
int uwt_load_file(const char *path, struct uwt_file *out, char *err,
		  size_t errlen);

#endif
