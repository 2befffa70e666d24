/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rsp's recorder: everything `rsp record` does, as a library.  Plain C over
 * libperf, libtracefs and libtraceevent; no GLib, no GTK.  Never prints and
 * never exits: messages go through opts->log, errors come back as -errno plus
 * one line in @err.
 */
#ifndef RSP_COLLECTOR_H
#define RSP_COLLECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum rsp_call_graph {
	/* frame pointers everywhere, user-stack copies (DWARF) for the sleep
	 * stacks of the target's process tree */
	RSP_CALL_GRAPH_DEFAULT,
	RSP_CALL_GRAPH_FP,
	RSP_CALL_GRAPH_DWARF, /* user-stack copies on every stack-carrying event */
};

enum rsp_log_level {
	RSP_LOG_ERROR,
	RSP_LOG_WARN,
	RSP_LOG_INFO,
	RSP_LOG_DEBUG,
};

typedef void (*rsp_log_fn)(enum rsp_log_level level, const char *msg, void *ctx);

struct rsp_record_opts {
	const char *output; /* NULL: "rsp.data" */
	const pid_t *pids; /* -p */
	size_t n_pids;
	char *const *argv; /* -- COMMAND ARGS..., NULL-terminated; NULL: none */
	bool system_wide; /* -a: no target needed */
	double duration; /* -d seconds; 0: until the targets exit or a signal */
	unsigned sample_hz; /* cpu-clock sampling rate; 0: none */
	/* the target tree's own cpu-clock rate, beside the system's (its runs are
	 * short: more samples name their code); 0: none.  Needs a target. */
	unsigned target_hz;
	enum rsp_call_graph call_graph;
	unsigned stack_size; /* bytes of user stack copied; 0: 8192 */
	unsigned mmap_pages; /* per CPU, power of two; 0: default */
	bool no_net;
	bool no_block;
	const char *probes_text; /* NULL: the built-in probes/events.conf */
	const char *const *cmdline; /* rsp's own argv, stored in the file */
	size_t n_cmdline;
	size_t ftrace_buffer_kb; /* per CPU; 0: default */
	bool no_rt; /* don't raise the reader to real-time priority */
	/* record switches and wakeups through perf, not rsp's BPF program */
	bool no_bpf;
	/* the BPF program's events also from ftrace, to compare (tests/record/bpf.sh) */
	bool bpf_check;
	bool no_kallsyms; /* don't store /proc/kallsyms (small files, e.g. test fixtures) */
	int compression; /* zstd level of the records (perf's -z); 0: default 1, <0: none */
	/* the most memory the recorder may hold (resident); 0: RSP_DEFAULT_MAX_MEMORY */
	uint64_t max_memory;
	rsp_log_fn log;
	void *log_ctx;
};

/* One row of the end summary. */
struct rsp_record_event_stats {
	char name[128];
	bool kernel_counted; /* kernel_count is valid */
	uint64_t kernel_count; /* times the kernel fired it (read() on a perf fd) */
	uint64_t perf_samples; /* from the perf ring buffers, with stacks */
	uint64_t target_samples; /* user-stack copies for the target tree */
	uint64_t ftrace_events; /* from the ftrace instance */
	uint64_t bpf_events; /* from rsp's BPF program, with stacks */
	bool from_perf, from_ftrace, from_bpf;
	int shed_class; /* 0: never shed; else the order in which it is (1 first) */
	unsigned shed_spans; /* spans this event was shed under the memory ceiling */
	uint64_t shed_events; /* the kernel's count in those spans (or an estimate: cpu-clock) */
	uint64_t shed_ns; /* their total length */
};

enum rsp_stop_reason {
	RSP_STOP_TARGETS_EXITED,
	RSP_STOP_SIGNAL,
	RSP_STOP_DURATION,
	RSP_STOP_WRITE_ERROR,
};

struct rsp_record_stats {
	double seconds;
	uint64_t bytes; /* written to the file */
	uint64_t raw_bytes, z_bytes; /* the compressed records, before and after compression */
	uint64_t records; /* all records written */
	struct rsp_record_event_stats *events;
	size_t n_events;
	int nr_cpus;
	uint64_t *lost_perf; /* per CPU, from PERF_RECORD_LOST */
	uint64_t lost_target; /* of lost_perf: in the target's own rings (its tasks' switches and stacks) */
	uint64_t *lost_ftrace; /* per CPU, from the ftrace ring buffer */
	uint64_t *lost_bpf; /* per CPU, from rsp's BPF program's ring buffer */
	bool bpf; /* switches and wakeups came from rsp's BPF program */
	uint64_t copy_failed; /* its user-stack copies the kernel could not read */
	uint64_t throttled; /* PERF_RECORD_THROTTLE seen */
	uint64_t ustack_bytes_trimmed; /* user-stack copy bytes above the live stack, dropped */
	uint64_t cpu_copies; /* CPU samples with a user-stack copy */
	uint64_t cpu_unwound; /* of them, written unwound by the recorder (runwind.h) */
	uint64_t unwind_ns; /* the writer thread's time spent on it */
	/* bpf_check: unwinds replayed (runwind.h) and done again, and how many differed */
	uint64_t replay_checked, replay_differ;
	size_t synthesized_threads;
	size_t target_pids_n;
	pid_t target_pids[16];
	enum rsp_stop_reason stop;
	int write_error; /* -errno when stop == RSP_STOP_WRITE_ERROR */
	bool child_ran; /* -- COMMAND was started */
	bool exec_failed; /* -- COMMAND could not be executed */
	int child_status; /* its wait status */
	bool rt_reader; /* the reader ran at real-time priority */
	bool rt_lowered; /* it was lowered to normal priority while recording */
	unsigned rt_raises; /* the times it was raised to it while recording */
	unsigned rt_watch_raises; /* of them, by the watch thread (it was not reading) */
	uint64_t rt_ns; /* the time it spent there while recording */
	/* the memory ceiling */
	uint64_t max_memory; /* the ceiling */
	uint64_t fixed_bytes; /* held outside the pool: code, rings, tables, compressor */
	uint64_t pool_limit, pool_peak; /* the writer's pool of chunks: its size, its peak */
	uint64_t peak_rss; /* VmHWM at the end of rsp_record() */
	int shed_max_level; /* the most classes shed at once */
	uint64_t starved_drains; /* drains stopped at the ceiling (the kernel then drops) */
	uint64_t refused; /* records the pool had no room for (dropped, counted in LOST) */
	uint64_t complete_ns; /* from the stop (deadline, signal, exit) to the file closed */
	bool aborted; /* a second stop request: queued records were dropped */
	uint64_t dropped_bytes; /* bytes of records dropped by that abort */
	unsigned jit_files; /* JIT symbol files copied into FILE.jit (jitmaps.h) */
	uint64_t cmdlines, cmdlines_lost; /* command lines written, not written (cmdline.h) */
};

#define RSP_DEFAULT_MAX_MEMORY (256ull << 20)

/*
 * Record until the targets exit, a signal (SIGINT/SIGTERM), opts->duration,
 * or a write error.  Returns 0 when a file was written (check stats->stop),
 * -errno with one line in @err otherwise.
 */
int rsp_record(const struct rsp_record_opts *opts, struct rsp_record_stats *stats, char *err,
	       size_t errlen);
void rsp_record_stats_clear(struct rsp_record_stats *stats);

/* Ask a running rsp_record() to stop (async-signal-safe).  A second request,
 * a quarter of a second or more after the first (sooner: the same Ctrl-C
 * delivered twice), stops at once: what is still queued for the file is
 * dropped, the file ends on its last whole chunk. */
void rsp_record_request_stop(void);
/* Whether a second request came. */
bool rsp_record_aborted(void);

#endif /* RSP_COLLECTOR_H */
