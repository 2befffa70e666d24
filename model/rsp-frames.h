/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Stacks as function names: shared by the latency causes (rsp-causes.h), the
 * off-CPU analysis (rsp-offcpu.h) and the folded-stack exports (rsp-folded.h),
 * over the threads an rsp_thread_filter (rsp-model.h) selects.
 */
#ifndef RSP_FRAMES_H
#define RSP_FRAMES_H

#include "rsp-model.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * One frame by name.  @func is never NULL: a function, else "file+0xADDR"
 * (the file's base name and the address in it), else "[unknown]"
 * (rsp_frame_name()).  Owned by the trace.
 */
struct rsp_named_frame {
	const char *func;
	const char *dso; /* the file, "[kernel.kallsyms]", "[unknown]" */
	uint64_t rel_addr; /* the address in @dso (rsp_frame_info's) */
	bool kernel;
};

#endif /* RSP_FRAMES_H */
