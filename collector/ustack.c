/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Trimming user-stack copies to the live part of the stack (ustack.h). */
#include "ustack.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* per thread: where its live stack ends (0: unknown, don't trim) */
struct slot {
	uint32_t tid; /* 0: empty */
	uint32_t pid;
	uint64_t lo, hi; /* the mapping (threads), or up to startstack (main threads) */
	uint16_t wait; /* a lookup failed or is under way: samples to let pass before the next one */
	uint64_t miss; /* the stack pointer it failed for */
};

/* a lookup asked of the resolver thread, and its answer */
struct lookup {
	uint32_t pid, tid;
	uint64_t sp, lo, hi; /* answer: hi 0 if none */
};

#define QCAP 512 /* lookups queued at most; more wait for a later sample */

struct rsp_ustack {
	struct slot *v;
	size_t cap, n;
	/* async: /proc is read by a thread of its own (below) */
	bool async, stop;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct lookup req[QCAP], res[QCAP];
	size_t n_req, n_res;
	struct lookup work[QCAP]; /* the resolver's batch */
	size_t pending; /* asked, not answered (the test's settle) */
};

struct rsp_ustack *rsp_ustack_new(void)
{
	return calloc(1, sizeof(struct rsp_ustack));
}

static void lookup(struct lookup *q);

/*
 * The resolver thread.  Reading /proc/PID/maps takes the process's mmap lock;
 * on a saturated machine its holder (a busy process at normal priority) may
 * wait hundreds of milliseconds for a CPU, and a reader at real-time priority
 * blocked behind it lets the rings overflow (pipe ping-pong under a
 * saturating load: one lookup held the reader 520 ms, 15,000 records lost).
 * So the reader asks, never waits: this thread, at normal priority (the
 * reader's SCHED_RESET_ON_FORK), reads /proc and posts the answers.
 */
static void *resolver(void *arg)
{
	struct rsp_ustack *u = arg;

	pthread_setname_np(pthread_self(), "rsp-ustack"); /* the recorder's, in reports */
	pthread_mutex_lock(&u->lock);
	for (;;) {
		size_t n;

		while (!u->stop && !u->n_req)
			pthread_cond_wait(&u->cond, &u->lock);
		if (u->stop)
			break;
		n = u->n_req;
		memcpy(u->work, u->req, n * sizeof(u->req[0]));
		u->n_req = 0;
		pthread_mutex_unlock(&u->lock);
		for (size_t i = 0; i < n; i++)
			lookup(&u->work[i]);
		pthread_mutex_lock(&u->lock);
		for (size_t i = 0; i < n; i++) {
			size_t k = u->n_res;

			/* n_res is stored atomically: the sampler peeks at it without the lock */
			if (k < QCAP) {
				u->res[k] = u->work[i];
				__atomic_store_n(&u->n_res, k + 1, __ATOMIC_RELAXED);
			}
			u->pending--;
		}
		pthread_cond_broadcast(&u->cond);
	}
	pthread_mutex_unlock(&u->lock);
	return NULL;
}

struct rsp_ustack *rsp_ustack_new_async(void)
{
	struct rsp_ustack *u = rsp_ustack_new();

	if (!u)
		return NULL;
	pthread_mutex_init(&u->lock, NULL);
	pthread_cond_init(&u->cond, NULL);
	if (pthread_create(&u->thread, NULL, resolver, u)) {
		pthread_mutex_destroy(&u->lock);
		pthread_cond_destroy(&u->cond);
		return u; /* lookups in the caller's thread, as rsp_ustack_new() */
	}
	u->async = true;
	return u;
}

void rsp_ustack_settle(struct rsp_ustack *u)
{
	if (!u->async)
		return;
	pthread_mutex_lock(&u->lock);
	while (u->pending)
		pthread_cond_wait(&u->cond, &u->lock);
	pthread_mutex_unlock(&u->lock);
}

void rsp_ustack_free(struct rsp_ustack *u)
{
	if (!u)
		return;
	if (u->async) {
		pthread_mutex_lock(&u->lock);
		u->stop = true;
		pthread_cond_broadcast(&u->cond);
		pthread_mutex_unlock(&u->lock);
		pthread_join(u->thread, NULL);
		pthread_mutex_destroy(&u->lock);
		pthread_cond_destroy(&u->cond);
	}
	free(u->v);
	free(u);
}

static size_t hash(uint32_t tid, size_t cap)
{
	return (tid * 2654435761u) & (cap - 1);
}

static struct slot *find(struct rsp_ustack *u, uint32_t tid, int create)
{
	size_t i;

	if (create && (u->n + 1) * 2 > u->cap) {
		size_t cap = u->cap ? u->cap * 2 : 256;
		struct slot *v = calloc(cap, sizeof(*v));

		if (!v)
			return NULL;
		for (size_t k = 0; k < u->cap; k++)
			if (u->v[k].tid) {
				for (i = hash(u->v[k].tid, cap); v[i].tid; i = (i + 1) & (cap - 1))
					;
				v[i] = u->v[k];
			}
		free(u->v);
		u->v = v;
		u->cap = cap;
	}
	if (!u->cap)
		return NULL;
	for (i = hash(tid, u->cap); u->v[i].tid; i = (i + 1) & (u->cap - 1))
		if (u->v[i].tid == tid)
			return &u->v[i];
	if (!create)
		return NULL;
	u->v[i].tid = tid;
	u->n++;
	return &u->v[i];
}

void rsp_ustack_forget(struct rsp_ustack *u, uint32_t pid)
{
	/* exec: every thread of @pid is gone but the leader; lookups restart */
	for (size_t i = 0; i < u->cap; i++)
		if (u->v[i].tid && u->v[i].pid == pid) {
			u->v[i].lo = u->v[i].hi = 0;
			u->v[i].wait = 0;
		}
}

/* /proc/PID/stat field 28: the stack pointer at the program's entry */
static uint64_t startstack(uint32_t pid)
{
	char path[64], buf[1024];
	uint64_t v = 0;
	const char *p;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')'); /* the comm may hold spaces and parentheses */
	if (!p)
		return 0;
	/* after ") " comes field 3; startstack is field 28 */
	for (int field = 2; field < 28 && p; field++)
		p = strchr(p + 1, ' ');
	if (p)
		v = strtoull(p + 1, NULL, 10);
	return v;
}

/* the mapping of @pid holding @sp */
static int mapping_of(uint32_t pid, uint64_t sp, uint64_t *lo, uint64_t *hi)
{
	char path[64], line[512];
	int ret = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a, b;

		if (sscanf(line, "%llx-%llx", &a, &b) == 2 && sp >= a && sp < b) {
			*lo = a;
			*hi = b;
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}

/*
 * A failed lookup is not repeated for the thread's next samples within
 * MISS_NEAR of its stack pointer; one further off is on another stack (an
 * exec's new image) and looked up at once.
 */
#define MISS_NEAR (1ull << 20)

/* a pointer into the strings the kernel put above the vectors at @at, at exec */
static bool exec_string(uint64_t p, uint64_t at)
{
	return p > at && p - at < (64u << 20);
}

uint64_t rsp_ustack_entry_top(const void *copy, uint64_t len, uint64_t sp)
{
	const unsigned char *c = copy;
	size_t n = (size_t)(len / 8);

	for (size_t i = 0; i + 3 < n; i++) {
		uint64_t at = sp + 8 * i, argc, w, type = 1, val;
		bool pagesz = false;
		size_t j;

		memcpy(&argc, c + 8 * i, 8);
		if ((at & 15) || argc == 0 || argc > 4096 || i + argc + 2 >= n)
			continue;
		for (j = i + 1; j <= i + argc; j++) {
			memcpy(&w, c + 8 * j, 8);
			if (!exec_string(w, at))
				break;
		}
		memcpy(&w, c + 8 * j, 8);
		if (j <= i + argc || w != 0)
			continue;
		/* envp[], then NULL */
		for (j++; j < n; j++) {
			memcpy(&w, c + 8 * j, 8);
			if (!w || !exec_string(w, at))
				break;
		}
		if (j >= n || w)
			continue;
		/* the auxiliary vector: (type, value) pairs up to AT_NULL, with AT_PAGESZ */
		for (j++; j + 1 < n; j += 2) {
			memcpy(&type, c + 8 * j, 8);
			memcpy(&val, c + 8 * j + 8, 8);
			if (type == 0 || type > 64)
				break;
			if (type == 6)
				pagesz = val >= 4096 && !(val & (val - 1));
		}
		if (j + 1 < n && type == 0 && pagesz)
			return at;
	}
	return 0;
}

/* @sp in the thread's known stack (at startstack: a sample at the entry point) */
static bool live(const struct slot *s, uint64_t sp)
{
	return s->hi && sp >= s->lo && sp <= s->hi;
}

/* Read /proc for @q's thread: its live stack's bounds into q->lo, q->hi (0: none). */
static void lookup(struct lookup *q)
{
	q->lo = q->hi = 0;
	if (q->tid == q->pid) {
		/*
		 * From startstack up to the stack mapping's low end: a sample of
		 * the image before an exec, read after it (the exec's COMM comes
		 * through another ring), or of the new image, read before it,
		 * lies outside.
		 */
		uint64_t top = startstack(q->pid), lo, hi;

		if (top >= q->sp && mapping_of(q->pid, q->sp, &lo, &hi) == 0 && top <= hi) {
			q->lo = lo;
			q->hi = top;
		}
	} else if (mapping_of(q->pid, q->sp, &q->lo, &q->hi)) {
		q->lo = q->hi = 0;
	}
}

/* the copy's own entry frame: a main thread whose stack the copy reaches to its top */
static bool from_copy(struct slot *s, uint64_t sp, const void *copy, uint64_t copy_len)
{
	uint64_t top = copy ? rsp_ustack_entry_top(copy, copy_len, sp) : 0;

	if (!top)
		return false;
	s->lo = (sp & ~4095ull) > (128u << 10) ? (sp & ~4095ull) - (128u << 10) : 0;
	s->hi = top;
	return true;
}

/* the resolver's answers into the slots; never waits for the lock */
static void take_answers(struct rsp_ustack *u)
{
	if (!__atomic_load_n(&u->n_res, __ATOMIC_RELAXED) || pthread_mutex_trylock(&u->lock))
		return;
	for (size_t i = 0; i < u->n_res; i++) {
		const struct lookup *q = &u->res[i];
		struct slot *s = find(u, q->tid, 0);

		/* a slot that moved on since (exec, another stack) keeps its own */
		if (!s || s->pid != q->pid || live(s, q->sp) || !q->hi || q->sp < q->lo ||
		    q->sp > q->hi)
			continue;
		s->lo = q->lo;
		s->hi = q->hi;
		s->wait = 0;
	}
	__atomic_store_n(&u->n_res, 0, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&u->lock);
}

/* ask the resolver; false if it cannot take it now (asked again at a later sample) */
static bool ask(struct rsp_ustack *u, uint32_t pid, uint32_t tid, uint64_t sp)
{
	bool ok = false;

	if (pthread_mutex_trylock(&u->lock))
		return false;
	if (u->n_req < QCAP && u->pending < QCAP) {
		u->req[u->n_req++] = (struct lookup){.pid = pid, .tid = tid, .sp = sp};
		u->pending++;
		pthread_cond_signal(&u->cond);
		ok = true;
	}
	pthread_mutex_unlock(&u->lock);
	return ok;
}

uint64_t rsp_ustack_keep(struct rsp_ustack *u, uint32_t pid, uint32_t tid, uint64_t sp,
			 uint64_t have, const void *copy, uint64_t copy_len)
{
	struct slot *s;
	uint64_t keep;

	if (u->async)
		take_answers(u);
	s = find(u, tid, 1);
	if (!s || !pid || !tid)
		return have;
	s->pid = pid;
	if (!live(s, sp) && s->wait && sp - s->miss + MISS_NEAR < 2 * MISS_NEAR) {
		s->wait--; /* the last lookup failed (or is under way) near here: again now and then */
	} else if (!live(s, sp)) {
		/* first sight, or the stack moved (exec, a thread reused): look up */
		s->lo = s->hi = 0;
		if (u->async) {
			/* a main thread's copy that holds its entry frame needs no /proc */
			if (!(tid == pid && from_copy(s, sp, copy, copy_len)) && ask(u, pid, tid, sp)) {
				s->wait = 1000; /* until the answer comes */
				s->miss = sp;
			}
		} else {
			struct lookup q = {.pid = pid, .tid = tid, .sp = sp};

			lookup(&q);
			s->lo = q.lo;
			s->hi = q.hi;
			/* the process is gone, or is another image now: the copy tells */
			if (!live(s, sp) && tid == pid)
				from_copy(s, sp, copy, copy_len);
			if (!live(s, sp)) {
				s->wait = 1000;
				s->miss = sp;
			}
		}
	}
	if (!live(s, sp))
		return have;
	keep = s->hi - sp + RSP_USTACK_MARGIN;
	keep = (keep + 7) & ~7ull;
	return keep < have ? keep : have;
}

static int popcount64(uint64_t v)
{
	return __builtin_popcountll(v);
}

int rsp_ustack_locate(const void *rec, size_t len, uint64_t st, uint64_t regs_mask, int sp_reg,
		      struct rsp_ustack_loc *out)
{
	const unsigned char *p = rec, *end = p + len;
	const struct perf_event_header *h = rec;
	uint64_t v, abi;

#define TAKE(dst)                                   \
	do {                                        \
		if ((size_t)(end - p) < 8)          \
			return -1;                  \
		memcpy(&(dst), p, 8);               \
		p += 8;                             \
	} while (0)
#define SKIP(n)                                     \
	do {                                        \
		if ((uint64_t)(end - p) < (n))      \
			return -1;                  \
		p += (n);                           \
	} while (0)

	memset(out, 0, sizeof(*out));
	if (len < sizeof(*h) || h->type != PERF_RECORD_SAMPLE || h->size > len ||
	    !(st & PERF_SAMPLE_STACK_USER) || !(st & PERF_SAMPLE_REGS_USER))
		return -1;
	if (st & (PERF_SAMPLE_READ | PERF_SAMPLE_BRANCH_STACK))
		return -1; /* not in rsp's attrs */
	end = p + h->size;
	p += sizeof(*h);
	if (st & PERF_SAMPLE_IDENTIFIER)
		SKIP(8);
	if (st & PERF_SAMPLE_IP)
		SKIP(8);
	if (st & PERF_SAMPLE_TID) {
		TAKE(v);
		out->pid = (uint32_t)v;
		out->tid = (uint32_t)(v >> 32);
	}
	if (st & PERF_SAMPLE_TIME)
		SKIP(8);
	if (st & PERF_SAMPLE_ADDR)
		SKIP(8);
	if (st & PERF_SAMPLE_ID)
		SKIP(8);
	if (st & PERF_SAMPLE_STREAM_ID)
		SKIP(8);
	if (st & PERF_SAMPLE_CPU)
		SKIP(8);
	if (st & PERF_SAMPLE_PERIOD)
		SKIP(8);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		out->chain_off = (size_t)(p - (const unsigned char *)rec);
		TAKE(v);
		if (v > (uint64_t)(end - p) / 8)
			return -1;
		SKIP(8 * v);
	}
	if (st & PERF_SAMPLE_RAW) {
		uint32_t n;

		if ((size_t)(end - p) < 4)
			return -1;
		memcpy(&n, p, 4);
		SKIP(4ull + n);
	}
	out->regs_off = (size_t)(p - (const unsigned char *)rec);
	TAKE(abi);
	if (abi) {
		int nregs = popcount64(regs_mask);

		if (sp_reg < 0 || !(regs_mask & (1ull << sp_reg)))
			return -1;
		if ((uint64_t)(end - p) < 8ull * nregs)
			return -1;
		memcpy(&out->sp, p + 8 * popcount64(regs_mask & ((1ull << sp_reg) - 1)), 8);
		SKIP(8ull * nregs);
	}
	out->size_off = (size_t)(p - (const unsigned char *)rec);
	TAKE(out->size);
	if (!out->size)
		return -1;
	if (out->size > (uint64_t)(end - p) || (uint64_t)(end - p) - out->size < 8)
		return -1;
	memcpy(&out->dyn_size, p + out->size, 8);
	if (!abi)
		return -1;
	return 0;
#undef TAKE
#undef SKIP
}

size_t rsp_ustack_trim(const void *rec, size_t len, const struct rsp_ustack_loc *loc,
		       uint64_t keep, void *out)
{
	const unsigned char *in = rec;
	const struct perf_event_header *h = rec;
	unsigned char *o = out;
	size_t after = loc->size_off + 8 + loc->size + 8; /* past dyn_size */
	size_t tail = h->size - after; /* fields after the stack (none in rsp's attrs) */
	uint64_t dyn = loc->dyn_size < keep ? loc->dyn_size : keep;
	struct perf_event_header nh = *h;
	size_t n = loc->size_off;

	(void)len;
	memcpy(o, in, n);
	memcpy(o + n, &keep, 8);
	n += 8;
	memcpy(o + n, in + loc->size_off + 8, keep);
	n += keep;
	memcpy(o + n, &dyn, 8);
	n += 8;
	memcpy(o + n, in + after, tail);
	n += tail;
	nh.size = (uint16_t)n;
	memcpy(o, &nh, sizeof(nh));
	return n;
}
