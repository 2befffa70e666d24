/* SPDX-License-Identifier: GPL-2.0-or-later */
/* An intrusive chained hash table (htab.h). */
#include <errno.h>
#include <stdlib.h>

#include "base/htab.h"

static size_t bucket(uint64_t hash, size_t cap)
{
	/* FNV's low bits are weak for small keys: fold the high half in */
	return (size_t)(hash ^ (hash >> 29) ^ (hash >> 47)) & (cap - 1);
}

static int grow(struct _rsp_htab *t)
{
	size_t cap = t->cap ? t->cap * 2 : 64;
	struct _rsp_hnode **b = calloc(cap, sizeof(*b));

	if (!b)
		return -ENOMEM;
	for (size_t i = 0; i < t->cap; i++) {
		struct _rsp_hnode *n = t->buckets[i], *next;

		for (; n; n = next) {
			size_t j = bucket(n->hash, cap);

			next = n->next;
			n->next = b[j];
			b[j] = n;
		}
	}
	free(t->buckets);
	t->buckets = b;
	t->cap = cap;
	return 0;
}

int _rsp_htab_insert(struct _rsp_htab *t, struct _rsp_hnode *node)
{
	size_t j;

	if (t->n >= t->cap && grow(t))
		return -ENOMEM;
	j = bucket(node->hash, t->cap);
	node->next = t->buckets[j];
	t->buckets[j] = node;
	t->n++;
	return 0;
}

struct _rsp_hnode *_rsp_htab_chain(const struct _rsp_htab *t, uint64_t hash)
{
	return t->cap ? t->buckets[bucket(hash, t->cap)] : NULL;
}

void _rsp_htab_release(struct _rsp_htab *t)
{
	free(t->buckets);
	t->buckets = NULL;
	t->cap = t->n = 0;
}
