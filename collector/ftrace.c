/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "ftrace.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <traceevent/kbuffer.h>
#include <tracefs/tracefs.h>

#define INSTANCE_PREFIX "rsp-"

struct rsp_ftrace {
	struct tracefs_instance *inst;
	int nr_cpus;
	int *fds; /* per_cpu/cpuN/trace_pipe_raw, non-blocking */
	size_t subbuf; /* bytes read per call */
	void *page;
	struct kbuffer *kbuf;
	bool started;
};

static int stale_cb(const char *name, void *ctx)
{
	int *removed = ctx;
	char *end;
	long pid;
	struct tracefs_instance *inst;

	if (strncmp(name, INSTANCE_PREFIX, strlen(INSTANCE_PREFIX)))
		return 0;
	pid = strtol(name + strlen(INSTANCE_PREFIX), &end, 10);
	if (*end || pid <= 0)
		return 0;
	if (kill((pid_t)pid, 0) == 0 || errno == EPERM)
		return 0; /* its recorder is alive */
	inst = tracefs_instance_alloc(NULL, name);
	if (!inst)
		return 0;
	tracefs_trace_off(inst);
	if (tracefs_instance_destroy(inst) == 0)
		(*removed)++;
	tracefs_instance_free(inst);
	return 0;
}

int rsp_ftrace_remove_stale(void)
{
	int removed = 0;

	tracefs_instances_walk(stale_cb, &removed);
	return removed;
}

static int write_file(struct tracefs_instance *inst, const char *file, const char *val)
{
	return tracefs_instance_file_write(inst, file, val) < 0 ? -EIO : 0;
}

int rsp_ftrace_new(struct rsp_ftrace **out, const struct rsp_ftrace_opts *opts, char *err,
		   size_t errlen)
{
	struct rsp_ftrace *ft;
	char name[64], val[32], *s;
	int ret;

	*out = NULL;
	ft = calloc(1, sizeof(*ft));
	if (!ft)
		return -ENOMEM;
	snprintf(name, sizeof(name), INSTANCE_PREFIX "%d", (int)getpid());
	ft->inst = tracefs_instance_create(name);
	if (!ft->inst) {
		ret = errno ? -errno : -EIO;
		snprintf(err, errlen, "cannot create the ftrace instance %s: %s", name,
			 strerror(-ret));
		free(ft);
		return ret;
	}
	ft->nr_cpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	ret = write_file(ft->inst, "tracing_on", "0");
	if (!ret)
		ret = write_file(ft->inst, "trace_clock", opts->clock);
	if (ret) {
		snprintf(err, errlen, "ftrace instance: cannot select the '%s' trace clock",
			 opts->clock);
		goto fail;
	}
	/* drop new events when full, and count them, rather than overwrite unread ones */
	write_file(ft->inst, "options/overwrite", "0");
	snprintf(val, sizeof(val), "%zu", opts->buffer_kb);
	if (write_file(ft->inst, "buffer_size_kb", val)) {
		ret = -ENOMEM;
		snprintf(err, errlen, "ftrace instance: cannot get %zu KiB per CPU of buffer",
			 opts->buffer_kb);
		goto fail;
	}
	ft->subbuf = (size_t)sysconf(_SC_PAGESIZE);
	s = tracefs_instance_file_read(ft->inst, "buffer_subbuf_size_kb", NULL);
	if (s) {
		long kb = strtol(s, NULL, 10);

		if (kb > 0)
			ft->subbuf = (size_t)kb * 1024;
		free(s);
	}
	ft->page = malloc(ft->subbuf);
	ft->kbuf = kbuffer_alloc(sizeof(long) == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
				 KBUFFER_ENDIAN_LITTLE);
	ft->fds = malloc(ft->nr_cpus * sizeof(int));
	if (ft->fds)
		for (int cpu = 0; cpu < ft->nr_cpus; cpu++)
			ft->fds[cpu] = -1;
	if (!ft->page || !ft->kbuf || !ft->fds) {
		ret = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	for (int cpu = 0; cpu < ft->nr_cpus; cpu++) {
		char file[64];
		char *path;

		snprintf(file, sizeof(file), "per_cpu/cpu%d/trace_pipe_raw", cpu);
		path = tracefs_instance_get_file(ft->inst, file);
		ft->fds[cpu] = path ? open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) : -1;
		tracefs_put_tracing_file(path);
	}
	*out = ft;
	return 0;
fail:
	rsp_ftrace_free(ft);
	return ret;
}

int rsp_ftrace_enable(struct rsp_ftrace *ft, const char *system, const char *name)
{
	if (!tracefs_event_file_exists(ft->inst, system, name, "enable"))
		return -ENOENT;
	return tracefs_event_enable(ft->inst, system, name) ? -EIO : 0;
}

int rsp_ftrace_switch(struct rsp_ftrace *ft, const char *system, const char *name, bool on)
{
	return (on ? tracefs_event_enable(ft->inst, system, name) :
		     tracefs_event_disable(ft->inst, system, name)) ?
		       -EIO :
		       0;
}

int rsp_ftrace_start(struct rsp_ftrace *ft, char *err, size_t errlen)
{
	if (tracefs_trace_on(ft->inst)) {
		snprintf(err, errlen, "cannot turn the ftrace instance on");
		return -EIO;
	}
	ft->started = true;
	return 0;
}

void rsp_ftrace_stop(struct rsp_ftrace *ft)
{
	if (ft && ft->started) {
		tracefs_trace_off(ft->inst);
		ft->started = false;
	}
}

static long parse_page(struct rsp_ftrace *ft, int cpu, rsp_ftrace_event_fn ev,
		       rsp_ftrace_lost_fn lost, void *ctx)
{
	unsigned long long ts;
	void *data;
	long n = 0;
	int missed;

	if (kbuffer_load_subbuffer(ft->kbuf, ft->page) < 0)
		return -EINVAL;
	missed = kbuffer_missed_events(ft->kbuf);
	data = kbuffer_read_event(ft->kbuf, &ts);
	if (missed && lost)
		/* -1: the kernel knows events were lost, not how many */
		lost(ctx, cpu, data ? ts : kbuffer_subbuf_timestamp(ft->kbuf, ft->page),
		     missed > 0 ? (uint64_t)missed : 1);
	while (data) {
		int size = kbuffer_event_size(ft->kbuf);
		int ret;

		if (size > 0) {
			ret = ev(ctx, cpu, ts, data, (size_t)size);
			if (ret < 0)
				return ret;
			n++;
		}
		data = kbuffer_next_event(ft->kbuf, &ts);
	}
	return n;
}

long rsp_ftrace_drain(struct rsp_ftrace *ft, size_t max_subbufs, bool *more,
		      rsp_ftrace_event_fn ev, rsp_ftrace_lost_fn lost,
		      rsp_ftrace_room_fn room, void *ctx)
{
	long total = 0;

	for (int cpu = 0; cpu < ft->nr_cpus; cpu++) {
		if (ft->fds[cpu] < 0)
			continue;
		for (size_t k = 0;; k++) {
			ssize_t r;
			long n;

			if (max_subbufs && k == max_subbufs) {
				if (more)
					*more = true;
				break;
			}
			if (room && !room(ctx, ft->subbuf))
				break;
			r = read(ft->fds[cpu], ft->page, ft->subbuf);
			if (r < 0) {
				if (errno == EINTR)
					continue;
				if (errno == EAGAIN)
					break;
				return -errno;
			}
			if (r == 0)
				break;
			if ((size_t)r < ft->subbuf)
				memset((char *)ft->page + r, 0, ft->subbuf - r);
			n = parse_page(ft, cpu, ev, lost, ctx);
			if (n < 0)
				return n;
			total += n;
		}
	}
	return total;
}

int64_t rsp_ftrace_dropped(struct rsp_ftrace *ft, int cpu)
{
	char file[64], *s, *p;
	int64_t total = 0;

	snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
	s = tracefs_instance_file_read(ft->inst, file, NULL);
	if (!s)
		return -1;
	p = strstr(s, "overrun:");
	if (p)
		total += strtoll(p + 8, NULL, 10);
	p = strstr(s, "dropped events:");
	if (p)
		total += strtoll(p + 15, NULL, 10);
	free(s);
	return total;
}

int rsp_ftrace_nr_cpus(const struct rsp_ftrace *ft)
{
	return ft->nr_cpus;
}

void rsp_ftrace_free(struct rsp_ftrace *ft)
{
	if (!ft)
		return;
	rsp_ftrace_stop(ft);
	if (ft->fds)
		for (int cpu = 0; cpu < ft->nr_cpus; cpu++)
			if (ft->fds[cpu] >= 0)
				close(ft->fds[cpu]);
	free(ft->fds);
	if (ft->kbuf)
		kbuffer_free(ft->kbuf);
	free(ft->page);
	if (ft->inst) {
		tracefs_instance_destroy(ft->inst);
		tracefs_instance_free(ft->inst);
	}
	free(ft);
}
