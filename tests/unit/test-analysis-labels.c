/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * model/analysis/labels.c: the labels that say what each leaf was, and
 * that never mix between processes.
 * The explanation table from synthetic traces with exact expected answers (times
 * in microseconds; the tables are worked out in the comments); analysis-check.h
 * checks every table for its invariants.
 */
#include "analysis-check.h"

/*
 * Preempted by a process of the same name (two compilers): the label says it
 * is another one, not the process itself.  t (600) runs [1000,1300], t (700)
 * preempts it [1100,1200]: 600's CPU 200, involuntary 100.  Total 300.
 */
static void test_preempted_by_namesake(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	struct rsp_analysis *a;
	struct expect want[] = { { RSP_CAT_CPU_UNSAMPLED, 200 }, { RSP_CAT_INVOLUNTARY, 100 } };

	existing(s, 600, 600, "cc1");
	existing(s, 700, 700, "cc1");
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, 600, "cc1");
	synth_switch(s, 0, US(1100), 600, "cc1", 0, 700, "cc1");
	synth_switch(s, 0, US(1200), 700, "cc1", S_INT, 600, "cc1");
	synth_switch(s, 0, US(1300), 600, "cc1", S_INT, 0, "swapper/0");
	t = open_synth(s);
	a = t ? analyze(t, 600, 100) : NULL;
	if (a) {
		check_table(a, "preempted by a namesake", 300, want, 2);
		CHECK(has_contributor(a, RSP_CAT_INVOLUNTARY, "cc1 preempted by another cc1 process",
				      NULL),
		      "the preemptor is named as another process of that name");
	}
	rsp_analysis_free(a);
	rsp_trace_free(t);
	synth_free(s);
}

/*
 * The recorder's own threads (issue 45): app (600) runs [1000,1300] on CPU 0,
 * preempted [1100,1150] by rsp-writer (tid 901 of the recorder, pid 900);
 * waits from 1300 until its timer at 1400, while rsp-record (900) holds CPU 0
 * [1350,1450]; runs [1450,1500].  CPU 100 + 150 + 50, involuntary 50, timeout
 * 100, runnable 50: 500.  In a file rsp record wrote (@by_rsp: its version
 * feature) the preemption and the wait for the CPU name "the recorder (rsp
 * record)", and the 100 us are its cost (recorder_ns); in any other file the
 * threads are named as they are, and no cost is said.
 */
static void test_recorder(bool by_rsp)
{
	struct synth_opts o = { .version = by_rsp ? "rsp 0.1" : NULL };
	struct synth *s = synth_new(&o);
	struct rsp_trace *t;
	struct rsp_analysis *a;
	struct expect want[] = { { RSP_CAT_CPU_UNSAMPLED, 300 },
				 { RSP_CAT_INVOLUNTARY, 50 },
				 { RSP_CAT_TIMEOUT, 100 },
				 { RSP_CAT_SCHED, 50 } };
	const char *what = by_rsp ? "a file rsp record wrote" : "a file of another recorder";

	existing(s, 600, 600, "app");
	existing(s, 900, 900, "rsp-record");
	existing(s, 900, 901, "rsp-writer");
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, 600, "app");
	synth_switch(s, 0, US(1100), 600, "app", 0, 901, "rsp-writer");
	synth_switch(s, 0, US(1150), 901, "rsp-writer", S_INT, 600, "app");
	synth_switch(s, 0, US(1300), 600, "app", S_INT, 0, "swapper/0");
	synth_switch(s, 0, US(1350), 0, "swapper/0", 0, 900, "rsp-record");
	synth_waking(s, 0, US(1400), 900, SYN_HARDIRQ, 600, "app", 0, false, NULL, 0);
	synth_switch(s, 0, US(1450), 900, "rsp-record", S_INT, 600, "app");
	synth_switch(s, 0, US(1500), 600, "app", S_INT, 0, "swapper/0");
	t = open_synth(s);
	a = t ? analyze(t, 600, 100) : NULL;
	if (a) {
		struct rsp_explanation e;

		check_table(a, what, 500, want, 4);
		rsp_analysis_explanation(a, &e);
		CHECK(has_contributor(a, RSP_CAT_INVOLUNTARY,
				      by_rsp ? "app preempted by the recorder (rsp record)" :
					       "app preempted by rsp-writer",
				      NULL),
		      "%s: the preemption names %s", what,
		      by_rsp ? "the recorder" : "the thread");
		CHECK(has_contributor(a, RSP_CAT_SCHED,
				      by_rsp ? "app: runnable while the recorder (rsp record) ran" :
					       "app: runnable while rsp-record ran",
				      NULL),
		      "%s: the wait for the CPU names %s", what,
		      by_rsp ? "the recorder" : "the thread");
		CHECK(e.recorder_ns == NS(by_rsp ? 100 : 0), "%s: the recorder's cost %.3f us", what,
		      e.recorder_ns / 1e3);
	}
	rsp_analysis_free(a);
	rsp_trace_free(t);
	synth_free(s);
}

/*
 * Labels of different stacks in different processes never mix, even where
 * (stack, pid) pairs hash alike: a and b each run with one CPU sample whose
 * kernel stack names a different function; their pids are chosen so that the
 * two pairs collide in a 32-bit multiplicative hash (the label cache once kept
 * only such a hash as its key, and b's samples were labelled as a's).
 */
static const char names_kallsyms[] = "ffffffff81000000 T __schedule\n"
				     "ffffffff81000100 T f_one\n"
				     "ffffffff81000200 T f_two\n"
				     "ffffffff81000300 T _etext\n";

static struct synth *two_samplers(int pa, int pb)
{
	struct synth_opts o = { .kallsyms = names_kallsyms };
	struct synth *s = synth_new(&o);
	const uint64_t one[] = { 0xffffffff81000110ull }, two[] = { 0xffffffff81000210ull };
	const uint64_t sched[] = { 0xffffffff81000010ull };
	const int targets[] = { pa, pb };

	synth_targets(s, targets, 2);
	existing(s, pa, pa, "a");
	existing(s, pb, pb, "b");
	synth_switch_stack(s, 0, US(1000), 0, "swapper/0", 0, pa, "a", sched, 1);
	synth_switch_stack(s, 1, US(1000), 0, "swapper/1", 0, pb, "b", sched, 1);
	synth_sample(s, 0, US(1050), pa, pa, one, 1);
	synth_sample(s, 1, US(1050), pb, pb, two, 1);
	synth_switch_stack(s, 0, US(1100), pa, "a", S_INT, 0, "swapper/0", sched, 1);
	synth_switch_stack(s, 1, US(1100), pb, "b", S_INT, 0, "swapper/1", sched, 1);
	return s;
}

/* the stack of @pid's first sample */
static uint32_t sample_stack_of(struct rsp_trace *t, int pid)
{
	struct rsp_sample_info si;
	struct rsp_thread_info ti;
	size_t th = rsp_trace_find_thread(t, pid, US(1050));

	if (th == RSP_NO_INDEX)
		return 0;
	rsp_trace_thread(t, th, &ti);
	if (ti.n_samples < 1)
		return 0;
	rsp_thread_sample(t, th, 0, &si);
	return si.stack;
}

static void test_label_collision(void)
{
	const uint32_t A = 2654435761u, B = 40503u;
	uint32_t binv = B, s1, s2;
	int pa = 0, pb = 0;
	struct synth *s = two_samplers(100, 200);
	struct rsp_trace *t = open_synth_sym(s, true);

	if (!t) {
		synth_free(s);
		return;
	}
	s1 = sample_stack_of(t, 100);
	s2 = sample_stack_of(t, 200);
	rsp_trace_free(t);
	synth_free(s);
	CHECK(s1 && s2 && s1 != s2, "two samples, two stacks (%u, %u)", s1, s2);
	/* B^-1 mod 2^32 (Newton), then pids a, b with s1*A ^ a*B == s2*A ^ b*B */
	for (int i = 0; i < 5; i++)
		binv *= 2 - B * binv;
	for (uint32_t a = 300; a < 2000000 && !pb; a++) {
		uint32_t b = ((s1 * A) ^ (s2 * A) ^ (a * B)) * binv;

		if (b > 300 && b < 4000000 && b != a) {
			pa = (int)a;
			pb = (int)b;
		}
	}
	CHECK(pb, "pids %d and %d hash alike with the stacks", pa, pb);
	if (!pb)
		return;
	s = two_samplers(pa, pb);
	t = open_synth_sym(s, true);
	if (t) {
		struct rsp_analysis *a = NULL;
		const int pids[] = { pa, pb };
		char err[256];

		CHECK(sample_stack_of(t, pa) == s1 && sample_stack_of(t, pb) == s2,
		      "the same stack ids with those pids");
		CHECK(rsp_analyze(t, pids, 2, 0, NULL, &a, err, sizeof(err)) == 0, "analyze: %s",
		      a ? "" : err);
		if (a) {
			CHECK(has_contributor(a, RSP_CAT_CPU, "a: ", "f_one") &&
				      has_contributor(a, RSP_CAT_CPU, "b: ", "f_two"),
			      "a's CPU time in f_one, b's in f_two");
			CHECK(!has_contributor(a, RSP_CAT_CPU, "b: ", "f_one"),
			      "b's samples not labelled with a's stack");
			rsp_analysis_free(a);
		}
		rsp_trace_free(t);
	}
	synth_free(s);
}

int main(int argc, char **argv)
{
	tap_init(argc, argv);
	TAP_RUN("preempted_by_namesake", test_preempted_by_namesake());
	TAP_RUN("label_collision", test_label_collision());
	TAP_RUN("recorder/rsp", test_recorder(true));
	TAP_RUN("recorder/other", test_recorder(false));
	return tap_done();
}
