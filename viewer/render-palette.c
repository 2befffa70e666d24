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
 * the same place light red, inferred from that place alone hatched red; idle
 * (waiting with nothing to do) pale blue-grey, a calm sleep.  The screen and
 * every export take their colours from here, and so does the flame views'
 * legend (render-legend.c).
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
	[RSP_CLS_IDLE] = {0xc8d4e3, "idle"},
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
	case RSP_NODE_IDLE:
		return RSP_CLS_IDLE;
	default:
		return other;
	}
}
