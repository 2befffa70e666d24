/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The palette, as the paper's figures: runs red, sleeps blue, frames in both
 * purple, process names grey, blocking I/O green.  rsp's additions, chosen
 * to stay apart from those: timeouts amber, hardware waits orange, network
 * teal, scheduler waits pink, preemption rose, kernel blocks slate, async
 * paths (waiting on another control path) cyan, cut layers brown, unknown
 * hatched grey, lost-event spans hatched dark red, spans missing one event
 * type (shed by the recorder) a chocolate strip along the top, inferred switch-ins a
 * black mark; a run without samples, its code estimated from other runs at
 * the same place light red, inferred from that place alone hatched red.  The
 * screen and every export take their colours from here, and the flame views'
 * legend (the viewer's, under the views; the exports', along their bottom).
 */
#include "render-private.h"
#include "rsp-analysis.h"
#include "rsp-scene.h"
#include "rsp-views.h"

#include <string.h>

static const struct {
	uint32_t rgb;
	const char *name;
} palette[RSP_CLS__COUNT] = {
	[RSP_CLS_NONE] = {0xffffff, "none"},
	[RSP_CLS_RUN] = {0xe0442e, "run"},
	[RSP_CLS_RUN_ESTIMATED] = {0xf3a08f, "run, estimated"},
	[RSP_CLS_RUN_INFERRED] = {0xe0442e, "run, inferred"},
	[RSP_CLS_SLEEP] = {0x3f74d6, "sleep"},
	[RSP_CLS_BOTH] = {0x9b4fd0, "both"},
	[RSP_CLS_PROCESS] = {0xa8a8a8, "process"},
	[RSP_CLS_IO] = {0x2fa84f, "disk I/O"},
	[RSP_CLS_IO_QUEUE] = {0xa5dca0, "I/O queue"},
	[RSP_CLS_NET] = {0x1e9c96, "network"},
	[RSP_CLS_TIMEOUT] = {0xe8b923, "timeout"},
	[RSP_CLS_HARDWARE] = {0xf07b1f, "hardware"},
	[RSP_CLS_RUNNABLE] = {0xf2a1b7, "runnable"},
	[RSP_CLS_PREEMPTED] = {0xc96f83, "preempted"},
	[RSP_CLS_KERNEL] = {0x7f93ad, "kernel"},
	[RSP_CLS_ASYNC] = {0x3cc7e6, "async"},
	[RSP_CLS_CUT] = {0x9c6b3c, "cut"},
	[RSP_CLS_UNKNOWN] = {0x9a9a9a, "unknown"},
	[RSP_CLS_UNACCOUNTED] = {0xdadada, "unaccounted"},
	[RSP_CLS_PATH] = {0x555555, "control path"},
	[RSP_CLS_LOST] = {0xb22222, "lost events"},
	[RSP_CLS_SLEEP_D] = {0x1f3f8f, "uninterruptible sleep"},
	[RSP_CLS_INFERRED] = {0x202020, "inferred switch-in"},
	[RSP_CLS_LINK] = {0x505050, "link"},
	[RSP_CLS_ROW_ALT] = {0xf3f3f3, "row"},
	[RSP_CLS_ROW_TARGET] = {0xfff2cc, "target row"},
	[RSP_CLS_TEXT] = {0x202020, "text"},
	[RSP_CLS_TEXT_DIM] = {0x707070, "dim text"},
	[RSP_CLS_RULER] = {0xe9e9e9, "ruler"},
	[RSP_CLS_TICK] = {0x606060, "tick"},
	[RSP_CLS_SEPARATOR] = {0xc4c4c4, "separator"},
	[RSP_CLS_MARK] = {0xff00c8, "highlight"},
	[RSP_CLS_SHED] = {0xd2691e, "events shed"},
};

uint32_t rsp_palette_rgb(enum rsp_cls cls)
{
	return (unsigned)cls < RSP_CLS__COUNT ? palette[cls].rgb : 0;
}

const char *rsp_palette_name(enum rsp_cls cls)
{
	return (unsigned)cls < RSP_CLS__COUNT && palette[cls].name ? palette[cls].name : "?";
}

void rsp_palette_set_source(cairo_t *cr, enum rsp_cls cls, bool dim)
{
	uint32_t c = rsp_palette_rgb(cls);
	double r = ((c >> 16) & 0xff) / 255.0, g = ((c >> 8) & 0xff) / 255.0,
	       b = (c & 0xff) / 255.0;

	if (dim) { /* faded towards white */
		r = r * 0.3 + 0.7;
		g = g * 0.3 + 0.7;
		b = b * 0.3 + 0.7;
	}
	cairo_set_source_rgb(cr, r, g, b);
}

enum rsp_cls _rsp_leaf_cls(uint8_t kind, enum rsp_cls other)
{
	switch (kind) {
	case RSP_NODE_IO:
		return RSP_CLS_IO;
	case RSP_NODE_IO_QUEUE:
		return RSP_CLS_IO_QUEUE;
	case RSP_NODE_NET:
		return RSP_CLS_NET;
	case RSP_NODE_HARDWARE:
		return RSP_CLS_HARDWARE;
	case RSP_NODE_TIMEOUT:
		return RSP_CLS_TIMEOUT;
	case RSP_NODE_RUNNABLE:
		return RSP_CLS_RUNNABLE;
	case RSP_NODE_PREEMPTED:
		return RSP_CLS_PREEMPTED;
	case RSP_NODE_KERNEL:
		return RSP_CLS_KERNEL;
	case RSP_NODE_OTHER_PATH:
		return RSP_CLS_ASYNC;
	case RSP_NODE_UNKNOWN:
		return RSP_CLS_UNKNOWN;
	case RSP_NODE_UNACCOUNTED:
		return RSP_CLS_UNACCOUNTED;
	default:
		return other;
	}
}

/* ---- the flame views' legend ----------------------------------------------------------- */

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

double rsp_legend_layout(struct rsp_scene *out, int width, double y)
{
	double x = LEGEND_PAD, row = 0;

	for (size_t i = 0; i < G_N_ELEMENTS(legend); i++) {
		const char *name = rsp_palette_name(legend[i].cls);
		double w = LEGEND_SW + 4 + rsp_text_width(name, strlen(name));

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

void _rsp_legend_chrome(struct rsp_scene *out, const struct rsp_view *v)
{
	double h = rsp_legend_layout(NULL, v->width, 0), y = v->height - h;

	rsp_scene_add(out, RSP_PRIM_RECT, RSP_CLS_NONE, 0, y, v->width, h);
	rsp_scene_add(out, RSP_PRIM_LINE, RSP_CLS_SEPARATOR, 0, y + 0.5, v->width, 0);
	rsp_legend_layout(out, v->width, y);
}
