/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rsp's verbs: each a thin function over collector/ or model/. */
#ifndef RSP_CLI_H
#define RSP_CLI_H

#include <stdarg.h>

/* Each returns the process exit status. */
int rsp_cmd_record(int argc, char **argv);
int rsp_cmd_info(int argc, char **argv);
int rsp_cmd_report(int argc, char **argv);
int rsp_cmd_view(int argc, char **argv);
int rsp_cmd_export(int argc, char **argv);
int rsp_cmd_causes(int argc, char **argv);
int rsp_cmd_offcpu(int argc, char **argv);
int rsp_cmd_archive(int argc, char **argv);

/* "rsp VERB: message" on stderr */
void rsp_cli_error(const char *verb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* the same from a va_list, @tail after the message (before the newline) */
void rsp_cli_verror(const char *verb, const char *tail, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

#endif /* RSP_CLI_H */
