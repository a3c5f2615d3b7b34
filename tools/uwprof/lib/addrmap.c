// SPDX-License-Identifier: GPL-2.0
/* Runtime to link addresses for file mappings (see addrmap.h). */
#include "lib/addrmap.h"

#define UW_PAGE		0x1000u

static uint32_t page_down(uint32_t a)
{
	return a & ~(UW_PAGE - 1);
}

/*
 * The loader (the kernel for the executable, ld.so for libraries) maps
 * a PT_LOAD from file offset page_down(p_offset), for the pages up to
 * p_offset + p_filesz, at bias + page_down(p_vaddr); p_vaddr and p_offset
 * agree modulo the page size.  A mapping may also be a piece of that
 * range (split by mprotect), so the offset within the segment's pages
 * counts too.
 */
int uw_map_bias(const struct uw_seg *segs, uint32_t nsegs, uint32_t start,
		uint32_t end, uint32_t offset, uint32_t *bias)
{
	uint64_t len = (uint64_t)end - start;

	if (end <= start)
		return -1;
	for (uint32_t i = 0; i < nsegs; i++) {
		const struct uw_seg *s = &segs[i];
		uint64_t first = page_down(s->offset);
		uint64_t last = ((uint64_t)s->offset + s->filesz + UW_PAGE - 1) &
				~(uint64_t)(UW_PAGE - 1);

		if (!(s->flags & UW_PF_X) || !s->filesz)
			continue;
		if (offset < first || offset + len > last)
			continue;
		*bias = start - (page_down(s->vaddr) + (uint32_t)(offset - first));
		return 0;
	}
	return -1;
}
