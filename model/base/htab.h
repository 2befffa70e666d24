/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An intrusive chained hash table (the symbolizer's processes, files and
 * names): a node embeds struct _rsp_hnode; the caller hashes and compares
 * keys.  Internal to model/.
 */
#ifndef RSP_MODEL_BASE_HTAB_H
#define RSP_MODEL_BASE_HTAB_H

#include "rsp-hash.h" /* the keys' hash: rsp_hash_bytes() */

#include <stddef.h>
#include <stdint.h>

struct _rsp_hnode {
	struct _rsp_hnode *next;
	uint64_t hash;
};

struct _rsp_htab {
	struct _rsp_hnode **buckets;
	size_t cap; /* power of two or 0 */
	size_t n;
};

/* 0 or -ENOMEM (then the node is not inserted) */
int _rsp_htab_insert(struct _rsp_htab *t, struct _rsp_hnode *node);
/* First node of the chain that holds @hash; follow ->next, check ->hash. */
struct _rsp_hnode *_rsp_htab_chain(const struct _rsp_htab *t, uint64_t hash);
/* Empties the table; the nodes are the caller's. */
void _rsp_htab_release(struct _rsp_htab *t);
#define _rsp_htab_for_each(t, i, node)                                                     \
	for ((i) = 0; (i) < (t)->cap; (i)++)                                               \
		for ((node) = (t)->buckets[(i)]; (node); (node) = (node)->next)

#endif /* RSP_MODEL_BASE_HTAB_H */
