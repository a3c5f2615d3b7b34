/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Symbols of ARM32 ELF files for uwprof report, through libdwfl: function
 * names from every symbol table found for the file (its own, its debug
 * file's, MiniDebugInfo), C++ names demangled; source lines and inline
 * chains from the DWARF found for it.
 */
#ifndef UWPROF_SYMBOLS_H
#define UWPROF_SYMBOLS_H

#include <stdbool.h>
#include <stdint.h>

struct sym_file;

/*
 * Find and open the ELF for a file mapped from @path with build-id @bid
 * (may be empty).  Looked for in each @symfs directory as <build-id>,
 * <build-id>.debug, .build-id/xx/rest.debug, <path> below the directory
 * and <base name> (for a library inside an APK, @path "APK!/ENTRY", also
 * <base name of APK>!/ENTRY), then at @path itself.  Every candidate may
 * be "APK!/ENTRY" (lib/elf.h).  A candidate whose build-id differs is
 * skipped.  Returns NULL if none fits; *mismatch is set if one
 * was skipped for its build-id.
 */
struct sym_file *sym_open(const char *const *symfs, unsigned int nsymfs,
			  const char *path, const uint8_t *bid,
			  uint32_t bidlen, bool *mismatch);

void sym_close(struct sym_file *f);

/* The file the symbols come from. */
const char *sym_path(const struct sym_file *f);

/*
 * Load bias of a mapping [@start, @end) from file offset @offset (when the
 * data file does not carry it), by uw_map_bias().  0 on success.
 */
int sym_bias(const struct sym_file *f, uint32_t start, uint32_t end,
	     uint32_t offset, uint32_t *bias);

/* The function holding link address @addr, or NULL. */
const char *sym_lookup(const struct sym_file *f, uint32_t addr);

/* Source file (base name) and line of @addr; 0 or -1. */
int sym_line(struct sym_file *f, uint32_t addr, const char **file, int *line);

/* One function of an address's inline chain; file NULL when unknown. */
struct sym_frame {
	const char *name;
	const char *file;
	int line;
};

/*
 * The functions at link address @addr, innermost first: the functions
 * inlined there, each with its own position, then the function they were
 * inlined into, at the outermost call site.  At most @max; returns how
 * many, 0 if no symbol holds @addr.
 */
unsigned int sym_frames(struct sym_file *f, uint32_t addr,
			struct sym_frame *out, unsigned int max);

/* C++ names are demangled unless this is cleared (report --no-demangle). */
extern bool sym_demangle;

#endif
