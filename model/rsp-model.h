/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rsp's model: a perf.data file (rsp record's or perf record's) read into
 * a system timeline — per thread, runs and sleeps; links between them;
 * block I/O, network and interrupts; symbolized stacks.
 *
 * Opaque objects; queries fill caller-owned *_info structs.  Indexes are
 * stable while the trace is open.  Strings are owned by the trace.  Never
 * prints, never exits; no GTK.
 */
#ifndef RSP_MODEL_H
#define RSP_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct rsp_trace;

#define RSP_NO_INDEX ((size_t)-1)

typedef void (*rsp_model_log_fn)(const char *msg, void *ctx);

struct rsp_trace_opts {
	rsp_model_log_fn warn; /* each warning once, as found; may be NULL */
	void *warn_ctx;
	const char *debug_dir; /* build-id debug files; NULL: /usr/lib/debug */
	/* Where the files the trace names are looked for besides their paths
	 * (symbols.h has the order); each is used only with the recorded build id. */
	const char *symfs; /* a root prefixed to every path (NULL: none) */
	const char *const *debug_dirs; /* searched before debug_dir */
	size_t n_debug_dirs;
	const char *archive; /* a symbol archive (`rsp archive`); NULL: none */
	/* the JIT runtimes' perf-PID.map and jit-PID.dump files (the FILE.jit
	 * directory `rsp record` writes); NULL: none */
	const char *jit_dir;
	bool debuginfod; /* ask the servers of DEBUGINFOD_URLS (elfutils' client) */
	/* "debuginfod: fetching ..." before each download; may be NULL */
	rsp_model_log_fn sym_progress;
	void *sym_progress_ctx;
	bool no_symbols; /* skip symbolization (fuzzing, quick info) */
	/*
	 * Loading progress, 0..1, called every ~64k records from the thread that
	 * loads (the scan of the file is the first third, building the timeline
	 * the rest); may be NULL.
	 */
	void (*progress)(double fraction, void *ctx);
	void *progress_ctx;
	/* Non-zero (set from any thread) stops loading: -ECANCELED.  May be NULL. */
	const volatile int *cancel;
	/*
	 * Load in two passes (the scan, then the walk) even a stream that one
	 * pass would load (rsp_trace_summary.one_pass): for tests and
	 * measurements; the CLI sets it from RSP_LOAD_TWO_PASS=1.
	 */
	bool two_pass;
};

/* Open and load @path.  -errno with one line in @err on failure. */
int rsp_trace_open(const char *path, const struct rsp_trace_opts *opts, struct rsp_trace **out,
		   char *err, size_t errlen);
/* The same from bytes in memory, which must outlive the trace. */
int rsp_trace_open_mem(const void *buf, size_t len, const struct rsp_trace_opts *opts,
		       struct rsp_trace **out, char *err, size_t errlen);
void rsp_trace_free(struct rsp_trace *t);
/*
 * Whether @path is a recording rsp_trace_open() can start to read: its
 * header and its first event description, not its records (rsp view's check
 * before the viewer loads the file).  0, or -errno with the line
 * rsp_trace_open() would give in @err.  A file that passes may still fail
 * later (records damaged past the start are read as rsp_trace_open() reads them).
 */
int rsp_trace_check(const char *path, char *err, size_t errlen);

/* ---- what the file holds --------------------------------------------------------- */

struct rsp_trace_summary {
	uint64_t start_ns, end_ns; /* CLOCK_MONOTONIC (rsp) or perf's clock */
	uint64_t wall_start_ns; /* UTC of start_ns, 0 if unknown */
	uint32_t nr_cpus;
	const char *hostname, *osrelease, *arch, *recorder; /* "" if unknown */
	bool pipe_mode;
	bool truncated; /* cut short: read up to the cut */
	bool unfinished; /* file-mode header never completed */
	uint64_t file_records, events, samples;
	uint64_t inferred_switches; /* switch-ins the kernel did not record */
	uint64_t runs_placed; /* of their runs, placed by sched_stat_runtime's CPU time */
	uint64_t merged_copies; /* events delivered twice (perf + ftrace), merged */
	uint64_t dropped_samples; /* samples of a thread not running on their CPU */
	uint64_t broken_chains; /* switch records disagreeing with the CPU's state */
	uint64_t lost_events;
	uint64_t wakeups, wakeups_unlinked; /* voluntary sleeps ended; without a recorded cause */
	/* of wakeups_unlinked: in spans of lost records; of wakeups: woken by a waking
	 * recorded while the thread still ran (a wake that raced its sleep) */
	uint64_t wakeups_unlinked_lost, wakeups_raced;
	size_t n_threads, n_processes;
	/* a stream compressed in frames: frames, and frames inflated so far (reading's cost) */
	size_t segments;
	uint64_t segments_inflated;
	size_t segments_shared; /* of them, scanned by a second thread beside the first */
	/* loaded in one pass: each frame inflated once, the walk beside the scan (else two
	 * passes: the scan, then the walk) */
	bool one_pass;
	/* sched:sched_switch recorded: when threads ran and waited is known (false:
	 * CPU samples only, as perf record -g; every thread's state is unknown) */
	bool have_sched;
	bool have_waking, have_irq, have_block, have_net;
	bool kallsyms_in_file, kallsyms_from_running_kernel, kallsyms_from_archive;
};

void rsp_trace_get_summary(const struct rsp_trace *t, struct rsp_trace_summary *out);
size_t rsp_trace_n_cmdline(const struct rsp_trace *t);
const char *rsp_trace_cmdline(const struct rsp_trace *t, size_t i);
/* The targets the recorder marked (thread map): pids. */
size_t rsp_trace_n_targets(const struct rsp_trace *t);
int rsp_trace_target(const struct rsp_trace *t, size_t i);
/*
 * Which names @pid's addresses have at @time: the same number at two times
 * where every address of @pid has one name, another where a JIT runtime had
 * reused addresses in between (its jitdump's loads and moves, FILE.jit); 0 for
 * every process without any.  A cache of a stack's names per process keys on
 * it too.
 */
uint32_t rsp_trace_names_epoch(struct rsp_trace *t, int pid, uint64_t time);
size_t rsp_trace_n_warnings(const struct rsp_trace *t);
const char *rsp_trace_warning(const struct rsp_trace *t, size_t i);

struct rsp_event_type_info {
	const char *name; /* "sched:sched_switch", "cpu-clock" */
	uint64_t count; /* after merging copies */
	uint64_t merged_copies;
	uint64_t with_stack;
	uint64_t bytes; /* of its sample records (inflated), merged copies included */
};
size_t rsp_trace_n_event_types(const struct rsp_trace *t);
void rsp_trace_event_type(const struct rsp_trace *t, size_t i, struct rsp_event_type_info *out);

struct rsp_lost_info {
	int cpu;
	uint64_t start_ns, end_ns; /* the span whose events are unknown */
	uint64_t lost;
	/* NULL: every event of the CPU is missing (the timeline is unknown there);
	 * else only this event type (LOST_SAMPLES), and what that leaves uncertain */
	const char *event;
	const char *uncertain;
	bool shed; /* the recorder shed it on purpose (rsp record --max-memory) */
};
size_t rsp_trace_n_lost(const struct rsp_trace *t);
void rsp_trace_lost(const struct rsp_trace *t, size_t i, struct rsp_lost_info *out);

/* ---- threads and processes ----------------------------------------------------------- */

struct rsp_thread_info {
	int tid, pid;
	const char *comm; /* the last name (after exec) */
	const char *first_comm;
	/* its process's command line, as rsp record read it at the process's last
	 * exec in the thread's life (or, alive at the start, from /proc); a process
	 * that has not exec'd has its parent's; NULL if the file has none */
	const char *cmdline;
	size_t parent; /* thread index of the forker, RSP_NO_INDEX */
	uint64_t birth_ns, death_ns; /* 0 / UINT64_MAX: before / after the trace */
	uint64_t run_ns, sleep_ns, unknown_ns;
	size_t n_slices, n_samples;
};
size_t rsp_trace_n_threads(const struct rsp_trace *t);
void rsp_trace_thread(const struct rsp_trace *t, size_t i, struct rsp_thread_info *out);
/* The thread that had @tid at @time (pid reuse aware); RSP_NO_INDEX if none. */
size_t rsp_trace_find_thread(const struct rsp_trace *t, int tid, uint64_t time);

/* Which threads: none set means every thread of the trace. */
struct rsp_thread_filter {
	const int *pids; /* processes (all their threads) */
	size_t n_pids;
	int tid; /* > 0: this one thread only */
	bool descendants; /* also the processes they forked during the trace, recursively */
};

/*
 * Per thread index (rsp_trace_n_threads() bytes): 1 if @f selects the thread.
 * The idle tasks (tid 0) are never selected.  malloc'ed; NULL on ENOMEM.
 */
uint8_t *rsp_thread_filter_apply(struct rsp_trace *t, const struct rsp_thread_filter *f);

/* ---- runs and sleeps ------------------------------------------------------------------ */

enum rsp_slice_kind {
	RSP_SLICE_RUN = 1,
	RSP_SLICE_SLEEP = 2,
	RSP_SLICE_UNKNOWN = 3, /* lost records, or the state could not be known */
};

enum rsp_sleep_state {
	RSP_SLEEP_INTERRUPTIBLE, /* S, I */
	RSP_SLEEP_UNINTERRUPTIBLE, /* D */
	RSP_SLEEP_PREEMPTED, /* switched out while runnable: involuntary */
};

#define RSP_SLICE_INFERRED_START 0x01 /* run: switch-in inferred */
#define RSP_SLICE_UNKNOWN_START 0x02 /* sleep: began before the trace */
#define RSP_SLICE_EXEC 0x10 /* run: begins at exec */
#define RSP_SLICE_OPEN_END 0x20 /* still open when the trace ended */
#define RSP_SLICE_LOST 0x40 /* touches a lost-records span */
/* unknown: the trace has no scheduler events (perf record -g); the slice is the
 * thread's whole life and holds all its samples (first_sample, n_samples) */
#define RSP_SLICE_NOT_RECORDED 0x02

struct rsp_slice_info {
	enum rsp_slice_kind kind;
	enum rsp_sleep_state state; /* sleeps */
	uint64_t start_ns, end_ns;
	uint64_t wake_ns; /* sleeps: became runnable (0: unknown) */
	int cpu;
	unsigned flags;
	uint32_t stack; /* sleeps: the switch-out stack (0: none) */
	size_t link; /* runs: the link that started it; sleeps: the one that ended it */
	size_t first_sample, n_samples; /* runs; unknown slices with RSP_SLICE_NOT_RECORDED */
};
size_t rsp_thread_n_slices(const struct rsp_trace *t, size_t thread);
void rsp_thread_slice(const struct rsp_trace *t, size_t thread, size_t i,
		      struct rsp_slice_info *out);
/* The slice covering @time, RSP_NO_INDEX if none (binary search). */
size_t rsp_thread_find_slice(const struct rsp_trace *t, size_t thread, uint64_t time);

struct rsp_sample_info {
	uint64_t time_ns;
	int cpu;
	uint32_t stack;
	/* the CPU time one sample of its sampler stands for: the clock's period,
	 * or 1/frequency in frequency mode; 0: not known (a counted event) */
	uint64_t period_ns;
};
void rsp_thread_sample(const struct rsp_trace *t, size_t thread, size_t i,
		       struct rsp_sample_info *out);

/* ---- links ------------------------------------------------------------------------------- */

enum rsp_link_kind {
	RSP_LINK_WAKEUP = 1,
	RSP_LINK_FORK,
	RSP_LINK_EXEC,
	RSP_LINK_IO,
	RSP_LINK_NET,
	RSP_LINK_TIMER,
	RSP_LINK_IRQ,
	RSP_LINK_SOFTIRQ,
	RSP_LINK_UNKNOWN,
	RSP_LINK_PREEMPT, /* the thread that took the CPU from a preempted one */
};

enum rsp_wake_context {
	RSP_WAKE_TASK,
	RSP_WAKE_SOFTIRQ,
	RSP_WAKE_HARDIRQ,
	RSP_WAKE_NMI,
};

struct rsp_link_info {
	enum rsp_link_kind kind;
	enum rsp_wake_context context;
	uint64_t time_ns;
	int cpu;
	size_t waker_thread, waker_slice; /* RSP_NO_INDEX for interrupts on an idle CPU */
	size_t wakee_thread, wakee_slice;
	uint32_t waker_stack;
	size_t io, net; /* RSP_NO_INDEX unless IO / NET */
	const char *irq_name; /* IRQ: the handler's name, else NULL */
	int softirq; /* SOFTIRQ/TIMER from softirq: the vector, else -1 */
};
size_t rsp_trace_n_links(const struct rsp_trace *t);
void rsp_trace_link(const struct rsp_trace *t, size_t i, struct rsp_link_info *out);
const char *rsp_link_kind_name(enum rsp_link_kind k);

/* ---- I/O and network -------------------------------------------------------------------- */

struct rsp_io_info {
	uint32_t dev; /* dev_t: major << 20 | minor */
	uint64_t sector;
	uint32_t nr_sector;
	const char *rwbs;
	uint64_t insert_ns, issue_ns, complete_ns; /* 0: not seen */
	size_t thread; /* the issuer */
	size_t link; /* the wakeup its completion caused */
};
size_t rsp_trace_n_ios(const struct rsp_trace *t);
void rsp_trace_io(const struct rsp_trace *t, size_t i, struct rsp_io_info *out);

struct rsp_socket_info {
	uint64_t sk;
	int family, protocol;
	char local[64], remote[64]; /* "127.0.0.1:8080", "" if unknown */
	bool listening; /* a listener (remote port 0): local is what it listens on */
	size_t peer; /* the socket at the other end on this machine */
};
size_t rsp_trace_n_sockets(const struct rsp_trace *t);
void rsp_trace_socket(const struct rsp_trace *t, size_t i, struct rsp_socket_info *out);

struct rsp_net_info {
	uint64_t send_ns, ready_ns;
	size_t sender_thread; /* RSP_NO_INDEX: from outside this machine */
	size_t socket; /* where the data arrived */
	size_t link;
};
size_t rsp_trace_n_nets(const struct rsp_trace *t);
void rsp_trace_net(const struct rsp_trace *t, size_t i, struct rsp_net_info *out);

/* ---- stacks --------------------------------------------------------------------------------- */

struct rsp_frame_info {
	uint64_t addr;
	const char *func; /* NULL if unknown */
	const char *dso;
	uint64_t offset;
	/* the address in the file (its ELF address, or its file offset when the
	 * file could not be read); the address itself for the kernel */
	uint64_t rel_addr;
	bool kernel;
};
/*
 * What every output calls a frame: its function; else "FILE+0xADDR" (the
 * file's base name, the address in the file: rel_addr); else "[unknown]"
 * (no map).  Returns @f->func or @buf.
 */
const char *rsp_frame_name(const struct rsp_frame_info *f, char *buf, size_t len);
/*
 * The two frames a label names ("caller > inner"): the innermost user frame with
 * a name (rsp_frame_name(); "[unknown]" skipped) and the first caller named
 * otherwise, each NULL if none; their names are written into @names, two
 * buffers of @len bytes (at least 10: "[unknown]" whole).  @kfunc (when given): the first kernel function that
 * is not the scheduler's own, NULL if none.  @pid and @time as for
 * rsp_stack_frame().
 */
void rsp_stack_label_frames(struct rsp_trace *t, uint32_t stack, int pid, uint64_t time,
                            char *names, size_t len, const char **inner, const char **caller,
                            const char **kfunc);
/*
 * Frames leaf first.  A user-stack copy is unwound on first use.  User
 * addresses mean something only in their process at their time: @pid and
 * @time are those of the slice or sample that holds the stack.
 */
size_t rsp_stack_n_frames(struct rsp_trace *t, uint32_t stack);
void rsp_stack_frame(struct rsp_trace *t, uint32_t stack, size_t i, int pid, uint64_t time,
		     struct rsp_frame_info *out);
/* The user part reaches main or a thread start routine. */
bool rsp_stack_complete(struct rsp_trace *t, uint32_t stack, int pid, uint64_t time);

/*
 * How many voluntary sleeps' switch-out stacks have a user part that reaches
 * main or a thread start routine: of the recorded targets' process trees
 * (@targets) or of every thread.  At most @max stacks are checked (each is
 * unwound and symbolized): 16 runs of consecutive sleeps spread evenly over
 * the trace.
 */
struct rsp_stack_coverage {
	uint64_t sleeps; /* voluntary sleeps with a stack */
	uint64_t checked; /* of those, looked at */
	uint64_t with_user; /* of those, with user frames */
	uint64_t complete; /* of those, reaching main or a thread start */
};
void rsp_trace_stack_coverage(struct rsp_trace *t, bool targets, size_t max,
			      struct rsp_stack_coverage *out);

/* ---- files the symbols need ------------------------------------------------------------ */

/*
 * The files the stacks of the recorded targets' process trees (of every
 * thread when the trace names no target) have frames in and that could not be
 * read or have no functions: most costly first.  Found on first call, by
 * unwinding and symbolizing every such stack (sleeps and CPU samples).
 */
enum rsp_file_problem {
	RSP_FILE_MISSING = 1, /* found nowhere */
	RSP_FILE_BUILD_ID_DIFFERS, /* a file at its path, of another build */
	RSP_FILE_UNREADABLE, /* a file at its path that is not a usable ELF file */
	RSP_FILE_NO_SYMBOLS, /* read, but without functions (stripped, no debug file) */
	/* read, but only its exported functions have names (.dynsym: stripped of
	 * .symtab, no debug file): frames in its static functions have none */
	RSP_FILE_DYNAMIC_ONLY,
};
struct rsp_missing_file {
	const char *path; /* as the trace names it */
	const char *build_id; /* hex; "" when the trace recorded none */
	enum rsp_file_problem problem;
	const char *why; /* "not found", "build id differs", ... */
	uint64_t frames; /* frames of those stacks in the file, without a function */
	uint64_t stacks; /* stacks with such a frame */
	uint64_t ns; /* the time those stacks stand for: sleeps, CPU samples' periods */
};
size_t rsp_trace_n_missing_files(struct rsp_trace *t);
/*
 * The files the stacks (sleeps, CPU samples) of processes @pids (of every
 * thread with @all) have frames in, each looked for as a lookup would: for
 * `rsp archive`.  malloc'ed array of *@n (NULL with *@n 0 when none or no
 * memory).
 */
struct rsp_mapped_file {
	const char *path; /* as the trace names it */
	const uint8_t *build_id; /* the recorded one; NULL: none */
	size_t build_id_len;
	const char *read_from; /* the file found (with the recorded build id); NULL: none */
	bool debug_file; /* read_from is a debug file, not the file mapped */
	bool is_file; /* a path ([vdso], //anon, devices are not) */
	uint64_t frames; /* user frames in it */
};
struct rsp_mapped_file *rsp_trace_mapped_files(struct rsp_trace *t, const int *pids,
					       size_t n_pids, bool all, size_t *n);
void rsp_trace_missing_file(struct rsp_trace *t, size_t i, struct rsp_missing_file *out);

#endif /* RSP_MODEL_H */
