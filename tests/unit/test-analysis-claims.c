/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * model/analysis/claims.c: the time of threads the target started that is
 * already counted inside someone's sleep, and the sorted union of claims.
 * The explanation table from synthetic traces with exact expected answers (times
 * in microseconds; the tables are worked out in the comments); analysis-check.h
 * checks every table for its invariants.
 */
#include "analysis-check.h"

static int by_start(const void *x, const void *y)
{
	const struct interval *a = x, *b = y;

	return a->s < b->s ? -1 : a->s > b->s ? 1 : a->e < b->e ? -1 : a->e > b->e;
}

/*
 * Claims come in runs already in order; they are merged.  Against qsort, for
 * 1 to 100 runs of random lengths (ties included): the same starts in order,
 * the same intervals.
 */
static void test_sort_claims(void)
{
	unsigned seed = 12345;
	int bad = 0;

	for (int runs = 1; runs <= 100 && !bad; runs += runs < 10 ? 1 : 9) {
		size_t n = 0, cap = 20000;
		struct interval *v = malloc(cap * sizeof(*v)), *w = malloc(cap * sizeof(*w));

		for (int r = 0; r < runs && v && w; r++) {
			size_t len = 1 + (seed = seed * 1103515245 + 12345) % (cap / (size_t)runs);
			uint64_t t = (seed = seed * 1103515245 + 12345) % 1000;

			for (size_t i = 0; i < len && n < cap; i++, n++) {
				t += (seed = seed * 1103515245 + 12345) % 3; /* equal starts too */
				v[n] = (struct interval){ t, t + (seed >> 16) % 50 };
			}
		}
		if (!v || !w) {
			free(v);
			free(w);
			CHECK(0, "memory for the claims");
			return;
		}
		memcpy(w, v, n * sizeof(*v));
		analysis_sort_claims(v, n);
		qsort(w, n, sizeof(*w), by_start);
		for (size_t i = 1; i < n; i++)
			bad += v[i - 1].s > v[i].s;
		qsort(v, n, sizeof(*v), by_start); /* the same multiset */
		bad += memcmp(v, w, n * sizeof(*v)) != 0;
		CHECK(!bad, "%d runs of claims (%zu) merged in order, none lost or doubled", runs, n);
		free(v);
		free(w);
	}
}

/*
 * A forked thread waiting for a CPU that a target's path holds waits for the
 * target, not in parallel with it.  a forks the server b at 1010 (b starts
 * up on CPU 1 [1020,1030], waits for a request); a's request wakes b at
 * 1100 and a waits; b serves it on CPU 1 [1100,1400], forking c at 1150,
 * which waits on CPU 1 while b (walked in a's wait) runs; b answers and exits
 * at 1400, c runs [1400,1450].  a's path 500; b's path: its start-up 10;
 * c's path: its run 50, not its wait [1150,1400] (before: 250 more).  Total
 * 560.
 */
static void test_wait_for_path_cpu(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	struct rsp_analysis *a;
	struct expect want[] = { { RSP_CAT_CPU_UNSAMPLED, 560 } };

	existing(s, 100, 100, "a");
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, 100, "a");
	synth_fork(s, US(1010), 200, 100, 200, 100);
	synth_fork_tp(s, 0, US(1010), 100, 200, "b");
	synth_wakeup_new(s, 0, US(1010), 100, 200, 1);
	synth_switch(s, 1, US(1020), 0, "swapper/1", 0, 200, "b");
	synth_switch(s, 1, US(1030), 200, "b", S_INT, 0, "swapper/1");
	synth_waking(s, 0, US(1100), 100, 0, 200, "b", 1, false, NULL, 0);
	synth_switch(s, 0, US(1100), 100, "a", S_INT, 0, "swapper/0");
	synth_switch(s, 1, US(1100), 0, "swapper/1", 0, 200, "b");
	synth_fork(s, US(1150), 300, 200, 300, 200);
	synth_fork_tp(s, 1, US(1150), 200, 300, "c");
	synth_wakeup_new(s, 1, US(1150), 200, 300, 1);
	synth_waking(s, 1, US(1400), 200, 0, 100, "a", 0, false, NULL, 0);
	synth_exit(s, US(1400), 200, 200);
	synth_switch(s, 1, US(1400), 200, "b", S_DEAD, 300, "c");
	synth_switch(s, 0, US(1400), 0, "swapper/0", 0, 100, "a");
	synth_exit(s, US(1450), 300, 300);
	synth_switch(s, 1, US(1450), 300, "c", S_DEAD, 0, "swapper/1");
	synth_exit(s, US(1500), 100, 100);
	synth_switch(s, 0, US(1500), 100, "a", S_DEAD, 0, "swapper/0");
	t = open_synth(s);
	a = t ? analyze(t, 100, 100) : NULL;
	if (a) {
		struct rsp_explanation e;

		check_table(a, "a wait for a CPU a target's path held", 560, want, 1);
		rsp_analysis_explanation(a, &e);
		CHECK(!has_contributor(a, RSP_CAT_SCHED, "c: runnable while b ran", NULL),
		      "c's wait while b served a's request is not counted");
	}
	rsp_analysis_free(a);
	rsp_trace_free(t);
	synth_free(s);
}

/*
 * A child that holds its parent's CPU.  p forks c at 1100; c, woken onto
 * p's CPU, preempts p at 1110 and runs until it exits at 1400; p runs again
 * [1400,1500].  p waited for what it had just started: c's run is inside
 * p's wait, not parallel work counted a second time.  p: CPU 110 + 100, c's
 * run 290 in p's time.  c's birth, runnable [1100,1110] while p ran, was a
 * wait for the target's path, not counted either: c has no path of its own.
 * Total 500 (before: p preempted 290 and c's path 300, 800; then 510).
 */
static void test_fork_holds_cpu(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	struct rsp_analysis *a;
	struct expect want[] = { { RSP_CAT_CPU_UNSAMPLED, 500 } };

	existing(s, 100, 100, "p");
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, 100, "p");
	synth_fork(s, US(1100), 200, 100, 200, 100);
	synth_fork_tp(s, 0, US(1100), 100, 200, "c");
	synth_wakeup_new(s, 0, US(1100), 100, 200, 0);
	synth_switch(s, 0, US(1110), 100, "p", 0, 200, "c");
	synth_exit(s, US(1400), 200, 200);
	synth_switch(s, 0, US(1400), 200, "c", S_DEAD, 100, "p");
	synth_exit(s, US(1500), 100, 100);
	synth_switch(s, 0, US(1500), 100, "p", S_DEAD, 0, "swapper/0");
	t = open_synth(s);
	a = t ? analyze(t, 100, 100) : NULL;
	if (a) {
		struct rsp_explanation e;

		check_table(a, "a child that preempts its parent runs in the parent's wait", 500,
			    want, 1);
		rsp_analysis_explanation(a, &e);
		CHECK(e.cat_ns[RSP_CAT_INVOLUNTARY] == 0, "p's wait is c's run, not preemption");
		CHECK(e.n_paths == 1, "c's birth, waiting while p ran: no path of its own (%zu)",
		      e.n_paths);
	}
	rsp_analysis_free(a);
	rsp_trace_free(t);
	synth_free(s);
}

int main(int argc, char **argv)
{
	tap_init(argc, argv);
	TAP_RUN("sort_claims", test_sort_claims());
	TAP_RUN("wait_for_path_cpu", test_wait_for_path_cpu());
	TAP_RUN("fork_holds_cpu", test_fork_holds_cpu());
	return tap_done();
}
