/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The window's actions (open, close, zoom, search, switch views, export,
 * symbol paths), added as rsp_window_new() makes a window; the window itself
 * (its tabs, opening a recording) is rsp-window.c's.
 */
#include "rsp-window-private.h"

#include "rsp-flame-page.h"
#include "rsp-render.h"
#include "rsp-testlog.h"

#include "rsp-output.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static RspCanvas *current_canvas(RspWindow *w)
{
	RspPage *p = _rsp_window_page(w);

	return p ? rsp_page_get_canvas(p) : NULL;
}

static void on_open_response(GtkNativeDialog *d, int response, RspWindow *w)
{
	if (response == GTK_RESPONSE_ACCEPT) {
		GListModel *files = gtk_file_chooser_get_files(GTK_FILE_CHOOSER(d));

		for (guint i = 0; i < g_list_model_get_n_items(files); i++) {
			GFile *f = g_list_model_get_item(files, i);

			rsp_window_open(w, f);
			g_object_unref(f);
		}
		g_object_unref(files);
	}
	g_clear_object(&w->chooser);
}

static void act_open(GSimpleAction *a, GVariant *p, gpointer data)
{
	RspWindow *w = data;
	GtkFileFilter *rec = gtk_file_filter_new(), *all = gtk_file_filter_new();

	g_clear_object(&w->chooser);
	w->chooser = gtk_file_chooser_native_new("Open a Recording", GTK_WINDOW(w),
						 GTK_FILE_CHOOSER_ACTION_OPEN, "_Open", "_Cancel");
	gtk_file_chooser_set_select_multiple(GTK_FILE_CHOOSER(w->chooser), TRUE);
	gtk_file_filter_set_name(rec, "Recordings (*.data)");
	gtk_file_filter_add_pattern(rec, "*.data");
	gtk_file_filter_add_pattern(rec, "*.data.old");
	gtk_file_filter_set_name(all, "All files");
	gtk_file_filter_add_pattern(all, "*");
	gtk_file_chooser_add_filter(GTK_FILE_CHOOSER(w->chooser), rec);
	gtk_file_chooser_add_filter(GTK_FILE_CHOOSER(w->chooser), all);
	g_object_unref(rec);
	g_object_unref(all);
	g_signal_connect(w->chooser, "response", G_CALLBACK(on_open_response), w);
	gtk_native_dialog_show(GTK_NATIVE_DIALOG(w->chooser));
}

static void act_close_tab(GSimpleAction *a, GVariant *p, gpointer data)
{
	rsp_window_close_current(RSP_WINDOW(data));
}

static void act_zoom_in(GSimpleAction *a, GVariant *p, gpointer data)
{
	RspCanvas *c = current_canvas(data);

	if (c)
		rsp_canvas_zoom(c, 1.5, -1);
}

static void act_zoom_out(GSimpleAction *a, GVariant *p, gpointer data)
{
	RspCanvas *c = current_canvas(data);

	if (c)
		rsp_canvas_zoom(c, 1 / 1.5, -1);
}

static void act_zoom_fit(GSimpleAction *a, GVariant *p, gpointer data)
{
	RspCanvas *c = current_canvas(data);

	if (c)
		rsp_canvas_fit(c);
}

static void act_zoom_selection(GSimpleAction *a, GVariant *p, gpointer data)
{
	RspCanvas *c = current_canvas(data);

	if (c)
		rsp_canvas_zoom_to_selection(c);
}

static void act_search(GSimpleAction *a, GVariant *p, gpointer data)
{
	RspPage *page = _rsp_window_page(data);

	if (page)
		rsp_page_start_search(page);
}

static void act_toggle_view(GSimpleAction *a, GVariant *p, gpointer data)
{
	RspPage *page = _rsp_window_page(data);

	if (page && RSP_IS_FLAME_PAGE(page))
		rsp_flame_page_set_consolidated(
		    RSP_FLAME_PAGE(page), !rsp_flame_page_get_consolidated(RSP_FLAME_PAGE(page)));
}

/* ---- exports --------------------------------------------------------------------------------- */

typedef struct {
	RspWindow *w;
	char *ext;
	GtkFileChooserNative *chooser;
} ExportCtx;

static gboolean write_table(RspPage *page, const char *path, enum rsp_table_format fmt,
			    GError **error)
{
	RspTarget *tg = rsp_page_get_target(page);
	struct rsp_output *out;
	char err[512];
	int ret;

	if (!tg) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
			    "this recording has no analysed target: open a process's flame view "
			    "(click its name) and export from there");
		return FALSE;
	}
	/* written whole or not at all (output/rsp-output.h) */
	ret = rsp_output_open(path, NULL, &out, err, sizeof(err));
	if (!ret) {
		rsp_render_table(tg->analysis, tg->desc, fmt, 5, rsp_output_get_file(out));
		ret = rsp_output_commit(out, err, sizeof(err));
	}
	if (ret) {
		g_set_error(error, G_IO_ERROR, g_io_error_from_errno(-ret), "%s", err);
		return FALSE;
	}
	return TRUE;
}

static void on_export_response(GtkNativeDialog *d, int response, ExportCtx *ctx)
{
	RspPage *page = _rsp_window_page(ctx->w);

	if (response == GTK_RESPONSE_ACCEPT && page) {
		GFile *f = gtk_file_chooser_get_file(GTK_FILE_CHOOSER(d));
		g_autofree char *path = f ? g_file_get_path(f) : NULL;
		GError *error = NULL;
		gboolean ok = FALSE;

		if (!path) {
			g_set_error(&error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
				    "only local files can be written");
		} else if (!g_str_has_suffix(path, ctx->ext)) {
			char *p2 = g_strconcat(path, ctx->ext, NULL);

			g_free(path);
			path = p2;
		}
		if (path && (!strcmp(ctx->ext, ".csv") || !strcmp(ctx->ext, ".md")))
			ok = write_table(
			    page, path,
			    !strcmp(ctx->ext, ".csv") ? RSP_TABLE_CSV : RSP_TABLE_MARKDOWN, &error);
		else if (path)
			ok = rsp_canvas_export(rsp_page_get_canvas(page), path, &error);
		if (ok)
			rsp_testlog("EXPORTED %s", path);
		else
			_rsp_window_show_error(ctx->w, "The export failed",
					       error ? error->message : NULL);
		g_clear_error(&error);
		g_clear_object(&f);
	}
	g_object_unref(ctx->chooser);
	g_object_unref(ctx->w);
	g_free(ctx->ext);
	g_free(ctx);
}

static void export_as(RspWindow *w, const char *ext)
{
	RspPage *page = _rsp_window_page(w);
	ExportCtx *ctx;
	g_autofree char *name = NULL;
	char *dot;

	if (!page) {
		_rsp_window_show_error(w, "Nothing to export", "open a recording first");
		return;
	}
	ctx = g_new0(ExportCtx, 1);
	ctx->w = g_object_ref(w);
	ctx->ext = g_strdup(ext);
	ctx->chooser = gtk_file_chooser_native_new(
	    "Export", GTK_WINDOW(w), GTK_FILE_CHOOSER_ACTION_SAVE, "_Export", "_Cancel");
	name = g_strdup(rsp_page_get_title(page));
	for (char *c = name; *c; c++)
		if (*c == '/' || *c == ' ')
			*c = '_';
	dot = strstr(name, ".data");
	if (dot)
		*dot = '\0';
	{
		g_autofree char *suggested = g_strconcat(name, ext, NULL);

		gtk_file_chooser_set_current_name(GTK_FILE_CHOOSER(ctx->chooser), suggested);
	}
	g_signal_connect(ctx->chooser, "response", G_CALLBACK(on_export_response), ctx);
	gtk_native_dialog_show(GTK_NATIVE_DIALOG(ctx->chooser));
}

static void act_export_png(GSimpleAction *a, GVariant *p, gpointer data)
{
	export_as(RSP_WINDOW(data), ".png");
}

static void act_export_svg(GSimpleAction *a, GVariant *p, gpointer data)
{
	export_as(RSP_WINDOW(data), ".svg");
}

static void act_export_pdf(GSimpleAction *a, GVariant *p, gpointer data)
{
	export_as(RSP_WINDOW(data), ".pdf");
}

static void act_export_csv(GSimpleAction *a, GVariant *p, gpointer data)
{
	export_as(RSP_WINDOW(data), ".csv");
}

static void act_export_md(GSimpleAction *a, GVariant *p, gpointer data)
{
	export_as(RSP_WINDOW(data), ".md");
}

/* ---- Symbol Paths ---------------------------------------------------------------------- */

gboolean rsp_window_apply_symbol_paths(RspWindow *w, const char *symfs, const char *debug_dirs,
				       char **error)
{
	g_auto(GStrv) parts = g_strsplit(debug_dirs ? debug_dirs : "", ":", -1);
	GPtrArray *dirs = g_ptr_array_new();
	const char *root = symfs && *symfs ? symfs : NULL;
	GtkWidget *cur;

	if (root && !g_file_test(root, G_FILE_TEST_IS_DIR)) {
		*error = g_strdup_printf("%s is not a directory", root);
		g_ptr_array_free(dirs, TRUE);
		return FALSE;
	}
	for (char **d = parts; *d; d++) {
		if (!**d)
			continue;
		if (!g_file_test(*d, G_FILE_TEST_IS_DIR)) {
			*error = g_strdup_printf("%s is not a directory", *d);
			g_ptr_array_free(dirs, TRUE);
			return FALSE;
		}
		g_ptr_array_add(dirs, (gpointer)g_intern_string(*d));
	}
	/* loads under way may still read the last ones: interned strings, and the
	 * arrays are kept (a few bytes a change) */
	if (dirs->len) {
		g_ptr_array_add(dirs, NULL);
		rsp_document_set_symbol_paths(root ? g_intern_string(root) : NULL,
					      (const char *const *)g_ptr_array_free(dirs, FALSE));
	} else {
		g_ptr_array_free(dirs, TRUE);
		rsp_document_set_symbol_paths(root ? g_intern_string(root) : NULL, NULL);
	}
	cur = rsp_window_get_current(w);
	if (cur && RSP_IS_PAGE(cur))
		rsp_window_open(w, rsp_document_get_file(rsp_page_get_document(RSP_PAGE(cur))));
	rsp_testlog("SYMBOL-PATHS symfs=%s debug-dirs=%s", root ? root : "",
		    debug_dirs ? debug_dirs : "");
	return TRUE;
}

typedef struct {
	RspWindow *w;
	GtkWidget *dialog, *symfs, *dirs, *error;
} SymbolsDialog;

static void on_symbols_apply(GtkButton *b, SymbolsDialog *d)
{
	g_autofree char *err = NULL;

	if (!rsp_window_apply_symbol_paths(d->w, gtk_editable_get_text(GTK_EDITABLE(d->symfs)),
					   gtk_editable_get_text(GTK_EDITABLE(d->dirs)), &err)) {
		gtk_label_set_text(GTK_LABEL(d->error), err);
		gtk_widget_set_visible(d->error, TRUE);
		return;
	}
	gtk_window_destroy(GTK_WINDOW(d->dialog));
}

static void on_symbols_cancel(GtkButton *b, SymbolsDialog *d)
{
	gtk_window_destroy(GTK_WINDOW(d->dialog));
}

static void act_symbol_paths(GSimpleAction *a, GVariant *p, gpointer data)
{
	RspWindow *w = RSP_WINDOW(data);
	SymbolsDialog *d = g_new0(SymbolsDialog, 1);
	GtkWidget *grid = gtk_grid_new(), *box, *apply, *cancel;
	const char *symfs;
	const char *const *dirs;

	rsp_document_get_symbol_paths(&symfs, &dirs);
	d->w = w;
	d->dialog = gtk_window_new();
	gtk_window_set_title(GTK_WINDOW(d->dialog), "Symbol Paths");
	gtk_window_set_transient_for(GTK_WINDOW(d->dialog), GTK_WINDOW(w));
	gtk_window_set_modal(GTK_WINDOW(d->dialog), TRUE);
	g_object_set_data_full(G_OBJECT(d->dialog), "rsp-symbols", d, g_free);
	gtk_grid_set_row_spacing(GTK_GRID(grid), 6);
	gtk_grid_set_column_spacing(GTK_GRID(grid), 12);
	gtk_widget_set_margin_start(grid, 12);
	gtk_widget_set_margin_end(grid, 12);
	gtk_widget_set_margin_top(grid, 12);
	gtk_widget_set_margin_bottom(grid, 12);
	gtk_grid_attach(GTK_GRID(grid),
			gtk_label_new("Where the recording machine's files are (rsp --symfs): a "
				      "directory holding its file tree"),
			0, 0, 2, 1);
	d->symfs = gtk_entry_new();
	gtk_widget_set_name(d->symfs, "symfs");
	gtk_editable_set_text(GTK_EDITABLE(d->symfs), symfs ? symfs : "");
	gtk_grid_attach(GTK_GRID(grid), d->symfs, 0, 1, 2, 1);
	gtk_grid_attach(GTK_GRID(grid),
			gtk_label_new("Debug directories (rsp --debug-dir: build-id trees or "
				      "/usr/lib/debug layouts), separated by ':'"),
			0, 2, 2, 1);
	d->dirs = gtk_entry_new();
	gtk_widget_set_name(d->dirs, "debug-dirs");
	if (dirs) {
		g_autofree char *joined = g_strjoinv(":", (char **)dirs);

		gtk_editable_set_text(GTK_EDITABLE(d->dirs), joined);
	}
	gtk_grid_attach(GTK_GRID(grid), d->dirs, 0, 3, 2, 1);
	d->error = gtk_label_new(NULL);
	gtk_widget_set_visible(d->error, FALSE);
	gtk_grid_attach(GTK_GRID(grid), d->error, 0, 4, 2, 1);
	box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
	gtk_widget_set_halign(box, GTK_ALIGN_END);
	cancel = gtk_button_new_with_mnemonic("_Cancel");
	apply = gtk_button_new_with_mnemonic("_Apply and Reopen");
	gtk_widget_set_name(apply, "apply");
	g_signal_connect(cancel, "clicked", G_CALLBACK(on_symbols_cancel), d);
	g_signal_connect(apply, "clicked", G_CALLBACK(on_symbols_apply), d);
	gtk_box_append(GTK_BOX(box), cancel);
	gtk_box_append(GTK_BOX(box), apply);
	gtk_grid_attach(GTK_GRID(grid), box, 0, 5, 2, 1);
	gtk_window_set_child(GTK_WINDOW(d->dialog), grid);
	gtk_window_present(GTK_WINDOW(d->dialog));
}

static void add_actions(RspWindow *w)
{
	static const GActionEntry entries[] = {
	    {"open", act_open, NULL, NULL, NULL, {0}},
	    {"close-tab", act_close_tab, NULL, NULL, NULL, {0}},
	    {"zoom-in", act_zoom_in, NULL, NULL, NULL, {0}},
	    {"zoom-out", act_zoom_out, NULL, NULL, NULL, {0}},
	    {"zoom-fit", act_zoom_fit, NULL, NULL, NULL, {0}},
	    {"zoom-selection", act_zoom_selection, NULL, NULL, NULL, {0}},
	    {"search", act_search, NULL, NULL, NULL, {0}},
	    {"toggle-view", act_toggle_view, NULL, NULL, NULL, {0}},
	    {"export-png", act_export_png, NULL, NULL, NULL, {0}},
	    {"export-svg", act_export_svg, NULL, NULL, NULL, {0}},
	    {"export-pdf", act_export_pdf, NULL, NULL, NULL, {0}},
	    {"export-csv", act_export_csv, NULL, NULL, NULL, {0}},
	    {"export-md", act_export_md, NULL, NULL, NULL, {0}},
	    {"symbol-paths", act_symbol_paths, NULL, NULL, NULL, {0}},
	};

	g_action_map_add_action_entries(G_ACTION_MAP(w), entries, G_N_ELEMENTS(entries), w);
}

RspWindow *rsp_window_new(GtkApplication *app)
{
	RspWindow *w = g_object_new(RSP_TYPE_WINDOW, "application", app, NULL);

	add_actions(w);
	return w;
}
