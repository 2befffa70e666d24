/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one hash of rsp's tables keyed by strings or bytes (the recorder's, the
 * model's, the CLI's exports): 64-bit FNV-1a.  Its low bits are weak for
 * short keys; a table that masks them may fold the high half in first.
 */
#ifndef RSP_FORMAT_HASH_H
#define RSP_FORMAT_HASH_H

#include <stddef.h>
#include <stdint.h>

#define RSP_HASH_SEED 0xcbf29ce484222325ull

/* @h (RSP_HASH_SEED to start) carried over @len bytes at @p */
static inline uint64_t rsp_hash_bytes(uint64_t h, const void *p, size_t len)
{
	const unsigned char *s = p;

	for (size_t i = 0; i < len; i++)
		h = (h ^ s[i]) * 0x100000001b3ull;
	return h;
}

/* a string's bytes, its NUL not included */
static inline uint64_t rsp_hash_str(const char *s)
{
	uint64_t h = RSP_HASH_SEED;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

#endif /* RSP_FORMAT_HASH_H */
