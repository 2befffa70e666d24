/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RSP_COLLECTOR_SYNTH_H
#define RSP_COLLECTOR_SYNTH_H

#include "pathset.h"
#include "tidmap.h"
#include "writer.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rsp_synth_ctx {
	struct rsp_writer *w;
	uint64_t id; /* the tracking event's id, for the sample_id trailer */
	uint64_t time; /* timestamp of the synthesized records */
	struct rsp_tidmap *tids; /* filled with tid -> tgid, may be NULL */
	bool data_maps; /* also non-executable file mappings (DWARF unwinding) */
	struct rsp_pathset *paths; /* mapped files, for their build ids; may be NULL */
	size_t n_threads;
	size_t n_maps;
};

/* PERF_RECORD_MMAP of [kernel.kallsyms]_text; -EPERM if kallsyms hides addresses */
int rsp_synth_kernel(struct rsp_synth_ctx *c);
/* FORK + COMM for every thread in /proc, MMAP2 of every executable mapping */
int rsp_synth_threads(struct rsp_synth_ctx *c);

#endif /* RSP_COLLECTOR_SYNTH_H */
