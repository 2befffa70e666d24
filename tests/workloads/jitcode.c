/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jitcode - a program that compiles its own code as a JIT runtime does, and
 * names it as runtimes name theirs for perf (tests/record/jit.sh):
 *
 *   usage: jitcode map|dump [MS]   (MS: thread CPU time of each phase, default 400)
 *
 * Machine code for a loop (x86-64: add or subtract a counter, count down,
 * return) is written into anonymous memory mapped read-write-execute and
 * called in two phases, each for MS ms of its thread's CPU time:
 *
 *  - map:  jit_alpha and jit_beta at two addresses, named in
 *          /tmp/perf-PID.map (as V8's --perf-basic-prof does);
 *  - dump: jit_alpha at an address for the first phase, then jit_beta
 *          written over the same bytes for the second, named in a jitdump,
 *          jit-PID.dump in $RSP_WL_DIR (else $TMPDIR, else /tmp), which it
 *          maps executable so that the recording's mmap record names it (as
 *          V8's --perf-prof and Java's libperf-jvmti do): only the loads'
 *          times tell the two functions apart.
 *
 * Its only thread runs the phases one after the other; it prints the CPU time
 * (CLOCK_THREAD_CPUTIME_ID) of each, "jit_alpha X ms" and "jit_beta Y ms".
 * Every CPU sample of the phases has a JIT function as its leaf: nearly all
 * of the program's CPU samples name one, in proportion to these times.
 *
 * Unlike the other workloads it leaves files behind on purpose: a runtime's
 * map outlives it (rsp record copies it when the recording ends); the test
 * removes them.  "pid N" on its first line says which.
 */
#define WL_NAME "jitcode"
#include "wl.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <time.h>

typedef uint64_t (*jit_fn)(uint64_t n);

/* xor rax,rax; L: add|sub rax,rdi; dec rdi; jnz L; ret */
static const uint8_t code_add[] = { 0x48, 0x31, 0xc0, 0x48, 0x01, 0xf8, 0x48,
				    0xff, 0xcf, 0x75, 0xf8, 0xc3 };
static const uint8_t code_sub[] = { 0x48, 0x31, 0xc0, 0x48, 0x29, 0xf8, 0x48,
				    0xff, 0xcf, 0x75, 0xf8, 0xc3 };
#define CODE_SIZE sizeof(code_add)

static volatile uint64_t sink;

static uint64_t ns_of(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* @fn for @ms of this thread's CPU time: the time it took, in ms */
static double run_phase(jit_fn fn, double ms)
{
	uint64_t t0 = ns_of(CLOCK_THREAD_CPUTIME_ID), t;

	do {
		sink += fn(200000);
		t = ns_of(CLOCK_THREAD_CPUTIME_ID);
	} while ((t - t0) / 1e6 < ms);
	return (t - t0) / 1e6;
}

/* --- jitdump (perf's tools/perf/Documentation/jitdump-specification.txt) ------------ */

static FILE *dump;
static uint64_t code_index;

static void put(const void *p, size_t n)
{
	if (fwrite(p, 1, n, dump) != n)
		wl_die("write the jitdump");
}

static void dump_open(const char *dir)
{
	struct {
		uint32_t magic, version, total_size, elf_mach, pad1, pid;
		uint64_t timestamp, flags;
	} h = { 0x4A695444, 1, sizeof(h), 62 /* EM_X86_64 */, 0, (uint32_t)getpid(),
		ns_of(CLOCK_MONOTONIC), 0 };
	char path[PATH_MAX + 32];
	void *marker;

	snprintf(path, sizeof(path), "%s/jit-%d.dump", dir, (int)getpid());
	dump = fopen(path, "w+");
	if (!dump)
		wl_fail("create %s: %s", path, strerror(errno));
	put(&h, sizeof(h));
	fflush(dump);
	/* the marker: an executable map of the file, which perf records */
	marker = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fileno(dump), 0);
	if (marker == MAP_FAILED)
		wl_fail("mmap %s: %s", path, strerror(errno));
}

/* @name's code @code (CODE_SIZE bytes) placed at @at from now on */
static void dump_load(const char *name, const void *at, const void *code)
{
	struct {
		uint32_t id, total_size;
		uint64_t timestamp;
		uint32_t pid, tid;
		uint64_t vma, code_addr, code_size, code_index;
	} r = { 0, (uint32_t)(sizeof(r) + strlen(name) + 1 + CODE_SIZE), ns_of(CLOCK_MONOTONIC),
		(uint32_t)getpid(), (uint32_t)getpid(), (uint64_t)(uintptr_t)at,
		(uint64_t)(uintptr_t)at, CODE_SIZE, ++code_index };

	put(&r, sizeof(r));
	put(name, strlen(name) + 1);
	put(code, CODE_SIZE);
	fflush(dump);
}

int main(int argc, char **argv)
{
	double ms = argc > 2 ? atof(argv[2]) : 400, alpha, beta;
	bool as_dump;
	uint8_t *mem;

	if (argc < 2 || (strcmp(argv[1], "map") && strcmp(argv[1], "dump")) || ms <= 0) {
		fprintf(stderr, "usage: jitcode map|dump [MS]\n");
		return 2;
	}
	as_dump = !strcmp(argv[1], "dump");
	alarm(60);
	printf("pid %d\n", (int)getpid());
	fflush(stdout);
	mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		   0);
	if (mem == MAP_FAILED)
		wl_die("mmap an executable page");
	memcpy(mem, code_add, CODE_SIZE);
	if (as_dump) {
		const char *dir = getenv("RSP_WL_DIR");
		char abs[PATH_MAX];

		if (!dir || !*dir)
			dir = getenv("TMPDIR");
		if (!realpath(dir && *dir ? dir : "/tmp", abs))
			wl_fail("%s: %s", dir ? dir : "/tmp", strerror(errno));
		dump_open(abs);
		dump_load("jit_alpha", mem, code_add);
	} else {
		char path[64];
		FILE *f;

		memcpy(mem + 256, code_sub, CODE_SIZE);
		snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
		f = fopen(path, "w");
		if (!f)
			wl_fail("create %s: %s", path, strerror(errno));
		fprintf(f, "%lx %zx jit_alpha\n%lx %zx jit_beta\n", (unsigned long)(uintptr_t)mem,
			CODE_SIZE, (unsigned long)(uintptr_t)(mem + 256), CODE_SIZE);
		if (fclose(f))
			wl_fail("write %s: %s", path, strerror(errno));
	}
	alpha = run_phase((jit_fn)(uintptr_t)mem, ms);
	if (as_dump) { /* the same bytes, another function */
		dump_load("jit_beta", mem, code_sub);
		memcpy(mem, code_sub, CODE_SIZE);
		__builtin___clear_cache((char *)mem, (char *)mem + CODE_SIZE);
		beta = run_phase((jit_fn)(uintptr_t)mem, ms);
		fclose(dump);
	} else {
		beta = run_phase((jit_fn)(uintptr_t)(mem + 256), ms);
	}
	printf("jit_alpha %.3f ms\njit_beta %.3f ms\n", alpha, beta);
	return 0;
}
