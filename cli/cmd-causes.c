/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rsp causes: LatencyTOP over a trace: waits by cause, system-wide, per process, per thread. */
#include "args.h"
#include "cli.h"
#include "input.h"
#include "json.h"
#include "target.h"

#include "rsp-causes.h"
#include "rsp-config.h"
#include "rsp-model.h"
#include "rsp-output.h"
#include "rsp-text.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char causes_usage[] =
	"usage: rsp causes [FILE] [-c RULES] [--sort total|count|avg|max]\n"
	"                  [--format text|csv|md|json] [--threads] [--target PID|COMM]...\n"
	"                  [--state S,D,R,P] [--top N] [--processes N]\n"
	"                  [--log unmatched|matched|all LOGFILE]\n"
	"\n"
	"LatencyTOP over a trace: every wait (blocked until woken, runnable in the\n"
	"scheduler's queue, preempted) given a cause by the rules that match its stack;\n"
	"count, average, maximum, total and percent system-wide and per process.\n"
	"\n"
	"  FILE               default rsp.data ('-': standard input)\n"
	"  -c, --rules RULES  the rule file (default: latency-causes.conf, installed with\n"
	"                     rsp; its header says the format)\n"
	"  --sort KEY         total (default), count, avg or max\n"
	"  --format F         text (default), csv, md or json\n"
	"  --threads          also per thread, under each process\n"
	"  --target PID|COMM  the processes to list (default: all); repeatable\n"
	"  --state S,D,R,P    only waits in these states: S/D blocked (interruptible,\n"
	"                     uninterruptible), R runnable after a wakeup, P preempted\n"
	"                     (S,D: LatencyTOP's view of causes in the stack)\n"
	"  --top N            causes per section (text/md default 10, csv/json all; 0: all)\n"
	"  --processes N      processes listed (text/md default 10, csv/json all; 0: all)\n"
	"  --log LEVEL FILE   write the stacks behind the numbers, one entry per distinct\n"
	"                     stack with its totals: unmatched (no rule matched: write rules\n"
	"                     for them), matched, or all; LOGFILE '-': standard output\n"
	"\n"
	"Where the files the trace names are found (symbols):\n"
	RSP_CLI_SYMBOL_HELP;

enum log_level { LOG_NONE, LOG_UNMATCHED, LOG_MATCHED, LOG_ALL };

struct causes {
	const char *path, *name, *rules_path; /* name: the trace in messages */
	struct rsp_trace *t;
	struct rsp_causes *rules;
	struct rsp_latency *lat;
	struct rsp_cli_target tg;
	size_t top, procs;
	bool threads;
	unsigned states;
	const char *sort_name;
};

/* ---- the default rule file --------------------------------------------------------------- */

static bool exists(const char *p)
{
	return access(p, R_OK) == 0;
}

/* In a build tree the source's data/ is the current one; installed, RSP_DATADIR. */
static const char *default_rules(char *buf, size_t len)
{
	static const char name[] = "latency-causes.conf";
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	bool installed = false;
	const char *dirs[2];

	if (n > 0) {
		self[n] = '\0';
		installed = !strncmp(self, RSP_BINDIR "/", strlen(RSP_BINDIR) + 1);
	}
	dirs[0] = installed ? RSP_DATADIR : RSP_SOURCE_DATADIR;
	dirs[1] = installed ? RSP_SOURCE_DATADIR : RSP_DATADIR;
	for (int i = 0; i < 2; i++) {
		snprintf(buf, len, "%s/%s", dirs[i], name);
		if (exists(buf))
			return buf;
	}
	snprintf(buf, len, "%s/%s", RSP_DATADIR, name);
	return buf;
}

/* ---- which processes ------------------------------------------------------------------------- */

static bool shown(const struct causes *c, const struct rsp_scope_info *s)
{
	if (!c->tg.n_specs)
		return true;
	for (size_t i = 0; i < c->tg.n_pids; i++)
		if (c->tg.pids[i] == s->pid)
			return true;
	return false;
}

/* the process scopes to print, in order */
static size_t *process_list(const struct causes *c, size_t *n)
{
	size_t ns = rsp_latency_n_scopes(c->lat), k = 0;
	size_t *v = calloc(ns ? ns : 1, sizeof(size_t));

	if (!v)
		return NULL;
	for (size_t i = 1; i < ns; i++) {
		struct rsp_scope_info s;

		rsp_latency_scope(c->lat, i, &s);
		if (s.kind != RSP_SCOPE_PROCESS || !shown(c, &s))
			continue;
		if (c->procs && k >= c->procs)
			break;
		v[k++] = i;
	}
	*n = k;
	return v;
}

static size_t rows_shown(const struct causes *c, const struct rsp_scope_info *s)
{
	return c->top && c->top < s->n_rows ? c->top : s->n_rows;
}

/* ---- text ------------------------------------------------------------------------------------------ */

static void text_rows(const struct causes *c, size_t scope, const char *indent)
{
	struct rsp_scope_info s;

	rsp_latency_scope(c->lat, scope, &s);
	for (size_t i = 0; i < rows_shown(c, &s); i++) {
		struct rsp_latency_row r;

		rsp_latency_row(c->lat, scope, i, &r);
		printf("%s%-46.46s %8" PRIu64 " %10.3f %10.3f %12.3f %6.1f%%\n", indent, r.name,
		       r.count, rsp_ms(r.count ? r.total_ns / r.count : 0), rsp_ms(r.max_ns),
		       rsp_ms(r.total_ns), rsp_pct(r.total_ns, s.total_ns));
	}
	if (rows_shown(c, &s) < s.n_rows)
		printf("%s(%zu more causes: --top 0 lists all)\n", indent,
		       s.n_rows - rows_shown(c, &s));
}

static void print_text(const struct causes *c)
{
	struct rsp_latency_summary sum;
	size_t np, *procs = process_list(c, &np);
	struct rsp_scope_info sys;
	char st[16];

	rsp_latency_get_summary(c->lat, &sum);
	rsp_latency_scope(c->lat, 0, &sys);
	printf("rsp causes: %s, rules %s (%zu rules, %zu causes), sorted by %s%s%s\n", c->path,
	       c->rules_path, rsp_causes_n_rules(c->rules), rsp_causes_n_causes(c->rules),
	       c->sort_name, c->states ? ", states " : "", rsp_wait_states_str(c->states, st, sizeof(st)));
	printf("  %" PRIu64 " wait intervals, %.3f ms in %zu threads; %.1f%% of the time matched a "
	       "rule",
	       sum.intervals, rsp_ms(sum.total_ns), sys.n_threads,
	       rsp_pct(sum.total_ns - sum.unmatched_ns, sum.total_ns));
	if (sum.left_out)
		printf("; %" PRIu64 " waits of unknown length left out", sum.left_out);
	printf("\n\n");
	printf("%-48s %8s %10s %10s %12s %7s\n", "Cause", "Count", "Average", "Maximum", "Total",
	       "Percent");
	printf("%-48s %8s %10s %10s %12s %7s\n", "System-wide", "", "ms", "ms", "ms", "");
	text_rows(c, 0, "  ");
	for (size_t k = 0; procs && k < np; k++) {
		struct rsp_scope_info p;

		rsp_latency_scope(c->lat, procs[k], &p);
		printf("\nProcess %s (%d)  total %.3f ms in %zu thread%s\n", p.comm, p.pid,
		       rsp_ms(p.total_ns), p.n_threads, p.n_threads == 1 ? "" : "s");
		text_rows(c, procs[k], "  ");
		for (size_t i = 1; c->threads && i < rsp_latency_n_scopes(c->lat); i++) {
			struct rsp_scope_info th;

			rsp_latency_scope(c->lat, i, &th);
			if (th.kind != RSP_SCOPE_THREAD || th.parent != procs[k])
				continue;
			printf("    Thread %s (%d)  total %.3f ms\n", th.comm, th.tid,
			       rsp_ms(th.total_ns));
			text_rows(c, i, "      ");
		}
	}
	if (procs) {
		size_t all = 0;

		for (size_t i = 1; i < rsp_latency_n_scopes(c->lat); i++) {
			struct rsp_scope_info s;

			rsp_latency_scope(c->lat, i, &s);
			all += s.kind == RSP_SCOPE_PROCESS && shown(c, &s);
		}
		if (all > np)
			printf("\n(%zu more processes: --processes 0 lists all)\n", all - np);
	}
	free(procs);
}

/* ---- CSV ------------------------------------------------------------------------------------------------ */

static void csv_scope(const struct causes *c, size_t scope)
{
	struct rsp_scope_info s;
	static const char *const kinds[] = { "system", "process", "thread" };

	rsp_latency_scope(c->lat, scope, &s);
	for (size_t i = 0; i < rows_shown(c, &s); i++) {
		struct rsp_latency_row r;

		rsp_latency_row(c->lat, scope, i, &r);
		printf("%s,%d,%d,", kinds[s.kind], s.pid, s.tid);
		rsp_csv_str(stdout, s.comm);
		putchar(',');
		rsp_csv_str(stdout, r.name);
		printf(",%d,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.3f\n",
		       r.cause != RSP_NO_INDEX, r.count, r.count ? r.total_ns / r.count : 0,
		       r.max_ns, r.total_ns, rsp_pct(r.total_ns, s.total_ns));
	}
}

static void print_csv(const struct causes *c)
{
	size_t np, *procs = process_list(c, &np);

	printf("scope,pid,tid,comm,cause,matched,count,avg_ns,max_ns,total_ns,percent\n");
	csv_scope(c, 0);
	for (size_t k = 0; procs && k < np; k++) {
		csv_scope(c, procs[k]);
		for (size_t i = 1; c->threads && i < rsp_latency_n_scopes(c->lat); i++) {
			struct rsp_scope_info th;

			rsp_latency_scope(c->lat, i, &th);
			if (th.kind == RSP_SCOPE_THREAD && th.parent == procs[k])
				csv_scope(c, i);
		}
	}
	free(procs);
}

/* ---- Markdown -------------------------------------------------------------------------------------------- */

static void md_escape(const char *s)
{
	for (; *s; s++) {
		if (strchr("|*_`<>[]\\", *s))
			putchar('\\');
		putchar(*s);
	}
}

static void md_table(const struct causes *c, size_t scope)
{
	struct rsp_scope_info s;

	rsp_latency_scope(c->lat, scope, &s);
	printf("| Cause | Count | Average ms | Maximum ms | Total ms | %% |\n");
	printf("|---|---:|---:|---:|---:|---:|\n");
	for (size_t i = 0; i < rows_shown(c, &s); i++) {
		struct rsp_latency_row r;

		rsp_latency_row(c->lat, scope, i, &r);
		printf("| ");
		md_escape(r.name);
		printf(" | %" PRIu64 " | %.3f | %.3f | %.3f | %.1f |\n", r.count,
		       rsp_ms(r.count ? r.total_ns / r.count : 0), rsp_ms(r.max_ns),
		       rsp_ms(r.total_ns), rsp_pct(r.total_ns, s.total_ns));
	}
	printf("\n");
}

static void print_md(const struct causes *c)
{
	size_t np, *procs = process_list(c, &np);

	printf("## rsp causes: ");
	md_escape(c->path);
	printf("\n\nRules: `%s`, sorted by %s.\n\n### System-wide\n\n", c->rules_path,
	       c->sort_name);
	md_table(c, 0);
	for (size_t k = 0; procs && k < np; k++) {
		struct rsp_scope_info p;

		rsp_latency_scope(c->lat, procs[k], &p);
		printf("### Process ");
		md_escape(p.comm);
		printf(" (%d): %.3f ms in %zu thread%s\n\n", p.pid, rsp_ms(p.total_ns), p.n_threads,
		       p.n_threads == 1 ? "" : "s");
		md_table(c, procs[k]);
		for (size_t i = 1; c->threads && i < rsp_latency_n_scopes(c->lat); i++) {
			struct rsp_scope_info th;

			rsp_latency_scope(c->lat, i, &th);
			if (th.kind != RSP_SCOPE_THREAD || th.parent != procs[k])
				continue;
			printf("#### Thread ");
			md_escape(th.comm);
			printf(" (%d): %.3f ms\n\n", th.tid, rsp_ms(th.total_ns));
			md_table(c, i);
		}
	}
	free(procs);
}

/* ---- JSON ---------------------------------------------------------------------------------------------------- */

static void json_rows(struct json *j, const struct causes *c, size_t scope)
{
	struct rsp_scope_info s;

	rsp_latency_scope(c->lat, scope, &s);
	json_u64(j, "count", s.count);
	json_u64(j, "total_ns", s.total_ns);
	json_begin_array(j, "causes");
	for (size_t i = 0; i < rows_shown(c, &s); i++) {
		struct rsp_latency_row r;

		rsp_latency_row(c->lat, scope, i, &r);
		json_begin_object(j, NULL);
		json_string(j, "cause", r.name);
		json_bool(j, "matched", r.cause != RSP_NO_INDEX);
		json_u64(j, "count", r.count);
		json_u64(j, "avg_ns", r.count ? r.total_ns / r.count : 0);
		json_u64(j, "max_ns", r.max_ns);
		json_u64(j, "total_ns", r.total_ns);
		json_double(j, "percent", rsp_pct(r.total_ns, s.total_ns));
		json_end_object(j);
	}
	json_end_array(j);
}

static void print_json(const struct causes *c)
{
	struct rsp_latency_summary sum;
	size_t np, *procs = process_list(c, &np);
	struct json j;

	rsp_latency_get_summary(c->lat, &sum);
	json_init(&j, stdout, true);
	json_begin_object(&j, NULL);
	json_string(&j, "file", c->path);
	json_string(&j, "rules", c->rules_path);
	json_string(&j, "sort", c->sort_name);
	{
		char st[16];

		json_string(&j, "states", c->states ? rsp_wait_states_str(c->states, st, sizeof(st)) :
						      "S,D,R,P");
	}
	json_begin_object(&j, "summary");
	json_u64(&j, "intervals", sum.intervals);
	json_u64(&j, "total_ns", sum.total_ns);
	json_u64(&j, "matched", sum.matched);
	json_u64(&j, "unmatched", sum.unmatched);
	json_u64(&j, "unmatched_ns", sum.unmatched_ns);
	json_u64(&j, "left_out", sum.left_out);
	json_end_object(&j);
	json_begin_object(&j, "system");
	json_rows(&j, c, 0);
	json_end_object(&j);
	json_begin_array(&j, "processes");
	for (size_t k = 0; procs && k < np; k++) {
		struct rsp_scope_info p;

		rsp_latency_scope(c->lat, procs[k], &p);
		json_begin_object(&j, NULL);
		json_i64(&j, "pid", p.pid);
		json_string(&j, "comm", p.comm);
		json_u64(&j, "n_threads", p.n_threads);
		json_rows(&j, c, procs[k]);
		if (c->threads) {
			json_begin_array(&j, "threads");
			for (size_t i = 1; i < rsp_latency_n_scopes(c->lat); i++) {
				struct rsp_scope_info th;

				rsp_latency_scope(c->lat, i, &th);
				if (th.kind != RSP_SCOPE_THREAD || th.parent != procs[k])
					continue;
				json_begin_object(&j, NULL);
				json_i64(&j, "tid", th.tid);
				json_string(&j, "comm", th.comm);
				json_rows(&j, c, i);
				json_end_object(&j);
			}
			json_end_array(&j);
		}
		json_end_object(&j);
	}
	json_end_array(&j);
	json_end_object(&j);
	json_finish(&j);
	free(procs);
}

/* ---- the log of stacks ---------------------------------------------------------------------------------------- */

static int write_log(const struct causes *c, enum log_level level, const char *file)
{
	static const char *const what[] = { "", "stacks no rule matched", "stacks a rule matched",
					    "all stacks" };
	struct rsp_output_opts oo = { .allow_stdout = true };
	struct rsp_output *out;
	char err[512];
	size_t n = 0;
	FILE *f;

	if (rsp_output_open(file, &oo, &out, err, sizeof(err))) {
		rsp_cli_error("causes", "--log: %s", err);
		return 1;
	}
	f = rsp_output_get_file(out);
	fprintf(f, "# rsp causes log: %s, %s, rules %s\n", what[level], c->path, c->rules_path);
	fprintf(f, "# One entry per distinct stack and state, largest total first: the cause (and\n"
		   "# the rule's line), state, count, total/average/maximum, a process it was seen\n"
		   "# in; then the frames, leaf first ('k' kernel, 'u' user).\n");
	for (size_t i = 0; i < rsp_latency_n_stacks(c->lat); i++) {
		struct rsp_latency_stack s;
		struct rsp_thread_info ti;

		rsp_latency_stack_info(c->lat, i, &s);
		if (level == LOG_UNMATCHED && s.cause != RSP_NO_INDEX)
			continue;
		if (level == LOG_MATCHED && s.cause == RSP_NO_INDEX)
			continue;
		rsp_trace_thread(c->t, s.thread, &ti);
		fprintf(f, "\n%s", s.name);
		if (s.line)
			fprintf(f, " (line %u)", s.line);
		fprintf(f,
			"  state %s  count %" PRIu64 "  total %.3f ms  avg %.3f ms  max %.3f ms  "
			"seen in %s (%d)\n",
			rsp_wait_state_name(s.state), s.count, rsp_ms(s.total_ns),
			rsp_ms(s.count ? s.total_ns / s.count : 0), rsp_ms(s.max_ns), ti.comm,
			ti.pid);
		if (!s.n_frames)
			fprintf(f, "  (no stack recorded)\n");
		for (size_t k = 0; k < s.n_frames; k++) {
			struct rsp_named_frame fr;

			rsp_latency_stack_frame(c->lat, i, k, &fr);
			fprintf(f, "  %c %s\n", fr.kernel ? 'k' : 'u', fr.func);
		}
		n++;
	}
	fprintf(f, "\n# %zu entries\n", n);
	if (rsp_output_commit(out, err, sizeof(err))) {
		rsp_cli_error("causes", "--log: %s", err);
		return 1;
	}
	return 0;
}

/* ---- the verb -------------------------------------------------------------------------------------------------- */

/* --log takes two arguments: take them out of argv before getopt sees it */
static int take_log(int *argc, char **argv, enum log_level *level, const char **file)
{
	for (int i = 1; i < *argc; i++) {
		const char *lv = NULL;
		int used = 0;

		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "--log")) {
			if (i + 2 >= *argc)
				return rsp_cli_usage_error("causes", "--log needs a level and a file: "
								     "--log unmatched|matched|all FILE");
			lv = argv[i + 1];
			*file = argv[i + 2];
			used = 3;
		} else if (!strncmp(argv[i], "--log=", 6)) {
			if (i + 1 >= *argc)
				return rsp_cli_usage_error("causes", "--log needs a level and a file: "
								     "--log unmatched|matched|all FILE");
			lv = argv[i] + 6;
			*file = argv[i + 1];
			used = 2;
		} else {
			continue;
		}
		if (!strcmp(lv, "unmatched"))
			*level = LOG_UNMATCHED;
		else if (!strcmp(lv, "matched"))
			*level = LOG_MATCHED;
		else if (!strcmp(lv, "all"))
			*level = LOG_ALL;
		else
			return rsp_cli_usage_error("causes",
						   "unknown log level '%s': unmatched, matched or all",
						   lv);
		memmove(&argv[i], &argv[i + used], (size_t)(*argc - i - used + 1) * sizeof(char *));
		*argc -= used;
		i--;
	}
	return 0;
}

int rsp_cmd_causes(int argc, char **argv)
{
	enum { OPT_TOP = 1000, OPT_PROCS, OPT_SORT, OPT_STATE };
	static const struct option longopts[] = {
		{ "rules", required_argument, NULL, 'c' },
		{ "sort", required_argument, NULL, OPT_SORT },
		{ "format", required_argument, NULL, 'f' },
		{ "threads", no_argument, NULL, 'T' },
		{ "target", required_argument, NULL, 't' },
		{ "top", required_argument, NULL, OPT_TOP },
		{ "processes", required_argument, NULL, OPT_PROCS },
		{ "state", required_argument, NULL, OPT_STATE },
		RSP_CLI_SYMBOL_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct causes c = { .sort_name = "total" };
	struct rsp_latency_opts lo = { 0 };
	enum rsp_latency_sort sort = RSP_LATENCY_BY_TOTAL;
	enum log_level log_level = LOG_NONE;
	const char *log_file = NULL, *path = NULL;
	enum rsp_cli_format fmt = RSP_FORMAT_TEXT;
	struct rsp_cli_input in = { 0 };
	bool top_set = false, procs_set = false;
	size_t top = 0, procs = 0;
	char err[512], rules_buf[PATH_MAX + 64];
	int opt, ret;

	if ((ret = take_log(&argc, argv, &log_level, &log_file)))
		return ret;
	rsp_cli_getopt_reset();
	while ((opt = getopt_long(argc, argv, ":c:f:t:Th", longopts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			c.rules_path = optarg;
			break;
		case OPT_SORT:
			if (!strcmp(optarg, "total"))
				sort = RSP_LATENCY_BY_TOTAL;
			else if (!strcmp(optarg, "count"))
				sort = RSP_LATENCY_BY_COUNT;
			else if (!strcmp(optarg, "avg") || !strcmp(optarg, "average"))
				sort = RSP_LATENCY_BY_AVG;
			else if (!strcmp(optarg, "max") || !strcmp(optarg, "maximum"))
				sort = RSP_LATENCY_BY_MAX;
			else
				return rsp_cli_usage_error("causes",
							   "unknown sort '%s': total, count, avg or "
							   "max",
							   optarg);
			c.sort_name = optarg;
			break;
		case 'f':
			if (rsp_cli_parse_format("causes", optarg,
						 RSP_FORMAT_TEXT | RSP_FORMAT_CSV | RSP_FORMAT_MD |
							 RSP_FORMAT_JSON,
						 &fmt))
				return 2;
			break;
		case 'T':
			c.threads = true;
			break;
		case 't':
			if ((ret = rsp_cli_target_add(&c.tg, "causes", optarg)))
				return ret;
			break;
		case OPT_TOP:
			if (rsp_cli_parse_top("causes", optarg, 100000, &top))
				return 2;
			top_set = true;
			break;
		case OPT_PROCS: {
			long n;

			if (!rsp_cli_parse_count(optarg, 10000000, &n))
				return rsp_cli_usage_error("causes",
							   "bad --processes '%s': a count, 0 for all",
							   optarg);
			procs = n ? (size_t)n : SIZE_MAX;
			procs_set = true;
			break;
		}
		case OPT_STATE:
			if (rsp_cli_parse_states("causes", optarg, &lo.states))
				return 2;
			break;
		case 'h':
			fputs(causes_usage, stdout);
			return 0;
		default:
			if (rsp_cli_other_option("causes", argv, opt, optarg))
				return 2;
			break;
		}
	}
	if (rsp_cli_one_file("causes", argc, argv, &path))
		return 2;
	/* text and Markdown are read by people: 10 by default; CSV and JSON by programs: all */
	c.top = top_set ? top : (fmt == RSP_FORMAT_TEXT || fmt == RSP_FORMAT_MD) ? 10 : SIZE_MAX;
	c.procs = procs_set ? procs :
		  (fmt == RSP_FORMAT_TEXT || fmt == RSP_FORMAT_MD) ? 10 :
								     SIZE_MAX;
	if (!c.rules_path)
		c.rules_path = default_rules(rules_buf, sizeof(rules_buf));
	ret = 1;
	if (rsp_causes_load(c.rules_path, &c.rules, err, sizeof(err))) {
		rsp_cli_error("causes", "%s (-c takes a rule file; the header of %s says the format)",
			      err, default_rules(rules_buf, sizeof(rules_buf)));
		return 1;
	}
	if (rsp_cli_input_open(&in, "causes", path, NULL))
		goto out;
	if (rsp_cli_input_need_sched(&in, "causes", "what threads waited for"))
		goto out;
	if (log_level != LOG_NONE &&
	    (rsp_cli_same_file(log_file, in.path) || rsp_cli_same_file(log_file, c.rules_path))) {
		ret = rsp_cli_usage_error("causes", "--log %s is a file being read: give another name",
					  log_file);
		goto out;
	}
	c.t = in.t;
	c.path = in.path;
	c.name = in.name;
	if (c.tg.n_specs && rsp_cli_target_resolve(&c.tg, c.t, "causes", c.name, true))
		goto out;
	lo.per_thread = c.threads;
	c.states = lo.states;
	if (rsp_latency_account(c.t, c.rules, &lo, &c.lat, err, sizeof(err))) {
		rsp_cli_error("causes", "%s: %s", c.name, err);
		goto out;
	}
	rsp_latency_sort(c.lat, sort);
	if (log_level != LOG_NONE && write_log(&c, log_level, log_file))
		goto out;
	switch (fmt) {
	case RSP_FORMAT_TEXT:
		print_text(&c);
		break;
	case RSP_FORMAT_CSV:
		print_csv(&c);
		break;
	case RSP_FORMAT_MD:
		print_md(&c);
		break;
	case RSP_FORMAT_JSON:
		print_json(&c);
		break;
	}
	ret = 0;
out:
	rsp_latency_free(c.lat);
	rsp_cli_input_close(&in);
	rsp_causes_free(c.rules);
	rsp_cli_target_free(&c.tg);
	return ret;
}
