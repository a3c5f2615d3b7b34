/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Attaching tables to a process: find each executable file mapping's
 * table, work out where its .text is at run time, upload and attach.
 * libc only, so record (static, on the device) and the selftests share it.
 */
#ifndef UWPROF_ATTACH_H
#define UWPROF_ATTACH_H

#include <stdint.h>
#include <sys/types.h>

#include "lib/procmaps.h"
#include "lib/uwt.h"

/*
 * The runtime [start, end) of the table's .text when the file is mapped
 * as @m (an executable mapping of it).  Returns 0, or -1 if the mapping
 * does not hold the table's .text.
 */
int uw_runtime_text(const struct uwt_meta *meta, const struct uw_mapping *m,
		    uint32_t *start, uint32_t *end);

/* What the module said of an upload beside its id or errno. */
struct uw_upload_reply {
	uint32_t verr;		/* the validation error on EINVAL, else 0 */
	uint32_t result;	/* UWPROF_UPLOAD_* (an older module: 0) */
};

/*
 * Upload a table blob with UWPROF_TABLE_* @flags (0, or
 * UWPROF_TABLE_CHROME_COMPAT); returns the table id or -errno, and
 * @reply unless it is NULL.
 */
int uw_dev_upload(int fd, const void *blob, uint32_t len, uint32_t flags,
		  struct uw_upload_reply *reply);

/*
 * Upload a table for the file with GNU build-id @bid, covering link
 * addresses [@text_addr, +@text_size), for the module to attach by itself
 * (UWPROF_TABLE_BY_BUILD_ID, with @flags added).  The table id or -errno,
 * and @reply unless it is NULL; -EINVAL with reply->verr 0: the module
 * does not take tables by build-id (or does not know a flag of @flags).
 */
int uw_dev_upload_by_build_id(int fd, const void *blob, uint32_t len,
			      uint32_t flags, const uint8_t *bid,
			      uint32_t bid_len, uint32_t text_addr,
			      uint32_t text_size,
			      struct uw_upload_reply *reply);

/* Detach @pid's range starting at @start; 0 or -errno. */
int uw_dev_detach(int fd, pid_t pid, uint32_t start);

/*
 * ATTACH as given: a table's range (@frames 0) or JIT code's (@table_id
 * 0); both or neither is the module's to refuse.  0 or -errno.
 */
int uw_dev_attach_as(int fd, pid_t pid, uint32_t table_id, uint32_t frames,
		     uint32_t start, uint32_t end);

/* @pid's [start, end) is JIT code of frame kind @frames; 0 or -errno. */
int uw_dev_attach_frames(int fd, pid_t pid, uint32_t frames, uint32_t start,
			 uint32_t end);

/* Attach an uploaded table to @pid's [start, end); 0 or -errno. */
int uw_dev_attach(int fd, pid_t pid, uint32_t table_id, uint32_t start,
		  uint32_t end);

/*
 * Follow @pid with nothing attached (UWPROF_ATTACH_FOLLOW): the module
 * samples it, attaches tables by build-id and follows its children.
 * 0 or -errno (-EINVAL: the module cannot).
 */
int uw_dev_follow(int fd, pid_t pid);

#endif
