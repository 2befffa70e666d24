/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Command-line records (format/rsp-cmdline-format.h): the reader's parse with
 * exact answers, and each thread's command line in a synthetic stream with
 * forks, execs, a reused pid, a cut and a damaged record (model/timeline/
 * cmdlines.c), read whole and in compressed frames.
 */
#include "trace-check.h"

#include "rsp-cmdline-format.h"

#include <errno.h>
#include <stdlib.h>

static void test_parse(void)
{
	unsigned char rec[256];
	struct rsp_cmdline_entry e;
	size_t n = synth_cmdline_record(rec, 7, 42, "cc\0-c\0heavy.c\0", 14, 14);
	/* perf's own HEADER_EVENT_TYPE: an event id and a 64-byte name */
	unsigned char old[80] = { 65, 0, 0, 0, 0, 0, 80, 0, 1 };

	CHECK(rsp_cmdline_parse(rec, n, &e) == 1, "a record parses");
	CHECK_STR(e.text, "cc -c heavy.c", "its text");
	CHECK(e.pid == 42 && e.time == 7 && !e.cut, "its pid, time, not cut");
	free(e.text);
	memcpy(old + 16, "sched:sched_switch", 18);
	CHECK(rsp_cmdline_parse(old, sizeof(old), &e) == 0 && !e.text, "perf's own record is not rsp's");
	CHECK(rsp_cmdline_parse(rec, 24, &e) == -EINVAL, "cut before its fields: damaged");
	CHECK(rsp_cmdline_parse(rec, n - 8, &e) == -EINVAL, "argv past the record: damaged");
	n = synth_cmdline_record(rec, 7, 42, "cc\0", 3, 2);
	CHECK(rsp_cmdline_parse(rec, n, &e) == -EINVAL, "full length below the length: damaged");
	n = synth_cmdline_record(rec, 7, 0, "cc\0", 3, 3);
	CHECK(rsp_cmdline_parse(rec, n, &e) == -EINVAL, "pid 0: damaged");
	n = synth_cmdline_record(rec, 7, 42, "\0\0", 2, 2);
	CHECK(rsp_cmdline_parse(rec, n, &e) == -EINVAL, "no argument: damaged");
	n = synth_cmdline_record(rec, 7, 42, "long\0args\0", 10, 5000);
	CHECK(rsp_cmdline_parse(rec, n, &e) == 1 && e.cut, "a cut one parses, marked");
	CHECK_STR(e.text, "long args [...]", "a cut one's text");
	free(e.text);
	n = synth_cmdline_record(rec, 7, 42, "caf\xc3\xa9\0\xff\x01\0a\xe2\x82", 13, 13);
	CHECK(rsp_cmdline_parse(rec, n, &e) == 1, "bytes that are no text parse");
	CHECK_STR(e.text, "caf\xc3\xa9 ?? a??", "UTF-8 kept, the rest '?'");
	free(e.text);
}

/* The command line of the thread @tid alive at @time. */
static const char *cmd_of(struct rsp_trace *t, int tid, uint64_t time)
{
	struct rsp_thread_info ti;
	size_t i = rsp_trace_find_thread(t, tid, time);

	if (i == RSP_NO_INDEX)
		return "(no thread)";
	rsp_trace_thread(t, i, &ti);
	return ti.cmdline ? ti.cmdline : "(null)";
}

static void events(struct synth *s)
{
	unsigned char bad[64];
	size_t n;

	synth_fork(s, 0, 10, 1, 10, 1); /* a shell, alive at the start */
	synth_comm(s, 0, 10, 10, "bash", false);
	synth_fork(s, 0, 11, 1, 11, 1); /* a daemon: no command line in the file */
	synth_comm(s, 0, 11, 11, "daemon", false);
	synth_cmdline(s, 0, 10, "bash\0-c\0make\0", 13, 13);
	synth_switch(s, 0, US(50), 0, "swapper/0", 0, 10, "bash");
	synth_fork(s, US(100), 20, 10, 20, 10); /* forked, never execs: bash's */
	synth_fork(s, US(110), 40, 10, 40, 10);
	synth_cmdline(s, US(120), 40, "old\0", 4, 4);
	synth_comm(s, US(120), 40, 40, "old", true);
	synth_exit(s, US(130), 40, 40);
	synth_fork(s, US(150), 30, 10, 30, 10);
	synth_cmdline(s, US(200), 30, "cc\0-c\0heavy.c\0", 14, 14);
	synth_comm(s, US(200), 30, 30, "cc", true);
	synth_fork(s, US(250), 30, 30, 31, 30); /* a thread of cc */
	synth_exit(s, US(260), 30, 31);
	synth_cmdline(s, US(300), 30, "as\0x.s\0", 7, 7);
	synth_comm(s, US(300), 30, 30, "as", true);
	synth_fork(s, US(320), 32, 30, 32, 30); /* forked by as: as's */
	synth_fork(s, US(500), 40, 10, 40, 10); /* pid 40 again: bash's, not old's */
	synth_cmdline(s, US(600), 50, "long\0args\0", 10, 5000);
	synth_fork(s, US(550), 50, 10, 50, 10);
	/* damaged: its argv runs past the record */
	n = synth_cmdline_record(bad, US(700), 40, "zz\0", 3, 3);
	((struct rsp_pf_cmdline *)bad)->len = 200;
	synth_raw(s, bad, n);
	synth_switch(s, 0, US(900), 10, "bash", S_INT, 0, "swapper/0");
}

static void check_threads(struct rsp_trace *t, const char *how)
{
	size_t warned = 0;
	char what[96];

#define AT(tid, time, want, label)                                                        \
	do {                                                                               \
		snprintf(what, sizeof(what), "%s: %s", how, label);                        \
		CHECK_STR(cmd_of(t, tid, time), want, what);                               \
	} while (0)
	AT(10, US(60), "bash -c make", "alive at the start: /proc's");
	AT(11, US(60), "(null)", "none recorded: none");
	AT(20, US(110), "bash -c make", "forked, no exec: its parent's");
	AT(40, US(125), "old", "its own exec");
	AT(30, US(400), "as x.s", "the last exec of the process");
	AT(31, US(255), "cc -c heavy.c", "a thread: its process's then");
	AT(32, US(400), "as x.s", "forked by the second image: that one's");
	AT(40, US(510), "bash -c make", "a reused pid: not the earlier process's");
	AT(50, US(800), "long args [...]", "cut: marked");
#undef AT
	for (size_t i = 0; i < rsp_trace_n_warnings(t); i++)
		warned += strstr(rsp_trace_warning(t, i), "command-line record") != NULL;
	CHECK(warned == 1, "%s: one warning for the damaged record (%zu)", how, warned);
	for (size_t i = 0; i < rsp_trace_n_warnings(t); i++)
		if (strstr(rsp_trace_warning(t, i), "command-line record"))
			CHECK_STR(rsp_trace_warning(t, i),
				  "a command-line record is damaged and was skipped: its process is "
				  "named by its executable only",
				  "the warning");
}

static void test_threads(void)
{
	struct synth *s = synth_new(NULL), *f = synth_new(NULL);
	char err[256];
	struct rsp_trace *t;
	unsigned char *z = NULL;
	size_t segs = 0;

	events(s);
	t = open_synth(s, err, sizeof(err));
	CHECK(t != NULL, "the stream opens (%s)", t ? "" : err);
	if (t)
		check_threads(t, "whole");
	rsp_trace_free(t);
	events(f);
	t = open_framed(f, 4096, 256, false, &segs, &z, err, sizeof(err));
	CHECK(t != NULL, "the stream in frames opens (%s)", t ? "" : err);
	if (t)
		check_threads(t, "frames");
	rsp_trace_free(t);
	free(z);
	synth_free(s);
	synth_free(f);
}

int main(int argc, char **argv)
{
	tap_init(argc, argv);
	test_parse();
	test_threads();
	return tap_done();
}
