/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The recorder's DWARF unwinding of CPU samples' user-stack copies (runwind.h). */
#include "runwind.h"

#include "rsp-dwarf-regs.h"
#include "rsp-dwfl.h"
#include "rsp-hash.h"
#include "rsp-perf-format.h"
#include "rsp-time.h"
#include "ustack.h"

#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#define MAX_FRAMES 256 /* user frames at most, as the model's unwinder */
#define SPACES 64 /* Dwfls kept */
#define PROC_BUCKETS 1024
#define FILE_BUCKETS 1024
/* a process's maps outlive its EXIT record by this much of record time: a
 * sample drained from another CPU's ring in the same round may come after it */
#define DEAD_NS (2 * RSP_NSEC_PER_SEC)
/*
 * Records of one round come ring by ring, not in time order; a chunk's are
 * read in time order (rsp_runwind_filter), but a round may straddle two
 * chunks: a child forked just after its parent's exec may be read before
 * that exec and the maps ld.so then makes.  A FORK copies the parent's maps
 * as read so far; a parent's exec or map read later with a time before a
 * child's fork is applied to that child too, for KID_NS after the fork.
 */
#define KID_NS (1 * RSP_NSEC_PER_SEC)

/* a file mapped executable: where its PT_LOAD segments lie */
struct seg {
	uint64_t vaddr, off, filesz, memsz, align;
};

struct rw_file {
	struct rw_file *next;
	char *path;
	uint64_t ino;
	uint32_t maj, min;
	int state; /* 0: not read yet, 1: an x86-64 ELF file, -1: not usable */
	struct seg *segs;
	size_t nseg;
	void *image; /* the file, mapped: each Dwfl's Elf reads it (elf_memory) */
	size_t size;
};

struct rw_map {
	uint64_t start, end, pgoff;
	struct rw_file *f;
};

struct rw_proc {
	struct rw_proc *next;
	uint32_t pid;
	struct rw_map *v;
	size_t n, cap;
	uint64_t sig; /* of v, 0: not computed since the last change */
	uint64_t dead_at; /* record time of its EXIT, 0: alive */
	uint64_t fork_time, exec_time; /* of its FORK (0: synthesized), its last exec */
	/* children forked in the last KID_NS: they take the maps this process
	 * gets at a time before their fork, whenever its records come (below) */
	struct kid {
		uint32_t pid;
		uint64_t time;
	} *kids;
	size_t n_kids, cap_kids;
};

struct space {
	uint64_t sig;
	struct rw_map *maps; /* the maps it was built from (a copy) */
	size_t n;
	Dwfl *dwfl; /* NULL: nothing to unwind with */
	uint64_t last_use;
};

struct id_entry {
	uint64_t id, sample_type, regs_mask;
	size_t time_off; /* of a sample's TIME */
};

struct ent;

/*
 * The replay of an unwind: a copy taken again where one was unwound before --
 * the same process and maps, instruction, stack and frame pointers, length --
 * whose every word the unwinder read then holds the same value unwinds to the
 * same frames.  (The unwinder reads the stack only through memory_read, and of
 * the registers only those the CFI names: the stack and frame pointers, and on
 * the frames past the first what it read back from the stack.)  A loop that
 * sleeps in the same call is unwound once.
 */
#define REPLAY_WORDS 96 /* words read by one unwind, at most, to keep it */
#define REPLAY_MAX 16384 /* unwinds kept; more, and they are dropped all at once */

struct replay {
	uint64_t key; /* 0: empty slot */
	uint64_t sig, ip, sp, bp, len;
	uint32_t pid;
	uint16_t n_words, n_frames;
	void *mem; /* one allocation: val, frames, off */
	uint64_t *val, *frames;
	uint32_t *off;
};

struct rsp_runwind {
	struct id_entry *ids;
	size_t n_ids;
	struct rw_proc *procs[PROC_BUCKETS];
	struct rw_file *files[FILE_BUCKETS];
	struct space spaces[SPACES];
	uint64_t tick, now;
	uint64_t skip; /* bytes of a tracing data payload still to come */
	struct ent *ent, **order; /* a chunk's records in file and in time order */
	size_t cap_ent;
	struct rsp_runwind_stats st;

	/* the unwind in progress: the copy, its frames (walked or replayed) */
	struct rsp_dwfl_walk walk;
	uint64_t ips[MAX_FRAMES];
	size_t n;
	bool oob, outside;
	/* the words the unwind in progress read (off from sp, value); more than
	 * REPLAY_WORDS: n_read past it, not kept for replay */
	uint32_t read_off[REPLAY_WORDS];
	uint64_t read_val[REPLAY_WORDS];
	size_t n_read;
	struct replay *replays;
	size_t replay_cap, n_replays;
	bool verify; /* replayed unwinds done again, to compare (tests) */
	unsigned char out[UINT16_MAX + 1]; /* a rewritten record */
};

/* --- processes, maps and files -------------------------------------------------- */

static struct rw_proc *proc_get(struct rsp_runwind *rw, uint32_t pid, bool create)
{
	struct rw_proc **b = &rw->procs[(pid * 2654435761u) % PROC_BUCKETS], *p;

	for (p = *b; p; p = p->next)
		if (p->pid == pid)
			return p;
	if (!create)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	p->next = *b;
	*b = p;
	return p;
}

static void proc_drop(struct rsp_runwind *rw, struct rw_proc *p)
{
	struct rw_proc **b = &rw->procs[(p->pid * 2654435761u) % PROC_BUCKETS];

	for (; *b; b = &(*b)->next)
		if (*b == p) {
			*b = p->next;
			break;
		}
	free(p->v);
	free(p->kids);
	free(p);
}

static struct rw_file *file_get(struct rsp_runwind *rw, const char *path, uint32_t maj,
				uint32_t min, uint64_t ino)
{
	uint64_t h = rsp_hash_str(path) ^ ino;
	struct rw_file **b = &rw->files[h % FILE_BUCKETS], *f;

	for (f = *b; f; f = f->next)
		if (f->ino == ino && f->maj == maj && f->min == min && !strcmp(f->path, path))
			return f;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->path = strdup(path);
	if (!f->path) {
		free(f);
		return NULL;
	}
	f->ino = ino;
	f->maj = maj;
	f->min = min;
	f->next = *b;
	*b = f;
	return f;
}

/* Its PT_LOAD segments, once; false if it is no x86-64 ELF file rsp can map. */
static bool file_load(struct rw_file *f)
{
	Elf *elf = NULL;
	GElf_Ehdr eh;
	struct stat sb;
	size_t phnum;
	int fd;

	if (f->state)
		return f->state > 0;
	f->state = -1;
	fd = open(f->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 64 &&
	    (!f->ino || (sb.st_ino == f->ino && major(sb.st_dev) == f->maj &&
			 minor(sb.st_dev) == f->min))) {
		f->image = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (f->image == MAP_FAILED)
			f->image = NULL;
		else
			f->size = (size_t)sb.st_size;
	}
	close(fd);
	if (f->image)
		elf = elf_memory(f->image, f->size);
	if (elf && gelf_getehdr(elf, &eh) && eh.e_machine == EM_X86_64 &&
	    gelf_getclass(elf) == ELFCLASS64 && !elf_getphdrnum(elf, &phnum) && phnum < 4096) {
		f->segs = calloc(phnum ? phnum : 1, sizeof(*f->segs));
		for (size_t i = 0; f->segs && i < phnum; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
				f->segs[f->nseg++] = (struct seg){ ph.p_vaddr, ph.p_offset, ph.p_filesz,
								   ph.p_memsz,
								   ph.p_align ? ph.p_align : 1 };
		}
		if (f->nseg)
			f->state = 1;
	}
	elf_end(elf);
	if (f->state < 0 && f->image) {
		munmap(f->image, f->size);
		f->image = NULL;
	}
	return f->state > 0;
}

/* The load bias of @f mapped at @m (its file offset m->pgoff at m->start). */
static bool map_bias(const struct rw_map *m, uint64_t *bias)
{
	const struct rw_file *f = m->f;

	for (size_t i = 0; i < f->nseg; i++) {
		const struct seg *s = &f->segs[i];

		if ((s->off & ~4095ull) <= m->pgoff && m->pgoff < s->off + s->filesz) {
			*bias = m->start - (s->vaddr - s->off + m->pgoff);
			return true;
		}
	}
	return false;
}

/* [start, end) is mapped anew in @p: what it covers goes; @f's if executable. */
static void proc_map(struct rw_proc *p, uint64_t start, uint64_t end, uint64_t pgoff,
		     struct rw_file *f)
{
	size_t k = 0, need = p->n + 2;
	struct rw_map *v;

	if (end <= start)
		return;
	if (need > p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 16;

		while (cap < need)
			cap *= 2;
		v = realloc(p->v, cap * sizeof(*v));
		if (!v)
			return;
		p->v = v;
		p->cap = cap;
	}
	v = p->v;
	/* cut what overlaps, keep the rest in order (at most one map is split) */
	for (size_t i = 0; i < p->n; i++) {
		struct rw_map m = v[i];

		if (m.end <= start || m.start >= end) {
			v[k++] = m;
			continue;
		}
		if (m.start < start)
			v[k++] = (struct rw_map){ m.start, start, m.pgoff, m.f };
		if (m.end > end) {
			struct rw_map r = { end, m.end, m.pgoff + (end - m.start), m.f };

			/* the right part goes after the new map: shift room for it below */
			if (f) {
				v[k++] = (struct rw_map){ start, end, pgoff, f };
				f = NULL;
			}
			v[k++] = r;
		}
	}
	p->n = k;
	if (f) {
		/* insert in address order */
		size_t at = p->n;

		while (at > 0 && p->v[at - 1].start > start)
			at--;
		memmove(&p->v[at + 1], &p->v[at], (p->n - at) * sizeof(*p->v));
		p->v[at] = (struct rw_map){ start, end, pgoff, f };
		p->n++;
	}
	p->sig = 0;
}

static uint64_t maps_sig(struct rw_proc *p)
{
	uint64_t h = 0x9e3779b97f4a7c15ull;

	if (p->sig)
		return p->sig;
	for (size_t i = 0; i < p->n; i++) {
		h ^= p->v[i].start + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
		h ^= p->v[i].end * 31 + p->v[i].pgoff + (uint64_t)(uintptr_t)p->v[i].f;
		h *= 0xff51afd7ed558ccdull;
	}
	p->sig = h ? h : 1;
	return p->sig;
}

/* the writer thread's CPU time: its cost, whatever else the CPUs run */
static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * RSP_NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* --- libdwfl -------------------------------------------------------------------------- */

static int no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			char **debuginfo_file_name)
{
	return -1; /* .eh_frame (or a main file's .debug_frame) */
}

/* a module's Elf: its file's image, mapped once for every Dwfl */
static int find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		    char **file_name, Elf **elfp)
{
	struct rw_file *f = *userdata;

	if (f && f->image)
		*elfp = elf_memory(f->image, f->size);
	return -1;
}

static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = find_elf,
	.find_debuginfo = no_debuginfo,
};

static struct rsp_runwind *walk_rw(struct rsp_dwfl_walk *w)
{
	return (struct rsp_runwind *)((char *)w - offsetof(struct rsp_runwind, walk));
}

/* the words an unwind reads, for its replay; a failed read (outside the copy) ends it */
static void on_read(struct rsp_dwfl_walk *w, uint64_t addr, uint64_t val, bool ok)
{
	struct rsp_runwind *rw = walk_rw(w);

	if (!ok) {
		rw->oob = true;
		return;
	}
	if (rw->n_read < REPLAY_WORDS) {
		rw->read_off[rw->n_read] = (uint32_t)(addr - w->sp);
		rw->read_val[rw->n_read] = val;
	}
	rw->n_read++;
}

static bool on_frame(struct rsp_dwfl_walk *w, Dwfl_Frame *state, uint64_t pc)
{
	struct rsp_runwind *rw = walk_rw(w);

	/*
	 * A frame outside every file: a map not known yet (an exec's first
	 * samples), the vdso, or a return address the fallback unwinder (by
	 * rbp, where the CFI has no entry) read off a register that holds data
	 */
	if (!dwfl_addrmodule(dwfl_thread_dwfl(dwfl_frame_thread(state)), w->n ? pc - 1 : pc)) {
		rw->outside = true;
		return false;
	}
	rw->oob = false; /* a failed read before this frame did not stop the unwind */
	return true;
}

static void space_clear(struct space *s)
{
	if (s->dwfl)
		dwfl_end(s->dwfl);
	free(s->maps);
	memset(s, 0, sizeof(*s));
}

/* A Dwfl with @p's executable maps' files, each at its load bias. */
static void space_build(struct rsp_runwind *rw, struct space *s, struct rw_proc *p)
{
	size_t reported = 0;
	uint64_t prev_hi = 0;

	s->sig = maps_sig(p);
	s->maps = malloc((p->n ? p->n : 1) * sizeof(*s->maps));
	if (!s->maps)
		return;
	memcpy(s->maps, p->v, p->n * sizeof(*p->v));
	s->n = p->n;
	rw->st.spaces_built++;
	s->dwfl = dwfl_begin(&dwfl_callbacks);
	if (!s->dwfl)
		return;
	dwfl_report_begin(s->dwfl);
	for (size_t i = 0; i < p->n; i++) {
		const struct rw_map *m = &p->v[i];
		bool seen = false;
		uint64_t bias, lo, hi;
		Dwfl_Module *mod;
		void **ud;

		for (size_t j = 0; j < i && !seen; j++)
			seen = p->v[j].f == m->f;
		if (seen || !file_load(m->f) || !map_bias(m, &bias))
			continue;
		/* the module spans its PT_LOAD segments; libdwfl takes the bias
		 * from where the first one lies */
		lo = bias + (m->f->segs[0].vaddr & -m->f->segs[0].align);
		hi = lo;
		for (size_t k = 0; k < m->f->nseg; k++)
			if (bias + m->f->segs[k].vaddr + m->f->segs[k].memsz > hi)
				hi = bias + m->f->segs[k].vaddr + m->f->segs[k].memsz;
		if (hi <= lo || lo < prev_hi)
			continue; /* overlaps the one before: contradictory maps */
		mod = dwfl_report_module(s->dwfl, m->f->path, lo, hi);
		if (!mod || !dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL))
			continue;
		*ud = m->f;
		prev_hi = hi;
		reported++;
	}
	if (dwfl_report_end(s->dwfl, NULL, NULL) || !reported ||
	    !rsp_dwfl_attach(s->dwfl, p->pid ? (pid_t)p->pid : 1, &rw->walk)) {
		dwfl_end(s->dwfl);
		s->dwfl = NULL;
	}
}

static bool same_maps(const struct space *s, const struct rw_proc *p)
{
	return s->n == p->n && !memcmp(s->maps, p->v, p->n * sizeof(*p->v));
}

static struct space *space_get(struct rsp_runwind *rw, struct rw_proc *p)
{
	uint64_t sig = maps_sig(p), t0;
	size_t lru = 0;

	for (size_t i = 0; i < SPACES; i++) {
		struct space *s = &rw->spaces[i];

		if (s->sig == sig && same_maps(s, p)) {
			s->last_use = ++rw->tick;
			return s;
		}
		if (!s->sig || (rw->spaces[lru].sig && s->last_use < rw->spaces[lru].last_use))
			lru = i;
	}
	t0 = now_ns();
	space_clear(&rw->spaces[lru]);
	space_build(rw, &rw->spaces[lru], p);
	rw->st.build_ns += now_ns() - t0;
	rw->spaces[lru].last_use = ++rw->tick;
	return &rw->spaces[lru];
}

/* --- replays ----------------------------------------------------------------------------- */

static uint64_t replay_key(uint32_t pid, uint64_t sig, uint64_t ip, uint64_t sp, uint64_t bp,
			   uint64_t len)
{
	uint64_t h = pid * 0x9e3779b97f4a7c15ull;

	h = (h ^ sig) * 0x9e3779b97f4a7c15ull;
	h = (h ^ ip) * 0x9e3779b97f4a7c15ull;
	h = (h ^ sp) * 0x9e3779b97f4a7c15ull;
	h = (h ^ bp) * 0x9e3779b97f4a7c15ull;
	h = (h ^ len) * 0x9e3779b97f4a7c15ull;
	return h ? h : 1;
}

static void replay_clear(struct rsp_runwind *rw)
{
	for (size_t i = 0; i < rw->replay_cap; i++) {
		free(rw->replays[i].mem);
		memset(&rw->replays[i], 0, sizeof(rw->replays[i]));
	}
	rw->n_replays = 0;
}

/* The slot of @key: its entry, or the empty slot it would take. */
static struct replay *replay_slot(struct rsp_runwind *rw, uint64_t key)
{
	size_t m = rw->replay_cap - 1, i = (size_t)(key >> 17) & m;

	while (rw->replays[i].key && rw->replays[i].key != key)
		i = (i + 1) & m;
	return &rw->replays[i];
}

/* The frames of an unwind done before on this copy, or NULL. */
static const struct replay *replay_find(struct rsp_runwind *rw, uint32_t pid, uint64_t sig)
{
	uint64_t sp = rw->walk.regs[RSP_DWARF_SP], ip = rw->walk.regs[RSP_DWARF_IP];
	uint64_t bp = rw->walk.regs[RSP_DWARF_BP];
	const struct replay *r;

	if (!rw->replay_cap)
		return NULL;
	r = replay_slot(rw, replay_key(pid, sig, ip, sp, bp, rw->walk.len));
	if (!r->key || r->pid != pid || r->sig != sig || r->ip != ip || r->sp != sp ||
	    r->bp != bp || r->len != rw->walk.len)
		return NULL;
	for (uint16_t i = 0; i < r->n_words; i++) {
		uint64_t v;

		memcpy(&v, rw->walk.stack + r->off[i], 8);
		if (v != r->val[i])
			return NULL;
	}
	return r;
}

/* Keep the unwind just done (rw->ips, the words it read) for replay. */
static void replay_keep(struct rsp_runwind *rw, uint32_t pid, uint64_t sig)
{
	uint64_t sp = rw->walk.regs[RSP_DWARF_SP], ip = rw->walk.regs[RSP_DWARF_IP];
	uint64_t bp = rw->walk.regs[RSP_DWARF_BP];
	uint64_t key = replay_key(pid, sig, ip, sp, bp, rw->walk.len);
	struct replay *r;
	unsigned char *mem;

	if (rw->n_read > REPLAY_WORDS || !(rw->walk.have & (1u << RSP_DWARF_BP)))
		return;
	if (!rw->replay_cap || (rw->n_replays + 1) * 4 > rw->replay_cap * 3) {
		if (rw->replay_cap >= REPLAY_MAX * 2) {
			replay_clear(rw);
		} else {
			size_t cap = rw->replay_cap ? rw->replay_cap * 2 : 1024;
			struct replay *v = calloc(cap, sizeof(*v)), *old = rw->replays;
			size_t old_cap = rw->replay_cap;

			if (!v)
				return;
			rw->replays = v;
			rw->replay_cap = cap;
			for (size_t i = 0; i < old_cap; i++)
				if (old[i].key)
					*replay_slot(rw, old[i].key) = old[i];
			free(old);
		}
	}
	r = replay_slot(rw, key);
	free(r->mem);
	mem = malloc(rw->n_read * (4 + 8) + rw->n * 8 + 8);
	if (!mem) {
		if (r->key)
			rw->n_replays--;
		memset(r, 0, sizeof(*r));
		return;
	}
	if (!r->key)
		rw->n_replays++;
	*r = (struct replay){ .key = key, .sig = sig, .ip = ip, .sp = sp, .bp = bp,
			      .len = rw->walk.len, .pid = pid, .n_words = (uint16_t)rw->n_read,
			      .n_frames = (uint16_t)rw->n, .mem = mem };
	r->val = (uint64_t *)mem;
	r->frames = r->val + rw->n_read;
	r->off = (uint32_t *)(r->frames + rw->n);
	memcpy(r->val, rw->read_val, rw->n_read * 8);
	memcpy(r->frames, rw->ips, rw->n * 8);
	memcpy(r->off, rw->read_off, rw->n_read * 4);
}

/* --- records ---------------------------------------------------------------------------- */

static const struct id_entry *id_find(const struct rsp_runwind *rw, uint64_t id)
{
	for (size_t i = 0; i < rw->n_ids; i++)
		if (rw->ids[i].id == id)
			return &rw->ids[i];
	return NULL;
}

/*
 * The sample @rec (@size bytes) unwound and rewritten into rw->out; returns
 * the new size, or 0 to keep it as it is.
 */
static size_t sample(struct rsp_runwind *rw, const unsigned char *rec, size_t size)
{
	const struct id_entry *e;
	const struct replay *replayed;
	struct rsp_ustack_loc loc;
	struct rw_proc *p;
	struct space *s;
	uint64_t id, nr, v, ctx = PERF_CONTEXT_USER, zero = 0;
	size_t o, chain_end, after, nsize;
	int ret;

	if (size < 16)
		return 0;
	memcpy(&id, rec + 8, 8); /* PERF_SAMPLE_IDENTIFIER: the first field */
	e = id_find(rw, id);
	if (!e ||
	    rsp_ustack_locate(rec, size, e->sample_type, e->regs_mask, RSP_PERF_REG_SP, &loc) ||
	    !loc.chain_off)
		return 0;
	rw->st.samples++;
	p = proc_get(rw, loc.pid, false);
	if (!p || !p->n) {
		rw->st.kept_no_maps++;
		goto keep;
	}
	rw->walk.have =
		rsp_dwarf_regs_from_perf(e->regs_mask, rec + loc.regs_off + 8, rw->walk.regs);
	if (!(rw->walk.have & (1u << RSP_DWARF_IP)) || !(rw->walk.have & (1u << RSP_DWARF_SP)))
		goto keep;
	s = space_get(rw, p);
	if (!s->dwfl) {
		rw->st.kept_no_files++;
		goto keep;
	}
	rw->walk.stack = rec + loc.size_off + 8;
	rw->walk.len = loc.dyn_size < loc.size ? loc.dyn_size : loc.size;
	replayed = replay_find(rw, p->pid, s->sig);
	if (replayed && !rw->verify) {
		rw->n = replayed->n_frames;
		memcpy(rw->ips, replayed->frames, rw->n * 8);
		rw->st.replayed++;
	} else {
		rw->n_read = 0;
		rw->oob = rw->outside = false;
		ret = rsp_dwfl_walk(s->dwfl, p->pid ? (pid_t)p->pid : 1, &rw->walk, rw->ips,
				    MAX_FRAMES);
		rw->n = rw->walk.n;
		/*
		 * Clean: every frame in a known file, and the outermost frame
		 * reached (0), a return address of 0, as many frames as kept, or
		 * the copy's end (a reader of the copy stops there too); not: an
		 * address outside every known map, no CFI.
		 */
		if (rw->n < 2 || rw->outside ||
		    !(ret == 0 || rw->walk.outermost || rw->n >= MAX_FRAMES || rw->oob)) {
			rw->st.kept_unclean++;
			if (replayed)
				rw->st.replay_checked++, rw->st.replay_differ++;
			goto keep;
		}
		if (replayed) {
			rw->st.replay_checked++;
			if (replayed->n_frames != rw->n ||
			    memcmp(replayed->frames, rw->ips, rw->n * 8))
				rw->st.replay_differ++;
		} else {
			replay_keep(rw, p->pid, s->sig);
		}
	}

	/* header .. callchain's kernel part, PERF_CONTEXT_USER, the frames,
	 * what lies between callchain and registers, abi 0, stack size 0, tail */
	memcpy(&nr, rec + loc.chain_off, 8);
	for (uint64_t i = 0; i < nr; i++) {
		memcpy(&v, rec + loc.chain_off + 8 + 8 * i, 8);
		if (v == (uint64_t)PERF_CONTEXT_USER)
			goto keep; /* the kernel gave a user part already */
	}
	chain_end = loc.chain_off + 8 + 8 * nr;
	after = loc.size_off + 8 + loc.size + 8;
	nsize = size - (after - loc.regs_off) + 16 + 8 * (1 + rw->n);
	if (nsize >= size || after > size)
		goto keep;
	o = loc.chain_off;
	memcpy(rw->out, rec, o);
	v = nr + 1 + rw->n;
	memcpy(rw->out + o, &v, 8);
	o += 8;
	memcpy(rw->out + o, rec + loc.chain_off + 8, 8 * nr);
	o += 8 * nr;
	memcpy(rw->out + o, &ctx, 8);
	o += 8;
	memcpy(rw->out + o, rw->ips, 8 * rw->n);
	o += 8 * rw->n;
	memcpy(rw->out + o, rec + chain_end, loc.regs_off - chain_end);
	o += loc.regs_off - chain_end;
	memcpy(rw->out + o, &zero, 8); /* PERF_SAMPLE_REGS_ABI_NONE */
	o += 8;
	memcpy(rw->out + o, &zero, 8); /* no stack copy (and so no dyn_size) */
	o += 8;
	memcpy(rw->out + o, rec + after, size - after);
	o += size - after;
	{
		struct perf_event_header h;

		memcpy(&h, rec, sizeof(h));
		h.size = (uint16_t)o;
		memcpy(rw->out, &h, sizeof(h));
	}
	rw->st.unwound++;
	rw->st.frames += rw->n;
	rw->st.bytes_saved += size - o;
	return o;
keep:
	rw->st.kept++;
	return 0;
}

/* The time in a side-band record's sample_id trailer (rsp's attrs: TID, TIME, CPU, IDENTIFIER). */
static uint64_t trailer_time(const unsigned char *rec, size_t size)
{
	struct rsp_pf_sample_id sid;

	if (size < sizeof(struct perf_event_header) + sizeof(sid))
		return 0;
	memcpy(&sid, rec + size - sizeof(sid), sizeof(sid));
	return sid.time;
}

/* @p's children forked after @t (and not exec'd since), in turn */
static struct rw_proc *next_kid(struct rsp_runwind *rw, struct rw_proc *p, size_t *i, uint64_t t)
{
	for (; *i < p->n_kids; (*i)++) {
		const struct kid *k = &p->kids[*i];
		struct rw_proc *c;

		if (k->time <= t || k->time + KID_NS < rw->now)
			continue;
		c = proc_get(rw, k->pid, false);
		if (c && c->fork_time == k->time && c->exec_time < k->time) {
			(*i)++;
			return c;
		}
	}
	return NULL;
}

static void add_kid(struct rsp_runwind *rw, struct rw_proc *p, uint32_t pid, uint64_t time)
{
	size_t k = 0;

	/* forget the children forked too long ago */
	for (size_t i = 0; i < p->n_kids; i++)
		if (p->kids[i].time + KID_NS >= rw->now)
			p->kids[k++] = p->kids[i];
	p->n_kids = k;
	if (p->n_kids == p->cap_kids) {
		size_t cap = p->cap_kids ? p->cap_kids * 2 : 4;
		struct kid *v = realloc(p->kids, cap * sizeof(*v));

		if (!v)
			return;
		p->kids = v;
		p->cap_kids = cap;
	}
	p->kids[p->n_kids++] = (struct kid){ pid, time };
}

/* What a side-band record tells of a process's maps. */
static void side_band(struct rsp_runwind *rw, const unsigned char *rec, size_t size,
		      const struct perf_event_header *h)
{
	switch (h->type) {
	case PERF_RECORD_MMAP2: {
		struct rsp_pf_mmap2 m;
		const char *name = (const char *)rec + offsetof(struct rsp_pf_mmap2, filename);
		size_t room;
		struct rw_proc *p;
		struct rw_file *f = NULL;

		if (size <= sizeof(m))
			break;
		memcpy(&m, rec, sizeof(m));
		room = size - sizeof(m);
		if (!memchr(name, '\0', room) || m.pid == (uint32_t)-1)
			break;
		p = proc_get(rw, m.pid, true);
		if (!p)
			break;
		if ((m.prot & PROT_EXEC) && name[0] == '/' && !(h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID))
			f = file_get(rw, name, m.maj, m.min, m.ino);
		else if ((m.prot & PROT_EXEC) && name[0] == '/')
			f = file_get(rw, name, 0, 0, 0);
		proc_map(p, m.start, m.start + m.len, m.pgoff, f);
		{
			uint64_t t = trailer_time(rec, size);
			struct rw_proc *c;
			size_t i = 0;

			while ((c = next_kid(rw, p, &i, t)))
				proc_map(c, m.start, m.start + m.len, m.pgoff, f);
		}
		break;
	}
	case PERF_RECORD_FORK: {
		struct rsp_pf_fork fk;
		struct rw_proc *parent, *child;

		if (size < sizeof(fk))
			break;
		memcpy(&fk, rec, sizeof(fk));
		if (fk.time > rw->now)
			rw->now = fk.time;
		if (fk.pid == fk.ppid)
			break; /* a thread */
		parent = proc_get(rw, fk.ppid, false);
		child = proc_get(rw, fk.pid, true);
		if (!child)
			break;
		child->n = 0;
		child->sig = 0;
		child->dead_at = 0;
		child->fork_time = fk.time;
		child->exec_time = 0;
		/* a synthesized FORK (time 0) names a parent whose maps are not the
		 * child's: its own MMAP2 records follow */
		if (!fk.time)
			break;
		if (parent)
			add_kid(rw, parent, fk.pid, fk.time);
		if (parent && parent->n) {
			struct rw_map *v = malloc(parent->n * sizeof(*v));

			if (!v)
				break;
			memcpy(v, parent->v, parent->n * sizeof(*v));
			free(child->v);
			child->v = v;
			child->n = child->cap = parent->n;
		}
		break;
	}
	case PERF_RECORD_EXIT: {
		struct rsp_pf_fork ex;
		struct rw_proc *p;

		if (size < sizeof(ex))
			break;
		memcpy(&ex, rec, sizeof(ex));
		if (ex.time > rw->now)
			rw->now = ex.time;
		p = ex.pid == ex.tid ? proc_get(rw, ex.pid, false) : NULL;
		if (p)
			p->dead_at = ex.time ? ex.time : 1;
		break;
	}
	case PERF_RECORD_COMM: {
		struct rsp_pf_comm c;
		struct rw_proc *p;

		if (!(h->misc & PERF_RECORD_MISC_COMM_EXEC) || size < sizeof(c))
			break;
		memcpy(&c, rec, sizeof(c));
		p = proc_get(rw, c.pid, false);
		if (p) {
			uint64_t t = trailer_time(rec, size);
			struct rw_proc *k;
			size_t i = 0;

			/* children forked after it, read before it, copied the old image */
			while ((k = next_kid(rw, p, &i, t))) {
				k->n = 0;
				k->sig = 0;
			}
			p->n = 0; /* a new image: its maps follow */
			p->sig = 0;
			p->exec_time = t ? t : 1;
		}
		break;
	}
	default:
		break;
	}
}

/* Processes whose EXIT is DEAD_NS behind the newest time seen. */
static void sweep(struct rsp_runwind *rw)
{
	for (size_t b = 0; b < PROC_BUCKETS; b++) {
		struct rw_proc *p = rw->procs[b], *next;

		for (; p; p = next) {
			next = p->next;
			if (p->dead_at && p->dead_at + DEAD_NS < rw->now)
				proc_drop(rw, p);
		}
	}
}

/* a record of a chunk the filter reads: a sample it may unwind or a side-band record */
struct ent {
	size_t off;
	uint16_t size, new_size; /* new_size: the sample rewritten (0: as it is) */
	uint64_t time;
	uint32_t seq;
};

static int cmp_time(const void *a, const void *b)
{
	const struct ent *x = *(const struct ent *const *)a, *y = *(const struct ent *const *)b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The time of a record the filter reads, and whether it reads it. */
static bool ent_time(const struct rsp_runwind *rw, const unsigned char *rec,
		     const struct perf_event_header *h, uint64_t *time)
{
	switch (h->type) {
	case PERF_RECORD_SAMPLE: {
		const struct id_entry *e;
		uint64_t id;

		if (h->size < 16)
			return false;
		memcpy(&id, rec + 8, 8); /* PERF_SAMPLE_IDENTIFIER: the first field */
		e = id_find(rw, id);
		if (!e || e->time_off + 8 > h->size)
			return false;
		memcpy(time, rec + e->time_off, 8);
		return true;
	}
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT: {
		struct rsp_pf_fork fk;

		if (h->size < sizeof(fk))
			return false;
		memcpy(&fk, rec, sizeof(fk));
		*time = fk.time;
		return true;
	}
	case PERF_RECORD_COMM:
	case PERF_RECORD_MMAP2:
		*time = trailer_time(rec, h->size);
		return true;
	default:
		return false;
	}
}

/*
 * The chunk's samples and side-band records are read in time order (a
 * round's records come ring by ring: a child's first samples before the FORK
 * another CPU's ring holds), the rewritten samples put in place, then the
 * chunk compacted in file order.
 */
size_t rsp_runwind_filter(void *arg, unsigned char *recs, size_t len)
{
	struct rsp_runwind *rw = arg;
	uint64_t t0 = now_ns();
	size_t in = 0, out = 0, n_ent = 0, k;

	/* the tracing data's payload follows its record, outside header.size,
	 * maybe in the next chunk: passed over as it is */
	if (rw->skip) {
		in = rw->skip < len ? (size_t)rw->skip : len;
		rw->skip -= in;
	}
	while (len - in >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;
		uint64_t time;

		memcpy(&h, recs + in, sizeof(h));
		if (h.size < sizeof(h) || h.size > len - in)
			break;
		if (h.type == RSP_PF_RECORD_HEADER_TRACING_DATA &&
		    h.size >= sizeof(struct rsp_pf_tracing_data)) {
			struct rsp_pf_tracing_data td;

			memcpy(&td, recs + in, sizeof(td));
			in += h.size;
			k = td.size < len - in ? td.size : len - in;
			in += k;
			rw->skip = td.size - k;
			continue;
		}
		if (ent_time(rw, recs + in, &h, &time)) {
			if (n_ent == rw->cap_ent) {
				size_t cap = rw->cap_ent ? rw->cap_ent * 2 : 4096;
				struct ent *v = realloc(rw->ent, cap * sizeof(*v));
				struct ent **o = realloc(rw->order, cap * sizeof(*o));

				if (v)
					rw->ent = v;
				if (o)
					rw->order = o;
				if (!v || !o)
					break; /* the rest as it is */
				rw->cap_ent = cap;
			}
			rw->ent[n_ent] = (struct ent){ in, h.size, 0, time, (uint32_t)n_ent };
			n_ent++;
		}
		in += h.size;
	}
	for (k = 0; k < n_ent; k++)
		rw->order[k] = &rw->ent[k];
	if (n_ent > 1)
		qsort(rw->order, n_ent, sizeof(*rw->order), cmp_time);
	for (k = 0; k < n_ent; k++) {
		struct ent *e = rw->order[k];
		unsigned char *rec = recs + e->off;
		struct perf_event_header h;

		memcpy(&h, rec, sizeof(h));
		if (e->time > rw->now)
			rw->now = e->time;
		if (h.type == PERF_RECORD_SAMPLE) {
			size_t n = sample(rw, rec, h.size);

			if (n && n < e->size) {
				memcpy(rec, rw->out, n);
				e->new_size = (uint16_t)n;
			}
		} else {
			side_band(rw, rec, h.size, &h);
		}
	}
	/* compaction: every record in file order, at its new size */
	if (!n_ent)
		out = len;
	for (in = 0, k = 0; k < n_ent; k++) {
		const struct ent *e = &rw->ent[k];
		size_t n = e->new_size ? e->new_size : e->size;

		if (out != in && e->off > in)
			memmove(recs + out, recs + in, e->off - in);
		out += e->off - in;
		if (out != e->off)
			memmove(recs + out, recs + e->off, n);
		out += n;
		in = e->off + e->size;
	}
	if (n_ent) {
		if (out != in)
			memmove(recs + out, recs + in, len - in);
		out += len - in;
	}
	sweep(rw);
	rw->st.ns += now_ns() - t0;
	return out;
}

/* --- life ----------------------------------------------------------------------------------- */

struct rsp_runwind *rsp_runwind_new(void)
{
	struct rsp_runwind *rw;

	elf_version(EV_CURRENT);
	rw = calloc(1, sizeof(*rw));
	if (rw) {
		rw->walk.on_read = on_read;
		rw->walk.on_frame = on_frame;
	}
	return rw;
}

int rsp_runwind_add_ids(struct rsp_runwind *rw, const uint64_t *ids, size_t n,
			uint64_t sample_type, uint64_t regs_mask)
{
	struct id_entry *v;

	if (!(sample_type & PERF_SAMPLE_IDENTIFIER) || !(sample_type & PERF_SAMPLE_CALLCHAIN) ||
	    !(sample_type & PERF_SAMPLE_TIME))
		return -EINVAL;
	v = realloc(rw->ids, (rw->n_ids + n) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	rw->ids = v;
	for (size_t i = 0; i < n; i++)
		rw->ids[rw->n_ids++] = (struct id_entry){
			ids[i], sample_type, regs_mask,
			8 + 8 * !!(sample_type & PERF_SAMPLE_IDENTIFIER) +
			    8 * !!(sample_type & PERF_SAMPLE_IP) + 8 * !!(sample_type & PERF_SAMPLE_TID)
		};
	return 0;
}

void rsp_runwind_stats(const struct rsp_runwind *rw, struct rsp_runwind_stats *out)
{
	*out = rw->st;
}

void rsp_runwind_free(struct rsp_runwind *rw)
{
	if (!rw)
		return;
	for (size_t i = 0; i < SPACES; i++)
		space_clear(&rw->spaces[i]);
	for (size_t b = 0; b < PROC_BUCKETS; b++)
		while (rw->procs[b])
			proc_drop(rw, rw->procs[b]);
	for (size_t b = 0; b < FILE_BUCKETS; b++) {
		struct rw_file *f = rw->files[b], *next;

		for (; f; f = next) {
			next = f->next;
			free(f->path);
			free(f->segs);
			if (f->image)
				munmap(f->image, f->size);
			free(f);
		}
	}
	replay_clear(rw);
	free(rw->replays);
	free(rw->ids);
	free(rw->ent);
	free(rw->order);
	free(rw);
}

void rsp_runwind_set_verify(struct rsp_runwind *rw, bool verify)
{
	rw->verify = verify;
}
