/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rsp_record(): opens the event set, writes a pipe-mode perf.data while the
 * targets run, and accounts for every event (see docs/DESIGN.md, "Recorder").
 * This file holds the order of start and stop, the targets (a command held
 * before exec, or -p processes) and the teardown; the steps are in the files
 * record-private.h lists.
 */
#include "cmdline.h"
#include "jitmaps.h"
#include "record-private.h"

#include "records.h"
#include "rsp-probes.h"
#include "synth.h"

#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <perf/core.h>
#include <perf/cpumap.h>
#include <perf/evlist.h>
#include <perf/threadmap.h>
#include <tracefs/tracefs.h>

#define DEFAULT_OUTPUT "rsp.data"

/* A "Vm...:" line of /proc/self/status, in bytes; 0 if unreadable. */
static uint64_t vm_status(const char *key)
{
	char line[256];
	uint64_t v = 0;
	size_t klen = strlen(key);
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, klen) && line[klen] == ':') {
			v = strtoull(line + klen + 1, NULL, 10) * 1024;
			break;
		}
	fclose(f);
	return v;
}

/*
 * The memory ceiling: what the recorder holds outside the writer's pool
 * (resident now: code, libraries, the mapped ring buffers, the lookup
 * tables; still to come: the compressor, the writer's stage, the thread and
 * file tables as they grow, the BPF ring's pages as they are read) and the
 * pool's share, the rest.  The ftrace
 * instance's buffers are kernel memory, outside the process.
 */
#define GROWTH_MARGIN (16ull << 20) /* the writer's stage (2 MiB), the tables as they grow */

static int set_memory_ceiling(struct recorder *r)
{
	uint64_t max = r->o->max_memory ? r->o->max_memory : RSP_DEFAULT_MAX_MEMORY;
	uint64_t fixed = vm_status("VmRSS") + GROWTH_MARGIN + r->bpf_ring_bytes +
			 rsp_writer_compressor_bytes(_rsp_compression_level(r));
	uint64_t min_pool = 3ull * RSP_WRITER_CHUNK;

	r->st->max_memory = max;
	r->st->fixed_bytes = fixed;
	if (max < fixed + min_pool)
		return _rsp_record_fail(
		    r, -ENOBUFS,
		    "--max-memory %.0f MiB is too small: the recorder holds %.0f MiB before it "
		    "queues anything (the ring buffers: -m; the compressor: --compression-level), "
		    "and needs %.0f MiB of queue: give at least %.0f MiB",
		    max / 1048576.0, fixed / 1048576.0, min_pool / 1048576.0,
		    (fixed + min_pool) / 1048576.0 + 1);
	r->st->pool_limit = max - fixed;
	return 0;
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

/* The kernel's side: perf events and the ftrace instance.  Closing them takes
 * the kernel a while on a busy machine (0.6 s measured under saturation):
 * done while the writer thread still writes. */
static void release_kernel(struct recorder *r)
{
	if (r->sys) {
		if (r->sys_open) {
			perf_evlist__munmap(r->sys);
			perf_evlist__close(r->sys);
		}
		perf_evlist__delete(r->sys);
		r->sys = NULL;
	}
	if (r->target) {
		if (r->target_open) {
			perf_evlist__munmap(r->target);
			perf_evlist__close(r->target);
		}
		perf_evlist__delete(r->target);
		r->target = NULL;
	}
	if (r->count) {
		if (r->count_open)
			perf_evlist__close(r->count);
		perf_evlist__delete(r->count);
		r->count = NULL;
	}
	rsp_ftrace_free(r->ft);
	r->ft = NULL;
	_rsp_bpf_close(r);
}

/*
 * The user-stack copies (CPU samples', the target's sleeps') unwound on the
 * writer thread (runwind.h), unless RSP_RECORD_UNWIND=0 (tests and benchmarks
 * compare with the model's unwinding of the copies).
 */
static int setup_unwind(struct recorder *r)
{
	const char *env = getenv("RSP_RECORD_UNWIND");

	if (env && !strcmp(env, "0"))
		return 0;
	for (size_t i = 0; i < r->n_streams; i++) {
		const struct stream *s = &r->streams[i];
		const struct perf_event_attr *a = &s->attr;
		int ret;

		if (s->kind == STREAM_TRACKING || s->kind == STREAM_FTRACE ||
		    !(a->sample_type & PERF_SAMPLE_STACK_USER) ||
		    !(a->sample_type & PERF_SAMPLE_CALLCHAIN) || !s->n_ids)
			continue;
		if (!r->runwind) {
			r->runwind = rsp_runwind_new();
			if (!r->runwind)
				return -ENOMEM;
			rsp_runwind_set_verify(r->runwind, r->o->bpf_check);
		}
		ret = rsp_runwind_add_ids(r->runwind, s->ids, s->n_ids, a->sample_type,
					  a->sample_regs_user);
		if (ret)
			return ret;
	}
	if (r->runwind)
		rsp_writer_set_filter(r->w, rsp_runwind_filter, r->runwind);
	return 0;
}

static void teardown(struct recorder *r)
{
	release_kernel(r);
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
	rsp_runwind_free(r->runwind);
	free(r->trim_buf);
	free(r->shed_n);
	free(r->shed_c0);
	free(r->bpf_lost_seen);
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
	free(st->lost_bpf);
	memset(st, 0, sizeof(*st));
}

int rsp_record(const struct rsp_record_opts *opts, struct rsp_record_stats *st, char *err,
	       size_t errlen)
{
	struct recorder r = { .o = opts, .st = st, .err = err, .errlen = errlen, .loadavg_fd = -1 };
	struct tp_list tps = { 0 };
	struct rsp_cmdlines *cmdlines = NULL;
	const char *out = opts->output ? opts->output : DEFAULT_OUTPUT;
	char perr[256];
	uint64_t t0, t_begin = _rsp_now_ns(), t_stop = 0;
	int ret;

	memset(st, 0, sizeof(*st));
	err[0] = '\0';
	_rsp_record_stop_requested = 0;
	_rsp_record_abort = 0;
	pthread_mutex_init(&r.prio_lock, NULL);
	libperf_init(silent_libperf);

	if (!opts->argv && !opts->n_pids && !opts->system_wide)
		return _rsp_record_fail(
		    &r, -EINVAL, "nothing to record: give -p PID, -a, or -- COMMAND [ARGS...]");
	if (geteuid() != 0)
		return _rsp_record_fail(
		    &r, -EPERM,
		    "rsp record must run as root: it traces the whole system through "
		    "perf (kernel.perf_event_paranoid) and its own ftrace instance");
	if (tracefs_tracing_dir_is_mounted(true, &r.tracefs) < 0 || !r.tracefs)
		return _rsp_record_fail(
		    &r, -ENOENT,
		    "tracefs is not mounted and could not be mounted: run `mount -t "
		    "tracefs nodev /sys/kernel/tracing`");
	ret = rsp_probe_set_parse(&r.probes,
				  opts->probes_text ? opts->probes_text : rsp_probes_builtin_text,
				  perr, sizeof(perr));
	if (ret)
		return _rsp_record_fail(&r, ret, "event set: %s", perr);
	_rsp_raise_priority(&r);
	ret = rsp_ftrace_remove_stale();
	if (ret > 0)
		_rsp_record_log(&r, RSP_LOG_INFO,
				"removed %d ftrace instance(s) left by killed recorders", ret);

	r.ustack = rsp_ustack_new_async();
	r.trim_buf = malloc(65536); /* a record's size is a u16 */
	if (!r.ustack || !r.trim_buf) {
		rsp_ustack_free(r.ustack);
		free(r.trim_buf);
		return _rsp_record_fail(&r, -ENOMEM, "out of memory");
	}
	st->nr_cpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	st->lost_perf = calloc(st->nr_cpus, sizeof(uint64_t));
	st->lost_ftrace = calloc(st->nr_cpus, sizeof(uint64_t));
	st->lost_bpf = calloc(st->nr_cpus, sizeof(uint64_t));
	r.bpf_lost_seen = calloc((size_t)st->nr_cpus * RSP_BPF_KINDS, sizeof(uint64_t));
	r.cpus = perf_cpu_map__new(NULL);
	r.any_thread = perf_thread_map__new_dummy();
	if (!st->lost_perf || !st->lost_ftrace || !st->lost_bpf || !r.bpf_lost_seen || !r.cpus ||
	    !r.any_thread) {
		ret = _rsp_record_fail(&r, -ENOMEM, "out of memory");
		goto out;
	}

	ret = setup_targets(&r);
	if (ret)
		goto out;
	ret = _rsp_bpf_open(&r);
	if (ret)
		goto out;
	ret = _rsp_resolve_events(&r, &tps);
	if (ret)
		goto out;
	ret = _rsp_common_offsets(&r, &tps);
	if (ret) {
		ret = _rsp_record_fail(
		    &r, ret, "cannot read the tracepoint formats under %s/events", r.tracefs);
		goto out;
	}
	ret = _rsp_build_evlists(&r);
	if (ret) {
		ret = _rsp_record_fail(&r, ret, "out of memory");
		goto out;
	}
	ret = _rsp_setup_ftrace(&r);
	if (ret)
		goto out;
	ret = _rsp_open_evlists(&r);
	if (ret)
		goto out;
	ret = _rsp_assign_ids(&r);
	if (ret) {
		ret = _rsp_record_fail(&r, ret, "cannot read the perf event ids: %s",
				       strerror(-ret));
		goto out;
	}
	ret = set_memory_ceiling(&r);
	if (!ret)
		ret = _rsp_shed_setup(&r);
	if (ret)
		goto out;
	ret = rsp_writer_open(&r.w, out, err, errlen);
	if (ret)
		goto out;
	rsp_writer_watch_abort(r.w, &_rsp_record_abort);
	rsp_writer_set_limit(r.w, st->pool_limit);
	ret = setup_unwind(&r);
	if (ret) {
		ret = _rsp_record_fail(&r, ret, "out of memory");
		goto out;
	}
	ret = _rsp_write_head(&r, &tps);
	if (ret)
		goto out;
	/* the head on disk before anything is recorded: its tracing data (with
	 * kallsyms) spans chunks, and a file cut between them (kill -9 while the
	 * writer, an idle-priority thread, waits for a busy machine) opens nowhere */
	rsp_writer_sync(r.w);

	/* ftrace first, so its window covers the kernel counters' */
	if (r.ft) {
		ret = rsp_ftrace_start(r.ft, err, errlen);
		if (ret)
			goto out;
	}
	ret = _rsp_bpf_start(&r);
	if (ret)
		goto out;
	cmdlines = _rsp_cmdlines_start(&r);
	if (r.count_open)
		perf_evlist__enable(r.count);
	perf_evlist__enable(r.sys);
	if (r.target && !r.have_cmd)
		perf_evlist__enable(r.target);
	t0 = _rsp_now_ns();

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
			_rsp_record_log(
			    &r, RSP_LOG_WARN,
			    "kernel addresses are hidden (kernel.kptr_restrict): kernel stacks "
			    "will not symbolize");
		ret = rsp_synth_threads(&sc);
		if (ret) {
			ret = _rsp_record_fail(&r, ret, "cannot list the running threads: %s",
					       strerror(-ret));
			goto out;
		}
		st->synthesized_threads = sc.n_threads;
		_rsp_record_log(&r, RSP_LOG_DEBUG, "set up in %.3f s, threads listed in %.3f s",
				(t0 - t_begin) / 1e9, (_rsp_now_ns() - t0) / 1e9);
		rsp_rec_finished_init(r.w);
		ret = rsp_writer_set_compression(r.w, _rsp_compression_level(&r));
		if (ret) {
			ret = _rsp_record_fail(&r, ret, "out of memory for the compressor");
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
	/* at the ceiling the reader sheds (shed.c) rather than wait */
	rsp_writer_set_blocking(r.w, false);
	ret = _rsp_record_loop(&r, t0);

out_stop:
	t_stop = _rsp_now_ns();
	/* the last drain at real-time priority: what is left is read at once */
	_rsp_reader_done(&r);
	_rsp_raise_priority(&r);
	perf_evlist__disable(r.sys);
	if (r.target)
		perf_evlist__disable(r.target);
	if (r.count_open)
		perf_evlist__disable(r.count);
	_rsp_bpf_stop(&r);
	rsp_ftrace_stop(r.ft);
	/* what is queued goes to the file at full speed; the rings' rest, now that
	 * nothing new comes, waits for room rather than be lost */
	rsp_writer_hurry(r.w);
	rsp_writer_set_blocking(r.w, true);
	if ((!ret || r.cmd_started) && !_rsp_record_abort) {
		int dret = _rsp_drain_all(&r, true);
		uint64_t end = _rsp_now_ns();

		if (dret && !ret)
			ret = _rsp_record_fail(&r, dret, "out of memory buffering events");
		_rsp_shed_finish(&r, end);
		_rsp_read_counts(&r);
		_rsp_bpf_counts(&r);
		rsp_writer_set_compression(r.w, 0); /* the trailing headers as perf writes them */
		if (!_rsp_record_abort)
			_rsp_write_build_ids(&r);
		_rsp_cmdlines_finish(&r, cmdlines);
		rsp_writer_round(r.w);
		for (int c = 0; r.ft && c < st->nr_cpus; c++) {
			int64_t d = rsp_ftrace_dropped(r.ft, c);

			if (d > (int64_t)st->lost_ftrace[c])
				st->lost_ftrace[c] = (uint64_t)d;
		}
	}
	st->seconds = (_rsp_now_ns() - t0) / 1e9;
out:
	if (r.w) {
		struct rsp_writer_pool_stats ps;
		uint64_t tc;
		int werr;

		release_kernel(&r);
		tc = _rsp_now_ns();
		werr = rsp_writer_close(r.w, &st->bytes, &st->raw_bytes, &st->z_bytes, &ps);
		st->pool_peak = ps.peak;
		if (r.runwind) {
			struct rsp_runwind_stats us;

			rsp_runwind_stats(r.runwind, &us);
			st->cpu_copies = us.samples;
			st->cpu_unwound = us.unwound;
			st->unwind_ns = us.ns;
			_rsp_record_log(&r, RSP_LOG_DEBUG,
					"user-stack copies unwound by the recorder: %" PRIu64 " of %" PRIu64
					" (%" PRIu64 " replayed; %" PRIu64 " frames, %" PRIu64
					" bytes saved, %" PRIu64
					" unwinders built in %.3f s), %.3f s of the writer thread's CPU time; "
					"copies kept: "
					"%" PRIu64 " no maps, %" PRIu64 " no files, %" PRIu64
					" stopped early",
					us.unwound, us.samples, us.replayed, us.frames, us.bytes_saved,
					us.spaces_built, us.build_ns / 1e9, us.ns / 1e9, us.kept_no_maps,
					us.kept_no_files, us.kept_unclean);
			st->replay_checked = us.replay_checked;
			st->replay_differ = us.replay_differ;
		}
		st->dropped_bytes = ps.dropped;
		st->complete_ns = t_stop ? _rsp_now_ns() - t_stop : 0;
		_rsp_record_log(&r, RSP_LOG_DEBUG, "the writer closed in %.3f s",
				(_rsp_now_ns() - tc) / 1e9);
		st->aborted = _rsp_record_abort != 0;
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
	if (r.w && !st->write_error && !st->aborted) {
		struct stat fst;

		/* a recording in a file: the JIT runtimes' maps beside it (jitmaps.h) */
		if (stat(out, &fst) == 0 && S_ISREG(fst.st_mode)) {
			char jerr[512];
			int jret = rsp_jitmaps_copy(out, "/tmp", &r.tids, &r.paths, jerr,
						    sizeof(jerr));

			if (jret > 0)
				st->jit_files = (unsigned)jret;
			if (jerr[0])
				_rsp_record_log(&r, RSP_LOG_WARN, "%s", jerr);
		}
	}
	teardown(&r);
	rsp_cmdlines_free(cmdlines);
	free(tps.v);
	if (st->rt_reader) {
		struct sched_param sp = { 0 };

		sched_setscheduler(0, SCHED_OTHER, &sp); /* the caller's own work is not the reader's */
	}
	st->peak_rss = vm_status("VmHWM");
	return ret;
}
