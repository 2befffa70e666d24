/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The chronological flame view (the paper's figure 3): x time over the
 * target's lifetime, y pseudostack depth.  Each layer of each pseudostack
 * (a node of the analysis) is drawn as its stack: the process name in grey,
 * then its frames outermost first; a child layer sits on its parent's
 * innermost frame.  Run frames red (a run with several samples divides its
 * width among them; a run without samples, among the functions its estimate
 * names, light red, or its inferred site's frames, hatched), sleep frames
 * blue, frames where both merged purple (what a run without samples had in
 * such a frame drawn over it, light red or hatched, as wide as it ran);
 * leaves (disk, network, timeouts, ...) one box of their colour.  Each
 * control path is a band.
 *
 * Adjacent identical frames merge when nothing visible separates them: per
 * level, a box extends the previous one if it has the same name, sits on
 * the same (merged) box below, and starts less than half a pixel after it.
 * Zooming in opens the gaps again.  Nodes narrower than a pixel are drawn
 * only if their column is not drawn yet at their depth, and the walk jumps
 * to the next column.
 */
#include "render-private.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BAND_GAP     10.0
#define MERGE_GAP_PX 1.0

/* ---- preparing ---------------------------------------------------------------------------- */

static const struct _rsp_fnode *cmp_base;

static int cmp_start(const void *a, const void *b)
{
	const struct _rsp_fnode *x = &cmp_base[*(const uint32_t *)a],
				*y = &cmp_base[*(const uint32_t *)b];

	if (x->s != y->s)
		return x->s < y->s ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

static uint16_t clamp16(size_t v)
{
	return (uint16_t)(v > 60000 ? 60000 : v);
}

int rsp_flame_data_new(struct rsp_trace *t, struct rsp_analysis *a, struct rsp_flame_data **out,
		       char *err, size_t errlen)
{
	struct rsp_flame_data *d = calloc(1, sizeof(*d));
	size_t nt = rsp_trace_n_threads(t), nn = rsp_analysis_n_nodes(a);
	struct rsp_explanation ex;
	struct rsp_trace_summary sum;
	GArray *samples, *shares, *guessed;
	uint32_t *fill;

	*out = NULL;
	if (!d)
		goto nomem;
	_rsp_strtab_init(&d->strs);
	_rsp_frames_init(&d->fc, t, &d->strs);
	d->running = _rsp_intern(&d->strs, "[running]");
	d->kernel_only = _rsp_intern(&d->strs, "[kernel]");
	rsp_trace_get_summary(t, &sum);
	rsp_analysis_explanation(a, &ex);
	d->origin = sum.start_ns;
	d->start = ex.start_ns;
	d->end = ex.end_ns > ex.start_ns ? ex.end_ns : ex.start_ns + 1;

	d->n_threads = nt;
	d->threads = g_new0(struct _rsp_fthread, nt + 1);
	for (size_t i = 0; i < nt; i++) {
		struct rsp_thread_info ti;
		char buf[96];

		rsp_trace_thread(t, i, &ti);
		d->threads[i].comm = _rsp_intern(&d->strs, ti.comm);
		snprintf(buf, sizeof(buf), "%s [%d]", ti.comm, ti.tid);
		d->threads[i].tlabel = _rsp_intern(&d->strs, buf);
		d->threads[i].cmdline = ti.cmdline ? _rsp_intern(&d->strs, ti.cmdline) : NULL;
		d->threads[i].tid = ti.tid;
		d->threads[i].pid = ti.pid;
	}
	d->n_paths = rsp_analysis_n_paths(a);
	d->paths = g_new0(struct _rsp_fpath, d->n_paths + 1);
	for (size_t p = 0; p < d->n_paths; p++) {
		struct rsp_path_info pi;
		char buf[160];

		rsp_analysis_path(a, p, &pi);
		d->paths[p].thread = pi.thread < nt ? (uint32_t)pi.thread : RSP_NONE32;
		d->paths[p].async = pi.async;
		snprintf(buf, sizeof(buf), "control path %zu: %s %d%s", p,
			 pi.thread < nt ? d->threads[pi.thread].comm : "?",
			 pi.thread < nt ? d->threads[pi.thread].tid : 0,
			 pi.async ? " (async: started by the target, run in parallel)" : "");
		d->paths[p].label = _rsp_intern(&d->strs, buf);
	}

	d->n_nodes = nn;
	d->nodes = g_new0(struct _rsp_fnode, nn + 1);
	d->kids = g_new(uint32_t, nn + 1);
	samples = g_array_new(FALSE, FALSE, sizeof(struct _rsp_fstack));
	shares = g_array_new(FALSE, FALSE, sizeof(float));
	guessed = g_array_new(FALSE, FALSE, sizeof(uint8_t));
	for (size_t i = 0; i < nn; i++) {
		struct rsp_node_info ni;
		struct _rsp_fnode *n = &d->nodes[i];
		struct rsp_slice_info si;
		bool have_slice;

		rsp_analysis_node(a, i, &ni);
		n->s = ni.start_ns;
		n->e = ni.end_ns > ni.start_ns ? ni.end_ns : ni.start_ns;
		n->parent = ni.parent < i ? (uint32_t)ni.parent : RSP_NONE32;
		n->thread = ni.thread < nt ? (uint32_t)ni.thread : RSP_NONE32;
		n->path = clamp16(ni.path < d->n_paths ? ni.path : 0);
		n->kind = (uint8_t)ni.kind;
		n->flags = (uint8_t)ni.flags;
		n->cat = ni.kind == RSP_NODE_ROOT || ni.kind == RSP_NODE_SLEEP
			     ? 0xff
			     : (uint8_t)ni.category;
		n->label = _rsp_intern(&d->strs, ni.label         ? ni.label
						 : n->cat != 0xff ? rsp_category_name(ni.category)
								  : "");
		n->frames = (uint32_t)d->fc.frames->len;
		have_slice = n->thread != RSP_NONE32 && ni.slice != RSP_NO_INDEX &&
			     ni.slice < rsp_thread_n_slices(t, n->thread);
		n->slice = have_slice ? (uint32_t)ni.slice : RSP_NONE32;
		n->link = ni.link != RSP_NO_INDEX && ni.link < rsp_trace_n_links(t)
			      ? (uint32_t)ni.link
			      : RSP_NONE32;
		if (have_slice)
			rsp_thread_slice(t, n->thread, ni.slice, &si);
		if (ni.kind == RSP_NODE_RUN && have_slice && si.link != RSP_NO_INDEX &&
		    si.link < rsp_trace_n_links(t))
			n->link = (uint32_t)si.link;
		if (ni.kind == RSP_NODE_SLEEP && have_slice) {
			struct _rsp_fstack fs = _rsp_frames_get(
			    &d->fc, si.stack, d->threads[n->thread].pid, si.start_ns);

			n->frames = fs.off;
			n->n_frames = fs.n;
			n->n_user = fs.n_user;
			n->wake = si.wake_ns;
			if (ni.link != RSP_NO_INDEX && ni.link < rsp_trace_n_links(t)) {
				struct rsp_link_info li;

				rsp_trace_link(t, ni.link, &li);
				n->wake = li.time_ns;
			}
		} else if (ni.kind == RSP_NODE_RUN && n->thread != RSP_NONE32 &&
			   ((ni.flags & (RSP_NODE_ESTIMATED | RSP_NODE_INFERRED)) ||
			    (have_slice && si.n_samples))) {
			/* every part of what it ran, as the table split it: a sampled run's
			 * samples, each the time it stands for, and the rest estimated from
			 * its site; a run without samples, what its site's samples say
			 * (or the site's own frames); none (a site without frames): its
			 * label */
			struct rsp_run_part few[32], *part = few;
			size_t np = rsp_analysis_run_parts(a, i, few, G_N_ELEMENTS(few));

			if (np > G_N_ELEMENTS(few)) {
				part = g_new(struct rsp_run_part, np);
				np = rsp_analysis_run_parts(a, i, part, np);
			}
			n->samples = samples->len;
			n->n_samples = clamp16(np);
			for (size_t k = 0; k < n->n_samples; k++) {
				struct _rsp_fstack fs = _rsp_frames_get(
				    &d->fc, part[k].stack, d->threads[n->thread].pid, part[k].time);
				float sh = (float)part[k].share;
				uint8_t g = part[k].estimated;

				g_array_append_val(samples, fs);
				g_array_append_val(shares, sh);
				g_array_append_val(guessed, g);
			}
			if (part != few)
				g_free(part);
		}
		/* the layer's height: its process name, then its frames */
		for (int m = 0; m < 2; m++) {
			size_t h = 1;

			if (ni.kind == RSP_NODE_SLEEP && n->thread != RSP_NONE32)
				h = 1 + (m ? n->n_frames : n->n_user);
			else if (ni.kind == RSP_NODE_RUN) {
				size_t mx = 1;

				for (size_t k = 0; k < n->n_samples; k++) {
					const struct _rsp_fstack *fs = &g_array_index(
					    samples, struct _rsp_fstack, n->samples + k);
					size_t v = m ? fs->n : fs->n_user;

					if (v > mx)
						mx = v;
				}
				h = 1 + mx;
			}
			n->height[m] = clamp16(h);
			n->level[m] = n->parent == RSP_NONE32
					  ? 0
					  : clamp16((size_t)d->nodes[n->parent].level[m] +
						    d->nodes[n->parent].height[m]);
			if (n->path < d->n_paths &&
			    n->level[m] + n->height[m] > d->paths[n->path].height[m])
				d->paths[n->path].height[m] =
				    clamp16((size_t)n->level[m] + n->height[m]);
		}
		if (n->parent != RSP_NONE32)
			d->nodes[n->parent].n_kids++;
		else if (n->path < d->n_paths)
			d->paths[n->path].n_roots++;
	}
	d->n_samples = samples->len;
	d->samples = (struct _rsp_fstack *)(void *)g_array_free(samples, FALSE);
	d->shares = (float *)(void *)g_array_free(shares, FALSE);
	d->guessed = (uint8_t *)(void *)g_array_free(guessed, FALSE);
	/* children lists and roots, each sorted by start */
	{
		uint32_t off = 0;

		for (size_t p = 0; p < d->n_paths; p++) {
			d->paths[p].roots = off;
			off += d->paths[p].n_roots;
		}
		for (size_t i = 0; i < nn; i++) {
			d->nodes[i].kids = off;
			off += d->nodes[i].n_kids;
		}
		fill = g_new0(uint32_t, nn + d->n_paths + 1);
		for (size_t i = 0; i < nn; i++) {
			const struct _rsp_fnode *n = &d->nodes[i];

			if (n->parent != RSP_NONE32)
				d->kids[d->nodes[n->parent].kids + fill[n->parent]++] = (uint32_t)i;
			else if (n->path < d->n_paths)
				d->kids[d->paths[n->path].roots + fill[nn + n->path]++] =
				    (uint32_t)i;
		}
		g_free(fill);
		cmp_base = d->nodes;
		for (size_t p = 0; p < d->n_paths; p++)
			qsort(d->kids + d->paths[p].roots, d->paths[p].n_roots, sizeof(uint32_t),
			      cmp_start);
		for (size_t i = 0; i < nn; i++)
			if (d->nodes[i].n_kids > 1)
				qsort(d->kids + d->nodes[i].kids, d->nodes[i].n_kids,
				      sizeof(uint32_t), cmp_start);
		d->kspan = g_new(struct _rsp_kspan, off + 1);
		for (size_t k = 0; k < off; k++)
			d->kspan[k] = (struct _rsp_kspan){ d->nodes[d->kids[k]].s,
							   d->nodes[d->kids[k]].e };
	}
	*out = d;
	return 0;
nomem:
	snprintf(err, errlen, "out of memory preparing the flame view");
	return -ENOMEM;
}

void rsp_flame_data_free(struct rsp_flame_data *d)
{
	if (!d)
		return;
	g_free(d->nodes);
	g_free(d->kids);
	g_free(d->kspan);
	g_free(d->samples);
	g_free(d->shares);
	g_free(d->guessed);
	g_free(d->threads);
	g_free(d->paths);
	_rsp_frames_clear(&d->fc);
	_rsp_strtab_clear(&d->strs);
	free(d);
}

size_t rsp_flame_n_nodes(const struct rsp_flame_data *d)
{
	return d->n_nodes;
}

void rsp_flame_node(const struct rsp_flame_data *d, size_t i, struct rsp_flame_node_info *out)
{
	const struct _rsp_fnode *n = &d->nodes[i];

	memset(out, 0, sizeof(*out));
	out->kind = n->kind;
	out->category = n->cat == 0xff ? -1 : n->cat;
	out->flags = n->flags;
	out->parent = n->parent == RSP_NONE32 ? RSP_NO_INDEX : n->parent;
	out->path = n->path;
	out->thread = n->thread == RSP_NONE32 ? RSP_NO_INDEX : n->thread;
	if (n->thread != RSP_NONE32) {
		out->tid = d->threads[n->thread].tid;
		out->pid = d->threads[n->thread].pid;
		out->comm = d->threads[n->thread].comm;
	}
	out->start_ns = n->s;
	out->end_ns = n->e;
	out->wake_ns = n->wake;
	out->label = n->label;
	out->n_frames = n->n_frames;
	out->n_user_frames = n->n_user;
	out->n_samples = n->n_samples;
}

const char *rsp_flame_frame(const struct rsp_flame_data *d, size_t i, long sample, size_t f)
{
	const struct _rsp_fnode *n = &d->nodes[i];

	if (sample >= 0) {
		const struct _rsp_fstack *fs;

		if ((size_t)sample >= n->n_samples)
			return NULL;
		fs = &d->samples[n->samples + sample];
		return f < fs->n ? _rsp_frame(&d->fc, fs->off + (uint32_t)f) : NULL;
	}
	return f < n->n_frames ? _rsp_frame(&d->fc, n->frames + (uint32_t)f) : NULL;
}

/* ---- layout ------------------------------------------------------------------------------ */

/*
 * A part of a box that runs without samples drew: where a run's frames
 * merged with others (a sleep's, a measured run's), the box keeps its colour
 * and these parts are drawn over it, tinted (estimated) or hatched (inferred).
 */
struct guess {
	double x0, x1;
	uint64_t t0, t1;
	uint32_t node;
	uint8_t kind; /* K_EST or K_INF */
};

struct acc {
	double x0, x1;
	const char *label;
	uint32_t parent, serial, node, count;
	uint64_t t0, t1;
	uint16_t frame;
	uint8_t cls, kinds, flags;
	bool open;
	GArray *guesses; /* of struct guess, in x order */
};

struct flay {
	const struct rsp_flame_data *d;
	const struct rsp_flame_state *st;
	struct rsp_scene *out;
	double lx0, scale, xa, xb, ya, yb;
	int m; /* kernel frames shown */
	struct acc *acc;
	size_t n_acc;
	int *last_col; /* per depth */
	size_t n_depth;
	uint32_t serial;
	double band_y, band_h; /* levels */
};

static inline double fpx(const struct flay *F, double t)
{
	return (t - F->lx0) * F->scale;
}

static double level_y(const struct flay *F, unsigned level)
{
	return F->band_y + (F->band_h - 1 - level) * RSP_FRAME_H;
}

#define K_RUN   1
#define K_SLEEP 2
#define K_EST   4 /* a run without samples: estimated */
#define K_INF   8 /* ... inferred */

static enum rsp_cls guess_cls(uint8_t kind)
{
	return kind == K_EST ? RSP_CLS_RUN_ESTIMATED : RSP_CLS_RUN_INFERRED;
}

/* The parts of box @box_ (its pixels X0..X1) that runs without samples drew, over it. */
static void flush_guesses(struct flay *F, struct acc *a, const struct rsp_scene_item *box_,
			  double X0, double X1)
{
	/* a copy: adding items may move the box */
	const struct rsp_scene_item box = *box_;
	double y = box.y, h = box.h;
	/* highlighted or faded as the box (only layers highlighted alike merge) */
	uint8_t cls = box.cls, flags = box.flags & (RSP_ITEM_DIM | RSP_ITEM_MARKED);
	uint16_t frame = a->frame;

	for (guint k = 0; k < a->guesses->len; k++) {
		const struct guess *g = &g_array_index(a->guesses, struct guess, k);
		struct rsp_scene_item *it;
		double x0 = fmax(floor(g->x0), X0), x1 = fmin(floor(g->x1 + 0.5), X1);

		if (guess_cls(g->kind) == cls)
			continue; /* the box is drawn so already */
		if (x1 < x0 + 1)
			x1 = fmin(x0 + 1, X1);
		if (x1 <= x0)
			continue;
		it = rsp_scene_add(F->out, RSP_PRIM_RECT, guess_cls(g->kind), x0, y, x1 - x0, h);
		/* the box's gap on top, and on its right where it ends there */
		it->flags |= x1 >= X1 ? RSP_ITEM_GAP : RSP_ITEM_GAP_TOP;
		it->prim = g->kind == K_INF ? RSP_PRIM_HATCH : RSP_PRIM_RECT;
		it->flags |= flags;
		it->label = box.label; /* for titles and tests; not drawn (label_len 0) */
		it->id = RSP_HIT_ID(RSP_HIT_FRAME, (uint64_t)frame << 40 | g->node);
		it->aux = 1;
		it->t0 = g->t0;
		it->t1 = g->t1;
	}
	g_array_set_size(a->guesses, 0);
}

static void flush(struct flay *F, unsigned level)
{
	struct acc *a = &F->acc[level];
	struct rsp_scene_item *it;
	double x0, x1;
	uint8_t cls = a->cls;

	if (!a->open)
		return;
	a->open = false;
	if (cls == RSP_CLS_RUN || cls == RSP_CLS_SLEEP) {
		/* a frame in runs and sleeps; in measured runs; only in runs without samples */
		bool run = a->kinds & (K_RUN | K_EST | K_INF), sleep = a->kinds & K_SLEEP;

		cls = run && sleep		   ? RSP_CLS_BOTH
		      : a->kinds & K_RUN	   ? RSP_CLS_RUN
		      : a->kinds & K_EST	   ? RSP_CLS_RUN_ESTIMATED
		      : a->kinds & K_INF	   ? RSP_CLS_RUN_INFERRED
						   : RSP_CLS_SLEEP;
	}
	x0 = floor(a->x0);
	x1 = floor(a->x1 + 0.5);
	if (x1 < x0 + 1)
		x1 = x0 + 1;
	it = rsp_scene_add_box(F->out, cls, x0, level_y(F, level), x1 - x0, RSP_FRAME_H, a->label);
	it->prim = cls == RSP_CLS_UNKNOWN || cls == RSP_CLS_RUN_INFERRED ? RSP_PRIM_HATCH
									 : RSP_PRIM_RECT;
	it->flags |= RSP_ITEM_GAP | a->flags;
	it->id = RSP_HIT_ID(RSP_HIT_FRAME, (uint64_t)a->frame << 40 | a->node);
	it->aux = a->count;
	it->t0 = a->t0;
	it->t1 = a->t1;
	if (a->guesses->len)
		flush_guesses(F, a, it, x0, x1);
}

static bool frame_cls(uint8_t c)
{
	return c == RSP_CLS_RUN || c == RSP_CLS_SLEEP;
}

static uint32_t emit(struct flay *F, unsigned level, double x0, double x1, const char *label,
		     uint8_t cls, uint8_t kinds, uint32_t parent, uint32_t node, unsigned frame,
		     const struct _rsp_fnode *n, uint8_t flags)
{
	struct acc *a;
	uint8_t guessed = kinds & (K_EST | K_INF);

	if (level >= F->n_acc)
		return 0;
	a = &F->acc[level];
	if (a->open && a->label == label && a->parent == parent && a->flags == flags &&
	    x0 <= a->x1 + MERGE_GAP_PX && x0 >= a->x0 - MERGE_GAP_PX &&
	    (a->cls == cls || (frame_cls(a->cls) && frame_cls(cls)))) {
		if (x1 > a->x1)
			a->x1 = x1;
		a->kinds |= kinds;
		a->count++;
		if (n->e > a->t1)
			a->t1 = n->e;
	} else {
		GArray *g = a->guesses;

		flush(F, level);
		*a = (struct acc){.x0 = x0, .x1 = x1, .label = label, .parent = parent,
				  .serial = ++F->serial, .node = node, .count = 1, .t0 = n->s,
				  .t1 = n->e, .frame = (uint16_t)(frame > 65535 ? 65535 : frame),
				  .cls = cls, .kinds = kinds, .flags = flags, .open = true,
				  .guesses = g};
	}
	if (guessed) {
		/* where this run's frame is, told apart from what it merges with; touching
		 * parts of the same kind as one */
		struct guess *last = a->guesses->len ? &g_array_index(a->guesses, struct guess,
								       a->guesses->len - 1)
						     : NULL;

		if (last && last->kind == guessed && x0 <= last->x1 + 0.5) {
			if (x1 > last->x1)
				last->x1 = x1;
			if (n->e > last->t1)
				last->t1 = n->e;
		} else {
			struct guess g = {x0, x1, n->s, n->e, node, guessed};

			g_array_append_val(a->guesses, g);
		}
	}
	return a->serial;
}

static bool search_hit(const struct flay *F, const char *s)
{
	return F->st && rsp_search_hit(s, F->st->search);
}

static bool node_counts(const struct _rsp_fnode *n, int cat)
{
	return cat >= 0 && n->cat == cat;
}

static uint8_t flags_for(const struct flay *F, const struct _rsp_fnode *n, const char *label)
{
	bool active = F->st && ((F->st->search && *F->st->search) || F->st->category >= 0);

	if (!active)
		return 0;
	if (search_hit(F, label) || node_counts(n, F->st->category))
		return RSP_ITEM_MARKED;
	return RSP_ITEM_DIM;
}

static void visit_kids(struct flay *F, const uint32_t *kids, size_t n, uint32_t parent_serial,
		       unsigned depth);

/* One layer: its boxes, then its children on its innermost frame. */
static void visit(struct flay *F, uint32_t ni, uint32_t parent_serial, unsigned depth, double x0,
		  double x1)
{
	const struct rsp_flame_data *d = F->d;
	const struct _rsp_fnode *n = &d->nodes[ni];
	unsigned L = n->level[F->m];
	uint32_t top = parent_serial;
	const char *comm = n->thread != RSP_NONE32 ? d->threads[n->thread].comm : NULL;
	uint8_t pcls = (n->flags & RSP_NODE_CUT) ? RSP_CLS_CUT : RSP_CLS_PROCESS;

	switch (n->kind) {
	case RSP_NODE_ROOT: {
		const struct _rsp_fpath *p = &d->paths[n->path];

		top = emit(F, L, x0, x1, p->label, p->async ? RSP_CLS_ASYNC : RSP_CLS_PATH, 0, 0,
			   ni, 0, n, flags_for(F, n, p->label));
		break;
	}
	case RSP_NODE_SLEEP:
		if (!comm)
			break;
		top = emit(F, L, x0, x1, comm, pcls, 0, parent_serial, ni, 0, n,
			   flags_for(F, n, comm));
		for (unsigned f = 0, nf = F->m ? n->n_frames : n->n_user; f < nf; f++) {
			const char *name = _rsp_frame(&d->fc, n->frames + f);

			top = emit(F, L + 1 + f, x0, x1, name, RSP_CLS_SLEEP, K_SLEEP, top, ni,
				   f + 1, n, flags_for(F, n, name));
		}
		break;
	case RSP_NODE_RUN: {
		uint32_t base;
		/* a run without samples: its frames estimated, or inferred */
		uint8_t kk = n->flags & RSP_NODE_ESTIMATED ? K_EST
			     : n->flags & RSP_NODE_INFERRED ? K_INF
							    : K_RUN;

		if (!comm)
			break;
		base = emit(F, L, x0, x1, comm, pcls, 0, parent_serial, ni, 0, n,
			    flags_for(F, n, comm));
		if (!n->n_samples) {
			const char *what = kk == K_RUN ? d->running : n->label;

			emit(F, L + 1, x0, x1, what, RSP_CLS_RUN, kk, base, ni, 1, n,
			     flags_for(F, n, what));
			break;
		}
		{
			/* the run's width divided among its samples by their shares (equal for
			 * measured runs); x0..x1 is where the run's visible part [ta, tb] is
			 * drawn (a sliver: its whole column) */
			double dur = (double)(n->e - n->s), at = 0;
			double ta = fmax((double)n->s, F->xa), tb = fmin((double)n->e, F->xb);
			double k_px = tb > ta ? (x1 - x0) / (tb - ta) : 0;
			int last = INT32_MIN;

			for (unsigned k = 0; k < n->n_samples; k++, at += d->shares[n->samples + k - 1]) {
				const struct _rsp_fstack *fs = &d->samples[n->samples + k];
				double share = d->shares[n->samples + k];
				double a = fmax(n->s + at * dur, ta),
				       b = fmin(n->s + (at + share) * dur, tb);
				double sx0 = x0 + (a - ta) * k_px, sx1 = x0 + (b - ta) * k_px;
				unsigned nf = F->m ? fs->n : fs->n_user;
				uint32_t s = base;
				/* a sampled run's rest, estimated from its site, drawn as such */
				uint8_t kp = kk == K_RUN && d->guessed[n->samples + k] ? K_EST : kk;

				if (b <= a)
					continue;
				if (sx1 - sx0 < 1 && (int)floor(sx0) == last)
					continue;
				last = (int)floor(sx0);
				if (!nf) {
					emit(F, L + 1, sx0, sx1, d->kernel_only, RSP_CLS_RUN, kp,
					     base, ni, 1, n, flags_for(F, n, d->kernel_only));
					continue;
				}
				for (unsigned f = 0; f < nf; f++) {
					const char *name = _rsp_frame(&d->fc, fs->off + f);

					s = emit(F, L + 1 + f, sx0, sx1, name, RSP_CLS_RUN, kp, s,
						 ni, f + 1, n, flags_for(F, n, name));
				}
			}
		}
		break;
	}
	default:
		top = emit(F, L, x0, x1, n->label, _rsp_leaf_cls(n->kind, RSP_CLS_PROCESS), 0, parent_serial, ni, 0, n,
			   flags_for(F, n, n->label));
		break;
	}
	/* the link that ended a sleep: from the waking moment above, down to where it resumed */
	if (n->kind == RSP_NODE_SLEEP && n->wake && x1 - x0 >= 6 && (double)n->wake >= F->xa &&
	    (double)n->e <= F->xb) {
		unsigned h = n->height[F->m];
		struct rsp_scene_item *it = rsp_scene_add(
		    F->out, RSP_PRIM_LINE, RSP_CLS_LINK, fpx(F, (double)n->wake),
		    level_y(F, L + h) + RSP_FRAME_H - 1,
		    fpx(F, (double)n->e) - fpx(F, (double)n->wake),
		    level_y(F, L) + RSP_FRAME_H - (level_y(F, L + h) + RSP_FRAME_H - 1));

		it->t0 = n->wake;
		it->t1 = n->e;
	}
	if (n->n_kids)
		visit_kids(F, d->kids + n->kids, n->n_kids, top, depth + 1);
}

/* The kids entries' spans, beside @kids (a part of d->kids). */
static inline const struct _rsp_kspan *spans(const struct rsp_flame_data *d, const uint32_t *kids)
{
	return d->kspan + (kids - d->kids);
}

static size_t first_from(const struct rsp_flame_data *d, const uint32_t *kids, size_t n, double t)
{
	const struct _rsp_kspan *ks = spans(d, kids);
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if ((double)ks[mid].s < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The first child from @from on that ends after @t: siblings follow one
 * another, so their ends are (nearly) sorted too.  Galloping: the child
 * wanted is usually a few siblings on, and a search over all of them touches
 * spans all over the array.
 */
static size_t next_ending_after(const struct rsp_flame_data *d, const uint32_t *kids, size_t n,
				size_t from, double t)
{
	const struct _rsp_kspan *ks = spans(d, kids);
	size_t j;

	RSP_GALLOP_BOUND(ks, n, e, t, from, j);
	return j;
}

static void visit_kids(struct flay *F, const uint32_t *kids, size_t n, uint32_t parent_serial,
		       unsigned depth)
{
	const struct rsp_flame_data *d = F->d;
	const struct _rsp_kspan *ks = spans(d, kids);
	size_t i = first_from(d, kids, n, F->xa);
	int *last;

	if (depth >= F->n_depth)
		return;
	last = &F->last_col[depth];
	/* a child that started earlier may still be running at xa */
	for (int back = 0; back < 4 && i > 0 && (double)ks[i - 1].e > F->xa; back++)
		i--;
	while (i < n) {
		const struct _rsp_kspan *c = &ks[i];
		double a, b, x0, x1;
		int c0;

		if ((double)c->s >= F->xb)
			break;
		if ((double)c->e <= F->xa) {
			i++;
			continue;
		}
		a = fmax((double)c->s, F->xa);
		b = fmin((double)c->e, F->xb);
		x0 = fpx(F, a);
		x1 = fpx(F, b);
		c0 = (int)floor(x0);
		if (x1 - x0 < 1 && c0 > *last) {
			/* a column of slivers: one bar, the layer at the column's middle */
			double mid = F->lx0 + (c0 + 0.5) / F->scale;
			size_t j = next_ending_after(d, kids, n, i, mid);

			if (j > i && j < n && (double)ks[j].s <= mid &&
			    ((double)ks[j].e - (double)ks[j].s) * F->scale < 1)
				i = j;
			visit(F, kids[i], parent_serial, depth, c0, c0 + 1);
			*last = c0;
		} else if (x1 - x0 >= 1) {
			int c1 = (int)ceil(x1) - 1;

			visit(F, kids[i], parent_serial, depth, x0, x1);
			if (c1 < c0)
				c1 = c0;
			if (c1 > *last)
				*last = c1;
		}
		if (x1 - x0 < 1) {
			/* this column is drawn at this depth: on to the first child reaching the
			 * next */
			size_t j = next_ending_after(d, kids, n, i, F->lx0 + (c0 + 1) / F->scale);

			i = j > i ? j : i + 1;
		} else {
			i++;
		}
	}
}

static double band_top(const struct rsp_flame_data *d, int m, size_t p)
{
	double y = 0;

	for (size_t q = 0; q < p; q++)
		y += d->paths[q].height[m] * (double)RSP_FRAME_H + BAND_GAP;
	return y;
}

static void flame_content(const void *data, const void *state, double lx0, double scale, double xa,
			  double xb, double ya, double yb, struct rsp_scene *out)
{
	const struct rsp_flame_data *d = data;
	const struct rsp_flame_state *st = state;
	struct flay F = {d, st, out, lx0, scale, xa, xb, ya, yb, st && st->kernel_frames ? 1 : 0};
	size_t maxh = 1;

	for (size_t p = 0; p < d->n_paths; p++)
		if (d->paths[p].height[F.m] > maxh)
			maxh = d->paths[p].height[F.m];
	F.n_acc = maxh + 1;
	F.acc = g_new0(struct acc, F.n_acc);
	for (size_t l = 0; l < F.n_acc; l++)
		F.acc[l].guesses = g_array_new(FALSE, FALSE, sizeof(struct guess));
	F.n_depth = 1024;
	F.last_col = g_new(int, F.n_depth);
	for (size_t p = 0; p < d->n_paths; p++) {
		const struct _rsp_fpath *path = &d->paths[p];
		double y0 = band_top(d, F.m, p), h = path->height[F.m] * (double)RSP_FRAME_H;

		if (y0 > yb || y0 + h + BAND_GAP < ya)
			continue;
		F.band_y = y0;
		F.band_h = path->height[F.m];
		for (size_t k = 0; k < F.n_depth; k++)
			F.last_col[k] = INT32_MIN;
		for (size_t l = 0; l < F.n_acc; l++) {
			F.acc[l].open = false;
			g_array_set_size(F.acc[l].guesses, 0);
		}
		visit_kids(&F, d->kids + path->roots, path->n_roots, 0, 0);
		for (size_t l = 0; l < F.n_acc; l++)
			flush(&F, (unsigned)l);
		rsp_scene_add(out, RSP_PRIM_LINE, RSP_CLS_SEPARATOR, fpx(&F, xa),
			      y0 + h + BAND_GAP / 2, fpx(&F, xb) - fpx(&F, xa), 0);
	}
	for (size_t l = 0; l < F.n_acc; l++)
		g_array_free(F.acc[l].guesses, TRUE);
	g_free(F.acc);
	g_free(F.last_col);
}

static void flame_chrome(const void *data, const void *state, const struct rsp_view *v,
			 struct rsp_scene *out)
{
	const struct rsp_flame_data *d = data;
	const struct rsp_flame_state *st = state;

	rsp_ruler_layout(out, v->x0, v->x1, (double)d->origin, 0, v->width);
	if (st && st->legend)
		_rsp_legend_chrome(out, v, st->legend_idle);
}

static void flame_extent(const void *data, const void *state, double *x0, double *x1)
{
	const struct rsp_flame_data *d = data;

	*x0 = (double)d->start;
	*x1 = (double)d->end;
}

static double flame_height(const void *data, const void *state)
{
	const struct rsp_flame_data *d = data;
	const struct rsp_flame_state *st = state;
	int m = st && st->kernel_frames ? 1 : 0;

	return band_top(d, m, d->n_paths);
}

/* the base of the first control path (the target's layers) at the bottom of the screen */
static double flame_home(const void *data, const void *state, double view_h)
{
	const struct rsp_flame_data *d = data;
	const struct rsp_flame_state *st = state;
	int m = st && st->kernel_frames ? 1 : 0;
	double y = d->n_paths ? band_top(d, m, 1) - BAND_GAP - view_h : 0;

	return y > 0 ? y : 0;
}

/* ---- titles and details -------------------------------------------------------------------- */

static const char *kind_name(uint8_t kind)
{
	switch (kind) {
	case RSP_NODE_ROOT:
		return "control path";
	case RSP_NODE_RUN:
		return "running";
	case RSP_NODE_SLEEP:
		return "sleeping";
	case RSP_NODE_RUNNABLE:
		return "runnable, waiting for a CPU";
	case RSP_NODE_PREEMPTED:
		return "preempted";
	case RSP_NODE_IO_QUEUE:
		return "block request queued";
	case RSP_NODE_IO:
		return "blocking disk I/O";
	case RSP_NODE_NET:
		return "waiting for the network";
	case RSP_NODE_HARDWARE:
		return "waiting for hardware";
	case RSP_NODE_TIMEOUT:
		return "timed out";
	case RSP_NODE_KERNEL:
		return "blocked in the kernel";
	case RSP_NODE_OTHER_PATH:
		return "waiting on another control path";
	case RSP_NODE_UNKNOWN:
		return "unknown (records lost)";
	case RSP_NODE_UNACCOUNTED:
		return "unaccounted (cause not recorded)";
	case RSP_NODE_IDLE:
		return "idle (waiting for work)";
	default:
		return "?";
	}
}

static void append_layer(const struct rsp_flame_data *d, const struct _rsp_fnode *n, GString *out)
{
	if (n->thread != RSP_NONE32)
		g_string_append_printf(out, "%s %d", d->threads[n->thread].comm,
				       d->threads[n->thread].tid);
	else
		g_string_append(out, n->label);
	if (n->kind == RSP_NODE_SLEEP && n->n_user)
		g_string_append_printf(out, " in %s",
				       _rsp_frame(&d->fc, n->frames + n->n_user - 1));
}

static void describe(const struct rsp_flame_data *d, size_t node, bool full, GString *out);

void rsp_flame_describe(const struct rsp_flame_data *d, size_t node, GString *out)
{
	describe(d, node, true, out);
}

/* @full: with what ran while it waited (the details panel); titles go without */
/* A run's samples' stacks: all of them (@full), or a tooltip's few: the largest shares first */
#define TIP_SAMPLES 3

static int cmp_share(const void *a, const void *b, void *shares_)
{
	const float *shares = shares_;
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	if (shares[x] != shares[y])
		return shares[x] < shares[y] ? 1 : -1;
	return x < y ? -1 : x > y;
}

static void append_samples(const struct rsp_flame_data *d, const struct _rsp_fnode *n, bool full,
			   GString *out)
{
	unsigned ns = n->n_samples, shown = full || ns <= TIP_SAMPLES ? ns : TIP_SAMPLES;
	unsigned *ord = g_new(unsigned, ns + 1);
	double rest = 0;

	for (unsigned k = 0; k < ns; k++)
		ord[k] = k;
	if (!full)
		qsort_r(ord, ns, sizeof(*ord), cmp_share, d->shares + n->samples);
	for (unsigned i = 0; i < shown; i++) {
		unsigned k = ord[i];

		if ((n->flags & RSP_NODE_ESTIMATED) || d->guessed[n->samples + k])
			g_string_append_printf(out, "\nestimated %.0f%%: ",
					       100.0 * d->shares[n->samples + k]);
		else if (n->flags & RSP_NODE_INFERRED)
			g_string_append(out, "\ninferred: ");
		else
			g_string_append_printf(out, "\nsample %u: ", k + 1);
		_rsp_frames_append(&d->fc, d->samples[n->samples + k], 0, out);
	}
	for (unsigned i = shown; i < ns; i++)
		rest += d->shares[n->samples + ord[i]];
	if (shown < ns)
		g_string_append_printf(out, "\n... %u more stack%s (%.0f%%)", ns - shown,
				       ns - shown == 1 ? "" : "s", 100.0 * rest);
	g_free(ord);
}

static void describe(const struct rsp_flame_data *d, size_t node, bool full, GString *out)
{
	const struct _rsp_fnode *n;

	if (node >= d->n_nodes)
		return;
	n = &d->nodes[node];
	g_string_append_printf(out, "%s", kind_name(n->kind));
	if (n->thread != RSP_NONE32)
		g_string_append_printf(out, ": %s (pid %d, tid %d)", d->threads[n->thread].comm,
				       d->threads[n->thread].pid, d->threads[n->thread].tid);
	else if (n->label && *n->label)
		g_string_append_printf(out, ": %s", n->label);
	g_string_append(out, "\n");
	if (n->thread != RSP_NONE32 && d->threads[n->thread].cmdline)
		g_string_append_printf(out, "command line: %s\n", d->threads[n->thread].cmdline);
	_rsp_append_dur(out, n->e - n->s);
	g_string_append(out, " from ");
	_rsp_append_time(out, n->s, d->origin);
	g_string_append(out, " to ");
	_rsp_append_time(out, n->e, d->origin);
	if (n->cat != 0xff)
		g_string_append_printf(out, "\ncounts as: %s", rsp_category_name(n->cat));
	if (n->label && *n->label && n->thread != RSP_NONE32 && n->kind != RSP_NODE_SLEEP)
		g_string_append_printf(out, "\n%s", n->label);
	if (n->flags & RSP_NODE_CUT)
		g_string_append(out, "\ncut: it began before its parent waited for it; the earlier "
				     "part is not shown nor counted");
	if (n->flags & RSP_NODE_DEFACTO)
		g_string_append(out, "\nde facto sleep: several sleeps that timed out, as one");
	if (n->flags & RSP_NODE_BOUNDED)
		g_string_append(out, "\nnot expanded: a depth or size bound was reached");
	if (n->kind == RSP_NODE_SLEEP && n->n_frames) {
		struct _rsp_fstack fs = {n->frames, n->n_frames, n->n_user};

		g_string_append(out, "\nstack: ");
		_rsp_frames_append(&d->fc, fs, 0, out);
	}
	if (n->kind == RSP_NODE_RUN && (n->flags & (RSP_NODE_ESTIMATED | RSP_NODE_INFERRED)))
		g_string_append(out, n->flags & RSP_NODE_ESTIMATED ?
					     "\nno sample in this run: its code estimated from the "
					     "samples of the process's runs at the same place" :
					     "\nno sample in this run, nor at its place in the code: "
					     "where it ran, inferred from the stacks around it");
	append_samples(d, n, full, out);
	if (n->kind == RSP_NODE_SLEEP && n->wake) {
		g_string_append(out, "\nwoken at ");
		_rsp_append_time(out, n->wake, d->origin);
	}
	if (n->n_kids && full) {
		g_string_append_printf(out, "\nwhile it waited (%u):", n->n_kids);
		for (uint32_t k = 0; k < n->n_kids && k < 8; k++) {
			const struct _rsp_fnode *c = &d->nodes[d->kids[n->kids + k]];

			g_string_append(out, "\n  ");
			g_string_append(out, kind_name(c->kind));
			g_string_append(out, " ");
			append_layer(d, c, out);
			g_string_append(out, " ");
			_rsp_append_dur(out, c->e - c->s);
		}
		if (n->n_kids > 8)
			g_string_append(out, "\n  ...");
	}
	if (n->parent != RSP_NONE32) {
		g_string_append(out, "\npseudostack: ");
		for (uint32_t p = n->parent; p != RSP_NONE32; p = d->nodes[p].parent) {
			if (d->nodes[p].kind == RSP_NODE_ROOT) {
				g_string_append(out, d->paths[d->nodes[p].path].label);
				break;
			}
			append_layer(d, &d->nodes[p], out);
			g_string_append(out, " < ");
		}
	}
}

static void append_link(struct _rsp_frames *fc, const struct rsp_link_info *li, uint64_t origin,
			GString *out)
{
	struct rsp_trace *t = fc->t;

	if (li->waker_thread != RSP_NO_INDEX && li->waker_thread < rsp_trace_n_threads(t)) {
		struct rsp_thread_info wi;

		rsp_trace_thread(t, li->waker_thread, &wi);
		g_string_append_printf(out, "%s %d (%s) at ", wi.comm, wi.tid,
				       rsp_link_kind_name(li->kind));
		_rsp_append_time(out, li->time_ns, origin);
		if (li->waker_stack) {
			g_string_append(out, "\n  the waker's stack: ");
			_rsp_frames_append(
			    fc, _rsp_frames_get(fc, li->waker_stack, wi.pid, li->time_ns), 0, out);
		}
	} else {
		g_string_append_printf(out, "%s%s%s at ", rsp_link_kind_name(li->kind),
				       li->irq_name ? " " : "", li->irq_name ? li->irq_name : "");
		_rsp_append_time(out, li->time_ns, origin);
	}
}

void rsp_flame_describe_links(const struct rsp_flame_data *d, struct rsp_trace *t, size_t node,
			      GString *out)
{
	const struct _rsp_fnode *n;
	struct _rsp_strtab strs;
	struct _rsp_frames fc;
	size_t shown = 0, more = 0;

	if (node >= d->n_nodes)
		return;
	n = &d->nodes[node];
	_rsp_strtab_init(&strs);
	_rsp_frames_init(&fc, t, &strs);
	if (n->link != RSP_NONE32) {
		struct rsp_link_info li;

		rsp_trace_link(t, n->link, &li);
		g_string_append(out, n->kind == RSP_NODE_SLEEP ? "woken by " : "started by ");
		append_link(&fc, &li, d->origin, out);
	}
	/* what this layer's thread woke while it ran */
	if (n->kind == RSP_NODE_RUN && n->thread != RSP_NONE32) {
		for (size_t i = 0, nl = rsp_trace_n_links(t); i < nl; i++) {
			struct rsp_link_info li;
			struct rsp_thread_info wi;

			rsp_trace_link(t, i, &li);
			if (li.waker_thread != n->thread || li.time_ns < n->s ||
			    li.time_ns > n->e || li.wakee_thread == RSP_NO_INDEX ||
			    li.wakee_thread >= rsp_trace_n_threads(t))
				continue;
			if (shown >= 10) {
				more++;
				continue;
			}
			rsp_trace_thread(t, li.wakee_thread, &wi);
			g_string_append_printf(out, "%swakes %s %d (%s) at ", out->len ? "\n" : "",
					       wi.comm, wi.tid, rsp_link_kind_name(li.kind));
			_rsp_append_time(out, li.time_ns, d->origin);
			shown++;
		}
		if (more)
			g_string_append_printf(out, "\n... and %zu more", more);
		if (!shown)
			g_string_append_printf(out, "%swakes nothing while it runs",
					       out->len ? "\n" : "");
	}
	_rsp_frames_clear(&fc);
	_rsp_strtab_clear(&strs);
}

static void flame_title(const void *data, const void *state, const struct rsp_scene_item *it,
			GString *out)
{
	const struct rsp_flame_data *d = data;
	uint64_t p = RSP_HIT_PAYLOAD(it->id);
	size_t node = p & 0xffffffffff;
	unsigned frame = (unsigned)(p >> 40);
	const struct _rsp_fnode *n;

	if (RSP_HIT_KIND(it->id) != RSP_HIT_FRAME || node >= d->n_nodes)
		return;
	n = &d->nodes[node];
	g_string_append(out, it->label ? it->label : "");
	if (frame && n->thread != RSP_NONE32)
		g_string_append_printf(out, " (%s %d)", d->threads[n->thread].comm,
				       d->threads[n->thread].tid);
	g_string_append(out, "\n");
	_rsp_append_dur(out, it->t1 - it->t0);
	g_string_append(out, " from ");
	_rsp_append_time(out, it->t0, d->origin);
	if (it->aux > 1)
		g_string_append_printf(out, ", %u layers merged at this zoom", it->aux);
	g_string_append(out, "\n");
	describe(d, node, false, out);
}

const struct rsp_view_ops rsp_flame_ops = {
	.name = "flame",
	.left = NULL,
	.extent = flame_extent,
	.content_height = flame_height,
	.home_y = flame_home,
	.content = flame_content,
	.chrome = flame_chrome,
	.title = flame_title,
};
