/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * truthrpc - a known-answer RPC chain: client -> server -> backend -> disk,
 * with CPU work of a different size in every stage, measured by the
 * program itself (see truth.h and README.md, "Ground truth side files").
 *
 * What it does:
 *   The main process is the client (comm "truthrpc"). Like rpcchain it
 *   forks
 *     - a backend (comm "trpc-backend") listening on an abstract unix
 *       stream socket ("\0rsp-truthrpc.<client pid>", nothing on disk) and
 *       owning a scratch data file, then
 *     - a server (comm "trpc-server") that connects to the backend and
 *       listens on TCP 127.0.0.1:<ephemeral port>, passed back through a
 *       pipe.
 *   The client connects and makes N requests (default 60). Each request:
 *     client_prepare()        ~50 µs of CPU in the client
 *     client_call()           send 64 bytes over TCP, block for the reply
 *       server_parse()        ~100 µs of CPU in the server
 *       server_call_backend() send 64 bytes over the unix socket, block
 *         backend_index()     ~200 µs of CPU in the backend
 *         backend_store()     pwrite 4 KiB at offset 0 + fsync(), reply
 *       server_render()       ~800 µs of CPU; every 4th request (seq % 4
 *                             == 3) a heavy render of ~2 ms; then reply
 *     client_digest()         ~300 µs of CPU in the client
 *   So the runs range from ~50 µs to ~2 ms. The data file is
 *   "$RSP_WL_DIR|$TMPDIR|/tmp/rsp-truthrpc.<client pid>.dat"; the backend
 *   removes it. Shutdown, errors and signals as in rpcchain: shutdown(WR)
 *   -> the server sees EOF and exits -> the backend sees EOF, unlinks and
 *   exits -> the client reaps both; on failure or SIGALRM/SIGTERM/SIGINT/
 *   SIGHUP the client kills and reaps both and removes the file; the
 *   children have PR_SET_PDEATHSIG(SIGTERM).
 *
 *   usage: truthrpc [REQUESTS]     (default 60)
 *
 * Ground truth ($RSP_TRUTH set): three lines, backend and server first (at
 * their exit), the client last (after reaping both):
 *   role "backend" comm trpc-backend: functions backend_index; waits
 *     fsync (each fsync()), idle (each blocking recv of the next request,
 *     the last one returning EOF: count = requests + 1)
 *   role "server" comm trpc-server: functions server_parse, server_render;
 *     waits call (server_call_backend(): send + recv), idle (as backend)
 *   role "client" comm truthrpc: functions client_prepare, client_digest;
 *     waits call (client_call(): send + recv)
 *
 * Processes / threads:
 *   truthrpc      client (main process, the target)
 *   trpc-server   TCP server, forked by the client
 *   trpc-backend  storage backend, forked by the client
 *
 * Functions that appear in stacks (built with frame pointers):
 *   client_main(), client_prepare(), client_call(), client_digest()
 *   server_main(), server_handle(), server_parse(), server_call_backend(),
 *     server_render()
 *   backend_main(), backend_handle(), backend_index(), backend_store()
 *   CPU leaves: client_prepare, client_digest, server_parse, server_render,
 *   backend_index. Sleeps: client_call() -> recvfrom(TCP);
 *   server_call_backend() -> recvfrom(unix); backend_store() -> fsync().
 *
 * Expected explanation shape (target: truthrpc):
 *   One synchronous chain, truthrpc > trpc-server > trpc-backend > disk:
 *   each client_call() sleep contains the server's server_parse() and
 *   server_render() and, inside the server's server_call_backend() sleep,
 *   the backend's backend_index() and its fsync() (disk). The client's own
 *   CPU (client_prepare + client_digest, ~350 µs per request) is the rest.
 *   Per request ~1.1 ms (avg) of server_render() is the largest item.
 *   Measured on the reference machine (2 vCPU EPYC VM, ext4 on virtio):
 *   default run 0.16 s wall (/usr/bin/time, 3 runs without RSP_TRUTH:
 *   0.17 0.16 0.16; with it: 0.15 0.16 0.16; load average ~2.6 from other
 *   work; 0.2-0.8 s when the VM was busier). Side file of those runs, per
 *   call: client_prepare 53-56 µs, client_digest 319-324 µs, server_parse
 *   107 µs, server_render 1.17-1.23 ms on average (70-74 ms for 60 calls;
 *   nominal 45 x 0.8 + 15 x 2 ms = 66 ms), backend_index 218-262 µs;
 *   fsync 0.42-0.52 ms each (25-31 ms); the client's call waits 122-131
 *   ms (2.0-2.2 ms per request, ~80 % of its 153-162 ms wall), the
 *   server's 43-47 ms (0.72-0.78 ms per request); the client uses ~30 ms
 *   of CPU (22.5 ms of it in its two functions), the server ~82 ms, the
 *   backend ~22 ms. perf stat (busier VM): ~166 ms task-clock, ~620
 *   context switches.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#define WL_NAME "truthrpc"
#include "wl.h"
#include "truth.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

#define DEFAULT_REQUESTS 60UL
#define MAX_REQUESTS 1000000UL
#define MSG_SIZE 64
#define BLOCK_SIZE 4096
#define PREPARE_ITERS (50UL * WL_ITERS_PER_US)
#define DIGEST_ITERS (300UL * WL_ITERS_PER_US)
#define PARSE_ITERS (100UL * WL_ITERS_PER_US)
#define RENDER_ITERS (800UL * WL_ITERS_PER_US)
#define RENDER_HEAVY_ITERS (2000UL * WL_ITERS_PER_US)
#define INDEX_ITERS (200UL * WL_ITERS_PER_US)

static const char usage[] =
	"usage: truthrpc [REQUESTS]\n"
	"  Client (truthrpc) -> TCP 127.0.0.1 -> server (trpc-server) -> unix\n"
	"  socket -> backend (trpc-backend): pwrite 4 KiB + fsync(). CPU per\n"
	"  request: client 50 + 300 us, server 100 + 800 us (2 ms every 4th),\n"
	"  backend 200 us. REQUESTS defaults to 60 (about 0.15 s).\n"
	"  With RSP_TRUTH=FILE each process appends one JSON line of its own\n"
	"  measurements to FILE. The data file lives in $RSP_WL_DIR, else\n"
	"  $TMPDIR, else /tmp, and is removed at the end.\n";

static char data_path[PATH_MAX];
static struct sockaddr_un backend_addr;
static socklen_t backend_addrlen;
static pid_t client_pid, backend_pid = -1, server_pid = -1;
static struct truth tr; /* this process's measurements */

void client_prepare(unsigned char *msg, uint32_t seq);
void client_call(int fd, unsigned char *msg);
void client_digest(const unsigned char *msg);
void client_main(int fd, unsigned long requests);
void server_parse(const unsigned char *msg);
void server_call_backend(int backend_fd, unsigned char *msg);
void server_render(unsigned char *msg, int heavy);
void server_handle(int client_fd, int backend_fd, unsigned char *msg);
void server_main(int ready_fd);
void backend_index(unsigned char *msg);
void backend_store(int data_fd, const unsigned char *msg);
void backend_handle(int data_fd, int conn_fd, unsigned char *msg);
void backend_main(int ready_fd);

/* ---- small I/O helpers (static: they are not meant to show in stacks) */

/* wl_recv_all() of the next request, timed as an "idle" wait. */
static int recv_request(int fd, void *buf, size_t len, const char *what)
{
	uint64_t t0 = truth_mono();
	int r = wl_recv_all(fd, buf, len, what);

	truth_wait_end(&tr, TRUTH_IDLE, t0);
	return r;
}

static void put_seq(unsigned char *msg, uint32_t seq)
{
	memcpy(msg, &seq, sizeof(seq));
}

static uint32_t get_seq(const unsigned char *msg)
{
	uint32_t seq;

	memcpy(&seq, msg, sizeof(seq));
	return seq;
}

/* ---- backend ---------------------------------------------------------- */

static int fn_index;

static void backend_on_die(void)
{
	unlink(data_path);
}

WL_STACK_FN void backend_index(unsigned char *msg)
{
	wl_burn(INDEX_ITERS);
	msg[4] = 'i';
}

WL_STACK_FN void backend_store(int data_fd, const unsigned char *msg)
{
	static unsigned char block[BLOCK_SIZE];
	uint64_t t0;
	ssize_t n;

	memset(block, (int)(get_seq(msg) & 0xff), sizeof(block));
	n = pwrite(data_fd, block, sizeof(block), 0);
	if (n < 0)
		wl_die("backend: pwrite data file");
	if (n != (ssize_t)sizeof(block))
		wl_fail("backend: short pwrite on data file");
	t0 = truth_mono();
	if (fsync(data_fd) < 0)
		wl_die("backend: fsync data file");
	truth_wait_end(&tr, TRUTH_FSYNC, t0);
}

WL_STACK_FN void backend_handle(int data_fd, int conn_fd, unsigned char *msg)
{
	uint64_t t0;

	t0 = truth_cpu();
	backend_index(msg);
	truth_cpu_end(&tr, fn_index, t0);
	backend_store(data_fd, msg);
	wl_send_all(conn_fd, msg, MSG_SIZE, "backend: send reply");
}

WL_STACK_FN void backend_main(int ready_fd)
{
	unsigned char msg[MSG_SIZE];
	int lfd, conn, data_fd;
	const char ready = 'b';

	truth_begin(&tr, "backend");
	fn_index = truth_fn(&tr, "backend_index");
	truth_measures(&tr, TRUTH_FSYNC);
	truth_measures(&tr, TRUTH_IDLE);

	wl_on_die = backend_on_die;
	data_fd = open(data_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		       0600);
	if (data_fd < 0)
		wl_die("backend: create data file");

	lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0)
		wl_die("backend: socket(AF_UNIX)");
	if (bind(lfd, (const struct sockaddr *)&backend_addr,
		 backend_addrlen) < 0)
		wl_die("backend: bind abstract unix socket");
	if (listen(lfd, 1) < 0)
		wl_die("backend: listen");
	if (write(ready_fd, &ready, 1) != 1)
		wl_die("backend: write ready pipe");
	close(ready_fd);

	do
		conn = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	while (conn < 0 && errno == EINTR);
	if (conn < 0)
		wl_die("backend: accept");
	close(lfd);

	while (recv_request(conn, msg, sizeof(msg), "backend: recv request"))
		backend_handle(data_fd, conn, msg);

	close(conn);
	if (close(data_fd) < 0)
		wl_die("backend: close data file");
	wl_on_die = NULL;
	if (unlink(data_path) < 0)
		wl_die("backend: unlink data file");
	truth_finish(&tr);
}

/* ---- server ----------------------------------------------------------- */

static int fn_parse, fn_render;

WL_STACK_FN void server_parse(const unsigned char *msg)
{
	wl_burn(PARSE_ITERS);
	if (msg[5] != 0x5a)
		wl_fail("server: malformed request");
}

WL_STACK_FN void server_call_backend(int backend_fd, unsigned char *msg)
{
	uint32_t seq = get_seq(msg);
	uint64_t t0 = truth_mono();

	wl_send_all(backend_fd, msg, MSG_SIZE, "server: send to backend");
	if (!wl_recv_all(backend_fd, msg, MSG_SIZE, "server: recv from backend"))
		wl_fail("server: backend closed the connection");
	truth_wait_end(&tr, TRUTH_CALL, t0);
	if (get_seq(msg) != seq)
		wl_fail("server: backend replied out of order");
}

WL_STACK_FN void server_render(unsigned char *msg, int heavy)
{
	wl_burn(heavy ? RENDER_HEAVY_ITERS : RENDER_ITERS);
	msg[6] = 'r';
}

WL_STACK_FN void server_handle(int client_fd, int backend_fd,
			       unsigned char *msg)
{
	int heavy = get_seq(msg) % 4 == 3;
	uint64_t t0;

	t0 = truth_cpu();
	server_parse(msg);
	truth_cpu_end(&tr, fn_parse, t0);
	server_call_backend(backend_fd, msg);
	t0 = truth_cpu();
	server_render(msg, heavy);
	truth_cpu_end(&tr, fn_render, t0);
	wl_send_all(client_fd, msg, MSG_SIZE, "server: send reply");
}

WL_STACK_FN void server_main(int ready_fd)
{
	unsigned char msg[MSG_SIZE];
	struct sockaddr_in sin;
	socklen_t slen = sizeof(sin);
	int bfd, lfd, conn, one = 1;
	uint16_t port;

	truth_begin(&tr, "server");
	fn_parse = truth_fn(&tr, "server_parse");
	fn_render = truth_fn(&tr, "server_render");
	truth_measures(&tr, TRUTH_CALL);
	truth_measures(&tr, TRUTH_IDLE);

	bfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (bfd < 0)
		wl_die("server: socket(AF_UNIX)");
	if (connect(bfd, (const struct sockaddr *)&backend_addr,
		    backend_addrlen) < 0)
		wl_die("server: connect to backend");

	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0)
		wl_die("server: socket(AF_INET)");
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = 0;
	if (bind(lfd, (const struct sockaddr *)&sin, sizeof(sin)) < 0)
		wl_die("server: bind 127.0.0.1:0");
	if (listen(lfd, 1) < 0)
		wl_die("server: listen");
	if (getsockname(lfd, (struct sockaddr *)&sin, &slen) < 0)
		wl_die("server: getsockname");
	port = ntohs(sin.sin_port);
	if (write(ready_fd, &port, sizeof(port)) != (ssize_t)sizeof(port))
		wl_die("server: write port to pipe");
	close(ready_fd);

	do
		conn = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	while (conn < 0 && errno == EINTR);
	if (conn < 0)
		wl_die("server: accept");
	close(lfd);
	if (setsockopt(conn, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0)
		wl_die("server: setsockopt(TCP_NODELAY)");

	while (recv_request(conn, msg, sizeof(msg), "server: recv request"))
		server_handle(conn, bfd, msg);

	/* EOF from the client: close both ends, the backend sees EOF next. */
	close(conn);
	close(bfd);
	truth_finish(&tr);
}

/* ---- client ----------------------------------------------------------- */

static int fn_prepare, fn_digest;

static void client_on_die(void)
{
	if (server_pid > 0)
		kill(server_pid, SIGKILL);
	if (backend_pid > 0)
		kill(backend_pid, SIGKILL);
	wl_reap(&server_pid, "trpc-server", 0);
	wl_reap(&backend_pid, "trpc-backend", 0);
	unlink(data_path);
}

WL_STACK_FN void client_prepare(unsigned char *msg, uint32_t seq)
{
	wl_burn(PREPARE_ITERS);
	memset(msg, 0x5a, MSG_SIZE);
	put_seq(msg, seq);
}

WL_STACK_FN void client_call(int fd, unsigned char *msg)
{
	uint32_t seq = get_seq(msg);
	uint64_t t0 = truth_mono();

	wl_send_all(fd, msg, MSG_SIZE, "client: send request");
	if (!wl_recv_all(fd, msg, MSG_SIZE, "client: recv reply"))
		wl_fail("client: server closed the connection");
	truth_wait_end(&tr, TRUTH_CALL, t0);
	if (get_seq(msg) != seq)
		wl_fail("client: reply out of order");
}

WL_STACK_FN void client_digest(const unsigned char *msg)
{
	if (msg[4] != 'i' || msg[6] != 'r')
		wl_fail("client: reply was not processed by both stages");
	wl_burn(DIGEST_ITERS);
}

WL_STACK_FN void client_main(int fd, unsigned long requests)
{
	unsigned char msg[MSG_SIZE];
	unsigned long i;
	uint64_t t0;

	for (i = 0; i < requests; i++) {
		t0 = truth_cpu();
		client_prepare(msg, (uint32_t)i);
		truth_cpu_end(&tr, fn_prepare, t0);
		client_call(fd, msg);
		t0 = truth_cpu();
		client_digest(msg);
		truth_cpu_end(&tr, fn_digest, t0);
	}
}

int main(int argc, char **argv)
{
	unsigned long requests;
	struct sockaddr_in sin;
	int rd, fd, one = 1;
	uint16_t port;
	char c;
	ssize_t n;

	wl_catch_signals();
	alarm(60);
	requests = wl_parse_count(argc, argv, DEFAULT_REQUESTS, MAX_REQUESTS,
				  usage);
	if (prctl(PR_SET_NAME, "truthrpc", 0, 0, 0) < 0)
		wl_die("prctl(PR_SET_NAME)");
	truth_open();
	truth_begin(&tr, "client");
	fn_prepare = truth_fn(&tr, "client_prepare");
	fn_digest = truth_fn(&tr, "client_digest");
	truth_measures(&tr, TRUTH_CALL);

	client_pid = getpid();
	wl_path(data_path, "%s/rsp-truthrpc.%ld.dat", wl_scratch_dir(),
		(long)client_pid);
	memset(&backend_addr, 0, sizeof(backend_addr));
	backend_addr.sun_family = AF_UNIX;
	/* Abstract namespace: sun_path[0] == '\0', nothing on disk. */
	n = snprintf(backend_addr.sun_path + 1, sizeof(backend_addr.sun_path) - 1,
		     "rsp-truthrpc.%ld", (long)client_pid);
	backend_addrlen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
				      1 + (size_t)n);

	wl_on_die = client_on_die;
	backend_pid = wl_spawn("trpc-backend", client_pid, backend_main, &rd);
	wl_read_ready(rd, &c, 1, "trpc-backend");
	server_pid = wl_spawn("trpc-server", client_pid, server_main, &rd);
	wl_read_ready(rd, &port, sizeof(port), "trpc-server");

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		wl_die("client: socket(AF_INET)");
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons(port);
	if (connect(fd, (const struct sockaddr *)&sin, sizeof(sin)) < 0)
		wl_die("client: connect to 127.0.0.1");
	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0)
		wl_die("client: setsockopt(TCP_NODELAY)");

	client_main(fd, requests);

	/* Clean shutdown: EOF to the server, wait for its EOF back. */
	if (shutdown(fd, SHUT_WR) < 0)
		wl_die("client: shutdown");
	do
		n = recv(fd, &c, 1, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		wl_die("client: recv EOF");
	if (n > 0)
		wl_fail("client: unexpected data from server at shutdown");
	close(fd);

	wl_reap(&server_pid, "trpc-server", 1);
	wl_reap(&backend_pid, "trpc-backend", 1);
	wl_on_die = NULL;
	truth_finish(&tr);
	return 0;
}
