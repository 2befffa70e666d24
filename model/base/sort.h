/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A stable sort of an array that comes as runs already in order (each
 * thread's slices in time order, concatenated): the runs are merged,
 * pairwise, until one is left, O(n log runs).  Inline, so that each user's
 * element size and order are compiled in.
 */
#ifndef RSP_BASE_SORT_H
#define RSP_BASE_SORT_H

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* where the run that starts at @i ends */
static inline size_t _rsp_run_end(const unsigned char *v, size_t i, size_t n, size_t size,
				  bool (*less)(const void *a, const void *b))
{
	for (i++; i < n && !less(v + i * size, v + (i - 1) * size); i++)
		;
	return i;
}

/*
 * Sort @n elements of @size bytes at @v by @less (equal ones keep their
 * order).  0, or -ENOMEM with @v untouched (no memory for the merge).
 */
static inline int _rsp_merge_sort_runs(void *v, size_t n, size_t size,
				       bool (*less)(const void *a, const void *b))
{
	unsigned char *src = v, *dst, *tmp;
	size_t runs = 1;

	for (size_t i = 1; i < n; i++)
		runs += less(src + i * size, src + (i - 1) * size);
	if (runs == 1)
		return 0;
	tmp = dst = malloc(n * size);
	if (!dst)
		return -ENOMEM;
	while (runs > 1) {
		size_t i = 0;

		runs = 0;
		while (i < n) {
			size_t a1 = _rsp_run_end(src, i, n, size, less),
			       b1 = a1 < n ? _rsp_run_end(src, a1, n, size, less) : n;
			size_t x = i, y = a1, o = i;

			while (x < a1 && y < b1) {
				if (less(src + y * size, src + x * size))
					memcpy(dst + o++ * size, src + y++ * size, size);
				else
					memcpy(dst + o++ * size, src + x++ * size, size);
			}
			memcpy(dst + o * size, src + x * size, (a1 - x) * size);
			o += a1 - x;
			memcpy(dst + o * size, src + y * size, (b1 - y) * size);
			runs++;
			i = b1;
		}
		src = dst;
		dst = src == (unsigned char *)v ? tmp : v;
	}
	if (src != (unsigned char *)v)
		memcpy(v, src, n * size);
	free(tmp);
	return 0;
}

#endif
