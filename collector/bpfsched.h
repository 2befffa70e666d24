/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rsp's BPF program (sched.bpf.c) loaded, its target processes set, attached,
 * and its ring buffer read: the scheduler's switches and wakeups with their
 * stacks at a fraction of perf's cost per event (docs/DESIGN.md, "Recorder").
 * Records as bpf-record.h lays them out; the recorder turns them into perf
 * samples (record-bpf.c).
 */
#ifndef RSP_COLLECTOR_BPFSCHED_H
#define RSP_COLLECTOR_BPFSCHED_H

#include "bpf-record.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct rsp_bpfsched;

struct rsp_bpfsched_opts {
	unsigned copy_bytes; /* user-stack copies of the targets' sleeps (0: none) */
	bool copy_all; /* ... of every thread's */
	bool runtime; /* each run's CPU time with its switch-out (rsp_bpf_rec.runtime) */
	size_t ring_bytes; /* the ring buffer: a power of two, pages */
};

/*
 * Load the program.  Returns 0, or -errno with why the kernel or this build
 * cannot run it in @why (the caller falls back to perf).
 */
int rsp_bpfsched_open(struct rsp_bpfsched **out, const struct rsp_bpfsched_opts *o, char *why,
		      size_t whylen);
void rsp_bpfsched_free(struct rsp_bpfsched *b);

/* @pid is a target (its sleeps get copies), from now or from its next exec; its
 * child processes become targets as they fork (the fork hook is attached by
 * rsp_bpfsched_open). */
int rsp_bpfsched_add_target(struct rsp_bpfsched *b, pid_t pid, bool at_exec);

/* Attach / detach the switch and wakeup programs. */
int rsp_bpfsched_start(struct rsp_bpfsched *b, char *why, size_t whylen);
void rsp_bpfsched_stop(struct rsp_bpfsched *b);

/* An fd that poll(2) finds readable when the program woke the reader (a
 * quarter of the ring waits); read it by draining. */
int rsp_bpfsched_fd(const struct rsp_bpfsched *b);

/*
 * Each whole record in the ring, in order, to @fn, while @room says there is
 * room for one of its size; @fn returns 0 or a negative errno (the record is
 * consumed either way).  Returns the records read, or @fn's error; *more is
 * set when @room stopped it.
 */
typedef int (*rsp_bpfsched_fn)(void *ctx, const struct rsp_bpf_rec *rec, size_t size);
typedef bool (*rsp_bpfsched_room)(void *ctx, size_t size);
long rsp_bpfsched_drain(struct rsp_bpfsched *b, rsp_bpfsched_fn fn, rsp_bpfsched_room room,
			void *ctx, bool *more);

/* How full the ring is: the bytes written and not yet read, percent of its size. */
unsigned rsp_bpfsched_fill(const struct rsp_bpfsched *b);

/* The program's counters on @cpu (a mapped page: read at any time). */
const struct rsp_bpf_counts *rsp_bpfsched_counts(const struct rsp_bpfsched *b, int cpu);
/* Times the kernel skipped the @kind program (it was running already on that CPU). */
uint64_t rsp_bpfsched_misses(const struct rsp_bpfsched *b, enum rsp_bpf_kind kind);
/*
 * With RSP_RECORD_BPF_STATS=1 in the environment at rsp_bpfsched_start(): the
 * kernel's sum of the @kind program's run times (ns, its own clock reads
 * included) and its runs, so far.  false if not timed.
 */
bool rsp_bpfsched_run_time(const struct rsp_bpfsched *b, enum rsp_bpf_kind kind, uint64_t *ns,
			   uint64_t *runs);

#endif /* RSP_COLLECTOR_BPFSCHED_H */
