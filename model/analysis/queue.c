/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Queueing behind other connections: a target waiting for a
 * server's reply waits, in part, while the server serves other clients'
 * requests.  A server thread's requests are windows of its socket calls, per
 * connection, from the receive of a request to the send of its reply, as
 * rsp report --requests splits a target server's time (timeline/requests.c),
 * here for any thread a call walks into.  The walk knows, for each call into a server over a
 * socket, the server thread and its socket of the target's connection
 * (analysis.c); every leaf made inside that call, on any thread, at a time
 * the server was inside another connection's window, is time the target
 * queued behind that connection: summed per connection, beside the
 * categories (a leaf keeps its category: the server's CPU, its disk...).
 * A UDP socket serves every peer: there a window's peer is the socket its
 * request's datagram was sent from (timeline/requests.c), and the walk knows
 * the target's own socket; a request from a sender not known is behind the
 * server's socket.
 * A thread pool: the requests are split over the process's threads taken
 * together, and one received by an I/O thread and answered by a worker is
 * the worker's window (process_windows()); a worker that waits, inside such
 * a call, for another worker's wakeup (a lock it held) is checked against
 * that worker's windows below it (analysis_queue_server(), from analysis.c),
 * and so is a server process woken by another that serves requests of its own
 * (a process per connection: a backend waiting for another's lock).
 */
#include "analysis/analysis-private.h"
#include "base/search.h"
#include "rsp-requests.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* a request window and the thread that served it (the replier of a handed-off one) */
struct served {
	uint32_t thread;
	bool handed;
	size_t order; /* the request's, by start */
	struct req_window w;
};

/* by thread, then by end: a pool worker's windows are cut at its previous one's end */
static int by_thread_end(const void *x, const void *y)
{
	const struct served *a = x, *b = y;

	if (a->thread != b->thread)
		return a->thread < b->thread ? -1 : 1;
	if (a->w.e != b->w.e)
		return a->w.e < b->w.e ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

/* by thread, then in the order the requests began */
static int by_thread_order(const void *x, const void *y)
{
	const struct served *a = x, *b = y;

	if (a->thread != b->thread)
		return a->thread < b->thread ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

/*
 * When @th, a worker that replied at @end to a request handed off to it,
 * took the request (from @from: its receive, or @th's previous reply): after
 * the last of its sleeps there that either covers @from (it was idle, waiting
 * for work) or was ended by a thread of its process that serves no request
 * (the I/O thread's hand-off: a condition variable's signal, or the queue's
 * lock released).  Its wait for a CPU after the wakeup, and for the I/O
 * thread, are not the request's service.  @serves: per thread, it has
 * windows.
 */
static uint64_t taken_at(const struct rsp_trace *t, uint32_t th, uint64_t from, uint64_t end,
			 const uint8_t *serves)
{
	const struct thread *tt = &t->threads.v[th];
	size_t k = rsp_thread_find_slice(t, th, from);
	uint64_t start = from;

	for (; k != RSP_NO_INDEX && k < tt->slices.n && tt->slices.v[k].start < end; k++) {
		const struct slice *sl = &tt->slices.v[k];
		const struct link *l = sl->link != RSP_NONE ? &t->links.v[sl->link] : NULL;
		bool idle = sl->start <= from, hand = false;

		if (sl->kind != SLICE_SLEEP || (sl->flags & SL_PREEMPTED) || sl->end <= start ||
		    sl->end >= end)
			continue;
		if (l && l->kind == LINK_WAKEUP && l->waker < t->threads.n)
			hand = t->threads.v[l->waker].pid == tt->pid && !serves[l->waker];
		if (idle || hand)
			start = sl->end;
	}
	return start;
}

/* @th's windows (by start, a run of @v) into an->q_servers, indexed. */
static void keep_windows(struct rsp_analysis *an, uint32_t th, const struct served *v, size_t n)
{
	struct server_windows sw;
	uint64_t reach = 0;

	memset(&sw, 0, sizeof(sw));
	/* @reach: the latest end so far (windows of one thread may overlap: two
	 * requests read in one turn of the loop) */
	for (size_t i = 0; i < n; i++) {
		struct req_window w = v[i].w;

		reach = w.e > reach ? w.e : reach;
		w.reach = reach;
		if (!vec_push(&sw.w, w)) {
			an->nomem = true;
			break;
		}
	}
	if (!vec_push(&an->q_servers, sw) ||
	    _rsp_u64map_put(&an->q_index, th, (uint32_t)(an->q_servers.n - 1))) {
		vec_free(&sw.w);
		an->nomem = true;
	}
}

/*
 * The request windows of @thread's process, as rsp report --requests splits
 * them (its threads taken together), made on first use for all its threads: a
 * request received and answered by one thread is that thread's; one handed off
 * (a thread pool: an I/O thread receives, a worker replies) is the replier's,
 * from its receive or, if later, the end of the replier's previous window (what
 * it served before) to its reply, less its taking of it (taken_at()).
 */
static int process_windows(struct rsp_analysis *an, uint32_t thread)
{
	const struct rsp_trace *t = an->t;
	uint32_t pid = t->threads.v[thread].pid;
	VEC(struct served) v = { 0 };
	struct rsp_requests *rq = NULL;
	uint8_t *selected = calloc(t->threads.n, 1), *serves = calloc(t->threads.n, 1);
	int ret = -ENOMEM;
	size_t i, j;

	if (!selected || !serves)
		goto out;
	for (i = 0; i < t->threads.n; i++)
		selected[i] = i == thread || (pid && t->threads.v[i].pid == pid);
	if (rsp_requests_find(an->t, selected, &rq))
		goto out;
	/* the connections the process serves (idle.c: a request arriving on one) */
	if (!an->sock_served && t->socks.n && !(an->sock_served = calloc(t->socks.n, 1)))
		goto out;
	for (i = 0; i < rsp_requests_n_conns(rq); i++) {
		struct rsp_conn_info c;

		rsp_requests_conn(rq, i, &c);
		if (c.role == RSP_CONN_SERVED && c.socket < t->socks.n)
			an->sock_served[c.socket] = 1;
	}
	for (i = 0; i < rsp_requests_n(rq); i++) {
		struct rsp_request_info q;
		struct rsp_conn_info c;
		struct served s;

		rsp_requests_get(rq, i, &q);
		rsp_requests_conn(rq, q.conn, &c);
		memset(&s, 0, sizeof(s));
		s.thread = (uint32_t)q.thread;
		s.order = i;
		s.w = (struct req_window){ q.start_ns, q.end_ns, 0,
					   (uint32_t)(q.from_socket != RSP_NO_INDEX ? q.from_socket :
										      c.socket) };
		if (q.flags & RSP_REQ_HANDED_OFF) {
			s.thread = (uint32_t)q.reply_thread;
			s.handed = true;
			if (s.thread == RSP_NONE)
				continue;
		}
		if (!vec_push(&v, s))
			goto out;
	}
	for (i = 0; i < v.n; i++)
		serves[v.v[i].thread] = 1;
	if (v.n > 1)
		qsort(v.v, v.n, sizeof(*v.v), by_thread_end);
	for (i = 0; i < v.n; i++) {
		struct served *q = &v.v[i];

		if (!q->handed)
			continue;
		if (i && v.v[i - 1].thread == q->thread && v.v[i - 1].w.e > q->w.s &&
		    v.v[i - 1].w.e < q->w.e)
			q->w.s = v.v[i - 1].w.e; /* it was busy: from its previous reply */
		q->w.s = taken_at(t, q->thread, q->w.s, q->w.e, serves);
	}
	if (v.n > 1)
		qsort(v.v, v.n, sizeof(*v.v), by_thread_order);
	for (i = 0; i < v.n; i = j) {
		for (j = i; j < v.n && v.v[j].thread == v.v[i].thread; j++)
			;
		keep_windows(an, v.v[i].thread, &v.v[i], j - i);
	}
	/* the process's threads without a request: none */
	for (i = 0; i < t->threads.n; i++) {
		uint32_t k;

		if (selected[i] && !_rsp_u64map_get(&an->q_index, i, &k))
			keep_windows(an, (uint32_t)i, NULL, 0);
	}
	ret = an->nomem ? -ENOMEM : 0;
out:
	rsp_requests_free(rq);
	vec_free(&v);
	free(selected);
	free(serves);
	return ret;
}

/* @thread's request windows (process_windows()), NULL without memory. */
const struct server_windows *analysis_queue_windows(struct rsp_analysis *an, uint32_t thread)
{
	uint32_t k;

	if (!_rsp_u64map_get(&an->q_index, thread, &k)) {
		if (process_windows(an, thread)) {
			an->nomem = true;
			return NULL;
		}
		if (!_rsp_u64map_get(&an->q_index, thread, &k))
			return NULL;
	}
	return &an->q_servers.v[k];
}

/*
 * The server thread whose windows a call through a wakeup into @thread, made
 * inside a call into server thread @q (an->q_thread), is checked against:
 * @thread itself when it serves requests, a thread of @q's process (a pool's
 * worker holding a lock the one serving the target waits for) or another
 * process of the same name (a process-per-connection server's backends,
 * waiting on each other's locks in shared memory: PostgreSQL's), else @q.
 */
uint32_t analysis_queue_server(struct rsp_analysis *an, uint32_t q, uint32_t thread)
{
	const struct server_windows *sw;

	if (q == RSP_NONE || thread == q || thread >= an->t->threads.n ||
	    !an->t->threads.v[q].pid || !an->t->threads.v[thread].pid)
		return q;
	if (an->t->threads.v[thread].pid != an->t->threads.v[q].pid) {
		struct rsp_thread_info a, b;

		/* another process: of the same program (a client of the server, whose
		 * socket calls look like requests too, is no other backend of it) */
		rsp_trace_thread(an->t, q, &a);
		rsp_trace_thread(an->t, thread, &b);
		if (!a.comm || !b.comm || strcmp(a.comm, b.comm))
			return q;
	}
	sw = analysis_queue_windows(an, thread);
	return sw && sw->w.n ? thread : q;
}

/* The index of @sock's entry in an->queued, RSP_NONE without memory. */
static uint32_t add_peer(struct rsp_analysis *an, uint32_t sock, enum rsp_category cat,
			 uint64_t ns)
{
	struct queued_peer p = { .sock = sock };
	size_t i;

	for (i = 0; i < an->queued.n && an->queued.v[i].sock != sock; i++)
		;
	if (i == an->queued.n && !vec_push(&an->queued, p)) {
		an->nomem = true;
		return RSP_NONE;
	}
	an->queued.v[i].ns += ns;
	an->queued.v[i].cat_ns[cat] += ns;
	return (uint32_t)i;
}

struct reach_query {
	const struct req_window *w;
	uint64_t s;
};

static bool reaches_by(const void *ctx, size_t i)
{
	const struct reach_query *q = ctx;

	return q->w[i].reach <= q->s;
}

size_t analysis_queue_first_window(const struct server_windows *sw, uint64_t s)
{
	struct reach_query q = { sw->w.v, s };

	return _rsp_gallop(sw->w.n, 0, reaches_by, &q);
}

void analysis_queue_leaf(struct rsp_analysis *an, struct anode *n)
{
	const struct server_windows *sw;
	uint64_t s = n->start, e = n->end, most = 0;
	enum rsp_category cat = (enum rsp_category)n->cat;

	if (an->q_thread == RSP_NONE || e <= s || an->cur_path >= an->paths.n ||
	    an->paths.v[an->cur_path].async)
		return;
	sw = analysis_queue_windows(an, an->q_thread);
	if (!sw || !sw->w.n)
		return;
	for (size_t i = analysis_queue_first_window(sw, s); i < sw->w.n && sw->w.v[i].s < e; i++) {
		const struct req_window *w = &sw->w.v[i];
		uint64_t a = w->s > s ? w->s : s, b = w->e < e ? w->e : e;
		uint32_t peer;

		if (b <= a || w->sock == an->q_sock)
			continue;
		an->queued_ns += b - a;
		peer = add_peer(an, w->sock, cat, b - a);
		n->q_ns += b - a;
		if (peer != RSP_NONE && b - a > most) {
			most = b - a;
			n->q_peer = peer;
		}
	}
}

void analysis_queue_retire(struct rsp_analysis *an, const struct anode *n, uint32_t label)
{
	struct queued_peer *p;
	struct queued_what w = { label, n->cat, n->q_ns };
	size_t i;

	if (!n->q_ns || n->q_peer >= an->queued.n)
		return;
	p = &an->queued.v[n->q_peer];
	for (i = 0; i < p->what.n; i++)
		if (p->what.v[i].label == label && p->what.v[i].cat == n->cat) {
			p->what.v[i].ns += n->q_ns;
			return;
		}
	if (!vec_push(&p->what, w))
		an->nomem = true;
}

static int by_ns(const void *x, const void *y)
{
	const struct queued_peer *a = x, *b = y;

	if (a->ns != b->ns)
		return a->ns < b->ns ? 1 : -1;
	return a->sock < b->sock ? -1 : a->sock > b->sock;
}

static int what_by_ns(const void *x, const void *y)
{
	const struct queued_what *a = x, *b = y;

	if (a->ns != b->ns)
		return a->ns < b->ns ? 1 : -1;
	return a->label < b->label ? -1 : a->label > b->label;
}

/* an arrival on a queued connection's socket: the connection and its sender */
struct queued_sender {
	uint32_t q, thread;
};

static int by_q_thread(const void *x, const void *y)
{
	const struct queued_sender *a = x, *b = y;

	if (a->q != b->q)
		return a->q < b->q ? -1 : 1;
	return a->thread < b->thread ? -1 : a->thread > b->thread;
}

/*
 * Each queued connection's client: the thread that sent most of the data
 * arriving on the server's socket (a server's own first messages, as
 * PostgreSQL's postmaster handing a connection over, are a few).  None when
 * no sender on this machine is known, and for a UDP entry (its socket is the
 * other peer's own: what arrives there is the server's).  One pass over the
 * arrivals.
 */
static void queued_clients(struct rsp_analysis *an)
{
	const struct rsp_trace *t = an->t;
	uint32_t *q_of = malloc((t->socks.n ? t->socks.n : 1) * sizeof(*q_of));
	struct queued_sender *sent = malloc((t->nets.n ? t->nets.n : 1) * sizeof(*sent));
	size_t n = 0, most = 0;

	for (size_t q = 0; q < an->queued.n; q++)
		an->queued.v[q].client = RSP_NONE;
	if (!q_of || !sent) {
		an->nomem = true;
		goto done;
	}
	for (size_t s = 0; s < t->socks.n; s++)
		q_of[s] = RSP_NONE;
	for (size_t q = 0; q < an->queued.n; q++) {
		const struct sock_info *si = &t->socks.v[an->queued.v[q].sock];

		if (!((si->family == 2 || si->family == 10) && si->protocol == 17))
			q_of[an->queued.v[q].sock] = (uint32_t)q;
	}
	for (size_t i = 0; i < t->nets.n; i++) {
		const struct net_op *a = &t->nets.v[i];

		if (a->sender != RSP_NONE && a->sock < t->socks.n && q_of[a->sock] != RSP_NONE)
			sent[n++] = (struct queued_sender){ q_of[a->sock], a->sender };
	}
	/* per connection, the sender of the longest run */
	qsort(sent, n, sizeof(*sent), by_q_thread);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && sent[j].q == sent[i].q && sent[j].thread == sent[i].thread; j++)
			;
		if (!i || sent[i].q != sent[i - 1].q)
			most = 0;
		if (j - i > most) {
			most = j - i;
			an->queued.v[sent[i].q].client = sent[i].thread;
		}
	}
done:
	free(q_of);
	free(sent);
}

void analysis_queue_finish(struct rsp_analysis *an)
{
	if (an->queued.n > 1)
		qsort(an->queued.v, an->queued.n, sizeof(*an->queued.v), by_ns);
	for (size_t i = 0; i < an->queued.n; i++)
		if (an->queued.v[i].what.n > 1)
			qsort(an->queued.v[i].what.v, an->queued.v[i].what.n,
			      sizeof(*an->queued.v[i].what.v), what_by_ns);
	if (an->queued.n)
		queued_clients(an);
}

void analysis_queue_free(struct rsp_analysis *an)
{
	for (size_t i = 0; i < an->q_servers.n; i++)
		vec_free(&an->q_servers.v[i].w);
	vec_free(&an->q_servers);
	_rsp_u64map_free(&an->q_index);
	for (size_t i = 0; i < an->queued.n; i++)
		vec_free(&an->queued.v[i].what);
	vec_free(&an->queued);
}
