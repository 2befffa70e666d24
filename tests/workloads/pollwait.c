/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pollwait - the curl finding from "A Recursive Systemic Profiler":
 * a thread finishes early but nobody tells the waiter, which only notices
 * when its poll() timeout expires.
 *
 * What it does:
 *   The main thread (comm "pollwait") does 20 "lookups". Each lookup
 *   starts a resolver thread (thread name "resolver", set with
 *   pthread_setname_np() by the thread itself) running resolver_lookup():
 *   a ~2 ms nanosleep() (standing in for the network round trip) plus
 *   ~1 ms of CPU work, after which it sets an atomic "done" flag WITHOUT
 *   notifying the main thread. Meanwhile the main thread, in
 *   wait_for_resolver(), loops `while (!done) poll(NULL, 0, 10);`, i.e. it
 *   re-checks the flag only every 10 ms timeout. Then it joins the thread.
 *   So each lookup takes ~10 ms although the answer is ready after ~3 ms.
 *
 *   usage: pollwait [LOOKUPS]     (default 20)
 *
 * Processes / threads (one process):
 *   pollwait   main thread
 *   resolver   one short-lived thread per lookup (20 in total)
 *
 * Functions that appear in stacks (built WITHOUT frame pointers,
 * -fomit-frame-pointer; needs DWARF/.eh_frame unwinding):
 *   run_lookups(), wait_for_resolver()     main thread (sleeps in poll())
 *   resolver_thread(), resolver_lookup()   resolver (nanosleep + CPU)
 *
 * Expected explanation shape (target: pollwait):
 *   Most of the main thread's wall time (~95 %) is sleeping in
 *   wait_for_resolver() -> poll(), and those sleeps end by TIMEOUT (a
 *   timer, not a wakeup from another task). ~70 % of the wall time is
 *   "wasted" in the sense that the resolver had already set the flag:
 *   during each 10 ms poll the resolver thread is what ran meanwhile
 *   (~1 ms of resolver_lookup() CPU after a ~2 ms nanosleep, itself a
 *   timer-ended sleep), and then nothing runs for ~7 ms. Each lookup's
 *   pthread_join() is short (the thread has exited by then) and
 *   pthread_create()/thread exit are small.
 *   Measured on the reference machine (2 vCPU EPYC VM), default run:
 *   0.20 s wall (/usr/bin/time, 3 runs: 0.20 0.20 0.20), perf stat:
 *   ~23 ms task-clock (~0.11 CPUs utilized): ~21 ms resolver CPU
 *   (~1.05 ms per thread), ~2.6 ms main-thread CPU (perf stat
 *   --no-inherit), ~40 context switches. perf trace -s: exactly 20
 *   poll() calls (one per lookup, the resolver is always done before the
 *   first timeout), 10.17 ms each, 203 ms in total = ~99 % of the wall
 *   time; 20 clock_nanosleep() of ~2.1 ms in the resolvers.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#define WL_NAME "pollwait"
#include "wl.h"

#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/prctl.h>
#include <time.h>

#define DEFAULT_LOOKUPS 20UL
#define MAX_LOOKUPS 100000UL
#define POLL_TIMEOUT_MS 10
#define NETWORK_NS (2 * 1000 * 1000L) /* 2 ms nanosleep */
#define RESOLVE_ITERS (1000UL * WL_ITERS_PER_US) /* ~1 ms CPU */

static const char usage[] =
	"usage: pollwait [LOOKUPS]\n"
	"  Each lookup starts a 'resolver' thread (2 ms sleep + 1 ms CPU) that\n"
	"  sets a flag without notifying; the main thread notices only when\n"
	"  its poll(NULL, 0, 10) times out. LOOKUPS defaults to 20 (~0.2 s).\n";

struct lookup {
	atomic_int done;
	unsigned long index;
};

void resolver_lookup(struct lookup *l);
void *resolver_thread(void *arg);
void wait_for_resolver(struct lookup *l);
void run_lookups(unsigned long lookups);

WL_STACK_FN void resolver_lookup(struct lookup *l)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = NETWORK_NS };

	/* The "network": sleep 2 ms (restart with the remainder on EINTR). */
	while (nanosleep(&ts, &ts) < 0) {
		if (errno != EINTR)
			wl_die("resolver: nanosleep");
	}
	/* Parse the "answer". */
	wl_burn(RESOLVE_ITERS);
	/* Done -- but nobody is told: no futex wake, no pipe write. */
	atomic_store_explicit(&l->done, 1, memory_order_release);
}

WL_STACK_FN void *resolver_thread(void *arg)
{
	int err;

	err = pthread_setname_np(pthread_self(), "resolver");
	if (err != 0) {
		errno = err;
		wl_die("pthread_setname_np");
	}
	resolver_lookup(arg);
	return NULL;
}

WL_STACK_FN void wait_for_resolver(struct lookup *l)
{
	while (!atomic_load_explicit(&l->done, memory_order_acquire)) {
		if (poll(NULL, 0, POLL_TIMEOUT_MS) < 0 && errno != EINTR)
			wl_die("poll");
	}
}

WL_STACK_FN void run_lookups(unsigned long lookups)
{
	struct lookup l;
	pthread_t tid;
	unsigned long i;
	int err;

	for (i = 0; i < lookups; i++) {
		atomic_init(&l.done, 0);
		l.index = i;
		err = pthread_create(&tid, NULL, resolver_thread, &l);
		if (err != 0) {
			errno = err;
			wl_die("pthread_create");
		}
		wait_for_resolver(&l);
		err = pthread_join(tid, NULL);
		if (err != 0) {
			errno = err;
			wl_die("pthread_join");
		}
	}
}

int main(int argc, char **argv)
{
	unsigned long lookups;

	wl_catch_signals();
	alarm(60);
	lookups = wl_parse_count(argc, argv, DEFAULT_LOOKUPS, MAX_LOOKUPS,
				 usage);
	if (prctl(PR_SET_NAME, "pollwait", 0, 0, 0) < 0)
		wl_die("prctl(PR_SET_NAME)");
	run_lookups(lookups);
	return 0;
}
