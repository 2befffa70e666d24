/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A server's requests (rsp-requests.h) as a side panel of the flame views:
 * the latency distribution and idle time, then the requests, slowest first.
 * Activating a row emits "request-activated" (its start and end, ns): the
 * flame page shows that request's time in the chronological flame view.
 */
#ifndef RSP_REQUESTS_PANEL_H
#define RSP_REQUESTS_PANEL_H

#include "rsp-document.h"

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define RSP_TYPE_REQUESTS_PANEL (rsp_requests_panel_get_type())
G_DECLARE_FINAL_TYPE(RspRequestsPanel, rsp_requests_panel, RSP, REQUESTS_PANEL, GtkBox)

/*
 * The requests of @tg's processes (pid 0: the recorded targets), or NULL when
 * they made none (or the model is busy: the caller shows none).  Takes the
 * document's lock for the time it reads the model.
 */
GtkWidget *rsp_requests_panel_new(RspDocument *doc, const RspTarget *tg);
guint rsp_requests_panel_get_n_rows(RspRequestsPanel *p);
/* Activate the @i-th row (slowest first), as a click would (tests). */
gboolean rsp_requests_panel_activate(RspRequestsPanel *p, guint i);
/* The @i-th row's request window; FALSE if there is no such row. */
gboolean rsp_requests_panel_get_window(RspRequestsPanel *p, guint i, guint64 *start,
				       guint64 *end);

G_END_DECLS

#endif /* RSP_REQUESTS_PANEL_H */
