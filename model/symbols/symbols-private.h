/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Internals of rsp_sym shared by its files, each calling only the ones listed
 * before it (tests/layers.py checks):
 *   demangle.c       C++ names
 *   names.c          interned function names
 *   kallsyms.c       the kernel's symbol table
 *   build-id.c       build ids: compare, read from ELF, path in a debug directory
 *   archive.c        a symbol archive's members (rsp archive)
 *   debuginfod.c     files by build id from debuginfod servers
 *   dso-symbols.c    functions in ELF files: libdwfl, a sorted table, the cache
 *   dso.c            ELF files: which file stands for a map, build ids, PT_LOADs
 *   maps.c           per-process address-space history
 *   jit.c            JIT-compiled functions: perf-PID.map and jitdump files
 *   unwind.c         DWARF unwinding of user-stack copies
 *   symbols.c        the object, lookups, what the trace says changes, stats
 */
#ifndef RSP_MODEL_SYMBOLS_PRIVATE_H
#define RSP_MODEL_SYMBOLS_PRIVATE_H

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/htab.h"
#include "symbols/symbols.h"

#define _RSP_BUILD_ID_MAX 20
#define _RSP_TIME_END UINT64_MAX
#define _RSP_KERNEL_START 0xffff800000000000ull
#define _RSP_UNWINDERS 16 /* per-process Dwfls kept for unwinding */
#define _RSP_KCACHE 4096 /* kernel addresses whose symbols are kept (a power of two) */
#define _RSP_DSO_DWFLS 256 /* per-file Dwfls kept for symbols (they may hold an fd) */

/* --- kallsyms.c ---------------------------------------------------------------- */

struct _rsp_ksym {
	uint64_t addr;
	uint32_t name; /* offset in names */
	uint32_t dso; /* index in dsos */
};

struct _rsp_kallsyms {
	struct _rsp_ksym *syms; /* sorted by addr, one per address */
	size_t n;
	char *names;
	char **dsos; /* [0] "[kernel.kallsyms]", then "[module]" */
	size_t n_dsos;
	struct _rsp_kallsyms *retired; /* an older table: its strings may be in use */
};

int _rsp_kallsyms_parse(struct _rsp_kallsyms **out, const char *text, size_t len);
void _rsp_kallsyms_free(struct _rsp_kallsyms *k); /* and the retired ones */
/* Fills func, dso, offset of @out; false if addr is outside the table. */
bool _rsp_kallsyms_lookup(const struct _rsp_kallsyms *k, uint64_t addr,
			  struct rsp_sym_frame *out);

/* --- dso.c, dso-symbols.c ------------------------------------------------------- */

enum _rsp_dso_state {
	_RSP_DSO_NEW, /* not looked at yet */
	_RSP_DSO_READY, /* image mapped, PT_LOADs known */
	_RSP_DSO_FAILED, /* nothing usable: frames in it have no function */
};

struct _rsp_load {
	uint64_t offset, vaddr, filesz, memsz;
	uint32_t flags; /* PF_* */
};

struct _rsp_fsym {
	uint64_t addr;
	uint32_t size; /* 0: up to the next symbol */
	uint32_t index; /* for dwfl_module_getsym_info(), for the name */
};

struct _rsp_cache_slot {
	uint64_t key; /* vaddr + 1; 0: empty */
	const char *func; /* interned; NULL: no symbol there */
	uint64_t start; /* symbol start (vaddr) */
};

struct _rsp_dso {
	struct _rsp_hnode node;
	struct rsp_sym *sym; /* for libdwfl's callbacks */
	char *name; /* as the trace names it */
	uint8_t want_id[_RSP_BUILD_ID_MAX]; /* recorded build id */
	size_t want_id_len; /* 0: none recorded */
	bool id_in_key; /* the map carried want_id */
	bool openable; /* a path to a file (not [vdso], //anon, /dev/...) */
	bool deleted; /* "... (deleted)": only a build-id debug file can serve */
	bool anon; /* /memfd:NAME, /SYSV...: memory named like a file, never one on disk */
	bool counted_mismatch, counted_missing;
	uint32_t index; /* in sym->files: rsp_sym_file()'s i */
	bool no_functions; /* READY, but its symbol table has no function (stripped) */
	/* READY, its functions from .dynsym alone (no .symtab, debug file or
	 * MiniDebugInfo): the exported ones; its static functions have no name */
	bool dynamic_only;

	enum _rsp_dso_state state;
	char *file; /* READY: what was mapped */
	void *image;
	size_t image_size;
	bool image_borrowed; /* in the archive's mapping: not unmapped */
	bool from_debug_dir; /* image is a debug file (.text without bytes) */
	bool tried_other_build; /* a file at its path had another build id */
	int path_err; /* what opening <path> said (-ENOENT, -ENOEXEC, ...) */
	bool x86_64; /* ELFCLASS64 EM_X86_64: may be reported to the unwinder */
	uint8_t file_id[_RSP_BUILD_ID_MAX];
	size_t file_id_len;
	struct _rsp_load *loads;
	size_t n_loads;
	uint64_t low, high; /* vaddr range as libdwfl computes it */

	Dwfl *dwfl; /* symbols, at bias 0; NULL until needed or when evicted */
	Dwfl_Module *mod;
	bool dwfl_failed;
	struct _rsp_fsym *syms; /* the functions of mod, sorted: libdwfl's own
				 * address lookup scans the whole table */
	size_t n_syms;
	const char **plt_names; /* x86-64's PLT stubs' "function@plt", interned */
	size_t n_plt_names;
	uint64_t last_use;
	struct _rsp_cache_slot *cache;
	size_t cache_cap, cache_n;
};

/* build-id.c */
bool _rsp_build_id_equal(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen);
size_t _rsp_elf_build_id(Elf *elf, uint8_t *id); /* 0: none */
/* <dir>/.build-id/ab/cdef...<suffix> (dir "": no leading '/'); -ENOENT for ids
 * under 2 bytes */
int _rsp_build_id_path(const char *dir, const uint8_t *id, size_t len, const char *suffix,
		       char *buf, size_t size);
/* archive.c */
struct _rsp_archive;
int _rsp_archive_open(struct _rsp_archive **out, const char *path);
void _rsp_archive_free(struct _rsp_archive *a);
/* The bytes of member @name (writable, private, 512-byte aligned). */
bool _rsp_archive_find(const struct _rsp_archive *a, const char *name, void **data,
		       size_t *size);
/* debuginfod.c: a download of build id @id (@executable: the file, else its debug
 * info) into elfutils' cache, announced through sym->progress: the cached
 * file's path (malloc'd) or NULL.  @name: the file's path, for the message. */
char *_rsp_debuginfod_find(struct rsp_sym *sym, const uint8_t *id, size_t len,
			   const char *name, bool executable);
void _rsp_debuginfod_end(struct rsp_sym *sym);
/* dso.c: files and their segments */
/* Find or create the DSO for @path (+ @id when the map carried one); NULL: ENOMEM. */
struct _rsp_dso *_rsp_dso_get(struct rsp_sym *sym, const char *path, const uint8_t *id,
			      size_t id_len);
/* Map and check the file once; 0 when READY, else -errno (and stays failed). */
int _rsp_dso_load(struct rsp_sym *sym, struct _rsp_dso *dso);
struct _rsp_map;
/* Load bias of a READY @dso where @map maps it (address = ELF vaddr + bias), from
 * the PT_LOAD that holds the map's file offset; false if none does. */
bool _rsp_dso_map_bias(const struct _rsp_dso *dso, const struct _rsp_map *map, uint64_t *bias);
/* Back to _RSP_DSO_NEW (a build id recorded apart from the map changed it); the
 * caller drops the unwinders first: they hold handles on the image. */
void _rsp_dso_unload(struct rsp_sym *sym, struct _rsp_dso *dso);
void _rsp_dsos_free(struct rsp_sym *sym);
/* dso-symbols.c: functions */
/* Function at @vaddr (cached): fills func and offset. */
void _rsp_dso_symbolize(struct rsp_sym *sym, struct _rsp_dso *dso, uint64_t vaddr,
			struct rsp_sym_frame *out);
/* find_elf for Dwfls whose modules' userdata is a READY struct _rsp_dso. */
int _rsp_dso_find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		      char **file_name, Elf **elfp);
/* Forget the symbols and answers of @dso (its Dwfl, table, cache). */
void _rsp_dso_symbols_drop(struct rsp_sym *sym, struct _rsp_dso *dso);

/* --- maps.c --------------------------------------------------------------------- */

struct _rsp_map {
	uint64_t start, end; /* [start, end) */
	uint64_t pgoff;
	uint64_t t0, t1; /* valid in [t0, t1); t1 = _RSP_TIME_END while live */
	uint32_t prot;
	struct _rsp_dso *dso;
};

struct _rsp_proc {
	struct _rsp_hnode node;
	int pid;
	struct _rsp_map *live; /* sorted by start, never overlapping */
	size_t n_live, cap_live;
	struct _rsp_map *dead; /* ended maps; sorted by start when !dead_dirty */
	size_t n_dead, cap_dead;
	uint64_t *dead_tree; /* segment tree: max end over dead[] ranges */
	size_t dead_leaves;
	bool dead_dirty;
	/* at least every t0 and every t1 but _RSP_TIME_END of its maps: from then on, its
	 * maps are the live ones (_rsp_proc_maps_at() need not read the dead) */
	uint64_t tmax;
};

struct _rsp_proc *_rsp_proc_get(struct rsp_sym *sym, int pid);
const struct _rsp_map *_rsp_proc_find_map(struct _rsp_proc *proc, uint64_t addr,
					  uint64_t time);
/* The maps valid at @time (malloc'd, sorted by start) and the window
 * [*from, *until) over which that set does not change.  -ENOMEM. */
int _rsp_proc_maps_at(struct _rsp_proc *proc, uint64_t time, struct _rsp_map **out, size_t *n,
		      uint64_t *from, uint64_t *until);
void _rsp_procs_free(struct rsp_sym *sym);
/*
 * What the trace says changes (symbols.c tells the unwinders after each):
 * @m added to @pid's live maps (*@proc: the process, NULL on ENOMEM); every
 * live map of @p ends at @time (exec); @pid's maps all end at @time, the
 * process made if new (fork: the child); @p's maps at @time copied into @c.
 */
int _rsp_proc_add_map(struct rsp_sym *sym, int pid, const struct _rsp_map *m,
		      struct _rsp_proc **proc);
int _rsp_proc_exec(struct _rsp_proc *p, uint64_t time);
int _rsp_proc_reset(struct rsp_sym *sym, int pid, uint64_t time, struct _rsp_proc **proc);
int _rsp_proc_inherit(struct _rsp_proc *c, const struct _rsp_proc *p, uint64_t time);

/* --- demangle.c ----------------------------------------------------------------- */

/* Demangled C++ name (malloc'd), or NULL when @name is not a mangled name. */
char *_rsp_demangle(const char *name);

/* --- unwind.c ------------------------------------------------------------------- */

struct _rsp_unwinder;
/* The maps of @proc change from @time on. */
void _rsp_unwind_touch(struct rsp_sym *sym, struct _rsp_proc *proc, uint64_t time);
/* A DSO image goes away: drop every unwinder. */
void _rsp_unwind_reset(struct rsp_sym *sym);

/* --- symbols.c ------------------------------------------------------------------ */

struct rsp_sym {
	char **debug_dirs; /* --debug-dir ..., then the default */
	size_t n_debug_dirs;
	char *sysroot; /* NULL: none */
	struct _rsp_archive *archive; /* NULL: none */
	char *archive_path;
	bool debuginfod;
	void *debuginfod_client; /* debuginfod_client *, made on first use */
	bool debuginfod_failed;
	void (*progress)(const char *msg, void *ctx);
	void *progress_ctx;
	struct _rsp_kallsyms *kallsyms;
	struct _rsp_htab procs;
	struct _rsp_htab dsos;
	struct _rsp_dso **files; /* every DSO, in order of appearance */
	size_t n_files, cap_files;
	struct _rsp_htab strs;
	size_t n_dso_dwfls;
	uint64_t tick; /* for LRU */
	struct _rsp_unwinder *unwinders[_RSP_UNWINDERS];
	struct _rsp_jit *jits; /* a process each whose JIT files were read (jit.c) */
	size_t n_jits;
	uint32_t jit_seq; /* functions read so far: the order of the files' lines and records */
	char **warnings; /* what could not be read, a line each */
	size_t n_warnings;
	struct rsp_sym_stats stats;
	/* kernel addresses looked up lately (direct-mapped; kallsyms' answer depends on the
	 * address alone): the same few thousand return addresses, asked again and again */
	struct {
		uint64_t addr; /* 0: empty */
		struct rsp_sym_frame f;
	} kcache[_RSP_KCACHE];
};

/* --- jit.c ---------------------------------------------------------------------- */

struct _rsp_jit_func {
	uint64_t start, end; /* [start, end) */
	uint64_t from, until; /* valid in [from, until): a jitdump's times; a map's: always */
	uint64_t code_index; /* the jitdump's, for its moves */
	uint32_t seq; /* order read: of two loaded at the same time, the later names */
	const char *name; /* interned, as the runtime wrote it */
	const char *source; /* "perf-PID.map", "jit-PID.dump": a frame's dso */
};

struct _rsp_jit {
	int pid;
	struct _rsp_jit_func *v; /* sorted by start, then seq, once max_end is made */
	size_t n, cap;
	uint64_t *max_end; /* [i]: the largest end of v[0..i]; NULL: not sorted since an add */
	/* the times from which an address's name changes (a load over named
	 * addresses, a move), sorted, once: made with max_end */
	uint64_t *changes;
	size_t n_changes;
};

/* Every perf-PID.map and jit-PID.dump in @dir (a recording's FILE.jit); a
 * damaged file gives a warning.  0 or -ENOMEM. */
int _rsp_jit_load_dir(struct rsp_sym *sym, const char *dir);
/* Fills func, dso, offset, rel_addr of @out for a JIT function of @pid that
 * covers @addr at @time; false if none. */
bool _rsp_jit_lookup(struct rsp_sym *sym, int pid, uint64_t time, uint64_t addr,
		     struct rsp_sym_frame *out);
/* How many times before @time (inclusive) a JIT function of @pid took over
 * addresses another had named: 0 for most processes (jit.c). */
uint32_t _rsp_jit_epoch(struct rsp_sym *sym, int pid, uint64_t time);
void _rsp_jit_free(struct rsp_sym *sym);

/* --- names.c -------------------------------------------------------------------- */

/* Interned copy of @s (demangled first when @demangle); NULL: ENOMEM. */
const char *_rsp_sym_intern(struct rsp_sym *sym, const char *s, bool demangle);
void _rsp_names_free(struct rsp_sym *sym);

#endif /* RSP_MODEL_SYMBOLS_PRIVATE_H */
