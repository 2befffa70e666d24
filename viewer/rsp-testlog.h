/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * For scripted tests: with RSP_VIEWER_TEST set, the viewer prints one line
 * per event on stdout (READY after the first frame, tabs opened, views
 * switched, where to click), so scripts wait on output instead of sleeping.
 */
#ifndef RSP_TESTLOG_H
#define RSP_TESTLOG_H

#include <glib.h>

/* When the viewer started (g_get_monotonic_time), for READY's time to the first frame. */
extern gint64 rsp_viewer_start_time;
/* Why the renderer is the one it is (rsp_renderer_choose()), for the log. */
extern const char *rsp_viewer_renderer_why;

gboolean rsp_testlog_enabled(void);
void rsp_testlog(const char *fmt, ...) G_GNUC_PRINTF(1, 2);

#endif /* RSP_TESTLOG_H */
