/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A tab while a recording loads: a progress bar and Cancel; if loading
 * fails, the error (never a crash) and Close.
 */
#ifndef RSP_LOAD_PAGE_H
#define RSP_LOAD_PAGE_H

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define RSP_TYPE_LOAD_PAGE (rsp_load_page_get_type())
G_DECLARE_FINAL_TYPE(RspLoadPage, rsp_load_page, RSP, LOAD_PAGE, GtkBox)

GtkWidget *rsp_load_page_new(const char *name);
void rsp_load_page_set_fraction(RspLoadPage *p, double fraction);
double rsp_load_page_get_fraction(RspLoadPage *p);
void rsp_load_page_set_error(RspLoadPage *p, const char *message);
/* The error shown, or NULL while loading. */
const char *rsp_load_page_get_error(RspLoadPage *p);
GCancellable *rsp_load_page_get_cancellable(RspLoadPage *p);

G_END_DECLS

#endif /* RSP_LOAD_PAGE_H */
