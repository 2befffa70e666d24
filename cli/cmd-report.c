/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rsp report: the explanation table of a target.  Formats: docs/report-formats.md. */
#include "args.h"
#include "cli.h"
#include "input.h"
#include "json.h"
#include "target.h"

#include "rsp-analysis.h"
#include "rsp-model.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char report_usage[] =
	"usage: rsp report [FILE] [--target PID|COMM | --thread TID] [--threads]\n"
	"                  [--format text|csv|md|json] [--tolerance US] [--top N]\n"
	"\n"
	"Explain where the target's time went, across processes: CPU in known code, disk and\n"
	"network waits, queueing, scheduler delay, hardware waits, preemption, timeouts,\n"
	"waiting on parallel work; each category with what to look at.\n"
	"\n"
	"  FILE              default rsp.data ('-': standard input)\n"
	"  --target PID|COMM the process to explain (default: the one rsp record marked)\n"
	"  --thread TID      explain one thread\n"
	"  --threads         also a table per control path (thread)\n"
	"  --format F        text (default), csv, md or json (docs/report-formats.md)\n"
	"  --tolerance US    how far a child may overflow its parent sleep (default 1000)\n"
	"  --top N           contributors listed per category (default 5; 0: all)\n"
	"\n"
	"Where the files the trace names are found (symbols):\n"
	RSP_CLI_SYMBOL_HELP;

struct report {
	struct rsp_trace *t;
	struct rsp_analysis *an;
	const char *path; /* as shown in the report */
	const char *name; /* in messages */
	int *pids;
	size_t n_pids;
	int tid;
	char target_desc[256];
	size_t top;
};

static double ms(uint64_t ns)
{
	return ns / 1e6;
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * part / whole : 0.0;
}

static uint64_t accounted(const struct rsp_explanation *e)
{
	return e->total_ns - e->cat_ns[RSP_CAT_UNACCOUNTED] - e->cat_ns[RSP_CAT_UNKNOWN];
}

/* How a contributor's time is known, when not measured: "estimated" or "inferred". */
static const char *how_known(const struct rsp_contributor *k)
{
	if (k->ns_estimated * 2 > k->ns)
		return "estimated";
	if (k->ns_inferred * 2 > k->ns)
		return "inferred";
	if ((k->ns_estimated + k->ns_inferred) * 2 > k->ns)
		return "estimated";
	return NULL;
}

/* ---- choosing the target ------------------------------------------------------------- */

static int add_pid(struct report *r, int pid)
{
	return rsp_cli_add_pid(&r->pids, &r->n_pids, pid);
}

static int choose_target(struct report *r, const char *target)
{
	size_t nt = rsp_trace_n_threads(r->t);

	if (r->tid > 0) {
		for (size_t i = 0; i < nt; i++) {
			struct rsp_thread_info ti;

			rsp_trace_thread(r->t, i, &ti);
			if (ti.tid == r->tid) {
				snprintf(r->target_desc, sizeof(r->target_desc), "thread %d (%s)",
					 r->tid, ti.comm);
				return 0;
			}
		}
		rsp_cli_error("report", "no thread %d in %s (rsp info lists the processes)", r->tid,
			      r->name);
		return -ESRCH;
	}
	if (!target) {
		for (size_t i = 0; i < rsp_trace_n_targets(r->t); i++)
			add_pid(r, rsp_trace_target(r->t, i));
		if (!r->n_pids) {
			rsp_cli_error("report", "%s %s: give --target PID or --target COMM",
				      r->name, rsp_cli_no_target_why(r->t));
			return -EINVAL;
		}
	} else if (rsp_cli_is_number(target)) {
		long pid = strtol(target, NULL, 10);
		bool found = false;

		for (size_t i = 0; i < nt && !found && pid <= INT32_MAX; i++) {
			struct rsp_thread_info ti;

			rsp_trace_thread(r->t, i, &ti);
			found = ti.pid == pid;
		}
		if (!found) {
			rsp_cli_error("report", "no process %s in %s (rsp info lists them)", target,
				      r->name);
			return -ESRCH;
		}
		add_pid(r, (int)pid);
	} else {
		for (size_t i = 0; i < nt; i++) {
			struct rsp_thread_info ti;

			rsp_trace_thread(r->t, i, &ti);
			if (!strcmp(ti.comm, target) || !strcmp(ti.first_comm, target))
				add_pid(r, ti.pid);
		}
		if (!r->n_pids) {
			rsp_cli_error("report", "no process named '%s' in %s (rsp info lists them)",
				      target, r->name);
			return -ESRCH;
		}
	}
	{
		size_t n = 0;

		n += (size_t)snprintf(r->target_desc, sizeof(r->target_desc), "%s",
				      r->n_pids > 1 ? "processes" : "process");
		for (size_t i = 0; i < r->n_pids && n < sizeof(r->target_desc) - 40; i++) {
			size_t th = rsp_trace_find_thread(r->t, r->pids[i], UINT64_MAX);
			struct rsp_thread_info ti = { .comm = "?" };

			if (th != RSP_NO_INDEX)
				rsp_trace_thread(r->t, th, &ti);
			n += (size_t)snprintf(r->target_desc + n, sizeof(r->target_desc) - n,
					      "%s %d (%s)", i ? "," : "", r->pids[i], ti.comm);
		}
	}
	return 0;
}

/* ---- text --------------------------------------------------------------------------------- */

#define LABEL_COLS 44 /* at least */
#define LABEL_MAX 80 /* at most */

/*
 * The contributors' label column: as wide as the longest label shown (44 to
 * 80 columns); a longer label keeps its start (the process) and its end (the
 * innermost function, what tells rows apart), "..." between.  The full label
 * is in the CSV, JSON and Markdown outputs.
 */
static int label_cols(const struct report *r)
{
	size_t w = LABEL_COLS;

	for (int c = 0; c < RSP_CAT__COUNT; c++)
		for (size_t i = 0; i < rsp_analysis_n_contributors(r->an, c) && i < r->top; i++) {
			struct rsp_contributor k;

			rsp_analysis_contributor(r->an, c, i, &k);
			if (strlen(k.what) > w)
				w = strlen(k.what);
		}
	return (int)(w < LABEL_MAX ? w : LABEL_MAX);
}

static const char *fit_label(const char *s, char out[LABEL_MAX + 1])
{
	size_t n = strlen(s), head = 30, tail = LABEL_MAX - 30 - 3;

	if (n <= LABEL_MAX)
		return s;
	/* whole UTF-8 characters: no cut inside one */
	while (head > 0 && ((unsigned char)s[head] & 0xc0) == 0x80)
		head--;
	while (tail > 0 && ((unsigned char)s[n - tail] & 0xc0) == 0x80)
		tail--;
	snprintf(out, LABEL_MAX + 1, "%.*s...%s", (int)head, s, s + n - tail);
	return out;
}

static void text_table(const struct report *r, const struct rsp_explanation *e, bool contrib)
{
	uint64_t acc = accounted(e);
	int w = contrib ? label_cols(r) : LABEL_COLS;

	printf("  %-34s %12s %7s\n", "category", "ms", "%");
	printf("  %-34s %12.3f\n", "Wall time", ms(e->wall_ns));
	printf("  %-34s %12.3f %6.1f%%\n", "Total time", ms(e->total_ns), 100.0);
	for (int c = 0; c < RSP_CAT__COUNT; c++) {
		if (c == RSP_CAT_UNACCOUNTED)
			continue;
		if (!e->cat_ns[c] && c != RSP_CAT_CPU)
			continue;
		printf("  %-34s %12.3f %6.1f%%\n", rsp_category_name(c), ms(e->cat_ns[c]),
		       pct(e->cat_ns[c], e->total_ns));
		if (!contrib)
			continue;
		for (size_t i = 0; i < rsp_analysis_n_contributors(r->an, c) && i < r->top; i++) {
			struct rsp_contributor k;
			char fit[LABEL_MAX + 1];

			rsp_analysis_contributor(r->an, c, i, &k);
			printf("      %-*s %9.3f ms %5.1f%%  x%" PRIu64 "%s%s\n", w, fit_label(k.what, fit),
			       ms(k.ns),
			       pct(k.ns, e->cat_ns[c]), k.count, how_known(&k) ? "  " : "",
			       how_known(&k) ? how_known(&k) : "");
		}
		if (e->cat_ns[c] * 20 >= e->total_ns)
			printf("      -> %s\n", rsp_category_advice(c));
	}
	printf("  %-34s %12.3f %6.1f%%\n", "Total accounted", ms(acc), pct(acc, e->total_ns));
	printf("  %-34s %12.3f %6.1f%%\n", "Unaccounted", ms(e->cat_ns[RSP_CAT_UNACCOUNTED]),
	       pct(e->cat_ns[RSP_CAT_UNACCOUNTED], e->total_ns));
	if (contrib)
		for (size_t i = 0;
		     i < rsp_analysis_n_contributors(r->an, RSP_CAT_UNACCOUNTED) && i < r->top; i++) {
			struct rsp_contributor k;
			char fit[LABEL_MAX + 1];

			rsp_analysis_contributor(r->an, RSP_CAT_UNACCOUNTED, i, &k);
			printf("      %-*s %9.3f ms %5.1f%%  x%" PRIu64 "\n", w, fit_label(k.what, fit),
			       ms(k.ns),
			       pct(k.ns, e->cat_ns[RSP_CAT_UNACCOUNTED]), k.count);
		}
	printf("  %-34s %19.1f%%\n", "Percent accounted", pct(acc, e->total_ns));
	printf("  %-34s %19.1f%%\n", "Percent explained", pct(e->explained_ns, e->total_ns));
}

static void print_text(const struct report *r, bool threads)
{
	struct rsp_explanation e;

	rsp_analysis_explanation(r->an, &e);
	printf("rsp report: %s, %s\n", r->target_desc, r->path);
	printf("  %zu control path%s, %zu target thread%s, %zu process%s in the pseudostacks, "
	       "tolerance %.0f us\n",
	       e.n_paths, e.n_paths == 1 ? "" : "s", e.n_threads, e.n_threads == 1 ? "" : "s",
	       e.n_processes, e.n_processes == 1 ? "" : "es", e.tolerance_ns / 1e3);
	if (e.n_cut)
		printf("  %zu children were cut at their parent's start (they began before the "
		       "target waited for them)\n",
		       e.n_cut);
	if (e.n_bounded)
		printf("  %zu links were not followed: a depth or size bound was reached\n",
		       e.n_bounded);
	for (size_t i = 0; i < rsp_trace_n_warnings(r->t); i++)
		printf("  warning: %s\n", rsp_trace_warning(r->t, i));
	printf("\n");
	text_table(r, &e, true);
	if (!threads)
		return;
	for (size_t p = 0; p < rsp_analysis_n_paths(r->an); p++) {
		struct rsp_path_info pi;
		struct rsp_thread_info ti;

		rsp_analysis_path(r->an, p, &pi);
		rsp_trace_thread(r->t, pi.thread, &ti);
		rsp_analysis_path_explanation(r->an, p, &e);
		printf("\ncontrol path %zu: %s %d (%s)%s\n", p, ti.tid == ti.pid ? "process" : "thread",
		       ti.tid, ti.comm, pi.async ? ", started by the target and run in parallel" : "");
		text_table(r, &e, false);
	}
}

/* ---- CSV / Markdown / JSON ------------------------------------------------------------------ */

static void csv_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"')
			putchar('"');
		putchar(*s);
	}
	putchar('"');
}

static void csv_rows(const struct report *r, const struct rsp_explanation *e, const char *scope,
		     bool contrib)
{
	uint64_t acc = accounted(e);

	printf("%s,wall,,%" PRIu64 ",%.6f,,\n", scope, e->wall_ns, ms(e->wall_ns));
	printf("%s,total,,%" PRIu64 ",%.6f,100.000,\n", scope, e->total_ns, ms(e->total_ns));
	for (int c = 0; c < RSP_CAT__COUNT; c++) {
		printf("%s,category,%s,%" PRIu64 ",%.6f,%.3f,\n", scope, rsp_category_key(c),
		       e->cat_ns[c], ms(e->cat_ns[c]), pct(e->cat_ns[c], e->total_ns));
		for (size_t i = 0; contrib && i < rsp_analysis_n_contributors(r->an, c) && i < r->top;
		     i++) {
			struct rsp_contributor k;

			rsp_analysis_contributor(r->an, c, i, &k);
			printf("%s,contributor,%s,%" PRIu64 ",%.6f,%.3f,", scope, rsp_category_key(c),
			       k.ns, ms(k.ns), pct(k.ns, e->cat_ns[c]));
			csv_str(k.what);
			printf(",%" PRIu64 ",%" PRIu64 "\n", k.ns_estimated, k.ns_inferred);
		}
	}
	printf("%s,accounted,,%" PRIu64 ",%.6f,%.3f,\n", scope, acc, ms(acc), pct(acc, e->total_ns));
	printf("%s,explained,,%" PRIu64 ",%.6f,%.3f,\n", scope, e->explained_ns, ms(e->explained_ns),
	       pct(e->explained_ns, e->total_ns));
}

static void print_csv(const struct report *r, bool threads)
{
	struct rsp_explanation e;

	printf("scope,row,category,ns,ms,percent,contributor,ns_estimated,ns_inferred\n");
	rsp_analysis_explanation(r->an, &e);
	csv_rows(r, &e, "all", true);
	for (size_t p = 0; threads && p < rsp_analysis_n_paths(r->an); p++) {
		char scope[32];

		snprintf(scope, sizeof(scope), "path%zu", p);
		rsp_analysis_path_explanation(r->an, p, &e);
		csv_rows(r, &e, scope, false);
	}
}

static void md_escape(const char *s)
{
	for (; *s; s++) {
		if (*s == '|' || *s == '*' || *s == '_' || *s == '`' || *s == '<' || *s == '>')
			putchar('\\');
		putchar(*s);
	}
}

static void print_md(const struct report *r)
{
	struct rsp_explanation e;
	uint64_t acc;

	rsp_analysis_explanation(r->an, &e);
	acc = accounted(&e);
	printf("## rsp report: ");
	md_escape(r->target_desc);
	printf("\n\n%zu control path%s, %zu process%s in the pseudostacks, tolerance %.0f us.\n\n",
	       e.n_paths, e.n_paths == 1 ? "" : "s", e.n_processes, e.n_processes == 1 ? "" : "es",
	       e.tolerance_ns / 1e3);
	printf("| Category | ms | %% | Top contributors |\n|---|---:|---:|---|\n");
	printf("| Wall time | %.3f | | |\n", ms(e.wall_ns));
	printf("| Total time | %.3f | 100.0 | |\n", ms(e.total_ns));
	for (int c = 0; c < RSP_CAT__COUNT; c++) {
		printf("| %s | %.3f | %.1f | ", rsp_category_name(c), ms(e.cat_ns[c]),
		       pct(e.cat_ns[c], e.total_ns));
		for (size_t i = 0; i < rsp_analysis_n_contributors(r->an, c) && i < r->top; i++) {
			struct rsp_contributor k;

			rsp_analysis_contributor(r->an, c, i, &k);
			printf("%s", i ? "<br>" : "");
			md_escape(k.what);
			printf(" (%.3f ms%s%s)", ms(k.ns), how_known(&k) ? ", " : "",
			       how_known(&k) ? how_known(&k) : "");
		}
		printf(" |\n");
	}
	printf("| **Total accounted** | %.3f | %.1f | |\n", ms(acc), pct(acc, e.total_ns));
	printf("| **Percent accounted** | | %.1f | |\n", pct(acc, e.total_ns));
	printf("| **Percent explained** | | %.1f | |\n", pct(e.explained_ns, e.total_ns));
	if (rsp_trace_n_warnings(r->t)) {
		printf("\nWarnings:\n\n");
		for (size_t i = 0; i < rsp_trace_n_warnings(r->t); i++) {
			printf("- ");
			md_escape(rsp_trace_warning(r->t, i));
			printf("\n");
		}
	}
}

static void json_expl(struct json *j, const struct report *r, const struct rsp_explanation *e,
		      bool contrib)
{
	uint64_t acc = accounted(e);

	json_u64(j, "wall_ns", e->wall_ns);
	json_u64(j, "total_ns", e->total_ns);
	json_u64(j, "accounted_ns", acc);
	json_double(j, "percent_accounted", pct(acc, e->total_ns));
	json_u64(j, "explained_ns", e->explained_ns);
	json_double(j, "percent_explained", pct(e->explained_ns, e->total_ns));
	json_begin_array(j, "categories");
	for (int c = 0; c < RSP_CAT__COUNT; c++) {
		json_begin_object(j, NULL);
		json_string(j, "key", rsp_category_key(c));
		json_string(j, "name", rsp_category_name(c));
		json_u64(j, "ns", e->cat_ns[c]);
		json_double(j, "percent", pct(e->cat_ns[c], e->total_ns));
		if (contrib) {
			json_string(j, "advice", rsp_category_advice(c));
			json_begin_array(j, "contributors");
			for (size_t i = 0; i < rsp_analysis_n_contributors(r->an, c) && i < r->top;
			     i++) {
				struct rsp_contributor k;

				rsp_analysis_contributor(r->an, c, i, &k);
				json_begin_object(j, NULL);
				json_string(j, "what", k.what);
				json_u64(j, "ns", k.ns);
				json_u64(j, "count", k.count);
				json_u64(j, "ns_sampled", k.ns - k.ns_estimated - k.ns_inferred);
				json_u64(j, "ns_estimated", k.ns_estimated);
				json_u64(j, "ns_inferred", k.ns_inferred);
				json_end_object(j);
			}
			json_end_array(j);
		}
		json_end_object(j);
	}
	json_end_array(j);
}

static void print_json(const struct report *r, bool threads)
{
	struct rsp_explanation e;
	struct json j;

	rsp_analysis_explanation(r->an, &e);
	json_init(&j, stdout, true);
	json_begin_object(&j, NULL);
	json_string(&j, "file", r->path);
	json_string(&j, "target", r->target_desc);
	json_begin_array(&j, "pids");
	for (size_t i = 0; i < r->n_pids; i++)
		json_i64(&j, NULL, r->pids[i]);
	json_end_array(&j);
	json_u64(&j, "tolerance_ns", e.tolerance_ns);
	json_u64(&j, "control_paths", e.n_paths);
	json_u64(&j, "processes", e.n_processes);
	json_u64(&j, "cut_children", e.n_cut);
	json_u64(&j, "bounded_links", e.n_bounded);
	json_expl(&j, r, &e, true);
	json_begin_array(&j, "warnings");
	for (size_t i = 0; i < rsp_trace_n_warnings(r->t); i++)
		json_string(&j, NULL, rsp_trace_warning(r->t, i));
	json_end_array(&j);
	if (threads) {
		json_begin_array(&j, "paths");
		for (size_t p = 0; p < rsp_analysis_n_paths(r->an); p++) {
			struct rsp_path_info pi;
			struct rsp_thread_info ti;

			rsp_analysis_path(r->an, p, &pi);
			rsp_trace_thread(r->t, pi.thread, &ti);
			rsp_analysis_path_explanation(r->an, p, &e);
			json_begin_object(&j, NULL);
			json_i64(&j, "tid", ti.tid);
			json_i64(&j, "pid", ti.pid);
			json_string(&j, "comm", ti.comm);
			json_bool(&j, "async", pi.async);
			json_expl(&j, r, &e, false);
			json_end_object(&j);
		}
		json_end_array(&j);
	}
	json_end_object(&j);
	json_finish(&j);
}

int rsp_cmd_report(int argc, char **argv)
{
	enum { OPT_TOL = 1000, OPT_TOP, OPT_THREAD };
	static const struct option longopts[] = {
		{ "target", required_argument, NULL, 't' },
		{ "thread", required_argument, NULL, OPT_THREAD },
		{ "threads", no_argument, NULL, 'T' },
		{ "format", required_argument, NULL, 'f' },
		{ "tolerance", required_argument, NULL, OPT_TOL },
		{ "top", required_argument, NULL, OPT_TOP },
		RSP_CLI_SYMBOL_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rsp_analysis_opts ao = { .summary = true }; /* the table needs no tree */
	struct report r = { .top = 5 };
	struct rsp_cli_input in;
	const char *target = NULL, *path = NULL;
	enum rsp_cli_format fmt = RSP_FORMAT_TEXT;
	bool threads = false;
	char err[512];
	int c, ret = 1;

	rsp_cli_getopt_reset();
	while ((c = getopt_long(argc, argv, ":t:Tf:h", longopts, NULL)) != -1) {
		char *end;

		switch (c) {
		case 't':
			target = optarg;
			break;
		case OPT_THREAD:
			r.tid = (int)strtol(optarg, &end, 10);
			if (*end || r.tid <= 0)
				return rsp_cli_usage_error("report", "bad thread id '%s'", optarg);
			break;
		case 'T':
			threads = true;
			break;
		case 'f':
			if (rsp_cli_parse_format("report", optarg,
						 RSP_FORMAT_TEXT | RSP_FORMAT_CSV | RSP_FORMAT_MD |
							 RSP_FORMAT_JSON,
						 &fmt))
				return 2;
			break;
		case OPT_TOL: {
			double us = strtod(optarg, &end);

			if (*end || us <= 0 || us > 60e6)
				return rsp_cli_usage_error("report",
							   "bad tolerance '%s': microseconds > 0",
							   optarg);
			ao.tolerance_ns = (uint64_t)(us * 1000.0);
			break;
		}
		case OPT_TOP:
			if (rsp_cli_parse_top("report", optarg, 1000, &r.top))
				return 2;
			break;
		case 'h':
			fputs(report_usage, stdout);
			return 0;
		default: {
			int sr = rsp_cli_symbol_option("report", c, optarg);

			if (sr < 0)
				return rsp_cli_bad_option("report", argv, c);
			if (sr)
				return sr;
			break;
		}
		}
	}
	if (optind < argc)
		path = argv[optind++];
	if (optind < argc)
		return rsp_cli_usage_error("report", "one file at a time ('%s' is extra)",
					   argv[optind]);
	if (target && r.tid)
		return rsp_cli_usage_error("report", "--target and --thread exclude each other");
	if (rsp_cli_input_open(&in, "report", path, NULL))
		return 1;
	r.t = in.t;
	r.path = in.path;
	r.name = in.name;
	if (choose_target(&r, target))
		goto out;
	if (rsp_analyze(r.t, r.pids, r.n_pids, r.tid, &ao, &r.an, err, sizeof(err))) {
		rsp_cli_error("report", "%s: %s", r.name, err);
		goto out;
	}
	switch (fmt) {
	case RSP_FORMAT_TEXT:
		print_text(&r, threads);
		break;
	case RSP_FORMAT_CSV:
		print_csv(&r, threads);
		break;
	case RSP_FORMAT_MD:
		print_md(&r);
		break;
	case RSP_FORMAT_JSON:
		print_json(&r, threads);
		break;
	}
	ret = 0;
out:
	rsp_analysis_free(r.an);
	rsp_cli_input_close(&in);
	free(r.pids);
	return ret;
}
