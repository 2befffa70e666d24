/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the two DWARF unwinders of user-stack copies (collector/runwind.c in
 * the recorder, model/symbols/unwind.c in the model) share around libdwfl: the
 * one thread a Dwfl is attached to, served from a copy of its registers and
 * stack, and the walk of its frames.
 *
 * An unwinder embeds a struct rsp_dwfl_walk, attaches each Dwfl it builds to it
 * (rsp_dwfl_attach()) and, for each copy, fills in the registers and the stack
 * and calls rsp_dwfl_walk().  What differs between the two is in two hooks:
 * what an unwinder keeps of each stack word the walk reads (the recorder, for
 * the replay of an unwind; the model, for its memo) and whether a frame is
 * taken (the recorder stops at an address outside every file it knows).
 */
#ifndef RSP_FORMAT_DWFL_H
#define RSP_FORMAT_DWFL_H

#include "rsp-dwarf-regs.h"

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct rsp_dwfl_walk {
	/* the copy, set before each rsp_dwfl_walk(): the registers (a bit per
	 * DWARF register in @have) and the stack's bytes from the stack pointer
	 * (NULL: none, every read fails) */
	uint64_t regs[RSP_DWARF_REGS];
	uint32_t have;
	const unsigned char *stack;
	size_t len;

	/*
	 * Each stack word the walk reads, at @addr: @ok, read from the copy
	 * as @val; not @ok, outside the copy (@val 0).  NULL: nothing kept.
	 */
	void (*on_read)(struct rsp_dwfl_walk *w, uint64_t addr, uint64_t val, bool ok);
	/* A frame at @pc, after w->n others, about to be taken: false ends the
	 * walk before it.  NULL: every frame the walk reaches is taken. */
	bool (*on_frame)(struct rsp_dwfl_walk *w, Dwfl_Frame *state, uint64_t pc);

	/* the walk's result: its frames, n of them (at most max) */
	uint64_t *ips;
	size_t max, n;
	bool outermost; /* it ended at a return address of 0 */

	/* the walk's state */
	uint64_t sp, last_sp;
	bool thread_given;
};

/* The word at @addr of a stack copy (@len bytes from @sp) into *v; false
 * where it is not all in the copy (or there is no copy, @stack NULL). */
bool rsp_dwfl_copy_word(const unsigned char *stack, uint64_t sp, size_t len, uint64_t addr,
			uint64_t *v);

/* @dwfl, its modules reported, attached to @w's thread (@pid, 1 if unknown);
 * false if libdwfl refuses. */
bool rsp_dwfl_attach(Dwfl *dwfl, pid_t pid, struct rsp_dwfl_walk *w);

/*
 * The frames of the copy in @w (registers and stack set) into @ips (at most
 * @max, at least 1) through @dwfl, attached to @w as @pid: w->n of them.
 * Returns what dwfl_getthread_frames() did: 0 where the CFI ended the walk
 * (the outermost frame), else -1 (a hook, a read outside the copy, a frame
 * without CFI, @max reached, or a loop ended it).
 */
int rsp_dwfl_walk(Dwfl *dwfl, pid_t pid, struct rsp_dwfl_walk *w, uint64_t *ips, size_t max);

#endif
