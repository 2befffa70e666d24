/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The three views, in two steps:
 *
 *  1. prepare (needs the model; on the thread that owns it): the running
 *     view's rows, the flame views' layers with their frames symbolized;
 *     from then on layouts never touch the model;
 *  2. lay out (pure, fast, any thread): for a zoom and a size, into two
 *     scenes: the content (scrolls both ways; laid out with a margin of half a
 *     screen on each side, so small pans and scrolls only move it) and the
 *     chrome (ruler, row names, fixed on screen).
 *
 * Titles of running-view items (stacks, wakers) are read from the model
 * when asked for: hold the model when calling rsp_scene_title() on them.
 */
#ifndef RSP_VIEWS_H
#define RSP_VIEWS_H

#include "rsp-analysis.h"
#include "rsp-model.h"
#include "rsp-scene.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RSP_RULER_H  24  /* px: the time ruler at the top of every view */
#define RSP_GUTTER_W 200 /* px: the running view's row names */
#define RSP_ROW_H    20  /* px: a running-view row */
#define RSP_FRAME_H  16  /* px: a flame-view frame */
#define RSP_SHED_STRIP_H 5 /* px: the running view's strip over a span missing one event type */

/* Hit-test ids: the kind in the top byte. */
enum rsp_hit {
	RSP_HIT_NONE = 0,
	RSP_HIT_ROW_NAME, /* running view: a row's name (payload: row) */
	RSP_HIT_EXPANDER, /* running view: a process's expander (payload: row) */
	RSP_HIT_SLICE,    /* running view: a run or sleep (thread << 32 | slice) */
	RSP_HIT_COLUMNS,  /* running view: runs merged into columns (row) */
	RSP_HIT_LANE,     /* running view: a disk request or socket arrival (row << 32 | i) */
	RSP_HIT_FRAME,    /* flame view: (frame << 40 | node) */
	RSP_HIT_CONS,     /* consolidated view: a tree node */
	RSP_HIT_LOST,     /* running view: a span missing one event type (lost span index) */
};
#define RSP_HIT_ID(kind, payload) ((uint64_t)(kind) << 56 | ((payload)&0xffffffffffffffull))
#define RSP_HIT_KIND(id)          ((enum rsp_hit)((id) >> 56))
#define RSP_HIT_PAYLOAD(id)       ((id)&0xffffffffffffffull)

/* What part of a view is on screen. */
struct rsp_view {
	double x0, x1;     /* visible range, ns (the consolidated view: summed ns from its left) */
	int width, height; /* the whole drawing, px */
	double scroll_y;   /* content px scrolled off the top */
};

struct rsp_view_ops {
	const char *name;
	int (*left)(const void *data); /* px left of the content (row names) */
	void (*extent)(const void *data, const void *state, double *x0, double *x1);
	double (*content_height)(const void *data, const void *state);
	/* content: x = (x - lx0) * scale, for x in [xa, xb] and content y in [ya, yb] */
	void (*content)(const void *data, const void *state, double lx0, double scale, double xa,
			double xb, double ya, double yb, struct rsp_scene *out);
	void (*chrome)(const void *data, const void *state, const struct rsp_view *v,
		       struct rsp_scene *out);
	/* where to scroll to show the view's base in @view_h px (NULL: the top) */
	double (*home_y)(const void *data, const void *state, double view_h);
	/* an item's full text: name, times, stack */
	void (*title)(const void *data, const void *state, const struct rsp_scene_item *it,
		      GString *out);
};

/* A view laid out: its scenes and what they cover. */
struct rsp_layout {
	struct rsp_scene *content, *chrome;
	/* what the scenes' titles are made from: the last update's */
	const struct rsp_view_ops *ops;
	const void *data, *state;
	double lx0, scale, xa, xb, ya, yb;
	bool valid;
	double content_ms, chrome_ms; /* how long the last layouts took */
};

void rsp_layout_init(struct rsp_layout *l);
void rsp_layout_clear(struct rsp_layout *l);
/*
 * Lay out what @v shows, unless the content laid out last still covers it
 * at the same scale (and @force is false); the chrome always.  True if the
 * content was laid out again.
 */
bool rsp_layout_update(struct rsp_layout *l, const struct rsp_view_ops *ops, const void *data,
		       const void *state, const struct rsp_view *v, bool force);
/* Draw: background, content (clipped, translated), chrome. */
void rsp_layout_draw(const struct rsp_layout *l, const struct rsp_view_ops *ops, const void *data,
		     const struct rsp_view *v, cairo_t *cr);
/* The item under (x, y) in view pixels: chrome first, then content. */
const struct rsp_scene_item *rsp_layout_hit(const struct rsp_layout *l,
					    const struct rsp_view_ops *ops, const void *data,
					    const struct rsp_view *v, double x, double y,
					    const struct rsp_scene **scene);
/* The content x offset (view px) of content x 0, and of content y 0. */
void rsp_layout_offsets(const struct rsp_layout *l, const struct rsp_view_ops *ops,
			const void *data, const struct rsp_view *v, double *dx, double *dy);
int rsp_layout_write_svg(const struct rsp_layout *l, const struct rsp_view_ops *ops,
			 const void *data, const struct rsp_view *v, FILE *f, const char *title);

/* The time ruler (ticks 1-2-5, units s/ms/µs/ns) into a chrome scene. */
void rsp_ruler_layout(struct rsp_scene *out, double x0, double x1, double origin, int left,
		      int width);

/* ---- the process-running view (paper figure 2) ------------------------------------------ */

struct rsp_running_data;

enum rsp_row_kind {
	RSP_ROW_PROCESS,
	RSP_ROW_THREAD,
	RSP_ROW_DISK,   /* a block device: queued and in-service requests */
	RSP_ROW_SOCKET, /* a socket: data in flight to it */
};

struct rsp_running_state {
	bool show_sleeps;        /* sleeps as blue boxes labelled with their function */
	bool chains_only;        /* only the target's chains */
	const uint8_t *expanded; /* per process (rsp_running_n_procs): its threads shown */
	const char *search;      /* rows and sleeps whose name contains it (case aside) are marked */
	size_t search_current;   /* 1 + the row that is the current match (Enter), 0: none */
	/* no wakeup links; else at most one a pixel column, under the rows' marks, and at
	 * a coarse zoom (more than one link per RSP_LINKS_COARSE_PX columns in view) only
	 * those within the target's chains */
	bool hide_links;
};
#define RSP_LINKS_COARSE_PX 8

/* @a: the target's analysis, for the order of rows (may be NULL). */
int rsp_running_data_new(struct rsp_trace *t, struct rsp_analysis *a, struct rsp_running_data **out,
			 char *err, size_t errlen);
/*
 * The same in two steps, so that the view can be drawn before its sleeps are
 * labelled (most of the preparing): _new_unlabelled; then, on a worker
 * holding the model, _label; then, where the data is drawn (no layout of it
 * running meanwhile), _publish_labels.  True if it changed anything.
 */
int rsp_running_data_new_unlabelled(struct rsp_trace *t, struct rsp_analysis *a,
				    struct rsp_running_data **out, char *err, size_t errlen);
void rsp_running_data_label(struct rsp_running_data *d);
bool rsp_running_data_publish_labels(struct rsp_running_data *d);
bool rsp_running_data_labelled(const struct rsp_running_data *d);
void rsp_running_data_free(struct rsp_running_data *d);
extern const struct rsp_view_ops rsp_running_ops;

size_t rsp_running_n_procs(const struct rsp_running_data *d);
struct rsp_row_info {
	enum rsp_row_kind kind;
	int pid, tid; /* process / thread rows */
	const char *name;
	size_t proc; /* process rows and their threads: the process */
	size_t n_threads;
	bool target, in_chain;
};
/* The rows shown in @st's state, top to bottom. */
size_t rsp_running_n_rows(const struct rsp_running_data *d, const struct rsp_running_state *st);
void rsp_running_row(const struct rsp_running_data *d, const struct rsp_running_state *st,
		     size_t row, struct rsp_row_info *out);
/* The row at content y (RSP_NO_INDEX if none). */
size_t rsp_running_row_at(const struct rsp_running_data *d, const struct rsp_running_state *st,
			  double y);
/* Describe what row @row shows at @time (process, tid, duration, state, stack, waker). Model. */
bool rsp_running_describe(const struct rsp_running_data *d, const struct rsp_running_state *st,
			  size_t row, uint64_t time, GString *out);

/* ---- the flame views (paper figures 3 and 4) ----------------------------------------------- */

struct rsp_flame_data;

/* What each colour of the flame views says: the viewer's legend, the exports'. */
struct rsp_legend_item {
	enum rsp_cls cls;
	bool hatch;
	const char *tip;
	bool optional; /* in an export's legend only where the view has it (idle) */
};
size_t rsp_flame_legend_n(void);
const struct rsp_legend_item *rsp_flame_legend(size_t i);
/* The legend in rows from @y down, @width wide (a swatch and its name each);
 * its height.  @out NULL: only measured.  @optional: with the optional items. */
double rsp_legend_layout(struct rsp_scene *out, int width, double y, bool optional);

struct rsp_flame_state {
	bool kernel_frames; /* show kernel frames in the stacks */
	const char *search; /* frames whose name contains it (case aside) are marked, others faded */
	int category;       /* -1, or: the frames that category counts are marked, others faded */
	bool legend;        /* the legend along the bottom (exports) */
	bool legend_idle;   /* with idle's colour (the analysis has idle time) */
};

int rsp_flame_data_new(struct rsp_trace *t, struct rsp_analysis *a, struct rsp_flame_data **out,
		       char *err, size_t errlen);
void rsp_flame_data_free(struct rsp_flame_data *d);
extern const struct rsp_view_ops rsp_flame_ops;

size_t rsp_flame_n_nodes(const struct rsp_flame_data *d);
/* Node @i's layer: its frames outermost first (@kernel: with kernel frames). */
struct rsp_flame_node_info {
	enum rsp_node_kind kind;
	int category;   /* leaves, else -1 */
	unsigned flags; /* RSP_NODE_CUT ... */
	size_t parent, path, thread;
	int tid, pid;
	uint64_t start_ns, end_ns, wake_ns;
	const char *comm, *label;
	size_t n_frames, n_user_frames;
	size_t n_samples;
};
void rsp_flame_node(const struct rsp_flame_data *d, size_t i, struct rsp_flame_node_info *out);
/* Frame @f (outermost first) of node @i, or of its sample @sample (RUN nodes; -1: none). */
const char *rsp_flame_frame(const struct rsp_flame_data *d, size_t i, long sample, size_t f);
/* The flame view's details of a node: layer, stack, times (no model). */
void rsp_flame_describe(const struct rsp_flame_data *d, size_t node, GString *out);
/* What woke the node (with the waker's stack), what it woke.  Reads the model. */
void rsp_flame_describe_links(const struct rsp_flame_data *d, struct rsp_trace *t, size_t node,
			      GString *out);

/* The consolidated tree: the flame data's pseudostacks merged and sorted (no model). */
struct rsp_cons_tree;
struct rsp_cons_tree *rsp_cons_tree_new(const struct rsp_flame_data *d, bool merge_threads,
					bool kernel_frames);
void rsp_cons_tree_free(struct rsp_cons_tree *c);
extern const struct rsp_view_ops rsp_cons_ops;

struct rsp_cons_state {
	size_t root; /* zoomed into this subtree (0: all) */
	const char *search;
	int category; /* -1 or a category: its frames marked */
	bool legend;  /* the legend along the bottom (exports) */
	bool legend_idle; /* with idle's colour (the analysis has idle time) */
};
size_t rsp_cons_n_nodes(const struct rsp_cons_tree *c);
struct rsp_cons_node_info {
	const char *label;
	size_t parent; /* RSP_NO_INDEX for the root */
	unsigned depth;
	uint64_t total_ns, run_ns, sleep_ns, need_ns, x_ns;
	enum rsp_cls cls;
	size_t n_children;
};
void rsp_cons_node(const struct rsp_cons_tree *c, size_t i, struct rsp_cons_node_info *out);
size_t rsp_cons_child(const struct rsp_cons_tree *c, size_t i, size_t k);

#endif /* RSP_VIEWS_H */
