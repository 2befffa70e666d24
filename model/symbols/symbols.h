/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Symbolization and DWARF stack unwinding for one trace (internal to model/).
 *
 * rsp_sym keeps the kernel's symbol table (kallsyms text), the history of every
 * process's address space (mmaps, forks, execs, fed in time order) and the ELF
 * files those maps name.  It answers "which function is this address of pid at
 * time t" (cached per file and address) and unwinds user-stack copies with
 * libdwfl's CFI unwinder.
 *
 * Where a file the trace maps is looked for, in order (each candidate must have
 * the recorded build id when the trace recorded one; without one only the
 * first two are tried):
 *   1. <sysroot>/<path> (--symfs), or <path> without a sysroot;
 *   2. <path> itself (a sysroot that lacks it), only with a recorded build id;
 *   3. the archive (FILE.archive, archive.c): .build-id/xx/yyyy;
 *   4. each debug directory, then /usr/lib/debug: <dir>/.build-id/xx/yyyy.debug,
 *      <dir><path>.debug, <dir><path>;
 *   5. the archive's .build-id/xx/yyyy.debug;
 *   6. debuginfod (opts->debuginfod; elfutils' client and cache): the
 *      executable, else its debug info.
 * A debug file (sections without their bytes) gives names but places the
 * file's segments by a guess (dso.c).  A file found without functions (stripped)
 * gets them from its separate debug file: the debug directories' build-id trees,
 * .gnu_debuglink, the archive, debuginfod.  This also gives [vdso] its names
 * when the kernel's debug files are installed.  [heap], //anon and the like
 * have no functions.
 *
 * Every path, length and address comes from a trace file that may have been
 * crafted: lookups never fail, they answer "[unknown]".  Files that cannot be
 * read, are not ELF, or whose build id differs from the recorded one are not
 * used; they are counted in rsp_sym_stats.
 *
 * Not thread-safe: one thread at a time per struct rsp_sym.  Strings handed out
 * (func, dso) stay valid until rsp_sym_free().
 */
#ifndef RSP_MODEL_SYMBOLS_H
#define RSP_MODEL_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rsp_sym; /* one per opened trace */

struct rsp_sym_opts {
	const char *debug_dir; /* searched last; NULL: "/usr/lib/debug" */
	const char *const *debug_dirs; /* searched first, in order (--debug-dir) */
	size_t n_debug_dirs;
	const char *sysroot; /* NULL: "/"; prefix for mapped file paths (--symfs) */
	const char *archive; /* a symbol archive (archive.c); NULL: none */
	/* a directory of the JIT runtimes' perf-PID.map and jit-PID.dump files
	 * (the recording's FILE.jit, jit.c); NULL: none */
	const char *jit_dir;
	bool debuginfod; /* ask debuginfod servers (DEBUGINFOD_URLS) for missing files */
	/* A line before a debuginfod download may take time ("fetching ..."); may be NULL. */
	void (*progress)(const char *msg, void *ctx);
	void *progress_ctx;
};

int rsp_sym_new(struct rsp_sym **out, const struct rsp_sym_opts *opts);
void rsp_sym_free(struct rsp_sym *sym);

/* Kernel: text of /proc/kallsyms ("addr type name [module]" lines), e.g. from the
 * trace file's tracing data; only text symbols (t T w W) with an address are kept
 * (kptr_restrict zeroes them all: 0 kept).  Replaces a previous table, whose
 * memory is kept until rsp_sym_free() (frames may point at its names).  Returns
 * the number of symbols kept or -errno. */
int rsp_sym_set_kallsyms(struct rsp_sym *sym, const char *text, size_t len);

/* Process address-space history, fed in time order by the timeline builder.
 * Times are nanoseconds (CLOCK_MONOTONIC); time 0 = "existed before the trace".
 * A map replaces, from @time on, whatever it overlaps.  @prot: PROT_* bits; 0 if
 * unknown (MMAP records: pass PROT_EXEC, perf only records executable maps).  A
 * build id longer than 20 bytes is ignored.  -EINVAL for an empty or wrapping
 * range, -ENOMEM. */
int rsp_sym_add_map(struct rsp_sym *sym, int pid, uint64_t time, uint64_t start, uint64_t len,
		    uint64_t pgoff, uint32_t prot, const char *path, const uint8_t *build_id,
		    size_t build_id_len /* 0 if none */);
/* A new process copies its parent's maps valid at @time.  child == parent (a new
 * thread) does nothing.  A previous process of the same pid ends at @time. */
int rsp_sym_fork(struct rsp_sym *sym, int child_pid, int parent_pid, uint64_t time);
/* Maps valid before @time end here. */
int rsp_sym_exec(struct rsp_sym *sym, int pid, uint64_t time);
/* Build id recorded for a file (HEADER_BUILD_ID records), for maps that carry
 * none.  A file on disk whose build id differs is not used to symbolize (it was
 * rebuilt): the build-id debug file is tried instead, else addresses in it stay
 * unknown.  May come after lookups (pipe mode writes build ids last): answers
 * already given for that file are forgotten.  Ids longer than 20 bytes: -EINVAL. */
int rsp_sym_set_build_id(struct rsp_sym *sym, const char *path, const uint8_t *id, size_t len);

struct rsp_sym_frame {
	const char *func; /* demangled function name, owned by rsp_sym; NULL if unknown */
	const char *dso; /* "[kernel.kallsyms]", "[ext4]", "/usr/lib/.../libc.so.6",
			  * "[vdso]", "[unknown]" (no map) ... */
	uint64_t offset; /* addr - function start (0 if unknown) */
	uint64_t rel_addr; /* ELF virtual address in the DSO (= address relative to its
			    * load base, as perf prints); file offset if the file is
			    * unreadable; addr itself for the kernel and unmapped addresses */
	uint32_t file; /* 1 + the index of the DSO (rsp_sym_file()); 0: none */
	bool kernel;
};

/* Symbolize one address of process pid at time.  kernel: addr is a kernel address
 * (addresses >= 0xffff800000000000 are kernel ones anyway).  Each distinct
 * (dso, address) is symbolized once (cache).  Never fails for a bad address: fills
 * func = NULL, dso = "[unknown]" when nothing is mapped there.  A return address
 * of a call that ends a function (noreturn) belongs to the next one: callers that
 * want the caller's line subtract 1 from return addresses. */
void rsp_sym_lookup(struct rsp_sym *sym, int pid, uint64_t time, uint64_t addr, bool kernel,
		    struct rsp_sym_frame *out);

/*
 * Names of JIT-compiled code of process @pid (jit.c): a perf-PID.map's text and
 * a jitdump file's bytes, @path naming the file in warnings and frames.  They
 * name addresses that no file's map covers (anonymous memory, or no map);
 * a jitdump's names from their load times.  Returns the functions added; a
 * damaged file adds those before the damage and a warning; -ENOMEM, -EINVAL.
 */
int rsp_sym_add_perf_map(struct rsp_sym *sym, int pid, const char *text, size_t len,
			 const char *path);
int rsp_sym_add_jitdump(struct rsp_sym *sym, int pid, const void *data, size_t len,
			const char *path);
/*
 * The names of @pid's addresses as at @time: the same number for two times
 * where every address of @pid has the same name, another where a JIT runtime
 * had reused addresses in between (a jitdump's loads and moves); 0 before the
 * first reuse and for every process without any.  Caches of names by stack
 * key on it.
 */
uint32_t rsp_sym_names_epoch(struct rsp_sym *sym, int pid, uint64_t time);
/* What could not be read (a JIT file missing or damaged), a line each. */
size_t rsp_sym_n_warnings(const struct rsp_sym *sym);
const char *rsp_sym_warning(const struct rsp_sym *sym, size_t i);

/* perf's x86-64 user register numbers (perf_regs.h), for regs_mask. */
enum rsp_perf_reg {
	RSP_PERF_REG_AX = 0,
	RSP_PERF_REG_BX = 1,
	RSP_PERF_REG_CX = 2,
	RSP_PERF_REG_DX = 3,
	RSP_PERF_REG_SI = 4,
	RSP_PERF_REG_DI = 5,
	RSP_PERF_REG_BP = 6,
	RSP_PERF_REG_SP = 7,
	RSP_PERF_REG_IP = 8,
	RSP_PERF_REG_R8 = 16, /* ... R15 = 23 */
	RSP_PERF_REG_R15 = 23,
};

/* DWARF-unwind a user-stack copy (PERF_SAMPLE_REGS_USER + STACK_USER, x86-64).
 * regs: values in the order of the set bits of regs_mask (perf's layout).  IP and
 * SP must be present.  stack: the copied bytes starting at regs[SP].  Writes up
 * to max user addresses, ips[0] = IP, then return addresses as found on the
 * stack (not minus one), and returns how many (>= 2; 1 only when max is 1, or
 * when IP is in JIT code a runtime's files name and nothing past it unwinds).
 * Returns -errno when nothing past IP could be unwound: -EINVAL (no IP/SP, max
 * 0), -ESRCH (no map was ever added for pid), -ENOENT (no readable x86-64 file
 * maps IP at @time), -EFAULT (the unwinder stopped at the first frame); ips[0]
 * is still IP then.  Uses the process's executable maps at @time; the Dwfl built
 * for them is kept while they do not change (a few processes at a time). */
int rsp_sym_unwind(struct rsp_sym *sym, int pid, uint64_t time, const uint64_t *regs,
		   uint64_t regs_mask, const void *stack, size_t stack_len, uint64_t *ips,
		   size_t max);

struct rsp_sym_stats {
	uint64_t lookups; /* rsp_sym_lookup calls */
	uint64_t cache_hits; /* user lookups answered from the (dso, address) cache */
	uint64_t kernel_symbols; /* symbols in the kallsyms table */
	uint64_t unwinds; /* rsp_sym_unwind calls */
	uint64_t unwinds_ok; /* ... that got past IP */
	uint64_t unwind_frames; /* addresses they returned in all */
	uint64_t dsos; /* distinct (file, build id) seen in maps */
	uint64_t dsos_loaded; /* ELF files (or build-id debug files) read */
	uint64_t dsos_build_id_mismatch; /* file on disk differs from the recorded build id */
	uint64_t dsos_not_found; /* missing, unreadable, not ELF, no usable debug file */
	uint64_t dsos_debug_files; /* symbolized from <debug_dir>/.build-id instead */
};

/* Counters for `rsp info` and the tests. */
void rsp_sym_stats(const struct rsp_sym *sym, struct rsp_sym_stats *out);

/* The files the maps name, in order of appearance, and what became of them. */
enum rsp_sym_file_state {
	RSP_SYM_FILE_UNTRIED, /* no lookup needed it yet */
	RSP_SYM_FILE_READ, /* found (read_from) */
	RSP_SYM_FILE_NO_SYMBOLS, /* found, but it has no functions (stripped) */
	RSP_SYM_FILE_MISSING, /* found nowhere */
	RSP_SYM_FILE_BUILD_ID_DIFFERS, /* a file at its path, of another build */
	RSP_SYM_FILE_UNREADABLE, /* a file at its path, not usable (not ELF, ...) */
	RSP_SYM_FILE_NOT_A_FILE, /* [vdso], //anon, a device...: no file to find */
};
struct rsp_sym_file {
	const char *path; /* as the trace names it */
	const uint8_t *build_id; /* the recorded one; NULL: none */
	size_t build_id_len;
	enum rsp_sym_file_state state;
	const char *read_from; /* READ, NO_SYMBOLS: the file read (an archive: "ARCHIVE:MEMBER") */
	bool debug_file; /* what was read is a debug file: segments placed by a guess */
	/* READ: only its exported functions (.dynsym) have names: no .symtab, no
	 * debug file, no MiniDebugInfo (known once a lookup read its table) */
	bool dynamic_only;
};
size_t rsp_sym_n_files(const struct rsp_sym *sym);
void rsp_sym_file(const struct rsp_sym *sym, size_t i, struct rsp_sym_file *out);
/* Look for file @i now (as a lookup in it would): rsp_sym_file() says where it was found. */
void rsp_sym_file_find(struct rsp_sym *sym, size_t i);
/* The archive's kallsyms member, NULL if none (valid until rsp_sym_free()). */
const char *rsp_sym_archive_kallsyms(const struct rsp_sym *sym, size_t *len);

/* The scheduler's own kernel functions, under every sleep's kernel stack: not
 * what a sleep waited in (kallsyms.c). */
bool _rsp_is_sched_func(const char *f);

#endif /* RSP_MODEL_SYMBOLS_H */
