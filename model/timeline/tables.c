/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the loader and the builder both fill: the trace's interned strings
 * (comms, irq names), its warnings, and its threads, found by tid as the
 * build goes (a tid reused after an exit is a new thread).
 */
#include "timeline/trace-private.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t str_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

/*
 * A string's id is its chunk times STR_CHUNK plus its offset there; id 0 is
 * the empty string.  A chunk is never moved or grown: a string that does not
 * fit in the last one starts another (one longer than STR_CHUNK has a chunk
 * of its own, full).
 */
#define STR_CHUNK (64u << 10)
#define STR_MAX_CHUNKS (UINT32_MAX / STR_CHUNK)

static int str_rehash(struct rsp_trace *t)
{
	size_t cap = t->str_cap ? t->str_cap * 2 : 256;
	uint32_t *ht = calloc(cap, sizeof(*ht));

	if (!ht)
		return -ENOMEM;
	for (size_t c = 0; c < t->strchunks.n; c++) {
		const struct strchunk *k = &t->strchunks.v[c];

		for (uint32_t off = c ? 0 : 1; off < k->used;) {
			const char *s = k->p + off;
			size_t i = str_hash(s) & (cap - 1);

			while (ht[i])
				i = (i + 1) & (cap - 1);
			ht[i] = (uint32_t)(c * STR_CHUNK + off);
			off += (uint32_t)strlen(s) + 1;
		}
	}
	free(t->str_ht);
	t->str_ht = ht;
	t->str_cap = cap;
	return 0;
}

/* a chunk of at least @len bytes at the end of the table; false without memory or ids */
static bool str_chunk(struct rsp_trace *t, size_t len)
{
	struct strchunk k = { NULL, 0, len > STR_CHUNK ? (uint32_t)len : STR_CHUNK };

	if (t->strchunks.n >= STR_MAX_CHUNKS || len > UINT32_MAX)
		return false;
	k.p = malloc(k.cap);
	if (!k.p)
		return false;
	if (!vec_push(&t->strchunks, k)) {
		free(k.p);
		return false;
	}
	return true;
}

uint32_t trace_intern(struct rsp_trace *t, const char *s)
{
	struct strchunk *k;
	size_t i, len;
	uint32_t id;

	if (!s || !*s)
		return 0;
	if (!t->strchunks.n) {
		/* offset 0 of chunk 0: id 0, the empty string */
		if (!str_chunk(t, 1))
			return 0;
		t->strchunks.v[0].p[0] = '\0';
		t->strchunks.v[0].used = 1;
	}
	if (!t->str_cap || t->str_n + 1 > t->str_cap / 2) {
		if (str_rehash(t))
			return 0;
	}
	for (i = str_hash(s) & (t->str_cap - 1); t->str_ht[i]; i = (i + 1) & (t->str_cap - 1))
		if (!strcmp(trace_str(t, t->str_ht[i]), s))
			return t->str_ht[i];
	len = strlen(s) + 1;
	k = vec_last(&t->strchunks);
	if (k->used + len > k->cap) {
		if (!str_chunk(t, len))
			return 0;
		k = vec_last(&t->strchunks);
	}
	memcpy(k->p + k->used, s, len);
	id = (uint32_t)((t->strchunks.n - 1) * STR_CHUNK + k->used);
	k->used += (uint32_t)len;
	t->str_n++;
	t->str_ht[i] = id;
	return id;
}

const char *trace_str(const struct rsp_trace *t, uint32_t id)
{
	size_t c = id / STR_CHUNK;
	uint32_t off = id % STR_CHUNK;

	return id && c < t->strchunks.n && off < t->strchunks.v[c].used ?
		       t->strchunks.v[c].p + off :
		       "";
}

void trace_warn(struct rsp_trace *t, const char *fmt, ...)
{
	char buf[512], *s;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	for (size_t i = 0; i < t->warnings.n; i++)
		if (!strcmp(t->warnings.v[i], buf))
			return;
	s = strdup(buf);
	if (s && !vec_push(&t->warnings, s))
		free(s);
}

static size_t tid_slot(const struct rsp_trace *t, uint32_t tid)
{
	return (tid * 2654435761u) & (t->tid_cap - 1);
}

static int tid_rehash(struct rsp_trace *t)
{
	size_t cap = t->tid_cap ? t->tid_cap * 2 : 1024;
	uint32_t *ht = calloc(cap, sizeof(*ht));
	size_t old = t->tid_cap;
	uint32_t *oht = t->tid_ht;

	if (!ht)
		return -ENOMEM;
	t->tid_ht = ht;
	t->tid_cap = cap;
	for (size_t i = 0; i < old; i++) {
		size_t j;

		if (!oht[i])
			continue;
		for (j = tid_slot(t, t->threads.v[oht[i] - 1].tid); ht[j]; j = (j + 1) & (cap - 1))
			;
		ht[j] = oht[i];
	}
	free(oht);
	return 0;
}

uint32_t trace_thread_new(struct rsp_trace *t, uint32_t tid, uint32_t pid, uint64_t time)
{
	struct thread th;
	size_t j;

	if ((t->threads.n + 1) * 2 > t->tid_cap && tid_rehash(t))
		return RSP_NONE;
	memset(&th, 0, sizeof(th));
	th.tid = tid;
	th.pid = pid ? pid : tid;
	th.parent = RSP_NONE;
	th.pending_link = RSP_NONE;
	th.birth = time;
	if (!vec_push(&t->threads, th))
		return RSP_NONE;
	for (j = tid_slot(t, tid); t->tid_ht[j]; j = (j + 1) & (t->tid_cap - 1))
		if (t->threads.v[t->tid_ht[j] - 1].tid == tid)
			break;
	t->tid_ht[j] = (uint32_t)t->threads.n; /* the newest thread owns the tid */
	return (uint32_t)(t->threads.n - 1);
}

uint32_t trace_thread_of(struct rsp_trace *t, uint32_t tid, uint32_t pid, uint64_t time)
{
	if (tid == 0)
		return RSP_NONE;
	if (t->tid_cap) {
		for (size_t j = tid_slot(t, tid); t->tid_ht[j]; j = (j + 1) & (t->tid_cap - 1)) {
			struct thread *th = &t->threads.v[t->tid_ht[j] - 1];

			if (th->tid != tid)
				continue;
			if (pid && th->pid != pid && th->pid == th->tid && pid != tid)
				th->pid = pid; /* learned its process */
			return t->tid_ht[j] - 1;
		}
	}
	return trace_thread_new(t, tid, pid, time ? time : t->t_start);
}
