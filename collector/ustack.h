/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Trimming user-stack copies (PERF_SAMPLE_STACK_USER) to the live part of the
 * stack before they are written.
 *
 * The kernel copies a fixed size (8 KiB by default) from the stack pointer
 * up, whatever the stack's depth: for a program sleeping a few frames below
 * main, most of the copy is the environment, the auxiliary vector and unused
 * space above the outermost frame.  The live frames of a main thread end at
 * the stack pointer _start was entered with (/proc/PID/stat "startstack");
 * those of another thread end at the top of its stack mapping.  A copy is cut
 * there (plus a margin), and its size field and dyn_size rewritten, so the
 * record stays a valid perf.data sample that perf script and unwinders read.
 */
#ifndef RSP_USTACK_H
#define RSP_USTACK_H

#include <stddef.h>
#include <stdint.h>

/* bytes kept above the end of the live frames */
#define RSP_USTACK_MARGIN 128

struct rsp_ustack;

/* Lookups in /proc made by the caller, when it asks. */
struct rsp_ustack *rsp_ustack_new(void);
/*
 * Lookups in /proc made by a thread of its own: rsp_ustack_keep() never
 * waits (a thread's first copies, until the answer comes, are kept whole,
 * unless a main thread's copy shows its entry frame).  The recorder's.
 */
struct rsp_ustack *rsp_ustack_new_async(void);
/* Wait until every lookup asked so far is answered (tests). */
void rsp_ustack_settle(struct rsp_ustack *u);
void rsp_ustack_free(struct rsp_ustack *u);
/* Forget what is known of @pid's stacks (exec replaces them). */
void rsp_ustack_forget(struct rsp_ustack *u, uint32_t pid);

/*
 * How many bytes of a copy taken at stack pointer @sp in thread @tid of
 * process @pid are live (plus the margin), at most @have; @have when unknown.
 * @copy (@copy_len bytes from @sp, or NULL): the copy itself, read when the
 * process is gone before its /proc entry could be (rsp_ustack_entry_top).
 */
uint64_t rsp_ustack_keep(struct rsp_ustack *u, uint32_t pid, uint32_t tid, uint64_t sp,
			 uint64_t have, const void *copy, uint64_t copy_len);

/*
 * A main thread's startstack read off a copy of its stack taken at @sp: the
 * address of argc, found by what exec put there (argc, argv[], NULL, envp[],
 * NULL, the auxiliary vector with AT_PAGESZ up to AT_NULL, argv and envp
 * pointing above).  0 if the copy does not reach it.
 */
uint64_t rsp_ustack_entry_top(const void *copy, uint64_t len, uint64_t sp);

/*
 * Where a sample's user stack lies: for a PERF_RECORD_SAMPLE of @sample_type
 * with @regs_mask user registers, the offset of the STACK_USER size word, the
 * copy's size and dyn_size, and the user stack pointer (register @sp_reg).
 * Returns 0, or -1 if the record has no (well-formed) user stack.
 */
struct rsp_ustack_loc {
	size_t size_off; /* offset of the u64 size, from the record's start */
	size_t chain_off; /* of the callchain's nr (0: no callchain) */
	size_t regs_off; /* of the registers' abi word */
	uint64_t size, dyn_size;
	uint64_t sp;
	uint32_t pid, tid;
};
int rsp_ustack_locate(const void *rec, size_t len, uint64_t sample_type, uint64_t regs_mask,
		      int sp_reg, struct rsp_ustack_loc *out);

/*
 * Write into @out (room for @len bytes) the record @rec with its user-stack
 * copy cut to @keep bytes (<= loc->size, a multiple of 8).  Returns the new
 * record size.
 */
size_t rsp_ustack_trim(const void *rec, size_t len, const struct rsp_ustack_loc *loc,
		       uint64_t keep, void *out);

#endif /* RSP_USTACK_H */
