/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The target's explanation table, as a side panel: one row per category
 * (time, share, top contributors in the tooltip).  Activating a row emits
 * "category-activated" (the category, or -1 when the same row is activated
 * again) so the flame view can highlight the frames that category counts.
 */
#ifndef RSP_EXPLAIN_PANEL_H
#define RSP_EXPLAIN_PANEL_H

#include "rsp-document.h"

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define RSP_TYPE_EXPLAIN_PANEL (rsp_explain_panel_get_type())
G_DECLARE_FINAL_TYPE(RspExplainPanel, rsp_explain_panel, RSP, EXPLAIN_PANEL, GtkBox)

GtkWidget *rsp_explain_panel_new(const RspTarget *target);
/* A side panel's list, scrolled, filling @panel (the explanation's, the requests'). */
void rsp_side_panel_add_list(GtkBox *panel, GtkWidget *list);
/* Activate the row of @category, as a click would (tests); FALSE if it has no row. */
gboolean rsp_explain_panel_activate(RspExplainPanel *p, int category);
int rsp_explain_panel_get_category(RspExplainPanel *p);

G_END_DECLS

#endif /* RSP_EXPLAIN_PANEL_H */
