/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * truthfork - a known-answer parallel fork of two CPU-bound children (like
 * `make -j2` running two compilers), measured by the program itself (see
 * truth.h and README.md, "Ground truth side files").
 *
 * What it does:
 *   The main process (comm "truthfork", the target) runs parent_plan()
 *   (~2 ms of CPU), forks two children (comm "tfork-cc", no exec) and
 *   waits for both in wait_children() (waitpid(-1) until both have
 *   exited). Each child runs child_compile() N times (default 30), each
 *   call ~5 ms of CPU, so ~150 ms of CPU per child, then exits 0. After
 *   both are reaped the parent runs parent_link() (~10 ms of CPU). On
 *   failure or SIGALRM/SIGTERM/SIGINT/SIGHUP the parent kills and reaps
 *   the children; they have PR_SET_PDEATHSIG(SIGTERM). No files.
 *
 *   usage: truthfork [CHUNKS]     (default 30 chunks of ~5 ms per child)
 *
 * Ground truth ($RSP_TRUTH set): three lines, the two children's at their
 * exit, the parent's last (after reaping both):
 *   role "child" comm tfork-cc (twice, different pids): functions
 *     child_compile; no waits
 *   role "parent" comm truthfork: functions parent_plan, parent_link;
 *     waits wait_children (each waitpid(), count 2)
 *
 * Processes / threads:
 *   truthfork   the parent (the target)
 *   tfork-cc    two children, forked by the parent
 *
 * Functions that appear in stacks (built WITHOUT frame pointers,
 * -fomit-frame-pointer; needs DWARF/.eh_frame unwinding):
 *   run_build(), parent_plan(), start_child(), wait_children(),
 *     parent_link()                                   in truthfork
 *   child_main(), child_compile()                     in tfork-cc
 *   CPU leaves: parent_plan, parent_link, child_compile. Sleep:
 *   wait_children() -> wait4().
 *
 * Expected explanation shape (target: truthfork):
 *   Genuinely parallel work: the parent's wait_children() sleep is
 *   explained by both children, each running child_compile() on its own
 *   CPU at the same time, so the total time of the control paths (~2 x
 *   150 ms of children + the parent's ~12 ms) exceeds the wall time
 *   (~165 ms).
 *   Measured on the reference machine (2 vCPU EPYC VM):
 *   the VM was never idle while this was measured (another session's
 *   fuzzer kept about one CPU busy, load average 2.6-5): default run
 *   0.32-0.78 s wall (/usr/bin/time, 3 runs without RSP_TRUTH: 0.43 0.58
 *   0.59 at load ~2.6, 0.56 0.59 0.66 at ~3; with it: 0.44 0.33 0.37 at
 *   ~2.6, 0.35 0.32 0.36 at ~5; 10 more runs at ~3: 0.35-0.42); with both
 *   CPUs free it should be ~0.19 s.
 *   Side file of those runs, per call: child_compile 5.5-6.2 ms (165-187
 *   ms per child; one outlier run 9.5 ms per call), parent_plan 2.2-2.7
 *   ms, parent_link 10.3-12.5 ms; wait_children 2 waits of 290-420 ms in
 *   total; parent CPU ~21 ms (fork is expensive on this PVM guest).
 *   perf stat: ~400 ms task-clock (0.99 CPUs utilized while a competitor
 *   held the other CPU), ~125 context switches.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#define WL_NAME "truthfork"
#include "wl.h"
#include "truth.h"

#include <sys/wait.h>

#define DEFAULT_CHUNKS 30UL
#define MAX_CHUNKS 100000UL
#define NCHILDREN 2
#define PLAN_ITERS (2000UL * WL_ITERS_PER_US)
#define CHUNK_ITERS (5000UL * WL_ITERS_PER_US)
#define LINK_ITERS (10000UL * WL_ITERS_PER_US)

static const char usage[] =
	"usage: truthfork [CHUNKS]\n"
	"  The parent (truthfork) plans (~2 ms CPU), forks two children\n"
	"  (tfork-cc) that each run CHUNKS x ~5 ms of CPU (default 30, i.e.\n"
	"  ~150 ms each, in parallel), waits for both, then links (~10 ms).\n"
	"  With RSP_TRUTH=FILE each process appends one JSON line of its own\n"
	"  measurements to FILE.\n";

static pid_t parent_pid, child_pid[NCHILDREN];
static struct truth tr; /* this process's measurements */

void child_compile(void);
void child_main(unsigned long chunks);
void parent_plan(void);
void start_child(int slot, unsigned long chunks);
void wait_children(void);
void parent_link(void);
void run_build(unsigned long chunks);

/* ---- child ------------------------------------------------------------ */

WL_STACK_FN void child_compile(void)
{
	wl_burn(CHUNK_ITERS);
}

WL_STACK_FN void child_main(unsigned long chunks)
{
	unsigned long i;
	uint64_t t0;
	int fn_compile;

	truth_begin(&tr, "child");
	fn_compile = truth_fn(&tr, "child_compile");
	for (i = 0; i < chunks; i++) {
		t0 = truth_cpu();
		child_compile();
		truth_cpu_end(&tr, fn_compile, t0);
	}
	truth_finish(&tr);
}

/* ---- parent ----------------------------------------------------------- */

static void parent_on_die(void)
{
	int i;

	for (i = 0; i < NCHILDREN; i++) {
		if (child_pid[i] > 0) {
			kill(child_pid[i], SIGKILL);
			while (waitpid(child_pid[i], NULL, 0) < 0 &&
			       errno == EINTR)
				;
			child_pid[i] = 0;
		}
	}
}

WL_STACK_FN void parent_plan(void)
{
	wl_burn(PLAN_ITERS);
}

WL_STACK_FN void parent_link(void)
{
	wl_burn(LINK_ITERS);
}

WL_STACK_FN void start_child(int slot, unsigned long chunks)
{
	pid_t pid = fork();

	if (pid < 0)
		wl_die("fork");
	if (pid == 0) {
		wl_on_die = NULL;
		alarm(60); /* not inherited across fork */
		if (prctl(PR_SET_NAME, "tfork-cc", 0, 0, 0) < 0)
			wl_die("prctl(PR_SET_NAME) in child");
		if (prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0) < 0)
			wl_die("prctl(PR_SET_PDEATHSIG) in child");
		if (getppid() != parent_pid)
			wl_fail("child: parent died before the child started");
		child_main(chunks);
		_exit(0);
	}
	child_pid[slot] = pid;
}

/* Wait until every child has exited; fail unless each exited with 0. */
WL_STACK_FN void wait_children(void)
{
	int left = NCHILDREN, status, slot;
	uint64_t t0;
	pid_t pid;

	while (left > 0) {
		t0 = truth_mono();
		do
			pid = waitpid(-1, &status, 0);
		while (pid < 0 && errno == EINTR);
		if (pid < 0)
			wl_die("waitpid");
		truth_wait_end(&tr, TRUTH_WAIT_CHILDREN, t0);
		for (slot = 0; slot < NCHILDREN; slot++)
			if (child_pid[slot] == pid)
				break;
		if (slot == NCHILDREN)
			wl_fail("waitpid returned unknown child %ld",
				(long)pid);
		child_pid[slot] = 0;
		left--;
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			wl_fail("child (pid %ld) failed (wait status 0x%x)",
				(long)pid, status);
	}
}

WL_STACK_FN void run_build(unsigned long chunks)
{
	int fn_plan, fn_link, i;
	uint64_t t0;

	fn_plan = truth_fn(&tr, "parent_plan");
	fn_link = truth_fn(&tr, "parent_link");
	truth_measures(&tr, TRUTH_WAIT_CHILDREN);

	t0 = truth_cpu();
	parent_plan();
	truth_cpu_end(&tr, fn_plan, t0);
	for (i = 0; i < NCHILDREN; i++)
		start_child(i, chunks);
	wait_children();
	t0 = truth_cpu();
	parent_link();
	truth_cpu_end(&tr, fn_link, t0);
}

int main(int argc, char **argv)
{
	unsigned long chunks;

	wl_catch_signals();
	alarm(60);
	chunks = wl_parse_count(argc, argv, DEFAULT_CHUNKS, MAX_CHUNKS, usage);
	if (prctl(PR_SET_NAME, "truthfork", 0, 0, 0) < 0)
		wl_die("prctl(PR_SET_NAME)");
	truth_open();
	truth_begin(&tr, "parent");
	parent_pid = getpid();
	wl_on_die = parent_on_die;
	run_build(chunks);
	wl_on_die = NULL;
	truth_finish(&tr);
	return 0;
}
