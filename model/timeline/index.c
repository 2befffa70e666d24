/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Loading's pass 1: the file scanned once (header records absorbed by the
 * reader), every kernel record a 16-byte index entry (time, file offset),
 * then the index sorted by time: a stable radix sort, so records come out in
 * time order across CPUs whatever the file's interleaving.
 */
#include "timeline/load-private.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define SETUP_AFTER 16384 /* records: the set-up's thread starts then (tracing data known) */

int _rsp_index_record(void *ctx, const struct rsp_record *rec)
{
	struct scan *sc = ctx;
	const struct perf_event_header *h = rec->h;
	struct rsp_sample s;
	struct idx e;
	int ret;

	if (sc->n % SETUP_AFTER == SETUP_AFTER - 1)
		_rsp_setup_start(sc->su);
	if (++sc->n % PROGRESS_EVERY == 0 && sc->o) {
		uint64_t at = rsp_reader_file_offset(sc->t->reader, rec->offset);

		if (_rsp_load_cancelled(sc->o))
			return -ECANCELED;
		if (sc->o->progress && sc->size)
			sc->o->progress(at < sc->size ? at / 3.0 / sc->size : 1 / 3.0,
					sc->o->progress_ctx);
	}
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		/* the rest is checked when the sample is built (walk_sample) */
		ret = rsp_reader_sample_time(sc->t->reader, h, &s);
		break;
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
		ret = rsp_reader_parse_id(sc->t->reader, h, &s);
		if (ret == -ENODATA) {
			ret = 0;
			s.has_time = false;
		}
		break;
	default:
		return 0;
	}
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
	if (s.has_cpu && s.cpu + 1 > sc->t->nr_cpus && s.cpu < 4096)
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
 * Stable LSD radix sort on time, 11 bits a pass, skipping the digits every
 * key shares, on up to SORT_THREADS threads: each counts the digits of its
 * part of the array, then scatters it to its own offsets in each bucket
 * (after the parts before it: stable).
 */
#define RADIX_PASSES 6 /* 6 x 11 bits >= 64 */
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
	size_t cnt[SORT_THREADS][2048];
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
	for (int p = 0; p < RADIX_PASSES; p++) {
		int shift = 11 * p;
		size_t *c = so->cnt[t], off[2048], sum = 0;
		struct idx *tmp;

		if (!((differ >> shift) & 2047))
			continue; /* every key has the same digit here */
		memset(c, 0, sizeof(so->cnt[t]));
		for (size_t i = lo; i < hi; i++)
			c[(key(a[i].time, so->base) >> shift) & 2047]++;
		sort_sync(so);
		/* bucket k of part t: after all of buckets < k, and after the parts < t in k */
		for (size_t k = 0; k < 2048; k++) {
			size_t before = 0, all = 0;

			for (int u = 0; u < so->nt; u++) {
				before += u < t ? so->cnt[u][k] : 0;
				all += so->cnt[u][k];
			}
			off[k] = sum + before;
			sum += all;
		}
		for (size_t i = lo; i < hi; i++)
			b[off[(key(a[i].time, so->base) >> shift) & 2047]++] = a[i];
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

int _rsp_sort_index(struct idx **v, size_t n, uint64_t base)
{
	struct sorter so = { .v = *v, .n = n, .base = base, .nt = 1 };
	struct sort_part helper = { &so, 1 };
	pthread_t tid;

	if (n < 2)
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
