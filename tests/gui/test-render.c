/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The three views rendered headless (cairo image, SVG, PDF surfaces) on the
 * recorded fixtures, asserting structure: which rows come first, the right
 * colours at the right places, merged frames when zoomed out and split ones
 * when zoomed in, the consolidated tree's order, exports, hostile files.
 * User function names are not asserted: the fixtures' binaries differ
 * between machines.
 *
 *   test-render DATA_DIR CORPUS_DIR OUT_DIR
 */
#include "rsp-render.h"
#include "rsp-views.h"
#include "synth-perf.h"

#include <cairo-pdf.h>
#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

static const char *data_dir, *corpus_dir, *out_dir;

struct fixture {
	struct rsp_trace *t;
	struct rsp_analysis *a;
	int target;
};

static void fixture_open(struct fixture *fx, const char *name)
{
	g_autofree char *path = g_build_filename(data_dir, name, NULL);
	struct rsp_trace_opts o = {0};
	char err[512];
	int pids[16];
	size_t n;

	memset(fx, 0, sizeof(*fx));
	g_assert_cmpint(rsp_trace_open(path, &o, &fx->t, err, sizeof(err)), ==, 0);
	n = rsp_trace_n_targets(fx->t);
	g_assert_cmpuint(n, >, 0);
	for (size_t i = 0; i < n && i < 16; i++)
		pids[i] = rsp_trace_target(fx->t, i);
	fx->target = pids[0];
	g_assert_cmpint(rsp_analyze(fx->t, pids, n, 0, NULL, &fx->a, err, sizeof(err)), ==, 0);
}

static void fixture_close(struct fixture *fx)
{
	rsp_analysis_free(fx->a);
	rsp_trace_free(fx->t);
}

/* A view laid out and drawn into an image. */
struct shot {
	struct rsp_layout l;
	struct rsp_view v;
	cairo_surface_t *s;
	const struct rsp_view_ops *ops;
	const void *data, *state;
};

static void shot_take(struct shot *sh, const struct rsp_view_ops *ops, const void *data,
		      const void *state, double x0, double x1, int w, int h, double scroll_y)
{
	cairo_t *cr;

	memset(sh, 0, sizeof(*sh));
	sh->ops = ops;
	sh->data = data;
	sh->state = state;
	rsp_layout_init(&sh->l);
	if (x0 == 0 && x1 == 0)
		ops->extent(data, state, &x0, &x1);
	sh->v.x0 = x0;
	sh->v.x1 = x1;
	sh->v.width = w;
	sh->v.height = h > 0 ? h : RSP_RULER_H + (int)ops->content_height(data, state) + 1;
	sh->v.scroll_y = scroll_y;
	rsp_layout_update(&sh->l, ops, data, state, &sh->v, true);
	sh->s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, sh->v.width, sh->v.height);
	cr = cairo_create(sh->s);
	rsp_layout_draw(&sh->l, ops, data, &sh->v, cr);
	g_assert_cmpint(cairo_status(cr), ==, CAIRO_STATUS_SUCCESS);
	cairo_destroy(cr);
	cairo_surface_flush(sh->s);
}

static void shot_free(struct shot *sh)
{
	cairo_surface_destroy(sh->s);
	rsp_layout_clear(&sh->l);
}

static void G_GNUC_PRINTF(2, 3) shot_save(struct shot *sh, const char *fmt, ...)
{
	va_list ap;
	g_autofree char *name = NULL, *p = NULL;

	va_start(ap, fmt);
	name = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	p = g_build_filename(out_dir, name, NULL);
	g_assert_cmpint(cairo_surface_write_to_png(sh->s, p), ==, CAIRO_STATUS_SUCCESS);
}

static uint32_t pixel(cairo_surface_t *s, double x, double y)
{
	int ix = (int)x, iy = (int)y;
	const uint8_t *d = cairo_image_surface_get_data(s);
	uint32_t v;

	g_assert_cmpint(ix, >=, 0);
	g_assert_cmpint(iy, >=, 0);
	g_assert_cmpint(ix, <, cairo_image_surface_get_width(s));
	g_assert_cmpint(iy, <, cairo_image_surface_get_height(s));
	memcpy(&v, d + iy * cairo_image_surface_get_stride(s) + ix * 4, sizeof(v));
	return v & 0xffffff;
}

/* The content item's centre in image pixels. */
static void centre(struct shot *sh, const struct rsp_scene_item *it, double *x, double *y)
{
	double dx, dy;

	rsp_layout_offsets(&sh->l, sh->ops, sh->data, &sh->v, &dx, &dy);
	*x = it->x + it->w / 2 + dx;
	*y = it->y + it->h / 2 + dy + ((it->flags & RSP_ITEM_GAP) ? 0.5 : 0);
}

/* An item of @cls, at least @min_w wide, fully on screen; NULL if none. */
static const struct rsp_scene_item *find_item(struct shot *sh, enum rsp_cls cls, double min_w,
					      enum rsp_hit kind)
{
	double dx, dy;

	rsp_layout_offsets(&sh->l, sh->ops, sh->data, &sh->v, &dx, &dy);
	for (size_t i = 0; i < rsp_scene_n_items(sh->l.content); i++) {
		const struct rsp_scene_item *it = rsp_scene_item(sh->l.content, i);

		if (it->cls == cls && it->prim == RSP_PRIM_RECT && it->w >= min_w &&
		    (kind == RSP_HIT_NONE || RSP_HIT_KIND(it->id) == kind) && it->x + dx >= 0 &&
		    it->x + it->w + dx <= sh->v.width && it->y + dy >= RSP_RULER_H &&
		    it->y + it->h + dy <= sh->v.height)
			return it;
	}
	return NULL;
}

/*
 * The item's colour where nothing else is drawn over it: along a line near
 * its top (labels sit lower, and links may cross it), most samples.
 */
static void assert_colour_at(struct shot *sh, const struct rsp_scene_item *it, enum rsp_cls cls)
{
	double x, y, dx, dy;
	int hits = 0, n = 0;

	g_assert_nonnull(it);
	centre(sh, it, &x, &y);
	rsp_layout_offsets(&sh->l, sh->ops, sh->data, &sh->v, &dx, &dy);
	y = it->y + dy + 2.5;
	{
		/* the part on screen */
		double a = fmax(it->x + dx, 0), b = fmin(it->x + dx + it->w, sh->v.width);

		for (double f = 0.1; f < 0.95 && b - a >= 3; f += 0.2, n++)
			hits += pixel(sh->s, a + 1 + (b - a - 3) * f, y) == rsp_palette_rgb(cls);
		x = (a + b) / 2;
	}
	if (it->w < 3) {
		n = 1;
		hits = pixel(sh->s, x, y) == rsp_palette_rgb(cls);
	}
	if (hits * 2 <= n)
		g_error(
		    "%s box at %.0f,%.0f (%.0f wide): %d of %d samples are #%06x (one is #%06x)",
		    rsp_palette_name(cls), it->x + dx, it->y + dy, it->w, hits, n,
		    rsp_palette_rgb(cls), pixel(sh->s, x, y));
}

/* ---- the running view --------------------------------------------------------------------- */

/* Sleeps and their labels in a shot: how many, how many labelled. */
static void count_sleep_labels(struct shot *sh, size_t *sleeps, size_t *labelled)
{
	*sleeps = *labelled = 0;
	for (size_t i = 0; i < rsp_scene_n_items(sh->l.content); i++) {
		const struct rsp_scene_item *it = rsp_scene_item(sh->l.content, i);

		if (it->cls != RSP_CLS_SLEEP || RSP_HIT_KIND(it->id) != RSP_HIT_SLICE)
			continue;
		(*sleeps)++;
		*labelled += it->label && it->label_len > 0;
	}
}

/*
 * The app draws the running view before its sleeps are labelled: unlabelled,
 * the same boxes without labels; once labelled and published, the labels of
 * the whole preparation, box for box.
 */
static void test_running_deferred_labels(void)
{
	struct fixture fx;
	struct rsp_running_data *d, *full;
	struct rsp_running_state st = {.show_sleeps = true};
	struct shot sh, sf;
	size_t n0, l0, n1, l1, nf, lf;
	char err[256];

	fixture_open(&fx, "rpcchain.data");
	g_assert_cmpint(rsp_running_data_new_unlabelled(fx.t, fx.a, &d, err, sizeof(err)), ==, 0);
	g_assert_cmpint(rsp_running_data_new(fx.t, fx.a, &full, err, sizeof(err)), ==, 0);
	g_assert_false(rsp_running_data_labelled(d));
	g_assert_true(rsp_running_data_labelled(full));
	shot_take(&sh, &rsp_running_ops, d, &st, 0, 0, 1600, 0, 0);
	count_sleep_labels(&sh, &n0, &l0);
	shot_free(&sh);
	g_assert_cmpuint(n0, >, 10);
	g_assert_cmpuint(l0, ==, 0);
	/* made, not yet published: still none */
	rsp_running_data_label(d);
	shot_take(&sh, &rsp_running_ops, d, &st, 0, 0, 1600, 0, 0);
	count_sleep_labels(&sh, &n1, &l1);
	shot_free(&sh);
	g_assert_cmpuint(l1, ==, 0);
	g_assert_true(rsp_running_data_publish_labels(d));
	g_assert_true(rsp_running_data_labelled(d));
	shot_take(&sh, &rsp_running_ops, d, &st, 0, 0, 1600, 0, 0);
	shot_take(&sf, &rsp_running_ops, full, &st, 0, 0, 1600, 0, 0);
	count_sleep_labels(&sh, &n1, &l1);
	count_sleep_labels(&sf, &nf, &lf);
	g_assert_cmpuint(n1, ==, n0);
	g_assert_cmpuint(l1, >, 0);
	g_assert_cmpuint(rsp_scene_n_items(sh.l.content), ==, rsp_scene_n_items(sf.l.content));
	for (size_t i = 0; i < rsp_scene_n_items(sh.l.content); i++) {
		const struct rsp_scene_item *a = rsp_scene_item(sh.l.content, i),
					    *b = rsp_scene_item(sf.l.content, i);

		g_assert_cmpuint(a->id, ==, b->id);
		g_assert_cmpstr(a->label ? a->label : "", ==, b->label ? b->label : "");
	}
	shot_free(&sh);
	shot_free(&sf);
	rsp_running_data_free(d);
	rsp_running_data_free(full);
	fixture_close(&fx);
}

static void test_running(gconstpointer name)
{
	struct fixture fx;
	struct rsp_running_data *d;
	struct rsp_running_state st = {0};
	struct rsp_row_info ri;
	struct shot sh;
	char err[256];
	const struct rsp_scene_item *run, *sleep;
	size_t nrows, first_other = RSP_NO_INDEX;
	bool seen_link = false;

	fixture_open(&fx, name);
	g_assert_cmpint(rsp_running_data_new(fx.t, fx.a, &d, err, sizeof(err)), ==, 0);
	/* the target first, then its chains, then the rest */
	nrows = rsp_running_n_rows(d, &st);
	g_assert_cmpuint(nrows, >, 3);
	rsp_running_row(d, &st, 0, &ri);
	g_assert_true(ri.target);
	g_assert_cmpint(ri.pid, ==, fx.target);
	for (size_t r = 0; r < nrows; r++) {
		rsp_running_row(d, &st, r, &ri);
		if (!ri.in_chain && first_other == RSP_NO_INDEX)
			first_other = r;
		if (first_other != RSP_NO_INDEX)
			g_assert_false(ri.in_chain && ri.kind <= RSP_ROW_THREAD);
	}
	g_assert_cmpuint(first_other, >=, 1);
	st.chains_only = true;
	g_assert_cmpuint(rsp_running_n_rows(d, &st), ==, first_other);
	st.chains_only = false;

	/* runs are red bars in their rows; the ids say which slice */
	shot_take(&sh, &rsp_running_ops, d, &st, 0, 0, 1600, 0, 0);
	shot_save(&sh, "running-%s.png", (const char *)name);
	run = find_item(&sh, RSP_CLS_RUN, 3, RSP_HIT_SLICE);
	g_assert_nonnull(run);
	assert_colour_at(&sh, run, RSP_CLS_RUN);
	{
		uint64_t p = RSP_HIT_PAYLOAD(run->id);
		size_t row = rsp_running_row_at(d, &st, run->y);

		g_assert_cmpuint(row, !=, RSP_NO_INDEX);
		g_assert_cmpuint(run->t1, >, run->t0);
		g_assert_cmpuint(p & 0xffffffff, <, 1u << 31);
		/* x from the times */
		g_assert_cmpfloat(fabs(run->x - floor((run->t0 - sh.l.lx0) * sh.l.scale)), <=, 1);
	}
	if (!strcmp(name, "rpcchain.data")) {
		/* it has switch-ins the kernel did not record: marked; and its
		 * socket lanes show the data in flight, in teal */
		size_t marks = 0, net = 0;

		for (size_t i = 0; i < rsp_scene_n_items(sh.l.content); i++) {
			marks += rsp_scene_item(sh.l.content, i)->cls == RSP_CLS_INFERRED;
			net += rsp_scene_item(sh.l.content, i)->cls == RSP_CLS_NET;
		}
		g_assert_cmpuint(marks, >, 0);
		g_assert_cmpuint(net, >, 0);
	}
	/* no sleeps drawn unless asked */
	g_assert_null(find_item(&sh, RSP_CLS_SLEEP, 1, RSP_HIT_NONE));
	/* links: lines between two rows' centres */
	for (size_t i = 0; i < rsp_scene_n_items(sh.l.content); i++) {
		const struct rsp_scene_item *it = rsp_scene_item(sh.l.content, i);
		double fy, ty;

		if (it->prim != RSP_PRIM_LINE || it->cls != RSP_CLS_LINK)
			continue;
		fy = fmod(it->y, RSP_ROW_H);
		ty = fmod(it->y + it->h, RSP_ROW_H);
		g_assert_cmpfloat(fabs(fy - RSP_ROW_H / 2.0), <, 0.01);
		g_assert_cmpfloat(fabs(ty - RSP_ROW_H / 2.0), <, 0.01);
		g_assert_cmpfloat(fabs(it->h), >=, RSP_ROW_H);
		g_assert_cmpuint(it->t1, >=, it->t0);
		seen_link = true;
	}
	g_assert_true(seen_link);
	shot_free(&sh);

	/* with sleeps: blue boxes, labelled where they fit */
	st.show_sleeps = true;
	shot_take(&sh, &rsp_running_ops, d, &st, 0, 0, 1600, 0, 0);
	shot_save(&sh, "running-sleeps-%s.png", (const char *)name);
	sleep = find_item(&sh, RSP_CLS_SLEEP, 6, RSP_HIT_SLICE);
	g_assert_nonnull(sleep);
	assert_colour_at(&sh, sleep, RSP_CLS_SLEEP);
	for (size_t i = 0; i < rsp_scene_n_items(sh.l.content); i++) {
		const struct rsp_scene_item *it = rsp_scene_item(sh.l.content, i);

		if (it->label_len)
			g_assert_cmpfloat(rsp_text_width(it->label, it->label_len), <=, it->w);
	}
	shot_free(&sh);
	rsp_running_data_free(d);
	fixture_close(&fx);
}

/* Culling: at most a few boxes per pixel column and row, whatever the number of slices. */
static void test_running_culling(void)
{
	struct fixture fx;
	struct rsp_running_data *d;
	struct rsp_running_state st = {.show_sleeps = true};
	struct shot narrow, wide;
	char err[256];
	size_t rows;

	fixture_open(&fx, "pass.data");
	g_assert_cmpint(rsp_running_data_new(fx.t, fx.a, &d, err, sizeof(err)), ==, 0);
	rows = rsp_running_n_rows(d, &st);
	shot_take(&narrow, &rsp_running_ops, d, &st, 0, 0, 200, 0, 0);
	shot_take(&wide, &rsp_running_ops, d, &st, 0, 0, 3000, 0, 0);
	/* the content covers three screens: a bound per column and row */
	g_assert_cmpuint(rsp_scene_n_items(narrow.l.content), <=,
			 rows * (3 * 200 / 2 + 8) + 3 * 200);
	g_assert_cmpuint(rsp_scene_n_items(narrow.l.content), <, rsp_scene_n_items(wide.l.content));
	shot_free(&narrow);
	shot_free(&wide);
	rsp_running_data_free(d);
	fixture_close(&fx);
}

static void test_ruler(void)
{
	static const struct {
		double span;
		const char *unit;
	} cases[] = {
	    {4e9, " s"},
	    {5e6, " ms"},
	    {50e3, " \xc2\xb5s"},
	    {100, " ns"},
	};
	char buf[64];

	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		struct rsp_scene *s = rsp_scene_new();
		size_t texts = 0;

		rsp_ruler_layout(s, 1e12, 1e12 + cases[i].span, 1e12, 0, 1000);
		for (size_t k = 0; k < rsp_scene_n_items(s); k++) {
			const struct rsp_scene_item *it = rsp_scene_item(s, k);

			if (it->prim != RSP_PRIM_TEXT)
				continue;
			g_assert_true(g_str_has_suffix(it->label, cases[i].unit));
			texts++;
		}
		/* ticks at least ~100 px apart, at least a few */
		g_assert_cmpuint(texts, >=, 4);
		g_assert_cmpuint(texts, <=, 11);
		rsp_scene_free(s);
	}
	rsp_format_duration(buf, sizeof(buf), 1.5e9);
	g_assert_cmpstr(buf, ==, "1.50 s");
	rsp_format_duration(buf, sizeof(buf), 250e3);
	g_assert_cmpstr(buf, ==, "250 \xc2\xb5s");
	rsp_format_duration(buf, sizeof(buf), 999.7e6);
	g_assert_cmpstr(buf, ==, "1.00 s");
	rsp_format_duration(buf, sizeof(buf), 12);
	g_assert_cmpstr(buf, ==, "12 ns");
}

/* ---- the chronological flame view -------------------------------------------------------------
 */

static size_t node_of(const struct rsp_scene_item *it)
{
	return RSP_HIT_PAYLOAD(it->id) & 0xffffffffff;
}

static unsigned frame_of(const struct rsp_scene_item *it)
{
	return (unsigned)(RSP_HIT_PAYLOAD(it->id) >> 40);
}

static void test_flame_colours(gconstpointer name)
{
	struct fixture fx;
	struct rsp_flame_data *d;
	struct rsp_flame_state st = {.category = -1};
	struct shot sh;
	char err[256];
	unsigned seen[RSP_CLS__COUNT] = {0};

	fixture_open(&fx, name);
	g_assert_cmpint(rsp_flame_data_new(fx.t, fx.a, &d, err, sizeof(err)), ==, 0);
	g_assert_cmpuint(rsp_flame_n_nodes(d), ==, rsp_analysis_n_nodes(fx.a));
	shot_take(&sh, &rsp_flame_ops, d, &st, 0, 0, 1600, 0, 0);
	shot_save(&sh, "flame-%s.png", (const char *)name);
	for (size_t i = 0; i < rsp_scene_n_items(sh.l.content); i++) {
		const struct rsp_scene_item *it = rsp_scene_item(sh.l.content, i);
		struct rsp_flame_node_info ni;

		if (RSP_HIT_KIND(it->id) != RSP_HIT_FRAME)
			continue;
		g_assert_cmpuint(node_of(it), <, rsp_flame_n_nodes(d));
		rsp_flame_node(d, node_of(it), &ni);
		seen[it->cls]++;
		/* each box's colour says what its layer is */
		switch (it->cls) {
		case RSP_CLS_PROCESS:
			g_assert_cmpuint(frame_of(it), ==, 0);
			g_assert_true(ni.kind == RSP_NODE_RUN || ni.kind == RSP_NODE_SLEEP);
			g_assert_cmpstr(it->label, ==, ni.comm);
			break;
		case RSP_CLS_SLEEP:
			g_assert_cmpuint(frame_of(it), >=, 1);
			g_assert_cmpint(ni.kind, ==, RSP_NODE_SLEEP);
			break;
		case RSP_CLS_RUN:
			g_assert_cmpuint(frame_of(it), >=, 1);
			g_assert_cmpint(ni.kind, ==, RSP_NODE_RUN);
			break;
		case RSP_CLS_IO:
			g_assert_cmpint(ni.kind, ==, RSP_NODE_IO);
			break;
		case RSP_CLS_TIMEOUT:
			g_assert_cmpint(ni.kind, ==, RSP_NODE_TIMEOUT);
			break;
		case RSP_CLS_PATH:
		case RSP_CLS_ASYNC:
			g_assert_cmpint(ni.kind, ==, RSP_NODE_ROOT);
			break;
		default:
			break;
		}
	}
	/* what every fixture has */
	g_assert_cmpuint(seen[RSP_CLS_PROCESS], >, 0);
	g_assert_cmpuint(seen[RSP_CLS_RUN], >, 0);
	g_assert_cmpuint(seen[RSP_CLS_SLEEP] + seen[RSP_CLS_BOTH], >, 0);
	g_assert_cmpuint(seen[RSP_CLS_PATH], >, 0);
	/* the right colours at the right places */
	assert_colour_at(&sh, find_item(&sh, RSP_CLS_PROCESS, 4, RSP_HIT_FRAME), RSP_CLS_PROCESS);
	assert_colour_at(&sh, find_item(&sh, RSP_CLS_PATH, 4, RSP_HIT_FRAME), RSP_CLS_PATH);
	if (!strcmp(name, "rpcchain.data")) {
		/*
		 * disk waits in green; no network-wait (teal) frame: every peer is
		 * on this machine, so each socket wait holds the sender's work
		 * (the server's, the backend's), never a wait on the network
		 */
		g_assert_cmpuint(seen[RSP_CLS_IO], >, 0);
		g_assert_cmpuint(seen[RSP_CLS_NET], ==, 0);
	}
	if (!strcmp(name, "pollwait.data")) {
		/* the paper's curl finding: waits that end by timing out */
		g_assert_cmpuint(seen[RSP_CLS_TIMEOUT], >, 0);
		assert_colour_at(&sh, find_item(&sh, RSP_CLS_TIMEOUT, 2, RSP_HIT_FRAME),
				 RSP_CLS_TIMEOUT);
	}
	if (!strcmp(name, "pass.data"))
		/* an async control path: the peer the target started */
		g_assert_cmpuint(seen[RSP_CLS_ASYNC], >, 0);
	shot_free(&sh);
	rsp_flame_data_free(d);
	fixture_close(&fx);
}

static bool same_frames(const struct rsp_flame_data *d, size_t a, size_t b)
{
	struct rsp_flame_node_info x, y;

	rsp_flame_node(d, a, &x);
	rsp_flame_node(d, b, &y);
	if (x.n_user_frames != y.n_user_frames || !x.n_user_frames || x.thread != y.thread)
		return false;
	for (size_t f = 0; f < x.n_user_frames; f++)
		if (strcmp(rsp_flame_frame(d, a, -1, f), rsp_flame_frame(d, b, -1, f)))
			return false;
	return true;
}

/* The frame-1 boxes (the outermost frame above the process name) covering @t. */
static size_t frame1_covering(struct shot *sh, const struct rsp_flame_data *d, size_t depth1_node,
			      uint64_t t, const struct rsp_scene_item **out)
{
	size_t n = 0;

	for (size_t i = 0; i < rsp_scene_n_items(sh->l.content); i++) {
		const struct rsp_scene_item *it = rsp_scene_item(sh->l.content, i);
		struct rsp_flame_node_info ni, ref;

		if (RSP_HIT_KIND(it->id) != RSP_HIT_FRAME || frame_of(it) != 1)
			continue;
		rsp_flame_node(d, node_of(it), &ni);
		rsp_flame_node(d, depth1_node, &ref);
		if (ni.parent != ref.parent || it->t0 > t || it->t1 < t)
			continue;
		if (out)
			*out = it;
		n++;
	}
	return n;
}

/*
 * Two sleeps with the same stack, a short run between them: zoomed out, one
 * box (nothing visible separates them); zoomed in, two, with the run's red
 * frame between.
 */
static void test_flame_merge_split(void)
{
	struct fixture fx;
	struct rsp_flame_data *d;
	struct rsp_flame_state st = {.category = -1};
	struct shot sh;
	char err[256];
	size_t a = RSP_NO_INDEX, r = 0, b = 0;
	struct rsp_flame_node_info na, nr, nb;
	const struct rsp_scene_item *it = NULL;

	/* pollwait: 10 ms poll() sleeps, ~50 us runs between them */
	fixture_open(&fx, "pollwait.data");
	g_assert_cmpint(rsp_flame_data_new(fx.t, fx.a, &d, err, sizeof(err)), ==, 0);
	for (size_t i = 0; i + 2 < rsp_flame_n_nodes(d) && a == RSP_NO_INDEX; i++) {
		struct rsp_flame_node_info x;

		rsp_flame_node(d, i, &x);
		if (x.kind != RSP_NODE_SLEEP || x.parent == RSP_NO_INDEX)
			continue;
		/* the next sibling a run, the one after a sleep with the same frames */
		for (size_t j = i + 1; j < rsp_flame_n_nodes(d); j++) {
			struct rsp_flame_node_info y;

			rsp_flame_node(d, j, &y);
			if (y.parent != x.parent)
				continue;
			if (y.kind != RSP_NODE_RUN || y.start_ns != x.end_ns)
				break;
			for (size_t k = j + 1; k < rsp_flame_n_nodes(d); k++) {
				struct rsp_flame_node_info z;

				rsp_flame_node(d, k, &z);
				if (z.parent != x.parent)
					continue;
				if (z.kind == RSP_NODE_SLEEP && z.start_ns == y.end_ns &&
				    same_frames(d, i, k) && y.end_ns - y.start_ns > 2000 &&
				    x.end_ns - x.start_ns > 20 * (y.end_ns - y.start_ns) &&
				    z.end_ns - z.start_ns > 20 * (y.end_ns - y.start_ns)) {
					a = i;
					r = j;
					b = k;
				}
				break;
			}
			break;
		}
	}
	g_assert_cmpuint(a, !=, RSP_NO_INDEX);
	rsp_flame_node(d, a, &na);
	rsp_flame_node(d, r, &nr);
	rsp_flame_node(d, b, &nb);

	/* zoomed out: the run is a tenth of a pixel; one box spans both sleeps */
	{
		double span = (nr.end_ns - nr.start_ns) * 1600.0 * 10;
		double mid = (nr.start_ns + nr.end_ns) / 2.0;

		shot_take(&sh, &rsp_flame_ops, d, &st, mid - span / 2, mid + span / 2, 1600, 0, 0);
		g_assert_cmpuint(frame1_covering(&sh, d, a, na.end_ns - 1, &it), ==, 1);
		g_assert_cmpuint(it->t0, <=, na.end_ns - 1);
		g_assert_cmpuint(it->t1, >=, nb.start_ns + 1);
		g_assert_cmpuint(it->aux, >=, 2); /* merged */
		shot_save(&sh, "flame-merged.png");
		shot_free(&sh);
	}
	/* zoomed in: the run is ~200 px wide; two boxes, the run's red between them */
	{
		double pad = (nr.end_ns - nr.start_ns) * 3;
		const struct rsp_scene_item *left = NULL, *right = NULL, *mid = NULL;

		shot_take(&sh, &rsp_flame_ops, d, &st, nr.start_ns - pad, nr.end_ns + pad, 1600, 0,
			  0);
		g_assert_cmpuint(frame1_covering(&sh, d, a, na.end_ns - 1, &left), ==, 1);
		g_assert_cmpuint(frame1_covering(&sh, d, a, nb.start_ns + 1, &right), ==, 1);
		g_assert_true(left != right);
		g_assert_cmpuint(left->t1, <=, nr.start_ns);
		g_assert_cmpuint(right->t0, >=, nr.end_ns);
		g_assert_cmpuint(frame1_covering(&sh, d, r, (nr.start_ns + nr.end_ns) / 2, &mid),
				 ==, 1);
		g_assert_cmpint(mid->cls, ==, RSP_CLS_RUN);
		assert_colour_at(&sh, mid, RSP_CLS_RUN);
		g_assert_true(left->cls == RSP_CLS_SLEEP || left->cls == RSP_CLS_BOTH);
		assert_colour_at(&sh, left, left->cls);
		shot_save(&sh, "flame-split.png");
		shot_free(&sh);
	}
	rsp_flame_data_free(d);
	fixture_close(&fx);
}

/* Category and search highlights: the marked boxes are exactly the counted layers'. */
static void test_flame_highlight(void)
{
	struct fixture fx;
	struct rsp_flame_data *d;
	struct rsp_flame_state st = {.category = RSP_CAT_DISK};
	struct shot sh;
	char err[256];
	size_t marked = 0, dim = 0;

	fixture_open(&fx, "rpcchain.data");
	g_assert_cmpint(rsp_flame_data_new(fx.t, fx.a, &d, err, sizeof(err)), ==, 0);
	shot_take(&sh, &rsp_flame_ops, d, &st, 0, 0, 1600, 0, 0);
	for (size_t i = 0; i < rsp_scene_n_items(sh.l.content); i++) {
		const struct rsp_scene_item *it = rsp_scene_item(sh.l.content, i);
		struct rsp_flame_node_info ni;

		if (RSP_HIT_KIND(it->id) != RSP_HIT_FRAME)
			continue;
		rsp_flame_node(d, node_of(it), &ni);
		if (it->flags & RSP_ITEM_MARKED) {
			g_assert_cmpint(ni.category, ==, RSP_CAT_DISK);
			marked++;
		} else {
			g_assert_true(it->flags & RSP_ITEM_DIM);
			dim++;
		}
	}
	g_assert_cmpuint(marked, >, 0);
	g_assert_cmpuint(dim, >, marked);
	shot_save(&sh, "flame-highlight-disk.png");
	shot_free(&sh);
	st.category = -1;
	st.search = "rpc-server";
	marked = 0;
	shot_take(&sh, &rsp_flame_ops, d, &st, 0, 0, 1600, 0, 0);
	for (size_t i = 0; i < rsp_scene_n_items(sh.l.content); i++) {
		const struct rsp_scene_item *it = rsp_scene_item(sh.l.content, i);

		if (it->flags & RSP_ITEM_MARKED) {
			g_assert_nonnull(strstr(it->label, "rpc-server"));
			marked++;
		}
	}
	g_assert_cmpuint(marked, >, 0);
	shot_free(&sh);
	rsp_flame_data_free(d);
	fixture_close(&fx);
}

/* ---- the consolidated flame view
 * ----------------------------------------------------------------- */

static void check_tree(const struct rsp_cons_tree *c, size_t i)
{
	struct rsp_cons_node_info n, prev = {0};
	uint64_t x, sum = 0;

	rsp_cons_node(c, i, &n);
	g_assert_cmpuint(n.need_ns, >=, n.total_ns);
	g_assert_cmpuint(n.run_ns + n.sleep_ns, <=, n.total_ns + n.n_children);
	x = n.x_ns;
	for (size_t k = 0; k < n.n_children; k++) {
		struct rsp_cons_node_info ch;
		size_t ci = rsp_cons_child(c, i, k);

		rsp_cons_node(c, ci, &ch);
		g_assert_cmpuint(ch.parent, ==, i);
		g_assert_cmpuint(ch.depth, ==, n.depth + 1);
		/* sorted by duration; placed side by side, each in its room */
		if (k)
			g_assert_cmpuint(ch.total_ns, <=, prev.total_ns);
		g_assert_cmpuint(ch.x_ns, ==, x);
		x += ch.need_ns;
		sum += ch.need_ns;
		prev = ch;
		check_tree(c, ci);
	}
	g_assert_cmpuint(n.need_ns, ==, MAX(n.total_ns, sum));
}

static void test_consolidated(gconstpointer name)
{
	struct fixture fx;
	struct rsp_flame_data *d;
	struct rsp_cons_tree *c, *unmerged;
	struct rsp_cons_state st = {.category = -1};
	struct rsp_cons_node_info root, first;
	struct shot sh;
	char err[256];
	const struct rsp_scene_item *bottom = NULL;
	unsigned seen[RSP_CLS__COUNT] = {0};

	fixture_open(&fx, name);
	g_assert_cmpint(rsp_flame_data_new(fx.t, fx.a, &d, err, sizeof(err)), ==, 0);
	c = rsp_cons_tree_new(d, true, false);
	g_assert_cmpuint(rsp_cons_n_nodes(c), >, 3);
	check_tree(c, 0);
	rsp_cons_node(c, 0, &root);
	rsp_cons_node(c, rsp_cons_child(c, 0, 0), &first);
	g_assert_cmpint(first.cls, ==, RSP_CLS_PROCESS);
	g_assert_cmpuint(first.x_ns, ==, 0);

	shot_take(&sh, &rsp_cons_ops, c, &st, 0, 0, 1600, 0, 0);
	shot_save(&sh, "consolidated-%s.png", (const char *)name);
	/* the bottom row: process names, the widest first, at the left */
	for (size_t i = 0; i < rsp_scene_n_items(sh.l.content); i++) {
		const struct rsp_scene_item *it = rsp_scene_item(sh.l.content, i);

		if (RSP_HIT_KIND(it->id) != RSP_HIT_CONS)
			continue;
		seen[it->cls]++;
		if (!bottom || it->y > bottom->y || (it->y == bottom->y && it->x < bottom->x))
			bottom = it;
	}
	g_assert_nonnull(bottom);
	g_assert_cmpuint(RSP_HIT_PAYLOAD(bottom->id), ==, rsp_cons_child(c, 0, 0));
	g_assert_cmpfloat(bottom->w, >=, 1600 * (double)first.total_ns / root.need_ns - 2);
	assert_colour_at(&sh, bottom, RSP_CLS_PROCESS);
	g_assert_cmpuint(seen[RSP_CLS_RUN], >, 0);
	g_assert_cmpuint(seen[RSP_CLS_SLEEP] + seen[RSP_CLS_BOTH], >, 0);
	if (!strcmp(name, "pass.data"))
		/* main, the loop: in running and sleeping stacks */
		g_assert_cmpuint(seen[RSP_CLS_BOTH], >, 0);
	shot_free(&sh);

	/* zoomed into a subtree: it spans the width */
	st.root = rsp_cons_child(c, 0, 0);
	shot_take(&sh, &rsp_cons_ops, c, &st, 0, 0, 1600, 0, 0);
	for (size_t i = 0; i < rsp_scene_n_items(sh.l.content); i++) {
		const struct rsp_scene_item *it = rsp_scene_item(sh.l.content, i);

		if (RSP_HIT_PAYLOAD(it->id) == st.root && RSP_HIT_KIND(it->id) == RSP_HIT_CONS)
			g_assert_cmpfloat(it->w, >=,
					  1600 * (double)first.total_ns / first.need_ns - 2);
	}
	shot_free(&sh);

	/* merge threads off: threads apart ("comm [tid]") */
	unmerged = rsp_cons_tree_new(d, false, false);
	check_tree(unmerged, 0);
	{
		struct rsp_cons_node_info u;

		rsp_cons_node(unmerged, rsp_cons_child(unmerged, 0, 0), &u);
		g_assert_nonnull(strchr(u.label, '['));
		if (!strcmp(name, "pollwait.data")) /* 9 threads */
			g_assert_cmpuint(rsp_cons_n_nodes(unmerged), >, rsp_cons_n_nodes(c));
	}
	rsp_cons_tree_free(unmerged);
	rsp_cons_tree_free(c);
	rsp_flame_data_free(d);
	fixture_close(&fx);
}

/* ---- exports -----------------------------------------------------------------------------------
 */

static void check_svg(const char *path)
{
	g_autofree char *text = NULL;
	gsize len;
	GMarkupParser parser = {0};
	GMarkupParseContext *ctx;
	GError *error = NULL;

	g_assert_true(g_file_get_contents(path, &text, &len, NULL));
	g_assert_nonnull(strstr(text, "<svg"));
	g_assert_nonnull(strstr(text, "<title>"));
	/* well-formed XML */
	ctx = g_markup_parse_context_new(&parser, 0, NULL, NULL);
	g_assert_true(g_markup_parse_context_parse(ctx, text, len, &error));
	g_assert_no_error(error);
	g_assert_true(g_markup_parse_context_end_parse(ctx, &error));
	g_markup_parse_context_free(ctx);
}

static void test_export(void)
{
	struct fixture fx;
	struct rsp_render_opts o = {.width = 800, .show_sleeps = true, .merge_threads = true};
	static const char *const names[] = {"running", "flame", "consolidated"};
	char err[256];

	fixture_open(&fx, "rpcchain.data");
	for (int v = RSP_VIEW_RUNNING; v <= RSP_VIEW_CONSOLIDATED; v++) {
		g_autofree char *png = g_strdup_printf("%s/export-%s.png", out_dir, names[v]);
		g_autofree char *svg = g_strdup_printf("%s/export-%s.svg", out_dir, names[v]);
		g_autofree char *pdf = g_strdup_printf("%s/export-%s.pdf", out_dir, names[v]);
		g_autofree char *head = NULL;
		cairo_surface_t *s;

		g_assert_cmpint(rsp_render_export(fx.t, fx.a, v, png, &o, err, sizeof(err)), ==, 0);
		s = cairo_image_surface_create_from_png(png);
		g_assert_cmpint(cairo_surface_status(s), ==, CAIRO_STATUS_SUCCESS);
		g_assert_cmpint(cairo_image_surface_get_width(s), ==, 800);
		g_assert_cmpint(cairo_image_surface_get_height(s), >, RSP_RULER_H + 40);
		cairo_surface_destroy(s);
		g_assert_cmpint(rsp_render_export(fx.t, fx.a, v, svg, &o, err, sizeof(err)), ==, 0);
		check_svg(svg);
		g_assert_cmpint(rsp_render_export(fx.t, fx.a, v, pdf, &o, err, sizeof(err)), ==, 0);
		g_assert_true(g_file_get_contents(pdf, &head, NULL, NULL));
		g_assert_true(g_str_has_prefix(head, "%PDF-"));
	}
	/* a time range: the running view of the first 5 ms */
	{
		struct rsp_trace_summary sum;
		g_autofree char *png = g_strdup_printf("%s/export-range.png", out_dir);

		rsp_trace_get_summary(fx.t, &sum);
		o.t0 = sum.start_ns;
		o.t1 = sum.start_ns + 5000000;
		o.height = 300;
		g_assert_cmpint(
		    rsp_render_export(fx.t, fx.a, RSP_VIEW_RUNNING, png, &o, err, sizeof(err)), ==,
		    0);
	}
	/* errors, with a line of text */
	g_assert_cmpint(
	    rsp_render_export(fx.t, fx.a, RSP_VIEW_FLAME, "/tmp/x.gif", &o, err, sizeof(err)), ==,
	    -EINVAL);
	g_assert_nonnull(strstr(err, ".svg"));
	g_assert_cmpint(
	    rsp_render_export(fx.t, NULL, RSP_VIEW_FLAME, "/tmp/x.svg", &o, err, sizeof(err)), ==,
	    -EINVAL);
	g_assert_cmpint(rsp_render_export(fx.t, fx.a, RSP_VIEW_RUNNING, "/nonexistent/dir/x.png",
					  &o, err, sizeof(err)),
			<, 0);
	g_assert_nonnull(strstr(err, "/nonexistent/dir/x.png"));
	fixture_close(&fx);
}

static void test_table(void)
{
	struct fixture fx;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	fixture_open(&fx, "rpcchain.data");
	f = open_memstream(&buf, &len);
	g_assert_cmpint(rsp_render_table(fx.a, "process 1 (x)", RSP_TABLE_CSV, 3, f), ==, 0);
	fclose(f);
	g_assert_true(g_str_has_prefix(buf, "scope,row,category,ns,ms,percent,contributor,ns_estimated,ns_inferred\n"));
	g_assert_nonnull(strstr(buf, "all,category,disk,"));
	g_assert_nonnull(strstr(buf, "all,accounted,"));
	free(buf);
	f = open_memstream(&buf, &len);
	g_assert_cmpint(rsp_render_table(fx.a, "process 1 (x)", RSP_TABLE_MARKDOWN, 3, f), ==, 0);
	fclose(f);
	g_assert_nonnull(strstr(buf, "| Category | ms | % | Top contributors |"));
	g_assert_nonnull(strstr(buf, "| In blocking disk I/O |"));
	free(buf);
	fixture_close(&fx);
}

/* ---- hostile files
 * -------------------------------------------------------------------------------- */

static void render_whatever(const char *path)
{
	struct rsp_trace_opts o = {0};
	struct rsp_trace *t = NULL;
	struct rsp_analysis *a = NULL;
	struct rsp_running_data *rd = NULL;
	struct rsp_running_state rs = {.show_sleeps = true};
	char err[512] = "";
	int pids[16];
	size_t n;
	struct shot sh;

	if (rsp_trace_open(path, &o, &t, err, sizeof(err))) {
		g_assert_cmpstr(err, !=, ""); /* an error the window can show */
		return;
	}
	g_assert_cmpint(rsp_running_data_new(t, NULL, &rd, err, sizeof(err)), ==, 0);
	shot_take(&sh, &rsp_running_ops, rd, &rs, 0, 0, 400, 300, 0);
	shot_free(&sh);
	n = rsp_trace_n_targets(t);
	for (size_t i = 0; i < n && i < 16; i++)
		pids[i] = rsp_trace_target(t, i);
	if (n && rsp_analyze(t, pids, MIN(n, 16), 0, NULL, &a, err, sizeof(err)) == 0) {
		struct rsp_flame_data *fd;
		struct rsp_flame_state fs = {.category = -1, .kernel_frames = true};

		g_assert_cmpint(rsp_flame_data_new(t, a, &fd, err, sizeof(err)), ==, 0);
		shot_take(&sh, &rsp_flame_ops, fd, &fs, 0, 0, 400, 300, 0);
		shot_free(&sh);
		rsp_cons_tree_free(rsp_cons_tree_new(fd, false, true));
		rsp_flame_data_free(fd);
	}
	rsp_analysis_free(a);
	rsp_running_data_free(rd);
	rsp_trace_free(t);
}

static void test_hostile(void)
{
	GDir *dir = g_dir_open(corpus_dir, 0, NULL);
	const char *name;
	g_autofree char *full = g_build_filename(data_dir, "rpcchain.data", NULL);
	g_autofree char *cut = g_build_filename(out_dir, "rpcchain-cut.data", NULL);
	g_autofree char *junk = g_build_filename(out_dir, "not-a-trace.data", NULL);
	g_autofree char *bytes = NULL;
	gsize len;
	struct rsp_trace_opts o = {0};
	struct rsp_trace *t;
	char err[512];
	size_t files = 0;

	g_assert_nonnull(dir);
	while ((name = g_dir_read_name(dir))) {
		g_autofree char *p = g_build_filename(corpus_dir, name, NULL);

		render_whatever(p);
		files++;
	}
	g_dir_close(dir);
	g_assert_cmpuint(files, >, 0);
	/* cut in the middle: what is before the cut is shown, with a warning */
	g_assert_true(g_file_get_contents(full, &bytes, &len, NULL));
	g_assert_true(g_file_set_contents(cut, bytes, len / 2 + 13, NULL));
	render_whatever(cut);
	g_assert_cmpint(rsp_trace_open(cut, &o, &t, err, sizeof(err)), ==, 0);
	g_assert_cmpuint(rsp_trace_n_warnings(t), >, 0);
	rsp_trace_free(t);
	/* not a trace at all: an error */
	g_assert_true(g_file_set_contents(junk, "this is not a perf.data file\n", -1, NULL));
	g_assert_cmpint(rsp_trace_open(junk, &o, &t, err, sizeof(err)), <, 0);
	g_assert_cmpstr(err, !=, "");
	render_whatever(junk);
}

/* A synthetic ping-pong of @n switches, with a span of lost records in the middle. */
static const void *pingpong(struct synth **sp, size_t n, size_t *len)
{
	struct synth *s = synth_new(&(struct synth_opts){0});
	uint64_t t = 1000000000ull;
	int pids[1] = {100};

	synth_comm(s, 0, 100, 100, "ping", false);
	synth_comm(s, 0, 200, 200, "pong", false);
	synth_targets(s, pids, 1);
	synth_switch(s, 0, t, 0, "swapper/0", 0, 100, "ping");
	for (size_t i = 0; i < n; i++) {
		int a = i & 1 ? 200 : 100, b = i & 1 ? 100 : 200;

		t += 10000;
		synth_waking(s, 0, t, b, 0, b, b == 100 ? "ping" : "pong", 0, false, NULL, 0);
		synth_switch(s, 0, t + 500, a, a == 100 ? "ping" : "pong", 1, b,
			     b == 100 ? "ping" : "pong");
		if (i == n / 2)
			synth_lost(s, t + 600, 0, 50);
		if (i % 1000 == 999)
			synth_round(s);
	}
	*sp = s;
	return synth_finish(s, len);
}

static void on_progress(double f, void *ctx)
{
	double *last = ctx;

	g_assert_cmpfloat(f, >=, *last);
	g_assert_cmpfloat(f, <=, 1.0);
	*last = f;
}

/* Loading reports progress and can be cancelled (the model's one change for the viewer). */
static void test_progress_cancel(void)
{
	struct synth *sy;
	size_t len;
	const void *buf = pingpong(&sy, 150000, &len);
	double last = 0;
	volatile int cancel = 0;
	struct rsp_trace_opts o = {
	    .progress = on_progress, .progress_ctx = &last, .no_symbols = true};
	struct rsp_trace *t;
	char err[256];

	g_assert_cmpint(rsp_trace_open_mem(buf, len, &o, &t, err, sizeof(err)), ==, 0);
	g_assert_cmpfloat(last, >, 0.5); /* reported along the way */
	rsp_trace_free(t);
	cancel = 1;
	o.cancel = &cancel;
	g_assert_cmpint(rsp_trace_open_mem(buf, len, &o, &t, err, sizeof(err)), ==, -ECANCELED);
	g_assert_nonnull(strstr(err, "cancel"));
	synth_free(sy);
}

/* Lost records: a hatched span across the rows; unknown slices hatched in theirs. */
static void test_running_lost(void)
{
	struct synth *sy;
	size_t len;
	const void *buf = pingpong(&sy, 400, &len);
	struct rsp_trace_opts o = {.no_symbols = true};
	struct rsp_trace *t;
	struct rsp_running_data *d;
	struct rsp_running_state st = {.show_sleeps = true};
	struct shot sh;
	char err[256];
	size_t lost = 0;

	g_assert_cmpint(rsp_trace_open_mem(buf, len, &o, &t, err, sizeof(err)), ==, 0);
	g_assert_cmpuint(rsp_trace_n_lost(t), >, 0);
	g_assert_cmpint(rsp_running_data_new(t, NULL, &d, err, sizeof(err)), ==, 0);
	shot_take(&sh, &rsp_running_ops, d, &st, 0, 0, 1000, 0, 0);
	shot_save(&sh, "running-lost.png");
	for (size_t i = 0; i < rsp_scene_n_items(sh.l.content); i++) {
		const struct rsp_scene_item *it = rsp_scene_item(sh.l.content, i);

		if (it->cls == RSP_CLS_LOST) {
			g_assert_cmpint(it->prim, ==, RSP_PRIM_HATCH);
			g_assert_cmpfloat(it->h, >=, 2 * RSP_ROW_H); /* across the rows */
			lost++;
		}
	}
	g_assert_cmpuint(lost, >, 0);
	/* the two tasks' rows: ping (the target) first */
	{
		struct rsp_row_info ri;

		rsp_running_row(d, &st, 0, &ri);
		g_assert_cmpint(ri.pid, ==, 100);
		g_assert_true(ri.target);
	}
	shot_free(&sh);
	rsp_running_data_free(d);
	rsp_trace_free(t);
	synth_free(sy);
}

int main(int argc, char **argv)
{
	static const char *const fixtures[] = {"rpcchain.data", "pass.data", "pollwait.data"};

	g_test_init(&argc, &argv, NULL);
	if (argc < 4) {
		g_printerr("usage: %s DATA_DIR CORPUS_DIR OUT_DIR\n", argv[0]);
		return 2;
	}
	data_dir = argv[1];
	corpus_dir = argv[2];
	out_dir = argv[3];
	g_mkdir_with_parents(out_dir, 0755);
	for (size_t i = 0; i < G_N_ELEMENTS(fixtures); i++) {
		g_autofree char *a = g_strdup_printf("/render/running/%s", fixtures[i]);
		g_autofree char *b = g_strdup_printf("/render/flame/%s", fixtures[i]);
		g_autofree char *c = g_strdup_printf("/render/consolidated/%s", fixtures[i]);

		g_test_add_data_func(a, fixtures[i], test_running);
		g_test_add_data_func(b, fixtures[i], test_flame_colours);
		g_test_add_data_func(c, fixtures[i], test_consolidated);
	}
	g_test_add_func("/render/running/culling", test_running_culling);
	g_test_add_func("/render/ruler", test_ruler);
	g_test_add_func("/render/flame/merge-split", test_flame_merge_split);
	g_test_add_func("/render/flame/highlight", test_flame_highlight);
	g_test_add_func("/render/export", test_export);
	g_test_add_func("/render/table", test_table);
	g_test_add_func("/render/hostile", test_hostile);
	g_test_add_func("/render/progress-cancel", test_progress_cancel);
	g_test_add_func("/render/running/lost", test_running_lost);
	g_test_add_func("/render/running/deferred-labels", test_running_deferred_labels);
	return g_test_run();
}
