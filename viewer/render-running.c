/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The process-running view (the paper's figure 2): x time, one row per
 * process (expandable to its threads), runs as bars, wakeup links as lines
 * from the waking moment on the waker's row to the start of the wakee's run,
 * sleeps as blue boxes labelled with the function that best describes them,
 * block devices and sockets as lanes, lost-event spans hatched, inferred
 * switch-ins marked.
 *
 * This file: the layout of a zoom into the content and chrome scenes, over
 * the rows of a state (render-running-rows.c).  Layout
 * culls per pixel column: a slice narrower than a pixel only marks its
 * column, and the walk jumps to the next column.  The data it lays out is
 * prepared in render-running-data.c.
 */
#include "render-running-private.h"

#include <math.h>
#include <string.h>

/* ---- layout ---------------------------------------------------------------------------- */

struct lay {
	const struct rsp_running_data *d;
	const struct rsp_running_state *st;
	struct rsp_scene *out;
	double lx0, scale, xa, xb, pxa; /* pxa: content x of xa */
	int ncols;
	uint8_t *cols;   /* per column: state bits */
	uint8_t *labels; /* per column: a label is drawn there (the threads of a row share it) */
	GArray *runs;    /* a row's wide runs, added after its sleeps (struct wide_run) */
};

struct wide_run {
	double x, y, w;
	uint64_t id, t0, t1;
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

/* The time at the left edge of column @c. */
static inline double col_time(const struct lay *L, int c)
{
	return L->lx0 + (L->pxa + c) / L->scale;
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
		it->t0 = (uint64_t)col_time(L, c);
		it->t1 = (uint64_t)col_time(L, e);
		c = e;
	}
}

static bool matches(const struct lay *L, const char *s)
{
	return L->st && rsp_search_hit(s, L->st->search);
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

/*
 * The first slice from @from on that ends after @t: the same answer as a
 * gallop from @from, found through the thread's time grid where it has one.
 * Slices end in order and their ends are whole nanoseconds, so a slice ends
 * after @t exactly when it ends after floor(@t): the cell of floor(@t),
 * found in integers, holds the answer between its two bounds, and no slice
 * outside them is read (each read a cache miss on a long thread).
 */
/* The grid cell of time @t (whole nanoseconds: floor(@t)); false if none. */
static inline bool grid_cell(const struct rthread *th, double t, uint64_t *g)
{
	if (!th->grid || t < (double)th->grid_t0 || t >= 0x1p63)
		return false;
	*g = ((uint64_t)t - th->grid_t0) / th->grid_step;
	return *g < th->n_grid;
}

size_t _rsp_running_next(const struct rthread *th, size_t from, double t)
{
	size_t j;
	uint64_t g;

	if (from < th->n && grid_cell(th, t, &g)) {
		size_t lo = th->grid[g], hi = th->grid[g + 1];

		if (lo < from)
			lo = from;
		if (lo >= hi) /* from is past the cell: the answer, its end being later */
			return lo;
		RSP_LOWER_BOUND(th->v + lo, hi - lo, e, t, j);
		return lo + j;
	}
	RSP_GALLOP_BOUND(th->v, th->n, e, t, from, j);
	return j;
}

/*
 * The walk's next stops brought towards the cache ahead of it: the slice of
 * the column a few on, through its grid cell (read, its line being near the
 * last ones), and the grid cell of a column further on.  A wide zoom's walk
 * reads one slice per column, each a cache miss to memory otherwise.
 */
#define PREFETCH_SLICE 4
#define PREFETCH_CELL  10
/* Inlined always: alone, a function of prefetches has no effect GCC keeps a call for. */
static inline __attribute__((always_inline)) void prefetch_column(const struct lay *L, const struct rthread *th, int c)
{
	uint64_t g;

	if (grid_cell(th, col_time(L, c + PREFETCH_CELL), &g))
		__builtin_prefetch(&th->grid[g]);
	if (grid_cell(th, col_time(L, c + PREFETCH_SLICE), &g))
		__builtin_prefetch(&th->v[th->grid[g]]);
}

/*
 * One thread's slices, in one walk: sleeps and unknown spans added to the
 * scene (or marked in their columns), runs kept in L->runs (or marked) to be
 * added after every thread's sleeps of the row.  A slice narrower than a pixel
 * marks its column and the walk jumps to the next column: the search is a
 * cache miss or more per step on a long thread, once per column (not once per
 * kind of slice).
 */
static void thread_slices(struct lay *L, uint32_t thi, double y)
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

		if (s->kind == RSP_SLICE_RUN) {
			if (narrow) {
				L->cols[c0] |= C_RUN;
			} else {
				struct wide_run r = {floor(x0), y + 3, ceil(x1) - floor(x0),
						     RSP_HIT_ID(RSP_HIT_SLICE, (uint64_t)thi << 32 | k),
						     s->s, s->e};

				g_array_append_val(L->runs, r);
			}
			if ((s->flags & RSP_SLICE_INFERRED_START) && (double)s->s >= L->xa)
				L->cols[c0] |= C_INFERRED;
		} else if (s->kind == RSP_SLICE_UNKNOWN) {
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
		} else if (s->kind == RSP_SLICE_SLEEP && L->st && L->st->show_sleeps) {
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
			double tn = col_time(L, c0 + 1);

			prefetch_column(L, th, c0);
			k = _rsp_running_next(th, k + 1, tn);
		} else {
			k++;
		}
	}
}

/*
 * From item @k on, past the whole blocks of a lane's items that a layout
 * would skip one by one: every sub-lane has its mark in column @c, and the
 * block's items all start in that column (before @tn, with a margin) and are
 * narrower than a pixel (with a margin: px() rounds).  A busy server's lane
 * holds a million items, hundreds to a column at a wide zoom.
 */
static size_t skip_blocks(const struct lay *L, const struct rlane *l, size_t k, double tn)
{
	double before = tn - 0.01 / L->scale;
	size_t b;

	/* one by one to a block's start */
	for (; k < l->n && k % LANE_BLOCK; k++)
		if (!((double)l->v[k].a < before &&
		      (double)(l->v[k].c - l->v[k].a) * L->scale < 0.99))
			return k;
	b = k / LANE_BLOCK;
	while ((b + 1) * LANE_BLOCK <= l->n &&
	       (double)l->v[(b + 1) * LANE_BLOCK - 1].a < before &&
	       (double)l->blockdur[b] * L->scale < 0.99)
		b++;
	return b * LANE_BLOCK > k ? b * LANE_BLOCK : k;
}

static void lane_items(struct lay *L, const struct rlane *l, double y, size_t row)
{
	double sh = (RSP_ROW_H - 4.0) / l->n_sub;
	size_t k;
	int last_col[MAX_SUB];

	for (int i = 0; i < MAX_SUB; i++)
		last_col[i] = -1;
	k = _rsp_lane_first(l, L->xa);
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
			bool all = true;

			for (int i = 0; i < l->n_sub; i++)
				all &= last_col[i] == c;
			k++;
			if (all)
				k = skip_blocks(L, l, k, col_time(L, c + 1));
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

/* Rows [r0, r1) of @rv into L->out. */
static void lay_rows(struct lay *L, const struct rows_view *rv, size_t r0, size_t r1)
{
	const struct rsp_running_data *d = L->d;
	const struct row *rows = rv->rows;

	for (size_t r = r0; r < r1; r++) {
		double y = (double)r * RSP_ROW_H;
		struct rsp_row_info ri;

		_rsp_running_row_info(d, rows[r], &ri);
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
			memset(L->labels, 0, L->ncols);
			memset(L->cols, 0, L->ncols);
			g_array_set_size(L->runs, 0);
			for (size_t k = 0; k < nth; k++)
				thread_slices(L, ths[k], y);
			/* sleeps and unknown spans under the runs */
			flush_cols(L, C_SLEEP | C_SLEEP_D | C_RUNNABLE, y + 3, RSP_ROW_H - 6, r);
			flush_cols(L, C_UNKNOWN, y + 3, RSP_ROW_H - 6, r);
			for (guint i = 0; i < L->runs->len; i++) {
				const struct wide_run *w = &g_array_index(L->runs, struct wide_run, i);
				struct rsp_scene_item *it =
				    rsp_scene_add(L->out, RSP_PRIM_RECT, RSP_CLS_RUN, w->x, w->y,
						  w->w, RSP_ROW_H - 6);

				it->id = w->id;
				it->t0 = w->t0;
				it->t1 = w->t1;
			}
			flush_cols(L, C_RUN, y + 3, RSP_ROW_H - 6, r);
			/* inferred switch-ins: a mark above the bar */
			for (int c = 0; c < L->ncols; c++)
				if (L->cols[c] & C_INFERRED) {
					struct rsp_scene_item *it =
					    rsp_scene_add(L->out, RSP_PRIM_TRIANGLE, RSP_CLS_INFERRED,
							  L->pxa + c - 3, y, 7, 5);

					it->t0 = it->t1 = (uint64_t)col_time(L, c);
					c += 6;
				}
		} else {
			lane_items(L, &d->lanes[rows[r].idx], y, r);
		}
	}
}

/*
 * What a row costs to lay out, roughly: the slices (or lane items) in the
 * layout's time range, at most a few per pixel column (a walk jumps to the
 * next column past narrow ones); their number estimated from the share of
 * the range in each thread's (or lane's) life, without reading them.
 */
static double row_cost(const struct lay *L, struct row r)
{
	const struct rsp_running_data *d = L->d;
	double cost = 1, cap = 2.0 * L->ncols;

	if (r.kind == RSP_ROW_PROCESS || r.kind == RSP_ROW_THREAD) {
		const uint32_t *ths = r.kind == RSP_ROW_PROCESS ? d->procs[r.idx].threads : &r.idx;
		size_t nth = r.kind == RSP_ROW_PROCESS ? d->procs[r.idx].n_threads : 1;

		for (size_t k = 0; k < nth; k++) {
			const struct rthread *th = &d->threads[ths[k]];
			double a = th->n ? (double)th->v[0].s : 0, b = th->n ? (double)th->v[th->n - 1].e : 0;
			double in = fmin(b, L->xb) - fmax(a, L->xa);

			if (b > a && in > 0)
				cost += fmin(cap, (double)th->n * in / (b - a));
		}
	} else {
		const struct rlane *l = &d->lanes[r.idx];
		double a = l->n ? (double)l->v[0].a : 0, b = l->n ? (double)l->v[l->n - 1].a : 0;
		double in = fmin(b, L->xb) - fmax(a, L->xa);

		if (b > a && in > 0)
			cost += fmin(cap, (double)l->n * in / (b - a));
		else if (l->n)
			cost += 1;
	}
	return cost;
}

/* A second thread's share of a layout: rows [r0, r1) into its own scene. */
struct lay_part {
	struct lay L;
	const struct rows_view *rv;
	size_t r0, r1;
};

static gpointer lay_part_run(gpointer p)
{
	struct lay_part *part = p;

	lay_rows(&part->L, part->rv, part->r0, part->r1);
	return NULL;
}

static void lay_init(struct lay *L, struct rsp_scene *out)
{
	L->out = out;
	L->cols = g_malloc(L->ncols);
	L->labels = g_malloc(L->ncols);
	L->runs = g_array_new(FALSE, FALSE, sizeof(struct wide_run));
}

static void lay_clear(struct lay *L)
{
	g_free(L->cols);
	g_free(L->labels);
	g_array_free(L->runs, TRUE);
}

/*
 * A layout's rows on two cores where the machine has them and the work is
 * worth a thread (a busy recording's view at a wide zoom: tens of thousands
 * of slices, each a cache miss): the rows cut where the larger part's
 * estimated work is least, the later ones laid out into a scene of their own and appended,
 * so the scene is the one a single thread makes, item for item.  The data
 * and state are only read meanwhile (the rows were made before).
 */
struct _rsp_running_parallel _rsp_running_parallel = {.min_cost = 20000};

static void lay_all_rows(struct lay *L, const struct rows_view *rv, size_t r0, size_t r1)
{
	struct _rsp_running_parallel *pp = &_rsp_running_parallel;
	double total = 0, half = 0, best = INFINITY, *cost;
	size_t rm = r1;
	struct lay_part part;
	GThread *worker;

	if (!g_atomic_int_get(&pp->cpus))
		g_atomic_int_set(&pp->cpus, (gint)g_get_num_processors());
	if (r1 <= r0 + 1 || g_atomic_int_get(&pp->cpus) < 2) {
		lay_rows(L, rv, r0, r1);
		return;
	}
	cost = g_new(double, r1 - r0);
	for (size_t r = r0; r < r1; r++)
		total += cost[r - r0] = row_cost(L, rv->rows[r]);
	/* the cut that leaves the larger part smallest */
	for (size_t r = r0 + 1; r < r1; r++) {
		half += cost[r - 1 - r0];
		if (fmax(half, total - half) < best) {
			best = fmax(half, total - half);
			rm = r;
		}
	}
	g_free(cost);
	if (total < pp->min_cost || rm >= r1) {
		lay_rows(L, rv, r0, r1);
		return;
	}
	part.L = *L;
	lay_init(&part.L, rsp_scene_new());
	part.rv = rv;
	part.r0 = rm;
	part.r1 = r1;
	worker = g_thread_try_new("rsp-layout", lay_part_run, &part, NULL);
	if (!worker)
		lay_part_run(&part); /* no thread: the same rows, here, after */
	lay_rows(L, rv, r0, rm);
	if (worker)
		g_thread_join(worker);
	rsp_scene_take(L->out, part.L.out);
	rsp_scene_free(part.L.out);
	lay_clear(&part.L);
	g_atomic_int_inc(&pp->n_split);
}

/*
 * Under the rows' marks (rsp_scene_end_under): the rows' backgrounds, then
 * the wakeup links, at most one per pixel column; at a coarse zoom (more
 * than one link per RSP_LINKS_COARSE_PX columns in view) only the links
 * within the target's chains, none when hidden.  A link passes under every
 * row's marks it crosses: it never covers a disk request or a run.
 */
static void lay_under(struct lay *L, const struct rows_view *rv, size_t r0, size_t r1,
		      double ya, double yb)
{
	const struct rsp_running_data *d = L->d;
	const struct rsp_running_state *st = L->st;
	const uint32_t *row_of_thread = rv->row_of_thread;
	const int32_t *row_of_lane = rv->row_of_lane;
	double xa = L->xa, xb = L->xb;

	for (size_t r = r0; r < r1; r++) {
		double y = (double)r * RSP_ROW_H;
		struct rsp_row_info ri;

		_rsp_running_row_info(d, rv->rows[r], &ri);
		if (ri.target && ri.kind <= RSP_ROW_THREAD)
			rsp_scene_add(L->out, RSP_PRIM_RECT, RSP_CLS_ROW_TARGET, L->pxa, y, L->ncols,
				      RSP_ROW_H);
		else if (r & 1)
			rsp_scene_add(L->out, RSP_PRIM_RECT, RSP_CLS_ROW_ALT, L->pxa, y, L->ncols,
				      RSP_ROW_H);
	}
	if (st && st->hide_links)
		return;
	{
		const struct rlink *links = d->links;
		size_t k, k1, n = d->n_links;
		int last = -1;

		RSP_LOWER_BOUND(links, n, t, xa, k);
		RSP_LOWER_BOUND(links, n, t, xb, k1);
		if ((double)(k1 - k) * RSP_LINKS_COARSE_PX > L->ncols) {
			links = d->chain_links;
			n = d->n_chain_links;
			RSP_LOWER_BOUND(links, n, t, xa, k);
		}
		for (; k < n && (double)links[k].t < xb; k++) {
			const struct rlink *l = &links[k];
			int c = col_of(L, (double)l->t);
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
			it = rsp_scene_add(L->out, RSP_PRIM_LINE, RSP_CLS_LINK, px(L, (double)l->t),
					   y0, px(L, (double)l->to_start) - px(L, (double)l->t),
					   y1 - y0);
			it->t0 = l->t;
			it->t1 = l->to_start;
			/* past the rest of this column's links (a wide zoom of a busy
			 * recording: hundreds of thousands), to a hundredth of a pixel
			 * before the next column: those between are this column's */
			{
				double before = col_time(L, c + 1) - 0.01 / L->scale;
				size_t j;

				RSP_GALLOP_BOUND(links, n, t, before, k + 1, j);
				k = j - 1;
			}
		}
	}
}

static void running_content(const void *data, const void *state, double lx0, double scale,
			    double xa, double xb, double ya, double yb, struct rsp_scene *out)
{
	const struct rsp_running_data *d = data;
	const struct rsp_running_state *st = state;
	struct lay L = {d, st, out, lx0, scale, xa, xb, 0, 0, NULL};
	size_t nrows, r0, r1;
	struct rows_view rv;
	double full_h;

	_rsp_running_rows(d, st, &rv);
	nrows = rv.n;
	full_h = (double)nrows * RSP_ROW_H;

	L.pxa = floor(px(&L, xa));
	L.ncols = (int)ceil(px(&L, xb) - L.pxa) + 1;
	if (L.ncols < 1)
		L.ncols = 1;
	lay_init(&L, out);
	r0 = (size_t)fmax(0, floor(ya / RSP_ROW_H));
	r1 = (size_t)fmin((double)nrows, ceil(yb / RSP_ROW_H));
	lay_under(&L, &rv, r0 < r1 ? r0 : r1, r1, ya, yb);
	rsp_scene_end_under(out);
	if (r0 < r1)
		lay_all_rows(&L, &rv, r0, r1);
	/* lost-event spans: hatched across every row (the timeline is unknown
	 * there); a span missing one event type (shed by the recorder, or
	 * LOST_SAMPLES of one event) leaves the timeline whole: a strip along the
	 * top, its tooltip saying what is missing */
	for (size_t i = 0; i < d->n_lost; i++) {
		const struct rsp_lost_info *li = &d->lost[i];
		double a = fmax((double)li->start_ns, xa), b = fmin((double)li->end_ns, xb);
		struct rsp_scene_item *it;

		if (b < a || full_h <= 0)
			continue;
		if (li->event) {
			it = rsp_scene_add(out, RSP_PRIM_RECT, RSP_CLS_SHED, floor(px(&L, a)), 0,
					   fmax(2, ceil(px(&L, b)) - floor(px(&L, a))),
					   RSP_SHED_STRIP_H);
			it->id = RSP_HIT_ID(RSP_HIT_LOST, i);
		} else {
			it = rsp_scene_add(out, RSP_PRIM_HATCH, RSP_CLS_LOST, floor(px(&L, a)), 0,
					   fmax(2, ceil(px(&L, b)) - floor(px(&L, a))), full_h);
		}
		it->t0 = li->start_ns;
		it->t1 = li->end_ns;
	}
	lay_clear(&L);
}

static void running_chrome(const void *data, const void *state, const struct rsp_view *v,
			   struct rsp_scene *out)
{
	const struct rsp_running_data *d = data;
	const struct rsp_running_state *st = state;
	struct rows_view rv;
	const struct row *rows;
	size_t nrows;
	double top = RSP_RULER_H;
	size_t r0, r1;

	_rsp_running_rows(d, st, &rv);
	rows = rv.rows;
	nrows = rv.n;
	r0 = (size_t)fmax(0, floor(v->scroll_y / RSP_ROW_H));
	r1 = (size_t)fmin((double)nrows, ceil((v->scroll_y + v->height - top) / RSP_ROW_H));

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

		_rsp_running_row_info(d, rows[r], &ri);
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
		if (st && rsp_search_hit(ri.name, st->search)) {
			it->flags |= RSP_ITEM_MARKED;
			/* the match Enter stepped to: a bar at the gutter's edge */
			if (st->search_current == r + 1)
				rsp_scene_add(out, RSP_PRIM_RECT, RSP_CLS_MARK, 0, y, 4, RSP_ROW_H);
		}
	}
	rsp_scene_add(out, RSP_PRIM_LINE, RSP_CLS_SEPARATOR, RSP_GUTTER_W - 0.5, 0, 0, v->height);
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
	.title = _rsp_running_title,
};
