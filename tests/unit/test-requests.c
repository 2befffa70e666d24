/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A server's requests (rsp-requests.h) from a synthetic trace with a known
 * answer, and each request's window explained (rsp_analysis_opts.windows).
 * Times in microseconds.
 *
 * srv (pid 500, CPU 0) serves connection A (socket 0xa000):
 *   1005  a send on B (0xb000): the reply of a request received before the
 *         trace: B is served, its one request cut at the start
 *   1006  srv connects E (0xe000: SYN_SENT), sends on it at 1007 and receives
 *         the answer at 1008: a connection it opened, srv is a client there
 *   1010  asleep (waiting for work) until 1100
 *   1110  request 1 received on A (1112: a receive failing with EAGAIN: no data)
 *   1150  a read inserted; 1200 asleep in D; 1210 issued (kworker); 1490
 *         completed, srv woken at 1492, runs at 1500
 *   1600  the reply sent; 1610 asleep (waiting for work) until 3000
 *   3010  request 2 received; 3050 a send on D (0xd000) inside it, 3100 its
 *         answer: srv is a client on D; 3200 a second read of request 2
 *   3505  srv wakes cli; 3510 the reply sent; 3515 srv preempted by cli on
 *         the way back from the send, runs again at 3519
 *   3520  request 3 received on A, never answered: cut at the end
 *   3600  asleep to the end of the trace (4000)
 *
 * Requests: [1110, 1600] 490 and [3010, 3510] 500 (a request ends when its
 * reply's send returned in the kernel: the preemption on the way back, by
 * the client the reply woke, is not the request's; idle, "runnable").
 * Distribution: min = p50 = 490, p90 = p99 = max = 500, sum 990.
 * Request 1: CPU 90 + 100, I/O queue 10 (asleep at 1200, issued at 1210),
 * disk 280, kernel 2 (completion to waking), scheduler 8; request 2: CPU 500.
 */
#include "rsp-analysis.h"
#include "rsp-requests.h"
#include "synth-perf.h"
#include "tap.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define US(x) (1000000000ull + (uint64_t)(x) * 1000ull)
#define NS(us) ((uint64_t)(us) * 1000ull)
#define S_INT 1
#define S_UNINT 2
#define SRV 500
#define CLI 600
#define SK_A 0xffff8000a000ull
#define SK_B 0xffff8000b000ull
#define SK_D 0xffff8000d000ull
#define SK_E 0xffff8000e000ull
#define SK_F 0xffff8000f000ull
#define SK_C 0xffff8000c000ull

static void existing(struct synth *s, int pid, int tid, const char *comm)
{
	synth_fork(s, 0, pid, pid == tid ? 1 : pid, tid, pid == tid ? 1 : pid);
	synth_comm(s, 0, pid, tid, comm, false);
}

/* cli's connection C (127.0.0.1:40001) to srv's A (:5432), set up inside the
 * trace on CPU @cpu at 1001-1004: peers by their 4-tuples, both streams whole */
static void connect_lo(struct synth *s, int cpu)
{
	const uint8_t lo[4] = { 127, 0, 0, 1 };

	synth_sock_state(s, cpu, US(1001), CLI, SK_C, lo, 40001, lo, 5432, 2 /* SYN_SENT */);
	synth_sock_state(s, cpu, US(1002), CLI, SK_A, lo, 5432, lo, 40001, 3 /* SYN_RECV */);
	synth_sock_state(s, cpu, US(1003), CLI, SK_C, lo, 40001, lo, 5432, 1 /* ESTABLISHED */);
	synth_sock_state(s, cpu, US(1004), CLI, SK_A, lo, 5432, lo, 40001, 1 /* ESTABLISHED */);
}

static struct rsp_trace *build(struct synth *s)
{
	struct rsp_trace_opts o = { .no_symbols = true };
	struct rsp_trace *t = NULL;
	char err[256];
	size_t len;
	const void *buf;
	const uint8_t lo[4] = { 127, 0, 0, 1 };

	existing(s, SRV, SRV, "srv");
	existing(s, CLI, CLI, "cli");
	existing(s, 9, 9, "kworker/1:1H");
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, SRV, "srv");
	synth_sock_send(s, 0, US(1005), SRV, SK_B, 2, 64);
	synth_sock_state(s, 0, US(1006), SRV, SK_E, lo, 40000, lo, 5432, 2 /* SYN_SENT */);
	synth_sock_send(s, 0, US(1007), SRV, SK_E, 2, 16);
	synth_sock_recv(s, 0, US(1008), SRV, SK_E, 2, 16);
	synth_switch(s, 0, US(1010), SRV, "srv", S_INT, 0, "swapper/0");
	synth_switch(s, 1, US(1090), 0, "swapper/1", 0, CLI, "cli");
	synth_switch(s, 1, US(1098), CLI, "cli", S_INT, 0, "swapper/1");
	synth_switch(s, 0, US(1100), 0, "swapper/0", 0, SRV, "srv");
	synth_sock_recv(s, 0, US(1110), SRV, SK_A, 2, 64);
	synth_sock_recv(s, 0, US(1112), SRV, SK_A, 2, -11);
	synth_block(s, SE_BLK_INSERT, 0, US(1150), SRV, 0, 0x800001, 4096, 8, "R");
	synth_switch(s, 0, US(1200), SRV, "srv", S_UNINT, 0, "swapper/0");
	synth_switch(s, 1, US(1205), 0, "swapper/1", 0, 9, "kworker/1:1H");
	synth_block(s, SE_BLK_ISSUE, 1, US(1210), 9, 0, 0x800001, 4096, 8, "R");
	synth_switch(s, 1, US(1215), 9, "kworker/1:1H", S_INT, 0, "swapper/1");
	synth_irq(s, SE_IRQ_ENTRY, 1, US(1488), 25, "virtio0-requests");
	synth_irq(s, SE_IRQ_EXIT, 1, US(1488), 25, NULL);
	synth_softirq(s, SE_SOFTIRQ_ENTRY, 1, US(1489), 0, 4);
	synth_block(s, SE_BLK_COMPLETE, 1, US(1490), 0, SYN_SOFTIRQ, 0x800001, 4096, 8, "R");
	synth_waking(s, 1, US(1492), 0, SYN_SOFTIRQ, SRV, "srv", 0, false, NULL, 0);
	synth_softirq(s, SE_SOFTIRQ_EXIT, 1, US(1493), 0, 4);
	synth_switch(s, 0, US(1500), 0, "swapper/0", 0, SRV, "srv");
	synth_sock_send(s, 0, US(1600), SRV, SK_A, 2, 64);
	synth_switch(s, 0, US(1610), SRV, "srv", S_INT, 0, "swapper/0");
	synth_switch(s, 0, US(3000), 0, "swapper/0", 0, SRV, "srv");
	synth_sock_recv(s, 0, US(3010), SRV, SK_A, 2, 64);
	synth_sock_send(s, 0, US(3050), SRV, SK_D, 2, 32);
	synth_sock_recv(s, 0, US(3100), SRV, SK_D, 2, 32);
	synth_sock_recv(s, 0, US(3200), SRV, SK_A, 2, 64);
	synth_waking(s, 0, US(3505), SRV, 0, CLI, "cli", 0, false, NULL, 0);
	synth_sock_send(s, 0, US(3510), SRV, SK_A, 2, 64);
	synth_switch(s, 0, US(3515), SRV, "srv", 0, CLI, "cli");
	synth_switch(s, 0, US(3519), CLI, "cli", S_INT, SRV, "srv");
	synth_sock_recv(s, 0, US(3520), SRV, SK_A, 2, 100);
	synth_switch(s, 0, US(3600), SRV, "srv", S_INT, 0, "swapper/0");
	synth_switch(s, 1, US(4000), 0, "swapper/1", 0, CLI, "cli");
	buf = synth_finish(s, &len);
	if (rsp_trace_open_mem(buf, len, &o, &t, err, sizeof(err))) {
		CHECK(0, "open: %s", err);
		return NULL;
	}
	return t;
}

static void check_requests(struct rsp_trace *t, struct rsp_requests *r)
{
	struct rsp_request_info q[2];
	struct rsp_requests_stats st;
	size_t served = 0, client = 0, cut_start = 0, cut_end = 0, a_reqs = 0;

	CHECK(rsp_requests_n(r) == 2, "two requests (got %zu)", rsp_requests_n(r));
	if (rsp_requests_n(r) != 2)
		return;
	rsp_requests_get(r, 0, &q[0]);
	rsp_requests_get(r, 1, &q[1]);
	CHECK(q[0].start_ns == US(1110) && q[0].end_ns == US(1600),
	      "request 1: [1110, 1600] (got [%.3f, %.3f])", (q[0].start_ns - US(0)) / 1e3,
	      (q[0].end_ns - US(0)) / 1e3);
	CHECK(q[1].start_ns == US(3010) && q[1].end_ns == US(3510),
	      "request 2: [3010, 3510], to its send, not the preemption after it "
	      "(got [%.3f, %.3f])",
	      (q[1].start_ns - US(0)) / 1e3, (q[1].end_ns - US(0)) / 1e3);
	CHECK(q[0].n_recv == 1 && q[0].bytes_in == 64 && q[0].n_send == 1 && !q[0].flags,
	      "request 1: one read of 64 bytes (the EAGAIN not counted), one send");
	CHECK(q[1].n_recv == 2 && q[1].bytes_in == 128 && q[1].flags == RSP_REQ_MULTI_READ,
	      "request 2: two reads, flagged (the back end's answer on D not counted)");
	CHECK(q[0].conn == q[1].conn, "both on one connection");
	for (size_t i = 0; i < rsp_requests_n_conns(r); i++) {
		struct rsp_conn_info ci;
		struct rsp_socket_info si;

		rsp_requests_conn(r, i, &ci);
		rsp_trace_socket(t, ci.socket, &si);
		served += ci.role == RSP_CONN_SERVED;
		client += ci.role == RSP_CONN_CLIENT && (si.sk == SK_D || si.sk == SK_E);
		cut_start += ci.cut_start && si.sk == SK_B;
		cut_end += ci.cut_end && si.sk == SK_A;
		if (si.sk == SK_A)
			a_reqs = ci.n_requests;
	}
	CHECK(served == 2 && client == 2,
	      "A and B served; D (first used inside a request) and E (it connected) the "
	      "server's own connections");
	CHECK(cut_start == 1 && cut_end == 1 && a_reqs == 2,
	      "B's reply cut at the start, A's third request cut at the end");
	rsp_requests_stats(r, &st);
	CHECK(st.count == 2 && st.min_ns == NS(490) && st.p50_ns == NS(490) &&
		      st.p90_ns == NS(500) && st.p99_ns == NS(500) && st.max_ns == NS(500) &&
		      st.sum_ns == NS(990),
	      "distribution: min = p50 490, p90 = p99 = max 500, sum 990 (got %.3f %.3f %.3f "
	      "%.3f %.3f)",
	      st.min_ns / 1e3, st.p50_ns / 1e3, st.p90_ns / 1e3, st.max_ns / 1e3, st.sum_ns / 1e3);
}

static void check_time(struct rsp_trace *t, struct rsp_requests *r)
{
	struct rsp_requests_time tm;
	size_t th = rsp_trace_find_thread(t, SRV, US(1000));
	struct rsp_slice_info first, last;
	uint64_t span;

	rsp_requests_time(r, &tm);
	rsp_thread_slice(t, th, 0, &first);
	rsp_thread_slice(t, th, rsp_thread_n_slices(t, th) - 1, &last);
	span = last.end_ns - first.start_ns;
	CHECK(tm.span_ns == span && tm.busy_ns == NS(990),
	      "span %.3f = the thread's slices, in requests 990 (got %.3f)", tm.span_ns / 1e3,
	      tm.busy_ns / 1e3);
	CHECK(tm.busy_ns + tm.idle_sleep_ns + tm.idle_run_ns + tm.idle_other_ns == tm.span_ns,
	      "requests + idle = span");
	/* running outside requests: [1000,1010] [1100,1110] [1600,1610] [3000,3010]
	 * [3510,3515] [3519,3600] (request 3 was not answered) */
	CHECK(tm.idle_run_ns == NS(10 + 10 + 10 + 10 + 5 + 81),
	      "running between requests 126 (got %.3f)", tm.idle_run_ns / 1e3);
	/* waiting: [1010,1100], [1610,3000], [3600, end]; before 1000 as recorded;
	 * other: preempted by cli [3515,3519] */
	CHECK(tm.idle_sleep_ns >= NS(90 + 1390 + 400) && tm.idle_other_ns == NS(4),
	      "waiting for work >= 1880 (got %.3f), preempted after the reply 4 (got %.3f)",
	      tm.idle_sleep_ns / 1e3, tm.idle_other_ns / 1e3);
}

static void check_cats(const struct rsp_explanation *e, const char *what, const uint64_t *want)
{
	bool exact = true;
	uint64_t sum = 0;

	for (int c = 0; c < RSP_CAT__COUNT; c++) {
		exact &= e->cat_ns[c] == NS(want[c]);
		sum += e->cat_ns[c];
		if (e->cat_ns[c] != NS(want[c]))
			printf("# %s: %s %.3f, want %llu\n", what, rsp_category_key(c), e->cat_ns[c] / 1e3,
			     (unsigned long long)want[c]);
	}
	CHECK(exact && sum == e->total_ns, "%s: the table is exact and sums to its total", what);
}

static void check_windows(struct rsp_trace *t, struct rsp_requests *r)
{
	struct rsp_window w[2];
	struct rsp_analysis_opts o = { .tolerance_ns = NS(100) };
	struct rsp_analysis *a = NULL;
	struct rsp_explanation e;
	uint64_t w1[RSP_CAT__COUNT] = { 0 }, w2[RSP_CAT__COUNT] = { 0 }, all[RSP_CAT__COUNT];
	int pid = SRV;
	char err[256];

	for (size_t i = 0; i < 2; i++) {
		struct rsp_request_info q;

		rsp_requests_get(r, i, &q);
		w[i] = (struct rsp_window){ q.thread, q.start_ns, q.end_ns };
	}
	o.windows = w;
	o.n_windows = 2;
	if (rsp_analyze(t, &pid, 1, 0, &o, &a, err, sizeof(err))) {
		CHECK(0, "analyze the windows: %s", err);
		return;
	}
	w1[RSP_CAT_CPU_UNSAMPLED] = 190;
	w1[RSP_CAT_IO_QUEUE] = 10;
	w1[RSP_CAT_DISK] = 280;
	w1[RSP_CAT_KERNEL] = 2;
	w1[RSP_CAT_SCHED] = 8;
	w2[RSP_CAT_CPU_UNSAMPLED] = 500;
	for (int c = 0; c < RSP_CAT__COUNT; c++)
		all[c] = w1[c] + w2[c];
	CHECK(rsp_analysis_n_paths(a) == 2, "one control path per window");
	rsp_analysis_explanation(a, &e);
	CHECK(e.total_ns == NS(990), "total = the sum of the latencies, 990 (got %.3f)",
	      e.total_ns / 1e3);
	check_cats(&e, "all requests", all);
	rsp_analysis_path_explanation(a, 0, &e);
	check_cats(&e, "request 1", w1);
	rsp_analysis_path_explanation(a, 1, &e);
	check_cats(&e, "request 2", w2);
	{
		bool cli = false;

		for (size_t i = 0; i < rsp_analysis_n_contributors(a, RSP_CAT_CPU_UNSAMPLED); i++) {
			struct rsp_contributor k;

			rsp_analysis_contributor(a, RSP_CAT_CPU_UNSAMPLED, i, &k);
			cli |= !strcmp(k.what, "cli");
		}
		CHECK(!cli, "cli's run after the reply (it preempted srv) is in no request");
	}
	rsp_analysis_free(a);
	/* a window of a thread outside the target: refused */
	w[0].thread = rsp_trace_find_thread(t, CLI, US(1000));
	o.n_windows = 1;
	CHECK(rsp_analyze(t, &pid, 1, 0, &o, &a, err, sizeof(err)) < 0 && !a,
	      "a window of a thread outside the target is refused (%s)", err);
}

/*
 * Two connections served in one turn of the loop: srv reads A at 1100 and F at
 * 1110, answers A at 1200 and F at 1300.  Requests [1100, 1200] and [1110,
 * 1300], both overlapping; in requests: their union, 200; running [1000, 1100]
 * and [1300, 1400] idle.
 */
/*
 * The trace @s describes (finished here) and the requests of srv in it; false,
 * with a failed check, if either could not be had.
 */
static bool srv_requests(struct synth *s, struct rsp_trace **t, struct rsp_requests **r)
{
	struct rsp_trace_opts o = { .no_symbols = true };
	struct rsp_thread_filter f = { .pids = (const int[]){ SRV }, .n_pids = 1 };
	char err[256];
	size_t len;
	const void *buf = synth_finish(s, &len);
	uint8_t *sel;
	bool ok;

	*t = NULL;
	*r = NULL;
	if (rsp_trace_open_mem(buf, len, &o, t, err, sizeof(err))) {
		CHECK(0, "open: %s", err);
		return false;
	}
	sel = rsp_thread_filter_apply(*t, &f);
	ok = sel && !rsp_requests_find(*t, sel, r);
	free(sel);
	return ok;
}

static void srv_requests_free(struct synth *s, struct rsp_trace *t, struct rsp_requests *r)
{
	rsp_requests_free(r);
	rsp_trace_free(t);
	synth_free(s);
}

static void test_overlap(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	struct rsp_requests *r;

	existing(s, SRV, SRV, "srv");
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, SRV, "srv");
	synth_sock_recv(s, 0, US(1100), SRV, SK_A, 2, 64);
	synth_sock_recv(s, 0, US(1110), SRV, SK_F, 2, 64);
	synth_sock_send(s, 0, US(1200), SRV, SK_A, 2, 64);
	synth_sock_send(s, 0, US(1300), SRV, SK_F, 2, 64);
	synth_switch(s, 0, US(1400), SRV, "srv", S_INT, 0, "swapper/0");
	if (srv_requests(s, &t, &r)) {
		struct rsp_request_info q[2];
		struct rsp_requests_time tm;

		CHECK(rsp_requests_n(r) == 2, "interleaved: two requests (got %zu)",
		      rsp_requests_n(r));
		if (rsp_requests_n(r) == 2) {
			rsp_requests_get(r, 0, &q[0]);
			rsp_requests_get(r, 1, &q[1]);
			CHECK(q[0].start_ns == US(1100) && q[0].end_ns == US(1200) &&
				      q[1].start_ns == US(1110) && q[1].end_ns == US(1300) &&
				      q[0].conn != q[1].conn,
			      "interleaved: one request per connection, [1100,1200] and [1110,1300]");
			CHECK((q[0].flags & RSP_REQ_OVERLAP) && (q[1].flags & RSP_REQ_OVERLAP),
			      "interleaved: both flagged overlapping");
		}
		rsp_requests_time(r, &tm);
		CHECK(tm.busy_ns == NS(200) && tm.idle_run_ns == NS(200) && tm.span_ns == NS(400),
		      "interleaved: in requests their union 200, running idle 200 (got %.3f %.3f)",
		      tm.busy_ns / 1e3, tm.idle_run_ns / 1e3);
	} else {
		CHECK(0, "interleaved: rsp_requests_find");
	}
	srv_requests_free(s, t, r);
}

/*
 * One socket address, two connections: the kernel reuses a closed socket's
 * memory for the next.  srv accepts a connection at 1100 on SK_A (client
 * port 40001), serves a request [1110,1150], the connection closes (CLOSE at
 * 1170); at 1200 the same address is accepted again for client port 40002
 * and serves [1210,1260], after 200 other sockets were seen (the table of
 * addresses rehashed).  Two requests on two connections, not one.
 */
static void test_reused_socket(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	struct rsp_requests *r;
	const uint8_t lo[4] = { 127, 0, 0, 1 };

	existing(s, SRV, SRV, "srv");
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, SRV, "srv");
	synth_sock_state(s, 0, US(1100), SRV, SK_A, lo, 5432, lo, 40001, 3 /* SYN_RECV */);
	synth_sock_state(s, 0, US(1101), SRV, SK_A, lo, 5432, lo, 40001, 1 /* ESTABLISHED */);
	synth_sock_recv(s, 0, US(1110), SRV, SK_A, 2, 64);
	synth_sock_send(s, 0, US(1150), SRV, SK_A, 2, 64);
	synth_sock_state(s, 0, US(1160), SRV, SK_A, lo, 5432, lo, 40001, 4 /* FIN_WAIT1 */);
	synth_sock_state(s, 0, US(1170), SRV, SK_A, lo, 5432, lo, 40001, 7 /* CLOSE */);
	synth_sock_state(s, 0, US(1200), SRV, SK_A, lo, 5432, lo, 40002, 3 /* SYN_RECV */);
	synth_sock_state(s, 0, US(1201), SRV, SK_A, lo, 5432, lo, 40002, 1 /* ESTABLISHED */);
	/* 200 other sockets seen: the table of addresses grows (rehashed) */
	for (int k = 0; k < 200; k++)
		synth_sock_send(s, 0, US(1202), SRV, 0xffff900000000000ull + (uint64_t)k * 64, 1, 0);
	synth_sock_recv(s, 0, US(1210), SRV, SK_A, 2, 64);
	synth_sock_send(s, 0, US(1260), SRV, SK_A, 2, 64);
	synth_switch(s, 0, US(1400), SRV, "srv", S_INT, 0, "swapper/0");
	if (srv_requests(s, &t, &r)) {
		struct rsp_request_info q[2];
		struct rsp_conn_info c[2];
		struct rsp_socket_info a, b;

		CHECK(rsp_requests_n(r) == 2, "reused: two requests (got %zu)", rsp_requests_n(r));
		if (rsp_requests_n(r) == 2) {
			rsp_requests_get(r, 0, &q[0]);
			rsp_requests_get(r, 1, &q[1]);
			rsp_requests_conn(r, q[0].conn, &c[0]);
			rsp_requests_conn(r, q[1].conn, &c[1]);
			rsp_trace_socket(t, c[0].socket, &a);
			rsp_trace_socket(t, c[1].socket, &b);
			CHECK(q[0].conn != q[1].conn && c[0].socket != c[1].socket &&
				      !strcmp(a.remote, "127.0.0.1:40001") &&
				      !strcmp(b.remote, "127.0.0.1:40002"),
			      "reused: two connections, from %s and %s", a.remote, b.remote);
		}
	} else {
		CHECK(0, "reused: rsp_requests_find");
	}
	srv_requests_free(s, t, r);
}

/*
 * A UDP server: srv's one socket A serves every peer (no addresses).  1050: a
 * datagram queued before the trace is read (no arrival before it: sender
 * unknown), answered at 1060.  cli (CPU 1) sends from D at 1096 (delivered in
 * its context at 1095), c2 from E at 1101 (delivered at 1100); srv reads them
 * at 1110 and 1210 in that order and answers at 1200 and 1300.  1350: a
 * datagram from off this machine (delivered from an idle CPU), read at 1360,
 * answered at 1370.  Four requests, their first datagrams sent from: unknown,
 * D, E, unknown.
 */
static void test_udp_senders(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	struct rsp_requests *r;
	const uint64_t want[4] = { 0, SK_D, SK_E, 0 };

	existing(s, SRV, SRV, "srv");
	existing(s, CLI, CLI, "cli");
	existing(s, 700, 700, "c2");
	synth_sock_udp(s, true);
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, SRV, "srv");
	synth_sock_recv(s, 0, US(1050), SRV, SK_A, 2, 64);
	synth_sock_send(s, 0, US(1060), SRV, SK_A, 2, 64);
	synth_switch(s, 1, US(1090), 0, "swapper/1", 0, CLI, "cli");
	synth_sk_ready(s, 1, US(1095), CLI, SYN_SOFTIRQ, SK_A, 2);
	synth_sock_send(s, 1, US(1096), CLI, SK_D, 2, 64);
	synth_switch(s, 1, US(1098), CLI, "cli", S_INT, 700, "c2");
	synth_sk_ready(s, 1, US(1100), 700, SYN_SOFTIRQ, SK_A, 2);
	synth_sock_send(s, 1, US(1101), 700, SK_E, 2, 64);
	synth_switch(s, 1, US(1105), 700, "c2", S_INT, 0, "swapper/1");
	synth_sock_recv(s, 0, US(1110), SRV, SK_A, 2, 64);
	synth_sock_send(s, 0, US(1200), SRV, SK_A, 2, 64);
	synth_sock_recv(s, 0, US(1210), SRV, SK_A, 2, 64);
	synth_sock_send(s, 0, US(1300), SRV, SK_A, 2, 64);
	synth_sk_ready(s, 1, US(1350), 0, SYN_SOFTIRQ, SK_A, 2);
	synth_sock_recv(s, 0, US(1360), SRV, SK_A, 2, 64);
	synth_sock_send(s, 0, US(1370), SRV, SK_A, 2, 64);
	synth_switch(s, 0, US(1400), SRV, "srv", S_INT, 0, "swapper/0");
	if (srv_requests(s, &t, &r)) {
		CHECK(rsp_requests_n(r) == 4 && rsp_requests_n_conns(r) == 1,
		      "UDP: four requests on one socket (got %zu on %zu)", rsp_requests_n(r),
		      rsp_requests_n_conns(r));
		for (size_t i = 0; i < rsp_requests_n(r) && i < 4; i++) {
			struct rsp_request_info q;
			struct rsp_socket_info si = { 0 };

			rsp_requests_get(r, i, &q);
			if (q.from_socket != RSP_NO_INDEX)
				rsp_trace_socket(t, q.from_socket, &si);
			CHECK(want[i] ? si.sk == want[i] : q.from_socket == RSP_NO_INDEX,
			      "UDP request %zu: its datagram sent from %#" PRIx64 " (got %#" PRIx64 ")",
			      i + 1, want[i], si.sk);
		}
	} else {
		CHECK(0, "UDP: rsp_requests_find");
	}
	srv_requests_free(s, t, r);
}

/*
 * Requests as their client saw them (rsp_requests_clients()).  cli (CPU 1)
 * connects socket C (40001) to srv's A (5432) inside the trace: they are peers.
 *   request 1: delivered inside cli's send (its softirq, 1100), cli's send
 *     returns at 1102; srv reads at 1110, replies at 1200; cli reads the reply
 *     in two parts, 1230 and 1240: the client saw 1100 -> 1240, 140.
 *   request 2: cli's send returns at 1300 while srv holds its socket: the data
 *     waits in the backlog and arrives in srv's own context at 1305; srv reads
 *     at 1310, replies at 1400, cli reads at 1420: 1300 -> 1420, 120 (matched by
 *     when it was sent, not when it arrived: else cli's next send, 1500).
 *   request 3: on B, a connection from before the trace (no peer known), read
 *     at 1450 and answered at 1460: no client side.
 *   request 4: delivered in cli's send at 1498, returns 1500; srv reads 1505,
 *     replies 1560; cli reads 1580: 1498 -> 1580, 82.
 * Client-side distribution over the 3 matched: min 82, p50 120, max 140.
 */
static void test_client_latency(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	struct rsp_requests *r;
	const unsigned want[4][2] = { { 1100, 1240 }, { 1300, 1420 }, { 0, 0 }, { 1498, 1580 } };

	existing(s, SRV, SRV, "srv");
	existing(s, CLI, CLI, "cli");
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, SRV, "srv");
	synth_switch(s, 1, US(1000), 0, "swapper/1", 0, CLI, "cli");
	connect_lo(s, 1);
	/* 1 */
	synth_sk_ready(s, 1, US(1100), CLI, SYN_SOFTIRQ, SK_A, 2);
	synth_sock_send(s, 1, US(1102), CLI, SK_C, 2, 64);
	synth_sock_recv(s, 0, US(1110), SRV, SK_A, 2, 64);
	synth_sk_ready(s, 0, US(1199), SRV, SYN_SOFTIRQ, SK_C, 2);
	synth_sock_send(s, 0, US(1200), SRV, SK_A, 2, 64);
	synth_sock_recv(s, 1, US(1230), CLI, SK_C, 2, 32);
	synth_sock_recv(s, 1, US(1240), CLI, SK_C, 2, 32);
	/* 2: the backlog */
	synth_sock_send(s, 1, US(1300), CLI, SK_C, 2, 64);
	synth_sk_ready(s, 0, US(1305), SRV, 0, SK_A, 2);
	synth_sock_recv(s, 0, US(1310), SRV, SK_A, 2, 64);
	synth_sk_ready(s, 0, US(1399), SRV, SYN_SOFTIRQ, SK_C, 2);
	synth_sock_send(s, 0, US(1400), SRV, SK_A, 2, 64);
	synth_sock_recv(s, 1, US(1420), CLI, SK_C, 2, 64);
	/* 3: no peer */
	synth_sock_recv(s, 0, US(1450), SRV, SK_B, 2, 64);
	synth_sock_send(s, 0, US(1460), SRV, SK_B, 2, 64);
	/* 4 */
	synth_sk_ready(s, 1, US(1498), CLI, SYN_SOFTIRQ, SK_A, 2);
	synth_sock_send(s, 1, US(1500), CLI, SK_C, 2, 64);
	synth_sock_recv(s, 0, US(1505), SRV, SK_A, 2, 64);
	synth_sk_ready(s, 0, US(1559), SRV, SYN_SOFTIRQ, SK_C, 2);
	synth_sock_send(s, 0, US(1560), SRV, SK_A, 2, 64);
	synth_sock_recv(s, 1, US(1580), CLI, SK_C, 2, 64);
	synth_switch(s, 0, US(1600), SRV, "srv", S_INT, 0, "swapper/0");
	synth_switch(s, 1, US(1600), CLI, "cli", S_INT, 0, "swapper/1");
	if (srv_requests(s, &t, &r)) {
		struct rsp_requests_stats st, again;

		CHECK(rsp_requests_n(r) == 4, "clients: four requests (got %zu)", rsp_requests_n(r));
		CHECK(!rsp_requests_clients(r, t, &st) && st.count == 3 && st.min_ns == NS(82) &&
			      st.p50_ns == NS(120) && st.max_ns == NS(140) &&
			      st.sum_ns == NS(342),
		      "clients: 3 seen by their client, min 82 p50 120 max 140 sum 342 us (got %zu, "
		      "%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " ns)",
		      st.count, st.min_ns, st.p50_ns, st.max_ns, st.sum_ns);
		CHECK(!rsp_requests_clients(r, t, &again) && !memcmp(&st, &again, sizeof(st)),
		      "clients: a second call gives the same");
		for (size_t i = 0; i < rsp_requests_n(r) && i < 4; i++) {
			struct rsp_request_info q;
			struct rsp_thread_info ti = { 0 };

			rsp_requests_get(r, i, &q);
			if (q.client_thread != RSP_NO_INDEX)
				rsp_trace_thread(t, q.client_thread, &ti);
			CHECK(want[i][0] ? q.client_start_ns == US(want[i][0]) &&
						   q.client_end_ns == US(want[i][1]) && ti.tid == CLI :
					   q.client_thread == RSP_NO_INDEX && !q.client_start_ns,
			      "clients: request %zu seen by its client %u -> %u"
			      " (got %" PRIu64 " -> %" PRIu64 ", tid %d)",
			      i + 1, want[i][0], want[i][1],
			      (uint64_t)(q.client_start_ns ? (q.client_start_ns - US(0)) / 1000 : 0),
			      (uint64_t)(q.client_end_ns ? (q.client_end_ns - US(0)) / 1000 : 0), ti.tid);
		}
	} else {
		CHECK(0, "clients: rsp_requests_find");
	}
	srv_requests_free(s, t, r);
}

/*
 * A TCP connection set up before the trace (no state change): its peers are
 * learned from its data (builder-net.c).  cli's C and srv's A, loopback:
 *   1100 delivered to A in cli's softirq, cli's send on C returns at 1102
 *        (a sighting C -> A); srv reads at 1110;
 *   1199 srv's reply delivered to C in srv's softirq, its send on A at 1200
 *        (A -> C: both ways, peers now; this arrival's sender is srv);
 *   cli reads at 1240; request 2 as request 1, 1300 .. 1440.
 * Meanwhile P and Q (cli's, no peer): data arrives on Q in cli's softirq and
 * cli sends on P just after, twice, never the other way: not peers.
 * Request 3: a backlog's arrival (below).  Requests: 3, all seen from cli: 1100
 * -> 1240, 1300 -> 1440, 1499 -> 1580.
 */
static void test_learned_peer(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	struct rsp_requests *r;
	const uint64_t SK_P = 0xffff80001000ull, SK_Q = 0xffff80002000ull;

	existing(s, SRV, SRV, "srv");
	existing(s, CLI, CLI, "cli");
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, SRV, "srv");
	synth_switch(s, 1, US(1000), 0, "swapper/1", 0, CLI, "cli");
	for (int k = 0; k < 2; k++) {
		uint64_t b = (uint64_t)k * 200;

		synth_sk_ready(s, 1, US(1100 + b), CLI, SYN_SOFTIRQ, SK_A, 2);
		synth_sock_send(s, 1, US(1102 + b), CLI, SK_C, 2, 64);
		synth_sock_recv(s, 0, US(1110 + b), SRV, SK_A, 2, 64);
		synth_sk_ready(s, 0, US(1199 + b), SRV, SYN_SOFTIRQ, SK_C, 2);
		synth_sock_send(s, 0, US(1200 + b), SRV, SK_A, 2, 64);
		synth_sock_recv(s, 1, US(1240 + b), CLI, SK_C, 2, 64);
		synth_sk_ready(s, 1, US(1250 + b), CLI, SYN_SOFTIRQ, SK_Q, 2);
		synth_sock_send(s, 1, US(1252 + b), CLI, SK_P, 2, 64);
	}
	/* 3: cli's data waited in srv's backlog and arrives in srv's own context at
	 * 1499, before cli's send returns (1500): the peer's last send named for it is
	 * request 2's, whose exchange is taken; matched by the arrival instead */
	synth_sk_ready(s, 0, US(1499), SRV, 0, SK_A, 2);
	synth_sock_send(s, 1, US(1500), CLI, SK_C, 2, 64);
	synth_sock_recv(s, 0, US(1510), SRV, SK_A, 2, 64);
	synth_sk_ready(s, 0, US(1549), SRV, SYN_SOFTIRQ, SK_C, 2);
	synth_sock_send(s, 0, US(1550), SRV, SK_A, 2, 64);
	synth_sock_recv(s, 1, US(1580), CLI, SK_C, 2, 64);
	synth_switch(s, 0, US(1600), SRV, "srv", S_INT, 0, "swapper/0");
	synth_switch(s, 1, US(1600), CLI, "cli", S_INT, 0, "swapper/1");
	if (srv_requests(s, &t, &r)) {
		struct rsp_requests_stats st;
		size_t idx[4] = { RSP_NO_INDEX, RSP_NO_INDEX, RSP_NO_INDEX, RSP_NO_INDEX };
		const uint64_t sks[4] = { SK_A, SK_C, SK_P, SK_Q };
		struct rsp_socket_info si[4];
		uint32_t senders = 0;

		for (size_t i = 0; i < rsp_trace_n_sockets(t); i++) {
			struct rsp_socket_info x;

			rsp_trace_socket(t, i, &x);
			for (int k = 0; k < 4; k++)
				if (x.sk == sks[k]) {
					idx[k] = i;
					si[k] = x;
				}
		}
		CHECK(idx[0] != RSP_NO_INDEX && idx[1] != RSP_NO_INDEX && si[0].peer == idx[1] &&
			      si[1].peer == idx[0],
		      "learned peer: A and C are peers");
		CHECK(idx[2] != RSP_NO_INDEX && idx[3] != RSP_NO_INDEX &&
			      si[2].peer == RSP_NO_INDEX && si[3].peer == RSP_NO_INDEX,
		      "learned peer: P and Q, seen one way only, are not");
		/* the arrivals on A and C: the first (before the pairing) without a sender */
		for (size_t i = 0; i < rsp_trace_n_nets(t); i++) {
			struct rsp_net_info n;

			rsp_trace_net(t, i, &n);
			if (n.socket == idx[0] || n.socket == idx[1])
				senders = senders * 10 + (n.sender_thread == RSP_NO_INDEX ? 0 : 1);
		}
		CHECK(senders == 11111, "learned peer: the arrivals' senders known from the second "
					"on (got %u, 1 known, 0 not)", senders);
		CHECK(rsp_requests_n(r) == 3 && !rsp_requests_clients(r, t, &st) && st.count == 3 &&
			      st.min_ns == NS(81) && st.max_ns == NS(140),
		      "learned peer: three requests, all seen from their client, 140, 140 and 81 us (got %zu, "
		      "%" PRIu64 " .. %" PRIu64 " ns)",
		      st.count, st.min_ns, st.max_ns);
	} else {
		CHECK(0, "learned peer: rsp_requests_find");
	}
	srv_requests_free(s, t, r);
}

/*
 * Unix sockets: no state changes; a unix socket's data is delivered in its
 * sender's task context.  srv's datagram socket S serves cli's U and c2's W:
 *   1100 cli's data on S (1101 its send on U), srv reads at 1110, replies to U
 *        (1150 in srv's context, 1151 its send on S), cli reads at 1160: S and
 *        U seen both ways, peers;
 *   1200 c2 the same from W (1250 the reply on W, c2 reads at 1260): S has a
 *        peer already, W gets none; the arrival's sender is c2, not S's peer;
 *   1300 cli again, read at 1310, replied 1350/1351, cli reads at 1360.
 * Requests: 3 on S; seen from their client: cli's two (60 us each), not c2's
 * (its socket is not S's peer, and the exchange of S's peer is cli's).
 */
static void test_unix_peers(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	struct rsp_requests *r;
	const uint64_t SK_S = 0xffff80003000ull, SK_U = 0xffff80004000ull, SK_W = 0xffff80005000ull;
	const int who[3] = { CLI, 700, CLI };
	const uint64_t sk[3] = { SK_U, SK_W, SK_U };

	existing(s, SRV, SRV, "srv");
	existing(s, CLI, CLI, "cli");
	existing(s, 700, 700, "c2");
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, SRV, "srv");
	synth_switch(s, 1, US(1000), 0, "swapper/1", 0, CLI, "cli");
	for (int k = 0; k < 3; k++) {
		uint64_t b = (uint64_t)k * 100;

		if (k == 1)
			synth_switch(s, 1, US(1190), CLI, "cli", S_INT, 700, "c2");
		if (k == 2)
			synth_switch(s, 1, US(1290), 700, "c2", S_INT, CLI, "cli");
		synth_sk_ready(s, 1, US(1100 + b), who[k], 0, SK_S, 1);
		synth_sock_send(s, 1, US(1101 + b), who[k], sk[k], 1, 64);
		synth_sock_recv(s, 0, US(1110 + b), SRV, SK_S, 1, 64);
		synth_sk_ready(s, 0, US(1150 + b), SRV, 0, sk[k], 1);
		synth_sock_send(s, 0, US(1151 + b), SRV, SK_S, 1, 64);
		synth_sock_recv(s, 1, US(1160 + b), who[k], sk[k], 1, 64);
	}
	synth_switch(s, 0, US(1600), SRV, "srv", S_INT, 0, "swapper/0");
	synth_switch(s, 1, US(1600), CLI, "cli", S_INT, 0, "swapper/1");
	if (srv_requests(s, &t, &r)) {
		struct rsp_requests_stats st;
		size_t idx[3] = { RSP_NO_INDEX, RSP_NO_INDEX, RSP_NO_INDEX };
		const uint64_t sks[3] = { SK_S, SK_U, SK_W };
		struct rsp_socket_info si[3];
		int senders[6], n = 0;

		for (size_t i = 0; i < rsp_trace_n_sockets(t); i++) {
			struct rsp_socket_info x;

			rsp_trace_socket(t, i, &x);
			for (int k = 0; k < 3; k++)
				if (x.sk == sks[k]) {
					idx[k] = i;
					si[k] = x;
				}
		}
		CHECK(idx[0] != RSP_NO_INDEX && idx[1] != RSP_NO_INDEX && idx[2] != RSP_NO_INDEX &&
			      si[0].peer == idx[1] && si[1].peer == idx[0] && si[2].peer == RSP_NO_INDEX,
		      "unix: S and U peers, W none");
		for (size_t i = 0; i < rsp_trace_n_nets(t) && n < 6; i++) {
			struct rsp_net_info ni;
			struct rsp_thread_info ti = { 0 };

			rsp_trace_net(t, i, &ni);
			if (ni.sender_thread != RSP_NO_INDEX)
				rsp_trace_thread(t, ni.sender_thread, &ti);
			senders[n++] = ti.tid;
		}
		CHECK(n == 6 && senders[0] == CLI && senders[1] == SRV && senders[2] == 700 &&
			      senders[3] == SRV && senders[4] == CLI && senders[5] == SRV,
		      "unix: each arrival sent by the task it came in (c2's not taken for S's peer)");
		CHECK(rsp_requests_n(r) == 3 && !rsp_requests_clients(r, t, &st) && st.count == 2 &&
			      st.min_ns == NS(60) && st.max_ns == NS(60),
		      "unix: 3 requests, cli's two seen from it, 60 us (got %zu, %" PRIu64 " .. %" PRIu64
		      " ns)",
		      st.count, st.min_ns, st.max_ns);
	} else {
		CHECK(0, "unix: rsp_requests_find");
	}
	srv_requests_free(s, t, r);
}

/*
 * A datagram whose sender is preempted inside its send by the server it woke
 * (the same CPU): cli's datagram on A is delivered at 1100 in its softirq; srv
 * takes the CPU at 1101, reads at 1110, replies at 2500 and sleeps at 2600;
 * cli runs again and its send returns at 2602, 1.5 ms after the delivery but
 * 2 us after its switch-in: it is cli's (from D).  c2's datagram at 3000 is
 * followed by c2's send 1.2 ms later without a preemption: not known.
 */
static void test_udp_preempted_sender(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	struct rsp_requests *r;

	existing(s, SRV, SRV, "srv");
	existing(s, CLI, CLI, "cli");
	existing(s, 700, 700, "c2");
	synth_sock_udp(s, true);
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, CLI, "cli");
	synth_sk_ready(s, 0, US(1100), CLI, SYN_SOFTIRQ, SK_A, 2);
	synth_waking(s, 0, US(1100), CLI, SYN_SOFTIRQ, SRV, "srv", 0, false, NULL, 0);
	synth_switch(s, 0, US(1101), CLI, "cli", 0, SRV, "srv");
	synth_sock_recv(s, 0, US(1110), SRV, SK_A, 2, 64);
	synth_sock_send(s, 0, US(2500), SRV, SK_A, 2, 64);
	synth_switch(s, 0, US(2600), SRV, "srv", S_INT, CLI, "cli");
	synth_sock_send(s, 0, US(2602), CLI, SK_D, 2, 64);
	synth_switch(s, 0, US(2700), CLI, "cli", S_INT, 700, "c2");
	synth_sk_ready(s, 0, US(3000), 700, SYN_SOFTIRQ, SK_A, 2);
	synth_sock_send(s, 0, US(4200), 700, SK_E, 2, 64);
	synth_switch(s, 0, US(4300), 700, "c2", S_INT, SRV, "srv");
	synth_sock_recv(s, 0, US(4310), SRV, SK_A, 2, 64);
	synth_sock_send(s, 0, US(4400), SRV, SK_A, 2, 64);
	synth_switch(s, 0, US(4500), SRV, "srv", S_INT, 0, "swapper/0");
	if (srv_requests(s, &t, &r) && rsp_requests_n(r) == 2) {
		struct rsp_request_info q[2];
		struct rsp_socket_info si = { 0 };

		rsp_requests_get(r, 0, &q[0]);
		rsp_requests_get(r, 1, &q[1]);
		if (q[0].from_socket != RSP_NO_INDEX)
			rsp_trace_socket(t, q[0].from_socket, &si);
		CHECK(si.sk == SK_D, "UDP, sender preempted inside its send: from D (got %#" PRIx64 ")",
		      si.sk);
		CHECK(q[1].from_socket == RSP_NO_INDEX,
		      "UDP, a send 1.2 ms after the delivery, running all along: not its datagram");
	} else {
		CHECK(0, "UDP preempted: two requests");
	}
	srv_requests_free(s, t, r);
}

/*
 * A NET_RX softirq that takes long inside a client's send (the host stopping
 * the vCPU: 1.4 ms seen), and a receive before its datagram's sk_data_ready.
 *   cli (CPU 1): softirq 1000-2400 delivers its datagram at 1005; its send
 *     ends at 2402, 1.4 ms after the delivery but 2 us after the softirq:
 *     cli's (from D).  srv reads it at 2410, replies at 2450.
 *   c2 (CPU 1): softirq from 3000; srv (CPU 0) reads a datagram at 3100,
 *     before the sk_data_ready at 3700 (softirq exit 3701, c2's send 3702):
 *     queued from 3000, it is c2's (from E), seen by c2 from 3000 (inside its
 *     send; not 3700, after srv had it).  srv replies at 3150; c2 reads the
 *     reply at 3800.
 *   cli again: delivered at 4000 in its softirq (3999-4001), sent 4002; srv
 *     reads at 4100: cli's (from D), not one behind.
 */
static void test_udp_slow_softirq(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	struct rsp_requests *r;
	const uint64_t want[3] = { SK_D, SK_E, SK_D };

	existing(s, SRV, SRV, "srv");
	existing(s, CLI, CLI, "cli");
	existing(s, 700, 700, "c2");
	synth_sock_udp(s, true);
	synth_switch(s, 0, US(900), 0, "swapper/0", 0, SRV, "srv");
	synth_switch(s, 1, US(900), 0, "swapper/1", 0, CLI, "cli");
	synth_softirq(s, SE_SOFTIRQ_ENTRY, 1, US(1000), CLI, 3);
	synth_sk_ready(s, 1, US(1005), CLI, SYN_SOFTIRQ, SK_A, 2);
	synth_softirq(s, SE_SOFTIRQ_EXIT, 1, US(2400), CLI, 3);
	synth_sock_send(s, 1, US(2402), CLI, SK_D, 2, 64);
	synth_sock_recv(s, 0, US(2410), SRV, SK_A, 2, 64);
	synth_sock_send(s, 0, US(2450), SRV, SK_A, 2, 64);
	synth_switch(s, 1, US(2900), CLI, "cli", S_INT, 700, "c2");
	synth_softirq(s, SE_SOFTIRQ_ENTRY, 1, US(3000), 700, 3);
	synth_sock_recv(s, 0, US(3100), SRV, SK_A, 2, 64);
	synth_sock_send(s, 0, US(3150), SRV, SK_A, 2, 64);
	synth_sk_ready(s, 1, US(3700), 700, SYN_SOFTIRQ, SK_A, 2);
	synth_softirq(s, SE_SOFTIRQ_EXIT, 1, US(3701), 700, 3);
	synth_sock_send(s, 1, US(3702), 700, SK_E, 2, 64);
	synth_sock_recv(s, 1, US(3800), 700, SK_E, 2, 64);
	synth_switch(s, 1, US(3900), 700, "c2", S_INT, CLI, "cli");
	synth_softirq(s, SE_SOFTIRQ_ENTRY, 1, US(3999), CLI, 3);
	synth_sk_ready(s, 1, US(4000), CLI, SYN_SOFTIRQ, SK_A, 2);
	synth_softirq(s, SE_SOFTIRQ_EXIT, 1, US(4001), CLI, 3);
	synth_sock_send(s, 1, US(4002), CLI, SK_D, 2, 64);
	synth_sock_recv(s, 0, US(4100), SRV, SK_A, 2, 64);
	synth_sock_send(s, 0, US(4150), SRV, SK_A, 2, 64);
	synth_switch(s, 0, US(4500), SRV, "srv", S_INT, 0, "swapper/0");
	synth_switch(s, 1, US(4500), CLI, "cli", S_INT, 0, "swapper/1");
	if (srv_requests(s, &t, &r) && rsp_requests_n(r) == 3) {
		struct rsp_requests_stats st;
		struct rsp_request_info q;

		for (size_t i = 0; i < 3; i++) {
			struct rsp_socket_info si = { 0 };

			rsp_requests_get(r, i, &q);
			if (q.from_socket != RSP_NO_INDEX)
				rsp_trace_socket(t, q.from_socket, &si);
			CHECK(si.sk == want[i],
			      "UDP, slow softirq: request %zu's datagram from %#" PRIx64 " (got %#" PRIx64 ")",
			      i + 1, want[i], si.sk);
		}
		CHECK(!rsp_requests_clients(r, t, &st), "UDP, slow softirq: rsp_requests_clients");
		rsp_requests_get(r, 1, &q);
		CHECK(q.client_start_ns == US(3000) && q.client_end_ns == US(3800),
		      "UDP, received before its sk_data_ready: seen by c2 3000 -> 3800 (got %" PRIu64
		      " -> %" PRIu64 ")", (uint64_t)(q.client_start_ns - US(0)) / 1000,
		      (uint64_t)(q.client_end_ns - US(0)) / 1000);
	} else {
		CHECK(0, "UDP, slow softirq: three requests");
	}
	srv_requests_free(s, t, r);
}

/*
 * A client that sends two requests at once (pipelining) on a connection set up
 * inside the trace: matched by the streams' byte offsets.  cli's 128 bytes at
 * 1100 (delivered at 1099 in its softirq); srv reads 64 at 1110 and answers 64
 * at 1150, reads the other 64 at 1160 and answers at 1200; cli reads the 128
 * bytes of both replies at 1230.  Request 1: 1099 -> 1230; request 2: its
 * bytes in the same send (1100, no arrival of its own) -> 1230.  By time the
 * client's one exchange would serve the first only.
 */
static void test_client_pipelined(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	struct rsp_requests *r;
	const uint8_t lo[4] = { 127, 0, 0, 1 };

	existing(s, SRV, SRV, "srv");
	existing(s, CLI, CLI, "cli");
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, SRV, "srv");
	synth_switch(s, 1, US(1000), 0, "swapper/1", 0, CLI, "cli");
	synth_sock_state(s, 1, US(1001), CLI, SK_C, lo, 40001, lo, 5432, 2 /* SYN_SENT */);
	synth_sock_state(s, 1, US(1002), CLI, SK_A, lo, 5432, lo, 40001, 3 /* SYN_RECV */);
	synth_sk_ready(s, 1, US(1099), CLI, SYN_SOFTIRQ, SK_A, 2);
	synth_sock_send(s, 1, US(1100), CLI, SK_C, 2, 128);
	synth_sock_recv(s, 0, US(1110), SRV, SK_A, 2, 64);
	synth_sock_send(s, 0, US(1150), SRV, SK_A, 2, 64);
	synth_sock_recv(s, 0, US(1160), SRV, SK_A, 2, 64);
	synth_sock_send(s, 0, US(1200), SRV, SK_A, 2, 64);
	synth_sock_recv(s, 1, US(1230), CLI, SK_C, 2, 128);
	synth_switch(s, 0, US(1600), SRV, "srv", S_INT, 0, "swapper/0");
	synth_switch(s, 1, US(1600), CLI, "cli", S_INT, 0, "swapper/1");
	if (srv_requests(s, &t, &r) && rsp_requests_n(r) == 2) {
		struct rsp_requests_stats st;
		struct rsp_request_info q[2];

		CHECK(!rsp_requests_clients(r, t, &st) && st.count == 2, "pipelined: both seen from "
		      "the client (got %zu)", st.count);
		rsp_requests_get(r, 0, &q[0]);
		rsp_requests_get(r, 1, &q[1]);
		CHECK(q[0].client_start_ns == US(1099) && q[0].client_end_ns == US(1230) &&
			      q[1].client_start_ns == US(1100) && q[1].client_end_ns == US(1230),
		      "pipelined: 1099 -> 1230 and 1100 -> 1230 (got %" PRIu64 " -> %" PRIu64
		      ", %" PRIu64 " -> %" PRIu64 " ns from 0)",
		      (uint64_t)(q[0].client_start_ns - US(0)), (uint64_t)(q[0].client_end_ns - US(0)),
		      (uint64_t)(q[1].client_start_ns - US(0)), (uint64_t)(q[1].client_end_ns - US(0)));
	} else {
		CHECK(0, "pipelined: two requests");
	}
	srv_requests_free(s, t, r);
}

/* Each of @r's first @n requests seen by its client from want[i][0] to want[i][1] (us). */
static void check_client_times(const struct rsp_requests *r, const unsigned (*want)[2], size_t n,
			       const char *what)
{
	for (size_t i = 0; i < n; i++) {
		struct rsp_request_info q;

		rsp_requests_get(r, i, &q);
		CHECK(q.client_start_ns == US(want[i][0]) && q.client_end_ns == US(want[i][1]),
		      "%s: request %zu seen by its client %u -> %u (got %" PRIu64 " -> %" PRIu64 ")",
		      what, i + 1, want[i][0], want[i][1], (uint64_t)(q.client_start_ns - US(0)) / 1000,
		      (uint64_t)(q.client_end_ns - US(0)) / 1000);
	}
}

/*
 * A client preempted before its receive returned to it (the recorder's threads
 * did that on a busy machine): its own clock counts the wait, so does its
 * latency.  cli sleeps in recv (user address 0x401000); request 1: woken, its
 * receive ends at 1230, preempted at 1232 at the same user address (still in
 * the call), runs again at 1300: 1100 -> 1300.  Request 2: its receive ends at
 * 1530 and it is preempted at 1532 at another address (back in user space,
 * not the call's): 1398 -> 1530.
 */
static void test_client_preempted_return(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	struct rsp_requests *r;
	const uint64_t in_recv[] = { 0xffffffff81000010ull, 0x401000 };
	const uint64_t in_user[] = { 0xffffffff81000020ull, 0x402000 };
	const unsigned want[2][2] = { { 1100, 1300 }, { 1398, 1530 } };

	existing(s, SRV, SRV, "srv");
	existing(s, CLI, CLI, "cli");
	existing(s, 700, 700, "oth");
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, SRV, "srv");
	synth_switch(s, 1, US(1000), 0, "swapper/1", 0, CLI, "cli");
	connect_lo(s, 1);
	for (int k = 0; k < 2; k++) {
		uint64_t b = k ? 300 : 0; /* request 2 sends at 1400, 2 us after its arrival */

		synth_sk_ready(s, 1, US(1100 + b - (k ? 2 : 0)), CLI, SYN_SOFTIRQ, SK_A, 2);
		synth_sock_send(s, 1, US(1102 + b), CLI, SK_C, 2, 64);
		synth_switch_stack(s, 1, US(1105 + b), CLI, "cli", S_INT, 0, "swapper/1", in_recv, 2);
		synth_sock_recv(s, 0, US(1110 + b), SRV, SK_A, 2, 64);
		synth_sk_ready(s, 0, US(1199 + b), SRV, SYN_SOFTIRQ, SK_C, 2);
		synth_sock_send(s, 0, US(1200 + b), SRV, SK_A, 2, 64);
		synth_switch(s, 1, US(1210 + b), 0, "swapper/1", 0, CLI, "cli");
		synth_sock_recv(s, 1, US(1230 + b), CLI, SK_C, 2, 64);
		synth_switch_stack(s, 1, US(1232 + b), CLI, "cli", 0 /* R */, 700, "oth",
				   k ? in_user : in_recv, 2);
		synth_switch(s, 1, US(1300 + b), 700, "oth", S_INT, CLI, "cli");
	}
	synth_switch(s, 0, US(1700), SRV, "srv", S_INT, 0, "swapper/0");
	synth_switch(s, 1, US(1700), CLI, "cli", S_INT, 0, "swapper/1");
	if (srv_requests(s, &t, &r) && rsp_requests_n(r) == 2) {
		struct rsp_requests_stats st;

		CHECK(!rsp_requests_clients(r, t, &st) && st.count == 2 && st.sum_ns == NS(332),
		      "preempted return: both seen, 200 + 132 us (got %zu, %" PRIu64 " ns)", st.count,
		      st.sum_ns);
		check_client_times(r, want, 2, "preempted return");
	} else {
		CHECK(0, "preempted return: two requests");
	}
	srv_requests_free(s, t, r);
}

/*
 * A client preempted in its send twice at the same address (the same call
 * site: each request's send), its reply's receive between: the second
 * preemption is the next request's, not the receive's return.  cli's request
 * 1 is delivered at 1100 in its send, which ends at 1102; preempted at 1105
 * (user address 0x403000, its send returning), runnable while srv reads
 * (1110) and replies (1200); runs again at 1300, its receive ends at 1330;
 * request 2 is delivered at 1338, its send ends at 1340 and it is preempted
 * at 1342 at 0x403000 again until 1400.  Request 1: 1100 -> 1330 (not
 * 1400); request 2: srv reads at 1410 and replies at 1450, cli's receive ends
 * at 1460: 1338 -> 1460.
 */
static void test_client_preempted_next_send(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	struct rsp_requests *r;
	const uint64_t in_send[] = { 0xffffffff81000030ull, 0x403000 };
	const unsigned want[2][2] = { { 1100, 1330 }, { 1338, 1460 } };

	existing(s, SRV, SRV, "srv");
	existing(s, CLI, CLI, "cli");
	existing(s, 700, 700, "oth");
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, SRV, "srv");
	synth_switch(s, 1, US(1000), 0, "swapper/1", 0, CLI, "cli");
	connect_lo(s, 1);
	synth_sk_ready(s, 1, US(1100), CLI, SYN_SOFTIRQ, SK_A, 2);
	synth_sock_send(s, 1, US(1102), CLI, SK_C, 2, 64);
	synth_switch_stack(s, 1, US(1105), CLI, "cli", 0 /* R */, 700, "oth", in_send, 2);
	synth_sock_recv(s, 0, US(1110), SRV, SK_A, 2, 64);
	synth_sk_ready(s, 0, US(1199), SRV, SYN_SOFTIRQ, SK_C, 2);
	synth_sock_send(s, 0, US(1200), SRV, SK_A, 2, 64);
	synth_switch(s, 1, US(1300), 700, "oth", S_INT, CLI, "cli");
	synth_sock_recv(s, 1, US(1330), CLI, SK_C, 2, 64);
	synth_sk_ready(s, 1, US(1338), CLI, SYN_SOFTIRQ, SK_A, 2);
	synth_sock_send(s, 1, US(1340), CLI, SK_C, 2, 64);
	synth_switch_stack(s, 1, US(1342), CLI, "cli", 0 /* R */, 700, "oth", in_send, 2);
	synth_switch(s, 1, US(1400), 700, "oth", S_INT, CLI, "cli");
	synth_sock_recv(s, 0, US(1410), SRV, SK_A, 2, 64);
	synth_sk_ready(s, 0, US(1449), SRV, SYN_SOFTIRQ, SK_C, 2);
	synth_sock_send(s, 0, US(1450), SRV, SK_A, 2, 64);
	synth_sock_recv(s, 1, US(1460), CLI, SK_C, 2, 64);
	synth_switch(s, 0, US(1700), SRV, "srv", S_INT, 0, "swapper/0");
	synth_switch(s, 1, US(1700), CLI, "cli", S_INT, 0, "swapper/1");
	if (srv_requests(s, &t, &r) && rsp_requests_n(r) == 2) {
		struct rsp_requests_stats st;

		CHECK(!rsp_requests_clients(r, t, &st) && st.count == 2,
		      "preempted in the next send: both seen (got %zu)", st.count);
		check_client_times(r, want, 2, "preempted in the next send");
	} else {
		CHECK(0, "preempted in the next send: two requests");
	}
	srv_requests_free(s, t, r);
}

/*
 * A pool's worker holds the server's socket (sending a reply on it) when the
 * client's next request comes: the segment waits in the socket's backlog and
 * is delivered as the worker releases the socket, in the worker's context,
 * while the client (on the other CPU) is still in its send.  That arrival is
 * the send in progress, not the client's previous one (already delivered):
 * naming the previous put this request and every later one a request behind.
 *   cli (CPU 0) and srv's worker w (501, CPU 1); request 1 as usual: 1100 ->
 *   1240; request 2: delivered at 1301 in w's context (task), cli's send ends
 *   at 1302: 1301 -> 1420; request 3 as usual again: 1500 -> 1620.
 */
static void test_backlog_during_send(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	struct rsp_requests *r;
	const unsigned want[3][2] = { { 1100, 1240 }, { 1301, 1420 }, { 1500, 1620 } };

	existing(s, SRV, SRV, "srv");
	existing(s, SRV, 501, "w");
	existing(s, CLI, CLI, "cli");
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, CLI, "cli");
	synth_switch(s, 1, US(1000), 0, "swapper/1", 0, 501, "w");
	connect_lo(s, 0);
	/* 1 */
	synth_sk_ready(s, 0, US(1100), CLI, SYN_SOFTIRQ, SK_A, 2);
	synth_sock_send(s, 0, US(1102), CLI, SK_C, 2, 64);
	synth_sock_recv(s, 1, US(1110), 501, SK_A, 2, 64);
	synth_sk_ready(s, 1, US(1199), 501, SYN_SOFTIRQ, SK_C, 2);
	synth_sock_send(s, 1, US(1200), 501, SK_A, 2, 64);
	synth_sock_recv(s, 0, US(1240), CLI, SK_C, 2, 64);
	/* 2: the backlog, delivered in w's context during cli's send */
	synth_sk_ready(s, 1, US(1301), 501, 0, SK_A, 2);
	synth_sock_send(s, 0, US(1302), CLI, SK_C, 2, 64);
	synth_sock_recv(s, 1, US(1310), 501, SK_A, 2, 64);
	synth_sk_ready(s, 1, US(1399), 501, SYN_SOFTIRQ, SK_C, 2);
	synth_sock_send(s, 1, US(1400), 501, SK_A, 2, 64);
	synth_sock_recv(s, 0, US(1420), CLI, SK_C, 2, 64);
	/* 3 */
	synth_sk_ready(s, 0, US(1500), CLI, SYN_SOFTIRQ, SK_A, 2);
	synth_sock_send(s, 0, US(1502), CLI, SK_C, 2, 64);
	synth_sock_recv(s, 1, US(1510), 501, SK_A, 2, 64);
	synth_sk_ready(s, 1, US(1599), 501, SYN_SOFTIRQ, SK_C, 2);
	synth_sock_send(s, 1, US(1600), 501, SK_A, 2, 64);
	synth_sock_recv(s, 0, US(1620), CLI, SK_C, 2, 64);
	synth_switch(s, 0, US(1700), CLI, "cli", S_INT, 0, "swapper/0");
	synth_switch(s, 1, US(1700), 501, "w", S_INT, 0, "swapper/1");
	if (srv_requests(s, &t, &r) && rsp_requests_n(r) == 3) {
		struct rsp_requests_stats st;

		CHECK(!rsp_requests_clients(r, t, &st) && st.count == 3,
		      "backlog during a send: three seen (got %zu)", st.count);
		check_client_times(r, want, 3, "backlog during a send");
	} else {
		CHECK(0, "backlog during a send: three requests");
	}
	srv_requests_free(s, t, r);
}

/*
 * A connection made before the trace (peers learned from the data: matched by
 * time) whose client is preempted inside its send after the data went: the
 * server receives and replies before the send's event (its end).  Still this
 * request's exchange (the client received nothing since the server had the
 * request); the next one (after the client's receive of this reply) is not.
 *   request 1: 1100 data, 1102 send ends, 1110 recv, 1200 reply, 1240 client's
 *   receive; request 2: 1300 data (cli preempted 1301 -> 1420 in the send),
 *   1310 recv, 1400 reply, 1420 the send ends, 1440 the receive: 1300 -> 1440;
 *   request 3 as request 1: 1500 -> 1640.
 */
static void test_client_preempted_send(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	struct rsp_requests *r;
	const unsigned want[3][2] = { { 1100, 1240 }, { 1300, 1440 }, { 1500, 1640 } };

	existing(s, SRV, SRV, "srv");
	existing(s, CLI, CLI, "cli");
	existing(s, 700, 700, "oth");
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, SRV, "srv");
	synth_switch(s, 1, US(1000), 0, "swapper/1", 0, CLI, "cli");
	for (int k = 0; k < 3; k++) {
		uint64_t b = (uint64_t)k * 200;
		unsigned late = k == 1 ? 318 : 0; /* request 2's send ends at 1420 */

		synth_sk_ready(s, 1, US(1100 + b), CLI, SYN_SOFTIRQ, SK_A, 2);
		if (late) {
			synth_switch(s, 1, US(1301), CLI, "cli", 0 /* R */, 700, "oth");
			synth_switch(s, 1, US(1419), 700, "oth", S_INT, CLI, "cli");
		}
		if (!late)
			synth_sock_send(s, 1, US(1102 + b), CLI, SK_C, 2, 64);
		synth_sock_recv(s, 0, US(1110 + b), SRV, SK_A, 2, 64);
		synth_sk_ready(s, 0, US(1199 + b), SRV, SYN_SOFTIRQ, SK_C, 2);
		synth_sock_send(s, 0, US(1200 + b), SRV, SK_A, 2, 64);
		if (late)
			synth_sock_send(s, 1, US(1420), CLI, SK_C, 2, 64);
		synth_sock_recv(s, 1, US(1240 + b), CLI, SK_C, 2, 64);
	}
	synth_switch(s, 0, US(1700), SRV, "srv", S_INT, 0, "swapper/0");
	synth_switch(s, 1, US(1700), CLI, "cli", S_INT, 0, "swapper/1");
	if (srv_requests(s, &t, &r) && rsp_requests_n(r) == 3) {
		struct rsp_requests_stats st;

		CHECK(!rsp_requests_clients(r, t, &st) && st.count == 3,
		      "preempted send: three seen (got %zu)", st.count);
		check_client_times(r, want, 3, "preempted send");
	} else {
		CHECK(0, "preempted send: three requests");
	}
	srv_requests_free(s, t, r);
}

/*
 * A web server's churn (builder-net.c, peer_put(), peer_del()): 3000
 * connections in the kernel's order, 300 open at a time, closed in a shuffled
 * order (entries taken out of the middle of the table's runs, some across
 * its end); connection k a client socket CS + k % 307 (addresses reused)
 * connecting from port 40000 + k % 331 (ports reused: each tuple ~9 times) to
 * srv's listener (5432), accepted on AS + k % 307:
 *   the client's SYN_SENT with local port 0 (the port is chosen after it),
 *   the accepted socket's SYN_RECV, both ESTABLISHED; srv answers and closes
 *   (FIN_WAIT1, FIN_WAIT2, CLOSE), the client sees CLOSE_WAIT, LAST_ACK, CLOSE.
 * Every third connect is refused (SYN_SENT with port 0, CLOSE), a socket more.
 * Sockets in the order made: each connection's client, then its server
 * socket; every pair peers, each with its own connection's, not an earlier
 * one's of the same tuple (closed) nor a refused one's; the listener and the
 * refused sockets have none.
 */
static void test_churned_peers(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	struct rsp_requests *r;
	const uint8_t lo[4] = { 127, 0, 0, 1 }, any[4] = { 0 };
	const uint64_t SK_L = 0xffff80010000ull, SK_R = 0xffff80020000ull;
	const uint64_t CS = 0xffff81000000ull, AS = 0xffff82000000ull; /* the sockets' */
	const int N = 3000, W = 300, NSK = 307, NPORT = 331;
	uint64_t at = 1001;

	existing(s, SRV, SRV, "srv");
	existing(s, CLI, CLI, "cli");
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, SRV, "srv");
	synth_switch(s, 1, US(1000), 0, "swapper/1", 0, CLI, "cli");
	synth_sock_state(s, 0, US(at++), SRV, SK_L, lo, 5432, any, 0, 10 /* LISTEN */);
	for (int b0 = 0; b0 < N; b0 += W) {
		for (int k = b0; k < b0 + W; k++) {
			uint64_t c = CS + (uint64_t)(k % NSK) * 64, a = AS + (uint64_t)(k % NSK) * 64;
			uint16_t port = (uint16_t)(40000 + k % NPORT);

			if (k % 3 == 2) {
				synth_sock_state(s, 1, US(at++), CLI, SK_R, lo, 0, lo, 5432, 2);
				synth_sock_state(s, 1, US(at++), CLI, SK_R, lo, 0, lo, 5432, 7);
			}
			synth_sock_state(s, 1, US(at++), CLI, c, lo, 0, lo, 5432, 2 /* SYN_SENT */);
			synth_sock_state(s, 1, US(at++), CLI, a, lo, 5432, lo, port, 3 /* SYN_RECV */);
			synth_sock_state(s, 1, US(at++), CLI, c, lo, port, lo, 5432, 1 /* ESTABLISHED */);
			synth_sock_state(s, 0, US(at++), SRV, a, lo, 5432, lo, port, 1 /* ESTABLISHED */);
		}
		for (int q = 0; q < W; q++) {
			int k = b0 + q * 7 % W; /* 7 and W coprime: each once */
			uint64_t c = CS + (uint64_t)(k % NSK) * 64, a = AS + (uint64_t)(k % NSK) * 64;
			uint16_t port = (uint16_t)(40000 + k % NPORT);

			synth_sock_state(s, 0, US(at++), SRV, a, lo, 5432, lo, port, 4 /* FIN_WAIT1 */);
			synth_sock_state(s, 0, US(at++), SRV, c, lo, port, lo, 5432, 8 /* CLOSE_WAIT */);
			synth_sock_state(s, 0, US(at++), SRV, a, lo, 5432, lo, port, 5 /* FIN_WAIT2 */);
			synth_sock_state(s, 1, US(at++), CLI, c, lo, port, lo, 5432, 9 /* LAST_ACK */);
			synth_sock_state(s, 1, US(at++), CLI, c, lo, port, lo, 5432, 7 /* CLOSE */);
			synth_sock_state(s, 0, US(at++), SRV, a, lo, 5432, lo, port, 7 /* CLOSE */);
		}
	}
	synth_switch(s, 0, US(at), SRV, "srv", S_INT, 0, "swapper/0");
	synth_switch(s, 1, US(at), CLI, "cli", S_INT, 0, "swapper/1");
	if (srv_requests(s, &t, &r)) {
		size_t n = rsp_trace_n_sockets(t), pairs = 0, bad = 0, others = 0;

		for (size_t i = 0; i < n; i++) {
			struct rsp_socket_info x, y;

			rsp_trace_socket(t, i, &x);
			if (x.sk == SK_L || x.sk == SK_R) {
				others += x.peer == RSP_NO_INDEX;
				continue;
			}
			if (x.sk != CS + (uint64_t)(pairs % NSK) * 64 || i + 1 >= n) {
				bad++;
				continue;
			}
			rsp_trace_socket(t, i + 1, &y);
			if (y.sk == AS + (uint64_t)(pairs % NSK) * 64 && x.peer == i + 1 && y.peer == i &&
			    !strcmp(x.remote, y.local) && !strcmp(y.remote, x.local))
				pairs++;
			else
				bad++;
			i++;
		}
		CHECK(pairs == (size_t)N && !bad && others == 1 + N / 3,
		      "churn: %d connections, each pair of sockets peers (got %zu, %zu wrong), the "
		      "listener and %d refused without a peer (got %zu)",
		      N, pairs, bad, N / 3, others);
	} else {
		CHECK(0, "churn: rsp_requests_find");
	}
	srv_requests_free(s, t, r);
}

/*
 * A listener from before the trace (no LISTEN seen: its address unknown)
 * learned from the connection it accepts (builder-net.c, listener_learned()).
 * In one softirq on CPU 1 (cli's connect, 1100-1104): the accepted socket A's
 * SYN_RECV, cli's C and A ESTABLISHED, then data-ready on the listener L: L
 * is 127.0.0.1:5432 with remote port 0.  Not learned: M's data-ready in the
 * softirq (1113) after the one of a second accept (1110-1112), N's in the
 * same softirq as a third accept (1115) but 200 us after it.
 */
static void test_learned_listener(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	struct rsp_requests *r;
	const uint8_t lo[4] = { 127, 0, 0, 1 };
	const uint64_t SK_L = 0xffff80010000ull, SK_M = 0xffff80020000ull,
		       SK_N = 0xffff80030000ull, SK_A2 = 0xffff80040000ull,
		       SK_A3 = 0xffff80050000ull;

	existing(s, SRV, SRV, "srv");
	existing(s, CLI, CLI, "cli");
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, SRV, "srv");
	synth_switch(s, 1, US(1000), 0, "swapper/1", 0, CLI, "cli");
	synth_softirq(s, SE_SOFTIRQ_ENTRY, 1, US(1100), CLI, 3);
	synth_sock_state(s, 1, US(1100), CLI, SK_C, lo, 0, lo, 5432, 2 /* SYN_SENT */);
	synth_sock_state(s, 1, US(1101), CLI, SK_A, lo, 5432, lo, 40001, 3 /* SYN_RECV */);
	synth_sock_state(s, 1, US(1101), CLI, SK_C, lo, 40001, lo, 5432, 1 /* ESTABLISHED */);
	synth_sock_state(s, 1, US(1102), CLI, SK_A, lo, 5432, lo, 40001, 1 /* ESTABLISHED */);
	synth_sk_ready(s, 1, US(1102), CLI, SYN_SOFTIRQ, SK_L, 2);
	synth_softirq(s, SE_SOFTIRQ_EXIT, 1, US(1104), CLI, 3);
	synth_softirq(s, SE_SOFTIRQ_ENTRY, 1, US(1110), CLI, 3);
	synth_sock_state(s, 1, US(1110), CLI, SK_A2, lo, 5432, lo, 40002, 3 /* SYN_RECV */);
	synth_sock_state(s, 1, US(1111), CLI, SK_A2, lo, 5432, lo, 40002, 1 /* ESTABLISHED */);
	synth_softirq(s, SE_SOFTIRQ_EXIT, 1, US(1112), CLI, 3);
	synth_softirq(s, SE_SOFTIRQ_ENTRY, 1, US(1113), CLI, 3);
	synth_sk_ready(s, 1, US(1113), CLI, SYN_SOFTIRQ, SK_M, 2);
	synth_sock_state(s, 1, US(1114), CLI, SK_A3, lo, 5432, lo, 40003, 3 /* SYN_RECV */);
	synth_sock_state(s, 1, US(1115), CLI, SK_A3, lo, 5432, lo, 40003, 1 /* ESTABLISHED */);
	synth_sk_ready(s, 1, US(1315), CLI, SYN_SOFTIRQ, SK_N, 2);
	synth_softirq(s, SE_SOFTIRQ_EXIT, 1, US(1316), CLI, 3);
	synth_switch(s, 0, US(1400), SRV, "srv", S_INT, 0, "swapper/0");
	synth_switch(s, 1, US(1400), CLI, "cli", S_INT, 0, "swapper/1");
	if (srv_requests(s, &t, &r)) {
		struct rsp_socket_info l = { 0 }, m = { 0 }, n = { 0 }, x;

		for (size_t i = 0; i < rsp_trace_n_sockets(t); i++) {
			rsp_trace_socket(t, i, &x);
			if (x.sk == SK_L)
				l = x;
			else if (x.sk == SK_M)
				m = x;
			else if (x.sk == SK_N)
				n = x;
		}
		CHECK(l.sk == SK_L && !strcmp(l.local, "127.0.0.1:5432") &&
			      !strcmp(l.remote, "0.0.0.0:0") && l.listening && l.peer == RSP_NO_INDEX,
		      "listener: learned from its accept, %s <- %s", l.local, l.remote);
		CHECK(m.sk == SK_M && !m.local[0] && n.sk == SK_N && !n.local[0],
		      "listener: not from another softirq's (%s) nor 200 us later (%s)", m.local,
		      n.local);
	} else {
		CHECK(0, "listener: rsp_requests_find");
	}
	srv_requests_free(s, t, r);
}

/* the server of the file's head comment: its requests, their time, their windows */
static void test_server(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t = build(s);
	struct rsp_requests *r = NULL;
	struct rsp_thread_filter f = { .pids = (const int[]){ SRV }, .n_pids = 1 };
	uint8_t *sel = t ? rsp_thread_filter_apply(t, &f) : NULL;

	if (sel && !rsp_requests_find(t, sel, &r)) {
		check_requests(t, r);
		check_time(t, r);
		if (rsp_requests_n(r) == 2)
			check_windows(t, r);
	} else {
		CHECK(0, "rsp_requests_find");
	}
	rsp_requests_free(r);
	free(sel);
	rsp_trace_free(t);
	synth_free(s);
}

int main(int argc, char **argv)
{
	tap_init(argc, argv);
	TAP_RUN("server", test_server());
	TAP_RUN("overlap", test_overlap());
	TAP_RUN("reused_socket", test_reused_socket());
	TAP_RUN("udp_senders", test_udp_senders());
	TAP_RUN("client_latency", test_client_latency());
	TAP_RUN("learned_peer", test_learned_peer());
	TAP_RUN("unix_peers", test_unix_peers());
	TAP_RUN("udp_preempted_sender", test_udp_preempted_sender());
	TAP_RUN("udp_slow_softirq", test_udp_slow_softirq());
	TAP_RUN("client_pipelined", test_client_pipelined());
	TAP_RUN("client_preempted_return", test_client_preempted_return());
	TAP_RUN("client_preempted_next_send", test_client_preempted_next_send());
	TAP_RUN("backlog_during_send", test_backlog_during_send());
	TAP_RUN("client_preempted_send", test_client_preempted_send());
	TAP_RUN("churned_peers", test_churned_peers());
	TAP_RUN("learned_listener", test_learned_listener());
	return tap_done();
}
