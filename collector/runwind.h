/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The recorder's own unwinder: CPU samples' user-stack copies unwound with
 * DWARF CFI (libdwfl) before they are written, the copy replaced by the
 * frames it unwinds to.
 *
 * A cpu-clock sample of a process built without frame pointers carries its
 * user registers and a copy of its live stack (ustack.h): hundreds to
 * thousands of bytes, where the frames are a few dozen words.  Here, on the
 * writer thread (rsp_writer_set_filter(): it runs before a chunk is
 * compressed, never holds up the ring-buffer reader and sees the records in
 * the order they are written), each such sample is unwound and, where that
 * succeeds, rewritten as a sample of the same attr that perf writes for a
 * thread without user registers: its callchain gets PERF_CONTEXT_USER and
 * the unwound user frames after the kernel part, the registers' abi is 0
 * (none) and the stack copy's size 0.  perf script and the model read the
 * callchain as they read a frame-pointer one.
 *
 * The maps: from the records themselves (MMAP2, FORK, COMM with exec, EXIT),
 * as a reader of the file sees them, so a process that is gone by the time
 * its chunk is written still unwinds; a chunk's samples and those records
 * are taken in time order (a round is written ring by ring).  Only a clean unwind replaces the copy:
 * one that reaches the outermost frame (its CFI says the return address is
 * undefined: _start, clone's thread start), a return address of 0, or the end
 * of the copy itself (a reader of the copy would stop there too).  A sample
 * whose unwind stops on an address no known map holds, or on a file without
 * CFI, keeps its copy: the model unwinds it later with what it knows then.
 *
 * The files: a Dwfl per distinct set of executable maps (processes forked
 * without exec share one), each file's program headers read once; a few
 * Dwfls kept, least recently used out.
 */
#ifndef RSP_RUNWIND_H
#define RSP_RUNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rsp_runwind;

struct rsp_runwind_stats {
	uint64_t samples; /* samples with a user-stack copy seen */
	uint64_t unwound; /* of them, written as unwound frames */
	uint64_t frames; /* user frames written in those */
	uint64_t kept; /* written with their copies: */
	uint64_t kept_no_maps; /* no executable map known for the process */
	uint64_t kept_no_files; /* none of its files could be read */
	uint64_t kept_unclean; /* the unwind stopped early (no map, no CFI at an address) */
	uint64_t bytes_saved; /* record bytes the rewrite saved */
	uint64_t ns; /* CPU time spent in the filter (all records) */
	uint64_t replayed; /* of unwound: replays of an unwind done before (runwind.c) */
	uint64_t replay_checked, replay_differ; /* verify: replays unwound again, and differing */
	uint64_t spaces_built; /* Dwfls built */
	uint64_t build_ns; /* of ns, building them */
};

struct rsp_runwind *rsp_runwind_new(void);
void rsp_runwind_free(struct rsp_runwind *rw);

/*
 * Samples whose id is one of @ids (n @n) are of an attr with @sample_type
 * (with REGS_USER, STACK_USER and CALLCHAIN) and user registers @regs_mask
 * (x86-64 perf order): they are unwound.  Before the first record.
 */
int rsp_runwind_add_ids(struct rsp_runwind *rw, const uint64_t *ids, size_t n,
			uint64_t sample_type, uint64_t regs_mask);

/* The writer's filter (rsp_writer_filter_fn): @arg is the rsp_runwind. */
size_t rsp_runwind_filter(void *arg, unsigned char *recs, size_t len);

/* Unwind again each copy a replay would give, and count where they differ (tests). */
void rsp_runwind_set_verify(struct rsp_runwind *rw, bool verify);

/* Its counts so far (after rsp_writer_close: all of them). */
void rsp_runwind_stats(const struct rsp_runwind *rw, struct rsp_runwind_stats *out);

#endif /* RSP_RUNWIND_H */
