/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * wl.h - tiny helpers shared by the rsp test workloads.
 *
 * Everything here is `static inline` so that a workload which does not use
 * a helper gets no unused-function warning, and so that the busy loop is
 * folded into the named, non-inlined workload function that calls it
 * (the named function, e.g. do_work(), is then the leaf of the CPU stack).
 *
 * Each workload defines WL_NAME (the program name used in error messages)
 * before including this file.
 *
 * Calibration: work is measured in loop iterations, never in time.
 * WL_ITERS_PER_US is the number of wl_burn() iterations that take about one
 * microsecond on the reference machine (2-vCPU AMD EPYC VM, gcc 12 -O2:
 * ~1.12 ns per iteration). On a slower machine the workloads simply take
 * longer; their shape does not change.
 */
#ifndef RSP_WORKLOAD_WL_H
#define RSP_WORKLOAD_WL_H

#include <errno.h>
#include <sys/wait.h>
#include <sys/prctl.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef WL_NAME
#error "define WL_NAME before including wl.h"
#endif

/* ~1 µs of wl_burn() on the reference machine. */
#define WL_ITERS_PER_US 900UL

/*
 * Attribute for functions that must appear, under their own name, in
 * stacks: never inlined, never cloned into foo.constprop.0 / foo.isra.0.
 */
#if defined(__clang__)
#define WL_STACK_FN __attribute__((noinline, used))
#else
#define WL_STACK_FN __attribute__((noinline, noclone, used))
#endif

/*
 * Put right after a call in tail position so that the compiler does not
 * turn it into a jump (which would drop the caller's frame from stacks).
 */
#define WL_NO_TAILCALL() __asm__ __volatile__("" ::: "memory")

/* Optional cleanup run by wl_die()/wl_fail() before exiting (e.g. unlink). */
static void (*wl_on_die)(void);

static inline void wl_run_on_die(void)
{
	void (*fn)(void) = wl_on_die;

	wl_on_die = NULL;
	if (fn)
		fn();
}

/* "NAME: what: strerror(errno)" on stderr, then exit(1). */
__attribute__((noreturn)) static inline void wl_die(const char *what)
{
	int err = errno;

	fprintf(stderr, "%s: %s: %s\n", WL_NAME, what, strerror(err));
	wl_run_on_die();
	exit(1);
}

/* "NAME: <message>" on stderr, then exit(1); for failures without errno. */
__attribute__((noreturn, format(printf, 1, 2)))
static inline void wl_fail(const char *fmt, ...)
{
	va_list ap;

	fputs(WL_NAME ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	wl_run_on_die();
	exit(1);
}

/*
 * Fatal-signal safety net: on SIGALRM (the alarm(60) every workload sets),
 * SIGTERM, SIGINT or SIGHUP, print one line, run the wl_on_die cleanup
 * (it only uses kill/waitpid/unlink) and die from the same signal.
 */
static inline void wl_fatal_signal(int sig)
{
	static const char timeout_msg[] = WL_NAME ": timed out (SIGALRM)\n";
	static const char term_msg[] = WL_NAME ": terminated by a signal\n";
	ssize_t r;

	if (sig == SIGALRM)
		r = write(STDERR_FILENO, timeout_msg, sizeof(timeout_msg) - 1);
	else
		r = write(STDERR_FILENO, term_msg, sizeof(term_msg) - 1);
	(void)r;
	wl_run_on_die();
	signal(sig, SIG_DFL);
	raise(sig);
	_exit(128 + sig);
}

/* Install wl_fatal_signal(); call at the start of main(), before alarm(). */
static inline void wl_catch_signals(void)
{
	static const int sigs[] = { SIGALRM, SIGTERM, SIGINT, SIGHUP };
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = wl_fatal_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		if (sigaction(sigs[i], &sa, NULL) < 0)
			wl_die("sigaction");
	}
}

/*
 * Pure CPU work: `iters` dependent multiply-adds on a volatile accumulator
 * (the volatile keeps the compiler from folding the loop away). Always
 * inlined into the caller so that the caller is the leaf frame.
 */
static inline __attribute__((always_inline)) void wl_burn(unsigned long iters)
{
	volatile unsigned long acc = 1;
	unsigned long i;

	for (i = 0; i < iters; i++)
		acc = acc * 6364136223846793005UL + i;
}

/*
 * Parse the optional first argument (the iteration count).
 *   prog            -> def
 *   prog N          -> N (1 <= N <= max)
 *   prog -h|--help  -> print usage to stdout, exit 0
 * Anything else prints usage to stderr and exits 2.
 */
static inline unsigned long wl_parse_count(int argc, char **argv,
					   unsigned long def,
					   unsigned long max,
					   const char *usage)
{
	const char *arg;
	char *end;
	unsigned long v;

	if (argc < 2)
		return def;
	arg = argv[1];
	if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
		fputs(usage, stdout);
		exit(0);
	}
	if (argc > 2) {
		fprintf(stderr, "%s: too many arguments\n", WL_NAME);
		fputs(usage, stderr);
		exit(2);
	}
	errno = 0;
	v = strtoul(arg, &end, 10);
	if (arg[0] < '0' || arg[0] > '9' || *end != '\0' ||
	    errno != 0 || v < 1 || v > max) {
		fprintf(stderr, "%s: bad argument '%s' (want 1..%lu)\n",
			WL_NAME, arg, max);
		fputs(usage, stderr);
		exit(2);
	}
	return v;
}

/* Directory for scratch files: $RSP_WL_DIR, else $TMPDIR, else /tmp. */
static inline const char *wl_scratch_dir(void)
{
	const char *d = getenv("RSP_WL_DIR");

	if (!d || !*d)
		d = getenv("TMPDIR");
	if (!d || !*d)
		d = "/tmp";
	return d;
}

/* snprintf into a PATH_MAX buffer, failing cleanly on truncation. */
__attribute__((format(printf, 2, 3)))
static inline void wl_path(char buf[PATH_MAX], const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, PATH_MAX, fmt, ap);
	va_end(ap);
	if (n < 0 || n >= PATH_MAX)
		wl_fail("scratch path too long");
}

/* All of @buf sent on socket @fd (no SIGPIPE); dies naming @what on an error. */
static inline void wl_send_all(int fd, const void *buf, size_t len, const char *what)
{
	const char *p = buf;
	ssize_t n;

	while (len > 0) {
		n = send(fd, p, len, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			wl_die(what);
		}
		p += n;
		len -= (size_t)n;
	}
}

/* A whole message from socket @fd: 1, or 0 on EOF before any byte; dies on
 * an error, fails on EOF mid-message. */
static inline int wl_recv_all(int fd, void *buf, size_t len, const char *what)
{
	char *p = buf;
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		n = recv(fd, p + got, len - got, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			wl_die(what);
		}
		if (n == 0) {
			if (got == 0)
				return 0;
			wl_fail("%s: connection closed mid-message", what);
		}
		got += (size_t)n;
	}
	return 1;
}

/* Wait for child *@pid (if any) and forget it; with @check, fail unless it exited 0. */
static inline void wl_reap(pid_t *pid, const char *name, int check)
{
	int status;

	if (*pid <= 0)
		return;
	while (waitpid(*pid, &status, 0) < 0) {
		if (errno != EINTR) {
			*pid = -1;
			if (check)
				wl_die("waitpid");
			return;
		}
	}
	*pid = -1;
	if (check && (!WIFEXITED(status) || WEXITSTATUS(status) != 0))
		wl_fail("%s failed (wait status 0x%x)", name, status);
}

/* In a forked child: named @comm, killed with its @parent, bounded in time. */
static inline void wl_become_child(const char *comm, pid_t parent)
{
	alarm(60); /* not inherited across fork */
	if (prctl(PR_SET_NAME, comm, 0, 0, 0) < 0)
		wl_die("prctl(PR_SET_NAME) in child");
	if (prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0) < 0)
		wl_die("prctl(PR_SET_PDEATHSIG) in child");
	if (getppid() != parent)
		wl_fail("%s: its parent died before the child started", comm);
}

/* Fork a child @comm of @parent running fn(write end); the read end in *@ready_rd. */
static inline pid_t wl_spawn(const char *comm, pid_t parent, void (*fn)(int), int *ready_rd)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		wl_die("pipe2");
	pid = fork();
	if (pid < 0)
		wl_die("fork");
	if (pid == 0) {
		wl_on_die = NULL;
		close(p[0]);
		wl_become_child(comm, parent);
		fn(p[1]);
		exit(0);
	}
	close(p[1]);
	*ready_rd = p[0];
	return pid;
}

/* @len bytes from a child's ready pipe @fd, then closed; fails if @who did not start. */
static inline void wl_read_ready(int fd, void *buf, size_t len, const char *who)
{
	ssize_t n;

	do
		n = read(fd, buf, len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		wl_die("read ready pipe");
	if (n != (ssize_t)len)
		wl_fail("%s failed to start", who);
	close(fd);
}

#endif /* RSP_WORKLOAD_WL_H */
