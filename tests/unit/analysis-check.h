/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared by the tests of model/analysis/ (test-analysis-*.c, one per file of
 * it): a synthetic stream opened, analysed, and its explanation table checked
 * against an exact expected answer.  Every table is also checked for the
 * invariants: no category negative, categories summing to the total exactly;
 * every analysis is done again as a summary (rsp report's: no tree kept),
 * which must give the same table.  Static inline, as tap.h: each test binary
 * counts its own CHECKs.
 */
#ifndef RSP_TEST_ANALYSIS_CHECK_H
#define RSP_TEST_ANALYSIS_CHECK_H

#include "analysis/analysis-private.h"
#include "rsp-analysis.h"
#include "rsp-folded.h"
#include "synth-perf.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

#define US(x) (1000000000ull + (uint64_t)(x) * 1000ull)
#define NS(us) ((uint64_t)(us) * 1000ull)
#define S_INT 1
#define S_UNINT 2
#define S_DEAD 0x10

struct expect {
	enum rsp_category cat;
	uint64_t us;
};

/* @symbols: names from the kallsyms the stream carries */
static inline struct rsp_trace *open_synth_sym(struct synth *s, bool symbols)
{
	struct rsp_trace_opts o = { .no_symbols = !symbols };
	struct rsp_trace *t = NULL;
	char err[256];
	size_t len;
	const void *buf = synth_finish(s, &len);

	if (rsp_trace_open_mem(buf, len, &o, &t, err, sizeof(err))) {
		CHECK(0, "open: %s", err);
		return NULL;
	}
	return t;
}

static inline struct rsp_trace *open_synth(struct synth *s)
{
	return open_synth_sym(s, false);
}

/*
 * The summary (rsp report's: no tree kept) gives the same table as the whole
 * analysis: every total, path and contributor.
 */
static inline void check_summary(struct rsp_trace *t, int pid, const struct rsp_analysis_opts *o,
			  const struct rsp_analysis *full)
{
	struct rsp_analysis_opts so = *o;
	struct rsp_analysis *a = NULL;
	struct rsp_explanation ef, es;
	char err[256];
	bool same;

	so.summary = true;
	if (rsp_analyze(t, &pid, 1, 0, &so, &a, err, sizeof(err))) {
		CHECK(0, "summary: %s", err);
		return;
	}
	rsp_analysis_explanation(full, &ef);
	rsp_analysis_explanation(a, &es);
	same = !memcmp(&ef, &es, sizeof(ef)) && rsp_analysis_n_nodes(a) == 0 &&
	       rsp_analysis_n_paths(a) == rsp_analysis_n_paths(full);
	for (size_t p = 0; same && p < rsp_analysis_n_paths(a); p++) {
		rsp_analysis_path_explanation(full, p, &ef);
		rsp_analysis_path_explanation(a, p, &es);
		same = !memcmp(&ef, &es, sizeof(ef));
	}
	for (int c = 0; same && c < RSP_CAT__COUNT; c++) {
		same = rsp_analysis_n_contributors(a, (enum rsp_category)c) ==
		       rsp_analysis_n_contributors(full, (enum rsp_category)c);
		for (size_t i = 0; same && i < rsp_analysis_n_contributors(a, (enum rsp_category)c);
		     i++) {
			struct rsp_contributor x, y;

			rsp_analysis_contributor(full, (enum rsp_category)c, i, &x);
			rsp_analysis_contributor(a, (enum rsp_category)c, i, &y);
			same = x.ns == y.ns && x.count == y.count &&
			       x.ns_estimated == y.ns_estimated && x.ns_inferred == y.ns_inferred &&
			       !strcmp(x.what ? x.what : "", y.what ? y.what : "");
		}
	}
	CHECK(same, "the summary (no tree) gives the same table");
	rsp_analysis_free(a);
}

static inline struct rsp_analysis *analyze(struct rsp_trace *t, int pid, uint64_t tol_us)
{
	struct rsp_analysis_opts o = { .tolerance_ns = NS(tol_us) };
	struct rsp_analysis *a = NULL;
	char err[256];

	if (rsp_analyze(t, &pid, 1, 0, &o, &a, err, sizeof(err))) {
		CHECK(0, "analyze: %s", err);
		return NULL;
	}
	check_summary(t, pid, &o, a);
	return a;
}

/* The table is exactly @want (all other categories 0), sums to @total_us. */
static inline void check_table(const struct rsp_analysis *a, const char *what, uint64_t total_us,
			const struct expect *want, size_t n)
{
	struct rsp_explanation e;
	uint64_t sum = 0;
	bool exact = true;
	char got[512];
	size_t off = 0;

	rsp_analysis_explanation(a, &e);
	for (int c = 0; c < RSP_CAT__COUNT; c++) {
		uint64_t expect = 0;

		for (size_t i = 0; i < n; i++)
			if (want[i].cat == c)
				expect = NS(want[i].us);
		exact &= e.cat_ns[c] == expect;
		sum += e.cat_ns[c];
		if (e.cat_ns[c])
			off += (size_t)snprintf(got + off, sizeof(got) - off, " %s=%.3f",
						rsp_category_key(c), e.cat_ns[c] / 1e3);
	}
	CHECK(e.total_ns == NS(total_us), "%s: total %.3f us, want %llu", what, e.total_ns / 1e3,
	      (unsigned long long)total_us);
	CHECK(sum == e.total_ns, "%s: categories sum to the total exactly", what);
	CHECK(exact, "%s: table is exact (got%s)", what, got);
}

static inline bool has_contributor(const struct rsp_analysis *a, enum rsp_category c, const char *a1,
			    const char *a2)
{
	for (size_t i = 0; i < rsp_analysis_n_contributors(a, c); i++) {
		struct rsp_contributor k;

		rsp_analysis_contributor(a, c, i, &k);
		if (strstr(k.what, a1) && (!a2 || strstr(k.what, a2)))
			return true;
	}
	return false;
}

/* The time of category @c's contributor named exactly @what (0: none), its
 * estimated and inferred parts in *@est and *@inf (unless NULL). */
static inline uint64_t contributor_ns(const struct rsp_analysis *a, enum rsp_category c, const char *what,
			       uint64_t *est, uint64_t *inf)
{
	uint64_t e = 0, f = 0, ns = 0;

	for (size_t i = 0; i < rsp_analysis_n_contributors(a, c); i++) {
		struct rsp_contributor k;

		rsp_analysis_contributor(a, c, i, &k);
		if (!strcmp(k.what, what)) {
			e = k.ns_estimated;
			f = k.ns_inferred;
			ns = k.ns;
			break;
		}
	}
	if (est)
		*est = e;
	if (inf)
		*inf = f;
	return ns;
}

/* a thread that existed before the trace (a thread's FORK names its own process) */
static inline void existing(struct synth *s, int pid, int tid, const char *comm)
{
	synth_fork(s, 0, pid, pid == tid ? 1 : pid, tid, pid == tid ? 1 : pid);
	synth_comm(s, 0, pid, tid, comm, false);
}

/* a kallsyms for the stacks of several tests: a function each 0x100 bytes */
#define SITES_KALLSYMS                                                                     \
	"ffffffff81000000 T __schedule\n"                                                  \
	"ffffffff81000100 T f_read\n"                                                      \
	"ffffffff81000200 T f_write\n"                                                     \
	"ffffffff81000300 T f_loop\n"                                                      \
	"ffffffff81000400 T f_work\n"                                                      \
	"ffffffff81000500 T f_poll\n"                                                      \
	"ffffffff81000600 T f_other\n"                                                     \
	"ffffffff81000700 T _etext\n"

#endif /* RSP_TEST_ANALYSIS_CHECK_H */
