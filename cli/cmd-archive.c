/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rsp archive: the files a trace's symbols come from, in one file beside it
 * (FILE.archive), keyed by build id, so that the trace explains itself on
 * another machine.  The layout (an uncompressed POSIX tar) is in
 * docs/perf-data.md; model/symbols/archive.c reads it.
 */
#include "args.h"
#include "cli.h"
#include "input.h"

#include "rsp-analysis.h"
#include "rsp-model.h"
#include "rsp-output.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static const char archive_usage[] =
	"usage: rsp archive [FILE] [--all] [--symfs DIR] [--debug-dir DIR]...\n"
	"\n"
	"Write FILE.archive: the files the trace's stacks come from, keyed by build id\n"
	"(a tar, docs/perf-data.md), so that every verb reading FILE elsewhere finds\n"
	"them there: the executables and libraries mapped by the processes in the\n"
	"target's chains (its process tree and the processes that woke it), their\n"
	"separate debug files when installed, and this machine's kernel symbols when\n"
	"it runs the kernel the trace was recorded on.  Run it where FILE was recorded.\n"
	"\n"
	"  FILE          default rsp.data\n"
	"  --all         the files of every process of the trace\n"
	"\n"
	"Where the files the trace names are found (symbols):\n" RSP_CLI_SYMBOL_HELP;

#define BLOCK 512

struct tarw {
	FILE *f;
	uint64_t bytes; /* written */
	time_t mtime;
};

static void octal(char *field, size_t len, uint64_t v)
{
	snprintf(field, len, "%0*" PRIo64, (int)len - 1, v);
}

static int tar_header(struct tarw *w, const char *name, uint64_t size)
{
	unsigned char h[BLOCK] = { 0 };
	unsigned sum = 0;

	if (strlen(name) >= 100)
		return -ENAMETOOLONG;
	memcpy(h, name, strlen(name));
	octal((char *)h + 100, 8, 0644);
	octal((char *)h + 108, 8, 0);
	octal((char *)h + 116, 8, 0);
	octal((char *)h + 124, 12, size);
	octal((char *)h + 136, 12, (uint64_t)w->mtime);
	memset(h + 148, ' ', 8);
	h[156] = '0';
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	for (size_t i = 0; i < BLOCK; i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum);
	h[155] = ' ';
	if (fwrite(h, 1, BLOCK, w->f) != BLOCK)
		return -EIO;
	w->bytes += BLOCK;
	return 0;
}

static int tar_pad(struct tarw *w, uint64_t size)
{
	static const unsigned char zero[BLOCK];
	size_t pad = (size_t)((BLOCK - size % BLOCK) % BLOCK);

	if (pad && fwrite(zero, 1, pad, w->f) != pad)
		return -EIO;
	w->bytes += pad;
	return 0;
}

static int tar_bytes(struct tarw *w, const char *name, const void *data, size_t len)
{
	int err = tar_header(w, name, len);

	if (err)
		return err;
	if (len && fwrite(data, 1, len, w->f) != len)
		return -EIO;
	w->bytes += len;
	return tar_pad(w, len);
}

/* The file at @path as member @name; -errno if it cannot be read whole. */
static int tar_file(struct tarw *w, const char *name, const char *path)
{
	FILE *in = fopen(path, "rbe");
	char buf[1 << 16];
	uint64_t left;
	struct stat st;
	int err;

	if (!in)
		return -errno;
	if (fstat(fileno(in), &st) || !S_ISREG(st.st_mode)) {
		fclose(in);
		return -EINVAL;
	}
	err = tar_header(w, name, (uint64_t)st.st_size);
	for (left = (uint64_t)st.st_size; !err && left;) {
		size_t n = fread(buf, 1, left < sizeof(buf) ? (size_t)left : sizeof(buf), in);

		if (!n || fwrite(buf, 1, n, w->f) != n) /* a file that shrank: the tar is wrong */
			err = -EIO;
		left -= n;
		w->bytes += n;
	}
	fclose(in);
	return err ? err : tar_pad(w, (uint64_t)st.st_size);
}

static char *slurp_text(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	size_t cap = 1 << 22, n = 0, r;
	char *buf = NULL;

	if (!f)
		return NULL;
	do {
		if (!buf || cap - n < 65536) {
			char *g = realloc(buf, buf ? cap * 2 : cap);

			if (!g) {
				free(buf);
				fclose(f);
				return NULL;
			}
			if (buf)
				cap *= 2;
			buf = g;
		}
		r = fread(buf + n, 1, 65536, f);
		n += r;
	} while (r > 0);
	fclose(f);
	*len = n;
	return buf;
}

static void hex(char *out, const uint8_t *id, size_t len)
{
	for (size_t i = 0; i < len; i++)
		snprintf(out + 2 * i, 3, "%02x", id[i]);
}

/* The processes of the target's chains: every thread running or sleeping in its
 * pseudostacks (the threads that only competed for a CPU are not) */
static int *chain_pids(struct rsp_trace *t, size_t *n, const char **why)
{
	size_t nt = rsp_trace_n_targets(t), nn, k = 0;
	struct rsp_analysis_opts ao = { 0 };
	struct rsp_analysis *an;
	uint8_t *seen;
	int *pids, *targets;
	char err[256];

	*n = 0;
	*why = NULL;
	if (!nt) {
		*why = "records no target: give --all to archive the files of every process";
		return NULL;
	}
	targets = calloc(nt, sizeof(*targets));
	if (!targets)
		return NULL;
	for (size_t i = 0; i < nt; i++)
		targets[i] = rsp_trace_target(t, i);
	if (rsp_analyze(t, targets, nt, 0, &ao, &an, err, sizeof(err))) {
		free(targets);
		*why = "the target's chains cannot be followed: give --all";
		return NULL;
	}
	nn = rsp_analysis_n_nodes(an);
	seen = calloc(rsp_trace_n_threads(t) + 1, 1);
	pids = calloc(rsp_trace_n_threads(t) + nt + 1, sizeof(*pids));
	if (!seen || !pids) {
		free(seen);
		free(pids);
		free(targets);
		rsp_analysis_free(an);
		return NULL;
	}
	for (size_t i = 0; i < nt; i++)
		pids[k++] = targets[i];
	for (size_t i = 0; i < nn; i++) {
		struct rsp_node_info ni;
		struct rsp_thread_info ti;

		/* the threads whose stacks the chains show: running or sleeping in them */
		rsp_analysis_node(an, i, &ni);
		if ((ni.kind != RSP_NODE_RUN && ni.kind != RSP_NODE_SLEEP) ||
		    ni.thread >= rsp_trace_n_threads(t) || seen[ni.thread])
			continue;
		seen[ni.thread] = 1;
		rsp_trace_thread(t, ni.thread, &ti);
		pids[k++] = ti.pid;
	}
	free(seen);
	free(targets);
	rsp_analysis_free(an);
	*n = k;
	return pids;
}

/* A separate debug file of @id in the debug directories: its path, or NULL */
static const char *debug_file_of(const char *idhex, char *buf, size_t len)
{
	struct stat st;

	for (size_t i = 0; i <= rsp_cli_symbols.n_debug_dirs; i++) {
		const char *dir = i < rsp_cli_symbols.n_debug_dirs ? rsp_cli_symbols.debug_dirs[i]
								   : "/usr/lib/debug";

		snprintf(buf, len, "%s/.build-id/%.2s/%s.debug", dir, idhex, idhex + 2);
		if (stat(buf, &st) == 0 && S_ISREG(st.st_mode))
			return buf;
	}
	return NULL;
}

/* A file before @i (found, a file) has the build id @idhex */
static bool written(const struct rsp_mapped_file *files, size_t i, const char *idhex)
{
	for (size_t j = 0; j < i; j++) {
		char h[41];

		if (!files[j].is_file || !files[j].read_from || !files[j].build_id_len)
			continue;
		hex(h, files[j].build_id, files[j].build_id_len);
		if (!strcmp(h, idhex))
			return true;
	}
	return false;
}

int rsp_cmd_archive(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "all", no_argument, NULL, 'a' },
		RSP_CLI_SYMBOL_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rsp_output_opts oo = { 0 };
	struct rsp_mapped_file *files = NULL;
	struct rsp_output *out = NULL;
	struct rsp_trace_summary sum;
	struct rsp_cli_input in;
	struct tarw w = { .mtime = time(NULL) };
	const char *path = NULL, *why;
	char *manifest = NULL, *ks = NULL, outpath[4096], err[512];
	size_t mlen = 0, nf = 0, n_pids = 0, stored = 0, no_id = 0, missing = 0, ks_len = 0;
	FILE *mf = NULL;
	int *pids = NULL;
	bool all = false;
	int c, ret = 1;

	rsp_cli_getopt_reset();
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'a':
			all = true;
			break;
		case 'h':
			fputs(archive_usage, stdout);
			return 0;
		default:
			if (rsp_cli_other_option("archive", argv, c, optarg))
				return 2;
			break;
		}
	}
	if (rsp_cli_one_file("archive", argc, argv, &path))
		return 2;
	if (path && !strcmp(path, "-"))
		return rsp_cli_usage_error("archive", "the archive is written beside the trace: "
						      "give the trace as a file, not standard input");
	rsp_cli_symbols.no_archive = true; /* the files themselves, not an older archive's */
	if (rsp_cli_input_open(&in, "archive", path, NULL))
		return 1;
	if (snprintf(outpath, sizeof(outpath), "%s.archive", in.path) >= (int)sizeof(outpath)) {
		rsp_cli_error("archive", "%s: the name is too long", in.path);
		goto out;
	}
	if (!all) {
		pids = chain_pids(in.t, &n_pids, &why);
		if (!pids) {
			rsp_cli_error("archive", "%s: %s", in.name, why ? why : "out of memory");
			goto out;
		}
	}
	files = rsp_trace_mapped_files(in.t, pids, n_pids, all, &nf);
	if (rsp_output_open(outpath, &oo, &out, err, sizeof(err))) {
		rsp_cli_error("archive", "%s", err);
		goto out;
	}
	w.f = rsp_output_get_file(out);
	mf = open_memstream(&manifest, &mlen);
	if (!mf) {
		rsp_cli_error("archive", "out of memory");
		goto out;
	}
	fprintf(mf, "# rsp archive of %s: build id, the path the trace names, the member\n",
		in.path);
	for (size_t i = 0; i < nf; i++) {
		const struct rsp_mapped_file *m = &files[i];
		char idhex[41], member[128], dbg[4096];
		const char *d;
		int e;

		if (!m->is_file)
			continue;
		if (!m->build_id_len) {
			no_id++;
			continue;
		}
		if (!m->read_from) {
			missing++;
			fprintf(stderr, "rsp archive: %s: not found here (skipped)\n", m->path);
			continue;
		}
		hex(idhex, m->build_id, m->build_id_len);
		snprintf(member, sizeof(member), ".build-id/%.2s/%s%s", idhex, idhex + 2,
			 m->debug_file ? ".debug" : "");
		if (written(files, i, idhex)) /* one file under two names of the trace */
			continue;
		e = tar_file(&w, member, m->read_from);
		if (e == -EIO)
			goto write_error;
		if (e) {
			missing++;
			fprintf(stderr, "rsp archive: %s: %s (skipped)\n", m->read_from, strerror(-e));
			continue;
		}
		fprintf(mf, "%s %s %s\n", idhex, m->path, member);
		stored++;
		if (!m->debug_file && (d = debug_file_of(idhex, dbg, sizeof(dbg)))) {
			snprintf(member, sizeof(member), ".build-id/%.2s/%s.debug", idhex, idhex + 2);
			e = tar_file(&w, member, d);
			if (e == -EIO)
				goto write_error;
			if (!e) {
				fprintf(mf, "%s %s %s\n", idhex, m->path, member);
				stored++;
			}
		}
	}
	rsp_trace_get_summary(in.t, &sum);
	/* the kernel's symbols, when this is the kernel recorded (rsp_trace_open() took them) */
	if (sum.kallsyms_from_running_kernel && (ks = slurp_text("/proc/kallsyms", &ks_len))) {
		if (tar_bytes(&w, "kallsyms", ks, ks_len))
			goto write_error;
		fprintf(mf, "- [kernel.kallsyms] kallsyms\n");
	}
	if (fclose(mf)) {
		mf = NULL;
		rsp_cli_error("archive", "out of memory");
		goto out;
	}
	mf = NULL;
	if (tar_bytes(&w, "MANIFEST", manifest, mlen))
		goto write_error;
	{
		static const unsigned char end[2 * BLOCK];

		if (fwrite(end, 1, sizeof(end), w.f) != sizeof(end))
			goto write_error;
		w.bytes += sizeof(end);
	}
	if (rsp_output_commit(out, err, sizeof(err))) {
		out = NULL;
		rsp_cli_error("archive", "%s", err);
		goto out;
	}
	out = NULL;
	printf("%s: %zu file%s (%.1f MB)%s", outpath, stored, stored == 1 ? "" : "s",
	       w.bytes / 1e6, ks ? ", kernel symbols" : "");
	if (no_id)
		printf("; %zu without a recorded build id left out", no_id);
	if (missing)
		printf("; %zu not found here", missing);
	printf("\n");
	ret = 0;
	goto out;
write_error:
	rsp_cli_error("archive", "%s: write error", outpath);
out:
	if (mf)
		fclose(mf);
	free(manifest);
	free(ks);
	rsp_output_abort(out);
	free(files);
	free(pids);
	rsp_cli_input_close(&in);
	return ret;
}
