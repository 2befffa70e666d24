/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Stacks as names for the aggregations (causes, off-CPU, folded stacks):
 * each (stack, process) is symbolized once (once per epoch of a JIT runtime's
 * reused addresses, rsp_trace_names_epoch()).
 */
#include "aggregate/frames-private.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- named stacks ----------------------------------------------------------------------- */

struct named {
	struct rsp_named_frame *f;
	uint32_t n;
	uint32_t epoch; /* rsp_trace_names_epoch() it was named at */
	uint32_t next; /* entry + 1 of the same (stack, pid) at another epoch; 0: none */
};

struct _rsp_namecache {
	struct rsp_trace *t;
	struct _rsp_u64map index; /* (resolved stack << 32 | pid) -> entry (its first epoch) */
	VEC(struct named) entries;
	struct rsp_strmap pool; /* "file+0xADDR" names: the keys are the strings */
	VEC(char *) pool_strs;
};

struct _rsp_namecache *_rsp_namecache_new(struct rsp_trace *t)
{
	struct _rsp_namecache *c = calloc(1, sizeof(*c));

	if (c)
		c->t = t;
	return c;
}

void _rsp_namecache_free(struct _rsp_namecache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->entries.n; i++)
		free(c->entries.v[i].f);
	vec_free(&c->entries);
	_rsp_u64map_free(&c->index);
	rsp_strmap_free(&c->pool);
	for (size_t i = 0; i < c->pool_strs.n; i++)
		free(c->pool_strs.v[i]);
	vec_free(&c->pool_strs);
	free(c);
}

/* A string that lives as long as the cache. */
static const char *pool_str(struct _rsp_namecache *c, const char *s)
{
	uint32_t v;
	bool added;
	char *copy;

	if (rsp_strmap_get_or_add(&c->pool, s, (uint32_t)c->pool_strs.n, &v, &added))
		return NULL;
	if (!added)
		return c->pool_strs.v[v];
	copy = strdup(s);
	if (!copy || !vec_push(&c->pool_strs, copy)) {
		free(copy);
		return NULL; /* the map now names a missing string: the cache is unusable */
	}
	return copy;
}

static const char *frame_name(struct _rsp_namecache *c, const struct rsp_frame_info *fi)
{
	char buf[300];
	const char *name = rsp_frame_name(fi, buf, sizeof(buf));

	return name == buf ? pool_str(c, buf) : name;
}

int _rsp_namecache_get(struct _rsp_namecache *c, uint32_t stack, int pid, uint64_t time,
		       struct _rsp_names *out, uint32_t *id)
{
	uint32_t resolved = stack ? trace_stack_resolve(c->t, stack) : 0, e, chain = 0;
	uint64_t key;
	struct named nm = { 0 };
	size_t n;

	out->f = NULL;
	out->n = 0;
	*id = 0;
	if (!resolved)
		return 0;
	key = (uint64_t)resolved << 32 | (uint32_t)pid;
	/* a JIT runtime's reused addresses: the names of the epoch (0 elsewhere) */
	nm.epoch = rsp_trace_names_epoch(c->t, pid, time);
	if (_rsp_u64map_get(&c->index, key, &e)) {
		while (c->entries.v[e].epoch != nm.epoch && c->entries.v[e].next)
			e = c->entries.v[e].next - 1;
		if (c->entries.v[e].epoch == nm.epoch) {
			out->f = c->entries.v[e].f;
			out->n = c->entries.v[e].n;
			*id = e + 1;
			return 0;
		}
		chain = e + 1;
	}
	n = rsp_stack_n_frames(c->t, resolved);
	if (n) {
		nm.f = calloc(n, sizeof(*nm.f));
		if (!nm.f)
			return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		struct rsp_frame_info fi;
		const char *name;

		rsp_stack_frame(c->t, resolved, i, pid, time, &fi);
		name = frame_name(c, &fi);
		if (!name) {
			free(nm.f);
			return -ENOMEM;
		}
		nm.f[i].func = name;
		nm.f[i].dso = fi.dso;
		nm.f[i].rel_addr = fi.rel_addr;
		nm.f[i].kernel = fi.kernel;
	}
	nm.n = (uint32_t)n;
	if (!vec_push(&c->entries, nm)) {
		free(nm.f);
		return -ENOMEM;
	}
	e = (uint32_t)(c->entries.n - 1);
	if (chain)
		c->entries.v[chain - 1].next = e + 1;
	else if (_rsp_u64map_put(&c->index, key, e))
		return -ENOMEM;
	out->f = nm.f;
	out->n = nm.n;
	*id = e + 1;
	return 0;
}

static int put(char **buf, size_t *cap, size_t *len, const char *s, size_t n)
{
	if (*len + n + 1 > *cap) {
		size_t nc = *cap ? *cap : 256;
		char *g;

		while (*len + n + 1 > nc)
			nc *= 2;
		g = realloc(*buf, nc);
		if (!g)
			return -ENOMEM;
		*buf = g;
		*cap = nc;
	}
	memcpy(*buf + *len, s, n);
	*len += n;
	(*buf)[*len] = '\0';
	return 0;
}

int _rsp_names_join(const struct _rsp_names *n, char **buf, size_t *cap, size_t *len,
		    const char *ksuffix)
{
	for (size_t i = n->n; i-- > 0;) {
		const char *s = n->f[i].func;
		size_t at = *len;

		if (at && put(buf, cap, len, ";", 1))
			return -ENOMEM;
		at = *len;
		if (put(buf, cap, len, s, strlen(s)))
			return -ENOMEM;
		for (size_t k = at; k < *len; k++)
			if ((*buf)[k] == ';' || (*buf)[k] == '\n' || (*buf)[k] == '\r')
				(*buf)[k] = (*buf)[k] == ';' ? ':' : ' ';
		if (ksuffix && n->f[i].kernel && put(buf, cap, len, ksuffix, strlen(ksuffix)))
			return -ENOMEM;
	}
	return 0;
}

const char *_rsp_names_label(const struct _rsp_names *n, char *buf, size_t len)
{
	const char *inner = NULL, *caller = NULL, *kfunc = NULL;

	for (size_t i = 0; i < n->n; i++) {
		const char *f = n->f[i].func;

		if (n->f[i].kernel) {
			if (!kfunc && f[0] != '[' && !_rsp_is_sched_func(f))
				kfunc = f;
			continue;
		}
		if (f[0] == '[')
			continue;
		if (!inner) {
			inner = f;
		} else if (strcmp(f, inner)) {
			caller = f;
			break;
		}
	}
	if (inner && caller)
		snprintf(buf, len, "%s > %s", caller, inner);
	else if (inner)
		snprintf(buf, len, "%s", inner);
	else if (kfunc)
		snprintf(buf, len, "[kernel] %s", kfunc);
	else
		return NULL;
	return buf;
}
