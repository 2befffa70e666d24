/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tracing-data payload (perf's trace-event-info layout, version 0.6):
 * what lets a reader on another machine decode every tracepoint field by
 * name.  rsp also keeps /proc/kallsyms in it (perf 6.1 writes an empty one and
 * skips a non-empty one), so kernel stacks symbolize without the recording
 * machine: as one zstd frame (the text starts with a hex digit, a frame with
 * its magic), since the head is written uncompressed and 5.4 MB of text was
 * most of a short recording's file (1.0 MB at zstd's level 3, in 30 ms;
 * 0.63 MB without the padding symbols).
 */
#include "tracing-data.h"

#include "buf.h"
#include "rsp-perf-format.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#define KALLSYMS_LEVEL 3

/* Read a whole tracefs/procfs file (their st_size is meaningless). */
static int slurp(const char *path, struct rsp_buf *out)
{
	char chunk[65536];
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			n = -errno;
			close(fd);
			return (int)n;
		}
		if (n == 0)
			break;
		if (rsp_buf_put(out, chunk, n)) {
			close(fd);
			return -ENOMEM;
		}
	}
	close(fd);
	return 0;
}

/* size (@size_bytes wide) then the file's bytes */
static int put_file(struct rsp_buf *b, const char *path, int size_bytes, bool optional)
{
	struct rsp_buf f = { 0 };
	int ret = slurp(path, &f);

	if (ret && !(optional && ret == -ENOENT)) {
		rsp_buf_free(&f);
		return ret;
	}
	if (size_bytes == 8)
		rsp_buf_put_u64(b, f.len);
	else
		rsp_buf_put_u32(b, (uint32_t)f.len);
	rsp_buf_put(b, f.p, f.len);
	rsp_buf_free(&f);
	return b->err;
}

/*
 * Drop the symbols of the padding before each function (__pfx_NAME, 16
 * bytes the kernel never runs but as a call thunk): half of this kernel's
 * kallsyms (57,824 of 122,120 lines), which then compresses to 0.63 MB, not
 * 1.0.  An address in such padding is named by the function before it.
 */
static void drop_padding(struct rsp_buf *f)
{
	char *in = (char *)f->p, *end = in + f->len, *out = in;

	while (in < end) {
		char *nl = memchr(in, '\n', (size_t)(end - in));
		char *line_end = nl ? nl + 1 : end;
		/* "ADDRESS TYPE NAME...": the name after the second blank */
		char *name = memchr(in, ' ', (size_t)(line_end - in));

		name = name ? memchr(name + 1, ' ', (size_t)(line_end - name - 1)) : NULL;
		if (!name || (size_t)(line_end - name) < 7 || memcmp(name + 1, "__pfx_", 6)) {
			memmove(out, in, (size_t)(line_end - in));
			out += line_end - in;
		}
		in = line_end;
	}
	f->len = (size_t)(out - (char *)f->p);
}

/* u32 size then @path's text, its padding symbols dropped, as one zstd frame */
static int put_compressed(struct rsp_buf *b, const char *path)
{
	struct rsp_buf f = { 0 };
	void *z = NULL;
	size_t zlen = 0;
	int ret = slurp(path, &f);

	if (!ret)
		drop_padding(&f);
	if (!ret && f.len) {
		size_t bound = ZSTD_compressBound(f.len);

		z = bound <= UINT32_MAX ? malloc(bound) : NULL;
		if (!z)
			ret = -ENOMEM;
		else
			zlen = ZSTD_compress(z, bound, f.p, f.len, KALLSYMS_LEVEL);
		if (!ret && ZSTD_isError(zlen))
			ret = -ENOMEM; /* the bound was given: only an allocation fails */
	}
	rsp_buf_free(&f);
	if (!ret) {
		rsp_buf_put_u32(b, (uint32_t)zlen);
		rsp_buf_put(b, z, zlen);
		ret = b->err;
	}
	free(z);
	return ret;
}

static bool same_system(const struct rsp_tp_name *a, const struct rsp_tp_name *b)
{
	return !strcmp(a->system, b->system);
}

int rsp_tracing_data_build(const char *tracefs, const struct rsp_tp_name *tps, size_t n,
			   const char *kallsyms_path, void **data, size_t *len, char *err,
			   size_t errlen)
{
	struct rsp_buf b = { 0 };
	char path[4096];
	uint32_t nsys = 0;
	uint8_t endian = 0, lsize = sizeof(long);
	uint32_t page = (uint32_t)sysconf(_SC_PAGESIZE);
	int ret;

	*data = NULL;
	*len = 0;
	rsp_buf_put(&b, RSP_PF_TRACING_MAGIC, RSP_PF_TRACING_MAGIC_LEN);
	rsp_buf_put(&b, "0.6", 4);
	rsp_buf_put(&b, &endian, 1);
	rsp_buf_put(&b, &lsize, 1);
	rsp_buf_put_u32(&b, page);

	rsp_buf_put(&b, "header_page", 12);
	snprintf(path, sizeof(path), "%s/events/header_page", tracefs);
	ret = put_file(&b, path, 8, false);
	if (ret)
		goto fail_path;
	rsp_buf_put(&b, "header_event", 13);
	snprintf(path, sizeof(path), "%s/events/header_event", tracefs);
	ret = put_file(&b, path, 8, false);
	if (ret)
		goto fail_path;

	/* no ftrace-internal events */
	rsp_buf_put_u32(&b, 0);

	/* systems in first-seen order; callers list each system's events together */
	for (size_t i = 0; i < n; i++) {
		bool seen = false;

		for (size_t j = 0; j < i; j++)
			seen |= same_system(&tps[i], &tps[j]);
		nsys += !seen;
	}
	rsp_buf_put_u32(&b, nsys);
	for (size_t i = 0; i < n; i++) {
		uint32_t count = 0;
		bool seen = false;

		for (size_t j = 0; j < i; j++)
			seen |= same_system(&tps[i], &tps[j]);
		if (seen)
			continue;
		for (size_t j = i; j < n; j++)
			count += same_system(&tps[i], &tps[j]);
		rsp_buf_put(&b, tps[i].system, strlen(tps[i].system) + 1);
		rsp_buf_put_u32(&b, count);
		for (size_t j = i; j < n; j++) {
			if (!same_system(&tps[i], &tps[j]))
				continue;
			snprintf(path, sizeof(path), "%s/events/%s/%s/format", tracefs,
				 tps[j].system, tps[j].name);
			ret = put_file(&b, path, 8, false);
			if (ret)
				goto fail_path;
		}
	}

	if (kallsyms_path) {
		ret = put_compressed(&b, kallsyms_path);
		if (ret) {
			snprintf(path, sizeof(path), "%s", kallsyms_path);
			goto fail_path;
		}
	} else {
		rsp_buf_put_u32(&b, 0);
	}
	snprintf(path, sizeof(path), "%s/printk_formats", tracefs);
	ret = put_file(&b, path, 4, true);
	if (ret)
		goto fail_path;
	snprintf(path, sizeof(path), "%s/saved_cmdlines", tracefs);
	ret = put_file(&b, path, 8, true);
	if (ret)
		goto fail_path;
	if (b.err) {
		ret = b.err;
		snprintf(err, errlen, "out of memory building tracing data");
		goto fail;
	}
	*data = b.p;
	*len = b.len;
	return 0;

fail_path:
	snprintf(err, errlen, "cannot read %s: %s", path, strerror(-ret));
fail:
	rsp_buf_free(&b);
	return ret;
}
