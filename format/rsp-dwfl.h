/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the two DWARF unwinders of user-stack copies (collector/runwind.c in
 * the recorder, model/symbols/unwind.c in the model) share around libdwfl:
 * the copy's registers as the thread's initial state, and the tests that end
 * a walk at a frame.
 */
#ifndef RSP_FORMAT_DWFL_H
#define RSP_FORMAT_DWFL_H

#include "rsp-dwarf-regs.h"

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* @regs (a bit per DWARF register in @have) as @thread's initial registers,
 * the instruction pointer its pc; false if libdwfl refuses one. */
static inline bool rsp_dwfl_set_registers(Dwfl_Thread *thread, const uint64_t *regs, uint32_t have)
{
	for (int r = 0; r < RSP_DWARF_IP; r++)
		if ((have & (1u << r)) && !dwfl_thread_state_registers(thread, r, 1, &regs[r]))
			return false;
	dwfl_thread_state_register_pc(thread, regs[RSP_DWARF_IP]);
	return true;
}

/*
 * The pc of @state, the walk's frame after @n others, into *pc; false where
 * the walk ends there: no pc, a caller's stack pointer not above its callee's
 * (*last_sp, updated: anything else is a loop in crafted or corrupt stack
 * contents), or pc 0, the outermost frame (*outermost set).
 */
static inline bool rsp_dwfl_frame(Dwfl_Frame *state, size_t n, uint64_t *last_sp, Dwarf_Addr *pc,
				  bool *outermost)
{
	Dwarf_Word sp;

	if (!dwfl_frame_pc(state, pc, NULL))
		return false;
	if (n) {
		if (dwfl_frame_reg(state, RSP_DWARF_SP, &sp) == 0) {
			if (sp <= *last_sp)
				return false;
			*last_sp = sp;
		}
		if (*pc == 0) {
			*outermost = true;
			return false;
		}
	}
	return true;
}

#endif
