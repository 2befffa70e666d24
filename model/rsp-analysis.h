/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The recursive analysis: from a target's runs, follow wakeups backwards and
 * build cross-process pseudostacks (a sleep's cause becomes its child, like a
 * function call), grouped into control paths; then the explanation table.
 * See docs/ANALYSIS.md.
 */
#ifndef RSP_ANALYSIS_H
#define RSP_ANALYSIS_H

#include "rsp-model.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rsp_analysis;

/* The explanation's categories, from best to least understood. */
enum rsp_category {
	RSP_CAT_CPU, /* running, with samples: in understood functions */
	RSP_CAT_CPU_UNSAMPLED, /* running, between sampler ticks */
	RSP_CAT_DISK, /* a block request was being serviced */
	RSP_CAT_NET, /* waiting for data from a peer off this machine */
	RSP_CAT_IO_QUEUE, /* a block request queued, not yet issued */
	RSP_CAT_SCHED, /* runnable, waiting for a CPU */
	RSP_CAT_HARDWARE, /* woken by a device interrupt */
	RSP_CAT_INVOLUNTARY, /* preempted */
	RSP_CAT_DELIBERATE, /* nanosleep and friends */
	RSP_CAT_TIMEOUT, /* other waits that ended by timing out */
	RSP_CAT_KERNEL, /* blocked in the kernel on nothing rsp traces */
	RSP_CAT_OTHER_PATH, /* waiting on work running in parallel */
	RSP_CAT_UNKNOWN, /* lost records: nothing is known */
	RSP_CAT_UNACCOUNTED, /* woken, but the cause was not recorded */
	/*
	 * Waiting with nothing to do (docs/ANALYSIS.md, "Idle"): a server between
	 * requests, an event loop's idle timer ticks, a helper waiting for work.
	 * Not a cost: kept out of the time percent accounted and explained are of
	 * (rsp_explanation_not_idle()).  Outputs show it only where it is not 0.
	 */
	RSP_CAT_IDLE,
	RSP_CAT__COUNT
};

const char *rsp_category_name(enum rsp_category c);
/* A stable identifier for CSV/JSON: "cpu", "disk", ... */
const char *rsp_category_key(enum rsp_category c);
/* What to look at when the category is large. */
const char *rsp_category_advice(enum rsp_category c);

/* A window of one thread (rsp_trace_thread() index) to explain. */
struct rsp_window {
	size_t thread;
	uint64_t start_ns, end_ns;
};

struct rsp_analysis_opts {
	uint64_t tolerance_ns; /* 0: the default (RSP_DEFAULT_TOLERANCE_NS) */
	size_t max_nodes; /* 0: unlimited; a bound on what one analysis may pull in */
	size_t max_depth; /* 0: 256 */
	/*
	 * Keep only what the table needs (the categories, paths and contributors),
	 * not the tree: rsp_analysis_n_nodes() is then 0.  rsp report's case: a
	 * million-record trace makes a million nodes (64 MB) it never reads.
	 */
	bool summary;
	/*
	 * Explain these windows instead of the target threads' whole spans: each is
	 * a control path of its own (path i is window i; windows of one thread may
	 * overlap, each then counts its time), its thread a target thread or one of
	 * a process the target forked (a postmaster's backend); nothing else the
	 * target forked is added.  A server's requests (rsp-requests.h): the time
	 * between them is not explained.
	 */
	const struct rsp_window *windows;
	size_t n_windows;
};

#define RSP_DEFAULT_TOLERANCE_NS 1000000ull

/* The target: the processes @pids (all their threads), or one thread if @tid > 0. */
int rsp_analyze(struct rsp_trace *t, const int *pids, size_t n_pids, int tid,
		const struct rsp_analysis_opts *opts, struct rsp_analysis **out, char *err,
		size_t errlen);
void rsp_analysis_free(struct rsp_analysis *a);

struct rsp_explanation {
	uint64_t wall_ns; /* the target's first to last activity */
	uint64_t total_ns; /* parallelism counted: the sum of the control paths */
	uint64_t start_ns, end_ns;
	uint64_t cat_ns[RSP_CAT__COUNT]; /* a partition of total_ns (idle included) */
	/* of the time not idle, the leaves named by a function (measured, estimated or
	 * inferred), a device, a peer, a competing thread or an idle CPU */
	uint64_t explained_ns;
	size_t n_paths; /* control paths */
	size_t n_threads; /* target threads */
	size_t n_processes; /* distinct processes anywhere in the pseudostacks */
	size_t n_nodes;
	size_t n_cut; /* children cut at their parent's start (triangles, overhangs) */
	size_t n_bounded; /* links not followed: max_nodes / max_depth reached */
	/* calls whose last run went on after it woke its caller, while the caller's
	 * CPU was waking from idle: that overflow, not counted in total_ns */
	size_t n_overflow;
	uint64_t overflow_ns;
	uint64_t tolerance_ns;
	/* of the target's paths' time: waiting while a server it called over a
	 * socket served other connections' requests (each leaf keeps its category:
	 * the server's CPU, its disk...); the whole target only */
	uint64_t queued_ns;
	size_t n_queued; /* the connections it queued behind: rsp_analysis_queued() */
	/* of the time not idle: waits for a CPU that the recorder's own threads held
	 * ("the recorder (rsp record)" in the sched and involuntary contributors),
	 * the time the recording took from the program; in a file rsp record wrote */
	uint64_t recorder_ns;
};

/* The time not idle (total_ns less RSP_CAT_IDLE's): what percents are of. */
static inline uint64_t rsp_explanation_not_idle(const struct rsp_explanation *e)
{
	return e->total_ns - e->cat_ns[RSP_CAT_IDLE];
}

/* Of the time not idle, the part whose cause was recorded (not unaccounted, not unknown). */
static inline uint64_t rsp_explanation_accounted(const struct rsp_explanation *e)
{
	return rsp_explanation_not_idle(e) - e->cat_ns[RSP_CAT_UNACCOUNTED] -
	       e->cat_ns[RSP_CAT_UNKNOWN];
}

/* The whole target, or one of its control paths (@path < n_paths). */
void rsp_analysis_explanation(const struct rsp_analysis *a, struct rsp_explanation *out);
void rsp_analysis_path_explanation(const struct rsp_analysis *a, size_t path,
				   struct rsp_explanation *out);

/* The @i-th connection the target queued behind (most time first): the server's
 * socket of it (rsp_trace_socket(): its remote end is the other client), the
 * time, and that time by category (@cat_ns: RSP_CAT__COUNT entries, or NULL). */
void rsp_analysis_queued(const struct rsp_analysis *a, size_t i, size_t *socket, uint64_t *ns,
			 uint64_t *cat_ns);
/* The client of the @i-th connection queued behind (rsp_trace_thread()): the
 * thread that sent most of the data arriving on the server's socket; RSP_NO_INDEX
 * when none on this machine is known, and for a UDP server's other peer. */
size_t rsp_analysis_queued_client(const struct rsp_analysis *a, size_t i);
/* What the server did while the target queued behind connection @i: its
 * contributors (category and label), most time first; a run without samples is
 * named by its site, a sampled run by its first sample's function. */
size_t rsp_analysis_n_queued_what(const struct rsp_analysis *a, size_t i);
void rsp_analysis_queued_what(const struct rsp_analysis *a, size_t i, size_t k,
			      enum rsp_category *cat, const char **what, uint64_t *ns);

struct rsp_contributor {
	const char *what; /* "rpc-backend: fsync > __libc_fsync", "254:0", "127.0.0.1:8080" */
	uint64_t ns;
	uint64_t count; /* intervals (estimated: the runs of the sites it is estimated in) */
	/*
	 * Of ns: estimated (runs without samples, divided among the functions
	 * their site's samples hit) and inferred (runs without samples at a site
	 * without any: given to the site); the rest is measured.
	 */
	uint64_t ns_estimated, ns_inferred;
};
/* The top contributors of a category, largest first. */
size_t rsp_analysis_n_contributors(const struct rsp_analysis *a, enum rsp_category c);
void rsp_analysis_contributor(const struct rsp_analysis *a, enum rsp_category c, size_t i,
			      struct rsp_contributor *out);
/*
 * How a contributor's time is known when not measured, as the tables say it:
 * "estimated" or "inferred" (the larger part, or both together: "estimated");
 * NULL when more than half of it was measured.
 */
const char *rsp_contributor_how_known(const struct rsp_contributor *k);

/* ---- control paths and pseudostacks (for views and exports) --------------------------- */

struct rsp_path_info {
	size_t thread; /* the thread at its bottom */
	uint64_t start_ns, end_ns;
	bool async; /* work the target started and did not wait for in one sleep */
};
size_t rsp_analysis_n_paths(const struct rsp_analysis *a);
void rsp_analysis_path(const struct rsp_analysis *a, size_t i, struct rsp_path_info *out);

enum rsp_node_kind {
	RSP_NODE_ROOT = 1, /* a control path's span */
	RSP_NODE_RUN, /* a thread running */
	RSP_NODE_SLEEP, /* a thread sleeping: its children are why */
	RSP_NODE_RUNNABLE, /* the runnable end of a sleep */
	RSP_NODE_PREEMPTED,
	RSP_NODE_IO_QUEUE,
	RSP_NODE_IO,
	RSP_NODE_NET,
	RSP_NODE_HARDWARE,
	RSP_NODE_TIMEOUT,
	RSP_NODE_KERNEL,
	RSP_NODE_OTHER_PATH,
	RSP_NODE_UNKNOWN,
	RSP_NODE_UNACCOUNTED,
	RSP_NODE_IDLE, /* waiting with nothing to do (RSP_CAT_IDLE) */
};

#define RSP_NODE_CUT 0x01 /* starts where its parent does: the earlier part was cut */
#define RSP_NODE_DEFACTO 0x02 /* a de facto sleep: several timed-out sleeps as one */
#define RSP_NODE_BOUNDED 0x04 /* not expanded: a bound was reached */
/* a run without samples: its code estimated from its site's samples, or inferred
 * from its site alone (its label) */
#define RSP_NODE_ESTIMATED 0x08
#define RSP_NODE_INFERRED 0x10
/* a sampled run's part that stands for the samples taken in it only (a waker's
 * run after its wakeup), not for every sample of the run */
#define RSP_NODE_PART_SAMPLES 0x20

struct rsp_node_info {
	enum rsp_node_kind kind;
	enum rsp_category category; /* leaves */
	size_t parent; /* RSP_NO_INDEX for a root */
	size_t path;
	unsigned depth;
	unsigned flags;
	uint64_t start_ns, end_ns;
	size_t thread; /* RUN/SLEEP/RUNNABLE/PREEMPTED, else RSP_NO_INDEX */
	size_t slice; /* RUN/SLEEP: the thread's slice */
	size_t io; /* IO/IO_QUEUE: the request */
	size_t net; /* NET: the arrival */
	size_t link; /* SLEEP: the link that ended it */
	size_t other_thread; /* OTHER_PATH: the waker; TIMEOUT: what ran meanwhile */
	const char *label; /* irq name, peer address, function; may be NULL */
};
/* Nodes in depth-first order (a parent before its children), each path in turn. */
size_t rsp_analysis_n_nodes(const struct rsp_analysis *a);
void rsp_analysis_node(const struct rsp_analysis *a, size_t i, struct rsp_node_info *out);

/*
 * What a run leaf is taken to have run, as parts of its time, as the table
 * split it.  With samples: each sample's stack, with the time it stands for
 * (one sampler period, docs/ANALYSIS.md), then the rest of the run estimated
 * from its site as below.  Without (RSP_NODE_ESTIMATED or RSP_NODE_INFERRED):
 * estimated, a sample's stack for each function its site's samples hit, with
 * the share the estimate gives it; inferred, the site's own frames (root to
 * the common one).  The shares sum to 1.  Returns how many parts there are (at
 * most @max are filled); 0 for any other node.  Stacks are rsp_stack_frame()'s,
 * of the node's thread's process at @time.
 */
struct rsp_run_part {
	uint32_t stack;
	uint64_t time;
	double share;
	bool estimated; /* from its site's samples (else a sample's own, or inferred) */
};
size_t rsp_analysis_run_parts(const struct rsp_analysis *a, size_t node,
			      struct rsp_run_part *out, size_t max);

#endif /* RSP_ANALYSIS_H */
