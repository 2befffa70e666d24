/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared by test-render's files: the fixtures opened and analysed, a view
 * laid out and drawn into an image (a shot), what is at a place in it; and
 * the tests each file registers in main() (test-render.c).
 */
#ifndef RSP_TEST_RENDER_TEST_H
#define RSP_TEST_RENDER_TEST_H

#include "rsp-render.h"
#include "rsp-views.h"
#include "synth-perf.h"

#include <glib.h>

extern const char *data_dir, *corpus_dir, *out_dir;

struct fixture {
	struct rsp_trace *t;
	struct rsp_analysis *a;
	int target;
};

void fixture_open(struct fixture *fx, const char *name);
void fixture_close(struct fixture *fx);

/* A view laid out and drawn into an image. */
struct shot {
	struct rsp_layout l;
	struct rsp_view v;
	cairo_surface_t *s;
	const struct rsp_view_ops *ops;
	const void *data, *state;
};

void shot_take(struct shot *sh, const struct rsp_view_ops *ops, const void *data,
	       const void *state, double x0, double x1, int w, int h, double scroll_y);
void shot_free(struct shot *sh);
/* The shot's pixel at (x, y), 0xRRGGBB. */
uint32_t shot_pixel(struct shot *sh, double x, double y);
void shot_save(struct shot *sh, const char *fmt, ...) G_GNUC_PRINTF(2, 3);

/* An item of @cls, at least @min_w wide, fully on screen; NULL if none. */
const struct rsp_scene_item *find_item(struct shot *sh, enum rsp_cls cls, double min_w,
				       enum rsp_hit kind);
/* The item's colour where nothing else is drawn over it. */
void assert_colour_at(struct shot *sh, const struct rsp_scene_item *it, enum rsp_cls cls);
/* A synthetic ping-pong of @n switches, with a span of lost records in the middle. */
const void *pingpong(struct synth **sp, size_t n, size_t *len);

/* test-render-running.c */
void test_running_deferred_labels(void);
void test_running(gconstpointer name);
void test_running_culling(void);
void test_ruler(void);
void test_running_lost(void);
void test_running_shed(void);
void test_running_cmdline(void);
void test_running_socket_groups(void);
void test_running_grid(void);
void test_running_lane_skip(void);
void test_running_io_no_completion(void);
void test_scene_steep_lines(void);
void test_running_parallel(void);
void test_running_links(void);
void test_running_whole_legible(void);

/* test-render-scene.c */
void test_scene_direct(void);

/* test-render-flame.c */
void test_flame_colours(gconstpointer name);
void test_flame_merge_split(void);
void test_flame_tooltip_samples(void);
void test_flame_highlight(void);
void test_consolidated(gconstpointer name);

/* test-render-guessed.c */
void test_flame_guessed(gconstpointer name);

/* test-render-files.c */
void test_export(void);
void test_export_tall(void);
void test_table(void);
void test_hostile(void);
void test_progress_cancel(void);

#endif /* RSP_TEST_RENDER_TEST_H */
