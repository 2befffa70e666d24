/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The latency accounting: every wait of a trace split into intervals
 * (blocked S/D until the wakeup, runnable after it, or preempted), each
 * given a cause by the rules, summed system-wide, per process and per thread;
 * and the distinct stacks behind them for LatencyTOP's log.
 */
#include "aggregate/frames-private.h"
#include "rsp-causes.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UNMATCHED_NAME "[no rule matched]"

struct cell {
	uint64_t count, total, max;
};

struct scope {
	enum rsp_scope_kind kind;
	int pid, tid;
	size_t comm_thread; /* whose name it has; RSP_NO_INDEX: the system */
	size_t parent;
	size_t n_threads;
	uint64_t count, total;
	struct cell *cells; /* n_causes + 1: the last is "no rule matched" */
	uint32_t *rows;
	size_t n_rows;
};

struct lstack {
	uint32_t cause; /* n_causes: unmatched */
	unsigned line;
	enum rsp_wait_state state;
	struct cell c;
	size_t thread; /* the first thread it was seen in */
	struct _rsp_names names;
};

struct rsp_latency {
	struct rsp_trace *t;
	size_t n_causes;
	char **cause_names;
	VEC(struct scope) scopes;
	VEC(struct lstack) stacks;
	struct _rsp_namecache *nc; /* owns the frames the stacks point at */
	struct rsp_latency_summary sum;
};

void rsp_latency_free(struct rsp_latency *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->scopes.n; i++) {
		free(l->scopes.v[i].cells);
		free(l->scopes.v[i].rows);
	}
	vec_free(&l->scopes);
	vec_free(&l->stacks);
	for (size_t i = 0; l->cause_names && i < l->n_causes; i++)
		free(l->cause_names[i]);
	free(l->cause_names);
	_rsp_namecache_free(l->nc);
	free(l);
}

/* ---- building ------------------------------------------------------------------------------ */

struct acct {
	struct rsp_trace *t;
	const struct rsp_causes *c;
	struct rsp_latency *l;
	struct _rsp_u64map match; /* (names id, state, woken) -> stack entry */
	struct rsp_strmap stack_keys; /* "state|cause|f;g;h" -> stack entry */
	char *buf;
	size_t cap;
};

static int state_bit(enum rsp_wait_state s)
{
	return s == RSP_WAIT_S ? 0 : s == RSP_WAIT_D ? 1 : s == RSP_WAIT_RUNNABLE ? 2 : 3;
}

/* The log entry (and so the cause) of an interval with these names. */
static int classify(struct acct *a, const struct _rsp_names *nm, uint32_t id,
		    enum rsp_wait_state st, int woken, size_t thread, uint32_t *out)
{
	uint64_t key = (uint64_t)id << 8 | (uint64_t)state_bit(st) << 4 |
		       (uint64_t)(woken >= 0 && woken < 16 ? woken : 0);
	struct lstack e = { 0 };
	size_t len;
	unsigned line;
	size_t cause;
	uint32_t v;
	bool added;
	int ret;

	if (_rsp_u64map_get(&a->match, key, out))
		return 0;
	cause = rsp_causes_match(a->c, nm->f, nm->n, st, woken, &line);
	e.cause = cause == RSP_NO_INDEX ? (uint32_t)a->l->n_causes : (uint32_t)cause;
	e.line = line;
	e.state = st;
	e.thread = thread;
	e.names = *nm;
	if (a->cap < 64) {
		char *g = realloc(a->buf, 256);

		if (!g)
			return -ENOMEM;
		a->buf = g;
		a->cap = 256;
	}
	len = (size_t)snprintf(a->buf, a->cap, "%d|%u|", state_bit(st), e.cause);
	if ((ret = _rsp_names_join(nm, &a->buf, &a->cap, &len, NULL)))
		return ret;
	if ((ret = rsp_strmap_get_or_add(&a->stack_keys, a->buf, (uint32_t)a->l->stacks.n, &v,
	                                 &added)))
		return ret;
	if (added && !vec_push(&a->l->stacks, e))
		return -ENOMEM;
	if ((ret = _rsp_u64map_put(&a->match, key, v)))
		return ret;
	*out = v;
	return 0;
}

static void add_cell(struct cell *c, uint64_t d)
{
	c->count++;
	c->total += d;
	if (d > c->max)
		c->max = d;
}

static int scope_new(struct rsp_latency *l, enum rsp_scope_kind kind, int pid, int tid,
		     size_t comm_thread, size_t *out)
{
	struct scope s = { .kind = kind, .pid = pid, .tid = tid, .comm_thread = comm_thread,
			   .parent = RSP_NO_INDEX };

	s.cells = calloc(l->n_causes + 1, sizeof(*s.cells));
	if (!s.cells || !vec_push(&l->scopes, s)) {
		free(s.cells);
		return -ENOMEM;
	}
	*out = l->scopes.n - 1;
	return 0;
}

struct piece {
	enum rsp_wait_state st;
	uint64_t s, e;
};

static int account_thread(struct acct *a, size_t th, size_t proc_scope, bool per_thread,
			  unsigned states)
{
	struct rsp_latency *l = a->l;
	struct rsp_thread_info ti;
	size_t thr_scope = RSP_NO_INDEX;
	bool any = false;
	int ret;

	rsp_trace_thread(a->t, th, &ti);
	for (size_t i = 0; i < ti.n_slices; i++) {
		struct rsp_slice_info s;
		struct piece iv[2];
		size_t niv = 0;
		struct _rsp_names nm;
		uint32_t id;
		int woken = 0;

		rsp_thread_slice(a->t, th, i, &s);
		if (s.kind != RSP_SLICE_SLEEP)
			continue;
		if (s.flags & (RSP_SLICE_UNKNOWN_START | RSP_SLICE_OPEN_END | RSP_SLICE_LOST) ||
		    s.end_ns <= s.start_ns) {
			l->sum.left_out++;
			continue;
		}
		if (s.link != RSP_NO_INDEX) {
			struct rsp_link_info li;

			rsp_trace_link(a->t, s.link, &li);
			woken = (int)li.kind;
		}
		if (s.state == RSP_SLEEP_PREEMPTED) {
			iv[niv++] = (struct piece){ RSP_WAIT_PREEMPTED, s.start_ns, s.end_ns };
		} else {
			uint64_t w = s.wake_ns > s.start_ns && s.wake_ns < s.end_ns ? s.wake_ns :
										      s.end_ns;

			iv[niv++] = (struct piece){ s.state == RSP_SLEEP_UNINTERRUPTIBLE ? RSP_WAIT_D :
											  RSP_WAIT_S,
						    s.start_ns, w };
			if (s.end_ns > w)
				iv[niv++] = (struct piece){ RSP_WAIT_RUNNABLE, w, s.end_ns };
		}
		if ((ret = _rsp_namecache_get(l->nc, s.stack, ti.pid, s.start_ns, &nm, &id)))
			return ret;
		for (size_t k = 0; k < niv; k++) {
			uint64_t d = iv[k].e - iv[k].s;
			struct lstack *e;
			uint32_t si;

			if (!(iv[k].st & states))
				continue;
			if ((ret = classify(a, &nm, id, iv[k].st, woken, th, &si)))
				return ret;
			e = &l->stacks.v[si];
			add_cell(&e->c, d);
			if (per_thread && thr_scope == RSP_NO_INDEX) {
				if ((ret = scope_new(l, RSP_SCOPE_THREAD, ti.pid, ti.tid, th,
						     &thr_scope)))
					return ret;
				l->scopes.v[thr_scope].parent = proc_scope;
				l->scopes.v[thr_scope].n_threads = 1;
			}
			add_cell(&l->scopes.v[0].cells[e->cause], d);
			add_cell(&l->scopes.v[proc_scope].cells[e->cause], d);
			if (thr_scope != RSP_NO_INDEX)
				add_cell(&l->scopes.v[thr_scope].cells[e->cause], d);
			l->sum.intervals++;
			l->sum.total_ns += d;
			if (e->cause == l->n_causes) {
				l->sum.unmatched++;
				l->sum.unmatched_ns += d;
			} else {
				l->sum.matched++;
			}
			any = true;
		}
	}
	if (any)
		l->scopes.v[proc_scope].n_threads++;
	return 0;
}

/* ---- rows and order ----------------------------------------------------------------------------- */

static uint64_t key_of(const struct cell *c, enum rsp_latency_sort by)
{
	switch (by) {
	case RSP_LATENCY_BY_COUNT:
		return c->count;
	case RSP_LATENCY_BY_AVG:
		return c->count ? c->total / c->count : 0;
	case RSP_LATENCY_BY_MAX:
		return c->max;
	case RSP_LATENCY_BY_TOTAL:
		break;
	}
	return c->total;
}

struct row_order {
	const struct cell *cells;
	enum rsp_latency_sort by;
};

static int cmp_rows(const void *x, const void *y, void *ctx)
{
	const struct row_order *o = ctx;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	uint64_t ka = key_of(&o->cells[a], o->by), kb = key_of(&o->cells[b], o->by);

	if (ka != kb)
		return ka < kb ? 1 : -1;
	if (o->cells[a].total != o->cells[b].total)
		return o->cells[a].total < o->cells[b].total ? 1 : -1;
	return a < b ? -1 : a > b;
}

void rsp_latency_sort(struct rsp_latency *l, enum rsp_latency_sort by)
{
	for (size_t i = 0; i < l->scopes.n; i++) {
		struct scope *s = &l->scopes.v[i];
		struct row_order o = { s->cells, by };

		if (s->n_rows > 1)
			qsort_r(s->rows, s->n_rows, sizeof(*s->rows), cmp_rows, &o);
	}
}

static int make_rows(struct rsp_latency *l)
{
	for (size_t i = 0; i < l->scopes.n; i++) {
		struct scope *s = &l->scopes.v[i];

		s->rows = calloc(l->n_causes + 1, sizeof(*s->rows));
		if (!s->rows)
			return -ENOMEM;
		s->count = s->total = 0;
		for (size_t c = 0; c <= l->n_causes; c++) {
			if (!s->cells[c].count)
				continue;
			s->rows[s->n_rows++] = (uint32_t)c;
			s->count += s->cells[c].count;
			s->total += s->cells[c].total;
		}
	}
	rsp_latency_sort(l, RSP_LATENCY_BY_TOTAL);
	return 0;
}

static int cmp_scopes(const void *x, const void *y, void *ctx)
{
	const struct scope *base = ctx;
	const struct scope *a = &base[*(const size_t *)x];
	const struct scope *b = &base[*(const size_t *)y];

	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (a->kind == RSP_SCOPE_THREAD && a->parent != b->parent)
		return a->parent < b->parent ? -1 : 1; /* parents already in final order */
	if (a->total != b->total)
		return a->total < b->total ? 1 : -1;
	return a->tid != b->tid ? (a->tid < b->tid ? -1 : 1) : a->pid - b->pid;
}

/* system, processes by total, threads by process then total */
static int order_scopes(struct rsp_latency *l)
{
	size_t n = l->scopes.n;
	size_t *ord = malloc(n * sizeof(*ord)), *pos = malloc(n * sizeof(*pos));
	struct scope *sorted = malloc(n * sizeof(*sorted));

	if (!ord || !pos || !sorted) {
		free(ord);
		free(pos);
		free(sorted);
		return -ENOMEM;
	}
	/* processes first, to know their final places */
	for (size_t i = 0; i < n; i++)
		ord[i] = i;
	/* threads compare by the parent's final place: sort processes first */
	{
		size_t np = 0;

		for (size_t i = 0; i < n; i++)
			if (l->scopes.v[i].kind != RSP_SCOPE_THREAD)
				ord[np++] = i;
		qsort_r(ord, np, sizeof(*ord), cmp_scopes, l->scopes.v);
		for (size_t i = 0; i < np; i++)
			pos[ord[i]] = i;
		for (size_t i = 0; i < n; i++)
			if (l->scopes.v[i].kind == RSP_SCOPE_THREAD)
				l->scopes.v[i].parent = pos[l->scopes.v[i].parent];
		for (size_t i = 0, k = np; i < n; i++)
			if (l->scopes.v[i].kind == RSP_SCOPE_THREAD)
				ord[k++] = i;
		qsort_r(ord + np, n - np, sizeof(*ord), cmp_scopes, l->scopes.v);
	}
	for (size_t i = 0; i < n; i++)
		sorted[i] = l->scopes.v[ord[i]];
	memcpy(l->scopes.v, sorted, n * sizeof(*sorted));
	free(ord);
	free(pos);
	free(sorted);
	return 0;
}

static int cmp_stacks(const void *x, const void *y)
{
	const struct lstack *a = x, *b = y;

	if (a->c.total != b->c.total)
		return a->c.total < b->c.total ? 1 : -1;
	return a->c.count < b->c.count ? 1 : a->c.count > b->c.count ? -1 : 0;
}

int rsp_latency_account(struct rsp_trace *t, const struct rsp_causes *c,
			const struct rsp_latency_opts *opts, struct rsp_latency **out, char *err,
			size_t errlen)
{
	struct acct a = { .t = t, .c = c };
	struct _rsp_u64map procs = { 0 };
	struct rsp_latency *l;
	size_t nt = rsp_trace_n_threads(t), sys;
	bool per_thread = opts && opts->per_thread;
	unsigned states = opts && opts->states ? opts->states : RSP_WAIT_ALL;
	int ret = -ENOMEM;

	*out = NULL;
	l = calloc(1, sizeof(*l));
	if (!l)
		goto fail;
	a.l = l;
	l->t = t;
	l->n_causes = rsp_causes_n_causes(c);
	l->cause_names = calloc(l->n_causes + 1, sizeof(char *));
	l->nc = _rsp_namecache_new(t);
	if (!l->cause_names || !l->nc)
		goto fail;
	for (size_t i = 0; i < l->n_causes; i++)
		if (!(l->cause_names[i] = strdup(rsp_causes_name(c, i))))
			goto fail;
	if ((ret = scope_new(l, RSP_SCOPE_SYSTEM, -1, -1, RSP_NO_INDEX, &sys)))
		goto fail;
	for (size_t th = 0; th < nt; th++) {
		struct rsp_thread_info ti;
		uint32_t ps;

		rsp_trace_thread(t, th, &ti);
		if (ti.tid == 0)
			continue; /* idle */
		if (!_rsp_u64map_get(&procs, (uint32_t)ti.pid, &ps)) {
			size_t leader = rsp_trace_find_thread(t, ti.pid, ti.birth_ns);
			size_t s;

			if (leader == RSP_NO_INDEX)
				leader = th;
			if ((ret = scope_new(l, RSP_SCOPE_PROCESS, ti.pid, -1, leader, &s)))
				goto fail;
			ps = (uint32_t)s;
			if ((ret = _rsp_u64map_put(&procs, (uint32_t)ti.pid, ps)))
				goto fail;
		}
		if ((ret = account_thread(&a, th, ps, per_thread, states)))
			goto fail;
	}
	l->scopes.v[0].n_threads = 0;
	for (size_t i = 1; i < l->scopes.n; i++)
		if (l->scopes.v[i].kind == RSP_SCOPE_PROCESS)
			l->scopes.v[0].n_threads += l->scopes.v[i].n_threads;
	/* processes without a wait are no scope of interest */
	{
		size_t k = 1, *remap = calloc(l->scopes.n, sizeof(size_t));

		if (!remap) {
			ret = -ENOMEM;
			goto fail;
		}
		for (size_t i = 1; i < l->scopes.n; i++) {
			struct scope *s = &l->scopes.v[i];
			bool any = false;

			for (size_t ci = 0; ci <= l->n_causes && !any; ci++)
				any = s->cells[ci].count > 0;
			if (!any) {
				free(s->cells);
				remap[i] = RSP_NO_INDEX;
				continue;
			}
			remap[i] = k;
			l->scopes.v[k++] = *s;
		}
		l->scopes.n = k;
		for (size_t i = 1; i < l->scopes.n; i++)
			if (l->scopes.v[i].kind == RSP_SCOPE_THREAD)
				l->scopes.v[i].parent = remap[l->scopes.v[i].parent];
		free(remap);
	}
	if ((ret = make_rows(l)) || (ret = order_scopes(l)))
		goto fail;
	if (l->stacks.n > 1)
		qsort(l->stacks.v, l->stacks.n, sizeof(*l->stacks.v), cmp_stacks);
	_rsp_u64map_free(&a.match);
	_rsp_u64map_free(&procs);
	rsp_strmap_free(&a.stack_keys);
	free(a.buf);
	*out = l;
	return 0;
fail:
	snprintf(err, errlen, "accounting the waits: %s", strerror(-ret));
	_rsp_u64map_free(&a.match);
	_rsp_u64map_free(&procs);
	rsp_strmap_free(&a.stack_keys);
	free(a.buf);
	rsp_latency_free(l);
	return ret;
}

/* ---- queries -------------------------------------------------------------------------------------- */

void rsp_latency_get_summary(const struct rsp_latency *l, struct rsp_latency_summary *out)
{
	*out = l->sum;
}

size_t rsp_latency_n_scopes(const struct rsp_latency *l)
{
	return l->scopes.n;
}

void rsp_latency_scope(const struct rsp_latency *l, size_t i, struct rsp_scope_info *out)
{
	const struct scope *s = &l->scopes.v[i];

	memset(out, 0, sizeof(*out));
	out->kind = s->kind;
	out->pid = s->pid;
	out->tid = s->tid;
	out->comm = "system";
	if (s->comm_thread != RSP_NO_INDEX) {
		struct rsp_thread_info ti;

		rsp_trace_thread(l->t, s->comm_thread, &ti);
		out->comm = ti.comm;
	}
	out->parent = s->parent;
	out->n_threads = s->n_threads;
	out->count = s->count;
	out->total_ns = s->total;
	out->n_rows = s->n_rows;
}

static const char *cause_name(const struct rsp_latency *l, uint32_t c)
{
	return c < l->n_causes ? l->cause_names[c] : UNMATCHED_NAME;
}

void rsp_latency_row(const struct rsp_latency *l, size_t scope, size_t i,
		     struct rsp_latency_row *out)
{
	const struct scope *s = &l->scopes.v[scope];
	uint32_t c = s->rows[i];

	out->cause = c < l->n_causes ? c : RSP_NO_INDEX;
	out->name = cause_name(l, c);
	out->count = s->cells[c].count;
	out->total_ns = s->cells[c].total;
	out->max_ns = s->cells[c].max;
}

size_t rsp_latency_n_stacks(const struct rsp_latency *l)
{
	return l->stacks.n;
}

void rsp_latency_stack_info(const struct rsp_latency *l, size_t i, struct rsp_latency_stack *out)
{
	const struct lstack *e = &l->stacks.v[i];

	memset(out, 0, sizeof(*out));
	out->cause = e->cause < l->n_causes ? e->cause : RSP_NO_INDEX;
	out->name = cause_name(l, e->cause);
	out->line = e->line;
	out->state = e->state;
	out->count = e->c.count;
	out->total_ns = e->c.total;
	out->max_ns = e->c.max;
	out->thread = e->thread;
	out->n_frames = e->names.n;
}

void rsp_latency_stack_frame(const struct rsp_latency *l, size_t i, size_t k,
			     struct rsp_named_frame *out)
{
	const struct lstack *e = &l->stacks.v[i];

	if (k < e->names.n) {
		*out = e->names.f[k];
	} else {
		out->func = "[unknown]";
		out->kernel = false;
	}
}
