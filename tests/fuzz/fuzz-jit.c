/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target: arbitrary bytes as a JIT runtime's perf-PID.map and as its
 * jitdump (model/symbols/jit.c), then lookups over and around every function
 * they could name.  Built as a libFuzzer binary with clang (-Dfuzz=enabled),
 * and linked with replay.c to run the kept corpus (tests/fuzz/corpus-jit) in
 * the `fuzz` test suite.
 */
#include "symbols/symbols.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rsp_sym *sym;
	struct rsp_sym_frame f;

	if (rsp_sym_new(&sym, NULL))
		return 0;
	rsp_sym_add_map(sym, 1, 0, 0x1000, 1ull << 46, 0, PROT_READ | PROT_EXEC, "//anon", NULL,
			0);
	rsp_sym_add_perf_map(sym, 1, (const char *)data, size, "perf-1.map");
	rsp_sym_add_jitdump(sym, 2, data, size, "jit-2.dump");
	/* every 8 bytes, read as an address, and its neighbours, at times around it */
	for (size_t i = 0; i + 8 <= size && i < 4096; i += 8) {
		uint64_t a;

		memcpy(&a, data + i, 8);
		for (int pid = 1; pid <= 2; pid++) {
			rsp_sym_lookup(sym, pid, a, a, false, &f);
			rsp_sym_lookup(sym, pid, UINT64_MAX, a + 1, false, &f);
			rsp_sym_lookup(sym, pid, 0, a - 1, false, &f);
		}
	}
	for (size_t i = 0; i < rsp_sym_n_warnings(sym); i++)
		(void)strlen(rsp_sym_warning(sym, i));
	rsp_sym_free(sym);
	return 0;
}
