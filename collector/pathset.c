/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "pathset.h"

#include "rsp-hash.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static size_t find(char **slots, size_t cap, const char *path)
{
	size_t i = rsp_hash_str(path) & (cap - 1);

	while (slots[i] && strcmp(slots[i], path))
		i = (i + 1) & (cap - 1);
	return i;
}

static int grow(struct rsp_pathset *s)
{
	size_t cap = s->cap ? s->cap * 2 : 256;
	char **slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < s->cap; i++)
		if (s->slots[i])
			slots[find(slots, cap, s->slots[i])] = s->slots[i];
	free(s->slots);
	s->slots = slots;
	s->cap = cap;
	return 0;
}

int rsp_pathset_add(struct rsp_pathset *s, const char *path)
{
	size_t i;

	if ((s->n + 1) * 2 > s->cap && grow(s))
		return -ENOMEM;
	i = find(s->slots, s->cap, path);
	if (s->slots[i])
		return 0;
	s->slots[i] = strdup(path);
	if (!s->slots[i])
		return -ENOMEM;
	s->n++;
	return 1;
}

void rsp_pathset_free(struct rsp_pathset *s)
{
	for (size_t i = 0; i < s->cap; i++)
		free(s->slots[i]);
	free(s->slots);
	memset(s, 0, sizeof(*s));
}
