/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Off-CPU analysis (Gregg): the time threads spent switched out, by kernel +
 * user stack, each stack with a power-of-two latency histogram (DTrace's
 * quantize).  Blocked time (switch-out to wakeup) and dispatcher-queue time
 * (wakeup to switch-in, and preemptions) are kept apart.  Filters: which
 * threads, a minimum length, the sleep state, and the synchronous context:
 * only waits while the thread was inside a given function (the paper's
 * dispatch_command: waits during a query, not idle waits for work).
 */
#ifndef RSP_OFFCPU_H
#define RSP_OFFCPU_H

#include "rsp-causes.h"
#include "rsp-frames.h"
#include "rsp-model.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rsp_offcpu;

struct rsp_offcpu_opts {
	struct rsp_thread_filter threads;
	uint64_t min_ns; /* leave out intervals shorter than this */
	/*
	 * Only the intervals in these states (RSP_WAIT_*, rsp-frames.h): a
	 * sleep's blocked part is S or D, its runnable part after the wakeup R,
	 * a preemption P.  0: all.
	 */
	unsigned states;
	/*
	 * Only waits whose stack holds a function matching this name or fnmatch(3)
	 * glob (user frames are what it is meant for; kernel frames count too);
	 * NULL: all.
	 */
	const char *within;
};

int rsp_offcpu_build(struct rsp_trace *t, const struct rsp_offcpu_opts *opts,
		     struct rsp_offcpu **out, char *err, size_t errlen);
void rsp_offcpu_free(struct rsp_offcpu *o);

enum rsp_offcpu_part {
	RSP_OFFCPU_BLOCKED, /* asleep, from the switch-out to the wakeup */
	RSP_OFFCPU_RUNNABLE, /* in the dispatcher queue: woken or preempted, not running */
};

#define RSP_OFFCPU_BUCKETS 65 /* [0]: 0 ns; [k]: 2^(k-1) <= ns < 2^k */

struct rsp_offcpu_summary {
	uint64_t count[2], total_ns[2]; /* by part, after the filters */
	uint64_t below_min; /* intervals left out by min_ns */
	uint64_t outside; /* intervals left out by @within */
	uint64_t left_out; /* waits of unknown length: before the trace, at its end, lost */
	size_t n_threads; /* threads selected */
};
void rsp_offcpu_get_summary(const struct rsp_offcpu *o, struct rsp_offcpu_summary *out);

struct rsp_offcpu_stack {
	size_t thread; /* the first thread with it; its process names the user frames */
	int pid;
	const char *comm; /* the process's name */
	size_t n_threads; /* distinct threads that waited here */
	uint64_t count, total_ns, max_ns;
	uint64_t hist[RSP_OFFCPU_BUCKETS];
	size_t n_frames;
};
/* Stacks of a part, by total time, largest first. */
size_t rsp_offcpu_n_stacks(const struct rsp_offcpu *o, enum rsp_offcpu_part part);
void rsp_offcpu_stack_info(const struct rsp_offcpu *o, enum rsp_offcpu_part part, size_t i,
			   struct rsp_offcpu_stack *out);
void rsp_offcpu_stack_frame(const struct rsp_offcpu *o, enum rsp_offcpu_part part, size_t i,
			    size_t k, struct rsp_named_frame *out);

/* The bucket of @ns and the lowest value in bucket @b. */
unsigned rsp_offcpu_bucket(uint64_t ns);
uint64_t rsp_offcpu_bucket_value(unsigned b);

#endif /* RSP_OFFCPU_H */
