/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rsp view: start the GTK viewer (a separate binary, so rsp needs no GTK),
 * after checking each file (found as the other verbs find it, its header and
 * first event description read, not its records: the viewer loads it once)
 * and that there is a display.  The viewer's window shows what the file
 * lacks (its warnings).
 */
#include "args.h"
#include "cli.h"
#include "input.h"

#include "rsp-config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char view_usage[] =
	"usage: rsp view [FILE...] [--symfs DIR] [--debug-dir DIR]...\n"
	"\n"
	"Open each FILE (default rsp.data, else perf.data) in the viewer (rsp-viewer): the\n"
	"process-running timeline, the chronological and consolidated flame views.  Each\n"
	"file's start is checked here; the viewer reads the whole and shows what it lacks.\n"
	"Without a display, draw the views to files with `rsp export FILE --view\n"
	"running|flame|consolidated -o OUT.svg` (or .png, .pdf).\n"
	"\n"
	"Where the files the trace names are found (symbols):\n"
	RSP_CLI_SYMBOL_HELP;

static bool set(const char *var)
{
	const char *v = getenv(var);

	return v && *v;
}

/* next to this rsp (a build tree: ../viewer/rsp-viewer), else installed; NULL if none */
static char *find_viewer(void)
{
	char self[PATH_MAX], path[PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n > 0) {
		char *slash;

		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			snprintf(path, sizeof(path), "%s/../viewer/rsp-viewer", self);
			if (access(path, X_OK) == 0)
				return strdup(path);
			snprintf(path, sizeof(path), "%s/rsp-viewer", self);
			if (access(path, X_OK) == 0)
				return strdup(path);
		}
	}
	if (access(RSP_BINDIR "/rsp-viewer", X_OK) == 0)
		return strdup(RSP_BINDIR "/rsp-viewer");
	return NULL;
}

int rsp_cmd_view(int argc, char **argv)
{
	static const struct option longopts[] = {
		RSP_CLI_SYMBOL_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct stat st;
	char **args;
	char *viewer;
	int c, n = 0, first;

	rsp_cli_getopt_reset();
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		if (c == 'h') {
			fputs(view_usage, stdout);
			return 0;
		}
		if (rsp_cli_other_option("view", argv, c, optarg))
			return 2;
	}
	/* the viewer, --symfs DIR, --debug-dir DIR..., the files, NULL */
	args = calloc((size_t)(argc - optind) + 2 * rsp_cli_symbols.n_debug_dirs + 6,
		      sizeof(char *));
	if (!args) {
		rsp_cli_error("view", "out of memory");
		return 1;
	}
	if (rsp_cli_symbols.symfs) {
		args[1 + n++] = (char *)"--symfs";
		args[1 + n++] = (char *)rsp_cli_symbols.symfs;
	}
	for (size_t i = 0; i < rsp_cli_symbols.n_debug_dirs; i++) {
		args[1 + n++] = (char *)"--debug-dir";
		args[1 + n++] = (char *)rsp_cli_symbols.debug_dirs[i];
	}
	first = n;
	/* no FILE and no recording here: the viewer opens empty (File > Open) */
	if (optind < argc || lstat("rsp.data", &st) == 0 || lstat("perf.data", &st) == 0) {
		int n_files = optind < argc ? argc - optind : 1;

		for (int i = 0; i < n_files; i++) {
			const char *file = optind < argc ? argv[optind + i] : NULL;
			struct rsp_cli_input in;

			if (file && !strcmp(file, "-")) {
				free(args);
				return rsp_cli_usage_error("view",
							   "the viewer reads files, not standard "
							   "input: save the stream first (`... > "
							   "trace.data`)");
			}
			/* checked, not loaded: the viewer loads it (one read) */
			if (rsp_cli_input_check(&in, "view", file)) {
				free(args);
				return 1;
			}
			args[1 + n++] = (char *)in.path; /* argv's, or the default's literal */
		}
	}
	if (!set("DISPLAY") && !set("WAYLAND_DISPLAY")) {
		rsp_cli_error("view", "no display for %s (neither DISPLAY nor WAYLAND_DISPLAY is "
				      "set): draw its views to files with `rsp export %s --view "
				      "running|flame|consolidated -o OUT.svg` (or .png, .pdf)",
			      n > first ? args[1 + first] : "the viewer",
			      n > first ? args[1 + first] : "FILE");
		free(args);
		return 1;
	}
	viewer = find_viewer();
	if (!viewer) {
		rsp_cli_error("view", "the viewer (rsp-viewer) is not built: install libgtk-4-dev "
				      "and rebuild (./setup.sh does both), or draw the views with "
				      "`rsp export FILE --view running|flame|consolidated -o OUT.svg`");
		free(args);
		return 1;
	}
	args[0] = viewer;
	/* what was printed goes out before the viewer replaces this process */
	rsp_cli_input_say_warnings(true);
	fflush(stdout);
	execv(viewer, args);
	rsp_cli_error("view", "cannot start %s: %s", viewer, strerror(errno));
	free(viewer);
	free(args);
	return 1;
}
