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
#include "read/tracedata.h"

#include <errno.h>

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

/*
 * A one-attr pipe stream of @sample_type (its header and attr only), open and
 * scanned: its samples are parsed against it.
 */
static struct rsp_reader *reader_of_type(uint64_t sample_type, unsigned char *buf, size_t cap)
{
	struct perf_event_attr a;
	struct perf_event_header h = { RSP_PF_RECORD_HEADER_ATTR, 0, 0 };
	uint64_t magic = RSP_PF_MAGIC, size = 16, id = 7;
	struct rsp_reader *r = NULL;
	char err[256];
	size_t n = 0;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_TRACEPOINT;
	a.size = sizeof(a);
	a.sample_type = sample_type;
	a.sample_id_all = 1;
	h.size = (uint16_t)(sizeof(h) + sizeof(a) + sizeof(id));
	if (cap < 16 + h.size)
		return NULL;
	memcpy(buf + n, &magic, 8), n += 8;
	memcpy(buf + n, &size, 8), n += 8;
	memcpy(buf + n, &h, sizeof(h)), n += sizeof(h);
	memcpy(buf + n, &a, sizeof(a)), n += sizeof(a);
	memcpy(buf + n, &id, sizeof(id)), n += sizeof(id);
	if (rsp_reader_open_mem(buf, n, &r, err, sizeof(err)) ||
	    rsp_reader_scan(r, NULL, NULL, err, sizeof(err)) || rsp_reader_n_attrs(r) != 1) {
		rsp_reader_free(r);
		return NULL;
	}
	return r;
}

/*
 * Samples of every layout of fixed words (sample_type's bits before the
 * callchain in any combination, a tracepoint's RAW after them or not): each
 * field read where perf writes it (read fast, by its place), as the walk of
 * sample_type reads it; a sample cut anywhere, or a RAW size past its end,
 * refused either way.
 */
static void test_fixed_layouts(void)
{
	static const uint64_t bits[] = { PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP, PERF_SAMPLE_TID,
					 PERF_SAMPLE_TIME, PERF_SAMPLE_ADDR, PERF_SAMPLE_ID,
					 PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU,
					 PERF_SAMPLE_PERIOD };
	static const unsigned char raw[12] = "tracepoint!";
	size_t layouts = 0, wrong = 0, cuts = 0, cut_wrong = 0, fast = 0;

	for (unsigned mask = 1; mask < 1u << 10; mask++) {
		uint64_t st = mask & 512 ? PERF_SAMPLE_RAW : 0, v[16], want_id = 0;
		_Alignas(8) unsigned char stream[256], rec[256];
		struct perf_event_header h = { PERF_RECORD_SAMPLE, 0, 0 };
		struct rsp_reader *r;
		struct rsp_sample s, g;
		size_t n = sizeof(h), w = 0;
		struct rsp_rattr *ra;
		uint8_t fixed;
		int ret;

		for (int b = 0; b < 9; b++)
			if (mask & 1u << b)
				st |= bits[b];
		if (!(r = reader_of_type(st, stream, sizeof(stream)))) {
			wrong++;
			continue;
		}
		layouts++;
		/* each word its own value: 0x100 * (its bit's place + 1) + its place in the record */
		for (int b = 0; b < 9; b++)
			if (st & bits[b]) {
				v[w] = 0x100u * (unsigned)(b + 1) + w;
				if (bits[b] == PERF_SAMPLE_TID)
					v[w] = (uint64_t)(1000 + w) << 32 | (2000 + w);
				if (bits[b] == PERF_SAMPLE_IDENTIFIER || bits[b] == PERF_SAMPLE_ID)
					want_id = v[w]; /* ID's after IDENTIFIER's: the one read last */
				memcpy(rec + n, &v[w], 8);
				n += 8;
				w++;
			}
		if (st & PERF_SAMPLE_RAW) {
			uint32_t sz = sizeof(raw);

			memcpy(rec + n, &sz, 4);
			memcpy(rec + n + 4, raw, sz);
			n += 4 + sz; /* 4 + 12: aligned */
		}
		h.size = (uint16_t)n;
		memcpy(rec, &h, sizeof(h));
		ret = rsp_reader_parse_sample((struct rsp_reader *)r, (const void *)rec, &s);
		ra = (struct rsp_rattr *)rsp_reader_attr(r, 0);
		fast += ra->fixed_words != 0;
		wrong += ret != 0 || s.id != want_id ||
			 ((st & PERF_SAMPLE_TIME) && (!s.has_time || s.time != 0x400u + (uint64_t)ra->time_pos)) ||
			 ((st & PERF_SAMPLE_CPU) && (!s.has_cpu || s.cpu != 0x800u + (uint32_t)ra->cpu_pos)) ||
			 ((st & PERF_SAMPLE_TID) && (!s.has_tid || s.tid < 1000 || s.pid != s.tid + 1000)) ||
			 (!!(st & PERF_SAMPLE_RAW) != !!s.raw) ||
			 (s.raw && (s.raw_size != sizeof(raw) || memcmp(s.raw, raw, sizeof(raw))));
		/* the same as the walk of sample_type, whole and cut at every 4 bytes */
		fixed = ra->fixed_words;
		for (size_t cut = 8; cut <= n; cut += 4) {
			int rf, rg;

			h.size = (uint16_t)cut;
			memcpy(rec, &h, sizeof(h));
			rf = rsp_reader_parse_sample(r, (const void *)rec, &s);
			ra->fixed_words = 0;
			rg = rsp_reader_parse_sample(r, (const void *)rec, &g);
			ra->fixed_words = fixed;
			cuts++;
			cut_wrong += rf != rg || (rf == 0) != (cut == n) ||
				     (!rf && (s.id != g.id || s.ip != g.ip || s.time != g.time ||
					      s.addr != g.addr || s.period != g.period ||
					      s.pid != g.pid || s.tid != g.tid || s.cpu != g.cpu ||
					      s.raw != g.raw || s.raw_size != g.raw_size ||
					      s.has_time != g.has_time || s.has_cpu != g.has_cpu ||
					      s.has_tid != g.has_tid));
		}
		/* a RAW size past the record's end */
		if (st & PERF_SAMPLE_RAW) {
			uint32_t sz = sizeof(raw) + 8;

			h.size = (uint16_t)n;
			memcpy(rec, &h, sizeof(h));
			memcpy(rec + n - 4 - sizeof(raw), &sz, 4);
			cuts++;
			cut_wrong += rsp_reader_parse_sample(r, (const void *)rec, &s) != -EINVAL;
		}
		rsp_reader_free(r);
	}
	/* every layout but RAW alone (no fixed word: read by the walk) */
	CHECK(layouts == 1023 && fast == 1022 && wrong == 0,
	      "samples of fixed words: %zu layouts (%zu read by their places), %zu read wrong",
	      layouts, fast, wrong);
	CHECK(cut_wrong == 0, "the same read by places as by sample_type's walk, %zu samples cut "
	      "or with a RAW size past their end: %zu differ", cuts, cut_wrong);
}

/*
 * A tracepoint's integer fields read by their size and sign (rsp_field_u64()):
 * each of 1, 2, 4 and 8 bytes, signed or not; none past the payload's end,
 * none of a dynamic field or an array of another size, none of a field not
 * in the format.
 */
static void test_field_loads(void)
{
	static const char fmt[] =
		"name: loads\nID: 900\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:unsigned char u8;\toffset:8;\tsize:1;\tsigned:0;\n"
		"\tfield:signed char s8;\toffset:9;\tsize:1;\tsigned:1;\n"
		"\tfield:unsigned short u16;\toffset:10;\tsize:2;\tsigned:0;\n"
		"\tfield:short s16;\toffset:12;\tsize:2;\tsigned:1;\n"
		"\tfield:unsigned int u32;\toffset:16;\tsize:4;\tsigned:0;\n"
		"\tfield:int s32;\toffset:20;\tsize:4;\tsigned:1;\n"
		"\tfield:unsigned long u64;\toffset:24;\tsize:8;\tsigned:0;\n"
		"\tfield:long s64;\toffset:32;\tsize:8;\tsigned:1;\n"
		"\tfield:char three[3];\toffset:40;\tsize:3;\tsigned:0;\n"
		"\tfield:__data_loc char[] name;\toffset:44;\tsize:4;\tsigned:0;\n\n"
		"print fmt: \"%d\", REC->s32\n";
	static const struct {
		const char *name;
		uint64_t want;
	} f[] = {
		{ "u8", 0xffu }, { "s8", (uint64_t)-1 }, { "u16", 0xfffeu }, { "s16", (uint64_t)-2 },
		{ "u32", 0xfffffffdu }, { "s32", (uint64_t)-3 }, { "u64", 0xfffffffffffffffcull },
		{ "s64", (uint64_t)-4 },
	};
	struct tep_handle *tep = tep_alloc();
	struct tep_event *ev = NULL;
	_Alignas(8) unsigned char raw[48];
	struct rsp_field fl;
	size_t wrong = 0;
	uint64_t v, w;

	memset(raw, 0, sizeof(raw));
	raw[8] = 0xff, raw[9] = 0xff;
	w = 0xfffe, memcpy(raw + 10, &w, 2);
	w = 0xfffe, memcpy(raw + 12, &w, 2);
	w = 0xfffffffd, memcpy(raw + 16, &w, 4);
	w = 0xfffffffd, memcpy(raw + 20, &w, 4);
	w = 0xfffffffffffffffcull, memcpy(raw + 24, &w, 8);
	memcpy(raw + 32, &w, 8);
	if (!tep || tep_parse_format(tep, &ev, fmt, sizeof(fmt) - 1, "test") || !ev) {
		CHECK(false, "the test's format parses");
		tep_free(tep);
		return;
	}
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		/* the unsigned ones read as their bits, the signed ones sign-extended */
		uint64_t want = f[i].want;

		v = 12345;
		wrong += rsp_field_resolve(ev, f[i].name, &fl) || !rsp_field_u64(&fl, raw, 40, &v) ||
			 v != want;
		/* one byte short of its end: not read */
		wrong += rsp_field_u64(&fl, raw, fl.offset + fl.size - 1, &v);
		wrong += !rsp_field_u64(&fl, raw, fl.offset + fl.size, &v) || v != want;
	}
	wrong += rsp_field_resolve(ev, "three", &fl) || rsp_field_u64(&fl, raw, 48, &v);
	wrong += rsp_field_resolve(ev, "name", &fl) || rsp_field_u64(&fl, raw, 48, &v);
	wrong += !rsp_field_resolve(ev, "absent", &fl) || rsp_field_u64(&fl, raw, 48, &v);
	CHECK(wrong == 0, "integer fields by size and sign, bounds, arrays, dynamic and absent "
	      "fields: %zu wrong", wrong);
	tep_free(tep);
}

int main(int argc, char **argv)
{
	tap_init(argc, argv);
	TAP_RUN("layouts", test_layouts());
	TAP_RUN("fixed_layouts", test_fixed_layouts());
	TAP_RUN("field_loads", test_field_loads());
	TAP_RUN("truncated_and_garbage", test_truncated_and_garbage());
	TAP_RUN("compressed", test_compressed());
	TAP_RUN("compressed_interleaved", test_compressed_interleaved());
	TAP_RUN("compressed_framed", test_compressed_framed());
	TAP_RUN("tracing_data_records", test_tracing_data_records());
	TAP_RUN("payload_past_end", test_payload_past_end());
	TAP_RUN("cut_offset_compressed", test_cut_offset_compressed());
	return tap_done();
}
