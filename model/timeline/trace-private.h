/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The model's internal structures, shared by the files of model/.  The
 * public API (rsp-model.h) hands out opaque pointers and copies of these.
 */
#ifndef RSP_MODEL_PRIVATE_H
#define RSP_MODEL_PRIVATE_H

#include "read/decode.h"
#include "read/reader.h"
#include "rsp-model.h"
#include "symbols/symbols.h"
#include "read/tracedata.h"
#include "base/hashmap.h"
#include "base/vec.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#define RSP_NONE UINT32_MAX

/*
 * A CPU number at or above this is not believed (a damaged record or
 * header): the trace's CPUs, and its rings and tables sized by them, stay
 * below it.
 */
#define _RSP_MAX_CPUS 4096

/* ---- stacks ---------------------------------------------------------------------- */

/*
 * Stacks are interned: id 0 is "no stack"; ids with RSP_STACK_PENDING set
 * name a user-stack copy not unwound yet (done on first use, then cached).
 */
#define RSP_STACK_PENDING 0x80000000u

struct stack_entry {
	uint32_t off; /* into frames */
	uint32_t n;
};

/* user frames unwound from one copy, at most */
#define MAX_USER_FRAMES 256

/*
 * A user-stack copy, unwound as loading read it (the walk's first stage: its
 * record at hand, the maps those of its time), combined with the kernel part
 * and the fallback on first use: which of them wins is known only once the
 * event's second copy (if any) was merged.
 */
struct pending_stack {
	uint32_t kernel; /* interned kernel part (from the callchain) */
	uint32_t fallback; /* frame-pointer copy of the same event, or 0 */
	uint32_t resolved; /* final interned id, 0 until first use */
	uint32_t user; /* in trace->ustacks: the unwound user frames; 0: none */
	bool empty; /* the kernel copied no byte: user is the sample's whole callchain */
};

struct stacks {
	VEC(uint64_t) frames;
	VEC(struct stack_entry) entries;
	VEC(struct pending_stack) pending;
	struct _rsp_u64map joined; /* kernel id << 32 | user id (ustacks) -> their joined stack */
	uint32_t *ht; /* open addressing: id + 1 */
	size_t ht_cap;
	uint64_t unwound, unwind_failed;
};

int stacks_init(struct stacks *s);
void stacks_free(struct stacks *s);
uint32_t stacks_intern(struct stacks *s, const uint64_t *ips, size_t n);
/* A sample's callchain without perf's context markers; only its kernel part if asked. */
size_t _rsp_clean_chain(const uint64_t *chain, uint64_t nr, uint64_t *out, size_t max,
			bool kernel_only);
uint32_t stacks_add_pending(struct stacks *s, uint32_t kernel, uint32_t user, bool empty);

/* ---- the timeline ------------------------------------------------------------------ */

enum slice_kind {
	SLICE_RUN = 1,
	SLICE_SLEEP = 2,
	SLICE_UNKNOWN = 3, /* lost records or a broken state chain */
};

/* slice flags */
#define SL_INFERRED_START 0x01 /* RUN: switch-in not recorded, inferred */
#define SL_UNKNOWN_START 0x02 /* SLEEP: asleep when the trace began */
#define SL_PREEMPTED 0x04 /* SLEEP: switched out runnable (involuntary) */
#define SL_UNINTERRUPTIBLE 0x08 /* SLEEP: D state */
#define SL_EXEC 0x10 /* RUN: begins at an exec */
#define SL_OPEN_END 0x20 /* still open when the trace ended */
#define SL_LOST 0x40 /* ends or starts at a lost-records span */
#define SL_BORN 0x80 /* SLEEP: runnable since the thread was created */
/* UNKNOWN: the trace has no scheduler events at all (perf record -g): when the
 * thread ran is known only from its samples (its bit is SLEEP's SL_UNKNOWN_START) */
#define SL_NOT_RECORDED 0x02

struct slice {
	uint64_t start, end;
	uint64_t wake; /* SLEEP: when it became runnable (0: unknown) */
	uint32_t stack; /* SLEEP: switch-out stack; RUN: 0 */
	uint32_t link; /* RUN: the link that started it; SLEEP: the link that ended it */
	uint32_t samples; /* RUN: index of its first sample in the thread's samples */
	uint16_t cpu;
	uint8_t kind;
	uint8_t flags;
};
_Static_assert(sizeof(struct slice) == 40, "slice stays small");

struct tsample {
	uint64_t time;
	uint32_t stack;
	uint16_t cpu;
	uint16_t attr; /* its event (t->dec[attr]), for the time a sample stands for */
};

enum link_kind {
	LINK_WAKEUP = 1, /* a task woke another */
	LINK_FORK,
	LINK_EXEC, /* horizontal: a run split by exec */
	LINK_IO, /* a block completion woke it */
	LINK_NET, /* data arrived on a socket */
	LINK_TIMER, /* a timer expired */
	LINK_IRQ, /* a hardware interrupt woke it */
	LINK_SOFTIRQ, /* other softirq work woke it */
	LINK_UNKNOWN, /* woken, but the waking was not recorded */
	LINK_PREEMPT, /* a preempted sleep: "waker" is the thread that took the CPU */
};

struct link {
	uint64_t time;
	uint32_t waker; /* thread index, RSP_NONE for interrupts on an idle CPU */
	uint32_t waker_slice; /* the waker's run, RSP_NONE if none */
	uint32_t wakee; /* thread index */
	uint32_t wakee_slice; /* the run it started, RSP_NONE until known */
	uint32_t stack; /* the waker's stack */
	uint32_t extra; /* IO: io op; NET: net op; IRQ: irq name; SOFTIRQ: vec */
	uint16_t cpu;
	uint8_t kind;
	uint8_t ctx; /* enum rsp_ctx */
};

struct strchunk {
	char *p;
	uint32_t used, cap;
};

struct thread {
	uint32_t tid, pid;
	uint32_t parent; /* thread index of the forker, RSP_NONE */
	uint32_t comm; /* string id, the last name */
	uint32_t first_comm;
	uint64_t birth, death; /* 0 / UINT64_MAX if before / after the trace */
	VEC(struct slice) slices;
	VEC(struct tsample) samples;
	uint64_t run_ns, sleep_ns, unknown_ns; /* its slices' sums, once loaded */

	/* builder state */
	uint8_t st; /* TS_* */
	uint16_t cpu;
	uint32_t pending_link;
	bool exited;
};

struct io_op {
	uint64_t insert, issue, complete;
	uint64_t sector;
	uint32_t dev, nr_sector;
	uint32_t tid; /* thread index of the issuer, RSP_NONE */
	uint32_t woke; /* link index of the wakeup it caused, RSP_NONE */
	char rwbs[8];
};

struct sock_info {
	uint64_t sk;
	uint16_t family, protocol;
	uint16_t sport, dport;
	uint8_t saddr[16], daddr[16];
	uint32_t peer; /* index in socks, RSP_NONE */
	/* TCP without a known peer: the socket its last send was seen delivered to
	 * over loopback (builder-net.c, peers learned from their data), RSP_NONE */
	uint32_t sent_to;
	uint64_t last_send; /* the last send on this socket, and by whom */
	bool send_pending; /* that send's data-ready on the peer not seen yet */
	bool delivered_early; /* the peer saw the data of this socket's next send already */
	uint32_t last_sender;
	bool have_addr;
	uint8_t opened; /* SOCK_CONNECTED (SYN_SENT seen), SOCK_ACCEPTED (SYN_RECV), 0 */
	bool closed; /* went to TCP_CLOSE: a later state change is a new socket at its address */
	bool in_peers; /* its tuple in the builder's table of tuples (builder-net.c, peer_put()) */
};
#define SOCK_CONNECTED 1
#define SOCK_ACCEPTED 2

struct net_op {
	uint64_t send_time; /* last send on the peer before the data arrived */
	uint64_t ready_time;
	uint32_t sender; /* thread index, RSP_NONE if not on this machine */
	uint32_t sock; /* receiving socket, index in socks */
	uint32_t woke; /* link index, RSP_NONE */
	uint32_t from_sock; /* a UDP datagram's: the socket it was sent from, RSP_NONE */
};

/*
 * A UDP datagram's arrival delivered by a softirq that began @early_ns before
 * its sk_data_ready: the datagram was queued at some moment of that softirq,
 * and a receiver running on another CPU can take it before the event (a vCPU
 * the host stopped between the queueing and the event: 0.7 ms seen).  Only
 * these arrivals, in net index order (requests.c matches datagrams to
 * receives by them).
 */
struct net_early {
	uint32_t net;
	uint32_t early_ns; /* at most UINT32_MAX */
};

/* A target-agnostic socket call that moved data: a send (any length, 0 if the
 * probe has none) or a receive of at least one byte, in its thread's context. */
struct sock_op {
	uint64_t time; /* the call's end (sock_send_length / sock_recv_length) */
	uint32_t thread;
	uint32_t sock; /* index in socks */
	int32_t len;
	bool send;
};

struct lost_span {
	uint64_t start, end;
	uint64_t lost;
	uint32_t cpu;
	int32_t attr; /* the one event type missing (LOST_SAMPLES), -1: every event of the CPU */
	bool shed; /* a span the recorder shed on purpose (a begin mark, or still open) */
	bool open; /* begun, its end not (yet) seen */
	/* lost from a ring of the target's own (attr: its owner), whose events
	 * are copies of system-wide ones with stacks, and the target's samples:
	 * the timeline stays whole (builder_lost_ring()) */
	bool ring;
};

struct irq_name {
	int32_t irq;
	uint32_t name; /* string id */
};

struct event_count {
	char name[96];
	uint64_t n; /* after merging copies */
	uint64_t copies_merged;
	uint64_t with_stack;
	uint64_t bytes; /* of its sample records, copies merged into others included */
};

/* A run on a CPU (cpu-runs.c). */
struct cpu_run {
	uint64_t start, end;
	uint32_t thread, slice;
};

/* Every run, per CPU, by start (cpu-runs.c): made after the load, on a thread of its own */
struct cpu_runs {
	VEC(struct cpu_run) *v; /* per CPU */
	size_t n;
	pthread_mutex_t lock;
	pthread_t thread;
	bool lock_made, building, made, nomem;
};

struct rsp_trace {
	struct rsp_reader *reader;
	struct tracedata td;
	struct rsp_decoder *dec; /* per attr */
	struct rsp_sym *sym;
	struct stacks stacks;
	struct stacks ustacks; /* the user parts of unwound copies (pending stacks' user) */
	bool kallsyms_from_running_kernel;
	bool kallsyms_from_archive;
	struct missing_files *missing; /* files.c, made on first use */
	struct cpu_runs cpu_runs; /* cpu-runs.c: trace_cpu_runs() */
	/* per thread index: its process's command line (the reader's), or NULL
	 * (cmdlines.c, after the load) */
	const char **thread_cmdline;

	/*
	 * strings (comms, irq names, files, labels): interned, NUL-terminated, in
	 * chunks that never move (tables.c), so a string's pointer (trace_str(),
	 * every label the API hands out) stays valid while more are interned
	 */
	VEC(struct strchunk) strchunks;
	size_t str_n; /* strings interned */
	uint32_t *str_ht;
	size_t str_cap;

	VEC(struct thread) threads;
	uint32_t *tid_ht; /* tid -> current thread index + 1 */
	size_t tid_cap;
	VEC(struct link) links;
	VEC(struct io_op) ios;
	VEC(struct sock_info) socks;
	VEC(struct net_op) nets;
	VEC(struct net_early) net_early;
	VEC(struct sock_op) sockops; /* in time order */
	VEC(struct lost_span) lost;
	VEC(struct irq_name) irqs;
	VEC(struct event_count) counts;

	uint64_t t_start, t_end;
	uint32_t nr_cpus;
	uint64_t n_events, n_records, n_inferred, n_dup_merged, n_samples_dropped;
	size_t n_segs_shared; /* segments a second thread scanned (index.c) */
	bool one_pass; /* loaded in one pass (one-pass.c) */
	uint64_t n_runs_placed; /* inferred runs placed by the CPU time sched_stat_runtime gave */
	uint64_t n_broken_chains;
	uint64_t n_wakeups, n_wakeups_unlinked; /* voluntary sleeps ended; of them without a waking */
	uint64_t n_wakeups_unlinked_lost; /* of those, the sleeps a span of lost wakings overlaps */
	uint64_t n_wakeups_raced; /* linked to a waking recorded before their sleep began */
	VEC(char *) warnings;
	bool have_irq, have_block, have_net, have_waking;
	bool recorded[TP__COUNT]; /* the file has an attr for the tracepoint (it may not have fired) */
};

/* a stack id with any pending user-stack copy unwound (query.c) */
uint32_t trace_stack_resolve(struct rsp_trace *t, uint32_t stack);

/* strings */
uint32_t trace_intern(struct rsp_trace *t, const char *s);
/* query.c: frame @i of @e, and what the symbolizer said of it (t->sym set) */
void trace_stack_frame_sym(struct rsp_trace *t, const struct stack_entry *e, size_t i, int pid,
			   uint64_t time, struct rsp_frame_info *o, struct rsp_sym_frame *f);
/* cpu-runs.c: every run per CPU by start, made on a thread of its own on a large trace
 * (started once the load is done); trace_cpu_runs() waits for it (NULL: no memory) */
void trace_cpu_runs_start(struct rsp_trace *t);
/* cmdlines.c: t->thread_cmdline from the file's command lines */
void trace_cmdlines_resolve(struct rsp_trace *t);
const struct cpu_runs *trace_cpu_runs(struct rsp_trace *t);
void trace_cpu_runs_free(struct rsp_trace *t);
/* files.c */
struct missing_files;
void trace_missing_files_free(struct missing_files *m);
const char *trace_str(const struct rsp_trace *t, uint32_t id);
void trace_warn(struct rsp_trace *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* threads: the live thread of @tid at the current point of the build */
uint32_t trace_thread_of(struct rsp_trace *t, uint32_t tid, uint32_t pid, uint64_t time);
uint32_t trace_thread_new(struct rsp_trace *t, uint32_t tid, uint32_t pid, uint64_t time);

/* the timeline builder (builder*.c), fed events in time order */
struct builder;
struct builder *builder_new(struct rsp_trace *t);
void builder_free(struct builder *b);
void builder_event(struct builder *b, uint64_t time, uint32_t cpu, const struct rsp_dev *ev,
		   uint32_t stack, uint64_t rec_off);
void builder_sample(struct builder *b, uint64_t time, uint32_t cpu, uint32_t tid, uint32_t pid,
		    uint32_t stack, uint16_t attr);
void builder_comm(struct builder *b, uint64_t time, uint32_t pid, uint32_t tid, const char *comm,
		  bool exec);
void builder_fork(struct builder *b, uint64_t time, uint32_t pid, uint32_t ppid, uint32_t tid,
		  uint32_t ptid);
void builder_exit(struct builder *b, uint64_t time, uint32_t pid, uint32_t tid);
/* @n records of every event lost on @cpu between @since (their ring's last
 * record there; 0: not known) and @time */
void builder_lost(struct builder *b, uint64_t time, uint32_t cpu, uint64_t n, uint64_t since);
/* One event type (attr @attr) missing on @cpu: from @time on (@begin), or up
 * to @time, @n of them; the timeline stays known. */
bool builder_cpu_lost(const struct builder *b, uint32_t cpu);
void builder_switch_again(struct builder *b, uint64_t t, uint32_t cpu, const struct rsp_dev *ev);
void builder_lost_ring(struct builder *b, uint64_t time, uint32_t cpu, int32_t attr, uint64_t n,
		       uint64_t since);
void builder_lost_type(struct builder *b, uint64_t time, uint32_t cpu, int32_t attr, uint64_t n,
		       bool begin);
void builder_finish(struct builder *b);
/* Loading in one pass: t->t_end is set only before builder_finish(). */
void builder_end_later(struct builder *b);

/* what the timeline produced for an event, so a second copy can add its stack */
struct product {
	uint8_t what; /* 0 none, 1 slice, 2 link */
	uint32_t thread, index;
};
struct product builder_last_product(const struct builder *b);
void builder_attach_stack(struct builder *b, struct product p, uint32_t stack);

#endif /* RSP_MODEL_PRIVATE_H */
