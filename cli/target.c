/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Choosing the processes a verb looks at (see target.h). */
#include "target.h"

#include "args.h"
#include "cli.h"
#include "input.h"

#include "rsp-str.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rsp_cli_target_add(struct rsp_cli_target *tg, const char *verb, const char *spec)
{
	if (tg->n_specs >= sizeof(tg->specs) / sizeof(tg->specs[0]))
		return rsp_cli_usage_error(verb, "at most %zu --target options",
					   sizeof(tg->specs) / sizeof(tg->specs[0]));
	tg->specs[tg->n_specs++] = spec;
	return 0;
}

int rsp_cli_add_pid(int **pids, size_t *n, int pid)
{
	int *g;

	for (size_t i = 0; i < *n; i++)
		if ((*pids)[i] == pid)
			return 0;
	g = realloc(*pids, (*n + 1) * sizeof(int));
	if (!g)
		return -ENOMEM;
	*pids = g;
	(*pids)[(*n)++] = pid;
	return 0;
}

static int add_pid(struct rsp_cli_target *tg, int pid)
{
	return rsp_cli_add_pid(&tg->pids, &tg->n_pids, pid);
}

static const char *comm_of(struct rsp_trace *t, int pid)
{
	size_t th = rsp_trace_find_thread(t, pid, UINT64_MAX);
	struct rsp_thread_info ti;

	if (th == RSP_NO_INDEX)
		return "?";
	rsp_trace_thread(t, th, &ti);
	return ti.comm;
}

/* perf record's options (6.1's builtin-record.c) that take a value */
static bool perf_value_option(const char *arg)
{
	static const char *const longs[] = {
		"count", "delay", "freq", "cgroup", "event", "branch-filter", "clockid",
		"mmap-pages", "affinity", "call-graph", "control", "filter", "max-size",
		"mmap-flush", "pfm-events", "synth", "switch-output-event", "realtime",
		"switch-max-files", "cpu", "output", "pid", "tid", "uid", "clang-opt",
		"clang-path", "vmlinux", "num-thread-synthesize", "proc-map-timeout",
	};

	if (arg[1] != '-') {
		/* short options, bundled: the first that takes a value takes the rest,
		 * or the next argument when nothing follows it */
		for (const char *c = arg + 1; *c; c++)
			if (strchr("cDFGejkmrCoptu", *c))
				return c[1] == '\0';
		return false;
	}
	if (strchr(arg, '='))
		return false;
	for (size_t i = 0; i < sizeof(longs) / sizeof(longs[0]); i++)
		if (!strcmp(arg + 2, longs[i]))
			return true;
	return false;
}

size_t rsp_cli_recorded_command(struct rsp_trace *t, int **pids, size_t *n, char *cmd,
				size_t cmdlen)
{
	size_t nc = rsp_trace_n_cmdline(t), i = 2, added = 0, len = 0;
	const char *base;
	char comm[16];

	cmd[0] = '\0';
	if (nc < 3 || strcmp(rsp_trace_cmdline(t, 1), "record"))
		return 0;
	for (; i < nc; i++) {
		const char *a = rsp_trace_cmdline(t, i);

		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (a[0] != '-' || !a[1])
			break;
		if (perf_value_option(a))
			i++;
	}
	if (i >= nc)
		return 0; /* no command: perf record -a, -p */
	for (size_t k = i; k < nc && len + 1 < cmdlen; k++)
		len += (size_t)snprintf(cmd + len, cmdlen - len, "%s%s", k > i ? " " : "",
					rsp_trace_cmdline(t, k));
	base = strrchr(rsp_trace_cmdline(t, i), '/');
	base = base ? base + 1 : rsp_trace_cmdline(t, i);
	snprintf(comm, sizeof(comm), "%s", base); /* the kernel's 15 bytes */
	/* perf's child: named perf until it execs; CMD's name, unless CMD
	 * exec'd another program in turn (a shell's last command) */
	for (int pass = 0; pass < 2 && !added; pass++)
		for (size_t k = 0; k < rsp_trace_n_threads(t); k++) {
			struct rsp_thread_info ti;

			rsp_trace_thread(t, k, &ti);
			if (ti.tid != ti.pid || !strcmp(ti.comm, ti.first_comm) ||
			    (strcmp(ti.first_comm, "perf") && strcmp(ti.first_comm, "perf-exec")) ||
			    (pass == 0 && strcmp(ti.comm, comm)))
				continue;
			if (rsp_cli_add_pid(pids, n, ti.pid))
				return added;
			added++;
		}
	return added;
}

void rsp_cli_note_recorded_command(const char *verb, const char *path, const int *pids,
				   size_t n, const char *cmd)
{
	fprintf(stderr,
		"rsp %s: %s marks no target: taking the command perf recorded, %s %d%s (%s); "
		"--target chooses another\n",
		verb, path, n > 1 ? "processes" : "process", pids[0], n > 1 ? ", ..." : "", cmd);
}

int rsp_cli_target_resolve(struct rsp_cli_target *tg, struct rsp_trace *t, const char *verb,
			   const char *path, bool whole_system_ok)
{
	size_t nt = rsp_trace_n_threads(t), n = 0;

	if (tg->all) {
		snprintf(tg->desc, sizeof(tg->desc), "the whole system");
		return 0;
	}
	if (tg->tid > 0) {
		for (size_t i = 0; i < nt; i++) {
			struct rsp_thread_info ti;

			rsp_trace_thread(t, i, &ti);
			if (ti.tid == tg->tid) {
				snprintf(tg->desc, sizeof(tg->desc), "thread %d (%s)", tg->tid,
					 ti.comm);
				return add_pid(tg, ti.pid) ? 1 : 0;
			}
		}
		rsp_cli_error(verb, "no thread %d in %s", tg->tid, path);
		return 1;
	}
	for (size_t k = 0; k < tg->n_specs; k++) {
		const char *spec = tg->specs[k];
		bool matched = false;

		if (rsp_is_decimal(spec)) {
			long pid = strtol(spec, NULL, 10);
			bool found = false;

			for (size_t i = 0; i < nt && !found; i++) {
				struct rsp_thread_info ti;

				rsp_trace_thread(t, i, &ti);
				found = ti.pid == pid;
			}
			if (!found || pid > INT32_MAX) {
				rsp_cli_error(verb, "no process %s in %s (rsp info lists them)", spec,
					      path);
				return 1;
			}
			if (add_pid(tg, (int)pid))
				return 1;
			continue;
		}
		for (size_t i = 0; i < nt; i++) {
			struct rsp_thread_info ti;

			rsp_trace_thread(t, i, &ti);
			if (!ti.tid || (strcmp(ti.comm, spec) && strcmp(ti.first_comm, spec)))
				continue;
			matched = true;
			if (add_pid(tg, ti.pid))
				return 1;
		}
		if (!matched) {
			rsp_cli_error(verb, "no process named '%s' in %s (rsp info lists them)", spec,
				      path);
			return 1;
		}
	}
	if (!tg->n_specs) {
		for (size_t i = 0; i < rsp_trace_n_targets(t); i++)
			if (add_pid(tg, rsp_trace_target(t, i)))
				return 1;
	}
	if (!tg->n_specs && !tg->n_pids && !whole_system_ok) {
		char cmd[256];

		if (rsp_cli_recorded_command(t, &tg->pids, &tg->n_pids, cmd, sizeof(cmd)))
			rsp_cli_note_recorded_command(verb, path, tg->pids, tg->n_pids, cmd);
	}
	if (!tg->n_pids) {
		if (whole_system_ok) {
			snprintf(tg->desc, sizeof(tg->desc), "the whole system");
			return 0;
		}
		rsp_cli_error(verb, "%s %s: give --target PID, --target COMM or --all", path,
			      rsp_cli_no_target_why(t));
		return 1;
	}
	n = (size_t)snprintf(tg->desc, sizeof(tg->desc), "%s",
			     tg->n_pids > 1 ? "processes" : "process");
	for (size_t i = 0; i < tg->n_pids && n + 40 < sizeof(tg->desc); i++)
		n += (size_t)snprintf(tg->desc + n, sizeof(tg->desc) - n, "%s %d (%.24s)",
				      i ? "," : "", tg->pids[i], comm_of(t, tg->pids[i]));
	return 0;
}

void rsp_cli_target_filter(const struct rsp_cli_target *tg, bool descendants,
			   struct rsp_thread_filter *out)
{
	memset(out, 0, sizeof(*out));
	if (tg->all)
		return;
	if (tg->tid > 0) {
		out->tid = tg->tid;
		return;
	}
	out->pids = tg->pids;
	out->n_pids = tg->n_pids;
	out->descendants = descendants;
}

void rsp_cli_target_free(struct rsp_cli_target *tg)
{
	free(tg->pids);
	tg->pids = NULL;
	tg->n_pids = 0;
}

