/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "cmdline.h"

#include "rsp-config.h"
#include "rsp-cmdline-format.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if RSP_HAVE_BPF
#include <linux/types.h>

#include <bpf/libbpf.h>

#include "cmdline-bpf.h"
#include "cmdline.skel.h"

_Static_assert(CMDLINE_MAX == RSP_CMDLINE_MAX, "the program's bound is the file's");
#endif

/* What the recorder holds at most (outside --max-memory's pool, inside its
 * margin for growing tables): past it, command lines are counted lost. */
#define HELD_MAX (8u << 20)

struct entry {
	uint64_t time;
	uint32_t pid, len, full_len;
	char *argv;
};

struct rsp_cmdlines {
	struct entry *v;
	size_t n, cap;
	uint64_t held, lost;
#if RSP_HAVE_BPF
	struct cmdline_bpf *skel;
	struct ring_buffer *rb;
	pthread_t thread;
	bool running;
	volatile int stop;
#endif
};

int rsp_cmdlines_add(struct rsp_cmdlines *c, uint64_t time, uint32_t pid, const char *argv,
		     uint32_t len, uint32_t full_len)
{
	struct entry *e;

	if (len > RSP_CMDLINE_MAX)
		len = RSP_CMDLINE_MAX;
	if (c->held + len > HELD_MAX) {
		c->lost++;
		return -ENOBUFS;
	}
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 256;
		struct entry *v = realloc(c->v, cap * sizeof(*v));

		if (!v) {
			c->lost++;
			return -ENOMEM;
		}
		c->v = v;
		c->cap = cap;
	}
	e = &c->v[c->n];
	e->argv = malloc(len ? len : 1);
	if (!e->argv) {
		c->lost++;
		return -ENOMEM;
	}
	memcpy(e->argv, argv, len);
	e->time = time;
	e->pid = pid;
	e->len = len;
	e->full_len = full_len > len ? full_len : len;
	c->held += len;
	c->n++;
	return 0;
}

/* /proc/PID/cmdline of every process in @proc_dir: the first RSP_CMDLINE_MAX
 * bytes, the rest only counted.  Kernel threads (empty) are left out. */
static void read_proc(struct rsp_cmdlines *c, const char *proc_dir)
{
	DIR *d = opendir(proc_dir);
	struct dirent *de;
	char *buf = malloc(2 * RSP_CMDLINE_MAX); /* the kept bytes, then a scratch */

	if (!d || !buf) {
		if (d)
			closedir(d);
		free(buf);
		return;
	}
	while ((de = readdir(d))) {
		char path[300], *end;
		long pid = strtol(de->d_name, &end, 10);
		uint32_t len = 0, full = 0;
		ssize_t got;
		int fd;

		if (*end || pid <= 0)
			continue;
		snprintf(path, sizeof(path), "%s/%ld/cmdline", proc_dir, pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue; /* gone meanwhile */
		while ((got = read(fd, len < RSP_CMDLINE_MAX ? buf + len : buf + RSP_CMDLINE_MAX,
				   len < RSP_CMDLINE_MAX ? RSP_CMDLINE_MAX - len : RSP_CMDLINE_MAX)) > 0) {
			if (len < RSP_CMDLINE_MAX)
				len += (uint32_t)got;
			full += (uint32_t)got;
		}
		close(fd);
		if (len)
			rsp_cmdlines_add(c, 0, (uint32_t)pid, buf, len, full);
	}
	closedir(d);
	free(buf);
}

#if RSP_HAVE_BPF
static int on_exec(void *ctx, void *data, size_t size)
{
	const struct rsp_cmdline_event *ev = data;

	struct rsp_cmdlines *c = ctx;

	if (size < sizeof(*ev) - CMDLINE_MAX || !ev->len ||
	    ev->len > size - (sizeof(*ev) - CMDLINE_MAX))
		c->lost++; /* its arguments could not be read */
	else
		rsp_cmdlines_add(c, ev->time, ev->pid, ev->argv, ev->len, ev->full_len);
	return 0;
}

static void *reader(void *arg)
{
	struct rsp_cmdlines *c = arg;

	while (!c->stop)
		ring_buffer__poll(c->rb, 100);
	return NULL;
}

static int silent(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

static int start_bpf(struct rsp_cmdlines *c, char *why, size_t whylen)
{
	int ret;

	libbpf_set_print(silent);
	c->skel = cmdline_bpf__open_and_load();
	if (!c->skel) {
		snprintf(why, whylen, "the kernel refused the command-line program: %s",
			 strerror(errno));
		return -1;
	}
	ret = cmdline_bpf__attach(c->skel);
	if (ret) {
		snprintf(why, whylen, "cannot attach the command-line program: %s",
			 strerror(ret < 0 ? -ret : ret));
		return -1;
	}
	c->rb = ring_buffer__new(bpf_map__fd(c->skel->maps.cmdlines), on_exec, c, NULL);
	if (!c->rb) {
		snprintf(why, whylen, "cannot map the command-line ring: %s", strerror(errno));
		return -1;
	}
	if (pthread_create(&c->thread, NULL, reader, c)) {
		snprintf(why, whylen, "cannot start the command-line reader");
		return -1;
	}
	pthread_setname_np(c->thread, "rsp-cmdline");
	c->running = true;
	return 0;
}

static void stop_bpf(struct rsp_cmdlines *c)
{
	if (c->running) {
		c->stop = 1;
		pthread_join(c->thread, NULL);
		c->running = false;
		ring_buffer__consume(c->rb);
		c->lost += c->skel->bss->lost;
	}
	ring_buffer__free(c->rb);
	c->rb = NULL;
	cmdline_bpf__destroy(c->skel);
	c->skel = NULL;
}
#else
static int start_bpf(struct rsp_cmdlines *c, char *why, size_t whylen)
{
	snprintf(why, whylen, "rsp was built without BPF");
	return -1;
}

static void stop_bpf(struct rsp_cmdlines *c)
{
}
#endif

struct rsp_cmdlines *rsp_cmdlines_start(const char *proc_dir, bool execs, char *why,
					size_t whylen)
{
	struct rsp_cmdlines *c = calloc(1, sizeof(*c));

	why[0] = '\0';
	if (!c)
		return NULL;
	if (execs && start_bpf(c, why, whylen))
		stop_bpf(c);
	if (proc_dir)
		read_proc(c, proc_dir);
	return c;
}

int rsp_cmdlines_finish(struct rsp_cmdlines *c, struct rsp_writer *w, uint64_t *n, uint64_t *lost)
{
	unsigned char *rec = malloc(sizeof(struct rsp_pf_cmdline) + RSP_CMDLINE_MAX + 8);
	int ret = 0;

	stop_bpf(c);
	*n = 0;
	if (!rec) {
		*lost = c->lost + c->n;
		return -ENOMEM;
	}
	for (size_t i = 0; i < c->n && !ret; i++) {
		const struct entry *e = &c->v[i];
		struct rsp_pf_cmdline h = {
			.header = { .type = RSP_PF_RECORD_HEADER_EVENT_TYPE,
				    .size = (uint16_t)RSP_PF_ALIGN(sizeof(h) + e->len) },
			.magic = RSP_PF_CMDLINE_MAGIC,
			.time = e->time,
			.pid = e->pid,
			.len = e->len,
			.full_len = e->full_len,
		};

		memset(rec, 0, h.header.size);
		memcpy(rec, &h, sizeof(h));
		memcpy(rec + sizeof(h), e->argv, e->len);
		ret = rsp_writer_append(w, rec, h.header.size);
		if (!ret)
			(*n)++;
	}
	free(rec);
	*lost = c->lost + (c->n - *n);
	return ret;
}

void rsp_cmdlines_free(struct rsp_cmdlines *c)
{
	if (!c)
		return;
	stop_bpf(c);
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i].argv);
	free(c->v);
	free(c);
}
