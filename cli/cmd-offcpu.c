/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rsp offcpu: Gregg's off-CPU analysis: time by kernel + user stack, with histograms. */
#include "args.h"
#include "cli.h"
#include "input.h"
#include "json.h"
#include "target.h"

#include "rsp-offcpu.h"
#include "rsp-text.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char offcpu_usage[] =
	"usage: rsp offcpu [FILE] [--target PID|COMM]... [--thread TID] [--all]\n"
	"                  [--min-us N] [--state S,D,R,P] [--within FUNCTION] [--top N]\n"
	"                  [--format text|json]\n"
	"\n"
	"Off-CPU time by kernel + user stack, each stack with a power-of-two latency\n"
	"histogram (DTrace's quantize).  Blocked time (switched out until woken) and\n"
	"dispatcher-queue time (woken or preempted, waiting for a CPU) are separate.\n"
	"\n"
	"  FILE               default rsp.data ('-': standard input)\n"
	"  --target PID|COMM  the processes (with the processes they forked); default: the\n"
	"                     ones rsp record marked; repeatable\n"
	"  --thread TID       one thread\n"
	"  --all              every thread of the trace\n"
	"  --min-us N         leave out waits shorter than N microseconds\n"
	"  --state S,D,R,P    only waits in these states: S/D blocked (interruptible,\n"
	"                     uninterruptible), R runnable after a wakeup, P preempted\n"
	"  --within FUNCTION  only waits while the thread was inside FUNCTION (a name or a\n"
	"                     glob, e.g. '*dispatch_command*'): waits during a request, not\n"
	"                     idle waits for work\n"
	"  --top N            stacks listed per part (default 10; 0: all)\n"
	"  --format F         text (default) or json\n"
	"\n"
	"Where the files the trace names are found (symbols):\n"
	RSP_CLI_SYMBOL_HELP;

/* DTrace's quantize: one row per power of two, from just below the first used to just above */
static void print_hist(const uint64_t *h)
{
	int lo = -1, hi = -1;
	uint64_t max = 0;

	for (int b = 0; b < RSP_OFFCPU_BUCKETS; b++) {
		if (!h[b])
			continue;
		if (lo < 0)
			lo = b;
		hi = b;
		if (h[b] > max)
			max = h[b];
	}
	if (lo < 0)
		return;
	if (lo > 0)
		lo--;
	if (hi + 1 < RSP_OFFCPU_BUCKETS)
		hi++;
	printf("  %14s  %-40s  %s\n", "ns value", "------------- Distribution -------------",
	       "count");
	for (int b = lo; b <= hi; b++) {
		int bar = max ? (int)((h[b] * 40 + max / 2) / max) : 0;
		char at[41];

		if (h[b] && !bar)
			bar = 1;
		memset(at, '@', (size_t)bar);
		at[bar] = '\0';
		printf("  %14" PRIu64 " |%-40s  %" PRIu64 "\n", rsp_offcpu_bucket_value((unsigned)b),
		       at, h[b]);
	}
}

static void print_part(const struct rsp_offcpu *o, enum rsp_offcpu_part part, size_t top)
{
	size_t n = rsp_offcpu_n_stacks(o, part);
	size_t shown = top < n ? top : n;

	for (size_t i = 0; i < shown; i++) {
		struct rsp_offcpu_stack s;
		bool kernel_part = true;

		rsp_offcpu_stack_info(o, part, i, &s);
		printf("\n");
		if (!s.n_frames)
			printf("    (no stack recorded)\n");
		for (size_t k = 0; k < s.n_frames; k++) {
			struct rsp_named_frame f;

			rsp_offcpu_stack_frame(o, part, i, k, &f);
			if (kernel_part && !f.kernel) {
				if (k)
					printf("\n");
				kernel_part = false;
			}
			printf("    %s\n", f.func);
		}
		printf("\n  %s (%d), %zu thread%s: %" PRIu64 " waits, total %.3f ms, average %.3f "
		       "ms, maximum %.3f ms\n",
		       s.comm, s.pid, s.n_threads, s.n_threads == 1 ? "" : "s", s.count,
		       rsp_ms(s.total_ns), rsp_ms(s.count ? s.total_ns / s.count : 0),
		       rsp_ms(s.max_ns));
		print_hist(s.hist);
	}
	if (shown < n)
		printf("\n  (%zu more stacks: --top 0 lists all)\n", n - shown);
}

static void print_text(const struct rsp_offcpu *o, const char *path, const char *desc,
		       const struct rsp_offcpu_opts *oo, size_t top)
{
	struct rsp_offcpu_summary s;

	rsp_offcpu_get_summary(o, &s);
	printf("rsp offcpu: %s, %s (%zu threads)\n", path, desc, s.n_threads);
	if (oo->min_ns || oo->states || oo->within) {
		printf("  filters:");
		if (oo->min_ns)
			printf(" waits >= %.3f ms (%" PRIu64 " shorter left out);",
			       rsp_ms(oo->min_ns), s.below_min);
		if (oo->states) {
			char st[16];

			printf(" state %s;", rsp_wait_states_str(oo->states, st, sizeof(st)));
		}
		if (oo->within)
			printf(" inside %s (%" PRIu64 " waits outside it left out);", oo->within,
			       s.outside);
		printf("\n");
	}
	printf("  blocked: %" PRIu64 " waits, %.3f ms; dispatcher queue: %" PRIu64
	       " waits, %.3f ms",
	       s.count[RSP_OFFCPU_BLOCKED], rsp_ms(s.total_ns[RSP_OFFCPU_BLOCKED]),
	       s.count[RSP_OFFCPU_RUNNABLE], rsp_ms(s.total_ns[RSP_OFFCPU_RUNNABLE]));
	if (s.left_out)
		printf("; %" PRIu64 " waits of unknown length left out", s.left_out);
	printf("\n\n== Blocked: switched out until woken (kernel stack, then user stack) ==\n");
	print_part(o, RSP_OFFCPU_BLOCKED, top);
	printf("\n== Dispatcher queue: runnable (woken or preempted), waiting for a CPU ==\n");
	print_part(o, RSP_OFFCPU_RUNNABLE, top);
}

static void json_part(struct json *j, const struct rsp_offcpu *o, enum rsp_offcpu_part part,
		      size_t top)
{
	size_t n = rsp_offcpu_n_stacks(o, part);

	for (size_t i = 0; i < n && i < top; i++) {
		struct rsp_offcpu_stack s;

		rsp_offcpu_stack_info(o, part, i, &s);
		json_begin_object(j, NULL);
		json_string(j, "comm", s.comm);
		json_i64(j, "pid", s.pid);
		json_u64(j, "threads", s.n_threads);
		json_u64(j, "count", s.count);
		json_u64(j, "total_ns", s.total_ns);
		json_u64(j, "max_ns", s.max_ns);
		json_begin_array(j, "frames");
		for (size_t k = 0; k < s.n_frames; k++) {
			struct rsp_named_frame f;

			rsp_offcpu_stack_frame(o, part, i, k, &f);
			json_begin_object(j, NULL);
			json_string(j, "func", f.func);
			json_bool(j, "kernel", f.kernel);
			json_end_object(j);
		}
		json_end_array(j);
		json_begin_array(j, "histogram");
		for (unsigned b = 0; b < RSP_OFFCPU_BUCKETS; b++) {
			if (!s.hist[b])
				continue;
			json_begin_object(j, NULL);
			json_u64(j, "ns", rsp_offcpu_bucket_value(b));
			json_u64(j, "count", s.hist[b]);
			json_end_object(j);
		}
		json_end_array(j);
		json_end_object(j);
	}
}

static void print_json(const struct rsp_offcpu *o, const char *path, const char *desc,
		       const struct rsp_offcpu_opts *oo, size_t top)
{
	struct rsp_offcpu_summary s;
	struct json j;

	rsp_offcpu_get_summary(o, &s);
	json_init(&j, stdout, true);
	json_begin_object(&j, NULL);
	json_string(&j, "file", path);
	json_string(&j, "target", desc);
	json_u64(&j, "min_ns", oo->min_ns);
	if (oo->within)
		json_string(&j, "within", oo->within);
	else
		json_null(&j, "within");
	json_begin_object(&j, "summary");
	json_u64(&j, "threads", s.n_threads);
	json_u64(&j, "blocked_count", s.count[RSP_OFFCPU_BLOCKED]);
	json_u64(&j, "blocked_ns", s.total_ns[RSP_OFFCPU_BLOCKED]);
	json_u64(&j, "runnable_count", s.count[RSP_OFFCPU_RUNNABLE]);
	json_u64(&j, "runnable_ns", s.total_ns[RSP_OFFCPU_RUNNABLE]);
	json_u64(&j, "below_min", s.below_min);
	json_u64(&j, "outside_within", s.outside);
	json_u64(&j, "left_out", s.left_out);
	json_end_object(&j);
	json_begin_array(&j, "blocked");
	json_part(&j, o, RSP_OFFCPU_BLOCKED, top);
	json_end_array(&j);
	json_begin_array(&j, "runnable");
	json_part(&j, o, RSP_OFFCPU_RUNNABLE, top);
	json_end_array(&j);
	json_end_object(&j);
	json_finish(&j);
}

int rsp_cmd_offcpu(int argc, char **argv)
{
	enum { OPT_MIN = 1000, OPT_STATE, OPT_WITHIN, OPT_TOP, OPT_THREAD, OPT_ALL };
	static const struct option longopts[] = {
		{ "target", required_argument, NULL, 't' },
		{ "thread", required_argument, NULL, OPT_THREAD },
		{ "all", no_argument, NULL, OPT_ALL },
		{ "min-us", required_argument, NULL, OPT_MIN },
		{ "state", required_argument, NULL, OPT_STATE },
		{ "within", required_argument, NULL, OPT_WITHIN },
		{ "top", required_argument, NULL, OPT_TOP },
		{ "format", required_argument, NULL, 'f' },
		RSP_CLI_SYMBOL_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rsp_cli_target tg = { 0 };
	struct rsp_offcpu_opts oo = { 0 };
	struct rsp_cli_input in = { 0 };
	struct rsp_offcpu *o = NULL;
	enum rsp_cli_format fmt = RSP_FORMAT_TEXT;
	const char *path = NULL;
	size_t top = 10;
	char err[512];
	int c, ret = 1;

	rsp_cli_getopt_reset();
	while ((c = getopt_long(argc, argv, ":t:f:h", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			if ((ret = rsp_cli_target_add(&tg, "offcpu", optarg)))
				return ret;
			break;
		case OPT_THREAD: {
			long tid;

			if (!rsp_cli_parse_count(optarg, INT32_MAX, &tid) || !tid)
				return rsp_cli_usage_error("offcpu", "bad thread id '%s'", optarg);
			tg.tid = (int)tid;
			break;
		}
		case OPT_ALL:
			tg.all = true;
			break;
		case OPT_MIN:
			if (!rsp_cli_parse_us(optarg, &oo.min_ns))
				return rsp_cli_usage_error("offcpu", "bad --min-us '%s': microseconds >= 0",
							   optarg);
			break;
		case OPT_STATE:
			if (rsp_cli_parse_states("offcpu", optarg, &oo.states))
				return 2;
			break;
		case OPT_WITHIN:
			if (!*optarg)
				return rsp_cli_usage_error("offcpu", "--within needs a function name");
			oo.within = optarg;
			break;
		case OPT_TOP:
			if (rsp_cli_parse_top("offcpu", optarg, 10000000, &top))
				return 2;
			break;
		case 'f':
			if (rsp_cli_parse_format("offcpu", optarg, RSP_FORMAT_TEXT | RSP_FORMAT_JSON,
						 &fmt))
				return 2;
			break;
		case 'h':
			fputs(offcpu_usage, stdout);
			return 0;
		default:
			if (rsp_cli_other_option("offcpu", argv, c, optarg))
				return 2;
			break;
		}
	}
	if (rsp_cli_one_file("offcpu", argc, argv, &path))
		return 2;
	if ((tg.all && (tg.n_specs || tg.tid)) || (tg.tid && tg.n_specs))
		return rsp_cli_usage_error("offcpu", "--all, --target and --thread exclude each other");
	ret = 1;
	if (rsp_cli_input_open(&in, "offcpu", path, NULL))
		goto out;
	if (rsp_cli_target_resolve(&tg, in.t, "offcpu", in.name, false))
		goto out;
	if (rsp_cli_input_need_sched(&in, "offcpu", "time off the CPU"))
		goto out;
	rsp_cli_target_filter(&tg, true, &oo.threads);
	if (rsp_offcpu_build(in.t, &oo, &o, err, sizeof(err))) {
		rsp_cli_error("offcpu", "%s: %s", in.name, err);
		goto out;
	}
	if (fmt == RSP_FORMAT_JSON)
		print_json(o, in.path, tg.desc, &oo, top);
	else
		print_text(o, in.path, tg.desc, &oo, top);
	ret = 0;
out:
	rsp_offcpu_free(o);
	rsp_cli_input_close(&in);
	rsp_cli_target_free(&tg);
	return ret;
}
