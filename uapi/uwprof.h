/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * uwprof user-space ABI: the ioctls of /dev/unwind_samples and the records
 * read from it.  Shared by the module, the selftests and the uwprof command.
 * docs/ABI.md describes each call and its errors.
 *
 * Every ioctl argument struct starts with a __u32 size that the caller sets
 * to sizeof() of the struct it was built with.  The module accepts a
 * smaller size (older callers: missing fields read as zero) or a larger one
 * whose extra bytes are zero, so the ABI can grow by appending fields.
 * Pointers travel as __u64 so the layout is the same for 32- and 64-bit
 * callers.
 *
 * Everything an open file sets up (tables, attachments, sampling) belongs
 * to that file and is gone when it is closed.
 */
#ifndef _UAPI_UWPROF_H
#define _UAPI_UWPROF_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define UWPROF_DEVICE		"/dev/unwind_samples"

/* Bumped when an existing struct or ioctl changes meaning. */
#define UWPROF_ABI_VERSION	1

#define UWPROF_IOC_MAGIC	'u'

struct uwprof_version {
	__u32 size;		/* in: sizeof(struct uwprof_version) */
	__u32 abi_version;	/* out: UWPROF_ABI_VERSION */
	__u32 table_format;	/* out: unwind table format, 2 */
	__u32 reserved;		/* out: 0 */
};

/*
 * Upload one v2 table blob.  It is validated in full; a table identical to
 * one this file already uploaded is shared and gets the same id.
 * EINVAL with verr/verr_offset set: the blob is malformed (enum uw2_verr).
 * EFBIG: larger than the table_bytes_max module parameter.
 * ENOSPC: the file's tables would exceed table_bytes_max in all.
 */
/*
 * With UWPROF_TABLE_BY_BUILD_ID the table describes the ELF file whose
 * GNU build-id is build_id[0..build_id_size): the module attaches it by
 * itself, in the task's own context, wherever a followed process maps that
 * file executable (after fork, exec or dlopen, before the recorder has
 * seen the mapping).  text_addr and text_size are the link-time range the
 * table covers (the container's text_addr/text_size): the module places it
 * with the mapping's load bias, as ATTACH callers do, and attaches
 * [bias + text_addr, bias + text_addr + text_size) if the mapping holds
 * all of it.  Without the flag, build_id_size, text_addr and text_size
 * must be 0.  EINVAL: flag without a build-id size of 1..20 or without a
 * text_size, or those fields without the flag.
 */
#define UWPROF_TABLE_BY_BUILD_ID	0x1
/*
 * The table was made to Chrome's rules (uwprof table --chrome-compat).  A
 * process whose attached tables all carry this flag is unwound as Chrome's
 * reader unwinds: callers looked up at their return address, and every
 * finished frame's sp 8-byte aligned (uwprof's own tables ask word
 * alignment).  A module older than the flag refuses it with EINVAL and
 * verr 0; the table then goes up without it.
 */
#define UWPROF_TABLE_CHROME_COMPAT	0x2
/*
 * The table's rows inside code a frame kind walks (a runtime's builtins
 * embedded in the file, which ATTACH marks as such) were made for that
 * code: there the unwinder takes a row first, and a row that refuses
 * leaves the frame to the kind.  Without the flag, JIT code inside a
 * table's range cuts the table.  A module older than the flag refuses it
 * with EINVAL and verr 0; the table then goes up without it.
 */
#define UWPROF_TABLE_JIT_ROWS		0x4
#define UWPROF_BUILD_ID_MAX		20

struct uwprof_table_upload {
	__u32 size;
	__u32 flags;		/* in: UWPROF_TABLE_* */
	__u64 data;		/* in: pointer to the blob */
	__u32 len;		/* in: blob length in bytes */
	__u32 table_id;		/* out: id, never 0 */
	__u32 verr;		/* out: validation error code, 0 if valid */
	__u32 verr_offset;	/* out: blob offset of the error */
	__u32 build_id_size;	/* in: 1..UWPROF_BUILD_ID_MAX with the flag */
	__u8 build_id[UWPROF_BUILD_ID_MAX];
	__u32 text_addr;	/* in, with the flag: link address of offset 0 */
	__u32 text_size;	/* in, with the flag: bytes covered, not 0 */
	__u32 result;		/* out: UWPROF_UPLOAD_* (an older module: 0) */
	__u32 reserved;		/* in: 0 */
};

/*
 * What an upload found (uwprof_table_upload.result).  SAME: the blob is a
 * table this file has already (its id is returned).  KEPT: the same bytes
 * were validated for a file the same effective uid opened, since closed,
 * and kept (module parameter table_keep_bytes): not validated again.
 */
#define UWPROF_UPLOAD_SAME	0x1
#define UWPROF_UPLOAD_KEPT	0x2

/*
 * Attach a table to a process for the runtime .text range
 * [text_start, text_end).  The process is sampled from then on, all of its
 * threads.  The attachment ends when the process exits or execs.
 * ESRCH: no such process.  EACCES: not ptrace-readable by the caller.
 * ENOENT: no table with that id.  EEXIST: range overlaps an attachment.
 * EINVAL: empty range.  ENOSPC: more than UWPROF_MAX_MODULES ranges.
 *
 * With UWPROF_ATTACH_FOLLOW nothing is attached: the process is followed
 * (sampled, given tables by build-id, its children followed with
 * START_INHERIT) though none of its own code has a table yet, as a shell
 * that runs the programs to profile.  table_id, text_start and text_end
 * must be 0 (EINVAL otherwise).
 */
#define UWPROF_ATTACH_FOLLOW	0x1

/*
 * How the frames of an attached range are unwound.  With a frames value
 * other than UWPROF_FRAMES_TABLE, table_id must be 0 and the range is
 * code that has no table but keeps a runtime's own frame chain (a JIT's
 * code, or its builtins inside a binary): the unwinder follows that chain
 * until a return address lands in code with a table, and resumes there
 * with the registers the runtime's entry frame saved.  LIST shows such a
 * range with table_id 0.  It may lie inside a table's range (a runtime's
 * builtins embedded in its binary), which is cut around it; a table
 * uploaded with UWPROF_TABLE_JIT_ROWS lends it its rows there.  EEXIST: it
 * overlaps other code of a frame kind.  EINVAL: an unknown value, a
 * table_id with it, or with UWPROF_ATTACH_FOLLOW.
 */
#define UWPROF_FRAMES_TABLE	0
#define UWPROF_FRAMES_V8_ARM	1	/* V8's frames on 32-bit ARM (r11) */
#define UWPROF_FRAMES_NR	2

struct uwprof_attach {
	__u32 size;
	__u32 pid;
	__u32 table_id;
	__u32 text_start;
	__u32 text_end;
	__u32 flags;		/* in: UWPROF_ATTACH_* */
	__u32 frames;		/* in: UWPROF_FRAMES_* */
};

#define UWPROF_MAX_MODULES	256

/* Detach the range starting at text_start (ENOENT if none). */
struct uwprof_detach {
	__u32 size;
	__u32 pid;
	__u32 text_start;
	__u32 flags;		/* in: 0 */
};

struct uwprof_attachment {
	__u32 pid;
	__u32 table_id;
	__u32 text_start;
	__u32 text_end;
};

/*
 * List attachments (of one pid, or of all if pid is 0).  Fills at most
 * count entries at entries, and sets count to how many there are.
 */
struct uwprof_list {
	__u32 size;
	__u32 pid;
	__u64 entries;		/* in: pointer to struct uwprof_attachment[] */
	__u32 count;		/* in: room; out: number of attachments */
	__u32 flags;		/* in: 0 */
};

/*
 * Start sampling every attached process at freq_hz (1 to 10000).  By
 * default a timer runs on every online CPU and samples whatever attached
 * thread it interrupts.  With UWPROF_START_PER_TASK the timers follow the
 * threads of the attached processes instead (task-clock, inherited by
 * threads they create), so nothing fires where no target runs; processes
 * attached while sampling are followed too.
 * EBUSY: already sampling.  EINVAL: bad frequency or flags.
 */
#define UWPROF_START_PER_TASK	0x1
/*
 * Follow the processes a followed process creates (fork, vfork, clone
 * without CLONE_THREAD), recursively, from their first sample, and the
 * new image of a followed process that execs.
 */
#define UWPROF_START_INHERIT	0x2
/* Follow every process (per-CPU mode only; EINVAL with PER_TASK). */
#define UWPROF_START_ALL	0x4

/*
 * anon_frames: the frame kind (UWPROF_FRAMES_*) of the anonymous
 * executable mappings of followed processes, JIT code: with a kind other
 * than UWPROF_FRAMES_TABLE, the module attaches each such mapping it
 * meets as code of that kind, as it attaches tables by build-id (in the
 * task's own context, until the mapping goes).  EINVAL: an unknown kind.
 */
struct uwprof_start {
	__u32 size;
	__u32 freq_hz;
	__u32 flags;		/* in: UWPROF_START_* */
	__u32 anon_frames;	/* in: UWPROF_FRAMES_* (was reserved, 0) */
};

/* Why an unwind ended; same order as the unwinder's enum uw2_stop. */
enum uwprof_stop {
	UWPROF_STOP_ROOT,
	UWPROF_STOP_NO_TABLE,
	UWPROF_STOP_REFUSED,
	UWPROF_STOP_BAD_SP,
	UWPROF_STOP_NO_PROGRESS,
	UWPROF_STOP_READ_FAULT,
	UWPROF_STOP_BAD_OPCODE,
	UWPROF_STOP_MAX_DEPTH,
	UWPROF_STOP_NORETURN,	/* a call that never returns: chain complete */
	UWPROF_STOP_BUDGET,	/* the sample's step or stack-copy budget spent */
	/* a JIT frame's chain left JIT code other than by an entry frame */
	UWPROF_STOP_JIT_CHAIN,
	UWPROF_STOP_NR
};

#define UWPROF_STOP_SLOTS	16

/*
 * Counters since the file was opened.  Every sample of an attached process
 * is either delivered or dropped: taken == delivered + dropped_full.
 */
/*
 * flags: the module counts its lookups (the lookup_* fields).  A module
 * older than them writes flags 0, and the fields keep what the caller put
 * there, 0.
 */
#define UWPROF_STATS_LOOKUPS	0x1

struct uwprof_stats {
	__u32 size;
	__u32 flags;		/* out: UWPROF_STATS_* (was reserved, 0) */
	__u64 taken;		/* samples of attached processes */
	__u64 delivered;	/* records written to the buffer */
	__u64 dropped_full;	/* buffer full */
	__u64 kernel_context;	/* taken while the thread was in the kernel */
	__u64 handler_ns_sum;	/* time in the sample handler */
	__u64 handler_ns_max;
	__u64 stop[UWPROF_STOP_SLOTS];	/* unwinds by enum uwprof_stop */
	__u64 frames;		/* frames delivered */
	__u64 bytes;		/* record bytes delivered */
	/* 64-bit (AArch64) samples of an attached process, not in taken */
	__u64 dropped_not32;
	/* samples completed in the task's own context (in taken) */
	__u64 deferred;
	/*
	 * samples that needed the task's context and were lost (not in
	 * taken): no free slot, the task exiting, the file closed first
	 */
	__u64 deferred_failed;
	/*
	 * processes the module began to follow by itself (a child of a
	 * followed process, an exec'd image, any process with START_ALL)
	 */
	__u64 followed;
	/*
	 * Gauges, at the time of the call: process entries the file holds
	 * (attached or followed, not yet reaped: an exited process's entry
	 * goes within about a second) and the bytes they hold.  Tables are
	 * not in proc_bytes; they stay until the file is closed.
	 */
	__u64 procs;
	__u64 proc_bytes;
	/*
	 * samples taken in the kernel during an exec, once the new image's
	 * entry exists: the saved user registers are still the old image's;
	 * not unwound, not in taken
	 */
	__u64 dropped_exec;
	/*
	 * The sample handler's lookup caches, with UWPROF_STATS_LOOKUPS:
	 * sampled pcs found among the cached pc ranges or not, return
	 * addresses found among the cached ones or not, and of those found,
	 * the frames the caller loop unwound from the cache alone.  Every
	 * address the handler's unwind resolved is one lookup; code with no
	 * table (JIT code too) is a miss.  Deferred samples' second unwind,
	 * in the task's context, uses no cache and is not counted.
	 */
	__u64 lookup_pc_hits;
	__u64 lookup_pc_misses;
	__u64 lookup_ra_hits;
	__u64 lookup_ra_misses;
	__u64 lookup_ra_loop;	/* of lookup_ra_hits + lookup_ra_misses */
};

#define UWPROF_IOC_VERSION	_IOWR(UWPROF_IOC_MAGIC, 0x80, struct uwprof_version)
#define UWPROF_IOC_TABLE_UPLOAD	_IOWR(UWPROF_IOC_MAGIC, 0x81, struct uwprof_table_upload)
#define UWPROF_IOC_ATTACH	_IOW(UWPROF_IOC_MAGIC, 0x82, struct uwprof_attach)
#define UWPROF_IOC_DETACH	_IOW(UWPROF_IOC_MAGIC, 0x83, struct uwprof_detach)
#define UWPROF_IOC_LIST		_IOWR(UWPROF_IOC_MAGIC, 0x84, struct uwprof_list)
#define UWPROF_IOC_START	_IOW(UWPROF_IOC_MAGIC, 0x85, struct uwprof_start)
#define UWPROF_IOC_STOP		_IO(UWPROF_IOC_MAGIC, 0x86)	/* EALREADY if stopped */
#define UWPROF_IOC_STATS	_IOWR(UWPROF_IOC_MAGIC, 0x87, struct uwprof_stats)

/*
 * Records, read() from the device.  read() returns whole records only
 * (EINVAL if the buffer cannot hold the next one), blocks until there is
 * one unless O_NONBLOCK (EAGAIN), and poll() reports POLLIN.  Records are
 * 8-byte aligned; size covers the whole record.
 */
#define UWPROF_RECORD_SAMPLE	1

/* The thread was in the kernel: frames start at its saved user context. */
#define UWPROF_RF_KERNEL	0x1
/*
 * Unwound in the task's own context before it returned to user space
 * (a mapping the interrupt path could not resolve yet, or a stack page
 * that was not resident), not in the interrupt.
 */
#define UWPROF_RF_DEFERRED	0x2

struct uwprof_record {
	__u16 size;		/* bytes, this header and the frames */
	__u16 type;		/* UWPROF_RECORD_SAMPLE */
	__u8 stop;		/* enum uwprof_stop */
	__u8 flags;		/* UWPROF_RF_* */
	__u16 cpu;
	__u32 pid;		/* as the opener's pid namespace sees it */
	__u32 tid;
	__u64 time_ns;		/* CLOCK_MONOTONIC */
	__u32 nframes;
	/* Time in the sample handler up to this record (once 0, reserved). */
	__u32 handler_ns;
	__u32 frames[];		/* pc first, then return addresses */
};

#endif /* _UAPI_UWPROF_H */
