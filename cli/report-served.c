/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The requests a target serves (report-served.h): found, and the plain report's paragraph. */
#include "report-served.h"

#include "rsp-text.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int by_requests(const void *x, const void *y)
{
	const struct served_proc *a = x, *b = y;

	if (a->requests != b->requests)
		return a->requests > b->requests ? -1 : 1;
	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

/* Per process, its requests (most first). */
static int count_procs(struct rsp_trace *t, struct served *s)
{
	size_t n = rsp_requests_n(s->rq);

	s->procs = calloc(n ? n : 1, sizeof(*s->procs));
	if (!s->procs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct rsp_request_info q;
		struct rsp_thread_info ti;
		size_t k;

		rsp_requests_get(s->rq, i, &q);
		rsp_trace_thread(t, q.thread, &ti);
		for (k = 0; k < s->n_procs && s->procs[k].pid != ti.pid; k++)
			;
		if (k == s->n_procs) {
			size_t main_th = rsp_trace_find_thread(t, ti.pid, q.start_ns);
			struct rsp_thread_info mi = ti;

			if (main_th != RSP_NO_INDEX)
				rsp_trace_thread(t, main_th, &mi);
			s->procs[s->n_procs++] = (struct served_proc){ti.pid, mi.comm, 0};
		}
		s->procs[k].requests++;
	}
	qsort(s->procs, s->n_procs, sizeof(*s->procs), by_requests);
	return 0;
}

int served_find(struct rsp_trace *t, const int *pids, size_t n_pids, int tid, struct served *out)
{
	struct rsp_thread_filter f = {
	    .pids = pids, .n_pids = n_pids, .tid = tid, .descendants = true};
	uint8_t *known;

	memset(out, 0, sizeof(*out));
	out->selected = rsp_thread_filter_apply(t, &f);
	if (!out->selected || rsp_requests_find(t, out->selected, &out->rq))
		return -ENOMEM;
	for (size_t i = 0; i < rsp_requests_n_conns(out->rq); i++) {
		struct rsp_conn_info ci;

		rsp_requests_conn(out->rq, i, &ci);
		if (ci.role == RSP_CONN_CLIENT) {
			out->n_client++;
			continue;
		}
		if (ci.role == RSP_CONN_INTERNAL) {
			out->n_internal++;
			continue;
		}
		out->n_served += ci.n_requests > 0;
		out->cut_start += ci.cut_start;
		out->cut_end += ci.cut_end;
	}
	rsp_requests_stats(out->rq, &out->stats);
	rsp_requests_time(out->rq, &out->time);
	known = rsp_requests_known_servers(t);
	if (!known)
		return -ENOMEM;
	for (size_t i = 0; i < rsp_requests_n(out->rq) && !out->known; i++) {
		struct rsp_request_info q;

		rsp_requests_get(out->rq, i, &q);
		out->known = known[q.thread];
	}
	free(known);
	return count_procs(t, out);
}

void served_free(struct served *s)
{
	free(s->selected);
	free(s->procs);
	rsp_requests_free(s->rq);
	memset(s, 0, sizeof(*s));
}

void served_text_procs(const struct served *s, const char *pre)
{
	if (s->n_procs < 2)
		return;
	printf("%sserved by %zu processes:", pre, s->n_procs);
	for (size_t i = 0; i < s->n_procs && i < 8; i++)
		printf("%s %d (%s) %zu", i ? "," : "", s->procs[i].pid,
		       s->procs[i].comm ? s->procs[i].comm : "?", s->procs[i].requests);
	if (s->n_procs > 8)
		printf(", and %zu more", s->n_procs - 8);
	printf("\n");
}

void served_text(const struct served *s)
{
	const struct rsp_requests_stats *st = &s->stats;

	if (!st->count || !s->known)
		return;
	printf("  A server: %zu request%s on %zu connection%s, latency p50 %.3f ms, p90 %.3f, "
	       "p99 %.3f, max %.3f;\n",
	       st->count, st->count == 1 ? "" : "s", s->n_served, s->n_served == 1 ? "" : "s",
	       rsp_ms(st->p50_ns), rsp_ms(st->p90_ns), rsp_ms(st->p99_ns), rsp_ms(st->max_ns));
	printf("  in requests %.1f%% of its threads' time, idle the rest.  Each request "
	       "explained: rsp report\n  --requests (the slowest one by one), or the viewer's "
	       "list of requests.\n",
	       rsp_pct(s->time.busy_ns, s->time.span_ns));
	served_text_procs(s, "  ");
}

void served_csv(const struct served *s)
{
	const struct rsp_requests_stats *st = &s->stats;

	if (!st->count || !s->known)
		return;
	printf("requests,count,,%zu,,,\n", st->count);
	printf("requests,connections,,%zu,,,\n", s->n_served);
	printf("requests,processes,,%zu,,,\n", s->n_procs);
	printf("requests,p50,,%" PRIu64 ",%.6f,,\n", st->p50_ns, rsp_ms(st->p50_ns));
	printf("requests,p90,,%" PRIu64 ",%.6f,,\n", st->p90_ns, rsp_ms(st->p90_ns));
	printf("requests,p99,,%" PRIu64 ",%.6f,,\n", st->p99_ns, rsp_ms(st->p99_ns));
	printf("requests,max,,%" PRIu64 ",%.6f,,\n", st->max_ns, rsp_ms(st->max_ns));
	printf("requests,busy,,%" PRIu64 ",%.6f,%.3f,\n", s->time.busy_ns, rsp_ms(s->time.busy_ns),
	       rsp_pct(s->time.busy_ns, s->time.span_ns));
}

void served_md(const struct served *s)
{
	const struct rsp_requests_stats *st = &s->stats;

	if (!st->count || !s->known)
		return;
	printf("A server: %zu requests on %zu connections (%zu process%s), latency p50 %.3f ms, "
	       "p90 %.3f, p99 %.3f, max %.3f; in requests %.1f%% of its threads' time.  Each "
	       "request explained: `rsp report --requests`, or the viewer's list of requests.\n\n",
	       st->count, s->n_served, s->n_procs, s->n_procs == 1 ? "" : "es", rsp_ms(st->p50_ns),
	       rsp_ms(st->p90_ns), rsp_ms(st->p99_ns), rsp_ms(st->max_ns),
	       rsp_pct(s->time.busy_ns, s->time.span_ns));
}

void served_json_procs(const struct served *s, struct json *j)
{
	json_begin_array(j, "processes");
	for (size_t i = 0; i < s->n_procs; i++) {
		json_begin_object(j, NULL);
		json_i64(j, "pid", s->procs[i].pid);
		json_string(j, "comm", s->procs[i].comm ? s->procs[i].comm : "");
		json_u64(j, "requests", s->procs[i].requests);
		json_end_object(j);
	}
	json_end_array(j);
}

void served_json(const struct served *s, struct json *j)
{
	const struct rsp_requests_stats *st = &s->stats;

	if (!st->count || !s->known)
		return;
	json_begin_object(j, "requests");
	json_u64(j, "count", st->count);
	json_u64(j, "connections", s->n_served);
	json_u64(j, "p50_ns", st->p50_ns);
	json_u64(j, "p90_ns", st->p90_ns);
	json_u64(j, "p99_ns", st->p99_ns);
	json_u64(j, "max_ns", st->max_ns);
	json_u64(j, "span_ns", s->time.span_ns);
	json_u64(j, "requests_ns", s->time.busy_ns);
	json_double(j, "percent_in_requests", rsp_pct(s->time.busy_ns, s->time.span_ns));
	served_json_procs(s, j);
	json_end_object(j);
}
