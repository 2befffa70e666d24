/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Loading's pass 2, the walk, shared by its files: walk.c (the first stage,
 * and the walk of a sorted index), walk-build.c (the second stage: what each
 * record does to the timeline) and one-pass.c (the walk beside the scan).
 * The first stage reads each record and hands it to the second as an op, in
 * order, through the ring below; the second builds the timeline.
 */
#ifndef RSP_MODEL_TIMELINE_WALK_PRIVATE_H
#define RSP_MODEL_TIMELINE_WALK_PRIVATE_H

#include "timeline/load-private.h"

#include <sched.h>
#include <stddef.h>


#define DUP_RING 32 /* slots per CPU: at most 32 (a mask of them, struct walk.live) */
#define DUP_RAW 256 /* payload bytes a remembered event keeps in place (more: on the heap) */

/* An event remembered, for its second copy to merge with (walk-build.c) */
struct dup {
	uint64_t time;
	uint64_t tp;
	uint32_t raw_size; /* 0: none */
	unsigned attr;
	uint32_t stack;
	struct product prod;
	bool matched;
	bool pid_ok; /* its common_pid, read by its own attr's decoder when remembered */
	uint64_t pid;
	_Alignas(8) unsigned char raw[DUP_RAW];
	unsigned char *big; /* a larger payload's copy (an exec's long file name) */
	uint32_t big_cap;
};

/*
 * The walk in two stages: the first reads each record (parses a sample: the
 * cache misses of a file read out of order; decodes the events op_decode()
 * takes) and hands it to the second as an op, in order; the second interns
 * its stack, merges the second copies of events, decodes the others and
 * builds the timeline.  With two CPUs they run on
 * both, the ops in a ring between them; else one after the other, op by op.
 * The first only reads the file and the decoders, and is the symbolizer's
 * only user while the walk goes on.
 */
enum op_kind { OP_SAMPLE = 1, OP_RECORD, OP_DROP, OP_END };

/*
 * A sample as the first stage read it, a record for the second to read, or
 * a segment of the stream the second may drop (its number in off): every
 * op that pointed into it is done.
 */
struct op {
	uint64_t time, off;
	const void *raw;
	const uint64_t *callchain; /* the stack: interned by the second stage */
	uint32_t attr, cpu, tid, pid, raw_size, callchain_nr;
	int unwound; /* its user frames in op_uips() (rsp_sym_unwind()'s result) */
	uint32_t dtid; /* a decoded event's tid (below) */
	uint16_t uslot; /* where op_uips() is, if unwound */
	uint8_t kind;
	bool copy; /* a user-stack copy came with it */
	bool ucopy; /* one to unwind (with registers, not empty) */
	bool uempty; /* ... in which the kernel copied no byte */
	/* a tracepoint of a small kind the first stage decoded (op_decode()) */
	bool decoded;
	bool dec_ok; /* rsp_decode()'s result */
	uint8_t ctx; /* and the event's ctx, dtid and its member of rsp_dev's union: */
	_Alignas(8) unsigned char dev[24];
};

/* the index's pages behind the walk are given back every this many records (4 MiB) */
#define IDX_RELEASE (1u << 18)
/*
 * Ops in the ring: a power of two.  Room for the first stage to go on while
 * the second inflates a segment for it (~150 us; 1024 ops filled in a third
 * of that, and the first then waited): the walk of a 26 M-record recording of
 * `bench/saturate.sh build 20` (most of it sockets) took 3.05 s with 1024,
 * 2.60 s with 8192.
 */
#define OPQ 8192
/*
 * Unwound user stacks beside the ring (MAX_USER_FRAMES each, 2 KiB): at most
 * this many in flight, in slots taken in turn; a power of two, <= 65536.  (A
 * slot per place in the ring modulo this made the first stage wait, at each
 * copy, for the second to come within this many ops: with few copies among
 * many records, as in a trace of sockets, the stages then took turns.)
 */
#define OPQ_UIPS 1024
#define PIPELINE_MIN 65536 /* records: fewer are walked on one thread, and sorted on it */
#define OPQ_BATCH 32 /* published this many at a time */
#define OPQ_AHEAD 8 /* ops: the second stage asks the CPU for the one this far ahead */
/* records: the first stage asks the CPU for a record's first bytes this far ahead (the
 * records in time order are all over the file) */
#define PREFETCH_AHEAD 16

/* each side's fields on cache lines of their own: the other only reads head or tail */
struct opq {
	struct op *v;
	int stop; /* the second asks the first to stop (cancelled) */
	_Alignas(64) size_t head; /* ops written, published (atomic) */
	_Alignas(64) size_t tail; /* ops applied, published (atomic) */
	_Alignas(64) size_t head_local, tail_seen; /* the first stage's */
	size_t uhead; /* the first stage's: unwound stacks' slots taken */
	size_t fill_seen; /* the first stage's: when it reads tail again (op_decode_here()) */
	size_t *uop; /* per slot: 1 + the op that took it last (done when tail passed it) */
	_Alignas(64) size_t tail_local, head_seen; /* the second's */
};

/* The second stage's counts of an attr's events (into t->counts after the walk). */
struct attr_count {
	uint64_t n, copies_merged, with_stack;
};

#define RING_CLASSES 4

/*
 * A walk's state in three parts, each on cache lines of its own: what both
 * stages read and neither writes while the walk goes on, then each stage's.
 * (The first stage read t->nr_cpus on the cache line of t->n_events, which
 * the second adds to at every event: the line went back and forth between
 * the CPUs at every record; likewise the other fields of struct rsp_trace
 * the builder writes, and t->counts.)
 */
struct walk {
	/* read by both */
	struct rsp_trace *t;
	struct rsp_reader *rd; /* t's, for the first stage: it reads no line of t */
	const struct rsp_decoder *dec; /* t->dec */
	struct rsp_sym *sym; /* t->sym */
	uint32_t nr_cpus; /* t->nr_cpus */
	struct idx *idx; /* its pages behind the walk are given back */
	size_t n_idx;
	size_t *seg_last; /* per segment of the stream: 1 + its last record's index, 0: none */
	/*
	 * Loading in one pass (one-pass.c): its state, and what a stage does
	 * while it waits (the first, @first, for room in the ring; the second
	 * for an op): inflate the frames the scan comes to next.  NULL: none.
	 */
	struct one_pass *pass1;
	bool (*ahead)(struct walk *w, bool first);
	uint8_t *seg_state; /* per segment: 0, SEG_LOADING, SEG_HELD or SEG_FAILED (atomic) */
	bool *multi; /* per attr: its tracepoint comes from several attrs */
	/* a system-wide (not inherited) sched_switch attr: a ring of inherited,
	 * per-task events (rsp record's target's) holds none of the timeline */
	bool wide_switch;
	/*
	 * Which ring each attr's records come through, as a class of attrs set
	 * up alike (inherited or not, a wakeup watermark or not): rsp record's
	 * system-wide rings, the target's rings and its ftrace copies differ so;
	 * perf record's are one.  Per CPU and class, the last sample's time: a
	 * ring's LOST record covers the time since its own last record, not the
	 * other rings' (the ftrace copies went on through 0.54 s the system-wide
	 * ring lost, and the span read 25 us)
	 */
	uint8_t *ring_class;
	uint64_t *ring_last; /* [cpu * RING_CLASSES + class] */
	uint64_t (*uips)[MAX_USER_FRAMES]; /* OPQ_UIPS slots: unwound user frames */
	struct opq *q; /* NULL: one stage after the other */
	uint64_t *bytes; /* per attr: bytes of its samples (the first stage's, below) */
	/* the first stage's */
	_Alignas(64) bool bad_layout; /* a sample was skipped (warned at the end) */
	size_t seg_failed; /* records of segments that could not be inflated again */
	size_t first_at; /* the record the first stage is at, now and then (atomic) */
	uint32_t *seg_left; /* in one pass: per segment, its entries not walked yet */
	/* the second's: segments in the order the first needs them, to inflate ahead of it */
	_Alignas(64) uint32_t *sched;
	size_t *seg_first; /* per segment: its first record's index */
	size_t n_sched, sched_next;
	/* the second's */
	uint64_t cbuf[512];
	struct builder *b;
	struct dup (*ring)[DUP_RING];
	/* per CPU: the slots of its ring a second copy may still match (bit k: not
	 * matched, a payload kept), so that a lookup skips the others unread */
	uint32_t *live;
	uint32_t ncpu_ring;
	unsigned *pos;
	uint32_t *count_of; /* per attr: index in t->counts */
	struct attr_count *counts; /* per attr */
	uint64_t n_events, n_dup_merged; /* into t's after the walk */
	struct rsp_sample s; /* rsp_decode's: raw, raw_size and tid set per op */
	struct op one; /* one stage after the other: the op being made */
};

#define SEG_LOADING 1
#define SEG_HELD 2
#define SEG_FAILED 3

/* walk.c */
/* The walk's state for @t: the decoders, the copies' rings, the builder.  0 or -errno. */
int _rsp_walk_init(struct walk *w, struct rsp_trace *t);
/* The ring between the stages (@q), for two threads; false: one stage after the other. */
bool _rsp_walk_queue(struct walk *w, struct opq *q);
/* The first stage: a record. */
void _rsp_walk_record(struct walk *w, const struct idx *e);
/* Inflate segment @s unless another thread does or did; its state after. */
uint8_t _rsp_walk_seg_take(struct walk *w, size_t s, int who);
/* The second stage, waiting for ops: inflate a segment the first will need soon. */
bool _rsp_walk_preload(struct walk *w);
/* After the last op: the timeline finished, the counts into the trace. */
void _rsp_walk_done(struct walk *w);
void _rsp_walk_free(struct walk *w, struct opq *q, size_t n_segs);

/* walk-build.c */
/* The second stage: one op. */
void _rsp_walk_apply(struct walk *w, const struct op *o);

/* ---- the ring between the stages (inline: both stages' inner loops) ---------------- */

/* An op's unwound user frames: beside the ring, in the slot op_uips_room() gave it. */
static inline uint64_t *op_uips(struct walk *w, const struct op *o)
{
	return w->uips[o->uslot];
}

static inline void relax(unsigned *spins)
{
	if (++*spins > 64)
		sched_yield();
}

/* The first stage: where to write the next op. */
static inline struct op *op_begin(struct walk *w)
{
	struct opq *q = w->q;
	unsigned spins = 0;

	if (!q)
		return &w->one;
	while (q->head_local - q->tail_seen >= OPQ) {
		q->tail_seen = __atomic_load_n(&q->tail, __ATOMIC_ACQUIRE);
		/* the ring full: a frame the scan comes to next inflated meanwhile */
		if (q->head_local - q->tail_seen >= OPQ && !(w->ahead && w->ahead(w, true)))
			relax(&spins);
	}
	return &q->v[q->head_local & (OPQ - 1)];
}

/*
 * The first stage, about to unwind into op @o (op_begin()'s): the next slot
 * for its frames, once the op that had it last is done.
 */
static inline void op_uips_room(struct walk *w, struct op *o)
{
	struct opq *q = w->q;
	unsigned spins = 0;
	size_t slot, need;

	if (!q) {
		o->uslot = 0;
		return;
	}
	slot = q->uhead++ & (OPQ_UIPS - 1);
	need = q->uop[slot];
	while (q->tail_seen < need) {
		q->tail_seen = __atomic_load_n(&q->tail, __ATOMIC_ACQUIRE);
		if (q->tail_seen < need)
			relax(&spins);
	}
	q->uop[slot] = q->head_local + 1;
	o->uslot = (uint16_t)slot;
}

static inline void op_commit(struct walk *w)
{
	struct opq *q = w->q;

	if (!q) {
		_rsp_walk_apply(w, &w->one);
		return;
	}
	q->head_local++;
	if (q->head_local % OPQ_BATCH == 0 || q->v[(q->head_local - 1) & (OPQ - 1)].kind == OP_END)
		__atomic_store_n(&q->head, q->head_local, __ATOMIC_RELEASE);
}

/* The second stage: the next op, NULL when the first has ended. */
static inline const struct op *op_next(struct walk *w)
{
	struct opq *q = w->q;
	const struct op *o;
	unsigned spins = 0;

	while (q->tail_local == q->head_seen) {
		q->head_seen = __atomic_load_n(&q->head, __ATOMIC_ACQUIRE);
		if (q->tail_local != q->head_seen)
			break;
		/* every op applied: said at once (one_pass_drain() waits for it) */
		if (__atomic_load_n(&q->tail, __ATOMIC_RELAXED) != q->tail_local)
			__atomic_store_n(&q->tail, q->tail_local, __ATOMIC_RELEASE);
		if (!(w->sched && _rsp_walk_preload(w)) && !(w->ahead && w->ahead(w, false)))
			relax(&spins);
	}
	o = &q->v[q->tail_local & (OPQ - 1)];
	/* an op published a few ahead, into this CPU's cache (the other wrote it) */
	if (q->head_seen - q->tail_local > OPQ_AHEAD) {
		const char *p = (const char *)&q->v[(q->tail_local + OPQ_AHEAD) & (OPQ - 1)];

		__builtin_prefetch(p);
		__builtin_prefetch(p + sizeof(struct op) - 1);
	}
	return o->kind == OP_END ? NULL : o;
}

static inline void op_done(struct opq *q)
{
	q->tail_local++;
	if (q->tail_local % OPQ_BATCH == 0)
		__atomic_store_n(&q->tail, q->tail_local, __ATOMIC_RELEASE);
}

#endif /* RSP_MODEL_TIMELINE_WALK_PRIVATE_H */
