/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A view laid out for a zoom: the content scene covers a screen more on each
 * side than is visible, so pans and scrolls within it only move it; the
 * chrome (ruler, names) is laid out again each time, which costs nothing.
 */
#include "rsp-views.h"

#include <math.h>
#include <string.h>
#include <time.h>

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

void rsp_layout_init(struct rsp_layout *l)
{
	memset(l, 0, sizeof(*l));
	l->content = rsp_scene_new();
	l->chrome = rsp_scene_new();
}

void rsp_layout_clear(struct rsp_layout *l)
{
	rsp_scene_free(l->content);
	rsp_scene_free(l->chrome);
	memset(l, 0, sizeof(*l));
}

static void area(const struct rsp_view_ops *ops, const void *data, const struct rsp_view *v,
		 int *left, int *top, int *cw, int *ch)
{
	*left = ops->left ? ops->left(data) : 0;
	*top = RSP_RULER_H;
	*cw = v->width - *left;
	*ch = v->height - *top;
	if (*cw < 1)
		*cw = 1;
	if (*ch < 1)
		*ch = 1;
}

static void layout_title(const struct rsp_scene *s, const struct rsp_scene_item *it, GString *out,
			 void *ctx)
{
	const struct rsp_layout *l = ctx;

	if (l->ops && l->ops->title)
		l->ops->title(l->data, l->state, it, out);
	else if (it->label)
		g_string_append(out, it->label);
}

bool rsp_layout_update(struct rsp_layout *l, const struct rsp_view_ops *ops, const void *data,
		       const void *state, const struct rsp_view *v, bool force)
{
	int left, top, cw, ch;
	double scale, span = v->x1 - v->x0;
	bool again;
	double t0;

	area(ops, data, v, &left, &top, &cw, &ch);
	l->ops = ops;
	l->data = data;
	l->state = state;
	rsp_scene_set_title_fn(l->content, layout_title, l);
	rsp_scene_set_title_fn(l->chrome, layout_title, l);
	if (!(span > 0))
		span = 1;
	scale = cw / span;
	again = force || !l->valid || fabs(scale - l->scale) > 1e-9 * scale || v->x0 < l->xa ||
		v->x1 > l->xb || v->scroll_y < l->ya || v->scroll_y + ch > l->yb;
	if (again) {
		t0 = now_ms();
		l->lx0 = v->x0;
		l->scale = scale;
		/* half a screen more on each side: small pans and scrolls only
		 * move it; a wider margin costs every zoom more than it saves */
		l->xa = v->x0 - span / 2;
		l->xb = v->x1 + span / 2;
		l->ya = v->scroll_y - ch / 2.0 > 0 ? v->scroll_y - ch / 2.0 : 0;
		l->yb = v->scroll_y + 1.5 * ch;
		rsp_scene_clear(l->content);
		ops->content(data, state, l->lx0, l->scale, l->xa, l->xb, l->ya, l->yb, l->content);
		l->valid = true;
		l->content_ms = now_ms() - t0;
	}
	t0 = now_ms();
	rsp_scene_clear(l->chrome);
	ops->chrome(data, state, v, l->chrome);
	l->chrome_ms = now_ms() - t0;
	return again;
}

void rsp_layout_offsets(const struct rsp_layout *l, const struct rsp_view_ops *ops,
			const void *data, const struct rsp_view *v, double *dx, double *dy)
{
	int left, top, cw, ch;

	area(ops, data, v, &left, &top, &cw, &ch);
	/* whole pixels: the layout's boxes stay on the pixel grid, where cairo
	 * fills them without antialiasing (a pan by a fraction of a pixel made
	 * every box of a dense view a polygon to rasterize) */
	*dx = round(left + (l->lx0 - v->x0) * l->scale);
	*dy = round(top - v->scroll_y);
}

void rsp_layout_draw(const struct rsp_layout *l, const struct rsp_view_ops *ops, const void *data,
		     const struct rsp_view *v, cairo_t *cr)
{
	int left, top, cw, ch;
	double dx, dy;

	area(ops, data, v, &left, &top, &cw, &ch);
	rsp_layout_offsets(l, ops, data, v, &dx, &dy);
	cairo_save(cr);
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_rectangle(cr, 0, 0, v->width, v->height);
	cairo_fill(cr);
	if (l->valid) {
		cairo_save(cr);
		cairo_rectangle(cr, left, top, cw, ch);
		cairo_clip(cr);
		cairo_translate(cr, dx, dy);
		rsp_scene_draw(l->content, cr, left - dx, top - dy, left + cw - dx, top + ch - dy);
		cairo_restore(cr);
	}
	rsp_scene_draw(l->chrome, cr, 0, 0, v->width, v->height);
	cairo_restore(cr);
}

const struct rsp_scene_item *rsp_layout_hit(const struct rsp_layout *l,
					    const struct rsp_view_ops *ops, const void *data,
					    const struct rsp_view *v, double x, double y,
					    const struct rsp_scene **scene)
{
	int left, top, cw, ch;
	double dx, dy;
	ssize_t i;

	area(ops, data, v, &left, &top, &cw, &ch);
	i = rsp_scene_hit(l->chrome, x, y);
	if (i >= 0) {
		if (scene)
			*scene = l->chrome;
		return rsp_scene_item(l->chrome, (size_t)i);
	}
	if (!l->valid || x < left || y < top)
		return NULL;
	rsp_layout_offsets(l, ops, data, v, &dx, &dy);
	i = rsp_scene_hit(l->content, x - dx, y - dy);
	if (i < 0)
		return NULL;
	if (scene)
		*scene = l->content;
	return rsp_scene_item(l->content, (size_t)i);
}

int rsp_layout_write_svg(const struct rsp_layout *l, const struct rsp_view_ops *ops,
			 const void *data, const struct rsp_view *v, FILE *f, const char *title)
{
	int left, top, cw, ch;
	struct rsp_svg_layer layers[2];

	area(ops, data, v, &left, &top, &cw, &ch);
	memset(layers, 0, sizeof(layers));
	layers[0].scene = l->content;
	rsp_layout_offsets(l, ops, data, v, &layers[0].dx, &layers[0].dy);
	layers[0].clip_x = left;
	layers[0].clip_y = top;
	layers[0].clip_w = cw;
	layers[0].clip_h = ch;
	layers[1].scene = l->chrome;
	return rsp_scene_write_svg(f, v->width, v->height, title, layers, 2);
}

/* ---- the ruler ----------------------------------------------------------------------------- */

void rsp_ruler_layout(struct rsp_scene *out, double x0, double x1, double origin, int left,
		      int width)
{
	double span = x1 - x0, px = width - left, raw, step, unit, first;
	static const char *const names[] = {"ns", "\xc2\xb5s", "ms", "s"};
	int decimals, ui;
	char buf[64];

	rsp_scene_add(out, RSP_PRIM_RECT, RSP_CLS_RULER, 0, 0, width, RSP_RULER_H);
	rsp_scene_add(out, RSP_PRIM_LINE, RSP_CLS_SEPARATOR, 0, RSP_RULER_H - 0.5, width, 0);
	if (!(span > 0) || px < 10)
		return;
	raw = span * 110 / px;
	step = pow(10, floor(log10(raw)));
	if (step < 1)
		step = 1;
	if (step < raw)
		step *= 2;
	if (step < raw)
		step *= 2.5;
	if (step < raw)
		step *= 2;
	ui = step * 10 >= 1e9 ? 3 : step * 10 >= 1e6 ? 2 : step * 10 >= 1e3 ? 1 : 0;
	unit = pow(1000, ui);
	decimals = step / unit >= 1 ? 0 : (int)ceil(-log10(step / unit) - 1e-9);
	first = ceil((x0 - origin) / step) * step + origin;
	for (double t = first; t <= x1 && t >= first; t += step) {
		double x = left + (t - x0) / span * px;

		x = floor(x) + 0.5;
		rsp_scene_add(out, RSP_PRIM_LINE, RSP_CLS_TICK, x, RSP_RULER_H - 7, 0, 7);
		snprintf(buf, sizeof(buf), "%.*f %s", decimals, (t - origin) / unit, names[ui]);
		if (x + 3 + rsp_text_width(buf, strlen(buf)) < width)
			rsp_scene_add_text(out, RSP_CLS_TEXT, x + 3, 14, 0,
					   rsp_scene_strdup(out, buf), 0);
	}
}
