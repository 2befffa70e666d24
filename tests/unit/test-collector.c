/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Collector pieces that need no kernel: the tid map, the path set, build-id
 * notes, and the writer's record framing (read back byte by byte).
 */
#include "rsp-buildid.h"
#include "pathset.h"
#include "records.h"
#include "rsp-perf-format.h"
#include "tap.h"
#include "tidmap.h"
#include "writer.h"

#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

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
	CHECK(rsp_writer_close(w) == 0, "writer closes cleanly");
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
	rsp_writer_close(w);
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
}

int main(void)
{
	tidmap();
	pathset();
	buildid_notes();
	writer_framing();
	return tap_done();
}
