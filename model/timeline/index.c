/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Loading's pass 1: the file scanned once (header records absorbed by the
 * reader), every kernel record a 16-byte index entry (time, file offset),
 * then the index sorted by time: a stable radix sort, so records come out in
 * time order across CPUs whatever the file's interleaving.
 */
#include "timeline/load-private.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SETUP_AFTER 16384 /* records: the set-up's thread starts then (tracing data known) */

/* Loading's progress at @off (a record's offset), false if cancelled. */
static bool progress_at(struct scan *sc, uint64_t off)
{
	uint64_t at = rsp_reader_file_offset(sc->t->reader, off);

	if (_rsp_load_cancelled(sc->o))
		return false;
	if (sc->o->progress && sc->size)
		sc->o->progress(at < sc->size ? at / 3.0 / sc->size : 1 / 3.0, sc->o->progress_ctx);
	return true;
}

/*
 * The time (and CPU) of a record the index keeps: 0; 1 for a record it does
 * not keep; -errno for one that does not fit its event's layout.
 */
int _rsp_record_time(struct rsp_reader *r, const struct perf_event_header *h,
		     struct rsp_sample *s)
{
	int ret;

	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		/* the rest is checked when the sample is built (walk_sample) */
		return rsp_reader_sample_time(r, h, s);
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
		ret = rsp_reader_parse_id(r, h, s);
		if (ret == -ENODATA) {
			ret = 0;
			s->has_time = false;
		}
		return ret;
	default:
		return 1;
	}
}

int _rsp_index_record(void *ctx, const struct rsp_record *rec)
{
	struct scan *sc = ctx;
	struct rsp_sample s;
	struct idx e;
	int ret;

	if (sc->n % SETUP_AFTER == SETUP_AFTER - 1)
		_rsp_setup_start(sc->su);
	if (++sc->n % PROGRESS_EVERY == 0 && sc->o && !progress_at(sc, rec->offset))
		return -ECANCELED;
	ret = _rsp_record_time(sc->t->reader, rec->h, &s);
	if (ret > 0)
		return 0;
	if (ret) {
		sc->t->n_records++;
		trace_warn(sc->t, "records that do not fit their event's layout were skipped");
		return 0;
	}
	e.time = s.has_time ? s.time : sc->last_time;
	if (s.has_time && s.time) {
		if (!sc->t->t_start || s.time < sc->t->t_start)
			sc->t->t_start = s.time;
		if (s.time > sc->t->t_end)
			sc->t->t_end = s.time;
		sc->last_time = s.time;
	}
	if (s.has_cpu && s.cpu + 1 > sc->t->nr_cpus && s.cpu < _RSP_MAX_CPUS)
		sc->t->nr_cpus = s.cpu + 1;
	e.off = rec->offset;
	if (!vec_push(&sc->idx, e)) {
		sc->nomem = true;
		return -ENOMEM;
	}
	return 0;
}

/* Sort key: time-0 records (synthesized before the trace) first. */
static inline uint64_t key(uint64_t time, uint64_t base)
{
	return time >= base ? time - base + 1 : 0;
}

/*
 * Stable LSD radix sort on time, on the bits where keys differ only (from
 * the lowest to the highest that differs), in as few passes of at most
 * RADIX_MAX_BITS as they need, of equal width: 33 bits (a 5 s trace) in 3
 * passes of 11, 35 bits (20 s) in 3 of 12, not 4 of 11.  On up to
 * SORT_THREADS threads: each counts the digits of its part of the array, then
 * scatters it to its own offsets in each bucket (after the parts before it:
 * stable).
 */
#define RADIX_MAX_BITS 12
#define RADIX_BUCKETS (1u << RADIX_MAX_BITS)
#define SORT_THREADS 2
#define SORT_PAR_MIN 65536 /* entries: fewer are sorted on one thread */

struct sorter {
	struct idx *v, *spare;
	size_t n;
	uint64_t base;
	int nt;
	pthread_barrier_t bar;
	uint64_t and_[SORT_THREADS], or_[SORT_THREADS];
	bool sorted[SORT_THREADS];
	size_t cnt[SORT_THREADS][RADIX_BUCKETS];
	struct idx *result;
};

struct sort_part {
	struct sorter *so;
	int t;
};

static void sort_sync(struct sorter *so)
{
	if (so->nt > 1)
		pthread_barrier_wait(&so->bar);
}

static void sort_part(struct sorter *so, int t)
{
	size_t lo = so->n * (size_t)t / (size_t)so->nt, hi = so->n * (size_t)(t + 1) / (size_t)so->nt;
	struct idx *a = so->v, *b = so->spare;
	uint64_t and_ = ~0ull, or_ = 0, differ = 0;
	int low, bits, passes, width;
	bool sorted = lo == 0 || a[lo - 1].time <= a[lo].time;

	/* fresh pages for the other buffer, each thread its part */
	_rsp_warm(b + lo, (hi - lo) * sizeof(*b));
	for (size_t i = lo; i < hi; i++) {
		uint64_t k = key(a[i].time, so->base);

		and_ &= k;
		or_ |= k;
		sorted &= i == lo || a[i - 1].time <= a[i].time;
	}
	so->and_[t] = and_;
	so->or_[t] = or_;
	so->sorted[t] = sorted;
	sort_sync(so);
	sorted = true;
	and_ = ~0ull;
	or_ = 0;
	for (int u = 0; u < so->nt; u++) {
		sorted &= so->sorted[u];
		and_ &= so->and_[u];
		or_ |= so->or_[u];
	}
	if (sorted) {
		if (t == 0)
			so->result = a;
		return;
	}
	differ = and_ ^ or_;
	if (!differ) {
		/* one key for all (not sorted: cannot be) */
		if (t == 0)
			so->result = a;
		return;
	}
	low = __builtin_ctzll(differ);
	bits = 64 - __builtin_clzll(differ) - low;
	passes = (bits + RADIX_MAX_BITS - 1) / RADIX_MAX_BITS;
	width = (bits + passes - 1) / passes;
	for (int p = 0; p < passes; p++) {
		int shift = low + width * p;
		uint64_t mask = (1ull << width) - 1;
		size_t *c = so->cnt[t], off[RADIX_BUCKETS], sum = 0, nb = (size_t)1 << width;
		struct idx *tmp;

		if (!((differ >> shift) & mask))
			continue; /* every key has the same digit here */
		memset(c, 0, nb * sizeof(*c));
		for (size_t i = lo; i < hi; i++)
			c[(key(a[i].time, so->base) >> shift) & mask]++;
		sort_sync(so);
		/* bucket k of part t: after all of buckets < k, and after the parts < t in k */
		for (size_t k = 0; k < nb; k++) {
			size_t before = 0, all = 0;

			for (int u = 0; u < so->nt; u++) {
				before += u < t ? so->cnt[u][k] : 0;
				all += so->cnt[u][k];
			}
			off[k] = sum + before;
			sum += all;
		}
		for (size_t i = lo; i < hi; i++)
			b[off[(key(a[i].time, so->base) >> shift) & mask]++] = a[i];
		sort_sync(so);
		tmp = a;
		a = b;
		b = tmp;
	}
	if (t == 0)
		so->result = a;
}

static void *sort_part_thread(void *arg)
{
	struct sort_part *sp = arg;

	sort_part(sp->so, sp->t);
	return NULL;
}

/*
 * A recorder's file is nearly in time order: runs in order (a CPU's ring, read
 * a chunk at a time), each overlapping the end of the ones before it a little
 * (the other CPUs' chunks of the same round).  Such an index is sorted by
 * merging each run into the sorted prefix before it, where it overlaps only
 * (a stable merge of the prefix's tail whose keys exceed the run's first with
 * the run, through @tmp: the smaller side copied).  A 26.3 M-record file of
 * `bench/saturate.sh build 20`: 5,459 runs, 16.3 M entries of overlap, 0.106 s
 * for the radix sort's 0.37 (two threads; docs/DESIGN.md, "Loading: file to
 * timeline").  Gives up (false) when the runs are short or the
 * overlaps long (more moved than MERGE_BUDGET times the entries): the radix
 * sort then goes on from the merged prefix (stable merges keep equal keys in
 * file order: the same result).
 */
#define MERGE_MIN_RUN 256 /* entries per run, on average, at least */
#define MERGE_BUDGET 3

static inline bool before(const struct idx *x, const struct idx *y, uint64_t base)
{
	return key(x->time, base) < key(y->time, base);
}

/* the first index in [lo, hi) whose key exceeds @x's (all before it: not) */
static size_t upper_bound(const struct idx *v, size_t lo, size_t hi, const struct idx *x,
			  uint64_t base)
{
	/* gallop back from hi: the overlap is short */
	size_t step = 1, top = hi;

	while (top > lo) {
		size_t at = top - lo > step ? top - step : lo;

		if (!before(x, &v[at], base)) {
			lo = at + 1;
			break;
		}
		top = at;
		step *= 2;
	}
	hi = top;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (before(x, &v[mid], base))
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

static bool merge_runs(struct idx *v, size_t n, uint64_t base)
{
	struct idx *tmp = NULL;
	size_t cap = 0, moved = 0, runs = 1, start = 0;

	for (size_t i = 1; i <= n; i++) {
		size_t j, l, r;

		if (i < n && !before(&v[i], &v[i - 1], base))
			continue;
		/* run [start, i): merged into [0, start) */
		if (start) {
			j = upper_bound(v, 0, start, &v[start], base);
			l = start - j;
			r = i - start;
			moved += (l < r ? l : r) + l + r;
			if (moved > MERGE_BUDGET * n || ++runs > n / MERGE_MIN_RUN)
				break;
			if ((l < r ? l : r) > cap) {
				size_t c = (l < r ? l : r) * 2;
				struct idx *t2 = realloc(tmp, c * sizeof(*tmp));

				if (!t2)
					break;
				tmp = t2;
				cap = c;
			}
			if (l <= r) {
				/* the prefix's tail out, merged forward */
				size_t a = 0, b = start, w = j;

				memcpy(tmp, v + j, l * sizeof(*tmp));
				while (a < l && b < i)
					v[w++] = before(&v[b], &tmp[a], base) ? v[b++] : tmp[a++];
				memcpy(v + w, tmp + a, (l - a) * sizeof(*tmp));
			} else {
				/* the run out, merged backward */
				size_t a = start, b = r, w = i;

				memcpy(tmp, v + start, r * sizeof(*tmp));
				while (a > j && b > 0)
					v[--w] = before(&tmp[b - 1], &v[a - 1], base) ? v[--a] : tmp[--b];
				memcpy(v + j, tmp, b * sizeof(*tmp));
			}
		}
		start = i;
	}
	free(tmp);
	return start == n;
}

int _rsp_sort_index(struct idx **v, size_t n, uint64_t base)
{
	struct sorter so = { .v = *v, .n = n, .base = base, .nt = 1 };
	struct sort_part helper = { &so, 1 };
	pthread_t tid;

	if (n < 2 || merge_runs(*v, n, base))
		return 0;
	so.spare = malloc(n * sizeof(*so.spare));
	if (!so.spare)
		return -ENOMEM;
	/* SORT_THREADS is 2: this thread and one more */
	if (n >= SORT_PAR_MIN && _rsp_usable_cpus() > 1 && !pthread_barrier_init(&so.bar, NULL, 2)) {
		so.nt = 2;
		if (pthread_create(&tid, NULL, sort_part_thread, &helper)) {
			pthread_barrier_destroy(&so.bar);
			so.nt = 1;
		}
	}
	sort_part(&so, 0);
	if (so.nt > 1) {
		pthread_join(tid, NULL);
		pthread_barrier_destroy(&so.bar);
	}
	/* the result is in one buffer; the other goes */
	free(so.result == *v ? so.spare : *v);
	*v = so.result;
	return 0;
}

/*
 * The scan on two threads.  A stream of many segments (rsp record's zstd
 * frames, each inflating on its own) is shared: this thread takes segments
 * from the front, a second from the back (rsp_reader_scan_segment_plain:
 * its own buffer, only segments of plain records), until they meet; then
 * this one takes in the second's entries, segment by segment in file order,
 * as _rsp_index_record would have (the time of an untimed record is the one
 * before it), so the index is the same.  A record that changes how records
 * read (an attr, a feature...) stops the second thread first and voids what
 * it read: the rest is read here.
 */
#define SIDE_MIN_SEGMENTS 64

struct side_ent {
	uint64_t time, off;
	bool has_time;
};

struct side_seg {
	uint8_t state; /* SIDE_* */
	size_t first, n; /* its entries */
	uint64_t records, misfits;
	uint64_t t_min, t_max; /* of its nonzero times; t_min 0: none */
	uint32_t cpus; /* 1 + its highest CPU, 0: none */
};

enum { SIDE_NONE, SIDE_DONE, SIDE_REFUSED };

struct side_scan {
	struct scan *sc;
	pthread_t tid;
	bool running, joined, voided;
	int stop; /* atomic */
	uint64_t span; /* atomic: the front's next segment << 32 | the back's last taken */
	size_t n_segs;
	struct side_seg *seg;
	VEC(struct side_ent) ent;
	size_t cur; /* the segment being read (the second thread's) */
};

static int side_record(void *ctx, const struct rsp_record *rec)
{
	struct side_scan *ss = ctx;
	struct side_seg *g = &ss->seg[ss->cur];
	struct side_ent e;
	struct rsp_sample s;
	int ret = _rsp_record_time(ss->sc->t->reader, rec->h, &s);

	if (ret > 0)
		return 0;
	if (ret) {
		g->misfits++;
		return 0;
	}
	e.time = s.has_time ? s.time : 0;
	e.off = rec->offset;
	e.has_time = s.has_time;
	if (!vec_push(&ss->ent, e))
		return -ENOMEM;
	g->n++;
	if (s.has_time && s.time) {
		if (!g->t_min || s.time < g->t_min)
			g->t_min = s.time;
		if (s.time > g->t_max)
			g->t_max = s.time;
	}
	if (s.has_cpu && s.cpu + 1 > g->cpus && s.cpu < _RSP_MAX_CPUS)
		g->cpus = s.cpu + 1;
	return 0;
}

/* The second thread: segments from the back, until it meets the front or one is refused. */
static void *side_thread(void *arg)
{
	struct side_scan *ss = arg;
	struct rsp_reader *r = ss->sc->t->reader;

	while (!__atomic_load_n(&ss->stop, __ATOMIC_ACQUIRE)) {
		uint64_t span = __atomic_load_n(&ss->span, __ATOMIC_ACQUIRE);
		uint32_t front = (uint32_t)(span >> 32), back = (uint32_t)span;
		struct side_seg *g;
		uint64_t records;

		if (back <= front + 1u)
			break; /* the front takes the rest */
		if (!__atomic_compare_exchange_n(&ss->span, &span, span - 1, false, __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE))
			continue;
		ss->cur = back - 1u;
		g = &ss->seg[ss->cur];
		g->first = ss->ent.n;
		if (rsp_reader_scan_segment_plain(r, ss->cur, side_record, ss, &records)) {
			ss->ent.n = g->first;
			g->state = SIDE_REFUSED;
			break;
		}
		g->records = records;
		g->state = SIDE_DONE;
	}
	return NULL;
}

static void side_join(struct side_scan *ss)
{
	if (ss->running && !ss->joined) {
		pthread_join(ss->tid, NULL);
		ss->joined = true;
	}
}

/* rsp_scan_hooks.defining: the second thread stops; what it read is void. */
static void side_defining(void *ctx)
{
	struct scan *sc = ctx;
	struct side_scan *ss = sc->side;

	if (!ss || ss->voided || !ss->running)
		return; /* nothing read yet (segment 0's header records) */
	__atomic_store_n(&ss->stop, 1, __ATOMIC_RELEASE);
	side_join(ss);
	ss->voided = true;
}

/* Progress, cancel and the set-up's start for @n records taken in at once (as one by one). */
static int side_count(struct scan *sc, uint64_t n, uint64_t off)
{
	uint64_t before = sc->n;

	sc->n += n;
	if (sc->n / SETUP_AFTER != before / SETUP_AFTER)
		_rsp_setup_start(sc->su);
	if (sc->n / PROGRESS_EVERY != before / PROGRESS_EVERY && sc->o && !progress_at(sc, off))
		return -ECANCELED;
	return 0;
}

/* rsp_scan_hooks.segment */
static int side_segment(void *ctx, size_t i, uint64_t *records)
{
	struct scan *sc = ctx;
	struct side_scan *ss = sc->side;
	struct side_seg *g;
	uint64_t span;

	if (!ss || ss->voided || i >= ss->n_segs)
		return 0;
	if (i == 1 && !ss->running) {
		/* segment 0 read here (the stream's header records are in it): share the rest */
		ss->span = (uint64_t)1 << 32 | ss->n_segs;
		ss->running = pthread_create(&ss->tid, NULL, side_thread, ss) == 0;
		return 0;
	}
	if (!ss->running)
		return 0;
	/* take segment i at the front, unless the second thread took it */
	span = __atomic_load_n(&ss->span, __ATOMIC_ACQUIRE);
	while ((uint32_t)span > i) {
		uint64_t next = (uint64_t)(i + 1) << 32 | (uint32_t)span;

		if (__atomic_compare_exchange_n(&ss->span, &span, next, false, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			return 0;
	}
	side_join(ss);
	g = &ss->seg[i];
	if (g->state != SIDE_DONE)
		return 0;
	for (size_t k = g->first; k < g->first + g->n; k++) {
		const struct side_ent *e = &ss->ent.v[k];
		struct idx x = { e->has_time ? e->time : sc->last_time, e->off };

		if (e->has_time && e->time)
			sc->last_time = e->time;
		if (!vec_push(&sc->idx, x)) {
			sc->nomem = true;
			return -ENOMEM;
		}
	}
	for (uint64_t k = 0; k < g->misfits; k++) {
		sc->t->n_records++;
		trace_warn(sc->t, "records that do not fit their event's layout were skipped");
	}
	if (g->t_min && (!sc->t->t_start || g->t_min < sc->t->t_start))
		sc->t->t_start = g->t_min;
	if (g->t_max > sc->t->t_end)
		sc->t->t_end = g->t_max;
	if (g->cpus > sc->t->nr_cpus)
		sc->t->nr_cpus = g->cpus;
	*records = g->records;
	sc->t->n_segs_shared++;
	return side_count(sc, g->records, RSP_SEG_BIT | (uint64_t)i << 32) ? -ECANCELED : 1;
}

int _rsp_scan(struct scan *sc, char *err, size_t errlen)
{
	struct rsp_reader *r = sc->t->reader;
	size_t n_segs = rsp_reader_n_segments(r);
	static const struct rsp_scan_hooks hooks = { side_segment, side_defining };
	struct side_scan ss = { .sc = sc, .n_segs = n_segs };
	int ret;

	if (n_segs < SIDE_MIN_SEGMENTS || n_segs >= UINT32_MAX || _rsp_usable_cpus() < 2)
		return rsp_reader_scan(r, _rsp_index_record, sc, err, errlen);
	ss.seg = calloc(n_segs, sizeof(*ss.seg));
	if (!ss.seg)
		return rsp_reader_scan(r, _rsp_index_record, sc, err, errlen);
	sc->side = &ss;
	ret = rsp_reader_scan_shared(r, _rsp_index_record, &hooks, sc, err, errlen);
	__atomic_store_n(&ss.stop, 1, __ATOMIC_RELEASE);
	side_join(&ss);
	sc->side = NULL;
	if (ret == -ECANCELED)
		snprintf(err, errlen, "loading cancelled");
	vec_free(&ss.ent);
	free(ss.seg);
	return ret;
}
