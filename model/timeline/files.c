/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The files the target's stacks need and that could not be read (rsp-model.h):
 * every sleep and CPU sample stack of the targets' process trees (of every
 * thread without targets) unwound and symbolized once, and the frames without
 * a function counted per file the symbolizer could not use, with the time
 * their stacks stand for.
 */
#include "timeline/trace-private.h"
#include "base/hashmap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct missing_file {
	struct rsp_missing_file info;
	char id[2 * 20 + 1];
};

/* a stack's frames without a function in one file */
struct file_frames {
	uint32_t file; /* the symbolizer's index + 1 */
	uint32_t frames;
};

struct missing_files {
	struct missing_file *v; /* per file index of the symbolizer */
	size_t n_files;
	uint32_t *order; /* the listed ones, most costly first */
	size_t n;
	/* per (stack, process) seen: its files' counts, looked up once (a
	 * ping-pong's 200,000 sleeps have a handful of stacks): seen[] indexes
	 * runs of ff[], begin[k]..begin[k + 1] */
	struct _rsp_u64map seen;
	struct file_frames *ff;
	size_t n_ff, cap_ff;
	uint32_t *begin;
	size_t n_begin, cap_begin;
};

static void memo_free(struct missing_files *m)
{
	_rsp_u64map_free(&m->seen);
	free(m->ff);
	free(m->begin);
	m->ff = NULL;
	m->begin = NULL;
}

void trace_missing_files_free(struct missing_files *m)
{
	if (!m)
		return;
	memo_free(m);
	free(m->v);
	free(m->order);
	free(m);
}

static const char *problem_why(enum rsp_file_problem p)
{
	switch (p) {
	case RSP_FILE_MISSING:
		return "not found";
	case RSP_FILE_BUILD_ID_DIFFERS:
		return "build id differs";
	case RSP_FILE_UNREADABLE:
		return "not a usable ELF file";
	case RSP_FILE_NO_SYMBOLS:
		return "no symbols";
	case RSP_FILE_DYNAMIC_ONLY:
		return "only its exported functions (.dynsym): no debug symbols";
	}
	return "?";
}

static enum rsp_file_problem problem_of(const struct rsp_sym_file *f)
{
	switch (f->state) {
	case RSP_SYM_FILE_READ:
		return f->dynamic_only ? RSP_FILE_DYNAMIC_ONLY : 0;
	case RSP_SYM_FILE_MISSING:
		return RSP_FILE_MISSING;
	case RSP_SYM_FILE_BUILD_ID_DIFFERS:
		return RSP_FILE_BUILD_ID_DIFFERS;
	case RSP_SYM_FILE_UNREADABLE:
		return RSP_FILE_UNREADABLE;
	case RSP_SYM_FILE_NO_SYMBOLS:
		return RSP_FILE_NO_SYMBOLS;
	default:
		return 0;
	}
}

static int grow(void **v, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap ? *cap : 256;
	void *nv;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	nv = realloc(*v, c * size);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = c;
	return 0;
}

/* The files of @stack's frames without a function (every user frame with
 * @every_frame), looked up once per stack and process: a run of m->ff. */
static int stack_files(struct rsp_trace *t, struct missing_files *m, uint32_t stack, int pid,
		       uint64_t time, bool every_frame, size_t *first, size_t *n)
{
	const struct stack_entry *e;
	uint64_t key = (uint64_t)stack << 32 | (uint32_t)pid;
	uint32_t k;
	size_t start = m->n_ff;

	if (_rsp_u64map_get(&m->seen, key, &k)) {
		*first = m->begin[k];
		*n = m->begin[k + 1] - m->begin[k];
		return 0;
	}
	e = &t->stacks.entries.v[stack];
	for (size_t i = 0; i < e->n; i++) {
		struct rsp_frame_info o = { .addr = t->stacks.frames.v[e->off + i] };
		struct rsp_sym_frame f;
		size_t j;

		o.kernel = o.addr >= 0xffff800000000000ull;
		if (o.kernel)
			continue;
		trace_stack_frame_sym(t, e, i, pid, time, &o, &f);
		if ((f.func && !every_frame) || !f.file)
			continue;
		for (j = start; j < m->n_ff && m->ff[j].file != f.file; j++)
			;
		if (j == m->n_ff) {
			if (grow((void **)&m->ff, &m->cap_ff, m->n_ff + 1, sizeof(*m->ff)))
				return -ENOMEM;
			m->ff[m->n_ff++] = (struct file_frames){ (uint32_t)f.file, 0 };
		}
		m->ff[j].frames++;
	}
	if (grow((void **)&m->begin, &m->cap_begin, m->n_begin + 2, sizeof(*m->begin)))
		return -ENOMEM;
	if (!m->n_begin)
		m->begin[m->n_begin++] = (uint32_t)start;
	m->begin[m->n_begin++] = (uint32_t)m->n_ff;
	if (_rsp_u64map_put(&m->seen, key, (uint32_t)(m->n_begin - 2)))
		return -ENOMEM;
	*first = start;
	*n = m->n_ff - start;
	return 0;
}

/* Count @stack's frames without a function, per file. */
static int count_stack(struct rsp_trace *t, struct missing_files *m, uint32_t stack, int pid,
		       uint64_t time, uint64_t ns, bool every_frame)
{
	size_t first, n;

	if (!rsp_stack_n_frames(t, stack)) /* unwinds a pending user-stack copy */
		return 0;
	stack = trace_stack_resolve(t, stack);
	if (!stack || stack >= t->stacks.entries.n)
		return 0;
	if (stack_files(t, m, stack, pid, time, every_frame, &first, &n))
		return -ENOMEM;
	for (size_t i = first; i < first + n; i++) {
		uint32_t file = m->ff[i].file;
		struct missing_file *mf;

		if (file > m->n_files) { /* files appear as the walk goes */
			size_t nf = rsp_sym_n_files(t->sym);
			struct missing_file *v = realloc(m->v, nf * sizeof(*v));

			if (!v)
				return -ENOMEM;
			memset(v + m->n_files, 0, (nf - m->n_files) * sizeof(*v));
			m->v = v;
			m->n_files = nf;
		}
		mf = &m->v[file - 1];
		mf->info.frames += m->ff[i].frames;
		mf->info.stacks++;
		mf->info.ns += ns;
	}
	return 0;
}

/* The stacks of the threads @sel selects; @every_frame: count every user frame */
static int walk_threads(struct rsp_trace *t, struct missing_files *m, const uint8_t *sel,
			bool every_frame)
{
	size_t nt = rsp_trace_n_threads(t);
	int err = 0;

	for (size_t th = 0; th < nt && !err; th++) {
		struct rsp_thread_info ti;
		size_t ns;

		if (!sel[th])
			continue;
		rsp_trace_thread(t, th, &ti);
		ns = rsp_thread_n_slices(t, th);
		for (size_t k = 0; k < ns && !err; k++) {
			struct rsp_slice_info s;

			rsp_thread_slice(t, th, k, &s);
			if (s.kind == RSP_SLICE_SLEEP && s.stack)
				err = count_stack(t, m, s.stack, ti.pid, s.start_ns,
						  s.end_ns - s.start_ns, every_frame);
			for (size_t j = 0; j < s.n_samples && !err; j++) {
				struct rsp_sample_info si;

				rsp_thread_sample(t, th, s.first_sample + j, &si);
				if (si.stack)
					err = count_stack(t, m, si.stack, ti.pid, si.time_ns,
							  si.period_ns, every_frame);
			}
		}
	}
	return err;
}

static int walk(struct rsp_trace *t, struct missing_files *m)
{
	size_t n_pids = rsp_trace_n_targets(t);
	int *pids = calloc(n_pids ? n_pids : 1, sizeof(int));
	struct rsp_thread_filter flt = { .pids = pids, .n_pids = n_pids, .descendants = true };
	uint8_t *sel;
	int err;

	if (!pids)
		return -ENOMEM;
	for (size_t i = 0; i < n_pids; i++)
		pids[i] = rsp_trace_target(t, i);
	sel = rsp_thread_filter_apply(t, &flt);
	free(pids);
	if (!sel)
		return -ENOMEM;
	err = walk_threads(t, m, sel, false);
	free(sel);
	return err;
}

static const struct missing_files *missing(struct rsp_trace *t)
{
	static const struct missing_files none;
	struct missing_files *m;
	size_t k = 0;

	if (t->missing)
		return t->missing;
	if (!t->sym)
		return &none;
	m = calloc(1, sizeof(*m));
	if (!m || walk(t, m)) {
		trace_missing_files_free(m);
		return &none; /* no memory: asked again next time */
	}
	memo_free(m);
	m->order = calloc(m->n_files ? m->n_files : 1, sizeof(*m->order));
	if (!m->order) {
		trace_missing_files_free(m);
		return &none;
	}
	for (size_t i = 0; i < m->n_files; i++) {
		struct missing_file *mf = &m->v[i];
		struct rsp_sym_file sf;
		enum rsp_file_problem p;

		if (!mf->info.frames)
			continue;
		rsp_sym_file(t->sym, i, &sf);
		p = problem_of(&sf);
		if (!p)
			continue;
		mf->info.path = sf.path;
		mf->info.problem = p;
		mf->info.why = problem_why(p);
		for (size_t b = 0; b < sf.build_id_len && b < 20; b++)
			snprintf(mf->id + 2 * b, 3, "%02x", sf.build_id[b]);
		mf->info.build_id = mf->id;
		m->order[k++] = (uint32_t)i;
	}
	m->n = k;
	/* most costly first: time, then frames, then the order of appearance */
	for (size_t i = 1; i < k; i++) {
		uint32_t x = m->order[i];
		size_t j = i;

		for (; j > 0; j--) {
			const struct rsp_missing_file *a = &m->v[x].info,
						      *b = &m->v[m->order[j - 1]].info;

			if (a->ns < b->ns || (a->ns == b->ns && a->frames <= b->frames))
				break;
			m->order[j] = m->order[j - 1];
		}
		m->order[j] = x;
	}
	t->missing = m;
	return m;
}

size_t rsp_trace_n_missing_files(struct rsp_trace *t)
{
	return missing(t)->n;
}

void rsp_trace_missing_file(struct rsp_trace *t, size_t i, struct rsp_missing_file *out)
{
	const struct missing_files *m = missing(t);

	memset(out, 0, sizeof(*out));
	if (i < m->n)
		*out = m->v[m->order[i]].info;
}

struct rsp_mapped_file *rsp_trace_mapped_files(struct rsp_trace *t, const int *pids,
					       size_t n_pids, bool all, size_t *n)
{
	struct rsp_thread_filter flt = { .pids = pids, .n_pids = n_pids };
	struct missing_files m = { 0 };
	struct rsp_mapped_file *out = NULL;
	uint8_t *sel;
	size_t k = 0;

	*n = 0;
	if (!t->sym || (!all && !n_pids))
		return NULL;
	sel = rsp_thread_filter_apply(t, all ? NULL : &flt);
	if (!sel)
		return NULL;
	if (walk_threads(t, &m, sel, true) || !m.n_files ||
	    !(out = calloc(m.n_files, sizeof(*out))))
		goto done;
	for (size_t i = 0; i < m.n_files; i++) {
		struct rsp_sym_file sf;

		if (!m.v[i].info.frames)
			continue;
		rsp_sym_file_find(t->sym, i);
		rsp_sym_file(t->sym, i, &sf);
		out[k++] = (struct rsp_mapped_file){
			.path = sf.path,
			.build_id = sf.build_id,
			.build_id_len = sf.build_id_len,
			.read_from = sf.state == RSP_SYM_FILE_READ || sf.state == RSP_SYM_FILE_NO_SYMBOLS
					     ? sf.read_from
					     : NULL,
			.debug_file = sf.debug_file,
			.is_file = sf.state != RSP_SYM_FILE_NOT_A_FILE,
			.frames = m.v[i].info.frames,
		};
	}
	*n = k;
done:
	memo_free(&m);
	free(m.v);
	free(sel);
	return out;
}
