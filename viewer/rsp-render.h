/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rsp's three views drawn without GTK: the process-running view, the
 * chronological flame view and the consolidated flame view (the paper's
 * figures 2-4).  One drawing path, two outputs: a view is laid out into a
 * scene (rectangles, lines, text, each with its full name and times), and
 * the scene is drawn onto any cairo_t (the viewer's widgets, PNG, PDF) or
 * written as SVG with a <title> per frame (cairo 1.16's SVG surface cannot
 * carry titles).  Depends on cairo and pango only.
 */
#ifndef RSP_RENDER_H
#define RSP_RENDER_H

#include "rsp-analysis.h"
#include "rsp-model.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum rsp_view_kind {
	RSP_VIEW_RUNNING,
	RSP_VIEW_FLAME,
	RSP_VIEW_CONSOLIDATED,
};

struct rsp_render_opts {
	int width, height; /* pixels; 0: a default for the view */
	uint64_t t0, t1; /* time range shown; 0, 0: all */
	bool show_sleeps; /* running view: sleeps as labelled blue boxes */
	bool target_chains_only; /* running view: only the target and its chains */
	bool merge_threads; /* consolidated view */
	/*
	 * Where the export could not hold the view as asked, one line saying
	 * what it did instead (a PNG taller than MAX drawn scaled to fit; a PDF
	 * on several pages), else ""; may be NULL.
	 */
	char *note;
	size_t note_size;
};

/*
 * Render @view of the trace (and, for the flame views, of the analysis) to
 * @path: .svg, .png or .pdf by its extension, whole: an SVG at any height, a
 * PDF taller than RSP_EXPORT_MAX_PX on pages of at most that (the ruler on
 * each), a PNG taller than that scaled down to it (opts->note says so).
 * -errno with one line in @err.
 */
#define RSP_EXPORT_MAX_PX 16384
int rsp_render_export(struct rsp_trace *t, struct rsp_analysis *a, enum rsp_view_kind view,
		      const char *path, const struct rsp_render_opts *opts, char *err,
		      size_t errlen);

/* The explanation table as `rsp report --format csv|md` writes it (@top contributors). */
enum rsp_table_format {
	RSP_TABLE_CSV,
	RSP_TABLE_MARKDOWN,
};
int rsp_render_table(struct rsp_analysis *a, const char *target, enum rsp_table_format fmt,
		     size_t top, FILE *f);

#endif /* RSP_RENDER_H */
