/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The command line of every process at its exec (collector/cmdline.c): the new
 * image's argv, read from its stack between mm->arg_start and mm->arg_end when
 * sched_process_exec fires (the exec is done, the process not yet running), up
 * to CMDLINE_MAX bytes.  Read here, not from /proc/PID/cmdline afterwards, it
 * is there for a process that exits at once.
 */
#include <linux/bpf.h>
#include <linux/types.h>

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "cmdline-bpf.h"

char LICENSE[] SEC("license") = "GPL";

struct mm_struct {
	unsigned long arg_start, arg_end;
} __attribute__((preserve_access_index));

struct task_struct {
	int pid;
	int tgid;
	struct mm_struct *mm;
} __attribute__((preserve_access_index));

/* 256 KiB: the reader thread wakes at each record; a record is its command
 * line's length (hundreds of bytes), not the 4 KiB bound */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 << 10);
} cmdlines SEC(".maps");

/* where a record is made before it goes into the ring at its own length */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rsp_cmdline_event);
} scratch SEC(".maps");

__u64 lost; /* command lines the ring had no room for */

SEC("tp_btf/sched_process_exec")
int BPF_PROG(rsp_cmdline_exec, struct task_struct *p)
{
	struct mm_struct *mm = p->mm;
	struct rsp_cmdline_event *e;
	unsigned long start, end, len, got = 0, size;
	__u32 zero = 0;

	e = bpf_map_lookup_elem(&scratch, &zero);
	if (!mm || !e)
		return 0;
	start = BPF_CORE_READ(mm, arg_start);
	end = BPF_CORE_READ(mm, arg_end);
	e->time = bpf_ktime_get_ns();
	e->pid = (__u32)p->tgid;
	len = end > start ? end - start : 0;
	e->full_len = (__u32)len;
	if (len > CMDLINE_MAX)
		len = CMDLINE_MAX;
	if (len && !bpf_probe_read_user(e->argv, len & (CMDLINE_MAX * 2 - 1), (void *)start))
		got = len;
	e->len = (__u32)got;
	e->res = 0;
	size = sizeof(*e) - CMDLINE_MAX + got;
	if (size > sizeof(*e))
		size = sizeof(*e);
	if (bpf_ringbuf_output(&cmdlines, e, size, 0))
		__sync_fetch_and_add(&lost, 1);
	return 0;
}
