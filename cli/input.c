/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The trace a reading verb reads (see input.h). */
#include "input.h"

#include "args.h"
#include "cli.h"
#include "json.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_PATH "rsp.data"
#define PERF_PATH "perf.data"

/* the lines said at the end (rsp_cli_input_say_warnings): warnings, the default's note */
static char *pending;
static size_t pending_len;

static void keep_line(const char *line, size_t len)
{
	char *all = realloc(pending, pending_len + len + 1);

	if (!all)
		return;
	memcpy(all + pending_len, line, len + 1);
	pending = all;
	pending_len += len;
}

/* A stream (standard input, a FIFO) read whole: the model reads a trace from memory. */
static int slurp(struct rsp_cli_input *in, int fd, const char *verb)
{
	size_t cap = 1 << 20;
	char *buf = malloc(cap);

	if (!buf) {
		rsp_cli_error(verb, "out of memory reading %s", in->name);
		return 1;
	}
	in->len = 0;
	for (;;) {
		ssize_t n;

		if (in->len == cap) {
			char *g = cap < SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;

			if (!g) {
				free(buf);
				rsp_cli_error(verb, "out of memory reading %s (%zu MB so far)",
					      in->name, in->len >> 20);
				return 1;
			}
			buf = g;
			cap *= 2;
		}
		n = read(fd, buf + in->len, cap - in->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rsp_cli_error(verb, "cannot read %s: %s", in->name, strerror(errno));
			free(buf);
			return 1;
		}
		if (n == 0)
			break;
		in->len += (size_t)n;
	}
	if (!in->len) {
		free(buf);
		rsp_cli_error(verb, "%s is empty: give it a perf.data stream (`perf record -o - ... "
				    "| rsp %s -`)",
			      in->name, verb);
		return 1;
	}
	in->buf = buf;
	return 0;
}

/* Which file, and is it one the model can open: 0, or 1 after one line. */
static int find(struct rsp_cli_input *in, const char *verb, const char *path, int *stream_fd)
{
	struct stat st;

	*stream_fd = -1;
	if (path && !strcmp(path, "-")) {
		in->path = "-";
		in->name = "standard input";
		if (isatty(0)) {
			rsp_cli_error(verb, "standard input is a terminal: pipe a trace into it "
					    "(`perf record -o - ... | rsp %s -`)",
				      verb);
			return 1;
		}
		*stream_fd = 0;
		return 0;
	}
	if (!path) {
		path = DEFAULT_PATH;
		/* perf's default name, when rsp's is not here */
		if (lstat(DEFAULT_PATH, &st) < 0 && errno == ENOENT && lstat(PERF_PATH, &st) == 0) {
			char line[128];
			int n = snprintf(line, sizeof(line), "rsp %s: read %s (there is no %s here)\n",
					 verb, PERF_PATH, DEFAULT_PATH);

			path = PERF_PATH;
			/* said with the warnings: an error names perf.data on its own */
			if (n > 0 && (size_t)n < sizeof(line))
				keep_line(line, (size_t)n);
		}
	}
	in->path = in->name = path;
	if (stat(path, &st) < 0)
		return 0; /* the model says it, with what to do */
	if (S_ISDIR(st.st_mode)) {
		rsp_cli_error(verb, "%s is a directory: give a trace file (`rsp record -o FILE` "
				    "writes one)",
			      path);
		return 1;
	}
	if (S_ISFIFO(st.st_mode)) {
		*stream_fd = open(path, O_RDONLY | O_CLOEXEC);
		if (*stream_fd < 0) {
			rsp_cli_error(verb, "cannot open %s: %s", path, strerror(errno));
			return 1;
		}
		return 0;
	}
	if (S_ISREG(st.st_mode) && st.st_size == 0) {
		rsp_cli_error(verb, "%s is empty: nothing was recorded into it (record again with "
				    "`rsp record`)",
			      path);
		return 1;
	}
	return 0;
}

/*
 * The model's warning about a cut, else its first: the one the line says.  A
 * cut is found by the model's words until rsp-model.h tells a warning's kind.
 */
static size_t first_warning(const struct rsp_trace *t)
{
	struct rsp_trace_summary s;

	rsp_trace_get_summary(t, &s);
	for (size_t i = 0; (s.truncated || s.unfinished) && i < rsp_trace_n_warnings(t); i++)
		if (strstr(rsp_trace_warning(t, i), "cut short") ||
		    strstr(rsp_trace_warning(t, i), "did not finish"))
			return i;
	return 0;
}

size_t rsp_cli_print_type_losses(struct rsp_trace *t, FILE *f, const char *sep)
{
	size_t nl = rsp_trace_n_lost(t), n = 0;
	struct rsp_trace_summary sum;

	rsp_trace_get_summary(t, &sum);
	for (size_t i = 0; i < nl; i++) {
		struct rsp_lost_info l, o;
		uint64_t lost;
		bool seen = false;

		rsp_trace_lost(t, i, &l);
		if (!l.event)
			continue;
		for (size_t j = 0; j < i && !seen; j++) {
			rsp_trace_lost(t, j, &o);
			seen = o.event && !strcmp(o.event, l.event) && o.start_ns == l.start_ns &&
			       o.end_ns == l.end_ns;
		}
		if (seen)
			continue;
		lost = l.lost;
		for (size_t j = i + 1; j < nl; j++) {
			rsp_trace_lost(t, j, &o);
			if (o.event && !strcmp(o.event, l.event) && o.start_ns == l.start_ns &&
			    o.end_ns == l.end_ns)
				lost += o.lost;
		}
		fprintf(f, "%s%s %.3f..%.3f s (%" PRIu64 " %s; %s)", n ? sep : "", l.event,
			(l.start_ns - sum.start_ns) / 1e9, (l.end_ns - sum.start_ns) / 1e9, lost,
			l.shed ? "shed" : "lost", l.uncertain);
		n++;
	}
	return n;
}

void rsp_cli_print_missing_file(struct rsp_trace *t, size_t i, FILE *f)
{
	struct rsp_missing_file m;

	rsp_trace_missing_file(t, i, &m);
	fprintf(f, "%s (%s%s%s%s): %" PRIu64 " frame%s without symbols, %.1f ms of the %s's time",
		m.path, *m.build_id ? "build id " : "", m.build_id, *m.build_id ? ": " : "", m.why,
		m.frames, m.frames == 1 ? "" : "s", m.ns / 1e6,
		rsp_trace_n_targets(t) ? "target" : "trace");
}

/* The one line about what a trace lacks, kept for the end. */
static void keep_warning(const struct rsp_cli_input *in, const char *verb)
{
	size_t nw = rsp_trace_n_warnings(in->t), nl = 0, nt = 0, nf, len = 0;
	char *line = NULL;
	uint64_t lost = 0;
	FILE *f;

	for (size_t i = 0; i < rsp_trace_n_lost(in->t); i++) {
		struct rsp_lost_info l;

		rsp_trace_lost(in->t, i, &l);
		if (l.event) {
			nt++;
			continue;
		}
		lost += l.lost;
		nl++;
	}
	nf = rsp_trace_n_missing_files(in->t);
	if (!nw && !nl && !nt && !nf)
		return;
	f = open_memstream(&line, &len);
	if (!f)
		return;
	fprintf(f, "rsp %s: warning: %s: ", verb, in->name);
	if (nw)
		fputs(rsp_trace_warning(in->t, first_warning(in->t)), f);
	if (nf) {
		fputs(nw ? "; " : "", f);
		rsp_cli_print_missing_file(in->t, 0, f);
		if (nf > 1)
			fprintf(f, " and %zu more file%s", nf - 1, nf == 2 ? "" : "s");
		fprintf(f, " (`rsp info %s` lists them; --symfs, --debug-dir or `rsp archive` "
			   "where it was recorded)",
			in->path);
	}
	if (nl)
		fprintf(f, "%s%" PRIu64 " events lost in %zu span%s: what happened then is unknown",
			nw || nf ? "; " : "", lost, nl, nl == 1 ? "" : "s");
	if (nt) {
		/* every span named: which events are missing when, and what that leaves
		 * uncertain there */
		fprintf(f, "%sevent types missing in spans (the rest of the trace is whole there): ",
			nw || nf || nl ? "; " : "");
		rsp_cli_print_type_losses(in->t, f, ", ");
	}
	if (nw > 1)
		fprintf(f, "; %zu more warning%s (`rsp info %s` lists them)", nw - 1,
			nw == 2 ? "" : "s", in->path);
	fputc('\n', f);
	if (fclose(f) == 0)
		keep_line(line, len);
	free(line);
}

void rsp_cli_input_say_warnings(bool say)
{
	if (say && pending)
		fputs(pending, stderr);
	free(pending);
	pending = NULL;
	pending_len = 0;
}

/* debuginfod's downloads, said as they start */
static void sym_progress(const char *msg, void *ctx)
{
	fprintf(stderr, "rsp %s: %s\n", (const char *)ctx, msg);
}

/* @path@suffix into @buf (PATH_MAX) if it is there and of the type @type (S_IFREG,
 * S_IFDIR): @buf, else NULL ("" in @buf) */
static const char *beside(const char *path, const char *suffix, char *buf, size_t len,
			  mode_t type)
{
	struct stat st;

	if (strcmp(path, "-") && snprintf(buf, len, "%s%s", path, suffix) < (int)len &&
	    stat(buf, &st) == 0 && (st.st_mode & S_IFMT) == type)
		return buf;
	buf[0] = '\0';
	return NULL;
}

/* Where the files the trace names are looked for (args.h): FILE.archive beside a
 * file, and the JIT runtimes' symbol files rsp record copied into FILE.jit */
static void symbol_opts(struct rsp_cli_input *in, const char *verb, struct rsp_trace_opts *o)
{
	const char *urls = getenv("DEBUGINFOD_URLS");

	o->symfs = rsp_cli_symbols.symfs;
	o->debug_dirs = rsp_cli_symbols.debug_dirs;
	o->n_debug_dirs = rsp_cli_symbols.n_debug_dirs;
	o->debuginfod = urls && *urls;
	o->sym_progress = sym_progress;
	o->sym_progress_ctx = (void *)verb;
	in->archive[0] = '\0';
	if (!rsp_cli_symbols.no_archive)
		o->archive = beside(in->path, ".archive", in->archive, sizeof(in->archive), S_IFREG);
	o->jit_dir = beside(in->path, ".jit", in->jit_dir, sizeof(in->jit_dir), S_IFDIR);
}

/* "rsp VERB: FILE: what", the model's words; what to do for a file that is no trace */
static void say_error(const struct rsp_cli_input *in, const char *verb, bool stream, int ret,
		      const char *err)
{
	fprintf(stderr, "rsp %s: ", verb);
	if (stream || !strstr(err, in->path))
		fprintf(stderr, "%s: ", in->name);
	fputs(err, stderr);
	if (ret == -EINVAL && !strstr(err, "cut short"))
		fputs(" (rsp reads the perf.data files of `rsp record` and `perf record`)", stderr);
	fputc('\n', stderr);
}

int rsp_cli_input_open(struct rsp_cli_input *in, const char *verb, const char *path,
		       const struct rsp_trace_opts *opts)
{
	struct rsp_trace_opts o = { 0 };
	const char *two_pass;
	char err[512];
	int fd, ret;

	memset(in, 0, sizeof(*in));
	if (find(in, verb, path, &fd))
		return 1;
	if (opts)
		o = *opts;
	symbol_opts(in, verb, &o);
	/* for tests and measurements: what one pass would load, in two (rsp-model.h) */
	two_pass = getenv("RSP_LOAD_TWO_PASS");
	o.two_pass |= two_pass && *two_pass && *two_pass != '0';
	if (fd >= 0) {
		ret = slurp(in, fd, verb);
		if (fd > 0)
			close(fd);
		if (ret)
			return 1;
		ret = rsp_trace_open_mem(in->buf, in->len, &o, &in->t, err, sizeof(err));
	} else {
		ret = rsp_trace_open(in->path, &o, &in->t, err, sizeof(err));
	}
	if (ret) {
		say_error(in, verb, fd >= 0, ret, err);
		rsp_cli_input_close(in);
		return 1;
	}
	keep_warning(in, verb);
	return 0;
}

int rsp_cli_input_check(struct rsp_cli_input *in, const char *verb, const char *path)
{
	struct stat st;
	char err[512];
	int fd, ret;

	memset(in, 0, sizeof(*in));
	/* before find() opens it: opening a FIFO waits for its writer */
	if (path && stat(path, &st) == 0 && S_ISFIFO(st.st_mode)) {
		rsp_cli_error(verb, "%s is a pipe: the viewer reads files, not streams: save the "
				    "stream first (`... > trace.data`)",
			      path);
		return 1;
	}
	if (find(in, verb, path, &fd))
		return 1;
	if (fd > 0)
		close(fd);
	ret = rsp_trace_check(in->path, err, sizeof(err));
	if (ret) {
		say_error(in, verb, false, ret, err);
		return 1;
	}
	return 0;
}

void rsp_cli_input_close(struct rsp_cli_input *in)
{
	rsp_trace_free(in->t);
	in->t = NULL;
	free(in->buf);
	in->buf = NULL;
	in->len = 0;
}

bool rsp_cli_same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return a && b && strcmp(a, "-") && strcmp(b, "-") && stat(a, &sa) == 0 &&
	       stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int rsp_cli_input_need_sched(const struct rsp_cli_input *in, const char *verb, const char *what)
{
	struct rsp_trace_summary s;

	rsp_trace_get_summary(in->t, &s);
	if (s.have_sched)
		return 0;
	if (s.truncated || s.unfinished) {
		rsp_cli_error(verb,
			      "%s: is cut short before its first scheduler event (the recorder "
			      "stopped early): %s cannot be known",
			      in->name, what);
		return 1;
	}
	rsp_cli_error(verb,
		      "%s: no scheduler events (sched:sched_switch), only CPU samples: %s cannot "
		      "be known (record with rsp record, or perf record -g -e 'sched:*')",
		      in->name, what);
	return 1;
}

const char *rsp_cli_no_target_why(const struct rsp_trace *t)
{
	struct rsp_trace_summary s;

	rsp_trace_get_summary(t, &s);
	if (s.truncated || s.unfinished)
		return "is cut short before it names a target (the recorder stopped early)";
	return "records no target (rsp record -a, or perf record)";
}

void rsp_cli_json_warnings(struct json *j, const struct rsp_trace *t)
{
	json_begin_array(j, "warnings");
	for (size_t i = 0; i < rsp_trace_n_warnings(t); i++)
		json_string(j, NULL, rsp_trace_warning(t, i));
	json_end_array(j);
}
