/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * truth.h - self-measurement for the known-answer ("truth*") workloads.
 *
 * Each process (and each thread that does named work) keeps one
 * struct truth: CPU time per named function, the time of each kind of
 * wait, and its own wall time. When it finishes it appends ONE line of
 * JSON to the file named by $RSP_TRUTH (the "side file"; see README.md,
 * "Ground truth side files"). Without $RSP_TRUTH the measurements are still
 * taken (so the shape of the run does not depend on the variable) but
 * nothing is written.
 *
 * Clocks:
 *   CPU of a named function: CLOCK_THREAD_CPUTIME_ID read just before and
 *   just after every call (the delta is summed per function). This clock
 *   is a real system call (no vDSO); each delta therefore includes about
 *   one system call's worth of CPU (the return from the first read and the
 *   entry into the second); the line's "clock_overhead_ns" is that cost,
 *   measured back to back at truth_begin().
 *   Waits and wall time: CLOCK_MONOTONIC (vDSO, tens of ns).
 *
 * Usage (include after wl.h):
 *   truth_open();                      once, in main(), before any fork
 *   truth_begin(&t, "server");         at the start of the process/thread
 *   id = truth_fn(&t, "server_parse"); register named functions
 *   t0 = truth_cpu(); server_parse(); truth_cpu_end(&t, id, t0);
 *   t0 = truth_mono(); fsync(fd); truth_wait_end(&t, TRUTH_FSYNC, t0);
 *   truth_finish(&t);                  at the end: writes the line
 */
#ifndef RSP_WORKLOAD_TRUTH_H
#define RSP_WORKLOAD_TRUTH_H

#ifndef RSP_WORKLOAD_WL_H
#error "include wl.h before truth.h"
#endif

#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <time.h>

#define TRUTH_MAX_FN 8
#define TRUTH_LINE_MAX 2048

/* The kinds of wait a side-file line can report (JSON key in comments). */
enum truth_wait {
	TRUTH_FSYNC,	     /* "fsync": each fsync()                        */
	TRUTH_NANOSLEEP,     /* "nanosleep": each deliberate nanosleep()     */
	TRUTH_POLL_TIMEOUT,  /* "poll_timeout": each poll() that returned 0  */
	TRUTH_CALL,	     /* "call": each blocking call of the next stage */
	TRUTH_WAIT_CHILDREN, /* "wait_children": each waitpid() of a child  */
	TRUTH_IDLE,	     /* "idle": each blocking read for the next
				request/item (incl. the final end-of-file)  */
	TRUTH_LOCK,	     /* "lock": each wait to take a mutex           */
	TRUTH_QUEUE,	     /* "queue": each request's time in a queue     */
	TRUTH_NWAITS
};

static const char *const truth_wait_key[TRUTH_NWAITS] = {
	"fsync", "nanosleep", "poll_timeout", "call", "wait_children", "idle", "lock", "queue",
};

struct truth_sum {
	uint64_t ns;
	uint64_t count;
};

struct truth {
	const char *role;
	uint64_t start_ns;	  /* CLOCK_MONOTONIC at truth_begin() */
	uint64_t clock_overhead_ns;
	unsigned int nfn;
	const char *fn_name[TRUTH_MAX_FN];
	struct truth_sum fn[TRUTH_MAX_FN];
	unsigned int wait_mask;	  /* kinds this role measures (1u << kind) */
	struct truth_sum wait[TRUTH_NWAITS];
};

/* The side file, opened by truth_open() (inherited by forked children). */
static int truth_fd = -1;

static inline uint64_t truth_clock(clockid_t clk, const char *what)
{
	struct timespec ts;

	if (clock_gettime(clk, &ts) < 0)
		wl_die(what);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* CPU time of the calling thread since it started, ns. */
static inline uint64_t truth_cpu(void)
{
	return truth_clock(CLOCK_THREAD_CPUTIME_ID,
			   "clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
}

static inline uint64_t truth_mono(void)
{
	return truth_clock(CLOCK_MONOTONIC, "clock_gettime(CLOCK_MONOTONIC)");
}

/* Open $RSP_TRUTH for appending (creating it), if set. Call before fork. */
static inline void truth_open(void)
{
	const char *path = getenv("RSP_TRUTH");

	if (!path || !*path)
		return;
	truth_fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (truth_fd < 0)
		wl_die("open $RSP_TRUTH");
}

/* Start measuring the calling process/thread in role `role`. */
static inline void truth_begin(struct truth *t, const char *role)
{
	uint64_t a, b, best = UINT64_MAX;
	int i;

	memset(t, 0, sizeof(*t));
	t->role = role;
	t->start_ns = truth_mono();
	for (i = 0; i < 8; i++) {
		a = truth_cpu();
		b = truth_cpu();
		if (b - a < best)
			best = b - a;
	}
	t->clock_overhead_ns = best;
}

/* Register a named function; returns its id for truth_cpu_end(). */
static inline int truth_fn(struct truth *t, const char *name)
{
	if (t->nfn >= TRUTH_MAX_FN)
		wl_fail("internal error: too many truth functions");
	t->fn_name[t->nfn] = name;
	return (int)t->nfn++;
}

/* Declare that this role measures waits of `kind` (listed even if 0). */
static inline void truth_measures(struct truth *t, enum truth_wait kind)
{
	t->wait_mask |= 1u << kind;
}

/* One call of function `id` that started at CPU time `t0` has returned. */
static inline void truth_cpu_end(struct truth *t, int id, uint64_t t0)
{
	t->fn[id].ns += truth_cpu() - t0;
	t->fn[id].count++;
}

/* Add one wait of `kind` of `ns` nanoseconds. */
static inline void truth_wait_add(struct truth *t, enum truth_wait kind,
				  uint64_t ns)
{
	t->wait_mask |= 1u << kind;
	t->wait[kind].ns += ns;
	t->wait[kind].count++;
}

/* One wait of `kind` that started at CLOCK_MONOTONIC `t0` has ended. */
static inline void truth_wait_end(struct truth *t, enum truth_wait kind,
				  uint64_t t0)
{
	truth_wait_add(t, kind, truth_mono() - t0);
}

/* Append printf output to the line; fails (once, at the end) if too long. */
__attribute__((format(printf, 4, 5)))
static inline void truth_put(char *buf, size_t size, size_t *len,
			     const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*len >= size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *len, size - *len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= size - *len)
		*len = size;
	else
		*len += (size_t)n;
}

/* The calling thread's comm as the kernel has it, made safe for JSON. */
static inline void truth_comm(char comm[17])
{
	memset(comm, 0, 17);
	if (prctl(PR_GET_NAME, comm, 0, 0, 0) < 0)
		wl_die("prctl(PR_GET_NAME)");
	for (size_t i = 0; comm[i]; i++) {
		if (comm[i] == '"' || comm[i] == '\\' || (unsigned char)comm[i] < 0x20)
			comm[i] = '_';
	}
}

/* Append a whole line to $RSP_TRUTH with one write() (@len > @size: too long). */
static inline void truth_write_line(const char *line, size_t len, size_t size)
{
	ssize_t n;

	if (len >= size)
		wl_fail("internal error: side-file line too long");
	n = write(truth_fd, line, len);
	if (n < 0)
		wl_die("write $RSP_TRUTH");
	if ((size_t)n != len)
		wl_fail("short write to $RSP_TRUTH");
}

static inline int truth_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of sorted v[0..n-1] (n > 0). */
static inline uint64_t truth_percentile(const uint64_t *v, size_t n, unsigned int pct)
{
	size_t rank = (n * pct + 99) / 100;

	return v[rank ? rank - 1 : 0];
}

/*
 * A "stats" line (README.md, "Stats lines"): @role, "stats": @what, the
 * count of requests, @extra (JSON members ending in a comma, or ""), and the
 * distribution of v[0..n-1] (sorted here) as "@key": count, sum, mean, min,
 * p50, p90, p99, max.  One write(), before the process's own line.
 */
static inline void truth_stats(const char *role, const char *what, const char *key,
			       uint64_t *v, size_t n, const char *extra)
{
	char line[TRUTH_LINE_MAX], comm[17];
	uint64_t sum = 0, mn = 0, p50 = 0, p90 = 0, p99 = 0, mx = 0;
	size_t len = 0;

	if (truth_fd < 0)
		return;
	if (n > 0) {
		qsort(v, n, sizeof(*v), truth_cmp_u64);
		for (size_t i = 0; i < n; i++)
			sum += v[i];
		mn = v[0];
		mx = v[n - 1];
		p50 = truth_percentile(v, n, 50);
		p90 = truth_percentile(v, n, 90);
		p99 = truth_percentile(v, n, 99);
	}
	truth_comm(comm);
	truth_put(line, sizeof(line), &len,
		  "{\"prog\":\"%s\",\"role\":\"%s\",\"comm\":\"%s\",\"pid\":%ld,\"tid\":%ld,"
		  "\"stats\":\"%s\",\"requests\":%zu,%s\"%s\":{\"count\":%zu,\"sum\":%" PRIu64
		  ",\"mean\":%" PRIu64 ",\"min\":%" PRIu64 ",\"p50\":%" PRIu64 ",\"p90\":%" PRIu64
		  ",\"p99\":%" PRIu64 ",\"max\":%" PRIu64 "}}\n",
		  WL_NAME, role, comm, (long)getpid(), (long)gettid(), what, n, extra, key, n,
		  sum, n ? sum / (uint64_t)n : 0, mn, p50, p90, p99, mx);
	truth_write_line(line, len, sizeof(line));
}

/*
 * A daemon's "queued" line for the connection from client port @port
 * (README.md, "Stats lines"): its @requests, the time they waited to be read
 * or taken (@waited_ns) and the part of it spent behind other connections'
 * requests (@queued_ns).  One write().
 */
static inline void truth_queued_line(unsigned port, uint64_t requests, uint64_t waited_ns,
				     uint64_t queued_ns)
{
	char line[TRUTH_LINE_MAX], comm[17];
	size_t len = 0;

	if (truth_fd < 0)
		return;
	truth_comm(comm);
	truth_put(line, sizeof(line), &len,
		  "{\"prog\":\"%s\",\"role\":\"server\",\"comm\":\"%s\",\"pid\":%ld,"
		  "\"stats\":\"queued\",\"peer_port\":%u,\"requests\":%" PRIu64
		  ",\"waited_ns\":%" PRIu64 ",\"queued_ns\":%" PRIu64 "}\n",
		  WL_NAME, comm, (long)getpid(), port, requests, waited_ns, queued_ns);
	truth_write_line(line, len, sizeof(line));
}

/*
 * Finish: take the wall time and, with @cpu_ns (the thread's CPU time, or
 * another clock's), if $RSP_TRUTH is open, append the line with a single
 * write(). The comm is read back from the
 * kernel (prctl(PR_GET_NAME): the calling thread's name), so it is what a
 * profiler shows. Names are the program's own identifiers and comms, which
 * need no JSON escaping (checked).
 */
static inline void truth_finish_cpu(struct truth *t, uint64_t cpu_ns)
{
	char line[TRUTH_LINE_MAX], comm[17];
	uint64_t end_ns = truth_mono();
	size_t len = 0;
	const char *sep = "";
	unsigned int k;

	if (truth_fd < 0)
		return;
	truth_comm(comm);
	truth_put(line, sizeof(line), &len,
		  "{\"prog\":\"%s\",\"role\":\"%s\",\"comm\":\"%s\","
		  "\"pid\":%ld,\"tid\":%ld,\"start_ns\":%" PRIu64
		  ",\"end_ns\":%" PRIu64 ",\"wall_ns\":%" PRIu64
		  ",\"cpu_ns\":%" PRIu64 ",\"clock_overhead_ns\":%" PRIu64
		  ",\"functions\":{",
		  WL_NAME, t->role, comm, (long)getpid(), (long)gettid(),
		  t->start_ns, end_ns, end_ns - t->start_ns, cpu_ns,
		  t->clock_overhead_ns);
	for (k = 0; k < t->nfn; k++) {
		truth_put(line, sizeof(line), &len,
			  "%s\"%s\":{\"cpu_ns\":%" PRIu64 ",\"calls\":%" PRIu64
			  "}",
			  sep, t->fn_name[k], t->fn[k].ns, t->fn[k].count);
		sep = ",";
	}
	truth_put(line, sizeof(line), &len, "},\"waits\":{");
	sep = "";
	for (k = 0; k < TRUTH_NWAITS; k++) {
		if (!(t->wait_mask & (1u << k)))
			continue;
		truth_put(line, sizeof(line), &len,
			  "%s\"%s\":{\"ns\":%" PRIu64 ",\"count\":%" PRIu64 "}",
			  sep, truth_wait_key[k], t->wait[k].ns,
			  t->wait[k].count);
		sep = ",";
	}
	truth_put(line, sizeof(line), &len, "}}\n");
	truth_write_line(line, len, sizeof(line));
}

/* The same with the calling thread's CPU time. */
static inline void truth_finish(struct truth *t)
{
	truth_finish_cpu(t, truth_cpu());
}

#endif /* RSP_WORKLOAD_TRUTH_H */
