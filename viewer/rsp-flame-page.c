/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The flame views' tab: chronological / consolidated, details, explanation; a request's own. */
#include "rsp-flame-page.h"

#include "rsp-requests-panel.h"
#include "rsp-requests.h"
#include "rsp-testlog.h"

struct _RspFlamePage {
	RspPage parent_instance;
	int pid;
	char *name;
	RspTarget *target;
	/* what the views show: the target, or one of its requests (its window alone) */
	RspTarget *shown;
	GtkWidget *stack, *busy_label, *error_label;
	RspCanvas *canvas;
	GtkWidget *mode, *merge, *kernel, *crumbs, *details, *side;
	GtkWidget *explain_box; /* holds the explanation of what is shown */
	RspExplainPanel *explain;
	RspRequestsPanel *requests; /* NULL: the target served no request */
	/* a request's view: the bar over it (back button, title), which request */
	GtkWidget *request_bar, *request_title, *back;
	gssize request; /* its index (rsp report --requests' numbering), -1: none */
	guint request_gen; /* the last request asked for: older answers are dropped */
	gboolean whole_saved; /* the whole target's chronological range, to go back to */
	double whole_x0, whole_x1;
	struct rsp_flame_state fs;
	struct rsp_cons_state cs;
	struct rsp_cons_tree *tree;
	gboolean consolidated;
	char *search;
	GCancellable *cancellable;
};

G_DEFINE_TYPE(RspFlamePage, rsp_flame_page, RSP_TYPE_PAGE)

/* ---- the legend: what each colour of the flame views says (rsp_flame_legend()) ---------- */

static void draw_swatch(GtkDrawingArea *a, cairo_t *cr, int w, int h, gpointer data)
{
	const struct rsp_legend_item *li = rsp_flame_legend(GPOINTER_TO_SIZE(data));
	struct rsp_scene *sc = rsp_scene_new();

	(void)a;
	rsp_scene_add(sc, li->hatch ? RSP_PRIM_HATCH : RSP_PRIM_RECT, li->cls, 0, 0, w, h);
	rsp_scene_draw(sc, cr, 0, 0, w, h);
	rsp_scene_free(sc);
}

/* A row of swatches with the palette's names, the meaning as a tooltip. */
static GtkWidget *legend_new(void)
{
	GtkWidget *box = gtk_flow_box_new();

	gtk_flow_box_set_selection_mode(GTK_FLOW_BOX(box), GTK_SELECTION_NONE);
	gtk_flow_box_set_max_children_per_line(GTK_FLOW_BOX(box), rsp_flame_legend_n());
	gtk_widget_set_margin_start(box, 6);
	for (size_t i = 0; i < rsp_flame_legend_n(); i++) {
		GtkWidget *item = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 4);
		GtkWidget *sw = gtk_drawing_area_new();
		const struct rsp_legend_item *li = rsp_flame_legend(i);

		gtk_drawing_area_set_content_width(GTK_DRAWING_AREA(sw), 14);
		gtk_drawing_area_set_content_height(GTK_DRAWING_AREA(sw), 12);
		gtk_drawing_area_set_draw_func(GTK_DRAWING_AREA(sw), draw_swatch, GSIZE_TO_POINTER(i),
					       NULL);
		gtk_widget_set_valign(sw, GTK_ALIGN_CENTER);
		gtk_box_append(GTK_BOX(item), sw);
		gtk_box_append(GTK_BOX(item), gtk_label_new(rsp_palette_name(li->cls)));
		gtk_widget_set_tooltip_text(item, li->tip);
		gtk_flow_box_append(GTK_FLOW_BOX(box), item);
	}
	gtk_widget_set_name(box, "legend");
	return box;
}

enum { SIG_READY, SIG_REQUEST, N_SIGS };
static guint signals[N_SIGS];

static void set_details(RspFlamePage *p, const char *text)
{
	gtk_label_set_text(GTK_LABEL(p->details), text ? text : "");
}

static void rebuild_tree(RspFlamePage *p)
{
	rsp_cons_tree_free(p->tree);
	p->tree = rsp_cons_tree_new(p->shown->flame,
				    gtk_check_button_get_active(GTK_CHECK_BUTTON(p->merge)),
				    p->fs.kernel_frames);
	p->cs.root = 0;
}

static void on_crumb(GtkButton *b, RspFlamePage *p)
{
	rsp_flame_page_set_cons_root(p, GPOINTER_TO_SIZE(g_object_get_data(G_OBJECT(b), "node")));
}

static void update_crumbs(RspFlamePage *p)
{
	GtkWidget *c;
	size_t chain[64], n = 0;

	while ((c = gtk_widget_get_first_child(p->crumbs)))
		gtk_box_remove(GTK_BOX(p->crumbs), c);
	gtk_widget_set_visible(p->crumbs, p->consolidated);
	if (!p->consolidated || !p->tree)
		return;
	for (size_t x = p->cs.root; x != RSP_NO_INDEX && n < G_N_ELEMENTS(chain);) {
		struct rsp_cons_node_info ni;

		chain[n++] = x;
		rsp_cons_node(p->tree, x, &ni);
		x = ni.parent;
	}
	while (n-- > 0) {
		struct rsp_cons_node_info ni;
		GtkWidget *b;

		rsp_cons_node(p->tree, chain[n], &ni);
		b = gtk_button_new_with_label(chain[n] ? ni.label : "all");
		gtk_button_set_has_frame(GTK_BUTTON(b), FALSE);
		g_object_set_data(G_OBJECT(b), "node", GSIZE_TO_POINTER(chain[n]));
		g_signal_connect(b, "clicked", G_CALLBACK(on_crumb), p);
		gtk_box_append(GTK_BOX(p->crumbs), b);
		if (n)
			gtk_box_append(GTK_BOX(p->crumbs), gtk_label_new("\xe2\x80\xba"));
	}
}

static void show_mode(RspFlamePage *p)
{
	if (!p->shown)
		return;
	if (p->consolidated) {
		if (!p->tree)
			rebuild_tree(p);
		rsp_canvas_set_view(p->canvas, &rsp_cons_ops, p->tree, &p->cs);
	} else {
		rsp_canvas_set_view(p->canvas, &rsp_flame_ops, p->shown->flame, &p->fs);
	}
	gtk_widget_set_sensitive(p->merge, p->consolidated);
	update_crumbs(p);
	set_details(p, p->consolidated
			   ? "Click a frame to zoom into it; the path above goes back."
			   : "Click a frame for its details; double-click zooms to it.");
	rsp_testlog("VIEW %s", p->consolidated ? "consolidated" : "chronological");
}

static void on_mode(GtkToggleButton *b, RspFlamePage *p)
{
	p->consolidated = gtk_toggle_button_get_active(b);
	show_mode(p);
}

static void on_merge(GtkCheckButton *b, RspFlamePage *p)
{
	if (!p->shown)
		return;
	rebuild_tree(p);
	if (p->consolidated)
		show_mode(p);
}

static void on_kernel(GtkCheckButton *b, RspFlamePage *p)
{
	p->fs.kernel_frames = gtk_check_button_get_active(b);
	if (!p->shown)
		return;
	rsp_cons_tree_free(p->tree);
	p->tree = NULL;
	if (p->consolidated)
		show_mode(p);
	else
		rsp_canvas_invalidate(p->canvas);
}

static void on_item(RspCanvas *c, guint64 id, int n_press, double x, double y, RspFlamePage *p)
{
	GString *s = g_string_new(NULL);

	if (RSP_HIT_KIND(id) == RSP_HIT_FRAME && p->shown) {
		size_t node = RSP_HIT_PAYLOAD(id) & 0xffffffffff;
		struct rsp_flame_node_info ni;
		RspDocument *doc = rsp_page_get_document(RSP_PAGE(p));

		rsp_flame_node(p->shown->flame, node, &ni);
		if (n_press >= 2) {
			double m = (ni.end_ns - ni.start_ns) * 0.05 + 1;

			rsp_canvas_set_range(c, ni.start_ns - m, ni.end_ns + m);
			rsp_testlog("ZOOM node %zu", node);
		}
		rsp_canvas_set_selected_id(c, id);
		rsp_flame_describe(p->shown->flame, node, s);
		g_string_append(s, "\n");
		if (rsp_document_try_lock(doc)) {
			rsp_flame_describe_links(p->shown->flame, rsp_document_get_trace(doc),
						 node, s);
			rsp_document_unlock(doc);
		} else {
			g_string_append(s, "(what woke it: the recording is busy, click again)");
		}
		rsp_testlog("FRAME %zu %d", node, n_press);
	} else if (RSP_HIT_KIND(id) == RSP_HIT_CONS && p->tree) {
		const struct rsp_scene_item *it = rsp_canvas_hit(c, x, y);

		if (it) {
			char *t = rsp_canvas_dup_title(c, it);

			g_string_append(s, t ? t : "");
			g_free(t);
		}
		rsp_flame_page_set_cons_root(p, RSP_HIT_PAYLOAD(id));
	} else {
		g_string_free(s, TRUE);
		return;
	}
	set_details(p, s->str);
	g_string_free(s, TRUE);
}

static void on_category(RspExplainPanel *e, int cat, RspFlamePage *p)
{
	p->fs.category = p->cs.category = cat;
	rsp_canvas_invalidate(p->canvas);
}

static void search_changed(RspPage *page, const char *text)
{
	RspFlamePage *p = RSP_FLAME_PAGE(page);

	g_free(p->search);
	p->search = g_strdup(text);
	p->fs.search = p->cs.search = p->search;
	rsp_canvas_invalidate(p->canvas);
}

/* The table export: the explanation shown (a request's, when one is open). */
static RspTarget *get_target(RspPage *page)
{
	return RSP_FLAME_PAGE(page)->shown;
}

/* ---- a request's own view ----------------------------------------------------------------- */

/* The explanation panel of what is shown now, in place of the last one. */
static void set_explain(RspFlamePage *p)
{
	GtkWidget *c;

	while ((c = gtk_widget_get_first_child(p->explain_box)))
		gtk_box_remove(GTK_BOX(p->explain_box), c);
	p->explain = RSP_EXPLAIN_PANEL(rsp_explain_panel_new(p->shown));
	gtk_widget_set_vexpand(GTK_WIDGET(p->explain), TRUE);
	g_signal_connect(p->explain, "category-activated", G_CALLBACK(on_category), p);
	gtk_box_append(GTK_BOX(p->explain_box), GTK_WIDGET(p->explain));
}

/* Show @tg (the target or one of its requests): its flame data, its explanation. */
static void show_target(RspFlamePage *p, RspTarget *tg)
{
	p->shown = tg;
	rsp_cons_tree_free(p->tree);
	p->tree = NULL;
	p->cs.root = 0;
	p->fs.category = p->cs.category = -1; /* the categories are the new explanation's */
	set_explain(p);
	show_mode(p);
}

typedef struct {
	RspFlamePage *p; /* not a reference: the page's cancellable ends the task first */
	guint gen;
	RspRequestRow row;
} RequestCtx;

static void on_request_ready(GObject *src, GAsyncResult *res, gpointer data)
{
	RequestCtx *rc = data;
	GError *error = NULL;
	RspTarget *tg = rsp_document_window_finish(RSP_DOCUMENT(src), res, &error);
	RspFlamePage *p = rc->p;
	g_autofree char *markup = NULL;

	if (!tg && g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED)) {
		g_error_free(error);
		g_free(rc);
		return; /* the page is gone */
	}
	if (rc->gen != p->request_gen) { /* another request asked for since, or back */
		g_clear_error(&error);
		g_free(rc);
		return;
	}
	if (!tg) {
		gtk_label_set_text(GTK_LABEL(p->request_title), error->message);
		rsp_testlog("ERROR %s", error->message);
		g_error_free(error);
		g_free(rc);
		return;
	}
	if (p->request < 0 && !p->consolidated) {
		const struct rsp_view *v = rsp_canvas_get_view(p->canvas);

		p->whole_saved = TRUE;
		p->whole_x0 = v->x0;
		p->whole_x1 = v->x1;
	}
	p->request = (gssize)rc->row.index;
	/* what tells it from the others first: the process is in the explanation's title */
	markup = g_markup_printf_escaped(
	    "<b>Request #%zu</b>   <b>%.3f ms</b>   %s   tid %d   at +%.6f s   of %s%s",
	    rc->row.index, (rc->row.end_ns - rc->row.start_ns) / 1e6, rc->row.connection,
	    rc->row.tid, rc->row.offset_s, p->target->desc,
	    rc->row.flags & RSP_REQ_OVERLAP
		? "   (overlaps another request: its window holds part of the other's work)"
		: "");
	gtk_label_set_markup(GTK_LABEL(p->request_title), markup);
	gtk_widget_set_tooltip_text(p->request_title,
				    gtk_label_get_text(GTK_LABEL(p->request_title)));
	show_target(p, tg);
	rsp_testlog("REQUEST VIEW %zu nodes=%zu", rc->row.index, rsp_flame_n_nodes(tg->flame));
	g_free(rc);
	g_signal_emit(p, signals[SIG_REQUEST], 0);
}

/* A request of the requests panel: its own flame view, its window explained alone. */
static void on_request(RspRequestsPanel *rp, guint row, RspFlamePage *p)
{
	RequestCtx *rc = g_new0(RequestCtx, 1);
	struct rsp_window w;
	g_autofree char *desc = NULL;
	char *title;

	if (!rsp_requests_panel_get_request(rp, row, &rc->row)) {
		g_free(rc);
		return;
	}
	rc->p = p;
	rc->gen = ++p->request_gen;
	w.thread = rc->row.thread;
	w.start_ns = rc->row.start_ns;
	w.end_ns = rc->row.end_ns;
	/* its latency and connection are in the bar over the view */
	desc = g_strdup_printf("request #%zu of %s", rc->row.index, p->target->desc);
	title = g_strdup_printf("Analysing request #%zu\xe2\x80\xa6", rc->row.index);
	gtk_label_set_text(GTK_LABEL(p->request_title), title);
	g_free(title);
	gtk_widget_set_visible(p->request_bar, TRUE);
	rsp_document_window_async(rsp_page_get_document(RSP_PAGE(p)), p->pid, &w, desc,
				  p->cancellable, on_request_ready, rc);
}

static void on_back(GtkButton *b, RspFlamePage *p)
{
	rsp_flame_page_show_whole(p);
}

static gboolean on_back_key(GtkWidget *w, GVariant *args, gpointer data)
{
	RspFlamePage *p = RSP_FLAME_PAGE(w);

	if (!gtk_widget_get_visible(p->request_bar))
		return FALSE;
	rsp_flame_page_show_whole(p);
	return TRUE;
}

/* The bar over a request's view: the way back, what it shows. */
static GtkWidget *request_bar_new(RspFlamePage *p)
{
	GtkWidget *bar = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8);

	p->back = gtk_button_new();
	{
		GtkWidget *b = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 4);

		gtk_box_append(GTK_BOX(b), gtk_image_new_from_icon_name("go-previous-symbolic"));
		gtk_box_append(GTK_BOX(b), gtk_label_new_with_mnemonic("_Whole target"));
		gtk_button_set_child(GTK_BUTTON(p->back), b);
	}
	gtk_widget_set_tooltip_text(p->back, "Back to the whole target's flame view (Alt+Left)");
	g_signal_connect(p->back, "clicked", G_CALLBACK(on_back), p);
	p->request_title = gtk_label_new(NULL);
	gtk_label_set_xalign(GTK_LABEL(p->request_title), 0);
	gtk_label_set_ellipsize(GTK_LABEL(p->request_title), PANGO_ELLIPSIZE_END);
	gtk_label_set_selectable(GTK_LABEL(p->request_title), TRUE);
	gtk_widget_set_hexpand(p->request_title, TRUE);
	gtk_box_append(GTK_BOX(bar), p->back);
	gtk_box_append(GTK_BOX(bar), p->request_title);
	gtk_widget_set_margin_start(bar, 6);
	gtk_widget_set_margin_top(bar, 2);
	gtk_widget_set_visible(bar, FALSE);
	gtk_widget_set_name(bar, "request-bar");
	return bar;
}

/* The explanation at the side; for a server, its requests under it. */
static void side_panels(RspFlamePage *p)
{
	GtkWidget *pane, *rq = rsp_requests_panel_new(rsp_page_get_document(RSP_PAGE(p)), p->target);

	p->explain_box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
	if (!rq) {
		gtk_paned_set_end_child(GTK_PANED(p->side), p->explain_box);
		return;
	}
	p->requests = RSP_REQUESTS_PANEL(rq);
	g_signal_connect(rq, "request-activated", G_CALLBACK(on_request), p);
	pane = gtk_paned_new(GTK_ORIENTATION_VERTICAL);
	gtk_paned_set_start_child(GTK_PANED(pane), p->explain_box);
	gtk_paned_set_end_child(GTK_PANED(pane), rq);
	gtk_paned_set_end_child(GTK_PANED(p->side), pane);
}

static void on_target(GObject *src, GAsyncResult *res, gpointer data)
{
	GError *error = NULL;
	RspTarget *tg = rsp_document_target_finish(RSP_DOCUMENT(src), res, &error);
	RspFlamePage *p;

	if (!tg && g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED)) {
		g_error_free(error);
		return; /* the page is gone */
	}
	p = RSP_FLAME_PAGE(data);
	if (!tg) {
		gtk_label_set_text(GTK_LABEL(p->error_label), error->message);
		gtk_stack_set_visible_child_name(GTK_STACK(p->stack), "error");
		rsp_testlog("ERROR %s", error->message);
		g_error_free(error);
		return;
	}
	p->target = p->shown = tg;
	side_panels(p);
	set_explain(p);
	gtk_stack_set_visible_child_name(GTK_STACK(p->stack), "view");
	show_mode(p);
	gtk_widget_grab_focus(GTK_WIDGET(p->canvas)); /* the keys zoom and pan */
	rsp_testlog("FLAME READY %s %d nodes=%zu", p->name, p->pid, rsp_flame_n_nodes(tg->flame));
	g_signal_emit(p, signals[SIG_READY], 0);
}

static void rsp_flame_page_dispose(GObject *obj)
{
	RspFlamePage *p = RSP_FLAME_PAGE(obj);

	if (p->cancellable)
		g_cancellable_cancel(p->cancellable);
	g_clear_object(&p->cancellable);
	G_OBJECT_CLASS(rsp_flame_page_parent_class)->dispose(obj);
}

static void rsp_flame_page_finalize(GObject *obj)
{
	RspFlamePage *p = RSP_FLAME_PAGE(obj);

	rsp_cons_tree_free(p->tree);
	g_free(p->name);
	g_free(p->search);
	G_OBJECT_CLASS(rsp_flame_page_parent_class)->finalize(obj);
}

static void rsp_flame_page_class_init(RspFlamePageClass *klass)
{
	G_OBJECT_CLASS(klass)->dispose = rsp_flame_page_dispose;
	G_OBJECT_CLASS(klass)->finalize = rsp_flame_page_finalize;
	RSP_PAGE_CLASS(klass)->search_changed = search_changed;
	RSP_PAGE_CLASS(klass)->get_target = get_target;
	signals[SIG_READY] = g_signal_new("ready", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0,
					  NULL, NULL, NULL, G_TYPE_NONE, 0);
	/* a request's own view is shown, or the whole target's again */
	signals[SIG_REQUEST] = g_signal_new("request-shown", G_TYPE_FROM_CLASS(klass),
					    G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 0);
	gtk_widget_class_add_binding(GTK_WIDGET_CLASS(klass), GDK_KEY_Left, GDK_ALT_MASK,
				     on_back_key, NULL);
}

static void rsp_flame_page_init(RspFlamePage *p)
{
	p->fs.category = p->cs.category = -1;
	p->request = -1;
}

GtkWidget *rsp_flame_page_new(RspDocument *doc, int pid, const char *name)
{
	RspFlamePage *p = g_object_new(RSP_TYPE_FLAME_PAGE, NULL);
	GtkWidget *tb, *busy, *spinner, *vpaned, *scroller;
	g_autofree char *title = NULL;

	p->pid = pid;
	p->name = g_strdup(name ? name : "target");
	title = g_strdup_printf("%s \xe2\x80\x94 flame", p->name);
	p->canvas = RSP_CANVAS(rsp_canvas_new());
	g_signal_connect(p->canvas, "item-activated", G_CALLBACK(on_item), p);

	/* the canvas over the details, the explanation at the side */
	p->details = gtk_label_new(NULL);
	gtk_label_set_xalign(GTK_LABEL(p->details), 0);
	gtk_label_set_yalign(GTK_LABEL(p->details), 0);
	gtk_label_set_selectable(GTK_LABEL(p->details), TRUE);
	gtk_label_set_wrap(GTK_LABEL(p->details), TRUE);
	gtk_widget_set_margin_start(p->details, 6);
	gtk_widget_set_margin_top(p->details, 4);
	scroller = gtk_scrolled_window_new();
	gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scroller), p->details);
	gtk_widget_set_size_request(scroller, -1, 90);
	vpaned = gtk_paned_new(GTK_ORIENTATION_VERTICAL);
	{
		/* the canvas with its legend under it */
		GtkWidget *top = gtk_box_new(GTK_ORIENTATION_VERTICAL, 2);

		gtk_widget_set_vexpand(GTK_WIDGET(p->canvas), TRUE);
		p->request_bar = request_bar_new(p);
		gtk_box_append(GTK_BOX(top), p->request_bar);
		gtk_box_append(GTK_BOX(top), GTK_WIDGET(p->canvas));
		gtk_box_append(GTK_BOX(top), legend_new());
		gtk_paned_set_start_child(GTK_PANED(vpaned), top);
	}
	gtk_paned_set_end_child(GTK_PANED(vpaned), scroller);
	gtk_paned_set_resize_end_child(GTK_PANED(vpaned), FALSE);
	gtk_paned_set_shrink_end_child(GTK_PANED(vpaned), FALSE);
	p->side = gtk_paned_new(GTK_ORIENTATION_HORIZONTAL);
	gtk_paned_set_start_child(GTK_PANED(p->side), vpaned);
	gtk_paned_set_resize_end_child(GTK_PANED(p->side), FALSE);
	gtk_paned_set_shrink_end_child(GTK_PANED(p->side), FALSE);

	p->stack = gtk_stack_new();
	busy = gtk_box_new(GTK_ORIENTATION_VERTICAL, 12);
	gtk_widget_set_valign(busy, GTK_ALIGN_CENTER);
	spinner = gtk_spinner_new();
	gtk_spinner_start(GTK_SPINNER(spinner));
	gtk_widget_set_size_request(spinner, 32, 32);
	gtk_box_append(GTK_BOX(busy), spinner);
	p->busy_label = gtk_label_new(NULL);
	{
		g_autofree char *t = g_strdup_printf("Analysing %s\xe2\x80\xa6", p->name);

		gtk_label_set_text(GTK_LABEL(p->busy_label), t);
	}
	gtk_box_append(GTK_BOX(busy), p->busy_label);
	gtk_stack_add_named(GTK_STACK(p->stack), busy, "busy");
	p->error_label = gtk_label_new(NULL);
	gtk_label_set_wrap(GTK_LABEL(p->error_label), TRUE);
	gtk_label_set_selectable(GTK_LABEL(p->error_label), TRUE);
	gtk_stack_add_named(GTK_STACK(p->stack), p->error_label, "error");
	gtk_stack_add_named(GTK_STACK(p->stack), p->side, "view");
	gtk_stack_set_visible_child_name(GTK_STACK(p->stack), "busy");
	rsp_page_setup(RSP_PAGE(p), doc, title, p->stack);

	tb = rsp_page_get_toolbar(RSP_PAGE(p));
	p->mode = gtk_toggle_button_new_with_mnemonic("C_onsolidated");
	gtk_widget_set_tooltip_text(p->mode, "Chronological or consolidated flame view (Ctrl+T)");
	g_signal_connect(p->mode, "toggled", G_CALLBACK(on_mode), p);
	p->merge = gtk_check_button_new_with_mnemonic("_Merge threads");
	gtk_check_button_set_active(GTK_CHECK_BUTTON(p->merge), TRUE);
	gtk_widget_set_tooltip_text(p->merge, "Consolidated: the threads of a process as one");
	g_signal_connect(p->merge, "toggled", G_CALLBACK(on_merge), p);
	p->kernel = gtk_check_button_new_with_mnemonic("_Kernel frames");
	g_signal_connect(p->kernel, "toggled", G_CALLBACK(on_kernel), p);
	p->crumbs = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 2);
	gtk_box_append(GTK_BOX(tb), p->mode);
	gtk_box_append(GTK_BOX(tb), p->merge);
	gtk_box_append(GTK_BOX(tb), p->kernel);
	gtk_box_append(GTK_BOX(tb), p->crumbs);
	gtk_widget_set_sensitive(p->merge, FALSE);

	p->cancellable = g_cancellable_new();
	rsp_document_target_async(doc, pid, p->cancellable, on_target, p);
	return GTK_WIDGET(p);
}

gboolean rsp_flame_page_is_ready(RspFlamePage *p)
{
	return p->target != NULL;
}

int rsp_flame_page_get_pid(RspFlamePage *p)
{
	return p->pid;
}

void rsp_flame_page_set_consolidated(RspFlamePage *p, gboolean on)
{
	gtk_toggle_button_set_active(GTK_TOGGLE_BUTTON(p->mode), on);
}

gboolean rsp_flame_page_get_consolidated(RspFlamePage *p)
{
	return p->consolidated;
}

void rsp_flame_page_set_merge_threads(RspFlamePage *p, gboolean on)
{
	gtk_check_button_set_active(GTK_CHECK_BUTTON(p->merge), on);
}

GtkWidget *rsp_flame_page_get_mode_button(RspFlamePage *p)
{
	return p->mode;
}

RspRequestsPanel *rsp_flame_page_get_requests_panel(RspFlamePage *p)
{
	return p->requests;
}

RspExplainPanel *rsp_flame_page_get_explain_panel(RspFlamePage *p)
{
	return p->explain;
}

const struct rsp_flame_state *rsp_flame_page_get_flame_state(RspFlamePage *p)
{
	return &p->fs;
}

const struct rsp_cons_state *rsp_flame_page_get_cons_state(RspFlamePage *p)
{
	return &p->cs;
}

const struct rsp_cons_tree *rsp_flame_page_get_cons_tree(RspFlamePage *p)
{
	return p->tree;
}

const struct rsp_flame_data *rsp_flame_page_get_flame_data(RspFlamePage *p)
{
	return p->shown ? p->shown->flame : NULL;
}

RspTarget *rsp_flame_page_get_shown(RspFlamePage *p)
{
	return p->shown;
}

gssize rsp_flame_page_get_request(RspFlamePage *p)
{
	return p->request;
}

char *rsp_flame_page_dup_request_title(RspFlamePage *p)
{
	return gtk_widget_get_visible(p->request_bar)
		   ? g_strdup(gtk_label_get_text(GTK_LABEL(p->request_title)))
		   : NULL;
}

GtkWidget *rsp_flame_page_get_back_button(RspFlamePage *p)
{
	return p->back;
}

void rsp_flame_page_show_whole(RspFlamePage *p)
{
	p->request_gen++; /* a request still being analysed is not shown */
	gtk_widget_set_visible(p->request_bar, FALSE);
	if (p->requests)
		rsp_requests_panel_unselect(p->requests);
	if (p->request < 0 || !p->target)
		return;
	p->request = -1;
	show_target(p, p->target);
	if (p->whole_saved && !p->consolidated)
		rsp_canvas_set_range(p->canvas, p->whole_x0, p->whole_x1);
	p->whole_saved = FALSE;
	rsp_testlog("REQUEST VIEW whole");
	g_signal_emit(p, signals[SIG_REQUEST], 0);
}

void rsp_flame_page_set_cons_root(RspFlamePage *p, size_t node)
{
	if (!p->tree || node >= rsp_cons_n_nodes(p->tree))
		return;
	p->cs.root = node;
	rsp_canvas_set_view(p->canvas, &rsp_cons_ops, p->tree, &p->cs);
	update_crumbs(p);
	rsp_testlog("CONS ROOT %zu", node);
}

char *rsp_flame_page_dup_details(RspFlamePage *p)
{
	return g_strdup(gtk_label_get_text(GTK_LABEL(p->details)));
}
