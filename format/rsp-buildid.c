/* SPDX-License-Identifier: GPL-2.0-or-later */
/* GNU build ids of ELF files and of the running kernel. */
#include "rsp-buildid.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>
#include <unistd.h>

/* Walk a buffer of ELF notes for NT_GNU_BUILD_ID. */
int rsp_build_id_from_notes(const void *buf, size_t len, uint8_t *id, size_t max)
{
	const unsigned char *p = buf, *end = p + len;

	while ((size_t)(end - p) >= sizeof(Elf64_Nhdr)) {
		Elf64_Nhdr nh;
		size_t namesz, descsz;

		memcpy(&nh, p, sizeof(nh));
		p += sizeof(nh);
		namesz = (nh.n_namesz + 3) & ~3u;
		descsz = (nh.n_descsz + 3) & ~3u;
		if (namesz > (size_t)(end - p) || descsz > (size_t)(end - p) - namesz)
			break;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && !memcmp(p, "GNU", 4)) {
			size_t n = nh.n_descsz < max ? nh.n_descsz : max;

			memcpy(id, p + namesz, n);
			return (int)n;
		}
		p += namesz + descsz;
	}
	return -ENOENT;
}

int rsp_build_id_of_file(const char *path, uint8_t *id, size_t max)
{
	int fd, ret = -ENOENT;
	Elf *elf;
	size_t nph;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &nph) != 0) {
		ret = -EINVAL;
		goto out;
	}
	for (size_t i = 0; i < nph && ret < 0; i++) {
		GElf_Phdr ph;
		Elf_Data *d;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		d = elf_getdata_rawchunk(elf, ph.p_offset, ph.p_filesz, ELF_T_NHDR);
		if (d && d->d_buf)
			ret = rsp_build_id_from_notes(d->d_buf, d->d_size, id, max);
	}
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}

int rsp_build_id_of_kernel(uint8_t *id, size_t max)
{
	unsigned char buf[4096];
	ssize_t n;
	int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n <= 0)
		return -ENOENT;
	return rsp_build_id_from_notes(buf, (size_t)n, id, max);
}
