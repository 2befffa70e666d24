/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Interned names: each distinct function name (demangled first when asked) is
 * stored once and lives until rsp_sym_free(), so frames can hand out pointers.
 */
#include <stdlib.h>
#include <string.h>

#include "symbols/symbols-private.h"

struct istr {
	struct _rsp_hnode node;
	char s[];
};

const char *_rsp_sym_intern(struct rsp_sym *sym, const char *s, bool demangle)
{
	char *dm = demangle ? _rsp_demangle(s) : NULL;
	const char *str = dm ? dm : s;
	size_t len = strlen(str);
	uint64_t h = rsp_hash_bytes(RSP_HASH_SEED, str, len);
	struct istr *e;

	for (struct _rsp_hnode *n = _rsp_htab_chain(&sym->strs, h); n; n = n->next) {
		e = (struct istr *)n;
		if (n->hash == h && !strcmp(e->s, str)) {
			free(dm);
			return e->s;
		}
	}
	e = malloc(sizeof(*e) + len + 1);
	if (!e) {
		free(dm);
		return NULL;
	}
	e->node.hash = h;
	memcpy(e->s, str, len + 1);
	free(dm);
	if (_rsp_htab_insert(&sym->strs, &e->node)) {
		free(e);
		return NULL;
	}
	return e->s;
}

void _rsp_names_free(struct rsp_sym *sym)
{
	for (size_t i = 0; i < sym->strs.cap; i++) {
		struct _rsp_hnode *n = sym->strs.buckets[i], *next;

		for (; n; n = next) {
			next = n->next;
			free(n);
		}
	}
	_rsp_htab_release(&sym->strs);
}
