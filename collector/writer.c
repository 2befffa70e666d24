/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "writer.h"

#include "rsp-output.h"
#include "rsp-perf-format.h"
#include "rsp-time.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_estimateCStreamSize */
#include <zstd.h>

#define CHUNK_SIZE RSP_WRITER_CHUNK
/* Without a limit (rsp_writer_set_limit), queued but unwritten bytes above
 * this make the reader wait. */
#define QUEUE_LIMIT (1ull << 30)
/*
 * The writer thread's priority follows how full the chunk pool is (in
 * percent of the limit): SCHED_IDLE below NORMAL_AT, SCHED_OTHER from there,
 * SCHED_FIFO (below the reader) from FIFO_AT; each falls back HYSTERESIS
 * points lower.  Without a limit the pool's size is QUEUE_LIMIT.  FIFO_AT
 * leaves room under the first shed class (shed.c's SHED_AT): from 65%, perf
 * bench sched messaging's queue peaked at 70-75% of the pool (every record of
 * its 200 processes' first 0.2 s waiting), and sock events were shed; from
 * 45%, 48-54% in four runs.
 */
#define NORMAL_AT 25
#define FIFO_AT 45
#define HYSTERESIS 15
/*
 * And at least SCHED_OTHER while the oldest queued chunk has waited LAG_NS:
 * on a machine busy with other work an idle-priority writer gets no CPU at
 * all, and the file would lag the recording without bound (a kill -9 then
 * loses all of it; rsp's BPF program fills the pool too slowly to raise it).
 */
#define LAG_NS RSP_NSEC_PER_SEC
#define WRITER_RT_PRIO 5
/* start the kernel's writeback of what was written every this many bytes,
 * so that the fsync at the end has little left to do */
#define WRITEBACK_EVERY (16ull << 20)
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
	uint64_t queued_ns; /* CLOCK_MONOTONIC when it was handed to the writer */
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
	bool blocking; /* at the limit, reserve waits (else it returns NULL) */
	uint64_t refused; /* reserves refused at the limit */
	uint64_t peak_out;

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
	uint64_t synced; /* writeback started up to here */
	int prio; /* 0 idle, 1 normal, 2 fifo; set by the reader (adjust_prio) */
	bool adaptive; /* the priority follows the fill (not RSP_WRITER_NORMAL) */
	rsp_writer_filter_fn filter; /* rsp_writer_set_filter() */
	void *filter_arg;
	uint64_t throttle; /* RSP_WRITER_THROTTLE: bytes per second at most (tests), 0: none */

	/* shared with the writer thread */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_cond_t drained;
	struct chunk *head, *tail;
	struct chunk *spare; /* written chunks of CHUNK_SIZE, for reuse */
	uint64_t limit; /* bytes of chunks, 0: none */
	_Atomic uint64_t out; /* bytes of chunks not spare: the reader's, queued, being written */
	uint64_t allocated; /* bytes of chunks, spare or not */
	bool hurry; /* closing: the writer at full priority */
	bool sync; /* rsp_writer_sync() waits: the stage goes out at once */
	const volatile sig_atomic_t *abort; /* nonzero: drop what is queued */
	uint64_t dropped; /* bytes dropped by an abort */
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

static uint64_t pool_size(const struct rsp_writer *w)
{
	return w->limit ? w->limit : QUEUE_LIMIT;
}

/*
 * A chunk for the reader, from the spares or new, if the pool allows it:
 * data (@ctl false) may not take the pool's last chunk, which is kept for
 * the few records that say what was shed (@ctl true).  A chunk is always
 * given when the reader holds none and nothing is queued (a record larger
 * than the pool).  Called with w->lock held; NULL when the pool is spent.
 */
static struct chunk *chunk_take(struct rsp_writer *w, size_t min, bool ctl)
{
	uint64_t out = atomic_load_explicit(&w->out, memory_order_relaxed);
	uint64_t lim = pool_size(w) - (ctl ? 0 : CHUNK_SIZE);
	size_t cap = min > CHUNK_SIZE ? min : CHUNK_SIZE;
	struct chunk *c;

	if (out + cap > lim && out > 0)
		return NULL;
	if (cap == CHUNK_SIZE && w->spare) {
		c = w->spare;
		w->spare = c->next;
		c->next = NULL;
		c->used = 0;
		c->compress = false;
	} else {
		c = chunk_new(min);
		if (!c)
			return NULL;
		w->allocated += sizeof(*c) + cap;
	}
	out += c->cap;
	atomic_store_explicit(&w->out, out, memory_order_relaxed);
	if (out > w->peak_out)
		w->peak_out = out;
	return c;
}

/* A written chunk back to the pool.  Called with w->lock held. */
static void chunk_give_back(struct rsp_writer *w, struct chunk *c)
{
	atomic_store_explicit(&w->out, atomic_load_explicit(&w->out, memory_order_relaxed) - c->cap,
			      memory_order_relaxed);
	if (c->cap == CHUNK_SIZE && !w->closing) {
		c->next = w->spare;
		w->spare = c;
		return;
	}
	w->allocated -= sizeof(*c) + c->cap;
	free(c);
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

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * RSP_NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* The priority the pool's fill (and the oldest chunk's wait) asks for, from
 * the current one (0 idle, 1 normal, 2 fifo).  Called with w->lock held. */
static int want_prio(const struct rsp_writer *w, int cur)
{
	uint64_t pct = atomic_load_explicit(&w->out, memory_order_relaxed) * 100 / pool_size(w);

	if (w->hurry)
		return 2;
	if (pct >= FIFO_AT || (cur == 2 && pct + HYSTERESIS >= FIFO_AT))
		return 2;
	if (pct >= NORMAL_AT || (cur >= 1 && pct + HYSTERESIS >= NORMAL_AT))
		return 1;
	if (w->head && mono_ns() - w->head->queued_ns >= LAG_NS)
		return 1;
	return 0;
}

static void set_prio(pthread_t t, int prio)
{
	struct sched_param sp = { .sched_priority = prio == 2 ? WRITER_RT_PRIO : 0 };

	/* not root: SCHED_FIFO is refused, the last policy stays */
	pthread_setschedparam(t, prio == 2 ? SCHED_FIFO : prio == 1 ? SCHED_OTHER : SCHED_IDLE,
			      &sp);
}

/* The writer thread's priority for the pool's fill.  Called with w->lock held. */
static void adjust_prio(struct rsp_writer *w)
{
	int want;

	if (!w->adaptive)
		return;
	want = want_prio(w, w->prio);
	if (want != w->prio) {
		w->prio = want;
		set_prio(w->thread, want);
	}
}

/* Start the kernel's writeback of what was written since the last call. */
static void start_writeback(struct rsp_writer *w)
{
	if (!w->regular || w->on_disk < w->synced + WRITEBACK_EVERY)
		return;
	sync_file_range(w->fd, (off_t)w->synced, (off_t)(w->on_disk - w->synced),
			SYNC_FILE_RANGE_WRITE);
	w->synced = w->on_disk;
}

static void *writer_thread(void *arg)
{
	struct rsp_writer *w = arg;

	/*
	 * Writing (and compressing) can wait: the ring-buffer reader queues
	 * chunks in memory.  As a SCHED_IDLE thread the writer takes only CPU
	 * time the recorded workload leaves idle; as the pool of chunks fills
	 * it competes normally, then at real-time priority below the reader's;
	 * at the end it hurries.  The reader sets it (adjust_prio): a starved
	 * SCHED_IDLE thread could not raise itself.
	 */
	/* named, so a report tells the recorder's own work from the workload's */
	pthread_setname_np(pthread_self(), "rsp-writer");
	if (w->adaptive)
		set_prio(pthread_self(), 0);

	pthread_mutex_lock(&w->lock);
	for (;;) {
		struct chunk *c;
		size_t queued_bytes;
		int err = 0;

		while (!w->head && !w->closing) {
			struct timespec until;

			if (!w->staged || w->error) {
				pthread_cond_wait(&w->cond, &w->lock);
				continue;
			}
			if (w->sync) { /* rsp_writer_sync() waits for the stage too */
				flush_stage_unlocked(w);
				pthread_cond_broadcast(&w->drained);
				continue;
			}
			clock_gettime(CLOCK_REALTIME, &until);
			until.tv_nsec += STAGE_WAIT_MS * 1000000L;
			if (until.tv_nsec >= (long)RSP_NSEC_PER_SEC) {
				until.tv_sec++;
				until.tv_nsec -= (long)RSP_NSEC_PER_SEC;
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
		queued_bytes = c->used; /* the filter may shorten it */
		if (w->abort && *w->abort) {
			/* a second Ctrl-C: what is queued is dropped; the file ends
			 * on the last chunk written (the stage is flushed at the end) */
			w->dropped += c->used;
		} else if (!w->error) {
			uint64_t n;

			pthread_mutex_unlock(&w->lock);
			if (w->filter)
				c->used = w->filter(w->filter_arg, c->data, c->used);
			n = c->used;
			err = put_chunk(w, c, &n);
			if (!err)
				start_writeback(w);
			if (w->throttle) {
				/* a slow disk, for tests: RSP_WRITER_THROTTLE bytes per second,
				 * in slices an abort cuts short */
				uint64_t ms = c->used * 1000 / w->throttle;
				struct timespec d = { 0, 50000000L };

				for (; ms >= 50 && !(w->abort && *w->abort); ms -= 50)
					nanosleep(&d, NULL);
			}
			pthread_mutex_lock(&w->lock);
			if (err) {
				w->error = err;
				w->written = w->whole;
			} else {
				w->written += n;
			}
		}
		w->pending -= queued_bytes;
		chunk_give_back(w, c);
		pthread_cond_broadcast(&w->drained);
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
	w->blocking = true;
	w->adaptive = getenv("RSP_WRITER_NORMAL") == NULL;
	if (getenv("RSP_WRITER_THROTTLE"))
		w->throttle = strtoull(getenv("RSP_WRITER_THROTTLE"), NULL, 10);
	w->prio = w->adaptive ? 0 : 1;
	{
		/* the reader runs at real-time priority and the writer thread may be
		 * SCHED_IDLE: a writer preempted while holding the lock would stall
		 * the reader for as long as the machine is busy (priority inversion) */
		pthread_mutexattr_t ma;

		pthread_mutexattr_init(&ma);
		pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
		pthread_mutex_init(&w->lock, &ma);
		pthread_mutexattr_destroy(&ma);
	}
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
	c->queued_ns = mono_ns();
	pthread_mutex_lock(&w->lock);
	if (w->tail)
		w->tail->next = c;
	else
		w->head = c;
	w->tail = c;
	w->pending += c->used;
	adjust_prio(w);
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

static void *reserve(struct rsp_writer *w, size_t size, bool ctl)
{
	void *p;

	if (w->cur && w->cur->used + size > w->cur->cap)
		rsp_writer_flush(w);
	if (!w->cur) {
		pthread_mutex_lock(&w->lock);
		for (;;) {
			w->cur = chunk_take(w, size, ctl);
			if (w->cur || !w->blocking || w->error ||
			    atomic_load_explicit(&w->out, memory_order_relaxed) == 0)
				break;
			pthread_cond_wait(&w->drained, &w->lock);
		}
		pthread_mutex_unlock(&w->lock);
		if (!w->cur) {
			w->refused++;
			errno = ENOBUFS;
			return NULL;
		}
	}
	p = w->cur->data + w->cur->used;
	w->cur->used += size;
	w->queued += size;
	w->round_dirty = true;
	return p;
}

void *rsp_writer_reserve(struct rsp_writer *w, size_t size)
{
	return reserve(w, size, false);
}

void *rsp_writer_reserve_ctl(struct rsp_writer *w, size_t size)
{
	return reserve(w, size, true);
}

int rsp_writer_append(struct rsp_writer *w, const void *rec, size_t size)
{
	void *p = reserve(w, size, false);

	if (!p)
		return -errno;
	memcpy(p, rec, size);
	return 0;
}

int rsp_writer_append_ctl(struct rsp_writer *w, const void *rec, size_t size)
{
	void *p = reserve(w, size, true);

	if (!p)
		return -errno;
	memcpy(p, rec, size);
	return 0;
}

bool rsp_writer_has_room(const struct rsp_writer *w, size_t size)
{
	uint64_t out;

	if (w->cur && w->cur->used + size <= w->cur->cap)
		return true;
	/* a new chunk, not the pool's last: the reader's current one goes to the queue */
	out = atomic_load_explicit(&w->out, memory_order_relaxed);
	return out + (size > CHUNK_SIZE ? size : CHUNK_SIZE) + CHUNK_SIZE <= pool_size(w) ||
	       out == 0;
}

bool rsp_writer_wait_room(struct rsp_writer *w, size_t size, int ms)
{
	struct timespec until;
	bool room;

	rsp_writer_flush(w); /* the current chunk may be what holds the writer idle */
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += ms / 1000;
	until.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (until.tv_nsec >= (long)RSP_NSEC_PER_SEC) {
		until.tv_sec++;
		until.tv_nsec -= (long)RSP_NSEC_PER_SEC;
	}
	pthread_mutex_lock(&w->lock);
	while (!(room = rsp_writer_has_room(w, size)) && !w->error)
		if (pthread_cond_timedwait(&w->drained, &w->lock, &until) == ETIMEDOUT)
			break;
	pthread_mutex_unlock(&w->lock);
	return room;
}

void rsp_writer_set_limit(struct rsp_writer *w, uint64_t bytes)
{
	pthread_mutex_lock(&w->lock);
	w->limit = bytes;
	pthread_mutex_unlock(&w->lock);
}

void rsp_writer_set_blocking(struct rsp_writer *w, bool blocking)
{
	w->blocking = blocking;
}

unsigned rsp_writer_fill(const struct rsp_writer *w)
{
	return (unsigned)(atomic_load_explicit(&w->out, memory_order_relaxed) * 100 /
			  pool_size(w));
}

void rsp_writer_sync(struct rsp_writer *w)
{
	bool hurry;

	rsp_writer_flush(w);
	pthread_mutex_lock(&w->lock);
	hurry = w->hurry;
	w->hurry = w->sync = true;
	adjust_prio(w);
	pthread_cond_signal(&w->cond);
	while ((w->head || w->pending || w->staged) && !w->error)
		pthread_cond_wait(&w->drained, &w->lock);
	w->hurry = hurry;
	w->sync = false;
	adjust_prio(w);
	pthread_mutex_unlock(&w->lock);
}

void rsp_writer_hurry(struct rsp_writer *w)
{
	pthread_mutex_lock(&w->lock);
	w->hurry = true;
	adjust_prio(w);
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

void rsp_writer_watch_abort(struct rsp_writer *w, const volatile sig_atomic_t *flag)
{
	pthread_mutex_lock(&w->lock);
	w->abort = flag;
	pthread_mutex_unlock(&w->lock);
}

void rsp_writer_pool_stats(struct rsp_writer *w, struct rsp_writer_pool_stats *out)
{
	pthread_mutex_lock(&w->lock);
	out->limit = w->limit;
	out->peak = w->peak_out;
	out->allocated = w->allocated;
	out->refused = w->refused;
	out->dropped = w->dropped;
	pthread_mutex_unlock(&w->lock);
}

void rsp_writer_set_filter(struct rsp_writer *w, rsp_writer_filter_fn fn, void *arg)
{
	w->filter = fn;
	w->filter_arg = arg;
}

void rsp_writer_round(struct rsp_writer *w)
{
	struct perf_event_header h = {
		.type = RSP_PF_RECORD_FINISHED_ROUND,
		.size = sizeof(h),
	};

	if (!w->round_dirty)
		return;
	if (rsp_writer_append_ctl(w, &h, sizeof(h)) == 0)
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

uint64_t rsp_writer_compressor_bytes(int level)
{
	return level > 0 ? ZSTD_estimateCStreamSize(level) + RSP_COMPRESS_RECORD : 0;
}

void rsp_writer_bytes_compressed(struct rsp_writer *w, uint64_t *raw, uint64_t *z)
{
	pthread_mutex_lock(&w->lock);
	*raw = w->raw_bytes;
	*z = w->z_bytes;
	pthread_mutex_unlock(&w->lock);
}

int rsp_writer_close(struct rsp_writer *w, uint64_t *written, uint64_t *raw, uint64_t *z,
		     struct rsp_writer_pool_stats *ps)
{
	int err;

	if (!w)
		return 0;
	rsp_writer_flush(w);
	free(w->cur);
	pthread_mutex_lock(&w->lock);
	w->closing = true;
	w->hurry = true;
	adjust_prio(w);
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	if (ps)
		rsp_writer_pool_stats(w, ps);
	while (w->spare) {
		struct chunk *c = w->spare;

		w->spare = c->next;
		free(c);
	}
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
