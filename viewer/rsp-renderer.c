/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The GSK renderer: cairo where GL is a software rasterizer (rsp-renderer.h). */
#include "rsp-renderer.h"

#include <epoxy/gl.h>
#include <string.h>

/* Mesa's software rasterizers, as GL_RENDERER names them */
static gboolean software_gl(const char *renderer)
{
	static const char *const names[] = {"llvmpipe", "softpipe", "swrast",
					    "Software Rasterizer", "SWR"};

	for (size_t i = 0; i < G_N_ELEMENTS(names); i++)
		if (strstr(renderer, names[i]))
			return TRUE;
	return FALSE;
}

const char *rsp_renderer_choose(void)
{
	static char why[256];
	const char *env = g_getenv("GSK_RENDERER");
	GdkDisplay *d = gdk_display_get_default();
	GdkGLContext *ctx;
	GError *e = NULL;
	const char *r;

	if (env && *env) {
		g_snprintf(why, sizeof(why), "%s: GSK_RENDERER is set", env);
		return why;
	}
	if (!d)
		return "GTK's default: no display";
	ctx = gdk_display_create_gl_context(d, &e);
	if (!ctx || !gdk_gl_context_realize(ctx, &e)) {
		/* GTK falls back to cairo itself when it has no GL */
		g_snprintf(why, sizeof(why), "GTK's default: no GL (%s)", e ? e->message : "?");
		g_clear_error(&e);
		g_clear_object(&ctx);
		return why;
	}
	gdk_gl_context_make_current(ctx);
	r = (const char *)glGetString(GL_RENDERER);
	if (r && software_gl(r)) {
		g_setenv("GSK_RENDERER", "cairo", TRUE);
		g_snprintf(why, sizeof(why), "cairo: GL is %s, a software rasterizer", r);
	} else {
		g_snprintf(why, sizeof(why), "GTK's default: GL is %s", r ? r : "unnamed");
	}
	gdk_gl_context_clear_current();
	g_object_unref(ctx);
	return why;
}

const char *rsp_renderer_name(GtkWidget *w)
{
	GtkNative *native = gtk_widget_get_native(w);
	GskRenderer *r = native ? gtk_native_get_renderer(native) : NULL;
	const char *type = r ? G_OBJECT_TYPE_NAME(r) : "";

	/* GskCairoRenderer -> cairo, GskGLRenderer -> gl, GskNglRenderer -> ngl */
	if (g_str_has_prefix(type, "Gsk") && g_str_has_suffix(type, "Renderer")) {
		static char name[32];
		size_t n = strlen(type) - strlen("Gsk") - strlen("Renderer");

		if (n >= sizeof(name))
			n = sizeof(name) - 1;
		for (size_t i = 0; i < n; i++)
			name[i] = g_ascii_tolower(type[3 + i]);
		name[n] = '\0';
		return name;
	}
	return type;
}
