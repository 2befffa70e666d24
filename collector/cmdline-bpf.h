/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RSP_COLLECTOR_CMDLINE_BPF_H
#define RSP_COLLECTOR_CMDLINE_BPF_H

/* One exec, as cmdline.bpf.c puts it in its ring for cmdline.c. */
#define CMDLINE_MAX 4096 /* RSP_CMDLINE_MAX */

struct rsp_cmdline_event {
	__u64 time; /* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
	__u32 pid;
	__u32 len; /* bytes read into argv; 0 if unreadable */
	__u32 full_len; /* arg_end - arg_start */
	__u32 res;
	char argv[CMDLINE_MAX];
};

#endif /* RSP_COLLECTOR_CMDLINE_BPF_H */
