/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The reader loop: poll, drain every perf ring buffer and every ftrace CPU
 * buffer, end a round (FINISHED_ROUND), hand a chunk to the writer at least
 * every FLUSH_NS, until a reason to stop.  Each record is accounted for as it
 * goes by (samples per event, lost records, the thread map, the files mapped);
 * a target sleep's user-stack copy is cut to the live part of the stack
 * (ustack.h); an ftrace event becomes a perf sample of its stream's attr.
 * This is the hot path of recording.
 */
#include "record-private.h"

#include "rsp-perf-format.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <asm/perf_regs.h>
#include <perf/event.h>
#include <perf/evlist.h>
#include <perf/mmap.h>

#define POLL_MS 50
/* ftrace sub-buffers read per CPU in one pass of the loop: a ring that
 * refills as fast as it is read (a million socket events a second) would
 * otherwise hold the reader while the target's perf rings overflow (pipe
 * ping-pong under a saturating load lost records in the target's own rings) */
#define FTRACE_PASS_SUBBUFS 64
#define FLUSH_NS 250000000ull /* hand a chunk to the writer at least this often */

/* ---- draining -------------------------------------------------------------------- */

/* the stream of a sample id, from the index assign_ids() made (record-events.c); -1 if none */
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

/* the stream a sample came from (index in r->streams), -1 for other records,
 * -2 for a sample of a shed stream (not written) */
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
		if (si >= 0 && r->streams[si].shed_class && r->streams[si].shed_from &&
		    h->size >= r->streams[si].time_off + 8) {
			uint64_t t;

			memcpy(&t, (const char *)ev + r->streams[si].time_off, 8);
			if (_rsp_shed_drops(&r->streams[si], t)) {
				uint32_t cpu = 0; /* CPU follows TIME */

				if (h->size >= r->streams[si].time_off + 12)
					memcpy(&cpu, (const char *)ev + r->streams[si].time_off + 8, 4);
				if (cpu >= (uint32_t)r->st->nr_cpus)
					cpu = 0;
				r->shed_n[(size_t)si * r->st->nr_cpus + cpu]++;
				return -2;
			}
		}
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
		{
			int si = stream_of_id(r, ev->lost.id);

			if (si >= 0 && r->streams[si].kind == STREAM_TARGET)
				r->st->lost_target += ev->lost.lost;
		}
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
 * A user-stack copy (a target's sleep, a CPU sample), cut to the live part of
 * the stack (ustack.h): the kernel copies a fixed size, most of it above the
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

static int drain_evlist(struct recorder *r, struct perf_evlist *el, uint64_t ring_bytes)
{
	struct perf_mmap *map;

	if (!el)
		return 0;
	perf_evlist__for_each_mmap(el, map, false)
	{
		union perf_event *ev;
		uint64_t bytes = 0;

		if (perf_mmap__read_init(map) < 0)
			continue;
		for (;;) {
			int si, ret = 0;

			/* no room for a record as large as one can be: leave the rest in
			 * the ring (the kernel drops what it cannot hold, and says so) */
			if (!rsp_writer_has_room(r->w, UINT16_MAX + 1)) {
				r->starved = true;
				break;
			}
			ev = perf_mmap__read_event(map);
			if (!ev) {
				perf_mmap__read_done(map);
				break;
			}
			bytes += ev->header.size;
			si = account_record(r, ev);
			if (si == -2)
				; /* shed: counted by account_record() */
			else if (si >= 0 &&
				 (r->streams[si].attr.sample_type & PERF_SAMPLE_STACK_USER))
				ret = append_trimmed(r, ev, &r->streams[si].attr);
			else
				ret = rsp_writer_append(r->w, ev, ev->header.size);
			if (ret == -ENOMEM)
				return -ENOMEM;
			if (ret)
				r->st->refused++;
			else if (si != -2)
				r->st->records++;
			perf_mmap__consume(map);
		}
		if (ring_bytes && bytes * 100 / ring_bytes > r->pass_fill)
			r->pass_fill = (unsigned)(bytes * 100 / ring_bytes);
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
	if (_rsp_shed_drops(s, ts)) {
		r->shed_n[(size_t)si * r->st->nr_cpus + (cpu < r->st->nr_cpus ? cpu : 0)]++;
		return 0;
	}
	p = rsp_writer_reserve(r->w, rec);
	if (!p) {
		if (errno == ENOMEM)
			return -ENOMEM;
		r->st->refused++;
		return 0;
	}
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
	if (rsp_writer_append_ctl(r->w, &rec, sizeof(rec)) == 0)
		r->st->records++;
}

/* room for the samples one ftrace sub-buffer of @bytes becomes (56 bytes more
 * per event, events of 16 bytes at least) */
static bool ftrace_room(void *ctx, size_t bytes)
{
	struct recorder *r = ctx;

	if (rsp_writer_has_room(r->w, bytes * 5))
		return true;
	r->starved = true;
	return false;
}

int _rsp_drain_all(struct recorder *r, bool all)
{
	int ret;

	r->starved = false;
	r->pass_fill = _rsp_bpf_fill(r);
	r->ftrace_more = false;
	ret = drain_evlist(r, r->sys, r->sys_ring_bytes);

	if (!ret)
		ret = drain_evlist(r, r->target, r->target_ring_bytes);
	if (!ret)
		ret = _rsp_bpf_drain(r);
	if (!ret && r->ft && !r->ftrace_failed) {
		long n = rsp_ftrace_drain(r->ft, all ? 0 : FTRACE_PASS_SUBBUFS, &r->ftrace_more,
					  on_ftrace_event, on_ftrace_lost, ftrace_room, r);

		if (n < 0 && n != -ENOMEM) {
			_rsp_record_log(r, RSP_LOG_ERROR, "reading the ftrace instance failed: %s",
					strerror((int)-n));
			r->ftrace_failed = true;
		} else if (n == -ENOMEM) {
			ret = -ENOMEM;
		}
	}
	/* a partial drain ends no round: the rings' older records come next time,
	 * and perf's reader sorts only within what a round (and the one before)
	 * covers.  Partial for want of room, or an ftrace ring left with more than
	 * a pass reads: a reader kept off its CPU (another real-time task) fell a
	 * ring behind and ended rounds anyway, and perf script read 17053 records
	 * out of order */
	if (r->starved)
		r->st->starved_drains++;
	else if (!r->ftrace_more)
		rsp_writer_round(r->w);
	return ret;
}

/* ---- the loop ---------------------------------------------------------------------- */

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

/*
 * Until records wait or @ms pass.  With the BPF program the scheduler's
 * events and their stacks fill its ring, which wakes the reader when a
 * quarter of it waits; the perf rings (CPU samples, forks, maps) then fill
 * slowly and are read every pass, at least every POLL_MS.
 */
static void wait_for_records(struct recorder *r, int ms)
{
	struct pollfd pfd = { .fd = _rsp_bpf_fd(r), .events = POLLIN };

	if (pfd.fd < 0)
		perf_evlist__poll(r->sys, ms);
	else
		poll(&pfd, 1, ms);
}

static int record_loop(struct recorder *r, uint64_t t0)
{
	uint64_t deadline = r->o->duration > 0 ? t0 + (uint64_t)(r->o->duration * 1e9) : 0;
	int ret;

	r->last_flush = t0;
	for (;;) {
		uint64_t now;
		int werr;

		if (r->starved)
			rsp_writer_wait_room(r->w, 4 * (UINT16_MAX + 1), POLL_MS);
		else
			wait_for_records(r, r->ftrace_more ? 0 : POLL_MS);
		ret = _rsp_drain_all(r, false);
		if (ret)
			return _rsp_record_fail(r, ret, "out of memory buffering events");
		now = _rsp_now_ns();
		_rsp_adjust_priority(r, now);
		_rsp_shed_update(r, now);
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
		if (_rsp_record_stop_requested) {
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

int _rsp_record_loop(struct recorder *r, uint64_t t0)
{
	int ret;

	_rsp_prio_start(r);
	ret = record_loop(r, t0);
	_rsp_prio_stop(r);
	return ret;
}
