/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rsp-viewer [FILE...]: the GTK viewer (`rsp view` starts it).  Never needs root. */
#include "rsp-app.h"
#include "rsp-testlog.h"

int main(int argc, char **argv)
{
	RspApp *app;
	int ret;

	rsp_viewer_start_time = g_get_monotonic_time();
	app = rsp_app_new();
	ret = g_application_run(G_APPLICATION(app), argc, argv);
	g_object_unref(app);
	return ret;
}
