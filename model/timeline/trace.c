/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rsp_trace_open(): a perf.data file into the timeline.
 *
 *  1. scan the file once: header records are absorbed, every kernel record
 *     becomes a 16-byte index entry (time, file offset);
 *  2. sort the index by time (stable radix sort: records come out in time
 *     order across CPUs whatever the file's interleaving);
 *  3. walk it: merge the copies of events delivered twice (perf + ftrace,
 *     system-wide + target), decode tracepoints by field name, intern
 *     stacks, feed the timeline builder and the symbolizer.
 */
#include "timeline/trace-private.h"

#include "rsp-buildid.h"
#include "rsp-perf-format.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#define DUP_WINDOW_NS 50000
#define DUP_RING 16
#define DUP_RAW 256 /* payload bytes a remembered event keeps in place (more: on the heap) */

struct idx {
	uint64_t time;
	uint64_t off;
};

static void check_completeness(struct rsp_trace *t);
struct setup;
static void setup_start(struct setup *su);

/* ---- strings, warnings, threads ---------------------------------------------------------- */

static uint64_t str_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

static int str_rehash(struct rsp_trace *t)
{
	size_t cap = t->str_cap ? t->str_cap * 2 : 256;
	uint32_t *ht = calloc(cap, sizeof(*ht));
	size_t off = 1;

	if (!ht)
		return -ENOMEM;
	while (off < t->strtab.n) {
		const char *s = &t->strtab.v[off];
		size_t i = str_hash(s) & (cap - 1);

		while (ht[i])
			i = (i + 1) & (cap - 1);
		ht[i] = (uint32_t)off;
		off += strlen(s) + 1;
	}
	free(t->str_ht);
	t->str_ht = ht;
	t->str_cap = cap;
	return 0;
}

uint32_t trace_intern(struct rsp_trace *t, const char *s)
{
	size_t i, len;
	uint32_t off;

	if (!s || !*s)
		return 0;
	if (t->strtab.n == 0 && !vec_push(&t->strtab, '\0'))
		return 0;
	if (!t->str_cap || t->strtab.n / 8 + 1 > t->str_cap / 2) {
		if (str_rehash(t))
			return 0;
	}
	for (i = str_hash(s) & (t->str_cap - 1); t->str_ht[i]; i = (i + 1) & (t->str_cap - 1))
		if (!strcmp(&t->strtab.v[t->str_ht[i]], s))
			return t->str_ht[i];
	len = strlen(s) + 1;
	if (t->strtab.n + len > UINT32_MAX)
		return 0;
	off = (uint32_t)t->strtab.n;
	for (size_t k = 0; k < len; k++)
		if (!vec_push(&t->strtab, s[k]))
			return 0;
	t->str_ht[i] = off;
	return off;
}

const char *trace_str(const struct rsp_trace *t, uint32_t id)
{
	return id && id < t->strtab.n ? &t->strtab.v[id] : "";
}

void trace_warn(struct rsp_trace *t, const char *fmt, ...)
{
	char buf[512], *s;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	for (size_t i = 0; i < t->warnings.n; i++)
		if (!strcmp(t->warnings.v[i], buf))
			return;
	s = strdup(buf);
	if (s && !vec_push(&t->warnings, s))
		free(s);
}

static size_t tid_slot(const struct rsp_trace *t, uint32_t tid)
{
	return (tid * 2654435761u) & (t->tid_cap - 1);
}

static int tid_rehash(struct rsp_trace *t)
{
	size_t cap = t->tid_cap ? t->tid_cap * 2 : 1024;
	uint32_t *ht = calloc(cap, sizeof(*ht));
	size_t old = t->tid_cap;
	uint32_t *oht = t->tid_ht;

	if (!ht)
		return -ENOMEM;
	t->tid_ht = ht;
	t->tid_cap = cap;
	for (size_t i = 0; i < old; i++) {
		size_t j;

		if (!oht[i])
			continue;
		for (j = tid_slot(t, t->threads.v[oht[i] - 1].tid); ht[j]; j = (j + 1) & (cap - 1))
			;
		ht[j] = oht[i];
	}
	free(oht);
	return 0;
}

uint32_t trace_thread_new(struct rsp_trace *t, uint32_t tid, uint32_t pid, uint64_t time)
{
	struct thread th;
	size_t j;

	if ((t->threads.n + 1) * 2 > t->tid_cap && tid_rehash(t))
		return RSP_NONE;
	memset(&th, 0, sizeof(th));
	th.tid = tid;
	th.pid = pid ? pid : tid;
	th.parent = RSP_NONE;
	th.pending_link = RSP_NONE;
	th.birth = time;
	if (!vec_push(&t->threads, th))
		return RSP_NONE;
	for (j = tid_slot(t, tid); t->tid_ht[j]; j = (j + 1) & (t->tid_cap - 1))
		if (t->threads.v[t->tid_ht[j] - 1].tid == tid)
			break;
	t->tid_ht[j] = (uint32_t)t->threads.n; /* the newest thread owns the tid */
	return (uint32_t)(t->threads.n - 1);
}

uint32_t trace_thread_of(struct rsp_trace *t, uint32_t tid, uint32_t pid, uint64_t time)
{
	if (tid == 0)
		return RSP_NONE;
	if (t->tid_cap) {
		for (size_t j = tid_slot(t, tid); t->tid_ht[j]; j = (j + 1) & (t->tid_cap - 1)) {
			struct thread *th = &t->threads.v[t->tid_ht[j] - 1];

			if (th->tid != tid)
				continue;
			if (pid && th->pid != pid && th->pid == th->tid && pid != tid)
				th->pid = pid; /* learned its process */
			return t->tid_ht[j] - 1;
		}
	}
	return trace_thread_new(t, tid, pid, time ? time : t->t_start);
}

/* ---- pass 1: the index ---------------------------------------------------------------------- */

struct scan {
	struct rsp_trace *t;
	struct setup *su; /* started from a large trace's first records */
	VEC(struct idx) idx;
	uint64_t last_time;
	bool nomem;
	/* progress and cancel (rsp_trace_opts) */
	const struct rsp_trace_opts *o;
	uint64_t size, n;
};

#define PROGRESS_EVERY 65536
#define SETUP_AFTER 16384 /* records: the set-up's thread starts then (tracing data known) */

static bool cancelled(const struct rsp_trace_opts *o)
{
	return o && o->cancel && *o->cancel;
}

static int scan_record(void *ctx, const struct rsp_record *rec)
{
	struct scan *sc = ctx;
	const struct perf_event_header *h = rec->h;
	struct rsp_sample s;
	struct idx e;
	int ret;

	if (sc->n % SETUP_AFTER == SETUP_AFTER - 1)
		setup_start(sc->su);
	if (++sc->n % PROGRESS_EVERY == 0 && sc->o) {
		uint64_t at = rsp_reader_file_offset(sc->t->reader, rec->offset);

		if (cancelled(sc->o))
			return -ECANCELED;
		if (sc->o->progress && sc->size)
			sc->o->progress(at < sc->size ? at / 3.0 / sc->size : 1 / 3.0,
					sc->o->progress_ctx);
	}
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		/* the rest is checked when the sample is built (walk_sample) */
		ret = rsp_reader_sample_time(sc->t->reader, h, &s);
		break;
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
		ret = rsp_reader_parse_id(sc->t->reader, h, &s);
		if (ret == -ENODATA) {
			ret = 0;
			s.has_time = false;
		}
		break;
	default:
		return 0;
	}
	if (ret) {
		sc->t->n_records++;
		trace_warn(sc->t, "records that do not fit their event's layout were skipped");
		return 0;
	}
	e.time = s.has_time ? s.time : sc->last_time;
	if (s.has_time && s.time) {
		if (!sc->t->t_start || s.time < sc->t->t_start)
			sc->t->t_start = s.time;
		if (s.time > sc->t->t_end)
			sc->t->t_end = s.time;
		sc->last_time = s.time;
	}
	if (s.has_cpu && s.cpu + 1 > sc->t->nr_cpus && s.cpu < 4096)
		sc->t->nr_cpus = s.cpu + 1;
	e.off = rec->offset;
	if (!vec_push(&sc->idx, e)) {
		sc->nomem = true;
		return -ENOMEM;
	}
	return 0;
}

/* Sort key: time-0 records (synthesized before the trace) first. */
static inline uint64_t key(uint64_t time, uint64_t base)
{
	return time >= base ? time - base + 1 : 0;
}

/*
 * Stable LSD radix sort on time, 11 bits a pass, skipping the digits every
 * key shares, on up to SORT_THREADS threads: each counts the digits of its
 * part of the array, then scatters it to its own offsets in each bucket
 * (after the parts before it: stable).
 */
#define RADIX_PASSES 6 /* 6 x 11 bits >= 64 */
#define SORT_THREADS 2
#define SORT_PAR_MIN 65536 /* entries: fewer are sorted on one thread */

struct sorter {
	struct idx *v, *spare;
	size_t n;
	uint64_t base;
	int nt;
	pthread_barrier_t bar;
	uint64_t and_[SORT_THREADS], or_[SORT_THREADS];
	bool sorted[SORT_THREADS];
	size_t cnt[SORT_THREADS][2048];
	struct idx *result;
};

struct sort_part {
	struct sorter *so;
	int t;
};

static void sort_sync(struct sorter *so)
{
	if (so->nt > 1)
		pthread_barrier_wait(&so->bar);
}

static void sort_part(struct sorter *so, int t)
{
	size_t lo = so->n * (size_t)t / (size_t)so->nt, hi = so->n * (size_t)(t + 1) / (size_t)so->nt;
	struct idx *a = so->v, *b = so->spare;
	uint64_t and_ = ~0ull, or_ = 0, differ = 0;
	bool sorted = lo == 0 || a[lo - 1].time <= a[lo].time;

	/* fresh pages for the other buffer, each thread its part */
	_rsp_warm(b + lo, (hi - lo) * sizeof(*b));
	for (size_t i = lo; i < hi; i++) {
		uint64_t k = key(a[i].time, so->base);

		and_ &= k;
		or_ |= k;
		sorted &= i == lo || a[i - 1].time <= a[i].time;
	}
	so->and_[t] = and_;
	so->or_[t] = or_;
	so->sorted[t] = sorted;
	sort_sync(so);
	sorted = true;
	and_ = ~0ull;
	or_ = 0;
	for (int u = 0; u < so->nt; u++) {
		sorted &= so->sorted[u];
		and_ &= so->and_[u];
		or_ |= so->or_[u];
	}
	if (sorted) {
		if (t == 0)
			so->result = a;
		return;
	}
	differ = and_ ^ or_;
	for (int p = 0; p < RADIX_PASSES; p++) {
		int shift = 11 * p;
		size_t *c = so->cnt[t], off[2048], sum = 0;
		struct idx *tmp;

		if (!((differ >> shift) & 2047))
			continue; /* every key has the same digit here */
		memset(c, 0, sizeof(so->cnt[t]));
		for (size_t i = lo; i < hi; i++)
			c[(key(a[i].time, so->base) >> shift) & 2047]++;
		sort_sync(so);
		/* bucket k of part t: after all of buckets < k, and after the parts < t in k */
		for (size_t k = 0; k < 2048; k++) {
			size_t before = 0, all = 0;

			for (int u = 0; u < so->nt; u++) {
				before += u < t ? so->cnt[u][k] : 0;
				all += so->cnt[u][k];
			}
			off[k] = sum + before;
			sum += all;
		}
		for (size_t i = lo; i < hi; i++)
			b[off[(key(a[i].time, so->base) >> shift) & 2047]++] = a[i];
		sort_sync(so);
		tmp = a;
		a = b;
		b = tmp;
	}
	if (t == 0)
		so->result = a;
}

static void *sort_part_thread(void *arg)
{
	struct sort_part *sp = arg;

	sort_part(sp->so, sp->t);
	return NULL;
}

static int sort_index(struct idx **v, size_t n, uint64_t base)
{
	struct sorter so = { .v = *v, .n = n, .base = base, .nt = 1 };
	struct sort_part helper = { &so, 1 };
	pthread_t tid;

	if (n < 2)
		return 0;
	so.spare = malloc(n * sizeof(*so.spare));
	if (!so.spare)
		return -ENOMEM;
	/* SORT_THREADS is 2: this thread and one more */
	if (n >= SORT_PAR_MIN && _rsp_usable_cpus() > 1 && !pthread_barrier_init(&so.bar, NULL, 2)) {
		so.nt = 2;
		if (pthread_create(&tid, NULL, sort_part_thread, &helper)) {
			pthread_barrier_destroy(&so.bar);
			so.nt = 1;
		}
	}
	sort_part(&so, 0);
	if (so.nt > 1) {
		pthread_join(tid, NULL);
		pthread_barrier_destroy(&so.bar);
	}
	/* the result is in one buffer; the other goes */
	free(so.result == *v ? so.spare : *v);
	*v = so.result;
	return 0;
}

/* ---- pass 2 ----------------------------------------------------------------------------- */

struct dup {
	uint64_t time;
	uint64_t tp;
	uint32_t raw_size; /* 0: none */
	unsigned attr;
	uint32_t stack;
	struct product prod;
	bool matched;
	_Alignas(8) unsigned char raw[DUP_RAW];
	unsigned char *big; /* a larger payload's copy (an exec's long file name) */
	uint32_t big_cap;
};

/* A remembered event's payload: its copy, in place or on the heap. */
static const unsigned char *dup_raw(const struct dup *d)
{
	return d->raw_size <= DUP_RAW ? d->raw : d->big;
}

/*
 * The walk in two stages: the first reads each record (parses a sample: the
 * cache misses of a file read out of order) and hands it to the second as an
 * op, in order; the second interns its stack, merges the second copies of
 * events, decodes them and builds the timeline.  With two CPUs they run on
 * both, the ops in a ring between them; else one after the other, op by op.
 * The first only reads the file and the decoders.
 */
enum op_kind { OP_SAMPLE = 1, OP_RECORD, OP_DROP, OP_END };

/*
 * A sample as the first stage read it, a record for the second to read, or
 * a segment of the stream the second may drop (its number in off): every
 * op that pointed into it is done.
 */
struct op {
	uint8_t kind;
	uint32_t attr, cpu, tid, pid, raw_size;
	uint64_t time, off;
	const void *raw;
	const uint64_t *callchain; /* the stack: interned by the second stage */
	uint32_t callchain_nr;
	bool copy; /* a user-stack copy came with it */
	bool ucopy; /* one to unwind when asked (with registers, not empty) */
};

/* the index's pages behind the walk are given back every this many records (4 MiB) */
#define IDX_RELEASE (1u << 18)
#define OPQ 1024 /* ops in the ring: a power of two */
#define PIPELINE_MIN 65536 /* records: fewer are walked on one thread, and sorted on it */
#define OPQ_BATCH 32 /* published this many at a time */

/* each side's fields on cache lines of their own: the other only reads head or tail */
struct opq {
	struct op *v;
	int stop; /* the second asks the first to stop (cancelled) */
	_Alignas(64) size_t head; /* ops written, published (atomic) */
	_Alignas(64) size_t tail; /* ops applied, published (atomic) */
	_Alignas(64) size_t head_local, tail_seen; /* the first stage's */
	_Alignas(64) size_t tail_local, head_seen; /* the second's */
};

struct walk {
	struct rsp_trace *t;
	/* the first stage's */
	bool bad_layout; /* a sample was skipped (warned at the end) */
	struct idx *idx; /* its pages behind the walk are given back */
	size_t n_idx;
	size_t *seg_last; /* per segment of the stream: 1 + its last record's index, 0: none */
	uint8_t *seg_state; /* per segment: 0, SEG_LOADING, SEG_HELD or SEG_FAILED (atomic) */
	size_t seg_failed; /* records of segments that could not be inflated again */
	size_t first_at; /* the record the first stage is at, now and then (atomic) */
	/* the second's: segments in the order the first needs them, to inflate ahead of it */
	uint32_t *sched;
	size_t *seg_first; /* per segment: its first record's index */
	size_t n_sched, sched_next;
	/* the second's */
	uint64_t cbuf[512];
	struct builder *b;
	bool *multi; /* per attr: its tracepoint comes from several attrs */
	struct dup (*ring)[DUP_RING];
	uint32_t ncpu_ring;
	unsigned *pos;
	uint32_t *count_of; /* per attr: index in t->counts */
	struct rsp_sample s; /* rsp_decode's: raw, raw_size and tid set per op */
	/* between them */
	struct opq *q; /* NULL: one stage after the other */
	struct op one; /* then the op being made */
};

static void apply(struct walk *w, const struct op *o);

/* ---- the ring between the stages ----------------------------------------------------------- */

static inline void relax(unsigned *spins)
{
	if (++*spins > 64)
		sched_yield();
}

/* The first stage: where to write the next op. */
static struct op *op_begin(struct walk *w)
{
	struct opq *q = w->q;
	unsigned spins = 0;

	if (!q)
		return &w->one;
	while (q->head_local - q->tail_seen >= OPQ) {
		q->tail_seen = __atomic_load_n(&q->tail, __ATOMIC_ACQUIRE);
		if (q->head_local - q->tail_seen >= OPQ)
			relax(&spins);
	}
	return &q->v[q->head_local & (OPQ - 1)];
}

static void op_commit(struct walk *w)
{
	struct opq *q = w->q;

	if (!q) {
		apply(w, &w->one);
		return;
	}
	q->head_local++;
	if (q->head_local % OPQ_BATCH == 0 || q->v[(q->head_local - 1) & (OPQ - 1)].kind == OP_END)
		__atomic_store_n(&q->head, q->head_local, __ATOMIC_RELEASE);
}

static bool preload(struct walk *w);

/* The second stage: the next op, NULL when the first has ended. */
static const struct op *op_next(struct walk *w)
{
	struct opq *q = w->q;
	const struct op *o;
	unsigned spins = 0;

	while (q->tail_local == q->head_seen) {
		q->head_seen = __atomic_load_n(&q->head, __ATOMIC_ACQUIRE);
		if (q->tail_local == q->head_seen && !(w->sched && preload(w)))
			relax(&spins);
	}
	o = &q->v[q->tail_local & (OPQ - 1)];
	return o->kind == OP_END ? NULL : o;
}

static void op_done(struct opq *q)
{
	q->tail_local++;
	if (q->tail_local % OPQ_BATCH == 0)
		__atomic_store_n(&q->tail, q->tail_local, __ATOMIC_RELEASE);
}

/* perf's callchain without the context markers (PERF_CONTEXT_*) */
size_t _rsp_clean_chain(const uint64_t *chain, uint64_t nr, uint64_t *out, size_t max,
			bool kernel_only)
{
	size_t n = 0;
	bool user = false;

	for (uint64_t i = 0; i < nr && n < max; i++) {
		uint64_t ip = chain[i];

		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			user = ip == (uint64_t)PERF_CONTEXT_USER;
			continue;
		}
		if (kernel_only && user)
			continue;
		out[n++] = ip;
	}
	return n;
}

/* The stack id of a sample the first stage read (0: none). */
static uint32_t sample_stack(struct walk *w, const struct op *o)
{
	struct rsp_trace *t = w->t;
	size_t n;
	uint32_t kstack;

	if (!o->callchain_nr && !o->copy)
		return 0;
	if (o->ucopy) {
		/*
		 * A copy of the user stack to unwind when asked (loading does not
		 * read its dyn_size: where the kernel copied nothing, the
		 * resolution takes the callchain as below)
		 */
		n = _rsp_clean_chain(o->callchain, o->callchain_nr, w->cbuf, 512, true);
		kstack = stacks_intern(&t->stacks, w->cbuf, n);
		return stacks_add_pending(&t->stacks, kstack, (int32_t)o->pid, o->time, o->off);
	}
	n = _rsp_clean_chain(o->callchain, o->callchain_nr, w->cbuf, 512, false);
	return stacks_intern(&t->stacks, w->cbuf, n);
}

/* The better of two stacks for one event: a user-stack copy, with the other as fallback. */
static uint32_t merge_stacks(struct rsp_trace *t, uint32_t a, uint32_t b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	if ((a & RSP_STACK_PENDING) && !(b & RSP_STACK_PENDING)) {
		t->stacks.pending.v[a & ~RSP_STACK_PENDING].fallback = b;
		return a;
	}
	if ((b & RSP_STACK_PENDING) && !(a & RSP_STACK_PENDING)) {
		t->stacks.pending.v[b & ~RSP_STACK_PENDING].fallback = a;
		return b;
	}
	return a;
}

/* A second copy of an event already seen on this CPU?  Then merge it. */
/* The perf and ftrace copies of one event carry the same payload and pid but
 * may differ in the context bytes of the common header (the preempt count is
 * one higher inside perf's handler), so those are not compared. */
static bool same_event(const struct rsp_decoder *dec, const struct dup *d, const struct op *o)
{
	uint32_t off = dec->payload_off, n;
	uint64_t a, b;

	if (d->raw_size > o->raw_size + 7 || o->raw_size > d->raw_size + 7)
		return false;
	n = d->raw_size < o->raw_size ? d->raw_size : o->raw_size;
	if (!off || off > n ||
	    !rsp_field_u64(&dec->common_pid, dup_raw(d), d->raw_size, &a) ||
	    !rsp_field_u64(&dec->common_pid, o->raw, o->raw_size, &b))
		return !memcmp(dup_raw(d), o->raw, n);
	return a == b && !memcmp(dup_raw(d) + off, (const char *)o->raw + off, n - off);
}

/* true if o is the second copy of an event already built; *gained is set
 * when the merged event got its stack from this copy */
static bool merged_dup(struct walk *w, const struct op *o, const struct rsp_decoder *dec,
		       uint32_t stack, bool *gained)
{
	struct dup *ring = w->ring[o->cpu];

	for (int k = 0; k < DUP_RING; k++) {
		struct dup *d = &ring[k];

		if (d->matched || d->tp != dec->tp_id || d->attr == o->attr || !d->raw_size)
			continue;
		if ((o->time > d->time ? o->time - d->time : d->time - o->time) > DUP_WINDOW_NS)
			continue;
		if (!same_event(dec, d, o))
			continue;
		d->matched = true;
		*gained = stack && !d->stack;
		if (stack) {
			uint32_t m = merge_stacks(w->t, d->stack, stack);

			if (m != d->stack) {
				builder_attach_stack(w->b, d->prod, m);
				d->stack = m;
			}
		}
		w->t->n_dup_merged++;
		return true;
	}
	return false;
}

static void remember(struct walk *w, const struct op *o, uint64_t tp, uint32_t stack)
{
	struct dup *d = &w->ring[o->cpu][w->pos[o->cpu]++ % DUP_RING];

	d->time = o->time;
	d->tp = tp;
	/* a copy: the record's segment may be dropped before a second copy comes */
	d->raw_size = o->raw_size;
	if (o->raw_size > DUP_RAW && o->raw_size > d->big_cap) {
		unsigned char *p = realloc(d->big, o->raw_size);

		if (p) {
			d->big = p;
			d->big_cap = o->raw_size;
		} else {
			d->raw_size = 0; /* not remembered: a second copy would count again */
		}
	}
	memcpy((void *)dup_raw(d), o->raw, d->raw_size);
	d->attr = o->attr;
	d->stack = stack;
	d->prod = builder_last_product(w->b);
	d->matched = false;
}

static void count_event(struct walk *w, unsigned attr, bool merged, bool stack)
{
	struct event_count *c = &w->t->counts.v[w->count_of[attr]];

	if (merged) {
		c->copies_merged++;
		c->with_stack += stack; /* the first copy had none, this one brought it */
		return;
	}
	c->n++;
	c->with_stack += stack;
}

/* The first stage's part of a sample: parse it. */
static void walk_sample(struct walk *w, const struct perf_event_header *h, uint64_t off)
{
	struct rsp_trace *t = w->t;
	struct rsp_sample s;
	const struct rsp_decoder *d;
	struct op *o;
	uint32_t cpu;

	if (rsp_reader_parse_sample_fast(t->reader, h, &s)) {
		w->bad_layout = true;
		return;
	}
	d = &t->dec[s.attr->index];
	cpu = s.has_cpu ? s.cpu : 0;
	if (cpu >= t->nr_cpus || d->is_tracking)
		return;
	o = op_begin(w);
	o->kind = OP_SAMPLE;
	o->attr = (uint32_t)s.attr->index;
	o->cpu = cpu;
	o->tid = s.tid;
	o->callchain = s.callchain;
	o->callchain_nr = (uint32_t)(s.callchain_nr < 0xffffffffu ? s.callchain_nr : 0xffffffffu);
	o->copy = s.stack != NULL;
	o->ucopy = s.stack && s.regs && s.stack_size;
	o->time = s.time;
	o->off = off;
	o->raw = s.raw;
	o->raw_size = s.raw ? s.raw_size : 0;
	o->pid = s.pid;
	op_commit(w);
}

/* The second stage's part of a sample: its stack, merge, decode, build. */
static void build_sample(struct walk *w, const struct op *o)
{
	struct rsp_trace *t = w->t;
	const struct rsp_decoder *d = &t->dec[o->attr];
	uint32_t stack = sample_stack(w, o);
	struct rsp_dev ev;
	bool gained = false;

	if (d->is_sampler) {
		count_event(w, o->attr, false, stack != 0);
		builder_sample(w->b, o->time, o->cpu, o->tid, o->pid, stack);
		return;
	}
	if (d->kind == TP_NONE || d->kind == TP_OTHER) {
		count_event(w, o->attr, false, stack != 0);
		return;
	}
	if (w->multi[o->attr] && o->raw && merged_dup(w, o, d, stack, &gained)) {
		count_event(w, o->attr, true, gained);
		return;
	}
	count_event(w, o->attr, false, stack != 0);
	w->s.raw = o->raw;
	w->s.raw_size = o->raw_size;
	w->s.tid = o->tid;
	if (!rsp_decode(d, &w->s, &ev))
		return;
	t->n_events++;
	builder_event(w->b, o->time, o->cpu, &ev, stack, o->off);
	if (w->multi[o->attr] && o->raw)
		remember(w, o, d->tp_id, stack);
}

/* The first stage: a record. */
static void walk_record(struct walk *w, const struct idx *e)
{
	const struct perf_event_header *h = rsp_reader_record_at(w->t->reader, e->off);
	struct op *o;

	if (!h)
		return;
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		walk_sample(w, h, e->off);
		break;
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_MMAP:
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
		o = op_begin(w);
		o->kind = OP_RECORD;
		o->time = e->time;
		o->off = e->off;
		op_commit(w);
		break;
	default:
		break;
	}
}

/* The second stage: a record other than a sample. */
static void build_record(struct walk *w, const struct idx *e)
{
	struct rsp_trace *t = w->t;
	const struct perf_event_header *h = rsp_reader_record_at(t->reader, e->off);
	struct rsp_sample s;

	if (!h)
		return;
	switch (h->type) {
	case PERF_RECORD_COMM: {
		const struct rsp_pf_comm *c = (const void *)h;
		char comm[32];
		size_t room = h->size - sizeof(*c);

		if (h->size <= sizeof(*c))
			break;
		memcpy(comm, c->comm, room < sizeof(comm) - 1 ? room : sizeof(comm) - 1);
		comm[room < sizeof(comm) - 1 ? room : sizeof(comm) - 1] = '\0';
		builder_comm(w->b, e->time, c->pid, c->tid, comm,
			     h->misc & PERF_RECORD_MISC_COMM_EXEC);
		if ((h->misc & PERF_RECORD_MISC_COMM_EXEC) && t->sym)
			rsp_sym_exec(t->sym, (int)c->pid, e->time);
		break;
	}
	case PERF_RECORD_FORK: {
		const struct rsp_pf_fork *f = (const void *)h;

		if (h->size < sizeof(*f))
			break;
		builder_fork(w->b, e->time, f->pid, f->ppid, f->tid, f->ptid);
		if (t->sym && f->pid != f->ppid && f->pid == f->tid)
			rsp_sym_fork(t->sym, (int)f->pid, (int)f->ppid, e->time);
		break;
	}
	case PERF_RECORD_EXIT: {
		const struct rsp_pf_fork *f = (const void *)h;

		if (h->size < sizeof(*f))
			break;
		builder_exit(w->b, e->time, f->pid, f->tid);
		break;
	}
	case PERF_RECORD_MMAP2: {
		const struct rsp_pf_mmap2 *m = (const void *)h;
		char path[4096];
		size_t room;

		if (h->size <= sizeof(*m) || !t->sym)
			break;
		room = h->size - sizeof(*m);
		if (room > sizeof(path) - 1)
			room = sizeof(path) - 1;
		memcpy(path, m->filename, room);
		path[room] = '\0';
		rsp_sym_add_map(t->sym, (int)m->pid, e->time, m->start, m->len, m->pgoff, m->prot,
				path,
				(h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) ? m->build_id : NULL,
				(h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) ? m->build_id_size : 0);
		break;
	}
	case PERF_RECORD_MMAP: {
		const struct rsp_pf_mmap *m = (const void *)h;
		char path[4096];
		size_t room;

		if (h->size <= sizeof(*m) || !t->sym || m->pid == (uint32_t)-1)
			break; /* the kernel's map: kallsyms covers it */
		room = h->size - sizeof(*m);
		if (room > sizeof(path) - 1)
			room = sizeof(path) - 1;
		memcpy(path, m->filename, room);
		path[room] = '\0';
		rsp_sym_add_map(t->sym, (int)m->pid, e->time, m->start, m->len, m->pgoff,
				PROT_EXEC, path, NULL, 0);
		break;
	}
	case PERF_RECORD_LOST: {
		const struct rsp_pf_lost *l = (const void *)h;

		if (h->size < sizeof(*l) || rsp_reader_parse_id(t->reader, h, &s))
			break;
		builder_lost(w->b, e->time, s.has_cpu ? s.cpu : 0, l->lost, 0);
		break;
	}
	case PERF_RECORD_LOST_SAMPLES: {
		const struct rsp_pf_lost_samples *l = (const void *)h;

		if (h->size < sizeof(*l) || rsp_reader_parse_id(t->reader, h, &s))
			break;
		builder_lost(w->b, e->time, s.has_cpu ? s.cpu : 0, l->lost, 0);
		break;
	}
	default:
		break;
	}
}

/* The second stage: one op. */
static void apply(struct walk *w, const struct op *o)
{
	if (o->kind == OP_SAMPLE) {
		build_sample(w, o);
	} else if (o->kind == OP_RECORD) {
		struct idx e = { o->time, o->off };

		build_record(w, &e);
	} else if (o->kind == OP_DROP) {
		rsp_reader_segment_drop(w->t->reader, o->off);
	}
}

#define SEG_LOADING 1
#define SEG_HELD 2
#define SEG_FAILED 3
/* records: the second stage inflates the segments the first needs this far ahead */
#define PRELOAD_AHEAD 8192

/* Inflate segment @s unless another thread does or did; its state after. */
static uint8_t seg_take(struct walk *w, size_t s, int who)
{
	uint8_t st = 0;

	if (__atomic_compare_exchange_n(&w->seg_state[s], &st, SEG_LOADING, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		st = rsp_reader_segment_load(w->t->reader, s, who) ? SEG_FAILED : SEG_HELD;
		__atomic_store_n(&w->seg_state[s], st, __ATOMIC_RELEASE);
	}
	return st;
}

/*
 * The second stage, waiting for ops: inflate the next segment the first
 * stage will need (if it is near), so that the first, the busier one where
 * a stream is compressed, finds it ready.  False if there is none to do.
 */
static bool preload(struct walk *w)
{
	size_t s;

	if (w->sched_next >= w->n_sched)
		return false;
	s = w->sched[w->sched_next];
	if (w->seg_first[s] > __atomic_load_n(&w->first_at, __ATOMIC_RELAXED) + PRELOAD_AHEAD)
		return false;
	w->sched_next++;
	seg_take(w, s, 1);
	return true;
}

/*
 * The first stage: record @i, its segment of the stream (if any) inflated
 * first (unless the second did), and dropped after it if it is the
 * segment's last.
 */
static void walk_one(struct walk *w, size_t i)
{
	const struct idx *e = &w->idx[i];
	long s = rsp_reader_segment_of(e->off);
	struct op *o;
	uint8_t st;

	if (s < 0) {
		walk_record(w, e);
		return;
	}
	if (i % 256 == 0)
		__atomic_store_n(&w->first_at, i, __ATOMIC_RELAXED);
	st = __atomic_load_n(&w->seg_state[s], __ATOMIC_ACQUIRE);
	if (st != SEG_HELD && st != SEG_FAILED) {
		unsigned spins = 0;

		st = seg_take(w, (size_t)s, 0);
		while (st == SEG_LOADING) {
			relax(&spins); /* the second stage is inflating it */
			st = __atomic_load_n(&w->seg_state[s], __ATOMIC_ACQUIRE);
		}
	}
	if (st == SEG_FAILED) {
		w->seg_failed++;
		return;
	}
	walk_record(w, e);
	if (w->seg_last[s] == i + 1) {
		o = op_begin(w);
		o->kind = OP_DROP;
		o->off = (uint64_t)s;
		op_commit(w);
	}
}

/* The first stage, on its own thread: every record, then OP_END. */
static void *first_stage(void *arg)
{
	struct walk *w = arg;
	struct op *o;

	for (size_t i = 0; i < w->n_idx; i++) {
		if (i % 4096 == 0 && __atomic_load_n(&w->q->stop, __ATOMIC_RELAXED))
			break;
		walk_one(w, i);
		if (i % IDX_RELEASE == IDX_RELEASE - 1)
			_rsp_release(w->idx, (i + 1) * sizeof(*w->idx));
	}
	o = op_begin(w);
	o->kind = OP_END;
	op_commit(w);
	return NULL;
}

/* The walk's share of loading's progress, @i of @n records on; false if cancelled. */
static bool walk_progress(const struct rsp_trace_opts *o, size_t i, size_t n)
{
	if (!o)
		return true;
	if (cancelled(o))
		return false;
	if (o->progress)
		o->progress(1 / 3.0 + 2 / 3.0 * (i < n ? i : n) / n, o->progress_ctx);
	return true;
}

/* ---- opening ------------------------------------------------------------------------------ */

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

/*
 * The set-up that needs only the header records: the tracepoint formats,
 * and the symbolizer with the kallsyms the file holds (parsing and sorting
 * them is most of it).  From a large trace's first records on, a thread does
 * it while the scan goes on; it warns through err only.
 */
struct setup {
	struct rsp_trace *t;
	const struct rsp_trace_opts *o;
	pthread_t tid;
	bool started, done;
	int ret; /* the symbolizer's */
	char terr[256]; /* the formats' warning, or "" */
};

static void setup_early(struct setup *su)
{
	struct rsp_trace *t = su->t;
	const struct rsp_reader_info *in = rsp_reader_info(t->reader);
	struct rsp_sym_opts so = { .debug_dir = su->o ? su->o->debug_dir : NULL };

	su->done = true;
	if (in->tracing_data &&
	    rsp_tracedata_parse(&t->td, in->tracing_data, in->tracing_data_len, su->terr,
				sizeof(su->terr)) == 0)
		su->terr[0] = '\0';
	if (su->o && su->o->no_symbols)
		return;
	su->ret = rsp_sym_new(&t->sym, &so);
	if (!su->ret && t->td.kallsyms && t->td.kallsyms_len)
		rsp_sym_set_kallsyms(t->sym, t->td.kallsyms, t->td.kallsyms_len);
}

static void *setup_thread(void *arg)
{
	setup_early(arg);
	return NULL;
}

/* Start the thread once the formats are known (a large trace: the scan is far enough). */
static void setup_start(struct setup *su)
{
	if (!su->started && !su->done && rsp_reader_info(su->t->reader)->tracing_data &&
	    _rsp_usable_cpus() > 1)
		su->started = pthread_create(&su->tid, NULL, setup_thread, su) == 0;
}

/* After the scan: what the thread did, or all of it now; then what needs the whole stream. */
static int setup_finish(struct setup *su)
{
	struct rsp_trace *t = su->t;
	const struct rsp_reader_info *in = rsp_reader_info(t->reader);

	if (su->started)
		pthread_join(su->tid, NULL);
	else if (!su->done)
		setup_early(su);
	su->started = false;
	if (su->terr[0])
		trace_warn(t, "%s: tracepoint fields cannot be decoded", su->terr);
	if (su->ret || !t->sym)
		return su->ret;
	if (t->td.kallsyms && t->td.kallsyms_len) {
		/* set by the early part */
	} else if (running_kernel_matches(in)) {
		size_t len;
		char *ks = read_proc_kallsyms(&len);

		if (ks && len) {
			rsp_sym_set_kallsyms(t->sym, ks, len);
			t->kallsyms_from_running_kernel = true;
		}
		free(ks);
	} else {
		trace_warn(t, "no kernel symbols: the file has no kallsyms and this is not the "
			      "kernel it was recorded on");
	}
	for (size_t i = 0; i < in->n_build_ids; i++)
		if (!in->build_ids[i].kernel)
			rsp_sym_set_build_id(t->sym, in->build_ids[i].path, in->build_ids[i].id,
					     in->build_ids[i].len);
	return 0;
}

static int count_index(struct rsp_trace *t, const char *name)
{
	struct event_count c;

	for (size_t i = 0; i < t->counts.n; i++)
		if (!strcmp(t->counts.v[i].name, name))
			return (int)i;
	memset(&c, 0, sizeof(c));
	snprintf(c.name, sizeof(c.name), "%s", name);
	if (!vec_push(&t->counts, c))
		return -ENOMEM;
	return (int)(t->counts.n - 1);
}

static int load(struct rsp_trace *t, const struct rsp_trace_opts *o, uint64_t size, char *err,
		size_t errlen)
{
	const struct rsp_reader_info *in;
	struct setup su = { .t = t, .o = o };
	struct scan sc = { .t = t, .su = &su, .o = o, .size = size };
	struct walk w = { .t = t };
	pthread_t first;
	struct opq q = { 0 };
	bool piped = false;
	size_t na, n_segs = 0;
	int ret;

	ret = rsp_reader_scan(t->reader, scan_record, &sc, err, errlen);
	if (ret) {
		if (su.started)
			pthread_join(su.tid, NULL);
		vec_free(&sc.idx);
		if (sc.nomem)
			snprintf(err, errlen, "out of memory reading the trace");
		else if (ret == -ECANCELED)
			snprintf(err, errlen, "loading cancelled");
		return ret;
	}
	in = rsp_reader_info(t->reader);
	if (in->compressed_skipped)
		trace_warn(t, "%llu compressed records skipped: the file does not declare its "
			      "compression (no HEADER_COMPRESSED feature)",
			   (unsigned long long)in->compressed_skipped);
	na = rsp_reader_n_attrs(t->reader);
	if (na == 0) {
		if (su.started)
			pthread_join(su.tid, NULL);
		vec_free(&sc.idx);
		snprintf(err, errlen, "no event descriptions in the file: not a perf recording");
		return -EINVAL;
	}
	if (in->truncated)
		trace_warn(t, "the file is cut short at byte %llu (recorder killed or disk full): "
			      "everything before the cut is read",
			   (unsigned long long)in->truncated_at);
	if (in->unfinished)
		trace_warn(t, "perf record did not finish this file: its header is incomplete; "
			      "read to the end of the data");
	if (in->nr_cpus_avail > t->nr_cpus && in->nr_cpus_avail < 4096)
		t->nr_cpus = in->nr_cpus_avail;
	if (!t->nr_cpus)
		t->nr_cpus = 1;
	ret = setup_finish(&su);
	if (ret)
		goto out;
	t->dec = calloc(na, sizeof(*t->dec));
	w.multi = calloc(na, sizeof(*w.multi));
	w.count_of = calloc(na, sizeof(*w.count_of));
	if (!t->dec || !w.multi || !w.count_of) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < na; i++) {
		int ci;

		rsp_decoder_init(&t->dec[i], rsp_reader_attr(t->reader, i), t->td.tep);
		ci = count_index(t, t->dec[i].name);
		if (ci < 0) {
			ret = ci;
			goto out;
		}
		w.count_of[i] = (uint32_t)ci;
		if (t->dec[i].kind == TP_WAKING)
			t->have_waking = true;
	}
	for (size_t i = 0; i < na; i++)
		for (size_t j = 0; j < na; j++)
			if (i != j && t->dec[i].tp_id && t->dec[i].tp_id == t->dec[j].tp_id &&
			    rsp_reader_attr(t->reader, i)->attr.type == PERF_TYPE_TRACEPOINT &&
			    rsp_reader_attr(t->reader, j)->attr.type == PERF_TYPE_TRACEPOINT)
				w.multi[i] = true;
	ret = sort_index(&sc.idx.v, sc.idx.n, t->t_start);
	if (ret)
		goto out;
	w.ring = calloc(t->nr_cpus, sizeof(*w.ring));
	w.pos = calloc(t->nr_cpus, sizeof(*w.pos));
	w.b = builder_new(t);
	if (!w.ring || !w.pos || !w.b) {
		ret = -ENOMEM;
		goto out;
	}
	w.idx = sc.idx.v;
	w.n_idx = sc.idx.n;
	n_segs = rsp_reader_n_segments(t->reader);
	if (n_segs) {
		/* a segment is held from its first record in time order to its last */
		w.seg_last = calloc(n_segs, sizeof(*w.seg_last));
		w.seg_state = calloc(n_segs, sizeof(*w.seg_state));
		w.seg_first = malloc(n_segs * sizeof(*w.seg_first));
		w.sched = malloc(n_segs * sizeof(*w.sched));
		if (!w.seg_last || !w.seg_state || !w.seg_first || !w.sched) {
			ret = -ENOMEM;
			goto out;
		}
		for (size_t s = 0; s < n_segs; s++)
			w.seg_first[s] = SIZE_MAX;
		for (size_t i = 0; i < sc.idx.n; i++) {
			long s = rsp_reader_segment_of(sc.idx.v[i].off);

			if (s < 0 || (size_t)s >= n_segs)
				continue;
			w.seg_last[s] = i + 1;
			if (w.seg_first[s] == SIZE_MAX) {
				w.seg_first[s] = i;
				w.sched[w.n_sched++] = (uint32_t)s; /* in order of first use */
			}
		}
	}
	if (sc.idx.n >= PIPELINE_MIN && _rsp_usable_cpus() > 1) {
		q.v = malloc(OPQ * sizeof(*q.v));
		w.q = &q;
		piped = q.v && pthread_create(&first, NULL, first_stage, &w) == 0;
		if (!piped) {
			free(q.v);
			q.v = NULL;
			w.q = NULL;
		}
	}
	if (piped) {
		const struct op *op;
		bool cancel = false;
		size_t i = 0;

		while ((op = op_next(&w))) {
			if (++i % PROGRESS_EVERY == 0 && !cancel && !walk_progress(o, i, sc.idx.n)) {
				cancel = true;
				__atomic_store_n(&q.stop, 1, __ATOMIC_RELAXED);
			}
			if (!cancel)
				apply(&w, op);
			op_done(&q);
		}
		pthread_join(first, NULL);
		piped = false;
		if (cancel) {
			snprintf(err, errlen, "loading cancelled");
			ret = -ECANCELED;
			goto out;
		}
	} else {
		for (size_t i = 0; i < sc.idx.n; i++) {
			if (i % PROGRESS_EVERY == PROGRESS_EVERY - 1 &&
			    !walk_progress(o, i, sc.idx.n)) {
				snprintf(err, errlen, "loading cancelled");
				ret = -ECANCELED;
				goto out;
			}
			walk_one(&w, i);
			if (i % IDX_RELEASE == IDX_RELEASE - 1)
				_rsp_release(sc.idx.v, (i + 1) * sizeof(*sc.idx.v));
		}
	}
	builder_finish(w.b);
	/* each thread's totals, once: rsp_trace_thread() is asked for them per node and sleep */
	for (size_t i = 0; i < t->threads.n; i++) {
		struct thread *th = &t->threads.v[i];

		for (size_t k = 0; k < th->slices.n; k++) {
			const struct slice *sl = &th->slices.v[k];
			uint64_t d = sl->end - sl->start;

			if (sl->kind == SLICE_RUN)
				th->run_ns += d;
			else if (sl->kind == SLICE_SLEEP)
				th->sleep_ns += d;
			else
				th->unknown_ns += d;
		}
	}
	if (w.seg_failed)
		trace_warn(t, "%zu records skipped: their part of the compressed trace could not be "
			      "inflated again (out of memory)",
			   w.seg_failed);
	if (w.bad_layout)
		trace_warn(t, "records that do not fit their event's layout were skipped");
	if (!t->have_waking)
		trace_warn(t, "no sched:sched_waking events: wakeup links come from sched_wakeup "
			      "and may name the wrong waker");
	if (!t->have_irq)
		trace_warn(t, "no interrupt events (irq:irq_handler_entry): hardware waits are not "
			      "named; perf record drops most of them on idle CPUs, rsp record "
			      "keeps them");
	check_completeness(t);
out:
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory loading the trace");
	builder_free(w.b);
	for (size_t i = 0; i < n_segs; i++)
		rsp_reader_segment_drop(t->reader, i); /* a cancelled walk's */
	rsp_reader_segments_trim(t->reader);
	free(w.seg_last);
	free(w.seg_state);
	free(w.seg_first);
	free(w.sched);
	free(q.v);
	for (size_t c = 0; w.ring && c < t->nr_cpus; c++)
		for (int k = 0; k < DUP_RING; k++)
			free(w.ring[c][k].big);
	free(w.ring);
	free(w.pos);
	free(w.multi);
	free(w.count_of);
	vec_free(&sc.idx);
	return ret;
}

static uint64_t count_of(const struct rsp_trace *t, const char *name)
{
	for (size_t i = 0; i < t->counts.n; i++)
		if (!strcmp(t->counts.v[i].name, name))
			return t->counts.v[i].n;
	return 0;
}

/* What a recording from a kernel that drops events lacks, told plainly. */
static void check_completeness(struct rsp_trace *t)
{
	uint64_t issued = count_of(t, "block:block_rq_issue");
	uint64_t done = count_of(t, "block:block_rq_complete");

	bool block_recorded = false, have[TP__COUNT] = { false }, sampler = false;
	/* events the analysis uses, and what their absence costs */
	static const struct {
		enum rsp_tp_kind kind;
		const char *name, *cost;
	} uses[] = {
		{ TP_FORK, "sched:sched_process_fork", "fork links unknown" },
		{ TP_EXEC, "sched:sched_process_exec", "exec links unknown" },
		{ TP_EXIT, "sched:sched_process_exit", "exit links unknown (waits for children unexplained)" },
		{ TP_BLK_INSERT, "block:block_rq_insert", "I/O queue time unknown" },
		{ TP_BLK_ISSUE, "block:block_rq_issue", "I/O service time and issuer unknown" },
		{ TP_SOFTIRQ_ENTRY, "irq:softirq_entry", "timeouts not told apart from softirq work" },
		{ TP_SK_READY, "sock:sk_data_ready", "network links disabled" },
		{ TP_SOCK_SEND, "sock:sock_send_length", "network senders unknown" },
		{ TP_SOCK_STATE, "sock:inet_sock_set_state", "socket addresses and peers unknown" },
	};

	for (size_t i = 0; i < rsp_reader_n_attrs(t->reader); i++) {
		block_recorded |= t->dec[i].kind == TP_BLK_COMPLETE;
		have[t->dec[i].kind] = true;
		sampler |= t->dec[i].is_sampler;
	}
	for (size_t i = 0; i < sizeof(uses) / sizeof(uses[0]); i++)
		if (!have[uses[i].kind])
			trace_warn(t, "%s was not recorded: %s", uses[i].name, uses[i].cost);
	if (!sampler)
		trace_warn(t, "no CPU samples (cpu-clock): CPU time is not split by function");
	if (!block_recorded)
		trace_warn(t, "block:block_rq_complete was not recorded: disk waits are not linked");
	else if (issued >= 20 && done * 10 < issued * 9)
		trace_warn(t,
			   "block:block_rq_complete: %llu completions for %llu issued requests: "
			   "completions on idle CPUs were dropped (perf's loss on this kernel; "
			   "rsp record keeps them); disk waits are partly unlinked",
			   (unsigned long long)done, (unsigned long long)issued);
	if (t->n_wakeups >= 50 && t->n_wakeups_unlinked * 10 > t->n_wakeups)
		trace_warn(t,
			   "%llu of %llu wakeups have no recorded waking (interrupt-context "
			   "sched_waking lost, e.g. perf on an idle CPU): their causes are unknown",
			   (unsigned long long)t->n_wakeups_unlinked,
			   (unsigned long long)t->n_wakeups);
}

static int trace_open_common(struct rsp_trace *t, const struct rsp_trace_opts *o, uint64_t size,
			     char *err, size_t errlen)
{
	int ret = stacks_init(&t->stacks);

	if (ret)
		return ret;
	ret = load(t, o, size, err, errlen);
	if (ret)
		return ret;
	if (o && o->warn)
		for (size_t i = 0; i < t->warnings.n; i++)
			o->warn(t->warnings.v[i], o->warn_ctx);
	return 0;
}

int rsp_trace_open(const char *path, const struct rsp_trace_opts *o, struct rsp_trace **out,
		   char *err, size_t errlen)
{
	struct rsp_trace *t = calloc(1, sizeof(*t));
	int ret;

	*out = NULL;
	if (!t)
		return -ENOMEM;
	ret = rsp_reader_open(path, &t->reader, err, errlen);
	if (!ret) {
		struct stat st;

		ret = trace_open_common(t, o, stat(path, &st) == 0 ? (uint64_t)st.st_size : 0, err,
					errlen);
	}
	if (ret) {
		rsp_trace_free(t);
		return ret;
	}
	*out = t;
	return 0;
}

int rsp_trace_open_mem(const void *buf, size_t len, const struct rsp_trace_opts *o,
		       struct rsp_trace **out, char *err, size_t errlen)
{
	struct rsp_trace *t = calloc(1, sizeof(*t));
	int ret;

	*out = NULL;
	if (!t)
		return -ENOMEM;
	ret = rsp_reader_open_mem(buf, len, &t->reader, err, errlen);
	if (!ret)
		ret = trace_open_common(t, o, len, err, errlen);
	if (ret) {
		rsp_trace_free(t);
		return ret;
	}
	*out = t;
	return 0;
}

void rsp_trace_free(struct rsp_trace *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->threads.n; i++) {
		vec_free(&t->threads.v[i].slices);
		vec_free(&t->threads.v[i].samples);
	}
	vec_free(&t->threads);
	free(t->tid_ht);
	vec_free(&t->links);
	vec_free(&t->ios);
	vec_free(&t->socks);
	vec_free(&t->nets);
	vec_free(&t->lost);
	vec_free(&t->irqs);
	vec_free(&t->counts);
	for (size_t i = 0; i < t->warnings.n; i++)
		free(t->warnings.v[i]);
	vec_free(&t->warnings);
	vec_free(&t->strtab);
	free(t->str_ht);
	stacks_free(&t->stacks);
	rsp_sym_free(t->sym);
	free(t->dec);
	rsp_tracedata_clear(&t->td);
	rsp_reader_free(t->reader);
	free(t);
}
