/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which GSK renderer draws the windows.  GTK's default is GL; where GL is a
 * software rasterizer (Mesa's llvmpipe, softpipe, swrast: a machine without a
 * GPU, a virtual machine, Xvfb) each frame of the running view took 80-95 ms
 * through it and 23-26 ms through cairo (issue 39), so there the viewer asks
 * for cairo.  GSK_RENDERER, when set, is obeyed as GTK obeys it.
 */
#ifndef RSP_RENDERER_H
#define RSP_RENDERER_H

#include <gtk/gtk.h>

/*
 * Before the first window is realized (GTK reads GSK_RENDERER once, when it
 * makes the first renderer): sets GSK_RENDERER=cairo if it is unset and
 * GL renders in software.  Returns why, in words, for the log ("cairo: GL is
 * llvmpipe (...), a software rasterizer"); static storage.
 */
const char *rsp_renderer_choose(void);

/* The renderer that draws @w's surface ("cairo", "gl", "ngl", ...); "" before it is realized. */
const char *rsp_renderer_name(GtkWidget *w);

#endif /* RSP_RENDERER_H */
