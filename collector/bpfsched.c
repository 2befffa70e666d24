/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "bpfsched.h"

#include "sched.skel.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

/* the kernel's ring buffer record header (kernel/bpf/ringbuf.c) */
#define RB_BUSY (1u << 31)
#define RB_DISCARD (1u << 30)
#define RB_HDR 8

struct rsp_bpfsched {
	struct sched_bpf *skel;
	struct bpf_link *fork_link, *exec_link, *switch_link, *waking_link;
	int ring_fd;
	int epfd; /* the ring, edge-triggered: readable on the program's wakeups only */
	size_t ring_size, page;
	uint64_t *consumer; /* the consumer's position: a page of its own, ours to write */
	const uint64_t *producer; /* the producer's, followed by the data mapped twice */
	const unsigned char *data;
	int stats_fd; /* RSP_RECORD_BPF_STATS=1: the kernel times the programs while it is open */
};

static int silent(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

/* RSP_BPF_DEBUG=1: libbpf's messages (the verifier's log) on stderr */
static int debug(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return vfprintf(stderr, fmt, ap);
}

static int fail(char *why, size_t len, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return ret < 0 ? ret : -EINVAL;
}

/* The offset of member @name in the struct @type_id of @btf (bytes), -1 if none. */
static long member_offset(const struct btf *btf, int type_id, const char *name)
{
	const struct btf_type *t = btf__type_by_id(btf, (uint32_t)type_id);
	const struct btf_member *m;

	if (!t || !btf_is_struct(t))
		return -1;
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, m++)
		if (!strcmp(btf__name_by_offset(btf, m->name_off), name))
			return (long)(btf_member_bit_offset(t, (uint32_t)i) / 8);
	return -1;
}

/*
 * How far this CPU's preempt count lies from its runqueue, both per-CPU
 * variables: the distance of their offsets in the kernel's per-CPU section
 * (its BTF).  The count is a variable of its own, or (6.2 to 6.14) a member of
 * pcpu_hot.  Returns 0 when the kernel's BTF says neither.
 */
static long long preempt_delta(const struct btf *vmlinux)
{
	long long rq = -1, pc = -1;
	int sec = btf__find_by_name_kind(vmlinux, ".data..percpu", BTF_KIND_DATASEC);
	const struct btf_type *t = sec > 0 ? btf__type_by_id(vmlinux, (uint32_t)sec) : NULL;
	const struct btf_var_secinfo *v;

	if (!t)
		return 0;
	v = btf_var_secinfos(t);
	for (int i = 0; i < btf_vlen(t); i++, v++) {
		const struct btf_type *var = btf__type_by_id(vmlinux, v->type);
		const char *name = var ? btf__name_by_offset(vmlinux, var->name_off) : NULL;

		if (!name)
			continue;
		if (!strcmp(name, "runqueues")) {
			rq = v->offset;
		} else if (!strcmp(name, "__preempt_count")) {
			pc = v->offset;
		} else if (!strcmp(name, "pcpu_hot") && pc < 0) {
			long m = member_offset(vmlinux, (int)var->type, "preempt_count");

			if (m >= 0)
				pc = v->offset + m;
		}
	}
	return rq >= 0 && pc >= 0 && pc != rq ? pc - rq : 0;
}

static int map_ring(struct rsp_bpfsched *b)
{
	void *c, *p;

	c = mmap(NULL, b->page, PROT_READ | PROT_WRITE, MAP_SHARED, b->ring_fd, 0);
	if (c == MAP_FAILED)
		return -errno;
	/* the producer's page, then the data twice: a record that wraps reads whole */
	p = mmap(NULL, b->page + 2 * b->ring_size, PROT_READ, MAP_SHARED, b->ring_fd,
		 (off_t)b->page);
	if (p == MAP_FAILED) {
		int ret = -errno;

		munmap(c, b->page);
		return ret;
	}
	b->consumer = c;
	b->producer = p;
	b->data = (const unsigned char *)p + b->page;
	return 0;
}

int rsp_bpfsched_open(struct rsp_bpfsched **out, const struct rsp_bpfsched_opts *o, char *why,
		      size_t whylen)
{
	struct rsp_bpfsched *b;
	struct btf *vmlinux;
	long long delta;
	bool rq_in_cfs_rq;
	int cfs_rq, ret;

	*out = NULL;
	libbpf_set_print(getenv("RSP_BPF_DEBUG") ? debug : silent);
	vmlinux = btf__load_vmlinux_btf();
	if (!vmlinux)
		return fail(why, whylen, -ENOTSUP, "the kernel has no BTF (/sys/kernel/btf/vmlinux)");
	delta = preempt_delta(vmlinux);
	cfs_rq = btf__find_by_name_kind(vmlinux, "cfs_rq", BTF_KIND_STRUCT);
	rq_in_cfs_rq = cfs_rq > 0 && member_offset(vmlinux, cfs_rq, "rq") >= 0;
	btf__free(vmlinux);
	if (!delta)
		return fail(why, whylen, -ENOTSUP,
			    "the kernel's BTF does not place its preempt count (interrupt context "
			    "unknown)");
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->page = (size_t)sysconf(_SC_PAGESIZE);
	b->ring_size = o->ring_bytes;
	b->ring_fd = -1;
	b->epfd = -1;
	b->stats_fd = -1;
	b->skel = sched_bpf__open();
	if (!b->skel) {
		ret = fail(why, whylen, -errno, "cannot open the BPF program: %s", strerror(errno));
		goto err;
	}
	b->skel->rodata->preempt_delta = delta;
	b->skel->rodata->rq_in_cfs_rq = rq_in_cfs_rq;
	b->skel->rodata->copy_bytes = o->copy_bytes;
	b->skel->rodata->copy_all = o->copy_all;
	b->skel->rodata->want_runtime = o->runtime;
	b->skel->rodata->wakeup_bytes = o->ring_bytes / 4;
	ret = bpf_map__set_max_entries(b->skel->maps.events, (uint32_t)o->ring_bytes);
	if (ret) {
		fail(why, whylen, ret, "cannot size the BPF ring buffer: %s", strerror(-ret));
		goto err;
	}
	ret = sched_bpf__load(b->skel);
	if (ret) {
		fail(why, whylen, ret, "the kernel refused the BPF program: %s",
		     strerror(ret < 0 ? -ret : ret));
		goto err;
	}
	b->ring_fd = bpf_map__fd(b->skel->maps.events);
	ret = map_ring(b);
	if (ret) {
		fail(why, whylen, ret, "cannot map the BPF ring buffer: %s", strerror(-ret));
		goto err;
	}
	/*
	 * The ring's poll says readable while any record waits; the program
	 * wakes the reader only when a quarter of the ring does.  Edge-triggered,
	 * the reader sleeps until then (or its timeout), not after every record.
	 */
	b->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (b->epfd < 0) {
		ret = fail(why, whylen, -errno, "epoll: %s", strerror(errno));
		goto err;
	}
	{
		struct epoll_event ev = { .events = EPOLLIN | EPOLLET };

		if (epoll_ctl(b->epfd, EPOLL_CTL_ADD, b->ring_fd, &ev)) {
			ret = fail(why, whylen, -errno, "epoll: %s", strerror(errno));
			goto err;
		}
	}
	/* targets follow their forks and execs from now on */
	b->fork_link = bpf_program__attach(b->skel->progs.rsp_fork);
	b->exec_link = b->fork_link ? bpf_program__attach(b->skel->progs.rsp_exec) : NULL;
	if (!b->fork_link || !b->exec_link) {
		ret = fail(why, whylen, -errno, "cannot attach the BPF program: %s",
			   strerror(errno));
		goto err;
	}
	*out = b;
	return 0;
err:
	rsp_bpfsched_free(b);
	return ret;
}

void rsp_bpfsched_free(struct rsp_bpfsched *b)
{
	if (!b)
		return;
	rsp_bpfsched_stop(b);
	bpf_link__destroy(b->fork_link);
	bpf_link__destroy(b->exec_link);
	if (b->epfd >= 0)
		close(b->epfd);
	if (b->stats_fd >= 0)
		close(b->stats_fd);
	if (b->consumer)
		munmap(b->consumer, b->page);
	if (b->producer)
		munmap((void *)b->producer, b->page + 2 * b->ring_size);
	sched_bpf__destroy(b->skel);
	free(b);
}

int rsp_bpfsched_add_target(struct rsp_bpfsched *b, pid_t pid, bool at_exec)
{
	uint32_t key = (uint32_t)pid, val = at_exec ? 2 : 1;

	return bpf_map__update_elem(b->skel->maps.targets, &key, sizeof(key), &val, sizeof(val),
				    BPF_ANY);
}

int rsp_bpfsched_start(struct rsp_bpfsched *b, char *why, size_t whylen)
{
	const char *stats = getenv("RSP_RECORD_BPF_STATS");

	/* the kernel's clock read twice more per run: for bench/cost.sh, not by default */
	if (stats && !strcmp(stats, "1") && b->stats_fd < 0)
		b->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	b->switch_link = bpf_program__attach(b->skel->progs.rsp_switch);
	if (b->switch_link)
		b->waking_link = bpf_program__attach(b->skel->progs.rsp_waking);
	if (!b->switch_link || !b->waking_link) {
		int ret = -errno;

		rsp_bpfsched_stop(b);
		return fail(why, whylen, ret, "cannot attach the BPF program: %s", strerror(-ret));
	}
	return 0;
}

void rsp_bpfsched_stop(struct rsp_bpfsched *b)
{
	bpf_link__destroy(b->switch_link);
	bpf_link__destroy(b->waking_link);
	b->switch_link = b->waking_link = NULL;
}

int rsp_bpfsched_fd(const struct rsp_bpfsched *b)
{
	return b->epfd;
}

unsigned rsp_bpfsched_fill(const struct rsp_bpfsched *b)
{
	uint64_t cons = __atomic_load_n(b->consumer, __ATOMIC_RELAXED);
	uint64_t prod = __atomic_load_n(b->producer, __ATOMIC_ACQUIRE);

	return prod > cons ? (unsigned)((prod - cons) * 100 / b->ring_size) : 0;
}

long rsp_bpfsched_drain(struct rsp_bpfsched *b, rsp_bpfsched_fn fn, rsp_bpfsched_room room,
			void *ctx, bool *more)
{
	uint64_t cons = __atomic_load_n(b->consumer, __ATOMIC_RELAXED);
	uint64_t prod = __atomic_load_n(b->producer, __ATOMIC_ACQUIRE);
	uint64_t mask = b->ring_size - 1;
	long n = 0;
	int ret = 0;

	*more = false;
	while (cons < prod) {
		const uint32_t *hdr = (const uint32_t *)(b->data + (cons & mask));
		uint32_t len = __atomic_load_n(hdr, __ATOMIC_ACQUIRE);

		if (len & RB_BUSY)
			break; /* reserved, not yet written: the rest comes next time */
		if (!(len & RB_DISCARD)) {
			len &= ~(RB_BUSY | RB_DISCARD);
			if (!room(ctx, len)) {
				*more = true;
				break;
			}
			if (len >= sizeof(struct rsp_bpf_rec))
				ret = fn(ctx, (const void *)((const unsigned char *)hdr + RB_HDR), len);
			n++;
		}
		len &= ~(RB_BUSY | RB_DISCARD);
		cons += (len + RB_HDR + 7) & ~7ull;
		if (ret)
			break;
	}
	__atomic_store_n(b->consumer, cons, __ATOMIC_RELEASE);
	return ret ? ret : n;
}

const struct rsp_bpf_counts *rsp_bpfsched_counts(const struct rsp_bpfsched *b, int cpu)
{
	return &b->skel->bss->counts[cpu & (RSP_BPF_MAX_CPUS - 1)];
}

static int prog_info(const struct rsp_bpfsched *b, enum rsp_bpf_kind kind,
		     struct bpf_prog_info *info)
{
	struct bpf_program *p = kind == RSP_BPF_SWITCH ? b->skel->progs.rsp_switch
						       : b->skel->progs.rsp_waking;
	uint32_t len = sizeof(*info);

	memset(info, 0, sizeof(*info));
	return bpf_obj_get_info_by_fd(bpf_program__fd(p), info, &len);
}

uint64_t rsp_bpfsched_misses(const struct rsp_bpfsched *b, enum rsp_bpf_kind kind)
{
	struct bpf_prog_info info;

	return prog_info(b, kind, &info) ? 0 : info.recursion_misses;
}

bool rsp_bpfsched_run_time(const struct rsp_bpfsched *b, enum rsp_bpf_kind kind, uint64_t *ns,
			   uint64_t *runs)
{
	struct bpf_prog_info info;

	if (b->stats_fd < 0 || prog_info(b, kind, &info) || !info.run_cnt)
		return false;
	*ns = info.run_time_ns;
	*runs = info.run_cnt;
	return true;
}
