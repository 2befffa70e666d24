/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rsp_trace_check() (rsp view's check before the viewer loads the file)
 * against rsp_trace_open() on the same bytes: the check never refuses a
 * file the loader reads, and refuses with the loader's own words; every
 * recording of tests/data passes; files cut inside their first event
 * descriptions, text and the fuzz corpus are judged as the loader judges them.
 *
 *   test-check DATA_DIR CORPUS_DIR SCRATCH_DIR
 */
#include "rsp-model.h"
#include "tap.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *data_dir, *corpus_dir, *scratch;
static size_t n_refused, n_later; /* refused by both; passed the check, refused by the loader */

/* One file: the check's verdict against the loader's. */
static void compare(const char *path, const char *what)
{
	struct rsp_trace_opts o = {.no_symbols = true};
	struct rsp_trace *t = NULL;
	char cerr[512] = "", oerr[512] = "";
	int c = rsp_trace_check(path, cerr, sizeof(cerr));
	int r = rsp_trace_open(path, &o, &t, oerr, sizeof(oerr));

	rsp_trace_free(t);
	if (c) {
		n_refused++;
		CHECK(r != 0 && !strcmp(cerr, oerr), "%s: refused as the loader refuses it (check "
		      "'%s', loader %d '%s')", what, cerr, r, oerr);
	} else if (r) {
		n_later++; /* damage past the start: the viewer says it */
	}
}

static int copy_prefix(const char *from, size_t n, const char *to)
{
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	char buf[4096];
	size_t k;
	int ret = -1;

	if (in && out) {
		while (n && (k = fread(buf, 1, n < sizeof(buf) ? n : sizeof(buf), in)) > 0) {
			if (fwrite(buf, 1, k, out) != k)
				break;
			n -= k;
		}
		ret = n ? -1 : 0;
	}
	if (in)
		fclose(in);
	if (out && fclose(out))
		ret = -1;
	return ret;
}

static void test_recordings(void)
{
	static const char *const names[] = {"pass.data", "pollwait.data", "rpcchain.data"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char path[4096], err[512] = "";

		snprintf(path, sizeof(path), "%s/%s", data_dir, names[i]);
		CHECK(rsp_trace_check(path, err, sizeof(err)) == 0, "%s passes (%s)", names[i], err);
	}
}

/* pass.data cut at every 61st byte of its first 4 KB (its descriptions), then coarser */
static void test_cuts(void)
{
	char from[4096], to[4096], err[512];
	size_t before = n_refused;

	snprintf(from, sizeof(from), "%s/pass.data", data_dir);
	snprintf(to, sizeof(to), "%s/cut.data", scratch);
	for (size_t n = 1; n < 200000; n += n < 4096 ? 61 : n / 3) {
		char what[64];

		if (copy_prefix(from, n, to)) {
			CHECK(0, "cannot write %s", to);
			return;
		}
		snprintf(what, sizeof(what), "pass.data cut at %zu", n);
		compare(to, what);
	}
	CHECK(n_refused > before, "some cuts refused (%zu)", n_refused - before);
	copy_prefix(from, 1024, to);
	CHECK(rsp_trace_check(to, err, sizeof(err)) == -EINVAL &&
	      strstr(err, "before its first event description"),
	      "cut at 1 KB: '%s'", err);
	remove(to);
}

static void test_text(void)
{
	char path[4096], err[512] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/text.data", scratch);
	f = fopen(path, "w");
	CHECK(f != NULL, "scratch file");
	if (!f)
		return;
	for (int i = 0; i < 20; i++)
		fputs("this is not a trace\n", f);
	fclose(f);
	CHECK(rsp_trace_check(path, err, sizeof(err)) == -EINVAL && strstr(err, "not a perf.data"),
	      "text: '%s'", err);
	compare(path, "text");
	remove(path);
}

static void test_corpus(void)
{
	DIR *d = opendir(corpus_dir);
	struct dirent *e;
	size_t n = 0;

	CHECK(d != NULL, "corpus %s", corpus_dir);
	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[4096];

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", corpus_dir, e->d_name);
		compare(path, e->d_name);
		n++;
	}
	closedir(d);
	CHECK(n > 100, "%zu corpus files: %zu refused by the check, %zu passed it and failed to "
	      "load", n, n_refused, n_later);
}

int main(int argc, char **argv)
{
	tap_init(argc, argv);
	if (argc < 4) {
		fprintf(stderr, "usage: test-check DATA_DIR CORPUS_DIR SCRATCH_DIR\n");
		return 2;
	}
	data_dir = argv[1];
	corpus_dir = argv[2];
	scratch = argv[3];
	TAP_RUN("recordings", test_recordings());
	TAP_RUN("cuts", test_cuts());
	TAP_RUN("text", test_text());
	TAP_RUN("corpus", test_corpus());
	return tap_done();
}
