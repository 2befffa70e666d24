/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The process-running view's tab: toggles, warnings, the canvas. */
#include "rsp-running-page.h"

#include "rsp-testlog.h"

#include <string.h>

struct _RspRunningPage {
	RspPage parent_instance;
	RspCanvas *canvas;
	GtkWidget *sleeps, *chains, *links;
	struct rsp_running_state st;
	uint8_t *expanded;
	char *search;
};

G_DEFINE_TYPE(RspRunningPage, rsp_running_page, RSP_TYPE_PAGE)

enum { SIG_OPEN_FLAME, N_SIGS };
static guint signals[N_SIGS];

static const struct rsp_running_data *data_of(RspRunningPage *p)
{
	return rsp_document_get_running(rsp_page_get_document(RSP_PAGE(p)));
}

static void on_item(RspCanvas *c, guint64 id, int n_press, double x, double y, RspRunningPage *p)
{
	const struct rsp_running_data *d = data_of(p);
	struct rsp_row_info ri;

	if (RSP_HIT_KIND(id) != RSP_HIT_ROW_NAME && RSP_HIT_KIND(id) != RSP_HIT_EXPANDER)
		return;
	rsp_running_row(d, &p->st, RSP_HIT_PAYLOAD(id), &ri);
	if (RSP_HIT_KIND(id) == RSP_HIT_EXPANDER) {
		if (ri.kind == RSP_ROW_PROCESS && ri.proc < rsp_running_n_procs(d)) {
			p->expanded[ri.proc] = !p->expanded[ri.proc];
			rsp_testlog("EXPAND %s %d", ri.name, p->expanded[ri.proc]);
			rsp_canvas_invalidate(p->canvas);
		}
		return;
	}
	if ((ri.kind == RSP_ROW_PROCESS || ri.kind == RSP_ROW_THREAD) && n_press == 1) {
		g_autofree char *name = g_strdup(ri.name);
		char *sp = strrchr(name, ' ');

		if (sp)
			*sp = '\0'; /* "comm pid" -> "comm" */
		g_signal_emit(p, signals[SIG_OPEN_FLAME], 0, ri.pid, name);
	}
}

static void on_toggle(GtkCheckButton *b, RspRunningPage *p)
{
	p->st.show_sleeps = gtk_check_button_get_active(GTK_CHECK_BUTTON(p->sleeps));
	p->st.chains_only = gtk_check_button_get_active(GTK_CHECK_BUTTON(p->chains));
	p->st.hide_links = !gtk_check_button_get_active(GTK_CHECK_BUTTON(p->links));
	rsp_testlog("TOGGLE sleeps=%d chains=%d links=%d", p->st.show_sleeps, p->st.chains_only,
		    !p->st.hide_links);
	rsp_canvas_invalidate(p->canvas);
}

static void on_labelled(RspDocument *doc, RspRunningPage *p)
{
	rsp_testlog("LABELLED sleeps=%d", p->st.show_sleeps);
	rsp_canvas_invalidate(p->canvas);
}

/* The rows whose names match, in order; *at: the current match's place among them (0: none). */
static GArray *matching_rows(RspRunningPage *p, size_t *at)
{
	const struct rsp_running_data *d = data_of(p);
	size_t n = rsp_running_n_rows(d, &p->st);
	GArray *rows = g_array_new(FALSE, FALSE, sizeof(size_t));

	*at = 0;
	for (size_t r = 0; r < n && p->search && *p->search; r++) {
		struct rsp_row_info ri;

		rsp_running_row(d, &p->st, r, &ri);
		if (!rsp_search_hit(ri.name, p->search))
			continue;
		g_array_append_val(rows, r);
		if (p->st.search_current == r + 1)
			*at = rows->len;
	}
	return rows;
}

static void show_search_status(RspRunningPage *p)
{
	size_t at;
	GArray *rows = matching_rows(p, &at);
	g_autofree char *s = NULL;

	if (!p->search || !*p->search)
		s = g_strdup("");
	else if (!rows->len)
		s = g_strdup("no match");
	else if (at)
		s = g_strdup_printf("%zu of %u rows", at, rows->len);
	else
		s = g_strdup_printf("%u row%s: Enter to step", rows->len, rows->len == 1 ? "" : "s");
	rsp_page_set_search_status(RSP_PAGE(p), s);
	rsp_testlog("SEARCH \"%s\" %s", p->search ? p->search : "", s);
	g_array_unref(rows);
}

static void search_changed(RspPage *page, const char *text)
{
	RspRunningPage *p = RSP_RUNNING_PAGE(page);

	g_free(p->search);
	p->search = g_strdup(text);
	p->st.search = p->search;
	p->st.search_current = 0;
	show_search_status(p);
	rsp_canvas_invalidate(p->canvas);
}

/* The next (@dir 1) or previous (-1) matching row, round the ends, scrolled into view. */
static void search_step(RspPage *page, int dir)
{
	RspRunningPage *p = RSP_RUNNING_PAGE(page);
	size_t at, row;
	GArray *rows = matching_rows(p, &at);

	if (rows->len) {
		if (!at)
			at = dir > 0 ? 1 : rows->len;
		else
			at = dir > 0 ? at % rows->len + 1 : (at + rows->len - 2) % rows->len + 1;
		row = g_array_index(rows, size_t, at - 1);
		p->st.search_current = row + 1;
		{
			/* a third of the way down, unless it is in view already */
			const struct rsp_view *v = rsp_canvas_get_view(p->canvas);
			double top = (double)row * RSP_ROW_H - v->scroll_y, h = v->height - RSP_RULER_H;

			if (top < 0 || top + RSP_ROW_H > h)
				rsp_canvas_pan(p->canvas, 0, top - h / 3);
		}
		rsp_canvas_invalidate(p->canvas);
	}
	g_array_unref(rows);
	show_search_status(p);
}

static RspTarget *get_target(RspPage *page)
{
	return rsp_document_get_main_target(rsp_page_get_document(page));
}

static void rsp_running_page_finalize(GObject *obj)
{
	RspRunningPage *p = RSP_RUNNING_PAGE(obj);

	g_free(p->expanded);
	g_free(p->search);
	G_OBJECT_CLASS(rsp_running_page_parent_class)->finalize(obj);
}

static void rsp_running_page_class_init(RspRunningPageClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = rsp_running_page_finalize;
	RSP_PAGE_CLASS(klass)->search_changed = search_changed;
	RSP_PAGE_CLASS(klass)->search_step = search_step;
	RSP_PAGE_CLASS(klass)->get_target = get_target;
	signals[SIG_OPEN_FLAME] =
	    g_signal_new("open-flame", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
			 NULL, G_TYPE_NONE, 2, G_TYPE_INT, G_TYPE_STRING);
}

static void rsp_running_page_init(RspRunningPage *p)
{
}

GtkWidget *rsp_running_page_new(RspDocument *doc)
{
	RspRunningPage *p = g_object_new(RSP_TYPE_RUNNING_PAGE, NULL);
	GtkWidget *tb, *info;
	const struct rsp_running_data *d = rsp_document_get_running(doc);
	RspTarget *tg = rsp_document_get_main_target(doc);
	guint nw = rsp_document_get_n_warnings(doc);

	p->expanded = g_new0(uint8_t, rsp_running_n_procs(d) + 1);
	p->st.expanded = p->expanded;
	p->canvas = RSP_CANVAS(rsp_canvas_new());
	rsp_canvas_set_document(p->canvas, doc);
	g_signal_connect(p->canvas, "item-activated", G_CALLBACK(on_item), p);
	rsp_page_setup(RSP_PAGE(p), doc, rsp_document_get_name(doc), GTK_WIDGET(p->canvas));

	tb = rsp_page_get_toolbar(RSP_PAGE(p));
	p->sleeps = gtk_check_button_new_with_mnemonic("_Sleeps");
	gtk_widget_set_tooltip_text(p->sleeps, "Show sleeps as blue boxes, labelled with the "
					       "function that best describes them");
	p->chains = gtk_check_button_new_with_mnemonic("Only the target's _chains");
	gtk_widget_set_tooltip_text(p->chains, "Only the target and the processes in its "
					       "pseudostacks, with their disks and sockets");
	p->links = gtk_check_button_new_with_mnemonic("_Links");
	gtk_check_button_set_active(GTK_CHECK_BUTTON(p->links), TRUE);
	gtk_widget_set_tooltip_text(p->links,
				    "Wakeup links (Alt+L), under the rows' marks; zoomed out "
				    "(more than one link per 8 pixels), only the target's chains'");
	g_signal_connect(p->sleeps, "toggled", G_CALLBACK(on_toggle), p);
	g_signal_connect(p->chains, "toggled", G_CALLBACK(on_toggle), p);
	g_signal_connect(p->links, "toggled", G_CALLBACK(on_toggle), p);
	gtk_box_append(GTK_BOX(tb), p->sleeps);
	gtk_box_append(GTK_BOX(tb), p->chains);
	gtk_box_append(GTK_BOX(tb), p->links);
	info = gtk_label_new(NULL);
	gtk_widget_set_hexpand(info, TRUE);
	gtk_label_set_xalign(GTK_LABEL(info), 1);
	gtk_label_set_ellipsize(GTK_LABEL(info), PANGO_ELLIPSIZE_END);
	{
		GString *s = g_string_new(tg ? tg->desc : "no target marked in the file");
		GString *tip = g_string_new(NULL);

		g_string_append(s, " \xe2\x80\x94 click a process name for its flame view");
		if (nw)
			g_string_append_printf(s, " \xe2\x80\x94 %u warning%s", nw,
					       nw == 1 ? "" : "s");
		for (guint i = 0; i < nw; i++)
			g_string_append_printf(tip, "%s%s", i ? "\n" : "",
					       rsp_document_get_warning(doc, i));
		gtk_label_set_text(GTK_LABEL(info), s->str);
		if (tip->len)
			gtk_widget_set_tooltip_text(info, tip->str);
		g_string_free(s, TRUE);
		g_string_free(tip, TRUE);
	}
	gtk_box_append(GTK_BOX(tb), info);
	rsp_canvas_set_view(p->canvas, &rsp_running_ops, d, &p->st);
	g_signal_connect_object(doc, "labelled", G_CALLBACK(on_labelled), p, 0);
	return GTK_WIDGET(p);
}

void rsp_running_page_set_show_sleeps(RspRunningPage *p, gboolean on)
{
	gtk_check_button_set_active(GTK_CHECK_BUTTON(p->sleeps), on);
}

void rsp_running_page_set_chains_only(RspRunningPage *p, gboolean on)
{
	gtk_check_button_set_active(GTK_CHECK_BUTTON(p->chains), on);
}

void rsp_running_page_set_show_links(RspRunningPage *p, gboolean on)
{
	gtk_check_button_set_active(GTK_CHECK_BUTTON(p->links), on);
}

const struct rsp_running_state *rsp_running_page_get_state(RspRunningPage *p)
{
	return &p->st;
}

gboolean rsp_running_page_row_position(RspRunningPage *p, size_t row, double *x, double *y)
{
	double cy =
	    rsp_canvas_content_y_to_px(p->canvas, (double)row * RSP_ROW_H + RSP_ROW_H / 2.0);
	const struct rsp_view *v = rsp_canvas_get_view(p->canvas);

	*x = 40;
	*y = cy;
	return cy >= RSP_RULER_H && cy < v->height;
}
