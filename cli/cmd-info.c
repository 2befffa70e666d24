/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rsp info: what a trace holds. */
#include "args.h"
#include "cli.h"
#include "input.h"
#include "json.h"

#include "rsp-model.h"
#include "rsp-time.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static const char info_usage[] =
	"usage: rsp info [FILE] [--format text|json | --json]\n"
	"\n"
	"What a trace holds: time span, CPUs, kernel, events per type, lost spans,\n"
	"inferred switches, processes with their run time, the recorded targets.\n"
	"Reads rsp record's files and perf record's.\n"
	"\n"
	"  FILE          default rsp.data ('-': standard input)\n"
	"  --format F    text (default) or json\n"
	"  --json        the same as --format json\n"
	"\n"
	"Where the files the trace names are found (symbols):\n"
	RSP_CLI_SYMBOL_HELP;

struct proc_row {
	int pid;
	const char *comm;
	const char *cmdline; /* NULL if the file has none */
	size_t threads;
	uint64_t run_ns, sleep_ns, unknown_ns;
};

static int by_run(const void *a, const void *b)
{
	const struct proc_row *x = a, *y = b;

	return x->run_ns < y->run_ns ? 1 : x->run_ns > y->run_ns ? -1 : x->pid - y->pid;
}

static struct proc_row *processes(const struct rsp_trace *t, size_t *n)
{
	size_t nt = rsp_trace_n_threads(t), np = 0;
	struct proc_row *rows = calloc(nt ? nt : 1, sizeof(*rows));

	if (!rows)
		return NULL;
	for (size_t i = 0; i < nt; i++) {
		struct rsp_thread_info ti;
		size_t k;

		rsp_trace_thread(t, i, &ti);
		for (k = 0; k < np && rows[k].pid != ti.pid; k++)
			;
		if (k == np) {
			rows[np].pid = ti.pid;
			rows[np].comm = ti.comm;
			rows[np].cmdline = ti.cmdline;
			np++;
		}
		if (ti.tid == ti.pid) {
			rows[k].comm = ti.comm;
			rows[k].cmdline = ti.cmdline;
		}
		rows[k].threads++;
		rows[k].run_ns += ti.run_ns;
		rows[k].sleep_ns += ti.sleep_ns;
		rows[k].unknown_ns += ti.unknown_ns;
	}
	qsort(rows, np, sizeof(*rows), by_run);
	*n = np;
	return rows;
}

static void fmt_wall(char *buf, size_t len, uint64_t ns)
{
	time_t s = (time_t)(ns / RSP_NSEC_PER_SEC);
	struct tm tm;

	if (!ns || !gmtime_r(&s, &tm)) {
		snprintf(buf, len, "unknown");
		return;
	}
	strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm);
	snprintf(buf + strlen(buf), len - strlen(buf), ".%03u UTC",
		 (unsigned)(ns % RSP_NSEC_PER_SEC / 1000000));
}

/* at most this many sleep stacks are unwound and symbolized per share */
#define COVERAGE_MAX 2000

static void print_coverage(struct rsp_trace *t, bool targets, const char *who)
{
	struct rsp_stack_coverage c;

	if (targets && !rsp_trace_n_targets(t))
		return;
	rsp_trace_stack_coverage(t, targets, COVERAGE_MAX, &c);
	if (!c.with_user) {
		printf("            user sleep stacks (%s): none recorded\n", who);
		return;
	}
	printf("            user sleep stacks (%s): %.1f%% reach main or a thread start "
	       "(%" PRIu64 " of %" PRIu64 "%s)\n",
	       who, 100.0 * (double)c.complete / (double)c.with_user, c.complete, c.with_user,
	       c.checked < c.sleeps ? ", a sample spread over the trace" : "");
}

static void json_coverage(struct json *j, struct rsp_trace *t)
{
	json_begin_object(j, "user_stacks");
	for (int k = 0; k < 2; k++) {
		struct rsp_stack_coverage c;

		if (k == 0 && !rsp_trace_n_targets(t))
			continue;
		rsp_trace_stack_coverage(t, k == 0, COVERAGE_MAX, &c);
		json_begin_object(j, k == 0 ? "target" : "all");
		json_u64(j, "sleeps", c.sleeps);
		json_u64(j, "checked", c.checked);
		json_u64(j, "with_user", c.with_user);
		json_u64(j, "complete", c.complete);
		json_end_object(j);
	}
	json_end_object(j);
}

/* The files the stacks need and could not be read or lack symbols (rsp_trace_n_missing_files()) */
static void print_missing_files(struct rsp_trace *t)
{
	size_t n = rsp_trace_n_missing_files(t);

	if (!n) {
		printf("files       every file the %s's stacks are in was read\n",
		       rsp_trace_n_targets(t) ? "target" : "trace");
		return;
	}
	printf("files       %zu file%s the %s's stacks are in could not be read or lack symbols "
	       "(--symfs, --debug-dir, `rsp archive` where it was recorded; debug symbols: the "
	       "package's -dbgsym, or DEBUGINFOD_URLS):\n",
	       n, n == 1 ? "" : "s", rsp_trace_n_targets(t) ? "target" : "trace");
	for (size_t i = 0; i < n; i++) {
		printf("            ");
		rsp_cli_print_missing_file(t, i, stdout);
		printf("\n");
	}
}

static void json_missing_files(struct json *j, struct rsp_trace *t)
{
	json_begin_array(j, "missing_files");
	for (size_t i = 0; i < rsp_trace_n_missing_files(t); i++) {
		struct rsp_missing_file m;

		rsp_trace_missing_file(t, i, &m);
		json_begin_object(j, NULL);
		json_string(j, "path", m.path);
		json_string(j, "build_id", m.build_id);
		json_string(j, "problem", m.why);
		json_u64(j, "frames", m.frames);
		json_u64(j, "stacks", m.stacks);
		json_u64(j, "ns", m.ns);
		json_end_object(j);
	}
	json_end_array(j);
}

/* @len: the size of a trace read from a stream (0: a file's, found by stat) */
static void print_text(const char *path, struct rsp_trace *t, size_t len)
{
	struct rsp_trace_summary s;
	struct proc_row *rows;
	size_t np = 0, nl = rsp_trace_n_lost(t);
	char wall[64];
	struct stat st;

	rsp_trace_get_summary(t, &s);
	printf("file        %s (%s, %.1f MB, %" PRIu64 " records)\n", path,
	       s.pipe_mode ? "perf.data, pipe mode" : "perf.data, file mode",
	       len ? len / 1e6 : stat(path, &st) == 0 ? st.st_size / 1e6 : 0.0, s.file_records);
	printf("recorded    by %s on %s (Linux %s, %s), %u CPUs\n",
	       *s.recorder ? s.recorder : "an unknown recorder", *s.hostname ? s.hostname : "?",
	       *s.osrelease ? s.osrelease : "?", *s.arch ? s.arch : "?", s.nr_cpus);
	if (rsp_trace_n_cmdline(t)) {
		printf("            command:");
		for (size_t i = 1; i < rsp_trace_n_cmdline(t); i++)
			printf(" %s", rsp_trace_cmdline(t, i));
		printf("\n");
	}
	fmt_wall(wall, sizeof(wall), s.wall_start_ns);
	printf("time        %.3f s, from %s (clock %.6f to %.6f)\n",
	       (s.end_ns - s.start_ns) / 1e9, wall, s.start_ns / 1e9, s.end_ns / 1e9);
	printf("targets    ");
	if (!rsp_trace_n_targets(t))
		printf(" none recorded (give --target to rsp report)");
	for (size_t i = 0; i < rsp_trace_n_targets(t); i++) {
		int pid = rsp_trace_target(t, i);
		size_t ti = rsp_trace_find_thread(t, pid, s.start_ns);
		struct rsp_thread_info info;

		if (ti != RSP_NO_INDEX) {
			rsp_trace_thread(t, ti, &info);
			printf(" %d (%s)", pid, info.comm);
		} else {
			printf(" %d", pid);
		}
	}
	printf("\nevents      %-30s %12s %14s %12s\n", "event", "count", "merged copies",
	       "with stack");
	for (size_t i = 0; i < rsp_trace_n_event_types(t); i++) {
		struct rsp_event_type_info e;

		rsp_trace_event_type(t, i, &e);
		if (!e.count && !e.merged_copies)
			continue;
		printf("            %-30s %12" PRIu64 " %14" PRIu64 " %12" PRIu64 "\n", e.name,
		       e.count, e.merged_copies, e.with_stack);
	}
	printf("timeline    %zu threads in %zu processes, %" PRIu64 " samples\n", s.n_threads,
	       s.n_processes, s.samples);
	printf("            %" PRIu64 " switch-ins inferred (not recorded by the kernel), %" PRIu64
	       " broken state chains, %" PRIu64 " samples dropped\n",
	       s.inferred_switches, s.broken_chains, s.dropped_samples);
	printf("            %" PRIu64 " wakeups, %" PRIu64 " without a recorded cause", s.wakeups,
	       s.wakeups_unlinked);
	if (s.wakeups_unlinked_lost)
		printf(" (%" PRIu64 " of them where records were lost)", s.wakeups_unlinked_lost);
	if (s.wakeups_raced)
		printf(", %" PRIu64 " woken by a waking that raced their sleep", s.wakeups_raced);
	putchar('\n');
	printf("            kernel symbols: %s\n",
	       s.kallsyms_in_file		 ? "from the file" :
	       s.kallsyms_from_archive	 ? "from the archive (FILE.archive)" :
	       s.kallsyms_from_running_kernel ? "from this machine (same kernel)" :
						"none");
	print_coverage(t, true, "target");
	print_coverage(t, false, "all");
	print_missing_files(t);
	{
		uint64_t total = 0, span = 0;
		size_t nu = 0, shown = 0;

		for (size_t i = 0; i < nl; i++) {
			struct rsp_lost_info l;

			rsp_trace_lost(t, i, &l);
			if (l.event)
				continue;
			total += l.lost;
			span += l.end_ns - l.start_ns;
			nu++;
		}
		if (!nu)
			printf("lost        none\n");
		else
			printf("lost        %" PRIu64 " events in %zu spans, %.3f ms unknown:\n", total,
			       nu, span / 1e6);
		for (size_t i = 0; i < nl && shown < 10; i++) {
			struct rsp_lost_info l;

			rsp_trace_lost(t, i, &l);
			if (l.event)
				continue;
			printf("            cpu%d %.6f..%.6f: %" PRIu64 " lost\n", l.cpu,
			       l.start_ns / 1e9, l.end_ns / 1e9, l.lost);
			shown++;
		}
		if (nu > 10)
			printf("            ... %zu more spans\n", nu - 10);
		if (nu < nl) {
			/* one event type each, on every CPU: every span named */
			printf("missing     event types in spans (seconds from the start; the rest of "
			       "the trace is whole there):\n            ");
			rsp_cli_print_type_losses(t, stdout, "\n            ");
			printf("\n");
		}
	}
	for (size_t i = 0; i < rsp_trace_n_warnings(t); i++)
		printf("%s %s\n", i ? "           " : "warnings   ", rsp_trace_warning(t, i));
	rows = processes(t, &np);
	printf("processes   %7s  %-16s %7s %11s %11s %11s\n", "pid", "comm", "threads", "run ms",
	       "sleep ms", "unknown ms");
	for (size_t i = 0; rows && i < np && i < 25; i++)
		printf("            %7d  %-16s %7zu %11.3f %11.3f %11.3f\n", rows[i].pid,
		       rows[i].comm, rows[i].threads, rows[i].run_ns / 1e6,
		       rows[i].sleep_ns / 1e6, rows[i].unknown_ns / 1e6);
	if (np > 25)
		printf("            ... %zu more processes (--json lists all)\n", np - 25);
	free(rows);
}

static void print_json(const char *path, struct rsp_trace *t)
{
	struct rsp_trace_summary s;
	struct proc_row *rows;
	size_t np = 0;
	struct json j;

	rsp_trace_get_summary(t, &s);
	json_init(&j, stdout, true);
	json_begin_object(&j, NULL);
	json_string(&j, "file", path);
	json_string(&j, "layout", s.pipe_mode ? "pipe" : "file");
	json_bool(&j, "truncated", s.truncated);
	json_bool(&j, "unfinished", s.unfinished);
	json_u64(&j, "records", s.file_records);
	json_string(&j, "recorder", s.recorder);
	json_string(&j, "hostname", s.hostname);
	json_string(&j, "kernel", s.osrelease);
	json_string(&j, "arch", s.arch);
	json_u64(&j, "cpus", s.nr_cpus);
	json_begin_array(&j, "cmdline");
	for (size_t i = 0; i < rsp_trace_n_cmdline(t); i++)
		json_string(&j, NULL, rsp_trace_cmdline(t, i));
	json_end_array(&j);
	json_u64(&j, "start_ns", s.start_ns);
	json_u64(&j, "end_ns", s.end_ns);
	json_u64(&j, "wall_start_ns", s.wall_start_ns);
	json_double(&j, "seconds", (s.end_ns - s.start_ns) / 1e9);
	json_begin_array(&j, "targets");
	for (size_t i = 0; i < rsp_trace_n_targets(t); i++)
		json_i64(&j, NULL, rsp_trace_target(t, i));
	json_end_array(&j);
	json_begin_array(&j, "events");
	for (size_t i = 0; i < rsp_trace_n_event_types(t); i++) {
		struct rsp_event_type_info e;

		rsp_trace_event_type(t, i, &e);
		json_begin_object(&j, NULL);
		json_string(&j, "name", e.name);
		json_u64(&j, "count", e.count);
		json_u64(&j, "merged_copies", e.merged_copies);
		json_u64(&j, "with_stack", e.with_stack);
		json_u64(&j, "bytes", e.bytes);
		json_end_object(&j);
	}
	json_end_array(&j);
	json_begin_object(&j, "timeline");
	json_u64(&j, "threads", s.n_threads);
	json_u64(&j, "processes", s.n_processes);
	json_u64(&j, "samples", s.samples);
	json_u64(&j, "inferred_switches", s.inferred_switches);
	json_u64(&j, "broken_chains", s.broken_chains);
	json_u64(&j, "dropped_samples", s.dropped_samples);
	json_u64(&j, "merged_copies", s.merged_copies);
	json_u64(&j, "wakeups", s.wakeups);
	json_u64(&j, "wakeups_unlinked", s.wakeups_unlinked);
	json_u64(&j, "wakeups_unlinked_lost", s.wakeups_unlinked_lost);
	json_u64(&j, "wakeups_raced", s.wakeups_raced);
	json_bool(&j, "kallsyms_in_file", s.kallsyms_in_file);
	json_bool(&j, "kallsyms_from_running_kernel", s.kallsyms_from_running_kernel);
	json_bool(&j, "kallsyms_from_archive", s.kallsyms_from_archive);
	json_end_object(&j);
	json_coverage(&j, t);
	json_missing_files(&j, t);
	json_begin_array(&j, "lost");
	for (size_t i = 0; i < rsp_trace_n_lost(t); i++) {
		struct rsp_lost_info l;

		rsp_trace_lost(t, i, &l);
		json_begin_object(&j, NULL);
		json_i64(&j, "cpu", l.cpu);
		json_u64(&j, "start_ns", l.start_ns);
		json_u64(&j, "end_ns", l.end_ns);
		json_u64(&j, "lost", l.lost);
		if (l.event) {
			json_string(&j, "event", l.event);
			json_bool(&j, "shed", l.shed);
			json_string(&j, "uncertain", l.uncertain);
		}
		json_end_object(&j);
	}
	json_end_array(&j);
	rsp_cli_json_warnings(&j, t);
	rows = processes(t, &np);
	json_begin_array(&j, "processes");
	for (size_t i = 0; rows && i < np; i++) {
		json_begin_object(&j, NULL);
		json_i64(&j, "pid", rows[i].pid);
		json_string(&j, "comm", rows[i].comm);
		if (rows[i].cmdline)
			json_string(&j, "cmdline", rows[i].cmdline);
		json_u64(&j, "threads", rows[i].threads);
		json_u64(&j, "run_ns", rows[i].run_ns);
		json_u64(&j, "sleep_ns", rows[i].sleep_ns);
		json_u64(&j, "unknown_ns", rows[i].unknown_ns);
		json_end_object(&j);
	}
	json_end_array(&j);
	free(rows);
	json_end_object(&j);
	json_finish(&j);
}

int rsp_cmd_info(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "json", no_argument, NULL, 'j' }, /* the first spelling of --format json */
		RSP_CLI_SYMBOL_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum rsp_cli_format fmt = RSP_FORMAT_TEXT;
	struct rsp_cli_input in;
	const char *path = NULL;
	int c;

	rsp_cli_getopt_reset();
	while ((c = getopt_long(argc, argv, ":f:jh", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (rsp_cli_parse_format("info", optarg, RSP_FORMAT_TEXT | RSP_FORMAT_JSON,
						 &fmt))
				return 2;
			break;
		case 'j':
			fmt = RSP_FORMAT_JSON;
			break;
		case 'h':
			fputs(info_usage, stdout);
			return 0;
		default:
			if (rsp_cli_other_option("info", argv, c, optarg))
				return 2;
			break;
		}
	}
	if (rsp_cli_one_file("info", argc, argv, &path))
		return 2;
	if (rsp_cli_input_open(&in, "info", path, NULL))
		return 1;
	if (fmt == RSP_FORMAT_JSON)
		print_json(in.path, in.t);
	else
		print_text(in.path, in.t, in.len);
	rsp_cli_input_close(&in);
	return 0;
}
