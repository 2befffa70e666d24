/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared by the render library's files: interned strings, symbolized stacks. */
#ifndef RSP_RENDER_PRIVATE_H
#define RSP_RENDER_PRIVATE_H

#include "rsp-views.h"

#include <glib.h>

/* Interned strings: equal strings are one pointer, alive as long as the table. */
struct _rsp_strtab {
	GStringChunk *chunk;
	GHashTable *set;
};
void _rsp_strtab_init(struct _rsp_strtab *s);
void _rsp_strtab_clear(struct _rsp_strtab *s);
const char *_rsp_intern(struct _rsp_strtab *s, const char *str);

/* A stack symbolized: frames outermost first, in a shared pool. */
struct _rsp_fstack {
	uint32_t off;    /* into the cache's frames */
	uint16_t n;      /* frames */
	uint16_t n_user; /* the outermost n_user are user frames */
};

struct _rsp_frames {
	struct rsp_trace *t;
	struct _rsp_strtab *strs;
	GHashTable *map;   /* (stack << 32 | pid) -> index + 1 in stacks */
	GArray *stacks;    /* struct _rsp_fstack */
	GPtrArray *frames; /* const char *, interned */
};
void _rsp_frames_init(struct _rsp_frames *fc, struct rsp_trace *t, struct _rsp_strtab *strs);
void _rsp_frames_clear(struct _rsp_frames *fc);
/* Model: @stack of process @pid at @time (tracing artefacts dropped at the leaf). */
struct _rsp_fstack _rsp_frames_get(struct _rsp_frames *fc, uint32_t stack, int pid, uint64_t time);
static inline const char *_rsp_frame(const struct _rsp_frames *fc, uint32_t off)
{
	return g_ptr_array_index(fc->frames, off);
}
/* The function that best describes a sleep: the innermost user function (the
 * paper's choice), else the innermost kernel function above the scheduler. */
const char *_rsp_frames_best(const struct _rsp_frames *fc, struct _rsp_fstack fs);
/* " > "-joined, outermost first; at most @max innermost frames (0: all). */
void _rsp_frames_append(const struct _rsp_frames *fc, struct _rsp_fstack fs, size_t max,
			GString *out);

/* "12.345 ms" from the trace start */
/* The colour of a pseudostack leaf of analysis node kind @kind (RSP_NODE_*);
 * @other for kinds that are not leaves of their own colour. */
enum rsp_cls _rsp_leaf_cls(uint8_t kind, enum rsp_cls other);
/* The flame views' legend along the bottom of @v, on white (exports). */
void _rsp_legend_chrome(struct rsp_scene *out, const struct rsp_view *v, bool optional);

/*
 * Boxes written straight into an image surface where cairo would paint the
 * same pixels (render-direct.c): begin once per draw; a box not taken is
 * cairo's to draw; cairo's pending drawing done before a fill here, and a
 * sync before cairo draws after one (and at the end).
 */
struct _rsp_direct {
	bool on, mine; /* usable; pixels written since cairo last drew */
	cairo_surface_t *surface;
	cairo_format_t fmt;
	int stride, scale, tx, ty;
	int cx0, cy0, cx1, cy1; /* the clip, in pixels */
	uint32_t pixel[RSP_CLS__COUNT][2];
	uint8_t known[RSP_CLS__COUNT][2]; /* 0: not asked; 1: opaque; 2: not */
	size_t n_boxes; /* written here */
};
bool _rsp_direct_begin(struct _rsp_direct *d, cairo_t *cr);
/* The pixel of @cls written here; false if cairo's (not opaque, or not on) */
bool _rsp_direct_pixel(struct _rsp_direct *d, uint8_t cls, bool dim, uint32_t *px);
/* Does the box (user space, after the item's gaps) go here?  @px: its pixel. */
bool _rsp_direct_takes(struct _rsp_direct *d, double x, double y, double w, double h, uint8_t cls,
		       bool dim, uint32_t *px);
void _rsp_direct_fill(struct _rsp_direct *d, double x, double y, double w, double h, uint32_t px);
void _rsp_direct_sync(struct _rsp_direct *d);
/* rsp_scene_draw(), @direct false: every box through cairo (the tests'
 * reference); returns how many boxes (or links' pixel columns) were written
 * straight into the image */
size_t _rsp_scene_draw(const struct rsp_scene *s, cairo_t *cr, double cx0, double cy0, double cx1,
		     double cy1, bool direct);

void _rsp_append_time(GString *out, uint64_t t, uint64_t origin);
void _rsp_append_dur(GString *out, uint64_t ns);

/* Binary searches over arrays sorted by end (and start): first element ending after @t. */
#define RSP_LOWER_BOUND(v, n, field, t, out)                                                       \
	do {                                                                                       \
		size_t lo_ = 0, hi_ = (n);                                                         \
		while (lo_ < hi_) {                                                                \
			size_t mid_ = lo_ + (hi_ - lo_) / 2;                                       \
			if ((double)(v)[mid_].field <= (double)(t))                                \
				lo_ = mid_ + 1;                                                    \
			else                                                                       \
				hi_ = mid_;                                                        \
		}                                                                                  \
		(out) = lo_;                                                                       \
	} while (0)

/*
 * The same from index @from on, galloping: where the answer is usually a
 * few elements on, a search over the whole array is a cache miss per step.
 */
#define RSP_GALLOP_BOUND(v, n, field, t, from, out)                                                \
	do {                                                                                       \
		size_t gf_ = (from), glo_, ghi_, gst_ = 1, gin_;                                   \
		if (gf_ >= (n) || (double)(v)[gf_].field > (double)(t)) {                          \
			(out) = gf_;                                                               \
			break;                                                                     \
		}                                                                                  \
		glo_ = gf_;                                                                        \
		ghi_ = gf_ + 1;                                                                    \
		while (ghi_ < (n) && (double)(v)[ghi_].field <= (double)(t)) {                     \
			glo_ = ghi_;                                                               \
			gst_ *= 2;                                                                 \
			ghi_ = gf_ + gst_;                                                         \
		}                                                                                  \
		if (ghi_ > (n))                                                                    \
			ghi_ = (n);                                                                \
		RSP_LOWER_BOUND((v) + glo_ + 1, ghi_ - glo_ - 1, field, t, gin_);                  \
		(out) = glo_ + 1 + gin_;                                                           \
	} while (0)

/* ---- the flame data (render-flame.c; the consolidated tree reads it) ------------------- */

#define RSP_NONE32 UINT32_MAX

struct _rsp_fnode {
	uint64_t s, e, wake;
	const char *label;             /* leaves: what they are */
	uint32_t parent, kids, n_kids; /* kids: offset in d->kids */
	uint32_t frames, samples;      /* offsets: fc frames; d->samples */
	uint32_t thread, slice, link;  /* model indexes, RSP_NONE32 */
	uint16_t n_frames, n_user, n_samples, path;
	uint16_t level[2], height[2]; /* [kernel frames shown] */
	uint8_t kind, flags, cat;
};

struct _rsp_fthread {
	const char *comm, *tlabel; /* tlabel: "comm tid" */
	const char *cmdline; /* its process's command line, NULL if the file has none */
	int tid, pid;
};

struct _rsp_fpath {
	uint32_t roots, n_roots; /* in d->kids */
	uint32_t thread;
	bool async;
	uint16_t height[2];
	const char *label;
};

struct rsp_flame_data {
	struct _rsp_strtab strs;
	struct _rsp_frames fc;
	struct _rsp_fnode *nodes;
	size_t n_nodes;
	uint32_t *kids; /* children lists, then each path's roots, sorted by start */
	/* each kids entry's start and end: searched and scanned in order at every layout */
	struct _rsp_kspan {
		uint64_t s, e;
	} *kspan;
	struct _rsp_fstack *samples;
	float *shares; /* each sample's share of its run (estimated runs: unequal) */
	uint8_t *guessed; /* each sample's: 1 if estimated from its site (a sampled run's rest) */
	size_t n_samples;
	struct _rsp_fthread *threads;
	size_t n_threads;
	struct _rsp_fpath *paths;
	size_t n_paths;
	uint64_t start, end, origin;
	const char *running, *kernel_only;
};

#endif /* RSP_RENDER_PRIVATE_H */
