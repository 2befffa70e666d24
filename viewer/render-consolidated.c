/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The consolidated flame view (the paper's figure 4): the flame data's
 * pseudostacks gathered, matching ones summed, and sorted by duration —
 * the bottom frames first, then for each the next frames up, and so on.
 *
 * A box's width is the time of the layers that pass through it.  Children
 * may be wider than their parent (a child may overflow its parent sleep
 * slightly): each box is given the room max(its width, its children's
 * room), and siblings are spaced by their room, so lower frames spread
 * apart as needed.
 *
 * Building: a layer adds its duration to every box from its process name to
 * its innermost frame.  Done as a path update: +d at the innermost box, -d
 * at the box it sits on, then subtree sums; a chain of frames is looked up
 * once per (box below, stack), so the cost is per layer, not per frame.
 *
 * Runs without samples: their time is counted apart, estimated and
 * inferred; a frame only they went through is light red (hatched when all
 * of it was inferred), and in any other frame the time of those that end
 * there is drawn over its right end, light red then hatched, so each
 * contributor's estimated and inferred time is as wide as rsp report says.
 */
#include "render-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Frames of running and sleeping stacks are one kind of box: the time
 * that went through them decides their colour (red, blue or purple). */
#define FRAME RSP_CLS_SLEEP

struct cnode {
	const char *label;
	uint32_t parent, kids, n_kids, count;
	uint64_t total, run, sleep, need, x;
	/* of run, in runs without samples: estimated, inferred; those of them that end
	 * in this box (their innermost frame) */
	uint64_t est, inf, self_est, self_inf;
	uint16_t depth, catmask;
	uint8_t cls;
};

struct rsp_cons_tree {
	struct cnode *v;
	size_t n, cap;
	uint32_t *kids;
	unsigned max_depth;
	/* building */
	uint32_t *ht;
	size_t ht_cap;
	int64_t *d_total, *d_run, *d_sleep, *d_est, *d_inf;
	GHashTable *chains; /* (below, frames offset, count) -> innermost box */
};

static uint64_t hkey(uint32_t parent, const char *label, uint8_t cls)
{
	uint64_t h = (uint64_t)parent * 0x9e3779b97f4a7c15ull;

	h ^= (uint64_t)(uintptr_t)label * 0xc2b2ae3d27d4eb4full;
	h ^= cls * 0x165667b19e3779f9ull;
	return h ^ (h >> 29);
}

static void ht_grow(struct rsp_cons_tree *c)
{
	size_t cap = c->ht_cap ? c->ht_cap * 2 : 4096;
	uint32_t *ht = g_new0(uint32_t, cap);

	for (size_t i = 1; i < c->n; i++) {
		size_t h = hkey(c->v[i].parent, c->v[i].label, c->v[i].cls) & (cap - 1);

		while (ht[h])
			h = (h + 1) & (cap - 1);
		ht[h] = (uint32_t)i;
	}
	g_free(c->ht);
	c->ht = ht;
	c->ht_cap = cap;
}

static uint32_t child(struct rsp_cons_tree *c, uint32_t parent, const char *label, uint8_t cls)
{
	size_t h;
	struct cnode *n;

	if ((c->n + 1) * 2 > c->ht_cap)
		ht_grow(c);
	for (h = hkey(parent, label, cls) & (c->ht_cap - 1); c->ht[h];
	     h = (h + 1) & (c->ht_cap - 1)) {
		const struct cnode *x = &c->v[c->ht[h]];

		if (x->parent == parent && x->label == label && x->cls == cls)
			return c->ht[h];
	}
	if (c->n == c->cap) {
		c->cap *= 2;
		c->v = g_renew(struct cnode, c->v, c->cap);
		c->d_total = g_renew(int64_t, c->d_total, c->cap);
		c->d_run = g_renew(int64_t, c->d_run, c->cap);
		c->d_sleep = g_renew(int64_t, c->d_sleep, c->cap);
		c->d_est = g_renew(int64_t, c->d_est, c->cap);
		c->d_inf = g_renew(int64_t, c->d_inf, c->cap);
	}
	n = &c->v[c->n];
	memset(n, 0, sizeof(*n));
	n->label = label;
	n->parent = parent;
	n->cls = cls;
	n->depth = (uint16_t)(c->v[parent].depth + 1);
	if (n->depth > c->max_depth)
		c->max_depth = n->depth;
	c->d_total[c->n] = c->d_run[c->n] = c->d_sleep[c->n] = c->d_est[c->n] = c->d_inf[c->n] = 0;
	c->ht[h] = (uint32_t)c->n;
	return (uint32_t)c->n++;
}

/* The innermost box of @nf frames from @off on top of @below. */
static uint32_t chain(struct rsp_cons_tree *c, const struct rsp_flame_data *d, uint32_t below,
		      uint32_t off, unsigned nf, uint8_t cls)
{
	uint64_t key[2] = {(uint64_t)below << 32 | cls, (uint64_t)off << 16 | nf};
	gpointer v;
	uint32_t top = below;

	if (!nf)
		return below;
	v = g_hash_table_lookup(c->chains, key);
	if (v)
		return GPOINTER_TO_UINT(v);
	for (unsigned f = 0; f < nf; f++)
		top = child(c, top, _rsp_frame(&d->fc, off + f), cls);
	g_hash_table_insert(c->chains, g_memdup2(key, sizeof(key)), GUINT_TO_POINTER(top));
	return top;
}

static guint key_hash(gconstpointer k)
{
	const uint64_t *x = k;
	uint64_t h = x[0] * 0x9e3779b97f4a7c15ull ^ x[1] * 0xc2b2ae3d27d4eb4full;

	return (guint)(h ^ (h >> 32));
}

static gboolean key_equal(gconstpointer a, gconstpointer b)
{
	return !memcmp(a, b, 2 * sizeof(uint64_t));
}

/* A layer of @dur from box @below to @top; @kinds: 1 run, 2 sleep, 4 estimated, 8 inferred. */
static void add_layer(struct rsp_cons_tree *c, uint32_t below, uint32_t top, uint64_t dur,
		      int kinds, int cat)
{
	c->d_total[top] += (int64_t)dur;
	c->d_total[below] -= (int64_t)dur;
	if (kinds & 1) {
		c->d_run[top] += (int64_t)dur;
		c->d_run[below] -= (int64_t)dur;
	}
	if (kinds & 2) {
		c->d_sleep[top] += (int64_t)dur;
		c->d_sleep[below] -= (int64_t)dur;
	}
	if (kinds & 4) { /* run time estimated (no sample in the run) */
		c->d_est[top] += (int64_t)dur;
		c->d_est[below] -= (int64_t)dur;
		c->v[top].self_est += dur;
	}
	if (kinds & 8) { /* run time inferred (no sample at its place in the code) */
		c->d_inf[top] += (int64_t)dur;
		c->d_inf[below] -= (int64_t)dur;
		c->v[top].self_inf += dur;
	}
	c->v[top].count++;
	if (cat >= 0 && cat < 16 && !(c->v[top].catmask & (1u << cat)))
		for (uint32_t x = top; x != below && x; x = c->v[x].parent)
			c->v[x].catmask |= (uint16_t)(1u << cat);
}

/* A run without samples: 4 its code estimated, 8 inferred; else 0. */
static int guessed(const struct _rsp_fnode *n)
{
	return n->flags & RSP_NODE_ESTIMATED ? 4 : n->flags & RSP_NODE_INFERRED ? 8 : 0;
}

static const struct rsp_cons_tree *sort_tree;

static int cmp_total(const void *a, const void *b)
{
	const struct cnode *x = &sort_tree->v[*(const uint32_t *)a];
	const struct cnode *y = &sort_tree->v[*(const uint32_t *)b];

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return strcmp(x->label, y->label);
}

struct rsp_cons_tree *rsp_cons_tree_new(const struct rsp_flame_data *d, bool merge_threads,
					bool kernel_frames)
{
	struct rsp_cons_tree *c = g_new0(struct rsp_cons_tree, 1);
	uint32_t *top = g_new(uint32_t, d->n_nodes + 1);
	uint32_t *fill;
	int m = kernel_frames ? 1 : 0;

	c->cap = 1024;
	c->v = g_new(struct cnode, c->cap);
	c->d_total = g_new(int64_t, c->cap);
	c->d_run = g_new(int64_t, c->cap);
	c->d_sleep = g_new(int64_t, c->cap);
	c->d_est = g_new(int64_t, c->cap);
	c->d_inf = g_new(int64_t, c->cap);
	c->chains = g_hash_table_new_full(key_hash, key_equal, g_free, NULL);
	memset(&c->v[0], 0, sizeof(c->v[0]));
	c->v[0].label = "all";
	c->v[0].parent = RSP_NONE32;
	c->v[0].cls = RSP_CLS_PATH;
	c->d_total[0] = c->d_run[0] = c->d_sleep[0] = c->d_est[0] = c->d_inf[0] = 0;
	c->n = 1;
	ht_grow(c);

	/* parents come before their children in the flame data */
	for (size_t i = 0; i < d->n_nodes; i++) {
		const struct _rsp_fnode *n = &d->nodes[i];
		uint32_t below = n->parent == RSP_NONE32 ? 0 : top[n->parent];
		uint64_t dur = n->e - n->s;
		int cat = n->cat == 0xff ? -1 : n->cat;
		const char *who;
		uint32_t pc;

		top[i] = below;
		if (n->kind == RSP_NODE_ROOT)
			continue;
		if (n->thread == RSP_NONE32 || n->kind == RSP_NODE_RUNNABLE ||
		    n->kind == RSP_NODE_PREEMPTED) {
			if (n->kind == RSP_NODE_RUN || n->kind == RSP_NODE_SLEEP)
				continue;
			top[i] = child(c, below, n->label, (uint8_t)_rsp_leaf_cls(n->kind, RSP_CLS_UNACCOUNTED));
			add_layer(c, below, top[i], dur, 0, cat);
			continue;
		}
		who = merge_threads ? d->threads[n->thread].comm : d->threads[n->thread].tlabel;
		pc = child(c, below, who, RSP_CLS_PROCESS);
		if (n->kind == RSP_NODE_SLEEP) {
			top[i] = chain(c, d, pc, n->frames, m ? n->n_frames : n->n_user, FRAME);
			add_layer(c, below, top[i], dur, 2, cat);
		} else if (n->kind == RSP_NODE_RUN && !n->n_samples) {
			bool guess = n->flags & (RSP_NODE_ESTIMATED | RSP_NODE_INFERRED);
			uint32_t r = child(c, pc, guess ? n->label : d->running, FRAME);

			add_layer(c, below, r, dur, 1 | guessed(n), cat);
			top[i] = pc;
		} else if (n->kind == RSP_NODE_RUN) {
			/* the run's time divided among its samples (by their shares: an
			 * estimated run's parts are unequal) */
			int kinds = 1 | guessed(n);
			uint64_t given = 0;

			for (unsigned k = 0; k < n->n_samples; k++) {
				const struct _rsp_fstack *fs = &d->samples[n->samples + k];
				/* a sampled run's rest: estimated from its site */
				int kp = kinds | (d->guessed[n->samples + k] ? 4 : 0);
				unsigned nf = m ? fs->n : fs->n_user;
				uint32_t t = nf ? chain(c, d, pc, fs->off, nf, FRAME)
						: child(c, pc, d->kernel_only, FRAME);
				uint64_t part = k + 1 == n->n_samples ?
							dur - given :
							(uint64_t)(dur * (double)d->shares[n->samples + k]);

				if (part > dur - given)
					part = dur - given;
				given += part;
				add_layer(c, below, t, part, kp, cat);
			}
			top[i] = pc;
		} else {
			top[i] = pc;
			add_layer(c, below, pc, dur, 0, cat);
		}
	}
	g_free(top);
	/* subtree sums: children come after their parents */
	for (size_t i = c->n; i-- > 1;) {
		uint32_t p = c->v[i].parent;

		c->d_total[p] += c->d_total[i];
		c->d_run[p] += c->d_run[i];
		c->d_sleep[p] += c->d_sleep[i];
		c->d_est[p] += c->d_est[i];
		c->d_inf[p] += c->d_inf[i];
	}
	for (size_t i = 0; i < c->n; i++) {
		c->v[i].total = c->d_total[i] > 0 ? (uint64_t)c->d_total[i] : 0;
		c->v[i].run = c->d_run[i] > 0 ? (uint64_t)c->d_run[i] : 0;
		c->v[i].sleep = c->d_sleep[i] > 0 ? (uint64_t)c->d_sleep[i] : 0;
		c->v[i].est = c->d_est[i] > 0 ? (uint64_t)c->d_est[i] : 0;
		c->v[i].inf = c->d_inf[i] > 0 ? (uint64_t)c->d_inf[i] : 0;
	}
	/* the root: its children's sum */
	c->v[0].total = 0;
	/* children lists, sorted by duration */
	for (size_t i = 1; i < c->n; i++)
		c->v[c->v[i].parent].n_kids++;
	{
		uint32_t off = 0;

		for (size_t i = 0; i < c->n; i++) {
			c->v[i].kids = off;
			off += c->v[i].n_kids;
		}
	}
	c->kids = g_new(uint32_t, c->n + 1);
	fill = g_new0(uint32_t, c->n + 1);
	for (size_t i = 1; i < c->n; i++) {
		uint32_t p = c->v[i].parent;

		c->kids[c->v[p].kids + fill[p]++] = (uint32_t)i;
		if (!p)
			c->v[0].total += c->v[i].total;
	}
	g_free(fill);
	sort_tree = c;
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].n_kids > 1)
			qsort(c->kids + c->v[i].kids, c->v[i].n_kids, sizeof(uint32_t), cmp_total);
	/* room: max(own width, children's room) */
	for (size_t i = c->n; i-- > 0;) {
		uint64_t sum = 0;

		for (uint32_t k = 0; k < c->v[i].n_kids; k++)
			sum += c->v[c->kids[c->v[i].kids + k]].need;
		c->v[i].need = sum > c->v[i].total ? sum : c->v[i].total;
	}
	/* positions: each child where the previous one's room ends */
	for (size_t i = 0; i < c->n; i++) {
		uint64_t x = c->v[i].x;

		for (uint32_t k = 0; k < c->v[i].n_kids; k++) {
			struct cnode *ch = &c->v[c->kids[c->v[i].kids + k]];

			ch->x = x;
			x += ch->need;
		}
	}
	g_free(c->ht);
	c->ht = NULL;
	g_free(c->d_total);
	g_free(c->d_run);
	g_free(c->d_sleep);
	g_free(c->d_est);
	g_free(c->d_inf);
	c->d_total = c->d_run = c->d_sleep = c->d_est = c->d_inf = NULL;
	g_hash_table_destroy(c->chains);
	c->chains = NULL;
	return c;
}

void rsp_cons_tree_free(struct rsp_cons_tree *c)
{
	if (!c)
		return;
	g_free(c->v);
	g_free(c->kids);
	g_free(c);
}

size_t rsp_cons_n_nodes(const struct rsp_cons_tree *c)
{
	return c->n;
}

/*
 * A frame's colour: red, blue or purple by the time through it; a frame only
 * runs without samples went through, tinted (estimated) or hatched (all of it
 * inferred).  What such runs had in a frame of another colour is drawn over
 * it where they end (guess_strips()).
 */
static enum rsp_cls box_cls(const struct cnode *n)
{
	if (n->cls == FRAME)
		return n->run && n->sleep		  ? RSP_CLS_BOTH
		       : n->run && n->inf >= n->run	  ? RSP_CLS_RUN_INFERRED
		       : n->run && n->est + n->inf >= n->run ? RSP_CLS_RUN_ESTIMATED
		       : n->run				  ? RSP_CLS_RUN
							  : RSP_CLS_SLEEP;
	return n->cls;
}

void rsp_cons_node(const struct rsp_cons_tree *c, size_t i, struct rsp_cons_node_info *out)
{
	const struct cnode *n = &c->v[i];

	out->label = n->label;
	out->parent = n->parent == RSP_NONE32 ? RSP_NO_INDEX : n->parent;
	out->depth = n->depth;
	out->total_ns = n->total;
	out->run_ns = n->run;
	out->sleep_ns = n->sleep;
	out->need_ns = n->need;
	out->x_ns = n->x;
	out->cls = box_cls(n);
	out->n_children = n->n_kids;
}

size_t rsp_cons_child(const struct rsp_cons_tree *c, size_t i, size_t k)
{
	return k < c->v[i].n_kids ? c->kids[c->v[i].kids + k] : RSP_NO_INDEX;
}

/* ---- layout ----------------------------------------------------------------------------- */

struct clay {
	const struct rsp_cons_tree *c;
	const struct rsp_cons_state *st;
	struct rsp_scene *out;
	double lx0, scale, xa, xb, ya, yb, h;
	unsigned base_depth;
	int last_col[1024];
};

/*
 * What runs without samples had in box @n where they end (not in a child):
 * at its right end, after its children and the rest of its own time,
 * estimated then inferred, tinted and hatched over the box's colour.  As
 * wide as that time even where the children's room reaches over it
 * (children that overflow their sleeps): a part of the box's width, under
 * whatever is drawn above.
 */
static void guess_strips(struct clay *C, const struct cnode *n, uint32_t i,
			 const struct rsp_scene_item *box_)
{
	/* a copy: adding items may move the box */
	const struct rsp_scene_item box = *box_;
	enum rsp_cls cls = box.cls;
	uint64_t hi = n->x + n->total;
	/* highlighted or faded as the box */
	uint8_t flags = box.flags & (RSP_ITEM_DIM | RSP_ITEM_MARKED);
	const struct {
		uint64_t ns;
		enum rsp_cls cls;
	} part[2] = {{n->self_est, RSP_CLS_RUN_ESTIMATED}, {n->self_inf, RSP_CLS_RUN_INFERRED}};
	uint64_t end = hi - (n->self_inf < hi ? n->self_inf : hi);

	for (int k = 0; k < 2; k++) {
		/* estimated: [hi - inf - est, hi - inf), inferred: [hi - inf, hi) */
		uint64_t t1 = k ? hi : end, t0 = t1 - (part[k].ns < t1 ? part[k].ns : t1);
		double a, b, X0, X1;
		struct rsp_scene_item *it;

		if (!part[k].ns || t1 <= t0 || part[k].cls == cls)
			continue;
		a = fmax((t0 - C->lx0) * C->scale, (C->xa - C->lx0) * C->scale);
		b = fmin((t1 - C->lx0) * C->scale, (C->xb - C->lx0) * C->scale);
		if (b - a < 0.25)
			continue;
		X0 = floor(a);
		X1 = fmin(fmax(X0 + 1, floor(b + 0.5)), box.x + box.w);
		if (X1 <= X0)
			continue;
		it = rsp_scene_add(C->out, RSP_PRIM_RECT, part[k].cls, X0, box.y, X1 - X0, box.h);
		/* the box's gap on top, and on its right where it ends there */
		it->flags |= X1 >= box.x + box.w ? RSP_ITEM_GAP : RSP_ITEM_GAP_TOP;
		it->prim = part[k].cls == RSP_CLS_RUN_INFERRED ? RSP_PRIM_HATCH : RSP_PRIM_RECT;
		it->flags |= flags;
		it->label = box.label; /* for titles and tests; not drawn (label_len 0) */
		it->id = RSP_HIT_ID(RSP_HIT_CONS, i);
		it->t0 = t0;
		it->t1 = t1;
		it->aux = n->count;
	}
}

static void cvisit(struct clay *C, uint32_t i)
{
	const struct cnode *n = &C->c->v[i];
	double x0 = (n->x - C->lx0) * C->scale, w = n->total * C->scale;
	double room = n->need * C->scale;
	unsigned lvl = n->depth - C->base_depth;
	double y = C->h - (lvl + 1) * (double)RSP_FRAME_H;
	bool active = C->st && ((C->st->search && *C->st->search) || C->st->category >= 0);

	if (room < 0.25 || (double)n->x > C->xb || (double)(n->x + n->need) < C->xa)
		return; /* slivers and what is off screen */
	if (lvl < 1024) {
		int col = (int)floor(x0);

		if (w < 1 && col <= C->last_col[lvl])
			return; /* one bar per pixel column */
		if ((int)ceil(x0 + w) - 1 > C->last_col[lvl])
			C->last_col[lvl] = (int)ceil(x0 + w) - 1;
	}
	if ((i || C->base_depth) && y + RSP_FRAME_H >= C->ya && y <= C->yb && w >= 0.25) {
		double a = fmax(x0, (C->xa - C->lx0) * C->scale),
		       b = fmin(x0 + w, (C->xb - C->lx0) * C->scale);
		struct rsp_scene_item *it;
		double X0 = floor(a), X1 = fmax(X0 + 1, floor(b + 0.5));

		it = rsp_scene_add_box(C->out, box_cls(n), X0, y, X1 - X0, RSP_FRAME_H, n->label);
		it->prim = it->cls == RSP_CLS_UNKNOWN || it->cls == RSP_CLS_RUN_INFERRED
				   ? RSP_PRIM_HATCH
				   : RSP_PRIM_RECT;
		it->flags |= RSP_ITEM_GAP;
		it->id = RSP_HIT_ID(RSP_HIT_CONS, i);
		it->t0 = n->x;
		it->t1 = n->x + n->total;
		it->aux = n->count;
		if (active) {
			bool hit =
			    rsp_search_hit(n->label, C->st->search) ||
			    (C->st->category >= 0 && C->st->category < 16 &&
			     (n->catmask & (1u << C->st->category)));

			it->flags |= hit ? RSP_ITEM_MARKED : RSP_ITEM_DIM;
		}
		if (n->self_est || n->self_inf)
			guess_strips(C, n, i, it);
	}
	for (uint32_t k = 0; k < n->n_kids; k++)
		cvisit(C, C->c->kids[n->kids + k]);
}

static double cons_height(const void *data, const void *state)
{
	const struct rsp_cons_tree *c = data;

	return (c->max_depth + 1) * (double)RSP_FRAME_H;
}

static double cons_home(const void *data, const void *state, double view_h)
{
	double y = cons_height(data, state) - view_h;

	return y > 0 ? y : 0;
}

static void cons_content(const void *data, const void *state, double lx0, double scale, double xa,
			 double xb, double ya, double yb, struct rsp_scene *out)
{
	const struct rsp_cons_tree *c = data;
	const struct rsp_cons_state *st = state;
	struct clay *C = g_new0(struct clay, 1);
	size_t root = st && st->root < c->n ? st->root : 0;

	C->c = c;
	C->st = st;
	C->out = out;
	C->lx0 = lx0;
	C->scale = scale;
	C->xa = xa;
	C->xb = xb;
	C->ya = ya;
	C->yb = yb;
	C->h = cons_height(data, state);
	C->base_depth = root ? c->v[root].depth : 1;
	for (size_t k = 0; k < G_N_ELEMENTS(C->last_col); k++)
		C->last_col[k] = INT32_MIN;
	if (root)
		cvisit(C, (uint32_t)root);
	else
		for (uint32_t k = 0; k < c->v[0].n_kids; k++)
			cvisit(C, c->kids[c->v[0].kids + k]);
	g_free(C);
}

static void cons_chrome(const void *data, const void *state, const struct rsp_view *v,
			struct rsp_scene *out)
{
	const struct rsp_cons_state *st = state;

	rsp_ruler_layout(out, v->x0, v->x1, 0, 0, v->width);
	if (st && st->legend)
		_rsp_legend_chrome(out, v, st->legend_idle);
}

static void cons_extent(const void *data, const void *state, double *x0, double *x1)
{
	const struct rsp_cons_tree *c = data;
	const struct rsp_cons_state *st = state;
	size_t root = st && st->root < c->n ? st->root : 0;

	*x0 = (double)c->v[root].x;
	*x1 = (double)(c->v[root].x + (c->v[root].need ? c->v[root].need : 1));
}

static void cons_title(const void *data, const void *state, const struct rsp_scene_item *it,
		       GString *out)
{
	const struct rsp_cons_tree *c = data;
	size_t i = RSP_HIT_PAYLOAD(it->id);
	const struct cnode *n;

	if (RSP_HIT_KIND(it->id) != RSP_HIT_CONS || i >= c->n)
		return;
	n = &c->v[i];
	g_string_append_printf(out, "%s\n", n->label);
	_rsp_append_dur(out, n->total);
	if (n->run && n->sleep) {
		g_string_append(out, " (running ");
		_rsp_append_dur(out, n->run);
		g_string_append(out, ", sleeping ");
		_rsp_append_dur(out, n->sleep);
		g_string_append(out, ")");
	} else if (n->run) {
		g_string_append(out, " running");
	} else if (n->sleep) {
		g_string_append(out, " sleeping");
	}
	if (c->v[0].total)
		g_string_append_printf(out, ", %.1f%% of all", 100.0 * n->total / c->v[0].total);
	if (n->est || n->inf) {
		/* as rsp report splits a contributor: what was not measured */
		g_string_append(out, "\nof the running, without samples: ");
		_rsp_append_dur(out, n->est);
		g_string_append(out, " estimated (tinted), ");
		_rsp_append_dur(out, n->inf);
		g_string_append(out, " inferred (hatched)");
		if (n->self_est || n->self_inf) {
			g_string_append(out, "; ending here ");
			_rsp_append_dur(out, n->self_est + n->self_inf);
		}
	}
	g_string_append_printf(out, "\n%u layer%s end here", n->count, n->count == 1 ? "" : "s");
	g_string_append(out, "\nstack: ");
	{
		const char *chain_[256];
		size_t k = 0;

		for (uint32_t x = (uint32_t)i; x && x != RSP_NONE32 && k < 256; x = c->v[x].parent)
			chain_[k++] = c->v[x].label;
		while (k-- > 0) {
			g_string_append(out, chain_[k]);
			if (k)
				g_string_append(out, " > ");
		}
	}
}

const struct rsp_view_ops rsp_cons_ops = {
	.name = "consolidated",
	.left = NULL,
	.extent = cons_extent,
	.content_height = cons_height,
	.home_y = cons_home,
	.content = cons_content,
	.chrome = cons_chrome,
	.title = cons_title,
};
