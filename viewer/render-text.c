/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Labels, fast: one font (Pango's "Sans" at RSP_FONT_PX), the glyphs and
 * advances of ASCII and Latin-1 (and "…") measured once, so fitting a label
 * and drawing it cost a few array lookups and one cairo_show_glyphs().
 * Other characters draw as '?'.  Read-only after the first use: safe from
 * any thread.
 */
#include "rsp-scene.h"

#include <pango/pangocairo.h>
#include <string.h>

#define N_CHARS 256 /* ASCII and Latin-1; U+2026 (…) apart */

struct font {
	cairo_scaled_font_t *sf;
	unsigned long glyph[N_CHARS];
	double adv[N_CHARS];
	unsigned long ell_glyph;
	double ell_adv;
};

static gpointer font_init(gpointer unused)
{
	static struct font f;
	PangoFontMap *fm = pango_cairo_font_map_new();
	PangoContext *ctx = pango_font_map_create_context(fm);
	PangoFontDescription *d = pango_font_description_from_string("Sans");
	PangoFont *pf;
	cairo_font_options_t *fo = cairo_font_options_create();

	/* the same glyph positions on screen, in PNG and in PDF */
	cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
	cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_SLIGHT);
	pango_cairo_context_set_font_options(ctx, fo);
	pango_font_description_set_absolute_size(d, RSP_FONT_PX * PANGO_SCALE);
	pf = pango_font_map_load_font(fm, ctx, d);
	if (pf)
		f.sf = cairo_scaled_font_reference(
		    pango_cairo_font_get_scaled_font(PANGO_CAIRO_FONT(pf)));
	if (!f.sf || cairo_scaled_font_status(f.sf)) {
		cairo_font_face_t *ff = cairo_toy_font_face_create(
		    "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
		cairo_matrix_t fm_m, ctm;

		cairo_matrix_init_scale(&fm_m, RSP_FONT_PX, RSP_FONT_PX);
		cairo_matrix_init_identity(&ctm);
		f.sf = cairo_scaled_font_create(ff, &fm_m, &ctm, fo);
		cairo_font_face_destroy(ff);
	}
	for (int c = 0; c < N_CHARS; c++) {
		char u[8];
		int len =
		    g_unichar_to_utf8(c >= 32 && c != 127 && (c < 128 || c >= 160) ? c : '?', u);
		cairo_glyph_t *g = NULL;
		int n = 0;
		cairo_text_extents_t e;

		if (cairo_scaled_font_text_to_glyphs(f.sf, 0, 0, u, len, &g, &n, NULL, NULL,
						     NULL) == CAIRO_STATUS_SUCCESS &&
		    n == 1) {
			f.glyph[c] = g[0].index;
			cairo_scaled_font_glyph_extents(f.sf, g, 1, &e);
			f.adv[c] = e.x_advance;
		} else {
			f.adv[c] = RSP_FONT_PX * 0.6;
		}
		cairo_glyph_free(g);
	}
	{
		cairo_glyph_t *g = NULL;
		int n = 0;
		cairo_text_extents_t e;

		if (cairo_scaled_font_text_to_glyphs(f.sf, 0, 0, "\xe2\x80\xa6", 3, &g, &n, NULL,
						     NULL, NULL) == CAIRO_STATUS_SUCCESS &&
		    n == 1) {
			f.ell_glyph = g[0].index;
			cairo_scaled_font_glyph_extents(f.sf, g, 1, &e);
			f.ell_adv = e.x_advance;
		} else {
			f.ell_glyph = f.glyph['.'];
			f.ell_adv = f.adv['.'];
		}
		cairo_glyph_free(g);
	}
	cairo_font_options_destroy(fo);
	pango_font_description_free(d);
	if (pf)
		g_object_unref(pf);
	g_object_unref(ctx);
	g_object_unref(fm);
	return &f;
}

static const struct font *font(void)
{
	static GOnce once = G_ONCE_INIT;

	return g_once(&once, font_init, NULL);
}

/* The character at @s (at most @n bytes): its table index, and its length. */
static inline int next_char(const char *s, size_t n, size_t *len)
{
	unsigned char c = (unsigned char)s[0];
	gunichar u;

	if (c < 0x80) {
		*len = 1;
		return c;
	}
	u = g_utf8_get_char_validated(s, (gssize)n);
	if (u == (gunichar)-1 || u == (gunichar)-2) {
		*len = 1;
		return '?';
	}
	*len = (size_t)(g_utf8_next_char(s) - s);
	if (u == 0x2026)
		return -1; /* the ellipsis */
	return u < N_CHARS ? (int)u : '?';
}

static inline double advance(const struct font *f, int c)
{
	return c < 0 ? f->ell_adv : f->adv[c];
}

bool rsp_search_hit(const char *text, const char *search)
{
	return search && *search && text && strcasestr(text, search);
}

double rsp_text_width(const char *s, size_t n)
{
	const struct font *f = font();
	double w = 0;
	size_t i = 0, len;

	while (i < n && s[i]) {
		w += advance(f, next_char(s + i, n - i, &len));
		i += len;
	}
	return w;
}

size_t rsp_text_fit(const char *s, double max_w, bool *ellipsis)
{
	const struct font *f = font();
	double w = 0;
	size_t i = 0, fit = 0, len, chars = 0, fit_chars = 0;

	*ellipsis = false;
	while (s[i]) {
		w += advance(f, next_char(s + i, 8, &len));
		i += len;
		chars++;
		if (w + f->ell_adv <= max_w) {
			fit = i;
			fit_chars = chars;
		}
		if (w > max_w)
			break;
	}
	if (!s[i] && w <= max_w)
		return i; /* all of it */
	*ellipsis = true;
	return fit_chars >= 2 ? fit : 0;
}

void rsp_text_draw(cairo_t *cr, double x, double baseline, const char *s, size_t n, bool ellipsis)
{
	const struct font *f = font();
	cairo_glyph_t buf[256];
	size_t k = 0, i = 0, len;

	while (i < n && s[i] && k < G_N_ELEMENTS(buf) - 1) {
		int c = next_char(s + i, n - i, &len);

		buf[k].index = c < 0 ? f->ell_glyph : f->glyph[c];
		buf[k].x = x;
		buf[k].y = baseline;
		x += advance(f, c);
		k++;
		i += len;
	}
	if (ellipsis) {
		buf[k].index = f->ell_glyph;
		buf[k].x = x;
		buf[k].y = baseline;
		k++;
	}
	if (!k)
		return;
	cairo_set_scaled_font(cr, f->sf);
	cairo_show_glyphs(cr, buf, (int)k);
}
