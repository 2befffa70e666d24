/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared by the analysis' files, each calling only the ones listed before it:
 *   explain.c    the table: categories, contributors, the queries
 *   nodes.c      nodes and leaves
 *   labels.c     what each leaf was: labels, run leaves split among samples
 *   analysis.c   the recursion: pseudostacks and control paths
 */
#ifndef RSP_ANALYSIS_PRIVATE_H
#define RSP_ANALYSIS_PRIVATE_H

#include "base/hashmap.h"
#include "timeline/trace-private.h"
#include "rsp-analysis.h"

struct anode {
	uint64_t start, end;
	uint32_t parent, thread, slice, io, net, link, other;
	uint32_t path;
	uint32_t label; /* string id */
	uint32_t depth; /* chains can be deeper than 65535 */
	uint8_t kind, flags;
	uint8_t cat; /* leaves; 0xff for inner nodes */
};

struct apath {
	uint32_t thread, parent;
	uint64_t start, end;
	uint64_t span; /* time it covers: end - start, or the sum of an async path's segments */
	bool async;
	uint64_t cat_ns[RSP_CAT__COUNT];
};

struct interval {
	uint64_t s, e;
};

struct contrib {
	uint32_t label;
	uint64_t ns, count;
};

struct rsp_analysis {
	struct rsp_trace *t;
	uint64_t tol;
	size_t max_nodes, max_depth;
	bool started_by_rsp;

	VEC(struct anode) nodes; /* summary: a ring of NODE_RING, node i at i % NODE_RING */
	bool summary;
	size_t n_made; /* nodes made (summary: more than the ring holds) */
	uint8_t *thread_seen; /* per thread: a node of it was made (for n_processes) */
	size_t n_processes;
	VEC(struct apath) paths;
	uint32_t cur_path;
	uint64_t cat_ns[RSP_CAT__COUNT];
	uint64_t start, end;
	size_t n_threads, n_cut, n_bounded;
	bool nomem;

	uint8_t *is_target; /* per thread */
	uint32_t *on_stack; /* per thread: frames of it on the walk's stack */
	uint32_t *path_of_thread;
	VEC(struct interval) *claims; /* per thread: time used inside others' sleeps */

	/* labels: per (unwound stack, kernel?, pid), cached */
	struct _rsp_u64map labels;
	/* "comm: what" per (thread, what); "comm preempted by comm" per (thread, by) */
	struct _rsp_u64map comm_labels, pair_labels;
	/* contributors per category, built by analysis_finish() */
	VEC(struct contrib) contrib[RSP_CAT__COUNT];
	/* (category, label) -> its contributor's index */
	struct _rsp_u64map contribs;
};

/* --- explain.c -------------------------------------------------------------------- */

/* Add to category @c's contributor @label (one entry per label). */
void analysis_contribute(struct rsp_analysis *an, enum rsp_category c, uint32_t label,
			 uint64_t ns, uint64_t count);
/* a node done with: its time to its category's contributors, its process counted */
void analysis_retire(struct rsp_analysis *an, const struct anode *n);
int analysis_finish(struct rsp_analysis *an);
void analysis_contribs_free(struct rsp_analysis *an);

/* --- nodes.c ---------------------------------------------------------------------- */

/*
 * Node @n: while the analysis runs, a node's fields are set right after it is
 * made; in summary mode only the last NODE_RING nodes are kept, and a node
 * leaving the ring is accounted for (analysis_retire()).
 */
#define NODE_RING 1024u
static inline struct anode *analysis_node(struct rsp_analysis *an, uint32_t n)
{
	return &an->nodes.v[an->summary ? n % NODE_RING : n];
}
uint32_t analysis_add_node(struct rsp_analysis *an, uint8_t kind, uint64_t s, uint64_t e,
			   uint32_t parent, uint32_t depth);
/* a node with a category: its time counts */
uint32_t analysis_leaf(struct rsp_analysis *an, uint8_t kind, enum rsp_category cat, uint64_t s,
		       uint64_t e, uint32_t parent, uint32_t depth, uint32_t thread);

/* the first slice of @th that ends after @a (slices.n if none) */
size_t analysis_first_slice(const struct thread *th, uint64_t a);
/* the stack id after unwinding (pending copies resolved), for comparing stacks */
uint32_t analysis_stack_id(struct rsp_analysis *an, uint32_t stack);

/* --- labels.c --------------------------------------------------------------------- */

bool analysis_is_deliberate(struct rsp_analysis *an, uint32_t stack);
/* leaves with their labels */
uint32_t analysis_run_leaf(struct rsp_analysis *an, uint32_t thread, uint32_t slice,
			   uint64_t lo, uint64_t hi, uint32_t parent, uint32_t depth);
void analysis_unexplained(struct rsp_analysis *an, const struct slice *s, uint32_t thread,
			  uint64_t lo, uint64_t hi, uint32_t parent, uint32_t depth);
void analysis_label_io(struct rsp_analysis *an, uint32_t node, const struct io_op *io);
void analysis_label_net(struct rsp_analysis *an, uint32_t node, uint32_t net);
void analysis_label_other(struct rsp_analysis *an, uint32_t node, uint32_t thread);
void analysis_label_thread(struct rsp_analysis *an, uint32_t node, uint32_t thread);
void analysis_label_preempted(struct rsp_analysis *an, uint32_t node, uint32_t thread,
			      uint32_t by);
void analysis_label_timeout(struct rsp_analysis *an, uint32_t node, uint32_t thread,
			    const struct slice *s, bool deliberate);
void analysis_label_kernel(struct rsp_analysis *an, uint32_t node, uint32_t thread,
			   const struct slice *s);
void analysis_label_lost(struct rsp_analysis *an, uint32_t node, uint16_t cpu, bool lost);
void analysis_labels_free(struct rsp_analysis *an);

/* --- analysis.c ------------------------------------------------------------------- */

/* @v by start: a merge of the runs already in order (qsort where there are many) */
void analysis_sort_claims(struct interval *v, size_t n);

#endif /* RSP_ANALYSIS_PRIVATE_H */
