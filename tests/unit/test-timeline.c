/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The timeline from synthetic perf.data streams with known answers: one
 * mechanism per test.  Times are in microseconds from 1 s (US()).  Reading
 * the file (layouts, compression, cut files) is tested in test-read.c.
 */
#include "trace-check.h"

#include "rsp-perf-format.h"
#include "timeline/load-private.h"
#include <errno.h>

#include <unistd.h>

/* The slice of @thread covering @time; false (and *s zeroed) if none. */
static bool slice_at(struct rsp_trace *t, size_t thread, uint64_t time, struct rsp_slice_info *s)
{
	size_t k = rsp_thread_find_slice(t, thread, time);

	memset(s, 0, sizeof(*s));
	if (k == RSP_NO_INDEX)
		return false;
	rsp_thread_slice(t, thread, k, s);
	return true;
}

static void test_pingpong(void)
{
	struct synth *s = synth_new(NULL);
	char err[256];
	struct rsp_trace *t;
	struct rsp_trace_summary sum;

	pingpong_events(s);
	t = open_synth(s, err, sizeof(err));
	CHECK(t != NULL, "ping-pong opens (%s)", t ? "" : err);
	if (t) {
		check_pingpong(t, "pipe");
		rsp_trace_get_summary(t, &sum);
		CHECK(sum.pipe_mode && sum.inferred_switches == 0 && sum.broken_chains == 0,
		      "nothing inferred, nothing broken");
		CHECK(sum.start_ns == US(1000) && sum.end_ns == US(1400), "time span");
		rsp_trace_free(t);
	}
	synth_free(s);
}

static void test_scrambled(void)
{
	struct synth *a = synth_new(NULL), *b = synth_new(NULL);
	struct rsp_trace *ta, *tb;
	char err[256], da[2048];

	for (int k = 0; k < 2; k++) {
		struct synth *s = k ? b : a;

		synth_scramble_rounds(s, k == 1);
		synth_fork(s, 0, 10, 1, 10, 1);
		synth_fork(s, 0, 20, 1, 20, 1);
		synth_switch(s, 0, US(100), 0, "swapper/0", 0, 10, "x");
		synth_switch(s, 1, US(105), 0, "swapper/1", 0, 20, "y");
		synth_waking(s, 1, US(150), 20, 0, 10, "x", 0, false, NULL, 0);
		synth_switch(s, 0, US(120), 10, "x", S_INT, 0, "swapper/0");
		synth_switch(s, 0, US(160), 0, "swapper/0", 0, 10, "x");
		synth_switch(s, 1, US(170), 20, "y", S_INT, 0, "swapper/1");
		synth_round(s);
		synth_switch(s, 0, US(200), 10, "x", S_INT, 0, "swapper/0");
	}
	ta = open_synth(a, err, sizeof(err));
	tb = open_synth(b, err, sizeof(err));
	CHECK(ta && tb, "both orders open");
	if (ta && tb) {
		snprintf(da, sizeof(da), "%s", dump(ta, 10));
		CHECK_STR(dump(tb, 10), da, "records in CPU-drain order give the same timeline");
		CHECK_STR(da, "S100-100 R100-120 S120-160 R160-200 S200-200", "x's timeline");
	}
	rsp_trace_free(ta);
	rsp_trace_free(tb);
	synth_free(a);
	synth_free(b);
}

static void test_missing_switch_in(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	char err[256];
	uint64_t ip = 0x401000;

	synth_fork(s, 0, 100, 1, 100, 1);
	synth_switch(s, 1, US(900), 0, "swapper/1", 0, 100, "p");
	synth_switch(s, 1, US(1000), 100, "p", S_INT, 0, "swapper/1");
	/* an interrupt on the idle CPU wakes p; the kernel omits swapper -> p */
	synth_waking(s, 1, US(1500), 0, SYN_HARDIRQ, 100, "p", 1, false, NULL, 0);
	synth_sample(s, 1, US(1600), 100, 100, &ip, 1);
	synth_switch(s, 1, US(1700), 100, "p", S_INT, 0, "swapper/1");
	t = open_synth(s, err, sizeof(err));
	CHECK(t != NULL, "opens");
	if (t) {
		struct rsp_trace_summary sum;
		struct rsp_slice_info sl;
		struct rsp_link_info l;

		CHECK_STR(dump(t, 100), "S900-900 R900-1000 S1000-1500 R1500-1700i S1700-1700",
			  "switch-in inferred at the wakeup");
		slice_of(t, 100, 3, &sl);
		CHECK(sl.n_samples == 1, "the sample belongs to the inferred run");
		rsp_trace_get_summary(t, &sum);
		CHECK(sum.inferred_switches == 1, "one inferred switch-in");
		slice_of(t, 100, 2, &sl);
		rsp_trace_link(t, sl.link, &l);
		CHECK(l.kind == RSP_LINK_TIMER && l.context == RSP_WAKE_HARDIRQ &&
			      l.waker_thread == RSP_NO_INDEX,
		      "a hard-irq wakeup outside any irq handler is a timer");
		rsp_trace_free(t);
	}
	synth_free(s);
}

/*
 * The kernel omits a switch *out of* a thread, not only idle's (on this
 * machine, some threads' switch-outs are never recorded): the next task's
 * interrupt names it current, and the interrupt's wakeup is done in its time;
 * the thread left without a record is unknown from there, and not said to be
 * lost records (none were lost).
 */
static void test_missing_switch_out(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	char err[256];

	synth_fork(s, 0, 100, 1, 100, 1); /* agent: its switch-outs go unrecorded */
	synth_fork(s, 0, 200, 1, 200, 1); /* server */
	synth_fork(s, 0, 300, 1, 300, 1); /* client */
	synth_switch(s, 1, US(500), 0, "swapper/1", 0, 200, "server");
	synth_switch(s, 1, US(600), 200, "server", S_INT, 300, "client");
	synth_switch(s, 1, US(950), 300, "client", S_INT, 100, "agent");
	/* the server is woken from cpu0's idle; agent -> server is not recorded */
	synth_waking(s, 0, US(1050), 0, SYN_HARDIRQ, 200, "server", 1, false, NULL, 0);
	synth_softirq(s, SE_SOFTIRQ_ENTRY, 1, US(1100), 200, 3);
	synth_waking(s, 1, US(1101), 200, SYN_SOFTIRQ, 300, "client", 1, false, NULL, 0);
	synth_softirq(s, SE_SOFTIRQ_EXIT, 1, US(1102), 200, 3);
	synth_switch(s, 1, US(1200), 200, "server", S_INT, 300, "client");
	synth_switch(s, 1, US(1300), 300, "client", S_INT, 0, "swapper/1");
	t = open_synth(s, err, sizeof(err));
	CHECK(t != NULL, "opens (%s)", t ? "" : err);
	if (t) {
		struct rsp_slice_info sl;
		struct rsp_link_info l;

		CHECK_STR(dump(t, 200), "S500-500 R500-600 S600-1050 R1050-1200i S1200-1300",
			  "the server ran from its wakeup (its softirq said it was current)");
		slice_of(t, 300, 3, &sl);
		rsp_trace_link(t, sl.link, &l);
		CHECK(l.waker_thread == thread_of(t, 200) && l.context == RSP_WAKE_SOFTIRQ,
		      "the client was woken in the server's time, not the agent's");
		CHECK_STR(dump(t, 100), "S500-950 R950-1050 ?1050-1300",
			  "the agent: unknown from the server's run on");
		slice_of(t, 100, 2, &sl);
		CHECK(sl.kind == RSP_SLICE_UNKNOWN && !(sl.flags & RSP_SLICE_LOST),
		      "a broken chain, not lost records");
		rsp_trace_free(t);
	}
	synth_free(s);
}

static void test_lost(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	char err[256];
	uint64_t ip = 0x401000;

	synth_fork(s, 0, 100, 1, 100, 1);
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, 100, "a");
	synth_sample(s, 0, US(1100), 100, 100, &ip, 1);
	synth_lost(s, US(1500), 0, 10);
	synth_switch(s, 0, US(1800), 100, "a", S_INT, 0, "swapper/0");
	t = open_synth(s, err, sizeof(err));
	CHECK(t != NULL, "opens");
	if (t) {
		struct rsp_lost_info l;
		struct rsp_trace_summary sum;

		CHECK_STR(dump(t, 100), "S1000-1000 R1000-1100 ?1100-1800L R1800-1800i S1800-1800",
			  "unknown from the last event before the loss until a's next event");
		CHECK(rsp_trace_n_lost(t) == 1, "one lost span");
		rsp_trace_lost(t, 0, &l);
		CHECK(l.cpu == 0 && l.start_ns == US(1100) && l.end_ns == US(1500) && l.lost == 10,
		      "cpu0 1100..1500, 10 lost");
		rsp_trace_get_summary(t, &sum);
		CHECK(sum.lost_events == 10, "summary counts them");
		rsp_trace_free(t);
	}
	synth_free(s);
}

/*
 * rsp record's rings (synth rsp_rings): the system-wide ring, the target's
 * (inherited copies) and the ftrace copies.  On cpu0, a (100) runs from 1000;
 * the system-wide ring's last record is a sample at 1100; the ftrace copies go
 * on (wakings at 1200-1400); the switch a -> b at 1450 is in the target's ring
 * only, its system-wide copy comes at 1520 after that ring's LOST (1500, 3
 * lost).  The span is 1100..1500 (the ring's own last record, not the ftrace
 * copy's at 1400); b runs from 1450, unknown from there (the span) until the
 * system-wide copy at 1520 says it runs, then to 1800.  On cpu1, c (300)
 * runs from 1000; its switch-out is lost (LOST at 1700, 2 lost, the ring's
 * last record the switch-in at 1000): d (500) is seen running there at 1300
 * (an ftrace copy in its context) while c was current, a disagreement the
 * loss explains: c's unknown time from 1300 until it switches in on cpu0 at
 * 1900 is the loss's (d, current at the LOST, is the loss's too).  The target's ring loses 5 at 2000 (since its
 * last record, the switch at 1800): its copies and samples; the timeline
 * stays whole (b sleeps on).
 */
static void test_lost_rings(void)
{
	struct synth_opts o = { .second_waking_attr = true, .rsp_rings = true };
	struct synth *s = synth_new(&o);
	struct rsp_trace *t;
	char err[256];
	uint64_t ip = 0x401000;

	synth_fork(s, 0, 100, 1, 100, 1);
	synth_fork(s, 0, 200, 1, 200, 1);
	synth_fork(s, 0, 300, 1, 300, 1);
	synth_fork(s, 0, 500, 1, 500, 1);
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, 100, "a");
	synth_switch_copy(s, 0, US(1000), 0, "swapper/0", 0, 100, "a");
	synth_switch(s, 1, US(1000), 0, "swapper/1", 0, 300, "c");
	synth_sample(s, 0, US(1100), 100, 100, &ip, 1);
	for (int k = 0; k < 3; k++)
		synth_waking(s, 0, US(1200 + 100 * k), 100, 0, 400, "w", 0, true, NULL, 0);
	synth_waking(s, 1, US(1300), 500, 0, 400, "w", 1, true, NULL, 0);
	synth_switch_copy(s, 0, US(1450), 100, "a", 0 /* R */, 200, "b");
	synth_lost(s, US(1500), 0, 3);
	synth_switch(s, 0, US(1520), 100, "a", 0 /* R */, 200, "b");
	synth_lost(s, US(1700), 1, 2);
	synth_switch(s, 0, US(1800), 200, "b", S_INT, 0, "swapper/0");
	synth_switch_copy(s, 0, US(1800), 200, "b", S_INT, 0, "swapper/0");
	synth_switch(s, 0, US(1900), 0, "swapper/0", 0, 300, "c");
	synth_lost_target(s, US(2000), 0, 5);
	synth_switch(s, 0, US(2100), 300, "c", S_INT, 0, "swapper/0");
	t = open_synth(s, err, sizeof(err));
	CHECK(t != NULL, "rings: opens");
	if (t) {
		struct rsp_lost_info l[3];
		size_t n = rsp_trace_n_lost(t);

		for (size_t i = 0; i < n && i < 3; i++)
			rsp_trace_lost(t, i, &l[i]);
		CHECK(n == 3, "rings: three lost spans (got %zu)", n);
		CHECK(n >= 1 && !l[0].event && l[0].cpu == 0 && l[0].start_ns == US(1100) &&
		      l[0].end_ns == US(1500),
		      "rings: the system-wide ring's span from its own last record, 1100..1500 "
		      "(got %lld..%lld)", n ? ((long long)l[0].start_ns - 1000000000ll) / 1000 : 0,
		      n ? ((long long)l[0].end_ns - 1000000000ll) / 1000 : 0);
		CHECK(n >= 3 && l[2].event && !strcmp(l[2].event, "the target's stack copies and samples") &&
		      l[2].start_ns == US(1800) && l[2].end_ns == US(2000) && l[2].lost == 5,
		      "rings: the target's ring's loss names its copies and samples, 1800..2000");
		CHECK_STR(dump(t, 200), "S1000-1450 R1450-1450 ?1450-1520L R1520-1800 S1800-2100",
			  "rings: b unknown from its switch-in in the span until the system-wide copy");
		CHECK_STR(dump(t, 300), "S1000-1000 R1000-1300 ?1300-1900L R1900-2100 S2100-2100",
			  "rings: c's unknown time after its lost switch-out is the loss's");
		rsp_trace_free(t);
	}
	synth_free(s);
}

/* perf record's own lost-samples count, written at its end with time 0: the
 * whole recording is uncertain for that type, never a span ending before it starts */
static void test_lost_samples_untimed(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	char err[256];
	uint64_t ip = 0x401000;

	synth_fork(s, 0, 100, 1, 100, 1);
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, 100, "a");
	synth_sample(s, 0, US(1100), 100, 100, &ip, 1);
	synth_switch(s, 0, US(1800), 100, "a", S_INT, 0, "swapper/0");
	synth_shed(s, 0, 0, 7, false); /* no begin mark, time 0 */
	t = open_synth(s, err, sizeof(err));
	CHECK(t != NULL, "opens");
	if (t) {
		struct rsp_lost_info l;
		struct rsp_trace_summary sum;

		rsp_trace_get_summary(t, &sum);
		CHECK(rsp_trace_n_lost(t) == 1, "one lost span");
		rsp_trace_lost(t, 0, &l);
		CHECK(l.event && l.lost == 7 && !l.shed, "of one event type, 7 lost, not shed");
		CHECK(l.start_ns <= US(1000) && l.end_ns >= US(1800) && l.end_ns >= l.start_ns,
		      "over the whole recording (%llu..%llu)", (unsigned long long)l.start_ns,
		      (unsigned long long)l.end_ns);
		rsp_trace_free(t);
	}
	synth_free(s);
}

static void test_pid_reuse_and_exec(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	char err[256];

	synth_fork(s, US(900), 300, 1, 300, 1);
	synth_comm(s, US(900), 300, 300, "first", false);
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, 300, "first");
	synth_exit(s, US(1400), 300, 300);
	synth_switch(s, 0, US(1500), 300, "first", S_DEAD, 0, "swapper/0");
	synth_fork(s, US(2000), 300, 1, 300, 1);
	synth_comm(s, US(2000), 300, 300, "sh", false);
	synth_switch(s, 0, US(2100), 0, "swapper/0", 0, 300, "sh");
	synth_exec_tp(s, 0, US(2200), 300, "/bin/ls");
	synth_comm(s, US(2200), 300, 300, "ls", true);
	synth_switch(s, 0, US(2300), 300, "ls", S_INT, 0, "swapper/0");
	t = open_synth(s, err, sizeof(err));
	CHECK(t != NULL, "opens");
	if (t) {
		size_t a = rsp_trace_find_thread(t, 300, US(1200));
		size_t b = rsp_trace_find_thread(t, 300, US(2150));
		struct rsp_thread_info ia, ib;
		struct rsp_slice_info sl;
		struct rsp_link_info l;

		CHECK(a != RSP_NO_INDEX && b != RSP_NO_INDEX && a != b,
		      "pid reuse: two threads with tid 300");
		rsp_trace_thread(t, a, &ia);
		rsp_trace_thread(t, b, &ib);
		CHECK(!strcmp(ia.comm, "first") && ia.death_ns == US(1400), "the first one died");
		CHECK(!strcmp(ib.comm, "ls") && !strcmp(ib.first_comm, "sh"),
		      "exec renamed the second: sh -> ls");
		CHECK(rsp_thread_n_slices(t, b) == 4, "runnable from its fork, then a run split at exec");
		rsp_thread_slice(t, b, 0, &sl);
		CHECK(sl.kind == RSP_SLICE_SLEEP && sl.start_ns == US(2000) &&
			      sl.state == RSP_SLEEP_PREEMPTED && !(sl.flags & RSP_SLICE_UNKNOWN_START),
		      "born at 2000, runnable until its first run");
		rsp_thread_slice(t, b, 2, &sl);
		CHECK(sl.kind == RSP_SLICE_RUN && sl.start_ns == US(2200) &&
			      (sl.flags & RSP_SLICE_EXEC),
		      "the run after exec starts at 2200, marked");
		rsp_trace_link(t, sl.link, &l);
		CHECK(l.kind == RSP_LINK_EXEC && l.waker_thread == b && l.waker_slice == 1,
		      "a horizontal exec link from the run before");
		rsp_trace_free(t);
	}
	synth_free(s);
}

static void test_block(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	char err[256];

	synth_fork(s, 0, 500, 1, 500, 1);
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, 500, "dd");
	synth_block(s, SE_BLK_INSERT, 0, US(1100), 500, 0, 0x800001, 4096, 8, "RS");
	synth_block(s, SE_BLK_ISSUE, 0, US(1110), 500, 0, 0x800001, 4096, 8, "RS");
	synth_switch(s, 0, US(1120), 500, "dd", S_UNINT, 0, "swapper/0");
	synth_irq(s, SE_IRQ_ENTRY, 1, US(1490), 25, "virtio0-requests");
	synth_irq(s, SE_IRQ_EXIT, 1, US(1491), 25, NULL);
	synth_softirq(s, SE_SOFTIRQ_ENTRY, 1, US(1495), 0, 4);
	synth_block(s, SE_BLK_COMPLETE, 1, US(1500), 0, SYN_SOFTIRQ, 0x800001, 4096, 8, "RS");
	synth_waking(s, 1, US(1502), 0, SYN_SOFTIRQ, 500, "dd", 0, false, NULL, 0);
	synth_softirq(s, SE_SOFTIRQ_EXIT, 1, US(1503), 0, 4);
	synth_switch(s, 0, US(1510), 0, "swapper/0", 0, 500, "dd");
	/* a request completed without an issue event */
	synth_block(s, SE_BLK_INSERT, 0, US(2100), 500, 0, 0x800001, 8192, 8, "RS");
	synth_switch(s, 0, US(2120), 500, "dd", S_UNINT, 0, "swapper/0");
	synth_block(s, SE_BLK_COMPLETE, 0, US(2500), 0, SYN_HARDIRQ, 0x800001, 8192, 8, "RS");
	synth_waking(s, 0, US(2501), 0, SYN_HARDIRQ, 500, "dd", 0, false, NULL, 0);
	synth_switch(s, 0, US(2510), 0, "swapper/0", 0, 500, "dd");
	t = open_synth(s, err, sizeof(err));
	CHECK(t != NULL, "opens");
	if (t) {
		struct rsp_io_info io;
		struct rsp_slice_info sl;
		struct rsp_link_info l;

		CHECK(rsp_trace_n_ios(t) == 2, "two requests");
		rsp_trace_io(t, 0, &io);
		CHECK(io.insert_ns == US(1100) && io.issue_ns == US(1110) &&
			      io.complete_ns == US(1500) && io.thread == thread_of(t, 500) &&
			      io.sector == 4096 && !strcmp(io.rwbs, "RS"),
		      "insert/issue/complete matched by device and sector, issued by dd");
		slice_of(t, 500, 2, &sl);
		CHECK(sl.state == RSP_SLEEP_UNINTERRUPTIBLE && sl.end_ns == US(1510),
		      "dd sleeps in D until 1510");
		rsp_trace_link(t, sl.link, &l);
		CHECK(l.kind == RSP_LINK_IO && l.io == 0 && l.context == RSP_WAKE_SOFTIRQ &&
			      io.link == sl.link,
		      "the completion's wakeup links to the request, and back");
		rsp_trace_io(t, 1, &io);
		CHECK(io.insert_ns == US(2100) && io.issue_ns == US(2100) &&
			      io.complete_ns == US(2500),
		      "no issue event: issued when inserted");
		slice_of(t, 500, 4, &sl);
		rsp_trace_link(t, sl.link, &l);
		CHECK(l.kind == RSP_LINK_IO && l.io == 1, "hard-irq completion links too");
		rsp_trace_free(t);
	}
	synth_free(s);
}

/* Has @t a warning containing @what? */
static bool warns(struct rsp_trace *t, const char *what)
{
	for (size_t i = 0; i < rsp_trace_n_warnings(t); i++)
		if (strstr(rsp_trace_warning(t, i), what))
			return true;
	return false;
}

/*
 * Wakes that race the sleep.  w (10) runs on cpu0 throughout; v (20) on cpu1.
 * Round kinds, each starting at b (us, rounds 2000 apart):
 *  - race: w's waking of v at b while v still runs; v switches out asleep at
 *    b+35; the wakeup completes from cpu1's wake list at b+40, v runs at b+45:
 *    the sleep b+35..b+45 is woken at b+40 by the waking at b (w's);
 *  - completed: the waking at b is completed by a wakeup at b+2 while v runs
 *    (the kernel's ttwu_runnable): v's sleep at b+35 is a new one, its waking
 *    lost (only a wakeup at b+140): unlinked;
 *  - preempted: v is preempted at b+10 (by 30) and runs again at b+20 before
 *    it sleeps at b+35: the waking at b was not this sleep's: unlinked;
 *  - late: v sleeps 1100 us after the waking (past RACE_WINDOW_NS): unlinked;
 *  - again: a second waking at b+38, after the switch-out: the sleep's own
 *    waking, as any waking of a sleeping thread (linked at b+38, not raced);
 *  - lost: v sleeps at b+35; cpu0 loses 5 records at b+100 (the span from
 *    cpu0's last record); the wakeup at b+140 has no waking: unlinked, where
 *    records were lost.
 * 40 race, 4 completed, 4 preempted, 4 late, 2 again, 1 lost: 55 wakeups,
 * 13 without a waking (1 where records were lost), 40 raced.  Before the rule
 * 53 of the 55 were unlinked (the 2 "again" linked).
 */
enum race_round { RR_RACE, RR_COMPLETED, RR_PREEMPTED, RR_LATE, RR_AGAIN, RR_LOST };

static void race_round(struct synth *s, uint64_t b, enum race_round k)
{
	uint64_t out = k == RR_LATE ? b + 1100 : b + 35;

	if (k != RR_LOST)
		synth_waking(s, 0, US(b), 10, 0, 20, "v", 1, false, NULL, 0);
	if (k == RR_COMPLETED)
		synth_wakeup(s, 0, US(b + 2), 10, 0, 20, 1);
	if (k == RR_PREEMPTED) {
		synth_switch(s, 1, US(b + 10), 20, "v", 0, 30, "x");
		synth_switch(s, 1, US(b + 20), 30, "x", 0, 20, "v");
	}
	synth_switch(s, 1, US(out), 20, "v", S_INT, 0, "swapper/1");
	if (k == RR_AGAIN)
		synth_waking(s, 0, US(b + 38), 10, 0, 20, "v", 1, false, NULL, 0);
	if (k == RR_LOST)
		synth_lost(s, US(b + 100), 0, 5);
	if (k == RR_RACE || k == RR_AGAIN) {
		synth_wakeup(s, 1, US(out + 5), 0, 0, 20, 1);
		synth_switch(s, 1, US(out + 10), 0, "swapper/1", 0, 20, "v");
	} else {
		synth_wakeup(s, 1, US(out + 105), 0, 0, 20, 1);
		synth_switch(s, 1, US(out + 110), 0, "swapper/1", 0, 20, "v");
	}
	synth_round(s);
}

static void test_raced_waking(bool by_rsp)
{
	static const struct {
		enum race_round k;
		int n;
	} plan[] = { { RR_RACE, 20 },	  { RR_COMPLETED, 4 }, { RR_PREEMPTED, 4 }, { RR_RACE, 20 },
		     { RR_LATE, 4 },	  { RR_AGAIN, 2 },     { RR_LOST, 1 } };
	struct synth_opts o = { .version = by_rsp ? "rsp 0.1" : NULL };
	struct synth *s = synth_new(&o);
	enum race_round kind[64];
	struct rsp_trace *t;
	size_t n = 0, linked = 0, wrong = 0;
	char err[256];

	synth_fork(s, 0, 10, 1, 10, 1);
	synth_fork(s, 0, 20, 1, 20, 1);
	synth_switch(s, 0, US(100), 0, "swapper/0", 0, 10, "w");
	synth_switch(s, 1, US(100), 0, "swapper/1", 0, 20, "v");
	for (size_t p = 0; p < sizeof(plan) / sizeof(plan[0]); p++)
		for (int i = 0; i < plan[p].n; i++, n++) {
			kind[n] = plan[p].k;
			race_round(s, 1000 + 2000 * n, plan[p].k);
		}
	t = open_synth(s, err, sizeof(err));
	CHECK(t != NULL, "opens (%s)", t ? "" : err);
	if (t) {
		struct rsp_trace_summary sum;
		size_t w = thread_of(t, 10);

		for (size_t r = 0; r < n; r++) {
			uint64_t b = 1000 + 2000 * r;
			struct rsp_slice_info sl;
			struct rsp_link_info l;
			bool want = kind[r] == RR_RACE || kind[r] == RR_AGAIN;

			/* v's sleep of this round */
			if (!slice_at(t, thread_of(t, 20), US((kind[r] == RR_LATE ? b + 1100 : b + 35)) + 1,
				      &sl) ||
			    sl.kind != RSP_SLICE_SLEEP) {
				wrong++;
				continue;
			}
			if (sl.link >= rsp_trace_n_links(t)) {
				wrong += want;
				continue;
			}
			rsp_trace_link(t, sl.link, &l);
			linked++;
			wrong += !want || l.kind != RSP_LINK_WAKEUP || l.waker_thread != w ||
				 l.time_ns != US(kind[r] == RR_AGAIN ? b + 38 : b) ||
				 sl.wake_ns != US(kind[r] == RR_AGAIN ? b + 38 : b + 40);
		}
		CHECK(wrong == 0 && linked == 42,
		      "the 40 raced sleeps linked to the waking before them, woken at their wakeup, "
		      "the 2 with a later waking to it, no other (%zu linked, %zu wrong)",
		      linked, wrong);
		rsp_trace_get_summary(t, &sum);
		CHECK(sum.wakeups == 55 && sum.wakeups_unlinked == 13 &&
			      sum.wakeups_unlinked_lost == 1 && sum.wakeups_raced == 40,
		      "55 wakeups, 13 unlinked, 1 of them where records were lost, 40 raced: %llu, "
		      "%llu, %llu, %llu",
		      (unsigned long long)sum.wakeups, (unsigned long long)sum.wakeups_unlinked,
		      (unsigned long long)sum.wakeups_unlinked_lost,
		      (unsigned long long)sum.wakeups_raced);
		CHECK(warns(t, "13 of 55 wakeups have no recorded waking: 1 in spans where records "
			       "were lost (`rsp info` lists them), 12 with nothing lost around them"),
		      "the warning's counts");
		CHECK(by_rsp ? warns(t, "the recorder kept every sched_waking it was given") &&
				       !warns(t, "as perf does")
			     : warns(t, "as perf does on idle CPUs") && !warns(t, "the recorder kept"),
		      "the warning says what the file lacks (%s)", by_rsp ? "rsp record's" : "perf's");
		rsp_trace_free(t);
	}
	synth_free(s);
}

/*
 * A request issued twice (a requeue: a busy virtio disk; block_rq_requeue is
 * not recorded) and completed once is one request, in service from its last
 * issue; a trace of them warns of no lost completions.  Requests whose
 * completions are really missing still warn.
 */
static void test_block_requeue(void)
{
	for (int lose = 0; lose < 2; lose++) {
		struct synth *s = synth_new(NULL);
		struct rsp_trace *t;
		char err[256];

		synth_fork(s, 0, 500, 1, 500, 1);
		synth_switch(s, 0, US(1000), 0, "swapper/0", 0, 500, "dd");
		for (int k = 0; k < 25; k++) {
			uint64_t at = US(1100 + 100 * k), sector = 4096 + 8 * (uint64_t)k;

			synth_block(s, SE_BLK_INSERT, 0, at, 500, 0, 0x800001, sector, 8, "W");
			synth_block(s, SE_BLK_ISSUE, 0, at + 10000, 500, 0, 0x800001, sector, 8, "W");
			synth_block(s, SE_BLK_ISSUE, 0, at + 30000, 0, SYN_SOFTIRQ, 0x800001, sector, 8,
				    "W");
			if (!lose)
				synth_block(s, SE_BLK_COMPLETE, 0, at + 80000, 0, SYN_SOFTIRQ, 0x800001,
					    sector, 8, "W");
		}
		synth_switch(s, 0, US(9000), 500, "dd", S_INT, 0, "swapper/0");
		t = open_synth(s, err, sizeof(err));
		CHECK(t != NULL, "requeues: opens");
		if (t && !lose) {
			struct rsp_io_info io;
			size_t good = 0;

			for (size_t i = 0; i < rsp_trace_n_ios(t); i++) {
				rsp_trace_io(t, i, &io);
				good += io.insert_ns + 30000 == io.issue_ns &&
					io.issue_ns + 50000 == io.complete_ns;
			}
			CHECK(rsp_trace_n_ios(t) == 25 && good == 25,
			      "requeues: 25 requests issued twice are 25 (%zu), in service from the "
			      "last issue (%zu)", rsp_trace_n_ios(t), good);
			CHECK(!warns(t, "block_rq_complete"), "requeues: no completions said lost");
		} else if (t) {
			CHECK(rsp_trace_n_ios(t) == 25 && warns(t, "0 completions for 25 issued"),
			      "completions missing: 25 requests, said: %zu warnings",
			      rsp_trace_n_warnings(t));
		}
		rsp_trace_free(t);
		synth_free(s);
	}
}

static void test_irq_and_timers(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	char err[256];

	synth_fork(s, 0, 600, 1, 600, 1);
	synth_fork(s, 0, 700, 1, 700, 1);
	synth_switch(s, 0, US(900), 0, "swapper/0", 0, 600, "nic");
	synth_switch(s, 0, US(1000), 600, "nic", S_INT, 700, "sleeper");
	synth_switch(s, 0, US(1100), 700, "sleeper", S_INT, 0, "swapper/0");
	synth_irq(s, SE_IRQ_ENTRY, 0, US(1500), 11, "eth0");
	synth_waking(s, 0, US(1501), 0, SYN_HARDIRQ, 600, "nic", 0, false, NULL, 0);
	synth_irq(s, SE_IRQ_EXIT, 0, US(1502), 11, NULL);
	synth_softirq(s, SE_SOFTIRQ_ENTRY, 0, US(1600), 0, 1);
	synth_waking(s, 0, US(1601), 0, SYN_SOFTIRQ, 700, "sleeper", 0, false, NULL, 0);
	synth_softirq(s, SE_SOFTIRQ_EXIT, 0, US(1602), 0, 1);
	synth_switch(s, 0, US(1610), 0, "swapper/0", 0, 600, "nic");
	synth_switch(s, 0, US(1620), 600, "nic", S_INT, 700, "sleeper");
	t = open_synth(s, err, sizeof(err));
	CHECK(t != NULL, "opens");
	if (t) {
		struct rsp_slice_info sl;
		struct rsp_link_info l;

		slice_of(t, 600, 2, &sl);
		rsp_trace_link(t, sl.link, &l);
		CHECK(l.kind == RSP_LINK_IRQ && l.irq_name && !strcmp(l.irq_name, "eth0") &&
			      l.context == RSP_WAKE_HARDIRQ,
		      "woken in irq 11's handler: a hardware wait, named eth0");
		slice_of(t, 700, 2, &sl);
		rsp_trace_link(t, sl.link, &l);
		CHECK(l.kind == RSP_LINK_TIMER && l.softirq == 1, "woken by the timer softirq");
		rsp_trace_free(t);
	}
	synth_free(s);
}

static void test_sockets(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	char err[256];
	const uint8_t lo[4] = { 127, 0, 0, 1 };

	synth_fork(s, 0, 700, 1, 700, 1);
	synth_fork(s, 0, 800, 1, 800, 1);
	synth_fork(s, 0, 900, 1, 900, 1);
	synth_sock_state(s, 0, US(100), 800, 0xffff1000, lo, 40000, lo, 8080, 1);
	synth_sock_state(s, 0, US(101), 800, 0xffff2000, lo, 8080, lo, 40000, 1);
	synth_switch(s, 1, US(800), 0, "swapper/1", 0, 900, "server");
	synth_switch(s, 1, US(900), 900, "server", S_INT, 0, "swapper/1");
	synth_switch(s, 0, US(950), 0, "swapper/0", 0, 800, "client");
	synth_sock_send(s, 0, US(1000), 800, 0xffff1000, 2, 64);
	synth_sk_ready(s, 0, US(1005), 800, SYN_SOFTIRQ, 0xffff2000, 2);
	synth_waking(s, 0, US(1006), 800, SYN_SOFTIRQ, 900, "server", 1, false, NULL, 0);
	synth_switch(s, 1, US(1010), 0, "swapper/1", 0, 900, "server");
	synth_switch(s, 1, US(1100), 900, "server", S_INT, 0, "swapper/1");
	/* a unix socket: delivered in the sender's own context */
	synth_sock_send(s, 0, US(2000), 800, 0xffff3000, 1, 64);
	synth_sk_ready(s, 0, US(2001), 800, 0, 0xffff4000, 1);
	synth_waking(s, 0, US(2002), 800, 0, 900, "server", 1, false, NULL, 0);
	synth_switch(s, 1, US(2010), 0, "swapper/1", 0, 900, "server");
	/* the client's data-ready wakes nobody; after a switch, the next task's
	 * wakeup is its own doing, not the client's data (seen: rpcchain's
	 * server woke the backend while reading the backend's reply) */
	synth_switch(s, 1, US(2100), 900, "server", S_INT, 0, "swapper/1");
	synth_sk_ready(s, 0, US(3000), 800, 0, 0xffff5000, 1);
	synth_switch(s, 0, US(3005), 800, "client", S_INT, 700, "other");
	synth_waking(s, 0, US(3008), 700, 0, 900, "server", 1, false, NULL, 0);
	synth_switch(s, 1, US(3020), 0, "swapper/1", 0, 900, "server");
	/* loopback TCP as the kernel orders it: the receive softirq runs in the
	 * client's context inside its sendmsg, before sock_send_length */
	synth_switch(s, 1, US(3100), 900, "server", S_INT, 0, "swapper/1");
	synth_switch(s, 0, US(3900), 700, "other", S_INT, 800, "client");
	synth_sk_ready(s, 0, US(4000), 800, SYN_SOFTIRQ, 0xffff2000, 2);
	synth_waking(s, 0, US(4001), 800, SYN_SOFTIRQ, 900, "server", 1, false, NULL, 0);
	synth_sock_send(s, 0, US(4002), 800, 0xffff1000, 2, 64);
	synth_switch(s, 1, US(4010), 0, "swapper/1", 0, 900, "server");
	/* and again: the send recorded at 4002 was delivered before it */
	synth_switch(s, 1, US(4100), 900, "server", S_INT, 0, "swapper/1");
	synth_sk_ready(s, 0, US(5000), 800, SYN_SOFTIRQ, 0xffff2000, 2);
	synth_waking(s, 0, US(5001), 800, SYN_SOFTIRQ, 900, "server", 1, false, NULL, 0);
	synth_sock_send(s, 0, US(5002), 800, 0xffff1000, 2, 64);
	synth_switch(s, 1, US(5010), 0, "swapper/1", 0, 900, "server");
	t = open_synth(s, err, sizeof(err));
	CHECK(t != NULL, "opens");
	if (t) {
		struct rsp_slice_info sl;
		struct rsp_link_info l;
		struct rsp_net_info n;
		struct rsp_socket_info so, peer;

		slice_of(t, 900, 2, &sl);
		rsp_trace_link(t, sl.link, &l);
		CHECK(l.kind == RSP_LINK_NET && l.net != RSP_NO_INDEX, "TCP: a network link");
		rsp_trace_net(t, l.net, &n);
		CHECK(n.sender_thread == thread_of(t, 800) && n.send_ns == US(1000),
		      "sent by the client at 1000");
		rsp_trace_socket(t, n.socket, &so);
		CHECK(so.sk == 0xffff2000 && so.peer != RSP_NO_INDEX, "arrived on the server's socket");
		CHECK_STR(so.remote, "127.0.0.1:40000", "its peer address");
		rsp_trace_socket(t, so.peer, &peer);
		CHECK(peer.sk == 0xffff1000 && !strcmp(peer.local, "127.0.0.1:40000"),
		      "paired with the client's socket by the mirrored tuple");
		slice_of(t, 900, 4, &sl);
		rsp_trace_link(t, sl.link, &l);
		CHECK(l.kind == RSP_LINK_NET && l.waker_thread == thread_of(t, 800) &&
			      l.context == RSP_WAKE_TASK,
		      "unix: a network link from the sender's context");
		rsp_trace_net(t, l.net, &n);
		CHECK(n.sender_thread == thread_of(t, 800), "unix: the sender is the client");
		slice_of(t, 900, 6, &sl);
		rsp_trace_link(t, sl.link, &l);
		CHECK(l.kind == RSP_LINK_WAKEUP && l.waker_thread == thread_of(t, 700),
		      "a wakeup after a switch is not the previous task's data");
		slice_of(t, 900, 8, &sl);
		rsp_trace_link(t, sl.link, &l);
		CHECK(l.kind == RSP_LINK_NET && l.net != RSP_NO_INDEX, "loopback: a network link");
		if (l.net != RSP_NO_INDEX) {
			rsp_trace_net(t, l.net, &n);
			CHECK(n.sender_thread == thread_of(t, 800) && n.send_ns == US(4000),
			      "loopback: sent by the client now, not at its previous send (%llu)",
			      (unsigned long long)n.send_ns);
		}
		slice_of(t, 900, 10, &sl);
		rsp_trace_link(t, sl.link, &l);
		if (l.kind == RSP_LINK_NET && l.net != RSP_NO_INDEX)
			rsp_trace_net(t, l.net, &n);
		CHECK(l.kind == RSP_LINK_NET && n.send_ns == US(5000),
		      "loopback again: not the send recorded after the last delivery (%llu)",
		      (unsigned long long)n.send_ns);
		rsp_trace_free(t);
	}
	synth_free(s);
}

/*
 * A stream of many frames (rsp record's framing) is scanned on two threads:
 * the second reads frames from the back while the first reads from the
 * front, and its records are taken in in file order, so the trace is the one
 * read from the same stream uncompressed (on one thread): every slice of
 * both threads the same.  With @late_define, a record that changes how
 * records read (tracing data) in the middle of the stream stops the second
 * thread and voids what it read: the same trace again, no frame taken in
 * from the second thread.
 */
static void test_shared_scan(bool late_define)
{
	struct synth_opts so = { 0 };
	struct synth *s = synth_new(&so);
	struct rsp_trace_opts o = { .no_symbols = true };
	struct rsp_trace *a = NULL, *b = NULL;
	struct rsp_trace_summary sa, sb;
	unsigned char *z = NULL;
	const void *buf;
	size_t len, zlen, N = 60000, bad = 0;
	char err[256];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	synth_fork(s, 0, 100, 1, 100, 1);
	synth_comm(s, 0, 100, 100, "a", false);
	synth_fork(s, 0, 200, 1, 200, 1);
	synth_comm(s, 0, 200, 200, "b", false);
	for (size_t i = 0; i < N; i++) {
		uint64_t t0 = US(1000) + i * 100000;

		synth_waking(s, 0, t0 + 10000, 100, 0, 200, "b", 1, false, NULL, 0);
		synth_switch(s, 0, t0 + 20000, 100, "a", S_INT, 0, "swapper/0");
		synth_switch(s, 1, t0 + 30000, 0, "swapper/1", 0, 200, "b");
		synth_waking(s, 1, t0 + 60000, 200, 0, 100, "a", 0, false, NULL, 0);
		synth_switch(s, 1, t0 + 70000, 200, "b", S_INT, 0, "swapper/1");
		synth_switch(s, 0, t0 + 80000, 0, "swapper/0", 0, 100, "a");
		if (i % 1000 == 999)
			synth_round(s);
		if (late_define && i == N / 2)
			synth_tracing_data_record(s, false, false);
	}
	buf = synth_finish(s, &len);
	z = synth_compress_framed(buf, len, 32 << 10, 256 << 10, false, &zlen);
	if (!z || rsp_trace_open_mem(buf, len, &o, &a, err, sizeof(err)))
		a = NULL;
	if (!z || rsp_trace_open_mem(z, zlen, &o, &b, err, sizeof(err)))
		b = NULL;
	CHECK(a && b, "%zu rounds open, uncompressed and in frames%s (%s)", N,
	      late_define ? " with tracing data in the middle" : "", a && b ? "" : err);
	if (a && b) {
		rsp_trace_get_summary(a, &sa);
		rsp_trace_get_summary(b, &sb);
		CHECK(sb.segments >= 100 && sa.events == sb.events && sa.start_ns == sb.start_ns &&
			      sa.end_ns == sb.end_ns && sa.n_threads == sb.n_threads &&
			      sa.wakeups == sb.wakeups,
		      "%zu frames: %llu and %llu events, %zu and %zu threads", sb.segments,
		      (unsigned long long)sa.events, (unsigned long long)sb.events, sa.n_threads,
		      sb.n_threads);
		for (size_t i = 0; i < rsp_trace_n_threads(a) && i < rsp_trace_n_threads(b); i++) {
			struct rsp_thread_info ta, tb;

			rsp_trace_thread(a, i, &ta);
			rsp_trace_thread(b, i, &tb);
			bad += ta.tid != tb.tid || ta.n_slices != tb.n_slices;
			for (size_t k = 0; !bad && k < ta.n_slices; k++) {
				struct rsp_slice_info x, y;

				rsp_thread_slice(a, i, k, &x);
				rsp_thread_slice(b, i, k, &y);
				bad += x.kind != y.kind || x.start_ns != y.start_ns ||
				       x.end_ns != y.end_ns || x.wake_ns != y.wake_ns;
			}
		}
		CHECK(!bad, "every thread's slices the same read both ways (%zu differ)", bad);
		if (late_define)
			CHECK(!sb.one_pass && sb.segments_shared == 0,
			      "the tracing data after the walk began: two passes, and it voided "
			      "the second thread's frames (%zu taken in)",
			      sb.segments_shared);
		else if (cpus >= 2)
			CHECK(sb.one_pass && sb.segments_inflated == sb.segments + 1,
			      "in one pass: %llu inflations of %zu frames (each once; the first, "
			      "of header records, read by the scan, again by the walk)",
			      (unsigned long long)sb.segments_inflated, sb.segments);
	}
	if (!late_define && cpus >= 2 && z) {
		/* the same stream in two passes: the second thread scans frames */
		struct rsp_trace *c = NULL;
		struct rsp_trace_summary sc;

		/* with symbols: the set-up warns (no kallsyms), in the same place both ways */
		struct rsp_trace_opts os = { 0 }, os2 = { .two_pass = true };
		struct rsp_trace *d = NULL;

		if (rsp_trace_open_mem(z, zlen, &os2, &c, err, sizeof(err)))
			c = NULL;
		if (rsp_trace_open_mem(z, zlen, &os, &d, err, sizeof(err)))
			d = NULL;
		if (c && d) {
			size_t differ = rsp_trace_n_warnings(c) != rsp_trace_n_warnings(d);

			for (size_t i = 0; !differ && i < rsp_trace_n_warnings(c); i++)
				differ += strcmp(rsp_trace_warning(c, i), rsp_trace_warning(d, i)) != 0;
			rsp_trace_get_summary(d, &sc);
			CHECK(sc.one_pass && !differ && rsp_trace_n_warnings(d) >= 1,
			      "the same %zu warnings in one pass and in two, in order (%zu differ)",
			      rsp_trace_n_warnings(d), differ);
		}
		rsp_trace_free(d);
		CHECK(c != NULL, "in two passes too (%s)", c ? "" : err);
		if (c && a) {
			rsp_trace_get_summary(c, &sc);
			CHECK(!sc.one_pass && sc.segments_shared > 0 &&
				      sc.segments_shared < sc.segments &&
				      sc.segments_inflated >= 2 * sc.segments &&
				      sc.events == sa.events && sc.n_threads == sa.n_threads,
			      "%zu of %zu frames scanned by the second thread, %llu inflations",
			      sc.segments_shared, sc.segments,
			      (unsigned long long)sc.segments_inflated);
		}
		rsp_trace_free(c);
	}
	rsp_trace_free(a);
	rsp_trace_free(b);
	free(z);
	synth_free(s);
}

/*
 * Records without a time in a stream of many frames: one at a frame's start
 * takes the time of the frame before's last (the scan reads such a frame
 * itself), one inside a frame its own frame's; in one pass as in two.
 */
static void test_one_pass_untimed(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace_opts o = { .no_symbols = true };
	struct rsp_trace *a = NULL, *b = NULL;
	struct rsp_trace_summary sa, sb;
	unsigned char *z;
	const void *buf;
	size_t len, zlen, N = 40000, bad = 0;
	char err[256];

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		TAP_SKIP("one CPU: loading is not in one pass");
		synth_free(s);
		return;
	}
	synth_fork(s, 0, 100, 1, 100, 1);
	synth_fork(s, 0, 200, 1, 200, 1);
	for (size_t i = 0; i < N; i++) {
		uint64_t t0 = US(1000) + i * 100000;

		synth_waking(s, 0, t0 + 10000, 100, 0, 200, "b", 1, false, NULL, 0);
		synth_switch(s, 1, t0 + 30000, 0, "swapper/1", 0, 200, "b");
		if (i % 37 == 0)
			synth_comm_untimed(s, 200, 200, i % 74 ? "b" : "c");
		synth_switch(s, 1, t0 + 70000, 200, "b", S_INT, 0, "swapper/1");
		if (i % 1000 == 999)
			synth_round(s);
	}
	buf = synth_finish(s, &len);
	/* frames of 4 KiB: ~40 records each, an untimed one in most, first in some */
	z = synth_compress_framed(buf, len, 4 << 10, 4 << 10, false, &zlen);
	o.two_pass = true;
	if (!z || rsp_trace_open_mem(z, zlen, &o, &a, err, sizeof(err)))
		a = NULL;
	o.two_pass = false;
	if (!z || rsp_trace_open_mem(z, zlen, &o, &b, err, sizeof(err)))
		b = NULL;
	CHECK(a && b, "untimed records in frames: open in two passes and in one (%s)",
	      a && b ? "" : err);
	if (a && b) {
		rsp_trace_get_summary(a, &sa);
		rsp_trace_get_summary(b, &sb);
		for (size_t i = 0; i < rsp_trace_n_threads(a) && i < rsp_trace_n_threads(b); i++) {
			struct rsp_thread_info ta, tb;

			rsp_trace_thread(a, i, &ta);
			rsp_trace_thread(b, i, &tb);
			bad += ta.tid != tb.tid || ta.n_slices != tb.n_slices ||
			       strcmp(ta.comm, tb.comm) != 0;
			for (size_t k = 0; !bad && k < ta.n_slices; k++) {
				struct rsp_slice_info x, y;

				rsp_thread_slice(a, i, k, &x);
				rsp_thread_slice(b, i, k, &y);
				bad += x.kind != y.kind || x.start_ns != y.start_ns ||
				       x.end_ns != y.end_ns;
			}
		}
		/* a frame led by an untimed record that the second stage read ahead is
		 * inflated again by the scan (how many were read ahead depends on the
		 * threads' timing: none under ThreadSanitizer, hundreds here) */
		CHECK(!sa.one_pass && sb.one_pass && sb.segments >= 100 &&
			      sb.segments_inflated >= sb.segments + 1 && sa.events == sb.events &&
			      sa.n_threads == sb.n_threads && !bad,
		      "the same trace in one pass (%zu frames, %llu inflations: the excess read "
		      "again by the scan) and in two: %llu and %llu events, %zu differ",
		      sb.segments, (unsigned long long)sb.segments_inflated,
		      (unsigned long long)sa.events, (unsigned long long)sb.events, bad);
	}
	rsp_trace_free(a);
	rsp_trace_free(b);
	free(z);
	synth_free(s);
}

/* Loading's progress, as told: how many times, whether it went back, the last fraction. */
struct told {
	int n, back;
	double last;
	volatile int cancel;
	int cancel_at; /* set the cancel flag at this call (0: never) */
};

static void told_progress(double f, void *ctx)
{
	struct told *tl = ctx;

	tl->back += f < tl->last || f < 0 || f > 1;
	tl->last = f;
	if (++tl->n == tl->cancel_at)
		tl->cancel = 1;
}

/*
 * Progress and cancel while loading a stream of many frames in one pass, in
 * two passes, and in one that starts again in two (a record older than the
 * window, after the first progress told): the fraction never goes back; a
 * cancel stops the load with one line.
 */
static void test_one_pass_progress(void)
{
	struct synth_opts so = { 0 };
	struct synth *s = synth_new(&so), *late = synth_new(&so);
	unsigned char *z = NULL, *zl = NULL;
	const void *buf;
	size_t len, zlen = 0, zllen = 0;

	/* 70 k records (progress every 64 k) in frames of 16 KiB, ~420 of them; the late one
	 * after the first progress */
	for (size_t i = 0; i < 70000; i++) {
		uint64_t t0 = US(1000) + i * 100000;

		synth_switch(s, i % 2, t0, 0, "swapper", 0, 100 + (int)(i % 7), "a");
		synth_switch(late, i % 2, i == 68000 ? US(1000) : t0, 0, "swapper", 0,
			     100 + (int)(i % 7), "a");
		if (i % 1000 == 999) {
			synth_round(s);
			synth_round(late);
		}
	}
	buf = synth_finish(s, &len);
	z = synth_compress_framed(buf, len, 8 << 10, 16 << 10, false, &zlen);
	buf = synth_finish(late, &len);
	zl = synth_compress_framed(buf, len, 8 << 10, 16 << 10, false, &zllen);
	for (int way = 0; way < 3 && z && zl; way++) {
		static const char *const ways[] = { "in one pass", "in two passes",
						    "in one pass, then two" };
		struct told tl = { 0 };
		struct rsp_trace_opts o = { .no_symbols = true, .progress = told_progress,
					    .progress_ctx = &tl, .cancel = &tl.cancel };
		struct rsp_trace *t = NULL;
		struct rsp_trace_summary sum;
		char err[256] = "";
		int ret;

		o.two_pass = way == 1;
		ret = rsp_trace_open_mem(way == 2 ? zl : z, way == 2 ? zllen : zlen, &o, &t, err,
					 sizeof(err));
		if (t)
			rsp_trace_get_summary(t, &sum);
		CHECK(ret == 0 && t && sum.one_pass == (way == 0) && tl.n >= (way ? 2 : 1) &&
			      !tl.back,
		      "%s: progress told %d times, never back (%d back, last %.2f; %s)", ways[way],
		      tl.n, tl.back, tl.last, ret ? err : "");
		rsp_trace_free(t);
		t = NULL;
		memset(&tl, 0, sizeof(tl));
		tl.cancel_at = 1;
		ret = rsp_trace_open_mem(way == 2 ? zl : z, way == 2 ? zllen : zlen, &o, &t, err,
					 sizeof(err));
		CHECK(ret == -ECANCELED && !t && !strcmp(err, "loading cancelled"),
		      "%s: cancelled at the first progress: %d (%s)", ways[way], ret, err);
		rsp_trace_free(t);
	}
	free(z);
	free(zl);
	synth_free(s);
	synth_free(late);
}

/*
 * The trace's runs per CPU (cpu-runs.c, made on a thread of its own from 65 536
 * slices): in the ping-pong, @a runs on CPU 0 only, @b on CPU 1 only, none on the
 * file's other CPUs; each CPU's list holds every run of its thread, in start
 * order, each naming its slice.
 */
static void check_cpu_runs(struct rsp_trace *t, size_t a, size_t b)
{
	const struct cpu_runs *c = trace_cpu_runs(t);
	size_t want[2] = { 0, 0 }, bad = 0;
	const size_t th[2] = { a, b };

	CHECK(c && c->n >= 2, "the runs of every CPU indexed (%zu)", c ? c->n : 0);
	if (!c || c->n < 2)
		return;
	for (size_t cpu = 2; cpu < c->n; cpu++)
		bad += c->v[cpu].n;
	for (int cpu = 0; cpu < 2; cpu++) {
		size_t n = rsp_thread_n_slices(t, th[cpu]);

		for (size_t k = 0; k < n; k++) {
			struct rsp_slice_info sl;

			rsp_thread_slice(t, th[cpu], k, &sl);
			want[cpu] += sl.kind == RSP_SLICE_RUN && sl.end_ns > sl.start_ns;
		}
		for (size_t i = 0; i < c->v[cpu].n; i++) {
			const struct cpu_run *r = &c->v[cpu].v[i];
			struct rsp_slice_info sl;

			rsp_thread_slice(t, r->thread, r->slice, &sl);
			bad += r->thread != th[cpu] || sl.kind != RSP_SLICE_RUN ||
			       sl.start_ns != r->start || sl.end_ns != r->end ||
			       (i && r->start < c->v[cpu].v[i - 1].start);
		}
	}
	CHECK(c->v[0].n == want[0] && c->v[1].n == want[1] && want[0] && !bad,
	      "CPU 0 holds a's %zu runs (%zu), CPU 1 b's %zu (%zu), in order, %zu wrong",
	      want[0], c->v[0].n, want[1], c->v[1].n, bad);
}

/*
 * A long trace (over the 65 536 records from which loading reads on one
 * thread and builds on another): a ping-pong of N rounds on two CPUs, each
 * wakeup delivered twice (the ftrace copy without a stack, perf's with the
 * waker's stack), with a fork, comm and exit among them.  Every run, sleep,
 * link and merged copy is where the construction put it.  With @piece, the
 * stream compressed in pieces of that size, inflating to more than @min_mb
 * MB (from 8 MB a thread maps the image ahead of the decompressor).
 */
static void test_long_pingpong(size_t N, size_t piece, size_t frame, size_t min_mb,
			       bool scrambled)
{
	struct synth_opts so = { .second_waking_attr = true };
	struct synth *s = synth_new(&so);
	struct rsp_trace *t = NULL;
	unsigned char *z = NULL;
	char err[256];
#define D(x) ((uint64_t)(x) * 1000ull) /* a duration in us */
	uint64_t stack[3] = { 0xffffffff81100000ull, 0xffffffff81200000ull, 0x401234 };

	/* scrambled: each round's records in CPU-drain order, so loading sorts them */
	synth_scramble_rounds(s, scrambled);
	synth_fork(s, 0, 100, 1, 100, 1);
	synth_comm(s, 0, 100, 100, "a", false);
	synth_fork(s, 0, 200, 1, 200, 1);
	synth_comm(s, 0, 200, 200, "b", false);
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, 100, "a");
	synth_switch(s, 1, US(1000), 200, "b", S_INT, 0, "swapper/1");
	for (size_t i = 0; i < N; i++) {
		uint64_t t0 = US(1000) + i * D(100);

		/* a (cpu 0) wakes b (cpu 1) and sleeps; b runs, wakes a and sleeps */
		synth_waking(s, 0, t0 + D(10), 100, 0, 200, "b", 1, true, NULL, 0);
		synth_waking(s, 0, t0 + D(10) + 500, 100, 0, 200, "b", 1, false, stack, 3);
		synth_switch(s, 0, t0 + D(20), 100, "a", S_INT, 0, "swapper/0");
		synth_switch(s, 1, t0 + D(30), 0, "swapper/1", 0, 200, "b");
		synth_waking(s, 1, t0 + D(60), 200, 0, 100, "a", 0, false, NULL, 0);
		synth_switch(s, 1, t0 + D(70), 200, "b", S_INT, 0, "swapper/1");
		synth_switch(s, 0, t0 + D(80), 0, "swapper/0", 0, 100, "a");
		if (i % 1000 == 999)
			synth_round(s);
	}
	synth_exit(s, US(1000) + N * D(100), 100, 100);
	if (piece) {
		struct rsp_trace_opts o = { .no_symbols = true };
		size_t len, zlen;
		const void *buf = synth_finish(s, &len);

		CHECK(len > (min_mb << 20), "the stream inflates to %zu MB (more than %zu)",
		      len >> 20, min_mb);
		if (frame) {
			size_t segs;

			t = open_framed(s, piece, frame, false, &segs, &z, err, sizeof(err));
			CHECK(segs > len / frame / 2, "read a frame at a time: %zu segments", segs);
		} else {
			z = synth_compress(buf, len, piece, false, &zlen);
			if (z && rsp_trace_open_mem(z, zlen, &o, &t, err, sizeof(err)))
				t = NULL;
		}
	} else {
		t = open_synth(s, err, sizeof(err));
	}
	CHECK(t != NULL, "a %zu-round ping-pong%s%s opens (%s)", N,
	      frame ? ", compressed in frames," : piece ? ", compressed," : "",
	      scrambled ? " in CPU-drain order" : "", t ? "" : err);
	if (t) {
		struct rsp_trace_summary sum;
		struct rsp_thread_info ta, tb;
		size_t ia = thread_of(t, 100), ib = thread_of(t, 200), bad = 0, nostack = 0;

		rsp_trace_get_summary(t, &sum);
		CHECK(sum.merged_copies == N, "%zu copies merged (of %zu)",
		      (size_t)sum.merged_copies, N);
		CHECK(rsp_trace_n_links(t) == 2 * N, "%zu links (of %zu)", rsp_trace_n_links(t),
		      2 * N);
		rsp_trace_thread(t, ia, &ta);
		rsp_trace_thread(t, ib, &tb);
		CHECK(ta.n_slices >= 2 * N && tb.n_slices >= 2 * N, "%zu and %zu slices",
		      ta.n_slices, tb.n_slices);
		/* a's sleeps: from t0+20 to t0+80, woken at t0+60 by b with no stack;
		 * b's: from t0+70 to the next round's t0+30, woken by a with the stack */
		for (size_t i = 0; i + 1 < N && !bad; i++) {
			uint64_t t0 = US(1000) + i * D(100);
			struct rsp_slice_info sl;
			struct rsp_link_info l;

			if (!slice_at(t, ia, t0 + D(50), &sl)) {
				bad++;
				break;
			}
			bad += sl.kind != RSP_SLICE_SLEEP || sl.start_ns != t0 + D(20) ||
			       sl.end_ns != t0 + D(80) || sl.wake_ns != t0 + D(60);
			if (!bad && sl.link != RSP_NO_INDEX) {
				rsp_trace_link(t, sl.link, &l);
				bad += l.waker_thread != ib;
			}
			if (!slice_at(t, ib, t0 + D(90), &sl)) {
				bad++;
				break;
			}
			bad += sl.kind != RSP_SLICE_SLEEP || sl.start_ns != t0 + D(70) ||
			       sl.end_ns != t0 + D(130) || sl.link == RSP_NO_INDEX;
			if (!bad) {
				rsp_trace_link(t, sl.link, &l);
				bad += l.waker_thread != ia || l.time_ns != t0 + D(110);
				nostack += rsp_stack_n_frames(t, l.waker_stack) != 3;
			}
		}
		CHECK(!bad, "every round's sleeps and wakers as built");
		CHECK(!nostack, "every merged wakeup keeps perf's copy's stack (%zu without)",
		      nostack);
		check_cpu_runs(t, ia, ib);
		rsp_trace_free(t);
	}
	free(z);
	synth_free(s);
#undef D
}

/*
 * --call-graph dwarf samples: a sleep whose user-stack copy the kernel could
 * not fill (dyn_size 0) keeps the callchain, user part included, as one
 * without a copy; one with a copy is unwound as loading reads it (no symbols
 * here: its kernel part), so asking for it inflates no frame again.
 */
static void test_user_stack_copies(bool framed)
{
	struct synth_opts so = { .user_stack = true };
	struct synth *s = synth_new(&so);
	struct rsp_trace *t;
	unsigned char *z = NULL;
	size_t segs = 0;
	char err[256];
	uint64_t chain[] = { (uint64_t)PERF_CONTEXT_KERNEL, 0xffffffff81100000ull,
			     0xffffffff81200000ull, (uint64_t)PERF_CONTEXT_USER, 0x401234 };
	uint64_t regs[3] = { 0x7ffd1000, 0x7ffd0f00, 0x401234 }; /* BP, SP, IP */
	unsigned char copy[64];

	memset(copy, 0x5a, sizeof(copy));
	synth_fork(s, 0, 100, 1, 100, 1);
	synth_comm(s, 0, 100, 100, "a", false);
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, 100, "a");
	synth_switch_ustack(s, 0, US(1100), 100, "a", S_INT, 0, "swapper/0", chain, 5, regs, copy,
			    sizeof(copy), 0);
	synth_switch(s, 0, US(1200), 0, "swapper/0", 0, 100, "a");
	synth_switch_ustack(s, 0, US(1300), 100, "a", S_INT, 0, "swapper/0", chain, 5, regs, copy,
			    sizeof(copy), sizeof(copy));
	synth_switch(s, 0, US(1400), 0, "swapper/0", 0, 100, "a");
	/* framed: a record a frame */
	t = framed ? open_framed(s, 4096, 1, false, &segs, &z, err, sizeof(err)) :
		     open_synth(s, err, sizeof(err));
	CHECK(t != NULL && (!framed || segs >= 5), "samples with user-stack copies%s open (%s)",
	      framed ? ", a frame each," : "", t ? "" : err);
	if (t) {
		size_t ia = thread_of(t, 100);
		struct rsp_slice_info sl;
		struct rsp_trace_summary before;
		uint64_t inflated;
		bool found;

		rsp_trace_get_summary(t, &before);
		inflated = before.segments_inflated;
		found = slice_at(t, ia, US(1150), &sl);

		CHECK(found && sl.kind == RSP_SLICE_SLEEP && sl.stack &&
			      rsp_stack_n_frames(t, sl.stack) == 3,
		      "an empty copy (dyn_size 0): the callchain, kernel and user (%zu frames)",
		      sl.stack ? rsp_stack_n_frames(t, sl.stack) : 0);
		found = slice_at(t, ia, US(1350), &sl);
		CHECK(found && sl.kind == RSP_SLICE_SLEEP && sl.stack &&
			      rsp_stack_n_frames(t, sl.stack) == 2,
		      "a copy to unwind, with nothing to unwind it: its kernel part (%zu frames)",
		      sl.stack ? rsp_stack_n_frames(t, sl.stack) : 0);
		if (framed) {
			struct rsp_trace_summary sum;

			rsp_trace_get_summary(t, &sum);
			CHECK(sum.segments == segs && sum.segments_inflated == inflated,
			      "asking for the copies' stacks inflated no frame again (%llu "
			      "inflations of %zu frames, %llu after)",
			      (unsigned long long)inflated, segs,
			      (unsigned long long)sum.segments_inflated);
		}
		rsp_trace_free(t);
	}
	free(z);
	synth_free(s);
}

static void test_duplicates(void)
{
	struct synth_opts o = { .second_waking_attr = true };
	struct synth *s = synth_new(&o);
	struct rsp_trace *t;
	char err[256];
	uint64_t stack[3] = { 0xffffffff81100000ull, 0xffffffff81200000ull, 0x401234 };

	synth_fork(s, 0, 100, 1, 100, 1);
	synth_fork(s, 0, 200, 1, 200, 1);
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, 100, "a");
	synth_switch(s, 1, US(1000), 200, "b", S_INT, 0, "swapper/1");
	/* the ftrace copy (no stack) first, then perf's with the waker's stack;
	 * inside perf's handler the preempt count is one higher (seen on 6.18) */
	synth_preempt_count(s, 3);
	synth_waking(s, 0, US(1100), 100, 0, 200, "b", 1, true, NULL, 0);
	synth_preempt_count(s, 4);
	synth_waking(s, 0, US(1100) + 700, 100, 0, 200, "b", 1, false, stack, 3);
	synth_preempt_count(s, 0);
	/* a different wakee at the same moment is a different event */
	synth_waking(s, 0, US(1100) + 900, 100, 0, 300, "c", 1, true, NULL, 0);
	/* copies stamped 90 us apart (the target's sched_switch copy is stamped
	 * after its callchain is walked: seen up to 110 us after the other) */
	synth_waking(s, 0, US(1102), 100, 0, 400, "d", 1, true, NULL, 0);
	synth_switch(s, 1, US(1110), 0, "swapper/1", 0, 200, "b");
	synth_waking(s, 0, US(1192), 100, 0, 400, "d", 1, false, stack, 3);
	t = open_synth(s, err, sizeof(err));
	CHECK(t != NULL, "opens");
	if (t) {
		struct rsp_slice_info sl;
		struct rsp_link_info l;
		struct rsp_trace_summary sum;
		uint64_t count = 0, merged = 0;

		CHECK(rsp_trace_n_links(t) == 3, "three links: b's and d's from two copies each, and c's");
		slice_of(t, 200, 2, &sl);
		rsp_trace_link(t, sl.link, &l);
		CHECK(l.waker_stack != 0 && rsp_stack_n_frames(t, l.waker_stack) == 3,
		      "the link keeps the copy's stack");
		rsp_trace_get_summary(t, &sum);
		CHECK(sum.merged_copies == 2, "two copies merged, one of them 90 us after the other");
		for (size_t i = 0; i < rsp_trace_n_event_types(t); i++) {
			struct rsp_event_type_info e;

			rsp_trace_event_type(t, i, &e);
			if (!strcmp(e.name, "sched:sched_waking")) {
				count += e.count;
				merged += e.merged_copies;
			}
		}
		CHECK(count == 3 && merged == 2,
		      "sched_waking of b and of d counted once each, c's kept");
		rsp_trace_free(t);
	}
	synth_free(s);
}

/*
 * Copies of an event with a long payload (an exec's file name of 400
 * bytes): merged as a short one, and one whose name differs only past the
 * first few hundred bytes is another event.
 */
static void test_duplicates_long(void)
{
	struct synth_opts o = { .second_exec_attr = true };
	struct synth *s = synth_new(&o);
	struct rsp_trace *t;
	char err[256], name[420], other[420];

	memset(name, 'x', sizeof(name) - 1);
	name[0] = '/';
	name[sizeof(name) - 1] = '\0';
	memcpy(other, name, sizeof(name));
	other[sizeof(other) - 3] = 'y';
	synth_fork(s, 0, 100, 1, 100, 1);
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, 100, "a");
	synth_exec_tp_copy(s, 0, US(1100), 100, name);
	synth_exec_tp(s, 0, US(1100) + 700, 100, name);
	synth_exec_tp_copy(s, 0, US(1100) + 900, 100, other);
	synth_switch(s, 0, US(1200), 100, "a", S_INT, 0, "swapper/0");
	t = open_synth(s, err, sizeof(err));
	CHECK(t != NULL, "opens (%s)", t ? "" : err);
	if (t) {
		uint64_t count = 0, merged = 0;

		for (size_t i = 0; i < rsp_trace_n_event_types(t); i++) {
			struct rsp_event_type_info e;

			rsp_trace_event_type(t, i, &e);
			if (!strcmp(e.name, "sched:sched_process_exec")) {
				count += e.count;
				merged += e.merged_copies;
			}
		}
		CHECK(count == 2 && merged == 1,
		      "exec with a 419-byte name: counted once, its copy merged, the other kept "
		      "(%llu counted, %llu merged)",
		      (unsigned long long)count, (unsigned long long)merged);
		rsp_trace_free(t);
	}
	synth_free(s);
}

/* perf record's synthesized COMM/FORK/MMAP carry id 0 in their trailer: they
 * are read with the common trailer layout, not skipped */
/*
 * A frame-pointer chain broken by a program built without frame pointers: the
 * user part ends at its first frame no user space can hold (the data the bad
 * frame pointer read), and everything after it in that part goes too.
 */
static void test_broken_user_chain(void)
{
	const uint64_t K = (uint64_t)PERF_CONTEXT_KERNEL, U = (uint64_t)PERF_CONTEXT_USER;
	const uint64_t junk = 0x7878787878787878ull;
	uint64_t chain[] = { K, 0xffffffff81100000ull, U, 0x7f0000f8350ull, junk, 0x401500 };
	uint64_t out[8];
	size_t n = _rsp_clean_chain(chain, 6, out, 8, false);
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	char err[256];

	CHECK(n == 2 && out[0] == 0xffffffff81100000ull && out[1] == 0x7f0000f8350ull,
	      "a broken user part ends before its first impossible frame (%zu frames)", n);
	/* the highest address of five-level paging's user space is kept */
	chain[4] = (1ull << 56) - 4096;
	n = _rsp_clean_chain(chain, 6, out, 8, false);
	CHECK(n == 4 && out[2] == (1ull << 56) - 4096 && out[3] == 0x401500,
	      "a user frame below 2^56 kept (%zu frames)", n);
	/* a kernel frame is never cut so, and a later part starts afresh */
	{
		uint64_t two[] = { U, junk, 0x401000, K, 0xffffffff81200000ull, U, 0x402000 };

		n = _rsp_clean_chain(two, 7, out, 8, false);
		CHECK(n == 2 && out[0] == 0xffffffff81200000ull && out[1] == 0x402000,
		      "the cut ends at the next context marker (%zu frames)", n);
	}
	chain[4] = junk;
	synth_fork(s, 0, 100, 1, 100, 1);
	synth_comm(s, 0, 100, 100, "a", false);
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, 100, "a");
	synth_switch_stack(s, 0, US(1100), 100, "a", S_INT, 0, "swapper/0", chain, 6);
	synth_switch(s, 0, US(1200), 0, "swapper/0", 0, 100, "a");
	t = open_synth(s, err, sizeof(err));
	CHECK(t != NULL, "a switch with a broken user chain opens (%s)", t ? "" : err);
	if (t) {
		struct rsp_slice_info sl;
		struct rsp_frame_info f;
		bool junk_seen = false;
		size_t nf = 0;

		if (slice_at(t, thread_of(t, 100), US(1150), &sl) && sl.stack) {
			nf = rsp_stack_n_frames(t, sl.stack);
			for (size_t i = 0; i < nf; i++) {
				rsp_stack_frame(t, sl.stack, i, 100, US(1150), &f);
				junk_seen |= f.addr == junk || f.addr == 0x401500;
			}
		}
		CHECK(nf == 2 && !junk_seen, "the sleep's stack: the kernel frame and write's (%zu)",
		      nf);
		rsp_trace_free(t);
	}
	synth_free(s);
}

static void test_sideband_id0(void)
{
	struct synth_opts o = { .file_mode = true, .sideband_id0 = true };
	struct synth *s = synth_new(&o);
	struct rsp_trace *t;
	char err[256];

	synth_fork(s, 0, 500, 1, 500, 1);
	synth_comm(s, 0, 500, 500, "dd", false);
	/* the switch records' comm is what a skipped COMM would leave */
	synth_switch(s, 0, US(100), 0, "swapper/0", 0, 500, "x");
	synth_switch(s, 0, US(200), 500, "x", S_INT, 0, "swapper/0");
	t = open_synth(s, err, sizeof(err));
	CHECK(t != NULL, "opens");
	if (t) {
		struct rsp_thread_info th;
		size_t ti = thread_of(t, 500);

		CHECK(ti != RSP_NO_INDEX, "the thread is known");
		if (ti != RSP_NO_INDEX) {
			rsp_trace_thread(t, ti, &th);
			CHECK_STR(th.comm, "dd", "named by its id-0 COMM record");
			CHECK(th.parent != RSP_NO_INDEX && th.parent == thread_of(t, 1),
			      "parent from its id-0 FORK record");
		}
		{
			size_t skipped = 0;

			for (size_t i = 0; i < rsp_trace_n_warnings(t); i++)
				skipped += strstr(rsp_trace_warning(t, i), "do not fit") != NULL;
			CHECK(skipped == 0, "no record skipped");
		}
		rsp_trace_free(t);
	}
	synth_free(s);
}

/* a cpu-clock sample of a task detached in its exit: perf reports pid and tid
 * -1; it is the current thread's, never a new thread (which would break the
 * CPU's chain and make the rest of its time unknown) */
static void test_exit_sample(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	char err[256];
	uint64_t ips[1] = { 0xffffffff81000000ull };

	synth_fork(s, 0, 600, 1, 600, 1);
	synth_switch(s, 0, US(100), 0, "swapper/0", 0, 600, "worker");
	synth_sample(s, 0, US(150), 600, 600, ips, 1);
	synth_sample(s, 0, US(199), -1, -1, ips, 1);
	synth_switch(s, 0, US(200), 600, "worker", 64 /* X */, 0, "swapper/0");
	synth_switch(s, 0, US(300), 0, "swapper/0", 0, 1, "init");
	t = open_synth(s, err, sizeof(err));
	CHECK(t != NULL, "opens");
	if (t) {
		struct rsp_trace_summary sum;
		bool minus1 = false;
		size_t unknown = 0;

		for (size_t i = 0; i < rsp_trace_n_threads(t); i++) {
			struct rsp_thread_info th;

			rsp_trace_thread(t, i, &th);
			minus1 |= th.tid == -1;
			unknown += th.unknown_ns;
		}
		rsp_trace_get_summary(t, &sum);
		CHECK(!minus1, "no thread -1");
		CHECK(unknown == 0 && sum.broken_chains == 0, "no broken chain, nothing unknown");
		{
			struct rsp_thread_info th;

			rsp_trace_thread(t, thread_of(t, 600), &th);
			CHECK(th.n_samples == 2, "both samples are the worker's (%zu)", th.n_samples);
		}
		rsp_trace_free(t);
	}
	synth_free(s);
}

static void test_fork(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	char err[256];
	const int targets[] = { 1000 };

	synth_targets(s, targets, 1);
	synth_fork(s, 0, 1000, 1, 1000, 1);
	synth_comm(s, 0, 1000, 1000, "make", false);
	synth_switch(s, 0, US(900), 0, "swapper/0", 0, 1000, "make");
	synth_fork(s, US(1000), 1001, 1000, 1001, 1000);
	synth_fork_tp(s, 0, US(1000), 1000, 1001, "make");
	synth_wakeup_new(s, 0, US(1010), 1000, 1001, 1);
	synth_switch(s, 1, US(1050), 0, "swapper/1", 0, 1001, "make");
	synth_switch(s, 0, US(1060), 1000, "make", S_INT, 0, "swapper/0");
	t = open_synth(s, err, sizeof(err));
	CHECK(t != NULL, "opens");
	if (t) {
		struct rsp_slice_info sl;
		struct rsp_link_info l;
		struct rsp_thread_info ti;

		CHECK(rsp_trace_n_targets(t) == 1 && rsp_trace_target(t, 0) == 1000,
		      "the target from the thread map");
		CHECK_STR(dump(t, 1001), "S1010-1050 R1050-1060", "child: runnable from its wakeup");
		slice_of(t, 1001, 0, &sl);
		CHECK(sl.state == RSP_SLEEP_PREEMPTED && sl.wake_ns == US(1010),
		      "the wait for a CPU counts as runnable");
		slice_of(t, 1001, 1, &sl);
		rsp_trace_link(t, sl.link, &l);
		CHECK(l.kind == RSP_LINK_FORK && l.waker_thread == thread_of(t, 1000),
		      "its first run is linked from the parent's fork");
		rsp_trace_thread(t, thread_of(t, 1001), &ti);
		CHECK(ti.parent == thread_of(t, 1000) && ti.pid == 1001 && ti.birth_ns == US(1000),
		      "parent, pid and birth from the FORK record");
		rsp_trace_free(t);
	}
	synth_free(s);
}

/* What every output calls a frame (rsp_frame_name()): its function, else
 * "file+0xADDR" with the address in the file, else "[unknown]" */
static void test_frame_names(void)
{
	static const struct {
		const char *func, *dso;
		uint64_t rel;
		const char *want;
	} cases[] = {
		{ "client_main", "/usr/bin/rpcchain", 0x1189, "client_main" },
		{ NULL, "/tmp/x/rpcchain", 0x1189, "rpcchain+0x1189" },
		{ NULL, "/tmp/x/rpcchain", 0, "rpcchain+0x0" },
		{ "", "/lib/libc.so.6", 0x29d90, "libc.so.6+0x29d90" },
		{ NULL, "/tmp/gone (deleted)", 0x40, "gone+0x40" },
		{ NULL, "[vdso]", 0x9f0, "[vdso]+0x9f0" },
		{ NULL, "[kernel.kallsyms]", 0xffffffff81000000ull,
		  "[kernel.kallsyms]+0xffffffff81000000" },
		{ NULL, "relative", 0x10, "relative+0x10" },
		{ NULL, "/dir/", 0x10, "/dir/+0x10" },
		{ NULL, "[unknown]", 0x7f00, "[unknown]" },
		{ NULL, "", 0x7f00, "[unknown]" },
		{ NULL, NULL, 0x7f00, "[unknown]" },
	};
	char buf[64], small[8];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rsp_frame_info f = { .func = cases[i].func, .dso = cases[i].dso,
					    .rel_addr = cases[i].rel, .addr = 0x55550000 };

		CHECK_STR(rsp_frame_name(&f, buf, sizeof(buf)), cases[i].want, "frame name");
	}
	{
		struct rsp_frame_info f = { .dso = "/usr/lib/a-long-library-name.so", .rel_addr = 1 };
		const char *n = rsp_frame_name(&f, small, sizeof(small));

		CHECK(n == small && strlen(small) == sizeof(small) - 1 &&
			      !strncmp(small, "a-long-", 7),
		      "a small buffer is cut, NUL-terminated: '%s'", small);
	}
}

/*
 * The frames a label names (rsp_stack_label_frames()): the innermost named user
 * frame ([unknown] skipped), its first caller of another name (a recursive frame
 * of the same name skipped), and the first kernel function that is not the
 * scheduler's.  a sleeps twice: in f_one under __schedule with a user stack of
 * no map, app+0x1100 twice, app+0x1200, app+0x1300; then in __schedule alone.
 */
static const char label_kallsyms[] = "ffffffff81000000 T __schedule\n"
				     "ffffffff81000100 T f_one\n"
				     "ffffffff81000300 T _etext\n";

/* @kallsyms_zstd: the kernel's symbols as rsp record writes them; damaged: they do not inflate */
static void label_frames(bool kallsyms_zstd, bool damaged)
{
	const uint64_t K = (uint64_t)PERF_CONTEXT_KERNEL, U = (uint64_t)PERF_CONTEXT_USER;
	const uint64_t deep[] = { K, 0xffffffff81000010ull, 0xffffffff81000110ull, U,
				  0x7f0000001000ull, 0x401100, 0x401100, 0x401200, 0x401300 };
	const uint64_t sched[] = { K, 0xffffffff81000010ull };
	struct synth_opts so = { .kallsyms = label_kallsyms,
				 .kallsyms_zstd = kallsyms_zstd,
				 .kallsyms_damaged = damaged };
	struct rsp_trace_opts o = { 0 };
	struct synth *s = synth_new(&so);
	struct rsp_trace *t = NULL;
	const void *buf;
	char err[256];
	size_t len;

	synth_fork(s, 0, 100, 1, 100, 1);
	synth_comm(s, 0, 100, 100, "a", false);
	synth_mmap2(s, 0, 100, 0x400000, 0x10000, 0, "/nonexistent/rsp-test/app");
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, 100, "a");
	synth_switch_stack(s, 0, US(1100), 100, "a", S_INT, 0, "swapper/0", deep, 9);
	synth_switch(s, 0, US(1200), 0, "swapper/0", 0, 100, "a");
	synth_switch_stack(s, 0, US(1300), 100, "a", S_INT, 0, "swapper/0", sched, 2);
	synth_switch(s, 0, US(1400), 0, "swapper/0", 0, 100, "a");
	buf = synth_finish(s, &len);
	CHECK(rsp_trace_open_mem(buf, len, &o, &t, err, sizeof(err)) == 0, "open: %s",
	      t ? "" : err);
	if (t) {
		struct rsp_slice_info sl;
		const char *inner, *caller, *kfunc;
		char names[2][64];

		CHECK(slice_at(t, thread_of(t, 100), US(1150), &sl) && sl.stack, "the first sleep");
		rsp_stack_label_frames(t, sl.stack, 100, US(1150), names[0], sizeof(names[0]),
				       &inner, &caller, &kfunc);
		if (damaged) {
			bool warned = false;

			for (size_t i = 0; i < rsp_trace_n_warnings(t); i++)
				warned |= strstr(rsp_trace_warning(t, i),
						 "damaged (they do not inflate)") != NULL;
			CHECK(warned, "damaged kernel symbols: one warning saying so");
			CHECK(!kfunc, "damaged kernel symbols: the kernel frame unnamed, got %s",
			      kfunc ? kfunc : "");
			rsp_trace_free(t);
			synth_free(s);
			return;
		}
		CHECK_STR(inner ? inner : "(none)", "app+0x1100", "the innermost named user frame");
		CHECK_STR(caller ? caller : "(none)", "app+0x1200", "its caller of another name");
		CHECK_STR(kfunc ? kfunc : "(none)", "f_one", "the kernel function, not the scheduler");
		rsp_stack_label_frames(t, sl.stack, 100, US(1150), names[0], 10, &inner, &caller,
				       NULL);
		CHECK(inner && caller && !strcmp(inner, "app+0x110") && !strcmp(caller, "app+0x120"),
		      "names cut to the buffers, no kernel function asked: '%s', '%s'",
		      inner ? inner : "", caller ? caller : "");
		CHECK(slice_at(t, thread_of(t, 100), US(1350), &sl) && sl.stack, "the second sleep");
		rsp_stack_label_frames(t, sl.stack, 100, US(1350), names[0], sizeof(names[0]),
				       &inner, &caller, &kfunc);
		CHECK(!inner && !caller && !kfunc, "the scheduler alone: nothing to name");
		rsp_trace_free(t);
	}
	synth_free(s);
}

static void test_label_frames(void)
{
	label_frames(false, false);
	label_frames(true, false); /* the same names from rsp record's zstd frame */
	label_frames(true, true);
}

/* The order the index sort must give: by time (0 before the base first), ties in index order. */
struct ref_ent {
	uint64_t k;
	size_t pos;
	struct idx e;
};

static int ref_cmp(const void *x, const void *y)
{
	const struct ref_ent *a = x, *b = y;

	if (a->k != b->k)
		return a->k < b->k ? -1 : 1;
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/*
 * The index sort against a plain stable sort: @nseq sequences in time order
 * (CPUs), cut into chunks of up to @chunk and interleaved as a stream drains
 * its buffers, times with ties and some below the base; times times @mul (wide
 * keys: the sort's digits and passes follow the bits that differ).
 */
static void check_sort(size_t n, int nseq, size_t chunk, bool shuffled, uint32_t seed,
		       uint64_t mul, bool half)
{
	struct idx *v = malloc(n * sizeof(*v));
	struct ref_ent *ref = malloc(n * sizeof(*ref));
	uint64_t next[64] = { 0 }, base = 1000;
	size_t i = 0, bad = 0;

	if (!v || !ref) {
		CHECK(false, "memory for the sort test");
		free(v);
		free(ref);
		return;
	}
	while (i < n) {
		int q = (int)((seed = seed * 1103515245u + 12345u) >> 16) % nseq;
		size_t len = 1 + ((seed = seed * 1103515245u + 12345u) >> 16) % chunk;

		for (size_t j = 0; j < len && i < n; j++, i++) {
			seed = seed * 1103515245u + 12345u;
			/* steps of 0 to 3: ties within and across sequences */
			next[q] += (seed >> 16) % 4;
			/* shuffled: all of it, or (@half) its second half only */
			v[i].time = mul * (shuffled && (!half || i >= n / 2) ? (seed >> 8) % 5000
			                                                     : next[q] + (i % 997 == 0 ? 0 : 900));
			v[i].off = i;
		}
	}
	for (i = 0; i < n; i++)
		ref[i] = (struct ref_ent){ v[i].time >= base ? v[i].time - base + 1 : 0, i, v[i] };
	qsort(ref, n, sizeof(*ref), ref_cmp);
	CHECK(_rsp_sort_index(&v, n, base) == 0, "sort %zu entries", n);
	for (i = 0; i < n; i++)
		bad += v[i].time != ref[i].e.time || v[i].off != ref[i].e.off;
	CHECK(bad == 0, "%zu entries, %d sequences in chunks of up to %zu%s, times x%llu: %zu out "
	      "of place", n, nseq, chunk, shuffled ? half ? ", its second half shuffled" : ", shuffled" : "",
	      (unsigned long long)mul, bad);
	free(v);
	free(ref);
}

/* Which way window_feed() adds a group's entries */
enum feed { FEED_ONE, FEED_MANY };

/*
 * Loading in one pass: @n entries into the window (window.c) in groups of
 * @group, in file order, one at a time or a group at once (@how: as the scan
 * adds a frame the second stage read ahead); what it gives, in order, into
 * @out (*@n_out), and the trace's start and end it knows (*@start, *@end).  0,
 * or what the window returned (-ERESTART: the bet lost) and *@at, the entry
 * it refused (a group's first, added at once).
 */
static int window_feed_as(const struct idx *v, size_t n, size_t group, enum feed how,
			  struct idx *out, size_t *n_out, size_t *at, uint64_t *start,
			  uint64_t *end)
{
	struct window wn;
	size_t first, k, g0 = 0;
	uint64_t lo = UINT64_MAX, hi = 0, nz = 0;
	int ret = 0;

	*n_out = 0;
	*at = n;
	_rsp_window_init(&wn);
	for (size_t i = 0; i < n && !ret; i++) {
		if (how == FEED_ONE && (ret = _rsp_window_add(&wn, v[i].time, v[i].off))) {
			*at = i;
			break;
		}
		lo = v[i].time < lo ? v[i].time : lo;
		hi = v[i].time > hi ? v[i].time : hi;
		if (v[i].time && (!nz || v[i].time < nz))
			nz = v[i].time;
		if ((i + 1) % group == 0 || i + 1 == n) {
			if (how == FEED_MANY &&
			    (ret = _rsp_window_add_many(&wn, v + g0, i + 1 - g0, lo, hi, nz))) {
				*at = g0;
				break;
			}
			g0 = i + 1;
			lo = UINT64_MAX;
			hi = nz = 0;
			ret = _rsp_window_close(&wn, i + 1 == n, &first, &k);
			if (!ret) {
				memcpy(out + *n_out, wn.pend.v + first, k * sizeof(*out));
				*n_out += k;
			}
		}
	}
	*start = wn.min_nonzero;
	*end = wn.max_time;
	_rsp_window_free(&wn);
	return ret;
}

static int window_feed(const struct idx *v, size_t n, size_t group, struct idx *out,
		       size_t *n_out, size_t *at)
{
	uint64_t start, end;

	return window_feed_as(v, n, group, FEED_ONE, out, n_out, at, &start, &end);
}

/*
 * The window against a plain stable sort: @nseq sequences in time order
 * (CPUs), in chunks of up to @chunk interleaved as a recorder drains its
 * buffers, each sequence up to @lag behind the others, times with ties
 * (steps of 0 to 3).  All of it given, in the stable sort's order.
 */
static void check_window(size_t n, int nseq, size_t chunk, uint64_t lag, size_t group,
			 uint32_t seed)
{
	struct idx *v = malloc(n * sizeof(*v)), *out = malloc(n * sizeof(*out));
	struct ref_ent *ref = malloc(n * sizeof(*ref));
	uint64_t next[64] = { 0 };
	size_t i = 0, bad = 0, n_out = 0, at;
	int ret;

	if (!v || !ref || !out) {
		CHECK(false, "memory for the window test");
		goto out;
	}
	while (i < n) {
		int q = (int)((seed = seed * 1103515245u + 12345u) >> 16) % nseq;
		size_t len = 1 + ((seed = seed * 1103515245u + 12345u) >> 16) % chunk;

		for (size_t j = 0; j < len && i < n; j++, i++) {
			seed = seed * 1103515245u + 12345u;
			next[q] += (seed >> 16) % 4;
			/* sequence q this far behind the file's order: 0 to @lag */
			v[i].time = 1000 + lag + 2 * i + next[q] - lag * (uint64_t)q / (uint64_t)nseq;
			v[i].off = i;
		}
	}
	for (i = 0; i < n; i++)
		ref[i] = (struct ref_ent){ v[i].time, i, v[i] };
	qsort(ref, n, sizeof(*ref), ref_cmp);
	for (int how = FEED_ONE; how <= FEED_MANY; how++) {
		uint64_t start, end;

		ret = window_feed_as(v, n, group, (enum feed)how, out, &n_out, &at, &start, &end);
		for (i = 0, bad = 0; i < n_out && i < n; i++)
			bad += out[i].time != ref[i].e.time || out[i].off != ref[i].e.off;
		CHECK(ret == 0 && n_out == n && bad == 0 && start == ref[0].e.time &&
			      end == ref[n - 1].e.time,
		      "the window, %s: %zu entries, %d sequences in chunks of up to %zu, up to "
		      "%llu behind, groups of %zu: %d, %zu given, %zu out of place, start %llu "
		      "end %llu", how == FEED_ONE ? "one at a time" : "a group at once", n, nseq,
		      chunk, (unsigned long long)lag, group, ret, n_out, bad,
		      (unsigned long long)start, (unsigned long long)end);
	}
out:
	free(v);
	free(out);
	free(ref);
}

static void test_window(void)
{
	struct idx v[40000], out[40000];
	size_t n_out, at, n;
	int ret;

	check_window(20000, 1, 20000, 0, 100, 1); /* in order */
	check_window(50000, 2, 300, 2000, 250, 2); /* two CPUs, a run behind */
	check_window(50000, 4, 50, 20000, 250, 3); /* runs older than 30 groups before */
	check_window(50000, 9, 7, 500, 64, 4); /* short runs, ties across them */
	check_window(3000, 3, 40, 1000, 7, 5); /* given all at the end */

	/* time 0 (synthesized before the trace) first, then in order; nothing given until
	 * the trace's start is known and WINDOW_GROUPS groups are read */
	for (n = 0; n < 10000; n++)
		v[n] = (struct idx){ n < 100 ? 0 : 5000 + n - 100, n };
	{
		struct window wn;
		size_t first, k, given = 0, groups_before = 0;

		_rsp_window_init(&wn);
		for (size_t i = 0; i < n; i++) {
			_rsp_window_add(&wn, v[i].time, v[i].off);
			if ((i + 1) % 100 == 0) {
				_rsp_window_close(&wn, false, &first, &k);
				if (!given && k)
					groups_before = (i + 1) / 100;
				given += k;
			}
		}
		/* the first time 0's group leaves the last WINDOW_GROUPS at the one after; then
		 * the 100th gives up to the oldest of the (100 - WINDOW_GROUPS + 1)th */
		CHECK(groups_before == WINDOW_GROUPS + 1 && wn.min_nonzero == 5000 &&
			      given == 100 + (100 - WINDOW_GROUPS - 1) * 100 + 1,
		      "the first entries given after %zu groups (%d), %zu of %zu", groups_before,
		      WINDOW_GROUPS + 1, given, n);
		_rsp_window_free(&wn);
	}

	/* a record older than one given: refused (the load starts again in two passes) */
	for (n = 0; n < 20000; n++)
		v[n] = (struct idx){ 10000 + n, n };
	v[15000].time = 10000 + 100; /* 14,900 entries late: 149 groups of 100 */
	ret = window_feed(v, n, 100, out, &n_out, &at);
	CHECK(ret == -ERESTART && at == 15000, "a record older than one given: %d at %zu", ret,
	      at);
	{
		uint64_t start, end;

		/* in a group of 64 added at once (its first is 14,976): the group refused */
		ret = window_feed_as(v, n, 64, FEED_MANY, out, &n_out, &at, &start, &end);
		CHECK(ret == -ERESTART && at == 15000 / 64 * 64,
		      "a record older than one given, its group added at once: %d at %zu", ret, at);
	}
	/* ... but one late within the window: in its place */
	v[15000].time = 10000 + 15000 - 3000; /* 30 groups late */
	ret = window_feed(v, n, 100, out, &n_out, &at);
	CHECK(ret == 0 && n_out == n && out[12001].off == 15000 && out[12000].off == 12000,
	      "a record 30 groups late: in its place, after the one of its time before it "
	      "(%d, %zu given; at 12001: %llu)", ret, n_out,
	      (unsigned long long)out[12001].off);
	/* a late record as young as the youngest given: not older, after it */
	{
		struct window wn;
		size_t first, k;

		_rsp_window_init(&wn);
		for (size_t i = 0; i < 70 * 10; i++) {
			_rsp_window_add(&wn, 100 + i, i);
			if ((i + 1) % 10 == 0)
				_rsp_window_close(&wn, false, &first, &k);
		}
		ret = _rsp_window_add(&wn, wn.given_max, 9999);
		CHECK(ret == 0 && wn.given_any, "a record of the youngest given time: taken (%d)",
		      ret);
		ret = _rsp_window_add(&wn, wn.given_max - 1, 9998);
		CHECK(ret == -ERESTART, "one older by 1 ns: refused (%d)", ret);
		_rsp_window_free(&wn);
	}
	/* a window that would grow past its bound (time 0 in every group: no start) */
	{
		struct window wn;
		size_t first, k;

		_rsp_window_init(&wn);
		CHECK(wn.max_entries == WINDOW_MAX_ENTRIES, "the window's bound: %zu entries",
		      wn.max_entries);
		wn.max_entries = 100000; /* the same, sooner */
		ret = 0;
		for (size_t i = 0; !ret && i <= wn.max_entries; i++) {
			ret = _rsp_window_add(&wn, i % 1000 ? 0 : 1, i);
			if (!ret && i % 1000 == 999)
				ret = _rsp_window_close(&wn, false, &first, &k);
		}
		CHECK(ret == -ERESTART && wn.pend.n == 100000,
		      "a window that would grow past its bound: %d at %zu entries", ret, wn.pend.n);
		_rsp_window_free(&wn);
		/* the same a group at once: the group that would pass it refused whole */
		_rsp_window_init(&wn);
		wn.max_entries = 100000;
		ret = 0;
		for (size_t i = 0; !ret && i < 101; i++) {
			struct idx g[1000];

			for (size_t j = 0; j < 1000; j++)
				g[j] = (struct idx){ j ? 0 : 1, i * 1000 + j };
			ret = _rsp_window_add_many(&wn, g, 1000, 0, 1, 1);
			if (!ret)
				ret = _rsp_window_close(&wn, false, &first, &k);
		}
		CHECK(ret == -ERESTART && wn.pend.n == 100000,
		      "a window that would grow past its bound, a group at once: %d at %zu entries",
		      ret, wn.pend.n);
		_rsp_window_free(&wn);
	}
}

static void test_sort_index(void)
{
	check_sort(1000, 1, 1000, false, 1, 1, false); /* in order */
	check_sort(5000, 2, 300, false, 2, 1, false); /* on one thread */
	check_sort(70000, 2, 4000, false, 3, 1, false); /* on two */
	check_sort(70000, 3, 50, false, 4, 1, false);
	check_sort(70000, 9, 2000, false, 6, 1, false);
	check_sort(70000, 4, 3, false, 7, 1, false);
	check_sort(70000, 2, 1, true, 8, 1, false); /* shuffled */
	/* wide keys: 3 passes of 12 bits from bit 18 (two threads, then one); 4 passes of 10
	 * from bit 0 */
	check_sort(70000, 2, 4000, false, 9, 3ull << 18, false);
	check_sort(5000, 2, 300, false, 10, 3ull << 18, false);
	check_sort(5000, 2, 1, true, 11, 40000001, false);
	/* long runs merged (the merge first), then runs too short: the radix sort goes on from
	 * the merged prefix; runs overlapping many before them (16 sequences); both sides of
	 * a merge copied out (long runs, short and long overlaps) */
	check_sort(70000, 2, 4000, true, 12, 1, true);
	check_sort(70000, 16, 4000, false, 13, 1, false);
	check_sort(300000, 2, 20000, false, 14, 7, false);
}

int main(int argc, char **argv)
{
	tap_init(argc, argv);
	TAP_RUN("sort_index", test_sort_index());
	TAP_RUN("window", test_window());
	TAP_RUN("one_pass_progress", test_one_pass_progress());
	TAP_RUN("frame_names", test_frame_names());
	TAP_RUN("label_frames", test_label_frames());
	TAP_RUN("pingpong", test_pingpong());
	TAP_RUN("scrambled", test_scrambled());
	TAP_RUN("missing_switch_in", test_missing_switch_in());
	TAP_RUN("missing_switch_out", test_missing_switch_out());
	TAP_RUN("lost", test_lost());
	TAP_RUN("lost_samples_untimed", test_lost_samples_untimed());
	TAP_RUN("lost_rings", test_lost_rings());
	TAP_RUN("raced_waking/perf", test_raced_waking(false));
	TAP_RUN("raced_waking/rsp", test_raced_waking(true));
	TAP_RUN("pid_reuse_and_exec", test_pid_reuse_and_exec());
	TAP_RUN("block", test_block());
	TAP_RUN("block_requeue", test_block_requeue());
	TAP_RUN("irq_and_timers", test_irq_and_timers());
	TAP_RUN("sockets", test_sockets());
	TAP_RUN("duplicates", test_duplicates());
	TAP_RUN("duplicates_long", test_duplicates_long());
	TAP_RUN("exit_sample", test_exit_sample());
	/* 6 records a round: 72 k; scrambled: sorted on two threads */
	TAP_RUN("long_pingpong/plain", test_long_pingpong(12000, 0, 0, 0, false));
	TAP_RUN("long_pingpong/scrambled", test_long_pingpong(12000, 0, 0, 0, true));
	TAP_RUN("long_pingpong/pieces", test_long_pingpong(24000, 1 << 16, 0, 16, false));
	/* rsp record's framing */
	TAP_RUN("long_pingpong/framed-scrambled",
		test_long_pingpong(24000, 32 << 10, 256 << 10, 16, true));
	TAP_RUN("shared_scan/plain", test_shared_scan(false));
	TAP_RUN("shared_scan/late-define", test_shared_scan(true));
	TAP_RUN("one_pass_untimed", test_one_pass_untimed());
	/* frames larger than the part of the scan's buffer kept after each (16 MB) */
	TAP_RUN("long_pingpong/large-frames",
		test_long_pingpong(30000, 32 << 10, 17 << 20, 18, false));
	TAP_RUN("user_stack_copies/plain", test_user_stack_copies(false));
	TAP_RUN("user_stack_copies/framed", test_user_stack_copies(true));
	TAP_RUN("sideband_id0", test_sideband_id0());
	TAP_RUN("broken_user_chain", test_broken_user_chain());
	TAP_RUN("fork", test_fork());
	return tap_done();
}
