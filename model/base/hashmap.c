/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Two small open-addressing hash maps (hashmap.h). */
#include "base/hashmap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static uint64_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

static uint64_t hash_u64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

static int strmap_grow(struct _rsp_strmap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 256;
	char **keys = calloc(cap, sizeof(*keys));
	uint32_t *vals = calloc(cap, sizeof(*vals));

	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++) {
		size_t k;

		if (!m->keys[i])
			continue;
		for (k = hash_str(m->keys[i]) & (cap - 1); keys[k]; k = (k + 1) & (cap - 1))
			;
		keys[k] = m->keys[i];
		vals[k] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->cap = cap;
	return 0;
}

int _rsp_strmap_get_or_add(struct _rsp_strmap *m, const char *key, uint32_t val,
			   uint32_t *out, bool *added)
{
	size_t i;

	if ((m->n + 1) * 2 > m->cap && strmap_grow(m))
		return -ENOMEM;
	for (i = hash_str(key) & (m->cap - 1); m->keys[i]; i = (i + 1) & (m->cap - 1)) {
		if (!strcmp(m->keys[i], key)) {
			*out = m->vals[i];
			if (added)
				*added = false;
			return 0;
		}
	}
	m->keys[i] = strdup(key);
	if (!m->keys[i])
		return -ENOMEM;
	m->vals[i] = val;
	m->n++;
	*out = val;
	if (added)
		*added = true;
	return 0;
}

void _rsp_strmap_free(struct _rsp_strmap *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->keys[i]);
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

bool _rsp_u64map_get(const struct _rsp_u64map *m, uint64_t key, uint32_t *val)
{
	if (!m->cap)
		return false;
	for (size_t i = hash_u64(key) & (m->cap - 1); m->keys[i] != UINT64_MAX;
	     i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == key) {
			*val = m->vals[i];
			return true;
		}
	}
	return false;
}

int _rsp_u64map_put(struct _rsp_u64map *m, uint64_t key, uint32_t val)
{
	size_t i;

	if ((m->n + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 256;
		uint64_t *keys = malloc(cap * sizeof(*keys));
		uint32_t *vals = malloc(cap * sizeof(*vals));

		if (!keys || !vals) {
			free(keys);
			free(vals);
			return -ENOMEM;
		}
		memset(keys, 0xff, cap * sizeof(*keys));
		for (size_t j = 0; j < m->cap; j++) {
			if (m->keys[j] == UINT64_MAX)
				continue;
			for (i = hash_u64(m->keys[j]) & (cap - 1); keys[i] != UINT64_MAX;
			     i = (i + 1) & (cap - 1))
				;
			keys[i] = m->keys[j];
			vals[i] = m->vals[j];
		}
		free(m->keys);
		free(m->vals);
		m->keys = keys;
		m->vals = vals;
		m->cap = cap;
	}
	for (i = hash_u64(key) & (m->cap - 1); m->keys[i] != UINT64_MAX; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == key)
			break;
	if (m->keys[i] == UINT64_MAX)
		m->n++;
	m->keys[i] = key;
	m->vals[i] = val;
	return 0;
}

void _rsp_u64map_free(struct _rsp_u64map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

