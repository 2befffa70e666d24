/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A web server's connection churn over loopback: WORKERS forked servers
 * accept on one listening socket, read a request, answer BYTES and close (as
 * an HTTP/1.0 server does); CLIENTS forked clients connect, send, read to the
 * end and close, again and again, for SECONDS.  Every connection a new tuple,
 * its ephemeral port reused as the kernel allows.  The saturation benchmark's
 * second load (bench/saturate.sh churn).  Stops by itself: every child has an
 * alarm a little past SECONDS.
 *
 *   tcp-churn [SECONDS] [CLIENTS] [WORKERS] [BYTES]      (10 16 2 4096)
 *
 * Prints the connections made and their rate.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void serve(int ls, const char *body, size_t bytes)
{
	char req[256];

	for (;;) {
		int s = accept(ls, NULL, NULL);
		size_t off = 0;

		if (s < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			die("accept");
		}
		if (read(s, req, sizeof(req)) > 0)
			while (off < bytes) {
				ssize_t w = write(s, body + off, bytes - off);

				if (w <= 0)
					break;
				off += (size_t)w;
			}
		close(s);
	}
}

static long client(const struct sockaddr_in *a, double end)
{
	static const char req[] = "GET /f HTTP/1.0\r\n\r\n";
	char buf[16384];
	long n = 0;

	while (now() < end) {
		int s = socket(AF_INET, SOCK_STREAM, 0);

		if (s < 0)
			die("socket");
		if (connect(s, (const struct sockaddr *)a, sizeof(*a)) < 0) {
			close(s); /* the ephemeral ports, for a moment: try again */
			continue;
		}
		if (write(s, req, sizeof(req) - 1) == (ssize_t)sizeof(req) - 1)
			while (read(s, buf, sizeof(buf)) > 0)
				;
		close(s);
		n++;
	}
	return n;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 10;
	int clients = argc > 2 ? atoi(argv[2]) : 16, workers = argc > 3 ? atoi(argv[3]) : 2;
	size_t bytes = argc > 4 ? (size_t)atol(argv[4]) : 4096;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	pid_t *srv;
	long *counts, total = 0;
	char *body;
	double t0, end;
	int ls, one = 1;

	if (secs <= 0 || clients < 1 || workers < 1 || bytes < 1 || bytes > (64u << 20)) {
		fprintf(stderr, "usage: tcp-churn [SECONDS] [CLIENTS] [WORKERS] [BYTES]\n");
		return 2;
	}
	srv = calloc((size_t)workers, sizeof(*srv));
	body = malloc(bytes);
	/* each client's count, shared */
	counts = mmap(NULL, (size_t)clients * sizeof(*counts), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!srv || !body || counts == MAP_FAILED)
		die("memory");
	memset(body, 'x', bytes);
	ls = socket(AF_INET, SOCK_STREAM, 0);
	if (ls < 0 || setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(ls, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(ls, 4096) < 0 ||
	    getsockname(ls, (struct sockaddr *)&a, &al) < 0)
		die("listen");
	for (int i = 0; i < workers; i++) {
		srv[i] = fork();
		if (srv[i] < 0)
			die("fork");
		if (srv[i] == 0) {
			alarm((unsigned)secs + 10);
			serve(ls, body, bytes);
		}
	}
	t0 = now();
	end = t0 + secs;
	for (int i = 0; i < clients; i++) {
		pid_t p = fork();

		if (p < 0)
			die("fork");
		if (p == 0) {
			close(ls);
			alarm((unsigned)secs + 10);
			counts[i] = client(&a, end);
			_exit(0);
		}
	}
	for (int i = 0; i < clients; i++)
		wait(NULL);
	for (int i = 0; i < workers; i++)
		kill(srv[i], SIGTERM);
	for (int i = 0; i < workers; i++)
		waitpid(srv[i], NULL, 0);
	for (int i = 0; i < clients; i++)
		total += counts[i];
	printf("tcp-churn: %ld connections in %.2f s (%.0f/s), %d clients, %d workers, %zu bytes\n",
	       total, now() - t0, total / (now() - t0), clients, workers, bytes);
	return 0;
}
