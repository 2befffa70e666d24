/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A target thread waiting on its own helper (model/analysis/analysis.c,
 * helper_call(); docs/ANALYSIS.md "Waiting on one's own helper"): a daemon's
 * main thread hands a write to its fsync thread and waits for it.  The wait
 * is a call into the helper's work (its CPU, its disk), and the window it
 * walked is cut from the helper's own control path, so nothing is counted
 * twice.  And the boundaries: threads of one code path taking turns, or a
 * helper another thread handed the work, stay control paths of their own.
 * Times in microseconds.
 */
#include "analysis-check.h"

static const char helpers_kallsyms[] = "ffffffff81000000 T __schedule\n"
                                       "ffffffff81000100 T f_queue\n"
                                       "ffffffff81000200 T f_done\n"
                                       "ffffffff81000300 T f_loop\n"
                                       "ffffffff81000400 T _etext\n";
/* the helper's wait for work; the main thread's wait for its completion */
static const uint64_t QUEUE[] = {0xffffffff81000010ull, 0xffffffff81000110ull,
                                 0xffffffff81000310ull};
static const uint64_t DONE[] = {0xffffffff81000010ull, 0xffffffff81000210ull,
                                0xffffffff81000310ull};

enum helper_case {
	HELPER_OWN,	   /* main hands sync the write: a call */
	HELPER_SAME_PLACE, /* both wait at one place (a lock's waiters): other paths */
	HELPER_OTHERS,	   /* another thread of the process handed sync the work */
};

/*
 * Process 200: main (tid 200, CPU 1) and its fsync thread sync (tid 201, CPU
 * 2); other (pid 400) ends the trace at 1500.  sync runs [700,710] and waits
 * for work in f_queue.  main runs from 700 (sampled at 750), wakes sync at
 * 1000 (HELPER_OTHERS: io, tid 202, does, on CPU 3) and waits for it from
 * 1010 in f_done (HELPER_SAME_PLACE: in f_queue).  sync runs [1005,1050]
 * (sampled at 1020), inserts and issues a write at 1040 and 1045 and waits
 * for it in D; the disk completes at 1450, its softirq wakes sync at 1452;
 * sync runs [1455,1480], wakes main at 1470 and waits in f_queue again.
 * main runs from 1475 to the end.
 */
static struct rsp_trace *helper_trace(enum helper_case c)
{
	struct synth_opts o = {.kallsyms = helpers_kallsyms};
	struct synth *s = synth_new(&o);
	struct rsp_trace *t;
	int waker = c == HELPER_OTHERS ? 202 : 200;

	existing(s, 200, 200, "main");
	existing(s, 200, 201, "sync");
	existing(s, 400, 400, "other");
	if (c == HELPER_OTHERS) {
		existing(s, 200, 202, "io");
		synth_switch(s, 3, US(990), 0, "swapper/3", 0, 202, "io");
	}
	synth_switch(s, 1, US(700), 0, "swapper/1", 0, 200, "main");
	synth_switch(s, 2, US(700), 0, "swapper/2", 0, 201, "sync");
	synth_switch_stack(s, 2, US(710), 201, "sync", S_INT, 0, "swapper/2", QUEUE, 3);
	synth_sample(s, 1, US(750), 200, 200, DONE + 1, 1);
	synth_waking(s, waker == 200 ? 1 : 3, US(1000), waker, 0, 201, "sync", 2, false, NULL, 0);
	if (c == HELPER_OTHERS)
		synth_switch_stack(s, 3, US(1002), 202, "io", S_INT, 0, "swapper/3", QUEUE, 3);
	synth_switch(s, 2, US(1005), 0, "swapper/2", 0, 201, "sync");
	synth_switch_stack(s, 1, US(1010), 200, "main", S_INT, 0, "swapper/1",
	                   c == HELPER_SAME_PLACE ? QUEUE : DONE, 3);
	synth_sample(s, 2, US(1020), 200, 201, QUEUE + 1, 1);
	synth_block(s, SE_BLK_INSERT, 2, US(1040), 201, 0, 0x800001, 4096, 8, "WS");
	synth_block(s, SE_BLK_ISSUE, 2, US(1045), 201, 0, 0x800001, 4096, 8, "WS");
	synth_switch(s, 2, US(1050), 201, "sync", S_UNINT, 0, "swapper/2");
	synth_irq(s, SE_IRQ_ENTRY, 2, US(1449), 25, "virtio0-requests");
	synth_irq(s, SE_IRQ_EXIT, 2, US(1449), 25, NULL);
	synth_softirq(s, SE_SOFTIRQ_ENTRY, 2, US(1449), 0, 4);
	synth_block(s, SE_BLK_COMPLETE, 2, US(1450), 0, SYN_SOFTIRQ, 0x800001, 4096, 8, "WS");
	synth_waking(s, 2, US(1452), 0, SYN_SOFTIRQ, 201, "sync", 2, false, NULL, 0);
	synth_softirq(s, SE_SOFTIRQ_EXIT, 2, US(1453), 0, 4);
	synth_switch(s, 2, US(1455), 0, "swapper/2", 0, 201, "sync");
	synth_waking(s, 2, US(1470), 201, 0, 200, "main", 1, false, NULL, 0);
	synth_switch(s, 1, US(1475), 0, "swapper/1", 0, 200, "main");
	synth_switch_stack(s, 2, US(1480), 201, "sync", S_INT, 0, "swapper/2", QUEUE, 3);
	synth_switch(s, 0, US(1500), 0, "swapper/0", 0, 400, "other");
	t = open_synth_sym(s, true);
	synth_free(s);
	return t;
}

/* the pseudostacks: sync's disk and CPU under main's wait, in main's path */
static void check_under_main(struct rsp_trace *t, struct rsp_analysis *a)
{
	struct rsp_folded *f = NULL;
	uint64_t disk = 0, cpu = 0, v;
	const char *st;
	char err[256];

	if (rsp_folded_build(t, a, RSP_FOLDED_PSEUDO, &(struct rsp_folded_opts){0}, &f, err,
	                     sizeof(err))) {
		CHECK(0, "folded: %s", err);
		return;
	}
	for (size_t i = 0; i < rsp_folded_n_lines(f); i++) {
		rsp_folded_line(f, i, &st, &v);
		if (getenv("HELPERS_DEBUG"))
			printf("# %s %llu\n", st, (unsigned long long)v);
		if (strncmp(st, "main;main: sleep in ", 20) || !(st = strstr(st, ";sync: ")))
			continue;
		if (strstr(st, ";[disk] "))
			disk += v;
		else if (!strchr(st + 1, ';'))
			cpu += v;
	}
	CHECK(disk == 400 && cpu == 55,
	      "under main's wait: sync's disk %llu us (400), its CPU %llu us (40 + 15)",
	      (unsigned long long)disk, (unsigned long long)cpu);
	rsp_folded_free(f);
}

/*
 * main's wait [1010,1470] is a call into sync's work: its CPU [1010,1050] 40
 * (sampled) and [1455,1470] 15, its write's disk [1050,1450] 400, kernel
 * [1450,1452] 2, its runnable end [1452,1455] 3; then main's runnable end
 * [1470,1475] 5.  main: CPU [700,1010] 310 and [1475,1500] 25: 800 in all.
 * sync's own path is its span less that window: CPU [700,710] 10, its wait
 * for work [710,1000] (woken by main: another control path) 290, runnable
 * [1000,1005] 5, CPU [1005,1010] 5 and [1470,1480] 10, its last wait, which
 * nothing ended, [1480,1500] 20: 340.  Total 1140 (1600 before: main's wait
 * read "waiting on another control path" 460, sync's path counted the same
 * 460 again).
 */
static void test_helper_call(void)
{
	struct rsp_trace *t = helper_trace(HELPER_OWN);
	struct rsp_analysis *a = t ? analyze(t, 200, 100) : NULL;
	struct expect want[] = {{RSP_CAT_CPU, 355},  {RSP_CAT_CPU_UNSAMPLED, 60},
	                        {RSP_CAT_DISK, 400}, {RSP_CAT_KERNEL, 2},
	                        {RSP_CAT_SCHED, 13}, {RSP_CAT_OTHER_PATH, 290},
	                        {RSP_CAT_UNACCOUNTED, 20}};
	struct rsp_explanation e;

	if (a) {
		check_table(a, "a main thread waiting on its fsync thread", 1140, want, 7);
		rsp_analysis_explanation(a, &e);
		CHECK(e.wall_ns == NS(800), "wall is the threads' span: %.3f us", e.wall_ns / 1e3);
		CHECK(rsp_analysis_n_paths(a) == 2, "two control paths: %zu",
		      rsp_analysis_n_paths(a));
		check_under_main(t, a);
	}
	rsp_analysis_free(a);
	rsp_trace_free(t);
}

/*
 * The boundaries: main waits at sync's place (threads of one code path taking
 * turns, as a lock's waiters), or io handed sync its work (main did not):
 * main's wait stays another control path, 460, and sync's path keeps its
 * whole span.  main 800: CPU 310 + 25, other path 460, runnable 5.  sync 800:
 * CPU 10 + 45 (sampled) + 25, its wait for work 290 (other path, woken by a
 * thread of the target), runnable 5 + 3, disk 400, kernel 2, unaccounted 20.
 * HELPER_OTHERS adds io's path 800: its unknown start to 990 unaccounted, CPU
 * [990,1002] 12, its last wait 498 unaccounted (nothing ended it).
 */
static void test_not_a_helper(enum helper_case c)
{
	struct rsp_trace *t = helper_trace(c);
	struct rsp_analysis *a = t ? analyze(t, 200, 100) : NULL;
	struct expect want[] = {{RSP_CAT_CPU, 355},
	                        {RSP_CAT_CPU_UNSAMPLED, c == HELPER_OTHERS ? 72 : 60},
	                        {RSP_CAT_DISK, 400},
	                        {RSP_CAT_KERNEL, 2},
	                        {RSP_CAT_SCHED, 13},
	                        {RSP_CAT_OTHER_PATH, 750},
	                        {RSP_CAT_UNACCOUNTED, c == HELPER_OTHERS ? 808 : 20}};
	const char *what = c == HELPER_SAME_PLACE ? "waiting at the helper's own place" :
	                                            "a helper another thread handed the work";

	if (a)
		check_table(a, what, c == HELPER_OTHERS ? 2400 : 1600, want, 7);
	rsp_analysis_free(a);
	rsp_trace_free(t);
}

/*
 * A thread created for a job and joined (issue 41's "create + join is a call"):
 * main (pid 200) runs from 1000 on CPU 0 (sampled at 1050), creates w at 1100
 * and waits to join it from 1110; w runs [1105,1400] on CPU 1 (sampled at
 * 1200) and exits, its exit waking main at 1399; main runs [1405,1500].  main's
 * wait [1110,1399] is a call into w's run: CPU 289; main: CPU 110 + 289,
 * runnable 6, its last run 95: 500.  w's own path, less that window: its wait
 * for its first CPU [1100,1105] 5, CPU [1105,1110] 5 and [1399,1400] 1: 11.
 */
static void test_create_join(void)
{
	struct synth_opts o = {.kallsyms = helpers_kallsyms};
	struct synth *s = synth_new(&o);
	struct rsp_trace *t;
	struct rsp_analysis *a;
	struct expect want[] = {{RSP_CAT_CPU, 405}, {RSP_CAT_CPU_UNSAMPLED, 95},
	                        {RSP_CAT_SCHED, 11}};

	existing(s, 200, 200, "main");
	existing(s, 400, 400, "other");
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, 200, "main");
	synth_sample(s, 0, US(1050), 200, 200, DONE + 1, 1);
	synth_fork(s, US(1100), 200, 200, 201, 200);
	synth_fork_tp(s, 0, US(1100), 200, 201, "w");
	synth_wakeup_new(s, 0, US(1100), 200, 201, 1);
	synth_switch(s, 1, US(1105), 0, "swapper/1", 0, 201, "w");
	synth_switch_stack(s, 0, US(1110), 200, "main", S_INT, 0, "swapper/0", DONE, 3);
	synth_sample(s, 1, US(1200), 200, 201, QUEUE + 1, 1);
	synth_exit(s, US(1399), 200, 201);
	synth_waking(s, 1, US(1399), 201, 0, 200, "main", 0, false, NULL, 0);
	synth_switch(s, 1, US(1400), 201, "w", S_DEAD, 0, "swapper/1");
	synth_switch(s, 0, US(1405), 0, "swapper/0", 0, 200, "main");
	synth_switch(s, 2, US(1500), 0, "swapper/2", 0, 400, "other");
	t = open_synth_sym(s, true);
	synth_free(s);
	a = t ? analyze(t, 200, 100) : NULL;
	if (a)
		check_table(a, "a thread created and joined", 511, want, 3);
	rsp_analysis_free(a);
	rsp_trace_free(t);
}

int main(void)
{
	TAP_RUN("helper_call", test_helper_call());
	TAP_RUN("not_a_helper/same_place", test_not_a_helper(HELPER_SAME_PLACE));
	TAP_RUN("not_a_helper/others", test_not_a_helper(HELPER_OTHERS));
	TAP_RUN("create_join", test_create_join());
	return tap_done();
}
