/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A lower bound searched from a hint: in an array of @n where before(ctx, i)
 * holds for a prefix and not after it, the length of that prefix.  Galloped
 * from @hint (the last answer: a walk in time order asks near it) to bracket
 * it, then halved: O(log distance) probes instead of O(log n), the same
 * answer as a plain binary search whatever the hint.
 */
#ifndef RSP_BASE_SEARCH_H
#define RSP_BASE_SEARCH_H

#include <stdbool.h>
#include <stddef.h>

static inline size_t _rsp_gallop(size_t n, size_t hint, bool (*before)(const void *ctx, size_t i),
				 const void *ctx)
{
	size_t lo, hi, step;

	if (hint > n)
		hint = n;
	if (hint < n && before(ctx, hint)) {
		/* the answer is past hint: every i < lo is before, none from hi on */
		lo = hint + 1;
		for (step = 1;; step *= 2) {
			size_t p = lo + step - 1;

			if (p >= n) {
				hi = n;
				break;
			}
			if (!before(ctx, p)) {
				hi = p;
				break;
			}
			lo = p + 1;
		}
	} else {
		hi = hint;
		for (step = 1;; step *= 2) {
			size_t p = hi > step ? hi - step : 0;

			if (hi == 0) {
				lo = 0;
				break;
			}
			if (before(ctx, p)) {
				lo = p + 1;
				break;
			}
			hi = p;
		}
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (before(ctx, mid))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

#endif
