/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The window: tabs, opening files (chooser, drag and drop, recent), the welcome page. */
#include "rsp-window-private.h"

#include "rsp-flame-page.h"
#include "rsp-load-page.h"
#include "rsp-renderer.h"
#include "rsp-running-page.h"
#include "rsp-testlog.h"

G_DEFINE_TYPE(RspWindow, rsp_window, GTK_TYPE_APPLICATION_WINDOW)

#define APP_NAME "rsp-viewer"

/* ---- tabs -------------------------------------------------------------------------------- */

static void update_stack(RspWindow *w)
{
	gboolean any = gtk_notebook_get_n_pages(GTK_NOTEBOOK(w->notebook)) > 0;

	gtk_stack_set_visible_child(GTK_STACK(w->stack), any ? w->notebook : w->welcome);
}

static void on_tab_close(GtkButton *b, GtkWidget *page)
{
	GtkWidget *nb = gtk_widget_get_ancestor(page, GTK_TYPE_NOTEBOOK);
	int n;

	if (!nb)
		return;
	n = gtk_notebook_page_num(GTK_NOTEBOOK(nb), page);
	if (n >= 0)
		gtk_notebook_remove_page(GTK_NOTEBOOK(nb), n);
}

static GtkWidget *tab_label(const char *title, GtkWidget *page)
{
	GtkWidget *box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 4);
	GtkWidget *label = gtk_label_new(title);
	GtkWidget *close = gtk_button_new_from_icon_name("window-close-symbolic");

	gtk_label_set_ellipsize(GTK_LABEL(label), PANGO_ELLIPSIZE_MIDDLE);
	gtk_label_set_width_chars(GTK_LABEL(label), (int)MIN(g_utf8_strlen(title, -1), 28));
	gtk_label_set_max_width_chars(GTK_LABEL(label), 32);
	gtk_button_set_has_frame(GTK_BUTTON(close), FALSE);
	gtk_widget_set_tooltip_text(close, "Close (Ctrl+W)");
	g_signal_connect(close, "clicked", G_CALLBACK(on_tab_close), page);
	gtk_box_append(GTK_BOX(box), label);
	gtk_box_append(GTK_BOX(box), close);
	return box;
}

static int add_tab(RspWindow *w, GtkWidget *page, const char *title, int position)
{
	int n = gtk_notebook_insert_page(GTK_NOTEBOOK(w->notebook), page, tab_label(title, page),
					 position);

	gtk_notebook_set_tab_reorderable(GTK_NOTEBOOK(w->notebook), page, TRUE);
	gtk_notebook_set_current_page(GTK_NOTEBOOK(w->notebook), n);
	update_stack(w);
	return n;
}

GtkNotebook *rsp_window_get_notebook(RspWindow *w)
{
	return GTK_NOTEBOOK(w->notebook);
}

GtkWidget *rsp_window_get_current(RspWindow *w)
{
	int n = w->notebook ? gtk_notebook_get_current_page(GTK_NOTEBOOK(w->notebook)) : -1;

	return n >= 0 ? gtk_notebook_get_nth_page(GTK_NOTEBOOK(w->notebook), n) : NULL;
}

RspPage *_rsp_window_page(RspWindow *w)
{
	GtkWidget *p = rsp_window_get_current(w);

	return p && RSP_IS_PAGE(p) ? RSP_PAGE(p) : NULL;
}

void rsp_window_close_current(RspWindow *w)
{
	int n = gtk_notebook_get_current_page(GTK_NOTEBOOK(w->notebook));

	if (n >= 0)
		gtk_notebook_remove_page(GTK_NOTEBOOK(w->notebook), n);
}

void _rsp_window_surface_point(RspWindow *w, GtkWidget *widget, double x, double y, double *sx,
			       double *sy)
{
	graphene_point_t in = GRAPHENE_POINT_INIT(x, y), out;
	double tx = 0, ty = 0;

	if (!gtk_widget_compute_point(widget, GTK_WIDGET(w), &in, &out))
		out = in;
	gtk_native_get_surface_transform(GTK_NATIVE(w), &tx, &ty);
	*sx = out.x + tx;
	*sy = out.y + ty;
}

void _rsp_window_show_error(RspWindow *w, const char *primary, const char *secondary)
{
	GtkWidget *d =
	    gtk_message_dialog_new(GTK_WINDOW(w), GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT,
				   GTK_MESSAGE_ERROR, GTK_BUTTONS_CLOSE, "%s", primary);

	if (secondary)
		gtk_message_dialog_format_secondary_text(GTK_MESSAGE_DIALOG(d), "%s", secondary);
	g_signal_connect(d, "response", G_CALLBACK(gtk_window_destroy), NULL);
	gtk_window_present(GTK_WINDOW(d));
	rsp_testlog("ERROR %s%s%s", primary, secondary ? ": " : "", secondary ? secondary : "");
}

/* ---- flame tabs -------------------------------------------------------------------------- */

/* the flame view's first frame: where its mode button is (and a server's slowest
 * request), for test scripts */
static void on_flame_frame(RspCanvas *c, RspFlamePage *fp)
{
	RspWindow *w = RSP_WINDOW(gtk_widget_get_root(GTK_WIDGET(fp)));
	RspRequestsPanel *q = rsp_flame_page_get_requests_panel(fp);
	double x, y;
	GtkWidget *b = rsp_flame_page_get_mode_button(fp);

	if (!w)
		return;

	_rsp_window_surface_point(w, b, gtk_widget_get_width(b) / 2.0,
				  gtk_widget_get_height(b) / 2.0, &x, &y);
	rsp_testlog("BUTTON consolidated %.0f %.0f", x, y);
	if (q && (b = rsp_requests_panel_get_row_widget(q, 0))) {
		_rsp_window_surface_point(w, b, gtk_widget_get_width(b) / 2.0,
					  gtk_widget_get_height(b) / 2.0, &x, &y);
		rsp_testlog("BUTTON request0 %.0f %.0f", x, y);
	}
}

GtkWidget *rsp_window_open_flame(RspWindow *w, RspDocument *doc, int pid, const char *name)
{
	GtkNotebook *nb = GTK_NOTEBOOK(w->notebook);
	GtkWidget *page;

	for (int i = 0; i < gtk_notebook_get_n_pages(nb); i++) {
		GtkWidget *p = gtk_notebook_get_nth_page(nb, i);

		if (RSP_IS_FLAME_PAGE(p) && rsp_page_get_document(RSP_PAGE(p)) == doc &&
		    rsp_flame_page_get_pid(RSP_FLAME_PAGE(p)) == pid) {
			gtk_notebook_set_current_page(nb, i);
			return p;
		}
	}
	page = rsp_flame_page_new(doc, pid, name);
	g_signal_connect(rsp_page_get_canvas(RSP_PAGE(page)), "first-frame",
			 G_CALLBACK(on_flame_frame), page);
	add_tab(w, page, rsp_page_get_title(RSP_PAGE(page)), -1);
	rsp_testlog("TAB flame %s %d", name ? name : "target", pid);
	return page;
}

static void on_open_flame(RspRunningPage *rp, int pid, const char *name, RspWindow *w)
{
	rsp_window_open_flame(w, rsp_page_get_document(RSP_PAGE(rp)), pid, name);
}

/* ---- opening recordings ------------------------------------------------------------------- */

typedef struct {
	RspWindow *w;
	GWeakRef page;
	char *uri;
} LoadCtx;

static void on_progress(double fraction, gpointer data)
{
	if (data && RSP_IS_LOAD_PAGE(data))
		rsp_load_page_set_fraction(RSP_LOAD_PAGE(data), fraction);
}

static void on_prefetched(GObject *src, GAsyncResult *res, gpointer unused)
{
	GError *error = NULL;

	if (rsp_document_target_finish(RSP_DOCUMENT(src), res, &error))
		rsp_testlog("PREFETCHED flame data");
	g_clear_error(&error);
}

static void on_first_frame(RspCanvas *c, RspRunningPage *rp)
{
	RspWindow *w = RSP_WINDOW(gtk_widget_get_root(GTK_WIDGET(rp)));
	RspDocument *doc = rsp_page_get_document(RSP_PAGE(rp));
	const struct rsp_running_data *d = rsp_document_get_running(doc);
	const struct rsp_running_state *st = rsp_running_page_get_state(rp);
	g_autofree char *path = g_file_get_path(rsp_document_get_file(doc));
	double lm, rm, sm;

	rsp_canvas_get_timings(c, &lm, &rm, &sm);
	/* the target's flame views are likely next: prepare them meanwhile */
	if (rsp_document_get_main_target(doc))
		rsp_document_target_async(doc, 0, NULL, on_prefetched, NULL);
	rsp_testlog("READY %.1f ms (load %.1f ms, layout %.2f ms, render %.2f ms) %s",
		    (g_get_monotonic_time() - rsp_viewer_start_time) / 1000.0,
		    rsp_document_get_load_ms(doc), lm, rm, path ? path : "");
	rsp_testlog("RENDERER %s (%s)", rsp_renderer_name(GTK_WIDGET(c)), rsp_viewer_renderer_why);
	if (!rsp_testlog_enabled() || !w)
		return;
	for (size_t r = 0, n = rsp_running_n_rows(d, st); r < n && r < 40; r++) {
		struct rsp_row_info ri;
		double x, y, sx, sy;

		rsp_running_row(d, st, r, &ri);
		if (!rsp_running_page_row_position(rp, r, &x, &y))
			break;
		_rsp_window_surface_point(w, GTK_WIDGET(c), x, y, &sx, &sy);
		rsp_testlog("ROW %zu %d %.0f %.0f %s", r, ri.pid, sx, sy, ri.name);
	}
	if (g_getenv("RSP_VIEWER_EXIT_AFTER_READY"))
		g_application_quit(g_application_get_default());
}

static void add_recent(const char *uri)
{
	GtkRecentData rd = {
	    .display_name = NULL,
	    .description = (char *)"rsp recording",
	    .mime_type = (char *)"application/octet-stream",
	    .app_name = (char *)APP_NAME,
	    .app_exec = (char *)APP_NAME " %u",
	};

	gtk_recent_manager_add_full(gtk_recent_manager_get_default(), uri, &rd);
}

static void on_loaded(GObject *src, GAsyncResult *res, gpointer data)
{
	LoadCtx *ctx = data;
	RspDocument *doc = RSP_DOCUMENT(src);
	GError *error = NULL;
	GtkWidget *lp = g_weak_ref_get(&ctx->page);
	gboolean ok = rsp_document_load_finish(doc, res, &error);

	if (!lp || !ctx->w->notebook ||
	    gtk_notebook_page_num(GTK_NOTEBOOK(ctx->w->notebook), lp) < 0) {
		/* the tab (or the window) was closed while loading */
	} else if (!ok) {
		rsp_load_page_set_error(RSP_LOAD_PAGE(lp), error->message);
		rsp_testlog("ERROR %s", error->message);
	} else {
		GtkNotebook *nb = GTK_NOTEBOOK(ctx->w->notebook);
		int pos = gtk_notebook_page_num(nb, lp);
		GtkWidget *page = rsp_running_page_new(doc);

		g_signal_connect(page, "open-flame", G_CALLBACK(on_open_flame), ctx->w);
		g_signal_connect(rsp_page_get_canvas(RSP_PAGE(page)), "first-frame",
				 G_CALLBACK(on_first_frame), page);
		if (pos >= 0)
			gtk_notebook_remove_page(nb, pos);
		add_tab(ctx->w, page, rsp_document_get_name(doc), pos);
		gtk_widget_grab_focus(GTK_WIDGET(rsp_page_get_canvas(RSP_PAGE(page))));
		add_recent(ctx->uri);
		rsp_testlog("LOADED %s %.1f ms", rsp_document_get_name(doc),
			    rsp_document_get_load_ms(doc));
	}
	g_clear_error(&error);
	g_clear_object(&lp);
	g_weak_ref_clear(&ctx->page);
	g_object_unref(ctx->w);
	g_free(ctx->uri);
	g_free(ctx);
	g_object_unref(doc);
}

static void on_load_close(RspLoadPage *lp, RspWindow *w)
{
	int n = gtk_notebook_page_num(GTK_NOTEBOOK(w->notebook), GTK_WIDGET(lp));

	if (n >= 0)
		gtk_notebook_remove_page(GTK_NOTEBOOK(w->notebook), n);
}

void rsp_window_open(RspWindow *w, GFile *file)
{
	RspDocument *doc = rsp_document_new(file);
	GtkWidget *lp = rsp_load_page_new(rsp_document_get_name(doc));
	LoadCtx *ctx = g_new0(LoadCtx, 1);

	ctx->w = g_object_ref(w);
	ctx->uri = g_file_get_uri(file);
	g_weak_ref_init(&ctx->page, lp);
	g_signal_connect(lp, "close", G_CALLBACK(on_load_close), w);
	add_tab(w, lp, rsp_document_get_name(doc), -1);
	rsp_testlog("OPEN %s", rsp_document_get_name(doc));
	/* the document lives as long as the load, then as long as its pages */
	rsp_document_load_async(doc, rsp_load_page_get_cancellable(RSP_LOAD_PAGE(lp)), on_progress,
				lp, on_loaded, ctx);
}

/* ---- drag and drop ------------------------------------------------------------------------- */

static gboolean on_drop(GtkDropTarget *t, const GValue *value, double x, double y, RspWindow *w)
{
	GSList *files;

	if (!G_VALUE_HOLDS(value, GDK_TYPE_FILE_LIST))
		return FALSE;
	files = g_value_get_boxed(value);
	for (GSList *l = files; l; l = l->next)
		rsp_window_open(w, G_FILE(l->data));
	return files != NULL;
}

/* ---- recent files --------------------------------------------------------------------------- */

static GMenuModel *recent_menu(void)
{
	GMenu *menu = g_menu_new();
	GList *items = gtk_recent_manager_get_items(gtk_recent_manager_get_default());
	int n = 0;

	for (GList *l = items; l && n < 12; l = l->next) {
		GtkRecentInfo *info = l->data;
		GMenuItem *mi;

		if (!gtk_recent_info_has_application(info, APP_NAME))
			continue;
		mi = g_menu_item_new(gtk_recent_info_get_display_name(info), NULL);
		g_menu_item_set_action_and_target_value(
		    mi, "win.open-uri", g_variant_new_string(gtk_recent_info_get_uri(info)));
		g_menu_append_item(menu, mi);
		g_object_unref(mi);
		n++;
	}
	g_list_free_full(items, (GDestroyNotify)gtk_recent_info_unref);
	if (!n)
		g_menu_append(menu, "No recent recordings", "win.none");
	return G_MENU_MODEL(menu);
}

static void recent_popup(GtkMenuButton *b, gpointer unused)
{
	GMenuModel *m = recent_menu();

	gtk_menu_button_set_menu_model(b, m);
	g_object_unref(m);
}

static void on_open_uri(GSimpleAction *a, GVariant *param, gpointer data)
{
	GFile *f = g_file_new_for_uri(g_variant_get_string(param, NULL));

	rsp_window_open(RSP_WINDOW(data), f);
	g_object_unref(f);
}

/* ---- the window ------------------------------------------------------------------------------ */

static GtkWidget *welcome_page(void)
{
	GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 12);
	GtkWidget *title = gtk_label_new(NULL), *text, *open;

	gtk_widget_set_valign(box, GTK_ALIGN_CENTER);
	gtk_widget_set_halign(box, GTK_ALIGN_CENTER);
	gtk_label_set_markup(GTK_LABEL(title),
			     "<big><b>rsp, the Recursive Systemic Profiler</b></big>");
	text = gtk_label_new("Open a recording made by rsp record (Ctrl+O), drop one here, or run\n"
			     "rsp view FILE. The process-running view opens first; click a\n"
			     "process name for its flame views.");
	gtk_label_set_justify(GTK_LABEL(text), GTK_JUSTIFY_CENTER);
	open = gtk_button_new_with_mnemonic("_Open a Recording\xe2\x80\xa6");
	gtk_actionable_set_action_name(GTK_ACTIONABLE(open), "win.open");
	gtk_widget_set_halign(open, GTK_ALIGN_CENTER);
	gtk_widget_add_css_class(open, "suggested-action");
	gtk_box_append(GTK_BOX(box), title);
	gtk_box_append(GTK_BOX(box), text);
	gtk_box_append(GTK_BOX(box), open);
	return box;
}

static void on_pages_changed(GtkNotebook *nb, GtkWidget *child, guint n, RspWindow *w)
{
	update_stack(w);
}

static void on_switch_page(GtkNotebook *nb, GtkWidget *page, guint n, RspWindow *w)
{
	if (RSP_IS_PAGE(page))
		rsp_testlog("CURRENT %s", rsp_page_get_title(RSP_PAGE(page)));
}

static void rsp_window_dispose(GObject *obj)
{
	RspWindow *w = RSP_WINDOW(obj);

	/* the notebook empties itself as it goes: not a reason to show the welcome page */
	if (w->notebook)
		g_signal_handlers_disconnect_by_data(w->notebook, w);
	w->notebook = NULL;
	g_clear_object(&w->chooser);
	G_OBJECT_CLASS(rsp_window_parent_class)->dispose(obj);
}

static void rsp_window_class_init(RspWindowClass *klass)
{
	G_OBJECT_CLASS(klass)->dispose = rsp_window_dispose;
}

static GtkWidget *menu_button(void)
{
	GMenu *menu = g_menu_new(), *export = g_menu_new(), *table = g_menu_new(),
	      *symbols = g_menu_new(), *help = g_menu_new();
	GtkWidget *b = gtk_menu_button_new();

	g_menu_append(export, "Export View as _PNG\xe2\x80\xa6", "win.export-png");
	g_menu_append(export, "Export View as _SVG\xe2\x80\xa6", "win.export-svg");
	g_menu_append(export, "Export View as P_DF\xe2\x80\xa6", "win.export-pdf");
	g_menu_append(table, "Export Table as _CSV\xe2\x80\xa6", "win.export-csv");
	g_menu_append(table, "Export Table as _Markdown\xe2\x80\xa6", "win.export-md");
	g_menu_append(symbols, "Symbol _Paths\xe2\x80\xa6", "win.symbol-paths");
	g_menu_append(help, "_Keyboard Shortcuts", "win.show-help-overlay");
	g_menu_append(help, "_About rsp", "app.about");
	g_menu_append_section(menu, NULL, G_MENU_MODEL(export));
	g_menu_append_section(menu, NULL, G_MENU_MODEL(table));
	g_menu_append_section(menu, NULL, G_MENU_MODEL(symbols));
	g_menu_append_section(menu, NULL, G_MENU_MODEL(help));
	gtk_menu_button_set_icon_name(GTK_MENU_BUTTON(b), "open-menu-symbolic");
	gtk_menu_button_set_menu_model(GTK_MENU_BUTTON(b), G_MENU_MODEL(menu));
	gtk_widget_set_tooltip_text(b, "Export, shortcuts");
	g_object_unref(menu);
	g_object_unref(export);
	g_object_unref(table);
	g_object_unref(help);
	return b;
}

static void rsp_window_init(RspWindow *w)
{
	GtkWidget *header = gtk_header_bar_new(), *open, *box;
	GtkDropTarget *drop;
	static const GActionEntry entries[] = {
	    {"open-uri", on_open_uri, "s", NULL, NULL, {0}},
	};

	gtk_window_set_title(GTK_WINDOW(w), "rsp");
	gtk_window_set_default_size(GTK_WINDOW(w), 1280, 800);
	/* Keyboard focus shown from the start: otherwise the first key press (a
	 * zoom, usually) also restyles the whole window for :focus-visible, and
	 * that frame took 17-24 ms instead of ~9 (bench/viewer/viewer.sh). */
	gtk_window_set_focus_visible(GTK_WINDOW(w), TRUE);
	g_action_map_add_action_entries(G_ACTION_MAP(w), entries, G_N_ELEMENTS(entries), w);

	box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 0);
	gtk_widget_add_css_class(box, "linked");
	open = gtk_button_new_with_mnemonic("_Open");
	gtk_actionable_set_action_name(GTK_ACTIONABLE(open), "win.open");
	gtk_widget_set_tooltip_text(open, "Open a recording (Ctrl+O)");
	w->recent_button = gtk_menu_button_new();
	gtk_widget_set_tooltip_text(w->recent_button, "Recent recordings");
	gtk_menu_button_set_create_popup_func(GTK_MENU_BUTTON(w->recent_button), recent_popup, NULL,
					      NULL);
	gtk_box_append(GTK_BOX(box), open);
	gtk_box_append(GTK_BOX(box), w->recent_button);
	gtk_header_bar_pack_start(GTK_HEADER_BAR(header), box);
	gtk_header_bar_pack_end(GTK_HEADER_BAR(header), menu_button());
	gtk_window_set_titlebar(GTK_WINDOW(w), header);

	w->notebook = gtk_notebook_new();
	gtk_notebook_set_scrollable(GTK_NOTEBOOK(w->notebook), TRUE);
	g_signal_connect(w->notebook, "page-added", G_CALLBACK(on_pages_changed), w);
	g_signal_connect(w->notebook, "page-removed", G_CALLBACK(on_pages_changed), w);
	g_signal_connect(w->notebook, "switch-page", G_CALLBACK(on_switch_page), w);
	w->welcome = welcome_page();
	w->stack = gtk_stack_new();
	gtk_stack_add_child(GTK_STACK(w->stack), w->welcome);
	gtk_stack_add_child(GTK_STACK(w->stack), w->notebook);
	gtk_window_set_child(GTK_WINDOW(w), w->stack);

	drop = gtk_drop_target_new(GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);
	g_signal_connect(drop, "drop", G_CALLBACK(on_drop), w);
	gtk_widget_add_controller(GTK_WIDGET(w), GTK_EVENT_CONTROLLER(drop));
}
