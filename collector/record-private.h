/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The recorder, shared by its files; record.c runs rsp_record() in order:
 *   record-base.c    what they all use: messages, the stop requests, the streams
 *   record-bpf.c     rsp's BPF program: whether it runs, its streams and records
 *   record-events.c  events.conf resolved against this kernel into streams; the
 *                    evlists sys, target and count built and opened; their ids;
 *                    the ftrace instance's events; the kernel's counts at the end
 *   record-header.c  the records rsp writes itself: features, attrs, tracing data,
 *                    the thread map; the mapped files' build ids at the end
 *   record-loop.c    the reader: poll, drain the rings and ftrace, end a round,
 *                    cut the target's user-stack copies, stop
 *   shed.c           event types shed at the memory ceiling
 * Calls go one way: record.c to the others, record-events.c to record-bpf.c,
 * record-loop.c to record-bpf.c and shed.c, every one to record-base.c.
 */
#ifndef RSP_COLLECTOR_RECORD_PRIVATE_H
#define RSP_COLLECTOR_RECORD_PRIVATE_H

#include "rsp-collector.h"

#include "bpfsched.h"
#include "ftrace.h"
#include "pathset.h"
#include "rsp-probes.h"
#include "rsp-time.h"
#include "runwind.h"
#include "target.h"
#include "tidmap.h"
#include "tracing-data.h"

#include <pthread.h>
#include <stdatomic.h>
#include "ustack.h"
#include "writer.h"

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <linux/perf_event.h>

struct perf_cpu_map;
struct perf_evlist;
struct perf_evsel;
struct perf_thread_map;

enum stream_kind {
	STREAM_TRACKING,
	STREAM_PERF, /* system-wide perf samples */
	STREAM_TARGET, /* target-tree samples with user-stack copies */
	STREAM_FTRACE, /* samples built from ftrace events */
	STREAM_BPF, /* samples built from rsp's BPF program's records (record-bpf.c) */
};

/* x86-64 user registers for DWARF unwinding: all but the segment registers */
#define RSP_X86_64_REGS_MASK 0xff0fffULL

struct stream {
	enum stream_kind kind;
	int row; /* index in stats->events, -1 for tracking */
	unsigned tp_id; /* tracepoint id, 0 for cpu-clock/tracking */
	struct perf_event_attr attr;
	struct perf_evsel *evsel; /* PERF, TARGET, TRACKING */
	struct perf_evsel *counter; /* FTRACE: counting event for the kernel count */
	bool no_count; /* FTRACE: its tracepoint's counter sums a field: no kernel count */
	uint64_t *ids;
	size_t n_ids;
	/* shedding (shed.c): 0 never, else the order in which it goes */
	int shed_class;
	uint64_t shed_from, shed_to; /* its records in [from, to) are not written */
	bool shed_counted; /* the kernel's count at shed_from is in shed_c0 */
	unsigned time_off; /* where a sample's TIME lies (STREAM_PERF) */
};

#define RSP_SHED_CLASSES 4

struct recorder {
	const struct rsp_record_opts *o;
	struct rsp_record_stats *st;
	char *err;
	size_t errlen;

	struct rsp_probe_set probes;
	const char *tracefs;
	struct stream *streams;
	size_t n_streams;

	struct perf_cpu_map *cpus;
	struct perf_thread_map *any_thread;
	struct perf_thread_map *target_threads;
	struct perf_evlist *sys, *target, *count;
	bool sys_open, target_open, count_open;

	struct rsp_ftrace *ft;
	/* rsp's BPF program, NULL where it does not run (record-bpf.c) */
	struct rsp_bpfsched *bpf;
	int bpf_stream[RSP_BPF_KINDS]; /* each kind's stream, -1 none */
	int bpf_target_stream[RSP_BPF_KINDS]; /* ... its target copies' */
	unsigned bpf_copy_bytes; /* the copies' largest size, 0: none */
	size_t bpf_ring_bytes; /* its ring: resident once read, so in the memory ceiling */
	/* sched_stat_runtime made from its switches: the stream, and where this
	 * kernel's format puts comm (dynamic or 16 bytes), pid and runtime */
	int bpf_runtime_stream;
	unsigned rt_size, rt_comm, rt_pid, rt_runtime;
	bool rt_comm_dynamic;
	uint64_t bpf_text_lo, bpf_text_hi, bpf_run_lo, bpf_run_hi; /* frames it adds */
	uint64_t *bpf_lost_seen; /* [cpu][kind]: losses already written as LOST */
	struct rsp_writer *w;
	struct rsp_tidmap tids;
	struct rsp_pathset paths; /* files mapped, for HEADER_BUILD_ID at the end */
	struct rsp_ustack *ustack; /* where each target thread's live stack ends */
	unsigned char *trim_buf; /* a trimmed copy of a record */
	struct rsp_runwind *runwind; /* CPU samples' copies unwound on the writer thread */
	struct rsp_cmd cmd;
	bool have_cmd, cmd_started;
	pid_t *target_pids;
	size_t n_target_pids;
	int *pidfds;

	/* lookups on the hot path */
	int16_t *stream_of_tp; /* [65536] ftrace streams by common_type */
	/* streams by sample id, open addressing: id_index_add() (record-events.c)
	 * fills it, stream_of_id() (record-loop.c) reads it */
	uint64_t *id_keys;
	int16_t *id_vals;
	size_t id_cap;
	unsigned common_type_off, common_pid_off; /* from the event formats */
	uint64_t ftrace_lost_id;
	uint64_t last_flush;
	bool ftrace_failed;
	bool starved; /* the last drain stopped: no room in the writer's pool */
	uint64_t sys_ring_bytes, target_ring_bytes; /* one CPU's perf ring, of each evlist */
	unsigned pass_fill; /* the fullest ring the last pass found, percent of its size */
	/* the reader's priority (reader-prio.c) */
	pthread_mutex_t prio_lock; /* reader_rt, rt_since, calm_since, st->rt_*: reader and watch */
	pid_t reader_tid;
	bool reader_rt; /* the reader at real-time priority now */
	uint64_t rt_since; /* since when (ns), while reader_rt */
	uint64_t calm_since; /* since when passes found every ring nearly empty (ns), 0: not */
	uint64_t lost_seen; /* the records lost so far, when the last pass ended */
	int loadavg_fd; /* /proc/loadavg, while the loop runs; -1: not open */
	bool adaptive_reader; /* the priority follows the rings (not RSP_RECORD_READER=rt) */
	pthread_t watch; /* raises the reader when it falls behind unseen */
	bool watching;
	atomic_bool watch_stop;
	atomic_bool crowded; /* the watch's last look at /proc/loadavg (too many runnable) */
	bool ftrace_more; /* the last pass left ftrace sub-buffers unread: poll without waiting */

	/* shedding (shed.c) */
	int shed_level; /* classes 1..shed_level are shed */
	uint64_t shed_changed, shed_unshed_at, shed_hold_ns;
	uint64_t *shed_n; /* [stream][cpu] records not written in the open span */
	uint64_t *shed_c0; /* [stream][cpu] the kernel's count at the span's start */
};

/* Names of the tracepoints in the file, for the tracing data. */
struct tp_list {
	struct rsp_tp_name *v;
	size_t n;
};

/* ---- record-base.c --------------------------------------------------------------------- */

/* set by rsp_record_request_stop() (a signal handler), read by the loop */
extern volatile sig_atomic_t _rsp_record_stop_requested;
extern volatile sig_atomic_t _rsp_record_abort; /* a second stop request */

/* A message through the caller's log callback, if any. */
void _rsp_record_log(struct recorder *r, enum rsp_log_level lvl, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The error text into r->err; returns @ret if negative, else -EINVAL. */
int _rsp_record_fail(struct recorder *r, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static inline uint64_t _rsp_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * RSP_NSEC_PER_SEC + ts.tv_nsec;
}

/* A new stream (its attr to fill); NULL when out of memory. */
struct stream *_rsp_add_stream(struct recorder *r, enum stream_kind kind, int row, unsigned tp_id);

/* ---- record-events.c ------------------------------------------------------------------- */

/* The streams and their stats rows from the probe set; @tps gets the tracepoints. */
int _rsp_resolve_events(struct recorder *r, struct tp_list *tps);
/* Where common_type and common_pid lie, from this kernel's formats. */
int _rsp_common_offsets(struct recorder *r, const struct tp_list *tps);
int _rsp_build_evlists(struct recorder *r);
/* The ftrace instance with the ftrace streams' events enabled, if there are any. */
int _rsp_setup_ftrace(struct recorder *r);
/* Open and map the evlists; the error text says what to change. */
int _rsp_open_evlists(struct recorder *r);
/* Each stream's ids, and the lookups by id and by tracepoint. */
int _rsp_assign_ids(struct recorder *r);
/* The kernel's count of each tracepoint, into the stats rows. */
void _rsp_read_counts(struct recorder *r);

/* ---- record-header.c ------------------------------------------------------------------- */

static inline int _rsp_compression_level(const struct recorder *r)
{
	return r->o->compression < 0 ? 0 : r->o->compression ? r->o->compression : 1;
}

int _rsp_write_head(struct recorder *r, const struct tp_list *tps);
void _rsp_write_build_ids(struct recorder *r);

/* ---- record-bpf.c ------------------------------------------------------------------------ */

/* rsp's BPF program loaded, if the event set asks for it and the kernel runs it
 * (else one line says why, and perf records those events); -errno: a failure. */
int _rsp_bpf_open(struct recorder *r);
/* Whether the program records @p (else its fallback source does). */
bool _rsp_bpf_takes(const struct recorder *r, const struct rsp_probe *p);
/* The streams of a probe the program records. */
int _rsp_bpf_streams(struct recorder *r, const struct rsp_probe *p, int row, unsigned tp_id,
		     const struct perf_event_attr *base);
int _rsp_bpf_start(struct recorder *r);
void _rsp_bpf_stop(struct recorder *r);
/* Its ring into the writer (r->starved when the pool is full); -ENOMEM. */
int _rsp_bpf_drain(struct recorder *r);
/* Its ring's fd to poll, -1 without the program. */
int _rsp_bpf_fd(const struct recorder *r);
/* How full its ring is, percent; 0 without the program. */
unsigned _rsp_bpf_fill(const struct recorder *r);
/* The kernel's counts of its events, into the stats rows. */
void _rsp_bpf_counts(struct recorder *r);
void _rsp_bpf_close(struct recorder *r);

/* ---- record-loop.c --------------------------------------------------------------------- */

/* One pass over every ring (@all: the ftrace rings to their end, at the stop), then
 * end a round; -ENOMEM.  r->pass_fill: the fullest ring it found. */
int _rsp_drain_all(struct recorder *r, bool all);
/* Until the targets exit, a signal, the duration or a write error (r->st->stop). */
int _rsp_record_loop(struct recorder *r, uint64_t t0);

/* ---- reader-prio.c ------------------------------------------------------------------------ */

/* The reader at real-time priority, when root and not --no-rt: for the set-up
 * and the last drain; the loop lowers it while the rings keep up. */
void _rsp_raise_priority(struct recorder *r);
/* For the loop: the watch thread started, and stopped. */
void _rsp_prio_start(struct recorder *r);
void _rsp_prio_stop(struct recorder *r);
/* After a pass (its fill, losses, starving in r): raise, or lower when calm. */
void _rsp_adjust_priority(struct recorder *r, uint64_t now);
/* The reader's time at real-time priority counted up to now (r->st->rt_ns). */
void _rsp_reader_done(struct recorder *r);

/* ---- shed.c ------------------------------------------------------------------------------ */


/* The shedding class of an event (its stats row's name); 0: never shed. */
int _rsp_shed_class_of(const char *row_name);
int _rsp_shed_setup(struct recorder *r);
/* After a drain: shed one more class, or take one back, for the pool's fill. */
void _rsp_shed_update(struct recorder *r, uint64_t now);
/* At the end: every open span closed at @now (the events stay off). */
void _rsp_shed_finish(struct recorder *r, uint64_t now);

/* Whether stream @s's record at @t is shed (not written). */
static inline bool _rsp_shed_drops(const struct stream *s, uint64_t t)
{
	return s->shed_class && t >= s->shed_from && t < s->shed_to && s->shed_from;
}

#endif /* RSP_COLLECTOR_RECORD_PRIVATE_H */
