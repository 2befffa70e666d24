/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * model/symbols/jit.c: the names of JIT-compiled code from perf-PID.map text
 * and jitdump bytes made here, with the exact function every lookup must
 * answer: a later map line over the same addresses, a jitdump's loads over
 * reused addresses at their times, a move, damaged files (a warning, the
 * functions before the damage), and the files of a directory as rsp record
 * leaves them beside a recording (FILE.jit).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "symbols/symbols.h"
#include "tap.h"

static const char *lookup(struct rsp_sym *sym, int pid, uint64_t t, uint64_t addr,
			  struct rsp_sym_frame *f)
{
	rsp_sym_lookup(sym, pid, t, addr, false, f);
	return f->func ? f->func : "(none)";
}

static bool has_warning(const struct rsp_sym *sym, const char *a, const char *b)
{
	for (size_t i = 0; i < rsp_sym_n_warnings(sym); i++) {
		const char *w = rsp_sym_warning(sym, i);

		if (strstr(w, a) && (!b || strstr(w, b)))
			return true;
	}
	return false;
}

/* --- a jitdump, written as a runtime writes it ---------------------------------------------- */

struct dump {
	unsigned char b[4096];
	size_t n;
};

static void put(struct dump *d, const void *p, size_t n)
{
	memcpy(d->b + d->n, p, n);
	d->n += n;
}

static void put32(struct dump *d, uint32_t v)
{
	put(d, &v, 4);
}

static void put64(struct dump *d, uint64_t v)
{
	put(d, &v, 8);
}

static void dump_header(struct dump *d, int pid, uint64_t flags)
{
	d->n = 0;
	put32(d, 0x4A695444); /* magic */
	put32(d, 1); /* version */
	put32(d, 40); /* header size */
	put32(d, 62); /* EM_X86_64 */
	put32(d, 0);
	put32(d, (uint32_t)pid);
	put64(d, 1); /* timestamp */
	put64(d, flags);
}

static void dump_load(struct dump *d, uint64_t ts, uint64_t addr, uint64_t size, uint64_t index,
		      const char *name)
{
	size_t len = strlen(name) + 1;

	put32(d, 0); /* JIT_CODE_LOAD */
	put32(d, (uint32_t)(16 + 40 + len + size));
	put64(d, ts);
	put32(d, 1); /* pid */
	put32(d, 1); /* tid */
	put64(d, addr); /* vma */
	put64(d, addr); /* code_addr */
	put64(d, size);
	put64(d, index);
	put(d, name, len);
	memset(d->b + d->n, 0xc3, size); /* the code: ret */
	d->n += size;
}

static void dump_move(struct dump *d, uint64_t ts, uint64_t from, uint64_t to, uint64_t size,
		      uint64_t index)
{
	put32(d, 1); /* JIT_CODE_MOVE */
	put32(d, 16 + 48);
	put64(d, ts);
	put32(d, 1);
	put32(d, 1);
	put64(d, to); /* vma */
	put64(d, from);
	put64(d, to);
	put64(d, size);
	put64(d, index);
}

/* --- the cases ---------------------------------------------------------------------------------- */

static void test_map(void)
{
	static const char map[] = "7f0000001000 100 LazyCompile:*hot /srv/app.js:3\n"
				  "7f0000001100 40 Builtin:ArgumentsAdaptorTrampoline\r\n"
				  "0x7f0000002000 0x20 cold\n"
				  "\n"
				  "7f0000001000 80 Function:reused /srv/app.js:9\n";
	struct rsp_sym_frame f;
	struct rsp_sym *sym;

	if (rsp_sym_new(&sym, NULL)) {
		CHECK(0, "rsp_sym_new");
		return;
	}
	CHECK_EQ_U64(rsp_sym_add_perf_map(sym, 77, map, strlen(map), "/tmp/perf-77.map"), 4,
		     "four functions read");
	CHECK_EQ_U64(rsp_sym_n_warnings(sym), 0, "no warning for a whole map");
	CHECK_EQ_U64(rsp_sym_add_map(sym, 77, 0, 0x7f0000000000ull, 0x10000, 0,
				     PROT_READ | PROT_EXEC, "//anon", NULL, 0),
		     0, "the anonymous map the code is in");
	/* a map has no times: its last line over an address names it all along */
	CHECK_STR(lookup(sym, 77, 5, 0x7f0000001010ull, &f), "Function:reused /srv/app.js:9",
		  "the later line over reused addresses");
	CHECK_STR(f.dso, "perf-77.map", "the frame's dso is the file it was named by");
	CHECK_EQ_U64(f.offset, 0x10, "offset in the function");
	CHECK_STR(lookup(sym, 77, 5, 0x7f00000010a0ull, &f), "LazyCompile:*hot /srv/app.js:3",
		  "past the later line's end: the earlier one");
	CHECK_STR(lookup(sym, 77, 5, 0x7f000000113full, &f), "Builtin:ArgumentsAdaptorTrampoline",
		  "a CRLF line");
	CHECK_STR(lookup(sym, 77, 5, 0x7f0000001140ull, &f), "(none)", "just past a function");
	CHECK_STR(f.dso, "//anon", "an address no function covers stays in its map");
	CHECK_STR(lookup(sym, 77, 5, 0x7f000000201full, &f), "cold", "0x prefixes");
	CHECK_EQ_U64(rsp_sym_names_epoch(sym, 77, UINT64_MAX), 0,
		     "a map's lines have no times: one epoch");
	CHECK_STR(lookup(sym, 78, 5, 0x7f0000001010ull, &f), "(none)", "another process");
	/* with no map recorded at all (code made executable without one) */
	CHECK_STR(lookup(sym, 77, 5, 0x7f0000020000ull, &f), "(none)", "outside every map");
	CHECK_EQ_U64(rsp_sym_add_perf_map(sym, 79, "5000 10 nomap\n", 14, "perf-79.map"), 1,
		     "a map of a process without maps");
	CHECK_STR(lookup(sym, 79, 5, 0x5008, &f), "nomap", "no map recorded: the JIT's name");
	rsp_sym_free(sym);
}

/* a file's mapped text is named by the file, not by a map line over it */
static void test_file_first(void)
{
	struct rsp_sym_frame f;
	struct rsp_sym *sym;
	static const char map[] = "400000 1000 not_this\n";

	if (rsp_sym_new(&sym, NULL)) {
		CHECK(0, "rsp_sym_new");
		return;
	}
	rsp_sym_add_perf_map(sym, 5, map, strlen(map), "perf-5.map");
	rsp_sym_add_map(sym, 5, 0, 0x400000, 0x1000, 0, PROT_READ | PROT_EXEC, "/nonexistent/bin",
			NULL, 0);
	lookup(sym, 5, 1, 0x400010, &f);
	CHECK(!f.func && !strcmp(f.dso, "/nonexistent/bin"), "a file's map is not a JIT's: %s %s",
	      f.func ? f.func : "(none)", f.dso);
	rsp_sym_free(sym);
}

static void test_map_damaged(void)
{
	static const char map[] = "1000 10 one\n"
				  "zz 10 bad hex\n"
				  "2000 10\n"
				  "3000 10 three\n"
				  "4000 0 empty\n";
	struct rsp_sym_frame f;
	struct rsp_sym *sym;

	if (rsp_sym_new(&sym, NULL)) {
		CHECK(0, "rsp_sym_new");
		return;
	}
	CHECK_EQ_U64(rsp_sym_add_perf_map(sym, 9, map, strlen(map), "/x/perf-9.map"), 2,
		     "the two good lines");
	CHECK_EQ_U64(rsp_sym_n_warnings(sym), 1, "one warning line for the file");
	CHECK(has_warning(sym, "/x/perf-9.map: 3 of 5 lines", "the first line 2"),
	      "the warning names the file, the count, the first bad line: %s",
	      rsp_sym_warning(sym, 0) ? rsp_sym_warning(sym, 0) : "(none)");
	CHECK_STR(lookup(sym, 9, 1, 0x3004, &f), "three", "a line after the damage is read");
	CHECK_EQ_U64(rsp_sym_add_perf_map(sym, 10, "", 0, "perf-10.map"), 0, "an empty map");
	CHECK(has_warning(sym, "perf-10.map: no functions", NULL), "an empty map is said");
	CHECK_EQ_U64(rsp_sym_add_perf_map(sym, 11, "1000 10 a\0b\n", 12, "perf-11.map"), 0,
		     "a NUL in a name: the line refused");
	CHECK_EQ_U64(rsp_sym_add_perf_map(sym, 12, "ffffffffffffffff 10 wrap\n", 25, "perf-12.map"),
		     0, "a function past the end of the address space refused");
	CHECK_EQ_U64(rsp_sym_add_perf_map(sym, 13, "10000000000000000 10 wide\n", 26,
					  "perf-13.map"),
		     0, "an address wider than 64 bits refused");
	rsp_sym_free(sym);
}

static void test_jitdump(void)
{
	struct dump d;
	struct rsp_sym_frame f;
	struct rsp_sym *sym;

	if (rsp_sym_new(&sym, NULL)) {
		CHECK(0, "rsp_sym_new");
		return;
	}
	dump_header(&d, 40, 0);
	dump_load(&d, 100, 0x1000, 0x100, 1, "f1");
	dump_load(&d, 150, 0x2000, 0x40, 3, "f3");
	dump_load(&d, 200, 0x1000, 0x80, 2, "f2"); /* reuses f1's first half */
	put32(&d, 2); /* JIT_CODE_DEBUG_INFO, skipped */
	put32(&d, 24);
	put64(&d, 210);
	put64(&d, 0);
	dump_move(&d, 300, 0x2000, 0x3000, 0x40, 3);
	dump_load(&d, 400, 0x2000, 0x40, 4, "f4"); /* in f3's old place */
	CHECK_EQ_U64(rsp_sym_add_jitdump(sym, 40, d.b, d.n, "/r.jit/jit-40.dump"), 5,
		     "four loads and a move read");
	CHECK_EQ_U64(rsp_sym_n_warnings(sym), 0, "no warning for a whole dump");
	CHECK_STR(lookup(sym, 40, 50, 0x1010, &f), "(none)", "before its load");
	CHECK_STR(lookup(sym, 40, 100, 0x1010, &f), "f1", "from its load's time");
	CHECK_STR(f.dso, "jit-40.dump", "the dump's name as the frame's dso");
	CHECK_STR(lookup(sym, 40, 199, 0x1010, &f), "f1", "until the reuse");
	CHECK_STR(lookup(sym, 40, 200, 0x1010, &f), "f2", "the reused addresses from then on");
	CHECK_STR(lookup(sym, 40, 250, 0x10a0, &f), "f1", "past the new function's end");
	CHECK_STR(lookup(sym, 40, 299, 0x2010, &f), "f3", "before the move");
	CHECK_STR(lookup(sym, 40, 299, 0x3010, &f), "(none)", "not yet moved there");
	CHECK_STR(lookup(sym, 40, 300, 0x3010, &f), "f3", "moved");
	CHECK_EQ_U64(f.offset, 0x10, "offset in the moved code");
	CHECK_STR(lookup(sym, 40, 350, 0x2010, &f), "(none)", "gone from where it was");
	CHECK_STR(lookup(sym, 40, 400, 0x2010, &f), "f4", "the old place's new code");
	/* the epochs caches of names by stack key on: a change at 200, 300, 400 */
	CHECK_EQ_U64(rsp_sym_names_epoch(sym, 40, 199), 0, "epoch before the first reuse");
	CHECK_EQ_U64(rsp_sym_names_epoch(sym, 40, 200), 1, "epoch from the reuse at 200");
	CHECK_EQ_U64(rsp_sym_names_epoch(sym, 40, 299), 1, "the same until the move");
	CHECK_EQ_U64(rsp_sym_names_epoch(sym, 40, 300), 2, "epoch from the move at 300");
	CHECK_EQ_U64(rsp_sym_names_epoch(sym, 40, 400), 3, "epoch from the load at 400");
	CHECK_EQ_U64(rsp_sym_names_epoch(sym, 39, 400), 0, "a process without JIT files");

	/* the CPU's counter as times: every name from the start */
	dump_header(&d, 41, 1);
	dump_load(&d, 1000000, 0x1000, 0x10, 1, "tsc");
	CHECK_EQ_U64(rsp_sym_add_jitdump(sym, 41, d.b, d.n, "jit-41.dump"), 1, "a TSC dump");
	CHECK_STR(lookup(sym, 41, 5, 0x1000, &f), "tsc", "a TSC dump's names from the start");
	CHECK(has_warning(sym, "jit-41.dump: its times are the CPU's counter", NULL),
	      "a TSC dump is said");

	/* a close record ends the file */
	dump_header(&d, 42, 0);
	dump_load(&d, 10, 0x1000, 0x10, 1, "before");
	put32(&d, 3); /* JIT_CODE_CLOSE */
	put32(&d, 16);
	put64(&d, 20);
	dump_load(&d, 30, 0x2000, 0x10, 2, "after");
	CHECK_EQ_U64(rsp_sym_add_jitdump(sym, 42, d.b, d.n, "jit-42.dump"), 1,
		     "nothing after JIT_CODE_CLOSE");
	rsp_sym_free(sym);
}

static void test_jitdump_damaged(void)
{
	struct dump d;
	struct rsp_sym_frame f;
	struct rsp_sym *sym;
	size_t whole;

	if (rsp_sym_new(&sym, NULL)) {
		CHECK(0, "rsp_sym_new");
		return;
	}
	dump_header(&d, 50, 0);
	dump_load(&d, 10, 0x1000, 0x10, 1, "a");
	dump_load(&d, 20, 0x2000, 0x10, 2, "b");
	whole = d.n;
	dump_load(&d, 30, 0x3000, 0x10, 3, "c");
	/* the runtime killed while writing c */
	CHECK_EQ_U64(rsp_sym_add_jitdump(sym, 50, d.b, d.n - 5, "jit-50.dump"), 2,
		     "a cut record: the two before it");
	CHECK(has_warning(sym, "jit-50.dump: a record cut short at byte", NULL),
	      "the cut is said: %s", rsp_sym_warning(sym, 0) ? rsp_sym_warning(sym, 0) : "(none)");
	CHECK_STR(lookup(sym, 50, 25, 0x2004, &f), "b", "the functions before the cut");

	d.b[whole + 4] = 8; /* c's size under a record header's */
	d.b[whole + 5] = d.b[whole + 6] = d.b[whole + 7] = 0;
	CHECK_EQ_U64(rsp_sym_add_jitdump(sym, 51, d.b, d.n, "jit-51.dump"), 2,
		     "a record shorter than its header ends the read");
	CHECK(has_warning(sym, "jit-51.dump: a record shorter than its header", NULL),
	      "said");

	dump_header(&d, 52, 0);
	dump_load(&d, 10, 0x1000, 0x10, 1, "name");
	d.b[40 + 4] = 16 + 40 + 2; /* the name's NUL outside the record */
	CHECK_EQ_U64(rsp_sym_add_jitdump(sym, 52, d.b, d.n, "jit-52.dump"), 0,
		     "a load without its name's end");
	CHECK(has_warning(sym, "jit-52.dump: a code load without its name", NULL), "said");

	dump_header(&d, 53, 0);
	dump_load(&d, 10, 0x1000, 0x10, 1, "big");
	memcpy(d.b + 40 + 16 + 24, &(uint64_t){ 0x1000000 }, 8); /* code_size past the record */
	CHECK_EQ_U64(rsp_sym_add_jitdump(sym, 53, d.b, d.n, "jit-53.dump"), 0,
		     "a load whose code does not fit");
	CHECK(has_warning(sym, "jit-53.dump: a code load whose code does not fit", NULL), "said");

	dump_header(&d, 54, 0);
	d.b[0] = 0x4a, d.b[1] = 0x69, d.b[2] = 0x54, d.b[3] = 0x44; /* big-endian magic */
	CHECK_EQ_U64(rsp_sym_add_jitdump(sym, 54, d.b, d.n, "jit-54.dump"), 0, "other byte order");
	CHECK(has_warning(sym, "jit-54.dump: not a jitdump file (written on a machine of the "
			       "other byte order)",
			  NULL),
	      "said");
	CHECK_EQ_U64(rsp_sym_add_jitdump(sym, 55, "JiT", 3, "jit-55.dump"), 0, "3 bytes");
	CHECK(has_warning(sym, "jit-55.dump: not a jitdump file (shorter than its header)", NULL),
	      "said");
	dump_header(&d, 56, 0);
	d.b[4] = 2;
	CHECK_EQ_U64(rsp_sym_add_jitdump(sym, 56, d.b, d.n, "jit-56.dump"), 0, "version 2");
	CHECK(has_warning(sym, "jit-56.dump: jitdump version 2", NULL), "said");
	CHECK_EQ_U64(rsp_sym_n_warnings(sym), 7, "a line per damaged file");
	rsp_sym_free(sym);
}

static void write_file(const char *dir, const char *name, const void *p, size_t n)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	CHECK(f && fwrite(p, 1, n, f) == n && !fclose(f), "write %s", path);
}

/* the files beside a recording, as rsp record copies them */
static void test_dir(void)
{
	char dir[] = "/tmp/rsp-test-jit-XXXXXX", cmd[128];
	static const char map[] = "1000 10 from_map\n";
	struct rsp_sym_opts o = { 0 };
	struct rsp_sym_frame f;
	struct rsp_sym *sym;
	struct dump d;

	if (!mkdtemp(dir)) {
		CHECK(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	write_file(dir, "perf-60.map", map, strlen(map));
	dump_header(&d, 60, 0);
	dump_load(&d, 100, 0x1000, 0x10, 1, "from_dump");
	write_file(dir, "jit-60.dump", d.b, d.n);
	write_file(dir, "perf-61.map", "garbage\n", 8);
	write_file(dir, "perf-62.map.bak", map, strlen(map));
	write_file(dir, "notes", "x", 1);
	o.jit_dir = dir;
	CHECK_EQ_U64(rsp_sym_new(&sym, &o), 0, "rsp_sym_new with a JIT directory");
	if (sym) {
		CHECK_STR(lookup(sym, 60, 50, 0x1004, &f), "from_map", "the map before the dump's load");
		CHECK_STR(lookup(sym, 60, 100, 0x1004, &f), "from_dump", "the dump from its load on");
		CHECK_STR(lookup(sym, 62, 100, 0x1004, &f), "(none)", "a file of another name: not read");
		CHECK_EQ_U64(rsp_sym_n_warnings(sym), 1, "one warning: the damaged map");
		CHECK(has_warning(sym, "perf-61.map: 1 of 1 lines", NULL), "it names the file");
		rsp_sym_free(sym);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK(system(cmd) == 0, "rm the directory");
	o.jit_dir = "/nonexistent/rsp.jit";
	CHECK_EQ_U64(rsp_sym_new(&sym, &o), 0, "a JIT directory that is not there");
	CHECK(sym && has_warning(sym, "/nonexistent/rsp.jit: cannot be read", NULL), "said");
	rsp_sym_free(sym);
}

int main(int argc, char **argv)
{
	tap_init(argc, argv);
	TAP_RUN("map", test_map());
	TAP_RUN("map/file_first", test_file_first());
	TAP_RUN("map/damaged", test_map_damaged());
	TAP_RUN("jitdump", test_jitdump());
	TAP_RUN("jitdump/damaged", test_jitdump_damaged());
	TAP_RUN("dir", test_dir());
	return tap_done();
}
