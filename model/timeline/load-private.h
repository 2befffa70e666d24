/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The steps of loading, shared by their files; trace.c runs them in order:
 *   index.c   pass 1: every record becomes a (time, file offset) entry; sorted by time
 *   setup.c   the formats and the symbolizer, on a thread beside the scan
 *   walk.c    pass 2: the records in time order, copies merged, to the builder
 */
#ifndef RSP_MODEL_TIMELINE_LOAD_PRIVATE_H
#define RSP_MODEL_TIMELINE_LOAD_PRIVATE_H

#include <pthread.h>

#include "timeline/trace-private.h"

struct idx {
	uint64_t time;
	uint64_t off;
};

#define PROGRESS_EVERY 65536

static inline bool _rsp_load_cancelled(const struct rsp_trace_opts *o)
{
	return o && o->cancel && *o->cancel;
}

/* --- setup.c ------------------------------------------------------------------------ */

/*
 * The set-up that needs only the header records: the tracepoint formats,
 * and the symbolizer with the kallsyms the file holds (parsing and sorting
 * them is most of it).  From a large trace's first records on, a thread does
 * it while the scan goes on; it warns through err only.
 */
struct setup {
	struct rsp_trace *t;
	const struct rsp_trace_opts *o;
	pthread_t tid;
	bool started, done;
	int ret; /* the symbolizer's */
	char terr[256]; /* the formats' warning, or "" */
};

/* Start the thread once the formats are known (a large trace: the scan is far enough). */
void _rsp_setup_start(struct setup *su);
/* After the scan: what the thread did, or all of it now; then what needs the whole stream. */
int _rsp_setup_finish(struct setup *su);
/* A failed scan: wait for the thread, if it runs. */
void _rsp_setup_abandon(struct setup *su);

/* --- index.c ------------------------------------------------------------------------ */

struct scan {
	struct rsp_trace *t;
	struct setup *su; /* started from a large trace's first records */
	VEC(struct idx) idx;
	uint64_t last_time;
	bool nomem;
	/* progress and cancel (rsp_trace_opts) */
	const struct rsp_trace_opts *o;
	uint64_t size, n;
	struct side_scan *side; /* a second thread's share of a stream in many segments */
};

/* rsp_reader_scan()'s callback: @ctx is a struct scan. */
int _rsp_index_record(void *ctx, const struct rsp_record *rec);
/* The scan into sc->idx: on two threads for a stream of many segments (its
 * second thread's share taken in in file order: the same index). */
int _rsp_scan(struct scan *sc, char *err, size_t errlen);
/* Sort @n entries by time (stably), on two threads for many; -ENOMEM. */
int _rsp_sort_index(struct idx **v, size_t n, uint64_t base);

/* --- walk.c ------------------------------------------------------------------------- */

/*
 * The decoders of every attr and the walk of @n sorted entries through the
 * timeline builder (the index's pages are given back as it goes).  0, or
 * -errno with @err set (cancelled, out of memory).
 */
int _rsp_walk(struct rsp_trace *t, const struct rsp_trace_opts *o, struct idx *idx, size_t n,
	      char *err, size_t errlen);

#endif /* RSP_MODEL_TIMELINE_LOAD_PRIVATE_H */
