/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rsp: the Recursive Systemic Profiler.  Dispatches a verb from the table. */
#include "cli.h"
#include "input.h"

#include "rsp-config.h"

#include "rsp-output.h"

#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

struct verb {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
	bool loads; /* reads a whole trace in: tune malloc for it */
};

static const struct verb verbs[] = {
#if RSP_HAVE_COLLECTOR
	{ "record", rsp_cmd_record, "record the whole system while a program runs" },
#endif
	{ "report", rsp_cmd_report, "explain where the target's time went, across processes", true },
	{ "info", rsp_cmd_info, "what a trace holds: time, CPUs, events, lost spans, processes", true },
	{ "view", rsp_cmd_view, "open a trace in the viewer (timeline, flame views)" },
	{ "export", rsp_cmd_export, "views as SVG/PNG/PDF, folded stacks, Chrome trace JSON", true },
	{ "causes", rsp_cmd_causes, "LatencyTOP: waits by cause, system-wide and per process", true },
	{ "offcpu", rsp_cmd_offcpu, "off-CPU time by stack, with latency histograms", true },
	{ "archive", rsp_cmd_archive, "the files a trace's symbols come from, beside it", true },
	{ NULL, NULL, NULL },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: rsp VERB [OPTIONS] [ARGS]\n"
		   "       rsp help VERB\n\n"
		   "rsp explains where a program's time goes, across processes, the kernel,\n"
		   "disks and the network.\n\nverbs:\n");
	for (const struct verb *v = verbs; v->name; v++)
		fprintf(f, "  %-8s %s\n", v->name, v->summary);
	fprintf(f, "\noptions:\n"
		   "  -h, --help     this text; `rsp help VERB` or `rsp VERB --help`: a verb's\n"
		   "  -V, --version  rsp's version\n");
}

static const struct verb *find_verb(const char *name)
{
	for (const struct verb *v = verbs; v->name; v++)
		if (!strcmp(name, v->name))
			return v;
	return NULL;
}

/* Not a verb: one line and the usage status, as `git` says of an unknown command. */
static int unknown_verb(const char *name)
{
	fprintf(stderr, "rsp: unknown verb '%s'; try `rsp --help`\n", name);
	return 2;
}

/* Writes to the file-size limit fail with EFBIG and are told, not a SIGXFSZ death. */
static void on_xfsz(int sig)
{
}

/*
 * What was printed reached its file: standard output flushed and closed, its
 * error told in one line (unless the verb already failed and said why);
 * standard error checked (nothing is left to tell its failure with but the
 * exit status).
 */
static int finish(const char *who, int ret)
{
	int err = 0;

	errno = 0;
	if (fflush(stdout) || ferror(stdout))
		err = errno ? errno : EIO;
	if (fclose(stdout) && !err && errno != EBADF)
		err = errno;
	if (err && !ret) {
		char line[256];

		rsp_output_error(line, sizeof(line), "the standard output", -err);
		fprintf(stderr, "%s: %s\n", who, line);
		ret = 1;
	}
	/* what the traces lack, after the output it qualifies; not over an error */
	rsp_cli_input_say_warnings(!ret);
	if (fflush(stderr) || ferror(stderr))
		ret = ret ? ret : 1;
	return ret;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_xfsz };
	const struct verb *v;
	char who[32];

	/* a handler, not SIG_IGN: a command rsp record runs gets the default back */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGXFSZ, &sa, NULL);
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    (!strcmp(argv[1], "help") && argc == 2)) {
		usage(stdout);
		return finish("rsp", 0);
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version") ||
	    !strcmp(argv[1], "version")) {
		printf("rsp %s\n", RSP_VERSION);
		return finish("rsp", 0);
	}
	if (!strcmp(argv[1], "help")) {
		/* rsp help VERB = rsp VERB --help */
		char help[] = "--help";
		char *args[] = { argv[2], help, NULL };

		if (argc > 3) {
			fprintf(stderr, "rsp help: one verb at a time ('%s' is extra); try "
					"`rsp --help`\n",
				argv[3]);
			return 2;
		}
		v = find_verb(argv[2]);
		if (!v)
			return unknown_verb(argv[2]);
		snprintf(who, sizeof(who), "rsp %s", v->name);
		return finish(who, v->run(2, args));
	}
	if (argv[1][0] == '-') {
		fprintf(stderr, "rsp: unknown option '%s'; try `rsp --help`\n", argv[1]);
		return 2;
	}
	v = find_verb(argv[1]);
	if (!v)
		return unknown_verb(argv[1]);
	/*
	 * Loading grows large arrays (model/mem.c): with glibc's mmap
	 * threshold fixed, not raised as blocks are freed, each is a
	 * mapping of its own and grows by mremap, not by a copy into
	 * fresh pages.  rsp report of 1 M records: 35 % less memory at
	 * its peak.  Not for record, whose 4 MiB chunks are reused from
	 * the heap.
	 */
	if (v->loads)
		mallopt(M_MMAP_THRESHOLD, 256 << 10);
	snprintf(who, sizeof(who), "rsp %s", v->name);
	return finish(who, v->run(argc - 1, argv + 1));
}
