/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Idle: a thread of the target waiting with nothing to do (issue 45,
 * docs/ANALYSIS.md "Idle").  Only a wait in the thread's own control path (a
 * target thread's, or an async path's of a process the target forked), never
 * one walked inside a call, nor in --requests' windows (a request's time is
 * its own); only an interruptible one; only outside the thread's request
 * windows (as queue.c splits its process's requests: no request of its was in
 * progress).  Such a wait is idle when:
 *
 *   the next request ended it: data on a connection its process serves, or a
 *     connection to a listening socket (a server waiting for work);
 *   a thread of the target's tree woke it, and the target serves requests from
 *     clients outside the tree (a worker waiting on an empty queue, a
 *     housekeeping thread woken for work, a postmaster woken by a backend);
 *   its timer ended it and it waited again at the same place (an event loop's
 *     idle tick): a chain of timed-out waits at one place (the same stack),
 *     between them only runs of at most the tolerance in all with no socket
 *     call and no fork; the chain is idle when its last wait is idle (ended
 *     as above, or nobody came), or timed out too and the thread went back to
 *     the same place after its work, while no other thread of its process was
 *     busy meanwhile (ran the tolerance or more, or ended): that is the
 *     paper's curl, `while (!done) poll(timeout)` waiting for a thread that
 *     finished unheeded, whose timeouts stay "waits that timed out"; a last
 *     timeout after which the thread goes on elsewhere delayed that work (a
 *     loop that polls while its work waits) and stays one too, unless, in a
 *     server's tree, the thread comes back to the place through waits others
 *     ended (a housekeeping round after its tick);
 *   nobody came: nothing ended it before the recording did, and the thread
 *     waited idle at the same place before, or the wait is its whole recorded
 *     life (asleep all along).
 */
#include "analysis/analysis-private.h"
#include "rsp-requests.h"

#include <stdlib.h>
#include <string.h>

/* a thread's time is the target's or a process it forked's (any generation) */
static bool in_tree(struct rsp_analysis *an, uint32_t th)
{
	uint32_t ti = th;

	if (th >= an->t->threads.n)
		return false;
	if (!an->idle_tree) {
		an->idle_tree = calloc(an->t->threads.n, 1);
		if (!an->idle_tree) {
			an->nomem = true;
			return false;
		}
	}
	if (an->idle_tree[th])
		return an->idle_tree[th] == 1;
	for (size_t hops = 0; ti != RSP_NONE && hops < 100000; hops++) {
		if (an->is_target[ti])
			break;
		ti = an->t->threads.v[ti].parent;
	}
	an->idle_tree[th] = ti != RSP_NONE && an->is_target[ti] ? 1 : 2;
	return an->idle_tree[th] == 1;
}

/* A TCP socket that listens (its address known, no remote port): a wakeup on it is a
 * connection to accept. */
static bool listening(const struct rsp_trace *t, uint32_t sock)
{
	struct rsp_socket_info si;

	rsp_trace_socket(t, sock, &si);
	return si.listening && si.protocol != 17;
}

/* Is @th's process known to serve in the recording (rsp_requests_known_servers(), once)? */
static bool known_server(struct rsp_analysis *an, uint32_t th)
{
	if (!an->idle_servers) {
		an->idle_servers = rsp_requests_known_servers(an->t);
		if (!an->idle_servers) {
			an->nomem = true;
			return false;
		}
	}
	return an->idle_servers[th];
}

/*
 * Does the target's tree serve requests of clients outside it (rsp report
 * --requests' rules: its threads and the processes it forked, connections
 * whose client is in the tree not counted), in a process known to be a
 * server (known_server())?  Split once, on first use.
 */
static bool serves_outside(struct rsp_analysis *an)
{
	struct rsp_requests *rq = NULL;
	uint8_t *sel;

	if (an->idle_serves)
		return an->idle_serves == 1;
	an->idle_serves = 2;
	sel = calloc(an->t->threads.n ? an->t->threads.n : 1, 1);
	if (!sel) {
		an->nomem = true;
		return false;
	}
	for (uint32_t i = 0; i < an->t->threads.n; i++)
		sel[i] = an->t->threads.v[i].tid && in_tree(an, i);
	if (rsp_requests_find(an->t, sel, &rq)) {
		an->nomem = true;
	} else {
		for (size_t i = 0; i < rsp_requests_n(rq) && an->idle_serves != 1; i++) {
			struct rsp_request_info q;

			rsp_requests_get(rq, i, &q);
			if (known_server(an, (uint32_t)q.thread))
				an->idle_serves = 1;
		}
	}
	rsp_requests_free(rq);
	free(sel);
	return an->idle_serves == 1;
}

/* No request of @th's (its process's windows, queue.c) overlaps [@s, @e]. */
static bool outside_windows(struct rsp_analysis *an, uint32_t th, uint64_t s, uint64_t e)
{
	const struct server_windows *sw;

	if (!an->t->sockops.n)
		return true;
	sw = analysis_queue_windows(an, th);
	if (!sw)
		return false; /* no memory: not idle */
	for (size_t i = analysis_queue_first_window(sw, s); i < sw->w.n && sw->w.v[i].s < e; i++)
		if (sw->w.v[i].e > s)
			return false;
	return true;
}

/* The time @s of @th waited (up to its wakeup). */
static uint64_t wait_end(const struct slice *s)
{
	return s->wake && s->wake <= s->end ? s->wake : s->end;
}

/* Sleep @s of @th, ended by link @l, ended by new work: the next request, or a
 * hand-off from a thread of the target's tree (the first two rules above). */
static bool new_work(struct rsp_analysis *an, uint32_t th, const struct slice *s,
                     const struct link *l)
{
	if (l->kind == LINK_NET && l->extra < an->t->nets.n) {
		uint32_t sock = an->t->nets.v[l->extra].sock;

		if (sock >= an->t->socks.n)
			return false;
		if (!listening(an->t, sock)) {
			/* its process's requests split: the connections it serves marked */
			if (!known_server(an, th) || !analysis_queue_windows(an, th) ||
			    !an->sock_served || !an->sock_served[sock])
				return false;
		}
		return outside_windows(an, th, s->start, wait_end(s));
	}
	if (l->kind == LINK_WAKEUP && l->waker != th && in_tree(an, l->waker))
		return serves_outside(an) && outside_windows(an, th, s->start, wait_end(s));
	return false;
}

/*
 * Sleep @k of @th, whose waking was not recorded (perf loses interrupt-context
 * events on idle CPUs: a softirq's data-ready), ended by a request all the
 * same: the thread's first socket call after it, before its next wait, is a
 * receive on a connection its process serves.
 */
static bool request_unrecorded(struct rsp_analysis *an, uint32_t th, uint32_t k)
{
	const struct rsp_trace *t = an->t;
	const struct thread *tt = &t->threads.v[th];
	const struct slice *s = &tt->slices.v[k];
	uint64_t until = s->end;

	for (size_t i = k + 1; i < tt->slices.n; i++) {
		if (tt->slices.v[i].kind != SLICE_RUN && !(tt->slices.v[i].flags & SL_PREEMPTED))
			break;
		until = tt->slices.v[i].end;
	}
	if (until <= s->end || !known_server(an, th) || !analysis_queue_windows(an, th) ||
	    !an->sock_served)
		return false;
	for (size_t i = analysis_first_sockop(an, s->end);
	     i < t->sockops.n && t->sockops.v[i].time <= until; i++) {
		const struct sock_op *op = &t->sockops.v[i];

		if (op->thread == th)
			return !op->send && op->sock < t->socks.n && an->sock_served[op->sock];
	}
	return false;
}

/* ---- idle ticks ------------------------------------------------------------------------- */

static bool voluntary(const struct slice *s)
{
	return s->kind == SLICE_SLEEP && !(s->flags & SL_PREEMPTED);
}

static bool timed_out(struct rsp_analysis *an, const struct slice *s)
{
	const struct link *l = s->link != RSP_NONE ? &an->t->links.v[s->link] : NULL;

	return l && l->kind == LINK_TIMER && !analysis_is_deliberate(an, s->stack);
}

static int by_parent_birth(const void *x, const void *y)
{
	const uint64_t *a = x, *b = y;

	return *a < *b ? -1 : *a > *b;
}

/* Did @th make a socket call or fork over [@s, @e] (work, not an idle loop's turn)? */
static bool worked(struct rsp_analysis *an, uint32_t th, uint64_t s, uint64_t e)
{
	const struct rsp_trace *t = an->t;
	size_t lo, hi;

	for (size_t i = analysis_first_sockop(an, s); i < t->sockops.n && t->sockops.v[i].time <= e;
	     i++)
		if (t->sockops.v[i].thread == th)
			return true;
	/* forks: (parent << 32 | birth in us) of every thread born in the trace, sorted once */
	if (!an->idle_births_done) {
		an->idle_births_done = true;
		for (uint32_t i = 0; i < t->threads.n; i++) {
			const struct thread *c = &t->threads.v[i];

			if (c->parent != RSP_NONE && c->birth && c->birth != UINT64_MAX &&
			    !vec_push(&an->idle_births,
			              (uint64_t)c->parent << 32 | (uint32_t)(c->birth / 1000)))
				an->nomem = true;
		}
		if (an->idle_births.n)
			qsort(an->idle_births.v, an->idle_births.n, sizeof(uint64_t),
			      by_parent_birth);
	}
	lo = 0;
	hi = an->idle_births.n;
	while (lo < hi) { /* the first at or after (th, s) */
		size_t mid = lo + (hi - lo) / 2;

		if (an->idle_births.v[mid] < ((uint64_t)th << 32 | (uint32_t)(s / 1000)))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < an->idle_births.n &&
	       an->idle_births.v[lo] <= ((uint64_t)th << 32 | (uint32_t)((e + 999) / 1000));
}

/*
 * The next voluntary sleep of @th after slice @k (RSP_NONE: none, or an
 * unknown slice first), the time it ran meanwhile in *@ran and whether it
 * worked (worked()) in *@work.
 */
static uint32_t next_wait(struct rsp_analysis *an, uint32_t th, uint32_t k, uint64_t *ran,
                          bool *work)
{
	const struct thread *t = &an->t->threads.v[th];

	*ran = 0;
	*work = false;
	for (size_t i = k + 1; i < t->slices.n; i++) {
		const struct slice *s = &t->slices.v[i];

		if (s->kind == SLICE_UNKNOWN)
			return RSP_NONE;
		if (s->kind == SLICE_RUN) {
			*ran += s->end - s->start;
			*work = *work || worked(an, th, s->start, s->end);
			continue;
		}
		if (voluntary(s))
			return (uint32_t)i;
	}
	return RSP_NONE;
}

/* Where sleep @k of @th waited: its stack, resolved; a sleep begun before the
 * recording has none: the place of the thread's next wait (0: not known). */
/* Sleep @s of @th's place: its stack, if the stack names where (a user frame, or
 * a kernel function other than the scheduler's: its label), else 0. */
static uint32_t stack_place(struct rsp_analysis *an, uint32_t th, const struct slice *s)
{
	if (!s->stack ||
	    !analysis_cached_label(an, s->stack, (int)an->t->threads.v[th].pid, s->start, false))
		return 0;
	return analysis_stack_id(an, s->stack);
}

static uint32_t place_of(struct rsp_analysis *an, uint32_t th, uint32_t k)
{
	const struct slice *s = &an->t->threads.v[th].slices.v[k];
	uint64_t ran;
	bool work;

	if (s->stack || !(s->flags & SL_UNKNOWN_START))
		return stack_place(an, th, s);
	if ((k = next_wait(an, th, k, &ran, &work)) == RSP_NONE)
		return 0;
	return stack_place(an, th, &an->t->threads.v[th].slices.v[k]);
}

/* The wait that follows timed-out wait @k of @th in its chain, RSP_NONE. */
static uint32_t chain_next(struct rsp_analysis *an, uint32_t th, uint32_t k, uint32_t place)
{
	const struct slice *n;
	uint64_t ran;
	bool work;
	uint32_t i = next_wait(an, th, k, &ran, &work);

	if (i == RSP_NONE || work || ran > an->tol)
		return RSP_NONE;
	n = &an->t->threads.v[th].slices.v[i];
	if ((n->flags & SL_UNINTERRUPTIBLE) || stack_place(an, th, n) != place ||
	    !outside_windows(an, th, n->start, wait_end(n)))
		return RSP_NONE;
	return i;
}

/* Another thread of @th's process busy over [@s, @e]: it ran the tolerance or
 * more, or it ended (a thread the loop may have been waiting for). */
static bool other_busy(struct rsp_analysis *an, uint32_t th, uint64_t s, uint64_t e)
{
	const struct thread *me = &an->t->threads.v[th];

	for (uint32_t i = 0; i < an->t->threads.n; i++) {
		const struct thread *o = &an->t->threads.v[i];
		uint64_t ns = 0;

		if (i == th || o->pid != me->pid || !o->tid)
			continue;
		if (o->death >= s && o->death <= e)
			return true;
		for (size_t k = analysis_first_slice(an, i, s); k < o->slices.n; k++) {
			const struct slice *x = &o->slices.v[k];
			uint64_t a = x->start > s ? x->start : s, b = x->end < e ? x->end : e;

			if (x->start >= e)
				break;
			if (x->kind == SLICE_RUN && b > a)
				ns += b - a;
		}
		if (ns >= an->tol)
			return true;
	}
	return false;
}

/* Does @th go back to wait at @place (its next interruptible wait) after slice @k? */
static bool back_to(struct rsp_analysis *an, uint32_t th, uint32_t k, uint32_t place)
{
	const struct thread *t = &an->t->threads.v[th];

	for (size_t i = k + 1; i < t->slices.n; i++) {
		const struct slice *s = &t->slices.v[i];

		if (s->kind == SLICE_UNKNOWN)
			return false;
		if (voluntary(s) && !(s->flags & SL_UNINTERRUPTIBLE))
			return stack_place(an, th, s) == place;
	}
	return false;
}

/*
 * A housekeeping round: in a server's tree (serves_outside()), @th goes back to
 * wait at @place after slice @k, each wait of its meanwhile ended by another
 * thread or a device (its round's locks and I/O), none by a timer (a delay of
 * its own elsewhere: the work stays delayed by the tick) nor by nothing.  A
 * PostgreSQL background writer's tick, its buffers written, a lock waited for.
 */
static bool round_back(struct rsp_analysis *an, uint32_t th, uint32_t k, uint32_t place)
{
	const struct thread *t = &an->t->threads.v[th];

	if (!serves_outside(an))
		return false;
	for (size_t i = k + 1; i < t->slices.n; i++) {
		const struct slice *s = &t->slices.v[i];

		if (s->kind == SLICE_UNKNOWN)
			return false;
		if (!voluntary(s))
			continue;
		if (!(s->flags & SL_UNINTERRUPTIBLE) && stack_place(an, th, s) == place)
			return true;
		if (s->link == RSP_NONE || an->t->links.v[s->link].kind == LINK_TIMER)
			return false;
	}
	return false;
}

/*
 * The chain of timed-out waits that wait @k of @th begins (it is not in the
 * one cached), judged by how it ends, into an->idle_chain.
 */
static void judge_chain(struct rsp_analysis *an, uint32_t th, uint32_t k, uint32_t place)
{
	struct idle_chain *c = &an->idle_chain;
	const struct slice *sl = an->t->threads.v[th].slices.v, *last;
	const struct link *l;
	uint32_t n, i = k;

	while (timed_out(an, &sl[i]) && (n = chain_next(an, th, i, place)) != RSP_NONE)
		i = n;
	c->valid = true;
	c->thread = th;
	c->first = k;
	c->last = i;
	last = &sl[i];
	l = last->link != RSP_NONE ? &an->t->links.v[last->link] : NULL;
	if (!l) {
		/* nobody came before the recording ended, and nothing of its own kept
		 * it waiting (the loop waited for nothing) */
		c->last_idle =
		    (last->flags & SL_OPEN_END) && !other_busy(an, th, sl[k].start, last->end);
		c->members_idle = c->last_idle;
	} else if (timed_out(an, last)) {
		/* timed out and worked: a thread of its own busy meanwhile was what
		 * it polled for (curl); else, back at its place, only its timer (at
		 * once, or after a housekeeping round of a server's) */
		c->members_idle = !other_busy(an, th, sl[k].start, last->end);
		c->last_idle = c->members_idle &&
		               (back_to(an, th, i, place) || round_back(an, th, i, place));
	} else {
		c->last_idle = new_work(an, th, last, l);
		c->members_idle = c->last_idle;
	}
}

/* ---- the leaf --------------------------------------------------------------------------- */

/* Wait @k of @th was idle, at @place: remembered (nobody came, later). */
static void remember(struct rsp_analysis *an, uint32_t th, uint32_t k, uint32_t place)
{
	if (place)
		_rsp_u64map_put(&an->idle_places, (uint64_t)th << 32 | place, 1);
	_rsp_u64map_put(&an->idle_places, (uint64_t)th << 32, k + 1);
}

/*
 * Wait @k of @th, which nobody ended, follows an idle one: at the same place,
 * or its previous wait, after runs of at most the tolerance with no socket
 * call or fork (it went back to waiting; not a request taken up and a back
 * end called when the recording ended).
 */
static bool idle_before(struct rsp_analysis *an, uint32_t th, uint32_t k, uint32_t place)
{
	uint32_t v, p;
	uint64_t ran;
	bool work;

	if (place && _rsp_u64map_get(&an->idle_places, (uint64_t)th << 32 | place, &v))
		return true;
	if (!_rsp_u64map_get(&an->idle_places, (uint64_t)th << 32, &v) || !v || v - 1 >= k)
		return false;
	p = v - 1;
	if (next_wait(an, th, p, &ran, &work) != k || work || ran > an->tol)
		return false;
	return true;
}

/* Its label: where it waited (a wait begun before the recording has no stack: said so). */
static void idle_leaf(struct rsp_analysis *an, uint32_t th, const struct slice *s, uint64_t lo,
                      uint64_t hi, uint32_t parent, uint32_t depth)
{
	uint32_t n = analysis_leaf(an, RSP_NODE_IDLE, RSP_CAT_IDLE, lo, hi, parent, depth, th);
	uint32_t what;

	if (n == RSP_NONE)
		return;
	if (s->stack)
		what = analysis_cached_label(an, s->stack, (int)an->t->threads.v[th].pid, s->start,
		                             false);
	else
		what = trace_intern(an->t, s->flags & SL_UNKNOWN_START
		                               ? "a wait begun before the recording"
		                               : "a wait without a stack");
	analysis_node(an, n)->label = analysis_with_comm(an, th, what);
}

/*
 * Sleep @k of @th was ended by a thread of the target's tree that handed it
 * work (rule 2): idle in its own path, so no wait on a helper
 * (helper_call() in analysis.c asks; a fsync thread's wait for the next write
 * is woken by the main thread, which it had itself woken before).
 */
bool analysis_idle_handed_work(struct rsp_analysis *an, uint32_t th, uint32_t k)
{
	const struct slice *s = &an->t->threads.v[th].slices.v[k];

	return !an->windows && voluntary(s) && !(s->flags & SL_UNINTERRUPTIBLE) &&
	       s->link != RSP_NONE && an->t->links.v[s->link].kind == LINK_WAKEUP &&
	       new_work(an, th, s, &an->t->links.v[s->link]);
}

bool analysis_idle(struct rsp_analysis *an, uint32_t th, uint32_t k, uint64_t lo, uint64_t hi,
                   uint32_t parent, uint32_t depth)
{
	const struct thread *t = &an->t->threads.v[th];
	const struct slice *s = &t->slices.v[k];
	const struct link *l = s->link != RSP_NONE ? &an->t->links.v[s->link] : NULL;
	struct idle_chain *c = &an->idle_chain;
	uint32_t place;
	bool idle;

	if (an->windows || !voluntary(s) || (s->flags & SL_UNINTERRUPTIBLE) || hi <= lo ||
	    !outside_windows(an, th, s->start, wait_end(s)))
		return false;
	place = place_of(an, th, k);
	if (c->valid && c->thread == th && k >= c->first && k <= c->last) {
		idle = k == c->last ? c->last_idle : c->members_idle;
	} else if (l && timed_out(an, s)) {
		if (!place)
			return false;
		judge_chain(an, th, k, place);
		idle = k == c->last ? c->last_idle : c->members_idle;
	} else if (l) {
		idle = new_work(an, th, s, l);
	} else if (s->flags & SL_OPEN_END) {
		/* nobody came: the same place it waited idle before, or asleep all along */
		idle = idle_before(an, th, k, place) || (k == 0 && t->slices.n == 1);
	} else {
		/* its waking lost, and a request taken up after it */
		idle = request_unrecorded(an, th, k);
	}
	if (!idle)
		return false;
	remember(an, th, k, place);
	idle_leaf(an, th, s, lo, hi, parent, depth);
	return true;
}

/*
 * A target thread of which nothing was recorded, in a trace that records the
 * scheduler and samples the CPUs: it never ran, asleep all along.
 */
bool analysis_idle_silent(struct rsp_analysis *an, uint32_t th)
{
	const struct thread *t = &an->t->threads.v[th];

	if (t->slices.n || t->samples.n || !t->tid || t->birth || t->death != UINT64_MAX ||
	    !an->t->recorded[TP_SWITCH])
		return false;
	if (!an->idle_sampled) {
		an->idle_sampled = 2;
		for (size_t i = 0; i < an->t->threads.n && an->idle_sampled == 2; i++)
			if (an->t->threads.v[i].samples.n)
				an->idle_sampled = 1;
	}
	return an->idle_sampled == 1;
}

void analysis_idle_silent_leaf(struct rsp_analysis *an, uint32_t th, uint64_t lo, uint64_t hi,
                               uint32_t parent, uint32_t depth)
{
	uint32_t n = analysis_leaf(an, RSP_NODE_IDLE, RSP_CAT_IDLE, lo, hi, parent, depth, th);

	if (n != RSP_NONE)
		analysis_node(an, n)->label =
		    analysis_with_comm(an, th, trace_intern(an->t, "asleep all the recording"));
}

void analysis_idle_free(struct rsp_analysis *an)
{
	free(an->idle_tree);
	free(an->sock_served);
	vec_free(&an->idle_births);
	_rsp_u64map_free(&an->idle_places);
	free(an->idle_servers);
}
