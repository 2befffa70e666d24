/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What rsp-window-actions.c (the actions, rsp_window_new()) uses of
 * rsp-window.c (the window: tabs, opening); it calls that way only.
 */
#ifndef RSP_WINDOW_PRIVATE_H
#define RSP_WINDOW_PRIVATE_H

#include "rsp-window.h"

struct _RspWindow {
	GtkApplicationWindow parent_instance;
	GtkWidget *stack, *notebook, *welcome, *recent_button;
	GtkFileChooserNative *chooser;
};

/* The current page if it is a view (not loading), else NULL. */
RspPage *_rsp_window_page(RspWindow *w);
void _rsp_window_show_error(RspWindow *w, const char *primary, const char *secondary);
/* Where @widget's centre is, in the window's surface coordinates (for test scripts). */
void _rsp_window_surface_point(RspWindow *w, GtkWidget *widget, double x, double y, double *sx,
			       double *sy);

#endif /* RSP_WINDOW_PRIVATE_H */
