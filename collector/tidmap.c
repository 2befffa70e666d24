/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "tidmap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static uint32_t slot(uint32_t key, uint32_t cap)
{
	return (key * 2654435761u) & (cap - 1);
}

static int grow(struct rsp_tidmap *m)
{
	uint32_t cap = m->cap ? m->cap * 2 : 1024;
	uint32_t *keys = calloc(cap, sizeof(*keys));
	uint32_t *vals = calloc(cap, sizeof(*vals));

	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < m->cap; i++) {
		uint32_t k = m->keys[i], s;

		if (!k)
			continue;
		for (s = slot(k, cap); keys[s]; s = (s + 1) & (cap - 1))
			;
		keys[s] = k;
		vals[s] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->cap = cap;
	return 0;
}

int rsp_tidmap_set(struct rsp_tidmap *m, uint32_t tid, uint32_t tgid)
{
	uint32_t k = tid + 1, s;

	if ((m->n + 1) * 2 > m->cap && grow(m))
		return -ENOMEM;
	for (s = slot(k, m->cap); m->keys[s]; s = (s + 1) & (m->cap - 1)) {
		if (m->keys[s] == k) {
			m->vals[s] = tgid;
			return 0;
		}
	}
	m->keys[s] = k;
	m->vals[s] = tgid;
	m->n++;
	return 0;
}

int64_t rsp_tidmap_get(const struct rsp_tidmap *m, uint32_t tid)
{
	uint32_t k = tid + 1;

	if (!m->cap)
		return -1;
	for (uint32_t s = slot(k, m->cap); m->keys[s]; s = (s + 1) & (m->cap - 1))
		if (m->keys[s] == k)
			return m->vals[s];
	return -1;
}

void rsp_tidmap_free(struct rsp_tidmap *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}
