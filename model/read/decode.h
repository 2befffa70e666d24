/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tracepoint decoding: for each event attr, which event it is and where its
 * fields are, resolved by name from the formats stored in the file.
 */
#ifndef RSP_MODEL_DECODE_H
#define RSP_MODEL_DECODE_H

#include "read/reader.h"
#include "read/tracedata.h"

#include <stdbool.h>
#include <stdint.h>

enum rsp_tp_kind {
	TP_NONE,
	TP_SWITCH,
	TP_WAKING,
	TP_WAKEUP,
	TP_WAKEUP_NEW,
	TP_FORK,
	TP_EXEC,
	TP_EXIT,
	TP_BLK_INSERT,
	TP_BLK_ISSUE,
	TP_BLK_COMPLETE,
	TP_IRQ_ENTRY,
	TP_IRQ_EXIT,
	TP_SOFTIRQ_ENTRY,
	TP_SOFTIRQ_EXIT,
	TP_SOCK_SEND,
	TP_SOCK_RECV,
	TP_SK_READY,
	TP_SOCK_STATE,
	TP_HRTIMER_ENTRY,
	TP_HRTIMER_EXIT,
	TP_TIMER_ENTRY,
	TP_TIMER_EXIT,
	TP_STAT_RUNTIME,
	TP_OTHER,
	TP__COUNT
};

/* Context of the event, from common_flags (stable across kernel versions). */
enum rsp_ctx {
	RSP_CTX_TASK = 0,
	RSP_CTX_SOFTIRQ = 1,
	RSP_CTX_HARDIRQ = 2,
	RSP_CTX_NMI = 3,
};

#define RSP_NF 11

struct rsp_decoder {
	enum rsp_tp_kind kind;
	char name[96]; /* "sched:sched_switch", "cpu-clock", ... */
	bool is_sampler; /* cpu-clock / task-clock style samples */
	/* a sampler's: the CPU time one sample stands for (frequency mode: 1 / its
	 * frequency; cpu-clock or task-clock: its period in ns); 0 if unknown */
	uint64_t sample_ns;
	bool is_tracking; /* side-band only (dummy) */
	uint64_t tp_id;
	struct rsp_field common_pid, common_flags;
	/* Where the event's own fields start: the common header before it holds
	 * context bytes (flags, preempt count) that differ between the perf and
	 * ftrace copies of the same event. 0 when unknown. */
	uint32_t payload_off;
	struct rsp_field f[RSP_NF];
};

struct rsp_dev {
	enum rsp_tp_kind kind;
	uint8_t ctx;
	uint32_t tid; /* common_pid, else the sample's tid */
	union {
		struct {
			uint32_t prev, next;
			uint64_t prev_state;
			char prev_comm[16], next_comm[16];
		} sw;
		struct {
			uint32_t pid;
			int32_t target_cpu;
			char comm[16];
		} wake;
		struct {
			uint32_t parent, child;
			char child_comm[16];
		} fork;
		struct {
			uint32_t pid, old_pid;
			char filename[256];
		} exec;
		struct {
			uint32_t pid;
		} exit;
		struct {
			uint32_t pid;
			uint64_t runtime; /* ns on the CPU since the task's last update */
		} runtime;
		struct {
			uint32_t dev, nr_sector;
			uint64_t sector;
			int32_t error;
			char rwbs[8];
		} blk;
		struct {
			int32_t irq;
			char name[32];
		} irq;
		struct {
			uint32_t vec;
		} softirq;
		struct {
			uint64_t sk;
			uint16_t family, protocol;
			int32_t len;
		} sock;
		struct {
			uint64_t sk;
			uint16_t family, protocol;
			int32_t oldstate, newstate;
			uint16_t sport, dport;
			uint8_t saddr[16], daddr[16]; /* v4 in the first 4 bytes */
		} state;
	} u;
};

/* Build the decoder of @attr (any type). */
void rsp_decoder_init(struct rsp_decoder *d, const struct rsp_rattr *attr, struct tep_handle *tep);
/* Decode a sample's payload.  false if it is not a usable event of its kind.
 * Writes the header and the union member of the event's kind (zeroed first),
 * not the other members. */
bool rsp_decode(const struct rsp_decoder *d, const struct rsp_sample *s, struct rsp_dev *out);

const char *rsp_tp_kind_name(enum rsp_tp_kind k);

#endif /* RSP_MODEL_DECODE_H */
