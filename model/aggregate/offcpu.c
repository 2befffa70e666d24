/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Off-CPU time by stack with latency histograms: every sleep of the chosen
 * threads split at its wakeup into a blocked part and a runnable part
 * (preemptions are runnable throughout), filtered, and summed per (process,
 * stack).
 */
#include "aggregate/frames-private.h"
#include "rsp-offcpu.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ostack {
	size_t thread, last_thread;
	int pid;
	size_t n_threads;
	uint64_t count, total, max;
	uint64_t hist[RSP_OFFCPU_BUCKETS];
	struct _rsp_names names;
};

struct rsp_offcpu {
	struct rsp_trace *t;
	VEC(struct ostack) parts[2];
	struct _rsp_namecache *nc;
	struct rsp_offcpu_summary sum;
};

unsigned rsp_offcpu_bucket(uint64_t ns)
{
	return ns ? 64u - (unsigned)__builtin_clzll(ns) : 0;
}

uint64_t rsp_offcpu_bucket_value(unsigned b)
{
	return b == 0 ? 0 : b >= RSP_OFFCPU_BUCKETS ? UINT64_MAX : 1ull << (b - 1);
}

void rsp_offcpu_free(struct rsp_offcpu *o)
{
	if (!o)
		return;
	vec_free(&o->parts[0]);
	vec_free(&o->parts[1]);
	_rsp_namecache_free(o->nc);
	free(o);
}

struct build {
	struct rsp_offcpu *o;
	const struct rsp_offcpu_opts *opts;
	struct _rsp_u64map cache[2]; /* names id -> entry */
	struct _rsp_u64map inside; /* names id -> within matched (0/1) */
	struct rsp_strmap keys[2]; /* "pid|f;g;h" -> entry */
	char *buf;
	size_t cap;
};

static bool frame_matches(const char *pat, const char *name)
{
	const char *dot;
	char base[256];
	size_t n;

	if (!fnmatch(pat, name, 0))
		return true;
	dot = strchr(name, '.');
	if (!dot || dot == name || (size_t)(dot - name) >= sizeof(base))
		return false;
	n = (size_t)(dot - name);
	memcpy(base, name, n);
	base[n] = '\0';
	return !fnmatch(pat, base, 0);
}

static int is_within(struct build *b, const struct _rsp_names *nm, uint32_t id, bool *in)
{
	uint32_t v;

	if (!b->opts->within) {
		*in = true;
		return 0;
	}
	if (_rsp_u64map_get(&b->inside, id, &v)) {
		*in = v;
		return 0;
	}
	*in = false;
	for (size_t i = 0; i < nm->n && !*in; i++)
		*in = frame_matches(b->opts->within, nm->f[i].func);
	return _rsp_u64map_put(&b->inside, id, *in);
}

static int entry_of(struct build *b, int part, const struct _rsp_names *nm, uint32_t id,
		    size_t thread, int pid, uint32_t *out)
{
	VEC(struct ostack) *v = (void *)&b->o->parts[part];
	struct ostack e = { .thread = thread, .last_thread = RSP_NO_INDEX, .pid = pid };
	size_t len;
	bool added;
	int ret;

	if (_rsp_u64map_get(&b->cache[part], id, out))
		return 0;
	if (b->cap < 64) {
		char *g = realloc(b->buf, 256);

		if (!g)
			return -ENOMEM;
		b->buf = g;
		b->cap = 256;
	}
	len = (size_t)snprintf(b->buf, b->cap, "%d|", pid);
	if ((ret = _rsp_names_join(nm, &b->buf, &b->cap, &len, "_[k]")))
		return ret;
	if ((ret = rsp_strmap_get_or_add(&b->keys[part], b->buf, (uint32_t)v->n, out, &added)))
		return ret;
	e.names = *nm;
	if (added && !vec_push(v, e))
		return -ENOMEM;
	return _rsp_u64map_put(&b->cache[part], id, *out);
}

static int add(struct build *b, int part, const struct _rsp_names *nm, uint32_t id,
	       size_t thread, int pid, uint64_t d)
{
	struct ostack *e;
	uint32_t k;
	int ret;

	if (d < b->opts->min_ns) {
		b->o->sum.below_min++;
		return 0;
	}
	if ((ret = entry_of(b, part, nm, id, thread, pid, &k)))
		return ret;
	e = &b->o->parts[part].v[k];
	e->count++;
	e->total += d;
	if (d > e->max)
		e->max = d;
	e->hist[rsp_offcpu_bucket(d)]++;
	if (e->last_thread != thread) {
		e->last_thread = thread;
		e->n_threads++;
	}
	b->o->sum.count[part]++;
	b->o->sum.total_ns[part] += d;
	return 0;
}

static int do_thread(struct build *b, size_t th)
{
	struct rsp_thread_info ti;
	unsigned states = b->opts->states ? b->opts->states : RSP_WAIT_ALL;
	int ret;

	rsp_trace_thread(b->o->t, th, &ti);
	for (size_t i = 0; i < ti.n_slices; i++) {
		struct rsp_slice_info s;
		struct _rsp_names nm;
		uint32_t id;
		unsigned st;
		bool in;

		rsp_thread_slice(b->o->t, th, i, &s);
		if (s.kind != RSP_SLICE_SLEEP)
			continue;
		st = s.state == RSP_SLEEP_PREEMPTED	   ? RSP_WAIT_PREEMPTED :
		     s.state == RSP_SLEEP_UNINTERRUPTIBLE ? RSP_WAIT_D :
							    RSP_WAIT_S;
		/* a sleep: its blocked part (S or D), then runnable after its wakeup (R) */
		if (!(st & states) && (st == RSP_WAIT_PREEMPTED || !(states & RSP_WAIT_RUNNABLE)))
			continue;
		if (s.flags & (RSP_SLICE_UNKNOWN_START | RSP_SLICE_OPEN_END | RSP_SLICE_LOST) ||
		    s.end_ns <= s.start_ns) {
			b->o->sum.left_out++;
			continue;
		}
		if ((ret = _rsp_namecache_get(b->o->nc, s.stack, ti.pid, s.start_ns, &nm, &id)) ||
		    (ret = is_within(b, &nm, id, &in)))
			return ret;
		if (!in) {
			b->o->sum.outside++;
			continue;
		}
		if (st == RSP_WAIT_PREEMPTED) {
			ret = add(b, RSP_OFFCPU_RUNNABLE, &nm, id, th, ti.pid, s.end_ns - s.start_ns);
		} else {
			uint64_t w = s.wake_ns > s.start_ns && s.wake_ns < s.end_ns ? s.wake_ns :
										      s.end_ns;

			ret = 0;
			if (st & states)
				ret = add(b, RSP_OFFCPU_BLOCKED, &nm, id, th, ti.pid, w - s.start_ns);
			if (!ret && s.end_ns > w && (states & RSP_WAIT_RUNNABLE))
				ret = add(b, RSP_OFFCPU_RUNNABLE, &nm, id, th, ti.pid, s.end_ns - w);
		}
		if (ret)
			return ret;
	}
	return 0;
}

static int cmp_total(const void *x, const void *y)
{
	const struct ostack *a = x, *b = y;

	if (a->total != b->total)
		return a->total < b->total ? 1 : -1;
	if (a->count != b->count)
		return a->count < b->count ? 1 : -1;
	return a->pid - b->pid;
}

int rsp_offcpu_build(struct rsp_trace *t, const struct rsp_offcpu_opts *opts,
		     struct rsp_offcpu **out, char *err, size_t errlen)
{
	static const struct rsp_offcpu_opts none;
	struct build b = { .opts = opts ? opts : &none };
	uint8_t *sel = NULL;
	int ret = -ENOMEM;

	*out = NULL;
	b.o = calloc(1, sizeof(*b.o));
	if (!b.o)
		goto out;
	b.o->t = t;
	b.o->nc = _rsp_namecache_new(t);
	sel = rsp_thread_filter_apply(t, &b.opts->threads);
	if (!b.o->nc || !sel)
		goto out;
	for (size_t th = 0; th < rsp_trace_n_threads(t); th++) {
		if (!sel[th])
			continue;
		b.o->sum.n_threads++;
		if ((ret = do_thread(&b, th)))
			goto out;
	}
	for (int p = 0; p < 2; p++)
		if (b.o->parts[p].n > 1)
			qsort(b.o->parts[p].v, b.o->parts[p].n, sizeof(struct ostack), cmp_total);
	*out = b.o;
	b.o = NULL;
	ret = 0;
out:
	if (ret)
		snprintf(err, errlen, "off-CPU analysis: %s", strerror(-ret));
	for (int p = 0; p < 2; p++) {
		_rsp_u64map_free(&b.cache[p]);
		rsp_strmap_free(&b.keys[p]);
	}
	_rsp_u64map_free(&b.inside);
	free(b.buf);
	free(sel);
	rsp_offcpu_free(b.o);
	return ret;
}

void rsp_offcpu_get_summary(const struct rsp_offcpu *o, struct rsp_offcpu_summary *out)
{
	*out = o->sum;
}

size_t rsp_offcpu_n_stacks(const struct rsp_offcpu *o, enum rsp_offcpu_part part)
{
	return (unsigned)part < 2 ? o->parts[part].n : 0;
}

void rsp_offcpu_stack_info(const struct rsp_offcpu *o, enum rsp_offcpu_part part, size_t i,
			   struct rsp_offcpu_stack *out)
{
	const struct ostack *e = &o->parts[part].v[i];
	size_t leader = rsp_trace_find_thread(o->t, e->pid, UINT64_MAX);
	struct rsp_thread_info ti;

	memset(out, 0, sizeof(*out));
	rsp_trace_thread(o->t, leader != RSP_NO_INDEX ? leader : e->thread, &ti);
	if (ti.pid != e->pid)
		rsp_trace_thread(o->t, e->thread, &ti);
	out->thread = e->thread;
	out->pid = e->pid;
	out->comm = ti.comm;
	out->n_threads = e->n_threads;
	out->count = e->count;
	out->total_ns = e->total;
	out->max_ns = e->max;
	memcpy(out->hist, e->hist, sizeof(out->hist));
	out->n_frames = e->names.n;
}

void rsp_offcpu_stack_frame(const struct rsp_offcpu *o, enum rsp_offcpu_part part, size_t i,
			    size_t k, struct rsp_named_frame *out)
{
	const struct ostack *e = &o->parts[part].v[i];

	if (k < e->names.n) {
		*out = e->names.f[k];
	} else {
		out->func = "[unknown]";
		out->kernel = false;
	}
}
