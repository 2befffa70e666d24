/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A scene: what one view looks like at one zoom, as a flat list of
 * primitives (filled boxes, hatched boxes, lines, text), each with its class
 * (which fixes its colour), its label, the time it covers and a hit-test id.
 * Views lay themselves out into scenes (culled per pixel column, merged,
 * labels only where they fit); a scene is then drawn onto any cairo_t (the
 * widgets, PNG, PDF) or written as SVG with a <title> per box.  Drawing a
 * scene never looks at the model.
 */
#ifndef RSP_SCENE_H
#define RSP_SCENE_H

#include <cairo.h>
#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* What a primitive shows; the palette gives each class one colour (docs in render-palette.c). */
enum rsp_cls {
	RSP_CLS_NONE = 0,
	RSP_CLS_RUN,         /* running stacks, run bars: red */
	RSP_CLS_RUN_ESTIMATED, /* a run without samples: its code estimated from other runs: light red */
	RSP_CLS_RUN_INFERRED,  /* a run without samples: where it was, inferred: hatched red */
	RSP_CLS_SLEEP,       /* sleeping stacks, sleep boxes: blue */
	RSP_CLS_BOTH,        /* a frame in both running and sleeping stacks: purple */
	RSP_CLS_PROCESS,     /* a pseudostack layer's process name: grey */
	RSP_CLS_IO,          /* blocking disk I/O, in service: green */
	RSP_CLS_IO_QUEUE,    /* a block request queued: light green */
	RSP_CLS_NET,         /* waiting for a network peer, a socket's data in flight: teal */
	RSP_CLS_TIMEOUT,     /* a wait that timed out: amber */
	RSP_CLS_HARDWARE,    /* woken by a device interrupt: orange */
	RSP_CLS_RUNNABLE,    /* runnable, waiting for a CPU: pink */
	RSP_CLS_PREEMPTED,   /* preempted: rose */
	RSP_CLS_KERNEL,      /* blocked in the kernel on nothing traced: slate */
	RSP_CLS_ASYNC,       /* waiting on another control path; an async path: cyan */
	RSP_CLS_CUT,         /* a layer cut at its parent's start: brown */
	RSP_CLS_UNKNOWN,     /* nothing known (lost records): hatched grey */
	RSP_CLS_UNACCOUNTED, /* woken, cause not recorded: light grey */
	RSP_CLS_PATH,        /* a control path's base: dark grey */
	RSP_CLS_LOST,        /* a lost-events span: hatched dark red */
	RSP_CLS_SLEEP_D,     /* uninterruptible sleep (D): dark blue */
	RSP_CLS_INFERRED,    /* an inferred switch-in: orange mark */
	RSP_CLS_LINK,        /* a wakeup link */
	RSP_CLS_ROW_ALT,     /* every other row's background */
	RSP_CLS_ROW_TARGET,  /* the target's rows' background */
	RSP_CLS_TEXT,
	RSP_CLS_TEXT_DIM,
	RSP_CLS_RULER, /* ruler and gutter background */
	RSP_CLS_TICK,
	RSP_CLS_SEPARATOR,
	RSP_CLS_MARK, /* search / category highlight outline */
	RSP_CLS_SHED, /* a span where the recorder shed one event type: a strip along the top: chocolate */
	RSP_CLS_IDLE, /* waiting with nothing to do (a server between requests): pale blue-grey */
	RSP_CLS__COUNT
};

enum rsp_prim {
	RSP_PRIM_RECT,     /* x, y, w, h */
	RSP_PRIM_HATCH,    /* a rect filled with diagonal lines of its class's colour */
	RSP_PRIM_LINE,     /* from (x, y) to (x + w, y + h) */
	RSP_PRIM_TEXT,     /* label at baseline (x, y), at most w wide */
	RSP_PRIM_TRIANGLE, /* a small downward triangle in the box */
};

#define RSP_ITEM_DIM      0x01 /* faded: something else is highlighted */
#define RSP_ITEM_MARKED   0x02 /* outlined: a search or category match */
#define RSP_ITEM_ELLIPSIS 0x04 /* the label was cut: draw "…" after label_len bytes */
#define RSP_ITEM_RIGHT    0x08 /* TEXT: right-aligned at x */
#define RSP_ITEM_GAP      0x10 /* RECT: a 1 px gap on its right and top (flame frames) */
#define RSP_ITEM_BOLD     0x20 /* TEXT: drawn twice, offset, for weight */
#define RSP_ITEM_GAP_TOP  0x40 /* RECT: RSP_ITEM_GAP's gap on its top only (a part of a frame) */

struct rsp_scene_item {
	float x, y, w, h;
	const char *label;  /* owned by the view's data or the scene; NULL: none */
	uint64_t t0, t1;    /* the time (or x units) it covers */
	uint64_t id;        /* view-defined hit-test id; 0: not hit-testable */
	uint32_t aux;       /* view-defined (merged count, row) */
	uint16_t label_len; /* bytes of label drawn (fitted at layout); 0: none */
	uint8_t prim, cls, flags;
};

struct rsp_scene;
typedef void (*rsp_scene_title_fn)(const struct rsp_scene *s, const struct rsp_scene_item *it,
				   GString *out, void *ctx);

struct rsp_scene *rsp_scene_new(void);
void rsp_scene_free(struct rsp_scene *s);
void rsp_scene_clear(struct rsp_scene *s);

/* @from's items appended to @s's (their strings now live as long as @s); @from left empty. */
void rsp_scene_take(struct rsp_scene *s, struct rsp_scene *from);
/*
 * The items added so far lie under the rest: drawn whole (boxes, lines,
 * text) before any later item, so a later box covers an earlier line (the
 * running view's links pass under its rows' marks).  An SVG keeps the scene's
 * order, which says the same.
 */
void rsp_scene_end_under(struct rsp_scene *s);
size_t rsp_scene_n_under(const struct rsp_scene *s);

size_t rsp_scene_n_items(const struct rsp_scene *s);
const struct rsp_scene_item *rsp_scene_item(const struct rsp_scene *s, size_t i);
struct rsp_scene_item *rsp_scene_item_mut(struct rsp_scene *s, size_t i);
/* Is @it one of @s's items? */
bool rsp_scene_owns(const struct rsp_scene *s, const struct rsp_scene_item *it);

/* Add a primitive; the returned item may be adjusted until the next add. */
struct rsp_scene_item *rsp_scene_add(struct rsp_scene *s, enum rsp_prim prim, enum rsp_cls cls,
				     double x, double y, double w, double h);
/* A box with a label fitted to its width (labels only where they fit). */
struct rsp_scene_item *rsp_scene_add_box(struct rsp_scene *s, enum rsp_cls cls, double x, double y,
					 double w, double h, const char *label);
struct rsp_scene_item *rsp_scene_add_text(struct rsp_scene *s, enum rsp_cls cls, double x,
					  double baseline, double max_w, const char *text,
					  unsigned flags);
/* A copy of @str that lives as long as the scene. */
const char *rsp_scene_strdup(struct rsp_scene *s, const char *str);
const char *rsp_scene_printf(struct rsp_scene *s, const char *fmt, ...) G_GNUC_PRINTF(2, 3);

/* Titles: the full text of an item (name, times, stack), made on demand. */
void rsp_scene_set_title_fn(struct rsp_scene *s, rsp_scene_title_fn fn, void *ctx);
/* Appends the item's title to @out; false if it has none. */
bool rsp_scene_title(const struct rsp_scene *s, const struct rsp_scene_item *it, GString *out);

/* Drawing: items whose box misses [cx0, cx1] x [cy0, cy1] (scene coordinates) are skipped. */
void rsp_scene_draw(const struct rsp_scene *s, cairo_t *cr, double cx0, double cy0, double cx1,
		    double cy1);
/* The topmost hit-testable box (RECT, HATCH, TEXT with an id) at (x, y); -1 if none. */
ssize_t rsp_scene_hit(const struct rsp_scene *s, double x, double y);

/*
 * SVG: @scenes drawn in order, each translated by its (dx, dy) and clipped
 * to its rect (clip_w <= 0: no clip); one <title> per box with an id.
 */
struct rsp_svg_layer {
	const struct rsp_scene *scene;
	double dx, dy;
	double clip_x, clip_y, clip_w, clip_h;
};
int rsp_scene_write_svg(FILE *f, int width, int height, const char *title,
			const struct rsp_svg_layer *layers, size_t n_layers);

/* ---- the palette ------------------------------------------------------------------------ */

/* 0xRRGGBB of a class. */
uint32_t rsp_palette_rgb(enum rsp_cls cls);
/* A short name: "run", "sleep", "both", ... (legends, tests). */
const char *rsp_palette_name(enum rsp_cls cls);
void rsp_palette_set_source(cairo_t *cr, enum rsp_cls cls, bool dim);

/* ---- text: one font, measured once; thread-safe -------------------------------------------- */

#define RSP_FONT_PX 11.0
double rsp_text_width(const char *s, size_t n);
/* Bytes of @s that fit in @max_w (with "…" if cut: *ellipsis); 0 if not even 2 characters fit. */
size_t rsp_text_fit(const char *s, double max_w, bool *ellipsis);
void rsp_text_draw(cairo_t *cr, double x, double baseline, const char *s, size_t n, bool ellipsis);
/* @text contains @search, case aside (ASCII); false for an empty or NULL @search (every view's search). */
bool rsp_search_hit(const char *text, const char *search);

/* ---- units --------------------------------------------------------------------------------------
 */

/* "1.25 s", "350 ms", "12.5 µs", "800 ns" */
void rsp_format_duration(char *buf, size_t n, double ns);

#endif /* RSP_SCENE_H */
