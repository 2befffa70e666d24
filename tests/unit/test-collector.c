/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Collector pieces that need no kernel: the tid map, the path set, build-id
 * notes, and the writer's record framing (read back byte by byte).
 */
#include "cmdline.h"
#include "rsp-buildid.h"
#include "rsp-cmdline-format.h"
#include "jitmaps.h"
#include "pathset.h"
#include "records.h"
#include "runwind.h"
#include "rsp-perf-format.h"
#include "tap.h"
#include "tidmap.h"
#include "tracing-data.h"
#include "ustack.h"
#include "writer.h"

#include <asm/perf_regs.h>
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <string.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

static void tidmap(void)
{
	struct rsp_tidmap m = { 0 };
	int ok = 1;

	for (uint32_t t = 0; t < 100000; t++)
		rsp_tidmap_set(&m, t, t / 7);
	for (uint32_t t = 0; t < 100000; t++)
		ok &= rsp_tidmap_get(&m, t) == t / 7;
	CHECK(ok, "100000 tids map to their tgid across growth");
	CHECK(rsp_tidmap_get(&m, 100001) == -1, "unknown tid is -1");
	rsp_tidmap_set(&m, 5, 99);
	CHECK(rsp_tidmap_get(&m, 5) == 99, "pid reuse overwrites");
	CHECK(rsp_tidmap_get(&m, 0) == 0, "tid 0 (idle) is a key like any other");
	rsp_tidmap_free(&m);
}

static void pathset(void)
{
	struct rsp_pathset s = { 0 };
	char buf[64];
	const char *p;
	size_t i, n = 0;

	for (int k = 0; k < 1000; k++) {
		snprintf(buf, sizeof(buf), "/lib/%d.so", k % 300);
		rsp_pathset_add(&s, buf);
	}
	rsp_pathset_for_each(&s, i, p) n++;
	CHECK_EQ_U64(s.n, 300, "distinct paths kept once");
	CHECK_EQ_U64(n, 300, "iteration visits each once");
	CHECK(rsp_pathset_add(&s, "/lib/7.so") == 0, "re-adding is a no-op");
	rsp_pathset_free(&s);
}

static void buildid_notes(void)
{
	unsigned char notes[64] = { 0 };
	Elf64_Nhdr nh = { .n_namesz = 4, .n_descsz = 5, .n_type = 1 };
	Elf64_Nhdr gnu = { .n_namesz = 4, .n_descsz = 20, .n_type = NT_GNU_BUILD_ID };
	uint8_t id[20];
	size_t off = 0;
	int len;

	/* an unrelated note (desc padded to 8) before the build id */
	memcpy(notes + off, &nh, sizeof(nh));
	off += sizeof(nh);
	memcpy(notes + off, "GNU", 4);
	off += 4 + 8;
	memcpy(notes + off, &gnu, sizeof(gnu));
	off += sizeof(gnu);
	memcpy(notes + off, "GNU", 4);
	off += 4;
	for (int i = 0; i < 20; i++)
		notes[off + i] = (unsigned char)(0xa0 + i);
	off += 20;
	len = rsp_build_id_from_notes(notes, off, id, sizeof(id));
	CHECK(len == 20 && id[0] == 0xa0 && id[19] == 0xb3, "build id found after another note");
	CHECK(rsp_build_id_from_notes(notes, off - 1, id, sizeof(id)) < 0,
	      "a note cut short is not read past the buffer");
	len = rsp_build_id_of_file("/proc/self/exe", id, sizeof(id));
	CHECK(len == 20, "this test binary has a 20-byte build id (%d)", len);
	CHECK(rsp_build_id_of_file("/etc/hostname", id, sizeof(id)) < 0, "not an ELF file");
}

static unsigned char *slurp(const char *path, size_t *len)
{
	struct stat st;
	unsigned char *buf;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) < 0)
		return NULL;
	buf = malloc(st.st_size + 1);
	*len = read(fd, buf, st.st_size) == st.st_size ? (size_t)st.st_size : 0;
	close(fd);
	return buf;
}

static void writer_framing(void)
{
	char path[] = "/tmp/rsp-unit-XXXXXX";
	char err[256];
	struct rsp_writer *w;
	struct perf_event_attr attr = { .size = sizeof(attr), .type = PERF_TYPE_TRACEPOINT };
	uint64_t ids[2] = { 7, 9 };
	const char *argv[] = { "/usr/bin/rsp", "record", "-a" };
	unsigned char *buf, *p;
	size_t len, off;
	int types[8], n = 0, fd = mkstemp(path);
	struct stat st;

	close(fd);
	unlink(path);
	CHECK(rsp_writer_open(&w, path, err, sizeof(err)) == 0, "writer opens %s", path);
	rsp_rec_attr(w, &attr, ids, 2);
	rsp_rec_feature_string(w, RSP_PF_FEAT_HOSTNAME, "host");
	rsp_rec_feature_strings(w, RSP_PF_FEAT_CMDLINE, argv, 3);
	rsp_rec_tracing_data(w, "abcde", 5);
	rsp_rec_event_name(w, 7, "sched:sched_switch");
	rsp_writer_round(w);
	rsp_writer_round(w); /* nothing new: no second FINISHED_ROUND */
	CHECK(rsp_writer_close(w, NULL, NULL, NULL, NULL) == 0, "writer closes cleanly");
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600, "file is private (0600)");

	buf = slurp(path, &len);
	CHECK(buf && len > 16 && ((struct rsp_pf_pipe_header *)buf)->magic == RSP_PF_MAGIC &&
		      ((struct rsp_pf_pipe_header *)buf)->size == 16,
	      "pipe header");
	for (off = 16; buf && off + 8 <= len && n < 8;) {
		struct perf_event_header *h = (void *)(buf + off);

		CHECK(h->size >= 8 && h->size % 8 == 0 && off + h->size <= len,
		      "record %d: size %u aligned and inside the file", n, h->size);
		if (h->size < 8)
			break;
		types[n++] = h->type;
		p = buf + off;
		if (h->type == RSP_PF_RECORD_HEADER_ATTR) {
			CHECK_EQ_U64(h->size, 8 + sizeof(attr) + 16, "attr record size");
			CHECK_EQ_U64(((uint64_t *)(p + 8 + sizeof(attr)))[1], 9, "second id");
		} else if (h->type == RSP_PF_RECORD_HEADER_FEATURE &&
			   ((struct rsp_pf_feature_rec *)p)->feat_id == RSP_PF_FEAT_HOSTNAME) {
			uint32_t slen;

			memcpy(&slen, p + 16, 4);
			CHECK(slen == 64 && !strcmp((char *)p + 20, "host"),
			      "header string padded to 64 (perf's NAME_ALIGN)");
		} else if (h->type == RSP_PF_RECORD_HEADER_FEATURE) {
			uint32_t nr;

			memcpy(&nr, p + 16, 4);
			CHECK(nr == 3 && !strcmp((char *)p + 24, "/usr/bin/rsp") &&
				      !strcmp((char *)p + 24 + 68, "record"),
			      "cmdline: count then padded strings");
		} else if (h->type == RSP_PF_RECORD_HEADER_TRACING_DATA) {
			struct rsp_pf_tracing_data *td = (void *)p;

			CHECK(h->size == 16 && td->size == 8 && !memcmp(p + 16, "abcde\0\0\0", 8),
			      "tracing data: 16-byte record, payload padded to 8 after it");
			off += td->size;
		}
		off += h->size;
	}
	CHECK(n == 6 && types[0] == RSP_PF_RECORD_HEADER_ATTR &&
		      types[4] == RSP_PF_RECORD_EVENT_UPDATE &&
		      types[5] == RSP_PF_RECORD_FINISHED_ROUND && off == len,
	      "six records in order, one FINISHED_ROUND, nothing after (%d records)", n);
	free(buf);

	/* an existing file is kept as .old */
	CHECK(rsp_writer_open(&w, path, err, sizeof(err)) == 0, "second writer opens");
	rsp_writer_close(w, NULL, NULL, NULL, NULL);
	{
		char old[64];

		snprintf(old, sizeof(old), "%s.old", path);
		CHECK(access(old, F_OK) == 0, "the first file became .old");
		unlink(old);
	}
	unlink(path);
	CHECK(rsp_writer_open(&w, "/nonexistent-dir/x.data", err, sizeof(err)) < 0 &&
		      strstr(err, "cannot create /nonexistent-dir/x.data"),
	      "unwritable path: '%s'", err);
	/* a device is written as it is: never renamed to .old, made private or removed */
	CHECK(rsp_writer_open(&w, "/dev/full", err, sizeof(err)) == -ENOSPC &&
		      strstr(err, "cannot write /dev/full: No space left on device"),
	      "/dev/full: '%s'", err);
	CHECK(stat("/dev/full", &st) == 0 && S_ISCHR(st.st_mode) && (st.st_mode & 0777) == 0666 &&
		      access("/dev/full.old", F_OK) < 0,
	      "/dev/full still a device, mode 0666, no .old");
	CHECK(rsp_writer_open(&w, "/dev/null", err, sizeof(err)) == 0, "/dev/null opens");
	CHECK(rsp_writer_close(w, NULL, NULL, NULL, NULL) == 0, "and closes");
	CHECK(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode) && (st.st_mode & 0777) == 0666,
	      "/dev/null still a device, mode 0666");
}

/*
 * A sample as the target stream writes it: IDENTIFIER|TID|TIME|CPU|PERIOD|RAW|
 * REGS_USER|STACK_USER with 20 user registers (SP the 8th) and a 4096-byte copy.
 */
static size_t ustack_sample(unsigned char *buf, uint32_t pid, uint32_t tid, uint64_t sp)
{
	unsigned char *p = buf + sizeof(struct perf_event_header);
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE };
	uint64_t v;
	uint32_t raw = 12;

#define PUT64(x) (v = (x), memcpy(p, &v, 8), p += 8)
	PUT64(42); /* identifier */
	PUT64((uint64_t)tid << 32 | pid);
	PUT64(1000); /* time */
	PUT64(1); /* cpu */
	PUT64(1); /* period */
	memcpy(p, &raw, 4);
	memset(p + 4, 0xab, raw);
	p += 4 + raw;
	PUT64(2); /* PERF_SAMPLE_REGS_ABI_64 */
	for (int r = 0; r < 20; r++)
		PUT64(r == 7 ? sp : 0x1000 + r);
	PUT64(4096);
	for (int i = 0; i < 4096; i++)
		*p++ = (unsigned char)i;
	PUT64(4096); /* dyn_size */
#undef PUT64
	h.size = (uint16_t)(p - buf);
	memcpy(buf, &h, sizeof(h));
	return h.size;
}

static void ustack(void)
{
	const uint64_t st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			    PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW |
			    PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	static unsigned char rec[8192], out[8192];
	struct rsp_ustack_loc loc;
	struct rsp_ustack *u = rsp_ustack_new();
	uint32_t pid = (uint32_t)getpid();
	uint64_t sp = (uint64_t)(uintptr_t)&loc, keep, v;
	size_t n = ustack_sample(rec, pid, pid, sp), m;

	CHECK(rsp_ustack_locate(rec, n, st, 0xff0fffull, PERF_REG_X86_SP, &loc) == 0,
	      "the user stack of a target sample is found");
	CHECK(loc.sp == sp && loc.size == 4096 && loc.dyn_size == 4096 && loc.pid == pid &&
		      loc.tid == pid,
	      "its stack pointer, size, dyn_size and task");
	CHECK(rsp_ustack_locate(rec, n - 8, st, 0xff0fffull, PERF_REG_X86_SP, &loc) != 0,
	      "a record cut short is refused");
	rsp_ustack_locate(rec, n, st, 0xff0fffull, PERF_REG_X86_SP, &loc);
	/* this process's main thread: live from sp up to startstack */
	keep = rsp_ustack_keep(u, pid, pid, sp, 1u << 20, NULL, 0);
	CHECK(keep > RSP_USTACK_MARGIN && keep < (1u << 20) && keep % 8 == 0,
	      "a main thread's live stack is found (%llu bytes above sp)", (unsigned long long)keep);
	CHECK(rsp_ustack_keep(u, pid, pid, sp, 64, NULL, 0) == 64, "never more than the copy has");
	CHECK(rsp_ustack_keep(u, 999999999, 999999999, sp, 4096, NULL, 0) == 4096,
	      "an unknown task keeps its whole copy");
	m = rsp_ustack_trim(rec, n, &loc, 1024, out);
	CHECK(m == n - 3072, "trimming 4096 to 1024 bytes shortens the record by 3072");
	{
		struct rsp_ustack_loc l2;
		const struct perf_event_header *h = (const void *)out;

		CHECK(h->size == m && rsp_ustack_locate(out, m, st, 0xff0fffull, PERF_REG_X86_SP,
							&l2) == 0 &&
			      l2.size == 1024 && l2.dyn_size == 1024 && l2.sp == sp,
		      "the trimmed record parses: size 1024, dyn_size 1024, same sp");
		CHECK(!memcmp(out + sizeof(*h), rec + sizeof(*h), loc.size_off - sizeof(*h)),
		      "the fields before the stack are unchanged");
		CHECK(!memcmp(out + loc.size_off + 8, rec + loc.size_off + 8, 1024),
		      "the kept bytes are the lowest of the copy (from sp up)");
		memcpy(&v, out + m - 8, 8);
		CHECK(v == 1024, "dyn_size is the last word");
	}
	rsp_ustack_forget(u, pid);
	rsp_ustack_free(u);
	/* the recorder's: /proc read by a thread of its own, the caller never waits */
	u = rsp_ustack_new_async();
	CHECK(rsp_ustack_keep(u, pid, pid, sp, 1u << 20, NULL, 0) == 1u << 20,
	      "async: a thread's first copy, its lookup under way, is kept whole");
	/*
	 * The reader never waits for the resolver's lock: a question it could not
	 * post (the resolver, just started, holding its lock) is asked again at
	 * the thread's next sample, and an answer it could not take is taken at a
	 * later one.  So a few samples, each after the resolver settled.
	 */
	v = 1u << 20;
	for (int i = 0; i < 50 && v != keep; i++) {
		rsp_ustack_settle(u);
		v = rsp_ustack_keep(u, pid, pid, sp, 1u << 20, NULL, 0);
		if (v != keep)
			usleep(2000);
	}
	CHECK(v == keep, "async: once answered, the same live stack as looked up at once (%llu, %llu)",
	      (unsigned long long)v, (unsigned long long)keep);
	CHECK(rsp_ustack_keep(u, 999999999, 999999999, sp, 4096, NULL, 0) == 4096,
	      "async: an unknown task keeps its whole copy");
	rsp_ustack_settle(u);
	CHECK(rsp_ustack_keep(u, 999999999, 999999999, sp, 4096, NULL, 0) == 4096,
	      "async: and after its lookup failed");
	rsp_ustack_free(u);
}

/* /proc/self/stat's startstack and the top of the [stack] mapping */
static int self_stack(uint64_t *start, uint64_t *top)
{
	char buf[4096], *p;
	FILE *f = fopen("/proc/self/stat", "re");
	size_t n;

	*start = *top = 0;
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	for (int field = 2; field < 28 && p; field++)
		p = strchr(p + 1, ' ');
	if (p)
		*start = strtoull(p + 1, NULL, 10);
	f = fopen("/proc/self/maps", "re");
	if (!f)
		return -1;
	while (fgets(buf, sizeof(buf), f)) {
		unsigned long long a, b;

		if (strstr(buf, "[stack]") && sscanf(buf, "%llx-%llx", &a, &b) == 2)
			*top = b;
	}
	fclose(f);
	return *start && *top > *start ? 0 : -1;
}

/*
 * A copy of this process's stack from @sp, as the kernel copies it: byte by
 * byte, past the redzones AddressSanitizer puts around stack variables.
 */
__attribute__((no_sanitize_address)) static void copy_own_stack(unsigned char *to, uint64_t sp,
								  uint64_t len)
{
	const volatile unsigned char *from = (const volatile unsigned char *)(uintptr_t)sp;

	for (uint64_t i = 0; i < len; i++)
		to[i] = from[i];
}

/*
 * A process gone before its /proc entry was read: its startstack read off
 * the copy, from what exec left at the top of the stack.  This process's own
 * stack is the copy.
 */
static void ustack_entry(void)
{
	static unsigned char copy[1 << 16];
	uint64_t start, top, sp = (uint64_t)(uintptr_t)&start & ~(uint64_t)7, len, t;
	struct rsp_ustack *u = rsp_ustack_new();
	unsigned char noise[4096];

	if (self_stack(&start, &top)) {
		CHECK(0, "/proc/self/stat and maps give this process's stack");
		return;
	}
	len = top - sp < sizeof(copy) ? top - sp : sizeof(copy);
	copy_own_stack(copy, sp, len);
	t = rsp_ustack_entry_top(copy, len, sp);
	CHECK(t == start, "startstack found in a copy of this process's stack (%#llx, want %#llx)",
	      (unsigned long long)t, (unsigned long long)start);
	CHECK(rsp_ustack_entry_top(copy, start - sp + 16, sp) == 0,
	      "a copy that ends inside argv/envp/auxv tells nothing");
	CHECK(rsp_ustack_entry_top(copy + 16, len - 16, sp + 16) == start,
	      "nor does the copy's start matter, above or below a frame");
	for (size_t i = 0; i < sizeof(noise); i++)
		noise[i] = (unsigned char)(i * 2654435761u >> 13);
	CHECK(rsp_ustack_entry_top(noise, sizeof(noise), sp) == 0, "noise holds no entry frame");
	memset(noise, 0, sizeof(noise));
	CHECK(rsp_ustack_entry_top(noise, sizeof(noise), sp) == 0, "nor do zeroes");
	/* an unknown pid (gone): the copy decides the cut */
	t = rsp_ustack_keep(u, 999999998, 999999998, sp, len, copy, len);
	CHECK(t == ((start - sp + RSP_USTACK_MARGIN + 7) & ~7ull),
	      "a gone process's copy is cut at its startstack (%llu of %llu bytes kept)",
	      (unsigned long long)t, (unsigned long long)len);
	CHECK(rsp_ustack_keep(u, 999999998, 999999998, sp + 64, len - 64, NULL, 0) ==
		      ((start - sp - 64 + RSP_USTACK_MARGIN + 7) & ~7ull),
	      "and what the copy told is kept for the thread's next samples");
	/*
	 * This process's pid with its stack 32 MiB lower: the image before or
	 * after an exec whose COMM is read later or sooner than this sample.
	 * /proc names the current image; the copy's own entry frame decides.
	 */
	t = rsp_ustack_keep(u, (uint32_t)getpid(), (uint32_t)getpid(), sp, len, NULL, 0);
	CHECK(t == ((start - sp + RSP_USTACK_MARGIN + 7) & ~7ull),
	      "this process's copy is cut at its startstack from /proc");
	t = rsp_ustack_keep(u, (uint32_t)getpid(), (uint32_t)getpid(), sp - (32u << 20), len, copy,
			    len);
	CHECK(t == ((start - sp + RSP_USTACK_MARGIN + 7) & ~7ull),
	      "another image's copy, /proc's startstack above it, is cut at its own (%llu bytes)",
	      (unsigned long long)t);
	/* a sample at the entry point (after exec, before _start ran): sp is startstack */
	t = rsp_ustack_keep(u, 999999996, 999999996, start, len - (start - sp),
			    copy + (start - sp), len - (start - sp));
	CHECK(t == RSP_USTACK_MARGIN, "a copy taken at the entry point keeps the margin (%llu)",
	      (unsigned long long)t);
	/* a lookup that failed (a copy too short to tell) holds back only nearby ones */
	CHECK(rsp_ustack_keep(u, 999999997, 999999997, sp - (64u << 20), 256, copy, 256) == 256,
	      "a gone process's short copy is kept whole");
	CHECK(rsp_ustack_keep(u, 999999997, 999999997, sp - (64u << 20) + 512, 256, copy, 256) ==
		      256,
	      "and so is the next one on that stack");
	t = rsp_ustack_keep(u, 999999997, 999999997, sp, len, copy, len);
	CHECK(t == ((start - sp + RSP_USTACK_MARGIN + 7) & ~7ull),
	      "a sample on another stack (after an exec) is cut at once (%llu bytes)",
	      (unsigned long long)t);
	rsp_ustack_free(u);
}

/*
 * Compressed chunks: PERF_RECORD_COMPRESSED records of at most
 * RSP_COMPRESS_RECORD bytes; the zstd frame ends at the first record boundary
 * past RSP_COMPRESS_FRAME input bytes, so every frame inflates on its own to
 * whole records, and the frames in order give back every record.
 */
static void writer_frames(void)
{
	char path[] = "/tmp/rsp-unit-XXXXXX", err[256];
	struct rsp_writer *w;
	unsigned char *buf, *orig = malloc(2u << 20), *got = malloc(3u << 20), *dec = malloc(1u << 20);
	size_t len, olen = 0, glen = 0, off = 16, frames = 0, small = 0, notwhole = 0, big = 0;
	int fd = mkstemp(path);
	ZSTD_DCtx *dc = ZSTD_createDCtx();
	ZSTD_outBuffer out = { NULL, 0, 0 };
	bool in_frame = false, bad_start = false;

	close(fd);
	unlink(path);
	CHECK(orig && got && dec && dc && rsp_writer_open(&w, path, err, sizeof(err)) == 0,
	      "writer opens %s", path);
	if (!orig || !got || !dec || !dc) {
		free(orig);
		free(got);
		free(dec);
		ZSTD_freeDCtx(dc);
		return;
	}
	rsp_writer_set_compression(w, 1);
	/* 1.5 MB of records of 24 to 4016 bytes, handed over in chunks of varying size */
	for (unsigned i = 0; olen < (3u << 19); i++) {
		struct perf_event_header h = { .type = PERF_RECORD_SAMPLE };
		unsigned char rec[4016];

		h.size = (uint16_t)(24 + (i * 2654435761u >> 7) % 3992 / 8 * 8);
		for (size_t k = 0; k < h.size; k++)
			rec[k] = (unsigned char)(i * 31 + k % 13);
		memcpy(rec, &h, sizeof(h));
		rsp_writer_append(w, rec, h.size);
		memcpy(orig + olen, rec, h.size);
		olen += h.size;
		if (i % 700 == 699)
			rsp_writer_flush(w);
	}
	CHECK(rsp_writer_close(w, NULL, NULL, NULL, NULL) == 0, "writer closes cleanly");
	buf = slurp(path, &len);
	/* the frames, one at a time */
	while (buf && off + 8 <= len) {
		struct perf_event_header h;
		ZSTD_inBuffer in;

		memcpy(&h, buf + off, sizeof(h));
		if (h.size < 8 || off + h.size > len)
			break;
		if (h.type != RSP_PF_RECORD_COMPRESSED) {
			off += h.size;
			continue;
		}
		big += h.size > RSP_COMPRESS_RECORD;
		if (!in_frame) {
			uint32_t magic;

			memcpy(&magic, buf + off + 8, 4);
			bad_start |= magic != ZSTD_MAGICNUMBER;
			ZSTD_DCtx_reset(dc, ZSTD_reset_session_only);
			out = (ZSTD_outBuffer){ dec, 1u << 20, 0 };
			in_frame = true;
		}
		in = (ZSTD_inBuffer){ buf + off + 8, h.size - 8u, 0 };
		while (in.pos < in.size) {
			size_t r = ZSTD_decompressStream(dc, &out, &in);

			if (ZSTD_isError(r)) {
				bad_start = true;
				break;
			}
			if (r == 0) {
				/* a frame's end: whole records, as big as the writer makes them */
				size_t at = 0;

				while (at + 8 <= out.pos) {
					struct perf_event_header rh;

					memcpy(&rh, dec + at, sizeof(rh));
					if (rh.size < 8)
						break;
					at += rh.size;
				}
				notwhole += at != out.pos;
				frames++;
				small += out.pos < RSP_COMPRESS_FRAME || out.pos > RSP_COMPRESS_FRAME + 4016;
				memcpy(got + glen, dec, out.pos);
				glen += out.pos;
				in_frame = false;
				if (in.pos < in.size)
					bad_start = true; /* a frame begins inside a record */
				break;
			}
		}
		off += h.size;
	}
	if (in_frame) {
		/* the last frame, flushed but not ended */
		memcpy(got + glen, dec, out.pos);
		glen += out.pos;
	}
	CHECK(!big, "every compressed record within %u bytes", RSP_COMPRESS_RECORD);
	CHECK(!bad_start, "every frame begins a compressed record and inflates on its own");
	CHECK(frames >= 5 && !small && !notwhole,
	      "%zu frames ended, each on a record boundary just past %u bytes (%zu not whole, %zu "
	      "of another size)",
	      frames, RSP_COMPRESS_FRAME, notwhole, small);
	CHECK(glen == olen && !memcmp(got, orig, olen), "the frames give back every record (%zu of "
	      "%zu bytes)", glen, olen);
	free(buf);
	free(orig);
	free(got);
	free(dec);
	ZSTD_freeDCtx(dc);
	unlink(path);
}

/* ---- jitmaps: the JIT runtimes' symbol files beside a recording ------------------------- */

static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	CHECK(f && fputs(text, f) >= 0 && !fclose(f), "write %s", path);
}

static bool same_file(const char *path, const char *text)
{
	char buf[256] = { 0 };
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	if (f)
		fclose(f);
	return f && n == strlen(text) && !memcmp(buf, text, n);
}

static void jitmaps(void)
{
	char root[] = "/tmp/rsp-test-jitmaps-XXXXXX", tmp[4200], out[4200], jit[4200], p[4300];
	char err[512], dumps[4200];
	struct rsp_tidmap tids = { 0 };
	struct rsp_pathset paths = { 0 };
	struct stat st;

	if (!mkdtemp(root)) {
		CHECK(0, "mkdtemp");
		return;
	}
	snprintf(tmp, sizeof(tmp), "%s/tmp", root);
	snprintf(dumps, sizeof(dumps), "%s/cwd", root);
	snprintf(out, sizeof(out), "%s/rec.data", root);
	snprintf(jit, sizeof(jit), "%s/rec.data.jit", root);
	CHECK(!mkdir(tmp, 0700) && !mkdir(dumps, 0700), "mkdir");
	/* processes 300 (threads 300, 301) and 400 (401) have maps; 500 was not recorded */
	snprintf(p, sizeof(p), "%s/perf-300.map", tmp);
	put_file(p, "1000 10 a\n");
	snprintf(p, sizeof(p), "%s/perf-400.map", tmp);
	put_file(p, "2000 10 b\n");
	snprintf(p, sizeof(p), "%s/perf-500.map", tmp);
	put_file(p, "3000 10 c\n");
	snprintf(p, sizeof(p), "%s/jit-300.dump", dumps);
	put_file(p, "JiTD...");
	rsp_tidmap_set(&tids, 300, 300);
	rsp_tidmap_set(&tids, 301, 300);
	rsp_tidmap_set(&tids, 401, 400); /* a process known by a thread of it */
	rsp_pathset_add(&paths, p);
	rsp_pathset_add(&paths, "/usr/lib/x86_64-linux-gnu/libc.so.6");
	rsp_pathset_add(&paths, "/nonexistent/jit-9.dump");
	put_file(out, "recording");
	CHECK_EQ_U64(rsp_jitmaps_copy(out, tmp, &tids, &paths, err, sizeof(err)), 3,
		     "jitmaps: two maps and a dump copied");
	CHECK(!err[0], "jitmaps: no message: %s", err);
	snprintf(p, sizeof(p), "%s/perf-300.map", jit);
	CHECK(same_file(p, "1000 10 a\n"), "jitmaps: perf-300.map copied");
	snprintf(p, sizeof(p), "%s/perf-400.map", jit);
	CHECK(same_file(p, "2000 10 b\n"), "jitmaps: perf-400.map copied");
	snprintf(p, sizeof(p), "%s/jit-300.dump", jit);
	CHECK(same_file(p, "JiTD..."), "jitmaps: jit-300.dump copied by its mmap's path");
	snprintf(p, sizeof(p), "%s/perf-500.map", jit);
	CHECK(stat(p, &st) != 0, "jitmaps: a process not recorded: its map not copied");
	CHECK(stat(jit, &st) == 0 && (st.st_mode & 0777) == 0700, "jitmaps: FILE.jit is 0700");

	/* a second recording to the same file replaces the directory */
	rsp_tidmap_free(&tids);
	memset(&tids, 0, sizeof(tids));
	rsp_tidmap_set(&tids, 400, 400);
	CHECK_EQ_U64(rsp_jitmaps_copy(out, tmp, &tids, NULL, err, sizeof(err)), 1,
		     "jitmaps: again, one map");
	snprintf(p, sizeof(p), "%s/perf-300.map", jit);
	CHECK(stat(p, &st) != 0, "jitmaps: the older recording's maps gone");
	/* one with nothing to copy removes it */
	rsp_tidmap_free(&tids);
	memset(&tids, 0, sizeof(tids));
	CHECK_EQ_U64(rsp_jitmaps_copy(out, tmp, &tids, NULL, err, sizeof(err)), 0,
		     "jitmaps: nothing to copy");
	CHECK(stat(jit, &st) != 0, "jitmaps: the older recording's directory removed");
	/* but not a directory holding what rsp did not write */
	CHECK(!mkdir(jit, 0700), "mkdir FILE.jit");
	snprintf(p, sizeof(p), "%s/notes.txt", jit);
	put_file(p, "mine");
	CHECK_EQ_U64(rsp_jitmaps_copy(out, tmp, &tids, NULL, err, sizeof(err)),
		     (uint64_t)-ENOTEMPTY, "jitmaps: a user's directory left alone");
	CHECK(strstr(err, "holds files rsp did not write there"), "jitmaps: said: %s", err);
	CHECK(same_file(p, "mine"), "jitmaps: the user's file kept");
	rsp_tidmap_free(&tids);
	rsp_pathset_free(&paths);
	snprintf(p, sizeof(p), "rm -rf %s", root);
	CHECK(system(p) == 0, "rm");
}

/* ---- runwind: this process's own stack, unwound as the recorder would ---------------- */

#define RW_ID 77
#define RW_ST                                                                              \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |       \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | \
	 PERF_SAMPLE_STACK_USER)
#define RW_MASK 0xff0fffull /* x86-64: ax..ss, r8..r15: 20 registers */

static uint64_t rw_copy[1024]; /* the stack copy, not on the stack it copies */
static uint64_t rw_ip, rw_sp, rw_bp, rw_len, rw_ret[2];

static uint64_t rw_stack_end(uint64_t sp)
{
	char line[512];
	uint64_t end = 0;
	FILE *f = fopen("/proc/self/maps", "re");

	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long a, b;

		if (sscanf(line, "%llx-%llx", &a, &b) == 2 && sp >= a && sp < b)
			end = b;
	}
	if (f)
		fclose(f);
	return end;
}

/* the stack as the kernel copies it: other frames' words, redzones and all */
__attribute__((no_sanitize_address)) static void rw_copy_stack(uint64_t sp, uint64_t len)
{
	const volatile uint64_t *p = (const volatile uint64_t *)(uintptr_t)sp;

	for (uint64_t i = 0; i < len / 8; i++)
		rw_copy[i] = p[i];
}

/* the registers and the stack here, as the kernel gives them to a sample */
__attribute__((noinline)) static int rw_leaf(uint64_t mid_ret)
{
	uint64_t ip, sp, bp, end;

	__asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2"
			 : "=r"(ip), "=r"(sp), "=r"(bp));
	rw_ip = ip;
	rw_sp = sp;
	rw_bp = bp;
	rw_ret[0] = (uint64_t)__builtin_return_address(0); /* into rw_mid */
	rw_ret[1] = mid_ret; /* into rw_top */
	end = rw_stack_end(sp);
	rw_len = end > sp ? end - sp : 0;
	if (rw_len > sizeof(rw_copy))
		rw_len = sizeof(rw_copy);
	rw_len &= ~7ull;
	rw_copy_stack(sp, rw_len);
	return (int)(rw_len & 1);
}

__attribute__((noinline)) static int rw_mid(void)
{
	return rw_leaf((uint64_t)__builtin_return_address(0)) + 1;
}

__attribute__((noinline)) static int rw_top(void)
{
	return rw_mid() * 2;
}

static size_t put(unsigned char *b, size_t at, const void *v, size_t n)
{
	memcpy(b + at, v, n);
	return at + n;
}

/* A sample of process @pid with the captured registers and copy; its size. */
static size_t rw_sample(unsigned char *b, uint32_t pid)
{
	uint64_t regs[20] = { 0 }, v;
	struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 0 };
	size_t at = sizeof(h);

	regs[6] = rw_bp; /* perf order: ax bx cx dx si di bp sp ip ... */
	regs[7] = rw_sp;
	regs[8] = rw_ip;
	v = RW_ID;
	at = put(b, at, &v, 8);
	at = put(b, at, &rw_ip, 8);
	v = (uint64_t)pid | (uint64_t)pid << 32;
	at = put(b, at, &v, 8);
	v = 1000; /* time */
	at = put(b, at, &v, 8);
	v = 0; /* cpu */
	at = put(b, at, &v, 8);
	v = 1000000; /* period */
	at = put(b, at, &v, 8);
	v = 0; /* callchain: no kernel part */
	at = put(b, at, &v, 8);
	v = 2; /* PERF_SAMPLE_REGS_ABI_64 */
	at = put(b, at, &v, 8);
	at = put(b, at, regs, sizeof(regs));
	at = put(b, at, &rw_len, 8);
	at = put(b, at, rw_copy, rw_len);
	at = put(b, at, &rw_len, 8); /* dyn_size */
	h.size = (uint16_t)at;
	put(b, 0, &h, sizeof(h));
	return at;
}

/* MMAP2 records of this process's executable file maps */
static size_t rw_maps(unsigned char *b, size_t cap)
{
	char line[4608], path[4096];
	size_t at = 0;
	FILE *f = fopen("/proc/self/maps", "re");

	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long a, e, off, ino;
		unsigned maj, mn;
		char perms[8];
		struct rsp_pf_mmap2 m;
		struct rsp_pf_sample_id sid = { 0 };
		size_t flen, size;

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %4095s", &a, &e, perms, &off, &maj,
			   &mn, &ino, path) != 8 ||
		    perms[2] != 'x' || path[0] != '/')
			continue;
		flen = strlen(path) + 1;
		size = RSP_PF_ALIGN(sizeof(m) + flen) + sizeof(sid);
		if (at + size > cap)
			break;
		memset(&m, 0, sizeof(m));
		m.header.type = PERF_RECORD_MMAP2;
		m.header.size = (uint16_t)size;
		m.pid = m.tid = (uint32_t)getpid();
		m.start = a;
		m.len = e - a;
		m.pgoff = off;
		m.maj = maj;
		m.min = mn;
		m.ino = ino;
		m.prot = PROT_READ | PROT_EXEC;
		memset(b + at, 0, size);
		memcpy(b + at, &m, sizeof(m));
		memcpy(b + at + sizeof(m), path, flen);
		sid.pid = sid.tid = m.pid;
		memcpy(b + at + size - sizeof(sid), &sid, sizeof(sid));
		at += size;
	}
	if (f)
		fclose(f);
	return at;
}

static void runwind(void)
{
	static _Alignas(8) unsigned char buf[256 << 10], orig[256 << 10];
	struct rsp_runwind *rw = rsp_runwind_new();
	struct rsp_runwind_stats st;
	uint64_t id = RW_ID, nr, v, abi, size, ctx;
	size_t at = 0, maps_len, s1, s2, out, o;
	struct perf_event_header h;
	struct {
		struct perf_event_header h;
		uint32_t size, pad;
	} td = { { 66, 0, 16 }, 64, 0 };

	CHECK(rw && rsp_runwind_add_ids(rw, &id, 1, RW_ST, RW_MASK) == 0, "runwind: set up");
	CHECK(rw_top() >= 2 && rw_len >= 256, "runwind: %" PRIu64 " bytes of this stack copied", rw_len);
	if (!rw)
		return;
	/* tracing data whose payload looks like records, the maps, a sample of
	 * this process, one of a process without maps */
	at = put(buf, at, &td, sizeof(td));
	memset(buf + at, 0x09, 64);
	at += 64;
	maps_len = rw_maps(buf + at, sizeof(buf) / 2);
	at += maps_len;
	s1 = rw_sample(buf + at, (uint32_t)getpid());
	at += s1;
	s2 = rw_sample(buf + at, 1u << 30);
	at += s2;
	memcpy(orig, buf, at);
	out = rsp_runwind_filter(rw, buf, at);
	rsp_runwind_stats(rw, &st);
	CHECK_EQ_U64(st.samples, 2, "runwind: samples with copies");
	CHECK_EQ_U64(st.unwound, 1, "runwind: unwound");
	CHECK_EQ_U64(st.kept_no_maps, 1, "runwind: kept (no maps)");
	o = sizeof(td) + 64 + maps_len;
	CHECK(!memcmp(buf, orig, o), "runwind: the tracing data and the maps pass as they are");
	memcpy(&h, buf + o, sizeof(h));
	CHECK(h.type == PERF_RECORD_SAMPLE && h.size < s1 && out == at - (s1 - h.size),
	      "runwind: the sample shorter (%u of %zu bytes), the chunk %zu of %zu", h.size, s1,
	      out, at);
	/* the fields before the callchain, then [PERF_CONTEXT_USER, ip, returns...] */
	CHECK(!memcmp(buf + o + 8, orig + o + 8, 48), "runwind: id, ip, tid, time, cpu, period kept");
	memcpy(&nr, buf + o + 56, 8);
	CHECK(nr >= 4 && 56 + 8 + 8 * nr + 16 == h.size, "runwind: %" PRIu64 " callchain entries",
	      nr);
	if (nr >= 4 && 56 + 8 + 8 * nr + 16 == h.size) {
		memcpy(&ctx, buf + o + 64, 8);
		CHECK(ctx == (uint64_t)PERF_CONTEXT_USER, "runwind: PERF_CONTEXT_USER first");
		memcpy(&v, buf + o + 72, 8);
		CHECK_EQ_U64(v, rw_ip, "runwind: the sample's ip");
		memcpy(&v, buf + o + 80, 8);
		CHECK_EQ_U64(v, rw_ret[0], "runwind: rw_leaf's return address (into rw_mid)");
		memcpy(&v, buf + o + 88, 8);
		CHECK_EQ_U64(v, rw_ret[1], "runwind: rw_mid's return address (into rw_top)");
		memcpy(&abi, buf + o + 64 + 8 * nr, 8);
		memcpy(&size, buf + o + 72 + 8 * nr, 8);
		CHECK(abi == 0 && size == 0, "runwind: no registers, no copy");
	}
	/* the sample of a process without maps: as it was, right after */
	CHECK(out >= o + h.size + s2 && !memcmp(buf + o + h.size, orig + o + s1, s2),
	      "runwind: a sample it cannot unwind is kept whole");
	rsp_runwind_free(rw);
}

/* The tracing data's kallsyms: one zstd frame of the text without the padding symbols. */
static void tracing_data_kallsyms(void)
{
	static const char ks[] = "ffffffff81000000 T _stext\n"
				 "ffffffff81000010 t __pfx_f_one\n"
				 "ffffffff81000020 t f_one\n"
				 "ffffffff81000030 T __pfx_\n" /* a name that is only the prefix */
				 "ffffffffc0000010 t __pfx_ext4_fn\t[ext4]\n"
				 "ffffffffc0000020 t ext4_fn\t[ext4]\n"
				 "ffffffffc0000030 t last_no_newline";
	static const char want[] = "ffffffff81000000 T _stext\n"
				   "ffffffff81000020 t f_one\n"
				   "ffffffffc0000020 t ext4_fn\t[ext4]\n"
				   "ffffffffc0000030 t last_no_newline";
	char dir[] = "/tmp/rsp-td.XXXXXX", path[256], err[256], text[512];
	const unsigned char *p;
	size_t len = 0, got;
	uint64_t size;
	uint32_t zlen;
	void *data = NULL;

	if (!mkdtemp(dir)) {
		CHECK(0, "a scratch directory");
		return;
	}
	snprintf(path, sizeof(path), "%s/events", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/events/header_page", dir);
	put_file(path, "page\n");
	snprintf(path, sizeof(path), "%s/events/header_event", dir);
	put_file(path, "event\n");
	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	put_file(path, ks);
	CHECK(rsp_tracing_data_build(dir, NULL, 0, path, &data, &len, err, sizeof(err)) == 0,
	      "built: %s", err);
	/* magic, "0.6", endian, long size, page size; header_page, header_event;
	 * no ftrace events, no systems; then kallsyms */
	p = (const unsigned char *)data + RSP_PF_TRACING_MAGIC_LEN + 4 + 1 + 1 + 4 + 12;
	memcpy(&size, p, 8);
	p += 8 + size + 13;
	memcpy(&size, p, 8);
	p += 8 + size + 4 + 4;
	memcpy(&zlen, p, 4);
	CHECK(data && p + 4 + zlen <= (const unsigned char *)data + len, "kallsyms inside the payload");
	CHECK(zlen >= 4 && !memcmp(p + 4, "\x28\xb5\x2f\xfd", 4), "kallsyms as a zstd frame");
	got = ZSTD_decompress(text, sizeof(text) - 1, p + 4, zlen);
	CHECK(!ZSTD_isError(got), "the frame inflates");
	text[ZSTD_isError(got) ? 0 : got] = 0;
	if (strcmp(text, want))
		fprintf(stderr, "# the frame's text:\n%s\n", text);
	CHECK(!strcmp(text, want), "every line but the padding symbols', in order (%zu bytes)",
	      strlen(text));
	free(data);
	snprintf(path, sizeof(path), "%s/events/header_page", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/events/header_event", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/events", dir);
	rmdir(path);
	rmdir(dir);
}

/* Command lines (cmdline.h): a made-up /proc read as the recorder reads the real
 * one (a long one cut to RSP_CMDLINE_MAX with its length kept, an empty one
 * left out), an exec added, the records written as the file holds them. */
static void cmdlines(void)
{
	char dir[] = "/tmp/rsp-unit-proc-XXXXXX", path[128], why[256], err[256];
	char out[] = "/tmp/rsp-unit-cmd-XXXXXX";
	static char lng[5000];
	const struct {
		const char *pid, *text;
		size_t len;
	} procs[] = { { "123", "make\0-j2\0", 9 }, { "77", lng, sizeof(lng) }, { "9", "", 0 },
		      { "self", "x\0", 2 } };
	struct rsp_cmdlines *c;
	struct rsp_writer *w;
	unsigned char *buf;
	uint64_t n = 0, lost = 0;
	size_t len, found = 0;
	int fd;

	CHECK(mkdtemp(dir) != NULL, "a made-up /proc");
	memset(lng, 'a', RSP_CMDLINE_MAX);
	memset(lng + RSP_CMDLINE_MAX, 'b', sizeof(lng) - RSP_CMDLINE_MAX - 1);
	lng[sizeof(lng) - 1] = '\0';
	for (size_t i = 0; i < sizeof(procs) / sizeof(procs[0]); i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s", dir, procs[i].pid);
		mkdir(path, 0700);
		snprintf(path, sizeof(path), "%s/%s/cmdline", dir, procs[i].pid);
		f = fopen(path, "w");
		if (f) {
			fwrite(procs[i].text, 1, procs[i].len, f);
			fclose(f);
		}
	}
	c = rsp_cmdlines_start(dir, false, why, sizeof(why));
	CHECK(c && !why[0], "started without the program (%s)", why);
	CHECK(c && rsp_cmdlines_add(c, 5000, 456, "cc\0-c\0x.c\0", 10, 10) == 0, "an exec added");
	fd = mkstemp(out);
	close(fd);
	unlink(out);
	CHECK(rsp_writer_open(&w, out, err, sizeof(err)) == 0, "writer opens");
	CHECK(c && rsp_cmdlines_finish(c, w, &n, &lost) == 0 && n == 3 && lost == 0,
	      "three written, none lost (%" PRIu64 ", %" PRIu64 ")", n, lost);
	rsp_writer_close(w, NULL, NULL, NULL, NULL);
	rsp_cmdlines_free(c);
	buf = slurp(out, &len);
	for (size_t off = 16; buf && off + 8 <= len;) {
		const struct perf_event_header *h = (const void *)(buf + off);
		struct rsp_pf_cmdline r;

		if (h->size < 8)
			break;
		if (h->type == RSP_PF_RECORD_HEADER_EVENT_TYPE && h->size >= sizeof(r)) {
			memcpy(&r, h, sizeof(r));
			found++;
			CHECK(r.magic == RSP_PF_CMDLINE_MAGIC && h->size % 8 == 0 &&
				      h->size == RSP_PF_ALIGN(sizeof(r) + r.len),
			      "record %zu: magic, size", found);
			if (r.pid == 123)
				CHECK(r.time == 0 && r.len == 9 && r.full_len == 9 &&
					      !memcmp(buf + off + sizeof(r), "make\0-j2\0", 9),
				      "/proc's, whole");
			else if (r.pid == 77)
				CHECK(r.time == 0 && r.len == RSP_CMDLINE_MAX &&
					      r.full_len == sizeof(lng) &&
					      !memcmp(buf + off + sizeof(r), lng, RSP_CMDLINE_MAX),
				      "/proc's long one: its first 4096 bytes, its length");
			else
				CHECK(r.pid == 456 && r.time == 5000 && r.len == 10 &&
					      !memcmp(buf + off + sizeof(r), "cc\0-c\0x.c\0", 10),
				      "the exec's");
		}
		off += h->size;
	}
	CHECK(found == 3, "three command-line records in the file (%zu)", found);
	free(buf);
	unlink(out);
	for (size_t i = 0; i < sizeof(procs) / sizeof(procs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s/cmdline", dir, procs[i].pid);
		unlink(path);
		snprintf(path, sizeof(path), "%s/%s", dir, procs[i].pid);
		rmdir(path);
	}
	rmdir(dir);
}

int main(int argc, char **argv)
{
	tap_init(argc, argv);
	TAP_RUN("tidmap", tidmap());
	TAP_RUN("ustack", ustack());
	TAP_RUN("ustack_entry", ustack_entry());
	TAP_RUN("pathset", pathset());
	TAP_RUN("buildid_notes", buildid_notes());
	TAP_RUN("writer_framing", writer_framing());
	TAP_RUN("writer_frames", writer_frames());
	TAP_RUN("runwind", runwind());
	TAP_RUN("jitmaps", jitmaps());
	TAP_RUN("tracing_data_kallsyms", tracing_data_kallsyms());
	TAP_RUN("cmdlines", cmdlines());
	return tap_done();
}
