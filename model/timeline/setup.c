/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Loading's set-up: the recording kernel's tracepoint formats, and the
 * symbolizer with the kernel's symbols (the file's kallsyms, or this
 * machine's when it runs the kernel the trace was recorded on) and the build
 * ids the file lists.  What needs only the header records is done by a
 * thread beside the scan once a large trace's formats are known.
 */
#include "timeline/load-private.h"

#include "rsp-buildid.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>

static bool running_kernel_matches(const struct rsp_reader_info *in)
{
	struct utsname u;

	for (size_t i = 0; i < in->n_build_ids; i++) {
		const struct rsp_build_id_entry *b = &in->build_ids[i];
		uint8_t id[20];
		int len;

		if (!b->kernel || strcmp(b->path, "[kernel.kallsyms]"))
			continue;
		len = rsp_build_id_of_kernel(id, sizeof(id));
		return len > 0 && len == b->len && !memcmp(id, b->id, len);
	}
	return in->osrelease && uname(&u) == 0 && !strcmp(u.release, in->osrelease);
}

static char *read_proc_kallsyms(size_t *len)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char *buf = NULL;
	size_t cap = 0, n = 0, r;

	*len = 0;
	if (!f)
		return NULL;
	do {
		if (n + 65536 > cap) {
			char *g = realloc(buf, cap ? cap * 2 : 1 << 22);

			if (!g) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = g;
			cap = cap ? cap * 2 : 1 << 22;
		}
		r = fread(buf + n, 1, 65536, f);
		n += r;
	} while (r > 0);
	fclose(f);
	*len = n;
	return buf;
}

static void setup_early(struct setup *su)
{
	struct rsp_trace *t = su->t;
	const struct rsp_reader_info *in = rsp_reader_info(t->reader);
	const struct rsp_trace_opts *o = su->o;
	struct rsp_sym_opts so = { 0 };

	su->done = true;
	if (in->tracing_data &&
	    rsp_tracedata_parse(&t->td, in->tracing_data, in->tracing_data_len, su->terr,
				sizeof(su->terr)) == 0)
		su->terr[0] = '\0';
	if (o && o->no_symbols)
		return;
	if (o)
		so = (struct rsp_sym_opts){
			.debug_dir = o->debug_dir,
			.debug_dirs = o->debug_dirs,
			.n_debug_dirs = o->n_debug_dirs,
			.sysroot = o->symfs,
			.archive = o->archive,
			.jit_dir = o->jit_dir,
			.debuginfod = o->debuginfod,
			.progress = o->sym_progress,
			.progress_ctx = o->sym_progress_ctx,
		};
	su->ret = rsp_sym_new(&t->sym, &so);
	if (!su->ret && t->td.kallsyms && t->td.kallsyms_len)
		rsp_sym_set_kallsyms(t->sym, t->td.kallsyms, t->td.kallsyms_len);
}

static void *setup_thread(void *arg)
{
	setup_early(arg);
	return NULL;
}

void _rsp_setup_start(struct setup *su)
{
	if (!su->started && !su->done && rsp_reader_info(su->t->reader)->tracing_data &&
	    _rsp_usable_cpus() > 1)
		su->started = pthread_create(&su->tid, NULL, setup_thread, su) == 0;
}

int _rsp_setup_finish(struct setup *su)
{
	struct rsp_trace *t = su->t;
	const struct rsp_reader_info *in = rsp_reader_info(t->reader);
	const char *ks_archive;
	size_t ks_len;

	if (su->started)
		pthread_join(su->tid, NULL);
	else if (!su->done)
		setup_early(su);
	su->started = false;
	if (su->terr[0])
		trace_warn(t, "%s: tracepoint fields cannot be decoded", su->terr);
	if (su->ret || !t->sym)
		return su->ret;
	for (size_t i = 0; i < rsp_sym_n_warnings(t->sym); i++) /* JIT files (jit.c) */
		trace_warn(t, "%s", rsp_sym_warning(t->sym, i));
	if (t->td.kallsyms && t->td.kallsyms_len) {
		/* set by the early part */
	} else if ((ks_archive = rsp_sym_archive_kallsyms(t->sym, &ks_len)) &&
		   rsp_sym_set_kallsyms(t->sym, ks_archive, ks_len) > 0) {
		t->kallsyms_from_archive = true;
	} else if (running_kernel_matches(in)) {
		size_t len;
		char *ks = read_proc_kallsyms(&len);

		if (ks && len) {
			rsp_sym_set_kallsyms(t->sym, ks, len);
			t->kallsyms_from_running_kernel = true;
		}
		free(ks);
	} else if (t->td.kallsyms_bad) {
		trace_warn(t, "no kernel symbols: the file's are damaged (they do not inflate) and "
			      "this is not the kernel it was recorded on (`rsp archive` there)");
	} else {
		trace_warn(t, "no kernel symbols: the file has no kallsyms and this is not the "
			      "kernel it was recorded on");
	}
	if (t->td.kallsyms_bad && (t->kallsyms_from_archive || t->kallsyms_from_running_kernel))
		trace_warn(t, "the kernel symbols in the file are damaged (they do not inflate): "
			      "kernel frames named from %s",
			   t->kallsyms_from_archive ? "the archive" : "this machine's kernel, the recording one");
	for (size_t i = 0; i < in->n_build_ids; i++)
		if (!in->build_ids[i].kernel)
			rsp_sym_set_build_id(t->sym, in->build_ids[i].path, in->build_ids[i].id,
					     in->build_ids[i].len);
	return 0;
}

void _rsp_setup_abandon(struct setup *su)
{
	if (su->started)
		pthread_join(su->tid, NULL);
	su->started = false;
}
