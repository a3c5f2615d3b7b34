// SPDX-License-Identifier: GPL-2.0
/* Attach tables to a running process through /dev/unwind_samples. */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>

#include "lib/addrmap.h"
#include "record/attach.h"
#include "uapi/uwprof.h"

/*
 * The table covers [text_addr, text_addr + text_size) in link addresses;
 * the mapping's bias (the one address model, addrmap.c) moves it to
 * runtime, and the mapping must hold all of it.
 */
int uw_runtime_text(const struct uwt_meta *meta, const struct uw_mapping *m,
		    uint32_t *start, uint32_t *end)
{
	struct uw_seg segs[UWT_MAX_SEGS];
	uint32_t i, n = meta->nsegs < UWT_MAX_SEGS ? meta->nsegs : UWT_MAX_SEGS;
	uint32_t bias;

	for (i = 0; i < n; i++)
		segs[i] = (struct uw_seg){
			.vaddr = meta->segs[i].vaddr,
			.offset = meta->segs[i].offset,
			.filesz = meta->segs[i].filesz,
			.memsz = meta->segs[i].memsz,
			.flags = meta->segs[i].flags,
		};
	if (uw_map_bias(segs, n, m->start, m->end, m->offset, &bias))
		return -1;
	*start = bias + meta->text_addr;
	*end = *start + meta->text_size;
	if (*start < m->start || *end > m->end || *end < *start)
		return -1;
	return 0;
}

/* What the module said beside the id, into @reply if the caller asked. */
static void upload_reply(const struct uwprof_table_upload *up,
			 struct uw_upload_reply *reply)
{
	if (!reply)
		return;
	reply->verr = up->verr;
	reply->result = up->result;
}

int uw_dev_upload(int fd, const void *blob, uint32_t len, uint32_t flags,
		  struct uw_upload_reply *reply)
{
	struct uwprof_table_upload up = {
		.size = sizeof(up),
		.flags = flags,
		.data = (uintptr_t)blob,
		.len = len,
	};

	int ret = ioctl(fd, UWPROF_IOC_TABLE_UPLOAD, &up) ? -errno :
		  (int)up.table_id;

	upload_reply(&up, reply);
	return ret;
}

int uw_dev_upload_by_build_id(int fd, const void *blob, uint32_t len,
			      uint32_t flags, const uint8_t *bid,
			      uint32_t bid_len, uint32_t text_addr,
			      uint32_t text_size,
			      struct uw_upload_reply *reply)
{
	struct uwprof_table_upload up = {
		.size = sizeof(up),
		.flags = UWPROF_TABLE_BY_BUILD_ID | flags,
		.data = (uintptr_t)blob,
		.len = len,
		.build_id_size = bid_len,
		.text_addr = text_addr,
		.text_size = text_size,
	};

	if (!bid_len || bid_len > UWPROF_BUILD_ID_MAX)
		return -EINVAL;
	int ret;

	memcpy(up.build_id, bid, bid_len);
	ret = ioctl(fd, UWPROF_IOC_TABLE_UPLOAD, &up) ? -errno :
	      (int)up.table_id;
	upload_reply(&up, reply);
	return ret;
}

int uw_dev_detach(int fd, pid_t pid, uint32_t start)
{
	struct uwprof_detach d = {
		.size = sizeof(d),
		.pid = (uint32_t)pid,
		.text_start = start,
	};

	return ioctl(fd, UWPROF_IOC_DETACH, &d) ? -errno : 0;
}

/*
 * UWPROF_IOC_ATTACH, again when a signal came first: the module's first
 * watch of a process gives up on a pending signal (EINTR, docs/ABI.md),
 * and record's SIGCHLD and SIGINT handlers do not restart calls.
 */
static int attach_ioctl(int fd, struct uwprof_attach *a)
{
	int ret;

	do
		ret = ioctl(fd, UWPROF_IOC_ATTACH, a);
	while (ret && errno == EINTR);
	return ret ? -errno : 0;
}

int uw_dev_attach_as(int fd, pid_t pid, uint32_t table_id, uint32_t frames,
		     uint32_t start, uint32_t end)
{
	struct uwprof_attach a = {
		.size = sizeof(a),
		.pid = (uint32_t)pid,
		.table_id = table_id,
		.text_start = start,
		.text_end = end,
		.frames = frames,
	};

	return attach_ioctl(fd, &a);
}

int uw_dev_attach(int fd, pid_t pid, uint32_t table_id, uint32_t start,
		  uint32_t end)
{
	return uw_dev_attach_as(fd, pid, table_id, UWPROF_FRAMES_TABLE, start,
				end);
}

int uw_dev_attach_frames(int fd, pid_t pid, uint32_t frames, uint32_t start,
			 uint32_t end)
{
	return uw_dev_attach_as(fd, pid, 0, frames, start, end);
}

int uw_dev_follow(int fd, pid_t pid)
{
	struct uwprof_attach a = {
		.size = sizeof(a),
		.pid = (uint32_t)pid,
		.flags = UWPROF_ATTACH_FOLLOW,
	};

	return attach_ioctl(fd, &a);
}
