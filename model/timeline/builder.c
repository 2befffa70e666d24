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
#include "base/search.h"
#include "timeline/builder-private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	l.waker_slice = _rsp_current_run(b, by);
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
		p = _rsp_builder_thread(b, ev->u.sw.prev, 0, t);
		if (p != RSP_NONE && TH(b, p)->comm == 0 && ev->u.sw.prev_comm[0])
			TH(b, p)->comm = trace_intern(b->t, ev->u.sw.prev_comm);
	}
	if (ev->u.sw.next) {
		n = _rsp_builder_thread(b, ev->u.sw.next, 0, t);
		if (n != RSP_NONE && TH(b, n)->comm == 0 && ev->u.sw.next_comm[0])
			TH(b, n)->comm = trace_intern(b->t, ev->u.sw.next_comm);
	}
	if (p != RSP_NONE) {
		struct thread *th = TH(b, p);
		uint8_t flags = 0;

		if (cs->cur != p || th->st != TS_RUNNING || th->cpu != cpu)
			_rsp_infer_switch_in(b, p, cpu, t);
		_rsp_place_run(b, p, t);
		if ((st & 0xff) == 0)
			flags = SL_PREEMPTED; /* R or R+: involuntary */
		else if (st & 0x02)
			flags = SL_UNINTERRUPTIBLE;
		if ((st & 0x30) || th->exited) {
			/* X or Z: the thread is gone */
			_rsp_close_slice(th, t);
			th->st = TS_DEAD;
			if (!th->death || th->death > t)
				th->death = t;
		} else {
			struct bthread *bt = &b->bt.v[p];
			bool raced = bt->race_state == RACE_RUNNING && !(flags & SL_PREEMPTED) &&
				     t - bt->race.time <= RACE_WINDOW_NS;

			_rsp_open_sleep(b, p, t, flags, stack);
			b->last = (struct product){ 1, p, (uint32_t)(th->slices.n - 1) };
			if (flags & SL_PREEMPTED)
				preempted = (uint32_t)(th->slices.n - 1);
			if (raced) {
				/* its last waking may have raced this sleep (on_wakeup()) */
				bt->race_state = RACE_ASLEEP;
				bt->race_sleep = (uint32_t)(th->slices.n - 1);
			}
		}
	} else if (cs->cur != CPU_IDLE && cs->cur != CPU_UNKNOWN) {
		/* idle -> next, but a thread was current here */
		b->t->n_broken_chains++;
		_rsp_open_unknown(b, cs->cur, t, false);
	}
	if (n != RSP_NONE) {
		struct thread *th = TH(b, n);

		if (th->st == TS_RUNNING && th->cpu != cpu) {
			b->t->n_broken_chains++; /* its switch-out elsewhere is missing */
			_rsp_open_unknown(b, n, t, false);
		}
		if (th->st == TS_NEW)
			_rsp_first_sight_sleeping(b, n);
		_rsp_open_run(b, n, cpu, t, th->pending_link, 0);
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

/* @l becomes the link of @w's current sleep @s, woken (runnable) at @wake on @wake_cpu. */
static void link_sleep(struct builder *b, uint32_t w, struct slice *s, const struct link *l,
		       uint64_t wake, int32_t wake_cpu)
{
	struct thread *wt = TH(b, w);

	if (!vec_push(&b->t->links, *l))
		return;
	if (!s->wake)
		s->wake = wake;
	s->link = (uint32_t)(b->t->links.n - 1);
	wt->pending_link = s->link;
	b->bt.v[w].wake_cpu = wake_cpu;
	if (l->kind == LINK_IO && l->extra < b->t->ios.n)
		b->t->ios.v[l->extra].woke = s->link;
	if (l->kind == LINK_NET && l->extra < b->t->nets.n)
		b->t->nets.v[l->extra].woke = s->link;
	b->last = (struct product){ 2, w, s->link };
}

static void on_waking(struct builder *b, uint64_t t, uint32_t cpu, const struct rsp_dev *ev,
		      uint32_t stack, bool is_waking)
{
	struct cpu *cs = &b->cpus[cpu];
	uint32_t w = _rsp_builder_thread(b, ev->u.wake.pid, 0, t), waker = RSP_NONE, extra;
	struct thread *wt;
	struct slice *s;
	struct link l;
	bool race;

	if (w == RSP_NONE)
		return;
	wt = TH(b, w);
	if (wt->comm == 0 && ev->u.wake.comm[0])
		wt->comm = trace_intern(b->t, ev->u.wake.comm);
	if (ev->ctx == RSP_CTX_TASK && ev->tid) {
		waker = _rsp_builder_thread(b, ev->tid, 0, t);
		_rsp_builder_evidence(b, waker, cpu, t);
	} else if (cs->cur != CPU_IDLE && cs->cur != CPU_UNKNOWN) {
		waker = cs->cur; /* the interrupted task whose time the irq ran in */
	}
	if (wt->st == TS_NEW)
		_rsp_first_sight_sleeping(b, w);
	s = cur_slice(wt);
	/* still running: the waking of the sleep it may be entering (on_switch()) */
	race = is_waking && wt->st == TS_RUNNING && waker != w;
	if (!race && (wt->st != TS_SLEEPING || !s || s->kind != SLICE_SLEEP))
		return; /* already running: nothing to wake */
	if (!race && s->wake && !(s->flags & SL_PREEMPTED) && wt->pending_link != RSP_NONE)
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
	l.waker_slice = waker != RSP_NONE ? _rsp_current_run(b, waker) : RSP_NONE;
	l.wakee = w;
	l.wakee_slice = RSP_NONE;
	l.stack = stack;
	if (race) {
		/* the last waking before its switch-out counts */
		b->bt.v[w].race = l;
		b->bt.v[w].race_state = RACE_RUNNING;
		b->last = (struct product){ 0, 0, 0 };
		return;
	}
	link_sleep(b, w, s, &l, t,
		   ev->u.wake.target_cpu >= 0 ? ev->u.wake.target_cpu : (int32_t)cpu);
}

static void on_wakeup(struct builder *b, uint64_t t, uint32_t cpu, const struct rsp_dev *ev)
{
	uint32_t w = _rsp_builder_thread(b, ev->u.wake.pid, 0, t);
	struct bthread *bt;
	struct thread *wt;
	struct slice *s;

	if (w == RSP_NONE)
		return;
	wt = TH(b, w);
	bt = &b->bt.v[w];
	s = cur_slice(wt);
	if (wt->st == TS_RUNNING)
		bt->race_state = RACE_NONE; /* the waking completed while it ran */
	if (wt->st == TS_SLEEPING && s && s->kind == SLICE_SLEEP && !s->wake) {
		if (bt->race_state == RACE_ASLEEP && bt->race_sleep == wt->slices.n - 1) {
			/* the waking that raced its switch-out, completed now */
			bt->race_state = RACE_NONE;
			b->t->n_wakeups_raced++;
			link_sleep(b, w, s, &bt->race, t, ev->u.wake.target_cpu);
		} else if (b->t->have_waking) {
			/* its waking was lost: runnable from here, cause unknown */
			s->wake = t;
			bt->wake_cpu = ev->u.wake.target_cpu;
		} else {
			on_waking(b, t, cpu, ev, 0, true);
		}
	}
}

static void on_wakeup_new(struct builder *b, uint64_t t, uint32_t cpu, const struct rsp_dev *ev)
{
	uint32_t w = _rsp_builder_thread(b, ev->u.wake.pid, 0, t);
	struct thread *wt;
	struct slice *s;

	if (w == RSP_NONE)
		return;
	wt = TH(b, w);
	if (ev->ctx == RSP_CTX_TASK && ev->tid)
		_rsp_builder_evidence(b, _rsp_builder_thread(b, ev->tid, 0, t), cpu, t);
	if (wt->st == TS_NEW) {
		/* born runnable: the wait for a CPU is scheduler delay */
		s = _rsp_push_slice(wt, SLICE_SLEEP, t, (uint16_t)cpu, SL_PREEMPTED | SL_BORN);
		if (!s)
			return;
		wt->st = TS_SLEEPING;
		s->wake = t;
	} else {
		s = cur_slice(wt);
		if (wt->st == TS_SLEEPING && s && !s->wake)
			s->wake = t;
	}
	b->bt.v[w].wake_cpu = ev->u.wake.target_cpu >= 0 ? ev->u.wake.target_cpu : (int32_t)cpu;
}

static void on_fork_tp(struct builder *b, uint64_t t, uint32_t cpu, const struct rsp_dev *ev,
		       uint32_t stack)
{
	uint32_t p = _rsp_builder_thread(b, ev->u.fork.parent, 0, t);
	uint32_t c = _rsp_builder_thread(b, ev->u.fork.child, 0, t);
	struct thread *ct;
	struct link l;

	if (p == RSP_NONE || c == RSP_NONE)
		return;
	_rsp_builder_evidence(b, p, cpu, t);
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
	l.waker_slice = _rsp_current_run(b, p);
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
	uint32_t ti = _rsp_builder_thread(b, ev->u.exec.pid, 0, t);
	struct thread *th;
	struct link l;
	uint32_t prev_run;

	if (ti == RSP_NONE)
		return;
	_rsp_builder_evidence(b, ti, cpu, t);
	th = TH(b, ti);
	prev_run = _rsp_current_run(b, ti);
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
	_rsp_open_run(b, ti, cpu, t, (uint32_t)(b->t->links.n - 1), SL_EXEC);
	(void)th;
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
		cs->softirq_since = t;
		break;
	case TP_SOFTIRQ_EXIT:
		if (cs->softirq >= 0)
			_rsp_net_softirq_done(b, cpu, t);
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
	_rsp_u64multi_free(&b->peers);
	vec_free(&b->bt);
	vec_free(&b->flushes);
	vec_free(&b->at_end);
	vec_free(&b->unlinked);
	free(b);
}

void builder_end_later(struct builder *b)
{
	b->end_later = true;
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
	/*
	 * An interrupt's record names the task it interrupted (perf's pid/tid,
	 * ftrace's common_pid): that task is current here, even when its
	 * switch-in is missing (the kernel omits some, not only idle's), and the
	 * irq's wakeups are done in its time.
	 */
	if (ev->tid && ev->ctx != RSP_CTX_TASK && ev->kind != TP_SWITCH)
		_rsp_builder_evidence(b, _rsp_builder_thread(b, ev->tid, 0, t), cpu, t);
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
		uint32_t ti = _rsp_builder_thread(b, ev->u.exit.pid, 0, t);

		if (ti != RSP_NONE) {
			_rsp_builder_evidence(b, ti, cpu, t);
			TH(b, ti)->exited = true;
			TH(b, ti)->death = t;
		}
		break;
	}
	case TP_BLK_INSERT:
	case TP_BLK_ISSUE:
	case TP_BLK_COMPLETE:
		_rsp_on_block(b, t, cpu, ev);
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
		_rsp_on_sock_state(b, t, cpu, ev);
		break;
	case TP_SOCK_SEND:
		_rsp_on_sock_send(b, t, cpu, ev);
		break;
	case TP_STAT_RUNTIME: {
		uint32_t ti = _rsp_builder_thread(b, ev->u.runtime.pid, 0, t);

		if (ti == RSP_NONE)
			break;
		/* in the task's own context it is running here; else (another CPU read
		 * its runtime) it only adds to its run */
		if (ev->tid == ev->u.runtime.pid && ev->ctx == RSP_CTX_TASK)
			_rsp_builder_evidence(b, ti, cpu, t);
		if (TH(b, ti)->st == TS_RUNNING)
			b->bt.v[ti].run_acc += ev->u.runtime.runtime;
		break;
	}
	case TP_SOCK_RECV:
		_rsp_on_sock_recv(b, t, cpu, ev);
		break;
	case TP_SK_READY:
		_rsp_on_sk_ready(b, t, cpu, ev);
		break;
	default:
		if (ev->tid && ev->ctx == RSP_CTX_TASK)
			_rsp_builder_evidence(b, _rsp_builder_thread(b, ev->tid, 0, t), cpu, t);
		break;
	}
}

/*
 * A trace without scheduler events (perf record -g): a sample says the thread
 * ran around its time, nothing more.  The thread's whole life is one UNKNOWN
 * slice (SL_NOT_RECORDED) holding its samples: no run is inferred from them.
 */
static void sample_only(struct builder *b, uint32_t ti, struct tsample s)
{
	struct thread *th = TH(b, ti);

	if (!th->slices.n) {
		uint64_t start = th->birth > b->t->t_start ? th->birth : b->t->t_start;

		_rsp_push_slice(th, SLICE_UNKNOWN, start < s.time ? start : s.time, s.cpu,
				SL_NOT_RECORDED);
		th->st = TS_UNKNOWN;
	}
	vec_push(&th->samples, s);
}

void builder_sample(struct builder *b, uint64_t t, uint32_t cpu, uint32_t tid, uint32_t pid,
		    uint32_t stack, uint16_t attr)
{
	uint32_t ti;
	struct thread *th;
	struct tsample s = { .time = t, .stack = stack, .cpu = (uint16_t)cpu, .attr = attr };
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
		ti = _rsp_builder_thread(b, tid, pid, t);
	}
	if (ti == RSP_NONE)
		return;
	if (!b->t->recorded[TP_SWITCH]) {
		sample_only(b, ti, s);
		return;
	}
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
	_rsp_builder_evidence(b, ti, cpu, t);
	if (th->st == TS_RUNNING && th->cpu == cpu)
		vec_push(&th->samples, s);
	else
		b->t->n_samples_dropped++;
}

void builder_comm(struct builder *b, uint64_t t, uint32_t pid, uint32_t tid, const char *comm,
		  bool exec)
{
	uint32_t ti = _rsp_builder_thread(b, tid, pid, t);
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
	uint32_t parent = ptid ? _rsp_builder_thread(b, ptid, ppid, t) : RSP_NONE;
	uint32_t ti = trace_thread_new(b->t, tid, pid, t);
	struct thread *th;

	while (b->bt.n < b->t->threads.n)
		vec_push(&b->bt, ((struct bthread){ .wake_cpu = -1 }));
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
	uint32_t ti = _rsp_builder_thread(b, tid, pid, t);

	if (ti == RSP_NONE)
		return;
	TH(b, ti)->exited = true;
	if (!TH(b, ti)->death || TH(b, ti)->death > t)
		TH(b, ti)->death = t;
	if (!b->t->recorded[TP_SWITCH] && TH(b, ti)->st == TS_UNKNOWN) {
		/* no switch will end it: its life ends here */
		_rsp_close_slice(TH(b, ti), t);
		TH(b, ti)->st = TS_DEAD;
	}
}

/* Is @cpu's state unknown (records lost there, nothing known since)? */
bool builder_cpu_lost(const struct builder *b, uint32_t cpu)
{
	return cpu < b->ncpus && b->cpus[cpu].cur == CPU_UNKNOWN;
}

/*
 * A second copy of switch @ev, already built, merged at @t after the CPU's
 * state was lost since (builder_lost()): its next task runs here from @t.
 * rsp record's system-wide copy comes after its ring's LOST record, the
 * target's copy (its own ring) before it; without this the task stayed unknown
 * until its next event, a spinner's whole 4 ms run per loss.
 */
void builder_switch_again(struct builder *b, uint64_t t, uint32_t cpu, const struct rsp_dev *ev)
{
	uint32_t n;

	if (!builder_cpu_lost(b, cpu) || !ev->u.sw.next || b->cpus[cpu].since > t)
		return;
	n = _rsp_builder_thread(b, ev->u.sw.next, 0, t);
	if (n == RSP_NONE || TH(b, n)->st != TS_UNKNOWN)
		return;
	_rsp_open_run(b, n, cpu, t, RSP_NONE, 0);
}

/* Where a span lost on @cpu before @t begins: at @since, its ring's last record
 * there, if known; else the CPU's last record, else the trace's start. */
static uint64_t lost_start(const struct builder *b, uint32_t cpu, uint64_t since, uint64_t t)
{
	if (since && since <= t)
		return since;
	return b->cpus[cpu].last_time ? b->cpus[cpu].last_time : b->t->t_start;
}

void builder_lost(struct builder *b, uint64_t t, uint32_t cpu, uint64_t n, uint64_t since)
{
	struct lost_span ls;
	struct cpu *cs;

	if (cpu >= b->ncpus)
		return;
	cs = &b->cpus[cpu];
	ls.cpu = cpu;
	/* since the ring's last record (other rings' records came meanwhile) */
	ls.start = lost_start(b, cpu, since, t);
	ls.end = t;
	ls.lost = n;
	ls.attr = -1;
	ls.shed = ls.open = ls.ring = false;
	vec_push(&b->t->lost, ls);
	if (cs->cur != CPU_IDLE && cs->cur != CPU_UNKNOWN) {
		struct thread *th = TH(b, cs->cur);

		if (th->st == TS_RUNNING && th->cpu == cpu) {
			struct slice *s = cur_slice(th);

			if (s)
				s->flags |= SL_LOST;
			/* its run began inside the span (another ring's record) */
			_rsp_open_unknown(b, cs->cur, s && s->start > ls.start ? s->start : ls.start,
					  true);
		}
	}
	cs->cur = CPU_UNKNOWN;
	cs->since = t;
	cs->irq = -1;
	cs->softirq = -1;
	cs->last_io = cs->last_net = RSP_NONE;
}

/*
 * @n records lost on @cpu before @t from a ring of the target's own (its owner
 * @attr): stack copies of events the system-wide rings also hold, and the
 * target's samples.  The timeline stays whole; the span names what is missing.
 */
void builder_lost_ring(struct builder *b, uint64_t t, uint32_t cpu, int32_t attr, uint64_t n,
		       uint64_t since)
{
	struct lost_span ls;

	if (cpu >= b->ncpus)
		return;
	memset(&ls, 0, sizeof(ls));
	ls.cpu = cpu;
	ls.start = lost_start(b, cpu, since, t);
	ls.end = t > ls.start ? t : ls.start;
	ls.lost = n;
	ls.attr = attr;
	ls.ring = true;
	vec_push(&b->t->lost, ls);
}

void builder_lost_type(struct builder *b, uint64_t t, uint32_t cpu, int32_t attr, uint64_t n,
		       bool begin)
{
	struct lost_span ls;

	if (cpu >= b->ncpus)
		return;
	/* the span this ends: the last one begun for this type and CPU */
	for (size_t i = b->t->lost.n; !begin && i-- > 0;) {
		struct lost_span *o = &b->t->lost.v[i];

		if (o->open && o->attr == attr && o->cpu == cpu) {
			o->end = t;
			o->lost = n;
			o->open = false;
			return;
		}
	}
	ls.cpu = cpu;
	ls.start = begin ? t : lost_start(b, cpu, 0, t);
	ls.end = t;
	if (!begin && (t == 0 || t < ls.start)) {
		/* perf record's own count at its end (read_format's lost, time 0 or
		 * before the CPU's last event): when they were lost is not known, so
		 * the whole recording is uncertain for this type */
		ls.start = b->t->t_start;
		ls.end = b->t->t_end > ls.start ? b->t->t_end : ls.start;
		if (b->end_later) {
			uint32_t at = (uint32_t)b->t->lost.n;

			ls.end = ls.start; /* till builder_finish() */
			vec_push(&b->at_end, at);
		}
	}
	ls.lost = n;
	ls.attr = attr;
	ls.shed = begin;
	ls.open = begin;
	ls.ring = false;
	vec_push(&b->t->lost, ls);
}

struct span_key {
	const uint64_t (*sp)[2];
	uint64_t start;
};

static bool span_ends_before(const void *ctx, size_t i)
{
	const struct span_key *k = ctx;

	return k->sp[i][1] < k->start;
}

static int cmp_span(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/*
 * A thread's unknown time that overlaps a span of every event lost (on any
 * CPU) is the loss's: its switch records disagree because some of them were
 * lost (a switch-out lost, its next switch-in elsewhere seen), and is named
 * so (SL_LOST), not as a disagreement of the records the trace holds.  An
 * oversubscribed target's recording with 1,583 records lost read 486 ms of
 * "switch records disagree" beside them in CI.
 */
static void unknown_in_lost_spans(struct rsp_trace *t)
{
	uint64_t (*sp)[2];
	size_t n = 0, m = 0;

	for (size_t i = 0; i < t->lost.n; i++)
		n += t->lost.v[i].attr < 0;
	if (!n || !(sp = malloc(n * sizeof(*sp))))
		return;
	for (size_t i = 0; i < t->lost.n; i++)
		if (t->lost.v[i].attr < 0) {
			sp[m][0] = t->lost.v[i].start;
			sp[m++][1] = t->lost.v[i].end;
		}
	qsort(sp, m, sizeof(*sp), cmp_span);
	n = 0; /* merged into disjoint spans */
	for (size_t i = 0; i < m; i++) {
		if (n && sp[i][0] <= sp[n - 1][1]) {
			if (sp[i][1] > sp[n - 1][1])
				sp[n - 1][1] = sp[i][1];
		} else {
			sp[n][0] = sp[i][0];
			sp[n++][1] = sp[i][1];
		}
	}
	for (size_t i = 0; i < t->threads.n; i++) {
		struct thread *th = &t->threads.v[i];

		struct span_key k = { (const uint64_t(*)[2])sp, 0 };
		size_t at = 0;

		for (size_t j = 0; j < th->slices.n; j++) {
			struct slice *u = &th->slices.v[j];

			if (u->kind != SLICE_UNKNOWN || (u->flags & (SL_LOST | SL_NOT_RECORDED)))
				continue;
			/* the first span ending at or after the slice's start */
			k.start = u->start;
			at = _rsp_gallop(n, at, span_ends_before, &k);
			if (at < n && sp[at][0] <= u->end)
				u->flags |= SL_LOST;
		}
	}
	free(sp);
}

/* Might a sched_waking have been lost in @sp (a span where every event of a
 * CPU, or that event type, was lost or shed)? */
static bool waking_lost_in(const struct rsp_trace *t, const struct span *sp)
{
	for (size_t i = 0; i < t->lost.n; i++) {
		const struct lost_span *l = &t->lost.v[i];

		if (l->ring || l->start > sp->to || l->end < sp->from)
			continue;
		if (l->attr < 0 || t->dec[l->attr].kind == TP_WAKING)
			return true;
	}
	return false;
}

void builder_finish(struct builder *b)
{
	uint64_t end = b->t->t_end;

	/* the spans of an unknown time that last to the end, now that it is known */
	for (size_t i = 0; i < b->at_end.n; i++)
		if (b->at_end.v[i] < b->t->lost.n) {
			struct lost_span *ls = &b->t->lost.v[b->at_end.v[i]];

			ls->end = end > ls->start ? end : ls->start;
		}
	/* a shed span still open at the end (a recorder killed): it lasted to the end */
	for (size_t i = 0; i < b->t->lost.n; i++)
		if (b->t->lost.v[i].open && b->t->lost.v[i].start <= end)
			b->t->lost.v[i].end = end;

	for (size_t i = 0; i < b->t->threads.n; i++) {
		struct thread *th = &b->t->threads.v[i];
		struct slice *s;

		/* a trace without scheduler events: a thread born or dead in it (a fork,
		 * an exit) but never sampled still lived then, in a state not recorded
		 * (perf record -F 97 of a parent that waits for its children: its few
		 * milliseconds of CPU often get no sample) */
		if (!b->t->recorded[TP_SWITCH] && !th->slices.n && (th->birth || th->exited)) {
			uint64_t start = th->birth > b->t->t_start ? th->birth : b->t->t_start;
			struct slice *u = _rsp_push_slice(th, SLICE_UNKNOWN, start, 0, SL_NOT_RECORDED);

			th->st = TS_UNKNOWN;
			if (u && th->exited && th->death >= start)
				u->end = th->death > start ? th->death : start + 1;
		}
		s = cur_slice(th);
		if (s && s->end == 0) {
			s->end = end > s->start ? end : s->start;
			s->flags |= SL_OPEN_END;
		}
		if (th->death == 0 && !th->exited)
			th->death = UINT64_MAX;
		vec_shrink(&th->slices);
		vec_shrink(&th->samples);
	}
	unknown_in_lost_spans(b->t);
	for (size_t i = 0; i < b->unlinked.n; i++)
		b->t->n_wakeups_unlinked_lost += waking_lost_in(b->t, &b->unlinked.v[i]);
	vec_shrink(&b->t->links);
}
