/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The public queries of rsp-model.h over the loaded trace. */
#include "timeline/trace-private.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t idx_or_none(uint32_t v)
{
	return v == RSP_NONE ? RSP_NO_INDEX : (size_t)v;
}

void rsp_trace_get_summary(const struct rsp_trace *t, struct rsp_trace_summary *o)
{
	const struct rsp_reader_info *in = rsp_reader_info(t->reader);
	size_t procs = 0;

	memset(o, 0, sizeof(*o));
	o->start_ns = t->t_start;
	o->end_ns = t->t_end;
	if (in->have_clock_data && in->clock_data_clk_ns <= t->t_start)
		o->wall_start_ns = in->clock_data_tod_ns + (t->t_start - in->clock_data_clk_ns);
	o->nr_cpus = t->nr_cpus;
	o->hostname = in->hostname ? in->hostname : "";
	o->osrelease = in->osrelease ? in->osrelease : "";
	o->arch = in->arch ? in->arch : "";
	o->recorder = in->version ? in->version : "";
	o->pipe_mode = in->pipe_mode;
	o->truncated = in->truncated;
	o->unfinished = in->unfinished;
	o->have_sched = t->recorded[TP_SWITCH];
	o->file_records = in->n_records;
	o->events = t->n_events;
	for (size_t i = 0; i < t->threads.n; i++) {
		o->samples += t->threads.v[i].samples.n;
		procs += t->threads.v[i].tid == t->threads.v[i].pid;
	}
	o->inferred_switches = t->n_inferred;
	o->runs_placed = t->n_runs_placed;
	o->merged_copies = t->n_dup_merged;
	o->segments = rsp_reader_n_segments(t->reader);
	o->segments_inflated = rsp_reader_n_inflated(t->reader);
	o->segments_shared = t->n_segs_shared;
	o->one_pass = t->one_pass;
	o->dropped_samples = t->n_samples_dropped;
	o->broken_chains = t->n_broken_chains;
	o->wakeups = t->n_wakeups;
	o->wakeups_unlinked = t->n_wakeups_unlinked;
	o->wakeups_unlinked_lost = t->n_wakeups_unlinked_lost;
	o->wakeups_raced = t->n_wakeups_raced;
	for (size_t i = 0; i < t->lost.n; i++)
		if (t->lost.v[i].attr < 0)
			o->lost_events += t->lost.v[i].lost;
	o->n_threads = t->threads.n;
	o->n_processes = procs;
	o->have_waking = t->have_waking;
	o->have_irq = t->have_irq;
	o->have_block = t->have_block;
	o->have_net = t->have_net;
	o->kallsyms_in_file = t->td.kallsyms_len > 0;
	o->kallsyms_from_running_kernel = t->kallsyms_from_running_kernel;
	o->kallsyms_from_archive = t->kallsyms_from_archive;
}

size_t rsp_trace_n_cmdline(const struct rsp_trace *t)
{
	return rsp_reader_info(t->reader)->n_cmdline;
}

const char *rsp_trace_cmdline(const struct rsp_trace *t, size_t i)
{
	const struct rsp_reader_info *in = rsp_reader_info(t->reader);

	return i < in->n_cmdline ? in->cmdline[i] : NULL;
}

size_t rsp_trace_n_targets(const struct rsp_trace *t)
{
	return rsp_reader_info(t->reader)->n_targets;
}

int rsp_trace_target(const struct rsp_trace *t, size_t i)
{
	const struct rsp_reader_info *in = rsp_reader_info(t->reader);

	return i < in->n_targets ? in->targets[i] : -1;
}

size_t rsp_trace_n_warnings(const struct rsp_trace *t)
{
	return t->warnings.n;
}

const char *rsp_trace_warning(const struct rsp_trace *t, size_t i)
{
	return i < t->warnings.n ? t->warnings.v[i] : NULL;
}

size_t rsp_trace_n_event_types(const struct rsp_trace *t)
{
	return t->counts.n;
}

void rsp_trace_event_type(const struct rsp_trace *t, size_t i, struct rsp_event_type_info *o)
{
	const struct event_count *c = &t->counts.v[i];

	o->name = c->name;
	o->count = c->n;
	o->merged_copies = c->copies_merged;
	o->with_stack = c->with_stack;
	o->bytes = c->bytes;
}

/* What the analysis cannot say where event @name is missing (probes/events.conf). */
static const char *uncertain_without(const char *name)
{
	static const struct {
		const char *prefix, *what;
	} m[] = {
		{ "sock:sock_send_length", "network sends not linked" },
		{ "sock:sock_recv_length", "network receives not linked" },
		{ "sock:sk_data_ready", "network links" },
		{ "sock:inet_sock_set_state", "socket peers" },
		{ "irq:softirq", "timeouts not told apart from softirq work" },
		{ "irq:", "hardware waits not named" },
		{ "block:", "disk waits" },
		{ "sched:sched_stat_runtime", "run starts after an idle CPU's wakeup" },
		{ "sched:sched_wak", "wakeup causes" },
		{ "sched:sched_process", "process births and deaths" },
		{ "cpu-clock", "CPU samples (which code ran)" },
		{ "task-clock", "the target's CPU samples" },
	};

	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		if (!strncmp(name, m[i].prefix, strlen(m[i].prefix)))
			return m[i].what;
	return "what the analysis takes from it";
}

size_t rsp_trace_n_lost(const struct rsp_trace *t)
{
	return t->lost.n;
}

void rsp_trace_lost(const struct rsp_trace *t, size_t i, struct rsp_lost_info *o)
{
	const struct lost_span *l = &t->lost.v[i];

	o->cpu = (int)l->cpu;
	o->start_ns = l->start;
	o->end_ns = l->end;
	o->lost = l->lost;
	o->shed = l->shed;
	o->event = l->ring ? "the target's stack copies and samples" :
		   l->attr >= 0 ? t->dec[l->attr].name : NULL;
	o->uncertain = l->ring ? "the target's sleep stacks and CPU samples" :
		       o->event ? uncertain_without(o->event) : "everything on this CPU";
}

/* ---- threads -------------------------------------------------------------------------- */

size_t rsp_trace_n_threads(const struct rsp_trace *t)
{
	return t->threads.n;
}

void rsp_trace_thread(const struct rsp_trace *t, size_t i, struct rsp_thread_info *o)
{
	const struct thread *th = &t->threads.v[i];

	memset(o, 0, sizeof(*o));
	o->tid = (int)th->tid;
	o->pid = (int)th->pid;
	o->comm = trace_str(t, th->comm);
	o->first_comm = trace_str(t, th->first_comm ? th->first_comm : th->comm);
	o->cmdline = t->thread_cmdline ? t->thread_cmdline[i] : NULL;
	o->parent = idx_or_none(th->parent);
	o->birth_ns = th->birth;
	o->death_ns = th->death;
	o->run_ns = th->run_ns;
	o->sleep_ns = th->sleep_ns;
	o->unknown_ns = th->unknown_ns;
	o->n_slices = th->slices.n;
	o->n_samples = th->samples.n;
}

size_t rsp_trace_find_thread(const struct rsp_trace *t, int tid, uint64_t time)
{
	size_t best = RSP_NO_INDEX;

	for (size_t i = 0; i < t->threads.n; i++) {
		const struct thread *th = &t->threads.v[i];

		if ((int)th->tid != tid)
			continue;
		if (th->birth <= time && (th->death == 0 || th->death >= time))
			return i;
		if (best == RSP_NO_INDEX || th->birth <= time)
			best = i;
	}
	return best;
}

uint8_t *rsp_thread_filter_apply(struct rsp_trace *t, const struct rsp_thread_filter *f)
{
	size_t nt = t->threads.n;
	uint8_t *sel = calloc(nt ? nt : 1, 1);
	bool changed;

	if (!sel)
		return NULL;
	for (size_t i = 0; i < nt; i++) {
		const struct thread *th = &t->threads.v[i];

		if (th->tid == 0) /* the idle tasks are not threads that wait */
			continue;
		if (!f || (!f->n_pids && f->tid <= 0))
			sel[i] = 1;
		else if (f->tid > 0)
			sel[i] = (int)th->tid == f->tid;
		else
			for (size_t k = 0; k < f->n_pids; k++)
				if ((int)th->pid == f->pids[k])
					sel[i] = 1;
	}
	if (!f || f->tid > 0 || !f->n_pids || !f->descendants)
		return sel;
	/* processes forked by selected threads, with all their threads, to a fixed point */
	do {
		changed = false;
		for (size_t i = 0; i < nt; i++) {
			const struct thread *th = &t->threads.v[i];

			if (sel[i] || th->tid == 0 || th->parent >= nt || !sel[th->parent])
				continue;
			for (size_t k = 0; k < nt; k++) {
				if (!sel[k] && t->threads.v[k].pid == th->pid && t->threads.v[k].tid) {
					sel[k] = 1;
					changed = true;
				}
			}
		}
	} while (changed);
	return sel;
}

/* ---- slices ----------------------------------------------------------------------------- */

size_t rsp_thread_n_slices(const struct rsp_trace *t, size_t thread)
{
	return thread < t->threads.n ? t->threads.v[thread].slices.n : 0;
}

void rsp_thread_slice(const struct rsp_trace *t, size_t thread, size_t i, struct rsp_slice_info *o)
{
	const struct thread *th = &t->threads.v[thread];
	const struct slice *s = &th->slices.v[i];

	memset(o, 0, sizeof(*o));
	o->kind = (enum rsp_slice_kind)s->kind;
	o->start_ns = s->start;
	o->end_ns = s->end;
	o->wake_ns = s->wake;
	o->cpu = s->cpu;
	o->stack = s->stack;
	o->link = idx_or_none(s->link);
	o->flags = s->flags & (SL_INFERRED_START | SL_UNKNOWN_START | SL_EXEC | SL_OPEN_END |
			       SL_LOST);
	if (s->flags & SL_PREEMPTED)
		o->state = RSP_SLEEP_PREEMPTED;
	else if (s->flags & SL_UNINTERRUPTIBLE)
		o->state = RSP_SLEEP_UNINTERRUPTIBLE;
	else
		o->state = RSP_SLEEP_INTERRUPTIBLE;
	if (s->kind == SLICE_RUN) {
		size_t end = th->samples.n;

		for (size_t k = i + 1; k < th->slices.n; k++) {
			if (th->slices.v[k].kind == SLICE_RUN) {
				end = th->slices.v[k].samples;
				break;
			}
		}
		o->first_sample = s->samples;
		o->n_samples = end > s->samples ? end - s->samples : 0;
	} else if (s->kind == SLICE_UNKNOWN && (s->flags & SL_NOT_RECORDED)) {
		o->first_sample = 0;
		o->n_samples = th->samples.n;
	}
}

size_t rsp_thread_find_slice(const struct rsp_trace *t, size_t thread, uint64_t time)
{
	const struct thread *th;
	size_t lo = 0, hi;

	if (thread >= t->threads.n)
		return RSP_NO_INDEX;
	th = &t->threads.v[thread];
	hi = th->slices.n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (th->slices.v[mid].start <= time)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return RSP_NO_INDEX;
	lo--;
	return time <= th->slices.v[lo].end ? lo : RSP_NO_INDEX;
}

void rsp_thread_sample(const struct rsp_trace *t, size_t thread, size_t i,
		       struct rsp_sample_info *o)
{
	const struct tsample *s = &t->threads.v[thread].samples.v[i];

	o->time_ns = s->time;
	o->cpu = s->cpu;
	o->stack = s->stack;
	o->period_ns = s->attr < rsp_reader_n_attrs(t->reader) ? t->dec[s->attr].sample_ns : 0;
}

/* ---- links, I/O, network ------------------------------------------------------------------ */

size_t rsp_trace_n_links(const struct rsp_trace *t)
{
	return t->links.n;
}

void rsp_trace_link(const struct rsp_trace *t, size_t i, struct rsp_link_info *o)
{
	const struct link *l = &t->links.v[i];

	memset(o, 0, sizeof(*o));
	o->kind = (enum rsp_link_kind)l->kind;
	o->context = (enum rsp_wake_context)l->ctx;
	o->time_ns = l->time;
	o->cpu = l->cpu;
	o->waker_thread = idx_or_none(l->waker);
	o->waker_slice = idx_or_none(l->waker_slice);
	o->wakee_thread = idx_or_none(l->wakee);
	o->wakee_slice = idx_or_none(l->wakee_slice);
	o->waker_stack = l->stack;
	o->io = l->kind == LINK_IO ? idx_or_none(l->extra) : RSP_NO_INDEX;
	o->net = l->kind == LINK_NET ? idx_or_none(l->extra) : RSP_NO_INDEX;
	o->irq_name = l->kind == LINK_IRQ && l->extra != RSP_NONE ? trace_str(t, l->extra) : NULL;
	o->softirq = (l->kind == LINK_SOFTIRQ || l->kind == LINK_TIMER) && l->extra != RSP_NONE ?
			     (int)l->extra :
			     -1;
}

const char *rsp_link_kind_name(enum rsp_link_kind k)
{
	static const char *const names[] = {
		[RSP_LINK_WAKEUP] = "wakeup", [RSP_LINK_FORK] = "fork",
		[RSP_LINK_EXEC] = "exec",     [RSP_LINK_IO] = "io",
		[RSP_LINK_NET] = "net",	      [RSP_LINK_TIMER] = "timer",
		[RSP_LINK_IRQ] = "irq",	      [RSP_LINK_SOFTIRQ] = "softirq",
		[RSP_LINK_UNKNOWN] = "unknown", [RSP_LINK_PREEMPT] = "preempt",
	};

	return (unsigned)k < sizeof(names) / sizeof(names[0]) && names[k] ? names[k] : "?";
}

size_t rsp_trace_n_ios(const struct rsp_trace *t)
{
	return t->ios.n;
}

void rsp_trace_io(const struct rsp_trace *t, size_t i, struct rsp_io_info *o)
{
	const struct io_op *io = &t->ios.v[i];

	o->dev = io->dev;
	o->sector = io->sector;
	o->nr_sector = io->nr_sector;
	o->rwbs = io->rwbs;
	o->insert_ns = io->insert;
	o->issue_ns = io->issue;
	o->complete_ns = io->complete;
	o->thread = idx_or_none(io->tid);
	o->link = idx_or_none(io->woke);
}

size_t rsp_trace_n_sockets(const struct rsp_trace *t)
{
	return t->socks.n;
}

static void fmt_addr(char *buf, size_t len, int family, const uint8_t *a, uint16_t port)
{
	if (family == 10) {
		char hex[48];
		size_t n = 0;

		for (int i = 0; i < 16; i += 2)
			n += (size_t)snprintf(hex + n, sizeof(hex) - n, "%s%x", i ? ":" : "",
					      (a[i] << 8) | a[i + 1]);
		snprintf(buf, len, "[%s]:%u", hex, port);
	} else {
		snprintf(buf, len, "%u.%u.%u.%u:%u", a[0], a[1], a[2], a[3], port);
	}
}

void rsp_trace_socket(const struct rsp_trace *t, size_t i, struct rsp_socket_info *o)
{
	const struct sock_info *s = &t->socks.v[i];

	memset(o, 0, sizeof(*o));
	o->sk = s->sk;
	o->family = s->family;
	o->protocol = s->protocol;
	if (s->have_addr) {
		fmt_addr(o->local, sizeof(o->local), s->family, s->saddr, s->sport);
		fmt_addr(o->remote, sizeof(o->remote), s->family, s->daddr, s->dport);
		o->listening = !s->dport;
	}
	o->peer = idx_or_none(s->peer);
}

size_t rsp_trace_n_nets(const struct rsp_trace *t)
{
	return t->nets.n;
}

void rsp_trace_net(const struct rsp_trace *t, size_t i, struct rsp_net_info *o)
{
	const struct net_op *n = &t->nets.v[i];

	o->send_ns = n->send_time;
	o->ready_ns = n->ready_time;
	o->sender_thread = idx_or_none(n->sender);
	o->socket = idx_or_none(n->sock);
	o->link = idx_or_none(n->woke);
}

/* ---- stacks ----------------------------------------------------------------------------------- */


size_t rsp_stack_n_frames(struct rsp_trace *t, uint32_t stack)
{
	stack = trace_stack_resolve(t, stack);
	return stack && stack < t->stacks.entries.n ? t->stacks.entries.v[stack].n : 0;
}

static bool is_kernel_addr(uint64_t a)
{
	return a >= 0xffff800000000000ull;
}

void rsp_stack_frame(struct rsp_trace *t, uint32_t stack, size_t i, int pid, uint64_t time,
		     struct rsp_frame_info *o)
{
	const struct stack_entry *e;
	struct rsp_sym_frame f;

	memset(o, 0, sizeof(*o));
	o->dso = "[unknown]";
	stack = trace_stack_resolve(t, stack);
	if (!stack || stack >= t->stacks.entries.n)
		return;
	e = &t->stacks.entries.v[stack];
	if (i >= e->n)
		return;
	o->addr = o->rel_addr = t->stacks.frames.v[e->off + i];
	o->kernel = is_kernel_addr(o->addr);
	if (!t->sym)
		return;
	trace_stack_frame_sym(t, e, i, pid, time, o, &f);
}

uint32_t rsp_trace_names_epoch(struct rsp_trace *t, int pid, uint64_t time)
{
	return t->sym ? rsp_sym_names_epoch(t->sym, pid, time) : 0;
}

void trace_stack_frame_sym(struct rsp_trace *t, const struct stack_entry *e, size_t i, int pid,
			   uint64_t time, struct rsp_frame_info *o, struct rsp_sym_frame *f)
{
	/*
	 * All but the first frame of each context (kernel, user) are return
	 * addresses: the call is the instruction before, and after a noreturn
	 * call the return address already belongs to the next function.
	 */
	uint64_t back = i > 0 && is_kernel_addr(t->stacks.frames.v[e->off + i - 1]) == o->kernel;

	rsp_sym_lookup(t->sym, pid, time, o->addr - back, o->kernel, f);
	o->func = f->func;
	o->dso = f->dso ? f->dso : "[unknown]";
	o->offset = f->offset;
	o->rel_addr = f->rel_addr + back; /* the frame's own address, in the file */
}

const char *rsp_frame_name(const struct rsp_frame_info *f, char *buf, size_t len)
{
	const char *dso = f->dso, *base;
	size_t n;

	if (f->func && *f->func)
		return f->func;
	if (!dso || !*dso || !strcmp(dso, "[unknown]")) {
		snprintf(buf, len, "[unknown]");
		return buf;
	}
	base = dso[0] == '[' ? NULL : strrchr(dso, '/');
	base = base && base[1] ? base + 1 : dso;
	n = strlen(base);
	if (n > sizeof(" (deleted)") - 1 &&
	    !strcmp(base + n - (sizeof(" (deleted)") - 1), " (deleted)"))
		n -= sizeof(" (deleted)") - 1;
	snprintf(buf, len, "%.*s+0x%" PRIx64, (int)n, base, f->rel_addr);
	return buf;
}

void rsp_stack_label_frames(struct rsp_trace *t, uint32_t stack, int pid, uint64_t time,
                            char *names, size_t len, const char **inner, const char **caller,
                            const char **kfunc)
{
	size_t n = rsp_stack_n_frames(t, stack);
	struct rsp_frame_info f;
	const char *name;

	*inner = *caller = NULL;
	if (kfunc)
		*kfunc = NULL;
	for (size_t i = 0; i < n; i++) {
		rsp_stack_frame(t, stack, i, pid, time, &f);
		if (f.kernel) {
			if (kfunc && !*kfunc && f.func && !_rsp_is_sched_func(f.func))
				*kfunc = f.func;
			continue;
		}
		/* a frame of a file without symbols: "file+0xADDR"; none without a map */
		name = rsp_frame_name(&f, names + (*inner ? len : 0), len);
		if (!strcmp(name, "[unknown]"))
			continue;
		if (!*inner) {
			*inner = name;
		} else if (strcmp(name, *inner)) {
			*caller = name;
			break;
		}
	}
}

bool rsp_stack_complete(struct rsp_trace *t, uint32_t stack, int pid, uint64_t time)
{
	static const char *const roots[] = {
		"main", "start_thread", "__libc_start_main", "__libc_start_call_main",
		"_start", "clone3", "__clone3", "__clone", "thread_start",
	};
	size_t n = rsp_stack_n_frames(t, stack);

	for (size_t i = n; i-- > 0;) {
		struct rsp_frame_info f;

		rsp_stack_frame(t, stack, i, pid, time, &f);
		if (f.kernel || !f.func)
			continue;
		for (size_t k = 0; k < sizeof(roots) / sizeof(roots[0]); k++)
			if (!strcmp(f.func, roots[k]))
				return true;
	}
	return false;
}

/* The stack has user frames (addresses below the kernel's half) */
static bool stack_has_user(struct rsp_trace *t, uint32_t stack)
{
	const struct stack_entry *e;

	if (!rsp_stack_n_frames(t, stack)) /* unwinds a pending user-stack copy */
		return false;
	stack = trace_stack_resolve(t, stack);
	e = &t->stacks.entries.v[stack];
	for (size_t i = 0; i < e->n; i++)
		if (!is_kernel_addr(t->stacks.frames.v[e->off + i]))
			return true;
	return false;
}

static bool voluntary_with_stack(const struct rsp_slice_info *s)
{
	return s->kind == RSP_SLICE_SLEEP && s->state != RSP_SLEEP_PREEMPTED && s->stack;
}

#define COVERAGE_RUNS 16

void rsp_trace_stack_coverage(struct rsp_trace *t, bool targets, size_t max,
			      struct rsp_stack_coverage *out)
{
	size_t nt = rsp_trace_n_threads(t), n_pids = rsp_trace_n_targets(t), stride, per, runs, k = 0;
	int *pids = calloc(n_pids ? n_pids : 1, sizeof(int));
	struct rsp_thread_filter f = { .pids = pids, .n_pids = n_pids, .descendants = true };
	uint8_t *sel = NULL;

	memset(out, 0, sizeof(*out));
	if (!max || !pids || (targets && !n_pids))
		goto out;
	for (size_t i = 0; i < n_pids; i++)
		pids[i] = rsp_trace_target(t, i);
	/* the targets' process trees, or every thread */
	sel = rsp_thread_filter_apply(t, targets ? &f : NULL);
	if (!sel)
		goto out;
	/* count the voluntary sleeps with a stack first, to spread the checks */
	for (size_t ti = 0; ti < nt; ti++)
		for (size_t i = 0; sel[ti] && i < rsp_thread_n_slices(t, ti); i++) {
			struct rsp_slice_info s;

			rsp_thread_slice(t, ti, i, &s);
			out->sleeps += voluntary_with_stack(&s);
		}
	/*
	 * More than @max: COVERAGE_RUNS runs of consecutive sleeps, spread evenly.
	 * Consecutive sleeps lie close in the file, so the records to unwind come
	 * from a few segments of a compressed trace (reader.c), not one each.
	 */
	runs = out->sleeps > max ? (max < COVERAGE_RUNS ? max : COVERAGE_RUNS) : 1;
	per = out->sleeps > max ? max / runs : out->sleeps;
	stride = out->sleeps > max ? (size_t)(out->sleeps / runs) : out->sleeps + 1;
	for (size_t ti = 0; ti < nt; ti++) {
		struct rsp_thread_info th;

		if (!sel[ti])
			continue;
		rsp_trace_thread(t, ti, &th);
		for (size_t i = 0; i < rsp_thread_n_slices(t, ti); i++) {
			struct rsp_slice_info s;

			rsp_thread_slice(t, ti, i, &s);
			if (!voluntary_with_stack(&s) || k++ % stride >= per || out->checked >= max)
				continue;
			out->checked++;
			if (!stack_has_user(t, s.stack))
				continue; /* kernel threads, and sleeps whose user part was not recorded */
			out->with_user++;
			out->complete += rsp_stack_complete(t, s.stack, th.pid, s.start_ns);
		}
	}
out:
	free(sel);
	free(pids);
}
