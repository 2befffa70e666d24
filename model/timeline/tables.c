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

static int str_rehash(struct rsp_trace *t)
{
	size_t cap = t->str_cap ? t->str_cap * 2 : 256;
	uint32_t *ht = calloc(cap, sizeof(*ht));
	size_t off = 1;

	if (!ht)
		return -ENOMEM;
	while (off < t->strtab.n) {
		const char *s = &t->strtab.v[off];
		size_t i = str_hash(s) & (cap - 1);

		while (ht[i])
			i = (i + 1) & (cap - 1);
		ht[i] = (uint32_t)off;
		off += strlen(s) + 1;
	}
	free(t->str_ht);
	t->str_ht = ht;
	t->str_cap = cap;
	return 0;
}

uint32_t trace_intern(struct rsp_trace *t, const char *s)
{
	size_t i, len;
	uint32_t off;

	if (!s || !*s)
		return 0;
	if (t->strtab.n == 0 && !vec_push(&t->strtab, '\0'))
		return 0;
	if (!t->str_cap || t->strtab.n / 8 + 1 > t->str_cap / 2) {
		if (str_rehash(t))
			return 0;
	}
	for (i = str_hash(s) & (t->str_cap - 1); t->str_ht[i]; i = (i + 1) & (t->str_cap - 1))
		if (!strcmp(&t->strtab.v[t->str_ht[i]], s))
			return t->str_ht[i];
	len = strlen(s) + 1;
	if (t->strtab.n + len > UINT32_MAX)
		return 0;
	off = (uint32_t)t->strtab.n;
	for (size_t k = 0; k < len; k++)
		if (!vec_push(&t->strtab, s[k]))
			return 0;
	t->str_ht[i] = off;
	return off;
}

const char *trace_str(const struct rsp_trace *t, uint32_t id)
{
	return id && id < t->strtab.n ? &t->strtab.v[id] : "";
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
