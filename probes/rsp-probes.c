/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Parser for rsp's event-set file (probes/events.conf). */
#include "rsp-probes.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const feature_names[RSP_FEATURE__COUNT] = {
	[RSP_FEATURE_SCHED] = "sched", [RSP_FEATURE_BLOCK] = "block", [RSP_FEATURE_IRQ] = "irq",
	[RSP_FEATURE_NET] = "net",     [RSP_FEATURE_SAMPLING] = "sampling",
};

static const char *const stack_names[] = {
	[RSP_STACK_NONE] = "none", [RSP_STACK_SLEEP] = "sleep", [RSP_STACK_WAKER] = "waker",
	[RSP_STACK_FORK] = "fork", [RSP_STACK_SAMPLE] = "sample",
};

const char *rsp_probe_feature_name(enum rsp_probe_feature f)
{
	return (unsigned)f < RSP_FEATURE__COUNT ? feature_names[f] : "?";
}

const char *rsp_probe_source_name(enum rsp_probe_source s)
{
	switch (s) {
	case RSP_SOURCE_PERF:
		return "perf";
	case RSP_SOURCE_FTRACE:
		return "ftrace";
	case RSP_SOURCE_BOTH:
		return "both";
	}
	return "?";
}

const char *rsp_probe_stack_name(enum rsp_probe_stack s)
{
	return (unsigned)s <= RSP_STACK_SAMPLE ? stack_names[s] : "?";
}

bool rsp_probe_is_tracepoint(const struct rsp_probe *p)
{
	return p->system[0] != '\0';
}

const char *rsp_probe_full_name(const struct rsp_probe *p, char *buf, size_t len)
{
	if (rsp_probe_is_tracepoint(p))
		snprintf(buf, len, "%s:%s", p->system, p->name);
	else
		snprintf(buf, len, "%s", p->name);
	return buf;
}

const struct rsp_probe *rsp_probe_set_find(const struct rsp_probe_set *set, const char *system,
					   const char *name)
{
	for (size_t i = 0; i < set->n; i++) {
		const struct rsp_probe *p = &set->probes[i];

		if (!strcmp(p->system, system) && !strcmp(p->name, name))
			return p;
	}
	return NULL;
}

static void probe_free(struct rsp_probe *p)
{
	free(p->missing);
	for (size_t i = 0; i < p->n_alts; i++)
		free(p->alts[i].definition);
	free(p->alts);
}

void rsp_probe_set_clear(struct rsp_probe_set *set)
{
	if (!set)
		return;
	for (size_t i = 0; i < set->n; i++)
		probe_free(&set->probes[i]);
	free(set->probes);
	set->probes = NULL;
	set->n = 0;
}

/* Split @line into at most @max blank-separated fields; the last takes the rest. */
static int split_fields(char *line, char **f, int max)
{
	int n = 0;
	char *p = line;

	while (n < max) {
		while (*p && isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		f[n++] = p;
		if (n == max)
			break;
		while (*p && !isspace((unsigned char)*p))
			p++;
		if (*p)
			*p++ = '\0';
	}
	if (n == max) { /* trim the rest-of-line field */
		char *e = f[n - 1] + strlen(f[n - 1]);

		while (e > f[n - 1] && isspace((unsigned char)e[-1]))
			*--e = '\0';
	}
	return n;
}

static int lookup(const char *const *names, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (names[i] && !strcmp(names[i], s))
			return i;
	return -1;
}

static int set_err(char *err, size_t errlen, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int set_err(char *err, size_t errlen, int line, const char *fmt, ...)
{
	va_list ap;
	int off;

	if (!err || !errlen)
		return -EINVAL;
	off = snprintf(err, errlen, "line %d: ", line);
	if (off < 0 || (size_t)off >= errlen)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(err + off, errlen - off, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int parse_event_name(const char *s, char *system, size_t slen, char *name, size_t nlen)
{
	const char *colon = strchr(s, ':');

	if (!colon) {
		if (strcmp(s, "cpu-clock"))
			return -1;
		system[0] = '\0';
		snprintf(name, nlen, "%s", s);
		return 0;
	}
	if (colon == s || !colon[1] || (size_t)(colon - s) >= slen || strlen(colon + 1) >= nlen)
		return -1;
	memcpy(system, s, colon - s);
	system[colon - s] = '\0';
	snprintf(name, nlen, "%s", colon + 1);
	return 0;
}

static int parse_alt(struct rsp_probe_set *set, char **f, int nf, int line, char *err,
		     size_t errlen)
{
	char system[32], name[64];
	struct rsp_probe *p = NULL;
	struct rsp_probe_alt *alt;
	const char *slash;

	if (nf < 5)
		return set_err(err, errlen, line,
			       "`alt` needs: alt FOR-EVENT kprobe|uprobe GROUP/NAME DEFINITION");
	if (parse_event_name(f[1], system, sizeof(system), name, sizeof(name)))
		return set_err(err, errlen, line, "bad event name '%s'", f[1]);
	for (size_t i = 0; i < set->n; i++)
		if (!strcmp(set->probes[i].system, system) && !strcmp(set->probes[i].name, name))
			p = &set->probes[i];
	if (!p)
		return set_err(err, errlen, line, "`alt` for '%s', which is not listed above", f[1]);
	slash = strchr(f[3], '/');
	if (!slash || slash == f[3] || !slash[1] || (size_t)(slash - f[3]) >= sizeof(alt->group) ||
	    strlen(slash + 1) >= sizeof(alt->name))
		return set_err(err, errlen, line, "probe name '%s' is not GROUP/NAME", f[3]);

	alt = realloc(p->alts, (p->n_alts + 1) * sizeof(*alt));
	if (!alt)
		return -ENOMEM;
	p->alts = alt;
	alt = &p->alts[p->n_alts];
	memset(alt, 0, sizeof(*alt));
	if (!strcmp(f[2], "kprobe"))
		alt->kind = RSP_ALT_KPROBE;
	else if (!strcmp(f[2], "uprobe"))
		alt->kind = RSP_ALT_UPROBE;
	else
		return set_err(err, errlen, line, "probe kind '%s' is not kprobe or uprobe", f[2]);
	memcpy(alt->group, f[3], slash - f[3]);
	alt->group[slash - f[3]] = '\0';
	snprintf(alt->name, sizeof(alt->name), "%s", slash + 1);
	alt->definition = strdup(f[4]);
	if (!alt->definition)
		return -ENOMEM;
	p->n_alts++;
	return 0;
}

static int parse_line(struct rsp_probe_set *set, char *text, int line, char *err, size_t errlen)
{
	char *f[6];
	const char *t = text + strspn(text, " \t\r");
	bool is_alt = !strncmp(t, "alt", 3) && (t[3] == ' ' || t[3] == '\t');
	/* an alt's definition, like a message, is the rest of the line */
	int nf = split_fields(text, f, is_alt ? 5 : 6);
	struct rsp_probe pr, *grown;
	int v;

	if (nf == 0)
		return 0;
	if (is_alt)
		return parse_alt(set, f, nf, line, err, errlen);

	memset(&pr, 0, sizeof(pr));
	pr.line = line;
	if (nf < 5)
		return set_err(err, errlen, line,
			       "expected: feature event source stack need [message], got %d fields",
			       nf);
	v = lookup(feature_names, RSP_FEATURE__COUNT, f[0]);
	if (v < 0)
		return set_err(err, errlen, line,
			       "unknown feature '%s' (sched, block, irq, net, sampling)", f[0]);
	pr.feature = v;
	if (parse_event_name(f[1], pr.system, sizeof(pr.system), pr.name, sizeof(pr.name)))
		return set_err(err, errlen, line,
			       "bad event '%s' (SYSTEM:NAME or cpu-clock)", f[1]);
	{
		/* "bpf/FALLBACK": rsp's BPF program, else the fallback */
		const char *src = f[2];

		if (!strncmp(src, "bpf/", 4)) {
			pr.bpf = true;
			src += 4;
		}
		if (!strcmp(src, "perf"))
			pr.source = RSP_SOURCE_PERF;
		else if (!strcmp(src, "ftrace"))
			pr.source = RSP_SOURCE_FTRACE;
		else if (!strcmp(src, "both"))
			pr.source = RSP_SOURCE_BOTH;
		else
			return set_err(err, errlen, line,
				       "unknown source '%s' (perf, ftrace, both, or bpf/ and one of them)",
				       f[2]);
		if (pr.bpf && (strcmp(pr.system, "sched") || (strcmp(pr.name, "sched_switch") &&
							     strcmp(pr.name, "sched_waking") &&
							     strcmp(pr.name, "sched_stat_runtime"))))
			return set_err(err, errlen, line,
				       "rsp's BPF program records sched:sched_switch, "
				       "sched:sched_waking and sched:sched_stat_runtime only, not %s",
				       f[1]);
	}
	if (!rsp_probe_is_tracepoint(&pr) && pr.source != RSP_SOURCE_PERF)
		return set_err(err, errlen, line, "%s can only come from perf", f[1]);
	v = lookup(stack_names, RSP_STACK_SAMPLE + 1, f[3]);
	if (v < 0)
		return set_err(err, errlen, line,
			       "unknown stack '%s' (none, sleep, waker, fork, sample)", f[3]);
	pr.stack = v;
	if (pr.stack != RSP_STACK_NONE && !(pr.source & RSP_SOURCE_PERF))
		return set_err(err, errlen, line,
			       "%s wants a stack, which only a perf source gives", f[1]);
	{
		/* "required" or "optional", then ",nocount" */
		char *opt = strchr(f[4], ',');

		if (opt) {
			*opt++ = '\0';
			if (strcmp(opt, "nocount"))
				return set_err(err, errlen, line,
					       "unknown need option '%s' (nocount)", opt);
			pr.no_count = true;
		}
	}
	if (!strcmp(f[4], "required"))
		pr.required = true;
	else if (!strcmp(f[4], "optional"))
		pr.required = false;
	else
		return set_err(err, errlen, line, "need '%s' is not required or optional", f[4]);
	if (!pr.required) {
		pr.missing = strdup(nf > 5 ? f[5] : "not recorded");
		if (!pr.missing)
			return -ENOMEM;
	}
	if (rsp_probe_set_find(set, pr.system, pr.name)) {
		free(pr.missing);
		return set_err(err, errlen, line, "%s is listed twice", f[1]);
	}
	grown = realloc(set->probes, (set->n + 1) * sizeof(*grown));
	if (!grown) {
		free(pr.missing);
		return -ENOMEM;
	}
	set->probes = grown;
	set->probes[set->n++] = pr;
	return 0;
}

int rsp_probe_set_parse(struct rsp_probe_set *set, const char *text, char *err, size_t errlen)
{
	int line = 0, ret = 0;
	const char *p = text;

	memset(set, 0, sizeof(*set));
	if (err && errlen)
		err[0] = '\0';
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char *buf = strndup(p, len);
		char *hash;

		line++;
		if (!buf) {
			ret = -ENOMEM;
			break;
		}
		hash = strchr(buf, '#');
		if (hash)
			*hash = '\0';
		ret = parse_line(set, buf, line, err, errlen);
		free(buf);
		if (ret)
			break;
		p += len + (nl ? 1 : 0);
	}
	if (!ret && set->n == 0)
		ret = set_err(err, errlen, line, "no events listed");
	if (ret)
		rsp_probe_set_clear(set);
	return ret;
}
