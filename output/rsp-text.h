/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The text of rsp's tables, one way for every writer (the CLI's verbs and the
 * viewer's exports): times in milliseconds, shares in percent, a string as a
 * CSV field or a Markdown table cell.  Plain C, no dependency.
 */
#ifndef RSP_TEXT_H
#define RSP_TEXT_H

#include <stdint.h>
#include <stdio.h>

/* @ns in milliseconds */
double rsp_ms(uint64_t ns);
/* @part of @whole in percent; 0 when @whole is 0 */
double rsp_pct(uint64_t part, uint64_t whole);
/* @s as one CSV field (RFC 4180): in double quotes, each quote doubled */
void rsp_csv_str(FILE *f, const char *s);
/* @s in a Markdown table cell: | * _ ` < > escaped with a backslash */
void rsp_md_str(FILE *f, const char *s);

#endif /* RSP_TEXT_H */
