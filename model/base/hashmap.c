/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Small open-addressing hash maps (hashmap.h). */
#include "base/hashmap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static uint64_t hash_u64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

bool _rsp_u64map_get(const struct _rsp_u64map *m, uint64_t key, uint32_t *val)
{
	if (!m->cap)
		return false;
	for (size_t i = hash_u64(key) & (m->cap - 1); m->v[i].key != UINT64_MAX;
	     i = (i + 1) & (m->cap - 1)) {
		if (m->v[i].key == key) {
			*val = m->v[i].val;
			return true;
		}
	}
	return false;
}

int _rsp_u64map_put(struct _rsp_u64map *m, uint64_t key, uint32_t val)
{
	size_t i;

	if (key == UINT64_MAX) /* the empty slot's mark: never a key */
		return -EINVAL;
	if ((m->n + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 256;
		struct _rsp_u64slot *v = malloc(cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		for (size_t j = 0; j < cap; j++)
			v[j].key = UINT64_MAX;
		for (size_t j = 0; j < m->cap; j++) {
			if (m->v[j].key == UINT64_MAX)
				continue;
			for (i = hash_u64(m->v[j].key) & (cap - 1); v[i].key != UINT64_MAX;
			     i = (i + 1) & (cap - 1))
				;
			v[i] = m->v[j];
		}
		free(m->v);
		m->v = v;
		m->cap = cap;
	}
	for (i = hash_u64(key) & (m->cap - 1); m->v[i].key != UINT64_MAX; i = (i + 1) & (m->cap - 1))
		if (m->v[i].key == key)
			break;
	if (m->v[i].key == UINT64_MAX)
		m->n++;
	m->v[i].key = key;
	m->v[i].val = val;
	return 0;
}

void _rsp_u64map_free(struct _rsp_u64map *m)
{
	free(m->v);
	memset(m, 0, sizeof(*m));
}


/* The first empty slot from @key's home in @v (@cap slots, a power of two, one empty at least). */
static size_t multi_slot(const struct _rsp_u64multi_ent *v, size_t cap, uint64_t key)
{
	size_t i;

	for (i = hash_u64(key) & (cap - 1); v[i].val1; i = (i + 1) & (cap - 1))
		;
	return i;
}

int _rsp_u64multi_add(struct _rsp_u64multi *m, uint64_t key, uint32_t val)
{
	if ((m->n + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 256;
		struct _rsp_u64multi_ent *v = calloc(cap, sizeof(*v));

		if (!v)
			return -ENOMEM;
		for (size_t j = 0; j < m->cap; j++)
			if (m->v[j].val1)
				v[multi_slot(v, cap, m->v[j].key)] = m->v[j];
		free(m->v);
		m->v = v;
		m->cap = cap;
	}
	m->v[multi_slot(m->v, m->cap, key)] = (struct _rsp_u64multi_ent){ key, val + 1 };
	m->n++;
	return 0;
}

bool _rsp_u64multi_del(struct _rsp_u64multi *m, uint64_t key, uint32_t val)
{
	size_t mask = m->cap - 1, i, j;

	if (!m->cap)
		return false;
	for (i = hash_u64(key) & mask; m->v[i].val1; i = (i + 1) & mask)
		if (m->v[i].key == key && m->v[i].val1 == val + 1)
			break;
	if (!m->v[i].val1)
		return false;
	m->n--;
	for (;;) {
		m->v[i].val1 = 0;
		for (j = (i + 1) & mask;; j = (j + 1) & mask) {
			size_t home;

			if (!m->v[j].val1)
				return true;
			home = hash_u64(m->v[j].key) & mask;
			/* j's entry may fill the gap at i unless its home is cyclically in (i, j] */
			if (i < j ? home <= i || home > j : home <= i && home > j)
				break;
		}
		m->v[i] = m->v[j];
		i = j;
	}
}

bool _rsp_u64multi_next(const struct _rsp_u64multi *m, uint64_t key, size_t *it, uint32_t *val)
{
	size_t mask = m->cap - 1;

	if (!m->cap)
		return false;
	/* *it: 0 at first, then the slot after the last value returned + 1 */
	for (size_t i = *it ? *it - 1 : hash_u64(key) & mask; m->v[i].val1; i = (i + 1) & mask)
		if (m->v[i].key == key) {
			*val = m->v[i].val1 - 1;
			*it = ((i + 1) & mask) + 1;
			return true;
		}
	return false;
}

void _rsp_u64multi_free(struct _rsp_u64multi *m)
{
	free(m->v);
	memset(m, 0, sizeof(*m));
}
