/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rsp_sym: one trace's symbolizer.  Lookups go kernel -> kallsyms table, user ->
 * the process's map at that time -> the file's ELF address -> the file's cached
 * symbol.  What the trace says changes go through here (maps, exec, fork, build
 * ids), so the unwinders that cached a process's maps or a file's image learn of
 * it (unwind.c).
 */
#include <errno.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/symbols-private.h"

static const char unknown_dso[] = "[unknown]";

static char *dir_dup(const char *dir)
{
	char *d = strdup(dir);
	size_t n = d ? strlen(d) : 0;

	while (n > 1 && d[n - 1] == '/') /* a trailing '/' would double the path's */
		d[--n] = '\0';
	return d;
}

int rsp_sym_new(struct rsp_sym **out, const struct rsp_sym_opts *opts)
{
	const char *debug_dir = opts && opts->debug_dir ? opts->debug_dir : "/usr/lib/debug";
	const char *sysroot = opts ? opts->sysroot : NULL;
	size_t n_dirs = opts ? opts->n_debug_dirs : 0;
	struct rsp_sym *sym;
	int err;

	*out = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	sym = calloc(1, sizeof(*sym));
	if (!sym)
		return -ENOMEM;
	sym->debug_dirs = calloc(n_dirs + 1, sizeof(*sym->debug_dirs));
	if (!sym->debug_dirs)
		goto nomem;
	for (size_t i = 0; i < n_dirs; i++)
		if (!(sym->debug_dirs[sym->n_debug_dirs++] = dir_dup(opts->debug_dirs[i])))
			goto nomem;
	if (!(sym->debug_dirs[sym->n_debug_dirs++] = dir_dup(debug_dir)))
		goto nomem;
	/* "/" and "" mean no prefix */
	if (sysroot && sysroot[0] && strcmp(sysroot, "/") && !(sym->sysroot = dir_dup(sysroot)))
		goto nomem;
	if (opts && opts->archive) {
		err = _rsp_archive_open(&sym->archive, opts->archive);
		if (err == -ENOMEM)
			goto nomem;
		if (!err && !(sym->archive_path = strdup(opts->archive)))
			goto nomem;
	}
	if (opts && opts->jit_dir && _rsp_jit_load_dir(sym, opts->jit_dir))
		goto nomem;
	if (opts) {
		sym->debuginfod = opts->debuginfod;
		sym->progress = opts->progress;
		sym->progress_ctx = opts->progress_ctx;
	}
	*out = sym;
	return 0;
nomem:
	rsp_sym_free(sym);
	return -ENOMEM;
}

void rsp_sym_free(struct rsp_sym *sym)
{
	if (!sym)
		return;
	_rsp_unwind_reset(sym);
	_rsp_jit_free(sym);
	_rsp_dsos_free(sym);
	_rsp_procs_free(sym);
	_rsp_names_free(sym);
	_rsp_kallsyms_free(sym->kallsyms);
	for (size_t i = 0; sym->debug_dirs && i < sym->n_debug_dirs; i++)
		free(sym->debug_dirs[i]);
	free(sym->debug_dirs);
	free(sym->sysroot);
	_rsp_archive_free(sym->archive);
	free(sym->archive_path);
	_rsp_debuginfod_end(sym);
	free(sym);
}

/* --- what the trace says changes ---------------------------------------------------- */

int rsp_sym_add_map(struct rsp_sym *sym, int pid, uint64_t time, uint64_t start, uint64_t len,
		    uint64_t pgoff, uint32_t prot, const char *path, const uint8_t *build_id,
		    size_t build_id_len)
{
	struct _rsp_proc *p;
	struct _rsp_map m;
	int err;

	if (!sym || !path || !len || start + len < start || time == _RSP_TIME_END)
		return -EINVAL;
	if (build_id_len > _RSP_BUILD_ID_MAX || !build_id) /* no usable id: keep the map */
		build_id_len = 0;
	m = (struct _rsp_map){
		.start = start,
		.end = start + len,
		.pgoff = pgoff,
		.t0 = time,
		.t1 = _RSP_TIME_END,
		.prot = prot,
		.dso = _rsp_dso_get(sym, path, build_id, build_id_len),
	};
	err = _rsp_proc_add_map(sym, pid, &m, &p);
	if (!err)
		_rsp_unwind_touch(sym, p, time);
	return err;
}

int rsp_sym_exec(struct rsp_sym *sym, int pid, uint64_t time)
{
	struct _rsp_proc *p;
	int err;

	if (!sym)
		return -EINVAL;
	p = _rsp_proc_get(sym, pid);
	if (!p)
		return 0;
	err = _rsp_proc_exec(p, time);
	_rsp_unwind_touch(sym, p, time);
	return err;
}

int rsp_sym_fork(struct rsp_sym *sym, int child_pid, int parent_pid, uint64_t time)
{
	struct _rsp_proc *c, *p;
	int err;

	if (!sym || time == _RSP_TIME_END)
		return -EINVAL;
	if (child_pid == parent_pid) /* a thread: same address space */
		return 0;
	err = _rsp_proc_reset(sym, child_pid, time, &c);
	if (!c)
		return err;
	p = _rsp_proc_get(sym, parent_pid);
	_rsp_unwind_touch(sym, c, time);
	if (err || !p)
		return err;
	return _rsp_proc_inherit(c, p, time);
}

int rsp_sym_set_build_id(struct rsp_sym *sym, const char *path, const uint8_t *id, size_t len)
{
	struct _rsp_dso *d;

	if (!sym || !path || !id || !len || len > _RSP_BUILD_ID_MAX)
		return -EINVAL;
	d = _rsp_dso_get(sym, path, NULL, 0);
	if (!d)
		return -ENOMEM;
	if (d->want_id_len == len && !memcmp(d->want_id, id, len))
		return 0;
	if (d->state != _RSP_DSO_NEW) {
		_rsp_unwind_reset(sym); /* unwinders hold elf_memory() handles on the image */
		_rsp_dso_unload(sym, d);
	}
	memcpy(d->want_id, id, len);
	d->want_id_len = len;
	return 0;
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
	for (size_t i = 0; i < _RSP_KCACHE; i++)
		sym->kcache[i].addr = 0; /* looked up in the table before */
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
		uint64_t h = addr * 0x9e3779b97f4a7c15ull;
		size_t k = (size_t)(h >> 32) & (_RSP_KCACHE - 1);

		if (addr && sym->kcache[k].addr == addr) {
			*out = sym->kcache[k].f;
			return;
		}
		out->kernel = true;
		_rsp_kallsyms_lookup(sym->kallsyms, addr, out);
		sym->kcache[k].addr = addr;
		sym->kcache[k].f = *out;
		return;
	}
	p = _rsp_proc_get(sym, pid);
	m = p ? _rsp_proc_find_map(p, addr, time) : NULL;
	/* code a runtime compiled: in anonymous memory, or where no map was recorded */
	if (sym->n_jits && (!m || m->dso->anon || !m->dso->openable) &&
	    _rsp_jit_lookup(sym, pid, time, addr, out)) {
		out->file = m ? m->dso->index + 1 : 0;
		return;
	}
	if (!m)
		return;
	d = m->dso;
	out->dso = d->name;
	out->file = d->index + 1;
	out->rel_addr = addr - m->start + m->pgoff; /* file offset until we know better */
	if (_rsp_dso_load(sym, d) || !_rsp_dso_map_bias(d, m, &bias))
		return;
	out->rel_addr = addr - bias;
	_rsp_dso_symbolize(sym, d, addr - bias, out);
}

uint32_t rsp_sym_names_epoch(struct rsp_sym *sym, int pid, uint64_t time)
{
	return sym ? _rsp_jit_epoch(sym, pid, time) : 0;
}

void rsp_sym_stats(const struct rsp_sym *sym, struct rsp_sym_stats *out)
{
	if (!sym) {
		memset(out, 0, sizeof(*out));
		return;
	}
	*out = sym->stats;
}

size_t rsp_sym_n_files(const struct rsp_sym *sym)
{
	return sym ? sym->n_files : 0;
}

void rsp_sym_file(const struct rsp_sym *sym, size_t i, struct rsp_sym_file *out)
{
	const struct _rsp_dso *d;

	memset(out, 0, sizeof(*out));
	if (!sym || i >= sym->n_files)
		return;
	d = sym->files[i];
	out->path = d->name;
	out->build_id = d->want_id_len ? d->want_id : NULL;
	out->build_id_len = d->want_id_len;
	if (d->state == _RSP_DSO_READY) {
		out->state = d->no_functions ? RSP_SYM_FILE_NO_SYMBOLS : RSP_SYM_FILE_READ;
		out->read_from = d->file;
		out->debug_file = d->from_debug_dir;
		out->dynamic_only = d->dynamic_only;
	} else if ((!d->openable && !d->deleted) || d->anon) {
		out->state = RSP_SYM_FILE_NOT_A_FILE;
	} else if (d->state == _RSP_DSO_NEW) {
		out->state = RSP_SYM_FILE_UNTRIED;
	} else if (d->tried_other_build) {
		out->state = RSP_SYM_FILE_BUILD_ID_DIFFERS;
	} else if (d->path_err && d->path_err != -ENOENT && d->path_err != -ENAMETOOLONG) {
		out->state = RSP_SYM_FILE_UNREADABLE;
	} else {
		out->state = RSP_SYM_FILE_MISSING;
	}
}

const char *rsp_sym_archive_kallsyms(const struct rsp_sym *sym, size_t *len)
{
	void *data;

	if (!sym || !_rsp_archive_find(sym->archive, "kallsyms", &data, len))
		return NULL;
	return data;
}

void rsp_sym_file_find(struct rsp_sym *sym, size_t i)
{
	if (sym && i < sym->n_files)
		_rsp_dso_load(sym, sym->files[i]);
}
