/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rsp's BPF program: the scheduler's switches and wakeups with their stacks,
 * into one ring buffer the recorder reads (bpf-record.h).
 *
 * perf delivers a tracepoint sample with a callchain through its whole sample
 * path: an output record per event, a ring per CPU, wakeups of the reader.
 * Here the kernel walks the same stacks (bpf_get_stack: perf's own callchain
 * code) and writes one compact record; the reader is woken only when a
 * quarter of the ring is waiting.  The target's user-stack copies (for DWARF
 * unwinding of its sleeps) are cut in the kernel to the live stack: from the
 * stack pointer to a main thread's startstack, or to the top of another
 * thread's stack mapping, plus RSP_USTACK_MARGIN.
 *
 * The payload of each record is the tracepoint's own (include/trace/events/
 * sched.h), field by field, so that the file holds the samples a perf
 * tracepoint event would; tests/record/bpf.sh checks it against ftrace's copy
 * of the same events on the running kernel.
 *
 * x86-64 only (the user registers), BTF-enabled kernels with sched_switch's
 * prev_state argument (5.18 and later); elsewhere the recorder falls back to
 * perf (record-events.c).
 */
#include <linux/bpf.h>
#include <linux/types.h>
#include <stdbool.h>

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "bpf-record.h"

char LICENSE[] SEC("license") = "GPL";

/* The kernel's types, as far as the program reads them (CO-RE relocates). */
struct mm_struct {
	unsigned long start_stack;
} __attribute__((preserve_access_index));

struct thread_info {
	unsigned int cpu;
} __attribute__((preserve_access_index));

struct cfs_rq {
	struct rq *rq; /* CONFIG_FAIR_GROUP_SCHED */
} __attribute__((preserve_access_index));

struct rq {
	struct cfs_rq cfs;
} __attribute__((preserve_access_index));

struct sched_entity {
	struct cfs_rq *cfs_rq;
	unsigned long long sum_exec_runtime;
	unsigned long long prev_sum_exec_runtime; /* at the pick: this run's start */
} __attribute__((preserve_access_index));

struct task_struct {
	struct thread_info thread_info;
	struct sched_entity se;
	unsigned int cpu; /* kernels that keep task_cpu() here */
	int prio;
	int exit_state;
	int pid;
	int tgid;
	char comm[16];
	struct mm_struct *mm;
} __attribute__((preserve_access_index));

struct pt_regs {
	unsigned long r15, r14, r13, r12, bp, bx, r11, r10, r9, r8;
	unsigned long ax, cx, dx, si, di, orig_ax, ip, cs, flags, sp, ss;
} __attribute__((preserve_access_index));

struct vm_area_struct {
	unsigned long vm_start, vm_end;
} __attribute__((preserve_access_index));

/*
 * The preempt count (interrupt or task context): a per-CPU variable whose
 * address on this CPU is its runqueue's address plus the distance between
 * the two in the kernel's per-CPU section (from its BTF; kallsyms does not
 * list data without CONFIG_KALLSYMS_ALL, so neither can the verifier).
 */
const volatile __s64 preempt_delta = 0; /* &__preempt_count - &runqueues; 0: unknown */
const volatile bool rq_in_cfs_rq = true; /* cfs_rq->rq exists (else rq embeds its cfs_rq) */

/* set by the recorder before loading */
const volatile unsigned int copy_bytes = 8192; /* user-stack copies: at most this (0: none) */
const volatile bool copy_all = false; /* every thread's sleeps, not only the targets' */
const volatile bool want_runtime = false; /* each run's CPU time with its switch-out */
const volatile unsigned long long wakeup_bytes = 8 << 20; /* wake the reader with this much waiting */

#define MARGIN 128 /* RSP_USTACK_MARGIN (ustack.h) */
#define FRAMES_BYTES (RSP_BPF_MAX_FRAMES * 8)
#define REGS_BYTES (RSP_BPF_NREGS * 8)

/* preempt_count bits (include/linux/preempt.h) */
#define SOFTIRQ_OFFSET 0x100
#define HARDIRQ_MASK 0xf0000
#define NMI_MASK 0xf00000

/* task states (include/linux/sched.h), as __trace_sched_switch_state() reports them */
#define TASK_REPORT 0x7f
#define TASK_REPORT_IDLE 0x80
#define TASK_REPORT_MAX 0x100
#define TASK_IDLE 0x402
#define TASK_UNINTERRUPTIBLE 0x2
#define TASK_RTLOCK_WAIT 0x1000
#define TASK_FROZEN 0x8000

enum { TARGET_ON = 1, TARGET_AT_EXEC = 2 };

struct scratch {
	struct rsp_bpf_rec h;
	unsigned char raw[RSP_BPF_RAW_ROOM];
	unsigned char rest[2 * FRAMES_BYTES + REGS_BYTES + RSP_BPF_MAX_COPY];
};

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 32 << 20); /* the recorder sets its size */
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch);
} scratch SEC(".maps");

/* the target processes (tgid), whose sleeps get user-stack copies */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u32);
} targets SEC(".maps");

/* where a thread's stack ends (the top of its stack mapping), by tid */
struct stack_top {
	__u64 mm;
	__u64 lo, hi;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, struct stack_top);
} stack_tops SEC(".maps");

struct rsp_bpf_counts counts[RSP_BPF_MAX_CPUS];

static __always_inline struct rsp_bpf_counts *my_counts(__u32 cpu)
{
	return &counts[cpu & (RSP_BPF_MAX_CPUS - 1)];
}

/* this CPU's preempt count, through the current task's runqueue */
static __always_inline unsigned int preempt_count(void)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct cfs_rq *cfs = BPF_CORE_READ(cur, se.cfs_rq);
	unsigned int pc = 0;
	__u64 rq;

	if (!cfs)
		return 0;
	if (rq_in_cfs_rq)
		rq = (__u64)BPF_CORE_READ(cfs, rq);
	else
		rq = (__u64)cfs - bpf_core_field_offset(struct rq, cfs);
	if (rq)
		bpf_probe_read_kernel(&pc, sizeof(pc), (void *)(rq + preempt_delta));
	return pc;
}

/* trace_entry.common_flags' context bits, as tracing_gen_ctx() sets them */
static __always_inline unsigned char ctx_flags(void)
{
	unsigned int pc = preempt_count();
	unsigned char f = 0;

	if (pc & NMI_MASK)
		f |= RSP_BPF_CTX_NMI;
	if (pc & HARDIRQ_MASK)
		f |= RSP_BPF_CTX_HARDIRQ;
	if (pc & SOFTIRQ_OFFSET)
		f |= RSP_BPF_CTX_SOFTIRQ;
	return f;
}

/* __trace_sched_switch_state() */
static __always_inline long switch_state(bool preempt, unsigned int prev_state, int exit_state)
{
	unsigned int state;

	if (preempt)
		return TASK_REPORT_MAX;
	state = (prev_state | (unsigned int)exit_state) & TASK_REPORT;
	if ((prev_state & TASK_IDLE) == TASK_IDLE)
		state = TASK_REPORT_IDLE;
	if (prev_state & (TASK_RTLOCK_WAIT | TASK_FROZEN))
		state = TASK_UNINTERRUPTIBLE;
	if (!state)
		return 0;
	/* 1 << (fls(state) - 1): the highest bit */
	for (int b = 7; b >= 0; b--)
		if (state & (1u << b))
			return 1l << b;
	return 0;
}

static __always_inline int task_cpu(struct task_struct *p)
{
	if (bpf_core_field_exists(p->thread_info.cpu))
		return (int)BPF_CORE_READ(p, thread_info.cpu);
	return (int)BPF_CORE_READ(p, cpu);
}

static long vma_top(struct task_struct *task, struct vm_area_struct *vma, void *data)
{
	struct stack_top *t = data;

	t->lo = vma->vm_start;
	t->hi = vma->vm_end;
	return 0;
}

/* Where the live part of @task's user stack at @sp ends; 0 if unknown. */
static __always_inline __u64 live_top(struct task_struct *task, __u64 sp)
{
	struct mm_struct *mm = task->mm;
	__u32 tid = (__u32)task->pid;
	struct stack_top t = { 0 }, *c;

	if (task->pid == task->tgid) {
		__u64 start = BPF_CORE_READ(mm, start_stack);

		if (sp < start && start - sp <= RSP_BPF_MAX_COPY)
			return start + MARGIN;
	}
	c = bpf_map_lookup_elem(&stack_tops, &tid);
	if (c && c->mm == (__u64)mm && sp >= c->lo && sp < c->hi)
		return c->hi;
	if (bpf_find_vma(task, sp, vma_top, &t, 0) || !t.hi)
		return 0;
	t.mm = (__u64)mm;
	bpf_map_update_elem(&stack_tops, &tid, &t, BPF_ANY);
	return t.hi;
}

static __always_inline bool wants_copy(struct task_struct *task)
{
	__u32 tgid = (__u32)task->tgid;
	__u32 *v;

	if (!copy_bytes || !task->mm)
		return false;
	if (copy_all)
		return true;
	v = bpf_map_lookup_elem(&targets, &tgid);
	return v && *v == TARGET_ON;
}

/*
 * The registers and the live stack of @task (the current task) after the
 * frames at @off; the bytes written, 0 for none.
 */
static __always_inline __u32 put_copy(struct scratch *s, __u32 off, struct task_struct *task,
				      struct rsp_bpf_counts *cnt)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	__u64 *rg, sp, top, len;

	if (!regs || off > 2 * FRAMES_BYTES)
		return 0;
	rg = (__u64 *)&s->rest[off];
	rg[0] = regs->ax;
	rg[1] = regs->bx;
	rg[2] = regs->cx;
	rg[3] = regs->dx;
	rg[4] = regs->si;
	rg[5] = regs->di;
	rg[6] = regs->bp;
	rg[7] = regs->sp;
	rg[8] = regs->ip;
	rg[9] = regs->flags;
	rg[10] = regs->cs;
	rg[11] = regs->ss;
	rg[12] = regs->r8;
	rg[13] = regs->r9;
	rg[14] = regs->r10;
	rg[15] = regs->r11;
	rg[16] = regs->r12;
	rg[17] = regs->r13;
	rg[18] = regs->r14;
	rg[19] = regs->r15;
	sp = regs->sp;
	top = live_top(task, sp);
	len = top > sp ? top - sp : copy_bytes;
	if (len > copy_bytes)
		len = copy_bytes;
	len = (len + 7) & ~7ull;
	if (len > RSP_BPF_MAX_COPY)
		len = RSP_BPF_MAX_COPY;
	s->h.has_regs = 1;
	s->h.copy_req = copy_bytes;
	s->h.copy_size = 0;
	if (len && bpf_probe_read_user(&s->rest[off + REGS_BYTES], len, (void *)sp) == 0) {
		s->h.copy_size = (__u32)len;
	} else if (!top) {
		/*
		 * Where the stack ends is unknown (its mapping was busy) and the
		 * copy ran past it: a shorter one, down to the end of the page the
		 * stack pointer is in
		 */
		len = len > 4096 ? 4096 : len;
		while (len > 512 && bpf_probe_read_user(&s->rest[off + REGS_BYTES],
						       len & (RSP_BPF_MAX_COPY - 1), (void *)sp))
			len >>= 1;
		if (len <= 512) {
			len = 4096 - (sp & 4095);
			if (bpf_probe_read_user(&s->rest[off + REGS_BYTES], len & 4095, (void *)sp))
				len = 0;
		}
		s->h.copy_size = (__u32)(len & (RSP_BPF_MAX_COPY - 1));
	}
	if (!s->h.copy_size)
		cnt->copy_failed++;
	return REGS_BYTES + s->h.copy_size;
}

/* The frames of the current task after the payload: kernel, then user (frame pointers). */
static __always_inline __u32 put_frames(void *ctx, struct scratch *s, bool user)
{
	long kb, ub = 0;

	kb = bpf_get_stack(ctx, s->rest, FRAMES_BYTES, 0);
	if (kb < 0 || kb > FRAMES_BYTES)
		kb = 0;
	if (user) {
		ub = bpf_get_stack(ctx, &s->rest[kb], FRAMES_BYTES, BPF_F_USER_STACK);
		if (ub < 0 || ub > FRAMES_BYTES)
			ub = 0;
	}
	s->h.nk = (unsigned short)((unsigned long)kb >> 3);
	s->h.nu = (unsigned short)((unsigned long)ub >> 3);
	return (__u32)(kb + ub);
}

static __always_inline void send(struct scratch *s, __u32 rest, struct rsp_bpf_counts *cnt,
				 int kind)
{
	__u64 size = sizeof(s->h) + sizeof(s->raw) + rest, flags = BPF_RB_NO_WAKEUP;

	if (size > sizeof(*s))
		return;
	if (bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) + size >= wakeup_bytes)
		flags = BPF_RB_FORCE_WAKEUP;
	if (bpf_ringbuf_output(&events, s, size, flags))
		cnt->lost[kind & 1]++;
}

static __always_inline struct scratch *begin(int kind, struct rsp_bpf_counts *cnt, __u32 cpu,
					     bool want_ctx)
{
	__u32 zero = 0;
	struct scratch *s = bpf_map_lookup_elem(&scratch, &zero);
	__u64 pt = bpf_get_current_pid_tgid();

	cnt->hits[kind & 1]++;
	if (!s)
		return 0;
	s->h.kind = (unsigned short)kind;
	/* a switch is in a task's context always */
	s->h.flags = want_ctx ? ctx_flags() : 0;
	s->h.has_regs = 0;
	s->h.cpu = cpu;
	s->h.time = bpf_ktime_get_ns();
	s->h.pid = (__u32)(pt >> 32);
	s->h.tid = (__u32)pt;
	s->h.nk = s->h.nu = 0;
	s->h.copy_size = s->h.copy_req = 0;
	s->h.runtime = 0;
	return s;
}

/* struct trace_event_raw_sched_switch after its common header */
struct sw_payload {
	char prev_comm[16];
	int prev_pid;
	int prev_prio;
	long prev_state;
	char next_comm[16];
	int next_pid;
	int next_prio;
};

SEC("tp_btf/sched_switch")
int BPF_PROG(rsp_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	__u32 cpu = bpf_get_smp_processor_id(), rest = 0;
	struct rsp_bpf_counts *cnt = my_counts(cpu);
	struct scratch *s = begin(RSP_BPF_SWITCH, cnt, cpu, false);
	struct sw_payload *p;

	if (!s)
		return 0;
	p = (struct sw_payload *)s->raw;
	bpf_probe_read_kernel(p->prev_comm, 16, prev->comm);
	p->prev_pid = prev->pid;
	p->prev_prio = prev->prio;
	p->prev_state = switch_state(preempt, prev_state, prev->exit_state);
	bpf_probe_read_kernel(p->next_comm, 16, next->comm);
	p->next_pid = next->pid;
	p->next_prio = next->prio;
	s->h.raw_size = sizeof(*p);
	/*
	 * The run that ends: its CPU time since the fair class picked it (the
	 * sum of what sched_stat_runtime reports at every tick and switch of
	 * it; real-time classes do not mark their picks)
	 */
	if (want_runtime && prev->pid && prev->prio >= 100)
		s->h.runtime = prev->se.sum_exec_runtime - prev->se.prev_sum_exec_runtime;
	/* the idle task's stack says nothing; a copy of the live user stack
	 * unwinds in full with DWARF, where frame pointers would stop early */
	if (prev->pid) {
		bool copy = wants_copy(prev);

		rest = put_frames(ctx, s, prev->mm && !copy);
		if (copy)
			rest += put_copy(s, rest, prev, cnt);
	}
	send(s, rest, cnt, RSP_BPF_SWITCH);
	return 0;
}

/* struct trace_event_raw_sched_wakeup_template after its common header */
struct wk_payload {
	char comm[16];
	int pid;
	int prio;
	int target_cpu;
};

SEC("tp_btf/sched_waking")
int BPF_PROG(rsp_waking, struct task_struct *p)
{
	__u32 cpu = bpf_get_smp_processor_id(), rest;
	struct rsp_bpf_counts *cnt = my_counts(cpu);
	struct scratch *s = begin(RSP_BPF_WAKING, cnt, cpu, true);
	struct task_struct *cur;
	struct wk_payload *w;

	if (!s)
		return 0;
	w = (struct wk_payload *)s->raw;
	bpf_probe_read_kernel(w->comm, 16, p->comm);
	w->pid = p->pid;
	w->prio = p->prio;
	w->target_cpu = task_cpu(p);
	s->h.raw_size = sizeof(*w);
	cur = bpf_get_current_task_btf();
	/* in an interrupt the kernel frames are the interrupt's, the user
	 * frames the interrupted task's, as perf's callchain */
	rest = put_frames(ctx, s, s->h.tid && cur->mm);
	send(s, rest, cnt, RSP_BPF_WAKING);
	return 0;
}

/* a target's child processes are targets too (perf's inherit) */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(rsp_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = (__u32)parent->tgid, c = (__u32)child->pid;
	__u32 *v;

	if (child->pid != child->tgid)
		return 0; /* a thread: its process is a target or not already */
	v = bpf_map_lookup_elem(&targets, &ptgid);
	if (v)
		bpf_map_update_elem(&targets, &c, v, BPF_ANY);
	return 0;
}

/* a command's copies start at its exec, as perf's enable_on_exec */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(rsp_exec, struct task_struct *p)
{
	__u32 tgid = (__u32)p->tgid;
	__u32 *v = bpf_map_lookup_elem(&targets, &tgid);

	if (v && *v == TARGET_AT_EXEC)
		*v = TARGET_ON;
	return 0;
}
