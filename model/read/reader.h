/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf.data reader: both layouts perf writes (file mode with feature sections,
 * pipe mode), from rsp record or perf record, as they are or compressed whole
 * (gzip, bzip2, xz, lzma, zstd: known by content).  The file is mapped read-only;
 * every length is checked against what remains before it is read.  A cut
 * file yields everything up to the cut and a warning; garbage yields one
 * error.  Internal to model/.
 */
#ifndef RSP_MODEL_READER_H
#define RSP_MODEL_READER_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/cpus.h"

struct rsp_reader;

/* How a record's fields are laid out: perf's sample_type rules, per attr. */
struct rsp_rattr {
	struct perf_event_attr attr; /* zero-extended to sizeof */
	uint64_t *ids;
	size_t n_ids;
	char *name; /* EVENT_UPDATE / EVENT_DESC name, or NULL */
	size_t trailer_size; /* sample_id_all trailer on non-sample records */
	unsigned index;
	int time_pos, cpu_pos; /* u64 index in a sample, -1: absent */
	/*
	 * A sample of fixed words only (and RAW after them): where each is, so
	 * that it is read without walking sample_type (-1: absent; fixed_words 0:
	 * a sample of another layout)
	 */
	uint8_t fixed_words;
	int8_t id_w, ip_w, tid_w, addr_w, period_w;
};

/* One parsed sample (pointers into the mapped file). */
struct rsp_sample {
	const struct rsp_rattr *attr;
	uint64_t id, ip, time, addr, period;
	uint32_t pid, tid, cpu;
	const uint64_t *callchain;
	uint64_t callchain_nr;
	const void *raw;
	uint32_t raw_size;
	uint64_t regs_abi, regs_mask;
	const uint64_t *regs;
	const void *stack;
	uint64_t stack_size; /* bytes valid (dyn_size) */
	bool has_time, has_cpu, has_tid;
};

struct rsp_record {
	const struct perf_event_header *h;
	uint64_t offset; /* in the file */
};

struct rsp_build_id_entry {
	char *path;
	uint8_t id[20];
	uint8_t len;
	bool kernel;
};

/* A process's command line (rsp record's, docs/perf-data.md "Command lines"). */
struct rsp_cmdline_entry {
	uint64_t time; /* its exec; 0: alive at the start of the recording */
	int pid;
	bool cut; /* longer than the file holds: the text ends with " [...]" */
	char *text; /* its arguments joined by spaces, unprintable bytes as '?' */
};
/*
 * The command line a HEADER_EVENT_TYPE record of @size bytes holds: 1 and
 * *@out (its text malloc'ed); 0 if the record is not rsp's (perf's own, from
 * before 2012); -EINVAL if it is damaged, -ENOMEM.
 */
int rsp_cmdline_parse(const void *rec, size_t size, struct rsp_cmdline_entry *out);

struct rsp_reader_info {
	bool pipe_mode;
	char *hostname, *osrelease, *version, *arch, *cpudesc;
	char **cmdline;
	size_t n_cmdline;
	uint32_t nr_cpus_avail, nr_cpus_online;
	uint64_t total_mem_kb;
	bool have_clockid;
	uint64_t clockid_res_ns;
	bool have_clock_data;
	uint32_t clock_data_clockid;
	uint64_t clock_data_tod_ns, clock_data_clk_ns;
	const void *tracing_data; /* in the mapped file, or NULL */
	size_t tracing_data_len;
	struct rsp_build_id_entry *build_ids;
	size_t n_build_ids;
	struct rsp_cmdline_entry *cmdlines; /* in the file's order */
	size_t n_cmdlines;
	uint64_t cmdlines_damaged; /* rsp's command-line records that do not parse */
	int *targets; /* THREAD_MAP pids */
	char (*target_comms)[16];
	size_t n_targets;
	bool truncated; /* the stream ended inside a record */
	/* a byte of the file; of the perf.data inside a file compressed whole,
	 * but of the compressed file where its stream broke off (packed_cut) */
	uint64_t truncated_at;
	bool unfinished; /* file mode header never completed (killed perf record) */
	bool compressed; /* zstd-compressed records (perf record -z), inflated at open */
	uint64_t compressed_skipped; /* compressed records with no HEADER_COMPRESSED */
	/* the whole file compressed ("gzip", "bzip2", "xz", "lzma", "zstd"), decompressed at
	 * open; NULL: not */
	const char *packed;
	uint64_t packed_size; /* the compressed file's bytes */
	/* its stream broke off ("gzip stream cut short at byte N ...": read up to there), or NULL */
	const char *packed_cut;
	uint64_t n_records;
};

/*
 * Open @path.  Reads the header, the attrs and (file mode) the features;
 * pipe mode's header records are read as the stream is scanned, so call
 * rsp_reader_scan() before relying on attrs/info.  -errno + @err on failure.
 */
int rsp_reader_open(const char *path, struct rsp_reader **out, char *err, size_t errlen);
void rsp_reader_free(struct rsp_reader *r);

/* Only the bytes: no file (fuzzing, tests).  @buf must outlive the reader. */
int rsp_reader_open_mem(const void *buf, size_t len, struct rsp_reader **out, char *err,
			size_t errlen);

/*
 * Walk every record in file order.  User records that define the stream
 * (ATTR, EVENT_UPDATE, FEATURE, TRACING_DATA, BUILD_ID, THREAD_MAP) are
 * absorbed; every record is also passed to @fn (may be NULL).  Stops early
 * if @fn returns non-zero (returned).  Returns 0 at the end of the data, or
 * -errno with @err for a stream that is garbage from the start.
 */
typedef int (*rsp_record_fn)(void *ctx, const struct rsp_record *rec);
int rsp_reader_scan(struct rsp_reader *r, rsp_record_fn fn, void *ctx, char *err, size_t errlen);

/*
 * A scan that shares a stream of segments with another thread, which reads
 * some of them with rsp_reader_scan_segment_plain() meanwhile.
 */
struct rsp_scan_hooks {
	/* before segment @i: 1 if its records were given elsewhere (*@n_records of them),
	 * 0 to read it here, -errno to stop the scan (returned) */
	int (*segment)(void *ctx, size_t i, uint64_t *n_records);
	/* before the scan takes in a record that changes how records read (an attr, a
	 * feature, tracing data, build ids, a thread map): whatever reads records on
	 * another thread stops first, and its records of later segments are void */
	void (*defining)(void *ctx);
};
int rsp_reader_scan_shared(struct rsp_reader *r, rsp_record_fn fn, const struct rsp_scan_hooks *hk,
			   void *ctx, char *err, size_t errlen);
/*
 * Segment @i's records to @fn, from a thread other than the scan's (one at a
 * time), inflated into that thread's own buffer, as long as each is plain
 * (none that defines the stream or carries a payload after it) and whole.
 * 0 and *@n_records; -EAGAIN: one is not (let the scan read the segment; the
 * caller drops what @fn was given of it); -ENOMEM; or what @fn returned.
 * Nothing of the reader changes but the segment's size; the caller keeps the
 * scan from taking in a defining record meanwhile (rsp_scan_hooks.defining).
 */
int rsp_reader_scan_segment_plain(struct rsp_reader *r, size_t i, rsp_record_fn fn, void *ctx,
				  uint64_t *n_records);

/*
 * The record at @offset (as given to the scan callback); NULL if it cannot be
 * had (no memory to inflate it again).  A record of a segment the caller
 * does not hold (below) is inflated into a small cache: the pointer is good
 * until the next such call.
 */
const struct perf_event_header *rsp_reader_record_at(const struct rsp_reader *r, uint64_t offset);
/* Ask the CPU to fetch the record at @offset into its cache (if it is at hand: no inflating). */
void rsp_reader_prefetch(const struct rsp_reader *r, uint64_t offset);

/*
 * A compressed stream made of many zstd frames (rsp record's) is not
 * inflated at open: each frame is a *segment*, inflated by the scan one at a
 * time and by whoever reads its records later.  A record in segment S at
 * byte B of it has the offset RSP_SEG_BIT | S << 32 | B.  Loading holds a
 * segment from its first record in time order to its last: load and drop
 * may be called from different threads, not at once for one segment.
 */
#define RSP_SEG_BIT (1ull << 63)
static inline long rsp_reader_segment_of(uint64_t offset)
{
	return offset & RSP_SEG_BIT ? (long)(offset >> 32 & 0x7fffffff) : -1;
}
size_t rsp_reader_n_segments(const struct rsp_reader *r);
/* Segments inflated so far, by the scan, the walk and later reads (each time counted). */
uint64_t rsp_reader_n_inflated(const struct rsp_reader *r);
/* Where the record at @offset lies in the file (a segment's: where the segment starts; an
 * inflated stream's: the compressed record that holds it, or its own place if not compressed). */
uint64_t rsp_reader_file_offset(const struct rsp_reader *r, uint64_t offset);
/*
 * Inflate segment @i and hold it: 0, -ENOMEM, or -EINVAL (the stream changed).
 * @who (0 or 1): two threads may load different segments at once.
 */
int rsp_reader_segment_load(struct rsp_reader *r, size_t i, int who);
void rsp_reader_segment_drop(struct rsp_reader *r, size_t i);
/*
 * Loading in one pass (timeline/walk.c): segment @i, not scanned yet,
 * inflated once and held for the walk; its records are then given to @fn
 * (rsp_reader_segment_records()) in the scan's place (rsp_scan_hooks.segment
 * returns 1).  Hold: 0, -ENOMEM, or -EINVAL (broken or cut: let the scan
 * read it).  Records: 0 and *@n_records; -EAGAIN if one is not plain (one
 * that defines the stream or carries a payload after it: let the scan read
 * the segment; none was given); or what @fn returned.  Two threads may hold
 * different segments at once (@who 0 or 1, as rsp_reader_segment_load()).
 */
int rsp_reader_segment_hold(struct rsp_reader *r, size_t i, int who);
int rsp_reader_segment_records(struct rsp_reader *r, size_t i, rsp_record_fn fn, void *ctx,
			       uint64_t *n_records);
/*
 * Loading in one pass: the records after the stream's last segment read
 * before the scan comes to them, when they are build ids and records that
 * define nothing (rsp record writes its build ids last, and the walk begins
 * before the scan ends): the build ids taken in now, not again when the scan
 * comes to them, nor told to rsp_scan_hooks.defining then.  0; -EAGAIN: the
 * tail is cut or holds another record that defines the stream (nothing read).
 * Once the header records before the segments are read (after the scan: 0, nothing to do).
 */
int rsp_reader_read_tail(struct rsp_reader *r);
/* Bytes segment @i inflates to (whole records), once scanned or held; 0 before. */
uint64_t rsp_reader_segment_size(const struct rsp_reader *r, size_t i);
/* Free the buffers dropped segments leave for the next loads (after loading). */
void rsp_reader_segments_trim(struct rsp_reader *r);

const struct rsp_reader_info *rsp_reader_info(const struct rsp_reader *r);
size_t rsp_reader_n_attrs(const struct rsp_reader *r);
const struct rsp_rattr *rsp_reader_attr(const struct rsp_reader *r, size_t i);
/* The attr a record belongs to (by id, or the only one); NULL if unknown. */
const struct rsp_rattr *rsp_reader_attr_of(const struct rsp_reader *r,
					   const struct perf_event_header *h);

/* A sample's time and cpu only (the fixed part of its layout), for indexing;
 * -EINVAL if the record is too short for them. */
int rsp_reader_sample_time(const struct rsp_reader *r, const struct perf_event_header *h,
			   struct rsp_sample *s);
/* Parse a PERF_RECORD_SAMPLE.  -EINVAL if it does not fit its attr's layout. */
int rsp_reader_parse_sample(const struct rsp_reader *r, const struct perf_event_header *h,
			    struct rsp_sample *s);
/*
 * The same without reading the user stack copy's dyn_size: stack_size is the
 * copy's size, an upper bound (bytes valid may be fewer, even none).  What
 * loading needs; whoever unwinds asks rsp_reader_sample_stack_filled().
 */
int rsp_reader_parse_sample_fast(const struct rsp_reader *r, const struct perf_event_header *h,
				 struct rsp_sample *s);
/* After rsp_reader_parse_sample_fast(): the bytes of the user-stack copy the
 * kernel filled (its dyn_size, which that parse did not read); 0 without a copy. */
uint64_t rsp_reader_sample_stack_filled(const struct rsp_sample *s);

/* The sample_id_all trailer of a non-sample record: time, cpu, tid. */
int rsp_reader_parse_id(const struct rsp_reader *r, const struct perf_event_header *h,
			struct rsp_sample *s);

#endif /* RSP_MODEL_READER_H */
