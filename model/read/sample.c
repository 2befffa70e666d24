/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A record's fields by perf's sample_type rules: the sample itself (time,
 * ids, callchain, raw tracepoint data, registers, the user-stack copy), and
 * the sample_id_all trailer of side-band records.  Every length is checked.
 */
#include "read/reader-private.h"

#include <errno.h>
#include <string.h>

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
		if (!_rsp_reader_id_get(r, id) && r->trailer_uniform)
			return &r->attrs[0];
	}
	return _rsp_reader_id_get(r, id);
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

/*
 * A sample's fields zeroed one by one: a memset of the struct is a `rep stos`
 * here, and the loads of the fields just after it wait for it to retire
 * (loading's walk spent a third of its first stage so).
 */
static inline void sample_clear(struct rsp_sample *s, const struct rsp_rattr *ra)
{
	s->attr = ra;
	s->id = s->ip = s->time = s->addr = s->period = 0;
	s->pid = s->tid = s->cpu = 0;
	s->callchain = NULL;
	s->callchain_nr = 0;
	s->raw = NULL;
	s->raw_size = 0;
	s->regs_abi = s->regs_mask = 0;
	s->regs = NULL;
	s->stack = NULL;
	s->stack_size = 0;
	s->has_time = s->has_cpu = s->has_tid = false;
}
_Static_assert(sizeof(void *) != 8 || sizeof(struct rsp_sample) == 144,
	       "a field added to struct rsp_sample is cleared in sample_clear()");

/*
 * A sample of fixed words (and RAW after them): each read at its place
 * (fixed_layout(), layout.c), as the walk of sample_type below reads it.  A
 * tracepoint without a stack is most records of a busy machine's file.
 */
static inline int parse_fixed(const struct rsp_rattr *ra, const struct perf_event_header *h,
			      struct rsp_sample *s)
{
	const unsigned char *p = (const unsigned char *)(h + 1);
	size_t avail = h->size > sizeof(*h) ? h->size - sizeof(*h) : 0, at = 8u * ra->fixed_words;
	uint64_t v;
	uint32_t sz;

	if (avail < at)
		return -EINVAL;
	if (ra->id_w >= 0)
		memcpy(&s->id, p + 8 * ra->id_w, 8);
	if (ra->ip_w >= 0)
		memcpy(&s->ip, p + 8 * ra->ip_w, 8);
	if (ra->tid_w >= 0) {
		memcpy(&v, p + 8 * ra->tid_w, 8);
		s->pid = (uint32_t)v;
		s->tid = (uint32_t)(v >> 32);
		s->has_tid = true;
	}
	if (ra->time_pos >= 0) {
		memcpy(&s->time, p + 8 * ra->time_pos, 8);
		s->has_time = true;
	}
	if (ra->addr_w >= 0)
		memcpy(&s->addr, p + 8 * ra->addr_w, 8);
	if (ra->cpu_pos >= 0) {
		memcpy(&v, p + 8 * ra->cpu_pos, 8);
		s->cpu = (uint32_t)v;
		s->has_cpu = true;
	}
	if (ra->period_w >= 0)
		memcpy(&s->period, p + 8 * ra->period_w, 8);
	if (!(ra->attr.sample_type & PERF_SAMPLE_RAW))
		return 0;
	if (avail - at < 4)
		return -EINVAL;
	memcpy(&sz, p + at, 4);
	if (sz > avail - at - 4)
		return -EINVAL;
	s->raw = p + at + 4;
	s->raw_size = sz;
	return 0;
}

static inline __attribute__((always_inline)) int
parse_sample(const struct rsp_reader *r, const struct perf_event_header *h, struct rsp_sample *s,
	     bool dyn_size)
{
	const struct rsp_rattr *ra = rsp_reader_attr_of(r, h);
	struct cur c = {(const unsigned char *)(h + 1), (const unsigned char *)h + h->size, false};
	uint64_t st, v;

	sample_clear(s, ra);
	if (!ra)
		return -ENOENT;
	if (ra->fixed_words)
		return parse_fixed(ra, h, s);
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

uint64_t rsp_reader_sample_stack_filled(const struct rsp_sample *s)
{
	uint64_t dyn;

	if (!s->stack)
		return 0;
	/* dyn_size right after the copy: the fast parse checked it is there */
	memcpy(&dyn, (const unsigned char *)s->stack + s->stack_size, sizeof(dyn));
	return dyn <= s->stack_size ? dyn : s->stack_size;
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
