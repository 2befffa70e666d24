/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * model/base/hashmap.h's multimap against a plain list of (key, value) pairs:
 * random adds and deletions (a fixed seed), a quarter of the keys from a set
 * of 5 (a key with many values), the rest from hundreds (runs of many keys
 * meeting and wrapping past the table's end); after every step the key
 * touched and one at random, and at times every key, read back equal to the
 * list's.  And the u64 map's refusal of its empty mark as a key.
 */
#include "base/hashmap.h"
#include "tap.h"

#include <errno.h>
#include <stdlib.h>

#define MAXN 3000

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

static struct pair {
	uint64_t key;
	uint32_t val;
} ref[MAXN];
static size_t nref;

/* @key's values in @m equal to the list's (each once): the count of mismatches */
static size_t compare_key(const struct _rsp_u64multi *m, uint64_t key)
{
	static unsigned char seen[MAXN];
	size_t it = 0, want = 0, got = 0, bad = 0;
	uint32_t v;

	memset(seen, 0, sizeof(seen));
	for (size_t i = 0; i < nref; i++)
		if (ref[i].key == key)
			want++;
	while (_rsp_u64multi_next(m, key, &it, &v)) {
		size_t i;

		got++;
		for (i = 0; i < nref; i++)
			if (ref[i].key == key && ref[i].val == v && !seen[i])
				break;
		if (i == nref)
			bad++;
		else
			seen[i] = 1;
		if (got > MAXN)
			return bad + 1; /* a cycle */
	}
	return bad + (got > want ? got - want : want - got);
}

/*
 * @steps random adds and deletions holding between @lo and @hi entries once
 * grown (the table's size then fixed: its one wrap point met again and
 * again), keys 1005 .. 1005 + @keys and, one in four, 1000 .. 1004.
 */
static void test_random(size_t lo, size_t hi, size_t steps, uint32_t keys)
{
	struct _rsp_u64multi m = { 0 };
	size_t bad = 0, dels = 0, missing_del = 0, cap = 0;
	uint32_t val = 0;

	nref = 0;
	for (size_t s = 0; s < steps; s++) {
		bool add = nref < lo || (nref < hi && next() % 2);
		uint64_t touched;

		if (add) {
			uint64_t key = next() % 4 ? 1005 + next() % keys : 1000 + next() % 5;

			if (_rsp_u64multi_add(&m, key, val)) {
				bad++;
				break;
			}
			ref[nref++] = (struct pair){ key, val++ };
			touched = key;
		} else {
			size_t i = next() % nref;

			touched = ref[i].key;
			missing_del += !_rsp_u64multi_del(&m, ref[i].key, ref[i].val);
			ref[i] = ref[--nref];
			dels++;
		}
		if (m.cap > cap)
			cap = m.cap;
		bad += compare_key(&m, touched);
		bad += compare_key(&m, 1005 + next() % keys);
		if (s % 97 == 0)
			for (uint64_t k = 1000; k < 1005 + keys; k++)
				bad += compare_key(&m, k);
	}
	for (uint64_t k = 1000; k < 1005 + keys + 3; k++)
		bad += compare_key(&m, k);
	CHECK(!bad && !missing_del && m.n == nref,
	      "multimap: %zu random steps, %zu to %zu entries (%zu slots), %zu deletions: read back "
	      "as the list (%zu wrong, %zu deletions not found, %zu entries against %zu)",
	      steps, lo, hi, cap, dels, bad, missing_del, m.n, nref);
	CHECK(!_rsp_u64multi_del(&m, 5, 1) && !_rsp_u64multi_del(&m, 1000, val + 7),
	      "multimap: deleting an absent key or value says so");
	_rsp_u64multi_free(&m);
	{
		size_t it = 0;
		uint32_t v;

		CHECK(!_rsp_u64multi_next(&m, 1000, &it, &v) && !_rsp_u64multi_del(&m, 1000, 0),
		      "multimap: an empty map has nothing");
	}
}

/* One key, many values, deleted from the middle of its run: the rest all found. */
static void test_one_key(void)
{
	struct _rsp_u64multi m = { 0 };
	size_t bad = 0;

	nref = 0;
	for (uint32_t v = 0; v < 500; v++) {
		_rsp_u64multi_add(&m, 42, v);
		ref[nref++] = (struct pair){ 42, v };
	}
	for (uint32_t v = 0; v < 500; v += 3) {
		_rsp_u64multi_del(&m, 42, v);
		for (size_t i = 0; i < nref; i++)
			if (ref[i].val == v)
				ref[i] = ref[--nref];
		bad += compare_key(&m, 42);
	}
	CHECK(!bad && m.n == nref, "multimap: one key's 500 values, a third deleted: %zu left, %zu wrong",
	      m.n, bad);
	_rsp_u64multi_free(&m);
}

/* The u64 map: UINT64_MAX, the empty slot's mark, is refused, not stored as a key */
static void test_u64map_max_key(void)
{
	struct _rsp_u64map m = { 0 };
	uint32_t v = 0;
	bool others = true;

	for (uint64_t k = 0; k < 200; k++)
		_rsp_u64map_put(&m, k * 7919, (uint32_t)k);
	CHECK(_rsp_u64map_put(&m, UINT64_MAX, 5) == -EINVAL && m.n == 200 &&
	      !_rsp_u64map_get(&m, UINT64_MAX, &v),
	      "u64 map: UINT64_MAX refused (%zu keys), never found", m.n);
	for (uint64_t k = 0; k < 200; k++)
		others &= _rsp_u64map_get(&m, k * 7919, &v) && v == k;
	CHECK(others, "u64 map: the other 200 keys read back");
	_rsp_u64map_free(&m);
}

int main(int argc, char **argv)
{
	tap_init(argc, argv);
	TAP_RUN("u64map_max_key", test_u64map_max_key());
	/* 256 slots, nearly half full; then grown to 4096 */
	TAP_RUN("random/256-slots", test_random(100, 127, 60000, 300));
	TAP_RUN("random/4096-slots", test_random(1500, 2000, 20000, 3000));
	TAP_RUN("one_key", test_one_key());
	return tap_done();
}
