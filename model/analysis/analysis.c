/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The recursive analysis (the paper's "Recursive Stack Making"), iterative.
 *
 * A root is a target thread's span (and the leftover time of processes the
 * target forked).  Walking a thread's slices inside a window: a run is a
 * leaf; a sleep becomes a node whose children explain it.  What ended the
 * sleep decides: the waker's run, if it fits inside the sleep within the
 * tolerance, is a "call": the waker's activity inside the sleep's window is
 * walked one layer up.  A waker already on the stack is a "return".  A waker
 * whose run does not fit ran in parallel: the sleep is waiting on another
 * control path.  Disk, network, timers and interrupts end the recursion as
 * leaves.  Every nanosecond of every root lands in exactly one leaf, so the
 * categories partition the total exactly and none can go negative.
 */
#include "analysis/analysis-private.h"
#include "base/search.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_MAX_DEPTH 256

struct frame {
	uint32_t thread;
	uint64_t a, b; /* window */
	uint32_t parent; /* node */
	uint32_t depth;
	size_t k; /* next slice */
	uint64_t cursor; /* covered up to */
	/* after the child frame: the sleep's runnable tail */
	uint64_t post_start, post_end;
	uint32_t post_parent, post_slice;
	bool post;
	/* a child: the time of its thread taken by the call, walked or not (its window
	 * and the overhangs the tolerance lets a callee have at either end) */
	uint64_t claim_from, claim_to;
	/* a call into a server over a socket: the server thread and its socket of
	 * this connection (queue.c), else its caller's (q_set false) */
	uint32_t q_thread, q_sock;
	bool q_set;
	bool q_woke; /* a call through a wakeup (a futex's): see analysis_queue_server() */
};

/* ---- claims ---------------------------------------------------------------------------- */

/*
 * A callee's overhang, [@s, @e] before or after the window it was walked in:
 * its waits there (for its CPU, for its caller's request) are part of the
 * call; its runs are work, counted where they fall (its async path).
 */
static void claim_waits_in(struct rsp_analysis *an, uint32_t thread, uint64_t s, uint64_t e)
{
	const struct thread *th = &an->t->threads.v[thread];

	for (size_t k = analysis_first_slice(an, thread, s); k < th->slices.n; k++) {
		const struct slice *sl = &th->slices.v[k];
		uint64_t a = sl->start > s ? sl->start : s, b = sl->end < e ? sl->end : e;

		if (sl->start >= e)
			break;
		if (sl->kind != SLICE_RUN)
			analysis_claim(an, thread, a, b);
	}
}

/* [@s, @e] of @thread is claimed whole: part of the span swept, if it meets it */
static void swept_add(struct rsp_analysis *an, uint32_t thread, uint64_t s, uint64_t e)
{
	struct interval *w;

	if (thread == RSP_NONE || e <= s || !an->claims)
		return;
	w = &an->swept[thread];
	if (w->e <= w->s || e < w->s || s > w->e) {
		w->s = s;
		w->e = e;
		return;
	}
	w->s = s < w->s ? s : w->s;
	w->e = e > w->e ? e : w->e;
}

/*
 * The waits of [@s, @e] claimed once: a thread's overhang windows overlap (in
 * a ping-pong of 10 us round trips a 1 ms tolerance covers a hundred calls),
 * so only the part outside the span already swept (the union of the last
 * overlapping windows, all of whose waits are claimed) is walked.
 */
static void claim_waits(struct rsp_analysis *an, uint32_t thread, uint64_t s, uint64_t e)
{
	const struct interval *w;

	if (thread == RSP_NONE || e <= s || !an->claims)
		return;
	w = &an->swept[thread];
	if (w->e <= w->s || e < w->s || s > w->e) {
		claim_waits_in(an, thread, s, e);
	} else {
		if (s < w->s)
			claim_waits_in(an, thread, s, w->s);
		if (e > w->e)
			claim_waits_in(an, thread, w->e, e);
	}
	swept_add(an, thread, s, e);
}

/*
 * A call walked over [@c->a, @c->b] of its thread: the window claimed whole,
 * the waits of its overhangs on either side too, in time order (the list
 * then stays in a few sorted runs).
 */
static void claim_call(struct rsp_analysis *an, const struct frame *c)
{
	if (c->claim_from)
		claim_waits(an, c->thread, c->claim_from, c->a);
	analysis_claim(an, c->thread, c->a, c->b);
	swept_add(an, c->thread, c->a, c->b);
	claim_waits(an, c->thread, c->b, c->claim_to);
}

/* ---- fitting --------------------------------------------------------------------------- */

static const struct slice *slice_at(const struct rsp_analysis *an, uint32_t th, uint32_t k)
{
	const struct thread *t = &an->t->threads.v[th];

	return k < t->slices.n ? &t->slices.v[k] : NULL;
}

/*
 * Timed-out sleep @p, run @r and sleep @n, consecutive slices of one thread:
 * one de facto sleep, the stacks aside (compared last: comparing them
 * unwinds user-stack copies)?
 */
static bool defacto_joined(const struct rsp_analysis *an, const struct slice *p,
			   const struct slice *r, const struct slice *n)
{
	return p->kind == SLICE_SLEEP && p->link != RSP_NONE &&
	       an->t->links.v[p->link].kind == LINK_TIMER && r->kind == SLICE_RUN &&
	       r->end - r->start <= an->tol && n->kind == SLICE_SLEEP && !(n->flags & SL_PREEMPTED);
}

/*
 * The first (@back) or the last sleep of the de facto sleep that sleep @k of
 * @th is in: consecutive sleeps with the same stack, separated by runs
 * shorter than the tolerance, all but the last ending in a timeout, are one
 * sleep (while (!done) poll(timeout)).
 */
static uint32_t defacto_end(struct rsp_analysis *an, uint32_t th, uint32_t k, bool back)
{
	const struct thread *t = &an->t->threads.v[th];
	uint32_t stack = 0;
	bool have = false;

	while (back ? k >= 2 : k + 2 < t->slices.n) {
		uint32_t p = back ? k - 2 : k, n = p + 2;

		if (!defacto_joined(an, &t->slices.v[p], &t->slices.v[p + 1], &t->slices.v[n]))
			break;
		if (!have) {
			stack = analysis_stack_id(an, t->slices.v[k].stack);
			have = true;
		}
		if (analysis_stack_id(an, t->slices.v[back ? p : n].stack) != stack)
			break;
		k = back ? p : n;
	}
	return k;
}

/* The de facto start of sleep @k of @th (*@merged: earlier sleeps are in it). */
static uint64_t defacto_start(struct rsp_analysis *an, uint32_t th, uint32_t k, bool *merged)
{
	uint32_t first = defacto_end(an, th, k, true);

	*merged = first != k;
	return an->t->threads.v[th].slices.v[first].start;
}

/*
 * Is the waker's run a call the sleep made: did it begin no earlier than the
 * tolerance before the sleep (the paper's test)?  The paper also wanted it to
 * end within the tolerance after the sleep; rsp does not: what the waker does
 * after the wakeup is outside the window (call_into() clips it, claiming up
 * to the tolerance), and a server that goes on to its next job without
 * sleeping (a pool worker finding its queue non-empty, an event loop with
 * more ready) made each of its clients' waits "another control path"
 * (ANALYSIS.md, "The fit test").
 */
static bool fits(const struct rsp_analysis *an, const struct slice *run, uint64_t sleep_start)
{
	return run && run->kind == SLICE_RUN && run->start + an->tol >= sleep_start;
}

/* ---- one sleep ------------------------------------------------------------------------- */

static void io_leaves(struct rsp_analysis *an, const struct io_op *io, uint32_t ioi, uint64_t lo,
		      uint64_t hi, uint32_t parent, uint32_t depth, uint32_t waiter)
{
	/* before the request: kernel; queued; in service; completed, not yet woken.
	 * A request whose start was not recorded was being serviced all along. */
	uint64_t edges[5] = { lo, io->insert ? io->insert : lo, io->issue ? io->issue : lo,
			      io->complete, hi };
	static const uint8_t kinds[4] = { RSP_NODE_KERNEL, RSP_NODE_IO_QUEUE, RSP_NODE_IO,
					  RSP_NODE_KERNEL };
	static const uint8_t cats[4] = { RSP_CAT_KERNEL, RSP_CAT_IO_QUEUE, RSP_CAT_DISK,
					 RSP_CAT_KERNEL };

	for (int i = 1; i < 4; i++) {
		if (!edges[i] || edges[i] < lo)
			edges[i] = lo;
		if (edges[i] > hi)
			edges[i] = hi;
		if (edges[i] < edges[i - 1])
			edges[i] = edges[i - 1];
	}
	for (int i = 0; i < 4; i++) {
		uint32_t n = analysis_leaf(an, kinds[i], cats[i], edges[i], edges[i + 1], parent, depth,
				  RSP_NONE);

		if (n != RSP_NONE) {
			analysis_node(an, n)->io = ioi;
			analysis_label_io(an, n, io, waiter);
		}
	}
}

/*
 * A preemption that is a hand-off: the thread that took the CPU is one this
 * thread had just woken (a synchronous wakeup, e.g. a pipe write, runs the
 * wakee on the waker's CPU), directly or through the threads its wakeup
 * started (a client's request read by a daemon's I/O thread and handed to a
 * worker, which takes the client's CPU before the client sleeps).  Its run
 * is the child, as if the waker had blocked; what is left of the preemption
 * after that run is scheduler delay.
 */
static bool handed_off(struct rsp_analysis *an, uint32_t th, const struct link *pl, uint32_t k,
		       uint64_t lo, uint64_t hi, uint32_t node, uint32_t d, struct frame *f,
		       struct frame *child)
{
	const struct slice *r;
	uint64_t end;

	if (pl->waker == RSP_NONE || pl->waker_slice == RSP_NONE || an->on_stack[pl->waker] ||
	    analysis_own_path(an, pl->waker))
		return false;
	r = slice_at(an, pl->waker, pl->waker_slice);
	if (!analysis_woken_from(an, r, th))
		return false;
	if (d + 1 >= an->max_depth || (an->max_nodes && an->n_made >= an->max_nodes))
		return false;
	end = r->end < hi ? r->end : hi;
	if (end <= lo)
		return false;
	memset(child, 0, sizeof(*child));
	child->thread = pl->waker;
	child->a = lo;
	child->b = end;
	child->parent = node;
	child->depth = d;
	child->cursor = lo;
	child->claim_from = lo;
	child->claim_to = end;
	f->post = hi > end;
	f->post_start = end;
	f->post_end = hi;
	f->post_parent = node;
	f->post_slice = k;
	return true;
}

/*
 * A call: waker @w's activity inside sleep @k of @f's thread over [@lo,
 * @wait_end] (its link @l, the waker's run @r), one layer up, in @child; the
 * rest of the window, to @hi, after it.
 */
static void call_into(struct rsp_analysis *an, struct frame *f, struct frame *child, uint32_t node,
		      uint32_t d, uint32_t k, uint32_t w, const struct link *l, const struct slice *r,
		      uint64_t lo, uint64_t wait_end, uint64_t hi)
{
	memset(child, 0, sizeof(*child));
	child->thread = w;
	if (l->kind == LINK_NET && l->extra < an->t->nets.n) {
		/* over a socket: the server's end of this connection */
		const struct net_op *no = &an->t->nets.v[l->extra];

		if (no->sender == w && no->sock < an->t->socks.n &&
		    an->t->socks.v[no->sock].peer != RSP_NONE) {
			child->q_thread = w;
			child->q_sock = an->t->socks.v[no->sock].peer;
			child->q_set = true;
		} else if (no->sender == w && no->from_sock != RSP_NONE &&
			   no->sock < an->t->socks.n) {
			/* a UDP reply: the server's requests are told apart
			 * by the socket that sent them, this one's (queue.c) */
			child->q_thread = w;
			child->q_sock = no->sock;
			child->q_set = true;
		}
	}
	child->q_woke = l->kind == LINK_WAKEUP;
	child->a = lo;
	child->b = wait_end;
	child->parent = node;
	child->depth = d;
	child->cursor = lo;
	/* the callee's overhangs, which fits() let it have: their waits are
	 * part of the call (cut, not counted), their runs its own work */
	child->claim_from = lo > an->tol ? lo - an->tol : 1;
	child->claim_to = r->end > wait_end ? r->end : wait_end;
	if (child->claim_to > wait_end + an->tol)
		child->claim_to = wait_end + an->tol;
	f->post = hi > wait_end;
	f->post_start = wait_end;
	f->post_end = hi;
	f->post_parent = node;
	f->post_slice = k;
}

/*
 * Sleep @k of @f's thread timed out, and the thread waited again at the same
 * place (runs within the tolerance between), until a wait that was woken:
 * one de facto sleep (defacto_end()), ended by that wakeup, whose waker's
 * activity explains this part too, as a call (in @child; true).  A periodic
 * check inside a longer wait is no polling: PostgreSQL's lock wait times out
 * after deadlock_timeout (1 s), checks for a deadlock and waits again until
 * the holder commits.  False (a wait that timed out) when no later wait at
 * the same place was woken (the paper's curl: every poll timed out), or its
 * waker's run does not fit the de facto sleep.
 */
static bool timed_out_then_woken(struct rsp_analysis *an, struct frame *f, uint32_t k, uint64_t lo,
				 uint64_t wait_end, uint64_t hi, uint32_t node, uint32_t d,
				 struct frame *child)
{
	uint32_t last = defacto_end(an, f->thread, k, false), w;
	const struct slice *ls, *r;
	const struct link *l;
	bool merged;

	if (last == k)
		return false;
	ls = slice_at(an, f->thread, last);
	l = ls && ls->link != RSP_NONE ? &an->t->links.v[ls->link] : NULL;
	if (!l || (l->kind != LINK_WAKEUP && l->kind != LINK_NET) ||
	    (l->kind == LINK_NET && l->extra < an->t->nets.n &&
	     an->t->nets.v[l->extra].sender == RSP_NONE))
		return false;
	w = analysis_link_waker(an, l);
	if (w == RSP_NONE || w == f->thread || an->on_stack[w] || analysis_own_path(an, w) ||
	    d + 1 >= an->max_depth || (an->max_nodes && an->n_made >= an->max_nodes))
		return false;
	r = l->waker_slice != RSP_NONE ? slice_at(an, w, l->waker_slice) : NULL;
	if (!fits(an, r, defacto_start(an, f->thread, last, &merged)))
		return false;
	analysis_node(an, node)->flags |= RSP_NODE_DEFACTO;
	call_into(an, f, child, node, d, k, w, l, r, lo, wait_end, hi);
	return true;
}

/*
 * Did target thread @th, in sleep @k, wait on its own helper: another thread
 * of the target (*@wp, its run *@rp woke @th) to which @th had handed the work
 * it then waited for?  A daemon's main thread that queues a write for its
 * fsync thread and waits for it: the helper's wait for work was ended by @th
 * (a wakeup, or its birth: a thread created and joined), before @th began to
 * wait, and since then the helper waited only for its own devices, timers
 * and CPUs (its disk, not another thread's work) until the run that woke @th,
 * which fits the wait (fits()).  Not a wait for work of @th's own, idle in a
 * server (analysis_idle_handed_work(): its fsync thread's wait for the next
 * write, ended by the main thread, which it had itself woken by releasing
 * their lock).  The helper's wait for work is at another place than
 * @th's: threads of one code path taking turns (a lock's waiters, each
 * waking the next) are no helper of each other and stay control paths of
 * their own.  A function of the trace alone: the roots lend the windows it
 * finds before any is walked (lend_to_helpers()).
 */
static bool helper_call(struct rsp_analysis *an, uint32_t th, uint32_t k, uint32_t *wp,
			const struct slice **rp)
{
	const struct slice *s = slice_at(an, th, k), *r;
	const struct thread *h;
	const struct link *l;
	uint32_t w;
	bool merged;

	if (an->windows || !s || s->kind != SLICE_SLEEP || (s->flags & SL_PREEMPTED) ||
	    s->link == RSP_NONE || !an->is_target[th])
		return false;
	l = &an->t->links.v[s->link];
	w = l->waker;
	if (l->kind != LINK_WAKEUP || w == RSP_NONE || w == th || w >= an->t->threads.n ||
	    !an->is_target[w] || l->waker_slice == RSP_NONE)
		return false;
	r = slice_at(an, w, l->waker_slice);
	if (!fits(an, r, defacto_start(an, th, k, &merged)) || analysis_idle_handed_work(an, th, k))
		return false;
	h = &an->t->threads.v[w];
	for (uint32_t j = l->waker_slice; j-- > 0;) {
		const struct slice *hs = &h->slices.v[j];
		const struct link *hl;

		if (hs->kind == SLICE_SLEEP && (hs->flags & SL_BORN)) {
			/* its birth: a thread @th created for the job */
			if (h->parent != th || hs->start > s->start)
				return false;
			*wp = w;
			*rp = r;
			return true;
		}
		if (hs->kind != SLICE_SLEEP || hs->link == RSP_NONE)
			continue;
		hl = &an->t->links.v[hs->link];
		if (hl->kind == LINK_NET)
			return false; /* data: work from whoever sent it */
		if (hl->kind != LINK_WAKEUP)
			continue; /* its own I/O, timers, preemptions */
		if (hl->waker != th || !hs->wake || hs->wake > s->start)
			return false;
		if (hs->stack && s->stack &&
		    analysis_stack_id(an, hs->stack) == analysis_stack_id(an, s->stack))
			return false;
		*wp = w;
		*rp = r;
		return true;
	}
	return false;
}

/*
 * Explain sleep @k of thread @th over [lo, hi] under node @parent.  Returns
 * true if a child frame must be walked first (filled into @child).
 */
static bool explain_sleep(struct rsp_analysis *an, struct frame *f, uint32_t k, uint64_t lo,
			  uint64_t hi, struct frame *child)
{
	const struct slice *s = slice_at(an, f->thread, k);
	uint32_t d = f->depth + 1;
	uint32_t node = analysis_add_node(an, RSP_NODE_SLEEP, lo, hi, f->parent, d);
	const struct link *l;
	uint64_t wake, wait_end;
	bool merged = false;

	if (node == RSP_NONE)
		return false;
	analysis_node(an, node)->thread = f->thread;
	analysis_node(an, node)->slice = k;
	analysis_node(an, node)->link = s->link;
	if (f->depth > 0 && s->start < lo) {
		/* it began before its parent waited: the earlier part is cut */
		analysis_node(an, node)->flags |= RSP_NODE_CUT;
		an->n_cut++;
	}
	if (s->flags & SL_PREEMPTED) {
		const struct link *pl = s->link != RSP_NONE ? &an->t->links.v[s->link] : NULL;
		uint32_t n;

		if (pl && pl->kind == LINK_PREEMPT &&
		    handed_off(an, f->thread, pl, k, lo, hi, node, d, f, child))
			return true;
		/* a thread born runnable waits for a CPU: scheduler delay, not preemption */
		if (s->flags & SL_BORN) {
			analysis_runnable(an, f->thread, k, lo, hi, node, d + 1, false);
			return false;
		}
		if (pl && pl->kind == LINK_PREEMPT && pl->waker != RSP_NONE) {
			analysis_preempted(an, f->thread, k, lo, hi, node, d + 1, pl->waker);
			return false;
		}
		n = analysis_leaf(an, RSP_NODE_PREEMPTED, RSP_CAT_INVOLUNTARY, lo, hi, node, (d + 1),
				  f->thread);
		if (n != RSP_NONE)
			analysis_label_thread(an, n, f->thread);
		return false;
	}
	wake = s->wake && s->wake <= s->end ? s->wake : s->end;
	wait_end = wake < lo ? lo : wake > hi ? hi : wake;
	if (wait_end > hi)
		wait_end = hi;
	/* in its own control path: waiting on its own helper is a call into the
	 * helper's work (its window lent, lend_to_helpers()), not idle */
	if (wait_end > lo && f->depth == 0) {
		const struct slice *r;
		uint32_t w;

		if (helper_call(an, f->thread, k, &w, &r)) {
			l = &an->t->links.v[s->link];
			if (d + 1 >= an->max_depth || (an->max_nodes && an->n_made >= an->max_nodes)) {
				uint32_t n = analysis_leaf(an, RSP_NODE_UNACCOUNTED, RSP_CAT_UNACCOUNTED,
							   lo, wait_end, node, (d + 1), RSP_NONE);

				if (n != RSP_NONE)
					analysis_node(an, n)->flags |= RSP_NODE_BOUNDED;
				an->n_bounded++;
				if (hi > wait_end)
					analysis_runnable(an, f->thread, k, wait_end, hi, node, d + 1,
							  false);
				return false;
			}
			call_into(an, f, child, node, d, k, w, l, r, lo, wait_end, hi);
			return true;
		}
	}
	/* in its own control path: waiting with nothing to do is idle (idle.c) */
	if (wait_end > lo && !(f->depth == 0 && analysis_idle(an, f->thread, k, lo, wait_end, node,
							      d + 1))) {
		l = s->link != RSP_NONE ? &an->t->links.v[s->link] : NULL;
		switch (l ? l->kind : LINK_UNKNOWN) {
		case LINK_WAKEUP:
		case LINK_FORK:
		case LINK_NET: {
			uint32_t w = analysis_link_waker(an, l);
			const struct slice *r;
			uint64_t dstart;

			if (l->kind == LINK_NET && l->extra < an->t->nets.n &&
			    an->t->nets.v[l->extra].sender == RSP_NONE) {
				uint32_t n = analysis_leaf(an, RSP_NODE_NET, RSP_CAT_NET, lo, wait_end, node,
						  (d + 1), RSP_NONE);

				if (n != RSP_NONE) {
					analysis_node(an, n)->net = l->extra;
					analysis_label_net(an, n, l->extra);
				}
				break;
			}
			if (w == RSP_NONE || w == f->thread) {
				analysis_unexplained(an, s, l, f->thread, lo, wait_end, node,
						     (d + 1));
				break;
			}
			if (an->on_stack[w]) {
				/* a return to a caller: nothing of the callee's is left here */
				analysis_unexplained(an, s, l, f->thread, lo, wait_end, node,
						     (d + 1));
				break;
			}
			if (analysis_own_path(an, w)) {
				/* another target thread: a control path of its own, its time
				 * counted there, not again inside this wait */
				analysis_other_path(an, w, l, lo, wait_end, node, d + 1);
				break;
			}
			r = l->waker_slice != RSP_NONE ? slice_at(an, w, l->waker_slice) : NULL;
			if (!r && l->kind == LINK_NET && l->extra < an->t->nets.n &&
			    an->t->nets.v[l->extra].sender == w) {
				/* woken from a softirq on a CPU with no known task */
				uint32_t sk = analysis_sending_run(an, w, &an->t->nets.v[l->extra]);

				r = sk != RSP_NONE ? slice_at(an, w, sk) : NULL;
			}
			dstart = defacto_start(an, f->thread, k, &merged);
			if (merged)
				analysis_node(an, node)->flags |= RSP_NODE_DEFACTO;
			/* a sleep cut at its parent's start is re-checked with its shorter,
			 * cut duration (the paper's triangles) */
			if (dstart < f->a)
				dstart = f->a;
			if (!fits(an, r, dstart)) {
				analysis_other_path(an, w, l, lo, wait_end, node, d + 1);
				break;
			}
			if (d + 1 >= an->max_depth || (an->max_nodes && an->n_made >= an->max_nodes)) {
				uint32_t n = analysis_leaf(an, RSP_NODE_UNACCOUNTED, RSP_CAT_UNACCOUNTED, lo,
						  wait_end, node, (d + 1), RSP_NONE);

				if (n != RSP_NONE)
					analysis_node(an, n)->flags |= RSP_NODE_BOUNDED;
				an->n_bounded++;
				break;
			}
			call_into(an, f, child, node, d, k, w, l, r, lo, wait_end, hi);
			return true;
		}
		case LINK_IO: {
			if (l->extra < an->t->ios.n)
				io_leaves(an, &an->t->ios.v[l->extra], l->extra, lo, wait_end, node,
					  (d + 1), f->thread);
			else
				analysis_unexplained(an, s, l, f->thread, lo, wait_end, node,
						     (d + 1));
			break;
		}
		case LINK_TIMER: {
			bool deliberate = analysis_is_deliberate(an, s->stack);
			uint32_t n;

			if (!deliberate && timed_out_then_woken(an, f, k, lo, wait_end, hi, node, d,
								 child))
				return true;

			if (!deliberate && analysis_not_recorded(an, s, l)) {
				/* a device's interrupt or the timer's: the trace cannot say */
				analysis_unexplained(an, s, l, f->thread, lo, wait_end, node,
						     (d + 1));
				break;
			}
			n = analysis_leaf(an, RSP_NODE_TIMEOUT,
					  deliberate ? RSP_CAT_DELIBERATE : RSP_CAT_TIMEOUT, lo,
					  wait_end, node, (d + 1), f->thread);

			if (n != RSP_NONE)
				analysis_label_timeout(an, n, f->thread, s, deliberate);
			break;
		}
		case LINK_IRQ: {
			uint32_t n = analysis_leaf(an, RSP_NODE_HARDWARE, RSP_CAT_HARDWARE, lo, wait_end,
					  node, (d + 1), RSP_NONE);

			if (n == RSP_NONE)
				break;
			analysis_node(an, n)->label = l->extra != RSP_NONE ?
							      l->extra :
							      trace_intern(an->t, "interrupt");
			if (l->extra != RSP_NONE)
				analysis_explained_ns(an, wait_end - lo); /* a named device */
			break;
		}
		case LINK_SOFTIRQ: {
			uint32_t n;

			if (analysis_not_recorded(an, s, l)) {
				/* network or block softirq work whose events the trace lacks */
				analysis_unexplained(an, s, l, f->thread, lo, wait_end, node,
						     (d + 1));
				break;
			}
			n = analysis_leaf(an, RSP_NODE_KERNEL, RSP_CAT_KERNEL, lo, wait_end, node, (d + 1),
					  f->thread);
			if (n != RSP_NONE)
				analysis_label_kernel(an, n, f->thread, s);
			break;
		}
		default:
			analysis_unexplained(an, s, l, f->thread, lo, wait_end, node,
					     (d + 1));
			break;
		}
	}
	if (hi > wait_end)
		analysis_runnable(an, f->thread, k, wait_end, hi, node, d + 1, false);
	return false;
}

/* ---- walking a window ---------------------------------------------------------------- */

static void gap(struct rsp_analysis *an, struct frame *f, uint64_t s, uint64_t e)
{
	uint32_t n = analysis_leaf(an, RSP_NODE_UNACCOUNTED, RSP_CAT_UNACCOUNTED, s, e, f->parent,
			  (f->depth + 1), f->thread);

	if (n != RSP_NONE)
		analysis_label_thread(an, n, f->thread);
}

/*
 * A thread's slices are read in order, but what each sleep needs is all over
 * memory: its link (links are in time order, a thread's few among everyone's),
 * then the link's network arrival and the waker's run.  Asked for ahead, a
 * level at a time: the link 8 slices ahead, what it points at 4 ahead (its
 * link asked for 4 slices ago).
 */
#define LINK_AHEAD 8
#define TARGET_AHEAD 4

/* Inlined always: alone, a function of prefetches has no effect GCC keeps a call for. */
static inline __attribute__((always_inline)) void prefetch_ahead(const struct rsp_analysis *an, const struct thread *th, size_t k)
{
	const struct rsp_trace *t = an->t;
	uint32_t li;

	if (k + LINK_AHEAD < th->slices.n) {
		li = th->slices.v[k + LINK_AHEAD].link;
		if (li < t->links.n) {
			__builtin_prefetch(&t->links.v[li]);
			__builtin_prefetch((const char *)&t->links.v[li] + sizeof(struct link) - 1);
		}
	}
	if (k + TARGET_AHEAD < th->slices.n) {
		const struct link *l;

		li = th->slices.v[k + TARGET_AHEAD].link;
		if (li >= t->links.n)
			return;
		l = &t->links.v[li];
		if (l->kind == LINK_NET && l->extra < t->nets.n)
			__builtin_prefetch(&t->nets.v[l->extra]);
		if (l->waker < t->threads.n && l->waker_slice != RSP_NONE &&
		    l->waker_slice < t->threads.v[l->waker].slices.n)
			__builtin_prefetch(&t->threads.v[l->waker].slices.v[l->waker_slice]);
	}
}

/* Walk @f until done (false) or until a child frame is needed (true). */
static bool walk(struct rsp_analysis *an, struct frame *f, struct frame *child)
{
	const struct thread *th = &an->t->threads.v[f->thread];

	if (f->post) {
		analysis_runnable(an, f->thread, f->post_slice, f->post_start, f->post_end,
				  f->post_parent, f->depth + 2, true);
		f->post = false;
	}
	while (f->cursor < f->b && !an->nomem) {
		const struct slice *s;
		uint64_t lo, hi;
		size_t k = f->k;

		if (k >= th->slices.n) {
			gap(an, f, f->cursor, f->b);
			f->cursor = f->b;
			break;
		}
		prefetch_ahead(an, th, k);
		s = &th->slices.v[k];
		f->k++;
		if (s->end <= f->cursor || s->end <= s->start)
			continue;
		lo = s->start > f->cursor ? s->start : f->cursor;
		hi = s->end < f->b ? s->end : f->b;
		if (lo >= f->b) {
			gap(an, f, f->cursor, f->b);
			f->cursor = f->b;
			break;
		}
		if (lo > f->cursor)
			gap(an, f, f->cursor, lo);
		f->cursor = hi;
		switch (s->kind) {
		case SLICE_RUN: {
			uint32_t n = analysis_run_leaf(an, f->thread, (uint32_t)k, lo, hi, f->parent,
						       (f->depth + 1));

			if (n != RSP_NONE && f->depth > 0 && s->start < lo) {
				analysis_node(an, n)->flags |= RSP_NODE_CUT;
				an->n_cut++;
			}
			break;
		}
		case SLICE_SLEEP:
			if (explain_sleep(an, f, (uint32_t)k, lo, hi, child))
				return true;
			break;
		default: {
			uint32_t n;

			if (s->flags & SL_NOT_RECORDED) {
				analysis_unrecorded(an, f->thread, lo, hi, f->parent, f->depth + 1);
				break;
			}
			n = analysis_leaf(an, RSP_NODE_UNKNOWN, RSP_CAT_UNKNOWN, lo, hi, f->parent,
					  (f->depth + 1), f->thread);
			if (n != RSP_NONE)
				analysis_label_lost(an, n, s->cpu, s->flags & SL_LOST);
			break;
		}
		}
	}
	return false;
}

/* Explain [a, b] of @thread as a root of path @path. */
static int explain_root(struct rsp_analysis *an, uint32_t thread, uint64_t a, uint64_t b)
{
	VEC(struct frame) st = { 0 };
	struct frame f, child;
	uint32_t root = analysis_add_node(an, RSP_NODE_ROOT, a, b, RSP_NONE, 0);

	if (root == RSP_NONE)
		return -ENOMEM;
	analysis_node(an, root)->thread = thread;
	memset(&f, 0, sizeof(f));
	f.thread = thread;
	f.a = a;
	f.b = b;
	f.parent = root;
	f.depth = 0;
	f.cursor = a;
	f.q_thread = f.q_sock = RSP_NONE;
	f.k = analysis_first_slice(an, thread, a);
	if (!vec_push(&st, f))
		return -ENOMEM;
	an->on_stack[thread]++;
	while (st.n && !an->nomem) {
		struct frame *top = vec_last(&st);

		an->q_thread = top->q_thread;
		an->q_sock = top->q_sock;
		if (walk(an, top, &child)) {
			/* this window of the waker's time explains someone's sleep */
			if (!child.q_set) {
				child.q_thread = top->q_thread;
				child.q_sock = top->q_sock;
				/* a thread of the server's woke it: a pool's worker
				 * releasing a lock may serve requests of its own */
				if (child.q_woke)
					child.q_thread = analysis_queue_server(an, top->q_thread,
									       child.thread);
			}
			claim_call(an, &child);
			child.k = analysis_first_slice(an, child.thread, child.a);
			an->on_stack[child.thread]++;
			if (!vec_push(&st, child)) {
				an->nomem = true;
				break;
			}
			continue;
		}
		an->on_stack[top->thread]--;
		st.n--;
	}
	while (st.n) {
		an->on_stack[vec_last(&st)->thread]--;
		st.n--;
	}
	an->q_thread = an->q_sock = RSP_NONE;
	vec_free(&st);
	return an->nomem ? -ENOMEM : 0;
}

/* ---- roots ------------------------------------------------------------------------------ */

static bool written_by_rsp(const struct rsp_trace *t)
{
	const struct rsp_reader_info *in = rsp_reader_info(t->reader);

	return in->version && !strncmp(in->version, "rsp ", 4);
}

static bool started_by_rsp(const struct rsp_trace *t)
{
	const struct rsp_reader_info *in = rsp_reader_info(t->reader);

	if (!written_by_rsp(t))
		return false;
	for (size_t i = 0; i < in->n_cmdline; i++)
		if (!strcmp(in->cmdline[i], "--"))
			return true;
	return in->n_cmdline > 2 && in->n_targets == 1;
}

static int add_path(struct rsp_analysis *an, uint32_t thread, uint64_t a, uint64_t b, bool async,
		    uint32_t parent_path)
{
	struct apath p;

	memset(&p, 0, sizeof(p));
	p.thread = thread;
	p.start = a;
	p.end = b;
	p.span = b - a;
	p.async = async;
	p.parent = parent_path;
	if (!vec_push(&an->paths, p))
		return -ENOMEM;
	an->cur_path = (uint32_t)(an->paths.n - 1);
	return 0;
}

/* A target thread's span: its first to last slice; a command rsp started begins at its exec. */
static bool thread_span(struct rsp_analysis *an, uint32_t ti, uint64_t *a, uint64_t *b)
{
	const struct thread *th = &an->t->threads.v[ti];

	if (!th->slices.n)
		return false;
	*a = th->slices.v[0].start;
	*b = vec_last(&th->slices)->end;
	if (an->started_by_rsp) {
		for (size_t k = 0; k < th->slices.n; k++) {
			if (th->slices.v[k].flags & SL_EXEC) {
				*a = th->slices.v[k].start;
				break;
			}
		}
	}
	return *b > *a;
}

/*
 * Before the target's roots are walked: the windows each target thread lends
 * to the threads that wait on it as their helper, [the wait's start, the
 * wakeup] as explain_sleep() walks it at depth 0 of the waiter's own path.
 */
static int lend_to_helpers(struct rsp_analysis *an)
{
	for (uint32_t i = 0; i < an->t->threads.n; i++) {
		const struct thread *th = &an->t->threads.v[i];
		uint64_t a, b;

		if (!an->is_target[i] || !thread_span(an, i, &a, &b))
			continue;
		for (uint32_t k = 0; k < th->slices.n; k++) {
			const struct slice *s = &th->slices.v[k], *r;
			uint64_t lo = s->start > a ? s->start : a, wake;
			uint32_t w;

			if (!helper_call(an, i, k, &w, &r))
				continue;
			wake = s->wake && s->wake <= s->end ? s->wake : s->end;
			if (wake > b)
				wake = b;
			if (wake > lo && !vec_push(&an->lent[w], ((struct interval){ lo, wake })))
				return -ENOMEM;
		}
	}
	for (uint32_t i = 0; i < an->t->threads.n; i++) {
		VEC(struct interval) *v = (void *)&an->lent[i];

		if (v->n) {
			analysis_sort_claims(v->v, v->n);
			v->n = analysis_union_claims(v->v, v->n);
		}
	}
	return 0;
}

static bool descends_from(const struct rsp_analysis *an, uint32_t ti, uint32_t ancestor)
{
	for (size_t hops = 0; ti != RSP_NONE && hops < 100000; hops++) {
		if (ti == ancestor)
			return true;
		ti = an->t->threads.v[ti].parent;
	}
	return false;
}

/*
 * Did sleep @k of @ti end for nothing: the run after it made no socket call
 * and went back to the same wait (the same stack)?  A helper blocked in
 * recv() for the next request is woken by the peer's recv() of its last
 * reply (a Unix socket wakes the writer's wait queue); it finds nothing and
 * sleeps on.  Only where the trace has socket calls to tell.
 */
static bool woken_for_nothing(struct rsp_analysis *an, uint32_t ti, size_t k)
{
	const struct thread *th = &an->t->threads.v[ti];
	const struct slice *r, *again;

	if (!an->t->have_net || k + 2 >= th->slices.n)
		return false;
	r = &th->slices.v[k + 1];
	again = &th->slices.v[k + 2];
	if (r->kind != SLICE_RUN || again->kind != SLICE_SLEEP || !th->slices.v[k].stack)
		return false;
	/* from the first socket call at or after the run's start */
	for (size_t i = analysis_first_sockop(an, r->start);
	     i < an->t->sockops.n && an->t->sockops.v[i].time <= r->end; i++)
		if (an->t->sockops.v[i].thread == ti)
			return false;
	/* the stacks last: comparing them unwinds user-stack copies */
	return analysis_stack_id(an, th->slices.v[k].stack) == analysis_stack_id(an, again->stack);
}

/*
 * A descendant's idle time: sleeps until someone else of the target's tree
 * (not one of its own descendants) woke it.  A server the target forked,
 * waiting for the next request, is not doing work the target started.
 */
static void add_idle(struct rsp_analysis *an, uint32_t ti)
{
	const struct thread *th = &an->t->threads.v[ti];

	for (size_t k = 0; k < th->slices.n; k++) {
		const struct slice *s = &th->slices.v[k];
		const struct link *l;
		uint32_t waker;
		uint64_t end;

		if (s->kind != SLICE_SLEEP || s->link == RSP_NONE)
			continue;
		l = &an->t->links.v[s->link];
		waker = analysis_link_waker(an, l); /* data: sent from a tree thread */
		if (waker == RSP_NONE || analysis_path_of_ancestor(an, waker) == RSP_NONE ||
		    descends_from(an, waker, ti))
			continue;
		if (l->kind == LINK_PREEMPT) {
			/* it handed the CPU to the tree thread it had just woken */
			const struct slice *r = l->waker_slice != RSP_NONE ?
							slice_at(an, waker, l->waker_slice) :
							NULL;

			if (r && r->link != RSP_NONE && an->t->links.v[r->link].waker == ti)
				analysis_claim(an, ti, s->start, s->end);
			continue;
		}
		if (l->kind != LINK_WAKEUP && l->kind != LINK_NET)
			continue;
		/* its wait for a CPU after a wakeup for nothing is idle too (its run
		 * then is counted: CPU spent) */
		end = s->wake && s->wake < s->end && !woken_for_nothing(an, ti, k) ? s->wake : s->end;
		analysis_claim(an, ti, s->start, end);
	}
}

/*
 * Before any async path is walked: each descendant's claims so far (the
 * target's paths are walked) and its idle waits, sorted and made disjoint;
 * then its waits for a CPU a target's path held, which need the others'.
 */
static int claim_descendants(struct rsp_analysis *an)
{
	size_t nt = an->t->threads.n, *n_sorted = calloc(nt ? nt : 1, sizeof(*n_sorted));

	if (!n_sorted)
		return -ENOMEM;
	for (uint32_t i = 0; i < nt; i++) {
		VEC(struct interval) *cl = (void *)&an->claims[i];

		if (analysis_is_descendant(an, i))
			add_idle(an, i);
		if (cl->n) {
			analysis_sort_claims(cl->v, cl->n);
			cl->n = analysis_union_claims(cl->v, cl->n);
		}
		n_sorted[i] = cl->n;
	}
	for (uint32_t i = 0; i < nt; i++)
		if (analysis_is_descendant(an, i))
			analysis_claim_waits_on_paths(an, i, n_sorted);
	free(n_sorted);
	return an->nomem ? -ENOMEM : 0;
}

/*
 * @ti's control path over [@a, @b] less the sorted, disjoint intervals @cut:
 * one path of one or more segments, each walked as a root.  An async path of
 * a thread the target forked, less the windows claimed by the target's walk;
 * a target thread's own, less the windows it lent to the threads it was the
 * helper of (lend_to_helpers()).
 */
static int explain_segments(struct rsp_analysis *an, uint32_t ti, uint64_t a, uint64_t b,
			    const struct interval *cut, size_t n, bool async, uint32_t parent_path)
{
	uint32_t path = RSP_NONE;
	uint64_t cur = a;
	int ret = 0;

	for (size_t i = 0; i <= n && !ret; i++) {
		uint64_t s = i < n ? cut[i].s : b;
		uint64_t e = i < n ? cut[i].e : b;

		if (s > b)
			s = b;
		if (s > cur) {
			/* async: time of the target's tree not inside any of its sleeps:
			 * parallel work, one control path per thread */
			if (path == RSP_NONE) {
				ret = add_path(an, ti, cur, s, async, parent_path);
				if (ret)
					break;
				path = an->cur_path;
				if (!async)
					an->path_of_thread[ti] = path;
			} else {
				an->cur_path = path;
				an->paths.v[path].end = s;
				an->paths.v[path].span += s - cur;
			}
			ret = explain_root(an, ti, cur, s);
		}
		if (e > cur)
			cur = e;
	}
	return ret;
}

static int explain_descendant(struct rsp_analysis *an, uint32_t ti, uint32_t parent_path)
{
	VEC(struct interval) *cl = (void *)&an->claims[ti];
	uint64_t a, b;

	if (!thread_span(an, ti, &a, &b))
		return 0;
	if (cl->n)
		analysis_sort_claims(cl->v, cl->n);
	return explain_segments(an, ti, a, b, cl->v, cl->n, true, parent_path);
}

/* @ti is a target thread, or a thread of a process the target forked (any generation). */
static bool of_target_tree(const struct rsp_analysis *an, uint32_t ti)
{
	for (size_t hops = 0; ti < an->t->threads.n && hops < 100000; hops++) {
		if (an->is_target[ti])
			return true;
		ti = an->t->threads.v[ti].parent;
	}
	return false;
}

/*
 * Windows of the target's threads or its descendants' (a postmaster's
 * backends), each a control path (rsp_analysis_opts.windows): a server's
 * requests.  On error, @an is freed.
 */
static int explain_windows(struct rsp_analysis *an, const struct rsp_window *w, size_t n,
			   char *err, size_t errlen)
{
	int ret = 0;

	an->windows = true;
	for (size_t i = 0; i < n && !ret; i++) {
		if (w[i].thread >= an->t->threads.n || !of_target_tree(an, (uint32_t)w[i].thread) ||
		    w[i].end_ns < w[i].start_ns) {
			snprintf(err, errlen, "window %zu is not of a target thread", i);
			rsp_analysis_free(an);
			return -EINVAL;
		}
		ret = add_path(an, (uint32_t)w[i].thread, w[i].start_ns, w[i].end_ns, false,
			       RSP_NONE);
		if (ret)
			break;
		if (an->path_of_thread[w[i].thread] == RSP_NONE)
			an->path_of_thread[w[i].thread] = an->cur_path;
		if (!an->start || w[i].start_ns < an->start)
			an->start = w[i].start_ns;
		if (w[i].end_ns > an->end)
			an->end = w[i].end_ns;
		ret = explain_root(an, (uint32_t)w[i].thread, w[i].start_ns, w[i].end_ns);
	}
	if (ret) {
		snprintf(err, errlen, "out of memory analysing the trace");
		rsp_analysis_free(an);
	}
	return ret;
}

/*
 * Do the target's threads of which nothing was recorded (asleep all along,
 * analysis_idle_silent()) get a control path of idle?  Only beside activity of
 * the target's tree (an nginx master asleep in sigsuspend, its workers
 * serving): a target nothing of which was recorded is an error.
 */
static bool silent_targets(struct rsp_analysis *an)
{
	for (uint32_t i = 0; i < an->t->threads.n; i++) {
		uint32_t ti = i;

		if (!an->t->threads.v[i].slices.n)
			continue;
		for (size_t hops = 0; ti != RSP_NONE && hops < 100000; hops++) {
			if (an->is_target[ti])
				return true;
			ti = an->t->threads.v[ti].parent;
		}
	}
	return false;
}

int rsp_analyze(struct rsp_trace *t, const int *pids, size_t n_pids, int tid,
		const struct rsp_analysis_opts *o, struct rsp_analysis **out, char *err,
		size_t errlen)
{
	struct rsp_analysis *an;
	size_t nt = t->threads.n;
	bool silent;
	int ret = 0;

	*out = NULL;
	an = calloc(1, sizeof(*an));
	if (!an)
		return -ENOMEM;
	an->t = t;
	an->tol = o && o->tolerance_ns ? o->tolerance_ns : RSP_DEFAULT_TOLERANCE_NS;
	an->max_nodes = o ? o->max_nodes : 0;
	an->max_depth = o && o->max_depth ? o->max_depth : DEFAULT_MAX_DEPTH;
	an->summary = o && o->summary;
	an->cur_path = RSP_NONE;
	an->q_thread = an->q_sock = RSP_NONE;
	an->is_target = calloc(nt ? nt : 1, 1);
	an->on_stack = calloc(nt ? nt : 1, sizeof(*an->on_stack));
	an->path_of_thread = calloc(nt ? nt : 1, sizeof(*an->path_of_thread));
	an->claims = calloc(nt ? nt : 1, sizeof(*an->claims));
	an->lent = calloc(nt ? nt : 1, sizeof(*an->lent));
	an->thread_seen = calloc(nt ? nt : 1, 1);
	an->swept = calloc(nt ? nt : 1, sizeof(*an->swept));
	an->slice_hint = calloc(nt ? nt : 1, sizeof(*an->slice_hint)); /* NULL: no hints */
	if (an->summary) {
		an->nodes.v = calloc(NODE_RING, sizeof(*an->nodes.v));
		an->nodes.n = an->nodes.cap = an->nodes.warm = an->nodes.v ? NODE_RING : 0;
	}
	if (!an->is_target || !an->on_stack || !an->path_of_thread || !an->claims || !an->lent ||
	    !an->thread_seen || !an->swept || (an->summary && !an->nodes.v)) {
		rsp_analysis_free(an);
		return -ENOMEM;
	}
	an->started_by_rsp = started_by_rsp(t);
	an->by_rsp = written_by_rsp(t);
	for (size_t i = 0; i < nt; i++) {
		const struct thread *th = &t->threads.v[i];
		bool match = tid > 0 ? (int)th->tid == tid : false;

		for (size_t p = 0; !match && tid <= 0 && p < n_pids; p++)
			match = (int)th->pid == pids[p];
		an->is_target[i] = match;
		an->path_of_thread[i] = RSP_NONE;
		an->n_threads += match;
	}
	if (!an->n_threads) {
		snprintf(err, errlen, "the target has no activity in this trace (%s %d)",
			 tid > 0 ? "thread" : "pid", tid > 0 ? tid : n_pids ? pids[0] : 0);
		rsp_analysis_free(an);
		return -ESRCH;
	}
	if (o && o->n_windows) {
		ret = explain_windows(an, o->windows, o->n_windows, err, errlen);
		if (ret)
			return ret; /* freed */
		goto done;
	}
	silent = silent_targets(an);
	ret = lend_to_helpers(an);
	for (uint32_t i = 0; i < nt && !ret; i++) {
		uint64_t a, b;
		bool quiet = false;

		if (!an->is_target[i])
			continue;
		if (!thread_span(an, i, &a, &b)) {
			/* asleep all along, beside activity of the target's tree (idle.c) */
			if (!silent || !analysis_idle_silent(an, i))
				continue;
			a = t->t_start;
			b = t->t_end;
			quiet = b > a;
			if (!quiet)
				continue;
		}
		if (!an->start || a < an->start)
			an->start = a;
		if (b > an->end)
			an->end = b;
		if (quiet) {
			uint32_t root;

			ret = add_path(an, i, a, b, false, RSP_NONE);
			if (ret)
				break;
			an->path_of_thread[i] = an->cur_path;
			root = analysis_add_node(an, RSP_NODE_ROOT, a, b, RSP_NONE, 0);
			if (root == RSP_NONE) {
				ret = -ENOMEM;
				break;
			}
			analysis_node(an, root)->thread = i;
			analysis_idle_silent_leaf(an, i, a, b, root, 1);
			continue;
		}
		ret = explain_segments(an, i, a, b, an->lent[i].v, an->lent[i].n, false, RSP_NONE);
	}
	if (!ret && !an->paths.n) {
		/* its threads are named (a comm, a fork) but nothing of them was recorded */
		snprintf(err, errlen,
			 "the target has no recorded activity in this trace (%s %d: no sample, no "
			 "switch)",
			 tid > 0 ? "thread" : "pid", tid > 0 ? tid : n_pids ? pids[0] : 0);
		rsp_analysis_free(an);
		return -ESRCH;
	}
	/* what the target forked, outside the target's sleeps (tid targets: none) */
	if (!ret && tid <= 0)
		ret = claim_descendants(an);
	for (uint32_t i = 0; i < nt && !ret && tid <= 0; i++) {
		uint32_t pp;

		if (an->is_target[i] || t->threads.v[i].parent == RSP_NONE)
			continue;
		pp = analysis_path_of_ancestor(an, t->threads.v[i].parent);
		if (pp == RSP_NONE)
			continue;
		ret = explain_descendant(an, i, pp);
	}
done:
	if (ret || an->nomem) {
		snprintf(err, errlen, "out of memory analysing the trace");
		rsp_analysis_free(an);
		return -ENOMEM;
	}
	analysis_retire_all(an);
	analysis_runs_finish(an);
	analysis_queue_finish(an);
	ret = analysis_contribs_sort(an);
	if (ret) {
		snprintf(err, errlen, "out of memory analysing the trace");
		rsp_analysis_free(an);
		return ret;
	}
	*out = an;
	return 0;
}

void rsp_analysis_free(struct rsp_analysis *an)
{
	if (!an)
		return;
	if (an->claims)
		for (size_t i = 0; i < an->t->threads.n; i++)
			vec_free(&an->claims[i]);
	free(an->claims);
	if (an->lent)
		for (size_t i = 0; i < an->t->threads.n; i++)
			vec_free(&an->lent[i]);
	free(an->lent);
	free(an->is_target);
	free(an->on_stack);
	free(an->path_of_thread);
	free(an->thread_seen);
	free(an->swept);
	free(an->slice_hint);
	vec_free(&an->nodes);
	vec_free(&an->paths);
	analysis_labels_free(an);
	analysis_contribs_free(an);
	analysis_runs_free(an);
	analysis_cpus_free(an);
	analysis_queue_free(an);
	analysis_idle_free(an);
	free(an);
}
