/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The reader's object and the internals its files share:
 *   image.c      an image in memory (what is decompressed at open), its pages mapped ahead
 *   decompress.c a file compressed whole (gzip, bzip2, xz, lzma, zstd), decompressed at open
 *   layout.c     the header, attrs and ids, feature sections
 *   inflate.c    a compressed stream of one zstd frame (perf record -z), inflated at open
 *   segments.c   a compressed stream in many frames (rsp record), read a frame at a time;
 *                records by offset
 *   sample.c     a record's fields by perf's sample_type rules
 *   reader.c     opening, the scan of the record stream
 * each calling only the ones listed before it.
 */
#ifndef RSP_MODEL_READ_READER_PRIVATE_H
#define RSP_MODEL_READ_READER_PRIVATE_H

#include "base/vec.h"
#include "read/reader.h"
#include "rsp-errf.h"
#include "rsp-perf-format.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * perf 6.1 writes a 12-byte TRACING_DATA record in pipe mode, which leaves
 * every later record 4 bytes off 8-byte alignment.  Such a tail is copied
 * once into an aligned buffer: offsets at or after @from read from @copy.
 */
struct realigned {
	uint64_t from;
	unsigned char *copy;
};

/* A top-level record of a compressed stream: at @img in the inflated image, @n bytes (0: a
 * compressed record's output) from @file in the original. */
struct imgpos {
	uint64_t img, file, n;
};
typedef VEC(struct imgpos) imgpos_vec;

struct rsp_reader {
	const unsigned char *buf;
	size_t size;
	bool mapped;
	/* a compressed stream is read from an inflated image (inflate()); the
	 * original stays mapped: file-mode features point into it */
	const unsigned char *orig_buf;
	size_t orig_size;
	bool orig_mapped;
	bool inflate_cut; /* the compressed stream broke off: read up to there */
	struct segs *zs; /* a compressed stream in frames read one at a time, or NULL */
	unsigned char *tracing_data_copy; /* a TRACING_DATA payload found in a segment */
	bool comp_declared; /* HEADER_COMPRESSED in the file-mode features */
	/* a file compressed whole, its stream broken off at this byte of the file
	 * (decompress.c): info.packed_cut says how */
	bool unpack_cut;
	uint64_t unpack_cut_at;
	char unpack_note[192];
	unsigned char *unpack_copy; /* a small image, on the heap */
	uint64_t inflate_cut_at; /* its offset in the original */
	VEC(struct realigned) tails;
	/* an inflated image's bytes back to the file's (inflate()): in image order */
	imgpos_vec comp_at; /* where each compressed record's output starts */
	imgpos_vec plain_at; /* where each record not compressed was placed */
	struct prefault *prefault; /* the file's pages, mapped ahead of the scan */
	uint64_t data_start, data_end;
	bool scanned;
	/* the records from here to the end (after the last segment) were read ahead:
	 * rsp_reader_read_tail() */
	uint64_t tail_from;
	bool tail_read;
	/* during rsp_reader_scan_shared(): its hooks */
	const struct rsp_scan_hooks *hooks;
	void *hooks_ctx;

	struct rsp_rattr *attrs;
	size_t n_attrs;
	/* id -> attr index + 1 (open addressing) */
	uint64_t *id_keys;
	uint32_t *id_vals;
	size_t id_cap, id_n;
	int id_pos; /* u64 index of the id in a sample, -1: none */
	int is_pos; /* u64 index from the end of a non-sample record, -1: none */
	/* every attr has sample_id_all and the same trailer layout: a side-band
	 * record whose id is unknown (perf record's synthesized MMAP/COMM/FORK
	 * carry id 0) is read with the first attr's layout, as perf does */
	bool trailer_uniform;
	uint64_t trailer_bits;

	struct rsp_reader_info info;
};

/* Where the bytes at file offset @off are, 8-byte aligned if the record there is. */
static inline const unsigned char *_rsp_reader_at(const struct rsp_reader *r, uint64_t off)
{
	for (size_t i = r->tails.n; i-- > 0;)
		if (off >= r->tails.v[i].from)
			return r->tails.v[i].copy + (off - r->tails.v[i].from);
	return r->buf + off;
}

static inline uint64_t _rsp_id_hash(uint64_t id)
{
	return id * 0x9e3779b97f4a7c15ull;
}

/* The attr of sample id @id, or NULL. */
static inline const struct rsp_rattr *_rsp_reader_id_get(const struct rsp_reader *r, uint64_t id)
{
	size_t m;

	if (!r->id_cap)
		return NULL;
	m = r->id_cap - 1;
	for (size_t s = _rsp_id_hash(id) & m;; s = (s + 1) & m) {
		if (!r->id_vals[s])
			return NULL;
		if (r->id_keys[s] == id)
			return &r->attrs[r->id_vals[s] - 1];
	}
}

/* --- image.c ----------------------------------------------------------------------- */

/*
 * An image's reservation: anonymous, MAP_NORESERVE, at most half the memory (*@limit
 * its size; smaller where overcommit is strict).  NULL if none could be had.
 */
void *_rsp_image_reserve(uint64_t *limit);

/* The image's pages mapped ahead of its writer: set img and limit, the rest zero. */
struct rsp_warmer {
	unsigned char *img;
	uint64_t limit;
	uint64_t pos; /* the writer's position (atomic while the thread runs) */
	uint64_t signalled; /* the writer woke the thread at this position */
	uint64_t at; /* warmed up to here: the writer's, then the thread's (atomic) */
	uint64_t pop; /* the writer populated up to here */
	int stop; /* atomic */
	bool thread, tried, failed;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t tid;
};
/* The writer has written the image up to @pos. */
void _rsp_warm_follow(struct rsp_warmer *w, uint64_t pos);
void _rsp_warm_stop(struct rsp_warmer *w);

/* --- decompress.c ------------------------------------------------------------------ */

/*
 * A file compressed whole (gzip, bzip2, xz, lzma, zstd, by its first bytes):
 * decompressed into an image that replaces r->buf (the bytes given are not
 * read again), info.packed set.  Another format rsp knows but does not read
 * (an archive, another compressor, another tracer's file), outside or
 * inside: -EINVAL with @err naming it.  0 and nothing done for the rest.
 */
int _rsp_reader_decompress(struct rsp_reader *r, char *err, size_t errlen);
/* An error (@ret, @err) about a decompressed file's content: told with what held it. */
int _rsp_reader_decompressed_error(const struct rsp_reader *r, int ret, char *err, size_t errlen);

/* --- layout.c ---------------------------------------------------------------------- */

/* The header: both layouts; file mode's attrs and feature sections. */
int _rsp_reader_open_layout(struct rsp_reader *r, char *err, size_t errlen);
/* An attr (@len bytes at @p) and its @n_ids ids. */
int _rsp_reader_add_attr(struct rsp_reader *r, const void *p, size_t len, const void *ids,
			 size_t n_ids, char *err, size_t errlen);
struct rsp_rattr *_rsp_reader_attr_by_id(struct rsp_reader *r, uint64_t id);
void _rsp_reader_parse_build_ids(struct rsp_reader *r, const unsigned char *p,
				 const unsigned char *end);
/* Feature @feat's @len bytes at @p, from a record at @off (a file-mode section: its offset). */
int _rsp_reader_parse_feature(struct rsp_reader *r, uint64_t feat, const unsigned char *p,
			      size_t len, uint64_t off, char *err, size_t errlen);
/* The first tracing data found is kept (copied if it lies in a segment). */
int _rsp_reader_keep_tracing_data(struct rsp_reader *r, uint64_t off, const unsigned char *p,
				  uint64_t len, char *err, size_t errlen);

/* --- inflate.c --------------------------------------------------------------------- */

/* The record at @p, @avail bytes from its start to the end of what holds it:
 * its header and *@skip, the payload that follows it outside the record
 * (TRACING_DATA's, AUXTRACE's).  False at the end, or where it is cut. */
bool _rsp_record_span(const unsigned char *p, uint64_t avail, struct perf_event_header *h,
		      uint64_t *skip);
/* The top-level record at @off of the original stream (the scan reports a cut). */
bool _rsp_reader_top_record(const struct rsp_reader *r, uint64_t off, struct perf_event_header *h,
			    uint64_t *skip);
/* Is the stream compressed (HEADER_COMPRESSED declared)? */
bool _rsp_reader_declares_compression(const struct rsp_reader *r);
/* A compressed stream not in frames, inflated whole (nothing to do for others). */
int _rsp_reader_inflate(struct rsp_reader *r, char *err, size_t errlen);
/* An offset in the inflated image back to the file's. */
uint64_t _rsp_reader_image_to_file(const struct rsp_reader *r, uint64_t off);

/* --- segments.c -------------------------------------------------------------------- */

/* A stream of zstd frames to read a frame at a time?  Then r->zs is set. */
int _rsp_segs_probe(struct rsp_reader *r);
void _rsp_segs_free(struct segs *zs);
/* Segment @i of the stream starts at file offset @off (false: no segments, or not @i). */
bool _rsp_segs_starts(const struct rsp_reader *r, size_t i, uint64_t off);
/* The file offset past segment @i. */
uint64_t _rsp_segs_end(const struct rsp_reader *r, size_t i);
uint64_t _rsp_segs_first(const struct rsp_reader *r, size_t i);
/*
 * The scan's: segment @i inflated into the scan's buffer, *@buf and *@n its
 * whole records.  -ENOMEM and -EFBIG (too large) with @err set; -EINVAL for
 * a frame broken or cut (its whole records are still there).
 */
int _rsp_segs_scan_inflate(struct rsp_reader *r, size_t i, const unsigned char **buf,
			   uint64_t *n, char *err, size_t errlen);
/* Does a record of @type change how the records after it read (absorbed by the scan)? */
bool _rsp_reader_defining_type(uint32_t type);
/* After a segment is scanned: a large one's pages past the first few MB go back. */
void _rsp_segs_scan_trim(struct rsp_reader *r);
/* The scan's buffer goes (another scan makes it again). */
void _rsp_segs_scan_done(struct rsp_reader *r);

#endif /* RSP_MODEL_READ_READER_PRIVATE_H */
