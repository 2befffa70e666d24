/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A zoomable view: draws one of the render library's views (rsp-views.h).
 * Zoom (Ctrl+scroll at the pointer, keys, pinch), pan (drag, scroll),
 * drag-select a time range (Shift+drag, or drag on the ruler), hover
 * tooltips, clicks on items.
 *
 * Drawing: the view is laid out and rendered into an image when the zoom,
 * the size or the view's state change (in the event handlers and once per
 * frame clock tick, never in the draw callback), kept as one render node; the
 * draw callback appends that node and draws the hover and the selection on
 * top, so that a hover or a selection frame repaints only what it changes
 * (GTK repaints the difference between a frame's nodes and the last one's).
 */
#ifndef RSP_CANVAS_H
#define RSP_CANVAS_H

#include "rsp-document.h"
#include "rsp-views.h"

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define RSP_TYPE_CANVAS (rsp_canvas_get_type())
G_DECLARE_FINAL_TYPE(RspCanvas, rsp_canvas, RSP, CANVAS, GtkWidget)

GtkWidget *rsp_canvas_new(void);
/* Show @data in @state (both outlive the canvas or the next call); fits the view. */
void rsp_canvas_set_view(RspCanvas *c, const struct rsp_view_ops *ops, const void *data,
			 const void *state);
/* Titles that read the model (the running view's) take @doc's lock. */
void rsp_canvas_set_document(RspCanvas *c, RspDocument *doc);
/* The state changed: lay out again (keeps the zoom). */
void rsp_canvas_invalidate(RspCanvas *c);
/* Lay out and render now what is pending (tests, exports). */
void rsp_canvas_flush(RspCanvas *c);

void rsp_canvas_zoom(RspCanvas *c, double factor, double anchor_x);
void rsp_canvas_pan(RspCanvas *c, double dx_px, double dy_px);
void rsp_canvas_fit(RspCanvas *c);
void rsp_canvas_set_range(RspCanvas *c, double x0, double x1);
gboolean rsp_canvas_zoom_to_selection(RspCanvas *c);
const struct rsp_view *rsp_canvas_get_view(RspCanvas *c);
gboolean rsp_canvas_get_selection(RspCanvas *c, double *x0, double *x1);
void rsp_canvas_set_selection(RspCanvas *c, double x0, double x1);
void rsp_canvas_clear_selection(RspCanvas *c);
/* Outline this item id (a clicked frame); 0: none. */
void rsp_canvas_set_selected_id(RspCanvas *c, guint64 id);
const struct rsp_scene_item *rsp_canvas_hit(RspCanvas *c, double x, double y);
const struct rsp_layout *rsp_canvas_get_layout(RspCanvas *c);
/* Where the content's x (view units) and content y are drawn, in widget px. */
double rsp_canvas_x_to_px(RspCanvas *c, double x);
double rsp_canvas_content_y_to_px(RspCanvas *c, double y);
/* The item's full text (the model's lock taken if needed); NULL if busy or none. */
char *rsp_canvas_dup_title(RspCanvas *c, const struct rsp_scene_item *it);
/* The view as it is on screen, to .png, .svg or .pdf. */
gboolean rsp_canvas_export(RspCanvas *c, const char *path, GError **error);
/* Milliseconds the last layout, render and draw took. */
void rsp_canvas_get_timings(RspCanvas *c, double *layout_ms, double *render_ms,
			    double *snapshot_ms);
/* Tests: "scroll", "drag", "click", "motion", "key", "zoom". */
GtkEventController *rsp_canvas_get_controller(RspCanvas *c, const char *which);

G_END_DECLS

#endif /* RSP_CANVAS_H */
