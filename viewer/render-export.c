/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Exports: a view to PNG, PDF (cairo surfaces, the same drawing as the
 * screen) or SVG (the same scene, with a <title> per box); the explanation
 * table to CSV or Markdown (the columns of `rsp report --format csv|md`).
 */
#include "rsp-render.h"
#include "rsp-text.h"
#include "rsp-views.h"

#include <cairo-pdf.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <inttypes.h>
#include <string.h>
#include <strings.h>

#define DEFAULT_WIDTH 1600
#define MAX_HEIGHT    RSP_EXPORT_MAX_PX

struct exported {
	struct rsp_running_data *running;
	struct rsp_flame_data *flame;
	struct rsp_cons_tree *cons;
	struct rsp_running_state rs;
	struct rsp_flame_state fs;
	struct rsp_cons_state cs;
	const struct rsp_view_ops *ops;
	const void *data, *state;
};

static void exported_free(struct exported *e)
{
	rsp_cons_tree_free(e->cons);
	rsp_flame_data_free(e->flame);
	rsp_running_data_free(e->running);
}

static int prepare(struct rsp_trace *t, struct rsp_analysis *a, enum rsp_view_kind view,
		   const struct rsp_render_opts *o, struct exported *e, char *err, size_t errlen)
{
	int ret;

	memset(e, 0, sizeof(*e));
	e->fs.category = e->cs.category = -1;
	e->fs.legend = e->cs.legend = true;
	if (a) {
		struct rsp_explanation ex;

		rsp_analysis_explanation(a, &ex);
		e->fs.legend_idle = e->cs.legend_idle = ex.cat_ns[RSP_CAT_IDLE] > 0;
	}
	switch (view) {
	case RSP_VIEW_RUNNING:
		ret = rsp_running_data_new(t, a, &e->running, err, errlen);
		if (ret)
			return ret;
		e->rs.show_sleeps = o && o->show_sleeps;
		e->rs.chains_only = o && o->target_chains_only;
		e->ops = &rsp_running_ops;
		e->data = e->running;
		e->state = &e->rs;
		return 0;
	case RSP_VIEW_FLAME:
	case RSP_VIEW_CONSOLIDATED:
		if (!a) {
			snprintf(err, errlen, "the flame views need the target's analysis");
			return -EINVAL;
		}
		ret = rsp_flame_data_new(t, a, &e->flame, err, errlen);
		if (ret)
			return ret;
		if (view == RSP_VIEW_FLAME) {
			e->ops = &rsp_flame_ops;
			e->data = e->flame;
			e->state = &e->fs;
			return 0;
		}
		e->cons = rsp_cons_tree_new(e->flame, !o || o->merge_threads, false);
		e->ops = &rsp_cons_ops;
		e->data = e->cons;
		e->state = &e->cs;
		return 0;
	}
	snprintf(err, errlen, "unknown view %d", (int)view);
	return -EINVAL;
}

/* @v's layout @l onto @s at @scale (1: pixel for pixel) */
static int draw_to(cairo_surface_t *s, const struct rsp_layout *l, const struct exported *e,
		   const struct rsp_view *v, double scale)
{
	cairo_t *cr = cairo_create(s);
	cairo_status_t st;

	if (scale != 1)
		cairo_scale(cr, scale, scale);
	rsp_layout_draw(l, e->ops, e->data, v, cr);
	st = cairo_status(cr);
	cairo_destroy(cr);
	cairo_surface_flush(s);
	return st == CAIRO_STATUS_SUCCESS ? 0 : -EIO;
}

static void note(const struct rsp_render_opts *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void note(const struct rsp_render_opts *o, const char *fmt, ...)
{
	va_list ap;

	if (!o || !o->note || !o->note_size)
		return;
	va_start(ap, fmt);
	vsnprintf(o->note, o->note_size, fmt, ap);
	va_end(ap);
}

/* A view taller than a PNG holds: the whole, scaled down to MAX_HEIGHT px. */
static int write_png(const char *path, struct rsp_layout *l, const struct exported *e,
		     const struct rsp_view *v, const struct rsp_render_opts *o)
{
	double scale = v->height > MAX_HEIGHT ? (double)MAX_HEIGHT / v->height : 1;
	int w = scale < 1 ? (int)ceil(v->width * scale) : v->width;
	int h = scale < 1 ? MAX_HEIGHT : v->height;
	cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
	int ret = cairo_surface_status(s) ? -ENOMEM : draw_to(s, l, e, v, scale);

	if (!ret && cairo_surface_write_to_png(s, path) != CAIRO_STATUS_SUCCESS)
		ret = -EIO;
	cairo_surface_destroy(s);
	if (!ret && scale < 1)
		note(o, "the %s view is %d px tall, more than a PNG's %d: drawn whole at %.0f%% "
			"(%dx%d; an .svg keeps its size, a .pdf puts it on pages)",
		     e->ops->name, v->height, MAX_HEIGHT, floor(scale * 100), w, h);
	return ret;
}

/* A view taller than a PDF page of MAX_HEIGHT: on several, scrolled down a page at a time. */
static int write_pdf(const char *path, struct rsp_layout *l, const struct exported *e,
		     const struct rsp_view *v, const struct rsp_render_opts *o)
{
	struct rsp_view page = *v;
	int pages = 1, ret = 0;
	cairo_surface_t *s;

	if (v->height > MAX_HEIGHT) {
		/* each page: the ruler, then the next MAX_HEIGHT - ruler px of the rows */
		int step = MAX_HEIGHT - RSP_RULER_H;

		pages = (v->height - RSP_RULER_H + step - 1) / step;
		page.height = MAX_HEIGHT;
	}
	s = cairo_pdf_surface_create(path, page.width, page.height);
	ret = cairo_surface_status(s) ? -EIO : 0;
	for (int i = 0; i < pages && !ret; i++) {
		page.scroll_y = (double)i * (MAX_HEIGHT - RSP_RULER_H);
		if (pages > 1)
			rsp_layout_update(l, e->ops, e->data, e->state, &page, true);
		ret = draw_to(s, l, e, &page, 1);
		if (!ret && i + 1 < pages)
			cairo_surface_show_page(s);
	}
	cairo_surface_finish(s);
	if (!ret && cairo_surface_status(s))
		ret = -EIO;
	cairo_surface_destroy(s);
	if (!ret && pages > 1)
		note(o, "the %s view is %d px tall, more than a page of %d: on %d pages",
		     e->ops->name, v->height, MAX_HEIGHT, pages);
	return ret;
}

int rsp_render_export(struct rsp_trace *t, struct rsp_analysis *a, enum rsp_view_kind view,
		      const char *path, const struct rsp_render_opts *opts, char *err,
		      size_t errlen)
{
	const char *ext = path ? strrchr(path, '.') : NULL;
	struct exported e;
	struct rsp_layout l;
	struct rsp_view v;
	double ch;
	int ret;

	if (!ext ||
	    (strcasecmp(ext, ".svg") && strcasecmp(ext, ".png") && strcasecmp(ext, ".pdf"))) {
		snprintf(err, errlen, "%s: give a file name ending in .svg, .png or .pdf",
			 path ? path : "(none)");
		return -EINVAL;
	}
	ret = prepare(t, a, view, opts, &e, err, errlen);
	if (ret)
		return ret;
	memset(&v, 0, sizeof(v));
	e.ops->extent(e.data, e.state, &v.x0, &v.x1);
	if (opts && opts->t1 > opts->t0 && view != RSP_VIEW_CONSOLIDATED) {
		v.x0 = (double)opts->t0;
		v.x1 = (double)opts->t1;
	}
	v.width = opts && opts->width > 0 ? opts->width : DEFAULT_WIDTH;
	if (v.width > MAX_HEIGHT)
		v.width = MAX_HEIGHT;
	ch = e.ops->content_height(e.data, e.state);
	if (view != RSP_VIEW_RUNNING) /* the flame views: their legend under them */
		ch += ceil(rsp_legend_layout(NULL, v.width, 0, e.fs.legend_idle));
	/* whole: a PNG taller than MAX_HEIGHT is scaled, a PDF paged (write_png, write_pdf) */
	v.height = opts && opts->height > 0 ? opts->height : RSP_RULER_H + (int)ch + 1;
	if (opts && opts->note && opts->note_size)
		opts->note[0] = '\0';
	rsp_layout_init(&l);
	rsp_layout_update(&l, e.ops, e.data, e.state, &v, true);
	if (!strcasecmp(ext, ".svg")) {
		FILE *f = fopen(path, "w");

		if (!f) {
			ret = -errno;
		} else {
			ret = rsp_layout_write_svg(&l, e.ops, e.data, &v, f, e.ops->name);
			if (fclose(f) && !ret)
				ret = -errno;
		}
	} else if (!strcasecmp(ext, ".png")) {
		ret = write_png(path, &l, &e, &v, opts);
	} else {
		ret = write_pdf(path, &l, &e, &v, opts);
	}
	if (ret)
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(-ret));
	rsp_layout_clear(&l);
	exported_free(&e);
	return ret;
}

/* ---- the explanation table ------------------------------------------------------------------ */

/* Category @c's Markdown row, its percent of @of. */
static void md_row(struct rsp_analysis *a, const struct rsp_explanation *e, int c, uint64_t of,
		   size_t top, FILE *f)
{
	fprintf(f, "| %s | %.3f | %.1f | ", rsp_category_name(c), rsp_ms(e->cat_ns[c]),
		rsp_pct(e->cat_ns[c], of));
	for (size_t i = 0; i < rsp_analysis_n_contributors(a, c) && i < top; i++) {
		struct rsp_contributor k;
		const char *how;

		rsp_analysis_contributor(a, c, i, &k);
		how = rsp_contributor_how_known(&k);
		fprintf(f, "%s", i ? "<br>" : "");
		rsp_md_str(f, k.what);
		fprintf(f, " (%.3f ms%s%s)", rsp_ms(k.ns), how ? ", " : "", how ? how : "");
	}
	fprintf(f, " |\n");
}

/* rsp report's CSV and Markdown tables (docs/report-formats.md): percentages of the time
 * not idle, idle's of the total, shown where not 0 */
int rsp_render_table(struct rsp_analysis *a, const char *target, enum rsp_table_format fmt,
		     size_t top, FILE *f)
{
	struct rsp_explanation e;
	uint64_t acc, of, idle;

	rsp_analysis_explanation(a, &e);
	acc = rsp_explanation_accounted(&e);
	of = rsp_explanation_not_idle(&e);
	idle = e.cat_ns[RSP_CAT_IDLE];
	if (fmt == RSP_TABLE_CSV) {
		fprintf(f, "scope,row,category,ns,ms,percent,contributor,ns_estimated,ns_inferred\n");
		fprintf(f, "all,wall,,%" PRIu64 ",%.6f,,\n", e.wall_ns, rsp_ms(e.wall_ns));
		fprintf(f, "all,total,,%" PRIu64 ",%.6f,100.000,\n", e.total_ns, rsp_ms(e.total_ns));
		if (idle)
			fprintf(f, "all,not_idle,,%" PRIu64 ",%.6f,%.3f,\n", of, rsp_ms(of),
				rsp_pct(of, e.total_ns));
		for (int c = 0; c < RSP_CAT__COUNT; c++) {
			if (c == RSP_CAT_IDLE && !idle)
				continue;
			fprintf(f, "all,category,%s,%" PRIu64 ",%.6f,%.3f,\n", rsp_category_key(c),
				e.cat_ns[c], rsp_ms(e.cat_ns[c]),
				rsp_pct(e.cat_ns[c], c == RSP_CAT_IDLE ? e.total_ns : of));
			for (size_t i = 0; i < rsp_analysis_n_contributors(a, c) && i < top; i++) {
				struct rsp_contributor k;

				rsp_analysis_contributor(a, c, i, &k);
				fprintf(f, "all,contributor,%s,%" PRIu64 ",%.6f,%.3f,",
					rsp_category_key(c), k.ns, rsp_ms(k.ns),
					rsp_pct(k.ns, e.cat_ns[c]));
				rsp_csv_str(f, k.what);
				fprintf(f, ",%" PRIu64 ",%" PRIu64 "\n", k.ns_estimated, k.ns_inferred);
			}
		}
		fprintf(f, "all,accounted,,%" PRIu64 ",%.6f,%.3f,\n", acc, rsp_ms(acc), rsp_pct(acc, of));
		fprintf(f, "all,explained,,%" PRIu64 ",%.6f,%.3f,\n", e.explained_ns,
			rsp_ms(e.explained_ns), rsp_pct(e.explained_ns, of));
	} else {
		fprintf(f, "## rsp report: ");
		rsp_md_str(f, target ? target : "target");
		fprintf(f,
			"\n\n%zu control paths, %zu processes in the pseudostacks, tolerance %.0f "
			"us.\n\n",
			e.n_paths, e.n_processes, e.tolerance_ns / 1e3);
		fprintf(f, "| Category | ms | %% | Top contributors |\n|---|---:|---:|---|\n");
		fprintf(f, "| Wall time | %.3f | | |\n", rsp_ms(e.wall_ns));
		fprintf(f, "| Total time | %.3f | 100.0 | |\n", rsp_ms(e.total_ns));
		if (idle) {
			md_row(a, &e, RSP_CAT_IDLE, e.total_ns, top, f);
			fprintf(f, "| Not idle (the percentages below are of it) | %.3f | %.1f | |\n",
				rsp_ms(of), rsp_pct(of, e.total_ns));
		}
		for (int c = 0; c < RSP_CAT__COUNT; c++)
			if (c != RSP_CAT_IDLE)
				md_row(a, &e, c, of, top, f);
		fprintf(f, "| **Total accounted** | %.3f | %.1f | |\n", rsp_ms(acc), rsp_pct(acc, of));
		fprintf(f, "| **Percent accounted** | | %.1f | |\n", rsp_pct(acc, of));
		fprintf(f, "| **Percent explained** | | %.1f | |\n", rsp_pct(e.explained_ns, of));
	}
	return ferror(f) ? -EIO : 0;
}
