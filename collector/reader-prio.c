/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The reader's priority.
 *
 * At real-time priority the reader takes the CPU from the recorded program
 * whenever a ring wakes it and holds it for its whole pass: on a switch-heavy
 * program that stalls both ends of every exchange (perf bench sched pipe:
 * rsp's added time 74% of the program's, 7% with the reader at normal
 * priority, bench/cost.sh's no-rt).  At normal priority the program's short
 * runs go first and the reader reads in the gaps, but on a machine where many
 * threads are runnable its fair share is too small to keep up, and it cannot
 * notice that itself: it does not run.
 *
 * So the reader runs at real-time priority for the set-up and the last drain,
 * and in the loop at normal priority while the rings keep up.  Two things
 * raise it:
 *  - its own pass, when it found a ring RAISE_AT full, records lost, the pool
 *    full, or ftrace left unread;
 *  - the watch, a real-time thread that wakes every WATCH_NS while the reader
 *    is at normal priority and raises it when rsp's BPF ring (the switches and
 *    wakeups with their stacks: most of the bytes) is WATCH_AT full or more
 *    than BUSY_PER_CPU threads per CPU are runnable besides the recorder's
 *    (/proc/loadavg: perf bench sched messaging's 200 processes; a pipe
 *    ping-pong is 2, a reader at normal priority gets a fair share of 1/4).  Before the watch, a reader at
 *    normal priority when such a load started read too late: bench/record.sh's
 *    messaging row lost 0.45 and 0.90 M records in 2 runs of 2.
 * A pass that leaves ftrace sub-buffers unread raises it at once: waiting
 * for passes in a row that had read 60% of a ring lost 0.5 M socket events
 * of perf bench sched messaging (record-lost) before the watch saw the load.
 *
 * It is lowered after CALM_NS of passes that found every ring under CALM_AT
 * and the machine not so busy (at once after the set-up).  The rings wake
 * the reader at a quarter full, so a reader that keeps up finds them a
 * little over that: with CALM_AT at 10, a reader once raised on pgbench was
 * never lowered.
 *
 * RSP_RECORD_READER=rt keeps it at real-time priority throughout (bench/
 * cost.sh's variant rt); --no-rt, or not being root, at normal priority.
 */
#include "record-private.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define READER_PRIO 10
#define WATCH_PRIO 11 /* above the reader's: it must run when the reader cannot */
#define WATCH_NS (5 * 1000 * 1000ull)
#define WATCH_AT 60
#define RAISE_AT 60
#define CALM_AT 35 /* the wake-up point, a quarter, and a margin */
#define CALM_NS RSP_NSEC_PER_SEC
#define BUSY_PER_CPU 4
#define RECORDER_THREADS 3

/* Called with prio_lock held. */
static void set_rt(struct recorder *r, bool rt, uint64_t now)
{
	struct sched_param sp = { .sched_priority = rt ? READER_PRIO : 0 };

	if (rt == r->reader_rt)
		return;
	/* RESET_ON_FORK keeps it from the command and the writer thread */
	if (sched_setscheduler(r->reader_tid, (rt ? SCHED_FIFO : SCHED_OTHER) | SCHED_RESET_ON_FORK,
			       &sp)) {
		if (rt)
			_rsp_record_log(r, RSP_LOG_WARN,
					"cannot raise the reader to real-time priority");
		return;
	}
	r->reader_rt = rt;
	if (rt) {
		r->st->rt_reader = true;
		r->rt_since = now;
	} else {
		r->st->rt_lowered = true;
		r->st->rt_ns += now - r->rt_since;
	}
}

static bool may_raise(const struct recorder *r)
{
	return !r->o->no_rt && geteuid() == 0;
}

void _rsp_raise_priority(struct recorder *r)
{
	if (!may_raise(r))
		return;
	/* from the start: on a saturated machine a normal thread takes seconds to
	 * set up */
	pthread_mutex_lock(&r->prio_lock);
	if (!r->reader_tid)
		r->reader_tid = (pid_t)syscall(SYS_gettid);
	set_rt(r, true, _rsp_now_ns());
	pthread_mutex_unlock(&r->prio_lock);
}

/* The threads runnable on the machine now (/proc/loadavg's fourth field, the
 * reader among them); 0 if unknown. */
static unsigned runnable_now(const struct recorder *r)
{
	char buf[128], *p;
	ssize_t n;

	if (r->loadavg_fd < 0)
		return 0;
	n = pread(r->loadavg_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	p = buf;
	for (int field = 0; field < 3 && p; field++) {
		p = strchr(p, ' ');
		p = p ? p + 1 : NULL;
	}
	return p ? (unsigned)strtoul(p, NULL, 10) : 0;
}

/* More than BUSY_PER_CPU threads per CPU runnable besides the recorder's own
 * (the reader, the writer and the watch: the caller is among those counted) */
static bool too_many(const struct recorder *r, unsigned runnable)
{
	return runnable > (unsigned)(BUSY_PER_CPU * r->st->nr_cpus + RECORDER_THREADS);
}

static uint64_t lost_so_far(const struct recorder *r)
{
	uint64_t n = 0;

	for (int c = 0; c < r->st->nr_cpus; c++)
		n += r->st->lost_perf[c] + r->st->lost_ftrace[c] + r->st->lost_bpf[c];
	return n;
}

void _rsp_adjust_priority(struct recorder *r, uint64_t now)
{
	uint64_t lost;
	bool urgent, losing;

	if (!r->adaptive_reader)
		return; /* real-time throughout, or never: nothing to follow */
	lost = lost_so_far(r);
	losing = lost > r->lost_seen;
	urgent = r->pass_fill >= RAISE_AT || losing || r->starved || r->ftrace_more;
	r->lost_seen = lost;
	if (!urgent && r->pass_fill < CALM_AT) /* the watch's last look: no read of our own */
		urgent = atomic_load_explicit(&r->crowded, memory_order_relaxed);
	pthread_mutex_lock(&r->prio_lock);
	if (urgent) {
		r->calm_since = 0;
		if (!r->reader_rt) {
			set_rt(r, true, now);
			r->st->rt_raises++;
			_rsp_record_log(r, RSP_LOG_DEBUG,
					"the reader raised by its pass: rings %u%% full%s%s%s%s",
					r->pass_fill, losing ? ", records lost" : "",
					r->starved ? ", the pool full" : "",
					r->ftrace_more ? ", ftrace left unread" : "",
					r->pass_fill < RAISE_AT && !losing && !r->starved && !r->ftrace_more ?
						", the CPUs crowded" : "");
		}
	} else if (r->pass_fill >= CALM_AT) {
		r->calm_since = 0;
	} else {
		if (!r->calm_since)
			r->calm_since = now;
		if (now - r->calm_since >= CALM_NS || !r->st->rt_raises)
			set_rt(r, false, now);
	}
	pthread_mutex_unlock(&r->prio_lock);
}

static void *watch_thread(void *arg)
{
	struct recorder *r = arg;
	struct sched_param sp = { .sched_priority = WATCH_PRIO };
	struct timespec next;

	/* named, so a report tells the recorder's own work from the workload's */
	pthread_setname_np(pthread_self(), "rsp-watch");
	pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!atomic_load_explicit(&r->watch_stop, memory_order_relaxed)) {
		unsigned fill, runnable;
		bool crowded;

		next.tv_nsec += (long)WATCH_NS;
		if (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
			;
		fill = _rsp_bpf_fill(r);
		runnable = runnable_now(r);
		crowded = too_many(r, runnable);
		atomic_store_explicit(&r->crowded, crowded, memory_order_relaxed);
		if (fill < WATCH_AT && !crowded)
			continue;
		pthread_mutex_lock(&r->prio_lock);
		if (!r->reader_rt) {
			_rsp_record_log(r, RSP_LOG_DEBUG,
					"the reader raised by its watch: BPF ring %u%% full, %u "
					"threads runnable",
					fill, runnable);
			set_rt(r, true, _rsp_now_ns());
			r->calm_since = 0;
			r->st->rt_raises++;
			r->st->rt_watch_raises++;
		}
		pthread_mutex_unlock(&r->prio_lock);
	}
	return NULL;
}

void _rsp_prio_start(struct recorder *r)
{
	const char *env = getenv("RSP_RECORD_READER");
	pthread_attr_t attr;
	sigset_t all, old;

	r->adaptive_reader = may_raise(r) && !(env && !strcmp(env, "rt"));
	if (!r->adaptive_reader)
		return;
	r->loadavg_fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
	atomic_store(&r->watch_stop, false);
	/* the signals are the reader's (a stop request) */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 << 10);
	if (pthread_create(&r->watch, &attr, watch_thread, r) == 0) {
		r->watching = true;
	} else {
		/* no watch: a reader at normal priority could fall behind unseen */
		r->adaptive_reader = false;
		_rsp_record_log(r, RSP_LOG_WARN,
				"cannot start the reader's watch thread: the reader stays at "
				"real-time priority");
	}
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void _rsp_prio_stop(struct recorder *r)
{
	if (r->watching) {
		atomic_store(&r->watch_stop, true);
		pthread_join(r->watch, NULL);
		r->watching = false;
	}
	if (r->loadavg_fd >= 0)
		close(r->loadavg_fd);
	r->loadavg_fd = -1;
}

void _rsp_reader_done(struct recorder *r)
{
	pthread_mutex_lock(&r->prio_lock);
	if (r->reader_rt) {
		uint64_t now = _rsp_now_ns();

		r->st->rt_ns += now - r->rt_since;
		r->rt_since = now; /* the last drain's time is not the loop's */
	}
	pthread_mutex_unlock(&r->prio_lock);
}
