/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The process-running view (the paper's figure 2): x time, one row per
 * process (expandable to its threads), runs as bars, wakeup links as lines
 * from the waking moment on the waker's row to the start of the wakee's run,
 * sleeps as blue boxes labelled with the function that best describes them,
 * block devices and sockets as lanes, lost-event spans hatched, inferred
 * switch-ins marked.
 *
 * Rows: the target and the processes in its chains first (by their time in
 * the pseudostacks), then the rest by how many links they exchange with
 * those, then by CPU time.  Layout culls per pixel column: a slice narrower
 * than a pixel only marks its column, and the walk jumps to the next column.
 */
#include "render-private.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NONE    UINT32_MAX
#define MAX_SUB 4 /* sub-lanes of a device or socket lane */

struct rslice {
	uint64_t s, e;
	const char *label; /* sleeps: the function that best describes them */
	uint32_t stack;
	uint8_t kind, state, flags;
};

struct rthread {
	size_t model;
	int tid, pid;
	const char *comm, *name; /* name: "comm tid" */
	struct rslice *v;
	size_t n;
	uint32_t proc;
	uint64_t run_ns;
	const char **pending; /* labels made, not yet published */
};

struct rproc {
	int pid;
	const char *name; /* "comm pid" */
	uint32_t *threads;
	size_t n_threads;
	bool target, chain;
	uint64_t chain_ns, run_ns, links;
};

struct litem {
	uint64_t a, b, c; /* disk: queued, issued, completed; socket: sent, ready, ready */
	size_t model;     /* io or net index */
	uint32_t thread;  /* issuer / sender (data index), NONE */
	uint8_t sub;
};

struct rlane {
	enum rsp_row_kind kind;
	const char *name;
	struct litem *v;
	size_t n;
	uint8_t n_sub;
	bool chain;
	uint32_t dev;
	size_t sock;
};

struct rlink {
	uint64_t t, to_start;
	uint32_t from, to; /* data threads; from may be NONE */
	int32_t from_lane; /* a lane, or -1 */
	uint8_t kind;
};

struct rsp_running_data {
	struct rsp_trace *t;
	struct _rsp_strtab strs;
	struct _rsp_frames fc;
	struct rthread *threads;
	size_t n_threads;
	uint32_t *of_model; /* model thread -> data thread */
	struct rproc *procs;
	size_t n_procs;
	struct rlane *lanes;
	size_t n_lanes;
	struct rlink *links;
	size_t n_links;
	struct rsp_lost_info *lost;
	size_t n_lost;
	uint64_t start, end;
	bool labelled; /* the sleeps' labels are published */
};

/* ---- rows in a state ------------------------------------------------------------------ */

struct row {
	uint8_t kind;
	uint32_t idx; /* proc, thread or lane */
};

/* Process rows, then their lanes, then the rest: in the data's order, filtered. */
static size_t build_rows(const struct rsp_running_data *d, const struct rsp_running_state *st,
			 struct row *out)
{
	size_t n = 0;

	for (int pass = 0; pass < 4; pass++) {
		/* 0: chain processes, 1: chain lanes, 2: other processes, 3: other lanes */
		bool chain = pass < 2;

		if (!chain && st && st->chains_only)
			break;
		if (pass == 0 || pass == 2) {
			for (size_t p = 0; p < d->n_procs; p++) {
				const struct rproc *pr = &d->procs[p];

				if (pr->chain != chain)
					continue;
				if (out)
					out[n] = (struct row){RSP_ROW_PROCESS, (uint32_t)p};
				n++;
				if (st && st->expanded && st->expanded[p] && pr->n_threads > 1)
					for (size_t k = 0; k < pr->n_threads; k++) {
						if (out)
							out[n] = (struct row){RSP_ROW_THREAD,
									      pr->threads[k]};
						n++;
					}
			}
		} else {
			for (size_t l = 0; l < d->n_lanes; l++) {
				if (d->lanes[l].chain != chain)
					continue;
				if (out)
					out[n] = (struct row){d->lanes[l].kind, (uint32_t)l};
				n++;
			}
		}
	}
	return n;
}

static struct row *rows_of(const struct rsp_running_data *d, const struct rsp_running_state *st,
			   size_t *n)
{
	size_t cap = build_rows(d, st, NULL);
	struct row *r = g_new(struct row, cap + 1);

	*n = build_rows(d, st, r);
	return r;
}

size_t rsp_running_n_procs(const struct rsp_running_data *d)
{
	return d->n_procs;
}

size_t rsp_running_n_rows(const struct rsp_running_data *d, const struct rsp_running_state *st)
{
	return build_rows(d, st, NULL);
}

static void row_info(const struct rsp_running_data *d, struct row r, struct rsp_row_info *out)
{
	memset(out, 0, sizeof(*out));
	out->kind = r.kind;
	out->proc = RSP_NO_INDEX;
	switch (r.kind) {
	case RSP_ROW_PROCESS: {
		const struct rproc *p = &d->procs[r.idx];

		out->pid = out->tid = p->pid;
		out->name = p->name;
		out->proc = r.idx;
		out->n_threads = p->n_threads;
		out->target = p->target;
		out->in_chain = p->chain;
		break;
	}
	case RSP_ROW_THREAD: {
		const struct rthread *th = &d->threads[r.idx];

		out->pid = th->pid;
		out->tid = th->tid;
		out->name = th->name;
		out->proc = th->proc;
		out->n_threads = 1;
		out->target = d->procs[th->proc].target;
		out->in_chain = d->procs[th->proc].chain;
		break;
	}
	default:
		out->name = d->lanes[r.idx].name;
		out->in_chain = d->lanes[r.idx].chain;
		break;
	}
}

void rsp_running_row(const struct rsp_running_data *d, const struct rsp_running_state *st,
		     size_t row, struct rsp_row_info *out)
{
	size_t n;
	struct row *r = rows_of(d, st, &n);

	if (row < n)
		row_info(d, r[row], out);
	else
		memset(out, 0, sizeof(*out));
	g_free(r);
}

size_t rsp_running_row_at(const struct rsp_running_data *d, const struct rsp_running_state *st,
			  double y)
{
	size_t n = rsp_running_n_rows(d, st);

	if (y < 0 || y >= (double)n * RSP_ROW_H)
		return RSP_NO_INDEX;
	return (size_t)(y / RSP_ROW_H);
}

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
		l->v = g_renew(struct litem, l->v, l->n + 1);
		l->v[l->n++] = it;
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
			if (si.local[0] || si.remote[0])
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
		l->v = g_renew(struct litem, l->v, l->n + 1);
		l->v[l->n++] = it;
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
	if (!d) {
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
	free(d);
}

/* ---- layout ---------------------------------------------------------------------------- */

struct lay {
	const struct rsp_running_data *d;
	const struct rsp_running_state *st;
	struct rsp_scene *out;
	double lx0, scale, xa, xb, pxa; /* pxa: content x of xa */
	int ncols;
	uint8_t *cols;   /* per column: state bits */
	uint8_t *labels; /* per column: a label is drawn there (the threads of a row share it) */
};

#define C_RUN      0x01
#define C_SLEEP    0x02
#define C_SLEEP_D  0x04
#define C_RUNNABLE 0x08
#define C_UNKNOWN  0x10
#define C_INFERRED 0x20

static inline double px(const struct lay *L, double t)
{
	return (t - L->lx0) * L->scale;
}

static int col_of(const struct lay *L, double t)
{
	double c = floor(px(L, t) - L->pxa);

	if (c < 0)
		return 0;
	if (c >= L->ncols)
		return L->ncols - 1;
	return (int)c;
}

static enum rsp_cls sleep_cls(const struct rslice *s)
{
	if (s->state == RSP_SLEEP_PREEMPTED)
		return RSP_CLS_RUNNABLE;
	if (s->state == RSP_SLEEP_UNINTERRUPTIBLE)
		return RSP_CLS_SLEEP_D;
	return RSP_CLS_SLEEP;
}

static uint8_t sleep_bit(const struct rslice *s)
{
	if (s->state == RSP_SLEEP_PREEMPTED)
		return C_RUNNABLE;
	if (s->state == RSP_SLEEP_UNINTERRUPTIBLE)
		return C_SLEEP_D;
	return C_SLEEP;
}

/* Runs of equal column bits (after @mask) as boxes. */
static void flush_cols(struct lay *L, uint8_t mask, double y, double h, size_t row)
{
	int c = 0;

	while (c < L->ncols) {
		uint8_t b = L->cols[c] & mask;
		int e = c + 1;
		enum rsp_cls cls;
		struct rsp_scene_item *it;

		if (!b) {
			c++;
			continue;
		}
		while (e < L->ncols && (L->cols[e] & mask) == b)
			e++;
		if (b & C_RUN)
			cls = RSP_CLS_RUN;
		else if (b & C_UNKNOWN)
			cls = RSP_CLS_UNKNOWN;
		else if (b & C_SLEEP_D)
			cls = RSP_CLS_SLEEP_D;
		else if (b & C_SLEEP)
			cls = RSP_CLS_SLEEP;
		else
			cls = RSP_CLS_RUNNABLE;
		it = rsp_scene_add(L->out, cls == RSP_CLS_UNKNOWN ? RSP_PRIM_HATCH : RSP_PRIM_RECT,
				   cls, L->pxa + c, y, e - c, h);
		it->id = RSP_HIT_ID(RSP_HIT_COLUMNS, row);
		it->t0 = (uint64_t)(L->lx0 + (L->pxa + c) / L->scale);
		it->t1 = (uint64_t)(L->lx0 + (L->pxa + e) / L->scale);
		c = e;
	}
}

static bool matches(const struct lay *L, const char *s)
{
	return L->st && L->st->search && *L->st->search && s && strstr(s, L->st->search);
}

/* Labels of a row's threads must not overlap: claim the columns a label covers. */
static bool claim_label(struct lay *L, const struct rsp_scene_item *it)
{
	/* where the label's glyphs are: 3 px in, with its ellipsis */
	double w = 3 + rsp_text_width(it->label, it->label_len) +
		   ((it->flags & RSP_ITEM_ELLIPSIS) ? rsp_text_width("\xe2\x80\xa6", 3) : 0);
	int a = (int)floor(it->x - L->pxa), b = (int)ceil(it->x + w - L->pxa);

	if (a < 0)
		a = 0;
	if (b > L->ncols)
		b = L->ncols;
	for (int c = a; c < b; c++)
		if (L->labels[c])
			return false;
	memset(L->labels + a, 1, b > a ? (size_t)(b - a) : 0);
	return true;
}

/* One thread's slices: pass 0 sleeps and unknown spans, pass 1 runs. */
static void thread_slices(struct lay *L, uint32_t thi, double y, int pass)
{
	const struct rthread *th = &L->d->threads[thi];
	size_t k;

	RSP_LOWER_BOUND(th->v, th->n, e, L->xa, k);
	while (k < th->n && (double)th->v[k].s < L->xb) {
		const struct rslice *s = &th->v[k];
		double x0 = px(L, s->s > L->xa ? (double)s->s : L->xa);
		double x1 = px(L, s->e < L->xb ? (double)s->e : L->xb);
		bool narrow = x1 - x0 < 2;
		int c0 = col_of(L, s->s > L->xa ? (double)s->s : L->xa);

		if (pass == 1 && s->kind == RSP_SLICE_RUN) {
			if (narrow) {
				L->cols[c0] |= C_RUN;
			} else {
				struct rsp_scene_item *it =
				    rsp_scene_add(L->out, RSP_PRIM_RECT, RSP_CLS_RUN, floor(x0),
						  y + 3, ceil(x1) - floor(x0), RSP_ROW_H - 6);

				it->id = RSP_HIT_ID(RSP_HIT_SLICE, (uint64_t)thi << 32 | k);
				it->t0 = s->s;
				it->t1 = s->e;
			}
			if ((s->flags & RSP_SLICE_INFERRED_START) && (double)s->s >= L->xa)
				L->cols[c0] |= C_INFERRED;
		} else if (pass == 0 && s->kind == RSP_SLICE_UNKNOWN) {
			if (narrow) {
				L->cols[c0] |= C_UNKNOWN;
			} else {
				struct rsp_scene_item *it = rsp_scene_add(
				    L->out, RSP_PRIM_HATCH, RSP_CLS_UNKNOWN, floor(x0), y + 3,
				    ceil(x1) - floor(x0), RSP_ROW_H - 6);

				it->id = RSP_HIT_ID(RSP_HIT_SLICE, (uint64_t)thi << 32 | k);
				it->t0 = s->s;
				it->t1 = s->e;
			}
		} else if (pass == 0 && s->kind == RSP_SLICE_SLEEP && L->st && L->st->show_sleeps) {
			if (narrow) {
				L->cols[c0] |= sleep_bit(s);
			} else {
				struct rsp_scene_item *it = rsp_scene_add_box(
				    L->out, sleep_cls(s), floor(x0), y + 3, ceil(x1) - floor(x0),
				    RSP_ROW_H - 6, s->label);

				it->flags |= RSP_ITEM_GAP;
				it->id = RSP_HIT_ID(RSP_HIT_SLICE, (uint64_t)thi << 32 | k);
				it->t0 = s->s;
				it->t1 = s->e;
				if (matches(L, s->label))
					it->flags |= RSP_ITEM_MARKED;
				if (it->label_len && !claim_label(L, it))
					it->label_len = 0; /* another thread's label is there */
			}
		}
		if (x1 - x0 < 1) {
			/* the rest of this column is drawn: jump to the next one */
			double tn = L->lx0 + (L->pxa + c0 + 1) / L->scale;
			size_t j;

			RSP_GALLOP_BOUND(th->v, th->n, e, tn, k + 1, j);
			k = j;
		} else {
			k++;
		}
	}
}

static void lane_items(struct lay *L, const struct rlane *l, double y, size_t row)
{
	double sh = (RSP_ROW_H - 4.0) / l->n_sub;
	size_t k = 0;
	int last_col[MAX_SUB];

	for (int i = 0; i < MAX_SUB; i++)
		last_col[i] = -1;
	/* items are sorted by start; they end within a bounded time, so scan from the start */
	while (k < l->n && (double)l->v[k].a < L->xb) {
		const struct litem *it = &l->v[k];
		double sy = y + 2 + it->sub * sh;
		double qa, qb, sa, sb;
		int c;

		if ((double)it->c < L->xa) {
			k++;
			continue;
		}
		c = col_of(L, (double)it->a);
		if (px(L, (double)it->c) - px(L, (double)it->a) < 1 && c == last_col[it->sub]) {
			k++;
			continue;
		}
		last_col[it->sub] = c;
		qa = px(L, (double)it->a);
		qb = px(L, (double)it->b);
		sa = qb;
		sb = px(L, (double)it->c);
		if (l->kind == RSP_ROW_DISK && qb - qa >= 0.25) {
			struct rsp_scene_item *b =
			    rsp_scene_add(L->out, RSP_PRIM_RECT, RSP_CLS_IO_QUEUE, floor(qa), sy,
					  fmax(1, qb - floor(qa)), sh - 1);

			b->id = RSP_HIT_ID(RSP_HIT_LANE, (uint64_t)row << 32 | k);
			b->t0 = it->a;
			b->t1 = it->b;
		}
		if (l->kind == RSP_ROW_SOCKET) {
			sa = qa;
			sb = px(L, (double)it->b);
		}
		{
			struct rsp_scene_item *b =
			    rsp_scene_add(L->out, RSP_PRIM_RECT,
					  l->kind == RSP_ROW_DISK ? RSP_CLS_IO : RSP_CLS_NET,
					  floor(sa), sy, fmax(1, ceil(sb) - floor(sa)), sh - 1);

			b->id = RSP_HIT_ID(RSP_HIT_LANE, (uint64_t)row << 32 | k);
			b->t0 = it->a;
			b->t1 = it->c;
			b->flags |= RSP_ITEM_GAP;
		}
		k++;
	}
}

static void running_content(const void *data, const void *state, double lx0, double scale,
			    double xa, double xb, double ya, double yb, struct rsp_scene *out)
{
	const struct rsp_running_data *d = data;
	const struct rsp_running_state *st = state;
	struct lay L = {d, st, out, lx0, scale, xa, xb, 0, 0, NULL};
	size_t nrows, r0, r1;
	struct row *rows = rows_of(d, st, &nrows);
	uint32_t *row_of_thread = g_new(uint32_t, d->n_threads + 1);
	int32_t *row_of_lane = g_new(int32_t, d->n_lanes + 1);
	double full_h = (double)nrows * RSP_ROW_H;

	L.pxa = floor(px(&L, xa));
	L.ncols = (int)ceil(px(&L, xb) - L.pxa) + 1;
	if (L.ncols < 1)
		L.ncols = 1;
	L.cols = g_malloc(L.ncols);
	L.labels = g_malloc(L.ncols);
	for (size_t i = 0; i < d->n_threads; i++)
		row_of_thread[i] = NONE;
	for (size_t i = 0; i < d->n_lanes; i++)
		row_of_lane[i] = -1;
	for (size_t r = 0; r < nrows; r++) {
		if (rows[r].kind == RSP_ROW_PROCESS) {
			const struct rproc *p = &d->procs[rows[r].idx];

			for (size_t k = 0; k < p->n_threads; k++)
				if (row_of_thread[p->threads[k]] == NONE)
					row_of_thread[p->threads[k]] = (uint32_t)r;
		} else if (rows[r].kind == RSP_ROW_THREAD) {
			row_of_thread[rows[r].idx] = (uint32_t)r;
		} else {
			row_of_lane[rows[r].idx] = (int32_t)r;
		}
	}
	r0 = (size_t)fmax(0, floor(ya / RSP_ROW_H));
	r1 = (size_t)fmin((double)nrows, ceil(yb / RSP_ROW_H));
	for (size_t r = r0; r < r1; r++) {
		double y = (double)r * RSP_ROW_H;
		struct rsp_row_info ri;

		row_info(d, rows[r], &ri);
		if (ri.target && ri.kind <= RSP_ROW_THREAD)
			rsp_scene_add(out, RSP_PRIM_RECT, RSP_CLS_ROW_TARGET, L.pxa, y, L.ncols,
				      RSP_ROW_H);
		else if (r & 1)
			rsp_scene_add(out, RSP_PRIM_RECT, RSP_CLS_ROW_ALT, L.pxa, y, L.ncols,
				      RSP_ROW_H);
		if (rows[r].kind == RSP_ROW_PROCESS || rows[r].kind == RSP_ROW_THREAD) {
			const uint32_t *ths;
			size_t nth;
			uint32_t one = rows[r].idx;

			if (rows[r].kind == RSP_ROW_PROCESS) {
				ths = d->procs[rows[r].idx].threads;
				nth = d->procs[rows[r].idx].n_threads;
			} else {
				ths = &one;
				nth = 1;
			}
			memset(L.labels, 0, L.ncols);
			for (int pass = 0; pass < 2; pass++) {
				memset(L.cols, 0, L.ncols);
				for (size_t k = 0; k < nth; k++)
					thread_slices(&L, ths[k], y, pass);
				if (pass == 0) {
					flush_cols(&L, C_SLEEP | C_SLEEP_D | C_RUNNABLE, y + 3,
						   RSP_ROW_H - 6, r);
					flush_cols(&L, C_UNKNOWN, y + 3, RSP_ROW_H - 6, r);
				} else {
					flush_cols(&L, C_RUN, y + 3, RSP_ROW_H - 6, r);
					/* inferred switch-ins: a mark above the bar */
					for (int c = 0; c < L.ncols; c++)
						if (L.cols[c] & C_INFERRED) {
							struct rsp_scene_item *it =
							    rsp_scene_add(L.out, RSP_PRIM_TRIANGLE,
									  RSP_CLS_INFERRED,
									  L.pxa + c - 3, y, 7, 5);

							it->t0 = it->t1 =
							    (uint64_t)(L.lx0 +
								       (L.pxa + c) / L.scale);
							c += 6;
						}
				}
			}
		} else {
			lane_items(&L, &d->lanes[rows[r].idx], y, r);
		}
	}
	/* lost-event spans: hatched across every row */
	for (size_t i = 0; i < d->n_lost; i++) {
		const struct rsp_lost_info *li = &d->lost[i];
		double a = fmax((double)li->start_ns, xa), b = fmin((double)li->end_ns, xb);
		struct rsp_scene_item *it;

		if (b < a || full_h <= 0)
			continue;
		it = rsp_scene_add(out, RSP_PRIM_HATCH, RSP_CLS_LOST, floor(px(&L, a)), 0,
				   fmax(2, ceil(px(&L, b)) - floor(px(&L, a))), full_h);
		it->t0 = li->start_ns;
		it->t1 = li->end_ns;
	}
	/* links: at most one per pixel column */
	{
		size_t k;
		int last = -1;

		RSP_LOWER_BOUND(d->links, d->n_links, t, xa, k);
		for (; k < d->n_links && (double)d->links[k].t < xb; k++) {
			const struct rlink *l = &d->links[k];
			int c = col_of(&L, (double)l->t);
			int32_t fr, tr;
			double y0, y1;
			struct rsp_scene_item *it;

			if (c == last)
				continue;
			tr = row_of_thread[l->to] == NONE ? -1 : (int32_t)row_of_thread[l->to];
			fr = l->from != NONE ? (row_of_thread[l->from] == NONE
						    ? -1
						    : (int32_t)row_of_thread[l->from])
					     : (l->from_lane >= 0 ? row_of_lane[l->from_lane] : -1);
			if (fr < 0 || tr < 0 || fr == tr)
				continue;
			y0 = fr * RSP_ROW_H + RSP_ROW_H / 2.0;
			y1 = tr * RSP_ROW_H + RSP_ROW_H / 2.0;
			if (fmax(y0, y1) < ya || fmin(y0, y1) > yb)
				continue;
			last = c;
			it = rsp_scene_add(out, RSP_PRIM_LINE, RSP_CLS_LINK, px(&L, (double)l->t),
					   y0, px(&L, (double)l->to_start) - px(&L, (double)l->t),
					   y1 - y0);
			it->t0 = l->t;
			it->t1 = l->to_start;
		}
	}
	g_free(L.cols);
	g_free(L.labels);
	g_free(rows);
	g_free(row_of_thread);
	g_free(row_of_lane);
}

static void running_title(const void *data, const void *state, const struct rsp_scene_item *it,
			  GString *out);

static void running_chrome(const void *data, const void *state, const struct rsp_view *v,
			   struct rsp_scene *out)
{
	const struct rsp_running_data *d = data;
	const struct rsp_running_state *st = state;
	size_t nrows;
	struct row *rows = rows_of(d, st, &nrows);
	double top = RSP_RULER_H;
	size_t r0 = (size_t)fmax(0, floor(v->scroll_y / RSP_ROW_H));
	size_t r1 = (size_t)fmin((double)nrows, ceil((v->scroll_y + v->height - top) / RSP_ROW_H));

	rsp_ruler_layout(out, v->x0, v->x1, (double)d->start, RSP_GUTTER_W, v->width);
	rsp_scene_add(out, RSP_PRIM_RECT, RSP_CLS_RULER, 0, top, RSP_GUTTER_W, v->height - top);
	rsp_scene_add(out, RSP_PRIM_RECT, RSP_CLS_RULER, 0, 0, RSP_GUTTER_W, top);
	rsp_scene_add_text(out, RSP_CLS_TEXT_DIM, 6, 16, RSP_GUTTER_W - 8,
			   rsp_scene_printf(out, "%zu rows%s", nrows,
					    st && st->chains_only ? ", target's chains" : ""),
			   0);
	for (size_t r = r0; r < r1; r++) {
		double y = top + (double)r * RSP_ROW_H - v->scroll_y;
		struct rsp_row_info ri;
		double x = 18;
		struct rsp_scene_item *it;

		row_info(d, rows[r], &ri);
		if (y + RSP_ROW_H <= top)
			continue;
		if (ri.target && ri.kind <= RSP_ROW_THREAD)
			rsp_scene_add(out, RSP_PRIM_RECT, RSP_CLS_ROW_TARGET, 0, y, RSP_GUTTER_W,
				      RSP_ROW_H);
		if (ri.kind == RSP_ROW_PROCESS && ri.n_threads > 1) {
			bool open = st && st->expanded && st->expanded[ri.proc];

			it =
			    rsp_scene_add(out, RSP_PRIM_TRIANGLE, RSP_CLS_TEXT_DIM, 5, y + 7, 8, 6);
			if (!open)
				it->flags |= RSP_ITEM_RIGHT;
			it->id = RSP_HIT_ID(RSP_HIT_EXPANDER, r);
			/* a wider target to click */
			it->x = 3;
			it->y = y + 4;
			it->w = 12;
			it->h = 12;
		}
		if (ri.kind == RSP_ROW_THREAD)
			x = 30;
		it = rsp_scene_add_text(
		    out, ri.kind >= RSP_ROW_DISK ? RSP_CLS_TEXT_DIM : RSP_CLS_TEXT, x, y + 14,
		    RSP_GUTTER_W - x - 4, ri.name, ri.target ? RSP_ITEM_BOLD : 0);
		it->id = RSP_HIT_ID(RSP_HIT_ROW_NAME, r);
		it->aux = (uint32_t)r;
		if (st && st->search && *st->search && strstr(ri.name, st->search))
			it->flags |= RSP_ITEM_MARKED;
	}
	rsp_scene_add(out, RSP_PRIM_LINE, RSP_CLS_SEPARATOR, RSP_GUTTER_W - 0.5, 0, 0, v->height);
	g_free(rows);
}

static int running_left(const void *data)
{
	return RSP_GUTTER_W;
}

static void running_extent(const void *data, const void *state, double *x0, double *x1)
{
	const struct rsp_running_data *d = data;

	*x0 = (double)d->start;
	*x1 = (double)d->end;
}

static double running_height(const void *data, const void *state)
{
	return (double)rsp_running_n_rows(data, state) * RSP_ROW_H;
}

const struct rsp_view_ops rsp_running_ops = {
	.name = "running",
	.left = running_left,
	.extent = running_extent,
	.content_height = running_height,
	.content = running_content,
	.chrome = running_chrome,
	.title = running_title,
};

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
	g_string_append_printf(out, "%s (pid %d, tid %d)\n%s ", th->comm, th->pid, th->tid,
			       state_name(s));
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
		g_string_append(out, ", in service ");
		_rsp_append_dur(out, it->c - it->b);
		g_string_append(out, ", from ");
		_rsp_append_time(out, it->a, d->start);
	} else {
		g_string_append_printf(out, "%s\ndata in flight ", l->name);
		_rsp_append_dur(out, it->b - it->a);
		g_string_append(out, ", ready at ");
		_rsp_append_time(out, it->b, d->start);
	}
	if (it->thread != NONE)
		g_string_append_printf(out, "\n%s %s",
				       l->kind == RSP_ROW_DISK ? "issued by" : "sent by",
				       d->threads[it->thread].name);
}

bool rsp_running_describe(const struct rsp_running_data *d, const struct rsp_running_state *st,
			  size_t row, uint64_t time, GString *out)
{
	size_t nrows;
	struct row *rows = rows_of(d, st, &nrows);
	bool found = false;

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

		for (size_t k = 0; k < l->n; k++)
			if (l->v[k].a <= time && time <= l->v[k].c) {
				describe_lane(d, l, k, out);
				found = true;
				break;
			}
	}
out:
	g_free(rows);
	return found;
}

static void running_title(const void *data, const void *state, const struct rsp_scene_item *it,
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
	case RSP_HIT_LANE:
		rsp_running_describe(d, st, p >> 32, it->t0, out);
		break;
	case RSP_HIT_ROW_NAME: {
		struct rsp_row_info ri;

		rsp_running_row(d, st, p, &ri);
		g_string_append(out, ri.name ? ri.name : "");
		if (ri.kind == RSP_ROW_PROCESS) {
			g_string_append_printf(out, ": %zu thread%s, CPU ", ri.n_threads,
					       ri.n_threads == 1 ? "" : "s");
			_rsp_append_dur(out, d->procs[ri.proc].run_ns);
			g_string_append(out, "\nclick: its flame view");
		}
		break;
	}
	default:
		break;
	}
}
