/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "writer.h"

#include "rsp-output.h"
#include "rsp-perf-format.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#define CHUNK_SIZE (4u << 20)
/* Queued but unwritten bytes above this make the reader wait (the kernel
 * then reports what it could not buffer as PERF_RECORD_LOST). */
#define QUEUE_LIMIT (1ull << 30)
/* the writer's priority: idle below IDLE_HIGH queued bytes, normal above, back to
 * idle under IDLE_LOW */
#define IDLE_HIGH (256ull << 20)
#define IDLE_LOW (32ull << 20)
/*
 * Uncompressed records reach the file in whole blocks at offsets aligned to
 * BLOCK (the tail waits in a stage for the next chunk): the page cache then
 * holds the file in large folios, which a reader maps faster.  Written at
 * any size, the file's folios climb and fall in size around every write's
 * unaligned ends: loading a fresh 520 MB recording took 0.15 s (25 %) longer
 * on this project's VM.  A stage left waiting STAGE_WAIT_MS is written out.
 */
#define BLOCK (2u << 20)
#define STAGE_WAIT_MS 500

struct chunk {
	struct chunk *next;
	size_t used;
	size_t cap;
	bool compress; /* written as PERF_RECORD_COMPRESSED records */
	_Alignas(8) unsigned char data[]; /* records: 8-byte aligned */
};

struct rsp_writer {
	int fd;
	bool regular; /* a file rsp created: may be cut back (else a device or FIFO) */
	char *path;

	/* reader side, no lock */
	struct chunk *cur;
	bool round_dirty;
	uint64_t queued;
	int level; /* zstd level of chunks flushed from now on, 0: none */

	/* writer thread only */
	ZSTD_CCtx *zc;
	unsigned char *zbuf; /* one PERF_RECORD_COMPRESSED record */
	uint64_t raw_bytes; /* of the compressed chunks, before compression */
	uint64_t z_bytes; /* and after */
	uint64_t frame_in; /* input bytes in the zstd frame not yet ended */
	unsigned char *stage; /* BLOCK bytes: what follows on_disk */
	size_t staged;
	uint64_t on_disk; /* the file's size */
	uint64_t whole; /* the end of the last chunk entirely on disk */

	/* shared with the writer thread */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_cond_t drained;
	struct chunk *head, *tail;
	uint64_t pending; /* bytes queued, not yet written */
	uint64_t written;
	int error;
	bool closing;
	pthread_t thread;
};

static struct chunk *chunk_new(size_t min)
{
	size_t cap = min > CHUNK_SIZE ? min : CHUNK_SIZE;
	struct chunk *c = malloc(sizeof(*c) + cap);

	if (!c)
		return NULL;
	c->next = NULL;
	c->used = 0;
	c->cap = cap;
	c->compress = false;
	return c;
}

static int write_all(int fd, const unsigned char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		p += n;
		len -= n;
	}
	return 0;
}

static int writev_all(int fd, struct iovec *iov, int n)
{
	while (n) {
		ssize_t k = writev(fd, iov, n);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (k == 0)
			return -EIO;
		while (n && (size_t)k >= iov->iov_len) {
			k -= (ssize_t)iov->iov_len;
			iov++;
			n--;
		}
		if (n) {
			iov->iov_base = (char *)iov->iov_base + k;
			iov->iov_len -= (size_t)k;
		}
	}
	return 0;
}

/* Write out what the stage holds: the file then ends on a chunk. */
static int stage_flush(struct rsp_writer *w)
{
	int err;

	if (!w->staged)
		return 0;
	err = write_all(w->fd, w->stage, w->staged);
	if (err)
		return err;
	w->on_disk += w->staged;
	w->whole = w->on_disk;
	w->staged = 0;
	return 0;
}

/* Append a chunk's records: up to the last BLOCK boundary now, the rest staged. */
static int stage_put(struct rsp_writer *w, const unsigned char *p, size_t len)
{
	uint64_t start = w->on_disk + w->staged; /* the chunk's offset */
	uint64_t end = start + len, cut = end & ~(uint64_t)(BLOCK - 1);

	if (!w->stage) {
		w->stage = malloc(BLOCK);
		if (!w->stage)
			return -ENOMEM;
	}
	if (cut > w->on_disk) {
		/* the stage lies within one block, so the cut is past it */
		size_t from_p = (size_t)(cut - start);
		struct iovec iov[2] = { { w->stage, w->staged }, { (void *)p, from_p } };
		int err = writev_all(w->fd, w->staged ? iov : iov + 1, w->staged ? 2 : 1);

		if (err)
			return err;
		w->on_disk = cut;
		w->whole = cut == end ? end : start;
		w->staged = 0;
		p += from_p;
		len -= from_p;
	}
	memcpy(w->stage + w->staged, p, len);
	w->staged += len;
	return 0;
}
/*
 * A chunk as PERF_RECORD_COMPRESSED records: a zstd stream flushed every
 * RSP_COMPRESS_PIECE input bytes so that each record holds a bounded piece
 * (perf's reader decompresses one record at a time into a buffer of
 * HEADER_COMPRESSED's mmap_len) and its output fits a record.  The stream's
 * frame ends at the first record boundary past RSP_COMPRESS_FRAME input
 * bytes: each frame then holds whole records and decompresses on its own, so
 * a reader can inflate the stream a frame at a time, in any order (model/
 * reader.c), instead of all of it at once.  A reader that takes the stream
 * as one (perf) reads the frames one after the other.
 */
static int write_compressed(struct rsp_writer *w, const struct chunk *c, uint64_t *out_bytes)
{
	size_t done = 0, rec = 0; /* rec: the first record boundary not before done */

	*out_bytes = 0;
	while (done < c->used) {
		size_t piece = c->used - done < RSP_COMPRESS_PIECE ? c->used - done :
								       RSP_COMPRESS_PIECE;
		ZSTD_EndDirective how = ZSTD_e_flush;
		ZSTD_outBuffer out = { w->zbuf + sizeof(struct perf_event_header),
				       RSP_COMPRESS_RECORD - sizeof(struct perf_event_header), 0 };
		struct perf_event_header h = { .type = RSP_PF_RECORD_COMPRESSED };
		ZSTD_inBuffer in;
		size_t left;
		int err;

		if (w->frame_in + piece >= RSP_COMPRESS_FRAME) {
			/* the frame ends at the first boundary past its size, if in this piece */
			size_t want = done + (w->frame_in < RSP_COMPRESS_FRAME ?
						      RSP_COMPRESS_FRAME - w->frame_in : 0);

			while (rec < want && rec < c->used) {
				struct perf_event_header rh;

				memcpy(&rh, c->data + rec, sizeof(rh));
				if (rh.size < sizeof(rh))
					return -EINVAL; /* cannot happen: chunks hold whole records */
				rec += rh.size;
				if (rh.type == RSP_PF_RECORD_HEADER_TRACING_DATA && rh.size >= 12 &&
				    rec <= c->used) {
					uint32_t payload; /* it follows the record */

					memcpy(&payload, c->data + rec - rh.size + 8, 4);
					rec += payload;
				}
			}
			if (rec <= done + piece && rec > done) {
				piece = rec - done;
				how = ZSTD_e_end;
			}
		}
		in = (ZSTD_inBuffer){ c->data + done, piece, 0 };
		do {
			left = ZSTD_compressStream2(w->zc, &out, &in, how);
			if (ZSTD_isError(left))
				return -EIO;
		} while (left && out.pos < out.size);
		if (left)
			return -EOVERFLOW; /* cannot happen: the bound of a piece fits */
		h.size = (uint16_t)(sizeof(h) + out.pos);
		memcpy(w->zbuf, &h, sizeof(h));
		err = write_all(w->fd, w->zbuf, h.size);
		if (err)
			return err;
		*out_bytes += h.size;
		done += piece;
		w->frame_in = how == ZSTD_e_end ? 0 : w->frame_in + piece;
	}
	return 0;
}

/* After a failed write: the file cut back to its last whole chunk. */
static void undo(struct rsp_writer *w)
{
	if (w->regular && ftruncate(w->fd, (off_t)w->whole) == 0)
		lseek(w->fd, (off_t)w->whole, SEEK_SET);
	w->on_disk = w->whole;
	w->staged = 0;
}

/* One chunk to the file; *n: the bytes it takes there. */
static int put_chunk(struct rsp_writer *w, const struct chunk *c, uint64_t *n)
{
	int err;

	if (c->compress) {
		err = stage_flush(w);
		if (!err)
			err = write_compressed(w, c, n);
		if (!err)
			w->whole = w->on_disk += *n;
		w->raw_bytes += c->used;
		w->z_bytes += *n;
	} else {
		err = stage_put(w, c->data, c->used);
	}
	if (err)
		undo(w);
	return err;
}

/* Called and returns with w->lock held. */
static void flush_stage_unlocked(struct rsp_writer *w)
{
	int err;

	pthread_mutex_unlock(&w->lock);
	err = stage_flush(w);
	if (err)
		undo(w);
	pthread_mutex_lock(&w->lock);
	if (err) {
		w->error = err;
		w->written = w->whole;
	}
}

static void *writer_thread(void *arg)
{
	struct rsp_writer *w = arg;
	struct sched_param sp = { 0 };

	/*
	 * Writing (and compressing) can wait: the ring-buffer reader queues
	 * chunks in memory.  As a SCHED_IDLE thread the writer takes only CPU
	 * time the recorded workload leaves idle; when the workload leaves none
	 * and the queue grows past IDLE_HIGH, it competes normally until the
	 * queue is back under IDLE_LOW (the reader waits at QUEUE_LIMIT, and
	 * the kernel then drops records).
	 */
	const bool adaptive = getenv("RSP_WRITER_NORMAL") == NULL;
	bool idle = adaptive;

	if (idle)
		pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp);

	pthread_mutex_lock(&w->lock);
	for (;;) {
		struct chunk *c;
		int err = 0;

		while (!w->head && !w->closing) {
			struct timespec until;

			if (!w->staged || w->error) {
				pthread_cond_wait(&w->cond, &w->lock);
				continue;
			}
			clock_gettime(CLOCK_REALTIME, &until);
			until.tv_nsec += STAGE_WAIT_MS * 1000000L;
			if (until.tv_nsec >= 1000000000L) {
				until.tv_sec++;
				until.tv_nsec -= 1000000000L;
			}
			if (pthread_cond_timedwait(&w->cond, &w->lock, &until) == ETIMEDOUT &&
			    !w->head)
				flush_stage_unlocked(w);
		}
		c = w->head;
		if (!c) {
			if (!w->error)
				flush_stage_unlocked(w);
			break;
		}
		w->head = c->next;
		if (!w->head)
			w->tail = NULL;
		if (!w->error) {
			uint64_t n = c->used;

			pthread_mutex_unlock(&w->lock);
			err = put_chunk(w, c, &n);
			pthread_mutex_lock(&w->lock);
			if (err) {
				w->error = err;
				w->written = w->whole;
			} else {
				w->written += n;
			}
		}
		w->pending -= c->used;
		pthread_cond_broadcast(&w->drained);
		free(c);
		if (adaptive) {
			bool want_idle = idle ? w->pending < IDLE_HIGH : w->pending < IDLE_LOW;

			if (want_idle != idle) {
				idle = want_idle;
				pthread_setschedparam(pthread_self(), idle ? SCHED_IDLE : SCHED_OTHER,
						      &sp);
			}
		}
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

int rsp_writer_open(struct rsp_writer **out, const char *path, char *err, size_t errlen)
{
	struct rsp_writer *w;
	struct rsp_pf_pipe_header hdr = { .magic = RSP_PF_MAGIC, .size = sizeof(hdr) };
	int ret;

	*out = NULL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->fd = -1;
	w->path = strdup(path);
	if (!w->path) {
		ret = -ENOMEM;
		goto fail;
	}
	/* these files hold every process's stacks: 0600 whatever the umask */
	ret = rsp_output_open_in_place(path, 0600, &w->fd, &w->regular, err, errlen);
	if (ret)
		goto fail;
	ret = write_all(w->fd, (const void *)&hdr, sizeof(hdr));
	if (ret) {
		rsp_output_error(err, errlen, path, ret);
		goto fail;
	}
	w->written = w->on_disk = w->whole = sizeof(hdr);
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);
	pthread_cond_init(&w->drained, NULL);
	ret = -pthread_create(&w->thread, NULL, writer_thread, w);
	if (ret) {
		snprintf(err, errlen, "cannot start the writer thread: %s", strerror(-ret));
		goto fail;
	}
	*out = w;
	return 0;
fail:
	if (w->fd >= 0) {
		close(w->fd);
		if (w->regular)
			unlink(path); /* created by rsp_output_open_in_place(), O_EXCL */
	}
	free(w->path);
	free(w);
	return ret;
}

void rsp_writer_flush(struct rsp_writer *w)
{
	struct chunk *c = w->cur;

	if (!c || !c->used)
		return;
	w->cur = NULL;
	c->compress = w->level > 0;
	pthread_mutex_lock(&w->lock);
	while (w->pending > QUEUE_LIMIT && !w->error)
		pthread_cond_wait(&w->drained, &w->lock);
	if (w->tail)
		w->tail->next = c;
	else
		w->head = c;
	w->tail = c;
	w->pending += c->used;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

void *rsp_writer_reserve(struct rsp_writer *w, size_t size)
{
	void *p;

	if (w->cur && w->cur->used + size > w->cur->cap)
		rsp_writer_flush(w);
	if (!w->cur) {
		w->cur = chunk_new(size);
		if (!w->cur)
			return NULL;
	}
	p = w->cur->data + w->cur->used;
	w->cur->used += size;
	w->queued += size;
	w->round_dirty = true;
	return p;
}

int rsp_writer_append(struct rsp_writer *w, const void *rec, size_t size)
{
	void *p = rsp_writer_reserve(w, size);

	if (!p)
		return -ENOMEM;
	memcpy(p, rec, size);
	return 0;
}

void rsp_writer_round(struct rsp_writer *w)
{
	struct perf_event_header h = {
		.type = RSP_PF_RECORD_FINISHED_ROUND,
		.size = sizeof(h),
	};

	if (!w->round_dirty)
		return;
	rsp_writer_append(w, &h, sizeof(h));
	w->round_dirty = false;
}

uint64_t rsp_writer_bytes_queued(const struct rsp_writer *w)
{
	return w->queued + sizeof(struct rsp_pf_pipe_header);
}

uint64_t rsp_writer_bytes_written(struct rsp_writer *w)
{
	uint64_t n;

	pthread_mutex_lock(&w->lock);
	n = w->written;
	pthread_mutex_unlock(&w->lock);
	return n;
}

int rsp_writer_error(struct rsp_writer *w)
{
	int e;

	pthread_mutex_lock(&w->lock);
	e = w->error;
	pthread_mutex_unlock(&w->lock);
	return e;
}

int rsp_writer_set_compression(struct rsp_writer *w, int level)
{
	rsp_writer_flush(w); /* what came before keeps its form */
	if (level > 0 && !w->zc) {
		w->zc = ZSTD_createCCtx();
		w->zbuf = malloc(RSP_COMPRESS_RECORD);
		if (!w->zc || !w->zbuf ||
		    ZSTD_isError(ZSTD_CCtx_setParameter(w->zc, ZSTD_c_compressionLevel, level)))
			return -ENOMEM;
	}
	/* the writer thread reads chunk->compress only: no race on level */
	w->level = level;
	return 0;
}

void rsp_writer_bytes_compressed(struct rsp_writer *w, uint64_t *raw, uint64_t *z)
{
	pthread_mutex_lock(&w->lock);
	*raw = w->raw_bytes;
	*z = w->z_bytes;
	pthread_mutex_unlock(&w->lock);
}

int rsp_writer_close(struct rsp_writer *w, uint64_t *written, uint64_t *raw, uint64_t *z)
{
	int err;

	if (!w)
		return 0;
	rsp_writer_flush(w);
	free(w->cur);
	pthread_mutex_lock(&w->lock);
	w->closing = true;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	err = w->error;
	if (written)
		*written = w->written;
	if (raw)
		*raw = w->raw_bytes;
	if (z)
		*z = w->z_bytes;
	ZSTD_freeCCtx(w->zc);
	free(w->zbuf);
	free(w->stage);
	if (!err && w->regular && fsync(w->fd) < 0 && errno != EINVAL)
		err = -errno;
	if (close(w->fd) < 0 && !err)
		err = -errno;
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->cond);
	pthread_cond_destroy(&w->drained);
	free(w->path);
	free(w);
	return err;
}
