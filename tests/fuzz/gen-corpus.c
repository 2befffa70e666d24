/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Seed files for the fuzz corpus: small synthetic streams of every layout. */
#include "synth-perf.h"

#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#define US(x) (1000000000ull + (uint64_t)(x) * 1000ull)

static void events(struct synth *s)
{
	const uint8_t lo[4] = { 127, 0, 0, 1 };
	uint64_t ips[2] = { 0xffffffff81000000ull, 0x401000 };

	synth_fork(s, 0, 100, 1, 100, 1);
	synth_comm(s, 0, 100, 100, "a", false);
	synth_switch(s, 0, US(10), 0, "swapper/0", 0, 100, "a");
	synth_waking(s, 0, US(20), 100, 0, 200, "b", 1, false, ips, 2);
	synth_switch(s, 0, US(21), 100, "a", 1, 0, "swapper/0");
	synth_block(s, SE_BLK_INSERT, 0, US(22), 100, 0, 8, 4096, 8, "W");
	synth_block(s, SE_BLK_COMPLETE, 1, US(30), 0, SYN_HARDIRQ, 8, 4096, 8, "W");
	synth_irq(s, SE_IRQ_ENTRY, 1, US(29), 25, "virtio0");
	synth_softirq(s, SE_SOFTIRQ_ENTRY, 1, US(31), 0, 4);
	synth_sock_state(s, 0, US(40), 100, 0x1000, lo, 1, lo, 2, 1);
	synth_sock_send(s, 0, US(41), 100, 0x1000, 2, 10);
	synth_sk_ready(s, 1, US(42), 0, SYN_SOFTIRQ, 0x2000, 2);
	synth_exec_tp(s, 0, US(50), 100, "/bin/true");
	synth_sample(s, 1, US(60), 200, 200, ips, 2);
	synth_lost(s, US(70), 1, 3);
	synth_round(s);
	synth_exit(s, US(80), 100, 100);
}

/* pipe-mode @in with its records after the header records as perf record -z
 * writes them: PERF_RECORD_COMPRESSED records of one zstd stream, cut every
 * @piece input bytes so that records straddle them */
static void *compressed(const unsigned char *in, size_t len, size_t piece, size_t *out_len)
{
	unsigned char *out = malloc(len * 2 + 65536);
	ZSTD_CCtx *z = ZSTD_createCCtx();
	size_t at = 16, n;

	if (!out || !z)
		return NULL;
	while (at + 8 <= len) {
		struct perf_event_header h;
		uint32_t skip = 0;

		memcpy(&h, in + at, sizeof(h));
		if (h.type < 64 || h.type == 68 || h.size < 8)
			break;
		if (h.type == 66)
			memcpy(&skip, in + at + 8, 4);
		at += h.size + skip;
	}
	memcpy(out, in, at);
	n = at;
	while (at < len) {
		size_t p = len - at < piece ? len - at : piece;
		ZSTD_inBuffer zi = { in + at, p, 0 };
		ZSTD_outBuffer zo = { out + n + 8, 65000, 0 };
		struct perf_event_header h = { .type = 81 };

		while (ZSTD_compressStream2(z, &zo, &zi, ZSTD_e_flush))
			;
		h.size = (uint16_t)(8 + zo.pos);
		memcpy(out + n, &h, 8);
		n += h.size;
		at += p;
	}
	ZSTD_freeCCtx(z);
	*out_len = n;
	return out;
}

int main(int argc, char **argv)
{
	struct synth_opts opts[4] = {
		{ 0 },
		{ .file_mode = true },
		{ .int_prev_state = true, .second_waking_attr = true },
		{ .no_tracing_data = true },
	};
	const char *dir = argc > 1 ? argv[1] : ".";

	for (int i = 0; i < 4; i++) {
		struct synth *s = synth_new(&opts[i]);
		char path[4096];
		size_t len;
		const void *buf;
		FILE *f;

		events(s);
		buf = synth_finish(s, &len);
		snprintf(path, sizeof(path), "%s/synth-%d.data", dir, i);
		f = fopen(path, "wb");
		if (!f || fwrite(buf, 1, len, f) != len) {
			perror(path);
			return 1;
		}
		fclose(f);
		if (i == 0) {
			/* and the same compressed, as perf record -z and rsp record write it */
			size_t zlen;
			void *z = compressed(buf, len, 256, &zlen);

			snprintf(path, sizeof(path), "%s/synth-compressed.data", dir);
			f = fopen(path, "wb");
			if (!z || !f || fwrite(z, 1, zlen, f) != zlen) {
				perror(path);
				return 1;
			}
			fclose(f);
			free(z);
		}
		synth_free(s);
	}
	return 0;
}
