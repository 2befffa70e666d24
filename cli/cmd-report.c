/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rsp report: the explanation table of a target.  Formats: docs/report-formats.md. */
#include "args.h"
#include "cli.h"
#include "input.h"
#include "json.h"
#include "report-by.h"
#include "report-served.h"
#include "target.h"

#include "rsp-analysis.h"
#include "rsp-model.h"
#include "rsp-requests.h"
#include "rsp-str.h"
#include "rsp-text.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char report_usage[] =
	"usage: rsp report [FILE] [--target PID|COMM | --thread TID] [--threads]\n"
	"                  [--format text|csv|md|json] [--tolerance US] [--top N]\n"
	"                  [--requests | --by command]\n"
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
	"  --tolerance US    how long before its parent sleep a child may begin (default 1000)\n"
	"  --top N           contributors listed per category (default 5; 0: all); with\n"
	"                    --requests also the slowest requests explained one by one\n"
	"  --requests        a server's requests: the target's time split at its socket\n"
	"                    calls (a request's receive to its reply's send, per\n"
	"                    connection), their latency distribution, what all of them\n"
	"                    and the slowest spent their time on; idle time apart\n"
	"  --by command      the target's time by the command line of the process it\n"
	"                    was spent in (a build's compiles by their source files)\n"
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
	struct served sv; /* the requests it serves (the plain report opens with them) */
};

static uint64_t accounted(const struct rsp_explanation *e)
{
	return rsp_explanation_accounted(e);
}

/* What the percentages are of: the time not idle (the total where nothing was idle). */
static uint64_t base(const struct rsp_explanation *e)
{
	return rsp_explanation_not_idle(e);
}

/* Categories shown apart, or only where not 0: idle (printed first, of the total). */
static bool apart(int c)
{
	return c == RSP_CAT_UNACCOUNTED || c == RSP_CAT_IDLE;
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
		char cmd[256];

		for (size_t i = 0; i < rsp_trace_n_targets(r->t); i++)
			add_pid(r, rsp_trace_target(r->t, i));
		if (!r->n_pids &&
		    rsp_cli_recorded_command(r->t, &r->pids, &r->n_pids, cmd, sizeof(cmd)))
			rsp_cli_note_recorded_command("report", r->name, r->pids, r->n_pids, cmd);
		if (!r->n_pids) {
			rsp_cli_error("report", "%s %s: give --target PID or --target COMM",
				      r->name, rsp_cli_no_target_why(r->t));
			return -EINVAL;
		}
	} else if (rsp_is_decimal(target)) {
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

/* Control path @p of the target: its info, its thread's, and its explanation. */
static void path_of(const struct report *r, size_t p, struct rsp_path_info *pi,
		    struct rsp_thread_info *ti, struct rsp_explanation *e)
{
	rsp_analysis_path(r->an, p, pi);
	rsp_trace_thread(r->t, pi->thread, ti);
	rsp_analysis_path_explanation(r->an, p, e);
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

/* Category @c's contributors (the first --top) and, when it is 5% of @of or more, its advice. */
static void text_contributors(const struct report *r, const struct rsp_explanation *e, int c,
			      int w, uint64_t of)
{
	for (size_t i = 0; i < rsp_analysis_n_contributors(r->an, c) && i < r->top; i++) {
		struct rsp_contributor k;
		char fit[LABEL_MAX + 1];
		const char *how;

		rsp_analysis_contributor(r->an, c, i, &k);
		how = rsp_contributor_how_known(&k);
		printf("      %-*s %9.3f ms %5.1f%%  x%" PRIu64 "%s%s\n", w, fit_label(k.what, fit),
		       rsp_ms(k.ns), rsp_pct(k.ns, e->cat_ns[c]), k.count, how ? "  " : "",
		       how ? how : "");
	}
	if (e->cat_ns[c] * 20 >= of)
		printf("      -> %s\n", rsp_category_advice(c));
}

static void text_table(const struct report *r, const struct rsp_explanation *e, bool contrib)
{
	uint64_t acc = accounted(e), of = base(e);
	int w = contrib ? label_cols(r) : LABEL_COLS;

	printf("  %-34s %12s %7s\n", "category", "ms", "%");
	printf("  %-34s %12.3f\n", "Wall time", rsp_ms(e->wall_ns));
	printf("  %-34s %12.3f %6.1f%%\n", "Total time", rsp_ms(e->total_ns), 100.0);
	if (e->cat_ns[RSP_CAT_IDLE]) {
		/* idle first, of the total; the rest of the table of the time not idle */
		printf("  %-34s %12.3f %6.1f%%\n", rsp_category_name(RSP_CAT_IDLE),
		       rsp_ms(e->cat_ns[RSP_CAT_IDLE]), rsp_pct(e->cat_ns[RSP_CAT_IDLE], e->total_ns));
		if (contrib)
			text_contributors(r, e, RSP_CAT_IDLE, w, e->total_ns);
		printf("  %-34s %12.3f %6.1f%%\n", "Not idle", rsp_ms(of), rsp_pct(of, e->total_ns));
		printf("  of the time not idle:\n");
	}
	for (int c = 0; c < RSP_CAT__COUNT; c++) {
		if (apart(c))
			continue;
		if (!e->cat_ns[c] && c != RSP_CAT_CPU)
			continue;
		printf("  %-34s %12.3f %6.1f%%\n", rsp_category_name(c), rsp_ms(e->cat_ns[c]),
		       rsp_pct(e->cat_ns[c], of));
		if (contrib)
			text_contributors(r, e, c, w, of);
	}
	printf("  %-34s %12.3f %6.1f%%\n", "Total accounted", rsp_ms(acc), rsp_pct(acc, of));
	printf("  %-34s %12.3f %6.1f%%\n", "Unaccounted", rsp_ms(e->cat_ns[RSP_CAT_UNACCOUNTED]),
	       rsp_pct(e->cat_ns[RSP_CAT_UNACCOUNTED], of));
	if (contrib)
		for (size_t i = 0;
		     i < rsp_analysis_n_contributors(r->an, RSP_CAT_UNACCOUNTED) && i < r->top; i++) {
			struct rsp_contributor k;
			char fit[LABEL_MAX + 1];

			rsp_analysis_contributor(r->an, RSP_CAT_UNACCOUNTED, i, &k);
			printf("      %-*s %9.3f ms %5.1f%%  x%" PRIu64 "\n", w, fit_label(k.what, fit),
			       rsp_ms(k.ns),
			       rsp_pct(k.ns, e->cat_ns[RSP_CAT_UNACCOUNTED]), k.count);
		}
	printf("  %-34s %19.1f%%\n", "Percent accounted", rsp_pct(acc, of));
	printf("  %-34s %19.1f%%\n", "Percent explained", rsp_pct(e->explained_ns, of));
}

/* " (from COMM, pid N)" for client thread @th, "" if not known */
static const char *client_words(const struct rsp_trace *t, size_t th, char *buf, size_t len)
{
	struct rsp_thread_info ti;

	buf[0] = '\0';
	if (th == RSP_NO_INDEX)
		return buf;
	rsp_trace_thread(t, th, &ti);
	snprintf(buf, len, " (from %s, pid %d)", ti.comm ? ti.comm : "?", ti.pid);
	return buf;
}

/* Time the target waited while its servers served other connections, per connection
 * (most first), with what the server did meanwhile (its largest contributors). */
static void print_queued(const struct report *r, const struct rsp_explanation *e)
{
	printf("  queued behind other connections of its servers: %.3f ms (%.1f%% of total)\n",
	       e->queued_ns / 1e6, e->total_ns ? 100.0 * e->queued_ns / e->total_ns : 0.0);
	for (size_t i = 0; i < e->n_queued && i < 5; i++) {
		struct rsp_socket_info si;
		size_t sock, n = rsp_analysis_n_queued_what(r->an, i);
		char who[96];
		uint64_t ns;

		rsp_analysis_queued(r->an, i, &sock, &ns, NULL);
		rsp_trace_socket(r->t, sock, &si);
		if (si.remote[0])
			printf("      behind %s: %.3f ms, meanwhile:\n", si.remote, ns / 1e6);
		else if ((si.family == 2 || si.family == 10) && si.protocol == 17)
			/* another peer of a UDP server: the socket it sent from */
			printf("      behind the datagrams of UDP socket %#" PRIx64 ": %.3f ms, "
			       "meanwhile:\n", si.sk, ns / 1e6);
		else /* a unix socket, or connected before the recording: no address
		      * seen; its client when the data names it */
			printf("      behind the connection of %ssocket %#" PRIx64 "%s: %.3f ms, "
			       "meanwhile:\n", si.family == 1 ? "unix " : "", si.sk,
			       client_words(r->t, rsp_analysis_queued_client(r->an, i), who,
					    sizeof(who)),
			       ns / 1e6);
		for (size_t k = 0; k < n && k < 3; k++) {
			enum rsp_category c;
			const char *what;
			uint64_t wns;

			rsp_analysis_queued_what(r->an, i, k, &c, &what, &wns);
			printf("          %-52s %9.3f ms  (%s)\n", what, wns / 1e6,
			       rsp_category_name(c));
		}
	}
	if (e->n_queued > 5)
		printf("      ... %zu more connections (--format json lists all)\n",
		       e->n_queued - 5);
}

static void print_text(const struct report *r, bool threads)
{
	struct rsp_explanation e;

	rsp_analysis_explanation(r->an, &e);
	printf("rsp report: %s, %s\n", r->target_desc, r->path);
	served_text(&r->sv);
	printf("  %zu control path%s, %zu target thread%s, %zu process%s in the pseudostacks, "
	       "tolerance %.0f us\n",
	       e.n_paths, e.n_paths == 1 ? "" : "s", e.n_threads, e.n_threads == 1 ? "" : "s",
	       e.n_processes, e.n_processes == 1 ? "" : "es", e.tolerance_ns / 1e3);
	if (e.n_cut)
		printf("  %zu children were cut at their parent's start (they began before the "
		       "target waited for them)\n",
		       e.n_cut);
	if (e.n_overflow)
		printf("  %zu calls ran on for %.3f ms after waking their caller, while its CPU "
		       "woke from idle: not counted in total\n",
		       e.n_overflow, e.overflow_ns / 1e6);
	if (e.recorder_ns)
		printf("  the recorder (rsp record) held a CPU the target waited for: %.3f ms, %.1f%% "
		       "of the time not idle,\n  the recording's own cost (accounted, in the lines "
		       "that name it)\n",
		       e.recorder_ns / 1e6, rsp_pct(e.recorder_ns, rsp_explanation_not_idle(&e)));
	if (e.n_queued)
		print_queued(r, &e);
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

		path_of(r, p, &pi, &ti, &e);
		printf("\ncontrol path %zu: %s %d (%s)%s\n", p, ti.tid == ti.pid ? "process" : "thread",
		       ti.tid, ti.comm, pi.async ? ", started by the target and run in parallel" : "");
		if (ti.cmdline)
			printf("  command line: %s\n", ti.cmdline);
		text_table(r, &e, false);
	}
}

/* ---- CSV / Markdown / JSON ------------------------------------------------------------------ */

static void csv_rows(const struct report *r, const struct rsp_explanation *e, const char *scope,
		     bool contrib)
{
	uint64_t acc = accounted(e), of = base(e);

	printf("%s,wall,,%" PRIu64 ",%.6f,,\n", scope, e->wall_ns, rsp_ms(e->wall_ns));
	printf("%s,total,,%" PRIu64 ",%.6f,100.000,\n", scope, e->total_ns, rsp_ms(e->total_ns));
	if (e->cat_ns[RSP_CAT_IDLE])
		printf("%s,not_idle,,%" PRIu64 ",%.6f,%.3f,\n", scope, of, rsp_ms(of),
		       rsp_pct(of, e->total_ns));
	for (int c = 0; c < RSP_CAT__COUNT; c++) {
		if (c == RSP_CAT_IDLE && !e->cat_ns[c])
			continue;
		printf("%s,category,%s,%" PRIu64 ",%.6f,%.3f,\n", scope, rsp_category_key(c),
		       e->cat_ns[c], rsp_ms(e->cat_ns[c]),
		       rsp_pct(e->cat_ns[c], c == RSP_CAT_IDLE ? e->total_ns : of));
		for (size_t i = 0; contrib && i < rsp_analysis_n_contributors(r->an, c) && i < r->top;
		     i++) {
			struct rsp_contributor k;

			rsp_analysis_contributor(r->an, c, i, &k);
			printf("%s,contributor,%s,%" PRIu64 ",%.6f,%.3f,", scope, rsp_category_key(c),
			       k.ns, rsp_ms(k.ns), rsp_pct(k.ns, e->cat_ns[c]));
			rsp_csv_str(stdout, k.what);
			printf(",%" PRIu64 ",%" PRIu64 "\n", k.ns_estimated, k.ns_inferred);
		}
	}
	printf("%s,accounted,,%" PRIu64 ",%.6f,%.3f,\n", scope, acc, rsp_ms(acc), rsp_pct(acc, of));
	printf("%s,explained,,%" PRIu64 ",%.6f,%.3f,\n", scope, e->explained_ns, rsp_ms(e->explained_ns),
	       rsp_pct(e->explained_ns, of));
}

static void print_csv(const struct report *r, bool threads)
{
	struct rsp_explanation e;

	printf("scope,row,category,ns,ms,percent,contributor,ns_estimated,ns_inferred\n");
	served_csv(&r->sv);
	rsp_analysis_explanation(r->an, &e);
	csv_rows(r, &e, "all", true);
	for (size_t p = 0; threads && p < rsp_analysis_n_paths(r->an); p++) {
		char scope[32];

		snprintf(scope, sizeof(scope), "path%zu", p);
		rsp_analysis_path_explanation(r->an, p, &e);
		csv_rows(r, &e, scope, false);
	}
}

/* Category @c's Markdown row, its percent of @of. */
static void md_row(const struct report *r, const struct rsp_explanation *e, int c, uint64_t of)
{
	printf("| %s | %.3f | %.1f | ", rsp_category_name(c), rsp_ms(e->cat_ns[c]),
	       rsp_pct(e->cat_ns[c], of));
	for (size_t i = 0; i < rsp_analysis_n_contributors(r->an, c) && i < r->top; i++) {
		struct rsp_contributor k;
		const char *how;

		rsp_analysis_contributor(r->an, c, i, &k);
		how = rsp_contributor_how_known(&k);
		printf("%s", i ? "<br>" : "");
		rsp_md_str(stdout, k.what);
		printf(" (%.3f ms%s%s)", rsp_ms(k.ns), how ? ", " : "", how ? how : "");
	}
	printf(" |\n");
}

/* The Markdown table of r->an's explanation. */
static void print_md_table(const struct report *r)
{
	struct rsp_explanation e;
	uint64_t acc, of;

	rsp_analysis_explanation(r->an, &e);
	acc = accounted(&e);
	of = base(&e);
	printf("| Category | ms | %% | Top contributors |\n|---|---:|---:|---|\n");
	printf("| Wall time | %.3f | | |\n", rsp_ms(e.wall_ns));
	printf("| Total time | %.3f | 100.0 | |\n", rsp_ms(e.total_ns));
	if (e.cat_ns[RSP_CAT_IDLE]) {
		/* idle first, of the total; the rest of the time not idle */
		md_row(r, &e, RSP_CAT_IDLE, e.total_ns);
		printf("| Not idle (the percentages below are of it) | %.3f | %.1f | |\n", rsp_ms(of),
		       rsp_pct(of, e.total_ns));
	}
	for (int c = 0; c < RSP_CAT__COUNT; c++)
		if (c != RSP_CAT_IDLE)
			md_row(r, &e, c, of);
	printf("| **Total accounted** | %.3f | %.1f | |\n", rsp_ms(acc), rsp_pct(acc, of));
	printf("| **Percent accounted** | | %.1f | |\n", rsp_pct(acc, of));
	printf("| **Percent explained** | | %.1f | |\n", rsp_pct(e.explained_ns, of));
}

static void print_md(const struct report *r)
{
	struct rsp_explanation e;

	rsp_analysis_explanation(r->an, &e);
	printf("## rsp report: ");
	rsp_md_str(stdout, r->target_desc);
	printf("\n\n%zu control path%s, %zu process%s in the pseudostacks, tolerance %.0f us.\n\n",
	       e.n_paths, e.n_paths == 1 ? "" : "s", e.n_processes, e.n_processes == 1 ? "" : "es",
	       e.tolerance_ns / 1e3);
	served_md(&r->sv);
	print_md_table(r);
	if (rsp_trace_n_warnings(r->t)) {
		printf("\nWarnings:\n\n");
		for (size_t i = 0; i < rsp_trace_n_warnings(r->t); i++) {
			printf("- ");
			rsp_md_str(stdout, rsp_trace_warning(r->t, i));
			printf("\n");
		}
	}
}

static void json_expl(struct json *j, const struct report *r, const struct rsp_explanation *e,
		      bool contrib)
{
	uint64_t acc = accounted(e), of = base(e);

	json_u64(j, "wall_ns", e->wall_ns);
	json_u64(j, "total_ns", e->total_ns);
	if (e->cat_ns[RSP_CAT_IDLE]) {
		json_u64(j, "idle_ns", e->cat_ns[RSP_CAT_IDLE]);
		json_double(j, "percent_idle", rsp_pct(e->cat_ns[RSP_CAT_IDLE], e->total_ns));
		json_u64(j, "not_idle_ns", of);
	}
	json_u64(j, "accounted_ns", acc);
	json_double(j, "percent_accounted", rsp_pct(acc, of));
	json_u64(j, "explained_ns", e->explained_ns);
	json_double(j, "percent_explained", rsp_pct(e->explained_ns, of));
	json_begin_array(j, "categories");
	for (int c = 0; c < RSP_CAT__COUNT; c++) {
		if (c == RSP_CAT_IDLE && !e->cat_ns[c])
			continue;
		json_begin_object(j, NULL);
		json_string(j, "key", rsp_category_key(c));
		json_string(j, "name", rsp_category_name(c));
		json_u64(j, "ns", e->cat_ns[c]);
		json_double(j, "percent", rsp_pct(e->cat_ns[c], c == RSP_CAT_IDLE ? e->total_ns : of));
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

/* Both JSON documents open with the file, the target and its processes. */
static void json_head(struct json *j, const struct report *r)
{
	json_init(j, stdout, true);
	json_begin_object(j, NULL);
	json_string(j, "file", r->path);
	json_string(j, "target", r->target_desc);
	json_begin_array(j, "pids");
	for (size_t i = 0; i < r->n_pids; i++)
		json_i64(j, NULL, r->pids[i]);
	json_end_array(j);
}

static void print_json(const struct report *r, bool threads)
{
	struct rsp_explanation e;
	struct json j;

	rsp_analysis_explanation(r->an, &e);
	json_head(&j, r);
	served_json(&r->sv, &j);
	json_u64(&j, "tolerance_ns", e.tolerance_ns);
	json_u64(&j, "control_paths", e.n_paths);
	json_u64(&j, "processes", e.n_processes);
	json_u64(&j, "cut_children", e.n_cut);
	json_u64(&j, "overflow_calls", e.n_overflow);
	json_u64(&j, "overflow_ns", e.overflow_ns);
	json_u64(&j, "queued_ns", e.queued_ns);
	json_begin_array(&j, "queued_behind");
	for (size_t i = 0; i < e.n_queued; i++) {
		uint64_t cat[RSP_CAT__COUNT], ns;
		struct rsp_socket_info si;
		char sk[24];
		size_t sock;

		rsp_analysis_queued(r->an, i, &sock, &ns, cat);
		rsp_trace_socket(r->t, sock, &si);
		json_begin_object(&j, NULL);
		json_string(&j, "peer", si.remote);
		snprintf(sk, sizeof(sk), "%#" PRIx64, si.sk);
		json_string(&j, "socket", sk);
		if (rsp_analysis_queued_client(r->an, i) != RSP_NO_INDEX) {
			struct rsp_thread_info ti;

			rsp_trace_thread(r->t, rsp_analysis_queued_client(r->an, i), &ti);
			json_string(&j, "client_comm", ti.comm ? ti.comm : "");
			json_i64(&j, "client_pid", ti.pid);
		}
		json_u64(&j, "ns", ns);
		json_begin_object(&j, "categories");
		for (int c = 0; c < RSP_CAT__COUNT; c++)
			if (cat[c])
				json_u64(&j, rsp_category_key((enum rsp_category)c), cat[c]);
		json_end_object(&j);
		json_begin_array(&j, "contributors");
		for (size_t k = 0; k < rsp_analysis_n_queued_what(r->an, i); k++) {
			enum rsp_category c;
			const char *what;
			uint64_t wns;

			rsp_analysis_queued_what(r->an, i, k, &c, &what, &wns);
			json_begin_object(&j, NULL);
			json_string(&j, "category", rsp_category_key(c));
			json_string(&j, "what", what);
			json_u64(&j, "ns", wns);
			json_end_object(&j);
		}
		json_end_array(&j);
		json_end_object(&j);
	}
	json_end_array(&j);
	json_u64(&j, "recorder_ns", e.recorder_ns);
	json_u64(&j, "bounded_links", e.n_bounded);
	json_expl(&j, r, &e, true);
	rsp_cli_json_warnings(&j, r->t);
	if (threads) {
		json_begin_array(&j, "paths");
		for (size_t p = 0; p < rsp_analysis_n_paths(r->an); p++) {
			struct rsp_path_info pi;
			struct rsp_thread_info ti;

			path_of(r, p, &pi, &ti, &e);
			json_begin_object(&j, NULL);
			json_i64(&j, "tid", ti.tid);
			json_i64(&j, "pid", ti.pid);
			json_string(&j, "comm", ti.comm);
			if (ti.cmdline)
				json_string(&j, "cmdline", ti.cmdline);
			json_bool(&j, "async", pi.async);
			json_expl(&j, r, &e, false);
			json_end_object(&j);
		}
		json_end_array(&j);
	}
	json_end_object(&j);
	json_finish(&j);
}

/* ---- --requests: a server's requests ------------------------------------------------------ */

struct req_report {
	struct report *r;
	struct served sv; /* the requests, and their connections counted */
	struct rsp_requests *rq; /* sv's */
	struct rsp_analysis *all; /* every request, one control path each */
	size_t *slow; /* request indexes, slowest first */
	struct rsp_analysis **slow_an; /* the top ones, each explained alone */
	size_t n_slow;
	size_t n_overlap, n_handed, n_multi, cut_start, cut_end, n_served, n_client;
	struct rsp_requests_stats clients; /* as the clients on this machine saw them */
};

static uint64_t req_latency(const struct rsp_requests *rq, size_t i)
{
	struct rsp_request_info q;

	rsp_requests_get(rq, i, &q);
	return q.end_ns - q.start_ns;
}

static const struct rsp_requests *sort_rq; /* qsort has no context */

static int cmp_slow(const void *a, const void *b)
{
	uint64_t x = req_latency(sort_rq, *(const size_t *)a);
	uint64_t y = req_latency(sort_rq, *(const size_t *)b);

	if (x != y)
		return x > y ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/* "127.0.0.1:6379 <- 127.0.0.1:51234", or the kernel's socket address (a UDP
 * socket's: no event names its address, and it serves every peer) */
static void conn_name(const struct report *r, const struct rsp_requests *rq, size_t conn,
		      char *buf, size_t len)
{
	struct rsp_conn_info ci;
	struct rsp_socket_info si;

	rsp_requests_conn(rq, conn, &ci);
	rsp_trace_socket(r->t, ci.socket, &si);
	if (si.local[0])
		snprintf(buf, len, "%s <- %s", si.local, si.remote);
	else
		snprintf(buf, len, "%ssocket %#" PRIx64,
			 (si.family == 2 || si.family == 10) && si.protocol == 17 ? "UDP " : "",
			 si.sk);
}

static int requests_analyze(struct req_report *q, const struct rsp_analysis_opts *base)
{
	struct report *r = q->r;
	size_t n = rsp_requests_n(q->rq);
	struct rsp_window *w = calloc(n ? n : 1, sizeof(*w));
	struct rsp_analysis_opts ao = *base;
	char err[512];

	q->slow = calloc(n ? n : 1, sizeof(*q->slow));
	if (!w || !q->slow) {
		free(w);
		rsp_cli_error("report", "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		struct rsp_request_info ri;

		rsp_requests_get(q->rq, i, &ri);
		w[i].thread = ri.thread;
		w[i].start_ns = ri.start_ns;
		w[i].end_ns = ri.end_ns;
		q->slow[i] = i;
		q->n_overlap += !!(ri.flags & RSP_REQ_OVERLAP);
		q->n_handed += !!(ri.flags & RSP_REQ_HANDED_OFF);
		q->n_multi += !!(ri.flags & RSP_REQ_MULTI_READ);
	}
	sort_rq = q->rq;
	qsort(q->slow, n, sizeof(*q->slow), cmp_slow);
	q->n_slow = n < r->top ? n : r->top;
	q->slow_an = calloc(q->n_slow ? q->n_slow : 1, sizeof(*q->slow_an));
	if (!q->slow_an) {
		free(w);
		rsp_cli_error("report", "out of memory");
		return -ENOMEM;
	}
	if (!n) {
		free(w);
		return 0;
	}
	ao.windows = w;
	ao.n_windows = n;
	if (rsp_analyze(r->t, r->pids, r->n_pids, r->tid, &ao, &q->all, err, sizeof(err)))
		goto fail;
	for (size_t i = 0; i < q->n_slow; i++) {
		ao.windows = &w[q->slow[i]];
		ao.n_windows = 1;
		if (rsp_analyze(r->t, r->pids, r->n_pids, r->tid, &ao, &q->slow_an[i], err,
				sizeof(err)))
			goto fail;
	}
	free(w);
	return 0;
fail:
	free(w);
	rsp_cli_error("report", "%s: %s", r->name, err);
	return -1;
}

static void requests_free(struct req_report *q)
{
	for (size_t i = 0; q->slow_an && i < q->n_slow; i++)
		rsp_analysis_free(q->slow_an[i]);
	free(q->slow_an);
	rsp_analysis_free(q->all);
	free(q->slow);
	served_free(&q->sv);
}

/* Why no request was found, or NULL. */
static const char *no_requests_why(const struct report *r, const struct req_report *q)
{
	bool recv = false;

	if (rsp_requests_n(q->rq))
		return NULL;
	for (size_t i = 0; i < rsp_trace_n_event_types(r->t) && !recv; i++) {
		struct rsp_event_type_info ei;

		rsp_trace_event_type(r->t, i, &ei);
		recv = !strcmp(ei.name, "sock:sock_recv_length") && ei.count;
	}
	if (!recv)
		return "the file has no socket receives (sock:sock_recv_length): record with rsp "
		       "record, without --no-net";
	if (!q->n_served && q->n_client)
		return "the target is a client on its connections (it connected, or sent first): "
		       "target the server it talks to";
	if (!q->n_served)
		return "the target received no data on a socket and replied on it during the "
		       "recording";
	return "no request was both received and answered inside the recording";
}

static void print_ambiguity(const struct req_report *q, const char *pre)
{
	if (q->cut_start || q->cut_end)
		printf("%s%zu request%s at the recording's edges not counted: %zu answered after "
		       "it began (received before), %zu received before it ended and not answered\n",
		       pre, q->cut_start + q->cut_end, q->cut_start + q->cut_end == 1 ? "" : "s",
		       q->cut_start, q->cut_end);
	if (q->n_client)
		printf("%s%zu connection%s on which the target is a client (it connected, or sent "
		       "first inside a request): not split into requests\n",
		       pre, q->n_client, q->n_client == 1 ? "" : "s");
	if (q->sv.n_internal)
		printf("%s%zu connection%s between the target's own processes (its client a thread "
		       "of the target or of a process it forked): not split into requests\n",
		       pre, q->sv.n_internal, q->sv.n_internal == 1 ? "" : "s");
	if (q->n_overlap)
		printf("%s%zu request%s overlap another of the same thread (connections served "
		       "at once): each window holds the other's work too; which part was whose "
		       "is not in the events\n",
		       pre, q->n_overlap, q->n_overlap == 1 ? "" : "s");
	if (q->n_handed)
		printf("%s%zu request%s answered by another thread than the one that received "
		       "it: explained on the receiving thread (the hand-off is a wait there)\n",
		       pre, q->n_handed, q->n_handed == 1 ? "" : "s");
	if (q->n_multi)
		printf("%s%zu request%s received in several reads (large, slow, or pipelined "
		       "requests the events cannot tell apart)\n",
		       pre, q->n_multi, q->n_multi == 1 ? "" : "s");
}

static void print_requests_text(struct req_report *q)
{
	struct report *r = q->r, sub = *q->r;
	struct rsp_requests_stats st;
	struct rsp_requests_time tm;
	struct rsp_trace_summary sum;
	struct rsp_explanation e;
	uint64_t idle;
	const char *why = no_requests_why(r, q);

	rsp_requests_stats(q->rq, &st);
	rsp_requests_time(q->rq, &tm);
	rsp_trace_get_summary(r->t, &sum);
	idle = tm.idle_sleep_ns + tm.idle_run_ns + tm.idle_other_ns;
	printf("rsp report --requests: %s, %s\n", r->target_desc, r->path);
	printf("  %zu request%s on %zu connection%s served\n", st.count, st.count == 1 ? "" : "s",
	       q->n_served, q->n_served == 1 ? "" : "s");
	served_text_procs(&q->sv, "  ");
	print_ambiguity(q, "  ");
	for (size_t i = 0; i < rsp_trace_n_warnings(r->t); i++)
		printf("  warning: %s\n", rsp_trace_warning(r->t, i));
	printf("\n  %-34s %12s %7s\n", "the target's threads' time", "ms", "%");
	printf("  %-34s %12.3f %6.1f%%\n", "Its threads' spans, summed", rsp_ms(tm.span_ns),
	       100.0);
	printf("  %-34s %12.3f %6.1f%%\n", "In requests", rsp_ms(tm.busy_ns),
	       rsp_pct(tm.busy_ns, tm.span_ns));
	printf("  %-34s %12.3f %6.1f%%\n", "Idle, between requests", rsp_ms(idle), rsp_pct(idle, tm.span_ns));
	printf("      %-30s %12.3f %6.1f%%\n", "waiting for the next request", rsp_ms(tm.idle_sleep_ns),
	       rsp_pct(tm.idle_sleep_ns, tm.span_ns));
	printf("      %-30s %12.3f %6.1f%%\n", "running between requests", rsp_ms(tm.idle_run_ns),
	       rsp_pct(tm.idle_run_ns, tm.span_ns));
	if (tm.idle_other_ns)
		printf("      %-30s %12.3f %6.1f%%\n", "runnable, preempted, unknown",
		       rsp_ms(tm.idle_other_ns), rsp_pct(tm.idle_other_ns, tm.span_ns));
	printf("  (idle time is the server waiting for work, not a cost of its requests)\n");
	if (why) {
		printf("\n  no requests: %s\n", why);
		return;
	}
	printf("\n  Latency (receive of a request to the send of its reply), ms:\n");
	printf("  %8s %10s %10s %10s %10s %10s %10s\n", "count", "min", "p50", "p90", "p99", "max",
	       "mean");
	printf("  %8zu %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f\n", st.count, rsp_ms(st.min_ns),
	       rsp_ms(st.p50_ns), rsp_ms(st.p90_ns), rsp_ms(st.p99_ns), rsp_ms(st.max_ns),
	       rsp_ms(st.sum_ns / st.count));
	if (q->clients.count) {
		const struct rsp_requests_stats *c = &q->clients;

		printf("  As their clients on this machine saw them (the send of a request to the "
		       "receive of its reply), ms:\n");
		printf("  %8zu %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f\n", c->count, rsp_ms(c->min_ns),
		       rsp_ms(c->p50_ns), rsp_ms(c->p90_ns), rsp_ms(c->p99_ns), rsp_ms(c->max_ns),
		       rsp_ms(c->sum_ns / c->count));
		if (c->count < st.count)
			printf("  (%zu of %zu requests: the others' clients are not on this machine, or "
			       "their calls could not be told apart: sent before the recording or "
			       "before the previous reply, a datagram's sender not known)\n",
			       c->count, st.count);
	}
	rsp_analysis_explanation(q->all, &e);
	printf("\nAll %zu requests, explained (total = the sum of their latencies):\n", st.count);
	sub.an = q->all;
	text_table(&sub, &e, true);
	for (size_t i = 0; i < q->n_slow; i++) {
		struct rsp_request_info ri;
		struct rsp_thread_info ti;
		char cn[160];

		rsp_requests_get(q->rq, q->slow[i], &ri);
		rsp_trace_thread(r->t, ri.thread, &ti);
		conn_name(r, q->rq, ri.conn, cn, sizeof(cn));
		printf("\nSlowest #%zu: request %zu, %.3f ms, at +%.6f s, %s, tid %d, %u read%s, %u "
		       "send%s%s\n",
		       i + 1, q->slow[i], rsp_ms(ri.end_ns - ri.start_ns),
		       (ri.start_ns - sum.start_ns) / 1e9, cn, ti.tid, ri.n_recv,
		       ri.n_recv == 1 ? "" : "s", ri.n_send, ri.n_send == 1 ? "" : "s",
		       ri.flags & RSP_REQ_OVERLAP ? ", overlaps another request" : "");
		rsp_analysis_explanation(q->slow_an[i], &e);
		sub.an = q->slow_an[i];
		text_table(&sub, &e, true);
	}
}

static void json_request(struct json *j, const struct req_report *q, size_t i, uint64_t t0)
{
	struct rsp_request_info ri;
	struct rsp_thread_info ti;

	rsp_requests_get(q->rq, i, &ri);
	rsp_trace_thread(q->r->t, ri.thread, &ti);
	json_u64(j, "index", i);
	json_u64(j, "start_ns", ri.start_ns);
	json_u64(j, "end_ns", ri.end_ns);
	json_u64(j, "offset_ns", ri.start_ns - t0);
	json_u64(j, "latency_ns", ri.end_ns - ri.start_ns);
	json_i64(j, "tid", ti.tid);
	json_u64(j, "connection", ri.conn);
	json_u64(j, "reads", ri.n_recv);
	json_u64(j, "sends", ri.n_send);
	json_u64(j, "bytes_in", ri.bytes_in);
	json_u64(j, "bytes_out", ri.bytes_out);
	json_bool(j, "overlaps", ri.flags & RSP_REQ_OVERLAP);
	json_bool(j, "handed_off", ri.flags & RSP_REQ_HANDED_OFF);
	json_bool(j, "multi_read", ri.flags & RSP_REQ_MULTI_READ);
	if (ri.client_thread != RSP_NO_INDEX) {
		rsp_trace_thread(q->r->t, ri.client_thread, &ti);
		json_i64(j, "client_tid", ti.tid);
		json_u64(j, "client_latency_ns", ri.client_end_ns - ri.client_start_ns);
	} else {
		json_null(j, "client_tid");
		json_null(j, "client_latency_ns");
	}
}

static void json_latency(struct json *j, const char *key, const struct rsp_requests_stats *st)
{
	json_begin_object(j, key);
	json_u64(j, "count", st->count);
	json_u64(j, "sum", st->sum_ns);
	json_u64(j, "mean", st->count ? st->sum_ns / st->count : 0);
	json_u64(j, "min", st->min_ns);
	json_u64(j, "p50", st->p50_ns);
	json_u64(j, "p90", st->p90_ns);
	json_u64(j, "p99", st->p99_ns);
	json_u64(j, "max", st->max_ns);
	json_end_object(j);
}

static void print_requests_json(struct req_report *q)
{
	struct report *r = q->r, sub = *q->r;
	struct rsp_requests_stats st;
	struct rsp_requests_time tm;
	struct rsp_trace_summary sum;
	struct rsp_explanation e;
	const char *why = no_requests_why(r, q);
	struct json j;

	rsp_requests_stats(q->rq, &st);
	rsp_requests_time(q->rq, &tm);
	rsp_trace_get_summary(r->t, &sum);
	json_head(&j, r);
	if (why)
		json_string(&j, "no_requests", why);
	else
		json_null(&j, "no_requests");
	json_latency(&j, "latency_ns", &st);
	json_latency(&j, "client_latency_ns", &q->clients);
	json_begin_object(&j, "time");
	json_u64(&j, "span_ns", tm.span_ns);
	json_u64(&j, "requests_ns", tm.busy_ns);
	json_u64(&j, "idle_ns", tm.idle_sleep_ns + tm.idle_run_ns + tm.idle_other_ns);
	json_u64(&j, "idle_waiting_ns", tm.idle_sleep_ns);
	json_u64(&j, "idle_running_ns", tm.idle_run_ns);
	json_u64(&j, "idle_other_ns", tm.idle_other_ns);
	json_end_object(&j);
	json_begin_object(&j, "ambiguous");
	json_u64(&j, "cut_at_start", q->cut_start);
	json_u64(&j, "cut_at_end", q->cut_end);
	json_u64(&j, "overlapping", q->n_overlap);
	json_u64(&j, "handed_off", q->n_handed);
	json_u64(&j, "multi_read", q->n_multi);
	json_u64(&j, "client_connections", q->n_client);
	json_u64(&j, "internal_connections", q->sv.n_internal);
	json_end_object(&j);
	served_json_procs(&q->sv, &j);
	json_begin_array(&j, "connections");
	for (size_t i = 0; i < rsp_requests_n_conns(q->rq); i++) {
		struct rsp_conn_info ci;
		struct rsp_socket_info si;
		char sk[32];

		rsp_requests_conn(q->rq, i, &ci);
		rsp_trace_socket(r->t, ci.socket, &si);
		snprintf(sk, sizeof(sk), "%#" PRIx64, si.sk);
		json_begin_object(&j, NULL);
		json_string(&j, "socket", sk);
		json_string(&j, "local", si.local);
		json_string(&j, "remote", si.remote);
		json_string(&j, "role", ci.role == RSP_CONN_SERVED  ? "served" :
					ci.role == RSP_CONN_CLIENT ? "client" :
								     "internal");
		json_u64(&j, "requests", ci.n_requests);
		json_u64(&j, "cut_at_start", ci.cut_start);
		json_u64(&j, "cut_at_end", ci.cut_end);
		json_end_object(&j);
	}
	json_end_array(&j);
	if (q->all) {
		rsp_analysis_explanation(q->all, &e);
		json_u64(&j, "tolerance_ns", e.tolerance_ns);
		sub.an = q->all;
		json_begin_object(&j, "all");
		json_u64(&j, "processes", e.n_processes);
		json_expl(&j, &sub, &e, true);
		json_end_object(&j);
	}
	json_begin_array(&j, "slowest");
	for (size_t i = 0; i < q->n_slow; i++) {
		rsp_analysis_explanation(q->slow_an[i], &e);
		sub.an = q->slow_an[i];
		json_begin_object(&j, NULL);
		json_request(&j, q, q->slow[i], sum.start_ns);
		json_expl(&j, &sub, &e, true);
		json_end_object(&j);
	}
	json_end_array(&j);
	/* every request with its categories (from the analysis of all of them) */
	json_begin_array(&j, "requests");
	for (size_t i = 0; i < rsp_requests_n(q->rq); i++) {
		rsp_analysis_path_explanation(q->all, i, &e);
		json_begin_object(&j, NULL);
		json_request(&j, q, i, sum.start_ns);
		json_begin_object(&j, "categories_ns");
		for (int c = 0; c < RSP_CAT__COUNT; c++)
			if (e.cat_ns[c])
				json_u64(&j, rsp_category_key(c), e.cat_ns[c]);
		json_end_object(&j);
		json_end_object(&j);
	}
	json_end_array(&j);
	rsp_cli_json_warnings(&j, r->t);
	json_end_object(&j);
	json_finish(&j);
}

static void csv_latency(const char *scope, const struct rsp_requests_stats *st)
{
	printf("%s,count,,%zu,,,\n", scope, st->count);
	printf("%s,min,,%" PRIu64 ",%.6f,,\n", scope, st->min_ns, rsp_ms(st->min_ns));
	printf("%s,p50,,%" PRIu64 ",%.6f,,\n", scope, st->p50_ns, rsp_ms(st->p50_ns));
	printf("%s,p90,,%" PRIu64 ",%.6f,,\n", scope, st->p90_ns, rsp_ms(st->p90_ns));
	printf("%s,p99,,%" PRIu64 ",%.6f,,\n", scope, st->p99_ns, rsp_ms(st->p99_ns));
	printf("%s,max,,%" PRIu64 ",%.6f,,\n", scope, st->max_ns, rsp_ms(st->max_ns));
}

static void print_requests_csv(struct req_report *q)
{
	struct report sub = *q->r;
	struct rsp_requests_stats st;
	struct rsp_requests_time tm;
	struct rsp_explanation e;

	rsp_requests_stats(q->rq, &st);
	rsp_requests_time(q->rq, &tm);
	printf("scope,row,category,ns,ms,percent,contributor,ns_estimated,ns_inferred\n");
	csv_latency("latency", &st);
	if (q->clients.count)
		csv_latency("client_latency", &q->clients);
	printf("time,span,,%" PRIu64 ",%.6f,100.000,\n", tm.span_ns, rsp_ms(tm.span_ns));
	printf("time,requests,,%" PRIu64 ",%.6f,%.3f,\n", tm.busy_ns, rsp_ms(tm.busy_ns),
	       rsp_pct(tm.busy_ns, tm.span_ns));
	printf("time,idle_waiting,,%" PRIu64 ",%.6f,%.3f,\n", tm.idle_sleep_ns, rsp_ms(tm.idle_sleep_ns),
	       rsp_pct(tm.idle_sleep_ns, tm.span_ns));
	printf("time,idle_running,,%" PRIu64 ",%.6f,%.3f,\n", tm.idle_run_ns, rsp_ms(tm.idle_run_ns),
	       rsp_pct(tm.idle_run_ns, tm.span_ns));
	printf("time,idle_other,,%" PRIu64 ",%.6f,%.3f,\n", tm.idle_other_ns, rsp_ms(tm.idle_other_ns),
	       rsp_pct(tm.idle_other_ns, tm.span_ns));
	if (!q->all)
		return;
	rsp_analysis_explanation(q->all, &e);
	sub.an = q->all;
	csv_rows(&sub, &e, "all", true);
	for (size_t i = 0; i < q->n_slow; i++) {
		char scope[32];

		snprintf(scope, sizeof(scope), "request%zu", q->slow[i]);
		rsp_analysis_explanation(q->slow_an[i], &e);
		sub.an = q->slow_an[i];
		csv_rows(&sub, &e, scope, true);
	}
}

static void print_requests_md(struct req_report *q)
{
	struct report *r = q->r;
	struct rsp_requests_stats st;
	struct rsp_requests_time tm;
	uint64_t idle;

	rsp_requests_stats(q->rq, &st);
	rsp_requests_time(q->rq, &tm);
	idle = tm.idle_sleep_ns + tm.idle_run_ns + tm.idle_other_ns;
	printf("## rsp report --requests: ");
	rsp_md_str(stdout, r->target_desc);
	printf("\n\n%zu requests on %zu connections served.\n\n", st.count, q->n_served);
	printf("| Time | ms | %% |\n|---|---:|---:|\n");
	printf("| Span | %.3f | 100.0 |\n", rsp_ms(tm.span_ns));
	printf("| In requests | %.3f | %.1f |\n", rsp_ms(tm.busy_ns), rsp_pct(tm.busy_ns, tm.span_ns));
	printf("| Idle (waiting %.3f, running %.3f, other %.3f) | %.3f | %.1f |\n",
	       rsp_ms(tm.idle_sleep_ns), rsp_ms(tm.idle_run_ns), rsp_ms(tm.idle_other_ns), rsp_ms(idle),
	       rsp_pct(idle, tm.span_ns));
	printf("\n| Latency | count | min | p50 | p90 | p99 | max |\n|---|---:|---:|---:|---:|---:|---:|\n");
	printf("| ms | %zu | %.3f | %.3f | %.3f | %.3f | %.3f |\n", st.count, rsp_ms(st.min_ns),
	       rsp_ms(st.p50_ns), rsp_ms(st.p90_ns), rsp_ms(st.p99_ns), rsp_ms(st.max_ns));
	if (q->clients.count)
		printf("| ms, as clients on this machine saw them | %zu | %.3f | %.3f | %.3f | %.3f | "
		       "%.3f |\n",
		       q->clients.count, rsp_ms(q->clients.min_ns), rsp_ms(q->clients.p50_ns),
		       rsp_ms(q->clients.p90_ns), rsp_ms(q->clients.p99_ns), rsp_ms(q->clients.max_ns));
	if (q->all) {
		struct report sub = *r;

		sub.an = q->all;
		printf("\n### All requests\n\n");
		print_md_table(&sub);
	}
}

static int report_requests(struct report *r, const struct rsp_analysis_opts *ao,
			   enum rsp_cli_format fmt)
{
	struct req_report q = { .r = r };
	int ret = 1;

	/* the target's and its descendants' (a postmaster's backends) */
	if (served_find(r->t, r->pids, r->n_pids, r->tid, &q.sv)) {
		rsp_cli_error("report", "out of memory");
		goto out;
	}
	q.rq = q.sv.rq;
	q.n_client = q.sv.n_client;
	q.n_served = q.sv.n_served;
	q.cut_start = q.sv.cut_start;
	q.cut_end = q.sv.cut_end;
	if (rsp_requests_clients(q.rq, r->t, &q.clients)) {
		rsp_cli_error("report", "out of memory");
		goto out;
	}
	if (requests_analyze(&q, ao))
		goto out;
	switch (fmt) {
	case RSP_FORMAT_TEXT:
		print_requests_text(&q);
		break;
	case RSP_FORMAT_CSV:
		print_requests_csv(&q);
		break;
	case RSP_FORMAT_MD:
		print_requests_md(&q);
		break;
	case RSP_FORMAT_JSON:
		print_requests_json(&q);
		break;
	}
	ret = 0;
out:
	requests_free(&q);
	return ret;
}

int rsp_cmd_report(int argc, char **argv)
{
	enum { OPT_TOL = 1000, OPT_TOP, OPT_THREAD, OPT_REQUESTS, OPT_BY };
	static const struct option longopts[] = {
		{ "target", required_argument, NULL, 't' },
		{ "thread", required_argument, NULL, OPT_THREAD },
		{ "threads", no_argument, NULL, 'T' },
		{ "format", required_argument, NULL, 'f' },
		{ "tolerance", required_argument, NULL, OPT_TOL },
		{ "top", required_argument, NULL, OPT_TOP },
		RSP_CLI_SYMBOL_OPTIONS,
		{ "requests", no_argument, NULL, OPT_REQUESTS },
		{ "by", required_argument, NULL, OPT_BY },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rsp_analysis_opts ao = { .summary = true }; /* the table needs no tree */
	struct report r = { .top = 5 };
	struct rsp_cli_input in;
	const char *target = NULL, *path = NULL;
	enum rsp_cli_format fmt = RSP_FORMAT_TEXT;
	bool threads = false, requests = false, by_command = false;
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
		case OPT_REQUESTS:
			requests = true;
			break;
		case OPT_BY:
			if (strcmp(optarg, "command"))
				return rsp_cli_usage_error("report", "bad --by '%s': give --by command",
							   optarg);
			by_command = true;
			break;
		case 'h':
			fputs(report_usage, stdout);
			return 0;
		default:
			if (rsp_cli_other_option("report", argv, c, optarg))
				return 2;
			break;
		}
	}
	if (rsp_cli_one_file("report", argc, argv, &path))
		return 2;
	if (target && r.tid)
		return rsp_cli_usage_error("report", "--target and --thread exclude each other");
	if (requests && threads)
		return rsp_cli_usage_error("report", "--requests and --threads exclude each other");
	if (by_command && (requests || threads))
		return rsp_cli_usage_error("report", "--by command excludes --requests and --threads");
	if (by_command && fmt == RSP_FORMAT_MD)
		return rsp_cli_usage_error("report", "--by command: give --format text, csv or json");
	if (rsp_cli_input_open(&in, "report", path, NULL))
		return 1;
	r.t = in.t;
	r.path = in.path;
	r.name = in.name;
	if (choose_target(&r, target))
		goto out;
	if (requests) {
		ao.summary = false; /* per request: its control path's table */
		ret = report_requests(&r, &ao, fmt);
		goto out;
	}
	if (by_command) {
		ao.summary = false; /* the pseudostacks' leaves */
		if (rsp_analyze(r.t, r.pids, r.n_pids, r.tid, &ao, &r.an, err, sizeof(err))) {
			rsp_cli_error("report", "%s: %s", r.name, err);
			goto out;
		}
		if (report_by_command(r.t, r.an, r.path, r.target_desc, r.top, fmt)) {
			rsp_cli_error("report", "out of memory");
			goto out;
		}
		ret = 0;
		goto out;
	}
	if (served_find(r.t, r.pids, r.n_pids, r.tid, &r.sv)) {
		rsp_cli_error("report", "out of memory");
		goto out;
	}
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
	served_free(&r.sv);
	rsp_analysis_free(r.an);
	rsp_cli_input_close(&in);
	free(r.pids);
	return ret;
}
