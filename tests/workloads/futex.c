/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * futex - lock contention on one pthread mutex.
 *
 * What it does:
 *   4 threads (names "locker-0" .. "locker-3", set by each thread with
 *   pthread_setname_np()) each loop 400 times:
 *       pthread_mutex_lock(&lock);
 *       critical_section();        ~100 µs of arithmetic, holding the lock
 *       pthread_mutex_unlock(&lock);
 *       outside_work();            ~30 µs of arithmetic, not holding it
 *   The mutex is a default (non-adaptive) glibc mutex, so a thread that
 *   finds it taken goes to sleep in futex(FUTEX_WAIT) right away and the
 *   unlocker wakes it with futex(FUTEX_WAKE). The main thread joins the
 *   four threads and checks the shared counter.
 *   The lock is held ~100/130 of each thread's cycle and there are 4
 *   threads, so the lock is saturated: the run is serialized on it and
 *   takes ~4 x 400 x 100 µs = ~160 ms plus hand-off latency.
 *
 *   usage: futex [LOOPS]          (default 400 per thread)
 *
 * Processes / threads (one process):
 *   futex      main thread (creates, then sleeps in pthread_join)
 *   locker-N   4 contending threads
 *
 * Functions that appear in stacks (built with frame pointers):
 *   locker_thread() -> critical_section() / outside_work()   (CPU)
 *   locker_thread() -> pthread_mutex_lock() -> futex wait     (sleeps)
 *   run_lockers()   main thread, sleeps in pthread_join
 *
 * Expected explanation shape (target: futex, or any locker-N):
 *   Each locker-N spends most of its time asleep in futex wait under
 *   pthread_mutex_lock(); each such sleep is explained by the futex wake
 *   from whichever locker held the lock, and that holder's
 *   critical_section() run (and the pthread_mutex_unlock() wakeup)
 *   becomes a child of the waiter's sleep; with 4 threads the chain
 *   recurses (the holder itself waited for a previous holder). The lock
 *   is the bottleneck: ~1 CPU used out of 2; critical_section() is ~75 %
 *   of all CPU time, outside_work() ~25 %. The glibc mutex is not fair:
 *   the unlocker often takes the lock again after its 30 us of
 *   outside_work() before the woken waiter gets to run, so a holder often
 *   runs several critical sections in a row, a waiter's sleep spans
 *   several of them (~0.8 ms on average), and a woken waiter often waits
 *   as runnable for a CPU.
 *   Measured on the reference machine (2 vCPU EPYC VM), default run:
 *   0.20-0.21 s wall (/usr/bin/time, 3 runs: 0.21 0.20 0.21), perf stat:
 *   ~0.22 s task-clock (~1.1 CPUs utilized), 300-1200 context switches
 *   (varies from run to run); perf trace -s: ~120 futex() calls per
 *   locker, ~0.8 ms average. Per locker, from /proc schedstat over 1 s of
 *   a longer run: running ~25 %, runnable ~30 %, asleep in futex wait
 *   ~45 % of the wall time (~430 voluntary and ~110 involuntary context
 *   switches per second).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#define WL_NAME "futex"
#include "wl.h"

#include <pthread.h>
#include <sys/prctl.h>

#define DEFAULT_LOOPS 400UL
#define MAX_LOOPS 100000000UL
#define NTHREADS 4
/* ~100 µs inside the lock, ~30 µs outside. */
#define INSIDE_ITERS (100UL * WL_ITERS_PER_US)
#define OUTSIDE_ITERS (30UL * WL_ITERS_PER_US)

static const char usage[] =
	"usage: futex [LOOPS]\n"
	"  4 threads (locker-N) each take a shared pthread mutex LOOPS times\n"
	"  (default 400), do ~100 us of work holding it and ~30 us outside\n"
	"  (about 0.2 s in total).\n";

struct locker {
	pthread_t tid;
	unsigned long index;
	unsigned long loops;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long shared_counter; /* protected by lock */

void critical_section(void);
void outside_work(void);
void *locker_thread(void *arg);
void run_lockers(struct locker *lk);

WL_STACK_FN void critical_section(void)
{
	wl_burn(INSIDE_ITERS);
	shared_counter++;
}

WL_STACK_FN void outside_work(void)
{
	wl_burn(OUTSIDE_ITERS);
}

WL_STACK_FN void *locker_thread(void *arg)
{
	struct locker *l = arg;
	unsigned long i;
	char name[16];
	int err;

	snprintf(name, sizeof(name), "locker-%lu", l->index);
	err = pthread_setname_np(pthread_self(), name);
	if (err != 0) {
		errno = err;
		wl_die("pthread_setname_np");
	}
	for (i = 0; i < l->loops; i++) {
		err = pthread_mutex_lock(&lock);
		if (err != 0) {
			errno = err;
			wl_die("pthread_mutex_lock");
		}
		critical_section();
		err = pthread_mutex_unlock(&lock);
		if (err != 0) {
			errno = err;
			wl_die("pthread_mutex_unlock");
		}
		outside_work();
	}
	return NULL;
}

WL_STACK_FN void run_lockers(struct locker *lk)
{
	int i, err;

	for (i = 0; i < NTHREADS; i++) {
		err = pthread_create(&lk[i].tid, NULL, locker_thread, &lk[i]);
		if (err != 0) {
			errno = err;
			wl_die("pthread_create");
		}
	}
	for (i = 0; i < NTHREADS; i++) {
		err = pthread_join(lk[i].tid, NULL);
		if (err != 0) {
			errno = err;
			wl_die("pthread_join");
		}
	}
}

int main(int argc, char **argv)
{
	struct locker lk[NTHREADS];
	unsigned long loops;
	int i;

	wl_catch_signals();
	alarm(60);
	loops = wl_parse_count(argc, argv, DEFAULT_LOOPS, MAX_LOOPS, usage);
	if (prctl(PR_SET_NAME, "futex", 0, 0, 0) < 0)
		wl_die("prctl(PR_SET_NAME)");
	memset(lk, 0, sizeof(lk));
	for (i = 0; i < NTHREADS; i++) {
		lk[i].index = (unsigned long)i;
		lk[i].loops = loops;
	}
	run_lockers(lk);
	if (shared_counter != loops * NTHREADS)
		wl_fail("lost updates: counter %lu, expected %lu",
			shared_counter, loops * NTHREADS);
	return 0;
}
