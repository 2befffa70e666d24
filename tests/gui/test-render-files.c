/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-render: files in and out: the exports (PNG, SVG, PDF, a time range,
 * errors), the explanation table (CSV, Markdown), hostile files (the fuzz
 * corpus, a cut file, not a trace), loading's progress and cancel.
 */
#include "render-test.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void check_svg(const char *path)
{
	g_autofree char *text = NULL;
	gsize len;
	GMarkupParser parser = {0};
	GMarkupParseContext *ctx;
	GError *error = NULL;

	g_assert_true(g_file_get_contents(path, &text, &len, NULL));
	g_assert_nonnull(strstr(text, "<svg"));
	g_assert_nonnull(strstr(text, "<title>"));
	/* well-formed XML */
	ctx = g_markup_parse_context_new(&parser, 0, NULL, NULL);
	g_assert_true(g_markup_parse_context_parse(ctx, text, len, &error));
	g_assert_no_error(error);
	g_assert_true(g_markup_parse_context_end_parse(ctx, &error));
	g_markup_parse_context_free(ctx);
}

/*
 * A flame view's export carries the legend: every colour's swatch (runs
 * estimated light red, inferred hatched) and its name, below the frames.
 */
static void check_legend(const char *path)
{
	g_autofree char *text = NULL;
	const char *frames_end = NULL;

	g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
	for (size_t i = 0; i < rsp_flame_legend_n(); i++) {
		const struct rsp_legend_item *li = rsp_flame_legend(i);
		g_autofree char *name = g_strdup_printf(">%s</text>", rsp_palette_name(li->cls));
		g_autofree char *fill = g_strdup_printf("url(#hatch%d)", li->cls);
		const char *at = strstr(text, name);

		if (li->optional) { /* idle: rpcchain's target has none */
			g_assert_null(at);
			continue;
		}
		g_assert_nonnull(at);
		if (!frames_end || at < frames_end)
			frames_end = at;
		/* a hatched swatch where the view hatches */
		if (li->hatch)
			g_assert_nonnull(strstr(text, fill));
	}
	g_assert_true(rsp_flame_legend(1)->cls == RSP_CLS_RUN_ESTIMATED &&
		      !rsp_flame_legend(1)->hatch);
	g_assert_true(rsp_flame_legend(2)->cls == RSP_CLS_RUN_INFERRED &&
		      rsp_flame_legend(2)->hatch);
	/* drawn after the frames (the chrome, over the view's bottom band) */
	g_assert_null(strstr(frames_end, "<title>"));
}

void test_export(void)
{
	struct fixture fx;
	struct rsp_render_opts o = {.width = 800, .show_sleeps = true, .merge_threads = true};
	static const char *const names[] = {"running", "flame", "consolidated"};
	char err[256];

	fixture_open(&fx, "rpcchain.data");
	for (int v = RSP_VIEW_RUNNING; v <= RSP_VIEW_CONSOLIDATED; v++) {
		g_autofree char *png = g_strdup_printf("%s/export-%s.png", out_dir, names[v]);
		g_autofree char *svg = g_strdup_printf("%s/export-%s.svg", out_dir, names[v]);
		g_autofree char *pdf = g_strdup_printf("%s/export-%s.pdf", out_dir, names[v]);
		g_autofree char *head = NULL;
		cairo_surface_t *s;

		g_assert_cmpint(rsp_render_export(fx.t, fx.a, v, png, &o, err, sizeof(err)), ==, 0);
		s = cairo_image_surface_create_from_png(png);
		g_assert_cmpint(cairo_surface_status(s), ==, CAIRO_STATUS_SUCCESS);
		g_assert_cmpint(cairo_image_surface_get_width(s), ==, 800);
		g_assert_cmpint(cairo_image_surface_get_height(s), >, RSP_RULER_H + 40);
		cairo_surface_destroy(s);
		g_assert_cmpint(rsp_render_export(fx.t, fx.a, v, svg, &o, err, sizeof(err)), ==, 0);
		check_svg(svg);
		if (v != RSP_VIEW_RUNNING)
			check_legend(svg);
		g_assert_cmpint(rsp_render_export(fx.t, fx.a, v, pdf, &o, err, sizeof(err)), ==, 0);
		g_assert_true(g_file_get_contents(pdf, &head, NULL, NULL));
		g_assert_true(g_str_has_prefix(head, "%PDF-"));
	}
	/* a time range: the running view of the first 5 ms */
	{
		struct rsp_trace_summary sum;
		g_autofree char *png = g_strdup_printf("%s/export-range.png", out_dir);

		rsp_trace_get_summary(fx.t, &sum);
		o.t0 = sum.start_ns;
		o.t1 = sum.start_ns + 5000000;
		o.height = 300;
		g_assert_cmpint(
		    rsp_render_export(fx.t, fx.a, RSP_VIEW_RUNNING, png, &o, err, sizeof(err)), ==,
		    0);
	}
	/* errors, with a line of text */
	g_assert_cmpint(
	    rsp_render_export(fx.t, fx.a, RSP_VIEW_FLAME, "/tmp/x.gif", &o, err, sizeof(err)), ==,
	    -EINVAL);
	g_assert_nonnull(strstr(err, ".svg"));
	g_assert_cmpint(
	    rsp_render_export(fx.t, NULL, RSP_VIEW_FLAME, "/tmp/x.svg", &o, err, sizeof(err)), ==,
	    -EINVAL);
	g_assert_cmpint(rsp_render_export(fx.t, fx.a, RSP_VIEW_RUNNING, "/nonexistent/dir/x.png",
					  &o, err, sizeof(err)),
			<, 0);
	g_assert_nonnull(strstr(err, "/nonexistent/dir/x.png"));
	fixture_close(&fx);
}

/*
 * A running view taller than a PNG holds (1200 processes, ~24,000 px): the
 * PNG is the whole view scaled down to RSP_EXPORT_MAX_PX, with a note saying
 * so; the PDF is on pages, the SVG at full height.  Process i runs in the
 * i-th of 1200 equal slots, so the last process's run is the view's
 * bottom-right corner: drawn in the PNG (a cut image ended at row ~800, whose
 * runs lie at two thirds of the width).
 */
void test_export_tall(void)
{
	enum { N = 1200 };
	struct synth *sy = synth_new(&(struct synth_opts){0});
	uint64_t t0 = 1000000000ull, slot = 100000;
	struct rsp_trace_opts to = {.no_symbols = true};
	struct rsp_trace *tr;
	char err[256], note[256] = "", comm[16], prev_comm[16] = "swapper/0";
	struct rsp_render_opts o = {.note = note, .note_size = sizeof(note)};
	g_autofree char *png = g_strdup_printf("%s/export-tall.png", out_dir);
	g_autofree char *svg = g_strdup_printf("%s/export-tall.svg", out_dir);
	g_autofree char *pdf = g_strdup_printf("%s/export-tall.pdf", out_dir);
	g_autofree char *text = NULL;
	const void *buf;
	size_t len, pages = 0;
	cairo_surface_t *s;
	int prev = 0, w, h, stride, found = 0;
	const unsigned char *px;

	for (int i = 0; i < N; i++) {
		snprintf(comm, sizeof(comm), "p%d", 1000 + i);
		synth_comm(sy, 0, 1000 + i, 1000 + i, comm, false);
	}
	for (int i = 0; i < N; i++) {
		snprintf(comm, sizeof(comm), "p%d", 1000 + i);
		synth_switch(sy, 0, t0 + i * slot, prev, prev_comm, 1, 1000 + i, comm);
		prev = 1000 + i;
		snprintf(prev_comm, sizeof(prev_comm), "%s", comm);
	}
	synth_switch(sy, 0, t0 + N * slot, prev, prev_comm, 1, 0, "swapper/0");
	buf = synth_finish(sy, &len);
	g_assert_cmpint(rsp_trace_open_mem(buf, len, &to, &tr, err, sizeof(err)), ==, 0);

	g_assert_cmpint(rsp_render_export(tr, NULL, RSP_VIEW_RUNNING, png, &o, err, sizeof(err)),
			==, 0);
	g_test_message("png: %s", note);
	g_assert_nonnull(strstr(note, "drawn whole at"));
	s = cairo_image_surface_create_from_png(png);
	g_assert_cmpint(cairo_surface_status(s), ==, CAIRO_STATUS_SUCCESS);
	w = cairo_image_surface_get_width(s);
	h = cairo_image_surface_get_height(s);
	g_assert_cmpint(h, ==, RSP_EXPORT_MAX_PX);
	g_assert_cmpint(w, <, 1600 * 0.8); /* 24,000 px tall scaled: < 0.7 */
	/* the last process's run: a coloured (not grey, not white) pixel in the bottom-right */
	cairo_surface_flush(s);
	px = cairo_image_surface_get_data(s);
	stride = cairo_image_surface_get_stride(s);
	for (int y = h - h / 50; y < h && !found; y++)
		for (int x = w - w / 20; x < w && !found; x++) {
			uint32_t p = *(const uint32_t *)(px + (size_t)y * stride + 4 * (size_t)x);
			int r = (p >> 16) & 255, g = (p >> 8) & 255, b = p & 255;

			found = abs(r - g) > 60 || abs(g - b) > 60 || abs(r - b) > 60;
		}
	g_assert_true(found);
	cairo_surface_destroy(s);

	g_assert_cmpint(rsp_render_export(tr, NULL, RSP_VIEW_RUNNING, pdf, &o, err, sizeof(err)),
			==, 0);
	g_test_message("pdf: %s", note);
	g_assert_nonnull(strstr(note, "pages"));
	g_assert_true(g_file_get_contents(pdf, &text, &len, NULL));
	/* the file holds binary streams: memmem, not strstr */
	for (const char *at = text; (at = memmem(at, text + len - at, "/Type /Page", 11)); at++)
		pages += at[11] != 's';
	g_assert_cmpuint(pages, ==, 2);
	g_clear_pointer(&text, g_free);

	g_assert_cmpint(rsp_render_export(tr, NULL, RSP_VIEW_RUNNING, svg, &o, err, sizeof(err)),
			==, 0);
	g_assert_cmpstr(note, ==, "");
	g_assert_true(g_file_get_contents(svg, &text, NULL, NULL));
	g_assert_nonnull(strstr(text, ">p2199")); /* the last row's name */
	rsp_trace_free(tr);
	synth_free(sy);
}

void test_table(void)
{
	struct fixture fx;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	fixture_open(&fx, "rpcchain.data");
	f = open_memstream(&buf, &len);
	g_assert_cmpint(rsp_render_table(fx.a, "process 1 (x)", RSP_TABLE_CSV, 3, f), ==, 0);
	fclose(f);
	g_assert_true(g_str_has_prefix(buf, "scope,row,category,ns,ms,percent,contributor,ns_estimated,ns_inferred\n"));
	g_assert_nonnull(strstr(buf, "all,category,disk,"));
	g_assert_nonnull(strstr(buf, "all,accounted,"));
	free(buf);
	f = open_memstream(&buf, &len);
	g_assert_cmpint(rsp_render_table(fx.a, "process 1 (x)", RSP_TABLE_MARKDOWN, 3, f), ==, 0);
	fclose(f);
	g_assert_nonnull(strstr(buf, "| Category | ms | % | Top contributors |"));
	g_assert_nonnull(strstr(buf, "| In blocking disk I/O |"));
	free(buf);
	fixture_close(&fx);
}

/* ---- hostile files ------------------------------------------------------------------------ */

static void render_whatever(const char *path)
{
	struct rsp_trace_opts o = {0};
	struct rsp_trace *t = NULL;
	struct rsp_analysis *a = NULL;
	struct rsp_running_data *rd = NULL;
	struct rsp_running_state rs = {.show_sleeps = true};
	char err[512] = "";
	int pids[16];
	size_t n;
	struct shot sh;

	if (rsp_trace_open(path, &o, &t, err, sizeof(err))) {
		g_assert_cmpstr(err, !=, ""); /* an error the window can show */
		return;
	}
	g_assert_cmpint(rsp_running_data_new(t, NULL, &rd, err, sizeof(err)), ==, 0);
	shot_take(&sh, &rsp_running_ops, rd, &rs, 0, 0, 400, 300, 0);
	shot_free(&sh);
	n = rsp_trace_n_targets(t);
	for (size_t i = 0; i < n && i < 16; i++)
		pids[i] = rsp_trace_target(t, i);
	if (n && rsp_analyze(t, pids, MIN(n, 16), 0, NULL, &a, err, sizeof(err)) == 0) {
		struct rsp_flame_data *fd;
		struct rsp_flame_state fs = {.category = -1, .kernel_frames = true};

		g_assert_cmpint(rsp_flame_data_new(t, a, &fd, err, sizeof(err)), ==, 0);
		shot_take(&sh, &rsp_flame_ops, fd, &fs, 0, 0, 400, 300, 0);
		shot_free(&sh);
		rsp_cons_tree_free(rsp_cons_tree_new(fd, false, true));
		rsp_flame_data_free(fd);
	}
	rsp_analysis_free(a);
	rsp_running_data_free(rd);
	rsp_trace_free(t);
}

void test_hostile(void)
{
	GDir *dir = g_dir_open(corpus_dir, 0, NULL);
	const char *name;
	g_autofree char *full = g_build_filename(data_dir, "rpcchain.data", NULL);
	g_autofree char *cut = g_build_filename(out_dir, "rpcchain-cut.data", NULL);
	g_autofree char *junk = g_build_filename(out_dir, "not-a-trace.data", NULL);
	g_autofree char *bytes = NULL;
	gsize len;
	struct rsp_trace_opts o = {0};
	struct rsp_trace *t;
	char err[512];
	size_t files = 0;

	g_assert_nonnull(dir);
	while ((name = g_dir_read_name(dir))) {
		g_autofree char *p = g_build_filename(corpus_dir, name, NULL);

		render_whatever(p);
		files++;
	}
	g_dir_close(dir);
	g_assert_cmpuint(files, >, 0);
	/* cut in the middle: what is before the cut is shown, with a warning */
	g_assert_true(g_file_get_contents(full, &bytes, &len, NULL));
	g_assert_true(g_file_set_contents(cut, bytes, len / 2 + 13, NULL));
	render_whatever(cut);
	g_assert_cmpint(rsp_trace_open(cut, &o, &t, err, sizeof(err)), ==, 0);
	g_assert_cmpuint(rsp_trace_n_warnings(t), >, 0);
	rsp_trace_free(t);
	/* not a trace at all: an error */
	g_assert_true(g_file_set_contents(junk, "this is not a perf.data file\n", -1, NULL));
	g_assert_cmpint(rsp_trace_open(junk, &o, &t, err, sizeof(err)), <, 0);
	g_assert_cmpstr(err, !=, "");
	render_whatever(junk);
}

static void on_progress(double f, void *ctx)
{
	double *last = ctx;

	g_assert_cmpfloat(f, >=, *last);
	g_assert_cmpfloat(f, <=, 1.0);
	*last = f;
}

/* Loading reports progress and can be cancelled (the model's one change for the viewer). */
void test_progress_cancel(void)
{
	struct synth *sy;
	size_t len;
	const void *buf = pingpong(&sy, 150000, &len);
	double last = 0;
	volatile int cancel = 0;
	struct rsp_trace_opts o = {
	    .progress = on_progress, .progress_ctx = &last, .no_symbols = true};
	struct rsp_trace *t;
	char err[256];

	g_assert_cmpint(rsp_trace_open_mem(buf, len, &o, &t, err, sizeof(err)), ==, 0);
	g_assert_cmpfloat(last, >, 0.5); /* reported along the way */
	rsp_trace_free(t);
	cancel = 1;
	o.cancel = &cancel;
	g_assert_cmpint(rsp_trace_open_mem(buf, len, &o, &t, err, sizeof(err)), ==, -ECANCELED);
	g_assert_nonnull(strstr(err, "cancel"));
	synth_free(sy);
}
