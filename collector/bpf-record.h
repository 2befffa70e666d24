/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What rsp's BPF program (sched.bpf.c) writes into its ring buffer, one
 * record per scheduler event, and what the reader (bpfsched.c) turns into the
 * perf samples the file holds.  Shared by both sides: plain fixed-width types.
 *
 * A record: the header, the tracepoint's payload as the kernel's own record
 * would hold it after its common header (raw_size bytes, in raw_room), the
 * kernel frames, the user frames (frame pointers), and for a copy the user
 * registers (the RSP_BPF_NREGS of PERF_REG_X86_* in the x86-64 mask the
 * recorder asks perf for, in that order) and copy_size bytes of user stack
 * from the stack pointer up.
 */
#ifndef RSP_COLLECTOR_BPF_RECORD_H
#define RSP_COLLECTOR_BPF_RECORD_H

enum rsp_bpf_kind {
	RSP_BPF_SWITCH, /* sched:sched_switch */
	RSP_BPF_WAKING, /* sched:sched_waking */
	RSP_BPF_KINDS
};

/* frames of each part, as perf's default kernel.perf_event_max_stack */
#define RSP_BPF_MAX_FRAMES 127
/* the payload's room: sched_switch's is 56 bytes on 6.x kernels */
#define RSP_BPF_RAW_ROOM 64
/* x86-64: AX BX CX DX SI DI BP SP IP FLAGS CS SS R8..R15 (mask 0xff0fff) */
#define RSP_BPF_NREGS 20
/* the largest user-stack copy the program takes */
#define RSP_BPF_MAX_COPY 16384
/* counters per CPU in the program's data: the CPUs it counts apart */
#define RSP_BPF_MAX_CPUS 1024

/* header.flags: trace_entry.common_flags' context bits (kernel/trace/trace.h) */
#define RSP_BPF_CTX_HARDIRQ 0x08
#define RSP_BPF_CTX_SOFTIRQ 0x10
#define RSP_BPF_CTX_NMI 0x40

struct rsp_bpf_rec {
	unsigned short kind; /* enum rsp_bpf_kind */
	unsigned char flags; /* RSP_BPF_CTX_* */
	unsigned char has_regs; /* registers and a copy follow the frames */
	unsigned int cpu;
	unsigned long long time; /* CLOCK_MONOTONIC, ns */
	unsigned int pid, tid; /* the current task's process and thread */
	unsigned short raw_size; /* payload bytes (the tracepoint's record minus 8) */
	unsigned short nk, nu; /* kernel frames, user frames */
	unsigned short pad;
	unsigned int copy_size; /* user-stack bytes copied */
	unsigned int copy_req; /* bytes the copy could have held */
	/* a switch: the CPU time of the run that ends (the previous task's, on
	 * the fair class), as sched_stat_runtime would have summed it; 0: none */
	unsigned long long runtime;
	/* then raw[RSP_BPF_RAW_ROOM], kips[nk], uips[nu], regs[RSP_BPF_NREGS], copy[copy_size] */
};

/* per-CPU counters in the program's data section, read by the recorder */
struct rsp_bpf_counts {
	unsigned long long hits[RSP_BPF_KINDS]; /* the tracepoint fired */
	unsigned long long lost[RSP_BPF_KINDS]; /* no room in the ring: not recorded */
	unsigned long long copy_failed; /* a user-stack copy the kernel could not read */
	unsigned long long pad[3];
};

#endif /* RSP_COLLECTOR_BPF_RECORD_H */
