/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uwprof report: a data file turned into a symbolized call tree, and the
 * writers that print it (report_*.c).
 */
#ifndef UWPROF_REPORT_H
#define UWPROF_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/datafile.h"
#include "report/containers.h"
#include "report/jitsyms.h"
#include "uapi/uwprof.h"

struct rp_module {
	char *path;		/* as mapped on the device */
	const char *name;	/* its base name; "base.apk!/ENTRY" inside an archive */
	uint8_t build_id[UWD_BUILD_ID_MAX];
	uint32_t build_id_len;
	uint32_t start, end, offset;	/* first mapping seen (pprof); offset in the ELF */
	bool has_table;		/* a mapping had its table attached */
	bool table_by_module;	/* one had it left to the module (by build-id) */
	struct sym_file *sym;	/* NULL: no symbols found */
	uint64_t stopped[UWPROF_STOP_NR];	/* unwinds whose last frame is here */
};

struct rp_func {
	char *name;
	uint32_t module;	/* index, or RP_NO_MODULE */
	bool kernel;		/* the [kernel] leaf of kernel-context samples */
	bool inlined;		/* an inlined frame (--lines): shares an address */
	bool process;		/* a process's root (per-process trees), no frame */
	uint64_t self, total;
	uint64_t stopped[UWPROF_STOP_NR];	/* unwinds whose last frame is here */
	uint64_t stamp;		/* last sample that counted it in total */
};

#define RP_NO_MODULE	UINT32_MAX
#define RP_INLINE_CHAIN	0x80000000u
#define RP_INLINE_MAX	16	/* most functions one address expands to */

/* Node 0 is the root; children are kept sorted by function name. */
struct rp_node {
	uint32_t func, parent, child, next;
	uint64_t self, total;
};

/* Which samples count (--pid, --tid, --comm, --time); empty lists: all. */
struct rp_filter {
	uint32_t *pids, *tids;
	unsigned int npids, ntids;
	const char **comms;	/* process names (executable base names) */
	unsigned int ncomms;
	bool has_start, has_end;
	uint64_t start_ns, end_ns;	/* sample times, CLOCK_MONOTONIC */
};

struct rp_opts {
	const char **symfs;
	unsigned int nsymfs;
	bool lines;		/* source lines through libdw */
	bool quiet;		/* no warnings */
	bool keep_samples;	/* each sample kept (perf-script) */
	int per_process;	/* a root per process: 1, 0, or -1 if recorded with -a */
	struct rp_filter filter;
};

/*
 * A file mapping of one process as recorded; pprof's Mappings.  Link
 * address = runtime address - bias (the mapping's start when the bias is
 * unknown, as frames are then named by offset).
 */
struct rp_mapping {
	uint32_t pid, start, end, offset, bias;
	uint32_t module;	/* index in rp_profile.mods */
};

#define RP_NO_MAPPING	UINT32_MAX

/* The address a frame is looked up at: return addresses one byte back,
 * inside the call (a call that ends a function returns to the first byte
 * of the next one); bit 0 is the Thumb bit, not an address. */
static inline uint32_t rp_frame_addr(uint32_t addr, bool ret_addr)
{
	return (addr & ~1u) - (ret_addr ? 1 : 0);
}

/* One sample as recorded, with the node of its stack's leaf. */
struct rp_sample {
	uint64_t time_ns;
	uint32_t pid, tid, cpu;
	uint32_t comm;		/* index in rp_profile.comms, or UINT32_MAX */
	uint32_t leaf;		/* node; its path to the root is the stack */
	uint32_t frames, nframes;	/* runtime addresses in rp_profile.addrs */
	bool kernel;
};

struct rp_profile {
	struct uwd_header hdr;
	uint64_t samples, stops[UWPROF_STOP_NR], kernel_ctx;
	uint64_t lost;		/* dropped by the device (buffer full) */
	uint64_t filtered;	/* samples left out by the filter */
	bool filtering;		/* a filter was given */
	bool per_process;	/* the tree has a root per process name */
	bool have_stats;
	bool have_lookups;	/* the module counted them (UWPROF_STATS_LOOKUPS) */
	struct rp_lookups {	/* the sample handler's lookup caches */
		uint64_t pc_hits, pc_misses, ra_hits, ra_misses, ra_loop;
	} lookups;
	uint64_t first_ns, last_ns;
	uint32_t processes;
	struct rp_module *mods;
	uint32_t nmods, modroom;
	struct rp_func *funcs;
	uint32_t nfuncs, funcroom;
	struct rp_node *nodes;
	uint32_t nnodes, noderoom;
	struct rp_map func_ids;	/* (module, name hash) -> func */
	struct rp_map addr_ids;	/* (module, address, kind) -> func, or
				 * RP_INLINE_CHAIN | index in chains */
	uint32_t *chains;	/* per inline chain: count, funcs innermost first */
	uint32_t nchains, chainroom;
	struct rp_map child_ids;	/* (parent, func) -> node */
	uint32_t max_depth;
	char **comms;		/* process names seen */
	uint32_t ncomms, commroom;
	struct rp_sample *smp;	/* with rp_opts.keep_samples */
	uint32_t nsmp, smproom;
	uint32_t *addrs;
	uint32_t naddrs, addrroom;
	uint32_t *addr_maps;	/* per addrs entry: index in maps, or RP_NO_MAPPING */
	struct rp_mapping *maps;	/* every mapping recorded */
	uint32_t nmaps, maproom;
	struct rp_jitsyms jit;	/* JIT code's names (UWD_JITMAP) */
};

/* Load, symbolize and aggregate; 0, or -1 after printing why. */
int rp_load(const char *path, const struct rp_opts *o, struct rp_profile *p);

/* The same from a data file already read (uwd_parse); frees it.  @path
 * names it in messages. */
int rp_load_file(struct uwd_file *f, const char *path,
		 const struct rp_opts *o, struct rp_profile *p);
void rp_free(struct rp_profile *p);

/* Nodes' children sorted by name, so every writer walks the same order. */
void rp_sort_tree(struct rp_profile *p);

/*
 * The node after @n depth-first over the sorted tree (rp_next_node(p, 0)
 * is the first), 0 at the end; no recursion, so deep stacks are fine.
 */
uint32_t rp_next_node(const struct rp_profile *p, uint32_t n);

/* Functions sorted by @by_total, then the other count, then name. */
uint32_t *rp_sorted_funcs(const struct rp_profile *p, bool by_total);

/* Share in percent, 0 when there are no samples. */
double rp_pct(uint64_t n, uint64_t of);

/* "module`function"-free display name of a function. */
static inline const char *rp_func_name(const struct rp_profile *p, uint32_t f)
{
	return p->funcs[f].name;
}

const char *rp_func_module(const struct rp_profile *p, uint32_t f);

struct rp_text_opts {
	unsigned int top;	/* rows per table */
	const char *input;
	bool children;		/* callers and callees of the top functions */
	bool by_dso;		/* rows are modules, not functions */
};

int rp_write_text(const struct rp_profile *p, const struct rp_text_opts *o,
		  FILE *out);
int rp_write_folded(const struct rp_profile *p, FILE *out);
int rp_write_perf_script(const struct rp_profile *p, FILE *out);
/* Needs rp_opts.keep_samples; @lines: Line entries with file and line. */
int rp_write_pprof(const struct rp_profile *p, bool lines, FILE *out);
int rp_write_svg(const struct rp_profile *p, const char *title, FILE *out);
int rp_write_json(const struct rp_profile *p, FILE *out);
int rp_write_stats(const struct rp_profile *p, const struct rp_text_opts *o,
		   FILE *out);

#endif
