/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cpustack - a CPU-bound program for tests/record/stacks.sh and bench/stacks.sh, built -O2
 * -fomit-frame-pointer as distributions build their packages: two threads and
 * the main thread run call trees a few frames deep (a recursion, a hash loop,
 * a sort) so that a CPU sample's stack reaches main or start_thread only when
 * the unwinder follows the CFI.
 *
 *   usage: cpustack [SECONDS [deep]]   (default 3; prints "Total time: X s")
 *
 * deep: the main thread runs its call trees below a frame of DEEP_KIB KiB of
 * locals (as sqlite3's shell runs its statements some 10 KiB below main):
 * its samples reach main only when the user-stack copy holds that much.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

static volatile uint64_t sink;
static double seconds = 3.0;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static NOINLINE uint64_t mix(uint64_t x)
{
	for (int i = 0; i < 64; i++) {
		x ^= x >> 33;
		x *= 0xff51afd7ed558ccdull;
		x ^= x >> 29;
	}
	return x;
}

static NOINLINE uint64_t descend(int depth, uint64_t x)
{
	/* a local array keeps the frames apart on the stack */
	uint64_t pad[8];

	for (int i = 0; i < 8; i++)
		pad[i] = x + (uint64_t)i;
	if (depth == 0)
		return mix(pad[3]);
	return descend(depth - 1, pad[depth & 7] * 31) + pad[1];
}

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static NOINLINE uint64_t sort_round(uint64_t seed)
{
	uint64_t v[512];

	for (int i = 0; i < 512; i++)
		v[i] = mix(seed + (uint64_t)i);
	qsort(v, 512, sizeof(v[0]), cmp); /* libc's frames in the middle */
	return v[17];
}

static NOINLINE uint64_t hash_block(const unsigned char *p, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

static NOINLINE uint64_t worker_round(uint64_t seed)
{
	unsigned char buf[4096];

	memset(buf, (int)(seed & 0xff), sizeof(buf));
	return descend(12, seed) + hash_block(buf, sizeof(buf));
}

static void *worker(void *arg)
{
	uint64_t x = (uint64_t)(uintptr_t)arg;
	double end = now() + seconds;

	while (now() < end)
		for (int i = 0; i < 64; i++)
			x = worker_round(x + (uint64_t)i);
	sink = x;
	return NULL;
}

static NOINLINE uint64_t main_loop(void)
{
	uint64_t x = 7;
	double end = now() + seconds;

	while (now() < end)
		x = sort_round(x) + descend(6, x);
	return x;
}

#define DEEP_KIB 10

/*
 * main_loop() below DEEP_KIB KiB of this frame's locals, every page of them
 * touched: the kernel copies a user stack without faulting pages in, so a
 * page of the stack never written (a large buffer left uninitialised) ends
 * the copy there, and no unwinder gets past it (one run in three read 64%
 * when only the ends of this array were written)
 */
static NOINLINE uint64_t below(void)
{
	volatile char pad[DEEP_KIB * 1024];

	for (size_t i = 0; i < sizeof(pad); i += 512)
		pad[i] = (char)i;
	pad[0] = 1;
	pad[sizeof(pad) - 1] = 2;
	return main_loop() + (uint64_t)pad[0] + (uint64_t)pad[sizeof(pad) - 1];
}

int main(int argc, char **argv)
{
	int deep = 0;
	pthread_t th[2];
	double t0 = now();

	if (argc > 1)
		seconds = atof(argv[1]);
	if (argc > 2)
		deep = !strcmp(argv[2], "deep") ? 1 : -1;
	if (!(seconds > 0 && seconds < 600) || deep < 0) {
		fprintf(stderr, "usage: cpustack [SECONDS [deep]]   (0 < SECONDS < 600)\n");
		return 2;
	}
	for (int i = 0; i < 2; i++)
		if (pthread_create(&th[i], NULL, worker, (void *)(uintptr_t)(i + 1))) {
			fprintf(stderr, "cpustack: pthread_create failed\n");
			return 1;
		}
	sink = deep ? below() : main_loop();
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	printf("Total time: %.3f s\n", now() - t0);
	return 0;
}
