/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rsp export's writers that are CLI formatting (the folded stacks come from model/). */
#ifndef RSP_CLI_EXPORT_H
#define RSP_CLI_EXPORT_H

#include "rsp-analysis.h"
#include "rsp-model.h"

#include <stdint.h>
#include <stdio.h>

/*
 * Chrome trace-event JSON (Perfetto, chrome://tracing) of the threads @sel
 * selects (one byte per thread index; NULL: all): per thread a track of runs
 * and sleeps ("X", stacks in args), wakeups as flow events ("s"/"f"), block
 * I/O as async slices ("b"/"e").  Times are µs from the trace's start.
 * Returns 0, or -errno if writing failed.
 */
int rsp_export_chrome(FILE *f, struct rsp_trace *t, const uint8_t *sel, const char *source);

/*
 * pprof's profile.proto, gzipped (export-pprof.c says what it holds): the CPU
 * samples, on-CPU and off-CPU time of the threads @threads selects and, with
 * @a, the target's pseudostacks.  @source names the trace in a comment.
 * Returns 0 (a write error is @f's), or -errno with one line in @err.
 */
int rsp_export_pprof(FILE *f, struct rsp_trace *t, struct rsp_analysis *a,
		     const struct rsp_thread_filter *threads, const char *source, char *err,
		     size_t errlen);

#endif /* RSP_CLI_EXPORT_H */
