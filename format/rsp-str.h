/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Small tests of strings the recorder and the command line share. */
#ifndef RSP_FORMAT_STR_H
#define RSP_FORMAT_STR_H

#include <ctype.h>
#include <stdbool.h>

/* @s is a non-empty run of decimal digits (a PID, a /proc entry's name). */
static inline bool rsp_is_decimal(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

#endif
