/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Replay files: real stacks saved by tests/gt/capture.c for make
 * bench-unwind.  Little-endian, native layout of the structs below:
 *
 *   struct uwr_header
 *   struct uwr_mod[nmods]          sorted by text_start
 *   nsamples times: struct uwr_sample, u32 frames[nframes],
 *                   the stack words [lo, hi)
 *
 * The tables are not in the file: the replay loads the same .uwt files by
 * module name, as the capture did.
 */
#ifndef UWPROF_BENCH_REPLAY_H
#define UWPROF_BENCH_REPLAY_H

#include <stdint.h>

#define UWR_MAGIC	0x31525755u	/* "UWR1" */
#define UWR_VERSION	1
#define UWR_MAX_FRAMES	128

struct uwr_header {
	uint32_t magic;
	uint32_t version;
	uint32_t nmods;
	uint32_t nsamples;
};

struct uwr_mod {
	char name[56];
	uint32_t text_start;
	uint32_t text_end;
};

struct uwr_sample {
	uint32_t regs[16];	/* as interrupted; pc has the Thumb bit */
	uint32_t lo, hi;	/* the stack window: lo is sp */
	uint32_t stop;		/* what the unwind on the ARM side ended with */
	uint32_t nframes;
};

static inline uint32_t uwr_sample_size(const struct uwr_sample *s)
{
	return sizeof(*s) + s->nframes * 4 + (s->hi - s->lo);
}

#endif
