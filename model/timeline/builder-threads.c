/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The builder's threads: each thread's slices opened and closed as its state
 * changes (running, sleeping, unknown), a thread first seen mid-trace, and a
 * switch-in the kernel did not record inferred from the first evidence that
 * the thread ran (docs/ANALYSIS.md, "What the kernel did not record").
 */
#include "timeline/builder-private.h"

#include <string.h>

uint32_t _rsp_builder_thread(struct builder *b, uint32_t tid, uint32_t pid, uint64_t time)
{
	uint32_t i;

	if (tid == UINT32_MAX)
		return RSP_NONE; /* perf's -1: no task (see builder_sample) */
	i = trace_thread_of(b->t, tid, pid, time);

	while (i != RSP_NONE && b->bt.n < b->t->threads.n)
		vec_push(&b->bt, ((struct bthread){ .wake_cpu = -1 }));
	return i;
}

struct slice *_rsp_push_slice(struct thread *th, uint8_t kind, uint64_t start, uint16_t cpu,
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

void _rsp_close_slice(struct thread *th, uint64_t end)
{
	struct slice *s = cur_slice(th);

	if (s && s->end == 0)
		s->end = end < s->start ? s->start : end;
}

void _rsp_open_run(struct builder *b, uint32_t ti, uint32_t cpu, uint64_t start,
		     uint32_t link, uint8_t flags)
{
	struct thread *th = TH(b, ti);
	struct slice *s = cur_slice(th);

	if (s && s->kind == SLICE_SLEEP && !(s->flags & (SL_PREEMPTED | SL_UNKNOWN_START)) &&
	    !(flags & SL_EXEC)) {
		b->t->n_wakeups++;
		if (link == RSP_NONE) {
			/* whether records were lost meanwhile is known at the end */
			b->t->n_wakeups_unlinked++;
			vec_push(&b->unlinked, ((struct span){ s->start, start }));
		}
	}
	_rsp_close_slice(th, start);
	s = _rsp_push_slice(th, SLICE_RUN, start, (uint16_t)cpu, flags);
	if (s) {
		s->link = link;
		if (link != RSP_NONE && link < b->t->links.n &&
		    b->t->links.v[link].wakee == ti)
			b->t->links.v[link].wakee_slice = (uint32_t)(th->slices.n - 1);
	}
	th->st = TS_RUNNING;
	th->cpu = (uint16_t)cpu;
	th->pending_link = RSP_NONE;
	b->bt.v[ti].race_state = RACE_NONE;
	b->bt.v[ti].wake_cpu = -1;
	b->bt.v[ti].run_acc = 0;
	b->bt.v[ti].first_ev = start;
	if (cpu < b->ncpus) {
		b->cpus[cpu].cur = ti;
		b->cpus[cpu].since = start;
	}
}

void _rsp_open_sleep(struct builder *b, uint32_t ti, uint64_t start, uint8_t flags,
		       uint32_t stack)
{
	struct thread *th = TH(b, ti);
	struct slice *s;

	_rsp_close_slice(th, start);
	s = _rsp_push_slice(th, SLICE_SLEEP, start, th->cpu, flags);
	if (s) {
		s->stack = stack;
		if (flags & SL_PREEMPTED)
			s->wake = start; /* runnable all along */
	}
	th->st = TS_SLEEPING;
	th->pending_link = RSP_NONE;
	b->bt.v[ti].wake_cpu = -1;
	b->bt.v[ti].race_state = RACE_NONE; /* on_switch() sets it after */
}

void _rsp_open_unknown(struct builder *b, uint32_t ti, uint64_t start, bool lost)
{
	struct thread *th = TH(b, ti);

	_rsp_close_slice(th, start);
	_rsp_push_slice(th, SLICE_UNKNOWN, start, th->cpu, lost ? SL_LOST : 0);
	th->st = TS_UNKNOWN;
	th->pending_link = RSP_NONE;
	b->bt.v[ti].race_state = RACE_NONE;
}

/* The thread is seen before any state: it existed before the trace. */
void _rsp_first_sight_sleeping(struct builder *b, uint32_t ti)
{
	struct thread *th = TH(b, ti);
	struct slice *s;

	if (th->st != TS_NEW)
		return;
	if (th->birth > b->t->t_start) { /* forked during the trace: runnable since */
		s = _rsp_push_slice(th, SLICE_SLEEP, th->birth, 0, SL_PREEMPTED | SL_BORN);
		if (s)
			s->wake = th->birth;
	} else {
		_rsp_push_slice(th, SLICE_SLEEP, b->t->t_start, 0, SL_UNKNOWN_START);
	}
	th->st = TS_SLEEPING;
}

/*
 * @ti ran on @cpu at @when although no switch-in was recorded: start its run
 * at its wakeup on this CPU if that is known, else at @when.
 */
void _rsp_infer_switch_in(struct builder *b, uint32_t ti, uint32_t cpu, uint64_t when)
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
		_rsp_close_slice(th, when);
	}
	if (th->st == TS_SLEEPING && s && s->kind == SLICE_SLEEP && s->wake &&
	    b->bt.v[ti].wake_cpu == (int32_t)cpu && s->wake >= cs->since && s->wake <= when)
		start = s->wake;
	else if (th->st == TS_NEW && cs->cur == CPU_UNKNOWN)
		start = cs->since; /* running since the trace (or a lost span) began */
	if (cs->cur != CPU_IDLE && cs->cur != CPU_UNKNOWN && cs->cur != ti) {
		/* another thread was current: its switch-out is missing */
		struct thread *o = TH(b, cs->cur);

		b->t->n_broken_chains++;
		if (o->st == TS_RUNNING && o->cpu == cpu)
			_rsp_open_unknown(b, cs->cur, start, false);
	}
	if (th->st == TS_NEW)
		_rsp_first_sight_sleeping(b, ti);
	if (s && s->kind == SLICE_SLEEP && s->start > start)
		start = s->start;
	_rsp_open_run(b, ti, cpu, start, th->pending_link, SL_INFERRED_START);
	b->bt.v[ti].first_ev = when;
	b->t->n_inferred++;
}

/* An event in @tid's own context on @cpu: it is running there. */
void _rsp_builder_evidence(struct builder *b, uint32_t ti, uint32_t cpu, uint64_t t)
{
	struct thread *th;

	if (ti == RSP_NONE || cpu >= b->ncpus)
		return;
	th = TH(b, ti);
	if (th->st == TS_DEAD)
		return;
	if (b->cpus[cpu].cur == ti && th->st == TS_RUNNING)
		return;
	_rsp_infer_switch_in(b, ti, cpu, t);
}

uint32_t _rsp_current_run(struct builder *b, uint32_t ti)
{
	struct thread *th = TH(b, ti);

	if (th->st != TS_RUNNING || !th->slices.n)
		return RSP_NONE;
	return (uint32_t)(th->slices.n - 1);
}


void _rsp_place_run(struct builder *b, uint32_t ti, uint64_t t)
{
	struct thread *th = TH(b, ti);
	const struct bthread *bt = &b->bt.v[ti];
	struct slice *r = cur_slice(th), *prev;
	uint64_t start;

	if (!r || r->kind != SLICE_RUN || r->end || !(r->flags & SL_INFERRED_START) ||
	    (r->flags & SL_LOST) || !bt->run_acc || th->slices.n < 2)
		return;
	prev = &th->slices.v[th->slices.n - 2];
	if (prev->kind != SLICE_SLEEP || prev->end != r->start)
		return;
	start = t > bt->run_acc ? t - bt->run_acc : 0;
	if (start > bt->first_ev)
		start = bt->first_ev;
	if (start <= r->start)
		return;
	prev->end = start;
	r->start = start;
	b->t->n_runs_placed++;
}
