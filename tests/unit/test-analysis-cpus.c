/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * model/analysis/cpus.c: who held the CPU while a thread was runnable or
 * preempted (another thread, an idle CPU waking, the walked path itself).
 * The explanation table from synthetic traces with exact expected answers (times
 * in microseconds; the tables are worked out in the comments); analysis-check.h
 * checks every table for its invariants.
 */
#include "analysis-check.h"

/*
 * Preemption.  t is preempted at 1200 by u, which a timer had woken: an
 * involuntary sleep of 100, naming u.  Then t wakes v and hands it the CPU
 * (a synchronous wakeup on the same CPU): v's run [1500,1600] is inside t's
 * time, not preemption.  CPU 200 + 200 + 100 + 100 = 600; involuntary 100.
 */
static void test_preemption(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	struct rsp_analysis *a;
	struct expect want[] = { { RSP_CAT_CPU_UNSAMPLED, 600 }, { RSP_CAT_INVOLUNTARY, 100 } };

	existing(s, 600, 600, "t");
	existing(s, 700, 700, "u");
	existing(s, 800, 800, "v");
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, 600, "t");
	synth_waking(s, 0, US(1190), 0, SYN_HARDIRQ, 700, "u", 0, false, NULL, 0);
	synth_switch(s, 0, US(1200), 600, "t", 0, 700, "u");
	synth_switch(s, 0, US(1300), 700, "u", S_INT, 600, "t");
	synth_waking(s, 0, US(1490), 600, 0, 800, "v", 0, false, NULL, 0);
	synth_switch(s, 0, US(1500), 600, "t", 0, 800, "v");
	synth_switch(s, 0, US(1600), 800, "v", S_INT, 600, "t");
	synth_switch(s, 0, US(1700), 600, "t", S_INT, 0, "swapper/0");
	t = open_synth(s);
	a = t ? analyze(t, 600, 100) : NULL;
	if (a) {
		check_table(a, "preemption", 700, want, 2);
		CHECK(has_contributor(a, RSP_CAT_INVOLUNTARY, "t preempted by u", NULL),
		      "the involuntary sleep names its preemptor");
		CHECK(has_contributor(a, RSP_CAT_CPU_UNSAMPLED, "v", NULL),
		      "the hand-off puts v's run in t's time");
	}
	rsp_analysis_free(a);
	rsp_trace_free(t);
	synth_free(s);
}

/*
 * Preempted, then kept off the CPU by others: t (600) runs [1000,1400] on
 * CPU 0; u (700), woken by an interrupt, preempts it at 1100 and sleeps at
 * 1150; w (900), already runnable, runs [1150,1300], then t again.  The
 * involuntary 200 us name who held t's CPU: u for 50, w for 150 (u
 * preempted t; w was only chosen before it after).  Total 400.
 */
static void test_preempted_then_others(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	struct rsp_analysis *a;
	struct expect want[] = { { RSP_CAT_CPU_UNSAMPLED, 200 }, { RSP_CAT_INVOLUNTARY, 200 } };

	existing(s, 600, 600, "t");
	existing(s, 700, 700, "u");
	existing(s, 900, 900, "w");
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, 600, "t");
	synth_waking(s, 0, US(1090), 0, SYN_HARDIRQ, 700, "u", 0, false, NULL, 0);
	synth_switch(s, 0, US(1100), 600, "t", 0, 700, "u");
	synth_switch(s, 0, US(1150), 700, "u", S_INT, 900, "w");
	synth_switch(s, 0, US(1300), 900, "w", 0, 600, "t");
	synth_switch(s, 0, US(1400), 600, "t", S_INT, 0, "swapper/0");
	t = open_synth(s);
	a = t ? analyze(t, 600, 100) : NULL;
	if (a) {
		check_table(a, "preempted, then others ran", 400, want, 2);
		CHECK(contributor_ns(a, RSP_CAT_INVOLUNTARY, "t preempted by u", NULL, NULL) ==
				      US(50) - US(0) &&
			      contributor_ns(a, RSP_CAT_INVOLUNTARY, "t preempted, while w ran", NULL,
					     NULL) ==
				      US(150) - US(0),
		      "the preemption names u for its time, w for the rest");
	}
	rsp_analysis_free(a);
	rsp_trace_free(t);
	synth_free(s);
}

/*
 * Two children of the target sharing one CPU (a build's two compiles, the
 * other CPU taken): p (100) forks a (200) and b (300), then waits for b
 * [1100,1700].  a runs [1100,1300] (a sample in f_work) while b, born, waits
 * for the CPU; b runs [1300,1500] (a sample in f_other), preempted by a
 * [1500,1600]; b runs [1600,1700] and exits, waking p, which runs to 1750.
 * a's runs are the job's work the target waits for as much: its CPU, one
 * layer up, not "b runnable while a ran" nor "b preempted by a" (before: 300
 * of CPU were called contention, and the job's CPU read 400 of 700).
 */
static void test_preempted_by_sibling(void)
{
	struct synth_opts o = { .kallsyms = SITES_KALLSYMS };
	struct synth *s = synth_new(&o);
	const uint64_t WORK[] = { 0xffffffff81000410ull, 0xffffffff81000330ull };
	const uint64_t OTHER[] = { 0xffffffff81000610ull, 0xffffffff81000340ull };
	struct rsp_trace *t;
	struct rsp_analysis *a;

	existing(s, 100, 100, "p");
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, 100, "p");
	synth_fork(s, US(1010), 200, 100, 200, 100);
	synth_fork_tp(s, 0, US(1010), 100, 200, "cc");
	synth_wakeup_new(s, 0, US(1010), 100, 200, 0);
	synth_fork(s, US(1020), 300, 100, 300, 100);
	synth_fork_tp(s, 0, US(1020), 100, 300, "cc");
	synth_wakeup_new(s, 0, US(1020), 100, 300, 0);
	synth_switch(s, 0, US(1100), 100, "p", S_INT, 200, "cc");
	synth_sample(s, 0, US(1200), 200, 200, WORK, 2);
	synth_switch(s, 0, US(1300), 200, "cc", 0, 300, "cc");
	synth_sample(s, 0, US(1400), 300, 300, OTHER, 2);
	synth_switch(s, 0, US(1500), 300, "cc", 0, 200, "cc");
	synth_exit(s, US(1600), 200, 200);
	synth_switch(s, 0, US(1600), 200, "cc", S_DEAD, 300, "cc");
	synth_exit(s, US(1700), 300, 300);
	synth_waking(s, 0, US(1700), 300, 0, 100, "p", 0, false, NULL, 0);
	synth_switch(s, 0, US(1700), 300, "cc", S_DEAD, 100, "p");
	synth_exit(s, US(1750), 100, 100);
	synth_switch(s, 0, US(1750), 100, "p", S_DEAD, 0, "swapper/0");
	t = open_synth_sym(s, true);
	a = t ? analyze(t, 100, 100) : NULL;
	if (a) {
		struct rsp_explanation e;
		uint64_t work = contributor_ns(a, RSP_CAT_CPU, "p: [kernel] f_work", NULL, NULL);

		rsp_analysis_explanation(a, &e);
		CHECK(e.cat_ns[RSP_CAT_INVOLUNTARY] == 0 && e.cat_ns[RSP_CAT_SCHED] == 0,
		      "no contention: the CPU held by the job's own work (involuntary %.3f, "
		      "scheduler %.3f)",
		      e.cat_ns[RSP_CAT_INVOLUNTARY] / 1e3, e.cat_ns[RSP_CAT_SCHED] / 1e3);
		CHECK(work == NS(200), "a's sampled run, f_work, is in p's wait (%.3f)", work / 1e3);
		CHECK(e.total_ns == NS(750), "counted once: total 750 (%.3f)", e.total_ns / 1e3);
		CHECK(e.cat_ns[RSP_CAT_CPU] + e.cat_ns[RSP_CAT_CPU_UNSAMPLED] == NS(750),
		      "every nanosecond the job's CPU (%.3f)",
		      (e.cat_ns[RSP_CAT_CPU] + e.cat_ns[RSP_CAT_CPU_UNSAMPLED]) / 1e3);
	}
	rsp_analysis_free(a);
	rsp_trace_free(t);
	synth_free(s);
}

/*
 * a is woken at 1090 for CPU 0, where c runs until 1095: a is runnable while
 * c ran [1090,1095], then runs.  Its next wait (woken at 1290, runs at 1300)
 * has CPU 0 idle: [1290,1300] is the idle CPU waking.  a: CPU 100 + 100 +
 * 100, timeouts 90 + 90 (each from its sleep's start), scheduler 5 + 10:
 * total 485 from 1000 to 1485... c's run is not a's.
 */
static void test_sched_split(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	struct rsp_analysis *a;
	struct expect want[] = { { RSP_CAT_CPU_UNSAMPLED, 290 },
				 { RSP_CAT_TIMEOUT, 185 },
				 { RSP_CAT_SCHED, 15 } };

	existing(s, 100, 100, "a");
	existing(s, 300, 300, "c");
	synth_switch(s, 0, US(900), 0, "swapper/0", 0, 100, "a");
	synth_switch(s, 0, US(1000), 100, "a", S_INT, 300, "c");
	synth_waking(s, 0, US(1090), 0, SYN_HARDIRQ, 100, "a", 0, false, NULL, 0);
	synth_switch(s, 0, US(1095), 300, "c", S_INT, 100, "a");
	synth_switch(s, 0, US(1195), 100, "a", S_INT, 0, "swapper/0");
	synth_waking(s, 0, US(1290), 0, SYN_HARDIRQ, 100, "a", 0, false, NULL, 0);
	synth_switch(s, 0, US(1300), 0, "swapper/0", 0, 100, "a");
	synth_switch(s, 0, US(1390), 100, "a", S_INT, 0, "swapper/0");
	t = open_synth(s);
	a = t ? analyze(t, 100, 100) : NULL;
	if (a) {
		uint64_t est, inf;

		check_table(a, "runnable while another thread ran", 490, want, 3);
		CHECK(contributor_ns(a, RSP_CAT_SCHED, "a: runnable while c ran", &est, &inf) ==
			      NS(5),
		      "a waited 5 us while c ran on its CPU");
		CHECK(contributor_ns(a, RSP_CAT_SCHED, "a: runnable, its CPU waking from idle", &est,
				     &inf) == NS(10),
		      "and 10 us for its idle CPU to wake");
	}
	rsp_analysis_free(a);
	rsp_trace_free(t);
	synth_free(s);
}

/*
 * A callee that keeps the CPU its caller was woken to.  p forks c at 1005
 * (c starts up on CPU 1 [1010,1050], then waits).  p wakes c at 1100 onto
 * CPU 0 and waits at 1120; c runs there [1120,1300], answering at 1250.  p
 * waits for its CPU [1250,1300] while c, its waker, finishes: that run of
 * c's is why p waited, c's CPU one layer up (not the scheduler's), counted
 * there once.  p: CPU 120 + 100, c's call 130 + 50; c's path: its start-up,
 * runnable 5 and CPU 40.  Total 445 (before: c's [1250,1300] counted again in
 * its path, 495).
 */
static void test_callee_holds_cpu(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	struct rsp_analysis *a;
	struct expect want[] = { { RSP_CAT_CPU_UNSAMPLED, 440 }, { RSP_CAT_SCHED, 5 } };

	existing(s, 100, 100, "p");
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, 100, "p");
	synth_fork(s, US(1005), 200, 100, 200, 100);
	synth_comm(s, US(1005), 200, 200, "c", false);
	synth_switch(s, 1, US(1010), 0, "swapper/1", 0, 200, "c");
	synth_switch(s, 1, US(1050), 200, "c", S_INT, 0, "swapper/1");
	synth_waking(s, 0, US(1100), 100, 0, 200, "c", 0, false, NULL, 0);
	synth_switch(s, 0, US(1120), 100, "p", S_INT, 200, "c");
	synth_waking(s, 0, US(1250), 200, 0, 100, "p", 0, false, NULL, 0);
	synth_exit(s, US(1300), 200, 200);
	synth_switch(s, 0, US(1300), 200, "c", S_DEAD, 100, "p");
	synth_exit(s, US(1400), 100, 100);
	synth_switch(s, 0, US(1400), 100, "p", S_DEAD, 0, "swapper/0");
	t = open_synth(s);
	a = t ? analyze(t, 100, 100) : NULL;
	if (a) {
		struct rsp_explanation e;

		check_table(a, "a callee holding the CPU its caller was woken to", 445, want, 2);
		CHECK(!has_contributor(a, RSP_CAT_SCHED, "p: runnable while c ran", NULL) &&
			      has_contributor(a, RSP_CAT_CPU_UNSAMPLED, "c", NULL),
		      "p's wait for its CPU is c's CPU, not the scheduler's");
		rsp_analysis_explanation(a, &e);
		if (e.n_paths == 2) {
			rsp_analysis_path_explanation(a, 1, &e);
			CHECK(e.total_ns == NS(45), "c's own path: its start-up only (%.3f us)",
			      e.total_ns / 1e3);
		}
	}
	rsp_analysis_free(a);
	rsp_trace_free(t);
	synth_free(s);
}

/*
 * A callee that wakes its caller early and works on, holding the caller's CPU
 * (the other CPU busy): truthrpc's backend under load, whose recv of the
 * request wakes the server blocked in recv on the same socket.  p wakes c at
 * 1100 onto CPU 0 and waits at 1110; c runs [1110,1500] (its two samples in
 * its work), waking p at 1120 without an answer; p runs [1500,1510], waits
 * again, and c, woken by a timer at 1600, answers at 1700 from CPU 1.  c's
 * CPU [1120,1500] is the work p waited for, measured (its samples), not "p:
 * runnable while c ran".  p: CPU 110 + 10 + 100; c: [1110,1500] 390 CPU
 * (sampled); p's second wait: c's timeout [1510,1600] and its run
 * [1600,1700]; p runnable [1700,1710].  Total 810, p's span.
 */
static void test_callee_woke_early(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	struct rsp_analysis *a;
	uint64_t work[2] = { 0x401000, 0x401100 };

	existing(s, 100, 100, "p");
	existing(s, 200, 200, "c");
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, 100, "p");
	synth_waking(s, 0, US(1100), 100, 0, 200, "c", 0, false, NULL, 0);
	synth_switch(s, 0, US(1110), 100, "p", S_INT, 200, "c");
	synth_waking(s, 0, US(1120), 200, 0, 100, "p", 0, false, NULL, 0);
	synth_sample(s, 0, US(1200), 200, 200, work, 2);
	synth_sample(s, 0, US(1400), 200, 200, work, 2);
	synth_switch(s, 0, US(1500), 200, "c", S_INT, 100, "p");
	synth_switch(s, 0, US(1510), 100, "p", S_INT, 0, "swapper/0");
	synth_waking(s, 1, US(1600), 0, SYN_HARDIRQ, 200, "c", 1, false, NULL, 0);
	synth_switch(s, 1, US(1600), 0, "swapper/1", 0, 200, "c");
	synth_waking(s, 1, US(1700), 200, 0, 100, "p", 0, false, NULL, 0);
	synth_switch(s, 1, US(1700), 200, "c", S_INT, 0, "swapper/1");
	synth_switch(s, 0, US(1710), 0, "swapper/0", 0, 100, "p");
	synth_switch(s, 0, US(1810), 100, "p", S_INT, 0, "swapper/0");
	t = open_synth(s);
	a = t ? analyze(t, 100, 100) : NULL;
	if (a) {
		struct rsp_explanation e;

		rsp_analysis_explanation(a, &e);
		CHECK(e.cat_ns[RSP_CAT_CPU] == NS(390),
		      "c's work after its early wakeup is its measured CPU (%.3f us)",
		      e.cat_ns[RSP_CAT_CPU] / 1e3);
		CHECK(!has_contributor(a, RSP_CAT_SCHED, "runnable while c ran", NULL),
		      "not p's wait for the scheduler");
		CHECK(e.total_ns == NS(810), "counted once: total %.3f us = p's span",
		      e.total_ns / 1e3);
	}
	rsp_analysis_free(a);
	rsp_trace_free(t);
	synth_free(s);
}

int main(int argc, char **argv)
{
	tap_init(argc, argv);
	TAP_RUN("preemption", test_preemption());
	TAP_RUN("preempted_then_others", test_preempted_then_others());
	TAP_RUN("preempted_by_sibling", test_preempted_by_sibling());
	TAP_RUN("sched_split", test_sched_split());
	TAP_RUN("callee_holds_cpu", test_callee_holds_cpu());
	TAP_RUN("callee_woke_early", test_callee_woke_early());
	return tap_done();
}
