/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A small program for test-symbols: its static functions are only in .symtab,
 * so after stripping they can only come back through MiniDebugInfo
 * (.gnu_debugdata) or a separate debug file.  make-symbols-helpers.sh derives
 * the variants; the test never runs it.  Its library calls give it a PLT.
 */
#include <stdlib.h>
#include <string.h>

#ifdef __clang__
#define KEEP __attribute__((noinline, used))
#else
#define KEEP __attribute__((noinline, noclone, used)) /* no .constprop/.isra copies */
#endif

static KEEP int rsp_helper_alpha(int x)
{
	return x * 3 + 1;
}

static KEEP int rsp_helper_beta(int x)
{
	return rsp_helper_alpha(x) ^ (x >> 1);
}

/* three library calls: three PLT stubs, whose order test_plt() checks */
int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], argv[2]))
		return (int)strlen(getenv("HOME") ? getenv("HOME") : "");
	return rsp_helper_beta(argc + (argv[0] ? atoi(argv[0]) : 0)) & 1;
}
