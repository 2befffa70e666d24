/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The recorder's side of rsp's BPF program (bpfsched.h): whether it runs, its
 * streams, its targets, and its records turned into the perf samples the file
 * holds: for each event one sample of the stream perf's event would have
 * delivered it in, the system-wide one (kernel and frame-pointer user frames)
 * or, for a sleep of the target's with its copy, the target's (kernel
 * frames, user registers and the live stack).
 */
#include "record-private.h"

#include "rsp-config.h"

#include "rsp-perf-format.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <asm/perf_regs.h>
#include <traceevent/event-parse.h>

#if RSP_HAVE_BPF

/*
 * The BPF ring: room for 50 ms of pipe ping-pong's switches and wakeups with
 * their stacks several times over (about 100 MB/s of records there), an
 * eighth of the memory ceiling at most (read, its pages are the recorder's).
 */
#define RING_MAX (32ull << 20)
#define RING_MIN (4ull << 20)

static size_t ring_bytes(const struct recorder *r)
{
	uint64_t max = r->o->max_memory ? r->o->max_memory : RSP_DEFAULT_MAX_MEMORY;
	uint64_t b = RING_MAX;

	while (b > RING_MIN && b > max / 8)
		b /= 2;
	return (size_t)b;
}
/* leading frames that can be the BPF program's own */
#define MAX_SKIP 4

static enum rsp_bpf_kind kind_of(const struct rsp_probe *p)
{
	return !strcmp(p->name, "sched_switch") ? RSP_BPF_SWITCH : RSP_BPF_WAKING;
}

static bool is_runtime(const struct rsp_probe *p)
{
	return !strcmp(p->name, "sched_stat_runtime");
}

bool _rsp_bpf_takes(const struct recorder *r, const struct rsp_probe *p)
{
	return p->bpf && r->bpf && (!is_runtime(p) || r->rt_size);
}

/*
 * Where this kernel's sched_stat_runtime keeps comm, pid and runtime, for
 * the records made from the switches; false if its format has other fields
 * (older kernels' vruntime), which the program cannot give: ftrace then.
 */
static bool runtime_format(struct recorder *r)
{
	char path[512], buf[8192];
	struct tep_handle *tep = tep_alloc();
	struct tep_event *ev = NULL;
	struct tep_format_field **fields = NULL;
	bool ok = false;
	ssize_t n = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/events/sched/sched_stat_runtime/format", r->tracefs);
	f = fopen(path, "re");
	if (f) {
		n = (ssize_t)fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	if (!tep || n <= 0)
		goto out;
	buf[n] = '\0';
	if (tep_parse_format(tep, &ev, buf, (unsigned long)n, "sched") != TEP_ERRNO__SUCCESS ||
	    !ev)
		goto out;
	fields = tep_event_fields(ev);
	ok = fields != NULL;
	for (size_t i = 0; fields && fields[i]; i++) {
		const struct tep_format_field *fl = fields[i];
		unsigned end = (unsigned)(fl->offset + fl->size);

		if (end > r->rt_size)
			r->rt_size = end;
		if (!strcmp(fl->name, "comm") && (fl->flags & TEP_FIELD_IS_DYNAMIC) && fl->size == 4) {
			r->rt_comm = (unsigned)fl->offset;
			r->rt_comm_dynamic = true;
		} else if (!strcmp(fl->name, "comm") && fl->size == 16) {
			r->rt_comm = (unsigned)fl->offset;
		} else if (!strcmp(fl->name, "pid") && fl->size == 4) {
			r->rt_pid = (unsigned)fl->offset;
		} else if (!strcmp(fl->name, "runtime") && fl->size == 8) {
			r->rt_runtime = (unsigned)fl->offset;
		} else {
			ok = false;
		}
	}
	ok = ok && r->rt_comm && r->rt_pid && r->rt_runtime;
out:
	free(fields);
	tep_free(tep);
	if (!ok)
		r->rt_size = 0;
	return ok;
}

/*
 * Leading kernel frames that are the program's dispatch, not the kernel's
 * path to the tracepoint (bpf_trace_run1..12; the program's own frame lies
 * outside the kernel's text): from /proc/kallsyms.
 */
static void read_text_ranges(struct recorder *r)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	uint64_t run_last = 0;
	char line[512];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *end, *name;
		uint64_t a = strtoull(line, &end, 16);

		if (end == line || end[0] != ' ' || !end[1] || end[2] != ' ')
			continue;
		name = end + 3;
		name[strcspn(name, " \t\n")] = '\0';
		if (run_last && a > run_last && (!r->bpf_run_hi || a < r->bpf_run_hi))
			r->bpf_run_hi = a;
		if (!strcmp(name, "_stext"))
			r->bpf_text_lo = a;
		else if (!strcmp(name, "_etext"))
			r->bpf_text_hi = a;
		else if (!strncmp(name, "bpf_trace_run", 13) && name[13] >= '0' && name[13] <= '9') {
			if (!r->bpf_run_lo || a < r->bpf_run_lo)
				r->bpf_run_lo = a;
			if (a > run_last) {
				run_last = a;
				r->bpf_run_hi = 0; /* the next symbol above it, from here on */
			}
		}
	}
	fclose(f);
	if (!r->bpf_text_lo || !r->bpf_text_hi || r->bpf_text_lo >= r->bpf_text_hi)
		r->bpf_text_lo = r->bpf_text_hi = 0; /* hidden addresses: keep every frame */
}

int _rsp_bpf_open(struct recorder *r)
{
	struct rsp_bpfsched_opts bo = {
		.copy_bytes = 0,
		.ring_bytes = ring_bytes(r),
	};
	bool any = false;
	char why[256];
	int ret;

	for (size_t i = 0; i < r->probes.n; i++) {
		const struct rsp_probe *p = &r->probes.probes[i];

		any |= p->bpf && !is_runtime(p);
		bo.runtime |= p->bpf && is_runtime(p);
	}
	if (!any || r->o->no_bpf)
		return 0;
	if (r->o->call_graph == RSP_CALL_GRAPH_DWARF) {
		bo.copy_bytes = r->o->stack_size ? r->o->stack_size : 8192;
		bo.copy_all = true;
	} else if (r->o->call_graph == RSP_CALL_GRAPH_DEFAULT && r->n_target_pids) {
		bo.copy_bytes = r->o->stack_size ? r->o->stack_size : 8192;
	}
	if (bo.copy_bytes > RSP_BPF_MAX_COPY)
		bo.copy_bytes = RSP_BPF_MAX_COPY;
	if (bo.runtime)
		bo.runtime = runtime_format(r);
	ret = rsp_bpfsched_open(&r->bpf, &bo, why, sizeof(why));
	if (ret == -ENOMEM)
		return _rsp_record_fail(r, ret, "out of memory");
	if (ret) {
		_rsp_record_log(r, RSP_LOG_INFO,
				"switches and wakeups recorded through perf, at a higher cost: %s",
				why);
		r->rt_size = 0;
		return 0;
	}
	r->bpf_copy_bytes = bo.copy_bytes;
	r->bpf_ring_bytes = bo.ring_bytes;
	for (size_t i = 0; i < r->n_target_pids; i++) {
		ret = rsp_bpfsched_add_target(r->bpf, r->target_pids[i],
					      r->have_cmd && i == 0);
		if (ret)
			return _rsp_record_fail(r, ret, "cannot mark the targets for the BPF program: %s",
						strerror(-ret));
	}
	read_text_ranges(r);
	r->st->bpf = true;
	return 0;
}

/* The streams of a probe the BPF program records: its samples, and the target's copies. */
int _rsp_bpf_streams(struct recorder *r, const struct rsp_probe *p, int row, unsigned tp_id,
		     const struct perf_event_attr *base)
{
	enum rsp_bpf_kind k = kind_of(p);
	struct stream *s;

	s = _rsp_add_stream(r, STREAM_BPF, row, tp_id);
	if (!s)
		return -ENOMEM;
	s->attr = *base;
	s->attr.type = PERF_TYPE_TRACEPOINT;
	s->attr.config = tp_id;
	s->attr.sample_period = 1;
	s->attr.sample_type |= PERF_SAMPLE_IP | PERF_SAMPLE_RAW;
	r->st->events[row].from_bpf = true;
	if (is_runtime(p)) {
		/* as ftrace's copy would come: no stack */
		r->bpf_runtime_stream = (int)(s - r->streams);
		return 0;
	}
	s->attr.sample_type |= PERF_SAMPLE_CALLCHAIN;
	r->bpf_stream[k] = (int)(s - r->streams);
	r->bpf_target_stream[k] = -1;
	if (k == RSP_BPF_SWITCH && r->bpf_copy_bytes) {
		struct stream *t = _rsp_add_stream(r, STREAM_BPF, row, tp_id);

		if (!t)
			return -ENOMEM;
		t->attr = r->streams[r->bpf_stream[k]].attr;
		t->attr.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		t->attr.exclude_callchain_user = 1;
		t->attr.sample_regs_user = RSP_X86_64_REGS_MASK;
		t->attr.sample_stack_user = r->bpf_copy_bytes;
		/* as perf's per-task event would be: its children too, from the exec */
		t->attr.inherit = 1;
		t->attr.enable_on_exec = r->have_cmd;
		r->bpf_target_stream[k] = (int)(t - r->streams);
	}
	return 0;
}

int _rsp_bpf_start(struct recorder *r)
{
	char why[256];
	int ret;

	if (!r->bpf)
		return 0;
	ret = rsp_bpfsched_start(r->bpf, why, sizeof(why));
	if (ret)
		return _rsp_record_fail(r, ret, "%s", why);
	return 0;
}

void _rsp_bpf_stop(struct recorder *r)
{
	if (r->bpf)
		rsp_bpfsched_stop(r->bpf);
}

/* the kernel frames to keep: the program's own dispatch dropped */
static size_t first_kept(const struct recorder *r, const uint64_t *k, size_t n)
{
	size_t i = 0;

	if (!r->bpf_text_hi)
		return 0;
	while (i < n && i < MAX_SKIP &&
	       (k[i] < r->bpf_text_lo || k[i] >= r->bpf_text_hi ||
		(k[i] >= r->bpf_run_lo && k[i] < r->bpf_run_hi)))
		i++;
	return i < n && i < MAX_SKIP ? i : 0;
}

struct sample_out {
	unsigned char *p;
};

static void put(struct sample_out *o, const void *v, size_t n)
{
	memcpy(o->p, v, n);
	o->p += n;
}

static void put64(struct sample_out *o, uint64_t v)
{
	put(o, &v, 8);
}

/*
 * One perf sample of stream @si from @rec: IDENTIFIER IP TID TIME CPU PERIOD
 * CALLCHAIN RAW, then for a copy REGS_USER STACK_USER.
 */
static int put_sample(struct recorder *r, int si, const struct rsp_bpf_rec *rec,
		      const uint64_t *k, size_t nk, const uint64_t *u, size_t nu, bool copy)
{
	const struct stream *s = &r->streams[si];
	const unsigned char *raw = (const unsigned char *)(rec + 1);
	const uint64_t *regs = u + rec->nu;
	const unsigned char *stack = (const unsigned char *)(regs + RSP_BPF_NREGS);
	size_t raw_field = RSP_PF_ALIGN(8 + rec->raw_size + 4) - 4;
	size_t chain = 1 + nk + (nu ? 1 + nu : 0);
	size_t size = sizeof(struct perf_event_header) + 6 * 8 + 8 + chain * 8 + 4 + raw_field;
	struct perf_event_header h = {
		.type = PERF_RECORD_SAMPLE,
		.misc = PERF_RECORD_MISC_KERNEL,
	};
	struct sample_out o;
	uint32_t u32[2];

	if (copy)
		size += 8 + RSP_BPF_NREGS * 8 + 8 + (rec->copy_size ? rec->copy_size + 8 : 0);
	if (size > UINT16_MAX)
		return 0;
	o.p = rsp_writer_reserve(r->w, size);
	if (!o.p)
		return errno == ENOMEM ? -ENOMEM : -ENOSPC;
	h.size = (uint16_t)size;
	put(&o, &h, sizeof(h));
	put64(&o, s->ids[0]);
	put64(&o, nk ? k[0] : 0); /* IP */
	u32[0] = rec->pid;
	u32[1] = rec->tid;
	put(&o, u32, 8);
	put64(&o, rec->time);
	u32[0] = rec->cpu;
	u32[1] = 0;
	put(&o, u32, 8);
	put64(&o, 1); /* PERIOD */
	put64(&o, chain);
	put64(&o, PERF_CONTEXT_KERNEL);
	put(&o, k, nk * 8);
	if (nu) {
		put64(&o, PERF_CONTEXT_USER);
		put(&o, u, nu * 8);
	}
	/* RAW: the tracepoint's record, its common header as ftrace's */
	u32[0] = (uint32_t)raw_field;
	put(&o, u32, 4);
	{
		uint16_t type = (uint16_t)s->tp_id;
		uint8_t ctx[2] = { rec->flags, 0 };
		int32_t pid = (int32_t)rec->tid;

		put(&o, &type, 2);
		put(&o, ctx, 2);
		put(&o, &pid, 4);
	}
	put(&o, raw, rec->raw_size);
	memset(o.p, 0, raw_field - 8 - rec->raw_size);
	o.p += raw_field - 8 - rec->raw_size;
	if (copy) {
		put64(&o, PERF_SAMPLE_REGS_ABI_64);
		put(&o, regs, RSP_BPF_NREGS * 8);
		put64(&o, rec->copy_size);
		if (rec->copy_size) {
			put(&o, stack, rec->copy_size);
			put64(&o, rec->copy_size);
		}
	}
	r->st->records++;
	return 0;
}

/*
 * A sched_stat_runtime sample of the run a switch ends, stamped just before
 * the switch (the kernel's last one comes as the switch picks the next task):
 * the previous task's comm and pid from the switch's payload.
 */
static int put_runtime(struct recorder *r, const struct rsp_bpf_rec *rec)
{
	const struct stream *s = &r->streams[r->bpf_runtime_stream];
	const unsigned char *sw = (const unsigned char *)(rec + 1);
	unsigned comm_len = (unsigned)strnlen((const char *)sw, 16) + 1;
	unsigned payload = r->rt_size + (r->rt_comm_dynamic ? comm_len : 0);
	size_t raw_field = RSP_PF_ALIGN(payload + 4) - 4;
	size_t size = sizeof(struct perf_event_header) + 6 * 8 + 4 + raw_field;
	struct perf_event_header h = {
		.type = PERF_RECORD_SAMPLE,
		.misc = PERF_RECORD_MISC_KERNEL,
		.size = (uint16_t)size,
	};
	struct sample_out o;
	unsigned char *raw;
	uint32_t u32[2];

	o.p = rsp_writer_reserve(r->w, size);
	if (!o.p)
		return errno == ENOMEM ? -ENOMEM : -ENOSPC;
	put(&o, &h, sizeof(h));
	put64(&o, s->ids[0]);
	put64(&o, 0); /* IP */
	u32[0] = rec->pid;
	u32[1] = rec->tid;
	put(&o, u32, 8);
	put64(&o, rec->time - 1);
	u32[0] = rec->cpu;
	u32[1] = 0;
	put(&o, u32, 8);
	put64(&o, 1); /* PERIOD */
	u32[0] = (uint32_t)raw_field;
	put(&o, u32, 4);
	raw = o.p;
	memset(raw, 0, raw_field);
	{
		uint16_t type = (uint16_t)s->tp_id;
		int32_t pid = (int32_t)rec->tid;

		memcpy(raw, &type, 2);
		memcpy(raw + 4, &pid, 4);
	}
	if (r->rt_comm_dynamic) {
		uint32_t loc = r->rt_size | comm_len << 16;

		memcpy(raw + r->rt_comm, &loc, 4);
		memcpy(raw + r->rt_size, sw, comm_len - 1);
	} else {
		memcpy(raw + r->rt_comm, sw, 16);
	}
	memcpy(raw + r->rt_pid, sw + 16, 4); /* prev_pid */
	memcpy(raw + r->rt_runtime, &rec->runtime, 8);
	r->st->records++;
	r->st->events[s->row].bpf_events++;
	return 0;
}

static int on_record(void *ctx, const struct rsp_bpf_rec *rec, size_t size)
{
	struct recorder *r = ctx;
	const uint64_t *k, *u;
	size_t need, skip;
	int si, ti, ret;

	if (rec->kind >= RSP_BPF_KINDS || rec->raw_size > RSP_BPF_RAW_ROOM ||
	    rec->nk > RSP_BPF_MAX_FRAMES || rec->nu > RSP_BPF_MAX_FRAMES)
		return 0;
	need = sizeof(*rec) + RSP_BPF_RAW_ROOM + ((size_t)rec->nk + rec->nu) * 8 +
	       (rec->has_regs ? RSP_BPF_NREGS * 8 + rec->copy_size : 0);
	if (need > size)
		return 0;
	si = r->bpf_stream[rec->kind];
	ti = r->bpf_target_stream[rec->kind];
	if (si < 0)
		return 0;
	k = (const uint64_t *)((const unsigned char *)(rec + 1) + RSP_BPF_RAW_ROOM);
	u = k + rec->nk;
	skip = first_kept(r, k, rec->nk);
	if (rec->runtime && r->bpf_runtime_stream >= 0) {
		ret = put_runtime(r, rec);
		if (ret == -ENOMEM)
			return ret;
		if (ret)
			r->st->refused++;
	}
	if (rec->has_regs && ti >= 0) {
		/* the target's sleep: its kernel frames, registers and live stack */
		ret = put_sample(r, ti, rec, k + skip, rec->nk - skip, u, 0, true);
		if (!ret) {
			r->st->events[r->streams[ti].row].target_samples++;
			r->st->ustack_bytes_trimmed += rec->copy_req - rec->copy_size;
		}
	} else {
		ret = put_sample(r, si, rec, k + skip, rec->nk - skip, u, rec->nu, false);
	}
	if (!ret)
		r->st->events[r->streams[si].row].bpf_events++;
	if (ret == -ENOSPC) {
		r->st->refused++;
		ret = 0;
	}
	return ret;
}

static bool room(void *ctx, size_t size)
{
	struct recorder *r = ctx;

	/* the record, and a copy's two samples */
	if (rsp_writer_has_room(r->w, 2 * size + 1024))
		return true;
	r->starved = true;
	return false;
}

/* PERF_RECORD_LOST for what the program could not put in its ring since the last pass */
static void put_lost(struct recorder *r)
{
	for (int c = 0; c < r->st->nr_cpus && c < RSP_BPF_MAX_CPUS; c++) {
		const struct rsp_bpf_counts *n = rsp_bpfsched_counts(r->bpf, c);

		for (int k = 0; k < RSP_BPF_KINDS; k++) {
			uint64_t now = __atomic_load_n(&n->lost[k], __ATOMIC_RELAXED);
			uint64_t *seen = &r->bpf_lost_seen[(size_t)c * RSP_BPF_KINDS + k];
			struct {
				struct rsp_pf_lost l;
				struct rsp_pf_sample_id sid;
			} rec;

			if (now == *seen || r->bpf_stream[k] < 0)
				continue;
			memset(&rec, 0, sizeof(rec));
			rec.l.header.type = PERF_RECORD_LOST;
			rec.l.header.size = sizeof(rec);
			rec.l.id = r->streams[r->bpf_stream[k]].ids[0];
			rec.l.lost = now - *seen;
			rec.sid.time = _rsp_now_ns();
			rec.sid.cpu = (uint32_t)c;
			rec.sid.id = rec.l.id;
			if (rsp_writer_append_ctl(r->w, &rec, sizeof(rec)) == 0) {
				r->st->records++;
				r->st->lost_bpf[c] += now - *seen;
				*seen = now;
			}
		}
	}
}

int _rsp_bpf_drain(struct recorder *r)
{
	bool more = false;
	long n;

	if (!r->bpf)
		return 0;
	n = rsp_bpfsched_drain(r->bpf, on_record, room, r, &more);
	put_lost(r);
	return n == -ENOMEM ? -ENOMEM : 0;
}

int _rsp_bpf_fd(const struct recorder *r)
{
	return r->bpf ? rsp_bpfsched_fd(r->bpf) : -1;
}

unsigned _rsp_bpf_fill(const struct recorder *r)
{
	return r->bpf ? rsp_bpfsched_fill(r->bpf) : 0;
}

void _rsp_bpf_counts(struct recorder *r)
{
	for (int k = 0; k < RSP_BPF_KINDS && r->bpf; k++) {
		struct rsp_record_event_stats *row;
		uint64_t hits = 0, misses, ns, runs;
		char timed[96] = "";

		if (r->bpf_stream[k] < 0)
			continue;
		for (int c = 0; c < r->st->nr_cpus && c < RSP_BPF_MAX_CPUS; c++)
			hits += rsp_bpfsched_counts(r->bpf, c)->hits[k];
		row = &r->st->events[r->streams[r->bpf_stream[k]].row];
		/* the times the tracepoint fired: the program's runs, and the
		 * times the kernel skipped it (it was running on that CPU) */
		misses = rsp_bpfsched_misses(r->bpf, (enum rsp_bpf_kind)k);
		row->kernel_count = hits + misses;
		row->kernel_counted = true;
		if (rsp_bpfsched_run_time(r->bpf, (enum rsp_bpf_kind)k, &ns, &runs))
			snprintf(timed, sizeof(timed), ", %.2f us a run (%.3f s in all, the kernel's "
				 "clock)", (double)ns / (double)runs / 1e3, (double)ns / 1e9);
		_rsp_record_log(r, RSP_LOG_DEBUG, "%s: the BPF program ran %" PRIu64
				" times, the kernel skipped it %" PRIu64 " times%s", row->name, hits,
				misses, timed);
	}
	if (r->bpf) {
		for (int c = 0; c < r->st->nr_cpus && c < RSP_BPF_MAX_CPUS; c++)
			r->st->copy_failed += rsp_bpfsched_counts(r->bpf, c)->copy_failed;
	}
}

void _rsp_bpf_close(struct recorder *r)
{
	rsp_bpfsched_free(r->bpf);
	r->bpf = NULL;
}

#else /* !RSP_HAVE_BPF */

int _rsp_bpf_open(struct recorder *r)
{
	for (size_t i = 0; i < r->probes.n; i++) {
		if (r->probes.probes[i].bpf && !r->o->no_bpf) {
			_rsp_record_log(r, RSP_LOG_INFO,
					"switches and wakeups recorded through perf, at a higher "
					"cost: this rsp was built without its BPF program");
			break;
		}
	}
	return 0;
}

bool _rsp_bpf_takes(const struct recorder *r, const struct rsp_probe *p)
{
	return false;
}

int _rsp_bpf_streams(struct recorder *r, const struct rsp_probe *p, int row, unsigned tp_id,
		     const struct perf_event_attr *base)
{
	return -ENOTSUP;
}

int _rsp_bpf_start(struct recorder *r)
{
	return 0;
}

void _rsp_bpf_stop(struct recorder *r)
{
}

int _rsp_bpf_drain(struct recorder *r)
{
	return 0;
}

int _rsp_bpf_fd(const struct recorder *r)
{
	return -1;
}

unsigned _rsp_bpf_fill(const struct recorder *r)
{
	return 0;
}

void _rsp_bpf_counts(struct recorder *r)
{
}

void _rsp_bpf_close(struct recorder *r)
{
}

#endif
