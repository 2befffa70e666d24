/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Interned stacks: each distinct sequence of addresses is stored once, so a
 * thread sleeping a million times in the same place costs one stack.  User
 * stack copies are unwound as loading reads them (walk.c) and joined to their
 * kernel part on first use (trace_stack_resolve()).
 */
#include "timeline/trace-private.h"

#include <errno.h>
#include <string.h>

static inline uint64_t mix(uint64_t h, uint64_t v)
{
	h = (h ^ v) * 0xff51afd7ed558ccdull;
	return h ^ (h >> 32);
}

/*
 * In four lanes, each frame into one: a lane's multiply waits for its own
 * previous one only (one chain over every frame was most of interning).
 * Where a stack lands in the table is all it decides: not its id.
 */
static uint64_t hash_ips(const uint64_t *ips, size_t n)
{
	uint64_t a = 0x9e3779b97f4a7c15ull ^ n, b = 0xc2b2ae3d27d4eb4full, c = 0x165667b19e3779f9ull,
		 d = 0x27d4eb2f165667c5ull;
	size_t i = 0;

	for (; i + 4 <= n; i += 4) {
		a = mix(a, ips[i]);
		b = mix(b, ips[i + 1]);
		c = mix(c, ips[i + 2]);
		d = mix(d, ips[i + 3]);
	}
	for (; i < n; i++)
		a = mix(a, ips[i]);
	a = mix(a, b);
	c = mix(c, d);
	return mix(a, c);
}

int stacks_init(struct stacks *s)
{
	struct stack_entry empty = { 0, 0 };

	memset(s, 0, sizeof(*s));
	s->ht_cap = 1024;
	s->ht = calloc(s->ht_cap, sizeof(*s->ht));
	if (!s->ht || !vec_push(&s->entries, empty))
		return -ENOMEM;
	return 0;
}

void stacks_free(struct stacks *s)
{
	vec_free(&s->frames);
	vec_free(&s->entries);
	vec_free(&s->pending);
	_rsp_u64map_free(&s->joined);
	free(s->ht);
	memset(s, 0, sizeof(*s));
}

static bool same(const struct stacks *s, uint32_t id, const uint64_t *ips, size_t n)
{
	const struct stack_entry *e = &s->entries.v[id];

	return e->n == n && !memcmp(&s->frames.v[e->off], ips, n * sizeof(uint64_t));
}

static int rehash(struct stacks *s)
{
	size_t cap = s->ht_cap * 2;
	uint32_t *ht = calloc(cap, sizeof(*ht));

	if (!ht)
		return -ENOMEM;
	for (size_t id = 1; id < s->entries.n; id++) {
		const struct stack_entry *e = &s->entries.v[id];
		size_t i = hash_ips(&s->frames.v[e->off], e->n) & (cap - 1);

		while (ht[i])
			i = (i + 1) & (cap - 1);
		ht[i] = (uint32_t)id + 1;
	}
	free(s->ht);
	s->ht = ht;
	s->ht_cap = cap;
	return 0;
}

uint32_t stacks_intern(struct stacks *s, const uint64_t *ips, size_t n)
{
	struct stack_entry e;
	size_t i;

	if (n == 0)
		return 0;
	if (n > 4096)
		n = 4096;
	if ((s->entries.n + 1) * 2 > s->ht_cap && rehash(s))
		return 0;
	for (i = hash_ips(ips, n) & (s->ht_cap - 1); s->ht[i]; i = (i + 1) & (s->ht_cap - 1))
		if (same(s, s->ht[i] - 1, ips, n))
			return s->ht[i] - 1;
	if (s->entries.n >= RSP_STACK_PENDING - 1 || s->frames.n + n > UINT32_MAX)
		return 0;
	e.off = (uint32_t)s->frames.n;
	e.n = (uint32_t)n;
	for (size_t k = 0; k < n; k++)
		if (!vec_push(&s->frames, ips[k]))
			return 0;
	if (!vec_push(&s->entries, e))
		return 0;
	s->ht[i] = (uint32_t)s->entries.n;
	return (uint32_t)(s->entries.n - 1);
}

uint32_t stacks_add_pending(struct stacks *s, uint32_t kernel, uint32_t user, bool empty)
{
	struct pending_stack p = {
		.kernel = kernel,
		.user = user,
		.empty = empty,
	};

	if (s->pending.n >= RSP_STACK_PENDING - 1 || !vec_push(&s->pending, p))
		return kernel;
	return (uint32_t)(s->pending.n - 1) | RSP_STACK_PENDING;
}

/*
 * No Linux architecture maps user space at or above 2^56 (x86-64 with five-level
 * paging ends just below it, arm64's 52-bit space well below): a user frame
 * there is not a return address but the data a broken frame-pointer chain read
 * (a program built without frame pointers: 0x7878787878787878, its buffer of
 * 'x's, after write()).
 */
#define USER_ADDR_END (1ull << 56)

/*
 * perf's callchain without the context markers (PERF_CONTEXT_*); a user part
 * ends at its first frame that cannot be a user address (what follows it was
 * read through the same bad frame pointer).
 */
size_t _rsp_clean_chain(const uint64_t *chain, uint64_t nr, uint64_t *out, size_t max,
			bool kernel_only)
{
	size_t n = 0;
	bool user = false, broken = false;

	for (uint64_t i = 0; i < nr && n < max; i++) {
		uint64_t ip = chain[i];

		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			user = ip == (uint64_t)PERF_CONTEXT_USER;
			broken = false;
			continue;
		}
		if (kernel_only && user)
			continue;
		if (user && ip >= USER_ADDR_END)
			broken = true;
		if (user && broken)
			continue;
		out[n++] = ip;
	}
	return n;
}


/* A pending user-stack copy: its final stack (made once, on first use). */
uint32_t trace_stack_resolve(struct rsp_trace *t, uint32_t stack)
{
	struct pending_stack *p;
	uint64_t ips[4096 + MAX_USER_FRAMES];
	const struct stack_entry *k, *u;
	size_t nk, nu;

	if (!(stack & RSP_STACK_PENDING))
		return stack;
	if ((stack & ~RSP_STACK_PENDING) >= t->stacks.pending.n)
		return 0;
	p = &t->stacks.pending.v[stack & ~RSP_STACK_PENDING];
	if (p->resolved)
		return p->resolved;
	u = &t->ustacks.entries.v[p->user < t->ustacks.entries.n ? p->user : 0];
	if (p->empty && !p->fallback) {
		/*
		 * The kernel copied none of the user stack: the sample's
		 * callchain, as for a sample without a copy.
		 */
		p->resolved = stacks_intern(&t->stacks, &t->ustacks.frames.v[u->off], u->n);
		if (!p->resolved)
			p->resolved = p->kernel;
		return p->resolved;
	}
	nu = p->empty ? 0 : u->n;
	if (nu >= 2 || (nu > 0 && !p->fallback)) {
		/* the same sleep a thousand times: joined once */
		uint64_t key = (uint64_t)p->kernel << 32 | p->user;
		uint32_t id;

		if (_rsp_u64map_get(&t->stacks.joined, key, &id)) {
			p->resolved = id;
		} else {
			k = &t->stacks.entries.v[p->kernel];
			nk = k->n < 4096 ? k->n : 4096;
			memcpy(ips, &t->stacks.frames.v[k->off], nk * sizeof(uint64_t));
			memcpy(ips + nk, &t->ustacks.frames.v[u->off], nu * sizeof(uint64_t));
			p->resolved = stacks_intern(&t->stacks, ips, nk + nu);
			if (p->resolved)
				(void)_rsp_u64map_put(&t->stacks.joined, key, p->resolved);
		}
		t->stacks.unwound++;
	} else {
		p->resolved = p->fallback ? p->fallback : p->kernel;
		t->stacks.unwind_failed++;
	}
	if (!p->resolved)
		p->resolved = p->kernel;
	return p->resolved;
}
