/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Loading's pass 2: the records in time order, in two stages (walk-private.h).
 * Here the first, which reads each record (parses a sample, decodes a
 * tracepoint of a small kind; inflates its segment of a compressed stream),
 * feeds the symbolizer the maps, forks and execs, and unwinds each
 * user-stack copy while its record is at hand; and the walk of an index
 * sorted whole (two passes), the stages on two threads or one after the
 * other.  The second stage is walk-build.c; the walk beside the scan, one-pass.c.
 */
#include "timeline/walk-private.h"

#include "rsp-perf-format.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static unsigned ring_class_of(const struct perf_event_attr *a)
{
	return (a->inherit ? 1u : 0u) | (a->watermark ? 2u : 0u);
}

/*
 * The first stage: unwind the user-stack copy of sample @s (as the fast parse
 * read it: with registers and a copy) now, its record at hand (a compressed
 * stream's segment inflated) and the maps those of its time.
 */
static void unwind_copy(struct walk *w, const struct rsp_sample *s, struct op *o)
{
	uint64_t filled = rsp_reader_sample_stack_filled(s);

	o->uempty = !filled;
	o->unwound = -1;
	if (filled && w->sym)
		o->unwound = rsp_sym_unwind(w->sym, (int32_t)o->pid, o->time, s->regs,
					    s->regs_mask, s->stack, filled, op_uips(w, o),
					    MAX_USER_FRAMES);
}

/*
 * The bytes of an event's member of rsp_dev's union when it is small enough
 * for an op to carry (the kinds that make most of a busy trace: sockets,
 * wakeups, runtime); 0: the second stage decodes it.
 */
static size_t dev_size(enum rsp_tp_kind kind)
{
	const struct rsp_dev *e = NULL;

	switch (kind) {
	case TP_WAKING:
	case TP_WAKEUP:
	case TP_WAKEUP_NEW:
		return sizeof(e->u.wake);
	case TP_FORK:
		return sizeof(e->u.fork);
	case TP_EXIT:
		return sizeof(e->u.exit);
	case TP_SOFTIRQ_ENTRY:
	case TP_SOFTIRQ_EXIT:
		return sizeof(e->u.softirq);
	case TP_SOCK_SEND:
	case TP_SOCK_RECV:
	case TP_SK_READY:
		return sizeof(e->u.sock);
	case TP_STAT_RUNTIME:
		return sizeof(e->u.runtime);
	default:
		return 0;
	}
}
_Static_assert(sizeof(((struct rsp_dev *)0)->u.wake) <= sizeof(((struct op *)0)->dev),
	       "an op carries a decoded wakeup");
_Static_assert(sizeof(((struct rsp_dev *)0)->u.fork) <= sizeof(((struct op *)0)->dev),
	       "an op carries a decoded fork");
_Static_assert(sizeof(((struct rsp_dev *)0)->u.sock) <= sizeof(((struct op *)0)->dev),
	       "an op carries a decoded socket event");
_Static_assert(sizeof(((struct rsp_dev *)0)->u.runtime) <= sizeof(((struct op *)0)->dev),
	       "an op carries a decoded runtime");
_Static_assert(sizeof(((struct rsp_dev *)0)->u) >= sizeof(((struct op *)0)->dev),
	       "an op's payload copies to and from the union whole");

/*
 * Ops in the ring from which the first stage decodes the events it may
 * (op_decode()): fewer, and the second stage is ahead (it would wait for
 * ops), so the first leaves them to it.  Which stage decodes an event
 * changes nothing else.
 */
#define OPQ_DECODE_FILL (OPQ / 8)

/* The first stage: is the second far enough behind that it should decode? */
static bool op_decode_here(struct walk *w)
{
	struct opq *q = w->q;

	if (!q)
		return true;
	if (q->head_local >= q->fill_seen) {
		q->tail_seen = __atomic_load_n(&q->tail, __ATOMIC_ACQUIRE);
		q->fill_seen = q->head_local + OPQ_BATCH;
	}
	return q->head_local - q->tail_seen >= OPQ_DECODE_FILL;
}

/*
 * The first stage: decode sample @s into op @o if its event is of a small
 * kind and comes from one attr only (a second copy to merge is compared by
 * its payload: the second stage reads that, and decodes it then), unless the
 * second stage is the less busy one.  The second stage then does not read the
 * payload: the record was read here.
 */
static void op_decode(struct walk *w, const struct rsp_decoder *d, const struct rsp_sample *s,
		      struct op *o)
{
	size_t n = dev_size(d->kind);
	struct rsp_dev ev;

	o->decoded = false;
	if (d->is_sampler || !n || w->multi[o->attr] || !op_decode_here(w))
		return;
	o->decoded = true;
	o->dec_ok = rsp_decode(d, s, &ev);
	if (!o->dec_ok)
		return;
	o->ctx = ev.ctx;
	o->dtid = ev.tid;
	memcpy(o->dev, &ev.u, sizeof(o->dev)); /* a fixed size: moves, not a call */
}

/* The first stage's part of a sample: parse it (and unwind its copy). */
static void walk_sample(struct walk *w, const struct perf_event_header *h, uint64_t off)
{
	struct rsp_sample s;
	const struct rsp_decoder *d;
	struct op *o;
	uint32_t cpu;

	if (rsp_reader_parse_sample_fast(w->rd, h, &s)) {
		w->bad_layout = true;
		return;
	}
	d = &w->dec[s.attr->index];
	cpu = s.has_cpu ? s.cpu : 0;
	if (cpu >= w->nr_cpus || d->is_tracking)
		return;
	w->bytes[s.attr->index] += h->size;
	o = op_begin(w);
	o->kind = OP_SAMPLE;
	o->attr = (uint32_t)s.attr->index;
	o->cpu = cpu;
	o->tid = s.tid;
	o->callchain = s.callchain;
	o->callchain_nr = (uint32_t)(s.callchain_nr < 0xffffffffu ? s.callchain_nr : 0xffffffffu);
	o->copy = s.stack != NULL;
	o->ucopy = s.stack && s.regs && s.stack_size;
	o->time = s.time;
	o->off = off;
	o->raw = s.raw;
	o->raw_size = s.raw ? s.raw_size : 0;
	o->pid = s.pid;
	op_decode(w, d, &s, o);
	if (o->ucopy) {
		op_uips_room(w, o);
		unwind_copy(w, &s, o);
	}
	op_commit(w);
}

/*
 * The first stage: what the symbolizer learns from a record (a process's
 * maps, its fork and exec), before the samples after it are unwound.
 */
static void sym_record(struct walk *w, const struct perf_event_header *h, uint64_t time)
{
	struct rsp_sym *sym = w->sym;

	if (!sym)
		return;
	switch (h->type) {
	case PERF_RECORD_COMM:
		if ((h->misc & PERF_RECORD_MISC_COMM_EXEC) && h->size > sizeof(struct rsp_pf_comm))
			rsp_sym_exec(sym, (int)((const struct rsp_pf_comm *)h)->pid, time);
		break;
	case PERF_RECORD_FORK: {
		const struct rsp_pf_fork *f = (const void *)h;

		if (h->size >= sizeof(*f) && f->pid != f->ppid && f->pid == f->tid)
			rsp_sym_fork(sym, (int)f->pid, (int)f->ppid, time);
		break;
	}
	case PERF_RECORD_MMAP2: {
		const struct rsp_pf_mmap2 *m = (const void *)h;
		char path[4096];
		size_t room;

		if (h->size <= sizeof(*m))
			break;
		room = h->size - sizeof(*m);
		if (room > sizeof(path) - 1)
			room = sizeof(path) - 1;
		memcpy(path, m->filename, room);
		path[room] = '\0';
		rsp_sym_add_map(sym, (int)m->pid, time, m->start, m->len, m->pgoff, m->prot,
				path,
				(h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) ? m->build_id : NULL,
				(h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) ? m->build_id_size : 0);
		break;
	}
	case PERF_RECORD_MMAP: {
		const struct rsp_pf_mmap *m = (const void *)h;
		char path[4096];
		size_t room;

		if (h->size <= sizeof(*m) || m->pid == (uint32_t)-1)
			break; /* the kernel's map: kallsyms covers it */
		room = h->size - sizeof(*m);
		if (room > sizeof(path) - 1)
			room = sizeof(path) - 1;
		memcpy(path, m->filename, room);
		path[room] = '\0';
		rsp_sym_add_map(sym, (int)m->pid, time, m->start, m->len, m->pgoff,
				PROT_EXEC, path, NULL, 0);
		break;
	}
	default:
		break;
	}
}

/* The first stage: a record. */
void _rsp_walk_record(struct walk *w, const struct idx *e)
{
	const struct perf_event_header *h = rsp_reader_record_at(w->rd, e->off);
	struct op *o;

	if (!h)
		return;
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		walk_sample(w, h, e->off);
		break;
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_MMAP:
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
		sym_record(w, h, e->time);
		o = op_begin(w);
		o->kind = OP_RECORD;
		o->time = e->time;
		o->off = e->off;
		op_commit(w);
		break;
	default:
		break;
	}
}

/* records: the second stage inflates the segments the first needs this far ahead */
#define PRELOAD_AHEAD 8192

/* Inflate segment @s unless another thread does or did; its state after. */
uint8_t _rsp_walk_seg_take(struct walk *w, size_t s, int who)
{
	uint8_t st = 0;

	if (__atomic_compare_exchange_n(&w->seg_state[s], &st, SEG_LOADING, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		st = rsp_reader_segment_load(w->rd, s, who) ? SEG_FAILED : SEG_HELD;
		__atomic_store_n(&w->seg_state[s], st, __ATOMIC_RELEASE);
	}
	return st;
}

/*
 * The second stage, waiting for ops: inflate the next segment the first
 * stage will need (if it is near), so that the first, the busier one where
 * a stream is compressed, finds it ready.  False if there is none to do.
 */
bool _rsp_walk_preload(struct walk *w)
{
	size_t s;

	if (w->sched_next >= w->n_sched)
		return false;
	s = w->sched[w->sched_next];
	if (w->seg_first[s] > __atomic_load_n(&w->first_at, __ATOMIC_RELAXED) + PRELOAD_AHEAD)
		return false;
	w->sched_next++;
	_rsp_walk_seg_take(w, s, 1);
	return true;
}

/*
 * The first stage: record @i, its segment of the stream (if any) inflated
 * first (unless the second did), and dropped after it if it is the
 * segment's last.
 */
static void walk_one(struct walk *w, size_t i)
{
	const struct idx *e = &w->idx[i];
	long s = rsp_reader_segment_of(e->off);
	struct op *o;
	uint8_t st;

	if (s < 0) {
		_rsp_walk_record(w, e);
		return;
	}
	if (i % 256 == 0)
		__atomic_store_n(&w->first_at, i, __ATOMIC_RELAXED);
	st = __atomic_load_n(&w->seg_state[s], __ATOMIC_ACQUIRE);
	if (st != SEG_HELD && st != SEG_FAILED) {
		unsigned spins = 0;

		st = _rsp_walk_seg_take(w, (size_t)s, 0);
		while (st == SEG_LOADING) {
			relax(&spins); /* the second stage is inflating it */
			st = __atomic_load_n(&w->seg_state[s], __ATOMIC_ACQUIRE);
		}
	}
	if (st == SEG_FAILED) {
		w->seg_failed++;
		return;
	}
	_rsp_walk_record(w, e);
	if (w->seg_last[s] == i + 1) {
		o = op_begin(w);
		o->kind = OP_DROP;
		o->off = (uint64_t)s;
		op_commit(w);
	}
}

/* The first stage, on its own thread: every record, then OP_END. */
static void *first_stage(void *arg)
{
	struct walk *w = arg;
	struct op *o;

	for (size_t i = 0; i < w->n_idx; i++) {
		if (i % 4096 == 0 && __atomic_load_n(&w->q->stop, __ATOMIC_RELAXED))
			break;
		if (i + PREFETCH_AHEAD < w->n_idx)
			rsp_reader_prefetch(w->rd, w->idx[i + PREFETCH_AHEAD].off);
		walk_one(w, i);
		if (i % IDX_RELEASE == IDX_RELEASE - 1)
			_rsp_release(w->idx, (i + 1) * sizeof(*w->idx));
	}
	o = op_begin(w);
	o->kind = OP_END;
	op_commit(w);
	return NULL;
}

/* The walk's share of loading's progress, @i of @n records on; false if cancelled. */
static bool walk_progress(const struct rsp_trace_opts *o, size_t i, size_t n)
{
	if (!o)
		return true;
	if (_rsp_load_cancelled(o))
		return false;
	if (o->progress)
		o->progress(1 / 3.0 + 2 / 3.0 * (i < n ? i : n) / n, o->progress_ctx);
	return true;
}

static int count_index(struct rsp_trace *t, const char *name)
{
	struct event_count c;

	for (size_t i = 0; i < t->counts.n; i++)
		if (!strcmp(t->counts.v[i].name, name))
			return (int)i;
	memset(&c, 0, sizeof(c));
	snprintf(c.name, sizeof(c.name), "%s", name);
	if (!vec_push(&t->counts, c))
		return -ENOMEM;
	return (int)(t->counts.n - 1);
}

/* @n bytes rounded up to whole cache lines (aligned_alloc's size), one at least */
static size_t cache_lines(size_t n)
{
	return (n / 64 + 1) * 64;
}

/* Every attr's decoder, and which tracepoints several attrs deliver (copies to merge). */
static int decoders_init(struct walk *w)
{
	struct rsp_trace *t = w->t;
	size_t na = rsp_reader_n_attrs(t->reader);

	t->dec = calloc(na, sizeof(*t->dec));
	w->multi = calloc(na, sizeof(*w->multi));
	w->count_of = calloc(na, sizeof(*w->count_of));
	w->ring_class = calloc(na ? na : 1, sizeof(*w->ring_class));
	/* each stage's counts on cache lines of their own */
	w->bytes = aligned_alloc(64, cache_lines(na * sizeof(*w->bytes)));
	w->counts = aligned_alloc(64, cache_lines(na * sizeof(*w->counts)));
	if (!t->dec || !w->multi || !w->count_of || !w->bytes || !w->counts || !w->ring_class)
		return -ENOMEM;
	memset(w->bytes, 0, na * sizeof(*w->bytes));
	memset(w->counts, 0, na * sizeof(*w->counts));
	for (size_t i = 0; i < na; i++) {
		int ci;

		rsp_decoder_init(&t->dec[i], rsp_reader_attr(t->reader, i), t->td.tep);
		ci = count_index(t, t->dec[i].name);
		if (ci < 0)
			return ci;
		w->count_of[i] = (uint32_t)ci;
		t->recorded[t->dec[i].kind] = true;
		if (t->dec[i].kind == TP_WAKING)
			t->have_waking = true;
		if (t->dec[i].kind == TP_SWITCH && !rsp_reader_attr(t->reader, i)->attr.inherit)
			w->wide_switch = true;
		w->ring_class[i] = (uint8_t)ring_class_of(&rsp_reader_attr(t->reader, i)->attr);
	}
	for (size_t i = 0; i < na; i++)
		for (size_t j = 0; j < na; j++)
			if (i != j && t->dec[i].tp_id && t->dec[i].tp_id == t->dec[j].tp_id &&
			    rsp_reader_attr(t->reader, i)->attr.type == PERF_TYPE_TRACEPOINT &&
			    rsp_reader_attr(t->reader, j)->attr.type == PERF_TYPE_TRACEPOINT)
				w->multi[i] = true;
	return 0;
}

/* Which segments of the stream each record needs: held from their first record to their last. */
static int segments_plan(struct walk *w, size_t n_segs)
{
	w->seg_last = calloc(n_segs, sizeof(*w->seg_last));
	w->seg_state = calloc(n_segs, sizeof(*w->seg_state));
	w->seg_first = malloc(n_segs * sizeof(*w->seg_first));
	w->sched = malloc(n_segs * sizeof(*w->sched));
	if (!w->seg_last || !w->seg_state || !w->seg_first || !w->sched)
		return -ENOMEM;
	for (size_t s = 0; s < n_segs; s++)
		w->seg_first[s] = SIZE_MAX;
	for (size_t i = 0; i < w->n_idx; i++) {
		long s = rsp_reader_segment_of(w->idx[i].off);

		if (s < 0 || (size_t)s >= n_segs)
			continue;
		w->seg_last[s] = i + 1;
		if (w->seg_first[s] == SIZE_MAX) {
			w->seg_first[s] = i;
			w->sched[w->n_sched++] = (uint32_t)s; /* in order of first use */
		}
	}
	return 0;
}

/* Each thread's totals, once: rsp_trace_thread() is asked for them per node and sleep. */
static void thread_totals(struct rsp_trace *t)
{
	for (size_t i = 0; i < t->threads.n; i++) {
		struct thread *th = &t->threads.v[i];

		for (size_t k = 0; k < th->slices.n; k++) {
			const struct slice *sl = &th->slices.v[k];
			uint64_t d = sl->end - sl->start;

			if (sl->kind == SLICE_RUN)
				th->run_ns += d;
			else if (sl->kind == SLICE_SLEEP)
				th->sleep_ns += d;
			else
				th->unknown_ns += d;
		}
	}
}

/* The walk's state: the decoders, the copies' rings, the builder, the segments' states. */
int _rsp_walk_init(struct walk *w, struct rsp_trace *t)
{
	int ret = decoders_init(w);

	if (ret)
		return ret;
	w->rd = t->reader;
	w->dec = t->dec;
	w->sym = t->sym;
	w->nr_cpus = t->nr_cpus;
	w->ring = calloc(t->nr_cpus, sizeof(*w->ring));
	w->pos = calloc(t->nr_cpus, sizeof(*w->pos));
	w->live = calloc(t->nr_cpus, sizeof(*w->live));
	w->ring_last = calloc((size_t)t->nr_cpus * RING_CLASSES + 1, sizeof(*w->ring_last));
	w->b = builder_new(t);
	if (!w->ring || !w->pos || !w->live || !w->ring_last || !w->b)
		return -ENOMEM;
	return 0;
}

/* The ring between the stages (@q), for two threads: false if there is no memory for it. */
bool _rsp_walk_queue(struct walk *w, struct opq *q)
{
	q->v = malloc(OPQ * sizeof(*q->v));
	w->uips = malloc(OPQ_UIPS * sizeof(*w->uips));
	q->uop = calloc(OPQ_UIPS, sizeof(*q->uop));
	if (q->v && w->uips && q->uop) {
		w->q = q;
		return true;
	}
	free(q->v);
	free(w->uips);
	free(q->uop);
	q->v = NULL;
	w->uips = NULL;
	q->uop = NULL;
	return false;
}

/* After the last op: the timeline finished, the counts into t, the walk's warnings. */
void _rsp_walk_done(struct walk *w)
{
	struct rsp_trace *t = w->t;

	builder_finish(w->b);
	for (size_t i = 0; i < rsp_reader_n_attrs(t->reader); i++) {
		struct event_count *c = &t->counts.v[w->count_of[i]];

		c->n += w->counts[i].n;
		c->copies_merged += w->counts[i].copies_merged;
		c->with_stack += w->counts[i].with_stack;
		c->bytes += w->bytes[i];
	}
	t->n_events += w->n_events;
	t->n_dup_merged += w->n_dup_merged;
	thread_totals(t);
	if (w->seg_failed)
		trace_warn(t, "%zu records skipped: their part of the compressed trace could not be "
			      "inflated again (out of memory)",
			   w->seg_failed);
	if (w->bad_layout)
		trace_warn(t, "records that do not fit their event's layout were skipped");
}

void _rsp_walk_free(struct walk *w, struct opq *q, size_t n_segs)
{
	struct rsp_trace *t = w->t;

	builder_free(w->b);
	w->b = NULL;
	for (size_t i = 0; i < n_segs; i++)
		rsp_reader_segment_drop(t->reader, i); /* a cancelled walk's */
	rsp_reader_segments_trim(t->reader);
	free(w->seg_last);
	free(w->seg_state);
	free(w->seg_first);
	free(w->seg_left);
	free(w->sched);
	free(q->v);
	free(q->uop);
	free(w->uips);
	for (size_t c = 0; w->ring && c < t->nr_cpus; c++)
		for (int k = 0; k < DUP_RING; k++)
			free(w->ring[c][k].big);
	free(w->ring);
	free(w->pos);
	free(w->live);
	free(w->ring_last);
	free(w->ring_class);
	free(w->multi);
	free(w->count_of);
	free(w->counts);
	free(w->bytes);
}

int _rsp_walk(struct rsp_trace *t, const struct rsp_trace_opts *o, struct idx *idx, size_t n,
	      char *err, size_t errlen)
{
	struct walk w = { .t = t, .idx = idx, .n_idx = n };
	pthread_t first;
	struct opq q = { 0 };
	bool piped = false;
	size_t n_segs = 0;
	int ret;

	ret = _rsp_walk_init(&w, t);
	if (ret)
		goto out;
	n_segs = rsp_reader_n_segments(t->reader);
	if (n_segs && (ret = segments_plan(&w, n_segs)))
		goto out;
	if (n >= PIPELINE_MIN && _rsp_usable_cpus() > 1 && _rsp_walk_queue(&w, &q)) {
		piped = pthread_create(&first, NULL, first_stage, &w) == 0;
		if (!piped) {
			free(q.v);
			free(w.uips);
			free(q.uop);
			q.v = NULL;
			w.uips = NULL;
			q.uop = NULL;
			w.q = NULL;
		}
	}
	if (!piped && !(w.uips = malloc(sizeof(*w.uips)))) {
		ret = -ENOMEM;
		goto out;
	}
	if (piped) {
		const struct op *op;
		bool cancel = false;
		size_t i = 0;

		while ((op = op_next(&w))) {
			if (++i % PROGRESS_EVERY == 0 && !cancel && !walk_progress(o, i, n)) {
				cancel = true;
				__atomic_store_n(&q.stop, 1, __ATOMIC_RELAXED);
			}
			if (!cancel)
				_rsp_walk_apply(&w, op);
			op_done(&q);
		}
		pthread_join(first, NULL);
		if (cancel) {
			snprintf(err, errlen, "loading cancelled");
			ret = -ECANCELED;
			goto out;
		}
	} else {
		for (size_t i = 0; i < n; i++) {
			if (i % PROGRESS_EVERY == PROGRESS_EVERY - 1 && !walk_progress(o, i, n)) {
				snprintf(err, errlen, "loading cancelled");
				ret = -ECANCELED;
				goto out;
			}
			walk_one(&w, i);
			if (i % IDX_RELEASE == IDX_RELEASE - 1)
				_rsp_release(idx, (i + 1) * sizeof(*idx));
		}
	}
	_rsp_walk_done(&w);
out:
	_rsp_walk_free(&w, &q, n_segs);
	return ret;
}
