/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A symbol archive (`rsp archive`, docs/perf-data.md): an uncompressed POSIX
 * tar beside the trace, FILE.archive, whose members are named by build id as a
 * debug directory is, .build-id/xx/yyyy (the file the trace mapped) and
 * .build-id/xx/yyyy.debug (its separate debug file), plus kallsyms (the text
 * of /proc/kallsyms) and MANIFEST (one "build-id path" line per file).  The
 * tar is mapped once, private and writable as libelf wants its images, and a
 * member is handed out in place: tar keeps each member's bytes whole and
 * 512-byte aligned.  Every header is checked against what remains (a cut or
 * crafted archive yields the members before the damage).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols/symbols-private.h"

#define BLOCK 512
#define MAX_MEMBERS 65536

struct member {
	char name[256];
	uint64_t off, size;
};

struct _rsp_archive {
	void *map;
	size_t size;
	struct member *m;
	size_t n;
};

/* An octal field (NUL or space terminated); false if malformed. */
static bool octal(const unsigned char *p, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;

	while (i < len && p[i] == ' ')
		i++;
	if (i == len || p[i] < '0' || p[i] > '7')
		return false;
	for (; i < len && p[i] >= '0' && p[i] <= '7'; i++) {
		if (v >> 60)
			return false;
		v = v * 8 + (uint64_t)(p[i] - '0');
	}
	if (i < len && p[i] && p[i] != ' ')
		return false;
	*out = v;
	return true;
}

static bool header_ok(const unsigned char *h)
{
	uint64_t want, sum = 0;

	if (!octal(h + 148, 8, &want))
		return false;
	for (size_t i = 0; i < BLOCK; i++)
		sum += i >= 148 && i < 156 ? ' ' : h[i];
	return sum == want;
}

int _rsp_archive_open(struct _rsp_archive **out, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY), err = 0;
	struct _rsp_archive *a = NULL;
	struct stat st;
	size_t cap = 0;

	*out = NULL;
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		err = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode) || st.st_size < BLOCK || (uint64_t)st.st_size > SIZE_MAX / 2) {
		err = -EINVAL;
		goto out;
	}
	a = calloc(1, sizeof(*a));
	if (!a) {
		err = -ENOMEM;
		goto out;
	}
	a->size = (size_t)st.st_size;
	a->map = mmap(NULL, a->size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (a->map == MAP_FAILED) {
		a->map = NULL;
		err = -errno;
		goto out;
	}
	for (size_t at = 0; at + BLOCK <= a->size && a->n < MAX_MEMBERS;) {
		const unsigned char *h = (const unsigned char *)a->map + at;
		uint64_t size;
		struct member *m;
		size_t plen, nlen;

		if (!h[0] || !header_ok(h) || !octal(h + 124, 12, &size) ||
		    size > a->size - at - BLOCK)
			break;
		at += BLOCK;
		if (h[156] == '0' || h[156] == '\0') { /* a regular file */
			if (a->n == cap) {
				size_t c = cap ? cap * 2 : 64;
				struct member *v = realloc(a->m, c * sizeof(*v));

				if (!v) {
					err = -ENOMEM;
					goto out;
				}
				a->m = v;
				cap = c;
			}
			m = &a->m[a->n];
			plen = !memcmp(h + 257, "ustar", 5) ? strnlen((const char *)h + 345, 155) : 0;
			nlen = strnlen((const char *)h, 100);
			if (plen) {
				memcpy(m->name, h + 345, plen);
				m->name[plen++] = '/';
			}
			memcpy(m->name + plen, h, nlen);
			m->name[plen + nlen] = '\0';
			m->off = at;
			m->size = size;
			a->n++;
		}
		at += (size_t)((size + BLOCK - 1) / BLOCK * BLOCK);
	}
	if (!a->n)
		err = -ENOENT;
out:
	close(fd);
	if (err) {
		_rsp_archive_free(a);
		return err;
	}
	*out = a;
	return 0;
}

void _rsp_archive_free(struct _rsp_archive *a)
{
	if (!a)
		return;
	if (a->map)
		munmap(a->map, a->size);
	free(a->m);
	free(a);
}

bool _rsp_archive_find(const struct _rsp_archive *a, const char *name, void **data, size_t *size)
{
	for (size_t i = 0; a && i < a->n; i++) {
		const char *n = a->m[i].name;

		if (n[0] == '.' && n[1] == '/') /* "./.build-id/..." as tar -C DIR . writes */
			n += 2;
		if (!strcmp(n, name)) {
			*data = (char *)a->map + a->m[i].off;
			*size = (size_t)a->m[i].size;
			return true;
		}
	}
	return false;
}
