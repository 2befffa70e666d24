/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The process-running view's rows in a state (render-running-private.h): which
 * processes are expanded into their threads, chains only; kept while the
 * state is the same, and what each row is.
 */
#include "render-running-private.h"

#include <string.h>

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

struct rows_cache {
	bool chains_only;
	uint8_t *expanded; /* a copy of the state's (n_procs), NULL if it had none */
	struct row *rows; /* NULL: none built yet */
	size_t n;
	uint32_t *row_of_thread;
	int32_t *row_of_lane;
};

/* Does @rc hold the rows of @st? */
static bool rows_same(const struct rsp_running_data *d, const struct rows_cache *rc,
		      const struct rsp_running_state *st)
{
	bool chains = st && st->chains_only, has = st && st->expanded;

	if (!rc->rows || rc->chains_only != chains || !rc->expanded != !has)
		return false;
	return !has || !memcmp(rc->expanded, st->expanded, d->n_procs);
}

void _rsp_running_rows(const struct rsp_running_data *d, const struct rsp_running_state *st,
		       struct rows_view *out)
{
	struct rows_cache *rc = d->rc;

	if (!rows_same(d, rc, st)) {
		size_t cap = build_rows(d, st, NULL);

		rc->chains_only = st && st->chains_only;
		g_free(rc->expanded);
		rc->expanded = st && st->expanded ? g_memdup2(st->expanded, d->n_procs + 1) : NULL;
		g_free(rc->rows);
		rc->rows = g_new(struct row, cap + 1);
		rc->n = build_rows(d, st, rc->rows);
		g_free(rc->row_of_thread);
		g_free(rc->row_of_lane);
		rc->row_of_thread = g_new(uint32_t, d->n_threads + 1);
		rc->row_of_lane = g_new(int32_t, d->n_lanes + 1);
		for (size_t i = 0; i < d->n_threads; i++)
			rc->row_of_thread[i] = NONE;
		for (size_t i = 0; i < d->n_lanes; i++)
			rc->row_of_lane[i] = -1;
		for (size_t r = 0; r < rc->n; r++) {
			const struct row *w = &rc->rows[r];

			if (w->kind == RSP_ROW_PROCESS) {
				const struct rproc *p = &d->procs[w->idx];

				for (size_t k = 0; k < p->n_threads; k++)
					if (rc->row_of_thread[p->threads[k]] == NONE)
						rc->row_of_thread[p->threads[k]] = (uint32_t)r;
			} else if (w->kind == RSP_ROW_THREAD) {
				rc->row_of_thread[w->idx] = (uint32_t)r;
			} else {
				rc->row_of_lane[w->idx] = (int32_t)r;
			}
		}
	}
	out->rows = rc->rows;
	out->n = rc->n;
	out->row_of_thread = rc->row_of_thread;
	out->row_of_lane = rc->row_of_lane;
}

struct rows_cache *_rsp_running_rows_new(void)
{
	return calloc(1, sizeof(struct rows_cache));
}

void _rsp_running_rows_free(struct rows_cache *rc)
{
	if (!rc)
		return;
	g_free(rc->expanded);
	g_free(rc->rows);
	g_free(rc->row_of_thread);
	g_free(rc->row_of_lane);
	free(rc);
}

size_t rsp_running_n_procs(const struct rsp_running_data *d)
{
	return d->n_procs;
}

size_t rsp_running_n_rows(const struct rsp_running_data *d, const struct rsp_running_state *st)
{
	struct rows_view v;

	_rsp_running_rows(d, st, &v);
	return v.n;
}

void _rsp_running_row_info(const struct rsp_running_data *d, struct row r,
			   struct rsp_row_info *out)
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
	struct rows_view v;

	_rsp_running_rows(d, st, &v);
	if (row < v.n)
		_rsp_running_row_info(d, v.rows[row], out);
	else
		memset(out, 0, sizeof(*out));
}

size_t rsp_running_row_at(const struct rsp_running_data *d, const struct rsp_running_state *st,
			  double y)
{
	size_t n = rsp_running_n_rows(d, st);

	if (y < 0 || y >= (double)n * RSP_ROW_H)
		return RSP_NO_INDEX;
	return (size_t)(y / RSP_ROW_H);
}
