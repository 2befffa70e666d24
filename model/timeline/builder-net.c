/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The network in the timeline: sockets with their addresses (two sockets
 * with mirrored 4-tuples are peers), sends, and data arrivals with their
 * sender; an arrival is kept per CPU as the cause of a wakeup that follows
 * in the same context.
 *
 * UDP has no connection: no state change names a socket's peer, and one socket
 * can serve every peer.  A datagram sent over loopback is delivered by the
 * receive softirq run on the sender's CPU inside its sendmsg, before its
 * sock_send_length: a UDP socket's data arriving in a task's context is that
 * task's datagram when the task's next socket call is a UDP send, within
 * DGRAM_SEND_WINDOW_NS (a remote datagram's softirq interrupting a task that
 * then sends one is not told apart inside that window).  The link is per
 * datagram, not per socket: no peer is set; the datagram keeps the socket it
 * was sent from (which peer sent each of a server's requests: requests.c).
 *
 * A TCP connection set up before the recording has no state change to name its
 * peer.  Over loopback its data is delivered the same way, inside the sender's
 * sendmsg: an arrival on such a socket in a task's context whose next socket
 * call is a TCP send (within the same window) is a sighting of "the socket
 * sent on delivered to this one".  Seen both ways (A's send arriving on B and
 * B's on A: a remote segment's softirq interrupting a task that then sends is
 * not answered the other way), the two sockets are peers from then on, and
 * that arrival's sender is the task.
 */
#include "base/htab.h"
#include "timeline/builder-private.h"

#include <stdlib.h>
#include <string.h>

#define AF_UNIX_ 1
#define IPPROTO_TCP_ 6
#define IPPROTO_UDP_ 17
/* from a datagram's delivery in the sender's context to its sock_send_length:
 * microseconds, unless the receiver it woke preempts the sender first */
#define DGRAM_SEND_WINDOW_NS 1000000u
/* from an accepted connection's ESTABLISHED to its listener's data-ready, in
 * one softirq (or one backlog's processing): microseconds at most */
#define LISTENER_WINDOW_NS 100000u

/*
 * @ti's socket call at @t on @cpu, on @si: the end of a pending arrival's wait
 * for its send.  A UDP send: its datagram.  A TCP send on another socket
 * without a peer: a sighting of that socket delivering to the arrival's; the
 * second way round makes them peers.  Anything else: not its data.  The window
 * counts from the end of the softirq that delivered it (_rsp_net_softirq_done())
 * or, when the task was preempted since (the receiver it woke took its CPU
 * inside the send), from its last switch-in.
 */
static void pending_settle(struct builder *b, uint32_t ti, uint64_t t, uint32_t cpu, uint32_t si,
			   bool send)
{
	struct bthread *bt;
	struct net_op *op;
	struct sock_info *to, *from;
	uint64_t since;

	if (ti == RSP_NONE || ti >= b->bt.n || !b->bt.v[ti].pend_net)
		return;
	bt = &b->bt.v[ti];
	op = &b->t->nets.v[bt->pend_net - 1];
	bt->pend_net = 0;
	since = bt->pend_time;
	if (cpu < b->ncpus && b->cpus[cpu].cur == ti && b->cpus[cpu].since > since)
		since = b->cpus[cpu].since;
	if (!send || si == RSP_NONE || t < since || t - since > DGRAM_SEND_WINDOW_NS)
		return;
	to = &b->t->socks.v[op->sock];
	from = &b->t->socks.v[si];
	if (to->protocol == IPPROTO_UDP_ && from->protocol == IPPROTO_UDP_) {
		op->sender = ti;
		op->send_time = op->ready_time;
		op->from_sock = si;
	} else if (((to->protocol == IPPROTO_TCP_ && from->protocol == IPPROTO_TCP_) ||
		    (to->family == AF_UNIX_ && from->family == AF_UNIX_)) &&
		   si != op->sock && to->peer == RSP_NONE && from->peer == RSP_NONE) {
		from->sent_to = op->sock;
		if (to->sent_to != si)
			return;
		from->peer = op->sock;
		to->peer = si;
		op->sender = ti; /* unix: it was already */
		op->send_time = op->ready_time;
		/* this send's data has arrived, and the other's sends before the
		 * pairing did (each was a sighting): no later arrival is theirs */
		from->delivered_early = true;
		to->send_pending = false;
	}
}

/*
 * A softirq on @cpu ended at @t: a datagram (or a sighting's data) it delivered
 * in the interrupted task's context waits for that task's next socket call from
 * now.  The task's send cannot go on before the softirq returns to it, however
 * long that takes (a NET_RX softirq of 1.4 ms inside a client's sendmsg, the
 * host's time taken from a VM, lost a two-client UDP server's request its
 * sender when the window counted from the delivery: tests/record/truth.sh).
 */
void _rsp_net_softirq_done(struct builder *b, uint32_t cpu, uint64_t t)
{
	const struct cpu *cs = &b->cpus[cpu];
	struct bthread *bt;

	if (cs->cur >= b->bt.n)
		return;
	bt = &b->bt.v[cs->cur];
	if (bt->pend_net && bt->pend_time >= cs->softirq_since && bt->pend_time <= t)
		bt->pend_time = t;
}

/* The first slot of socket address @sk in a table of @mask + 1 slots. */
static size_t sock_slot(uint64_t sk, size_t mask)
{
	return (size_t)(sk * 0x9e3779b97f4a7c15ull >> 20) & mask;
}

/* A new socket at address @sk, with no peer or sender yet: its index, RSP_NONE. */
static uint32_t sock_push(struct builder *b, uint64_t sk, uint16_t family, uint16_t protocol)
{
	struct sock_info si;

	memset(&si, 0, sizeof(si));
	si.sk = sk;
	si.family = family;
	si.protocol = protocol;
	si.peer = RSP_NONE;
	si.sent_to = RSP_NONE;
	si.last_sender = RSP_NONE;
	if (!vec_push(&b->t->socks, si))
		return RSP_NONE;
	return (uint32_t)(b->t->socks.n - 1);
}

static uint32_t sock_get(struct builder *b, uint64_t sk, uint16_t family, uint16_t protocol)
{
	size_t m, j;
	uint32_t n;

	if (!b->sock_cap || (b->t->socks.n + 1) * 2 > b->sock_cap) {
		size_t cap = b->sock_cap ? b->sock_cap * 2 : 256;
		uint32_t *ht = calloc(cap, sizeof(*ht));

		if (!ht)
			return RSP_NONE;
		/* newest first: an address reused (sock_renew) finds its latest socket */
		for (size_t i = b->t->socks.n; i-- > 0;) {
			uint64_t a = b->t->socks.v[i].sk;

			for (j = sock_slot(a, cap - 1); ht[j] && b->t->socks.v[ht[j] - 1].sk != a;
			     j = (j + 1) & (cap - 1))
				;
			if (!ht[j])
				ht[j] = (uint32_t)i + 1;
		}
		free(b->sock_ht);
		b->sock_ht = ht;
		b->sock_cap = cap;
	}
	m = b->sock_cap - 1;
	for (j = sock_slot(sk, m); b->sock_ht[j]; j = (j + 1) & m) {
		struct sock_info *s = &b->t->socks.v[b->sock_ht[j] - 1];

		if (s->sk == sk) {
			if (!s->family && family)
				s->family = family;
			if (!s->protocol && protocol)
				s->protocol = protocol;
			return b->sock_ht[j] - 1;
		}
	}
	n = sock_push(b, sk, family, protocol);
	if (n != RSP_NONE)
		b->sock_ht[j] = n + 1;
	return n;
}

/*
 * Socket @si closed, and its address is in use again (a connect, an accept
 * or a listen after TCP_CLOSE): the kernel reused the memory for a new
 * socket.  A socket of its own from now on (a server accepting one connection
 * per request otherwise reads as serving them all on a few), the address
 * mapped to it.
 */
static uint32_t sock_renew(struct builder *b, uint32_t si)
{
	const struct sock_info *o = &b->t->socks.v[si];
	size_t m = b->sock_cap - 1, j;
	uint32_t n = sock_push(b, o->sk, o->family, o->protocol);

	if (n == RSP_NONE)
		return si; /* without memory: the old one goes on */
	for (j = sock_slot(b->t->socks.v[n].sk, m); b->sock_ht[j] != si + 1; j = (j + 1) & m)
		;
	b->sock_ht[j] = n + 1;
	return n;
}

/* A send or a receive that moved data, for the requests (timeline/requests.c). */
static void sock_op(struct builder *b, uint64_t t, uint32_t ti, uint32_t si, int32_t len,
		    bool send)
{
	struct sock_op op = { .time = t, .thread = ti, .sock = si, .len = len, .send = send };

	vec_push(&b->t->sockops, op); /* without memory: fewer requests, nothing worse */
}

void _rsp_on_sock_recv(struct builder *b, uint64_t t, uint32_t cpu, const struct rsp_dev *ev)
{
	uint32_t ti, si;

	if (!ev->tid || ev->ctx != RSP_CTX_TASK)
		return;
	ti = _rsp_builder_thread(b, ev->tid, 0, t);
	_rsp_builder_evidence(b, ti, cpu, t);
	/* errors (-EAGAIN) and end of file (0) moved no data */
	if (ti == RSP_NONE)
		return;
	pending_settle(b, ti, t, cpu, RSP_NONE, false);
	if (ev->u.sock.len <= 0)
		return;
	si = sock_get(b, ev->u.sock.sk, ev->u.sock.family, ev->u.sock.protocol);
	if (si != RSP_NONE)
		sock_op(b, t, ti, si, ev->u.sock.len, false);
}

/* @tid, interrupted by a softirq, is a task that can be sending: not the
 * softirq daemon running deferred network work */
static bool in_senders_context(struct builder *b, uint32_t tid, uint64_t t)
{
	uint32_t ti = _rsp_builder_thread(b, tid, 0, t);
	const char *comm;

	if (ti == RSP_NONE)
		return false;
	comm = trace_str(b->t, TH(b, ti)->comm);
	return !comm || strncmp(comm, "ksoftirqd/", 10);
}

/* Thread @ti runs now on another CPU than @cpu. */
static bool running(struct builder *b, uint32_t ti, uint32_t cpu)
{
	return ti != RSP_NONE && ti < b->t->threads.n && TH(b, ti)->st == TS_RUNNING &&
	       TH(b, ti)->cpu != cpu;
}

/* An arrival on socket @si at @t, from nobody known yet. */
static struct net_op net_op_at(uint64_t t, uint32_t si)
{
	struct net_op op;

	memset(&op, 0, sizeof(op));
	op.ready_time = t;
	op.sock = si;
	op.sender = RSP_NONE;
	op.woke = RSP_NONE;
	op.from_sock = RSP_NONE;
	return op;
}

/* An arrival, the cause of a wakeup that follows in its context on @cpu; false
 * if it could not be kept (no memory). */
static bool arrived(struct builder *b, uint64_t t, uint32_t cpu, const struct net_op *op,
		    uint8_t ctx)
{
	if (!vec_push(&b->t->nets, *op))
		return false;
	b->cpus[cpu].last_net = (uint32_t)(b->t->nets.n - 1);
	b->cpus[cpu].last_net_time = t;
	b->cpus[cpu].net_ctx = ctx;
	b->cpus[cpu].net_gen = b->cpus[cpu].gen;
	b->t->have_net = true;
	return true;
}

/*
 * The peer's FIN arrived on socket @si (it went to CLOSE_WAIT): no data, so
 * no sk_data_ready, but it wakes a reader waiting for the end of the stream
 * (an HTTP/1.0 client waiting for the server's close).  An arrival like
 * data's: sent by the task in whose context it came (loopback delivers it
 * inside the closer's close()), else by the peer's last sender if the peer
 * is on this machine, else from the network.
 */
static void peer_closed(struct builder *b, uint64_t t, uint32_t cpu, uint32_t si,
			const struct rsp_dev *ev)
{
	const struct sock_info *s = &b->t->socks.v[si];
	struct net_op op;

	op = net_op_at(t, si);
	if (ev->tid && (ev->ctx == RSP_CTX_TASK ||
			(ev->ctx == RSP_CTX_SOFTIRQ && in_senders_context(b, ev->tid, t)))) {
		op.sender = _rsp_builder_thread(b, ev->tid, 0, t);
		op.send_time = t;
	} else if (s->peer != RSP_NONE && b->t->socks.v[s->peer].last_sender != RSP_NONE) {
		op.sender = b->t->socks.v[s->peer].last_sender;
		op.send_time = b->t->socks.v[s->peer].last_send;
	}
	(void)arrived(b, t, cpu, &op, ev->ctx);
}

/* A tuple's key: from @fam, the ports and addresses (@alen bytes each), @sp/@sa first. */
static uint64_t tuple_key(uint16_t fam, uint16_t sp, uint16_t dp, const uint8_t *sa,
			  const uint8_t *da, size_t alen)
{
	uint64_t h = rsp_hash_bytes(RSP_HASH_SEED, &fam, sizeof(fam));

	h = rsp_hash_bytes(h, &sp, sizeof(sp));
	h = rsp_hash_bytes(h, &dp, sizeof(dp));
	h = rsp_hash_bytes(h, sa, alen);
	return rsp_hash_bytes(h, da, alen);
}

/* The bytes of an address of @s's family: IPv6's 16, else IPv4's 4. */
static size_t addr_len(const struct sock_info *s)
{
	return s->family == 10 /* AF_INET6 */ ? 16 : 4;
}

/* Socket @s's own tuple's key. */
static uint64_t sock_key(const struct sock_info *s)
{
	return tuple_key(s->family, s->sport, s->dport, s->saddr, s->daddr, addr_len(s));
}

/*
 * The table of tuples holds the tuple of every open socket with one
 * (s->in_peers): put when it gets one, taken out when it changes or the
 * socket closes.  Closed sockets' entries kept would be probed through by
 * every later lookup of their tuple: a busy client's ephemeral ports are
 * reused, each tuple by dozens of connections a minute.  A tuple with a
 * port 0 names no connection: a listener's, or a connecting socket's before
 * its port is chosen (inet_sock_set_state reports SYN_SENT first with sport
 * 0): not put.
 */
static void peer_put(struct builder *b, uint32_t si)
{
	struct sock_info *s = &b->t->socks.v[si];

	/* without memory: no peer found for it, nothing worse */
	if (s->sport && s->dport && !s->in_peers && !_rsp_u64multi_add(&b->peers, sock_key(s), si))
		s->in_peers = true;
}

/* Socket @si's entry out of the table, by its tuple as it was put. */
static void peer_del(struct builder *b, uint32_t si)
{
	struct sock_info *s = &b->t->socks.v[si];

	if (s->in_peers) {
		(void)_rsp_u64multi_del(&b->peers, sock_key(s), si);
		s->in_peers = false;
	}
}

/*
 * The peer of socket @si on this machine: the socket of the mirrored tuple, of
 * its family, open, with an address, the first made (as a scan of every socket
 * in order finds it), RSP_NONE; none for a tuple with a port 0 (peer_put()).
 */
static uint32_t peer_find(struct builder *b, uint32_t si)
{
	const struct sock_info *s = &b->t->socks.v[si];
	size_t alen = addr_len(s), it = 0;
	uint64_t key = tuple_key(s->family, s->dport, s->sport, s->daddr, s->saddr, alen);
	uint32_t best = RSP_NONE, i;

	if (!s->sport || !s->dport)
		return RSP_NONE;
	while (_rsp_u64multi_next(&b->peers, key, &it, &i)) {
		const struct sock_info *o = &b->t->socks.v[i];

		if (i != si && i < best && o->family == s->family && o->sport == s->dport &&
		    o->dport == s->sport && !memcmp(o->saddr, s->daddr, alen) &&
		    !memcmp(o->daddr, s->saddr, alen))
			best = i;
	}
	return best;
}

void _rsp_on_sock_state(struct builder *b, uint64_t t, uint32_t cpu, const struct rsp_dev *ev)
{
	uint32_t si = sock_get(b, ev->u.state.sk, ev->u.state.family, ev->u.state.protocol);
	struct sock_info *s;
	size_t alen;
	bool same_tuple;

	if (si == RSP_NONE)
		return;
	/* a new life begins with a connect, an accept or a listen, nothing else */
	if (b->t->socks.v[si].closed &&
	    (ev->u.state.newstate == 2 /* TCP_SYN_SENT */ ||
	     ev->u.state.newstate == 3 /* TCP_SYN_RECV */ ||
	     ev->u.state.newstate == 10 /* TCP_LISTEN */))
		si = sock_renew(b, si);
	s = &b->t->socks.v[si];
	alen = addr_len(s);
	same_tuple = s->have_addr && s->sport == ev->u.state.sport &&
		     s->dport == ev->u.state.dport && !memcmp(s->saddr, ev->u.state.saddr, alen) &&
		     !memcmp(s->daddr, ev->u.state.daddr, alen);
	if (ev->u.state.newstate == 7 || !same_tuple)
		peer_del(b, si);
	if (ev->u.state.newstate == 7)
		s->closed = true;
	s->sport = ev->u.state.sport;
	s->dport = ev->u.state.dport;
	memcpy(s->saddr, ev->u.state.saddr, alen);
	memcpy(s->daddr, ev->u.state.daddr, alen);
	s->have_addr = true;
	/* who opened the connection: this side connected, or a listener accepted it */
	if (ev->u.state.newstate == 2 /* TCP_SYN_SENT */)
		s->opened = SOCK_CONNECTED;
	else if (ev->u.state.newstate == 3 /* TCP_SYN_RECV */ && !s->opened)
		s->opened = SOCK_ACCEPTED;
	if (!s->closed)
		peer_put(b, si);
	/* the peer on this machine has the mirrored tuple */
	if (s->peer == RSP_NONE) {
		uint32_t i = peer_find(b, si);

		if (i != RSP_NONE) {
			s->peer = i;
			b->t->socks.v[i].peer = si;
		}
	}
	if (ev->u.state.newstate == 1 /* TCP_ESTABLISHED */ && s->opened == SOCK_ACCEPTED &&
	    cpu < b->ncpus) {
		b->cpus[cpu].accepted = si + 1;
		b->cpus[cpu].accepted_gen = b->cpus[cpu].gen;
		b->cpus[cpu].accepted_time = t;
	}
	if (ev->u.state.newstate == 8 /* TCP_CLOSE_WAIT */)
		peer_closed(b, t, cpu, si, ev);
}

/*
 * Data-ready on TCP socket @si, whose address is not known (it listened
 * before the trace), in the context where a connection it accepted became
 * established just before: @si is that connection's listener (the kernel
 * wakes a listener right after moving its new child to ESTABLISHED,
 * tcp_child_process()).  Its address: the child's local one, remote port 0
 * (as a LISTEN state change reports it).
 */
static void listener_learned(struct builder *b, uint64_t t, uint32_t cpu, uint32_t si)
{
	struct sock_info *s = &b->t->socks.v[si];
	struct cpu *cs;
	const struct sock_info *c;

	if (s->have_addr || s->protocol != IPPROTO_TCP_ || cpu >= b->ncpus)
		return;
	cs = &b->cpus[cpu];
	if (!cs->accepted || cs->accepted_gen != cs->gen || t < cs->accepted_time ||
	    t - cs->accepted_time > LISTENER_WINDOW_NS || cs->accepted - 1 == si)
		return;
	c = &b->t->socks.v[cs->accepted - 1];
	cs->accepted = 0;
	if (c->family != s->family)
		return;
	s->sport = c->sport;
	memcpy(s->saddr, c->saddr, sizeof(s->saddr));
	s->dport = 0;
	memset(s->daddr, 0, sizeof(s->daddr));
	s->have_addr = true;
}

void _rsp_on_sock_send(struct builder *b, uint64_t t, uint32_t cpu, const struct rsp_dev *ev)
{
	uint32_t si = sock_get(b, ev->u.sock.sk, ev->u.sock.family, ev->u.sock.protocol);
	uint32_t ti = ev->tid ? _rsp_builder_thread(b, ev->tid, 0, t) : RSP_NONE;

	_rsp_builder_evidence(b, ti, cpu, t);
	if (ev->ctx == RSP_CTX_TASK)
		pending_settle(b, ti, t, cpu, si, ev->u.sock.len >= 0);
	if (si == RSP_NONE)
		return;
	if (ti != RSP_NONE && ev->ctx == RSP_CTX_TASK && ev->u.sock.len >= 0)
		sock_op(b, t, ti, si, ev->u.sock.len, true);
	b->t->socks.v[si].last_send = t;
	/* loopback TCP delivers inside sendmsg, before this event */
	b->t->socks.v[si].send_pending = !b->t->socks.v[si].delivered_early;
	b->t->socks.v[si].delivered_early = false;
	b->t->socks.v[si].last_sender = ti;
}

void _rsp_on_sk_ready(struct builder *b, uint64_t t, uint32_t cpu, const struct rsp_dev *ev)
{
	uint32_t si = sock_get(b, ev->u.sock.sk, ev->u.sock.family, ev->u.sock.protocol);
	struct sock_info *s;
	struct net_op op;
	uint32_t pend = RSP_NONE;

	if (si == RSP_NONE)
		return;
	listener_learned(b, t, cpu, si);
	s = &b->t->socks.v[si];
	op = net_op_at(t, si);
	if (s->family == AF_UNIX_ && ev->ctx == RSP_CTX_TASK && ev->tid) {
		/* a unix socket's data is delivered by its sender's sendmsg, always:
		 * the sender even where the peer is known (a learned peer of a
		 * datagram socket is one of its senders) */
		op.sender = _rsp_builder_thread(b, ev->tid, 0, t);
		op.send_time = t;
		if (s->peer == RSP_NONE)
			pend = op.sender;
	} else if (s->peer != RSP_NONE && b->t->socks.v[s->peer].last_sender != RSP_NONE &&
	    b->t->socks.v[s->peer].send_pending && b->t->socks.v[s->peer].last_send <= t) {
		/* the peer's send, not yet delivered */
		op.sender = b->t->socks.v[s->peer].last_sender;
		op.send_time = b->t->socks.v[s->peer].last_send;
		b->t->socks.v[s->peer].send_pending = false;
	} else if (s->peer != RSP_NONE && ev->ctx == RSP_CTX_SOFTIRQ && ev->tid &&
		   in_senders_context(b, ev->tid, t)) {
		/*
		 * Loopback: the receive softirq runs on the sender's CPU inside its
		 * sendmsg, before sock_send_length fires (the peer's last send is
		 * then the previous message, already delivered, or none).
		 */
		op.sender = _rsp_builder_thread(b, ev->tid, 0, t);
		op.send_time = t;
		b->t->socks.v[s->peer].delivered_early = true;
	} else if (s->peer != RSP_NONE && s->protocol == IPPROTO_TCP_ && ev->ctx == RSP_CTX_TASK &&
		   running(b, b->t->socks.v[s->peer].last_sender, cpu)) {
		/*
		 * The receiver's backlog, taken as a thread of it released the
		 * socket (it held it, sending on it) while the peer's last
		 * sender runs on another CPU with its last send already
		 * delivered: the data is that of the send it is in, whose
		 * sock_send_length has not fired yet.  Naming its last send
		 * instead put every later request of a pool's connection one
		 * behind (its client's latency, one request longer).
		 */
		op.sender = b->t->socks.v[s->peer].last_sender;
		op.send_time = t;
		b->t->socks.v[s->peer].delivered_early = true;
	} else if (s->peer != RSP_NONE && b->t->socks.v[s->peer].last_sender != RSP_NONE &&
		   b->t->socks.v[s->peer].last_send <= t) {
		op.sender = b->t->socks.v[s->peer].last_sender;
		op.send_time = b->t->socks.v[s->peer].last_send;
	} else if (ev->ctx == RSP_CTX_TASK && ev->tid && s->protocol != IPPROTO_TCP_ &&
		   s->protocol != IPPROTO_UDP_) {
		/* delivered in the sender's own context (other local sockets).  Not
		 * TCP's or UDP's: in task context that is the receiver's own, taking
		 * its backlog as it releases its socket (data that came while it
		 * held it); their loopback deliveries are softirqs */
		op.sender = _rsp_builder_thread(b, ev->tid, 0, t);
		op.send_time = t;
	} else if ((s->protocol == IPPROTO_UDP_ ||
		    (s->protocol == IPPROTO_TCP_ && s->peer == RSP_NONE)) &&
		   ev->ctx == RSP_CTX_SOFTIRQ && ev->tid && in_senders_context(b, ev->tid, t)) {
		/* a datagram, or a connection's data from a peer not known yet,
		 * perhaps the interrupted task's: its next call tells */
		pend = _rsp_builder_thread(b, ev->tid, 0, t);
	}
	if (!arrived(b, t, cpu, &op, ev->ctx))
		return;
	if (s->protocol == IPPROTO_UDP_ && ev->ctx == RSP_CTX_SOFTIRQ && b->cpus[cpu].softirq >= 0 &&
	    b->cpus[cpu].softirq_since < t) {
		uint64_t early = t - b->cpus[cpu].softirq_since;
		struct net_early e = { (uint32_t)(b->t->nets.n - 1),
				       early > UINT32_MAX ? UINT32_MAX : (uint32_t)early };

		if (!vec_push(&b->t->net_early, e))
			return;
	}
	if (pend != RSP_NONE && pend < b->bt.n) {
		b->bt.v[pend].pend_net = (uint32_t)b->t->nets.n;
		b->bt.v[pend].pend_time = t;
	}
}

