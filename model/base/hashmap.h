/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Two small open-addressing hash maps: string -> uint32_t and
 * uint64_t -> uint32_t.  Internal to model/.
 */
#ifndef RSP_MODEL_BASE_HASHMAP_H
#define RSP_MODEL_BASE_HASHMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* string -> uint32_t; keys copied */
struct _rsp_strmap {
	char **keys;
	uint32_t *vals;
	size_t cap, n;
};
/* The value of @key, or add it with @val.  -ENOMEM or 0; *added says which. */
int _rsp_strmap_get_or_add(struct _rsp_strmap *m, const char *key, uint32_t val,
			   uint32_t *out, bool *added);
void _rsp_strmap_free(struct _rsp_strmap *m);

/* uint64_t (never UINT64_MAX) -> uint32_t */
struct _rsp_u64map {
	uint64_t *keys;
	uint32_t *vals;
	size_t cap, n;
};
/* true and *val if present */
bool _rsp_u64map_get(const struct _rsp_u64map *m, uint64_t key, uint32_t *val);
int _rsp_u64map_put(struct _rsp_u64map *m, uint64_t key, uint32_t val);
void _rsp_u64map_free(struct _rsp_u64map *m);

#endif /* RSP_MODEL_BASE_HASHMAP_H */
