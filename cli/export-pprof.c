/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rsp export --pprof: pprof's profile.proto (cli/pprof/profile.proto), gzipped,
 * as pprof, Pyroscope and Parca read it.  The stacks are the folded exports'
 * (rsp_folded_walk(): cpu, hotcold and pseudo), kept apart by thread:
 *
 *   samples/count      CPU samples (= --folded cpu)
 *   cpu/nanoseconds    on-CPU time: each run's time divided among its samples,
 *                      or a sample's period where scheduling was not recorded
 *                      (label cpu=estimated) (= --folded hotcold's [on-cpu...])
 *   offcpu/nanoseconds the threads' waits by sleep stack (= --folded offcpu)
 *   pseudo/nanoseconds rsp's cross-process pseudostacks (= --folded pseudo)
 *
 * Each sample carries the labels pid, tid, comm (the thread's name, the folded
 * stacks' first frame) and process (its process's name).  A frame of a recorded
 * stack is a location in its file's mapping at its address in the file; other
 * frames ("[no stack]", "[unsampled]", the pseudostacks' nodes) are locations of
 * no mapping.  Encoded by protobuf-c, compressed by zlib.
 */
#include "export.h"

#include "rsp-folded.h"
#include "profile.pb-c.h"
#include "rsp-strmap.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

enum { V_SAMPLES, V_CPU, V_OFFCPU, V_PSEUDO, N_VALUES };

/* ---- a string -> id map ----------------------------------------------------------------- */

/*
 * The id of @key, or @val added under it (*added).  -ENOMEM.  The ids are
 * counts of distinct strings, locations or samples, each held in memory: far
 * below UINT32_MAX.
 */
static int smap_get_or_add(struct rsp_strmap *m, const char *key, uint64_t val, uint64_t *out,
                           bool *added)
{
	uint32_t v;

	if (val >= UINT32_MAX || rsp_strmap_get_or_add(m, key, (uint32_t)val, &v, added))
		return -ENOMEM;
	*out = v;
	return 0;
}

/* ---- the profile's tables ----------------------------------------------------------------- */

struct psample {
	uint64_t *locs; /* leaf first */
	size_t n_locs;
	size_t thread;
	bool estimated;
	int64_t v[N_VALUES];
};

struct pmapping {
	int64_t filename;
	uint64_t limit;
	uint64_t frames; /* frames of the entries in it */
};

struct plocation {
	uint64_t mapping, address, function;
};

struct pfunction {
	int64_t name, filename;
};

struct pp {
	struct rsp_trace *t;
	struct rsp_strmap strs, funcs, maps, locs, samples;
	char **strtab;
	size_t n_strs, cap_strs;
	struct pfunction *fv;
	size_t n_f, cap_f;
	struct pmapping *mv;
	size_t n_m, cap_m;
	struct plocation *lv;
	size_t n_l, cap_l;
	struct psample *sv;
	size_t n_s, cap_s;
	uint64_t *ids; /* the entry's locations */
	size_t cap_ids;
	char *key;
	size_t cap_key;
};

static int reserve(void **v, size_t *cap, size_t n, size_t size)
{
	size_t nc = *cap ? *cap * 2 : 64;
	void *g;

	if (n < *cap)
		return 0;
	while (nc <= n)
		nc *= 2;
	g = realloc(*v, nc * size);
	if (!g)
		return -ENOMEM;
	*v = g;
	*cap = nc;
	return 0;
}

#define RESERVE(p, arr, n, cap) reserve((void **)&(p)->arr, &(p)->cap, (p)->n, sizeof(*(p)->arr))

/* the string's index in the string table; -1 on ENOMEM */
static int64_t str(struct pp *p, const char *s)
{
	uint64_t idx;
	bool added;

	if (smap_get_or_add(&p->strs, s, p->n_strs, &idx, &added))
		return -1;
	if (added) {
		if (RESERVE(p, strtab, n_strs, cap_strs))
			return -1;
		p->strtab[p->n_strs] = strdup(s);
		if (!p->strtab[p->n_strs])
			return -1;
		p->n_strs++;
	}
	return (int64_t)idx;
}

/* the key buffer, printf-style */
static const char *key(struct pp *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static const char *key(struct pp *p, const char *fmt, ...)
{
	va_list ap;
	char *g;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(p->key, p->cap_key, fmt, ap);
		va_end(ap);
		if (n < 0)
			return NULL;
		if ((size_t)n < p->cap_key)
			return p->key;
		g = realloc(p->key, (size_t)n + 1);
		if (!g)
			return NULL;
		p->key = g;
		p->cap_key = (size_t)n + 1;
	}
}

static int function_id(struct pp *p, const char *name, const char *file, uint64_t *id)
{
	const char *k = key(p, "%s\x1f%s", name, file ? file : "");
	bool added;

	if (!k || smap_get_or_add(&p->funcs, k, p->n_f + 1, id, &added))
		return -ENOMEM;
	if (!added)
		return 0;
	if (RESERVE(p, fv, n_f, cap_f))
		return -ENOMEM;
	p->fv[p->n_f].name = str(p, name);
	p->fv[p->n_f].filename = file ? str(p, file) : 0;
	if (p->fv[p->n_f].name < 0 || p->fv[p->n_f].filename < 0)
		return -ENOMEM;
	p->n_f++;
	return 0;
}

static int mapping_id(struct pp *p, const char *dso, uint64_t addr, uint64_t *id)
{
	bool added;

	if (smap_get_or_add(&p->maps, dso, p->n_m + 1, id, &added))
		return -ENOMEM;
	if (added) {
		if (RESERVE(p, mv, n_m, cap_m))
			return -ENOMEM;
		p->mv[p->n_m].filename = str(p, dso);
		p->mv[p->n_m].limit = 0;
		p->mv[p->n_m].frames = 0;
		if (p->mv[p->n_m].filename < 0)
			return -ENOMEM;
		p->n_m++;
	}
	if (addr + 1 > p->mv[*id - 1].limit)
		p->mv[*id - 1].limit = addr + 1;
	return 0;
}

/* A frame's location: in its file at its address, or a name of no mapping. */
static int location_id(struct pp *p, const struct rsp_folded_frame *fr, uint64_t *id)
{
	const struct rsp_named_frame *nf = fr->kind == RSP_FOLDED_FRAME_STACK ? fr->nf : NULL;
	bool mapped = nf && nf->dso && *nf->dso && strcmp(nf->dso, "[unknown]");
	uint64_t map = 0, func, addr = nf ? nf->rel_addr : 0;
	const char *k;
	bool added;

	if (mapped && mapping_id(p, nf->dso, addr, &map))
		return -ENOMEM;
	k = key(p, "%" PRIu64 ":%" PRIx64 ":%s", map, addr, fr->name);
	if (!k || smap_get_or_add(&p->locs, k, p->n_l + 1, id, &added))
		return -ENOMEM;
	if (!added)
		return 0;
	if (function_id(p, fr->name, mapped ? nf->dso : NULL, &func) || RESERVE(p, lv, n_l, cap_l))
		return -ENOMEM;
	p->lv[p->n_l++] = (struct plocation){ .mapping = map, .address = addr, .function = func };
	return 0;
}

static int visit(const struct rsp_folded_entry *e, void *ctx)
{
	struct pp *p = ctx;
	bool estimated = e->part == RSP_FOLDED_PART_ON_CPU_ESTIMATED;
	size_t n = 0, klen;
	uint64_t idx;
	bool added;
	int vi;

	switch (e->part) {
	case RSP_FOLDED_PART_SAMPLE:
		vi = V_SAMPLES;
		break;
	case RSP_FOLDED_PART_ON_CPU:
	case RSP_FOLDED_PART_ON_CPU_ESTIMATED:
		vi = V_CPU;
		break;
	case RSP_FOLDED_PART_OFF_CPU:
		vi = V_OFFCPU;
		break;
	case RSP_FOLDED_PART_PSEUDO:
	default:
		vi = V_PSEUDO;
		break;
	}
	/* the leaf first; the thread's name is a label, the part a sample type */
	for (size_t i = e->n_frames; i-- > 0;) {
		const struct rsp_folded_frame *fr = &e->frames[i];

		if (fr->kind == RSP_FOLDED_FRAME_THREAD || fr->kind == RSP_FOLDED_FRAME_PART)
			continue;
		if (reserve((void **)&p->ids, &p->cap_ids, n, sizeof(*p->ids)) ||
		    location_id(p, fr, &p->ids[n]))
			return -ENOMEM;
		n++;
	}
	/* samples of the same thread, stack and kind of CPU time are one */
	if (!key(p, "%zu:%d:", e->thread, (int)estimated))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		klen = strlen(p->key);
		if (reserve((void **)&p->key, &p->cap_key, klen + 22, 1))
			return -ENOMEM;
		snprintf(p->key + klen, p->cap_key - klen, "%" PRIx64 ",", p->ids[i]);
	}
	if (smap_get_or_add(&p->samples, p->key, p->n_s, &idx, &added))
		return -ENOMEM;
	if (added) {
		struct psample s = { .n_locs = n, .thread = e->thread, .estimated = estimated };

		if (RESERVE(p, sv, n_s, cap_s))
			return -ENOMEM;
		if (n) {
			s.locs = malloc(n * sizeof(*s.locs));
			if (!s.locs)
				return -ENOMEM;
			memcpy(s.locs, p->ids, n * sizeof(*s.locs));
		}
		p->sv[p->n_s++] = s;
	}
	p->sv[idx].v[vi] += (int64_t)e->value;
	for (size_t i = 0; i < n; i++) {
		uint64_t m = p->lv[p->ids[i] - 1].mapping;

		if (m)
			p->mv[m - 1].frames++;
	}
	return 0;
}

static void pp_free(struct pp *p)
{
	rsp_strmap_free(&p->strs);
	rsp_strmap_free(&p->funcs);
	rsp_strmap_free(&p->maps);
	rsp_strmap_free(&p->locs);
	rsp_strmap_free(&p->samples);
	for (size_t i = 0; i < p->n_strs; i++)
		free(p->strtab[i]);
	free(p->strtab);
	free(p->fv);
	free(p->mv);
	free(p->lv);
	for (size_t i = 0; i < p->n_s; i++)
		free(p->sv[i].locs);
	free(p->sv);
	free(p->ids);
	free(p->key);
}

/* ---- encoding ------------------------------------------------------------------------------ */

#define N_LABELS 5

struct enc {
	Perftools__Profiles__Profile prof;
	Perftools__Profiles__ValueType vt[N_VALUES + 1], *vtp[N_VALUES];
	Perftools__Profiles__Sample *s, **sp;
	Perftools__Profiles__Label *lab, **labp; /* N_LABELS per sample */
	Perftools__Profiles__Mapping *m, **mp;
	Perftools__Profiles__Location *l, **lp;
	Perftools__Profiles__Line *ln, **lnp;
	Perftools__Profiles__Function *f, **fp;
	int64_t comment[3];
};

static void enc_free(struct enc *e)
{
	free(e->s);
	free(e->sp);
	free(e->lab);
	free(e->labp);
	free(e->m);
	free(e->mp);
	free(e->l);
	free(e->lp);
	free(e->ln);
	free(e->lnp);
	free(e->f);
	free(e->fp);
}

/* the thread's labels into @l (N_LABELS at most); how many; -1 on ENOMEM */
static int thread_labels(struct pp *p, const struct psample *s, Perftools__Profiles__Label *l)
{
	struct rsp_thread_info ti, leader;
	size_t lt;
	int n = 0;

	if (s->estimated) {
		perftools__profiles__label__init(&l[n]);
		l[n].key = str(p, "cpu");
		l[n++].str = str(p, "estimated");
	}
	if (s->thread != RSP_NO_INDEX && s->thread < rsp_trace_n_threads(p->t)) {
		rsp_trace_thread(p->t, s->thread, &ti);
		perftools__profiles__label__init(&l[n]);
		l[n].key = str(p, "pid");
		l[n++].num = ti.pid;
		perftools__profiles__label__init(&l[n]);
		l[n].key = str(p, "tid");
		l[n++].num = ti.tid;
		perftools__profiles__label__init(&l[n]);
		l[n].key = str(p, "comm");
		l[n++].str = str(p, ti.comm && *ti.comm ? ti.comm : "[unknown]");
		lt =
		    ti.pid == ti.tid ? s->thread : rsp_trace_find_thread(p->t, ti.pid, ti.birth_ns);
		if (lt != RSP_NO_INDEX) {
			rsp_trace_thread(p->t, lt, &leader);
			perftools__profiles__label__init(&l[n]);
			l[n].key = str(p, "process");
			l[n++].str =
			    str(p, leader.comm && *leader.comm ? leader.comm : "[unknown]");
		}
	}
	for (int i = 0; i < n; i++)
		if (l[i].key < 0 || l[i].str < 0)
			return -1;
	return n;
}

/* a program rather than a shared library or a pseudo-file ("[kernel.kallsyms]") */
static bool is_executable(const struct pp *p, const struct pmapping *m)
{
	const char *f = p->strtab[m->filename], *base = strrchr(f, '/');

	base = base ? base + 1 : f;
	return f[0] != '[' && !strstr(base, ".so.") &&
	       !(strlen(base) > 3 && !strcmp(base + strlen(base) - 3, ".so"));
}

static int encode(struct pp *p, struct enc *e, const char *source, bool have_pseudo)
{
	static const char *const types[N_VALUES][2] = {
		{ "samples", "count" },
		{ "cpu", "nanoseconds" },
		{ "offcpu", "nanoseconds" },
		{ "pseudo", "nanoseconds" },
	};
	struct rsp_trace_summary sum;
	char buf[600];
	size_t n_lines = p->n_l;

	perftools__profiles__profile__init(&e->prof);
	for (int i = 0; i < N_VALUES; i++) {
		perftools__profiles__value_type__init(&e->vt[i]);
		e->vt[i].type = str(p, types[i][0]);
		e->vt[i].unit = str(p, types[i][1]);
		e->vtp[i] = &e->vt[i];
	}
	e->prof.n_sample_type = N_VALUES;
	e->prof.sample_type = e->vtp;
	e->prof.default_sample_type = str(p, "cpu");
	perftools__profiles__value_type__init(&e->vt[N_VALUES]);
	e->vt[N_VALUES].type = str(p, "cpu");
	e->vt[N_VALUES].unit = str(p, "nanoseconds");
	e->prof.period_type = &e->vt[N_VALUES];

	rsp_trace_get_summary(p->t, &sum);
	e->prof.time_nanos = (int64_t)sum.wall_start_ns;
	if (sum.end_ns > sum.start_ns)
		e->prof.duration_nanos = (int64_t)(sum.end_ns - sum.start_ns);
	snprintf(buf, sizeof(buf), "rsp export --pprof of %s", source ? source : "a trace");
	e->comment[0] = str(p, buf);
	e->comment[1] =
	    str(p, "samples: CPU samples; cpu: on-CPU time, each run's time divided "
	           "among its samples (label cpu=estimated: a sample's period, scheduling "
	           "not recorded); offcpu: time asleep by sleep stack; pseudo: rsp's "
	           "cross-process pseudostacks of the target");
	e->comment[2] = str(p, have_pseudo ? "pseudo: the target's analysis"
	                                   : "pseudo: empty, no target to analyze (give --target)");
	e->prof.n_comment = 3;
	e->prof.comment = e->comment;

	e->s = calloc(p->n_s + 1, sizeof(*e->s));
	e->sp = calloc(p->n_s + 1, sizeof(*e->sp));
	e->lab = calloc((p->n_s + 1) * N_LABELS, sizeof(*e->lab));
	e->labp = calloc((p->n_s + 1) * N_LABELS, sizeof(*e->labp));
	e->m = calloc(p->n_m + 1, sizeof(*e->m));
	e->mp = calloc(p->n_m + 1, sizeof(*e->mp));
	e->l = calloc(p->n_l + 1, sizeof(*e->l));
	e->lp = calloc(p->n_l + 1, sizeof(*e->lp));
	e->ln = calloc(n_lines + 1, sizeof(*e->ln));
	e->lnp = calloc(n_lines + 1, sizeof(*e->lnp));
	e->f = calloc(p->n_f + 1, sizeof(*e->f));
	e->fp = calloc(p->n_f + 1, sizeof(*e->fp));
	if (!e->s || !e->sp || !e->lab || !e->labp || !e->m || !e->mp || !e->l || !e->lp ||
	    !e->ln || !e->lnp || !e->f || !e->fp)
		return -ENOMEM;

	for (size_t i = 0; i < p->n_s; i++) {
		Perftools__Profiles__Sample *s = &e->s[i];
		Perftools__Profiles__Label *l = &e->lab[i * N_LABELS];
		int nl;

		perftools__profiles__sample__init(s);
		s->n_location_id = p->sv[i].n_locs;
		s->location_id = p->sv[i].locs;
		s->n_value = N_VALUES;
		s->value = p->sv[i].v;
		nl = thread_labels(p, &p->sv[i], l);
		if (nl < 0)
			return -ENOMEM;
		for (int k = 0; k < nl; k++)
			e->labp[i * N_LABELS + k] = &l[k];
		s->n_label = (size_t)nl;
		s->label = &e->labp[i * N_LABELS];
		e->sp[i] = s;
	}
	e->prof.n_sample = p->n_s;
	e->prof.sample = e->sp;

	for (size_t i = 0; i < p->n_m; i++) {
		Perftools__Profiles__Mapping *m = &e->m[i];

		perftools__profiles__mapping__init(m);
		m->id = i + 1;
		m->memory_start = 0;
		m->memory_limit = p->mv[i].limit;
		m->filename = p->mv[i].filename;
		m->has_functions = true; /* pprof must not symbolize again */
		e->mp[i] = m;
	}
	/* mapping[0] is the main binary: the executable (not a library, not "[...]") with the
	 * most frames; the ids stay as the locations have them */
	for (size_t i = 1; i < p->n_m; i++) {
		const struct pmapping *a = &p->mv[i], *b = &p->mv[e->mp[0]->id - 1];

		if (is_executable(p, a) > is_executable(p, b) ||
		    (is_executable(p, a) == is_executable(p, b) && a->frames > b->frames)) {
			Perftools__Profiles__Mapping *first = e->mp[0];

			e->mp[0] = e->mp[i];
			e->mp[i] = first;
		}
	}
	e->prof.n_mapping = p->n_m;
	e->prof.mapping = e->mp;

	for (size_t i = 0; i < p->n_l; i++) {
		Perftools__Profiles__Location *l = &e->l[i];

		perftools__profiles__location__init(l);
		perftools__profiles__line__init(&e->ln[i]);
		e->ln[i].function_id = p->lv[i].function;
		e->lnp[i] = &e->ln[i];
		l->id = i + 1;
		l->mapping_id = p->lv[i].mapping;
		l->address = p->lv[i].address;
		l->n_line = 1;
		l->line = &e->lnp[i];
		e->lp[i] = l;
	}
	e->prof.n_location = p->n_l;
	e->prof.location = e->lp;

	for (size_t i = 0; i < p->n_f; i++) {
		Perftools__Profiles__Function *f = &e->f[i];

		perftools__profiles__function__init(f);
		f->id = i + 1;
		f->name = f->system_name = p->fv[i].name;
		f->filename = p->fv[i].filename;
		e->fp[i] = f;
	}
	e->prof.n_function = p->n_f;
	e->prof.function = e->fp;

	/* the last strings are in: the table can be taken */
	for (int i = 0; i < 3; i++)
		if (e->comment[i] < 0)
			return -ENOMEM;
	for (int i = 0; i <= N_VALUES; i++)
		if (e->vt[i].type < 0 || e->vt[i].unit < 0)
			return -ENOMEM;
	if (e->prof.default_sample_type < 0)
		return -ENOMEM;
	e->prof.n_string_table = p->n_strs;
	e->prof.string_table = p->strtab;
	return 0;
}

/* @len bytes, gzipped, to @f; -errno (a write error is @f's to tell) */
static int write_gzip(FILE *f, const uint8_t *data, size_t len)
{
	z_stream z = { 0 };
	uint8_t out[65536];
	int zr;

	/* 15 + 16: a gzip header and trailer; no name, time 0: the same bytes every time */
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK)
		return -ENOMEM;
	z.next_in = (Bytef *)data;
	z.avail_in = 0;
	do {
		size_t chunk = len > (1u << 30) ? (1u << 30) : len;

		if (!z.avail_in && len) {
			z.avail_in = (uInt)chunk;
			len -= chunk;
		}
		z.next_out = out;
		z.avail_out = sizeof(out);
		zr = deflate(&z, len || z.avail_in ? Z_NO_FLUSH : Z_FINISH);
		if (zr == Z_STREAM_ERROR) {
			deflateEnd(&z);
			return -EIO;
		}
		if (fwrite(out, 1, sizeof(out) - z.avail_out, f) != sizeof(out) - z.avail_out) {
			deflateEnd(&z);
			return -EIO;
		}
	} while (zr != Z_STREAM_END);
	deflateEnd(&z);
	return 0;
}

int rsp_export_pprof(FILE *f, struct rsp_trace *t, struct rsp_analysis *a,
                     const struct rsp_thread_filter *threads, const char *source, char *err,
                     size_t errlen)
{
	static const enum rsp_folded_kind kinds[] = { RSP_FOLDED_CPU, RSP_FOLDED_HOTCOLD,
						      RSP_FOLDED_PSEUDO };
	struct rsp_folded_opts fo = { .threads = *threads };
	struct pp p = { .t = t };
	struct enc e = { 0 };
	uint8_t *packed = NULL;
	size_t len;
	int ret = 0;

	if (str(&p, "") != 0) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]) && !ret; k++) {
		enum rsp_folded_kind kind = kinds[k];

		if (kind == RSP_FOLDED_PSEUDO && !a)
			continue;
		/* hotcold: the on-CPU part and the off-CPU one (offcpu's sleeps) */
		ret = rsp_folded_walk(t, a, kind, &fo, visit, &p, err, errlen);
	}
	if (ret)
		goto out;
	if ((ret = encode(&p, &e, source, a != NULL)))
		goto out;
	len = perftools__profiles__profile__get_packed_size(&e.prof);
	packed = malloc(len ? len : 1);
	if (!packed) {
		ret = -ENOMEM;
		goto out;
	}
	if (perftools__profiles__profile__pack(&e.prof, packed) != len) {
		snprintf(err, errlen, "the profile's encoding came out short");
		ret = -EIO;
		goto out;
	}
	ret = write_gzip(f, packed, len);
	if (ret == -EIO)
		ret = 0; /* the output names the file and the reason at commit */
out:
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory building the profile");
	free(packed);
	enc_free(&e);
	pp_free(&p);
	return ret;
}
