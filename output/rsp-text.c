/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The text of rsp's tables (rsp-text.h). */
#include "rsp-text.h"

#include <string.h>

double rsp_ms(uint64_t ns)
{
	return ns / 1e6;
}

double rsp_pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

void rsp_csv_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

void rsp_md_str(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (strchr("|*_`<>", *s))
			fputc('\\', f);
		fputc(*s, f);
	}
}
