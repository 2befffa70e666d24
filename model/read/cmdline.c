/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rsp record's command-line records (format/rsp-cmdline-format.h): a
 * HEADER_EVENT_TYPE record with rsp's magic, its argv as /proc/PID/cmdline
 * holds it.  The record is hostile: every length is checked; the text is
 * printable UTF-8 (a byte that is not becomes '?').
 */
#include "reader.h"

#include "rsp-cmdline-format.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define CUT_MARK " [...]"

/* The length of the valid UTF-8 sequence at @p (@n bytes left), 0 if none. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	size_t k = p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 ? 2 : 0;

	if (!k || k > n)
		return 0;
	for (size_t i = 1; i < k; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	if ((k == 3 && p[0] == 0xe0 && p[1] < 0xa0) || (k == 3 && p[0] == 0xed && p[1] >= 0xa0) ||
	    (k == 4 && p[0] == 0xf0 && p[1] < 0x90) || (k == 4 && p[0] == 0xf4 && p[1] >= 0x90))
		return 0; /* overlong, a surrogate, past U+10FFFF */
	return k;
}

int rsp_cmdline_parse(const void *rec, size_t size, struct rsp_cmdline_entry *out)
{
	struct rsp_pf_cmdline h;
	const unsigned char *argv = (const unsigned char *)rec + sizeof(h);
	size_t n = 0, len;
	char *text;

	memset(out, 0, sizeof(*out));
	if (size < 16 || memcmp((const char *)rec + 8, &(uint64_t){ RSP_PF_CMDLINE_MAGIC }, 8))
		return 0;
	if (size < sizeof(h))
		return -EINVAL;
	memcpy(&h, rec, sizeof(h));
	if (h.len > size - sizeof(h) || h.len > RSP_CMDLINE_MAX || h.full_len < h.len ||
	    h.pid == 0 || h.pid > 0x7fffffff || h.len == 0)
		return -EINVAL;
	len = h.len;
	while (len && argv[len - 1] == '\0') /* the last argument's terminator */
		len--;
	if (!len)
		return -EINVAL;
	text = malloc(len + sizeof(CUT_MARK));
	if (!text)
		return -ENOMEM;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = argv[i];
		size_t k = c >= 0x80 ? utf8_len(argv + i, len - i) : 1;

		if (k > 1) {
			memcpy(text + n, argv + i, k);
			n += k;
			i += k - 1;
			continue;
		}
		text[n++] = c == '\0' ? ' ' : (c < 0x20 || c >= 0x7f) ? '?' : (char)c;
	}
	out->cut = h.full_len > h.len;
	if (out->cut) {
		memcpy(text + n, CUT_MARK, sizeof(CUT_MARK) - 1);
		n += sizeof(CUT_MARK) - 1;
	}
	text[n] = '\0';
	out->text = text;
	out->time = h.time;
	out->pid = (int)h.pid;
	return 1;
}
