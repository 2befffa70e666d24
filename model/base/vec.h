/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Growable typed arrays: VEC(T) v; vec_push(&v, x); v.v[i], v.n.  Internal. */
#ifndef RSP_MODEL_VEC_H
#define RSP_MODEL_VEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

#include "base/mem.h"

/*
 * @warm: the elements below it are in mapped memory.  A large array (from
 * RSP_WARM_MIN bytes) is mapped in bulk a step at a time as it fills
 * (mem.h), so that its unused capacity costs no memory; a small one is
 * warm up to its capacity.
 */
#define VEC(T)                                                                             \
	struct {                                                                           \
		T *v;                                                                      \
		size_t n, cap, warm;                                                       \
	}

/* Make room for one more element; false on allocation failure. */
static inline bool vec_grow_(void **v, size_t *cap, size_t *warm, size_t n, size_t elem)
{
	size_t ncap;
	void *nv;

	if (n < *warm)
		return true;
	if (n < *cap || (*cap ? *cap * 2 : 16) * elem >= RSP_WARM_MIN)
		return _rsp_vec_grow_warm(v, cap, warm, n, elem);
	ncap = *cap ? *cap * 2 : 16;
	nv = realloc(*v, ncap * elem);
	if (!nv)
		return false;
	*v = nv;
	*cap = *warm = ncap;
	return true;
}

#define vec_reserve1(vec)                                                                  \
	vec_grow_((void **)&(vec)->v, &(vec)->cap, &(vec)->warm, (vec)->n, sizeof(*(vec)->v))
/* Append; evaluates to a pointer to the new element or NULL. */
#define vec_push(vec, x)                                                                   \
	(vec_reserve1(vec) ? ((vec)->v[(vec)->n] = (x), &(vec)->v[(vec)->n++]) : NULL)
#define vec_last(vec) (&(vec)->v[(vec)->n - 1])
#define vec_free(vec)                                                                      \
	do {                                                                               \
		free((vec)->v);                                                            \
		(vec)->v = NULL;                                                           \
		(vec)->n = (vec)->cap = (vec)->warm = 0;                                   \
	} while (0)
/* Give back unused capacity (after loading). */
#define vec_shrink(vec)                                                                    \
	do {                                                                               \
		if ((vec)->n && (vec)->n < (vec)->cap) {                                   \
			void *nv_ = realloc((vec)->v, (vec)->n * sizeof(*(vec)->v));       \
			if (nv_) {                                                         \
				(vec)->v = nv_;                                            \
				(vec)->cap = (vec)->warm = (vec)->n;                       \
			}                                                                  \
		}                                                                          \
	} while (0)

#endif /* RSP_MODEL_VEC_H */
