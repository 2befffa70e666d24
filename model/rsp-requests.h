/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A server's requests: the target's time split at its socket calls into
 * requests, from the receive of a request on a connection to the send of its
 * reply on the same connection, and idle time between them.  For
 * `rsp report --requests` and the viewer's list of requests; each request's
 * window is explained by rsp_analyze() with rsp_analysis_opts.windows.
 * See docs/ANALYSIS.md, "Requests".
 */
#ifndef RSP_REQUESTS_H
#define RSP_REQUESTS_H

#include "rsp-model.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rsp_requests;

/*
 * Split the socket calls of the threads @selected (rsp_thread_filter_apply())
 * into requests.  -ENOMEM, or 0 and *out (also when there is no request: the
 * counts then say why).
 */
int rsp_requests_find(struct rsp_trace *t, const uint8_t *selected, struct rsp_requests **out);
void rsp_requests_free(struct rsp_requests *r);

/* a request's window holds part of another request of the same thread (several
 * connections served at once): its time is not its own alone */
#define RSP_REQ_OVERLAP 0x01
/* its reply was sent by another thread than the one that received it */
#define RSP_REQ_HANDED_OFF 0x02
/* received in several reads before the reply (a large or slow request, or
 * pipelined requests that cannot be told apart) */
#define RSP_REQ_MULTI_READ 0x04

struct rsp_request_info {
	size_t conn; /* rsp_requests_conn() */
	size_t thread; /* the thread that received it */
	size_t reply_thread; /* the one that began its reply (its first send) */
	uint64_t start_ns; /* its first receive returned */
	uint64_t end_ns; /* its reply's last send returned */
	uint32_t n_recv, n_send;
	uint64_t bytes_in, bytes_out;
	unsigned flags;
	/* a UDP request: the socket its first datagram was sent from (a peer on this
	 * machine, matched in the order the socket received them), else RSP_NO_INDEX */
	size_t from_socket;
	/*
	 * As its client saw it, when the client's socket is on this machine and
	 * rsp_requests_clients() found the client's exchange (its sends of the
	 * request, then its receives of the reply): from the client's send (its
	 * end, or the request's arrival at the server when that came first,
	 * inside the client's send) to the end of its last receive of the reply
	 * (or, preempted before that call returned to it, to when it ran again).
	 * client_thread RSP_NO_INDEX and both times 0 when not known.
	 */
	size_t client_thread;
	uint64_t client_start_ns, client_end_ns;
};
/* Requests in the order they began. */
size_t rsp_requests_n(const struct rsp_requests *r);
void rsp_requests_get(const struct rsp_requests *r, size_t i, struct rsp_request_info *out);

enum rsp_conn_role {
	RSP_CONN_SERVED = 1, /* the target receives requests and replies */
	RSP_CONN_CLIENT, /* the target sent first inside a request of another connection:
			  * it is a client there (a back end, a database); not split */
	RSP_CONN_INTERNAL, /* served, but its client is a selected thread too (a program
			    * and the server it forked): the selection's own traffic, no
			    * request of it counted */
};

struct rsp_conn_info {
	size_t socket; /* rsp_trace_socket() */
	enum rsp_conn_role role;
	size_t n_requests;
	uint32_t cut_start; /* a reply whose request came before the recording */
	uint32_t cut_end; /* a request received whose reply came after it (or never) */
};
size_t rsp_requests_n_conns(const struct rsp_requests *r);
void rsp_requests_conn(const struct rsp_requests *r, size_t i, struct rsp_conn_info *out);

/*
 * The target's time besides its requests, per selected thread that has a
 * slice: its span (first to last slice), the part inside requests (their
 * union), and the rest, idle: sleeping (waiting for the next request), running
 * (the loop's own work between requests) and waiting for a CPU or unknown.
 */
struct rsp_requests_time {
	uint64_t span_ns;
	uint64_t busy_ns; /* inside at least one request */
	uint64_t idle_sleep_ns, idle_run_ns, idle_other_ns;
};
/* Summed over the selected threads. */
void rsp_requests_time(const struct rsp_requests *r, struct rsp_requests_time *out);

/* The latency distribution of the requests (nearest-rank percentiles). */
struct rsp_requests_stats {
	size_t count;
	uint64_t sum_ns, min_ns, p50_ns, p90_ns, p99_ns, max_ns;
};
void rsp_requests_stats(const struct rsp_requests *r, struct rsp_requests_stats *out);

/*
 * Each request as its client saw it (rsp_request_info.client_*), where the
 * client's socket is on this machine: its peer (a connection set up inside the
 * recording), or for UDP the socket the request's datagram came from.  A
 * request is matched to the client's exchange on that socket whose sends
 * ended at or after the request's data arrived at the server, each exchange
 * to one request at most (a client that sends its next request before the
 * previous reply, pipelining, is not matched).  The distribution of the
 * matched requests' client-side latencies in @out (count 0: none).  -ENOMEM
 * or 0; a second call only gives the stats.
 */
int rsp_requests_clients(struct rsp_requests *r, struct rsp_trace *t, struct rsp_requests_stats *out);

/*
 * Per thread (rsp_trace_n_threads() bytes): 1 where the recording shows the
 * thread's process serving: woken on a listening socket, or calling on a
 * connection seen accepted, or on one whose peer on this machine was seen
 * connecting.  The roles above take a connection the recording did not see set
 * up for a served one when the process receives on it first (or answers first,
 * a request from before the recording), as a client's connection made before
 * the recording, or a UDP client's, looks too: only this evidence tells them
 * apart.  malloc'ed; NULL on ENOMEM.
 */
uint8_t *rsp_requests_known_servers(const struct rsp_trace *t);

#endif /* RSP_REQUESTS_H */
