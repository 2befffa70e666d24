/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Choosing what a verb looks at (export, causes, offcpu): --target PID|COMM
 * (repeatable), --thread TID, --all, or the processes rsp record marked.
 */
#ifndef RSP_CLI_TARGET_H
#define RSP_CLI_TARGET_H

#include "rsp-frames.h"
#include "rsp-model.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rsp_cli_target {
	const char *specs[64]; /* --target arguments, as given */
	size_t n_specs;
	int tid; /* --thread */
	bool all; /* --all */

	/* resolved by rsp_cli_target_resolve() */
	int *pids;
	size_t n_pids;
	char desc[256]; /* "process 123 (pass)", "the whole system" */
};

/* Record a --target argument; 2 (usage) if there are too many. */
int rsp_cli_target_add(struct rsp_cli_target *tg, const char *verb, const char *spec);

/*
 * Resolve against @t: the specs, else the recorded targets, else (if
 * @whole_system_ok) the whole system.  Prints one error line and returns 1
 * if nothing matches.
 */
int rsp_cli_target_resolve(struct rsp_cli_target *tg, struct rsp_trace *t, const char *verb,
			   const char *path, bool whole_system_ok);

/* The filter for rsp-frames.h users; @descendants: the targets' process trees */
void rsp_cli_target_filter(const struct rsp_cli_target *tg, bool descendants,
			   struct rsp_thread_filter *out);

void rsp_cli_target_free(struct rsp_cli_target *tg);

/*
 * A file that marks no target but whose header's command line is `perf record
 * [OPTIONS] [--] CMD [ARGS]` (perf record -a -- CMD writes no thread map): the
 * process perf forked for CMD (its first name "perf" or "perf-exec", then CMD's
 * base name, as exec gives it; or another name, when none has CMD's) added to
 * @pids[@n].  Returns how many were
 * added (0: not such a file, or no such process), the command in @cmd.
 */
size_t rsp_cli_recorded_command(struct rsp_trace *t, int **pids, size_t *n, char *cmd,
				size_t cmdlen);

/* Says on stderr that rsp_cli_recorded_command()'s processes are the target. */
void rsp_cli_note_recorded_command(const char *verb, const char *path, const int *pids,
				   size_t n, const char *cmd);

/* Add @pid to the set @pids[@n] unless there; -ENOMEM. */
int rsp_cli_add_pid(int **pids, size_t *n, int pid);

#endif /* RSP_CLI_TARGET_H */
