/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "base/mem.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#define PAGE 4096u

/*
 * The reader's warmer may read a page of the inflated image while the
 * decompressor writes it (reader.c): a read that changes nothing, whichever
 * comes first; hence no thread sanitizer here.
 */
__attribute__((no_sanitize("thread"))) void _rsp_touch_pages(const void *p, size_t n)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i += PAGE)
		(void)*(const volatile unsigned char *)(c + i);
}

void _rsp_warm(void *p, size_t n)
{
	uintptr_t a = ((uintptr_t)p + PAGE - 1) & ~(uintptr_t)(PAGE - 1);
	uintptr_t e = ((uintptr_t)p + n) & ~(uintptr_t)(PAGE - 1);

	if (e <= a)
		return;
	/* Linux 5.14; elsewhere the first writes fault the pages in as usual */
	if (madvise((void *)a, e - a, MADV_POPULATE_WRITE) == 0)
		_rsp_touch_pages((const void *)a, e - a);
}

void *_rsp_malloc_warm(size_t n)
{
	void *p = malloc(n);

	if (p && n >= RSP_WARM_MIN)
		_rsp_warm(p, n);
	return p;
}

/*
 * realloc: a block mapped on its own (mmap) grows by mremap, its pages moved,
 * not copied into fresh ones, and the old block's memory is never held
 * beside the new one.  Whether a large block is mapped on its own is
 * glibc's choice: `rsp` fixes its threshold for the verbs that load (cli/rsp.c); a
 * block in the brk heap is copied as before.  Then the part to be written
 * next is mapped in bulk.
 */
static void *move_warm(void *v, size_t ncap, size_t n, size_t elem, size_t warm)
{
	void *nv = realloc(v, ncap * elem);

	if (nv && warm > n)
		_rsp_warm((char *)nv + n * elem, (warm - n) * elem);
	return nv;
}

bool _rsp_vec_grow_warm(void **v, size_t *cap, size_t *warm, size_t n, size_t elem)
{
	size_t step = n / 8 > RSP_WARM_MIN / elem ? n / 8 : RSP_WARM_MIN / elem + 1;
	size_t ncap = *cap;

	if (n >= *cap) {
		void *nv;

		ncap = *cap ? *cap * 2 : 16;
		nv = move_warm(*v, ncap, n, elem, n + step < ncap ? n + step : ncap);
		if (!nv)
			return false;
		*v = nv;
		*cap = ncap;
	} else {
		_rsp_warm((char *)*v + n * elem, (n + step < ncap ? step : ncap - n) * elem);
	}
	*warm = n + step < ncap ? n + step : ncap;
	return true;
}

bool _rsp_grow_warm(void **v, size_t *cap, size_t ncap, size_t n, size_t elem)
{
	void *nv = move_warm(*v, ncap, n, elem, ncap);

	if (!nv)
		return false;
	*v = nv;
	*cap = ncap;
	return true;
}

void _rsp_release(void *p, size_t n)
{
	uintptr_t a = ((uintptr_t)p + PAGE - 1) & ~(uintptr_t)(PAGE - 1);
	uintptr_t e = ((uintptr_t)p + n) & ~(uintptr_t)(PAGE - 1);

	if (e > a)
		madvise((void *)a, e - a, MADV_DONTNEED);
}

uint64_t _rsp_reserve_cap(uint64_t want, unsigned share)
{
	struct rlimit rl;
	unsigned long long pages = 0;
	uint64_t used, avail;
	FILE *f;

	if (getrlimit(RLIMIT_AS, &rl) || rl.rlim_cur == RLIM_INFINITY || !share)
		return want;
	f = fopen("/proc/self/statm", "re");
	if (f) {
		if (fscanf(f, "%llu", &pages) != 1)
			pages = 0;
		fclose(f);
	}
	used = (uint64_t)pages * (uint64_t)sysconf(_SC_PAGESIZE);
	avail = (uint64_t)rl.rlim_cur > used ? (uint64_t)rl.rlim_cur - used : 0;
	return avail / share < want ? avail / share : want;
}
