/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Claims: the time of a thread the target started that is already counted
 * inside someone's sleep (a call walked there, its overhang's waits, its
 * idle waits for the next request, the CPU it held while a walked thread
 * waited for it).  What is left of such a thread's life is its own control
 * path, work running in parallel (analysis.c, explain_descendant).
 */
#include "analysis/analysis-private.h"
#include "base/search.h"
#include "base/sort.h"

#include <stdlib.h>
#include <string.h>

void analysis_claim(struct rsp_analysis *an, uint32_t thread, uint64_t s, uint64_t e)
{
	struct interval iv = { s, e };
	struct interval *last;

	if (thread == RSP_NONE || e <= s || !an->claims)
		return;
	/* only their union counts: one that meets the last is merged into it (a
	 * call's claim reaching back over the runnable pieces claimed before it,
	 * which would otherwise leave the list in as many runs as calls) */
	if (an->claims[thread].n) {
		last = &an->claims[thread].v[an->claims[thread].n - 1];
		if (s <= last->e && e >= last->s) {
			last->s = s < last->s ? s : last->s;
			last->e = e > last->e ? e : last->e;
			return;
		}
	}
	vec_push(&an->claims[thread], iv);
}

/* The control path of @ti's nearest target ancestor (itself included), or RSP_NONE. */
uint32_t analysis_path_of_ancestor(struct rsp_analysis *an, uint32_t ti)
{
	for (size_t hops = 0; ti != RSP_NONE && hops < 100000; hops++) {
		if (an->is_target[ti])
			return an->path_of_thread[ti];
		ti = an->t->threads.v[ti].parent;
	}
	return RSP_NONE;
}

/*
 * A thread the target started held the CPU a walked thread waited for, over
 * [@s, @e] (it preempted it, or ran on the CPU the thread had been woken to):
 * that run is why the thread waited, counted there, not again as work of its
 * own control path running in parallel (nothing ran in parallel: one of the
 * two waited for the other).
 */
bool analysis_is_descendant(struct rsp_analysis *an, uint32_t ti)
{
	return !an->is_target[ti] && an->t->threads.v[ti].parent != RSP_NONE &&
	       analysis_path_of_ancestor(an, an->t->threads.v[ti].parent) != RSP_NONE;
}

bool analysis_claim_holder(struct rsp_analysis *an, uint32_t holder, uint64_t s, uint64_t e)
{
	if (holder == RSP_NONE || !analysis_is_descendant(an, holder))
		return false;
	analysis_claim(an, holder, s, e);
	return true;
}

/*
 * @v sorted by start, made a union of disjoint intervals in place; returns
 * the new count.
 */
size_t analysis_union_claims(struct interval *v, size_t n)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		if (o && v[i].s <= v[o - 1].e) {
			if (v[i].e > v[o - 1].e)
				v[o - 1].e = v[i].e;
			continue;
		}
		v[o++] = v[i];
	}
	return o;
}

/*
 * Claim for @thread the parts of [@s, @e] that @holder's first @n claims
 * (sorted, disjoint) cover: its time there was in a target's path.
 */
struct claim_query {
	const struct interval *v;
	uint64_t s;
};

static bool ends_by(const void *ctx, size_t i)
{
	const struct claim_query *q = ctx;

	return q->v[i].e <= q->s;
}

void analysis_claim_where_claimed(struct rsp_analysis *an, uint32_t thread, uint32_t holder,
				  size_t n, uint64_t s, uint64_t e)
{
	const struct interval *v = an->claims[holder].v;
	struct claim_query q = { v, s };

	/* from the first that ends after @s */
	for (size_t i = _rsp_gallop(n, 0, ends_by, &q); i < n && v[i].s < e; i++)
		analysis_claim(an, thread, v[i].s > s ? v[i].s : s, v[i].e < e ? v[i].e : e);
}

static int cmp_iv(const void *x, const void *y)
{
	const struct interval *a = x, *b = y;

	return a->s < b->s ? -1 : a->s > b->s;
}

static bool starts_first(const void *x, const void *y)
{
	return ((const struct interval *)x)->s < ((const struct interval *)y)->s;
}

/*
 * Claims sorted by start.  They come in runs already in order (each root's
 * walk in time order, a call's overhang reaching back a little, then the
 * thread's own idle sleeps): the runs are merged (qsort only if there is no
 * memory for the merge).
 */
void analysis_sort_claims(struct interval *v, size_t n)
{
	if (_rsp_merge_sort_runs(v, n, sizeof(*v), starts_first))
		qsort(v, n, sizeof(*v), cmp_iv);
}
