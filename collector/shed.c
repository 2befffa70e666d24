/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shedding under the memory ceiling (--max-memory): when the writer's pool
 * of chunks fills faster than the writer thread empties it, the recorder
 * gives up whole event types, least needed first, rather than let the
 * kernel drop records at random.  Each class below is switched off in the
 * kernel (perf ioctl or the ftrace instance's enable file) while its level
 * lasts, so that its cost goes too; its records from that moment on are
 * not written.  The order (docs/DESIGN.md, "Shedding"):
 *
 *   1  sock:sock_send_length, sock:sock_recv_length, cpu-clock (the
 *      system-wide CPU samples)
 *   2  irq:*, sched:sched_stat_runtime (interrupt and runtime detail)
 *   3  sock:sk_data_ready, sock:inet_sock_set_state (network links)
 *   4  block:*
 *   -  never by choice: sched_switch, sched_waking, sched_wakeup(_new),
 *      fork, exec, exit, the side-band records and the target's streams
 *
 * Class k is shed from SHED_AT + k * SHED_STEP percent of the pool on; one
 * class comes back (the highest first) when the pool is under UNSHED_AT
 * percent and the level has held for hold_ns, which doubles whenever a
 * level has to come back soon after it left (at most HOLD_MAX_NS).  Past
 * the last class the reader stops reading when the pool has no room; the
 * kernel then drops records itself and says so (PERF_RECORD_LOST, ftrace's
 * missed events).
 *
 * Each shed span is written as two PERF_RECORD_LOST_SAMPLES per CPU with the
 * stream's id (docs/perf-data.md): one at its start (misc
 * RSP_PF_MISC_SHED_BEGIN, lost 0) and one at its end with the count missed.
 */
#include "record-private.h"

#include "rsp-perf-format.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perf/cpumap.h>
#include <perf/evsel.h>

#define SHED_AT 70
#define SHED_STEP 5
#define UNSHED_AT 40
#define HOLD_NS (2 * RSP_NSEC_PER_SEC)
#define HOLD_MAX_NS (32 * RSP_NSEC_PER_SEC)
#define SOON_NS (10 * RSP_NSEC_PER_SEC) /* a level back this soon after it left doubles the hold */

static const struct {
	const char *name; /* a row's name, or "system:" for the whole system */
	int cls;
} classes[] = {
	{ "sock:sock_send_length", 1 }, { "sock:sock_recv_length", 1 },
	{ "cpu-clock", 1 },		{ "irq:", 2 },
	{ "sched:sched_stat_runtime", 2 }, { "sock:sk_data_ready", 3 },
	{ "sock:inet_sock_set_state", 3 }, { "block:", 4 },
};

int _rsp_shed_class_of(const char *row_name)
{
	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++) {
		size_t n = strlen(classes[i].name);

		if (classes[i].name[n - 1] == ':' ? !strncmp(row_name, classes[i].name, n) :
						    !strcmp(row_name, classes[i].name))
			return classes[i].cls;
	}
	return 0;
}

int _rsp_shed_setup(struct recorder *r)
{
	int ncpu = r->st->nr_cpus;

	r->shed_hold_ns = HOLD_NS;
	for (size_t i = 0; i < r->n_streams; i++) {
		struct stream *s = &r->streams[i];

		s->shed_class = 0;
		/* a sample's TIME: after the header, IDENTIFIER, IP and TID */
		s->time_off = 8 + 8 + (s->attr.sample_type & PERF_SAMPLE_IP ? 8 : 0) + 8;
		if (s->row < 0 || s->kind == STREAM_TARGET || s->kind == STREAM_TRACKING)
			continue;
		s->shed_class = _rsp_shed_class_of(r->st->events[s->row].name);
		if (s->shed_class)
			r->st->events[s->row].shed_class = s->shed_class;
	}
	r->shed_n = calloc(r->n_streams * (size_t)ncpu, sizeof(uint64_t));
	r->shed_c0 = calloc(r->n_streams * (size_t)ncpu, sizeof(uint64_t));
	return r->shed_n && r->shed_c0 ? 0 : -ENOMEM;
}

/* The kernel's count of @s on each CPU, into @out[cpu]; false if it has none. */
static bool kernel_counts(struct recorder *r, struct stream *s, uint64_t *out)
{
	struct perf_evsel *ev = s->kind == STREAM_FTRACE ? s->counter : NULL;
	struct perf_cpu cpu;
	int idx;

	if (!ev || !r->count_open)
		return false;
	memset(out, 0, (size_t)r->st->nr_cpus * sizeof(*out));
	perf_cpu_map__for_each_cpu(cpu, idx, r->cpus)
	{
		struct perf_counts_values v;

		if (cpu.cpu >= 0 && cpu.cpu < r->st->nr_cpus &&
		    perf_evsel__read(ev, idx, 0, &v) == 0)
			out[cpu.cpu] = v.val;
	}
	return true;
}

static void put_mark(struct recorder *r, struct stream *s, int cpu, uint64_t t, uint64_t lost,
		     bool begin)
{
	struct {
		struct rsp_pf_lost_samples l;
		struct rsp_pf_sample_id sid;
	} rec;

	memset(&rec, 0, sizeof(rec));
	rec.l.header.type = PERF_RECORD_LOST_SAMPLES;
	rec.l.header.misc = begin ? RSP_PF_MISC_SHED_BEGIN : 0;
	rec.l.header.size = sizeof(rec);
	rec.l.lost = lost;
	rec.sid.time = t;
	rec.sid.cpu = (uint32_t)cpu;
	rec.sid.id = s->ids[0];
	if (rsp_writer_append_ctl(r->w, &rec, sizeof(rec)) == 0)
		r->st->records++;
}

static void switch_kernel(struct recorder *r, struct stream *s, bool on)
{
	if (s->kind == STREAM_PERF && s->evsel) {
		if (on)
			perf_evsel__enable(s->evsel);
		else
			perf_evsel__disable(s->evsel);
	} else if (s->kind == STREAM_FTRACE && r->ft) {
		char sys[64], name[96];

		if (sscanf(r->st->events[s->row].name, "%63[^:]:%95s", sys, name) == 2)
			rsp_ftrace_switch(r->ft, sys, name, on);
	}
}

static void shed_class(struct recorder *r, int cls, uint64_t now)
{
	int ncpu = r->st->nr_cpus;

	for (size_t i = 0; i < r->n_streams; i++) {
		struct stream *s = &r->streams[i];
		uint64_t *c0 = &r->shed_c0[i * (size_t)ncpu];

		if (s->shed_class != cls || !s->n_ids)
			continue;
		switch_kernel(r, s, false);
		s->shed_from = now;
		s->shed_to = UINT64_MAX;
		s->shed_counted = kernel_counts(r, s, c0);
		memset(&r->shed_n[i * (size_t)ncpu], 0, (size_t)ncpu * sizeof(uint64_t));
		for (int c = 0; c < ncpu; c++)
			put_mark(r, s, c, now, 0, true);
		r->st->events[s->row].shed_spans++;
	}
	_rsp_record_log(r, RSP_LOG_INFO, "memory pool %u%% full: shedding class %d",
			rsp_writer_fill(r->w), cls);
}

static void unshed_class(struct recorder *r, int cls, uint64_t now, bool reenable)
{
	int ncpu = r->st->nr_cpus;
	uint64_t *c1 = calloc((size_t)ncpu, sizeof(uint64_t));

	for (size_t i = 0; i < r->n_streams; i++) {
		struct stream *s = &r->streams[i];
		uint64_t *n = &r->shed_n[i * (size_t)ncpu], *c0 = &r->shed_c0[i * (size_t)ncpu];
		struct rsp_record_event_stats *row;
		bool counted;

		if (s->shed_class != cls || s->shed_to != UINT64_MAX)
			continue;
		row = &r->st->events[s->row];
		counted = c1 && s->shed_counted && kernel_counts(r, s, c1);
		for (int c = 0; c < ncpu; c++) {
			uint64_t lost = n[c];

			if (counted && c1[c] - c0[c] > lost)
				lost = c1[c] - c0[c]; /* the kernel's count over the span */
			else if (s->kind == STREAM_PERF && s->attr.sample_period && !s->tp_id)
				/* cpu-clock: one sample per period per CPU */
				lost = (now - s->shed_from) / s->attr.sample_period;
			put_mark(r, s, c, now, lost, false);
			row->shed_events += lost;
		}
		row->shed_ns += now - s->shed_from;
		s->shed_to = now;
		if (reenable)
			switch_kernel(r, s, true);
	}
	free(c1);
	if (reenable)
		_rsp_record_log(r, RSP_LOG_INFO, "memory pool %u%% full: class %d back",
				rsp_writer_fill(r->w), cls);
}

void _rsp_shed_update(struct recorder *r, uint64_t now)
{
	unsigned fill = rsp_writer_fill(r->w);

	while (r->shed_level < RSP_SHED_CLASSES &&
	       fill >= SHED_AT + (unsigned)(r->shed_level + 1) * SHED_STEP) {
		if (r->shed_unshed_at && now - r->shed_unshed_at < SOON_NS &&
		    r->shed_hold_ns < HOLD_MAX_NS)
			r->shed_hold_ns *= 2;
		shed_class(r, ++r->shed_level, now);
		r->shed_changed = now;
		if (r->shed_level > r->st->shed_max_level)
			r->st->shed_max_level = r->shed_level;
	}
	if (r->shed_level > 0 && fill < UNSHED_AT && now - r->shed_changed >= r->shed_hold_ns) {
		unshed_class(r, r->shed_level--, now, true);
		r->shed_changed = now;
		r->shed_unshed_at = now;
	}
}

void _rsp_shed_finish(struct recorder *r, uint64_t now)
{
	while (r->shed_level > 0)
		unshed_class(r, r->shed_level--, now, false);
}
