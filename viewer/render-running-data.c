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

/* A process row's name: "comm pid", then its command line's arguments (the
 * program is the comm's; the whole line is in the row's tooltip). */
static char *proc_name(const struct rsp_thread_info *ti)
{
	const char *args = ti->cmdline ? strchr(ti->cmdline, ' ') : NULL;

	if (!args)
		return g_strdup_printf("%s %d", ti->comm, ti->pid);
	return g_strdup_printf("%s %d%.200s", ti->comm, ti->pid, args);
}

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
	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return x->made < y->made ? -1 : x->made > y->made;
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

/* The port of "127.0.0.1:8080" or "[::1]:8080"; -1: none */
static int addr_port(const char *a)
{
	const char *c = strrchr(a, ':');
	char *end;
	long v;

	if (!c || !c[1])
		return -1;
	v = strtol(c + 1, &end, 10);
	return *end || v < 0 || v > 65535 ? -1 : (int)v;
}

/* Linux's default ip_local_port_range: a connecting socket's port */
#define EPHEMERAL_LO 32768
#define EPHEMERAL_HI 60999

/*
 * Which end of a connected socket is the service's, the one a group of
 * connections shares: a port some socket of the trace listens on (the local
 * end: accepted by a server here; the remote end: a client of a server here);
 * else the end whose port is not ephemeral while the other's is.  0: local,
 * 1: remote, -1: neither (the connection keeps a lane of its own).
 */
static int service_end(const struct rsp_socket_info *si, const GHashTable *listening)
{
	int lp = addr_port(si->local), rp = addr_port(si->remote);
	bool le = lp >= EPHEMERAL_LO && lp <= EPHEMERAL_HI;
	bool re = rp >= EPHEMERAL_LO && rp <= EPHEMERAL_HI;

	if (lp <= 0 || rp <= 0)
		return -1;
	if (g_hash_table_contains((GHashTable *)listening, GINT_TO_POINTER(lp)))
		return 0;
	if (g_hash_table_contains((GHashTable *)listening, GINT_TO_POINTER(rp)))
		return 1;
	if (le != re)
		return le ? 1 : 0;
	return -1;
}

void _rsp_running_socket_name(const struct rsp_socket_info *si, char *name, size_t len)
{
	if (si->listening)
		snprintf(name, len, "socket %s (listening)", si->local);
	else if (si->local[0] || si->remote[0])
		snprintf(name, len, "socket %s%s%s", si->local, si->remote[0] ? " <- " : "",
			 si->remote);
	else
		snprintf(name, len, "socket %" PRIx64, si->sk);
}

/*
 * The name of the lane of each socket data arrived at (@lane_name[socket],
 * interned; NULL: none), a busy server's connections sharing one: a web
 * server's minute has a million connections, a lane each was a million rows.
 * Connections to or from one service end (service_end()) are one lane,
 * "socket 127.0.0.1:8080 <- * (412 connections)" on the server's side,
 * "socket * <- 127.0.0.1:8080 (412 connections)" on its clients'; a service end
 * with one connection keeps the connection's own name.  A lane item's tooltip
 * names its connection.
 */
static void socket_lane_names(struct rsp_running_data *d, const char **lane_name)
{
	struct rsp_trace *t = d->t;
	size_t nnet = rsp_trace_n_nets(t), nsock = rsp_trace_n_sockets(t);
	GHashTable *listening = g_hash_table_new(g_direct_hash, g_direct_equal);
	GHashTable *groups = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	bool *used = g_new0(bool, nsock + 1);
	size_t *members = g_new0(size_t, nsock + 1); /* per group's first socket */
	size_t *group = g_new(size_t, nsock + 1);     /* a socket's group: its first socket */

	for (size_t i = 0; i < nnet; i++) {
		struct rsp_net_info ni;

		rsp_trace_net(t, i, &ni);
		if (ni.socket < nsock && ni.ready_ns)
			used[ni.socket] = true;
	}
	for (size_t i = 0; i < nsock; i++) {
		struct rsp_socket_info si;
		int port;

		rsp_trace_socket(t, i, &si);
		if (si.listening && (port = addr_port(si.local)) > 0)
			g_hash_table_add(listening, GINT_TO_POINTER(port));
	}
	for (size_t i = 0; i < nsock; i++) {
		struct rsp_socket_info si;
		char key[160];
		gpointer v;
		int end;

		group[i] = i;
		lane_name[i] = NULL;
		if (!used[i])
			continue;
		rsp_trace_socket(t, i, &si);
		end = si.listening ? -1 : service_end(&si, listening);
		if (end >= 0) {
			snprintf(key, sizeof(key), "%d %s", end, end ? si.remote : si.local);
			v = g_hash_table_lookup(groups, key);
			if (v)
				group[i] = GPOINTER_TO_SIZE(v) - 1;
			else
				g_hash_table_insert(groups, g_strdup(key), GSIZE_TO_POINTER(i + 1));
		}
		members[group[i]]++;
	}
	for (size_t i = 0; i < nsock; i++) {
		struct rsp_socket_info si;
		char name[200];

		if (!used[i] || group[i] != i)
			continue;
		rsp_trace_socket(t, i, &si);
		if (members[i] > 1 && service_end(&si, listening) == 0)
			snprintf(name, sizeof(name), "socket %s <- * (%zu connections)", si.local,
				 members[i]);
		else if (members[i] > 1)
			snprintf(name, sizeof(name), "socket * <- %s (%zu connections)", si.remote,
				 members[i]);
		else
			_rsp_running_socket_name(&si, name, sizeof(name));
		lane_name[i] = _rsp_intern(&d->strs, name);
	}
	for (size_t i = 0; i < nsock; i++)
		if (used[i])
			lane_name[i] = lane_name[group[i]];
	g_hash_table_destroy(groups);
	g_hash_table_destroy(listening);
	g_free(used);
	g_free(members);
	g_free(group);
}

/*
 * A thread's time grid (struct rthread): a layout looks up the slice at each
 * pixel column's start, and a search through a long thread's slices is a
 * cache miss per step; the grid narrows it to the few slices of one cell.
 * About one cell per GRID_PER slices, for threads of more than GRID_MIN.
 */
#define GRID_MIN 256
#define GRID_PER 4
void _rsp_running_grid(struct rthread *th)
{
	uint64_t t0, span;
	size_t k = 0;

	th->grid = NULL;
	th->n_grid = 0;
	if (th->n < GRID_MIN || th->n > UINT32_MAX)
		return;
	t0 = th->v[0].s;
	span = th->v[th->n - 1].e - t0;
	th->n_grid = th->n / GRID_PER;
	th->grid_step = span / th->n_grid + 1;
	th->grid_t0 = t0;
	th->grid = g_new(uint32_t, th->n_grid + 1);
	for (size_t g = 0; g <= th->n_grid; g++) {
		uint64_t at = t0 + g * th->grid_step;

		while (k < th->n && th->v[k].e <= at)
			k++;
		th->grid[g] = (uint32_t)k;
	}
}

static int build_lanes(struct rsp_running_data *d)
{
	struct rsp_trace *t = d->t;
	size_t nio = rsp_trace_n_ios(t), nnet = rsp_trace_n_nets(t), nsock = rsp_trace_n_sockets(t);
	GHashTable *devs = g_hash_table_new(g_direct_hash, g_direct_equal);
	GArray *lanes = g_array_new(FALSE, TRUE, sizeof(struct rlane));
	size_t *sock_lane = g_new(size_t, nsock + 1);
	const char **lane_name = g_new(const char *, nsock + 1);
	GHashTable *lane_of_name;

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
		/* a completion the trace lost (perf drops those on idle CPUs): not
		 * drawn as in service to the trace's end, a mark at its issue */
		it.no_end = !io.complete_ns;
		it.model = i;
		it.thread = io.thread != RSP_NO_INDEX && io.thread < rsp_trace_n_threads(t)
				? d->of_model[io.thread]
				: NONE;
		it.sub = 0;
		lane_push(l, &it);
		if (thread_in_chain(d, it.thread))
			l->chain = true;
	}
	/* sockets: a lane per connection, or per service end (socket_lane_names()),
	 * in the order of their first arrival */
	for (size_t i = 0; i < nsock; i++)
		sock_lane[i] = RSP_NO_INDEX;
	socket_lane_names(d, lane_name);
	lane_of_name = g_hash_table_new(g_direct_hash, g_direct_equal);
	for (size_t i = 0; i < nnet; i++) {
		struct rsp_net_info ni;
		struct rlane *l;
		struct litem it;
		gpointer v;

		rsp_trace_net(t, i, &ni);
		if (ni.socket == RSP_NO_INDEX || ni.socket >= nsock || !ni.ready_ns ||
		    !lane_name[ni.socket])
			continue;
		if (sock_lane[ni.socket] == RSP_NO_INDEX) {
			v = g_hash_table_lookup(lane_of_name, lane_name[ni.socket]);
			if (!v) {
				struct rlane nl = {.kind = RSP_ROW_SOCKET, .name = lane_name[ni.socket]};

				g_array_append_val(lanes, nl);
				v = GSIZE_TO_POINTER(lanes->len);
				g_hash_table_insert(lane_of_name, (gpointer)lane_name[ni.socket], v);
			}
			sock_lane[ni.socket] = GPOINTER_TO_SIZE(v) - 1;
		}
		l = &g_array_index(lanes, struct rlane, sock_lane[ni.socket]);
		it.no_end = false;
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
		l->blockdur = g_new0(uint64_t, l->n / LANE_BLOCK + 1);
		for (size_t k = 0; k < l->n; k++) {
			uint64_t dur = l->v[k].c - l->v[k].a;

			if (dur > l->blockdur[k / LANE_BLOCK])
				l->blockdur[k / LANE_BLOCK] = dur;
			if (dur > l->maxdur)
				l->maxdur = dur;
		}
	}
	for (guint i = 0; i < lanes->len; i++)
		g_array_index(lanes, struct rlane, i).made = i;
	if (lanes->len > 1)
		qsort(lanes->data, lanes->len, sizeof(struct rlane), cmp_lane);
	d->n_lanes = lanes->len;
	d->lanes = (struct rlane *)(void *)g_array_free(lanes, FALSE);
	/* each socket's lane, in the sorted order: the links' lanes */
	{
		int32_t *sorted = g_new(int32_t, d->n_lanes + 1);

		for (size_t l = 0; l < d->n_lanes; l++)
			sorted[d->lanes[l].made] = (int32_t)l;
		d->sock_lane = g_new(int32_t, nsock + 1);
		d->n_socks = nsock;
		for (size_t i = 0; i < nsock; i++)
			d->sock_lane[i] = sock_lane[i] == RSP_NO_INDEX ? -1 : sorted[sock_lane[i]];
		g_free(sorted);
	}
	g_hash_table_destroy(devs);
	g_hash_table_destroy(lane_of_name);
	g_free(sock_lane);
	g_free(lane_name);
	return 0;
}

static int32_t disk_lane(const struct rsp_running_data *d, uint32_t dev)
{
	for (size_t l = 0; l < d->n_lanes; l++)
		if (d->lanes[l].kind == RSP_ROW_DISK && d->lanes[l].dev == dev)
			return (int32_t)l;
	return -1;
}

static void build_links(struct rsp_running_data *d)
{
	struct rsp_trace *t = d->t;
	size_t n = rsp_trace_n_links(t), nt = rsp_trace_n_threads(t);

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
			l.from_lane = disk_lane(d, io.dev);
			l.from = NONE;
		} else if (li.kind == RSP_LINK_NET && li.net != RSP_NO_INDEX &&
			   li.net < rsp_trace_n_nets(t) && l.from == NONE) {
			struct rsp_net_info ni;

			rsp_trace_net(t, li.net, &ni);
			if (ni.socket < d->n_socks)
				l.from_lane = d->sock_lane[ni.socket];
		}
		if (l.from == NONE && l.from_lane < 0)
			continue;
		d->links[d->n_links++] = l;
	}
	if (d->n_links > 1)
		qsort(d->links, d->n_links, sizeof(*d->links), cmp_link);
	d->chain_links = g_new(struct rlink, d->n_links + 1);
	d->n_chain_links = 0;
	for (size_t i = 0; i < d->n_links; i++) {
		const struct rlink *l = &d->links[i];
		bool from = l->from != NONE ? thread_in_chain(d, l->from)
					    : l->from_lane >= 0 && d->lanes[l->from_lane].chain;

		if (from && thread_in_chain(d, l->to))
			d->chain_links[d->n_chain_links++] = *l;
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
		char name[64];

		d->of_model[i] = NONE;
		rsp_trace_thread(t, i, &ti);
		if (!ti.n_slices)
			continue;
		th = &d->threads[d->n_threads];
		th->model = i;
		th->tid = ti.tid;
		th->pid = ti.pid;
		th->comm = _rsp_intern(&d->strs, ti.comm);
		th->cmdline = ti.cmdline ? _rsp_intern(&d->strs, ti.cmdline) : NULL;
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
		_rsp_running_grid(th);
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
			g_autofree char *pname = proc_name(&ti);

			p->name = _rsp_intern(&d->strs, pname);
			p->cmdline = th->cmdline;
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
		g_free(d->threads[i].grid);
	}
	g_free(d->threads);
	g_free(d->of_model);
	for (size_t i = 0; i < d->n_procs; i++)
		g_free(d->procs[i].threads);
	g_free(d->procs);
	for (size_t i = 0; i < d->n_lanes; i++) {
		g_free(d->lanes[i].v);
		g_free(d->lanes[i].blockdur);
	}
	g_free(d->lanes);
	g_free(d->sock_lane);
	g_free(d->links);
	g_free(d->chain_links);
	g_free(d->lost);
	_rsp_frames_clear(&d->fc);
	_rsp_strtab_clear(&d->strs);
	_rsp_running_rows_free(d->rc);
	free(d);
}
