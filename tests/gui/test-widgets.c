/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The viewer's widgets in process (GUI-TESTING.md): GTK4 cannot synthesize
 * input, so the tests emit the controllers' signals (key, scroll, drag,
 * click, pinch) and check the state and the pixels.  Needs a display: run
 * under xvfb-run.sh.
 *
 *   test-widgets DATA_DIR CORPUS_DIR OUT_DIR
 */
#include "rsp-canvas.h"
#include "rsp-explain-panel.h"
#include "rsp-flame-page.h"
#include "rsp-load-page.h"
#include "rsp-running-page.h"
#include "rsp-window.h"

#include "rsp-requests-panel.h"

#include <glib/gstdio.h>
#include <math.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <string.h>

static const char *data_dir, *corpus_dir, *out_dir;

/* ---- helpers --------------------------------------------------------------------------------- */

typedef gboolean (*Cond)(gpointer data);

static gboolean wait_until(Cond cond, gpointer data, int timeout_ms)
{
	gint64 end = g_get_monotonic_time() + timeout_ms * 1000;

	while (!cond(data)) {
		if (g_get_monotonic_time() > end)
			return FALSE;
		g_main_context_iteration(NULL, FALSE);
		g_usleep(1000);
	}
	return TRUE;
}

static gboolean page_settled(gpointer data)
{
	GtkNotebook *nb = rsp_window_get_notebook(data);
	int n = gtk_notebook_get_current_page(nb);
	GtkWidget *p = n >= 0 ? gtk_notebook_get_nth_page(nb, n) : NULL;

	return p && (RSP_IS_PAGE(p) ||
		     (RSP_IS_LOAD_PAGE(p) && rsp_load_page_get_error(RSP_LOAD_PAGE(p))));
}

static gboolean flame_ready(gpointer data)
{
	return rsp_flame_page_is_ready(RSP_FLAME_PAGE(data));
}

static gboolean drawn(gpointer data)
{
	return gtk_widget_get_mapped(GTK_WIDGET(data)) &&
	       gtk_widget_get_width(GTK_WIDGET(data)) > 100;
}

static void settle(RspCanvas *c)
{
	g_assert_true(wait_until(drawn, c, 10000));
	gtk_test_widget_wait_for_draw(GTK_WIDGET(c));
	rsp_canvas_flush(c);
}

static RspWindow *window_with(const char *name)
{
	RspWindow *w = rsp_window_new(NULL);
	g_autofree char *path = g_build_filename(data_dir, name, NULL);
	GFile *f = g_file_new_for_path(path);

	gtk_window_set_default_size(GTK_WINDOW(w), 1200, 760);
	gtk_window_present(GTK_WINDOW(w));
	rsp_window_open(w, f);
	g_object_unref(f);
	g_assert_true(wait_until(page_settled, w, 30000));
	return w;
}

static RspRunningPage *running_page(RspWindow *w)
{
	GtkWidget *p = rsp_window_get_current(w);

	g_assert_true(RSP_IS_RUNNING_PAGE(p));
	return RSP_RUNNING_PAGE(p);
}

static double span(RspCanvas *c)
{
	const struct rsp_view *v = rsp_canvas_get_view(c);

	return v->x1 - v->x0;
}

static double scale(RspCanvas *c)
{
	const struct rsp_view *v = rsp_canvas_get_view(c);

	return (v->width - (rsp_canvas_x_to_px(c, v->x0))) / (v->x1 - v->x0);
}

/* The widget as drawn: GUI-TESTING.md's paintable route; BGRA bytes. */
static guchar *capture(GtkWidget *w, int *width, int *height, gsize *stride)
{
	GdkPaintable *p = gtk_widget_paintable_new(w);
	GtkSnapshot *s = gtk_snapshot_new();
	GskRenderNode *node;
	GdkTexture *t;
	guchar *data;

	/* the paintable's image is the widget's next frame */
	gtk_widget_queue_draw(w);
	gtk_test_widget_wait_for_draw(w);
	while (g_main_context_pending(NULL)) /* its update is an idle after the frame */
		g_main_context_iteration(NULL, FALSE);
	*width = gtk_widget_get_width(w);
	*height = gtk_widget_get_height(w);
	gdk_paintable_snapshot(p, s, *width, *height);
	node = gtk_snapshot_free_to_node(s);
	g_assert_nonnull(node);
	t = gsk_renderer_render_texture(gtk_native_get_renderer(gtk_widget_get_native(w)), node,
					&GRAPHENE_RECT_INIT(0, 0, *width, *height));
	*width = gdk_texture_get_width(t);
	*height = gdk_texture_get_height(t);
	*stride = (gsize)*width * 4;
	data = g_malloc(*stride * *height);
	gdk_texture_download(t, data, *stride);
	g_object_unref(t);
	gsk_render_node_unref(node);
	g_object_unref(p);
	return data;
}

static uint32_t widget_pixel(GtkWidget *w, double x, double y)
{
	int width, height;
	gsize stride;
	guchar *d = capture(w, &width, &height, &stride);
	uint32_t v;

	g_assert_cmpint((int)x, <, width);
	g_assert_cmpint((int)y, <, height);
	memcpy(&v, d + (int)y * stride + (int)x * 4, sizeof(v));
	v &= 0xffffff;
	g_free(d);
	return v;
}

/* Most samples along the item's top (below the 1 px gap, above the label) are @rgb. */
static gboolean item_drawn_as(RspCanvas *c, const struct rsp_scene_item *it, uint32_t rgb)
{
	const struct rsp_layout *l = rsp_canvas_get_layout(c);
	const struct rsp_view *v = rsp_canvas_get_view(c);
	int width, height, hits = 0, n = 0;
	gsize stride;
	guchar *d = capture(GTK_WIDGET(c), &width, &height, &stride);
	double dx, dy, a, b, y;

	rsp_layout_offsets(l, l->ops, l->data, v, &dx, &dy);
	a = fmax(it->x + dx, 0);
	b = fmin(it->x + dx + it->w, width);
	y = it->y + dy + 2.5;
	for (double f = 0.1; f < 0.95 && b - a >= 3; f += 0.2, n++) {
		int x = (int)(a + 1 + (b - a - 3) * f);
		uint32_t px;

		memcpy(&px, d + (int)y * stride + x * 4, sizeof(px));
		hits += (px & 0xffffff) == rgb;
	}
	g_free(d);
	return n && hits * 2 > n;
}

static void save_widget(GtkWidget *w, const char *name)
{
	int width, height;
	gsize stride;
	guchar *d = capture(w, &width, &height, &stride);
	cairo_surface_t *s =
	    cairo_image_surface_create_for_data(d, CAIRO_FORMAT_ARGB32, width, height, (int)stride);
	g_autofree char *p = g_build_filename(out_dir, name, NULL);

	cairo_surface_write_to_png(s, p);
	cairo_surface_destroy(s);
	g_free(d);
}

/* The widget named @name under @w (itself included), or NULL. */
static GtkWidget *find_name(GtkWidget *w, const char *name)
{
	if (!g_strcmp0(gtk_widget_get_name(w), name))
		return w;
	for (GtkWidget *c = gtk_widget_get_first_child(w); c; c = gtk_widget_get_next_sibling(c)) {
		GtkWidget *f = find_name(c, name);

		if (f)
			return f;
	}
	return NULL;
}

/* An on-screen content item of @cls at least @min_w wide; its centre in widget px. */
static const struct rsp_scene_item *visible_item(RspCanvas *c, enum rsp_cls cls, enum rsp_hit kind,
						 double min_w, double *x, double *y)
{
	const struct rsp_layout *l = rsp_canvas_get_layout(c);
	const struct rsp_view *v = rsp_canvas_get_view(c);
	double dx, dy;

	rsp_layout_offsets(l, l->ops, l->data, v, &dx, &dy);
	for (size_t i = 0; i < rsp_scene_n_items(l->content); i++) {
		const struct rsp_scene_item *it = rsp_scene_item(l->content, i);
		double cx = it->x + dx + it->w / 2, cy = it->y + dy + it->h / 2 + 0.5;

		if ((cls && it->cls != cls) || RSP_HIT_KIND(it->id) != kind || it->w < min_w ||
		    it->prim != RSP_PRIM_RECT)
			continue;
		if (it->x + dx < rsp_canvas_x_to_px(c, v->x0) || it->x + it->w + dx > v->width ||
		    it->y + dy < RSP_RULER_H || it->y + it->h + dy > v->height)
			continue;
		/* the one under the centre must be this one */
		if (rsp_canvas_hit(c, cx, cy) != it)
			continue;
		*x = cx;
		*y = cy;
		return it;
	}
	return NULL;
}

/* ---- zoom, pan, select
 * --------------------------------------------------------------------------- */

static void test_zoom(void)
{
	RspWindow *w = window_with("rpcchain.data");
	RspCanvas *c = rsp_page_get_canvas(RSP_PAGE(running_page(w)));
	double s0, s1, before = 0;
	gboolean handled = FALSE;
	GtkEventController *zoom = rsp_canvas_get_controller(c, "zoom");

	settle(c);
	s0 = span(c);
	/* keys */
	g_signal_emit_by_name(rsp_canvas_get_controller(c, "key"), "key-pressed", GDK_KEY_plus, 0,
			      0, &handled);
	g_assert_true(handled);
	rsp_canvas_flush(c);
	g_assert_cmpfloat(fabs(span(c) - s0 / 1.5) / s0, <, 1e-9);
	g_assert_cmpfloat(fabs(rsp_canvas_get_layout(c)->scale - scale(c)) / scale(c), <, 1e-6);
	handled = FALSE;
	g_signal_emit_by_name(rsp_canvas_get_controller(c, "key"), "key-pressed", GDK_KEY_minus, 0,
			      0, &handled);
	g_assert_true(handled);
	g_assert_cmpfloat(fabs(span(c) - s0) / s0, <, 1e-9);
	/* pinch: twice the scale, half the span */
	g_signal_emit_by_name(zoom, "begin", NULL);
	g_signal_emit_by_name(zoom, "scale-changed", 2.0);
	rsp_canvas_flush(c);
	s1 = span(c);
	g_assert_cmpfloat(fabs(s1 - s0 / 2) / s0, <, 1e-9);
	/* the window's action */
	g_action_group_activate_action(G_ACTION_GROUP(w), "zoom-in", NULL);
	g_assert_cmpfloat(fabs(span(c) - s1 / 1.5) / s1, <, 1e-9);
	/* and back */
	g_action_group_activate_action(G_ACTION_GROUP(w), "zoom-fit", NULL);
	rsp_canvas_flush(c);
	g_assert_cmpfloat(span(c), >=, s0 * 0.99);
	before = rsp_canvas_get_view(c)->x0;
	g_assert_cmpfloat(
	    before, <=,
	    rsp_document_get_summary(rsp_page_get_document(RSP_PAGE(running_page(w))))->start_ns);
	gtk_window_destroy(GTK_WINDOW(w));
}

/* The view's pixels in @n: the cairo node as large as the canvas, or NULL. */
static GskRenderNode *backdrop_in(GskRenderNode *n, int width, int height)
{
	graphene_rect_t b;

	switch (gsk_render_node_get_node_type(n)) {
	case GSK_CAIRO_NODE:
		gsk_render_node_get_bounds(n, &b);
		return b.size.width == width && b.size.height == height ? n : NULL;
	case GSK_CONTAINER_NODE:
		for (guint i = 0; i < gsk_container_node_get_n_children(n); i++) {
			GskRenderNode *f =
			    backdrop_in(gsk_container_node_get_child(n, i), width, height);

			if (f)
				return f;
		}
		return NULL;
	case GSK_TRANSFORM_NODE:
		return backdrop_in(gsk_transform_node_get_child(n), width, height);
	case GSK_CLIP_NODE:
		return backdrop_in(gsk_clip_node_get_child(n), width, height);
	case GSK_DEBUG_NODE:
		return backdrop_in(gsk_debug_node_get_child(n), width, height);
	default:
		return NULL;
	}
}

/* The canvas's last frame's backdrop, referenced (the widget's own render node). */
static GskRenderNode *canvas_backdrop(RspCanvas *c)
{
	GtkWidget *w = GTK_WIDGET(c);
	GdkPaintable *p = gtk_widget_paintable_new(w);
	GtkSnapshot *s = gtk_snapshot_new();
	GskRenderNode *node, *b;

	gtk_test_widget_wait_for_draw(w);
	while (g_main_context_pending(NULL))
		g_main_context_iteration(NULL, FALSE);
	gdk_paintable_snapshot(p, s, gtk_widget_get_width(w), gtk_widget_get_height(w));
	node = gtk_snapshot_free_to_node(s);
	g_assert_nonnull(node);
	b = backdrop_in(node, gtk_widget_get_width(w), gtk_widget_get_height(w));
	if (b)
		gsk_render_node_ref(b);
	gsk_render_node_unref(node);
	g_object_unref(p);
	return b;
}

/*
 * Hover and selection frames repaint only what they change: the rendered view
 * is one render node kept from frame to frame (GTK diffs a frame's nodes
 * against the last one's and repaints the difference); a pan renders anew.
 */
static void test_repaint(void)
{
	RspWindow *w = window_with("rpcchain.data");
	RspCanvas *c = rsp_page_get_canvas(RSP_PAGE(running_page(w)));
	GtkEventController *drag = rsp_canvas_get_controller(c, "drag");
	GskRenderNode *b0, *b1, *b2;
	gboolean handled = FALSE;
	double x, y;
	int width, height, width2, height2;
	gsize stride, stride2;
	guchar *px, *px2;

	settle(c);
	px = capture(GTK_WIDGET(c), &width, &height, &stride);
	b0 = canvas_backdrop(c);
	g_assert_nonnull(b0);
	g_assert_nonnull(visible_item(c, 0, RSP_HIT_SLICE, 4, &x, &y));
	g_signal_emit_by_name(rsp_canvas_get_controller(c, "motion"), "motion", x, y);
	b1 = canvas_backdrop(c);
	g_assert_true(b1 == b0);
	/* a selection dragged on the ruler */
	g_signal_emit_by_name(drag, "drag-begin", 400.0, 5.0);
	g_signal_emit_by_name(drag, "drag-update", 120.0, 0.0);
	gsk_render_node_unref(b1);
	b1 = canvas_backdrop(c);
	g_assert_true(b1 == b0);
	g_assert_true(rsp_canvas_get_selection(c, NULL, NULL));
	g_signal_emit_by_name(drag, "drag-end", 120.0, 0.0);
	/* a pan draws a new one */
	g_signal_emit_by_name(rsp_canvas_get_controller(c, "key"), "key-pressed", GDK_KEY_Right, 0,
			      0, &handled);
	rsp_canvas_flush(c);
	b2 = canvas_backdrop(c);
	g_assert_nonnull(b2);
	g_assert_true(b2 != b0);
	/* and back, then drawn again in place: the same pixels from both images the
	 * canvas draws into in turn */
	rsp_canvas_clear_selection(c);
	g_signal_emit_by_name(rsp_canvas_get_controller(c, "key"), "key-pressed", GDK_KEY_Left, 0,
			      0, &handled);
	for (int i = 0; i < 2; i++) {
		if (i)
			rsp_canvas_invalidate(c);
		rsp_canvas_flush(c);
		px2 = capture(GTK_WIDGET(c), &width2, &height2, &stride2);
		g_assert_cmpint(width2, ==, width);
		g_assert_cmpint(height2, ==, height);
		g_assert_true(memcmp(px, px2, stride * height) == 0);
		g_free(px2);
	}
	g_free(px);
	gsk_render_node_unref(b0);
	gsk_render_node_unref(b1);
	gsk_render_node_unref(b2);
	gtk_window_destroy(GTK_WINDOW(w));
}

static gboolean all_settled(gpointer data);

/* A loaded recording is a recent file of the viewer's; the recent menu's action opens one. */
static void test_recent(void)
{
	RspWindow *w = window_with("pass.data");
	g_autofree char *path = g_build_filename(data_dir, "pass.data", NULL);
	GFile *f = g_file_new_for_path(path);
	g_autofree char *uri = g_file_get_uri(f);
	GtkRecentInfo *info;

	info = gtk_recent_manager_lookup_item(gtk_recent_manager_get_default(), uri, NULL);
	g_assert_nonnull(info);
	g_assert_true(gtk_recent_info_has_application(info, "rsp-viewer"));
	gtk_recent_info_unref(info);
	g_action_group_activate_action(G_ACTION_GROUP(w), "open-uri", g_variant_new_string(uri));
	g_assert_cmpint(gtk_notebook_get_n_pages(rsp_window_get_notebook(w)), ==, 2);
	g_assert_true(wait_until(all_settled, w, 30000));
	g_assert_true(RSP_IS_RUNNING_PAGE(rsp_window_get_current(w)));
	g_object_unref(f);
	gtk_window_destroy(GTK_WINDOW(w));
}

static void test_pan(void)
{
	RspWindow *w = window_with("rpcchain.data");
	RspCanvas *c = rsp_page_get_canvas(RSP_PAGE(running_page(w)));
	GtkEventController *drag = rsp_canvas_get_controller(c, "drag");
	gboolean handled = FALSE;
	double x0, k;

	settle(c);
	g_signal_emit_by_name(rsp_canvas_get_controller(c, "key"), "key-pressed", GDK_KEY_plus, 0,
			      0, &handled);
	g_signal_emit_by_name(rsp_canvas_get_controller(c, "key"), "key-pressed", GDK_KEY_plus, 0,
			      0, &handled);
	rsp_canvas_flush(c);
	x0 = rsp_canvas_get_view(c)->x0;
	k = scale(c);
	/* drag left by 100 px: the view moves 100 px later in time */
	g_signal_emit_by_name(drag, "drag-begin", 700.0, 200.0);
	g_signal_emit_by_name(drag, "drag-update", -50.0, 0.0);
	g_signal_emit_by_name(drag, "drag-update", -100.0, 0.0);
	g_signal_emit_by_name(drag, "drag-end", -100.0, 0.0);
	rsp_canvas_flush(c);
	g_assert_cmpfloat(fabs(rsp_canvas_get_view(c)->x0 - (x0 + 100 / k)) * k, <, 0.01);
	g_assert_false(rsp_canvas_get_selection(c, NULL, NULL));
	/* scrolling sideways pans too (40 px a step) */
	x0 = rsp_canvas_get_view(c)->x0;
	g_signal_emit_by_name(rsp_canvas_get_controller(c, "scroll"), "scroll", 2.0, 0.0, &handled);
	rsp_canvas_flush(c);
	g_assert_cmpfloat(fabs(rsp_canvas_get_view(c)->x0 - (x0 + 80 / k)) * k, <, 0.01);
	/* arrow keys */
	x0 = rsp_canvas_get_view(c)->x0;
	g_signal_emit_by_name(rsp_canvas_get_controller(c, "key"), "key-pressed", GDK_KEY_Left, 0,
			      0, &handled);
	g_assert_cmpfloat(rsp_canvas_get_view(c)->x0, <, x0);
	gtk_window_destroy(GTK_WINDOW(w));
}

static void test_select(void)
{
	RspWindow *w = window_with("rpcchain.data");
	RspCanvas *c = rsp_page_get_canvas(RSP_PAGE(running_page(w)));
	GtkEventController *drag = rsp_canvas_get_controller(c, "drag");
	double a, b, k, x0, px0;
	gboolean handled = FALSE;

	settle(c);
	k = scale(c);
	x0 = rsp_canvas_get_view(c)->x0;
	px0 = rsp_canvas_x_to_px(c, x0);
	/* a drag on the ruler selects a time range */
	g_signal_emit_by_name(drag, "drag-begin", 400.0, 10.0);
	g_signal_emit_by_name(drag, "drag-update", 300.0, 5.0);
	g_signal_emit_by_name(drag, "drag-end", 300.0, 5.0);
	g_assert_true(rsp_canvas_get_selection(c, &a, &b));
	g_assert_cmpfloat(fabs((b - a) * k - 300), <, 0.5);
	g_assert_cmpfloat(fabs(a - (x0 + (400 - px0) / k)) * k, <, 0.5);
	/* the view did not move */
	g_assert_cmpfloat(rsp_canvas_get_view(c)->x0, ==, x0);
	save_widget(GTK_WIDGET(c), "selection.png");
	/* z: zoom to it */
	g_signal_emit_by_name(rsp_canvas_get_controller(c, "key"), "key-pressed", GDK_KEY_z, 0, 0,
			      &handled);
	g_assert_true(handled);
	g_assert_cmpfloat(fabs(rsp_canvas_get_view(c)->x0 - a) / (b - a), <, 1e-6);
	g_assert_cmpfloat(fabs(rsp_canvas_get_view(c)->x1 - b) / (b - a), <, 1e-6);
	/* Escape clears it; a click-sized drag on the ruler too */
	g_signal_emit_by_name(rsp_canvas_get_controller(c, "key"), "key-pressed", GDK_KEY_Escape, 0,
			      0, &handled);
	g_assert_false(rsp_canvas_get_selection(c, NULL, NULL));
	gtk_window_destroy(GTK_WINDOW(w));
}

/* ---- clicks
 * -------------------------------------------------------------------------------------- */

static RspFlamePage *open_flame_by_click(RspWindow *w, RspRunningPage *rp, size_t row)
{
	RspCanvas *c = rsp_page_get_canvas(RSP_PAGE(rp));
	GtkNotebook *nb = rsp_window_get_notebook(w);
	int before = gtk_notebook_get_n_pages(nb);
	double x, y;
	GtkWidget *p;

	g_assert_true(rsp_running_page_row_position(rp, row, &x, &y));
	g_signal_emit_by_name(rsp_canvas_get_controller(c, "click"), "pressed", 1, x, y);
	g_assert_cmpint(gtk_notebook_get_n_pages(nb), ==, before + 1);
	p = rsp_window_get_current(w);
	g_assert_true(RSP_IS_FLAME_PAGE(p));
	g_assert_true(wait_until(flame_ready, p, 30000));
	return RSP_FLAME_PAGE(p);
}

static void test_click_process(void)
{
	RspWindow *w = window_with("rpcchain.data");
	RspRunningPage *rp = running_page(w);
	RspCanvas *c = rsp_page_get_canvas(RSP_PAGE(rp));
	const struct rsp_running_data *d =
	    rsp_document_get_running(rsp_page_get_document(RSP_PAGE(rp)));
	const struct rsp_running_state *st = rsp_running_page_get_state(rp);
	struct rsp_row_info ri, r1;
	RspFlamePage *fp;
	size_t rows, multi = RSP_NO_INDEX;
	double x, y;

	settle(c);
	/* the first row is the target; click its name: its flame views, in a new tab */
	rsp_running_row(d, st, 0, &ri);
	g_assert_true(ri.target);
	fp = open_flame_by_click(w, rp, 0);
	g_assert_cmpint(rsp_flame_page_get_pid(fp), ==, ri.pid);
	save_widget(GTK_WIDGET(fp), "flame-tab.png");
	/* clicking it again goes back to that tab, no new one */
	gtk_notebook_set_current_page(rsp_window_get_notebook(w), 0);
	g_assert_true(rsp_running_page_row_position(rp, 0, &x, &y));
	g_signal_emit_by_name(rsp_canvas_get_controller(c, "click"), "pressed", 1, x, y);
	g_assert_cmpint(gtk_notebook_get_n_pages(rsp_window_get_notebook(w)), ==, 2);
	g_assert_true(rsp_window_get_current(w) == GTK_WIDGET(fp));
	/* another process: another tab */
	gtk_notebook_set_current_page(rsp_window_get_notebook(w), 0);
	rsp_running_row(d, st, 1, &r1);
	fp = open_flame_by_click(w, rp, 1);
	g_assert_cmpint(rsp_flame_page_get_pid(fp), ==, r1.pid);
	g_assert_cmpint(gtk_notebook_get_n_pages(rsp_window_get_notebook(w)), ==, 3);
	/* Ctrl+W's action closes the current tab */
	g_action_group_activate_action(G_ACTION_GROUP(w), "close-tab", NULL);
	g_assert_cmpint(gtk_notebook_get_n_pages(rsp_window_get_notebook(w)), ==, 2);

	/* the triangle of a process with several threads shows them */
	gtk_notebook_set_current_page(rsp_window_get_notebook(w), 0);
	rows = rsp_running_n_rows(d, st);
	for (size_t r = 0; r < rows && multi == RSP_NO_INDEX; r++) {
		rsp_running_row(d, st, r, &ri);
		if (ri.kind == RSP_ROW_PROCESS && ri.n_threads > 1)
			multi = r;
	}
	g_assert_cmpuint(multi, !=, RSP_NO_INDEX);
	g_assert_true(rsp_running_page_row_position(rp, multi, &x, &y));
	g_signal_emit_by_name(rsp_canvas_get_controller(c, "click"), "pressed", 1, 8.0, y);
	g_assert_cmpuint(rsp_running_n_rows(d, st), ==, rows + ri.n_threads);
	rsp_running_row(d, st, multi + 1, &r1);
	g_assert_cmpint(r1.kind, ==, RSP_ROW_THREAD);
	g_assert_cmpint(r1.pid, ==, ri.pid);
	g_assert_cmpint(gtk_notebook_get_n_pages(rsp_window_get_notebook(w)), ==, 2);
	gtk_window_destroy(GTK_WINDOW(w));
}

static void test_click_category(void)
{
	RspWindow *w = window_with("rpcchain.data");
	RspRunningPage *rp = running_page(w);
	RspFlamePage *fp;
	RspCanvas *c;
	RspExplainPanel *ep;
	const struct rsp_layout *l;
	const struct rsp_flame_data *d;
	size_t marked = 0, dim = 0;
	const struct rsp_scene_item *it;
	double x, y;

	settle(rsp_page_get_canvas(RSP_PAGE(rp)));
	fp = open_flame_by_click(w, rp, 0);
	c = rsp_page_get_canvas(RSP_PAGE(fp));
	settle(c);
	ep = rsp_flame_page_get_explain_panel(fp);
	g_assert_nonnull(ep);
	d = rsp_flame_page_get_flame_data(fp);
	/* disk I/O's row: its frames marked, the rest faded */
	g_assert_true(rsp_explain_panel_activate(ep, RSP_CAT_DISK));
	g_assert_cmpint(rsp_flame_page_get_flame_state(fp)->category, ==, RSP_CAT_DISK);
	rsp_canvas_flush(c);
	l = rsp_canvas_get_layout(c);
	for (size_t i = 0; i < rsp_scene_n_items(l->content); i++) {
		const struct rsp_scene_item *s = rsp_scene_item(l->content, i);
		struct rsp_flame_node_info ni;

		if (RSP_HIT_KIND(s->id) != RSP_HIT_FRAME)
			continue;
		rsp_flame_node(d, RSP_HIT_PAYLOAD(s->id) & 0xffffffffff, &ni);
		if (s->flags & RSP_ITEM_MARKED) {
			g_assert_cmpint(ni.category, ==, RSP_CAT_DISK);
			marked++;
		} else if (s->flags & RSP_ITEM_DIM) {
			dim++;
		}
	}
	g_assert_cmpuint(marked, >, 0);
	g_assert_cmpuint(dim, >, 0);
	gtk_test_widget_wait_for_draw(GTK_WIDGET(c));
	save_widget(GTK_WIDGET(fp), "flame-category-disk.png");
	/* on screen: a faded frame is lighter than its colour */
	it = visible_item(c, RSP_CLS_SLEEP, RSP_HIT_FRAME, 3, &x, &y);
	g_assert_nonnull(it);
	g_assert_true(it->flags & RSP_ITEM_DIM);
	g_assert_false(item_drawn_as(c, it, rsp_palette_rgb(RSP_CLS_SLEEP)));
	g_assert_cmphex(widget_pixel(GTK_WIDGET(c), x, it->y + 2.5 + (y - it->y - it->h / 2 - 0.5)),
			>, rsp_palette_rgb(RSP_CLS_SLEEP)); /* lighter */
	/* the same row again: nothing highlighted */
	g_assert_true(rsp_explain_panel_activate(ep, RSP_CAT_DISK));
	g_assert_cmpint(rsp_flame_page_get_flame_state(fp)->category, ==, -1);
	rsp_canvas_flush(c);
	for (size_t i = 0; i < rsp_scene_n_items(l->content); i++)
		g_assert_false(rsp_scene_item(l->content, i)->flags &
			       (RSP_ITEM_MARKED | RSP_ITEM_DIM));
	gtk_window_destroy(GTK_WINDOW(w));
}

/* ---- a server's requests ------------------------------------------------------------------- */

/*
 * What rsp report --requests says of rpcchain's rpc-server's requests, each
 * explained alone (tests/gui/request-truth.py: the report's JSON as a key
 * file).  The viewer's numbers are checked against these, not against the
 * model called again here.
 */
static GKeyFile *request_truth(void)
{
	const char *py = g_getenv("RSP_PYTHON"), *script = g_getenv("RSP_REQUEST_TRUTH"),
		   *rsp = g_getenv("RSP_CLI");
	g_autofree char *path = g_build_filename(data_dir, "rpcchain.data", NULL);
	g_autofree char *out = NULL, *err = NULL;
	GKeyFile *k = g_key_file_new();
	GError *e = NULL;
	int status;

	g_assert_nonnull(py);
	g_assert_nonnull(script);
	g_assert_nonnull(rsp);
	{
		const char *argv[] = { py, script, rsp, path, "rpc-server", NULL };

		g_assert_true(g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_DEFAULT, NULL, NULL,
					   &out, &err, &status, &e));
	}
	g_assert_no_error(e);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		g_error("request-truth.py failed: %s", err);
	g_assert_true(g_key_file_load_from_data(k, out, -1, G_KEY_FILE_NONE, &e));
	g_assert_no_error(e);
	return k;
}

static guint64 truth_u64(GKeyFile *k, const char *group, const char *key)
{
	GError *e = NULL;
	guint64 v = g_key_file_get_uint64(k, group, key, &e);

	if (e && e->code == G_KEY_FILE_ERROR_KEY_NOT_FOUND &&
	    (g_str_has_prefix(key, "cat_") || g_str_has_prefix(key, "est_"))) {
		g_error_free(e);
		return 0; /* a category the report leaves out: none */
	}
	g_assert_no_error(e);
	return v;
}

/* Every label's text and every tooltip under @w, a line each. */
static void collect_text(GtkWidget *w, GString *s)
{
	const char *tip = gtk_widget_get_tooltip_text(w);

	if (GTK_IS_LABEL(w))
		g_string_append_printf(s, "%s\n", gtk_label_get_text(GTK_LABEL(w)));
	if (tip)
		g_string_append_printf(s, "%s\n", tip);
	for (GtkWidget *c = gtk_widget_get_first_child(w); c; c = gtk_widget_get_next_sibling(c))
		collect_text(c, s);
}

/* The explanation panel's rows as shown: category -> its text (name, ms, %, tooltip). */
static GHashTable *explain_rows(RspFlamePage *fp)
{
	GHashTable *rows = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
	GPtrArray *todo = g_ptr_array_new();

	g_ptr_array_add(todo, rsp_flame_page_get_explain_panel(fp));
	while (todo->len) {
		GtkWidget *w = g_ptr_array_steal_index(todo, todo->len - 1);

		if (GTK_IS_LIST_BOX_ROW(w)) {
			GString *s = g_string_new(NULL);

			collect_text(w, s);
			g_hash_table_insert(rows, g_object_get_data(G_OBJECT(w), "category"),
					    g_string_free(s, FALSE));
			continue;
		}
		for (GtkWidget *c = gtk_widget_get_first_child(w); c;
		     c = gtk_widget_get_next_sibling(c))
			g_ptr_array_add(todo, c);
	}
	g_ptr_array_unref(todo);
	return rows;
}

static char *explain_text(RspFlamePage *fp)
{
	GString *s = g_string_new(NULL);

	collect_text(GTK_WIDGET(rsp_flame_page_get_explain_panel(fp)), s);
	return g_string_free(s, FALSE);
}

static gssize wanted_request;

static gboolean request_is_shown(gpointer data)
{
	return rsp_flame_page_get_request(RSP_FLAME_PAGE(data)) == wanted_request;
}

/*
 * Open the request of @row: the page must show that request's window alone,
 * the numbers rsp report --requests gives it (@truth), drawn by the
 * chronological flame view fitted to its window, with its estimated runs
 * tinted and its inferred ones hatched, as in the whole view.
 */
static void check_request_view(RspFlamePage *fp, RspRequestsPanel *q, guint row, GKeyFile *truth,
			       const RspTarget *whole)
{
	RspCanvas *c = rsp_page_get_canvas(RSP_PAGE(fp));
	const struct rsp_layout *l;
	const struct rsp_view *v;
	const struct rsp_cons_tree *ct;
	struct rsp_cons_node_info root;
	struct rsp_explanation e;
	RspRequestRow r;
	RspTarget *tg;
	g_autofree char *group = NULL, *title = NULL, *text = NULL, *conn = NULL, *ck = NULL,
			*lat = NULL;
	g_autoptr(GHashTable) rows = NULL;
	guint64 latency, n_est = 0, n_inf = 0, n_frames = 0;
	double m, x, y;

	g_assert_true(rsp_requests_panel_get_request(q, row, &r));
	group = g_strdup_printf("request %zu", r.index);
	g_assert_true(g_key_file_has_group(truth, group));
	/* the row is the report's request */
	latency = truth_u64(truth, group, "latency_ns");
	g_assert_cmpuint(r.start_ns, ==, truth_u64(truth, group, "start_ns"));
	g_assert_cmpuint(r.end_ns, ==, truth_u64(truth, group, "end_ns"));
	g_assert_cmpint(r.tid, ==, (int)truth_u64(truth, group, "tid"));
	ck = g_strdup_printf("c%" G_GUINT64_FORMAT, truth_u64(truth, group, "connection"));
	conn = g_key_file_get_string(truth, "connections", ck, NULL);
	g_assert_cmpstr(r.connection, ==, conn);

	g_assert_true(rsp_requests_panel_activate(q, row));
	wanted_request = (gssize)r.index;
	g_assert_true(wait_until(request_is_shown, fp, 30000));
	settle(c);

	/* the page's analysis is that window's: the report's numbers for it */
	tg = rsp_flame_page_get_shown(fp);
	g_assert_true(tg != whole);
	g_assert_true(rsp_page_get_target(RSP_PAGE(fp)) == tg); /* the table export too */
	rsp_analysis_explanation(tg->analysis, &e);
	g_assert_cmpuint(e.total_ns, ==, latency);
	g_assert_cmpuint(e.total_ns, ==, r.end_ns - r.start_ns);
	g_assert_cmpuint(e.wall_ns, ==, truth_u64(truth, group, "wall_ns"));
	g_assert_cmpuint(e.explained_ns, ==, truth_u64(truth, group, "explained_ns"));
	for (int k = 0; k < RSP_CAT__COUNT; k++) {
		g_autofree char *key = g_strdup_printf("cat_%s", rsp_category_key(k));

		g_assert_cmpuint(e.cat_ns[k], ==, truth_u64(truth, group, key));
	}

	/* as shown: a row per non-zero category with the report's time and top contributor */
	rows = explain_rows(fp);
	for (int k = 0; k < RSP_CAT__COUNT; k++) {
		g_autofree char *key = g_strdup_printf("cat_%s", rsp_category_key(k));
		g_autofree char *topk = g_strdup_printf("top_%s", rsp_category_key(k));
		g_autofree char *ms = NULL, *top = NULL;
		guint64 ns = truth_u64(truth, group, key);
		const char *rt = g_hash_table_lookup(rows, GINT_TO_POINTER(k));

		if (!ns) {
			g_assert_true(!rt || k == RSP_CAT_CPU);
			continue;
		}
		g_assert_nonnull(rt);
		ms = g_strdup_printf("%.3f ms", ns / 1e6);
		g_assert_nonnull(strstr(rt, rsp_category_name(k)));
		g_assert_nonnull(strstr(rt, ms));
		top = g_key_file_get_string(truth, group, topk, NULL);
		if (top)
			g_assert_nonnull(strstr(rt, top));
		{
			g_autofree char *estk = g_strdup_printf("est_%s", rsp_category_key(k));
			g_autofree char *infk = g_strdup_printf("inf_%s", rsp_category_key(k));

			n_est += truth_u64(truth, group, estk);
			n_inf += truth_u64(truth, group, infk);
		}
	}
	text = explain_text(fp);
	{
		g_autofree char *want = g_strdup_printf("Where request #%zu of ", r.index);
		g_autofree char *tot = g_strdup_printf("total %.3f ms", latency / 1e6);

		g_assert_nonnull(strstr(text, want));
		g_assert_nonnull(strstr(text, tot));
	}

	/* the title over the view names it: index, latency, connection, thread */
	title = rsp_flame_page_dup_request_title(fp);
	g_assert_nonnull(title);
	lat = g_strdup_printf("Request #%zu ", r.index);
	g_assert_true(g_str_has_prefix(title, lat));
	g_free(lat);
	lat = g_strdup_printf(" %.3f ms ", latency / 1e6);
	g_assert_nonnull(strstr(title, lat));
	g_assert_nonnull(strstr(title, conn));
	g_assert_nonnull(strstr(title, "of process 4945 (rpc-server)"));
	g_assert_true(gtk_widget_get_mapped(rsp_flame_page_get_back_button(fp)));

	/* drawn: the chronological view of the request's flame data, fitted to its window */
	g_assert_false(rsp_flame_page_get_consolidated(fp));
	l = rsp_canvas_get_layout(c);
	v = rsp_canvas_get_view(c);
	g_assert_true(l->data == tg->flame);
	g_assert_true(rsp_flame_page_get_flame_data(fp) == tg->flame);
	m = latency * 0.005;
	g_assert_cmpfloat(fabs(v->x0 - (r.start_ns - m)), <, 2);
	g_assert_cmpfloat(fabs(v->x1 - (r.end_ns + m)), <, 2);
	for (size_t i = 0; i < rsp_scene_n_items(l->content); i++) {
		const struct rsp_scene_item *it = rsp_scene_item(l->content, i);

		if (RSP_HIT_KIND(it->id) != RSP_HIT_FRAME)
			continue;
		n_frames++;
		g_assert_cmpuint(it->t0, >=, r.start_ns);
		g_assert_cmpuint(it->t1, <=, r.end_ns);
	}
	g_assert_cmpuint(n_frames, >, 0);
	/*
	 * runs the report estimated are drawn with the estimated tint, as in the whole
	 * view; those it inferred hatched, also where their frames are those of the
	 * sleep around them (a hatched part over the merged frame, the one under the
	 * pointer there); the legend beside
	 */
	if (n_est) {
		const struct rsp_scene_item *it =
		    visible_item(c, RSP_CLS_RUN_ESTIMATED, RSP_HIT_FRAME, 4, &x, &y);

		g_assert_nonnull(it);
		g_assert_true(item_drawn_as(c, it, rsp_palette_rgb(RSP_CLS_RUN_ESTIMATED)));
	}
	if (n_inf) {
		double dx, dy;
		size_t hatched = 0;

		rsp_layout_offsets(l, l->ops, l->data, v, &dx, &dy);
		for (size_t i = 0; i < rsp_scene_n_items(l->content); i++) {
			const struct rsp_scene_item *it = rsp_scene_item(l->content, i);

			double cx = it->x + dx + it->w / 2, cy = it->y + dy + it->h / 2 + 0.5;

			if (it->cls != RSP_CLS_RUN_INFERRED ||
			    RSP_HIT_KIND(it->id) != RSP_HIT_FRAME)
				continue;
			g_assert_cmpint(it->prim, ==, RSP_PRIM_HATCH);
			if (it->y + dy >= RSP_RULER_H && it->y + it->h + dy <= v->height &&
			    rsp_canvas_hit(c, cx, cy) == it)
				hatched++;
		}
		g_assert_cmpuint(hatched, >, 0);
	}
	g_assert_true(n_est); /* the fixture's requests have such runs */
	g_assert_true(gtk_widget_get_mapped(find_name(GTK_WIDGET(fp), "legend")));

	/* the consolidated view of the request: its tree sums the request's time */
	rsp_flame_page_set_consolidated(fp, TRUE);
	ct = rsp_flame_page_get_cons_tree(fp);
	g_assert_nonnull(ct);
	rsp_cons_node(ct, 0, &root);
	g_assert_cmpuint(root.total_ns, ==, latency);
	rsp_flame_page_set_consolidated(fp, FALSE);
	settle(c);
}

/*
 * A server's requests: rpcchain's rpc-server served the workload's 60 requests
 * (tests/workloads/rpcchain.c); its flame page lists them, slowest first.  A
 * request's row opens that request's own views (its window analysed alone, as
 * rsp report --requests explains it); the back button restores the whole
 * target's.  The client (the recorded target) served none: no list.
 */
static void test_requests(void)
{
	RspWindow *w = window_with("rpcchain.data");
	RspRunningPage *rp = running_page(w);
	RspDocument *doc = rsp_page_get_document(RSP_PAGE(rp));
	g_autoptr(GKeyFile) truth = request_truth();
	RspFlamePage *fp, *client;
	RspRequestsPanel *q;
	RspTarget *whole;
	RspCanvas *c;
	const struct rsp_view *v;
	struct rsp_explanation we;
	guint64 s0, e0, s1, e1;
	double x0, x1;
	g_autofree char *text = NULL, *tot = NULL;
	int row;

	settle(rsp_page_get_canvas(RSP_PAGE(rp)));
	client = RSP_FLAME_PAGE(rsp_window_open_flame(w, doc, 0, NULL));
	g_assert_true(wait_until(flame_ready, client, 30000));
	g_assert_null(rsp_flame_page_get_requests_panel(client));
	fp = RSP_FLAME_PAGE(rsp_window_open_flame(w, doc, 4945, "rpc-server"));
	g_assert_true(wait_until(flame_ready, fp, 30000));
	c = rsp_page_get_canvas(RSP_PAGE(fp));
	settle(c);
	q = rsp_flame_page_get_requests_panel(fp);
	g_assert_nonnull(q);
	g_assert_cmpuint(rsp_requests_panel_get_n_rows(q), ==, 60);
	{
		g_auto(GStrv) groups = g_key_file_get_groups(truth, NULL);
		guint n = 0;

		for (guint i = 0; groups[i]; i++)
			n += g_str_has_prefix(groups[i], "request ");
		g_assert_cmpuint(n, ==, 60); /* the report's too */
	}
	g_assert_true(rsp_requests_panel_get_window(q, 0, &s0, &e0));
	g_assert_true(rsp_requests_panel_get_window(q, 1, &s1, &e1));
	g_assert_cmpuint(e0 - s0, >=, e1 - s1); /* the slowest first */
	whole = rsp_flame_page_get_shown(fp);
	g_assert_nonnull(whole);
	g_assert_cmpint(rsp_flame_page_get_request(fp), ==, -1);
	g_assert_null(rsp_flame_page_dup_request_title(fp));
	rsp_analysis_explanation(whole->analysis, &we);
	g_assert_cmpuint(we.total_ns, >, 10 * (e0 - s0)); /* the whole is not one request */

	/* the whole view zoomed somewhere: going back returns there */
	v = rsp_canvas_get_view(c);
	x0 = v->x0 + (v->x1 - v->x0) * 0.2;
	x1 = v->x0 + (v->x1 - v->x0) * 0.6;
	rsp_canvas_set_range(c, x0, x1);
	rsp_canvas_flush(c);

	/* the slowest request, then request 2 (in start order) straight from it */
	check_request_view(fp, q, 0, truth, whole);
	save_widget(GTK_WIDGET(fp), "flame-request.png");
	row = rsp_requests_panel_find(q, 2);
	g_assert_cmpint(row, >=, 0);
	check_request_view(fp, q, (guint)row, truth, whole);
	save_widget(GTK_WIDGET(fp), "flame-request-2.png");

	/* back: the whole target's analysis, explanation and range again */
	g_signal_emit_by_name(rsp_flame_page_get_back_button(fp), "clicked");
	g_assert_cmpint(rsp_flame_page_get_request(fp), ==, -1);
	g_assert_true(rsp_flame_page_get_shown(fp) == whole);
	g_assert_true(rsp_page_get_target(RSP_PAGE(fp)) == whole);
	g_assert_null(rsp_flame_page_dup_request_title(fp));
	settle(c);
	g_assert_true(rsp_canvas_get_layout(c)->data == whole->flame);
	v = rsp_canvas_get_view(c);
	g_assert_cmpfloat(fabs(v->x0 - x0), <, 2);
	g_assert_cmpfloat(fabs(v->x1 - x1), <, 2);
	text = explain_text(fp);
	tot = g_strdup_printf("total %.3f ms", we.total_ns / 1e6);
	g_assert_nonnull(strstr(text, "Where process 4945 (rpc-server)'s time went"));
	g_assert_nonnull(strstr(text, tot));
	save_widget(GTK_WIDGET(fp), "flame-request-back.png");
	gtk_window_destroy(GTK_WINDOW(w));
}

static void test_flame_frames(void)
{
	RspWindow *w = window_with("rpcchain.data");
	RspRunningPage *rp = running_page(w);
	RspFlamePage *fp;
	RspCanvas *c;
	const struct rsp_scene_item *it;
	const struct rsp_flame_data *d;
	struct rsp_flame_node_info ni;
	double x, y, m;
	g_autofree char *details = NULL;

	settle(rsp_page_get_canvas(RSP_PAGE(rp)));
	fp = open_flame_by_click(w, rp, 0);
	c = rsp_page_get_canvas(RSP_PAGE(fp));
	settle(c);
	d = rsp_flame_page_get_flame_data(fp);
	/* the widget shows the scene's colours where the scene says */
	it = visible_item(c, RSP_CLS_PROCESS, RSP_HIT_FRAME, 30, &x, &y);
	g_assert_nonnull(it);
	g_assert_true(item_drawn_as(c, it, rsp_palette_rgb(RSP_CLS_PROCESS)));
	/* click a sleeping frame: its details */
	it = visible_item(c, RSP_CLS_SLEEP, RSP_HIT_FRAME, 4, &x, &y);
	g_assert_nonnull(it);
	rsp_flame_node(d, RSP_HIT_PAYLOAD(it->id) & 0xffffffffff, &ni);
	g_signal_emit_by_name(rsp_canvas_get_controller(c, "click"), "pressed", 1, x, y);
	details = rsp_flame_page_dup_details(fp);
	g_assert_nonnull(strstr(details, "sleeping"));
	g_assert_nonnull(strstr(details, ni.comm));
	g_assert_nonnull(strstr(details, "stack: "));
	g_assert_nonnull(strstr(details, "woken by"));
	/* double-click: zoom to it */
	g_signal_emit_by_name(rsp_canvas_get_controller(c, "click"), "pressed", 2, x, y);
	m = (ni.end_ns - ni.start_ns) * 0.05 + 1;
	if (ni.end_ns - ni.start_ns + 2 * m > 200) {
		g_assert_cmpfloat(fabs(rsp_canvas_get_view(c)->x0 - (ni.start_ns - m)), <, 1);
		g_assert_cmpfloat(fabs(rsp_canvas_get_view(c)->x1 - (ni.end_ns + m)), <, 1);
	}
	rsp_canvas_flush(c);
	/* hovering draws an outline; the tooltip text is the frame's title */
	g_signal_emit_by_name(rsp_canvas_get_controller(c, "motion"), "motion", x, y);
	{
		const struct rsp_scene_item *h = rsp_canvas_hit(c, x, y);
		g_autofree char *title = rsp_canvas_dup_title(c, h);

		g_assert_nonnull(title);
		g_assert_nonnull(strstr(title, ni.comm));
	}
	/* the consolidated view, in the same tab; a click zooms into a subtree */
	g_action_group_activate_action(G_ACTION_GROUP(w), "toggle-view", NULL);
	g_assert_true(rsp_flame_page_get_consolidated(fp));
	settle(c);
	g_assert_true(rsp_canvas_get_layout(c)->ops == &rsp_cons_ops);
	save_widget(GTK_WIDGET(fp), "consolidated-tab.png");
	it = visible_item(c, 0, RSP_HIT_CONS, 40, &x, &y);
	g_assert_nonnull(it);
	{
		size_t node = RSP_HIT_PAYLOAD(it->id);
		struct rsp_cons_node_info ci;

		g_signal_emit_by_name(rsp_canvas_get_controller(c, "click"), "pressed", 1, x, y);
		g_assert_cmpuint(rsp_flame_page_get_cons_state(fp)->root, ==, node);
		rsp_cons_node(rsp_flame_page_get_cons_tree(fp), node, &ci);
		rsp_canvas_flush(c);
		g_assert_cmpfloat(rsp_canvas_get_view(c)->x0, <=, (double)ci.x_ns);
		g_assert_cmpfloat(rsp_canvas_get_view(c)->x1, >=, (double)(ci.x_ns + ci.need_ns));
		/* back: the breadcrumb's first button */
		rsp_flame_page_set_cons_root(fp, 0);
		g_assert_cmpuint(rsp_flame_page_get_cons_state(fp)->root, ==, 0);
	}
	/* merge threads off: the tree is rebuilt */
	rsp_flame_page_set_merge_threads(fp, FALSE);
	settle(c);
	gtk_window_destroy(GTK_WINDOW(w));
}

/* ---- search, export, tooltips -------------------------------------------------------------------
 */

static GtkWidget *find_type(GtkWidget *w, GType t)
{
	if (G_TYPE_CHECK_INSTANCE_TYPE(w, t))
		return w;
	for (GtkWidget *c = gtk_widget_get_first_child(w); c; c = gtk_widget_get_next_sibling(c)) {
		GtkWidget *f = find_type(c, t);

		if (f)
			return f;
	}
	return NULL;
}

static void test_search(void)
{
	RspWindow *w = window_with("rpcchain.data");
	RspRunningPage *rp = running_page(w);
	RspCanvas *c = rsp_page_get_canvas(RSP_PAGE(rp));
	GtkWidget *entry = find_type(GTK_WIDGET(rp), GTK_TYPE_SEARCH_ENTRY);
	const struct rsp_layout *l;
	size_t marked = 0;

	settle(c);
	g_action_group_activate_action(G_ACTION_GROUP(w), "search", NULL);
	g_assert_nonnull(entry);
	gtk_editable_set_text(GTK_EDITABLE(entry), "rpc-");
	g_signal_emit_by_name(entry, "search-changed");
	g_assert_cmpstr(rsp_running_page_get_state(rp)->search, ==, "rpc-");
	rsp_canvas_flush(c);
	l = rsp_canvas_get_layout(c);
	for (size_t i = 0; i < rsp_scene_n_items(l->chrome); i++) {
		const struct rsp_scene_item *it = rsp_scene_item(l->chrome, i);

		if (RSP_HIT_KIND(it->id) != RSP_HIT_ROW_NAME)
			continue;
		g_assert_true(!!(it->flags & RSP_ITEM_MARKED) == !!strstr(it->label, "rpc-"));
		marked += !!(it->flags & RSP_ITEM_MARKED);
	}
	g_assert_cmpuint(marked, ==, 2); /* rpc-server, rpc-backend */
	g_assert_cmpstr(rsp_page_get_search_status(RSP_PAGE(rp)), ==, "2 rows: Enter to step");
	/* case aside; Enter steps through the matches, round the end, Shift+Enter back */
	gtk_editable_set_text(GTK_EDITABLE(entry), "RPC-");
	g_signal_emit_by_name(entry, "search-changed");
	g_assert_cmpstr(rsp_page_get_search_status(RSP_PAGE(rp)), ==, "2 rows: Enter to step");
	{
		static const struct {
			int dir;
			const char *status;
			size_t match; /* which of the two rows, in order */
		} steps[] = {{1, "1 of 2 rows", 0}, {1, "2 of 2 rows", 1}, {1, "1 of 2 rows", 0},
			     {-1, "2 of 2 rows", 1}, {-1, "1 of 2 rows", 0}};
		const struct rsp_running_data *d =
		    rsp_document_get_running(rsp_page_get_document(RSP_PAGE(rp)));
		const struct rsp_running_state *st = rsp_running_page_get_state(rp);
		size_t rows[2], n = 0;

		for (size_t r = 0; r < rsp_running_n_rows(d, st) && n < 2; r++) {
			struct rsp_row_info ri;

			rsp_running_row(d, st, r, &ri);
			if (strstr(ri.name, "rpc-"))
				rows[n++] = r;
		}
		g_assert_cmpuint(n, ==, 2);
		for (size_t i = 0; i < G_N_ELEMENTS(steps); i++) {
			double x, y;

			if (steps[i].dir > 0)
				g_signal_emit_by_name(entry, "activate");
			else
				rsp_page_search_step(RSP_PAGE(rp), -1);
			g_assert_cmpstr(rsp_page_get_search_status(RSP_PAGE(rp)), ==,
					steps[i].status);
			g_assert_cmpuint(st->search_current, ==, rows[steps[i].match] + 1);
			rsp_canvas_flush(c);
			g_assert_true(rsp_running_page_row_position(rp, rows[steps[i].match], &x, &y));
		}
		/* the current match's bar at the gutter's edge */
		l = rsp_canvas_get_layout(c);
		n = 0;
		for (size_t i = 0; i < rsp_scene_n_items(l->chrome); i++) {
			const struct rsp_scene_item *it = rsp_scene_item(l->chrome, i);

			n += it->cls == RSP_CLS_MARK && it->prim == RSP_PRIM_RECT && it->x == 0;
		}
		g_assert_cmpuint(n, ==, 1);
	}
	gtk_editable_set_text(GTK_EDITABLE(entry), "no such name");
	g_signal_emit_by_name(entry, "search-changed");
	g_assert_cmpstr(rsp_page_get_search_status(RSP_PAGE(rp)), ==, "no match");
	g_signal_emit_by_name(entry, "activate");
	g_assert_cmpuint(rsp_running_page_get_state(rp)->search_current, ==, 0);
	gtk_window_destroy(GTK_WINDOW(w));
}

/*
 * The running view is drawn before its sleeps are labelled; the labels come
 * from a worker, and the view lays itself out again when they arrive.
 */
static gboolean doc_labelled(gpointer data)
{
	return rsp_document_is_labelled(data);
}

static void test_sleep_labels(void)
{
	RspWindow *w = window_with("rpcchain.data");
	RspRunningPage *rp = running_page(w);
	RspCanvas *c = rsp_page_get_canvas(RSP_PAGE(rp));
	RspDocument *doc = rsp_page_get_document(RSP_PAGE(rp));
	const struct rsp_layout *l;
	size_t sleeps = 0, labelled = 0;

	rsp_running_page_set_show_sleeps(rp, TRUE);
	settle(c);
	g_assert_true(wait_until(doc_labelled, doc, 30000));
	/* no toggle, no zoom: the document's "labelled" made the page lay out again */
	rsp_canvas_flush(c);
	l = rsp_canvas_get_layout(c);
	for (size_t i = 0; i < rsp_scene_n_items(l->content); i++) {
		const struct rsp_scene_item *it = rsp_scene_item(l->content, i);

		if (it->cls != RSP_CLS_SLEEP || RSP_HIT_KIND(it->id) != RSP_HIT_SLICE)
			continue;
		sleeps++;
		labelled += it->label && it->label_len > 0;
	}
	g_assert_cmpuint(sleeps, >, 10);
	g_assert_cmpuint(labelled, >, 0);
	/* the Links toggle (Alt+L): off, no link is laid out; on again, they are */
	for (int on = 0; on < 2; on++) {
		size_t lines = 0;

		rsp_running_page_set_show_links(rp, on);
		g_assert_true(rsp_running_page_get_state(rp)->hide_links == !on);
		rsp_canvas_flush(c);
		l = rsp_canvas_get_layout(c);
		for (size_t i = 0; i < rsp_scene_n_items(l->content); i++)
			lines += rsp_scene_item(l->content, i)->cls == RSP_CLS_LINK;
		if (on)
			g_assert_cmpuint(lines, >, 0);
		else
			g_assert_cmpuint(lines, ==, 0);
	}
	gtk_window_destroy(GTK_WINDOW(w));
}

static void test_export_tooltip(void)
{
	RspWindow *w = window_with("rpcchain.data");
	RspRunningPage *rp = running_page(w);
	RspCanvas *c = rsp_page_get_canvas(RSP_PAGE(rp));
	static const char *const exts[] = {"png", "svg", "pdf"};
	const struct rsp_scene_item *it;
	double x, y;

	rsp_running_page_set_show_sleeps(rp, TRUE);
	settle(c);
	for (size_t i = 0; i < G_N_ELEMENTS(exts); i++) {
		g_autofree char *p = g_strdup_printf("%s/running-view.%s", out_dir, exts[i]);
		g_autofree char *text = NULL;
		GError *error = NULL;
		gsize len;

		g_assert_true(rsp_canvas_export(c, p, &error));
		g_assert_no_error(error);
		g_assert_true(g_file_get_contents(p, &text, &len, NULL));
		g_assert_cmpuint(len, >, 1000);
		if (!strcmp(exts[i], "png")) {
			cairo_surface_t *s = cairo_image_surface_create_from_png(p);

			g_assert_cmpint(cairo_image_surface_get_width(s), ==,
					gtk_widget_get_width(GTK_WIDGET(c)));
			cairo_surface_destroy(s);
		} else if (!strcmp(exts[i], "svg")) {
			g_assert_nonnull(strstr(text, "<title>"));
			g_assert_nonnull(strstr(text, "pid")); /* a run's title, from the model */
		} else {
			g_assert_true(g_str_has_prefix(text, "%PDF-"));
		}
	}
	{
		GError *error = NULL;

		g_assert_false(rsp_canvas_export(c, "/tmp/view.bmp", &error));
		g_assert_nonnull(error);
		g_error_free(error);
	}
	/* a failed export leaves what was there: a device, a file, a directory */
	{
		g_autofree char *link = g_strdup_printf("%s/full.svg", out_dir);
		g_autofree char *dir = g_strdup_printf("%s/dir.svg", out_dir);
		g_autofree char *keep = g_strdup_printf("%s/running-view.png", out_dir);
		g_autofree char *before = NULL, *after = NULL;
		GError *error = NULL;
		gsize n0, n1;
		GStatBuf st;

		unlink(link);
		g_assert_cmpint(symlink("/dev/full", link), ==, 0);
		g_assert_false(rsp_canvas_export(c, link, &error));
		g_assert_nonnull(error);
		g_assert_nonnull(strstr(error->message, "No space left on device"));
		g_clear_error(&error);
		g_assert_cmpint(g_stat("/dev/full", &st), ==, 0);
		g_assert_true(S_ISCHR(st.st_mode));
		unlink(link);
		g_mkdir(dir, 0755);
		g_assert_false(rsp_canvas_export(c, dir, &error));
		g_assert_nonnull(error);
		g_assert_nonnull(strstr(error->message, "is a directory"));
		g_clear_error(&error);
		g_assert_true(g_file_test(dir, G_FILE_TEST_IS_DIR));
		g_rmdir(dir);
		/* a good export replaces a file whole */
		g_assert_true(g_file_get_contents(keep, &before, &n0, NULL));
		g_assert_true(rsp_canvas_export(c, keep, &error));
		g_assert_true(g_file_get_contents(keep, &after, &n1, NULL));
		g_assert_cmpuint(n1, >, 1000);
	}
	/* a run's tooltip: process, tid, duration, state */
	it = visible_item(c, RSP_CLS_RUN, RSP_HIT_SLICE, 3, &x, &y);
	g_assert_nonnull(it);
	{
		g_autofree char *t = rsp_canvas_dup_title(c, it);

		g_assert_nonnull(t);
		g_assert_nonnull(strstr(t, "tid"));
		g_assert_nonnull(strstr(t, "running"));
	}
	/* a sleep's: its state and what ended it */
	it = visible_item(c, RSP_CLS_SLEEP, RSP_HIT_SLICE, 3, &x, &y);
	g_assert_nonnull(it);
	{
		g_autofree char *t = rsp_canvas_dup_title(c, it);

		g_assert_nonnull(strstr(t, "sleeping"));
	}
	gtk_window_destroy(GTK_WINDOW(w));
}

/* ---- bad files and cancelling: errors in the window, never a crash
 * ---------------------------------- */

static gboolean all_settled(gpointer data)
{
	GtkNotebook *nb = rsp_window_get_notebook(data);

	for (int i = 0; i < gtk_notebook_get_n_pages(nb); i++) {
		GtkWidget *p = gtk_notebook_get_nth_page(nb, i);

		if (RSP_IS_LOAD_PAGE(p) && !rsp_load_page_get_error(RSP_LOAD_PAGE(p)))
			return FALSE;
	}
	return TRUE;
}

static void open_path(RspWindow *w, const char *path)
{
	GFile *f = g_file_new_for_path(path);

	rsp_window_open(w, f);
	g_object_unref(f);
}

static void test_bad_files(void)
{
	RspWindow *w = rsp_window_new(NULL);
	GtkNotebook *nb = rsp_window_get_notebook(w);
	g_autofree char *junk = g_build_filename(out_dir, "junk.data", NULL);
	g_autofree char *cut = g_build_filename(out_dir, "cut.data", NULL);
	g_autofree char *full = g_build_filename(data_dir, "rpcchain.data", NULL);
	g_autofree char *bytes = NULL;
	GDir *dir = g_dir_open(corpus_dir, 0, NULL);
	const char *name;
	gsize len;
	GtkWidget *p;

	gtk_window_present(GTK_WINDOW(w));
	g_assert_true(g_file_set_contents(junk, "not a recording\n", -1, NULL));
	g_assert_true(g_file_get_contents(full, &bytes, &len, NULL));
	g_assert_true(g_file_set_contents(cut, bytes, len / 3, NULL));
	open_path(w, "/nonexistent/rsp.data");
	open_path(w, junk);
	open_path(w, cut);
	g_assert_true(wait_until(all_settled, w, 30000));
	g_assert_cmpint(gtk_notebook_get_n_pages(nb), ==, 3);
	p = gtk_notebook_get_nth_page(nb, 0);
	g_assert_true(RSP_IS_LOAD_PAGE(p));
	g_assert_nonnull(
	    strstr(rsp_load_page_get_error(RSP_LOAD_PAGE(p)), "/nonexistent/rsp.data"));
	p = gtk_notebook_get_nth_page(nb, 1);
	g_assert_true(RSP_IS_LOAD_PAGE(p));
	g_assert_cmpstr(rsp_load_page_get_error(RSP_LOAD_PAGE(p)), !=, "");
	gtk_notebook_set_current_page(nb, 1);
	save_widget(p, "error-page.png");
	/* cut short: what is before the cut, and a warning */
	p = gtk_notebook_get_nth_page(nb, 2);
	g_assert_true(RSP_IS_RUNNING_PAGE(p));
	g_assert_cmpuint(rsp_document_get_n_warnings(rsp_page_get_document(RSP_PAGE(p))), >, 0);
	/* the fuzz corpus: each file an error or a view */
	while ((name = g_dir_read_name(dir))) {
		g_autofree char *path = g_build_filename(corpus_dir, name, NULL);

		open_path(w, path);
	}
	g_dir_close(dir);
	g_assert_true(wait_until(all_settled, w, 30000));
	for (int i = 0; i < gtk_notebook_get_n_pages(nb); i++) {
		p = gtk_notebook_get_nth_page(nb, i);
		gtk_notebook_set_current_page(nb, i);
		gtk_test_widget_wait_for_draw(p);
		g_assert_true(RSP_IS_RUNNING_PAGE(p) || RSP_IS_LOAD_PAGE(p));
	}
	gtk_window_destroy(GTK_WINDOW(w));
}

static void test_cancel(void)
{
	RspWindow *w = rsp_window_new(NULL);
	GtkNotebook *nb = rsp_window_get_notebook(w);
	g_autofree char *path = g_build_filename(data_dir, "pass.data", NULL);
	GtkWidget *p;

	gtk_window_present(GTK_WINDOW(w));
	open_path(w, path);
	p = rsp_window_get_current(w);
	g_assert_true(RSP_IS_LOAD_PAGE(p));
	g_cancellable_cancel(rsp_load_page_get_cancellable(RSP_LOAD_PAGE(p)));
	g_assert_true(wait_until(all_settled, w, 30000));
	p = gtk_notebook_get_nth_page(nb, 0);
	g_assert_true(RSP_IS_LOAD_PAGE(p));
	g_assert_nonnull(strstr(rsp_load_page_get_error(RSP_LOAD_PAGE(p)), "cancelled"));
	/* closing a tab while it loads: the load still holds the page and may report
	 * progress or its end to it; its last reference goes on the GTK thread */
	open_path(w, path);
	p = g_object_ref(rsp_window_get_current(w));
	g_assert_true(RSP_IS_LOAD_PAGE(p));
	g_action_group_activate_action(G_ACTION_GROUP(w), "close-tab", NULL);
	g_assert_cmpint(gtk_notebook_get_n_pages(nb), ==, 1);
	rsp_load_page_set_fraction(RSP_LOAD_PAGE(p), 0.5);
	rsp_load_page_set_error(RSP_LOAD_PAGE(p), "too late");
	g_object_unref(p);
	for (int i = 0; i < 200; i++) {
		g_main_context_iteration(NULL, FALSE);
		g_usleep(2000);
	}
	g_assert_cmpint(gtk_notebook_get_n_pages(nb), ==, 1);
	gtk_window_destroy(GTK_WINDOW(w));
}

/* Symbol Paths: a missing directory refused in words, then set and the recording
 * reopened with them; the dialog shows what is set */
static void test_symbol_paths(void)
{
	RspWindow *w = window_with("rpcchain.data");
	GtkNotebook *nb = rsp_window_get_notebook(w);
	int pages = gtk_notebook_get_n_pages(nb);
	g_autofree char *dirs = g_strconcat(data_dir, ":", corpus_dir, NULL);
	char *err = NULL;
	const char *symfs;
	const char *const *dd;
	GListModel *tops;
	GtkWidget *dialog = NULL, *e;

	g_assert_false(rsp_window_apply_symbol_paths(w, "/nonexistent-rsp-dir", "", &err));
	g_assert_nonnull(strstr(err, "/nonexistent-rsp-dir is not a directory"));
	g_free(err);
	g_assert_false(rsp_window_apply_symbol_paths(w, NULL, "/nonexistent-rsp-dir", &err));
	g_free(err);
	g_assert_cmpint(gtk_notebook_get_n_pages(nb), ==, pages);
	g_assert_true(rsp_window_apply_symbol_paths(w, data_dir, dirs, &err));
	g_assert_cmpint(gtk_notebook_get_n_pages(nb), ==, pages + 1); /* opened again */
	g_assert_true(wait_until(all_settled, w, 30000));
	rsp_document_get_symbol_paths(&symfs, &dd);
	g_assert_cmpstr(symfs, ==, data_dir);
	g_assert_nonnull(dd);
	g_assert_cmpstr(dd[0], ==, data_dir);
	g_assert_cmpstr(dd[1], ==, corpus_dir);
	g_assert_null(dd[2]);
	/* the dialog shows them */
	g_action_group_activate_action(G_ACTION_GROUP(w), "symbol-paths", NULL);
	tops = gtk_window_get_toplevels();
	for (guint i = 0; i < g_list_model_get_n_items(tops) && !dialog; i++) {
		GtkWidget *t = g_list_model_get_item(tops, i);

		if (!g_strcmp0(gtk_window_get_title(GTK_WINDOW(t)), "Symbol Paths"))
			dialog = t;
		g_object_unref(t);
	}
	g_assert_nonnull(dialog);
	e = find_name(dialog, "symfs");
	g_assert_nonnull(e);
	g_assert_cmpstr(gtk_editable_get_text(GTK_EDITABLE(e)), ==, data_dir);
	e = find_name(dialog, "debug-dirs");
	g_assert_cmpstr(gtk_editable_get_text(GTK_EDITABLE(e)), ==, dirs);
	gtk_window_destroy(GTK_WINDOW(dialog));
	/* back to none, for the tests after */
	g_assert_true(rsp_window_apply_symbol_paths(w, "", "", &err));
	g_assert_true(wait_until(all_settled, w, 30000));
	rsp_document_get_symbol_paths(&symfs, &dd);
	g_assert_null(symfs);
	g_assert_null(dd);
	gtk_window_destroy(GTK_WINDOW(w));
}

int main(int argc, char **argv)
{
	gtk_test_init(&argc, &argv, NULL);
	if (argc < 4) {
		g_printerr("usage: %s DATA_DIR CORPUS_DIR OUT_DIR\n", argv[0]);
		return 2;
	}
	data_dir = argv[1];
	corpus_dir = argv[2];
	out_dir = argv[3];
	g_mkdir_with_parents(out_dir, 0755);
	g_test_add_func("/widgets/zoom", test_zoom);
	g_test_add_func("/widgets/recent", test_recent);
	g_test_add_func("/widgets/pan", test_pan);
	g_test_add_func("/widgets/repaint", test_repaint);
	g_test_add_func("/widgets/select", test_select);
	g_test_add_func("/widgets/click-process-opens-tab", test_click_process);
	g_test_add_func("/widgets/click-category-highlights", test_click_category);
	g_test_add_func("/widgets/flame-frames", test_flame_frames);
	g_test_add_func("/widgets/requests", test_requests);
	g_test_add_func("/widgets/search", test_search);
	g_test_add_func("/widgets/export-tooltip", test_export_tooltip);
	g_test_add_func("/widgets/sleep-labels", test_sleep_labels);
	g_test_add_func("/widgets/bad-files", test_bad_files);
	g_test_add_func("/widgets/symbol-paths", test_symbol_paths);
	g_test_add_func("/widgets/cancel", test_cancel);
	return g_test_run();
}
