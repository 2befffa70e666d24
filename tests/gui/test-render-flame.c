/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-render: the chronological flame view (colours by category, frames
 * merged when zoomed out and split when zoomed in, highlights) and the
 * consolidated tree (its order and sizes).
 */
#include "render-test.h"

#include <string.h>

static size_t node_of(const struct rsp_scene_item *it)
{
	return RSP_HIT_PAYLOAD(it->id) & 0xffffffffff;
}

static unsigned frame_of(const struct rsp_scene_item *it)
{
	return (unsigned)(RSP_HIT_PAYLOAD(it->id) >> 40);
}

void test_flame_colours(gconstpointer name)
{
	struct fixture fx;
	struct rsp_flame_data *d;
	struct rsp_flame_state st = {.category = -1};
	struct shot sh;
	char err[256];
	unsigned seen[RSP_CLS__COUNT] = {0};

	fixture_open(&fx, name);
	g_assert_cmpint(rsp_flame_data_new(fx.t, fx.a, &d, err, sizeof(err)), ==, 0);
	g_assert_cmpuint(rsp_flame_n_nodes(d), ==, rsp_analysis_n_nodes(fx.a));
	shot_take(&sh, &rsp_flame_ops, d, &st, 0, 0, 1600, 0, 0);
	shot_save(&sh, "flame-%s.png", (const char *)name);
	for (size_t i = 0; i < rsp_scene_n_items(sh.l.content); i++) {
		const struct rsp_scene_item *it = rsp_scene_item(sh.l.content, i);
		struct rsp_flame_node_info ni;

		if (RSP_HIT_KIND(it->id) != RSP_HIT_FRAME)
			continue;
		g_assert_cmpuint(node_of(it), <, rsp_flame_n_nodes(d));
		rsp_flame_node(d, node_of(it), &ni);
		seen[it->cls]++;
		/* each box's colour says what its layer is */
		switch (it->cls) {
		case RSP_CLS_PROCESS:
			g_assert_cmpuint(frame_of(it), ==, 0);
			g_assert_true(ni.kind == RSP_NODE_RUN || ni.kind == RSP_NODE_SLEEP);
			g_assert_cmpstr(it->label, ==, ni.comm);
			break;
		case RSP_CLS_SLEEP:
			g_assert_cmpuint(frame_of(it), >=, 1);
			g_assert_cmpint(ni.kind, ==, RSP_NODE_SLEEP);
			break;
		case RSP_CLS_RUN:
			g_assert_cmpuint(frame_of(it), >=, 1);
			g_assert_cmpint(ni.kind, ==, RSP_NODE_RUN);
			break;
		case RSP_CLS_IO:
			g_assert_cmpint(ni.kind, ==, RSP_NODE_IO);
			break;
		case RSP_CLS_TIMEOUT:
			g_assert_cmpint(ni.kind, ==, RSP_NODE_TIMEOUT);
			break;
		case RSP_CLS_PATH:
		case RSP_CLS_ASYNC:
			g_assert_cmpint(ni.kind, ==, RSP_NODE_ROOT);
			break;
		default:
			break;
		}
	}
	/* what every fixture has */
	g_assert_cmpuint(seen[RSP_CLS_PROCESS], >, 0);
	g_assert_cmpuint(seen[RSP_CLS_RUN], >, 0);
	g_assert_cmpuint(seen[RSP_CLS_SLEEP] + seen[RSP_CLS_BOTH], >, 0);
	g_assert_cmpuint(seen[RSP_CLS_PATH], >, 0);
	/* the right colours at the right places */
	assert_colour_at(&sh, find_item(&sh, RSP_CLS_PROCESS, 4, RSP_HIT_FRAME), RSP_CLS_PROCESS);
	assert_colour_at(&sh, find_item(&sh, RSP_CLS_PATH, 4, RSP_HIT_FRAME), RSP_CLS_PATH);
	if (!strcmp(name, "rpcchain.data")) {
		/*
		 * disk waits in green; no network-wait (teal) frame: every peer is
		 * on this machine, so each socket wait holds the sender's work
		 * (the server's, the backend's), never a wait on the network
		 */
		g_assert_cmpuint(seen[RSP_CLS_IO], >, 0);
		g_assert_cmpuint(seen[RSP_CLS_NET], ==, 0);
	}
	if (!strcmp(name, "pollwait.data")) {
		/* the paper's curl finding: waits that end by timing out */
		g_assert_cmpuint(seen[RSP_CLS_TIMEOUT], >, 0);
		assert_colour_at(&sh, find_item(&sh, RSP_CLS_TIMEOUT, 2, RSP_HIT_FRAME),
				 RSP_CLS_TIMEOUT);
	}
	if (!strcmp(name, "pass.data"))
		/* an async control path: the peer the target started */
		g_assert_cmpuint(seen[RSP_CLS_ASYNC], >, 0);
	shot_free(&sh);
	rsp_flame_data_free(d);
	fixture_close(&fx);
}

static bool same_frames(const struct rsp_flame_data *d, size_t a, size_t b)
{
	struct rsp_flame_node_info x, y;

	rsp_flame_node(d, a, &x);
	rsp_flame_node(d, b, &y);
	if (x.n_user_frames != y.n_user_frames || !x.n_user_frames || x.thread != y.thread)
		return false;
	for (size_t f = 0; f < x.n_user_frames; f++)
		if (strcmp(rsp_flame_frame(d, a, -1, f), rsp_flame_frame(d, b, -1, f)))
			return false;
	return true;
}

/* The frame-1 boxes (the outermost frame above the process name) covering @t. */
static size_t frame1_covering(struct shot *sh, const struct rsp_flame_data *d, size_t depth1_node,
			      uint64_t t, const struct rsp_scene_item **out)
{
	size_t n = 0;

	for (size_t i = 0; i < rsp_scene_n_items(sh->l.content); i++) {
		const struct rsp_scene_item *it = rsp_scene_item(sh->l.content, i);
		struct rsp_flame_node_info ni, ref;

		if (RSP_HIT_KIND(it->id) != RSP_HIT_FRAME || frame_of(it) != 1)
			continue;
		rsp_flame_node(d, node_of(it), &ni);
		rsp_flame_node(d, depth1_node, &ref);
		if (ni.parent != ref.parent || it->t0 > t || it->t1 < t)
			continue;
		if (out)
			*out = it;
		n++;
	}
	return n;
}

/*
 * Two sleeps with the same stack, a short run between them: zoomed out, one
 * box (nothing visible separates them); zoomed in, two, with the run's red
 * frame between.
 */
void test_flame_merge_split(void)
{
	struct fixture fx;
	struct rsp_flame_data *d;
	struct rsp_flame_state st = {.category = -1};
	struct shot sh;
	char err[256];
	size_t a = RSP_NO_INDEX, r = 0, b = 0;
	struct rsp_flame_node_info na, nr, nb;
	const struct rsp_scene_item *it = NULL;

	/* pollwait: 10 ms poll() sleeps, ~50 us runs between them */
	fixture_open(&fx, "pollwait.data");
	g_assert_cmpint(rsp_flame_data_new(fx.t, fx.a, &d, err, sizeof(err)), ==, 0);
	for (size_t i = 0; i + 2 < rsp_flame_n_nodes(d) && a == RSP_NO_INDEX; i++) {
		struct rsp_flame_node_info x;

		rsp_flame_node(d, i, &x);
		if (x.kind != RSP_NODE_SLEEP || x.parent == RSP_NO_INDEX)
			continue;
		/* the next sibling a run, the one after a sleep with the same frames */
		for (size_t j = i + 1; j < rsp_flame_n_nodes(d); j++) {
			struct rsp_flame_node_info y;

			rsp_flame_node(d, j, &y);
			if (y.parent != x.parent)
				continue;
			if (y.kind != RSP_NODE_RUN || y.start_ns != x.end_ns)
				break;
			for (size_t k = j + 1; k < rsp_flame_n_nodes(d); k++) {
				struct rsp_flame_node_info z;

				rsp_flame_node(d, k, &z);
				if (z.parent != x.parent)
					continue;
				if (z.kind == RSP_NODE_SLEEP && z.start_ns == y.end_ns &&
				    same_frames(d, i, k) && y.end_ns - y.start_ns > 2000 &&
				    x.end_ns - x.start_ns > 20 * (y.end_ns - y.start_ns) &&
				    z.end_ns - z.start_ns > 20 * (y.end_ns - y.start_ns)) {
					a = i;
					r = j;
					b = k;
				}
				break;
			}
			break;
		}
	}
	g_assert_cmpuint(a, !=, RSP_NO_INDEX);
	rsp_flame_node(d, a, &na);
	rsp_flame_node(d, r, &nr);
	rsp_flame_node(d, b, &nb);

	/* zoomed out: the run is a tenth of a pixel; one box spans both sleeps */
	{
		double span = (nr.end_ns - nr.start_ns) * 1600.0 * 10;
		double mid = (nr.start_ns + nr.end_ns) / 2.0;

		shot_take(&sh, &rsp_flame_ops, d, &st, mid - span / 2, mid + span / 2, 1600, 0, 0);
		g_assert_cmpuint(frame1_covering(&sh, d, a, na.end_ns - 1, &it), ==, 1);
		g_assert_cmpuint(it->t0, <=, na.end_ns - 1);
		g_assert_cmpuint(it->t1, >=, nb.start_ns + 1);
		g_assert_cmpuint(it->aux, >=, 2); /* merged */
		shot_save(&sh, "flame-merged.png");
		shot_free(&sh);
	}
	/* zoomed in: the run is ~200 px wide; two boxes, the run's red between them */
	{
		double pad = (nr.end_ns - nr.start_ns) * 3;
		const struct rsp_scene_item *left = NULL, *right = NULL, *mid = NULL;

		shot_take(&sh, &rsp_flame_ops, d, &st, nr.start_ns - pad, nr.end_ns + pad, 1600, 0,
			  0);
		g_assert_cmpuint(frame1_covering(&sh, d, a, na.end_ns - 1, &left), ==, 1);
		g_assert_cmpuint(frame1_covering(&sh, d, a, nb.start_ns + 1, &right), ==, 1);
		g_assert_true(left != right);
		g_assert_cmpuint(left->t1, <=, nr.start_ns);
		g_assert_cmpuint(right->t0, >=, nr.end_ns);
		g_assert_cmpuint(frame1_covering(&sh, d, r, (nr.start_ns + nr.end_ns) / 2, &mid),
				 ==, 1);
		g_assert_cmpint(mid->cls, ==, RSP_CLS_RUN);
		assert_colour_at(&sh, mid, RSP_CLS_RUN);
		g_assert_true(left->cls == RSP_CLS_SLEEP || left->cls == RSP_CLS_BOTH);
		assert_colour_at(&sh, left, left->cls);
		shot_save(&sh, "flame-split.png");
		shot_free(&sh);
	}
	rsp_flame_data_free(d);
	fixture_close(&fx);
}

/* Category and search highlights: the marked boxes are exactly the counted layers'. */
void test_flame_highlight(void)
{
	struct fixture fx;
	struct rsp_flame_data *d;
	struct rsp_flame_state st = {.category = RSP_CAT_DISK};
	struct shot sh;
	char err[256];
	size_t marked = 0, dim = 0;

	fixture_open(&fx, "rpcchain.data");
	g_assert_cmpint(rsp_flame_data_new(fx.t, fx.a, &d, err, sizeof(err)), ==, 0);
	shot_take(&sh, &rsp_flame_ops, d, &st, 0, 0, 1600, 0, 0);
	for (size_t i = 0; i < rsp_scene_n_items(sh.l.content); i++) {
		const struct rsp_scene_item *it = rsp_scene_item(sh.l.content, i);
		struct rsp_flame_node_info ni;

		if (RSP_HIT_KIND(it->id) != RSP_HIT_FRAME)
			continue;
		rsp_flame_node(d, node_of(it), &ni);
		if (it->flags & RSP_ITEM_MARKED) {
			g_assert_cmpint(ni.category, ==, RSP_CAT_DISK);
			marked++;
		} else {
			g_assert_true(it->flags & RSP_ITEM_DIM);
			dim++;
		}
	}
	g_assert_cmpuint(marked, >, 0);
	g_assert_cmpuint(dim, >, marked);
	shot_save(&sh, "flame-highlight-disk.png");
	shot_free(&sh);
	/* runs without samples: their parts drawn over the frames they share too */
	st.category = RSP_CAT_CPU_UNSAMPLED;
	marked = 0;
	shot_take(&sh, &rsp_flame_ops, d, &st, 0, 0, 1600, 0, 0);
	for (size_t i = 0; i < rsp_scene_n_items(sh.l.content); i++) {
		const struct rsp_scene_item *it = rsp_scene_item(sh.l.content, i);
		struct rsp_flame_node_info ni;

		if (RSP_HIT_KIND(it->id) != RSP_HIT_FRAME)
			continue;
		rsp_flame_node(d, node_of(it), &ni);
		if (it->flags & RSP_ITEM_MARKED) {
			g_assert_cmpint(ni.category, ==, RSP_CAT_CPU_UNSAMPLED);
			marked += it->cls == RSP_CLS_RUN_ESTIMATED || it->cls == RSP_CLS_RUN_INFERRED;
		} else {
			g_assert_true(it->flags & RSP_ITEM_DIM);
		}
	}
	g_assert_cmpuint(marked, >, 0);
	shot_free(&sh);
	st.category = -1;
	st.search = "rpc-server";
	marked = 0;
	shot_take(&sh, &rsp_flame_ops, d, &st, 0, 0, 1600, 0, 0);
	for (size_t i = 0; i < rsp_scene_n_items(sh.l.content); i++) {
		const struct rsp_scene_item *it = rsp_scene_item(sh.l.content, i);

		if (it->flags & RSP_ITEM_MARKED) {
			g_assert_nonnull(strstr(it->label, "rpc-server"));
			marked++;
		}
	}
	g_assert_cmpuint(marked, >, 0);
	shot_free(&sh);
	rsp_flame_data_free(d);
	fixture_close(&fx);
}

/* ---- the consolidated flame view ---------------------------------------------------------- */

static void check_tree(const struct rsp_cons_tree *c, size_t i)
{
	struct rsp_cons_node_info n, prev = {0};
	uint64_t x, sum = 0;

	rsp_cons_node(c, i, &n);
	g_assert_cmpuint(n.need_ns, >=, n.total_ns);
	g_assert_cmpuint(n.run_ns + n.sleep_ns, <=, n.total_ns + n.n_children);
	x = n.x_ns;
	for (size_t k = 0; k < n.n_children; k++) {
		struct rsp_cons_node_info ch;
		size_t ci = rsp_cons_child(c, i, k);

		rsp_cons_node(c, ci, &ch);
		g_assert_cmpuint(ch.parent, ==, i);
		g_assert_cmpuint(ch.depth, ==, n.depth + 1);
		/* sorted by duration; placed side by side, each in its room */
		if (k)
			g_assert_cmpuint(ch.total_ns, <=, prev.total_ns);
		g_assert_cmpuint(ch.x_ns, ==, x);
		x += ch.need_ns;
		sum += ch.need_ns;
		prev = ch;
		check_tree(c, ci);
	}
	g_assert_cmpuint(n.need_ns, ==, MAX(n.total_ns, sum));
}

void test_consolidated(gconstpointer name)
{
	struct fixture fx;
	struct rsp_flame_data *d;
	struct rsp_cons_tree *c, *unmerged;
	struct rsp_cons_state st = {.category = -1};
	struct rsp_cons_node_info root, first;
	struct shot sh;
	char err[256];
	const struct rsp_scene_item *bottom = NULL;
	unsigned seen[RSP_CLS__COUNT] = {0};

	fixture_open(&fx, name);
	g_assert_cmpint(rsp_flame_data_new(fx.t, fx.a, &d, err, sizeof(err)), ==, 0);
	c = rsp_cons_tree_new(d, true, false);
	g_assert_cmpuint(rsp_cons_n_nodes(c), >, 3);
	check_tree(c, 0);
	rsp_cons_node(c, 0, &root);
	rsp_cons_node(c, rsp_cons_child(c, 0, 0), &first);
	g_assert_cmpint(first.cls, ==, RSP_CLS_PROCESS);
	g_assert_cmpuint(first.x_ns, ==, 0);

	shot_take(&sh, &rsp_cons_ops, c, &st, 0, 0, 1600, 0, 0);
	shot_save(&sh, "consolidated-%s.png", (const char *)name);
	/* the bottom row: process names, the widest first, at the left */
	for (size_t i = 0; i < rsp_scene_n_items(sh.l.content); i++) {
		const struct rsp_scene_item *it = rsp_scene_item(sh.l.content, i);

		if (RSP_HIT_KIND(it->id) != RSP_HIT_CONS)
			continue;
		seen[it->cls]++;
		if (!bottom || it->y > bottom->y || (it->y == bottom->y && it->x < bottom->x))
			bottom = it;
	}
	g_assert_nonnull(bottom);
	g_assert_cmpuint(RSP_HIT_PAYLOAD(bottom->id), ==, rsp_cons_child(c, 0, 0));
	g_assert_cmpfloat(bottom->w, >=, 1600 * (double)first.total_ns / root.need_ns - 2);
	assert_colour_at(&sh, bottom, RSP_CLS_PROCESS);
	g_assert_cmpuint(seen[RSP_CLS_RUN], >, 0);
	g_assert_cmpuint(seen[RSP_CLS_SLEEP] + seen[RSP_CLS_BOTH], >, 0);
	if (!strcmp(name, "pass.data"))
		/* main, the loop: in running and sleeping stacks */
		g_assert_cmpuint(seen[RSP_CLS_BOTH], >, 0);
	shot_free(&sh);

	/* zoomed into a subtree: it spans the width */
	st.root = rsp_cons_child(c, 0, 0);
	shot_take(&sh, &rsp_cons_ops, c, &st, 0, 0, 1600, 0, 0);
	for (size_t i = 0; i < rsp_scene_n_items(sh.l.content); i++) {
		const struct rsp_scene_item *it = rsp_scene_item(sh.l.content, i);

		if (RSP_HIT_PAYLOAD(it->id) == st.root && RSP_HIT_KIND(it->id) == RSP_HIT_CONS)
			g_assert_cmpfloat(it->w, >=,
					  1600 * (double)first.total_ns / first.need_ns - 2);
	}
	shot_free(&sh);

	/* merge threads off: threads apart ("comm [tid]") */
	unmerged = rsp_cons_tree_new(d, false, false);
	check_tree(unmerged, 0);
	{
		struct rsp_cons_node_info u;

		rsp_cons_node(unmerged, rsp_cons_child(unmerged, 0, 0), &u);
		g_assert_nonnull(strchr(u.label, '['));
		if (!strcmp(name, "pollwait.data")) /* 9 threads */
			g_assert_cmpuint(rsp_cons_n_nodes(unmerged), >, rsp_cons_n_nodes(c));
	}
	rsp_cons_tree_free(unmerged);
	rsp_cons_tree_free(c);
	rsp_flame_data_free(d);
	fixture_close(&fx);
}

/* Lines of @s that begin with @prefix. */
static size_t lines_with(const char *s, const char *prefix)
{
	size_t n = 0, k = strlen(prefix);

	for (const char *l = s; l; l = strchr(l, '\n')) {
		if (*l == '\n')
			l++;
		n += !strncmp(l, prefix, k);
	}
	return n;
}

/*
 * A frame's tooltip lists at most three of its run's sample stacks, the
 * largest shares first, and says how many more; the details panel lists them
 * all.  (Issue 39: an estimated run's tooltip was ~45 unsorted lines, taller
 * than the window, and made a GUI SVG export 9.1 MB.)
 */
void test_flame_tooltip_samples(void)
{
	static const char *const names[] = {"pass.data", "pollwait.data", "rpcchain.data"};
	size_t many = 0;

	for (size_t f = 0; f < G_N_ELEMENTS(names); f++) {
		struct fixture fx;
		struct rsp_flame_data *d;
		struct rsp_flame_state st = {.category = -1};
		struct shot sh;
		char err[256];

		fixture_open(&fx, names[f]);
		g_assert_cmpint(rsp_flame_data_new(fx.t, fx.a, &d, err, sizeof(err)), ==, 0);
		shot_take(&sh, &rsp_flame_ops, d, &st, 0, 0, 1600, 0, 0);
		for (size_t i = 0; i < rsp_scene_n_items(sh.l.content); i++) {
			const struct rsp_scene_item *it = rsp_scene_item(sh.l.content, i);
			struct rsp_flame_node_info ni;
			GString *tip, *all;
			size_t listed;
			double last = 101;

			if (RSP_HIT_KIND(it->id) != RSP_HIT_FRAME || frame_of(it))
				continue;
			rsp_flame_node(d, node_of(it), &ni);
			tip = g_string_new(NULL);
			all = g_string_new(NULL);
			rsp_flame_ops.title(d, &st, it, tip);
			rsp_flame_describe(d, node_of(it), all);
			listed = lines_with(tip->str, "sample ") + lines_with(tip->str, "estimated ") +
				 lines_with(tip->str, "inferred: ");
			g_assert_cmpuint(listed, ==, MIN(ni.n_samples, 3));
			g_assert_cmpuint(lines_with(all->str, "sample ") +
					     lines_with(all->str, "estimated ") +
					     lines_with(all->str, "inferred: "),
					 ==, ni.n_samples);
			if (ni.n_samples > 3) {
				g_autofree char *more =
				    g_strdup_printf("... %zu more stack", ni.n_samples - 3);

				g_assert_cmpuint(lines_with(tip->str, more), ==, 1);
				many++;
			}
			/* the estimated shares printed, largest first */
			for (const char *l = strstr(tip->str, "\nestimated "); l;
			     l = strstr(l + 1, "\nestimated ")) {
				double pc = g_ascii_strtod(l + strlen("\nestimated "), NULL);

				g_assert_cmpfloat(pc, <=, last);
				last = pc;
			}
			g_string_free(tip, TRUE);
			g_string_free(all, TRUE);
		}
		shot_free(&sh);
		rsp_flame_data_free(d);
		fixture_close(&fx);
	}
	/* a run with more than three stacks was seen (else this test could not fail) */
	g_test_message("%zu frames of runs with more than three stacks", many);
	g_assert_cmpuint(many, >, 0);
}
