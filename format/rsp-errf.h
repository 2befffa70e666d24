/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one way rsp's libraries fill a caller's error buffer: the message in
 * @err (when given), @ret returned, so that `return rsp_errf(err, len, -EINVAL,
 * "what: %s", why);` says and fails in one statement.
 */
#ifndef RSP_FORMAT_ERRF_H
#define RSP_FORMAT_ERRF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

static inline __attribute__((format(printf, 4, 5))) int rsp_errf(char *err, size_t errlen, int ret,
                                                                 const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return ret;
}

#endif /* RSP_FORMAT_ERRF_H */
