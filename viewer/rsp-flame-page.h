/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A process's flame views (the paper's figures 3 and 4) in one tab:
 * chronological or consolidated, a details panel for the clicked frame,
 * the target's explanation table at the side.  The analysis runs on a
 * worker thread; "ready" is emitted when the views are there.
 *
 * A server's requests are listed under the explanation; activating one
 * shows that request's own views: its window analysed alone (as rsp report
 * --requests explains the slowest), its explanation at the side, a bar over
 * the view naming it with a button (and Alt+Left) back to the whole target.
 * "request-shown" is emitted when a request's views, or the whole target's
 * again, are shown.
 */
#ifndef RSP_FLAME_PAGE_H
#define RSP_FLAME_PAGE_H

#include "rsp-explain-panel.h"
#include "rsp-page.h"
#include "rsp-requests-panel.h"

G_BEGIN_DECLS

#define RSP_TYPE_FLAME_PAGE (rsp_flame_page_get_type())
G_DECLARE_FINAL_TYPE(RspFlamePage, rsp_flame_page, RSP, FLAME_PAGE, RspPage)

/* @pid 0: the target the recorder marked. */
GtkWidget *rsp_flame_page_new(RspDocument *doc, int pid, const char *name);
gboolean rsp_flame_page_is_ready(RspFlamePage *p);
int rsp_flame_page_get_pid(RspFlamePage *p);
void rsp_flame_page_set_consolidated(RspFlamePage *p, gboolean on);
gboolean rsp_flame_page_get_consolidated(RspFlamePage *p);
void rsp_flame_page_set_merge_threads(RspFlamePage *p, gboolean on);
GtkWidget *rsp_flame_page_get_mode_button(RspFlamePage *p);
RspExplainPanel *rsp_flame_page_get_explain_panel(RspFlamePage *p);
/* The target's requests (a server's), NULL if it served none. */
RspRequestsPanel *rsp_flame_page_get_requests_panel(RspFlamePage *p);
const struct rsp_flame_state *rsp_flame_page_get_flame_state(RspFlamePage *p);
const struct rsp_cons_state *rsp_flame_page_get_cons_state(RspFlamePage *p);
const struct rsp_cons_tree *rsp_flame_page_get_cons_tree(RspFlamePage *p);
const struct rsp_flame_data *rsp_flame_page_get_flame_data(RspFlamePage *p);
/* The consolidated view: zoom into the subtree of @node (0: all). */
void rsp_flame_page_set_cons_root(RspFlamePage *p, size_t node);
/* The details panel's text. */
char *rsp_flame_page_dup_details(RspFlamePage *p);
/* What the views show: the target, or the request open (its window alone). */
RspTarget *rsp_flame_page_get_shown(RspFlamePage *p);
/* The request open (rsp report --requests' index), -1: the whole target. */
gssize rsp_flame_page_get_request(RspFlamePage *p);
/* The bar's title over a request's view; NULL when none is open. */
char *rsp_flame_page_dup_request_title(RspFlamePage *p);
GtkWidget *rsp_flame_page_get_back_button(RspFlamePage *p);
/* Back to the whole target's views (the range they showed before the request). */
void rsp_flame_page_show_whole(RspFlamePage *p);

G_END_DECLS

#endif /* RSP_FLAME_PAGE_H */
