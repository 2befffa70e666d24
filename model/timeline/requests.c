/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A server's requests (rsp-requests.h): the selected threads' socket calls in
 * time order, per connection (socket), split into exchanges: a request begins
 * with the first receive after the previous reply and ends with the last send
 * before the next receive.  A connection is served unless the target opened it
 * (the recording saw it connect: TCP's SYN_SENT) or, when the recording did not
 * see it set up, its first call was a send while the same thread had a request
 * received and not yet answered on another connection: there the target is a
 * client (a back end), and its calls are part of that request.  (A first
 * receive inside a request is a request of its own: connections served in one
 * turn of the loop.)  Requests at the recording's edges (a reply
 * without its receive, a receive without its reply) are counted, not listed.
 *
 * A UDP socket serves every peer and its events carry no addresses: its
 * requests are split the same way, on the one socket, and each request's
 * first datagram is named by the socket it was sent from when a task on this
 * machine sent it (builder-net.c), the socket's datagrams taken in the order
 * they arrived (a UDP socket's queue is first in, first out).
 */
#include "base/search.h"
#include "timeline/trace-private.h"
#include "rsp-requests.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* a connection's state: nothing yet, a request received, its reply being sent, the
 * reply of a request received before the recording being sent */
enum phase { PH_IDLE, PH_RECEIVED, PH_REPLYING, PH_CUT_REPLY };

struct conn {
	uint32_t sock;
	uint8_t role; /* 0: not known yet */
	uint8_t phase;
	uint32_t thread; /* of the current request's first receive */
	uint32_t reply_thread; /* of its reply's first send */
	uint32_t from; /* UDP: the socket its first datagram came from, RSP_NONE */
	uint64_t arrived; /* UDP: when that datagram was sent (net_sent()), 0 */
	uint64_t start;
	size_t first_op; /* in sockops: the request's first receive */
	size_t last_send_op; /* in sockops */
	uint32_t n_recv, n_send;
	uint64_t in, out;
	bool handed;
	struct rsp_conn_info info;
};

struct window {
	uint64_t s, e;
};

struct req {
	struct rsp_request_info pub;
	size_t first_op, last_op; /* in sockops: its first receive, its reply's last send */
	uint64_t arrived; /* UDP: when its datagram was sent (net_sent()), 0 */
};

/*
 * When the data of arrival @n was sent, as far as the trace tells: the
 * sender's send on this machine when it came first (a send whose data waited
 * in the receiver's backlog until the receiver released its socket), else its
 * arrival (loopback delivers inside the sender's send).
 */
static uint64_t net_sent(const struct net_op *n)
{
	return n->sender != RSP_NONE && n->send_time && n->send_time < n->ready_time ? n->send_time :
										      n->ready_time;
}

/* a UDP receive's datagram: the socket it was sent from (RSP_NONE) and when it was
 * sent (net_sent()) */
struct dgram {
	uint32_t from;
	uint64_t ready;
};

struct rsp_requests {
	VEC(struct req) reqs;
	VEC(struct conn) conns;
	struct rsp_requests_time time;
	VEC(uint64_t) lat; /* sorted latencies */
	VEC(uint64_t) client_lat; /* rsp_requests_clients(): sorted */
	bool clients_done;
};

static uint32_t conn_of(struct rsp_requests *r, uint32_t *by_sock, uint32_t sock)
{
	struct conn c;

	if (by_sock[sock] != RSP_NONE)
		return by_sock[sock];
	memset(&c, 0, sizeof(c));
	c.sock = sock;
	c.info.socket = sock;
	if (!vec_push(&r->conns, c))
		return RSP_NONE;
	by_sock[sock] = (uint32_t)(r->conns.n - 1);
	return by_sock[sock];
}

/* The request in progress on @c is complete: its reply was sent. */
static bool emit(struct rsp_trace *t, struct rsp_requests *r, struct conn *c, uint32_t ci)
{
	struct req rq;
	struct rsp_request_info q;

	memset(&q, 0, sizeof(q));
	q.conn = ci;
	q.thread = c->thread;
	q.reply_thread = c->reply_thread;
	q.start_ns = c->start;
	/* when the reply's last send returned in the kernel: the reply is then
	 * on its way (over loopback, delivered).  A preemption on the way back to
	 * user space, as by the client it woke, is not the request's: idle */
	q.end_ns = t->sockops.v[c->last_send_op].time;
	q.n_recv = c->n_recv;
	q.n_send = c->n_send;
	q.bytes_in = c->in;
	q.bytes_out = c->out;
	q.flags = (c->handed ? RSP_REQ_HANDED_OFF : 0) | (c->n_recv > 1 ? RSP_REQ_MULTI_READ : 0);
	q.from_socket = c->from == RSP_NONE ? RSP_NO_INDEX : c->from;
	q.client_thread = RSP_NO_INDEX;
	rq.pub = q;
	rq.first_op = c->first_op;
	rq.last_op = c->last_send_op;
	rq.arrived = c->arrived;
	c->info.n_requests++;
	return vec_push(&r->reqs, rq);
}

static void begin(struct conn *c, const struct sock_op *op, size_t i, const struct dgram *dg)
{
	c->phase = PH_RECEIVED;
	c->thread = op->thread;
	c->from = dg ? dg->from : RSP_NONE;
	c->arrived = dg ? dg->ready : 0;
	c->first_op = i;
	c->start = op->time;
	c->n_recv = 1;
	c->n_send = 0;
	c->in = (uint64_t)op->len;
	c->out = 0;
	c->handed = false;
}

static int cmp_req(const void *a, const void *b)
{
	const struct rsp_request_info *x = &((const struct req *)a)->pub,
				      *y = &((const struct req *)b)->pub;

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return x->conn < y->conn ? -1 : x->conn > y->conn;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Requests of one thread overlapping in time: each holds part of another's work. */
static void mark_overlaps(struct rsp_requests *r, size_t nt)
{
	uint64_t *busy_end = calloc(nt ? nt : 1, sizeof(*busy_end));
	size_t *last = calloc(nt ? nt : 1, sizeof(*last));

	if (!busy_end || !last)
		goto out;
	for (size_t i = 0; i < r->reqs.n; i++) {
		struct rsp_request_info *q = &r->reqs.v[i].pub;

		if (busy_end[q->thread] > q->start_ns) {
			q->flags |= RSP_REQ_OVERLAP;
			r->reqs.v[last[q->thread]].pub.flags |= RSP_REQ_OVERLAP;
		}
		if (q->end_ns > busy_end[q->thread]) {
			busy_end[q->thread] = q->end_ns;
			last[q->thread] = i;
		}
	}
out:
	free(busy_end);
	free(last);
}

/* Part [x, y) of slice @sl is idle: sleeping, running or other. */
static void idle_part(struct rsp_requests_time *o, const struct slice *sl, uint64_t x, uint64_t y)
{
	if (sl->kind == SLICE_RUN) {
		o->idle_run_ns += y - x;
	} else if (sl->kind == SLICE_SLEEP && !(sl->flags & SL_PREEMPTED)) {
		/* asleep until woken, then runnable */
		uint64_t wk = sl->wake ? sl->wake : y;

		wk = wk < x ? x : wk > y ? y : wk;
		o->idle_sleep_ns += wk - x;
		o->idle_other_ns += y - wk;
	} else {
		o->idle_other_ns += y - x;
	}
}

/* @th's time outside the union of @w (its requests' windows, by start). */
static void thread_idle(struct rsp_requests_time *o, const struct thread *th,
			const struct window *w, size_t nw)
{
	size_t j = 0, n = 0;
	struct window *u = (struct window *)w; /* the union, in place */

	for (size_t i = 0; i < nw; i++) {
		if (n && w[i].s <= u[n - 1].e) {
			if (w[i].e > u[n - 1].e)
				u[n - 1].e = w[i].e;
		} else {
			u[n++] = w[i];
		}
	}
	o->span_ns += vec_last(&th->slices)->end - th->slices.v[0].start;
	for (size_t i = 0; i < n; i++)
		o->busy_ns += u[i].e - u[i].s;
	for (size_t k = 0; k < th->slices.n; k++) {
		const struct slice *sl = &th->slices.v[k];
		uint64_t x = sl->start;

		while (j < n && u[j].e <= x)
			j++;
		for (size_t m = j; m < n && u[m].s < sl->end && x < sl->end; m++) {
			if (u[m].s > x)
				idle_part(o, sl, x, u[m].s);
			if (u[m].e > x)
				x = u[m].e;
		}
		if (x < sl->end)
			idle_part(o, sl, x, sl->end);
	}
}

static int idle_times(struct rsp_requests *r, struct rsp_trace *t, const uint8_t *selected)
{
	struct window *w = malloc((r->reqs.n ? r->reqs.n : 1) * sizeof(*w));

	if (!w)
		return -ENOMEM;
	for (size_t ti = 0; ti < t->threads.n; ti++) {
		const struct thread *th = &t->threads.v[ti];
		size_t nw = 0;

		if (!selected[ti] || !th->slices.n || th->tid == 0)
			continue;
		for (size_t i = 0; i < r->reqs.n; i++)
			if (r->reqs.v[i].pub.thread == ti)
				w[nw++] = (struct window){ r->reqs.v[i].pub.start_ns,
							   r->reqs.v[i].pub.end_ns };
		thread_idle(&r->time, th, w, nw);
	}
	free(w);
	return 0;
}

/*
 * Items of one kind per socket, each socket's in time order (CSR over the
 * sockets: the items of socket s are list[start[s]] .. list[start[s + 1] - 1],
 * indexes in t->sockops or t->nets).
 */
struct sock_calls {
	uint32_t *start;
	uint32_t *list;
};

/* Item @i's socket: a socket call's (@nets false) or an arrival's, if @want
 * (NULL: every socket) has a bit of @mask for it; else RSP_NONE. */
static uint32_t item_sock(const struct rsp_trace *t, bool nets, size_t i, const uint8_t *want,
			  uint8_t mask)
{
	uint32_t s = nets ? t->nets.v[i].sock : t->sockops.v[i].sock;

	return s < t->socks.n && (!want || (want[s] & mask)) ? s : RSP_NONE;
}

/* The socket calls (@nets false) or the arrivals (@nets true) of the sockets
 * item_sock() keeps. */
static int by_socket(const struct rsp_trace *t, bool nets, const uint8_t *want, uint8_t mask,
		     struct sock_calls *out)
{
	size_t n_items = nets ? t->nets.n : t->sockops.n, n = 0;
	uint32_t *next = calloc(t->socks.n + 1, sizeof(*next));

	out->start = calloc(t->socks.n + 1, sizeof(*out->start));
	out->list = NULL;
	if (!next || !out->start)
		goto fail;
	for (size_t i = 0; i < n_items; i++) {
		uint32_t s = item_sock(t, nets, i, want, mask);

		if (s != RSP_NONE) {
			out->start[s + 1]++;
			n++;
		}
	}
	out->list = malloc((n ? n : 1) * sizeof(*out->list));
	if (!out->list)
		goto fail;
	for (size_t k = 0; k < t->socks.n; k++)
		out->start[k + 1] += out->start[k];
	memcpy(next, out->start, t->socks.n * sizeof(*next));
	for (size_t i = 0; i < n_items; i++) {
		uint32_t s = item_sock(t, nets, i, want, mask);

		if (s != RSP_NONE)
			out->list[next[s]++] = (uint32_t)i;
	}
	free(next);
	return 0;
fail:
	free(next);
	free(out->start);
	free(out->list);
	return -ENOMEM;
}

struct early_key {
	const struct rsp_trace *t;
	uint32_t net;
};

static bool early_before(const void *ctx, size_t i)
{
	const struct early_key *k = ctx;

	return k->t->net_early.v[i].net < k->net;
}

/* The earliest moment datagram arrival @net can have been queued: its softirq's
 * beginning (struct net_early), else its sk_data_ready.  *@hint: the last
 * answer (the arrivals are asked about in about their order). */
static uint64_t queued_from(const struct rsp_trace *t, uint32_t net, size_t *hint)
{
	struct early_key k = { t, net };
	size_t i = _rsp_gallop(t->net_early.n, *hint, early_before, &k);

	*hint = i;
	if (i < t->net_early.n && t->net_early.v[i].net == net)
		return t->nets.v[net].ready_time - t->net_early.v[i].early_ns;
	return t->nets.v[net].ready_time;
}

/*
 * Per socket call, for a receive on a UDP socket: the socket its datagram was
 * sent from, RSP_NONE when unknown (sent from off this machine, or before the
 * recording), and when it was sent (net_sent(); 0: no arrival taken).  The
 * socket's arrivals (sk_data_ready, one per datagram) are taken in order, one
 * per receive that moved data; an arrival queued only after the receive is not
 * its datagram (one queued before the recording).  Queued: by the beginning of
 * the softirq that delivered it, as the receive can take a datagram before its
 * sk_data_ready (queued_from(); taken as not arrived, every later receive of a
 * two-client server was given the datagram before its own).  NULL in *out when
 * the trace has no UDP arrival; -ENOMEM.
 */
static int datagram_senders(const struct rsp_trace *t, struct dgram **out)
{
	struct dgram *from = NULL;
	struct sock_calls arr = { NULL, NULL };
	uint32_t *start, *list, *next = NULL;
	size_t n = 0;
	int ret = -ENOMEM;

	*out = NULL;
	for (size_t i = 0; i < t->nets.n; i++)
		n += t->nets.v[i].from_sock != RSP_NONE;
	if (!n)
		return 0;
	/* the arrivals on each socket, in time order */
	if (by_socket(t, true, NULL, 0, &arr))
		return -ENOMEM;
	start = arr.start;
	list = arr.list;
	next = malloc((t->socks.n + 1) * sizeof(*next));
	from = malloc(t->sockops.n * sizeof(*from));
	if (!next || !from)
		goto out;
	memcpy(next, start, t->socks.n * sizeof(*next)); /* each socket's next arrival */
	for (size_t i = 0, hint = 0; i < t->sockops.n; i++) {
		const struct sock_op *op = &t->sockops.v[i];
		uint32_t s = op->sock;
		uint64_t queued;

		from[i] = (struct dgram){ RSP_NONE, 0 };
		if (op->send || s >= t->socks.n || t->socks.v[s].protocol != 17 /* UDP */ ||
		    next[s] == start[s + 1] ||
		    (queued = queued_from(t, list[next[s]], &hint)) > op->time)
			continue;
		from[i].from = t->nets.v[list[next[s]]].from_sock;
		/* sent before it was queued: inside the sender's send, which
		 * its softirq interrupted */
		from[i].ready = net_sent(&t->nets.v[list[next[s]++]]);
		if (queued < from[i].ready)
			from[i].ready = queued;
	}
	*out = from;
	from = NULL;
	ret = 0;
out:
	free(from);
	free(next);
	free(arr.start);
	free(arr.list);
	return ret;
}

/*
 * Served connections whose client is itself selected (a program that forked
 * its own server, both in the selection: rsp record -- of a script starting a
 * server and its client): the selection's own traffic, not requests it
 * serves.  The client is the sender of most of the data arriving on the
 * connection's socket whose sender is known.  Such a connection becomes
 * RSP_CONN_INTERNAL and its requests are dropped (they were split with the
 * others, so the roles of the other connections stay as they were).
 */
static int internal_conns(struct rsp_requests *r, const struct rsp_trace *t,
			  const uint8_t *selected)
{
	int64_t *score = calloc(t->socks.n ? t->socks.n : 1, sizeof(*score));
	size_t o = 0;

	if (!score)
		return -ENOMEM;
	for (size_t i = 0; i < t->nets.n; i++) {
		const struct net_op *a = &t->nets.v[i];

		if (a->sender < t->threads.n && a->sock < t->socks.n)
			score[a->sock] += selected[a->sender] ? 1 : -1;
	}
	for (size_t ci = 0; ci < r->conns.n; ci++) {
		struct conn *c = &r->conns.v[ci];

		if (c->role != RSP_CONN_SERVED || score[c->sock] <= 0)
			continue;
		c->role = RSP_CONN_INTERNAL;
		c->info.role = RSP_CONN_INTERNAL;
		c->info.n_requests = c->info.cut_start = c->info.cut_end = 0;
	}
	for (size_t i = 0; i < r->reqs.n; i++)
		if (r->conns.v[r->reqs.v[i].pub.conn].role == RSP_CONN_SERVED)
			r->reqs.v[o++] = r->reqs.v[i];
	r->reqs.n = o;
	free(score);
	return 0;
}

int rsp_requests_find(struct rsp_trace *t, const uint8_t *selected, struct rsp_requests **out)
{
	struct rsp_requests *r = calloc(1, sizeof(*r));
	uint32_t *by_sock = malloc((t->socks.n ? t->socks.n : 1) * sizeof(*by_sock));
	/* per thread: connections with a request received, not yet answered */
	uint32_t *open = calloc(t->threads.n ? t->threads.n : 1, sizeof(*open));
	struct dgram *dgram_from = NULL; /* per socket call */
	int ret = -ENOMEM;

	*out = NULL;
	if (!r || !by_sock || !open || datagram_senders(t, &dgram_from))
		goto fail;
	for (size_t i = 0; i < t->socks.n; i++)
		by_sock[i] = RSP_NONE;
	for (size_t i = 0; i < t->sockops.n; i++) {
		const struct sock_op *op = &t->sockops.v[i];
		struct conn *c;
		uint32_t ci;

		if (op->thread >= t->threads.n || !selected[op->thread] || op->sock >= t->socks.n)
			continue;
		ci = conn_of(r, by_sock, op->sock);
		if (ci == RSP_NONE)
			goto fail;
		c = &r->conns.v[ci];
		if (!c->role) {
			/* a connection it opened, or its first call inside another
			 * connection's request: a client there */
			uint8_t opened = t->socks.v[op->sock].opened;

			c->role = opened == SOCK_CONNECTED		 ? RSP_CONN_CLIENT :
				  opened == SOCK_ACCEPTED		 ? RSP_CONN_SERVED :
				  op->send && open[op->thread] ? RSP_CONN_CLIENT :
								 RSP_CONN_SERVED;
			c->info.role = c->role;
			if (c->role == RSP_CONN_SERVED && op->send) {
				c->phase = PH_CUT_REPLY;
				c->info.cut_start = 1;
			}
		}
		if (c->role != RSP_CONN_SERVED)
			continue;
		if (!op->send) {
			switch (c->phase) {
			case PH_REPLYING:
				if (!emit(t, r, c, ci))
					goto fail;
				/* fall through */
			case PH_IDLE:
			case PH_CUT_REPLY:
				begin(c, op, i, dgram_from ? &dgram_from[i] : NULL);
				open[op->thread]++;
				break;
			case PH_RECEIVED:
				c->n_recv++;
				c->in += (uint64_t)op->len;
				break;
			}
			continue;
		}
		switch (c->phase) {
		case PH_RECEIVED:
			if (open[c->thread])
				open[c->thread]--;
			c->phase = PH_REPLYING;
			c->reply_thread = op->thread;
			/* fall through */
		case PH_REPLYING:
			c->last_send_op = i;
			c->n_send++;
			c->out += op->len > 0 ? (uint64_t)op->len : 0;
			c->handed |= op->thread != c->thread;
			break;
		case PH_IDLE: /* not reached: a first send makes it PH_CUT_REPLY */
		case PH_CUT_REPLY:
			break;
		}
	}
	for (size_t ci = 0; ci < r->conns.n; ci++) {
		struct conn *c = &r->conns.v[ci];

		if (c->role != RSP_CONN_SERVED)
			continue;
		if (c->phase == PH_REPLYING && !emit(t, r, c, (uint32_t)ci))
			goto fail;
		if (c->phase == PH_RECEIVED)
			c->info.cut_end++;
	}
	if (internal_conns(r, t, selected))
		goto fail;
	if (r->reqs.n)
		qsort(r->reqs.v, r->reqs.n, sizeof(*r->reqs.v), cmp_req);
	mark_overlaps(r, t->threads.n);
	for (size_t i = 0; i < r->reqs.n; i++)
		if (!vec_push(&r->lat, r->reqs.v[i].pub.end_ns - r->reqs.v[i].pub.start_ns))
			goto fail;
	if (r->lat.n)
		qsort(r->lat.v, r->lat.n, sizeof(*r->lat.v), cmp_u64);
	ret = idle_times(r, t, selected);
	if (ret)
		goto fail;
	free(by_sock);
	free(open);
	free(dgram_from);
	*out = r;
	return 0;
fail:
	free(by_sock);
	free(open);
	free(dgram_from);
	rsp_requests_free(r);
	return ret;
}

/* A TCP socket that listens (its address known, no remote port): a wakeup on it is a
 * connection to accept. */
static bool listening(const struct rsp_trace *t, uint32_t sock)
{
	struct rsp_socket_info si;

	rsp_trace_socket(t, sock, &si);
	return si.listening && si.protocol != 17;
}

uint8_t *rsp_requests_known_servers(const struct rsp_trace *t)
{
	size_t nt = t->threads.n;
	uint8_t *out = calloc(nt ? nt : 1, 1);
	struct _rsp_u64map pids = { 0 };
	uint32_t v;

	if (!out)
		goto fail;
	for (size_t i = 0; i < t->links.n; i++) {
		const struct link *l = &t->links.v[i];

		if (l->kind == LINK_NET && l->extra < t->nets.n && l->wakee < nt &&
		    t->nets.v[l->extra].sock < t->socks.n && listening(t, t->nets.v[l->extra].sock) &&
		    _rsp_u64map_put(&pids, t->threads.v[l->wakee].pid, 1))
			goto fail;
	}
	for (size_t i = 0; i < t->sockops.n; i++) {
		const struct sock_op *op = &t->sockops.v[i];
		const struct sock_info *si;

		if (op->sock >= t->socks.n || op->thread >= nt)
			continue;
		si = &t->socks.v[op->sock];
		if ((si->opened == SOCK_ACCEPTED ||
		     (si->peer < t->socks.n && t->socks.v[si->peer].opened == SOCK_CONNECTED)) &&
		    _rsp_u64map_put(&pids, t->threads.v[op->thread].pid, 1))
			goto fail;
	}
	for (size_t i = 0; i < nt; i++)
		out[i] = _rsp_u64map_get(&pids, t->threads.v[i].pid, &v);
	_rsp_u64map_free(&pids);
	return out;
fail:
	free(out);
	_rsp_u64map_free(&pids);
	return NULL;
}

void rsp_requests_free(struct rsp_requests *r)
{
	if (!r)
		return;
	vec_free(&r->reqs);
	vec_free(&r->conns);
	vec_free(&r->lat);
	vec_free(&r->client_lat);
	free(r);
}

size_t rsp_requests_n(const struct rsp_requests *r)
{
	return r->reqs.n;
}

void rsp_requests_get(const struct rsp_requests *r, size_t i, struct rsp_request_info *out)
{
	*out = r->reqs.v[i].pub;
}

size_t rsp_requests_n_conns(const struct rsp_requests *r)
{
	return r->conns.n;
}

void rsp_requests_conn(const struct rsp_requests *r, size_t i, struct rsp_conn_info *out)
{
	*out = r->conns.v[i].info;
}

void rsp_requests_time(const struct rsp_requests *r, struct rsp_requests_time *out)
{
	*out = r->time;
}

/* Nearest rank, as the test workloads measure themselves (tests/workloads/truth.h). */
static uint64_t percentile(const uint64_t *v, size_t n, unsigned pct)
{
	size_t rank = (n * pct + 99) / 100;

	return v[rank ? rank - 1 : 0];
}

/* The distribution of @n sorted latencies. */
static void stats_of(const uint64_t *v, size_t n, struct rsp_requests_stats *out)
{
	memset(out, 0, sizeof(*out));
	out->count = n;
	if (!n)
		return;
	for (size_t i = 0; i < n; i++)
		out->sum_ns += v[i];
	out->min_ns = v[0];
	out->max_ns = v[n - 1];
	out->p50_ns = percentile(v, n, 50);
	out->p90_ns = percentile(v, n, 90);
	out->p99_ns = percentile(v, n, 99);
}

void rsp_requests_stats(const struct rsp_requests *r, struct rsp_requests_stats *out)
{
	stats_of(r->lat.v, r->lat.n, out);
}

/* The latest arrival of data on socket @s (its arrivals in @arr) at or before
 * @time and after @after, NULL if none. */
static const struct net_op *arrival_before(const struct rsp_trace *t, const struct sock_calls *arr,
					   uint32_t s, uint64_t after, uint64_t time)
{
	size_t lo = arr->start[s], hi = arr->start[s + 1];

	/* the first arrival after @time */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->nets.v[arr->list[mid]].ready_time <= time)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == arr->start[s] || t->nets.v[arr->list[lo - 1]].ready_time <= after)
		return NULL;
	return &t->nets.v[arr->list[lo - 1]];
}

/*
 * On client socket @p (its calls @c), the exchange whose sends end at or after
 * @arrived, not before call @min (in the socket's list): its sends, then its
 * receives until the next send.  The indices in the socket's list of its first
 * send and its last receive; false if there is none or it has no receive.
 */
static bool exchange_at(const struct rsp_trace *t, const struct sock_calls *c, uint32_t p,
			uint64_t arrived, size_t min, size_t *first, size_t *last)
{
	size_t lo = c->start[p], hi = c->start[p + 1], end = hi;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->sockops.v[c->list[mid]].time < arrived)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo < end && !t->sockops.v[c->list[lo]].send)
		lo++;
	if (lo == end)
		return false;
	while (lo > c->start[p] && t->sockops.v[c->list[lo - 1]].send)
		lo--;
	if (lo < min)
		return false;
	*first = lo;
	while (lo < end && t->sockops.v[c->list[lo]].send)
		lo++;
	if (lo == end)
		return false;
	while (lo + 1 < end && !t->sockops.v[c->list[lo + 1]].send)
		lo++;
	*last = lo;
	return true;
}

/*
 * A TCP connection set up inside the recording has both its byte streams
 * whole in the trace: each call's offset in its direction (the bytes the
 * socket sent, or received, before it), per entry of @c's lists, in *@out.
 * Per socket, whether its calls' lengths are all known (a kprobe stand-in's
 * send has none) in @lens_ok.
 */
static int stream_offsets(const struct rsp_trace *t, const struct sock_calls *c, uint64_t **out,
			  uint8_t *lens_ok)
{
	size_t n = c->start[t->socks.n];
	uint64_t *off = malloc((n ? n : 1) * sizeof(*off));

	*out = off;
	if (!off)
		return -ENOMEM;
	for (size_t s = 0; s < t->socks.n; s++) {
		uint64_t sent = 0, got = 0;

		lens_ok[s] = 1;
		for (size_t j = c->start[s]; j < c->start[s + 1]; j++) {
			const struct sock_op *op = &t->sockops.v[c->list[j]];
			uint64_t len = op->len > 0 ? (uint64_t)op->len : 0;

			if (op->send && op->len <= 0)
				lens_ok[s] = 0;
			off[j] = op->send ? sent : got;
			*(op->send ? &sent : &got) += len;
		}
	}
	return 0;
}

/* In socket @s's calls from *@cur on, the first send (@send) or receive whose
 * bytes reach past offset @at (@end: reach @at); its index in the lists, and
 * *@cur moved there; SIZE_MAX if none. */
static size_t call_at_offset(const struct rsp_trace *t, const struct sock_calls *c,
			     const uint64_t *off, uint32_t s, size_t *cur, bool send, uint64_t at,
			     bool end)
{
	for (size_t j = *cur > c->start[s] ? *cur : c->start[s]; j < c->start[s + 1]; j++) {
		const struct sock_op *op = &t->sockops.v[c->list[j]];
		uint64_t len = op->len > 0 ? (uint64_t)op->len : 0;

		if (op->send != send)
			continue;
		if (end ? off[j] + len >= at : off[j] + len > at) {
			*cur = j;
			return j;
		}
	}
	return SIZE_MAX;
}

/* The index of sockops entry @op in socket @s's list (sorted), SIZE_MAX. */
static size_t call_index(const struct sock_calls *c, uint32_t s, size_t op)
{
	size_t lo = c->start[s], hi = c->start[s + 1];

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->list[mid] < op)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->start[s + 1] && c->list[lo] == op ? lo : SIZE_MAX;
}

/*
 * Request @q on connection socket @s with peer @p, both set up inside the
 * recording: the client's send holding the request's first byte and its
 * receive completing the reply, by the streams' byte offsets (exact, also
 * when the client sent several requests before reading the replies).  False
 * if either is not in the trace.
 */
static bool match_by_bytes(const struct rsp_trace *t, const struct sock_calls *c, const uint64_t *off,
			   const struct req *q, uint32_t s, uint32_t p, size_t *send_cur,
			   size_t *recv_cur, size_t *first, size_t *last)
{
	size_t a = call_index(c, s, q->first_op), b = call_index(c, s, q->last_op);
	const struct sock_op *rop;

	if (a == SIZE_MAX || b == SIZE_MAX)
		return false;
	rop = &t->sockops.v[q->last_op];
	*first = call_at_offset(t, c, off, p, &send_cur[p], true, off[a], false);
	*last = call_at_offset(t, c, off, p, &recv_cur[p], false,
			       off[b] + (uint64_t)(rop->len > 0 ? rop->len : 0), true);
	return *first != SIZE_MAX && *last != SIZE_MAX;
}

/* The first user frame of @stack (its user IP), 0 if none. */
static uint64_t user_leaf(struct rsp_trace *t, uint32_t stack, int pid, uint64_t time)
{
	size_t n = stack ? rsp_stack_n_frames(t, stack) : 0;

	for (size_t i = 0; i < n; i++) {
		struct rsp_frame_info f;

		rsp_stack_frame(t, stack, i, pid, time, &f);
		if (!f.kernel)
			return f.addr;
	}
	return 0;
}

/*
 * When the client's receive at @time, by @thread, returned to it: a thread
 * that slept in the call (the run holding the receive began by waking from a
 * sleep) and is preempted before the call returns (switched out runnable at
 * the same user address, the syscall's) waits until it runs again, and the
 * client's own clock counts that wait (the recorder's threads, preempting it
 * on a busy machine, have stretched a reply by 0.74 ms).  A preemption once it
 * is back in user space (another address) is not the call's, nor one after its
 * next call on the socket, at @before (the next request's send, from the same
 * call site: at the same address, read once as the reply's return, 58 us past
 * the client's own clock).
 */
static uint64_t client_returned(struct rsp_trace *t, uint32_t thread, uint64_t time, uint64_t before)
{
	size_t i = rsp_thread_find_slice(t, thread, time), n = rsp_thread_n_slices(t, thread);
	struct rsp_thread_info th;
	struct rsp_slice_info s, next;
	uint64_t end = time, ip;

	if (i == RSP_NO_INDEX || i == 0 || i + 1 >= n)
		return time;
	rsp_thread_slice(t, thread, i, &s);
	rsp_thread_slice(t, thread, i + 1, &next);
	/* most replies return at once: no stack read for them */
	if (s.kind != RSP_SLICE_RUN || next.kind != RSP_SLICE_SLEEP ||
	    next.state != RSP_SLEEP_PREEMPTED || next.start_ns > before)
		return time;
	rsp_thread_slice(t, thread, i - 1, &s);
	rsp_trace_thread(t, thread, &th);
	if (s.kind != RSP_SLICE_SLEEP || !(ip = user_leaf(t, s.stack, th.pid, s.start_ns)))
		return time;
	for (i++; i < n; i += 2) {
		rsp_thread_slice(t, thread, i, &s);
		if (s.kind != RSP_SLICE_SLEEP || s.state != RSP_SLEEP_PREEMPTED || s.start_ns > before ||
		    (s.flags & RSP_SLICE_OPEN_END) || user_leaf(t, s.stack, th.pid, s.start_ns) != ip)
			break;
		end = s.end_ns;
	}
	return end;
}

int rsp_requests_clients(struct rsp_requests *r, struct rsp_trace *t, struct rsp_requests_stats *out)
{
	uint8_t *want = NULL; /* 1: a client's socket (its calls), 2: a served TCP socket (arrivals) */
	uint64_t *prev_start = NULL;
	size_t *used = NULL; /* per client socket: one past the last exchange matched */
	size_t *send_cur = NULL, *recv_cur = NULL; /* per client socket: match_by_bytes()'s */
	uint64_t *off = NULL;
	uint8_t *lens_ok = NULL;
	struct sock_calls calls = { NULL, NULL }, arr = { NULL, NULL };
	int ret = -ENOMEM;

	if (r->clients_done)
		goto done;
	want = calloc(t->socks.n + 1, 1);
	used = calloc(t->socks.n + 1, sizeof(*used));
	send_cur = calloc(t->socks.n + 1, sizeof(*send_cur));
	recv_cur = calloc(t->socks.n + 1, sizeof(*recv_cur));
	lens_ok = calloc(t->socks.n + 1, 1);
	prev_start = calloc(r->conns.n + 1, sizeof(*prev_start));
	if (!want || !used || !send_cur || !recv_cur || !lens_ok || !prev_start)
		goto out;
	for (size_t i = 0; i < r->reqs.n; i++) {
		const struct req *q = &r->reqs.v[i];
		uint32_t s = r->conns.v[q->pub.conn].sock;

		if (q->pub.from_socket != RSP_NO_INDEX) {
			want[q->pub.from_socket] |= 1;
		} else if (t->socks.v[s].protocol != 17 /* UDP */ && t->socks.v[s].peer != RSP_NONE) {
			want[t->socks.v[s].peer] |= 1;
			want[s] |= 2;
		}
	}
	/* the arrivals on the served sockets; the calls of both ends (the served
	 * ones' for their byte offsets) */
	if (by_socket(t, true, want, 2, &arr) || by_socket(t, false, want, 3, &calls) ||
	    stream_offsets(t, &calls, &off, lens_ok))
		goto out;
	/* in the order they began: each connection's requests in turn */
	for (size_t i = 0; i < r->reqs.n; i++) {
		struct req *q = &r->reqs.v[i];
		uint32_t s = r->conns.v[q->pub.conn].sock, p;
		uint64_t arrived = q->arrived, ready = 0;
		uint32_t sender = RSP_NONE;
		size_t first, last;
		const struct sock_op *op, *end;
		bool bytes;

		if (q->pub.from_socket != RSP_NO_INDEX) {
			p = (uint32_t)q->pub.from_socket;
		} else if (t->socks.v[s].protocol != 17 && t->socks.v[s].peer != RSP_NONE) {
			const struct net_op *a = arrival_before(t, &arr, s, prev_start[q->pub.conn],
								t->sockops.v[q->first_op].time);

			p = t->socks.v[s].peer;
			arrived = a ? net_sent(a) : 0;
			ready = a ? a->ready_time : 0;
			sender = a ? a->sender : RSP_NONE;
		} else {
			continue;
		}
		prev_start[q->pub.conn] = q->pub.start_ns;
		/* both streams whole in the trace: by bytes; else by time */
		bytes = t->socks.v[s].protocol == 6 && t->socks.v[s].opened && t->socks.v[p].opened &&
			lens_ok[s] && lens_ok[p] && !t->lost.n;
		if (bytes) {
			if (!match_by_bytes(t, &calls, off, q, s, p, send_cur, recv_cur, &first, &last))
				continue;
			if (!arrived)
				arrived = t->sockops.v[calls.list[first]].time;
		} else if (!arrived ||
			   (!exchange_at(t, &calls, p, arrived, used[p], &first, &last) &&
			    /* the sender's send named for data that waited in the
			     * server's backlog can be its previous one (already
			     * delivered, its exchange taken): by the arrival then */
			    (ready <= arrived ||
			     !exchange_at(t, &calls, p, arrived = ready, used[p], &first, &last)))) {
			continue;
		}
		op = &t->sockops.v[calls.list[first]];
		end = &t->sockops.v[calls.list[last]];
		/* the reply cannot come back before the request was received; the
		 * request's data was sent by the exchange's thread, when the trace
		 * names its sender (a unix datagram socket's learned peer is one of
		 * its senders: another's requests are not this peer's) */
		if (end->time <= q->pub.start_ns || (sender != RSP_NONE && sender != op->thread))
			continue;
		/* nor can the client have sent the request after it received something
		 * once the server had it: an exchange that follows such a receive is
		 * the next request's, and taking it would shift every later request by
		 * one (seen once over a veth pair, by time).  Its send may well end
		 * after the server's reply: a client preempted inside the send, after
		 * the data went (0.4 ms under load in a CI run) */
		if (!bytes && first > calls.start[p] &&
		    !t->sockops.v[calls.list[first - 1]].send &&
		    t->sockops.v[calls.list[first - 1]].time >= q->pub.start_ns)
			continue;
		used[p] = last + 1;
		q->pub.client_thread = end->thread;
		q->pub.client_start_ns = op->time < arrived ? op->time : arrived;
		q->pub.client_end_ns = client_returned(t, end->thread, end->time,
						       last + 1 < calls.start[p + 1] ?
						       t->sockops.v[calls.list[last + 1]].time : UINT64_MAX);
		if (!vec_push(&r->client_lat, q->pub.client_end_ns - q->pub.client_start_ns))
			goto out;
	}
	if (r->client_lat.n)
		qsort(r->client_lat.v, r->client_lat.n, sizeof(*r->client_lat.v), cmp_u64);
	r->clients_done = true;
done:
	stats_of(r->client_lat.v, r->client_lat.n, out);
	ret = 0;
out:
	if (ret)
		vec_free(&r->client_lat);
	free(want);
	free(arr.start);
	free(arr.list);
	free(used);
	free(send_cur);
	free(recv_cur);
	free(lens_ok);
	free(off);
	free(prev_start);
	free(calls.start);
	free(calls.list);
	return ret;
}
