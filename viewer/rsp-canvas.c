/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A zoomable view of the render library: layout and rendering off the draw callback. */
#include "rsp-canvas.h"

#include "rsp-testlog.h"

#include "rsp-output.h"

#include <cairo-pdf.h>
#include <errno.h>
#include <math.h>
#include <string.h>

#define MIN_SPAN    200.0 /* ns on screen at the deepest zoom */
#define SCROLL_STEP 40.0  /* px per scroll unit */

enum { DRAG_NONE, DRAG_PAN, DRAG_SELECT };

struct _RspCanvas {
	GtkWidget parent_instance;

	const struct rsp_view_ops *ops;
	const void *data, *state;
	RspDocument *doc;

	struct rsp_view v;
	struct rsp_layout layout;
	gboolean fitted, need_layout, force_layout;
	guint tick_id;
	/* the rendered view: one cairo node kept from frame to frame, so that GTK
	 * repaints only what the hover and the selection change over it (GTK 4.8's
	 * cairo renderer converts a texture's every pixel on every frame) */
	GskRenderNode *backdrop;
	/* the images drawn into, in turn: a new one each frame costs 6.4 MB of
	 * zeroed pages at 1600x1000; the node of the one before last is gone when
	 * one is drawn again (if not, cairo copies it for the node first) */
	cairo_surface_t *images[2];
	unsigned image_i;

	/* hover and selection, drawn over the backdrop */
	gboolean hover;
	graphene_rect_t hover_rect;
	gboolean has_sel;
	double sel0, sel1;
	guint64 selected_id;
	gboolean selected_visible;
	graphene_rect_t selected_rect;

	int drag_mode;
	double drag_x, drag_y, drag_v0, drag_v1, drag_scroll;
	double zoom_span, zoom_anchor;
	double pointer_x;

	double layout_ms, render_ms, snapshot_ms;
	gboolean first_frame_done;
	gboolean drawn; /* test mode: drawn in this frame */

	GtkEventController *scroll, *drag, *click, *motion, *key, *zoom;
};

G_DEFINE_TYPE(RspCanvas, rsp_canvas, GTK_TYPE_WIDGET)

enum { SIG_ITEM_ACTIVATED, SIG_VIEW_CHANGED, SIG_SELECTION_CHANGED, SIG_FIRST_FRAME, N_SIGS };
static guint signals[N_SIGS];

/* ---- geometry ---------------------------------------------------------------------------- */

static int left_px(RspCanvas *c)
{
	return c->ops && c->ops->left ? c->ops->left(c->data) : 0;
}

static double scale_of(RspCanvas *c)
{
	double cw = c->v.width - left_px(c), span = c->v.x1 - c->v.x0;

	return cw > 0 && span > 0 ? cw / span : 1;
}

double rsp_canvas_x_to_px(RspCanvas *c, double x)
{
	return left_px(c) + (x - c->v.x0) * scale_of(c);
}

static double px_to_x(RspCanvas *c, double px)
{
	return c->v.x0 + (px - left_px(c)) / scale_of(c);
}

double rsp_canvas_content_y_to_px(RspCanvas *c, double y)
{
	return RSP_RULER_H + y - c->v.scroll_y;
}

static void extent(RspCanvas *c, double *e0, double *e1)
{
	*e0 = 0;
	*e1 = 1;
	if (c->ops)
		c->ops->extent(c->data, c->state, e0, e1);
	if (!(*e1 > *e0))
		*e1 = *e0 + 1;
}

static void clamp_view(RspCanvas *c)
{
	double e0, e1, span = c->v.x1 - c->v.x0, ext, ch, max_y;

	extent(c, &e0, &e1);
	ext = e1 - e0;
	if (!(span >= MIN_SPAN))
		span = MIN_SPAN;
	if (span > ext * 1.5)
		span = ext * 1.5;
	if (span < MIN_SPAN && ext >= MIN_SPAN)
		span = MIN_SPAN;
	if (c->v.x0 < e0 - span * 0.25)
		c->v.x0 = e0 - span * 0.25;
	if (c->v.x0 + span > e1 + span * 0.25)
		c->v.x0 = e1 + span * 0.25 - span;
	c->v.x1 = c->v.x0 + span;
	ch = c->ops ? c->ops->content_height(c->data, c->state) : 0;
	max_y = ch - (c->v.height - RSP_RULER_H);
	if (c->v.scroll_y > max_y)
		c->v.scroll_y = max_y;
	if (c->v.scroll_y < 0)
		c->v.scroll_y = 0;
}

/* ---- layout and rendering, off the draw callback --------------------------------------------- */

static void render(RspCanvas *c)
{
	int scale = gtk_widget_get_scale_factor(GTK_WIDGET(c));
	int w = c->v.width, h = c->v.height;
	cairo_surface_t *s;
	cairo_t *cr;
	gint64 t0 = g_get_monotonic_time();

	g_clear_pointer(&c->backdrop, gsk_render_node_unref);
	if (w <= 0 || h <= 0 || !c->ops)
		return;
	c->image_i ^= 1;
	s = c->images[c->image_i];
	if (!s || cairo_image_surface_get_width(s) != w * scale ||
	    cairo_image_surface_get_height(s) != h * scale) {
		if (s)
			cairo_surface_destroy(s);
		s = c->images[c->image_i] =
		    cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w * scale, h * scale);
		cairo_surface_set_device_scale(s, scale, scale);
	}
	/* the layout paints every pixel (its white first) */
	cr = cairo_create(s);
	rsp_layout_draw(&c->layout, c->ops, c->data, &c->v, cr);
	cairo_destroy(cr);
	cairo_surface_flush(s);
	c->backdrop = gsk_cairo_node_new(&GRAPHENE_RECT_INIT(0, 0, w, h));
	cr = gsk_cairo_node_get_draw_context(c->backdrop);
	cairo_set_source_surface(cr, s, 0, 0);
	cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE);
	cairo_paint(cr);
	cairo_destroy(cr);
	c->render_ms = (g_get_monotonic_time() - t0) / 1000.0;
}

static void find_selected(RspCanvas *c)
{
	double dx, dy;

	c->selected_visible = FALSE;
	if (!c->selected_id || !c->layout.valid)
		return;
	rsp_layout_offsets(&c->layout, c->ops, c->data, &c->v, &dx, &dy);
	for (size_t i = 0; i < rsp_scene_n_items(c->layout.content); i++) {
		const struct rsp_scene_item *it = rsp_scene_item(c->layout.content, i);

		if (it->id == c->selected_id) {
			graphene_rect_init(&c->selected_rect, it->x + dx, it->y + dy, it->w, it->h);
			c->selected_visible = TRUE;
			return;
		}
	}
}

static void rebuild(RspCanvas *c)
{
	gint64 t0 = g_get_monotonic_time();

	if (!c->ops || c->v.width <= 0 || c->v.height <= 0)
		return;
	clamp_view(c);
	c->layout_ms = 0;
	if (rsp_layout_update(&c->layout, c->ops, c->data, c->state, &c->v, c->force_layout))
		c->layout_ms = (g_get_monotonic_time() - t0) / 1000.0;
	c->need_layout = c->force_layout = FALSE;
	find_selected(c);
	render(c);
	c->hover = FALSE;
	gtk_widget_queue_draw(GTK_WIDGET(c));
	rsp_testlog("REBUILD %.2f ms (layout %.2f ms, render %.2f ms, %zu items)",
		    (g_get_monotonic_time() - t0) / 1000.0, c->layout_ms, c->render_ms,
		    rsp_scene_n_items(c->layout.content));
}

static gboolean tick(GtkWidget *w, GdkFrameClock *clock, gpointer unused)
{
	RspCanvas *c = RSP_CANVAS(w);

	c->tick_id = 0;
	if (c->need_layout)
		rebuild(c);
	return G_SOURCE_REMOVE;
}

/* The view moved or changed: lay out and render before the next frame. */
static void schedule(RspCanvas *c, gboolean force)
{
	c->need_layout = TRUE;
	c->force_layout |= force;
	if (!c->tick_id && gtk_widget_get_realized(GTK_WIDGET(c)))
		c->tick_id = gtk_widget_add_tick_callback(GTK_WIDGET(c), tick, NULL, NULL);
	gtk_widget_queue_draw(GTK_WIDGET(c));
}

static void view_changed(RspCanvas *c)
{
	rsp_testlog("SPAN %.0f %.0f", c->v.x1 - c->v.x0, c->v.x0);
	schedule(c, FALSE);
	g_signal_emit(c, signals[SIG_VIEW_CHANGED], 0);
}

void rsp_canvas_flush(RspCanvas *c)
{
	if (c->need_layout)
		rebuild(c);
}

void rsp_canvas_invalidate(RspCanvas *c)
{
	schedule(c, TRUE);
}

static void fit(RspCanvas *c)
{
	double e0, e1, m;

	extent(c, &e0, &e1);
	m = (e1 - e0) * 0.005;
	c->v.x0 = e0 - m;
	c->v.x1 = e1 + m;
	c->v.scroll_y = c->ops && c->ops->home_y
			    ? c->ops->home_y(c->data, c->state, c->v.height - RSP_RULER_H)
			    : 0;
	clamp_view(c);
}

void rsp_canvas_set_view(RspCanvas *c, const struct rsp_view_ops *ops, const void *data,
			 const void *state)
{
	c->ops = ops;
	c->data = data;
	c->state = state;
	c->layout.valid = FALSE;
	c->fitted = FALSE;
	c->has_sel = FALSE;
	c->selected_id = 0;
	if (c->v.width > 0) {
		fit(c);
		c->fitted = TRUE;
	}
	schedule(c, TRUE);
}

void rsp_canvas_set_document(RspCanvas *c, RspDocument *doc)
{
	g_set_object(&c->doc, doc);
}

/* ---- navigation --------------------------------------------------------------------------- */

void rsp_canvas_zoom(RspCanvas *c, double factor, double anchor_px)
{
	double a, span = c->v.x1 - c->v.x0, ns;

	if (!(factor > 0))
		return;
	if (!isfinite(anchor_px) || anchor_px < left_px(c) || anchor_px > c->v.width)
		anchor_px = left_px(c) + (c->v.width - left_px(c)) / 2.0;
	a = px_to_x(c, anchor_px);
	ns = span / factor;
	if (ns < MIN_SPAN)
		ns = MIN_SPAN;
	c->v.x0 = a - (a - c->v.x0) * ns / span;
	c->v.x1 = c->v.x0 + ns;
	clamp_view(c);
	view_changed(c);
}

void rsp_canvas_pan(RspCanvas *c, double dx_px, double dy_px)
{
	double d = dx_px / scale_of(c);

	c->v.x0 += d;
	c->v.x1 += d;
	c->v.scroll_y += dy_px;
	clamp_view(c);
	view_changed(c);
}

void rsp_canvas_fit(RspCanvas *c)
{
	fit(c);
	view_changed(c);
}

void rsp_canvas_set_range(RspCanvas *c, double x0, double x1)
{
	if (!(x1 > x0))
		return;
	c->v.x0 = x0;
	c->v.x1 = x1;
	clamp_view(c);
	view_changed(c);
}

gboolean rsp_canvas_zoom_to_selection(RspCanvas *c)
{
	if (!c->has_sel || c->sel1 <= c->sel0)
		return FALSE;
	rsp_canvas_set_range(c, c->sel0, c->sel1);
	return TRUE;
}

const struct rsp_view *rsp_canvas_get_view(RspCanvas *c)
{
	return &c->v;
}

gboolean rsp_canvas_get_selection(RspCanvas *c, double *x0, double *x1)
{
	if (x0)
		*x0 = c->sel0;
	if (x1)
		*x1 = c->sel1;
	return c->has_sel;
}

void rsp_canvas_set_selection(RspCanvas *c, double x0, double x1)
{
	c->has_sel = x1 > x0;
	c->sel0 = x0;
	c->sel1 = x1;
	gtk_widget_queue_draw(GTK_WIDGET(c));
	g_signal_emit(c, signals[SIG_SELECTION_CHANGED], 0);
}

void rsp_canvas_clear_selection(RspCanvas *c)
{
	rsp_canvas_set_selection(c, 0, 0);
}

void rsp_canvas_set_selected_id(RspCanvas *c, guint64 id)
{
	c->selected_id = id;
	find_selected(c);
	gtk_widget_queue_draw(GTK_WIDGET(c));
}

const struct rsp_scene_item *rsp_canvas_hit(RspCanvas *c, double x, double y)
{
	if (!c->ops || !c->layout.valid)
		return NULL;
	return rsp_layout_hit(&c->layout, c->ops, c->data, &c->v, x, y, NULL);
}

const struct rsp_layout *rsp_canvas_get_layout(RspCanvas *c)
{
	return &c->layout;
}

void rsp_canvas_get_timings(RspCanvas *c, double *layout_ms, double *render_ms, double *snapshot_ms)
{
	if (layout_ms)
		*layout_ms = c->layout_ms;
	if (render_ms)
		*render_ms = c->render_ms;
	if (snapshot_ms)
		*snapshot_ms = c->snapshot_ms;
}

char *rsp_canvas_dup_title(RspCanvas *c, const struct rsp_scene_item *it)
{
	GString *s;
	const struct rsp_scene *scene;

	if (!it || !it->id)
		return NULL;
	scene = rsp_scene_owns(c->layout.chrome, it) ? c->layout.chrome : c->layout.content;
	if (c->doc && !rsp_document_try_lock(c->doc))
		return g_strdup("(busy: the recording is being analysed; try again in a moment)");
	s = g_string_new(NULL);
	rsp_scene_title(scene, it, s);
	if (c->doc)
		rsp_document_unlock(c->doc);
	if (!s->len) {
		g_string_free(s, TRUE);
		return NULL;
	}
	return g_string_free(s, FALSE);
}

GtkEventController *rsp_canvas_get_controller(RspCanvas *c, const char *which)
{
	if (!strcmp(which, "scroll"))
		return c->scroll;
	if (!strcmp(which, "drag"))
		return c->drag;
	if (!strcmp(which, "click"))
		return c->click;
	if (!strcmp(which, "motion"))
		return c->motion;
	if (!strcmp(which, "key"))
		return c->key;
	if (!strcmp(which, "zoom"))
		return c->zoom;
	return NULL;
}

/* ---- export: the view as it is on screen ------------------------------------------------------
 */

gboolean rsp_canvas_export(RspCanvas *c, const char *path, GError **error)
{
	const char *ext = strrchr(path, '.');
	struct rsp_output_opts oo = { .by_name = TRUE, .suffix = ext };
	struct rsp_output *out;
	cairo_status_t st = CAIRO_STATUS_SUCCESS;
	const char *tmp;
	char err[512];
	int ret = 0;

	if (!c->ops || !c->layout.valid) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "nothing to export yet");
		return FALSE;
	}
	rsp_canvas_flush(c);
	if (!ext || (g_ascii_strcasecmp(ext, ".png") && g_ascii_strcasecmp(ext, ".svg") &&
		     g_ascii_strcasecmp(ext, ".pdf"))) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
			    "%s: give a file name ending in .png, .svg or .pdf", path);
		return FALSE;
	}
	/* drawn into a temporary file of the same type, renamed over @path when whole */
	ret = rsp_output_open(path, &oo, &out, err, sizeof(err));
	if (ret) {
		g_set_error(error, G_IO_ERROR, g_io_error_from_errno(-ret), "%s", err);
		return FALSE;
	}
	tmp = rsp_output_get_path(out);
	if (!g_ascii_strcasecmp(ext, ".svg")) {
		FILE *f = fopen(tmp, "w");

		if (!f) {
			ret = -errno;
		} else if (c->doc && !rsp_document_try_lock(c->doc)) {
			fclose(f);
			rsp_output_abort(out);
			g_set_error(error, G_IO_ERROR, G_IO_ERROR_BUSY,
				    "the recording is being analysed: export again in a moment");
			return FALSE;
		} else {
			ret = rsp_layout_write_svg(&c->layout, c->ops, c->data, &c->v, f,
						   c->ops->name) ?
				      -EIO :
				      0;
			if (c->doc)
				rsp_document_unlock(c->doc);
			if (fclose(f) && !ret)
				ret = -errno;
		}
	} else {
		cairo_surface_t *s =
		    !g_ascii_strcasecmp(ext, ".png")
			? cairo_image_surface_create(CAIRO_FORMAT_RGB24, c->v.width, c->v.height)
			: cairo_pdf_surface_create(tmp, c->v.width, c->v.height);
		cairo_t *cr = cairo_create(s);

		rsp_layout_draw(&c->layout, c->ops, c->data, &c->v, cr);
		st = cairo_status(cr);
		cairo_destroy(cr);
		if (!st && !g_ascii_strcasecmp(ext, ".png"))
			st = cairo_surface_write_to_png(s, tmp);
		cairo_surface_finish(s);
		if (!st)
			st = cairo_surface_status(s);
		cairo_surface_destroy(s);
		ret = st == CAIRO_STATUS_SUCCESS ? 0 : -EIO;
	}
	if (ret) {
		/* cairo says only "write error": the file-size limit or a full disk told */
		rsp_output_error(err, sizeof(err), path, rsp_output_diagnose(out, ret));
		rsp_output_abort(out);
	} else {
		ret = rsp_output_commit(out, err, sizeof(err));
	}
	if (ret)
		g_set_error(error, G_IO_ERROR, g_io_error_from_errno(-ret), "%s", err);
	return ret == 0;
}

/* ---- input -------------------------------------------------------------------------------------
 */

static GdkModifierType current_state(GtkEventController *ec)
{
	/* signals emitted by tests come without an event */
	return gtk_event_controller_get_current_event(ec)
		   ? gtk_event_controller_get_current_event_state(ec)
		   : 0;
}

static gboolean on_scroll(GtkEventControllerScroll *ec, double dx, double dy, RspCanvas *c)
{
	GdkModifierType st = current_state(GTK_EVENT_CONTROLLER(ec));

	if (st & GDK_CONTROL_MASK) {
		/* at the pointer, as the motion controller last saw it (scroll
		 * events do not all carry a position) */
		rsp_canvas_zoom(c, pow(1.25, -dy), c->pointer_x);
	} else if (st & GDK_SHIFT_MASK) {
		rsp_canvas_pan(c, dy * SCROLL_STEP, 0);
	} else {
		rsp_canvas_pan(c, dx * SCROLL_STEP, dy * SCROLL_STEP);
	}
	return TRUE;
}

static void on_motion(GtkEventControllerMotion *ec, double x, double y, RspCanvas *c)
{
	const struct rsp_scene_item *it;
	double dx = 0, dy = 0;
	gboolean was = c->hover;
	graphene_rect_t old = c->hover_rect;

	c->pointer_x = x;
	it = rsp_canvas_hit(c, x, y);
	c->hover = FALSE;
	if (it && it->prim != RSP_PRIM_TEXT) {
		const struct rsp_scene *scene = NULL;

		rsp_layout_hit(&c->layout, c->ops, c->data, &c->v, x, y, &scene);
		if (scene == c->layout.content)
			rsp_layout_offsets(&c->layout, c->ops, c->data, &c->v, &dx, &dy);
		graphene_rect_init(&c->hover_rect, it->x + dx, it->y + dy, it->w, it->h);
		c->hover = TRUE;
	}
	if (was != c->hover || (c->hover && !graphene_rect_equal(&old, &c->hover_rect)))
		gtk_widget_queue_draw(GTK_WIDGET(c));
}

static void on_leave(GtkEventControllerMotion *ec, RspCanvas *c)
{
	if (c->hover) {
		c->hover = FALSE;
		gtk_widget_queue_draw(GTK_WIDGET(c));
	}
}

static void on_drag_begin(GtkGestureDrag *g, double x, double y, RspCanvas *c)
{
	GdkModifierType st = current_state(GTK_EVENT_CONTROLLER(g));

	c->drag_x = x;
	c->drag_y = y;
	c->drag_v0 = c->v.x0;
	c->drag_v1 = c->v.x1;
	c->drag_scroll = c->v.scroll_y;
	c->drag_mode = (st & GDK_SHIFT_MASK) || y < RSP_RULER_H ? DRAG_SELECT : DRAG_PAN;
	if (c->drag_mode == DRAG_PAN && x < left_px(c))
		c->drag_mode = DRAG_NONE; /* the row names: clicks only */
}

static void on_drag_update(GtkGestureDrag *g, double dx, double dy, RspCanvas *c)
{
	if (c->drag_mode == DRAG_PAN) {
		double d = dx / scale_of(c);

		if (fabs(dx) < 3 && fabs(dy) < 3 && c->v.x0 == c->drag_v0)
			return; /* a click, not yet a drag */
		gtk_widget_set_cursor_from_name(GTK_WIDGET(c), "grabbing");
		c->v.x0 = c->drag_v0 - d;
		c->v.x1 = c->drag_v1 - d;
		c->v.scroll_y = c->drag_scroll - dy;
		clamp_view(c);
		view_changed(c);
	} else if (c->drag_mode == DRAG_SELECT) {
		double a = px_to_x(c, fmax(left_px(c), c->drag_x));
		double b = px_to_x(c, fmax(left_px(c), c->drag_x + dx));

		c->has_sel = TRUE;
		c->sel0 = fmin(a, b);
		c->sel1 = fmax(a, b);
		gtk_widget_queue_draw(GTK_WIDGET(c));
	}
}

static void on_drag_end(GtkGestureDrag *g, double dx, double dy, RspCanvas *c)
{
	gtk_widget_set_cursor(GTK_WIDGET(c), NULL);
	if (c->drag_mode == DRAG_SELECT) {
		if (fabs(dx) < 3)
			c->has_sel = FALSE;
		gtk_widget_queue_draw(GTK_WIDGET(c));
		g_signal_emit(c, signals[SIG_SELECTION_CHANGED], 0);
	}
	c->drag_mode = DRAG_NONE;
}

static void on_pressed(GtkGestureClick *g, int n_press, double x, double y, RspCanvas *c)
{
	const struct rsp_scene_item *it = rsp_canvas_hit(c, x, y);

	gtk_widget_grab_focus(GTK_WIDGET(c));
	if (it && it->id)
		g_signal_emit(c, signals[SIG_ITEM_ACTIVATED], 0, (guint64)it->id, n_press, x, y);
}

static void on_zoom_begin(GtkGesture *g, GdkEventSequence *seq, RspCanvas *c)
{
	double x, y;

	c->zoom_span = c->v.x1 - c->v.x0;
	if (!gtk_gesture_is_active(g) || !gtk_gesture_get_bounding_box_center(g, &x, &y))
		x = c->v.width / 2.0;
	c->zoom_anchor = px_to_x(c, x);
}

static void on_zoom_scale(GtkGestureZoom *g, double scale, RspCanvas *c)
{
	double span, frac;

	if (!(scale > 0) || !(c->zoom_span > 0))
		return;
	span = c->zoom_span / scale;
	frac = (c->zoom_anchor - c->v.x0) / (c->v.x1 - c->v.x0);
	c->v.x0 = c->zoom_anchor - frac * span;
	c->v.x1 = c->v.x0 + span;
	clamp_view(c);
	view_changed(c);
}

static gboolean on_key(GtkEventControllerKey *k, guint keyval, guint keycode, GdkModifierType state,
		       RspCanvas *c)
{
	double w = c->v.width - left_px(c);

	if (state & (GDK_CONTROL_MASK | GDK_ALT_MASK))
		return FALSE; /* the window's shortcuts */
	switch (keyval) {
	case GDK_KEY_plus:
	case GDK_KEY_equal:
	case GDK_KEY_KP_Add:
		rsp_canvas_zoom(c, 1.5, -1);
		return TRUE;
	case GDK_KEY_minus:
	case GDK_KEY_KP_Subtract:
		rsp_canvas_zoom(c, 1 / 1.5, -1);
		return TRUE;
	case GDK_KEY_Left:
		rsp_canvas_pan(c, -w / 8, 0);
		return TRUE;
	case GDK_KEY_Right:
		rsp_canvas_pan(c, w / 8, 0);
		return TRUE;
	case GDK_KEY_Up:
		rsp_canvas_pan(c, 0, -SCROLL_STEP);
		return TRUE;
	case GDK_KEY_Down:
		rsp_canvas_pan(c, 0, SCROLL_STEP);
		return TRUE;
	case GDK_KEY_Page_Up:
		rsp_canvas_pan(c, 0, -(c->v.height - RSP_RULER_H) * 0.9);
		return TRUE;
	case GDK_KEY_Page_Down:
		rsp_canvas_pan(c, 0, (c->v.height - RSP_RULER_H) * 0.9);
		return TRUE;
	case GDK_KEY_Home:
	case GDK_KEY_0:
		rsp_canvas_fit(c);
		return TRUE;
	case GDK_KEY_z:
	case GDK_KEY_Z:
		rsp_canvas_zoom_to_selection(c);
		return TRUE;
	case GDK_KEY_Escape:
		if (c->has_sel) {
			rsp_canvas_clear_selection(c);
			return TRUE;
		}
		return FALSE;
	default:
		return FALSE;
	}
}

static gboolean on_query_tooltip(GtkWidget *w, int x, int y, gboolean keyboard, GtkTooltip *tip,
				 gpointer unused)
{
	RspCanvas *c = RSP_CANVAS(w);
	const struct rsp_scene_item *it = rsp_canvas_hit(c, x, y);
	char *text;

	if (!it)
		return FALSE;
	text = rsp_canvas_dup_title(c, it);
	if (!text)
		return FALSE;
	gtk_tooltip_set_text(tip, text);
	g_free(text);
	return TRUE;
}

/* ---- GtkWidget ------------------------------------------------------------------------------- */

/* test mode: when the frame clock's paint phase began (an emission hook runs before handlers) */
static gint64 paint_started;

static gboolean paint_hook(GSignalInvocationHint *hint, guint n, const GValue *params, gpointer d)
{
	paint_started = g_get_monotonic_time();
	return TRUE;
}

static void after_paint(GdkFrameClock *clock, RspCanvas *c)
{
	/* test mode: how long painting the frames that drew this canvas took */
	if (c->drawn) {
		rsp_testlog("PAINT %.2f ms (snapshot %.3f ms)%s",
			    (g_get_monotonic_time() - paint_started) / 1000.0, c->snapshot_ms,
			    c->hover ? " hover" : "");
		c->drawn = FALSE;
	}
	if (c->first_frame_done || !c->backdrop)
		return;
	c->first_frame_done = TRUE;
	if (rsp_testlog_enabled()) {
		/* test mode: where the view is in the window, for scripts to drag on its ruler */
		GtkNative *native = gtk_widget_get_native(GTK_WIDGET(c));
		graphene_point_t o = GRAPHENE_POINT_INIT(0, 0), out;
		double tx = 0, ty = 0;

		if (!native || !gtk_widget_compute_point(GTK_WIDGET(c), GTK_WIDGET(native), &o, &out))
			out = o;
		if (native)
			gtk_native_get_surface_transform(native, &tx, &ty);
		rsp_testlog("CANVAS %.0f %.0f %d %d", out.x + tx, out.y + ty,
			    gtk_widget_get_width(GTK_WIDGET(c)), gtk_widget_get_height(GTK_WIDGET(c)));
	}
	if (!rsp_testlog_enabled())
		g_signal_handlers_disconnect_by_func(clock, after_paint, c);
	g_signal_emit(c, signals[SIG_FIRST_FRAME], 0);
}

static void rsp_canvas_snapshot(GtkWidget *w, GtkSnapshot *s)
{
	RspCanvas *c = RSP_CANVAS(w);
	gint64 t0 = g_get_monotonic_time();
	int width = gtk_widget_get_width(w), height = gtk_widget_get_height(w);
	graphene_rect_t all = GRAPHENE_RECT_INIT(0, 0, width, height);

	if (!c->backdrop) {
		GdkRGBA white = {1, 1, 1, 1};

		gtk_snapshot_append_color(s, &white, &all);
		return;
	}
	gtk_snapshot_append_node(s, c->backdrop);
	if (c->selected_visible) {
		GdkRGBA col = {0, 0, 0, 1};
		float bw[4] = {2, 2, 2, 2};
		GdkRGBA cols[4] = {col, col, col, col};
		GskRoundedRect rr;

		gsk_rounded_rect_init_from_rect(&rr, &c->selected_rect, 0);
		gtk_snapshot_append_border(s, &rr, bw, cols);
	}
	if (c->hover) {
		GdkRGBA col = {0.1, 0.1, 0.1, 0.9};
		float bw[4] = {1, 1, 1, 1};
		GdkRGBA cols[4] = {col, col, col, col};
		GskRoundedRect rr;

		gsk_rounded_rect_init_from_rect(&rr, &c->hover_rect, 0);
		gtk_snapshot_append_border(s, &rr, bw, cols);
	}
	if (c->has_sel) {
		double a = fmax(left_px(c), rsp_canvas_x_to_px(c, c->sel0));
		double b = fmin(width, rsp_canvas_x_to_px(c, c->sel1));
		GdkRGBA fill = {0.25, 0.45, 1.0, 0.18}, edge = {0.15, 0.3, 0.9, 0.9};
		GdkRGBA black = {0, 0, 0, 1}, bg = {1, 1, 1, 0.9};
		char buf[64];
		PangoLayout *pl;
		int tw, th;

		if (b < a)
			b = a;
		gtk_snapshot_append_color(s, &fill, &GRAPHENE_RECT_INIT(a, 0, b - a, height));
		gtk_snapshot_append_color(s, &edge, &GRAPHENE_RECT_INIT(a, 0, 1, height));
		gtk_snapshot_append_color(s, &edge, &GRAPHENE_RECT_INIT(b - 1, 0, 1, height));
		rsp_format_duration(buf, sizeof(buf), c->sel1 - c->sel0);
		pl = gtk_widget_create_pango_layout(w, buf);
		pango_layout_get_pixel_size(pl, &tw, &th);
		gtk_snapshot_append_color(s, &bg,
					  &GRAPHENE_RECT_INIT((a + b) / 2 - tw / 2.0 - 3,
							      RSP_RULER_H + 2, tw + 6, th + 2));
		gtk_snapshot_save(s);
		gtk_snapshot_translate(
		    s, &GRAPHENE_POINT_INIT((a + b) / 2 - tw / 2.0, RSP_RULER_H + 3));
		gtk_snapshot_append_layout(s, pl, &black);
		gtk_snapshot_restore(s);
		g_object_unref(pl);
	}
	c->snapshot_ms = (g_get_monotonic_time() - t0) / 1000.0;
	c->drawn = TRUE;
}

static void rsp_canvas_size_allocate(GtkWidget *w, int width, int height, int baseline)
{
	RspCanvas *c = RSP_CANVAS(w);

	if (width == c->v.width && height == c->v.height && c->backdrop)
		return;
	c->v.width = width;
	c->v.height = height;
	if (c->ops && !c->fitted) {
		fit(c);
		c->fitted = TRUE;
	}
	/* not a draw callback: lay out now so that the first frame has content */
	c->need_layout = TRUE;
	rebuild(c);
}

static void rsp_canvas_measure(GtkWidget *w, GtkOrientation o, int for_size, int *min, int *nat,
			       int *min_base, int *nat_base)
{
	*min = 100;
	*nat = o == GTK_ORIENTATION_HORIZONTAL ? 900 : 500;
}

static void rsp_canvas_realize(GtkWidget *w)
{
	RspCanvas *c = RSP_CANVAS(w);

	GTK_WIDGET_CLASS(rsp_canvas_parent_class)->realize(w);
	g_signal_connect(gtk_widget_get_frame_clock(w), "after-paint", G_CALLBACK(after_paint), c);
	if (rsp_testlog_enabled()) {
		static gsize hooked;

		if (g_once_init_enter(&hooked))
			g_once_init_leave(&hooked,
					  g_signal_add_emission_hook(
					      g_signal_lookup("paint", GDK_TYPE_FRAME_CLOCK), 0,
					      paint_hook, NULL, NULL));
	}
	if (c->need_layout && !c->tick_id)
		c->tick_id = gtk_widget_add_tick_callback(w, tick, NULL, NULL);
}

static void rsp_canvas_unrealize(GtkWidget *w)
{
	RspCanvas *c = RSP_CANVAS(w);

	g_signal_handlers_disconnect_by_func(gtk_widget_get_frame_clock(w), after_paint, c);
	if (c->tick_id) {
		gtk_widget_remove_tick_callback(w, c->tick_id);
		c->tick_id = 0;
	}
	GTK_WIDGET_CLASS(rsp_canvas_parent_class)->unrealize(w);
}

static void rsp_canvas_dispose(GObject *obj)
{
	RspCanvas *c = RSP_CANVAS(obj);

	g_clear_pointer(&c->backdrop, gsk_render_node_unref);
	g_clear_pointer(&c->images[0], cairo_surface_destroy);
	g_clear_pointer(&c->images[1], cairo_surface_destroy);
	g_clear_object(&c->doc);
	G_OBJECT_CLASS(rsp_canvas_parent_class)->dispose(obj);
}

static void rsp_canvas_finalize(GObject *obj)
{
	RspCanvas *c = RSP_CANVAS(obj);

	rsp_layout_clear(&c->layout);
	G_OBJECT_CLASS(rsp_canvas_parent_class)->finalize(obj);
}

static void rsp_canvas_class_init(RspCanvasClass *klass)
{
	GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);

	G_OBJECT_CLASS(klass)->dispose = rsp_canvas_dispose;
	G_OBJECT_CLASS(klass)->finalize = rsp_canvas_finalize;
	wc->snapshot = rsp_canvas_snapshot;
	wc->size_allocate = rsp_canvas_size_allocate;
	wc->measure = rsp_canvas_measure;
	wc->realize = rsp_canvas_realize;
	wc->unrealize = rsp_canvas_unrealize;
	signals[SIG_ITEM_ACTIVATED] = g_signal_new(
	    "item-activated", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
	    G_TYPE_NONE, 4, G_TYPE_UINT64, G_TYPE_INT, G_TYPE_DOUBLE, G_TYPE_DOUBLE);
	signals[SIG_VIEW_CHANGED] =
	    g_signal_new("view-changed", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
			 NULL, G_TYPE_NONE, 0);
	signals[SIG_SELECTION_CHANGED] =
	    g_signal_new("selection-changed", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL,
			 NULL, NULL, G_TYPE_NONE, 0);
	signals[SIG_FIRST_FRAME] =
	    g_signal_new("first-frame", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
			 NULL, G_TYPE_NONE, 0);
	gtk_widget_class_set_css_name(wc, "rsp-canvas");
}

static void rsp_canvas_init(RspCanvas *c)
{
	GtkWidget *w = GTK_WIDGET(c);

	rsp_layout_init(&c->layout);
	gtk_widget_set_focusable(w, TRUE);
	gtk_widget_set_hexpand(w, TRUE);
	gtk_widget_set_vexpand(w, TRUE);
	gtk_widget_set_has_tooltip(w, TRUE);
	g_signal_connect(w, "query-tooltip", G_CALLBACK(on_query_tooltip), NULL);

	c->scroll = gtk_event_controller_scroll_new(GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES);
	g_signal_connect(c->scroll, "scroll", G_CALLBACK(on_scroll), c);
	gtk_widget_add_controller(w, c->scroll);

	c->motion = gtk_event_controller_motion_new();
	g_signal_connect(c->motion, "motion", G_CALLBACK(on_motion), c);
	g_signal_connect(c->motion, "leave", G_CALLBACK(on_leave), c);
	gtk_widget_add_controller(w, c->motion);

	c->drag = GTK_EVENT_CONTROLLER(gtk_gesture_drag_new());
	gtk_gesture_single_set_button(GTK_GESTURE_SINGLE(c->drag), GDK_BUTTON_PRIMARY);
	g_signal_connect(c->drag, "drag-begin", G_CALLBACK(on_drag_begin), c);
	g_signal_connect(c->drag, "drag-update", G_CALLBACK(on_drag_update), c);
	g_signal_connect(c->drag, "drag-end", G_CALLBACK(on_drag_end), c);
	gtk_widget_add_controller(w, c->drag);

	c->click = GTK_EVENT_CONTROLLER(gtk_gesture_click_new());
	gtk_gesture_single_set_button(GTK_GESTURE_SINGLE(c->click), GDK_BUTTON_PRIMARY);
	g_signal_connect(c->click, "pressed", G_CALLBACK(on_pressed), c);
	gtk_widget_add_controller(w, c->click);

	c->zoom = GTK_EVENT_CONTROLLER(gtk_gesture_zoom_new());
	g_signal_connect(c->zoom, "begin", G_CALLBACK(on_zoom_begin), c);
	g_signal_connect(c->zoom, "scale-changed", G_CALLBACK(on_zoom_scale), c);
	gtk_widget_add_controller(w, c->zoom);

	c->key = gtk_event_controller_key_new();
	g_signal_connect(c->key, "key-pressed", G_CALLBACK(on_key), c);
	gtk_widget_add_controller(w, c->key);
}

GtkWidget *rsp_canvas_new(void)
{
	return g_object_new(RSP_TYPE_CANVAS, NULL);
}
