/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Build ids: comparing them as perf pads them, reading one from an ELF image,
 * and where a debug directory keeps the file of one
 * (<debug_dir>/.build-id/xx/yyyy.debug).
 */
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "symbols/symbols-private.h"

bool _rsp_build_id_equal(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	/* perf pads ids to 20 bytes: a shorter id equals its zero-padded form */
	const uint8_t *longer = alen > blen ? a : b;
	size_t min = alen < blen ? alen : blen, max = alen > blen ? alen : blen;

	if (!min || memcmp(a, b, min))
		return false;
	for (size_t i = min; i < max; i++)
		if (longer[i])
			return false;
	return true;
}

size_t _rsp_elf_build_id(Elf *elf, uint8_t *id)
{
	const void *p;
	ssize_t n = dwelf_elf_gnu_build_id(elf, &p);

	if (n <= 0 || n > _RSP_BUILD_ID_MAX)
		return 0;
	memcpy(id, p, (size_t)n);
	return (size_t)n;
}

int _rsp_build_id_path(const char *dir, const uint8_t *id, size_t len, const char *suffix,
		       char *buf, size_t size)
{
	size_t n, m = strlen(suffix) + 1;
	int r;

	if (len < 2)
		return -ENOENT;
	r = snprintf(buf, size, "%s%s.build-id/%02x/", dir, *dir ? "/" : "", id[0]);
	if (r < 0 || (size_t)r >= size)
		return -ENAMETOOLONG;
	n = (size_t)r;
	for (size_t i = 1; i < len; i++) {
		if (n + 3 >= size)
			return -ENAMETOOLONG;
		snprintf(buf + n, 3, "%02x", id[i]);
		n += 2;
	}
	if (n + m > size)
		return -ENAMETOOLONG;
	memcpy(buf + n, suffix, m);
	return 0;
}
