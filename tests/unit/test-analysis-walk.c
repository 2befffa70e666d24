/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * model/analysis/analysis.c: the recursive walk itself.  A sleep is explained by
 * what ended it: a call into its waker, a return, another control path, a disk,
 * the network, a timer, a device, records lost; forked children; a request's
 * window handed between threads.
 * The explanation table from synthetic traces with exact expected answers (times
 * in microseconds; the tables are worked out in the comments); analysis-check.h
 * checks every table for its invariants.
 */
#include "analysis-check.h"

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
	struct synth_opts so = { .kallsyms = SITES_KALLSYMS };
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
 * What the other path did during the wait (issue 41 item 6).  parent (1000)
 * and its thread child (1001, a target thread: a control path of its own)
 * started at 1100.  parent waits [1500, 1795], woken by child.  child meanwhile
 * (us): runs to 1600 (samples at 1300 f_loop, 1550 f_read, 1590 f_write),
 * sleeps in f_poll from 1600, woken at 1640 by other (2000, another process:
 * so child is no helper of parent), runnable to 1650, runs to 1700 (no sample),
 * preempted in f_work by other to 1750, runs (a sample at 1780, f_other) and
 * wakes parent at 1795.  Each instant of a run is named by the sample that
 * stands for it (the first after it in the run, else the run's last): the
 * wait's 295 us stay other_path, in pieces: f_read [1500,1550) 50, f_write
 * [1550,1600) 50, waiting in f_poll [1600,1640) 40, runnable 10, the unsampled
 * run by its site ("between f_poll and f_work") 50, preempted in f_work 50,
 * f_other [1750,1795) 45.  Before: one piece, 295, named f_other (what child
 * ran when it ended the wait).
 */
static void test_other_path_during(void)
{
	struct synth_opts so = { .kallsyms = SITES_KALLSYMS };
	struct synth *s = synth_new(&so);
	const uint64_t LOOP[] = { 0xffffffff81000310ull }, READ[] = { 0xffffffff81000110ull },
		       WRITE[] = { 0xffffffff81000210ull }, POLL[] = { 0xffffffff81000510ull },
		       WORK[] = { 0xffffffff81000410ull }, OTHER[] = { 0xffffffff81000610ull };
	static const struct {
		const char *what;
		uint64_t us;
	} want[] = {
		{ "child (tid 1001): [kernel] f_read", 50 },
		{ "child (tid 1001): [kernel] f_write", 50 },
		{ "child (tid 1001): waiting in [kernel] f_poll", 40 },
		{ "child (tid 1001): runnable", 10 },
		{ "child (tid 1001): between f_poll and f_work", 50 },
		{ "child (tid 1001): preempted in [kernel] f_work", 50 },
		{ "child (tid 1001): [kernel] f_other", 45 },
	};
	struct rsp_trace *t;
	struct rsp_analysis *a;

	existing(s, 1000, 1000, "parent");
	existing(s, 2000, 2000, "other");
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, 1000, "parent");
	synth_fork(s, US(1100), 1000, 1000, 1001, 1000);
	synth_comm(s, US(1100), 1000, 1001, "child", false);
	synth_fork_tp(s, 0, US(1100), 1000, 1001, "child");
	synth_wakeup_new(s, 0, US(1100), 1000, 1001, 1);
	synth_switch(s, 1, US(1110), 0, "swapper/1", 0, 1001, "child");
	synth_sample(s, 1, US(1300), 1000, 1001, LOOP, 1);
	synth_switch(s, 0, US(1500), 1000, "parent", S_INT, 0, "swapper/0");
	synth_sample(s, 1, US(1550), 1000, 1001, READ, 1);
	synth_sample(s, 1, US(1590), 1000, 1001, WRITE, 1);
	synth_switch_stack(s, 1, US(1600), 1001, "child", S_INT, 0, "swapper/1", POLL, 1);
	synth_switch(s, 0, US(1620), 0, "swapper/0", 0, 2000, "other");
	synth_waking(s, 0, US(1640), 2000, 0, 1001, "child", 1, false, NULL, 0);
	synth_switch(s, 0, US(1645), 2000, "other", S_INT, 0, "swapper/0");
	synth_switch(s, 1, US(1650), 0, "swapper/1", 0, 1001, "child");
	synth_switch_stack(s, 1, US(1700), 1001, "child", 0, 2000, "other", WORK, 1);
	synth_switch(s, 1, US(1750), 2000, "other", S_INT, 1001, "child");
	synth_sample(s, 1, US(1780), 1000, 1001, OTHER, 1);
	synth_waking(s, 1, US(1795), 1001, 0, 1000, "parent", 0, false, NULL, 0);
	synth_switch(s, 1, US(1800), 1001, "child", S_INT, 0, "swapper/1");
	synth_switch(s, 0, US(1810), 0, "swapper/0", 0, 1000, "parent");
	synth_switch(s, 0, US(1900), 1000, "parent", S_INT, 0, "swapper/0");
	t = open_synth_sym(s, true);
	a = t ? analyze(t, 1000, 50) : NULL;
	CHECK(a != NULL, "analyzed");
	if (a) {
		struct rsp_explanation e;
		uint64_t sum = 0;

		rsp_analysis_explanation(a, &e);
		for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
			uint64_t ns = contributor_ns(a, RSP_CAT_OTHER_PATH, want[i].what, NULL, NULL);

			CHECK(ns == NS(want[i].us), "\"%s\": %llu us (%.3f)", want[i].what,
			      (unsigned long long)want[i].us, ns / 1e3);
			sum += ns;
		}
		CHECK(e.cat_ns[RSP_CAT_OTHER_PATH] == NS(295) && sum == NS(295),
		      "the category stays 295 us, all in the pieces (%.3f, %.3f)",
		      e.cat_ns[RSP_CAT_OTHER_PATH] / 1e3, sum / 1e3);
		for (size_t i = 0; i < rsp_analysis_n_contributors(a, RSP_CAT_OTHER_PATH); i++) {
			struct rsp_contributor k;

			rsp_analysis_contributor(a, RSP_CAT_OTHER_PATH, i, &k);
			printf("# %s %.3f\n", k.what, k.ns / 1e3);
		}
	}
	rsp_analysis_free(a);
	rsp_trace_free(t);
	synth_free(s);
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
	struct synth_opts so = { .kallsyms = SITES_KALLSYMS };
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
 * A request handed to a worker thread of the same process (a thread pool):
 * io (tid 500) wakes worker (tid 501) at 1090 and waits at 1100; the worker
 * runs [1095,1400] on CPU 1 and wakes io at 1390; io runs [1400,1450].  As
 * a request's window on io [1000,1450] (rsp report --requests), the worker's
 * work is the request's: a call, its CPU inside the wait, no other path (io's
 * own CPU is 150 us: the other 290 are the worker's; io runnable 10).  As the
 * process's whole life, the worker is a target thread with a path of its own,
 * but io handed it the work it waited for (test-analysis-helpers.c): a call
 * there too, io's path the same 450 us, the worker's path without it.
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
		CHECK(e.total_ns == NS(450) && e.cat_ns[RSP_CAT_OTHER_PATH] == 0 &&
			      e.cat_ns[RSP_CAT_CPU_UNSAMPLED] == NS(440),
		      "the process's life: io's wait is a call into its helper (cpu %.3f, other "
		      "path %.3f us)",
		      e.cat_ns[RSP_CAT_CPU_UNSAMPLED] / 1e3, e.cat_ns[RSP_CAT_OTHER_PATH] / 1e3);
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

int main(int argc, char **argv)
{
	tap_init(argc, argv);
	TAP_RUN("pingpong", test_pingpong());
	TAP_RUN("triangle", test_triangle());
	TAP_RUN("poll_timeout", test_poll_timeout());
	TAP_RUN("defacto", test_defacto());
	TAP_RUN("disk", test_disk());
	TAP_RUN("disk_no_issuer", test_disk_no_issuer());
	TAP_RUN("hardware", test_hardware());
	TAP_RUN("async_child", test_async_child());
	TAP_RUN("other_path_during", test_other_path_during());
	TAP_RUN("callee_runs_on/1300", test_callee_runs_on(1300));
	TAP_RUN("callee_runs_on/1050", test_callee_runs_on(1050));
	TAP_RUN("callee_runs_on/950", test_callee_runs_on(950));
	TAP_RUN("lost", test_lost());
	TAP_RUN("silent_target", test_silent_target());
	TAP_RUN("deep_chain", test_deep_chain());
	TAP_RUN("async_overhang", test_async_overhang());
	TAP_RUN("wakeup_not_ending_wait", test_wakeup_not_ending_wait());
	TAP_RUN("helper_woken_for_nothing", test_helper_woken_for_nothing());
	TAP_RUN("wakeup_not_ending_cut_wait", test_wakeup_not_ending_cut_wait());
	TAP_RUN("window_hand_off", test_window_hand_off());
	TAP_RUN("hand_off_through_threads", test_hand_off_through_threads());
	TAP_RUN("net_sender_run", test_net_sender_run());
	TAP_RUN("net_peer_close", test_net_peer_close());
	TAP_RUN("udp_reply/sent", test_udp_reply(false));
	TAP_RUN("udp_reply/recv_first", test_udp_reply(true));
	return tap_done();
}
