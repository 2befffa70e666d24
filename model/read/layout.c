/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf.data's layouts: the header of both modes (file mode with its attrs
 * and feature sections, pipe mode whose attrs and features come as records),
 * the attrs with their sample ids, and the features rsp reads (build ids,
 * event names, tracing data, the host, the command line, compression).
 */
#include "read/reader-private.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ATTRS 4096
#define MAX_IDS_PER_ATTR (1u << 20)

/* ---- ids and attrs ------------------------------------------------------------ */

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
			for (s = _rsp_id_hash(r->id_keys[i]) & (cap - 1); vals[s];
			     s = (s + 1) & (cap - 1))
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
	for (size_t s = _rsp_id_hash(id) & m;; s = (s + 1) & m) {
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

/*
 * A sample layout of fixed words, RAW after them or not (a tracepoint's without
 * a stack): each word's place, in sample_type's order (parse_sample()'s).
 */
#define FIXED_BITS                                                                          \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |     \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |      \
	 PERF_SAMPLE_PERIOD)

static void fixed_layout(struct rsp_rattr *ra)
{
	uint64_t st = ra->attr.sample_type;
	int8_t w = 0;

	ra->fixed_words = 0;
	ra->id_w = ra->ip_w = ra->tid_w = ra->addr_w = ra->period_w = -1;
	if (st & ~(FIXED_BITS | PERF_SAMPLE_RAW))
		return;
	if (st & PERF_SAMPLE_IDENTIFIER)
		ra->id_w = w++;
	if (st & PERF_SAMPLE_IP)
		ra->ip_w = w++;
	if (st & PERF_SAMPLE_TID)
		ra->tid_w = w++;
	w += !!(st & PERF_SAMPLE_TIME); /* time_pos */
	if (st & PERF_SAMPLE_ADDR)
		ra->addr_w = w++;
	if (st & PERF_SAMPLE_ID)
		ra->id_w = w++; /* after IDENTIFIER: the one read last */
	w += !!(st & PERF_SAMPLE_STREAM_ID);
	w += !!(st & PERF_SAMPLE_CPU); /* cpu_pos */
	if (st & PERF_SAMPLE_PERIOD)
		ra->period_w = w++;
	ra->fixed_words = (uint8_t)w;
}

/* Add an attr from @len bytes at @p (its own size field says how much is attr). */
int _rsp_reader_add_attr(struct rsp_reader *r, const void *p, size_t len, const void *ids,
		    size_t n_ids, char *err, size_t errlen)
{
	struct perf_event_attr a;
	struct rsp_rattr *ra;
	uint32_t asize;

	if (len < PERF_ATTR_SIZE_VER0)
		return rsp_errf(err, errlen, -EINVAL, "event attribute too short (%zu bytes)", len);
	if (r->n_attrs >= MAX_ATTRS)
		return rsp_errf(err, errlen, -E2BIG, "more than %d event attributes", MAX_ATTRS);
	if (n_ids > MAX_IDS_PER_ATTR)
		return rsp_errf(err, errlen, -E2BIG, "event attribute with %zu ids", n_ids);
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
	fixed_layout(ra);
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

struct rsp_rattr *_rsp_reader_attr_by_id(struct rsp_reader *r, uint64_t id)
{
	return (struct rsp_rattr *)_rsp_reader_id_get(r, id);
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

void _rsp_reader_parse_build_ids(struct rsp_reader *r, const unsigned char *p,
                                 const unsigned char *end)
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
		e->len =
		    (b.header.misc & PERF_RECORD_MISC_BUILD_ID_SIZE) && b.size <= 20 ? b.size : 20;
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
			ra = _rsp_reader_attr_by_id(r, id);
			if (ra && !ra->name)
				ra->name = strdup(name);
		}
		p += 8ull * nr_ids;
		free(name);
	}
}

/* Feature @feat's @len bytes at @p, from a record at @off (a file-mode section: its offset). */
int _rsp_reader_parse_feature(struct rsp_reader *r, uint64_t feat, const unsigned char *p,
                              size_t len, uint64_t off, char *err, size_t errlen)
{
	const unsigned char *end = p + len;
	struct rsp_reader_info *in = &r->info;

	switch (feat) {
	case RSP_PF_FEAT_TRACING_DATA:
		return _rsp_reader_keep_tracing_data(r, off, p, len, err, errlen);
	case RSP_PF_FEAT_BUILD_ID:
		_rsp_reader_parse_build_ids(r, p, end);
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

int _rsp_reader_keep_tracing_data(struct rsp_reader *r, uint64_t off, const unsigned char *p,
			     uint64_t len, char *err, size_t errlen)
{
	if (r->info.tracing_data)
		return 0;
	if (off & RSP_SEG_BIT) {
		r->tracing_data_copy = malloc(len ? len : 1);
		if (!r->tracing_data_copy)
			return rsp_errf(err, errlen, -ENOMEM, "out of memory reading the trace");
		memcpy(r->tracing_data_copy, p, len);
		p = r->tracing_data_copy;
	}
	r->info.tracing_data = p;
	r->info.tracing_data_len = len;
	return 0;
}

/* ---- opening ------------------------------------------------------------------------- */

/* File mode: a header of @hsize bytes (version 1's may end before the features bitmap). */
static int open_file_mode(struct rsp_reader *r, size_t hsize, char *err, size_t errlen)
{
	struct rsp_pf_file_header h;
	uint64_t data_end, feat_at;
	size_t nattrs;
	int ret;

	if (r->size < hsize)
		return rsp_errf(err, errlen, -EINVAL, "perf.data header cut short (%zu bytes)",
		                r->size);
	memset(&h, 0, sizeof(h));
	memcpy(&h, r->buf, hsize);
	if (h.attr_size < PERF_ATTR_SIZE_VER0 + sizeof(struct rsp_pf_section) ||
	    h.attr_size > 65536)
		return rsp_errf(err, errlen, -EINVAL,
		                "bad attribute size %llu in the header: not a "
		                "perf.data file, or a corrupt one",
		                (unsigned long long)h.attr_size);
	if (h.attrs.offset > r->size || h.attrs.size > r->size - h.attrs.offset)
		return rsp_errf(
		    err, errlen, -EINVAL,
		    "the attribute section lies outside the file: the file is cut short");
	nattrs = h.attrs.size / h.attr_size;
	for (size_t i = 0; i < nattrs; i++) {
		const unsigned char *e = r->buf + h.attrs.offset + i * h.attr_size;
		struct rsp_pf_section ids;
		size_t alen = h.attr_size - sizeof(ids);

		memcpy(&ids, e + alen, sizeof(ids));
		if (ids.offset > r->size || ids.size > r->size - ids.offset || ids.size % 8)
			return rsp_errf(err, errlen, -EINVAL,
			                "event ids of attribute %zu lie outside the file", i);
		ret = _rsp_reader_add_attr(r, e, alen, r->buf + ids.offset, ids.size / 8, err,
		                           errlen);
		if (ret)
			return ret;
	}
	if (h.data.offset < hsize || h.data.offset > r->size)
		return rsp_errf(err, errlen, -EINVAL, "the data section lies outside the file");
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
		ret = _rsp_reader_parse_feature(r, (uint64_t)bit, r->buf + s.offset, s.size,
		                                s.offset, err, errlen);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * perf.data version 1 ("PERFFILE", perf of Linux 2.6.31 to 2.6.39): the file
 * layout of today, whose byte order is told by the size of its attrs (one of
 * the first six sizes of perf_event_attr, plus the ids section) and whose
 * header may end before the features bitmap (72 bytes: no features), as perf
 * reads it (util/header.c, try_all_file_abis()).  Its pipe mode is not read.
 */
static int open_version1(struct rsp_reader *r, uint64_t hsize, char *err, size_t errlen)
{
	static const uint64_t abi[] = { PERF_ATTR_SIZE_VER0, PERF_ATTR_SIZE_VER1,
					PERF_ATTR_SIZE_VER2, PERF_ATTR_SIZE_VER3,
					PERF_ATTR_SIZE_VER4, PERF_ATTR_SIZE_VER5 };
	uint64_t attr_size = 0;
	bool known = false, swapped = false;

	if (r->size >= 24)
		memcpy(&attr_size, r->buf + 16, 8);
	for (size_t i = 0; i < sizeof(abi) / sizeof(abi[0]); i++) {
		known |= attr_size == abi[i] + sizeof(struct rsp_pf_section);
		swapped |= __builtin_bswap64(attr_size) == abi[i] + sizeof(struct rsp_pf_section);
	}
	if (!known && swapped)
		return rsp_errf(err, errlen, -ENOTSUP,
		                "perf.data version 1 from a big-endian machine: not supported");
	if (!known || (hsize != sizeof(struct rsp_pf_file_header) &&
		       hsize != offsetof(struct rsp_pf_file_header, adds_features)))
		return rsp_errf(err, errlen, -ENOTSUP,
		                "perf.data version 1 with a header rsp does not know (%llu bytes, "
		                "attributes of %llu): a pipe-mode file, or a corrupt one; not read",
		                (unsigned long long)hsize, (unsigned long long)attr_size);
	r->id_pos = r->is_pos = -1;
	return open_file_mode(r, (size_t)hsize, err, errlen);
}

int _rsp_reader_open_layout(struct rsp_reader *r, char *err, size_t errlen)
{
	uint64_t magic, hsize;

	if (r->size < 16)
		return rsp_errf(err, errlen, -EINVAL, "not a perf.data file: only %zu bytes",
		                r->size);
	memcpy(&magic, r->buf, 8);
	memcpy(&hsize, r->buf + 8, 8);
	if (magic == RSP_PF_MAGIC_SWAPPED)
		return rsp_errf(
		    err, errlen, -ENOTSUP,
		    "perf.data from a big-endian machine: not supported, convert it with "
		    "`perf inject` on that machine");
	if (!memcmp(r->buf, "PERFFILE", 8))
		return open_version1(r, hsize, err, errlen);
	if (magic != RSP_PF_MAGIC)
		return rsp_errf(err, errlen, -EINVAL, "not a perf.data file (no PERFILE2 magic)");
	r->id_pos = r->is_pos = -1;
	if (hsize == sizeof(struct rsp_pf_pipe_header)) {
		r->info.pipe_mode = true;
		r->data_start = hsize;
		r->data_end = r->size;
		return 0;
	}
	if (hsize != sizeof(struct rsp_pf_file_header))
		return rsp_errf(err, errlen, -EINVAL,
		                "unknown perf.data header size %llu: not a perf.data file, or one "
		                "from a perf newer than this reader",
		                (unsigned long long)hsize);
	return open_file_mode(r, sizeof(struct rsp_pf_file_header), err, errlen);
}

