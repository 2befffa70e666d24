/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * truthclient - the client of truthserve: synchronous requests over one
 * TCP connection, each request's latency measured by the program itself
 * (see truth.h and README.md, "Ground truth side files").
 *
 * What it does:
 *   One process, one thread (comm "truthclient"). It reads the port from
 *   PORTFILE (written by truthserve once it listens: "PORT\n"; the caller
 *   waits for the file to exist, this program does not), connects to
 *   127.0.0.1:PORT and makes N requests (default 300), one at a time:
 *     client_call()   send the 64-byte request (the request number
 *                     0..N-1, its CLOCK_MONOTONIC just before the send,
 *                     then 48 bytes of 0x5a) and block in recv()
 *                     until the whole 64-byte reply arrived; the latency is
 *                     CLOCK_MONOTONIC from just before the send() to just
 *                     after the last recv()
 *   and checks each reply (request number, truthserve's check value and
 *   its 'P' 'C' 'W' marks). No work of its own between requests. With
 *   --stop it then sends the stop request (request number UINT64_MAX; not
 *   timed, not counted) and waits for its reply: the server then exits.
 *   Then it closes the connection (the server drops it) and exits 0.
 *   No files. alarm(60) as a safety net.
 *
 *   With --udp (truthserve --udp) it uses a UDP socket connect()ed to
 *   127.0.0.1:PORT instead: each request one 64-byte datagram (send()), each
 *   reply one datagram (recv()); the same timing. A lost datagram is not
 *   retried: the client would wait until alarm(60).
 *
 *   With --go FILE it connects, then waits (10 ms polls) until FILE exists
 *   before its first request: a connection made before a recording that
 *   the caller starts in between, as a daemon's clients' connections are.
 *
 *   usage: truthclient [--udp] [--stop] [--go FILE] PORTFILE [REQUESTS]
 *   (default 300 requests)
 *
 * Ground truth ($RSP_TRUTH set): two lines at its exit, in this order:
 *   a stats line {"stats":"latency", ...}: the distribution of the
 *     requests' latencies: count, sum, mean, min, p50, p90, p99, max in ns
 *     (README.md, "Stats lines");
 *   role "client" comm truthclient: no functions; waits call (each
 *     client_call(): send + recv of the whole reply; count = REQUESTS).
 * With $RSP_TRUTH_EACH set, also one line per request to that file:
 *   "PID REQNO START_NS END_NS" (CLOCK_MONOTONIC around client_call(), the
 *   clock of rsp's recordings): to compare request by request.
 *
 * Processes / threads: truthclient (one thread).
 *
 * Functions that appear in stacks (built WITHOUT frame pointers,
 * -fomit-frame-pointer; needs DWARF/.eh_frame unwinding):
 *   client_run(), client_call(). Sleeps: client_call() -> recvfrom(TCP).
 *
 * Expected explanation shape (target: truthclient, with truthserve
 * running): ~all of the client's wall is client_call() sleeps, each
 * explained by truthserve (the TCP peer): its serve_parse() and
 * serve_compute() CPU and the fdatasync() (disk) in serve_persist(). The
 * mean latency is the server's mean service time plus the loopback round
 * trip and wakeups (and, with several clients, the time the server spent
 * on the other clients' requests). Measured: see README.md, "truthserve".
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#define WL_NAME "truthclient"
#include "wl.h"
#include "truth.h"
#define DAEMON_PROTOCOL_ONLY
#include "daemon.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#define DEFAULT_REQUESTS 300UL
#define MAX_REQUESTS 1000000UL

static const char usage[] =
	"usage: truthclient [--udp] [--stop] [--go FILE] PORTFILE [REQUESTS]\n"
	"  Connects to truthserve at 127.0.0.1:<the port in PORTFILE> and makes\n"
	"  REQUESTS (default 300) synchronous 64-byte requests, timing each.\n"
	"  --stop: then send the stop request (the server exits).\n"
	"  --udp: over UDP, one datagram each way (truthserve --udp).\n"
	"  --go FILE: once connected, wait until FILE exists, then start.\n"
	"  With RSP_TRUTH=FILE it appends a stats line (latency distribution)\n"
	"  and its truth line to FILE.\n";

static struct truth tr;
static uint64_t *latency_ns; /* one per request */
static uint64_t *start_ns; /* one per request, with $RSP_TRUTH_EACH */
static unsigned local_port; /* of its connection: the daemon's lines name it */

void client_call(int fd, unsigned char *msg, uint64_t reqno);
void client_run(int fd, unsigned long requests);

static void make_request(unsigned char *msg, uint64_t reqno)
{
	memset(msg, REQ_FILL, MSG_SIZE);
	put_u64(msg, reqno);
}

/* One request: send, block until the whole reply is here. */
WL_STACK_FN void client_call(int fd, unsigned char *msg, uint64_t reqno)
{
	put_u64(msg + 8, truth_mono()); /* for the daemon: when it was sent */
	wl_send_all(fd, msg, MSG_SIZE, "send request");
	if (!wl_recv_all(fd, msg, MSG_SIZE, "recv reply"))
		wl_fail("recv reply: the server closed the connection");
	WL_NO_TAILCALL();
	if (reqno == STOP_REQUEST)
		return;
	if (get_u64(msg) != reqno)
		wl_fail("reply to request %" PRIu64 " carries number %" PRIu64,
			reqno, get_u64(msg));
	if (get_u64(msg + 8) != check_value(reqno) || msg[16] != 'P' ||
	    msg[17] != 'C' || msg[18] != 'W')
		wl_fail("reply to request %" PRIu64 " was not fully processed",
			reqno);
}

WL_STACK_FN void client_run(int fd, unsigned long requests)
{
	unsigned char msg[MSG_SIZE];
	unsigned long i;
	uint64_t t0, ns;

	for (i = 0; i < requests; i++) {
		make_request(msg, i);
		t0 = truth_mono();
		client_call(fd, msg, i);
		ns = truth_mono() - t0;
		truth_wait_add(&tr, TRUTH_CALL, ns);
		latency_ns[i] = ns;
		if (start_ns)
			start_ns[i] = t0;
	}
}

/* The port truthserve wrote to PORTFILE: "PORT\n". */
static uint16_t read_port(const char *path)
{
	char buf[16], *end;
	unsigned long v;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		wl_die("open PORTFILE");
	do
		n = read(fd, buf, sizeof(buf) - 1);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		wl_die("read PORTFILE");
	close(fd);
	buf[n] = '\0';
	errno = 0;
	v = strtoul(buf, &end, 10);
	if (buf[0] < '0' || buf[0] > '9' || errno != 0 || v < 1 ||
	    v > 65535 || (*end != '\0' && strcmp(end, "\n") != 0))
		wl_fail("%s: not a port number", path);
	return (uint16_t)v;
}

/* The stats line (README.md, "Stats lines"). */
static void write_stats_line(size_t count)
{
	char extra[32];

	snprintf(extra, sizeof(extra), "\"local_port\":%u,", local_port);
	truth_stats("client", "latency", "latency_ns", latency_ns, count, extra);
}

/* $RSP_TRUTH_EACH: each request's start and end, appended (O_APPEND: two
 * clients may share the file; each writes its lines in one write each) */
static void write_each(const char *path, size_t count)
{
	char line[96];
	int fd, n;

	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		wl_die("open $RSP_TRUTH_EACH");
	for (size_t i = 0; i < count; i++) {
		n = snprintf(line, sizeof(line), "%d %zu %" PRIu64 " %" PRIu64 "\n",
			     (int)getpid(), i, start_ns[i], start_ns[i] + latency_ns[i]);
		if (write(fd, line, (size_t)n) != n)
			wl_die("write $RSP_TRUTH_EACH");
	}
	close(fd);
}

static unsigned long parse_requests(const char *arg)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (arg[0] < '0' || arg[0] > '9' || *end != '\0' || errno != 0 ||
	    v < 1 || v > MAX_REQUESTS) {
		fprintf(stderr, "%s: bad argument '%s' (want 1..%lu)\n",
			WL_NAME, arg, MAX_REQUESTS);
		fputs(usage, stderr);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	unsigned long requests = DEFAULT_REQUESTS;
	unsigned char msg[MSG_SIZE];
	struct sockaddr_in sin;
	int fd, one = 1, stop = 0, udp = 0, a = 1;
	const char *go = NULL;
	uint16_t port;

	wl_catch_signals();
	alarm(60);
	if (argc >= 2 && (strcmp(argv[1], "-h") == 0 ||
			  strcmp(argv[1], "--help") == 0)) {
		fputs(usage, stdout);
		return 0;
	}
	for (; a < argc && argv[a][0] == '-' && argv[a][1] == '-'; a++) {
		if (strcmp(argv[a], "--stop") == 0 && !stop) {
			stop = 1;
		} else if (strcmp(argv[a], "--udp") == 0 && !udp) {
			udp = 1;
		} else if (strcmp(argv[a], "--go") == 0 && !go && a + 1 < argc) {
			go = argv[++a];
		} else {
			fputs(usage, stderr);
			return 2;
		}
	}
	if (a >= argc || argc - a > 2 || argv[a][0] == '\0' ||
	    argv[a][0] == '-') {
		fputs(usage, stderr);
		return 2;
	}
	if (a + 1 < argc)
		requests = parse_requests(argv[a + 1]);
	if (prctl(PR_SET_NAME, "truthclient", 0, 0, 0) < 0)
		wl_die("prctl(PR_SET_NAME)");
	truth_open();
	truth_begin(&tr, "client");
	truth_measures(&tr, TRUTH_CALL);
	latency_ns = calloc(requests, sizeof(*latency_ns));
	if (getenv("RSP_TRUTH_EACH"))
		start_ns = calloc(requests, sizeof(*start_ns));
	if (!latency_ns || (getenv("RSP_TRUTH_EACH") && !start_ns))
		wl_fail("out of memory (%lu latencies)", requests);

	port = read_port(argv[a]);
	fd = socket(AF_INET, (udp ? SOCK_DGRAM : SOCK_STREAM) | SOCK_CLOEXEC, 0);
	if (fd < 0)
		wl_die("socket(AF_INET)");
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	/* RSP_WL_HOST=ADDR: the daemon's address when not 127.0.0.1 (RSP_WL_BIND) */
	if (getenv("RSP_WL_HOST") && inet_pton(AF_INET, getenv("RSP_WL_HOST"), &sin.sin_addr) != 1)
		wl_fail("RSP_WL_HOST=%s: not an IPv4 address", getenv("RSP_WL_HOST"));
	sin.sin_port = htons(port);
	if (connect(fd, (const struct sockaddr *)&sin, sizeof(sin)) < 0)
		wl_die("connect");
	if (!udp && setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0)
		wl_die("setsockopt(TCP_NODELAY)");
	{
		struct sockaddr_in me;
		socklen_t len = sizeof(me);

		if (getsockname(fd, (struct sockaddr *)&me, &len) < 0)
			wl_die("getsockname");
		local_port = ntohs(me.sin_port);
	}
	/* alarm(60) bounds the wait */
	while (go && access(go, F_OK) < 0) {
		if (errno != ENOENT)
			wl_die("access(--go file)");
		usleep(10000);
	}

	client_run(fd, requests);

	if (stop) {
		make_request(msg, STOP_REQUEST);
		client_call(fd, msg, STOP_REQUEST);
	}
	if (close(fd) < 0)
		wl_die("close socket");
	if (start_ns) /* before the stats line: it sorts latency_ns */
		write_each(getenv("RSP_TRUTH_EACH"), requests);
	write_stats_line(requests);
	truth_finish(&tr);
	free(latency_ns);
	free(start_ns);
	return 0;
}
