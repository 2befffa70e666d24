/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A TCP ping-pong over loopback: a client and a forked server exchange one
 * byte N times.  The recorder benchmark's TCP workload. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void die(const char *what)
{
	perror(what);
	exit(1);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	int one = 1, ls, s;
	pid_t pid;
	char c = 'x';
	struct timespec t0, t1;

	ls = socket(AF_INET, SOCK_STREAM, 0);
	if (ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(ls, 1) < 0 ||
	    getsockname(ls, (struct sockaddr *)&a, &al) < 0)
		die("listen");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		s = accept(ls, NULL, NULL);
		if (s < 0)
			die("accept");
		setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		for (long i = 0; i < n; i++)
			if (read(s, &c, 1) != 1 || write(s, &c, 1) != 1)
				die("server");
		_exit(0);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	s = socket(AF_INET, SOCK_STREAM, 0);
	if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof(a)) < 0)
		die("connect");
	setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	for (long i = 0; i < n; i++)
		if (write(s, &c, 1) != 1 || read(s, &c, 1) != 1)
			die("client");
	close(s);
	waitpid(pid, NULL, 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/* the same line perf bench prints, for bench/record.sh */
	printf("Total time: %.6f [sec]\n",
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	return 0;
}
