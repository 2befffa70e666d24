/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Checks rsp's BPF program against the kernel's own tracepoint records, in a
 * recording made with RSP_RECORD_BPF_CHECK=1 (tests/record/bpf.sh): there
 * every sched_switch and sched_waking comes twice, from the program (samples
 * with a callchain) and from ftrace (without).  Each ftrace record must have
 * a twin from the program on the same CPU, near in time, with the same
 * payload byte for byte and the same context (hardirq, softirq, NMI), and the
 * other way round.
 *
 *   check-bpf FILE [MISSED_SWITCHES MISSED_WAKINGS [TRACEFS]]
 *
 * MISSED_*: the events the kernel counted and the program did not record
 * (rsp record's summary, "missing"): that many ftrace records may lack a twin.
 *
 * Prints TAP and the counts; exits 1 if a check fails.
 */
#include "read/reader.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WINDOW_NS 2000000 /* the program stamps before ftrace: seen under 100 us apart */
#define STOP_NS 50000000 /* the recorder's stop: the last 50 ms */
#define CTX_BITS 0x58 /* TRACE_FLAG_HARDIRQ | SOFTIRQ | NMI */

struct ev {
	uint64_t time;
	uint32_t cpu;
	uint32_t size;
	unsigned char raw[128];
	int twin; /* index in the other list, -1 */
};

struct list {
	struct ev *v;
	size_t n, cap;
};

struct scan {
	struct rsp_reader *r;
	unsigned tp[2]; /* sched_switch, sched_waking */
	struct list bpf[2], ftrace[2];
	uint32_t self; /* the recorder's process (its threads' COMM records) */
};

static int n_checks, n_failed;

static void check(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void check(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d - ", ok ? "ok" : "not ok", ++n_checks);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	n_failed += !ok;
}

static unsigned tp_id(const char *tracefs, const char *name)
{
	char path[512];
	unsigned id = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/events/sched/%s/id", tracefs, name);
	f = fopen(path, "re");
	if (f) {
		if (fscanf(f, "%u", &id) != 1)
			id = 0;
		fclose(f);
	}
	return id;
}

static int on_record(void *ctx, const struct rsp_record *rec)
{
	struct scan *s = ctx;
	struct rsp_sample smp;
	struct list *l;
	struct ev *e;
	int k;

	if (rec->h->type == PERF_RECORD_COMM) {
		const struct {
			struct perf_event_header h;
			uint32_t pid, tid;
			char comm[16];
		} *c = (const void *)rec->h;

		if (rec->h->size >= sizeof(*c) && !strncmp(c->comm, "rsp-", 4))
			s->self = c->pid;
		return 0;
	}
	if (rec->h->type != PERF_RECORD_SAMPLE ||
	    rsp_reader_parse_sample(s->r, rec->h, &smp) || !smp.attr ||
	    smp.attr->attr.type != PERF_TYPE_TRACEPOINT || !smp.raw || smp.raw_size < 8)
		return 0;
	if (smp.attr->attr.config == s->tp[0])
		k = 0;
	else if (smp.attr->attr.config == s->tp[1])
		k = 1;
	else
		return 0;
	l = smp.attr->attr.sample_type & PERF_SAMPLE_CALLCHAIN ? &s->bpf[k] : &s->ftrace[k];
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 4096;
		struct ev *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	e = &l->v[l->n++];
	e->time = smp.time;
	e->cpu = smp.cpu;
	e->size = smp.raw_size < sizeof(e->raw) ? smp.raw_size : sizeof(e->raw);
	memcpy(e->raw, smp.raw, e->size);
	e->twin = -1;
	return 0;
}

/* sched_switch's prev_state, for a task that exits: EXIT_DEAD or EXIT_ZOMBIE */
#define SWITCH_STATE_OFF 32
#define EXIT_BITS 0x30

/*
 * The same event: common_pid and the payload after the common header.  An
 * exiting task's prev_state may read zombie in one probe and dead in the
 * other: its parent reaps it between the two calls (microseconds apart).
 */
static bool same(const struct ev *a, const struct ev *b, bool is_switch)
{
	int64_t sa, sb;

	if (a->cpu != b->cpu || a->size != b->size)
		return false;
	if (!memcmp(a->raw + 4, b->raw + 4, a->size - 4))
		return true;
	if (!is_switch || a->size < SWITCH_STATE_OFF + 8)
		return false;
	memcpy(&sa, a->raw + SWITCH_STATE_OFF, 8);
	memcpy(&sb, b->raw + SWITCH_STATE_OFF, 8);
	if (sa == sb || !(sa & EXIT_BITS) || !(sb & EXIT_BITS) || (sa & ~EXIT_BITS) ||
	    (sb & ~EXIT_BITS))
		return false;
	return !memcmp(a->raw + 4, b->raw + 4, SWITCH_STATE_OFF - 4) &&
	       !memcmp(a->raw + SWITCH_STATE_OFF + 8, b->raw + SWITCH_STATE_OFF + 8,
		       a->size - SWITCH_STATE_OFF - 8);
}

static void dump(const char *what, const struct ev *e)
{
	printf("# %s cpu %u t %" PRIu64 ":", what, e->cpu, e->time);
	for (uint32_t i = 0; i < e->size; i++)
		printf("%s%02x", i % 8 ? "" : " ", e->raw[i]);
	putchar('\n');
}

/* Twins by payload, each ftrace record with the nearest unpaired BPF record. */
static void pair(struct list *f, struct list *b, const char *name, bool is_switch, uint32_t self,
		 size_t missed)
{
	size_t matched = 0, ctx_same = 0, lo = 0, shown = 0, from_idle = 0, outside = 0;
	size_t b_outside = 0;

	for (size_t i = 0; i < f->n; i++) {
		struct ev *e = &f->v[i];
		int best = -1;
		uint64_t best_d = WINDOW_NS + 1;


		while (lo < b->n && b->v[lo].time + WINDOW_NS < e->time)
			lo++;
		for (size_t j = lo; j < b->n && b->v[j].time <= e->time + WINDOW_NS; j++) {
			uint64_t d = b->v[j].time > e->time ? b->v[j].time - e->time
							    : e->time - b->v[j].time;

			if (b->v[j].twin < 0 && same(e, &b->v[j], is_switch) && d < best_d) {
				best = (int)j;
				best_d = d;
			}
		}
		if (best < 0) {
			/* the two do not start and stop at the same moment */
			if (!b->n || e->time < b->v[0].time + WINDOW_NS ||
			    e->time + WINDOW_NS > b->v[b->n - 1].time) {
				outside++;
				continue;
			}
			if (shown++ < 3)
				dump("ftrace record without a BPF twin", e);
			continue;
		}
		e->twin = best;
		b->v[best].twin = (int)i;
		matched++;
		if ((e->raw[2] & CTX_BITS) == (b->v[best].raw[2] & CTX_BITS))
			ctx_same++;
		else if (shown++ < 3) {
			dump("ftrace", e);
			dump("bpf", &b->v[best]);
		}
	}
	for (size_t j = 0, n = 0; j < b->n; j++) {
		int32_t prev, pid;

		if (b->v[j].twin >= 0)
			continue;
		if (!f->n || b->v[j].time < f->v[0].time + WINDOW_NS ||
		    b->v[j].time + WINDOW_NS > f->v[f->n - 1].time) {
			b_outside++;
			continue;
		}
		/* the recorder's own, while it stops ftrace (it stops the program first,
		 * but a program runs on until the kernel's grace period ends) */
		memcpy(&pid, b->v[j].raw + 4, 4);
		if (self && (uint32_t)pid == self && b->v[j].time + STOP_NS > f->v[f->n - 1].time) {
			b_outside++;
			continue;
		}
		/* a switch from the idle task that ftrace did not record (as it
		 * misses many on this kernel) but the program saw */
		memcpy(&prev, b->v[j].raw + 24, 4);
		if (is_switch && prev == 0) {
			from_idle++;
			continue;
		}
		if (n++ < 3)
			dump("BPF record without an ftrace twin", &b->v[j]);
	}
	printf("# %s: ftrace %zu, bpf %zu, twins %zu, same context %zu; switches from idle only "
	       "the program saw %zu\n",
	       name, f->n, b->n, matched, ctx_same, from_idle);
	check(f->n > 0, "%s: the recording has ftrace's records", name);
	/*
	 * A wakeup from virtio's interrupt while the VM's agent ran was seen
	 * without the program's record in about one run in five, one in 700
	 * wakings, not counted as a skip by the kernel (the cause not found): the
	 * model says so ("wakeups without a recorded waking").  One in 300 at most.
	 */
	check((matched + missed) * 1000 >= (f->n - outside) * 997 && matched + missed + 3 >= f->n - outside,
	      "%s: %zu of %zu ftrace records have a BPF twin (%zu more before or after the program "
	      "ran; %zu missed by the program as the kernel counted; at most 3 and 0.3%% unexplained)",
	      name, matched, f->n - outside, outside, missed);
	check(matched + from_idle == b->n - b_outside,
	      "%s: %zu of %zu BPF records have an ftrace twin (%zu more switches from idle, %zu "
	      "before or after ftrace ran or the recorder's as it stopped)",
	      name, matched, b->n - b_outside, from_idle, b_outside);
	check(ctx_same == matched, "%s: context (interrupt or task) the same in %zu of %zu twins",
	      name, ctx_same, matched);
}

static int by_time(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;

	return x->time < y->time ? -1 : x->time > y->time;
}

int main(int argc, char **argv)
{
	const char *tracefs = argc > 4 ? argv[4] : "/sys/kernel/tracing";
	struct scan s = { 0 };
	char err[256];

	if (argc < 2) {
		fprintf(stderr, "usage: check-bpf FILE [TRACEFS]\n");
		return 2;
	}
	s.tp[0] = tp_id(tracefs, "sched_switch");
	s.tp[1] = tp_id(tracefs, "sched_waking");
	if (!s.tp[0] || !s.tp[1]) {
		fprintf(stderr, "check-bpf: cannot read the tracepoint ids under %s\n", tracefs);
		return 2;
	}
	if (rsp_reader_open(argv[1], &s.r, err, sizeof(err)) ||
	    rsp_reader_scan(s.r, on_record, &s, err, sizeof(err))) {
		fprintf(stderr, "check-bpf: %s\n", err);
		return 2;
	}
	for (int k = 0; k < 2; k++) {
		qsort(s.bpf[k].v, s.bpf[k].n, sizeof(struct ev), by_time);
		qsort(s.ftrace[k].v, s.ftrace[k].n, sizeof(struct ev), by_time);
		pair(&s.ftrace[k], &s.bpf[k], k ? "sched_waking" : "sched_switch", k == 0, s.self,
		     argc > 2 + k ? strtoul(argv[2 + k], NULL, 10) : 0);
		free(s.bpf[k].v);
		free(s.ftrace[k].v);
	}
	rsp_reader_free(s.r);
	printf("1..%d\n", n_checks);
	return n_failed ? 1 : 0;
}
