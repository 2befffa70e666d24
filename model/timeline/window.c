/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Loading in one pass: the index sorted within a window that slides down the
 * file, instead of whole after the scan.  A recorder's file is nearly in time
 * order (a CPU's ring read a chunk at a time, overlapping the other CPUs'
 * chunks of the same rounds), so a record is never far from its place: the
 * entries are taken in a group (a segment of the stream) at a time, merged
 * into the sorted entries not yet given, and those no later group can come
 * before are given to the walk.  Which those are is a bet: that no record is
 * older than the oldest of the last WINDOW_GROUPS (32) groups read.  (Of the
 * frames of a 26 M-record recording of `bench/saturate.sh build 20`, 51 hold a
 * record older than the oldest of the 4 frames before them, none than that of
 * the 8 before; of a 1.3 M-record pipe ping-pong's (`bench/load.sh`), 71 for 16
 * frames, none for 32; of pgbench's, 40 for 8, none for 16.  rsp record's
 * rounds are not perf's, which promise records no older than the round before
 * the last: 1,211 of the saturated recording's 2,336 rounds break that.)  A record that proves it wrong (older than one given) stops the
 * load, which starts again in two passes: what the walk was given cannot be
 * taken back.  The order is the stable sort's, by time, equal times in file
 * order: entries given are all the window's no younger than the edge, and a
 * later entry of the same time comes after them in the file.
 */
#include "timeline/load-private.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void _rsp_window_free(struct window *wn)
{
	vec_free(&wn->pend);
	free(wn->tmp);
	memset(wn, 0, sizeof(*wn));
}

int _rsp_window_add_many(struct window *wn, const struct idx *e, size_t n, uint64_t min_time,
			 uint64_t max_time, uint64_t min_nonzero)
{
	if (wn->given_any && min_time < wn->given_max)
		return -ERESTART; /* older than one given: the bet is lost */
	if (wn->pend.n - wn->head + n > wn->max_entries)
		return -ERESTART; /* the window would grow past its bound */
	while (wn->pend.n + n > wn->pend.warm)
		if (!vec_grow_((void **)&wn->pend.v, &wn->pend.cap, &wn->pend.warm, wn->pend.warm,
			       sizeof(*wn->pend.v)))
			return -ENOMEM;
	memcpy(wn->pend.v + wn->pend.n, e, n * sizeof(*e));
	wn->pend.n += n;
	if (min_time < wn->group_min)
		wn->group_min = min_time;
	if (min_nonzero && (!wn->min_nonzero || min_nonzero < wn->min_nonzero))
		wn->min_nonzero = min_nonzero;
	if (max_time > wn->max_time)
		wn->max_time = max_time;
	return 0;
}

int _rsp_window_add(struct window *wn, uint64_t time, uint64_t off)
{
	struct idx e = { time, off };

	return _rsp_window_add_many(wn, &e, 1, time, time, time);
}

static int tmp_room(struct window *wn, size_t n)
{
	struct idx *t;

	if (n <= wn->tmp_cap)
		return 0;
	t = realloc(wn->tmp, n * 2 * sizeof(*t));
	if (!t)
		return -ENOMEM;
	wn->tmp = t;
	wn->tmp_cap = n * 2;
	return 0;
}

/* Stable merge of v[lo, mid) and v[mid, hi), both sorted, through wn->tmp (the left copied out). */
static int merge(struct window *wn, struct idx *v, size_t lo, size_t mid, size_t hi)
{
	size_t a = 0, b = mid, w = lo, l;

	/*
	 * the left's entries no younger than the right's first stay where they
	 * are: the first younger one found galloping back from the end (the
	 * overlap is short), then by halves
	 */
	for (size_t step = 1, top = mid; top > lo;) {
		size_t at = top - lo > step ? top - step : lo;

		if (v[at].time <= v[mid].time) {
			lo = at + 1;
			for (size_t hi2 = top; lo < hi2;) {
				size_t m = lo + (hi2 - lo) / 2;

				if (v[m].time <= v[mid].time)
					lo = m + 1;
				else
					hi2 = m;
			}
			break;
		}
		top = at;
		step *= 2;
		if (top == lo)
			break;
	}
	if (lo == mid)
		return 0;
	l = mid - lo;
	if (tmp_room(wn, l))
		return -ENOMEM;
	memcpy(wn->tmp, v + lo, l * sizeof(*v));
	w = lo;
	while (a < l && b < hi)
		v[w++] = v[b].time < wn->tmp[a].time ? v[b++] : wn->tmp[a++];
	memcpy(v + w, wn->tmp + a, (l - a) * sizeof(*v));
	return 0;
}

/* Sort v[lo, hi) stably: its ascending runs merged pairwise until one is left. */
static int sort_group(struct window *wn, struct idx *v, size_t lo, size_t hi)
{
	size_t runs[64], nr;
	int ret;

	for (;;) {
		size_t i = lo, k;

		nr = 0;
		/* run starts; with more than 64, the first 64 runs merge this round */
		while (i < hi && nr < 64) {
			runs[nr++] = i;
			for (i++; i < hi && v[i - 1].time <= v[i].time; i++)
				;
		}
		if (nr == 1 && i == hi)
			return 0;
		for (k = 0; k + 1 < nr; k += 2) {
			size_t end = k + 2 < nr ? runs[k + 2] : i;

			if ((ret = merge(wn, v, runs[k], runs[k + 1], end)))
				return ret;
		}
	}
}

int _rsp_window_close(struct window *wn, bool last, size_t *first, size_t *n)
{
	struct idx *v;
	uint64_t edge = UINT64_MAX;
	size_t lo, hi;
	int ret;

	*first = wn->head;
	*n = 0;
	/* what the last call gave is done: move the rest to the front once it is a fifth */
	if (wn->head >= 4096 && wn->head >= 4 * (wn->pend.n - wn->head)) {
		memmove(wn->pend.v, wn->pend.v + wn->head,
			(wn->pend.n - wn->head) * sizeof(*wn->pend.v));
		wn->pend.n -= wn->head;
		wn->sorted -= wn->head;
		wn->head = 0;
		*first = 0;
	}
	v = wn->pend.v;
	if (wn->sorted < wn->pend.n) {
		if ((ret = sort_group(wn, v, wn->sorted, wn->pend.n)) ||
		    (wn->sorted > wn->head && (ret = merge(wn, v, wn->head, wn->sorted, wn->pend.n))))
			return ret;
		wn->sorted = wn->pend.n;
	}
	wn->mins[wn->n_groups++ % WINDOW_GROUPS] = wn->group_min;
	wn->group_min = UINT64_MAX;
	if (!last) {
		if (wn->n_groups < WINDOW_GROUPS)
			return 0;
		for (size_t k = 0; k < WINDOW_GROUPS; k++)
			if (wn->mins[k] < edge)
				edge = wn->mins[k];
		/* the trace's start is known once no record could come before it */
		if (!wn->given_any && (!wn->min_nonzero || edge < wn->min_nonzero))
			return 0;
	}
	/* the entries no younger than the edge */
	lo = wn->head;
	hi = wn->pend.n;
	if (!last)
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (v[mid].time <= edge)
				lo = mid + 1;
			else
				hi = mid;
		}
	else
		lo = hi;
	*n = lo - wn->head;
	if (*n) {
		wn->given_any = true;
		wn->given_max = v[lo - 1].time;
	}
	*first = wn->head;
	wn->head = lo;
	return 0;
}
