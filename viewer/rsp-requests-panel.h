/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A server's requests (rsp-requests.h) as a side panel of the flame views:
 * the latency distribution and idle time, then the requests, slowest first.
 * Activating a row emits "request-activated" (the row): the flame page
 * opens that request's own flame view, its window explained alone.
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

/* A row's request, as rsp report --requests names it. */
typedef struct {
	size_t index;		/* in start order: rsp report --requests' "request N" */
	size_t thread;		/* the thread that received it (rsp_trace_thread()) */
	int tid;
	guint64 start_ns, end_ns; /* the recording's clock */
	double offset_s;	/* its start, from the trace's start */
	const char *connection; /* "127.0.0.1:6379 <- 127.0.0.1:51234", or "socket 0x..." */
	unsigned flags;		/* RSP_REQ_OVERLAP ... */
} RspRequestRow;
/* FALSE if there is no such row; the strings live as long as the panel. */
gboolean rsp_requests_panel_get_request(RspRequestsPanel *p, guint i, RspRequestRow *out);
/* The row of request @index, or -1. */
int rsp_requests_panel_find(RspRequestsPanel *p, size_t index);
/* The @i-th row's widget (where to click, for test scripts), or NULL. */
GtkWidget *rsp_requests_panel_get_row_widget(RspRequestsPanel *p, guint i);
/* No row selected (the flame page is back on the whole target). */
void rsp_requests_panel_unselect(RspRequestsPanel *p);

G_END_DECLS

#endif /* RSP_REQUESTS_PANEL_H */
