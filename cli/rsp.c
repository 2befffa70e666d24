/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rsp: the Recursive Systemic Profiler.  Dispatches a verb from the table. */
#include "cli.h"

#include "rsp-config.h"

#include <malloc.h>
#include <stdarg.h>
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
	{ NULL, NULL, NULL },
};

void rsp_cli_error(const char *verb, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "rsp %s: ", verb);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: rsp VERB [OPTIONS] [ARGS]\n\n"
		   "rsp explains where a program's time goes, across processes, the kernel,\n"
		   "disks and the network.\n\nverbs:\n");
	for (const struct verb *v = verbs; v->name; v++)
		fprintf(f, "  %-8s %s\n", v->name, v->summary);
	fprintf(f, "\n`rsp VERB --help` describes a verb's options.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("rsp %s\n", RSP_VERSION);
		return 0;
	}
	for (const struct verb *v = verbs; v->name; v++) {
		if (strcmp(argv[1], v->name))
			continue;
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
		return v->run(argc - 1, argv + 1);
	}
	fprintf(stderr, "rsp: unknown verb '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
