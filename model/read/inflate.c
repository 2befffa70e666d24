/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A compressed stream of one zstd frame (perf record -z) inflated whole at
 * open into one anonymous mapping (image.c);
 * where each top-level record landed in the image is kept, so that a cut is
 * told at a byte of the file.
 */
#include "read/reader-private.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
/* ZSTD_d_stableOutBuffer is still "experimental" in libzstd 1.5 */
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>
#include <zstd_errors.h>

/* ---- compressed streams ------------------------------------------------------------ */

/*
 * The inflated image: one anonymous mapping reserved at its limit (virtual
 * only, MAP_NORESERVE; pages exist once written).  zstd decompresses straight
 * into it (ZSTD_d_stableOutBuffer: no copy through a window buffer or a
 * file), so the decompressed stream must stay contiguous while it is
 * written: a record of the original that is not compressed but lies between
 * compressed ones (perf -z writes FINISHED_ROUND so) is noted and moved into
 * place at the end.
 */
struct insertion {
	uint64_t at; /* where it goes in the stream: a record boundary */
	const unsigned char *src;
	size_t n;
};

struct inflater {
	const unsigned char *orig; /* the file's bytes, for the positions below */
	imgpos_vec comp_at, plain_at; /* before the insertions are placed */
	size_t n_appended; /* plain_at's first, put before the stream began */
	unsigned char *img;
	uint64_t len; /* bytes in the image */
	uint64_t whole; /* the image's bytes up to here are whole records */
	uint64_t limit; /* the mapping's size */
	uint64_t extra; /* bytes of the insertions */
	bool streaming; /* zstd has written: the image may only grow at its end */
	struct insertion *ins;
	size_t nins, cap;
	int err;
};

/*
 * The record at @p, @avail bytes from its start to the end of what holds it:
 * its header and *@skip, the payload that follows it outside the record
 * (TRACING_DATA's, AUXTRACE's).  False at the end, or where it is cut.
 */
bool _rsp_record_span(const unsigned char *p, uint64_t avail, struct perf_event_header *h,
			uint64_t *skip)
{
	uint32_t sz;

	*skip = 0;
	if (avail < sizeof(*h))
		return false;
	memcpy(h, p, sizeof(*h));
	if (h->size < sizeof(*h) || h->size > avail)
		return false;
	if (h->type == RSP_PF_RECORD_HEADER_TRACING_DATA && h->size >= 12) {
		memcpy(&sz, p + 8, 4);
		*skip = sz;
	} else if (h->type == RSP_PF_RECORD_AUXTRACE && h->size >= 16) {
		memcpy(skip, p + 8, 8); /* as the scan reads it */
	}
	return *skip <= avail - h->size;
}

/* Advance over the whole records (and their payloads) the image holds past @whole. */
static int settle(struct inflater *f)
{
	while (f->len - f->whole >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;
		uint64_t skip;

		memcpy(&h, f->img + f->whole, sizeof(h));
		if (h.size < sizeof(h))
			return -EINVAL;
		if (!_rsp_record_span(f->img + f->whole, f->len - f->whole, &h, &skip))
			break;
		f->whole += h.size + skip;
	}
	return 0;
}

static void append(struct inflater *f, const void *p, size_t n)
{
	if (n > f->limit - f->len - f->extra) {
		f->err = -EFBIG;
		return;
	}
	memcpy(f->img + f->len, p, n);
	f->len += n;
	f->whole = f->len;
}

/*
 * A record of the original that is not compressed: it goes after the whole
 * records, before the start of one the stream has not finished.
 */
static void put_image(struct inflater *f, const void *p, size_t n)
{
	struct imgpos at = { f->streaming ? f->whole : f->len,
			     (uint64_t)((const unsigned char *)p - f->orig), n };

	if (f->err)
		return;
	if (!vec_push(&f->plain_at, at)) {
		f->err = -ENOMEM;
		return;
	}
	if (!f->streaming) {
		f->n_appended++;
		append(f, p, n);
		return;
	}
	if (n > f->limit - f->len - f->extra) {
		f->err = -EFBIG;
		return;
	}
	if (f->nins == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 64;
		struct insertion *q = realloc(f->ins, cap * sizeof(*q));

		if (!q) {
			f->err = -ENOMEM;
			return;
		}
		f->ins = q;
		f->cap = cap;
	}
	f->ins[f->nins++] = (struct insertion){ f->whole, p, n };
	f->extra += n;
}

/* Move the noted records into place, from the last, each move once. */
static void place_insertions(struct inflater *f)
{
	uint64_t end = f->len, shift = f->extra;

	for (size_t i = f->nins; i-- > 0;) {
		const struct insertion *in = &f->ins[i];

		memmove(f->img + in->at + shift, f->img + in->at, end - in->at);
		shift -= in->n;
		memcpy(f->img + in->at + shift, in->src, in->n);
		end = in->at;
	}
	f->len += f->extra;
	f->whole += f->extra;
	f->extra = 0;
	f->nins = 0;
}

static int decompress_record(struct inflater *f, ZSTD_DStream *ds, const unsigned char *src,
			     size_t n)
{
	ZSTD_inBuffer in = { src, n, 0 };

	f->streaming = true;
	while (in.pos < in.size) {
		/* the same buffer on every call, as ZSTD_d_stableOutBuffer requires */
		ZSTD_outBuffer out = { f->img, f->limit, f->len };
		size_t was = in.pos, ret;

		ret = ZSTD_decompressStream(ds, &out, &in);

		if (ZSTD_isError(ret))
			return ZSTD_getErrorCode(ret) == ZSTD_error_dstSize_tooSmall ? -EFBIG :
										      -EINVAL;
		if (out.pos == f->len && in.pos == was)
			return out.pos == out.size ? -EFBIG : -EINVAL; /* no progress */
		f->len = out.pos;
		if (settle(f))
			return -EINVAL;
	}
	return 0;
}

/* The top-level record at @off of the original stream (the scan reports a cut). */
bool _rsp_reader_top_record(const struct rsp_reader *r, uint64_t off, struct perf_event_header *h,
		       uint64_t *skip)
{
	return off <= r->data_end && _rsp_record_span(r->buf + off, r->data_end - off, h, skip);
}

/*
 * Is the stream compressed?  perf record -z and rsp record declare it with
 * HEADER_COMPRESSED: a feature section in file mode, a feature record among
 * the header records before the first event in pipe mode.
 */
bool _rsp_reader_declares_compression(const struct rsp_reader *r)
{
	struct perf_event_header h;
	uint64_t off = r->data_start, skip;
	bool any = r->comp_declared;

	while (!any && _rsp_reader_top_record(r, off, &h, &skip) && h.type >= 64) {
		if (h.type == RSP_PF_RECORD_COMPRESSED)
			any = true;
		if (h.type == RSP_PF_RECORD_HEADER_FEATURE && h.size >= 16) {
			uint64_t feat;

			memcpy(&feat, r->buf + off + 8, 8);
			any = feat == RSP_PF_FEAT_COMPRESSED;
		}
		off += h.size + skip;
	}
	return any;
}

/*
 * The positions noted while inflating, moved as place_insertions() moves the
 * bytes: a byte at x is shifted by every record inserted at or before x; the
 * i-th inserted record by those before it.  Call before place_insertions().
 */
static void place_positions(struct inflater *f)
{
	size_t k = 0;
	uint64_t shift = 0;

	/* after those appended before the stream began, one per insertion, in order */
	for (size_t j = 0; j < f->nins && f->n_appended + j < f->plain_at.n; j++) {
		f->plain_at.v[f->n_appended + j].img = f->ins[j].at + shift;
		shift += f->ins[j].n;
	}
	shift = 0;
	for (size_t i = 0; i < f->comp_at.n; i++) {
		struct imgpos *c = &f->comp_at.v[i];

		while (k < f->nins && f->ins[k].at <= c->img)
			shift += f->ins[k++].n;
		c->img += shift;
	}
}

/* The last of @v (in image order) placed at or before @off, or NULL. */
static const struct imgpos *imgpos_at(const imgpos_vec *v, uint64_t off)
{
	size_t lo = 0, hi = v->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v->v[mid].img <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &v->v[lo - 1] : NULL;
}

/* Where the byte at @off of an inflated image came from in the file. */
uint64_t _rsp_reader_image_to_file(const struct rsp_reader *r, uint64_t off)
{
	const struct imgpos *p = imgpos_at(&r->plain_at, off), *c = imgpos_at(&r->comp_at, off);

	if (!c)
		return off; /* before the stream: the image is the file's bytes */
	if (p && off < p->img + p->n)
		return p->file + (off - p->img); /* a record not compressed: exactly */
	return c->file; /* else the compressed record whose output holds it */
}

/*
 * perf record -z (and rsp record by default) writes PERF_RECORD_COMPRESSED
 * records: one zstd stream cut into records whose content is the original
 * records, one of which may straddle two compressed records.  The stream is
 * inflated once at open into an image where each compressed record is
 * replaced by the records it holds; the rest of the reader reads the image.
 * The image is a memfd: like an uncompressed file's page cache, not the
 * model's heap.  A broken stream is read up to the break.
 */
int _rsp_reader_inflate(struct rsp_reader *r, char *err, size_t errlen)
{
	struct inflater f = { .orig = r->buf };
	struct rsp_warmer w = { 0 };
	struct perf_event_header h;
	ZSTD_DStream *ds = NULL;
	uint64_t off = r->data_start, skip, whole_at = 0;
	int ret = 0;
	long psize = sysconf(_SC_PAGESIZE);

	if (!_rsp_reader_declares_compression(r))
		return 0;
	f.img = _rsp_image_reserve(&f.limit); /* this function's until the reader has it */
	ds = ZSTD_createDStream();
	if (!f.img || !ds) {
		ret = rsp_errf(err, errlen, -ENOMEM, "cannot inflate the compressed trace: %s",
		               !f.img ? "no room for it in this process (memory, or a ulimit -v)"
		                      : "out of memory");
		goto out;
	}
	/*
	 * Not MADV_HUGEPAGE: 512 times fewer faults, but on a VM whose freed
	 * memory goes back to the host (free page reporting works on blocks of
	 * huge-page size) every huge page is faulted in by the host again.  On
	 * this project's 2-CPU VM, inflating 520 MB took 1.2 s that way against
	 * 0.2-0.3 s on 4 KiB pages (0.06 s only right after a run freed them).
	 */
	/* straight into the image; without it (an older libzstd) through its window */
	(void)ZSTD_DCtx_setParameter(ds, ZSTD_d_stableOutBuffer, 1);
	w.img = f.img;
	w.limit = f.limit;
	put_image(&f, r->buf, r->data_start);
	off = r->data_start;
	while (!f.err && _rsp_reader_top_record(r, off, &h, &skip)) {
		if (h.type == RSP_PF_RECORD_COMPRESSED) {
			uint64_t whole = f.whole;
			struct imgpos at = { f.len, off, 0 };
			int e;

			if (!vec_push(&f.comp_at, at)) {
				f.err = -ENOMEM;
				break;
			}
			e = decompress_record(&f, ds, r->buf + off + sizeof(h), h.size - sizeof(h));

			if (f.whole != whole || !whole_at)
				whole_at = off; /* the stream's records are whole up to in here */

			if (e == -ENOMEM || e == -EFBIG || (f.err && f.err != -EINVAL)) {
				ret = rsp_errf(
				    err, errlen, e == -EFBIG || f.err == -EFBIG ? -EFBIG : -ENOMEM,
				    "the compressed trace inflates to more than %llu MB, more "
				    "than this process can hold (memory, or a ulimit -v)",
				    (unsigned long long)(f.limit >> 20));
				goto out;
			}
			if (e) {
				r->inflate_cut = true;
				r->inflate_cut_at = off;
				break;
			}
		} else {
			put_image(&f, r->buf + off, h.size + skip);
		}
		_rsp_warm_follow(&w, f.len);
		off += h.size + skip;
	}
	_rsp_warm_stop(&w);
	if (f.len > f.whole && !r->inflate_cut) {
		/* a record the stream did not finish (cut, or a size past its end) is not one */
		r->inflate_cut = true;
		r->inflate_cut_at = whole_at;
	}
	f.len = f.whole;
	if (off < r->data_end && !r->inflate_cut) {
		/* the scan would report this cut in the original (a record, or a
		 * header, cut short): keep its bytes */
		put_image(&f, r->buf + off, r->data_end - off);
	}
	if (!f.err && f.extra > f.limit - f.len)
		f.err = -EFBIG;
	if (!f.err) {
		place_positions(&f);
		place_insertions(&f);
	}
	if (f.err) {
		ret = rsp_errf(err, errlen, f.err, "cannot inflate the compressed trace: %s",
		               f.err == -EFBIG
		                   ? "more than this process can hold (memory, or a ulimit -v)"
		                   : strerror(-f.err));
		goto out;
	}
	if (!f.len) {
		ret = rsp_errf(err, errlen, -EINVAL, "empty compressed trace");
		goto out;
	}
	{
		/* give back the reservation past the image */
		uint64_t keep = (f.len + (uint64_t)psize - 1) / (uint64_t)psize * (uint64_t)psize;

		if (keep < f.limit)
			munmap(f.img + keep, f.limit - keep);
		mprotect(f.img, f.len, PROT_READ);
	}
	r->orig_buf = r->buf;
	r->orig_size = r->size;
	r->orig_mapped = r->mapped;
	r->buf = f.img;
	f.img = NULL; /* the reader's now */
	r->comp_at = f.comp_at;
	r->plain_at = f.plain_at;
	memset(&f.comp_at, 0, sizeof(f.comp_at));
	memset(&f.plain_at, 0, sizeof(f.plain_at));
	r->size = f.len;
	r->mapped = true;
	r->data_end = f.len;
	r->info.compressed = true;
out:
	_rsp_warm_stop(&w);
	ZSTD_freeDStream(ds);
	free(f.ins);
	vec_free(&f.comp_at);
	vec_free(&f.plain_at);
	if (f.img)
		munmap(f.img, f.limit);
	return ret;
}

