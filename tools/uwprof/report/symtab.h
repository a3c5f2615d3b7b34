/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What both symbol back ends share (symbols.c through libdwfl on the host,
 * symbols_elf.c with libc only on the device): where a profiled file's
 * ELF is looked for, and the sorted table of its function symbols.
 */
#ifndef UWPROF_SYMTAB_H
#define UWPROF_SYMTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/elf.h"

struct sym_file;

struct sym {
	uint32_t addr, size;	/* link address, Thumb bit cleared */
	const char *name;
	bool global;
};

/*
 * The first member of each back end's struct sym_file: what sym_path(),
 * sym_bias() and sym_lookup() (symtab.c) need.
 */
struct sym_head {
	char *path;
	struct sym *syms;	/* sorted by symtab_sort() */
	size_t nsyms;
	uint32_t nloads;
	struct uw_seg loads[UW_ELF_MAX_LOADS];
};

/*
 * Sort @syms by address, keep one name per address (a global before a
 * local, then by name); returns how many are left.
 */
size_t symtab_sort(struct sym *syms, size_t n);

/*
 * The PLT's stubs, one per entry of .rel.plt in its order: @code, @size
 * bytes of .plt at link address @addr, read as GNU ld and lld write it
 * for ARM (a header saving lr, then stubs "add ip, pc; add ip, ip; ldr
 * pc, [ip]!" or their long form through a literal, lld's padded to 16
 * bytes, GNU ld's with a Thumb "bx pc" and a nop or "b ." in front where
 * Thumb code calls them).  Fills @start[i] and @len[i] for at most @n stubs and
 * returns how many it read: it stops at the first bytes of another form.
 */
size_t symtab_plt_stubs(const uint8_t *code, uint32_t size, uint32_t addr,
			size_t n, uint32_t *start, uint32_t *len);

/* The function of sorted @syms holding link address @addr, or NULL. */
const char *symtab_lookup(const struct sym *syms, size_t n, uint32_t addr);

/*
 * sym_open()'s search (symbols.h): each candidate whose build-id fits is
 * handed to @open, and the first it opens is returned.
 */
struct sym_file *sym_search(const char *const *symfs, unsigned int nsymfs,
			    const char *path, const uint8_t *bid,
			    uint32_t bidlen, bool *mismatch,
			    struct sym_file *(*open)(const char *path));

#endif
