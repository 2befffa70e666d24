/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The explanation table: category names and advice, the labels that say
 * *what* each leaf was (process, function, device, peer), and the top
 * contributors of each category.
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
				    "short runs between sampler ticks: raise -F, or look at what "
				    "wakes these processes so often" },
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
			    "runnable but not running: more runnable threads than CPUs, or "
			    "CPU affinity/priority" },
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
				 "waiting for work running in parallel (listed): it was started "
				 "earlier and not waited for in one sleep" },
	[RSP_CAT_UNKNOWN] = { "Unknown (lost or inconsistent records)", "unknown",
			      "records were lost (record again with a larger -m), or the kernel's "
			      "switch records disagree (rsp info: broken state chains)" },
	[RSP_CAT_UNACCOUNTED] = { "Unaccounted", "unaccounted",
				  "woken by something the trace did not record" },
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

/* ---- stacks to words ------------------------------------------------------------------- */

uint32_t analysis_stack_id(struct rsp_analysis *an, uint32_t stack)
{
	return trace_stack_resolve(an->t, stack);
}

bool analysis_started_by_rsp(const struct rsp_trace *t)
{
	const struct rsp_reader_info *in = rsp_reader_info(t->reader);

	if (!in->version || strncmp(in->version, "rsp ", 4))
		return false;
	for (size_t i = 0; i < in->n_cmdline; i++)
		if (!strcmp(in->cmdline[i], "--"))
			return true;
	return in->n_cmdline > 2 && in->n_targets == 1;
}

static const char *thread_comm(const struct rsp_analysis *an, uint32_t th)
{
	const char *c = th < an->t->threads.n ? trace_str(an->t, an->t->threads.v[th].comm) : "";

	return *c ? c : "?";
}

static int thread_pid(const struct rsp_analysis *an, uint32_t th)
{
	return th < an->t->threads.n ? (int)an->t->threads.v[th].pid : -1;
}

/* The scheduler's own functions, under every sleep's kernel stack. */
bool _rsp_is_sched_func(const char *f)
{
	static const char *const sched[] = {
		"__traceiter_sched_switch", "__schedule", "schedule", "schedule_timeout",
		"schedule_hrtimeout_range_clock", "schedule_hrtimeout_range", "io_schedule",
		"io_schedule_timeout", "schedule_preempt_disabled", "preempt_schedule_common",
		"__cond_resched", "schedule_idle", "__schedule_loop",
	};

	for (size_t i = 0; i < sizeof(sched) / sizeof(sched[0]); i++)
		if (!strcmp(f, sched[i]))
			return true;
	return false;
}

/*
 * "caller > function" for a sleep or sample stack: the innermost user
 * function and its caller; kernel threads: the first kernel function that
 * is not the scheduler itself.
 */
static uint32_t stack_label(struct rsp_analysis *an, uint32_t stack, int pid, uint64_t time,
			    bool want_kernel)
{
	size_t n = rsp_stack_n_frames(an->t, stack);
	struct rsp_frame_info f;
	const char *inner = NULL, *caller = NULL, *kfunc = NULL;
	char buf[256];

	for (size_t i = 0; i < n; i++) {
		rsp_stack_frame(an->t, stack, i, pid, time, &f);
		if (f.kernel) {
			if (!kfunc && f.func && !_rsp_is_sched_func(f.func))
				kfunc = f.func;
			continue;
		}
		if (!f.func)
			continue;
		if (!inner) {
			inner = f.func;
		} else if (strcmp(f.func, inner)) {
			caller = f.func;
			break;
		}
	}
	if (want_kernel && kfunc)
		snprintf(buf, sizeof(buf), "%s", kfunc);
	else if (inner && caller)
		snprintf(buf, sizeof(buf), "%s > %s", caller, inner);
	else if (inner)
		snprintf(buf, sizeof(buf), "%s", inner);
	else if (kfunc)
		snprintf(buf, sizeof(buf), "[kernel] %s", kfunc);
	else
		return 0;
	return trace_intern(an->t, buf);
}

/*
 * Per (stack, pid, kernel?) label cache, on the unwound stack: a user-stack
 * copy is one pending id per sample, but the stacks they unwind to repeat.
 * The key is the whole triple (an unwound id never has RSP_STACK_PENDING's
 * bit, which carries kernel?), so different stacks never share a label.
 */
static uint32_t cached_label(struct rsp_analysis *an, uint32_t stack, int pid, uint64_t time,
			     bool kernel)
{
	uint64_t key;
	uint32_t label;

	stack = analysis_stack_id(an, stack);
	if (!stack || (stack & RSP_STACK_PENDING))
		return stack ? stack_label(an, stack, pid, time, kernel) : 0;
	key = (uint64_t)(stack | (kernel ? RSP_STACK_PENDING : 0)) << 32 | (uint32_t)pid;
	if (_rsp_u64map_get(&an->labels, key, &label))
		return label;
	label = stack_label(an, stack, pid, time, kernel);
	_rsp_u64map_put(&an->labels, key, label); /* no room: computed again next time */
	return label;
}

/* "comm: what" (what a label, 0: the comm alone), once per (thread, what): a leaf each */
static uint32_t with_comm(struct rsp_analysis *an, uint32_t thread, uint32_t what)
{
	uint64_t key = (uint64_t)thread << 32 | what;
	char buf[320];
	uint32_t l;

	if (_rsp_u64map_get(&an->comm_labels, key, &l))
		return l;
	if (!what) {
		l = trace_intern(an->t, thread_comm(an, thread));
	} else {
		snprintf(buf, sizeof(buf), "%s: %s", thread_comm(an, thread), trace_str(an->t, what));
		l = trace_intern(an->t, buf);
	}
	_rsp_u64map_put(&an->comm_labels, key, l); /* no room: made again next time */
	return l;
}

bool analysis_is_deliberate(struct rsp_analysis *an, uint32_t stack)
{
	static const char *const sleeps[] = {
		"do_nanosleep", "hrtimer_nanosleep", "common_nsleep", "__x64_sys_nanosleep",
		"__x64_sys_clock_nanosleep", "__do_sys_clock_nanosleep",
	};
	size_t n = rsp_stack_n_frames(an->t, stack);

	for (size_t i = 0; i < n; i++) {
		struct rsp_frame_info f;

		rsp_stack_frame(an->t, stack, i, 0, 0, &f);
		if (!f.kernel)
			break;
		for (size_t k = 0; f.func && k < sizeof(sleeps) / sizeof(sleeps[0]); k++)
			if (!strcmp(f.func, sleeps[k]))
				return true;
	}
	return false;
}

/* ---- contributions ---------------------------------------------------------------------- */

/* Add to the category's contributor @label (one entry per label). */
static void contribute(struct rsp_analysis *an, enum rsp_category c, uint32_t label,
		       uint64_t ns, uint64_t count)
{
	VEC(struct contrib) *v = (void *)&an->contrib[c];
	struct contrib x = { label, ns, count };
	uint64_t key = (uint64_t)(c + 1) << 32 | label;
	uint32_t i;

	if (_rsp_u64map_get(&an->contribs, key, &i)) {
		v->v[i].ns += ns;
		v->v[i].count += count;
		return;
	}
	if (!vec_push(v, x)) {
		an->nomem = true;
		return;
	}
	/* no room in the map: this label gets more entries, folded in analysis_finish() */
	_rsp_u64map_put(&an->contribs, key, (uint32_t)(v->n - 1));
}

uint32_t analysis_run_leaf(struct rsp_analysis *an, uint32_t thread, uint32_t slice,
			   uint64_t lo, uint64_t hi, uint32_t parent, uint32_t depth)
{
	const struct thread *th = &an->t->threads.v[thread];
	const struct slice *s = &th->slices.v[slice];
	size_t first = s->samples, end = th->samples.n;
	uint32_t n, best = 0;

	for (size_t k = slice + 1; k < th->slices.n; k++) {
		if (th->slices.v[k].kind == SLICE_RUN) {
			end = th->slices.v[k].samples;
			break;
		}
	}
	if (end > first) {
		/* the run's time is divided among its samples (the paper's rule) */
		uint64_t share = (hi - lo) / (end - first), rest = (hi - lo) % (end - first);

		n = analysis_leaf(an, RSP_NODE_RUN, RSP_CAT_CPU, lo, hi, parent, depth, thread);
		for (size_t i = first; i < end; i++) {
			uint32_t l = with_comm(an, thread,
					       cached_label(an, th->samples.v[i].stack,
							    thread_pid(an, thread),
							    th->samples.v[i].time, false));

			contribute(an, RSP_CAT_CPU, l, share + (i == first ? rest : 0), 1);
			if (!best)
				best = l;
		}
	} else {
		n = analysis_leaf(an, RSP_NODE_RUN, RSP_CAT_CPU_UNSAMPLED, lo, hi, parent, depth,
				  thread);
		best = with_comm(an, thread, 0);
	}
	if (n != RSP_NONE) {
		analysis_node(an, n)->slice = slice;
		analysis_node(an, n)->label = best;
	}
	return n;
}

void analysis_unexplained(struct rsp_analysis *an, const struct slice *s, uint32_t thread,
			  uint64_t lo, uint64_t hi, uint32_t parent, uint32_t depth)
{
	bool d = s->flags & SL_UNINTERRUPTIBLE;
	uint32_t n = analysis_leaf(an, d ? RSP_NODE_KERNEL : RSP_NODE_UNACCOUNTED,
				   d ? RSP_CAT_KERNEL : RSP_CAT_UNACCOUNTED, lo, hi, parent, depth,
				   thread);

	if (n != RSP_NONE)
		analysis_node(an, n)->label =
			with_comm(an, thread,
				  cached_label(an, s->stack, thread_pid(an, thread), s->start, d));
}

void analysis_label_io(struct rsp_analysis *an, uint32_t node, const struct io_op *io)
{
	char buf[160];

	snprintf(buf, sizeof(buf), "disk %u:%u %s%s%s", io->dev >> 20, io->dev & 0xfffff,
		 io->rwbs, io->tid != RSP_NONE ? " by " : "",
		 io->tid != RSP_NONE ? thread_comm(an, io->tid) : "");
	analysis_node(an, node)->label = trace_intern(an->t, buf);
}

void analysis_label_net(struct rsp_analysis *an, uint32_t node, uint32_t net)
{
	const struct net_op *n = &an->t->nets.v[net];
	struct rsp_socket_info so;
	char buf[160];

	rsp_trace_socket(an->t, n->sock, &so);
	if (so.remote[0] && strrchr(so.remote, ':') && !strcmp(strrchr(so.remote, ':'), ":0"))
		/* remote port 0: a listening socket, woken by a connection to it */
		snprintf(buf, sizeof(buf), "connection to %s (listening)", so.local);
	else if (so.remote[0])
		snprintf(buf, sizeof(buf), "peer %s", so.remote);
	else
		snprintf(buf, sizeof(buf), "peer unknown (socket %#llx)", (unsigned long long)so.sk);
	analysis_node(an, node)->label = trace_intern(an->t, buf);
}

void analysis_label_other(struct rsp_analysis *an, uint32_t node, uint32_t thread)
{
	uint64_t key = (uint64_t)thread << 32 | RSP_NONE;
	char buf[160];
	uint32_t l;

	if (!_rsp_u64map_get(&an->pair_labels, key, &l)) {
		snprintf(buf, sizeof(buf), "%s (tid %u)", thread_comm(an, thread),
			 an->t->threads.v[thread].tid);
		l = trace_intern(an->t, buf);
		_rsp_u64map_put(&an->pair_labels, key, l);
	}
	analysis_node(an, node)->label = l;
}

void analysis_label_thread(struct rsp_analysis *an, uint32_t node, uint32_t thread)
{
	analysis_node(an, node)->label = with_comm(an, thread, 0);
}

void analysis_label_preempted(struct rsp_analysis *an, uint32_t node, uint32_t thread,
			      uint32_t by)
{
	uint64_t key = (uint64_t)thread << 32 | by; /* by is a thread: never RSP_NONE here */
	char buf[160];
	uint32_t l;

	if (!_rsp_u64map_get(&an->pair_labels, key, &l)) {
		snprintf(buf, sizeof(buf), "%s preempted by %s", thread_comm(an, thread),
			 thread_comm(an, by));
		l = trace_intern(an->t, buf);
		_rsp_u64map_put(&an->pair_labels, key, l);
	}
	analysis_node(an, node)->label = l;
}

/* The other thread of the same process that ran most during [lo, hi]. */
static uint32_t ran_meanwhile(struct rsp_analysis *an, uint32_t thread, uint64_t lo, uint64_t hi)
{
	const struct thread *me = &an->t->threads.v[thread];
	uint32_t best = RSP_NONE;
	uint64_t best_ns = 0;

	for (size_t i = 0; i < an->t->threads.n; i++) {
		const struct thread *o = &an->t->threads.v[i];
		uint64_t ns = 0;

		if (i == thread || o->pid != me->pid)
			continue;
		for (size_t k = analysis_first_slice(o, lo); k < o->slices.n; k++) {
			const struct slice *s = &o->slices.v[k];
			uint64_t a = s->start > lo ? s->start : lo, b = s->end < hi ? s->end : hi;

			if (s->start >= hi)
				break;
			if (s->kind == SLICE_RUN && b > a)
				ns += b - a;
		}
		if (ns > best_ns) {
			best_ns = ns;
			best = (uint32_t)i;
		}
	}
	return best;
}

void analysis_label_timeout(struct rsp_analysis *an, uint32_t node, uint32_t thread,
			    const struct slice *s, bool deliberate)
{
	struct anode *n = analysis_node(an, node);
	uint32_t what = cached_label(an, s->stack, thread_pid(an, thread), s->start, false);
	uint32_t other = deliberate ? RSP_NONE : ran_meanwhile(an, thread, n->start, n->end);
	char buf[400];

	if (other != RSP_NONE) {
		snprintf(buf, sizeof(buf), "%s: %s, while %s ran", thread_comm(an, thread),
			 what ? trace_str(an->t, what) : "?", thread_comm(an, other));
		n = analysis_node(an, node);
		n->label = trace_intern(an->t, buf);
		n->other = other;
	} else {
		uint32_t l = with_comm(an, thread, what);

		analysis_node(an, node)->label = l;
	}
}

void analysis_label_kernel(struct rsp_analysis *an, uint32_t node, uint32_t thread,
			   const struct slice *s)
{
	uint32_t l = with_comm(an, thread,
			       cached_label(an, s->stack, thread_pid(an, thread), s->start, true));

	analysis_node(an, node)->label = l;
}

void analysis_label_lost(struct rsp_analysis *an, uint32_t node, uint16_t cpu, bool lost)
{
	char buf[64];

	snprintf(buf, sizeof(buf), lost ? "cpu%u: records lost" : "cpu%u: switch records disagree",
		 cpu);
	analysis_node(an, node)->label = trace_intern(an->t, buf);
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
	if (n->thread != RSP_NONE)
		an->thread_seen[n->thread] = 1;
	/* every leaf but CPU ones (split among samples already) contributes by label */
	if (n->cat != 0xff && n->cat != RSP_CAT_CPU)
		contribute(an, (enum rsp_category)n->cat, n->label, n->end - n->start, 1);
}

/* The distinct processes of the threads that have nodes. */
static size_t count_processes(const struct rsp_analysis *an)
{
	size_t n = 0;
	int *seen = calloc(an->t->threads.n + 1, sizeof(int));

	if (!seen)
		return 0;
	for (size_t th = 0; th < an->t->threads.n; th++) {
		int pid = (int)an->t->threads.v[th].pid;
		size_t k;

		if (!an->thread_seen[th])
			continue;
		for (k = 0; k < n && seen[k] != pid; k++)
			;
		if (k == n)
			seen[n++] = pid;
	}
	free(seen);
	return n;
}

int analysis_finish(struct rsp_analysis *an)
{
	/* in creation order: the nodes (summary: those still in the ring) */
	for (size_t i = an->summary && an->n_made > NODE_RING ? an->n_made - NODE_RING : 0;
	     i < an->n_made; i++)
		analysis_retire(an, analysis_node(an, (uint32_t)i));
	an->n_processes = count_processes(an);
	if (an->summary)
		vec_free(&an->nodes);
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

void analysis_labels_free(struct rsp_analysis *an)
{
	_rsp_u64map_free(&an->labels);
	_rsp_u64map_free(&an->comm_labels);
	_rsp_u64map_free(&an->pair_labels);
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
	o->tolerance_ns = an->tol;
}

void rsp_analysis_explanation(const struct rsp_analysis *an, struct rsp_explanation *o)
{
	uint64_t total = 0;

	for (size_t i = 0; i < an->paths.n; i++)
		total += an->paths.v[i].span;
	fill(an, an->cat_ns, an->start, an->end, total, an->paths.n, o);
	o->n_processes = an->n_processes;
}

void rsp_analysis_path_explanation(const struct rsp_analysis *an, size_t path,
				   struct rsp_explanation *o)
{
	const struct apath *p = &an->paths.v[path];

	fill(an, p->cat_ns, p->start, p->end, p->span, 1, o);
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
