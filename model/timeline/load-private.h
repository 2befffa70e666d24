/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The steps of loading, shared by their files; trace.c runs them in order:
 *   index.c   pass 1: every record becomes a (time, file offset) entry; sorted by time
 *   setup.c   the formats and the symbolizer, on a thread beside the scan
 *   walk.c    pass 2: the records in time order, read by a first stage...
 *   walk-build.c  ...and built into the timeline by a second (walk-private.h)
 * or, for a stream in many frames (rsp record's) on two CPUs, in one pass, each
 * frame inflated once:
 *   one-pass.c  the scan (the reader's, its frames held) and the walk at once
 *   window.c  the entries sorted within a window sliding down the file
 * and again in two passes when the window does not fit the file (-ERESTART).
 */
#ifndef RSP_MODEL_TIMELINE_LOAD_PRIVATE_H
#define RSP_MODEL_TIMELINE_LOAD_PRIVATE_H

#include <pthread.h>
#include <string.h>

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

/*
 * The time (and CPU) of a record the index keeps: 0; 1 for a record it does
 * not keep; -errno for one that does not fit its event's layout.
 */
int _rsp_record_time(struct rsp_reader *r, const struct perf_event_header *h,
		     struct rsp_sample *s);
/* rsp_reader_scan()'s callback: @ctx is a struct scan. */
int _rsp_index_record(void *ctx, const struct rsp_record *rec);
/* The scan into sc->idx: on two threads for a stream of many segments (its
 * second thread's share taken in in file order: the same index). */
int _rsp_scan(struct scan *sc, char *err, size_t errlen);
/* Sort @n entries by time (stably), on two threads for many; -ENOMEM. */
int _rsp_sort_index(struct idx **v, size_t n, uint64_t base);

/* --- window.c ----------------------------------------------------------------------- */

/*
 * Loading in one pass (one-pass.c): the index sorted within a window sliding down
 * the file.  Entries are added in file order, a group (a segment of the
 * stream) at a time; closing a group merges it into the entries not yet
 * given and gives those no later group can come before, on the bet that no
 * record is older than the oldest of the last WINDOW_GROUPS groups.  An entry
 * older than one given (the bet lost) or a window past WINDOW_MAX_ENTRIES:
 * -ERESTART, and the load starts again in two passes.
 */
#define WINDOW_GROUPS 32
#define WINDOW_MAX_ENTRIES (1u << 22) /* 64 MiB of entries */

struct window {
	VEC(struct idx) pend; /* [head, n): not given; [head, sorted): sorted */
	size_t head, sorted;
	uint64_t mins[WINDOW_GROUPS]; /* the last groups' oldest times (UINT64_MAX: none) */
	size_t n_groups;
	uint64_t group_min; /* of the group being added (UINT64_MAX: none yet) */
	uint64_t min_nonzero, max_time; /* of every entry added: the trace's start and end */
	uint64_t given_max; /* the youngest entry given */
	bool given_any;
	struct idx *tmp; /* merging's */
	size_t tmp_cap;
	size_t max_entries; /* waiting at most (WINDOW_MAX_ENTRIES; a test's fewer) */
};

static inline void _rsp_window_init(struct window *wn)
{
	memset(wn, 0, sizeof(*wn));
	wn->group_min = UINT64_MAX;
	wn->max_entries = WINDOW_MAX_ENTRIES;
	for (size_t k = 0; k < WINDOW_GROUPS; k++)
		wn->mins[k] = UINT64_MAX;
}
void _rsp_window_free(struct window *wn);
/* An entry of the group being read: 0, -ERESTART or -ENOMEM. */
int _rsp_window_add(struct window *wn, uint64_t time, uint64_t off);
/*
 * @n entries at once, as many _rsp_window_add() calls would add them (their
 * oldest, youngest and oldest nonzero times given): 0, -ERESTART or -ENOMEM.
 */
int _rsp_window_add_many(struct window *wn, const struct idx *e, size_t n, uint64_t min_time,
			 uint64_t max_time, uint64_t min_nonzero);
/*
 * The group ends (@last: and the file): the entries now given are
 * wn->pend.v[*first, *first + *n), in time order, good until the next
 * _rsp_window_add().  None until the trace's start is known (no record can
 * come before the oldest nonzero time).  0 or -ENOMEM.
 */
int _rsp_window_close(struct window *wn, bool last, size_t *first, size_t *n);

/* --- walk.c, one-pass.c -------------------------------------------------------------- */

/*
 * The decoders of every attr and the walk of @n sorted entries through the
 * timeline builder (the index's pages are given back as it goes).  0, or
 * -errno with @err set (cancelled, out of memory).
 */
int _rsp_walk(struct rsp_trace *t, const struct rsp_trace_opts *o, struct idx *idx, size_t n,
	      char *err, size_t errlen);

/*
 * Loading in one pass (a stream in many frames, two CPUs): the scan and the
 * walk at once, each frame inflated once, the index sorted within a window
 * (window.c).  _rsp_one_pass() scans and walks; 0 with *@out, then the
 * scan's warnings, then _rsp_one_pass_finish() (the set-up's warnings, the
 * walk's end); or -ERESTART: the file is not windowed so (the load starts
 * again, in two passes); or -errno with @err set (cancelled, out of memory,
 * garbage).  t->nr_cpus, t_start and t_end are set by it.
 */
struct one_pass;
bool _rsp_one_pass_fits(const struct rsp_trace *t);
int _rsp_one_pass(struct rsp_trace *t, const struct rsp_trace_opts *o, struct setup *su,
		  uint64_t size, struct one_pass **out, char *err, size_t errlen);
void _rsp_one_pass_finish(struct one_pass *op);

#endif /* RSP_MODEL_TIMELINE_LOAD_PRIVATE_H */
