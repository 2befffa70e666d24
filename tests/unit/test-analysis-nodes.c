/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * model/analysis/nodes.c: the analysis' nodes and its search of a thread's
 * slices.
 * The explanation table from synthetic traces with exact expected answers (times
 * in microseconds; the tables are worked out in the comments); analysis-check.h
 * checks every table for its invariants.
 */
#include "analysis-check.h"

/*
 * analysis_first_slice() gallops from its last answer for the thread: asked
 * in any order, at slice bounds and between them, it gives what a plain
 * search of the slices gives.
 */
static void test_first_slice_gallop(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	struct rsp_analysis an;
	uint64_t seed = 7;
	int bad = 0, asked = 0;

	existing(s, 100, 100, "a");
	existing(s, 200, 200, "b");
	for (int i = 0; i < 300; i++) {
		uint64_t t0 = US(1000) + (uint64_t)i * 1000000;

		synth_switch(s, 0, t0, 0, "swapper/0", 0, 100, "a");
		synth_switch(s, 0, t0 + 1000 * (1 + i % 7), 100, "a", S_INT, 200, "b");
		synth_switch(s, 0, t0 + 500000, 200, "b", S_INT, 0, "swapper/0");
	}
	t = open_synth(s);
	CHECK(t != NULL, "a trace of 300 runs each for a and b opens");
	if (!t) {
		synth_free(s);
		return;
	}
	memset(&an, 0, sizeof(an));
	an.t = t;
	an.slice_hint = calloc(t->threads.n, sizeof(*an.slice_hint));
	for (int q = 0; q < 20000 && an.slice_hint; q++) {
		uint32_t th = (uint32_t)((seed = seed * 6364136223846793005ull + 1) >> 33) %
			      (uint32_t)t->threads.n;
		const struct thread *x = &t->threads.v[th];
		uint64_t a, r = (seed = seed * 6364136223846793005ull + 1) >> 20;
		size_t want = 0, got;

		if (x->slices.n && r % 3 == 0) /* at a slice's bound */
			a = r % 2 ? x->slices.v[r % x->slices.n].end : x->slices.v[r % x->slices.n].start;
		else if (q % 50 < 40 && x->slices.n) /* near the last answer: the walk's way */
			a = x->slices.v[an.slice_hint[th] < x->slices.n ? an.slice_hint[th] : 0].start +
			    r % 3000000 - 1000000;
		else
			a = US(900) + r % 400000000000ull;
		while (want < x->slices.n && x->slices.v[want].end <= a)
			want++;
		got = analysis_first_slice(&an, th, a);
		bad += got != want;
		asked++;
	}
	CHECK(an.slice_hint && !bad, "%d of %d first slices as a plain search gives them", bad, asked);
	free(an.slice_hint);
	rsp_trace_free(t);
	synth_free(s);
}

int main(int argc, char **argv)
{
	tap_init(argc, argv);
	TAP_RUN("first_slice_gallop", test_first_slice_gallop());
	return tap_done();
}
