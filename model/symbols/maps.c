/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Per-process address-space history: which file, at which offset, an address of
 * a process maps at a given time.
 *
 * Each process keeps its live maps (valid from t0 until now; sorted, never
 * overlapping: a new map cuts what it overlaps) and its dead ones (valid in
 * [t0, t1)).  Lookups in time order are answered by a binary search of the live
 * maps; older times fall back to the dead ones, indexed by a segment tree of the
 * maximum end over runs sorted by start (a point query visits only the runs
 * that can hold the address).  A change at time t leaves every time before t
 * untouched: that is what lets the unwinder cache a process's Dwfl.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/symbols-private.h"

static uint64_t pid_hash(int pid)
{
	return rsp_hash_bytes(RSP_HASH_SEED, &pid, sizeof(pid));
}

struct _rsp_proc *_rsp_proc_get(struct rsp_sym *sym, int pid)
{
	uint64_t h = pid_hash(pid);

	for (struct _rsp_hnode *n = _rsp_htab_chain(&sym->procs, h); n; n = n->next) {
		struct _rsp_proc *p = (struct _rsp_proc *)n;

		if (n->hash == h && p->pid == pid)
			return p;
	}
	return NULL;
}

static struct _rsp_proc *proc_get_or_add(struct rsp_sym *sym, int pid)
{
	struct _rsp_proc *p = _rsp_proc_get(sym, pid);

	if (p)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	p->node.hash = pid_hash(pid);
	if (_rsp_htab_insert(&sym->procs, &p->node)) {
		free(p);
		return NULL;
	}
	return p;
}

static int reserve(struct _rsp_map **v, size_t *cap, size_t need)
{
	struct _rsp_map *p;
	size_t c;

	if (need <= *cap)
		return 0;
	c = *cap ? *cap : 16;
	while (c < need)
		c *= 2;
	p = realloc(*v, c * sizeof(*p));
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = c;
	return 0;
}

/* Capacity must have been reserved. */
static void dead_append(struct _rsp_proc *p, const struct _rsp_map *m, uint64_t t1)
{
	if (m->t0 >= t1) /* never valid: replaced at the time it appeared */
		return;
	p->dead[p->n_dead] = *m;
	p->dead[p->n_dead++].t1 = t1;
	p->dead_dirty = true;
	if (t1 > p->tmax)
		p->tmax = t1;
}

/* First live map that ends after @addr (live ends are sorted too). */
static size_t live_first_ending_after(const struct _rsp_proc *p, uint64_t addr)
{
	size_t lo = 0, hi = p->n_live;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->live[mid].end > addr)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* @m becomes live from m->t0; what it overlaps ends there. */
static int live_insert(struct _rsp_proc *p, const struct _rsp_map *m)
{
	size_t i = live_first_ending_after(p, m->start), j = i, n_new = 0;
	struct _rsp_map repl[3];

	while (j < p->n_live && p->live[j].start < m->end)
		j++;
	if (reserve(&p->dead, &p->cap_dead, p->n_dead + (j - i)) ||
	    reserve(&p->live, &p->cap_live, p->n_live + 3))
		return -ENOMEM;

	if (i < j && p->live[i].start < m->start) { /* what stays left of m */
		repl[n_new] = p->live[i];
		repl[n_new++].end = m->start;
	}
	repl[n_new++] = *m;
	if (i < j && p->live[j - 1].end > m->end) { /* what stays right of m */
		struct _rsp_map r = p->live[j - 1];

		r.pgoff += m->end - r.start;
		r.start = m->end;
		repl[n_new++] = r;
	}
	for (size_t k = i; k < j; k++) { /* the overlapped parts end at m->t0 */
		struct _rsp_map d = p->live[k];
		uint64_t lo = d.start > m->start ? d.start : m->start;
		uint64_t hi = d.end < m->end ? d.end : m->end;

		d.pgoff += lo - d.start;
		d.start = lo;
		d.end = hi;
		dead_append(p, &d, m->t0);
	}
	memmove(p->live + i + n_new, p->live + j, (p->n_live - j) * sizeof(*p->live));
	memcpy(p->live + i, repl, n_new * sizeof(*repl));
	p->n_live = p->n_live - (j - i) + n_new;
	if (m->t0 > p->tmax)
		p->tmax = m->t0;
	if (m->t1 != _RSP_TIME_END && m->t1 > p->tmax)
		p->tmax = m->t1;
	return 0;
}

static int retire_all(struct _rsp_proc *p, uint64_t time)
{
	if (reserve(&p->dead, &p->cap_dead, p->n_dead + p->n_live))
		return -ENOMEM;
	for (size_t i = 0; i < p->n_live; i++)
		dead_append(p, &p->live[i], time);
	p->n_live = 0;
	return 0;
}

int _rsp_proc_add_map(struct rsp_sym *sym, int pid, const struct _rsp_map *m,
		      struct _rsp_proc **proc)
{
	struct _rsp_proc *p = proc_get_or_add(sym, pid);

	*proc = p;
	if (!m->dso || !p)
		return -ENOMEM;
	return live_insert(p, m);
}

int _rsp_proc_exec(struct _rsp_proc *p, uint64_t time)
{
	return retire_all(p, time);
}

int _rsp_proc_reset(struct rsp_sym *sym, int pid, uint64_t time, struct _rsp_proc **proc)
{
	struct _rsp_proc *c = proc_get_or_add(sym, pid);

	*proc = c;
	if (!c)
		return -ENOMEM;
	return retire_all(c, time);
}

int _rsp_proc_inherit(struct _rsp_proc *c, const struct _rsp_proc *p, uint64_t time)
{
	int err;

	/* the parent's maps at @time; dead ones only when fed out of order */
	for (size_t i = 0; i < p->n_live + p->n_dead; i++) {
		struct _rsp_map m = i < p->n_live ? p->live[i] : p->dead[i - p->n_live];

		if (m.t0 > time || m.t1 <= time)
			continue;
		m.t0 = time;
		m.t1 = _RSP_TIME_END;
		if ((err = live_insert(c, &m)))
			return err;
	}
	return 0;
}

static int cmp_start(const void *a, const void *b)
{
	const struct _rsp_map *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->t0 < y->t0 ? -1 : x->t0 > y->t0;
}

static int dead_index(struct _rsp_proc *p)
{
	size_t leaves = 1;
	uint64_t *tree;

	while (leaves < p->n_dead)
		leaves *= 2;
	if (leaves != p->dead_leaves) {
		tree = realloc(p->dead_tree, 2 * leaves * sizeof(*tree));
		if (!tree)
			return -ENOMEM;
		p->dead_tree = tree;
		p->dead_leaves = leaves;
	}
	tree = p->dead_tree;
	qsort(p->dead, p->n_dead, sizeof(*p->dead), cmp_start);
	for (size_t i = 0; i < leaves; i++)
		tree[leaves + i] = i < p->n_dead ? p->dead[i].end : 0;
	for (size_t v = leaves - 1; v >= 1; v--)
		tree[v] = tree[2 * v] > tree[2 * v + 1] ? tree[2 * v] : tree[2 * v + 1];
	p->dead_dirty = false;
	return 0;
}

static const struct _rsp_map *dead_find(struct _rsp_proc *p, uint64_t addr, uint64_t time)
{
	struct {
		size_t v, lo, size;
	} stack[2 * 64 + 2];
	const struct _rsp_map *best = NULL;
	size_t lo = 0, hi = p->n_dead, top = 0;

	if (!p->n_dead || (p->dead_dirty && dead_index(p)))
		return NULL;
	while (lo < hi) { /* hi = how many dead maps start at or below addr */
		size_t mid = lo + (hi - lo) / 2;

		if (p->dead[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	hi = lo;
	stack[top++] = (typeof(stack[0])){ 1, 0, p->dead_leaves };
	while (top) {
		typeof(stack[0]) e = stack[--top];

		if (e.lo >= hi || p->dead_tree[e.v] <= addr)
			continue;
		if (e.size == 1) {
			const struct _rsp_map *m = &p->dead[e.lo];

			if (m->t0 <= time && time < m->t1 && (!best || m->t0 > best->t0))
				best = m;
			continue;
		}
		stack[top++] = (typeof(stack[0])){ 2 * e.v + 1, e.lo + e.size / 2, e.size / 2 };
		stack[top++] = (typeof(stack[0])){ 2 * e.v, e.lo, e.size / 2 };
	}
	return best;
}

const struct _rsp_map *_rsp_proc_find_map(struct _rsp_proc *p, uint64_t addr, uint64_t time)
{
	size_t i = live_first_ending_after(p, addr);

	if (i < p->n_live && p->live[i].start <= addr && p->live[i].t0 <= time)
		return &p->live[i];
	return dead_find(p, addr, time);
}

int _rsp_proc_maps_at(struct _rsp_proc *p, uint64_t time, struct _rsp_map **out, size_t *n,
		      uint64_t *from, uint64_t *until)
{
	struct _rsp_map *v;
	size_t k = 0;

	*out = NULL;
	*n = 0;
	*from = 0;
	*until = _RSP_TIME_END;
	if (time >= p->tmax && time != _RSP_TIME_END) {
		/*
		 * After its last change (loading's walk asks so, in time order): the
		 * live maps (sorted by start), from that change on.  A process that
		 * maps anew all the time (a reader's buffers: 238 k maps in 4 s) made
		 * each unwinder read every map it ever had.
		 */
		v = malloc((p->n_live + 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		memcpy(v, p->live, p->n_live * sizeof(*v));
		*from = p->tmax;
		*out = v;
		*n = p->n_live;
		return 0;
	}
	v = malloc((p->n_live + p->n_dead + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < p->n_live + p->n_dead; i++) {
		const struct _rsp_map *m = i < p->n_live ? &p->live[i] : &p->dead[i - p->n_live];

		if (m->t0 <= time) {
			if (m->t0 > *from)
				*from = m->t0;
		} else if (m->t0 < *until) {
			*until = m->t0;
		}
		if (m->t1 <= time) {
			if (m->t1 > *from)
				*from = m->t1;
		} else if (m->t1 < *until) {
			*until = m->t1;
		}
		if (m->t0 <= time && time < m->t1)
			v[k++] = *m;
	}
	if (p->n_dead)
		qsort(v, k, sizeof(*v), cmp_start);
	*out = v;
	*n = k;
	return 0;
}

void _rsp_procs_free(struct rsp_sym *sym)
{
	for (size_t i = 0; i < sym->procs.cap; i++) {
		struct _rsp_hnode *n = sym->procs.buckets[i], *next;

		for (; n; n = next) {
			struct _rsp_proc *p = (struct _rsp_proc *)n;

			next = n->next;
			free(p->live);
			free(p->dead);
			free(p->dead_tree);
			free(p);
		}
	}
	_rsp_htab_release(&sym->procs);
}
