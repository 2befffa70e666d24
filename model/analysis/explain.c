/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The explanation table: category names, keys and advice, each category's
 * contributors (a leaf's time added to its label's as it leaves the ring, or
 * at the end), and the queries of rsp-analysis.h over the result.
 */
#include "analysis/analysis-private.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name, *key, *advice;
} cats[RSP_CAT__COUNT] = {
	[RSP_CAT_CPU] = { "In understood functions", "cpu",
			  "CPU time in the functions listed: profile and optimize them" },
	[RSP_CAT_CPU_UNSAMPLED] = { "Running but not sampled", "cpu_unsampled",
				    "short runs between sampler ticks, their code estimated from the "
				    "samples at the same place (or inferred from it): raise --target-freq "
				    "(the target's processes) or -F (all) to measure them, or look at "
				    "what wakes these processes so often" },
	[RSP_CAT_DISK] = { "In blocking disk I/O", "disk",
			   "synchronous disk access: cache, batch, or avoid the reads/fsyncs "
			   "listed" },
	[RSP_CAT_NET] = { "In blocking network I/O", "net",
			  "waiting on the peers listed: their latency, or request fewer round "
			  "trips" },
	[RSP_CAT_IO_QUEUE] = { "I/O queue overhead", "io_queue",
			       "requests waited in the block queue: too many in flight, or an "
			       "I/O scheduler delaying them" },
	[RSP_CAT_SCHED] = { "Scheduler overhead", "sched",
			    "runnable but not running: \"while X ran\": more runnable threads than "
			    "CPUs, or CPU affinity/priority; \"its CPU waking from idle\": the "
			    "CPU's wake-up latency (idle states, a VM's vCPU)" },
	[RSP_CAT_HARDWARE] = { "Waits \"for\" hardware", "hardware",
			       "woken by the device interrupts listed" },
	[RSP_CAT_INVOLUNTARY] = { "Involuntary sleeps", "involuntary",
				  "preempted by other work: CPU contention" },
	[RSP_CAT_DELIBERATE] = { "Deliberate sleeps", "deliberate",
				 "nanosleep/usleep in the code listed: is the sleep needed?" },
	[RSP_CAT_TIMEOUT] = { "Waits that timed out", "timeout",
			      "waits that ended by timing out, not by being woken: polling "
			      "for work that a wakeup could signal (the paper's curl bug)" },
	[RSP_CAT_KERNEL] = { "Miscellaneous kernel blocks", "kernel",
			     "blocked in the kernel on something rsp does not trace" },
	[RSP_CAT_OTHER_PATH] = { "Waiting on another control path", "other_path",
				 "waiting for work running in parallel (listed: the thread, and what "
				 "it did during the wait: its functions, preempted in one, its own "
				 "waits): a lock it held, a join, a queue, or work started earlier "
				 "and not waited for in one sleep" },
	[RSP_CAT_UNKNOWN] = { "Unknown (lost or inconsistent records)", "unknown",
			      "records were lost (record again with a larger -m), or the kernel's "
			      "switch records disagree (rsp info: broken state chains)" },
	[RSP_CAT_UNACCOUNTED] = { "Unaccounted", "unaccounted",
				  "woken by something the trace did not record" },
	[RSP_CAT_IDLE] = { "Idle (waiting for work)", "idle",
			   "waiting with nothing to do (between requests, idle timer ticks, "
			   "helpers waiting for work): not a cost; the percentages of the "
			   "rest are of the time not idle" },
};

const char *rsp_category_name(enum rsp_category c)
{
	return (unsigned)c < RSP_CAT__COUNT ? cats[c].name : "?";
}

const char *rsp_category_key(enum rsp_category c)
{
	return (unsigned)c < RSP_CAT__COUNT ? cats[c].key : "?";
}

const char *rsp_category_advice(enum rsp_category c)
{
	return (unsigned)c < RSP_CAT__COUNT ? cats[c].advice : "";
}

/* ---- contributions -------------------------------------------------------------------- */

/* Add to the category's contributor @label (one entry per label). */
void analysis_contribute(struct rsp_analysis *an, enum rsp_category c, uint32_t label,
			 uint64_t ns, uint64_t count, enum share_kind how)
{
	VEC(struct contrib) *v = (void *)&an->contrib[c];
	struct contrib x = { label, ns, count, how == RSP_SHARE_ESTIMATED ? ns : 0,
			     how == RSP_SHARE_INFERRED ? ns : 0 };
	uint64_t key = (uint64_t)(c + 1) << 32 | label;
	uint32_t i;

	if (_rsp_u64map_get(&an->contribs, key, &i)) {
		v->v[i].ns += ns;
		v->v[i].count += count;
		v->v[i].ns_estimated += x.ns_estimated;
		v->v[i].ns_inferred += x.ns_inferred;
		return;
	}
	if (!vec_push(v, x)) {
		an->nomem = true;
		return;
	}
	/* no room in the map: this label gets more entries, folded in analysis_contribs_sort() */
	_rsp_u64map_put(&an->contribs, key, (uint32_t)(v->n - 1));
}

/* ---- the table ------------------------------------------------------------------------ */

static int by_label(const void *x, const void *y)
{
	const struct contrib *a = x, *b = y;

	return a->label < b->label ? -1 : a->label > b->label;
}

static int by_ns(const void *x, const void *y)
{
	const struct contrib *a = x, *b = y;

	if (a->ns != b->ns)
		return a->ns < b->ns ? 1 : -1;
	return a->label < b->label ? -1 : a->label > b->label;
}

void analysis_retire(struct rsp_analysis *an, const struct anode *n)
{
	bool by_site = n->cat == RSP_CAT_CPU_UNSAMPLED && n->site < an->sites.n;

	if (n->thread != RSP_NONE)
		an->thread_seen[n->thread] = 1;
	/* a run without samples is named by its site there (its functions' shares are
	 * the site's, divided later); a sampled run by its first sample's function */
	if (n->q_ns)
		analysis_queue_retire(an, n, by_site ? an->sites.v[n->site].label : n->label);
	if (by_site) {
		/* its site's, divided when every site is known (runs.c) */
		an->sites.v[n->site].ns += n->end - n->start;
		an->sites.v[n->site].count++;
		return;
	}
	/* every other leaf but CPU ones (split among samples, or estimated from them,
	 * already) contributes by label */
	if (n->cat != 0xff && n->cat != RSP_CAT_CPU)
		analysis_contribute(an, (enum rsp_category)n->cat, n->label, n->end - n->start, 1,
				    RSP_SHARE_MEASURED);
}

static int cmp_int(const void *x, const void *y)
{
	int a = *(const int *)x, b = *(const int *)y;

	return a < b ? -1 : a > b;
}

/* The distinct processes of the threads that have nodes. */
static size_t count_processes(const struct rsp_analysis *an)
{
	size_t n = 0, distinct = 0;
	int *pids = malloc((an->t->threads.n + 1) * sizeof(int));

	if (!pids)
		return 0;
	for (size_t th = 0; th < an->t->threads.n; th++)
		if (an->thread_seen[th])
			pids[n++] = (int)an->t->threads.v[th].pid;
	qsort(pids, n, sizeof(*pids), cmp_int);
	for (size_t i = 0; i < n; i++)
		distinct += !i || pids[i] != pids[i - 1];
	free(pids);
	return distinct;
}

void analysis_retire_all(struct rsp_analysis *an)
{
	/* in creation order: the nodes (summary: those still in the ring) */
	for (size_t i = an->summary && an->n_made > NODE_RING ? an->n_made - NODE_RING : 0;
	     i < an->n_made; i++)
		analysis_retire(an, analysis_node(an, (uint32_t)i));
	an->n_processes = count_processes(an);
	if (an->summary)
		vec_free(&an->nodes);
}

int analysis_contribs_sort(struct rsp_analysis *an)
{
	for (int c = 0; c < RSP_CAT__COUNT; c++) {
		VEC(struct contrib) *v = (void *)&an->contrib[c];
		size_t out = 0;

		if (!v->n)
			continue;
		/* distinct already, unless the map could not grow */
		qsort(v->v, v->n, sizeof(*v->v), by_label);
		for (size_t i = 0; i < v->n; i++) {
			if (out && v->v[out - 1].label == v->v[i].label) {
				v->v[out - 1].ns += v->v[i].ns;
				v->v[out - 1].count += v->v[i].count;
				v->v[out - 1].ns_estimated += v->v[i].ns_estimated;
				v->v[out - 1].ns_inferred += v->v[i].ns_inferred;
			} else {
				v->v[out++] = v->v[i];
			}
		}
		v->n = out;
		qsort(v->v, v->n, sizeof(*v->v), by_ns);
		vec_shrink(v);
	}
	_rsp_u64map_free(&an->contribs);
	return an->nomem ? -ENOMEM : 0;
}

void analysis_contribs_free(struct rsp_analysis *an)
{
	_rsp_u64map_free(&an->contribs);
	for (int c = 0; c < RSP_CAT__COUNT; c++)
		vec_free(&an->contrib[c]);
}

/* ---- queries ------------------------------------------------------------------------------ */

static void fill(const struct rsp_analysis *an, const uint64_t *cat, uint64_t start, uint64_t end,
		 uint64_t total, size_t paths, struct rsp_explanation *o)
{
	memset(o, 0, sizeof(*o));
	o->start_ns = start;
	o->end_ns = end;
	o->wall_ns = end > start ? end - start : 0;
	o->total_ns = total;
	memcpy(o->cat_ns, cat, sizeof(o->cat_ns));
	o->n_paths = paths;
	o->n_threads = an->n_threads;
	o->n_nodes = an->n_made;
	o->n_cut = an->n_cut;
	o->n_bounded = an->n_bounded;
	o->n_overflow = an->n_overflow;
	o->overflow_ns = an->overflow_ns;
	o->tolerance_ns = an->tol;
}

void rsp_analysis_explanation(const struct rsp_analysis *an, struct rsp_explanation *o)
{
	uint64_t total = 0;

	for (size_t i = 0; i < an->paths.n; i++)
		total += an->paths.v[i].span;
	fill(an, an->cat_ns, an->start, an->end, total, an->paths.n, o);
	o->n_processes = an->n_processes;
	o->explained_ns = an->explained_ns;
	o->queued_ns = an->queued_ns;
	o->n_queued = an->queued.n;
	o->recorder_ns = an->recorder_ns;
}

size_t rsp_analysis_n_queued_what(const struct rsp_analysis *an, size_t i)
{
	return i < an->queued.n ? an->queued.v[i].what.n : 0;
}

void rsp_analysis_queued_what(const struct rsp_analysis *an, size_t i, size_t k,
			      enum rsp_category *cat, const char **what, uint64_t *ns)
{
	const struct queued_what *w = i < an->queued.n && k < an->queued.v[i].what.n ?
					      &an->queued.v[i].what.v[k] :
					      NULL;

	*cat = w ? (enum rsp_category)w->cat : RSP_CAT_UNACCOUNTED;
	*what = w && w->label ? trace_str(an->t, w->label) : "(unknown)";
	*ns = w ? w->ns : 0;
}

void rsp_analysis_queued(const struct rsp_analysis *an, size_t i, size_t *socket, uint64_t *ns,
			 uint64_t *cat_ns)
{
	*socket = i < an->queued.n ? an->queued.v[i].sock : RSP_NO_INDEX;
	*ns = i < an->queued.n ? an->queued.v[i].ns : 0;
	if (cat_ns) {
		memset(cat_ns, 0, RSP_CAT__COUNT * sizeof(*cat_ns));
		if (i < an->queued.n)
			memcpy(cat_ns, an->queued.v[i].cat_ns, RSP_CAT__COUNT * sizeof(*cat_ns));
	}
}

size_t rsp_analysis_queued_client(const struct rsp_analysis *an, size_t i)
{
	return i < an->queued.n && an->queued.v[i].client != RSP_NONE ? an->queued.v[i].client
									: RSP_NO_INDEX;
}

void rsp_analysis_path_explanation(const struct rsp_analysis *an, size_t path,
				   struct rsp_explanation *o)
{
	const struct apath *p = &an->paths.v[path];

	fill(an, p->cat_ns, p->start, p->end, p->span, 1, o);
	o->explained_ns = p->explained_ns;
}

size_t rsp_analysis_n_contributors(const struct rsp_analysis *an, enum rsp_category c)
{
	return (unsigned)c < RSP_CAT__COUNT ? an->contrib[c].n : 0;
}

void rsp_analysis_contributor(const struct rsp_analysis *an, enum rsp_category c, size_t i,
			      struct rsp_contributor *o)
{
	const struct contrib *x = &an->contrib[c].v[i];

	o->what = x->label ? trace_str(an->t, x->label) : "(unknown)";
	o->ns = x->ns;
	o->count = x->count;
	o->ns_estimated = x->ns_estimated;
	o->ns_inferred = x->ns_inferred;
}

const char *rsp_contributor_how_known(const struct rsp_contributor *k)
{
	if (k->ns_estimated * 2 > k->ns)
		return "estimated";
	if (k->ns_inferred * 2 > k->ns)
		return "inferred";
	if ((k->ns_estimated + k->ns_inferred) * 2 > k->ns)
		return "estimated";
	return NULL;
}

size_t rsp_analysis_n_paths(const struct rsp_analysis *an)
{
	return an->paths.n;
}

void rsp_analysis_path(const struct rsp_analysis *an, size_t i, struct rsp_path_info *o)
{
	const struct apath *p = &an->paths.v[i];

	o->thread = p->thread;
	o->start_ns = p->start;
	o->end_ns = p->end;
	o->async = p->async;
}

size_t rsp_analysis_n_nodes(const struct rsp_analysis *an)
{
	return an->summary ? 0 : an->nodes.n;
}

static size_t none(uint32_t v)
{
	return v == RSP_NONE ? RSP_NO_INDEX : v;
}

void rsp_analysis_node(const struct rsp_analysis *an, size_t i, struct rsp_node_info *o)
{
	const struct anode *n = &an->nodes.v[i];

	memset(o, 0, sizeof(*o));
	o->kind = (enum rsp_node_kind)n->kind;
	o->category = n->cat == 0xff ? RSP_CAT__COUNT : (enum rsp_category)n->cat;
	o->parent = none(n->parent);
	o->path = n->path;
	o->depth = n->depth;
	o->flags = n->flags;
	o->start_ns = n->start;
	o->end_ns = n->end;
	o->thread = none(n->thread);
	o->slice = none(n->slice);
	o->io = none(n->io);
	o->net = none(n->net);
	o->link = none(n->link);
	o->other_thread = none(n->other);
	o->label = n->label ? trace_str(an->t, n->label) : NULL;
}
