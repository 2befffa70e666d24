/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The viewer's window: a tab per view (the running view of each recording,
 * the flame views opened from it), opening by File → Open, drag and drop,
 * recent files; the actions that work on the current tab.
 */
#ifndef RSP_WINDOW_H
#define RSP_WINDOW_H

#include "rsp-page.h"

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define RSP_TYPE_WINDOW (rsp_window_get_type())
G_DECLARE_FINAL_TYPE(RspWindow, rsp_window, RSP, WINDOW, GtkApplicationWindow)

RspWindow *rsp_window_new(GtkApplication *app);
/* Load @file in a new tab (a progress bar, then the running view or the error). */
void rsp_window_open(RspWindow *w, GFile *file);
/* The flame views of process @pid (0: the recorded target) of @doc, in a tab. */
GtkWidget *rsp_window_open_flame(RspWindow *w, RspDocument *doc, int pid, const char *name);
GtkNotebook *rsp_window_get_notebook(RspWindow *w);
/* The current tab's page: an RspPage, an RspLoadPage, or NULL. */
GtkWidget *rsp_window_get_current(RspWindow *w);
void rsp_window_close_current(RspWindow *w);
/*
 * Symbols > Symbol Paths: where later loads look for the files traces name, as
 * rsp's --symfs DIR and --debug-dir DIR ("" or NULL: none; @debug_dirs
 * separated by ':'); then the current tab's recording is opened again with
 * them.  FALSE and *@error (g_free) if a directory does not exist.
 */
gboolean rsp_window_apply_symbol_paths(RspWindow *w, const char *symfs, const char *debug_dirs,
				       char **error);

G_END_DECLS

#endif /* RSP_WINDOW_H */
