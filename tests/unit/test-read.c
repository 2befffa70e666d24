/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading synthetic perf.data streams: both layouts (file mode, pipe mode),
 * compressed streams (perf record -z's one zstd stream, with or without
 * uncompressed round records between its records; rsp record's frames),
 * tracing data and other payload-carrying records among the records, and
 * cut, broken or garbage files.  Times are in microseconds from 1 s (US()).
 */
#include "trace-check.h"

#include "rsp-perf-format.h"

static void test_compressed(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace_opts o = { .no_symbols = true };
	struct rsp_trace *t = NULL;
	const unsigned char *buf;
	unsigned char *z;
	size_t len, zlen;
	char err[256];

	pingpong_events(s);
	buf = synth_finish(s, &len);
	/* 100-byte pieces: most records straddle two compressed records */
	z = synth_compress(buf, len, 100, false, &zlen);
	CHECK(rsp_trace_open_mem(z, zlen, &o, &t, err, sizeof(err)) == 0 && t,
	      "a compressed stream opens (%s)", t ? "" : err);
	if (t) {
		struct rsp_trace_summary sum;

		check_pingpong(t, "compressed");
		rsp_trace_get_summary(t, &sum);
		CHECK(!sum.truncated && sum.start_ns == US(1000) && sum.end_ns == US(1400),
		      "compressed: whole, same time span");
		rsp_trace_free(t);
		t = NULL;
	}
	free(z);
	/* a compressed record that does not decompress: read up to it */
	z = synth_compress(buf, len, 400, true, &zlen);
	CHECK(rsp_trace_open_mem(z, zlen, &o, &t, err, sizeof(err)) == 0 && t,
	      "a broken compressed stream opens (%s)", t ? "" : err);
	if (t) {
		struct rsp_trace_summary sum;

		rsp_trace_get_summary(t, &sum);
		CHECK(sum.truncated, "and says it was cut short");
		rsp_trace_free(t);
	}
	free(z);
	synth_free(s);
}

/* The records of a reader's stream, each as (offset into @img, size). */
struct recs {
	const unsigned char *p[4096];
	size_t n;
};

static int collect(void *ctx, const struct rsp_record *rec)
{
	struct recs *r = ctx;

	if (r->n < 4096)
		r->p[r->n++] = (const unsigned char *)rec->h;
	return 0;
}

/* The bytes a record carries after itself: TRACING_DATA's. */
static size_t payload(const unsigned char *rec, const struct perf_event_header *h)
{
	uint32_t n = 0;

	if (h->type == RSP_PF_RECORD_HEADER_TRACING_DATA && h->size >= 12)
		memcpy(&n, rec + 8, 4);
	return n;
}

/*
 * perf record -z writes uncompressed FINISHED_ROUND records between the
 * compressed ones while a record straddles two of them: the inflated stream
 * holds every original record whole and in order, and each round record
 * right after the last record the compressed bytes before it finished.
 */
static void test_compressed_interleaved(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_reader *r = NULL;
	const unsigned char *buf;
	unsigned char *z;
	size_t len, zlen, piece = 100, at, start, rounds = 0, same = 0;
	struct recs got = { .n = 0 };
	char err[256];
	bool order = true;

	pingpong_events(s);
	buf = synth_finish(s, &len);
	z = synth_compress_ex(buf, len, piece, false, true, &zlen);
	CHECK(z && rsp_reader_open_mem(z, zlen, &r, err, sizeof(err)) == 0 && r,
	      "an interleaved compressed stream opens (%s)", r ? "" : err);
	if (!r) {
		free(z);
		synth_free(s);
		return;
	}
	rsp_reader_scan(r, collect, &got, err, sizeof(err));
	/* where synth_compress starts compressing: after the header records */
	start = sizeof(struct rsp_pf_pipe_header);
	while (start + 8 <= len) {
		struct perf_event_header h;

		memcpy(&h, buf + start, sizeof(h));
		if (h.type < 64 || h.type == RSP_PF_RECORD_FINISHED_ROUND)
			break;
		start += h.size + payload(buf + start, &h);
	}
	at = sizeof(struct rsp_pf_pipe_header);
	for (size_t i = 0; i < got.n && order; i++) {
		struct perf_event_header g, h = { 0 };
		uint64_t mark = 0;

		memcpy(&g, got.p[i], sizeof(g));
		if (at + 8 <= len)
			memcpy(&h, buf + at, sizeof(h));
		if (g.size == 16)
			memcpy(&mark, got.p[i] + 8, 8);
		if (g.type == RSP_PF_RECORD_FINISHED_ROUND && g.size == 16 &&
		    (mark & ~0xffffull) == SYNTH_ROUND_MARK) {
			/* after compressed record k, the original is inflated up to cut */
			size_t cut = start + ((size_t)(mark & 0xffff) + 1) * piece;

			order = at <= cut && (at == len || at + h.size > cut);
			rounds++;
			continue;
		}
		order = at < len && g.size == h.size && !memcmp(got.p[i], buf + at, h.size);
		same += order;
		at += h.size + payload(buf + at, &h);
	}
	CHECK(order && at == len, "every original record whole, in order, each round record "
				  "right after the records finished before it (%zu records)", same);
	CHECK(rounds == (len - start + piece - 1) / piece - 1, "all %zu round records kept",
	      rounds);
	rsp_reader_free(r);
	free(z);
	synth_free(s);
}

/*
 * rsp record's compressed streams: a zstd frame ends at a record boundary
 * every so many bytes, and the reader inflates one frame at a time (loading
 * holds only the frames time order interleaves).  The same timeline; a
 * broken frame or a cut file is read up to the break.
 */
static void test_compressed_framed(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace *t;
	unsigned char *z = NULL;
	size_t segs = 0;
	char err[256];

	pingpong_events(s);
	/* pieces of 100 bytes (records straddle compressed records), frames of about 300 */
	t = open_framed(s, 100, 300, false, &segs, &z, err, sizeof(err));
	CHECK(t && segs >= 3, "a stream in %zu frames opens (%s)", segs, t ? "" : err);
	if (t) {
		struct rsp_trace_summary sum;

		check_pingpong(t, "framed");
		rsp_trace_get_summary(t, &sum);
		CHECK(!sum.truncated && sum.start_ns == US(1000) &&
			      sum.end_ns == US(1400),
		      "framed: whole, same time span");
		rsp_trace_free(t);
	}
	free(z);
	t = open_framed(s, 100, 300, true, &segs, &z, err, sizeof(err));
	CHECK(t != NULL, "a stream with a broken frame opens (%s)", t ? "" : err);
	if (t) {
		struct rsp_trace_summary sum;

		rsp_trace_get_summary(t, &sum);
		CHECK(sum.truncated, "and says it was cut short");
		rsp_trace_free(t);
	}
	free(z);
	{
		struct rsp_trace_opts o = { .no_symbols = true };
		size_t len, zlen;
		const void *buf = synth_finish(s, &len);

		z = synth_compress_framed(buf, len, 100, 300, false, &zlen);
		t = NULL;
		/* cut inside the last compressed record: everything before it is read */
		CHECK(z && rsp_trace_open_mem(z, zlen - 5, &o, &t, err, sizeof(err)) == 0 && t,
		      "a framed stream cut short opens (%s)", t ? "" : err);
		if (t) {
			struct rsp_trace_summary sum;

			rsp_trace_get_summary(t, &sum);
			CHECK(sum.truncated && dump(t, 100)[0] == 'S', "and says so, with what it read");
			rsp_trace_free(t);
		}
		free(z);
	}
	synth_free(s);
}

/* @t (if it opened): the ping-pong, read whole; then freed. */
static void check_pingpong_whole(struct rsp_trace *t, const char *how)
{
	struct rsp_trace_summary sum;

	if (!t)
		return;
	check_pingpong(t, how);
	rsp_trace_get_summary(t, &sum);
	CHECK(!sum.truncated, "and it is read whole");
	rsp_trace_free(t);
}

/*
 * Tracing data found among the records: the first is kept (a later broken
 * one changes nothing, and the loader's set-up may already be reading the
 * first); one inside a compressed frame is read though the frame's buffer is
 * reused for the next.
 */
static void test_tracing_data_records(void)
{
	char err[256];

	for (int feature = 0; feature < 2; feature++) {
		struct synth *s = synth_new(NULL);
		struct rsp_trace *t;

		pingpong_events(s);
		synth_tracing_data_record(s, feature, true);
		synth_round(s);
		t = open_synth(s, err, sizeof(err));
		CHECK(t != NULL, "a stream with a second, broken %s record opens (%s)",
		      feature ? "tracing-data feature" : "tracing-data", t ? "" : err);
		if (t) {
			const char *bad = "";

			check_pingpong(t, feature ? "a later feature record" : "a later record");
			for (size_t i = 0; i < rsp_trace_n_warnings(t); i++)
				if (strstr(rsp_trace_warning(t, i), "cannot be decoded"))
					bad = rsp_trace_warning(t, i);
			CHECK(!bad[0], "and decodes the fields (%s)", bad);
			rsp_trace_free(t);
		}
		synth_free(s);
	}
	/* 0, 1: the formats in a record (as HEADER_FEATURE, as TRACING_DATA and its
	 * payload); 2: an AUXTRACE record and its payload among the others */
	for (int v = 0; v < 3; v++) {
		static const char *const what[] = { "tracing data (feature)",
						    "tracing data (record and payload)",
						    "an AUXTRACE record and payload" };
		struct synth_opts o = { .no_tracing_data = v < 2 };
		struct synth *s = synth_new(&o);
		struct rsp_trace *t;
		unsigned char *z = NULL;
		size_t segs = 0;

		synth_round(s); /* ends the header records: what follows is compressed */
		if (v < 2)
			synth_tracing_data_record(s, v == 0, false);
		else
			synth_auxtrace(s, 1000);
		pingpong_events(s);
		t = open_framed(s, 100, 300, false, &segs, &z, err, sizeof(err));
		CHECK(t && segs >= 3, "%s in the first of %zu frames: opens (%s)", what[v], segs,
		      t ? "" : err);
		check_pingpong_whole(t, what[v]);
		free(z);
		/* and in perf record -z's one zstd stream, inflated whole */
		{
			struct rsp_trace_opts o2 = { .no_symbols = true };
			size_t len, zlen;
			const void *buf = synth_finish(s, &len);

			z = synth_compress(buf, len, 100, false, &zlen);
			t = NULL;
			CHECK(z && rsp_trace_open_mem(z, zlen, &o2, &t, err, sizeof(err)) == 0 && t,
			      "%s in one zstd stream: opens (%s)", what[v], t ? "" : err);
			check_pingpong_whole(t, what[v]);
			free(z);
		}
		synth_free(s);
	}
}

/* The offsets of a pipe-mode stream's top-level records of @type: at most @max into @at. */
static size_t records_of_type(const unsigned char *b, size_t len, uint32_t type, size_t *at,
			      size_t max)
{
	size_t n = 0;

	for (size_t p = sizeof(struct rsp_pf_pipe_header); p + 8 <= len && n < max;) {
		struct perf_event_header h;
		uint64_t payload = 0; /* TRACING_DATA's, AUXTRACE's follows the record */

		memcpy(&h, b + p, sizeof(h));
		if (h.size < 8 || h.size > len - p)
			break;
		if (h.type == type)
			at[n++] = p;
		if (h.type == RSP_PF_RECORD_HEADER_TRACING_DATA)
			memcpy(&payload, b + p + 8, 4);
		else if (h.type == RSP_PF_RECORD_AUXTRACE)
			memcpy(&payload, b + p + 8, 8);
		if (payload > len - p - h.size)
			break;
		p += h.size + payload;
	}
	return n;
}

/*
 * An AUXTRACE record in perf record -z's one zstd stream whose payload size
 * runs past the end: what follows is lost, and the trace says it was cut.
 */
static void test_payload_past_end(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace_opts o = { .no_symbols = true };
	struct rsp_trace *t = NULL;
	unsigned char *buf, *z;
	const void *in;
	size_t len, zlen, at = 0;
	char err[256];

	synth_round(s);
	synth_auxtrace(s, 1000);
	pingpong_events(s);
	in = synth_finish(s, &len);
	buf = malloc(len);
	memcpy(buf, in, len);
	/* the AUXTRACE record: its size field says 1 TB */
	CHECK(records_of_type(buf, len, RSP_PF_RECORD_AUXTRACE, &at, 1) == 1,
	      "the stream has its AUXTRACE record");
	if (at) {
		uint64_t huge = 1ull << 40;

		memcpy(buf + at + 8, &huge, 8);
	}
	z = synth_compress(buf, len, 100, false, &zlen);
	if (z && rsp_trace_open_mem(z, zlen, &o, &t, err, sizeof(err)))
		t = NULL;
	CHECK(t != NULL, "a payload past the end of one zstd stream: opens (%s)", t ? "" : err);
	if (t) {
		struct rsp_trace_summary sum;

		rsp_trace_get_summary(t, &sum);
		CHECK(sum.truncated, "and says it was cut");
		rsp_trace_free(t);
	}
	free(z);
	free(buf);
	synth_free(s);
}

static int count_record(void *ctx, const struct rsp_record *rec)
{
	(void)rec;
	++*(size_t *)ctx;
	return 0;
}

/*
 * perf record -z's one zstd stream, cut inside a compressed record: the cut
 * is told at a byte of the file (a compressed record's start, at or before
 * the cut), not of the inflated image.
 */
static void test_cut_offset_compressed(void)
{
	struct synth *s = synth_new(NULL);
	const void *in;
	unsigned char *z;
	size_t len, zlen, starts[4096], n = 0, bad = 0, cuts = 0;

	pingpong_events(s);
	for (int i = 0; i < 40; i++)
		pingpong_events(s);
	in = synth_finish(s, &len);
	z = synth_compress_ex(in, len, 100, false, true, &zlen);
	if (z)
		n = records_of_type(z, zlen, RSP_PF_RECORD_COMPRESSED, starts, 4096);
	CHECK(n > 10, "the stream has %zu compressed records", n);
	for (size_t k = 2; k < n; k += 3) {
		struct rsp_reader *r = NULL;
		char err[256];
		/* into the record's payload, or (every other one) into its header */
		size_t recs = 0, cut = starts[k] + (k % 2 ? 4 : 12);
		const struct rsp_reader_info *ri;
		bool at_start = false;

		if (rsp_reader_open_mem(z, cut, &r, err, sizeof(err)) ||
		    rsp_reader_scan(r, count_record, &recs, err, sizeof(err))) {
			rsp_reader_free(r);
			bad++;
			continue;
		}
		ri = rsp_reader_info(r);
		for (size_t i = 0; i < n; i++)
			at_start |= ri->truncated_at == starts[i];
		cuts++;
		if (!ri->truncated || ri->truncated_at > cut || !at_start) {
			if (!bad)
				printf("# cut at %zu: truncated %d at %llu\n", cut, ri->truncated,
				       (unsigned long long)ri->truncated_at);
			bad++;
		}
		rsp_reader_free(r);
	}
	CHECK(cuts > 3 && !bad,
	      "cut inside a compressed record (%zu cuts): told at a compressed record's start "
	      "at or before the cut (%zu wrong)",
	      cuts, bad);
	free(z);
	synth_free(s);
}

static void test_layouts(void)
{
	struct synth_opts o1 = { .file_mode = true };
	struct synth_opts o2 = { .int_prev_state = true };
	struct synth_opts o3 = { .file_mode = true, .int_prev_state = true };
	const struct synth_opts *opts[] = { &o1, &o2, &o3 };
	const char *names[] = { "file mode", "int prev_state", "file mode + int prev_state" };

	for (int i = 0; i < 3; i++) {
		struct synth *s = synth_new(opts[i]);
		char err[256];
		struct rsp_trace *t;

		pingpong_events(s);
		t = open_synth(s, err, sizeof(err));
		CHECK(t != NULL, "%s opens (%s)", names[i], t ? "" : err);
		if (t) {
			struct rsp_trace_summary sum;

			check_pingpong(t, names[i]);
			rsp_trace_get_summary(t, &sum);
			CHECK(sum.pipe_mode == !opts[i]->file_mode, "%s: layout detected",
			      names[i]);
			rsp_trace_free(t);
		}
		synth_free(s);
	}
}

static void test_truncated_and_garbage(void)
{
	struct synth *s = synth_new(NULL);
	struct rsp_trace_opts o = { .no_symbols = true };
	struct rsp_trace *t = NULL;
	size_t len;
	const unsigned char *buf;
	char err[256];
	unsigned char junk[4096];
	int ret;

	pingpong_events(s);
	buf = synth_finish(s, &len);
	/* cut in the middle of the last record */
	ret = rsp_trace_open_mem(buf, len - 20, &o, &t, err, sizeof(err));
	CHECK(ret == 0 && t, "a cut file opens (%s)", ret ? err : "");
	if (t) {
		struct rsp_trace_summary sum;
		int warned = 0;

		rsp_trace_get_summary(t, &sum);
		for (size_t i = 0; i < rsp_trace_n_warnings(t); i++)
			warned |= strstr(rsp_trace_warning(t, i), "cut short") != NULL;
		CHECK(sum.truncated && warned, "and says it was cut short");
		CHECK_STR(dump(t, 100), "S1000-1000 R1000-1101 S1101-1201 R1201-1301 S1301-1301",
			  "everything before the cut is there");
		rsp_trace_free(t);
	}
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (unsigned char)(i * 7919u >> 3);
	ret = rsp_trace_open_mem(junk, sizeof(junk), &o, &t, err, sizeof(err));
	CHECK(ret < 0 && strstr(err, "not a perf.data file"), "garbage: '%s'", err);
	ret = rsp_trace_open_mem(buf, 10, &o, &t, err, sizeof(err));
	CHECK(ret < 0 && strstr(err, "only 10 bytes"), "10 bytes: '%s'", err);
	ret = rsp_trace_open("/nonexistent/x.data", &o, &t, err, sizeof(err));
	CHECK(ret < 0 && strstr(err, "no such file"), "missing file: '%s'", err);
	ret = rsp_trace_open("/etc", &o, &t, err, sizeof(err));
	CHECK(ret < 0 && strstr(err, "not a regular file"), "a directory: '%s'", err);
	synth_free(s);
}

int main(void)
{
	test_layouts();
	test_truncated_and_garbage();
	test_compressed();
	test_compressed_interleaved();
	test_compressed_framed();
	test_tracing_data_records();
	test_payload_past_end();
	test_cut_offset_compressed();
	return tap_done();
}
