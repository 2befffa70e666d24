/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rsp_record()'s use of cmdline.h: the recorder's log and stats. */
#include "cmdline.h"
#include "record-private.h"

#include <inttypes.h>

struct rsp_cmdlines *_rsp_cmdlines_start(struct recorder *r)
{
	char why[256];
	struct rsp_cmdlines *c = rsp_cmdlines_start("/proc", true, why, sizeof(why));

	if (!c)
		_rsp_record_log(r, RSP_LOG_WARN, "no command lines recorded: out of memory");
	else if (why[0])
		_rsp_record_log(r, RSP_LOG_WARN,
				"the command lines of processes started during the recording are "
				"not recorded (only those alive at its start): %s",
				why);
	return c;
}

void _rsp_cmdlines_finish(struct recorder *r, struct rsp_cmdlines *c)
{
	int ret;

	if (!c)
		return;
	ret = rsp_cmdlines_finish(c, r->w, &r->st->cmdlines, &r->st->cmdlines_lost);
	if (ret || r->st->cmdlines_lost)
		_rsp_record_log(r, RSP_LOG_WARN,
				"%" PRIu64 " command lines not recorded (%s): those processes are "
				"named by their executable only",
				r->st->cmdlines_lost,
				ret ? "the writer's memory is spent"
				    : "more execs than the command-line ring or 8 MiB could hold");
	_rsp_record_log(r, RSP_LOG_DEBUG, "command lines recorded: %" PRIu64,
			r->st->cmdlines);
}
