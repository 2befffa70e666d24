/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rsp-viewer [FILE...]: the GTK viewer (`rsp view` starts it).  Never needs root. */
#include "rsp-app.h"
#include "rsp-testlog.h"

#include <stdio.h>
#include <string.h>

/* --help and its kin need no display */
static gboolean asks_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "-h") || g_str_has_prefix(argv[i], "--help"))
			return TRUE;
	}
	return FALSE;
}

int main(int argc, char **argv)
{
	RspApp *app;
	int ret;

	rsp_viewer_start_time = g_get_monotonic_time();
	/*
	 * Without a display GTK prints a blank line and a raw warning, then
	 * exits: say instead, in one line, what is missing and what to do.
	 */
	if (!asks_help(argc, argv) && !gtk_init_check()) {
		const char *d = g_getenv("WAYLAND_DISPLAY");

		if (!d || !*d)
			d = g_getenv("DISPLAY");
		fprintf(stderr,
			"rsp-viewer: cannot open the display%s%s%s: run it in a graphical session, "
			"or draw the views to files with `rsp export FILE --view "
			"running|flame|consolidated -o OUT.svg` (or .png, .pdf)\n",
			d && *d ? " '" : " (neither DISPLAY nor WAYLAND_DISPLAY is set)",
			d && *d ? d : "", d && *d ? "'" : "");
		return 1;
	}
	app = rsp_app_new();
	ret = g_application_run(G_APPLICATION(app), argc, argv);
	g_object_unref(app);
	return ret;
}
