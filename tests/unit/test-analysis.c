/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The explanation table from synthetic traces with exact expected answers,
 * one mechanism each (times in microseconds; the tables are worked out in
 * the comments).  Every table is also checked for the invariants: no
 * category negative, categories summing to the total exactly.
 */
#include "analysis/analysis-private.h"
#include "rsp-analysis.h"
#include "rsp-folded.h"
#include "synth-perf.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

#define US(x) (1000000000ull + (uint64_t)(x) * 1000ull)
#define NS(us) ((uint64_t)(us) * 1000ull)
#define S_INT 1
#define S_UNINT 2
#define S_DEAD 0x10

struct expect {
	enum rsp_category cat;
	uint64_t us;
};

/* @symbols: names from the kallsyms the stream carries */
static struct rsp_trace *open_synth_sym(struct synth *s, bool symbols)
{
	struct rsp_trace_opts o = { .no_symbols = !symbols };
	struct rsp_trace *t = NULL;
	char err[256];
	size_t len;
	const void *buf = synth_finish(s, &len);

	if (rsp_trace_open_mem(buf, len, &o, &t, err, sizeof(err))) {
		CHECK(0, "open: %s", err);
		return NULL;
	}
	return t;
}

static struct rsp_trace *open_synth(struct synth *s)
{
	return open_synth_sym(s, false);
}

/*
 * The summary (rsp report's: no tree kept) gives the same table as the whole
 * analysis: every total, path and contributor.
 */
static void check_summary(struct rsp_trace *t, int pid, const struct rsp_analysis_opts *o,
			  const struct rsp_analysis *full)
{
	struct rsp_analysis_opts so = *o;
	struct rsp_analysis *a = NULL;
	struct rsp_explanation ef, es;
	char err[256];
	bool same;

	so.summary = true;
	if (rsp_analyze(t, &pid, 1, 0, &so, &a, err, sizeof(err))) {
		CHECK(0, "summary: %s", err);
		return;
	}
	rsp_analysis_explanation(full, &ef);
	rsp_analysis_explanation(a, &es);
	same = !memcmp(&ef, &es, sizeof(ef)) && rsp_analysis_n_nodes(a) == 0 &&
	       rsp_analysis_n_paths(a) == rsp_analysis_n_paths(full);
	for (size_t p = 0; same && p < rsp_analysis_n_paths(a); p++) {
		rsp_analysis_path_explanation(full, p, &ef);
		rsp_analysis_path_explanation(a, p, &es);
		same = !memcmp(&ef, &es, sizeof(ef));
	}
	for (int c = 0; same && c < RSP_CAT__COUNT; c++) {
		same = rsp_analysis_n_contributors(a, (enum rsp_category)c) ==
		       rsp_analysis_n_contributors(full, (enum rsp_category)c);
		for (size_t i = 0; same && i < rsp_analysis_n_contributors(a, (enum rsp_category)c);
		     i++) {
			struct rsp_contributor x, y;

			rsp_analysis_contributor(full, (enum rsp_category)c, i, &x);
			rsp_analysis_contributor(a, (enum rsp_category)c, i, &y);
			same = x.ns == y.ns && x.count == y.count &&
			       x.ns_estimated == y.ns_estimated && x.ns_inferred == y.ns_inferred &&
			       !strcmp(x.what ? x.what : "", y.what ? y.what : "");
		}
	}
	CHECK(same, "the summary (no tree) gives the same table");
	rsp_analysis_free(a);
}

static struct rsp_analysis *analyze(struct rsp_trace *t, int pid, uint64_t tol_us)
{
	struct rsp_analysis_opts o = { .tolerance_ns = NS(tol_us) };
	struct rsp_analysis *a = NULL;
	char err[256];

	if (rsp_analyze(t, &pid, 1, 0, &o, &a, err, sizeof(err))) {
		CHECK(0, "analyze: %s", err);
		return NULL;
	}
	check_summary(t, pid, &o, a);
	return a;
}

/* The table is exactly @want (all other categories 0), sums to @total_us. */
static void check_table(const struct rsp_analysis *a, const char *what, uint64_t total_us,
			const struct expect *want, size_t n)
{
	struct rsp_explanation e;
	uint64_t sum = 0;
	bool exact = true;
	char got[512];
	size_t off = 0;

	rsp_analysis_explanation(a, &e);
	for (int c = 0; c < RSP_CAT__COUNT; c++) {
		uint64_t expect = 0;

		for (size_t i = 0; i < n; i++)
			if (want[i].cat == c)
				expect = NS(want[i].us);
		exact &= e.cat_ns[c] == expect;
		sum += e.cat_ns[c];
		if (e.cat_ns[c])
			off += (size_t)snprintf(got + off, sizeof(got) - off, " %s=%.3f",
						rsp_category_key(c), e.cat_ns[c] / 1e3);
	}
	CHECK(e.total_ns == NS(total_us), "%s: total %.3f us, want %llu", what, e.total_ns / 1e3,
	      (unsigned long long)total_us);
	CHECK(sum == e.total_ns, "%s: categories sum to the total exactly", what);
	CHECK(exact, "%s: table is exact (got%s)", what, got);
}

static bool has_contributor(const struct rsp_analysis *a, enum rsp_category c, const char *a1,
			    const char *a2)
{
	for (size_t i = 0; i < rsp_analysis_n_contributors(a, c); i++) {
		struct rsp_contributor k;

		rsp_analysis_contributor(a, c, i, &k);
		if (strstr(k.what, a1) && (!a2 || strstr(k.what, a2)))
			return true;
	}
	return false;
}

/* The time of category @c's contributor named exactly @what (0: none), its
 * estimated and inferred parts in *@est and *@inf (unless NULL). */
static uint64_t contributor_ns(const struct rsp_analysis *a, enum rsp_category c, const char *what,
			       uint64_t *est, uint64_t *inf)
{
	uint64_t e = 0, f = 0, ns = 0;

	for (size_t i = 0; i < rsp_analysis_n_contributors(a, c); i++) {
		struct rsp_contributor k;

		rsp_analysis_contributor(a, c, i, &k);
		if (!strcmp(k.what, what)) {
			e = k.ns_estimated;
			f = k.ns_inferred;
			ns = k.ns;
			break;
		}
	}
	if (est)
		*est = e;
	if (inf)
		*inf = f;
	return ns;
}

/* a thread that existed before the trace (a thread's FORK names its own process) */
static void existing(struct synth *s, int pid, int tid, const char *comm)
{
	synth_fork(s, 0, pid, pid == tid ? 1 : pid, tid, pid == tid ? 1 : pid);
	synth_comm(s, 0, pid, tid, comm, false);
}

/*
 * A wakes B and sleeps; B runs and wakes A.  A's sleep [1101,1300] holds B's
 * run up to its wakeup [1101,1290]; A is runnable [1290,1300] while its
 * waker B goes on running on A's CPU: B's CPU too, not the scheduler's.
 * CPU: A 101 + B 189 + B 10 + A 100 = 400; total 400.
 */
static void test_pingpong(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	struct rsp_analysis *a;
	struct expect want[] = { { RSP_CAT_CPU_UNSAMPLED, 400 } };

	existing(s, 100, 100, "a");
	existing(s, 200, 200, "b");
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, 100, "a");
	synth_waking(s, 0, US(1100), 100, 0, 200, "b", 0, false, NULL, 0);
	synth_switch(s, 0, US(1101), 100, "a", S_INT, 200, "b");
	synth_waking(s, 0, US(1290), 200, 0, 100, "a", 0, false, NULL, 0);
	synth_switch(s, 0, US(1300), 200, "b", S_INT, 100, "a");
	synth_switch(s, 0, US(1400), 100, "a", S_INT, 0, "swapper/0");
	t = open_synth(s);
	a = t ? analyze(t, 100, 100) : NULL;
	if (a) {
		struct rsp_explanation e;

		check_table(a, "ping-pong", 400, want, 1);
		rsp_analysis_explanation(a, &e);
		CHECK(e.n_paths == 1 && e.n_processes == 2, "one control path through both processes");
		CHECK(has_contributor(a, RSP_CAT_CPU_UNSAMPLED, "b", NULL),
		      "B's run is inside A's explanation");
	}
	rsp_analysis_free(a);
	rsp_trace_free(t);
	synth_free(s);
}

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

static void test_triangle(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	struct rsp_analysis *a;
	struct expect want[] = { { RSP_CAT_CPU_UNSAMPLED, 679 }, { RSP_CAT_SCHED, 21 } };

	existing(s, 100, 100, "a");
	existing(s, 200, 200, "b");
	existing(s, 300, 300, "c");
	synth_switch(s, 0, US(900), 0, "swapper/0", 0, 100, "a");
	synth_switch(s, 1, US(900), 0, "swapper/1", 0, 300, "c");
	synth_switch(s, 1, US(950), 300, "c", S_INT, 0, "swapper/1");
	synth_waking(s, 0, US(1100), 100, 0, 200, "b", 1, false, NULL, 0);
	synth_switch(s, 0, US(1101), 100, "a", S_INT, 0, "swapper/0");
	synth_switch(s, 1, US(1102), 0, "swapper/1", 0, 200, "b");
	synth_waking(s, 1, US(1200), 200, 0, 300, "c", 1, false, NULL, 0);
	synth_switch(s, 1, US(1201), 200, "b", S_INT, 300, "c");
	synth_waking(s, 1, US(1480), 300, 0, 100, "a", 0, false, NULL, 0);
	synth_switch(s, 1, US(1481), 300, "c", S_INT, 0, "swapper/1");
	synth_switch(s, 0, US(1500), 0, "swapper/0", 0, 100, "a");
	synth_switch(s, 0, US(1600), 100, "a", S_INT, 0, "swapper/0");
	t = open_synth(s);
	a = t ? analyze(t, 100, 10) : NULL;
	if (a) {
		struct rsp_explanation e;
		bool c_cut = false, b_under_c = false;

		check_table(a, "triangle", 700, want, 2);
		rsp_analysis_explanation(a, &e);
		for (size_t i = 0; i < rsp_analysis_n_nodes(a); i++) {
			struct rsp_node_info n, p;
			struct rsp_thread_info ti;

			rsp_analysis_node(a, i, &n);
			if (n.thread == RSP_NO_INDEX)
				continue;
			rsp_trace_thread(t, n.thread, &ti);
			if (ti.tid == 300 && n.kind == RSP_NODE_SLEEP)
				c_cut = (n.flags & RSP_NODE_CUT) && n.start_ns == US(1101);
			if (ti.tid == 200 && n.kind == RSP_NODE_RUN && n.parent != RSP_NO_INDEX) {
				struct rsp_thread_info pt;

				rsp_analysis_node(a, n.parent, &p);
				rsp_trace_thread(t, p.thread, &pt);
				b_under_c = p.kind == RSP_NODE_SLEEP && pt.tid == 300 && n.depth == 3;
			}
		}
		CHECK(c_cut, "C's sleep is cut where A called B (1101)");
		CHECK(b_under_c, "B's run is the child of C's sleep, two layers above A");
		CHECK(e.n_cut >= 1, "the cut is counted");
	}
	rsp_analysis_free(a);
	rsp_trace_free(t);
	synth_free(s);
}

/*
 * A loop of polls with a 1 ms timeout while the resolver thread works:
 * each poll ends by timing out (hard-irq wakeup outside any handler); the
 * second is one de facto sleep with the first.
 * main: CPU 10 + 1 + 87 = 98, timeouts 1000 + 1000, scheduler 2; resolver:
 * CPU 500 (then exits).  Total 2600.
 */
static void test_poll_timeout(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	struct rsp_analysis *a;
	struct expect want[] = { { RSP_CAT_CPU_UNSAMPLED, 598 },
				 { RSP_CAT_TIMEOUT, 2000 },
				 { RSP_CAT_SCHED, 2 } };

	existing(s, 100, 100, "pollwait");
	existing(s, 100, 101, "resolver");
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, 100, "pollwait");
	synth_switch(s, 1, US(1000), 0, "swapper/1", 0, 101, "resolver");
	synth_switch(s, 0, US(1010), 100, "pollwait", S_INT, 0, "swapper/0");
	synth_exit(s, US(1500), 100, 101);
	synth_switch(s, 1, US(1500), 101, "resolver", S_DEAD, 0, "swapper/1");
	synth_waking(s, 0, US(2010), 0, SYN_HARDIRQ, 100, "pollwait", 0, false, NULL, 0);
	synth_switch(s, 0, US(2011), 0, "swapper/0", 0, 100, "pollwait");
	synth_switch(s, 0, US(2012), 100, "pollwait", S_INT, 0, "swapper/0");
	synth_waking(s, 0, US(3012), 0, SYN_HARDIRQ, 100, "pollwait", 0, false, NULL, 0);
	synth_switch(s, 0, US(3013), 0, "swapper/0", 0, 100, "pollwait");
	synth_switch(s, 0, US(3100), 100, "pollwait", S_INT, 0, "swapper/0");
	t = open_synth(s);
	a = t ? analyze(t, 100, 100) : NULL;
	if (a) {
		check_table(a, "poll with timeout", 2600, want, 3);
		CHECK(has_contributor(a, RSP_CAT_TIMEOUT, "pollwait", "while resolver ran"),
		      "the timeouts name the resolver that ran meanwhile");
	}
	rsp_analysis_free(a);
	rsp_trace_free(t);
	synth_free(s);
}

/*
 * De facto sleeps: a poll times out at 2010, runs 1 us, polls again and is
 * woken at 2590 by a worker whose run began at 1500, during the first poll.
 * Against the second poll alone (2012) the worker's run does not fit; the
 * two polls are one de facto sleep from 1010, which it does: the worker's
 * run is a child (cut at 2012), nothing waits on another control path.  The
 * first poll, which timed out, is part of that wait: the worker's activity
 * explains it too (its run from 1500 to 2010; before it, its sleep whose
 * cause the trace lacks), no timeout.
 */
static void test_defacto(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	struct rsp_analysis *a;

	existing(s, 100, 100, "main");
	existing(s, 200, 200, "worker");
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, 100, "main");
	synth_switch(s, 0, US(1010), 100, "main", S_INT, 0, "swapper/0");
	synth_switch(s, 1, US(1500), 0, "swapper/1", 0, 200, "worker");
	synth_waking(s, 0, US(2010), 0, SYN_HARDIRQ, 100, "main", 0, false, NULL, 0);
	synth_switch(s, 0, US(2011), 0, "swapper/0", 0, 100, "main");
	synth_switch(s, 0, US(2012), 100, "main", S_INT, 0, "swapper/0");
	synth_waking(s, 1, US(2590), 200, 0, 100, "main", 0, false, NULL, 0);
	synth_switch(s, 1, US(2595), 200, "worker", S_INT, 0, "swapper/1");
	synth_switch(s, 0, US(2600), 0, "swapper/0", 0, 100, "main");
	synth_switch(s, 0, US(2700), 100, "main", S_INT, 0, "swapper/0");
	t = open_synth(s);
	a = t ? analyze(t, 100, 100) : NULL;
	if (a) {
		struct rsp_explanation e;
		bool defacto = false, nested = false, first = false;

		rsp_analysis_explanation(a, &e);
		for (size_t i = 0; i < rsp_analysis_n_nodes(a); i++) {
			struct rsp_node_info n;
			struct rsp_thread_info ti;

			rsp_analysis_node(a, i, &n);
			defacto |= n.kind == RSP_NODE_SLEEP && (n.flags & RSP_NODE_DEFACTO) &&
				   n.start_ns == US(2012);
			if (n.kind == RSP_NODE_RUN && n.thread != RSP_NO_INDEX) {
				rsp_trace_thread(t, n.thread, &ti);
				nested |= ti.tid == 200 && (n.flags & RSP_NODE_CUT) &&
					  n.start_ns == US(2012) && n.end_ns == US(2590);
				if (ti.tid == 200 && n.start_ns == US(1500) && n.end_ns == US(2010) &&
				    n.parent != RSP_NO_INDEX) {
					struct rsp_node_info p;

					rsp_analysis_node(a, n.parent, &p);
					first = p.kind == RSP_NODE_SLEEP && p.start_ns == US(1010) &&
						(p.flags & RSP_NODE_DEFACTO);
				}
			}
		}
		CHECK(defacto, "the second poll is a de facto sleep from the first");
		CHECK(nested && e.cat_ns[RSP_CAT_OTHER_PATH] == 0,
		      "the worker's run is its child, cut at 2012");
		CHECK(first && e.cat_ns[RSP_CAT_TIMEOUT] == 0 &&
			      e.cat_ns[RSP_CAT_UNACCOUNTED] == NS(490),
		      "the first poll is part of the wait the worker ended: its run 1500-2010 a child, "
		      "no timeout (timeout %" PRIu64 " ns)", e.cat_ns[RSP_CAT_TIMEOUT]);
	}
	rsp_analysis_free(a);
	rsp_trace_free(t);
	synth_free(s);
}

/*
 * A disk read: inserted at 1110 by the reader, which sleeps in D at 1120;
 * issued at 1200 by a kworker; completed at 1490 in the block softirq,
 * which wakes the reader at 1492; it runs at 1500.
 * CPU 120 + 100; queue [1120,1200] 80; disk [1200,1490] 290; kernel (the
 * completion to the wakeup) 2; scheduler 8.  Total 600.
 */
static void test_disk(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	struct rsp_analysis *a;
	struct expect want[] = { { RSP_CAT_CPU_UNSAMPLED, 220 }, { RSP_CAT_IO_QUEUE, 80 },
				 { RSP_CAT_DISK, 290 },		 { RSP_CAT_KERNEL, 2 },
				 { RSP_CAT_SCHED, 8 } };

	existing(s, 500, 500, "reader");
	existing(s, 9, 9, "kworker/1:1H");
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, 500, "reader");
	synth_block(s, SE_BLK_INSERT, 0, US(1110), 500, 0, 0x800001, 4096, 8, "R");
	synth_switch(s, 0, US(1120), 500, "reader", S_UNINT, 0, "swapper/0");
	synth_switch(s, 1, US(1190), 0, "swapper/1", 0, 9, "kworker/1:1H");
	synth_block(s, SE_BLK_ISSUE, 1, US(1200), 9, 0, 0x800001, 4096, 8, "R");
	synth_switch(s, 1, US(1210), 9, "kworker/1:1H", S_INT, 0, "swapper/1");
	synth_irq(s, SE_IRQ_ENTRY, 1, US(1488), 25, "virtio0-requests");
	synth_irq(s, SE_IRQ_EXIT, 1, US(1488), 25, NULL);
	synth_softirq(s, SE_SOFTIRQ_ENTRY, 1, US(1489), 0, 4);
	synth_block(s, SE_BLK_COMPLETE, 1, US(1490), 0, SYN_SOFTIRQ, 0x800001, 4096, 8, "R");
	synth_waking(s, 1, US(1492), 0, SYN_SOFTIRQ, 500, "reader", 0, false, NULL, 0);
	synth_softirq(s, SE_SOFTIRQ_EXIT, 1, US(1493), 0, 4);
	synth_switch(s, 0, US(1500), 0, "swapper/0", 0, 500, "reader");
	synth_switch(s, 0, US(1600), 500, "reader", S_INT, 0, "swapper/0");
	t = open_synth(s);
	a = t ? analyze(t, 500, 100) : NULL;
	if (a) {
		check_table(a, "disk I/O", 600, want, 5);
		CHECK(has_contributor(a, RSP_CAT_DISK, "disk 8:1", "by reader"),
		      "the disk time names the device and the issuer");
	}
	rsp_analysis_free(a);
	rsp_trace_free(t);
	synth_free(s);
}

/*
 * A request whose issue was not recorded (a cache flush the block layer sends
 * for an fsync has none of the reader's): only its completion at 1490, which
 * wakes the reader (asleep in D since 1120) at 1492.  It was in service all
 * along: disk [1120,1490] 370, named by whom it was waited for.  CPU 120 + 100,
 * kernel 2, scheduler 8.  Total 600.
 */
static void test_disk_no_issuer(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	struct rsp_analysis *a;
	struct expect want[] = { { RSP_CAT_CPU_UNSAMPLED, 220 },
				 { RSP_CAT_DISK, 370 },
				 { RSP_CAT_KERNEL, 2 },
				 { RSP_CAT_SCHED, 8 } };

	existing(s, 500, 500, "reader");
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, 500, "reader");
	synth_switch(s, 0, US(1120), 500, "reader", S_UNINT, 0, "swapper/0");
	synth_irq(s, SE_IRQ_ENTRY, 1, US(1488), 25, "virtio0-requests");
	synth_irq(s, SE_IRQ_EXIT, 1, US(1488), 25, NULL);
	synth_softirq(s, SE_SOFTIRQ_ENTRY, 1, US(1489), 0, 4);
	synth_block(s, SE_BLK_COMPLETE, 1, US(1490), 0, SYN_SOFTIRQ, 0x800001, 0, 0, "FF");
	synth_waking(s, 1, US(1492), 0, SYN_SOFTIRQ, 500, "reader", 0, false, NULL, 0);
	synth_softirq(s, SE_SOFTIRQ_EXIT, 1, US(1493), 0, 4);
	synth_switch(s, 0, US(1500), 0, "swapper/0", 0, 500, "reader");
	synth_switch(s, 0, US(1600), 500, "reader", S_INT, 0, "swapper/0");
	t = open_synth(s);
	a = t ? analyze(t, 500, 100) : NULL;
	if (a) {
		check_table(a, "a request with no issuer", 600, want, 4);
		CHECK(has_contributor(a, RSP_CAT_DISK, "disk 8:1 FF for reader", NULL),
		      "a request with no issuer named by who waited for it");
	}
	rsp_analysis_free(a);
	rsp_trace_free(t);
	synth_free(s);
}

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
 * A wait for a device: woken inside eth0's interrupt handler.
 * CPU 100 + 90; hardware [1100,1501] 401; scheduler 9.  Total 600.
 */
static void test_hardware(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	struct rsp_analysis *a;
	struct expect want[] = { { RSP_CAT_CPU_UNSAMPLED, 190 },
				 { RSP_CAT_HARDWARE, 401 },
				 { RSP_CAT_SCHED, 9 } };

	existing(s, 800, 800, "nic");
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, 800, "nic");
	synth_switch(s, 0, US(1100), 800, "nic", S_INT, 0, "swapper/0");
	synth_irq(s, SE_IRQ_ENTRY, 0, US(1500), 11, "eth0");
	synth_waking(s, 0, US(1501), 0, SYN_HARDIRQ, 800, "nic", 0, false, NULL, 0);
	synth_irq(s, SE_IRQ_EXIT, 0, US(1502), 11, NULL);
	synth_switch(s, 0, US(1510), 0, "swapper/0", 0, 800, "nic");
	synth_switch(s, 0, US(1600), 800, "nic", S_INT, 0, "swapper/0");
	t = open_synth(s);
	a = t ? analyze(t, 800, 100) : NULL;
	if (a) {
		check_table(a, "hardware irq", 600, want, 3);
		CHECK(has_contributor(a, RSP_CAT_HARDWARE, "eth0", NULL), "named by its irq");
	}
	rsp_analysis_free(a);
	rsp_trace_free(t);
	synth_free(s);
}

static const char sites_kallsyms[] = "ffffffff81000000 T __schedule\n"
				     "ffffffff81000100 T f_read\n"
				     "ffffffff81000200 T f_write\n"
				     "ffffffff81000300 T f_loop\n"
				     "ffffffff81000400 T f_work\n"
				     "ffffffff81000500 T f_poll\n"
				     "ffffffff81000600 T f_other\n"
				     "ffffffff81000700 T _etext\n";

/* @wstack: the stack the child wakes its parent from (NULL: none) */
static void async_child(struct synth *s, const uint64_t *wstack, size_t n)
{
	existing(s, 1000, 1000, "parent");
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, 1000, "parent");
	synth_fork(s, US(1100), 1001, 1000, 1001, 1000);
	synth_fork_tp(s, 0, US(1100), 1000, 1001, "child");
	synth_wakeup_new(s, 0, US(1100), 1000, 1001, 1);
	synth_switch(s, 1, US(1110), 0, "swapper/1", 0, 1001, "child");
	synth_switch(s, 0, US(1500), 1000, "parent", S_INT, 0, "swapper/0");
	synth_exit(s, US(1795), 1001, 1001);
	synth_waking(s, 1, US(1795), 1001, 0, 1000, "parent", 0, false, wstack, n);
	synth_switch(s, 1, US(1800), 1001, "child", S_DEAD, 0, "swapper/1");
	synth_switch(s, 0, US(1810), 0, "swapper/0", 0, 1000, "parent");
	synth_switch(s, 0, US(1900), 1000, "parent", S_INT, 0, "swapper/0");
}

/*
 * The parent forks a child at 1100, keeps working until 1500, then waits
 * for it.  The child's run [1110,1800] began 390 us before the wait: with a
 * 50 us tolerance it does not fit, so the wait is on another control path
 * [1500,1795] and the child is a control path of its own.
 * parent: CPU 500 + 90, other path 295, scheduler 15 (900); child:
 * scheduler 10 (born runnable), CPU 690 (700).  Total 1600.
 */
static void test_async_child(void)
{
	struct synth_opts so = { .kallsyms = sites_kallsyms };
	struct synth *s = synth_new(&so);
	struct rsp_trace *t;
	struct rsp_analysis *a, *b;
	struct expect want[] = { { RSP_CAT_CPU_UNSAMPLED, 1280 },
				 { RSP_CAT_OTHER_PATH, 295 },
				 { RSP_CAT_SCHED, 25 } };
	uint64_t explained = 0;

	async_child(s, NULL, 0);
	t = open_synth_sym(s, true);
	a = t ? analyze(t, 1000, 50) : NULL;
	if (a) {
		struct rsp_explanation e;
		struct rsp_path_info p;

		check_table(a, "async child", 1600, want, 3);
		rsp_analysis_explanation(a, &e);
		rsp_analysis_path(a, 1, &p);
		CHECK(e.n_paths == 2 && p.async, "the child is a control path of its own");
		CHECK(has_contributor(a, RSP_CAT_OTHER_PATH, "tid 1001", NULL),
		      "the wait names what it waited on (the child, not yet exec'd: \"parent\")");
		explained = e.explained_ns;
		CHECK(explained + NS(295) <= e.total_ns,
		      "a child unsampled, without a stack: its other path is not explained (%.3f)",
		      explained / 1e3);
	}
	/* a tolerance beyond 390 us makes it a call: nested, cut at the wait */
	b = t ? analyze(t, 1000, 1000) : NULL;
	if (b) {
		struct rsp_explanation e;

		rsp_analysis_explanation(b, &e);
		CHECK(e.cat_ns[RSP_CAT_OTHER_PATH] == 0 && e.n_cut >= 1,
		      "with 1 ms tolerance the child's run nests inside the wait, cut");
	}
	rsp_analysis_free(a);
	rsp_analysis_free(b);
	rsp_trace_free(t);
	synth_free(s);
	/* the same, the child waking its parent from f_write: the wait is named by it */
	{
		const uint64_t WR[] = { 0xffffffff81000210ull, 0xffffffff81000320ull };

		s = synth_new(&so);
		async_child(s, WR, 2);
		t = open_synth_sym(s, true);
		a = t ? analyze(t, 1000, 50) : NULL;
		if (a) {
			struct rsp_explanation e;

			check_table(a, "async child waking from f_write", 1600, want, 3);
			rsp_analysis_explanation(a, &e);
			CHECK(has_contributor(a, RSP_CAT_OTHER_PATH, "parent (tid 1001): ", "f_write"),
			      "the other path named by the stack the child woke it from");
			CHECK(e.explained_ns == explained + NS(295),
			      "and explained: 295 us more (%.3f, was %.3f)", e.explained_ns / 1e3,
			      explained / 1e3);
		}
		rsp_analysis_free(a);
		rsp_trace_free(t);
		synth_free(s);
	}
}

/*
 * A target named in the trace (a comm record) with nothing recorded of it:
 * no table of zeros, an error that says so.
 */
static void test_silent_target(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	struct rsp_analysis *a = NULL;
	char err[256] = "";
	int pid = 300;

	existing(s, 100, 100, "a");
	existing(s, 300, 300, "quiet");
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, 100, "a");
	synth_switch(s, 0, US(1100), 100, "a", S_INT, 0, "swapper/0");
	t = open_synth(s);
	if (t) {
		int r = rsp_analyze(t, &pid, 1, 0, NULL, &a, err, sizeof(err));

		CHECK(r != 0 && !a && strstr(err, "no recorded activity") && strstr(err, "300"),
		      "a target with nothing recorded: an error naming it (%s)", err);
	}
	rsp_analysis_free(a);
	rsp_trace_free(t);
	synth_free(s);
}

/*
 * Records lost at 1500 on the target's CPU: from its last event (1100)
 * until its next one (1800) nothing is known.  CPU (sampled) 100, unknown 700.
 */
static void test_lost(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	struct rsp_analysis *a;
	uint64_t ip = 0x401000;
	struct expect want[] = { { RSP_CAT_CPU, 100 }, { RSP_CAT_UNKNOWN, 700 } };

	existing(s, 900, 900, "l");
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, 900, "l");
	synth_sample(s, 0, US(1100), 900, 900, &ip, 1);
	synth_lost(s, US(1500), 0, 10);
	synth_switch(s, 0, US(1800), 900, "l", S_INT, 0, "swapper/0");
	t = open_synth(s);
	a = t ? analyze(t, 900, 100) : NULL;
	if (a)
		check_table(a, "lost span", 800, want, 2);
	rsp_analysis_free(a);
	rsp_trace_free(t);
	synth_free(s);
}

/*
 * A chain of 100000 threads, each woken by the next: 100000 layers.  The
 * default depth bound stops it and says so; without the bound the
 * iterative walk goes all the way down without overflowing the C stack.
 */
static void test_deep_chain(void)
{
	enum { N = 100000 };
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	struct rsp_analysis *a = NULL;
	struct rsp_analysis_opts deep = { .tolerance_ns = NS(1), .max_depth = 3 * N };
	int target = 10;
	uint64_t now = 10;
	char err[256];

	for (int i = 0; i <= N; i++)
		existing(s, 10 + i, 10 + i, "link");
	/* everyone asleep from the start, then the last one runs first */
	synth_switch(s, 0, US(now), 0, "swapper/0", 0, 10 + N, "link");
	for (int i = N; i > 0; i--) {
		now += 2;
		synth_waking(s, 0, US(now), 10 + i, 0, 10 + i - 1, "link", 0, false, NULL, 0);
		synth_switch(s, 0, US(now + 1), 10 + i, "link", S_INT, 10 + i - 1, "link");
		now += 1;
		if (i % 4096 == 0)
			synth_round(s);
	}
	synth_switch(s, 0, US(now + 5), 10, "link", S_INT, 0, "swapper/0");
	t = open_synth(s);
	if (t) {
		struct rsp_explanation e;

		a = analyze(t, target, 1);
		if (a) {
			rsp_analysis_explanation(a, &e);
			CHECK(e.n_bounded >= 1, "the default depth bound stops a 100000-link chain "
						"and says so (%zu)",
			      e.n_bounded);
			rsp_analysis_free(a);
			a = NULL;
		}
		CHECK(rsp_analyze(t, &target, 1, 0, &deep, &a, err, sizeof(err)) == 0,
		      "unbounded: the walk completes (%s)", a ? "" : err);
		if (a) {
			unsigned maxd = 0;

			for (size_t i = 0; i < rsp_analysis_n_nodes(a); i++) {
				struct rsp_node_info n;

				rsp_analysis_node(a, i, &n);
				if (n.depth > maxd)
					maxd = n.depth;
			}
			rsp_analysis_explanation(a, &e);
			CHECK(maxd >= N && e.n_bounded == 0,
			      "all 100000 layers walked (depth %u)", maxd);
		}
	}
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

/* ---- runs without samples, who held the CPU, async overhangs ------------------------ */


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
	struct synth_opts o = { .kallsyms = sites_kallsyms };
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
	struct synth_opts o = { .kallsyms = sites_kallsyms, .clock_period = NS(100) };
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
	struct synth_opts o = { .kallsyms = sites_kallsyms };
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
 * a forks the server b at 1005 and runs; b starts up on CPU 1 [1010,1050] and
 * waits for a request.  a's request wakes b at 1100; b runs [1105,1305] and
 * answers at 1300, then exits; a, still running until 1150, waits [1150,1310].
 * b's run fits a's wait: a call over [1150,1300].  b's part of it before a
 * waited ([1100,1150]) and after ([1300,1305]) is the callee's overhang the
 * tolerance (100 us) allows: its wait there (runnable [1100,1105]) is part of
 * the call, its run before it ([1105,1150]) its own work, in parallel with
 * a's.  Its run after it ([1300,1305]) goes on while a's CPU wakes from idle
 * [1300,1310]: the call's overflow, not counted (nothing of a's ran then).
 * b's path: runnable 5 and running 40 at start-up, then that run 45.
 * a: CPU 150 + 90, b in a's wait 150, runnable 10.  Total 400 + 90.
 */
static void test_async_overhang(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	struct rsp_analysis *a;
	struct expect want[] = { { RSP_CAT_CPU_UNSAMPLED, 475 }, { RSP_CAT_SCHED, 15 } };

	existing(s, 100, 100, "a");
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, 100, "a");
	synth_fork(s, US(1005), 200, 100, 200, 100);
	synth_comm(s, US(1005), 200, 200, "b", false);
	synth_switch(s, 1, US(1010), 0, "swapper/1", 0, 200, "b");
	synth_switch(s, 1, US(1050), 200, "b", S_INT, 0, "swapper/1");
	synth_waking(s, 0, US(1100), 100, 0, 200, "b", 1, false, NULL, 0);
	synth_switch(s, 1, US(1105), 0, "swapper/1", 0, 200, "b");
	synth_switch(s, 0, US(1150), 100, "a", S_INT, 0, "swapper/0");
	synth_waking(s, 1, US(1300), 200, 0, 100, "a", 0, false, NULL, 0);
	synth_exit(s, US(1305), 200, 200);
	synth_switch(s, 1, US(1305), 200, "b", S_DEAD, 0, "swapper/1");
	synth_switch(s, 0, US(1310), 0, "swapper/0", 0, 100, "a");
	synth_exit(s, US(1400), 100, 100);
	synth_switch(s, 0, US(1400), 100, "a", S_DEAD, 0, "swapper/0");
	t = open_synth(s);
	a = t ? analyze(t, 100, 100) : NULL;
	if (a) {
		struct rsp_explanation e;

		check_table(a, "a server's overhangs: its waits part of the call", 490, want, 2);
		rsp_analysis_explanation(a, &e);
		CHECK(e.n_paths == 2, "a's path and b's start-up (%zu paths)", e.n_paths);
		CHECK(e.n_overflow == 1 && e.overflow_ns == NS(5),
		      "b's run past its answer, while a's CPU woke: an overflow of 5 us (%zu, %.3f)",
		      e.n_overflow, e.overflow_ns / 1e3);
		if (e.n_paths == 2) {
			rsp_analysis_path_explanation(a, 1, &e);
			CHECK(e.total_ns == NS(90), "b's own path: its start-up and run (%.3f us)",
			      e.total_ns / 1e3);
		}
	}
	rsp_analysis_free(a);
	rsp_trace_free(t);
	synth_free(s);
}

/*
 * A wakeup that did not end the wait (a Unix socket's recv() of a request
 * wakes the peer blocked in its own recv()).  a forks the server b (start-up
 * [1010,1050] on CPU 1); a's request wakes b at 1100, a waits at 1105.  b
 * runs [1110,1305]: its recv() wakes a at 1115, but a's CPU wakes from idle
 * only at 1160; a finds nothing and waits again at 1165; b answers at 1300
 * and exits at 1305; a's CPU wakes again at 1320; a runs to 1400.
 * a's path (400): CPU 105; in its first wait b runnable 5, running 5; then
 * b's work again over [1115,1160] (a waited for b all along, not for its CPU:
 * b was still at it when a waited again); a 5; b 135; runnable 20 (b's last
 * 5 us then are the call's overflow, not counted); a 80.  b's path: start-up
 * 40 and its run [1160,1165] beside a's (5).  Total 445: CPU 420, sched 25.
 */
static void test_wakeup_not_ending_wait(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	struct rsp_analysis *a;
	struct expect want[] = { { RSP_CAT_CPU_UNSAMPLED, 420 }, { RSP_CAT_SCHED, 25 } };

	existing(s, 100, 100, "a");
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, 100, "a");
	synth_fork(s, US(1005), 200, 100, 200, 100);
	synth_comm(s, US(1005), 200, 200, "b", false);
	synth_switch(s, 1, US(1010), 0, "swapper/1", 0, 200, "b");
	synth_switch(s, 1, US(1050), 200, "b", S_INT, 0, "swapper/1");
	synth_waking(s, 0, US(1100), 100, 0, 200, "b", 1, false, NULL, 0);
	synth_switch(s, 0, US(1105), 100, "a", S_INT, 0, "swapper/0");
	synth_switch(s, 1, US(1110), 0, "swapper/1", 0, 200, "b");
	synth_waking(s, 1, US(1115), 200, 0, 100, "a", 0, false, NULL, 0);
	synth_switch(s, 0, US(1160), 0, "swapper/0", 0, 100, "a");
	synth_switch(s, 0, US(1165), 100, "a", S_INT, 0, "swapper/0");
	synth_waking(s, 1, US(1300), 200, 0, 100, "a", 0, false, NULL, 0);
	synth_exit(s, US(1305), 200, 200);
	synth_switch(s, 1, US(1305), 200, "b", S_DEAD, 0, "swapper/1");
	synth_switch(s, 0, US(1320), 0, "swapper/0", 0, 100, "a");
	synth_exit(s, US(1400), 100, 100);
	synth_switch(s, 0, US(1400), 100, "a", S_DEAD, 0, "swapper/0");
	t = open_synth(s);
	a = t ? analyze(t, 100, 300) : NULL;
	if (a) {
		struct rsp_explanation e;
		uint64_t est, inf;

		check_table(a, "a wakeup that did not end the wait", 445, want, 2);
		rsp_analysis_explanation(a, &e);
		CHECK(e.n_overflow == 1 && e.overflow_ns == NS(5),
		      "b's 5 us past its answer: the one overflow (%zu, %.3f us)", e.n_overflow,
		      e.overflow_ns / 1e3);
		CHECK(contributor_ns(a, RSP_CAT_SCHED, "a: runnable, its CPU waking from idle", &est,
				     &inf) == NS(20),
		      "a waited for its CPU only after b's answer (20 us)");
		if (e.n_paths == 2) {
			rsp_analysis_path_explanation(a, 1, &e);
			CHECK(e.total_ns == NS(45), "b's own path: start-up and the run beside a's "
			      "(%.3f us)", e.total_ns / 1e3);
		}
	}
	rsp_analysis_free(a);
	rsp_trace_free(t);
	synth_free(s);
}

/*
 * The same after a cut: the server's wait began before its caller's.  c
 * forks the server s (start-up [1010,1020] on CPU 1) and its back end b
 * ([1030,1040] on CPU 1); c's request wakes s at 1100; s asks b at 1140 and
 * waits; b, at once on CPU 1, wakes s at 1145 from its recv() (spurious), s
 * to CPU 0, where c runs until it waits for s at 1170; CPU 0 then idles
 * until s runs [1200,1205] and waits again; b answers s at 1300 and exits at
 * 1302; s runs [1310,1352] (CPU 0 idle [1300,1310]), answers c at 1350 and
 * exits; c runs [1355,1400].  c's wait is a call into s, whose wait is cut at
 * 1170 and is only its runnable end there: b's run, still going when s
 * waited again, is that time (30), not s's CPU waking.  c's path 400 (c 170
 * + 45, b 30 + 95, s 5 + 40, s's tail on c's CPU 2, runnable 10 + 3); s's
 * path: born runnable 5, start-up 10, its run [1100,1140] 40; b's: born
 * runnable 14 (4 idle, 10 while s started), start-up 20, its runs beside
 * c's [1140,1170] and s's [1200,1205] 35.  Total 524, of it sched 32 (554
 * before: 30 of s's CPU waking and b's 30 again).
 */
static void test_wakeup_not_ending_cut_wait(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	struct rsp_analysis *a;
	struct expect want[] = { { RSP_CAT_CPU_UNSAMPLED, 492 }, { RSP_CAT_SCHED, 32 } };

	existing(s, 100, 100, "c");
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, 100, "c");
	synth_fork(s, US(1005), 200, 100, 200, 100);
	synth_fork_tp(s, 0, US(1005), 100, 200, "s");
	synth_comm(s, US(1005), 200, 200, "s", false);
	synth_wakeup_new(s, 0, US(1005), 100, 200, 1);
	synth_fork(s, US(1006), 300, 100, 300, 100);
	synth_fork_tp(s, 0, US(1006), 100, 300, "b");
	synth_comm(s, US(1006), 300, 300, "b", false);
	synth_wakeup_new(s, 0, US(1006), 100, 300, 1);
	synth_switch(s, 1, US(1010), 0, "swapper/1", 0, 200, "s");
	synth_switch(s, 1, US(1020), 200, "s", S_INT, 300, "b");
	synth_switch(s, 1, US(1040), 300, "b", S_INT, 0, "swapper/1");
	synth_waking(s, 0, US(1100), 100, 0, 200, "s", 1, false, NULL, 0);
	synth_switch(s, 1, US(1100), 0, "swapper/1", 0, 200, "s");
	synth_waking(s, 1, US(1140), 200, 0, 300, "b", 1, false, NULL, 0);
	synth_switch(s, 1, US(1140), 200, "s", S_INT, 300, "b");
	synth_waking(s, 1, US(1145), 300, 0, 200, "s", 0, false, NULL, 0);
	synth_switch(s, 0, US(1170), 100, "c", S_INT, 0, "swapper/0");
	synth_switch(s, 0, US(1200), 0, "swapper/0", 0, 200, "s");
	synth_switch(s, 0, US(1205), 200, "s", S_INT, 0, "swapper/0");
	synth_waking(s, 1, US(1300), 300, 0, 200, "s", 0, false, NULL, 0);
	synth_exit(s, US(1302), 300, 300);
	synth_switch(s, 1, US(1302), 300, "b", S_DEAD, 0, "swapper/1");
	synth_switch(s, 0, US(1310), 0, "swapper/0", 0, 200, "s");
	synth_waking(s, 0, US(1350), 200, 0, 100, "c", 0, false, NULL, 0);
	synth_exit(s, US(1352), 200, 200);
	synth_switch(s, 0, US(1352), 200, "s", S_DEAD, 0, "swapper/0");
	synth_switch(s, 0, US(1355), 0, "swapper/0", 0, 100, "c");
	synth_exit(s, US(1400), 100, 100);
	synth_switch(s, 0, US(1400), 100, "c", S_DEAD, 0, "swapper/0");
	t = open_synth(s);
	a = t ? analyze(t, 100, 100) : NULL;
	if (a) {
		uint64_t est, inf;

		check_table(a, "a wakeup that did not end a cut wait", 524, want, 2);
		CHECK(contributor_ns(a, RSP_CAT_SCHED, "s: runnable, its CPU waking from idle", &est,
				     &inf) == NS(15),
		      "s's CPU waking: after b's answer (10 us) and at its birth (5), not while "
		      "b worked (15)");
	}
	rsp_analysis_free(a);
	rsp_trace_free(t);
	synth_free(s);
}

/*
 * A helper woken for nothing.  a (the target, CPU 0 [1000,1400]) forks b,
 * which starts up on CPU 1 [1010,1020] and waits in f_read for a request.  a
 * wakes it at 1100 without data (a Unix socket's recv() wakes the writer's
 * wait queue): b waits for its idle CPU until 1140, runs 5 us making no
 * socket call and waits in f_read again, as before.  At 1200 a sends it a
 * request: b runs [1205,1250], receives it, exits.  b's wait for a CPU after
 * the wakeup for nothing is idle (as the wait itself), its run counted:
 * b's path born runnable 5, start-up 10, 5, runnable 5, 45; total 470 (510
 * before: its 40 us waiting for CPU 1 after the wakeup for nothing).
 */
static void test_helper_woken_for_nothing(void)
{
	struct synth_opts so = { .kallsyms = sites_kallsyms };
	struct synth *s = synth_new(&so);
	struct rsp_trace *t;
	struct rsp_analysis *a;
	const uint64_t RECV[] = { 0xffffffff81000110ull };
	struct expect want[] = { { RSP_CAT_CPU_UNSAMPLED, 460 }, { RSP_CAT_SCHED, 10 } };
	const uint8_t lo[4] = { 127, 0, 0, 1 };

	existing(s, 100, 100, "a");
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, 100, "a");
	synth_fork(s, US(1005), 200, 100, 200, 100);
	synth_fork_tp(s, 0, US(1005), 100, 200, "b");
	synth_comm(s, US(1005), 200, 200, "b", false);
	synth_wakeup_new(s, 0, US(1005), 100, 200, 1);
	synth_switch(s, 1, US(1010), 0, "swapper/1", 0, 200, "b");
	synth_sock_state(s, 1, US(1011), 200, 0xffff2000, lo, 8080, lo, 40000, 1);
	synth_sock_state(s, 0, US(1012), 100, 0xffff1000, lo, 40000, lo, 8080, 1);
	synth_switch_stack(s, 1, US(1020), 200, "b", S_INT, 0, "swapper/1", RECV, 1);
	synth_waking(s, 0, US(1100), 100, 0, 200, "b", 1, false, NULL, 0);
	synth_switch(s, 1, US(1140), 0, "swapper/1", 0, 200, "b");
	synth_switch_stack(s, 1, US(1145), 200, "b", S_INT, 0, "swapper/1", RECV, 1);
	synth_sock_send(s, 0, US(1200), 100, 0xffff1000, 2, 64);
	synth_sk_ready(s, 0, US(1200), 100, 0, 0xffff2000, 2);
	synth_waking(s, 0, US(1200), 100, 0, 200, "b", 1, false, NULL, 0);
	synth_switch(s, 1, US(1205), 0, "swapper/1", 0, 200, "b");
	synth_sock_recv(s, 1, US(1210), 200, 0xffff2000, 2, 64);
	synth_exit(s, US(1250), 200, 200);
	synth_switch(s, 1, US(1250), 200, "b", S_DEAD, 0, "swapper/1");
	synth_exit(s, US(1400), 100, 100);
	synth_switch(s, 0, US(1400), 100, "a", S_DEAD, 0, "swapper/0");
	t = open_synth_sym(s, true);
	a = t ? analyze(t, 100, 100) : NULL;
	if (a) {
		struct rsp_explanation e;

		check_table(a, "a helper woken for nothing", 470, want, 2);
		rsp_analysis_explanation(a, &e);
		if (e.n_paths == 2) {
			rsp_analysis_path_explanation(a, 1, &e);
			CHECK(e.total_ns == NS(70), "b's path: its work and its wait before it (%.3f us)",
			      e.total_ns / 1e3);
		}
	}
	rsp_analysis_free(a);
	rsp_trace_free(t);
	synth_free(s);
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

/*
 * A server that goes on to its next job without sleeping after it answers (a
 * thread-pool worker finding its queue non-empty): c, woken from idle at
 * @c_start, works 200 us (sampled), wakes p at 1500 and runs on to 4000, far
 * past p's wakeup (tolerance 100 us).  The run began inside p's wait (1300) or
 * 50 us before it (1050, within the tolerance): the wait is a call into c,
 * its work before the wakeup c's CPU, whatever c does after it not p's.  The
 * paper's fit test also wanted the run to end within the tolerance after the
 * wakeup: p's wait was then "another control path" (400 us).  A run begun
 * 150 us before the wait (beyond the tolerance) stays another control path.
 */
static void test_callee_runs_on(uint64_t c_start)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	struct rsp_analysis *a;
	uint64_t work[2] = { 0x401000, 0x401100 }, own[2] = { 0x402000, 0x402100 };
	bool fits = c_start + 100 >= 1100;

	existing(s, 100, 100, "p");
	existing(s, 200, 200, "c");
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, 100, "p");
	synth_sample(s, 0, US(1050), 100, 100, own, 2);
	synth_waking(s, 1, US(c_start), 0, SYN_HARDIRQ, 200, "c", 1, false, NULL, 0);
	synth_switch(s, 1, US(c_start), 0, "swapper/1", 0, 200, "c");
	synth_switch(s, 0, US(1100), 100, "p", S_INT, 0, "swapper/0");
	for (uint64_t u = c_start + 50; u < 1500; u += 100)
		synth_sample(s, 1, US(u), 200, 200, work, 2);
	synth_waking(s, 1, US(1500), 200, 0, 100, "p", 0, false, NULL, 0);
	synth_switch(s, 0, US(1510), 0, "swapper/0", 0, 100, "p");
	synth_sample(s, 0, US(1550), 100, 100, own, 2);
	synth_switch(s, 0, US(1600), 100, "p", S_DEAD, 0, "swapper/0");
	synth_exit(s, US(1600), 100, 100);
	for (uint64_t u = 1550; u < 4000; u += 100)
		synth_sample(s, 1, US(u), 200, 200, work, 2);
	synth_switch(s, 1, US(4000), 200, "c", S_INT, 0, "swapper/1");
	t = open_synth(s);
	a = t ? analyze(t, 100, 100) : NULL;
	if (a) {
		struct rsp_explanation e;
		uint64_t start = c_start > 1100 ? c_start : 1100;

		rsp_analysis_explanation(a, &e);
		/* p's span: from the trace's start (c's wakeup at 950) */
		CHECK(e.total_ns == NS(1600 - (c_start < 1000 ? c_start : 1000)),
		      "c from %llu: total %.3f us = p's span",
		      (unsigned long long)c_start, e.total_ns / 1e3);
		if (fits) {
			CHECK(e.cat_ns[RSP_CAT_OTHER_PATH] == 0,
			      "c from %llu: a call, not another control path (%.3f us)",
			      (unsigned long long)c_start, e.cat_ns[RSP_CAT_OTHER_PATH] / 1e3);
			CHECK(e.cat_ns[RSP_CAT_CPU] == NS(190 + 1500 - start),
			      "c from %llu: p's runs and c's work up to the wakeup are CPU "
			      "(%.3f us)", (unsigned long long)c_start, e.cat_ns[RSP_CAT_CPU] / 1e3);
			CHECK(contributor_ns(a, RSP_CAT_CPU, "c", NULL, NULL) == NS(1500 - start),
			      "c from %llu: c's work named, to the wakeup", (unsigned long long)c_start);
			CHECK(e.cat_ns[RSP_CAT_SCHED] == NS(10), "c from %llu: p's CPU waking: %.3f us",
			      (unsigned long long)c_start, e.cat_ns[RSP_CAT_SCHED] / 1e3);
		} else {
			CHECK(e.cat_ns[RSP_CAT_OTHER_PATH] == NS(400),
			      "c from %llu, before the wait and past its tolerance: another "
			      "control path (%.3f us)", (unsigned long long)c_start,
			      e.cat_ns[RSP_CAT_OTHER_PATH] / 1e3);
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
 * A request handed to a worker thread of the same process (a thread pool):
 * io (tid 500) wakes worker (tid 501) at 1090 and waits at 1100; the worker
 * runs [1095,1400] on CPU 1 and wakes io at 1390; io runs [1400,1450].  As
 * the process's whole life, the worker is a target thread with a path of its
 * own: io's wait is "another control path".  As a request's window on io
 * [1000,1450] (rsp report --requests), the worker's work is the request's:
 * a call, its CPU inside the wait, no other path (io's own CPU is 150 us:
 * the other 290 are the worker's; io runnable 10).
 */
static void test_window_hand_off(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	struct rsp_analysis *a = NULL, *w = NULL;
	struct rsp_window win = { RSP_NO_INDEX, US(1000), US(1450) };
	struct rsp_analysis_opts o = { .tolerance_ns = NS(100) };
	int pid = 500;
	char err[256];

	existing(s, 500, 500, "io");
	existing(s, 500, 501, "worker");
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, 500, "io");
	synth_waking(s, 0, US(1090), 500, 0, 501, "worker", 1, false, NULL, 0);
	synth_switch(s, 1, US(1095), 0, "swapper/1", 0, 501, "worker");
	synth_switch(s, 0, US(1100), 500, "io", S_INT, 0, "swapper/0");
	synth_waking(s, 1, US(1390), 501, 0, 500, "io", 0, false, NULL, 0);
	synth_switch(s, 1, US(1400), 501, "worker", S_INT, 0, "swapper/1");
	synth_switch(s, 0, US(1400), 0, "swapper/0", 0, 500, "io");
	synth_switch(s, 0, US(1450), 500, "io", S_INT, 0, "swapper/0");
	t = open_synth(s);
	for (size_t i = 0; t && i < rsp_trace_n_threads(t); i++) {
		struct rsp_thread_info ti;

		rsp_trace_thread(t, i, &ti);
		if (ti.tid == 500)
			win.thread = i;
	}
	if (t && rsp_analyze(t, &pid, 1, 0, &o, &a, err, sizeof(err)))
		CHECK(0, "analyze: %s", err);
	o.windows = &win;
	o.n_windows = 1;
	if (t && rsp_analyze(t, &pid, 1, 0, &o, &w, err, sizeof(err)))
		CHECK(0, "analyze the window: %s", err);
	if (a && w) {
		struct rsp_explanation e, f;

		rsp_analysis_path_explanation(a, 0, &e);
		rsp_analysis_explanation(w, &f);
		CHECK(e.cat_ns[RSP_CAT_OTHER_PATH] == NS(290),
		      "the process's life: io's wait is the worker's own path (%.3f us)",
		      e.cat_ns[RSP_CAT_OTHER_PATH] / 1e3);
		CHECK(f.total_ns == NS(450) && f.cat_ns[RSP_CAT_OTHER_PATH] == 0 &&
			      f.cat_ns[RSP_CAT_CPU_UNSAMPLED] == NS(440),
		      "the request's window: the worker's work is a call inside it (cpu %.3f, "
		      "other path %.3f us)",
		      f.cat_ns[RSP_CAT_CPU_UNSAMPLED] / 1e3, f.cat_ns[RSP_CAT_OTHER_PATH] / 1e3);
	}
	rsp_analysis_free(a);
	rsp_analysis_free(w);
	rsp_trace_free(t);
	synth_free(s);
}

/*
 * A request passed on before its sender slept: c (pid 100) wakes io (a
 * daemon's I/O thread, tid 200) at 1100, which preempts c at 1105 on CPU 0,
 * wakes the worker (tid 201, same process) at 1140 and sleeps at 1150; the
 * worker then holds CPU 0 [1150,1400] while c is still preempted.  io's run
 * is the hand-off (c woke it); the worker's, started by io's wakeup, is c's
 * request too: its CPU, not "c: runnable while worker ran".
 */
static void test_hand_off_through_threads(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	struct rsp_analysis *a;
	struct expect want[] = { { RSP_CAT_CPU_UNSAMPLED, 450 } };

	existing(s, 100, 100, "c");
	existing(s, 200, 200, "io");
	existing(s, 200, 201, "worker");
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, 100, "c");
	synth_waking(s, 0, US(1100), 100, 0, 200, "io", 0, false, NULL, 0);
	synth_switch(s, 0, US(1105), 100, "c", 0, 200, "io");
	synth_waking(s, 0, US(1140), 200, 0, 201, "worker", 0, false, NULL, 0);
	synth_switch(s, 0, US(1150), 200, "io", S_INT, 201, "worker");
	synth_switch(s, 0, US(1400), 201, "worker", S_INT, 100, "c");
	synth_switch(s, 0, US(1450), 100, "c", S_INT, 0, "swapper/0");
	t = open_synth(s);
	a = t ? analyze(t, 100, 100) : NULL;
	if (a) {
		check_table(a, "a request passed on before its sender slept", 450, want, 1);
		CHECK(!has_contributor(a, RSP_CAT_SCHED, "runnable while worker ran", NULL),
		      "the worker's run is c's request, not the scheduler's");
	}
	rsp_analysis_free(a);
	rsp_trace_free(t);
	synth_free(s);
}

/*
 * A server's reply woken where its run was not known.  The client c runs from
 * 700 (the server s from 800 to 900, then waits for requests); c sends a
 * request at 1100 (its data wakes the server s, asleep since 900, from c's
 * softirq) and waits at 1110.  s's switch-in is not recorded (idle -> task);
 * it sends its reply at 1300 from CPU 1, whose softirq wakes c at 1302 with
 * no known task on that CPU: the link names no waker, only the data's sender.
 * s's run [1102,1308] (inferred from its wakeup) is the call: 192 us of c's
 * wait, not "another control path".  c: CPU 410 + 90, runnable 8 (its CPU
 * idle).  Total 700.
 */
static void test_net_sender_run(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	struct rsp_analysis *a;
	struct expect want[] = { { RSP_CAT_CPU_UNSAMPLED, 692 }, { RSP_CAT_SCHED, 8 } };
	const uint8_t lo[4] = { 127, 0, 0, 1 };

	existing(s, 100, 100, "c");
	existing(s, 200, 200, "s");
	synth_switch(s, 0, US(700), 0, "swapper/0", 0, 100, "c");
	synth_switch(s, 1, US(800), 0, "swapper/1", 0, 200, "s");
	synth_sock_state(s, 1, US(801), 200, 0xffff2000, lo, 8080, lo, 40000, 1);
	synth_sock_state(s, 0, US(802), 100, 0xffff1000, lo, 40000, lo, 8080, 1);
	synth_switch(s, 1, US(900), 200, "s", S_INT, 0, "swapper/1");
	synth_sock_send(s, 0, US(1100), 100, 0xffff1000, 2, 64);
	synth_sk_ready(s, 0, US(1101), 100, SYN_SOFTIRQ, 0xffff2000, 2);
	synth_waking(s, 0, US(1102), 100, SYN_SOFTIRQ, 200, "s", 1, false, NULL, 0);
	synth_switch(s, 0, US(1110), 100, "c", S_INT, 0, "swapper/0");
	synth_sock_send(s, 1, US(1300), 200, 0xffff2000, 2, 64);
	synth_sk_ready(s, 0, US(1301), 0, SYN_SOFTIRQ, 0xffff1000, 2);
	synth_waking(s, 0, US(1302), 0, SYN_SOFTIRQ, 100, "c", 0, false, NULL, 0);
	synth_switch(s, 1, US(1308), 200, "s", S_INT, 0, "swapper/1");
	synth_switch(s, 0, US(1310), 0, "swapper/0", 0, 100, "c");
	synth_exit(s, US(1400), 100, 100);
	synth_switch(s, 0, US(1400), 100, "c", S_DEAD, 0, "swapper/0");
	t = open_synth(s);
	a = t ? analyze(t, 100, 100) : NULL;
	if (a) {
		struct rsp_explanation e;

		check_table(a, "a reply woken with no known waker: the sender's run is the call", 700,
			    want, 2);
		rsp_analysis_explanation(a, &e);
		CHECK(e.cat_ns[RSP_CAT_OTHER_PATH] == 0 &&
			      has_contributor(a, RSP_CAT_CPU_UNSAMPLED, "s", NULL),
		      "the server's run in the client's wait");
	}
	rsp_analysis_free(a);
	rsp_trace_free(t);
	synth_free(s);
}

/*
 * A UDP reply (no connection: no socket's peer is known).  The client c (CPU
 * 0 from 700) sends a datagram to the server s's socket: loopback delivers it
 * in c's softirq at 1100, inside its sendmsg (c's sock_send_length at 1102
 * follows), and wakes s (asleep since 900), which runs on CPU 1 from 1103;
 * c waits from 1110.  s's reply is delivered the same way in s's context at
 * 1300 and wakes c at 1301; s's send returns at 1302 and it sleeps at 1308;
 * c runs again at 1310 and exits at 1400.  The datagram's sender is the
 * task it was delivered in, as its next socket call is a UDP send: c's wait
 * is a call into s's run (191 us), not data from an unknown peer.  c: CPU
 * 410 + 90, runnable 9 (its CPU idle).  Total 700.  @recv_first: s receives
 * (another datagram) between the delivery and its send: nothing says the
 * datagram was its own, and c's wait is data from an unknown sender.
 */
static void test_udp_reply(bool recv_first)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	struct rsp_analysis *a;
	struct expect want[] = { { RSP_CAT_CPU_UNSAMPLED, 691 }, { RSP_CAT_SCHED, 9 } };
	struct expect unknown[] = { { RSP_CAT_CPU_UNSAMPLED, 500 }, { RSP_CAT_NET, 191 },
				    { RSP_CAT_SCHED, 9 } };

	existing(s, 100, 100, "c");
	existing(s, 200, 200, "s");
	synth_sock_udp(s, true);
	synth_switch(s, 0, US(700), 0, "swapper/0", 0, 100, "c");
	synth_switch(s, 1, US(800), 0, "swapper/1", 0, 200, "s");
	synth_switch(s, 1, US(900), 200, "s", S_INT, 0, "swapper/1");
	synth_sk_ready(s, 0, US(1100), 100, SYN_SOFTIRQ, 0xffff2000, 2);
	synth_waking(s, 0, US(1101), 100, SYN_SOFTIRQ, 200, "s", 1, false, NULL, 0);
	synth_sock_send(s, 0, US(1102), 100, 0xffff1000, 2, 64);
	synth_switch(s, 1, US(1103), 0, "swapper/1", 0, 200, "s");
	synth_sock_recv(s, 1, US(1104), 200, 0xffff2000, 2, 64);
	synth_switch(s, 0, US(1110), 100, "c", S_INT, 0, "swapper/0");
	synth_sk_ready(s, 1, US(1300), 200, SYN_SOFTIRQ, 0xffff1000, 2);
	synth_waking(s, 1, US(1301), 200, SYN_SOFTIRQ, 100, "c", 0, false, NULL, 0);
	if (recv_first)
		synth_sock_recv(s, 1, US(1302), 200, 0xffff2000, 2, 64);
	synth_sock_send(s, 1, US(1303), 200, 0xffff2000, 2, 64);
	synth_switch(s, 1, US(1308), 200, "s", S_INT, 0, "swapper/1");
	synth_switch(s, 0, US(1310), 0, "swapper/0", 0, 100, "c");
	synth_exit(s, US(1400), 100, 100);
	synth_switch(s, 0, US(1400), 100, "c", S_DEAD, 0, "swapper/0");
	t = open_synth(s);
	a = t ? analyze(t, 100, 100) : NULL;
	if (a && !recv_first) {
		struct rsp_explanation e;

		check_table(a, "a UDP reply delivered in its sender's context: the sender's run is "
			    "the call", 700, want, 2);
		rsp_analysis_explanation(a, &e);
		CHECK(e.cat_ns[RSP_CAT_OTHER_PATH] == 0 && e.cat_ns[RSP_CAT_NET] == 0 &&
			      has_contributor(a, RSP_CAT_CPU_UNSAMPLED, "s", NULL),
		      "the UDP server's run in the client's wait");
	} else if (a) {
		check_table(a, "a datagram delivered in a task that receives next: no sender", 700,
			    unknown, 3);
	}
	rsp_analysis_free(a);
	rsp_trace_free(t);
	synth_free(s);
}

/*
 * Queueing behind another peer of a UDP server: one socket S (0x2000) serves
 * the clients c (socket 0x1000, the target) and d (socket 0x4000), no
 * addresses known.  d (CPU 1 from 790) sends a datagram to S at 795 (loopback:
 * delivered in d's context, its send returns at 796) and sleeps at 800; s runs
 * from 800 and reads it at 850.  c (CPU 0 from 700) sends its own at 1100 and
 * waits from 1110; s answers d at 1200, reads c's datagram at 1210 and answers
 * c at 1301 (c woken at 1300 from s's softirq), sleeps at 1308.  s's requests
 * are d's [850,1200] and c's [1210,1301], told apart by the sockets that sent
 * their datagrams (matched in arrival order): c queued behind d's socket
 * over [1110,1200], 90 us of s's CPU.  Total 700: CPU 690, runnable 10.
 */
static void test_queued_behind_udp(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	struct rsp_analysis *a;
	struct expect want[] = { { RSP_CAT_CPU_UNSAMPLED, 690 }, { RSP_CAT_SCHED, 10 } };

	existing(s, 100, 100, "c");
	existing(s, 200, 200, "s");
	existing(s, 300, 300, "d");
	synth_sock_udp(s, true);
	synth_switch(s, 0, US(700), 0, "swapper/0", 0, 100, "c");
	synth_switch(s, 1, US(790), 0, "swapper/1", 0, 300, "d");
	synth_sk_ready(s, 1, US(795), 300, SYN_SOFTIRQ, 0xffff2000, 2);
	synth_sock_send(s, 1, US(796), 300, 0xffff4000, 2, 64);
	synth_switch(s, 1, US(800), 300, "d", S_INT, 200, "s");
	synth_sock_recv(s, 1, US(850), 200, 0xffff2000, 2, 64);
	synth_sk_ready(s, 0, US(1100), 100, SYN_SOFTIRQ, 0xffff2000, 2);
	synth_sock_send(s, 0, US(1101), 100, 0xffff1000, 2, 64);
	synth_switch(s, 0, US(1110), 100, "c", S_INT, 0, "swapper/0");
	synth_sk_ready(s, 1, US(1199), 200, SYN_SOFTIRQ, 0xffff4000, 2);
	synth_sock_send(s, 1, US(1200), 200, 0xffff2000, 2, 64);
	synth_sock_recv(s, 1, US(1210), 200, 0xffff2000, 2, 64);
	synth_sk_ready(s, 1, US(1299), 200, SYN_SOFTIRQ, 0xffff1000, 2);
	synth_waking(s, 1, US(1300), 200, SYN_SOFTIRQ, 100, "c", 0, false, NULL, 0);
	synth_sock_send(s, 1, US(1301), 200, 0xffff2000, 2, 64);
	synth_switch(s, 1, US(1308), 200, "s", S_INT, 0, "swapper/1");
	synth_switch(s, 0, US(1310), 0, "swapper/0", 0, 100, "c");
	synth_exit(s, US(1400), 100, 100);
	synth_switch(s, 0, US(1400), 100, "c", S_DEAD, 0, "swapper/0");
	t = open_synth(s);
	a = t ? analyze(t, 100, 1000) : NULL;
	if (a) {
		struct rsp_explanation e;
		struct rsp_socket_info si = { 0 };
		uint64_t ns = 0, cat[RSP_CAT__COUNT];
		size_t sock = RSP_NO_INDEX;

		check_table(a, "queued behind another peer of a UDP socket", 700, want, 2);
		rsp_analysis_explanation(a, &e);
		if (e.n_queued)
			rsp_analysis_queued(a, 0, &sock, &ns, cat);
		if (sock != RSP_NO_INDEX)
			rsp_trace_socket(t, sock, &si);
		CHECK(e.queued_ns == NS(90) && e.n_queued == 1 && ns == NS(90),
		      "c queued 90 us behind one peer (%.3f us, %zu)", e.queued_ns / 1e3,
		      e.n_queued);
		CHECK(si.sk == 0xffff4000 && cat[RSP_CAT_CPU_UNSAMPLED] == NS(90),
		      "d's socket (%#" PRIx64 "), while s ran", si.sk);
	}
	rsp_analysis_free(a);
	rsp_trace_free(t);
	synth_free(s);
}

/*
 * A wait for the peer's close.  The client c (the target, CPU 0 from 700)
 * sends a request at 1100 and waits at 1110; the server s (CPU 1, waiting
 * since 900, woken by the request's softirq at 1102) replies at 1200 (c
 * woken at 1202, runs [1210,1250] reading it) and closes at 1400: loopback
 * delivers the FIN in s's context (a softirq on CPU 1), c's socket goes to
 * CLOSE_WAIT (inet_sock_set_state, no sk_data_ready) and c, waiting in
 * epoll since 1250, is woken at 1402.  With a 1 ms tolerance that wait is
 * a call into s's run (its logging and close: [1250,1402]), not a kernel
 * block, as the wait for the reply is ([1110,1202]).  CPU (unsampled): c's
 * 410 + 40 + 86, s's 92 + 152; runnable 8 + 12 (c's CPU idle).  Total 800.
 */
static void test_net_peer_close(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	struct rsp_analysis *a;
	struct expect want[] = { { RSP_CAT_CPU_UNSAMPLED, 780 }, { RSP_CAT_SCHED, 20 } };
	const uint8_t lo[4] = { 127, 0, 0, 1 };

	existing(s, 100, 100, "c");
	existing(s, 200, 200, "s");
	synth_switch(s, 0, US(700), 0, "swapper/0", 0, 100, "c");
	synth_switch(s, 1, US(800), 0, "swapper/1", 0, 200, "s");
	synth_sock_state(s, 1, US(801), 200, 0xffff2000, lo, 8080, lo, 40000, 1);
	synth_sock_state(s, 0, US(802), 100, 0xffff1000, lo, 40000, lo, 8080, 1);
	synth_switch(s, 1, US(900), 200, "s", S_INT, 0, "swapper/1");
	synth_sock_send(s, 0, US(1100), 100, 0xffff1000, 2, 64);
	synth_sk_ready(s, 0, US(1101), 100, SYN_SOFTIRQ, 0xffff2000, 2);
	synth_waking(s, 0, US(1102), 100, SYN_SOFTIRQ, 200, "s", 1, false, NULL, 0);
	synth_switch(s, 0, US(1110), 100, "c", S_INT, 0, "swapper/0");
	synth_switch(s, 1, US(1110), 0, "swapper/1", 0, 200, "s");
	synth_sock_send(s, 1, US(1200), 200, 0xffff2000, 2, 64);
	synth_sk_ready(s, 1, US(1201), 200, SYN_SOFTIRQ, 0xffff1000, 2);
	synth_waking(s, 1, US(1202), 200, SYN_SOFTIRQ, 100, "c", 0, false, NULL, 0);
	synth_switch(s, 0, US(1210), 0, "swapper/0", 0, 100, "c");
	synth_sock_recv(s, 0, US(1220), 100, 0xffff1000, 2, 64);
	synth_switch(s, 0, US(1250), 100, "c", S_INT, 0, "swapper/0");
	synth_sock_state(s, 1, US(1401), 200, 0xffff1000, lo, 40000, lo, 8080, 8);
	synth_waking(s, 1, US(1402), 200, SYN_SOFTIRQ, 100, "c", 0, false, NULL, 0);
	synth_switch(s, 1, US(1410), 200, "s", S_INT, 0, "swapper/1");
	synth_switch(s, 0, US(1414), 0, "swapper/0", 0, 100, "c");
	synth_exit(s, US(1500), 100, 100);
	synth_switch(s, 0, US(1500), 100, "c", S_DEAD, 0, "swapper/0");
	t = open_synth(s);
	a = t ? analyze(t, 100, 1000) : NULL;
	if (a) {
		struct rsp_explanation e;

		check_table(a, "a wait for the peer's close: the closer's run is the call", 800,
			    want, 2);
		rsp_analysis_explanation(a, &e);
		CHECK(e.cat_ns[RSP_CAT_KERNEL] == 0 && e.cat_ns[RSP_CAT_OTHER_PATH] == 0 &&
			      has_contributor(a, RSP_CAT_CPU_UNSAMPLED, "s", NULL),
		      "the server's close in the client's wait");
	}
	rsp_analysis_free(a);
	rsp_trace_free(t);
	synth_free(s);
}

/*
 * Queueing behind another connection.  The server s (CPU 1 from 800) reads a
 * request of client d at 850 (its connection 8080 <-> 40001); the client c
 * (the target, CPU 0 from 700) sends its own at 1100 and waits at 1110 while
 * s, still running, answers d at 1200, reads c's request at 1210, asks a back
 * end of its own (a connection on which it sends first, at 1250: no request
 * of its there; the back end's answer read at 1260, a second send at 1280)
 * and answers c at 1300 (c woken at 1302 from an idle CPU's softirq).  With
 * a 1 ms tolerance s's run is the call: c queued behind d over [1110,1200],
 * 90 us, all of it s's CPU (unsampled); the back end's exchange is not a
 * request.  Total 700: CPU 692, runnable 8, as without the queueing.
 */
static void test_queued_behind(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	struct rsp_analysis *a;
	struct expect want[] = { { RSP_CAT_CPU_UNSAMPLED, 692 }, { RSP_CAT_SCHED, 8 } };
	const uint8_t lo[4] = { 127, 0, 0, 1 };

	existing(s, 100, 100, "c");
	existing(s, 200, 200, "s");
	synth_switch(s, 0, US(700), 0, "swapper/0", 0, 100, "c");
	synth_switch(s, 1, US(800), 0, "swapper/1", 0, 200, "s");
	synth_sock_state(s, 1, US(801), 200, 0xffff2000, lo, 8080, lo, 40000, 1);
	synth_sock_state(s, 0, US(802), 100, 0xffff1000, lo, 40000, lo, 8080, 1);
	synth_sock_state(s, 1, US(803), 200, 0xffff4000, lo, 8080, lo, 40001, 1);
	synth_sock_recv(s, 1, US(850), 200, 0xffff4000, 2, 64);
	synth_sock_send(s, 0, US(1100), 100, 0xffff1000, 2, 64);
	synth_sk_ready(s, 0, US(1101), 100, SYN_SOFTIRQ, 0xffff2000, 2);
	synth_switch(s, 0, US(1110), 100, "c", S_INT, 0, "swapper/0");
	synth_sock_send(s, 1, US(1200), 200, 0xffff4000, 2, 64);
	synth_sock_recv(s, 1, US(1210), 200, 0xffff2000, 2, 64);
	synth_sock_send(s, 1, US(1250), 200, 0xffff5000, 1, 64);
	synth_sock_recv(s, 1, US(1260), 200, 0xffff5000, 1, 64);
	synth_sock_send(s, 1, US(1280), 200, 0xffff5000, 1, 64);
	synth_sock_send(s, 1, US(1300), 200, 0xffff2000, 2, 64);
	synth_sk_ready(s, 0, US(1301), 0, SYN_SOFTIRQ, 0xffff1000, 2);
	synth_waking(s, 0, US(1302), 0, SYN_SOFTIRQ, 100, "c", 0, false, NULL, 0);
	synth_switch(s, 1, US(1308), 200, "s", S_INT, 0, "swapper/1");
	synth_switch(s, 0, US(1310), 0, "swapper/0", 0, 100, "c");
	synth_exit(s, US(1400), 100, 100);
	synth_switch(s, 0, US(1400), 100, "c", S_DEAD, 0, "swapper/0");
	t = open_synth(s);
	a = t ? analyze(t, 100, 1000) : NULL;
	if (a) {
		struct rsp_explanation e;
		struct rsp_socket_info si = { 0 };
		uint64_t ns = 0, cat[RSP_CAT__COUNT];
		size_t sock = RSP_NO_INDEX;

		check_table(a, "queued behind another connection", 700, want, 2);
		rsp_analysis_explanation(a, &e);
		if (e.n_queued)
			rsp_analysis_queued(a, 0, &sock, &ns, cat);
		if (sock != RSP_NO_INDEX)
			rsp_trace_socket(t, sock, &si);
		CHECK(e.queued_ns == NS(90) && e.n_queued == 1 && ns == NS(90),
		      "c queued 90 us behind one connection (%.3f us, %zu)", e.queued_ns / 1e3,
		      e.n_queued);
		CHECK(!strcmp(si.remote, "127.0.0.1:40001") && cat[RSP_CAT_CPU_UNSAMPLED] == NS(90),
		      "d's (%s), while s ran", si.remote);
		if (e.n_queued) {
			enum rsp_category c;
			const char *what;
			uint64_t wns;

			rsp_analysis_queued_what(a, 0, 0, &c, &what, &wns);
			CHECK(rsp_analysis_n_queued_what(a, 0) == 1 && c == RSP_CAT_CPU_UNSAMPLED &&
				      !strcmp(what, "s") && wns == NS(90),
			      "named by what s did: its run, no stack (%s, %.3f us)", what, wns / 1e3);
		}
	}
	rsp_analysis_free(a);
	rsp_trace_free(t);
	synth_free(s);
}

/*
 * Queueing behind another connection in a thread pool: the server's I/O thread
 * io (tid 200, CPU 1) reads client d's request at 850 (connection 8080 <->
 * 40001) and wakes worker w0 (tid 201, CPU 2 from 860), which takes the store
 * lock and runs until 1250.  The client c (the target, CPU 0 from 700) sends
 * at 1100 and waits at 1110; io reads c's request at 1120 and wakes worker w1
 * (tid 202, CPU 3 from 1130), which runs 20 us and waits for the lock from
 * 1150; w0 releases it at 1250 (waking w1), answers d at 1260; w1 runs from
 * 1255 and answers c at 1300 (c woken at 1302 from an idle CPU's softirq).
 * w1's wait is a call into w0, whose run [1150,1250] serves d's request (w0's
 * window: d's receive to w0's reply): c queued 100 us behind d's connection,
 * w0's CPU.  The rest of the call is c's own request (io's receive and
 * hand-off, w1's runs) or before it (io's [1110,1120]).  Total 700: CPU 682
 * (c 410 + 90, io 15, w1 20 + 47, w0 100), runnable 18 (w1 5 + 5, c 8).  (A
 * run without stack or sample is named by its process, io, as in the table.)
 */
static void test_queued_behind_pool(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	struct rsp_analysis *a;
	struct expect want[] = { { RSP_CAT_CPU_UNSAMPLED, 682 }, { RSP_CAT_SCHED, 18 } };
	const uint8_t lo[4] = { 127, 0, 0, 1 };

	existing(s, 100, 100, "c");
	existing(s, 200, 200, "io");
	existing(s, 200, 201, "w0");
	existing(s, 200, 202, "w1");
	synth_switch(s, 0, US(700), 0, "swapper/0", 0, 100, "c");
	synth_switch(s, 2, US(700), 0, "swapper/2", 0, 201, "w0");
	synth_switch(s, 3, US(700), 0, "swapper/3", 0, 202, "w1");
	synth_switch(s, 2, US(705), 201, "w0", S_INT, 0, "swapper/2");
	synth_switch(s, 3, US(705), 202, "w1", S_INT, 0, "swapper/3");
	synth_switch(s, 1, US(800), 0, "swapper/1", 0, 200, "io");
	synth_sock_state(s, 1, US(801), 200, 0xffff2000, lo, 8080, lo, 40000, 1);
	synth_sock_state(s, 0, US(802), 100, 0xffff1000, lo, 40000, lo, 8080, 1);
	synth_sock_state(s, 1, US(803), 200, 0xffff4000, lo, 8080, lo, 40001, 1);
	synth_sock_recv(s, 1, US(850), 200, 0xffff4000, 2, 64);
	synth_waking(s, 1, US(855), 200, 0, 201, "w0", 2, false, NULL, 0);
	synth_switch(s, 2, US(860), 0, "swapper/2", 0, 201, "w0");
	synth_switch(s, 1, US(870), 200, "io", S_INT, 0, "swapper/1");
	synth_sock_send(s, 0, US(1100), 100, 0xffff1000, 2, 64);
	synth_sk_ready(s, 0, US(1101), 100, SYN_SOFTIRQ, 0xffff2000, 2);
	synth_waking(s, 0, US(1102), 100, SYN_SOFTIRQ, 200, "io", 1, false, NULL, 0);
	synth_switch(s, 1, US(1105), 0, "swapper/1", 0, 200, "io");
	synth_switch(s, 0, US(1110), 100, "c", S_INT, 0, "swapper/0");
	synth_sock_recv(s, 1, US(1120), 200, 0xffff2000, 2, 64);
	synth_waking(s, 1, US(1125), 200, 0, 202, "w1", 3, false, NULL, 0);
	synth_switch(s, 1, US(1130), 200, "io", S_INT, 0, "swapper/1");
	synth_switch(s, 3, US(1130), 0, "swapper/3", 0, 202, "w1");
	synth_switch(s, 3, US(1150), 202, "w1", S_INT, 0, "swapper/3");
	synth_waking(s, 2, US(1250), 201, 0, 202, "w1", 3, false, NULL, 0);
	synth_switch(s, 3, US(1255), 0, "swapper/3", 0, 202, "w1");
	synth_sock_send(s, 2, US(1260), 201, 0xffff4000, 2, 64);
	synth_switch(s, 2, US(1270), 201, "w0", S_INT, 0, "swapper/2");
	synth_sock_send(s, 3, US(1300), 202, 0xffff2000, 2, 64);
	synth_sk_ready(s, 0, US(1301), 0, SYN_SOFTIRQ, 0xffff1000, 2);
	synth_waking(s, 0, US(1302), 0, SYN_SOFTIRQ, 100, "c", 0, false, NULL, 0);
	synth_switch(s, 3, US(1308), 202, "w1", S_INT, 0, "swapper/3");
	synth_switch(s, 0, US(1310), 0, "swapper/0", 0, 100, "c");
	synth_exit(s, US(1400), 100, 100);
	synth_switch(s, 0, US(1400), 100, "c", S_DEAD, 0, "swapper/0");
	t = open_synth(s);
	a = t ? analyze(t, 100, 1000) : NULL;
	if (a) {
		struct rsp_explanation e;
		struct rsp_socket_info si = { 0 };
		uint64_t ns = 0, cat[RSP_CAT__COUNT];
		size_t sock = RSP_NO_INDEX;

		check_table(a, "queued behind another connection of a thread pool", 700, want, 2);
		rsp_analysis_explanation(a, &e);
		if (e.n_queued)
			rsp_analysis_queued(a, 0, &sock, &ns, cat);
		if (sock != RSP_NO_INDEX)
			rsp_trace_socket(t, sock, &si);
		CHECK(e.queued_ns == NS(100) && e.n_queued == 1 && ns == NS(100),
		      "c queued 100 us behind one connection (%.3f us, %zu)", e.queued_ns / 1e3,
		      e.n_queued);
		CHECK(!strcmp(si.remote, "127.0.0.1:40001") && cat[RSP_CAT_CPU_UNSAMPLED] == NS(100),
		      "d's (%s), while w0 held the lock", si.remote);
		if (e.n_queued) {
			enum rsp_category c;
			const char *what;
			uint64_t wns;

			rsp_analysis_queued_what(a, 0, 0, &c, &what, &wns);
			CHECK(rsp_analysis_n_queued_what(a, 0) == 1 && c == RSP_CAT_CPU_UNSAMPLED &&
				      !strcmp(what, "io") && wns == NS(100),
			      "named by what w0 did: its run, no stack (%s, %.3f us)", what, wns / 1e3);
		}
	}
	rsp_analysis_free(a);
	rsp_trace_free(t);
	synth_free(s);
}

/*
 * Queueing behind another connection of a process-per-connection server (as
 * PostgreSQL's backends, which wait on each other's locks): backend a (comm
 * pg, pid 200, CPU 1) serves client c's connection (8080 <-> 40000), backend
 * b (comm @bname, pid 300, CPU 2) client d's (8080 <-> 40001).  b reads d's
 * request at 850 and runs, holding a lock, until 1250.  c (the target, CPU 0
 * from 700) sends at 1100 and waits at 1110; a reads it at 1120, runs 30 us
 * and waits for the lock from 1150; b releases it at 1250 (waking a), answers
 * d at 1260; a runs from 1255 and answers c at 1300 (c woken at 1302).  a's
 * wait is a call into b, whose run [1150,1250] serves d's request: c queued
 * 100 us behind d's connection, b's CPU, as in a thread pool; none when b is
 * another program (a client of the server, whose socket calls look like
 * requests too).
 */
static void test_queued_behind_other_process(const char *bname, uint64_t want_us)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	struct rsp_analysis *a;
	const uint8_t lo[4] = { 127, 0, 0, 1 };

	existing(s, 100, 100, "c");
	existing(s, 200, 200, "pg");
	existing(s, 300, 300, bname);
	synth_switch(s, 0, US(700), 0, "swapper/0", 0, 100, "c");
	synth_switch(s, 1, US(700), 0, "swapper/1", 0, 200, "pg");
	synth_switch(s, 2, US(700), 0, "swapper/2", 0, 300, bname);
	synth_switch(s, 1, US(705), 200, "pg", S_INT, 0, "swapper/1");
	synth_switch(s, 2, US(705), 300, bname, S_INT, 0, "swapper/2");
	synth_sock_state(s, 1, US(801), 0, 0xffff2000, lo, 8080, lo, 40000, 1);
	synth_sock_state(s, 0, US(802), 100, 0xffff1000, lo, 40000, lo, 8080, 1);
	synth_sock_state(s, 2, US(803), 0, 0xffff4000, lo, 8080, lo, 40001, 1);
	synth_switch(s, 2, US(845), 0, "swapper/2", 0, 300, bname);
	synth_sock_recv(s, 2, US(850), 300, 0xffff4000, 2, 64);
	synth_sock_send(s, 0, US(1100), 100, 0xffff1000, 2, 64);
	synth_sk_ready(s, 0, US(1101), 100, SYN_SOFTIRQ, 0xffff2000, 2);
	synth_waking(s, 0, US(1102), 100, SYN_SOFTIRQ, 200, "pg", 1, false, NULL, 0);
	synth_switch(s, 1, US(1105), 0, "swapper/1", 0, 200, "pg");
	synth_switch(s, 0, US(1110), 100, "c", S_INT, 0, "swapper/0");
	synth_sock_recv(s, 1, US(1120), 200, 0xffff2000, 2, 64);
	synth_switch(s, 1, US(1150), 200, "pg", S_INT, 0, "swapper/1");
	synth_waking(s, 2, US(1250), 300, 0, 200, "pg", 1, false, NULL, 0);
	synth_switch(s, 1, US(1255), 0, "swapper/1", 0, 200, "pg");
	synth_sock_send(s, 2, US(1260), 300, 0xffff4000, 2, 64);
	synth_switch(s, 2, US(1270), 300, bname, S_INT, 0, "swapper/2");
	synth_sock_send(s, 1, US(1300), 200, 0xffff2000, 2, 64);
	synth_sk_ready(s, 0, US(1301), 0, SYN_SOFTIRQ, 0xffff1000, 2);
	synth_waking(s, 0, US(1302), 0, SYN_SOFTIRQ, 100, "c", 0, false, NULL, 0);
	synth_switch(s, 1, US(1308), 200, "pg", S_INT, 0, "swapper/1");
	synth_switch(s, 0, US(1310), 0, "swapper/0", 0, 100, "c");
	synth_exit(s, US(1400), 100, 100);
	synth_switch(s, 0, US(1400), 100, "c", S_DEAD, 0, "swapper/0");
	t = open_synth(s);
	a = t ? analyze(t, 100, 1000) : NULL;
	if (a) {
		struct rsp_explanation e;
		struct rsp_socket_info si = { 0 };
		uint64_t ns = 0, cat[RSP_CAT__COUNT];
		size_t sock = RSP_NO_INDEX;

		rsp_analysis_explanation(a, &e);
		if (e.n_queued)
			rsp_analysis_queued(a, 0, &sock, &ns, cat);
		if (sock != RSP_NO_INDEX)
			rsp_trace_socket(t, sock, &si);
		CHECK(want_us ? e.queued_ns == NS(want_us) && e.n_queued == 1 &&
					ns == NS(want_us) && !strcmp(si.remote, "127.0.0.1:40001") :
				!e.queued_ns && !e.n_queued,
		      "another process's lock, its holder %s: c queued %" PRIu64 " us behind d's "
		      "connection (%.3f us, %zu connections, %s)", bname, want_us,
		      e.queued_ns / 1e3, e.n_queued, si.remote);
	}
	rsp_analysis_free(a);
	rsp_trace_free(t);
	synth_free(s);
}

/*
 * Queueing in a thread pool's queue: one worker w0 (tid 201, CPU 2) serves
 * client d's request (read by the I/O thread io, tid 200, at 850; w0 woken at
 * 855, running from 860).  The client c (the target, CPU 0 from 700) sends at
 * 1100 and waits at 1110; io reads c's request at 1120 and queues it (no
 * wakeup: w0 is busy); w0 answers d at 1200, takes c's request without
 * sleeping and answers it at 1300 (c woken at 1302).  w0's windows: d's
 * [850,1200], c's from w0's previous reply, 1200, to 1300: c queued 90 us
 * behind d's connection, w0's CPU.  Total 700: CPU 692 (c 410 + 90, w0 192),
 * runnable 8.
 */
static void test_queued_behind_pool_queue(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	struct rsp_analysis *a;
	struct expect want[] = { { RSP_CAT_CPU_UNSAMPLED, 692 }, { RSP_CAT_SCHED, 8 } };
	const uint8_t lo[4] = { 127, 0, 0, 1 };

	existing(s, 100, 100, "c");
	existing(s, 200, 200, "io");
	existing(s, 200, 201, "w0");
	synth_switch(s, 0, US(700), 0, "swapper/0", 0, 100, "c");
	synth_switch(s, 2, US(700), 0, "swapper/2", 0, 201, "w0");
	synth_switch(s, 2, US(705), 201, "w0", S_INT, 0, "swapper/2");
	synth_switch(s, 1, US(800), 0, "swapper/1", 0, 200, "io");
	synth_sock_state(s, 1, US(801), 200, 0xffff2000, lo, 8080, lo, 40000, 1);
	synth_sock_state(s, 0, US(802), 100, 0xffff1000, lo, 40000, lo, 8080, 1);
	synth_sock_state(s, 1, US(803), 200, 0xffff4000, lo, 8080, lo, 40001, 1);
	synth_sock_recv(s, 1, US(850), 200, 0xffff4000, 2, 64);
	synth_waking(s, 1, US(855), 200, 0, 201, "w0", 2, false, NULL, 0);
	synth_switch(s, 2, US(860), 0, "swapper/2", 0, 201, "w0");
	synth_switch(s, 1, US(870), 200, "io", S_INT, 0, "swapper/1");
	synth_sock_send(s, 0, US(1100), 100, 0xffff1000, 2, 64);
	synth_sk_ready(s, 0, US(1101), 100, SYN_SOFTIRQ, 0xffff2000, 2);
	synth_waking(s, 0, US(1102), 100, SYN_SOFTIRQ, 200, "io", 1, false, NULL, 0);
	synth_switch(s, 1, US(1105), 0, "swapper/1", 0, 200, "io");
	synth_switch(s, 0, US(1110), 100, "c", S_INT, 0, "swapper/0");
	synth_sock_recv(s, 1, US(1120), 200, 0xffff2000, 2, 64);
	synth_switch(s, 1, US(1130), 200, "io", S_INT, 0, "swapper/1");
	synth_sock_send(s, 2, US(1200), 201, 0xffff4000, 2, 64);
	synth_sock_send(s, 2, US(1300), 201, 0xffff2000, 2, 64);
	synth_sk_ready(s, 0, US(1301), 0, SYN_SOFTIRQ, 0xffff1000, 2);
	synth_waking(s, 0, US(1302), 0, SYN_SOFTIRQ, 100, "c", 0, false, NULL, 0);
	synth_switch(s, 2, US(1308), 201, "w0", S_INT, 0, "swapper/2");
	synth_switch(s, 0, US(1310), 0, "swapper/0", 0, 100, "c");
	synth_exit(s, US(1400), 100, 100);
	synth_switch(s, 0, US(1400), 100, "c", S_DEAD, 0, "swapper/0");
	t = open_synth(s);
	a = t ? analyze(t, 100, 1000) : NULL;
	if (a) {
		struct rsp_explanation e;
		struct rsp_socket_info si = { 0 };
		uint64_t ns = 0, cat[RSP_CAT__COUNT];
		size_t sock = RSP_NO_INDEX;

		check_table(a, "queued in a thread pool's queue", 700, want, 2);
		rsp_analysis_explanation(a, &e);
		if (e.n_queued)
			rsp_analysis_queued(a, 0, &sock, &ns, cat);
		if (sock != RSP_NO_INDEX)
			rsp_trace_socket(t, sock, &si);
		CHECK(e.queued_ns == NS(90) && e.n_queued == 1 && ns == NS(90),
		      "c queued 90 us in the queue behind one connection (%.3f us, %zu)",
		      e.queued_ns / 1e3, e.n_queued);
		CHECK(!strcmp(si.remote, "127.0.0.1:40001") && cat[RSP_CAT_CPU_UNSAMPLED] == NS(90),
		      "d's (%s), while w0 served it", si.remote);
	}
	rsp_analysis_free(a);
	rsp_trace_free(t);
	synth_free(s);
}

/*
 * Not queueing: a pool's worker preempted by the worker it woke.  The client c
 * (the target, CPU 0) sends at 1100 and waits at 1110; the I/O thread io (tid
 * 200, CPU 1) reads it at 1120 and wakes worker w0 (tid 201, CPU 2 from
 * 1130), which takes the lock; io reads client d's request at 1150 and wakes
 * w1 (tid 202, CPU 3 from 1160), which waits for the lock from 1180.  w0
 * releases it at 1250, waking w1 onto its own CPU: w1 preempts w0 at 1252,
 * answers d at 1300 and sleeps at 1302; w0 runs again and answers c at 1310
 * (c woken at 1312).  w1's run is a hand-off inside c's wait (§2), but w0
 * waited for a CPU, not behind d's request: nothing queued (with the
 * worker's windows checked there, 48 us behind d).  Total 700: CPU 687 (c
 * 410 + 80, io 15, w0 122 + 10, w1 50), runnable 13 (w0 5, c 8).
 */
static void test_queued_not_preempted(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	struct rsp_analysis *a;
	struct expect want[] = { { RSP_CAT_CPU_UNSAMPLED, 687 }, { RSP_CAT_SCHED, 13 } };
	const uint8_t lo[4] = { 127, 0, 0, 1 };

	existing(s, 100, 100, "c");
	existing(s, 200, 200, "io");
	existing(s, 200, 201, "w0");
	existing(s, 200, 202, "w1");
	synth_switch(s, 0, US(700), 0, "swapper/0", 0, 100, "c");
	synth_switch(s, 2, US(700), 0, "swapper/2", 0, 201, "w0");
	synth_switch(s, 3, US(700), 0, "swapper/3", 0, 202, "w1");
	synth_switch(s, 2, US(705), 201, "w0", S_INT, 0, "swapper/2");
	synth_switch(s, 3, US(705), 202, "w1", S_INT, 0, "swapper/3");
	synth_switch(s, 1, US(800), 0, "swapper/1", 0, 200, "io");
	synth_sock_state(s, 1, US(801), 200, 0xffff2000, lo, 8080, lo, 40000, 1);
	synth_sock_state(s, 0, US(802), 100, 0xffff1000, lo, 40000, lo, 8080, 1);
	synth_sock_state(s, 1, US(803), 200, 0xffff4000, lo, 8080, lo, 40001, 1);
	synth_switch(s, 1, US(810), 200, "io", S_INT, 0, "swapper/1");
	synth_sock_send(s, 0, US(1100), 100, 0xffff1000, 2, 64);
	synth_sk_ready(s, 0, US(1101), 100, SYN_SOFTIRQ, 0xffff2000, 2);
	synth_waking(s, 0, US(1102), 100, SYN_SOFTIRQ, 200, "io", 1, false, NULL, 0);
	synth_switch(s, 1, US(1105), 0, "swapper/1", 0, 200, "io");
	synth_switch(s, 0, US(1110), 100, "c", S_INT, 0, "swapper/0");
	synth_sock_recv(s, 1, US(1120), 200, 0xffff2000, 2, 64);
	synth_waking(s, 1, US(1125), 200, 0, 201, "w0", 2, false, NULL, 0);
	synth_switch(s, 2, US(1130), 0, "swapper/2", 0, 201, "w0");
	synth_sock_recv(s, 1, US(1150), 200, 0xffff4000, 2, 64);
	synth_waking(s, 1, US(1155), 200, 0, 202, "w1", 3, false, NULL, 0);
	synth_switch(s, 1, US(1158), 200, "io", S_INT, 0, "swapper/1");
	synth_switch(s, 3, US(1160), 0, "swapper/3", 0, 202, "w1");
	synth_switch(s, 3, US(1180), 202, "w1", S_INT, 0, "swapper/3");
	synth_waking(s, 2, US(1250), 201, 0, 202, "w1", 2, false, NULL, 0);
	synth_switch(s, 2, US(1252), 201, "w0", 0, 202, "w1");
	synth_sock_send(s, 2, US(1300), 202, 0xffff4000, 2, 64);
	synth_switch(s, 2, US(1302), 202, "w1", S_INT, 201, "w0");
	synth_sock_send(s, 2, US(1310), 201, 0xffff2000, 2, 64);
	synth_sk_ready(s, 0, US(1311), 0, SYN_SOFTIRQ, 0xffff1000, 2);
	synth_waking(s, 0, US(1312), 0, SYN_SOFTIRQ, 100, "c", 0, false, NULL, 0);
	synth_switch(s, 2, US(1318), 201, "w0", S_INT, 0, "swapper/2");
	synth_switch(s, 0, US(1320), 0, "swapper/0", 0, 100, "c");
	synth_exit(s, US(1400), 100, 100);
	synth_switch(s, 0, US(1400), 100, "c", S_DEAD, 0, "swapper/0");
	t = open_synth(s);
	a = t ? analyze(t, 100, 1000) : NULL;
	if (a) {
		struct rsp_explanation e;

		check_table(a, "a pool's worker preempted by the worker it woke", 700, want, 2);
		rsp_analysis_explanation(a, &e);
		CHECK(e.queued_ns == 0 && e.n_queued == 0,
		      "waiting for a CPU is not queueing behind d (%.3f us, %zu)", e.queued_ns / 1e3,
		      e.n_queued);
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
	struct synth_opts o = { .kallsyms = sites_kallsyms,
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
	struct synth_opts o = { .kallsyms = sites_kallsyms,
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

int main(void)
{
	test_sort_claims();
	test_first_slice_gallop();
	test_pingpong();
	test_long_summary();
	test_triangle();
	test_poll_timeout();
	test_defacto();
	test_disk();
	test_disk_no_issuer();
	test_preemption();
	test_preempted_then_others();
	test_preempted_by_namesake();
	test_hardware();
	test_async_child();
	test_callee_runs_on(1300);
	test_callee_runs_on(1050);
	test_callee_runs_on(950);
	test_lost();
	test_silent_target();
	test_deep_chain();
	test_names();
	test_label_collision();
	test_sites();
	test_sample_period();
	test_preempted_by_sibling();
	test_sched_split();
	test_async_overhang();
	test_wakeup_not_ending_wait();
	test_wait_for_path_cpu();
	test_helper_woken_for_nothing();
	test_wakeup_not_ending_cut_wait();
	test_fork_holds_cpu();
	test_callee_holds_cpu();
	test_callee_woke_early();
	test_callee_tail_unsampled();
	test_window_hand_off();
	test_hand_off_through_threads();
	test_net_sender_run();
	test_net_peer_close();
	test_udp_reply(false);
	test_udp_reply(true);
	test_queued_behind_udp();
	test_queued_behind();
	test_queued_behind_pool();
	test_queued_behind_other_process("pg", 100);
	test_queued_behind_other_process("other", 0);
	test_queued_behind_pool_queue();
	test_queued_not_preempted();
	test_samples_only(false);
	test_samples_only_unsampled_parent();
	test_samples_only(true);
	return tap_done();
}
