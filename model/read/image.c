/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An image in memory, for what the reader decompresses at open (a file
 * compressed whole, decompress.c; perf record -z's stream, inflate.c): one
 * anonymous mapping reserved at its limit (virtual only, MAP_NORESERVE;
 * pages exist once written), its pages mapped ahead of the writer.
 */
#include "read/reader-private.h"

#include "base/cpus.h"
#include "base/mem.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

void *_rsp_image_reserve(uint64_t *limit)
{
	long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
	void *img;

	/* an image larger than half the memory would push everything else out */
	*limit = pages > 0 && psize > 0 ? (uint64_t)pages * (uint64_t)psize / 2 : (1ull << 34);
	if (*limit > SIZE_MAX / 2)
		*limit = SIZE_MAX / 2;
	/* under ulimit -v: half of what is free, the rest for the model built from it */
	*limit = _rsp_reserve_cap(*limit, 2);
	if (*limit < (64u << 20))
		*limit = 64u << 20;
	/*
	 * Where overcommit is strict (vm.overcommit_memory 2) the reservation
	 * counts against the commit limit whatever MAP_NORESERVE says: try
	 * smaller ones; the stream then fails only if it outgrows what was had.
	 */
	for (;;) {
		img = mmap(NULL, *limit, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (img != MAP_FAILED || errno != ENOMEM || *limit <= (64u << 20))
			break;
		*limit /= 2;
	}
	return img == MAP_FAILED ? NULL : img;
}

/*
 * Fresh anonymous pages are dear on some machines.  On this project's VM (a
 * paravirtualised guest) a page faulted in by a write costs ~10 us: 1.4 s
 * for a 512 MB image, four times the decompression.  MADV_POPULATE_WRITE
 * (Linux 5.14) maps a range in one call (0.12 s for 512 MB) and a read of
 * each page then completes its mapping (0.2 s); after that, writes run at
 * memory speed.  A thread does this ahead of the decompressor on another
 * CPU, at most WARM_AHEAD past the writer (what it warms past the image's
 * end is given back with the rest of the reservation).  Until the image is
 * large enough to be worth a thread, or with one CPU, the writer populates
 * its next step itself and its writes finish the mapping.
 */
#define WARM_STEP (4u << 20)
#define WARM_AHEAD (32u << 20)
#define WARM_THREAD_MIN (8u << 20) /* smaller images are not worth a thread */

static bool warm_ahead(struct rsp_warmer *w)
{
	return w->at >= __atomic_load_n(&w->pos, __ATOMIC_ACQUIRE) + WARM_AHEAD;
}

static void *warm_thread(void *arg)
{
	struct rsp_warmer *w = arg;

	while (!__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE)) {
		uint64_t pos = __atomic_load_n(&w->pos, __ATOMIC_ACQUIRE), start, n;

		if (warm_ahead(w)) {
			pthread_mutex_lock(&w->lock);
			while (!__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE) && warm_ahead(w))
				pthread_cond_wait(&w->cond, &w->lock);
			pthread_mutex_unlock(&w->lock);
			continue;
		}
		/* not where the writer already is */
		start = w->at > pos ? w->at : (pos + 4095) & ~(uint64_t)4095;
		if (start >= w->limit)
			break;
		n = w->limit - start < WARM_STEP ? w->limit - start : WARM_STEP;
		if (madvise(w->img + start, n, MADV_POPULATE_WRITE))
			break; /* an older kernel, or no memory: the writes fault the pages in */
		_rsp_touch_pages(w->img + start, n); /* a read may meet the writer: see mem.c */
		__atomic_store_n(&w->at, start + n, __ATOMIC_RELEASE);
	}
	return NULL;
}

/* The writer has written the image up to @pos. */
void _rsp_warm_follow(struct rsp_warmer *w, uint64_t pos)
{
	uint64_t chunk;

	if (!w->tried && pos >= WARM_THREAD_MIN) {
		w->tried = true;
		if (_rsp_usable_cpus() >= 2) {
			w->pos = pos;
			w->at = w->pop;
			w->signalled = pos;
			pthread_mutex_init(&w->lock, NULL);
			pthread_cond_init(&w->cond, NULL);
			w->thread = !pthread_create(&w->tid, NULL, warm_thread, w);
			if (!w->thread) {
				pthread_cond_destroy(&w->cond);
				pthread_mutex_destroy(&w->lock);
			}
		}
	}
	if (w->thread) {
		__atomic_store_n(&w->pos, pos, __ATOMIC_RELEASE);
		if (pos >= w->signalled + WARM_STEP) {
			w->signalled = pos;
			pthread_mutex_lock(&w->lock);
			pthread_cond_signal(&w->cond);
			pthread_mutex_unlock(&w->lock);
		}
		if (__atomic_load_n(&w->at, __ATOMIC_ACQUIRE) >= pos + WARM_STEP)
			return;
		/* the writer caught up with the thread: it populates its next step itself */
		if (w->pop < pos)
			w->pop = pos & ~(uint64_t)4095;
	}
	/* populate ahead of the writer, a step as large as what it has written (64 KiB to 4 MiB) */
	chunk = pos < (64u << 10) ? (64u << 10)
	        : pos > WARM_STEP ? WARM_STEP
	                          : pos & ~(uint64_t)0xffff;
	while (!w->failed && w->pop < w->limit && w->pop < pos + chunk) {
		uint64_t n = w->limit - w->pop < chunk ? w->limit - w->pop : chunk;

		w->failed = madvise(w->img + w->pop, n, MADV_POPULATE_WRITE) != 0;
		w->pop += n;
	}
}

void _rsp_warm_stop(struct rsp_warmer *w)
{
	if (!w->thread)
		return;
	pthread_mutex_lock(&w->lock);
	__atomic_store_n(&w->stop, 1, __ATOMIC_RELEASE);
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->tid, NULL);
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
	w->thread = false;
}
