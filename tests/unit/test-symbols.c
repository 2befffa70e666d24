/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * model/symbols.h against real files: this process (its own functions, libc, a
 * C++ function), the build-time variants of symbols-helper (stripped with
 * MiniDebugInfo, stripped + separate debug file), hostile files, and DWARF
 * unwinding of stacks this process copies of itself: a plain call chain, a
 * chain through libc's qsort (no frame pointers), a thread blocked in read().
 * Built with -fomit-frame-pointer, so the unwinds can only come from CFI.
 *
 * One file of over 1000 lines on purpose: the naming and the unwinding tests
 * share this process's maps and files (the helpers below) and the stacks
 * main() captures of its own frames before anything else runs; and
 * ./setup.sh's ThreadSanitizer run names this binary for the unwinder's
 * threads.  Two binaries would move that scaffolding into a header for no
 * gain to a reader.
 *
 * usage: test-symbols HELPER HELPER-MINI HELPER-STRIPPED HELPER-DEBUG
 */
#include <dlfcn.h>
#include <elf.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#else
#define VALGRIND_MAKE_MEM_DEFINED(p, n) ((void)(p), (void)(n))
#endif

#include "symbols/symbols.h"
#include "tap.h"

#ifdef __clang__
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone)) /* no .constprop/.isra copies */
#endif
#define STACK_COPY 8192

void *rsp_test_cxx_method(void); /* symbols-cxx.cc */

/* --- captured stacks ------------------------------------------------------------ */

struct capture {
	uint64_t regs[24]; /* perf order: the set bits of mask */
	uint64_t mask;
	unsigned char stack[STACK_COPY];
	size_t stack_len;
	volatile int done;
};

static struct capture cap_levels, cap_qsort, cap_read;
static uint64_t main_stack_end;
static volatile uint64_t sink; /* keeps results (and calls) alive */

/* bx bp sp ip r12 r13 r14 r15 */
#define CALLEE_SAVED_MASK ((1ull << 1) | (1ull << 6) | (1ull << 7) | (1ull << 8) | (0xfull << 20))
#define CAP_SP 2 /* index of sp in regs for CALLEE_SAVED_MASK */

#define CAPTURE_REGS(r)                                                                    \
	__asm__ volatile("movq %%rbx, 0(%0)\n\t"                                           \
			 "movq %%rbp, 8(%0)\n\t"                                           \
			 "movq %%rsp, 16(%0)\n\t"                                          \
			 "leaq 1f(%%rip), %%rax\n\t"                                       \
			 "movq %%rax, 24(%0)\n\t"                                          \
			 "movq %%r12, 32(%0)\n\t"                                          \
			 "movq %%r13, 40(%0)\n\t"                                          \
			 "movq %%r14, 48(%0)\n\t"                                          \
			 "movq %%r15, 56(%0)\n"                                            \
			 "1:\n"                                                            \
			 :                                                                 \
			 : "r"(r)                                                          \
			 : "rax", "memory")

/* Reads the live stack above sp (other frames' bytes): not for ASan's eyes.  The
 * bytes are what the kernel would copy: defined, as far as valgrind cares. */
static NOINLINE __attribute__((no_sanitize_address)) void copy_stack(struct capture *c, uint64_t sp)
{
	const volatile unsigned char *src = (const volatile unsigned char *)(uintptr_t)sp;
	size_t n = STACK_COPY;

	if (main_stack_end > sp && main_stack_end - sp < n)
		n = main_stack_end - sp;
	for (size_t i = 0; i < n; i++)
		c->stack[i] = src[i];
	c->stack_len = n;
	VALGRIND_MAKE_MEM_DEFINED(c->stack, n);
	VALGRIND_MAKE_MEM_DEFINED(c->regs, sizeof(c->regs));
}

static NOINLINE int level3(int x)
{
	CAPTURE_REGS(cap_levels.regs);
	cap_levels.mask = CALLEE_SAVED_MASK;
	copy_stack(&cap_levels, cap_levels.regs[CAP_SP]);
	return x + 3;
}

static NOINLINE int level2(int x)
{
	return level3(x * 2) + 2;
}

static NOINLINE int level1(int x)
{
	return level2(x + 1) * 3;
}

static NOINLINE int cmp_capture(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	if (!cap_qsort.done) {
		CAPTURE_REGS(cap_qsort.regs);
		cap_qsort.mask = CALLEE_SAVED_MASK;
		copy_stack(&cap_qsort, cap_qsort.regs[CAP_SP]);
		cap_qsort.done = 1;
	}
	return (x > y) - (x < y);
}

/* libc's own functions, not a sanitizer's interceptors of them */
static void *libc_sym(const char *name)
{
	void *h = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	void *p = h ? dlsym(h, name) : NULL;

	if (h)
		dlclose(h);
	return p;
}

static void (*libc_qsort)(void *, size_t, size_t, int (*)(const void *, const void *));
static ssize_t (*libc_read)(int, void *, size_t);

static NOINLINE int qlevel2(int n)
{
	int v[16];

	for (int i = 0; i < 16; i++)
		v[i] = (i * 7 + n) % 16;
	libc_qsort(v, 16, sizeof(v[0]), cmp_capture);
	return v[0] + n;
}

static NOINLINE int qlevel1(int n)
{
	return qlevel2(n + 1) * 2;
}

/* A thread blocked in read(): a signal handler takes the interrupted registers
 * from its ucontext, as perf's sched_switch sample takes them from pt_regs. */
static int read_pipe[2];
static pthread_t main_thread;
static pid_t main_tid;

static NOINLINE int read_level2(int x)
{
	char c = 0;
	ssize_t r = libc_read(read_pipe[0], &c, 1);

	return (int)r + x + c;
}

static NOINLINE int read_level1(int x)
{
	return read_level2(x + 1) * 2;
}

static void on_usr1(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	const greg_t *g = uc->uc_mcontext.gregs;
	static const int order[] = { REG_RAX, REG_RBX, REG_RCX, REG_RDX, REG_RSI, REG_RDI,
				     REG_RBP, REG_RSP, REG_RIP, REG_R8,	REG_R9,	 REG_R10,
				     REG_R11, REG_R12, REG_R13, REG_R14, REG_R15 };

	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		cap_read.regs[i] = (uint64_t)g[order[i]];
	cap_read.mask = 0x1ff | (0xffull << 16); /* ax..ip, r8..r15 */
	copy_stack(&cap_read, (uint64_t)g[REG_RSP]);
	__atomic_store_n(&cap_read.done, 1, __ATOMIC_RELEASE); /* seen by release_reader() */
}

/* Is thread tid blocked in read(2)?  /proc/.../syscall: "0 fd buf ..." */
static int in_read(pid_t tid)
{
	char path[64], buf[64] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return !strncmp(buf, "0 ", 2);
}

static void *release_reader(void *arg)
{
	int i;

	for (i = 0; i < 5000 && in_read(main_tid) == 0; i++)
		usleep(1000);
	if (in_read(main_tid) < 0) /* no /proc/.../syscall: give it time */
		usleep(200 * 1000);
	pthread_kill(main_thread, SIGUSR1);
	for (i = 0; i < 5000 && !__atomic_load_n(&cap_read.done, __ATOMIC_ACQUIRE); i++)
		usleep(1000);
	if (write(read_pipe[1], "x", 1) != 1)
		abort();
	return NULL;
}

static pthread_t reader_release;

static int start_blocked_read(void)
{
	struct sigaction sa = { .sa_sigaction = on_usr1, .sa_flags = SA_SIGINFO | SA_RESTART };

	if (pipe(read_pipe) || sigaction(SIGUSR1, &sa, NULL))
		return -1;
	main_thread = pthread_self();
	main_tid = (pid_t)syscall(SYS_gettid);
	return pthread_create(&reader_release, NULL, release_reader, NULL) ? -1 : 0;
}

static void end_blocked_read(void)
{
	pthread_join(reader_release, NULL);
	close(read_pipe[0]);
	close(read_pipe[1]);
}

#ifdef __SANITIZE_THREAD__
#define TSAN_BUILD 1
#else
#define TSAN_BUILD 0
#endif

/* --- helpers ---------------------------------------------------------------------- */

NOINLINE int rsp_test_target(int x);
NOINLINE int rsp_test_target(int x)
{
	return x * 5 + 3;
}

struct smap {
	uint64_t start, end, pgoff;
	uint32_t prot;
	char path[PATH_MAX];
};

static struct smap self_maps[1024];
static size_t n_self_maps;
static char self_exe[PATH_MAX];

static void read_self_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[PATH_MAX + 128];

	n_self_maps = 0;
	while (f && n_self_maps < 1024 && fgets(line, sizeof(line), f)) {
		struct smap *m = &self_maps[n_self_maps];
		char perms[8] = "";
		unsigned long long s, e, off;
		int pos = 0;
		char *p;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &s, &e, perms, &off, &pos) < 4 ||
		    !pos)
			continue;
		p = line + pos;
		p[strcspn(p, "\n")] = '\0';
		m->start = s;
		m->end = e;
		m->pgoff = off;
		m->prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
			  (perms[2] == 'x' ? PROT_EXEC : 0);
		snprintf(m->path, sizeof(m->path), "%s", *p ? p : "//anon");
		n_self_maps++;
	}
	if (f)
		fclose(f);
}

static uint64_t mapping_end(uint64_t addr)
{
	for (size_t i = 0; i < n_self_maps; i++)
		if (self_maps[i].start <= addr && addr < self_maps[i].end)
			return self_maps[i].end;
	return 0;
}

/* This process's maps as pid's, at @time; only @path's when @path. */
static int add_self_maps(struct rsp_sym *sym, int pid, uint64_t time, const char *path,
			 const uint8_t *id, size_t id_len)
{
	int n = 0;

	for (size_t i = 0; i < n_self_maps; i++) {
		const struct smap *m = &self_maps[i];

		if (path && strcmp(m->path, path))
			continue;
		if (!rsp_sym_add_map(sym, pid, time, m->start, m->end - m->start, m->pgoff, m->prot,
				     m->path, id, id_len))
			n++;
	}
	return n;
}

static size_t file_build_id(const char *path, uint8_t *id)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	const void *p;
	ssize_t n = elf ? dwelf_elf_gnu_build_id(elf, &p) : -1;

	if (n > 0 && n <= 20)
		memcpy(id, p, (size_t)n);
	else
		n = 0;
	elf_end(elf);
	if (fd >= 0)
		close(fd);
	return (size_t)n;
}

/* st_value of @name in @path's .symtab or .dynsym; 0 if absent.  Also tells if
 * the file has a .symtab / a .gnu_debugdata at all. */
static uint64_t file_symbol(const char *path, const char *name, int *has_symtab,
			    int *has_debugdata)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	Elf_Scn *scn = NULL;
	uint64_t value = 0;
	size_t shstrndx = 0;

	if (has_symtab)
		*has_symtab = 0;
	if (has_debugdata)
		*has_debugdata = 0;
	if (elf)
		elf_getshdrstrndx(elf, &shstrndx);
	while (elf && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		const char *sname;

		if (!gelf_getshdr(scn, &sh))
			continue;
		sname = elf_strptr(elf, shstrndx, sh.sh_name);
		if (has_debugdata && sname && !strcmp(sname, ".gnu_debugdata"))
			*has_debugdata = 1;
		if ((sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		if (has_symtab && sh.sh_type == SHT_SYMTAB)
			*has_symtab = 1;
		for (size_t i = 0; sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *n;

			if (!gelf_getsym(data, (int)i, &s))
				continue;
			n = elf_strptr(elf, sh.sh_link, s.st_name);
			if (n && !strcmp(n, name))
				value = s.st_value;
		}
	}
	elf_end(elf);
	if (fd >= 0)
		close(fd);
	return value;
}

/* Map @layout's PT_LOADs at @base for pid, as the kernel would, naming @path. */
static int add_file_maps(struct rsp_sym *sym, int pid, uint64_t time, const char *layout,
			 const char *path, uint64_t base, const uint8_t *id, size_t id_len)
{
	int fd = open(layout, O_RDONLY | O_CLOEXEC), n = 0;
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	size_t phnum = 0;

	if (elf && elf_getphdrnum(elf, &phnum))
		phnum = 0;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		uint64_t s, e;
		uint32_t prot;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !ph.p_filesz)
			continue;
		s = base + (ph.p_vaddr & ~4095ull);
		e = base + ((ph.p_vaddr + ph.p_filesz + 4095) & ~4095ull);
		prot = (ph.p_flags & PF_R ? PROT_READ : 0) | (ph.p_flags & PF_W ? PROT_WRITE : 0) |
		       (ph.p_flags & PF_X ? PROT_EXEC : 0);
		if (!rsp_sym_add_map(sym, pid, time, s, e - s, ph.p_offset & ~4095ull, prot, path,
				     id, id_len))
			n++;
	}
	elf_end(elf);
	if (fd >= 0)
		close(fd);
	return n;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static const char *func_or(const struct rsp_sym_frame *f)
{
	return f->func ? f->func : "(null)";
}

static int str_ends(const char *s, const char *suffix)
{
	size_t n = s ? strlen(s) : 0, m = strlen(suffix);

	return s && n >= m && !strcmp(s + n - m, suffix);
}

static int copy_file(const char *from, const char *to, size_t max)
{
	int in = open(from, O_RDONLY | O_CLOEXEC), out = -1, ret = -1;
	char buf[65536];
	size_t total = 0;
	ssize_t r;

	if (in < 0)
		return -1;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	while (out >= 0 && total < max && (r = read(in, buf, sizeof(buf))) > 0) {
		size_t n = (size_t)r < max - total ? (size_t)r : max - total;

		if (write(out, buf, n) != (ssize_t)n)
			goto out;
		total += n;
	}
	ret = 0;
out:
	close(in);
	if (out >= 0)
		close(out);
	return ret;
}

/* --- the tests -------------------------------------------------------------------- */

static void test_kallsyms(void)
{
	static const char text[] = "ffffffff81000000 T _text\n"
				   "ffffffff81000100 T startup_64\n"
				   "ffffffff81000200 t helper_fn\n"
				   "ffffffff81000300 D some_data\n"
				   "ffffffff81000400 W weak_fn\n"
				   "ffffffff81000400 t weak_alias_local\n"
				   "ffffffff81000500 T dup_global\n"
				   "ffffffff81000500 t dup_local\n"
				   "ffffffffc0001000 t ext4_fn\t[ext4]\n"
				   "ffffffffc0002000 T ext4_other\t[ext4]\n"
				   "0000000000000000 T zeroed\n"
				   "this is not a symbol line\n"
				   "ffffffffzz000000 T bad_hex\n"
				   "ffffffff81000050 T\n"
				   "ffffffffc0003000 t xfs_fn [xfs]"; /* no final newline */
	struct rsp_sym_frame f;
	struct rsp_sym *sym;
	int n;

	if (rsp_sym_new(&sym, NULL)) {
		CHECK(0, "rsp_sym_new");
		return;
	}
	n = rsp_sym_set_kallsyms(sym, text, sizeof(text) - 1);
	CHECK_EQ_U64(n, 8, "kallsyms: text symbols kept, aliases merged");

	rsp_sym_lookup(sym, 1, 0, 0xffffffff81000100ull, true, &f);
	CHECK_STR(f.func, "startup_64", "kallsyms: exact start");
	CHECK_EQ_U64(f.offset, 0, "kallsyms: exact start offset");
	CHECK_STR(f.dso, "[kernel.kallsyms]", "kallsyms: kernel dso");
	CHECK(f.kernel, "kallsyms: frame is kernel");

	rsp_sym_lookup(sym, 1, 0, 0xffffffff81000350ull, true, &f);
	CHECK_STR(f.func, "helper_fn", "kallsyms: middle (data symbol skipped)");
	CHECK_EQ_U64(f.offset, 0x150, "kallsyms: middle offset");

	rsp_sym_lookup(sym, 1, 0, 0xffffffff80ffffffull, true, &f);
	CHECK(!f.func && !strcmp(f.dso, "[unknown]"), "kallsyms: before the first symbol: %s %s",
	      func_or(&f), f.dso);

	rsp_sym_lookup(sym, 1, 0, 0xffffffffc0001010ull, false, &f);
	CHECK_STR(f.func, "ext4_fn", "kallsyms: module symbol (kernel by address)");
	CHECK_STR(f.dso, "[ext4]", "kallsyms: module dso");
	CHECK(f.kernel, "kallsyms: kernel by address");

	rsp_sym_lookup(sym, 1, 0, 0xffffffff81000500ull, true, &f);
	CHECK_STR(f.func, "dup_global", "kallsyms: alias prefers the global name");

	rsp_sym_lookup(sym, 1, 0, 0xffffffffc0003010ull, true, &f);
	CHECK_STR(f.func, "xfs_fn", "kallsyms: last line without newline");
	CHECK_STR(f.dso, "[xfs]", "kallsyms: last module");
	rsp_sym_lookup(sym, 1, 0, 0xffffffffc0009000ull, true, &f);
	CHECK(!f.func, "kallsyms: far past the last symbol: %s", func_or(&f));

	/* hostile text: NULs, no newline, huge names; then a second table */
	{
		char junk[4096];

		for (size_t i = 0; i < sizeof(junk); i++)
			junk[i] = (char)(i * 131 + 7);
		memcpy(junk, "ffffffff81000000 T ok\n", 22);
		n = rsp_sym_set_kallsyms(sym, junk, sizeof(junk));
		CHECK(n >= 1, "kallsyms: junk text parses what it can (%d)", n);
		n = rsp_sym_set_kallsyms(sym, "", 0);
		CHECK_EQ_U64(n, 0, "kallsyms: empty text");
		rsp_sym_lookup(sym, 1, 0, 0xffffffff81000100ull, true, &f);
		CHECK(!f.func, "kallsyms: replaced table is used");
	}
	rsp_sym_free(sym);
}

static void test_self(void)
{
	struct rsp_sym_frame f;
	struct rsp_sym_stats st;
	struct rsp_sym *sym;
	int pid = getpid();
	uint64_t a;
	Dl_info info;

	if (rsp_sym_new(&sym, NULL)) {
		CHECK(0, "rsp_sym_new");
		return;
	}
	CHECK(add_self_maps(sym, pid, 0, NULL, NULL, 0) > 5, "self: maps from /proc/self/maps");

	a = (uint64_t)(uintptr_t)&rsp_test_target;
	rsp_sym_lookup(sym, pid, 100, a, false, &f);
	CHECK_STR(f.func, "rsp_test_target", "self: a function of the test");
	CHECK_EQ_U64(f.offset, 0, "self: offset at the start");
	CHECK(str_ends(f.dso, "/test-symbols"), "self: dso is the test binary: %s", f.dso);
	CHECK(!f.kernel, "self: user frame");
	if (dladdr((void *)(uintptr_t)a, &info))
		CHECK_EQ_U64(f.rel_addr, a - (uint64_t)(uintptr_t)info.dli_fbase,
			     "self: rel_addr is the ELF address");
	rsp_sym_lookup(sym, pid, 100, a + 3, false, &f);
	CHECK(f.func && !strcmp(f.func, "rsp_test_target") && f.offset == 3,
	      "self: inside the function: %s+%llu", func_or(&f), (unsigned long long)f.offset);

	rsp_sym_lookup(sym, pid, 100, (uint64_t)(uintptr_t)&level2, false, &f);
	CHECK_STR(f.func, "level2", "self: a static function");

	rsp_sym_lookup(sym, pid, 100, (uint64_t)(uintptr_t)libc_read, false, &f);
	CHECK(f.func && (!strcmp(f.func, "read") || !strcmp(f.func, "__read") ||
			 !strcmp(f.func, "__libc_read")),
	      "libc: read: %s", func_or(&f));
	CHECK(f.dso && strstr(f.dso, "libc.so"), "libc: dso %s", f.dso);
	rsp_sym_lookup(sym, pid, 100, (uint64_t)(uintptr_t)libc_qsort + 2, false, &f);
	CHECK(f.func && !strcmp(f.func, "qsort") && f.offset == 2, "libc: qsort+2: %s+%llu",
	      func_or(&f), (unsigned long long)f.offset);

	rsp_sym_lookup(sym, pid, 100, (uint64_t)(uintptr_t)rsp_test_cxx_method(), false, &f);
	CHECK_STR(f.func, "ns::Klass::method(int)", "c++: demangled");

	rsp_sym_stats(sym, &st);
	a = st.cache_hits;
	rsp_sym_lookup(sym, pid, 100, (uint64_t)(uintptr_t)&level2, false, &f);
	rsp_sym_stats(sym, &st);
	CHECK_EQ_U64(st.cache_hits, a + 1, "cache: a repeated address is a hit");
	CHECK_STR(f.func, "level2", "cache: same answer");

	/* non-file maps keep their name, no function */
	for (size_t i = 0; i < n_self_maps; i++) {
		if (!strcmp(self_maps[i].path, "[vdso]") || !strcmp(self_maps[i].path, "[heap]") ||
		    !strcmp(self_maps[i].path, "[stack]")) {
			rsp_sym_lookup(sym, pid, 100, self_maps[i].start + 16, false, &f);
			CHECK(!f.func && !strcmp(f.dso, self_maps[i].path), "special map %s: %s %s",
			      self_maps[i].path, func_or(&f), f.dso);
		}
	}
	rsp_sym_lookup(sym, pid, 100, 0x10, false, &f);
	CHECK(!f.func && !strcmp(f.dso, "[unknown]") && f.rel_addr == 0x10,
	      "unmapped address: %s %s", func_or(&f), f.dso);
	rsp_sym_lookup(sym, 999999, 100, (uint64_t)(uintptr_t)&level2, false, &f);
	CHECK(!f.func && !strcmp(f.dso, "[unknown]"), "unknown pid");

	rsp_sym_stats(sym, &st);
	CHECK_EQ_U64(st.dsos_not_found, 0, "stats: every real file was found");
	CHECK_EQ_U64(st.dsos_build_id_mismatch, 0, "stats: no mismatch");
	rsp_sym_free(sym);
}

static void test_history(void)
{
	uint64_t a = (uint64_t)(uintptr_t)&rsp_test_target;
	struct rsp_sym_frame f;
	struct rsp_sym *sym;

	if (rsp_sym_new(&sym, NULL)) {
		CHECK(0, "rsp_sym_new");
		return;
	}
	add_self_maps(sym, 4242, 10, self_exe, NULL, 0);
	rsp_sym_lookup(sym, 4242, 5, a, false, &f);
	CHECK(!f.func && !strcmp(f.dso, "[unknown]"), "history: map from t=10 not used at t=5: %s",
	      func_or(&f));
	rsp_sym_lookup(sym, 4242, 10, a, false, &f);
	CHECK_STR(f.func, "rsp_test_target", "history: used at t=10");

	CHECK_EQ_U64(rsp_sym_exec(sym, 4242, 20), 0, "history: exec");
	rsp_sym_lookup(sym, 4242, 25, a, false, &f);
	CHECK(!f.func && !strcmp(f.dso, "[unknown]"), "history: exec at t=20 ends maps (t=25)");
	rsp_sym_lookup(sym, 4242, 19, a, false, &f);
	CHECK_STR(f.func, "rsp_test_target", "history: still there at t=19");

	/* a fork copies the parent's maps at that time */
	add_self_maps(sym, 1000, 0, self_exe, NULL, 0);
	CHECK_EQ_U64(rsp_sym_fork(sym, 4343, 1000, 30), 0, "history: fork");
	rsp_sym_lookup(sym, 4343, 35, a, false, &f);
	CHECK_STR(f.func, "rsp_test_target", "history: fork copies the parent's maps");
	rsp_sym_lookup(sym, 4343, 29, a, false, &f);
	CHECK(!f.func, "history: the child has no maps before the fork");
	CHECK_EQ_U64(rsp_sym_fork(sym, 1000, 1000, 31), 0, "history: a thread is not a fork");
	rsp_sym_lookup(sym, 1000, 32, a, false, &f);
	CHECK_STR(f.func, "rsp_test_target", "history: thread creation leaves maps alone");

	/* an anonymous map over part of the text, later */
	CHECK_EQ_U64(rsp_sym_add_map(sym, 4343, 40, a & ~4095ull, 4096, 0, PROT_READ | PROT_EXEC,
				     "//anon", NULL, 0),
		     0, "history: map over the text");
	rsp_sym_lookup(sym, 4343, 45, a, false, &f);
	CHECK(!f.func && !strcmp(f.dso, "//anon"), "history: the new map wins after t=40: %s %s",
	      func_or(&f), f.dso);
	rsp_sym_lookup(sym, 4343, 39, a, false, &f);
	CHECK_STR(f.func, "rsp_test_target", "history: the old map before t=40");
	rsp_sym_lookup(sym, 4343, 45, (uint64_t)(uintptr_t)&level2, false, &f);
	if ((((uint64_t)(uintptr_t)&level2) & ~4095ull) != (a & ~4095ull))
		CHECK_STR(f.func, "level2", "history: the rest of the cut map stays");
	rsp_sym_lookup(sym, 1000, 45, a, false, &f);
	CHECK_STR(f.func, "rsp_test_target", "history: the parent is not affected");

	CHECK_EQ_U64(rsp_sym_add_map(sym, 1, 0, 0x1000, 0, 0, 0, "/x", NULL, 0), (uint64_t)-EINVAL,
		     "history: empty map refused");
	CHECK_EQ_U64(rsp_sym_add_map(sym, 1, 0, UINT64_MAX - 10, 4096, 0, 0, "/x", NULL, 0),
		     (uint64_t)-EINVAL, "history: wrapping map refused");
	rsp_sym_free(sym);
}

/* [vdso] has no file, but with its build id recorded, its "debug file" (here: a
 * copy of this process's vdso) gives it names.  Valgrind hides the vdso. */
static void test_vdso(struct rsp_sym *sym, const char *dir)
{
	char path[PATH_MAX], sub[PATH_MAX];
	const struct smap *v = NULL;
	struct rsp_sym_frame f;
	uint8_t id[20];
	size_t id_len, n;
	uint64_t fn;
	FILE *out;

	for (size_t i = 0; i < n_self_maps; i++)
		if (!strcmp(self_maps[i].path, "[vdso]"))
			v = &self_maps[i];
	if (!v) {
		printf("# no [vdso] (valgrind?): vdso test skipped\n");
		return;
	}
	snprintf(path, sizeof(path), "%s/vdso.so", dir);
	out = fopen(path, "wb");
	if (!out || fwrite((void *)(uintptr_t)v->start, 1, v->end - v->start, out) !=
			    v->end - v->start) {
		CHECK(0, "vdso: copy");
		if (out)
			fclose(out);
		return;
	}
	fclose(out);
	id_len = file_build_id(path, id);
	fn = file_symbol(path, "__vdso_clock_gettime", NULL, NULL);
	snprintf(sub, sizeof(sub), "%s/.build-id/%02x", dir, id_len ? id[0] : 0);
	mkdir(sub, 0755);
	n = strlen(sub);
	sub[n++] = '/';
	for (size_t i = 1; i < id_len; i++, n += 2)
		snprintf(sub + n, 3, "%02x", id[i]);
	snprintf(sub + n, sizeof(sub) - n, ".debug");
	CHECK(id_len && fn && !rename(path, sub), "vdso: copy as %s", sub);

	rsp_sym_add_map(sym, 23, 0, v->start, v->end - v->start, 0, PROT_READ | PROT_EXEC, "[vdso]",
			id, id_len);
	rsp_sym_lookup(sym, 23, 1, v->start + fn + 1, false, &f);
	CHECK(f.func && strstr(f.func, "clock_gettime") && f.offset == 1 &&
		      !strcmp(f.dso, "[vdso]"),
	      "vdso: with its build id: %s+%llu %s", func_or(&f), (unsigned long long)f.offset,
	      f.dso);
	rsp_sym_add_map(sym, 24, 0, v->start, v->end - v->start, 0, PROT_READ | PROT_EXEC, "[vdso]",
			NULL, 0);
	rsp_sym_lookup(sym, 24, 1, v->start + fn + 1, false, &f);
	CHECK(!f.func && !strcmp(f.dso, "[vdso]"), "vdso: without: no function");
	unlink(sub);
	*strrchr(sub, '/') = '\0';
	rmdir(sub);
}

static void test_build_id(const char *helper, const char *helper_debug)
{
	uint8_t id[20], wrong[20], hid[20];
	size_t id_len = file_build_id(self_exe, id), hid_len = file_build_id(helper, hid);
	uint64_t a = (uint64_t)(uintptr_t)&rsp_test_target;
	struct rsp_sym_opts opts = { 0 };
	char dir[] = "/tmp/rsp-test-symbols.XXXXXX", path[PATH_MAX];
	struct rsp_sym_stats st;
	struct rsp_sym_frame f;
	struct rsp_sym *sym;
	uint64_t alpha = file_symbol(helper, "rsp_helper_alpha", NULL, NULL);

	memset(wrong, 0xab, sizeof(wrong));
	CHECK(id_len >= 16, "build id: the test binary has one (%zu bytes)", id_len);
	if (rsp_sym_new(&sym, NULL)) {
		CHECK(0, "rsp_sym_new");
		return;
	}
	add_self_maps(sym, 10, 0, self_exe, id, id_len);
	add_self_maps(sym, 11, 0, self_exe, wrong, sizeof(wrong));
	rsp_sym_lookup(sym, 10, 1, a, false, &f);
	CHECK_STR(f.func, "rsp_test_target", "build id: matching id symbolizes");
	rsp_sym_lookup(sym, 11, 1, a, false, &f);
	CHECK(!f.func && !strcmp(f.dso, self_exe), "build id: mismatch is not symbolized: %s",
	      func_or(&f));
	rsp_sym_stats(sym, &st);
	CHECK_EQ_U64(st.dsos_build_id_mismatch, 1, "build id: mismatch counted");

	/* ids recorded apart (HEADER_BUILD_ID), even after lookups */
	add_self_maps(sym, 12, 0, self_exe, NULL, 0);
	rsp_sym_lookup(sym, 12, 1, a, false, &f);
	CHECK_STR(f.func, "rsp_test_target", "build id: no id recorded: symbolized");
	CHECK_EQ_U64(rsp_sym_set_build_id(sym, self_exe, wrong, sizeof(wrong)), 0,
		     "build id: set_build_id");
	rsp_sym_lookup(sym, 12, 1, a, false, &f);
	CHECK(!f.func, "build id: a late wrong id forgets the answers: %s", func_or(&f));
	rsp_sym_stats(sym, &st);
	CHECK_EQ_U64(st.dsos_build_id_mismatch, 2, "build id: counted per file");
	rsp_sym_set_build_id(sym, self_exe, id, id_len);
	rsp_sym_lookup(sym, 12, 1, a, false, &f);
	CHECK_STR(f.func, "rsp_test_target", "build id: the right id again");
	CHECK_EQ_U64(rsp_sym_set_build_id(sym, self_exe, id, 21), (uint64_t)-EINVAL,
		     "build id: too long refused");
	rsp_sym_free(sym);

	/* a rebuilt file (the test binary standing for the helper) + the helper's
	 * debug file under <debug_dir>/.build-id: symbols come from the debug file */
	if (!mkdtemp(dir)) {
		CHECK(0, "mkdtemp");
		return;
	}
	snprintf(path, sizeof(path), "%s/.build-id", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/.build-id/%02x", dir, hid[0]);
	mkdir(path, 0755);
	{
		size_t n = strlen(path);

		path[n++] = '/';
		for (size_t i = 1; i < hid_len; i++, n += 2)
			snprintf(path + n, 3, "%02x", hid[i]);
		snprintf(path + n, sizeof(path) - n, ".debug");
	}
	CHECK(hid_len && !copy_file(helper_debug, path, SIZE_MAX), "debug dir: %s", path);
	opts.debug_dir = dir;
	if (rsp_sym_new(&sym, &opts)) {
		CHECK(0, "rsp_sym_new");
		return;
	}
	add_file_maps(sym, 20, 0, helper, self_exe, 0x7f0000000000ull, hid, hid_len);
	rsp_sym_lookup(sym, 20, 1, 0x7f0000000000ull + alpha + 1, false, &f);
	CHECK(alpha && f.func && !strcmp(f.func, "rsp_helper_alpha") && f.offset == 1,
	      "build id: mismatching file, symbols from the build-id debug file: %s+%llu",
	      func_or(&f), (unsigned long long)f.offset);
	CHECK_EQ_U64(f.rel_addr, alpha + 1, "build id: rel_addr through the debug file");
	rsp_sym_stats(sym, &st);
	CHECK(st.dsos_build_id_mismatch == 1 && st.dsos_debug_files == 1,
	      "build id: counted: mismatch %llu, debug files %llu",
	      (unsigned long long)st.dsos_build_id_mismatch,
	      (unsigned long long)st.dsos_debug_files);
	/* deleted file, id known: the debug file serves too */
	/* the page of alpha (its file offset its address, as in the helper's PT_LOADs;
	 * where that page is depends on the build: 0x2209 with ASan) */
	rsp_sym_add_map(sym, 21, 0, 0x7f0000000000ull + (alpha & ~0xfffull), 0x1000,
			alpha & ~0xfffull, PROT_READ | PROT_EXEC, "/nonexistent/helper (deleted)",
			hid, hid_len);
	rsp_sym_lookup(sym, 21, 1, 0x7f0000000000ull + alpha, false, &f);
	CHECK(f.func && !strcmp(f.func, "rsp_helper_alpha") &&
		      !strcmp(f.dso, "/nonexistent/helper (deleted)"),
	      "deleted file with a build id: %s %s", func_or(&f), f.dso);
	rsp_sym_add_map(sym, 22, 0, 0x7f0000000000ull + (alpha & ~0xfffull), 0x1000,
			alpha & ~0xfffull, PROT_READ | PROT_EXEC, "/nonexistent/helper (deleted)",
			NULL, 0);
	rsp_sym_lookup(sym, 22, 1, 0x7f0000000000ull + alpha, false, &f);
	CHECK(!f.func && !strcmp(f.dso, "/nonexistent/helper (deleted)"),
	      "deleted file without id: name kept, no function: %s", func_or(&f));
	test_vdso(sym, dir);
	rsp_sym_free(sym);

	unlink(path);
	path[strlen(path) - (2 * hid_len - 2) - 7] = '\0'; /* .../.build-id/xx */
	rmdir(path);
	snprintf(path, sizeof(path), "%s/.build-id", dir);
	rmdir(path);
	rmdir(dir);
}

/* A whole file in memory (malloc'd), NULL if unreadable */
static char *slurp(const char *path, size_t *len)
{
	FILE *in = fopen(path, "rb");
	struct stat st;
	char *b = NULL;

	*len = 0;
	if (!in)
		return NULL;
	if (!fstat(fileno(in), &st) && (b = malloc((size_t)st.st_size + 1)))
		*len = fread(b, 1, (size_t)st.st_size, in);
	fclose(in);
	return b;
}

/* A tar member (ustar header, then the bytes, padded to 512) appended to @f;
 * @size_field: what the header says (the real size unless testing a lie). */
static void tar_member(FILE *f, const char *name, const void *data, size_t len,
		       uint64_t size_field, bool bad_sum)
{
	unsigned char h[512] = { 0 };
	static const unsigned char zero[512];
	unsigned sum = 0;

	memcpy(h, name, strlen(name));
	snprintf((char *)h + 100, 8, "%07o", 0644);
	snprintf((char *)h + 124, 12, "%011llo", (unsigned long long)size_field);
	memset(h + 148, ' ', 8);
	h[156] = '0';
	memcpy(h + 257, "ustar", 6);
	for (size_t i = 0; i < 512; i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum + (bad_sum ? 1 : 0));
	fwrite(h, 1, 512, f);
	fwrite(data, 1, len, f);
	fwrite(zero, 1, (512 - len % 512) % 512, f);
}

/* The symbol archive (rsp archive): a file found by build id in FILE.archive, and
 * archives that lie (sizes, checksums, a member of another build, a cut) answered
 * without a crash and without a wrong file. */
static void test_archive(const char *helper)
{
	uint8_t hid[20];
	size_t hid_len = file_build_id(helper, hid), len = 0;
	uint64_t alpha = file_symbol(helper, "rsp_helper_alpha", NULL, NULL);
	char dir[] = "/tmp/rsp-test-archive.XXXXXX", path[PATH_MAX], member[128];
	size_t olen = 0;
	char *bytes = slurp(helper, &len), *other = slurp(self_exe, &olen);

	if (!mkdtemp(dir) || !hid_len || !alpha) {
		CHECK(0, "archive: set-up");
		return;
	}
	snprintf(member, sizeof(member), ".build-id/%02x/", hid[0]);
	for (size_t i = 1; i < hid_len; i++)
		snprintf(member + strlen(member), 3, "%02x", hid[i]);
	snprintf(path, sizeof(path), "%s/t.archive", dir);
	for (int k = 0; k < 6 && bytes && other; k++) {
		static const char *const what[] = {
			"a good archive", "a member of another build under the id's name",
			"a size past the end", "a bad checksum", "cut inside the member",
			"a good member after a junk one",
		};
		FILE *f = fopen(path, "wb");
		struct rsp_sym_opts opts = { .sysroot = dir, .debug_dir = dir, .archive = path };
		struct rsp_sym_file sf;
		struct rsp_sym_frame fr;
		struct rsp_sym *sym;
		bool want = k == 0 || k == 5;

		if (!f)
			break;
		if (k == 5)
			tar_member(f, "junk", "xx", 2, 2, false);
		if (k == 1)
			tar_member(f, member, other, olen, olen, false);
		else
			tar_member(f, member, bytes, len, k == 2 ? len * 4 : len, k == 3);
		fclose(f);
		if (k == 4)
			truncate(path, 512 + len / 2);
		if (rsp_sym_new(&sym, &opts)) {
			CHECK(0, "archive: rsp_sym_new");
			break;
		}
		add_file_maps(sym, 30, 0, helper, "/nonexistent/helper", 0x7f0000000000ull, hid,
			      hid_len);
		rsp_sym_lookup(sym, 30, 1, 0x7f0000000000ull + alpha + 1, false, &fr);
		rsp_sym_file(sym, fr.file ? fr.file - 1 : 0, &sf);
		if (want)
			CHECK(fr.func && !strcmp(fr.func, "rsp_helper_alpha") && sf.read_from &&
				      strstr(sf.read_from, member),
			      "archive, %s: symbolized from the member (%s, from %s)", what[k],
			      func_or(&fr), sf.read_from ? sf.read_from : "nowhere");
		else
			CHECK(!fr.func && sf.state == RSP_SYM_FILE_MISSING,
			      "archive, %s: not used, the file said missing (%s, state %d)",
			      what[k], func_or(&fr), sf.state);
		rsp_sym_free(sym);
	}
	free(bytes);
	free(other);
	unlink(path);
	rmdir(dir);
}

static void test_minidebuginfo(const char *helper, const char *mini)
{
	uint64_t alpha = file_symbol(helper, "rsp_helper_alpha", NULL, NULL);
	uint64_t beta = file_symbol(helper, "rsp_helper_beta", NULL, NULL);
	uint64_t base = 0x555500000000ull;
	struct rsp_sym_frame f;
	struct rsp_sym *sym;
	int symtab, debugdata;

	file_symbol(mini, "rsp_helper_alpha", &symtab, &debugdata);
	CHECK(alpha && beta, "minidebuginfo: helper symbols %#llx %#llx",
	      (unsigned long long)alpha, (unsigned long long)beta);
	CHECK(!symtab && debugdata, "minidebuginfo: %s has no .symtab, has .gnu_debugdata", mini);
	if (rsp_sym_new(&sym, NULL)) {
		CHECK(0, "rsp_sym_new");
		return;
	}
	CHECK(add_file_maps(sym, 30, 0, mini, mini, base, NULL, 0) >= 2,
	      "minidebuginfo: segments mapped");
	rsp_sym_lookup(sym, 30, 1, base + alpha, false, &f);
	CHECK_STR(f.func, "rsp_helper_alpha", "minidebuginfo: static function");
	rsp_sym_lookup(sym, 30, 1, base + beta + 2, false, &f);
	CHECK(f.func && !strcmp(f.func, "rsp_helper_beta") && f.offset == 2,
	      "minidebuginfo: second function: %s+%llu", func_or(&f),
	      (unsigned long long)f.offset);
	CHECK(str_ends(f.dso, "symbols-helper-mini"), "minidebuginfo: dso %s", f.dso);
	rsp_sym_free(sym);
}

/*
 * A symbol outside the code names no function: gcc -flto leaves `FILE.c.HASH`
 * markers (no type, no size) in .debug_info at values that may fall inside a
 * function; the function's own name stays.
 */
static void test_not_code(const char *helper, const char *marker)
{
	uint64_t alpha = file_symbol(helper, "rsp_helper_alpha", NULL, NULL);
	uint64_t mark = file_symbol(marker, "symbols-helper.c.5eed1e55", NULL, NULL);
	uint64_t base = 0x555580000000ull;
	struct rsp_sym_frame f;
	struct rsp_sym *sym;

	CHECK(alpha && mark == alpha + 1, "a marker at the function's address + 1 (%#llx, %#llx)",
	      (unsigned long long)alpha, (unsigned long long)mark);
	if (rsp_sym_new(&sym, NULL)) {
		CHECK(0, "rsp_sym_new");
		return;
	}
	add_file_maps(sym, 45, 0, marker, marker, base, NULL, 0);
	rsp_sym_lookup(sym, 45, 1, base + alpha + 2, false, &f);
	CHECK(f.func && !strcmp(f.func, "rsp_helper_alpha") && f.offset == 2,
	      "a symbol in .debug_info inside a function: the function's name, %s+%llu",
	      func_or(&f), (unsigned long long)f.offset);
	rsp_sym_free(sym);
}

/* The address of section @name of the ELF file @path; 0: none. */
static uint64_t section_addr(const char *path, const char *name, uint64_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	Elf_Scn *scn = NULL;
	size_t shstrndx = 0;
	uint64_t addr = 0;

	if (elf && elf_getshdrstrndx(elf, &shstrndx))
		shstrndx = 0;
	while (elf && !addr && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *sname;

		if (gelf_getshdr(scn, &sh) && (sname = elf_strptr(elf, shstrndx, sh.sh_name)) &&
		    !strcmp(sname, name)) {
			addr = sh.sh_addr;
			*size = sh.sh_size;
		}
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return addr;
}

/*
 * A symbol without a size reaches the next symbol, not past its section: crt's
 * _init (no size) ends .init, and .plt's stubs after it have no symbol (a
 * sample in a stub was named _init+0x30).  The stubs are named as objdump
 * labels them (the ground truth: its "<strtol@plt>:" lines), in a lazy PLT, in
 * IBT's .plt.sec and in .plt.got (crt's call of __cxa_finalize, whose address
 * is also taken); .plt's first entry (the resolver's call) has no name.
 */
static void test_plt(const char *helper, const char *what, bool ibt)
{
	uint64_t init_size = 0, plt_size = 0, sec_size = 0, base = 0x555590000000ull;
	uint64_t init = section_addr(helper, ".init", &init_size);
	uint64_t plt = section_addr(helper, ".plt", &plt_size);
	uint64_t sec = section_addr(helper, ".plt.sec", &sec_size);
	char cmd[PATH_MAX + 64], line[512];
	struct rsp_sym_frame f;
	struct rsp_sym *sym;
	int labels = 0, gots = 0;
	FILE *p;

	CHECK(init && plt > init && plt_size >= 0x20 && !sec == !ibt,
	      "%s: .init at %#llx, then .plt at %#llx, .plt.sec at %#llx", what,
	      (unsigned long long)init, (unsigned long long)plt, (unsigned long long)sec);
	if (!init || plt <= init || plt_size < 0x20 || rsp_sym_new(&sym, NULL))
		return;
	add_file_maps(sym, 46, 0, helper, helper, base, NULL, 0);
	if (file_symbol(helper, "_init", NULL, NULL) == init) {
		rsp_sym_lookup(sym, 46, 1, base + init + 4, false, &f);
		CHECK(f.func && !strcmp(f.func, "_init") && f.offset == 4, "%s: in .init: _init+4, %s+%llu",
		      what, func_or(&f), (unsigned long long)f.offset);
	}
	rsp_sym_lookup(sym, 46, 1, base + plt + 4, false, &f);
	CHECK(!f.func && f.dso && f.rel_addr == plt + 4,
	      "%s: .plt's first entry: no function, %s+%#llx (%s)", what, f.dso ? f.dso : "-",
	      (unsigned long long)f.rel_addr, func_or(&f));

	snprintf(cmd, sizeof(cmd), "objdump -d -j %s -j .plt.got '%s'", ibt ? ".plt.sec" : ".plt",
		 helper);
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p)) {
		unsigned long long a;
		char label[256];

		/* not "<strtol@plt-0x10>:", objdump's name for .plt's first entry */
		if (sscanf(line, "%llx <%255[^>]>:", &a, label) != 2 || !str_ends(label, "@plt"))
			continue;
		labels++;
		rsp_sym_lookup(sym, 46, 1, base + a + 6, false, &f);
		CHECK(f.func && !strcmp(f.func, label) && f.offset == 6, "%s: %#llx: %s+6, %s+%llu",
		      what, a, label, func_or(&f), (unsigned long long)f.offset);
		if (strstr(label, "__cxa_finalize")) /* .plt.got's, through its GOT slot */
			gots++;
		else if (ibt) { /* the same function's lazy stub in .plt, in .rela.plt's order */
			rsp_sym_lookup(sym, 46, 1, base + plt + (a - sec) + 16 + 2, false, &f);
			CHECK(f.func && !strcmp(f.func, label), "%s: %s's lazy stub in .plt: %s", what,
			      label, func_or(&f));
		}
	}
	CHECK(p && pclose(p) == 0 && labels >= 2 && gots == 1,
	      "%s: objdump labels %d stubs, %d of them in .plt.got", what, labels, gots);
	rsp_sym_free(sym);
}

static void test_debug_file(const char *helper, const char *stripped, const char *debug)
{
	uint64_t alpha = file_symbol(helper, "rsp_helper_alpha", NULL, NULL);
	uint64_t base = 0x555600000000ull;
	char dir[] = "/tmp/rsp-test-symbols.XXXXXX", path[PATH_MAX], sub[PATH_MAX];
	struct rsp_sym_opts opts = { 0 };
	struct rsp_sym_frame f;
	struct rsp_sym *sym;
	uint8_t id[20];
	size_t id_len = file_build_id(stripped, id), n;
	int symtab = 1;

	file_symbol(stripped, "rsp_helper_alpha", &symtab, NULL);
	CHECK(!symtab && id_len, "debug file: %s is stripped, has a build id", stripped);
	if (!mkdtemp(dir) || !id_len) {
		CHECK(0, "mkdtemp");
		return;
	}
	/* without the debug file: no name */
	opts.debug_dir = dir;
	if (rsp_sym_new(&sym, &opts))
		return;
	add_file_maps(sym, 40, 0, stripped, stripped, base, NULL, 0);
	rsp_sym_lookup(sym, 40, 1, base + alpha, false, &f);
	CHECK(!f.func || strcmp(f.func, "rsp_helper_alpha"),
	      "debug file: absent, the stripped file has no name: %s", func_or(&f));
	rsp_sym_free(sym);

	snprintf(sub, sizeof(sub), "%s/.build-id", dir);
	mkdir(sub, 0755);
	snprintf(sub, sizeof(sub), "%s/.build-id/%02x", dir, id[0]);
	mkdir(sub, 0755);
	n = (size_t)snprintf(path, sizeof(path), "%s/", sub);
	for (size_t i = 1; i < id_len; i++, n += 2)
		snprintf(path + n, 3, "%02x", id[i]);
	snprintf(path + n, sizeof(path) - n, ".debug");
	CHECK(!copy_file(debug, path, SIZE_MAX), "debug file: installed as %s", path);

	if (rsp_sym_new(&sym, &opts))
		return;
	add_file_maps(sym, 40, 0, stripped, stripped, base, NULL, 0);
	rsp_sym_lookup(sym, 40, 1, base + alpha + 4, false, &f);
	CHECK(f.func && !strcmp(f.func, "rsp_helper_alpha") && f.offset == 4,
	      "debug file: found by build id: %s+%llu", func_or(&f), (unsigned long long)f.offset);
	CHECK(str_ends(f.dso, "symbols-helper-stripped"), "debug file: dso is the mapped file");
	rsp_sym_free(sym);

	unlink(path);
	rmdir(sub);
	snprintf(sub, sizeof(sub), "%s/.build-id", dir);
	rmdir(sub);
	rmdir(dir);
}

/*
 * Which files name only their exported functions (rsp_sym_file().dynamic_only,
 * for rsp info's "only its exported functions (.dynsym)"): the helper linked
 * with -rdynamic and stripped names main, not its static rsp_helper_alpha; the
 * helper itself, its MiniDebugInfo variant and the -rdynamic one unstripped
 * name both; the stripped helper without exports names nothing (no symbols).
 */
static void test_dynamic_only(char (*helpers)[PATH_MAX])
{
	static const struct {
		int file, addr_from; /* helpers[]: the file mapped, the one with its addresses */
		bool main_named, alpha_named, dynamic_only;
		enum rsp_sym_file_state state;
	} c[] = {
		{ 0, 0, true, true, false, RSP_SYM_FILE_READ },
		{ 1, 0, true, true, false, RSP_SYM_FILE_READ },
		{ 2, 0, false, false, false, RSP_SYM_FILE_NO_SYMBOLS },
		{ 4, 4, true, true, false, RSP_SYM_FILE_READ },
		{ 5, 4, true, false, true, RSP_SYM_FILE_READ },
	};
	uint64_t base = 0x555700000000ull;

	for (size_t k = 0; k < sizeof(c) / sizeof(c[0]); k++) {
		const char *file = helpers[c[k].file], *from = helpers[c[k].addr_from];
		uint64_t alpha = file_symbol(from, "rsp_helper_alpha", NULL, NULL);
		uint64_t mainf = file_symbol(from, "main", NULL, NULL);
		struct rsp_sym_opts opts = { .debug_dir = "/nonexistent" };
		struct rsp_sym_frame fm, fa;
		struct rsp_sym_file sf;
		struct rsp_sym *sym;

		if (!alpha || !mainf || rsp_sym_new(&sym, &opts)) {
			CHECK(0, "dynamic only: %s: symbols of %s", file, from);
			continue;
		}
		add_file_maps(sym, 50, 0, file, file, base, NULL, 0);
		rsp_sym_lookup(sym, 50, 1, base + mainf, false, &fm);
		rsp_sym_lookup(sym, 50, 1, base + alpha, false, &fa);
		rsp_sym_file(sym, fa.file ? fa.file - 1 : 0, &sf);
		CHECK((fm.func && !strcmp(fm.func, "main")) == c[k].main_named &&
			      (fa.func && !strcmp(fa.func, "rsp_helper_alpha")) == c[k].alpha_named &&
			      sf.state == c[k].state && sf.dynamic_only == c[k].dynamic_only,
		      "dynamic only: %s: main %s, rsp_helper_alpha %s, state %d, only exported %d "
		      "(want %d, %d, %d, %d)", strrchr(file, '/') + 1, func_or(&fm), func_or(&fa),
		      sf.state, sf.dynamic_only, c[k].main_named, c[k].alpha_named, c[k].state,
		      c[k].dynamic_only);
		rsp_sym_free(sym);
	}
}

/* Symbolized frames of an unwind, for the checks and the log. */
static int unwind_names(struct rsp_sym *sym, const struct capture *c, const char **names,
			const char **dsos, size_t max, uint64_t *ips)
{
	int n = rsp_sym_unwind(sym, getpid(), 100, c->regs, c->mask, c->stack, c->stack_len, ips,
			       max);

	for (int i = 0; i < n; i++) {
		struct rsp_sym_frame f;

		rsp_sym_lookup(sym, getpid(), 100, ips[i], false, &f);
		names[i] = f.func ? f.func : "?";
		dsos[i] = f.dso;
		printf("#   %2d %#llx %s (%s)\n", i, (unsigned long long)ips[i], names[i], f.dso);
	}
	return n;
}

static int find_name(const char **names, int from, int n, const char *name)
{
	for (int i = from; i < n; i++)
		if (!strcmp(names[i], name))
			return i;
	return -1;
}

static void test_unwind(void)
{
	const char *names[64], *dsos[64];
	uint64_t ips[64];
	struct rsp_sym_stats st;
	struct rsp_sym *sym;
	struct capture bad;
	int n, i, j;

	if (rsp_sym_new(&sym, NULL)) {
		CHECK(0, "rsp_sym_new");
		return;
	}
	add_self_maps(sym, getpid(), 0, NULL, NULL, 0);

	printf("# level1 -> level2 -> level3:\n");
	n = unwind_names(sym, &cap_levels, names, dsos, 64, ips);
	CHECK(n >= 4, "unwind: %d frames", n);
	if (n >= 4) {
		CHECK_STR(names[0], "level3", "unwind: frame 0");
		CHECK_STR(names[1], "level2", "unwind: frame 1");
		CHECK_STR(names[2], "level1", "unwind: frame 2");
		CHECK_STR(names[3], "main", "unwind: frame 3");
	}
	CHECK_EQ_U64(ips[0], cap_levels.regs[3], "unwind: ips[0] is IP");

	/* rbp garbage: nothing may rely on frame pointers */
	bad = cap_levels;
	bad.regs[1] = 0xdeadbeefull;
	n = unwind_names(sym, &bad, names, dsos, 64, ips);
	CHECK(n >= 4 && !strcmp(names[3], "main"), "unwind: without a frame pointer: %d frames", n);

	n = rsp_sym_unwind(sym, getpid(), 100, cap_levels.regs, cap_levels.mask, cap_levels.stack,
			   cap_levels.stack_len, ips, 2);
	CHECK_EQ_U64(n, 2, "unwind: max respected");

	/* the memo of unwinds (unwind.c): the same copy again gives the same
	 * frames; the same registers over different stack words are unwound anew */
	{
		uint64_t a[64], b[64], c[64];
		int na = rsp_sym_unwind(sym, getpid(), 100, cap_levels.regs, cap_levels.mask,
					cap_levels.stack, cap_levels.stack_len, a, 64);
		int nb = rsp_sym_unwind(sym, getpid(), 100, cap_levels.regs, cap_levels.mask,
					cap_levels.stack, cap_levels.stack_len, b, 64);
		int nc;

		CHECK(na >= 4 && na == nb && !memcmp(a, b, (size_t)na * 8),
		      "unwind memo: the same copy, the same %d frames", na);
		bad = cap_levels;
		for (size_t k = 0; k < sizeof(bad.stack); k++)
			bad.stack[k] = (unsigned char)(k * 2654435761u >> 11);
		nc = rsp_sym_unwind(sym, getpid(), 100, bad.regs, bad.mask, bad.stack, bad.stack_len,
				    c, 64);
		CHECK(nc != na || memcmp(a, c, (size_t)na * 8),
		      "unwind memo: other stack words, other frames (%d)", nc);
	}

	printf("# qsort -> cmp_capture:\n");
	n = unwind_names(sym, &cap_qsort, names, dsos, 64, ips);
	CHECK(n >= 5, "unwind qsort: %d frames", n);
	if (n >= 5) {
		CHECK_STR(names[0], "cmp_capture", "unwind qsort: the comparator");
		CHECK(strstr(dsos[1], "libc.so") != NULL, "unwind qsort: into libc: %s", dsos[1]);
		i = find_name(names, 1, n, "qlevel2");
		CHECK(i > 1, "unwind qsort: through libc back to qlevel2 (frame %d)", i);
		for (j = 1; i > 1 && j < i; j++)
			if (!strstr(dsos[j], "libc.so"))
				break;
		CHECK(i > 1 && j == i, "unwind qsort: every frame between is libc's");
		CHECK(i > 0 && i + 2 < n && !strcmp(names[i + 1], "qlevel1") &&
			      !strcmp(names[i + 2], "main"),
		      "unwind qsort: then qlevel1, main");
	}

	printf("# blocked in read():\n");
	if (TSAN_BUILD) {
		/* ThreadSanitizer delivers signals at its next interceptor, not inside read() */
		printf("# skipped under ThreadSanitizer\n");
	} else {
		CHECK(cap_read.done, "unwind read: signal caught the reader");
		n = cap_read.done ? unwind_names(sym, &cap_read, names, dsos, 64, ips) : 0;
		CHECK(n >= 4, "unwind read: %d frames", n);
		if (n >= 4) {
			CHECK(strstr(names[0], "read") && strstr(dsos[0], "libc.so"),
			      "unwind read: IP in libc's read: %s", names[0]);
			i = find_name(names, 1, n, "read_level2");
			CHECK(i >= 1, "unwind read: to the program function (frame %d)", i);
			CHECK(i >= 1 && i + 2 < n && !strcmp(names[i + 1], "read_level1") &&
				      !strcmp(names[i + 2], "main"),
			      "unwind read: then its caller and main");
		}
	}

	rsp_sym_stats(sym, &st);
	CHECK(st.unwinds >= 4 && st.unwinds_ok == st.unwinds, "unwind: stats %llu/%llu",
	      (unsigned long long)st.unwinds_ok, (unsigned long long)st.unwinds);

	/* errors */
	CHECK_EQ_U64(rsp_sym_unwind(sym, getpid(), 100, cap_levels.regs, 1ull << 7,
				    cap_levels.stack, cap_levels.stack_len, ips, 64),
		     (uint64_t)-EINVAL, "unwind: no IP: -EINVAL");
	CHECK_EQ_U64(rsp_sym_unwind(sym, 999999, 100, cap_levels.regs, cap_levels.mask,
				    cap_levels.stack, cap_levels.stack_len, ips, 64),
		     (uint64_t)-ESRCH, "unwind: unknown pid: -ESRCH");
	bad = cap_levels;
	bad.regs[3] = 0x10; /* IP nowhere, and no frame pointer to fall back on */
	bad.regs[1] = 0;
	n = rsp_sym_unwind(sym, getpid(), 100, bad.regs, bad.mask, bad.stack, bad.stack_len, ips,
			   64);
	CHECK(n == -ENOENT || n == -EFAULT, "unwind: IP in no file: %d", n);
	n = rsp_sym_unwind(sym, getpid(), 100, cap_levels.regs, cap_levels.mask, NULL, 0, ips, 64);
	CHECK(n == -EFAULT && ips[0] == cap_levels.regs[3], "unwind: no stack: %d", n);

	/* hostile stacks: garbage, and words pointing at themselves */
	bad = cap_levels;
	for (size_t k = 0; k < sizeof(bad.stack); k++)
		bad.stack[k] = (unsigned char)(k * 2654435761u >> 13);
	n = rsp_sym_unwind(sym, getpid(), 100, bad.regs, bad.mask, bad.stack, bad.stack_len, ips,
			   64);
	CHECK(n != 0 && n <= 64, "unwind: garbage stack ends (%d)", n);
	for (size_t k = 0; k + 8 <= sizeof(bad.stack); k += 8) {
		uint64_t v = bad.regs[CAP_SP] + k;

		memcpy(bad.stack + k, &v, 8);
	}
	bad.regs[1] = bad.regs[CAP_SP];
	n = rsp_sym_unwind(sym, getpid(), 100, bad.regs, bad.mask, bad.stack, bad.stack_len, ips,
			   64);
	CHECK(n != 0 && n <= 64, "unwind: self-pointing stack ends (%d)", n);

	/* maps that change: the cached unwinder must follow */
	rsp_sym_exec(sym, getpid(), 200);
	n = rsp_sym_unwind(sym, getpid(), 250, cap_levels.regs, cap_levels.mask, cap_levels.stack,
			   cap_levels.stack_len, ips, 64);
	CHECK(n < 0, "unwind: after exec the old maps are gone (%d)", n);
	n = rsp_sym_unwind(sym, getpid(), 100, cap_levels.regs, cap_levels.mask, cap_levels.stack,
			   cap_levels.stack_len, ips, 64);
	CHECK(n >= 4, "unwind: before exec still works (%d)", n);
	/* mapped again at 300, and a map of nothing at 400: after each change its maps are
	 * the live ones (read without the dead), before it those of their time */
	add_self_maps(sym, getpid(), 300, NULL, NULL, 0);
	n = rsp_sym_unwind(sym, getpid(), 350, cap_levels.regs, cap_levels.mask, cap_levels.stack,
			   cap_levels.stack_len, ips, 64);
	CHECK(n >= 4, "unwind: mapped again, after it (%d)", n);
	rsp_sym_add_map(sym, getpid(), 400, 0x1000, 0x1000, 0, PROT_EXEC, "/nonexistent/x", NULL,
			0);
	n = rsp_sym_unwind(sym, getpid(), 450, cap_levels.regs, cap_levels.mask, cap_levels.stack,
			   cap_levels.stack_len, ips, 64);
	CHECK(n >= 4, "unwind: after a later map elsewhere (%d)", n);
	n = rsp_sym_unwind(sym, getpid(), 250, cap_levels.regs, cap_levels.mask, cap_levels.stack,
			   cap_levels.stack_len, ips, 64);
	CHECK(n < 0, "unwind: between exec and the new maps, none (%d)", n);
	n = rsp_sym_unwind(sym, getpid(), 350, cap_levels.regs, cap_levels.mask, cap_levels.stack,
			   cap_levels.stack_len, ips, 64);
	CHECK(n >= 4, "unwind: mapped again, asked out of order (%d)", n);
	rsp_sym_free(sym);
}

static void test_hostile(void)
{
	char dir[] = "/tmp/rsp-test-symbols.XXXXXX", path[PATH_MAX];
	struct rsp_sym_opts opts = { 0 };
	struct rsp_sym_stats st;
	struct rsp_sym_frame f;
	struct rsp_sym *sym;
	const char *names[8];
	int pid = 50;

	if (!mkdtemp(dir)) {
		CHECK(0, "mkdtemp");
		return;
	}
	opts.sysroot = dir; /* paths below are relative to it */
	opts.debug_dir = dir;
	if (rsp_sym_new(&sym, &opts))
		return;

	snprintf(path, sizeof(path), "%s/trunc-small", dir);
	copy_file(self_exe, path, 40);
	snprintf(path, sizeof(path), "%s/trunc-big", dir);
	copy_file(self_exe, path, 3000);
	{
		/* headers pointing far away, phnum huge */
		unsigned char hdr[4096];
		int fd;

		snprintf(path, sizeof(path), "%s/bad-headers", dir);
		copy_file(self_exe, path, sizeof(hdr));
		fd = open(path, O_RDWR);
		if (fd >= 0 && read(fd, hdr, sizeof(hdr)) == (ssize_t)sizeof(hdr)) {
			Elf64_Ehdr *e = (Elf64_Ehdr *)hdr;

			e->e_phoff = 0xfffffffffffff000ull;
			e->e_phnum = 0xffff;
			e->e_shoff = 0x7fffffffffffull;
			e->e_shnum = 0xfff0;
			if (pwrite(fd, hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr))
				CHECK(0, "pwrite");
		}
		if (fd >= 0)
			close(fd);
		snprintf(path, sizeof(path), "%s/garbage", dir);
		for (size_t i = 0; i < sizeof(hdr); i++)
			hdr[i] = (unsigned char)(i * 2654435761u >> 11);
		memcpy(hdr, ELFMAG, SELFMAG);
		hdr[EI_CLASS] = ELFCLASS64;
		hdr[EI_DATA] = ELFDATA2LSB;
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0) {
			if (write(fd, hdr, sizeof(hdr)) != (ssize_t)sizeof(hdr))
				CHECK(0, "write");
			close(fd);
		}
	}
	snprintf(path, sizeof(path), "%s/fifo", dir);
	mkfifo(path, 0644);
	snprintf(path, sizeof(path), "%s/subdir", dir);
	mkdir(path, 0755);

	{
		static const char *const files[] = { "/trunc-small", "/trunc-big", "/bad-headers",
						     "/garbage",     "/fifo",	   "/subdir",
						     "/missing",     "/dev/null",  "/" };
		uint64_t base = 0x600000000000ull;

		for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
			uint64_t start = base + i * 0x100000;

			rsp_sym_add_map(sym, pid, 0, start, 0x10000, 0, PROT_READ | PROT_EXEC, files[i],
					NULL, 0);
			rsp_sym_add_map(sym, pid, 0, start + 0x10000, 0x10000, 0xfffffffffffff000ull,
					PROT_READ | PROT_EXEC, files[i], NULL, 0);
			rsp_sym_lookup(sym, pid, 1, start + 0x123, false, &f);
			names[0] = f.func;
			rsp_sym_lookup(sym, pid, 1, start + 0x10123, false, &f);
			CHECK(!names[0] && !f.func && !strcmp(f.dso, files[i]),
			      "hostile: %s: unknown, no crash", files[i]);
		}
	}
	rsp_sym_stats(sym, &st);
	CHECK(st.dsos_not_found >= 7, "hostile: files not usable counted (%llu)",
	      (unsigned long long)st.dsos_not_found);
	{
		/* and unwinding with only those maps */
		uint64_t regs[2] = { 0x600000000200ull, 0x600000000100ull }, ips[8];
		unsigned char stack[64] = { 0 };
		int n = rsp_sym_unwind(sym, pid, 1, regs, (1ull << 7) | (1ull << 8), stack,
				       sizeof(stack), ips, 8);

		/* mask order: SP (bit 7) then IP (bit 8) */
		CHECK(n == -ENOENT && ips[0] == regs[1], "hostile: unwind over unusable files: %d",
		      n);
	}
	rsp_sym_free(sym);

	snprintf(path, sizeof(path),
		 "rm -rf -- '%s/trunc-small' '%s/trunc-big' '%s/bad-headers' '%s/garbage' "
		 "'%s/fifo' '%s/subdir'",
		 dir, dir, dir, dir, dir, dir);
	if (system(path) != 0)
		CHECK(0, "cleanup");
	rmdir(dir);
}

static void test_costs(void)
{
	uint64_t addrs[4] = { (uint64_t)(uintptr_t)&rsp_test_target,
			      (uint64_t)(uintptr_t)&level2,
			      (uint64_t)(uintptr_t)libc_read,
			      (uint64_t)(uintptr_t)rsp_test_cxx_method() };
	uint64_t t0, t1, ips[64];
	const int N = 400000, U = 4000, W = 2000;
	struct rsp_sym_frame f;
	struct rsp_sym *sym;
	int n = 0, pid = getpid();

	if (rsp_sym_new(&sym, NULL))
		return;
	add_self_maps(sym, pid, 0, NULL, NULL, 0);
	for (int lib = 0; lib < 2; lib++) {
		const char *name = lib ? "/libstdc++.so" : "/libc.so";
		uint64_t text_lo = 0, text_hi = 0;
		int named = 0;

		for (size_t i = 0; i < n_self_maps; i++)
			if (strstr(self_maps[i].path, name) && (self_maps[i].prot & PROT_EXEC)) {
				text_lo = self_maps[i].start;
				text_hi = self_maps[i].end;
			}
		if (!text_lo)
			continue;
		t0 = now_ns();
		rsp_sym_lookup(sym, pid, 1, text_lo + (text_hi - text_lo) / 2, false, &f);
		t1 = now_ns();
		printf("# cost: first lookup in %s (open, map, symbol table): %.1f us\n", name + 1,
		       (double)(t1 - t0) / 1e3);
		t0 = now_ns();
		for (int i = 0; i < U; i++) {
			rsp_sym_lookup(sym, pid, 1,
				       text_lo + (text_hi - text_lo) * (uint64_t)i / U + 1, false,
				       &f);
			named += f.func != NULL;
		}
		t1 = now_ns();
		printf("# cost: uncached lookup in %s: %.2f us (%d distinct addresses, %d named)\n",
		       name + 1, (double)(t1 - t0) / 1e3 / U, U, named);
	}

	for (int i = 0; i < 4; i++)
		rsp_sym_lookup(sym, pid, 1, addrs[i], false, &f);
	t0 = now_ns();
	for (int i = 0; i < N; i++) {
		rsp_sym_lookup(sym, pid, 1, addrs[i & 3], false, &f);
		sink += f.offset;
	}
	t1 = now_ns();
	printf("# cost: cached lookup: %.0f ns\n", (double)(t1 - t0) / N);

	t0 = now_ns();
	n = rsp_sym_unwind(sym, pid, 1, cap_levels.regs, cap_levels.mask, cap_levels.stack,
			   cap_levels.stack_len, ips, 64);
	t1 = now_ns();
	printf("# cost: first unwind (Dwfl for %zu maps, CFI): %.1f us, %d frames\n", n_self_maps,
	       (double)(t1 - t0) / 1e3, n);
	t0 = now_ns();
	for (int i = 0; i < W; i++)
		sink += (uint64_t)rsp_sym_unwind(sym, pid, 1, cap_read.regs, cap_read.mask,
						 cap_read.stack, cap_read.stack_len, ips, 64);
	t1 = now_ns();
	printf("# cost: unwind (blocked read, %d frames): %.1f us\n",
	       rsp_sym_unwind(sym, pid, 1, cap_read.regs, cap_read.mask, cap_read.stack,
			      cap_read.stack_len, ips, 64),
	       (double)(t1 - t0) / 1e3 / W);
	CHECK(n >= 4, "costs measured");
	rsp_sym_free(sym);
}

int main(int argc, char **argv)
{
	static char helpers[8][PATH_MAX];
	ssize_t len;

	argc = tap_init(argc, argv);
	read_self_maps();
	main_stack_end = mapping_end((uint64_t)(uintptr_t)__builtin_frame_address(0));
	libc_qsort = libc_sym("qsort");
	libc_read = libc_sym("read");
	if (!libc_qsort || !libc_read)
		return 1;
	sink += (uint64_t)level1(argc);
	sink += (uint64_t)qlevel1(argc);
	if (!start_blocked_read()) {
		sink += (uint64_t)read_level1(argc);
		end_blocked_read();
	}

	len = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);
	self_exe[len > 0 ? len : 0] = '\0';
	read_self_maps();
	elf_version(EV_CURRENT);

	if (argc < 9) {
		fprintf(stderr, "usage: %s HELPER HELPER-MINI HELPER-STRIPPED HELPER-DEBUG "
			"HELPER-EXPORT HELPER-EXPORT-STRIPPED HELPER-MARKER HELPER-IBT\n", argv[0]);
		CHECK(0, "helper files given");
		return tap_done();
	}
	/* meson passes paths relative to the build directory; maps name absolute ones */
	for (int i = 1; i < 9; i++) {
		if (!realpath(argv[i], helpers[i - 1])) {
			CHECK(0, "%s: %s", argv[i], strerror(errno));
			return tap_done();
		}
	}
	TAP_RUN("kallsyms", test_kallsyms());
	TAP_RUN("self", test_self());
	TAP_RUN("history", test_history());
	TAP_RUN("build_id", test_build_id(helpers[0], helpers[3]));
	TAP_RUN("archive", test_archive(helpers[0]));
	TAP_RUN("minidebuginfo", test_minidebuginfo(helpers[0], helpers[1]));
	TAP_RUN("debug_file", test_debug_file(helpers[0], helpers[2], helpers[3]));
	TAP_RUN("dynamic_only", test_dynamic_only(helpers));
	TAP_RUN("not_code", test_not_code(helpers[0], helpers[6]));
	TAP_RUN("plt/lazy", test_plt(helpers[0], "lazy PLT", false));
	TAP_RUN("plt/ibt", test_plt(helpers[7], "IBT's PLT", true));
	TAP_RUN("unwind", test_unwind());
	TAP_RUN("hostile", test_hostile());
	TAP_RUN("costs", test_costs());
	return tap_done();
}
