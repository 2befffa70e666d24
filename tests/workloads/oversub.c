/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * oversub - CPU oversubscription: 4 runnable threads per CPU.
 *
 * What it does:
 *   Starts 4 x (number of usable CPUs: the CPUs in the affinity mask, which
 *   normally is all online CPUs) threads (names "spin-0", "spin-1",
 *   ..., set by each thread with pthread_setname_np()). Each thread runs
 *   spin_work(): a fixed amount of arithmetic, 150 units of ~1 ms each
 *   (~150 ms of CPU when it has a CPU to itself). The main thread only
 *   joins them. The threads never block, so whenever one is not running
 *   it is runnable and waiting for a CPU (preempted by the scheduler).
 *   Because the thread count scales with the CPU count, the wall time is
 *   ~4 x 150 ms = ~0.6 s on any machine of the reference speed.
 *
 *   usage: oversub [UNITS]        (default 150 units of ~1 ms per thread)
 *
 * Processes / threads (one process):
 *   oversub   main thread (creates, then sleeps in pthread_join)
 *   spin-N    4 x nCPU worker threads, N = 0 .. 4*nCPU-1
 *
 * Functions that appear in stacks (built WITHOUT frame pointers,
 * -fomit-frame-pointer; needs DWARF/.eh_frame unwinding):
 *   spin_thread(), spin_work()   in spin-N (CPU only, never sleeps)
 *   run_spinners()               main thread (sleeps in pthread_join)
 *
 * Expected explanation shape (target: oversub):
 *   The main thread's join sleeps are explained by the spin-N threads'
 *   exits, and the spinners' time is dominated by scheduler overhead:
 *   each spinner is running only ~1/4 of its lifetime and runnable-but-
 *   not-running (waiting for a CPU) ~3/4 of it; it is switched out only
 *   involuntarily (preemption, sched_switch with prev_state == R), never
 *   by a voluntary sleep. Summed over the process, CPU time ~= nCPU x wall.
 *   Measured on the reference machine (2 vCPU EPYC VM, 8 spinners),
 *   default run: 0.62-0.64 s wall (/usr/bin/time, 3 runs: 0.62 0.63
 *   0.62), perf stat: ~1.26 s task-clock (~1.99 CPUs utilized), ~320
 *   context switches: ~310 preemptions (sched_switch prev_state=R) and 8
 *   exits, no voluntary sleep. perf sched latency: per spinner ~154 ms
 *   running and ~380-460 ms runnable (~39 preemptions, ~11 ms average
 *   wait for the CPU after each), i.e. ~25 % running, ~75 % runnable.
 *   With `taskset -c 0` (1 usable CPU, 4 spinners) it takes ~0.7 s.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#define WL_NAME "oversub"
#include "wl.h"

#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>

#define DEFAULT_UNITS 150UL
#define MAX_UNITS 1000000UL
#define THREADS_PER_CPU 4
#define MAX_THREADS 4096
/* One unit of spin work: ~1 ms of CPU. */
#define UNIT_ITERS (1000UL * WL_ITERS_PER_US)

static const char usage[] =
	"usage: oversub [UNITS]\n"
	"  Starts 4 threads per online CPU (spin-N); each does UNITS units of\n"
	"  ~1 ms of arithmetic (default 150, i.e. ~150 ms of CPU per thread,\n"
	"  ~0.6 s wall in total whatever the number of CPUs).\n";

struct spinner {
	pthread_t tid;
	unsigned long index;
	unsigned long units;
};

void spin_work(unsigned long units);
void *spin_thread(void *arg);
void run_spinners(struct spinner *sp, unsigned long nthreads);

/*
 * CPUs this process may run on: the affinity mask if it can be read (so
 * that `taskset -c 0 oversub` still has 4 spinners per usable CPU), else
 * the number of online CPUs.
 */
static long usable_cpus(void)
{
	cpu_set_t set;
	long n;

	if (sched_getaffinity(0, sizeof(set), &set) == 0) {
		n = CPU_COUNT(&set);
		if (n >= 1)
			return n;
	}
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n >= 1 ? n : 1;
}

WL_STACK_FN void spin_work(unsigned long units)
{
	unsigned long u;

	for (u = 0; u < units; u++)
		wl_burn(UNIT_ITERS);
}

WL_STACK_FN void *spin_thread(void *arg)
{
	struct spinner *s = arg;
	char name[16];
	int err;

	snprintf(name, sizeof(name), "spin-%lu", s->index);
	err = pthread_setname_np(pthread_self(), name);
	if (err != 0) {
		errno = err;
		wl_die("pthread_setname_np");
	}
	spin_work(s->units);
	return NULL;
}

WL_STACK_FN void run_spinners(struct spinner *sp, unsigned long nthreads)
{
	unsigned long i;
	int err;

	for (i = 0; i < nthreads; i++) {
		err = pthread_create(&sp[i].tid, NULL, spin_thread, &sp[i]);
		if (err != 0) {
			errno = err;
			wl_die("pthread_create");
		}
	}
	for (i = 0; i < nthreads; i++) {
		err = pthread_join(sp[i].tid, NULL);
		if (err != 0) {
			errno = err;
			wl_die("pthread_join");
		}
	}
}

int main(int argc, char **argv)
{
	unsigned long units, nthreads, i;
	struct spinner *sp;
	long ncpu;

	wl_catch_signals();
	alarm(60);
	units = wl_parse_count(argc, argv, DEFAULT_UNITS, MAX_UNITS, usage);
	if (prctl(PR_SET_NAME, "oversub", 0, 0, 0) < 0)
		wl_die("prctl(PR_SET_NAME)");
	ncpu = usable_cpus();
	nthreads = (unsigned long)ncpu * THREADS_PER_CPU;
	if (nthreads > MAX_THREADS)
		nthreads = MAX_THREADS;

	sp = calloc(nthreads, sizeof(*sp));
	if (!sp)
		wl_die("calloc");
	for (i = 0; i < nthreads; i++) {
		sp[i].index = i;
		sp[i].units = units;
	}
	run_spinners(sp, nthreads);
	free(sp);
	return 0;
}
