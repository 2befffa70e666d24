/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A string -> uint32_t map, open addressing on rsp_hash_str(): the model's
 * aggregations and the CLI's exports give each distinct string (a stack, a
 * name) its index this way.  The keys are copied; zero-initialize to start.
 */
#ifndef RSP_FORMAT_STRMAP_H
#define RSP_FORMAT_STRMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rsp_strmap {
	char **keys;
	uint32_t *vals;
	size_t cap, n;
};

/* The value of @key, or add it with @val.  -ENOMEM or 0; *added (if given) says which. */
int rsp_strmap_get_or_add(struct rsp_strmap *m, const char *key, uint32_t val, uint32_t *out,
                          bool *added);
/* Every key freed; the map empty again. */
void rsp_strmap_free(struct rsp_strmap *m);

#endif /* RSP_FORMAT_STRMAP_H */
