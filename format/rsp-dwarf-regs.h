/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * x86-64's registers as perf samples them (PERF_SAMPLE_REGS_USER: one u64 per
 * bit of the sample's mask, in perf_regs.h's order) and as DWARF numbers them
 * (the CFI libdw unwinds by).  Shared by the recorder's unwinder
 * (collector/runwind.c) and the reader's (model/symbols/unwind.c).
 */
#ifndef RSP_FORMAT_DWARF_REGS_H
#define RSP_FORMAT_DWARF_REGS_H

#include <stdint.h>
#include <string.h>

#define RSP_DWARF_REGS 17 /* 0-15 general, 16 the return address (rip) */
#define RSP_DWARF_BP   6
#define RSP_DWARF_SP   7
#define RSP_DWARF_IP   16
#define RSP_PERF_REG_SP 7 /* perf_regs.h: PERF_REG_X86_SP */
#define RSP_PERF_REGS  24 /* ax .. r15 (flags and segments among them); vectors above */

/* perf_regs.h's x86 order -> DWARF's x86-64 numbers; -1: not a DWARF register here */
static inline int rsp_dwarf_regno(unsigned perf_reg)
{
	static const signed char map[RSP_PERF_REGS] = {
		0, 3, 2, 1, 4, 5, 6, 7, 16, /* ax bx cx dx si di bp sp ip */
		-1, -1, -1, -1, -1, -1, -1, /* flags, segments */
		8, 9, 10, 11, 12, 13, 14, 15, /* r8-r15 */
	};

	return perf_reg < RSP_PERF_REGS ? map[perf_reg] : -1;
}

/*
 * A sample's registers (@mask: perf's bits; @vals: a u64 per bit set, in bit
 * order, not necessarily aligned) into @dwarf[RSP_DWARF_REGS]; returns the
 * DWARF registers given, a bit each (the others in @dwarf are left as they were).
 */
static inline uint32_t rsp_dwarf_regs_from_perf(uint64_t mask, const void *vals, uint64_t *dwarf)
{
	const unsigned char *p = vals;
	uint32_t have = 0;
	size_t idx = 0;

	for (unsigned bit = 0; bit < RSP_PERF_REGS; bit++) {
		int d;

		if (!(mask & (1ull << bit)))
			continue;
		d = rsp_dwarf_regno(bit);
		if (d >= 0) {
			memcpy(&dwarf[d], p + 8 * idx, 8);
			have |= 1u << d;
		}
		idx++;
	}
	return have;
}

#endif /* RSP_FORMAT_DWARF_REGS_H */
