/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Loading: progress and cancel; then the error, if any. */
#include "rsp-load-page.h"

struct _RspLoadPage {
	GtkBox parent_instance;
	GtkWidget *title, *bar, *cancel, *error, *close;
	GCancellable *cancellable;
	char *message; /* its children NULL once disposed: a load under way may still
			* report progress or its end to it (it holds a reference) */
};

G_DEFINE_TYPE(RspLoadPage, rsp_load_page, GTK_TYPE_BOX)

enum { SIG_CLOSE, N_SIGS };
static guint signals[N_SIGS];

static void on_cancel(GtkButton *b, RspLoadPage *p)
{
	g_cancellable_cancel(p->cancellable);
	gtk_widget_set_sensitive(p->cancel, FALSE);
	gtk_button_set_label(GTK_BUTTON(p->cancel), "Cancelling\xe2\x80\xa6");
}

static void on_close(GtkButton *b, RspLoadPage *p)
{
	g_signal_emit(p, signals[SIG_CLOSE], 0);
}

static void rsp_load_page_dispose(GObject *obj)
{
	RspLoadPage *p = RSP_LOAD_PAGE(obj);

	if (p->cancellable && !p->message)
		g_cancellable_cancel(p->cancellable);
	g_clear_object(&p->cancellable);
	p->title = p->bar = p->cancel = p->error = p->close = NULL;
	G_OBJECT_CLASS(rsp_load_page_parent_class)->dispose(obj);
}

static void rsp_load_page_finalize(GObject *obj)
{
	g_free(RSP_LOAD_PAGE(obj)->message);
	G_OBJECT_CLASS(rsp_load_page_parent_class)->finalize(obj);
}

static void rsp_load_page_class_init(RspLoadPageClass *klass)
{
	G_OBJECT_CLASS(klass)->dispose = rsp_load_page_dispose;
	G_OBJECT_CLASS(klass)->finalize = rsp_load_page_finalize;
	signals[SIG_CLOSE] = g_signal_new("close", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0,
					  NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void rsp_load_page_init(RspLoadPage *p)
{
	p->cancellable = g_cancellable_new();
}

GtkWidget *rsp_load_page_new(const char *name)
{
	RspLoadPage *p =
	    g_object_new(RSP_TYPE_LOAD_PAGE, "orientation", GTK_ORIENTATION_VERTICAL, "spacing", 12,
			 "valign", GTK_ALIGN_CENTER, "halign", GTK_ALIGN_CENTER, NULL);
	g_autofree char *t = g_strdup_printf("Loading %s\xe2\x80\xa6", name);

	p->title = gtk_label_new(t);
	gtk_widget_add_css_class(p->title, "title-2");
	p->bar = gtk_progress_bar_new();
	gtk_widget_set_size_request(p->bar, 360, -1);
	gtk_progress_bar_set_show_text(GTK_PROGRESS_BAR(p->bar), TRUE);
	p->cancel = gtk_button_new_with_mnemonic("_Cancel");
	gtk_widget_set_halign(p->cancel, GTK_ALIGN_CENTER);
	g_signal_connect(p->cancel, "clicked", G_CALLBACK(on_cancel), p);
	p->error = gtk_label_new(NULL);
	gtk_label_set_wrap(GTK_LABEL(p->error), TRUE);
	gtk_label_set_selectable(GTK_LABEL(p->error), TRUE);
	gtk_label_set_max_width_chars(GTK_LABEL(p->error), 80);
	gtk_widget_set_visible(p->error, FALSE);
	p->close = gtk_button_new_with_mnemonic("C_lose");
	gtk_widget_set_halign(p->close, GTK_ALIGN_CENTER);
	gtk_widget_set_visible(p->close, FALSE);
	g_signal_connect(p->close, "clicked", G_CALLBACK(on_close), p);
	gtk_box_append(GTK_BOX(p), p->title);
	gtk_box_append(GTK_BOX(p), p->bar);
	gtk_box_append(GTK_BOX(p), p->cancel);
	gtk_box_append(GTK_BOX(p), p->error);
	gtk_box_append(GTK_BOX(p), p->close);
	return GTK_WIDGET(p);
}

void rsp_load_page_set_fraction(RspLoadPage *p, double fraction)
{
	if (p->bar)
		gtk_progress_bar_set_fraction(GTK_PROGRESS_BAR(p->bar), fraction);
}

double rsp_load_page_get_fraction(RspLoadPage *p)
{
	return !p->bar ? 0 : gtk_progress_bar_get_fraction(GTK_PROGRESS_BAR(p->bar));
}

void rsp_load_page_set_error(RspLoadPage *p, const char *message)
{
	g_free(p->message);
	p->message = g_strdup(message);
	if (!p->bar)
		return;
	gtk_label_set_text(GTK_LABEL(p->title), "This file cannot be shown");
	gtk_label_set_text(GTK_LABEL(p->error), message);
	gtk_widget_set_visible(p->error, TRUE);
	gtk_widget_set_visible(p->close, TRUE);
	gtk_widget_set_visible(p->bar, FALSE);
	gtk_widget_set_visible(p->cancel, FALSE);
}

const char *rsp_load_page_get_error(RspLoadPage *p)
{
	return p->message;
}

GCancellable *rsp_load_page_get_cancellable(RspLoadPage *p)
{
	return p->cancellable;
}
