/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared by the analysis' files, each calling only the ones listed before it:
 *   queue.c      a server's request windows: the time queued behind other connections
 *   explain.c    the table: categories, contributors, the queries
 *   nodes.c      nodes and leaves
 *   labels.c     what each leaf was: its label
 *   cpus.c       who held the CPU a runnable thread waited for
 *   runs.c       what a run was doing: its samples, or its site (estimated, inferred)
 *   idle.c       waits with nothing to do: a server between requests, idle ticks
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
	uint32_t site; /* RUN: its site, if it has no samples or a rest (runs.c); RSP_NONE */
	uint32_t path;
	uint32_t label; /* string id */
	uint32_t depth; /* chains can be deeper than 65535 */
	uint8_t kind, flags;
	uint8_t cat; /* leaves; 0xff for inner nodes */
	/* a leaf's time queued behind another connection (queue.c), and the one it
	 * overlaps most (index in rsp_analysis.queued) */
	uint32_t q_peer;
	uint64_t q_ns;
};

struct apath {
	uint32_t thread, parent;
	uint64_t start, end;
	uint64_t span; /* time it covers: end - start, or the sum of an async path's segments */
	bool async;
	uint64_t cat_ns[RSP_CAT__COUNT];
	uint64_t explained_ns; /* of its leaves, those named by a function, device or peer */
};

struct interval {
	uint64_t s, e;
};

/* queue.c: a server thread's request on one connection, receive to reply */
struct req_window {
	uint64_t s, e;
	uint64_t reach; /* the latest end of this and the windows before it */
	uint32_t sock;
};
struct server_windows {
	VEC(struct req_window) w; /* by start (two read in one turn may overlap: reach) */
};
/* what was done meanwhile: a leaf's label and category */
struct queued_what {
	uint32_t label;
	uint8_t cat;
	uint64_t ns;
};
/* time the target queued behind another connection of a server (its socket there) */
struct queued_peer {
	uint32_t sock;
	uint64_t ns;
	uint64_t cat_ns[RSP_CAT__COUNT];
	VEC(struct queued_what) what; /* by ns after analysis_queue_finish() */
	uint32_t client; /* its client's thread, RSP_NONE (analysis_queue_finish()) */
};

/* How a contributor's time is known. */
enum share_kind {
	RSP_SHARE_MEASURED, /* from the leaf itself (a sampled run: its samples) */
	RSP_SHARE_ESTIMATED, /* a run without samples: its site's samples */
	RSP_SHARE_INFERRED, /* a run without samples at a site without any: the site */
};

struct contrib {
	uint32_t label;
	uint64_t ns, count;
	uint64_t ns_estimated, ns_inferred; /* of ns */
};

/* The site of runs without samples (runs.c): where their code ran. */
struct run_site {
	int pid;
	uint32_t thread; /* one of the process's threads, for its comm */
	uint32_t label; /* "comm: caller > common (from X to Y)", or "comm" */
	uint32_t what; /* the label past "comm: " (runs.c, run_words()); 0: not made yet */
	/* what its pool's samples hit most, "comm (tid N): WHAT (estimated)" of its thread
	 * (runs.c, site_estimate()); 0: not made yet, RSP_NONE: none */
	uint32_t estimate;
	bool named; /* the label names code */
	/* its frames, root to the common one, as a stack (0: none) of @pid at @time */
	uint32_t stack;
	uint64_t time;
	uint32_t pool, coarse; /* its samples: at this site; at its common frames */
	uint64_t ns, count; /* the analysis' runs without samples here */
	/* what the samples of its sampled runs do not stand for (runs.c, split_of()):
	 * estimated from its pool like the runs without samples, as CPU time */
	uint64_t rest_ns;
};

struct site_slot {
	uint32_t a, b; /* the stacks before and after */
	int pid;
	uint32_t site; /* RSP_NONE: empty */
};

/* A process's samples at one site, trace-wide. */
struct site_pool {
	uint32_t key; /* string id */
	uint64_t run_ns; /* every run at the site, sampled or not */
	uint64_t samples;
};

struct pool_entry {
	uint32_t pool, label;
	uint64_t samples;
	uint64_t measured_ns; /* the time the sampled runs gave these samples */
	uint32_t stack; /* one of its samples' (for the views), and its time */
	uint64_t time;
};

struct rsp_analysis {
	struct rsp_trace *t;
	uint64_t tol;
	size_t max_nodes, max_depth;
	bool started_by_rsp;
	/* the file was written by rsp record: its threads (rsp-record, rsp-writer,
	 * rsp-ustack, rsp-watch) are in it, named as the recorder (analysis_is_recorder()) */
	bool by_rsp;
	uint64_t recorder_ns; /* the target's waits for a CPU the recorder held */

	VEC(struct anode) nodes; /* summary: a ring of NODE_RING, node i at i % NODE_RING */
	bool summary;
	/* rsp_analysis_opts.windows: each window is one piece of work (a request)
	 * that counts its own time, so another target thread's work inside it (a
	 * worker the request was handed to) is a call, not a path of its own */
	bool windows;
	size_t n_made; /* nodes made (summary: more than the ring holds) */
	uint8_t *thread_seen; /* per thread: a node of it was made (for n_processes) */
	struct interval *swept; /* per thread: the span whose waits claim_waits() claimed */
	size_t n_processes;
	VEC(struct apath) paths;
	uint32_t cur_path;
	uint64_t cat_ns[RSP_CAT__COUNT];
	uint64_t explained_ns;
	uint64_t start, end;
	size_t n_threads, n_cut, n_bounded;
	size_t n_overflow; /* replies whose tail ran while their caller's CPU woke */
	uint64_t overflow_ns; /* that tail's time, not counted (cpus.c) */
	/* queueing behind other connections (queue.c): the walk's server thread and
	 * its socket of the target's connection (RSP_NONE: outside any such call) */
	uint32_t q_thread, q_sock;
	struct _rsp_u64map q_index; /* server thread -> q_servers */
	VEC(struct server_windows) q_servers;
	uint64_t queued_ns;
	VEC(struct queued_peer) queued; /* by ns after analysis_queue_finish() */
	bool nomem;

	uint8_t *is_target; /* per thread */
	uint32_t *on_stack; /* per thread: frames of it on the walk's stack */
	uint32_t *path_of_thread;
	VEC(struct interval) *claims; /* per thread: time used inside others' sleeps */
	/* per target thread: the windows its own control path lends to a thread of the
	 * target that waited on it as its helper (helper_call() in analysis.c), sorted,
	 * disjoint: walked there as a call, so not again in its own path */
	VEC(struct interval) *lent;

	/* labels: per (unwound stack, kernel?, pid), cached */
	struct _rsp_u64map labels;
	/* "comm: what" per (comm, what); "comm (tid N)" per thread; "comm preempted by
	 * comm" and "comm preempted, while comm ran" per comm_pair_key(); "comm (tid N):
	 * what" per (thread, what) */
	struct _rsp_u64map comm_labels, other_labels, preempted_labels, preempt_while_labels,
		tid_labels;
	/* contributors per category, built by analysis_finish() */
	VEC(struct contrib) contrib[RSP_CAT__COUNT];
	/* (category, label) -> its contributor's index */
	struct _rsp_u64map contribs;

	/* runs without samples (runs.c) */
	VEC(struct run_site) sites;
	VEC(struct site_pool) pools;
	VEC(struct pool_entry) entries;
	struct site_slot *site_ht; /* (stack before, stack after, pid) -> site */
	size_t site_cap;
	struct _rsp_u64map pool_index; /* (pid, key) -> pool */
	struct _rsp_u64map entry_index; /* (pool, label) -> entry */
	struct _rsp_u64map pooled; /* pids whose runs are in the pools */
	uint32_t *by_pid; /* thread indexes grouped by process */
	struct _rsp_u64map pid_first; /* pid -> its first index in by_pid */
	struct _rsp_u64map periods; /* pid -> the CPU time one of its samples stands for */

	/* idle (idle.c): per thread 1 in the target's tree, 2 not, 0 not known yet;
	 * per socket: served by its process (queue.c marks them as it splits a
	 * process's requests); the places a thread waited idle ((thread, stack) -> 1);
	 * the chain of timed-out waits judged last; the births of forked threads
	 * ((parent << 32 | birth in us), sorted); whether the tree serves clients
	 * outside it and the trace has CPU samples (0 not known yet, 1 yes, 2 no) */
	uint8_t *idle_tree, *sock_served;
	struct _rsp_u64map idle_places;
	struct idle_chain {
		bool valid, last_idle, members_idle;
		uint32_t thread, first, last;
	} idle_chain;
	VEC(uint64_t) idle_births;
	bool idle_births_done;
	uint8_t *idle_servers; /* per thread: its process known to serve (known_server()) */
	uint8_t idle_serves, idle_sampled;

	/* who held each CPU (cpus.c) */
	const struct cpu_runs *cpu_runs; /* the trace's (trace_cpu_runs()) */
	size_t *run_hint; /* per CPU: the last first_after() answer */
	size_t *slice_hint; /* per thread: the last analysis_first_slice() answer */
	struct _rsp_u64map sched_labels;
};

/* --- explain.c -------------------------------------------------------------------- */

/* Add to category @c's contributor @label (one entry per label), known as @how. */
void analysis_contribute(struct rsp_analysis *an, enum rsp_category c, uint32_t label,
			 uint64_t ns, uint64_t count, enum share_kind how);
/* a node done with: its time to its category's contributors (a run without
 * samples: to its site, runs.c), its process counted */
void analysis_retire(struct rsp_analysis *an, const struct anode *n);
/* the nodes still in the ring retired, the processes counted (summary: the ring freed) */
void analysis_retire_all(struct rsp_analysis *an);
/* the contributors of each category folded and sorted; -ENOMEM if anything failed */
int analysis_contribs_sort(struct rsp_analysis *an);
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

/* the first slice of @thread that ends after @a (slices.n if none); searched from the last
 * answer for that thread (the walk asks in time order, mostly) */
size_t analysis_first_slice(struct rsp_analysis *an, uint32_t thread, uint64_t a);
/* the first socket call (t->sockops, in time order) at or after @t */
size_t analysis_first_sockop(const struct rsp_analysis *an, uint64_t t);
/* the stack id after unwinding (pending copies resolved), for comparing stacks */
uint32_t analysis_stack_id(struct rsp_analysis *an, uint32_t stack);
/* who ended a wait: its waker, else for data its sender (woken from a softirq) */
uint32_t analysis_link_waker(const struct rsp_analysis *an, const struct link *l);
/* @ns of the current path's leaves are named by a function, a device or a peer */
void analysis_explained_ns(struct rsp_analysis *an, uint64_t ns);

/* --- labels.c --------------------------------------------------------------------- */

const char *analysis_thread_comm(const struct rsp_analysis *an, uint32_t th);
/* @th is a thread of the recorder that wrote the file (rsp record's, by its names) */
bool analysis_is_recorder(const struct rsp_analysis *an, uint32_t th);
#define RSP_RECORDER_WORDS "the recorder (rsp record)"
/* "caller > function" of @stack in @pid at @time (kernel: its first non-scheduler
 * function), cached; 0 if it names nothing */
uint32_t analysis_cached_label(struct rsp_analysis *an, uint32_t stack, int pid, uint64_t time,
			       bool kernel);
/* "comm: what" (@what a string id; 0: the comm alone) */
uint32_t analysis_with_comm(struct rsp_analysis *an, uint32_t thread, uint32_t what);
bool analysis_is_deliberate(struct rsp_analysis *an, uint32_t stack);
/* leaves with their labels */
/* The event the trace lacks that would have said why sleep @s (ended by @l, or
 * NULL) ended, or NULL if what was recorded says it */
const char *analysis_not_recorded(const struct rsp_analysis *an, const struct slice *s,
				  const struct link *l);
/* A wait nothing recorded explains: a kernel block (D), unaccounted (S), or
 * unaccounted with the event the trace lacks */
void analysis_unexplained(struct rsp_analysis *an, const struct slice *s, const struct link *l,
			  uint32_t thread, uint64_t lo, uint64_t hi, uint32_t parent,
			  uint32_t depth);
void analysis_label_io(struct rsp_analysis *an, uint32_t node, const struct io_op *io,
		       uint32_t waiter);
void analysis_label_net(struct rsp_analysis *an, uint32_t node, uint32_t net);
void analysis_label_other(struct rsp_analysis *an, uint32_t node, uint32_t thread);
/* "comm (tid N)": @thread alone, not explained */
uint32_t analysis_other_alone(struct rsp_analysis *an, uint32_t thread);
void analysis_label_thread(struct rsp_analysis *an, uint32_t node, uint32_t thread);
void analysis_label_preempted(struct rsp_analysis *an, uint32_t node, uint32_t thread,
			      uint32_t by);
void analysis_label_preempted_while(struct rsp_analysis *an, uint32_t node, uint32_t thread,
				    uint32_t holder);
void analysis_label_timeout(struct rsp_analysis *an, uint32_t node, uint32_t thread,
			    const struct slice *s, bool deliberate);
void analysis_label_kernel(struct rsp_analysis *an, uint32_t node, uint32_t thread,
			   const struct slice *s);
void analysis_label_lost(struct rsp_analysis *an, uint32_t node, uint16_t cpu, bool lost);
void analysis_labels_free(struct rsp_analysis *an);

/* --- cpus.c ---------------------------------------------------------------------- */

/* @thread runnable over [@lo, @hi] before its run @k + 1: leaves by who held the CPU;
 * @call: sleep @k was a call into the thread that woke it */
void analysis_runnable(struct rsp_analysis *an, uint32_t thread, uint32_t k, uint64_t lo,
		       uint64_t hi, uint32_t parent, uint32_t depth, bool call);
/* @thread preempted by @by over [@lo, @hi] (sleep @k): involuntary leaves by who held
 * the CPU (@by, then whoever ran before the thread) */
void analysis_preempted(struct rsp_analysis *an, uint32_t thread, uint32_t k, uint64_t lo,
			uint64_t hi, uint32_t parent, uint32_t depth, uint32_t by);
/* the waits of descendant @thread for a CPU that a target's path held, claimed
 * (@n_sorted: per thread, how many of its claims are sorted and disjoint) */
void analysis_claim_waits_on_paths(struct rsp_analysis *an, uint32_t thread,
				   const size_t *n_sorted);
void analysis_cpus_free(struct rsp_analysis *an);

/* --- runs.c ---------------------------------------------------------------------- */

/* A run's leaf: its samples' functions, or its site */
/* Is @thread's time counted by a control path of its own (not as a call from others)? */
static inline bool analysis_own_path(const struct rsp_analysis *an, uint32_t thread)
{
	return an->is_target[thread] && !an->windows;
}

bool analysis_woken_from(const struct rsp_analysis *an, const struct slice *r, uint32_t th);
uint32_t analysis_run_leaf(struct rsp_analysis *an, uint32_t thread, uint32_t slice,
			   uint64_t lo, uint64_t hi, uint32_t parent, uint32_t depth);
uint32_t analysis_tail_leaf(struct rsp_analysis *an, uint32_t thread, uint32_t slice,
			    uint32_t from, uint64_t lo, uint64_t hi, uint32_t parent, uint32_t depth);
/* A wait [@lo, @hi] ended by another control path's thread @w (link @l):
 * other_path, in pieces named by what @w did during it (runs.c) */
void analysis_other_path(struct rsp_analysis *an, uint32_t w, const struct link *l, uint64_t lo,
			 uint64_t hi, uint32_t parent, uint32_t depth);
/* Other-path node @n, ended by @w through @l: named by what @w ran then (explained),
 * else by the thread */
uint32_t analysis_sending_run(const struct rsp_analysis *an, uint32_t w, const struct net_op *op);
void analysis_label_other_run(struct rsp_analysis *an, uint32_t n, uint32_t w,
			      const struct link *l);
/* [@lo, @hi] of a thread whose scheduling was not recorded: CPU estimated from its
 * samples (each the CPU time it stands for, before it), the rest unaccounted */
void analysis_unrecorded(struct rsp_analysis *an, uint32_t thread, uint64_t lo, uint64_t hi,
			 uint32_t parent, uint32_t depth);
/* the sites' time to the functions their samples hit, or to the sites */
void analysis_runs_finish(struct rsp_analysis *an);
void analysis_runs_free(struct rsp_analysis *an);

/* --- queue.c --------------------------------------------------------------------- */

/* a leaf [@s, @e] made in the walk's current call (an->q_thread) */
void analysis_queue_leaf(struct rsp_analysis *an, struct anode *n);
/* the server thread a call into @thread checks, inside a call into server thread @q */
uint32_t analysis_queue_server(struct rsp_analysis *an, uint32_t q, uint32_t thread);
/* a leaf retired: its queued time to its label (@label: its own or its site's) */
void analysis_queue_retire(struct rsp_analysis *an, const struct anode *n, uint32_t label);
void analysis_queue_finish(struct rsp_analysis *an);
void analysis_queue_free(struct rsp_analysis *an);

/* @thread's request windows, as its process's requests split (by start; NULL
 * without memory); marks the sockets its process serves in an->sock_served */
const struct server_windows *analysis_queue_windows(struct rsp_analysis *an, uint32_t thread);
/* the first of @sw's windows that, or one before which, ends after @s */
size_t analysis_queue_first_window(const struct server_windows *sw, uint64_t s);

/* --- idle.c ---------------------------------------------------------------------- */

/* Sleep @k of @thread, [@lo, @hi] of its wait, in the thread's own control path:
 * if it waited with nothing to do, an idle leaf under @parent, and true */
bool analysis_idle(struct rsp_analysis *an, uint32_t thread, uint32_t k, uint64_t lo,
		   uint64_t hi, uint32_t parent, uint32_t depth);
/* a target thread of which nothing was recorded where scheduling and samples were:
 * asleep all along; its leaf */
/* sleep @k of @th idle as work handed to it by the target's tree (rule 2) */
bool analysis_idle_handed_work(struct rsp_analysis *an, uint32_t th, uint32_t k);
bool analysis_idle_silent(struct rsp_analysis *an, uint32_t thread);
void analysis_idle_silent_leaf(struct rsp_analysis *an, uint32_t thread, uint64_t lo, uint64_t hi,
			       uint32_t parent, uint32_t depth);
void analysis_idle_free(struct rsp_analysis *an);

/* --- claims.c -------------------------------------------------------------------- */

/* @v by start: a merge of the runs already in order (qsort without memory for it) */
void analysis_sort_claims(struct interval *v, size_t n);
size_t analysis_union_claims(struct interval *v, size_t n);
void analysis_claim_where_claimed(struct rsp_analysis *an, uint32_t thread, uint32_t holder,
				  size_t n, uint64_t s, uint64_t e);
void analysis_claim(struct rsp_analysis *an, uint32_t thread, uint64_t s, uint64_t e);
uint32_t analysis_path_of_ancestor(struct rsp_analysis *an, uint32_t ti);
/* a thread the target started (not a target thread): its paths are async */
bool analysis_is_descendant(struct rsp_analysis *an, uint32_t ti);
bool analysis_claim_holder(struct rsp_analysis *an, uint32_t holder, uint64_t s, uint64_t e);

#endif /* RSP_ANALYSIS_PRIVATE_H */
