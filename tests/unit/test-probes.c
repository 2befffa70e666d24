/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The event-set parser: the built-in set, and every kind of bad line. */
#include "rsp-probes.h"
#include "tap.h"

static void builtin_set(void)
{
	struct rsp_probe_set set;
	char err[256];
	const struct rsp_probe *p;
	size_t alts = 0, ftrace = 0;
	int ret = rsp_probe_set_parse(&set, rsp_probes_builtin_text, err, sizeof(err));

	CHECK(ret == 0, "built-in event set parses (%s)", err);
	p = rsp_probe_set_find(&set, "sched", "sched_switch");
	CHECK(p && p->source == RSP_SOURCE_PERF && p->stack == RSP_STACK_SLEEP && p->required,
	      "sched_switch: perf, sleep stack, required");
	p = rsp_probe_set_find(&set, "sched", "sched_waking");
	CHECK(p && p->source == RSP_SOURCE_BOTH && p->stack == RSP_STACK_WAKER,
	      "sched_waking: perf for the waker stack and ftrace for completeness");
	p = rsp_probe_set_find(&set, "block", "block_rq_complete");
	CHECK(p && p->source == RSP_SOURCE_FTRACE && p->stack == RSP_STACK_NONE && !p->required,
	      "block_rq_complete: ftrace, no stack, optional");
	p = rsp_probe_set_find(&set, "sock", "sk_data_ready");
	CHECK(p && p->missing && !strcmp(p->missing, "network links disabled"),
	      "sk_data_ready says what is lost without it");
	CHECK(p && p->n_alts == 2 && p->alts[0].kind == RSP_ALT_KPROBE &&
		      !strcmp(p->alts[0].group, "rsp") &&
		      !strcmp(p->alts[0].name, "tcp_rcv_established") &&
		      !strcmp(p->alts[0].definition, "tcp_rcv_established skaddr=%di:u64"),
	      "sk_data_ready has its kprobe alternatives, definition intact");
	p = rsp_probe_set_find(&set, "sched", "sched_stat_runtime");
	CHECK(p && p->source == RSP_SOURCE_FTRACE && !p->required && p->no_count,
	      "sched_stat_runtime: ftrace, optional, no kernel count (its counter sums ns)");
	p = rsp_probe_set_find(&set, "sched", "sched_waking");
	CHECK(p && !p->no_count, "sched_waking is counted");
	p = rsp_probe_set_find(&set, "", "cpu-clock");
	CHECK(p && p->feature == RSP_FEATURE_SAMPLING && p->stack == RSP_STACK_SAMPLE,
	      "cpu-clock is the sampler");
	for (size_t i = 0; i < set.n; i++) {
		alts += set.probes[i].n_alts;
		ftrace += !!(set.probes[i].source & RSP_SOURCE_FTRACE);
		/* nothing fired in interrupt context may come from perf alone */
		if (set.probes[i].feature == RSP_FEATURE_BLOCK ||
		    set.probes[i].feature == RSP_FEATURE_IRQ)
			CHECK(set.probes[i].source & RSP_SOURCE_FTRACE, "%s:%s comes from ftrace",
			      set.probes[i].system, set.probes[i].name);
	}
	CHECK_EQ_U64(alts, 4, "kprobe alternatives");
	CHECK(ftrace >= 12, "most events come from ftrace (%zu)", ftrace);
	rsp_probe_set_clear(&set);
}

static void bad(const char *text, const char *want)
{
	struct rsp_probe_set set;
	char err[256];
	int ret = rsp_probe_set_parse(&set, text, err, sizeof(err));

	CHECK(ret < 0 && strstr(err, want), "rejects with '%s' (got '%s')", want, err);
	CHECK(set.n == 0 && set.probes == NULL, "nothing left after an error");
}

/* each malformed set refused with its line and reason */
static void refused(void)
{
	bad("sched sched:sched_switch perf sleep\n", "line 1: expected");
	bad("# c\nfoo sched:x perf none required\n", "line 2: unknown feature 'foo'");
	bad("sched sched_switch perf none required\n", "bad event 'sched_switch'");
	bad("sched sched:x smoke none required\n", "unknown source 'smoke'");
	bad("sched sched:x ftrace sleep required\n", "wants a stack, which only a perf source");
	bad("sched sched:x perf none maybe\n", "need 'maybe'");
	bad("sampling cpu-clock ftrace none required\n", "cpu-clock can only come from perf");
	bad("sched sched:x ftrace none optional,often\n", "unknown need option 'often'");
	bad("sched sched:x ftrace none sometimes,nocount\n", "need 'sometimes'");
	bad("sched sched:x perf none required\nsched sched:x perf none required\n",
	    "line 2: sched:x is listed twice");
	bad("alt sched:x kprobe rsp/y f a=%di\n", "not listed above");
	bad("sched sched:x perf none required\nalt sched:x kprobe noslash f a=%di\n",
	    "is not GROUP/NAME");
	bad("sched sched:x perf none required\nalt sched:x fprobe r/y f a=%di\n",
	    "not kprobe or uprobe");
	bad("# only comments\n\n", "no events listed");
}

/* a message is the rest of its line, trimmed */
static void message(void)
{
	struct rsp_probe_set set;
	char err[128];

	CHECK(rsp_probe_set_parse(&set, "net sock:x ftrace none optional  peers  unknown  \n", err,
				  sizeof(err)) == 0 &&
		      !strcmp(set.probes[0].missing, "peers  unknown"),
	      "message is the rest of the line, trimmed");
	rsp_probe_set_clear(&set);
}

int main(int argc, char **argv)
{
	tap_init(argc, argv);
	TAP_RUN("builtin_set", builtin_set());
	TAP_RUN("refused", refused());
	TAP_RUN("message", message());
	return tap_done();
}
