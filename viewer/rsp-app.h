/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The viewer application: windows, files given on the command line, accelerators. */
#ifndef RSP_APP_H
#define RSP_APP_H

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define RSP_TYPE_APP (rsp_app_get_type())
G_DECLARE_FINAL_TYPE(RspApp, rsp_app, RSP, APP, GtkApplication)

RspApp *rsp_app_new(void);

G_END_DECLS

#endif /* RSP_APP_H */
