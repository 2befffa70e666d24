/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One line per event on stdout for scripted tests (RSP_VIEWER_TEST). */
#include "rsp-testlog.h"

#include <stdarg.h>
#include <stdio.h>

gint64 rsp_viewer_start_time;
const char *rsp_viewer_renderer_why = "";

gboolean rsp_testlog_enabled(void)
{
	static int on = -1;

	if (on < 0)
		on = g_getenv("RSP_VIEWER_TEST") != NULL;
	return on;
}

void rsp_testlog(const char *fmt, ...)
{
	va_list ap;

	if (!rsp_testlog_enabled())
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}
