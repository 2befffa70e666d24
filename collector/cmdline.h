/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The command lines of a recording's processes (docs/perf-data.md, "Command
 * lines"): each process's argv at its exec, read by a BPF program of its own
 * (cmdline.bpf.c) into a ring that a thread of its own empties, and that of
 * every process alive at the start from /proc/PID/cmdline; up to
 * RSP_CMDLINE_MAX bytes each, the full length kept to mark a cut one.  Held
 * in memory and written at the end, in the file's uncompressed tail.
 */
#ifndef RSP_COLLECTOR_CMDLINE_H
#define RSP_COLLECTOR_CMDLINE_H

#include "writer.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rsp_cmdlines;

/*
 * Start: with @execs, the BPF program attached (execs from now on); then
 * @proc_dir read (the processes alive now, time 0).  NULL only without
 * memory; where the kernel refuses the program, only /proc is read and @why
 * says so (else "").
 */
struct rsp_cmdlines *rsp_cmdlines_start(const char *proc_dir, bool execs, char *why,
					size_t whylen);
/* Stop reading execs, take what the ring holds, write every command line as a
 * record to @w; the numbers written and lost in @n and @lost. */
int rsp_cmdlines_finish(struct rsp_cmdlines *c, struct rsp_writer *w, uint64_t *n, uint64_t *lost);
void rsp_cmdlines_free(struct rsp_cmdlines *c);

/* For tests: add one command line as the program would (@time, @pid, @argv of
 * @len bytes, the command line's own length @full_len). */
int rsp_cmdlines_add(struct rsp_cmdlines *c, uint64_t time, uint32_t pid, const char *argv,
		     uint32_t len, uint32_t full_len);

/* rsp_record()'s calls (cmdline-record.c): what went wrong logged, the counts
 * in its stats; both take a NULL @c. */
struct recorder;
struct rsp_cmdlines *_rsp_cmdlines_start(struct recorder *r);
void _rsp_cmdlines_finish(struct recorder *r, struct rsp_cmdlines *c);

#endif /* RSP_COLLECTOR_CMDLINE_H */
