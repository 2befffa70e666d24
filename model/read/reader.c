/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "read/reader.h"

#include "rsp-perf-format.h"
#include "base/vec.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
/* ZSTD_d_stableOutBuffer is still "experimental" in libzstd 1.5 */
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>
#include <zstd_errors.h>

#define MAX_ATTRS 4096
#define MAX_IDS_PER_ATTR (1u << 20)

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
	bool comp_declared; /* HEADER_COMPRESSED in the file-mode features */
	uint64_t inflate_cut_at; /* its offset in the original */
	VEC(struct realigned) tails;
	/* an inflated image's bytes back to the file's (inflate()): in image order */
	imgpos_vec comp_at; /* where each compressed record's output starts */
	imgpos_vec plain_at; /* where each record not compressed was placed */
	struct prefault *prefault; /* the file's pages, mapped ahead of the scan */
	uint64_t data_start, data_end;
	bool scanned;

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

static int errf(char *err, size_t errlen, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int errf(char *err, size_t errlen, int ret, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return ret;
}

/* ---- ids and attrs ------------------------------------------------------------ */

static uint64_t id_hash(uint64_t id)
{
	return id * 0x9e3779b97f4a7c15ull;
}

static int id_put(struct rsp_reader *r, uint64_t id, uint32_t attr)
{
	size_t m;

	if ((r->id_n + 1) * 2 > r->id_cap) {
		size_t cap = r->id_cap ? r->id_cap * 2 : 256;
		uint64_t *keys = calloc(cap, sizeof(*keys));
		uint32_t *vals = calloc(cap, sizeof(*vals));

		if (!keys || !vals) {
			free(keys);
			free(vals);
			return -ENOMEM;
		}
		for (size_t i = 0; i < r->id_cap; i++) {
			size_t s;

			if (!r->id_vals[i])
				continue;
			for (s = id_hash(r->id_keys[i]) & (cap - 1); vals[s]; s = (s + 1) & (cap - 1))
				;
			keys[s] = r->id_keys[i];
			vals[s] = r->id_vals[i];
		}
		free(r->id_keys);
		free(r->id_vals);
		r->id_keys = keys;
		r->id_vals = vals;
		r->id_cap = cap;
	}
	m = r->id_cap - 1;
	for (size_t s = id_hash(id) & m;; s = (s + 1) & m) {
		if (!r->id_vals[s]) {
			r->id_keys[s] = id;
			r->id_vals[s] = attr + 1;
			r->id_n++;
			return 0;
		}
		if (r->id_keys[s] == id) {
			r->id_vals[s] = attr + 1; /* a later attr redefines the id */
			return 0;
		}
	}
}

static const struct rsp_rattr *id_get(const struct rsp_reader *r, uint64_t id)
{
	size_t m;

	if (!r->id_cap)
		return NULL;
	m = r->id_cap - 1;
	for (size_t s = id_hash(id) & m;; s = (s + 1) & m) {
		if (!r->id_vals[s])
			return NULL;
		if (r->id_keys[s] == id)
			return &r->attrs[r->id_vals[s] - 1];
	}
}

static size_t trailer_size(uint64_t st)
{
	size_t n = 0;

	n += !!(st & PERF_SAMPLE_TID);
	n += !!(st & PERF_SAMPLE_TIME);
	n += !!(st & PERF_SAMPLE_ID);
	n += !!(st & PERF_SAMPLE_STREAM_ID);
	n += !!(st & PERF_SAMPLE_CPU);
	n += !!(st & PERF_SAMPLE_IDENTIFIER);
	return n * 8;
}

static int calc_id_pos(uint64_t st)
{
	int idx = 0;

	if (st & PERF_SAMPLE_IDENTIFIER)
		return 0;
	if (!(st & PERF_SAMPLE_ID))
		return -1;
	idx += !!(st & PERF_SAMPLE_IP);
	idx += !!(st & PERF_SAMPLE_TID);
	idx += !!(st & PERF_SAMPLE_TIME);
	idx += !!(st & PERF_SAMPLE_ADDR);
	return idx;
}

#define TRAILER_BITS                                                                   \
	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |     \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)

static int calc_is_pos(uint64_t st)
{
	int idx = 1;

	if (st & PERF_SAMPLE_IDENTIFIER)
		return 1;
	if (!(st & PERF_SAMPLE_ID))
		return -1;
	idx += !!(st & PERF_SAMPLE_CPU);
	idx += !!(st & PERF_SAMPLE_STREAM_ID);
	return idx;
}

/* Add an attr from @len bytes at @p (its own size field says how much is attr). */
static int add_attr(struct rsp_reader *r, const void *p, size_t len, const void *ids,
		    size_t n_ids, char *err, size_t errlen)
{
	struct perf_event_attr a;
	struct rsp_rattr *ra;
	uint32_t asize;

	if (len < PERF_ATTR_SIZE_VER0)
		return errf(err, errlen, -EINVAL, "event attribute too short (%zu bytes)", len);
	if (r->n_attrs >= MAX_ATTRS)
		return errf(err, errlen, -E2BIG, "more than %d event attributes", MAX_ATTRS);
	if (n_ids > MAX_IDS_PER_ATTR)
		return errf(err, errlen, -E2BIG, "event attribute with %zu ids", n_ids);
	memset(&a, 0, sizeof(a));
	memcpy(&asize, (const char *)p + offsetof(struct perf_event_attr, size), sizeof(asize));
	if (asize == 0)
		asize = PERF_ATTR_SIZE_VER0;
	if (asize > len)
		asize = (uint32_t)len;
	memcpy(&a, p, asize < sizeof(a) ? asize : sizeof(a));
	a.size = sizeof(a);
	ra = realloc(r->attrs, (r->n_attrs + 1) * sizeof(*ra));
	if (!ra)
		return -ENOMEM;
	r->attrs = ra;
	ra = &r->attrs[r->n_attrs];
	memset(ra, 0, sizeof(*ra));
	ra->attr = a;
	ra->index = (unsigned)r->n_attrs;
	ra->trailer_size = a.sample_id_all ? trailer_size(a.sample_type) : 0;
	{
		uint64_t st = a.sample_type;
		int pos = !!(st & PERF_SAMPLE_IDENTIFIER) + !!(st & PERF_SAMPLE_IP) +
			  !!(st & PERF_SAMPLE_TID);

		ra->time_pos = st & PERF_SAMPLE_TIME ? pos : -1;
		pos += !!(st & PERF_SAMPLE_TIME) + !!(st & PERF_SAMPLE_ADDR) +
		       !!(st & PERF_SAMPLE_ID) + !!(st & PERF_SAMPLE_STREAM_ID);
		ra->cpu_pos = st & PERF_SAMPLE_CPU ? pos : -1;
	}
	if (n_ids) {
		/* @ids may be unaligned in the file: copy before reading */
		ra->ids = malloc(n_ids * sizeof(uint64_t));
		if (!ra->ids)
			return -ENOMEM;
		memcpy(ra->ids, ids, n_ids * sizeof(uint64_t));
		ra->n_ids = n_ids;
	}
	for (size_t i = 0; i < n_ids; i++)
		if (id_put(r, ra->ids[i], (uint32_t)r->n_attrs))
			return -ENOMEM;
	if (r->n_attrs == 0) {
		r->id_pos = calc_id_pos(a.sample_type);
		r->is_pos = calc_is_pos(a.sample_type);
		r->trailer_bits = a.sample_type & TRAILER_BITS;
		r->trailer_uniform = a.sample_id_all;
	} else if (!a.sample_id_all || (a.sample_type & TRAILER_BITS) != r->trailer_bits) {
		r->trailer_uniform = false;
	}
	r->n_attrs++;
	return 0;
}

static struct rsp_rattr *attr_by_id(struct rsp_reader *r, uint64_t id)
{
	return (struct rsp_rattr *)id_get(r, id);
}

/* ---- features --------------------------------------------------------------------- */

/* perf_header_string: u32 length then that many bytes (NUL-padded) */
static char *take_string(const unsigned char **p, const unsigned char *end)
{
	uint32_t len;
	char *s;

	if ((size_t)(end - *p) < 4)
		return NULL;
	memcpy(&len, *p, 4);
	*p += 4;
	if (len > (size_t)(end - *p))
		return NULL;
	s = strndup((const char *)*p, len);
	*p += len;
	return s;
}

static void parse_build_ids(struct rsp_reader *r, const unsigned char *p, const unsigned char *end)
{
	while ((size_t)(end - p) >= sizeof(struct rsp_pf_build_id)) {
		struct rsp_pf_build_id b; /* a copy: feature sections need not be aligned */
		const char *filename = (const char *)p + sizeof(b);
		struct rsp_build_id_entry *e;
		size_t flen;

		memcpy(&b, p, sizeof(b));
		if (b.header.size < sizeof(b) || b.header.size > (size_t)(end - p))
			break;
		flen = strnlen(filename, b.header.size - sizeof(b));
		e = realloc(r->info.build_ids, (r->info.n_build_ids + 1) * sizeof(*e));
		if (!e)
			break;
		r->info.build_ids = e;
		e = &e[r->info.n_build_ids];
		e->path = strndup(filename, flen);
		if (!e->path)
			break;
		e->len = (b.header.misc & PERF_RECORD_MISC_BUILD_ID_SIZE) && b.size <= 20 ? b.size : 20;
		memcpy(e->id, b.data, sizeof(e->id));
		e->kernel = (b.header.misc & PERF_RECORD_MISC_CPUMODE_MASK) ==
			    PERF_RECORD_MISC_KERNEL;
		r->info.n_build_ids++;
		p += b.header.size;
	}
}

static void parse_event_desc(struct rsp_reader *r, const unsigned char *p, const unsigned char *end)
{
	uint32_t nre, sz;

	if ((size_t)(end - p) < 8)
		return;
	memcpy(&nre, p, 4);
	memcpy(&sz, p + 4, 4);
	p += 8;
	for (uint32_t i = 0; i < nre && sz >= PERF_ATTR_SIZE_VER0; i++) {
		uint32_t nr_ids;
		char *name;
		const struct perf_event_attr *a;

		if ((size_t)(end - p) < (size_t)sz + 4)
			return;
		a = (const void *)p;
		(void)a;
		p += sz;
		memcpy(&nr_ids, p, 4);
		p += 4;
		name = take_string(&p, end);
		if (!name)
			return;
		if ((size_t)(end - p) / 8 < nr_ids) {
			free(name);
			return;
		}
		/* name every attr that owns one of these ids */
		for (uint32_t k = 0; k < nr_ids; k++) {
			uint64_t id;
			struct rsp_rattr *ra;

			memcpy(&id, p + 8 * k, 8);
			ra = attr_by_id(r, id);
			if (ra && !ra->name)
				ra->name = strdup(name);
		}
		p += 8ull * nr_ids;
		free(name);
	}
}

static int keep_tracing_data(struct rsp_reader *r, uint64_t off, const unsigned char *p,
			     uint64_t len, char *err, size_t errlen);

/* Feature @feat's @len bytes at @p, from a record at @off (a file-mode section: its offset). */
static int parse_feature(struct rsp_reader *r, uint64_t feat, const unsigned char *p, size_t len,
			 uint64_t off, char *err, size_t errlen)
{
	const unsigned char *end = p + len;
	struct rsp_reader_info *in = &r->info;

	switch (feat) {
	case RSP_PF_FEAT_TRACING_DATA:
		return keep_tracing_data(r, off, p, len, err, errlen);
	case RSP_PF_FEAT_BUILD_ID:
		parse_build_ids(r, p, end);
		break;
	case RSP_PF_FEAT_HOSTNAME:
		free(in->hostname);
		in->hostname = take_string(&p, end);
		break;
	case RSP_PF_FEAT_OSRELEASE:
		free(in->osrelease);
		in->osrelease = take_string(&p, end);
		break;
	case RSP_PF_FEAT_VERSION:
		free(in->version);
		in->version = take_string(&p, end);
		break;
	case RSP_PF_FEAT_ARCH:
		free(in->arch);
		in->arch = take_string(&p, end);
		break;
	case RSP_PF_FEAT_CPUDESC:
		free(in->cpudesc);
		in->cpudesc = take_string(&p, end);
		break;
	case RSP_PF_FEAT_NRCPUS:
		if (len >= 8) {
			memcpy(&in->nr_cpus_avail, p, 4);
			memcpy(&in->nr_cpus_online, p + 4, 4);
		}
		break;
	case RSP_PF_FEAT_TOTAL_MEM:
		if (len >= 8)
			memcpy(&in->total_mem_kb, p, 8);
		break;
	case RSP_PF_FEAT_CLOCKID:
		if (len >= 8) {
			memcpy(&in->clockid_res_ns, p, 8);
			in->have_clockid = true;
		}
		break;
	case RSP_PF_FEAT_CLOCK_DATA:
		if (len >= 24) {
			uint32_t ver;

			memcpy(&ver, p, 4);
			if (ver == 1) {
				memcpy(&in->clock_data_clockid, p + 4, 4);
				memcpy(&in->clock_data_tod_ns, p + 8, 8);
				memcpy(&in->clock_data_clk_ns, p + 16, 8);
				in->have_clock_data = true;
			}
		}
		break;
	case RSP_PF_FEAT_CMDLINE: {
		uint32_t nr;

		if (len < 4)
			break;
		memcpy(&nr, p, 4);
		p += 4;
		if (nr > len / 4)
			break;
		for (size_t i = 0; i < in->n_cmdline; i++)
			free(in->cmdline[i]);
		free(in->cmdline);
		in->n_cmdline = 0;
		in->cmdline = calloc(nr ? nr : 1, sizeof(char *));
		for (uint32_t i = 0; in->cmdline && i < nr; i++) {
			char *s = take_string(&p, end);

			if (!s)
				break;
			in->cmdline[in->n_cmdline++] = s;
		}
		break;
	}
	case RSP_PF_FEAT_EVENT_DESC:
		parse_event_desc(r, p, end);
		break;
	case RSP_PF_FEAT_COMPRESSED:
		r->comp_declared = true;
		break;
	default:
		break;
	}
	return 0;
}

/* ---- opening ------------------------------------------------------------------------- */

static int open_file_mode(struct rsp_reader *r, char *err, size_t errlen)
{
	struct rsp_pf_file_header h;
	uint64_t data_end, feat_at;
	size_t nattrs;
	int ret;

	if (r->size < sizeof(h))
		return errf(err, errlen, -EINVAL, "perf.data header cut short (%zu bytes)", r->size);
	memcpy(&h, r->buf, sizeof(h));
	if (h.attr_size < PERF_ATTR_SIZE_VER0 + sizeof(struct rsp_pf_section) ||
	    h.attr_size > 65536)
		return errf(err, errlen, -EINVAL, "bad attribute size %llu in the header: not a "
			    "perf.data file, or a corrupt one", (unsigned long long)h.attr_size);
	if (h.attrs.offset > r->size || h.attrs.size > r->size - h.attrs.offset)
		return errf(err, errlen, -EINVAL,
			    "the attribute section lies outside the file: the file is cut short");
	nattrs = h.attrs.size / h.attr_size;
	for (size_t i = 0; i < nattrs; i++) {
		const unsigned char *e = r->buf + h.attrs.offset + i * h.attr_size;
		struct rsp_pf_section ids;
		size_t alen = h.attr_size - sizeof(ids);

		memcpy(&ids, e + alen, sizeof(ids));
		if (ids.offset > r->size || ids.size > r->size - ids.offset || ids.size % 8)
			return errf(err, errlen, -EINVAL,
				    "event ids of attribute %zu lie outside the file", i);
		ret = add_attr(r, e, alen, r->buf + ids.offset, ids.size / 8, err, errlen);
		if (ret)
			return ret;
	}
	if (h.data.offset < sizeof(h) || h.data.offset > r->size)
		return errf(err, errlen, -EINVAL, "the data section lies outside the file");
	r->data_start = h.data.offset;
	data_end = h.data.offset + h.data.size;
	if (h.data.size == 0 || data_end > r->size || data_end < h.data.offset) {
		/* perf record never finished the header (killed): read to the end */
		r->info.unfinished = true;
		r->data_end = r->size;
		return 0;
	}
	r->data_end = data_end;
	feat_at = data_end;
	for (int bit = 1; bit < RSP_PF_FEAT_BITS; bit++) {
		struct rsp_pf_section s;

		if (!(h.adds_features[bit / 64] & (1ull << (bit % 64))))
			continue;
		if (feat_at + sizeof(s) > r->size)
			break; /* features cut off: the data is still good */
		memcpy(&s, r->buf + feat_at, sizeof(s));
		feat_at += sizeof(s);
		if (s.offset > r->size || s.size > r->size - s.offset)
			continue;
		ret = parse_feature(r, (uint64_t)bit, r->buf + s.offset, s.size, s.offset, err,
				    errlen);
		if (ret)
			return ret;
	}
	return 0;
}

static int open_common(struct rsp_reader *r, char *err, size_t errlen)
{
	uint64_t magic, hsize;

	if (r->size < 16)
		return errf(err, errlen, -EINVAL, "not a perf.data file: only %zu bytes", r->size);
	memcpy(&magic, r->buf, 8);
	memcpy(&hsize, r->buf + 8, 8);
	if (magic == RSP_PF_MAGIC_SWAPPED)
		return errf(err, errlen, -ENOTSUP,
			    "perf.data from a big-endian machine: not supported, convert it with "
			    "`perf inject` on that machine");
	if (!memcmp(r->buf, "PERFFILE", 8))
		return errf(err, errlen, -ENOTSUP, "perf.data version 1: too old, not supported");
	if (magic != RSP_PF_MAGIC)
		return errf(err, errlen, -EINVAL, "not a perf.data file (no PERFILE2 magic)");
	r->id_pos = r->is_pos = -1;
	if (hsize == sizeof(struct rsp_pf_pipe_header)) {
		r->info.pipe_mode = true;
		r->data_start = hsize;
		r->data_end = r->size;
		return 0;
	}
	if (hsize != sizeof(struct rsp_pf_file_header))
		return errf(err, errlen, -EINVAL,
			    "unknown perf.data header size %llu: not a perf.data file, or one "
			    "from a perf newer than this reader",
			    (unsigned long long)hsize);
	return open_file_mode(r, err, errlen);
}

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
static bool record_span(const unsigned char *p, uint64_t avail, struct perf_event_header *h,
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
		if (!record_span(f->img + f->whole, f->len - f->whole, &h, &skip))
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

/*
 * Fresh anonymous pages are dear on some machines.  On this project's VM (a
 * paravirtualised guest) a page faulted in by a write costs ~10 us: 1.4 s
 * for a 512 MB image, four times the decompression.  MADV_POPULATE_WRITE
 * (Linux 5.14) maps a range in one call (0.12 s for 512 MB) and a read of
 * each page then completes its mapping (0.2 s); after that, writes run at
 * memory speed.  A thread does this ahead of the decompressor on another
 * CPU, at most WARM_AHEAD past the writer (what it warms past the image's
 * end is given back with the rest of the reservation).  Until the image is
 * large enough to be worth a thread, or with one CPU, the writer populates
 * its next step itself and its writes finish the mapping.
 */
#define WARM_STEP (4u << 20)
#define WARM_AHEAD (32u << 20)
#define WARM_THREAD_MIN (8u << 20) /* smaller images are not worth a thread */

struct warmer {
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

static bool warm_ahead(struct warmer *w)
{
	return w->at >= __atomic_load_n(&w->pos, __ATOMIC_ACQUIRE) + WARM_AHEAD;
}

static void *warm_thread(void *arg)
{
	struct warmer *w = arg;

	while (!__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE)) {
		uint64_t pos = __atomic_load_n(&w->pos, __ATOMIC_ACQUIRE), start, n;

		if (warm_ahead(w)) {
			pthread_mutex_lock(&w->lock);
			while (!__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE) && warm_ahead(w))
				pthread_cond_wait(&w->cond, &w->lock);
			pthread_mutex_unlock(&w->lock);
			continue;
		}
		/* not where the writer already is */
		start = w->at > pos ? w->at : (pos + 4095) & ~(uint64_t)4095;
		if (start >= w->limit)
			break;
		n = w->limit - start < WARM_STEP ? w->limit - start : WARM_STEP;
		if (madvise(w->img + start, n, MADV_POPULATE_WRITE))
			break; /* an older kernel, or no memory: the writes fault the pages in */
		_rsp_touch_pages(w->img + start, n); /* a read may meet the writer: see mem.c */
		__atomic_store_n(&w->at, start + n, __ATOMIC_RELEASE);
	}
	return NULL;
}

/* The writer has written the image up to @pos. */
static void warm_follow(struct warmer *w, uint64_t pos)
{
	uint64_t chunk;

	if (!w->tried && pos >= WARM_THREAD_MIN) {
		w->tried = true;
		if (_rsp_usable_cpus() >= 2) {
			w->pos = pos;
			w->at = w->pop;
			w->signalled = pos;
			pthread_mutex_init(&w->lock, NULL);
			pthread_cond_init(&w->cond, NULL);
			w->thread = !pthread_create(&w->tid, NULL, warm_thread, w);
			if (!w->thread) {
				pthread_cond_destroy(&w->cond);
				pthread_mutex_destroy(&w->lock);
			}
		}
	}
	if (w->thread) {
		__atomic_store_n(&w->pos, pos, __ATOMIC_RELEASE);
		if (pos >= w->signalled + WARM_STEP) {
			w->signalled = pos;
			pthread_mutex_lock(&w->lock);
			pthread_cond_signal(&w->cond);
			pthread_mutex_unlock(&w->lock);
		}
		if (__atomic_load_n(&w->at, __ATOMIC_ACQUIRE) >= pos + WARM_STEP)
			return;
		/* the writer caught up with the thread: it populates its next step itself */
		if (w->pop < pos)
			w->pop = pos & ~(uint64_t)4095;
	}
	/* populate ahead of the writer, a step as large as what it has written (64 KiB to 4 MiB) */
	chunk = pos < (64u << 10) ? (64u << 10) : pos > WARM_STEP ? WARM_STEP : pos & ~(uint64_t)0xffff;
	while (!w->failed && w->pop < w->limit && w->pop < pos + chunk) {
		uint64_t n = w->limit - w->pop < chunk ? w->limit - w->pop : chunk;

		w->failed = madvise(w->img + w->pop, n, MADV_POPULATE_WRITE) != 0;
		w->pop += n;
	}
}

static void warm_stop(struct warmer *w)
{
	if (!w->thread)
		return;
	pthread_mutex_lock(&w->lock);
	__atomic_store_n(&w->stop, 1, __ATOMIC_RELEASE);
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->tid, NULL);
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
	w->thread = false;
}

/* The top-level record at @off of the original stream (the scan reports a cut). */
static bool top_record(const struct rsp_reader *r, uint64_t off, struct perf_event_header *h,
		       uint64_t *skip)
{
	return off <= r->data_end && record_span(r->buf + off, r->data_end - off, h, skip);
}

/*
 * Is the stream compressed?  perf record -z and rsp record declare it with
 * HEADER_COMPRESSED: a feature section in file mode, a feature record among
 * the header records before the first event in pipe mode.
 */
static bool declares_compression(const struct rsp_reader *r)
{
	struct perf_event_header h;
	uint64_t off = r->data_start, skip;
	bool any = r->comp_declared;

	while (!any && top_record(r, off, &h, &skip) && h.type >= 64) {
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
static uint64_t image_to_file(const struct rsp_reader *r, uint64_t off)
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
static int inflate(struct rsp_reader *r, char *err, size_t errlen)
{
	struct inflater f = { .orig = r->buf };
	struct warmer w = { 0 };
	struct perf_event_header h;
	ZSTD_DStream *ds = NULL;
	uint64_t off = r->data_start, skip, whole_at = 0;
	void *img;
	int ret = 0;
	long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);

	if (!declares_compression(r))
		return 0;
	/* an image larger than half the memory would push everything else out */
	f.limit = pages > 0 && psize > 0 ? (uint64_t)pages * (uint64_t)psize / 2 : (1ull << 34);
	if (f.limit > SIZE_MAX / 2)
		f.limit = SIZE_MAX / 2;
	/*
	 * Where overcommit is strict (vm.overcommit_memory 2) the reservation
	 * counts against the commit limit whatever MAP_NORESERVE says: try
	 * smaller ones; the stream then fails only if it outgrows what was had.
	 */
	for (;;) {
		img = mmap(NULL, f.limit, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (img != MAP_FAILED || errno != ENOMEM || f.limit <= (64u << 20))
			break;
		f.limit /= 2;
	}
	ds = ZSTD_createDStream();
	f.img = img == MAP_FAILED ? NULL : img; /* this function's until the reader has it */
	if (!f.img || !ds) {
		ret = errf(err, errlen, -ENOMEM, "cannot inflate the compressed trace: %s",
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
	while (!f.err && top_record(r, off, &h, &skip)) {
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
				ret = errf(err, errlen, e == -EFBIG || f.err == -EFBIG ? -EFBIG : -ENOMEM,
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
		warm_follow(&w, f.len);
		off += h.size + skip;
	}
	warm_stop(&w);
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
		ret = errf(err, errlen, f.err, "cannot inflate the compressed trace: %s",
			   f.err == -EFBIG ? "more than this process can hold (memory, or a ulimit -v)" :
					     strerror(-f.err));
		goto out;
	}
	if (!f.len) {
		ret = errf(err, errlen, -EINVAL, "empty compressed trace");
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
	warm_stop(&w);
	ZSTD_freeDStream(ds);
	free(f.ins);
	vec_free(&f.comp_at);
	vec_free(&f.plain_at);
	if (f.img)
		munmap(f.img, f.limit);
	return ret;
}

/* ---- compressed streams in frames ------------------------------------------------ */

/*
 * rsp record ends its zstd frame at a record boundary every 256 KiB of input
 * (collector/writer.c): each frame then holds whole records and inflates on
 * its own.  Such a stream is not inflated at open.  Each frame is a
 * *segment*: the scan inflates one at a time into one buffer; loading's walk
 * inflates a segment when its first record in time order comes up and
 * drops it after its last (rsp_reader_segment_load/drop), so only the
 * segments that time order interleaves are held at once (a few MB where
 * the whole stream inflates to hundreds); a record asked for later (a
 * user-stack copy to unwind) is inflated again into a small cache.  A
 * record's offset in a segment is RSP_SEG_BIT | segment << 32 | offset in
 * the segment.
 *
 * A stream is read so when it has more than one frame, every frame begins
 * a compressed record (zstd_frame_start()) and no other record lies between
 * the compressed records of one frame.  Any other (perf record -z: one frame for
 * the whole stream) is inflated at open (inflate()).
 */
struct seg {
	uint64_t first, end; /* file offsets: its first compressed record, past its last */
	uint64_t len; /* bytes inflated (whole records), once scanned */
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
	unsigned char *tracing_data; /* a TRACING_DATA record's payload found in a segment */
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
static int probe_segments(struct rsp_reader *r)
{
	struct perf_event_header h;
	uint64_t off = r->data_start, skip;
	VEC(struct seg) v = { 0 };
	bool open = false, ok = true;
	long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);

	if (!declares_compression(r))
		return 0;
	while (ok && top_record(r, off, &h, &skip)) {
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
	r->zs->limit = pages > 0 && psize > 0 ? (uint64_t)pages * (uint64_t)psize / 2 : (1ull << 34);
	if (r->zs->limit > (1ull << 32) - 1)
		r->zs->limit = (1ull << 32) - 1; /* an offset in a segment is 32 bits */
	pthread_mutex_init(&r->zs->pool_lock, NULL);
	pthread_mutex_init(&r->zs->cache_lock, NULL);
	r->info.compressed = true;
	return 0;
}

static void segs_free(struct segs *zs)
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
	free(zs->tracing_data);
	ZSTD_freeDCtx(zs->dc_scan);
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
	while (!ret && off < z->end && top_record(r, off, &h, &skip)) {
		ZSTD_inBuffer in = { r->buf + off + sizeof(h), h.size - sizeof(h), 0 };

		while (!ret && in.pos < in.size) {
			size_t was = in.pos, at = out.pos, n = ZSTD_decompressStream(*dc, &out, &in);

			if (ZSTD_isError(n))
				ret = ZSTD_getErrorCode(n) == ZSTD_error_dstSize_tooSmall ? -EFBIG : -EINVAL;
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
 * Where overcommit is strict the reservation is halved down to 64 MB.
 */
#define SEG_WARM (1u << 20)
#define SEG_TRIM (16u << 20) /* pages of a larger segment are given back after it */

static int seg_scan_buffer(struct segs *zs)
{
	void *p;

	for (;;) {
		p = mmap(NULL, zs->limit, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p != MAP_FAILED || errno != ENOMEM || zs->limit <= (64u << 20))
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

/* The scan's: segment @i inflated into zs->scan; its whole records' length in v[i].len. */
static int seg_scan_inflate(struct rsp_reader *r, size_t i)
{
	struct segs *zs = r->zs;
	uint64_t len = 0, whole = 0;
	int ret;

	if (!zs->scan && seg_scan_buffer(zs))
		return -ENOMEM;
	ret = seg_inflate(r, &zs->dc_scan, &zs->v[i], zs->scan, zs->scan_cap, &len);
	if (ret == -EFBIG || ret == -ENOMEM)
		return ret;
	/* whole records only (a payload after its record included): a frame cut
	 * short or broken ends on its last */
	while (whole < len) {
		struct perf_event_header h;
		uint64_t skip;

		if (!record_span(zs->scan + whole, len - whole, &h, &skip))
			break;
		whole += h.size + skip;
	}
	zs->v[i].len = whole;
	zs->scan_used = len;
	return ret ? ret : whole < len ? -EINVAL : 0;
}

uint64_t rsp_reader_file_offset(const struct rsp_reader *r, uint64_t offset)
{
	long i = rsp_reader_segment_of(offset);

	if (i < 0)
		return image_to_file(r, offset);
	return r->zs && (size_t)i < r->zs->n ? r->zs->v[i].first : r->orig_size;
}

size_t rsp_reader_n_segments(const struct rsp_reader *r)
{
	return r->zs ? r->zs->n : 0;
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
	pthread_mutex_lock(&zs->pool_lock);
	if (zs->n_pool)
		b = zs->pool[--zs->n_pool];
	pthread_mutex_unlock(&zs->pool_lock);
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
	ret = open_common(r, err, errlen);
	if (!ret)
		ret = probe_segments(r);
	if (!ret && !r->zs)
		ret = inflate(r, err, errlen);
	if (ret) {
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

int _rsp_usable_cpus(void)
{
	cpu_set_t set;

	/* the CPUs this process may run on (a cpuset or taskset may allow fewer than are online) */
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		return CPU_COUNT(&set);
	return (int)sysconf(_SC_NPROCESSORS_ONLN);
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
			return errf(err, errlen, ret, "%s: no such file (record one with `rsp record`)",
				    path);
		return errf(err, errlen, ret, "cannot open %s: %s", path, strerror(-ret));
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return errf(err, errlen, -EINVAL, "%s is not a regular file", path);
	}
	if (st.st_size == 0) {
		close(fd);
		return errf(err, errlen, -EINVAL, "%s is empty", path);
	}
	map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return errf(err, errlen, -errno, "cannot map %s: %s", path, strerror(errno));
	madvise(map, st.st_size, MADV_SEQUENTIAL);
	pf = prefault_start(map, st.st_size);
	ret = rsp_reader_open_mem(map, st.st_size, &r, err, errlen);
	if (ret) {
		prefault_stop(pf);
		munmap(map, st.st_size);
		return ret;
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
	segs_free(r->zs);
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

/* Where the bytes at file offset @off are, 8-byte aligned if the record there is. */
static const unsigned char *at(const struct rsp_reader *r, uint64_t off)
{
	for (size_t i = r->tails.n; i-- > 0;)
		if (off >= r->tails.v[i].from)
			return r->tails.v[i].copy + (off - r->tails.v[i].from);
	return r->buf + off;
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
	ra = attr_by_id(r, u->id);
	if (!ra)
		return;
	free(ra->name);
	ra->name = strndup(u->data, h->size - sizeof(*u));
}

/* What a record does to the scan: go on, the stream is cut there, or stop (error, @fn's word). */
enum { SCAN_ON, SCAN_CUT, SCAN_STOP };

/*
 * A tracing-data record's payload at @off: the formats and kallsyms.  The
 * first one found is kept (the loader's set-up thread may be reading it while
 * the scan goes on); one found in a segment is copied, since the segment's
 * buffer is reused for the next frame.
 */
static int keep_tracing_data(struct rsp_reader *r, uint64_t off, const unsigned char *p,
			     uint64_t len, char *err, size_t errlen)
{
	if (r->info.tracing_data)
		return 0;
	if (off & RSP_SEG_BIT) {
		r->zs->tracing_data = malloc(len ? len : 1);
		if (!r->zs->tracing_data)
			return errf(err, errlen, -ENOMEM, "out of memory reading the trace");
		memcpy(r->zs->tracing_data, p, len);
		p = r->zs->tracing_data;
	}
	r->info.tracing_data = p;
	r->info.tracing_data_len = len;
	return 0;
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
			*ret = errf(err, errlen, -EINVAL,
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
		*ret = errf(err, errlen, -EINVAL,
			    "not a valid perf.data stream: first record has type %u", h->type);
		return SCAN_STOP;
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
					*ret = errf(err, errlen, -EINVAL,
						    "bad event attribute record at offset %llu",
						    (unsigned long long)off);
					return SCAN_STOP;
				}
				break;
			}
			*ret = add_attr(r, a, asize, a + asize, (body - asize) / 8, err, errlen);
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

			*ret = parse_feature(r, f->feat_id, f->data, h->size - sizeof(*f), off, err,
					     errlen);
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
			if ((*ret = keep_tracing_data(r, off, (const unsigned char *)h + h->size,
						      skip, err, errlen)))
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
			parse_build_ids(r, (const unsigned char *)h, (const unsigned char *)h + h->size);
		break;
	case RSP_PF_RECORD_THREAD_MAP:
		if (!r->scanned)
			absorb_thread_map(r, h);
		break;
	case RSP_PF_RECORD_COMPRESSED:
		/* left only after a break in the stream, or undeclared */
		if (!r->inflate_cut)
			r->info.compressed_skipped++;
		break;
	default:
		break;
	}
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
	struct segs *zs = r->zs;
	uint64_t p = 0, next;
	int e = seg_scan_inflate(r, i), st = SCAN_ON;

	if (e == -ENOMEM || e == -EFBIG) {
		*ret = errf(err, errlen, e,
			    e == -ENOMEM ? "out of memory inflating the compressed trace" :
					   "a frame of the compressed trace inflates to more than "
					   "%llu MB, more than this process can hold",
			    (unsigned long long)(zs->limit >> 20));
		return SCAN_STOP;
	}
	/* a broken frame (-EINVAL): its records up to the break are read, then the scan stops */
	while (p < zs->v[i].len) {
		const struct perf_event_header *h = (const void *)(zs->scan + p);

		if (p & 7) {
			/* records are 8-byte multiples; one off alignment is no record */
			e = -EINVAL;
			break;
		}
		st = scan_one(r, h, RSP_SEG_BIT | (uint64_t)i << 32 | p, zs->v[i].len - p, fn, ctx,
			      &next, ret, err, errlen);
		if (st == SCAN_STOP)
			break;
		if (st == SCAN_CUT) {
			e = -EINVAL;
			break;
		}
		p += next;
	}
	/* a large segment's pages past the first few MB are given back once it is read */
	if (zs->scan_used > SEG_TRIM)
		madvise(zs->scan + SEG_TRIM, zs->scan_used - SEG_TRIM, MADV_DONTNEED);
	zs->scan_used = 0;
	if (st == SCAN_STOP)
		return st;
	if (e) {
		r->inflate_cut = true;
		r->inflate_cut_at = zs->v[i].first;
		return SCAN_CUT;
	}
	return SCAN_ON;
}

int rsp_reader_scan(struct rsp_reader *r, rsp_record_fn fn, void *ctx, char *err, size_t errlen)
{
	uint64_t off = r->data_start, next;
	size_t si = 0;
	int ret = 0, st;

	r->info.n_records = 0;
	r->info.truncated = false;
	while (off < r->data_end) {
		const struct perf_event_header *h;

		if (r->zs && si < r->zs->n && off == r->zs->v[si].first) {
			st = scan_segment(r, si, fn, ctx, &ret, err, errlen);
			if (st == SCAN_STOP)
				return ret;
			if (st == SCAN_CUT)
				break;
			off = r->zs->v[si++].end;
			continue;
		}
		if (r->data_end - off < sizeof(*h)) {
			r->info.truncated = true;
			r->info.truncated_at = off;
			break;
		}
		h = (const void *)at(r, off);
		if (((uintptr_t)h & 7) && !r->scanned) {
			if (realign(r, off))
				return errf(err, errlen, -ENOMEM, "out of memory reading the trace");
			h = (const void *)at(r, off);
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
		r->info.truncated_at = image_to_file(r, r->info.truncated_at);
	if (r->inflate_cut && !r->info.truncated) {
		r->info.truncated = true;
		r->info.truncated_at = r->inflate_cut_at;
	}
	if (r->zs && r->zs->scan) {
		/* the scan's buffer goes; another scan makes it again */
		munmap(r->zs->scan, r->zs->scan_cap);
		r->zs->scan = NULL;
	}
	r->scanned = true;
	return 0;
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
	return (const void *)at(r, offset);
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

const struct rsp_rattr *rsp_reader_attr_of(const struct rsp_reader *r,
					   const struct perf_event_header *h)
{
	uint64_t id;

	if (r->n_attrs == 1)
		return &r->attrs[0];
	if (r->n_attrs == 0)
		return NULL;
	if (h->type == PERF_RECORD_SAMPLE) {
		if (r->id_pos < 0 || sizeof(*h) + 8u * (r->id_pos + 1) > h->size)
			return NULL;
		memcpy(&id, (const char *)(h + 1) + 8 * r->id_pos, 8);
	} else {
		if (r->is_pos < 0 || sizeof(*h) + 8u * r->is_pos > h->size)
			return NULL;
		memcpy(&id, (const char *)h + h->size - 8 * r->is_pos, 8);
		if (!id_get(r, id) && r->trailer_uniform)
			return &r->attrs[0];
	}
	return id_get(r, id);
}

/* A cursor over a record's u64 words with bounds. */
struct cur {
	const unsigned char *p, *end;
	bool bad;
};

static uint64_t take64(struct cur *c)
{
	uint64_t v = 0;

	if ((size_t)(c->end - c->p) < 8) {
		c->bad = true;
		return 0;
	}
	memcpy(&v, c->p, 8);
	c->p += 8;
	return v;
}

static const void *take(struct cur *c, uint64_t n)
{
	const void *p = c->p;

	if (n > (uint64_t)(c->end - c->p)) {
		c->bad = true;
		return NULL;
	}
	c->p += n;
	return p;
}

static void skip_read(struct cur *c, uint64_t rf)
{
	if (rf & PERF_FORMAT_GROUP) {
		uint64_t nr = take64(c), per = 1;

		if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
			take64(c);
		if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
			take64(c);
		per += !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
		if (nr > 4096 || per * nr > (uint64_t)(c->end - c->p) / 8) {
			c->bad = true;
			return;
		}
		take(c, 8 * per * nr);
	} else {
		take64(c);
		if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
			take64(c);
		if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
			take64(c);
		if (rf & PERF_FORMAT_ID)
			take64(c);
		if (rf & PERF_FORMAT_LOST)
			take64(c);
	}
}

int rsp_reader_sample_time(const struct rsp_reader *r, const struct perf_event_header *h,
			   struct rsp_sample *s)
{
	const struct rsp_rattr *ra = rsp_reader_attr_of(r, h);
	const unsigned char *p = (const unsigned char *)(h + 1);
	size_t words = (h->size - sizeof(*h)) / 8;
	uint64_t v;

	s->attr = ra;
	s->has_time = s->has_cpu = false;
	if (!ra)
		return -ENOENT;
	if (ra->time_pos >= 0) {
		if ((size_t)ra->time_pos >= words)
			return -EINVAL;
		memcpy(&s->time, p + 8 * ra->time_pos, 8);
		s->has_time = true;
	}
	if (ra->cpu_pos >= 0) {
		if ((size_t)ra->cpu_pos >= words)
			return -EINVAL;
		memcpy(&v, p + 8 * ra->cpu_pos, 8);
		s->cpu = (uint32_t)v;
		s->has_cpu = true;
	}
	return 0;
}

static inline __attribute__((always_inline)) int
parse_sample(const struct rsp_reader *r, const struct perf_event_header *h, struct rsp_sample *s,
	     bool dyn_size)
{
	const struct rsp_rattr *ra = rsp_reader_attr_of(r, h);
	struct cur c = { (const unsigned char *)(h + 1), (const unsigned char *)h + h->size, false };
	uint64_t st, v;

	memset(s, 0, sizeof(*s));
	if (!ra)
		return -ENOENT;
	s->attr = ra;
	st = ra->attr.sample_type;
	if (st & PERF_SAMPLE_IDENTIFIER)
		s->id = take64(&c);
	if (st & PERF_SAMPLE_IP)
		s->ip = take64(&c);
	if (st & PERF_SAMPLE_TID) {
		v = take64(&c);
		s->pid = (uint32_t)v;
		s->tid = (uint32_t)(v >> 32);
		s->has_tid = true;
	}
	if (st & PERF_SAMPLE_TIME) {
		s->time = take64(&c);
		s->has_time = true;
	}
	if (st & PERF_SAMPLE_ADDR)
		s->addr = take64(&c);
	if (st & PERF_SAMPLE_ID)
		s->id = take64(&c);
	if (st & PERF_SAMPLE_STREAM_ID)
		take64(&c);
	if (st & PERF_SAMPLE_CPU) {
		s->cpu = (uint32_t)take64(&c);
		s->has_cpu = true;
	}
	if (st & PERF_SAMPLE_PERIOD)
		s->period = take64(&c);
	if (st & PERF_SAMPLE_READ)
		skip_read(&c, ra->attr.read_format);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		uint64_t nr = take64(&c);

		if (nr > (uint64_t)(c.end - c.p) / 8)
			return -EINVAL;
		s->callchain = take(&c, nr * 8);
		s->callchain_nr = nr;
	}
	if (st & PERF_SAMPLE_RAW) {
		uint32_t sz = 0;
		const void *p = take(&c, 4);

		if (p)
			memcpy(&sz, p, 4);
		s->raw = take(&c, sz);
		s->raw_size = s->raw ? sz : 0;
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		uint64_t nr = take64(&c);

		if (ra->attr.branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			take64(&c);
		if (nr > (uint64_t)(c.end - c.p) / 24)
			return -EINVAL;
		take(&c, nr * 24);
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		s->regs_abi = take64(&c);
		if (s->regs_abi) {
			s->regs_mask = ra->attr.sample_regs_user;
			s->regs = take(&c, 8ull * __builtin_popcountll(s->regs_mask));
			/* only a RAW field not padded as perf pads it gets here unaligned */
			if ((uintptr_t)s->regs & 7)
				return -EINVAL;
		}
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		uint64_t size = take64(&c);

		if (size) {
			const void *data = take(&c, size);
			/* dyn_size sits after the copy: another cache line, often a miss */
			uint64_t dyn = dyn_size ? take64(&c) : (take(&c, 8), size);

			s->stack = data;
			s->stack_size = dyn <= size ? dyn : size;
		}
	}
	if (c.bad)
		return -EINVAL;
	return 0;
}

int rsp_reader_parse_sample(const struct rsp_reader *r, const struct perf_event_header *h,
			    struct rsp_sample *s)
{
	return parse_sample(r, h, s, true);
}

int rsp_reader_parse_sample_fast(const struct rsp_reader *r, const struct perf_event_header *h,
				 struct rsp_sample *s)
{
	return parse_sample(r, h, s, false);
}

int rsp_reader_parse_id(const struct rsp_reader *r, const struct perf_event_header *h,
			struct rsp_sample *s)
{
	const struct rsp_rattr *ra = rsp_reader_attr_of(r, h);
	const unsigned char *p;
	uint64_t st, v;

	memset(s, 0, sizeof(*s));
	if (!ra)
		return -ENOENT;
	s->attr = ra;
	if (!ra->attr.sample_id_all || ra->trailer_size + sizeof(*h) > h->size)
		return -ENODATA;
	st = ra->attr.sample_type;
	p = (const unsigned char *)h + h->size - ra->trailer_size;
	if (st & PERF_SAMPLE_TID) {
		memcpy(&v, p, 8);
		p += 8;
		s->pid = (uint32_t)v;
		s->tid = (uint32_t)(v >> 32);
		s->has_tid = true;
	}
	if (st & PERF_SAMPLE_TIME) {
		memcpy(&s->time, p, 8);
		p += 8;
		s->has_time = true;
	}
	if (st & PERF_SAMPLE_ID) {
		memcpy(&s->id, p, 8);
		p += 8;
	}
	if (st & PERF_SAMPLE_STREAM_ID)
		p += 8;
	if (st & PERF_SAMPLE_CPU) {
		memcpy(&v, p, 8);
		p += 8;
		s->cpu = (uint32_t)v;
		s->has_cpu = true;
	}
	if (st & PERF_SAMPLE_IDENTIFIER)
		memcpy(&s->id, p, 8);
	return 0;
}
