/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The explanation table as a side panel; its rows highlight frames. */
#include "rsp-explain-panel.h"

#include "rsp-testlog.h"

struct _RspExplainPanel {
	GtkBox parent_instance;
	GtkWidget *list;
	int category;
};

G_DEFINE_TYPE(RspExplainPanel, rsp_explain_panel, GTK_TYPE_BOX)

enum { SIG_CATEGORY, N_SIGS };
static guint signals[N_SIGS];

static void on_row(GtkListBox *box, GtkListBoxRow *row, RspExplainPanel *p)
{
	int cat = GPOINTER_TO_INT(g_object_get_data(G_OBJECT(row), "category"));

	if (cat == p->category) {
		p->category = -1;
		gtk_list_box_unselect_all(box);
	} else {
		p->category = cat;
	}
	rsp_testlog("CATEGORY %d %s", p->category, p->category >= 0 ? rsp_category_key(cat) : "-");
	g_signal_emit(p, signals[SIG_CATEGORY], 0, p->category);
}

static void rsp_explain_panel_class_init(RspExplainPanelClass *klass)
{
	signals[SIG_CATEGORY] =
	    g_signal_new("category-activated", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL,
			 NULL, NULL, G_TYPE_NONE, 1, G_TYPE_INT);
}

static void rsp_explain_panel_init(RspExplainPanel *p)
{
	p->category = -1;
}

static GtkWidget *cell(const char *text, float xalign, gboolean expand)
{
	GtkWidget *l = gtk_label_new(text);

	gtk_label_set_xalign(GTK_LABEL(l), xalign);
	gtk_widget_set_hexpand(l, expand);
	return l;
}

static GtkWidget *row_box(const char *name, const char *ms, const char *pct)
{
	GtkWidget *b = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8);
	GtkWidget *m = cell(ms, 1, FALSE), *q = cell(pct, 1, FALSE);

	gtk_widget_set_size_request(m, 80, -1);
	gtk_widget_set_size_request(q, 50, -1);
	gtk_box_append(GTK_BOX(b), cell(name, 0, TRUE));
	gtk_box_append(GTK_BOX(b), m);
	gtk_box_append(GTK_BOX(b), q);
	gtk_widget_set_margin_start(b, 6);
	gtk_widget_set_margin_end(b, 6);
	gtk_widget_set_margin_top(b, 3);
	gtk_widget_set_margin_bottom(b, 3);
	return b;
}

void rsp_side_panel_add_list(GtkBox *panel, GtkWidget *list)
{
	GtkWidget *scroller = gtk_scrolled_window_new();

	gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scroller), list);
	gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(scroller), GTK_POLICY_NEVER,
				       GTK_POLICY_AUTOMATIC);
	gtk_widget_set_vexpand(scroller, TRUE);
	gtk_box_append(panel, scroller);
	gtk_widget_set_size_request(GTK_WIDGET(panel), 380, -1);
}

GtkWidget *rsp_explain_panel_new(const RspTarget *tg)
{
	RspExplainPanel *p = g_object_new(RSP_TYPE_EXPLAIN_PANEL, "orientation",
					  GTK_ORIENTATION_VERTICAL, "spacing", 4, NULL);
	struct rsp_explanation e;
	GtkWidget *title, *sub;
	char buf[600], ms[32], pc[32];
	g_autofree char *markup = NULL; /* a request's desc names its connection: "a <- b" */
	uint64_t acc, of;

	rsp_analysis_explanation(tg->analysis, &e);
	acc = rsp_explanation_accounted(&e);
	of = rsp_explanation_not_idle(&e);
	title = gtk_label_new(NULL);
	markup = g_markup_printf_escaped("<b>Where %s's time went</b>", tg->desc);
	gtk_label_set_markup(GTK_LABEL(title), markup);
	gtk_label_set_wrap(GTK_LABEL(title), TRUE);
	gtk_label_set_xalign(GTK_LABEL(title), 0);
	gtk_widget_set_margin_start(title, 6);
	gtk_widget_set_margin_top(title, 6);
	gtk_box_append(GTK_BOX(p), title);
	if (e.cat_ns[RSP_CAT_IDLE])
		/* as rsp report: idle of the total, the rest of the time not idle */
		snprintf(buf, sizeof(buf),
			 "%zu control path%s, %zu process%s; wall %.3f ms, total %.3f ms, idle "
			 "(waiting for work) %.3f ms, %.1f%% of it; of the %.3f ms not idle, %.1f%% "
			 "accounted, %.1f%% explained (to a function, device or peer). "
			 "Click a category to highlight its frames.",
			 e.n_paths, e.n_paths == 1 ? "" : "s", e.n_processes,
			 e.n_processes == 1 ? "" : "es", e.wall_ns / 1e6, e.total_ns / 1e6,
			 e.cat_ns[RSP_CAT_IDLE] / 1e6, 100.0 * e.cat_ns[RSP_CAT_IDLE] / e.total_ns,
			 of / 1e6, of ? 100.0 * acc / of : 0.0,
			 of ? 100.0 * e.explained_ns / of : 0.0);
	else
		snprintf(buf, sizeof(buf),
			 "%zu control path%s, %zu process%s; wall %.3f ms, total %.3f ms, %.1f%% "
			 "accounted, %.1f%% explained (to a function, device or peer). "
			 "Click a category to highlight its frames.",
			 e.n_paths, e.n_paths == 1 ? "" : "s", e.n_processes,
			 e.n_processes == 1 ? "" : "es", e.wall_ns / 1e6, e.total_ns / 1e6,
			 e.total_ns ? 100.0 * acc / e.total_ns : 0.0,
			 e.total_ns ? 100.0 * e.explained_ns / e.total_ns : 0.0);
	sub = gtk_label_new(buf);
	gtk_label_set_wrap(GTK_LABEL(sub), TRUE);
	gtk_label_set_xalign(GTK_LABEL(sub), 0);
	gtk_widget_set_margin_start(sub, 6);
	gtk_widget_add_css_class(sub, "dim-label");
	gtk_box_append(GTK_BOX(p), sub);

	p->list = gtk_list_box_new();
	gtk_list_box_set_selection_mode(GTK_LIST_BOX(p->list), GTK_SELECTION_SINGLE);
	gtk_list_box_set_activate_on_single_click(GTK_LIST_BOX(p->list), TRUE);
	g_signal_connect(p->list, "row-activated", G_CALLBACK(on_row), p);
	/* idle first (of the total), then the categories of the time not idle */
	for (int row_i = 0; row_i <= RSP_CAT__COUNT; row_i++) {
		int c = row_i == 0 ? RSP_CAT_IDLE : row_i - 1;
		uint64_t whole = c == RSP_CAT_IDLE ? e.total_ns : of;
		GtkWidget *row;
		GString *tip;

		if ((!e.cat_ns[c] && c != RSP_CAT_CPU) || (row_i && c == RSP_CAT_IDLE))
			continue;
		snprintf(ms, sizeof(ms), "%.3f ms", e.cat_ns[c] / 1e6);
		snprintf(pc, sizeof(pc), "%.1f%%", whole ? 100.0 * e.cat_ns[c] / whole : 0);
		row = gtk_list_box_row_new();
		gtk_list_box_row_set_child(GTK_LIST_BOX_ROW(row),
					   row_box(rsp_category_name(c), ms, pc));
		g_object_set_data(G_OBJECT(row), "category", GINT_TO_POINTER(c));
		tip = g_string_new(rsp_category_advice(c));
		for (size_t i = 0; i < rsp_analysis_n_contributors(tg->analysis, c) && i < 8; i++) {
			struct rsp_contributor k;

			rsp_analysis_contributor(tg->analysis, c, i, &k);
			g_string_append_printf(tip, "\n%s: %.3f ms (x%llu%s)", k.what, k.ns / 1e6,
					       (unsigned long long)k.count,
					       k.ns_estimated * 2 > k.ns ? ", estimated" :
					       k.ns_inferred * 2 > k.ns	 ? ", inferred" :
									   "");
		}
		gtk_widget_set_tooltip_text(row, tip->str);
		g_string_free(tip, TRUE);
		gtk_list_box_append(GTK_LIST_BOX(p->list), row);
	}
	rsp_side_panel_add_list(GTK_BOX(p), p->list);
	return GTK_WIDGET(p);
}

gboolean rsp_explain_panel_activate(RspExplainPanel *p, int category)
{
	for (GtkWidget *r = gtk_widget_get_first_child(p->list); r;
	     r = gtk_widget_get_next_sibling(r))
		if (GTK_IS_LIST_BOX_ROW(r) &&
		    GPOINTER_TO_INT(g_object_get_data(G_OBJECT(r), "category")) == category) {
			gtk_list_box_select_row(GTK_LIST_BOX(p->list), GTK_LIST_BOX_ROW(r));
			g_signal_emit_by_name(p->list, "row-activated", r);
			return TRUE;
		}
	return FALSE;
}

int rsp_explain_panel_get_category(RspExplainPanel *p)
{
	return p->category;
}
