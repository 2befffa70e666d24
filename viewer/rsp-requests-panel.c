/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A server's requests as a side panel: the slowest first, each opening its own flame view. */
#include "rsp-requests-panel.h"

#include "rsp-explain-panel.h"

#include "rsp-requests.h"
#include "rsp-testlog.h"

#include <stdio.h>
#include <stdlib.h>

/* rows shown at most: the slowest (the distribution covers them all) */
#define MAX_ROWS 1000

struct row {
	RspRequestRow r; /* its connection: an interned string */
};

struct _RspRequestsPanel {
	GtkBox parent_instance;
	GtkWidget *list;
	struct row *rows;
	guint n_rows;
	GStringChunk *strings;
};

G_DEFINE_TYPE(RspRequestsPanel, rsp_requests_panel, GTK_TYPE_BOX)

enum { SIG_REQUEST, N_SIGS };
static guint signals[N_SIGS];

static void on_row(GtkListBox *box, GtkListBoxRow *row, RspRequestsPanel *p)
{
	int i = gtk_list_box_row_get_index(row);

	if (i < 0 || (guint)i >= p->n_rows)
		return;
	rsp_testlog("REQUEST %zu %.3f ms", p->rows[i].r.index,
		    (p->rows[i].r.end_ns - p->rows[i].r.start_ns) / 1e6);
	g_signal_emit(p, signals[SIG_REQUEST], 0, (guint)i);
}

static void rsp_requests_panel_finalize(GObject *obj)
{
	RspRequestsPanel *p = RSP_REQUESTS_PANEL(obj);

	g_free(p->rows);
	if (p->strings)
		g_string_chunk_free(p->strings);
	G_OBJECT_CLASS(rsp_requests_panel_parent_class)->finalize(obj);
}

static void rsp_requests_panel_class_init(RspRequestsPanelClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = rsp_requests_panel_finalize;
	signals[SIG_REQUEST] =
	    g_signal_new("request-activated", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL,
			 NULL, NULL, G_TYPE_NONE, 1, G_TYPE_UINT);
}

static void rsp_requests_panel_init(RspRequestsPanel *p)
{
}

static GtkWidget *label(const char *text, gboolean dim)
{
	GtkWidget *l = gtk_label_new(text);

	gtk_label_set_wrap(GTK_LABEL(l), TRUE);
	gtk_label_set_xalign(GTK_LABEL(l), 0);
	gtk_widget_set_margin_start(l, 6);
	if (dim)
		gtk_widget_add_css_class(l, "dim-label");
	return l;
}

static const struct rsp_requests *sort_rq; /* qsort has no context; GTK thread only */

static int cmp_slow(const void *a, const void *b)
{
	struct rsp_request_info x, y;

	rsp_requests_get(sort_rq, *(const size_t *)a, &x);
	rsp_requests_get(sort_rq, *(const size_t *)b, &y);
	if (x.end_ns - x.start_ns != y.end_ns - y.start_ns)
		return x.end_ns - x.start_ns > y.end_ns - y.start_ns ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/* The panel from the requests found (the model locked). */
static void fill(RspRequestsPanel *p, struct rsp_trace *t, const struct rsp_requests *rq)
{
	struct rsp_requests_stats st;
	struct rsp_requests_time tm;
	struct rsp_trace_summary sum;
	size_t n = rsp_requests_n(rq), *order = g_new(size_t, n);
	char buf[400];
	uint64_t idle;

	rsp_requests_stats(rq, &st);
	rsp_requests_time(rq, &tm);
	rsp_trace_get_summary(t, &sum);
	idle = tm.idle_sleep_ns + tm.idle_run_ns + tm.idle_other_ns;
	gtk_box_append(GTK_BOX(p), label(NULL, FALSE));
	snprintf(buf, sizeof(buf), "<b>%zu requests</b>", st.count);
	gtk_label_set_markup(GTK_LABEL(gtk_widget_get_last_child(GTK_WIDGET(p))), buf);
	snprintf(buf, sizeof(buf),
		 "latency p50 %.3f ms, p90 %.3f, p99 %.3f, max %.3f; in requests %.3f ms, idle "
		 "(waiting for the next request and between them) %.3f ms. Click a request for its "
		 "own flame view and explanation: its time alone, analysed as rsp report --requests "
		 "explains the slowest.",
		 st.p50_ns / 1e6, st.p90_ns / 1e6, st.p99_ns / 1e6, st.max_ns / 1e6,
		 tm.busy_ns / 1e6, idle / 1e6);
	gtk_box_append(GTK_BOX(p), label(buf, TRUE));
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	sort_rq = rq;
	qsort(order, n, sizeof(*order), cmp_slow);
	p->n_rows = n < MAX_ROWS ? (guint)n : MAX_ROWS;
	p->rows = g_new0(struct row, p->n_rows ? p->n_rows : 1);
	p->strings = g_string_chunk_new(4096);
	p->list = gtk_list_box_new();
	gtk_list_box_set_selection_mode(GTK_LIST_BOX(p->list), GTK_SELECTION_SINGLE);
	gtk_list_box_set_activate_on_single_click(GTK_LIST_BOX(p->list), TRUE);
	g_signal_connect(p->list, "row-activated", G_CALLBACK(on_row), p);
	for (guint i = 0; i < p->n_rows; i++) {
		struct rsp_request_info q;
		struct rsp_conn_info ci;
		struct rsp_socket_info si;
		struct rsp_thread_info ti;
		GtkWidget *l;

		rsp_requests_get(rq, order[i], &q);
		rsp_requests_conn(rq, q.conn, &ci);
		rsp_trace_socket(t, ci.socket, &si);
		rsp_trace_thread(t, q.thread, &ti);
		/* the connection as rsp report --requests names it */
		if (si.local[0])
			snprintf(buf, sizeof(buf), "%s <- %s", si.local, si.remote);
		else
			snprintf(buf, sizeof(buf), "socket %#" G_GINT64_MODIFIER "x",
				 (guint64)si.sk);
		p->rows[i].r = (RspRequestRow){
			.index = order[i],
			.thread = q.thread,
			.tid = ti.tid,
			.start_ns = q.start_ns,
			.end_ns = q.end_ns,
			.offset_s = (q.start_ns - sum.start_ns) / 1e9,
			.connection = g_string_chunk_insert_const(p->strings, buf),
			.flags = q.flags,
		};
		snprintf(buf, sizeof(buf), "%10.3f ms   at +%.6f s   #%zu%s", (q.end_ns - q.start_ns) / 1e6,
			 (q.start_ns - sum.start_ns) / 1e9, order[i],
			 q.flags & RSP_REQ_OVERLAP ? "  (overlaps another)" : "");
		l = gtk_label_new(buf);
		gtk_label_set_xalign(GTK_LABEL(l), 0);
		gtk_widget_set_margin_start(l, 6);
		gtk_widget_set_margin_top(l, 2);
		gtk_widget_set_margin_bottom(l, 2);
		snprintf(buf, sizeof(buf), "%s, tid %d, %u read%s, %u send%s, %llu bytes in, %llu out",
			 p->rows[i].r.connection, ti.tid, q.n_recv, q.n_recv == 1 ? "" : "s",
			 q.n_send, q.n_send == 1 ? "" : "s", (unsigned long long)q.bytes_in,
			 (unsigned long long)q.bytes_out);
		gtk_widget_set_tooltip_text(l, buf);
		gtk_list_box_append(GTK_LIST_BOX(p->list), l);
	}
	g_free(order);
	rsp_side_panel_add_list(GTK_BOX(p), p->list);
}

GtkWidget *rsp_requests_panel_new(RspDocument *doc, const RspTarget *tg)
{
	/* as rsp report --requests: the processes the target forked serve its requests too */
	struct rsp_thread_filter f = { .descendants = true };
	struct rsp_requests *rq = NULL;
	RspRequestsPanel *p = NULL;
	struct rsp_trace *t;
	uint8_t *sel = NULL;
	int *pids = NULL;
	size_t n_pids = 0;

	if (!rsp_document_try_lock(doc))
		return NULL;
	t = rsp_document_get_trace(doc);
	if (tg->pid) {
		pids = g_new(int, 1);
		pids[n_pids++] = tg->pid;
	} else {
		pids = g_new(int, rsp_trace_n_targets(t) + 1);
		for (size_t i = 0; i < rsp_trace_n_targets(t); i++)
			pids[n_pids++] = rsp_trace_target(t, i);
	}
	f.pids = pids;
	f.n_pids = n_pids;
	if (n_pids)
		sel = rsp_thread_filter_apply(t, &f);
	if (sel && !rsp_requests_find(t, sel, &rq) && rsp_requests_n(rq)) {
		p = g_object_new(RSP_TYPE_REQUESTS_PANEL, "orientation", GTK_ORIENTATION_VERTICAL,
				 "spacing", 4, NULL);
		fill(p, t, rq);
	}
	rsp_document_unlock(doc);
	rsp_requests_free(rq);
	free(sel);
	g_free(pids);
	return p ? GTK_WIDGET(p) : NULL;
}

guint rsp_requests_panel_get_n_rows(RspRequestsPanel *p)
{
	return p->n_rows;
}

gboolean rsp_requests_panel_activate(RspRequestsPanel *p, guint i)
{
	GtkListBoxRow *r = i < p->n_rows ? gtk_list_box_get_row_at_index(GTK_LIST_BOX(p->list), (int)i) :
					  NULL;

	if (!r)
		return FALSE;
	gtk_list_box_select_row(GTK_LIST_BOX(p->list), r);
	g_signal_emit_by_name(p->list, "row-activated", r);
	return TRUE;
}

gboolean rsp_requests_panel_get_window(RspRequestsPanel *p, guint i, guint64 *start,
				       guint64 *end)
{
	if (i >= p->n_rows)
		return FALSE;
	*start = p->rows[i].r.start_ns;
	*end = p->rows[i].r.end_ns;
	return TRUE;
}

gboolean rsp_requests_panel_get_request(RspRequestsPanel *p, guint i, RspRequestRow *out)
{
	if (i >= p->n_rows)
		return FALSE;
	*out = p->rows[i].r;
	return TRUE;
}

int rsp_requests_panel_find(RspRequestsPanel *p, size_t index)
{
	for (guint i = 0; i < p->n_rows; i++)
		if (p->rows[i].r.index == index)
			return (int)i;
	return -1;
}

GtkWidget *rsp_requests_panel_get_row_widget(RspRequestsPanel *p, guint i)
{
	if (i >= p->n_rows)
		return NULL;
	return GTK_WIDGET(gtk_list_box_get_row_at_index(GTK_LIST_BOX(p->list), (int)i));
}

void rsp_requests_panel_unselect(RspRequestsPanel *p)
{
	gtk_list_box_unselect_all(GTK_LIST_BOX(p->list));
}
