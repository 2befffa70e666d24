/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Stacks as function names, and the choice of threads an aggregation covers:
 * shared by the latency causes (rsp-causes.h), the off-CPU analysis
 * (rsp-offcpu.h) and the folded-stack exports (rsp-folded.h).
 */
#ifndef RSP_FRAMES_H
#define RSP_FRAMES_H

#include "rsp-model.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * One frame by name.  @func is never NULL: a function, else "[dso]" (the
 * file the address is in), else "[unknown]".  Owned by the trace.
 */
struct rsp_named_frame {
	const char *func;
	bool kernel;
};

/* Which threads: none set means every thread of the trace. */
struct rsp_thread_filter {
	const int *pids; /* processes (all their threads) */
	size_t n_pids;
	int tid; /* > 0: this one thread only */
	bool descendants; /* also the processes they forked during the trace, recursively */
};

/*
 * Per thread index (rsp_trace_n_threads() bytes): 1 if @f selects the thread.
 * The idle tasks (tid 0) are never selected.  malloc'ed; NULL on ENOMEM.
 */
uint8_t *rsp_thread_filter_apply(struct rsp_trace *t, const struct rsp_thread_filter *f);

#endif /* RSP_FRAMES_H */
