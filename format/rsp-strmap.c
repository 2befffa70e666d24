/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A string -> uint32_t map (rsp-strmap.h). */
#include "rsp-strmap.h"

#include "rsp-hash.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int grow(struct rsp_strmap *m)
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
		for (k = rsp_hash_str(m->keys[i]) & (cap - 1); keys[k]; k = (k + 1) & (cap - 1))
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

int rsp_strmap_get_or_add(struct rsp_strmap *m, const char *key, uint32_t val, uint32_t *out,
                          bool *added)
{
	size_t i;

	if ((m->n + 1) * 2 > m->cap && grow(m))
		return -ENOMEM;
	for (i = rsp_hash_str(key) & (m->cap - 1); m->keys[i]; i = (i + 1) & (m->cap - 1)) {
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

void rsp_strmap_free(struct rsp_strmap *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->keys[i]);
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}
