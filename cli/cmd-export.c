/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rsp export: the viewer's views without a display (SVG/PNG/PDF, drawn by
 * viewer/rsp-render.h's library when rsp was built with cairo), folded stacks
 * for flame-graph tools, Chrome trace-event JSON for Perfetto, pprof's
 * profile.proto for pprof, Pyroscope and Parca.
 */
#include "args.h"
#include "cli.h"
#include "export.h"
#include "input.h"
#include "target.h"

#include "rsp-analysis.h"
#include "rsp-folded.h"
#include "rsp-model.h"
#include "rsp-output.h"
#ifdef RSP_HAVE_RENDER
#include "rsp-render.h"
#endif

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static const char export_usage[] =
	"usage: rsp export [FILE] --view running|flame|consolidated -o OUT.svg|.png|.pdf\n"
	"       rsp export [FILE] --folded cpu|offcpu|hotcold|offwake|pseudo [-o OUT]\n"
	"       rsp export [FILE] --chrome-json [-o OUT]\n"
	"       rsp export [FILE] --pprof -o OUT.pb.gz\n"
	"         [--target PID|COMM]... [--thread TID] [--all] [--mark-frames]\n"
	"         [--width PX] [--height PX] [--sleeps] [--chains-only] [--merge-threads]\n"
	"         [--tolerance US]\n"
	"\n"
	"  FILE                 default rsp.data ('-': standard input)\n"
	"  --view V             the viewer's process-running view, chronological flame view\n"
	"                       or consolidated flame view, drawn without a display; the\n"
	"                       type follows OUT's extension.  SVG frames carry their full\n"
	"                       name and times as <title> (shown on hover)\n"
	"  --folded KIND        collapsed stacks, \"frame;frame;frame VALUE\" (flamegraph.pl,\n"
	"                       inferno, speedscope): cpu (on-CPU samples; value: samples),\n"
	"                       offcpu (sleep stacks by time), hotcold (both, under\n"
	"                       [on-cpu] / [off-cpu]), offwake (sleep stack, --, waker\n"
	"                       stack, as bcc's offwaketime), pseudo (rsp's cross-process\n"
	"                       pseudostacks); time values in microseconds\n"
	"  --chrome-json        Chrome trace-event JSON (Perfetto, chrome://tracing): a track\n"
	"                       per thread with runs and sleeps (stacks in args), wakeups as\n"
	"                       flow events, block I/O as async slices\n"
	"  --pprof              pprof's profile.proto, gzipped (pprof, Pyroscope, Parca):\n"
	"                       sample types samples (count), cpu, offcpu and pseudo\n"
	"                       (nanoseconds), the folded stacks' cpu, hotcold and pseudo;\n"
	"                       labels pid, tid, comm, process; frames with their files.\n"
	"                       pseudo needs a target (else it is left empty)\n"
	"  -o, --output OUT     the file to write; '-' or none: standard output (not --view);\n"
	"                       written whole or not at all: an existing file is replaced\n"
	"                       only when everything was written\n"
	"  --target PID|COMM   the processes (and the ones they forked); default: the ones\n"
	"                       rsp record marked, else the whole system; repeatable\n"
	"  --thread TID         one thread\n"
	"  --all                every thread of the trace\n"
	"  --mark-frames        folded: \"_[k]\" after kernel frames, \"_[w]\" after waker\n"
	"                       frames (flamegraph.pl's colors)\n"
	"  --width/--height PX  --view: the image size (default: the view's)\n"
	"  --sleeps             --view running: sleeps as labelled boxes\n"
	"  --chains-only        --view running: only the target and its chains\n"
	"  --merge-threads      --view consolidated: merge the threads of a process\n"
	"  --tolerance US       --view, --folded pseudo, --pprof: the analysis' tolerance\n"
	"                       (default 1000)\n"
	"\n"
	"An option that does not apply to the chosen output is an error.\n"
	"\n"
	"Where the files the trace names are found (symbols):\n"
	RSP_CLI_SYMBOL_HELP;

enum mode { MODE_NONE, MODE_VIEW, MODE_FOLDED, MODE_CHROME, MODE_PPROF };

struct exp {
	const char *path, *name, *out; /* name: the trace in messages */
	struct rsp_trace *t;
	struct rsp_analysis *an;
	struct rsp_cli_target tg;
	struct rsp_analysis_opts ao;
	enum mode mode;
	enum rsp_folded_kind folded;
	bool mark;
	const char *view;
	long width, height;
	bool sleeps, chains_only, merge_threads;
};

/* -o OUT (none or '-': standard output); NULL after one line */
static struct rsp_output *open_out(const struct exp *e)
{
	struct rsp_output_opts oo = { .allow_stdout = true };
	struct rsp_output *out;
	char err[512];

	if (rsp_output_open(e->out, &oo, &out, err, sizeof(err))) {
		rsp_cli_error("export", "%s", err);
		return NULL;
	}
	return out;
}

/* flush and rename into place; on failure only the temporary file is removed */
static int close_out(struct rsp_output *out)
{
	char err[512];

	if (rsp_output_commit(out, err, sizeof(err))) {
		rsp_cli_error("export", "%s", err);
		return 1;
	}
	return 0;
}

static int analyze(struct exp *e)
{
	char err[512], cmd[256];

	if (!e->tg.n_pids && e->tg.tid <= 0 && !e->tg.all && !e->tg.n_specs &&
	    rsp_cli_recorded_command(e->t, &e->tg.pids, &e->tg.n_pids, cmd, sizeof(cmd)))
		rsp_cli_note_recorded_command("export", e->name, e->tg.pids, e->tg.n_pids, cmd);
	if (!e->tg.n_pids && e->tg.tid <= 0) {
		if (e->tg.all)
			rsp_cli_error("export",
				      "%s needs a target to analyze, and --all names none: give "
				      "--target PID or --target COMM",
				      e->mode == MODE_VIEW ? "this view" : "--folded pseudo");
		else
			rsp_cli_error("export",
				      "%s needs a target to analyze: %s %s; give --target PID or "
				      "--target COMM",
				      e->mode == MODE_VIEW ? "this view" : "--folded pseudo", e->name,
				      rsp_cli_no_target_why(e->t));
		return 1;
	}
	if (rsp_analyze(e->t, e->tg.pids, e->tg.tid > 0 ? 0 : e->tg.n_pids, e->tg.tid, &e->ao,
			&e->an, err, sizeof(err))) {
		rsp_cli_error("export", "%s: %s", e->name, err);
		return 1;
	}
	return 0;
}

static int do_folded(struct exp *e)
{
	struct rsp_folded_opts fo = { .mark_frames = e->mark };
	struct rsp_folded *fd = NULL;
	struct rsp_output *out;
	char err[512];
	FILE *f;
	int ret;

	if (e->folded == RSP_FOLDED_PSEUDO && analyze(e))
		return 1;
	rsp_cli_target_filter(&e->tg, true, &fo.threads);
	if (rsp_folded_build(e->t, e->an, e->folded, &fo, &fd, err, sizeof(err))) {
		rsp_cli_error("export", "%s: %s", e->name, err);
		return 1;
	}
	out = open_out(e);
	if (!out) {
		rsp_folded_free(fd);
		return 1;
	}
	f = rsp_output_get_file(out);
	for (size_t i = 0; i < rsp_folded_n_lines(fd); i++) {
		const char *stack;
		uint64_t v;

		rsp_folded_line(fd, i, &stack, &v);
		fprintf(f, "%s %" PRIu64 "\n", stack, v);
	}
	ret = close_out(out);
	rsp_folded_free(fd);
	return ret;
}

static int do_chrome(struct exp *e)
{
	struct rsp_thread_filter flt;
	struct rsp_output *out;
	uint8_t *sel;
	int ret;

	rsp_cli_target_filter(&e->tg, true, &flt);
	sel = rsp_thread_filter_apply(e->t, &flt);
	if (!sel) {
		rsp_cli_error("export", "out of memory");
		return 1;
	}
	out = open_out(e);
	if (!out) {
		free(sel);
		return 1;
	}
	/* a write error is the output's to tell, with its reason, at commit */
	ret = rsp_export_chrome(rsp_output_get_file(out), e->t, sel, e->path);
	free(sel);
	if (ret == -ENOMEM) {
		rsp_cli_error("export", "out of memory writing the trace JSON for %s",
			      rsp_output_get_name(out));
		rsp_output_abort(out);
		return 1;
	}
	return close_out(out);
}

static int do_pprof(struct exp *e)
{
	struct rsp_thread_filter flt;
	struct rsp_output *out;
	char err[512];
	int ret;

	if ((!e->out || !strcmp(e->out, "-")) && isatty(STDOUT_FILENO))
		return rsp_cli_usage_error("export",
					   "--pprof writes gzipped binary: give -o OUT.pb.gz (or "
					   "redirect standard output)");
	/* the pseudostacks need a target; without one the other sample types stand */
	if ((e->tg.n_pids || e->tg.tid > 0) && analyze(e))
		return 1;
	rsp_cli_target_filter(&e->tg, true, &flt);
	out = open_out(e);
	if (!out)
		return 1;
	ret = rsp_export_pprof(rsp_output_get_file(out), e->t, e->an, &flt, e->path, err,
			       sizeof(err));
	if (ret) {
		rsp_cli_error("export", "%s: %s", e->name, err);
		rsp_output_abort(out);
		return 1;
	}
	return close_out(out);
}

#ifdef RSP_HAVE_RENDER
static int do_view(struct exp *e)
{
	char err[512], note[256] = "";
	struct rsp_render_opts ro = {
		.width = (int)e->width,
		.height = (int)e->height,
		.show_sleeps = e->sleeps,
		.target_chains_only = e->chains_only,
		.merge_threads = e->merge_threads,
		.note = note,
		.note_size = sizeof(note),
	};
	struct rsp_output_opts oo = { .by_name = true };
	struct rsp_output *out;
	enum rsp_view_kind kind;
	int ret;

	if (!strcmp(e->view, "running"))
		kind = RSP_VIEW_RUNNING;
	else if (!strcmp(e->view, "flame"))
		kind = RSP_VIEW_FLAME;
	else
		kind = RSP_VIEW_CONSOLIDATED;
	/* the running view can draw a trace without a target; the flame views cannot */
	if ((e->tg.n_pids || e->tg.tid > 0 || kind != RSP_VIEW_RUNNING) && analyze(e))
		return 1;
	/* drawn into a temporary file of the same type, renamed into place when whole */
	oo.suffix = strrchr(e->out, '.');
	if (rsp_output_open(e->out, &oo, &out, err, sizeof(err))) {
		rsp_cli_error("export", "%s", err);
		return 1;
	}
	ret = rsp_render_export(e->t, e->an, kind, rsp_output_get_path(out), &ro, err,
				sizeof(err));
	if (ret) {
		char prefix[PATH_MAX + 32];

		/* the render library names the file it wrote: the temporary one */
		snprintf(prefix, sizeof(prefix), "cannot write %s:", rsp_output_get_path(out));
		if (!strncmp(err, prefix, strlen(prefix)))
			rsp_output_error(err, sizeof(err), e->out, rsp_output_diagnose(out, ret));
		rsp_output_abort(out);
		rsp_cli_error("export", "%s", err);
		return 1;
	}
	ret = close_out(out);
	/* the view did not fit the format as asked: what was done instead */
	if (!ret && note[0])
		fprintf(stderr, "rsp export: %s: %s\n", e->out, note);
	return ret;
}

static bool has_ext(const char *p, const char *ext)
{
	size_t n = strlen(p), m = strlen(ext);

	return n > m && !strcasecmp(p + n - m, ext);
}
#endif

int rsp_cmd_export(int argc, char **argv)
{
	enum {
		OPT_VIEW = 1000,
		OPT_FOLDED,
		OPT_CHROME,
		OPT_PPROF,
		OPT_THREAD,
		OPT_ALL,
		OPT_MARK,
		OPT_WIDTH,
		OPT_HEIGHT,
		OPT_SLEEPS,
		OPT_CHAINS,
		OPT_MERGE,
		OPT_TOL,
	};
	static const struct option longopts[] = {
		{ "view", required_argument, NULL, OPT_VIEW },
		{ "folded", required_argument, NULL, OPT_FOLDED },
		{ "chrome-json", no_argument, NULL, OPT_CHROME },
		{ "pprof", no_argument, NULL, OPT_PPROF },
		{ "output", required_argument, NULL, 'o' },
		{ "target", required_argument, NULL, 't' },
		{ "thread", required_argument, NULL, OPT_THREAD },
		{ "all", no_argument, NULL, OPT_ALL },
		{ "mark-frames", no_argument, NULL, OPT_MARK },
		{ "width", required_argument, NULL, OPT_WIDTH },
		{ "height", required_argument, NULL, OPT_HEIGHT },
		{ "sleeps", no_argument, NULL, OPT_SLEEPS },
		{ "chains-only", no_argument, NULL, OPT_CHAINS },
		{ "merge-threads", no_argument, NULL, OPT_MERGE },
		{ "tolerance", required_argument, NULL, OPT_TOL },
		RSP_CLI_SYMBOL_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct exp e = { 0 };
	struct rsp_cli_input in = { 0 };
	const char *path = NULL, *mode_opt = NULL, *inapplicable = NULL;
	bool tol_set = false;
	int c, ret, modes = 0;

	rsp_cli_getopt_reset();
	while ((c = getopt_long(argc, argv, ":o:t:h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_VIEW:
			if (strcmp(optarg, "running") && strcmp(optarg, "flame") &&
			    strcmp(optarg, "consolidated"))
				return rsp_cli_usage_error("export",
							   "unknown view '%s': running, flame or "
							   "consolidated",
							   optarg);
			e.mode = MODE_VIEW;
			e.view = optarg;
			mode_opt = "--view";
			modes++;
			break;
		case OPT_FOLDED:
			if (rsp_folded_kind_parse(optarg, &e.folded))
				return rsp_cli_usage_error("export",
							   "unknown folded kind '%s': cpu, offcpu, "
							   "hotcold, offwake or pseudo",
							   optarg);
			e.mode = MODE_FOLDED;
			mode_opt = "--folded";
			modes++;
			break;
		case OPT_CHROME:
			e.mode = MODE_CHROME;
			mode_opt = "--chrome-json";
			modes++;
			break;
		case OPT_PPROF:
			e.mode = MODE_PPROF;
			mode_opt = "--pprof";
			modes++;
			break;
		case 'o':
			e.out = optarg;
			break;
		case 't':
			if ((ret = rsp_cli_target_add(&e.tg, "export", optarg)))
				return ret;
			break;
		case OPT_THREAD: {
			long tid;

			if (!rsp_cli_parse_count(optarg, INT32_MAX, &tid) || !tid)
				return rsp_cli_usage_error("export", "bad thread id '%s'", optarg);
			e.tg.tid = (int)tid;
			break;
		}
		case OPT_ALL:
			e.tg.all = true;
			break;
		case OPT_MARK:
			e.mark = true;
			break;
		case OPT_WIDTH:
		case OPT_HEIGHT:
			if (!rsp_cli_parse_count(optarg, 100000, c == OPT_WIDTH ? &e.width : &e.height) ||
			    (c == OPT_WIDTH ? e.width : e.height) < 16)
				return rsp_cli_usage_error("export", "bad --%s '%s': pixels, 16 to 100000",
							   c == OPT_WIDTH ? "width" : "height", optarg);
			break;
		case OPT_SLEEPS:
			e.sleeps = true;
			break;
		case OPT_CHAINS:
			e.chains_only = true;
			break;
		case OPT_MERGE:
			e.merge_threads = true;
			break;
		case OPT_TOL: {
			uint64_t ns;

			if (!rsp_cli_parse_us(optarg, &ns) || !ns || ns > 60000000000ull)
				return rsp_cli_usage_error("export",
							   "bad tolerance '%s': microseconds > 0",
							   optarg);
			e.ao.tolerance_ns = ns;
			tol_set = true;
			break;
		}
		case 'h':
			fputs(export_usage, stdout);
			return 0;
		default:
			if (rsp_cli_other_option("export", argv, c, optarg))
				return 2;
			break;
		}
	}
	if (rsp_cli_one_file("export", argc, argv, &path))
		return 2;
	if (modes > 1)
		return rsp_cli_usage_error("export",
					   "--view, --folded, --chrome-json and --pprof exclude each "
					   "other: one export at a time");
	if (modes != 1)
		return rsp_cli_usage_error("export",
					   "say what to export: one of --view, --folded, --chrome-json, "
					   "--pprof");
	if ((e.tg.all && (e.tg.n_specs || e.tg.tid)) || (e.tg.tid && e.tg.n_specs))
		return rsp_cli_usage_error("export", "--all, --target and --thread exclude each other");
	/* an option that does not apply to the chosen output is a mistake, not a no-op */
	if (e.mark && e.mode != MODE_FOLDED)
		inapplicable = "--mark-frames applies to --folded only";
	else if ((e.width || e.height) && e.mode != MODE_VIEW)
		inapplicable = "--width and --height apply to --view only";
	else if ((e.sleeps || e.chains_only) && (e.mode != MODE_VIEW || strcmp(e.view, "running")))
		inapplicable = "--sleeps and --chains-only apply to --view running only";
	else if (e.merge_threads && (e.mode != MODE_VIEW || strcmp(e.view, "consolidated")))
		inapplicable = "--merge-threads applies to --view consolidated only";
	else if (tol_set && e.mode != MODE_VIEW && e.mode != MODE_PPROF &&
		 !(e.mode == MODE_FOLDED && e.folded == RSP_FOLDED_PSEUDO))
		inapplicable = "--tolerance applies to --view, --folded pseudo and --pprof only";
	if (inapplicable)
		return rsp_cli_usage_error("export", "%s, not to %s%s%s", inapplicable, mode_opt,
					   e.mode == MODE_VIEW ? " " : "",
					   e.mode == MODE_VIEW ? e.view : "");
	if (e.mode == MODE_VIEW) {
#ifndef RSP_HAVE_RENDER
		rsp_cli_error("export", "--view: this rsp was built without cairo (the viewer's "
					"render library): install libcairo2-dev and libpango1.0-dev, "
					"then rebuild");
		return 1;
#else
		if (!e.out || !strcmp(e.out, "-"))
			return rsp_cli_usage_error("export",
						   "--view needs -o OUT.svg, OUT.png or OUT.pdf");
		if (!has_ext(e.out, ".svg") && !has_ext(e.out, ".png") && !has_ext(e.out, ".pdf"))
			return rsp_cli_usage_error("export",
						   "'%s': the image type comes from the name: .svg, "
						   ".png or .pdf",
						   e.out);
#endif
	}
	if (rsp_cli_input_open(&in, "export", path, NULL))
		return 1;
	if (rsp_cli_same_file(e.out, in.path)) {
		rsp_cli_input_close(&in);
		return rsp_cli_usage_error("export", "%s is the trace being read: give -o another name",
					   e.out);
	}
	e.t = in.t;
	e.path = in.path;
	e.name = in.name;
	ret = 1;
	if (rsp_cli_target_resolve(&e.tg, e.t, "export", e.name, true))
		goto out;
	switch (e.mode) {
	case MODE_FOLDED:
		ret = do_folded(&e);
		break;
	case MODE_CHROME:
		ret = do_chrome(&e);
		break;
	case MODE_PPROF:
		ret = do_pprof(&e);
		break;
	case MODE_VIEW:
#ifdef RSP_HAVE_RENDER
		ret = do_view(&e);
#endif
		break;
	case MODE_NONE:
		break;
	}
out:
	rsp_analysis_free(e.an);
	rsp_cli_input_close(&in);
	rsp_cli_target_free(&e.tg);
	return ret;
}
