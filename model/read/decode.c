/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "read/decode.h"

#include "rsp-time.h"

#include <stdlib.h>
#include <stdio.h>
#include <stddef.h>
#include <string.h>

/* Context bits of trace_entry.common_flags (kernel/trace/trace.h): the same
 * values since 2.6 for these three. */
#define TRACE_FLAG_HARDIRQ 0x08
#define TRACE_FLAG_SOFTIRQ 0x10
#define TRACE_FLAG_NMI 0x40

struct known {
	const char *system, *name;
	enum rsp_tp_kind kind;
	const char *fields[RSP_NF];
};

/* Field slots per kind; alternatives (kprobe probes) name their key the same way. */
static const struct known known[] = {
	{ "sched", "sched_switch", TP_SWITCH,
	  { "prev_pid", "prev_state", "next_pid", "prev_comm", "next_comm" } },
	{ "sched", "sched_waking", TP_WAKING, { "pid", "target_cpu", "comm" } },
	{ "sched", "sched_wakeup", TP_WAKEUP, { "pid", "target_cpu", "comm" } },
	{ "sched", "sched_wakeup_new", TP_WAKEUP_NEW, { "pid", "target_cpu", "comm" } },
	{ "sched", "sched_process_fork", TP_FORK, { "parent_pid", "child_pid", "child_comm" } },
	{ "sched", "sched_process_exec", TP_EXEC, { "pid", "old_pid", "filename" } },
	{ "sched", "sched_process_exit", TP_EXIT, { "pid" } },
	{ "block", "block_rq_insert", TP_BLK_INSERT, { "dev", "sector", "nr_sector", "rwbs" } },
	{ "block", "block_rq_issue", TP_BLK_ISSUE, { "dev", "sector", "nr_sector", "rwbs" } },
	{ "block", "block_rq_complete", TP_BLK_COMPLETE,
	  { "dev", "sector", "nr_sector", "rwbs", "error" } },
	{ "irq", "irq_handler_entry", TP_IRQ_ENTRY, { "irq", "name" } },
	{ "irq", "irq_handler_exit", TP_IRQ_EXIT, { "irq" } },
	{ "irq", "softirq_entry", TP_SOFTIRQ_ENTRY, { "vec" } },
	{ "irq", "softirq_exit", TP_SOFTIRQ_EXIT, { "vec" } },
	{ "sock", "sock_send_length", TP_SOCK_SEND, { "sk", "family", "protocol", "ret" } },
	{ "sock", "sock_recv_length", TP_SOCK_RECV, { "sk", "family", "protocol", "ret" } },
	{ "sock", "sk_data_ready", TP_SK_READY, { "skaddr", "family", "protocol" } },
	{ "sock", "inet_sock_set_state", TP_SOCK_STATE,
	  { "skaddr", "family", "protocol", "oldstate", "newstate", "sport", "dport", "saddr",
	    "daddr", "saddr_v6", "daddr_v6" } },
	{ "rsp", "tcp_sendmsg", TP_SOCK_SEND, { "sk" } },
	{ "rsp", "udp_sendmsg", TP_SOCK_SEND, { "sk" } },
	{ "rsp", "tcp_rcv_established", TP_SK_READY, { "skaddr" } },
	{ "rsp", "udp_queue_rcv_skb", TP_SK_READY, { "skaddr" } },
	{ "timer", "hrtimer_expire_entry", TP_HRTIMER_ENTRY, { "hrtimer" } },
	{ "timer", "hrtimer_expire_exit", TP_HRTIMER_EXIT, { "hrtimer" } },
	{ "timer", "timer_expire_entry", TP_TIMER_ENTRY, { "timer" } },
	{ "timer", "timer_expire_exit", TP_TIMER_EXIT, { "timer" } },
	{ "sched", "sched_stat_runtime", TP_STAT_RUNTIME, { "pid", "runtime" } },
};

static const char *const kind_names[TP__COUNT] = {
	[TP_NONE] = "none",
	[TP_SWITCH] = "sched_switch",
	[TP_WAKING] = "sched_waking",
	[TP_WAKEUP] = "sched_wakeup",
	[TP_WAKEUP_NEW] = "sched_wakeup_new",
	[TP_FORK] = "sched_process_fork",
	[TP_EXEC] = "sched_process_exec",
	[TP_EXIT] = "sched_process_exit",
	[TP_BLK_INSERT] = "block_rq_insert",
	[TP_BLK_ISSUE] = "block_rq_issue",
	[TP_BLK_COMPLETE] = "block_rq_complete",
	[TP_IRQ_ENTRY] = "irq_handler_entry",
	[TP_IRQ_EXIT] = "irq_handler_exit",
	[TP_SOFTIRQ_ENTRY] = "softirq_entry",
	[TP_SOFTIRQ_EXIT] = "softirq_exit",
	[TP_SOCK_SEND] = "sock_send_length",
	[TP_SOCK_RECV] = "sock_recv_length",
	[TP_SK_READY] = "sk_data_ready",
	[TP_SOCK_STATE] = "inet_sock_set_state",
	[TP_HRTIMER_ENTRY] = "hrtimer_expire_entry",
	[TP_HRTIMER_EXIT] = "hrtimer_expire_exit",
	[TP_TIMER_ENTRY] = "timer_expire_entry",
	[TP_TIMER_EXIT] = "timer_expire_exit",
	[TP_STAT_RUNTIME] = "sched_stat_runtime",
	[TP_OTHER] = "other",
};

const char *rsp_tp_kind_name(enum rsp_tp_kind k)
{
	return (unsigned)k < TP__COUNT && kind_names[k] ? kind_names[k] : "?";
}

static const char *sw_name(uint64_t config)
{
	switch (config) {
	case PERF_COUNT_SW_CPU_CLOCK:
		return "cpu-clock";
	case PERF_COUNT_SW_TASK_CLOCK:
		return "task-clock";
	case PERF_COUNT_SW_DUMMY:
		return "dummy";
	case PERF_COUNT_SW_CONTEXT_SWITCHES:
		return "context-switches";
	default:
		return "software";
	}
}

void rsp_decoder_init(struct rsp_decoder *d, const struct rsp_rattr *attr, struct tep_handle *tep)
{
	const struct perf_event_attr *a = &attr->attr;
	struct tep_format_field **fields;
	struct tep_event *ev;

	memset(d, 0, sizeof(*d));
	d->kind = TP_NONE;
	if (a->type == PERF_TYPE_SOFTWARE) {
		snprintf(d->name, sizeof(d->name), "%s", attr->name ? attr->name : sw_name(a->config));
		d->is_tracking = a->config == PERF_COUNT_SW_DUMMY;
		d->is_sampler = !d->is_tracking && (a->config == PERF_COUNT_SW_CPU_CLOCK ||
						    a->config == PERF_COUNT_SW_TASK_CLOCK);
		/* the clocks count nanoseconds: a fixed period is the time itself */
		if (d->is_sampler && a->freq)
			d->sample_ns = a->sample_freq ? RSP_NSEC_PER_SEC / a->sample_freq : 0;
		else if (d->is_sampler)
			d->sample_ns = a->sample_period;
		return;
	}
	if (a->type == PERF_TYPE_HARDWARE) {
		snprintf(d->name, sizeof(d->name), "%s", attr->name ? attr->name : "cycles");
		d->is_sampler = true;
		/* in frequency mode the kernel keeps a sample per 1/F of the task's CPU
		 * time; a fixed period of cycles or instructions is no time */
		d->sample_ns = a->freq && a->sample_freq ? RSP_NSEC_PER_SEC / a->sample_freq : 0;
		return;
	}
	if (a->type != PERF_TYPE_TRACEPOINT) {
		snprintf(d->name, sizeof(d->name), "%s",
			 attr->name ? attr->name : "unknown event type");
		return;
	}
	d->tp_id = a->config;
	ev = tep ? tep_find_event(tep, (int)a->config) : NULL;
	if (!ev) {
		snprintf(d->name, sizeof(d->name), "tracepoint %llu (no format in the file)",
			 (unsigned long long)a->config);
		return;
	}
	snprintf(d->name, sizeof(d->name), "%s:%s", ev->system, ev->name);
	d->kind = TP_OTHER;
	rsp_field_resolve(ev, "common_pid", &d->common_pid);
	rsp_field_resolve(ev, "common_flags", &d->common_flags);
	d->payload_off = 0;
	fields = tep_event_fields(ev); /* the event's own fields, not the common ones */
	for (int i = 0; fields && fields[i]; i++)
		if (fields[i]->offset > 0 &&
		    (!d->payload_off || (uint32_t)fields[i]->offset < d->payload_off))
			d->payload_off = (uint32_t)fields[i]->offset;
	free(fields);
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		const struct known *k = &known[i];

		if (strcmp(k->system, ev->system) || strcmp(k->name, ev->name))
			continue;
		d->kind = k->kind;
		for (int f = 0; f < RSP_NF && k->fields[f]; f++)
			rsp_field_resolve(ev, k->fields[f], &d->f[f]);
		break;
	}
}

static inline __attribute__((always_inline)) uint64_t u(const struct rsp_decoder *d, int f,
							 const struct rsp_sample *s, uint64_t dflt)
{
	uint64_t v;

	return rsp_field_u64(&d->f[f], s->raw, s->raw_size, &v) ? v : dflt;
}

static void str(const struct rsp_decoder *d, int f, const struct rsp_sample *s, char *buf,
		size_t len)
{
	rsp_field_str(&d->f[f], s->raw, s->raw_size, buf, len);
}

static void addr(const struct rsp_decoder *d, int f, const struct rsp_sample *s, uint8_t *out,
		 size_t n)
{
	const void *p;
	size_t got = rsp_field_bytes(&d->f[f], s->raw, s->raw_size, &p);

	if (got >= n && p)
		memcpy(out, p, n);
}

bool rsp_decode(const struct rsp_decoder *d, const struct rsp_sample *s, struct rsp_dev *o)
{
	uint64_t v;

	/* the header and the kind's member only: a walk's op holds the whole union */
	memset(o, 0, offsetof(struct rsp_dev, u));
	o->kind = d->kind;
	o->tid = s->tid;
	if (d->kind == TP_NONE)
		return true;
	if (!s->raw)
		return false;
	if (rsp_field_u64(&d->common_pid, s->raw, s->raw_size, &v))
		o->tid = (uint32_t)v;
	if (rsp_field_u64(&d->common_flags, s->raw, s->raw_size, &v)) {
		if (v & TRACE_FLAG_NMI)
			o->ctx = RSP_CTX_NMI;
		else if (v & TRACE_FLAG_HARDIRQ)
			o->ctx = RSP_CTX_HARDIRQ;
		else if (v & TRACE_FLAG_SOFTIRQ)
			o->ctx = RSP_CTX_SOFTIRQ;
	}
	switch (d->kind) {
	case TP_SWITCH:
		if (!d->f[0].found || !d->f[2].found)
			return false;
		memset(&o->u.sw, 0, sizeof(o->u.sw));
		o->u.sw.prev = (uint32_t)u(d, 0, s, 0);
		o->u.sw.prev_state = u(d, 1, s, 0);
		o->u.sw.next = (uint32_t)u(d, 2, s, 0);
		str(d, 3, s, o->u.sw.prev_comm, sizeof(o->u.sw.prev_comm));
		str(d, 4, s, o->u.sw.next_comm, sizeof(o->u.sw.next_comm));
		return true;
	case TP_WAKING:
	case TP_WAKEUP:
	case TP_WAKEUP_NEW:
		if (!d->f[0].found)
			return false;
		memset(&o->u.wake, 0, sizeof(o->u.wake));
		o->u.wake.pid = (uint32_t)u(d, 0, s, 0);
		o->u.wake.target_cpu = (int32_t)u(d, 1, s, (uint64_t)-1);
		str(d, 2, s, o->u.wake.comm, sizeof(o->u.wake.comm));
		return true;
	case TP_FORK:
		if (!d->f[0].found || !d->f[1].found)
			return false;
		memset(&o->u.fork, 0, sizeof(o->u.fork));
		o->u.fork.parent = (uint32_t)u(d, 0, s, 0);
		o->u.fork.child = (uint32_t)u(d, 1, s, 0);
		str(d, 2, s, o->u.fork.child_comm, sizeof(o->u.fork.child_comm));
		return true;
	case TP_EXEC:
		memset(&o->u.exec, 0, sizeof(o->u.exec));
		o->u.exec.pid = (uint32_t)u(d, 0, s, o->tid);
		o->u.exec.old_pid = (uint32_t)u(d, 1, s, o->u.exec.pid);
		str(d, 2, s, o->u.exec.filename, sizeof(o->u.exec.filename));
		return true;
	case TP_EXIT:
		memset(&o->u.exit, 0, sizeof(o->u.exit));
		o->u.exit.pid = (uint32_t)u(d, 0, s, o->tid);
		return true;
	case TP_STAT_RUNTIME:
		if (!d->f[0].found || !d->f[1].found)
			return false;
		memset(&o->u.runtime, 0, sizeof(o->u.runtime));
		o->u.runtime.pid = (uint32_t)u(d, 0, s, 0);
		o->u.runtime.runtime = u(d, 1, s, 0);
		return true;
	case TP_BLK_INSERT:
	case TP_BLK_ISSUE:
	case TP_BLK_COMPLETE:
		if (!d->f[0].found || !d->f[1].found)
			return false;
		memset(&o->u.blk, 0, sizeof(o->u.blk));
		o->u.blk.dev = (uint32_t)u(d, 0, s, 0);
		o->u.blk.sector = u(d, 1, s, 0);
		o->u.blk.nr_sector = (uint32_t)u(d, 2, s, 0);
		str(d, 3, s, o->u.blk.rwbs, sizeof(o->u.blk.rwbs));
		o->u.blk.error = (int32_t)u(d, 4, s, 0);
		return true;
	case TP_IRQ_ENTRY:
	case TP_IRQ_EXIT:
		memset(&o->u.irq, 0, sizeof(o->u.irq));
		o->u.irq.irq = (int32_t)u(d, 0, s, (uint64_t)-1);
		str(d, 1, s, o->u.irq.name, sizeof(o->u.irq.name));
		return true;
	case TP_SOFTIRQ_ENTRY:
	case TP_SOFTIRQ_EXIT:
		memset(&o->u.softirq, 0, sizeof(o->u.softirq));
		o->u.softirq.vec = (uint32_t)u(d, 0, s, 0);
		return true;
	case TP_SOCK_SEND:
	case TP_SOCK_RECV:
	case TP_SK_READY:
		if (!d->f[0].found)
			return false;
		memset(&o->u.sock, 0, sizeof(o->u.sock));
		o->u.sock.sk = u(d, 0, s, 0);
		o->u.sock.family = (uint16_t)u(d, 1, s, 0);
		o->u.sock.protocol = (uint16_t)u(d, 2, s, 0);
		o->u.sock.len = (int32_t)u(d, 3, s, 0);
		return true;
	case TP_SOCK_STATE:
		if (!d->f[0].found)
			return false;
		memset(&o->u.state, 0, sizeof(o->u.state));
		o->u.state.sk = u(d, 0, s, 0);
		o->u.state.family = (uint16_t)u(d, 1, s, 0);
		o->u.state.protocol = (uint16_t)u(d, 2, s, 0);
		o->u.state.oldstate = (int32_t)u(d, 3, s, 0);
		o->u.state.newstate = (int32_t)u(d, 4, s, 0);
		o->u.state.sport = (uint16_t)u(d, 5, s, 0);
		o->u.state.dport = (uint16_t)u(d, 6, s, 0);
		if (o->u.state.family == 10 /* AF_INET6 */) {
			addr(d, 9, s, o->u.state.saddr, 16);
			addr(d, 10, s, o->u.state.daddr, 16);
		} else {
			addr(d, 7, s, o->u.state.saddr, 4);
			addr(d, 8, s, o->u.state.daddr, 4);
		}
		return true;
	default:
		return true;
	}
}
