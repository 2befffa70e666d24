/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Every run of the trace, per CPU, by start: who held a CPU when (the
 * analysis' runnable waits, cpus.c).  Built from the loaded slices, which
 * nothing changes after the load; on a large trace, on a thread of its own
 * started right after the load, so that it is ready, or nearly, when the
 * first runnable wait asks (a report's other work before its analysis, the
 * files its stacks need, runs meanwhile on the other CPU).
 */
#include "timeline/trace-private.h"
#include "base/cpus.h"
#include "base/sort.h"

#include <stdlib.h>

/* From this many slices, the index is made on a thread of its own. */
#define CPU_RUNS_THREAD_MIN 65536u

static int by_start(const void *x, const void *y)
{
	const struct cpu_run *a = x, *b = y;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->end < b->end ? -1 : a->end > b->end;
}

static bool run_first(const void *x, const void *y)
{
	const struct cpu_run *a = x, *b = y;

	return a->start < b->start || (a->start == b->start && a->end < b->end);
}

static void cpu_runs_clear(struct cpu_runs *c)
{
	for (size_t i = 0; c->v && i < c->n; i++)
		vec_free(&c->v[i]);
	free(c->v);
	c->v = NULL;
	c->n = 0;
}

static bool cpu_runs_build(const struct rsp_trace *t, struct cpu_runs *c)
{
	size_t ncpu = t->nr_cpus ? t->nr_cpus : 1;

	c->v = calloc(ncpu, sizeof(*c->v));
	if (!c->v)
		return false;
	c->n = ncpu;
	for (uint32_t ti = 0; ti < t->threads.n; ti++) {
		const struct thread *th = &t->threads.v[ti];

		if (!th->tid)
			continue;
		for (size_t k = 0; k < th->slices.n; k++) {
			const struct slice *s = &th->slices.v[k];
			struct cpu_run r = { s->start, s->end, ti, (uint32_t)k };

			if (s->kind != SLICE_RUN || s->end <= s->start || s->cpu >= ncpu)
				continue;
			if (!vec_push(&c->v[s->cpu], r)) {
				cpu_runs_clear(c);
				return false;
			}
		}
	}
	/* each thread's runs come in order: merged (qsort only without memory for it) */
	for (size_t i = 0; i < ncpu; i++)
		if (c->v[i].n && _rsp_merge_sort_runs(c->v[i].v, c->v[i].n, sizeof(struct cpu_run),
						      run_first))
			qsort(c->v[i].v, c->v[i].n, sizeof(struct cpu_run), by_start);
	return true;
}

static void *cpu_runs_thread(void *arg)
{
	struct rsp_trace *t = arg;

	t->cpu_runs.nomem = !cpu_runs_build(t, &t->cpu_runs);
	return NULL;
}

void trace_cpu_runs_start(struct rsp_trace *t)
{
	size_t n = 0;

	if (pthread_mutex_init(&t->cpu_runs.lock, NULL))
		return;
	t->cpu_runs.lock_made = true;
	for (size_t i = 0; i < t->threads.n && n < CPU_RUNS_THREAD_MIN; i++)
		n += t->threads.v[i].slices.n;
	if (n < CPU_RUNS_THREAD_MIN || _rsp_usable_cpus() < 2)
		return;
	t->cpu_runs.building =
		pthread_create(&t->cpu_runs.thread, NULL, cpu_runs_thread, t) == 0;
}

/* the helper joined (the caller holds the lock, if there is one) */
static void cpu_runs_join(struct rsp_trace *t)
{
	if (!t->cpu_runs.building)
		return;
	pthread_join(t->cpu_runs.thread, NULL);
	t->cpu_runs.building = false;
	t->cpu_runs.made = true;
}

const struct cpu_runs *trace_cpu_runs(struct rsp_trace *t)
{
	struct cpu_runs *c = &t->cpu_runs;

	if (c->lock_made)
		pthread_mutex_lock(&c->lock);
	cpu_runs_join(t);
	if (!c->made) {
		c->nomem = !cpu_runs_build(t, c);
		c->made = true;
	}
	if (c->lock_made)
		pthread_mutex_unlock(&c->lock);
	return c->nomem ? NULL : c;
}

void trace_cpu_runs_free(struct rsp_trace *t)
{
	cpu_runs_join(t);
	cpu_runs_clear(&t->cpu_runs);
	if (t->cpu_runs.lock_made)
		pthread_mutex_destroy(&t->cpu_runs.lock);
	t->cpu_runs.lock_made = false;
}
