/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The reader: a perf.data file mapped read-only (its pages mapped ahead of
 * the scan by a thread), or decompressed if compressed whole (decompress.c),
 * its layout read (layout.c), a compressed stream
 * inflated (inflate.c) or read a frame at a time (segments.c); then one scan
 * of the record stream, absorbing the records that define it (attrs, event
 * names, tracing data, build ids, the thread map) and handing every record
 * to the caller.  A cut file yields everything up to the cut and a warning.
 */
#include "read/reader-private.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int rsp_reader_open_mem(const void *buf, size_t len, struct rsp_reader **out, char *err,
			size_t errlen)
{
	struct rsp_reader *r = calloc(1, sizeof(*r));
	int ret;

	*out = NULL;
	if (!r)
		return -ENOMEM;
	r->buf = buf;
	r->size = len;
	ret = _rsp_reader_decompress(r, err, errlen);
	if (ret) {
		rsp_reader_free(r);
		return ret;
	}
	ret = _rsp_reader_open_layout(r, err, errlen);
	if (!ret)
		ret = _rsp_segs_probe(r);
	if (!ret && !r->zs)
		ret = _rsp_reader_inflate(r, err, errlen);
	if (ret) {
		ret = _rsp_reader_decompressed_error(r, ret, err, errlen);
		rsp_reader_free(r);
		return ret;
	}
	*out = r;
	return 0;
}

/*
 * Mapping a large file's pages (the page-cache lookups and page-table work
 * of the faults) costs the scan a quarter of its time: a thread does it
 * ahead of the scan on another CPU (MADV_POPULATE_READ, Linux 5.14), a step
 * at a time so that it can stop.
 */
#define PREFAULT_MIN (64u << 20)
#define PREFAULT_STEP (4u << 20)

struct prefault {
	const unsigned char *p;
	size_t n;
	int stop;
	pthread_t tid;
};

static void *prefault_thread(void *arg)
{
	struct prefault *pf = arg;

	for (size_t off = 0; off < pf->n && !__atomic_load_n(&pf->stop, __ATOMIC_RELAXED);
	     off += PREFAULT_STEP) {
		size_t n = pf->n - off < PREFAULT_STEP ? pf->n - off : PREFAULT_STEP;

		if (madvise((void *)(pf->p + off), n, MADV_POPULATE_READ))
			break; /* an older kernel: the scan's faults do it */
		_rsp_touch_pages(pf->p + off, n); /* see mem.h */
	}
	return NULL;
}

static struct prefault *prefault_start(const void *p, size_t n)
{
	struct prefault *pf;

	if (n < PREFAULT_MIN || _rsp_usable_cpus() < 2)
		return NULL;
	pf = calloc(1, sizeof(*pf));
	if (!pf)
		return NULL;
	pf->p = p;
	pf->n = n;
	if (pthread_create(&pf->tid, NULL, prefault_thread, pf)) {
		free(pf);
		return NULL;
	}
	return pf;
}

static void prefault_stop(struct prefault *pf)
{
	if (!pf)
		return;
	__atomic_store_n(&pf->stop, 1, __ATOMIC_RELAXED);
	pthread_join(pf->tid, NULL);
	free(pf);
}

int rsp_reader_open(const char *path, struct rsp_reader **out, char *err, size_t errlen)
{
	struct prefault *pf;
	struct rsp_reader *r;
	struct stat st;
	void *map;
	int fd, ret;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		if (ret == -ENOENT)
			return rsp_errf(err, errlen, ret,
			                "%s: no such file (record one with `rsp record`)", path);
		return rsp_errf(err, errlen, ret, "cannot open %s: %s", path, strerror(-ret));
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return rsp_errf(err, errlen, -EINVAL, "%s is not a regular file", path);
	}
	if (st.st_size == 0) {
		close(fd);
		return rsp_errf(err, errlen, -EINVAL, "%s is empty", path);
	}
	map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return rsp_errf(err, errlen, -errno, "cannot map %s: %s", path, strerror(errno));
	madvise(map, st.st_size, MADV_SEQUENTIAL);
	pf = prefault_start(map, st.st_size);
	ret = rsp_reader_open_mem(map, st.st_size, &r, err, errlen);
	if (ret) {
		prefault_stop(pf);
		munmap(map, st.st_size);
		return ret;
	}
	if (r->info.packed) {
		/* decompressed whole: the reader holds the image, not the file */
		prefault_stop(pf);
		munmap(map, st.st_size);
		*out = r;
		return 0;
	}
	r->prefault = pf;
	if (r->orig_buf)
		r->orig_mapped = true; /* the image replaced the file's mapping */
	else
		r->mapped = true;
	*out = r;
	return 0;
}

void rsp_reader_free(struct rsp_reader *r)
{
	struct rsp_reader_info *in;

	if (!r)
		return;
	prefault_stop(r->prefault);
	_rsp_segs_free(r->zs);
	free(r->tracing_data_copy);
	free(r->unpack_copy);
	in = &r->info;
	for (size_t i = 0; i < r->n_attrs; i++) {
		free(r->attrs[i].ids);
		free(r->attrs[i].name);
	}
	free(r->attrs);
	free(r->id_keys);
	free(r->id_vals);
	free(in->hostname);
	free(in->osrelease);
	free(in->version);
	free(in->arch);
	free(in->cpudesc);
	for (size_t i = 0; i < in->n_cmdline; i++)
		free(in->cmdline[i]);
	free(in->cmdline);
	for (size_t i = 0; i < in->n_build_ids; i++)
		free(in->build_ids[i].path);
	free(in->build_ids);
	for (size_t i = 0; i < in->n_cmdlines; i++)
		free(in->cmdlines[i].text);
	free(in->cmdlines);
	free(in->targets);
	free(in->target_comms);
	vec_free(&r->comp_at);
	vec_free(&r->plain_at);
	for (size_t i = 0; i < r->tails.n; i++)
		free(r->tails.v[i].copy);
	vec_free(&r->tails);
	if (r->mapped)
		munmap((void *)r->buf, r->size);
	if (r->orig_mapped)
		munmap((void *)r->orig_buf, r->orig_size);
	free(r);
}

/* The record at @off is misaligned: copy the rest of the stream aligned. */
static int realign(struct rsp_reader *r, uint64_t off)
{
	struct realigned t = { off, malloc(r->data_end - off + 8) };

	if (!t.copy)
		return -ENOMEM;
	memcpy(t.copy, r->buf + off, r->data_end - off);
	if (!vec_push(&r->tails, t)) {
		free(t.copy);
		return -ENOMEM;
	}
	return 0;
}

/* ---- the record stream --------------------------------------------------------------- */

static void absorb_thread_map(struct rsp_reader *r, const struct perf_event_header *h)
{
	const struct rsp_pf_thread_map *tm = (const void *)h;
	uint64_t nr;

	if (h->size < sizeof(*tm))
		return;
	nr = tm->nr;
	if (nr > (h->size - sizeof(*tm)) / sizeof(tm->entries[0]))
		return;
	free(r->info.targets);
	free(r->info.target_comms);
	r->info.targets = calloc(nr ? nr : 1, sizeof(int));
	r->info.target_comms = calloc(nr ? nr : 1, 16);
	r->info.n_targets = 0;
	if (!r->info.targets || !r->info.target_comms)
		return;
	for (uint64_t i = 0; i < nr; i++) {
		if ((int64_t)tm->entries[i].pid <= 0)
			continue; /* -1: perf record -a's "any thread" */
		r->info.targets[r->info.n_targets] = (int)tm->entries[i].pid;
		memcpy(r->info.target_comms[r->info.n_targets], tm->entries[i].comm, 15);
		r->info.target_comms[r->info.n_targets][15] = '\0';
		r->info.n_targets++;
	}
}

static void absorb_event_update(struct rsp_reader *r, const struct perf_event_header *h)
{
	const struct rsp_pf_event_update *u = (const void *)h;
	struct rsp_rattr *ra;

	if (h->size <= sizeof(*u) || u->type != RSP_PF_EVENT_UPDATE_NAME)
		return;
	ra = _rsp_reader_attr_by_id(r, u->id);
	if (!ra)
		return;
	free(ra->name);
	ra->name = strndup(u->data, h->size - sizeof(*u));
}

/* What a record does to the scan: go on, the stream is cut there, or stop (error, @fn's word). */
/*
 * A tracing-data record's payload at @off: the formats and kallsyms.  The
 * first one found is kept (the loader's set-up thread may be reading it while
 * the scan goes on); one found in a segment is copied, since the segment's
 * buffer is reused for the next frame.
 */
/* A command line (rsp_cmdline_parse()): kept, or counted damaged. */
static void absorb_cmdline(struct rsp_reader *r, const struct perf_event_header *h)
{
	struct rsp_reader_info *in = &r->info;
	struct rsp_cmdline_entry e, *v;
	int ret = rsp_cmdline_parse(h, h->size, &e);

	if (ret == -EINVAL)
		in->cmdlines_damaged++;
	if (ret != 1)
		return;
	v = realloc(in->cmdlines, (in->n_cmdlines + 1) * sizeof(*v));
	if (!v) {
		free(e.text);
		return;
	}
	v[in->n_cmdlines++] = e;
	in->cmdlines = v;
}

/*
 * One record at @off (in the file, or in a segment), @avail bytes from its
 * start to the end of what holds it: absorbed if it defines the stream, then
 * given to @fn.  SCAN_ON and *@next, the bytes it takes (a payload that
 * follows it included); SCAN_CUT; SCAN_STOP and *@ret.
 */
enum { SCAN_ON, SCAN_CUT, SCAN_STOP };

/* Before the scan takes in a record that changes how records read: tell the hooks. */
static void defining(struct rsp_reader *r)
{
	if (r->hooks && r->hooks->defining)
		r->hooks->defining(r->hooks_ctx);
}

/*
 * One record at @off (in the file, or in a segment), @avail bytes from its
 * start to the end of what holds it: absorbed if it defines the stream, then
 * given to @fn.  SCAN_ON and *@next, the bytes it takes (a payload that
 * follows it included); SCAN_CUT; SCAN_STOP and *@ret.
 */
static int scan_one(struct rsp_reader *r, const struct perf_event_header *h, uint64_t off,
		    uint64_t avail, rsp_record_fn fn, void *ctx, uint64_t *next, int *ret,
		    char *err, size_t errlen)
{
	uint64_t skip = 0;

	if (h->size < sizeof(*h)) {
		if (r->info.n_records == 0) {
			*ret = rsp_errf(
			    err, errlen, -EINVAL,
			    "not a valid perf.data stream: bad first record at offset %llu",
			    (unsigned long long)off);
			return SCAN_STOP;
		}
		return SCAN_CUT; /* zeros after the last record: a file cut mid-write */
	}
	if (h->size > avail)
		return SCAN_CUT;
	if (r->info.n_records == 0 && r->info.pipe_mode &&
	    (h->type == 0 || h->type >= RSP_PF_RECORD_HEADER_MAX)) {
		*ret = rsp_errf(err, errlen, -EINVAL,
		                "not a valid perf.data stream: first record has type %u", h->type);
		return SCAN_STOP;
	}
	if (r->tail_read && !(off & RSP_SEG_BIT) && off >= r->tail_from) {
		/* build ids read ahead (rsp_reader_read_tail()): not again */
		if (h->type == RSP_PF_RECORD_HEADER_BUILD_ID)
			goto absorbed;
	} else if (!r->scanned && _rsp_reader_defining_type(h->type)) {
		defining(r);
	}
	switch (h->type) {
	case RSP_PF_RECORD_HEADER_ATTR:
		if (!r->scanned) {
			size_t body = h->size - sizeof(*h);
			const unsigned char *a = (const unsigned char *)(h + 1);
			uint32_t asize = 0;

			if (body >= PERF_ATTR_SIZE_VER0)
				memcpy(&asize, a + offsetof(struct perf_event_attr, size), 4);
			if (asize < PERF_ATTR_SIZE_VER0 || asize > body || (body - asize) % 8) {
				if (!r->n_attrs) {
					*ret = rsp_errf(err, errlen, -EINVAL,
					                "bad event attribute record at offset %llu",
					                (unsigned long long)off);
					return SCAN_STOP;
				}
				break;
			}
			*ret = _rsp_reader_add_attr(r, a, asize, a + asize, (body - asize) / 8, err,
			                            errlen);
			if (*ret)
				return SCAN_STOP;
		}
		break;
	case RSP_PF_RECORD_EVENT_UPDATE:
		if (!r->scanned)
			absorb_event_update(r, h);
		break;
	case RSP_PF_RECORD_HEADER_FEATURE:
		if (!r->scanned && h->size >= sizeof(struct rsp_pf_feature_rec)) {
			const struct rsp_pf_feature_rec *f = (const void *)h;

			*ret = _rsp_reader_parse_feature(r, f->feat_id, f->data,
			                                 h->size - sizeof(*f), off, err, errlen);
			if (*ret)
				return SCAN_STOP;
		}
		break;
	case RSP_PF_RECORD_HEADER_TRACING_DATA: {
		const struct rsp_pf_tracing_data *td = (const void *)h;

		if (h->size < 12)
			break;
		skip = td->size;
		if (skip > avail - h->size)
			return SCAN_CUT;
		if (!r->scanned) {
			if ((*ret = _rsp_reader_keep_tracing_data(
			         r, off, (const unsigned char *)h + h->size, skip, err, errlen)))
				return SCAN_STOP;
		}
		break;
	}
	case RSP_PF_RECORD_AUXTRACE: {
		uint64_t sz;

		if (h->size < 16)
			break;
		memcpy(&sz, (const char *)h + 8, 8);
		if (sz > avail - h->size)
			return SCAN_CUT;
		skip = sz;
		break;
	}
	case RSP_PF_RECORD_HEADER_BUILD_ID:
		if (!r->scanned)
			_rsp_reader_parse_build_ids(r, (const unsigned char *)h,
			                            (const unsigned char *)h + h->size);
		break;
	case RSP_PF_RECORD_THREAD_MAP:
		if (!r->scanned)
			absorb_thread_map(r, h);
		break;
	case RSP_PF_RECORD_HEADER_EVENT_TYPE:
		if (!r->scanned)
			absorb_cmdline(r, h);
		break;
	case RSP_PF_RECORD_COMPRESSED:
		/* left only after a break in the stream, or undeclared */
		if (!r->inflate_cut)
			r->info.compressed_skipped++;
		break;
	default:
		break;
	}
absorbed:
	r->info.n_records++;
	if (fn) {
		struct rsp_record rec = { h, off };

		*ret = fn(ctx, &rec);
		if (*ret)
			return SCAN_STOP;
	}
	*next = h->size + skip;
	return SCAN_ON;
}

/* The records of segment @i, inflated into the scan's buffer. */
static int scan_segment(struct rsp_reader *r, size_t i, rsp_record_fn fn, void *ctx, int *ret,
			char *err, size_t errlen)
{
	const unsigned char *buf;
	uint64_t p = 0, len = 0, next;
	int e = _rsp_segs_scan_inflate(r, i, &buf, &len, err, errlen), st = SCAN_ON;

	if (e == -ENOMEM || e == -EFBIG) {
		*ret = e;
		return SCAN_STOP;
	}
	/* a broken frame (-EINVAL): its records up to the break are read, then the scan stops */
	while (p < len) {
		const struct perf_event_header *h = (const void *)(buf + p);

		if (p & 7) {
			/* records are 8-byte multiples; one off alignment is no record */
			e = -EINVAL;
			break;
		}
		st = scan_one(r, h, RSP_SEG_BIT | (uint64_t)i << 32 | p, len - p, fn, ctx, &next,
		              ret, err, errlen);
		if (st == SCAN_STOP)
			break;
		if (st == SCAN_CUT) {
			e = -EINVAL;
			break;
		}
		p += next;
	}
	_rsp_segs_scan_trim(r);
	if (st == SCAN_STOP)
		return st;
	if (e) {
		r->inflate_cut = true;
		r->inflate_cut_at = _rsp_segs_first(r, i);
		return SCAN_CUT;
	}
	return SCAN_ON;
}

int rsp_reader_read_tail(struct rsp_reader *r)
{
	struct perf_event_header h;
	uint64_t from, off, skip;
	size_t n = rsp_reader_n_segments(r);

	if (r->scanned || r->tail_read)
		return 0; /* the scan read it, or this did */
	if (!n)
		return -EAGAIN;
	from = _rsp_segs_end(r, n - 1);
	for (off = from; off < r->data_end; off += h.size + skip)
		if (!_rsp_reader_top_record(r, off, &h, &skip) || h.size < sizeof(h) ||
		    (_rsp_reader_defining_type(h.type) && h.type != RSP_PF_RECORD_HEADER_BUILD_ID))
			return -EAGAIN; /* cut, or another record that defines the stream */
	for (off = from; off < r->data_end; off += h.size + skip) {
		_rsp_reader_top_record(r, off, &h, &skip);
		if (h.type == RSP_PF_RECORD_HEADER_BUILD_ID)
			_rsp_reader_parse_build_ids(r, r->buf + off, r->buf + off + h.size);
	}
	r->tail_from = from;
	r->tail_read = true;
	return 0;
}

int rsp_reader_scan(struct rsp_reader *r, rsp_record_fn fn, void *ctx, char *err, size_t errlen)
{
	return rsp_reader_scan_shared(r, fn, NULL, ctx, err, errlen);
}

static int scan(struct rsp_reader *r, rsp_record_fn fn, void *ctx, char *err, size_t errlen)
{
	uint64_t off = r->data_start, next;
	size_t si = 0;
	int ret = 0, st;

	r->info.n_records = 0;
	r->info.truncated = false;
	while (off < r->data_end) {
		const struct perf_event_header *h;

		if (_rsp_segs_starts(r, si, off)) {
			uint64_t given = 0;
			int k = r->hooks && r->hooks->segment
					? r->hooks->segment(r->hooks_ctx, si, &given)
					: 0;

			if (k < 0)
				return k;
			if (k > 0) {
				r->info.n_records += given;
				off = _rsp_segs_end(r, si++);
				continue;
			}
			st = scan_segment(r, si, fn, ctx, &ret, err, errlen);
			if (st == SCAN_STOP)
				return ret;
			if (st == SCAN_CUT)
				break;
			off = _rsp_segs_end(r, si++);
			continue;
		}
		if (r->data_end - off < sizeof(*h)) {
			r->info.truncated = true;
			r->info.truncated_at = off;
			break;
		}
		h = (const void *)_rsp_reader_at(r, off);
		if (((uintptr_t)h & 7) && !r->scanned) {
			defining(r); /* the reader's tails change */
			if (realign(r, off))
				return rsp_errf(err, errlen, -ENOMEM,
				                "out of memory reading the trace");
			h = (const void *)_rsp_reader_at(r, off);
		}
		st = scan_one(r, h, off, r->data_end - off, fn, ctx, &next, &ret, err, errlen);
		if (st == SCAN_STOP)
			return ret;
		if (st == SCAN_CUT) {
			r->info.truncated = true;
			r->info.truncated_at = off;
			break;
		}
		off += next;
	}
	if (r->info.truncated)
		r->info.truncated_at = _rsp_reader_image_to_file(r, r->info.truncated_at);
	if (r->inflate_cut && !r->info.truncated) {
		r->info.truncated = true;
		r->info.truncated_at = r->inflate_cut_at;
	}
	if (r->unpack_cut) {
		/* the compressed stream broke off: that is the cut to tell */
		r->info.truncated = true;
		r->info.truncated_at = r->unpack_cut_at;
	}
	_rsp_segs_scan_done(r);
	r->scanned = true;
	return 0;
}

int rsp_reader_scan_shared(struct rsp_reader *r, rsp_record_fn fn, const struct rsp_scan_hooks *hk,
			   void *ctx, char *err, size_t errlen)
{
	int ret;

	r->hooks = hk;
	r->hooks_ctx = ctx;
	ret = scan(r, fn, ctx, err, errlen);
	r->hooks = NULL;
	r->hooks_ctx = NULL;
	return ret;
}

const struct rsp_reader_info *rsp_reader_info(const struct rsp_reader *r)
{
	return &r->info;
}

size_t rsp_reader_n_attrs(const struct rsp_reader *r)
{
	return r->n_attrs;
}

const struct rsp_rattr *rsp_reader_attr(const struct rsp_reader *r, size_t i)
{
	return i < r->n_attrs ? &r->attrs[i] : NULL;
}

