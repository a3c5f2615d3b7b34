/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The uwprof.data file that "uwprof record" writes and "uwprof report"
 * reads.  Layout in docs/DATAFILE.md: a header, then a stream of records,
 * each starting with (type, size).  libc only, so the device-side record
 * links it.
 */
#ifndef UWPROF_DATAFILE_H
#define UWPROF_DATAFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define UWD_MAGIC	"UWPROFD\0"
#define UWD_VERSION	2	/* 1: no block of samples (type 11); read alike */
#define UWD_VERSION_MIN	1
#define UWD_BUILD_ID_MAX 32

struct uwd_header {
	char magic[8];
	uint32_t version;
	uint32_t header_size;	/* bytes of this header; records follow */
	uint32_t flags;		/* UWD_HDR_* */
	uint32_t freq_hz;
	uint64_t start_ns;	/* CLOCK_MONOTONIC, the clock of the samples */
	uint64_t start_realtime_ns;	/* CLOCK_REALTIME at the same moment */
};

/*
 * The times of mapping, process, comm, fork and exit records are when the
 * kernel reported those things (the side-band), on the samples' clock: a
 * reader resolves each sample against the state at its time.  Without
 * it, a reader resolves samples in file order.
 */
#define UWD_HDR_TIMED	0x1
/* Recorded with -a: every process of the system, not one program. */
#define UWD_HDR_ALL	0x2

/* Every record: this header, then its payload; size is a multiple of 8. */
struct uwd_rec {
	uint32_t type;
	uint32_t size;		/* bytes, header included */
};

enum uwd_type {
	UWD_SAMPLE = 1,		/* payload: struct uwprof_record, as read */
	UWD_MAPPING = 2,	/* struct uwd_mapping + path */
	UWD_PROCESS = 3,	/* struct uwd_process + exe path */
	UWD_STATS = 4,		/* struct uwprof_stats, as the device gave it */
	UWD_END = 5,		/* struct uwd_end: the recording finished */
	UWD_COMM = 6,		/* struct uwd_comm + name */
	UWD_FORK = 7,		/* struct uwd_fork */
	UWD_EXIT = 8,		/* struct uwd_exit */
	UWD_IMAGE = 9,		/* struct uwd_image + the bytes */
	UWD_JITMAP = 10,	/* struct uwd_jitmap + the file's bytes */
	/*
	 * Sample records back to back, as read(): each its own size, rounded
	 * up to 8 bytes.  uwd_next() hands them out one by one as UWD_SAMPLE.
	 */
	UWD_SAMPLES = 11,
};

#define UWD_MAP_TABLE	0x1	/* a table is attached to [text_start, text_end) */
#define UWD_MAP_BIAS	0x2	/* bias is known: link address = runtime - bias */
/*
 * The file's table (by build-id) was uploaded and attaching it left to the
 * module, not attached yet when the record was written: the module does it
 * when the process's samples meet the code (docs/DATAFILE.md)
 */
#define UWD_MAP_TABLE_MODULE	0x4

struct uwd_mapping {
	uint32_t pid;
	uint32_t start, end;	/* runtime [start, end) of the mapping */
	uint32_t offset;	/* file offset of start */
	uint32_t text_start, text_end;	/* with UWD_MAP_TABLE */
	uint32_t bias;
	uint32_t flags;
	uint32_t build_id_len;
	uint8_t build_id[UWD_BUILD_ID_MAX];
	/*
	 * Where the ELF starts in the file: 0 for an ELF file, the data
	 * offset of the stored entry for a library mapped from inside a zip
	 * (an APK), whose path is then "ARCHIVE!/ENTRY".  The build-id, bias
	 * and text range are the entry's; offset stays the file's.  Was
	 * "reserved, 0": older files read as plain files.
	 */
	uint32_t elf_offset;
	uint64_t time_ns;	/* when record saw it */
	/* then the path, NUL-terminated, zero padded to 8 */
};

#define UWD_PROC_EXEC	0x1	/* the process exec'd: its older mappings are gone */

struct uwd_process {
	uint32_t pid;
	uint32_t flags;
	uint64_t time_ns;
	/* then the executable's path, NUL-terminated, zero padded to 8 */
};

#define UWD_COMM_EXEC	0x1	/* the name an exec gave */

/* A thread's name (comm) from @time_ns on. */
struct uwd_comm {
	uint32_t pid, tid;
	uint32_t flags;
	uint32_t reserved;
	uint64_t time_ns;
	/* then the name, NUL-terminated, zero padded to 8 */
};

/* A new process: it starts with its parent's mappings and name. */
struct uwd_fork {
	uint32_t pid, ppid;
	uint64_t time_ns;
};

/* The process ended; a later record for its pid is another process. */
struct uwd_exit {
	uint32_t pid;
	uint32_t reserved;
	uint64_t time_ns;
};

/*
 * Code with no file on the device, as record found it in memory: the
 * kernel's vDSO (mapped as [vdso]).  Written before any mapping record.
 */
struct uwd_image {
	uint32_t size;		/* bytes of the image that follow */
	uint32_t build_id_len;
	uint8_t build_id[UWD_BUILD_ID_MAX];
	/* then the image, zero padded to 8 */
};

/* The formats of a JIT's symbol files (struct uwd_jitmap). */
enum uwd_jit_format {
	UWD_JIT_PERF_MAP = 1,	/* /tmp/perf-PID.map: "START SIZE name" lines */
	UWD_JIT_DUMP = 2,	/* jit-PID.dump: perf's jitdump, code included */
};

/*
 * A JIT's symbol file for a process, copied whole at the end of the
 * recording, as perf copies them: names for code of anonymous mappings.
 */
struct uwd_jitmap {
	uint32_t pid;
	uint32_t format;	/* enum uwd_jit_format */
	uint32_t size;		/* bytes of the file that follow */
	uint32_t reserved;
	/* then the file's bytes, zero padded to 8 */
};

struct uwd_end {
	uint64_t end_ns;	/* CLOCK_MONOTONIC */
	uint64_t samples;	/* sample records written */
};

/*
 * Writer.  Every call returns 0 or -1 (errno set, from stdio).  Records
 * are gathered in @buf and reach the file a buffer at a time: two stdio
 * calls a record would cost more than the rest of the recorder's work on
 * it.  Samples go as blocks (uwd_write_samples()), as read from the
 * device, not copied into @buf.
 */
#define UWD_WRITE_BUF	(64u << 10)

struct uwd_writer {
	FILE *f;
	uint64_t samples;
	uint8_t *buf;		/* UWD_WRITE_BUF bytes */
	size_t len;		/* of them, waiting */
};

int uwd_open(struct uwd_writer *w, const char *path, uint32_t freq_hz,
	     uint32_t flags);
int uwd_write(struct uwd_writer *w, uint32_t type, const void *a, size_t alen,
	      const char *str);
int uwd_write_samples(struct uwd_writer *w, const void *recs, size_t len,
		      uint32_t n);
int uwd_close(struct uwd_writer *w, uint64_t end_ns);

/* Reader: the whole file in memory, walked record by record. */
struct uwd_file {
	uint8_t *buf;
	size_t size;
	struct uwd_header hdr;
	size_t pos;		/* next record */
	size_t blk_pos, blk_end;	/* inside a UWD_SAMPLES record */
	bool cut_short;		/* the last record ran past the end */
	bool saw_end;
};

/* Load @path; 0, or -1 with a message in @err. */
int uwd_load(const char *path, struct uwd_file *f, char *err, size_t errlen);

/*
 * The same over @size bytes at @buf (malloc'd; @f owns it from here, also
 * on failure, when it is freed).  @path names it in messages.
 */
int uwd_parse(const char *path, uint8_t *buf, size_t size, struct uwd_file *f,
	      char *err, size_t errlen);

/*
 * The next record (*type, payload at *data, *len bytes).  Returns 1, or 0
 * at the end of the file or at a record cut short (f->cut_short set).
 */
int uwd_next(struct uwd_file *f, uint32_t *type, const void **data,
	     size_t *len);

/* Back to the first record. */
void uwd_rewind(struct uwd_file *f);

void uwd_free(struct uwd_file *f);

/* "root", "no-table", ... for an enum uwprof_stop value. */
const char *uwd_stop_name(unsigned int stop);

/*
 * A complete live chain: the walk reached the outermost frame (root) or a
 * call that never returns (noreturn).
 */
bool uwd_stop_complete(unsigned int stop);

/* The samples of @stops (indexed by enum uwprof_stop) that are complete. */
uint64_t uwd_complete_count(const uint64_t *stops);

#endif
