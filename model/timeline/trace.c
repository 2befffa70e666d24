/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rsp_trace_open(): a perf.data file into the timeline.
 *
 *  1. scan the file once: header records are absorbed, every kernel record
 *     becomes a 16-byte index entry (time, file offset) (index.c), while a
 *     thread sets up the formats and the symbolizer (setup.c);
 *  2. sort the index by time (stable radix sort: records come out in time
 *     order across CPUs whatever the file's interleaving) (index.c);
 *  3. walk it: merge the copies of events delivered twice (perf + ftrace,
 *     system-wide + target), decode tracepoints by field name, intern
 *     stacks, feed the timeline builder and the symbolizer (walk.c);
 *  4. say what the file lacks (here).
 *
 * A stream in many frames (rsp record's) on two CPUs is loaded in one pass
 * instead (one-pass.c, window.c): the scan and the walk at once, each frame
 * inflated once, the index sorted within a window; when the file proves not
 * to fit the window, it is opened again and loaded in two passes.
 */
#include "timeline/load-private.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void check_completeness(struct rsp_trace *t);

/* ---- opening ------------------------------------------------------------------------------ */

/* A reader that found no event description: why, in @err. */
static void no_attrs(const struct rsp_reader_info *in, char *err, size_t errlen)
{
	if (in->truncated)
		snprintf(err, errlen,
			 "the file is cut short at byte %llu, before its first event "
			 "description (the recorder stopped early, or the copy is incomplete)",
			 (unsigned long long)in->truncated_at);
	else
		snprintf(err, errlen, "no event descriptions in the file: not a perf recording");
}

/* What the scan found the file lacks or holds wrongly; false (and @err) if it is no recording. */
static bool scan_warnings(struct rsp_trace *t, char *err, size_t errlen)
{
	const struct rsp_reader_info *in = rsp_reader_info(t->reader);

	if (in->compressed_skipped)
		trace_warn(t, "%llu compressed records skipped: the file does not declare its "
			      "compression (no HEADER_COMPRESSED feature)",
			   (unsigned long long)in->compressed_skipped);
	if (rsp_reader_n_attrs(t->reader) == 0) {
		no_attrs(in, err, errlen);
		return false;
	}
	if (in->truncated)
		trace_warn(t, "the file is cut short at byte %llu (recorder killed or disk full): "
			      "everything before the cut is read",
			   (unsigned long long)in->truncated_at);
	if (in->unfinished)
		trace_warn(t, "perf record did not finish this file: its header is incomplete; "
			      "read to the end of the data");
	return true;
}

/* rsp_trace_check()'s scan: stop at the first record once an event description is known */
static int check_record(void *ctx, const struct rsp_record *rec)
{
	return rsp_reader_n_attrs(ctx) > 0;
}

int rsp_trace_check(const char *path, char *err, size_t errlen)
{
	struct rsp_reader *r;
	int ret = rsp_reader_open(path, &r, err, errlen);

	if (ret)
		return ret;
	/* pipe mode: the descriptions are records at the start of the stream */
	if (rsp_reader_n_attrs(r) == 0) {
		ret = rsp_reader_scan(r, check_record, r, err, errlen);
		if (ret < 0) {
			rsp_reader_free(r);
			return ret;
		}
	}
	ret = 0;
	if (rsp_reader_n_attrs(r) == 0) {
		no_attrs(rsp_reader_info(r), err, errlen);
		ret = -EINVAL;
	}
	rsp_reader_free(r);
	return ret;
}

/* In one pass (one-pass.c), the scan and the walk at once: 0, -ERESTART (two passes), -errno. */
static int load_one_pass(struct rsp_trace *t, const struct rsp_trace_opts *o, uint64_t size,
			 char *err, size_t errlen)
{
	struct setup su = { .t = t, .o = o };
	struct one_pass *op;
	int ret = _rsp_one_pass(t, o, &su, size, &op, err, errlen);

	if (ret) {
		if (ret == -ENOMEM)
			snprintf(err, errlen, "out of memory loading the trace");
		return ret;
	}
	if (!scan_warnings(t, err, errlen)) {
		_rsp_one_pass_finish(op);
		return -EINVAL;
	}
	_rsp_one_pass_finish(op);
	check_completeness(t);
	return 0;
}

static int load(struct rsp_trace *t, const struct rsp_trace_opts *o, uint64_t size, char *err,
		size_t errlen, bool one_pass)
{
	const struct rsp_reader_info *in;
	struct setup su = { .t = t, .o = o };
	struct scan sc = { .t = t, .su = &su, .o = o, .size = size };
	int ret;

	if (one_pass && !(o && o->two_pass) && _rsp_one_pass_fits(t))
		return load_one_pass(t, o, size, err, errlen);
	ret = _rsp_scan(&sc, err, errlen);
	if (ret) {
		_rsp_setup_abandon(&su);
		vec_free(&sc.idx);
		if (sc.nomem)
			snprintf(err, errlen, "out of memory reading the trace");
		else if (ret == -ECANCELED)
			snprintf(err, errlen, "loading cancelled");
		return ret;
	}
	if (!scan_warnings(t, err, errlen)) {
		_rsp_setup_abandon(&su);
		vec_free(&sc.idx);
		return -EINVAL;
	}
	in = rsp_reader_info(t->reader);
	if (in->nr_cpus_avail > t->nr_cpus && in->nr_cpus_avail < _RSP_MAX_CPUS)
		t->nr_cpus = in->nr_cpus_avail;
	if (!t->nr_cpus)
		t->nr_cpus = 1;
	ret = _rsp_setup_finish(&su);
	if (!ret)
		ret = _rsp_sort_index(&sc.idx.v, sc.idx.n, t->t_start);
	if (!ret)
		ret = _rsp_walk(t, o, sc.idx.v, sc.idx.n, err, errlen);
	if (ret)
		goto out;
	check_completeness(t);
out:
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory loading the trace");
	vec_free(&sc.idx);
	return ret;
}

/*
 * More than 10% of wakeups without a waking: what the file lacks.  Those in
 * spans of lost records are the recorder's own count of what it missed; the
 * rest perf drops (interrupt-context sched_waking on idle CPUs), or, in a file
 * rsp record wrote (which keeps those) with nothing lost there, the waking was
 * not traced or not recognised: said as such, not blamed on the recorder.
 */
static void warn_unlinked(struct rsp_trace *t)
{
	const char *version = rsp_reader_info(t->reader)->version;
	unsigned long long n = t->n_wakeups_unlinked, all = t->n_wakeups,
			   lost = t->n_wakeups_unlinked_lost, rest = n - lost;
	char in_lost[160] = "";

	if (lost)
		snprintf(in_lost, sizeof(in_lost),
			 "%llu in spans where records were lost (`rsp info` lists them)%s", lost,
			 rest ? ", " : "");
	if (!rest)
		trace_warn(t, "%llu of %llu wakeups have no recorded waking: %s: their causes are "
			      "unknown", n, all, in_lost);
	else if (version && !strncmp(version, "rsp", 3))
		trace_warn(t,
			   "%llu of %llu wakeups have no recorded waking: %s%llu with nothing lost "
			   "around them (the recorder kept every sched_waking it was given: the "
			   "kernel traced none for them, or rsp did not match it): their causes are "
			   "unknown",
			   n, all, in_lost, rest);
	else
		trace_warn(t,
			   "%llu of %llu wakeups have no recorded waking: %s%llu with nothing lost "
			   "around them (interrupt-context sched_waking dropped, as perf does on idle "
			   "CPUs; rsp record keeps them): their causes are unknown",
			   n, all, in_lost, rest);
}

/* What a recording from a kernel that drops events lacks, told plainly. */
static void check_completeness(struct rsp_trace *t)
{
	uint64_t issued = 0, done = 0;
	bool block_recorded = false, have[TP__COUNT] = { false }, sampler = false;
	/* events the analysis uses, and what their absence costs */
	static const struct {
		enum rsp_tp_kind kind;
		const char *name, *cost;
	} uses[] = {
		{ TP_FORK, "sched:sched_process_fork", "fork links unknown" },
		{ TP_EXEC, "sched:sched_process_exec", "exec links unknown" },
		{ TP_EXIT, "sched:sched_process_exit", "exit links unknown (waits for children unexplained)" },
		{ TP_BLK_INSERT, "block:block_rq_insert", "I/O queue time unknown" },
		{ TP_BLK_ISSUE, "block:block_rq_issue", "I/O service time and issuer unknown" },
		{ TP_SOFTIRQ_ENTRY, "irq:softirq_entry", "timeouts not told apart from softirq work" },
		{ TP_SK_READY, "sock:sk_data_ready", "network links disabled" },
		{ TP_SOCK_SEND, "sock:sock_send_length", "network senders unknown" },
		{ TP_SOCK_STATE, "sock:inet_sock_set_state", "socket addresses and peers unknown" },
	};

	for (size_t i = 0; i < rsp_reader_n_attrs(t->reader); i++) {
		block_recorded |= t->dec[i].kind == TP_BLK_COMPLETE;
		have[t->dec[i].kind] = true;
		sampler |= t->dec[i].is_sampler;
	}
	if (!have[TP_SWITCH]) {
		/* CPU samples only (perf record -g): what else is missing follows
		 * from this, one line says what the file can answer */
		if (sampler)
			trace_warn(t, "CPU samples only, no scheduler events (sched:sched_switch): "
				      "CPU time per function is estimated from the samples (the "
				      "time each stands for); when threads waited, and for what, "
				      "is not known and stays unaccounted: record with rsp record, "
				      "or perf record -g -e 'sched:*'");
		else
			trace_warn(t, "no scheduler events (sched:sched_switch) and no CPU samples: "
				      "this file cannot tell where time went: record with rsp "
				      "record, or perf record -g -e 'sched:*'");
		return;
	}
	/* requests, not events: a requeued request is issued twice, completed once */
	for (size_t i = 0; i < t->ios.n; i++) {
		issued += t->ios.v[i].issue != 0;
		done += t->ios.v[i].issue && t->ios.v[i].complete;
	}
	if (!t->have_waking)
		trace_warn(t, "no sched:sched_waking events: wakeup links come from sched_wakeup "
			      "and may name the wrong waker");
	if (!t->have_irq)
		trace_warn(t, "no interrupt events (irq:irq_handler_entry): hardware waits are not "
			      "named; perf record drops most of them on idle CPUs, rsp record "
			      "keeps them");
	for (size_t i = 0; i < sizeof(uses) / sizeof(uses[0]); i++)
		if (!have[uses[i].kind])
			trace_warn(t, "%s was not recorded: %s", uses[i].name, uses[i].cost);
	if (!sampler)
		trace_warn(t, "no CPU samples (cpu-clock): CPU time is not split by function");
	if (!block_recorded)
		trace_warn(t, "block:block_rq_complete was not recorded: disk waits are not linked");
	else if (issued >= 20 && done * 10 < issued * 9)
		trace_warn(t,
			   "block:block_rq_complete: %llu completions for %llu issued requests: "
			   "completions on idle CPUs were dropped (perf's loss on this kernel; "
			   "rsp record keeps them); disk waits are partly unlinked",
			   (unsigned long long)done, (unsigned long long)issued);
	if (t->n_inferred && !have[TP_STAT_RUNTIME])
		trace_warn(t,
			   "%llu switch-ins were not recorded (idle -> task): those runs start at "
			   "their wakeup, the CPU's wake-up from idle counted as running; "
			   "sched:sched_stat_runtime (recorded by this rsp record) places them",
			   (unsigned long long)t->n_inferred);
	if (t->n_wakeups >= 50 && t->n_wakeups_unlinked * 10 > t->n_wakeups)
		warn_unlinked(t);
}

static int trace_open_common(struct rsp_trace *t, const struct rsp_trace_opts *o, uint64_t size,
			     bool one_pass, char *err, size_t errlen)
{
	int ret = stacks_init(&t->stacks);

	if (!ret)
		ret = stacks_init(&t->ustacks);

	if (ret)
		return ret;
	ret = load(t, o, size, err, errlen, one_pass);
	if (ret)
		return ret;
	trace_cmdlines_resolve(t);
	trace_cpu_runs_start(t);
	if (o && o->warn)
		for (size_t i = 0; i < t->warnings.n; i++)
			o->warn(t->warnings.v[i], o->warn_ctx);
	return 0;
}

/* A file (@path) or a buffer, opened and loaded, in one pass if @one_pass and it can be. */
static int open_once(const char *path, const void *buf, size_t len,
		     const struct rsp_trace_opts *o, bool one_pass, struct rsp_trace **out,
		     char *err, size_t errlen)
{
	struct rsp_trace *t = calloc(1, sizeof(*t));
	int ret;

	*out = NULL;
	if (!t)
		return -ENOMEM;
	if (path) {
		ret = rsp_reader_open(path, &t->reader, err, errlen);
		if (!ret) {
			struct stat st;

			ret = trace_open_common(t, o, stat(path, &st) == 0 ? (uint64_t)st.st_size : 0,
						one_pass, err, errlen);
		}
	} else {
		ret = rsp_reader_open_mem(buf, len, &t->reader, err, errlen);
		if (!ret)
			ret = trace_open_common(t, o, len, one_pass, err, errlen);
	}
	if (ret) {
		rsp_trace_free(t);
		return ret;
	}
	*out = t;
	return 0;
}

/* The progress told again in two passes: never back from what one pass told. */
struct again {
	const struct rsp_trace_opts *o;
	double told;
};

static void progress_again(double fraction, void *ctx)
{
	struct again *ag = ctx;

	if (fraction > ag->told) {
		ag->told = fraction;
		ag->o->progress(fraction, ag->o->progress_ctx);
	}
}

static void progress_first(double fraction, void *ctx)
{
	struct again *ag = ctx;

	ag->told = fraction;
	ag->o->progress(fraction, ag->o->progress_ctx);
}

/*
 * Loading in one pass when the file allows it; when it proves not to be
 * windowed so (-ERESTART: one-pass.c), everything made is thrown away and the
 * file opened again and loaded in two passes.
 */
static int open_trace(const char *path, const void *buf, size_t len,
		      const struct rsp_trace_opts *o, struct rsp_trace **out, char *err,
		      size_t errlen)
{
	struct again ag = { o, 0 };
	struct rsp_trace_opts o2;
	int ret;

	if (o && o->progress) {
		o2 = *o;
		o2.progress = progress_first;
		o2.progress_ctx = &ag;
	}
	ret = open_once(path, buf, len, o && o->progress ? &o2 : o, true, out, err, errlen);
	if (ret != -ERESTART)
		return ret;
	if (o && o->progress)
		o2.progress = progress_again;
	return open_once(path, buf, len, o && o->progress ? &o2 : o, false, out, err, errlen);
}

int rsp_trace_open(const char *path, const struct rsp_trace_opts *o, struct rsp_trace **out,
		   char *err, size_t errlen)
{
	return open_trace(path, NULL, 0, o, out, err, errlen);
}

int rsp_trace_open_mem(const void *buf, size_t len, const struct rsp_trace_opts *o,
		       struct rsp_trace **out, char *err, size_t errlen)
{
	return open_trace(NULL, buf, len, o, out, err, errlen);
}

void rsp_trace_free(struct rsp_trace *t)
{
	if (!t)
		return;
	trace_cpu_runs_free(t); /* first: its thread reads the slices */
	for (size_t i = 0; i < t->threads.n; i++) {
		vec_free(&t->threads.v[i].slices);
		vec_free(&t->threads.v[i].samples);
	}
	vec_free(&t->threads);
	free(t->thread_cmdline);
	free(t->tid_ht);
	vec_free(&t->links);
	vec_free(&t->ios);
	vec_free(&t->socks);
	vec_free(&t->sockops);
	vec_free(&t->nets);
	vec_free(&t->net_early);
	vec_free(&t->lost);
	vec_free(&t->irqs);
	vec_free(&t->counts);
	for (size_t i = 0; i < t->warnings.n; i++)
		free(t->warnings.v[i]);
	vec_free(&t->warnings);
	for (size_t i = 0; i < t->strchunks.n; i++)
		free(t->strchunks.v[i].p);
	vec_free(&t->strchunks);
	free(t->str_ht);
	stacks_free(&t->stacks);
	stacks_free(&t->ustacks);
	trace_missing_files_free(t->missing);
	rsp_sym_free(t->sym);
	free(t->dec);
	rsp_tracedata_clear(&t->td);
	rsp_reader_free(t->reader);
	free(t);
}
