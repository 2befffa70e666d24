/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The trace a reading verb reads (report, info, causes, offcpu, export, view),
 * opened the same way by each, with the same one-line errors and the same
 * one-line warning for a damaged trace:
 *
 *  - no FILE: rsp.data; when it is missing and perf.data is here, perf.data
 *    (said on stderr, with the warnings), as perf reads perf.data;
 *  - "-" (or a FIFO): the whole stream read into memory first (`perf record
 *    -o - ... | rsp report -`);
 *  - an error: "rsp VERB: FILE: what (what to do)", exit status 1;
 *  - a trace with warnings (cut short, lost spans, missing events, files
 *    the stacks need and could not be read, ...): "rsp VERB: warning: FILE:
 *    the first warning[; PATH (build id ID, not found): N frames without
 *    symbols, ... [and K more files] (...)][; N events lost in M spans][; K
 *    more warnings (`rsp info FILE` lists them)]", once: said
 *    after the output, when the verb succeeded (one that fails says only
 *    why, in one line).
 */
#ifndef RSP_CLI_INPUT_H
#define RSP_CLI_INPUT_H

#include "rsp-model.h"

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>

struct rsp_cli_input {
	const char *path; /* the file read ("-" for standard input) */
	const char *name; /* for messages: the path, or "standard input" */
	struct rsp_trace *t;
	void *buf; /* a stream's bytes, which the trace reads */
	size_t len;
	char archive[4096]; /* FILE.archive when read, else "" */
	char jit_dir[4096]; /* FILE.jit when read, else "" */
};

/*
 * Open @path (NULL: the default) for @verb with @opts (NULL: none), and where
 * to find the files it names: the symbol options (args.h), @path.archive
 * and @path.jit (a directory) when they are there, debuginfod when
 * DEBUGINFOD_URLS is set (a line on stderr per download).  0, or 1 after one
 * line on stderr.
 */
int rsp_cli_input_open(struct rsp_cli_input *in, const char *verb, const char *path,
		       const struct rsp_trace_opts *opts);
void rsp_cli_input_close(struct rsp_cli_input *in);
/*
 * For a verb that hands the file to another program (rsp view): found as
 * rsp_cli_input_open() finds it, and its header and first event description
 * checked (rsp_trace_check()), not loaded; the same errors.  A stream (a
 * FIFO) is refused.  in->path is set, in->t stays NULL.  0, or 1 after one
 * line on stderr.
 */
int rsp_cli_input_check(struct rsp_cli_input *in, const char *verb, const char *path);
/*
 * The warning lines of the traces opened: said on stderr if @say (the verb
 * succeeded and its output was written), else dropped.  rsp's main() calls
 * it at exit; rsp view before it starts the viewer.
 */
void rsp_cli_input_say_warnings(bool say);

struct json;
/* The trace's warnings as the JSON outputs' "warnings" array, in their order. */
void rsp_cli_json_warnings(struct json *j, const struct rsp_trace *t);

/*
 * Why a trace names no target, after its name: "records no target (...)", or
 * for a trace cut short (the list of targets comes last), that it was cut.
 */
const char *rsp_cli_no_target_why(const struct rsp_trace *t);

/*
 * For a verb that tells when threads were off the CPU (causes, offcpu): 0 if
 * the trace recorded scheduler switches, else 1 after one line saying it did
 * not (a file of CPU samples only, as `perf record -g` makes), what @verb
 * cannot tell without them (@what) and how to record them.
 */
int rsp_cli_input_need_sched(const struct rsp_cli_input *in, const char *verb, const char *what);

/* @a and @b name the same file (an output that would replace the trace being read) */
bool rsp_cli_same_file(const char *a, const char *b);

/*
 * The spans where one event type is missing (shed by the recorder, or
 * LOST_SAMPLES), one per event and span (the CPUs' summed), each as
 * "EVENT A..B s (N events; UNCERTAIN)" after @sep, times from the trace's
 * start.  Returns how many.
 */
size_t rsp_cli_print_type_losses(struct rsp_trace *t, FILE *f, const char *sep);

/*
 * Missing file @i (rsp_trace_missing_file()): "PATH (build id ID, why): N
 * frames without symbols, T ms of the target's time".
 */
void rsp_cli_print_missing_file(struct rsp_trace *t, size_t i, FILE *f);

#endif /* RSP_CLI_INPUT_H */
