/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A tab: toolbar, search bar, body. */
#include "rsp-page.h"

typedef struct {
	RspDocument *doc;
	char *title;
	GtkWidget *toolbar, *search_bar, *search_entry, *search_status;
	RspCanvas *canvas;
} RspPagePrivate;

G_DEFINE_TYPE_WITH_PRIVATE(RspPage, rsp_page, GTK_TYPE_BOX)

static void on_search(GtkSearchEntry *e, RspPage *page)
{
	RspPageClass *k = RSP_PAGE_GET_CLASS(page);

	if (k->search_changed)
		k->search_changed(page, gtk_editable_get_text(GTK_EDITABLE(e)));
}

static void on_search_next(GtkSearchEntry *e, RspPage *page)
{
	rsp_page_search_step(page, 1);
}

static void on_search_previous(GtkSearchEntry *e, RspPage *page)
{
	rsp_page_search_step(page, -1);
}

/* Shift+Enter: the previous match (Enter alone is the entry's activate) */
static gboolean on_search_key(GtkEventControllerKey *k, guint keyval, guint keycode,
			      GdkModifierType state, RspPage *page)
{
	if ((keyval == GDK_KEY_Return || keyval == GDK_KEY_KP_Enter) &&
	    (state & GDK_SHIFT_MASK)) {
		rsp_page_search_step(page, -1);
		return TRUE;
	}
	return FALSE;
}

static void on_search_stop(GtkSearchEntry *e, RspPage *page)
{
	RspPagePrivate *p = rsp_page_get_instance_private(page);

	gtk_editable_set_text(GTK_EDITABLE(e), "");
	gtk_search_bar_set_search_mode(GTK_SEARCH_BAR(p->search_bar), FALSE);
	if (p->canvas)
		gtk_widget_grab_focus(GTK_WIDGET(p->canvas));
}

static void rsp_page_dispose(GObject *obj)
{
	RspPagePrivate *p = rsp_page_get_instance_private(RSP_PAGE(obj));

	g_clear_object(&p->doc);
	G_OBJECT_CLASS(rsp_page_parent_class)->dispose(obj);
}

static void rsp_page_finalize(GObject *obj)
{
	RspPagePrivate *p = rsp_page_get_instance_private(RSP_PAGE(obj));

	g_free(p->title);
	G_OBJECT_CLASS(rsp_page_parent_class)->finalize(obj);
}

static void rsp_page_class_init(RspPageClass *klass)
{
	G_OBJECT_CLASS(klass)->dispose = rsp_page_dispose;
	G_OBJECT_CLASS(klass)->finalize = rsp_page_finalize;
}

static void rsp_page_init(RspPage *page)
{
	RspPagePrivate *p = rsp_page_get_instance_private(page);

	gtk_orientable_set_orientation(GTK_ORIENTABLE(page), GTK_ORIENTATION_VERTICAL);
	p->toolbar = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
	gtk_widget_set_margin_start(p->toolbar, 6);
	gtk_widget_set_margin_end(p->toolbar, 6);
	gtk_widget_set_margin_top(p->toolbar, 4);
	gtk_widget_set_margin_bottom(p->toolbar, 4);
	gtk_box_append(GTK_BOX(page), p->toolbar);
	p->search_entry = gtk_search_entry_new();
	gtk_widget_set_size_request(p->search_entry, 320, -1);
	gtk_widget_set_tooltip_text(p->search_entry, "Names containing the text, case aside; "
						     "Enter: the next match, Shift+Enter: the "
						     "previous one");
	g_signal_connect(p->search_entry, "search-changed", G_CALLBACK(on_search), page);
	g_signal_connect(p->search_entry, "stop-search", G_CALLBACK(on_search_stop), page);
	g_signal_connect(p->search_entry, "activate", G_CALLBACK(on_search_next), page);
	g_signal_connect(p->search_entry, "next-match", G_CALLBACK(on_search_next), page);
	g_signal_connect(p->search_entry, "previous-match", G_CALLBACK(on_search_previous), page);
	{
		GtkEventController *k = gtk_event_controller_key_new();

		gtk_event_controller_set_propagation_phase(k, GTK_PHASE_CAPTURE);
		g_signal_connect(k, "key-pressed", G_CALLBACK(on_search_key), page);
		gtk_widget_add_controller(p->search_entry, k);
	}
	p->search_status = gtk_label_new("");
	gtk_widget_set_name(p->search_status, "search-status");
	{
		GtkWidget *box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8);

		gtk_box_append(GTK_BOX(box), p->search_entry);
		gtk_box_append(GTK_BOX(box), p->search_status);
		p->search_bar = gtk_search_bar_new();
		gtk_search_bar_set_child(GTK_SEARCH_BAR(p->search_bar), box);
	}
	gtk_search_bar_connect_entry(GTK_SEARCH_BAR(p->search_bar), GTK_EDITABLE(p->search_entry));
	gtk_search_bar_set_show_close_button(GTK_SEARCH_BAR(p->search_bar), TRUE);
	gtk_box_append(GTK_BOX(page), p->search_bar);
}

static GtkWidget *find_canvas(GtkWidget *w)
{
	if (RSP_IS_CANVAS(w))
		return w;
	for (GtkWidget *c = gtk_widget_get_first_child(w); c; c = gtk_widget_get_next_sibling(c)) {
		GtkWidget *f = find_canvas(c);

		if (f)
			return f;
	}
	return NULL;
}

void rsp_page_setup(RspPage *page, RspDocument *doc, const char *title, GtkWidget *body)
{
	RspPagePrivate *p = rsp_page_get_instance_private(page);

	g_set_object(&p->doc, doc);
	g_free(p->title);
	p->title = g_strdup(title);
	gtk_widget_set_vexpand(body, TRUE);
	gtk_box_append(GTK_BOX(page), body);
	p->canvas = RSP_CANVAS(find_canvas(body));
}

RspDocument *rsp_page_get_document(RspPage *page)
{
	RspPagePrivate *p = rsp_page_get_instance_private(page);

	return p->doc;
}

RspCanvas *rsp_page_get_canvas(RspPage *page)
{
	RspPagePrivate *p = rsp_page_get_instance_private(page);

	return p->canvas;
}

GtkWidget *rsp_page_get_toolbar(RspPage *page)
{
	RspPagePrivate *p = rsp_page_get_instance_private(page);

	return p->toolbar;
}

const char *rsp_page_get_title(RspPage *page)
{
	RspPagePrivate *p = rsp_page_get_instance_private(page);

	return p->title;
}

void rsp_page_start_search(RspPage *page)
{
	RspPagePrivate *p = rsp_page_get_instance_private(page);

	gtk_search_bar_set_search_mode(GTK_SEARCH_BAR(p->search_bar), TRUE);
	gtk_widget_grab_focus(p->search_entry);
}

void rsp_page_set_search_status(RspPage *page, const char *text)
{
	RspPagePrivate *p = rsp_page_get_instance_private(page);

	gtk_label_set_text(GTK_LABEL(p->search_status), text ? text : "");
}

const char *rsp_page_get_search_status(RspPage *page)
{
	RspPagePrivate *p = rsp_page_get_instance_private(page);

	return gtk_label_get_text(GTK_LABEL(p->search_status));
}

void rsp_page_search_step(RspPage *page, int dir)
{
	RspPageClass *k = RSP_PAGE_GET_CLASS(page);

	if (k->search_step)
		k->search_step(page, dir);
}

RspTarget *rsp_page_get_target(RspPage *page)
{
	RspPageClass *k = RSP_PAGE_GET_CLASS(page);

	return k->get_target ? k->get_target(page) : NULL;
}
