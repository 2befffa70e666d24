/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * model/analysis/explain.c: the explanation table, its categories' names, and
 * the summary (no tree kept) against the whole analysis.
 * The explanation table from synthetic traces with exact expected answers (times
 * in microseconds; the tables are worked out in the comments); analysis-check.h
 * checks every table for its invariants.
 */
#include "analysis-check.h"

/*
 * A calls B calls C calls A.  C had been asleep since 950, long before A
 * called B at 1101: only C's part after 1101 counts (cut).  A's sleep
 * [1101,1500] holds C [1101,1480]: C's cut sleep [1101,1201] holds B
 * (runnable [1101,1102], running [1102,1200]) then C runnable [1200,1201],
 * C running [1201,1480]; A runnable [1480,1500].  C's runnable [1200,1201]
 * is B, its waker, still on C's CPU: B's CPU.
 * CPU: A 201 + B 98 + B 1 + C 279 + A 100 = 679; scheduler 1 + 20 = 21; total 700.
 */
/*
 * A long ping-pong with preemptions, timeouts and runs with samples: many
 * more nodes than the summary's ring holds, so that nodes leave it while the
 * analysis runs (analyze() checks the summary against the whole analysis).
 */
static void test_long_summary(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	struct rsp_analysis *a;
	uint64_t ips[2] = { 0xffffffff81000000ull, 0x401000 };
	const size_t N = 3000;

	existing(s, 100, 100, "a");
	existing(s, 200, 200, "b");
	existing(s, 300, 300, "c");
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, 100, "a");
	for (size_t i = 0; i < N; i++) {
		uint64_t t0 = 1000 + i * 100;

		synth_sample(s, 0, US(t0 + 5), 100, 100, ips, 2);
		synth_waking(s, 0, US(t0 + 10), 100, 0, 200, "b", 0, false, NULL, 0);
		synth_switch(s, 0, US(t0 + 11), 100, "a", S_INT, 200, "b");
		if (i % 3 == 0) {
			/* b is preempted by c, which times out */
			synth_switch(s, 0, US(t0 + 30), 200, "b", 0, 300, "c");
			synth_switch(s, 0, US(t0 + 40), 300, "c", S_INT, 200, "b");
		}
		synth_waking(s, 0, US(t0 + 90), 200, 0, 100, "a", 0, false, NULL, 0);
		synth_switch(s, 0, US(t0 + 100), 200, "b", S_INT, 100, "a");
	}
	synth_switch(s, 0, US(1000 + N * 100 + 50), 100, "a", S_INT, 0, "swapper/0");
	t = open_synth(s);
	a = t ? analyze(t, 100, 100) : NULL;
	if (a)
		CHECK(rsp_analysis_n_nodes(a) > 4 * 1024, "%zu nodes: four times the ring",
		      rsp_analysis_n_nodes(a));
	rsp_analysis_free(a);
	rsp_trace_free(t);
	synth_free(s);
}

static void test_names(void)
{
	for (int c = 0; c < RSP_CAT__COUNT; c++)
		CHECK(rsp_category_name(c)[0] && rsp_category_key(c)[0] && rsp_category_advice(c)[0],
		      "category %d has a name, key and advice", c);
}

int main(int argc, char **argv)
{
	tap_init(argc, argv);
	TAP_RUN("names", test_names());
	TAP_RUN("long_summary", test_long_summary());
	return tap_done();
}
