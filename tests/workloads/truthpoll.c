/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * truthpoll - a known-answer poll-timeout loop: CPU work, deliberate sleeps
 * and poll() calls that time out, with a helper thread working meanwhile,
 * measured by the program itself (see truth.h and README.md, "Ground
 * truth side files").
 *
 * What it does:
 *   The main thread (comm "truthpoll") runs N ticks (default 40), each:
 *     tick_work()         ~500 µs of CPU
 *     deliberate_pause()  nanosleep() of 2 ms (a sleep the program wants)
 *     poll_idle()         poll() of the read end of a pipe nobody writes
 *                         to, POLLIN, 5 ms timeout: always times out
 *   Meanwhile a helper thread (thread name "tpoll-helper", set by itself)
 *   runs 2 x N rounds of helper_crunch() (~1 ms of CPU) followed by
 *   helper_rest() (nanosleep() of 2 ms); ~3.1 ms per round, so it is busy
 *   during ~80 % of the main loop and has exited before the main thread's
 *   pthread_join(). Nothing is left behind (the pipe is process-private).
 *
 *   usage: truthpoll [TICKS]     (default 40)
 *
 * Ground truth ($RSP_TRUTH set): two lines, the helper's when it finishes,
 * the main thread's last (after joining the helper):
 *   role "helper" comm tpoll-helper: functions helper_crunch; waits
 *     nanosleep (each helper_rest() sleep)
 *   role "main" comm truthpoll: functions tick_work; waits nanosleep (each
 *     deliberate_pause()), poll_timeout (each poll() that returned 0)
 *
 * Processes / threads (one process):
 *   truthpoll     main thread (the target)
 *   tpoll-helper  helper thread
 *
 * Functions that appear in stacks (built with frame pointers):
 *   run_ticks(), tick_work(), deliberate_pause(), poll_idle()   main
 *   helper_thread(), helper_crunch(), helper_rest()             helper
 *   CPU leaves: tick_work, helper_crunch. Sleeps (all end by a timer):
 *   deliberate_pause() -> clock_nanosleep(), poll_idle() -> poll(),
 *   helper_rest() -> clock_nanosleep().
 *
 * Expected explanation shape (target: truthpoll):
 *   The main thread's wall time is ~7 % tick_work() CPU, ~27 % deliberate
 *   sleeps (deliberate_pause() -> nanosleep, a timer ends them) and ~66 %
 *   poll() timeouts (poll_idle(): nobody was going to wake it); during the
 *   sleeps the helper's helper_crunch() is what ran meanwhile (on the
 *   other CPU; it is not the main thread's work).
 *   Measured on the reference machine (2 vCPU EPYC VM):
 *   default run 0.32-0.45 s wall (/usr/bin/time, 3 runs without
 *   RSP_TRUTH: 0.32 0.33 0.41 at load average ~2.6 from other work, 0.40
 *   0.34 0.35 at ~3; with it: 0.33 0.33 0.33 at ~4, 0.41 0.45 0.40 at
 *   ~2.6, 0.40 0.38 0.37 at ~3; 10 more runs at ~3: 0.33-0.40). Side file of
 *   the quietest run (main wall 332 ms): tick_work 21.8 ms (545 µs per
 *   call, 6.6 %), nanosleep 96.9 ms (2.42 ms per 2 ms sleep, 29 %),
 *   poll_timeout 212.4 ms (5.31 ms per 5 ms poll, 64 %), main CPU 28 ms;
 *   helper: helper_crunch 90.4 ms (1.13 ms per call), nanosleep 177.9 ms
 *   (2.22 ms per call), wall 271 ms. Busier runs: tick_work 0.54-0.66 ms,
 *   sleeps 2.4-3.9 ms, polls 5.5-6.2 ms per call. On this VM a bare 2 ms
 *   nanosleep takes >= 2.09 ms and a 5 ms poll >= 5.12 ms.
 *   perf stat: ~140 ms task-clock, ~190 context switches.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#define WL_NAME "truthpoll"
#include "wl.h"
#include "truth.h"

#include <poll.h>
#include <pthread.h>

#define DEFAULT_TICKS 40UL
#define MAX_TICKS 1000000UL
#define TICK_ITERS (500UL * WL_ITERS_PER_US)
#define PAUSE_NS (2 * 1000 * 1000L)	/* deliberate_pause(): 2 ms */
#define POLL_TIMEOUT_MS 5		/* poll_idle(): 5 ms */
#define HELPER_ROUNDS_PER_TICK 2
#define CRUNCH_ITERS (1000UL * WL_ITERS_PER_US)
#define REST_NS (2 * 1000 * 1000L)	/* helper_rest(): 2 ms */

static const char usage[] =
	"usage: truthpoll [TICKS]\n"
	"  Each tick the main thread does ~500 us of CPU (tick_work), sleeps\n"
	"  2 ms (deliberate_pause) and polls a silent pipe with a 5 ms timeout\n"
	"  (poll_idle); a helper thread does 2 rounds of ~1 ms CPU + 2 ms sleep\n"
	"  per tick meanwhile. TICKS defaults to 40 (~0.3 s).\n"
	"  With RSP_TRUTH=FILE each thread appends one JSON line of its own\n"
	"  measurements to FILE.\n";

struct helper {
	pthread_t thread;
	unsigned long rounds;
};

void tick_work(void);
void deliberate_pause(struct truth *t);
void poll_idle(struct truth *t, int fd);
void run_ticks(struct truth *t, unsigned long ticks);
void helper_crunch(void);
void helper_rest(struct truth *t);
void *helper_thread(void *arg);

/* nanosleep() for ns, restarting with the remainder on EINTR. */
static inline __attribute__((always_inline)) void sleep_ns(long ns)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = ns };

	while (nanosleep(&ts, &ts) < 0) {
		if (errno != EINTR)
			wl_die("nanosleep");
	}
}

/* ---- helper thread ---------------------------------------------------- */

WL_STACK_FN void helper_crunch(void)
{
	wl_burn(CRUNCH_ITERS);
}

WL_STACK_FN void helper_rest(struct truth *t)
{
	uint64_t t0 = truth_mono();

	sleep_ns(REST_NS);
	truth_wait_end(t, TRUTH_NANOSLEEP, t0);
}

WL_STACK_FN void *helper_thread(void *arg)
{
	struct helper *h = arg;
	struct truth t;
	unsigned long i;
	uint64_t t0;
	int fn_crunch, err;

	err = pthread_setname_np(pthread_self(), "tpoll-helper");
	if (err != 0) {
		errno = err;
		wl_die("pthread_setname_np");
	}
	truth_begin(&t, "helper");
	fn_crunch = truth_fn(&t, "helper_crunch");
	truth_measures(&t, TRUTH_NANOSLEEP);
	for (i = 0; i < h->rounds; i++) {
		t0 = truth_cpu();
		helper_crunch();
		truth_cpu_end(&t, fn_crunch, t0);
		helper_rest(&t);
	}
	truth_finish(&t);
	return NULL;
}

/* ---- main thread ------------------------------------------------------ */

WL_STACK_FN void tick_work(void)
{
	wl_burn(TICK_ITERS);
}

WL_STACK_FN void deliberate_pause(struct truth *t)
{
	uint64_t t0 = truth_mono();

	sleep_ns(PAUSE_NS);
	truth_wait_end(t, TRUTH_NANOSLEEP, t0);
}

WL_STACK_FN void poll_idle(struct truth *t, int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	uint64_t t0 = truth_mono();
	int r = poll(&pfd, 1, POLL_TIMEOUT_MS);
	uint64_t t1 = truth_mono();

	if (r < 0 && errno != EINTR)
		wl_die("poll");
	if (r > 0)
		wl_fail("poll: the silent pipe became ready (revents 0x%x)",
			pfd.revents);
	if (r == 0)
		truth_wait_add(t, TRUTH_POLL_TIMEOUT, t1 - t0);
}

WL_STACK_FN void run_ticks(struct truth *t, unsigned long ticks)
{
	unsigned long i;
	uint64_t t0;
	int p[2], fn_tick;

	fn_tick = truth_fn(t, "tick_work");
	truth_measures(t, TRUTH_NANOSLEEP);
	truth_measures(t, TRUTH_POLL_TIMEOUT);
	/* A pipe nobody writes to; we hold the write end so it never EOFs. */
	if (pipe2(p, O_CLOEXEC) < 0)
		wl_die("pipe2");
	for (i = 0; i < ticks; i++) {
		t0 = truth_cpu();
		tick_work();
		truth_cpu_end(t, fn_tick, t0);
		deliberate_pause(t);
		poll_idle(t, p[0]);
	}
	close(p[0]);
	close(p[1]);
}

int main(int argc, char **argv)
{
	struct helper h;
	struct truth t;
	unsigned long ticks;
	int err;

	wl_catch_signals();
	alarm(60);
	ticks = wl_parse_count(argc, argv, DEFAULT_TICKS, MAX_TICKS, usage);
	if (prctl(PR_SET_NAME, "truthpoll", 0, 0, 0) < 0)
		wl_die("prctl(PR_SET_NAME)");
	truth_open();
	truth_begin(&t, "main");

	h.rounds = ticks * HELPER_ROUNDS_PER_TICK;
	err = pthread_create(&h.thread, NULL, helper_thread, &h);
	if (err != 0) {
		errno = err;
		wl_die("pthread_create");
	}
	run_ticks(&t, ticks);
	err = pthread_join(h.thread, NULL);
	if (err != 0) {
		errno = err;
		wl_die("pthread_join");
	}
	truth_finish(&t);
	return 0;
}
