/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The recorder's events: probes/events.conf resolved against the running
 * kernel (a missing tracepoint replaced by its kprobe or uprobe, or dropped
 * with a warning), each event a stream with its perf attr, in three perf
 * evlists and one ftrace instance:
 *  - sys:    system-wide per-CPU sampling events (frame-pointer stacks) and a
 *            dummy event for COMM/FORK/EXIT/MMAP2 side-band records;
 *  - target: sched_switch with user-stack copies for the target's process
 *            tree (per-task, inherited), so its sleep stacks unwind with DWARF;
 *  - count:  counting-only events on the tracepoints ftrace delivers, so the
 *            kernel's own count checks the ftrace copy for completeness;
 *  - ftrace: rsp's instance; its events become samples of their own attrs.
 * Then the ids the kernel gave them (and the ones rsp gives the ftrace
 * streams), the offsets of the common fields, and at the end the kernel's
 * count of each event.
 */
#include "record-private.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <perf/cpumap.h>
#include <perf/evlist.h>
#include <perf/evsel.h>
#include <perf/threadmap.h>
#include <traceevent/event-parse.h>

/* 4 MiB per CPU: the CPU sampler's user-stack copies (16 KiB each before the
 * reader trims them) take ~16 MB/s per busy CPU at 999 Hz */
#define DEFAULT_SYS_PAGES 1024
/* The target's rings: 8 KiB user-stack copies at every switch.  Pipe
 * ping-pong under a saturating load (perf bench sched messaging) lost a few
 * hundred of them per 20 s at 16 MiB per CPU, none at 32 MiB (3 runs each):
 * 64 MiB over all CPUs, between 4 and 32 MiB per CPU (pinned kernel memory
 * on a many-CPU server stays bounded). */
#define TARGET_RING_TOTAL (64u << 20)
#define TARGET_RING_MIN (4u << 20)
#define TARGET_RING_MAX (32u << 20)
#define DEFAULT_FTRACE_KB 4096
#define DEFAULT_STACK 8192
/*
 * The CPU sampler's copies: 16 KiB.  sqlite3's shell (Debian's, no frame
 * pointers) runs its statements more than 8 KiB below main's frame: 3 of 109
 * CPU samples of an insert-heavy script reached main with 8 KiB, every one
 * with a user frame with 12 and 16 KiB.  At 999 Hz a copy costs little; the
 * target's copies, at every switch, stay at 8 KiB (their rings and the
 * recorder's cost per switch are sized for it).
 */
#define DEFAULT_SAMPLE_STACK 16384


/* ---- event resolution ------------------------------------------------------ */

static int tracepoint_id(struct recorder *r, const char *sys, const char *name)
{
	char path[512], buf[32];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/events/%s/%s/id", r->tracefs, sys, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	return atoi(buf);
}

static bool have_dynamic_probes(struct recorder *r, enum rsp_probe_alt_kind kind)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", r->tracefs,
		 kind == RSP_ALT_KPROBE ? "kprobe_events" : "uprobe_events");
	return access(path, W_OK) == 0;
}

static int add_row(struct recorder *r, const char *name)
{
	struct rsp_record_event_stats *ev;

	ev = realloc(r->st->events, (r->st->n_events + 1) * sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	r->st->events = ev;
	ev = &ev[r->st->n_events];
	memset(ev, 0, sizeof(*ev));
	snprintf(ev->name, sizeof(ev->name), "%s", name);
	return (int)r->st->n_events++;
}

static bool feature_enabled(struct recorder *r, enum rsp_probe_feature f)
{
	if (f == RSP_FEATURE_NET && r->o->no_net)
		return false;
	if (f == RSP_FEATURE_BLOCK && r->o->no_block)
		return false;
	if (f == RSP_FEATURE_SAMPLING && r->o->sample_hz == 0)
		return false;
	return true;
}

/* Create the alternative probe of @p, if the kernel can; its id or -errno. */
static int create_alt(struct recorder *r, const struct rsp_probe *p, const char **sys_out,
		      const char **name_out)
{
	for (size_t i = 0; i < p->n_alts; i++) {
		const struct rsp_probe_alt *a = &p->alts[i];
		char def[512], path[512];
		int id;

		if (!have_dynamic_probes(r, a->kind))
			continue;
		snprintf(def, sizeof(def), "%c:%s/%s %s", a->kind == RSP_ALT_KPROBE ? 'p' : 'p',
			 a->group, a->name, a->definition);
		snprintf(path, sizeof(path), "%s/%s", r->tracefs,
			 a->kind == RSP_ALT_KPROBE ? "kprobe_events" : "uprobe_events");
		id = tracepoint_id(r, a->group, a->name);
		if (id < 0) {
			int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);

			if (fd < 0)
				continue;
			if (write(fd, def, strlen(def)) < 0) {
				close(fd);
				continue;
			}
			close(fd);
			id = tracepoint_id(r, a->group, a->name);
		}
		if (id >= 0) {
			*sys_out = a->group;
			*name_out = a->name;
			return id;
		}
	}
	return -ENOENT;
}

static int tp_list_add(struct tp_list *l, const char *sys, const char *name)
{
	struct rsp_tp_name *g;

	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].system, sys) && !strcmp(l->v[i].name, name))
			return 0;
	g = realloc(l->v, (l->n + 1) * sizeof(*g));
	if (!g)
		return -ENOMEM;
	l->v = g;
	l->v[l->n].system = sys;
	l->v[l->n].name = name;
	l->n++;
	return 0;
}

static void base_attr(struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->disabled = 1;
	a->sample_id_all = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->read_format = PERF_FORMAT_ID | PERF_FORMAT_LOST;
	a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
}

/* @sampler: the CPU sampler's (a larger copy by default) */
static void add_user_stack(struct recorder *r, struct perf_event_attr *a, bool sampler)
{
	a->sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	a->exclude_callchain_user = 1;
	a->sample_regs_user = RSP_X86_64_REGS_MASK;
	a->sample_stack_user = r->o->stack_size ? r->o->stack_size
			       : sampler         ? DEFAULT_SAMPLE_STACK
						 : DEFAULT_STACK;
}

static void set_wakeup(struct perf_event_attr *a, unsigned pages)
{
	long page = sysconf(_SC_PAGESIZE);

	a->watermark = 1;
	a->wakeup_watermark = (uint32_t)((uint64_t)pages * page / 4);
}

static unsigned sys_pages(struct recorder *r)
{
	return r->o->mmap_pages ? r->o->mmap_pages : DEFAULT_SYS_PAGES;
}

static unsigned target_pages(struct recorder *r)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t per_cpu = TARGET_RING_TOTAL / (unsigned)(r->st->nr_cpus > 0 ? r->st->nr_cpus : 1);
	unsigned pages = 1;

	if (r->o->mmap_pages)
		return r->o->mmap_pages * 4;
	per_cpu = per_cpu < TARGET_RING_MIN ? TARGET_RING_MIN :
		  per_cpu > TARGET_RING_MAX ? TARGET_RING_MAX : per_cpu;
	while ((uint64_t)pages * 2 * (uint64_t)page <= per_cpu) /* a power of two */
		pages *= 2;
	return pages;
}

int _rsp_resolve_events(struct recorder *r, struct tp_list *tps)
{
	bool target_dwarf = r->o->call_graph == RSP_CALL_GRAPH_DEFAULT && r->n_target_pids > 0;
	struct stream *s;
	char full[128];
	int ret;

	for (int k = 0; k < RSP_BPF_KINDS; k++)
		r->bpf_stream[k] = r->bpf_target_stream[k] = -1;
	r->bpf_runtime_stream = -1;
	s = _rsp_add_stream(r, STREAM_TRACKING, -1, 0);
	if (!s)
		return -ENOMEM;
	base_attr(&s->attr);
	s->attr.type = PERF_TYPE_SOFTWARE;
	s->attr.config = PERF_COUNT_SW_DUMMY;
	s->attr.comm = 1;
	s->attr.comm_exec = 1;
	s->attr.task = 1;
	s->attr.mmap = 1;
	s->attr.mmap2 = 1;
	/* DWARF unwinding needs every file mapping: .eh_frame_hdr lives in a
	 * read-only segment, not in the executable one */
	s->attr.mmap_data = r->o->call_graph != RSP_CALL_GRAPH_FP;
	s->attr.sample_type &= ~PERF_SAMPLE_PERIOD;
	set_wakeup(&s->attr, sys_pages(r));

	for (size_t i = 0; i < r->probes.n; i++) {
		const struct rsp_probe *p = &r->probes.probes[i];
		const char *sys = p->system, *name = p->name;
		int row, id = 0;

		if (!feature_enabled(r, p->feature))
			continue;
		rsp_probe_full_name(p, full, sizeof(full));
		if (rsp_probe_is_tracepoint(p)) {
			id = tracepoint_id(r, sys, name);
			if (id < 0) {
				id = create_alt(r, p, &sys, &name);
				if (id >= 0) {
					_rsp_record_log(r, RSP_LOG_INFO,
							"%s not available: using %s:%s instead",
							full, sys, name);
				} else if (p->required) {
					return _rsp_record_fail(
					    r, -ENOENT,
					    "%s not available on this kernel: rsp needs it "
					    "(check CONFIG_TRACEPOINTS and %s/events/%s)",
					    full, r->tracefs, p->system);
				} else {
					_rsp_record_log(r, RSP_LOG_WARN, "%s not available: %s",
							full, p->missing);
					continue;
				}
			}
			ret = tp_list_add(tps, sys, name);
			if (ret)
				return ret;
		}
		row = add_row(r, full);
		if (row < 0)
			return row;
		if (_rsp_bpf_takes(r, p)) {
			struct perf_event_attr a;

			base_attr(&a);
			ret = _rsp_bpf_streams(r, p, row, (unsigned)id, &a);
			if (ret)
				return ret;
			if (!r->o->bpf_check || !strcmp(p->name, "sched_stat_runtime"))
				continue;
			/* the same events from ftrace too, below */
		} else if (p->source & RSP_SOURCE_PERF) {
			s = _rsp_add_stream(r, STREAM_PERF, row, (unsigned)id);
			if (!s)
				return -ENOMEM;
			base_attr(&s->attr);
			set_wakeup(&s->attr, sys_pages(r));
			if (rsp_probe_is_tracepoint(p)) {
				s->attr.type = PERF_TYPE_TRACEPOINT;
				s->attr.config = (uint64_t)id;
				s->attr.sample_period = 1;
				s->attr.sample_type |= PERF_SAMPLE_IP | PERF_SAMPLE_RAW;
			} else {
				s->attr.type = PERF_TYPE_SOFTWARE;
				s->attr.config = PERF_COUNT_SW_CPU_CLOCK;
				s->attr.sample_period = RSP_NSEC_PER_SEC / r->o->sample_hz;
				s->attr.sample_type |= PERF_SAMPLE_IP;
			}
			if (p->stack != RSP_STACK_NONE) {
				if (r->o->call_graph == RSP_CALL_GRAPH_DWARF ||
				    (r->o->call_graph == RSP_CALL_GRAPH_DEFAULT &&
				     p->stack == RSP_STACK_SAMPLE))
					add_user_stack(r, &s->attr, p->stack == RSP_STACK_SAMPLE);
				else
					s->attr.sample_type |= PERF_SAMPLE_CALLCHAIN;
			}
			r->st->events[row].from_perf = true;
			if (!rsp_probe_is_tracepoint(p) && r->o->target_hz && r->n_target_pids) {
				/* the target's tree sampled again, at its own rate: a task
				 * clock that ticks only while they run, inherited by their
				 * children; the model takes both samplers' samples */
				struct stream *t = _rsp_add_stream(r, STREAM_TARGET, row, 0);

				if (!t)
					return -ENOMEM;
				t->attr = r->streams[r->n_streams - 2].attr;
				t->attr.config = PERF_COUNT_SW_TASK_CLOCK;
				t->attr.sample_period = RSP_NSEC_PER_SEC / r->o->target_hz;
				t->attr.inherit = 1;
				t->attr.enable_on_exec = r->have_cmd;
				set_wakeup(&t->attr, target_pages(r));
			}
			if (p->stack == RSP_STACK_SLEEP && target_dwarf) {
				struct stream *t = _rsp_add_stream(r, STREAM_TARGET, row, (unsigned)id);

				if (!t)
					return -ENOMEM;
				t->attr = r->streams[r->n_streams - 2].attr;
				t->attr.sample_type &= ~PERF_SAMPLE_CALLCHAIN;
				add_user_stack(r, &t->attr, false);
				t->attr.inherit = 1;
				/* a command's copies start at its exec, as perf's: stacks of the
				 * pre-exec image (rsp's own) would confuse unwinders that cache
				 * per address space */
				t->attr.enable_on_exec = r->have_cmd;
				set_wakeup(&t->attr, target_pages(r));
			}
		}
		if ((p->source & RSP_SOURCE_FTRACE) || _rsp_bpf_takes(r, p)) {
			s = _rsp_add_stream(r, STREAM_FTRACE, row, (unsigned)id);
			if (!s)
				return -ENOMEM;
			s->no_count = p->no_count;
			base_attr(&s->attr);
			s->attr.type = PERF_TYPE_TRACEPOINT;
			s->attr.config = (uint64_t)id;
			s->attr.sample_period = 1;
			/* IP (always 0) so that `perf script -F ip,sym` accepts the file */
			s->attr.sample_type |= PERF_SAMPLE_IP | PERF_SAMPLE_RAW;
			r->st->events[row].from_ftrace = true;
		}
	}
	return 0;
}

/* ---- perf evlists ------------------------------------------------------------ */

static int open_error(struct recorder *r, int ret, const char *what)
{
	if (ret == -EACCES || ret == -EPERM)
		return _rsp_record_fail(r, ret,
					"not allowed to open %s: system-wide tracing needs root or "
					"CAP_PERFMON (kernel.perf_event_paranoid is too strict)",
					what);
	if (ret == -EMFILE)
		return _rsp_record_fail(r, ret, "too many open files opening %s: raise `ulimit -n`",
					what);
	if (ret == -ENOENT || ret == -ENODEV || ret == -EOPNOTSUPP)
		return _rsp_record_fail(r, ret, "this kernel cannot open %s: %s", what,
					strerror(-ret));
	return _rsp_record_fail(r, ret, "cannot open %s: %s", what, strerror(-ret));
}

int _rsp_build_evlists(struct recorder *r)
{
	r->sys = perf_evlist__new();
	r->count = perf_evlist__new();
	if (!r->sys || !r->count)
		return -ENOMEM;
	for (size_t i = 0; i < r->n_streams; i++) {
		if (r->streams[i].kind == STREAM_TARGET && !r->target) {
			r->target = perf_evlist__new();
			if (!r->target)
				return -ENOMEM;
		}
	}
	for (size_t i = 0; i < r->n_streams; i++) {
		struct stream *s = &r->streams[i];

		switch (s->kind) {
		case STREAM_TRACKING:
		case STREAM_PERF:
			s->evsel = perf_evsel__new(&s->attr);
			if (!s->evsel)
				return -ENOMEM;
			perf_evlist__add(r->sys, s->evsel);
			break;
		case STREAM_TARGET:
			s->evsel = perf_evsel__new(&s->attr);
			if (!s->evsel)
				return -ENOMEM;
			perf_evlist__add(r->target, s->evsel);
			break;
		case STREAM_BPF:
			break; /* the program counts its events itself */
		case STREAM_FTRACE: {
			struct perf_event_attr c;

			/* a perf sampler on the same tracepoint already counts it; a
			 * __perf_count tracepoint's counter sums a field, not events */
			if (r->st->events[s->row].from_perf || s->no_count)
				break;

			memset(&c, 0, sizeof(c));
			c.size = sizeof(c);
			c.type = PERF_TYPE_TRACEPOINT;
			c.config = s->tp_id;
			c.disabled = 1;
			c.read_format = PERF_FORMAT_ID;
			s->counter = perf_evsel__new(&c);
			if (!s->counter)
				return -ENOMEM;
			perf_evlist__add(r->count, s->counter);
			break;
		}
		}
	}
	perf_evlist__set_maps(r->sys, r->cpus, r->any_thread);
	perf_evlist__set_maps(r->count, r->cpus, r->any_thread);
	if (r->target)
		perf_evlist__set_maps(r->target, r->cpus, r->target_threads);
	return 0;
}

int _rsp_open_evlists(struct recorder *r)
{
	int ret;

	ret = perf_evlist__open(r->sys);
	if (ret)
		return open_error(r, ret, "the system-wide perf events");
	r->sys_open = true;
	ret = perf_evlist__mmap(r->sys, (int)sys_pages(r));
	r->sys_ring_bytes = (uint64_t)sys_pages(r) * (uint64_t)sysconf(_SC_PAGESIZE);
	if (ret)
		return _rsp_record_fail(
		    r, ret,
		    "cannot map %u pages per CPU of perf buffer: lower -m, or raise "
		    "kernel.perf_event_mlock_kb",
		    sys_pages(r));
	if (r->target) {
		ret = perf_evlist__open(r->target);
		if (ret)
			return open_error(r, ret, "the target's perf events");
		r->target_open = true;
		ret = perf_evlist__mmap(r->target, (int)target_pages(r));
		r->target_ring_bytes = (uint64_t)target_pages(r) * (uint64_t)sysconf(_SC_PAGESIZE);
		if (ret)
			return _rsp_record_fail(
			    r, ret, "cannot map %u pages per CPU for the target's stacks: lower -m",
			    target_pages(r));
	}
	if (perf_evlist__next(r->count, NULL)) {
		ret = perf_evlist__open(r->count);
		if (ret)
			return open_error(r, ret, "the counting perf events");
		r->count_open = true;
	}
	return 0;
}

static int collect_ids(struct recorder *r, struct stream *s, struct perf_evsel *ev)
{
	int ncpu = perf_cpu_map__nr(perf_evsel__cpus(ev));
	int nthr = perf_thread_map__nr(perf_evsel__threads(ev));

	s->ids = calloc((size_t)ncpu * nthr, sizeof(uint64_t));
	if (!s->ids)
		return -ENOMEM;
	for (int c = 0; c < ncpu; c++) {
		for (int t = 0; t < nthr; t++) {
			struct perf_counts_values v;

			if (perf_evsel__read(ev, c, t, &v) == 0)
				s->ids[s->n_ids++] = v.id;
		}
	}
	return 0;
}

static int id_index_add(struct recorder *r, uint64_t id, int16_t stream)
{
	size_t m;

	if (!r->id_cap) {
		r->id_cap = 1024;
		r->id_keys = calloc(r->id_cap, sizeof(*r->id_keys));
		r->id_vals = calloc(r->id_cap, sizeof(*r->id_vals));
		if (!r->id_keys || !r->id_vals)
			return -ENOMEM;
	}
	m = r->id_cap - 1;
	for (size_t s = (id * 0x9e3779b97f4a7c15ull) >> 54 & m, n = 0; n < r->id_cap;
	     s = (s + 1) & m, n++) {
		if (r->id_keys[s] == 0 || r->id_keys[s] == id + 1) {
			r->id_keys[s] = id + 1;
			r->id_vals[s] = stream;
			return 0;
		}
	}
	return -ENOSPC;
}

int _rsp_assign_ids(struct recorder *r)
{
	uint64_t max_id = 0;
	int ret;

	r->stream_of_tp = malloc(65536 * sizeof(*r->stream_of_tp));
	if (!r->stream_of_tp)
		return -ENOMEM;
	for (size_t i = 0; i < 65536; i++)
		r->stream_of_tp[i] = -1;
	for (size_t i = 0; i < r->n_streams; i++) {
		struct stream *s = &r->streams[i];

		if (!s->evsel)
			continue;
		ret = collect_ids(r, s, s->evsel);
		if (ret)
			return ret;
		for (size_t k = 0; k < s->n_ids; k++) {
			if (s->ids[k] > max_id)
				max_id = s->ids[k];
			ret = id_index_add(r, s->ids[k], (int16_t)i);
			if (ret)
				return ret;
		}
	}
	/* ftrace and BPF streams: ids above every kernel id in this file */
	for (size_t i = 0; i < r->n_streams; i++) {
		struct stream *s = &r->streams[i];

		if (s->kind != STREAM_FTRACE && s->kind != STREAM_BPF)
			continue;
		s->ids = malloc(sizeof(uint64_t));
		if (!s->ids)
			return -ENOMEM;
		s->ids[0] = ++max_id;
		s->n_ids = 1;
		ret = id_index_add(r, s->ids[0], (int16_t)i);
		if (ret)
			return ret;
		if (s->kind == STREAM_BPF)
			continue;
		if (s->tp_id < 65536)
			r->stream_of_tp[s->tp_id] = (int16_t)i;
		if (!r->ftrace_lost_id)
			r->ftrace_lost_id = s->ids[0];
	}
	return 0;
}

/* Offsets of the common fields, from this kernel's formats. */
int _rsp_common_offsets(struct recorder *r, const struct tp_list *tps)
{
	struct tep_handle *tep = tep_alloc();
	int ret = -ENOENT;

	if (!tep)
		return -ENOMEM;
	for (size_t i = 0; i < tps->n && ret; i++) {
		char path[512], buf[16384];
		struct tep_event *ev = NULL;
		struct tep_format_field *ft, *fp;
		ssize_t n;
		int fd;

		snprintf(path, sizeof(path), "%s/events/%s/%s/format", r->tracefs,
			 tps->v[i].system, tps->v[i].name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		if (tep_parse_format(tep, &ev, buf, (unsigned long)n, tps->v[i].system) !=
			    TEP_ERRNO__SUCCESS ||
		    !ev)
			continue;
		ft = tep_find_common_field(ev, "common_type");
		fp = tep_find_common_field(ev, "common_pid");
		if (ft && fp && ft->size == 2 && fp->size == 4) {
			r->common_type_off = ft->offset;
			r->common_pid_off = fp->offset;
			ret = 0;
		}
	}
	tep_free(tep);
	return ret;
}

/* ---- the ftrace instance ---------------------------------------------------------- */

int _rsp_setup_ftrace(struct recorder *r)
{
	struct rsp_ftrace_opts fo = {
		.buffer_kb = r->o->ftrace_buffer_kb ? r->o->ftrace_buffer_kb : DEFAULT_FTRACE_KB,
		.clock = "mono",
	};
	bool any = false;
	int ret;

	for (size_t i = 0; i < r->n_streams; i++)
		any |= r->streams[i].kind == STREAM_FTRACE;
	if (!any)
		return 0;
	ret = rsp_ftrace_new(&r->ft, &fo, r->err, r->errlen);
	if (ret)
		return ret;
	for (size_t i = 0; i < r->n_streams; i++) {
		struct stream *s = &r->streams[i];
		const char *full;
		char sys[64], name[96];

		if (s->kind != STREAM_FTRACE)
			continue;
		full = r->st->events[s->row].name;
		if (sscanf(full, "%63[^:]:%95s", sys, name) != 2)
			continue;
		ret = rsp_ftrace_enable(r->ft, sys, name);
		if (ret)
			return _rsp_record_fail(r, ret,
						"cannot enable %s in the ftrace instance: %s", full,
						strerror(-ret));
	}
	return 0;
}

/* ---- the kernel's counts, at the end ------------------------------------------------ */

static uint64_t evsel_count(struct perf_evsel *ev)
{
	int ncpu = perf_cpu_map__nr(perf_evsel__cpus(ev));
	int nthr = perf_thread_map__nr(perf_evsel__threads(ev));
	uint64_t sum = 0;

	for (int c = 0; c < ncpu; c++) {
		for (int t = 0; t < nthr; t++) {
			struct perf_counts_values v;

			if (perf_evsel__read(ev, c, t, &v) == 0)
				sum += v.val;
		}
	}
	return sum;
}

void _rsp_read_counts(struct recorder *r)
{
	for (size_t i = 0; i < r->n_streams; i++) {
		struct stream *s = &r->streams[i];
		struct rsp_record_event_stats *row;
		struct perf_evsel *ev = NULL;

		if (s->row < 0 || s->tp_id == 0)
			continue; /* tracking; cpu-clock counts nanoseconds, not events */
		row = &r->st->events[s->row];
		if (s->kind == STREAM_PERF)
			ev = s->evsel;
		else if (s->kind == STREAM_FTRACE && !row->from_perf)
			ev = s->counter;
		if (!ev)
			continue;
		row->kernel_count = evsel_count(ev);
		row->kernel_counted = true;
	}
}
