/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A synthetic pipe-mode stream compressed (synth-perf.h): as perf record -z
 * writes it (one zstd stream cut into PERF_RECORD_COMPRESSED records, round
 * records between them or not) and as rsp record writes it (a zstd frame
 * ending at a record boundary every so many bytes); a byte flipped on demand.
 */
#include "synth-perf.h"

#include "rsp-perf-format.h"

#include <stdlib.h>
#include <string.h>
#include <zstd.h>

unsigned char *synth_compress(const void *in, size_t len, size_t piece, bool corrupt,
			      size_t *out_len)
{
	return synth_compress_ex(in, len, piece, corrupt, false, out_len);
}

unsigned char *synth_compress_ex(const void *in_, size_t len, size_t piece, bool corrupt,
				 bool interleave, size_t *out_len)
{
	const unsigned char *in = in_;
	unsigned char *out = malloc(len * 3 + 65536);
	ZSTD_CCtx *z = ZSTD_createCCtx();
	size_t at = sizeof(struct rsp_pf_pipe_header), n, k = 0;

	if (!out || !z) {
		free(out);
		ZSTD_freeCCtx(z);
		return NULL;
	}
	/* the header records stay as they are */
	while (at + 8 <= len) {
		struct perf_event_header h;
		uint32_t skip = 0;

		memcpy(&h, in + at, sizeof(h));
		if (h.type < 64 || h.type == RSP_PF_RECORD_FINISHED_ROUND || h.size < 8)
			break;
		if (h.type == RSP_PF_RECORD_HEADER_TRACING_DATA)
			memcpy(&skip, in + at + 8, 4);
		at += h.size + skip;
	}
	memcpy(out, in, at);
	n = at;
	while (at < len) {
		size_t p = len - at < piece ? len - at : piece;
		ZSTD_inBuffer zi = { in + at, p, 0 };
		ZSTD_outBuffer zo = { out + n + 8, 65000, 0 };
		struct perf_event_header h = { .type = RSP_PF_RECORD_COMPRESSED };

		while (ZSTD_compressStream2(z, &zo, &zi, ZSTD_e_flush))
			;
		h.size = (uint16_t)(8 + zo.pos);
		memcpy(out + n, &h, 8);
		if (corrupt && k == 1)
			out[n + 8 + zo.pos / 2] ^= 0x5a;
		n += h.size;
		at += p;
		if (interleave && at < len) {
			/* as perf -z: an uncompressed FINISHED_ROUND between compressed records */
			struct perf_event_header fr = { .type = RSP_PF_RECORD_FINISHED_ROUND,
							.size = 16 };
			uint64_t mark = SYNTH_ROUND_MARK | k;

			memcpy(out + n, &fr, 8);
			memcpy(out + n + 8, &mark, 8);
			n += 16;
		}
		k++;
	}
	ZSTD_freeCCtx(z);
	*out_len = n;
	return out;
}

unsigned char *synth_compress_framed(const void *in_, size_t len, size_t piece, size_t frame,
				     bool corrupt, size_t *out_len)
{
	const unsigned char *in = in_;
	unsigned char *out = malloc(len * 3 + 65536);
	ZSTD_CCtx *z = ZSTD_createCCtx();
	size_t at = sizeof(struct rsp_pf_pipe_header), n, k = 0, in_frame = 0, rec;

	if (!out || !z) {
		free(out);
		ZSTD_freeCCtx(z);
		return NULL;
	}
	while (at + 8 <= len) {
		struct perf_event_header h;
		uint32_t skip = 0;

		memcpy(&h, in + at, sizeof(h));
		if (h.type < 64 || h.type == RSP_PF_RECORD_FINISHED_ROUND || h.size < 8)
			break;
		if (h.type == RSP_PF_RECORD_HEADER_TRACING_DATA)
			memcpy(&skip, in + at + 8, 4);
		at += h.size + skip;
	}
	memcpy(out, in, at);
	n = at;
	rec = at;
	while (at < len) {
		size_t p = len - at < piece ? len - at : piece;
		ZSTD_EndDirective how = ZSTD_e_flush;
		ZSTD_outBuffer zo = { out + n + 8, 65000, 0 };
		struct perf_event_header h = { .type = RSP_PF_RECORD_COMPRESSED };
		ZSTD_inBuffer zi;

		if (in_frame + p >= frame) {
			/* as rsp record's writer: the frame ends at the first boundary past its size */
			size_t want = at + (in_frame < frame ? frame - in_frame : 0);

			while (rec < want && rec < len) {
				struct perf_event_header rh;
				uint64_t payload = 0; /* TRACING_DATA's, AUXTRACE's follows the record */

				memcpy(&rh, in + rec, sizeof(rh));
				if (rh.type == RSP_PF_RECORD_HEADER_TRACING_DATA)
					memcpy(&payload, in + rec + 8, 4);
				else if (rh.type == RSP_PF_RECORD_AUXTRACE)
					memcpy(&payload, in + rec + 8, 8);
				rec += rh.size + payload;
			}
			if (rec > at && rec <= at + p) {
				p = rec - at;
				how = ZSTD_e_end;
			}
		}
		zi = (ZSTD_inBuffer){ in + at, p, 0 };
		while (ZSTD_compressStream2(z, &zo, &zi, how))
			;
		h.size = (uint16_t)(8 + zo.pos);
		memcpy(out + n, &h, 8);
		if (corrupt && k == 1)
			out[n + 8 + zo.pos / 2] ^= 0x5a;
		n += h.size;
		at += p;
		in_frame = how == ZSTD_e_end ? 0 : in_frame + p;
		k++;
	}
	ZSTD_freeCCtx(z);
	*out_len = n;
	return out;
}
