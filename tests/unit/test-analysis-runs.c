/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * model/analysis/runs.c: what a run was doing: its samples (each a sampler's
 * period), or its site's where it has none (estimated, inferred); files of
 * samples only.
 * The explanation table from synthetic traces with exact expected answers (times
 * in microseconds; the tables are worked out in the comments); analysis-check.h
 * checks every table for its invariants.
 */
#include "analysis-check.h"

/*
 * One thread in a loop: write (W), read (R) or poll (X), each sleep ended by
 * a timer (90 us) and 10 us runnable.  Stacks, leaf first: W = f_write in
 * f_loop (one call site), R = f_read in f_loop (another), X = f_poll in
 * f_other.  Only R1 has a sample (in f_work, called from f_loop).
 *   R0 [900,1000]   before W       site "f_loop, before f_write"     100
 *   R1 [1100,1300]  W -> R, sample                                   200 measured
 *   R2 [1400,1450]  R -> X         "between f_read and f_poll"        50
 *   R3 [1550,1600]  X -> R         "between f_poll and f_read"        50
 *   R4 [1700,1780]  R -> W         "f_loop (from f_read to f_write)"  80
 *   R5 [1880,1960]  W -> R         R1's site                          80
 *   R6 [2060,2100]  R -> X         R2's site                          40
 * R5's site has R1's sample: 280 us of runs, 200 measured in f_work, so f_work
 * owes 80 (estimated).  R0 and R4 have none at their own site; their common
 * frame f_loop has (runs at f_loop: R0 R1 R4 R5 = 460 us, 200 measured): 100
 * + 80 estimated in f_work.  R2, R3 and R6 have none: inferred, named by their
 * sites.  CPU 200, unsampled 400 (f_work 260 estimated, 140 inferred),
 * timeouts 6 x 90, scheduler 6 x 10 (each its idle CPU waking): total 1200,
 * all of it explained.
 */
static void test_sites(void)
{
	struct synth_opts o = { .kallsyms = SITES_KALLSYMS };
	struct synth *s = synth_new(&o);
	const uint64_t W[] = { 0xffffffff81000010ull, 0xffffffff81000210ull,
			       0xffffffff81000320ull };
	const uint64_t R[] = { 0xffffffff81000010ull, 0xffffffff81000110ull,
			       0xffffffff81000310ull };
	const uint64_t X[] = { 0xffffffff81000010ull, 0xffffffff81000510ull,
			       0xffffffff81000610ull };
	const uint64_t WORK[] = { 0xffffffff81000410ull, 0xffffffff81000330ull };
	const struct {
		uint64_t in, out;
		const uint64_t *stack;
	} runs[] = { { 900, 1000, W },	 { 1100, 1300, R }, { 1400, 1450, X }, { 1550, 1600, R },
		     { 1700, 1780, W },	 { 1880, 1960, R }, { 2060, 2100, X } };
	struct expect want[] = { { RSP_CAT_CPU, 200 },
				 { RSP_CAT_CPU_UNSAMPLED, 400 },
				 { RSP_CAT_TIMEOUT, 540 },
				 { RSP_CAT_SCHED, 60 } };
	struct rsp_trace *t;
	struct rsp_analysis *a;

	existing(s, 100, 100, "a");
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		if (i) /* woken by its timer 10 us before it runs */
			synth_waking(s, 0, US(runs[i].in - 10), 0, SYN_HARDIRQ, 100, "a", 0, false,
				     NULL, 0);
		synth_switch(s, 0, US(runs[i].in), 0, "swapper/0", 0, 100, "a");
		if (i == 1)
			synth_sample(s, 0, US(1200), 100, 100, WORK, 2);
		synth_switch_stack(s, 0, US(runs[i].out), 100, "a", S_INT, 0, "swapper/0",
				   runs[i].stack, 3);
	}
	t = open_synth_sym(s, true);
	a = t ? analyze(t, 100, 100) : NULL;
	if (a) {
		struct rsp_explanation e;
		uint64_t est, inf, ns;

		check_table(a, "sites", 1200, want, 4);
		ns = contributor_ns(a, RSP_CAT_CPU_UNSAMPLED, "a: [kernel] f_work", &est, &inf);
		CHECK(ns == NS(260) && est == NS(260) && !inf,
		      "f_work: 260 us estimated from the samples at the sites (got %.3f, %.3f)",
		      ns / 1e3, est / 1e3);
		ns = contributor_ns(a, RSP_CAT_CPU_UNSAMPLED, "a: between f_read and f_poll", &est,
				    &inf);
		CHECK(ns == NS(90) && inf == NS(90) && !est,
		      "a site without samples: inferred, named by its two calls (%.3f)", ns / 1e3);
		ns = contributor_ns(a, RSP_CAT_CPU_UNSAMPLED, "a: between f_poll and f_read", &est,
				    &inf);
		CHECK(ns == NS(50) && inf == NS(50), "the other way round is another site (%.3f)",
		      ns / 1e3);
		ns = contributor_ns(a, RSP_CAT_CPU, "a: [kernel] f_work", &est, &inf);
		CHECK(ns == NS(200) && !est && !inf, "the sampled run is measured (%.3f)", ns / 1e3);
		CHECK(has_contributor(a, RSP_CAT_SCHED, "a: runnable, its CPU waking from idle", NULL),
		      "the runnable tails: the idle CPU waking");
		rsp_analysis_explanation(a, &e);
		CHECK(e.explained_ns == e.total_ns, "all explained (%.3f of %.3f us)",
		      e.explained_ns / 1e3, e.total_ns / 1e3);
		{
			size_t n_est = 0, n_inf = 0;

			for (size_t i = 0; i < rsp_analysis_n_nodes(a); i++) {
				struct rsp_node_info ni;

				rsp_analysis_node(a, i, &ni);
				n_est += ni.kind == RSP_NODE_RUN && (ni.flags & RSP_NODE_ESTIMATED);
				n_inf += ni.kind == RSP_NODE_RUN && (ni.flags & RSP_NODE_INFERRED);
			}
			CHECK(n_est == 3 && n_inf == 3,
			      "3 run nodes estimated, 3 inferred (got %zu, %zu)", n_est, n_inf);
			n_est = n_inf = 0;
			for (size_t i = 0; i < rsp_analysis_n_nodes(a); i++) {
				struct rsp_node_info ni;
				struct rsp_run_part part[4];
				size_t np = rsp_analysis_run_parts(a, i, part, 4);

				rsp_analysis_node(a, i, &ni);
				if (ni.flags & RSP_NODE_ESTIMATED)
					n_est += np == 1 && part[0].share == 1.0 &&
						 part[0].time == US(1200);
				else if (ni.flags & RSP_NODE_INFERRED)
					n_inf += np > 0;
				else if (ni.kind == RSP_NODE_RUN)
					CHECK(np == 1 && part[0].share == 1.0 && part[0].time == US(1200),
					      "the sampled run is drawn as its sample, whole (fewer periods "
					      "than samples: the paper's rule)");
			}
			CHECK(n_est == 3 && !n_inf,
			      "the estimated runs are drawn as f_work's sample; the inferred ones, "
			      "with no frame in common, as nothing (%zu, %zu)",
			      n_est, n_inf);
		}
	}
	rsp_analysis_free(a);
	rsp_trace_free(t);
	synth_free(s);
}

/*
 * A sample stands for one sampler period (100 us here), the rest of its run goes
 * to its site's estimate (docs/ANALYSIS.md, "Its error").  Two runs of 250 us at
 * one site (between two calls of f_write from f_loop): R1 sampled in f_work and
 * f_other, R2 once, in f_work.  Measured: f_work 200, f_other 100; the rest, 200,
 * is what the site's samples say each is owed: f_work 500 * 2/3 - 200 = 133.3,
 * f_other 500 * 1/3 - 100 = 66.7.  So f_work 333.3 and f_other 166.7 of CPU, the
 * site's time by its samples; dividing each run among its samples (the paper's
 * rule) would say 375 and 125.
 */
static void test_sample_period(void)
{
	struct synth_opts o = { .kallsyms = SITES_KALLSYMS, .clock_period = NS(100) };
	struct synth *s = synth_new(&o);
	const uint64_t W[] = { 0xffffffff81000010ull, 0xffffffff81000210ull,
			       0xffffffff81000320ull };
	const uint64_t WORK[] = { 0xffffffff81000410ull, 0xffffffff81000330ull };
	const uint64_t OTHER[] = { 0xffffffff81000610ull, 0xffffffff81000340ull };
	struct rsp_trace *t;
	struct rsp_analysis *a;

	existing(s, 100, 100, "a");
	synth_switch(s, 0, US(900), 0, "swapper/0", 0, 100, "a");
	synth_switch_stack(s, 0, US(1000), 100, "a", S_INT, 0, "swapper/0", W, 3);
	synth_waking(s, 0, US(1100), 0, SYN_HARDIRQ, 100, "a", 0, false, NULL, 0);
	synth_switch(s, 0, US(1100), 0, "swapper/0", 0, 100, "a");
	synth_sample(s, 0, US(1150), 100, 100, WORK, 2);
	synth_sample(s, 0, US(1250), 100, 100, OTHER, 2);
	synth_switch_stack(s, 0, US(1350), 100, "a", S_INT, 0, "swapper/0", W, 3);
	synth_waking(s, 0, US(1450), 0, SYN_HARDIRQ, 100, "a", 0, false, NULL, 0);
	synth_switch(s, 0, US(1450), 0, "swapper/0", 0, 100, "a");
	synth_sample(s, 0, US(1500), 100, 100, WORK, 2);
	synth_switch_stack(s, 0, US(1700), 100, "a", S_INT, 0, "swapper/0", W, 3);
	t = open_synth_sym(s, true);
	a = t ? analyze(t, 100, 100) : NULL;
	if (a) {
		uint64_t est, inf, work, other;

		work = contributor_ns(a, RSP_CAT_CPU, "a: [kernel] f_work", &est, &inf);
		CHECK(work >= 333333 && work <= 333334 && est >= 133333 && est <= 133334,
		      "f_work: 200 us measured, 133.3 estimated (got %.3f, %.3f)", work / 1e3,
		      est / 1e3);
		other = contributor_ns(a, RSP_CAT_CPU, "a: [kernel] f_other", &est, &inf);
		CHECK(other >= 166666 && other <= 166667 && est >= 66666 && est <= 66667,
		      "f_other: 100 us measured, 66.7 estimated (got %.3f, %.3f)", other / 1e3,
		      est / 1e3);
		CHECK(work + other == NS(500), "the two runs' time, whole (%.3f)",
		      (work + other) / 1e3);
		for (size_t i = 0; i < rsp_analysis_n_nodes(a); i++) {
			struct rsp_node_info ni;
			struct rsp_run_part part[8];
			size_t np;
			double sum = 0, w = 0;

			rsp_analysis_node(a, i, &ni);
			if (ni.kind != RSP_NODE_RUN || ni.start_ns != US(1450))
				continue;
			np = rsp_analysis_run_parts(a, i, part, 8);
			for (size_t k = 0; k < np && k < 8; k++) {
				sum += part[k].share;
				w += part[k].stack == part[0].stack ? part[k].share : 0;
			}
			/* its sample 100 of 250, its rest 150: 2/3 f_work's, 1/3 f_other's */
			CHECK(np == 3 && part[0].time == US(1500) && part[0].share > 0.3999 &&
				      part[0].share < 0.4001 && sum > 0.9999 && sum < 1.0001 &&
				      w > 0.7999 && w < 0.8001,
			      "the view draws R2 as the table splits it (%zu parts, f_work %.4f)", np,
			      w);
		}
	}
	rsp_analysis_free(a);
	rsp_trace_free(t);
	synth_free(s);
}

/*
 * The same, c's one sample before its wakeup of p (at 1115): the part of c's
 * run after the wakeup [1120,1500] holds no sample of its own, so it is not
 * that sample's code (c's run divided among its samples would say so): it is
 * CPU without a sample, its place the stack c woke p from (p: 110 + 100
 * unsampled; c: 10 sampled, 380 not).
 */
static void test_callee_tail_unsampled(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	struct rsp_analysis *a;
	uint64_t work[2] = { 0x401000, 0x401100 }, wake[2] = { 0x402000, 0x401100 };

	existing(s, 100, 100, "p");
	existing(s, 200, 200, "c");
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, 100, "p");
	synth_waking(s, 0, US(1100), 100, 0, 200, "c", 0, false, NULL, 0);
	synth_switch(s, 0, US(1110), 100, "p", S_INT, 200, "c");
	synth_sample(s, 0, US(1115), 200, 200, work, 2);
	synth_waking(s, 0, US(1120), 200, 0, 100, "p", 0, false, wake, 2);
	synth_switch(s, 0, US(1500), 200, "c", S_INT, 100, "p");
	synth_switch(s, 0, US(1600), 100, "p", S_INT, 0, "swapper/0");
	t = open_synth(s);
	a = t ? analyze(t, 100, 100) : NULL;
	if (a) {
		struct rsp_explanation e;

		rsp_analysis_explanation(a, &e);
		CHECK(e.cat_ns[RSP_CAT_CPU] == NS(10) && e.cat_ns[RSP_CAT_CPU_UNSAMPLED] == NS(590),
		      "c's run after its wakeup is not its earlier sample's (cpu %.3f, unsampled %.3f us)",
		      e.cat_ns[RSP_CAT_CPU] / 1e3, e.cat_ns[RSP_CAT_CPU_UNSAMPLED] / 1e3);
	}
	rsp_analysis_free(a);
	rsp_trace_free(t);
	synth_free(s);
}

/*
 * A samples-only file (perf record -F 97 -g) of a parent that forks a child and
 * waits for it: the child has samples, the parent none (its few milliseconds
 * of CPU fell between two samples).  The parent still lived from its fork to
 * its exit, in a state not recorded: the analysis explains it (unaccounted,
 * and the child's estimated CPU), it does not refuse the target as having no
 * recorded activity.
 */
static void test_samples_only_unsampled_parent(void)
{
	struct synth_opts o = { .kallsyms = SITES_KALLSYMS,
				.samples_only = true,
				.clock_period = NS(1000) };
	struct synth *s = synth_new(&o);
	const uint64_t WORK[] = { 0xffffffff81000410ull };
	struct rsp_trace *t;
	struct rsp_analysis *a;

	synth_fork(s, US(0), 100, 1, 100, 1);
	synth_comm(s, US(0), 100, 100, "parent", false);
	synth_fork(s, US(100), 200, 100, 200, 100);
	synth_comm(s, US(100), 200, 200, "child", false);
	for (int i = 1; i <= 4; i++)
		synth_sample(s, 0, US(1000 * i), 200, 200, WORK, 1);
	synth_exit(s, US(5000), 200, 200);
	synth_exit(s, US(6000), 100, 100);
	t = open_synth_sym(s, true);
	a = t ? analyze(t, 100, 100) : NULL;
	CHECK(a != NULL, "a parent without samples is analysed");
	if (a) {
		struct rsp_explanation e;

		rsp_analysis_explanation(a, &e);
		CHECK(e.total_ns >= NS(6000) && e.total_ns < NS(6000) + NS(5000),
		      "its life, fork to exit, is in the total (%.3f ms)", e.total_ns / 1e6);
		CHECK(has_contributor(a, RSP_CAT_UNACCOUNTED, "parent: scheduler events not recorded",
				      NULL),
		      "the parent's time is unaccounted: scheduler events not recorded");
		rsp_analysis_free(a);
	}
	rsp_trace_free(t);
	synth_free(s);
}

/*
 * CPU samples only (perf record -g): app lives [0, 100000] us, sampled every
 * 1000 us of its CPU at 500 (the period is clipped at its birth, kept whole
 * after it: [0,1000]), 10000, 10900 (a late timer: its period overlaps the one
 * before and moves after it, [10000,11000]), 50000 and 99800.  CPU 5 x 1000
 * estimated (f_work 3, f_read 2), the other 95000 us unaccounted: nothing is
 * known about when it waited.  The same in frequency mode (1000 Hz).
 */
static void test_samples_only(bool freq)
{
	struct synth_opts o = { .kallsyms = SITES_KALLSYMS,
				.samples_only = true,
				.clock_period = freq ? 1000 : NS(1000),
				.clock_freq = freq };
	struct synth *s = synth_new(&o);
	const uint64_t WORK[] = { 0xffffffff81000410ull };
	const uint64_t READ[] = { 0xffffffff81000110ull };
	const struct {
		uint64_t at;
		const uint64_t *stack;
	} smp[] = { { 500, WORK }, { 10000, WORK }, { 10900, READ }, { 50000, WORK }, { 99800, READ } };
	struct expect want[] = { { RSP_CAT_CPU, 5000 }, { RSP_CAT_UNACCOUNTED, 95000 } };
	const char *mode = freq ? "1000 Hz" : "period 1 ms";
	struct rsp_trace *t;
	struct rsp_analysis *a;

	synth_fork(s, US(0), 100, 1, 100, 1);
	synth_comm(s, US(0), 100, 100, "app", false);
	for (size_t i = 0; i < sizeof(smp) / sizeof(smp[0]); i++)
		synth_sample(s, 0, US(smp[i].at), 100, 100, smp[i].stack, 1);
	synth_exit(s, US(100000), 100, 100);
	t = open_synth_sym(s, true);
	a = t ? analyze(t, 100, 100) : NULL;
	if (a) {
		struct rsp_trace_summary sum;
		struct rsp_explanation e;
		struct rsp_slice_info si;
		struct rsp_sample_info sa;
		struct rsp_folded *f = NULL;
		uint64_t est, inf, ns;
		bool said = false;
		size_t th = rsp_trace_find_thread(t, 100, US(50000));
		char err[256];

		check_table(a, mode, 100000, want, 2);
		ns = contributor_ns(a, RSP_CAT_CPU, "app: [kernel] f_work", &est, &inf);
		CHECK(ns == NS(3000) && est == ns && !inf, "%s: f_work 3 samples' worth, estimated (%.3f)",
		      mode, ns / 1e3);
		ns = contributor_ns(a, RSP_CAT_CPU, "app: [kernel] f_read", &est, &inf);
		CHECK(ns == NS(2000) && est == ns && !inf,
		      "%s: f_read 2, the late one moved, not cut (%.3f)", mode, ns / 1e3);
		CHECK(has_contributor(a, RSP_CAT_UNACCOUNTED, "app: scheduler events not recorded",
				      NULL),
		      "%s: the rest is unaccounted: scheduler events not recorded", mode);
		rsp_analysis_explanation(a, &e);
		CHECK(e.explained_ns == NS(5000), "%s: explained: the estimated CPU (%.3f)", mode,
		      e.explained_ns / 1e3);
		rsp_trace_get_summary(t, &sum);
		CHECK(!sum.have_sched, "%s: the summary says scheduling was not recorded", mode);
		for (size_t i = 0; i < rsp_trace_n_warnings(t); i++)
			said |= !strncmp(rsp_trace_warning(t, i), "CPU samples only", 16);
		CHECK(said && rsp_trace_n_warnings(t) == 1,
		      "%s: one warning line says what the file can answer (%zu)", mode,
		      rsp_trace_n_warnings(t));
		CHECK(th != RSP_NO_INDEX && rsp_thread_n_slices(t, th) == 1, "%s: one slice", mode);
		if (th != RSP_NO_INDEX && rsp_thread_n_slices(t, th) == 1) {
			rsp_thread_slice(t, th, 0, &si);
			CHECK(si.kind == RSP_SLICE_UNKNOWN && (si.flags & RSP_SLICE_NOT_RECORDED) &&
				      si.n_samples == 5,
			      "%s: the thread's state unknown, holding its 5 samples", mode);
			rsp_thread_sample(t, th, 0, &sa);
			CHECK(sa.period_ns == NS(1000), "%s: a sample stands for 1 ms (%llu ns)", mode,
			      (unsigned long long)sa.period_ns);
		}
		if (!rsp_folded_build(t, NULL, RSP_FOLDED_HOTCOLD, &(struct rsp_folded_opts){ 0 }, &f,
				      err, sizeof(err))) {
			const char *st;
			uint64_t v, work = 0, read = 0, other = 0;

			for (size_t i = 0; i < rsp_folded_n_lines(f); i++) {
				rsp_folded_line(f, i, &st, &v);
				if (!strcmp(st, "app;[on-cpu estimated];f_work"))
					work += v;
				else if (!strcmp(st, "app;[on-cpu estimated];f_read"))
					read += v;
				else
					other += v;
			}
			CHECK(work == 3000 && read == 2000 && !other,
			      "%s: hotcold: each sample's period, estimated, no off-CPU part "
			      "(%llu, %llu, %llu)",
			      mode, (unsigned long long)work, (unsigned long long)read,
			      (unsigned long long)other);
			rsp_folded_free(f);
		} else {
			CHECK(0, "folded: %s", err);
		}
	}
	rsp_analysis_free(a);
	rsp_trace_free(t);
	synth_free(s);
}

int main(int argc, char **argv)
{
	tap_init(argc, argv);
	TAP_RUN("sites", test_sites());
	TAP_RUN("sample_period", test_sample_period());
	TAP_RUN("callee_tail_unsampled", test_callee_tail_unsampled());
	TAP_RUN("samples_only/period", test_samples_only(false));
	TAP_RUN("samples_only_unsampled_parent", test_samples_only_unsampled_parent());
	TAP_RUN("samples_only/freq", test_samples_only(true));
	return tap_done();
}
