/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Collapsed stacks for flame graphs: see rsp-folded.h for the five kinds. */
#include "aggregate/frames-private.h"
#include "rsp-folded.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fline {
	char *stack;
	uint64_t value;
};

struct rsp_folded {
	VEC(struct fline) lines;
};

static const char *const kind_names[] = {
	[RSP_FOLDED_CPU] = "cpu",
	[RSP_FOLDED_OFFCPU] = "offcpu",
	[RSP_FOLDED_HOTCOLD] = "hotcold",
	[RSP_FOLDED_OFFWAKE] = "offwake",
	[RSP_FOLDED_PSEUDO] = "pseudo",
};

const char *rsp_folded_kind_name(enum rsp_folded_kind k)
{
	return (unsigned)k < sizeof(kind_names) / sizeof(kind_names[0]) ? kind_names[k] : "?";
}

int rsp_folded_kind_parse(const char *s, enum rsp_folded_kind *out)
{
	for (unsigned k = 0; k < sizeof(kind_names) / sizeof(kind_names[0]); k++) {
		if (!strcmp(s, kind_names[k])) {
			*out = (enum rsp_folded_kind)k;
			return 0;
		}
	}
	return -EINVAL;
}

void rsp_folded_free(struct rsp_folded *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->lines.n; i++)
		free(f->lines.v[i].stack);
	vec_free(&f->lines);
	free(f);
}

size_t rsp_folded_n_lines(const struct rsp_folded *f)
{
	return f->lines.n;
}

void rsp_folded_line(const struct rsp_folded *f, size_t i, const char **stack, uint64_t *value)
{
	*stack = f->lines.v[i].stack;
	*value = f->lines.v[i].value;
}

/* ---- building ---------------------------------------------------------------------------- */

/* where a frame of the line being built starts, and what it is */
struct frec {
	size_t off;
	enum rsp_folded_frame_kind kind;
	const struct rsp_named_frame *nf;
};

struct fb {
	struct rsp_trace *t;
	struct rsp_analysis *a;
	const struct rsp_folded_opts *o;
	struct _rsp_namecache *nc;
	struct rsp_strmap map; /* stack -> index in vals */
	VEC(uint64_t) vals;
	char *buf;
	size_t cap, len;
	/* the line's frames; for rsp_folded_walk()'s visitor (NULL: adding up) */
	VEC(struct frec) fr;
	rsp_folded_visit_fn visit;
	void *ctx;
	enum rsp_folded_part part;
	size_t thread;
	VEC(struct rsp_folded_frame) vf;
	char *scratch;
	size_t scap;
	int stopped; /* the visitor's non-zero value */
};

static int grow(struct fb *b, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 512;
		char *g;

		while (b->len + n + 1 > cap)
			cap *= 2;
		g = realloc(b->buf, cap);
		if (!g)
			return -ENOMEM;
		b->buf = g;
		b->cap = cap;
	}
	return 0;
}

/* one frame: ';' and line breaks would break the format */
static int frame_k(struct fb *b, const char *name, const char *suffix,
		   enum rsp_folded_frame_kind kind, const struct rsp_named_frame *nf)
{
	size_t n = strlen(name), m = suffix ? strlen(suffix) : 0;
	struct frec r = { .kind = kind, .nf = nf };

	if (grow(b, n + m + 1))
		return -ENOMEM;
	if (b->len)
		b->buf[b->len++] = ';';
	r.off = b->len;
	if (b->visit && !vec_push(&b->fr, r))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		char c = name[i];

		b->buf[b->len++] = c == ';' ? ':' : (c == '\n' || c == '\r' || c == '\t') ? ' ' : c;
	}
	memcpy(b->buf + b->len, suffix ? suffix : "", m);
	b->len += m;
	b->buf[b->len] = '\0';
	return 0;
}

static int frame(struct fb *b, const char *name, const char *suffix)
{
	return frame_k(b, name, suffix, RSP_FOLDED_FRAME_NOTE, NULL);
}

/* the first frame: the thread's name */
static int thread_frame(struct fb *b, const char *comm)
{
	return frame_k(b, comm, NULL, RSP_FOLDED_FRAME_THREAD, NULL);
}

static int part_frame(struct fb *b, const char *name)
{
	return frame_k(b, name, NULL, RSP_FOLDED_FRAME_PART, NULL);
}

static void reset(struct fb *b)
{
	b->len = 0;
	b->fr.n = 0;
	if (b->buf)
		b->buf[0] = '\0';
}

/* names root first */
static int frames_root_first(struct fb *b, const struct _rsp_names *nm, const char *ksuffix)
{
	for (size_t i = nm->n; i-- > 0;)
		if (frame_k(b, nm->f[i].func, nm->f[i].kernel ? ksuffix : NULL,
			    RSP_FOLDED_FRAME_STACK, &nm->f[i]))
			return -ENOMEM;
	return 0;
}

static int frames_leaf_first(struct fb *b, const struct _rsp_names *nm, const char *ksuffix,
			     const char *suffix)
{
	for (size_t i = 0; i < nm->n; i++)
		if (frame_k(b, nm->f[i].func, nm->f[i].kernel && ksuffix ? ksuffix : suffix,
			    RSP_FOLDED_FRAME_STACK, &nm->f[i]))
			return -ENOMEM;
	return 0;
}

/* the line as the visitor sees it: each frame's name a string of its own */
static int visit_line(struct fb *b, uint64_t value)
{
	struct rsp_folded_entry e = {
		.stack = b->buf,
		.part = b->part,
		.thread = b->thread,
		.value = value,
	};

	if (b->len + 1 > b->scap) {
		char *g = realloc(b->scratch, b->cap);

		if (!g)
			return -ENOMEM;
		b->scratch = g;
		b->scap = b->cap;
	}
	memcpy(b->scratch, b->buf, b->len + 1);
	b->vf.n = 0;
	for (size_t i = 0; i < b->fr.n; i++) {
		struct rsp_folded_frame f = {
			.name = b->scratch + b->fr.v[i].off,
			.kind = b->fr.v[i].kind,
			.nf = b->fr.v[i].nf,
		};

		if (b->fr.v[i].off)
			b->scratch[b->fr.v[i].off - 1] = '\0'; /* the ';' before it */
		if (!vec_push(&b->vf, f))
			return -ENOMEM;
	}
	e.frames = b->vf.v;
	e.n_frames = b->vf.n;
	b->stopped = b->visit(&e, b->ctx);
	return b->stopped ? -ECANCELED : 0; /* the walk returns the visitor's value */
}

static int emit(struct fb *b, uint64_t value)
{
	uint32_t idx;
	bool added;

	if (!b->len && frame(b, "[unknown]", NULL))
		return -ENOMEM;
	if (b->visit)
		return visit_line(b, value);
	if (rsp_strmap_get_or_add(&b->map, b->buf, (uint32_t)b->vals.n, &idx, &added))
		return -ENOMEM;
	if (added && !vec_push(&b->vals, 0))
		return -ENOMEM;
	b->vals.v[idx] += value;
	return 0;
}

static const char *ksuf(const struct fb *b)
{
	return b->o->mark_frames ? "_[k]" : NULL;
}

static bool unknown_length(const struct rsp_slice_info *s)
{
	return (s->flags & (RSP_SLICE_UNKNOWN_START | RSP_SLICE_OPEN_END | RSP_SLICE_LOST)) ||
	       s->end_ns <= s->start_ns;
}

static int stack_frames(struct fb *b, uint32_t stack, int pid, uint64_t time, const char *none)
{
	struct _rsp_names nm;
	uint32_t id;

	if (_rsp_namecache_get(b->nc, stack, pid, time, &nm, &id))
		return -ENOMEM;
	if (!nm.n)
		return frame(b, none, NULL);
	return frames_root_first(b, &nm, ksuf(b));
}

static int cpu_thread(struct fb *b, size_t th, const struct rsp_thread_info *ti)
{
	for (size_t i = 0; i < ti->n_samples; i++) {
		struct rsp_sample_info s;

		rsp_thread_sample(b->t, th, i, &s);
		reset(b);
		b->part = RSP_FOLDED_PART_SAMPLE;
		if (thread_frame(b, ti->comm) ||
		    stack_frames(b, s.stack, ti->pid, s.time_ns, "[no stack]") || emit(b, 1))
			return -ENOMEM;
	}
	return 0;
}

static int hotcold_run(struct fb *b, size_t th, const struct rsp_thread_info *ti,
		       const struct rsp_slice_info *s)
{
	uint64_t d = s->end_ns - s->start_ns;

	b->part = RSP_FOLDED_PART_ON_CPU;
	if (!s->n_samples) {
		reset(b);
		return thread_frame(b, ti->comm) || part_frame(b, "[on-cpu]") ||
			       frame(b, "[unsampled]", NULL) || emit(b, d) ?
			       -ENOMEM :
			       0;
	}
	/* the run's time divided among its samples (the paper's rule) */
	for (size_t k = 0; k < s->n_samples; k++) {
		struct rsp_sample_info sa;
		uint64_t share = d / s->n_samples + (k == 0 ? d % s->n_samples : 0);

		rsp_thread_sample(b->t, th, s->first_sample + k, &sa);
		reset(b);
		if (thread_frame(b, ti->comm) || part_frame(b, "[on-cpu]") ||
		    stack_frames(b, sa.stack, ti->pid, sa.time_ns, "[no stack]") || emit(b, share))
			return -ENOMEM;
	}
	return 0;
}

/* A thread whose scheduling was not recorded: each sample stands for its
 * sampler's period of CPU, an estimate, and says so. */
static int hotcold_estimated(struct fb *b, size_t th, const struct rsp_thread_info *ti,
			     const struct rsp_slice_info *s)
{
	for (size_t k = 0; k < s->n_samples; k++) {
		struct rsp_sample_info sa;

		rsp_thread_sample(b->t, th, s->first_sample + k, &sa);
		if (!sa.period_ns)
			continue;
		reset(b);
		b->part = RSP_FOLDED_PART_ON_CPU_ESTIMATED;
		if (thread_frame(b, ti->comm) || part_frame(b, "[on-cpu estimated]") ||
		    stack_frames(b, sa.stack, ti->pid, sa.time_ns, "[no stack]") ||
		    emit(b, sa.period_ns))
			return -ENOMEM;
	}
	return 0;
}

static int waker_part(struct fb *b, const struct rsp_slice_info *s)
{
	const char *w = b->o->mark_frames ? "_[w]" : NULL;
	const char *wk = b->o->mark_frames ? "_[k]_[w]" : NULL;
	struct rsp_link_info l;
	char name[160];

	if (frame(b, "--", NULL))
		return -ENOMEM;
	if (s->link == RSP_NO_INDEX)
		return frame(b, "[unknown waker]", w);
	rsp_trace_link(b->t, s->link, &l);
	if (l.waker_stack) {
		struct _rsp_names nm;
		uint32_t id;
		int pid = -1;

		if (l.waker_thread != RSP_NO_INDEX) {
			struct rsp_thread_info wi;

			rsp_trace_thread(b->t, l.waker_thread, &wi);
			pid = wi.pid;
		}
		if (_rsp_namecache_get(b->nc, l.waker_stack, pid, l.time_ns, &nm, &id) ||
		    frames_leaf_first(b, &nm, wk, w))
			return -ENOMEM;
	}
	if (l.context == RSP_WAKE_TASK && l.waker_thread != RSP_NO_INDEX) {
		struct rsp_thread_info wi;

		rsp_trace_thread(b->t, l.waker_thread, &wi);
		return frame(b, wi.comm, w);
	}
	snprintf(name, sizeof(name), "[%s %s%s%s]",
		 l.context == RSP_WAKE_HARDIRQ ? "hardirq" :
		 l.context == RSP_WAKE_SOFTIRQ ? "softirq" :
		 l.context == RSP_WAKE_NMI     ? "nmi" :
						 "task",
		 rsp_link_kind_name(l.kind), l.irq_name ? " " : "", l.irq_name ? l.irq_name : "");
	if (frame(b, name, w))
		return -ENOMEM;
	/* data from a peer on this machine: the sender is who woke it */
	if (l.net != RSP_NO_INDEX && l.net < rsp_trace_n_nets(b->t)) {
		struct rsp_net_info ni;

		rsp_trace_net(b->t, l.net, &ni);
		if (ni.sender_thread != RSP_NO_INDEX &&
		    ni.sender_thread < rsp_trace_n_threads(b->t)) {
			struct rsp_thread_info si;

			rsp_trace_thread(b->t, ni.sender_thread, &si);
			return frame(b, si.comm, w);
		}
	}
	return 0;
}

static int sleeps_thread(struct fb *b, size_t th, const struct rsp_thread_info *ti,
			 enum rsp_folded_kind kind)
{
	for (size_t i = 0; i < ti->n_slices; i++) {
		struct rsp_slice_info s;

		rsp_thread_slice(b->t, th, i, &s);
		if (kind == RSP_FOLDED_HOTCOLD && s.kind == RSP_SLICE_RUN) {
			if (s.end_ns > s.start_ns && hotcold_run(b, th, ti, &s))
				return -ENOMEM;
			continue;
		}
		if (kind == RSP_FOLDED_HOTCOLD && s.kind == RSP_SLICE_UNKNOWN &&
		    (s.flags & RSP_SLICE_NOT_RECORDED)) {
			if (hotcold_estimated(b, th, ti, &s))
				return -ENOMEM;
			continue;
		}
		if (s.kind != RSP_SLICE_SLEEP || unknown_length(&s))
			continue;
		if (kind == RSP_FOLDED_OFFWAKE && s.state == RSP_SLEEP_PREEMPTED)
			continue; /* not woken: preempted */
		reset(b);
		b->part = RSP_FOLDED_PART_OFF_CPU;
		if (thread_frame(b, ti->comm) ||
		    (kind == RSP_FOLDED_HOTCOLD && part_frame(b, "[off-cpu]")) ||
		    stack_frames(b, s.stack, ti->pid, s.start_ns, "[no stack]") ||
		    (kind == RSP_FOLDED_OFFWAKE && waker_part(b, &s)) ||
		    emit(b, s.end_ns - s.start_ns))
			return -ENOMEM;
	}
	return 0;
}

/* ---- pseudostacks -------------------------------------------------------------------------- */

static const char *node_kind_name(enum rsp_node_kind k)
{
	switch (k) {
	case RSP_NODE_RUNNABLE:
		return "runnable";
	case RSP_NODE_PREEMPTED:
		return "preempted";
	case RSP_NODE_IO_QUEUE:
		return "I/O queue";
	case RSP_NODE_IO:
		return "disk";
	case RSP_NODE_NET:
		return "network";
	case RSP_NODE_HARDWARE:
		return "hardware";
	case RSP_NODE_TIMEOUT:
		return "timeout";
	case RSP_NODE_KERNEL:
		return "kernel";
	case RSP_NODE_OTHER_PATH:
		return "other path";
	case RSP_NODE_UNKNOWN:
		return "unknown";
	case RSP_NODE_UNACCOUNTED:
		return "unaccounted";
	case RSP_NODE_IDLE:
		return "idle";
	case RSP_NODE_ROOT:
	case RSP_NODE_RUN:
	case RSP_NODE_SLEEP:
		break;
	}
	return "?";
}

static int node_name(struct fb *b, const struct rsp_node_info *ni, char *buf, size_t len)
{
	struct rsp_thread_info ti = { .comm = "?", .pid = -1 };
	size_t th = ni->thread;

	if (ni->kind == RSP_NODE_ROOT) {
		struct rsp_path_info pi;

		rsp_analysis_path(b->a, ni->path, &pi);
		th = pi.thread;
		if (th != RSP_NO_INDEX)
			rsp_trace_thread(b->t, th, &ti);
		snprintf(buf, len, "%s%s", ti.comm, pi.async ? " (async)" : "");
		return 0;
	}
	if (th != RSP_NO_INDEX && th < rsp_trace_n_threads(b->t))
		rsp_trace_thread(b->t, th, &ti);
	if (ni->kind == RSP_NODE_SLEEP) {
		struct rsp_slice_info s;
		struct _rsp_names nm = { 0 };
		uint32_t id;
		char lab[256];
		const char *l = NULL;

		if (th != RSP_NO_INDEX && ni->slice < rsp_thread_n_slices(b->t, th)) {
			rsp_thread_slice(b->t, th, ni->slice, &s);
			if (_rsp_namecache_get(b->nc, s.stack, ti.pid, s.start_ns, &nm, &id))
				return -ENOMEM;
			l = _rsp_names_label(&nm, lab, sizeof(lab));
		}
		snprintf(buf, len, "%s: %s%s", ti.comm, l ? "sleep in " : "sleep", l ? l : "");
		return 0;
	}
	if (ni->kind == RSP_NODE_RUN) {
		snprintf(buf, len, "%s", ni->label ? ni->label : ti.comm);
		return 0;
	}
	snprintf(buf, len, "[%s] %s", node_kind_name(ni->kind),
		 ni->label ? ni->label : th != RSP_NO_INDEX ? ti.comm : "");
	return 0;
}

static int pseudo(struct fb *b)
{
	size_t n = rsp_analysis_n_nodes(b->a);
	size_t *chain = NULL, cap = 0;
	int ret = 0;

	for (size_t i = 0; i < n && !ret; i++) {
		struct rsp_node_info ni, next;
		size_t depth = 0, p;

		rsp_analysis_node(b->a, i, &ni);
		if (i + 1 < n) {
			rsp_analysis_node(b->a, i + 1, &next);
			if (next.parent == i)
				continue; /* not a leaf */
		}
		if (ni.end_ns <= ni.start_ns)
			continue;
		for (p = i; p != RSP_NO_INDEX && depth < 4096;) {
			struct rsp_node_info pi;

			if (depth == cap) {
				size_t *g = realloc(chain, (cap ? cap * 2 : 64) * sizeof(*chain));

				if (!g) {
					ret = -ENOMEM;
					break;
				}
				chain = g;
				cap = cap ? cap * 2 : 64;
			}
			chain[depth++] = p;
			rsp_analysis_node(b->a, p, &pi);
			p = pi.parent < n ? pi.parent : RSP_NO_INDEX;
		}
		reset(b);
		b->part = RSP_FOLDED_PART_PSEUDO;
		b->thread = ni.thread < rsp_trace_n_threads(b->t) ? ni.thread : RSP_NO_INDEX;
		while (!ret && depth-- > 0) {
			struct rsp_node_info ci;
			char name[512];

			rsp_analysis_node(b->a, chain[depth], &ci);
			ret = node_name(b, &ci, name, sizeof(name));
			if (!ret)
				ret = frame(b, name, NULL);
		}
		if (!ret)
			ret = emit(b, ni.end_ns - ni.start_ns);
	}
	free(chain);
	return ret;
}

/* ---- the result ------------------------------------------------------------------------------ */

static int cmp_lines(const void *x, const void *y)
{
	return strcmp(((const struct fline *)x)->stack, ((const struct fline *)y)->stack);
}

static int finish(struct fb *b, enum rsp_folded_kind kind, struct rsp_folded *f)
{
	for (size_t i = 0; i < b->map.cap; i++) {
		struct fline l;

		if (!b->map.keys[i])
			continue;
		l.value = b->vals.v[b->map.vals[i]];
		if (kind != RSP_FOLDED_CPU)
			l.value = (l.value + 500) / 1000; /* ns -> µs */
		if (!l.value)
			continue;
		l.stack = b->map.keys[i];
		if (!vec_push(&f->lines, l))
			return -ENOMEM;
		b->map.keys[i] = NULL; /* now the line's */
	}
	if (f->lines.n > 1)
		qsort(f->lines.v, f->lines.n, sizeof(*f->lines.v), cmp_lines);
	return 0;
}

/* every contribution of @kind to emit(): added up, or to the visitor */
static int walk(struct fb *b, enum rsp_folded_kind kind, char *err, size_t errlen)
{
	uint8_t *sel = NULL;
	int ret = -ENOMEM;

	if ((unsigned)kind > RSP_FOLDED_PSEUDO) {
		snprintf(err, errlen, "unknown folded-stack kind %d", (int)kind);
		return -EINVAL;
	}
	if (kind == RSP_FOLDED_PSEUDO && !b->a) {
		snprintf(err, errlen, "pseudostacks need the analysis of a target");
		return -EINVAL;
	}
	b->nc = _rsp_namecache_new(b->t);
	if (!b->nc)
		goto out;
	if (kind == RSP_FOLDED_PSEUDO) {
		ret = pseudo(b);
	} else {
		sel = rsp_thread_filter_apply(b->t, &b->o->threads);
		if (!sel)
			goto out;
		ret = 0;
		for (size_t th = 0; th < rsp_trace_n_threads(b->t) && !ret; th++) {
			struct rsp_thread_info ti;

			if (!sel[th])
				continue;
			rsp_trace_thread(b->t, th, &ti);
			if (!ti.comm || !*ti.comm)
				ti.comm = "[unknown]";
			b->thread = th;
			ret = kind == RSP_FOLDED_CPU ? cpu_thread(b, th, &ti) :
						       sleeps_thread(b, th, &ti, kind);
		}
	}
out:
	free(sel);
	if (b->stopped)
		return b->stopped;
	if (ret)
		snprintf(err, errlen, "folded stacks: %s", strerror(-ret));
	return ret;
}

static void fb_free(struct fb *b)
{
	rsp_strmap_free(&b->map);
	vec_free(&b->vals);
	_rsp_namecache_free(b->nc);
	free(b->buf);
	vec_free(&b->fr);
	vec_free(&b->vf);
	free(b->scratch);
}

int rsp_folded_build(struct rsp_trace *t, struct rsp_analysis *a, enum rsp_folded_kind kind,
		     const struct rsp_folded_opts *opts, struct rsp_folded **out, char *err,
		     size_t errlen)
{
	static const struct rsp_folded_opts none;
	struct fb b = { .t = t, .a = a, .o = opts ? opts : &none };
	struct rsp_folded *f = calloc(1, sizeof(*f));
	int ret;

	*out = NULL;
	if (!f) {
		snprintf(err, errlen, "folded stacks: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	ret = walk(&b, kind, err, errlen);
	if (!ret && (ret = finish(&b, kind, f)))
		snprintf(err, errlen, "folded stacks: %s", strerror(-ret));
	if (ret)
		rsp_folded_free(f);
	else
		*out = f;
	fb_free(&b);
	return ret;
}

int rsp_folded_walk(struct rsp_trace *t, struct rsp_analysis *a, enum rsp_folded_kind kind,
		    const struct rsp_folded_opts *opts, rsp_folded_visit_fn visit, void *ctx,
		    char *err, size_t errlen)
{
	static const struct rsp_folded_opts none;
	struct fb b = { .t = t, .a = a, .o = opts ? opts : &none, .visit = visit, .ctx = ctx };
	int ret;

	if (!visit) {
		snprintf(err, errlen, "folded stacks: no visitor");
		return -EINVAL;
	}
	ret = walk(&b, kind, err, errlen);
	fb_free(&b);
	return ret;
}
