/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Seed files for the fuzz corpus: small synthetic streams of every layout. */
#include "synth-perf.h"

#include <linux/perf_event.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define US(x) (1000000000ull + (uint64_t)(x) * 1000ull)
#define UB(x) (US(x) + base)

/* The events below, @base ns later */
static void events_at(struct synth *s, uint64_t base)
{
	const uint8_t lo[4] = { 127, 0, 0, 1 };
	uint64_t ips[2] = { 0xffffffff81000000ull, 0x401000 };

	synth_fork(s, base, 100, 1, 100, 1);
	synth_comm(s, base, 100, 100, "a", false);
	synth_switch(s, 0, UB(10), 0, "swapper/0", 0, 100, "a");
	synth_waking(s, 0, UB(20), 100, 0, 200, "b", 1, false, ips, 2);
	synth_switch(s, 0, UB(21), 100, "a", 1, 0, "swapper/0");
	synth_block(s, SE_BLK_INSERT, 0, UB(22), 100, 0, 8, 4096, 8, "W");
	synth_block(s, SE_BLK_COMPLETE, 1, UB(30), 0, SYN_HARDIRQ, 8, 4096, 8, "W");
	synth_irq(s, SE_IRQ_ENTRY, 1, UB(29), 25, "virtio0");
	synth_softirq(s, SE_SOFTIRQ_ENTRY, 1, UB(31), 0, 4);
	synth_sock_state(s, 0, UB(40), 100, 0x1000, lo, 1, lo, 2, 1);
	synth_sock_send(s, 0, UB(41), 100, 0x1000, 2, 10);
	synth_sk_ready(s, 1, UB(42), 0, SYN_SOFTIRQ, 0x2000, 2);
	synth_exec_tp(s, 0, UB(50), 100, "/bin/true");
	synth_sample(s, 1, UB(60), 200, 200, ips, 2);
	synth_lost(s, UB(70), 1, 3);
	synth_round(s);
	synth_exit(s, UB(80), 100, 100);
}

static void events(struct synth *s)
{
	events_at(s, 0);
}

/* @len bytes at @buf as DIR/NAME; false (and why, on stderr) if not written. */
static bool put_file(const char *dir, const char *name, const void *buf, size_t len)
{
	char path[4096];
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	ok = buf && f && fwrite(buf, 1, len, f) == len;
	if (f && fclose(f))
		ok = false;
	if (!ok)
		perror(path);
	return ok;
}

/* @s ended (a round), written as DIR/NAME and freed; false (and why) if not written. */
static bool put_synth(const char *dir, const char *name, struct synth *s)
{
	size_t len;
	const void *buf;
	bool ok;

	synth_round(s);
	buf = synth_finish(s, &len);
	ok = put_file(dir, name, buf, len);
	synth_free(s);
	return ok;
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
		char name[64];
		size_t len, zlen;
		const void *buf;
		void *z;

		events(s);
		buf = synth_finish(s, &len);
		snprintf(name, sizeof(name), "synth-%d.data", i);
		if (!put_file(dir, name, buf, len))
			return 1;
		if (i == 0) {
			/* and the same compressed, as perf record -z and rsp record write it */
			z = synth_compress(buf, len, 256, false, &zlen);
			if (!put_file(dir, "synth-compressed.data", z, zlen))
				return 1;
			free(z);
			/* and in frames of about 512 bytes, as rsp record ends its zstd frames */
			z = synth_compress_framed(buf, len, 256, 512, false, &zlen);
			if (!put_file(dir, "synth-framed.data", z, zlen))
				return 1;
			free(z);
		}
		synth_free(s);
	}
	{
		/* the tracing data as a record inside the first of the frames */
		struct synth_opts o = { .no_tracing_data = true };
		struct synth *s = synth_new(&o);
		size_t len, zlen;
		const void *buf;
		void *z;

		synth_round(s);
		synth_tracing_data_record(s, true, false);
		events(s);
		buf = synth_finish(s, &len);
		z = synth_compress_framed(buf, len, 256, 512, false, &zlen);
		if (!put_file(dir, "synth-framed-tracing-data.data", z, zlen))
			return 1;
		free(z);
		synth_free(s);
	}
	{
		/* spans the recorder shed under memory pressure (issue 21): the CPU
		 * sampler's, with an unended one at the end of the stream */
		struct synth_opts o = { 0 };
		struct synth *s = synth_new(&o);
		uint64_t ips[2] = { 0xffffffff81000000ull, 0x401000 };

		synth_shed(s, US(5), 0, 0, true);
		events(s);
		synth_shed(s, US(75), 0, 9, false);
		synth_shed(s, US(76), 1, 0, true);
		synth_sample(s, 1, US(77), 200, 200, ips, 2);
		if (!put_synth(dir, "synth-shed.data", s))
			return 1;
	}
	{
		/*
		 * user-stack copies (--call-graph dwarf, rsp record's sleeps), unwound
		 * as loading reads them: one the kernel could not fill, one with
		 * registers in a process whose only map names a file that is not
		 * there; in frames, as rsp record writes them
		 */
		struct synth_opts o = { .user_stack = true };
		struct synth *s = synth_new(&o);
		uint64_t chain[] = { (uint64_t)PERF_CONTEXT_KERNEL, 0xffffffff81100000ull,
				     (uint64_t)PERF_CONTEXT_USER, 0x401234 };
		uint64_t regs[3] = { 0x7ffd1000, 0x7ffd0f00, 0x401234 }; /* BP, SP, IP */
		unsigned char copy[64];
		size_t len, zlen;
		const void *buf;
		void *z;

		memset(copy, 0x5a, sizeof(copy));
		synth_fork(s, 0, 100, 1, 100, 1);
		synth_comm(s, 0, 100, 100, "a", false);
		synth_mmap2(s, US(1), 100, 0x400000, 0x10000, 0, "/nonexistent/rsp-fuzz/a.out");
		synth_switch(s, 0, US(10), 0, "swapper/0", 0, 100, "a");
		synth_switch_ustack(s, 0, US(20), 100, "a", 1, 0, "swapper/0", chain, 4, regs,
				    copy, sizeof(copy), 0);
		synth_switch(s, 0, US(30), 0, "swapper/0", 0, 100, "a");
		synth_switch_ustack(s, 0, US(40), 100, "a", 1, 0, "swapper/0", chain, 4, regs,
				    copy, sizeof(copy), sizeof(copy));
		synth_round(s);
		buf = synth_finish(s, &len);
		z = synth_compress_framed(buf, len, 256, 512, false, &zlen);
		if (!put_file(dir, "synth-ustack-framed.data", z, zlen))
			return 1;
		free(z);
		synth_free(s);
	}
	{
		/*
		 * 80 frames and more: scanned on two threads (the second from the
		 * back), with tracing data in a late frame that voids its share
		 */
		struct synth_opts o = { 0 };
		struct synth *s = synth_new(&o);
		size_t len, zlen;
		const void *buf;
		void *z;

		for (int k = 0; k < 30; k++) {
			events(s);
			if (k == 24)
				synth_tracing_data_record(s, false, false);
		}
		buf = synth_finish(s, &len);
		z = synth_compress_framed(buf, len, 256, 512, false, &zlen);
		if (!put_file(dir, "synth-framed-many.data", z, zlen))
			return 1;
		free(z);
		synth_free(s);
	}
	for (int v = 0; v < 4; v++) {
		/*
		 * 64 frames and more in time order: loaded in one pass (each frame
		 * inflated once, sorted within a window); with a record older than
		 * the window (the load starts again in two passes); with a frame
		 * broken in the middle (the scan reads it and tells the cut); with
		 * records without a time (the second thread's read-ahead gives a
		 * frame's entries at once, one led by an untimed record the scan
		 * reads itself)
		 */
		static const char *const names[] = { "synth-framed-onepass.data",
						     "synth-framed-onepass-late.data",
						     "synth-framed-onepass-broken.data",
						     "synth-framed-onepass-untimed.data" };
		struct synth_opts o = { 0 };
		struct synth *s = synth_new(&o);
		size_t len, zlen;
		const void *buf;
		void *z;

		for (int k = 0; k < 120; k++) {
			events_at(s, v == 1 && k == 110 ? 0 : (uint64_t)k * 100000000ull);
			if (v == 3 && k % 3 == 0)
				synth_comm_untimed(s, 100, 100, k % 2 ? "a" : "c");
		}
		buf = synth_finish(s, &len);
		z = synth_compress_framed(buf, len, 256, 512, v == 2, &zlen);
		if (!put_file(dir, names[v], z, zlen))
			return 1;
		free(z);
		synth_free(s);
	}
	for (int v = 0; v < 2; v++) {
		/* kallsyms as rsp record writes it, one zstd frame; and one that does not inflate */
		static const char *const names[] = { "synth-kallsyms-zstd.data",
						     "synth-kallsyms-zstd-damaged.data" };
		struct synth_opts o = { .kallsyms = "ffffffff81000000 T _stext\n"
						    "ffffffff81000100 T f_one\n",
					.kallsyms_zstd = true,
					.kallsyms_damaged = v == 1 };
		struct synth *s = synth_new(&o);

		events(s);
		if (!put_synth(dir, names[v], s))
			return 1;
	}
	{
		/* perf record's own lost-samples counts, written at its end with time 0 */
		struct synth_opts o = { 0 };
		struct synth *s = synth_new(&o);

		events(s);
		synth_shed(s, 0, 0, 7, false);
		synth_shed(s, 0, 1, 0, false);
		if (!put_synth(dir, "synth-lost-untimed.data", s))
			return 1;
	}
	{
		/* frame-pointer chains broken in user space: a frame no user space
		 * holds (the data a bad frame pointer read), frames after it, a second
		 * user part, and a chain that is only the bad frame */
		struct synth *s = synth_new(NULL);
		const uint64_t K = (uint64_t)PERF_CONTEXT_KERNEL, U = (uint64_t)PERF_CONTEXT_USER;
		uint64_t bad[] = { K, 0xffffffff81000000ull, U, 0x7f00000f8350ull,
				   0x7878787878787878ull, 0x401000, U, 0xffffffffffff0000ull };
		uint64_t only[] = { U, 0x7878787878787878ull };

		events(s);
		synth_switch(s, 0, US(90), 0, "swapper/0", 0, 100, "a");
		synth_switch_stack(s, 0, US(91), 100, "a", 1, 0, "swapper/0", bad, 8);
		synth_switch(s, 0, US(92), 0, "swapper/0", 0, 100, "a");
		synth_switch_stack(s, 0, US(93), 100, "a", 1, 0, "swapper/0", only, 2);
		synth_sample(s, 1, US(94), 200, 200, bad, 8);
		if (!put_synth(dir, "synth-broken-chain.data", s))
			return 1;
	}
	{
		/* rsp record's rings: the target's switch copies (inherited) beside the
		 * system-wide ones and ftrace's copies; each ring loses records, the
		 * system-wide copy of a switch after its ring's LOST, a UDP datagram
		 * received before its sk_data_ready in a long softirq */
		struct synth_opts o = { .second_waking_attr = true, .rsp_rings = true };
		struct synth *s = synth_new(&o);

		events(s);
		synth_switch_copy(s, 0, US(90), 0, "swapper/0", 0, 100, "a");
		synth_waking(s, 0, US(91), 100, 0, 200, "b", 1, true, NULL, 0);
		synth_switch_copy(s, 0, US(92), 100, "a", 0, 200, "b");
		synth_lost(s, US(93), 0, 2);
		synth_switch(s, 0, US(94), 100, "a", 0, 200, "b");
		synth_lost_target(s, US(95), 0, 4);
		synth_sock_udp(s, true);
		synth_softirq(s, SE_SOFTIRQ_ENTRY, 1, US(96), 300, 3);
		synth_sock_recv(s, 0, US(97), 200, 0x4000, 2, 64);
		synth_sk_ready(s, 1, US(98), 300, SYN_SOFTIRQ, 0x4000, 2);
		synth_softirq(s, SE_SOFTIRQ_EXIT, 1, US(99), 300, 3);
		synth_sock_send(s, 1, US(99), 300, 0x5000, 2, 64);
		if (!put_synth(dir, "synth-rings.data", s))
			return 1;
	}
	{
		/* a loopback connection closed by the server: the client's CLOSE_WAIT
		 * in the server's softirq, then the client woken there */
		const uint8_t lo[4] = { 127, 0, 0, 1 };
		struct synth *s = synth_new(NULL);

		events(s);
		synth_sock_state(s, 1, US(81), 200, 0x2000, lo, 2, lo, 1, 1);
		synth_sock_state(s, 1, US(82), 200, 0x1000, lo, 1, lo, 2, 8);
		synth_waking(s, 1, US(83), 200, SYN_SOFTIRQ, 100, "a", 0, false, NULL, 0);
		synth_sock_state(s, 0, US(84), 0, 0x3000, lo, 3, lo, 4, 8);
		if (!put_synth(dir, "synth-peer-close.data", s))
			return 1;
	}
	{
		/* a TCP backlog delivered in a thread of the receiver (task context)
		 * while the sender runs on the other CPU, inside its send */
		const uint8_t lo[4] = { 127, 0, 0, 1 };
		struct synth *s = synth_new(NULL);

		events(s);
		synth_switch(s, 0, US(90), 0, "swapper/0", 0, 300, "cli");
		synth_switch(s, 1, US(90), 0, "swapper/1", 0, 301, "srv");
		synth_sock_state(s, 0, US(91), 300, 0x4000, lo, 5, lo, 6, 1);
		synth_sock_state(s, 0, US(92), 300, 0x5000, lo, 6, lo, 5, 1);
		synth_sk_ready(s, 0, US(93), 300, SYN_SOFTIRQ, 0x5000, 2);
		synth_sock_send(s, 0, US(94), 300, 0x4000, 2, 64);
		synth_sk_ready(s, 1, US(95), 301, 0, 0x5000, 2);
		synth_sock_send(s, 0, US(96), 300, 0x4000, 2, 64);
		synth_sock_recv(s, 1, US(97), 301, 0x5000, 2, 128);
		if (!put_synth(dir, "synth-backlog-during-send.data", s))
			return 1;
	}
	{
		/* command lines (issue 41): alive at the start, at an exec, cut, one
		 * with bytes that are no text, a damaged one, perf's own record type */
		struct synth *s = synth_new(NULL);
		unsigned char rec[64], old[80] = { 65, 0, 0, 0, 0, 0, 80, 0, 1 };
		size_t n;

		synth_cmdline(s, 0, 100, "a\0-x\0", 6, 6);
		events(s);
		synth_cmdline(s, US(50), 100, "/bin/true\0--version\0", 21, 21);
		synth_cmdline(s, US(60), 200, "b\0long\0", 7, 9000);
		synth_cmdline(s, US(61), 200, "\xff\xc3\0\xe2\x82\xac\0", 7, 7);
		n = synth_cmdline_record(rec, US(62), 200, "zz\0", 3, 3);
		rec[29] = 0xff; /* its length (bytes 28-31) past the record */
		synth_raw(s, rec, n);
		memcpy(old + 16, "sched:sched_switch", 18);
		synth_raw(s, old, sizeof(old));
		if (!put_synth(dir, "synth-cmdline.data", s))
			return 1;
	}
	return 0;
}
