/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * model/analysis/queue.c: a target queued behind other connections' requests
 * in the servers it calls (one thread, a pool, a process per connection, UDP).
 * The explanation table from synthetic traces with exact expected answers (times
 * in microseconds; the tables are worked out in the comments); analysis-check.h
 * checks every table for its invariants.
 */
#include "analysis-check.h"

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

int main(int argc, char **argv)
{
	tap_init(argc, argv);
	TAP_RUN("queued_behind_udp", test_queued_behind_udp());
	TAP_RUN("queued_behind", test_queued_behind());
	TAP_RUN("queued_behind_pool", test_queued_behind_pool());
	TAP_RUN("queued_behind_other_process/pg", test_queued_behind_other_process("pg", 100));
	TAP_RUN("queued_behind_other_process/other", test_queued_behind_other_process("other", 0));
	TAP_RUN("queued_behind_pool_queue", test_queued_behind_pool_queue());
	TAP_RUN("queued_not_preempted", test_queued_not_preempted());
	return tap_done();
}
