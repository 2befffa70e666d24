/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Collapsed ("folded") stacks for flame graphs: one line per distinct stack,
 * "frame;frame;frame VALUE", root first, as flamegraph.pl, inferno and
 * speedscope read them.  Five kinds:
 *
 *   cpu      on-CPU samples; value: samples
 *   offcpu   sleep stacks (voluntary and preempted) by time; value: µs
 *   hotcold  both, under a "[on-cpu]" / "[off-cpu]" frame; each run's time
 *            divided among its samples; value: µs.  A trace without
 *            scheduler events (perf record -g): each sample's period under
 *            "[on-cpu estimated]", and no off-CPU part
 *   offwake  sleep stack, "--", then the waker's stack leaf first and the
 *            waker's name (bcc's offwaketime); a wakeup from interrupt context
 *            ends in "[softirq net]" and the like, then, for data from a peer
 *            on this machine, the sending thread; value: µs
 *   pseudo   rsp's cross-process pseudostacks (the analysis): control path,
 *            sleeps, what ran inside them; value: µs
 *
 * The first frame is the process name (pseudo: the control path's thread).
 * ';' inside a name becomes ':'.  Lines are sorted by stack.
 */
#ifndef RSP_FOLDED_H
#define RSP_FOLDED_H

#include "rsp-analysis.h"
#include "rsp-frames.h"
#include "rsp-model.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum rsp_folded_kind {
	RSP_FOLDED_CPU,
	RSP_FOLDED_OFFCPU,
	RSP_FOLDED_HOTCOLD,
	RSP_FOLDED_OFFWAKE,
	RSP_FOLDED_PSEUDO,
};

/* "cpu", "offcpu", ...; and back (-EINVAL if unknown) */
const char *rsp_folded_kind_name(enum rsp_folded_kind k);
int rsp_folded_kind_parse(const char *s, enum rsp_folded_kind *out);

struct rsp_folded_opts {
	struct rsp_thread_filter threads; /* not for pseudo: the analysis chose */
	bool mark_frames; /* "_[k]" after kernel frames, "_[w]" after waker frames */
};

struct rsp_folded;

/* @a is needed for RSP_FOLDED_PSEUDO only.  -errno with one line in @err. */
int rsp_folded_build(struct rsp_trace *t, struct rsp_analysis *a, enum rsp_folded_kind kind,
		     const struct rsp_folded_opts *opts, struct rsp_folded **out, char *err,
		     size_t errlen);
void rsp_folded_free(struct rsp_folded *f);

size_t rsp_folded_n_lines(const struct rsp_folded *f);
/* The stack ("a;b;c") and its value; owned by @f. */
void rsp_folded_line(const struct rsp_folded *f, size_t i, const char **stack, uint64_t *value);

/* ---- the contributions, one by one -----------------------------------------------------
 *
 * What rsp_folded_build() adds up, before lines are merged and rounded: each
 * sample, run share, sleep or pseudostack leaf with its frames and its thread,
 * for writers that keep more than a line (rsp export --pprof).
 */

enum rsp_folded_frame_kind {
	RSP_FOLDED_FRAME_THREAD, /* the first frame: the thread's name (not pseudo) */
	RSP_FOLDED_FRAME_PART, /* hotcold's "[on-cpu]", "[on-cpu estimated]", "[off-cpu]" */
	RSP_FOLDED_FRAME_STACK, /* a frame of a recorded stack: @nf says which */
	RSP_FOLDED_FRAME_NOTE, /* any other: "[no stack]", "--", a waker, a pseudostack node */
};

struct rsp_folded_frame {
	const char *name; /* as in the line (';' made ':') */
	enum rsp_folded_frame_kind kind;
	const struct rsp_named_frame *nf; /* RSP_FOLDED_FRAME_STACK only, else NULL */
};

enum rsp_folded_part {
	RSP_FOLDED_PART_SAMPLE, /* cpu: one CPU sample (value 1) */
	RSP_FOLDED_PART_ON_CPU, /* hotcold: a run's time (ns), divided among its samples */
	RSP_FOLDED_PART_ON_CPU_ESTIMATED, /* hotcold: a sample's period (ns), no scheduling */
	RSP_FOLDED_PART_OFF_CPU, /* offcpu, hotcold, offwake: a sleep (ns) */
	RSP_FOLDED_PART_PSEUDO, /* pseudo: a leaf of a pseudostack (ns) */
};

struct rsp_folded_entry {
	const char *stack; /* the line it adds to */
	const struct rsp_folded_frame *frames; /* root first, the line's frames */
	size_t n_frames;
	enum rsp_folded_part part;
	/* the thread whose sample or time it is (pseudo: the leaf's; RSP_NO_INDEX
	 * for a leaf of no thread, e.g. a disk) */
	size_t thread;
	uint64_t value; /* 1 (a sample) or ns, not rounded */
};

/* Returns 0 to go on, else stops the walk with that value. */
typedef int (*rsp_folded_visit_fn)(const struct rsp_folded_entry *e, void *ctx);

/*
 * Calls @visit for every contribution of @kind, in no promised order; the entry
 * and its strings live until @visit returns.  The lines of rsp_folded_build()
 * are the entries' stacks with their values added up (µs rounded for time).
 * -errno with one line in @err, or @visit's non-zero value.
 */
int rsp_folded_walk(struct rsp_trace *t, struct rsp_analysis *a, enum rsp_folded_kind kind,
		    const struct rsp_folded_opts *opts, rsp_folded_visit_fn visit, void *ctx,
		    char *err, size_t errlen);

#endif /* RSP_FOLDED_H */
