/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The main tab: the process-running view (the paper's figure 2) of a
 * recording.  Clicking a process name emits "open-flame" (pid, name); the
 * triangle before a process expands it into its threads.
 */
#ifndef RSP_RUNNING_PAGE_H
#define RSP_RUNNING_PAGE_H

#include "rsp-page.h"

G_BEGIN_DECLS

#define RSP_TYPE_RUNNING_PAGE (rsp_running_page_get_type())
G_DECLARE_FINAL_TYPE(RspRunningPage, rsp_running_page, RSP, RUNNING_PAGE, RspPage)

/* @doc must be loaded. */
GtkWidget *rsp_running_page_new(RspDocument *doc);
void rsp_running_page_set_show_sleeps(RspRunningPage *p, gboolean on);
void rsp_running_page_set_chains_only(RspRunningPage *p, gboolean on);
void rsp_running_page_set_show_links(RspRunningPage *p, gboolean on);
const struct rsp_running_state *rsp_running_page_get_state(RspRunningPage *p);
/* Where row @row's name is drawn (widget coordinates of the canvas); FALSE if off screen. */
gboolean rsp_running_page_row_position(RspRunningPage *p, size_t row, double *x, double *y);

G_END_DECLS

#endif /* RSP_RUNNING_PAGE_H */
