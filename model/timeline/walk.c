/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Loading's pass 2: the records in time order, in two stages.  The first
 * reads each record (parses a sample, decodes a tracepoint of a small kind;
 * inflates its segment of a compressed stream), feeds the symbolizer the
 * maps, forks and execs, and unwinds each user-stack copy while its record
 * is at hand; the second interns its stack, merges the second copy of an
 * event delivered twice (perf + ftrace, system-wide + target), decodes the
 * other tracepoints by field name and feeds the timeline builder.
 */
#include "timeline/load-private.h"

#include "rsp-perf-format.h"

#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/*
 * How far apart two copies of one event may be stamped.  The target's own
 * sched_switch copy (the per-task event that copies the user stack) is
 * stamped after its callchain is walked: seen here 0 to 110 us after the
 * system-wide copy, mostly under 50.  A genuine repeat of an event comes in
 * two copies of its own, so a wider window pairs the copies, not the repeats.
 */
#define DUP_WINDOW_NS 1000000
#define KERNEL_START 0xffff800000000000ull
#define DUP_RING 32 /* slots per CPU: at most 32 (a mask of them, struct walk.live) */
#define DUP_RAW 256 /* payload bytes a remembered event keeps in place (more: on the heap) */

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

/* A remembered event's payload: its copy, in place or on the heap. */
static const unsigned char *dup_raw(const struct dup *d)
{
	return d->raw_size <= DUP_RAW ? d->raw : d->big;
}

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
 * of that, and the first then waited): the walk of a 26 M record trace of
 * sockets took 3.05 s with 1024, 2.60 s with 8192.
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
	struct one_pass *pass1; /* loading in one pass: the scan's state, or NULL */
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

static void apply(struct walk *w, const struct op *o);

#define RING_CLASSES 4

static unsigned ring_class_of(const struct perf_event_attr *a)
{
	return (a->inherit ? 1u : 0u) | (a->watermark ? 2u : 0u);
}

/* When the ring of @attr's records last delivered one on @cpu, 0 if never. */
static uint64_t ring_since(const struct walk *w, uint32_t cpu, const struct rsp_rattr *attr)
{
	if (cpu >= w->nr_cpus || !attr || !w->ring_last)
		return 0;
	return w->ring_last[(size_t)cpu * RING_CLASSES + w->ring_class[attr->index]];
}


/* An op's unwound user frames: beside the ring, in the slot op_uips_room() gave it. */
static uint64_t *op_uips(struct walk *w, const struct op *o)
{
	return w->uips[o->uslot];
}

/* ---- the ring between the stages ----------------------------------------------------------- */

static inline void relax(unsigned *spins)
{
	if (++*spins > 64)
		sched_yield();
}

static bool one_pass_preload_first(struct walk *w);

/* The first stage: where to write the next op. */
static struct op *op_begin(struct walk *w)
{
	struct opq *q = w->q;
	unsigned spins = 0;

	if (!q)
		return &w->one;
	while (q->head_local - q->tail_seen >= OPQ) {
		q->tail_seen = __atomic_load_n(&q->tail, __ATOMIC_ACQUIRE);
		/* the ring full: a frame the scan comes to next inflated meanwhile */
		if (q->head_local - q->tail_seen >= OPQ && !(w->pass1 && one_pass_preload_first(w)))
			relax(&spins);
	}
	return &q->v[q->head_local & (OPQ - 1)];
}

/*
 * The first stage, about to unwind into op @o (op_begin()'s): the next slot
 * for its frames, once the op that had it last is done.
 */
static void op_uips_room(struct walk *w, struct op *o)
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

static void op_commit(struct walk *w)
{
	struct opq *q = w->q;

	if (!q) {
		apply(w, &w->one);
		return;
	}
	q->head_local++;
	if (q->head_local % OPQ_BATCH == 0 || q->v[(q->head_local - 1) & (OPQ - 1)].kind == OP_END)
		__atomic_store_n(&q->head, q->head_local, __ATOMIC_RELEASE);
}

static bool preload(struct walk *w);
static bool one_pass_preload(struct walk *w);

/* The second stage: the next op, NULL when the first has ended. */
static const struct op *op_next(struct walk *w)
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
		if (!(w->sched && preload(w)) && !(w->pass1 && one_pass_preload(w)))
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

static void op_done(struct opq *q)
{
	q->tail_local++;
	if (q->tail_local % OPQ_BATCH == 0)
		__atomic_store_n(&q->tail, q->tail_local, __ATOMIC_RELEASE);
}

/* The stack id of a sample the first stage read (0: none). */
static uint32_t sample_stack(struct walk *w, const struct op *o)
{
	struct rsp_trace *t = w->t;
	size_t n;
	uint32_t kstack;

	if (!o->callchain_nr && !o->copy)
		return 0;
	if (o->ucopy) {
		/*
		 * An unwound copy of the user stack, joined to the kernel part or
		 * replaced by the fallback on first use; where the kernel copied
		 * nothing, the callchain as below
		 */
		uint32_t user;

		if (o->uempty) {
			n = _rsp_clean_chain(o->callchain, o->callchain_nr, w->cbuf, 512, false);
			user = stacks_intern(&t->ustacks, w->cbuf, n);
		} else {
			user = o->unwound > 0 ? stacks_intern(&t->ustacks, op_uips(w, o),
							      (size_t)o->unwound)
					      : 0;
		}
		n = _rsp_clean_chain(o->callchain, o->callchain_nr, w->cbuf, 512, true);
		kstack = stacks_intern(&t->stacks, w->cbuf, n);
		return stacks_add_pending(&t->stacks, kstack, user, o->uempty);
	}
	n = _rsp_clean_chain(o->callchain, o->callchain_nr, w->cbuf, 512, false);
	return stacks_intern(&t->stacks, w->cbuf, n);
}

/* The better of two stacks for one event: a user-stack copy, with the other as fallback. */
/*
 * @fb becomes the fallback of the user-stack copy @pending; a copy that came
 * without a kernel part (the target's per-task copies carry no callchain) takes
 * the fallback's, so the unwound stack still names the kernel wait.
 */
static void set_fallback(struct rsp_trace *t, uint32_t pending, uint32_t fb)
{
	struct pending_stack *p = &t->stacks.pending.v[pending & ~RSP_STACK_PENDING];
	const struct stack_entry *k = &t->stacks.entries.v[p->kernel];
	const struct stack_entry *f = &t->stacks.entries.v[fb];
	size_t n = 0;

	p->fallback = fb;
	if (k->n || fb >= t->stacks.entries.n)
		return;
	while (n < f->n && t->stacks.frames.v[f->off + n] >= KERNEL_START)
		n++;
	if (n) {
		uint64_t ips[512];

		if (n > 512)
			n = 512;
		memcpy(ips, &t->stacks.frames.v[f->off], n * sizeof(*ips));
		/* p may move: interning grows the entries, not the pending copies */
		p->kernel = stacks_intern(&t->stacks, ips, n);
	}
}

static uint32_t merge_stacks(struct rsp_trace *t, uint32_t a, uint32_t b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	if ((a & RSP_STACK_PENDING) && !(b & RSP_STACK_PENDING)) {
		set_fallback(t, a, b);
		return a;
	}
	if ((b & RSP_STACK_PENDING) && !(a & RSP_STACK_PENDING)) {
		set_fallback(t, b, a);
		return b;
	}
	return a;
}

/* A second copy of an event already seen on this CPU?  Then merge it. */
/* The perf and ftrace copies of one event carry the same payload and pid but
 * may differ in the context bytes of the common header (the preempt count is
 * one higher inside perf's handler), so those are not compared. */
/* Do two decoders read common_pid alike? (Two attrs of one tracepoint do.) */
static bool same_pid_field(const struct rsp_decoder *a, const struct rsp_decoder *b)
{
	const struct rsp_field *x = &a->common_pid, *y = &b->common_pid;

	return a == b || (x->offset == y->offset && x->size == y->size && x->found == y->found &&
			  x->is_signed == y->is_signed && x->is_dynamic == y->is_dynamic &&
			  x->is_relative == y->is_relative);
}

/*
 * @b_ok and @b: @o's common_pid, read once by the caller; @d's was read when it
 * was remembered, by its own attr's decoder (@ddec): used when it reads the
 * field as @dec does.
 */
static bool same_event(const struct rsp_decoder *dec, const struct rsp_decoder *ddec,
		       const struct dup *d, const struct op *o, bool b_ok, uint64_t b)
{
	uint32_t off = dec->payload_off, n;
	uint64_t a;
	bool a_ok;

	if (d->raw_size > o->raw_size + 7 || o->raw_size > d->raw_size + 7)
		return false;
	n = d->raw_size < o->raw_size ? d->raw_size : o->raw_size;
	if (!off || off > n)
		return !memcmp(dup_raw(d), o->raw, n);
	if (same_pid_field(dec, ddec)) {
		a_ok = d->pid_ok;
		a = d->pid;
	} else {
		a_ok = rsp_field_u64(&dec->common_pid, dup_raw(d), d->raw_size, &a);
	}
	if (!a_ok || !b_ok)
		return !memcmp(dup_raw(d), o->raw, n);
	return a == b && !memcmp(dup_raw(d) + off, (const char *)o->raw + off, n - off);
}

/* true if o is the second copy of an event already built; *gained is set
 * when the merged event got its stack from this copy */
static bool merged_dup(struct walk *w, const struct op *o, const struct rsp_decoder *dec,
		       uint32_t stack, bool *gained)
{
	struct dup *ring = w->ring[o->cpu];
	uint64_t b = 0;
	bool b_ok = false, b_read = false;

	/* the live slots in the ring's order: the first that matches, as a scan of all would */
	for (uint32_t live = w->live[o->cpu]; live; live &= live - 1) {
		int k = __builtin_ctz(live);
		struct dup *d = &ring[k];

		if (d->tp != dec->tp_id || d->attr == o->attr)
			continue;
		if ((o->time > d->time ? o->time - d->time : d->time - o->time) > DUP_WINDOW_NS)
			continue;
		if (!b_read) {
			b_ok = rsp_field_u64(&dec->common_pid, o->raw, o->raw_size, &b);
			b_read = true;
		}
		if (!same_event(dec, &w->t->dec[d->attr], d, o, b_ok, b))
			continue;
		d->matched = true;
		w->live[o->cpu] &= ~(1u << k);
		*gained = stack && !d->stack;
		if (stack) {
			uint32_t m = merge_stacks(w->t, d->stack, stack);

			if (m != d->stack) {
				builder_attach_stack(w->b, d->prod, m);
				d->stack = m;
			}
		}
		w->n_dup_merged++;
		return true;
	}
	return false;
}

static void remember(struct walk *w, const struct op *o, uint64_t tp, uint32_t stack)
{
	unsigned k = w->pos[o->cpu]++ % DUP_RING;
	struct dup *d = &w->ring[o->cpu][k];

	d->time = o->time;
	d->tp = tp;
	/* a copy: the record's segment may be dropped before a second copy comes */
	d->raw_size = o->raw_size;
	if (o->raw_size > DUP_RAW && o->raw_size > d->big_cap) {
		unsigned char *p = realloc(d->big, o->raw_size);

		if (p) {
			d->big = p;
			d->big_cap = o->raw_size;
		} else {
			d->raw_size = 0; /* not remembered: a second copy would count again */
		}
	}
	memcpy((void *)dup_raw(d), o->raw, d->raw_size);
	d->attr = o->attr;
	d->stack = stack;
	d->prod = builder_last_product(w->b);
	d->matched = false;
	d->pid_ok = rsp_field_u64(&w->t->dec[o->attr].common_pid, dup_raw(d), d->raw_size, &d->pid);
	if (d->raw_size)
		w->live[o->cpu] |= 1u << k;
	else
		w->live[o->cpu] &= ~(1u << k);
}

static void count_event(struct walk *w, unsigned attr, bool merged, bool stack)
{
	struct attr_count *c = &w->counts[attr];

	if (merged) {
		c->copies_merged++;
		c->with_stack += stack; /* the first copy had none, this one brought it */
		return;
	}
	c->n++;
	c->with_stack += stack;
}

/*
 * The first stage: unwind the user-stack copy of sample @s (as the fast parse
 * read it: with registers and a copy) now, its record at hand (a compressed
 * stream's segment inflated) and the maps those of its time.
 */
static void unwind_copy(struct walk *w, const struct rsp_sample *s, struct op *o)
{
	uint64_t filled = rsp_reader_sample_stack_filled(s);

	o->uempty = !filled;
	o->unwound = -1;
	if (filled && w->sym)
		o->unwound = rsp_sym_unwind(w->sym, (int32_t)o->pid, o->time, s->regs,
					    s->regs_mask, s->stack, filled, op_uips(w, o),
					    MAX_USER_FRAMES);
}

/*
 * The bytes of an event's member of rsp_dev's union when it is small enough
 * for an op to carry (the kinds that make most of a busy trace: sockets,
 * wakeups, runtime); 0: the second stage decodes it.
 */
static size_t dev_size(enum rsp_tp_kind kind)
{
	const struct rsp_dev *e = NULL;

	switch (kind) {
	case TP_WAKING:
	case TP_WAKEUP:
	case TP_WAKEUP_NEW:
		return sizeof(e->u.wake);
	case TP_FORK:
		return sizeof(e->u.fork);
	case TP_EXIT:
		return sizeof(e->u.exit);
	case TP_SOFTIRQ_ENTRY:
	case TP_SOFTIRQ_EXIT:
		return sizeof(e->u.softirq);
	case TP_SOCK_SEND:
	case TP_SOCK_RECV:
	case TP_SK_READY:
		return sizeof(e->u.sock);
	case TP_STAT_RUNTIME:
		return sizeof(e->u.runtime);
	default:
		return 0;
	}
}
_Static_assert(sizeof(((struct rsp_dev *)0)->u.wake) <= sizeof(((struct op *)0)->dev),
	       "an op carries a decoded wakeup");
_Static_assert(sizeof(((struct rsp_dev *)0)->u.fork) <= sizeof(((struct op *)0)->dev),
	       "an op carries a decoded fork");
_Static_assert(sizeof(((struct rsp_dev *)0)->u.sock) <= sizeof(((struct op *)0)->dev),
	       "an op carries a decoded socket event");
_Static_assert(sizeof(((struct rsp_dev *)0)->u.runtime) <= sizeof(((struct op *)0)->dev),
	       "an op carries a decoded runtime");
_Static_assert(sizeof(((struct rsp_dev *)0)->u) >= sizeof(((struct op *)0)->dev),
	       "an op's payload copies to and from the union whole");

/*
 * Ops in the ring from which the first stage decodes the events it may
 * (op_decode()): fewer, and the second stage is ahead (it would wait for
 * ops), so the first leaves them to it.  Which stage decodes an event
 * changes nothing else.
 */
#define OPQ_DECODE_FILL (OPQ / 8)

/* The first stage: is the second far enough behind that it should decode? */
static bool op_decode_here(struct walk *w)
{
	struct opq *q = w->q;

	if (!q)
		return true;
	if (q->head_local >= q->fill_seen) {
		q->tail_seen = __atomic_load_n(&q->tail, __ATOMIC_ACQUIRE);
		q->fill_seen = q->head_local + OPQ_BATCH;
	}
	return q->head_local - q->tail_seen >= OPQ_DECODE_FILL;
}

/*
 * The first stage: decode sample @s into op @o if its event is of a small
 * kind and comes from one attr only (a second copy to merge is compared by
 * its payload: the second stage reads that, and decodes it then), unless the
 * second stage is the less busy one.  The second stage then does not read the
 * payload: the record was read here.
 */
static void op_decode(struct walk *w, const struct rsp_decoder *d, const struct rsp_sample *s,
		      struct op *o)
{
	size_t n = dev_size(d->kind);
	struct rsp_dev ev;

	o->decoded = false;
	if (d->is_sampler || !n || w->multi[o->attr] || !op_decode_here(w))
		return;
	o->decoded = true;
	o->dec_ok = rsp_decode(d, s, &ev);
	if (!o->dec_ok)
		return;
	o->ctx = ev.ctx;
	o->dtid = ev.tid;
	memcpy(o->dev, &ev.u, sizeof(o->dev)); /* a fixed size: moves, not a call */
}

/* The second stage: the event the first decoded. */
static void op_dev(const struct rsp_decoder *d, const struct op *o, struct rsp_dev *ev)
{
	memset(ev, 0, offsetof(struct rsp_dev, u));
	ev->kind = d->kind;
	ev->ctx = o->ctx;
	ev->tid = o->dtid;
	memcpy(&ev->u, o->dev, sizeof(o->dev)); /* past the kind's member: unread */
}

/* The first stage's part of a sample: parse it (and unwind its copy). */
static void walk_sample(struct walk *w, const struct perf_event_header *h, uint64_t off)
{
	struct rsp_sample s;
	const struct rsp_decoder *d;
	struct op *o;
	uint32_t cpu;

	if (rsp_reader_parse_sample_fast(w->rd, h, &s)) {
		w->bad_layout = true;
		return;
	}
	d = &w->dec[s.attr->index];
	cpu = s.has_cpu ? s.cpu : 0;
	if (cpu >= w->nr_cpus || d->is_tracking)
		return;
	w->bytes[s.attr->index] += h->size;
	o = op_begin(w);
	o->kind = OP_SAMPLE;
	o->attr = (uint32_t)s.attr->index;
	o->cpu = cpu;
	o->tid = s.tid;
	o->callchain = s.callchain;
	o->callchain_nr = (uint32_t)(s.callchain_nr < 0xffffffffu ? s.callchain_nr : 0xffffffffu);
	o->copy = s.stack != NULL;
	o->ucopy = s.stack && s.regs && s.stack_size;
	o->time = s.time;
	o->off = off;
	o->raw = s.raw;
	o->raw_size = s.raw ? s.raw_size : 0;
	o->pid = s.pid;
	op_decode(w, d, &s, o);
	if (o->ucopy) {
		op_uips_room(w, o);
		unwind_copy(w, &s, o);
	}
	op_commit(w);
}

/* @o's event, decoded now or by the first stage; false if it cannot be. */
static bool op_event(struct walk *w, const struct op *o, const struct rsp_decoder *d,
		     struct rsp_dev *ev)
{
	if (o->decoded) {
		if (!o->dec_ok)
			return false;
		op_dev(d, o, ev);
		return true;
	}
	w->s.raw = o->raw;
	w->s.raw_size = o->raw_size;
	w->s.tid = o->tid;
	return rsp_decode(d, &w->s, ev);
}

/* The second stage's part of a sample: its stack, merge, decode, build. */
static void build_sample(struct walk *w, const struct op *o)
{
	struct rsp_trace *t = w->t;
	const struct rsp_decoder *d = &t->dec[o->attr];
	uint32_t stack = sample_stack(w, o);
	struct rsp_dev ev;
	bool gained = false;

	if (o->cpu < w->nr_cpus)
		w->ring_last[(size_t)o->cpu * RING_CLASSES + w->ring_class[o->attr]] = o->time;
	if (d->is_sampler) {
		count_event(w, o->attr, false, stack != 0);
		builder_sample(w->b, o->time, o->cpu, o->tid, o->pid, stack, (uint16_t)o->attr);
		return;
	}
	if (d->kind == TP_NONE || d->kind == TP_OTHER) {
		count_event(w, o->attr, false, stack != 0);
		return;
	}
	if (w->multi[o->attr] && o->raw && merged_dup(w, o, d, stack, &gained)) {
		count_event(w, o->attr, true, gained);
		/* the switch's next task, known again after a loss since the first copy */
		if (d->kind == TP_SWITCH && builder_cpu_lost(w->b, o->cpu) && op_event(w, o, d, &ev))
			builder_switch_again(w->b, o->time, o->cpu, &ev);
		return;
	}
	count_event(w, o->attr, false, stack != 0);
	if (!op_event(w, o, d, &ev))
		return;
	w->n_events++;
	builder_event(w->b, o->time, o->cpu, &ev, stack, o->off);
	if (w->multi[o->attr] && o->raw)
		remember(w, o, d->tp_id, stack);
}

/*
 * The first stage: what the symbolizer learns from a record (a process's
 * maps, its fork and exec), before the samples after it are unwound.
 */
static void sym_record(struct walk *w, const struct perf_event_header *h, uint64_t time)
{
	struct rsp_sym *sym = w->sym;

	if (!sym)
		return;
	switch (h->type) {
	case PERF_RECORD_COMM:
		if ((h->misc & PERF_RECORD_MISC_COMM_EXEC) && h->size > sizeof(struct rsp_pf_comm))
			rsp_sym_exec(sym, (int)((const struct rsp_pf_comm *)h)->pid, time);
		break;
	case PERF_RECORD_FORK: {
		const struct rsp_pf_fork *f = (const void *)h;

		if (h->size >= sizeof(*f) && f->pid != f->ppid && f->pid == f->tid)
			rsp_sym_fork(sym, (int)f->pid, (int)f->ppid, time);
		break;
	}
	case PERF_RECORD_MMAP2: {
		const struct rsp_pf_mmap2 *m = (const void *)h;
		char path[4096];
		size_t room;

		if (h->size <= sizeof(*m))
			break;
		room = h->size - sizeof(*m);
		if (room > sizeof(path) - 1)
			room = sizeof(path) - 1;
		memcpy(path, m->filename, room);
		path[room] = '\0';
		rsp_sym_add_map(sym, (int)m->pid, time, m->start, m->len, m->pgoff, m->prot,
				path,
				(h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) ? m->build_id : NULL,
				(h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) ? m->build_id_size : 0);
		break;
	}
	case PERF_RECORD_MMAP: {
		const struct rsp_pf_mmap *m = (const void *)h;
		char path[4096];
		size_t room;

		if (h->size <= sizeof(*m) || m->pid == (uint32_t)-1)
			break; /* the kernel's map: kallsyms covers it */
		room = h->size - sizeof(*m);
		if (room > sizeof(path) - 1)
			room = sizeof(path) - 1;
		memcpy(path, m->filename, room);
		path[room] = '\0';
		rsp_sym_add_map(sym, (int)m->pid, time, m->start, m->len, m->pgoff,
				PROT_EXEC, path, NULL, 0);
		break;
	}
	default:
		break;
	}
}

/* The first stage: a record. */
static void walk_record(struct walk *w, const struct idx *e)
{
	const struct perf_event_header *h = rsp_reader_record_at(w->rd, e->off);
	struct op *o;

	if (!h)
		return;
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		walk_sample(w, h, e->off);
		break;
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_MMAP:
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
		sym_record(w, h, e->time);
		o = op_begin(w);
		o->kind = OP_RECORD;
		o->time = e->time;
		o->off = e->off;
		op_commit(w);
		break;
	default:
		break;
	}
}

/* The second stage: a record other than a sample. */
static void build_record(struct walk *w, const struct idx *e)
{
	struct rsp_trace *t = w->t;
	const struct perf_event_header *h = rsp_reader_record_at(t->reader, e->off);
	struct rsp_sample s;

	if (!h)
		return;
	switch (h->type) {
	case PERF_RECORD_COMM: {
		const struct rsp_pf_comm *c = (const void *)h;
		char comm[32];
		size_t room = h->size - sizeof(*c);

		if (h->size <= sizeof(*c))
			break;
		memcpy(comm, c->comm, room < sizeof(comm) - 1 ? room : sizeof(comm) - 1);
		comm[room < sizeof(comm) - 1 ? room : sizeof(comm) - 1] = '\0';
		builder_comm(w->b, e->time, c->pid, c->tid, comm,
			     h->misc & PERF_RECORD_MISC_COMM_EXEC);
		break;
	}
	case PERF_RECORD_FORK: {
		const struct rsp_pf_fork *f = (const void *)h;

		if (h->size < sizeof(*f))
			break;
		builder_fork(w->b, e->time, f->pid, f->ppid, f->tid, f->ptid);
		break;
	}
	case PERF_RECORD_EXIT: {
		const struct rsp_pf_fork *f = (const void *)h;

		if (h->size < sizeof(*f))
			break;
		builder_exit(w->b, e->time, f->pid, f->tid);
		break;
	}
	case PERF_RECORD_LOST: {
		const struct rsp_pf_lost *l = (const void *)h;
		uint32_t cpu;

		if (h->size < sizeof(*l) || rsp_reader_parse_id(t->reader, h, &s))
			break;
		cpu = s.has_cpu ? s.cpu : 0;
		/* a ring of the target's own (rsp record's: inherited events beside
		 * system-wide switches): its copies and samples, not the timeline.
		 * perf record sets inherit on every attr, -a too: never taken so */
		if (w->wide_switch && s.attr && s.attr->attr.inherit)
			builder_lost_ring(w->b, e->time, cpu, (int32_t)s.attr->index, l->lost,
					  ring_since(w, cpu, s.attr));
		else
			builder_lost(w->b, e->time, cpu, l->lost, ring_since(w, cpu, s.attr));
		break;
	}
	case PERF_RECORD_LOST_SAMPLES: {
		const struct rsp_pf_lost_samples *l = (const void *)h;
		bool begin = h->misc & RSP_PF_MISC_SHED_BEGIN;
		const char *name;

		if (h->size < sizeof(*l) || rsp_reader_parse_id(t->reader, h, &s) || !s.attr)
			break;
		/* one event type: the timeline stays known, unless it is the switches */
		name = t->dec[s.attr->index].name;
		if (name[0] && strcmp(name, "sched:sched_switch"))
			builder_lost_type(w->b, e->time, s.has_cpu ? s.cpu : 0,
					  (int32_t)s.attr->index, l->lost, begin);
		else if (!begin)
			builder_lost(w->b, e->time, s.has_cpu ? s.cpu : 0, l->lost,
				     ring_since(w, s.has_cpu ? s.cpu : 0, s.attr));
		break;
	}
	default:
		break;
	}
}

/* The second stage: one op. */
static void apply(struct walk *w, const struct op *o)
{
	if (o->kind == OP_SAMPLE) {
		build_sample(w, o);
	} else if (o->kind == OP_RECORD) {
		struct idx e = { o->time, o->off };

		build_record(w, &e);
	} else if (o->kind == OP_DROP) {
		rsp_reader_segment_drop(w->rd, o->off);
	}
}

#define SEG_LOADING 1
#define SEG_HELD 2
#define SEG_FAILED 3
/* records: the second stage inflates the segments the first needs this far ahead */
#define PRELOAD_AHEAD 8192

/* Inflate segment @s unless another thread does or did; its state after. */
static uint8_t seg_take(struct walk *w, size_t s, int who)
{
	uint8_t st = 0;

	if (__atomic_compare_exchange_n(&w->seg_state[s], &st, SEG_LOADING, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		st = rsp_reader_segment_load(w->rd, s, who) ? SEG_FAILED : SEG_HELD;
		__atomic_store_n(&w->seg_state[s], st, __ATOMIC_RELEASE);
	}
	return st;
}

/*
 * The second stage, waiting for ops: inflate the next segment the first
 * stage will need (if it is near), so that the first, the busier one where
 * a stream is compressed, finds it ready.  False if there is none to do.
 */
static bool preload(struct walk *w)
{
	size_t s;

	if (w->sched_next >= w->n_sched)
		return false;
	s = w->sched[w->sched_next];
	if (w->seg_first[s] > __atomic_load_n(&w->first_at, __ATOMIC_RELAXED) + PRELOAD_AHEAD)
		return false;
	w->sched_next++;
	seg_take(w, s, 1);
	return true;
}

/*
 * The first stage: record @i, its segment of the stream (if any) inflated
 * first (unless the second did), and dropped after it if it is the
 * segment's last.
 */
static void walk_one(struct walk *w, size_t i)
{
	const struct idx *e = &w->idx[i];
	long s = rsp_reader_segment_of(e->off);
	struct op *o;
	uint8_t st;

	if (s < 0) {
		walk_record(w, e);
		return;
	}
	if (i % 256 == 0)
		__atomic_store_n(&w->first_at, i, __ATOMIC_RELAXED);
	st = __atomic_load_n(&w->seg_state[s], __ATOMIC_ACQUIRE);
	if (st != SEG_HELD && st != SEG_FAILED) {
		unsigned spins = 0;

		st = seg_take(w, (size_t)s, 0);
		while (st == SEG_LOADING) {
			relax(&spins); /* the second stage is inflating it */
			st = __atomic_load_n(&w->seg_state[s], __ATOMIC_ACQUIRE);
		}
	}
	if (st == SEG_FAILED) {
		w->seg_failed++;
		return;
	}
	walk_record(w, e);
	if (w->seg_last[s] == i + 1) {
		o = op_begin(w);
		o->kind = OP_DROP;
		o->off = (uint64_t)s;
		op_commit(w);
	}
}

/* The first stage, on its own thread: every record, then OP_END. */
static void *first_stage(void *arg)
{
	struct walk *w = arg;
	struct op *o;

	for (size_t i = 0; i < w->n_idx; i++) {
		if (i % 4096 == 0 && __atomic_load_n(&w->q->stop, __ATOMIC_RELAXED))
			break;
		if (i + PREFETCH_AHEAD < w->n_idx)
			rsp_reader_prefetch(w->rd, w->idx[i + PREFETCH_AHEAD].off);
		walk_one(w, i);
		if (i % IDX_RELEASE == IDX_RELEASE - 1)
			_rsp_release(w->idx, (i + 1) * sizeof(*w->idx));
	}
	o = op_begin(w);
	o->kind = OP_END;
	op_commit(w);
	return NULL;
}

/* The walk's share of loading's progress, @i of @n records on; false if cancelled. */
static bool walk_progress(const struct rsp_trace_opts *o, size_t i, size_t n)
{
	if (!o)
		return true;
	if (_rsp_load_cancelled(o))
		return false;
	if (o->progress)
		o->progress(1 / 3.0 + 2 / 3.0 * (i < n ? i : n) / n, o->progress_ctx);
	return true;
}

static int count_index(struct rsp_trace *t, const char *name)
{
	struct event_count c;

	for (size_t i = 0; i < t->counts.n; i++)
		if (!strcmp(t->counts.v[i].name, name))
			return (int)i;
	memset(&c, 0, sizeof(c));
	snprintf(c.name, sizeof(c.name), "%s", name);
	if (!vec_push(&t->counts, c))
		return -ENOMEM;
	return (int)(t->counts.n - 1);
}

/* @n bytes rounded up to whole cache lines (aligned_alloc's size), one at least */
static size_t cache_lines(size_t n)
{
	return (n / 64 + 1) * 64;
}

/* Every attr's decoder, and which tracepoints several attrs deliver (copies to merge). */
static int decoders_init(struct walk *w)
{
	struct rsp_trace *t = w->t;
	size_t na = rsp_reader_n_attrs(t->reader);

	t->dec = calloc(na, sizeof(*t->dec));
	w->multi = calloc(na, sizeof(*w->multi));
	w->count_of = calloc(na, sizeof(*w->count_of));
	w->ring_class = calloc(na ? na : 1, sizeof(*w->ring_class));
	/* each stage's counts on cache lines of their own */
	w->bytes = aligned_alloc(64, cache_lines(na * sizeof(*w->bytes)));
	w->counts = aligned_alloc(64, cache_lines(na * sizeof(*w->counts)));
	if (!t->dec || !w->multi || !w->count_of || !w->bytes || !w->counts || !w->ring_class)
		return -ENOMEM;
	memset(w->bytes, 0, na * sizeof(*w->bytes));
	memset(w->counts, 0, na * sizeof(*w->counts));
	for (size_t i = 0; i < na; i++) {
		int ci;

		rsp_decoder_init(&t->dec[i], rsp_reader_attr(t->reader, i), t->td.tep);
		ci = count_index(t, t->dec[i].name);
		if (ci < 0)
			return ci;
		w->count_of[i] = (uint32_t)ci;
		t->recorded[t->dec[i].kind] = true;
		if (t->dec[i].kind == TP_WAKING)
			t->have_waking = true;
		if (t->dec[i].kind == TP_SWITCH && !rsp_reader_attr(t->reader, i)->attr.inherit)
			w->wide_switch = true;
		w->ring_class[i] = (uint8_t)ring_class_of(&rsp_reader_attr(t->reader, i)->attr);
	}
	for (size_t i = 0; i < na; i++)
		for (size_t j = 0; j < na; j++)
			if (i != j && t->dec[i].tp_id && t->dec[i].tp_id == t->dec[j].tp_id &&
			    rsp_reader_attr(t->reader, i)->attr.type == PERF_TYPE_TRACEPOINT &&
			    rsp_reader_attr(t->reader, j)->attr.type == PERF_TYPE_TRACEPOINT)
				w->multi[i] = true;
	return 0;
}

/* Which segments of the stream each record needs: held from their first record to their last. */
static int segments_plan(struct walk *w, size_t n_segs)
{
	w->seg_last = calloc(n_segs, sizeof(*w->seg_last));
	w->seg_state = calloc(n_segs, sizeof(*w->seg_state));
	w->seg_first = malloc(n_segs * sizeof(*w->seg_first));
	w->sched = malloc(n_segs * sizeof(*w->sched));
	if (!w->seg_last || !w->seg_state || !w->seg_first || !w->sched)
		return -ENOMEM;
	for (size_t s = 0; s < n_segs; s++)
		w->seg_first[s] = SIZE_MAX;
	for (size_t i = 0; i < w->n_idx; i++) {
		long s = rsp_reader_segment_of(w->idx[i].off);

		if (s < 0 || (size_t)s >= n_segs)
			continue;
		w->seg_last[s] = i + 1;
		if (w->seg_first[s] == SIZE_MAX) {
			w->seg_first[s] = i;
			w->sched[w->n_sched++] = (uint32_t)s; /* in order of first use */
		}
	}
	return 0;
}

/* Each thread's totals, once: rsp_trace_thread() is asked for them per node and sleep. */
static void thread_totals(struct rsp_trace *t)
{
	for (size_t i = 0; i < t->threads.n; i++) {
		struct thread *th = &t->threads.v[i];

		for (size_t k = 0; k < th->slices.n; k++) {
			const struct slice *sl = &th->slices.v[k];
			uint64_t d = sl->end - sl->start;

			if (sl->kind == SLICE_RUN)
				th->run_ns += d;
			else if (sl->kind == SLICE_SLEEP)
				th->sleep_ns += d;
			else
				th->unknown_ns += d;
		}
	}
}

/* The walk's state: the decoders, the copies' rings, the builder, the segments' states. */
static int walk_init(struct walk *w, struct rsp_trace *t)
{
	int ret = decoders_init(w);

	if (ret)
		return ret;
	w->rd = t->reader;
	w->dec = t->dec;
	w->sym = t->sym;
	w->nr_cpus = t->nr_cpus;
	w->ring = calloc(t->nr_cpus, sizeof(*w->ring));
	w->pos = calloc(t->nr_cpus, sizeof(*w->pos));
	w->live = calloc(t->nr_cpus, sizeof(*w->live));
	w->ring_last = calloc((size_t)t->nr_cpus * RING_CLASSES + 1, sizeof(*w->ring_last));
	w->b = builder_new(t);
	if (!w->ring || !w->pos || !w->live || !w->ring_last || !w->b)
		return -ENOMEM;
	return 0;
}

/* The ring between the stages (@q), for two threads: false if there is no memory for it. */
static bool walk_queue(struct walk *w, struct opq *q)
{
	q->v = malloc(OPQ * sizeof(*q->v));
	w->uips = malloc(OPQ_UIPS * sizeof(*w->uips));
	q->uop = calloc(OPQ_UIPS, sizeof(*q->uop));
	if (q->v && w->uips && q->uop) {
		w->q = q;
		return true;
	}
	free(q->v);
	free(w->uips);
	free(q->uop);
	q->v = NULL;
	w->uips = NULL;
	q->uop = NULL;
	return false;
}

/* After the last op: the timeline finished, the counts into t, the walk's warnings. */
static void walk_done(struct walk *w)
{
	struct rsp_trace *t = w->t;

	builder_finish(w->b);
	for (size_t i = 0; i < rsp_reader_n_attrs(t->reader); i++) {
		struct event_count *c = &t->counts.v[w->count_of[i]];

		c->n += w->counts[i].n;
		c->copies_merged += w->counts[i].copies_merged;
		c->with_stack += w->counts[i].with_stack;
		c->bytes += w->bytes[i];
	}
	t->n_events += w->n_events;
	t->n_dup_merged += w->n_dup_merged;
	thread_totals(t);
	if (w->seg_failed)
		trace_warn(t, "%zu records skipped: their part of the compressed trace could not be "
			      "inflated again (out of memory)",
			   w->seg_failed);
	if (w->bad_layout)
		trace_warn(t, "records that do not fit their event's layout were skipped");
}

static void walk_free(struct walk *w, struct opq *q, size_t n_segs)
{
	struct rsp_trace *t = w->t;

	builder_free(w->b);
	w->b = NULL;
	for (size_t i = 0; i < n_segs; i++)
		rsp_reader_segment_drop(t->reader, i); /* a cancelled walk's */
	rsp_reader_segments_trim(t->reader);
	free(w->seg_last);
	free(w->seg_state);
	free(w->seg_first);
	free(w->seg_left);
	free(w->sched);
	free(q->v);
	free(q->uop);
	free(w->uips);
	for (size_t c = 0; w->ring && c < t->nr_cpus; c++)
		for (int k = 0; k < DUP_RING; k++)
			free(w->ring[c][k].big);
	free(w->ring);
	free(w->pos);
	free(w->live);
	free(w->ring_last);
	free(w->ring_class);
	free(w->multi);
	free(w->count_of);
	free(w->counts);
	free(w->bytes);
}

int _rsp_walk(struct rsp_trace *t, const struct rsp_trace_opts *o, struct idx *idx, size_t n,
	      char *err, size_t errlen)
{
	struct walk w = { .t = t, .idx = idx, .n_idx = n };
	pthread_t first;
	struct opq q = { 0 };
	bool piped = false;
	size_t n_segs = 0;
	int ret;

	ret = walk_init(&w, t);
	if (ret)
		goto out;
	n_segs = rsp_reader_n_segments(t->reader);
	if (n_segs && (ret = segments_plan(&w, n_segs)))
		goto out;
	if (n >= PIPELINE_MIN && _rsp_usable_cpus() > 1 && walk_queue(&w, &q)) {
		piped = pthread_create(&first, NULL, first_stage, &w) == 0;
		if (!piped) {
			free(q.v);
			free(w.uips);
			free(q.uop);
			q.v = NULL;
			w.uips = NULL;
			q.uop = NULL;
			w.q = NULL;
		}
	}
	if (!piped && !(w.uips = malloc(sizeof(*w.uips)))) {
		ret = -ENOMEM;
		goto out;
	}
	if (piped) {
		const struct op *op;
		bool cancel = false;
		size_t i = 0;

		while ((op = op_next(&w))) {
			if (++i % PROGRESS_EVERY == 0 && !cancel && !walk_progress(o, i, n)) {
				cancel = true;
				__atomic_store_n(&q.stop, 1, __ATOMIC_RELAXED);
			}
			if (!cancel)
				apply(&w, op);
			op_done(&q);
		}
		pthread_join(first, NULL);
		if (cancel) {
			snprintf(err, errlen, "loading cancelled");
			ret = -ECANCELED;
			goto out;
		}
	} else {
		for (size_t i = 0; i < n; i++) {
			if (i % PROGRESS_EVERY == PROGRESS_EVERY - 1 && !walk_progress(o, i, n)) {
				snprintf(err, errlen, "loading cancelled");
				ret = -ECANCELED;
				goto out;
			}
			walk_one(&w, i);
			if (i % IDX_RELEASE == IDX_RELEASE - 1)
				_rsp_release(idx, (i + 1) * sizeof(*idx));
		}
	}
	walk_done(&w);
out:
	walk_free(&w, &q, n_segs);
	return ret;
}

/* ---- loading in one pass ---------------------------------------------------------------- */

/*
 * A stream in many frames (rsp record's) is loaded in one pass: the scan
 * inflates each frame once and holds it; its records go into a window sorted
 * by time (window.c), and those it gives are walked at once, on this thread
 * (the first stage), while a second thread builds (the second stage) and,
 * waiting for ops, inflates the frames the scan comes to next.  Each frame is
 * then inflated once, not in the scan and again in the walk.  The bet
 * window.c makes can be lost (a record older than one walked, or too many
 * frames held): the load then starts again in two passes (-ERESTART), as it
 * does when the stream changes how records read after its first frame (an
 * attr, tracing data...) or a record names a CPU the header did not count.
 */
#define ONE_PASS_MIN_SEGMENTS 64 /* fewer frames: two passes (as the scan's second thread) */
#define ONE_PASS_AHEAD 4 /* frames the second stage inflates ahead of the scan, at most */
#define ONE_PASS_MAX_HELD (256ull << 20) /* bytes of frames held at once, at most */

/*
 * The records of a frame the second stage read ahead, for the scan to take in
 * whole: the window's entries (one_pass_entry()'s, an untimed record at the
 * time of the last timed one before it) and what the window and the scan's
 * checks need of them
 */
struct pre_slot {
	size_t seg; /* the frame, SIZE_MAX: none */
	VEC(struct idx) ent;
	uint64_t records, misfits;
	uint64_t min_time, max_time, min_nonzero; /* of the entries (min_time: UINT64_MAX) */
	uint64_t last_nonzero; /* the last record's nonzero time, 0: none */
	uint32_t max_cpu; /* the highest CPU a record named (< _RSP_MAX_CPUS), if any_cpu */
	bool any_cpu;
	bool lead_untimed; /* an untimed record before any timed one: its time is the scan's */
	bool plain; /* false: a record not plain in it, the scan reads it */
};

#define ONE_PASS_SLOTS 8 /* > ONE_PASS_AHEAD + 1: a slot is free again once the scan took it */

struct one_pass {
	struct rsp_trace *t;
	const struct rsp_trace_opts *o;
	struct setup *su;
	struct walk w;
	struct opq q;
	pthread_t second;
	bool second_running, begun;
	struct window win;
	size_t n_segs;
	bool group_open; /* entries added since the last group closed */
	uint64_t last_time; /* an untimed record's: the one before it */
	uint64_t n, size; /* records seen, file size: progress */
	int stop; /* -ERESTART: a record that defines the stream came (the hook's) */
	size_t scan_at; /* atomic: the frame the scan is at */
	size_t pre_next; /* the second stage's: the next frame to inflate ahead */
	size_t pre_next_first; /* the scan's, while it waits (for a frame, for room in the ring) */
	uint64_t held; /* bytes of frames held, the scan's count */
	uint32_t max_cpu; /* the highest CPU a record named */
	bool last_held; /* the last frame held: the scan is past it, at the stream's tail */
	VEC(char *) setup_warnings; /* the set-up's, told after the scan's (as in two passes) */
	struct pre_slot slot[ONE_PASS_SLOTS]; /* frame i's in slot i % ONE_PASS_SLOTS */
};

_Static_assert(sizeof(((struct one_pass *)0)->setup_warnings) ==
		       sizeof(((struct rsp_trace *)0)->warnings),
	       "the set-up's warnings and the trace's: one VEC of strings");

bool _rsp_one_pass_fits(const struct rsp_trace *t)
{
	return rsp_reader_n_segments(t->reader) >= ONE_PASS_MIN_SEGMENTS &&
	       rsp_reader_n_segments(t->reader) < UINT32_MAX && _rsp_usable_cpus() > 1;
}

struct pre_ctx {
	struct rsp_reader *rd;
	struct pre_slot *sl;
};

/* rsp_reader_segment_records()'s callback on the second stage: a record's entry. */
static int pre_record(void *ctx, const struct rsp_record *rec)
{
	struct pre_slot *sl = ((struct pre_ctx *)ctx)->sl;
	struct rsp_sample s;
	struct idx e;
	int ret = _rsp_record_time(((struct pre_ctx *)ctx)->rd, rec->h, &s);

	if (ret > 0)
		return 0;
	if (ret) {
		sl->misfits++;
		return 0;
	}
	if (s.has_cpu && s.cpu < _RSP_MAX_CPUS && (!sl->any_cpu || s.cpu > sl->max_cpu)) {
		sl->max_cpu = s.cpu;
		sl->any_cpu = true;
	}
	e.time = s.has_time ? s.time : sl->last_nonzero;
	e.off = rec->offset;
	if (!s.has_time && !sl->last_nonzero)
		sl->lead_untimed = true;
	if (s.has_time && s.time)
		sl->last_nonzero = s.time;
	if (e.time < sl->min_time)
		sl->min_time = e.time;
	if (e.time > sl->max_time)
		sl->max_time = e.time;
	if (e.time && (!sl->min_nonzero || e.time < sl->min_nonzero))
		sl->min_nonzero = e.time;
	return vec_push(&sl->ent, e) ? 0 : -ENOMEM;
}

/*
 * The second stage, a frame inflated ahead: its records read too (what the
 * scan's callback reads of each: one_pass_record()), into its slot, so that
 * the scan, the busier stage, only takes them in.
 */
static void pre_read(struct one_pass *op, size_t s)
{
	struct pre_slot *sl = &op->slot[s % ONE_PASS_SLOTS];
	struct pre_ctx pc = { op->w.rd, sl };
	int ret;

	sl->ent.n = 0;
	sl->misfits = 0;
	sl->min_time = UINT64_MAX;
	sl->max_time = sl->min_nonzero = sl->last_nonzero = 0;
	sl->max_cpu = 0;
	sl->any_cpu = sl->lead_untimed = false;
	ret = rsp_reader_segment_records(op->w.rd, s, pre_record, &pc, &sl->records);
	/* not plain, or no memory: the scan reads the frame itself */
	sl->plain = ret == 0;
	sl->seg = s;
}

/*
 * Inflate (and read) the frame the scan comes to next, not yet taken, from
 * *@next on, at most ONE_PASS_AHEAD past the scan: by the second stage waiting
 * for ops (@who 1), or by the scan itself waiting for a frame the second stage
 * is inflating or for room in the ring (@who 0, between frames).  Whoever marks
 * a frame SEG_LOADING first inflates it, into its slot.  False if there is none
 * to inflate.
 */
static bool preload_ahead(struct walk *w, size_t *next, int who)
{
	struct one_pass *op = w->pass1;
	size_t at = __atomic_load_n(&op->scan_at, __ATOMIC_ACQUIRE), s = *next;
	uint8_t st = 0;

	if (s <= at)
		s = at + 1;
	if (s >= op->n_segs || s > at + ONE_PASS_AHEAD)
		return false;
	*next = s + 1;
	if (__atomic_compare_exchange_n(&w->seg_state[s], &st, SEG_LOADING, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		st = rsp_reader_segment_hold(w->rd, s, who) ? SEG_FAILED : SEG_HELD;
		if (st == SEG_HELD)
			pre_read(op, s);
		__atomic_store_n(&w->seg_state[s], st, __ATOMIC_RELEASE);
	}
	return true;
}

static bool one_pass_preload(struct walk *w)
{
	return preload_ahead(w, &w->pass1->pre_next, 1);
}

static bool one_pass_preload_first(struct walk *w)
{
	return preload_ahead(w, &w->pass1->pre_next_first, 0);
}

/* The second stage's thread: every op, until OP_END. */
static void *second_stage(void *arg)
{
	struct walk *w = arg;
	const struct op *o;

	while ((o = op_next(w))) {
		if (!__atomic_load_n(&w->q->stop, __ATOMIC_RELAXED))
			apply(w, o);
		op_done(w->q);
	}
	return NULL;
}

/* The walk begins (the first entries are given): the set-up done, the second stage started. */
static int one_pass_begin(struct one_pass *op)
{
	struct rsp_trace *t = op->t;
	const struct rsp_reader_info *in = rsp_reader_info(t->reader);
	struct walk *w = &op->w;
	int ret;

	/*
	 * What the walk needs of the stream's header records: the attrs, and
	 * every CPU it names counted by the header (t->nr_cpus as two passes
	 * make it, which the walk's rings and the builder are sized by)
	 */
	if (!rsp_reader_n_attrs(t->reader) || !in->nr_cpus_avail || in->nr_cpus_avail >= _RSP_MAX_CPUS ||
	    op->max_cpu >= in->nr_cpus_avail || in->unfinished || rsp_reader_read_tail(t->reader))
		return -ERESTART;
	t->nr_cpus = in->nr_cpus_avail;
	op->begun = true;
	/* the trace's start is known (window.c); its end only after the scan */
	t->t_start = op->win.min_nonzero;
	/* the set-up's warnings come after the scan's, as in two passes: the scan's so far
	 * aside while it runs, then back in t, the set-up's aside (the same VEC type) */
	memcpy(&op->setup_warnings, &t->warnings, sizeof(t->warnings));
	memset(&t->warnings, 0, sizeof(t->warnings));
	ret = _rsp_setup_finish(op->su);
	{
		unsigned char tmp[sizeof(t->warnings)];

		memcpy(tmp, &t->warnings, sizeof(tmp));
		memcpy(&t->warnings, &op->setup_warnings, sizeof(tmp));
		memcpy(&op->setup_warnings, tmp, sizeof(tmp));
	}
	if (ret || (ret = walk_init(w, t)))
		return ret;
	builder_end_later(w->b);
	if (walk_queue(w, &op->q)) {
		op->second_running = pthread_create(&op->second, NULL, second_stage, w) == 0;
		if (!op->second_running) {
			free(op->q.v);
			free(w->uips);
			free(op->q.uop);
			op->q.v = NULL;
			w->uips = NULL;
			op->q.uop = NULL;
			w->q = NULL;
		}
	}
	if (!op->second_running && !(w->uips = malloc(sizeof(*w->uips))))
		return -ENOMEM;
	return 0;
}

/* The first stage: an entry the window gave (walk_one()'s part, a frame dropped after its last). */
static void one_pass_walk(struct one_pass *op, const struct idx *e)
{
	struct walk *w = &op->w;
	long s = rsp_reader_segment_of(e->off);
	uint8_t st;

	if (s < 0 || (size_t)s >= op->n_segs) {
		walk_record(w, e);
		return;
	}
	st = __atomic_load_n(&w->seg_state[s], __ATOMIC_ACQUIRE);
	if (st != SEG_HELD && st != SEG_FAILED) {
		/* a frame the scan read itself (the first, a broken one): inflated again */
		unsigned spins = 0;

		st = seg_take(w, (size_t)s, 0);
		while (st == SEG_LOADING) {
			relax(&spins);
			st = __atomic_load_n(&w->seg_state[s], __ATOMIC_ACQUIRE);
		}
		if (st == SEG_HELD)
			op->held += rsp_reader_segment_size(w->rd, (size_t)s);
	}
	if (st == SEG_FAILED)
		w->seg_failed++;
	else
		walk_record(w, e);
	if (--w->seg_left[s] == 0 && st == SEG_HELD) {
		struct op *o = op_begin(w);

		o->kind = OP_DROP;
		o->off = (uint64_t)s;
		op_commit(w);
		op->held -= rsp_reader_segment_size(w->rd, (size_t)s);
	}
}

/* A group of entries ends (a frame, or the file): what the window gives, walked. */
static int one_pass_close(struct one_pass *op, bool last)
{
	size_t first, n;
	int ret;

	if (!op->group_open && !last)
		return 0;
	op->group_open = false;
	ret = _rsp_window_close(&op->win, last, &first, &n);
	if (ret)
		return ret;
	if ((n || last) && !op->begun && (ret = one_pass_begin(op)))
		return ret;
	for (size_t k = first; k < first + n; k++) {
		const struct idx *e = &op->win.pend.v[k];

		if (k + PREFETCH_AHEAD < first + n)
			rsp_reader_prefetch(op->w.rd, op->win.pend.v[k + PREFETCH_AHEAD].off);
		one_pass_walk(op, e);
	}
	if (op->held > ONE_PASS_MAX_HELD)
		return -ERESTART;
	return 0;
}

/* @n more records seen, the last at @off: progress now and then; -ECANCELED if cancelled. */
static int one_pass_count(struct one_pass *op, uint64_t n, uint64_t off)
{
	uint64_t before = op->n, at;

	op->n += n;
	if (op->n / PROGRESS_EVERY == before / PROGRESS_EVERY || !op->o)
		return 0;
	if (_rsp_load_cancelled(op->o))
		return -ECANCELED;
	at = rsp_reader_file_offset(op->t->reader, off);
	if (op->o->progress && op->size)
		op->o->progress(at < op->size ? (double)at / op->size : 1.0, op->o->progress_ctx);
	return 0;
}

/* A record of the scan into the window: its time (@has_time) and CPU (@has_cpu) at @off. */
static int one_pass_entry(struct one_pass *op, uint64_t time, bool has_time, uint32_t cpu,
			  bool has_cpu, uint64_t off)
{
	long seg;
	int ret;

	if (has_cpu && cpu < _RSP_MAX_CPUS && cpu >= op->max_cpu) {
		op->max_cpu = cpu;
		if (op->begun && cpu >= op->t->nr_cpus)
			return -ERESTART; /* a CPU the header did not count: t->nr_cpus would differ */
	}
	ret = _rsp_window_add(&op->win, has_time ? time : op->last_time, off);
	if (ret)
		return ret;
	if (has_time && time)
		op->last_time = time;
	op->group_open = true;
	seg = rsp_reader_segment_of(off);
	if (seg >= 0 && (size_t)seg < op->n_segs)
		op->w.seg_left[seg]++;
	return 0;
}

/* A record that does not fit its event's layout, skipped (as the two passes' scan does). */
static void one_pass_misfit(struct rsp_trace *t)
{
	t->n_records++;
	trace_warn(t, "records that do not fit their event's layout were skipped");
}

/* The scan's callback: a record into the window (as _rsp_index_record() into the index). */
static int one_pass_record(void *ctx, const struct rsp_record *rec)
{
	struct one_pass *op = ctx;
	struct rsp_sample s;
	int ret;

	if (op->stop)
		return op->stop;
	if ((ret = one_pass_count(op, 1, rec->offset)))
		return ret;
	ret = _rsp_record_time(op->t->reader, rec->h, &s);
	if (ret > 0)
		return 0;
	if (ret) {
		one_pass_misfit(op->t);
		return 0;
	}
	return one_pass_entry(op, s.time, s.has_time, s.cpu, s.has_cpu, rec->offset);
}

/* The records of frame @i the second stage read (pre_read()), taken in as the callback would. */
static int one_pass_take(struct one_pass *op, const struct pre_slot *sl, size_t i,
			 uint64_t *n_records)
{
	int ret;

	if (sl->lead_untimed)
		return -EAGAIN; /* the time before it is the scan's: it reads the frame */
	/* one_pass_entry()'s checks and counts, for the frame's entries at once */
	if (sl->any_cpu && sl->max_cpu >= op->max_cpu) {
		op->max_cpu = sl->max_cpu;
		if (op->begun && sl->max_cpu >= op->t->nr_cpus)
			return -ERESTART;
	}
	if (sl->ent.n) {
		ret = _rsp_window_add_many(&op->win, sl->ent.v, sl->ent.n, sl->min_time,
					   sl->max_time, sl->min_nonzero);
		if (ret)
			return ret;
		if (sl->last_nonzero)
			op->last_time = sl->last_nonzero;
		op->group_open = true;
		op->w.seg_left[i] += sl->ent.n;
	}
	for (uint64_t k = 0; k < sl->misfits; k++)
		one_pass_misfit(op->t);
	*n_records = sl->records;
	return one_pass_count(op, sl->records, RSP_SEG_BIT | (uint64_t)i << 32);
}

/* rsp_scan_hooks.segment: frame @i inflated once, held, its records into the window. */
static int one_pass_segment(void *ctx, size_t i, uint64_t *n_records)
{
	struct one_pass *op = ctx;
	struct walk *w = &op->w;
	struct pre_slot *sl;
	uint8_t st = 0;
	int ret;

	if (op->stop)
		return op->stop;
	if (_rsp_load_cancelled(op->o))
		return -ECANCELED; /* asked at every frame, not only with progress */
	/* the group before (a frame the scan read, records between frames) ends */
	if ((ret = one_pass_close(op, false)))
		return ret;
	if (!op->begun)
		_rsp_setup_start(op->su); /* once the tracing data is read */
	if (i == 0 || i >= op->n_segs)
		return 0; /* the first frame: the stream's header records, read by the scan */
	__atomic_store_n(&op->scan_at, i, __ATOMIC_RELEASE);
	if (__atomic_compare_exchange_n(&w->seg_state[i], &st, SEG_LOADING, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		st = rsp_reader_segment_hold(w->rd, i, 0) ? SEG_FAILED : SEG_HELD;
		__atomic_store_n(&w->seg_state[i], st, __ATOMIC_RELEASE);
	} else {
		unsigned spins = 0;

		/* the second stage is inflating it: the frames after it inflated meanwhile */
		while ((st = __atomic_load_n(&w->seg_state[i], __ATOMIC_ACQUIRE)) == SEG_LOADING)
			if (!one_pass_preload_first(w))
				relax(&spins);
	}
	if (st == SEG_FAILED) {
		/* broken, cut, or no memory: the scan reads it (and says what is wrong) */
		__atomic_store_n(&w->seg_state[i], 0, __ATOMIC_RELEASE);
		return 0;
	}
	sl = &op->slot[i % ONE_PASS_SLOTS];
	if (sl->seg == i) {
		/* read ahead by the second stage */
		sl->seg = SIZE_MAX;
		ret = sl->plain ? one_pass_take(op, sl, i, n_records) : -EAGAIN;
	} else {
		ret = rsp_reader_segment_records(w->rd, i, one_pass_record, op, n_records);
	}
	if (ret == -EAGAIN) {
		/* a record not plain in it (none was given): the scan reads it */
		rsp_reader_segment_drop(w->rd, i);
		__atomic_store_n(&w->seg_state[i], 0, __ATOMIC_RELEASE);
		return 0;
	}
	if (ret)
		return ret;
	op->last_held = i == op->n_segs - 1;
	if (!w->seg_left[i]) {
		rsp_reader_segment_drop(w->rd, i); /* nothing in it to walk */
		return 1;
	}
	op->held += rsp_reader_segment_size(w->rd, i);
	ret = one_pass_close(op, false);
	return ret ? ret : 1;
}

/* The first stage: wait until the second has applied every op (it reads no record then). */
static void one_pass_drain(struct one_pass *op)
{
	struct opq *q = op->w.q;
	unsigned spins = 0;

	if (!q)
		return;
	__atomic_store_n(&q->head, q->head_local, __ATOMIC_RELEASE);
	while (__atomic_load_n(&q->tail, __ATOMIC_ACQUIRE) != q->head_local)
		relax(&spins);
}

/*
 * rsp_scan_hooks.defining: a record that changes how records read, or the
 * reader's tail copied to align it.  Before the walk begins, nothing to do:
 * the walk reads records as they read at its start, as in two passes.  After,
 * records walked may have read otherwise: two passes, unless it is the tail
 * after the last frame, held (its build ids read ahead, rsp_reader_read_tail();
 * what changes is where the records after it lie): then the second stage,
 * which reads records, waits until it is done.
 */
static void one_pass_defining(void *ctx)
{
	struct one_pass *op = ctx;

	if (!op->begun)
		return;
	if (op->last_held)
		one_pass_drain(op);
	else
		op->stop = -ERESTART;
}

/* The second stage stopped (OP_END) and joined. */
static void one_pass_stop(struct one_pass *op, bool cancel)
{
	struct walk *w = &op->w;
	struct op *o;

	if (!op->second_running)
		return;
	if (cancel)
		__atomic_store_n(&op->q.stop, 1, __ATOMIC_RELAXED);
	o = op_begin(w);
	o->kind = OP_END;
	op_commit(w);
	pthread_join(op->second, NULL);
	op->second_running = false;
}

static void one_pass_free(struct one_pass *op)
{
	if (!op)
		return;
	one_pass_stop(op, true);
	walk_free(&op->w, &op->q, op->n_segs);
	_rsp_window_free(&op->win);
	for (size_t k = 0; k < ONE_PASS_SLOTS; k++)
		vec_free(&op->slot[k].ent);
	for (size_t i = 0; i < op->setup_warnings.n; i++)
		free(op->setup_warnings.v[i]);
	vec_free(&op->setup_warnings);
	free(op);
}

int _rsp_one_pass(struct rsp_trace *t, const struct rsp_trace_opts *o, struct setup *su,
		  uint64_t size, struct one_pass **out, char *err, size_t errlen)
{
	static const struct rsp_scan_hooks hooks = { one_pass_segment, one_pass_defining };
	struct one_pass *op = calloc(1, sizeof(*op));
	int ret;

	*out = NULL;
	if (!op)
		return -ENOMEM;
	op->t = t;
	op->o = o;
	op->su = su;
	op->size = size;
	op->w.t = t;
	op->w.pass1 = op;
	op->w.rd = t->reader;
	op->n_segs = rsp_reader_n_segments(t->reader);
	_rsp_window_init(&op->win);
	for (size_t k = 0; k < ONE_PASS_SLOTS; k++)
		op->slot[k].seg = SIZE_MAX;
	op->w.seg_state = calloc(op->n_segs, sizeof(*op->w.seg_state));
	op->w.seg_left = calloc(op->n_segs, sizeof(*op->w.seg_left));
	if (!op->w.seg_state || !op->w.seg_left) {
		one_pass_free(op);
		return -ENOMEM;
	}
	ret = rsp_reader_scan_shared(t->reader, one_pass_record, &hooks, op, err, errlen);
	if (!ret && op->stop)
		ret = op->stop;
	if (!ret)
		ret = one_pass_close(op, true);
	one_pass_stop(op, ret != 0);
	if (ret) {
		if (!op->begun)
			_rsp_setup_abandon(su);
		one_pass_free(op);
		if (ret == -ECANCELED)
			snprintf(err, errlen, "loading cancelled");
		return ret;
	}
	t->t_start = op->win.min_nonzero;
	t->t_end = op->win.max_time;
	t->one_pass = true;
	*out = op;
	return 0;
}

void _rsp_one_pass_finish(struct one_pass *op)
{
	struct rsp_trace *t = op->t;

	for (size_t i = 0; i < op->setup_warnings.n; i++)
		trace_warn(t, "%s", op->setup_warnings.v[i]);
	walk_done(&op->w);
	one_pass_free(op);
}
