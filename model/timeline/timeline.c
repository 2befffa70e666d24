/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The timeline builder: events in time order become, per thread, runs and
 * sleeps; links between them (who woke whom, from which context); block
 * I/O operations; network arrivals.  See docs/DESIGN.md, "Timeline".
 *
 * What the kernel did not record is inferred and marked, never invented:
 *  - a switch-in the kernel omitted (idle -> task on this kernel) starts at
 *    the thread's wakeup on that CPU, or at the first evidence that it ran
 *    there (a sample, an event in its context, its switch-out);
 *  - a span of lost records makes its CPU unknown: the thread running there
 *    gets an UNKNOWN slice until its next known event.
 */
#include "timeline/trace-private.h"

#include <stdio.h>
#include <string.h>

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
/* an I/O completion or data arrival and the wakeup it causes */
#define CAUSE_WINDOW_NS 200000

struct cpu {
	uint32_t cur; /* thread index, CPU_IDLE or CPU_UNKNOWN */
	uint64_t since;
	uint64_t last_time;
	int32_t irq;
	uint32_t irq_name;
	int32_t softirq;
	bool in_hrtimer, in_timer;
	uint32_t last_io;
	uint64_t last_io_time;
	uint32_t last_net;
	uint64_t last_net_time;
	uint8_t io_ctx, net_ctx; /* the context each cause was seen in ... */
	uint32_t io_gen, net_gen; /* ... and which instance of it */
	uint32_t gen; /* bumped at every irq/softirq entry and exit */
};

/* pending block requests by (dev, sector): open addressing with tombstones */
struct io_slot {
	uint64_t key;
	uint32_t op; /* RSP_NONE: empty; RSP_NONE - 1: tombstone */
};

struct builder {
	struct rsp_trace *t;
	struct cpu *cpus;
	uint32_t ncpus;
	struct io_slot *io;
	size_t io_cap, io_used;
	uint32_t *sock_ht; /* sk -> sock index + 1 */
	size_t sock_cap;
	struct product last;
	/* per thread, off the slice arrays: when its current sleep became runnable
	 * and on which CPU (for inferring a missing switch-in) */
	VEC(int32_t) wake_cpu;
	/* flushes: issued at sector 0, completed at sector -1, matched in order */
	VEC(uint32_t) flushes;
};

/* ---- threads ----------------------------------------------------------------------- */

static struct thread *TH(struct builder *b, uint32_t i)
{
	return &b->t->threads.v[i];
}

static struct slice *cur_slice(struct thread *th)
{
	return th->slices.n ? vec_last(&th->slices) : NULL;
}

static uint32_t thread_get(struct builder *b, uint32_t tid, uint32_t pid, uint64_t time)
{
	uint32_t i;

	if (tid == UINT32_MAX)
		return RSP_NONE; /* perf's -1: no task (see builder_sample) */
	i = trace_thread_of(b->t, tid, pid, time);

	while (i != RSP_NONE && b->wake_cpu.n < b->t->threads.n)
		vec_push(&b->wake_cpu, -1);
	return i;
}

static struct slice *push_slice(struct thread *th, uint8_t kind, uint64_t start, uint16_t cpu,
				uint8_t flags)
{
	struct slice s = {
		.start = start,
		.end = 0,
		.link = RSP_NONE,
		.samples = (uint32_t)th->samples.n,
		.cpu = cpu,
		.kind = kind,
		.flags = flags,
	};

	return vec_push(&th->slices, s);
}

static void close_slice(struct thread *th, uint64_t end)
{
	struct slice *s = cur_slice(th);

	if (s && s->end == 0)
		s->end = end < s->start ? s->start : end;
}

static void open_run(struct builder *b, uint32_t ti, uint32_t cpu, uint64_t start,
		     uint32_t link, uint8_t flags)
{
	struct thread *th = TH(b, ti);
	struct slice *s = cur_slice(th);

	if (s && s->kind == SLICE_SLEEP && !(s->flags & (SL_PREEMPTED | SL_UNKNOWN_START)) &&
	    !(flags & SL_EXEC)) {
		b->t->n_wakeups++;
		b->t->n_wakeups_unlinked += link == RSP_NONE;
	}
	close_slice(th, start);
	s = push_slice(th, SLICE_RUN, start, (uint16_t)cpu, flags);
	if (s) {
		s->link = link;
		if (link != RSP_NONE && link < b->t->links.n &&
		    b->t->links.v[link].wakee == ti)
			b->t->links.v[link].wakee_slice = (uint32_t)(th->slices.n - 1);
	}
	th->st = TS_RUNNING;
	th->cpu = (uint16_t)cpu;
	th->pending_link = RSP_NONE;
	b->wake_cpu.v[ti] = -1;
	if (cpu < b->ncpus) {
		b->cpus[cpu].cur = ti;
		b->cpus[cpu].since = start;
	}
}

static void open_sleep(struct builder *b, uint32_t ti, uint64_t start, uint8_t flags,
		       uint32_t stack)
{
	struct thread *th = TH(b, ti);
	struct slice *s;

	close_slice(th, start);
	s = push_slice(th, SLICE_SLEEP, start, th->cpu, flags);
	if (s) {
		s->stack = stack;
		if (flags & SL_PREEMPTED)
			s->wake = start; /* runnable all along */
	}
	th->st = TS_SLEEPING;
	th->pending_link = RSP_NONE;
	b->wake_cpu.v[ti] = -1;
}

static void open_unknown(struct builder *b, uint32_t ti, uint64_t start)
{
	struct thread *th = TH(b, ti);

	close_slice(th, start);
	push_slice(th, SLICE_UNKNOWN, start, th->cpu, SL_LOST);
	th->st = TS_UNKNOWN;
	th->pending_link = RSP_NONE;
}

/* The thread is seen before any state: it existed before the trace. */
static void first_sight_sleeping(struct builder *b, uint32_t ti)
{
	struct thread *th = TH(b, ti);
	struct slice *s;

	if (th->st != TS_NEW)
		return;
	if (th->birth > b->t->t_start) { /* forked during the trace: runnable since */
		s = push_slice(th, SLICE_SLEEP, th->birth, 0, SL_PREEMPTED | SL_BORN);
		if (s)
			s->wake = th->birth;
	} else {
		push_slice(th, SLICE_SLEEP, b->t->t_start, 0, SL_UNKNOWN_START);
	}
	th->st = TS_SLEEPING;
}

/*
 * @ti ran on @cpu at @when although no switch-in was recorded: start its run
 * at its wakeup on this CPU if that is known, else at @when.
 */
static void infer_switch_in(struct builder *b, uint32_t ti, uint32_t cpu, uint64_t when)
{
	struct thread *th = TH(b, ti);
	struct cpu *cs = &b->cpus[cpu];
	struct slice *s = cur_slice(th);
	uint64_t start = when;

	if (th->st == TS_RUNNING && th->cpu == cpu && cs->cur == ti)
		return;
	if (th->st == TS_RUNNING && th->cpu != cpu) {
		/* it left the other CPU without a record */
		b->t->n_broken_chains++;
		close_slice(th, when);
	}
	if (th->st == TS_SLEEPING && s && s->kind == SLICE_SLEEP && s->wake &&
	    b->wake_cpu.v[ti] == (int32_t)cpu && s->wake >= cs->since && s->wake <= when)
		start = s->wake;
	else if (th->st == TS_NEW && cs->cur == CPU_UNKNOWN)
		start = cs->since; /* running since the trace (or a lost span) began */
	if (cs->cur != CPU_IDLE && cs->cur != CPU_UNKNOWN && cs->cur != ti) {
		/* another thread was current: its switch-out is missing */
		struct thread *o = TH(b, cs->cur);

		b->t->n_broken_chains++;
		if (o->st == TS_RUNNING && o->cpu == cpu)
			open_unknown(b, cs->cur, start);
	}
	if (th->st == TS_NEW)
		first_sight_sleeping(b, ti);
	if (s && s->kind == SLICE_SLEEP && s->start > start)
		start = s->start;
	open_run(b, ti, cpu, start, th->pending_link, SL_INFERRED_START);
	b->t->n_inferred++;
}

/* An event in @tid's own context on @cpu: it is running there. */
static void evidence(struct builder *b, uint32_t ti, uint32_t cpu, uint64_t t)
{
	struct thread *th;

	if (ti == RSP_NONE || cpu >= b->ncpus)
		return;
	th = TH(b, ti);
	if (th->st == TS_DEAD)
		return;
	if (b->cpus[cpu].cur == ti && th->st == TS_RUNNING)
		return;
	infer_switch_in(b, ti, cpu, t);
}

static uint32_t current_run(struct builder *b, uint32_t ti)
{
	struct thread *th = TH(b, ti);

	if (th->st != TS_RUNNING || !th->slices.n)
		return RSP_NONE;
	return (uint32_t)(th->slices.n - 1);
}

/* ---- scheduler events ------------------------------------------------------------------- */

/* Who took the CPU from a preempted thread (its sleep's link). */
static void link_preemption(struct builder *b, uint64_t t, uint32_t cpu, uint32_t victim,
			    uint32_t sleep, uint32_t by)
{
	struct thread *vt = TH(b, victim);
	struct link l;

	memset(&l, 0, sizeof(l));
	l.time = t;
	l.cpu = (uint16_t)cpu;
	l.kind = LINK_PREEMPT;
	l.ctx = RSP_CTX_TASK;
	l.waker = by;
	l.waker_slice = current_run(b, by);
	l.wakee = victim;
	l.wakee_slice = RSP_NONE;
	l.extra = RSP_NONE;
	if (sleep >= vt->slices.n || !vec_push(&b->t->links, l))
		return;
	vt->slices.v[sleep].link = (uint32_t)(b->t->links.n - 1);
}

static void on_switch(struct builder *b, uint64_t t, uint32_t cpu, const struct rsp_dev *ev,
		      uint32_t stack)
{
	struct cpu *cs = &b->cpus[cpu];
	uint32_t p = RSP_NONE, n = RSP_NONE, preempted = RSP_NONE;
	uint64_t st = ev->u.sw.prev_state;

	/* a new task context: a network or I/O event in the previous task's
	 * context does not explain wakeups done by the next one */
	cs->gen++;
	if (ev->u.sw.prev) {
		p = thread_get(b, ev->u.sw.prev, 0, t);
		if (p != RSP_NONE && TH(b, p)->comm == 0 && ev->u.sw.prev_comm[0])
			TH(b, p)->comm = trace_intern(b->t, ev->u.sw.prev_comm);
	}
	if (ev->u.sw.next) {
		n = thread_get(b, ev->u.sw.next, 0, t);
		if (n != RSP_NONE && TH(b, n)->comm == 0 && ev->u.sw.next_comm[0])
			TH(b, n)->comm = trace_intern(b->t, ev->u.sw.next_comm);
	}
	if (p != RSP_NONE) {
		struct thread *th = TH(b, p);
		uint8_t flags = 0;

		if (cs->cur != p || th->st != TS_RUNNING || th->cpu != cpu)
			infer_switch_in(b, p, cpu, t);
		if ((st & 0xff) == 0)
			flags = SL_PREEMPTED; /* R or R+: involuntary */
		else if (st & 0x02)
			flags = SL_UNINTERRUPTIBLE;
		if ((st & 0x30) || th->exited) {
			/* X or Z: the thread is gone */
			close_slice(th, t);
			th->st = TS_DEAD;
			if (!th->death || th->death > t)
				th->death = t;
		} else {
			open_sleep(b, p, t, flags, stack);
			b->last = (struct product){ 1, p, (uint32_t)(th->slices.n - 1) };
			if (flags & SL_PREEMPTED)
				preempted = (uint32_t)(th->slices.n - 1);
		}
	} else if (cs->cur != CPU_IDLE && cs->cur != CPU_UNKNOWN) {
		/* idle -> next, but a thread was current here */
		b->t->n_broken_chains++;
		open_unknown(b, cs->cur, t);
	}
	if (n != RSP_NONE) {
		struct thread *th = TH(b, n);

		if (th->st == TS_RUNNING && th->cpu != cpu) {
			b->t->n_broken_chains++; /* its switch-out elsewhere is missing */
			open_unknown(b, n, t);
		}
		if (th->st == TS_NEW)
			first_sight_sleeping(b, n);
		open_run(b, n, cpu, t, th->pending_link, 0);
		if (preempted != RSP_NONE)
			link_preemption(b, t, cpu, p, preempted, n);
	} else {
		cs->cur = CPU_IDLE;
		cs->since = t;
	}
}

/* What woke a task from @cpu in context @ctx: the kind of link and its detail. */
static uint8_t classify(struct builder *b, uint32_t cpu, uint8_t ctx, uint64_t t, uint32_t *extra)
{
	struct cpu *cs = &b->cpus[cpu];
	/* a cause counts in the same irq/softirq instance that then wakes the task */
	bool io = cs->last_io != RSP_NONE && t - cs->last_io_time <= CAUSE_WINDOW_NS &&
		  cs->io_ctx == ctx && cs->io_gen == cs->gen;
	bool net = cs->last_net != RSP_NONE && t - cs->last_net_time <= CAUSE_WINDOW_NS &&
		   cs->net_ctx == ctx && cs->net_gen == cs->gen;

	*extra = RSP_NONE;
	if (io && net) {
		/* both in one context: the latest caused this wakeup */
		io = cs->last_io_time >= cs->last_net_time;
		net = !io;
	}
	if (io) {
		*extra = cs->last_io;
		return LINK_IO;
	}
	if (net) {
		*extra = cs->last_net;
		return LINK_NET;
	}
	switch (ctx) {
	case RSP_CTX_TASK:
		return LINK_WAKEUP;
	case RSP_CTX_SOFTIRQ:
		*extra = cs->softirq >= 0 ? (uint32_t)cs->softirq : RSP_NONE;
		if (cs->softirq == SOFTIRQ_TIMER || cs->softirq == SOFTIRQ_HRTIMER || cs->in_timer)
			return LINK_TIMER;
		return LINK_SOFTIRQ;
	case RSP_CTX_HARDIRQ:
		if (cs->irq >= 0) {
			*extra = cs->irq_name;
			return LINK_IRQ;
		}
		/*
		 * A hard-irq wakeup outside any irq handler comes from a system
		 * vector; on x86 the one that wakes tasks is the local APIC timer
		 * (hrtimers: nanosleep, poll/select timeouts).  Remote wakeups
		 * (IPIs) are traced as sched_waking in the waker's context.
		 */
		return LINK_TIMER;
	default:
		return LINK_IRQ;
	}
}

static void on_waking(struct builder *b, uint64_t t, uint32_t cpu, const struct rsp_dev *ev,
		      uint32_t stack, bool is_waking)
{
	struct cpu *cs = &b->cpus[cpu];
	uint32_t w = thread_get(b, ev->u.wake.pid, 0, t), waker = RSP_NONE, extra;
	struct thread *wt;
	struct slice *s;
	struct link l;

	if (w == RSP_NONE)
		return;
	wt = TH(b, w);
	if (wt->comm == 0 && ev->u.wake.comm[0])
		wt->comm = trace_intern(b->t, ev->u.wake.comm);
	if (ev->ctx == RSP_CTX_TASK && ev->tid) {
		waker = thread_get(b, ev->tid, 0, t);
		evidence(b, waker, cpu, t);
	} else if (cs->cur != CPU_IDLE && cs->cur != CPU_UNKNOWN) {
		waker = cs->cur; /* the interrupted task whose time the irq ran in */
	}
	if (wt->st == TS_NEW)
		first_sight_sleeping(b, w);
	s = cur_slice(wt);
	if (wt->st != TS_SLEEPING || !s || s->kind != SLICE_SLEEP)
		return; /* already running: nothing to wake */
	if (s->wake && !(s->flags & SL_PREEMPTED) && wt->pending_link != RSP_NONE)
		return; /* the first waking of this sleep counts */
	memset(&l, 0, sizeof(l));
	l.time = t;
	l.cpu = (uint16_t)cpu;
	l.ctx = ev->ctx;
	l.kind = is_waking ? classify(b, cpu, ev->ctx, t, &extra) : LINK_UNKNOWN;
	if (!is_waking)
		extra = RSP_NONE;
	l.extra = extra;
	l.waker = waker;
	l.waker_slice = waker != RSP_NONE ? current_run(b, waker) : RSP_NONE;
	l.wakee = w;
	l.wakee_slice = RSP_NONE;
	l.stack = stack;
	if (!vec_push(&b->t->links, l))
		return;
	if (!s->wake)
		s->wake = t;
	s->link = (uint32_t)(b->t->links.n - 1);
	wt->pending_link = s->link;
	b->wake_cpu.v[w] = ev->u.wake.target_cpu >= 0 ? ev->u.wake.target_cpu : (int32_t)cpu;
	if (l.kind == LINK_IO && extra < b->t->ios.n)
		b->t->ios.v[extra].woke = s->link;
	if (l.kind == LINK_NET && extra < b->t->nets.n)
		b->t->nets.v[extra].woke = s->link;
	b->last = (struct product){ 2, w, s->link };
}

static void on_wakeup(struct builder *b, uint64_t t, uint32_t cpu, const struct rsp_dev *ev)
{
	uint32_t w = thread_get(b, ev->u.wake.pid, 0, t);
	struct thread *wt;
	struct slice *s;

	if (w == RSP_NONE)
		return;
	wt = TH(b, w);
	s = cur_slice(wt);
	if (wt->st == TS_SLEEPING && s && s->kind == SLICE_SLEEP && !s->wake) {
		if (b->t->have_waking) {
			/* its waking was lost: runnable from here, cause unknown */
			s->wake = t;
			b->wake_cpu.v[w] = ev->u.wake.target_cpu;
		} else {
			on_waking(b, t, cpu, ev, 0, true);
		}
	}
}

static void on_wakeup_new(struct builder *b, uint64_t t, uint32_t cpu, const struct rsp_dev *ev)
{
	uint32_t w = thread_get(b, ev->u.wake.pid, 0, t);
	struct thread *wt;
	struct slice *s;

	if (w == RSP_NONE)
		return;
	wt = TH(b, w);
	if (ev->ctx == RSP_CTX_TASK && ev->tid)
		evidence(b, thread_get(b, ev->tid, 0, t), cpu, t);
	if (wt->st == TS_NEW) {
		/* born runnable: the wait for a CPU is scheduler delay */
		s = push_slice(wt, SLICE_SLEEP, t, (uint16_t)cpu, SL_PREEMPTED | SL_BORN);
		if (!s)
			return;
		wt->st = TS_SLEEPING;
		s->wake = t;
	} else {
		s = cur_slice(wt);
		if (wt->st == TS_SLEEPING && s && !s->wake)
			s->wake = t;
	}
	b->wake_cpu.v[w] = ev->u.wake.target_cpu >= 0 ? ev->u.wake.target_cpu : (int32_t)cpu;
}

static void on_fork_tp(struct builder *b, uint64_t t, uint32_t cpu, const struct rsp_dev *ev,
		       uint32_t stack)
{
	uint32_t p = thread_get(b, ev->u.fork.parent, 0, t);
	uint32_t c = thread_get(b, ev->u.fork.child, 0, t);
	struct thread *ct;
	struct link l;

	if (p == RSP_NONE || c == RSP_NONE)
		return;
	evidence(b, p, cpu, t);
	ct = TH(b, c);
	if (ct->parent == RSP_NONE)
		ct->parent = p;
	if (!ct->comm && ev->u.fork.child_comm[0])
		ct->comm = trace_intern(b->t, ev->u.fork.child_comm);
	memset(&l, 0, sizeof(l));
	l.time = t;
	l.cpu = (uint16_t)cpu;
	l.kind = LINK_FORK;
	l.ctx = RSP_CTX_TASK;
	l.waker = p;
	l.waker_slice = current_run(b, p);
	l.wakee = c;
	l.wakee_slice = RSP_NONE;
	l.stack = stack;
	l.extra = RSP_NONE;
	if (!vec_push(&b->t->links, l))
		return;
	ct->pending_link = (uint32_t)(b->t->links.n - 1);
	b->last = (struct product){ 2, c, ct->pending_link };
}

static void on_exec_tp(struct builder *b, uint64_t t, uint32_t cpu, const struct rsp_dev *ev,
		       uint32_t stack)
{
	uint32_t ti = thread_get(b, ev->u.exec.pid, 0, t);
	struct thread *th;
	struct link l;
	uint32_t prev_run;

	if (ti == RSP_NONE)
		return;
	evidence(b, ti, cpu, t);
	th = TH(b, ti);
	prev_run = current_run(b, ti);
	/* the paper: exec ends one program's run and begins another's */
	memset(&l, 0, sizeof(l));
	l.time = t;
	l.cpu = (uint16_t)cpu;
	l.kind = LINK_EXEC;
	l.ctx = RSP_CTX_TASK;
	l.waker = ti;
	l.waker_slice = prev_run;
	l.wakee = ti;
	l.wakee_slice = RSP_NONE;
	l.stack = stack;
	l.extra = trace_intern(b->t, ev->u.exec.filename);
	if (!vec_push(&b->t->links, l))
		return;
	open_run(b, ti, cpu, t, (uint32_t)(b->t->links.n - 1), SL_EXEC);
	(void)th;
}

/* ---- I/O --------------------------------------------------------------------------------- */

static uint64_t io_key(uint32_t dev, uint64_t sector)
{
	return (sector * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)dev << 1) ^ ((uint64_t)dev << 40);
}

static bool io_grow(struct builder *b)
{
	size_t cap = b->io_cap ? b->io_cap * 2 : 1024;
	struct io_slot *ns = malloc(cap * sizeof(*ns));

	if (!ns)
		return false;
	for (size_t i = 0; i < cap; i++)
		ns[i].op = RSP_NONE;
	b->io_used = 0;
	for (size_t i = 0; i < b->io_cap; i++) {
		size_t j;

		if (b->io[i].op >= RSP_NONE - 1)
			continue;
		for (j = b->io[i].key & (cap - 1); ns[j].op != RSP_NONE; j = (j + 1) & (cap - 1))
			;
		ns[j] = b->io[i];
		b->io_used++;
	}
	free(b->io);
	b->io = ns;
	b->io_cap = cap;
	return true;
}

static void io_put(struct builder *b, uint32_t op)
{
	const struct io_op *o = &b->t->ios.v[op];
	uint64_t k = io_key(o->dev, o->sector);
	size_t j;

	if ((b->io_used + 1) * 2 > b->io_cap && !io_grow(b))
		return;
	for (j = k & (b->io_cap - 1); b->io[j].op < RSP_NONE - 1; j = (j + 1) & (b->io_cap - 1))
		;
	if (b->io[j].op == RSP_NONE)
		b->io_used++;
	b->io[j].key = k;
	b->io[j].op = op;
}

/* The oldest pending request for (dev, sector) that @pred accepts; removed if @take. */
static uint32_t io_find(struct builder *b, uint32_t dev, uint64_t sector, bool want_unissued,
			bool take)
{
	uint64_t k = io_key(dev, sector);
	size_t best_j = 0;
	uint32_t best = RSP_NONE;

	if (!b->io_cap)
		return RSP_NONE;
	for (size_t j = k & (b->io_cap - 1); b->io[j].op != RSP_NONE; j = (j + 1) & (b->io_cap - 1)) {
		uint32_t op = b->io[j].op;
		const struct io_op *o;

		if (op == RSP_NONE - 1 || b->io[j].key != k)
			continue;
		o = &b->t->ios.v[op];
		if (o->dev != dev || o->sector != sector || (want_unissued && o->issue))
			continue;
		if (best == RSP_NONE || op < best) {
			best = op;
			best_j = j;
		}
	}
	if (best != RSP_NONE && take)
		b->io[best_j].op = RSP_NONE - 1;
	return best;
}

static uint32_t io_new(struct builder *b, const struct rsp_dev *ev, uint32_t issuer)
{
	struct io_op o;

	memset(&o, 0, sizeof(o));
	o.dev = ev->u.blk.dev;
	o.sector = ev->u.blk.sector;
	o.nr_sector = ev->u.blk.nr_sector;
	o.tid = issuer;
	o.woke = RSP_NONE;
	memcpy(o.rwbs, ev->u.blk.rwbs, sizeof(o.rwbs));
	if (!vec_push(&b->t->ios, o))
		return RSP_NONE;
	return (uint32_t)(b->t->ios.n - 1);
}

static bool is_flush(const struct rsp_dev *ev)
{
	return ev->u.blk.nr_sector == 0 && ev->u.blk.rwbs[0] == 'F';
}

/* The oldest pending flush of @dev, removed from the list. */
static uint32_t take_flush(struct builder *b, uint32_t dev)
{
	for (size_t i = 0; i < b->flushes.n; i++) {
		uint32_t op = b->flushes.v[i];

		if (b->t->ios.v[op].dev != dev)
			continue;
		memmove(&b->flushes.v[i], &b->flushes.v[i + 1],
			(b->flushes.n - i - 1) * sizeof(uint32_t));
		b->flushes.n--;
		return op;
	}
	return RSP_NONE;
}

static void on_block(struct builder *b, uint64_t t, uint32_t cpu, const struct rsp_dev *ev)
{
	uint32_t issuer = RSP_NONE, op;
	struct io_op *o;

	b->t->have_block = true;
	if (ev->ctx == RSP_CTX_TASK && ev->tid) {
		issuer = thread_get(b, ev->tid, 0, t);
		evidence(b, issuer, cpu, t);
	}
	switch (ev->kind) {
	case TP_BLK_INSERT:
		op = io_new(b, ev, issuer);
		if (op == RSP_NONE)
			return;
		b->t->ios.v[op].insert = t;
		if (is_flush(ev))
			vec_push(&b->flushes, op);
		else
			io_put(b, op);
		break;
	case TP_BLK_ISSUE:
		if (is_flush(ev)) {
			for (size_t i = 0; i < b->flushes.n; i++) {
				o = &b->t->ios.v[b->flushes.v[i]];
				if (o->dev == ev->u.blk.dev && !o->issue) {
					o->issue = t;
					return;
				}
			}
			op = io_new(b, ev, issuer);
			if (op == RSP_NONE)
				return;
			b->t->ios.v[op].insert = b->t->ios.v[op].issue = t;
			vec_push(&b->flushes, op);
			return;
		}
		op = io_find(b, ev->u.blk.dev, ev->u.blk.sector, true, false);
		if (op == RSP_NONE) {
			/* issued without an insert (no scheduler queue): it starts here */
			op = io_new(b, ev, issuer);
			if (op == RSP_NONE)
				return;
			b->t->ios.v[op].insert = t;
			io_put(b, op);
		}
		b->t->ios.v[op].issue = t;
		break;
	case TP_BLK_COMPLETE:
		op = ev->u.blk.nr_sector == 0 && ev->u.blk.rwbs[0] == 'F' ?
			     take_flush(b, ev->u.blk.dev) :
			     io_find(b, ev->u.blk.dev, ev->u.blk.sector, false, true);
		if (op == RSP_NONE) {
			/* its start was not recorded (before the trace, or a flush
			 * sequence's completion): the start stays unknown (0) */
			op = io_new(b, ev, RSP_NONE);
			if (op == RSP_NONE)
				return;
		}
		o = &b->t->ios.v[op];
		o->complete = t;
		/* still in the queue when it completed: issued right after insert */
		if (!o->issue && o->insert)
			o->issue = o->insert;
		b->cpus[cpu].last_io = op;
		b->cpus[cpu].last_io_time = t;
		b->cpus[cpu].io_ctx = ev->ctx;
		b->cpus[cpu].io_gen = b->cpus[cpu].gen;
		break;
	default:
		break;
	}
}

/* ---- network ----------------------------------------------------------------------------- */

static uint32_t sock_get(struct builder *b, uint64_t sk, uint16_t family, uint16_t protocol)
{
	struct sock_info si;
	size_t m, j;

	if (!b->sock_cap || (b->t->socks.n + 1) * 2 > b->sock_cap) {
		size_t cap = b->sock_cap ? b->sock_cap * 2 : 256;
		uint32_t *ht = calloc(cap, sizeof(*ht));

		if (!ht)
			return RSP_NONE;
		for (size_t i = 0; i < b->t->socks.n; i++) {
			for (j = (b->t->socks.v[i].sk * 0x9e3779b97f4a7c15ull >> 20) & (cap - 1);
			     ht[j]; j = (j + 1) & (cap - 1))
				;
			ht[j] = (uint32_t)i + 1;
		}
		free(b->sock_ht);
		b->sock_ht = ht;
		b->sock_cap = cap;
	}
	m = b->sock_cap - 1;
	for (j = (sk * 0x9e3779b97f4a7c15ull >> 20) & m; b->sock_ht[j]; j = (j + 1) & m) {
		struct sock_info *s = &b->t->socks.v[b->sock_ht[j] - 1];

		if (s->sk == sk) {
			if (!s->family && family)
				s->family = family;
			if (!s->protocol && protocol)
				s->protocol = protocol;
			return b->sock_ht[j] - 1;
		}
	}
	memset(&si, 0, sizeof(si));
	si.sk = sk;
	si.family = family;
	si.protocol = protocol;
	si.peer = RSP_NONE;
	si.last_sender = RSP_NONE;
	if (!vec_push(&b->t->socks, si))
		return RSP_NONE;
	b->sock_ht[j] = (uint32_t)b->t->socks.n;
	return (uint32_t)(b->t->socks.n - 1);
}

static void on_sock_state(struct builder *b, uint64_t t, const struct rsp_dev *ev)
{
	uint32_t si = sock_get(b, ev->u.state.sk, ev->u.state.family, ev->u.state.protocol);
	struct sock_info *s;
	size_t alen;

	if (si == RSP_NONE)
		return;
	s = &b->t->socks.v[si];
	alen = s->family == 10 ? 16 : 4;
	s->sport = ev->u.state.sport;
	s->dport = ev->u.state.dport;
	memcpy(s->saddr, ev->u.state.saddr, alen);
	memcpy(s->daddr, ev->u.state.daddr, alen);
	s->have_addr = true;
	/* the peer on this machine has the mirrored tuple */
	for (size_t i = 0; i < b->t->socks.n && s->peer == RSP_NONE; i++) {
		struct sock_info *o = &b->t->socks.v[i];

		if (i == si || !o->have_addr || o->family != s->family)
			continue;
		if (o->sport == s->dport && o->dport == s->sport &&
		    !memcmp(o->saddr, s->daddr, alen) && !memcmp(o->daddr, s->saddr, alen)) {
			s->peer = (uint32_t)i;
			o->peer = si;
		}
	}
	(void)t;
}

static void on_sock_send(struct builder *b, uint64_t t, uint32_t cpu, const struct rsp_dev *ev)
{
	uint32_t si = sock_get(b, ev->u.sock.sk, ev->u.sock.family, ev->u.sock.protocol);
	uint32_t ti = ev->tid ? thread_get(b, ev->tid, 0, t) : RSP_NONE;

	evidence(b, ti, cpu, t);
	if (si == RSP_NONE)
		return;
	b->t->socks.v[si].last_send = t;
	/* loopback TCP delivers inside sendmsg, before this event */
	b->t->socks.v[si].send_pending = !b->t->socks.v[si].delivered_early;
	b->t->socks.v[si].delivered_early = false;
	b->t->socks.v[si].last_sender = ti;
}

/* @tid, interrupted by a softirq, is a task that can be sending: not the
 * softirq daemon running deferred network work */
static bool in_senders_context(struct builder *b, uint32_t tid, uint64_t t)
{
	uint32_t ti = thread_get(b, tid, 0, t);
	const char *comm;

	if (ti == RSP_NONE)
		return false;
	comm = trace_str(b->t, TH(b, ti)->comm);
	return !comm || strncmp(comm, "ksoftirqd/", 10);
}

static void on_sk_ready(struct builder *b, uint64_t t, uint32_t cpu, const struct rsp_dev *ev)
{
	uint32_t si = sock_get(b, ev->u.sock.sk, ev->u.sock.family, ev->u.sock.protocol);
	struct sock_info *s;
	struct net_op op;

	if (si == RSP_NONE)
		return;
	s = &b->t->socks.v[si];
	memset(&op, 0, sizeof(op));
	op.ready_time = t;
	op.sock = si;
	op.sender = RSP_NONE;
	op.woke = RSP_NONE;
	if (s->peer != RSP_NONE && b->t->socks.v[s->peer].last_sender != RSP_NONE &&
	    b->t->socks.v[s->peer].send_pending && b->t->socks.v[s->peer].last_send <= t) {
		/* the peer's send, not yet delivered */
		op.sender = b->t->socks.v[s->peer].last_sender;
		op.send_time = b->t->socks.v[s->peer].last_send;
		b->t->socks.v[s->peer].send_pending = false;
	} else if (s->peer != RSP_NONE && ev->ctx == RSP_CTX_SOFTIRQ && ev->tid &&
		   in_senders_context(b, ev->tid, t)) {
		/*
		 * Loopback: the receive softirq runs on the sender's CPU inside its
		 * sendmsg, before sock_send_length fires (the peer's last send is
		 * then the previous message, already delivered, or none).
		 */
		op.sender = thread_get(b, ev->tid, 0, t);
		op.send_time = t;
		b->t->socks.v[s->peer].delivered_early = true;
	} else if (s->peer != RSP_NONE && b->t->socks.v[s->peer].last_sender != RSP_NONE &&
		   b->t->socks.v[s->peer].last_send <= t) {
		op.sender = b->t->socks.v[s->peer].last_sender;
		op.send_time = b->t->socks.v[s->peer].last_send;
	} else if (ev->ctx == RSP_CTX_TASK && ev->tid) {
		/* delivered in the sender's own context (unix sockets, loopback) */
		op.sender = thread_get(b, ev->tid, 0, t);
		op.send_time = t;
	}
	if (!vec_push(&b->t->nets, op))
		return;
	b->cpus[cpu].last_net = (uint32_t)(b->t->nets.n - 1);
	b->cpus[cpu].last_net_time = t;
	b->cpus[cpu].net_ctx = ev->ctx;
	b->cpus[cpu].net_gen = b->cpus[cpu].gen;
	b->t->have_net = true;
}

/* ---- interrupts ---------------------------------------------------------------------------- */

static void on_irq(struct builder *b, uint64_t t, uint32_t cpu, const struct rsp_dev *ev)
{
	struct cpu *cs = &b->cpus[cpu];

	b->t->have_irq = true;
	if (ev->kind <= TP_SOFTIRQ_EXIT)
		cs->gen++; /* a new context instance: earlier causes no longer apply */
	switch (ev->kind) {
	case TP_IRQ_ENTRY:
		cs->irq = ev->u.irq.irq;
		cs->irq_name = trace_intern(b->t, ev->u.irq.name);
		break;
	case TP_IRQ_EXIT:
		cs->irq = -1;
		break;
	case TP_SOFTIRQ_ENTRY:
		cs->softirq = (int32_t)ev->u.softirq.vec;
		break;
	case TP_SOFTIRQ_EXIT:
		cs->softirq = -1;
		break;
	case TP_HRTIMER_ENTRY:
		cs->in_hrtimer = true;
		break;
	case TP_HRTIMER_EXIT:
		cs->in_hrtimer = false;
		break;
	case TP_TIMER_ENTRY:
		cs->in_timer = true;
		break;
	case TP_TIMER_EXIT:
		cs->in_timer = false;
		break;
	default:
		break;
	}
}

/* ---- the entry points ------------------------------------------------------------------------ */

struct builder *builder_new(struct rsp_trace *t)
{
	struct builder *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->t = t;
	b->ncpus = t->nr_cpus ? t->nr_cpus : 1;
	b->cpus = calloc(b->ncpus, sizeof(*b->cpus));
	if (!b->cpus) {
		free(b);
		return NULL;
	}
	for (uint32_t c = 0; c < b->ncpus; c++) {
		b->cpus[c].cur = CPU_UNKNOWN;
		b->cpus[c].since = t->t_start;
		b->cpus[c].irq = -1;
		b->cpus[c].softirq = -1;
		b->cpus[c].last_io = RSP_NONE;
		b->cpus[c].last_net = RSP_NONE;
	}
	return b;
}

void builder_free(struct builder *b)
{
	if (!b)
		return;
	free(b->cpus);
	free(b->io);
	free(b->sock_ht);
	vec_free(&b->wake_cpu);
	vec_free(&b->flushes);
	free(b);
}

struct product builder_last_product(const struct builder *b)
{
	return b->last;
}

void builder_attach_stack(struct builder *b, struct product p, uint32_t stack)
{
	if (!stack)
		return;
	if (p.what == 1 && p.thread < b->t->threads.n &&
	    p.index < b->t->threads.v[p.thread].slices.n) {
		struct slice *s = &b->t->threads.v[p.thread].slices.v[p.index];

		if (!s->stack || (stack & RSP_STACK_PENDING))
			s->stack = stack;
	} else if (p.what == 2 && p.index < b->t->links.n) {
		struct link *l = &b->t->links.v[p.index];

		if (!l->stack || (stack & RSP_STACK_PENDING))
			l->stack = stack;
	}
}

void builder_event(struct builder *b, uint64_t t, uint32_t cpu, const struct rsp_dev *ev,
		   uint32_t stack, uint64_t rec_off)
{
	(void)rec_off;
	if (cpu >= b->ncpus)
		return;
	b->last = (struct product){ 0, 0, 0 };
	b->cpus[cpu].last_time = t;
	switch (ev->kind) {
	case TP_SWITCH:
		on_switch(b, t, cpu, ev, stack);
		break;
	case TP_WAKING:
		on_waking(b, t, cpu, ev, stack, true);
		break;
	case TP_WAKEUP:
		on_wakeup(b, t, cpu, ev);
		break;
	case TP_WAKEUP_NEW:
		on_wakeup_new(b, t, cpu, ev);
		break;
	case TP_FORK:
		on_fork_tp(b, t, cpu, ev, stack);
		break;
	case TP_EXEC:
		on_exec_tp(b, t, cpu, ev, stack);
		break;
	case TP_EXIT: {
		uint32_t ti = thread_get(b, ev->u.exit.pid, 0, t);

		if (ti != RSP_NONE) {
			evidence(b, ti, cpu, t);
			TH(b, ti)->exited = true;
			TH(b, ti)->death = t;
		}
		break;
	}
	case TP_BLK_INSERT:
	case TP_BLK_ISSUE:
	case TP_BLK_COMPLETE:
		on_block(b, t, cpu, ev);
		break;
	case TP_IRQ_ENTRY:
	case TP_IRQ_EXIT:
	case TP_SOFTIRQ_ENTRY:
	case TP_SOFTIRQ_EXIT:
	case TP_HRTIMER_ENTRY:
	case TP_HRTIMER_EXIT:
	case TP_TIMER_ENTRY:
	case TP_TIMER_EXIT:
		on_irq(b, t, cpu, ev);
		break;
	case TP_SOCK_STATE:
		on_sock_state(b, t, ev);
		break;
	case TP_SOCK_SEND:
		on_sock_send(b, t, cpu, ev);
		break;
	case TP_SOCK_RECV:
		if (ev->tid && ev->ctx == RSP_CTX_TASK)
			evidence(b, thread_get(b, ev->tid, 0, t), cpu, t);
		break;
	case TP_SK_READY:
		on_sk_ready(b, t, cpu, ev);
		break;
	default:
		if (ev->tid && ev->ctx == RSP_CTX_TASK)
			evidence(b, thread_get(b, ev->tid, 0, t), cpu, t);
		break;
	}
}

void builder_sample(struct builder *b, uint64_t t, uint32_t cpu, uint32_t tid, uint32_t pid,
		    uint32_t stack)
{
	uint32_t ti;
	struct thread *th;
	struct tsample s = { .time = t, .stack = stack, .cpu = (uint16_t)cpu };
	struct slice *sl;

	if (!tid || cpu >= b->ncpus)
		return; /* idle */
	b->cpus[cpu].last_time = t;
	if (tid == UINT32_MAX) {
		/*
		 * A task in the last moments of its exit, already detached from
		 * its pid: perf reports pid and tid -1.  It is the thread current
		 * on that CPU (its final switch-out follows); never a new thread.
		 */
		ti = b->cpus[cpu].cur;
		if (ti == CPU_IDLE || ti == CPU_UNKNOWN)
			return;
	} else {
		ti = thread_get(b, tid, pid, t);
	}
	if (ti == RSP_NONE)
		return;
	th = TH(b, ti);
	if (th->st == TS_RUNNING && th->cpu == cpu && b->cpus[cpu].cur == ti) {
		vec_push(&th->samples, s);
		return;
	}
	sl = cur_slice(th);
	if (sl && sl->kind == SLICE_SLEEP && sl->start <= t && t - sl->start <= SAMPLE_SLACK_NS &&
	    th->slices.n >= 2 && th->slices.v[th->slices.n - 2].kind == SLICE_RUN &&
	    th->slices.v[th->slices.n - 2].cpu == cpu) {
		/* landed just after it left the CPU: it belongs to that run */
		vec_push(&th->samples, s);
		sl->samples = (uint32_t)th->samples.n;
		return;
	}
	if (th->st == TS_DEAD) {
		b->t->n_samples_dropped++;
		return;
	}
	evidence(b, ti, cpu, t);
	if (th->st == TS_RUNNING && th->cpu == cpu)
		vec_push(&th->samples, s);
	else
		b->t->n_samples_dropped++;
}

void builder_comm(struct builder *b, uint64_t t, uint32_t pid, uint32_t tid, const char *comm,
		  bool exec)
{
	uint32_t ti = thread_get(b, tid, pid, t);
	struct thread *th;

	if (ti == RSP_NONE)
		return;
	th = TH(b, ti);
	th->comm = trace_intern(b->t, comm);
	if (!th->first_comm || (t == 0 && !exec))
		th->first_comm = th->comm;
	if (pid)
		th->pid = pid;
}

void builder_fork(struct builder *b, uint64_t t, uint32_t pid, uint32_t ppid, uint32_t tid,
		  uint32_t ptid)
{
	uint32_t parent = ptid ? thread_get(b, ptid, ppid, t) : RSP_NONE;
	uint32_t ti = trace_thread_new(b->t, tid, pid, t);
	struct thread *th;

	while (b->wake_cpu.n < b->t->threads.n)
		vec_push(&b->wake_cpu, -1);
	if (ti == RSP_NONE)
		return;
	th = TH(b, ti);
	th->parent = parent;
	if (parent != RSP_NONE && !th->comm)
		th->comm = th->first_comm = TH(b, parent)->comm;
	th->birth = t;
	if (t == 0) {
		/* existed before the trace: state unknown until seen */
		th->birth = 0;
	}
}

void builder_exit(struct builder *b, uint64_t t, uint32_t pid, uint32_t tid)
{
	uint32_t ti = thread_get(b, tid, pid, t);

	if (ti == RSP_NONE)
		return;
	TH(b, ti)->exited = true;
	if (!TH(b, ti)->death || TH(b, ti)->death > t)
		TH(b, ti)->death = t;
}

void builder_lost(struct builder *b, uint64_t t, uint32_t cpu, uint64_t n, int source)
{
	struct lost_span ls;
	struct cpu *cs;

	(void)source;
	if (cpu >= b->ncpus)
		return;
	cs = &b->cpus[cpu];
	ls.cpu = cpu;
	ls.start = cs->last_time ? cs->last_time : b->t->t_start;
	ls.end = t;
	ls.lost = n;
	vec_push(&b->t->lost, ls);
	if (cs->cur != CPU_IDLE && cs->cur != CPU_UNKNOWN) {
		struct thread *th = TH(b, cs->cur);

		if (th->st == TS_RUNNING && th->cpu == cpu) {
			struct slice *s = cur_slice(th);

			if (s)
				s->flags |= SL_LOST;
			open_unknown(b, cs->cur, ls.start);
		}
	}
	cs->cur = CPU_UNKNOWN;
	cs->since = t;
	cs->irq = -1;
	cs->softirq = -1;
	cs->last_io = cs->last_net = RSP_NONE;
}

void builder_finish(struct builder *b)
{
	uint64_t end = b->t->t_end;

	for (size_t i = 0; i < b->t->threads.n; i++) {
		struct thread *th = &b->t->threads.v[i];
		struct slice *s = cur_slice(th);

		if (s && s->end == 0) {
			s->end = end > s->start ? end : s->start;
			s->flags |= SL_OPEN_END;
		}
		if (th->death == 0 && !th->exited)
			th->death = UINT64_MAX;
		vec_shrink(&th->slices);
		vec_shrink(&th->samples);
	}
	vec_shrink(&b->t->links);
}
