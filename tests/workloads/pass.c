/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pass - the ping-pong toy from "A Recursive Systemic Profiler".
 *
 * What it does:
 *   The main process (comm "pass") forks one child (comm "pass-peer").
 *   The two are connected by two pipes, one per direction. A token goes
 *   back and forth: whoever holds it does ~200 µs of arithmetic
 *   (do_work()), writes a one-byte token into its outgoing pipe
 *   (pass_token(), which wakes the other side) and then reads its incoming
 *   pipe (wait_token(), blocking until the other side has done its own
 *   work and passed the token back). Default 1000 round trips; at the end
 *   the main process waits for the child with waitpid().
 *
 *   usage: pass [ROUNDS]      (default 1000, i.e. 2000 do_work() calls)
 *
 * Processes / threads:
 *   pass       the main process (prctl(PR_SET_NAME) makes sure of the comm)
 *   pass-peer  the forked child
 *
 * Functions that appear in stacks (built with frame pointers):
 *   pass_main_side()  main process loop: do_work, pass_token, wait_token
 *   pass_peer_side()  child loop: wait_token, do_work, pass_token
 *   do_work()         ~200 µs of arithmetic (leaf of every CPU sample)
 *   pass_token()      write(2) of one byte on a pipe (wakes the other side)
 *   wait_token()      read(2) of one byte on a pipe (the only sleeps)
 *
 * Expected explanation shape (target: pass):
 *   Both processes form one control path: every sleep of "pass" in
 *   wait_token() -> read() is explained by a wakeup from "pass-peer"
 *   (its pass_token() -> write()), and the peer's do_work() becomes the
 *   child of that sleep, and recursively the other way. Only one of the
 *   two processes does work at any moment, and most of the wall time is
 *   spent running do_work() in one of them; scheduler overhead (runnable
 *   but not running) is small, and the rest is the hand-off (pipe write ->
 *   wakeup -> the other side running).
 *   Measured on the reference machine (2 vCPU EPYC VM), default run:
 *   0.55 s wall (/usr/bin/time, 3 runs: 0.55 0.55 0.55), perf stat:
 *   489 ms task-clock over both processes (0.86 CPUs utilized), ~2000
 *   context switches (one voluntary sleep per do_work()). Per process,
 *   from /proc/<pid>/schedstat over 1 s of a longer run: running ~43 %,
 *   runnable ~5 %, sleeping in wait_token() ~52 % of the wall time. So
 *   ~86 % of the wall time is do_work() in one process or the other; the
 *   remaining ~14 % is cross-CPU wakeup latency (~40 us per hand-off on
 *   this VM: pinned to one CPU with taskset the run takes 0.43 s).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#define WL_NAME "pass"
#include "wl.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>

#define DEFAULT_ROUNDS 1000UL
#define MAX_ROUNDS 10000000UL
/* ~200 µs of arithmetic per do_work(). */
#define WORK_ITERS (200UL * WL_ITERS_PER_US)

static const char usage[] =
	"usage: pass [ROUNDS]\n"
	"  Two processes (pass, pass-peer) pass a token back and forth over\n"
	"  two pipes; each side does ~200 us of CPU work (do_work) before\n"
	"  passing the token on. ROUNDS is the number of round trips\n"
	"  (default 1000, about 0.55 s).\n";

void do_work(void);
void pass_token(int fd);
void wait_token(int fd);
void pass_main_side(int to_peer, int from_peer, unsigned long rounds);
void pass_peer_side(int from_main, int to_main, unsigned long rounds);

WL_STACK_FN void do_work(void)
{
	wl_burn(WORK_ITERS);
}

WL_STACK_FN void pass_token(int fd)
{
	const char token = 't';
	ssize_t n;

	do
		n = write(fd, &token, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		wl_die("write token to pipe");
}

WL_STACK_FN void wait_token(int fd)
{
	char token;
	ssize_t n;

	do
		n = read(fd, &token, 1);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		wl_die("read token from pipe");
	if (n == 0)
		wl_fail("read token from pipe: the other side went away");
}

WL_STACK_FN void pass_main_side(int to_peer, int from_peer,
				unsigned long rounds)
{
	unsigned long i;

	for (i = 0; i < rounds; i++) {
		do_work();
		pass_token(to_peer);
		wait_token(from_peer);
	}
}

WL_STACK_FN void pass_peer_side(int from_main, int to_main,
				unsigned long rounds)
{
	unsigned long i;

	for (i = 0; i < rounds; i++) {
		wait_token(from_main);
		do_work();
		pass_token(to_main);
	}
}

int main(int argc, char **argv)
{
	unsigned long rounds;
	int to_peer[2], to_main[2];
	pid_t parent, child;
	int status;

	wl_catch_signals();
	alarm(60);
	rounds = wl_parse_count(argc, argv, DEFAULT_ROUNDS, MAX_ROUNDS, usage);
	if (prctl(PR_SET_NAME, "pass", 0, 0, 0) < 0)
		wl_die("prctl(PR_SET_NAME)");

	if (pipe2(to_peer, O_CLOEXEC) < 0 || pipe2(to_main, O_CLOEXEC) < 0)
		wl_die("pipe2");

	parent = getpid();
	child = fork();
	if (child < 0)
		wl_die("fork");
	if (child == 0) {
		/* alarm() is not inherited across fork. */
		alarm(60);
		if (prctl(PR_SET_NAME, "pass-peer", 0, 0, 0) < 0)
			wl_die("prctl(PR_SET_NAME) in child");
		if (prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0) < 0)
			wl_die("prctl(PR_SET_PDEATHSIG) in child");
		if (getppid() != parent)
			wl_fail("parent died before the child started");
		close(to_peer[1]);
		close(to_main[0]);
		pass_peer_side(to_peer[0], to_main[1], rounds);
		exit(0);
	}

	close(to_peer[0]);
	close(to_main[1]);
	pass_main_side(to_peer[1], to_main[0], rounds);
	close(to_peer[1]);
	close(to_main[0]);

	while (waitpid(child, &status, 0) < 0) {
		if (errno != EINTR)
			wl_die("waitpid");
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		wl_fail("pass-peer failed (wait status 0x%x)", status);
	return 0;
}
