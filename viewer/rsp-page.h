/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A tab of the viewer: a toolbar, a search bar, and a body around a canvas.
 * The running view and the flame views are its subclasses; the window's
 * actions (zoom, search, export) work on whichever page is current.
 */
#ifndef RSP_PAGE_H
#define RSP_PAGE_H

#include "rsp-canvas.h"
#include "rsp-document.h"

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define RSP_TYPE_PAGE (rsp_page_get_type())
G_DECLARE_DERIVABLE_TYPE(RspPage, rsp_page, RSP, PAGE, GtkBox)

struct _RspPageClass {
	GtkBoxClass parent_class;
	/* the search text changed ("" : none) */
	void (*search_changed)(RspPage *page, const char *text);
	/* Enter (+1), Shift+Enter (-1) in the search entry: the next or previous match */
	void (*search_step)(RspPage *page, int dir);
	/* the analysis the page shows (table export), NULL if none yet */
	RspTarget *(*get_target)(RspPage *page);
};

/* For subclasses: the document, the tab's title, the body (the canvas inside). */
void rsp_page_setup(RspPage *page, RspDocument *doc, const char *title, GtkWidget *body);
RspDocument *rsp_page_get_document(RspPage *page);
RspCanvas *rsp_page_get_canvas(RspPage *page);
GtkWidget *rsp_page_get_toolbar(RspPage *page);
const char *rsp_page_get_title(RspPage *page);
void rsp_page_start_search(RspPage *page);
/* What the search found, beside its entry ("3 of 12", "no match"); "" for none. */
void rsp_page_set_search_status(RspPage *page, const char *text);
const char *rsp_page_get_search_status(RspPage *page);
/* As Enter (+1) or Shift+Enter (-1) in the search entry. */
void rsp_page_search_step(RspPage *page, int dir);
RspTarget *rsp_page_get_target(RspPage *page);

G_END_DECLS

#endif /* RSP_PAGE_H */
