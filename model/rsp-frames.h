/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Stacks as function names: shared by the latency causes (rsp-causes.h), the
 * off-CPU analysis (rsp-offcpu.h) and the folded-stack exports (rsp-folded.h),
 * over the threads an rsp_thread_filter (rsp-model.h) selects; and the states
 * of a wait, which the causes and the off-CPU analysis both select by.
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

/*
 * What an interval of a wait was: bits, so a rule or an option can name
 * several.  One letter each, one meaning wherever rsp takes them (a rule's
 * state=, rsp causes --state, rsp offcpu --state):
 *   S  blocked in an interruptible sleep: from the switch-out to the wakeup
 *   D  blocked in an uninterruptible sleep (disk I/O, most often): the same
 *   R  runnable after a wakeup, waiting for a CPU: from the wakeup to the switch-in
 *   P  preempted: switched out while runnable, until switched in again
 * A sleep is thus an S or D interval and the R interval after it.
 */
enum rsp_wait_state {
	RSP_WAIT_S = 1 << 0,
	RSP_WAIT_D = 1 << 1,
	RSP_WAIT_RUNNABLE = 1 << 2,
	RSP_WAIT_PREEMPTED = 1 << 3,
};
#define RSP_WAIT_BLOCKED (RSP_WAIT_S | RSP_WAIT_D)
#define RSP_WAIT_ALL (RSP_WAIT_BLOCKED | RSP_WAIT_RUNNABLE | RSP_WAIT_PREEMPTED)

/* "S", "D", "R", "P" */
const char *rsp_wait_state_name(enum rsp_wait_state s);
/*
 * A list of states: items separated by commas, each a run of the letters S,
 * D, R and P ("S,D", "SD") or a word, "runnable" (R) or "preempted" (P).
 * 0 and the bits in *@out, or -EINVAL with one line in @err: "unknown state
 * 'X': ..." (the letters and their meanings), or "no state listed".
 */
int rsp_wait_states_parse(const char *s, unsigned *out, char *err, size_t errlen);
/* "S,D,R,P" (the bits of @states, in that order) in @buf; @buf */
const char *rsp_wait_states_str(unsigned states, char *buf, size_t len);

#endif /* RSP_FRAMES_H */
