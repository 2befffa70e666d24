/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Boxes on the pixel grid written straight into an image surface.
 *
 * A busy recording's running view draws tens of thousands of boxes a frame,
 * every one on whole pixels (the layouts round): through cairo each is a path
 * of four edges, its fill a sort and a sweep of every box of the run; 650 ns a
 * box on a recording of `bench/saturate.sh build 60 churn` (bench/viewer/viewer.sh),
 * 5-6 ms a frame, and as much again for the links' columns of pixels.  Written here, a box is its rows of pixels.
 *
 * Only where the result is cairo's own, pixel for pixel: an ARGB32 or RGB24
 * image, a transformation that is a whole-pixel translation (a device scale
 * of a whole number of pixels allowed), a clip that is one rectangle, a box
 * with whole-pixel edges, and a colour that cairo paints opaque (its pixel
 * value asked of cairo itself, on a one-pixel surface of the same format).
 * Anything else is drawn by cairo; test /render/scene/direct compares both
 * ways on random scenes, byte for byte.
 */
#include "render-private.h"

#include <math.h>
#include <string.h>

/* What cairo paints for @cls, as a pixel of @fmt. */
static uint32_t painted(cairo_format_t fmt, uint8_t cls, bool dim)
{
	cairo_surface_t *one = cairo_image_surface_create(fmt, 1, 1);
	cairo_t *cr = cairo_create(one);
	uint32_t v = 0;

	rsp_palette_set_source(cr, cls, dim);
	cairo_paint(cr);
	cairo_destroy(cr);
	cairo_surface_flush(one);
	if (cairo_surface_status(one) == CAIRO_STATUS_SUCCESS)
		memcpy(&v, cairo_image_surface_get_data(one), sizeof(v));
	cairo_surface_destroy(one);
	return v;
}

/* The pixel cairo paints for @cls on the target; false if not opaque. */
static bool probe(struct _rsp_direct *d, uint8_t cls, bool dim, uint32_t *px)
{
	uint8_t *known = &d->known[cls][dim];

	if (!*known) {
		/* opaque: over anything, the colour itself (asked of an ARGB32 pixel) */
		uint32_t argb = painted(CAIRO_FORMAT_ARGB32, cls, dim);

		d->pixel[cls][dim] =
		    d->fmt == CAIRO_FORMAT_ARGB32 ? argb : painted(d->fmt, cls, dim);
		*known = (argb >> 24) == 0xff ? 1 : 2;
	}
	*px = d->pixel[cls][dim];
	return *known == 1;
}

static bool whole(double v)
{
	return v == floor(v) && fabs(v) < 1e7;
}

bool _rsp_direct_begin(struct _rsp_direct *d, cairo_t *cr)
{
	cairo_surface_t *s = cairo_get_target(cr);
	cairo_rectangle_list_t *cl;
	cairo_matrix_t m;
	double sx, sy, ox, oy;
	int w, h;
	bool ok;

	memset(d, 0, sizeof(*d));
	if (cairo_surface_get_type(s) != CAIRO_SURFACE_TYPE_IMAGE || cairo_surface_status(s))
		return false;
	d->fmt = cairo_image_surface_get_format(s);
	if (d->fmt != CAIRO_FORMAT_ARGB32 && d->fmt != CAIRO_FORMAT_RGB24)
		return false;
	cairo_surface_get_device_scale(s, &sx, &sy);
	cairo_surface_get_device_offset(s, &ox, &oy);
	cairo_get_matrix(cr, &m);
	if (sx != sy || sx < 1 || sx > 8 || !whole(sx) || ox != 0 || oy != 0 || m.xx != 1 ||
	    m.yy != 1 || m.xy != 0 || m.yx != 0 || !whole(m.x0) || !whole(m.y0))
		return false;
	d->scale = (int)sx;
	d->tx = (int)m.x0;
	d->ty = (int)m.y0;
	/* the clip, in user space: one rectangle (or none: all clipped) */
	cl = cairo_copy_clip_rectangle_list(cr);
	ok = cl->status == CAIRO_STATUS_SUCCESS && cl->num_rectangles <= 1;
	if (ok && cl->num_rectangles == 1) {
		const cairo_rectangle_t *r = &cl->rectangles[0];

		ok = whole(r->x) && whole(r->y) && whole(r->width) && whole(r->height);
		d->cx0 = ((int)r->x + d->tx) * d->scale;
		d->cy0 = ((int)r->y + d->ty) * d->scale;
		d->cx1 = ((int)(r->x + r->width) + d->tx) * d->scale;
		d->cy1 = ((int)(r->y + r->height) + d->ty) * d->scale;
	}
	cairo_rectangle_list_destroy(cl);
	if (!ok)
		return false;
	w = cairo_image_surface_get_width(s);
	h = cairo_image_surface_get_height(s);
	d->cx0 = d->cx0 < 0 ? 0 : d->cx0;
	d->cy0 = d->cy0 < 0 ? 0 : d->cy0;
	d->cx1 = d->cx1 > w ? w : d->cx1;
	d->cy1 = d->cy1 > h ? h : d->cy1;
	d->stride = cairo_image_surface_get_stride(s);
	d->surface = s;
	d->on = true;
	return true;
}

bool _rsp_direct_pixel(struct _rsp_direct *d, uint8_t cls, bool dim, uint32_t *px)
{
	return d->on && cls < RSP_CLS__COUNT && probe(d, cls, dim, px);
}

bool _rsp_direct_takes(struct _rsp_direct *d, double x, double y, double w, double h, uint8_t cls,
		       bool dim, uint32_t *px)
{
	return w > 0 && h > 0 && whole(x) && whole(y) && whole(w) && whole(h) &&
	       _rsp_direct_pixel(d, cls, dim, px);
}

void _rsp_direct_fill(struct _rsp_direct *d, double x, double y, double w, double h, uint32_t px)
{
	int x0 = ((int)x + d->tx) * d->scale, y0 = ((int)y + d->ty) * d->scale;
	int x1 = ((int)(x + w) + d->tx) * d->scale, y1 = ((int)(y + h) + d->ty) * d->scale;
	uint8_t *data;

	x0 = x0 < d->cx0 ? d->cx0 : x0;
	y0 = y0 < d->cy0 ? d->cy0 : y0;
	x1 = x1 > d->cx1 ? d->cx1 : x1;
	y1 = y1 > d->cy1 ? d->cy1 : y1;
	d->n_boxes++;
	if (x1 <= x0 || y1 <= y0)
		return;
	if (!d->mine) {
		/* cairo's drawing so far is in the pixels */
		cairo_surface_flush(d->surface);
		d->mine = true;
	}
	data = cairo_image_surface_get_data(d->surface);
	for (int r = y0; r < y1; r++) {
		uint32_t *row = (uint32_t *)(void *)(data + (size_t)r * d->stride);

		for (int c = x0; c < x1; c++)
			row[c] = px;
	}
}

void _rsp_direct_sync(struct _rsp_direct *d)
{
	if (d->on && d->mine) {
		/* cairo told that the pixels changed under it */
		cairo_surface_mark_dirty(d->surface);
		d->mine = false;
	}
}
