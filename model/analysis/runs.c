/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a run was doing.  A run with samples: its time is divided among them
 * (measured, the paper's rule).  A run without: its *site* is the code
 * between the call it resumed from (the switch-out stack of the sleep before
 * it: the run begins by returning from that call) and the call it stopped in
 * (the switch-out stack of the sleep after it): their deepest common frame,
 * and the two calls.  Its time is then divided among the functions that the
 * samples of the process's runs at the same site hit (estimated), or, where
 * the site has no sample at all, given to the site itself (inferred).
 * docs/ANALYSIS.md, "Runs without samples".
 *
 * The estimate.  Over all runs of a process at a site, the samples per
 * function estimate the site's time per function without bias: the sampler
 * ticks in time, whatever the run lengths.  The sampled runs' time is
 * already divided among their own samples (measured); what the site's
 * samples say a function had, minus what it was measured to have, is what
 * the unsampled runs owe it.  So the unsampled time of a site goes to each
 * function in proportion to max(0, T * c_f / C - M_f), T the time of every
 * run at the site, C its samples, c_f those in the function and M_f its
 * measured time; where every term is 0, in proportion to c_f.
 *
 * What a sample measures.  Each sample of a run stands for one period of the
 * samplers that sample its process (their rates add); the rest of the run goes
 * to its site's estimate as above (split_of()).  Dividing a run equally among
 * its samples (the paper's rule) is biased under a periodic sampler: a run of
 * one or two periods holds one sample when the phase puts it in the middle,
 * so the first and last functions of such runs read short (simulated, runs of
 * 1.65 periods: -18% each, the middle one +18%).  Where the samples are more
 * than the run holds, its time is still divided equally among them.
 */
#include "analysis/analysis-private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SITE_FRAMES 64
#define KEY_SEP "\x1f" /* between the parts of a site's key: no function name holds it */

/* ---- a site from two stacks ---------------------------------------------------------- */

struct uframe {
	uint64_t addr;
	const char *func; /* never NULL */
};

/* a frame's name made up as "file+0xADDR": kept by the caller while it reads the frames */
#define SITE_NAME_LEN 160

/*
 * The user frames of @stack root first; without any, the kernel's (not the
 * scheduler's).  Names made up for frames without a symbol are written to
 * @names (MAX_SITE_FRAMES of SITE_NAME_LEN): they are only read while the
 * site is made, not kept in the trace's strings.
 */
static size_t site_frames(struct rsp_analysis *an, uint32_t stack, int pid, uint64_t time,
			  struct uframe *out, char (*names)[SITE_NAME_LEN])
{
	struct uframe leaf_first[MAX_SITE_FRAMES];
	size_t n = stack ? rsp_stack_n_frames(an->t, stack) : 0, nu = 0, nk = 0;
	struct uframe kern[MAX_SITE_FRAMES];

	for (size_t i = 0; i < n; i++) {
		struct rsp_frame_info f;

		rsp_stack_frame(an->t, stack, i, pid, time, &f);
		if (f.kernel) {
			if (nk < MAX_SITE_FRAMES && f.func && !_rsp_is_sched_func(f.func))
				kern[nk++] = (struct uframe){ f.addr, f.func };
			continue;
		}
		if (nu < MAX_SITE_FRAMES) {
			const char *name = rsp_frame_name(&f, names[nu], SITE_NAME_LEN);

			if (name == names[nu] && !strcmp(name, "[unknown]"))
				name = "[unknown]";
			leaf_first[nu++] = (struct uframe){ f.addr, name };
		}
	}
	if (!nu) {
		memcpy(leaf_first, kern, nk * sizeof(*kern));
		nu = nk;
	}
	for (size_t i = 0; i < nu; i++)
		out[i] = leaf_first[nu - 1 - i];
	return nu;
}

static size_t put(char *buf, size_t len, size_t at, const char *s)
{
	int r = snprintf(buf + at, at < len ? len - at : 0, "%s", s);

	return at + (r > 0 ? (size_t)r : 0);
}

/*
 * The site of the code between @a (resumed from) and @b (stopped in), root
 * first: its common frames @chain (the last one is the function the code ran
 * in), and the calls it came @from and went @to (either may be NULL).
 */
struct site_shape {
	const struct uframe *chain;
	size_t n_chain;
	const char *from, *to;
};

static struct site_shape shape(const struct uframe *a, size_t na, const struct uframe *b,
			       size_t nb)
{
	struct site_shape s = { a, 0, NULL, NULL };
	size_t i = 0;

	if (!na && !nb)
		return s;
	if (!na || !nb) {
		/* one stack: the function it was in, and the call */
		const struct uframe *x = na ? a : b;
		size_t nx = na ? na : nb;

		s.chain = x;
		s.n_chain = nx - 1;
		if (na)
			s.from = x[nx - 1].func;
		else
			s.to = x[nx - 1].func;
		return s;
	}
	while (i < na && i < nb && a[i].addr == b[i].addr)
		i++;
	if (i == na && i == nb) {
		/* the same call both times: round a loop that makes it */
		s.n_chain = na - 1;
		s.from = s.to = a[na - 1].func;
	} else if (i < na && i < nb && !strcmp(a[i].func, b[i].func)) {
		/* one function, two of its calls */
		s.n_chain = i + 1;
		s.from = i + 1 < na ? a[i + 1].func : NULL;
		s.to = i + 1 < nb ? b[i + 1].func : NULL;
	} else if (i) {
		s.n_chain = i;
		s.from = i < na ? a[i].func : NULL;
		s.to = i < nb ? b[i].func : NULL;
	} else {
		/* no frame in common (stacks that do not reach a common root): the calls */
		s.from = a[na - 1].func;
		s.to = b[nb - 1].func;
	}
	return s;
}

/* The pool key "chain \x1f from \x1f to" and the coarse key "chain". */
static void site_keys(const struct site_shape *s, char *key, size_t klen, char *coarse,
		      size_t clen)
{
	size_t n = 0;

	key[0] = '\0';
	for (size_t i = 0; i < s->n_chain; i++) {
		n = put(key, klen, n, i ? ";" : "");
		n = put(key, klen, n, s->chain[i].func);
	}
	snprintf(coarse, clen, "%s", key);
	n = put(key, klen, n, KEY_SEP);
	n = put(key, klen, n, s->from ? s->from : "");
	n = put(key, klen, n, KEY_SEP);
	put(key, klen, n, s->to ? s->to : "");
}

/* "caller > common (from X to Y)", or without the frame "between X and Y"; "" if nothing. */
static bool site_words(const struct site_shape *s, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	if (s->n_chain >= 2) {
		n = put(buf, len, n, s->chain[s->n_chain - 2].func);
		n = put(buf, len, n, " > ");
	}
	if (s->n_chain >= 1)
		n = put(buf, len, n, s->chain[s->n_chain - 1].func);
	if (s->n_chain && (s->from || s->to))
		n = put(buf, len, n, " (");
	if (s->from && s->to && !strcmp(s->from, s->to)) {
		n = put(buf, len, n, "around ");
		n = put(buf, len, n, s->from);
	} else if (s->from && s->to) {
		n = put(buf, len, n, s->n_chain ? "from " : "between ");
		n = put(buf, len, n, s->from);
		n = put(buf, len, n, s->n_chain ? " to " : " and ");
		n = put(buf, len, n, s->to);
	} else if (s->from) {
		n = put(buf, len, n, "after ");
		n = put(buf, len, n, s->from);
	} else if (s->to) {
		n = put(buf, len, n, "before ");
		n = put(buf, len, n, s->to);
	}
	if (s->n_chain && (s->from || s->to))
		put(buf, len, n, ")");
	return buf[0] != '\0';
}

/* ---- sites and pools ---------------------------------------------------------------------- */

static uint32_t pool_of(struct rsp_analysis *an, int pid, uint32_t key)
{
	uint64_t k = (uint64_t)(uint32_t)pid << 32 | key;
	struct site_pool p = { .key = key };
	uint32_t i;

	if (_rsp_u64map_get(&an->pool_index, k, &i))
		return i;
	if (!vec_push(&an->pools, p)) {
		an->nomem = true;
		return RSP_NONE;
	}
	i = (uint32_t)(an->pools.n - 1);
	if (_rsp_u64map_put(&an->pool_index, k, i))
		an->nomem = true;
	return i;
}

static void pool_add(struct rsp_analysis *an, uint32_t pool, uint32_t label, uint64_t samples,
		     uint64_t measured, const struct tsample *sm)
{
	uint64_t k = (uint64_t)pool << 32 | label;
	struct pool_entry e = { pool, label, 0, 0, sm->stack, sm->time };
	uint32_t i;

	if (!_rsp_u64map_get(&an->entry_index, k, &i)) {
		if (!vec_push(&an->entries, e)) {
			an->nomem = true;
			return;
		}
		i = (uint32_t)(an->entries.n - 1);
		if (_rsp_u64map_put(&an->entry_index, k, i))
			an->nomem = true;
	}
	an->entries.v[i].samples += samples;
	an->entries.v[i].measured_ns += measured;
	an->pools.v[pool].samples += samples;
}

/* The stacks a run of @th (slice @k) is bounded by: the sleeps before and after it. */
static void bounds(const struct rsp_analysis *an, const struct thread *th, uint32_t k,
		   uint32_t *a, uint32_t *b)
{
	*a = k > 0 && th->slices.v[k - 1].kind == SLICE_SLEEP ? th->slices.v[k - 1].stack : 0;
	*b = k + 1 < th->slices.n && th->slices.v[k + 1].kind == SLICE_SLEEP ?
		     th->slices.v[k + 1].stack :
		     0;
}

/* The sites by (stack before, stack after, pid): open addressing. */
static uint64_t site_hash(uint32_t a, uint32_t b, int pid)
{
	uint64_t h = ((uint64_t)a << 32 | b) * 0x9e3779b97f4a7c15ull;

	return (h ^ (h >> 29) ^ (uint64_t)(uint32_t)pid * 0xc2b2ae3d27d4eb4full);
}

static uint32_t site_find(const struct rsp_analysis *an, uint32_t a, uint32_t b, int pid)
{
	if (!an->site_cap)
		return RSP_NONE;
	for (size_t j = site_hash(a, b, pid) & (an->site_cap - 1);; j = (j + 1) & (an->site_cap - 1)) {
		const struct site_slot *x = &an->site_ht[j];

		if (x->site == RSP_NONE)
			return RSP_NONE;
		if (x->a == a && x->b == b && x->pid == pid)
			return x->site;
	}
}

static void site_insert(struct rsp_analysis *an, uint32_t a, uint32_t b, int pid, uint32_t site)
{
	if ((an->sites.n + 1) * 2 > an->site_cap) {
		size_t cap = an->site_cap ? an->site_cap * 2 : 256;
		struct site_slot *ht = malloc(cap * sizeof(*ht));

		if (!ht) {
			an->nomem = true;
			return;
		}
		for (size_t j = 0; j < cap; j++)
			ht[j].site = RSP_NONE;
		for (size_t j = 0; j < an->site_cap; j++) {
			const struct site_slot *x = &an->site_ht[j];
			size_t m;

			if (x->site == RSP_NONE)
				continue;
			for (m = site_hash(x->a, x->b, x->pid) & (cap - 1); ht[m].site != RSP_NONE;
			     m = (m + 1) & (cap - 1))
				;
			ht[m] = *x;
		}
		free(an->site_ht);
		an->site_ht = ht;
		an->site_cap = cap;
	}
	for (size_t j = site_hash(a, b, pid) & (an->site_cap - 1);; j = (j + 1) & (an->site_cap - 1)) {
		if (an->site_ht[j].site == RSP_NONE) {
			an->site_ht[j] = (struct site_slot){ a, b, pid, site };
			return;
		}
	}
}

/*
 * The site between stacks @a (at @ta) and @b (at @tb) of thread @ti (made on
 * first sight); RSP_NONE on ENOMEM.  A @tail site (a waker's run after its
 * wakeup: cpus.c) is estimated from samples at its own place only, not from
 * its common frames' (those are the whole run's), and is kept apart from the
 * runs' sites.
 */
static uint32_t site_at(struct rsp_analysis *an, uint32_t ti, uint32_t a, uint64_t ta, uint32_t b,
			uint64_t tb, bool tail)
{
	const struct thread *th = &an->t->threads.v[ti];
	int pid = (int)th->pid, key_pid = tail ? -pid - 1 : pid;
	uint32_t i;
	struct uframe fa[MAX_SITE_FRAMES], fb[MAX_SITE_FRAMES];
	char names_a[MAX_SITE_FRAMES][SITE_NAME_LEN], names_b[MAX_SITE_FRAMES][SITE_NAME_LEN];
	size_t na, nb;
	struct site_shape sh;
	char key[1024], coarse[1024], words[400];
	struct run_site s;

	a = a ? analysis_stack_id(an, a) : 0;
	b = b ? analysis_stack_id(an, b) : 0;
	i = site_find(an, a, b, key_pid);
	if (i != RSP_NONE)
		return i;
	na = site_frames(an, a, pid, ta, fa, names_a);
	nb = site_frames(an, b, pid, tb, fb, names_b);
	sh = shape(fa, na, fb, nb);
	site_keys(&sh, key, sizeof(key), coarse, sizeof(coarse));
	memset(&s, 0, sizeof(s));
	s.pid = pid;
	s.thread = ti;
	s.named = site_words(&sh, words, sizeof(words));
	if (sh.n_chain) {
		/* its frames as a stack of their own, leaf first, for the views */
		uint64_t ips[MAX_SITE_FRAMES];

		for (size_t j = 0; j < sh.n_chain; j++)
			ips[j] = sh.chain[sh.n_chain - 1 - j].addr;
		s.stack = stacks_intern(&an->t->stacks, ips, sh.n_chain);
		s.time = sh.chain == fa ? ta : tb;
	}
	s.label = analysis_with_comm(an, ti, s.named ? trace_intern(an->t, words) : 0);
	s.pool = pool_of(an, pid, trace_intern(an->t, key));
	/* no frame in common: the coarse key would hold every such site of the process */
	s.coarse = sh.n_chain && !tail ? pool_of(an, pid, trace_intern(an->t, coarse)) : RSP_NONE;
	if (!vec_push(&an->sites, s)) {
		an->nomem = true;
		return RSP_NONE;
	}
	i = (uint32_t)(an->sites.n - 1);
	site_insert(an, a, b, key_pid, i);
	return i;
}

/* The site of run @k of thread @ti: between the stacks of the sleeps around it. */
static uint32_t site_of(struct rsp_analysis *an, uint32_t ti, uint32_t k)
{
	const struct thread *th = &an->t->threads.v[ti];
	const struct slice *r = &th->slices.v[k];
	uint32_t a, b;

	bounds(an, th, k, &a, &b);
	return site_at(an, ti, a, k > 0 ? th->slices.v[k - 1].start : r->start, b, r->end, false);
}

/* The samples of run @k of @ti and its end (the first sample of the next run). */
static size_t run_samples(const struct thread *th, uint32_t k, size_t *end)
{
	*end = th->samples.n;
	for (size_t j = k + 1; j < th->slices.n; j++) {
		if (th->slices.v[j].kind == SLICE_RUN) {
			*end = th->slices.v[j].samples;
			break;
		}
	}
	return th->slices.v[k].samples;
}

static int by_pid(const void *x, const void *y, void *ctx)
{
	const struct rsp_trace *t = ctx;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	uint32_t pa = t->threads.v[a].pid, pb = t->threads.v[b].pid;

	if (pa != pb)
		return pa < pb ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* The threads of every process, grouped: pid -> the first of its run in by_pid. */
static bool index_pids(struct rsp_analysis *an)
{
	size_t n = an->t->threads.n;

	if (an->by_pid || !n)
		return an->by_pid != NULL;
	an->by_pid = malloc(n * sizeof(*an->by_pid));
	if (!an->by_pid) {
		an->nomem = true;
		return false;
	}
	for (uint32_t i = 0; i < n; i++)
		an->by_pid[i] = i;
	qsort_r(an->by_pid, n, sizeof(*an->by_pid), by_pid, an->t);
	for (size_t i = n; i-- > 0;)
		if (_rsp_u64map_put(&an->pid_first, an->t->threads.v[an->by_pid[i]].pid,
				    (uint32_t)i))
			an->nomem = true;
	return !an->nomem;
}

/* ---- what a sample stands for -------------------------------------------------------------- */

#define MAX_SAMPLERS 16

/*
 * The CPU time one sample of process @pid stands for: one period of the
 * samplers whose samples it has (their rates add: -F's on every CPU,
 * --target-freq's on the target's threads); 0 if one of them has no known
 * period (a perf.data with a sampler of unknown period).  Once per process.
 */
static uint64_t sample_period(struct rsp_analysis *an, int pid)
{
	size_t nd = rsp_reader_n_attrs(an->t->reader), ns = 0;
	uint16_t seen[MAX_SAMPLERS];
	bool unknown = false;
	double rate = 0;
	uint64_t period = 0;
	uint32_t v, from;

	if (_rsp_u64map_get(&an->periods, (uint32_t)pid, &v))
		return v;
	if (index_pids(an) && _rsp_u64map_get(&an->pid_first, (uint32_t)pid, &from)) {
		for (size_t x = from; x < an->t->threads.n && !unknown; x++) {
			const struct thread *th = &an->t->threads.v[an->by_pid[x]];

			if ((int)th->pid != pid)
				break;
			for (size_t j = 0; j < th->samples.n && !unknown; j++) {
				uint16_t a = th->samples.v[j].attr;
				size_t k = 0;

				while (k < ns && seen[k] != a)
					k++;
				if (k < ns)
					continue;
				if (ns == MAX_SAMPLERS || a >= nd || !an->t->dec[a].sample_ns)
					unknown = true;
				else
					seen[ns++] = a;
			}
		}
		for (size_t k = 0; k < ns && !unknown; k++)
			rate += 1.0 / (double)an->t->dec[seen[k]].sample_ns;
		if (!unknown && rate > 0 && 1.0 / rate < (double)UINT32_MAX)
			period = (uint64_t)(1.0 / rate + 0.5);
	}
	if (_rsp_u64map_put(&an->periods, (uint32_t)pid, (uint32_t)period))
		an->nomem = true;
	return period;
}

/* sample_period() of a process whose samples were already counted; 0 if not */
static uint64_t known_period(const struct rsp_analysis *an, int pid)
{
	uint32_t v;

	return _rsp_u64map_get(&an->periods, (uint32_t)pid, &v) ? v : 0;
}

/*
 * How @part of the time @basis in which @n samples were taken is split: each
 * sample's @each (the first one's plus @first_extra), and the @rest that goes
 * to the run's site, estimated.  Each stands for one @period (scaled to the
 * part) while the samples are fewer than the time holds; else the time is
 * divided equally among them, nothing left.
 */
struct split {
	uint64_t each, first_extra, rest;
};

static struct split split_of(uint64_t period, uint64_t basis, uint64_t part, size_t n)
{
	struct split sp = { part / n, part % n, 0 };

	if (!period || basis < part || period >= basis / n)
		return sp;
	sp.each = basis == part ? period : (uint64_t)((double)period * (double)part / (double)basis);
	sp.first_extra = 0;
	sp.rest = part - sp.each * n;
	return sp;
}

/*
 * Every run of process @pid, trace-wide, to the pools of its site: its time,
 * and its samples with their share of it.  Once per process.
 */
static void pool_process(struct rsp_analysis *an, int pid)
{
	uint32_t dummy, from;
	uint64_t period;

	if (_rsp_u64map_get(&an->pooled, (uint32_t)pid, &dummy))
		return;
	if (_rsp_u64map_put(&an->pooled, (uint32_t)pid, 1))
		an->nomem = true;
	if (!index_pids(an) || !_rsp_u64map_get(&an->pid_first, (uint32_t)pid, &from))
		return;
	period = sample_period(an, pid);
	for (size_t x = from; x < an->t->threads.n && !an->nomem; x++) {
		uint32_t ti = an->by_pid[x];
		const struct thread *th = &an->t->threads.v[ti];

		if ((int)th->pid != pid)
			break;
		if (!th->tid)
			continue;
		for (uint32_t k = 0; k < th->slices.n; k++) {
			const struct slice *r = &th->slices.v[k];
			uint64_t len = r->end - r->start;
			struct split sp = { 0, 0, 0 };
			size_t first, end;
			uint32_t si;

			if (r->kind != SLICE_RUN || r->end <= r->start)
				continue;
			si = site_of(an, ti, k);
			if (si == RSP_NONE)
				return;
			an->pools.v[an->sites.v[si].pool].run_ns += len;
			if (an->sites.v[si].coarse != RSP_NONE)
				an->pools.v[an->sites.v[si].coarse].run_ns += len;
			first = run_samples(th, k, &end);
			if (end > first)
				sp = split_of(period, len, len, end - first);
			for (size_t j = first; j < end; j++) {
				const struct tsample *sm = &th->samples.v[j];
				uint64_t share = sp.each + (j == first ? sp.first_extra : 0);
				uint32_t l = analysis_with_comm(
					an, ti, analysis_cached_label(an, sm->stack, pid, sm->time, false));
				const struct run_site *st = &an->sites.v[si];

				pool_add(an, st->pool, l, 1, share, sm);
				if (st->coarse != RSP_NONE)
					pool_add(an, st->coarse, l, 1, share, sm);
			}
		}
	}
}

/* The pool a site's time is estimated from: its own, else its common frames'; RSP_NONE if
 * neither has a sample (inferred). */
static uint32_t site_pool(const struct rsp_analysis *an, const struct run_site *s)
{
	if (an->pools.v[s->pool].samples)
		return s->pool;
	if (s->coarse != RSP_NONE && an->pools.v[s->coarse].samples)
		return s->coarse;
	return RSP_NONE;
}

/* ---- run leaves --------------------------------------------------------------------------- */

/* a sample this late after its run's end still belongs to it (the builder's rule) */
#define SAMPLE_LATE_NS 20000ull

static uint32_t unsampled_leaf(struct rsp_analysis *an, uint32_t thread, uint32_t slice,
			       uint32_t site, uint64_t lo, uint64_t hi, uint32_t parent, uint32_t depth);

/*
 * The samples a leaf [@lo, @hi] of run @slice of @th stands for: every sample
 * of the run, taken over the run's time; or (@in_part) those taken in the
 * part (up to SAMPLE_LATE_NS after it: the sampler's interrupt lands late),
 * over the part's.  The leaf makers and the views' parts read the same.
 */
struct leaf_samples {
	size_t first, end; /* the run's samples */
	uint64_t t_lo, t_hi; /* those taken then */
	size_t n; /* how many */
	uint64_t basis; /* the time they were taken in */
};

static struct leaf_samples leaf_samples_of(const struct thread *th, uint32_t slice, uint64_t lo,
					   uint64_t hi, bool in_part)
{
	const struct slice *r = &th->slices.v[slice];
	struct leaf_samples ls = { 0, 0, 0, UINT64_MAX, 0, hi - lo };

	ls.first = run_samples(th, slice, &ls.end);
	if (!in_part) {
		ls.n = ls.end - ls.first;
		if (r->end > r->start && r->end - r->start >= hi - lo)
			ls.basis = r->end - r->start;
		return ls;
	}
	ls.t_lo = lo;
	ls.t_hi = hi + SAMPLE_LATE_NS;
	for (size_t i = ls.first; i < ls.end; i++)
		ls.n += th->samples.v[i].time >= ls.t_lo && th->samples.v[i].time <= ls.t_hi;
	return ls;
}

/*
 * A leaf of [@lo, @hi] of run @slice, its time split among the samples @ls
 * (split_of()); what they do not stand for goes to the run's site, estimated.
 */
static uint32_t sampled_leaf(struct rsp_analysis *an, uint32_t thread, uint32_t slice,
			     const struct leaf_samples *ls, uint64_t lo, uint64_t hi,
			     uint32_t parent, uint32_t depth)
{
	const struct thread *th = &an->t->threads.v[thread];
	struct split sp = split_of(sample_period(an, (int)th->pid), ls->basis, hi - lo, ls->n);
	uint32_t n = analysis_leaf(an, RSP_NODE_RUN, RSP_CAT_CPU, lo, hi, parent, depth, thread);
	uint32_t best = 0, site = RSP_NONE;

	for (size_t i = ls->first, k = 0; i < ls->end && k < ls->n; i++) {
		uint32_t what, l;
		uint64_t ns;

		if (th->samples.v[i].time < ls->t_lo || th->samples.v[i].time > ls->t_hi)
			continue;
		what = analysis_cached_label(an, th->samples.v[i].stack, (int)th->pid,
					     th->samples.v[i].time, false);
		l = analysis_with_comm(an, thread, what);
		ns = sp.each + (k++ == 0 ? sp.first_extra : 0);
		analysis_contribute(an, RSP_CAT_CPU, l, ns, 1, RSP_SHARE_MEASURED);
		if (what)
			analysis_explained_ns(an, ns);
		if (!best)
			best = l;
	}
	if (sp.rest) {
		pool_process(an, (int)th->pid);
		site = site_of(an, thread, slice);
		if (site != RSP_NONE) {
			an->sites.v[site].rest_ns += sp.rest;
			analysis_explained_ns(an, sp.rest);
		}
	}
	if (n != RSP_NONE) {
		analysis_node(an, n)->slice = slice;
		analysis_node(an, n)->label = best;
		analysis_node(an, n)->site = site;
	}
	return n;
}

uint32_t analysis_run_leaf(struct rsp_analysis *an, uint32_t thread, uint32_t slice,
			   uint64_t lo, uint64_t hi, uint32_t parent, uint32_t depth)
{
	const struct thread *th = &an->t->threads.v[thread];
	struct leaf_samples ls = leaf_samples_of(th, slice, lo, hi, false);

	if (ls.n)
		return sampled_leaf(an, thread, slice, &ls, lo, hi, parent, depth);
	pool_process(an, (int)th->pid);
	return unsampled_leaf(an, thread, slice, site_of(an, thread, slice), lo, hi, parent, depth);
}

/*
 * A waker's run on its wakee's CPU after the wakeup [@lo, @hi] (cpus.c): the
 * samples that fell in it, if any (each stands for the part of the run it
 * landed in, not for the whole run, whose code before the wakeup is
 * another's); else its code between the stack it woke the thread from
 * (@from) and the one it stopped at.
 */
uint32_t analysis_tail_leaf(struct rsp_analysis *an, uint32_t thread, uint32_t slice,
			    uint32_t from, uint64_t lo, uint64_t hi, uint32_t parent, uint32_t depth)
{
	const struct thread *th = &an->t->threads.v[thread];
	struct leaf_samples ls;
	uint32_t a, b, site;

	if (!from)
		return analysis_run_leaf(an, thread, slice, lo, hi, parent, depth);
	ls = leaf_samples_of(th, slice, lo, hi, true);
	if (ls.n) {
		uint32_t n = sampled_leaf(an, thread, slice, &ls, lo, hi, parent, depth);

		if (n != RSP_NONE)
			analysis_node(an, n)->flags |= RSP_NODE_PART_SAMPLES;
		return n;
	}
	bounds(an, th, slice, &a, &b);
	pool_process(an, (int)th->pid);
	site = site_at(an, thread, from, lo, b, th->slices.v[slice].end, true);
	return unsampled_leaf(an, thread, slice, site, lo, hi, parent, depth);
}

/* A run's part without samples, its code estimated or inferred from @site. */
static uint32_t unsampled_leaf(struct rsp_analysis *an, uint32_t thread, uint32_t slice,
			       uint32_t site, uint64_t lo, uint64_t hi, uint32_t parent, uint32_t depth)
{
	uint32_t n = analysis_leaf(an, RSP_NODE_RUN, RSP_CAT_CPU_UNSAMPLED, lo, hi, parent, depth,
				   thread);

	if (n == RSP_NONE)
		return n;
	analysis_node(an, n)->slice = slice;
	analysis_node(an, n)->site = site;
	if (analysis_node(an, n)->site != RSP_NONE) {
		const struct run_site *s = &an->sites.v[analysis_node(an, n)->site];

		analysis_node(an, n)->label = s->label;
		if (site_pool(an, s) != RSP_NONE) {
			analysis_node(an, n)->flags |= RSP_NODE_ESTIMATED;
			analysis_explained_ns(an, hi - lo);
		} else if (s->named) {
			analysis_node(an, n)->flags |= RSP_NODE_INFERRED;
			analysis_explained_ns(an, hi - lo);
		}
	} else {
		analysis_node(an, n)->label = analysis_with_comm(an, thread, 0);
	}
	return n;
}

/* ---- threads whose scheduling was not recorded ------------------------------------------ */

/* The first sample of @th after @t. */
static size_t sample_after(const struct thread *th, uint64_t t)
{
	size_t lo = 0, hi = th->samples.n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (th->samples.v[mid].time <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void not_recorded(struct rsp_analysis *an, uint32_t thread, uint64_t lo, uint64_t hi,
			 uint32_t parent, uint32_t depth)
{
	uint32_t n = analysis_leaf(an, RSP_NODE_UNACCOUNTED, RSP_CAT_UNACCOUNTED, lo, hi, parent,
				   depth, thread);

	if (n != RSP_NONE)
		analysis_node(an, n)->label = analysis_with_comm(
			an, thread,
			trace_intern(an->t, "scheduler events not recorded (record with rsp record, "
					    "or perf record -g -e 'sched:*')"));
}

void analysis_unrecorded(struct rsp_analysis *an, uint32_t thread, uint64_t lo, uint64_t hi,
			 uint32_t parent, uint32_t depth)
{
	const struct thread *th = &an->t->threads.v[thread];
	size_t nd = rsp_reader_n_attrs(an->t->reader);
	uint64_t cur = lo;

	for (size_t j = sample_after(th, lo); j < th->samples.n && cur < hi; j++) {
		const struct tsample *sm = &th->samples.v[j];
		uint64_t d = sm->attr < nd ? an->t->dec[sm->attr].sample_ns : 0;
		uint64_t a, b;
		uint32_t what, l, n;

		if (sm->time - (d < sm->time ? d : sm->time) >= hi)
			break;
		/* the CPU time a sample stands for: the period that ended at it; a
		 * timer that fired late makes the next period look shorter, so a
		 * period overlapping the one before is moved after it, whole */
		a = d < sm->time ? sm->time - d : 0;
		a = a > cur ? a : cur;
		b = hi - a > d ? a + d : hi;
		if (!d || b <= a)
			continue;
		if (a > cur)
			not_recorded(an, thread, cur, a, parent, depth);
		n = analysis_leaf(an, RSP_NODE_RUN, RSP_CAT_CPU, a, b, parent, depth, thread);
		cur = b;
		if (n == RSP_NONE)
			continue;
		what = analysis_cached_label(an, sm->stack, (int)th->pid, sm->time, false);
		l = analysis_with_comm(an, thread, what);
		analysis_node(an, n)->label = l;
		analysis_node(an, n)->flags |= RSP_NODE_ESTIMATED;
		analysis_contribute(an, RSP_CAT_CPU, l, b - a, 1, RSP_SHARE_ESTIMATED);
		if (what)
			analysis_explained_ns(an, b - a);
	}
	if (cur < hi)
		not_recorded(an, thread, cur, hi, parent, depth);
}

/* "comm (tid N): what" (what a label), once per (thread, what) */
static uint32_t tid_words(struct rsp_analysis *an, uint32_t ti, uint32_t what)
{
	uint64_t key = (uint64_t)ti << 32 | what;
	char buf[512];
	uint32_t l;

	if (_rsp_u64map_get(&an->tid_labels, key, &l))
		return l;
	snprintf(buf, sizeof(buf), "%s (tid %u): %s", analysis_thread_comm(an, ti),
		 an->t->threads.v[ti].tid, trace_str(an->t, what));
	l = trace_intern(an->t, buf);
	_rsp_u64map_put(&an->tid_labels, key, l); /* no room: made again next time */
	return l;
}

/* "comm (tid N): what" of run @k of @ti: its first sample's function, else its site. */
static uint32_t run_words(struct rsp_analysis *an, uint32_t ti, uint32_t k)
{
	const struct thread *th = &an->t->threads.v[ti];
	size_t end, first;
	uint32_t what = 0, si;

	if (k >= th->slices.n || th->slices.v[k].kind != SLICE_RUN)
		return 0;
	first = run_samples(th, k, &end);
	if (end > first)
		what = analysis_cached_label(an, th->samples.v[first].stack, (int)th->pid,
					     th->samples.v[first].time, false);
	if (!what && (si = site_of(an, ti, k)) != RSP_NONE && an->sites.v[si].named) {
		struct run_site *site = &an->sites.v[si];

		if (!site->what) {
			const char *l = trace_str(an->t, site->label);
			const char *colon = strstr(l, ": ");

			site->what = trace_intern(an->t, colon ? colon + 2 : l);
		}
		what = site->what;
	}
	return what ? tid_words(an, ti, what) : 0;
}

/* "comm (tid N): what" of @stack of @ti at @time; 0 if it names nothing. */
static uint32_t stack_words(struct rsp_analysis *an, uint32_t ti, uint32_t stack, uint64_t time)
{
	const struct thread *th = &an->t->threads.v[ti];
	uint32_t what = stack ? analysis_cached_label(an, stack, (int)th->pid, time, false) : 0;

	return what ? tid_words(an, ti, what) : 0;
}

/*
 * The run of @w that sent @op's data, or RSP_NONE: the run containing the
 * send, or one whose switch-in was inferred late (at its next event, up to
 * the tolerance after the send: the send is evidence it ran; the kernel omits
 * many idle->task switches).
 */
uint32_t analysis_sending_run(const struct rsp_analysis *an, uint32_t w, const struct net_op *op)
{
	const struct thread *th = &an->t->threads.v[w];
	size_t k;

	if (!op->send_time)
		return RSP_NONE;
	k = rsp_thread_find_slice(an->t, w, op->send_time);
	if (k == RSP_NO_INDEX || k >= th->slices.n)
		return RSP_NONE;
	if (th->slices.v[k].kind == SLICE_RUN)
		return (uint32_t)k;
	if (k + 1 < th->slices.n && th->slices.v[k + 1].kind == SLICE_RUN &&
	    (th->slices.v[k + 1].flags & SL_INFERRED_START) &&
	    th->slices.v[k + 1].start - op->send_time <= an->tol)
		return (uint32_t)(k + 1);
	return RSP_NONE;
}

/* Data from @w over the network: what its run that sent it ran, else the send itself. */
static uint32_t net_words(struct rsp_analysis *an, uint32_t w, const struct net_op *op)
{
	uint32_t k = analysis_sending_run(an, w, op);
	struct rsp_socket_info so;
	uint32_t l = 0;
	char buf[512];

	if (k != RSP_NONE)
		l = run_words(an, w, k);
	if (l || op->sock >= an->t->socks.n)
		return l;
	rsp_trace_socket(an->t, op->sock, &so);
	if (!so.local[0])
		return 0;
	snprintf(buf, sizeof(buf), "%s (tid %u): its send to %s", analysis_thread_comm(an, w),
		 an->t->threads.v[w].tid, so.local);
	return trace_intern(an->t, buf);
}

/* What @w ran when it ended a wait through @lk: its run's samples or named site;
 * data over the network: the run that sent it, else the send; else the stack it
 * woke the waiter from.  0: not known. */
static uint32_t other_run_words(struct rsp_analysis *an, uint32_t w, const struct link *lk)
{
	uint32_t l = lk->waker_slice != RSP_NONE && lk->waker == w ?
			     run_words(an, w, lk->waker_slice) :
			     0;

	if (!l && lk->kind == LINK_NET && lk->extra < an->t->nets.n &&
	    an->t->nets.v[lk->extra].sender == w)
		l = net_words(an, w, &an->t->nets.v[lk->extra]);
	if (!l && lk->waker == w && lk->ctx == RSP_CTX_TASK)
		l = stack_words(an, w, lk->stack, lk->time);
	return l;
}

/* Other-path node @n (a wait ended by @w through link @lk) named by what @w ran when
 * it ended the wait (explained), else by the thread alone, not explained. */
void analysis_label_other_run(struct rsp_analysis *an, uint32_t n, uint32_t w,
			      const struct link *lk)
{
	uint32_t l = other_run_words(an, w, lk);

	if (l) {
		analysis_node(an, n)->label = l;
		analysis_explained_ns(an, analysis_node(an, n)->end - analysis_node(an, n)->start);
	} else {
		analysis_label_other(an, n, w);
	}
}

/* "comm (tid N): WORDS WHAT" (@what a label id; 0: "comm (tid N): WORDS") */
static uint32_t other_state_words(struct rsp_analysis *an, uint32_t w, const char *words,
				  uint32_t what)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "%s%s%s", words, what ? " " : "",
		 what ? trace_str(an->t, what) : "");
	return tid_words(an, w, trace_intern(an->t, buf));
}

/* an other-path wait's pieces: at most this many, the rest one piece named by the
 * thread alone */
#define OTHER_PIECES 1024

/* The pieces of a wait on @w under @parent: made up to @cur; the open one is
 * [cur, end), named @l; the wait ends at @hi. */
struct pieces {
	struct rsp_analysis *an;
	const struct link *lk; /* what ended the wait */
	uint32_t parent, depth, w;
	uint32_t alone; /* "comm (tid N)" */
	uint32_t made;
	uint64_t cur, end, hi;
	uint32_t l;
};

static void piece_leaf(struct pieces *p, uint64_t a, uint64_t b, uint32_t l)
{
	uint32_t n = analysis_leaf(p->an, RSP_NODE_OTHER_PATH, RSP_CAT_OTHER_PATH, a, b,
				   p->parent, p->depth, RSP_NONE);

	if (n != RSP_NONE) {
		analysis_node(p->an, n)->other = p->w;
		analysis_node(p->an, n)->label = l;
	}
	p->made++;
}

/* [end, @b) named @l (0: the thread alone): the open piece grows, or is made and
 * a new one opens */
static void piece_to(struct pieces *p, uint64_t b, uint32_t l)
{
	if (b > p->hi)
		b = p->hi;
	if (b <= p->end)
		return;
	if (!l || p->made + 1 >= OTHER_PIECES)
		l = p->alone;
	if (l != p->l && p->end > p->cur) {
		piece_leaf(p, p->cur, p->end, p->l);
		p->cur = p->end;
	}
	p->l = l;
	p->end = b;
}

/*
 * Run @k of @ti, unsampled, by what the samples of the runs at the same site
 * (its pool, as "Running but not sampled" estimates it) of its process's
 * threads of its name hit most:
 * "comm (tid N): WHAT (estimated)"; 0 if its site has no samples.  Once per
 * site (the thread its first asker; the label names @ti).
 */
static uint32_t site_estimate(struct rsp_analysis *an, uint32_t ti, uint32_t k)
{
	const struct thread *th = &an->t->threads.v[ti];
	uint32_t si, pool, best = RSP_NONE, what = 0;
	struct run_site *site;
	char buf[512];

	pool_process(an, (int)th->pid);
	si = site_of(an, ti, k);
	if (si == RSP_NONE)
		return 0;
	site = &an->sites.v[si];
	if (site->estimate && site->estimate != RSP_NONE && site->thread == ti)
		return site->estimate;
	pool = site_pool(an, site);
	if (pool == RSP_NONE)
		return 0;
	/* of the samples of its threads of the same name (a pool is the process's) */
	for (size_t i = 0; i < an->entries.n; i++) {
		const struct pool_entry *e = &an->entries.v[i];
		uint32_t w;

		if (e->pool != pool || (best != RSP_NONE && e->samples <= an->entries.v[best].samples))
			continue;
		w = analysis_cached_label(an, e->stack, (int)th->pid, e->time, false);
		if (w && e->label == analysis_with_comm(an, ti, w)) {
			best = (uint32_t)i;
			what = w;
		}
	}
	if (best == RSP_NONE)
		return 0;
	snprintf(buf, sizeof(buf), "%s (estimated)", trace_str(an->t, what));
	what = tid_words(an, ti, trace_intern(an->t, buf));
	if (site->thread == ti)
		site->estimate = what;
	return what;
}

/* Run @k of @w over [@a, @b): each instant named by the sample that stands for it
 * (the first of the run at or after it, else the run's last), by the run's site
 * where it has none (estimated) */
static void run_pieces(struct pieces *p, uint32_t k, uint64_t a, uint64_t b)
{
	struct rsp_analysis *an = p->an;
	const struct thread *th = &an->t->threads.v[p->w];
	size_t end, first = run_samples(th, k, &end), j = first;
	const struct tsample *sm;
	uint32_t l;

	while (j < end && th->samples.v[j].time <= a)
		j++;
	for (; j < end && p->end < b; j++) {
		sm = &th->samples.v[j];
		l = analysis_cached_label(an, sm->stack, (int)th->pid, sm->time, false);
		piece_to(p, sm->time < b ? sm->time : b, l ? tid_words(an, p->w, l) : 0);
	}
	if (p->end >= b)
		return;
	if (end > first) {
		sm = &th->samples.v[end - 1];
		l = analysis_cached_label(an, sm->stack, (int)th->pid, sm->time, false);
		l = l ? tid_words(an, p->w, l) : 0;
	} else {
		/* unsampled: estimated from its site's samples, else its site; else the
		 * run that ended the wait by where it woke it */
		l = site_estimate(an, p->w, k);
		if (!l)
			l = run_words(an, p->w, k);
		if (!l && k == p->lk->waker_slice && p->lk->waker == p->w &&
		    p->lk->ctx == RSP_CTX_TASK)
			l = stack_words(an, p->w, p->lk->stack, p->lk->time);
	}
	piece_to(p, b, l);
}

void analysis_other_path(struct rsp_analysis *an, uint32_t w, const struct link *lk, uint64_t lo,
			 uint64_t hi, uint32_t parent, uint32_t depth)
{
	const struct thread *th = &an->t->threads.v[w];
	struct pieces p = { an, lk, parent, depth, w, analysis_other_alone(an, w), 0, lo, lo, hi, 0 };

	if (hi <= lo)
		return;
	/* explained or not as one wait: by what ended it */
	if (other_run_words(an, w, lk))
		analysis_explained_ns(an, hi - lo);
	for (size_t k = analysis_first_slice(an, w, lo); k < th->slices.n && p.end < hi; k++) {
		const struct slice *s = &th->slices.v[k];
		uint64_t a = s->start > lo ? s->start : lo, b = s->end < hi ? s->end : hi;
		uint64_t wake = (s->flags & SL_PREEMPTED) ? s->start : s->wake;
		uint32_t what;

		if (s->start >= hi)
			break;
		if (b <= a)
			continue;
		piece_to(&p, a, 0); /* before it: the thread alone */
		if (s->kind == SLICE_RUN) {
			run_pieces(&p, (uint32_t)k, a, b);
		} else if (s->kind == SLICE_SLEEP && (s->flags & SL_PREEMPTED) && s->stack) {
			/* preempted: still in what it ran (a lock's holder in its section) */
			what = analysis_cached_label(an, s->stack, (int)th->pid, s->start, false);
			piece_to(&p, b, other_state_words(an, w, "preempted in", what));
		} else if (s->kind == SLICE_SLEEP) {
			/* its own wait, then runnable from its wakeup */
			if (!wake || wake > a) {
				what = s->stack ? analysis_cached_label(an, s->stack, (int)th->pid,
									s->start, false)
						: 0;
				piece_to(&p, wake && wake < b ? wake : b,
					 other_state_words(an, w, "waiting in", what));
			}
			piece_to(&p, b, other_state_words(an, w, "runnable", 0));
		} else {
			piece_to(&p, b, 0);
		}
	}
	piece_to(&p, hi, 0);
	piece_leaf(&p, p.cur, hi, p.l ? p.l : p.alone);
}

static int by_pool(const void *x, const void *y)
{
	const struct pool_entry *a = x, *b = y;

	if (a->pool != b->pool)
		return a->pool < b->pool ? -1 : 1;
	return a->label < b->label ? -1 : a->label > b->label;
}

/* The entries of @pool: [*first, *end) of the sorted entries. */
static void entries_of(const struct rsp_analysis *an, uint32_t pool, size_t *first, size_t *end)
{
	size_t lo = 0, hi = an->entries.n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (an->entries.v[mid].pool < pool)
			lo = mid + 1;
		else
			hi = mid;
	}
	*first = lo;
	for (hi = lo; hi < an->entries.n && an->entries.v[hi].pool == pool; hi++)
		;
	*end = hi;
}

/* What @pool owes each of its functions of @ns unsampled time (see the top); weights out. */
static double weights(const struct rsp_analysis *an, uint32_t pool, size_t first, size_t end,
		      double *w)
{
	const struct site_pool *p = &an->pools.v[pool];
	double sum = 0;

	for (size_t i = first; i < end; i++) {
		const struct pool_entry *e = &an->entries.v[i];
		double owed = (double)p->run_ns * (double)e->samples / (double)p->samples -
			      (double)e->measured_ns;

		w[i - first] = owed > 0 ? owed : 0;
		sum += w[i - first];
	}
	if (sum > 0)
		return sum;
	for (size_t i = first; i < end; i++) {
		w[i - first] = (double)an->entries.v[i].samples;
		sum += w[i - first];
	}
	return sum;
}

/*
 * @ns of a site's time in category @cat, divided among the functions of @pool
 * (entries [@first, @end)) by the estimate; the rounding to the largest share.
 * @w: room for end - first weights.
 */
static void spread(struct rsp_analysis *an, uint32_t pool, size_t first, size_t end, double *w,
		   uint64_t ns, uint64_t count, enum rsp_category cat)
{
	double sum = weights(an, pool, first, end, w);
	size_t top = first;
	uint64_t given = 0;

	for (size_t k = first; k < end; k++) {
		uint64_t x = (uint64_t)((double)ns * w[k - first] / sum);

		if (x > ns - given)
			x = ns - given;
		w[k - first] = (double)x;
		given += x;
		if (x > (uint64_t)w[top - first])
			top = k;
	}
	w[top - first] += (double)(ns - given);
	for (size_t k = first; k < end; k++)
		if (w[k - first] >= 1)
			analysis_contribute(an, cat, an->entries.v[k].label, (uint64_t)w[k - first],
					    count, RSP_SHARE_ESTIMATED);
}

void analysis_runs_finish(struct rsp_analysis *an)
{
	double *w = NULL;
	size_t cap = 0;

	if (an->entries.n)
		qsort(an->entries.v, an->entries.n, sizeof(*an->entries.v), by_pool);
	for (size_t i = 0; i < an->sites.n && !an->nomem; i++) {
		const struct run_site *s = &an->sites.v[i];
		uint32_t pool = site_pool(an, s);
		size_t first, end;

		if (!s->ns && !s->rest_ns)
			continue;
		if (pool == RSP_NONE) {
			/* no sample at this site: the site itself */
			if (s->ns)
				analysis_contribute(an, RSP_CAT_CPU_UNSAMPLED, s->label, s->ns,
						    s->count,
						    s->named ? RSP_SHARE_INFERRED : RSP_SHARE_MEASURED);
			if (s->rest_ns)
				analysis_contribute(an, RSP_CAT_CPU, s->label, s->rest_ns, 0,
						    RSP_SHARE_ESTIMATED);
			continue;
		}
		entries_of(an, pool, &first, &end);
		if (end - first > cap) {
			double *g = realloc(w, (end - first) * sizeof(*w));

			if (!g) {
				an->nomem = true;
				break;
			}
			w = g;
			cap = end - first;
		}
		if (s->ns)
			spread(an, pool, first, end, w, s->ns, s->count, RSP_CAT_CPU_UNSAMPLED);
		/* what the sampled runs' samples do not stand for: their functions' CPU */
		if (s->rest_ns)
			spread(an, pool, first, end, w, s->rest_ns, 0, RSP_CAT_CPU);
	}
	free(w);
}

void analysis_runs_free(struct rsp_analysis *an)
{
	vec_free(&an->sites);
	vec_free(&an->pools);
	vec_free(&an->entries);
	free(an->site_ht);
	an->site_ht = NULL;
	an->site_cap = 0;
	_rsp_u64map_free(&an->pool_index);
	_rsp_u64map_free(&an->entry_index);
	_rsp_u64map_free(&an->pooled);
	_rsp_u64map_free(&an->pid_first);
	_rsp_u64map_free(&an->periods);
	free(an->by_pid);
	an->by_pid = NULL;
}

/*
 * The parts of site @s's estimate, each @scale of its share, appended to @out
 * from @got on (at most @max filled); the new count.
 */
static size_t site_parts(const struct rsp_analysis *an, const struct run_site *s, double scale,
			 struct rsp_run_part *out, size_t max, size_t got)
{
	uint32_t pool = site_pool(an, s);
	size_t first, end;
	double sum, *w;

	if (pool == RSP_NONE) {
		if (!s->stack)
			return got;
		if (got < max)
			out[got] = (struct rsp_run_part){ s->stack, s->time, scale, false };
		return got + 1;
	}
	entries_of(an, pool, &first, &end);
	w = malloc((end - first) * sizeof(*w));
	if (!w)
		return got;
	sum = weights(an, pool, first, end, w);
	for (size_t k = first; k < end && sum > 0; k++) {
		if (w[k - first] <= 0)
			continue;
		if (got < max)
			out[got] = (struct rsp_run_part){ an->entries.v[k].stack,
							  an->entries.v[k].time,
							  scale * w[k - first] / sum, true };
		got++;
	}
	free(w);
	return got;
}

/* A sampled run's leaf @n: its samples' parts as sampled_leaf() split it, then its rest's. */
static size_t sampled_parts(const struct rsp_analysis *an, const struct anode *n,
			    struct rsp_run_part *out, size_t max)
{
	const struct thread *th = &an->t->threads.v[n->thread];
	uint64_t part = n->end - n->start;
	struct leaf_samples ls;
	struct split sp;
	size_t got = 0;

	if (n->slice >= th->slices.n || !part)
		return 0;
	ls = leaf_samples_of(th, n->slice, n->start, n->end, n->flags & RSP_NODE_PART_SAMPLES);
	if (!ls.n)
		return 0;
	sp = split_of(known_period(an, (int)th->pid), ls.basis, part, ls.n);
	for (size_t i = ls.first, k = 0; i < ls.end; i++) {
		const struct tsample *sm = &th->samples.v[i];

		if (sm->time < ls.t_lo || sm->time > ls.t_hi)
			continue;
		if (got < max)
			out[got] = (struct rsp_run_part){
				sm->stack, sm->time,
				(double)(sp.each + (k == 0 ? sp.first_extra : 0)) / (double)part, false
			};
		got++;
		k++;
	}
	if (sp.rest && n->site < an->sites.n)
		got = site_parts(an, &an->sites.v[n->site], (double)sp.rest / (double)part, out,
				 max, got);
	return got;
}

size_t rsp_analysis_run_parts(const struct rsp_analysis *an, size_t node,
			      struct rsp_run_part *out, size_t max)
{
	const struct anode *n;

	if (an->summary || node >= an->nodes.n)
		return 0;
	n = &an->nodes.v[node];
	if (n->kind != RSP_NODE_RUN || n->thread >= an->t->threads.n)
		return 0;
	if (!(n->flags & (RSP_NODE_ESTIMATED | RSP_NODE_INFERRED)))
		return sampled_parts(an, n, out, max);
	if (n->site >= an->sites.n)
		return 0;
	return site_parts(an, &an->sites.v[n->site], 1.0, out, max, 0);
}
