/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-render: runs without samples in the flame views.  rsp report splits
 * each contributor's time into sampled, estimated and inferred
 * (ns_sampled, ns_estimated, ns_inferred); both flame views must draw that
 * split: what a contributor had estimated tinted, inferred hatched, as
 * wide as the report says.
 *
 * What is measured is what a reader sees: the view is laid out at a fine
 * scale, window by window, and painted into a grid of pixel columns (later
 * items over earlier ones, as drawn).  In each column, a tinted or hatched
 * frame with no tinted or hatched frame on top of it is where such a run's
 * code was; it and the frames under it down to the process name say which
 * contributor that column is ("comm: caller > function", as rsp report
 * names a sample's function; the site's frames for an inferred run).  Each
 * column counts one pixel's time to that contributor.
 *
 * The truth is rsp report's JSON (contributor-truth.py), per contributor;
 * an inferred site's name is taken without its "(from CALL to CALL)", which
 * no frame shows.
 */
#include "render-test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define COLUMNS 4096 /* a window of the layout */

struct area {
	double ns;
	unsigned items; /* scene items drawn (a window's part of one counts apart) */
	unsigned count; /* truth: the contributor's intervals */
	gint64 last;    /* the item last counted: window << 32 | item */
};

/* [0] estimated, [1] inferred: contributor -> struct area */
struct areas {
	GHashTable *by[2];
};

static void areas_init(struct areas *a)
{
	for (int k = 0; k < 2; k++)
		a->by[k] = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
}

static void areas_clear(struct areas *a)
{
	for (int k = 0; k < 2; k++)
		g_hash_table_destroy(a->by[k]);
}

static struct area *area_of(struct areas *a, int k, const char *key)
{
	struct area *x = g_hash_table_lookup(a->by[k], key);

	if (!x) {
		x = g_new0(struct area, 1);
		x->last = -1;
		g_hash_table_insert(a->by[k], g_strdup(key), x);
	}
	return x;
}

/* rsp report --format json's contributors with estimated or inferred time. */
static void truth_load(const char *name, struct areas *t)
{
	const char *py = g_getenv("RSP_PYTHON"), *script = g_getenv("RSP_CONTRIBUTOR_TRUTH"),
		   *rsp = g_getenv("RSP_CLI");
	g_autofree char *path = g_build_filename(data_dir, name, NULL);
	g_autofree char *out = NULL, *err = NULL;
	g_auto(GStrv) lines = NULL;
	int status = 0;

	if (!py || !script || !rsp)
		g_error("set RSP_PYTHON, RSP_CONTRIBUTOR_TRUTH and RSP_CLI (meson test does)");
	{
		const char *argv[] = {py, script, rsp, path, NULL};

		g_assert_true(g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_DEFAULT, NULL, NULL,
					   &out, &err, &status, NULL));
	}
	if (!g_spawn_check_wait_status(status, NULL))
		g_error("contributor-truth.py %s failed: %s", name, err);
	lines = g_strsplit(out, "\n", -1);
	for (size_t i = 0; lines[i]; i++) {
		g_auto(GStrv) f = g_strsplit(lines[i], "\t", 4);
		char *what, *paren;
		struct area *a;
		int k;

		if (!f[0] || !*f[0])
			continue;
		g_assert_nonnull(f[3]);
		k = !strcmp(f[0], "inf");
		what = f[3];
		/* an inferred site without its calls: "comm: caller > frame" */
		paren = strstr(what, " (");
		if (k && paren && what[strlen(what) - 1] == ')')
			*paren = '\0';
		a = area_of(t, k, what);
		a->ns += g_ascii_strtod(f[1], NULL);
		a->count += (unsigned)g_ascii_strtoull(f[2], NULL, 10);
	}
}

/* The contributor of a column whose innermost guessed frame is @labels[0], the
 * frames under it following, down to the process name @comm. */
static char *contributor(bool inferred, const char *comm, const char *const *labels, size_t n)
{
	size_t cl = strlen(comm);
	const char *inner = NULL, *caller = NULL;

	if (n && !strncmp(labels[0], comm, cl) && !strncmp(labels[0] + cl, ": ", 2))
		return g_strdup(labels[0]); /* a box of its own: the run's name */
	if (inferred) /* its site's innermost frame and that frame's caller */
		return n >= 2  ? g_strdup_printf("%s: %s > %s", comm, labels[1], labels[0])
		       : n > 0 ? g_strdup_printf("%s: %s", comm, labels[0])
			       : g_strdup(comm);
	/* a sample's function as rsp report names it (model/analysis/labels.c): frames
	 * without a name skipped, a function calling itself once */
	for (size_t i = 0; i < n && !caller; i++) {
		if (!strcmp(labels[i], "[unknown]"))
			continue;
		if (!inner)
			inner = labels[i];
		else if (strcmp(labels[i], inner))
			caller = labels[i];
	}
	return caller  ? g_strdup_printf("%s: %s > %s", comm, caller, inner)
	       : inner ? g_strdup_printf("%s: %s", comm, inner)
		       : g_strdup(comm);
}

static bool is_box(const struct rsp_scene_item *it)
{
	return it->id && (it->prim == RSP_PRIM_RECT || it->prim == RSP_PRIM_HATCH) &&
	       (RSP_HIT_KIND(it->id) == RSP_HIT_FRAME || RSP_HIT_KIND(it->id) == RSP_HIT_CONS);
}

/* -1 not guessed, 0 estimated (tinted), 1 inferred (hatched) */
static int guess_kind(const struct rsp_scene_item *it)
{
	if (it->cls == RSP_CLS_RUN_ESTIMATED) {
		g_assert_cmpint(it->prim, ==, RSP_PRIM_RECT);
		return 0;
	}
	if (it->cls == RSP_CLS_RUN_INFERRED) {
		g_assert_cmpint(it->prim, ==, RSP_PRIM_HATCH);
		return 1;
	}
	return -1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int row_of(const double *ys, size_t n, double y)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (ys[mid] < y - 0.01)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && fabs(ys[lo] - y) < 0.01 ? (int)lo : -1;
}

/* Painted window [lx0, xb) at @px_ns a pixel: the guessed columns' contributors. */
static void measure_window(const struct rsp_view_ops *ops, const void *data, const void *state,
			   double lx0, double xb, double px_ns, gint64 window, struct areas *dr)
{
	struct rsp_scene *sc = rsp_scene_new();
	size_t n, ny = 0;
	double *ys;
	gint32 *grid;
	int cols = (int)ceil((xb - lx0) / px_ns);

	ops->content(data, state, lx0, 1.0 / px_ns, lx0, xb, 0,
		     ops->content_height(data, state), sc);
	n = rsp_scene_n_items(sc);
	ys = g_new(double, n + 1);
	for (size_t i = 0; i < n; i++)
		if (is_box(rsp_scene_item(sc, i)))
			ys[ny++] = rsp_scene_item(sc, i)->y;
	qsort(ys, ny, sizeof(*ys), cmp_double);
	{
		size_t u = 0;

		for (size_t i = 0; i < ny; i++)
			if (!u || ys[i] != ys[u - 1])
				ys[u++] = ys[i];
		ny = u;
	}
	grid = g_new(gint32, ny * COLUMNS + 1);
	for (size_t i = 0; i < ny * COLUMNS; i++)
		grid[i] = -1;
	for (size_t i = 0; i < n; i++) {
		const struct rsp_scene_item *it = rsp_scene_item(sc, i);
		int r, c0, c1;

		if (!is_box(it))
			continue;
		r = row_of(ys, ny, it->y);
		c0 = (int)lround(it->x);
		c1 = (int)lround(it->x + it->w);
		for (int c = c0 < 0 ? 0 : c0; c < c1 && c < COLUMNS; c++)
			grid[r * COLUMNS + c] = (gint32)i;
	}
	for (int c = 0; c < cols && c < COLUMNS; c++) {
		for (size_t r = 0; r < ny; r++) {
			gint32 i = grid[r * COLUMNS + c], up;
			const struct rsp_scene_item *it;
			const char *labels[512], *comm = NULL;
			size_t nl = 0;
			int k, ra;
			g_autofree char *key = NULL;
			struct area *a;

			if (i < 0)
				continue;
			it = rsp_scene_item(sc, i);
			k = guess_kind(it);
			if (k < 0)
				continue;
			/* exposed: no guessed frame on top of it */
			ra = row_of(ys, ny, it->y - RSP_FRAME_H);
			up = ra >= 0 ? grid[ra * COLUMNS + c] : -1;
			if (up >= 0 && guess_kind(rsp_scene_item(sc, up)) >= 0)
				continue;
			/* the frames under it, down to the process name */
			for (double y = it->y; nl < G_N_ELEMENTS(labels); y += RSP_FRAME_H) {
				int rb = row_of(ys, ny, y);
				const struct rsp_scene_item *b;

				if (rb < 0 || grid[rb * COLUMNS + c] < 0)
					break;
				b = rsp_scene_item(sc, grid[rb * COLUMNS + c]);
				if (b->cls == RSP_CLS_PROCESS || b->cls == RSP_CLS_CUT) {
					comm = b->label;
					break;
				}
				labels[nl++] = b->label ? b->label : "";
			}
			key = contributor(k, comm ? comm : "?", labels, nl);
			a = area_of(dr, k, key);
			a->ns += px_ns;
			if (a->last != (window << 32 | i)) {
				a->items++;
				a->last = window << 32 | i;
			}
		}
	}
	g_free(grid);
	g_free(ys);
	rsp_scene_free(sc);
}

/*
 * A run whose code is only kernel functions is drawn "[kernel]" when kernel
 * frames are not shown (as here); rsp report names those functions.  Such a
 * contributor of the report that no column names counts to its process's
 * "comm: [kernel]".
 */
static void fold_kernel(struct areas *truth, struct areas *dr)
{
	for (int k = 0; k < 2; k++) {
		GList *keys = g_hash_table_get_keys(truth->by[k]);

		for (GList *l = keys; l; l = l->next) {
			g_autofree char *key = g_strdup(l->data), *kern = NULL;
			const char *colon = strstr(key, ": ");
			struct area *t, *into;

			if (!colon || g_hash_table_lookup(dr->by[k], key))
				continue;
			kern = g_strdup_printf("%.*s: [kernel]", (int)(colon - key), key);
			if (!strcmp(kern, key) || !g_hash_table_lookup(dr->by[k], kern))
				continue;
			t = g_hash_table_lookup(truth->by[k], key);
			into = area_of(truth, k, kern);
			into->ns += t->ns;
			into->count += t->count;
			g_test_message("%s %s counts to %s", k ? "inferred" : "estimated", key,
				       kern);
			g_hash_table_remove(truth->by[k], key);
		}
		g_list_free(keys);
	}
}

/*
 * Compare the drawn areas with the truth.  The tolerance, per contributor:
 * every item drawn is placed at whole pixels (its start floored, its end
 * rounded, at least a pixel wide), so its width is its time within a pixel,
 * and a neighbour painted over its last column takes at most one more: two
 * pixels an item.  A run narrower than a pixel is drawn a pixel wide, or not
 * at all where its column is drawn already: one pixel an interval of the
 * contributor.  Nothing else may differ.
 */
static void compare(const char *what, struct areas *truth, struct areas *dr, double px_ns)
{
	static const char *const kind[2] = {"estimated", "inferred"};
	double sum_t[2] = {0}, sum_d[2] = {0};
	unsigned bad = 0;

	fold_kernel(truth, dr);
	for (int k = 0; k < 2; k++) {
		GHashTableIter it;
		gpointer key, val;

		/* every contributor of the report, drawn as wide */
		g_hash_table_iter_init(&it, truth->by[k]);
		while (g_hash_table_iter_next(&it, &key, &val)) {
			const struct area *t = val, *d = g_hash_table_lookup(dr->by[k], key);
			double got = d ? d->ns : 0;
			double tol = px_ns * (2.0 * (d ? d->items : 0) + t->count + 2);

			sum_t[k] += t->ns;
			g_test_message("%s %s %s: report %.0f ns, drawn %.0f ns (tolerance %.0f)",
				       what, kind[k], (const char *)key, t->ns, got, tol);
			if (fabs(got - t->ns) > tol) {
				g_printerr("%s: %s %s: the report says %.0f ns, drawn %.0f ns "
					   "(tolerance %.0f ns)\n",
					   what, kind[k], (const char *)key, t->ns, got, tol);
				bad++;
			}
		}
		/* and nothing the report does not say */
		g_hash_table_iter_init(&it, dr->by[k]);
		while (g_hash_table_iter_next(&it, &key, &val)) {
			const struct area *d = val;

			sum_d[k] += d->ns;
			if (g_hash_table_lookup(truth->by[k], key))
				continue;
			if (d->ns > px_ns * (2.0 * d->items + 2)) {
				g_printerr("%s: %s %s: drawn %.0f ns in %u items, the report says "
					   "none\n",
					   what, kind[k], (const char *)key, d->ns, d->items);
				bad++;
			}
		}
		g_test_message("%s %s: report %.3f ms, drawn %.3f ms", what, kind[k],
			       sum_t[k] / 1e6, sum_d[k] / 1e6);
	}
	g_assert_cmpuint(bad, ==, 0);
}

static void measure(const struct rsp_view_ops *ops, const void *data, const void *state,
		    double px_ns, struct areas *dr)
{
	double x0, x1;
	gint64 w = 0;

	ops->extent(data, state, &x0, &x1);
	for (double lx0 = x0; lx0 < x1; lx0 += COLUMNS * px_ns)
		measure_window(ops, data, state, lx0, fmin(lx0 + COLUMNS * px_ns, x1), px_ns, w++,
			       dr);
}

void test_flame_guessed(gconstpointer name)
{
	struct fixture fx;
	struct rsp_flame_data *d;
	struct rsp_cons_tree *c;
	struct rsp_flame_state fst = {.category = -1};
	struct rsp_cons_state cst = {.category = -1};
	struct areas truth, flame, cons;
	char err[256];
	const double px_ns = 100; /* runs without samples are from ~2 us on */

	areas_init(&truth);
	areas_init(&flame);
	areas_init(&cons);
	truth_load(name, &truth);
	g_assert_cmpuint(g_hash_table_size(truth.by[0]) + g_hash_table_size(truth.by[1]), >, 0);
	fixture_open(&fx, name);
	g_assert_cmpint(rsp_flame_data_new(fx.t, fx.a, &d, err, sizeof(err)), ==, 0);
	measure(&rsp_flame_ops, d, &fst, px_ns, &flame);
	compare("chronological", &truth, &flame, px_ns);
	c = rsp_cons_tree_new(d, true, false);
	measure(&rsp_cons_ops, c, &cst, px_ns, &cons);
	compare("consolidated", &truth, &cons, px_ns);
	rsp_cons_tree_free(c);
	rsp_flame_data_free(d);
	fixture_close(&fx);
	areas_clear(&truth);
	areas_clear(&flame);
	areas_clear(&cons);
}
