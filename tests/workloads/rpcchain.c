/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rpcchain - a three-tier RPC chain: client -> server -> backend -> disk.
 *
 * What it does:
 *   The main process is the client (comm "rpcchain"). It forks
 *     - a backend (comm "rpc-backend") that listens on an abstract-namespace
 *       unix stream socket ("\0rsp-rpcchain.<client pid>", so no file is
 *       left behind) and owns a scratch data file, and then
 *     - a server (comm "rpc-server") that connects to the backend over that
 *       unix socket and listens on TCP 127.0.0.1 on an ephemeral port; the
 *       port number is passed back to the client through a pipe.
 *   The client connects to the server and makes N requests (default 60).
 *   Each request:
 *     client_compute()   ~100 µs of CPU in the client ("think time")
 *     client_call()      send 64 bytes over TCP, block until the reply
 *       server_handle()  ~100 µs of CPU, forward the 64 bytes to the
 *                        backend over the unix socket, block for its reply,
 *                        then reply to the client
 *         backend_store() pwrite 4 KiB at offset 0 of the data file and
 *                        fsync() it (a real disk write + cache flush),
 *                        then reply 64 bytes to the server
 *   The data file is "$RSP_WL_DIR" (else "$TMPDIR", else /tmp)
 *   "/rsp-rpcchain.<client pid>.dat"; the backend unlinks it at the end.
 *   Shutdown: the client does shutdown(SHUT_WR) on the TCP connection; the
 *   server sees EOF, closes its unix connection and exits; the backend sees
 *   EOF, unlinks the data file and exits; the client reaps both. On any
 *   error (or SIGALRM/SIGTERM/SIGINT/SIGHUP) the client kills and reaps
 *   both children and removes the file; the children have
 *   PR_SET_PDEATHSIG(SIGTERM) in case the client dies, and the backend
 *   removes the file when it gets that signal.
 *
 *   usage: rpcchain [REQUESTS]     (default 60)
 *
 * Processes / threads:
 *   rpcchain     client (main process)
 *   rpc-server   TCP server, forked by the client
 *   rpc-backend  storage backend, forked by the client
 *
 * Functions that appear in stacks (built with frame pointers):
 *   client_main(), client_compute(), client_call()          in rpcchain
 *   server_main(), server_handle()                          in rpc-server
 *   backend_main(), backend_store()                         in rpc-backend
 *   Sleeps: client_call() -> recvfrom(TCP); server_handle() ->
 *   recvfrom(unix); backend_store() -> fsync() (block I/O wait).
 *
 * Expected explanation shape (target: rpcchain):
 *   Each client_call() sleep in recvfrom() on the TCP socket is explained
 *   by the peer 127.0.0.1:<server port>, i.e. rpc-server: its
 *   server_handle() CPU (~100 µs) is a child of the client's sleep, and
 *   inside it the server's own recvfrom() sleep on the unix socket is
 *   explained by rpc-backend, whose backend_store() -> fsync() sleep is
 *   blocking disk I/O: per fsync() a 4 KiB synchronous write (WS) issued
 *   by rpc-backend itself, then a cache flush (FF) issued by the kblockd
 *   worker (kworker/N:1H), each ending with a completion irq; the first
 *   fsync() also writes ext4 metadata/journal blocks. So the pseudostack
 *   is rpcchain > rpc-server > rpc-backend > disk; the disk wait is the
 *   largest single part of each call, the rest being the server's
 *   ~100 us of CPU and four socket hops (send -> wakeup -> run).
 *   Measured on the reference machine (2 vCPU EPYC VM, ext4 on a fast
 *   virtio disk), default run: 0.04 s wall (/usr/bin/time, 3 runs: 0.04
 *   0.04 0.04), perf stat: ~27 ms task-clock over the three processes
 *   (~0.6 CPUs utilized), ~600 context switches; the client's own CPU is
 *   ~10 ms (6 ms of it client_compute()). perf trace -s: the client's 61
 *   recvfrom() sleeps total ~36 ms (~75 % of its wall time, ~0.6 ms per
 *   call), the backend's 60 fsync() calls ~15 ms (~0.25 ms each, ~40 % of
 *   the client's wait). perf record -a -e block:block_rq_issue: ~134
 *   requests: 60 WS 4 KiB writes and ~12 metadata writes (WSM) from
 *   rpc-backend, 60 flushes (FF) from kworker/N:1H.
 *   If the directory is on tmpfs, fsync() does no I/O and the disk part
 *   disappears (set RSP_WL_DIR to a disk-backed directory).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#define WL_NAME "rpcchain"
#include "wl.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>

#define DEFAULT_REQUESTS 60UL
#define MAX_REQUESTS 1000000UL
#define MSG_SIZE 64
#define BLOCK_SIZE 4096
/* ~100 µs of CPU in the client between requests and in the server. */
#define CLIENT_ITERS (100UL * WL_ITERS_PER_US)
#define SERVER_ITERS (100UL * WL_ITERS_PER_US)

static const char usage[] =
	"usage: rpcchain [REQUESTS]\n"
	"  Client (rpcchain) -> TCP 127.0.0.1 -> server (rpc-server) -> unix\n"
	"  socket -> backend (rpc-backend) which writes 4 KiB and fsync()s it.\n"
	"  REQUESTS is the number of requests (default 60, about 0.05 s).\n"
	"  The data file lives in $RSP_WL_DIR, else $TMPDIR, else /tmp, and\n"
	"  is removed at the end.\n";

static char data_path[PATH_MAX];
static struct sockaddr_un backend_addr;
static socklen_t backend_addrlen;
static pid_t client_pid, backend_pid = -1, server_pid = -1;

void client_compute(void);
void client_call(int fd, uint32_t seq);
void client_main(int fd, unsigned long requests);
void server_handle(int client_fd, int backend_fd, unsigned char *msg);
void server_main(int ready_fd);
void backend_store(int data_fd, int conn_fd, unsigned char *msg);
void backend_main(int ready_fd);

/* ---- small I/O helpers (static: they are not meant to show in stacks) */

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

static void backend_on_die(void)
{
	unlink(data_path);
}

WL_STACK_FN void backend_store(int data_fd, int conn_fd, unsigned char *msg)
{
	static unsigned char block[BLOCK_SIZE];
	ssize_t n;

	memset(block, (int)(get_seq(msg) & 0xff), sizeof(block));
	n = pwrite(data_fd, block, sizeof(block), 0);
	if (n < 0)
		wl_die("backend: pwrite data file");
	if (n != (ssize_t)sizeof(block))
		wl_fail("backend: short pwrite on data file");
	if (fsync(data_fd) < 0)
		wl_die("backend: fsync data file");
	wl_send_all(conn_fd, msg, MSG_SIZE, "backend: send reply");
}

WL_STACK_FN void backend_main(int ready_fd)
{
	unsigned char msg[MSG_SIZE];
	int lfd, conn, data_fd;
	const char ready = 'b';

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

	while (wl_recv_all(conn, msg, sizeof(msg), "backend: recv request"))
		backend_store(data_fd, conn, msg);

	close(conn);
	if (close(data_fd) < 0)
		wl_die("backend: close data file");
	wl_on_die = NULL;
	if (unlink(data_path) < 0)
		wl_die("backend: unlink data file");
}

/* ---- server ----------------------------------------------------------- */

WL_STACK_FN void server_handle(int client_fd, int backend_fd,
			       unsigned char *msg)
{
	uint32_t seq = get_seq(msg);

	wl_burn(SERVER_ITERS);
	wl_send_all(backend_fd, msg, MSG_SIZE, "server: send to backend");
	if (!wl_recv_all(backend_fd, msg, MSG_SIZE, "server: recv from backend"))
		wl_fail("server: backend closed the connection");
	if (get_seq(msg) != seq)
		wl_fail("server: backend replied out of order");
	wl_send_all(client_fd, msg, MSG_SIZE, "server: send reply");
}

WL_STACK_FN void server_main(int ready_fd)
{
	unsigned char msg[MSG_SIZE];
	struct sockaddr_in sin;
	socklen_t slen = sizeof(sin);
	int bfd, lfd, conn, one = 1;
	uint16_t port;

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

	while (wl_recv_all(conn, msg, sizeof(msg), "server: recv request"))
		server_handle(conn, bfd, msg);

	/* EOF from the client: close both ends, the backend sees EOF next. */
	close(conn);
	close(bfd);
}

/* ---- client ----------------------------------------------------------- */

static void client_on_die(void)
{
	if (server_pid > 0)
		kill(server_pid, SIGKILL);
	if (backend_pid > 0)
		kill(backend_pid, SIGKILL);
	wl_reap(&server_pid, "rpc-server", 0);
	wl_reap(&backend_pid, "rpc-backend", 0);
	unlink(data_path);
}

WL_STACK_FN void client_compute(void)
{
	wl_burn(CLIENT_ITERS);
}

WL_STACK_FN void client_call(int fd, uint32_t seq)
{
	unsigned char msg[MSG_SIZE];

	memset(msg, 0x5a, sizeof(msg));
	put_seq(msg, seq);
	wl_send_all(fd, msg, sizeof(msg), "client: send request");
	if (!wl_recv_all(fd, msg, sizeof(msg), "client: recv reply"))
		wl_fail("client: server closed the connection");
	if (get_seq(msg) != seq)
		wl_fail("client: reply out of order");
}

WL_STACK_FN void client_main(int fd, unsigned long requests)
{
	unsigned long i;

	for (i = 0; i < requests; i++) {
		client_compute();
		client_call(fd, (uint32_t)i);
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
	if (prctl(PR_SET_NAME, "rpcchain", 0, 0, 0) < 0)
		wl_die("prctl(PR_SET_NAME)");

	client_pid = getpid();
	wl_path(data_path, "%s/rsp-rpcchain.%ld.dat", wl_scratch_dir(),
		(long)client_pid);
	memset(&backend_addr, 0, sizeof(backend_addr));
	backend_addr.sun_family = AF_UNIX;
	/* Abstract namespace: sun_path[0] == '\0', nothing on disk. */
	n = snprintf(backend_addr.sun_path + 1, sizeof(backend_addr.sun_path) - 1,
		     "rsp-rpcchain.%ld", (long)client_pid);
	backend_addrlen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
				      1 + (size_t)n);

	wl_on_die = client_on_die;
	backend_pid = wl_spawn("rpc-backend", client_pid, backend_main, &rd);
	wl_read_ready(rd, &c, 1, "rpc-backend");
	server_pid = wl_spawn("rpc-server", client_pid, server_main, &rd);
	wl_read_ready(rd, &port, sizeof(port), "rpc-server");

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

	wl_reap(&server_pid, "rpc-server", 1);
	wl_reap(&backend_pid, "rpc-backend", 1);
	wl_on_die = NULL;
	return 0;
}
