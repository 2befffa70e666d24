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
 *
 * This file: main() and the helpers of render-test.h.  The tests are in
 * test-render-running.c, test-render-flame.c (chronological and
 * consolidated), test-render-guessed.c (runs without samples against rsp
 * report) and test-render-files.c (exports, the table, hostile files,
 * loading's progress).
 */
#include "render-test.h"

#include <glib/gstdio.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

const char *data_dir, *corpus_dir, *out_dir;

void fixture_open(struct fixture *fx, const char *name)
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

void fixture_close(struct fixture *fx)
{
	rsp_analysis_free(fx->a);
	rsp_trace_free(fx->t);
}

void shot_take(struct shot *sh, const struct rsp_view_ops *ops, const void *data,
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
	/* cairo's images are at most 32767 pixels high: a tall view is shot at its top */
	if (sh->v.height > 32767)
		sh->v.height = 32767;
	sh->v.scroll_y = scroll_y;
	rsp_layout_update(&sh->l, ops, data, state, &sh->v, true);
	sh->s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, sh->v.width, sh->v.height);
	cr = cairo_create(sh->s);
	rsp_layout_draw(&sh->l, ops, data, &sh->v, cr);
	g_assert_cmpint(cairo_status(cr), ==, CAIRO_STATUS_SUCCESS);
	cairo_destroy(cr);
	cairo_surface_flush(sh->s);
}

void shot_free(struct shot *sh)
{
	cairo_surface_destroy(sh->s);
	rsp_layout_clear(&sh->l);
}

void G_GNUC_PRINTF(2, 3) shot_save(struct shot *sh, const char *fmt, ...)
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

uint32_t shot_pixel(struct shot *sh, double x, double y)
{
	return pixel(sh->s, x, y);
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
const struct rsp_scene_item *find_item(struct shot *sh, enum rsp_cls cls, double min_w,
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
void assert_colour_at(struct shot *sh, const struct rsp_scene_item *it, enum rsp_cls cls)
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

/* A synthetic ping-pong of @n switches, with a span of lost records in the middle. */
const void *pingpong(struct synth **sp, size_t n, size_t *len)
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
		g_autofree char *g = g_strdup_printf("/render/guessed/%s", fixtures[i]);

		g_test_add_data_func(a, fixtures[i], test_running);
		g_test_add_data_func(b, fixtures[i], test_flame_colours);
		g_test_add_data_func(c, fixtures[i], test_consolidated);
		g_test_add_data_func(g, fixtures[i], test_flame_guessed);
	}
	g_test_add_func("/render/running/culling", test_running_culling);
	g_test_add_func("/render/ruler", test_ruler);
	g_test_add_func("/render/flame/merge-split", test_flame_merge_split);
	g_test_add_func("/render/flame/highlight", test_flame_highlight);
	g_test_add_func("/render/flame/tooltip-samples", test_flame_tooltip_samples);
	g_test_add_func("/render/export", test_export);
	g_test_add_func("/render/export/tall", test_export_tall);
	g_test_add_func("/render/table", test_table);
	g_test_add_func("/render/hostile", test_hostile);
	g_test_add_func("/render/progress-cancel", test_progress_cancel);
	g_test_add_func("/render/running/lost", test_running_lost);
	g_test_add_func("/render/running/shed", test_running_shed);
	g_test_add_func("/render/running/cmdline", test_running_cmdline);
	g_test_add_func("/render/running/socket-groups", test_running_socket_groups);
	g_test_add_func("/render/running/grid", test_running_grid);
	g_test_add_func("/render/running/lane-skip", test_running_lane_skip);
	g_test_add_func("/render/running/io-no-completion", test_running_io_no_completion);
	g_test_add_func("/render/scene/steep-lines", test_scene_steep_lines);
	g_test_add_func("/render/running/parallel", test_running_parallel);
	g_test_add_func("/render/running/links", test_running_links);
	g_test_add_func("/render/running/whole-legible", test_running_whole_legible);
	g_test_add_func("/render/scene/direct", test_scene_direct);
	g_test_add_func("/render/running/deferred-labels", test_running_deferred_labels);
	return g_test_run();
}
