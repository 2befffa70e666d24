/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Each thread's command line: its process's, from the records rsp record
 * writes (read/cmdline.c), made once after the load.  A process's command line
 * is that of its last exec up to the thread's end (time 0: alive at the start,
 * read from /proc), since its fork when the trace holds it; a process that has
 * not exec'd in the recording runs its parent's program, and has its parent's
 * command line at the fork.
 */
#include "timeline/trace-private.h"

#include <stdlib.h>

#define MAX_DEPTH 32 /* forks followed back to a process that exec'd */

struct by_pid {
	const struct rsp_cmdline_entry *v; /* the reader's */
	size_t *order; /* indices of v by pid, then time, then file order */
	size_t n;
};

static int cmp_entry(const void *a, const void *b, void *arg)
{
	const struct rsp_cmdline_entry *v = arg;
	const struct rsp_cmdline_entry *x = &v[*(const size_t *)a], *y = &v[*(const size_t *)b];

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/* The process leader of thread @i (the thread whose tid is its pid), or @i. */
static size_t leader_of(const struct rsp_trace *t, size_t i)
{
	const struct thread *th = &t->threads.v[i];
	size_t l;

	if (th->tid == th->pid)
		return i;
	l = rsp_trace_find_thread(t, (int)th->pid, th->birth);
	return l == RSP_NO_INDEX ? i : l;
}

/* The command line of thread @i's process at @time; NULL if none is known. */
static const char *cmdline_at(const struct rsp_trace *t, const struct by_pid *bp, size_t i,
			      uint64_t time, int depth)
{
	size_t l = leader_of(t, i), lo = 0, hi = bp->n;
	const struct thread *lt = &t->threads.v[l];
	const char *best = NULL;

	/* the first entry of the pid */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (bp->v[bp->order[mid]].pid < (int)lt->pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t k = lo; k < bp->n && bp->v[bp->order[k]].pid == (int)lt->pid; k++) {
		const struct rsp_cmdline_entry *e = &bp->v[bp->order[k]];

		if (e->time > time)
			break;
		/* a process forked in the trace: from its fork on (a reused pid's
		 * earlier process is not it); else every one up to @time */
		if (lt->parent == RSP_NONE || e->time >= lt->birth)
			best = e->text;
	}
	if (best || depth >= MAX_DEPTH || lt->parent == RSP_NONE || lt->parent == l)
		return best;
	return cmdline_at(t, bp, lt->parent, lt->birth, depth + 1);
}

void trace_cmdlines_resolve(struct rsp_trace *t)
{
	const struct rsp_reader_info *in = rsp_reader_info(t->reader);
	struct by_pid bp = { in->cmdlines, NULL, in->n_cmdlines };

	if (in->cmdlines_damaged == 1)
		trace_warn(t, "a command-line record is damaged and was skipped: its process is "
			      "named by its executable only");
	else if (in->cmdlines_damaged)
		trace_warn(t,
			   "%llu command-line records are damaged and were skipped: their processes "
			   "are named by their executables only",
			   (unsigned long long)in->cmdlines_damaged);
	if (!bp.n || !t->threads.n)
		return;
	bp.order = malloc(bp.n * sizeof(*bp.order));
	t->thread_cmdline = calloc(t->threads.n, sizeof(*t->thread_cmdline));
	if (!bp.order || !t->thread_cmdline) {
		free(bp.order);
		free(t->thread_cmdline);
		t->thread_cmdline = NULL;
		return;
	}
	for (size_t k = 0; k < bp.n; k++)
		bp.order[k] = k;
	qsort_r(bp.order, bp.n, sizeof(*bp.order), cmp_entry, (void *)bp.v);
	for (size_t i = 0; i < t->threads.n; i++)
		t->thread_cmdline[i] = cmdline_at(t, &bp, i, t->threads.v[i].death, 0);
	free(bp.order);
}
