/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RSP_CMDLINE_FORMAT_H
#define RSP_CMDLINE_FORMAT_H

/*
 * A process's command line in rsp's perf.data (docs/perf-data.md, "Command
 * lines"): a PERF_RECORD_HEADER_EVENT_TYPE record (type 65), which perf reads
 * past without a word since it stopped writing it (2012), with this body.
 * rsp writes them in the uncompressed tail, after the build ids.
 */
#include <stdint.h>

#include "rsp-perf-format.h"

#define RSP_PF_CMDLINE_MAGIC 0x316c646d63707372ull /* "rspcmdl1" */
#define RSP_CMDLINE_MAX 4096u /* bytes of argv kept per command line */

struct rsp_pf_cmdline {
	struct perf_event_header header; /* RSP_PF_RECORD_HEADER_EVENT_TYPE, misc 0 */
	uint64_t magic; /* RSP_PF_CMDLINE_MAGIC */
	uint64_t time; /* the exec (CLOCK_MONOTONIC ns); 0: alive at the start */
	uint32_t pid; /* the process */
	uint32_t len; /* bytes of argv that follow: its strings, each NUL-terminated */
	uint32_t full_len; /* the command line's own length: more than len when cut */
	uint32_t res;
	/* char argv[len], then zeros to a multiple of 8 */
};
_Static_assert(sizeof(struct rsp_pf_cmdline) == 40, "cmdline record");

#endif /* RSP_CMDLINE_FORMAT_H */
