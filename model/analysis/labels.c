/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The labels that say *what* each leaf was: a process and the function its
 * stack waited or ran in ("caller > function"), a device, a peer, the thread
 * that preempted it or ran meanwhile; cached per (stack, process) and per
 * (thread, what).
 */
#include "analysis/analysis-private.h"

#include <stdio.h>
#include <string.h>

const char *analysis_thread_comm(const struct rsp_analysis *an, uint32_t th)
{
	const char *c = th < an->t->threads.n ? trace_str(an->t, an->t->threads.v[th].comm) : "";

	return *c ? c : "?";
}

/*
 * The recorder's own threads, in a file rsp record wrote: where they held a
 * CPU the target waited for, the report says it was the recorder (the time
 * the recording took from the program: it stays accounted, as contention).
 * By their names (cli/cmd-record.c names them); the file does not hold the
 * recorder's pid, so another rsp record running at the same time reads as
 * the recorder too.
 */
bool analysis_is_recorder(const struct rsp_analysis *an, uint32_t th)
{
	static const char *const names[] = { "rsp-record", "rsp-writer", "rsp-ustack",
						     "rsp-watch", "rsp-cmdline" };
	const char *comm;

	if (!an->by_rsp || th >= an->t->threads.n)
		return false;
	comm = analysis_thread_comm(an, th);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(comm, names[i]))
			return true;
	return false;
}

static int thread_pid(const struct rsp_analysis *an, uint32_t th)
{
	return th < an->t->threads.n ? (int)an->t->threads.v[th].pid : -1;
}

/*
 * "caller > function" for a sleep or sample stack: the innermost user
 * function and its caller; kernel threads: the first kernel function that
 * is not the scheduler itself.
 */
static uint32_t stack_label(struct rsp_analysis *an, uint32_t stack, int pid, uint64_t time,
			    bool want_kernel)
{
	const char *inner, *caller, *kfunc;
	char buf[256], names[2][128];

	rsp_stack_label_frames(an->t, stack, pid, time, names[0], sizeof(names[0]), &inner, &caller,
	                       &kfunc);
	if (want_kernel && kfunc)
		snprintf(buf, sizeof(buf), "%s", kfunc);
	else if (inner && caller)
		snprintf(buf, sizeof(buf), "%s > %s", caller, inner);
	else if (inner)
		snprintf(buf, sizeof(buf), "%s", inner);
	else if (kfunc)
		snprintf(buf, sizeof(buf), "[kernel] %s", kfunc);
	else
		return 0;
	return trace_intern(an->t, buf);
}

/*
 * Per (stack, pid, kernel?) label cache, on the unwound stack: a user-stack
 * copy is one pending id per sample, but the stacks they unwind to repeat.
 * The key is the whole triple (an unwound id never has RSP_STACK_PENDING's
 * bit, which carries kernel?), so different stacks never share a label.
 */
uint32_t analysis_cached_label(struct rsp_analysis *an, uint32_t stack, int pid, uint64_t time,
			       bool kernel)
{
	uint64_t key;
	uint32_t label;

	stack = analysis_stack_id(an, stack);
	/* a JIT runtime's reused addresses (rsp_trace_names_epoch()): named at each use */
	if (!stack || (stack & RSP_STACK_PENDING) || rsp_trace_names_epoch(an->t, pid, time))
		return stack ? stack_label(an, stack, pid, time, kernel) : 0;
	key = (uint64_t)(stack | (kernel ? RSP_STACK_PENDING : 0)) << 32 | (uint32_t)pid;
	if (_rsp_u64map_get(&an->labels, key, &label))
		return label;
	label = stack_label(an, stack, pid, time, kernel);
	_rsp_u64map_put(&an->labels, key, label); /* no room: computed again next time */
	return label;
}

/* "comm: what" (what a label, 0: the comm alone), once per (comm, what): a leaf each */
uint32_t analysis_with_comm(struct rsp_analysis *an, uint32_t thread, uint32_t what)
{
	uint64_t key = (uint64_t)an->t->threads.v[thread].comm << 32 | what;
	char buf[320];
	uint32_t l;

	if (_rsp_u64map_get(&an->comm_labels, key, &l))
		return l;
	if (!what) {
		l = trace_intern(an->t, analysis_thread_comm(an, thread));
	} else {
		snprintf(buf, sizeof(buf), "%s: %s", analysis_thread_comm(an, thread), trace_str(an->t, what));
		l = trace_intern(an->t, buf);
	}
	_rsp_u64map_put(&an->comm_labels, key, l); /* no room: made again next time */
	return l;
}

bool analysis_is_deliberate(struct rsp_analysis *an, uint32_t stack)
{
	static const char *const sleeps[] = {
		"do_nanosleep", "hrtimer_nanosleep", "common_nsleep", "__x64_sys_nanosleep",
		"__x64_sys_clock_nanosleep", "__do_sys_clock_nanosleep",
	};
	size_t n = rsp_stack_n_frames(an->t, stack);

	for (size_t i = 0; i < n; i++) {
		struct rsp_frame_info f;

		rsp_stack_frame(an->t, stack, i, 0, 0, &f);
		if (!f.kernel)
			break;
		for (size_t k = 0; f.func && k < sizeof(sleeps) / sizeof(sleeps[0]); k++)
			if (!strcmp(f.func, sleeps[k]))
				return true;
	}
	return false;
}

/* softirq vectors (include/linux/interrupt.h) */
#define SOFTIRQ_NET_TX 2
#define SOFTIRQ_NET_RX 3
#define SOFTIRQ_BLOCK 4

const char *analysis_not_recorded(const struct rsp_analysis *an, const struct slice *s,
				  const struct link *l)
{
	const bool *rec = an->t->recorded;

	if (!l) {
		if (!rec[TP_WAKING] && !rec[TP_WAKEUP])
			return "sched:sched_waking";
		if ((s->flags & SL_UNINTERRUPTIBLE) && !rec[TP_BLK_COMPLETE])
			return "block:block_rq_complete";
		return NULL;
	}
	switch (l->kind) {
	case LINK_SOFTIRQ:
		if ((l->extra == SOFTIRQ_NET_RX || l->extra == SOFTIRQ_NET_TX) && !rec[TP_SK_READY])
			return "sock:sk_data_ready";
		if (l->extra == SOFTIRQ_BLOCK && !rec[TP_BLK_COMPLETE])
			return "block:block_rq_complete";
		return NULL;
	case LINK_TIMER:
		/* a hard-irq wakeup outside any handler is taken for the timer's: without
		 * the handlers' events, a device's is told from it by nothing */
		if (l->ctx == RSP_CTX_HARDIRQ && !rec[TP_IRQ_ENTRY])
			return "irq:irq_handler_entry";
		return NULL;
	default:
		return NULL;
	}
}

void analysis_unexplained(struct rsp_analysis *an, const struct slice *s, const struct link *l,
			  uint32_t thread, uint64_t lo, uint64_t hi, uint32_t parent,
			  uint32_t depth)
{
	bool d = s->flags & SL_UNINTERRUPTIBLE;
	const char *missing = analysis_not_recorded(an, s, l);
	uint32_t what, n;

	if (missing) {
		/* the trace could not hold the cause: not a kernel block, unaccounted */
		char buf[160];

		n = analysis_leaf(an, RSP_NODE_UNACCOUNTED, RSP_CAT_UNACCOUNTED, lo, hi, parent,
				  depth, thread);
		if (n == RSP_NONE)
			return;
		snprintf(buf, sizeof(buf), "cause not recorded: %s missing", missing);
		analysis_node(an, n)->label = analysis_with_comm(an, thread, trace_intern(an->t, buf));
		return;
	}
	n = analysis_leaf(an, d ? RSP_NODE_KERNEL : RSP_NODE_UNACCOUNTED,
			  d ? RSP_CAT_KERNEL : RSP_CAT_UNACCOUNTED, lo, hi, parent, depth, thread);
	if (n == RSP_NONE)
		return;
	what = analysis_cached_label(an, s->stack, thread_pid(an, thread), s->start, d);
	analysis_node(an, n)->label = analysis_with_comm(an, thread, what);
	if (d && what)
		analysis_explained_ns(an, hi - lo); /* a named kernel wait */
}

/*
 * "disk 8:1 R by reader": the request and who issued it; a request with no
 * issuer recorded (a cache flush the block layer sends for an fsync, issued
 * from a completion) is named by the thread that waited for it: "for COMM".
 */
void analysis_label_io(struct rsp_analysis *an, uint32_t node, const struct io_op *io,
		       uint32_t waiter)
{
	char buf[160];

	if (io->tid != RSP_NONE)
		snprintf(buf, sizeof(buf), "disk %u:%u %s by %s", io->dev >> 20, io->dev & 0xfffff,
			 io->rwbs, analysis_thread_comm(an, io->tid));
	else if (waiter != RSP_NONE)
		snprintf(buf, sizeof(buf), "disk %u:%u %s for %s", io->dev >> 20, io->dev & 0xfffff,
			 io->rwbs, analysis_thread_comm(an, waiter));
	else
		snprintf(buf, sizeof(buf), "disk %u:%u %s", io->dev >> 20, io->dev & 0xfffff,
			 io->rwbs);
	analysis_node(an, node)->label = trace_intern(an->t, buf);
	analysis_explained_ns(an, analysis_node(an, node)->end - analysis_node(an, node)->start);
}

void analysis_label_net(struct rsp_analysis *an, uint32_t node, uint32_t net)
{
	const struct net_op *n = &an->t->nets.v[net];
	struct rsp_socket_info so;
	char buf[160];

	rsp_trace_socket(an->t, n->sock, &so);
	if (so.listening) /* woken by a connection to it */
		snprintf(buf, sizeof(buf), "connection to %s (listening)", so.local);
	else if (so.remote[0])
		snprintf(buf, sizeof(buf), "peer %s", so.remote);
	else
		snprintf(buf, sizeof(buf), "peer unknown (socket %#llx)", (unsigned long long)so.sk);
	analysis_node(an, node)->label = trace_intern(an->t, buf);
	if (so.remote[0] || so.local[0])
		analysis_explained_ns(an,
				      analysis_node(an, node)->end - analysis_node(an, node)->start);
}

uint32_t analysis_other_alone(struct rsp_analysis *an, uint32_t thread)
{
	uint64_t key = (uint64_t)thread << 32 | RSP_NONE;
	char buf[160];
	uint32_t l;

	if (!_rsp_u64map_get(&an->other_labels, key, &l)) {
		snprintf(buf, sizeof(buf), "%s (tid %u)", analysis_thread_comm(an, thread),
			 an->t->threads.v[thread].tid);
		l = trace_intern(an->t, buf);
		_rsp_u64map_put(&an->other_labels, key, l);
	}
	return l;
}

void analysis_label_other(struct rsp_analysis *an, uint32_t node, uint32_t thread)
{
	analysis_node(an, node)->label = analysis_other_alone(an, thread);
}

void analysis_label_thread(struct rsp_analysis *an, uint32_t node, uint32_t thread)
{
	analysis_node(an, node)->label = analysis_with_comm(an, thread, 0);
}

/*
 * @other as seen from @thread: its comm, or, for a namesake, "another thread
 * of COMM" / "another COMM process" ("cc1 preempted by cc1" would read as a
 * process preempting itself).
 */
static const char *other_words(struct rsp_analysis *an, uint32_t thread, uint32_t other,
			       char *buf, size_t len)
{
	const char *me = analysis_thread_comm(an, thread), *o = analysis_thread_comm(an, other);

	if (analysis_is_recorder(an, other))
		return RSP_RECORDER_WORDS;
	if (strcmp(me, o))
		return o;
	if (an->t->threads.v[thread].pid == an->t->threads.v[other].pid)
		snprintf(buf, len, "another thread of %s", o);
	else
		snprintf(buf, len, "another %s process", o);
	return buf;
}

/*
 * The key of a label that names @thread and @other by their comms (other_words()):
 * the two comms and whether they are one process; UINT64_MAX (not cached) where
 * a comm's id does not leave room for that bit.
 */
static uint64_t comm_pair_key(const struct rsp_analysis *an, uint32_t thread, uint32_t other)
{
	const struct thread *a = &an->t->threads.v[thread], *b = &an->t->threads.v[other];

	if (a->comm >= 1u << 31)
		return UINT64_MAX;
	return (uint64_t)(a->pid == b->pid) << 63 | (uint64_t)a->comm << 32 | b->comm;
}

void analysis_label_preempted(struct rsp_analysis *an, uint32_t node, uint32_t thread,
			      uint32_t by)
{
	uint64_t key = comm_pair_key(an, thread, by); /* by is a thread: never RSP_NONE */
	char buf[160];
	uint32_t l;

	if (!_rsp_u64map_get(&an->preempted_labels, key, &l)) {
		char other[80];

		snprintf(buf, sizeof(buf), "%s preempted by %s", analysis_thread_comm(an, thread),
			 other_words(an, thread, by, other, sizeof(other)));
		l = trace_intern(an->t, buf);
		_rsp_u64map_put(&an->preempted_labels, key, l);
	}
	analysis_node(an, node)->label = l;
	analysis_explained_ns(an, analysis_node(an, node)->end - analysis_node(an, node)->start);
	if (analysis_is_recorder(an, by))
		an->recorder_ns += analysis_node(an, node)->end - analysis_node(an, node)->start;
}

/* "comm: preempted, while X ran": a preemption after its preemptor left the CPU. */
void analysis_label_preempted_while(struct rsp_analysis *an, uint32_t node, uint32_t thread,
				    uint32_t holder)
{
	uint64_t key = comm_pair_key(an, thread, holder);
	char buf[160];
	uint32_t l;

	if (!_rsp_u64map_get(&an->preempt_while_labels, key, &l)) {
		char other[80];

		snprintf(buf, sizeof(buf), "%s preempted, while %s ran",
			 analysis_thread_comm(an, thread),
			 other_words(an, thread, holder, other, sizeof(other)));
		l = trace_intern(an->t, buf);
		_rsp_u64map_put(&an->preempt_while_labels, key, l);
	}
	analysis_node(an, node)->label = l;
	analysis_explained_ns(an, analysis_node(an, node)->end - analysis_node(an, node)->start);
	if (analysis_is_recorder(an, holder))
		an->recorder_ns += analysis_node(an, node)->end - analysis_node(an, node)->start;
}

/* The other thread of the same process that ran most during [lo, hi]. */
static uint32_t ran_meanwhile(struct rsp_analysis *an, uint32_t thread, uint64_t lo, uint64_t hi)
{
	const struct thread *me = &an->t->threads.v[thread];
	uint32_t best = RSP_NONE;
	uint64_t best_ns = 0;

	for (size_t i = 0; i < an->t->threads.n; i++) {
		const struct thread *o = &an->t->threads.v[i];
		uint64_t ns = 0;

		if (i == thread || o->pid != me->pid)
			continue;
		for (size_t k = analysis_first_slice(an, (uint32_t)i, lo); k < o->slices.n; k++) {
			const struct slice *s = &o->slices.v[k];
			uint64_t a = s->start > lo ? s->start : lo, b = s->end < hi ? s->end : hi;

			if (s->start >= hi)
				break;
			if (s->kind == SLICE_RUN && b > a)
				ns += b - a;
		}
		if (ns > best_ns) {
			best_ns = ns;
			best = (uint32_t)i;
		}
	}
	return best;
}

void analysis_label_timeout(struct rsp_analysis *an, uint32_t node, uint32_t thread,
			    const struct slice *s, bool deliberate)
{
	struct anode *n = analysis_node(an, node);
	uint32_t what = analysis_cached_label(an, s->stack, thread_pid(an, thread), s->start, false);
	uint32_t other = deliberate ? RSP_NONE : ran_meanwhile(an, thread, n->start, n->end);
	char buf[400];

	if (other != RSP_NONE) {
		snprintf(buf, sizeof(buf), "%s: %s, while %s ran", analysis_thread_comm(an, thread),
			 what ? trace_str(an->t, what) : "?", analysis_thread_comm(an, other));
		n = analysis_node(an, node);
		n->label = trace_intern(an->t, buf);
		n->other = other;
	} else {
		uint32_t l = analysis_with_comm(an, thread, what);

		analysis_node(an, node)->label = l;
	}
	if (what)
		analysis_explained_ns(an, analysis_node(an, node)->end - analysis_node(an, node)->start);
}

void analysis_label_kernel(struct rsp_analysis *an, uint32_t node, uint32_t thread,
			   const struct slice *s)
{
	uint32_t what = analysis_cached_label(an, s->stack, thread_pid(an, thread), s->start, true);

	analysis_node(an, node)->label = analysis_with_comm(an, thread, what);
	if (what)
		analysis_explained_ns(an, analysis_node(an, node)->end - analysis_node(an, node)->start);
}

void analysis_label_lost(struct rsp_analysis *an, uint32_t node, uint16_t cpu, bool lost)
{
	char buf[64];

	snprintf(buf, sizeof(buf), lost ? "cpu%u: records lost" : "cpu%u: switch records disagree",
		 cpu);
	analysis_node(an, node)->label = trace_intern(an->t, buf);
}

void analysis_labels_free(struct rsp_analysis *an)
{
	_rsp_u64map_free(&an->labels);
	_rsp_u64map_free(&an->comm_labels);
	_rsp_u64map_free(&an->other_labels);
	_rsp_u64map_free(&an->preempted_labels);
	_rsp_u64map_free(&an->preempt_while_labels);
	_rsp_u64map_free(&an->tid_labels);
}
