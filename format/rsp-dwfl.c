/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The libdwfl thread callbacks of both DWARF unwinders (rsp-dwfl.h): one
 * thread, its registers and stack from a copy, and the walk of its frames.
 */
#include "rsp-dwfl.h"

#include <string.h>

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct rsp_dwfl_walk *w = arg;

	if (w->thread_given)
		return 0;
	w->thread_given = true;
	*thread_argp = w;
	return 1;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	*thread_argp = arg;
	return true;
}

bool rsp_dwfl_copy_word(const unsigned char *stack, uint64_t sp, size_t len, uint64_t addr,
			uint64_t *v)
{
	uint64_t off = addr - sp;

	if (!stack || addr < sp || off > len || len - off < sizeof(*v))
		return false;
	memcpy(v, stack + off, sizeof(*v));
	return true;
}

/* the word at @addr, from the copy only: the rest of the address space is not recorded */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct rsp_dwfl_walk *w = arg;
	uint64_t v = 0;
	bool ok = rsp_dwfl_copy_word(w->stack, w->sp, w->len, addr, &v);

	if (w->on_read)
		w->on_read(w, addr, v, ok);
	if (ok)
		*result = v;
	return ok;
}

/* the copy's registers as the thread's initial state, the instruction pointer its pc */
static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct rsp_dwfl_walk *w = arg;

	for (int r = 0; r < RSP_DWARF_IP; r++)
		if ((w->have & (1u << r)) &&
		    !dwfl_thread_state_registers(thread, r, 1, &w->regs[r]))
			return false;
	dwfl_thread_state_register_pc(thread, w->regs[RSP_DWARF_IP]);
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

bool rsp_dwfl_attach(Dwfl *dwfl, pid_t pid, struct rsp_dwfl_walk *w)
{
	return dwfl_attach_state(dwfl, NULL, pid, &thread_callbacks, w);
}

/*
 * A frame: the walk ends where it has no pc, where a caller's stack pointer is
 * not above its callee's (anything else is a loop in crafted or corrupt stack
 * contents), at pc 0 (the outermost frame), where the hook says so, or once
 * max frames are taken.
 */
static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct rsp_dwfl_walk *w = arg;
	Dwarf_Addr pc;
	Dwarf_Word sp;

	if (!dwfl_frame_pc(state, &pc, NULL))
		return DWARF_CB_ABORT;
	if (w->n) {
		if (dwfl_frame_reg(state, RSP_DWARF_SP, &sp) == 0) {
			if (sp <= w->last_sp)
				return DWARF_CB_ABORT;
			w->last_sp = sp;
		}
		if (pc == 0) {
			w->outermost = true;
			return DWARF_CB_ABORT;
		}
	}
	if (w->on_frame && !w->on_frame(w, state, pc))
		return DWARF_CB_ABORT;
	w->ips[w->n++] = pc;
	return w->n < w->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

int rsp_dwfl_walk(Dwfl *dwfl, pid_t pid, struct rsp_dwfl_walk *w, uint64_t *ips, size_t max)
{
	int ret;

	w->sp = w->last_sp = w->regs[RSP_DWARF_SP];
	w->ips = ips;
	w->max = max;
	w->n = 0;
	w->outermost = w->thread_given = false;
	ret = dwfl_getthread_frames(dwfl, pid, frame_cb, w);
	w->stack = NULL;
	w->ips = NULL;
	return ret;
}
