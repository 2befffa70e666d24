/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Who held the CPU.  A thread that is runnable but not running waits for the
 * CPU it then runs on: while another thread ran there (contention: that
 * thread is named), or while the CPU was idle and had yet to wake up to run
 * it (wake-up latency of an idle CPU, large in a VM).  The runs of every
 * thread, per CPU and in time order, are the trace's (trace_cpu_runs()).
 */
#include "analysis/analysis-private.h"
#include "base/search.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* At most this many pieces per wait: the rest goes to the last one. */
#define MAX_PIECES 16

/* The trace's runs per CPU (trace_cpu_runs()), and a search hint per CPU. */
static bool index_cpus(struct rsp_analysis *an)
{
	if (an->cpu_runs)
		return true;
	an->cpu_runs = trace_cpu_runs(an->t);
	if (an->cpu_runs)
		an->run_hint = calloc(an->cpu_runs->n, sizeof(*an->run_hint));
	if (!an->cpu_runs || !an->run_hint) {
		an->cpu_runs = NULL;
		an->nomem = true;
		return false;
	}
	return true;
}

struct run_query {
	const struct cpu_run *v;
	uint64_t a;
};

static bool starts_before(const void *ctx, size_t i)
{
	const struct run_query *q = ctx;

	return q->v[i].start < q->a;
}

/* The first run on @cpu that ends after @a (runs by start; their ends mostly in order). */
static size_t first_after(struct rsp_analysis *an, uint16_t cpu, uint64_t a)
{
	const struct cpu_run *v = an->cpu_runs->v[cpu].v;
	struct run_query q = { v, a };
	size_t lo = _rsp_gallop(an->cpu_runs->v[cpu].n, an->run_hint[cpu], starts_before, &q);

	an->run_hint[cpu] = lo;
	/* an earlier run may still cover @a */
	while (lo > 0 && v[lo - 1].end > a)
		lo--;
	return lo;
}

/*
 * "comm: runnable while X ran" (@by a thread) or "comm: runnable, its CPU waking from idle",
 * once per pair of comms (a key per pair of threads made the map a cache miss a
 * lookup: sched-messaging's 800 threads)
 */
static uint32_t wait_label(struct rsp_analysis *an, uint32_t thread, uint32_t by)
{
	uint64_t key = (uint64_t)an->t->threads.v[thread].comm << 32 |
		       (by == RSP_NONE ? RSP_NONE : an->t->threads.v[by].comm);
	char buf[160];
	uint32_t l;

	if (_rsp_u64map_get(&an->sched_labels, key, &l))
		return l;
	if (by == RSP_NONE)
		snprintf(buf, sizeof(buf), "%s: runnable, its CPU waking from idle",
			 analysis_thread_comm(an, thread));
	else
		snprintf(buf, sizeof(buf), "%s: runnable while %s ran",
			 analysis_thread_comm(an, thread),
			 analysis_is_recorder(an, by) ? RSP_RECORDER_WORDS :
							analysis_thread_comm(an, by));
	l = trace_intern(an->t, buf);
	_rsp_u64map_put(&an->sched_labels, key, l); /* no room: made again next time */
	return l;
}

static void piece(struct rsp_analysis *an, uint32_t thread, uint64_t s, uint64_t e,
		  uint32_t parent, uint32_t depth, uint32_t by, bool known)
{
	uint32_t n = analysis_leaf(an, RSP_NODE_RUNNABLE, RSP_CAT_SCHED, s, e, parent, depth, thread);

	if (n == RSP_NONE)
		return;
	if (!known) {
		analysis_label_thread(an, n, thread);
		return;
	}
	analysis_node(an, n)->label = wait_label(an, thread, by);
	analysis_node(an, n)->other = by;
	analysis_claim_holder(an, by, s, e);
	analysis_explained_ns(an, e - s);
	if (analysis_is_recorder(an, by))
		an->recorder_ns += e - s;
}

/*
 * The thread whose wakeup (or data) ended sleep @k of @thread, if its run on
 * the CPU the thread was woken to is part of the wait: a thread walked in
 * no other place at that time (not a target thread, whose own path counts
 * it; not a caller on the walk's stack), seen from a target thread's path
 * (an async path's waits are of its own; the run of the thread that woke it
 * may be a call in the target's path at that time).
 */
static uint32_t waker_holding(const struct rsp_analysis *an, uint32_t thread, uint32_t k,
			      uint32_t *stack, uint32_t *run)
{
	const struct thread *th = &an->t->threads.v[thread];
	const struct slice *s = k < th->slices.n ? &th->slices.v[k] : NULL;
	const struct link *l;
	uint32_t w;

	if (!s || s->kind != SLICE_SLEEP || s->link == RSP_NONE || an->cur_path >= an->paths.n ||
	    an->paths.v[an->cur_path].async)
		return RSP_NONE;
	l = &an->t->links.v[s->link];
	if (l->kind != LINK_WAKEUP && l->kind != LINK_NET)
		return RSP_NONE;
	w = analysis_link_waker(an, l);
	if (w == RSP_NONE || w == thread || analysis_own_path(an, w) || an->on_stack[w])
		return RSP_NONE;
	/* the stack it woke the thread from: its own, not an interrupt's on an idle CPU;
	 * the run it woke it from */
	*stack = l->waker == w ? l->stack : 0;
	*run = l->waker == w ? l->waker_slice :
	       l->kind == LINK_NET && l->extra < an->t->nets.n ?
			       analysis_sending_run(an, w, &an->t->nets.v[l->extra]) :
			       RSP_NONE;
	return w;
}

/* hops of a hand-off: a request sent to a daemon's I/O thread, passed to a worker */
#define HAND_OFF_HOPS 3

/*
 * Was run @r started by @th's wakeup, or by a wakeup from a run that @th's
 * wakeup started, up to HAND_OFF_HOPS links back?
 */
bool analysis_woken_from(const struct rsp_analysis *an, const struct slice *r, uint32_t th)
{
	for (int hops = 0; hops < HAND_OFF_HOPS && r && r->kind == SLICE_RUN &&
			   r->link != RSP_NONE; hops++) {
		const struct link *l = &an->t->links.v[r->link];
		uint32_t w = analysis_link_waker(an, l);

		if (l->kind != LINK_WAKEUP && l->kind != LINK_NET && l->kind != LINK_FORK)
			return false;
		if (w == th)
			return true;
		if (w == RSP_NONE || w != l->waker || l->waker_slice == RSP_NONE)
			return false;
		r = l->waker_slice < an->t->threads.v[w].slices.n ?
			    &an->t->threads.v[w].slices.v[l->waker_slice] :
			    NULL;
	}
	return false;
}

/*
 * Is the run @r holding the CPU @thread waits for work @thread's wakeup
 * started (analysis_woken_from(): a request it sent, handed from thread to
 * thread), in a target's path, by a thread walked nowhere else then?
 */
static bool working_for(const struct rsp_analysis *an, uint32_t thread, const struct cpu_run *r)
{
	const struct thread *h = &an->t->threads.v[r->thread];

	if (an->cur_path >= an->paths.n || an->paths.v[an->cur_path].async ||
	    analysis_own_path(an, r->thread) || an->on_stack[r->thread] || r->slice >= h->slices.n)
		return false;
	return analysis_woken_from(an, &h->slices.v[r->slice], thread);
}

/*
 * @holder, holding the CPU a walked thread waited for, is a thread the target
 * started (a job's other process: a build's other compile): its run is work
 * the target waits for as much, so the wait is its CPU, one layer up, not
 * contention (as "preempted by" or "runnable while" would say).  Not in an
 * async path (their claims are made before they are walked), nor for a
 * thread on the walk's stack.
 */
static bool job_work(struct rsp_analysis *an, uint32_t holder)
{
	return holder != RSP_NONE && an->cur_path < an->paths.n &&
	       !an->paths.v[an->cur_path].async && !an->on_stack[holder] &&
	       analysis_is_descendant(an, holder);
}

/*
 * [@s, @e]: the CPU a thread was woken to is still waking from idle.  The run
 * of its waker that woke it, where it goes on meanwhile on its own CPU (the
 * rest of a reply: the send's return, the loop back to the next receive), is
 * the call's overflow past the wait it ended (the paper's child that slightly
 * overflows its parent): not counted again as the waker's own control path
 * working in parallel, for nothing of the target's was running then.  Counted
 * in the header (rsp_explanation.overflow_ns), not in a category.
 */
static void overflow(struct rsp_analysis *an, uint32_t waker, const struct slice *r, uint64_t s,
		     uint64_t e, uint64_t hi, bool *counted)
{
	uint64_t a, b;

	if (r->end > hi)
		return;
	a = r->start > s ? r->start : s;
	b = r->end < e ? r->end : e;
	if (b <= a || !analysis_claim_holder(an, waker, a, b))
		return;
	an->overflow_ns += b - a;
	if (!*counted)
		an->n_overflow++;
	*counted = true;
}

/*
 * Sleep @k of @thread was ended by @waker's run @r, which was still going on
 * when the thread, having run briefly, waited again, and @waker ended that
 * wait too (a Unix socket's recv() of the request wakes the peer blocked in
 * its own recv(); it finds nothing and sleeps on while the request is
 * served).  The thread's wait for its CPU in between was off the path that
 * mattered: it was waiting for @waker's work all along.
 */
static bool still_working(const struct rsp_analysis *an, uint32_t thread, uint32_t k,
			  uint32_t waker, const struct slice *r)
{
	const struct thread *th = &an->t->threads.v[thread];
	const struct slice *again;
	const struct link *l;

	if (k + 2 >= th->slices.n || th->slices.v[k + 1].kind != SLICE_RUN)
		return false;
	again = &th->slices.v[k + 2];
	if (again->kind != SLICE_SLEEP || again->link == RSP_NONE || r->end <= again->start)
		return false;
	l = &an->t->links.v[again->link];
	return (l->kind == LINK_WAKEUP || l->kind == LINK_NET) && analysis_link_waker(an, l) == waker;
}

/*
 * [@s, @e] of a wait for a CPU waking from idle: the waker's run that woke
 * the thread, going on meanwhile, is the call's overflow (overflow()) or,
 * if the thread waited for it again (still_working()), still the call.
 */
static void idle_piece(struct rsp_analysis *an, uint32_t thread, uint32_t k, uint64_t s,
		       uint64_t e, uint64_t hi, uint32_t parent, uint32_t depth, uint32_t waker,
		       uint32_t run, bool call, bool *counted)
{
	const struct slice *r = NULL;

	if (waker != RSP_NONE && run != RSP_NONE && run < an->t->threads.v[waker].slices.n &&
	    an->t->threads.v[waker].slices.v[run].kind == SLICE_RUN)
		r = &an->t->threads.v[waker].slices.v[run];
	/* (e <= hi: a run past @hi covers the piece to its end) */
	if (r && r->start <= s && r->end > hi && still_working(an, thread, k, waker, r) &&
	    analysis_claim_holder(an, waker, s, e)) {
		analysis_run_leaf(an, waker, run, s, e, parent, depth);
		return;
	}
	piece(an, thread, s, e, parent, depth, RSP_NONE, true);
	if (r && call) /* a run that was no call does not overflow the wait */
		overflow(an, waker, r, s, e, hi, counted);
}

void analysis_runnable(struct rsp_analysis *an, uint32_t thread, uint32_t k, uint64_t lo,
		       uint64_t hi, uint32_t parent, uint32_t depth, bool call)
{
	const struct thread *th = &an->t->threads.v[thread];
	const struct slice *next = k + 1 < th->slices.n ? &th->slices.v[k + 1] : NULL;
	uint64_t cur = lo;
	size_t i, pieces = 0;
	bool capped = false;
	uint32_t waker, waker_stack = 0, waker_run = RSP_NONE;
	uint16_t cpu;
	bool counted = false;

	if (hi <= lo)
		return;
	/* the CPU it waited for is the one it then ran on */
	if (!next || next->kind != SLICE_RUN || !index_cpus(an) || next->cpu >= an->cpu_runs->n) {
		piece(an, thread, lo, hi, parent, depth, RSP_NONE, false);
		return;
	}
	cpu = next->cpu;
	waker = waker_holding(an, thread, k, &waker_stack, &waker_run);
	for (i = first_after(an, cpu, lo); i < an->cpu_runs->v[cpu].n && cur < hi; i++) {
		const struct cpu_run *r = &an->cpu_runs->v[cpu].v[i];
		uint64_t s = r->start > cur ? r->start : cur, e = r->end < hi ? r->end : hi;

		if (r->start >= hi)
			break;
		if (r->thread == thread || e <= s || e <= cur)
			continue;
		if (pieces + 2 >= MAX_PIECES) {
			capped = true;
			break;
		}
		if (s > cur) {
			idle_piece(an, thread, k, cur, s, hi, parent, depth, waker, waker_run,
				   call, &counted);
			pieces++;
		}
		if (r->thread == waker) {
			/*
			 * Its waker went on running on the CPU it woke it to: the wait
			 * goes on in the waker's code (its work after a spurious or
			 * early wakeup, the rest of a reply's send), not in the
			 * scheduler.  That run is the waker's CPU, one layer up: its
			 * samples there, else its code from where it woke the thread.
			 */
			analysis_tail_leaf(an, waker, r->slice, waker_stack, s, e, parent, depth);
			analysis_claim_holder(an, waker, s, e);
		} else if (working_for(an, thread, r) || job_work(an, r->thread)) {
			/* the work this thread's own wakeup set going (its request, passed
			 * on), or the job's other work */
			analysis_run_leaf(an, r->thread, r->slice, s, e, parent, depth);
			analysis_claim_holder(an, r->thread, s, e);
		} else {
			piece(an, thread, s, e, parent, depth, r->thread, true);
		}
		pieces++;
		cur = e;
	}
	/* nothing ran there: the CPU was idle, on its way to run this thread */
	if (cur < hi && capped)
		piece(an, thread, cur, hi, parent, depth, RSP_NONE, false);
	else if (cur < hi)
		idle_piece(an, thread, k, cur, hi, hi, parent, depth, waker, waker_run, call,
			   &counted);
}

/* [@s, @e] of @thread's preemption by @by, while @holder held its CPU. */
static void preempted_piece(struct rsp_analysis *an, uint32_t thread, uint64_t s, uint64_t e,
			    uint32_t parent, uint32_t depth, uint32_t by, uint32_t holder)
{
	uint32_t n = analysis_leaf(an, RSP_NODE_PREEMPTED, RSP_CAT_INVOLUNTARY, s, e, parent, depth,
				   thread);

	if (n == RSP_NONE)
		return;
	analysis_node(an, n)->other = holder;
	if (holder == by)
		analysis_label_preempted(an, n, thread, by);
	else
		analysis_label_preempted_while(an, n, thread, holder);
	analysis_claim_holder(an, holder, s, e);
}

/*
 * [@s, @e] of @thread's preemption, @holder holding CPU @cpu: where @holder is
 * the job's work (job_work()), its runs on that CPU there are its CPU; the
 * rest (the CPU idle a moment), and any other holder's, the preemption.
 */
static void holder_piece(struct rsp_analysis *an, uint32_t thread, uint64_t s, uint64_t e,
			 uint32_t parent, uint32_t depth, uint32_t by, uint32_t holder, uint16_t cpu)
{
	const struct thread *h;
	uint64_t cur = s;

	if (e <= s || !job_work(an, holder)) {
		preempted_piece(an, thread, s, e, parent, depth, by, holder);
		return;
	}
	h = &an->t->threads.v[holder];
	for (size_t k = analysis_first_slice(an, holder, s); k < h->slices.n && cur < e; k++) {
		const struct slice *r = &h->slices.v[k];
		uint64_t a = r->start > cur ? r->start : cur, b = r->end < e ? r->end : e;

		if (r->start >= e)
			break;
		if (r->kind != SLICE_RUN || r->cpu != cpu || b <= a)
			continue;
		if (a > cur)
			preempted_piece(an, thread, cur, a, parent, depth, by, holder);
		analysis_run_leaf(an, holder, (uint32_t)k, a, b, parent, depth);
		analysis_claim_holder(an, holder, a, b);
		cur = b;
	}
	if (cur < e)
		preempted_piece(an, thread, cur, e, parent, depth, by, holder);
}

void analysis_preempted(struct rsp_analysis *an, uint32_t thread, uint32_t k, uint64_t lo,
			uint64_t hi, uint32_t parent, uint32_t depth, uint32_t by)
{
	const struct thread *th = &an->t->threads.v[thread];
	const struct slice *sl = &th->slices.v[k];
	const struct slice *next = k + 1 < th->slices.n ? &th->slices.v[k + 1] : NULL;
	uint64_t cur = lo; /* [cur, ...) is @holder's so far */
	uint32_t holder = by;
	size_t i, pieces = 0;
	uint16_t cpu;

	if (hi <= lo)
		return;
	if (!next || next->kind != SLICE_RUN || next->cpu != sl->cpu || !index_cpus(an) ||
	    next->cpu >= an->cpu_runs->n) {
		preempted_piece(an, thread, lo, hi, parent, depth, by, by);
		return;
	}
	cpu = next->cpu;
	for (i = first_after(an, cpu, lo); i < an->cpu_runs->v[cpu].n; i++) {
		const struct cpu_run *r = &an->cpu_runs->v[cpu].v[i];
		uint64_t s = r->start > lo ? r->start : lo, e = r->end < hi ? r->end : hi;

		if (r->start >= hi)
			break;
		/* a moment the CPU was idle stays with the thread that held it before */
		if (r->thread == thread || r->thread == holder || e <= s || e <= cur)
			continue;
		if (++pieces >= MAX_PIECES)
			break;
		if (s > cur)
			holder_piece(an, thread, cur, s, parent, depth, by, holder, cpu);
		holder = r->thread;
		cur = s > cur ? s : cur;
	}
	holder_piece(an, thread, cur, hi, parent, depth, by, holder, cpu);
}

/*
 * @thread (a thread the target started, not a target thread) waited for a CPU
 * over [@s, @e] before its run @next: where a thread of a target's path held
 * that CPU (a target thread, or one walked in a target's path then), it was
 * waiting for the target's control paths, not working in parallel: claimed,
 * as its idle waits are (an async path counts its runs and its
 * waits for anything but the target's paths).
 */
static void claim_cpu_wait(struct rsp_analysis *an, uint32_t thread, const struct slice *next,
			   uint64_t s, uint64_t e, const size_t *n_sorted)
{
	uint16_t cpu;

	if (e <= s || !next || next->kind != SLICE_RUN || !index_cpus(an) ||
	    next->cpu >= an->cpu_runs->n)
		return;
	cpu = next->cpu;
	for (size_t i = first_after(an, cpu, s); i < an->cpu_runs->v[cpu].n; i++) {
		const struct cpu_run *r = &an->cpu_runs->v[cpu].v[i];
		uint64_t a = r->start > s ? r->start : s, b = r->end < e ? r->end : e;

		if (r->start >= e)
			break;
		if (b <= a || r->thread == thread)
			continue;
		if (an->is_target[r->thread])
			analysis_claim(an, thread, a, b);
		else
			analysis_claim_where_claimed(an, thread, r->thread, n_sorted[r->thread], a,
						     b);
	}
}

void analysis_claim_waits_on_paths(struct rsp_analysis *an, uint32_t thread,
				   const size_t *n_sorted)
{
	const struct thread *th = &an->t->threads.v[thread];

	for (size_t k = 0; k + 1 < th->slices.n; k++) {
		const struct slice *s = &th->slices.v[k];

		if (s->kind != SLICE_SLEEP)
			continue;
		/* preempted: all of it; else its runnable tail */
		if (s->flags & SL_PREEMPTED)
			claim_cpu_wait(an, thread, &th->slices.v[k + 1], s->start, s->end, n_sorted);
		else if (s->wake && s->wake < s->end)
			claim_cpu_wait(an, thread, &th->slices.v[k + 1], s->wake, s->end, n_sorted);
	}
}

void analysis_cpus_free(struct rsp_analysis *an)
{
	free(an->run_hint);
	an->cpu_runs = NULL;
	an->run_hint = NULL;
	_rsp_u64map_free(&an->sched_labels);
}
