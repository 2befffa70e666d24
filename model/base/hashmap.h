/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Small open-addressing hash maps: uint64_t -> uint32_t and uint64_t -> several
 * uint32_t with deletion.  Internal to model/ (the string map is format/rsp-strmap.h).
 */
#ifndef RSP_MODEL_BASE_HASHMAP_H
#define RSP_MODEL_BASE_HASHMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* uint64_t -> uint32_t; a key beside its value: a probe reads one line.  UINT64_MAX
 * marks an empty slot: never found, never stored (put says -EINVAL) */
struct _rsp_u64slot {
	uint64_t key;
	uint32_t val;
};
struct _rsp_u64map {
	struct _rsp_u64slot *v;
	size_t cap, n;
};
/* true and *val if present */
bool _rsp_u64map_get(const struct _rsp_u64map *m, uint64_t key, uint32_t *val);
int _rsp_u64map_put(struct _rsp_u64map *m, uint64_t key, uint32_t val);
void _rsp_u64map_free(struct _rsp_u64map *m);

/*
 * uint64_t -> uint32_t values (never UINT32_MAX), a key with any number of
 * them, an entry removed by its key and value (linear probing, the entries
 * after it shifted back: no tombstones, a lookup's cost stays that of the
 * entries present).
 */
struct _rsp_u64multi {
	struct _rsp_u64multi_ent {
		uint64_t key;
		uint32_t val1; /* value + 1; 0: an empty slot */
	} *v;
	size_t cap, n;
};
/* 0 or -ENOMEM (the map as it was) */
int _rsp_u64multi_add(struct _rsp_u64multi *m, uint64_t key, uint32_t val);
/* @key's entry of @val out; false if there was none */
bool _rsp_u64multi_del(struct _rsp_u64multi *m, uint64_t key, uint32_t val);
/* @key's values, in no order: *it = 0 first, then true and *val per value */
bool _rsp_u64multi_next(const struct _rsp_u64multi *m, uint64_t key, size_t *it, uint32_t *val);
void _rsp_u64multi_free(struct _rsp_u64multi *m);

#endif /* RSP_MODEL_BASE_HASHMAP_H */
