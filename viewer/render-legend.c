/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The flame views' legend: what each colour says (the viewer's, under the
 * views; the exports', along their bottom), a swatch of the palette's and its
 * name each, laid out into a scene.
 */
#include "render-private.h"
#include "rsp-scene.h"
#include "rsp-views.h"

#include <string.h>

static const struct rsp_legend_item legend[] = {
	{RSP_CLS_RUN, false, "running, with samples: its functions measured"},
	{RSP_CLS_RUN_ESTIMATED, false,
	 "running without a sample: its code estimated from the samples of the process's runs "
	 "at the same place in the code (rsp report's ns_estimated); in a frame it shares with "
	 "sleeps or measured runs, its part of the frame is tinted"},
	{RSP_CLS_RUN_INFERRED, true,
	 "running without a sample, nor any at its place in the code: where it ran, inferred "
	 "from the stacks it resumed from and stopped in (rsp report's ns_inferred); in a frame "
	 "it shares with sleeps or measured runs, its part of the frame is hatched"},
	{RSP_CLS_SLEEP, false, "asleep: the frames it waited in"},
	{RSP_CLS_BOTH, false, "frames of runs and of sleeps"},
	{RSP_CLS_IO, false, "blocking disk I/O, in service"},
	{RSP_CLS_NET, false, "waiting for a network peer"},
	{RSP_CLS_RUNNABLE, false, "runnable, waiting for a CPU"},
	{RSP_CLS_PREEMPTED, false, "preempted"},
	{RSP_CLS_TIMEOUT, false, "a wait that timed out"},
	{RSP_CLS_HARDWARE, false, "woken by a device interrupt"},
	{RSP_CLS_KERNEL, false, "blocked in the kernel on something not traced"},
	{RSP_CLS_ASYNC, false, "waiting on another control path"},
	{RSP_CLS_UNACCOUNTED, false, "unaccounted: the cause was not recorded"},
	{RSP_CLS_UNKNOWN, true, "unknown: records lost"},
	{RSP_CLS_IDLE, false,
	 "idle: waiting with nothing to do (a server between requests, an idle timer tick, a "
	 "helper waiting for work): not a cost, kept out of the percentages",
	 true},
};

size_t rsp_flame_legend_n(void)
{
	return G_N_ELEMENTS(legend);
}

const struct rsp_legend_item *rsp_flame_legend(size_t i)
{
	return i < G_N_ELEMENTS(legend) ? &legend[i] : NULL;
}

#define LEGEND_ROW  18.0
#define LEGEND_SW   14.0 /* a swatch's width */
#define LEGEND_GAP  14.0 /* between items */
#define LEGEND_PAD  6.0

double rsp_legend_layout(struct rsp_scene *out, int width, double y, bool optional)
{
	double x = LEGEND_PAD, row = 0;

	for (size_t i = 0; i < G_N_ELEMENTS(legend); i++) {
		const char *name = rsp_palette_name(legend[i].cls);
		double w = LEGEND_SW + 4 + rsp_text_width(name, strlen(name));

		if (legend[i].optional && !optional)
			continue;
		if (x > LEGEND_PAD && x + w > width - LEGEND_PAD) {
			x = LEGEND_PAD;
			row++;
		}
		if (out) {
			double top = y + LEGEND_PAD + row * LEGEND_ROW;

			rsp_scene_add(out, legend[i].hatch ? RSP_PRIM_HATCH : RSP_PRIM_RECT,
				      legend[i].cls, x, top + 2, LEGEND_SW, LEGEND_ROW - 6);
			rsp_scene_add_text(out, RSP_CLS_TEXT, x + LEGEND_SW + 4,
					   top + LEGEND_ROW - 6, w - LEGEND_SW - 4, name, 0);
		}
		x += w + LEGEND_GAP;
	}
	return 2 * LEGEND_PAD + (row + 1) * LEGEND_ROW;
}

void _rsp_legend_chrome(struct rsp_scene *out, const struct rsp_view *v, bool optional)
{
	double h = rsp_legend_layout(NULL, v->width, 0, optional), y = v->height - h;

	rsp_scene_add(out, RSP_PRIM_RECT, RSP_CLS_NONE, 0, y, v->width, h);
	rsp_scene_add(out, RSP_PRIM_LINE, RSP_CLS_SEPARATOR, 0, y + 0.5, v->width, 0);
	rsp_legend_layout(out, v->width, y, optional);
}
