/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rsp record: option parsing and the end summary over rsp_record(). */
#include "args.h"
#include "cli.h"
#include "rsp-model.h"
#include "rsp-output.h"

#include "rsp-collector.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char record_usage[] =
	"usage: rsp record [-o FILE] [-p PID[,PID...]] [-a] [-d SECONDS] [-F HZ]\n"
	"                  [--target-freq HZ]\n"
	"                  [--call-graph fp|dwarf[,SIZE]] [-m PAGES] [--no-net] [--no-block]\n"
	"                  [--probes FILE] [--no-rt] [--no-bpf] [--compression-level N] [--no-kallsyms]\n"
	"                  [--max-memory SIZE]\n"
	"                  [-q] [-v] [-- COMMAND [ARGS...]]\n"
	"\n"
	"Record the whole system (every CPU) while a program runs: scheduler switches and\n"
	"wakeups with stacks, fork/exec/exit, block I/O, interrupts, socket events and CPU\n"
	"samples.  -p or COMMAND marks the target that `rsp report` explains.\n"
	"\n"
	"  -o, --output FILE        write FILE (default rsp.data; an existing one becomes\n"
	"                           FILE.old; a device or FIFO is written as it is)\n"
	"  -p, --pid PID[,PID...]   target running processes; stop when they all exit\n"
	"  -a, --all-cpus           record with no target, until Ctrl-C or -d\n"
	"  -d, --duration SECONDS   stop after SECONDS (a COMMAND still running gets SIGTERM)\n"
	"  -F, --freq HZ            CPU samples per second per CPU (default 999, 0: none)\n"
	"      --target-freq HZ     the target's own CPU samples per second of its CPU time,\n"
	"                           beside -F's (default 0: none; 9999 samples short runs\n"
	"                           too; its timer is re-armed at every switch of the\n"
	"                           target, a cost where timers are dear, as in VMs)\n"
	"      --call-graph MODE    fp: frame pointers only; dwarf[,SIZE]: copy SIZE bytes of\n"
	"                           user stack on every stack-carrying event.  Default: frame\n"
	"                           pointers, plus user-stack copies for the target's sleeps\n"
	"                           and for every CPU sample (8 and 16 KiB, cut to the\n"
	"                           live stack)\n"
	"  -m, --mmap-pages PAGES   perf ring buffer pages per CPU (power of two)\n"
	"      --no-net             no socket events\n"
	"      --no-block           no block I/O events\n"
	"      --probes FILE        event set to use instead of the built-in one\n"
	"      --no-rt              never raise the reader to real-time priority (by default\n"
	"                           it is, while the rings fill or the CPUs are crowded)\n"
	"      --no-bpf             record switches and wakeups through perf, not rsp's BPF\n"
	"                           program (which costs the workload less; rsp falls back\n"
	"                           to perf by itself where the kernel refuses the program)\n"
	"      --compression-level N  zstd level of the records, as perf record -z (default 1;\n"
	"                           0: none, for readers without zstd)\n"
	"      --no-kallsyms        do not store kernel symbols in the file (smaller; kernel\n"
	"                           frames then symbolize only on this machine's kernel)\n"
	"      --max-memory SIZE    the most memory the recorder holds (default 256M; K, M, G\n"
	"                           suffixes, a bare number is MiB).  Near it, event types are\n"
	"                           shed, least needed first (socket lengths and CPU samples,\n"
	"                           then interrupts, network links, block I/O; never the\n"
	"                           scheduler's), each shed span written in the file\n"
	"  -q, --quiet              no end summary\n"
	"  -v, --verbose            also what the recorder does (removed leftovers, ...)\n"
	"  -h, --help               this text\n"
	"\n"
	"Ctrl-C (or SIGTERM) stops and writes what is queued; a second one (a quarter of a\n"
	"second or more after the first) stops at once, dropping what is still queued: the\n"
	"file stays readable up to there.\n";

/* the most records read back for the stack coverage at the end (~0.5 s here) */
#define COVERAGE_MAX_RECORDS 1000000ull

/* a pipe-mode perf.data's header: a file no bigger holds no records */
#define PIPE_HEADER_SIZE 16

static void on_signal(int sig)
{
	rsp_record_request_stop();
}

static void log_msg(enum rsp_log_level level, const char *msg, void *ctx)
{
	int verbosity = *(int *)ctx;

	if (level == RSP_LOG_DEBUG && verbosity < 2)
		return;
	if (level == RSP_LOG_INFO && verbosity < 1)
		return;
	fprintf(stderr, "rsp record: %s\n", msg);
}

static int parse_pids(const char *s, pid_t **pids, size_t *n)
{
	char *copy = strdup(s), *tok, *save = NULL;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		long v = strtol(tok, &end, 10);
		pid_t *g;

		if (*end || v <= 0 || v > INT32_MAX) {
			free(copy);
			return -EINVAL;
		}
		g = realloc(*pids, (*n + 1) * sizeof(pid_t));
		if (!g) {
			free(copy);
			return -ENOMEM;
		}
		*pids = g;
		(*pids)[(*n)++] = (pid_t)v;
	}
	free(copy);
	return *n ? 0 : -EINVAL;
}

/* SIZE with a K, M or G suffix (binary), a bare number in MiB; 0 if bad */
static uint64_t parse_size(const char *s)
{
	char *end;
	double v = strtod(s, &end);
	uint64_t mul = 1ull << 20;

	if (end == s || v <= 0)
		return 0;
	switch (*end) {
	case 'k':
	case 'K':
		mul = 1ull << 10;
		end++;
		break;
	case 'm':
	case 'M':
		end++;
		break;
	case 'g':
	case 'G':
		mul = 1ull << 30;
		end++;
		break;
	default:
		break;
	}
	if (*end == 'i' && end[1] == 'B')
		end += 2;
	else if (*end == 'B')
		end++;
	if (*end || v * mul > 1e15)
		return 0;
	return (uint64_t)(v * mul);
}

static char *read_text_file(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t len = 0, cap = 0;

	if (!f)
		return NULL;
	for (;;) {
		size_t n;

		if (len + 4096 + 1 > cap) {
			char *g;

			cap = cap ? cap * 2 : 8192;
			g = realloc(buf, cap);
			if (!g) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = g;
		}
		n = fread(buf + len, 1, 4096, f);
		len += n;
		if (n < 4096)
			break;
	}
	fclose(f);
	buf[len] = '\0';
	return buf;
}

static void fmt_count(char *buf, size_t len, uint64_t v)
{
	snprintf(buf, len, "%" PRIu64, v);
}

/* The memory ceiling and what was shed under it. */
static void print_shed(const struct rsp_record_stats *st)
{
	bool any = false;

	fprintf(stderr,
		"  memory: ceiling %.0f MiB, peak resident %.1f MiB; queue peak %.1f of %.1f MiB; "
		"file complete %.2f s after the stop\n",
		st->max_memory / 1048576.0, st->peak_rss / 1048576.0, st->pool_peak / 1048576.0,
		st->pool_limit / 1048576.0, st->complete_ns / 1e9);
	for (size_t i = 0; i < st->n_events; i++) {
		const struct rsp_record_event_stats *e = &st->events[i];

		if (!e->shed_spans)
			continue;
		if (!any)
			fprintf(stderr, "rsp record: SHED at the memory ceiling (kept as "
					"LOST_SAMPLES spans in the file; `rsp info` lists them):\n");
		any = true;
		fprintf(stderr, "  %-28s %u span%s, %.1f s, %" PRIu64 " events%s\n", e->name,
			e->shed_spans, e->shed_spans == 1 ? "" : "s", e->shed_ns / 1e9,
			e->shed_events, !strcmp(e->name, "cpu-clock") ? " (estimated)" : "");
	}
	if (st->refused)
		fprintf(stderr,
			"rsp record: %" PRIu64 " records found no room at the ceiling and were "
			"dropped\n",
			st->refused);
	if (st->aborted)
		fprintf(stderr,
			"rsp record: stopped at once (second signal): %.1f MB of queued records "
			"dropped; the file is readable up to there\n",
			st->dropped_bytes / 1e6);
}

static void print_summary(const struct rsp_record_opts *o, const struct rsp_record_stats *st)
{
	const char *out = o->output ? o->output : "rsp.data";
	uint64_t lost_p = 0, lost_f = 0, lost_b = 0;
	char k[32], rec[32], p[32], t[32], f[32], m[32];

	fprintf(stderr, "rsp record: %.2f s, %" PRIu64 " records, %.1f MB in %s", st->seconds,
		st->records, st->bytes / 1e6, out);
	if (st->records)
		fprintf(stderr, " (%.0f bytes/record)", (double)st->bytes / st->records);
	if (st->raw_bytes) {
		/* small recordings compress to kilobytes: say so, not "0.0 MB" */
		if (st->z_bytes < 100000)
			fprintf(stderr, "; records zstd-compressed %.1f MB -> %.1f kB",
				st->raw_bytes / 1e6, st->z_bytes / 1e3);
		else
			fprintf(stderr, "; records zstd-compressed %.1f -> %.1f MB",
				st->raw_bytes / 1e6, st->z_bytes / 1e6);
	}
	fputc('\n', stderr);
	if (st->jit_files)
		fprintf(stderr, "rsp record: %u JIT symbol file%s (perf-PID.map, jit-PID.dump) copied "
			"into %s.jit: move it with the file\n",
			st->jit_files, st->jit_files > 1 ? "s" : "", out);
	fprintf(stderr, "  %-28s %10s %10s %10s %10s %10s %8s\n", "event", "kernel", "recorded",
		"perf", "target", "ftrace", "missing");
	for (size_t i = 0; i < st->n_events; i++) {
		const struct rsp_record_event_stats *e = &st->events[i];
		uint64_t recorded = e->from_bpf      ? e->bpf_events
				    : e->from_ftrace ? e->ftrace_events
						     : e->perf_samples;

		snprintf(k, sizeof(k), "-");
		snprintf(m, sizeof(m), "-");
		if (e->kernel_counted) {
			fmt_count(k, sizeof(k), e->kernel_count);
			fmt_count(m, sizeof(m),
				  e->kernel_count > recorded ? e->kernel_count - recorded : 0);
		}
		fmt_count(rec, sizeof(rec), recorded);
		if (e->from_bpf) /* as perf's: the samples without a target's copy */
			fmt_count(p, sizeof(p), e->bpf_events - e->target_samples);
		else if (e->from_perf)
			fmt_count(p, sizeof(p), e->perf_samples);
		else
			snprintf(p, sizeof(p), "-");
		if (e->target_samples)
			fmt_count(t, sizeof(t), e->target_samples);
		else
			snprintf(t, sizeof(t), "-");
		if (e->from_ftrace)
			fmt_count(f, sizeof(f), e->ftrace_events);
		else
			snprintf(f, sizeof(f), "-");
		fprintf(stderr, "  %-28s %10s %10s %10s %10s %10s %8s\n", e->name, k, rec, p, t, f,
			m);
	}
	for (int c = 0; c < st->nr_cpus; c++) {
		lost_p += st->lost_perf[c];
		lost_f += st->lost_ftrace[c];
		lost_b += st->lost_bpf[c];
	}
	if (lost_p || lost_f || lost_b) {
		fprintf(stderr, "rsp record: LOST records (kept as PERF_RECORD_LOST in the file):");
		for (int c = 0; c < st->nr_cpus; c++) {
			if (!st->lost_perf[c] && !st->lost_ftrace[c] && !st->lost_bpf[c])
				continue;
			fprintf(stderr, " cpu%d %" PRIu64 " perf + %" PRIu64 " ftrace", c,
				st->lost_perf[c], st->lost_ftrace[c]);
			if (st->bpf)
				fprintf(stderr, " + %" PRIu64 " bpf", st->lost_bpf[c]);
		}
		if (lost_p)
			fprintf(stderr, " (%" PRIu64 " of the perf ones in the target's own rings)",
				st->lost_target);
		if (st->starved_drains)
			fprintf(stderr, "; the memory ceiling was reached %" PRIu64
					" times: raise --max-memory, or free a CPU\n",
				st->starved_drains);
		else
			fprintf(stderr, "; raise -m or free a CPU\n");
	} else {
		fprintf(stderr, "  lost: none (%d CPUs)\n", st->nr_cpus);
	}
	if (st->throttled)
		fprintf(stderr, "rsp record: the kernel throttled sampling %" PRIu64 " times\n",
			st->throttled);
	for (size_t i = 0; i < st->n_events; i++) {
		const struct rsp_record_event_stats *e = &st->events[i];

		if (e->from_perf && e->from_ftrace && e->kernel_counted &&
		    e->perf_samples < e->kernel_count)
			fprintf(stderr,
				"  %s: perf delivered %" PRIu64 " of %" PRIu64
				" (it drops interrupt-context events on idle CPUs); the ftrace copy "
				"has %" PRIu64 "\n",
				e->name, e->perf_samples, e->kernel_count, e->ftrace_events);
	}
	print_shed(st);
	fprintf(stderr, "  %zu threads alive at start, ", st->synthesized_threads);
	if (!st->rt_reader)
		fprintf(stderr, "reader at normal priority\n");
	else if (!st->rt_lowered)
		fprintf(stderr, "reader at real-time priority\n");
	else if (!st->rt_raises)
		fprintf(stderr, "reader at normal priority while the rings kept up (always)\n");
	else
		fprintf(stderr,
			"reader at normal priority while the rings kept up, raised to real-time "
			"%u times (%u by its watch: rings filling or the CPUs crowded) for %.2f s\n",
			st->rt_raises, st->rt_watch_raises, st->rt_ns / 1e9);
	if (st->ustack_bytes_trimmed)
		fprintf(stderr, "  user-stack copies cut to the live stack: %.1f MB not written\n",
			st->ustack_bytes_trimmed / 1e6);
	if (st->bpf)
		fprintf(stderr, "  switches and wakeups with their stacks from rsp's BPF program%s\n",
			st->copy_failed ? "" : " (every user-stack copy read)");
	if (st->copy_failed)
		fprintf(stderr, "  user-stack copies the kernel could not read: %" PRIu64 "\n",
			st->copy_failed);
	if (st->replay_checked)
		fprintf(stderr,
			"  recorder's unwinding: %" PRIu64 " of %" PRIu64 " replayed unwinds differ "
			"from the unwind done again\n",
			st->replay_differ, st->replay_checked);
}

/*
 * The share of complete user sleep stacks, read back from the file with the
 * model: a sleep stack that stops short of main or a thread start routine
 * cannot say which of the program's code paths waited.
 */
static void print_stack_coverage(const char *path)
{
	struct rsp_trace_opts to = { 0 };
	struct rsp_stack_coverage c[2];
	struct rsp_trace *t = NULL;
	char err[256];

	if (rsp_trace_open(path, &to, &t, err, sizeof(err))) {
		fprintf(stderr, "  user stacks: not checked (%s)\n", err);
		return;
	}
	rsp_trace_stack_coverage(t, true, 2000, &c[0]);
	rsp_trace_stack_coverage(t, false, 2000, &c[1]);
	fprintf(stderr, "  complete user sleep stacks (reaching main or a thread start):");
	for (int k = 0; k < 2; k++) {
		const char *who = k ? "all processes" : "target";

		if (k == 0 && !rsp_trace_n_targets(t))
			continue;
		if (c[k].with_user)
			fprintf(stderr, "%s %s %.1f%% (%" PRIu64 " of %" PRIu64 ")", k ? "," : "",
				who, 100.0 * (double)c[k].complete / (double)c[k].with_user,
				c[k].complete, c[k].with_user);
		else
			fprintf(stderr, "%s %s none", k ? "," : "", who);
	}
	fputc('\n', stderr);
	rsp_trace_free(t);
}

static int exit_status_of(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

struct args {
	struct rsp_record_opts o;
	pid_t *pids;
	size_t n_pids;
	char *probes_text;
	int quiet, verbosity;
};

/* 0; 2 after one line (a usage error); -1 after --help */
static int parse_args(int argc, char **argv, struct args *a)
{
	enum {
		OPT_CALL_GRAPH = 1000,
		OPT_TARGET_FREQ,
		OPT_NO_NET,
		OPT_NO_BLOCK,
		OPT_PROBES,
		OPT_NO_RT,
		OPT_NO_BPF,
		OPT_NO_KSYMS,
		OPT_COMPRESS,
		OPT_MAX_MEMORY,
	};
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "pid", required_argument, NULL, 'p' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "duration", required_argument, NULL, 'd' },
		{ "freq", required_argument, NULL, 'F' },
		{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
		{ "target-freq", required_argument, NULL, OPT_TARGET_FREQ },
		{ "mmap-pages", required_argument, NULL, 'm' },
		{ "no-net", no_argument, NULL, OPT_NO_NET },
		{ "no-block", no_argument, NULL, OPT_NO_BLOCK },
		{ "probes", required_argument, NULL, OPT_PROBES },
		{ "no-rt", no_argument, NULL, OPT_NO_RT },
		{ "no-bpf", no_argument, NULL, OPT_NO_BPF },
		{ "no-kallsyms", no_argument, NULL, OPT_NO_KSYMS },
		{ "compression-level", required_argument, NULL, OPT_COMPRESS },
		{ "max-memory", required_argument, NULL, OPT_MAX_MEMORY },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rsp_record_opts *o = &a->o;
	int c;

	rsp_cli_getopt_reset();
	while ((c = getopt_long(argc, argv, "+:o:p:ad:F:m:qvh", longopts, NULL)) != -1) {
		char *end;

		switch (c) {
		case 'o':
			o->output = optarg;
			break;
		case 'p':
			if (parse_pids(optarg, &a->pids, &a->n_pids))
				return rsp_cli_usage_error("record", "bad PID list '%s': want PID[,PID...]",
							   optarg);
			break;
		case 'a':
			o->system_wide = true;
			break;
		case 'd':
			o->duration = strtod(optarg, &end);
			if (*end || o->duration <= 0 || end == optarg)
				return rsp_cli_usage_error("record", "bad duration '%s': want seconds > 0",
							   optarg);
			break;
		case 'F': {
			long hz = strtol(optarg, &end, 10);

			if (*end || end == optarg || hz < 0 || hz > 100000)
				return rsp_cli_usage_error("record",
							   "bad sampling rate '%s': want 0..100000 Hz",
							   optarg);
			o->sample_hz = (unsigned)hz;
			break;
		}
		case OPT_TARGET_FREQ: {
			long hz = strtol(optarg, &end, 10);

			if (*end || end == optarg || hz < 0 || hz > 100000)
				return rsp_cli_usage_error("record",
							   "bad target sampling rate '%s': want 0..100000 Hz",
							   optarg);
			o->target_hz = (unsigned)hz;
			break;
		}
		case 'm': {
			long pages = strtol(optarg, &end, 10);

			if (*end || pages < 1 || (pages & (pages - 1)))
				return rsp_cli_usage_error("record",
							   "bad page count '%s': want a power of two",
							   optarg);
			o->mmap_pages = (unsigned)pages;
			break;
		}
		case OPT_CALL_GRAPH:
			if (!strcmp(optarg, "fp")) {
				o->call_graph = RSP_CALL_GRAPH_FP;
			} else if (!strncmp(optarg, "dwarf", 5) &&
				   (optarg[5] == '\0' || optarg[5] == ',')) {
				o->call_graph = RSP_CALL_GRAPH_DWARF;
				if (optarg[5] == ',') {
					long size = strtol(optarg + 6, &end, 10);

					if (*end || size < 8 || size > 65528 || size % 8)
						return rsp_cli_usage_error(
						    "record",
						    "bad stack size '%s': want a multiple of 8 up to "
						    "65528",
						    optarg + 6);
					o->stack_size = (unsigned)size;
				}
			} else {
				return rsp_cli_usage_error("record",
							   "bad --call-graph '%s': want fp or "
							   "dwarf[,SIZE]",
							   optarg);
			}
			break;
		case OPT_NO_NET:
			o->no_net = true;
			break;
		case OPT_NO_BLOCK:
			o->no_block = true;
			break;
		case OPT_PROBES:
			free(a->probes_text);
			a->probes_text = read_text_file(optarg);
			if (!a->probes_text) {
				rsp_cli_error("record",
					      "cannot read the event set %s: %s (--probes takes a file "
					      "in the format of probes/events.conf)",
					      optarg, strerror(errno));
				return 2;
			}
			o->probes_text = a->probes_text;
			break;
		case OPT_NO_RT:
			o->no_rt = true;
			break;
		case OPT_NO_BPF:
			o->no_bpf = true;
			break;
		case OPT_NO_KSYMS:
			o->no_kallsyms = true;
			break;
		case OPT_COMPRESS: {
			long v = strtol(optarg, &end, 10);

			if (*end || end == optarg || v < 0 || v > 22)
				return rsp_cli_usage_error("record",
							   "bad --compression-level '%s': want 0 "
							   "(none) to 22",
							   optarg);
			o->compression = v ? (int)v : -1;
			break;
		}
		case OPT_MAX_MEMORY:
			o->max_memory = parse_size(optarg);
			if (!o->max_memory)
				return rsp_cli_usage_error("record",
							   "bad --max-memory '%s': want a size such as "
							   "256M or 1G",
							   optarg);
			break;
		case 'q':
			a->quiet = 1;
			a->verbosity = 0;
			break;
		case 'v':
			a->verbosity = 2;
			break;
		case 'h':
			fputs(record_usage, stdout);
			return -1;
		default:
			return rsp_cli_bad_option("record", argv, c);
		}
	}
	if (optind < argc)
		o->argv = argv + optind;
	if (!o->argv && !a->n_pids && !o->system_wide)
		return rsp_cli_usage_error("record",
					   "nothing to record: give -p PID, -a, or -- COMMAND [ARGS...]");
	return 0;
}

int rsp_cmd_record(int argc, char **argv)
{
	struct args a = { .o = { .sample_hz = 999, .target_hz = 0 }, .verbosity = 1 };
	struct rsp_record_opts *o = &a.o;
	struct rsp_output_target out;
	struct rsp_record_stats st;
	struct sigaction sa;
	char err[1024];
	int ret, status = 0;

	ret = parse_args(argc, argv, &a);
	if (ret) {
		free(a.pids);
		free(a.probes_text);
		return ret < 0 ? 0 : ret;
	}
	/* the output's errors before anything runs: a directory, a missing directory */
	if (rsp_output_check(o->output ? o->output : "rsp.data", false, &out, err, sizeof(err))) {
		rsp_cli_error("record", "%s", err);
		free(a.pids);
		free(a.probes_text);
		return 1;
	}
	o->pids = a.pids;
	o->n_pids = a.n_pids;
	/* tests: the BPF program's events from ftrace too (tests/record/bpf.sh) */
	o->bpf_check = getenv("RSP_RECORD_BPF_CHECK") && !strcmp(getenv("RSP_RECORD_BPF_CHECK"), "1");
	o->cmdline = (const char *const *)argv;
	o->n_cmdline = (size_t)argc;
	o->log = log_msg;
	o->log_ctx = &a.verbosity;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* the recorder's threads are named rsp-record, rsp-writer, rsp-ustack: where
	 * they interfere with the workload, a report says it was the recorder */
	prctl(PR_SET_NAME, "rsp-record", 0, 0, 0);

	ret = rsp_record(o, &st, err, sizeof(err));
	if (ret) {
		rsp_cli_error("record", "%s", err);
		if (st.child_ran)
			status = exit_status_of(st.child_status);
		else if (st.exec_failed)
			status = 127; /* as env(1) and timeout(1) */
		rsp_record_stats_clear(&st);
		rsp_output_target_clear(&out);
		free(a.pids);
		free(a.probes_text);
		return status ? status : 1;
	}
	if (!a.quiet)
		print_summary(o, &st);
	/* read back only a file: a device or FIFO cannot be read again; and only
	 * a small one: loading holds ~50 bytes per record and takes time the
	 * user would wait after the recording ended (on a saturated machine,
	 * where the recording shed or hit its ceiling, many seconds) */
	if (!a.quiet && st.stop != RSP_STOP_WRITE_ERROR && out.kind != RSP_OUTPUT_STREAM &&
	    !st.aborted) {
		if (st.records <= COVERAGE_MAX_RECORDS && !st.shed_max_level && !st.starved_drains &&
		    st.records * 64 <= (o->max_memory ? o->max_memory : RSP_DEFAULT_MAX_MEMORY) / 2)
			print_stack_coverage(o->output ? o->output : "rsp.data");
		else
			fprintf(stderr,
				"  user stacks: not checked here (%" PRIu64
				" records): `rsp info %s` counts them\n",
				st.records, o->output ? o->output : "rsp.data");
	}
	if (st.stop == RSP_STOP_WRITE_ERROR) {
		struct stat fst;
		char line[512];

		rsp_output_error(line, sizeof(line), o->output ? o->output : "rsp.data",
				 st.write_error);
		if (out.kind == RSP_OUTPUT_STREAM)
			rsp_cli_error("record", "%s: recording stopped", line);
		else if (stat(out.path, &fst) == 0 && fst.st_size <= PIPE_HEADER_SIZE)
			rsp_cli_error("record",
				      "%s: recording stopped before its first records were written: "
				      "the file holds none",
				      line);
		else
			rsp_cli_error("record",
				      "%s: recording stopped; the file holds everything up to that "
				      "point and opens normally",
				      line);
		status = 1;
	} else if (st.child_ran) {
		status = exit_status_of(st.child_status);
	}
	rsp_record_stats_clear(&st);
	rsp_output_target_clear(&out);
	free(a.pids);
	free(a.probes_text);
	return status;
}
