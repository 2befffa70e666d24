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

#endif /* RSP_FOLDED_H */
