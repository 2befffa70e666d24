/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A perf.data compressed whole (gzip, bzip2, xz, lzma, zstd), known by its
 * content: a real recording (argv[1]) and synthetic streams in pipe layout,
 * file layout and perf record -z's, compressed here in every format, read as
 * the file itself (the same description, byte for byte); the same cut,
 * damaged, followed by junk or by zeros, in several streams; other formats
 * named; perf.data version 1.  Never a crash, never a silent wrong answer.
 */
#include "read/reader.h"
#include "rsp-model.h"
#include "synth-perf.h"
#include "tap.h"

#include <bzlib.h>
#include <errno.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#define US(x) (1000000000ull + (uint64_t)(x) * 1000ull)

struct buf {
	unsigned char *p;
	size_t n;
};

/* ---- compressing, with the libraries the reader uses -------------------------------- */

enum fmt { F_GZIP, F_BZIP2, F_XZ, F_LZMA, F_ZSTD, F_N };
static const char *fmt_name[F_N] = { "gzip", "bzip2", "xz", "lzma", "zstd" };

static struct buf gz(const void *in, size_t n)
{
	z_stream z = { 0 };
	struct buf b = { 0 };

	if (deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return b;
	b.p = malloc(deflateBound(&z, n));
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)n;
	z.next_out = b.p;
	z.avail_out = (uInt)deflateBound(&z, n);
	if (b.p && deflate(&z, Z_FINISH) == Z_STREAM_END)
		b.n = z.total_out;
	deflateEnd(&z);
	return b;
}

static struct buf bz(const void *in, size_t n)
{
	unsigned cap = (unsigned)(n + n / 100 + 600);
	struct buf b = { malloc(cap), 0 };

	if (b.p && BZ2_bzBuffToBuffCompress((char *)b.p, &cap, (char *)in, (unsigned)n, 9, 0, 0) ==
		       BZ_OK)
		b.n = cap;
	return b;
}

static struct buf xz(const void *in, size_t n, bool alone)
{
	lzma_stream s = LZMA_STREAM_INIT;
	lzma_options_lzma opt;
	size_t cap = lzma_stream_buffer_bound(n) + 64;
	struct buf b = { malloc(cap), 0 };
	lzma_ret e;

	lzma_lzma_preset(&opt, 1);
	e = alone ? lzma_alone_encoder(&s, &opt) : lzma_easy_encoder(&s, 1, LZMA_CHECK_CRC64);
	if (!b.p || e != LZMA_OK)
		return b;
	s.next_in = in;
	s.avail_in = n;
	s.next_out = b.p;
	s.avail_out = cap;
	if (lzma_code(&s, LZMA_FINISH) == LZMA_STREAM_END)
		b.n = cap - s.avail_out;
	lzma_end(&s);
	return b;
}

static struct buf zst(const void *in, size_t n)
{
	ZSTD_CCtx *c = ZSTD_createCCtx();
	struct buf b = { malloc(ZSTD_compressBound(n)), 0 };
	size_t r;

	ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
	r = ZSTD_compress2(c, b.p, ZSTD_compressBound(n), in, n);
	if (!ZSTD_isError(r))
		b.n = r;
	ZSTD_freeCCtx(c);
	return b;
}

static struct buf pack(enum fmt f, const void *in, size_t n)
{
	switch (f) {
	case F_GZIP:
		return gz(in, n);
	case F_BZIP2:
		return bz(in, n);
	case F_XZ:
	case F_LZMA:
		return xz(in, n, f == F_LZMA);
	default:
		return zst(in, n);
	}
}

/* @a then @b in one buffer (two streams, or a stream and what follows it) */
static struct buf cat(struct buf a, const void *b, size_t n)
{
	struct buf c = { malloc(a.n + n + 1), a.n + n };

	if (!c.p)
		return (struct buf){ 0 };
	memcpy(c.p, a.p, a.n);
	memcpy(c.p + a.n, b, n);
	return c;
}

/* ---- what a trace says ---------------------------------------------------------------- */

/* Everything `rsp info` shows of a trace, as text: two traces read alike if equal. */
static char *describe(struct rsp_trace *t)
{
	struct rsp_trace_summary s;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	rsp_trace_get_summary(t, &s);
	fprintf(f, "time %llu-%llu wall %llu cpus %u host %s os %s arch %s by %s pipe %d\n",
		(unsigned long long)s.start_ns, (unsigned long long)s.end_ns,
		(unsigned long long)s.wall_start_ns, s.nr_cpus, s.hostname, s.osrelease, s.arch,
		s.recorder, s.pipe_mode);
	fprintf(f, "truncated %d unfinished %d records %llu events %llu samples %llu\n", s.truncated,
		s.unfinished, (unsigned long long)s.file_records, (unsigned long long)s.events,
		(unsigned long long)s.samples);
	fprintf(f, "inferred %llu merged %llu dropped %llu broken %llu lost %llu wakeups %llu/%llu\n",
		(unsigned long long)s.inferred_switches, (unsigned long long)s.merged_copies,
		(unsigned long long)s.dropped_samples, (unsigned long long)s.broken_chains,
		(unsigned long long)s.lost_events, (unsigned long long)s.wakeups,
		(unsigned long long)s.wakeups_unlinked);
	fprintf(f, "threads %zu processes %zu have %d%d%d%d kallsyms %d%d\n", s.n_threads,
		s.n_processes, s.have_waking, s.have_irq, s.have_block, s.have_net,
		s.kallsyms_in_file, s.kallsyms_from_running_kernel);
	for (size_t i = 0; i < rsp_trace_n_cmdline(t); i++)
		fprintf(f, "cmdline %s\n", rsp_trace_cmdline(t, i));
	for (size_t i = 0; i < rsp_trace_n_targets(t); i++)
		fprintf(f, "target %d\n", rsp_trace_target(t, i));
	for (size_t i = 0; i < rsp_trace_n_warnings(t); i++)
		fprintf(f, "warning %s\n", rsp_trace_warning(t, i));
	for (size_t i = 0; i < rsp_trace_n_event_types(t); i++) {
		struct rsp_event_type_info e;

		rsp_trace_event_type(t, i, &e);
		fprintf(f, "event %s %llu %llu %llu\n", e.name, (unsigned long long)e.count,
			(unsigned long long)e.merged_copies, (unsigned long long)e.with_stack);
	}
	for (size_t i = 0; i < rsp_trace_n_threads(t); i++) {
		struct rsp_thread_info ti;

		rsp_trace_thread(t, i, &ti);
		fprintf(f, "thread %d/%d %s (%s) %zu %llu-%llu run %llu sleep %llu unknown %llu "
			   "slices %zu samples %zu\n",
			ti.tid, ti.pid, ti.comm, ti.first_comm, ti.parent,
			(unsigned long long)ti.birth_ns, (unsigned long long)ti.death_ns,
			(unsigned long long)ti.run_ns, (unsigned long long)ti.sleep_ns,
			(unsigned long long)ti.unknown_ns, ti.n_slices, ti.n_samples);
	}
	fclose(f);
	return text;
}

/* The description of @n bytes at @p, or NULL with @err set. */
static char *describe_mem(const void *p, size_t n, char *err, size_t errlen)
{
	struct rsp_trace_opts o = { .no_symbols = true };
	struct rsp_trace *t;
	char *d;

	err[0] = '\0';
	if (rsp_trace_open_mem(p, n, &o, &t, err, errlen))
		return NULL;
	d = describe(t);
	rsp_trace_free(t);
	return d;
}

static char *describe_path(const char *path, char *err, size_t errlen)
{
	struct rsp_trace_opts o = { .no_symbols = true };
	struct rsp_trace *t;
	char *d;

	err[0] = '\0';
	if (rsp_trace_open(path, &o, &t, err, errlen))
		return NULL;
	d = describe(t);
	rsp_trace_free(t);
	return d;
}

static bool one_line(const char *err)
{
	return err[0] && !strchr(err, '\n');
}

static bool has(const char *s, const char *what)
{
	return s && strstr(s, what);
}

static char tmpdir[] = "/tmp/rsp-test-compressed.XXXXXX";

static bool put_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	bool ok = f && fwrite(p, 1, n, f) == n;

	if (f && fclose(f))
		ok = false;
	return ok;
}

/* ---- the inputs --------------------------------------------------------------------- */

static bool read_file(const char *path, struct buf *b)
{
	FILE *f = fopen(path, "rb");
	long n;

	b->p = NULL;
	b->n = 0;
	if (!f)
		return false;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	b->p = malloc(n > 0 ? (size_t)n : 1);
	if (b->p && n > 0 && fread(b->p, 1, (size_t)n, f) == (size_t)n)
		b->n = (size_t)n;
	fclose(f);
	return b->n > 0;
}

/* 3 x @n records: three threads passing control on two CPUs, with samples. */
static struct buf synthetic(bool file_mode, bool z, int n_iter)
{
	struct synth_opts o = { .file_mode = file_mode };
	struct synth *s = synth_new(&o);
	const char *comm[3] = { "a", "b", "c" };
	uint64_t ips[3] = { 0xffffffff81000000ull, 0x401000, 0x401100 };
	struct buf b = { 0 };
	const void *p;
	size_t n;

	if (!s)
		return b;
	for (int k = 0; k < 3; k++) {
		synth_fork(s, 0, 100 + k, 1, 100 + k, 1);
		synth_comm(s, 0, 100 + k, 100 + k, comm[k], false);
	}
	for (int i = 0; i < n_iter; i++) {
		int a = i % 3, c = (i + 1) % 3, cpu = i % 2;

		synth_waking(s, cpu, US(10 * i + 1), 100 + c, 0, 100 + c, comm[c], cpu, false,
			     ips, 2);
		synth_sample(s, cpu, US(10 * i + 2), 100 + a, 100 + a, ips, 3);
		synth_switch(s, cpu, US(10 * i + 5), 100 + a, comm[a], 1, 100 + c, comm[c]);
		if (i % 100 == 99)
			synth_round(s);
	}
	p = synth_finish(s, &n);
	if (z) {
		b.p = synth_compress(p, n, 4096, false, &b.n);
	} else {
		b.p = malloc(n);
		if (b.p) {
			memcpy(b.p, p, n);
			b.n = n;
		}
	}
	synth_free(s);
	return b;
}

/* ---- the tests ------------------------------------------------------------------------- */

/* An input: its bytes, compressed in every format, and what it reads as. */
struct input {
	const char *name;
	struct buf raw, z[F_N];
	char *want;
	uint64_t records;
};

static bool input_make(struct input *in, const char *name, struct buf raw)
{
	struct rsp_trace_opts o = { .no_symbols = true };
	struct rsp_trace *t;
	char err[512];

	memset(in, 0, sizeof(*in));
	in->name = name;
	in->raw = raw;
	if (!raw.n || rsp_trace_open_mem(raw.p, raw.n, &o, &t, err, sizeof(err))) {
		CHECK(0, "%s opens as it is: %s", name, raw.n ? err : "no bytes");
		return false;
	}
	{
		struct rsp_trace_summary s;

		rsp_trace_get_summary(t, &s);
		in->records = s.file_records;
	}
	in->want = describe(t);
	rsp_trace_free(t);
	for (int f = 0; f < F_N; f++) {
		in->z[f] = pack((enum fmt)f, raw.p, raw.n);
		CHECK(in->z[f].n, "%s compressed with %s: %zu bytes", name, fmt_name[f], in->z[f].n);
		if (!in->z[f].n)
			return false;
	}
	return in->want != NULL;
}

static void input_free(struct input *in)
{
	free(in->raw.p);
	for (int f = 0; f < F_N; f++)
		free(in->z[f].p);
	free(in->want);
}

/* In every format: the same description as the file itself, from memory and a file. */
static void test_same(const struct input *in)
{
	char err[512], path[4200];

	for (int f = 0; f < F_N; f++) {
		const struct buf *z = &in->z[f];
		struct rsp_reader *r = NULL;
		char *got, *got_path;

		got = describe_mem(z->p, z->n, err, sizeof(err));
		CHECK(got && !strcmp(got, in->want), "%s.%s reads as %s itself%s%s", in->name,
		      fmt_name[f], in->name, got ? "" : ": ", got ? "" : err);
		snprintf(path, sizeof(path), "%s/%s.%s", tmpdir, in->name, fmt_name[f]);
		got_path = put_file(path, z->p, z->n) ? describe_path(path, err, sizeof(err)) : NULL;
		CHECK(got_path && !strcmp(got_path, in->want), "and so from a file%s%s",
		      got_path ? "" : ": ", got_path ? "" : err);
		if (rsp_reader_open_mem(z->p, z->n, &r, err, sizeof(err)) == 0) {
			const struct rsp_reader_info *ri = rsp_reader_info(r);

			CHECK(has(ri->packed, fmt_name[f]) && ri->packed_size == z->n &&
			      !ri->packed_cut,
			      "the reader says it was %s-compressed, %zu bytes", fmt_name[f], z->n);
			rsp_reader_free(r);
		} else {
			CHECK(0, "the reader opens it: %s", err);
		}
		free(got);
		free(got_path);
	}
}

/*
 * Cut: an error of one line, or what it holds up to the cut with the
 * warning (never more records than the whole, never silently).
 */
static void test_cut(const struct input *in)
{
	struct rsp_trace_opts o = { .no_symbols = true };
	struct rsp_trace *t;
	char err[512];

	for (int f = 0; f < F_N; f++) {
		const struct buf *z = &in->z[f];
		size_t cuts[] = { 1024, z->n / 2, z->n - 16, z->n - 1 };
		int errors = 0, read = 0, bad = 0;

		for (size_t c = 0; c < sizeof(cuts) / sizeof(cuts[0]); c++) {
			struct rsp_trace_summary s;
			bool warned = false;

			if (cuts[c] >= z->n)
				continue;
			if (rsp_trace_open_mem(z->p, cuts[c], &o, &t, err, sizeof(err))) {
				errors++;
				if (!one_line(err)) {
					bad++;
					printf("# %s.%s cut at %zu: no one-line error: '%s'\n",
					       in->name, fmt_name[f], cuts[c], err);
				}
				continue;
			}
			read++;
			rsp_trace_get_summary(t, &s);
			for (size_t i = 0; i < rsp_trace_n_warnings(t); i++)
				warned |= has(rsp_trace_warning(t, i), "cut short");
			if (!s.truncated || !warned || s.file_records > in->records) {
				bad++;
				printf("# %s.%s cut at %zu: truncated %d, warned %d, %llu records of "
				       "%llu\n",
				       in->name, fmt_name[f], cuts[c], s.truncated, warned,
				       (unsigned long long)s.file_records,
				       (unsigned long long)in->records);
			}
			rsp_trace_free(t);
		}
		CHECK(!bad, "%s.%s cut short: %d errors of one line, %d read up to the cut with the "
			    "warning",
		      in->name, fmt_name[f], errors, read);
	}
}

/* Followed by zeros: the same; by junk: read whole, with the cut warning; damaged: never silent. */
static void test_tails(const struct input *in)
{
	static const unsigned char zeros[4096], junk[] = "this is no compressed stream";
	char err[512];

	for (int f = 0; f < F_N; f++) {
		struct buf z = in->z[f];
		struct buf zz = cat(z, zeros, sizeof(zeros)), zj = cat(z, junk, sizeof(junk));
		struct rsp_reader *r = NULL;
		char *got = describe_mem(zz.p, zz.n, err, sizeof(err));

		CHECK(got && !strcmp(got, in->want), "%s.%s and 4 KB of zeros: the same", in->name,
		      fmt_name[f]);
		free(got);
		if (rsp_reader_open_mem(zj.p, zj.n, &r, err, sizeof(err)) == 0) {
			const struct rsp_reader_info *ri;

			rsp_reader_scan(r, NULL, NULL, err, sizeof(err));
			ri = rsp_reader_info(r);
			CHECK(ri->truncated && ri->truncated_at == z.n && has(ri->packed_cut, "not"),
			      "%s.%s and junk: read to the stream's end (byte %zu), and told: %s",
			      in->name, fmt_name[f], z.n, ri->packed_cut ? ri->packed_cut : "nothing");
			rsp_reader_free(r);
		} else {
			CHECK(0, "%s.%s and junk: %s", in->name, fmt_name[f], err);
		}
		/* a byte changed in the middle: an error, or (lzma: no checksum) a warned cut */
		for (size_t at = z.n / 3; at < z.n; at += z.n / 3) {
			struct rsp_trace_opts o = { .no_symbols = true };
			struct rsp_trace *t;
			bool ok;

			z.p[at] ^= 0x55;
			if (rsp_trace_open_mem(z.p, z.n, &o, &t, err, sizeof(err))) {
				ok = one_line(err) && (f == F_LZMA || has(err, "corrupt"));
				CHECK(ok, "%s.%s with byte %zu changed: %s", in->name, fmt_name[f], at,
				      err);
			} else {
				struct rsp_trace_summary s;

				rsp_trace_get_summary(t, &s);
				got = describe(t);
				ok = s.truncated || (got && !strcmp(got, in->want));
				CHECK(ok, "%s.%s with byte %zu changed: read as cut (%d), or the byte "
					  "did not matter",
				      in->name, fmt_name[f], at, s.truncated);
				free(got);
				rsp_trace_free(t);
			}
			z.p[at] ^= 0x55;
		}
		free(zz.p);
		free(zj.p);
	}
}

/* Two streams one after the other (pigz, pbzip2, cat a.gz b.gz): read as one. */
static void test_streams(const struct input *in)
{
	size_t half = in->raw.n / 2;
	char err[512];

	for (int f = 0; f < F_N; f++) {
		struct buf a, b, ab;
		char *got;

		if (f == F_LZMA)
			continue; /* the format has one stream */
		a = pack((enum fmt)f, in->raw.p, half);
		b = pack((enum fmt)f, in->raw.p + half, in->raw.n - half);
		ab = cat(a, b.p, b.n);
		got = describe_mem(ab.p, ab.n, err, sizeof(err));
		CHECK(got && !strcmp(got, in->want), "%s in two %s streams: the same%s%s", in->name,
		      fmt_name[f], got ? "" : ": ", got ? "" : err);
		free(got);
		free(a.p);
		free(b.p);
		free(ab.p);
	}
}

/* What is not a perf.data, compressed or not: named. */
static void test_named(struct buf in)
{
	static unsigned char tar[1024];
	struct buf z = gz(in.p, in.n), zz = gz(z.p, z.n), ztar, empty;
	char err[512];
	char *d;

	d = describe_mem(zz.p, zz.n, err, sizeof(err));
	CHECK(!d && has(err, "gzip-compressed gzip-compressed"), "gzip in gzip: %s", err);
	free(d);
	memcpy(tar, "perf.data", 9);
	memcpy(tar + 257, "ustar", 5);
	ztar = zst(tar, sizeof(tar));
	d = describe_mem(ztar.p, ztar.n, err, sizeof(err));
	CHECK(!d && has(err, "zstd-compressed, a tar archive"), "a tar in zstd: %s", err);
	free(d);
	d = describe_mem("PK\3\4 and the rest of a zip archive", 36, err, sizeof(err));
	CHECK(!d && has(err, "zip archive"), "a zip archive: %s", err);
	free(d);
	empty = xz("", 0, false);
	d = describe_mem(empty.p, empty.n, err, sizeof(err));
	CHECK(!d && has(err, "decompresses to nothing"), "an empty xz file: %s", err);
	free(d);
	d = describe_mem(z.p, 20, err, sizeof(err));
	CHECK(!d && has(err, "gzip stream cut short at byte 20"), "a gzip file cut in its header: %s",
	      err);
	free(d);
	free(z.p);
	free(zz.p);
	free(ztar.p);
	free(empty.p);
}

/*
 * A large image (its pages mapped ahead by a thread, from 8 MB): whole, and
 * cut in the middle (the thread stopped half-way).
 */
static void test_large(void)
{
	struct buf raw = synthetic(false, false, 30000);
	struct rsp_trace_opts o = { .no_symbols = true };
	struct rsp_trace *t;
	char err[512];
	char *want = describe_mem(raw.p, raw.n, err, sizeof(err));

	CHECK(want && raw.n >= (8u << 20), "a large stream: %zu bytes", raw.n);
	for (int f = 0; want && f < F_N; f++) {
		struct buf z;
		char *got;

		if (f != F_GZIP && f != F_ZSTD)
			continue; /* the others are slow to make, and decompress the same way */
		z = pack((enum fmt)f, raw.p, raw.n);
		got = describe_mem(z.p, z.n, err, sizeof(err));
		CHECK(got && !strcmp(got, want), "it reads the same %s-compressed%s%s", fmt_name[f],
		      got ? "" : ": ", got ? "" : err);
		free(got);
		if (rsp_trace_open_mem(z.p, z.n / 2, &o, &t, err, sizeof(err)) == 0) {
			struct rsp_trace_summary s;

			rsp_trace_get_summary(t, &s);
			CHECK(s.truncated, "and cut in half, up to the cut (%llu records)",
			      (unsigned long long)s.file_records);
			rsp_trace_free(t);
		} else {
			CHECK(0, "and cut in half: %s", err);
		}
		free(z.p);
	}
	free(want);
	free(raw.p);
}

/*
 * perf.data version 1 ("PERFFILE"), made from a file-mode stream as perf of
 * Linux 2.6.3x wrote it: attrs of the first published size (64 bytes) and
 * @hsize bytes of header (104, or 72: no features).  perf 6.1 reads a file
 * made so (`perf script` prints the same as for the original).
 */
static struct buf to_version1(struct buf in, uint64_t hsize)
{
	struct buf b = { malloc(in.n), in.n };
	uint64_t h[13], n, at;

	if (!b.p || in.n < sizeof(h))
		return (struct buf){ b.p, 0 };
	memcpy(b.p, in.p, in.n);
	memcpy(h, in.p, sizeof(h)); /* magic, size, attr_size, attrs (offset, size), ... */
	n = h[2] >= 80 ? h[4] / h[2] : 0;
	if (!n || h[3] + h[4] > in.n)
		return (struct buf){ b.p, 0 };
	at = h[3];
	for (uint64_t i = 0; i < n; i++) {
		const unsigned char *e = in.p + h[3] + i * h[2];
		uint32_t size = 64;

		memcpy(b.p + at, e, 64);
		memcpy(b.p + at + 4, &size, 4);
		memcpy(b.p + at + 64, e + h[2] - 16, 16); /* the ids section */
		at += 80;
	}
	memcpy(b.p, "PERFFILE", 8);
	h[1] = hsize;
	h[2] = 80;
	h[4] = n * 80;
	memcpy(b.p + 8, &h[1], 8);
	memcpy(b.p + 16, &h[2], 8);
	memcpy(b.p + 32, &h[4], 8);
	return b;
}

static void test_version1(const struct input *file)
{
	struct buf v1 = to_version1(file->raw, 104), v1nf = to_version1(file->raw, 72), z;
	struct rsp_trace_opts o = { .no_symbols = true };
	struct rsp_trace *t;
	char err[512];
	char *got = describe_mem(v1.p, v1.n, err, sizeof(err));

	CHECK(got && !strcmp(got, file->want), "perf.data version 1 reads as version 2%s%s",
	      got ? "" : ": ", got ? "" : err);
	free(got);
	z = gz(v1.p, v1.n);
	got = describe_mem(z.p, z.n, err, sizeof(err));
	CHECK(got && !strcmp(got, file->want), "and gzip-compressed too");
	free(got);
	if (rsp_trace_open_mem(v1nf.p, v1nf.n, &o, &t, err, sizeof(err)) == 0) {
		struct rsp_trace_summary s;

		rsp_trace_get_summary(t, &s);
		CHECK(!s.hostname[0] && s.file_records == file->records,
		      "with a 72-byte header: its records, no features (%llu records)",
		      (unsigned long long)s.file_records);
		rsp_trace_free(t);
	} else {
		CHECK(one_line(err), "with a 72-byte header: %s", err);
	}
	/* byte order from the attr size; anything else: not read */
	{
		uint64_t be = __builtin_bswap64(80), odd = 200;

		memcpy(v1.p + 16, &be, 8);
		got = describe_mem(v1.p, v1.n, err, sizeof(err));
		CHECK(!got && has(err, "big-endian"), "big-endian: %s", err);
		free(got);
		memcpy(v1.p + 16, &odd, 8);
		got = describe_mem(v1.p, v1.n, err, sizeof(err));
		CHECK(!got && has(err, "version 1 with a header"), "an unknown attr size: %s", err);
		free(got);
	}
	free(v1.p);
	free(v1nf.p);
	free(z.p);
}

/*
 * A file that decompresses to more than the process can hold: one line that
 * says so.  In a child whose address space is limited (the reader reserves
 * less), on a zstd stream of zeros; not under the sanitizers, whose shadow
 * memory needs the address space.
 */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZED 1
#endif
#endif

static void test_too_large(void)
{
#ifdef SANITIZED
	TAP_SKIP("too large: not under a sanitizer");
#else
	static unsigned char zeros[1 << 20];
	ZSTD_CCtx *c = ZSTD_createCCtx();
	size_t cap = 1 << 20;
	unsigned char *z = malloc(cap);
	ZSTD_outBuffer out = { z, cap, 0 };
	int status = -1;
	pid_t pid;

	/* 256 MB of zeros */
	for (int i = 0; i < 256; i++) {
		ZSTD_inBuffer zin = { zeros, sizeof(zeros), 0 };

		ZSTD_compressStream2(c, &out, &zin, i == 255 ? ZSTD_e_end : ZSTD_e_continue);
	}
	ZSTD_freeCCtx(c);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct rlimit rl = { 384u << 20, 384u << 20 };
		char err[512];
		char *d;

		setrlimit(RLIMIT_AS, &rl);
		d = describe_mem(z, out.pos, err, sizeof(err));
		printf("# %s\n", d ? "read" : err);
		fflush(stdout);
		_exit(!d && has(err, "decompresses to more than") && one_line(err) ? 0 : 1);
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
	if (status)
		printf("# child status %d\n", status);
	CHECK(status == 0, "256 MB of zeros (%zu bytes of zstd) in 384 MB of address space: refused "
			   "in one line",
	      out.pos);
	free(z);
#endif
}

int main(int argc, char **argv)
{
	struct buf real = { 0 };
	struct input in[4];
	size_t n = 0;

	argc = tap_init(argc, argv);
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	CHECK(argc > 1 && read_file(argv[1], &real), "the recording %s", argc > 1 ? argv[1] : "");
	if (real.n && input_make(&in[n], "pass.data", real))
		n++;
	if (input_make(&in[n], "synth-pipe", synthetic(false, false, 1500)))
		n++;
	if (input_make(&in[n], "synth-file", synthetic(true, false, 1500)))
		n++;
	if (input_make(&in[n], "synth-z", synthetic(false, true, 1500)))
		n++;
	for (size_t i = 0; i < n; i++) {
		char name[64];

#define CASE(what) (snprintf(name, sizeof(name), what "/%s", in[i].name), name)
		TAP_RUN(CASE("same"), test_same(&in[i]));
		TAP_RUN(CASE("cut"), test_cut(&in[i]));
		if (strcmp(in[i].name, "synth-z"))
			TAP_RUN(CASE("tails"), test_tails(&in[i]));
		if (!strcmp(in[i].name, "synth-pipe"))
			TAP_RUN(CASE("streams"), test_streams(&in[i]));
		if (!strcmp(in[i].name, "synth-file"))
			TAP_RUN(CASE("version1"), test_version1(&in[i]));
#undef CASE
	}
	if (n)
		TAP_RUN("named", test_named(in[0].raw));
	TAP_RUN("large", test_large());
	TAP_RUN("too_large", test_too_large());
	for (size_t i = 0; i < n; i++)
		input_free(&in[i]);
	{
		char cmd[256];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		if (system(cmd))
			printf("# could not remove %s\n", tmpdir);
	}
	return tap_done();
}
