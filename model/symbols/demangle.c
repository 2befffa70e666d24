/* SPDX-License-Identifier: GPL-2.0-or-later */
/* C++ (Itanium ABI) names, through libstdc++'s demangler. */
#include <stdlib.h>
#include <string.h>

#include "symbols/symbols-private.h"

/* libstdc++, extern "C" (cxxabi.h is C++ only) */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/* The demangler recurses over the name (with a limit, in GCC >= 11); names this
 * long are not worth the time and are shown as they are. */
#define MANGLED_MAX 4096

char *_rsp_demangle(const char *name)
{
	int status = 0;
	char *s;

	if (strncmp(name, "_Z", 2) || strnlen(name, MANGLED_MAX) >= MANGLED_MAX)
		return NULL;
	s = __cxa_demangle(name, NULL, NULL, &status);
	if (status) {
		free(s);
		return NULL;
	}
	return s;
}
