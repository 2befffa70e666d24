/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rsp_record(): opens the event set, writes a pipe-mode perf.data while the
 * targets run, and accounts for every event (see docs/DESIGN.md, "Recorder").
 *
 * Three perf evlists and one ftrace instance:
 *  - sys:    system-wide per-CPU sampling events (frame-pointer stacks) and a
 *            dummy event for COMM/FORK/EXIT/MMAP2 side-band records;
 *  - target: sched_switch with user-stack copies for the target's process
 *            tree (per-task, inherited), so its sleep stacks unwind with DWARF;
 *  - count:  counting-only events on the tracepoints ftrace delivers, so the
 *            kernel's own count checks the ftrace copy for completeness;
 *  - ftrace: rsp's instance; its events become samples of their own attrs.
 */
#include "rsp-collector.h"

#include "rsp-buildid.h"
#include "ftrace.h"
#include "pathset.h"
#include "records.h"
#include "rsp-perf-format.h"
#include "rsp-probes.h"
#include "synth.h"
#include "target.h"
#include "tidmap.h"
#include "tracing-data.h"
#include "ustack.h"
#include "writer.h"

#include "rsp-config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <asm/perf_regs.h>
#include <perf/core.h>
#include <perf/cpumap.h>
#include <perf/event.h>
#include <perf/evlist.h>
#include <perf/evsel.h>
#include <perf/mmap.h>
#include <perf/threadmap.h>
#include <traceevent/event-parse.h>
#include <tracefs/tracefs.h>

#define DEFAULT_OUTPUT "rsp.data"
#define DEFAULT_SYS_PAGES 512 /* 2 MiB per CPU */
#define DEFAULT_TARGET_PAGES 4096 /* 16 MiB per CPU: 8 KiB user-stack copies (bench: pipe lost 0.1% at 8 MiB) */
#define DEFAULT_FTRACE_KB 4096
#define DEFAULT_STACK 8192
#define POLL_MS 50
#define FLUSH_NS 250000000ull /* hand a chunk to the writer at least this often */

/* x86-64 user registers for DWARF unwinding: all but the segment registers */
#define X86_64_REGS_MASK 0xff0fffULL

enum stream_kind {
	STREAM_TRACKING,
	STREAM_PERF, /* system-wide perf samples */
	STREAM_TARGET, /* target-tree samples with user-stack copies */
	STREAM_FTRACE, /* samples built from ftrace events */
};

struct stream {
	enum stream_kind kind;
	int row; /* index in stats->events, -1 for tracking */
	unsigned tp_id; /* tracepoint id, 0 for cpu-clock/tracking */
	struct perf_event_attr attr;
	struct perf_evsel *evsel; /* PERF, TARGET, TRACKING */
	struct perf_evsel *counter; /* FTRACE: counting event for the kernel count */
	bool no_count; /* FTRACE: its tracepoint's counter sums a field: no kernel count */
	uint64_t *ids;
	size_t n_ids;
};

struct recorder {
	const struct rsp_record_opts *o;
	struct rsp_record_stats *st;
	char *err;
	size_t errlen;

	struct rsp_probe_set probes;
	const char *tracefs;
	struct stream *streams;
	size_t n_streams;

	struct perf_cpu_map *cpus;
	struct perf_thread_map *any_thread;
	struct perf_thread_map *target_threads;
	struct perf_evlist *sys, *target, *count;
	bool sys_open, target_open, count_open;

	struct rsp_ftrace *ft;
	struct rsp_writer *w;
	struct rsp_tidmap tids;
	struct rsp_pathset paths; /* files mapped, for HEADER_BUILD_ID at the end */
	struct rsp_ustack *ustack; /* where each target thread's live stack ends */
	unsigned char *trim_buf; /* a trimmed copy of a record */
	struct rsp_cmd cmd;
	bool have_cmd, cmd_started;
	pid_t *target_pids;
	size_t n_target_pids;
	int *pidfds;

	/* lookups on the hot path */
	int16_t *stream_of_tp; /* [65536] ftrace streams by common_type */
	uint64_t *id_keys;
	int16_t *id_vals;
	size_t id_cap;
	unsigned common_type_off, common_pid_off; /* from the event formats */
	uint64_t ftrace_lost_id;
	uint64_t last_flush;
	bool ftrace_failed;
};

static volatile sig_atomic_t stop_requested;

void rsp_record_request_stop(void)
{
	stop_requested = 1;
}

static void logf_(struct recorder *r, enum rsp_log_level lvl, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void logf_(struct recorder *r, enum rsp_log_level lvl, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (!r->o->log)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	r->o->log(lvl, msg, r->o->log_ctx);
}

static int fail(struct recorder *r, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct recorder *r, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, r->errlen, fmt, ap);
	va_end(ap);
	return ret < 0 ? ret : -EINVAL;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

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

static struct stream *add_stream(struct recorder *r, enum stream_kind kind, int row,
				 unsigned tp_id)
{
	struct stream *s = realloc(r->streams, (r->n_streams + 1) * sizeof(*s));

	if (!s)
		return NULL;
	r->streams = s;
	s = &r->streams[r->n_streams++];
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	s->row = row;
	s->tp_id = tp_id;
	return s;
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

/* Names of the tracepoints in the file, for the tracing data. */
struct tp_list {
	struct rsp_tp_name *v;
	size_t n;
};

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

static void add_user_stack(struct recorder *r, struct perf_event_attr *a)
{
	a->sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	a->exclude_callchain_user = 1;
	a->sample_regs_user = X86_64_REGS_MASK;
	a->sample_stack_user = r->o->stack_size ? r->o->stack_size : DEFAULT_STACK;
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
	return r->o->mmap_pages ? r->o->mmap_pages * 4 : DEFAULT_TARGET_PAGES;
}

static int resolve_events(struct recorder *r, struct tp_list *tps)
{
	bool target_dwarf = r->o->call_graph == RSP_CALL_GRAPH_DEFAULT && r->n_target_pids > 0;
	struct stream *s;
	char full[128];
	int ret;

	s = add_stream(r, STREAM_TRACKING, -1, 0);
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
					logf_(r, RSP_LOG_INFO, "%s not available: using %s:%s instead",
					      full, sys, name);
				} else if (p->required) {
					return fail(r, -ENOENT,
						    "%s not available on this kernel: rsp needs it "
						    "(check CONFIG_TRACEPOINTS and %s/events/%s)",
						    full, r->tracefs, p->system);
				} else {
					logf_(r, RSP_LOG_WARN, "%s not available: %s", full,
					      p->missing);
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
		if (p->source & RSP_SOURCE_PERF) {
			s = add_stream(r, STREAM_PERF, row, (unsigned)id);
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
				s->attr.sample_period = 1000000000ull / r->o->sample_hz;
				s->attr.sample_type |= PERF_SAMPLE_IP;
			}
			if (p->stack != RSP_STACK_NONE) {
				if (r->o->call_graph == RSP_CALL_GRAPH_DWARF)
					add_user_stack(r, &s->attr);
				else
					s->attr.sample_type |= PERF_SAMPLE_CALLCHAIN;
			}
			r->st->events[row].from_perf = true;
			if (p->stack == RSP_STACK_SLEEP && target_dwarf) {
				struct stream *t = add_stream(r, STREAM_TARGET, row, (unsigned)id);

				if (!t)
					return -ENOMEM;
				t->attr = r->streams[r->n_streams - 2].attr;
				t->attr.sample_type &= ~PERF_SAMPLE_CALLCHAIN;
				add_user_stack(r, &t->attr);
				t->attr.inherit = 1;
				/* a command's copies start at its exec, as perf's: stacks of the
				 * pre-exec image (rsp's own) would confuse unwinders that cache
				 * per address space */
				t->attr.enable_on_exec = r->have_cmd;
				set_wakeup(&t->attr, target_pages(r));
			}
		}
		if (p->source & RSP_SOURCE_FTRACE) {
			s = add_stream(r, STREAM_FTRACE, row, (unsigned)id);
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
		return fail(r, ret,
			    "not allowed to open %s: system-wide tracing needs root or "
			    "CAP_PERFMON (kernel.perf_event_paranoid is too strict)",
			    what);
	if (ret == -EMFILE)
		return fail(r, ret, "too many open files opening %s: raise `ulimit -n`", what);
	if (ret == -ENOENT || ret == -ENODEV || ret == -EOPNOTSUPP)
		return fail(r, ret, "this kernel cannot open %s: %s", what, strerror(-ret));
	return fail(r, ret, "cannot open %s: %s", what, strerror(-ret));
}

static int build_evlists(struct recorder *r)
{
	r->sys = perf_evlist__new();
	r->count = perf_evlist__new();
	if (!r->sys || !r->count)
		return -ENOMEM;
	if (r->n_target_pids) {
		r->target = perf_evlist__new();
		if (!r->target)
			return -ENOMEM;
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

static int open_evlists(struct recorder *r)
{
	int ret;

	ret = perf_evlist__open(r->sys);
	if (ret)
		return open_error(r, ret, "the system-wide perf events");
	r->sys_open = true;
	ret = perf_evlist__mmap(r->sys, (int)sys_pages(r));
	if (ret)
		return fail(r, ret,
			    "cannot map %u pages per CPU of perf buffer: lower -m, or raise "
			    "kernel.perf_event_mlock_kb",
			    sys_pages(r));
	if (r->target) {
		ret = perf_evlist__open(r->target);
		if (ret)
			return open_error(r, ret, "the target's perf events");
		r->target_open = true;
		ret = perf_evlist__mmap(r->target, (int)target_pages(r));
		if (ret)
			return fail(r, ret,
				    "cannot map %u pages per CPU for the target's stacks: lower -m",
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

static int stream_of_id(const struct recorder *r, uint64_t id)
{
	size_t m = r->id_cap - 1;

	for (size_t s = (id * 0x9e3779b97f4a7c15ull) >> 54 & m, n = 0; n < r->id_cap;
	     s = (s + 1) & m, n++) {
		if (r->id_keys[s] == id + 1)
			return r->id_vals[s];
		if (r->id_keys[s] == 0)
			return -1;
	}
	return -1;
}

static int assign_ids(struct recorder *r)
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
	/* ftrace streams: ids above every kernel id in this file */
	for (size_t i = 0; i < r->n_streams; i++) {
		struct stream *s = &r->streams[i];

		if (s->kind != STREAM_FTRACE)
			continue;
		s->ids = malloc(sizeof(uint64_t));
		if (!s->ids)
			return -ENOMEM;
		s->ids[0] = ++max_id;
		s->n_ids = 1;
		ret = id_index_add(r, s->ids[0], (int16_t)i);
		if (ret)
			return ret;
		if (s->tp_id < 65536)
			r->stream_of_tp[s->tp_id] = (int16_t)i;
		if (!r->ftrace_lost_id)
			r->ftrace_lost_id = s->ids[0];
	}
	return 0;
}

/* Offsets of the common fields, from this kernel's formats. */
static int common_offsets(struct recorder *r, const struct tp_list *tps)
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

/* ---- the file's head ------------------------------------------------------------ */

static int compression_level(const struct recorder *r)
{
	return r->o->compression < 0 ? 0 : r->o->compression ? r->o->compression : 1;
}

static int write_features(struct recorder *r)
{
	struct utsname u;
	char host[256], ver[64];
	uint32_t nrcpus[2];
	uint64_t res_ns = 1, mem_kb;
	struct sysinfo si;
	struct timespec res;
	int ret = 0;

	if (uname(&u) == 0) {
		ret |= rsp_rec_feature_string(r->w, RSP_PF_FEAT_OSRELEASE, u.release);
		ret |= rsp_rec_feature_string(r->w, RSP_PF_FEAT_ARCH, u.machine);
	}
	if (gethostname(host, sizeof(host)) == 0) {
		host[sizeof(host) - 1] = '\0';
		ret |= rsp_rec_feature_string(r->w, RSP_PF_FEAT_HOSTNAME, host);
	}
	snprintf(ver, sizeof(ver), "rsp %s", RSP_VERSION);
	ret |= rsp_rec_feature_string(r->w, RSP_PF_FEAT_VERSION, ver);
	nrcpus[0] = (uint32_t)sysconf(_SC_NPROCESSORS_CONF);
	nrcpus[1] = (uint32_t)sysconf(_SC_NPROCESSORS_ONLN);
	ret |= rsp_rec_feature(r->w, RSP_PF_FEAT_NRCPUS, nrcpus, sizeof(nrcpus));
	if (sysinfo(&si) == 0) {
		mem_kb = (uint64_t)si.totalram * si.mem_unit / 1024;
		ret |= rsp_rec_feature(r->w, RSP_PF_FEAT_TOTAL_MEM, &mem_kb, sizeof(mem_kb));
	}
	if (clock_getres(CLOCK_MONOTONIC, &res) == 0)
		res_ns = (uint64_t)res.tv_sec * 1000000000ull + res.tv_nsec;
	ret |= rsp_rec_feature(r->w, RSP_PF_FEAT_CLOCKID, &res_ns, sizeof(res_ns));
	{
		/* CLOCK_DATA: version 1, clockid, wall-clock and monotonic reference */
		struct {
			uint32_t version, clockid;
			uint64_t tod_ns, clk_ns;
		} cd = { 1, CLOCK_MONOTONIC, 0, 0 };
		struct timespec rt, mono;

		clock_gettime(CLOCK_REALTIME, &rt);
		clock_gettime(CLOCK_MONOTONIC, &mono);
		cd.tod_ns = (uint64_t)rt.tv_sec * 1000000000ull + rt.tv_nsec;
		cd.clk_ns = (uint64_t)mono.tv_sec * 1000000000ull + mono.tv_nsec;
		ret |= rsp_rec_feature(r->w, RSP_PF_FEAT_CLOCK_DATA, &cd, sizeof(cd));
	}
	if (r->o->n_cmdline) {
		char exe[4096];
		const char **v = calloc(r->o->n_cmdline + 1, sizeof(*v));
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

		if (!v)
			return -ENOMEM;
		exe[n > 0 ? n : 0] = '\0';
		/* perf's layout: the executable, then argv */
		v[0] = exe;
		for (size_t i = 0; i < r->o->n_cmdline; i++)
			v[i + 1] = r->o->cmdline[i];
		ret |= rsp_rec_feature_strings(r->w, RSP_PF_FEAT_CMDLINE, v, r->o->n_cmdline + 1);
		free(v);
	}
	if (compression_level(r) > 0) {
		/* perf's HEADER_COMPRESSED: version, type (1: zstd), level, ratio,
		 * and the size of the buffer one record decompresses into */
		uint32_t comp[5] = { 1, 1, (uint32_t)compression_level(r), 0,
				     4 * RSP_COMPRESS_PIECE };

		ret |= rsp_rec_feature(r->w, RSP_PF_FEAT_COMPRESSED, comp, sizeof(comp));
	}
	return ret ? -ENOMEM : 0;
}

static int write_head(struct recorder *r, const struct tp_list *tps)
{
	void *td = NULL;
	size_t td_len = 0;
	uint8_t kbid[20];
	int ret, kbid_len;

	ret = write_features(r);
	/*
	 * Attrs with user-stack copies first: perf script (6.1, pipe mode) picks
	 * DWARF unwinding only if the first attr of a type already needs it.
	 */
	for (int pass = 0; pass < 2 && !ret; pass++) {
		for (size_t i = 0; i < r->n_streams && !ret; i++) {
			const struct stream *s = &r->streams[i];
			bool copies = s->attr.sample_type & PERF_SAMPLE_STACK_USER;

			if (copies == (pass == 0))
				ret = rsp_rec_attr(r->w, &s->attr, s->ids, s->n_ids);
		}
	}
	if (ret)
		return fail(r, ret, "out of memory writing the file header");
	ret = rsp_tracing_data_build(r->tracefs, tps->v, tps->n,
				     r->o->no_kallsyms ? NULL : "/proc/kallsyms", &td, &td_len, r->err,
				     r->errlen);
	if (ret)
		return ret;
	ret = rsp_rec_tracing_data(r->w, td, td_len);
	free(td);
	if (ret)
		return fail(r, ret, "tracing data too large (%zu bytes)", td_len);
	kbid_len = rsp_build_id_of_kernel(kbid, sizeof(kbid));
	if (kbid_len > 0)
		rsp_rec_build_id(r->w, -1, kbid, (size_t)kbid_len, "[kernel.kallsyms]",
				 PERF_RECORD_MISC_KERNEL);
	if (r->n_target_pids) {
		const char **comms = calloc(r->n_target_pids, sizeof(*comms));
		char(*names)[16] = calloc(r->n_target_pids, sizeof(*names));
		int *pids = calloc(r->n_target_pids, sizeof(*pids));

		if (!comms || !names || !pids) {
			free(comms);
			free(names);
			free(pids);
			return -ENOMEM;
		}
		for (size_t i = 0; i < r->n_target_pids; i++) {
			pids[i] = r->target_pids[i];
			if (r->have_cmd && i == 0)
				snprintf(names[i], sizeof(names[i]), "%s", r->o->argv[0]);
			else
				rsp_pid_comm(r->target_pids[i], names[i], sizeof(names[i]));
			comms[i] = names[i];
		}
		ret = rsp_rec_thread_map(r->w, pids, comms, r->n_target_pids);
		free(comms);
		free(names);
		free(pids);
	}
	return ret;
}

/* ---- draining -------------------------------------------------------------------- */

/* the stream a sample came from (index in r->streams), -1 for other records */
static int account_record(struct recorder *r, const union perf_event *ev)
{
	const struct perf_event_header *h = &ev->header;
	int stream = -1;

	switch (h->type) {
	case PERF_RECORD_SAMPLE: {
		uint64_t id;
		int si;

		if (h->size < sizeof(*h) + sizeof(id))
			break;
		memcpy(&id, (const char *)ev + sizeof(*h), sizeof(id));
		si = stream_of_id(r, id);
		if (si >= 0 && r->streams[si].row >= 0) {
			struct rsp_record_event_stats *row = &r->st->events[r->streams[si].row];

			if (r->streams[si].kind == STREAM_TARGET)
				row->target_samples++;
			else
				row->perf_samples++;
			stream = si;
		}
		break;
	}
	case PERF_RECORD_LOST: {
		const struct rsp_pf_sample_id *sid;

		if (h->size < sizeof(struct rsp_pf_lost) + sizeof(*sid))
			break;
		sid = (const void *)((const char *)ev + h->size - sizeof(*sid));
		if (sid->cpu < (uint32_t)r->st->nr_cpus)
			r->st->lost_perf[sid->cpu] += ev->lost.lost;
		break;
	}
	case PERF_RECORD_FORK:
		rsp_tidmap_set(&r->tids, ev->fork.tid, ev->fork.pid);
		break;
	case PERF_RECORD_COMM:
		rsp_tidmap_set(&r->tids, ev->comm.tid, ev->comm.pid);
		if ((h->misc & PERF_RECORD_MISC_COMM_EXEC) && r->ustack)
			rsp_ustack_forget(r->ustack, ev->comm.pid); /* a new stack */
		break;
	case PERF_RECORD_MMAP2: {
		const struct rsp_pf_mmap2 *m = (const void *)ev;
		size_t room = h->size - offsetof(struct rsp_pf_mmap2, filename);

		if (h->size > offsetof(struct rsp_pf_mmap2, filename) && m->filename[0] == '/' &&
		    memchr(m->filename, '\0', room))
			rsp_pathset_add(&r->paths, m->filename);
		break;
	}
	case PERF_RECORD_THROTTLE:
		r->st->throttled++;
		break;
	default:
		break;
	}
	return stream;
}

/*
 * A target sleep's user-stack copy, cut to the live part of the stack
 * (ustack.h): the kernel copies a fixed size, most of it above the
 * outermost frame.
 */
static int append_trimmed(struct recorder *r, const union perf_event *ev,
			  const struct perf_event_attr *a)
{
	struct rsp_ustack_loc loc;
	uint64_t keep;
	void *out;
	size_t n;

	if (!r->ustack || !r->trim_buf ||
	    rsp_ustack_locate(ev, ev->header.size, a->sample_type, a->sample_regs_user,
			      PERF_REG_X86_SP, &loc))
		return rsp_writer_append(r->w, ev, ev->header.size);
	keep = rsp_ustack_keep(r->ustack, loc.pid, loc.tid, loc.sp, loc.size,
			       (const unsigned char *)ev + loc.size_off + 8,
			       loc.dyn_size < loc.size ? loc.dyn_size : loc.size);
	if (keep >= loc.size)
		return rsp_writer_append(r->w, ev, ev->header.size);
	n = rsp_ustack_trim(ev, ev->header.size, &loc, keep, r->trim_buf);
	out = rsp_writer_reserve(r->w, n);
	if (!out)
		return -ENOMEM;
	memcpy(out, r->trim_buf, n);
	r->st->ustack_bytes_trimmed += ev->header.size - n;
	return 0;
}

static int drain_evlist(struct recorder *r, struct perf_evlist *el)
{
	struct perf_mmap *map;

	if (!el)
		return 0;
	perf_evlist__for_each_mmap(el, map, false)
	{
		union perf_event *ev;

		if (perf_mmap__read_init(map) < 0)
			continue;
		while ((ev = perf_mmap__read_event(map))) {
			int si = account_record(r, ev);

			if (si >= 0 && r->streams[si].kind == STREAM_TARGET) {
				if (append_trimmed(r, ev, &r->streams[si].attr))
					return -ENOMEM;
			} else if (rsp_writer_append(r->w, ev, ev->header.size)) {
				return -ENOMEM;
			}
			r->st->records++;
			perf_mmap__consume(map);
		}
		perf_mmap__read_done(map);
	}
	return 0;
}

static uint32_t tgid_of(struct recorder *r, uint32_t tid)
{
	int64_t v = rsp_tidmap_get(&r->tids, tid);
	char path[64], buf[1024];
	uint32_t tgid = tid;
	FILE *f;

	if (v >= 0)
		return (uint32_t)v;
	if (tid == 0)
		return 0;
	/* a thread whose FORK record we have not drained yet */
	snprintf(path, sizeof(path), "/proc/%u/status", tid);
	f = fopen(path, "re");
	if (f) {
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);
		char *p;

		buf[n] = '\0';
		p = strstr(buf, "\nTgid:");
		if (p)
			tgid = (uint32_t)strtoul(p + 6, NULL, 10);
		fclose(f);
	}
	rsp_tidmap_set(&r->tids, tid, tgid);
	return tgid;
}

static int on_ftrace_event(void *ctx, int cpu, uint64_t ts, const void *data, size_t size)
{
	struct recorder *r = ctx;
	uint16_t type;
	int32_t tid;
	size_t raw, rec;
	unsigned char *p;
	struct stream *s;
	int si;
	uint32_t u32;
	uint64_t u64;

	if (size < r->common_pid_off + 4 || size < r->common_type_off + 2)
		return 0;
	memcpy(&type, (const char *)data + r->common_type_off, 2);
	memcpy(&tid, (const char *)data + r->common_pid_off, 4);
	si = r->stream_of_tp[type];
	if (si < 0)
		return 0;
	s = &r->streams[si];
	raw = RSP_PF_ALIGN(size + 4) - 4;
	/* IDENTIFIER IP TID TIME CPU PERIOD, then RAW */
	rec = sizeof(struct perf_event_header) + 6 * 8 + 4 + raw;
	if (rec > UINT16_MAX)
		return 0;
	p = rsp_writer_reserve(r->w, rec);
	if (!p)
		return -ENOMEM;
	{
		struct perf_event_header h = {
			.type = PERF_RECORD_SAMPLE,
			.misc = PERF_RECORD_MISC_KERNEL,
			.size = (uint16_t)rec,
		};

		memcpy(p, &h, sizeof(h));
		p += sizeof(h);
	}
	memcpy(p, &s->ids[0], 8); /* IDENTIFIER */
	p += 8;
	memset(p, 0, 8); /* IP: unknown */
	p += 8;
	u32 = tgid_of(r, (uint32_t)tid); /* TID: pid, tid */
	memcpy(p, &u32, 4);
	memcpy(p + 4, &tid, 4);
	p += 8;
	memcpy(p, &ts, 8); /* TIME */
	p += 8;
	u64 = (uint32_t)cpu; /* CPU: cpu, res */
	memcpy(p, &u64, 8);
	p += 8;
	u64 = 1; /* PERIOD */
	memcpy(p, &u64, 8);
	p += 8;
	u32 = (uint32_t)raw; /* RAW */
	memcpy(p, &u32, 4);
	p += 4;
	memcpy(p, data, size);
	memset(p + size, 0, raw - size);
	r->st->events[s->row].ftrace_events++;
	r->st->records++;
	return 0;
}

static void on_ftrace_lost(void *ctx, int cpu, uint64_t ts, uint64_t lost)
{
	struct recorder *r = ctx;
	struct {
		struct rsp_pf_lost l;
		struct rsp_pf_sample_id sid;
	} rec;

	memset(&rec, 0, sizeof(rec));
	rec.l.header.type = PERF_RECORD_LOST;
	rec.l.header.size = sizeof(rec);
	rec.l.id = r->ftrace_lost_id;
	rec.l.lost = lost;
	rec.sid.time = ts;
	rec.sid.cpu = (uint32_t)cpu;
	rec.sid.id = r->ftrace_lost_id;
	if (cpu < r->st->nr_cpus)
		r->st->lost_ftrace[cpu] += lost;
	rsp_writer_append(r->w, &rec, sizeof(rec));
	r->st->records++;
}

static int drain_all(struct recorder *r)
{
	int ret = drain_evlist(r, r->sys);

	if (!ret)
		ret = drain_evlist(r, r->target);
	if (!ret && r->ft && !r->ftrace_failed) {
		long n = rsp_ftrace_drain(r->ft, on_ftrace_event, on_ftrace_lost, r);

		if (n < 0 && n != -ENOMEM) {
			logf_(r, RSP_LOG_ERROR, "reading the ftrace instance failed: %s",
			      strerror((int)-n));
			r->ftrace_failed = true;
		} else if (n == -ENOMEM) {
			ret = -ENOMEM;
		}
	}
	rsp_writer_round(r->w);
	return ret;
}

/* ---- the end ----------------------------------------------------------------------- */

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

static void read_counts(struct recorder *r)
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

/* perf record's way: build ids of the mapped files, after the samples */
static void write_build_ids(struct recorder *r)
{
	const char *path;
	size_t i;

	rsp_pathset_for_each(&r->paths, i, path)
	{
		uint8_t id[20];
		int len = rsp_build_id_of_file(path, id, sizeof(id));

		if (len > 0)
			rsp_rec_build_id(r->w, -1, id, (size_t)len, path, PERF_RECORD_MISC_USER);
	}
}

static bool targets_exited(struct recorder *r)
{
	if (r->have_cmd) {
		int status;
		pid_t p = waitpid(r->cmd.pid, &status, WNOHANG);

		if (p == r->cmd.pid) {
			r->st->child_status = status;
			r->cmd.pid = -1;
			return true;
		}
		return r->cmd.pid < 0;
	}
	if (!r->o->n_pids)
		return false;
	for (size_t i = 0; i < r->o->n_pids; i++) {
		if (r->pidfds[i] >= 0) {
			struct pollfd pfd = { .fd = r->pidfds[i], .events = POLLIN };

			if (poll(&pfd, 1, 0) == 0)
				return false;
		} else if (kill(r->o->pids[i], 0) == 0) {
			return false;
		}
	}
	return true;
}

static void raise_priority(struct recorder *r)
{
	struct sched_param sp = { .sched_priority = 10 };

	if (r->o->no_rt || geteuid() != 0)
		return;
	if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) == 0)
		r->st->rt_reader = true;
	else
		logf_(r, RSP_LOG_WARN, "cannot raise the reader to real-time priority");
}

static int record_loop(struct recorder *r, uint64_t t0)
{
	uint64_t deadline = r->o->duration > 0 ? t0 + (uint64_t)(r->o->duration * 1e9) : 0;
	int ret;

	r->last_flush = t0;
	for (;;) {
		uint64_t now;
		int werr;

		perf_evlist__poll(r->sys, POLL_MS);
		ret = drain_all(r);
		if (ret)
			return fail(r, ret, "out of memory buffering events");
		now = now_ns();
		if (now - r->last_flush >= FLUSH_NS) {
			rsp_writer_flush(r->w);
			r->last_flush = now;
		}
		werr = rsp_writer_error(r->w);
		if (werr) {
			r->st->stop = RSP_STOP_WRITE_ERROR;
			r->st->write_error = werr;
			return 0;
		}
		if (stop_requested) {
			r->st->stop = RSP_STOP_SIGNAL;
			return 0;
		}
		if (targets_exited(r)) {
			r->st->stop = RSP_STOP_TARGETS_EXITED;
			return 0;
		}
		if (deadline && now >= deadline) {
			r->st->stop = RSP_STOP_DURATION;
			return 0;
		}
	}
}

/* ---- setup and teardown --------------------------------------------------------------- */

static int setup_targets(struct recorder *r)
{
	size_t n_tids = 0;
	pid_t *tids = NULL;
	int ret;

	if (r->o->argv && r->o->argv[0]) {
		ret = rsp_cmd_prepare(&r->cmd, r->o->argv, r->err, r->errlen);
		if (ret)
			return ret;
		r->have_cmd = true;
		r->target_pids = malloc(sizeof(pid_t));
		if (!r->target_pids)
			return -ENOMEM;
		r->target_pids[0] = r->cmd.pid;
		r->n_target_pids = 1;
		tids = malloc(sizeof(pid_t));
		if (!tids)
			return -ENOMEM;
		tids[0] = r->cmd.pid;
		n_tids = 1;
	}
	if (r->o->n_pids) {
		r->pidfds = malloc(r->o->n_pids * sizeof(int));
		r->target_pids = realloc(r->target_pids,
					 (r->n_target_pids + r->o->n_pids) * sizeof(pid_t));
		if (!r->pidfds || !r->target_pids)
			return -ENOMEM;
		for (size_t i = 0; i < r->o->n_pids; i++) {
			pid_t *t = NULL;
			size_t nt = 0;

			r->pidfds[i] = -1;
			ret = rsp_pid_check(r->o->pids[i], r->err, r->errlen);
			if (ret)
				return ret;
			r->pidfds[i] = rsp_pidfd_open(r->o->pids[i]);
			r->target_pids[r->n_target_pids++] = r->o->pids[i];
			ret = rsp_pid_threads(r->o->pids[i], &t, &nt);
			if (ret)
				return ret;
			tids = realloc(tids, (n_tids + nt) * sizeof(pid_t));
			if (!tids) {
				free(t);
				return -ENOMEM;
			}
			memcpy(tids + n_tids, t, nt * sizeof(pid_t));
			n_tids += nt;
			free(t);
		}
	}
	if (n_tids) {
		r->target_threads = perf_thread_map__new_array((int)n_tids, tids);
		free(tids);
		if (!r->target_threads)
			return -ENOMEM;
	}
	for (size_t i = 0; i < r->n_target_pids && i < 16; i++)
		r->st->target_pids[r->st->target_pids_n++] = r->target_pids[i];
	return 0;
}

static int setup_ftrace(struct recorder *r)
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
			return fail(r, ret, "cannot enable %s in the ftrace instance: %s", full,
				    strerror(-ret));
	}
	return 0;
}

static void teardown(struct recorder *r)
{
	if (r->sys) {
		if (r->sys_open) {
			perf_evlist__munmap(r->sys);
			perf_evlist__close(r->sys);
		}
		perf_evlist__delete(r->sys);
	}
	if (r->target) {
		if (r->target_open) {
			perf_evlist__munmap(r->target);
			perf_evlist__close(r->target);
		}
		perf_evlist__delete(r->target);
	}
	if (r->count) {
		if (r->count_open)
			perf_evlist__close(r->count);
		perf_evlist__delete(r->count);
	}
	rsp_ftrace_free(r->ft);
	perf_cpu_map__put(r->cpus);
	perf_thread_map__put(r->any_thread);
	perf_thread_map__put(r->target_threads);
	for (size_t i = 0; i < r->n_streams; i++)
		free(r->streams[i].ids);
	free(r->streams);
	if (r->pidfds)
		for (size_t i = 0; i < r->o->n_pids; i++)
			if (r->pidfds[i] >= 0)
				close(r->pidfds[i]);
	free(r->pidfds);
	free(r->target_pids);
	free(r->stream_of_tp);
	free(r->id_keys);
	free(r->id_vals);
	rsp_tidmap_free(&r->tids);
	rsp_pathset_free(&r->paths);
	rsp_ustack_free(r->ustack);
	free(r->trim_buf);
	rsp_probe_set_clear(&r->probes);
}

static int silent_libperf(enum libperf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

void rsp_record_stats_clear(struct rsp_record_stats *st)
{
	if (!st)
		return;
	free(st->events);
	free(st->lost_perf);
	free(st->lost_ftrace);
	memset(st, 0, sizeof(*st));
}

int rsp_record(const struct rsp_record_opts *opts, struct rsp_record_stats *st, char *err,
	       size_t errlen)
{
	struct recorder r = { .o = opts, .st = st, .err = err, .errlen = errlen };
	struct tp_list tps = { 0 };
	const char *out = opts->output ? opts->output : DEFAULT_OUTPUT;
	char perr[256];
	uint64_t t0;
	int ret;

	memset(st, 0, sizeof(*st));
	err[0] = '\0';
	stop_requested = 0;
	libperf_init(silent_libperf);

	if (!opts->argv && !opts->n_pids && !opts->system_wide)
		return fail(&r, -EINVAL,
			    "nothing to record: give -p PID, -a, or -- COMMAND [ARGS...]");
	if (geteuid() != 0)
		return fail(&r, -EPERM,
			    "rsp record must run as root: it traces the whole system through "
			    "perf (kernel.perf_event_paranoid) and its own ftrace instance");
	if (tracefs_tracing_dir_is_mounted(true, &r.tracefs) < 0 || !r.tracefs)
		return fail(&r, -ENOENT,
			    "tracefs is not mounted and could not be mounted: run `mount -t "
			    "tracefs nodev /sys/kernel/tracing`");
	ret = rsp_probe_set_parse(&r.probes,
				  opts->probes_text ? opts->probes_text : rsp_probes_builtin_text,
				  perr, sizeof(perr));
	if (ret)
		return fail(&r, ret, "event set: %s", perr);
	ret = rsp_ftrace_remove_stale();
	if (ret > 0)
		logf_(&r, RSP_LOG_INFO, "removed %d ftrace instance(s) left by killed recorders",
		      ret);

	r.ustack = rsp_ustack_new();
	r.trim_buf = malloc(65536); /* a record's size is a u16 */
	if (!r.ustack || !r.trim_buf) {
		rsp_ustack_free(r.ustack);
		free(r.trim_buf);
		return fail(&r, -ENOMEM, "out of memory");
	}
	st->nr_cpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	st->lost_perf = calloc(st->nr_cpus, sizeof(uint64_t));
	st->lost_ftrace = calloc(st->nr_cpus, sizeof(uint64_t));
	r.cpus = perf_cpu_map__new(NULL);
	r.any_thread = perf_thread_map__new_dummy();
	if (!st->lost_perf || !st->lost_ftrace || !r.cpus || !r.any_thread) {
		ret = fail(&r, -ENOMEM, "out of memory");
		goto out;
	}

	ret = setup_targets(&r);
	if (ret)
		goto out;
	ret = resolve_events(&r, &tps);
	if (ret)
		goto out;
	ret = common_offsets(&r, &tps);
	if (ret) {
		ret = fail(&r, ret, "cannot read the tracepoint formats under %s/events",
			   r.tracefs);
		goto out;
	}
	ret = build_evlists(&r);
	if (ret) {
		ret = fail(&r, ret, "out of memory");
		goto out;
	}
	ret = setup_ftrace(&r);
	if (ret)
		goto out;
	ret = open_evlists(&r);
	if (ret)
		goto out;
	ret = assign_ids(&r);
	if (ret) {
		ret = fail(&r, ret, "cannot read the perf event ids: %s", strerror(-ret));
		goto out;
	}
	ret = rsp_writer_open(&r.w, out, err, errlen);
	if (ret)
		goto out;
	ret = write_head(&r, &tps);
	if (ret)
		goto out;

	/* ftrace first, so its window covers the kernel counters' */
	if (r.ft) {
		ret = rsp_ftrace_start(r.ft, err, errlen);
		if (ret)
			goto out;
	}
	if (r.count_open)
		perf_evlist__enable(r.count);
	perf_evlist__enable(r.sys);
	if (r.target && !r.have_cmd)
		perf_evlist__enable(r.target);
	t0 = now_ns();

	/* what already exists, after enabling: nothing falls in between */
	{
		struct rsp_synth_ctx sc = {
			.w = r.w,
			.id = r.streams[0].ids[0],
			.time = 0,
			.tids = &r.tids,
			.data_maps = r.streams[0].attr.mmap_data,
			.paths = &r.paths,
		};

		ret = rsp_synth_kernel(&sc);
		if (ret)
			logf_(&r, RSP_LOG_WARN,
			      "kernel addresses are hidden (kernel.kptr_restrict): kernel stacks "
			      "will not symbolize");
		ret = rsp_synth_threads(&sc);
		if (ret) {
			ret = fail(&r, ret, "cannot list the running threads: %s", strerror(-ret));
			goto out;
		}
		st->synthesized_threads = sc.n_threads;
		rsp_rec_finished_init(r.w);
		ret = rsp_writer_set_compression(r.w, compression_level(&r));
		if (ret) {
			ret = fail(&r, ret, "out of memory for the compressor");
			goto out;
		}
	}

	if (r.have_cmd) {
		ret = rsp_cmd_start(&r.cmd, opts->argv, err, errlen);
		if (ret) {
			/* reap the child that failed to exec */
			st->exec_failed = true;
			waitpid(r.cmd.pid, NULL, 0);
			r.cmd.pid = -1;
			goto out_stop;
		}
		r.cmd_started = true;
		st->child_ran = true;
	}
	raise_priority(&r);
	ret = record_loop(&r, t0);

out_stop:
	perf_evlist__disable(r.sys);
	if (r.target)
		perf_evlist__disable(r.target);
	if (r.count_open)
		perf_evlist__disable(r.count);
	rsp_ftrace_stop(r.ft);
	if (!ret || r.cmd_started) {
		int dret = drain_all(&r);

		if (dret && !ret)
			ret = fail(&r, dret, "out of memory buffering events");
		read_counts(&r);
		rsp_writer_set_compression(r.w, 0); /* the trailing headers as perf writes them */
		write_build_ids(&r);
		rsp_writer_round(r.w);
		for (int c = 0; r.ft && c < st->nr_cpus; c++) {
			int64_t d = rsp_ftrace_dropped(r.ft, c);

			if (d > (int64_t)st->lost_ftrace[c])
				st->lost_ftrace[c] = (uint64_t)d;
		}
	}
	st->seconds = (now_ns() - t0) / 1e9;
out:
	if (r.w) {
		int werr;

		werr = rsp_writer_close(r.w, &st->bytes, &st->raw_bytes, &st->z_bytes);
		if (werr && !st->write_error) {
			st->write_error = werr;
			st->stop = RSP_STOP_WRITE_ERROR;
		}
		if (st->write_error)
			st->bytes = 0; /* unknown: see the file */
	}
	if (r.have_cmd) {
		if (r.cmd.pid > 0 && r.cmd_started) {
			/* the recording stopped first (signal, -d, error): wait for the
			 * command; -d ends it as timeout(1) would */
			int status;

			if (st->stop == RSP_STOP_DURATION)
				kill(r.cmd.pid, SIGTERM);

			if (waitpid(r.cmd.pid, &status, 0) == r.cmd.pid)
				st->child_status = status;
			r.cmd.pid = -1;
		}
		rsp_cmd_abort(&r.cmd);
	}
	teardown(&r);
	free(tps.v);
	return ret;
}
