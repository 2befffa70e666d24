/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * truthserve - a known-answer server daemon: one thread, one epoll event
 * loop, any number of TCP clients (like redis), CPU work and a synchronous
 * disk write per request, measured by the program itself (see truth.h and
 * README.md, "Ground truth side files"). Its client is truthclient.
 *
 * What it does:
 *   One process, one thread (comm "truthserve"). It listens on TCP
 *   127.0.0.1:<ephemeral port> and, once listening, publishes the port as
 *   "PORT\n" in PORTFILE (written to PORTFILE.tmp.<pid> and renamed, so a
 *   reader never sees a partial file). All sockets are non-blocking; the
 *   loop (serve_loop()) blocks only in epoll_wait(). Each request is 64
 *   bytes: a request number (uint64_t, host byte order), the client's
 *   CLOCK_MONOTONIC at its send (uint64_t) and 48 bytes of 0x5a. For each
 *   complete request (serve_request()):
 *     serve_parse()     ~30 µs of CPU, checks the request
 *     serve_compute()   ~200 µs of CPU, puts a check value derived from the
 *                       request number in the reply
 *     serve_persist()   pwrite 4 KiB at offset 0 of its data file, then
 *                       fdatasync()
 *     serve_reply()     send the 64-byte reply (the request number, the
 *                       check value, 'P' 'C' 'W' marks); if the socket
 *                       buffer is full, the rest is sent on EPOLLOUT and
 *                       that client is not read meanwhile
 *   One recv() per readiness event, so clients are served in turn. A client
 *   that closes (or resets) its connection is dropped; the server goes on.
 *   The data file is "$RSP_WL_DIR|$TMPDIR|/tmp/rsp-truthserve.<pid>.dat".
 *
 *   It runs until SIGTERM or SIGINT (blocked, and read from a signalfd in
 *   the epoll set, so no signal is lost between two epoll_wait()s), or
 *   until a client sends the stop request (request number UINT64_MAX:
 *   answered with the same 64 bytes, no work, not counted; then the server
 *   stops). It then closes every connection, removes its data file and
 *   PORTFILE, writes its side-file lines and exits 0. Fail-safe: alarm(120).
 *   SIGALRM and SIGHUP (killed by the signal) and a failed system call
 *   (exit 1) are failures: the data file and PORTFILE are removed and no
 *   side-file line is written. A client that is still connected when the
 *   server stops sees its connection closed.
 *
 *   With --udp it serves UDP instead: one socket bound to 127.0.0.1:<ephemeral
 *   port> (in the epoll set in place of the listener), one recvfrom() per
 *   readiness event, each request one 64-byte datagram (any other size is
 *   counted and ignored) and its reply one 64-byte sendto() to the sender's
 *   address (on EAGAIN, sent again on EPOLLOUT). The same work, the same
 *   side-file lines: "connections" counts the peers (address:port) that sent
 *   requests, "peer_port" is the sender's port. A lost datagram is not
 *   retried (loopback with one request in flight per client loses none).
 *
 *   usage: truthserve [--udp] PORTFILE
 *
 * Ground truth ($RSP_TRUTH set): lines at its exit, in this order:
 *   a stats line {"stats":"to_send", ...}: the requests' times from the
 *     recv() that completed the request to just before the send() that
 *     completed the reply (key "to_send_ns", the same keys as below): each
 *     request's service time less that send() (the reply's delivery, and
 *     any preemption on the way back from it, as by the client the reply
 *     woke);
 *   a stats line {"stats":"from_recv", ...}: the same requests from just
 *     before the recv() that completed the request began (key
 *     "from_recv_ns"): each request's service time and that recv() (a
 *     preemption on its way back, which the server's clock cannot see);
 *   a stats line {"stats":"service", ...}: the number of requests served
 *     and the distribution of their service time (CLOCK_MONOTONIC from the
 *     recv() that completed the request to the send() that completed the
 *     reply; the fdatasync() is inside): count, sum, mean, min, p50, p90,
 *     p99, max in ns (README.md, "Stats lines");
 *   per client port, a line {"stats":"queued","peer_port":P,"requests":N,
 *     "waited_ns":W,"queued_ns":Q}: W, from the client's send (its clock,
 *     in the request) to the server's read of the request; Q, the part of
 *     W the server spent serving other connections' requests;
 *   role "server" comm truthserve: functions serve_parse, serve_compute;
 *     waits fsync (each fdatasync()), idle (each epoll_wait(); count = the
 *     number of calls, including those that returned at once because work
 *     was already queued).
 *
 * Processes / threads: truthserve (one thread; the daemon).
 *
 * Functions that appear in stacks (built with frame pointers):
 *   serve_loop(), serve_accept(), serve_readable(), serve_request(),
 *   serve_parse(), serve_compute(), serve_persist(), serve_reply()
 *   CPU leaves: serve_parse, serve_compute. Sleeps: serve_loop() ->
 *   epoll_wait() (idle: waiting for clients); serve_persist() ->
 *   fdatasync() (disk).
 *
 * Expected explanation shape (target: a truthclient, the server running):
 *   Each of the client's requests is a sleep in recv() explained by the
 *   server: serve_parse() + serve_compute() (~0.23 ms of CPU) and the
 *   fdatasync() in serve_persist() (disk), then the reply. The server is
 *   idle in epoll_wait() between requests. With several clients their
 *   requests queue in the socket buffers: each client also waits for the
 *   server to finish the other clients' requests (service time excludes
 *   that queueing; a client's latency includes it).
 *   Measured on the reference machine (2 vCPU EPYC VM, ext4 on virtio;
 *   load average ~2-4 from other work; see README.md for the commands),
 *   one truthclient of 300 requests: see README.md, "truthserve".
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#define WL_NAME "truthserve"
#include "wl.h"
#include "truth.h"
#include "daemon.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#define BLOCK_SIZE 4096
#define PARSE_ITERS (30UL * WL_ITERS_PER_US)
#define COMPUTE_ITERS (200UL * WL_ITERS_PER_US)
#define MAX_EVENTS 64
#define FAILSAFE_S 120

static const char usage[] =
	"usage: truthserve [--udp] PORTFILE\n"
	"  Single-threaded epoll server on TCP 127.0.0.1:<ephemeral port>; the\n"
	"  port is written as \"PORT\\n\" to PORTFILE (atomically) once it\n"
	"  listens. Per 64-byte request: serve_parse (~30 us CPU),\n"
	"  serve_compute (~200 us CPU), serve_persist (pwrite 4 KiB +\n"
	"  fdatasync), 64-byte reply. Clients: truthclient.\n"
	"  --udp: one UDP socket on 127.0.0.1:<ephemeral port> instead, one\n"
	"  64-byte datagram per request and per reply (truthclient --udp).\n"
	"  Runs until SIGTERM/SIGINT or a stop request (request number\n"
	"  UINT64_MAX; truthclient --stop), then removes its data file and\n"
	"  PORTFILE and exits 0; gives up after 120 s (SIGALRM).\n"
	"  With RSP_TRUTH=FILE it appends a stats line (requests served,\n"
	"  service time distribution) and its truth line to FILE at exit.\n"
	"  The data file lives in $RSP_WL_DIR, else $TMPDIR, else /tmp.\n";

/* One client connection (epoll data.ptr). */
struct conn {
	int fd;
	int blocked;		/* reply not fully sent: EPOLLOUT, no reads */
	int stop_after;		/* the reply is to the stop request */
	size_t in_len;		/* bytes of the current request received */
	size_t out_len, out_off;
	uint64_t recv_done_ns;	/* CLOCK_MONOTONIC when the request was complete */
	uint64_t recv_begin_ns;	/* ... before the recv() that completed it began */
	uint64_t send_begin_ns;	/* ... before the reply's last send() began */
	uint64_t sent_ns;	/* the client's CLOCK_MONOTONIC at its send */
	unsigned port;		/* the client's port */
	int udp;		/* the UDP socket: one datagram a request */
	struct sockaddr_in peer; /* UDP: the current request's sender */
	struct conn *prev, *next;
	unsigned char in[MSG_SIZE + 1]; /* + 1: an oversized datagram is seen */
	unsigned char out[MSG_SIZE];
};

static struct conn *conns;	   /* all open connections */
static struct conn *udp_sock;	   /* --udp: the one socket, not in conns */
static uint64_t malformed;	   /* --udp: datagrams of another size, ignored */
static int stopping;
static uint64_t accepted;	   /* connections accepted */
static struct daemon_times service; /* one per request served */
static struct daemon_times to_send; /* the same, to the start of the reply's last send() */
static struct daemon_times from_recv; /* from the start of the recv() that completed it */
static struct truth tr;
static int fn_parse, fn_compute;

/*
 * Queueing behind other clients: each request's wait from the client's send
 * to the server's read of it, and the part of it the server spent serving
 * other connections' requests (their windows, receive to reply sent; the
 * last QWIN of them, each complete when the next request is read: one
 * thread serves one request at a time).  Summed per client port.
 */
#define QWIN 64
#define QPORTS 64
static struct { uint64_t s, e; unsigned port; } qwin[QWIN];
static size_t n_qwin;
static struct { unsigned port; uint64_t requests, waited_ns, queued_ns; } qport[QPORTS];
static size_t n_qport;

static void queue_note(const struct conn *c)
{
	uint64_t s = c->sent_ns, e = c->recv_done_ns, q = 0;
	size_t i;

	for (i = 0; i < n_qwin && i < QWIN; i++) {
		uint64_t a = qwin[i].s > s ? qwin[i].s : s, b = qwin[i].e < e ? qwin[i].e : e;

		if (qwin[i].port != c->port && b > a)
			q += b - a;
	}
	for (i = 0; i < n_qport && qport[i].port != c->port; i++)
		;
	if (i == n_qport) {
		if (n_qport == QPORTS)
			return;
		qport[n_qport++].port = c->port;
	}
	qport[i].requests++;
	qport[i].waited_ns += e > s ? e - s : 0;
	qport[i].queued_ns += q;
}

static void queue_lines(void)
{
	for (size_t i = 0; i < n_qport; i++)
		truth_queued_line(qport[i].port, qport[i].requests, qport[i].waited_ns,
				  qport[i].queued_ns);
}

void serve_parse(const unsigned char *req);
void serve_compute(uint64_t reqno, unsigned char *reply);
void serve_persist(uint64_t reqno);
int serve_reply(struct conn *c);
void serve_request(struct conn *c);
void serve_readable(struct conn *c);
void serve_accept(void);
void serve_loop(void);






static void conn_close(struct conn *c)
{
	/* close() also removes the fd from the epoll set */
	close(c->fd);
	if (c->prev)
		c->prev->next = c->next;
	else
		conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	free(c);
}

/* ---- the request path ------------------------------------------------- */

WL_STACK_FN void serve_parse(const unsigned char *req)
{
	wl_burn(PARSE_ITERS);
	daemon_check_request(req);
}

WL_STACK_FN void serve_compute(uint64_t reqno, unsigned char *reply)
{
	wl_burn(COMPUTE_ITERS);
	daemon_fill_reply(reqno, reply);
}

WL_STACK_FN void serve_persist(uint64_t reqno)
{
	static unsigned char block[BLOCK_SIZE];
	uint64_t t0;
	ssize_t n;

	memset(block, (int)(reqno & 0xff), sizeof(block));
	n = pwrite(data_fd, block, sizeof(block), 0);
	if (n < 0)
		wl_die("pwrite data file");
	if (n != (ssize_t)sizeof(block))
		wl_fail("short pwrite on data file");
	t0 = truth_mono();
	if (fdatasync(data_fd) < 0)
		wl_die("fdatasync data file");
	truth_wait_end(&tr, TRUTH_FSYNC, t0);
}

/*
 * Send what is left of c's reply. Returns 1 when it is all sent, 0 when
 * the socket buffer is full (EPOLLOUT is then armed), -1 when the client
 * is gone (the caller closes the connection).
 */
WL_STACK_FN int serve_reply(struct conn *c)
{
	ssize_t n;

	while (c->out_off < c->out_len) {
		c->send_begin_ns = truth_mono();
		if (c->udp)
			n = sendto(c->fd, c->out, c->out_len, MSG_NOSIGNAL,
				   (const struct sockaddr *)&c->peer, sizeof(c->peer));
		else
			n = send(c->fd, c->out + c->out_off,
				 c->out_len - c->out_off, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				if (!c->blocked) {
					c->blocked = 1;
					epoll_set(c->fd, EPOLLOUT, c,
						  EPOLL_CTL_MOD,
						  "epoll_ctl(MOD, EPOLLOUT)");
				}
				return 0;
			}
			if (errno == EPIPE || errno == ECONNRESET)
				return -1;
			wl_die("send reply");
		}
		/* a datagram goes whole or not at all */
		c->out_off += c->udp ? c->out_len : (size_t)n;
	}
	if (c->blocked) {
		c->blocked = 0;
		epoll_set(c->fd, EPOLLIN, c, EPOLL_CTL_MOD,
			  "epoll_ctl(MOD, EPOLLIN)");
	}
	if (c->stop_after) {
		stopping = 1;
	} else {
		uint64_t now = truth_mono();

		daemon_times_add(&service, now - c->recv_done_ns);
		daemon_times_add(&to_send, c->send_begin_ns - c->recv_done_ns);
		daemon_times_add(&from_recv, now - c->recv_begin_ns);
		qwin[n_qwin % QWIN].s = c->recv_done_ns;
		qwin[n_qwin % QWIN].e = now;
		qwin[n_qwin % QWIN].port = c->port;
		n_qwin++;
	}
	return 1;
}

/* c->in holds a complete request: do the work, start the reply. */
WL_STACK_FN void serve_request(struct conn *c)
{
	uint64_t reqno = get_u64(c->in), t0;

	c->out_off = 0;
	c->out_len = MSG_SIZE;
	if (reqno == STOP_REQUEST) {
		memcpy(c->out, c->in, MSG_SIZE);
		c->stop_after = 1;
	} else {
		memset(c->out, 0, MSG_SIZE);
		t0 = truth_cpu();
		serve_parse(c->in);
		truth_cpu_end(&tr, fn_parse, t0);
		t0 = truth_cpu();
		serve_compute(reqno, c->out);
		truth_cpu_end(&tr, fn_compute, t0);
		serve_persist(reqno);
		c->out[18] = 'W';
	}
	if (serve_reply(c) < 0 && !c->udp)
		conn_close(c);
	WL_NO_TAILCALL();
}

/*
 * EPOLLIN on a client: one recv(), a request when it completes one.  On the
 * UDP socket: one recvfrom(), a request when it is a whole 64-byte datagram
 * (anything else is counted and ignored), answered to its sender.
 */
WL_STACK_FN void serve_readable(struct conn *c)
{
	socklen_t plen = sizeof(c->peer);
	uint64_t before = truth_mono();
	ssize_t n;

	do
		n = c->udp ? recvfrom(c->fd, c->in, MSG_SIZE + 1, MSG_TRUNC,
				      (struct sockaddr *)&c->peer, &plen)
			   : recv(c->fd, c->in + c->in_len, MSG_SIZE - c->in_len, 0);
	while (n < 0 && errno == EINTR);
	if (c->udp && n >= 0) {
		if (n != MSG_SIZE || plen != sizeof(c->peer)) {
			malformed++;
			return;
		}
		c->port = ntohs(c->peer.sin_port);
	}
	if (n < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return;
		if (errno == ECONNRESET && !c->udp) {
			conn_close(c);
			return;
		}
		wl_die("recv request");
	}
	if (n == 0 && !c->udp) {
		/* the client closed (mid-request or not): drop it */
		conn_close(c);
		return;
	}
	c->in_len += (size_t)n;
	if (c->in_len < MSG_SIZE)
		return;
	c->recv_done_ns = truth_mono();
	c->recv_begin_ns = before;
	c->sent_ns = get_u64(c->in + 8);
	c->in_len = 0;
	if (get_u64(c->in) != STOP_REQUEST)
		queue_note(c);
	serve_request(c);
	WL_NO_TAILCALL();
}

/* EPOLLIN on the listening socket: accept everyone waiting. */
WL_STACK_FN void serve_accept(void)
{
	struct conn *c;
	int fd;

	while ((fd = daemon_accept()) >= 0) {
		c = calloc(1, sizeof(*c));
		if (!c)
			wl_fail("out of memory (connection)");
		c->fd = fd;
		{
			struct sockaddr_in peer;
			socklen_t len = sizeof(peer);

			if (getpeername(fd, (struct sockaddr *)&peer, &len) == 0)
				c->port = ntohs(peer.sin_port);
		}
		c->next = conns;
		if (conns)
			conns->prev = c;
		conns = c;
		accepted++;
		epoll_set(fd, EPOLLIN, c, EPOLL_CTL_ADD,
			  "epoll_ctl(ADD, client)");
	}
}

WL_STACK_FN void serve_loop(void)
{
	struct epoll_event ev[MAX_EVENTS];
	struct conn *c;
	uint64_t t0;
	int n, i;

	while (!stopping) {
		t0 = truth_mono();
		n = epoll_wait(epfd, ev, MAX_EVENTS, -1);
		truth_wait_end(&tr, TRUTH_IDLE, t0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			wl_die("epoll_wait");
		}
		for (i = 0; i < n && !stopping; i++) {
			if (ev[i].data.ptr == &signal_tag) {
				daemon_read_signal();
				stopping = 1;
			} else if (ev[i].data.ptr == &listen_tag) {
				serve_accept();
			} else {
				c = ev[i].data.ptr;
				if (c->blocked) {
					/* EPOLLOUT (or an error: send sees it) */
					if (serve_reply(c) < 0)
						conn_close(c);
				} else {
					serve_readable(c);
				}
			}
		}
	}
}

/* ---- setup and exit --------------------------------------------------- */


/* The stats line (README.md, "Stats lines"). */
static void write_stats_line(void)
{
	char extra[64];

	/* UDP: the peers (address:port) that sent requests */
	if (udp_sock)
		snprintf(extra, sizeof(extra), "\"connections\":%zu,\"malformed\":%" PRIu64 ",",
			 n_qport, malformed);
	else
		snprintf(extra, sizeof(extra), "\"connections\":%" PRIu64 ",", accepted);
	truth_stats("server", "to_send", "to_send_ns", to_send.v, to_send.n, extra);
	truth_stats("server", "from_recv", "from_recv_ns", from_recv.v, from_recv.n, extra);
	truth_stats("server", "service", "service_ns", service.v, service.n, extra);
}

int main(int argc, char **argv)
{
	int a = 1;

	wl_catch_signals();
	alarm(FAILSAFE_S);
	if (argc == 2 && (strcmp(argv[1], "-h") == 0 ||
			  strcmp(argv[1], "--help") == 0)) {
		fputs(usage, stdout);
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "--udp") == 0) {
		daemon_sock_type = SOCK_DGRAM;
		a = 2;
	}
	if (argc != a + 1 || argv[a][0] == '\0' || argv[a][0] == '-') {
		fputs(usage, stderr);
		return 2;
	}
	if (prctl(PR_SET_NAME, "truthserve", 0, 0, 0) < 0)
		wl_die("prctl(PR_SET_NAME)");
	truth_open();
	truth_begin(&tr, "server");
	fn_parse = truth_fn(&tr, "serve_parse");
	fn_compute = truth_fn(&tr, "serve_compute");
	truth_measures(&tr, TRUTH_FSYNC);
	truth_measures(&tr, TRUTH_IDLE);

	{
		uint16_t port = daemon_open("truthserve", argv[a]);

		if (daemon_sock_type == SOCK_DGRAM) {
			udp_sock = calloc(1, sizeof(*udp_sock));
			if (!udp_sock)
				wl_fail("out of memory (UDP socket)");
			udp_sock->fd = listen_fd;
			udp_sock->udp = 1;
			epoll_set(listen_fd, EPOLLIN, udp_sock, EPOLL_CTL_MOD,
				  "epoll_ctl(MOD, UDP socket)");
		}
		daemon_publish(port);
	}

	serve_loop();

	while (conns)
		conn_close(conns);
	free(udp_sock); /* its socket is listen_fd: daemon_close() closes it */
	daemon_close();
	write_stats_line();
	queue_lines();
	truth_finish(&tr);
	free(service.v);
	free(to_send.v);
	free(from_recv.v);
	return 0;
}
