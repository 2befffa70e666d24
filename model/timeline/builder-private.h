/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The timeline builder's state, shared by its files:
 *   builder-threads.c  each thread's slices: opened, closed, switch-ins inferred
 *   builder-io.c       block requests: insert, issue, complete
 *   builder-net.c      sockets, their peers, data arrivals and their senders
 *   builder.c          scheduler events, interrupts, samples, the entry points
 * each calling only the ones listed before it.
 */
#ifndef RSP_MODEL_TIMELINE_BUILDER_PRIVATE_H
#define RSP_MODEL_TIMELINE_BUILDER_PRIVATE_H

#include "timeline/trace-private.h"

enum thread_state {
	TS_NEW, /* not seen yet */
	TS_RUNNING,
	TS_SLEEPING,
	TS_UNKNOWN,
	TS_DEAD,
};

#define CPU_IDLE (RSP_NONE - 1)
#define CPU_UNKNOWN RSP_NONE

/* softirq vectors (include/linux/interrupt.h, stable since 2.6.36) */
#define SOFTIRQ_TIMER 1
#define SOFTIRQ_NET_TX 2
#define SOFTIRQ_NET_RX 3
#define SOFTIRQ_BLOCK 4
#define SOFTIRQ_HRTIMER 8

/* a sample this long after its thread left the CPU still belongs to that run
 * (the paper's 20 us: the sampler's interrupt lands late) */
#define SAMPLE_SLACK_NS 20000
/*
 * A waking recorded while its thread still ran, at most this long before the
 * thread's switch-out asleep, is that sleep's waking when the kernel completes
 * the wakeup after the switch (docs/ANALYSIS.md, "Wakes that race the sleep"):
 * the waker found the thread already dequeued but still on its CPU, so the
 * switch's record follows the waking by the rest of __schedule() (the next
 * task's pick, whose new-idle balancing stops once it spends the CPU's average
 * idle time, which the kernel caps at 2 x sched_migration_cost, 1 ms by default)
 */
#define RACE_WINDOW_NS 1000000
/* an I/O completion or data arrival and the wakeup it causes */
#define CAUSE_WINDOW_NS 200000

struct cpu {
	uint32_t cur; /* thread index, CPU_IDLE or CPU_UNKNOWN */
	uint64_t since;
	uint64_t last_time;
	int32_t irq;
	uint32_t irq_name;
	int32_t softirq;
	uint64_t softirq_since; /* its entry, while softirq >= 0 */
	bool in_hrtimer, in_timer;
	uint32_t last_io;
	uint64_t last_io_time;
	uint32_t last_net;
	uint64_t last_net_time;
	uint8_t io_ctx, net_ctx; /* the context each cause was seen in ... */
	uint32_t io_gen, net_gen; /* ... and which instance of it */
	uint32_t gen; /* bumped at every irq/softirq entry and exit */
	/* a connection a listener accepted here just now (its ESTABLISHED): sock
	 * index + 1, 0; the listener's data-ready follows in the same context
	 * (builder-net.c, listener_learned()) */
	uint32_t accepted, accepted_gen;
	uint64_t accepted_time;
};

/* pending block requests by (dev, sector): open addressing with tombstones */
struct io_slot {
	uint64_t key;
	uint32_t op; /* RSP_NONE: empty; RSP_NONE - 1: tombstone */
};

struct span {
	uint64_t from, to;
};

/* The builder's per-thread state, beside struct thread. */
struct bthread {
	/* the CPU its current sleep was woken for (for inferring a missing switch-in) */
	int32_t wake_cpu;
	/* its current run: CPU time sched_stat_runtime reported since the switch-in,
	 * and the first event that showed it running (an inferred run's latest start) */
	uint64_t run_acc;
	uint64_t first_ev;
	/* a datagram delivered to a UDP socket in its context, whose sender it is if
	 * its next socket call is a UDP send, or data delivered to a TCP socket
	 * without a known peer, a sighting of a peer if its next call is a TCP send
	 * (builder-net.c): net index + 1, 0 none */
	uint32_t pend_net;
	uint64_t pend_time;
	/*
	 * A wake that raced the sleep (builder.c, on_waking()): the link the last
	 * waking of this thread while it still ran would make; RACE_RUNNING until it
	 * switches out asleep (then RACE_ASLEEP, race_sleep its sleep's index), the
	 * sleep's completing sched_wakeup taking it as the sleep's link
	 */
	struct link race;
	uint32_t race_sleep;
	uint8_t race_state;
};
enum { RACE_NONE, RACE_RUNNING, RACE_ASLEEP };

struct builder {
	struct rsp_trace *t;
	struct cpu *cpus;
	uint32_t ncpus;
	struct io_slot *io;
	size_t io_cap, io_used;
	uint32_t *sock_ht; /* sk -> sock index + 1 */
	/* an open socket's address tuple's key -> its sock index (a peer is found
	 * by the mirrored tuple: builder-net.c, peer_find()) */
	struct _rsp_u64multi peers;
	size_t sock_cap;
	struct product last;
	/* per thread, off the slice arrays */
	VEC(struct bthread) bt;
	/* flushes: issued at sector 0, completed at sector -1, matched in order */
	VEC(uint32_t) flushes;
	/* loading in one pass: the trace's end is known at the end only; the lost
	 * spans that last to it (t->lost's indexes) are ended then */
	bool end_later;
	VEC(uint32_t) at_end;
	/* the sleeps a wakeup without a waking ended (builder_finish() counts the
	 * ones a span of lost records overlaps) */
	VEC(struct span) unlinked;
};

static inline struct thread *TH(struct builder *b, uint32_t i)
{
	return &b->t->threads.v[i];
}

static inline struct slice *cur_slice(struct thread *th)
{
	return th->slices.n ? vec_last(&th->slices) : NULL;
}

/* --- builder-threads.c ------------------------------------------------------------- */
/* The thread of @tid now (made if new); RSP_NONE for perf's -1. */
uint32_t _rsp_builder_thread(struct builder *b, uint32_t tid, uint32_t pid, uint64_t time);
struct slice *_rsp_push_slice(struct thread *th, uint8_t kind, uint64_t start, uint16_t cpu,
			      uint8_t flags);
void _rsp_close_slice(struct thread *th, uint64_t end);
void _rsp_open_run(struct builder *b, uint32_t ti, uint32_t cpu, uint64_t start, uint32_t link,
		   uint8_t flags);
void _rsp_open_sleep(struct builder *b, uint32_t ti, uint64_t start, uint8_t flags,
		     uint32_t stack);
void _rsp_open_unknown(struct builder *b, uint32_t ti, uint64_t start, bool lost);
/* The thread is seen before any state: it existed before the trace. */
void _rsp_first_sight_sleeping(struct builder *b, uint32_t ti);
/*
 * @ti ran on @cpu at @when although no switch-in was recorded: start its run
 * at its wakeup on this CPU if that is known, else at @when.
 */
void _rsp_infer_switch_in(struct builder *b, uint32_t ti, uint32_t cpu, uint64_t when);
/* An event in @tid's own context on @cpu: it is running there. */
void _rsp_builder_evidence(struct builder *b, uint32_t ti, uint32_t cpu, uint64_t t);
/* The run @ti is in now, RSP_NONE if it is not running. */
uint32_t _rsp_current_run(struct builder *b, uint32_t ti);
/*
 * @ti leaves the CPU at @t: an inferred run whose CPU time sched_stat_runtime
 * reported starts that long before @t (not before its inferred start, not
 * after the first event that showed it running); the sleep before it ends
 * there (the rest of the gap was waiting for the CPU, e.g. to leave idle).
 */
void _rsp_place_run(struct builder *b, uint32_t ti, uint64_t t);

/* --- builder-io.c ------------------------------------------------------------------ */
void _rsp_on_block(struct builder *b, uint64_t t, uint32_t cpu, const struct rsp_dev *ev);

/* --- builder-net.c ----------------------------------------------------------------- */
void _rsp_on_sock_state(struct builder *b, uint64_t t, uint32_t cpu, const struct rsp_dev *ev);
void _rsp_on_sock_send(struct builder *b, uint64_t t, uint32_t cpu, const struct rsp_dev *ev);
void _rsp_net_softirq_done(struct builder *b, uint32_t cpu, uint64_t t);
void _rsp_on_sock_recv(struct builder *b, uint64_t t, uint32_t cpu, const struct rsp_dev *ev);
void _rsp_on_sk_ready(struct builder *b, uint64_t t, uint32_t cpu, const struct rsp_dev *ev);

#endif /* RSP_MODEL_TIMELINE_BUILDER_PRIVATE_H */
