/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The process-running view in words: the slice or lane item at a time on a
 * row (state, times, samples, the symbolized stack, what started or ended
 * it and the waker's stack), and the tooltip of a scene item.  It reads the
 * model (stacks, wakers), so its callers hold the trace.
 */
#include "render-running-private.h"

#include <inttypes.h>

/* ---- descriptions (the model: stacks and wakers) ------------------------------------------ */

static const char *state_name(const struct rslice *s)
{
	if (s->kind == RSP_SLICE_RUN)
		return "running";
	if (s->kind == RSP_SLICE_UNKNOWN)
		return "unknown (records lost)";
	switch (s->state) {
	case RSP_SLEEP_UNINTERRUPTIBLE:
		return "sleeping (D, uninterruptible)";
	case RSP_SLEEP_PREEMPTED:
		return "runnable (preempted)";
	default:
		return "sleeping (S)";
	}
}

static void describe_slice(const struct rsp_running_data *d, uint32_t thi, size_t k, GString *out)
{
	const struct rthread *th = &d->threads[thi];
	const struct rslice *s = &th->v[k];
	struct rsp_slice_info si;

	rsp_thread_slice(d->t, th->model, k, &si);
	g_string_append_printf(out, "%s (pid %d, tid %d)\n", th->comm, th->pid, th->tid);
	if (th->cmdline)
		g_string_append_printf(out, "command line: %s\n", th->cmdline);
	g_string_append_printf(out, "%s ", state_name(s));
	_rsp_append_dur(out, s->e - s->s);
	g_string_append(out, " from ");
	_rsp_append_time(out, s->s, d->start);
	g_string_append(out, " to ");
	_rsp_append_time(out, s->e, d->start);
	if (s->flags & RSP_SLICE_INFERRED_START)
		g_string_append(out, "\nswitch-in inferred (the kernel did not record it)");
	if (s->flags & RSP_SLICE_LOST)
		g_string_append(out, "\ntouches a span of lost records");
	if (s->kind == RSP_SLICE_RUN) {
		g_string_append_printf(out, "\n%zu sample%s", si.n_samples,
				       si.n_samples == 1 ? "" : "s");
		if (si.n_samples) {
			struct rsp_sample_info sm;

			rsp_thread_sample(d->t, th->model, si.first_sample, &sm);
			g_string_append(out, ", stack: ");
			_rsp_frames_append(&d->fc,
					   _rsp_frames_get((struct _rsp_frames *)&d->fc, sm.stack,
							   th->pid, sm.time_ns),
					   14, out);
		}
	} else if (s->kind == RSP_SLICE_SLEEP && si.stack) {
		const char *best;
		struct _rsp_fstack fs =
		    _rsp_frames_get((struct _rsp_frames *)&d->fc, si.stack, th->pid, si.start_ns);

		best = _rsp_frames_best(&d->fc, fs);
		if (best)
			g_string_append_printf(out, " in %s", best);
		g_string_append(out, "\nstack: ");
		_rsp_frames_append(&d->fc, fs, 14, out);
	}
	if (si.link != RSP_NO_INDEX && si.link < rsp_trace_n_links(d->t)) {
		struct rsp_link_info li;

		rsp_trace_link(d->t, si.link, &li);
		g_string_append_printf(
		    out, "\n%s: ", s->kind == RSP_SLICE_RUN ? "started by" : "ended by");
		if (li.waker_thread != RSP_NO_INDEX &&
		    li.waker_thread < rsp_trace_n_threads(d->t)) {
			struct rsp_thread_info wi;

			rsp_trace_thread(d->t, li.waker_thread, &wi);
			g_string_append_printf(out, "%s %d (%s) at ", wi.comm, wi.tid,
					       rsp_link_kind_name(li.kind));
			_rsp_append_time(out, li.time_ns, d->start);
			if (li.waker_stack) {
				g_string_append(out, "\nwaker's stack: ");
				_rsp_frames_append(&d->fc,
						   _rsp_frames_get((struct _rsp_frames *)&d->fc,
								   li.waker_stack, wi.pid,
								   li.time_ns),
						   14, out);
			}
		} else {
			g_string_append_printf(out, "%s%s%s at ", rsp_link_kind_name(li.kind),
					       li.irq_name ? " " : "",
					       li.irq_name ? li.irq_name : "");
			_rsp_append_time(out, li.time_ns, d->start);
		}
	}
}

static void describe_lane(const struct rsp_running_data *d, const struct rlane *l, size_t k,
			  GString *out)
{
	const struct litem *it = &l->v[k];

	if (l->kind == RSP_ROW_DISK) {
		struct rsp_io_info io;

		rsp_trace_io(d->t, it->model, &io);
		g_string_append_printf(out, "%s %s, %u sectors at %" PRIu64 "\nqueued ", l->name,
				       io.rwbs ? io.rwbs : "", io.nr_sector, io.sector);
		_rsp_append_dur(out, it->b - it->a);
		if (it->no_end) {
			g_string_append(out, ", its completion not in the trace (lost)");
		} else {
			g_string_append(out, ", in service ");
			_rsp_append_dur(out, it->c - it->b);
		}
		g_string_append(out, ", from ");
		_rsp_append_time(out, it->a, d->start);
	} else {
		/* its own connection: the lane may be a service's many */
		struct rsp_net_info ni;
		struct rsp_socket_info si;
		char name[200];

		rsp_trace_net(d->t, it->model, &ni);
		rsp_trace_socket(d->t, ni.socket, &si);
		_rsp_running_socket_name(&si, name, sizeof(name));
		g_string_append_printf(out, "%s\ndata in flight ", name);
		_rsp_append_dur(out, it->b - it->a);
		g_string_append(out, ", ready at ");
		_rsp_append_time(out, it->b, d->start);
	}
	if (it->thread != NONE)
		g_string_append_printf(out, "\n%s %s",
				       l->kind == RSP_ROW_DISK ? "issued by" : "sent by",
				       d->threads[it->thread].name);
}

/* A span missing one event type: which, where, and what it leaves uncertain. */
static void describe_lost(const struct rsp_running_data *d, const struct rsp_lost_info *li,
			  GString *out)
{
	g_string_append_printf(out, "%s %s", li->event ? li->event : "every event",
			       li->shed ? "shed by the recorder (its memory ceiling, --max-memory)"
					: "records lost");
	if (li->cpu >= 0)
		g_string_append_printf(out, " on CPU %d", li->cpu);
	g_string_append(out, "\nfrom ");
	_rsp_append_time(out, li->start_ns, d->start);
	g_string_append(out, " to ");
	_rsp_append_time(out, li->end_ns, d->start);
	g_string_append(out, " (");
	_rsp_append_dur(out, li->end_ns - li->start_ns);
	g_string_append_printf(out, "), %" PRIu64 " record%s", li->lost, li->lost == 1 ? "" : "s");
	if (li->uncertain)
		g_string_append_printf(out, "\nuncertain there: %s", li->uncertain);
	g_string_append(out, "\nthe rest of the timeline is whole there");
}

bool rsp_running_describe(const struct rsp_running_data *d, const struct rsp_running_state *st,
			  size_t row, uint64_t time, GString *out)
{
	struct rows_view rv;
	const struct row *rows;
	size_t nrows;
	bool found = false;

	_rsp_running_rows(d, st, &rv);
	rows = rv.rows;
	nrows = rv.n;

	if (row >= nrows)
		goto out;
	if (rows[row].kind == RSP_ROW_PROCESS || rows[row].kind == RSP_ROW_THREAD) {
		const uint32_t *ths;
		size_t nth;
		uint32_t one = rows[row].idx, best_th = NONE;
		size_t best_k = 0;

		if (rows[row].kind == RSP_ROW_PROCESS) {
			ths = d->procs[rows[row].idx].threads;
			nth = d->procs[rows[row].idx].n_threads;
		} else {
			ths = &one;
			nth = 1;
		}
		/* a running thread first */
		for (size_t i = 0; i < nth; i++) {
			const struct rthread *th = &d->threads[ths[i]];
			size_t k;

			RSP_LOWER_BOUND(th->v, th->n, e, time, k);
			if (k >= th->n || th->v[k].s > time)
				continue;
			if (best_th == NONE ||
			    (th->v[k].kind == RSP_SLICE_RUN &&
			     d->threads[best_th].v[best_k].kind != RSP_SLICE_RUN)) {
				best_th = ths[i];
				best_k = k;
			}
		}
		if (best_th != NONE) {
			describe_slice(d, best_th, best_k, out);
			found = true;
		}
	} else {
		const struct rlane *l = &d->lanes[rows[row].idx];

		for (size_t k = _rsp_lane_first(l, (double)time); k < l->n && l->v[k].a <= time; k++)
			if (time <= l->v[k].c) {
				describe_lane(d, l, k, out);
				found = true;
				break;
			}
	}
out:
	return found;
}

void _rsp_running_title(const void *data, const void *state, const struct rsp_scene_item *it,
			GString *out)
{
	const struct rsp_running_data *d = data;
	const struct rsp_running_state *st = state;
	uint64_t p = RSP_HIT_PAYLOAD(it->id);

	switch (RSP_HIT_KIND(it->id)) {
	case RSP_HIT_SLICE:
		if ((p >> 32) < d->n_threads && (p & 0xffffffff) < d->threads[p >> 32].n)
			describe_slice(d, (uint32_t)(p >> 32), p & 0xffffffff, out);
		break;
	case RSP_HIT_COLUMNS:
		g_string_append(out,
				"runs or sleeps narrower than a pixel, drawn as one: zoom in\n");
		rsp_running_describe(d, st, p, it->t0 + (it->t1 - it->t0) / 2, out);
		break;
	case RSP_HIT_LANE: {
		/* the item itself (row, index): items of a lane's sub-lanes overlap */
		struct rows_view rv;
		size_t row = p >> 32, k = p & 0xffffffff;

		_rsp_running_rows(d, st, &rv);
		if (row < rv.n && rv.rows[row].kind != RSP_ROW_PROCESS &&
		    rv.rows[row].kind != RSP_ROW_THREAD && k < d->lanes[rv.rows[row].idx].n)
			describe_lane(d, &d->lanes[rv.rows[row].idx], k, out);
		break;
	}
	case RSP_HIT_LOST:
		if (p < d->n_lost)
			describe_lost(d, &d->lost[p], out);
		break;
	case RSP_HIT_ROW_NAME: {
		struct rsp_row_info ri;

		rsp_running_row(d, st, p, &ri);
		g_string_append(out, ri.name ? ri.name : "");
		if (ri.kind == RSP_ROW_PROCESS) {
			g_string_append_printf(out, ": %zu thread%s, CPU ", ri.n_threads,
					       ri.n_threads == 1 ? "" : "s");
			_rsp_append_dur(out, d->procs[ri.proc].run_ns);
			if (d->procs[ri.proc].cmdline)
				g_string_append_printf(out, "\ncommand line: %s",
						       d->procs[ri.proc].cmdline);
			g_string_append(out, "\nclick: its flame view");
		}
		break;
	}
	default:
		break;
	}
}
