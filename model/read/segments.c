/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A compressed stream in many zstd frames (rsp record's), read a frame (a
 * segment) at a time: loading in one pass inflates each once and holds it
 * until its last record in time order is walked; in two passes the scan
 * inflates each in turn into one buffer and the walk holds a segment from its
 * first record in time order to its last; a record asked for later is
 * inflated again into a small cache.
 */
#include "read/reader-private.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
/* ZSTD_d_stableOutBuffer and the frame header are still "experimental" in libzstd 1.5 */
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>
#include <zstd_errors.h>

/*
 * rsp record ends its zstd frame at a record boundary every 256 KiB of input
 * (collector/writer.c): each frame then holds whole records and inflates on
 * its own.  Such a stream is not inflated at open.  Each frame is a
 * *segment*.  Loading in one pass inflates each once and holds it
 * (rsp_reader_segment_hold, then its records to the scan's callback:
 * rsp_reader_segment_records) until its last record in time order is walked;
 * in two passes the scan inflates one at a time into one buffer and the walk
 * inflates a segment again when its first record in time order comes up
 * (rsp_reader_segment_load); either drops it after its last
 * (rsp_reader_segment_drop), so only the segments that time order interleaves
 * are held at once (tens of MB where the whole stream inflates to GB); a
 * record asked for later (a user-stack copy to unwind) is inflated again
 * into a small cache.  A
 * record's offset in a segment is RSP_SEG_BIT | segment << 32 | offset in
 * the segment.
 *
 * A stream is read so when it has more than one frame, every frame begins
 * a compressed record (zstd_frame_start()) and no other record lies between
 * the compressed records of one frame.  Any other (perf record -z: one frame for
 * the whole stream) is inflated at open (_rsp_reader_inflate()).
 */
struct seg {
	uint64_t first, end; /* file offsets: its first compressed record, past its last */
	uint64_t len; /* bytes inflated (whole records), once scanned */
	bool plain; /* held: every record in it plain and in place (rsp_reader_segment_records()) */
	unsigned char *buf; /* held by the walk, or NULL */
	size_t cap;
};

struct segbuf {
	unsigned char *p;
	size_t cap;
};

#define SEG_CACHE 8 /* segments kept for records asked for after loading */

struct segs {
	struct seg *v;
	size_t n;
	uint64_t limit; /* the most one segment may inflate to */
	/* the scan's */
	unsigned char *scan;
	size_t scan_cap;
	uint64_t scan_used; /* bytes the last segment inflated to */
	ZSTD_DCtx *dc_scan;
	/* the other thread's share of the scan (rsp_reader_scan_segment_plain) */
	unsigned char *side;
	size_t side_cap;
	ZSTD_DCtx *dc_side;
	/* the walk's loads (its two stages: one context each) and the buffers it gives back */
	ZSTD_DCtx *dc_load[2];
	pthread_mutex_t pool_lock;
	struct segbuf *pool;
	size_t n_pool, cap_pool;
	/* records asked for outside the walk */
	pthread_mutex_t cache_lock;
	ZSTD_DCtx *dc_cache;
	struct {
		uint32_t seg;
		bool valid;
		uint64_t used;
		struct segbuf b;
	} cache[SEG_CACHE];
	uint64_t tick;
	uint64_t inflated; /* segments inflated (any thread: atomic), for tests and tuning */
	uint64_t hold_cap; /* the largest segment held before it was scanned (atomic): a size to try */
};

/*
 * Does a zstd frame begin at @p?  Its magic number, a valid frame header, and
 * a first block header that can be one.  (A compressed record of perf
 * record -z may begin inside a block, on any bytes: all three by chance is
 * one in ~10^12.)
 */
static bool zstd_frame_start(const unsigned char *p, size_t n)
{
	ZSTD_frameHeader fh;
	uint32_t magic, bh = 0;

	if (n < 4)
		return false;
	memcpy(&magic, p, 4);
	if (magic != ZSTD_MAGICNUMBER || ZSTD_getFrameHeader(&fh, p, n) != 0 ||
	    fh.frameType != ZSTD_frame || n < fh.headerSize + 3)
		return false;
	memcpy(&bh, p + fh.headerSize, 3); /* little-endian: last, type (2 bits), size (21) */
	return (bh >> 1 & 3) != 3 && (bh >> 3) <= ZSTD_BLOCKSIZE_MAX;
}

/* Does the stream read as segments?  Then r->zs holds them. */
int _rsp_segs_probe(struct rsp_reader *r)
{
	struct perf_event_header h;
	uint64_t off = r->data_start, skip;
	VEC(struct seg) v = { 0 };
	bool open = false, ok = true;
	long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);

	if (!_rsp_reader_declares_compression(r))
		return 0;
	while (ok && _rsp_reader_top_record(r, off, &h, &skip)) {
		if (h.type == RSP_PF_RECORD_COMPRESSED) {
			const unsigned char *p = r->buf + off + sizeof(h);

			if (zstd_frame_start(p, h.size - sizeof(h))) {
				struct seg z = { .first = off };

				if (open)
					v.v[v.n - 1].end = off;
				ok = vec_push(&v, z) != NULL;
				open = true;
			} else {
				ok = open; /* the rest of a frame, right after its start */
			}
		} else if (open) {
			v.v[v.n - 1].end = off;
			open = false;
		}
		off += h.size + skip;
	}
	if (open)
		v.v[v.n - 1].end = off;
	if (!ok || v.n < 2) {
		vec_free(&v);
		return 0;
	}
	r->zs = calloc(1, sizeof(*r->zs));
	if (!r->zs) {
		vec_free(&v);
		return -ENOMEM;
	}
	r->zs->v = v.v;
	r->zs->n = v.n;
	r->zs->limit =
	    pages > 0 && psize > 0 ? (uint64_t)pages * (uint64_t)psize / 2 : (1ull << 34);
	if (r->zs->limit > (1ull << 32) - 1)
		r->zs->limit = (1ull << 32) - 1; /* an offset in a segment is 32 bits */
	/*
	 * Under ulimit -v: the scan's and the side's buffers, an eighth each of
	 * what is free, at least 16 MB (rsp record's segments are ~300 KiB; a
	 * larger one is refused with a clear line, seg_inflate())
	 */
	r->zs->limit = _rsp_reserve_cap(r->zs->limit, 8);
	if (r->zs->limit < (16u << 20))
		r->zs->limit = 16u << 20;
	pthread_mutex_init(&r->zs->pool_lock, NULL);
	pthread_mutex_init(&r->zs->cache_lock, NULL);
	r->info.compressed = true;
	return 0;
}

void _rsp_segs_free(struct segs *zs)
{
	if (!zs)
		return;
	for (size_t i = 0; i < zs->n; i++)
		free(zs->v[i].buf);
	for (size_t i = 0; i < zs->n_pool; i++)
		free(zs->pool[i].p);
	for (int i = 0; i < SEG_CACHE; i++)
		free(zs->cache[i].b.p);
	free(zs->pool);
	free(zs->v);
	if (zs->scan)
		munmap(zs->scan, zs->scan_cap);
	if (zs->side)
		munmap(zs->side, zs->side_cap);
	ZSTD_freeDCtx(zs->dc_scan);
	ZSTD_freeDCtx(zs->dc_side);
	ZSTD_freeDCtx(zs->dc_load[0]);
	ZSTD_freeDCtx(zs->dc_load[1]);
	ZSTD_freeDCtx(zs->dc_cache);
	pthread_mutex_destroy(&zs->pool_lock);
	pthread_mutex_destroy(&zs->cache_lock);
	free(zs);
}

/*
 * Inflate segment @z into @dst (@cap bytes) with *@dc (made on first use).
 * 0 and *@len; -EFBIG if it needs more room; -EINVAL if the stream is broken.
 */
static int seg_inflate(const struct rsp_reader *r, ZSTD_DCtx **dc, const struct seg *z,
		       unsigned char *dst, size_t cap, uint64_t *len)
{
	ZSTD_outBuffer out = { dst, cap, 0 };
	struct perf_event_header h;
	uint64_t off = z->first, skip;
	int ret = 0;

	if (!*dc) {
		*dc = ZSTD_createDCtx();
		if (!*dc) {
			*len = 0;
			return -ENOMEM;
		}
		/* straight into the buffer; without it (an older libzstd) through its window */
		(void)ZSTD_DCtx_setParameter(*dc, ZSTD_d_stableOutBuffer, 1);
	}
	ZSTD_DCtx_reset(*dc, ZSTD_reset_session_only);
	__atomic_fetch_add(&r->zs->inflated, 1, __ATOMIC_RELAXED);
	while (!ret && off < z->end && _rsp_reader_top_record(r, off, &h, &skip)) {
		ZSTD_inBuffer in = { r->buf + off + sizeof(h), h.size - sizeof(h), 0 };

		while (!ret && in.pos < in.size) {
			size_t was = in.pos, at = out.pos,
			       n = ZSTD_decompressStream(*dc, &out, &in);

			if (ZSTD_isError(n))
				ret = ZSTD_getErrorCode(n) == ZSTD_error_dstSize_tooSmall ? -EFBIG
				                                                          : -EINVAL;
			else if (in.pos == was && out.pos == at)
				ret = out.pos == out.size ? -EFBIG : -EINVAL; /* no progress */
			else if (n == 0 && in.pos < in.size)
				ret = -EINVAL; /* a second frame in one segment */
		}
		off += h.size + skip;
	}
	*len = out.pos;
	return ret;
}

/*
 * The scan's buffer: a reservation as large as one segment may be (virtual
 * only: pages exist once written), so that a segment of any size inflates in
 * one go; the first MB mapped in bulk (rsp record's segments are ~300 KiB).
 * Where overcommit is strict the reservation is halved down to 16 MB.
 */
#define SEG_WARM (1u << 20)
#define SEG_TRIM (16u << 20) /* pages of a larger segment are given back after it */
#define SEG_HOLD_MIN (64u << 10) /* bytes: a buffer to hold a segment not scanned yet, at least */

static int seg_scan_buffer(struct segs *zs)
{
	void *p;

	for (;;) {
		p = mmap(NULL, zs->limit, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p != MAP_FAILED || errno != ENOMEM || zs->limit <= (16u << 20))
			break;
		zs->limit /= 2;
	}
	if (p == MAP_FAILED)
		return -ENOMEM;
	zs->scan = p;
	zs->scan_cap = zs->limit;
	_rsp_warm(zs->scan, zs->scan_cap < SEG_WARM ? zs->scan_cap : SEG_WARM);
	return 0;
}

/* The size a buffer to hold a segment not scanned yet starts from: at least @len. */
static void hold_cap_at_least(struct segs *zs, uint64_t len)
{
	uint64_t was = __atomic_load_n(&zs->hold_cap, __ATOMIC_RELAXED);

	while (len > was && !__atomic_compare_exchange_n(&zs->hold_cap, &was, len, false,
							 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

bool _rsp_reader_defining_type(uint32_t type)
{
	switch (type) {
	case RSP_PF_RECORD_HEADER_ATTR:
	case RSP_PF_RECORD_EVENT_UPDATE:
	case RSP_PF_RECORD_HEADER_FEATURE:
	case RSP_PF_RECORD_HEADER_TRACING_DATA:
	case RSP_PF_RECORD_HEADER_BUILD_ID:
	case RSP_PF_RECORD_THREAD_MAP:
		return true;
	default:
		return false;
	}
}

/* A record the scan only counts: none that defines the stream, carries a payload
 * after it (AUXTRACE) or holds compressed records */
static bool plain_type(uint32_t type)
{
	return !_rsp_reader_defining_type(type) && type != RSP_PF_RECORD_AUXTRACE &&
	       type != RSP_PF_RECORD_COMPRESSED;
}

/*
 * Whole records only, from @len inflated bytes (a payload after its record
 * included): a frame cut short or broken ends on its last.  *@plain (if
 * given): every record of the @len bytes whole, plain, aligned and without a
 * payload after it (what rsp_reader_segment_records() gives).
 */
static uint64_t whole_records(const unsigned char *buf, uint64_t len, bool *plain)
{
	uint64_t whole = 0;
	bool all_plain = true;

	while (whole < len) {
		struct perf_event_header h;
		uint64_t skip;

		if (!_rsp_record_span(buf + whole, len - whole, &h, &skip))
			break;
		if ((whole & 7) || skip || !plain_type(h.type))
			all_plain = false;
		whole += h.size + skip;
	}
	if (plain)
		*plain = all_plain && whole == len;
	return whole;
}

int _rsp_segs_scan_inflate(struct rsp_reader *r, size_t i, const unsigned char **buf,
			   uint64_t *n, char *err, size_t errlen)
{
	struct segs *zs = r->zs;
	uint64_t len = 0, whole = 0;
	int ret;

	if (!zs->scan && seg_scan_buffer(zs))
		ret = -ENOMEM;
	else
		ret = seg_inflate(r, &zs->dc_scan, &zs->v[i], zs->scan, zs->scan_cap, &len);
	if (ret == -EFBIG || ret == -ENOMEM)
		return rsp_errf(err, errlen, ret,
		                ret == -ENOMEM ? "out of memory inflating the compressed trace"
		                               : "a frame of the compressed trace inflates to more "
		                                 "than %llu MB, more than this process can hold",
		                (unsigned long long)(zs->limit >> 20));
	*buf = zs->scan;
	whole = whole_records(zs->scan, len, NULL);
	zs->v[i].len = whole;
	hold_cap_at_least(zs, whole);
	zs->scan_used = len;
	*n = whole;
	return ret ? ret : whole < len ? -EINVAL : 0;
}

int rsp_reader_scan_segment_plain(struct rsp_reader *r, size_t i, rsp_record_fn fn, void *ctx,
				  uint64_t *n_records)
{
	struct segs *zs = r->zs;
	struct perf_event_header h;
	uint64_t len = 0, p, n = 0;
	int ret;

	*n_records = 0;
	if (!zs || i >= zs->n)
		return -EINVAL;
	if (!zs->side) {
		/* as large as the scan's (whose size the scan settled): virtual until written */
		void *m = mmap(NULL, zs->limit, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

		if (m == MAP_FAILED)
			return -EAGAIN;
		zs->side = m;
		zs->side_cap = zs->limit;
	}
	ret = seg_inflate(r, &zs->dc_side, &zs->v[i], zs->side, zs->side_cap, &len);
	if (ret == -ENOMEM)
		return ret;
	/* broken or too large: the scan reads it (and says so) */
	if (ret)
		return -EAGAIN;
	for (p = 0; p < len; p += h.size) {
		struct rsp_record rec = { (const void *)(zs->side + p),
					  RSP_SEG_BIT | (uint64_t)i << 32 | p };
		uint64_t skip;

		/* one not plain, misaligned or cut short: the scan reads the segment */
		if ((p & 7) || !_rsp_record_span(zs->side + p, len - p, &h, &skip) ||
		    !plain_type(h.type))
			return -EAGAIN;
		n++;
		if (fn && (ret = fn(ctx, &rec)))
			return ret;
	}
	zs->v[i].len = len;
	*n_records = n;
	if (len > SEG_TRIM)
		madvise(zs->side + SEG_TRIM, len - SEG_TRIM, MADV_DONTNEED);
	return 0;
}

void _rsp_segs_scan_trim(struct rsp_reader *r)
{
	struct segs *zs = r->zs;

	/* a large segment's pages past the first few MB are given back once it is read */
	if (zs->scan_used > SEG_TRIM)
		madvise(zs->scan + SEG_TRIM, zs->scan_used - SEG_TRIM, MADV_DONTNEED);
	zs->scan_used = 0;
}

uint64_t rsp_reader_file_offset(const struct rsp_reader *r, uint64_t offset)
{
	long i = rsp_reader_segment_of(offset);

	if (i < 0)
		return _rsp_reader_image_to_file(r, offset);
	return r->zs && (size_t)i < r->zs->n ? r->zs->v[i].first : r->orig_size;
}

size_t rsp_reader_n_segments(const struct rsp_reader *r)
{
	return r->zs ? r->zs->n : 0;
}

uint64_t rsp_reader_n_inflated(const struct rsp_reader *r)
{
	return r->zs ? __atomic_load_n(&r->zs->inflated, __ATOMIC_RELAXED) : 0;
}

/* A buffer given back to the pool, or none ({0}: the caller allocates one). */
static struct segbuf pool_take(struct segs *zs)
{
	struct segbuf b = { 0 };

	pthread_mutex_lock(&zs->pool_lock);
	if (zs->n_pool)
		b = zs->pool[--zs->n_pool];
	pthread_mutex_unlock(&zs->pool_lock);
	return b;
}

int rsp_reader_segment_load(struct rsp_reader *r, size_t i, int who)
{
	struct segs *zs = r->zs;
	struct seg *z;
	struct segbuf b = { 0 };
	uint64_t len;
	int ret;

	if (!zs || i >= zs->n)
		return -EINVAL;
	z = &zs->v[i];
	if (z->buf)
		return 0;
	if (!z->len)
		return -ENODATA; /* not scanned, or nothing in it */
	b = pool_take(zs);
	if (b.cap < z->len) {
		free(b.p);
		b.cap = z->len;
		b.p = _rsp_malloc_warm(b.cap);
		if (!b.p)
			return -ENOMEM;
	}
	/* a frame broken or cut after its last whole record: the records before it */
	ret = seg_inflate(r, &zs->dc_load[who & 1], z, b.p, z->len, &len);
	if (ret != -ENOMEM)
		ret = len >= z->len ? 0 : -EINVAL;
	if (ret) {
		free(b.p);
		return ret;
	}
	z->cap = b.cap;
	__atomic_store_n(&z->buf, b.p, __ATOMIC_RELEASE);
	return 0;
}

/*
 * Loading in one pass: segment @i, not scanned yet, inflated into a buffer
 * of the walk's pool (one as large as the largest held so far; a larger one
 * if it does not fit) and held.  0; -EINVAL: broken, or not whole records
 * (let the scan read it and say so); -ENOMEM.
 */
int rsp_reader_segment_hold(struct rsp_reader *r, size_t i, int who)
{
	struct segs *zs = r->zs;
	struct seg *z;
	struct segbuf b = { 0 };
	uint64_t len = 0, want;
	bool plain = false;
	int ret;

	if (!zs || i >= zs->n)
		return -EINVAL;
	z = &zs->v[i];
	if (z->buf)
		return 0;
	b = pool_take(zs);
	/*
	 * a buffer of the pool if it holds the largest segment held so far, else
	 * one a quarter larger (rsp record's frames vary little), 64 KiB at least;
	 * a segment that does not fit: again, in one twice the size.  Not mapped
	 * ahead: the pages a buffer holds are those its segments filled (a buffer
	 * goes round the pool; mapped whole, the slack of the largest segment's
	 * size in each of the ~40 held was 10 MB of a 1.3 M record file of
	 * `bench/load.sh`)
	 */
	want = __atomic_load_n(&zs->hold_cap, __ATOMIC_RELAXED);
	if (want < SEG_HOLD_MIN)
		want = SEG_HOLD_MIN;
	if (b.cap < want)
		want += want / 4;
	for (;;) {
		if (want > zs->limit)
			want = zs->limit;
		if (b.cap < want) {
			free(b.p);
			b.cap = want;
			b.p = malloc(b.cap);
			if (!b.p)
				return -ENOMEM;
		}
		ret = seg_inflate(r, &zs->dc_load[who & 1], z, b.p, b.cap, &len);
		if (ret != -EFBIG || b.cap >= zs->limit)
			break;
		__atomic_fetch_sub(&zs->inflated, 1, __ATOMIC_RELAXED); /* not a whole one */
		want = b.cap * 2;
	}
	if (!ret && whole_records(b.p, len, &plain) < len)
		ret = -EINVAL;
	if (ret) {
		free(b.p);
		return ret == -ENOMEM ? ret : -EINVAL;
	}
	hold_cap_at_least(zs, len);
	z->len = len;
	z->plain = plain;
	z->cap = b.cap;
	__atomic_store_n(&z->buf, b.p, __ATOMIC_RELEASE);
	return 0;
}

int rsp_reader_segment_records(struct rsp_reader *r, size_t i, rsp_record_fn fn, void *ctx,
			       uint64_t *n_records)
{
	struct segs *zs = r->zs;
	const unsigned char *buf;
	struct perf_event_header h;
	uint64_t p, n = 0, skip, len;
	int ret;

	*n_records = 0;
	if (!zs || i >= zs->n || !(buf = zs->v[i].buf))
		return -EINVAL;
	len = zs->v[i].len;
	/* every record plain and in place first: none is given otherwise (known if held) */
	if (!zs->v[i].plain)
		for (p = 0; p < len; p += h.size)
			if ((p & 7) || !_rsp_record_span(buf + p, len - p, &h, &skip) || skip ||
			    !plain_type(h.type))
				return -EAGAIN;
	for (p = 0; p < len; p += ((const struct perf_event_header *)(buf + p))->size, n++) {
		struct rsp_record rec = { (const void *)(buf + p),
					  RSP_SEG_BIT | (uint64_t)i << 32 | p };

		if ((ret = fn(ctx, &rec)))
			return ret;
	}
	*n_records = n;
	return 0;
}

uint64_t rsp_reader_segment_size(const struct rsp_reader *r, size_t i)
{
	return r->zs && i < r->zs->n ? r->zs->v[i].len : 0;
}

void rsp_reader_segments_trim(struct rsp_reader *r)
{
	struct segs *zs = r->zs;

	if (!zs)
		return;
	pthread_mutex_lock(&zs->pool_lock);
	for (size_t i = 0; i < zs->n_pool; i++)
		free(zs->pool[i].p);
	zs->n_pool = 0;
	pthread_mutex_unlock(&zs->pool_lock);
}

void rsp_reader_segment_drop(struct rsp_reader *r, size_t i)
{
	struct segs *zs = r->zs;
	struct segbuf b;

	if (!zs || i >= zs->n || !zs->v[i].buf)
		return;
	b = (struct segbuf){ zs->v[i].buf, zs->v[i].cap };
	__atomic_store_n(&zs->v[i].buf, NULL, __ATOMIC_RELEASE);
	pthread_mutex_lock(&zs->pool_lock);
	if (zs->n_pool == zs->cap_pool) {
		size_t cap = zs->cap_pool ? zs->cap_pool * 2 : 16;
		struct segbuf *p = realloc(zs->pool, cap * sizeof(*p));

		if (p) {
			zs->pool = p;
			zs->cap_pool = cap;
		}
	}
	if (zs->n_pool < zs->cap_pool)
		zs->pool[zs->n_pool++] = b;
	else
		free(b.p);
	pthread_mutex_unlock(&zs->pool_lock);
}

/* A record in a segment the walk does not hold: from the cache, inflated again if need be. */
static const unsigned char *seg_cached(const struct rsp_reader *r, size_t i, uint64_t within)
{
	struct segs *zs = r->zs;
	const struct seg *z = &zs->v[i];
	const unsigned char *p = NULL;
	int slot = -1;
	uint64_t len = 0;

	pthread_mutex_lock(&zs->cache_lock);
	for (int k = 0; k < SEG_CACHE; k++)
		if (zs->cache[k].valid && zs->cache[k].seg == i)
			slot = k;
	if (slot < 0) {
		/* an empty slot, else the least recently used */
		slot = 0;
		for (int k = 1; k < SEG_CACHE && zs->cache[slot].valid; k++)
			if (!zs->cache[k].valid || zs->cache[k].used < zs->cache[slot].used)
				slot = k;
		zs->cache[slot].valid = false;
		if (zs->cache[slot].b.cap < z->len) {
			free(zs->cache[slot].b.p);
			zs->cache[slot].b.p = malloc(z->len);
			zs->cache[slot].b.cap = zs->cache[slot].b.p ? z->len : 0;
		}
		if (zs->cache[slot].b.p)
			seg_inflate(r, &zs->dc_cache, z, zs->cache[slot].b.p, z->len, &len);
		if (len < z->len)
			goto out; /* no memory */
		zs->cache[slot].valid = true;
		zs->cache[slot].seg = (uint32_t)i;
	}
	zs->cache[slot].used = ++zs->tick;
	p = zs->cache[slot].b.p + within;
out:
	pthread_mutex_unlock(&zs->cache_lock);
	return p;
}


bool _rsp_segs_starts(const struct rsp_reader *r, size_t i, uint64_t off)
{
	return r->zs && i < r->zs->n && off == r->zs->v[i].first;
}

uint64_t _rsp_segs_first(const struct rsp_reader *r, size_t i)
{
	return r->zs->v[i].first;
}

uint64_t _rsp_segs_end(const struct rsp_reader *r, size_t i)
{
	return r->zs->v[i].end;
}

void _rsp_segs_scan_done(struct rsp_reader *r)
{
	if (r->zs && r->zs->scan) {
		/* the scan's buffer goes; another scan makes it again */
		munmap(r->zs->scan, r->zs->scan_cap);
		r->zs->scan = NULL;
	}
}

void rsp_reader_prefetch(const struct rsp_reader *r, uint64_t offset)
{
	const unsigned char *p;

	if (offset & RSP_SEG_BIT) {
		size_t i = (size_t)(offset >> 32 & 0x7fffffff);

		if (!r->zs || i >= r->zs->n || (offset & 0xffffffffu) >= r->zs->v[i].len)
			return;
		p = __atomic_load_n(&r->zs->v[i].buf, __ATOMIC_ACQUIRE);
		if (!p)
			return;
		p += offset & 0xffffffffu;
	} else {
		p = _rsp_reader_at(r, offset);
	}
	__builtin_prefetch(p);
	__builtin_prefetch(p + 64);
}

const struct perf_event_header *rsp_reader_record_at(const struct rsp_reader *r, uint64_t offset)
{
	if (offset & RSP_SEG_BIT) {
		size_t i = (size_t)(offset >> 32 & 0x7fffffff);
		uint64_t within = offset & 0xffffffffu;
		const unsigned char *b;

		if (!r->zs || i >= r->zs->n || within >= r->zs->v[i].len)
			return NULL;
		b = __atomic_load_n(&r->zs->v[i].buf, __ATOMIC_ACQUIRE);
		return (const void *)(b ? b + within : seg_cached(r, i, within));
	}
	return (const void *)_rsp_reader_at(r, offset);
}
