/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Idle (model/analysis/idle.c, docs/ANALYSIS.md "Idle"): synthetic traces of
 * daemons with exact expected tables, one rule each, and the boundaries that
 * keep a client's waits, a polling loop's timeouts and a program's waits on
 * its own threads what they were.  Times in microseconds.
 */
#include "analysis-check.h"
#include "rsp-requests.h"

#define TCP_ESTABLISHED 1
#define TCP_SYN_SENT    2
#define TCP_SYN_RECV    3

/* kernel functions the stacks below name (their places) */
static const char idle_kallsyms[] = "ffffffff81000000 T __schedule\n"
                                    "ffffffff81000100 T f_epoll\n"
                                    "ffffffff81000200 T f_recv\n"
                                    "ffffffff81000300 T f_futex\n"
                                    "ffffffff81000400 T f_poll\n"
                                    "ffffffff81000500 T f_join\n"
                                    "ffffffff81000600 T f_loop\n"
                                    "ffffffff81000700 T _etext\n";
static const uint64_t EPOLL[] = {0xffffffff81000010ull, 0xffffffff81000110ull,
                                 0xffffffff81000610ull};
static const uint64_t RECV[] = {0xffffffff81000010ull, 0xffffffff81000210ull,
                                0xffffffff81000610ull};
static const uint64_t FUTEX[] = {0xffffffff81000010ull, 0xffffffff81000310ull,
                                 0xffffffff81000610ull};
static const uint64_t POLL[] = {0xffffffff81000010ull, 0xffffffff81000410ull,
                                0xffffffff81000610ull};
static const uint8_t lo[4] = {127, 0, 0, 1};

static struct synth *new_synth(void)
{
	struct synth_opts o = {.kallsyms = idle_kallsyms};

	return synth_new(&o);
}

/* a process that existed before the trace, forked by @ppid */
static void child_of(struct synth *s, int pid, int ppid, const char *comm)
{
	synth_fork(s, 0, pid, ppid, pid, ppid);
	synth_comm(s, 0, pid, pid, comm, false);
}

/*
 * An event loop srv (pid 200, CPU 1) and its client cli (pid 100, CPU 0),
 * connected in the trace (srv accepted it).  srv waits in f_epoll from 900;
 * with @tick its timer ends the wait at 1000, it runs 9 us and waits again at
 * the same place; cli's request (sent at 1100) wakes it at 1102 (unless
 * @lost: perf loses interrupt-context events on idle CPUs); it runs at 1105,
 * receives at 1120, replies at 1200 (cli woken at 1202, runs at 1210) and
 * waits in f_epoll from 1250 until the trace ends at 1400.  @helper: a thread
 * of srv (that tid) asleep since before the trace, woken by srv at 1130,
 * runs [1135,1140], waits again.  @master: srv is the child of that process,
 * of which nothing is recorded (an nginx master); @quiet: another process of
 * which nothing is recorded.  @round: srv's child bgw (pid 250, forked before
 * the trace, CPU 2) runs [700,710], waits in f_poll until its timer at 1010,
 * runs [1011,1020] and waits in f_futex until 1150, where srv wakes it
 * (ROUND_LOCK) or its timer does (ROUND_TIMER); it runs [1152,1160] and waits
 * in f_poll again until the trace ends.
 */
enum round_case { ROUND_NONE, ROUND_LOCK, ROUND_TIMER };

struct server_opts {
	bool tick, lost, before;
	int helper, master, quiet;
	enum round_case round;
};

static struct rsp_trace *server_trace(const struct server_opts *o)
{
	struct synth *s = new_synth();
	struct rsp_trace *t;

	existing(s, 100, 100, "cli");
	if (o->master)
		existing(s, o->master, o->master, "master");
	if (o->quiet)
		existing(s, o->quiet, o->quiet, "quiet");
	if (o->master)
		child_of(s, 200, o->master, "srv");
	else
		existing(s, 200, 200, "srv");
	if (o->helper)
		existing(s, 200, o->helper, "bg");
	if (o->round)
		child_of(s, 250, 200, "bgw");
	synth_switch(s, 0, US(700), 0, "swapper/0", 0, 100, "cli");
	if (o->round) {
		synth_switch(s, 2, US(700), 0, "swapper/2", 0, 250, "bgw");
		synth_switch_stack(s, 2, US(710), 250, "bgw", S_INT, 0, "swapper/2", POLL, 3);
		synth_waking(s, 2, US(1010), 0, SYN_HARDIRQ, 250, "bgw", 2, false, NULL, 0);
		synth_switch(s, 2, US(1011), 0, "swapper/2", 0, 250, "bgw");
		synth_switch_stack(s, 2, US(1020), 250, "bgw", S_INT, 0, "swapper/2", FUTEX, 3);
	}
	synth_switch(s, 1, US(700), 0, "swapper/1", 0, 200, "srv");
	synth_sample(s, 1, US(750), 200, 200, EPOLL + 1, 1);
	if (!o->before) {
		synth_sock_state(s, 0, US(801), 100, 0xffff1000, lo, 40000, lo, 8080, TCP_SYN_SENT);
		synth_sock_state(s, 1, US(802), 0, 0xffff2000, lo, 8080, lo, 40000, TCP_SYN_RECV);
		synth_sock_state(s, 1, US(803), 0, 0xffff2000, lo, 8080, lo, 40000,
		                 TCP_ESTABLISHED);
		synth_sock_state(s, 0, US(804), 100, 0xffff1000, lo, 40000, lo, 8080,
		                 TCP_ESTABLISHED);
	}
	synth_switch_stack(s, 1, US(900), 200, "srv", S_INT, 0, "swapper/1", EPOLL, 3);
	if (o->tick) {
		synth_waking(s, 1, US(1000), 0, SYN_HARDIRQ, 200, "srv", 1, false, NULL, 0);
		synth_switch(s, 1, US(1001), 0, "swapper/1", 0, 200, "srv");
		synth_switch_stack(s, 1, US(1010), 200, "srv", S_INT, 0, "swapper/1", EPOLL, 3);
	}
	synth_sock_send(s, 0, US(1100), 100, 0xffff1000, 2, 64);
	if (!o->lost) {
		synth_sk_ready(s, 0, US(1101), 100, SYN_SOFTIRQ, 0xffff2000, 2);
		synth_waking(s, 0, US(1102), 100, SYN_SOFTIRQ, 200, "srv", 1, false, NULL, 0);
	}
	synth_switch(s, 1, US(1105), 0, "swapper/1", 0, 200, "srv");
	synth_switch_stack(s, 0, US(1110), 100, "cli", S_INT, 0, "swapper/0", RECV, 3);
	synth_sock_recv(s, 1, US(1120), 200, 0xffff2000, 2, 64);
	if (o->helper) {
		/* srv hands the helper work inside the request: it runs 5 us, waits again */
		synth_waking(s, 1, US(1130), 200, 0, o->helper, "bg", 2, false, NULL, 0);
		synth_switch(s, 2, US(1135), 0, "swapper/2", 0, o->helper, "bg");
		synth_switch_stack(s, 2, US(1140), o->helper, "bg", S_INT, 0, "swapper/2", FUTEX,
		                   3);
	}
	if (o->round == ROUND_LOCK)
		synth_waking(s, 1, US(1150), 200, 0, 250, "bgw", 2, false, NULL, 0);
	else if (o->round == ROUND_TIMER)
		synth_waking(s, 2, US(1150), 0, SYN_HARDIRQ, 250, "bgw", 2, false, NULL, 0);
	if (o->round) {
		synth_switch(s, 2, US(1152), 0, "swapper/2", 0, 250, "bgw");
		synth_switch_stack(s, 2, US(1160), 250, "bgw", S_INT, 0, "swapper/2", POLL, 3);
	}
	synth_sock_send(s, 1, US(1200), 200, 0xffff2000, 2, 64);
	synth_sk_ready(s, 1, US(1201), 200, SYN_SOFTIRQ, 0xffff1000, 2);
	synth_waking(s, 1, US(1202), 200, SYN_SOFTIRQ, 100, "cli", 0, false, NULL, 0);
	synth_switch(s, 0, US(1210), 0, "swapper/0", 0, 100, "cli");
	synth_sock_recv(s, 0, US(1211), 100, 0xffff1000, 2, 64);
	synth_switch_stack(s, 1, US(1250), 200, "srv", S_INT, 0, "swapper/1", EPOLL, 3);
	synth_switch_stack(s, 0, US(1400), 100, "cli", S_INT, 0, "swapper/0", RECV, 3);
	t = open_synth_sym(s, true);
	synth_free(s);
	return t;
}

/*
 * The next request: srv's wait for it [900,1102] is idle (it was a call into
 * cli's run before), its runnable end 3 us the idle CPU's waking; the wait
 * from 1250, which nothing ended, idle at the place it waited idle before.
 * srv: CPU 200 + 145, idle 202 + 150, scheduler 3: 700.
 */
static void test_next_request(void)
{
	struct rsp_trace *t = server_trace(&(struct server_opts){0});
	struct rsp_analysis *a = t ? analyze(t, 200, 1000) : NULL;
	struct expect want[] = {{RSP_CAT_CPU, 200},
	                        {RSP_CAT_CPU_UNSAMPLED, 145},
	                        {RSP_CAT_IDLE, 352},
	                        {RSP_CAT_SCHED, 3}};

	if (a) {
		struct rsp_explanation e;

		check_table(a, "the next request", 700, want, 4);
		CHECK(contributor_ns(a, RSP_CAT_IDLE, "srv: [kernel] f_epoll", NULL, NULL) ==
		          NS(352),
		      "idle named by where srv waited");
		rsp_analysis_explanation(a, &e);
		CHECK(rsp_explanation_not_idle(&e) == NS(348) &&
		          rsp_explanation_accounted(&e) == NS(348),
		      "accounted of the time not idle: 348 us of 348");
	}
	if (t) {
		/* srv accepted its connection: known to serve; cli connected: not */
		uint8_t *known = rsp_requests_known_servers(t);
		size_t srv = rsp_trace_find_thread(t, 200, US(1000)),
		       cli = rsp_trace_find_thread(t, 100, US(1000));

		CHECK(known && srv != RSP_NO_INDEX && cli != RSP_NO_INDEX && known[srv] &&
		          !known[cli],
		      "srv known to serve (it accepted), cli not (it connected)");
		free(known);
	}
	rsp_analysis_free(a);
	rsp_trace_free(t);
}

/*
 * The client's wait for the reply is a call into srv, never idle: cli CPU 410,
 * srv's run in its wait [1110,1202] 92, its runnable end 8, CPU 190.  The same
 * where the connection predates the trace (@before): its first call a send, the
 * roles of --requests take cli for the server of it; no evidence makes it one:
 * its wait stays the network's (92: the reply's sender not known without the
 * peers), not idle.
 */
static void test_client_not_idle(bool before)
{
	struct rsp_trace *t = server_trace(&(struct server_opts){.before = before});
	struct rsp_analysis *a = t ? analyze(t, 100, 1000) : NULL;
	struct expect want[] = {{RSP_CAT_CPU_UNSAMPLED, 692}, {RSP_CAT_SCHED, 8}};
	struct expect older[] = {
	    {RSP_CAT_CPU_UNSAMPLED, 600}, {RSP_CAT_NET, 92}, {RSP_CAT_SCHED, 8}};

	if (a && !before)
		check_table(a, "the client's wait", 700, want, 2);
	else if (a)
		check_table(a, "the client's wait on an older connection", 700, older, 3);
	if (t && before) {
		uint8_t *known = rsp_requests_known_servers(t);
		size_t cli = rsp_trace_find_thread(t, 100, US(1000));

		CHECK(known && cli != RSP_NO_INDEX && !known[cli],
		      "a client on a connection older than the trace: not known to serve");
		free(known);
	}
	rsp_analysis_free(a);
	rsp_trace_free(t);
}

/*
 * An idle tick before the request: srv's timer ends its wait at 1000, it runs
 * 9 us and waits again at the same place, which the request ends: both waits
 * idle (100 + 92), their runnable ends 1 + 3; CPU 200 + 9 + 145; idle 150 at
 * the end: 700.
 */
static void test_tick_then_request(void)
{
	struct rsp_trace *t = server_trace(&(struct server_opts){.tick = true});
	struct rsp_analysis *a = t ? analyze(t, 200, 1000) : NULL;
	struct expect want[] = {{RSP_CAT_CPU, 200},
	                        {RSP_CAT_CPU_UNSAMPLED, 154},
	                        {RSP_CAT_IDLE, 342},
	                        {RSP_CAT_SCHED, 4}};

	if (a)
		check_table(a, "an idle tick, then the next request", 700, want, 4);
	rsp_analysis_free(a);
	rsp_trace_free(t);
}

/*
 * The request's waking lost: srv's wait [900,1105] has no cause recorded, and
 * srv's next socket call is its receive of the request on the connection it
 * serves: idle all the same (205), no runnable end known.  700.
 */
static void test_request_waking_lost(void)
{
	struct rsp_trace *t = server_trace(&(struct server_opts){.lost = true});
	struct rsp_analysis *a = t ? analyze(t, 200, 1000) : NULL;
	struct expect want[] = {
	    {RSP_CAT_CPU, 200}, {RSP_CAT_CPU_UNSAMPLED, 145}, {RSP_CAT_IDLE, 355}};

	if (a)
		check_table(a, "a request whose waking was lost", 700, want, 3);
	rsp_analysis_free(a);
	rsp_trace_free(t);
}

/*
 * A helper of the server (bg, tid 201, asleep since before the trace) woken
 * by srv at 1130 for work, runs 5 us and waits again until the end: a thread
 * waiting for work, idle (430 + 260; it was waiting on another control path),
 * its runnable end 5 the scheduler's, its run CPU.  srv as above (700).
 */
static void test_helper_woken(void)
{
	struct rsp_trace *t = server_trace(&(struct server_opts){.helper = 201});
	struct rsp_analysis *a = t ? analyze(t, 200, 1000) : NULL;
	struct expect want[] = {{RSP_CAT_CPU, 200},
	                        {RSP_CAT_CPU_UNSAMPLED, 150},
	                        {RSP_CAT_IDLE, 1042},
	                        {RSP_CAT_SCHED, 8}};

	if (a) {
		check_table(a, "a helper woken for work", 1400, want, 4);
		CHECK(contributor_ns(a, RSP_CAT_IDLE, "bg: a wait begun before the recording", NULL,
		                     NULL) == NS(430),
		      "the helper's first wait: begun before the recording");
	}
	rsp_analysis_free(a);
	rsp_trace_free(t);
}

/*
 * The same helper in a program that serves no request (no socket calls): its
 * wait for main's wakeup is waiting on another control path, as before, and
 * its last wait, which nothing ended, unaccounted.  main: CPU 700 (one run,
 * sampled), the helper: other path 430, runnable 5, CPU 5, unaccounted 260.
 */
static void test_helper_no_server(void)
{
	struct synth *s = new_synth();
	struct rsp_trace *t;
	struct rsp_analysis *a;
	struct expect want[] = {{RSP_CAT_CPU, 700},
	                        {RSP_CAT_CPU_UNSAMPLED, 5},
	                        {RSP_CAT_SCHED, 5},
	                        {RSP_CAT_OTHER_PATH, 430},
	                        {RSP_CAT_UNACCOUNTED, 260}};

	existing(s, 200, 200, "main");
	existing(s, 200, 201, "bg");
	synth_switch(s, 1, US(700), 0, "swapper/1", 0, 200, "main");
	synth_sample(s, 1, US(750), 200, 200, EPOLL + 1, 1);
	synth_waking(s, 1, US(1130), 200, 0, 201, "bg", 2, false, NULL, 0);
	synth_switch(s, 2, US(1135), 0, "swapper/2", 0, 201, "bg");
	synth_switch_stack(s, 2, US(1140), 201, "bg", S_INT, 0, "swapper/2", FUTEX, 3);
	synth_switch_stack(s, 1, US(1400), 200, "main", S_INT, 0, "swapper/1", EPOLL, 3);
	t = open_synth_sym(s, true);
	synth_free(s);
	a = t ? analyze(t, 200, 1000) : NULL;
	if (a)
		check_table(a, "a helper of a program serving nothing", 1400, want, 5);
	rsp_analysis_free(a);
	rsp_trace_free(t);
}

/*
 * A loop (pid 300) whose timer ends its wait in f_epoll at 2010 and 3060;
 * after each it runs 49 and 39 us and waits again at the same place, the last
 * time until the trace ends at 4100 (another process's switch): an idle loop.
 * Idle 1000 x 3, runnable ends 1 + 1, CPU 10 + 49 + 39: 3100.
 */
static void test_idle_ticks(void)
{
	struct synth *s = new_synth();
	struct rsp_trace *t;
	struct rsp_analysis *a;
	struct expect want[] = {
	    {RSP_CAT_CPU_UNSAMPLED, 98}, {RSP_CAT_IDLE, 3000}, {RSP_CAT_SCHED, 2}};

	existing(s, 300, 300, "loop");
	existing(s, 400, 400, "other");
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, 300, "loop");
	synth_sample(s, 1, US(1005), 400, 400, EPOLL + 1, 1);
	synth_switch_stack(s, 0, US(1010), 300, "loop", S_INT, 0, "swapper/0", EPOLL, 3);
	synth_waking(s, 0, US(2010), 0, SYN_HARDIRQ, 300, "loop", 0, false, NULL, 0);
	synth_switch(s, 0, US(2011), 0, "swapper/0", 0, 300, "loop");
	synth_switch_stack(s, 0, US(2060), 300, "loop", S_INT, 0, "swapper/0", EPOLL, 3);
	synth_waking(s, 0, US(3060), 0, SYN_HARDIRQ, 300, "loop", 0, false, NULL, 0);
	synth_switch(s, 0, US(3061), 0, "swapper/0", 0, 300, "loop");
	synth_switch_stack(s, 0, US(3100), 300, "loop", S_INT, 0, "swapper/0", EPOLL, 3);
	synth_switch(s, 1, US(4100), 0, "swapper/1", 0, 400, "other");
	t = open_synth_sym(s, true);
	synth_free(s);
	a = t ? analyze(t, 300, 1000) : NULL;
	if (a) {
		check_table(a, "an idle loop's ticks", 3100, want, 3);
		CHECK(contributor_ns(a, RSP_CAT_IDLE, "loop: [kernel] f_epoll", NULL, NULL) ==
		          NS(3000),
		      "named by where it waited");
	}
	rsp_analysis_free(a);
	rsp_trace_free(t);
}

/*
 * A server's housekeeping process (bgw, server_trace()'s @round) ticks: its
 * timer ends its wait in f_poll, it works, waits on a lock srv hands it and
 * comes back to f_poll: the tick was all it waited for, idle (300), the last
 * wait idle at the place it waited idle (240); the lock wait, ended by the
 * tree's srv, is not in bgw's async path (ANALYSIS.md, "Control paths and
 * async work"): 570 of its 700; runnable ends 1 + 2, CPU 10 + 9 + 8.  Where its timer
 * ends the wait in f_futex instead (a delay of its own), the tick delayed that
 * work: both timeouts (300 + 130), the last wait unaccounted (240, no idle wait
 * there before): 700.  srv as in test_next_request (700).
 */
static void test_housekeeping_round(enum round_case rc)
{
	struct rsp_trace *t = server_trace(&(struct server_opts){.round = rc});
	struct rsp_analysis *a = t ? analyze(t, 200, 1000) : NULL;
	struct expect lock[] = {{RSP_CAT_CPU, 200},
	                        {RSP_CAT_CPU_UNSAMPLED, 172},
	                        {RSP_CAT_IDLE, 892},
	                        {RSP_CAT_SCHED, 6}};
	struct expect timer[] = {{RSP_CAT_CPU, 200},     {RSP_CAT_CPU_UNSAMPLED, 172},
	                         {RSP_CAT_IDLE, 352},    {RSP_CAT_SCHED, 6},
	                         {RSP_CAT_TIMEOUT, 430}, {RSP_CAT_UNACCOUNTED, 240}};

	if (a && rc == ROUND_LOCK)
		check_table(a, "a housekeeping round after its tick", 1270, lock, 4);
	else if (a)
		check_table(a, "a tick, then a delay of its own", 1400, timer, 6);
	rsp_analysis_free(a);
	rsp_trace_free(t);
}

/*
 * A loop (pid 300) polls in f_poll from 1010; its timer ends the poll at 2010,
 * it runs 9 us and polls again; that poll times out at 3020 and the loop runs
 * on.  POLL_CURL: a thread of its process (301) runs [1000,1600] meanwhile and
 * ends, and the loop runs 579 us and exits: the paper's curl, polling for a
 * thread that ended unheeded: both polls waits that timed out (2000), the
 * helper's CPU 600, the loop's 10 (sampled) + 9 + 579, runnable ends 1 + 1.
 * POLL_ELSEWHERE: alone, the loop runs 579 us and waits in f_join until the
 * trace ends at 4100: its first poll idle (it polled again at the same place,
 * nothing of its own busy), the last one timed out (it delayed the work after
 * it), 1000 each; the wait in f_join, which nothing ended and no idle wait
 * there came before, unaccounted (500).  POLL_BACK: alone, the loop works for
 * 1500 us and polls again at the same place until 5000: its timer was all it
 * waited for, every poll idle (1000 + 1000 + 479).
 */
enum poll_case { POLL_CURL, POLL_ELSEWHERE, POLL_BACK };

static void test_poll_loop(enum poll_case pc)
{
	static const uint64_t JOIN[] = {0xffffffff81000010ull, 0xffffffff81000510ull,
	                                0xffffffff81000610ull};
	struct synth *s = new_synth();
	struct rsp_trace *t;
	struct rsp_analysis *a;
	struct expect curl[] = {{RSP_CAT_CPU, 10},
	                        {RSP_CAT_CPU_UNSAMPLED, 1188},
	                        {RSP_CAT_TIMEOUT, 2000},
	                        {RSP_CAT_SCHED, 2}};
	struct expect elsewhere[] = {{RSP_CAT_CPU, 10},       {RSP_CAT_CPU_UNSAMPLED, 588},
	                             {RSP_CAT_TIMEOUT, 1000}, {RSP_CAT_IDLE, 1000},
	                             {RSP_CAT_SCHED, 2},      {RSP_CAT_UNACCOUNTED, 500}};
	struct expect back[] = {{RSP_CAT_CPU, 10},
	                        {RSP_CAT_CPU_UNSAMPLED, 1509},
	                        {RSP_CAT_IDLE, 2479},
	                        {RSP_CAT_SCHED, 2}};

	existing(s, 300, 300, "loop");
	existing(s, 400, 400, "other");
	if (pc == POLL_CURL)
		existing(s, 300, 301, "helper");
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, 300, "loop");
	synth_sample(s, 0, US(1005), 300, 300, POLL + 1, 1);
	if (pc == POLL_CURL)
		synth_switch(s, 1, US(1000), 0, "swapper/1", 0, 301, "helper");
	synth_switch_stack(s, 0, US(1010), 300, "loop", S_INT, 0, "swapper/0", POLL, 3);
	if (pc == POLL_CURL) {
		synth_exit(s, US(1600), 300, 301);
		synth_switch(s, 1, US(1600), 301, "helper", S_DEAD, 0, "swapper/1");
	}
	synth_waking(s, 0, US(2010), 0, SYN_HARDIRQ, 300, "loop", 0, false, NULL, 0);
	synth_switch(s, 0, US(2011), 0, "swapper/0", 0, 300, "loop");
	synth_switch_stack(s, 0, US(2020), 300, "loop", S_INT, 0, "swapper/0", POLL, 3);
	synth_waking(s, 0, US(3020), 0, SYN_HARDIRQ, 300, "loop", 0, false, NULL, 0);
	synth_switch(s, 0, US(3021), 0, "swapper/0", 0, 300, "loop");
	if (pc == POLL_CURL) {
		synth_exit(s, US(3600), 300, 300);
		synth_switch(s, 0, US(3600), 300, "loop", S_DEAD, 0, "swapper/0");
	} else if (pc == POLL_ELSEWHERE) {
		synth_switch_stack(s, 0, US(3600), 300, "loop", S_INT, 0, "swapper/0", JOIN, 3);
		synth_switch(s, 1, US(4100), 0, "swapper/1", 0, 400, "other");
	} else {
		synth_switch_stack(s, 0, US(4521), 300, "loop", S_INT, 0, "swapper/0", POLL, 3);
		synth_switch(s, 1, US(5000), 0, "swapper/1", 0, 400, "other");
	}
	t = open_synth_sym(s, true);
	synth_free(s);
	a = t ? analyze(t, 300, 1000) : NULL;
	if (a && pc == POLL_CURL)
		check_table(a, "polling for a thread that ended unheeded", 3200, curl, 4);
	else if (a && pc == POLL_ELSEWHERE)
		check_table(a, "an idle poll, then one that delayed work", 3100, elsewhere, 6);
	else if (a)
		check_table(a, "polls a loop came back to after its work", 4000, back, 4);
	rsp_analysis_free(a);
	rsp_trace_free(t);
}

/*
 * A target asleep all along (an nginx master in sigsuspend: no event of it
 * recorded) whose child srv (forked before the trace) serves a connection:
 * the master's control path is idle over the trace (700 to 1400), the
 * worker's async one as srv's above.  A target nothing of whose tree was
 * recorded (quiet) is an error, as before.
 */
static void test_asleep_all_along(void)
{
	struct rsp_trace *t = server_trace(&(struct server_opts){.master = 190, .quiet = 500});
	struct rsp_analysis *a = t ? analyze(t, 190, 1000) : NULL;
	struct expect want[] = {{RSP_CAT_CPU, 200},
	                        {RSP_CAT_CPU_UNSAMPLED, 145},
	                        {RSP_CAT_IDLE, 1052},
	                        {RSP_CAT_SCHED, 3}};
	char err[256] = "";
	int pid = 500;

	if (a) {
		struct rsp_path_info p;

		check_table(a, "a master asleep all along, its worker serving", 1400, want, 4);
		CHECK(contributor_ns(a, RSP_CAT_IDLE, "master: asleep all the recording", NULL,
		                     NULL) == NS(700),
		      "the master: asleep all the recording, 700 us");
		rsp_analysis_path(a, rsp_analysis_n_paths(a) - 1, &p);
		CHECK(rsp_analysis_n_paths(a) == 2 && p.async, "the worker's path is async");
	}
	rsp_analysis_free(a);
	a = NULL;
	if (t) {
		int r = rsp_analyze(t, &pid, 1, 0, NULL, &a, err, sizeof(err));

		CHECK(r != 0 && !a && strstr(err, "no recorded activity"),
		      "a target nothing of whose tree was recorded: still an error (%s)", err);
	}
	rsp_analysis_free(a);
	rsp_trace_free(t);
}

/*
 * The requests of a program and the server it forked, both selected: the
 * server's connection is the program's own traffic (RSP_CONN_INTERNAL), no
 * request of it counted; selecting the server alone, its client is outside:
 * one request.
 */
static void test_internal_requests(void)
{
	struct synth *s = new_synth();
	struct rsp_trace *t;

	existing(s, 100, 100, "cli");
	child_of(s, 200, 100, "srv");
	synth_switch(s, 0, US(700), 0, "swapper/0", 0, 100, "cli");
	synth_switch(s, 1, US(700), 0, "swapper/1", 0, 200, "srv");
	synth_sock_state(s, 0, US(801), 100, 0xffff1000, lo, 40000, lo, 8080, TCP_SYN_SENT);
	synth_sock_state(s, 1, US(802), 0, 0xffff2000, lo, 8080, lo, 40000, TCP_SYN_RECV);
	synth_sock_state(s, 1, US(803), 0, 0xffff2000, lo, 8080, lo, 40000, TCP_ESTABLISHED);
	synth_sock_state(s, 0, US(804), 100, 0xffff1000, lo, 40000, lo, 8080, TCP_ESTABLISHED);
	synth_sock_send(s, 0, US(1100), 100, 0xffff1000, 2, 64);
	synth_sk_ready(s, 0, US(1101), 100, SYN_SOFTIRQ, 0xffff2000, 2);
	synth_sock_recv(s, 1, US(1120), 200, 0xffff2000, 2, 64);
	synth_sock_send(s, 1, US(1200), 200, 0xffff2000, 2, 64);
	synth_sk_ready(s, 1, US(1201), 200, SYN_SOFTIRQ, 0xffff1000, 2);
	synth_sock_recv(s, 0, US(1211), 100, 0xffff1000, 2, 64);
	synth_switch(s, 0, US(1400), 100, "cli", S_INT, 0, "swapper/0");
	t = open_synth_sym(s, true);
	synth_free(s);
	for (int both = 0; t && both < 2; both++) {
		int pids[] = {200, 100};
		struct rsp_thread_filter f = {.pids = pids, .n_pids = both ? 2 : 1};
		uint8_t *sel = rsp_thread_filter_apply(t, &f);
		struct rsp_requests *rq = NULL;
		size_t internal = 0;

		if (!sel || rsp_requests_find(t, sel, &rq)) {
			CHECK(0, "requests: no memory");
			free(sel);
			break;
		}
		for (size_t i = 0; i < rsp_requests_n_conns(rq); i++) {
			struct rsp_conn_info ci;

			rsp_requests_conn(rq, i, &ci);
			internal += ci.role == RSP_CONN_INTERNAL;
		}
		if (both)
			CHECK(rsp_requests_n(rq) == 0 && internal == 1,
			      "a program and its server: its own traffic (%zu requests, %zu "
			      "internal)",
			      rsp_requests_n(rq), internal);
		else
			CHECK(rsp_requests_n(rq) == 1 && internal == 0,
			      "the server alone: one request of a client outside (%zu)",
			      rsp_requests_n(rq));
		rsp_requests_free(rq);
		free(sel);
	}
	rsp_trace_free(t);
}

int main(int argc, char **argv)
{
	tap_init(argc, argv);
	TAP_RUN("next_request", test_next_request());
	TAP_RUN("client_not_idle", test_client_not_idle(false));
	TAP_RUN("client_not_idle/connected_before", test_client_not_idle(true));
	TAP_RUN("tick_then_request", test_tick_then_request());
	TAP_RUN("request_waking_lost", test_request_waking_lost());
	TAP_RUN("helper_woken", test_helper_woken());
	TAP_RUN("helper_no_server", test_helper_no_server());
	TAP_RUN("idle_ticks", test_idle_ticks());
	TAP_RUN("poll_loop/curl", test_poll_loop(POLL_CURL));
	TAP_RUN("poll_loop/elsewhere", test_poll_loop(POLL_ELSEWHERE));
	TAP_RUN("housekeeping_round/lock", test_housekeeping_round(ROUND_LOCK));
	TAP_RUN("housekeeping_round/timer", test_housekeeping_round(ROUND_TIMER));
	TAP_RUN("poll_loop/back", test_poll_loop(POLL_BACK));
	TAP_RUN("asleep_all_along", test_asleep_all_along());
	TAP_RUN("internal_requests", test_internal_requests());
	return tap_done();
}
