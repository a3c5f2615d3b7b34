// SPDX-License-Identifier: GPL-2.0
/* Attach tables to a running process through /dev/unwind_samples. */
#include <errno.h>
#include <sys/ioctl.h>

#include "attach.h"
#include "uapi/uwprof.h"

#define UW_PAGE_MASK	0xfffu

/*
 * The loader maps each PT_LOAD at bias + p_vaddr, page-aligned down, from
 * file offset p_offset, also aligned down; so the mapping whose offset is
 * that of the executable segment tells the bias.
 */
int uw_runtime_text(const struct uwt_meta *meta, const struct uw_mapping *m,
		    uint32_t *start, uint32_t *end)
{
	uint32_t i, bias;

	for (i = 0; i < meta->nsegs && i < UWT_MAX_SEGS; i++) {
		const struct uwt_seg *s = &meta->segs[i];

		if ((s->offset & ~UW_PAGE_MASK) != m->offset)
			continue;
		if (meta->text_addr < s->vaddr ||
		    meta->text_addr + meta->text_size > s->vaddr + s->memsz)
			continue;
		bias = m->start - (s->vaddr & ~UW_PAGE_MASK);
		*start = bias + meta->text_addr;
		*end = *start + meta->text_size;
		if (*start < m->start || *end > m->end)
			return -1;
		return 0;
	}
	return -1;
}

int uw_dev_upload(int fd, const void *blob, uint32_t len, uint32_t *verr)
{
	struct uwprof_table_upload up = {
		.size = sizeof(up),
		.data = (uintptr_t)blob,
		.len = len,
	};

	if (ioctl(fd, UWPROF_IOC_TABLE_UPLOAD, &up)) {
		if (verr)
			*verr = up.verr;
		return -errno;
	}
	return (int)up.table_id;
}

int uw_dev_attach(int fd, pid_t pid, uint32_t table_id, uint32_t start,
		  uint32_t end)
{
	struct uwprof_attach a = {
		.size = sizeof(a),
		.pid = (uint32_t)pid,
		.table_id = table_id,
		.text_start = start,
		.text_end = end,
	};

	return ioctl(fd, UWPROF_IOC_ATTACH, &a) ? -errno : 0;
}
