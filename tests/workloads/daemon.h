/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The known-answer daemons' common parts (truthserve, truthpool) and their
 * protocol (shared with truthclient): 64-byte requests over TCP 127.0.0.1 (or
 * one UDP datagram each way: truthserve --udp),
 * the port published in a PORTFILE, a data file for the durable write,
 * SIGTERM/SIGINT read from a signalfd in an epoll set.  Include after wl.h.
 *
 * The protocol (DAEMON_PROTOCOL_ONLY defined: nothing else, for clients):
 * a request is a request number (uint64_t, host byte order), the client's
 * CLOCK_MONOTONIC just before its send (uint64_t: the same machine's clock,
 * for a daemon to measure how long the request queued) and 48 bytes of
 * REQ_FILL; the reply is the request number, check_value() of it, and
 * marks; STOP_REQUEST is answered with the same 64 bytes and stops the
 * daemon.
 */
#ifndef RSP_WORKLOAD_DAEMON_H
#define RSP_WORKLOAD_DAEMON_H

#include <stdint.h>
#include <string.h>

#define MSG_SIZE 64
#define REQ_FILL 0x5a
#define STOP_REQUEST UINT64_MAX

static inline uint64_t get_u64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline void put_u64(unsigned char *p, uint64_t v)
{
	memcpy(p, &v, sizeof(v));
}

/* The check value a daemon returns for a request number (the client checks it). */
static inline uint64_t check_value(uint64_t reqno)
{
	return reqno * 0x9e3779b97f4a7c15ULL + 1;
}

#ifndef DAEMON_PROTOCOL_ONLY

#include <stdlib.h>

/* A request's filler checked (the parse's work is the caller's, in its own frame). */
static inline void daemon_check_request(const unsigned char *req)
{
	for (size_t i = 16; i < MSG_SIZE; i++) {
		if (req[i] != REQ_FILL)
			wl_fail("malformed request (byte %zu is 0x%02x)", i, req[i]);
	}
}

/* The reply to request @reqno: its number, check_value() and the 'P' 'C' marks. */
static inline void daemon_fill_reply(uint64_t reqno, unsigned char *reply)
{
	put_u64(reply, reqno);
	put_u64(reply + 8, check_value(reqno));
	reply[16] = 'P';
	reply[17] = 'C';
}

/* Service times, one per request, for the stats line (truth_stats()). */
struct daemon_times {
	uint64_t *v;
	size_t n, cap;
};

static inline void daemon_times_add(struct daemon_times *t, uint64_t ns)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 1024;
		uint64_t *p = realloc(t->v, cap * sizeof(*p));

		if (!p)
			wl_fail("out of memory (service times of %zu requests)", t->n);
		t->v = p;
		t->cap = cap;
	}
	t->v[t->n++] = ns;
}

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

static char data_path[PATH_MAX], port_path[PATH_MAX], port_tmp[PATH_MAX];
static volatile sig_atomic_t data_created, port_tmp_created, port_published;
static int epfd = -1, listen_fd = -1, sig_fd = -1, data_fd = -1;
static int listen_tag, signal_tag; /* their epoll data.ptr */
/* SOCK_DGRAM before daemon_open(): one UDP socket bound to 127.0.0.1 serves
 * datagrams (listen_fd, no listen()), SOCK_STREAM (the default) a TCP listener */
static int daemon_sock_type = SOCK_STREAM;

/* wl_on_die: only unlink(), so it is safe from the SIGALRM handler. */
static void daemon_on_die(void)
{
	if (port_published)
		unlink(port_path);
	if (port_tmp_created)
		unlink(port_tmp);
	if (data_created)
		unlink(data_path);
}

static inline void epoll_set(int fd, uint32_t events, void *ptr, int op, const char *what)
{
	struct epoll_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.events = events;
	ev.data.ptr = ptr;
	if (epoll_ctl(epfd, op, fd, &ev) < 0)
		wl_die(what);
}

/*
 * The data file "SCRATCH/rsp-NAME.PID.dat", SIGTERM/SIGINT blocked (in every
 * thread started later too) and read from a signalfd, the listening socket on
 * 127.0.0.1 (its port returned; with daemon_sock_type SOCK_DGRAM the UDP socket,
 * data.ptr &listen_tag too) and the epoll set holding both; @port_file
 * is where daemon_publish() will write the port.
 */
static inline uint16_t daemon_open(const char *name, const char *port_file)
{
	struct sockaddr_in sin;
	socklen_t slen = sizeof(sin);
	sigset_t mask;

	wl_path(port_path, "%s", port_file);
	wl_on_die = daemon_on_die;
	wl_path(data_path, "%s/rsp-%s.%ld.dat", wl_scratch_dir(), name, (long)getpid());
	data_fd = open(data_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (data_fd < 0)
		wl_die("create data file");
	data_created = 1;

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
		wl_die("sigprocmask");
	sig_fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (sig_fd < 0)
		wl_die("signalfd");

	listen_fd = socket(AF_INET, daemon_sock_type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (listen_fd < 0)
		wl_die("socket(AF_INET)");
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = 0;
	/* RSP_WL_BIND=ADDR: another IPv4 address (a veth end in a network namespace) */
	if (getenv("RSP_WL_BIND") && inet_pton(AF_INET, getenv("RSP_WL_BIND"), &sin.sin_addr) != 1)
		wl_fail("RSP_WL_BIND=%s: not an IPv4 address", getenv("RSP_WL_BIND"));
	if (bind(listen_fd, (const struct sockaddr *)&sin, sizeof(sin)) < 0)
		wl_die("bind");
	if (daemon_sock_type == SOCK_STREAM && listen(listen_fd, 128) < 0)
		wl_die("listen");
	if (getsockname(listen_fd, (struct sockaddr *)&sin, &slen) < 0)
		wl_die("getsockname");

	epfd = epoll_create1(EPOLL_CLOEXEC);
	if (epfd < 0)
		wl_die("epoll_create1");
	epoll_set(sig_fd, EPOLLIN, &signal_tag, EPOLL_CTL_ADD, "epoll_ctl(ADD, signalfd)");
	epoll_set(listen_fd, EPOLLIN, &listen_tag, EPOLL_CTL_ADD,
		  "epoll_ctl(ADD, listening socket)");
	return ntohs(sin.sin_port);
}

/* A connection waiting on the listening socket, TCP_NODELAY; -1 when none is left. */
static inline int daemon_accept(void)
{
	int fd, one = 1;

	for (;;) {
		fd = accept4(listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd >= 0)
			break;
		if (errno == EINTR || errno == ECONNABORTED)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return -1;
		wl_die("accept4");
	}
	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0)
		wl_die("setsockopt(TCP_NODELAY)");
	return fd;
}

/* "PORT\n" in PORTFILE, through a temporary file renamed: never seen partial. */
static inline void daemon_publish(uint16_t port)
{
	char buf[16];
	int fd, len;
	ssize_t n;

	wl_path(port_tmp, "%s.tmp.%ld", port_path, (long)getpid());
	fd = open(port_tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		wl_die("create temporary port file");
	port_tmp_created = 1;
	len = snprintf(buf, sizeof(buf), "%u\n", (unsigned int)port);
	n = write(fd, buf, (size_t)len);
	if (n < 0)
		wl_die("write temporary port file");
	if (n != len)
		wl_fail("short write to temporary port file");
	if (close(fd) < 0)
		wl_die("close temporary port file");
	if (rename(port_tmp, port_path) < 0)
		wl_die("rename temporary port file to PORTFILE");
	port_published = 1;
	port_tmp_created = 0;
}

/* SIGTERM or SIGINT arrived (the signalfd is readable): read it. */
static inline void daemon_read_signal(void)
{
	struct signalfd_siginfo si;
	ssize_t r = read(sig_fd, &si, sizeof(si));

	if (r < 0 && errno != EAGAIN && errno != EINTR)
		wl_die("read signalfd");
}

/* The end: the sockets and the epoll set closed, the data file and PORTFILE removed. */
static inline void daemon_close(void)
{
	close(listen_fd);
	close(sig_fd);
	close(epfd);
	if (close(data_fd) < 0)
		wl_die("close data file");
	if (unlink(data_path) < 0)
		wl_die("unlink data file");
	data_created = 0;
	if (unlink(port_path) < 0)
		wl_die("unlink PORTFILE");
	port_published = 0;
	wl_on_die = NULL;
}

#endif /* DAEMON_PROTOCOL_ONLY */
#endif /* RSP_WORKLOAD_DAEMON_H */
