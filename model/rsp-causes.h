/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Latency causes, as LatencyTOP names them: a rule file maps the functions
 * of a wait's stack (kernel or user), and optionally its state and what
 * ended it, to a cause string with a priority.  The accounting splits every
 * wait of a trace into intervals (blocked S/D; runnable after the wakeup;
 * preempted), gives each the cause of the best matching rule, and sums them
 * system-wide, per process and per thread.  The rule file's format is in
 * data/latency-causes.conf's header.
 */
#ifndef RSP_CAUSES_H
#define RSP_CAUSES_H

#include "rsp-frames.h"
#include "rsp-model.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- rules ------------------------------------------------------------------------------ */

struct rsp_causes;

/*
 * Parse a rule file's text; @name is used in errors ("NAME:LINE: what").
 * -EINVAL with one line in @err for a malformed line.
 */
int rsp_causes_parse(const char *text, size_t len, const char *name, struct rsp_causes **out,
		     char *err, size_t errlen);
/* Read and parse @path.  -errno with one line in @err. */
int rsp_causes_load(const char *path, struct rsp_causes **out, char *err, size_t errlen);
void rsp_causes_free(struct rsp_causes *c);

size_t rsp_causes_n_rules(const struct rsp_causes *c);
/* Distinct cause strings, in order of first appearance. */
size_t rsp_causes_n_causes(const struct rsp_causes *c);
const char *rsp_causes_name(const struct rsp_causes *c, size_t cause);

/*
 * The cause of a wait interval with @frames (leaf first) in @state, ended by
 * a link of kind @woken (0: none recorded; meaningful for blocked states).
 * RSP_NO_INDEX when no rule matches.  With @line, the matching rule's line (1-based).
 */
size_t rsp_causes_match(const struct rsp_causes *c, const struct rsp_named_frame *frames,
			size_t n, enum rsp_wait_state state, int woken, unsigned *line);

/* ---- accounting ---------------------------------------------------------------------------- */

struct rsp_latency;

struct rsp_latency_opts {
	bool per_thread; /* also a scope per thread */
	/*
	 * Only intervals in these states (RSP_WAIT_*); 0: all.  RSP_WAIT_BLOCKED
	 * is LatencyTOP's view of causes in the stack, without the scheduler's.
	 */
	unsigned states;
};

/*
 * Every wait of every thread in @t, by cause.  Waits that began before the
 * trace, were still going at its end or touch lost records are left out
 * (their length is not known), and counted in the summary.
 */
int rsp_latency_account(struct rsp_trace *t, const struct rsp_causes *c,
			const struct rsp_latency_opts *opts, struct rsp_latency **out, char *err,
			size_t errlen);
void rsp_latency_free(struct rsp_latency *l);

struct rsp_latency_summary {
	uint64_t intervals, total_ns;
	uint64_t matched, unmatched; /* intervals */
	uint64_t unmatched_ns;
	uint64_t left_out; /* waits of unknown length */
};
void rsp_latency_get_summary(const struct rsp_latency *l, struct rsp_latency_summary *out);

enum rsp_latency_sort {
	RSP_LATENCY_BY_TOTAL,
	RSP_LATENCY_BY_COUNT,
	RSP_LATENCY_BY_AVG,
	RSP_LATENCY_BY_MAX,
};
/* Orders every scope's rows (default: by total), largest first. */
void rsp_latency_sort(struct rsp_latency *l, enum rsp_latency_sort by);

enum rsp_scope_kind {
	RSP_SCOPE_SYSTEM,
	RSP_SCOPE_PROCESS,
	RSP_SCOPE_THREAD,
};

struct rsp_scope_info {
	enum rsp_scope_kind kind;
	int pid, tid; /* -1 / -1 for the system */
	const char *comm;
	size_t parent; /* THREAD: its process's scope, else RSP_NO_INDEX */
	size_t n_threads; /* threads with waits */
	uint64_t count, total_ns;
	size_t n_rows;
};
/*
 * Scope 0 is the whole system; then the processes, by total wait; then (with
 * per_thread) the threads, by process then total.
 */
size_t rsp_latency_n_scopes(const struct rsp_latency *l);
void rsp_latency_scope(const struct rsp_latency *l, size_t scope, struct rsp_scope_info *out);

struct rsp_latency_row {
	size_t cause; /* RSP_NO_INDEX: no rule matched */
	const char *name; /* the cause, or "[no rule matched]" */
	uint64_t count, total_ns, max_ns;
};
void rsp_latency_row(const struct rsp_latency *l, size_t scope, size_t i,
		     struct rsp_latency_row *out);

/* ---- the stacks behind the numbers (LatencyTOP's log) ------------------------------------ */

struct rsp_latency_stack {
	size_t cause; /* RSP_NO_INDEX: no rule matched */
	const char *name;
	unsigned line; /* the rule's line, 0 if none */
	enum rsp_wait_state state;
	uint64_t count, total_ns, max_ns;
	size_t thread; /* the first thread it was seen in (its process names user frames) */
	size_t n_frames;
};
/* One entry per distinct (stack, state, cause), by total, largest first. */
size_t rsp_latency_n_stacks(const struct rsp_latency *l);
void rsp_latency_stack_info(const struct rsp_latency *l, size_t i, struct rsp_latency_stack *out);
void rsp_latency_stack_frame(const struct rsp_latency *l, size_t i, size_t k,
			     struct rsp_named_frame *out);

#endif /* RSP_CAUSES_H */
