/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Streaming perf.data writer (pipe-mode layout, see docs/perf-data.md).
 *
 * The ring-buffer reader appends whole records into in-memory chunks and
 * never touches the disk; a writer thread writes finished chunks.  Chunk
 * boundaries are record boundaries, so a failed write (disk full) is undone
 * back to the last whole chunk and the file stays a valid stream that perf
 * script reads to its end.  After kill -9 the file holds every chunk written
 * so far; perf reads it up to the cut.
 */
#ifndef RSP_COLLECTOR_WRITER_H
#define RSP_COLLECTOR_WRITER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rsp_writer;

/*
 * Create @path (mode 0600) through rsp_output_open_in_place(): an existing
 * regular file is renamed to @path.old first, as perf does; a character
 * device or a FIFO is written as it is (never renamed, created or cut back);
 * a directory is refused.  On failure returns -errno and a message in @err.
 */
int rsp_writer_open(struct rsp_writer **w, const char *path, char *err, size_t errlen);

/* Bytes of one chunk of the pool. */
#define RSP_WRITER_CHUNK (4u << 20)

/*
 * The pool: chunks of records, filled by the reader, queued, written by the
 * writer thread and reused, never more than @bytes of them in all (0: 1 GiB).
 * Records go through rsp_writer_reserve/append, which may not take the
 * pool's last chunk; that one is kept for the _ctl calls (the few records
 * that say what was shed).  At the limit a blocking writer (the default)
 * waits for the writer thread; a non-blocking one refuses: NULL, errno
 * ENOBUFS.
 */
void rsp_writer_set_limit(struct rsp_writer *w, uint64_t bytes);
void rsp_writer_set_blocking(struct rsp_writer *w, bool blocking);
/* Whether @size bytes of records fit now without waiting; reader side. */
bool rsp_writer_has_room(const struct rsp_writer *w, size_t size);
/* Hand the current chunk over and wait up to @ms for that room. */
bool rsp_writer_wait_room(struct rsp_writer *w, size_t size, int ms);
/* The pool's chunks in use (the reader's, queued, being written), in % of the limit. */
unsigned rsp_writer_fill(const struct rsp_writer *w);

struct rsp_writer_pool_stats {
	uint64_t limit; /* bytes, 0: none */
	uint64_t peak; /* the most bytes of chunks in use at once */
	uint64_t allocated; /* bytes of chunks now, spare or in use */
	uint64_t refused; /* reserves refused at the limit */
	uint64_t dropped; /* bytes of records dropped by an abort */
};
void rsp_writer_pool_stats(struct rsp_writer *w, struct rsp_writer_pool_stats *out);

/* Everything appended so far on disk when it returns (the writer thread at
 * full priority meanwhile): the start of a file, whole before the recording. */
void rsp_writer_sync(struct rsp_writer *w);
/* The writer thread at full priority from now on: the recording is ending. */
void rsp_writer_hurry(struct rsp_writer *w);
/* Once *@flag is nonzero, chunks still queued are dropped, not written: the
 * file ends on the last chunk written (a second Ctrl-C). */
void rsp_writer_watch_abort(struct rsp_writer *w, const volatile sig_atomic_t *flag);

/* Space for one record of @size bytes (a multiple of 8) in the current chunk;
 * NULL with errno ENOMEM or ENOBUFS (the pool is spent). */
void *rsp_writer_reserve(struct rsp_writer *w, size_t size);
int rsp_writer_append(struct rsp_writer *w, const void *rec, size_t size);
void *rsp_writer_reserve_ctl(struct rsp_writer *w, size_t size);
int rsp_writer_append_ctl(struct rsp_writer *w, const void *rec, size_t size);

/*
 * A pass over each chunk's records on the writer thread, before the chunk is
 * compressed and written: @fn gets the chunk's whole records (@len bytes,
 * 8-byte aligned) and may rewrite them in place, shorter only; it returns the
 * bytes that remain (whole records).  Set before the first record.  The
 * recorder's unwinder (runwind.h).
 */
typedef size_t (*rsp_writer_filter_fn)(void *arg, unsigned char *recs, size_t len);
void rsp_writer_set_filter(struct rsp_writer *w, rsp_writer_filter_fn fn, void *arg);

/* End a round (FINISHED_ROUND) if anything was appended since the last one. */
void rsp_writer_round(struct rsp_writer *w);

/* Hand the current chunk to the writer thread. */
void rsp_writer_flush(struct rsp_writer *w);

/*
 * From the next record on, write chunks zstd-compressed at @level (perf's
 * PERF_RECORD_COMPRESSED, as `perf record -z`; 0: uncompressed).  Flushes the
 * current chunk first.  Write HEADER_COMPRESSED before turning it on.
 */
int rsp_writer_set_compression(struct rsp_writer *w, int level);
/* Input bytes per compressed record (HEADER_COMPRESSED's mmap_len must hold
 * one record's output, with a record left over from the one before). */
#define RSP_COMPRESS_PIECE (32u << 10)
#define RSP_COMPRESS_RECORD 65528u /* a record's size is a u16; 8-byte multiple */
/* Input bytes after which the zstd frame ends, at the next record boundary. */
#define RSP_COMPRESS_FRAME (256u << 10)
/* The memory the compressor takes at @level. */
uint64_t rsp_writer_compressor_bytes(int level);
/* Bytes of the compressed chunks before and after compression (call after
 * rsp_writer_close has drained them, or expect a partial count). */
void rsp_writer_bytes_compressed(struct rsp_writer *w, uint64_t *raw, uint64_t *z);

/* Bytes handed to the writer so far, and bytes on disk. */
uint64_t rsp_writer_bytes_queued(const struct rsp_writer *w);
uint64_t rsp_writer_bytes_written(struct rsp_writer *w);

/* 0, or the -errno that stopped writing (e.g. -ENOSPC). */
int rsp_writer_error(struct rsp_writer *w);

/* Flush, wait for the writer thread, close.  Returns the first error; the
 * bytes on disk in @written, the compressed records' bytes before and after
 * compression in @raw and @z, the pool's in @ps (each may be NULL). */
int rsp_writer_close(struct rsp_writer *w, uint64_t *written, uint64_t *raw, uint64_t *z,
		     struct rsp_writer_pool_stats *ps);

#endif /* RSP_COLLECTOR_WRITER_H */
