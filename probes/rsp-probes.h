/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rsp's event set, read from probes/events.conf (compiled in) or a user file.
 * Plain C, no dependencies: the collector uses it to decide what to open and
 * the tests use it to check what a recording should hold.
 */
#ifndef RSP_PROBES_H
#define RSP_PROBES_H

#include <stdbool.h>
#include <stddef.h>

enum rsp_probe_feature {
	RSP_FEATURE_SCHED,
	RSP_FEATURE_BLOCK,
	RSP_FEATURE_IRQ,
	RSP_FEATURE_NET,
	RSP_FEATURE_SAMPLING,
	RSP_FEATURE__COUNT
};

enum rsp_probe_source {
	RSP_SOURCE_PERF = 1,
	RSP_SOURCE_FTRACE = 2,
	RSP_SOURCE_BOTH = RSP_SOURCE_PERF | RSP_SOURCE_FTRACE,
};

enum rsp_probe_stack {
	RSP_STACK_NONE,
	RSP_STACK_SLEEP,
	RSP_STACK_WAKER,
	RSP_STACK_FORK,
	RSP_STACK_SAMPLE,
};

enum rsp_probe_alt_kind {
	RSP_ALT_KPROBE,
	RSP_ALT_UPROBE,
};

/* A dynamic probe to create when the tracepoint it stands for is missing. */
struct rsp_probe_alt {
	enum rsp_probe_alt_kind kind;
	char group[32];
	char name[64];
	char *definition; /* "FUNCTION ARG=FETCH..." as tracefs takes it */
};

struct rsp_probe {
	enum rsp_probe_feature feature;
	char system[32]; /* "" for cpu-clock */
	char name[64];
	/* the source where rsp's BPF program cannot run (or --no-bpf) */
	enum rsp_probe_source source;
	bool bpf; /* "bpf/...": recorded by rsp's BPF program where it can */
	enum rsp_probe_stack stack;
	bool required;
	/* the kernel's counter of this tracepoint sums a field instead of counting
	 * (perf's __perf_count: sched_stat_runtime sums nanoseconds): no count */
	bool no_count;
	char *missing; /* what is lost without it; NULL if required */
	struct rsp_probe_alt *alts;
	size_t n_alts;
	int line; /* in the source file, for messages */
};

struct rsp_probe_set {
	struct rsp_probe *probes;
	size_t n;
};

/* The event set compiled into rsp (probes/events.conf). */
extern const char rsp_probes_builtin_text[];

/*
 * Parse @text.  On error returns -EINVAL and writes "line N: what is wrong"
 * into @err; @set is left empty.
 */
int rsp_probe_set_parse(struct rsp_probe_set *set, const char *text, char *err, size_t errlen);
void rsp_probe_set_clear(struct rsp_probe_set *set);

const char *rsp_probe_feature_name(enum rsp_probe_feature f);
const char *rsp_probe_source_name(enum rsp_probe_source s);
const char *rsp_probe_stack_name(enum rsp_probe_stack s);

/* "sched:sched_switch" or "cpu-clock" into @buf */
const char *rsp_probe_full_name(const struct rsp_probe *p, char *buf, size_t len);
bool rsp_probe_is_tracepoint(const struct rsp_probe *p);

/* NULL if absent */
const struct rsp_probe *rsp_probe_set_find(const struct rsp_probe_set *set, const char *system,
					   const char *name);

#endif /* RSP_PROBES_H */
