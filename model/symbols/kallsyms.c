/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel's symbol table from /proc/kallsyms text: text symbols only, sorted,
 * one per address, looked up by binary search.  A symbol ends where the next
 * one starts; the last one gets a page past its start's page, as perf does.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "symbols/symbols-private.h"

#define KSYM_NAME_MAX 512 /* the kernel's KSYM_NAME_LEN */
#define MODULE_NAME_MAX 64 /* MODULE_NAME_LEN is 56 */
#define TEXT_MAX (1u << 30) /* kallsyms is ~10 MiB; names are addressed with uint32_t */

struct builder {
	struct _rsp_kallsyms *k;
	size_t cap_syms;
	size_t names_len, names_cap;
	size_t cap_dsos;
	uint32_t last_dso;
	unsigned char *rank; /* parallel to k->syms while sorting */
};

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Aliases at one address: keep the most telling name (T, then t, then weak). */
static int type_rank(char type)
{
	switch (type) {
	case 'T':
		return 3;
	case 't':
		return 2;
	case 'W':
		return 1;
	case 'w':
		return 0;
	default:
		return -1;
	}
}

static int add_name(struct builder *b, const char *s, size_t len, uint32_t *off)
{
	if (b->names_len + len + 1 > b->names_cap) {
		size_t cap = b->names_cap ? b->names_cap * 2 : 64 * 1024;

		while (cap < b->names_len + len + 1)
			cap *= 2;
		if (!_rsp_grow_warm((void **)&b->k->names, &b->names_cap, cap, b->names_len, 1))
			return -ENOMEM;
	}
	memcpy(b->k->names + b->names_len, s, len);
	b->k->names[b->names_len + len] = '\0';
	*off = (uint32_t)b->names_len;
	b->names_len += len + 1;
	return 0;
}

/* Index of "[module]" in dsos, added if new.  Lines come grouped by module. */
static int module_index(struct builder *b, const char *s, size_t len, uint32_t *idx)
{
	struct _rsp_kallsyms *k = b->k;
	char *name;

	if (b->last_dso && strlen(k->dsos[b->last_dso]) == len + 2 &&
	    !memcmp(k->dsos[b->last_dso] + 1, s, len)) {
		*idx = b->last_dso;
		return 0;
	}
	for (size_t i = 1; i < k->n_dsos; i++) {
		if (strlen(k->dsos[i]) == len + 2 && !memcmp(k->dsos[i] + 1, s, len)) {
			*idx = b->last_dso = (uint32_t)i;
			return 0;
		}
	}
	if (k->n_dsos == b->cap_dsos) {
		size_t cap = b->cap_dsos * 2;
		char **p = realloc(k->dsos, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		k->dsos = p;
		b->cap_dsos = cap;
	}
	name = malloc(len + 3);
	if (!name)
		return -ENOMEM;
	name[0] = '[';
	memcpy(name + 1, s, len);
	name[len + 1] = ']';
	name[len + 2] = '\0';
	k->dsos[k->n_dsos] = name;
	*idx = b->last_dso = (uint32_t)k->n_dsos++;
	return 0;
}

/* One line, without its '\n'.  Returns 0 (kept or skipped) or -ENOMEM. */
static int parse_line(struct builder *b, const char *p, const char *end)
{
	struct _rsp_kallsyms *k = b->k;
	uint64_t addr = 0;
	const char *name, *mod = NULL;
	size_t name_len, mod_len = 0, digits = 0;
	uint32_t dso = 0, off;
	int rank, err;
	char type;

	for (; p < end && hexval(*p) >= 0; p++) {
		if (++digits > 16)
			return 0;
		addr = addr << 4 | (uint64_t)hexval(*p);
	}
	if (!digits || end - p < 3 || p[0] != ' ' || p[2] != ' ')
		return 0;
	type = p[1];
	rank = type_rank(type);
	if (rank < 0 || addr == 0)
		return 0;
	name = p += 3;
	while (p < end && *p != ' ' && *p != '\t')
		p++;
	name_len = (size_t)(p - name);
	if (!name_len || name_len >= KSYM_NAME_MAX || memchr(name, '\0', name_len))
		return 0;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p < end && *p == '[') {
		const char *close = memchr(p, ']', (size_t)(end - p));

		if (!close)
			return 0;
		mod = p + 1;
		mod_len = (size_t)(close - mod);
		if (!mod_len || mod_len >= MODULE_NAME_MAX || memchr(mod, '\0', mod_len))
			return 0;
	}

	if (k->n == b->cap_syms) {
		size_t cap = b->cap_syms ? b->cap_syms * 2 : 4096;
		size_t had = b->cap_syms;

		if (!_rsp_grow_warm((void **)&k->syms, &had, cap, k->n, sizeof(*k->syms)))
			return -ENOMEM;
		had = b->cap_syms;
		if (!_rsp_grow_warm((void **)&b->rank, &had, cap, k->n, 1))
			return -ENOMEM;
		b->cap_syms = cap;
	}
	if (mod && (err = module_index(b, mod, mod_len, &dso)))
		return err;
	if ((err = add_name(b, name, name_len, &off)))
		return err;
	b->rank[k->n] = (unsigned char)rank;
	k->syms[k->n++] = (struct _rsp_ksym){ .addr = addr, .name = off, .dso = dso };
	return 0;
}

/* Sort an index array: qsort has no context pointer, so sort (sym, rank) pairs. */
struct pair {
	struct _rsp_ksym sym;
	unsigned char rank;
};

static int cmp_pair(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;

	if (x->sym.addr != y->sym.addr)
		return x->sym.addr < y->sym.addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->sym.name < y->sym.name ? -1 : x->sym.name > y->sym.name;
}

static int sort_dedup(struct builder *b)
{
	struct _rsp_kallsyms *k = b->k;
	struct pair *v;
	size_t n = 0;

	if (!k->n)
		return 0;
	v = _rsp_malloc_warm(k->n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < k->n; i++)
		v[i] = (struct pair){ .sym = k->syms[i], .rank = b->rank[i] };
	qsort(v, k->n, sizeof(*v), cmp_pair);
	/* equal addresses: the best-ranked sorts last and wins */
	for (size_t i = 0; i < k->n; i++) {
		if (i + 1 < k->n && v[i + 1].sym.addr == v[i].sym.addr)
			continue;
		k->syms[n++] = v[i].sym;
	}
	free(v);
	k->n = n;
	return 0;
}

int _rsp_kallsyms_parse(struct _rsp_kallsyms **out, const char *text, size_t len)
{
	struct builder b = { 0 };
	const char *p = text, *end;
	int err = -ENOMEM;

	*out = NULL;
	if (!text && len)
		return -EINVAL;
	if (len > TEXT_MAX)
		return -EFBIG;
	end = text + len;
	b.k = calloc(1, sizeof(*b.k));
	if (!b.k)
		return -ENOMEM;
	b.cap_dsos = 16;
	b.k->dsos = calloc(b.cap_dsos, sizeof(char *));
	if (!b.k->dsos)
		goto out;
	b.k->dsos[0] = strdup("[kernel.kallsyms]");
	if (!b.k->dsos[0])
		goto out;
	b.k->n_dsos = 1;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *line_end = nl ? nl : end;

		if ((err = parse_line(&b, p, line_end)))
			goto out;
		p = nl ? nl + 1 : end;
	}
	if ((err = sort_dedup(&b)))
		goto out;
	free(b.rank);
	*out = b.k;
	return 0;
out:
	free(b.rank);
	_rsp_kallsyms_free(b.k);
	return err;
}

void _rsp_kallsyms_free(struct _rsp_kallsyms *k)
{
	while (k) {
		struct _rsp_kallsyms *older = k->retired;

		for (size_t i = 0; i < k->n_dsos; i++)
			free(k->dsos[i]);
		free(k->dsos);
		free(k->syms);
		free(k->names);
		free(k);
		k = older;
	}
}

bool _rsp_kallsyms_lookup(const struct _rsp_kallsyms *k, uint64_t addr,
			  struct rsp_sym_frame *out)
{
	size_t lo = 0, hi, i;
	uint64_t end;

	if (!k || !k->n || addr < k->syms[0].addr)
		return false;
	hi = k->n;
	while (hi - lo > 1) { /* syms[lo].addr <= addr < syms[hi].addr */
		size_t mid = lo + (hi - lo) / 2;

		if (k->syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	i = lo;
	if (i + 1 < k->n) {
		end = k->syms[i + 1].addr;
	} else {
		end = ((k->syms[i].addr + 4095) & ~4095ull) + 4096;
		if (end <= k->syms[i].addr) /* wrapped */
			end = UINT64_MAX;
	}
	if (addr >= end)
		return false;
	out->func = k->names + k->syms[i].name;
	out->dso = k->dsos[k->syms[i].dso];
	out->offset = addr - k->syms[i].addr;
	return true;
}

/* The scheduler's own functions, under every sleep's kernel stack. */
bool _rsp_is_sched_func(const char *f)
{
	static const char *const sched[] = {
		"__traceiter_sched_switch", "__schedule", "schedule", "schedule_timeout",
		"schedule_hrtimeout_range_clock", "schedule_hrtimeout_range", "io_schedule",
		"io_schedule_timeout", "schedule_preempt_disabled", "preempt_schedule_common",
		"__cond_resched", "schedule_idle", "__schedule_loop",
	};

	for (size_t i = 0; i < sizeof(sched) / sizeof(sched[0]); i++)
		if (!strcmp(f, sched[i]))
			return true;
	return false;
}
