/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A scene as SVG, written by hand: cairo 1.16's SVG surface cannot carry a
 * <title> per box, which is what makes an SVG flame graph readable in a
 * browser (flamegraph.pl does the same).
 */
#include "rsp-scene.h"

#include <errno.h>
#include <string.h>

static void xml_text(FILE *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		switch (c) {
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			/* control bytes are not allowed in XML 1.0 */
			fputc(c < 0x20 && c != '\n' && c != '\t' ? '?' : c, f);
		}
	}
}

static void rgb(FILE *f, uint8_t cls, bool dim)
{
	uint32_t c = rsp_palette_rgb(cls);

	if (dim) {
		unsigned r = (c >> 16) & 0xff, g = (c >> 8) & 0xff, b = c & 0xff;

		r = (r * 3 + 255 * 7) / 10;
		g = (g * 3 + 255 * 7) / 10;
		b = (b * 3 + 255 * 7) / 10;
		c = r << 16 | g << 8 | b;
	}
	fprintf(f, "#%06x", c);
}

static bool is_dark(uint8_t cls)
{
	uint32_t c = rsp_palette_rgb(cls);

	return 0.299 * ((c >> 16) & 0xff) + 0.587 * ((c >> 8) & 0xff) + 0.114 * (c & 0xff) < 120;
}

static void write_item(FILE *f, const struct rsp_scene *s, const struct rsp_scene_item *it,
		       GString *title)
{
	bool dim = it->flags & RSP_ITEM_DIM;
	double x = it->x, y = it->y, w = it->w, h = it->h;

	g_string_truncate(title, 0);
	switch (it->prim) {
	case RSP_PRIM_LINE:
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"", x, y,
			x + w, y + h);
		rgb(f, it->cls, dim);
		fputs("\"/>\n", f);
		return;
	case RSP_PRIM_TEXT:
		if (!it->label || !it->label_len)
			return;
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"", x, y);
		rgb(f, it->cls, dim);
		fprintf(f, "\"%s>", (it->flags & RSP_ITEM_BOLD) ? " font-weight=\"bold\"" : "");
		xml_text(f, it->label, it->label_len);
		if (it->flags & RSP_ITEM_ELLIPSIS)
			fputs("\xe2\x80\xa6", f);
		fputs("</text>\n", f);
		return;
	default:
		break;
	}
	if (it->flags & (RSP_ITEM_GAP | RSP_ITEM_GAP_TOP)) {
		if (w >= 3 && (it->flags & RSP_ITEM_GAP))
			w -= 1;
		if (h >= 3) {
			y += 1;
			h -= 1;
		}
	}
	fputs("<g", f);
	if (it->id)
		fprintf(f, " class=\"%s\"", rsp_palette_name(it->cls));
	fputs(">", f);
	if (rsp_scene_title(s, it, title)) {
		fputs("<title>", f);
		xml_text(f, title->str, title->len);
		fputs("</title>", f);
	}
	if (it->prim == RSP_PRIM_TRIANGLE) {
		x += w / 5;
		y += h / 5;
		w -= 2 * w / 5;
		h -= 2 * h / 5;
		if (it->flags & RSP_ITEM_RIGHT)
			fprintf(f, "<path d=\"M%.1f %.1fl%.1f %.1fl%.1f %.1fz\" fill=\"", x, y, w,
				h / 2, -w, h / 2);
		else
			fprintf(f, "<path d=\"M%.1f %.1fh%.1fl%.1f %.1fz\" fill=\"", x, y, w,
				-w / 2, h);
		rgb(f, it->cls, dim);
		fputs("\"/>", f);
	} else {
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"", x,
			y, w, h);
		if (it->prim == RSP_PRIM_HATCH)
			fprintf(f, "url(#hatch%u)", it->cls);
		else
			rgb(f, it->cls, dim);
		fputs("\"", f);
		if (it->flags & RSP_ITEM_MARKED)
			fprintf(f, " stroke=\"#%06x\" stroke-width=\"2\"",
				rsp_palette_rgb(RSP_CLS_MARK));
		fputs("/>", f);
	}
	if (it->label && it->label_len && it->prim == RSP_PRIM_RECT) {
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\"%s>", x + 3, y + h / 2 + 4,
			is_dark(it->cls) && !dim ? " fill=\"#ffffff\"" : "");
		xml_text(f, it->label, it->label_len);
		if (it->flags & RSP_ITEM_ELLIPSIS)
			fputs("\xe2\x80\xa6", f);
		fputs("</text>", f);
	}
	fputs("</g>\n", f);
}

int rsp_scene_write_svg(FILE *f, int width, int height, const char *title,
			const struct rsp_svg_layer *layers, size_t n_layers)
{
	GString *t = g_string_new(NULL);

	fprintf(f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, sans-serif\" "
		"font-size=\"%.0f\">\n",
		width, height, width, height, RSP_FONT_PX);
	if (title) {
		fputs("<title>", f);
		xml_text(f, title, strlen(title));
		fputs("</title>\n", f);
	}
	fputs("<defs>\n", f);
	/* a hatch per class; idle, the last, is never drawn hatched */
	for (int c = 0; c < RSP_CLS_IDLE; c++) {
		fprintf(f,
			"<pattern id=\"hatch%d\" width=\"8\" height=\"8\" "
			"patternUnits=\"userSpaceOnUse\"><rect width=\"8\" height=\"8\" "
			"fill=\"#ffffff\" fill-opacity=\"0.6\"/><path d=\"M-1 9L9 -1M-1 1L1 -1M7 "
			"9L9 7\" "
			"stroke=\"",
			c);
		rgb(f, (uint8_t)c, false);
		fputs("\" stroke-width=\"1.5\"/></pattern>\n", f);
	}
	for (size_t l = 0; l < n_layers; l++)
		if (layers[l].clip_w > 0)
			fprintf(
			    f,
			    "<clipPath id=\"clip%zu\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			    "height=\"%.1f\"/></clipPath>\n",
			    l, layers[l].clip_x, layers[l].clip_y, layers[l].clip_w,
			    layers[l].clip_h);
	fputs("</defs>\n<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n", f);
	for (size_t l = 0; l < n_layers; l++) {
		const struct rsp_scene *s = layers[l].scene;

		if (layers[l].clip_w > 0)
			fprintf(f, "<g clip-path=\"url(#clip%zu)\">", l);
		fprintf(f, "<g transform=\"translate(%.2f %.2f)\">\n", layers[l].dx, layers[l].dy);
		for (size_t i = 0; i < rsp_scene_n_items(s); i++) {
			const struct rsp_scene_item *it = rsp_scene_item(s, i);
			double x0 = it->x + layers[l].dx, y0 = it->y + layers[l].dy;

			/* what the clip hides is not written */
			if (layers[l].clip_w > 0 && it->prim != RSP_PRIM_LINE &&
			    (x0 + it->w < layers[l].clip_x ||
			     x0 > layers[l].clip_x + layers[l].clip_w ||
			     y0 + it->h < layers[l].clip_y - (it->prim == RSP_PRIM_TEXT ? 0 : 0) ||
			     y0 - (it->prim == RSP_PRIM_TEXT ? it->h : 0) >
				 layers[l].clip_y + layers[l].clip_h))
				continue;
			write_item(f, s, it, t);
		}
		fputs("</g>", f);
		if (layers[l].clip_w > 0)
			fputs("</g>", f);
		fputs("\n", f);
	}
	fputs("</svg>\n", f);
	g_string_free(t, TRUE);
	return ferror(f) ? -EIO : 0;
}
