/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What every verb's command line shares: one voice for its errors ("rsp VERB:
 * what; try `rsp VERB --help`", one line, exit status 2), --format and --top.
 * Each verb runs getopt_long with opterr = 0 and an optstring that begins
 * with ':', and hands a '?' or ':' to rsp_cli_bad_option().
 */
#ifndef RSP_CLI_ARGS_H
#define RSP_CLI_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* "12", "1.5" -> microseconds as ns; false if not a number >= 0 */
bool rsp_cli_parse_us(const char *s, uint64_t *ns);
/* A count 0..max; false if not */
bool rsp_cli_parse_count(const char *s, long max, long *out);

/*
 * --format F among the formats in @allowed (a mask of enum rsp_cli_format):
 * text, csv, md (or markdown), json.  0, or 2 after one line.
 */
int rsp_cli_parse_format(const char *verb, const char *arg, unsigned allowed,
			 enum rsp_cli_format *out);

/* --top N: 0 to @max, where 0 means no limit (*out = SIZE_MAX).  0, or 2 after one line. */
int rsp_cli_parse_top(const char *verb, const char *arg, long max, size_t *out);

/*
 * Where a reading verb (report, info, causes, offcpu, export, view) finds the
 * files a trace names: put RSP_CLI_SYMBOL_OPTIONS in its getopt table,
 * RSP_CLI_SYMBOL_HELP in its --help, and hand every option it does not
 * handle itself to rsp_cli_other_option().  rsp_cli_input_open() applies them, with
 * FILE.archive beside the trace and debuginfod when DEBUGINFOD_URLS is set.
 */
enum { RSP_CLI_OPT_SYMFS = 0x2000, RSP_CLI_OPT_DEBUG_DIR };
#define RSP_CLI_SYMBOL_OPTIONS                                                   \
	{ "symfs", required_argument, NULL, RSP_CLI_OPT_SYMFS },                 \
	{                                                                        \
		"debug-dir", required_argument, NULL, RSP_CLI_OPT_DEBUG_DIR \
	}
#define RSP_CLI_SYMBOL_HELP                                                                \
	"  --symfs DIR      look for the files the trace names under DIR (DIR/usr/bin/...)\n"  \
	"  --debug-dir DIR  debug files: DIR/.build-id/xx/rest.debug, DIR/PATH.debug;\n"      \
	"                   repeatable, searched before /usr/lib/debug\n"                    \
	"FILE.archive (`rsp archive FILE`) is read when it is beside FILE; debuginfod is\n"  \
	"asked when DEBUGINFOD_URLS is set.\n"

#define RSP_CLI_MAX_DEBUG_DIRS 16
struct rsp_cli_symbols {
	const char *symfs;
	const char *debug_dirs[RSP_CLI_MAX_DEBUG_DIRS];
	size_t n_debug_dirs;
	bool no_archive; /* rsp archive: FILE.archive is being made, not read */
};
extern struct rsp_cli_symbols rsp_cli_symbols;

/*
 * What a verb's getopt loop does with an option it does not handle itself:
 * one of RSP_CLI_SYMBOL_OPTIONS is taken (0); anything else, or a symbol
 * option's directory that is not one, is a usage error (2 after one line).
 */
int rsp_cli_other_option(const char *verb, char **argv, int c, const char *arg);

/*
 * After a reading verb's options: its one FILE in *@path (left as it was
 * when none is given).  0, or 2 after one line when more are given.
 */
int rsp_cli_one_file(const char *verb, int argc, char **argv, const char **path);

/*
 * --state LIST (rsp causes, rsp offcpu): the states of rsp-frames.h, one
 * meaning each in every verb.  0, or 2 after one line.
 */
int rsp_cli_parse_states(const char *verb, const char *arg, unsigned *out);

#endif /* RSP_CLI_ARGS_H */
