/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Records for what existed before recording started, as perf synthesizes
 * them: the kernel map, and for every thread alive in /proc a FORK (with its
 * parent), a COMM and, per process, MMAP2 records of its executable mappings
 * with build ids.  They carry time 0, so readers order them first.
 */
#include "synth.h"

#include "rsp-perf-format.h"
#include "rsp-str.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static void put_trailer(void *at, const struct rsp_synth_ctx *c, uint32_t pid, uint32_t tid)
{
	struct rsp_pf_sample_id sid = {
		.pid = pid,
		.tid = tid,
		.time = c->time,
		.cpu = 0,
		.id = c->id,
	};

	memcpy(at, &sid, sizeof(sid));
}

static int emit_comm(struct rsp_synth_ctx *c, uint32_t pid, uint32_t tid, const char *comm)
{
	size_t clen = strlen(comm) + 1;
	size_t body = RSP_PF_ALIGN(sizeof(struct rsp_pf_comm) + clen);
	size_t size = body + sizeof(struct rsp_pf_sample_id);
	struct rsp_pf_comm *r = rsp_writer_reserve(c->w, size);

	if (!r)
		return -ENOMEM;
	memset(r, 0, size);
	r->header.type = PERF_RECORD_COMM;
	r->header.misc = PERF_RECORD_MISC_USER;
	r->header.size = size;
	r->pid = pid;
	r->tid = tid;
	memcpy(r->comm, comm, clen);
	put_trailer((char *)r + body, c, pid, tid);
	return 0;
}

static int emit_fork(struct rsp_synth_ctx *c, uint32_t pid, uint32_t ppid, uint32_t tid,
		     uint32_t ptid)
{
	size_t size = sizeof(struct rsp_pf_fork) + sizeof(struct rsp_pf_sample_id);
	struct rsp_pf_fork *r = rsp_writer_reserve(c->w, size);

	if (!r)
		return -ENOMEM;
	memset(r, 0, size);
	r->header.type = PERF_RECORD_FORK;
	r->header.misc = PERF_RECORD_MISC_USER;
	r->header.size = size;
	r->pid = pid;
	r->ppid = ppid;
	r->tid = tid;
	r->ptid = ptid;
	r->time = c->time;
	put_trailer(r + 1, c, pid, tid);
	if (c->tids)
		rsp_tidmap_set(c->tids, tid, pid);
	return 0;
}

struct map_line {
	uint64_t start, end, pgoff, ino;
	uint32_t maj, min;
	char perms[5];
	const char *path;
};

static int parse_map_line(char *line, struct map_line *m)
{
	int pos = 0;

	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s %" SCNx64 " %x:%x %" SCNu64 "%n", &m->start,
		   &m->end, m->perms, &m->pgoff, &m->maj, &m->min, &m->ino, &pos) < 7)
		return -1;
	line += pos;
	while (*line == ' ')
		line++;
	line[strcspn(line, "\n")] = '\0';
	m->path = line;
	return 0;
}

static int emit_mmap2(struct rsp_synth_ctx *c, uint32_t pid, const struct map_line *m)
{
	const char *name = m->path[0] ? m->path : "//anon";
	size_t flen = strlen(name) + 1;
	size_t body = RSP_PF_ALIGN(sizeof(struct rsp_pf_mmap2) + flen);
	size_t size = body + sizeof(struct rsp_pf_sample_id);
	struct rsp_pf_mmap2 *r;

	/* device and inode, not a build id: perf 6.1 cannot unwind with DWARF
	 * through build-id MMAP2 records; build ids go in HEADER_BUILD_ID */
	if (m->path[0] == '/' && c->paths && rsp_pathset_add(c->paths, m->path) < 0)
		return -ENOMEM;
	r = rsp_writer_reserve(c->w, size);
	if (!r)
		return -ENOMEM;
	memset(r, 0, size);
	r->header.type = PERF_RECORD_MMAP2;
	r->header.misc = PERF_RECORD_MISC_USER | (m->perms[2] == 'x' ? 0 : PERF_RECORD_MISC_MMAP_DATA);
	r->header.size = size;
	r->pid = pid;
	r->tid = pid;
	r->start = m->start;
	r->len = m->end - m->start;
	r->pgoff = m->pgoff;
	r->maj = m->maj;
	r->min = m->min;
	r->ino = m->ino;
	r->prot = (m->perms[0] == 'r' ? PROT_READ : 0) | (m->perms[1] == 'w' ? PROT_WRITE : 0) |
		  (m->perms[2] == 'x' ? PROT_EXEC : 0);
	r->flags = m->perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
	memcpy(r->filename, name, flen);
	put_trailer((char *)r + body, c, pid, pid);
	c->n_maps++;
	return 0;
}

static int synth_maps(struct rsp_synth_ctx *c, uint32_t pid)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	FILE *f;
	int ret = 0;

	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return 0; /* exited meanwhile, or a kernel thread */
	while (getline(&line, &cap, f) > 0) {
		struct map_line m;

		if (parse_map_line(line, &m))
			continue;
		if (m.perms[2] != 'x' && !(c->data_maps && m.path[0] == '/'))
			continue;
		if (!strcmp(m.path, "[vsyscall]"))
			continue;
		ret = emit_mmap2(c, pid, &m);
		if (ret)
			break;
	}
	free(line);
	fclose(f);
	return ret;
}

/* Read a small proc file whole; @line: keep only its first line. */
static int read_small(const char *path, char *buf, size_t len, bool line)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	if (line)
		buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int status_field(const char *status, const char *key, uint32_t *val)
{
	const char *p = strstr(status, key);

	if (!p)
		return -1;
	*val = (uint32_t)strtoul(p + strlen(key), NULL, 10);
	return 0;
}

static int synth_process(struct rsp_synth_ctx *c, uint32_t pid)
{
	char path[96], status[4096], comm[64];
	uint32_t ppid = 0;
	struct dirent *de;
	DIR *d;
	int ret;

	snprintf(path, sizeof(path), "/proc/%u/status", pid);
	if (read_small(path, status, sizeof(status), false))
		return 0;
	status_field(status, "\nPPid:", &ppid);

	snprintf(path, sizeof(path), "/proc/%u/task", pid);
	d = opendir(path);
	if (!d)
		return 0;
	/* the main thread first, then its maps, then the other threads */
	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	if (read_small(path, comm, sizeof(comm), true) == 0) {
		ret = emit_fork(c, pid, ppid, pid, ppid);
		if (!ret)
			ret = emit_comm(c, pid, pid, comm);
		if (!ret)
			ret = synth_maps(c, pid);
		if (ret)
			goto out;
		c->n_threads++;
	}
	while ((de = readdir(d))) {
		uint32_t tid;

		if (!rsp_is_decimal(de->d_name))
			continue;
		tid = (uint32_t)strtoul(de->d_name, NULL, 10);
		if (tid == pid)
			continue;
		snprintf(path, sizeof(path), "/proc/%u/task/%u/comm", pid, tid);
		if (read_small(path, comm, sizeof(comm), true))
			continue;
		ret = emit_fork(c, pid, pid, tid, pid);
		if (!ret)
			ret = emit_comm(c, pid, tid, comm);
		if (ret)
			goto out;
		c->n_threads++;
	}
	ret = 0;
out:
	closedir(d);
	return ret;
}

int rsp_synth_threads(struct rsp_synth_ctx *c)
{
	struct dirent *de;
	DIR *d = opendir("/proc");
	int ret = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (!rsp_is_decimal(de->d_name))
			continue;
		ret = synth_process(c, (uint32_t)strtoul(de->d_name, NULL, 10));
		if (ret)
			break;
	}
	closedir(d);
	return ret;
}

static int kernel_text_start(uint64_t *addr)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512];
	int ret = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		uint64_t a;
		char type, name[256];

		if (sscanf(line, "%" SCNx64 " %c %255s", &a, &type, name) != 3)
			continue;
		if (!strcmp(name, "_text") || (ret && !strcmp(name, "_stext"))) {
			*addr = a;
			ret = 0;
			if (!strcmp(name, "_text"))
				break;
		}
	}
	fclose(f);
	return ret;
}

int rsp_synth_kernel(struct rsp_synth_ctx *c)
{
	static const char name[] = "[kernel.kallsyms]_text";
	size_t body = RSP_PF_ALIGN(sizeof(struct rsp_pf_mmap) + sizeof(name));
	size_t size = body + sizeof(struct rsp_pf_sample_id);
	struct rsp_pf_mmap *r;
	uint64_t start = 0;
	int ret = kernel_text_start(&start);

	if (ret)
		return ret;
	if (start == 0)
		return -EPERM; /* kallsyms hides addresses: kptr_restrict */
	r = rsp_writer_reserve(c->w, size);
	if (!r)
		return -ENOMEM;
	memset(r, 0, size);
	r->header.type = PERF_RECORD_MMAP;
	r->header.misc = PERF_RECORD_MISC_KERNEL;
	r->header.size = size;
	r->pid = (uint32_t)-1;
	r->tid = 0;
	r->start = start;
	r->len = ~0ULL - start;
	r->pgoff = start;
	memcpy(r->filename, name, sizeof(name));
	put_trailer((char *)r + body, c, (uint32_t)-1, 0);
	return 0;
}
