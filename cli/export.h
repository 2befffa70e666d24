/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rsp export's writers that are CLI formatting (the folded stacks come from model/). */
#ifndef RSP_CLI_EXPORT_H
#define RSP_CLI_EXPORT_H

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

#endif /* RSP_CLI_EXPORT_H */
