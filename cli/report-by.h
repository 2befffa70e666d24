/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rsp report --by command: the target's time (its pseudostacks' leaves) by the
 * command line of the process each was spent in, so a build's report names its
 * compiles by their source files.
 */
#ifndef RSP_CLI_REPORT_BY_H
#define RSP_CLI_REPORT_BY_H

#include "args.h"

#include "rsp-analysis.h"
#include "rsp-model.h"

#include <stddef.h>

/* One table, in @fmt (text, csv or json); @top rows (0: all).  0, or -ENOMEM. */
int report_by_command(struct rsp_trace *t, const struct rsp_analysis *an, const char *path,
		      const char *target_desc, size_t top, enum rsp_cli_format fmt);

#endif /* RSP_CLI_REPORT_BY_H */
