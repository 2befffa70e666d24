/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What every verb's command line shares: one voice for its errors ("rsp VERB:
 * what; try `rsp VERB --help`", one line, exit status 2), --format and --top.
 * Each verb runs getopt_long with opterr = 0 and an optstring that begins
 * with ':', and hands a '?' or ':' to rsp_cli_bad_option().
 */
#ifndef RSP_CLI_ARGS_H
#define RSP_CLI_ARGS_H

#include <stddef.h>

/* "rsp VERB: message; try `rsp VERB --help`" on stderr; returns 2 (the usage status). */
int rsp_cli_usage_error(const char *verb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* getopt_long's '?' (unknown option) or ':' (no value) in one line; returns 2. */
int rsp_cli_bad_option(const char *verb, char **argv, int c);

/* Prepare getopt_long for a verb's argv (optind, opterr). */
void rsp_cli_getopt_reset(void);

enum rsp_cli_format {
	RSP_FORMAT_TEXT = 1 << 0,
	RSP_FORMAT_CSV = 1 << 1,
	RSP_FORMAT_MD = 1 << 2,
	RSP_FORMAT_JSON = 1 << 3,
};

/*
 * --format F among the formats in @allowed (a mask of enum rsp_cli_format):
 * text, csv, md (or markdown), json.  0, or 2 after one line.
 */
int rsp_cli_parse_format(const char *verb, const char *arg, unsigned allowed,
			 enum rsp_cli_format *out);

/* --top N: 0 to @max, where 0 means no limit (*out = SIZE_MAX).  0, or 2 after one line. */
int rsp_cli_parse_top(const char *verb, const char *arg, long max, size_t *out);

#endif /* RSP_CLI_ARGS_H */
