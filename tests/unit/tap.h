/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Minimal TAP for the unit tests: CHECK() never aborts, tap_done() sets the status. */
#ifndef RSP_TEST_TAP_H
#define RSP_TEST_TAP_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

#define CHECK(cond, ...)                                                                   \
	do {                                                                               \
		tap_n++;                                                                   \
		if (cond) {                                                                \
			printf("ok %d - ", tap_n);                                         \
		} else {                                                                   \
			tap_failed++;                                                      \
			printf("not ok %d - %s:%d: ", tap_n, __FILE__, __LINE__);          \
		}                                                                          \
		printf(__VA_ARGS__);                                                       \
		putchar('\n');                                                             \
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

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif /* RSP_TEST_TAP_H */
