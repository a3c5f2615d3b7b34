/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one address model of uwprof: where a file mapping's runtime
 * addresses are in the file's link-time address space.  libc only (record
 * on the device, the selftests, report on the host all use it).
 */
#ifndef UWPROF_ADDRMAP_H
#define UWPROF_ADDRMAP_H

#include <stdint.h>

#define UW_PF_X		0x1	/* PT_LOAD p_flags: executable */

/* One PT_LOAD program header. */
struct uw_seg {
	uint32_t vaddr, offset, filesz, memsz, flags;
};

/*
 * The load bias of a file mapped at runtime [@start, @end) from file
 * offset @offset: link address = runtime address - *bias.
 *
 * The mapping must lie inside the file pages of one executable segment;
 * matching on the offset alone is not enough, because linkers such as
 * lld put several segments in one file page.  Returns 0, or -1 if no
 * executable segment holds the mapping (a data mapping, or one the
 * loader has not finished yet).
 */
int uw_map_bias(const struct uw_seg *segs, uint32_t nsegs, uint32_t start,
		uint32_t end, uint32_t offset, uint32_t *bias);

#endif
