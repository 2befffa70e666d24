/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The viewer's drawing, headless, on a large recording:
 *
 *  - the first frame: load, analyse, prepare the running view, lay it out
 *    and draw it (1600x1000), against `rsp report` on the same file,
 *    interleaved (goal: at most 2x);
 *  - redraws at zoom levels 1x to 1e6x, for the three views: a zoom (lay
 *    out, render the texture), a pan inside the laid-out margin (render
 *    only), a hover (the cached image and an outline); goal: 16 ms each.
 *
 *   viewer-bench FILE [RSP] [RUNS]
 *
 * RSP: the rsp binary for the report runs (default: build/cli/rsp next to
 * this program's build directory).  bench/viewer/viewer.sh measures the
 * real app under Xvfb.
 */
#include "rsp-render.h"
#include "rsp-views.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define W 1600
#define H 1000

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* `rsp report FILE`, its output thrown away: wall ms */
/*
 * The verb the first frame is measured against: `rsp report` (load and
 * analyse the target); for a file that records no target (rsp record -a),
 * where the viewer shows every thread without an analysis, `rsp info` (load).
 */
static const char *verb = "report";

static double report_ms(const char *rsp, const char *file)
{
	double t0;
	pid_t pid;
	int st;

	fflush(stdout);
	t0 = now_ms();
	pid = fork();
	if (pid == 0) {
		if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
			_exit(127);
		execl(rsp, rsp, verb, file, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "viewer-bench: %s %s %s failed\n", rsp, verb, file);
		exit(1);
	}
	return now_ms() - t0;
}

/* What the viewer does before its first frame, without GTK. */
static double first_frame_ms(const char *file, double *parts)
{
	double t0 = now_ms(), t1, t2, t3, t4;
	struct rsp_trace_opts o = {0};
	struct rsp_trace *t;
	struct rsp_analysis *a = NULL;
	struct rsp_running_data *d;
	struct rsp_running_state st = {0};
	struct rsp_layout l;
	struct rsp_view v = {0};
	char err[512];
	int pids[64];
	size_t n;
	cairo_surface_t *s;
	cairo_t *cr;

	if (rsp_trace_open(file, &o, &t, err, sizeof(err))) {
		fprintf(stderr, "viewer-bench: %s\n", err);
		exit(1);
	}
	t1 = now_ms();
	n = rsp_trace_n_targets(t);
	for (size_t i = 0; i < n && i < 64; i++)
		pids[i] = rsp_trace_target(t, i);
	if (n && rsp_analyze(t, pids, n < 64 ? n : 64, 0, NULL, &a, err, sizeof(err)))
		a = NULL;
	t2 = now_ms();
	/* as the app: the sleeps' labels are made after the first frame */
	if (rsp_running_data_new_unlabelled(t, a, &d, err, sizeof(err))) {
		fprintf(stderr, "viewer-bench: %s\n", err);
		exit(1);
	}
	t3 = now_ms();
	rsp_layout_init(&l);
	rsp_running_ops.extent(d, &st, &v.x0, &v.x1);
	v.width = W;
	v.height = H;
	rsp_layout_update(&l, &rsp_running_ops, d, &st, &v, true);
	s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, W, H);
	cr = cairo_create(s);
	rsp_layout_draw(&l, &rsp_running_ops, d, &v, cr);
	cairo_destroy(cr);
	cairo_surface_flush(s);
	t4 = now_ms();
	rsp_running_data_label(d);
	rsp_running_data_publish_labels(d);
	parts[0] += t1 - t0;
	parts[1] += t2 - t1;
	parts[2] += t3 - t2;
	parts[3] += t4 - t3;
	parts[4] += now_ms() - t4;
	cairo_surface_destroy(s);
	rsp_layout_clear(&l);
	rsp_running_data_free(d);
	rsp_analysis_free(a);
	rsp_trace_free(t);
	return t4 - t0;
}

struct redraw {
	double zoom_ms, layout_ms, pan_ms, hover_ms;
	size_t items;
};

/* At zoom @z around the middle, 8 positions: the worst of each kind of redraw. */
static struct redraw redraws(const struct rsp_view_ops *ops, const void *data, const void *state,
			     double z)
{
	struct redraw r = {0};
	double x0, x1, span;
	struct rsp_layout l;
	cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, W, H);
	cairo_surface_t *screen = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, W, H);

	ops->extent(data, state, &x0, &x1);
	span = (x1 - x0) / z;
	rsp_layout_init(&l);
	for (int k = 0; k < 8; k++) {
		struct rsp_view v = {0};
		double c = x0 + (x1 - x0) * (k + 0.5) / 8, t0, t1;
		cairo_t *cr;

		v.x0 = c - span / 2;
		v.x1 = c + span / 2;
		v.width = W;
		v.height = H;
		v.scroll_y = ops->home_y ? ops->home_y(data, state, H - RSP_RULER_H) : 0;
		/* a zoom: lay out, render */
		t0 = now_ms();
		rsp_layout_update(&l, ops, data, state, &v, true);
		r.layout_ms = fmax(r.layout_ms, now_ms() - t0);
		cr = cairo_create(img);
		rsp_layout_draw(&l, ops, data, &v, cr);
		cairo_destroy(cr);
		cairo_surface_flush(img);
		t1 = now_ms() - t0;
		r.zoom_ms = fmax(r.zoom_ms, t1);
		r.items =
		    rsp_scene_n_items(l.content) > r.items ? rsp_scene_n_items(l.content) : r.items;
		/* a pan by a third of the screen: inside the margin, render only */
		v.x0 += span / 3;
		v.x1 += span / 3;
		t0 = now_ms();
		if (rsp_layout_update(&l, ops, data, state, &v, false))
			fprintf(stderr, "viewer-bench: a small pan laid out again\n");
		cr = cairo_create(img);
		rsp_layout_draw(&l, ops, data, &v, cr);
		cairo_destroy(cr);
		cairo_surface_flush(img);
		r.pan_ms = fmax(r.pan_ms, now_ms() - t0);
		/* a hover: the cached image and an outline, and the hit test */
		t0 = now_ms();
		(void)rsp_layout_hit(&l, ops, data, &v, W / 2.0, H / 2.0, NULL);
		cr = cairo_create(screen);
		cairo_set_source_surface(cr, img, 0, 0);
		cairo_paint(cr);
		cairo_rectangle(cr, W / 2.0 - 40, H / 2.0 - 8, 80, 16);
		cairo_set_source_rgb(cr, 0, 0, 0);
		cairo_stroke(cr);
		cairo_destroy(cr);
		cairo_surface_flush(screen);
		r.hover_ms = fmax(r.hover_ms, now_ms() - t0);
	}
	rsp_layout_clear(&l);
	cairo_surface_destroy(img);
	cairo_surface_destroy(screen);
	return r;
}

static void bench_view(const char *name, const struct rsp_view_ops *ops, const void *data,
		       const void *state)
{
	double worst = 0;

	redraws(ops, data, state, 1); /* warm up: fonts, first touches of the images */
	printf("%-13s %10s %10s %10s %10s %8s\n", name, "zoom", "(layout)", "pan", "hover",
	       "items");
	for (double z = 1; z <= 1e6; z *= 10) {
		struct redraw r = redraws(ops, data, state, z);

		printf("  %9.0fx %7.2f ms %7.2f ms %7.2f ms %7.2f ms %8zu\n", z, r.zoom_ms,
		       r.layout_ms, r.pan_ms, r.hover_ms, r.items);
		worst = fmax(worst, fmax(r.zoom_ms, fmax(r.pan_ms, r.hover_ms)));
	}
	printf("  worst redraw: %.2f ms (goal 16 ms): %s\n", worst, worst <= 16 ? "ok" : "OVER");
}

int main(int argc, char **argv)
{
	const char *file, *rsp;
	int runs;
	double ff[16], rep[16], parts[5] = {0};
	char self[4096], def[4200];
	ssize_t n;

	if (argc < 2) {
		fprintf(stderr, "usage: viewer-bench FILE [RSP] [RUNS]\n");
		return 2;
	}
	file = argv[1];
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[n > 0 ? n : 0] = '\0';
	if (strrchr(self, '/'))
		*strrchr(self, '/') = '\0';
	snprintf(def, sizeof(def), "%s/../../cli/rsp", self);
	rsp = argc > 2 ? argv[2] : def;
	runs = argc > 3 ? atoi(argv[3]) : 3;
	if (runs < 1 || runs > 16)
		runs = 3;

	{
		struct rsp_trace_opts o = {0};
		struct rsp_trace *t;
		char err[512];

		if (rsp_trace_open(file, &o, &t, err, sizeof(err))) {
			fprintf(stderr, "viewer-bench: %s\n", err);
			return 1;
		}
		if (!rsp_trace_n_targets(t))
			verb = "info";
		rsp_trace_free(t);
	}
	printf("viewer-bench: %s\n\nfirst frame (headless: load, analyse, prepare, lay out, draw "
	       "%dx%d) against `rsp %s`%s, interleaved, %d runs\n",
	       file, W, H, verb,
	       strcmp(verb, "info") ? "" : " (no target recorded: every thread, no analysis)", runs);
	for (int i = 0; i < runs; i++) {
		rep[i] = report_ms(rsp, file);
		ff[i] = first_frame_ms(file, parts);
		printf("  run %d: rsp %s %.0f ms, first frame %.0f ms\n", i + 1, verb, rep[i], ff[i]);
	}
	printf("  first frame: load %.0f + analyse %.0f + prepare %.0f + layout/draw %.0f ms "
	       "(means); then the sleeps' labels, on a worker: %.0f ms\n",
	       parts[0] / runs, parts[1] / runs, parts[2] / runs, parts[3] / runs,
	       parts[4] / runs);
	{
		double f = median(ff, runs), r = median(rep, runs);

		printf("  median: first frame %.0f ms, rsp %s %.0f ms: ratio %.2f (goal <= 2): "
		       "%s\n\n",
		       f, verb, r, f / r, f / r <= 2 ? "ok" : "OVER");
	}

	/* redraws */
	{
		struct rsp_trace_opts o = {0};
		struct rsp_trace *t;
		struct rsp_analysis *a = NULL;
		struct rsp_running_data *rd;
		struct rsp_flame_data *fd = NULL;
		struct rsp_cons_tree *ct = NULL;
		struct rsp_running_state rs = {.show_sleeps = true};
		struct rsp_flame_state fs = {.category = -1};
		struct rsp_cons_state cs = {.category = -1};
		char err[512];
		int pids[64];
		size_t nt;
		double t0;

		if (rsp_trace_open(file, &o, &t, err, sizeof(err)))
			return 1;
		nt = rsp_trace_n_targets(t);
		for (size_t i = 0; i < nt && i < 64; i++)
			pids[i] = rsp_trace_target(t, i);
		if (nt)
			rsp_analyze(t, pids, nt < 64 ? nt : 64, 0, NULL, &a, err, sizeof(err));
		rsp_running_data_new(t, a, &rd, err, sizeof(err));
		printf(
		    "redraws (%dx%d; the worst of 8 positions per zoom level): a zoom lays out and "
		    "renders; a pan within the margin renders; a hover paints the cached image\n",
		    W, H);
		bench_view("running", &rsp_running_ops, rd, &rs);
		if (a) {
			t0 = now_ms();
			rsp_flame_data_new(t, a, &fd, err, sizeof(err));
			printf("(flame data prepared in %.0f ms, on a worker thread in the viewer; "
			       "%zu "
			       "nodes)\n",
			       now_ms() - t0, rsp_flame_n_nodes(fd));
			bench_view("flame", &rsp_flame_ops, fd, &fs);
			t0 = now_ms();
			ct = rsp_cons_tree_new(fd, true, false);
			printf("(consolidated tree built in %.0f ms, %zu boxes)\n", now_ms() - t0,
			       rsp_cons_n_nodes(ct));
			bench_view("consolidated", &rsp_cons_ops, ct, &cs);
		}
		rsp_cons_tree_free(ct);
		rsp_flame_data_free(fd);
		rsp_running_data_free(rd);
		rsp_analysis_free(a);
		rsp_trace_free(t);
	}
	return 0;
}
