/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The latency-cause rules: parsing a rule file and matching a wait's stack
 * against it.  Format (data/latency-causes.conf says it at length):
 *
 *   PRIORITY [CONDITION...] [PATTERN...] : CAUSE
 *
 * PATTERN is a function name or an fnmatch(3) glob, "k:" / "u:" for kernel /
 * user frames only, "A+B" for both in one stack; any one pattern of a rule
 * matching is enough.  CONDITION is state=S,D,R,P or woken=KIND,...  The
 * highest priority wins; then the match nearest the leaf; then the earlier
 * rule.
 */
#include "rsp-causes.h"

#include "base/vec.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RULE_FILE (16u << 20)
#define MAX_LINE 4096
#define MAX_CAUSE 200
#define N_LINK_KINDS 16 /* bits of woken: 0 = none recorded, then enum rsp_link_kind */

enum where { WHERE_ANY, WHERE_KERNEL, WHERE_USER };

struct term {
	char *pat;
	uint8_t where;
	bool glob;
};

struct alt { /* a conjunction of terms */
	uint32_t first, n;
};

struct rule {
	int prio;
	unsigned states; /* RSP_WAIT_* */
	uint32_t woken; /* bit per link kind (bit 0: none recorded); 0: any */
	uint32_t first_alt, n_alts;
	uint32_t cause;
	unsigned line;
};

struct rsp_causes {
	VEC(struct rule) rules;
	VEC(struct alt) alts;
	VEC(struct term) terms;
	VEC(char *) causes;
};

void rsp_causes_free(struct rsp_causes *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->terms.n; i++)
		free(c->terms.v[i].pat);
	for (size_t i = 0; i < c->causes.n; i++)
		free(c->causes.v[i]);
	vec_free(&c->rules);
	vec_free(&c->alts);
	vec_free(&c->terms);
	vec_free(&c->causes);
	free(c);
}

size_t rsp_causes_n_rules(const struct rsp_causes *c)
{
	return c ? c->rules.n : 0;
}

size_t rsp_causes_n_causes(const struct rsp_causes *c)
{
	return c ? c->causes.n : 0;
}

const char *rsp_causes_name(const struct rsp_causes *c, size_t cause)
{
	return c && cause < c->causes.n ? c->causes.v[cause] : NULL;
}

/* ---- parsing ------------------------------------------------------------------------------ */

struct parse {
	struct rsp_causes *c;
	const char *name;
	unsigned line;
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 2, 3))) static int perr(struct parse *p, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(p->err, p->errlen, "%s:%u: ", p->name, p->line);

	if (n < 0 || (size_t)n >= p->errlen)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int parse_states(struct parse *p, const char *v, unsigned *out)
{
	char err[160];

	if (rsp_wait_states_parse(v, out, err, sizeof(err)))
		return perr(p, "%s", err);
	return 0;
}

static int parse_woken(struct parse *p, const char *v, uint32_t *out)
{
	char buf[128];
	char *save = NULL;

	if (strlen(v) >= sizeof(buf) || !*v)
		return perr(p, "bad woken= list '%s'", v);
	strcpy(buf, v);
	*out = 0;
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int k;

		if (!strcmp(tok, "none")) {
			*out |= 1u;
			continue;
		}
		for (k = 1; k < N_LINK_KINDS; k++) {
			const char *kn = rsp_link_kind_name((enum rsp_link_kind)k);

			if (strcmp(kn, "?") && !strcmp(kn, tok))
				break;
		}
		if (k == N_LINK_KINDS)
			return perr(p,
				    "unknown woken= kind '%s': wakeup, fork, exec, io, net, timer, "
				    "irq, softirq, unknown or none",
				    tok);
		*out |= 1u << k;
	}
	return 0;
}

static bool has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* "k:a+u:b+c" -> one alternative of three terms */
static int parse_pattern(struct parse *p, const char *tok)
{
	struct rsp_causes *c = p->c;
	struct alt a = { (uint32_t)c->terms.n, 0 };
	const char *s = tok;

	while (*s) {
		const char *end = strchr(s, '+');
		size_t len = end ? (size_t)(end - s) : strlen(s);
		struct term t = { 0 };

		if (len > 2 && (s[0] == 'k' || s[0] == 'u') && s[1] == ':' && s[2] != ':') {
			t.where = s[0] == 'k' ? WHERE_KERNEL : WHERE_USER;
			s += 2;
			len -= 2;
		}
		if (!len)
			return perr(p, "empty function name in '%s'", tok);
		t.pat = strndup(s, len);
		if (!t.pat)
			return -ENOMEM;
		t.glob = has_glob(t.pat);
		if (!vec_push(&c->terms, t)) {
			free(t.pat);
			return -ENOMEM;
		}
		a.n++;
		s += len;
		if (*s == '+') {
			s++;
			if (!*s)
				return perr(p, "'%s' ends with '+': A+B needs both names", tok);
		}
	}
	if (!vec_push(&c->alts, a))
		return -ENOMEM;
	return 0;
}

static int cause_index(struct rsp_causes *c, const char *cause, uint32_t *out)
{
	char *copy;

	for (size_t i = 0; i < c->causes.n; i++) {
		if (!strcmp(c->causes.v[i], cause)) {
			*out = (uint32_t)i;
			return 0;
		}
	}
	copy = strdup(cause);
	if (!copy || !vec_push(&c->causes, copy)) {
		free(copy);
		return -ENOMEM;
	}
	*out = (uint32_t)(c->causes.n - 1);
	return 0;
}

static int parse_line(struct parse *p, char *s)
{
	struct rsp_causes *c = p->c;
	struct rule r = { .first_alt = (uint32_t)c->alts.n, .line = p->line };
	bool have_state = false, have_cond = false, have_colon = false;
	char *tok, *end, *cause = NULL;
	long prio;
	int ret;

	/* comments: '#' at the start of a word, to the end of the line */
	for (char *q = s; *q; q++) {
		if (*q == '#' && (q == s || isspace((unsigned char)q[-1]))) {
			*q = '\0';
			break;
		}
	}
	while (isspace((unsigned char)*s))
		s++;
	if (!*s)
		return 0;
	tok = s;
	while (*s && !isspace((unsigned char)*s))
		s++;
	if (*s)
		*s++ = '\0';
	errno = 0;
	prio = strtol(tok, &end, 10);
	if (*end || errno || end == tok || prio < -1000000 || prio > 1000000)
		return perr(p, "'%s' is not a priority: a line is PRIORITY PATTERN... : CAUSE",
			    tok);
	r.prio = (int)prio;
	for (;;) {
		while (isspace((unsigned char)*s))
			s++;
		if (!*s)
			break;
		tok = s;
		while (*s && !isspace((unsigned char)*s))
			s++;
		if (*s)
			*s++ = '\0';
		if (!strcmp(tok, ":")) {
			have_colon = true;
			cause = s;
			break;
		}
		if (!strncmp(tok, "state=", 6)) {
			if ((ret = parse_states(p, tok + 6, &r.states)))
				return ret;
			have_state = have_cond = true;
		} else if (!strncmp(tok, "woken=", 6)) {
			if ((ret = parse_woken(p, tok + 6, &r.woken)))
				return ret;
			have_cond = true;
		} else if (strchr(tok, '=')) {
			return perr(p, "unknown condition '%s': state= or woken=", tok);
		} else {
			if ((ret = parse_pattern(p, tok)))
				return ret;
			r.n_alts++;
		}
	}
	if (!have_colon)
		return perr(p, "no cause: the cause follows a ':' standing alone "
			       "(PRIORITY PATTERN... : CAUSE)");
	while (isspace((unsigned char)*cause))
		cause++;
	for (size_t n = strlen(cause); n && isspace((unsigned char)cause[n - 1]); n--)
		cause[n - 1] = '\0';
	if (!*cause)
		return perr(p, "empty cause after ':'");
	if (strlen(cause) > MAX_CAUSE)
		return perr(p, "cause longer than %d characters", MAX_CAUSE);
	if (!r.n_alts && !have_cond)
		return perr(p, "a rule needs a function pattern or a condition (state=, woken=)");
	if (!have_state)
		r.states = RSP_WAIT_BLOCKED;
	if ((ret = cause_index(c, cause, &r.cause)))
		return ret;
	if (!vec_push(&c->rules, r))
		return -ENOMEM;
	return 0;
}

int rsp_causes_parse(const char *text, size_t len, const char *name, struct rsp_causes **out,
		     char *err, size_t errlen)
{
	struct parse p = { .name = name ? name : "rules", .err = err, .errlen = errlen };
	char *line = NULL;
	size_t at = 0;
	int ret = 0;

	*out = NULL;
	if (errlen)
		err[0] = '\0';
	p.c = calloc(1, sizeof(*p.c));
	line = malloc(MAX_LINE + 1);
	if (!p.c || !line) {
		ret = -ENOMEM;
		goto out;
	}
	while (at < len) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t n = nl ? (size_t)(nl - (text + at)) : len - at;

		p.line++;
		if (n > MAX_LINE) {
			ret = perr(&p, "line longer than %d characters", MAX_LINE);
			goto out;
		}
		if (memchr(text + at, '\0', n)) {
			ret = perr(&p, "a NUL byte: not a text file");
			goto out;
		}
		memcpy(line, text + at, n);
		line[n] = '\0';
		if (n && line[n - 1] == '\r')
			line[n - 1] = '\0';
		ret = parse_line(&p, line);
		if (ret)
			goto out;
		at += n + (nl ? 1 : 0);
	}
	if (!p.c->rules.n) {
		p.line = 0;
		snprintf(err, errlen, "%s: no rules", p.name);
		ret = -EINVAL;
		goto out;
	}
	*out = p.c;
	p.c = NULL;
out:
	if (ret == -ENOMEM)
		snprintf(err, errlen, "%s: out of memory", p.name);
	free(line);
	rsp_causes_free(p.c);
	return ret;
}

int rsp_causes_load(const char *path, struct rsp_causes **out, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t n = 0, cap = 0;
	int ret;

	*out = NULL;
	if (!f) {
		ret = -errno;
		snprintf(err, errlen, "cannot open rule file %s: %s", path, strerror(errno));
		return ret;
	}
	for (;;) {
		size_t r;

		if (n + 65536 > cap) {
			char *g;

			cap = cap ? cap * 2 : 65536;
			if (cap > MAX_RULE_FILE + 65536) {
				fclose(f);
				free(buf);
				snprintf(err, errlen, "%s: larger than %u MiB: not a rule file", path,
					 MAX_RULE_FILE >> 20);
				return -EFBIG;
			}
			g = realloc(buf, cap);
			if (!g) {
				fclose(f);
				free(buf);
				snprintf(err, errlen, "%s: out of memory", path);
				return -ENOMEM;
			}
			buf = g;
		}
		r = fread(buf + n, 1, cap - n, f);
		n += r;
		if (r == 0)
			break;
	}
	if (ferror(f)) {
		ret = -EIO;
		snprintf(err, errlen, "cannot read rule file %s", path);
		fclose(f);
		free(buf);
		return ret;
	}
	fclose(f);
	ret = rsp_causes_parse(buf ? buf : "", n, path, out, err, errlen);
	free(buf);
	return ret;
}

/* ---- matching ------------------------------------------------------------------------------- */

static bool name_matches(const struct term *t, const char *name)
{
	const char *dot;
	char base[256];
	size_t n;

	if (t->glob ? !fnmatch(t->pat, name, 0) : !strcmp(t->pat, name))
		return true;
	/* "ext4_fsync_nojournal.constprop.0": also the name without compiler suffixes */
	dot = strchr(name, '.');
	if (!dot || dot == name)
		return false;
	n = (size_t)(dot - name);
	if (n >= sizeof(base))
		return false;
	memcpy(base, name, n);
	base[n] = '\0';
	return t->glob ? !fnmatch(t->pat, base, 0) : !strcmp(t->pat, base);
}

/* the first frame (leaf first) a term matches, or SIZE_MAX */
static size_t term_at(const struct term *t, const struct rsp_named_frame *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (t->where == WHERE_KERNEL && !f[i].kernel)
			continue;
		if (t->where == WHERE_USER && f[i].kernel)
			continue;
		if (f[i].func && name_matches(t, f[i].func))
			return i;
	}
	return SIZE_MAX;
}

size_t rsp_causes_match(const struct rsp_causes *c, const struct rsp_named_frame *frames,
			size_t n, enum rsp_wait_state state, int woken, unsigned *line)
{
	const struct rule *best = NULL;
	size_t best_at = SIZE_MAX;
	uint32_t wbit = woken > 0 && woken < N_LINK_KINDS ? 1u << woken : 1u;

	if (line)
		*line = 0;
	if (!c)
		return RSP_NO_INDEX;
	for (size_t r = 0; r < c->rules.n; r++) {
		const struct rule *ru = &c->rules.v[r];
		size_t at = SIZE_MAX;

		if (!(ru->states & state))
			continue;
		if (ru->woken && !(ru->woken & wbit))
			continue;
		if (best && ru->prio < best->prio)
			continue;
		if (!ru->n_alts) {
			at = n; /* conditions only: matches anywhere, as far from the leaf as can be */
		} else {
			for (uint32_t a = ru->first_alt; a < ru->first_alt + ru->n_alts; a++) {
				const struct alt *al = &c->alts.v[a];
				size_t alt_at = SIZE_MAX;
				bool all = true;

				for (uint32_t k = al->first; k < al->first + al->n; k++) {
					size_t i = term_at(&c->terms.v[k], frames, n);

					if (i == SIZE_MAX) {
						all = false;
						break;
					}
					if (alt_at == SIZE_MAX || i < alt_at)
						alt_at = i;
				}
				if (all && (at == SIZE_MAX || alt_at < at))
					at = alt_at;
			}
			if (at == SIZE_MAX)
				continue;
		}
		if (!best || ru->prio > best->prio || at < best_at) {
			best = ru;
			best_at = at;
		}
	}
	if (!best)
		return RSP_NO_INDEX;
	if (line)
		*line = best->line;
	return best->cause;
}
