/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rsp report --by command (report-by.h).  The pseudostacks' leaves partition
 * the target's total time (parallelism counted); each leaf is given to the
 * thread it hangs under (a run's own thread, a wait's sleeper), and that
 * thread to its process's command line (rsp_thread_info.cmdline; "[comm]" where
 * the file has none, as ps shows a process without one).
 */
#include "report-by.h"

#include "input.h"
#include "json.h"

#include "rsp-text.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CMD_COLS 200 /* a longer command line is cut in the text table */

struct row {
	char *key; /* the command line, or "[comm]" */
	bool known; /* from the file, not the name */
	uint64_t ns, cpu_ns;
	size_t n_procs;
};

struct table {
	struct row *v;
	size_t n, cap;
	uint64_t total_ns;
};

static struct row *find_row(struct table *tb, const char *key, bool known)
{
	struct row *r;

	for (size_t i = 0; i < tb->n; i++)
		if (tb->v[i].known == known && !strcmp(tb->v[i].key, key))
			return &tb->v[i];
	if (tb->n == tb->cap) {
		size_t cap = tb->cap ? 2 * tb->cap : 32;
		struct row *v = realloc(tb->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		tb->v = v;
		tb->cap = cap;
	}
	r = &tb->v[tb->n];
	memset(r, 0, sizeof(*r));
	r->key = strdup(key);
	if (!r->key)
		return NULL;
	r->known = known;
	tb->n++;
	return r;
}

static int by_ns(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return strcmp(x->key, y->key);
}

/* The table: every leaf's time under its thread's command line. */
static int build(struct rsp_trace *t, const struct rsp_analysis *an, struct table *tb)
{
	size_t n = rsp_analysis_n_nodes(an), nt = rsp_trace_n_threads(t);
	size_t *owner = malloc((n ? n : 1) * sizeof(*owner));
	uint8_t *parent_of = calloc(n ? n : 1, 1);
	/* per thread: the processes counted, by the row's index + 1 */
	size_t *counted = calloc(nt ? nt : 1, sizeof(*counted));
	int ret = 0;

	if (!owner || !parent_of || !counted) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		struct rsp_node_info ni;

		rsp_analysis_node(an, i, &ni);
		if (ni.parent != RSP_NO_INDEX)
			parent_of[ni.parent] = 1;
		owner[i] = ni.thread != RSP_NO_INDEX	? ni.thread
			   : ni.parent != RSP_NO_INDEX ? owner[ni.parent]
						       : RSP_NO_INDEX;
	}
	for (size_t i = 0; i < n; i++) {
		struct rsp_node_info ni;
		struct rsp_thread_info ti;
		struct row *r;
		char name[64];
		uint64_t ns;

		if (parent_of[i])
			continue; /* not a leaf */
		rsp_analysis_node(an, i, &ni);
		ns = ni.end_ns > ni.start_ns ? ni.end_ns - ni.start_ns : 0;
		tb->total_ns += ns;
		if (owner[i] == RSP_NO_INDEX) {
			r = find_row(tb, "(no thread)", false);
		} else {
			rsp_trace_thread(t, owner[i], &ti);
			snprintf(name, sizeof(name), "[%s]", ti.comm ? ti.comm : "?");
			r = ti.cmdline ? find_row(tb, ti.cmdline, true) : find_row(tb, name, false);
		}
		if (!r) {
			ret = -ENOMEM;
			goto out;
		}
		r->ns += ns;
		if (ni.kind == RSP_NODE_RUN)
			r->cpu_ns += ns;
		if (owner[i] != RSP_NO_INDEX) {
			/* a process counted once per row: its leader's slot */
			size_t l = owner[i], row = (size_t)(r - tb->v) + 1;

			rsp_trace_thread(t, owner[i], &ti);
			if (ti.tid != ti.pid) {
				size_t k = rsp_trace_find_thread(t, ti.pid, ti.birth_ns);

				if (k != RSP_NO_INDEX)
					l = k;
			}
			if (counted[l] != row) {
				counted[l] = row;
				r->n_procs++;
			}
		}
	}
	qsort(tb->v, tb->n, sizeof(*tb->v), by_ns);
out:
	free(owner);
	free(parent_of);
	free(counted);
	return ret;
}

static void print_text(const struct rsp_trace *t, const struct table *tb, const char *path,
		       const char *target_desc, size_t top)
{
	printf("rsp report: %s, %s\n", target_desc, path);
	printf("  the target's time by the command line of the process it was spent in\n");
	printf("  (its pseudostacks' leaves, parallelism counted: %.3f ms)\n\n",
	       rsp_ms(tb->total_ns));
	printf("  %12s %7s %12s %9s  %s\n", "ms", "%", "CPU ms", "processes", "command");
	for (size_t i = 0; i < tb->n && i < top; i++) {
		const struct row *r = &tb->v[i];
		size_t len = strlen(r->key);

		printf("  %12.3f %6.1f%% %12.3f %9zu  %.*s%s\n", rsp_ms(r->ns),
		       tb->total_ns ? 100.0 * (double)r->ns / (double)tb->total_ns : 0.0,
		       rsp_ms(r->cpu_ns), r->n_procs, len > CMD_COLS ? CMD_COLS - 3 : (int)len,
		       r->key, len > CMD_COLS ? "..." : "");
	}
	if (tb->n > top)
		printf("  ... %zu more command lines (--top 0 lists them all)\n", tb->n - top);
	for (size_t i = 0; i < rsp_trace_n_warnings(t); i++)
		printf("  warning: %s\n", rsp_trace_warning(t, i));
}

static void print_csv(const struct table *tb, size_t top)
{
	printf("command,known,ns,ms,percent,cpu_ns,processes\n");
	for (size_t i = 0; i < tb->n && i < top; i++) {
		const struct row *r = &tb->v[i];

		rsp_csv_str(stdout, r->key);
		printf(",%d,%" PRIu64 ",%.6f,%.3f,%" PRIu64 ",%zu\n", r->known, r->ns, rsp_ms(r->ns),
		       tb->total_ns ? 100.0 * (double)r->ns / (double)tb->total_ns : 0.0,
		       r->cpu_ns, r->n_procs);
	}
}

static void print_json(const struct rsp_trace *t, const struct table *tb, const char *path,
		       const char *target_desc, size_t top)
{
	struct json j;

	json_init(&j, stdout, true);
	json_begin_object(&j, NULL);
	json_string(&j, "file", path);
	json_string(&j, "target", target_desc);
	json_string(&j, "by", "command");
	json_u64(&j, "total_ns", tb->total_ns);
	json_begin_array(&j, "rows");
	for (size_t i = 0; i < tb->n && i < top; i++) {
		const struct row *r = &tb->v[i];

		json_begin_object(&j, NULL);
		if (r->known)
			json_string(&j, "cmdline", r->key);
		else
			json_null(&j, "cmdline");
		json_string(&j, "name", r->key);
		json_u64(&j, "ns", r->ns);
		json_u64(&j, "cpu_ns", r->cpu_ns);
		json_u64(&j, "processes", r->n_procs);
		json_end_object(&j);
	}
	json_end_array(&j);
	rsp_cli_json_warnings(&j, t);
	json_end_object(&j);
	json_finish(&j);
}

int report_by_command(struct rsp_trace *t, const struct rsp_analysis *an, const char *path,
		      const char *target_desc, size_t top, enum rsp_cli_format fmt)
{
	struct table tb = { 0 };
	int ret = build(t, an, &tb);

	if (!ret) {
		if (fmt == RSP_FORMAT_JSON)
			print_json(t, &tb, path, target_desc, top);
		else if (fmt == RSP_FORMAT_CSV)
			print_csv(&tb, top);
		else
			print_text(t, &tb, path, target_desc, top);
	}
	for (size_t i = 0; i < tb.n; i++)
		free(tb.v[i].key);
	free(tb.v);
	return ret;
}
