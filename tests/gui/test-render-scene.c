/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-render: a scene's boxes written straight into an image
 * (render-direct.c) against the same scene drawn by cairo alone.
 */
#include "render-test.h"
#include "render-private.h"

#include <math.h>
#include <string.h>

#define SW 240
#define SH 160

/* A coordinate: on whole pixels mostly, sometimes not (cairo's then). */
static double coord(GRand *r, double lo, double hi, bool whole_px)
{
	double v = g_rand_double_range(r, lo, hi);

	return whole_px ? floor(v) : v;
}

static void random_scene(GRand *r, struct rsp_scene *s)
{
	static const uint8_t flags[] = {0, 0, 0, RSP_ITEM_DIM, RSP_ITEM_GAP, RSP_ITEM_GAP_TOP,
					RSP_ITEM_MARKED, RSP_ITEM_GAP | RSP_ITEM_DIM};
	int n = g_rand_int_range(r, 50, 400);

	for (int i = 0; i < n; i++) {
		int kind = g_rand_int_range(r, 0, 100);
		bool whole_px = g_rand_int_range(r, 0, 10) > 0;
		uint8_t cls = (uint8_t)g_rand_int_range(r, 0, RSP_CLS__COUNT);
		double x = coord(r, -40, SW + 40, whole_px), y = coord(r, -40, SH + 40, whole_px);
		struct rsp_scene_item *it;

		if (kind < 60) {
			/* boxes: slivers, wide bars, empty and inverted ones */
			double w = coord(r, -3, kind < 30 ? 4 : SW, whole_px);
			double h = coord(r, -2, kind < 50 ? 16 : SH, whole_px);

			it = g_rand_int_range(r, 0, 4)
				 ? rsp_scene_add(s, RSP_PRIM_RECT, cls, x, y, w, h)
				 : rsp_scene_add_box(s, cls, x, y, w, h, "label");
		} else if (kind < 68) {
			it = rsp_scene_add(s, RSP_PRIM_HATCH, cls, x, y, coord(r, 1, 60, whole_px),
					   coord(r, 1, 20, whole_px));
		} else if (kind < 72) {
			it = rsp_scene_add(s, RSP_PRIM_TRIANGLE, cls, x, y, 7, 5);
		} else if (kind < 92) {
			/* links: steep and a few pixels wide (columns), or not */
			double w = kind < 86 ? g_rand_double_range(r, -12, 12)
					     : g_rand_double_range(r, -200, 200);

			it = rsp_scene_add(s, RSP_PRIM_LINE, cls, x, y, w,
					   g_rand_double_range(r, -SH, SH));
		} else {
			it = rsp_scene_add_text(s, cls, x, y, 80, "text", 0);
		}
		it->flags |= flags[g_rand_int_range(r, 0, G_N_ELEMENTS(flags))];
	}
}

/* @s drawn on a fresh image of @fmt at device scale @scale; the boxes written directly */
static cairo_surface_t *draw(const struct rsp_scene *s, cairo_format_t fmt, int scale, double tx,
			     double ty, const double *clip, const double *bounds, bool direct,
			     size_t *n_direct)
{
	cairo_surface_t *img = cairo_image_surface_create(fmt, SW * scale, SH * scale);
	cairo_t *cr;

	cairo_surface_set_device_scale(img, scale, scale);
	cr = cairo_create(img);
	/* something under the scene: boxes must be painted over it, in order */
	cairo_set_source_rgb(cr, 0.9, 0.95, 1);
	cairo_paint(cr);
	cairo_set_source_rgba(cr, 0.2, 0.5, 0.1, 0.5);
	cairo_rectangle(cr, 10.5, 10, 100, 50);
	cairo_fill(cr);
	if (clip) {
		cairo_rectangle(cr, clip[0], clip[1], clip[2], clip[3]);
		cairo_clip(cr);
	}
	cairo_translate(cr, tx, ty);
	*n_direct = _rsp_scene_draw(s, cr, bounds[0], bounds[1], bounds[2], bounds[3], direct);
	cairo_destroy(cr);
	cairo_surface_flush(img);
	return img;
}

/* Byte for byte (RGB24: its 24 bits of colour), the first difference said. */
static void assert_same_pixels(cairo_surface_t *a, cairo_surface_t *b, unsigned seed)
{
	int w = cairo_image_surface_get_width(a), h = cairo_image_surface_get_height(a);
	int stride = cairo_image_surface_get_stride(a);
	uint32_t mask = cairo_image_surface_get_format(a) == CAIRO_FORMAT_RGB24 ? 0xffffff
									      : 0xffffffff;
	const unsigned char *pa = cairo_image_surface_get_data(a),
			    *pb = cairo_image_surface_get_data(b);

	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			uint32_t va = *(const uint32_t *)(const void *)(pa + y * stride + x * 4);
			uint32_t vb = *(const uint32_t *)(const void *)(pb + y * stride + x * 4);

			if ((va & mask) != (vb & mask)) {
				g_test_message("seed %u: pixel (%d, %d): direct %08x, cairo %08x",
					       seed, x, y, va, vb);
				g_assert_cmphex(va & mask, ==, vb & mask);
			}
		}
}

/*
 * Random scenes (boxes on whole pixels and not, slivers, empty and inverted
 * boxes, gaps, dimmed and hatched ones, triangles, steep and flat links,
 * labels), on ARGB32 and RGB24 images at device scales 1 and 2, under
 * translations and clips on whole pixels and not: the direct writes give
 * cairo's pixels exactly, and are used where they may be (whole-pixel
 * translation and clip) and only there.
 */
void test_scene_direct(void)
{
	static const cairo_format_t fmts[] = {CAIRO_FORMAT_ARGB32, CAIRO_FORMAT_RGB24};
	GRand *r = g_rand_new_with_seed(20261127);
	size_t used = 0, eligible = 0;

	for (unsigned seed = 0; seed < 160; seed++) {
		struct rsp_scene *s = rsp_scene_new();
		cairo_format_t fmt = fmts[seed % 2];
		int scale = 1 + (seed / 2) % 2;
		int how = (seed / 4) % 5; /* 0-2: whole pixels; 3: half-pixel shift; 4: half-pixel clip */
		double tx = how == 3 ? 3.5 : g_rand_int_range(r, -30, 30);
		double ty = g_rand_int_range(r, -30, 30);
		double clip[4] = {g_rand_int_range(r, 0, 40), g_rand_int_range(r, 0, 30),
				  g_rand_int_range(r, 60, SW), g_rand_int_range(r, 40, SH)};
		double bounds[4] = {-tx + g_rand_int_range(r, -20, 40), -ty, SW - tx, SH - ty};
		cairo_surface_t *a, *b;
		size_t n_a, n_b;

		if (how == 4)
			clip[0] += 0.5;
		random_scene(r, s);
		a = draw(s, fmt, scale, tx, ty, how == 1 ? NULL : clip, bounds, true, &n_a);
		b = draw(s, fmt, scale, tx, ty, how == 1 ? NULL : clip, bounds, false, &n_b);
		assert_same_pixels(a, b, seed);
		g_assert_cmpuint(n_b, ==, 0);
		if (how >= 3) {
			g_assert_cmpuint(n_a, ==, 0); /* not on whole pixels: cairo's */
		} else {
			eligible++;
			used += n_a > 0;
		}
		cairo_surface_destroy(a);
		cairo_surface_destroy(b);
		rsp_scene_free(s);
	}
	/* every scene on whole pixels had boxes written directly */
	g_assert_cmpuint(used, ==, eligible);
	g_rand_free(r);
}
