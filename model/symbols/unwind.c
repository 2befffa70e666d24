/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DWARF unwinding of perf's user-stack copies (PERF_SAMPLE_REGS_USER +
 * STACK_USER, x86-64) with libdwfl's frame API.
 *
 * An unwinder is a Dwfl holding a process's executable file maps at one time,
 * each reported at its load bias, attached to the one thread the copy stands
 * for (format/rsp-dwfl.c: the sample's registers, and memory reads from the
 * stack copy only).  The set of maps of a process is constant over a window of time
 * [from, until) (maps.c), so the Dwfl, its ELF handles and the CFI libdwfl
 * parses are kept and reused for every sample in the window; a change to the
 * process's maps shortens or drops the windows it affects.  A few unwinders are
 * kept, least recently used out.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "symbols/symbols-private.h"

#include "rsp-dwarf-regs.h"
#include "rsp-dwfl.h"

/*
 * Unwinding the same call path again gives the same frames: a memo of recent
 * unwinds per unwinder, keyed by the initial ip, sp and bp and checked against
 * every stack word the unwind read (and every read that fell outside the
 * copy).  The unwind reads the return addresses and saved registers; a loop
 * that sleeps at the same place with the same frames above it (a server's
 * accept or read loop, a ping-pong) is unwound once.  CFI that computes the
 * CFA from other registers (none on the x86-64 frames seen) would defeat
 * the key; the reads check the frames themselves.
 */
#define MEMO_SLOTS 64 /* at most 64: a bit each in memo_valid */
#define MEMO_READS 48
#define MEMO_IPS 48

struct memo {
	uint64_t ip, sp, bp;
	uint64_t addr[MEMO_READS], val[MEMO_READS]; /* the words the unwind read */
	uint64_t absent; /* bit i: read i fell outside the copy */
	uint64_t ips[MEMO_IPS];
	uint8_t nreads, n;
};

struct _rsp_unwinder {
	struct rsp_sym *sym;
	struct _rsp_proc *proc;
	Dwfl *dwfl; /* NULL: nothing to unwind with in this window */
	uint64_t from, until; /* the maps do not change in [from, until) */
	uint64_t last_use;

	/* the unwind in progress, and the reads it made, for its memo entry */
	struct rsp_dwfl_walk walk;
	struct memo rec;
	bool rec_overflow;
	/*
	 * MEMO_SLOTS entries (76 KB), made at the first to keep and not cleared:
	 * a trace of many processes makes an unwinder for most of its few copies
	 * each (25 k for 39 k copies), and clearing each one's memo took longer
	 * than its unwinds
	 */
	struct memo *memo;
	uint64_t memo_valid; /* bit per slot */
};
_Static_assert(MEMO_SLOTS <= 64, "a bit per memo slot");

/* --- libdwfl callbacks --------------------------------------------------------- */

static int no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			char **debuginfo_file_name)
{
	return -1; /* .eh_frame (or .debug_frame in a main file) is enough */
}

static const Dwfl_Callbacks uw_callbacks = {
	.find_elf = _rsp_dso_find_elf,
	.find_debuginfo = no_debuginfo,
};

static struct _rsp_unwinder *walk_unwinder(struct rsp_dwfl_walk *w)
{
	return (struct _rsp_unwinder *)((char *)w - offsetof(struct _rsp_unwinder, walk));
}

/* each word an unwind reads, for its memo entry */
static void on_read(struct rsp_dwfl_walk *w, uint64_t addr, uint64_t val, bool ok)
{
	struct _rsp_unwinder *u = walk_unwinder(w);

	if (u->rec.nreads < MEMO_READS) {
		u->rec.addr[u->rec.nreads] = addr;
		u->rec.val[u->rec.nreads] = val;
		if (!ok)
			u->rec.absent |= 1ull << u->rec.nreads;
		u->rec.nreads++;
	} else {
		u->rec_overflow = true;
	}
}

static size_t memo_slot(uint64_t ip, uint64_t sp, uint64_t bp)
{
	uint64_t h = (ip * 0x9e3779b97f4a7c15ull) ^ (sp * 0xc2b2ae3d27d4eb4full) ^ bp;

	return (size_t)(h ^ (h >> 29)) % MEMO_SLOTS;
}

/* The frames of an earlier unwind from the same place, if every word it read
 * reads the same in this copy; 0 if none. */
static size_t memo_find(const struct _rsp_unwinder *u, const uint64_t *dregs,
			const unsigned char *stack, size_t len, uint64_t *ips, size_t max)
{
	uint64_t ip = dregs[RSP_DWARF_IP], sp = dregs[RSP_DWARF_SP], bp = dregs[6];
	size_t slot = memo_slot(ip, sp, bp);
	const struct memo *m;

	if (!(u->memo_valid >> slot & 1))
		return 0;
	m = &u->memo[slot];
	if (m->ip != ip || m->sp != sp || m->bp != bp || m->n > max)
		return 0;
	for (size_t i = 0; i < m->nreads; i++) {
		uint64_t v;
		bool ok = rsp_dwfl_copy_word(stack, sp, len, m->addr[i], &v);

		if (ok != !(m->absent & (1ull << i)) || (ok && v != m->val[i]))
			return 0;
	}
	memcpy(ips, m->ips, m->n * sizeof(*ips));
	return m->n;
}

/* --- building and keeping unwinders ----------------------------------------------- */

struct placed {
	struct _rsp_dso *dso;
	uint64_t bias, lo, hi;
};

static int cmp_placed(const void *a, const void *b)
{
	const struct placed *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static bool placed_has(const struct placed *v, size_t n, const struct _rsp_dso *d, bool any_bias,
		       uint64_t bias)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].dso == d && (any_bias || v[i].bias == bias))
			return true;
	return false;
}

/* Executable maps place their files; maps of unknown protection (0) count as
 * executable, but only for files no executable map placed. */
static size_t place_modules(struct rsp_sym *sym, const struct _rsp_map *maps, size_t n,
			    struct placed *v)
{
	size_t k = 0;

	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < n; i++) {
			const struct _rsp_map *m = &maps[i];
			struct _rsp_dso *d = m->dso;
			uint64_t bias;

			if (pass == 0 ? !(m->prot & PROT_EXEC) : m->prot != 0)
				continue;
			if (pass == 1 && placed_has(v, k, d, true, 0))
				continue;
			if (_rsp_dso_load(sym, d) || !d->x86_64 || !_rsp_dso_map_bias(d, m, &bias) ||
			    placed_has(v, k, d, false, bias))
				continue;
			v[k++] = (struct placed){ d, bias, d->low + bias, d->high + bias };
		}
	}
	return k;
}

static void unwinder_free(struct _rsp_unwinder *u)
{
	if (!u)
		return;
	if (u->dwfl)
		dwfl_end(u->dwfl);
	free(u->memo);
	free(u);
}

static struct _rsp_unwinder *unwinder_new(struct rsp_sym *sym, struct _rsp_proc *proc,
					  uint64_t time)
{
	struct _rsp_unwinder *u = calloc(1, sizeof(*u));
	struct _rsp_map *maps = NULL;
	struct placed *v = NULL;
	size_t n, k, reported = 0;
	uint64_t prev_hi = 0;

	if (!u || _rsp_proc_maps_at(proc, time, &maps, &n, &u->from, &u->until))
		goto fail;
	u->sym = sym;
	u->proc = proc;
	u->walk.on_read = on_read;
	v = malloc((n + 1) * sizeof(*v));
	if (!v)
		goto fail;
	k = place_modules(sym, maps, n, v);
	qsort(v, k, sizeof(*v), cmp_placed);
	if (k) {
		u->dwfl = dwfl_begin(&uw_callbacks);
		if (!u->dwfl)
			goto fail;
		dwfl_report_begin(u->dwfl);
		for (size_t i = 0; i < k; i++) {
			Dwfl_Module *mod;
			void **ud;

			if (v[i].hi <= v[i].lo || (reported && v[i].lo < prev_hi))
				continue; /* overlaps: the trace contradicts itself */
			mod = dwfl_report_module(u->dwfl, v[i].dso->name, v[i].lo, v[i].hi);
			if (!mod || !dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL))
				continue;
			*ud = v[i].dso;
			prev_hi = v[i].hi;
			reported++;
		}
		if (dwfl_report_end(u->dwfl, NULL, NULL) || !reported ||
		    !rsp_dwfl_attach(u->dwfl, proc->pid > 0 ? proc->pid : 1, &u->walk)) {
			dwfl_end(u->dwfl);
			u->dwfl = NULL;
		}
	}
	free(maps);
	free(v);
	return u;
fail:
	free(maps);
	free(v);
	unwinder_free(u);
	return NULL;
}

static struct _rsp_unwinder *unwinder_get(struct rsp_sym *sym, struct _rsp_proc *proc,
					  uint64_t time)
{
	size_t slot = _RSP_UNWINDERS, lru = _RSP_UNWINDERS;
	struct _rsp_unwinder *u;

	for (size_t i = 0; i < _RSP_UNWINDERS; i++) {
		u = sym->unwinders[i];
		if (!u) {
			slot = i;
			continue;
		}
		if (u->proc == proc && u->from <= time && time < u->until) {
			u->last_use = ++sym->tick;
			return u;
		}
		if (lru == _RSP_UNWINDERS || u->last_use < sym->unwinders[lru]->last_use)
			lru = i;
	}
	if (slot == _RSP_UNWINDERS) {
		slot = lru;
		unwinder_free(sym->unwinders[slot]);
		sym->unwinders[slot] = NULL;
	}
	u = unwinder_new(sym, proc, time);
	if (u) {
		u->last_use = ++sym->tick;
		sym->unwinders[slot] = u;
	}
	return u;
}

void _rsp_unwind_touch(struct rsp_sym *sym, struct _rsp_proc *proc, uint64_t time)
{
	for (size_t i = 0; i < _RSP_UNWINDERS; i++) {
		struct _rsp_unwinder *u = sym->unwinders[i];

		if (!u || u->proc != proc)
			continue;
		if (time <= u->from) {
			unwinder_free(u);
			sym->unwinders[i] = NULL;
		} else if (time < u->until) {
			u->until = time;
		}
	}
}

void _rsp_unwind_reset(struct rsp_sym *sym)
{
	for (size_t i = 0; i < _RSP_UNWINDERS; i++) {
		unwinder_free(sym->unwinders[i]);
		sym->unwinders[i] = NULL;
	}
}

/* --- the entry point ---------------------------------------------------------------- */

static int unwind(struct rsp_sym *sym, int pid, uint64_t time, const uint64_t *regs,
		  uint64_t regs_mask, const void *stack, size_t stack_len, uint64_t *ips, size_t max)
{
	uint64_t dregs[RSP_DWARF_REGS] = { 0 };
	struct _rsp_unwinder *u;
	struct _rsp_proc *proc;
	uint32_t have = 0;

	if (!sym || !regs || !ips || !max)
		return -EINVAL;
	sym->stats.unwinds++;
	have = rsp_dwarf_regs_from_perf(regs_mask, regs, dregs);
	if (!(have & (1u << RSP_DWARF_IP)) || !(have & (1u << RSP_DWARF_SP)))
		return -EINVAL;
	ips[0] = dregs[RSP_DWARF_IP];
	if (max == 1) {
		sym->stats.unwinds_ok++;
		sym->stats.unwind_frames++;
		return 1;
	}
	proc = _rsp_proc_get(sym, pid);
	if (!proc)
		return -ESRCH;
	u = unwinder_get(sym, proc, time);
	if (!u)
		return -ENOMEM;
	if (!u->dwfl)
		return -ENOENT;

	{
		size_t hit = memo_find(u, dregs, stack, stack ? stack_len : 0, ips, max);

		if (hit) {
			sym->stats.unwinds_ok++;
			sym->stats.unwind_frames += hit;
			return (int)hit;
		}
	}
	memcpy(u->walk.regs, dregs, sizeof(dregs));
	u->walk.have = have;
	u->walk.stack = stack;
	u->walk.len = stack ? stack_len : 0;
	/* what on_read() adds to (the rest is written before it is read) */
	u->rec.nreads = 0;
	u->rec.absent = 0;
	u->rec_overflow = false;
	rsp_dwfl_walk(u->dwfl, proc->pid > 0 ? proc->pid : 1, &u->walk, ips, max);

	if (u->walk.n >= 2) {
		sym->stats.unwinds_ok++;
		sym->stats.unwind_frames += u->walk.n;
		/* remember it, unless cut short by @max or its reads did not fit */
		if (!u->rec_overflow && u->walk.n < max && u->walk.n <= MEMO_IPS &&
		    (u->memo || (u->memo = malloc(MEMO_SLOTS * sizeof(*u->memo))))) {
			size_t slot = memo_slot(dregs[RSP_DWARF_IP], dregs[RSP_DWARF_SP], dregs[6]);
			struct memo *m = &u->memo[slot];

			/* the reads it made, not the whole record */
			m->nreads = u->rec.nreads;
			m->absent = u->rec.absent;
			memcpy(m->addr, u->rec.addr, u->rec.nreads * sizeof(*m->addr));
			memcpy(m->val, u->rec.val, u->rec.nreads * sizeof(*m->val));
			m->ip = dregs[RSP_DWARF_IP];
			m->sp = dregs[RSP_DWARF_SP];
			m->bp = dregs[6];
			m->n = (uint8_t)u->walk.n;
			memcpy(m->ips, ips, u->walk.n * sizeof(*ips));
			u->memo_valid |= 1ull << slot;
		}
		return (int)u->walk.n;
	}
	ips[0] = dregs[RSP_DWARF_IP];
	return dwfl_addrmodule(u->dwfl, dregs[RSP_DWARF_IP]) ? -EFAULT : -ENOENT;
}

int rsp_sym_unwind(struct rsp_sym *sym, int pid, uint64_t time, const uint64_t *regs,
		   uint64_t regs_mask, const void *stack, size_t stack_len, uint64_t *ips,
		   size_t max)
{
	int n = unwind(sym, pid, time, regs, regs_mask, stack, stack_len, ips, max);
	struct rsp_sym_frame f;

	/*
	 * JIT code without frame pointers (no CFI either): its function, the
	 * runtime's name for it, is the stack rather than none
	 */
	if ((n == -ENOENT || n == -EFAULT || n == -ESRCH) && sym->n_jits &&
	    _rsp_jit_lookup(sym, pid, time, ips[0], &f)) {
		sym->stats.unwinds_ok++;
		sym->stats.unwind_frames++;
		return 1;
	}
	return n;
}
