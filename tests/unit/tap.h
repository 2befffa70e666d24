/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Minimal TAP for the unit tests: CHECK() never aborts, tap_done() sets the status.
 *
 * Cases have names.  main() runs each through TAP_RUN("name", call); every
 * result of a case reads "ok N - name: what".  The options, parsed and taken
 * out of argv by tap_init():
 *   -p NAME   run only the case NAME, or the cases named NAME/... (as GLib's
 *             tests' -p); repeatable
 *   -l        list the cases' names, run none
 * so `build/tests/test-analysis-walk -p pingpong`, or
 * `meson test -C build unit-analysis-walk --test-args '-p pingpong'`.
 * Static, header only: each test binary counts its own CHECKs.
 */
#ifndef RSP_TEST_TAP_H
#define RSP_TEST_TAP_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAP_MAX_ONLY 32

static int tap_n, tap_failed;
static const char *tap_cur; /* the case running (tap_name), NULL outside any */
static char tap_name[128];
static struct {
	const char *only[TAP_MAX_ONLY]; /* -p NAME */
	bool matched[TAP_MAX_ONLY];
	int n_only;
	bool list; /* -l */
} tap_opts;

/* Before a result's text: its number and case.  False under -l: nothing is printed. */
static inline bool tap_result(bool ok, const char *file, int line)
{
	tap_n++;
	if (!ok)
		tap_failed++;
	if (tap_opts.list)
		return false;
	if (ok)
		printf("ok %d - ", tap_n);
	else
		printf("not ok %d - %s:%d: ", tap_n, file, line);
	if (tap_cur)
		printf("%s: ", tap_cur);
	return true;
}

#define CHECK(cond, ...)                                                                   \
	do {                                                                               \
		if (tap_result(!!(cond), __FILE__, __LINE__)) {                            \
			printf(__VA_ARGS__);                                               \
			putchar('\n');                                                     \
		}                                                                          \
	} while (0)

/* a result that could not be had here (TAP's SKIP directive) */
#define TAP_SKIP(...)                                                                          \
	do {                                                                               \
		if (tap_result(true, __FILE__, __LINE__)) {                                \
			printf("# SKIP ");                                                 \
			printf(__VA_ARGS__);                                               \
			putchar('\n');                                                     \
		}                                                                          \
	} while (0)

#define CHECK_EQ_U64(a, b, what)                                                           \
	do {                                                                               \
		uint64_t _a = (uint64_t)(a), _b = (uint64_t)(b);                           \
		CHECK(_a == _b, "%s: %" PRIu64 " == %" PRIu64, what, _a, _b);              \
	} while (0)

#define CHECK_STR(a, b, what)                                                              \
	do {                                                                               \
		const char *_a = (a), *_b = (b);                                           \
		CHECK(_a && _b && !strcmp(_a, _b), "%s: '%s' == '%s'", what,               \
		      _a ? _a : "(null)", _b ? _b : "(null)");                             \
	} while (0)

/* Takes -p NAME and -l out of @argv; returns the arguments left (argv[0] included). */
static inline int tap_init(int argc, char **argv)
{
	int n = 1;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-l")) {
			tap_opts.list = true;
		} else if (!strcmp(argv[i], "-p") && i + 1 < argc) {
			if (tap_opts.n_only == TAP_MAX_ONLY) {
				fprintf(stderr, "%s: at most %d -p\n", argv[0], TAP_MAX_ONLY);
				exit(2);
			}
			tap_opts.only[tap_opts.n_only++] = argv[++i];
		} else if (!strcmp(argv[i], "-p")) {
			fprintf(stderr, "%s: -p takes a case's name (-l lists them)\n", argv[0]);
			exit(2);
		} else {
			argv[n++] = argv[i];
		}
	}
	argv[n] = NULL;
	return n;
}

/* Whether to run the case @name (it names the results until the next). */
static inline bool tap_case(const char *name)
{
	bool run = !tap_opts.n_only;

	for (int i = 0; i < tap_opts.n_only; i++) {
		size_t len = strlen(tap_opts.only[i]);

		if (!strncmp(name, tap_opts.only[i], len) && (!name[len] || name[len] == '/')) {
			tap_opts.matched[i] = true;
			run = true;
		}
	}
	if (run && tap_opts.list)
		printf("%s\n", name);
	snprintf(tap_name, sizeof(tap_name), "%s", name);
	tap_cur = run && !tap_opts.list ? tap_name : NULL;
	return run && !tap_opts.list;
}

#define TAP_RUN(name, call)                                                                \
	do {                                                                               \
		if (tap_case(name))                                                        \
			call;                                                              \
		tap_cur = NULL;                                                            \
	} while (0)

static inline int tap_done(void)
{
	tap_cur = NULL;
	if (tap_opts.list)
		return 0;
	for (int i = 0; i < tap_opts.n_only; i++)
		CHECK(tap_opts.matched[i], "-p %s: a case of that name (-l lists them)",
		      tap_opts.only[i]);
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif /* RSP_TEST_TAP_H */
