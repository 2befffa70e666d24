/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The scene: a flat list of primitives, drawn in four batched passes. */
#include "rsp-scene.h"

#include "render-private.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct rsp_scene {
	struct rsp_scene_item *v;
	size_t n, cap;
	size_t under; /* items [0, under) are drawn whole (every pass) before the rest */
	GStringChunk *strings;
	GPtrArray *taken; /* other scenes' strings, for their items moved here */
	rsp_scene_title_fn title_fn;
	void *title_ctx;
};

struct rsp_scene *rsp_scene_new(void)
{
	struct rsp_scene *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->strings = g_string_chunk_new(4096);
	return s;
}

void rsp_scene_free(struct rsp_scene *s)
{
	if (!s)
		return;
	free(s->v);
	g_string_chunk_free(s->strings);
	if (s->taken)
		g_ptr_array_free(s->taken, TRUE);
	free(s);
}

void rsp_scene_clear(struct rsp_scene *s)
{
	s->n = 0;
	s->under = 0;
	g_string_chunk_clear(s->strings);
	if (s->taken)
		g_ptr_array_set_size(s->taken, 0);
}

/* Room for @n more items (doubling); false if out of memory. */
static bool reserve(struct rsp_scene *s, size_t n)
{
	size_t cap = s->cap ? s->cap : 1024;
	struct rsp_scene_item *g;

	if (s->n + n <= s->cap)
		return true;
	while (cap < s->n + n)
		cap *= 2;
	g = realloc(s->v, cap * sizeof(*g));
	if (!g)
		return false;
	s->v = g;
	s->cap = cap;
	return true;
}

void rsp_scene_take(struct rsp_scene *s, struct rsp_scene *from)
{
	size_t n = from->n;

	if (!n || !reserve(s, n))
		return; /* out of memory: as rsp_scene_add, the items go nowhere */
	memcpy(s->v + s->n, from->v, n * sizeof(*from->v));
	s->n += n;
	from->n = 0;
	/* their labels may be @from's strings: kept with @s */
	if (!s->taken)
		s->taken = g_ptr_array_new_with_free_func((GDestroyNotify)g_string_chunk_free);
	g_ptr_array_add(s->taken, from->strings);
	from->strings = g_string_chunk_new(4096);
}

void rsp_scene_end_under(struct rsp_scene *s)
{
	s->under = s->n;
}

size_t rsp_scene_n_under(const struct rsp_scene *s)
{
	return s ? s->under : 0;
}

size_t rsp_scene_n_items(const struct rsp_scene *s)
{
	return s ? s->n : 0;
}

const struct rsp_scene_item *rsp_scene_item(const struct rsp_scene *s, size_t i)
{
	return i < s->n ? &s->v[i] : NULL;
}

bool rsp_scene_owns(const struct rsp_scene *s, const struct rsp_scene_item *it)
{
	return s && s->n && it >= s->v && it < s->v + s->n;
}

struct rsp_scene_item *rsp_scene_item_mut(struct rsp_scene *s, size_t i)
{
	return i < s->n ? &s->v[i] : NULL;
}

struct rsp_scene_item *rsp_scene_add(struct rsp_scene *s, enum rsp_prim prim, enum rsp_cls cls,
				     double x, double y, double w, double h)
{
	static struct rsp_scene_item sink; /* out of memory: writes go nowhere */
	struct rsp_scene_item *it;

	if (!reserve(s, 1)) {
		memset(&sink, 0, sizeof(sink));
		return &sink;
	}
	it = &s->v[s->n++];
	memset(it, 0, sizeof(*it));
	it->prim = (uint8_t)prim;
	it->cls = (uint8_t)cls;
	it->x = (float)x;
	it->y = (float)y;
	it->w = (float)w;
	it->h = (float)h;
	return it;
}

struct rsp_scene_item *rsp_scene_add_box(struct rsp_scene *s, enum rsp_cls cls, double x, double y,
					 double w, double h, const char *label)
{
	struct rsp_scene_item *it = rsp_scene_add(s, RSP_PRIM_RECT, cls, x, y, w, h);

	it->label = label;
	if (label && w >= 14 && h >= RSP_FONT_PX) {
		bool ell = false;
		size_t n = rsp_text_fit(label, w - 5, &ell);

		it->label_len = (uint16_t)(n > 65535 ? 65535 : n);
		if (ell)
			it->flags |= RSP_ITEM_ELLIPSIS;
	}
	return it;
}

struct rsp_scene_item *rsp_scene_add_text(struct rsp_scene *s, enum rsp_cls cls, double x,
					  double baseline, double max_w, const char *text,
					  unsigned flags)
{
	struct rsp_scene_item *it;
	bool ell = false;
	size_t n = max_w > 0 ? rsp_text_fit(text, max_w, &ell) : strlen(text);
	double w;

	if (n > 65535)
		n = 65535;
	w = rsp_text_width(text, n) + (ell ? rsp_text_width("\xe2\x80\xa6", 3) : 0);
	it = rsp_scene_add(s, RSP_PRIM_TEXT, cls, (flags & RSP_ITEM_RIGHT) ? x - w : x, baseline, w,
			   RSP_FONT_PX);
	it->label = text;
	it->label_len = (uint16_t)n;
	it->flags = (uint8_t)((flags & ~RSP_ITEM_RIGHT) | (ell ? RSP_ITEM_ELLIPSIS : 0));
	return it;
}

const char *rsp_scene_strdup(struct rsp_scene *s, const char *str)
{
	return g_string_chunk_insert(s->strings, str ? str : "");
}

const char *rsp_scene_printf(struct rsp_scene *s, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return g_string_chunk_insert(s->strings, buf);
}

void rsp_scene_set_title_fn(struct rsp_scene *s, rsp_scene_title_fn fn, void *ctx)
{
	s->title_fn = fn;
	s->title_ctx = ctx;
}

bool rsp_scene_title(const struct rsp_scene *s, const struct rsp_scene_item *it, GString *out)
{
	size_t before = out->len;

	if (!it->id)
		return false;
	if (s->title_fn)
		s->title_fn(s, it, out, s->title_ctx);
	else if (it->label)
		g_string_append(out, it->label);
	return out->len > before;
}

/* ---- drawing --------------------------------------------------------------------------- */

static bool visible(const struct rsp_scene_item *it, double cx0, double cy0, double cx1, double cy1)
{
	double x0 = it->x, x1 = it->x + it->w, y0 = it->y, y1 = it->y + it->h;

	if (it->prim == RSP_PRIM_LINE) {
		if (x1 < x0) {
			double t = x0;
			x0 = x1;
			x1 = t;
		}
		if (y1 < y0) {
			double t = y0;
			y0 = y1;
			y1 = t;
		}
	} else if (it->prim == RSP_PRIM_TEXT) {
		y0 = it->y - it->h;
		y1 = it->y + 4;
	}
	return x1 >= cx0 && x0 <= cx1 && y1 >= cy0 && y0 <= cy1;
}

static cairo_pattern_t *hatch_pattern(enum rsp_cls cls, bool dim)
{
	cairo_surface_t *tile = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 8, 8);
	cairo_t *c = cairo_create(tile);
	cairo_pattern_t *p;

	cairo_set_source_rgba(c, 1, 1, 1, 0.6);
	cairo_paint(c);
	rsp_palette_set_source(c, cls, dim);
	cairo_set_line_width(c, 1.5);
	cairo_move_to(c, -1, 9);
	cairo_line_to(c, 9, -1);
	cairo_move_to(c, -1, 1);
	cairo_line_to(c, 1, -1);
	cairo_move_to(c, 7, 9);
	cairo_line_to(c, 9, 7);
	cairo_stroke(c);
	cairo_destroy(c);
	p = cairo_pattern_create_for_surface(tile);
	cairo_pattern_set_extend(p, CAIRO_EXTEND_REPEAT);
	cairo_surface_destroy(tile);
	return p;
}

static void set_fill(cairo_t *cr, uint8_t prim, uint8_t cls, bool dim)
{
	if (prim == RSP_PRIM_HATCH) {
		cairo_pattern_t *p = hatch_pattern(cls, dim);

		cairo_set_source(cr, p);
		cairo_pattern_destroy(p);
	} else {
		rsp_palette_set_source(cr, cls, dim);
	}
}

/* A RECT or HATCH item's box: its gaps taken off */
static void box_rect(const struct rsp_scene_item *it, double *x, double *y, double *w, double *h)
{
	*x = it->x;
	*y = it->y;
	*w = it->w;
	*h = it->h;
	if (it->flags & (RSP_ITEM_GAP | RSP_ITEM_GAP_TOP)) {
		if (*w >= 3 && (it->flags & RSP_ITEM_GAP))
			*w -= 1;
		if (*h >= 3) {
			*y += 1;
			*h -= 1;
		}
	}
}

static void box_path(cairo_t *cr, const struct rsp_scene_item *it)
{
	double x = it->x, y = it->y, w = it->w, h = it->h;

	if (it->prim == RSP_PRIM_TRIANGLE) {
		/* pointing down, or right (RSP_ITEM_RIGHT), inset by a fifth of the box */
		double ix = w / 5, iy = h / 5;

		x += ix;
		y += iy;
		w -= 2 * ix;
		h -= 2 * iy;
		if (it->flags & RSP_ITEM_RIGHT) {
			cairo_move_to(cr, x, y);
			cairo_line_to(cr, x + w, y + h / 2);
			cairo_line_to(cr, x, y + h);
		} else {
			cairo_move_to(cr, x, y);
			cairo_line_to(cr, x + w, y);
			cairo_line_to(cr, x + w / 2, y + h);
		}
		cairo_close_path(cr);
		return;
	}
	box_rect(it, &x, &y, &w, &h);
	/* an inverted box is its box, wound as every other: under the nonzero rule two
	 * boxes of one fill wound in turn cancel where they overlap (the direct writes,
	 * which cut a run in two, did not) */
	if (w < 0) {
		x += w;
		w = -w;
	}
	if (h < 0) {
		y += h;
		h = -h;
	}
	cairo_rectangle(cr, x, y, w, h);
}

static bool dark(uint8_t cls)
{
	uint32_t c = rsp_palette_rgb(cls);
	double l = 0.299 * ((c >> 16) & 0xff) + 0.587 * ((c >> 8) & 0xff) + 0.114 * (c & 0xff);

	return l < 120;
}

/* A line drawn as columns of pixels (column_runs()): steep, a few pixels wide */
#define STEEP_MAX_W 32
static bool steep_line(const struct rsp_scene_item *it)
{
	return fabs(it->w) < STEEP_MAX_W && fabs(it->h) >= fabs(it->w);
}

/*
 * The aliased line from (xa, ya) to (xb, yb), steep, as one box per pixel
 * column it crosses: the part of its height where its x is in that column;
 * written as pixel @px where @d is given, else added to cairo's path.
 */
static void column_runs(cairo_t *cr, struct _rsp_direct *d, uint32_t px, double xa, double ya,
			double xb, double yb)
{
	double c0, c1;

	if (xb < xa) {
		double t = xa;

		xa = xb;
		xb = t;
		t = ya;
		ya = yb;
		yb = t;
	}
	c0 = floor(xa);
	c1 = floor(xb);
	for (double c = c0; c <= c1; c++) {
		/* the y where x crosses c and c + 1, within the segment */
		double ta = c <= xa ? 0 : (c - xa) / (xb - xa);
		double tb = c + 1 >= xb ? 1 : (c + 1 - xa) / (xb - xa);
		double y0 = ya + ta * (yb - ya), y1 = ya + tb * (yb - ya);
		double lo = floor(fmin(y0, y1)), hi = ceil(fmax(y0, y1));

		if (d)
			_rsp_direct_fill(d, c, lo, 1, fmax(1, hi - lo), px);
		else
			cairo_rectangle(cr, c, lo, 1, fmax(1, hi - lo));
	}
}

void rsp_scene_draw(const struct rsp_scene *s, cairo_t *cr, double cx0, double cy0, double cx1,
		    double cy1)
{
	(void)_rsp_scene_draw(s, cr, cx0, cy0, cx1, cy1, true);
}

/* Items [i0, i1) of @s in four passes (boxes, lines, text, outlines). */
static void draw_range(const struct rsp_scene *s, cairo_t *cr, struct _rsp_direct *dp,
		       bool raster, size_t i0, size_t i1, double cx0, double cy0, double cx1,
		       double cy1)
{
	struct _rsp_direct d = *dp;
	int key = -1;

	/* pass 1: boxes, one fill per run of the same class */
	for (size_t i = i0; i < i1; i++) {
		const struct rsp_scene_item *it = &s->v[i];
		int k;

		if (it->prim == RSP_PRIM_LINE || it->prim == RSP_PRIM_TEXT ||
		    !visible(it, cx0, cy0, cx1, cy1))
			continue;
		k = it->cls | (it->prim == RSP_PRIM_HATCH) << 8 | !!(it->flags & RSP_ITEM_DIM) << 9;
		if (it->prim == RSP_PRIM_RECT && d.on) {
			double x, y, w, h;
			uint32_t px;

			box_rect(it, &x, &y, &w, &h);
			if (_rsp_direct_takes(&d, x, y, w, h, it->cls, it->flags & RSP_ITEM_DIM,
					      &px)) {
				if (key >= 0) /* cairo's run under it first */
					cairo_fill(cr);
				key = -1;
				_rsp_direct_fill(&d, x, y, w, h, px);
				continue;
			}
		}
		if (k != key) {
			if (key >= 0)
				cairo_fill(cr);
			_rsp_direct_sync(&d);
			set_fill(cr, it->prim, it->cls, it->flags & RSP_ITEM_DIM);
			key = k;
		}
		box_path(cr, it);
	}
	if (key >= 0)
		cairo_fill(cr);
	_rsp_direct_sync(&d);
	/*
	 * pass 2: lines, hairlines without antialiasing (many cross the whole
	 * view).  On an image, a steep line a few pixels wide (a link at a wide
	 * zoom, from its waker's row to its wakee's) is filled first as its
	 * columns of pixels: a fill of boxes on the pixel grid is cairo's fast
	 * path, a stroke of long diagonal edges its slow one (5 us a link on a
	 * busy server's file).  Vector outputs keep every line as it is.
	 */
	cairo_set_line_width(cr, 1.0);
	cairo_set_antialias(cr, CAIRO_ANTIALIAS_NONE);
	for (int steep = raster ? 1 : 0; steep >= 0; steep--) {
		key = -1;
		for (size_t i = i0; i < i1; i++) {
			const struct rsp_scene_item *it = &s->v[i];
			double x0 = it->x, y0 = it->y, dx = it->w, dy = it->h, t0 = 0, t1 = 1;
			const double p[4] = {-dx, dx, -dy, dy};
			const double q[4] = {x0 - (cx0 - 1), (cx1 + 1) - x0, y0 - (cy0 - 1),
					     (cy1 + 1) - y0};
			bool out = false;
			uint32_t px;
			int k;

			if (it->prim != RSP_PRIM_LINE || (raster && steep_line(it)) != steep ||
			    !visible(it, cx0, cy0, cx1, cy1))
				continue;
			/* only the part on screen: links may span thousands of rows */
			for (int e = 0; e < 4 && !out; e++) {
				if (p[e] == 0) {
					out = q[e] < 0;
				} else {
					double r = q[e] / p[e];

					if (p[e] < 0 && r > t0)
						t0 = r;
					else if (p[e] > 0 && r < t1)
						t1 = r;
					out = t0 > t1;
				}
			}
			if (out)
				continue;
			k = it->cls | !!(it->flags & RSP_ITEM_DIM) << 9;
			if (steep &&
			    _rsp_direct_pixel(&d, it->cls, it->flags & RSP_ITEM_DIM, &px)) {
				if (key >= 0) /* cairo's run under it first */
					cairo_fill(cr);
				key = -1;
				column_runs(cr, &d, px, x0 + t0 * dx, y0 + t0 * dy, x0 + t1 * dx,
					    y0 + t1 * dy);
				continue;
			}
			if (k != key) {
				if (key >= 0 && steep)
					cairo_fill(cr);
				else if (key >= 0)
					cairo_stroke(cr);
				_rsp_direct_sync(&d);
				rsp_palette_set_source(cr, it->cls, it->flags & RSP_ITEM_DIM);
				key = k;
			}
			if (steep) {
				column_runs(cr, NULL, 0, x0 + t0 * dx, y0 + t0 * dy, x0 + t1 * dx,
					    y0 + t1 * dy);
			} else {
				cairo_move_to(cr, x0 + t0 * dx, y0 + t0 * dy);
				cairo_line_to(cr, x0 + t1 * dx, y0 + t1 * dy);
			}
		}
		if (key >= 0 && steep)
			cairo_fill(cr);
		else if (key >= 0)
			cairo_stroke(cr);
	}
	_rsp_direct_sync(&d);
	cairo_set_antialias(cr, CAIRO_ANTIALIAS_DEFAULT);
	/* pass 3: labels and text */
	for (size_t i = i0; i < i1; i++) {
		const struct rsp_scene_item *it = &s->v[i];

		if (!it->label_len || !it->label || !visible(it, cx0, cy0, cx1, cy1))
			continue;
		if (it->prim == RSP_PRIM_TEXT) {
			rsp_palette_set_source(cr, it->cls, it->flags & RSP_ITEM_DIM);
			rsp_text_draw(cr, it->x, it->y, it->label, it->label_len,
				      it->flags & RSP_ITEM_ELLIPSIS);
			if (it->flags & RSP_ITEM_BOLD)
				rsp_text_draw(cr, it->x + 0.6, it->y, it->label, it->label_len,
					      it->flags & RSP_ITEM_ELLIPSIS);
		} else {
			if (dark(it->cls) && !(it->flags & RSP_ITEM_DIM))
				cairo_set_source_rgb(cr, 1, 1, 1);
			else
				cairo_set_source_rgb(cr, 0.08, 0.08, 0.08);
			rsp_text_draw(cr, it->x + 3, it->y + it->h / 2 + 4, it->label,
				      it->label_len, it->flags & RSP_ITEM_ELLIPSIS);
		}
	}
	/* pass 4: highlight outlines */
	key = 0;
	for (size_t i = i0; i < i1; i++) {
		const struct rsp_scene_item *it = &s->v[i];

		if (!(it->flags & RSP_ITEM_MARKED) || it->prim == RSP_PRIM_LINE ||
		    !visible(it, cx0, cy0, cx1, cy1))
			continue;
		if (!key) {
			rsp_palette_set_source(cr, RSP_CLS_MARK, false);
			cairo_set_line_width(cr, 2.0);
			key = 1;
		}
		cairo_rectangle(cr, it->x + 1, it->y + 1, it->w > 2 ? it->w - 2 : it->w,
				it->h > 2 ? it->h - 2 : it->h);
	}
	if (key)
		cairo_stroke(cr);
	*dp = d;
}

size_t _rsp_scene_draw(const struct rsp_scene *s, cairo_t *cr, double cx0, double cy0, double cx1,
		       double cy1, bool direct)
{
	bool raster;
	struct _rsp_direct d = {0};

	if (!s || !s->n)
		return 0;
	raster = cairo_surface_get_type(cairo_get_target(cr)) == CAIRO_SURFACE_TYPE_IMAGE;
	cairo_save(cr);
	if (direct)
		_rsp_direct_begin(&d, cr);
	/* what lies under (the running view's row backgrounds and links), then the rest */
	if (s->under)
		draw_range(s, cr, &d, raster, 0, s->under, cx0, cy0, cx1, cy1);
	draw_range(s, cr, &d, raster, s->under, s->n, cx0, cy0, cx1, cy1);
	cairo_restore(cr);
	return d.n_boxes;
}

ssize_t rsp_scene_hit(const struct rsp_scene *s, double x, double y)
{
	if (!s)
		return -1;
	for (size_t i = s->n; i-- > 0;) {
		const struct rsp_scene_item *it = &s->v[i];
		double y0 = it->y, y1 = it->y + it->h;

		if (!it->id || it->prim == RSP_PRIM_LINE)
			continue;
		if (it->prim == RSP_PRIM_TEXT) {
			y0 = it->y - it->h;
			y1 = it->y + 4;
		}
		if (x >= it->x && x < it->x + (it->w < 1 ? 1 : it->w) && y >= y0 && y < y1)
			return (ssize_t)i;
	}
	return -1;
}

/* ---- units --------------------------------------------------------------------------------- */

void rsp_format_duration(char *buf, size_t n, double ns)
{
	static const char *const units[] = {"ns", "\xc2\xb5s", "ms", "s"};
	double a = fabs(ns), v = ns;
	int u = 0;

	while (u < 3 && a >= 999.5) {
		a /= 1000;
		v /= 1000;
		u++;
	}
	if (u == 0)
		snprintf(buf, n, "%.0f %s", v, units[u]);
	else
		snprintf(buf, n, "%.*f %s", a >= 99.95 ? 0 : a >= 9.995 ? 1 : 2, v, units[u]);
}
