/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The viewer application. */
#include "rsp-app.h"
#include "rsp-document.h"

#include "rsp-config.h"
#include "rsp-renderer.h"
#include "rsp-testlog.h"
#include "rsp-viewer-resources.h"
#include "rsp-window.h"

struct _RspApp {
	GtkApplication parent_instance;
};

G_DEFINE_TYPE(RspApp, rsp_app, GTK_TYPE_APPLICATION)

static RspWindow *window_for(GApplication *app)
{
	GtkWindow *w = gtk_application_get_active_window(GTK_APPLICATION(app));

	if (w && RSP_IS_WINDOW(w))
		return RSP_WINDOW(w);
	return rsp_window_new(GTK_APPLICATION(app));
}

static void rsp_app_activate(GApplication *app)
{
	RspWindow *w = window_for(app);

	/* `rsp view` with no file: rsp.data, as the other verbs */
	if (g_file_test("rsp.data", G_FILE_TEST_IS_REGULAR) &&
	    gtk_notebook_get_n_pages(rsp_window_get_notebook(w)) == 0) {
		GFile *f = g_file_new_for_path("rsp.data");

		rsp_window_open(w, f);
		g_object_unref(f);
	}
	gtk_window_present(GTK_WINDOW(w));
}

static void rsp_app_open(GApplication *app, GFile **files, int n, const char *hint)
{
	RspWindow *w = window_for(app);

	for (int i = 0; i < n; i++)
		rsp_window_open(w, files[i]);
	gtk_window_present(GTK_WINDOW(w));
}

static void act_quit(GSimpleAction *a, GVariant *p, gpointer app)
{
	g_application_quit(G_APPLICATION(app));
}

static void act_about(GSimpleAction *a, GVariant *p, gpointer app)
{
	static const char *authors[] = {"the rsp authors", NULL};

	gtk_show_about_dialog(gtk_application_get_active_window(GTK_APPLICATION(app)),
			      "program-name", "rsp viewer", "version", RSP_VERSION, "comments",
			      "The Recursive Systemic Profiler: where a program's time went, "
			      "across processes.",
			      "license-type", GTK_LICENSE_GPL_2_0, "authors", authors,
			      "logo-icon-name", "utilities-system-monitor", NULL);
}

static void rsp_app_startup(GApplication *app)
{
	static const GActionEntry entries[] = {
	    {"quit", act_quit, NULL, NULL, NULL, {0}},
	    {"about", act_about, NULL, NULL, NULL, {0}},
	};
	static const struct {
		const char *action;
		const char *accels[4];
	} accels[] = {
	    {"win.open", {"<Control>o", NULL}},
	    {"win.close-tab", {"<Control>w", NULL}},
	    {"win.zoom-in", {"<Control>plus", "<Control>equal", "<Control>KP_Add", NULL}},
	    {"win.zoom-out", {"<Control>minus", "<Control>KP_Subtract", NULL}},
	    {"win.zoom-fit", {"<Control>0", NULL}},
	    {"win.zoom-selection", {"<Control>Return", NULL}},
	    {"win.search", {"<Control>f", NULL}},
	    {"win.toggle-view", {"<Control>t", NULL}},
	    {"win.export-png", {"<Control>e", NULL}},
	    {"win.show-help-overlay", {"<Control>question", "F1", NULL}},
	    {"app.quit", {"<Control>q", NULL}},
	};

	rsp_viewer_register_resource();
	G_APPLICATION_CLASS(rsp_app_parent_class)->startup(app);
	/* before the first window: GTK reads GSK_RENDERER when it makes its first renderer */
	rsp_viewer_renderer_why = rsp_renderer_choose();
	g_debug("renderer: %s", rsp_viewer_renderer_why);
	g_action_map_add_action_entries(G_ACTION_MAP(app), entries, G_N_ELEMENTS(entries), app);
	for (size_t i = 0; i < G_N_ELEMENTS(accels); i++)
		gtk_application_set_accels_for_action(GTK_APPLICATION(app), accels[i].action,
						      accels[i].accels);
}

/* --symfs and --debug-dir, as rsp's reading verbs take them (filled by GApplication) */
static char *opt_symfs;
static char **opt_debug_dirs;

static int rsp_app_handle_local_options(GApplication *app, GVariantDict *options)
{
	const char *bad = NULL;

	if (opt_symfs && !g_file_test(opt_symfs, G_FILE_TEST_IS_DIR))
		bad = opt_symfs;
	for (char **d = opt_debug_dirs; d && *d && !bad; d++)
		if (!g_file_test(*d, G_FILE_TEST_IS_DIR))
			bad = *d;
	if (bad) {
		g_printerr("rsp-viewer: %s: not a directory\n", bad);
		return 2;
	}
	rsp_document_set_symbol_paths(opt_symfs, (const char *const *)opt_debug_dirs);
	return -1; /* go on */
}

static void rsp_app_class_init(RspAppClass *klass)
{
	GApplicationClass *ac = G_APPLICATION_CLASS(klass);

	ac->activate = rsp_app_activate;
	ac->open = rsp_app_open;
	ac->startup = rsp_app_startup;
	ac->handle_local_options = rsp_app_handle_local_options;
}

static void rsp_app_init(RspApp *app)
{
}

RspApp *rsp_app_new(void)
{
	static const GOptionEntry entries[] = {
	    {"symfs", 0, 0, G_OPTION_ARG_FILENAME, &opt_symfs,
	     "Look for the files the trace names under DIR", "DIR"},
	    {"debug-dir", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &opt_debug_dirs,
	     "Debug files in DIR/.build-id (repeatable, before /usr/lib/debug)", "DIR"},
	    {NULL, 0, 0, 0, NULL, NULL, NULL},
	};
	/* non-unique: each `rsp view` is its own process (and tests run side by side) */
	RspApp *app = g_object_new(RSP_TYPE_APP, "application-id", "org.rsp.Viewer", "flags",
				   G_APPLICATION_HANDLES_OPEN | G_APPLICATION_NON_UNIQUE, NULL);

	g_application_add_main_option_entries(G_APPLICATION(app), entries);
	/* --help names the argument */
	g_application_set_option_context_parameter_string(G_APPLICATION(app), "[FILE…]");
	g_application_set_option_context_summary(
	    G_APPLICATION(app), "Open each FILE (default: rsp.data), a recording by rsp record or\n"
				"perf record, in the viewer: the process-running timeline, the\n"
				"chronological and consolidated flame views.");
	return app;
}
