/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A small perf.data writer for tests: synthetic event streams with a known
 * timeline, in pipe or file layout, with the formats generated from the same
 * field lists the payloads are built from.
 */
#ifndef RSP_TEST_SYNTH_PERF_H
#define RSP_TEST_SYNTH_PERF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum synth_ev {
	SE_SWITCH,
	SE_WAKING,
	SE_WAKEUP,
	SE_WAKEUP_NEW,
	SE_FORK,
	SE_EXEC,
	SE_EXIT,
	SE_BLK_INSERT,
	SE_BLK_ISSUE,
	SE_BLK_COMPLETE,
	SE_IRQ_ENTRY,
	SE_IRQ_EXIT,
	SE_SOFTIRQ_ENTRY,
	SE_SOFTIRQ_EXIT,
	SE_SOCK_SEND,
	SE_SK_READY,
	SE_SOCK_STATE,
	SE_SOCK_RECV,
	SE__COUNT
};

/* context flags for common_flags */
#define SYN_HARDIRQ 0x08
#define SYN_SOFTIRQ 0x10

struct synth;

struct synth_opts {
	bool file_mode; /* perf record's file layout instead of pipe mode */
	bool int_prev_state; /* a kernel whose prev_state is a 4-byte int at another offset */
	bool second_waking_attr; /* sched_waking also from a second attr (an "ftrace copy") */
	bool second_exec_attr; /* sched_process_exec too (synth_exec_tp_copy) */
	/* rsp record's rings: every perf attr with a wakeup watermark but the second
	 * waking attr (second_waking_attr: the ftrace copy, without), and a second
	 * sched_switch attr, inherited: the target's copies in rings of their own
	 * (synth_switch_copy(), synth_lost_target()) */
	bool rsp_rings;
	bool no_tracing_data;
	bool sideband_id0; /* side-band records carry id 0, as perf record's synthesized ones */
	const char *kallsyms; /* /proc/kallsyms text for the tracing data; NULL: none */
	/* kallsyms as one zstd frame, as rsp record writes it; damaged: a byte of
	 * the frame's data flipped (it does not inflate) */
	bool kallsyms_zstd, kallsyms_damaged;
	/* sched_switch also samples user registers (BP, SP, IP) and a copy of the user
	 * stack, as --call-graph dwarf: empty unless given (synth_switch_ustack) */
	bool user_stack;
	/* CPU samples only, as perf record -g: no tracepoint attrs (none may be written) */
	bool samples_only;
	/* cpu-clock: the sampling period in ns (0: 1 ms), or with clock_freq the frequency */
	uint64_t clock_period;
	bool clock_freq;
	/* the recorder's version feature ("rsp 0.1": a file rsp record wrote), pipe mode;
	 * NULL: none */
	const char *version;
};

struct synth *synth_new(const struct synth_opts *o);
/*
 * A pipe-mode stream @in as perf record -z writes it: its records after the
 * header records as PERF_RECORD_COMPRESSED records of one zstd stream, cut
 * every @piece input bytes (so records straddle compressed records).
 * @corrupt flips a byte in the second compressed record.  malloc'd; NULL on
 * failure.
 */
unsigned char *synth_compress(const void *in, size_t len, size_t piece, bool corrupt,
			      size_t *out_len);
/*
 * The same; with @interleave, a 16-byte FINISHED_ROUND record, not
 * compressed, follows each compressed record but the last (as perf record -z
 * writes them), its payload SYNTH_ROUND_MARK | the compressed record's index.
 */
#define SYNTH_ROUND_MARK 0x5e5e000000000000ull
unsigned char *synth_compress_ex(const void *in, size_t len, size_t piece, bool corrupt,
				 bool interleave, size_t *out_len);
/*
 * The same as rsp record writes it: the zstd frame ends at the first record
 * boundary past @frame input bytes, so each frame holds whole records and
 * inflates on its own.
 */
unsigned char *synth_compress_framed(const void *in, size_t len, size_t piece, size_t frame,
				     bool corrupt, size_t *out_len);
void synth_free(struct synth *s);

/* The finished file (valid until synth_free). */
const void *synth_finish(struct synth *s, size_t *len);

/* side-band */
void synth_comm(struct synth *s, uint64_t t, int pid, int tid, const char *comm, bool exec);
/* A COMM record without its sample_id_all trailer: no time (as a kernel's without it) */
void synth_comm_untimed(struct synth *s, int pid, int tid, const char *comm);
void synth_fork(struct synth *s, uint64_t t, int pid, int ppid, int tid, int ptid);
void synth_exit(struct synth *s, uint64_t t, int pid, int tid);
/* A process's executable map of @path (PERF_RECORD_MMAP2 without a build id). */
void synth_mmap2(struct synth *s, uint64_t t, int pid, uint64_t start, uint64_t len,
		 uint64_t pgoff, const char *path);
void synth_lost(struct synth *s, uint64_t t, int cpu, uint64_t n);
/* with rsp_rings: @n records lost in the target's ring of @cpu (its LOST record) */
void synth_lost_target(struct synth *s, uint64_t t, int cpu, uint64_t n);
/* A shed span of the CPU sampler (rsp record under memory pressure): a
 * PERF_RECORD_LOST_SAMPLES with RSP_PF_MISC_SHED_BEGIN at its start, one
 * without it and the kernel's count of what was missed (@n) at its end. */
void synth_shed(struct synth *s, uint64_t t, int cpu, uint64_t n, bool begin);
void synth_round(struct synth *s);
void synth_targets(struct synth *s, const int *pids, size_t n);

/* events; @tid is the task in whose context the event fires (common_pid) */
void synth_switch(struct synth *s, int cpu, uint64_t t, int prev, const char *prev_comm,
		  long prev_state, int next, const char *next_comm);
/* The same with the switch-out stack (perf's callchain, leaf first) given. */
/* with rsp_rings: the target's copy of a switch (the inherited attr's) */
void synth_switch_copy(struct synth *s, int cpu, uint64_t t, int prev, const char *prev_comm,
		       long prev_state, int next, const char *next_comm);
void synth_switch_stack(struct synth *s, int cpu, uint64_t t, int prev, const char *prev_comm,
			long prev_state, int next, const char *next_comm, const uint64_t *stack,
			size_t nstack);
/*
 * The same with a user-stack copy (synth_opts.user_stack): @regs are BP, SP
 * and IP; @copy_size bytes of @copy are written, of which the kernel says
 * @dyn_size are valid.
 */
void synth_switch_ustack(struct synth *s, int cpu, uint64_t t, int prev, const char *prev_comm,
			 long prev_state, int next, const char *next_comm, const uint64_t *stack,
			 size_t nstack, const uint64_t regs[3], const void *copy, size_t copy_size,
			 uint64_t dyn_size);
/* common_preempt_count of the tracepoints written from now on (default 0) */
void synth_preempt_count(struct synth *s, unsigned n);
/* @attr2: write it as the second sched_waking attr (the ftrace copy) */
void synth_waking(struct synth *s, int cpu, uint64_t t, int tid, unsigned flags, int pid,
		  const char *comm, int target_cpu, bool attr2, const uint64_t *stack,
		  size_t nstack);
void synth_wakeup(struct synth *s, int cpu, uint64_t t, int tid, unsigned flags, int pid,
		  int target_cpu);
void synth_wakeup_new(struct synth *s, int cpu, uint64_t t, int tid, int pid, int target_cpu);
void synth_fork_tp(struct synth *s, int cpu, uint64_t t, int parent, int child,
		   const char *child_comm);
void synth_exec_tp(struct synth *s, int cpu, uint64_t t, int pid, const char *filename);
/* the same from the second attr (second_exec_attr): no stack */
void synth_exec_tp_copy(struct synth *s, int cpu, uint64_t t, int pid, const char *filename);
void synth_exit_tp(struct synth *s, int cpu, uint64_t t, int pid);
void synth_block(struct synth *s, enum synth_ev which, int cpu, uint64_t t, int tid,
		 unsigned flags, uint32_t dev, uint64_t sector, uint32_t nr, const char *rwbs);
void synth_irq(struct synth *s, enum synth_ev which, int cpu, uint64_t t, int irq,
	       const char *name);
void synth_softirq(struct synth *s, enum synth_ev which, int cpu, uint64_t t, int tid,
		   unsigned vec);
/* the AF_INET socket events written from now on are UDP's (@on), else TCP's (the default) */
void synth_sock_udp(struct synth *s, bool on);
void synth_sock_send(struct synth *s, int cpu, uint64_t t, int tid, uint64_t sk, int family,
		     int len);
/* sock:sock_recv_length: @tid's receive of @len bytes (negative: an error) on @sk */
void synth_sock_recv(struct synth *s, int cpu, uint64_t t, int tid, uint64_t sk, int family,
		     int len);
void synth_sk_ready(struct synth *s, int cpu, uint64_t t, int tid, unsigned flags, uint64_t sk,
		    int family);
void synth_sock_state(struct synth *s, int cpu, uint64_t t, int tid, uint64_t sk,
		      const uint8_t saddr[4], uint16_t sport, const uint8_t daddr[4],
		      uint16_t dport, int newstate);
void synth_sample(struct synth *s, int cpu, uint64_t t, int pid, int tid, const uint64_t *ips,
		  size_t n);

/*
 * The tracing data (formats, kallsyms) as a record among the others: as
 * HEADER_FEATURE (its size covers it) or HEADER_TRACING_DATA (its payload
 * follows the record); @garbage: bytes that are no tracing data.
 */
void synth_tracing_data_record(struct synth *s, bool feature, bool garbage);
/* A PERF_RECORD_AUXTRACE record and the @payload bytes of trace data after it. */
/* a record as given (its header included; @len a multiple of 8), untimed */
void synth_raw(struct synth *s, const void *rec, size_t len);
/* rsp record's command-line record (format/rsp-cmdline-format.h) of @argv (@len
 * bytes, its NULs included; the command line's own length @full_len): into
 * @out (40 + @len + 8 bytes), its size; or added to the stream, untimed */
size_t synth_cmdline_record(unsigned char *out, uint64_t t, uint32_t pid, const char *argv,
			    uint32_t len, uint32_t full_len);
void synth_cmdline(struct synth *s, uint64_t t, uint32_t pid, const char *argv, uint32_t len,
		   uint32_t full_len);
void synth_auxtrace(struct synth *s, size_t payload);

/* Write records of one round in a scrambled order (CPU buffers drained in turns). */
void synth_scramble_rounds(struct synth *s, bool on);

#endif /* RSP_TEST_SYNTH_PERF_H */
