/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rsp_sym: one trace's symbolizer.  Lookups go kernel -> kallsyms table, user ->
 * the process's map at that time -> the file's ELF address -> the file's cached
 * symbol.  Function names are interned: each distinct name is stored once and
 * lives until rsp_sym_free().
 */
#include <errno.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/symbols-private.h"

static const char unknown_dso[] = "[unknown]";

struct istr {
	struct _rsp_hnode node;
	char s[];
};

const char *_rsp_sym_intern(struct rsp_sym *sym, const char *s, bool demangle)
{
	char *dm = demangle ? _rsp_demangle(s) : NULL;
	const char *str = dm ? dm : s;
	size_t len = strlen(str);
	uint64_t h = _rsp_hash_bytes(_RSP_HASH_SEED, str, len);
	struct istr *e;

	for (struct _rsp_hnode *n = _rsp_htab_chain(&sym->strs, h); n; n = n->next) {
		e = (struct istr *)n;
		if (n->hash == h && !strcmp(e->s, str)) {
			free(dm);
			return e->s;
		}
	}
	e = malloc(sizeof(*e) + len + 1);
	if (!e) {
		free(dm);
		return NULL;
	}
	e->node.hash = h;
	memcpy(e->s, str, len + 1);
	free(dm);
	if (_rsp_htab_insert(&sym->strs, &e->node)) {
		free(e);
		return NULL;
	}
	return e->s;
}

int rsp_sym_new(struct rsp_sym **out, const struct rsp_sym_opts *opts)
{
	const char *debug_dir = opts && opts->debug_dir ? opts->debug_dir : "/usr/lib/debug";
	const char *sysroot = opts ? opts->sysroot : NULL;
	struct rsp_sym *sym;

	*out = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	sym = calloc(1, sizeof(*sym));
	if (!sym)
		return -ENOMEM;
	sym->debug_dir = strdup(debug_dir);
	/* "/" and "" mean no prefix; a trailing '/' would double the path's */
	if (sysroot && sysroot[0] && strcmp(sysroot, "/")) {
		sym->sysroot = strdup(sysroot);
		if (sym->sysroot) {
			size_t n = strlen(sym->sysroot);

			while (n > 1 && sym->sysroot[n - 1] == '/')
				sym->sysroot[--n] = '\0';
		}
	}
	if (!sym->debug_dir || (sysroot && sysroot[0] && strcmp(sysroot, "/") && !sym->sysroot)) {
		rsp_sym_free(sym);
		return -ENOMEM;
	}
	*out = sym;
	return 0;
}

void rsp_sym_free(struct rsp_sym *sym)
{
	if (!sym)
		return;
	_rsp_unwind_reset(sym);
	_rsp_dsos_free(sym);
	_rsp_procs_free(sym);
	for (size_t i = 0; i < sym->strs.cap; i++) {
		struct _rsp_hnode *n = sym->strs.buckets[i], *next;

		for (; n; n = next) {
			next = n->next;
			free(n);
		}
	}
	_rsp_htab_release(&sym->strs);
	_rsp_kallsyms_free(sym->kallsyms);
	free(sym->debug_dir);
	free(sym->sysroot);
	free(sym);
}

int rsp_sym_set_kallsyms(struct rsp_sym *sym, const char *text, size_t len)
{
	struct _rsp_kallsyms *k;
	int err;

	if (!sym)
		return -EINVAL;
	err = _rsp_kallsyms_parse(&k, text, len);
	if (err)
		return err;
	k->retired = sym->kallsyms; /* frames may still point at its names */
	sym->kallsyms = k;
	sym->stats.kernel_symbols = k->n;
	return k->n > INT32_MAX ? INT32_MAX : (int)k->n;
}

void rsp_sym_lookup(struct rsp_sym *sym, int pid, uint64_t time, uint64_t addr, bool kernel,
		    struct rsp_sym_frame *out)
{
	const struct _rsp_map *m;
	struct _rsp_proc *p;
	struct _rsp_dso *d;
	uint64_t bias;

	*out = (struct rsp_sym_frame){ .dso = unknown_dso, .rel_addr = addr };
	if (!sym)
		return;
	sym->stats.lookups++;
	if (kernel || addr >= _RSP_KERNEL_START) {
		out->kernel = true;
		_rsp_kallsyms_lookup(sym->kallsyms, addr, out);
		return;
	}
	p = _rsp_proc_get(sym, pid);
	m = p ? _rsp_proc_find_map(p, addr, time) : NULL;
	if (!m)
		return;
	d = m->dso;
	out->dso = d->name;
	out->rel_addr = addr - m->start + m->pgoff; /* file offset until we know better */
	if (_rsp_dso_load(sym, d) || !_rsp_dso_map_bias(d, m, &bias))
		return;
	out->rel_addr = addr - bias;
	_rsp_dso_symbolize(sym, d, addr - bias, out);
}

void rsp_sym_stats(const struct rsp_sym *sym, struct rsp_sym_stats *out)
{
	if (!sym) {
		memset(out, 0, sizeof(*out));
		return;
	}
	*out = sym->stats;
}
