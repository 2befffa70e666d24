/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-render: the process-running view (rows and their order, runs, sleeps
 * and their labels, links, inferred switch-ins, lanes, lost spans, culling)
 * and the ruler.
 */
#include "render-test.h"

#include <math.h>
#include <string.h>

/* Sleeps and their labels in a shot: how many, how many labelled. */
static void count_sleep_labels(struct shot *sh, size_t *sleeps, size_t *labelled)
{
	*sleeps = *labelled = 0;
	for (size_t i = 0; i < rsp_scene_n_items(sh->l.content); i++) {
		const struct rsp_scene_item *it = rsp_scene_item(sh->l.content, i);

		if (it->cls != RSP_CLS_SLEEP || RSP_HIT_KIND(it->id) != RSP_HIT_SLICE)
			continue;
		(*sleeps)++;
		*labelled += it->label && it->label_len > 0;
	}
}

/*
 * The app draws the running view before its sleeps are labelled: unlabelled,
 * the same boxes without labels; once labelled and published, the labels of
 * the whole preparation, box for box.
 */
void test_running_deferred_labels(void)
{
	struct fixture fx;
	struct rsp_running_data *d, *full;
	struct rsp_running_state st = {.show_sleeps = true};
	struct shot sh, sf;
	size_t n0, l0, n1, l1, nf, lf;
	char err[256];

	fixture_open(&fx, "rpcchain.data");
	g_assert_cmpint(rsp_running_data_new_unlabelled(fx.t, fx.a, &d, err, sizeof(err)), ==, 0);
	g_assert_cmpint(rsp_running_data_new(fx.t, fx.a, &full, err, sizeof(err)), ==, 0);
	g_assert_false(rsp_running_data_labelled(d));
	g_assert_true(rsp_running_data_labelled(full));
	shot_take(&sh, &rsp_running_ops, d, &st, 0, 0, 1600, 0, 0);
	count_sleep_labels(&sh, &n0, &l0);
	shot_free(&sh);
	g_assert_cmpuint(n0, >, 10);
	g_assert_cmpuint(l0, ==, 0);
	/* made, not yet published: still none */
	rsp_running_data_label(d);
	shot_take(&sh, &rsp_running_ops, d, &st, 0, 0, 1600, 0, 0);
	count_sleep_labels(&sh, &n1, &l1);
	shot_free(&sh);
	g_assert_cmpuint(l1, ==, 0);
	g_assert_true(rsp_running_data_publish_labels(d));
	g_assert_true(rsp_running_data_labelled(d));
	shot_take(&sh, &rsp_running_ops, d, &st, 0, 0, 1600, 0, 0);
	shot_take(&sf, &rsp_running_ops, full, &st, 0, 0, 1600, 0, 0);
	count_sleep_labels(&sh, &n1, &l1);
	count_sleep_labels(&sf, &nf, &lf);
	g_assert_cmpuint(n1, ==, n0);
	g_assert_cmpuint(l1, >, 0);
	g_assert_cmpuint(rsp_scene_n_items(sh.l.content), ==, rsp_scene_n_items(sf.l.content));
	for (size_t i = 0; i < rsp_scene_n_items(sh.l.content); i++) {
		const struct rsp_scene_item *a = rsp_scene_item(sh.l.content, i),
					    *b = rsp_scene_item(sf.l.content, i);

		g_assert_cmpuint(a->id, ==, b->id);
		g_assert_cmpstr(a->label ? a->label : "", ==, b->label ? b->label : "");
	}
	shot_free(&sh);
	shot_free(&sf);
	rsp_running_data_free(d);
	rsp_running_data_free(full);
	fixture_close(&fx);
}

void test_running(gconstpointer name)
{
	struct fixture fx;
	struct rsp_running_data *d;
	struct rsp_running_state st = {0};
	struct rsp_row_info ri;
	struct shot sh;
	char err[256];
	const struct rsp_scene_item *run, *sleep;
	size_t nrows, first_other = RSP_NO_INDEX;
	bool seen_link = false;

	fixture_open(&fx, name);
	g_assert_cmpint(rsp_running_data_new(fx.t, fx.a, &d, err, sizeof(err)), ==, 0);
	/* the target first, then its chains, then the rest */
	nrows = rsp_running_n_rows(d, &st);
	g_assert_cmpuint(nrows, >, 3);
	rsp_running_row(d, &st, 0, &ri);
	g_assert_true(ri.target);
	g_assert_cmpint(ri.pid, ==, fx.target);
	for (size_t r = 0; r < nrows; r++) {
		rsp_running_row(d, &st, r, &ri);
		if (!ri.in_chain && first_other == RSP_NO_INDEX)
			first_other = r;
		if (first_other != RSP_NO_INDEX)
			g_assert_false(ri.in_chain && ri.kind <= RSP_ROW_THREAD);
	}
	g_assert_cmpuint(first_other, >=, 1);
	st.chains_only = true;
	g_assert_cmpuint(rsp_running_n_rows(d, &st), ==, first_other);
	st.chains_only = false;

	/* runs are red bars in their rows; the ids say which slice */
	shot_take(&sh, &rsp_running_ops, d, &st, 0, 0, 1600, 0, 0);
	shot_save(&sh, "running-%s.png", (const char *)name);
	run = find_item(&sh, RSP_CLS_RUN, 3, RSP_HIT_SLICE);
	g_assert_nonnull(run);
	assert_colour_at(&sh, run, RSP_CLS_RUN);
	{
		uint64_t p = RSP_HIT_PAYLOAD(run->id);
		size_t row = rsp_running_row_at(d, &st, run->y);

		g_assert_cmpuint(row, !=, RSP_NO_INDEX);
		g_assert_cmpuint(run->t1, >, run->t0);
		g_assert_cmpuint(p & 0xffffffff, <, 1u << 31);
		/* x from the times */
		g_assert_cmpfloat(fabs(run->x - floor((run->t0 - sh.l.lx0) * sh.l.scale)), <=, 1);
	}
	if (!strcmp(name, "rpcchain.data")) {
		/* it has switch-ins the kernel did not record: marked; and its
		 * socket lanes show the data in flight, in teal */
		size_t marks = 0, net = 0;

		for (size_t i = 0; i < rsp_scene_n_items(sh.l.content); i++) {
			marks += rsp_scene_item(sh.l.content, i)->cls == RSP_CLS_INFERRED;
			net += rsp_scene_item(sh.l.content, i)->cls == RSP_CLS_NET;
		}
		g_assert_cmpuint(marks, >, 0);
		g_assert_cmpuint(net, >, 0);
	}
	/* no sleeps drawn unless asked */
	g_assert_null(find_item(&sh, RSP_CLS_SLEEP, 1, RSP_HIT_NONE));
	/* links: lines between two rows' centres */
	for (size_t i = 0; i < rsp_scene_n_items(sh.l.content); i++) {
		const struct rsp_scene_item *it = rsp_scene_item(sh.l.content, i);
		double fy, ty;

		if (it->prim != RSP_PRIM_LINE || it->cls != RSP_CLS_LINK)
			continue;
		fy = fmod(it->y, RSP_ROW_H);
		ty = fmod(it->y + it->h, RSP_ROW_H);
		g_assert_cmpfloat(fabs(fy - RSP_ROW_H / 2.0), <, 0.01);
		g_assert_cmpfloat(fabs(ty - RSP_ROW_H / 2.0), <, 0.01);
		g_assert_cmpfloat(fabs(it->h), >=, RSP_ROW_H);
		g_assert_cmpuint(it->t1, >=, it->t0);
		seen_link = true;
	}
	g_assert_true(seen_link);
	shot_free(&sh);

	/* with sleeps: blue boxes, labelled where they fit */
	st.show_sleeps = true;
	shot_take(&sh, &rsp_running_ops, d, &st, 0, 0, 1600, 0, 0);
	shot_save(&sh, "running-sleeps-%s.png", (const char *)name);
	sleep = find_item(&sh, RSP_CLS_SLEEP, 6, RSP_HIT_SLICE);
	g_assert_nonnull(sleep);
	assert_colour_at(&sh, sleep, RSP_CLS_SLEEP);
	for (size_t i = 0; i < rsp_scene_n_items(sh.l.content); i++) {
		const struct rsp_scene_item *it = rsp_scene_item(sh.l.content, i);

		if (it->label_len)
			g_assert_cmpfloat(rsp_text_width(it->label, it->label_len), <=, it->w);
	}
	shot_free(&sh);
	rsp_running_data_free(d);
	fixture_close(&fx);
}

/* Culling: at most a few boxes per pixel column and row, whatever the number of slices. */
void test_running_culling(void)
{
	struct fixture fx;
	struct rsp_running_data *d;
	struct rsp_running_state st = {.show_sleeps = true};
	struct shot narrow, wide;
	char err[256];
	size_t rows;

	fixture_open(&fx, "pass.data");
	g_assert_cmpint(rsp_running_data_new(fx.t, fx.a, &d, err, sizeof(err)), ==, 0);
	rows = rsp_running_n_rows(d, &st);
	shot_take(&narrow, &rsp_running_ops, d, &st, 0, 0, 200, 0, 0);
	shot_take(&wide, &rsp_running_ops, d, &st, 0, 0, 3000, 0, 0);
	/* the content covers three screens: a bound per column and row */
	g_assert_cmpuint(rsp_scene_n_items(narrow.l.content), <=,
			 rows * (3 * 200 / 2 + 8) + 3 * 200);
	g_assert_cmpuint(rsp_scene_n_items(narrow.l.content), <, rsp_scene_n_items(wide.l.content));
	shot_free(&narrow);
	shot_free(&wide);
	rsp_running_data_free(d);
	fixture_close(&fx);
}

void test_ruler(void)
{
	static const struct {
		double span;
		const char *unit;
	} cases[] = {
	    {4e9, " s"},
	    {5e6, " ms"},
	    {50e3, " \xc2\xb5s"},
	    {100, " ns"},
	};
	char buf[64];

	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		struct rsp_scene *s = rsp_scene_new();
		size_t texts = 0;

		rsp_ruler_layout(s, 1e12, 1e12 + cases[i].span, 1e12, 0, 1000);
		for (size_t k = 0; k < rsp_scene_n_items(s); k++) {
			const struct rsp_scene_item *it = rsp_scene_item(s, k);

			if (it->prim != RSP_PRIM_TEXT)
				continue;
			g_assert_true(g_str_has_suffix(it->label, cases[i].unit));
			texts++;
		}
		/* ticks at least ~100 px apart, at least a few */
		g_assert_cmpuint(texts, >=, 4);
		g_assert_cmpuint(texts, <=, 11);
		rsp_scene_free(s);
	}
	rsp_format_duration(buf, sizeof(buf), 1.5e9);
	g_assert_cmpstr(buf, ==, "1.50 s");
	rsp_format_duration(buf, sizeof(buf), 250e3);
	g_assert_cmpstr(buf, ==, "250 \xc2\xb5s");
	rsp_format_duration(buf, sizeof(buf), 999.7e6);
	g_assert_cmpstr(buf, ==, "1.00 s");
	rsp_format_duration(buf, sizeof(buf), 12);
	g_assert_cmpstr(buf, ==, "12 ns");
}

/* Lost records: a hatched span across the rows; unknown slices hatched in theirs. */
void test_running_lost(void)
{
	struct synth *sy;
	size_t len;
	const void *buf = pingpong(&sy, 400, &len);
	struct rsp_trace_opts o = {.no_symbols = true};
	struct rsp_trace *t;
	struct rsp_running_data *d;
	struct rsp_running_state st = {.show_sleeps = true};
	struct shot sh;
	char err[256];
	size_t lost = 0;

	g_assert_cmpint(rsp_trace_open_mem(buf, len, &o, &t, err, sizeof(err)), ==, 0);
	g_assert_cmpuint(rsp_trace_n_lost(t), >, 0);
	g_assert_cmpint(rsp_running_data_new(t, NULL, &d, err, sizeof(err)), ==, 0);
	shot_take(&sh, &rsp_running_ops, d, &st, 0, 0, 1000, 0, 0);
	shot_save(&sh, "running-lost.png");
	for (size_t i = 0; i < rsp_scene_n_items(sh.l.content); i++) {
		const struct rsp_scene_item *it = rsp_scene_item(sh.l.content, i);

		if (it->cls == RSP_CLS_LOST) {
			g_assert_cmpint(it->prim, ==, RSP_PRIM_HATCH);
			g_assert_cmpfloat(it->h, >=, 2 * RSP_ROW_H); /* across the rows */
			lost++;
		}
	}
	g_assert_cmpuint(lost, >, 0);
	/* the two tasks' rows: ping (the target) first */
	{
		struct rsp_row_info ri;

		rsp_running_row(d, &st, 0, &ri);
		g_assert_cmpint(ri.pid, ==, 100);
		g_assert_true(ri.target);
	}
	shot_free(&sh);
	rsp_running_data_free(d);
	rsp_trace_free(t);
	synth_free(sy);
}

/* A span the recorder shed one event type in (the CPU sampler's): the timeline
 * is whole there, so no hatch across the rows, but a strip along the top whose
 * tooltip names the event, the span and what it leaves uncertain. */
void test_running_shed(void)
{
	struct synth *sy = synth_new(&(struct synth_opts){0});
	uint64_t t = 1000000000ull;
	int pids[1] = {100};
	size_t len, shed = 0;
	const void *buf;
	struct rsp_trace_opts o = {.no_symbols = true};
	struct rsp_trace *tr;
	struct rsp_running_data *d;
	struct rsp_running_state st = {.show_sleeps = true};
	struct shot sh;
	char err[256];

	synth_comm(sy, 0, 100, 100, "ping", false);
	synth_comm(sy, 0, 200, 200, "pong", false);
	synth_targets(sy, pids, 1);
	synth_switch(sy, 0, t, 0, "swapper/0", 0, 100, "ping");
	for (size_t i = 0; i < 400; i++) {
		int a = i & 1 ? 200 : 100, b = i & 1 ? 100 : 200;

		t += 10000;
		synth_waking(sy, 0, t, b, 0, b, b == 100 ? "ping" : "pong", 0, false, NULL, 0);
		synth_switch(sy, 0, t + 500, a, a == 100 ? "ping" : "pong", 1, b,
			     b == 100 ? "ping" : "pong");
		if (i == 100)
			synth_shed(sy, t + 600, 0, 0, true);
		if (i == 300)
			synth_shed(sy, t + 600, 0, 77, false);
	}
	buf = synth_finish(sy, &len);
	g_assert_cmpint(rsp_trace_open_mem(buf, len, &o, &tr, err, sizeof(err)), ==, 0);
	g_assert_cmpint(rsp_running_data_new(tr, NULL, &d, err, sizeof(err)), ==, 0);
	shot_take(&sh, &rsp_running_ops, d, &st, 0, 0, 1000, 0, 0);
	shot_save(&sh, "running-shed.png");
	for (size_t i = 0; i < rsp_scene_n_items(sh.l.content); i++) {
		const struct rsp_scene_item *it = rsp_scene_item(sh.l.content, i);
		GString *tip;

		g_assert_cmpint(it->cls, !=, RSP_CLS_LOST); /* nothing unknown */
		if (it->cls != RSP_CLS_SHED)
			continue;
		shed++;
		g_assert_cmpint(it->prim, ==, RSP_PRIM_RECT);
		assert_colour_at(&sh, it, RSP_CLS_SHED);
		g_assert_cmpfloat(it->h, ==, RSP_SHED_STRIP_H);
		/* 200 of the 400 switches 10 us apart: half the 800 px right of the gutter */
		g_assert_cmpfloat(it->w, >, 380);
		g_assert_cmpfloat(it->w, <, 420);
		g_assert_cmpint(RSP_HIT_KIND(it->id), ==, RSP_HIT_LOST);
		tip = g_string_new(NULL);
		rsp_running_ops.title(d, &st, it, tip);
		g_assert_nonnull(strstr(tip->str, "cpu-clock shed by the recorder"));
		g_assert_nonnull(strstr(tip->str, "77 records"));
		g_assert_nonnull(strstr(tip->str, "uncertain there: CPU samples"));
		g_string_free(tip, TRUE);
	}
	g_assert_cmpuint(shed, ==, 1);
	shot_free(&sh);
	rsp_running_data_free(d);
	rsp_trace_free(tr);
	synth_free(sy);
}
