/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The process-running view's data, shared by its files:
 *   render-running-data.c      prepared from the model: threads grouped by process
 *                              in their order, lanes of devices and sockets, links;
 *                              the sleeps' labels
 *   render-running-rows.c      its rows in a state
 *   render-running.c           a zoom laid out into scenes
 *   render-running-describe.c  what is under the pointer, in words (the model's
 *                              stacks and wakers)
 */
#ifndef RSP_RENDER_RUNNING_PRIVATE_H
#define RSP_RENDER_RUNNING_PRIVATE_H

#include "render-private.h"

#define NONE    UINT32_MAX
#define MAX_SUB 4 /* sub-lanes of a device or socket lane */

struct rslice {
	uint64_t s, e;
	const char *label; /* sleeps: the function that best describes them */
	uint32_t stack;
	uint8_t kind, state, flags;
};

struct rthread {
	size_t model;
	int tid, pid;
	const char *comm, *name; /* name: "comm tid" */
	const char *cmdline; /* its process's command line, NULL if the file has none */
	struct rslice *v;
	size_t n;
	uint32_t proc;
	uint64_t run_ns;
	const char **pending; /* labels made, not yet published */
	/* where to look for time t: grid[g] is the first slice ending after
	 * grid_t0 + g * grid_step (slices end in order); NULL for short threads */
	uint32_t *grid;
	size_t n_grid;
	uint64_t grid_t0, grid_step;
};

struct rproc {
	int pid;
	const char *name; /* "comm pid", then the command line's arguments when known */
	const char *cmdline; /* NULL if the file has none */
	uint32_t *threads;
	size_t n_threads;
	bool target, chain;
	uint64_t chain_ns, run_ns, links;
};

struct litem {
	uint64_t a, b, c; /* disk: queued, issued, completed; socket: sent, ready, ready */
	size_t model;     /* io or net index */
	uint32_t thread;  /* issuer / sender (data index), NONE */
	uint8_t sub;
	bool no_end; /* disk: its completion not in the trace (c = b) */
};

struct rlane {
	enum rsp_row_kind kind;
	const char *name;
	struct litem *v;
	size_t n, cap;
	uint8_t n_sub;
	bool chain;
	uint32_t dev;
	uint32_t made; /* its index before the lanes were sorted */
	uint64_t maxdur;   /* the longest item's c - a */
	uint64_t *blockdur; /* per LANE_BLOCK items: the longest c - a */
};

#define LANE_BLOCK 32

/* The first item of @l that may reach time @t: items are sorted by start and
 * last at most maxdur (those before it end before @t). */
static inline size_t _rsp_lane_first(const struct rlane *l, double t)
{
	size_t k;

	RSP_LOWER_BOUND(l->v, l->n, a, t - (double)l->maxdur - 1, k);
	return k;
}

struct rlink {
	uint64_t t, to_start;
	uint32_t from, to; /* data threads; from may be NONE */
	int32_t from_lane; /* a lane, or -1 */
	uint8_t kind;
};

struct rsp_running_data {
	struct rsp_trace *t;
	struct _rsp_strtab strs;
	struct _rsp_frames fc;
	struct rthread *threads;
	size_t n_threads;
	uint32_t *of_model; /* model thread -> data thread */
	struct rproc *procs;
	size_t n_procs;
	struct rlane *lanes;
	size_t n_lanes;
	int32_t *sock_lane; /* a model socket's lane, -1: none */
	size_t n_socks;
	struct rlink *links;
	size_t n_links;
	/* of them, those within the target's chains (both ends in a chain process or lane),
	 * in the same order: what a coarse zoom draws */
	struct rlink *chain_links;
	size_t n_chain_links;
	struct rsp_lost_info *lost;
	size_t n_lost;
	uint64_t start, end;
	bool labelled; /* the sleeps' labels are published */
	struct rows_cache *rc; /* the rows of the last state laid out (render-running.c) */
};

/* ---- rows in a state (render-running.c) ---------------------------------------------- */

struct row {
	uint8_t kind;
	uint32_t idx; /* proc, thread or lane */
};

/*
 * The rows shown in state @st (process rows, then their lanes, then the rest),
 * and each thread's and lane's row (NONE, -1: not shown; a collapsed process's
 * threads are on its row).  Kept in @d until a state with other rows is asked
 * for: a layout is then O(the rows it draws), not O(every row) (a web server's
 * recording has a socket lane per connection: some 1.6 M rows in 60 s, estimated
 * from 0.8 M connections of two sockets each).  Valid until
 * the next call; one caller at a time (the viewer's main thread, an export).
 */
struct rows_view {
	const struct row *rows;
	size_t n;
	const uint32_t *row_of_thread;
	const int32_t *row_of_lane;
};
void _rsp_running_rows(const struct rsp_running_data *d, const struct rsp_running_state *st,
		       struct rows_view *out);
/* What row @r is (rsp_running_row()'s answer) */
void _rsp_running_row_info(const struct rsp_running_data *d, struct row r,
			   struct rsp_row_info *out);
struct rows_cache *_rsp_running_rows_new(void); /* NULL: out of memory */
void _rsp_running_rows_free(struct rows_cache *rc);

/*
 * When a layout's rows are shared with a second thread (render-running.c):
 * at least @min_cost of estimated work, @cpus (0: the machine's, asked once)
 * at least 2.  Tests set them to force either way; @n_split counts the
 * layouts that were shared.
 */
struct _rsp_running_parallel {
	double min_cost;
	gint cpus;
	gint n_split;
};
extern struct _rsp_running_parallel _rsp_running_parallel;

/* A thread's time grid, from its slices (render-running-data.c); the first of
 * its slices from @from on that ends after @t (render-running.c) */
void _rsp_running_grid(struct rthread *th);
size_t _rsp_running_next(const struct rthread *th, size_t from, double t);

/* "socket 127.0.0.1:8080 <- 127.0.0.1:41234", "socket 0.0.0.0:80 (listening)",
 * "socket ffff8881...": a socket lane's name, a lane item's connection */
void _rsp_running_socket_name(const struct rsp_socket_info *si, char *name, size_t len);

/* ---- descriptions (render-running-describe.c) ------------------------------------------ */

/* rsp_running_ops.title: the tooltip of a scene item. */
void _rsp_running_title(const void *data, const void *state, const struct rsp_scene_item *it,
			GString *out);

#endif /* RSP_RENDER_RUNNING_PRIVATE_H */
