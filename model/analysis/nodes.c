/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The analysis' nodes: made in depth-first order; in summary mode only the
 * last NODE_RING are kept, and a node leaving the ring is accounted for at
 * once.  A leaf is a node with a category: its time counts.
 */
#include "analysis/analysis-private.h"
#include "base/search.h"

#include <string.h>

uint32_t analysis_add_node(struct rsp_analysis *an, uint8_t kind, uint64_t s, uint64_t e,
			 uint32_t parent, uint32_t depth)
{
	struct anode n, *slot;

	memset(&n, 0, sizeof(n));
	n.start = s;
	n.end = e;
	n.parent = parent;
	n.depth = depth;
	n.kind = kind;
	n.path = an->cur_path;
	n.thread = n.slice = n.io = n.net = n.link = n.other = n.site = RSP_NONE;
	n.cat = 0xff;
	if (an->n_made >= RSP_NONE - 1) {
		an->nomem = true; /* node numbers are 32 bits */
		return RSP_NONE;
	}
	if (an->summary) {
		/* the ring: the node made NODE_RING ago leaves it */
		slot = &an->nodes.v[an->n_made % NODE_RING];
		if (an->n_made >= NODE_RING)
			analysis_retire(an, slot);
		*slot = n;
	} else if (!vec_push(&an->nodes, n)) {
		an->nomem = true;
		return RSP_NONE;
	}
	return (uint32_t)an->n_made++;
}

/* A leaf: a node with a category; its time counts. */
uint32_t analysis_leaf(struct rsp_analysis *an, uint8_t kind, enum rsp_category cat, uint64_t s,
		     uint64_t e, uint32_t parent, uint32_t depth, uint32_t thread)
{
	uint32_t n;

	if (e <= s)
		return RSP_NONE;
	n = analysis_add_node(an, kind, s, e, parent, depth);
	if (n == RSP_NONE)
		return n;
	analysis_node(an, n)->cat = (uint8_t)cat;
	analysis_node(an, n)->thread = thread;
	an->cat_ns[cat] += e - s;
	an->paths.v[an->cur_path].cat_ns[cat] += e - s;
	analysis_queue_leaf(an, analysis_node(an, n));
	return n;
}

struct slice_query {
	const struct slice *v;
	uint64_t a;
};

static bool ends_by(const void *ctx, size_t i)
{
	const struct slice_query *q = ctx;

	return q->v[i].end <= q->a;
}

size_t analysis_first_slice(struct rsp_analysis *an, uint32_t thread, uint64_t a)
{
	const struct thread *th = &an->t->threads.v[thread];
	struct slice_query q = { th->slices.v, a };
	size_t k = _rsp_gallop(th->slices.n, an->slice_hint ? an->slice_hint[thread] : 0, ends_by,
			       &q);

	if (an->slice_hint)
		an->slice_hint[thread] = k;
	return k;
}

struct sockop_query {
	const struct sock_op *v;
	uint64_t t;
};

static bool op_before(const void *ctx, size_t i)
{
	const struct sockop_query *q = ctx;

	return q->v[i].time < q->t;
}

size_t analysis_first_sockop(const struct rsp_analysis *an, uint64_t t)
{
	struct sockop_query q = { an->t->sockops.v, t };

	return _rsp_gallop(an->t->sockops.n, 0, op_before, &q);
}

uint32_t analysis_stack_id(struct rsp_analysis *an, uint32_t stack)
{
	return trace_stack_resolve(an->t, stack);
}

void analysis_explained_ns(struct rsp_analysis *an, uint64_t ns)
{
	an->explained_ns += ns;
	if (an->cur_path < an->paths.n)
		an->paths.v[an->cur_path].explained_ns += ns;
}

uint32_t analysis_link_waker(const struct rsp_analysis *an, const struct link *l)
{
	if (l->waker == RSP_NONE && l->kind == LINK_NET && l->extra < an->t->nets.n)
		return an->t->nets.v[l->extra].sender;
	return l->waker;
}
