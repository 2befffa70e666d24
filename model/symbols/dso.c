/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The files that maps name ("DSOs"): which file on disk may stand for one, and
 * where its segments go in a process.
 *
 * A DSO is read once: the file (under the sysroot) is mapped and checked (a
 * regular file, native-endian ELF, ET_EXEC or ET_DYN, the recorded build id);
 * when it is missing, rebuilt or deleted, <debug_dir>/.build-id/xx/yyyy.debug
 * with the recorded id stands in (for [vdso] too).  The image stays mapped and
 * every Dwfl that needs it gets its own elf_memory() handle over it, so no file
 * descriptor is held per DSO.  What function an address is: dso-symbols.c.
 */
#include <elf.h>
#include <elfutils/libdwelf.h>
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

#define MAX_LOADS 64 /* real files have 2-5; ignore absurd counts */
#define DELETED_SUFFIX " (deleted)"
#define PAGE_MASK_4K (~(uint64_t)4095)

static uint64_t dso_hash(const char *path, const uint8_t *id, size_t id_len)
{
	uint64_t h = rsp_hash_bytes(RSP_HASH_SEED, path, strlen(path) + 1);

	return rsp_hash_bytes(h, id, id_len);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !memcmp(s + n - m, suffix, m);
}

struct _rsp_dso *_rsp_dso_get(struct rsp_sym *sym, const char *path, const uint8_t *id,
			      size_t id_len)
{
	uint64_t h = dso_hash(path, id, id_len);
	struct _rsp_dso *d;

	for (struct _rsp_hnode *n = _rsp_htab_chain(&sym->dsos, h); n; n = n->next) {
		d = (struct _rsp_dso *)n;
		if (n->hash == h && d->id_in_key == (id_len > 0) && !strcmp(d->name, path) &&
		    (!id_len || (d->want_id_len == id_len && !memcmp(d->want_id, id, id_len))))
			return d;
	}
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->name = strdup(path);
	if (!d->name) {
		free(d);
		return NULL;
	}
	d->node.hash = h;
	d->sym = sym;
	d->id_in_key = id_len > 0;
	if (id_len)
		memcpy(d->want_id, id, id_len);
	d->want_id_len = id_len;
	d->deleted = ends_with(path, DELETED_SUFFIX);
	/* memfd_create()'s and System V shared memory's mappings (JITs, sandboxes):
	 * their "(deleted)" is not a binary deleted after the recording */
	d->anon = !strncmp(path, "/memfd:", 7) || !strncmp(path, "/SYSV", 5);
	/* [vdso], [heap], //anon, anon_inode:..., devices: never opened */
	d->openable = path[0] == '/' && path[1] != '/' && !d->deleted && !d->anon &&
		      (strncmp(path, "/dev/", 5) || !strncmp(path, "/dev/shm/", 9)) &&
		      strlen(path) < PATH_MAX;
	if (sym->n_files == sym->cap_files) {
		size_t cap = sym->cap_files ? sym->cap_files * 2 : 64;
		struct _rsp_dso **v = realloc(sym->files, cap * sizeof(*v));

		if (!v) {
			free(d->name);
			free(d);
			return NULL;
		}
		sym->files = v;
		sym->cap_files = cap;
	}
	if (_rsp_htab_insert(&sym->dsos, &d->node)) {
		free(d->name);
		free(d);
		return NULL;
	}
	d->index = (uint32_t)sym->n_files;
	sym->files[sym->n_files++] = d;
	sym->stats.dsos++;
	return d;
}

/* --- reading files --------------------------------------------------------------- */

/* Map a regular file that starts like a native-endian ELF file. */
static int map_elf(const char *path, void **image, size_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY), err = 0;
	const unsigned char *id;
	struct stat st;
	void *p;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		err = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		err = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
		goto out;
	}
	if (st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
		err = -ENOEXEC;
		goto out;
	}
	if ((uint64_t)st.st_size > SIZE_MAX / 2) {
		err = -EFBIG;
		goto out;
	}
	/* writable private pages, as libelf's own ELF_C_READ_MMAP_PRIVATE */
	p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		err = -errno;
		goto out;
	}
	id = p;
	if (memcmp(id, ELFMAG, SELFMAG) || id[EI_DATA] != ELFDATA2LSB ||
	    (id[EI_CLASS] != ELFCLASS32 && id[EI_CLASS] != ELFCLASS64)) {
		munmap(p, (size_t)st.st_size);
		err = -ENOEXEC;
		goto out;
	}
	*image = p;
	*size = (size_t)st.st_size;
out:
	close(fd);
	return err;
}

/* A debug file (objcopy --only-keep-debug, dh_strip's): its code section has
 * no bytes. */
static bool is_debug_file(Elf *elf)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, ".text"))
			return sh.sh_type == SHT_NOBITS;
	}
	return false;
}

/* The segments and the build id of a mapped image; -ENOEXEC if unusable. */
static int read_image(struct _rsp_dso *d)
{
	Elf *elf = elf_memory(d->image, d->image_size);
	GElf_Ehdr ehdr;
	size_t phnum;
	int err = -ENOEXEC;
	bool first = true;

	if (!elf)
		return -ENOEXEC;
	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &ehdr) ||
	    (ehdr.e_type != ET_EXEC && ehdr.e_type != ET_DYN) || elf_getphdrnum(elf, &phnum))
		goto out;
	d->loads = calloc(MAX_LOADS, sizeof(*d->loads));
	if (!d->loads) {
		err = -ENOMEM;
		goto out;
	}
	d->n_loads = 0;
	d->low = d->high = 0;
	for (size_t i = 0; i < phnum && d->n_loads < MAX_LOADS; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (ph.p_memsz == 0 || ph.p_vaddr + ph.p_memsz < ph.p_vaddr ||
		    ph.p_offset + ph.p_filesz < ph.p_offset)
			continue;
		if (first) /* libdwfl's module start: the first PT_LOAD, aligned */
			d->low = ph.p_vaddr & -ph.p_align;
		first = false;
		if (ph.p_vaddr + ph.p_memsz > d->high)
			d->high = ph.p_vaddr + ph.p_memsz;
		d->loads[d->n_loads++] = (struct _rsp_load){
			.offset = ph.p_offset,
			.vaddr = ph.p_vaddr,
			.filesz = ph.p_filesz,
			.memsz = ph.p_memsz,
			.flags = ph.p_flags,
		};
	}
	if (!d->n_loads)
		goto out;
	if (d->high <= d->low)
		d->high = d->low + 1;
	d->x86_64 = ehdr.e_machine == EM_X86_64 && gelf_getclass(elf) == ELFCLASS64;
	d->file_id_len = _rsp_elf_build_id(elf, d->file_id);
	d->from_debug_dir = is_debug_file(elf);
	err = 0;
out:
	elf_end(elf);
	return err;
}

static void unmap_image(struct _rsp_dso *d)
{
	if (d->image && !d->image_borrowed)
		munmap(d->image, d->image_size);
	d->image_borrowed = false;
	d->image = NULL;
	d->image_size = 0;
	free(d->loads);
	d->loads = NULL;
	d->n_loads = 0;
	free(d->file);
	d->file = NULL;
}

/* Check the mapped image of @d: its build id must be @id (when given). */
static int check_image(struct _rsp_dso *d, const char *what, const uint8_t *id, size_t id_len)
{
	int err = read_image(d);

	if (!err && id_len && !_rsp_build_id_equal(d->file_id, d->file_id_len, id, id_len))
		err = -ESTALE;
	if (!err && !(d->file = strdup(what)))
		err = -ENOMEM;
	if (err)
		unmap_image(d);
	return err;
}

/* Try @path as the image of @d; with @id, its build id must be @id. */
static int try_image(struct _rsp_dso *d, const char *path, const uint8_t *id, size_t id_len)
{
	int err = map_elf(path, &d->image, &d->image_size);

	if (err)
		return err;
	return check_image(d, path, id, id_len);
}

/* Try the archive's member @name (a build-id path) as the image of @d. */
static int try_member(struct rsp_sym *sym, struct _rsp_dso *d, const char *name)
{
	char what[PATH_MAX];
	const unsigned char *e;
	void *data;
	size_t size;
	int err;

	if (!sym->archive || !_rsp_archive_find(sym->archive, name, &data, &size))
		return -ENOENT;
	e = data;
	if (size < sizeof(Elf64_Ehdr) || memcmp(e, ELFMAG, SELFMAG) || e[EI_DATA] != ELFDATA2LSB)
		return -ENOEXEC;
	snprintf(what, sizeof(what), "%s:%s", sym->archive_path, name);
	d->image = data;
	d->image_size = size;
	d->image_borrowed = true;
	err = check_image(d, what, d->want_id, d->want_id_len);
	if (err)
		d->image_borrowed = false;
	return err;
}

/* The places of @d's file in @sym's debug directories and the archive, in order
 * (symbols.h); 0 when one of them had it, with its build id. */
static int try_elsewhere(struct rsp_sym *sym, struct _rsp_dso *d)
{
	char path[PATH_MAX], member[128];
	char *fetched;
	int err;

	if (!_rsp_build_id_path("", d->want_id, d->want_id_len, "", member, sizeof(member)) &&
	    !try_member(sym, d, member))
		return 0;
	for (size_t i = 0; i < sym->n_debug_dirs; i++) {
		const char *dir = sym->debug_dirs[i];

		if (!_rsp_build_id_path(dir, d->want_id, d->want_id_len, ".debug", path,
					sizeof(path)) &&
		    !try_image(d, path, d->want_id, d->want_id_len))
			return 0;
		if (!d->openable && !d->deleted)
			continue;
		for (int k = 0; k < 2; k++) {
			int n = (int)strlen(d->name) - (d->deleted ? (int)strlen(DELETED_SUFFIX) : 0);
			int r = snprintf(path, sizeof(path), "%s%.*s%s", dir, n, d->name,
					 k == 0 ? ".debug" : "");

			if (r > 0 && (size_t)r < sizeof(path) &&
			    !try_image(d, path, d->want_id, d->want_id_len))
				return 0;
		}
	}
	if (!_rsp_build_id_path("", d->want_id, d->want_id_len, ".debug", member,
				sizeof(member)) &&
	    !try_member(sym, d, member))
		return 0;
	for (int k = 0; k < 2; k++) {
		fetched = _rsp_debuginfod_find(sym, d->want_id, d->want_id_len, d->name, k == 0);
		if (!fetched)
			continue;
		err = try_image(d, fetched, d->want_id, d->want_id_len);
		free(fetched);
		if (!err)
			return 0;
	}
	return -ENOENT;
}

int _rsp_dso_load(struct rsp_sym *sym, struct _rsp_dso *d)
{
	char path[PATH_MAX];
	int err = -ENOENT;

	if (d->state == _RSP_DSO_READY)
		return 0;
	if (d->state == _RSP_DSO_FAILED)
		return -ENOENT;
	d->state = _RSP_DSO_FAILED;
	/* [vdso], deleted files...: only a recorded build id can find them a file */
	if (!d->openable && !d->want_id_len)
		return -ENOENT;

	if (d->openable) {
		int r = snprintf(path, sizeof(path), "%s%s", sym->sysroot ? sym->sysroot : "",
				 d->name);

		err = r < 0 || (size_t)r >= sizeof(path) ? -ENAMETOOLONG
							 : try_image(d, path, d->want_id,
								     d->want_id_len);
		d->path_err = err;
		if (err == -ESTALE)
			d->tried_other_build = true;
		/* the file itself, beside a sysroot that lacks it: only a recorded
		 * build id tells it is the one */
		if (err && sym->sysroot && d->want_id_len) {
			int e = try_image(d, d->name, d->want_id, d->want_id_len);

			if (e == -ESTALE)
				d->tried_other_build = true;
			if (!e || d->path_err == -ENOENT)
				d->path_err = e;
			err = e;
		}
		if (err == -ESTALE && !d->counted_mismatch) {
			d->counted_mismatch = true;
			sym->stats.dsos_build_id_mismatch++;
		}
	}
	if (err && d->want_id_len && !try_elsewhere(sym, d)) {
		sym->stats.dsos_debug_files++;
		err = 0;
	}
	if (err) {
		if (err != -ESTALE && !d->counted_missing) {
			d->counted_missing = true;
			sym->stats.dsos_not_found++;
		}
		return err;
	}
	d->state = _RSP_DSO_READY;
	sym->stats.dsos_loaded++;
	return 0;
}

/* --- where segments go ------------------------------------------------------------ */

static bool prot_fits(uint32_t prot, uint32_t flags)
{
	/* PROT_READ 1, PROT_WRITE 2, PROT_EXEC 4; PF_X 1, PF_W 2, PF_R 4 */
	if (!prot)
		return true;
	return !!(prot & 4) == !!(flags & PF_X) && !!(prot & 2) == !!(flags & PF_W);
}

bool _rsp_dso_map_bias(const struct _rsp_dso *d, const struct _rsp_map *m, uint64_t *bias)
{
	const struct _rsp_load *best = NULL;
	int best_score = -1;

	if (d->state != _RSP_DSO_READY)
		return false;
	if (d->from_debug_dir) {
		/* A debug file's p_offset/p_filesz are meaningless (its sections are
		 * NOBITS).  Linkers place segments at file offsets close to their
		 * distance from the first one: take the segment of the map's
		 * protection whose place fits the map's offset best, and assume
		 * the map starts with it. */
		uint64_t first = d->loads[0].vaddr & PAGE_MASK_4K, best_d = UINT64_MAX;

		for (size_t i = 0; i < d->n_loads; i++) {
			const struct _rsp_load *l = &d->loads[i];
			uint64_t rel = (l->vaddr & PAGE_MASK_4K) - first;
			uint64_t dist = rel > m->pgoff ? rel - m->pgoff : m->pgoff - rel;
			int score = prot_fits(m->prot, l->flags);

			if (score > best_score || (score == best_score && dist < best_d)) {
				best = l;
				best_score = score;
				best_d = dist;
			}
		}
		if (!best)
			return false;
		*bias = m->start - (best->vaddr & PAGE_MASK_4K);
		return true;
	}
	/* The kernel maps a segment from the page of its p_offset: find the one
	 * whose pages hold the map's offset, the map's protection breaking ties
	 * (two segments may share a page of the file). */
	for (size_t i = 0; i < d->n_loads; i++) {
		const struct _rsp_load *l = &d->loads[i];
		uint64_t page = l->offset & PAGE_MASK_4K;
		int score;

		if (!l->filesz || m->pgoff < page || m->pgoff >= l->offset + l->filesz)
			continue;
		score = prot_fits(m->prot, l->flags) * 2 + ((m->pgoff & PAGE_MASK_4K) == page);
		if (score > best_score) {
			best = l;
			best_score = score;
		}
	}
	if (!best)
		return false;
	*bias = m->start - (best->vaddr + (m->pgoff - best->offset));
	return true;
}

/* --- build ids recorded apart from the maps ---------------------------------------- */

void _rsp_dso_unload(struct rsp_sym *sym, struct _rsp_dso *d)
{
	_rsp_dso_symbols_drop(sym, d);
	unmap_image(d);
	d->from_debug_dir = false;
	d->no_functions = false;
	d->file_id_len = 0;
	d->state = _RSP_DSO_NEW;
}

void _rsp_dsos_free(struct rsp_sym *sym)
{
	for (size_t i = 0; i < sym->dsos.cap; i++) {
		struct _rsp_hnode *n = sym->dsos.buckets[i], *next;

		for (; n; n = next) {
			struct _rsp_dso *d = (struct _rsp_dso *)n;

			next = n->next;
			_rsp_dso_symbols_drop(sym, d);
			unmap_image(d);
			free(d->name);
			free(d);
		}
	}
	_rsp_htab_release(&sym->dsos);
	free(sym->files);
	sym->files = NULL;
	sym->n_files = sym->cap_files = 0;
}

