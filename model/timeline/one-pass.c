/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Loading in one pass (load-private.h): the walk (walk-private.h) beside the
 * scan, each frame of a stream inflated once.
 */
#include "timeline/walk-private.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * A stream in many frames (rsp record's) is loaded in one pass: the scan
 * inflates each frame once and holds it; its records go into a window sorted
 * by time (window.c), and those it gives are walked at once, on this thread
 * (the first stage), while a second thread builds (the second stage) and,
 * waiting for ops, inflates the frames the scan comes to next.  Each frame is
 * then inflated once, not in the scan and again in the walk.  The bet
 * window.c makes can be lost (a record older than one walked, or too many
 * frames held): the load then starts again in two passes (-ERESTART), as it
 * does when the stream changes how records read after its first frame (an
 * attr, tracing data...) or a record names a CPU the header did not count.
 */
#define ONE_PASS_MIN_SEGMENTS 64 /* fewer frames: two passes (as the scan's second thread) */
#define ONE_PASS_AHEAD 4 /* frames the second stage inflates ahead of the scan, at most */
#define ONE_PASS_MAX_HELD (256ull << 20) /* bytes of frames held at once, at most */

/*
 * The records of a frame the second stage read ahead, for the scan to take in
 * whole: the window's entries (one_pass_entry()'s, an untimed record at the
 * time of the last timed one before it) and what the window and the scan's
 * checks need of them
 */
struct pre_slot {
	size_t seg; /* the frame, SIZE_MAX: none */
	VEC(struct idx) ent;
	uint64_t records, misfits;
	uint64_t min_time, max_time, min_nonzero; /* of the entries (min_time: UINT64_MAX) */
	uint64_t last_nonzero; /* the last record's nonzero time, 0: none */
	uint32_t max_cpu; /* the highest CPU a record named (< _RSP_MAX_CPUS), if any_cpu */
	bool any_cpu;
	bool lead_untimed; /* an untimed record before any timed one: its time is the scan's */
	bool plain; /* false: a record not plain in it, the scan reads it */
};

#define ONE_PASS_SLOTS 8 /* > ONE_PASS_AHEAD + 1: a slot is free again once the scan took it */

struct one_pass {
	struct rsp_trace *t;
	const struct rsp_trace_opts *o;
	struct setup *su;
	struct walk w;
	struct opq q;
	pthread_t second;
	bool second_running, begun;
	struct window win;
	size_t n_segs;
	bool group_open; /* entries added since the last group closed */
	uint64_t last_time; /* an untimed record's: the one before it */
	uint64_t n, size; /* records seen, file size: progress */
	int stop; /* -ERESTART: a record that defines the stream came (the hook's) */
	size_t scan_at; /* atomic: the frame the scan is at */
	size_t pre_next; /* the second stage's: the next frame to inflate ahead */
	size_t pre_next_first; /* the scan's, while it waits (for a frame, for room in the ring) */
	uint64_t held; /* bytes of frames held, the scan's count */
	uint32_t max_cpu; /* the highest CPU a record named */
	bool last_held; /* the last frame held: the scan is past it, at the stream's tail */
	VEC(char *) setup_warnings; /* the set-up's, told after the scan's (as in two passes) */
	struct pre_slot slot[ONE_PASS_SLOTS]; /* frame i's in slot i % ONE_PASS_SLOTS */
};

_Static_assert(sizeof(((struct one_pass *)0)->setup_warnings) ==
		       sizeof(((struct rsp_trace *)0)->warnings),
	       "the set-up's warnings and the trace's: one VEC of strings");

bool _rsp_one_pass_fits(const struct rsp_trace *t)
{
	return rsp_reader_n_segments(t->reader) >= ONE_PASS_MIN_SEGMENTS &&
	       rsp_reader_n_segments(t->reader) < UINT32_MAX && _rsp_usable_cpus() > 1;
}

struct pre_ctx {
	struct rsp_reader *rd;
	struct pre_slot *sl;
};

/* rsp_reader_segment_records()'s callback on the second stage: a record's entry. */
static int pre_record(void *ctx, const struct rsp_record *rec)
{
	struct pre_slot *sl = ((struct pre_ctx *)ctx)->sl;
	struct rsp_sample s;
	struct idx e;
	int ret = _rsp_record_time(((struct pre_ctx *)ctx)->rd, rec->h, &s);

	if (ret > 0)
		return 0;
	if (ret) {
		sl->misfits++;
		return 0;
	}
	if (s.has_cpu && s.cpu < _RSP_MAX_CPUS && (!sl->any_cpu || s.cpu > sl->max_cpu)) {
		sl->max_cpu = s.cpu;
		sl->any_cpu = true;
	}
	e.time = s.has_time ? s.time : sl->last_nonzero;
	e.off = rec->offset;
	if (!s.has_time && !sl->last_nonzero)
		sl->lead_untimed = true;
	if (s.has_time && s.time)
		sl->last_nonzero = s.time;
	if (e.time < sl->min_time)
		sl->min_time = e.time;
	if (e.time > sl->max_time)
		sl->max_time = e.time;
	if (e.time && (!sl->min_nonzero || e.time < sl->min_nonzero))
		sl->min_nonzero = e.time;
	return vec_push(&sl->ent, e) ? 0 : -ENOMEM;
}

/*
 * The second stage, a frame inflated ahead: its records read too (what the
 * scan's callback reads of each: one_pass_record()), into its slot, so that
 * the scan, the busier stage, only takes them in.
 */
static void pre_read(struct one_pass *op, size_t s)
{
	struct pre_slot *sl = &op->slot[s % ONE_PASS_SLOTS];
	struct pre_ctx pc = { op->w.rd, sl };
	int ret;

	sl->ent.n = 0;
	sl->misfits = 0;
	sl->min_time = UINT64_MAX;
	sl->max_time = sl->min_nonzero = sl->last_nonzero = 0;
	sl->max_cpu = 0;
	sl->any_cpu = sl->lead_untimed = false;
	ret = rsp_reader_segment_records(op->w.rd, s, pre_record, &pc, &sl->records);
	/* not plain, or no memory: the scan reads the frame itself */
	sl->plain = ret == 0;
	sl->seg = s;
}

/*
 * Inflate (and read) the frame the scan comes to next, not yet taken, from
 * *@next on, at most ONE_PASS_AHEAD past the scan: by the second stage waiting
 * for ops (@who 1), or by the scan itself waiting for a frame the second stage
 * is inflating or for room in the ring (@who 0, between frames).  Whoever marks
 * a frame SEG_LOADING first inflates it, into its slot.  False if there is none
 * to inflate.
 */
static bool preload_ahead(struct walk *w, size_t *next, int who)
{
	struct one_pass *op = w->pass1;
	size_t at = __atomic_load_n(&op->scan_at, __ATOMIC_ACQUIRE), s = *next;
	uint8_t st = 0;

	if (s <= at)
		s = at + 1;
	if (s >= op->n_segs || s > at + ONE_PASS_AHEAD)
		return false;
	*next = s + 1;
	if (__atomic_compare_exchange_n(&w->seg_state[s], &st, SEG_LOADING, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		st = rsp_reader_segment_hold(w->rd, s, who) ? SEG_FAILED : SEG_HELD;
		if (st == SEG_HELD)
			pre_read(op, s);
		__atomic_store_n(&w->seg_state[s], st, __ATOMIC_RELEASE);
	}
	return true;
}

/* struct walk.ahead: the scan (@first, the first stage) or the second stage, waiting */
static bool one_pass_ahead(struct walk *w, bool first)
{
	return first ? preload_ahead(w, &w->pass1->pre_next_first, 0) :
		       preload_ahead(w, &w->pass1->pre_next, 1);
}

/* The second stage's thread: every op, until OP_END. */
static void *second_stage(void *arg)
{
	struct walk *w = arg;
	const struct op *o;

	while ((o = op_next(w))) {
		if (!__atomic_load_n(&w->q->stop, __ATOMIC_RELAXED))
			_rsp_walk_apply(w, o);
		op_done(w->q);
	}
	return NULL;
}

/* The walk begins (the first entries are given): the set-up done, the second stage started. */
static int one_pass_begin(struct one_pass *op)
{
	struct rsp_trace *t = op->t;
	const struct rsp_reader_info *in = rsp_reader_info(t->reader);
	struct walk *w = &op->w;
	int ret;

	/*
	 * What the walk needs of the stream's header records: the attrs, and
	 * every CPU it names counted by the header (t->nr_cpus as two passes
	 * make it, which the walk's rings and the builder are sized by)
	 */
	if (!rsp_reader_n_attrs(t->reader) || !in->nr_cpus_avail ||
	    in->nr_cpus_avail >= _RSP_MAX_CPUS || op->max_cpu >= in->nr_cpus_avail ||
	    in->unfinished || rsp_reader_read_tail(t->reader))
		return -ERESTART;
	t->nr_cpus = in->nr_cpus_avail;
	op->begun = true;
	/* the trace's start is known (window.c); its end only after the scan */
	t->t_start = op->win.min_nonzero;
	/* the set-up's warnings come after the scan's, as in two passes: the scan's so far
	 * aside while it runs, then back in t, the set-up's aside (the same VEC type) */
	memcpy(&op->setup_warnings, &t->warnings, sizeof(t->warnings));
	memset(&t->warnings, 0, sizeof(t->warnings));
	ret = _rsp_setup_finish(op->su);
	{
		unsigned char tmp[sizeof(t->warnings)];

		memcpy(tmp, &t->warnings, sizeof(tmp));
		memcpy(&t->warnings, &op->setup_warnings, sizeof(tmp));
		memcpy(&op->setup_warnings, tmp, sizeof(tmp));
	}
	if (ret || (ret = _rsp_walk_init(w, t)))
		return ret;
	builder_end_later(w->b);
	if (_rsp_walk_queue(w, &op->q)) {
		op->second_running = pthread_create(&op->second, NULL, second_stage, w) == 0;
		if (!op->second_running) {
			free(op->q.v);
			free(w->uips);
			free(op->q.uop);
			op->q.v = NULL;
			w->uips = NULL;
			op->q.uop = NULL;
			w->q = NULL;
		}
	}
	if (!op->second_running && !(w->uips = malloc(sizeof(*w->uips))))
		return -ENOMEM;
	return 0;
}

/* The first stage: an entry the window gave (walk.c's walk_one()'s part, a frame dropped
 * after its last). */
static void one_pass_walk(struct one_pass *op, const struct idx *e)
{
	struct walk *w = &op->w;
	long s = rsp_reader_segment_of(e->off);
	uint8_t st;

	if (s < 0 || (size_t)s >= op->n_segs) {
		_rsp_walk_record(w, e);
		return;
	}
	st = __atomic_load_n(&w->seg_state[s], __ATOMIC_ACQUIRE);
	if (st != SEG_HELD && st != SEG_FAILED) {
		/* a frame the scan read itself (the first, a broken one): inflated again */
		unsigned spins = 0;

		st = _rsp_walk_seg_take(w, (size_t)s, 0);
		while (st == SEG_LOADING) {
			relax(&spins);
			st = __atomic_load_n(&w->seg_state[s], __ATOMIC_ACQUIRE);
		}
		if (st == SEG_HELD)
			op->held += rsp_reader_segment_size(w->rd, (size_t)s);
	}
	if (st == SEG_FAILED)
		w->seg_failed++;
	else
		_rsp_walk_record(w, e);
	if (--w->seg_left[s] == 0 && st == SEG_HELD) {
		struct op *o = op_begin(w);

		o->kind = OP_DROP;
		o->off = (uint64_t)s;
		op_commit(w);
		op->held -= rsp_reader_segment_size(w->rd, (size_t)s);
	}
}

/* A group of entries ends (a frame, or the file): what the window gives, walked. */
static int one_pass_close(struct one_pass *op, bool last)
{
	size_t first, n;
	int ret;

	if (!op->group_open && !last)
		return 0;
	op->group_open = false;
	ret = _rsp_window_close(&op->win, last, &first, &n);
	if (ret)
		return ret;
	if ((n || last) && !op->begun && (ret = one_pass_begin(op)))
		return ret;
	for (size_t k = first; k < first + n; k++) {
		const struct idx *e = &op->win.pend.v[k];

		if (k + PREFETCH_AHEAD < first + n)
			rsp_reader_prefetch(op->w.rd, op->win.pend.v[k + PREFETCH_AHEAD].off);
		one_pass_walk(op, e);
	}
	if (op->held > ONE_PASS_MAX_HELD)
		return -ERESTART;
	return 0;
}

/* @n more records seen, the last at @off: progress now and then; -ECANCELED if cancelled. */
static int one_pass_count(struct one_pass *op, uint64_t n, uint64_t off)
{
	uint64_t before = op->n, at;

	op->n += n;
	if (op->n / PROGRESS_EVERY == before / PROGRESS_EVERY || !op->o)
		return 0;
	if (_rsp_load_cancelled(op->o))
		return -ECANCELED;
	at = rsp_reader_file_offset(op->t->reader, off);
	if (op->o->progress && op->size)
		op->o->progress(at < op->size ? (double)at / op->size : 1.0, op->o->progress_ctx);
	return 0;
}

/* A record of the scan into the window: its time (@has_time) and CPU (@has_cpu) at @off. */
static int one_pass_entry(struct one_pass *op, uint64_t time, bool has_time, uint32_t cpu,
			  bool has_cpu, uint64_t off)
{
	long seg;
	int ret;

	if (has_cpu && cpu < _RSP_MAX_CPUS && cpu >= op->max_cpu) {
		op->max_cpu = cpu;
		if (op->begun && cpu >= op->t->nr_cpus)
			return -ERESTART; /* a CPU the header did not count: t->nr_cpus would differ */
	}
	ret = _rsp_window_add(&op->win, has_time ? time : op->last_time, off);
	if (ret)
		return ret;
	if (has_time && time)
		op->last_time = time;
	op->group_open = true;
	seg = rsp_reader_segment_of(off);
	if (seg >= 0 && (size_t)seg < op->n_segs)
		op->w.seg_left[seg]++;
	return 0;
}

/* A record that does not fit its event's layout, skipped (as the two passes' scan does). */
static void one_pass_misfit(struct rsp_trace *t)
{
	t->n_records++;
	trace_warn(t, "records that do not fit their event's layout were skipped");
}

/* The scan's callback: a record into the window (as _rsp_index_record() into the index). */
static int one_pass_record(void *ctx, const struct rsp_record *rec)
{
	struct one_pass *op = ctx;
	struct rsp_sample s;
	int ret;

	if (op->stop)
		return op->stop;
	if ((ret = one_pass_count(op, 1, rec->offset)))
		return ret;
	ret = _rsp_record_time(op->t->reader, rec->h, &s);
	if (ret > 0)
		return 0;
	if (ret) {
		one_pass_misfit(op->t);
		return 0;
	}
	return one_pass_entry(op, s.time, s.has_time, s.cpu, s.has_cpu, rec->offset);
}

/* The records of frame @i the second stage read (pre_read()), taken in as the callback would. */
static int one_pass_take(struct one_pass *op, const struct pre_slot *sl, size_t i,
			 uint64_t *n_records)
{
	int ret;

	if (sl->lead_untimed)
		return -EAGAIN; /* the time before it is the scan's: it reads the frame */
	/* one_pass_entry()'s checks and counts, for the frame's entries at once */
	if (sl->any_cpu && sl->max_cpu >= op->max_cpu) {
		op->max_cpu = sl->max_cpu;
		if (op->begun && sl->max_cpu >= op->t->nr_cpus)
			return -ERESTART;
	}
	if (sl->ent.n) {
		ret = _rsp_window_add_many(&op->win, sl->ent.v, sl->ent.n, sl->min_time,
					   sl->max_time, sl->min_nonzero);
		if (ret)
			return ret;
		if (sl->last_nonzero)
			op->last_time = sl->last_nonzero;
		op->group_open = true;
		op->w.seg_left[i] += sl->ent.n;
	}
	for (uint64_t k = 0; k < sl->misfits; k++)
		one_pass_misfit(op->t);
	*n_records = sl->records;
	return one_pass_count(op, sl->records, RSP_SEG_BIT | (uint64_t)i << 32);
}

/* rsp_scan_hooks.segment: frame @i inflated once, held, its records into the window. */
static int one_pass_segment(void *ctx, size_t i, uint64_t *n_records)
{
	struct one_pass *op = ctx;
	struct walk *w = &op->w;
	struct pre_slot *sl;
	uint8_t st = 0;
	int ret;

	if (op->stop)
		return op->stop;
	if (_rsp_load_cancelled(op->o))
		return -ECANCELED; /* asked at every frame, not only with progress */
	/* the group before (a frame the scan read, records between frames) ends */
	if ((ret = one_pass_close(op, false)))
		return ret;
	if (!op->begun)
		_rsp_setup_start(op->su); /* once the tracing data is read */
	if (i == 0 || i >= op->n_segs)
		return 0; /* the first frame: the stream's header records, read by the scan */
	__atomic_store_n(&op->scan_at, i, __ATOMIC_RELEASE);
	if (__atomic_compare_exchange_n(&w->seg_state[i], &st, SEG_LOADING, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		st = rsp_reader_segment_hold(w->rd, i, 0) ? SEG_FAILED : SEG_HELD;
		__atomic_store_n(&w->seg_state[i], st, __ATOMIC_RELEASE);
	} else {
		unsigned spins = 0;

		/* the second stage is inflating it: the frames after it inflated meanwhile */
		while ((st = __atomic_load_n(&w->seg_state[i], __ATOMIC_ACQUIRE)) == SEG_LOADING)
			if (!one_pass_ahead(w, true))
				relax(&spins);
	}
	if (st == SEG_FAILED) {
		/* broken, cut, or no memory: the scan reads it (and says what is wrong) */
		__atomic_store_n(&w->seg_state[i], 0, __ATOMIC_RELEASE);
		return 0;
	}
	sl = &op->slot[i % ONE_PASS_SLOTS];
	if (sl->seg == i) {
		/* read ahead by the second stage */
		sl->seg = SIZE_MAX;
		ret = sl->plain ? one_pass_take(op, sl, i, n_records) : -EAGAIN;
	} else {
		ret = rsp_reader_segment_records(w->rd, i, one_pass_record, op, n_records);
	}
	if (ret == -EAGAIN) {
		/* a record not plain in it (none was given): the scan reads it */
		rsp_reader_segment_drop(w->rd, i);
		__atomic_store_n(&w->seg_state[i], 0, __ATOMIC_RELEASE);
		return 0;
	}
	if (ret)
		return ret;
	op->last_held = i == op->n_segs - 1;
	if (!w->seg_left[i]) {
		rsp_reader_segment_drop(w->rd, i); /* nothing in it to walk */
		return 1;
	}
	op->held += rsp_reader_segment_size(w->rd, i);
	ret = one_pass_close(op, false);
	return ret ? ret : 1;
}

/* The first stage: wait until the second has applied every op (it reads no record then). */
static void one_pass_drain(struct one_pass *op)
{
	struct opq *q = op->w.q;
	unsigned spins = 0;

	if (!q)
		return;
	__atomic_store_n(&q->head, q->head_local, __ATOMIC_RELEASE);
	while (__atomic_load_n(&q->tail, __ATOMIC_ACQUIRE) != q->head_local)
		relax(&spins);
}

/*
 * rsp_scan_hooks.defining: a record that changes how records read, or the
 * reader's tail copied to align it.  Before the walk begins, nothing to do:
 * the walk reads records as they read at its start, as in two passes.  After,
 * records walked may have read otherwise: two passes, unless it is the tail
 * after the last frame, held (its build ids read ahead, rsp_reader_read_tail();
 * what changes is where the records after it lie): then the second stage,
 * which reads records, waits until it is done.
 */
static void one_pass_defining(void *ctx)
{
	struct one_pass *op = ctx;

	if (!op->begun)
		return;
	if (op->last_held)
		one_pass_drain(op);
	else
		op->stop = -ERESTART;
}

/* The second stage stopped (OP_END) and joined. */
static void one_pass_stop(struct one_pass *op, bool cancel)
{
	struct walk *w = &op->w;
	struct op *o;

	if (!op->second_running)
		return;
	if (cancel)
		__atomic_store_n(&op->q.stop, 1, __ATOMIC_RELAXED);
	o = op_begin(w);
	o->kind = OP_END;
	op_commit(w);
	pthread_join(op->second, NULL);
	op->second_running = false;
}

static void one_pass_free(struct one_pass *op)
{
	if (!op)
		return;
	one_pass_stop(op, true);
	_rsp_walk_free(&op->w, &op->q, op->n_segs);
	_rsp_window_free(&op->win);
	for (size_t k = 0; k < ONE_PASS_SLOTS; k++)
		vec_free(&op->slot[k].ent);
	for (size_t i = 0; i < op->setup_warnings.n; i++)
		free(op->setup_warnings.v[i]);
	vec_free(&op->setup_warnings);
	free(op);
}

int _rsp_one_pass(struct rsp_trace *t, const struct rsp_trace_opts *o, struct setup *su,
		  uint64_t size, struct one_pass **out, char *err, size_t errlen)
{
	static const struct rsp_scan_hooks hooks = { one_pass_segment, one_pass_defining };
	struct one_pass *op = calloc(1, sizeof(*op));
	int ret;

	*out = NULL;
	if (!op)
		return -ENOMEM;
	op->t = t;
	op->o = o;
	op->su = su;
	op->size = size;
	op->w.t = t;
	op->w.pass1 = op;
	op->w.ahead = one_pass_ahead;
	op->w.rd = t->reader;
	op->n_segs = rsp_reader_n_segments(t->reader);
	_rsp_window_init(&op->win);
	for (size_t k = 0; k < ONE_PASS_SLOTS; k++)
		op->slot[k].seg = SIZE_MAX;
	op->w.seg_state = calloc(op->n_segs, sizeof(*op->w.seg_state));
	op->w.seg_left = calloc(op->n_segs, sizeof(*op->w.seg_left));
	if (!op->w.seg_state || !op->w.seg_left) {
		one_pass_free(op);
		return -ENOMEM;
	}
	ret = rsp_reader_scan_shared(t->reader, one_pass_record, &hooks, op, err, errlen);
	if (!ret && op->stop)
		ret = op->stop;
	if (!ret)
		ret = one_pass_close(op, true);
	one_pass_stop(op, ret != 0);
	if (ret) {
		if (!op->begun)
			_rsp_setup_abandon(su);
		one_pass_free(op);
		if (ret == -ECANCELED)
			snprintf(err, errlen, "loading cancelled");
		return ret;
	}
	t->t_start = op->win.min_nonzero;
	t->t_end = op->win.max_time;
	t->one_pass = true;
	*out = op;
	return 0;
}

void _rsp_one_pass_finish(struct one_pass *op)
{
	struct rsp_trace *t = op->t;

	for (size_t i = 0; i < op->setup_warnings.n; i++)
		trace_warn(t, "%s", op->setup_warnings.v[i]);
	_rsp_walk_done(&op->w);
	one_pass_free(op);
}
