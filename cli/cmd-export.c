/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rsp export: the viewer's views without a display (SVG/PNG/PDF, drawn by
 * viewer/rsp-render.h's library when rsp was built with cairo), folded stacks
 * for flame-graph tools, Chrome trace-event JSON for Perfetto.
 */
#include "cli.h"
#include "export.h"
#include "target.h"

#include "rsp-analysis.h"
#include "rsp-folded.h"
#include "rsp-model.h"
#ifdef RSP_HAVE_RENDER
#include "rsp-render.h"
#endif

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static const char export_usage[] =
	"usage: rsp export [FILE] --view running|flame|consolidated -o OUT.svg|.png|.pdf\n"
	"       rsp export [FILE] --folded cpu|offcpu|hotcold|offwake|pseudo [-o OUT]\n"
	"       rsp export [FILE] --chrome-json [-o OUT]\n"
	"         [--target PID|COMM]... [--thread TID] [--all] [--mark-frames]\n"
	"         [--width PX] [--height PX] [--sleeps] [--chains-only] [--merge-threads]\n"
	"         [--tolerance US]\n"
	"\n"
	"  FILE                 default rsp.data\n"
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
	"  -o, --output OUT     the file to write; '-' or none: standard output (not --view)\n"
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
	"  --tolerance US       the analysis' tolerance (pseudo, flame views; default 1000)\n";

enum mode { MODE_NONE, MODE_VIEW, MODE_FOLDED, MODE_CHROME };

struct exp {
	const char *path, *out;
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

static FILE *open_out(const struct exp *e)
{
	FILE *f;

	if (!e->out || !strcmp(e->out, "-"))
		return stdout;
	f = fopen(e->out, "we");
	if (!f)
		rsp_cli_error("export", "cannot create %s: %s", e->out, strerror(errno));
	return f;
}

/* flush and close; on failure remove what was written */
static int close_out(const struct exp *e, FILE *f)
{
	int bad = ferror(f) | fflush(f);

	if (f != stdout)
		bad |= fclose(f);
	if (bad) {
		rsp_cli_error("export", "cannot write %s: %s",
			      f == stdout ? "the standard output" : e->out, strerror(errno));
		if (f != stdout)
			unlink(e->out);
		return 1;
	}
	return 0;
}

static int analyze(struct exp *e)
{
	char err[512];

	if (!e->tg.n_pids && e->tg.tid <= 0) {
		if (e->tg.all)
			rsp_cli_error("export",
				      "%s needs a target to analyze, and --all names none: give "
				      "--target PID or --target COMM",
				      e->mode == MODE_VIEW ? "this view" : "--folded pseudo");
		else
			rsp_cli_error("export",
				      "%s needs a target to analyze: %s records none; give --target "
				      "PID or --target COMM",
				      e->mode == MODE_VIEW ? "this view" : "--folded pseudo", e->path);
		return 1;
	}
	if (rsp_analyze(e->t, e->tg.pids, e->tg.tid > 0 ? 0 : e->tg.n_pids, e->tg.tid, &e->ao,
			&e->an, err, sizeof(err))) {
		rsp_cli_error("export", "%s", err);
		return 1;
	}
	return 0;
}

static int do_folded(struct exp *e)
{
	struct rsp_folded_opts fo = { .mark_frames = e->mark };
	struct rsp_folded *fd = NULL;
	char err[512];
	FILE *f;
	int ret;

	if (e->folded == RSP_FOLDED_PSEUDO && analyze(e))
		return 1;
	rsp_cli_target_filter(&e->tg, true, &fo.threads);
	if (rsp_folded_build(e->t, e->an, e->folded, &fo, &fd, err, sizeof(err))) {
		rsp_cli_error("export", "%s", err);
		return 1;
	}
	f = open_out(e);
	if (!f) {
		rsp_folded_free(fd);
		return 1;
	}
	for (size_t i = 0; i < rsp_folded_n_lines(fd); i++) {
		const char *stack;
		uint64_t v;

		rsp_folded_line(fd, i, &stack, &v);
		fprintf(f, "%s %" PRIu64 "\n", stack, v);
	}
	ret = close_out(e, f);
	rsp_folded_free(fd);
	return ret;
}

static int do_chrome(struct exp *e)
{
	struct rsp_thread_filter flt;
	uint8_t *sel;
	FILE *f;
	int ret;

	rsp_cli_target_filter(&e->tg, true, &flt);
	sel = rsp_thread_filter_apply(e->t, &flt);
	if (!sel) {
		rsp_cli_error("export", "out of memory");
		return 1;
	}
	f = open_out(e);
	if (!f) {
		free(sel);
		return 1;
	}
	ret = rsp_export_chrome(f, e->t, sel, e->path);
	free(sel);
	if (ret) {
		rsp_cli_error("export", "cannot write the trace JSON: %s", strerror(-ret));
		if (f != stdout) {
			fclose(f);
			unlink(e->out);
		}
		return 1;
	}
	return close_out(e, f);
}

#ifdef RSP_HAVE_RENDER
static int do_view(struct exp *e)
{
	struct rsp_render_opts ro = {
		.width = (int)e->width,
		.height = (int)e->height,
		.show_sleeps = e->sleeps,
		.target_chains_only = e->chains_only,
		.merge_threads = e->merge_threads,
	};
	enum rsp_view_kind kind;
	char err[512];

	if (!strcmp(e->view, "running"))
		kind = RSP_VIEW_RUNNING;
	else if (!strcmp(e->view, "flame"))
		kind = RSP_VIEW_FLAME;
	else
		kind = RSP_VIEW_CONSOLIDATED;
	/* the running view can draw a trace without a target; the flame views cannot */
	if ((e->tg.n_pids || e->tg.tid > 0 || kind != RSP_VIEW_RUNNING) && analyze(e))
		return 1;
	if (rsp_render_export(e->t, e->an, kind, e->out, &ro, err, sizeof(err))) {
		rsp_cli_error("export", "%s", err);
		return 1;
	}
	return 0;
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
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct exp e = { .path = "rsp.data" };
	struct rsp_trace_opts to = { 0 };
	char err[512];
	int c, ret, modes = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:t:h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_VIEW:
			if (strcmp(optarg, "running") && strcmp(optarg, "flame") &&
			    strcmp(optarg, "consolidated")) {
				rsp_cli_error("export",
					      "unknown view '%s': running, flame or consolidated",
					      optarg);
				return 2;
			}
			e.mode = MODE_VIEW;
			e.view = optarg;
			modes++;
			break;
		case OPT_FOLDED:
			if (rsp_folded_kind_parse(optarg, &e.folded)) {
				rsp_cli_error("export",
					      "unknown folded kind '%s': cpu, offcpu, hotcold, "
					      "offwake or pseudo",
					      optarg);
				return 2;
			}
			e.mode = MODE_FOLDED;
			modes++;
			break;
		case OPT_CHROME:
			e.mode = MODE_CHROME;
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

			if (!rsp_cli_parse_count(optarg, INT32_MAX, &tid) || !tid) {
				rsp_cli_error("export", "bad thread id '%s'", optarg);
				return 2;
			}
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
			    (c == OPT_WIDTH ? e.width : e.height) < 16) {
				rsp_cli_error("export", "bad --%s '%s': pixels, 16 to 100000",
					      c == OPT_WIDTH ? "width" : "height", optarg);
				return 2;
			}
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

			if (!rsp_cli_parse_us(optarg, &ns) || !ns || ns > 60000000000ull) {
				rsp_cli_error("export", "bad tolerance '%s': microseconds > 0", optarg);
				return 2;
			}
			e.ao.tolerance_ns = ns;
			break;
		}
		case 'h':
			fputs(export_usage, stdout);
			return 0;
		default:
			fputs(export_usage, stderr);
			return 2;
		}
	}
	if (optind < argc)
		e.path = argv[optind++];
	if (optind < argc) {
		rsp_cli_error("export", "one file at a time ('%s' is extra)", argv[optind]);
		return 2;
	}
	if (modes != 1) {
		rsp_cli_error("export", "say what to export: one of --view, --folded, --chrome-json");
		return 2;
	}
	if ((e.tg.all && (e.tg.n_specs || e.tg.tid)) || (e.tg.tid && e.tg.n_specs)) {
		rsp_cli_error("export", "--all, --target and --thread exclude each other");
		return 2;
	}
	if (e.mode == MODE_VIEW) {
#ifndef RSP_HAVE_RENDER
		rsp_cli_error("export", "--view: this rsp was built without cairo (the viewer's "
					"render library): install libcairo2-dev and libpango1.0-dev, "
					"then rebuild");
		return 1;
#else
		if (!e.out || !strcmp(e.out, "-")) {
			rsp_cli_error("export", "--view needs -o OUT.svg, OUT.png or OUT.pdf");
			return 2;
		}
		if (!has_ext(e.out, ".svg") && !has_ext(e.out, ".png") && !has_ext(e.out, ".pdf")) {
			rsp_cli_error("export", "'%s': the image type comes from the name: .svg, .png "
						"or .pdf",
				      e.out);
			return 2;
		}
#endif
	}
	if (rsp_trace_open(e.path, &to, &e.t, err, sizeof(err))) {
		rsp_cli_error("export", "%s", err);
		return 1;
	}
	ret = 1;
	if (rsp_cli_target_resolve(&e.tg, e.t, "export", e.path, true))
		goto out;
	switch (e.mode) {
	case MODE_FOLDED:
		ret = do_folded(&e);
		break;
	case MODE_CHROME:
		ret = do_chrome(&e);
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
	rsp_trace_free(e.t);
	rsp_cli_target_free(&e.tg);
	return ret;
}
