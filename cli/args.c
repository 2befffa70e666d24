/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The command line's shared voice (args.h; the error lines of cli.h). */
#include "args.h"

#include "cli.h"

#include "rsp-frames.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

void rsp_cli_verror(const char *verb, const char *tail, const char *fmt, va_list ap)
{
	fprintf(stderr, "rsp %s: ", verb);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "%s\n", tail);
}

void rsp_cli_error(const char *verb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rsp_cli_verror(verb, "", fmt, ap);
	va_end(ap);
}

int rsp_cli_usage_error(const char *verb, const char *fmt, ...)
{
	char tail[64];
	va_list ap;

	snprintf(tail, sizeof(tail), "; try `rsp %s --help`", verb);
	va_start(ap, fmt);
	rsp_cli_verror(verb, tail, fmt, ap);
	va_end(ap);
	return 2;
}

int rsp_cli_bad_option(const char *verb, char **argv, int c)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";
	bool is_long = !strncmp(arg, "--", 2) && arg[2];
	int n = 0;

	if (is_long) /* the name without "=VALUE" */
		n = (int)strcspn(arg, "=");
	if (c == ':')
		return is_long ? rsp_cli_usage_error(verb, "option '%.*s' needs a value", n, arg) :
				 rsp_cli_usage_error(verb, "option '-%c' needs a value", optopt);
	if (is_long && optopt)
		return rsp_cli_usage_error(verb, "option '%.*s' takes no value", n, arg);
	if (is_long)
		return rsp_cli_usage_error(verb, "unknown option '%.*s'", n, arg);
	if (optopt > 32 && optopt < 127)
		return rsp_cli_usage_error(verb, "unknown option '-%c'", optopt);
	return rsp_cli_usage_error(verb, "unknown option '%s'", arg);
}

void rsp_cli_getopt_reset(void)
{
	optind = 1;
	opterr = 0;
}

int rsp_cli_parse_format(const char *verb, const char *arg, unsigned allowed,
			 enum rsp_cli_format *out)
{
	static const struct {
		const char *name;
		enum rsp_cli_format f;
	} names[] = {
		{ "text", RSP_FORMAT_TEXT }, { "csv", RSP_FORMAT_CSV },	  { "md", RSP_FORMAT_MD },
		{ "markdown", RSP_FORMAT_MD }, { "json", RSP_FORMAT_JSON },
	};
	char list[64] = "";
	size_t n = 0, k = 0;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!(allowed & names[i].f))
			continue;
		if (!strcmp(arg, names[i].name)) {
			*out = names[i].f;
			return 0;
		}
	}
	/* "text, csv, md or json" */
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		k += (allowed & names[i].f) && strcmp(names[i].name, "markdown");
	for (size_t i = 0, j = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!(allowed & names[i].f) || !strcmp(names[i].name, "markdown"))
			continue;
		j++;
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s",
				      j == 1 ? "" : j == k ? " or " : ", ", names[i].name);
	}
	return rsp_cli_usage_error(verb, "unknown format '%s': %s", arg, list);
}

bool rsp_cli_parse_us(const char *s, uint64_t *ns)
{
	char *end;
	double us;

	errno = 0;
	us = strtod(s, &end);
	if (end == s || *end || errno || !isfinite(us) || us < 0 || us > 1e12)
		return false;
	*ns = (uint64_t)(us * 1000.0 + 0.5);
	return true;
}

bool rsp_cli_parse_count(const char *s, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (end == s || *end || errno || v < 0 || v > max)
		return false;
	*out = v;
	return true;
}
int rsp_cli_parse_top(const char *verb, const char *arg, long max, size_t *out)
{
	long n;

	if (!rsp_cli_parse_count(arg, max, &n))
		return rsp_cli_usage_error(verb, "bad --top '%s': a count up to %ld, 0 for all", arg,
					   max);
	*out = n ? (size_t)n : SIZE_MAX;
	return 0;
}

int rsp_cli_parse_states(const char *verb, const char *arg, unsigned *out)
{
	char err[160];

	if (rsp_wait_states_parse(arg, out, err, sizeof(err)))
		return rsp_cli_usage_error(verb, "bad --state '%s': %s", arg, err);
	return 0;
}

struct rsp_cli_symbols rsp_cli_symbols;

int rsp_cli_other_option(const char *verb, char **argv, int c, const char *arg)
{
	struct stat st;

	if (c != RSP_CLI_OPT_SYMFS && c != RSP_CLI_OPT_DEBUG_DIR)
		return rsp_cli_bad_option(verb, argv, c);
	if (stat(arg, &st) < 0 || !S_ISDIR(st.st_mode)) {
		rsp_cli_error(verb, "%s %s: %s", c == RSP_CLI_OPT_SYMFS ? "--symfs" : "--debug-dir",
			      arg, stat(arg, &st) < 0 ? strerror(errno) : "not a directory");
		return 2;
	}
	if (c == RSP_CLI_OPT_SYMFS) {
		rsp_cli_symbols.symfs = arg;
	} else {
		if (rsp_cli_symbols.n_debug_dirs == RSP_CLI_MAX_DEBUG_DIRS)
			return rsp_cli_usage_error(verb, "at most %d --debug-dir",
						   RSP_CLI_MAX_DEBUG_DIRS);
		rsp_cli_symbols.debug_dirs[rsp_cli_symbols.n_debug_dirs++] = arg;
	}
	return 0;
}

int rsp_cli_one_file(const char *verb, int argc, char **argv, const char **path)
{
	if (optind < argc)
		*path = argv[optind++];
	if (optind < argc)
		return rsp_cli_usage_error(verb, "one file at a time ('%s' is extra)", argv[optind]);
	return 0;
}
