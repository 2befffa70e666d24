/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The process-running view's data, prepared from the model on the thread
 * that holds it: every thread with slices, grouped by process; block devices
 * and sockets as lanes of items in sub-lanes; the links drawn (wakeups,
 * forks, I/O and network arrivals); the lost spans.  Then, apart because it
 * costs most, each sleep's label.
 *
 * Rows: the target and the processes in its chains first (by their time in
 * the pseudostacks), then the rest by how many links they exchange with
 * those, then by CPU time.
 */
#include "render-running-private.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

/* ---- preparing ---------------------------------------------------------------------------- */

static int cmp_proc(const void *a, const void *b)
{
	const struct rproc *x = a, *y = b;

	if (x->chain != y->chain)
		return x->chain ? -1 : 1;
	if (x->target != y->target)
		return x->target ? -1 : 1;
	if (x->chain) {
		if (x->chain_ns != y->chain_ns)
			return x->chain_ns > y->chain_ns ? -1 : 1;
	} else if (x->links != y->links) {
		return x->links > y->links ? -1 : 1;
	}
	if (x->run_ns != y->run_ns)
		return x->run_ns > y->run_ns ? -1 : 1;
	return x->pid - y->pid;
}

static int cmp_litem(const void *a, const void *b)
{
	const struct litem *x = a, *y = b;

	return x->a < y->a ? -1 : x->a > y->a;
}

static int cmp_link(const void *a, const void *b)
{
	const struct rlink *x = a, *y = b;

	return x->t < y->t ? -1 : x->t > y->t;
}

static int cmp_lane(const void *a, const void *b)
{
	const struct rlane *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->n > y->n ? -1 : x->n < y->n;
}

/* Greedy sub-lanes: the first whose last item ended, else the one ending first. */
static uint8_t assign_subs(struct litem *v, size_t n)
{
	uint64_t last[MAX_SUB] = {0};
	uint8_t used = 1;

	for (size_t i = 0; i < n; i++) {
		uint8_t best = 0;
		bool free_found = false;

		for (uint8_t s = 0; s < used; s++)
			if (last[s] <= v[i].a) {
				best = s;
				free_found = true;
				break;
			}
		if (!free_found) {
			if (used < MAX_SUB) {
				best = used++;
			} else {
				for (uint8_t s = 1; s < used; s++)
					if (last[s] < last[best])
						best = s;
			}
		}
		v[i].sub = best;
		if (v[i].c > last[best])
			last[best] = v[i].c;
	}
	return used;
}

static bool thread_in_chain(const struct rsp_running_data *d, uint32_t th)
{
	return th != NONE && d->procs[d->threads[th].proc].chain;
}

/* An item at the end of lane @l (its array grown by halves: a saturated machine's
 * socket lanes hold millions) */
static void lane_push(struct rlane *l, const struct litem *it)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap + l->cap / 2 : 16;
		l->v = g_renew(struct litem, l->v, l->cap);
	}
	l->v[l->n++] = *it;
}

static int build_lanes(struct rsp_running_data *d)
{
	struct rsp_trace *t = d->t;
	size_t nio = rsp_trace_n_ios(t), nnet = rsp_trace_n_nets(t), nsock = rsp_trace_n_sockets(t);
	GHashTable *devs = g_hash_table_new(g_direct_hash, g_direct_equal);
	GArray *lanes = g_array_new(FALSE, TRUE, sizeof(struct rlane));
	size_t *sock_lane = g_new(size_t, nsock + 1);

	/* disks */
	for (size_t i = 0; i < nio; i++) {
		struct rsp_io_info io;
		gpointer v;
		struct rlane *l;
		struct litem it;

		rsp_trace_io(t, i, &io);
		if (!io.complete_ns && !io.issue_ns)
			continue;
		v = g_hash_table_lookup(devs, GUINT_TO_POINTER(io.dev + 1));
		if (!v) {
			struct rlane nl = {.kind = RSP_ROW_DISK, .dev = io.dev};
			char name[64];

			snprintf(name, sizeof(name), "disk %u:%u", io.dev >> 20, io.dev & 0xfffff);
			nl.name = _rsp_intern(&d->strs, name);
			g_array_append_val(lanes, nl);
			v = GUINT_TO_POINTER(lanes->len);
			g_hash_table_insert(devs, GUINT_TO_POINTER(io.dev + 1), v);
		}
		l = &g_array_index(lanes, struct rlane, GPOINTER_TO_UINT(v) - 1);
		it.b = io.issue_ns ? io.issue_ns : io.insert_ns ? io.insert_ns : io.complete_ns;
		it.a = io.insert_ns && io.insert_ns <= it.b ? io.insert_ns : it.b;
		it.c = io.complete_ns >= it.b ? io.complete_ns : it.b;
		if (!io.complete_ns)
			it.c = d->end;
		it.model = i;
		it.thread = io.thread != RSP_NO_INDEX && io.thread < rsp_trace_n_threads(t)
				? d->of_model[io.thread]
				: NONE;
		it.sub = 0;
		lane_push(l, &it);
		if (thread_in_chain(d, it.thread))
			l->chain = true;
	}
	/* sockets */
	for (size_t i = 0; i < nsock; i++)
		sock_lane[i] = RSP_NO_INDEX;
	for (size_t i = 0; i < nnet; i++) {
		struct rsp_net_info ni;
		struct rlane *l;
		struct litem it;

		rsp_trace_net(t, i, &ni);
		if (ni.socket == RSP_NO_INDEX || ni.socket >= nsock || !ni.ready_ns)
			continue;
		if (sock_lane[ni.socket] == RSP_NO_INDEX) {
			struct rsp_socket_info si;
			struct rlane nl = {.kind = RSP_ROW_SOCKET, .sock = ni.socket};
			char name[160];

			rsp_trace_socket(t, ni.socket, &si);
			if (si.listening)
				snprintf(name, sizeof(name), "socket %s (listening)", si.local);
			else if (si.local[0] || si.remote[0])
				snprintf(name, sizeof(name), "socket %s%s%s", si.local,
					 si.remote[0] ? " <- " : "", si.remote);
			else
				snprintf(name, sizeof(name), "socket %" PRIx64, si.sk);
			nl.name = _rsp_intern(&d->strs, name);
			g_array_append_val(lanes, nl);
			sock_lane[ni.socket] = lanes->len - 1;
		}
		l = &g_array_index(lanes, struct rlane, sock_lane[ni.socket]);
		it.c = it.b = ni.ready_ns;
		it.a = ni.send_ns && ni.send_ns <= ni.ready_ns ? ni.send_ns : ni.ready_ns;
		it.model = i;
		it.thread =
		    ni.sender_thread != RSP_NO_INDEX && ni.sender_thread < rsp_trace_n_threads(t)
			? d->of_model[ni.sender_thread]
			: NONE;
		it.sub = 0;
		lane_push(l, &it);
		if (thread_in_chain(d, it.thread))
			l->chain = true;
		if (ni.link != RSP_NO_INDEX) {
			struct rsp_link_info li;

			rsp_trace_link(t, ni.link, &li);
			if (li.wakee_thread != RSP_NO_INDEX &&
			    li.wakee_thread < rsp_trace_n_threads(t) &&
			    thread_in_chain(d, d->of_model[li.wakee_thread]))
				l->chain = true;
		}
	}
	for (guint i = 0; i < lanes->len; i++) {
		struct rlane *l = &g_array_index(lanes, struct rlane, i);

		if (l->n > 1)
			qsort(l->v, l->n, sizeof(*l->v), cmp_litem);
		l->n_sub = assign_subs(l->v, l->n);
	}
	if (lanes->len > 1)
		qsort(lanes->data, lanes->len, sizeof(struct rlane), cmp_lane);
	d->n_lanes = lanes->len;
	d->lanes = (struct rlane *)(void *)g_array_free(lanes, FALSE);
	g_hash_table_destroy(devs);
	g_free(sock_lane);
	return 0;
}

static int32_t lane_of(const struct rsp_running_data *d, enum rsp_row_kind kind, uint32_t dev,
		       size_t sock)
{
	for (size_t l = 0; l < d->n_lanes; l++)
		if (d->lanes[l].kind == kind &&
		    (kind == RSP_ROW_DISK ? d->lanes[l].dev == dev : d->lanes[l].sock == sock))
			return (int32_t)l;
	return -1;
}

static void build_links(struct rsp_running_data *d)
{
	struct rsp_trace *t = d->t;
	size_t n = rsp_trace_n_links(t), nt = rsp_trace_n_threads(t);
	GHashTable *lane_cache = g_hash_table_new(g_int64_hash, g_int64_equal);

	d->links = g_new(struct rlink, n + 1);
	d->n_links = 0;
	for (size_t i = 0; i < n; i++) {
		struct rsp_link_info li;
		struct rlink l;
		struct rsp_slice_info si;

		rsp_trace_link(t, i, &li);
		if (li.kind != RSP_LINK_WAKEUP && li.kind != RSP_LINK_FORK &&
		    li.kind != RSP_LINK_IO && li.kind != RSP_LINK_NET)
			continue;
		if (li.wakee_thread == RSP_NO_INDEX || li.wakee_thread >= nt ||
		    li.wakee_slice == RSP_NO_INDEX)
			continue;
		l.t = li.time_ns;
		l.kind = (uint8_t)li.kind;
		l.to = d->of_model[li.wakee_thread];
		if (li.wakee_slice >= rsp_thread_n_slices(t, li.wakee_thread))
			continue;
		rsp_thread_slice(t, li.wakee_thread, li.wakee_slice, &si);
		l.to_start = si.kind == RSP_SLICE_RUN ? si.start_ns : si.end_ns;
		if (l.to_start < l.t)
			l.to_start = l.t;
		l.from = li.waker_thread != RSP_NO_INDEX && li.waker_thread < nt
			     ? d->of_model[li.waker_thread]
			     : NONE;
		l.from_lane = -1;
		if (li.kind == RSP_LINK_IO && li.io != RSP_NO_INDEX && li.io < rsp_trace_n_ios(t)) {
			struct rsp_io_info io;

			rsp_trace_io(t, li.io, &io);
			l.from_lane = lane_of(d, RSP_ROW_DISK, io.dev, 0);
			l.from = NONE;
		} else if (li.kind == RSP_LINK_NET && li.net != RSP_NO_INDEX &&
			   li.net < rsp_trace_n_nets(t) && l.from == NONE) {
			struct rsp_net_info ni;
			gint64 key;
			gpointer v;

			rsp_trace_net(t, li.net, &ni);
			key = (gint64)ni.socket;
			v = g_hash_table_lookup(lane_cache, &key);
			if (v) {
				l.from_lane = GPOINTER_TO_INT(v) - 2;
			} else {
				gint64 *k = g_new(gint64, 1);

				*k = key;
				l.from_lane = lane_of(d, RSP_ROW_SOCKET, 0, ni.socket);
				g_hash_table_insert(lane_cache, k,
						    GINT_TO_POINTER(l.from_lane + 2));
			}
		}
		if (l.from == NONE && l.from_lane < 0)
			continue;
		d->links[d->n_links++] = l;
	}
	if (d->n_links > 1)
		qsort(d->links, d->n_links, sizeof(*d->links), cmp_link);
	{
		GHashTableIter it;
		gpointer k;

		g_hash_table_iter_init(&it, lane_cache);
		while (g_hash_table_iter_next(&it, &k, NULL))
			g_free(k);
		g_hash_table_destroy(lane_cache);
	}
}

int rsp_running_data_new_unlabelled(struct rsp_trace *t, struct rsp_analysis *a,
				    struct rsp_running_data **out, char *err, size_t errlen)
{
	struct rsp_running_data *d = calloc(1, sizeof(*d));
	struct rsp_trace_summary sum;
	size_t nt = rsp_trace_n_threads(t);
	GHashTable *pid_proc;
	GArray *procs;

	*out = NULL;
	if (d)
		d->rc = _rsp_running_rows_new();
	if (!d || !d->rc) {
		free(d);
		snprintf(err, errlen, "out of memory preparing the running view");
		return -ENOMEM;
	}
	d->t = t;
	_rsp_strtab_init(&d->strs);
	_rsp_frames_init(&d->fc, t, &d->strs);
	rsp_trace_get_summary(t, &sum);
	d->start = sum.start_ns;
	d->end = sum.end_ns > sum.start_ns ? sum.end_ns : sum.start_ns + 1;

	/* threads with something to show, grouped by process */
	d->of_model = g_new(uint32_t, nt + 1);
	d->threads = g_new0(struct rthread, nt + 1);
	pid_proc = g_hash_table_new(g_direct_hash, g_direct_equal);
	procs = g_array_new(FALSE, TRUE, sizeof(struct rproc));
	for (size_t i = 0; i < nt; i++) {
		struct rsp_thread_info ti;
		struct rthread *th;
		gpointer v;
		struct rproc *p;
		char name[96];

		d->of_model[i] = NONE;
		rsp_trace_thread(t, i, &ti);
		if (!ti.n_slices)
			continue;
		th = &d->threads[d->n_threads];
		th->model = i;
		th->tid = ti.tid;
		th->pid = ti.pid;
		th->comm = _rsp_intern(&d->strs, ti.comm);
		snprintf(name, sizeof(name), "%s %d", ti.comm, ti.tid);
		th->name = _rsp_intern(&d->strs, name);
		th->n = ti.n_slices;
		th->v = g_new(struct rslice, th->n);
		th->run_ns = ti.run_ns;
		for (size_t k = 0; k < th->n; k++) {
			struct rsp_slice_info si;
			struct rslice *s = &th->v[k];

			rsp_thread_slice(t, i, k, &si);
			s->s = si.start_ns;
			s->e = si.end_ns > si.start_ns ? si.end_ns : si.start_ns;
			s->kind = (uint8_t)si.kind;
			s->state = (uint8_t)si.state;
			s->flags = (uint8_t)si.flags;
			s->stack = si.stack;
			s->label = NULL; /* rsp_running_data_label */
		}
		/* a process: its pid (the main thread's name if it is one of them) */
		v = g_hash_table_lookup(pid_proc, GINT_TO_POINTER(ti.pid + 1));
		if (!v) {
			struct rproc np = {.pid = ti.pid};

			g_array_append_val(procs, np);
			v = GUINT_TO_POINTER(procs->len);
			g_hash_table_insert(pid_proc, GINT_TO_POINTER(ti.pid + 1), v);
		}
		p = &g_array_index(procs, struct rproc, GPOINTER_TO_UINT(v) - 1);
		th->proc = GPOINTER_TO_UINT(v) - 1;
		p->threads = g_renew(uint32_t, p->threads, p->n_threads + 1);
		p->threads[p->n_threads++] = (uint32_t)d->n_threads;
		p->run_ns += ti.run_ns;
		if (!p->name || ti.tid == ti.pid) {
			snprintf(name, sizeof(name), "%s %d", ti.comm, ti.pid);
			p->name = _rsp_intern(&d->strs, name);
		}
		d->of_model[i] = (uint32_t)d->n_threads++;
	}
	d->procs = (struct rproc *)(void *)procs->data;
	d->n_procs = procs->len;
	for (size_t i = 0; i < rsp_trace_n_targets(t); i++) {
		gpointer v =
		    g_hash_table_lookup(pid_proc, GINT_TO_POINTER(rsp_trace_target(t, i) + 1));

		if (v)
			d->procs[GPOINTER_TO_UINT(v) - 1].target =
			    d->procs[GPOINTER_TO_UINT(v) - 1].chain = true;
	}
	/* the chains: every thread in the pseudostacks, by its time there */
	if (a) {
		size_t nn = rsp_analysis_n_nodes(a);

		for (size_t i = 0; i < nn; i++) {
			struct rsp_node_info ni;
			uint32_t th;

			rsp_analysis_node(a, i, &ni);
			if (ni.thread == RSP_NO_INDEX || ni.thread >= nt)
				continue;
			th = d->of_model[ni.thread];
			if (th == NONE)
				continue;
			d->procs[d->threads[th].proc].chain = true;
			if (ni.kind == RSP_NODE_RUN)
				d->procs[d->threads[th].proc].chain_ns += ni.end_ns - ni.start_ns;
		}
	}
	/* the rest: by the links they exchange with the chains */
	for (size_t i = 0, n = rsp_trace_n_links(t); i < n; i++) {
		struct rsp_link_info li;
		uint32_t a1, b1;

		rsp_trace_link(t, i, &li);
		if (li.waker_thread == RSP_NO_INDEX || li.wakee_thread == RSP_NO_INDEX ||
		    li.waker_thread >= nt || li.wakee_thread >= nt)
			continue;
		a1 = d->of_model[li.waker_thread];
		b1 = d->of_model[li.wakee_thread];
		if (a1 == NONE || b1 == NONE)
			continue;
		if (d->procs[d->threads[a1].proc].chain && !d->procs[d->threads[b1].proc].chain)
			d->procs[d->threads[b1].proc].links++;
		else if (!d->procs[d->threads[a1].proc].chain &&
			 d->procs[d->threads[b1].proc].chain)
			d->procs[d->threads[a1].proc].links++;
	}
	/* sort the processes, then renumber the threads' processes */
	{
		struct rproc *sorted;

		if (d->n_procs > 1)
			qsort(d->procs, d->n_procs, sizeof(*d->procs), cmp_proc);
		sorted = d->procs;
		for (size_t p = 0; p < d->n_procs; p++)
			for (size_t k = 0; k < sorted[p].n_threads; k++)
				d->threads[sorted[p].threads[k]].proc = (uint32_t)p;
	}
	g_array_free(procs, FALSE);
	g_hash_table_destroy(pid_proc);
	build_lanes(d);
	build_links(d);
	d->n_lost = rsp_trace_n_lost(t);
	d->lost = g_new(struct rsp_lost_info, d->n_lost + 1);
	for (size_t i = 0; i < d->n_lost; i++)
		rsp_trace_lost(t, i, &d->lost[i]);
	*out = d;
	return 0;
}

/*
 * A sleep's label is the function that best describes it: symbolizing (and,
 * on --call-graph dwarf recordings, unwinding) every sleep's stack is most of
 * what preparing the view costs, and the view is drawn without them first.
 */
void rsp_running_data_label(struct rsp_running_data *d)
{
	for (size_t i = 0; i < d->n_threads; i++) {
		struct rthread *th = &d->threads[i];

		if (th->pending || !th->n)
			continue;
		th->pending = g_new0(const char *, th->n);
		for (size_t k = 0; k < th->n; k++) {
			const struct rslice *s = &th->v[k];

			if (s->kind == RSP_SLICE_SLEEP && s->stack)
				th->pending[k] = _rsp_frames_best(
				    &d->fc, _rsp_frames_get(&d->fc, s->stack, th->pid, s->s));
		}
	}
}

bool rsp_running_data_publish_labels(struct rsp_running_data *d)
{
	bool any = false;

	for (size_t i = 0; i < d->n_threads; i++) {
		struct rthread *th = &d->threads[i];

		if (!th->pending)
			continue;
		for (size_t k = 0; k < th->n; k++)
			th->v[k].label = th->pending[k];
		g_free(th->pending);
		th->pending = NULL;
		any = true;
	}
	d->labelled = true;
	return any;
}

bool rsp_running_data_labelled(const struct rsp_running_data *d)
{
	return d->labelled;
}

int rsp_running_data_new(struct rsp_trace *t, struct rsp_analysis *a, struct rsp_running_data **out,
			 char *err, size_t errlen)
{
	int ret = rsp_running_data_new_unlabelled(t, a, out, err, errlen);

	if (ret)
		return ret;
	rsp_running_data_label(*out);
	rsp_running_data_publish_labels(*out);
	return 0;
}

void rsp_running_data_free(struct rsp_running_data *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n_threads; i++) {
		g_free(d->threads[i].v);
		g_free(d->threads[i].pending);
	}
	g_free(d->threads);
	g_free(d->of_model);
	for (size_t i = 0; i < d->n_procs; i++)
		g_free(d->procs[i].threads);
	g_free(d->procs);
	for (size_t i = 0; i < d->n_lanes; i++)
		g_free(d->lanes[i].v);
	g_free(d->lanes);
	g_free(d->links);
	g_free(d->lost);
	_rsp_frames_clear(&d->fc);
	_rsp_strtab_clear(&d->strs);
	_rsp_running_rows_free(d->rc);
	free(d);
}
