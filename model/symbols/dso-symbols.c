/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What function an address of a DSO (dso.c) is.  Symbols come from libdwfl:
 * .symtab, .dynsym, MiniDebugInfo (.gnu_debugdata), separate debug files by
 * build id under debug_dir or by .gnu_debuglink, through a one-module Dwfl per
 * DSO at bias 0, so module addresses are ELF virtual addresses.  libdwfl's own
 * address lookup scans the whole table, so the functions are copied once into a
 * sorted array; answers are cached per (DSO, address).  At most _RSP_DSO_DWFLS
 * Dwfls stay open (each may hold a debug file's descriptor), least recently
 * used out.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols/symbols-private.h"

static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink_file,
			  GElf_Word debuglink_crc, char **debuginfo_file_name);

static const Dwfl_Callbacks sym_callbacks = {
	.find_elf = _rsp_dso_find_elf,
	.find_debuginfo = find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/* An fd for @path if it is a regular ELF file whose build id is @id (any when
 * @id_len is 0), or -1. */
static int open_debug_file(const char *path, const uint8_t *id, size_t id_len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	uint8_t got[_RSP_BUILD_ID_MAX];
	struct stat st;
	bool ok = false;
	Elf *elf;

	if (fd < 0)
		return -1;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && (elf = elf_begin(fd, ELF_C_READ_MMAP, NULL))) {
		if (elf_kind(elf) == ELF_K_ELF) {
			size_t n = _rsp_elf_build_id(elf, got);

			ok = !id_len || _rsp_build_id_equal(got, n, id, id_len);
		}
		elf_end(elf);
	}
	if (!ok) {
		close(fd);
		return -1;
	}
	return fd;
}

static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink, GElf_Word debuglink_crc,
			  char **debuginfo_file_name)
{
	struct _rsp_dso *d = *userdata;
	struct rsp_sym *sym = d ? d->sym : NULL;
	char path[PATH_MAX];
	int fd = -1;

	if (!d || !sym || d->from_debug_dir)
		return -1;
	for (size_t i = 0; i < sym->n_debug_dirs && fd < 0; i++)
		if (!_rsp_build_id_path(sym->debug_dirs[i], d->file_id, d->file_id_len, ".debug",
					path, sizeof(path)))
			fd = open_debug_file(path, d->file_id, d->file_id_len);
	if (fd < 0 && debuglink && debuglink[0] && !strchr(debuglink, '/') &&
	    strcmp(debuglink, ".") && strcmp(debuglink, "..") && strlen(debuglink) < NAME_MAX) {
		const char *fslash = strrchr(d->file, '/'), *nslash = strrchr(d->name, '/');
		int flen = fslash ? (int)(fslash - d->file) : 0;
		int nlen = nslash ? (int)(nslash - d->name) : 0;

		for (int i = 0; i < 3 && fd < 0; i++) {
			int r;

			if (i == 0)
				r = snprintf(path, sizeof(path), "%.*s/%s", flen, d->file, debuglink);
			else if (i == 1)
				r = snprintf(path, sizeof(path), "%.*s/.debug/%s", flen, d->file,
					     debuglink);
			else
				r = snprintf(path, sizeof(path), "%s%.*s/%s",
					     sym->debug_dirs[sym->n_debug_dirs - 1], nlen, d->name,
					     debuglink);
			if (r < 0 || (size_t)r >= sizeof(path) || !strcmp(path, d->file))
				continue;
			fd = open_debug_file(path, d->file_id, d->file_id_len);
		}
	}
	if (fd < 0) { /* the archive's debug file, as a file of its own */
		char member[128];
		void *data;
		size_t size;

		if (!_rsp_build_id_path("", d->file_id, d->file_id_len, ".debug", member,
					sizeof(member)) &&
		    _rsp_archive_find(sym->archive, member, &data, &size)) {
			fd = memfd_create("rsp-debug", MFD_CLOEXEC);
			if (fd >= 0 && write(fd, data, size) != (ssize_t)size) {
				close(fd);
				fd = -1;
			}
			snprintf(path, sizeof(path), "%s:%s", sym->archive_path, member);
		}
	}
	if (fd < 0) {
		char *fetched = _rsp_debuginfod_find(sym, d->file_id, d->file_id_len, d->name, false);

		if (fetched) {
			fd = open_debug_file(fetched, d->file_id, d->file_id_len);
			snprintf(path, sizeof(path), "%s", fetched);
			free(fetched);
		}
	}
	if (fd >= 0 && !(*debuginfo_file_name = strdup(path))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static void dwfl_close(struct rsp_sym *sym, struct _rsp_dso *d)
{
	free(d->syms);
	d->syms = NULL;
	d->n_syms = 0;
	free(d->plt_names);
	d->plt_names = NULL;
	d->n_plt_names = 0;
	if (!d->dwfl)
		return;
	dwfl_end(d->dwfl);
	d->dwfl = NULL;
	d->mod = NULL;
	sym->n_dso_dwfls--;
}

void _rsp_dso_symbols_drop(struct rsp_sym *sym, struct _rsp_dso *d)
{
	dwfl_close(sym, d);
	d->dwfl_failed = false;
	free(d->cache);
	d->cache = NULL;
	d->cache_cap = d->cache_n = 0;
}

/* Keep at most _RSP_DSO_DWFLS open: each may hold a debug file's descriptor. */
static void evict_one(struct rsp_sym *sym)
{
	struct _rsp_dso *victim = NULL;
	struct _rsp_hnode *n;
	size_t i;

	_rsp_htab_for_each(&sym->dsos, i, n)
	{
		struct _rsp_dso *d = (struct _rsp_dso *)n;

		if (d->dwfl && (!victim || d->last_use < victim->last_use))
			victim = d;
	}
	if (victim)
		dwfl_close(sym, victim);
}

/* --- the function table ------------------------------------------------------------ */

struct cand {
	struct _rsp_fsym s;
	const char *name;
	GElf_Sym sym;
};

static size_t leading_underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* Of two symbols at one address, is @a the better name?  Sized, typed as a
 * function, not local, fewer leading underscores ("read" over "__libc_read"),
 * shorter. */
static bool better(const struct cand *a, const struct cand *b)
{
	int ta = GELF_ST_TYPE(a->sym.st_info), tb = GELF_ST_TYPE(b->sym.st_info);
	bool fa = ta == STT_FUNC || ta == STT_GNU_IFUNC, fb = tb == STT_FUNC || tb == STT_GNU_IFUNC;
	bool la = GELF_ST_BIND(a->sym.st_info) == STB_LOCAL;
	bool lb = GELF_ST_BIND(b->sym.st_info) == STB_LOCAL;
	size_t ua, ub, na, nb;

	if (!a->sym.st_size != !b->sym.st_size)
		return a->sym.st_size != 0;
	if (fa != fb)
		return fa;
	if (la != lb)
		return lb;
	ua = leading_underscores(a->name);
	ub = leading_underscores(b->name);
	if (ua != ub)
		return ua < ub;
	na = strlen(a->name);
	nb = strlen(b->name);
	if (na != nb)
		return na < nb;
	return a->s.index < b->s.index;
}

static int cmp_cand(const void *x, const void *y)
{
	const struct cand *a = x, *b = y;

	if (a->s.addr != b->s.addr)
		return a->s.addr < b->s.addr ? -1 : 1;
	return a->s.index < b->s.index ? -1 : a->s.index > b->s.index;
}

/*
 * Is section @shndx of @elf one of code?  A symbol elsewhere names no
 * function: a link-time optimized object's `FILE.c.HASH` markers sit in
 * .debug_info at small values that fall inside .text's addresses (gcc -flto:
 * a function's samples were named after one).  A separate debug file's .text
 * is NOBITS, its flags the same.  (Not sized or typed, so only NOTYPE symbols
 * are asked.)
 */
static bool code_section(Elf *elf, GElf_Word shndx)
{
	Elf_Scn *scn;
	GElf_Shdr sh;

	if (shndx == (GElf_Word)-1)
		return false; /* libdwfl's word for a section not allocated */
	scn = elf ? elf_getscn(elf, shndx) : NULL;
	return !scn || !gelf_getshdr(scn, &sh) || (sh.sh_flags & SHF_EXECINSTR);
}

/*
 * How far a symbol without a size reaches: to the next symbol (table_find()),
 * but not past the end of its section.  crt's _init has no size and ends
 * .init; what follows is .plt, whose stubs have no symbols: a sample in a stub
 * was named _init.  0: no bound known (the section not found).
 */
static uint32_t sizeless_reach(Elf *elf, GElf_Word shndx, GElf_Addr value)
{
	Elf_Scn *scn;
	GElf_Shdr sh;
	uint64_t end;

	if (shndx == (GElf_Word)-1 || !elf || !(scn = elf_getscn(elf, shndx)) ||
	    !gelf_getshdr(scn, &sh))
		return 0;
	end = sh.sh_addr + sh.sh_size;
	if (value < sh.sh_addr || value >= end)
		return 0;
	return end - value > UINT32_MAX ? UINT32_MAX : (uint32_t)(end - value);
}

/* _rsp_fsym.index of a PLT stub: d->plt_names[index & ~PLT_STUB] */
#define PLT_STUB 0x80000000u
#define PLT_ENTRY 16 /* x86-64's stub, lazy (.plt) or IBT's (.plt.sec) */

static Elf_Scn *section_named(Elf *elf, size_t shstrndx, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	const char *n;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, sh) && (n = elf_strptr(elf, shstrndx, sh->sh_name)) &&
		    !strcmp(n, name))
			return scn;
	return NULL;
}

/* "function@plt", interned, its C++ name demangled */
static const char *plt_name(struct rsp_sym *sym, const char *name)
{
	char buf[512];

	name = _rsp_sym_intern(sym, name, true);
	if (!name || (size_t)snprintf(buf, sizeof(buf), "%s@plt", name) >= sizeof(buf))
		return NULL;
	return _rsp_sym_intern(sym, buf, false);
}

/* "function@plt" appended to d->plt_names: its index there; -1: none */
static long plt_name_add(struct _rsp_dso *d, const char *name)
{
	const char **names;

	if (!(name = plt_name(d->sym, name)) || d->n_plt_names >= PLT_STUB / 2)
		return -1;
	if ((d->n_plt_names & (d->n_plt_names - 1)) == 0) { /* grown at powers of two */
		names = realloc(d->plt_names, (d->n_plt_names ? 2 * d->n_plt_names : 1) *
						  sizeof(*names));
		if (!names)
			return -1;
		d->plt_names = names;
	}
	d->plt_names[d->n_plt_names] = name;
	return (long)d->n_plt_names++;
}

static void stub_cand(struct cand *c, long name, const struct _rsp_dso *d, uint64_t addr,
		      uint32_t size)
{
	*c = (struct cand){ .s.index = PLT_STUB | (uint32_t)name, .name = d->plt_names[name] };
	c->s.addr = addr;
	c->s.size = size;
	c->sym.st_size = size;
	c->sym.st_info = GELF_ST_INFO(STB_LOCAL, STT_FUNC);
}

/*
 * x86-64's PLT stubs, which no symbol table names: "function@plt", as perf
 * and objdump call them (a sample in a stub, the jump into a library, had no
 * name, or the one of a sizeless symbol before it).  The stubs follow
 * .rela.plt's order: relocation i's is .plt's entry i + 1 (entry 0 calls the
 * resolver) and, in an IBT binary, .plt.sec's entry i.  A section of another
 * size is some other layout: its stubs stay unnamed.  Candidates are put in
 * @v from @n on, at most @room; returns how many.
 */
static size_t plt_cands(struct _rsp_dso *d, Elf *elf, size_t shstrndx, struct cand *v, size_t n,
			size_t room)
{
	GElf_Shdr rela_sh, dsym_sh, plt_sh, sec_sh;
	Elf_Scn *rela, *dsym, *plt, *sec;
	Elf_Data *rdata, *sdata;
	size_t nrel, added = 0;

	if (!(rela = section_named(elf, shstrndx, ".rela.plt", &rela_sh)) ||
	    rela_sh.sh_type != SHT_RELA || !rela_sh.sh_entsize ||
	    !(dsym = elf_getscn(elf, rela_sh.sh_link)) || !gelf_getshdr(dsym, &dsym_sh) ||
	    !(plt = section_named(elf, shstrndx, ".plt", &plt_sh)) ||
	    !(rdata = elf_getdata(rela, NULL)) || !rdata->d_buf ||
	    !(sdata = elf_getdata(dsym, NULL)) || !sdata->d_buf)
		return 0;
	nrel = rela_sh.sh_size / rela_sh.sh_entsize;
	sec = section_named(elf, shstrndx, ".plt.sec", &sec_sh);
	if (!nrel || plt_sh.sh_size != (nrel + 1) * PLT_ENTRY ||
	    (sec && sec_sh.sh_size != nrel * PLT_ENTRY))
		return 0;
	for (size_t i = 0; i < nrel && n + added + 2 <= room; i++) {
		GElf_Rela r;
		GElf_Sym ds;
		const char *name;
		long id;

		if (!gelf_getrela(rdata, (int)i, &r) || GELF_R_TYPE(r.r_info) != R_X86_64_JUMP_SLOT ||
		    !gelf_getsym(sdata, (int)GELF_R_SYM(r.r_info), &ds) ||
		    !(name = elf_strptr(elf, dsym_sh.sh_link, ds.st_name)) || !name[0] ||
		    (id = plt_name_add(d, name)) < 0)
			continue;
		stub_cand(&v[n + added++], id, d, plt_sh.sh_addr + (i + 1) * PLT_ENTRY, PLT_ENTRY);
		if (sec)
			stub_cand(&v[n + added++], id, d, sec_sh.sh_addr + i * PLT_ENTRY, PLT_ENTRY);
	}
	return added;
}

/*
 * .plt.got's stubs: functions whose address is also taken jump through their
 * GOT slot (`jmp *disp(%rip)`, after an endbr64 in an IBT binary), which a
 * GLOB_DAT relocation of .rela.dyn names: "function@plt" too, as objdump
 * says.  A stub without that jump or that relocation stays unnamed.
 */
static size_t pltgot_cands(struct _rsp_dso *d, Elf *elf, size_t shstrndx, struct cand *v,
			   size_t n, size_t room)
{
	GElf_Shdr got_sh, rela_sh, dsym_sh;
	Elf_Scn *got, *rela, *dsym;
	Elf_Data *gdata, *rdata, *sdata;
	size_t added = 0, nrel, esz;
	const unsigned char *b;

	if (!(got = section_named(elf, shstrndx, ".plt.got", &got_sh)) ||
	    !(esz = got_sh.sh_entsize) || (esz != 8 && esz != 16) ||
	    !(rela = section_named(elf, shstrndx, ".rela.dyn", &rela_sh)) ||
	    rela_sh.sh_type != SHT_RELA || !rela_sh.sh_entsize ||
	    !(dsym = elf_getscn(elf, rela_sh.sh_link)) || !gelf_getshdr(dsym, &dsym_sh) ||
	    !(gdata = elf_getdata(got, NULL)) || !gdata->d_buf || gdata->d_size < got_sh.sh_size ||
	    !(rdata = elf_getdata(rela, NULL)) || !rdata->d_buf ||
	    !(sdata = elf_getdata(dsym, NULL)) || !sdata->d_buf)
		return 0;
	b = gdata->d_buf;
	nrel = rela_sh.sh_size / rela_sh.sh_entsize;
	for (size_t off = 0; off + esz <= got_sh.sh_size && n + added < room; off += esz) {
		uint64_t slot = 0;
		int32_t disp;
		long id = -1;

		for (size_t p = off; p + 6 <= off + esz; p++)
			if (b[p] == 0xff && b[p + 1] == 0x25) { /* jmp *disp32(%rip) */
				memcpy(&disp, b + p + 2, 4);
				slot = got_sh.sh_addr + p + 6 + (int64_t)disp;
				break;
			}
		for (size_t i = 0; slot && i < nrel && id < 0; i++) {
			GElf_Rela r;
			GElf_Sym ds;
			const char *name;

			if (gelf_getrela(rdata, (int)i, &r) && r.r_offset == slot &&
			    GELF_R_TYPE(r.r_info) == R_X86_64_GLOB_DAT &&
			    gelf_getsym(sdata, (int)GELF_R_SYM(r.r_info), &ds) &&
			    (name = elf_strptr(elf, dsym_sh.sh_link, ds.st_name)) && name[0])
				id = plt_name_add(d, name);
		}
		if (id >= 0)
			stub_cand(&v[n + added++], id, d, got_sh.sh_addr + off, (uint32_t)esz);
	}
	return added;
}

/* Both kinds of stubs, x86-64 only, put in *@v (grown for them) from @n on;
 * returns how many.  At most two per .rela.plt entry, one per .plt.got entry. */
static size_t stub_cands(struct _rsp_dso *d, struct cand **v, size_t n)
{
	size_t shstrndx, added, room = 0;
	struct cand *grown;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	GElf_Addr bias;
	Elf *elf;

	if (!(elf = dwfl_module_getelf(d->mod, &bias)) || !gelf_getehdr(elf, &eh) ||
	    eh.e_machine != EM_X86_64 || elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	if (section_named(elf, shstrndx, ".rela.plt", &sh) && sh.sh_entsize)
		room += 2 * (sh.sh_size / sh.sh_entsize);
	if (section_named(elf, shstrndx, ".plt.got", &sh) && sh.sh_entsize)
		room += sh.sh_size / sh.sh_entsize;
	if (!room || room >= PLT_STUB / 4 || !(grown = realloc(*v, (n + room) * sizeof(**v))))
		return 0;
	*v = grown;
	added = plt_cands(d, elf, shstrndx, *v, n, n + room);
	return added + pltgot_cands(d, elf, shstrndx, *v, n + added, n + room);
}

/* One sorted entry per address, from every table libdwfl found for the module
 * (.symtab, .dynsym, MiniDebugInfo, a separate debug file). */
static int build_table(struct _rsp_dso *d)
{
	int total = dwfl_module_getsymtab(d->mod);
	size_t n = 0, k = 0;
	struct cand *v;

	if (total <= 1)
		return 0;
	v = malloc((size_t)total * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (int i = 1; i < total; i++) {
		struct cand c = { .s.index = (uint32_t)i };
		GElf_Word shndx;
		GElf_Addr addr;
		Elf *elf = NULL;
		int type;

		c.name = dwfl_module_getsym_info(d->mod, i, &c.sym, &addr, &shndx, &elf, NULL);
		type = GELF_ST_TYPE(c.sym.st_info);
		if (!c.name || !c.name[0] || !addr || shndx == SHN_UNDEF || shndx == SHN_ABS ||
		    (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_NOTYPE) ||
		    (type == STT_NOTYPE && !code_section(elf, shndx)))
			continue;
		c.s.addr = addr;
		c.s.size = c.sym.st_size > UINT32_MAX ? UINT32_MAX : (uint32_t)c.sym.st_size;
		if (!c.s.size)
			c.s.size = sizeless_reach(elf, shndx, c.sym.st_value);
		v[n++] = c;
	}
	n += stub_cands(d, &v, n);
	qsort(v, n, sizeof(*v), cmp_cand);
	for (size_t i = 0; i < n; i++) {
		if (k && v[k - 1].s.addr == v[i].s.addr) {
			if (better(&v[i], &v[k - 1]))
				v[k - 1] = v[i];
			continue;
		}
		v[k++] = v[i];
	}
	d->syms = malloc((k ? k : 1) * sizeof(*d->syms));
	if (!d->syms) {
		free(v);
		return -ENOMEM;
	}
	for (size_t i = 0; i < k; i++)
		d->syms[i] = v[i].s;
	d->n_syms = k;
	d->no_functions = true; /* its stubs alone do not make a file's symbols */
	for (size_t i = 0; i < k && d->no_functions; i++)
		d->no_functions = (d->syms[i].index & PLT_STUB) != 0;
	free(v);
	return 0;
}

/* The symbol holding @vaddr: the last one at or below it, if its size reaches
 * @vaddr (a sizeless one reaches the next symbol). */
static const struct _rsp_fsym *table_find(const struct _rsp_dso *d, uint64_t vaddr)
{
	size_t lo = 0, hi = d->n_syms;
	const struct _rsp_fsym *s;

	while (lo < hi) { /* lo = how many start at or below vaddr */
		size_t mid = lo + (hi - lo) / 2;

		if (d->syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &d->syms[lo - 1];
	if (s->size && vaddr - s->addr >= s->size)
		return NULL;
	return s;
}

/* The module's functions came from .dynsym alone: no .symtab in the file
 * mapped, no separate debug file found, no MiniDebugInfo (.gnu_debugdata). */
static bool only_dynamic(const struct _rsp_dso *d)
{
	const char *debugfile = NULL;
	Elf_Scn *scn = NULL;
	GElf_Addr bias;
	size_t shstrndx;
	Elf *e;

	if (d->from_debug_dir ||
	    !dwfl_module_info(d->mod, NULL, NULL, NULL, NULL, NULL, NULL, &debugfile) ||
	    debugfile || !(e = dwfl_module_getelf(d->mod, &bias)) ||
	    elf_getshdrstrndx(e, &shstrndx))
		return false;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			return false;
		name = elf_strptr(e, shstrndx, sh.sh_name);
		if (sh.sh_type == SHT_SYMTAB || (name && !strcmp(name, ".gnu_debugdata")))
			return false;
	}
	return true;
}

static bool dwfl_open(struct rsp_sym *sym, struct _rsp_dso *d)
{
	void **ud;

	if (d->dwfl)
		return true;
	if (d->dwfl_failed)
		return false;
	if (sym->n_dso_dwfls >= _RSP_DSO_DWFLS)
		evict_one(sym);
	d->dwfl = dwfl_begin(&sym_callbacks);
	if (!d->dwfl)
		goto fail;
	sym->n_dso_dwfls++;
	dwfl_report_begin(d->dwfl);
	d->mod = dwfl_report_module(d->dwfl, d->name, d->low, d->high);
	if (!d->mod || !dwfl_module_info(d->mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL))
		goto fail;
	*ud = d;
	if (dwfl_report_end(d->dwfl, NULL, NULL) || build_table(d))
		goto fail;
	d->dynamic_only = !d->no_functions && only_dynamic(d);
	return true;
fail:
	dwfl_close(sym, d);
	d->dwfl_failed = true;
	d->no_functions = true;
	return false;
}

static struct _rsp_cache_slot *cache_slot(struct _rsp_cache_slot *v, size_t cap, uint64_t key)
{
	size_t i = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 20) & (cap - 1);

	while (v[i].key && v[i].key != key)
		i = (i + 1) & (cap - 1);
	return &v[i];
}

static void cache_put(struct _rsp_dso *d, uint64_t key, const char *func, uint64_t start)
{
	struct _rsp_cache_slot *s;

	if ((d->cache_n + 1) * 2 > d->cache_cap) {
		size_t cap = d->cache_cap ? d->cache_cap * 2 : 256;
		struct _rsp_cache_slot *v = calloc(cap, sizeof(*v));

		if (!v)
			return; /* not cached: symbolized again next time */
		for (size_t i = 0; i < d->cache_cap; i++)
			if (d->cache[i].key)
				*cache_slot(v, cap, d->cache[i].key) = d->cache[i];
		free(d->cache);
		d->cache = v;
		d->cache_cap = cap;
	}
	s = cache_slot(d->cache, d->cache_cap, key);
	if (!s->key)
		d->cache_n++;
	*s = (struct _rsp_cache_slot){ .key = key, .func = func, .start = start };
}

void _rsp_dso_symbolize(struct rsp_sym *sym, struct _rsp_dso *d, uint64_t vaddr,
			struct rsp_sym_frame *out)
{
	uint64_t key = vaddr + 1;
	const struct _rsp_fsym *fs = NULL;
	const char *func = NULL, *name;
	uint64_t start = 0;
	GElf_Addr addr;
	GElf_Sym s;

	if (d->cache_cap && key) {
		struct _rsp_cache_slot *slot = cache_slot(d->cache, d->cache_cap, key);

		if (slot->key) {
			sym->stats.cache_hits++;
			func = slot->func;
			start = slot->start;
			goto out;
		}
	}
	d->last_use = ++sym->tick;
	if (dwfl_open(sym, d) && (fs = table_find(d, vaddr)) && (fs->index & PLT_STUB)) {
		func = d->plt_names[fs->index & ~PLT_STUB]; /* interned */
		start = fs->addr;
	} else if (fs && (name = dwfl_module_getsym_info(d->mod, (int)fs->index, &s, &addr, NULL,
							 NULL, NULL))) {
		/* "memcpy@@GLIBC_2.14": the version is not part of the name */
		size_t len = strcspn(name, "@");
		char buf[256];

		if (name[len] && len && len < sizeof(buf)) {
			memcpy(buf, name, len);
			buf[len] = '\0';
			name = buf;
		}
		func = _rsp_sym_intern(sym, name, true);
		start = fs->addr;
	}
	if (key)
		cache_put(d, key, func, start);
out:
	out->func = func;
	out->offset = func ? vaddr - start : 0;
}


/* One Elf handle per Dwfl module over the shared image: nothing is copied, no
 * descriptor held; libdwfl's elf_end() leaves the mapping alone. */
int _rsp_dso_find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		      char **file_name, Elf **elfp)
{
	struct _rsp_dso *d = *userdata;

	if (!d || d->state != _RSP_DSO_READY)
		return -1;
	*elfp = elf_memory(d->image, d->image_size);
	if (*elfp && d->file)
		*file_name = strdup(d->file);
	return -1;
}
