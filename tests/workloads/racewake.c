/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * racewake - a futex wake that races its waiter's sleep, on purpose.
 *
 * What it does:
 *   Thread "rw-sleeper" (pinned to CPU 0) loops ROUNDS times (default 3000):
 *   it announces a round (an atomic counter), then sleeps in
 *   futex(FUTEX_WAIT) on a word until the word says the round is done.
 *   Thread "rw-waker" (pinned to CPU 1) spins until it sees the announce,
 *   spins on a delay that sweeps 0..4 us over the rounds, then sets the
 *   word and calls futex(FUTEX_WAKE).  Some wakes land before the sleeper
 *   is queued (its FUTEX_WAIT returns at once), some while it is queued
 *   but still running (the kernel makes it runnable again: no sleep), and
 *   some in the few microseconds the sleeper is dequeued but still on its
 *   CPU: the waker's sched_waking is recorded before the sleeper's
 *   switch-out, and the kernel completes the wakeup from the sleeper's CPU
 *   after it (the race rsp links, docs/ANALYSIS.md "Wakes that race the
 *   sleep").
 *
 *   usage: racewake [ROUNDS]
 *
 * Its own count (stdout, one "key value" a line):
 *   sleeper TID, waker TID
 *   rounds      rounds done
 *   sleeps      the sleeper's voluntary context switches inside its futex
 *               waits (getrusage(RUSAGE_THREAD) ru_nvcsw before and after
 *               each FUTEX_WAIT): each is a sleep the waker's wake ended
 *   wait_ns     the sleeper's time in its FUTEX_WAITs (CLOCK_MONOTONIC)
 *
 * Expected: every one of the sleeper's futex sleeps is woken by rw-waker
 * (tests/record/races.sh).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#define WL_NAME "racewake"
#include "wl.h"

#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_ROUNDS 3000UL
#define MAX_ROUNDS 10000000UL
#define SWEEP_STEPS 64 /* the waker's delay: 0..63 steps of ~1/16 us */

static const char usage[] = "usage: racewake [ROUNDS]\n"
			    "  a futex waiter (rw-sleeper) and its waker (rw-waker) on two CPUs,\n"
			    "  the wake sweeping through the waiter's way to sleep (default 3000)\n";

static atomic_uint announce; /* the round the sleeper is about to wait in */
static atomic_uint word;     /* the round done (the futex word) */
static unsigned long rounds;
static pid_t tids[2];

static long futex(atomic_uint *uaddr, int op, unsigned val)
{
	return syscall(SYS_futex, uaddr, op, val, NULL, NULL, 0);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	/* one CPU only: the race needs two, the count stays right without */
	(void)sched_setaffinity(0, sizeof(set), &set);
}

static long nvcsw(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		wl_die("getrusage");
	return ru.ru_nvcsw;
}

static void *waker(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "rw-waker");
	tids[1] = (pid_t)syscall(SYS_gettid);
	pin(1);
	for (unsigned r = 1; r <= rounds; r++) {
		while (atomic_load(&announce) != r)
			;
		wl_burn((r % SWEEP_STEPS) * WL_ITERS_PER_US / 16);
		atomic_store(&word, r);
		futex(&word, FUTEX_WAKE_PRIVATE, 1);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th;
	uint64_t wait_ns = 0;
	long sleeps = 0;

	wl_catch_signals();
	rounds = wl_parse_count(argc, argv, DEFAULT_ROUNDS, MAX_ROUNDS, usage);
	prctl(PR_SET_NAME, "rw-sleeper");
	tids[0] = (pid_t)syscall(SYS_gettid);
	pin(0);
	if (pthread_create(&th, NULL, waker, NULL))
		wl_die("pthread_create");
	for (unsigned r = 1; r <= rounds; r++) {
		uint64_t t0 = mono_ns();
		long c0 = nvcsw();

		atomic_store(&announce, r);
		while (atomic_load(&word) != r)
			futex(&word, FUTEX_WAIT_PRIVATE, r - 1);
		sleeps += nvcsw() - c0;
		wait_ns += mono_ns() - t0;
	}
	pthread_join(th, NULL);
	printf("sleeper %d\nwaker %d\nrounds %lu\nsleeps %ld\nwait_ns %llu\n", (int)tids[0],
	       (int)tids[1], rounds, sleeps, (unsigned long long)wait_ns);
	return 0;
}
