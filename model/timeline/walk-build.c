/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The walk's second stage (walk-private.h): what each record does to the
 * timeline.  It interns a sample's stack, merges the second copy of an event
 * delivered twice (perf + ftrace, system-wide + target), decodes the
 * tracepoints the first stage left to it by field name and feeds the
 * timeline builder.
 */
#include "timeline/walk-private.h"

#include "rsp-perf-format.h"

#include <string.h>

/*
 * How far apart two copies of one event may be stamped.  The target's own
 * sched_switch copy (the per-task event that copies the user stack) is
 * stamped after its callchain is walked: seen here 0 to 110 us after the
 * system-wide copy, mostly under 50.  A genuine repeat of an event comes in
 * two copies of its own, so a wider window pairs the copies, not the repeats.
 */
#define DUP_WINDOW_NS 1000000
#define KERNEL_START 0xffff800000000000ull

/* A remembered event's payload: its copy, in place or on the heap. */
static const unsigned char *dup_raw(const struct dup *d)
{
	return d->raw_size <= DUP_RAW ? d->raw : d->big;
}

/* When the ring of @attr's records last delivered one on @cpu, 0 if never. */
static uint64_t ring_since(const struct walk *w, uint32_t cpu, const struct rsp_rattr *attr)
{
	if (cpu >= w->nr_cpus || !attr || !w->ring_last)
		return 0;
	return w->ring_last[(size_t)cpu * RING_CLASSES + w->ring_class[attr->index]];
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

/* The second stage: the event the first decoded. */
static void op_dev(const struct rsp_decoder *d, const struct op *o, struct rsp_dev *ev)
{
	memset(ev, 0, offsetof(struct rsp_dev, u));
	ev->kind = d->kind;
	ev->ctx = o->ctx;
	ev->tid = o->dtid;
	memcpy(&ev->u, o->dev, sizeof(o->dev)); /* past the kind's member: unread */
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
void _rsp_walk_apply(struct walk *w, const struct op *o)
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
