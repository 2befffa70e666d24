/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lockturns - two threads taking turns on one mutex, each running one known
 * function while it holds it.
 *
 * What it does:
 *   The main thread starts two threads, "lt-alpha" (on CPU 0) and "lt-beta"
 *   (on CPU 1), running the same function, take_turns(); each loops
 *   ROUNDS times (default 300):
 *       pthread_mutex_lock(&lock);
 *       alpha_locked() / beta_locked();   ~300 us of arithmetic, holding it
 *       pthread_mutex_unlock(&lock);
 *       outside();                        ~40 us of arithmetic, not holding it
 *   A thread that finds the lock taken sleeps in futex(FUTEX_WAIT) until the
 *   holder's unlock wakes it: while one runs its locked function the other
 *   mostly waits for it (at the same place: threads of one code path, no
 *   helper of each other, docs/ANALYSIS.md).  The main thread joins both.
 *
 *   usage: lockturns [ROUNDS]
 *
 * Its own measure (stdout, "key value" lines, per thread T = alpha, beta):
 *   T_tid         the thread's tid
 *   T_locked_ns   its locked function's CPU (CLOCK_THREAD_CPUTIME_ID before
 *                 the lock and after the unlock, summed: their CPU included)
 *   T_wait_ns     its time in pthread_mutex_lock() (CLOCK_MONOTONIC around
 *                 each call, summed): the waits for the other's turn, their
 *                 wakeup and the wait for a CPU after it included
 *
 * Expected: each thread's waits are "Waiting on another control path" (the
 * other thread is a target thread too), labelled with what that thread ran
 * during them: its locked function for most of the time
 * (tests/record/otherpath.sh).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#define WL_NAME "lockturns"
#include "wl.h"

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_ROUNDS 300UL
#define MAX_ROUNDS 1000000UL
#define LOCKED_ITERS (300UL * WL_ITERS_PER_US)
#define OUTSIDE_ITERS (40UL * WL_ITERS_PER_US)

static const char usage[] = "usage: lockturns [ROUNDS]\n"
			    "  two threads (lt-alpha, lt-beta) take turns on a mutex ROUNDS times\n"
			    "  (default 300), each running ~300 us of its own function holding it\n";

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long rounds;
static volatile unsigned long sink;

struct turns {
	const char *name;
	int cpu;
	void (*locked)(void);
	pid_t tid;
	uint64_t locked_ns, wait_ns;
};

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	if (clock_gettime(c, &ts))
		wl_die("clock_gettime");
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

WL_STACK_FN static void alpha_locked(void)
{
	wl_burn(LOCKED_ITERS);
	sink++;
	WL_NO_TAILCALL();
}

WL_STACK_FN static void beta_locked(void)
{
	wl_burn(LOCKED_ITERS);
	sink++;
	WL_NO_TAILCALL();
}

WL_STACK_FN static void outside(void)
{
	wl_burn(OUTSIDE_ITERS);
	WL_NO_TAILCALL();
}

WL_STACK_FN static void *take_turns(void *arg)
{
	struct turns *me = arg;

	cpu_set_t set;

	prctl(PR_SET_NAME, me->name);
	/* one CPU each (when there are two): they take turns on the lock, not on a CPU */
	CPU_ZERO(&set);
	CPU_SET(me->cpu, &set);
	(void)sched_setaffinity(0, sizeof(set), &set);
	me->tid = (pid_t)syscall(SYS_gettid);
	for (unsigned long r = 0; r < rounds; r++) {
		/* the CPU clock (a system call, where a preemption lands) read outside
		 * the lock: its delta holds the lock's and unlock's CPU too (futex
		 * calls, a few us) */
		uint64_t c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID), t0 = clock_ns(CLOCK_MONOTONIC);

		if (pthread_mutex_lock(&lock))
			wl_die("pthread_mutex_lock");
		me->wait_ns += clock_ns(CLOCK_MONOTONIC) - t0;
		me->locked();
		pthread_mutex_unlock(&lock);
		me->locked_ns += clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
		outside();
	}
	WL_NO_TAILCALL();
	return NULL;
}

int main(int argc, char **argv)
{
	struct turns alpha = { "lt-alpha", 0, alpha_locked, 0, 0, 0 };
	struct turns beta = { "lt-beta", 1, beta_locked, 0, 0, 0 };
	pthread_t ta, tb;

	wl_catch_signals();
	rounds = wl_parse_count(argc, argv, DEFAULT_ROUNDS, MAX_ROUNDS, usage);
	if (pthread_create(&ta, NULL, take_turns, &alpha) ||
	    pthread_create(&tb, NULL, take_turns, &beta))
		wl_die("pthread_create");
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	printf("alpha_tid %d\nalpha_locked_ns %llu\nalpha_wait_ns %llu\n", (int)alpha.tid,
	       (unsigned long long)alpha.locked_ns, (unsigned long long)alpha.wait_ns);
	printf("beta_tid %d\nbeta_locked_ns %llu\nbeta_wait_ns %llu\n", (int)beta.tid,
	       (unsigned long long)beta.locked_ns, (unsigned long long)beta.wait_ns);
	return 0;
}
