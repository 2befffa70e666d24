/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-render: the process-running view (rows and their order, runs, sleeps
 * and their labels, links, inferred switch-ins, lanes, lost spans, culling)
 * and the ruler.
 */
#include "render-test.h"
#include "render-running-private.h"

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

/*
 * Command lines (issue 41): a process whose command line the file has is
 * named by it on its row ("make 100 -j2 all": the comm, the pid, the
 * arguments) and in the row's and its runs' tooltips (the whole line); one
 * without keeps "comm pid".
 */
void test_running_cmdline(void)
{
	struct synth *sy = synth_new(&(struct synth_opts){0});
	uint64_t t = 1000000000ull;
	int pids[1] = {100};
	size_t len, rows = 0, runs = 0;
	const void *buf;
	struct rsp_trace_opts o = {.no_symbols = true};
	struct rsp_trace *tr;
	struct rsp_running_data *d;
	struct rsp_running_state st = {.show_sleeps = true};
	struct shot sh;
	char err[256];

	synth_comm(sy, 0, 100, 100, "make", false);
	synth_comm(sy, 0, 200, 200, "pong", false);
	synth_cmdline(sy, 0, 100, "/usr/bin/make\0-j2\0all\0", 22, 22);
	synth_targets(sy, pids, 1);
	synth_switch(sy, 0, t, 0, "swapper/0", 0, 100, "make");
	for (size_t i = 0; i < 4; i++) {
		int a = i & 1 ? 200 : 100, b = i & 1 ? 100 : 200;

		t += 10000;
		synth_switch(sy, 0, t, a, a == 100 ? "make" : "pong", 1, b,
			     b == 100 ? "make" : "pong");
	}
	buf = synth_finish(sy, &len);
	g_assert_cmpint(rsp_trace_open_mem(buf, len, &o, &tr, err, sizeof(err)), ==, 0);
	g_assert_cmpint(rsp_running_data_new(tr, NULL, &d, err, sizeof(err)), ==, 0);
	shot_take(&sh, &rsp_running_ops, d, &st, 0, 0, 1000, 0, 0);
	shot_save(&sh, "running-cmdline.png");
	for (size_t i = 0; i < rsp_scene_n_items(sh.l.content) + rsp_scene_n_items(sh.l.chrome);
	     i++) {
		size_t nc = rsp_scene_n_items(sh.l.content);
		const struct rsp_scene_item *it = i < nc ? rsp_scene_item(sh.l.content, i)
							 : rsp_scene_item(sh.l.chrome, i - nc);
		g_autoptr(GString) tip = g_string_new(NULL);

		rsp_running_ops.title(d, &st, it, tip);
		if (RSP_HIT_KIND(it->id) == RSP_HIT_ROW_NAME && it->label &&
		    !strncmp(it->label, "make", 4)) {
			rows++;
			g_assert_cmpstr(it->label, ==, "make 100 -j2 all");
			g_assert_nonnull(strstr(tip->str, "\ncommand line: /usr/bin/make -j2 all\n"));
		} else if (RSP_HIT_KIND(it->id) == RSP_HIT_ROW_NAME && it->label &&
			   !strncmp(it->label, "pong", 4)) {
			rows++;
			g_assert_cmpstr(it->label, ==, "pong 200");
			g_assert_null(strstr(tip->str, "command line"));
		} else if (strstr(tip->str, "make (pid 100, tid 100)")) {
			runs++;
			g_assert_nonnull(strstr(tip->str, "\ncommand line: /usr/bin/make -j2 all\n"));
		}
	}
	g_assert_cmpuint(rows, ==, 2);
	g_assert_cmpuint(runs, >, 0);
	shot_free(&sh);
	rsp_running_data_free(d);
	rsp_trace_free(tr);
	synth_free(sy);
}

/*
 * A server's connections share a socket lane (a web server's minute has a
 * million): ten clients of a listener on :5432 are one lane on the server's
 * side, "socket 127.0.0.1:5432 <- * (10 connections)", and one on the
 * clients', "socket * <- 127.0.0.1:5432 (10 connections)"; each item's
 * tooltip names its own connection.  A connection to a service without a
 * listener here is grouped by the end that is not ephemeral (two to :6000
 * from ports 40100 and 40101: a lane on each side); one between two ports
 * neither ephemeral nor listening (1000 <-> 2000) keeps a lane per socket,
 * named as before.
 */
void test_running_socket_groups(void)
{
	struct synth *sy = synth_new(&(struct synth_opts){0});
	const uint8_t lo[4] = {127, 0, 0, 1};
	const uint64_t LSN = 0xffff80000000ull, CS = 0xffff81000000ull, AS = 0xffff82000000ull;
	uint64_t t = 1000000000ull;
	struct rsp_trace_opts o = {.no_symbols = true};
	struct rsp_running_state st = {0};
	struct rsp_running_data *d;
	struct rsp_trace *tr;
	struct shot sh;
	const void *buf;
	char err[256];
	size_t len, items[4] = {0};
	const char *want[4] = {"socket 127.0.0.1:5432 <- * (10 connections)",
			       "socket * <- 127.0.0.1:5432 (10 connections)",
			       "socket * <- 127.0.0.1:6000 (2 connections)",
			       "socket 127.0.0.1:1000 <- 127.0.0.1:2000"};
	struct {
		uint64_t c, a;
		uint16_t cport, sport;
	} conn[13];
	size_t lanes = 0;

	synth_comm(sy, 0, 500, 500, "srv", false);
	synth_comm(sy, 0, 600, 600, "cli", false);
	synth_switch(sy, 0, t, 0, "swapper/0", 0, 500, "srv");
	synth_switch(sy, 1, t, 0, "swapper/1", 0, 600, "cli");
	synth_sock_state(sy, 0, t + 1000, 500, LSN, lo, 5432, (const uint8_t[4]){0}, 0,
			 10 /* LISTEN */);
	for (int k = 0; k < 13; k++) {
		conn[k].c = CS + (uint64_t)k * 64;
		conn[k].a = AS + (uint64_t)k * 64;
		conn[k].cport = k < 10 ? (uint16_t)(40001 + k) : k < 12 ? (uint16_t)(40090 + k) : 2000;
		conn[k].sport = k < 10 ? 5432 : k < 12 ? 6000 : 1000;
		t += 10000;
		synth_sock_state(sy, 1, t, 600, conn[k].c, lo, conn[k].cport, lo, conn[k].sport,
				 1 /* ESTABLISHED */);
		synth_sock_state(sy, 0, t + 10, 500, conn[k].a, lo, conn[k].sport, lo,
				 conn[k].cport, 1);
	}
	for (int round = 0; round < 3; round++)
		for (int k = 0; k < 13; k++) {
			t += 10000;
			synth_sock_send(sy, 1, t, 600, conn[k].c, 2, 64);
			synth_sk_ready(sy, 1, t + 5, 600, 0, conn[k].a, 2);
			synth_sock_send(sy, 0, t + 2000, 500, conn[k].a, 2, 64);
			synth_sk_ready(sy, 0, t + 2005, 500, 0, conn[k].c, 2);
		}
	t += 10000;
	synth_switch(sy, 0, t, 500, "srv", 1, 0, "swapper/0");
	synth_switch(sy, 1, t, 600, "cli", 1, 0, "swapper/1");
	buf = synth_finish(sy, &len);
	g_assert_cmpint(rsp_trace_open_mem(buf, len, &o, &tr, err, sizeof(err)), ==, 0);
	g_assert_cmpint(rsp_running_data_new(tr, NULL, &d, err, sizeof(err)), ==, 0);
	for (size_t r = 0; r < rsp_running_n_rows(d, &st); r++) {
		struct rsp_row_info ri;
		bool known = false;

		rsp_running_row(d, &st, r, &ri);
		if (ri.kind != RSP_ROW_SOCKET)
			continue;
		lanes++;
		for (int w = 0; w < 4; w++)
			known |= !strcmp(ri.name, want[w]);
		/* the other ends of :6000's and of the lone pair */
		known |= !strcmp(ri.name, "socket 127.0.0.1:6000 <- * (2 connections)") ||
			 !strcmp(ri.name, "socket 127.0.0.1:2000 <- 127.0.0.1:1000");
		if (!known)
			g_test_message("unexpected lane: %s", ri.name);
		g_assert_true(known);
	}
	g_assert_cmpuint(lanes, ==, 6);
	/* every item in its lane, its tooltip its own connection */
	shot_take(&sh, &rsp_running_ops, d, &st, 0, 0, 1600, 0, 0);
	for (size_t i = 0; i < rsp_scene_n_items(sh.l.content); i++) {
		const struct rsp_scene_item *it = rsp_scene_item(sh.l.content, i);
		struct rsp_row_info ri;
		GString *tip;
		int w = -1;

		if (RSP_HIT_KIND(it->id) != RSP_HIT_LANE || it->cls != RSP_CLS_NET)
			continue;
		rsp_running_row(d, &st, rsp_running_row_at(d, &st, it->y), &ri);
		for (int k = 0; k < 4; k++)
			if (!strcmp(ri.name, want[k]))
				w = k;
		if (w < 0)
			continue;
		items[w]++;
		tip = g_string_new(NULL);
		rsp_running_ops.title(d, &st, it, tip);
		if (w == 0)
			g_assert_true(g_str_has_prefix(tip->str, "socket 127.0.0.1:5432 <- 127.0.0.1:400"));
		else if (w == 1)
			g_assert_true(g_str_has_prefix(tip->str, "socket 127.0.0.1:400") &&
				      strstr(tip->str, " <- 127.0.0.1:5432\n"));
		else if (w == 2)
			g_assert_true(g_str_has_prefix(tip->str, "socket 127.0.0.1:401") &&
				      strstr(tip->str, " <- 127.0.0.1:6000\n"));
		else
			g_assert_true(g_str_has_prefix(tip->str, want[3]));
		g_string_free(tip, TRUE);
	}
	/* three rounds of each connection's exchange, each one item */
	g_assert_cmpuint(items[0], ==, 30);
	g_assert_cmpuint(items[1], ==, 30);
	g_assert_cmpuint(items[2], ==, 6);
	g_assert_cmpuint(items[3], ==, 3);
	shot_free(&sh);
	rsp_running_data_free(d);
	rsp_trace_free(tr);
	synth_free(sy);
}

/*
 * A long thread's time grid gives the slice at a time as a search through
 * every slice would: threads of bursts and idle gaps (cells of hundreds of
 * slices, cells of none), zero-length slices, times before, between and after
 * them, at and just after their ends, from any slice on (a layout asks from its
 * last column's slice).
 */
void test_running_grid(void)
{
	GRand *rnd = g_rand_new_with_seed(7);

	for (int round = 0; round < 40; round++) {
		struct rthread th = {0};
		uint64_t at = 1000000000ull + (uint64_t)g_rand_int_range(rnd, 0, 1000);
		size_t n = (size_t)g_rand_int_range(rnd, 200, 5000), checked = 0;

		th.n = n;
		th.v = g_new0(struct rslice, n);
		for (size_t k = 0; k < n; k++) {
			/* bursts of short slices, now and then an idle gap of a second */
			uint64_t len = g_rand_int_range(rnd, 0, 8) == 0 ? 0
									 : (uint64_t)g_rand_int_range(rnd, 1, 5000);

			if (g_rand_int_range(rnd, 0, 300) == 0)
				at += 1000000000ull;
			th.v[k].s = at;
			th.v[k].e = at + len;
			at += len + (uint64_t)g_rand_int_range(rnd, 0, 3);
		}
		_rsp_running_grid(&th);
		g_assert_true((n >= 256) == (th.grid != NULL));
		for (int q = 0; q < 4000; q++) {
			size_t from = (size_t)g_rand_int_range(rnd, 0, (gint32)n + 1), want = from;
			uint64_t span = th.v[n - 1].e - th.v[0].s + 20000;
			double t = (double)(th.v[0].s - 10000) +
				   (double)(uint64_t)(g_rand_double(rnd) * (double)span);

			if (q & 1) /* exactly at a slice's end, where the search turns */
				t = (double)th.v[(size_t)g_rand_int_range(rnd, 0, (gint32)n)].e;
			if (q % 4 >= 2) /* a column's time: between nanoseconds */
				t += g_rand_double_range(rnd, 0.001, 0.999);
			while (want < n && (double)th.v[want].e <= t)
				want++;
			g_assert_cmpuint(_rsp_running_next(&th, from, t), ==, want);
			checked++;
		}
		g_assert_cmpuint(checked, ==, 4000);
		g_free(th.v);
		g_free(th.grid);
	}
	g_rand_free(rnd);
	/* slices of 4 ns end on cell bounds (17 ns apart) every 68 ns: every
	 * half nanosecond, from the start and from a slice further on */
	{
		struct rthread th = {0};
		size_t n = 1000;

		th.n = n;
		th.v = g_new0(struct rslice, n);
		for (size_t k = 0; k < n; k++) {
			th.v[k].s = 5000 + 4 * k;
			th.v[k].e = 5000 + 4 * (k + 1);
		}
		_rsp_running_grid(&th);
		g_assert_cmpuint(th.grid_step, ==, 17);
		for (double t = 4990; t < 5000 + 4 * n + 10; t += 0.5)
			for (size_t from = 0; from < n; from += 401) {
				size_t want = from;

				while (want < n && (double)th.v[want].e <= t)
					want++;
				g_assert_cmpuint(_rsp_running_next(&th, from, t), ==, want);
			}
		g_free(th.v);
		g_free(th.grid);
	}
}

/*
 * Links on an image: a steep line a few pixels wide is drawn as its columns
 * of pixels (render-scene.c, a fill on the pixel grid).  Every pixel painted
 * lies within a pixel of the ideal line, and the line has no gap: each row
 * it spans has a painted pixel.  Lines of other slopes are stroked as before.
 */
void test_scene_steep_lines(void)
{
	static const double lines[][4] = {
	    {20.3, 10.0, 0.0, 150.0},  {40.5, 160.0, 0.4, -140.0}, {60.2, 10.0, 3.7, 170.0},
	    {90.0, 180.0, -12.5, -165.0}, {120.7, 5.0, 31.0, 190.0}, {150.1, 20.0, 20.0, 20.0},
	};

	for (size_t i = 0; i < G_N_ELEMENTS(lines); i++) {
		const double *l = lines[i];
		cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 200, 200);
		cairo_t *cr = cairo_create(img);
		struct rsp_scene *s = rsp_scene_new();
		size_t painted = 0;
		unsigned char *px;
		int stride;

		cairo_set_source_rgb(cr, 1, 1, 1);
		cairo_paint(cr);
		rsp_scene_add(s, RSP_PRIM_LINE, RSP_CLS_LINK, l[0], l[1], l[2], l[3]);
		rsp_scene_draw(s, cr, 0, 0, 200, 200);
		cairo_surface_flush(img);
		px = cairo_image_surface_get_data(img);
		stride = cairo_image_surface_get_stride(img);
		for (int y = 0; y < 200; y++) {
			int in_row = 0;

			for (int x = 0; x < 200; x++) {
				uint32_t v = *(uint32_t *)(void *)(px + y * stride + x * 4) & 0xffffff;
				double cx = x + 0.5, cy = y + 0.5;
				/* distance of the pixel's centre from the segment */
				double len2 = l[2] * l[2] + l[3] * l[3];
				double u = ((cx - l[0]) * l[2] + (cy - l[1]) * l[3]) / len2;
				double qx, qy;

				if (v == 0xffffff)
					continue;
				painted++;
				in_row++;
				u = u < 0 ? 0 : u > 1 ? 1 : u;
				qx = l[0] + u * l[2] - cx;
				qy = l[1] + u * l[3] - cy;
				g_assert_cmpfloat(sqrt(qx * qx + qy * qy), <=, 1.5);
			}
			/* no gap: the rows the steep line spans, but its end rows */
			if (fabs(l[3]) >= fabs(l[2]) && y > fmin(l[1], l[1] + l[3]) + 1 &&
			    y < fmax(l[1], l[1] + l[3]) - 1)
				g_assert_cmpint(in_row, >=, 1);
		}
		g_assert_cmpuint(painted, >=, (size_t)fmax(fabs(l[2]), fabs(l[3])) - 2);
		rsp_scene_free(s);
		cairo_destroy(cr);
		cairo_surface_destroy(img);
	}
}

/* The items of a content scene, as a string to compare */
static GString *scene_text(const struct rsp_scene *s)
{
	GString *out = g_string_new(NULL);

	for (size_t i = 0; i < rsp_scene_n_items(s); i++) {
		const struct rsp_scene_item *it = rsp_scene_item(s, i);

		g_string_append_printf(out, "%d %d %.3f %.3f %.3f %.3f %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT
				       " %" G_GUINT64_FORMAT " %x %u %.*s\n", it->prim, it->cls, it->x, it->y, it->w,
				       it->h, (guint64)it->id, (guint64)it->t0, (guint64)it->t1,
				       it->flags, it->aux, it->label ? (int)it->label_len : 0,
				       it->label ? it->label : "");
	}
	return out;
}

/*
 * A lane of thousands of items (a server's connections): the layout starts at
 * the first item that may reach the view (items last at most maxdur) and
 * jumps over whole blocks of items narrower than a pixel in a column every
 * sub-lane has drawn.  The same scene as a walk over every item: the lanes'
 * block bounds and maxdur made useless (every block "wide", every item "long")
 * and the layouts compared, at zooms from the whole to a few items, at
 * positions across the trace.
 */
void test_running_lane_skip(void)
{
	struct synth *sy = synth_new(&(struct synth_opts){0});
	const uint8_t lo[4] = {127, 0, 0, 1};
	GRand *rnd = g_rand_new_with_seed(11);
	uint64_t t = 1000000000ull, t0 = t;
	struct rsp_trace_opts o = {.no_symbols = true};
	struct rsp_running_state st = {0};
	struct rsp_running_data *d;
	struct rsp_trace *tr;
	const void *buf;
	char err[256];
	size_t len, compared = 0, big = 0;

	synth_comm(sy, 0, 500, 500, "srv", false);
	synth_comm(sy, 0, 600, 600, "cli", false);
	synth_switch(sy, 0, t, 0, "swapper/0", 0, 500, "srv");
	synth_switch(sy, 1, t, 0, "swapper/1", 0, 600, "cli");
	synth_sock_state(sy, 0, t + 1000, 500, 0xffff80000000ull, lo, 5432, (const uint8_t[4]){0}, 0,
			 10 /* LISTEN */);
	for (int k = 0; k < 4; k++) {
		synth_sock_state(sy, 1, t + 2000 + k, 600, 0xffff81000000ull + k * 64, lo,
				 (uint16_t)(40001 + k), lo, 5432, 1);
		synth_sock_state(sy, 0, t + 3000 + k, 500, 0xffff82000000ull + k * 64, lo, 5432, lo,
				 (uint16_t)(40001 + k), 1);
	}
	t += 10000;
	for (int i = 0; i < 6000; i++) {
		int k = g_rand_int_range(rnd, 0, 4);
		/* bursts of short messages, now and then a long one in flight */
		uint64_t flight = g_rand_int_range(rnd, 0, 10) ? (uint64_t)g_rand_int_range(rnd, 1, 3000)
							     : (uint64_t)g_rand_int_range(rnd, 50000, 3000000);

		t += g_rand_int_range(rnd, 0, 40) ? (uint64_t)g_rand_int_range(rnd, 100, 1000)
						  : (uint64_t)g_rand_int_range(rnd, 100000, 2000000);
		synth_sock_send(sy, 1, t, 600, 0xffff81000000ull + k * 64, 2, 64);
		synth_sk_ready(sy, 1, t + flight, 600, 0, 0xffff82000000ull + k * 64, 2);
	}
	/* then runs of 40 tiny items 10 ns apart, each run followed by one in
	 * flight for 2 ms: blocks of narrow items in columns where a wide one starts */
	t += 3000000;
	for (int run = 0; run < 3000; run++) {
		for (int i = 0; i < 40; i++) {
			t += 10;
			synth_sock_send(sy, 1, t, 600, 0xffff81000000ull, 2, 64);
			synth_sk_ready(sy, 1, t + 1, 600, 0, 0xffff82000000ull, 2);
		}
		t += 10;
		synth_sock_send(sy, 1, t, 600, 0xffff81000000ull, 2, 64);
		synth_sk_ready(sy, 1, t + 2000000, 600, 0, 0xffff82000000ull, 2);
	}
	t += 3000000 + 10000;
	synth_switch(sy, 0, t, 500, "srv", 1, 0, "swapper/0");
	synth_switch(sy, 1, t, 600, "cli", 1, 0, "swapper/1");
	buf = synth_finish(sy, &len);
	g_assert_cmpint(rsp_trace_open_mem(buf, len, &o, &tr, err, sizeof(err)), ==, 0);
	g_assert_cmpint(rsp_running_data_new(tr, NULL, &d, err, sizeof(err)), ==, 0);
	for (size_t i = 0; i < d->n_lanes; i++) {
		big += d->lanes[i].n >= 1000;
		g_test_message("lane %s n %zu maxdur %" G_GUINT64_FORMAT " nsub %d", d->lanes[i].name, d->lanes[i].n, (guint64)d->lanes[i].maxdur, d->lanes[i].n_sub);
	}
	g_assert_cmpuint(big, >=, 1);
	for (int zoom = 0; zoom < 9; zoom++) {
		double span = (double)(t - t0) / pow(8, zoom);

		for (int pos = 0; pos < 9; pos++) {
			double x0 = (double)t0 + ((double)(t - t0) - span) * pos / 8;
			struct shot a, b;
			GString *sa, *sb;
			uint64_t **saved = g_new(uint64_t *, d->n_lanes);
			uint64_t *maxdur = g_new(uint64_t, d->n_lanes);

			shot_take(&a, &rsp_running_ops, d, &st, x0, x0 + span, 1600, 0, 0);
			for (size_t i = 0; i < d->n_lanes; i++) {
				struct rlane *l = &d->lanes[i];

				saved[i] = l->blockdur;
				maxdur[i] = l->maxdur;
				l->blockdur = g_new(uint64_t, l->n / LANE_BLOCK + 1);
				for (size_t q = 0; q <= l->n / LANE_BLOCK; q++)
					l->blockdur[q] = UINT64_MAX / 4;
				l->maxdur = UINT64_MAX / 4;
			}
			shot_take(&b, &rsp_running_ops, d, &st, x0, x0 + span, 1600, 0, 0);
			for (size_t i = 0; i < d->n_lanes; i++) {
				g_free(d->lanes[i].blockdur);
				d->lanes[i].blockdur = saved[i];
				d->lanes[i].maxdur = maxdur[i];
			}
			sa = scene_text(a.l.content);
			sb = scene_text(b.l.content);
			g_assert_cmpstr(sa->str, ==, sb->str);
			compared += rsp_scene_n_items(a.l.content);
			g_string_free(sa, TRUE);
			g_string_free(sb, TRUE);
			g_free(saved);
			g_free(maxdur);
			shot_free(&a);
			shot_free(&b);
		}
	}
	g_assert_cmpuint(compared, >, 1000);
	rsp_running_data_free(d);
	rsp_trace_free(tr);
	g_rand_free(rnd);
	synth_free(sy);
}

/*
 * A disk request whose completion the trace lost (perf drops completions on
 * idle CPUs) is a mark at its issue, its tooltip saying so, not a request in
 * service to the trace's end; a completed one keeps its span.
 */
void test_running_io_no_completion(void)
{
	struct synth *sy = synth_new(&(struct synth_opts){0});
	uint64_t t = 1000000000ull;
	struct rsp_trace_opts o = {.no_symbols = true};
	struct rsp_running_state st = {0};
	struct rsp_running_data *d;
	struct rsp_trace *tr;
	struct shot sh;
	const void *buf;
	char err[256];
	size_t len, seen = 0;

	synth_comm(sy, 0, 500, 500, "db", false);
	synth_switch(sy, 0, t, 0, "swapper/0", 0, 500, "db");
	/* sector 100: issued at +1 ms, complete at +3 ms; sector 900: issued at +2 ms, lost */
	synth_block(sy, SE_BLK_INSERT, 0, t + 1000000, 500, 0, 0x800001, 100, 8, "W");
	synth_block(sy, SE_BLK_ISSUE, 0, t + 1000000, 500, 0, 0x800001, 100, 8, "W");
	synth_block(sy, SE_BLK_INSERT, 0, t + 2000000, 500, 0, 0x800001, 900, 8, "W");
	synth_block(sy, SE_BLK_ISSUE, 0, t + 2000000, 500, 0, 0x800001, 900, 8, "W");
	synth_block(sy, SE_BLK_COMPLETE, 0, t + 3000000, 0, 0, 0x800001, 100, 8, "W");
	synth_switch(sy, 0, t + 10000000, 500, "db", 1, 0, "swapper/0");
	buf = synth_finish(sy, &len);
	g_assert_cmpint(rsp_trace_open_mem(buf, len, &o, &tr, err, sizeof(err)), ==, 0);
	g_assert_cmpint(rsp_running_data_new(tr, NULL, &d, err, sizeof(err)), ==, 0);
	/* 10 ms over 1000 px: 100 px a millisecond */
	shot_take(&sh, &rsp_running_ops, d, &st, 0, 0, 1000 + 240, 0, 0);
	for (size_t i = 0; i < rsp_scene_n_items(sh.l.content); i++) {
		const struct rsp_scene_item *it = rsp_scene_item(sh.l.content, i);
		GString *tip;

		if (RSP_HIT_KIND(it->id) != RSP_HIT_LANE || it->cls != RSP_CLS_IO)
			continue;
		tip = g_string_new(NULL);
		rsp_running_ops.title(d, &st, it, tip);
		if (strstr(tip->str, "at 100")) {
			g_assert_cmpfloat(it->w, >, 150); /* 2 ms in service */
			g_assert_null(strstr(tip->str, "not in the trace"));
		} else {
			g_assert_nonnull(strstr(tip->str, "at 900"));
			g_assert_cmpfloat(it->w, <=, 2);
			g_assert_nonnull(strstr(tip->str, "its completion not in the trace"));
		}
		seen++;
		g_string_free(tip, TRUE);
	}
	g_assert_cmpuint(seen, ==, 2);
	shot_free(&sh);
	rsp_running_data_free(d);
	rsp_trace_free(tr);
	synth_free(sy);
}

/* @d's content scene at a view, laid out on one thread or shared with a second */
static GString *content_text(const struct rsp_running_data *d, const struct rsp_running_state *st,
			     double x0, double x1, int h, double scroll, bool split)
{
	struct _rsp_running_parallel saved = _rsp_running_parallel;
	struct shot sh;
	GString *out;

	_rsp_running_parallel.min_cost = split ? 0 : INFINITY;
	_rsp_running_parallel.cpus = 2;
	shot_take(&sh, &rsp_running_ops, d, st, x0, x1, 1200, h, scroll);
	out = scene_text(sh.l.content);
	shot_free(&sh);
	_rsp_running_parallel.min_cost = saved.min_cost;
	_rsp_running_parallel.cpus = saved.cpus;
	return out;
}

/*
 * A layout's rows shared with a second thread make the scene one thread
 * makes, item for item (labels, ids, flags too): 24 busy threads in 20
 * processes (one of five threads), a socket lane, at zooms from the whole to
 * a few slices, scrolled, with and without sleeps; and a recording's view
 * with its sleeps' labels.  Every layout here was shared.
 */
void test_running_parallel(void)
{
	struct synth *sy = synth_new(&(struct synth_opts){0});
	const uint8_t lo[4] = {127, 0, 0, 1};
	GRand *rnd = g_rand_new_with_seed(5);
	struct rsp_trace_opts o = {.no_symbols = true};
	uint64_t t = 1000000000ull, t0 = t;
	int cur[2] = {0, 0};
	struct rsp_running_data *d;
	struct rsp_trace *tr;
	struct fixture fx;
	const void *buf;
	char err[256];
	size_t len, compared = 0;
	gint split0 = _rsp_running_parallel.n_split;

	for (int k = 1; k <= 24; k++) {
		int pid = k <= 5 ? 1 : k; /* threads 1-5: one process */
		char comm[16];

		g_snprintf(comm, sizeof(comm), "w%d", k);
		synth_comm(sy, 0, pid, k, comm, false);
	}
	synth_comm(sy, 0, 500, 500, "srv", false);
	synth_sock_state(sy, 0, t + 1000, 500, 0xffff80000000ull, lo, 5432, (const uint8_t[4]){0}, 0,
			 10 /* LISTEN */);
	synth_sock_state(sy, 0, t + 2000, 500, 0xffff81000000ull, lo, 5432, lo, 40001, 1);
	t += 10000;
	for (int i = 0; i < 60000; i++) {
		int cpu = i & 1, next = g_rand_int_range(rnd, 1, 25);
		char pc[16], nc[16];

		if (next == cur[cpu] || next == cur[!cpu])
			continue;
		t += g_rand_int_range(rnd, 0, 50) ? (uint64_t)g_rand_int_range(rnd, 200, 20000)
						  : (uint64_t)g_rand_int_range(rnd, 200000, 3000000);
		g_snprintf(pc, sizeof(pc), "w%d", cur[cpu]);
		g_snprintf(nc, sizeof(nc), "w%d", next);
		synth_switch(sy, cpu, t, cur[cpu], cur[cpu] ? pc : "swapper", g_rand_int_range(rnd, 0, 3) ? 1 : 0,
			     next, nc);
		cur[cpu] = next;
		if (i % 7 == 0) {
			synth_sock_send(sy, cpu, t + 1, next, 0xffff81000000ull, 2, 64);
			synth_sk_ready(sy, cpu, t + 1 + (uint64_t)g_rand_int_range(rnd, 1, 90000), next, 0,
				       0xffff81000000ull, 2);
		}
	}
	buf = synth_finish(sy, &len);
	g_assert_cmpint(rsp_trace_open_mem(buf, len, &o, &tr, err, sizeof(err)), ==, 0);
	g_assert_cmpint(rsp_running_data_new(tr, NULL, &d, err, sizeof(err)), ==, 0);
	for (int sleeps = 0; sleeps < 2; sleeps++) {
		struct rsp_running_state st = {.show_sleeps = sleeps};

		for (int zoom = 0; zoom < 7; zoom++) {
			double span = (double)(t - t0) / pow(6, zoom);

			for (int pos = 0; pos < 5; pos++) {
				double x0 = (double)t0 + ((double)(t - t0) - span) * pos / 4;
				double scroll = (pos % 3) * 7.0 * RSP_ROW_H;
				GString *a = content_text(d, &st, x0, x0 + span, 300, scroll, false);
				GString *b = content_text(d, &st, x0, x0 + span, 300, scroll, true);

				g_assert_cmpstr(a->str, ==, b->str);
				compared += a->len;
				g_string_free(a, TRUE);
				g_string_free(b, TRUE);
			}
		}
	}
	g_assert_cmpint(_rsp_running_parallel.n_split - split0, ==, 2 * 7 * 5);
	g_assert_cmpuint(compared, >, 100000);
	rsp_running_data_free(d);
	rsp_trace_free(tr);
	synth_free(sy);
	g_rand_free(rnd);

	/* a recording: sleeps labelled by their functions */
	fixture_open(&fx, "rpcchain.data");
	g_assert_cmpint(rsp_running_data_new(fx.t, fx.a, &d, err, sizeof(err)), ==, 0);
	for (int zoom = 0; zoom < 4; zoom++) {
		struct rsp_running_state st = {.show_sleeps = true};
		double e0, e1, span;
		GString *a, *b;

		rsp_running_ops.extent(d, &st, &e0, &e1);
		span = (e1 - e0) / pow(5, zoom);
		a = content_text(d, &st, e0 + span / 3, e0 + span / 3 + span, 0, 0, false);
		b = content_text(d, &st, e0 + span / 3, e0 + span / 3 + span, 0, 0, true);
		g_assert_cmpstr(a->str, ==, b->str);
		g_assert_nonnull(strstr(a->str, "\n")); /* not empty */
		g_string_free(a, TRUE);
		g_string_free(b, TRUE);
	}
	rsp_running_data_free(d);
	fixture_close(&fx);
}

/*
 * Links: at most one per pixel column, the first of the column whose rows are
 * both shown and which reaches the laid-out rows; the layout jumps past the
 * rest of a column's links.  Against every link checked in turn, on
 * recordings with many wakeups to a column, at zooms from the whole trace
 * in (1200 px: tens of links a column).
 */
void test_running_links(void)
{
	static const char *const names[] = {"rpcchain.data", "pass.data", "pollwait.data", NULL};
	size_t dense = 0, coarse = 0;

	for (size_t f = 0; f < G_N_ELEMENTS(names); f++) {
		struct fixture fx = {0};
		struct rsp_running_data *d;
		struct rsp_running_state st = {.show_sleeps = true};
		struct synth *sy = NULL;
		struct rsp_trace *trace;
		char err[256];

		if (names[f]) {
			fixture_open(&fx, names[f]);
			trace = fx.t;
		} else {
			/* 20,000 wakeups of one by the other: some 16 a column of the whole;
			 * both targets, so a coarse zoom draws their links (the chains') */
			struct rsp_trace_opts o = {.no_symbols = true};
			uint64_t t = 1000000000ull;
			size_t len;
			const void *buf;
			static const int both[] = {100, 200};

			sy = synth_new(&(struct synth_opts){0});
			synth_comm(sy, 0, 100, 100, "ping", false);
			synth_comm(sy, 0, 200, 200, "pong", false);
			synth_targets(sy, both, 2);
			synth_switch(sy, 0, t, 0, "swapper/0", 0, 100, "ping");
			for (int i = 0; i < 20000; i++) {
				int a = i & 1 ? 200 : 100, b = i & 1 ? 100 : 200;

				t += 10000;
				synth_waking(sy, 0, t, a, 0, b, b == 100 ? "ping" : "pong", 0, false,
					     NULL, 0);
				synth_switch(sy, 0, t + 500, a, a == 100 ? "ping" : "pong", 1, b,
					     b == 100 ? "ping" : "pong");
				if (i % 1000 == 999)
					synth_round(sy);
			}
			buf = synth_finish(sy, &len);

			g_assert_cmpint(rsp_trace_open_mem(buf, len, &o, &trace, err, sizeof(err)), ==, 0);
		}
		g_assert_cmpint(rsp_running_data_new(trace, names[f] ? fx.a : NULL, &d, err, sizeof(err)), ==, 0);
		for (int zoom = 0; zoom < 5; zoom++) {
			struct rows_view rv;
			struct shot sh;
			GString *want = g_string_new(NULL), *got = g_string_new(NULL);
			double e0, e1, span, x0;
			int last = -1, n_in_col = 0, max_in_col = 0;
			const struct rlink *links;
			size_t n_links;

			rsp_running_ops.extent(d, &st, &e0, &e1);
			span = (e1 - e0) / pow(4, zoom);
			x0 = e0 + (e1 - e0 - span) / 3;
			shot_take(&sh, &rsp_running_ops, d, &st, x0, x0 + span, 1200, 0, 0);
			_rsp_running_rows(d, &st, &rv);
			/* coarse (more than one link per RSP_LINKS_COARSE_PX columns laid
			 * out): only the target's chains' links */
			{
				double pxa = floor((sh.l.xa - sh.l.lx0) * sh.l.scale);
				int ncols = (int)ceil((sh.l.xb - sh.l.lx0) * sh.l.scale - pxa) + 1;
				size_t in_view = 0;

				for (size_t k = 0; k < d->n_links; k++)
					in_view += (double)d->links[k].t >= sh.l.xa &&
						   (double)d->links[k].t < sh.l.xb;
				links = d->links;
				n_links = d->n_links;
				if ((double)in_view * RSP_LINKS_COARSE_PX > ncols) {
					links = d->chain_links;
					n_links = d->n_chain_links;
					coarse++;
				}
			}
			for (size_t k = 0; k < n_links; k++) {
				const struct rlink *l = &links[k];
				double px = ((double)l->t - sh.l.lx0) * sh.l.scale;
				double pxa = floor((sh.l.xa - sh.l.lx0) * sh.l.scale);
				int c = (int)floor(px - pxa);
				int32_t fr, tr;
				double y0, y1;

				if ((double)l->t < sh.l.xa || (double)l->t >= sh.l.xb)
					continue;
				n_in_col = c == last ? n_in_col + 1 : 1;
				max_in_col = n_in_col > max_in_col ? n_in_col : max_in_col;
				if (c == last)
					continue;
				tr = rv.row_of_thread[l->to] == NONE ? -1 : (int32_t)rv.row_of_thread[l->to];
				fr = l->from != NONE
					 ? (rv.row_of_thread[l->from] == NONE ? -1
									   : (int32_t)rv.row_of_thread[l->from])
					 : (l->from_lane >= 0 ? rv.row_of_lane[l->from_lane] : -1);
				if (fr < 0 || tr < 0 || fr == tr)
					continue;
				y0 = fr * RSP_ROW_H + RSP_ROW_H / 2.0;
				y1 = tr * RSP_ROW_H + RSP_ROW_H / 2.0;
				if (fmax(y0, y1) < sh.l.ya || fmin(y0, y1) > sh.l.yb)
					continue;
				last = c;
				g_string_append_printf(want, "%" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT "\n",
						       (guint64)l->t, (guint64)l->to_start);
			}
			for (size_t i = 0; i < rsp_scene_n_items(sh.l.content); i++) {
				const struct rsp_scene_item *it = rsp_scene_item(sh.l.content, i);

				if (it->prim == RSP_PRIM_LINE && it->cls == RSP_CLS_LINK)
					g_string_append_printf(got, "%" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT "\n",
							       (guint64)it->t0, (guint64)it->t1);
			}
			g_assert_cmpstr(got->str, ==, want->str);
			g_test_message("%s zoom %d: %zu links, at most %d a column", names[f] ? names[f] : "pingpong", zoom, d->n_links, max_in_col);
			dense += max_in_col >= 10;
			g_string_free(want, TRUE);
			g_string_free(got, TRUE);
			shot_free(&sh);
		}
		rsp_running_data_free(d);
		if (names[f]) {
			fixture_close(&fx);
		} else {
			rsp_trace_free(trace);
			synth_free(sy);
		}
	}
	/* some views had columns of many links; some were coarse */
	g_assert_cmpuint(dense, >=, 1);
	g_assert_cmpuint(coarse, >=, 1);
}

/*
 * The whole trace at 1600 px, as the viewer opens it and as an export draws
 * it, on recordings with disk requests and sockets: every disk request's
 * column is marked in its disk row (the request's colour, or its queue's),
 * and no link covers a mark: the centre pixel of every disk, socket and run
 * box of every row is that box's colour (links pass under the rows' marks).
 * At this zoom the links are the target's chains' only; with the links
 * hidden, none is drawn.
 */
void test_running_whole_legible(void)
{
	static const char *const names[] = {"rpcchain.data", "pollwait.data", "pass.data"};
	size_t n_requests = 0, n_marks = 0, n_links_total = 0;

	for (size_t f = 0; f < G_N_ELEMENTS(names); f++) {
		struct fixture fx;
		struct rsp_running_data *d;
		struct rsp_running_state st = {.show_sleeps = true};
		struct shot sh;
		double dx, dy;
		size_t n_links = 0, n_rows;
		char err[256];

		fixture_open(&fx, names[f]);
		g_assert_cmpint(rsp_running_data_new(fx.t, fx.a, &d, err, sizeof(err)), ==, 0);
		shot_take(&sh, &rsp_running_ops, d, &st, 0, 0, 1600, 0, 0);
		shot_save(&sh, "whole-%s.png", names[f]);
		rsp_layout_offsets(&sh.l, sh.ops, sh.data, &sh.v, &dx, &dy);
		/* no link covers a mark */
		for (size_t i = 0; i < rsp_scene_n_items(sh.l.content); i++) {
			const struct rsp_scene_item *it = rsp_scene_item(sh.l.content, i);
			double x = floor(it->x + dx) + 0.5, y = it->y + dy + it->h / 2;

			if (it->prim == RSP_PRIM_LINE && it->cls == RSP_CLS_LINK) {
				n_links++;
				continue;
			}
			if (it->prim != RSP_PRIM_RECT || it->w < 1 || it->w > 4 ||
			    (it->cls != RSP_CLS_IO && it->cls != RSP_CLS_NET &&
			     it->cls != RSP_CLS_RUN) ||
			    x < RSP_GUTTER_W || x >= sh.v.width || y < RSP_RULER_H ||
			    y >= sh.v.height)
				continue;
			/* a later mark of the same row may lie over it (runs over sleeps): only
			 * the last box at that pixel is judged */
			{
				bool covered = false;

				for (size_t j = i + 1; j < rsp_scene_n_items(sh.l.content) && !covered;
				     j++) {
					const struct rsp_scene_item *o = rsp_scene_item(sh.l.content, j);

					covered = o->prim == RSP_PRIM_RECT && o->x + dx <= x &&
						  o->x + dx + fmax(1, o->w) > x && o->y + dy <= y &&
						  o->y + dy + o->h > y;
				}
				if (covered)
					continue;
			}
			n_marks++;
			if (shot_pixel(&sh, x, y) != rsp_palette_rgb(it->cls))
				g_error("%s: a %s mark at %.0f,%.0f is #%06x: covered", names[f],
					rsp_palette_name(it->cls), x, y, shot_pixel(&sh, x, y));
		}
		/* every disk request's column marked in its disk row */
		n_rows = rsp_running_n_rows(d, &st);
		for (size_t r = 0; r < n_rows; r++) {
			struct rsp_row_info ri;
			double y = RSP_RULER_H + r * RSP_ROW_H + RSP_ROW_H / 2.0;

			rsp_running_row(d, &st, r, &ri);
			if (ri.kind != RSP_ROW_DISK || y >= sh.v.height)
				continue;
			for (size_t i = 0; i < rsp_trace_n_ios(fx.t); i++) {
				struct rsp_io_info io;
				uint64_t t;
				double x;
				uint32_t c;

				rsp_trace_io(fx.t, i, &io);
				t = io.issue_ns ? io.issue_ns : io.insert_ns;
				if (!t)
					continue;
				x = floor(((double)t - sh.l.lx0) * sh.l.scale + dx) + 0.5;
				if (x < RSP_GUTTER_W || x >= sh.v.width)
					continue;
				c = shot_pixel(&sh, x, y);
				if (c != rsp_palette_rgb(RSP_CLS_IO) &&
				    c != rsp_palette_rgb(RSP_CLS_IO_QUEUE))
					g_error("%s: disk request %zu at column %.0f of the disk row: "
						"#%06x",
						names[f], i, x, c);
				n_requests++;
			}
		}
		g_test_message("%s: %zu links drawn at the whole trace", names[f], n_links);
		n_links_total += n_links;
		shot_free(&sh);
		/* hidden: none */
		st.hide_links = true;
		shot_take(&sh, &rsp_running_ops, d, &st, 0, 0, 1600, 0, 0);
		for (size_t i = 0; i < rsp_scene_n_items(sh.l.content); i++)
			g_assert_cmpint(rsp_scene_item(sh.l.content, i)->prim, !=, RSP_PRIM_LINE);
		shot_free(&sh);
		rsp_running_data_free(d);
		fixture_close(&fx);
	}
	g_test_message("%zu disk requests, %zu marks judged, %zu links", n_requests, n_marks,
		       n_links_total);
	g_assert_cmpuint(n_requests, >=, 1);
	g_assert_cmpuint(n_marks, >=, 100);
	g_assert_cmpuint(n_links_total, >=, 10);
}
