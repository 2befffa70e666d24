/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The synthetic perf.data writer (synth-perf.h): the tracepoints' formats and
 * the tracing data made from the same field lists as the payloads, the attrs,
 * side-band records, tracepoint and cpu-clock samples (with user-stack copies
 * when asked), rounds (in CPU-drain order when scrambled), and the stream in
 * pipe or file layout.  Its compressed forms are made in synth-compress.c.
 */
#include "synth-perf.h"

#include "rsp-cmdline-format.h"

#include "rsp-perf-format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

struct sfield {
	const char *type, *name;
	int size, is_signed, dyn;
};

struct sdef {
	const char *sys, *name;
	int id;
	bool stack;
	struct sfield f[12];
};

static const struct sdef defs[SE__COUNT] = {
	[SE_SWITCH] = { "sched", "sched_switch", 316, true,
			{ { "char", "prev_comm[16]", 16, 0, 0 },
			  { "pid_t", "prev_pid", 4, 1, 0 },
			  { "int", "prev_prio", 4, 1, 0 },
			  { "long", "prev_state", 8, 1, 0 },
			  { "char", "next_comm[16]", 16, 0, 0 },
			  { "pid_t", "next_pid", 4, 1, 0 },
			  { "int", "next_prio", 4, 1, 0 } } },
	[SE_WAKING] = { "sched", "sched_waking", 317, true,
			{ { "char", "comm[16]", 16, 0, 0 },
			  { "pid_t", "pid", 4, 1, 0 },
			  { "int", "prio", 4, 1, 0 },
			  { "int", "target_cpu", 4, 1, 0 } } },
	[SE_WAKEUP] = { "sched", "sched_wakeup", 318, false,
			{ { "char", "comm[16]", 16, 0, 0 },
			  { "pid_t", "pid", 4, 1, 0 },
			  { "int", "prio", 4, 1, 0 },
			  { "int", "target_cpu", 4, 1, 0 } } },
	[SE_WAKEUP_NEW] = { "sched", "sched_wakeup_new", 319, false,
			    { { "char", "comm[16]", 16, 0, 0 },
			      { "pid_t", "pid", 4, 1, 0 },
			      { "int", "prio", 4, 1, 0 },
			      { "int", "target_cpu", 4, 1, 0 } } },
	[SE_FORK] = { "sched", "sched_process_fork", 320, true,
		      { { "char", "parent_comm[16]", 16, 0, 0 },
			{ "pid_t", "parent_pid", 4, 1, 0 },
			{ "char", "child_comm[16]", 16, 0, 0 },
			{ "pid_t", "child_pid", 4, 1, 0 } } },
	[SE_EXEC] = { "sched", "sched_process_exec", 321, true,
		      { { "__data_loc char[]", "filename", 4, 0, 1 },
			{ "pid_t", "pid", 4, 1, 0 },
			{ "pid_t", "old_pid", 4, 1, 0 } } },
	[SE_EXIT] = { "sched", "sched_process_exit", 322, false,
		      { { "char", "comm[16]", 16, 0, 0 },
			{ "pid_t", "pid", 4, 1, 0 },
			{ "int", "prio", 4, 1, 0 } } },
	[SE_BLK_INSERT] = { "block", "block_rq_insert", 400, false,
			    { { "dev_t", "dev", 4, 0, 0 },
			      { "sector_t", "sector", 8, 0, 0 },
			      { "unsigned int", "nr_sector", 4, 0, 0 },
			      { "unsigned int", "bytes", 4, 0, 0 },
			      { "char", "rwbs[8]", 8, 0, 0 },
			      { "char", "comm[16]", 16, 0, 0 } } },
	[SE_BLK_ISSUE] = { "block", "block_rq_issue", 401, false,
			   { { "dev_t", "dev", 4, 0, 0 },
			     { "sector_t", "sector", 8, 0, 0 },
			     { "unsigned int", "nr_sector", 4, 0, 0 },
			     { "unsigned int", "bytes", 4, 0, 0 },
			     { "char", "rwbs[8]", 8, 0, 0 },
			     { "char", "comm[16]", 16, 0, 0 } } },
	[SE_BLK_COMPLETE] = { "block", "block_rq_complete", 402, false,
			      { { "dev_t", "dev", 4, 0, 0 },
				{ "sector_t", "sector", 8, 0, 0 },
				{ "unsigned int", "nr_sector", 4, 0, 0 },
				{ "int", "error", 4, 1, 0 },
				{ "char", "rwbs[8]", 8, 0, 0 } } },
	[SE_IRQ_ENTRY] = { "irq", "irq_handler_entry", 500, false,
			   { { "int", "irq", 4, 1, 0 },
			     { "__data_loc char[]", "name", 4, 0, 1 } } },
	[SE_IRQ_EXIT] = { "irq", "irq_handler_exit", 501, false,
			  { { "int", "irq", 4, 1, 0 }, { "int", "ret", 4, 1, 0 } } },
	[SE_SOFTIRQ_ENTRY] = { "irq", "softirq_entry", 502, false,
			       { { "unsigned int", "vec", 4, 0, 0 } } },
	[SE_SOFTIRQ_EXIT] = { "irq", "softirq_exit", 503, false,
			      { { "unsigned int", "vec", 4, 0, 0 } } },
	[SE_SOCK_SEND] = { "sock", "sock_send_length", 600, false,
			   { { "void *", "sk", 8, 0, 0 },
			     { "__u16", "family", 2, 0, 0 },
			     { "__u16", "protocol", 2, 0, 0 },
			     { "int", "ret", 4, 1, 0 },
			     { "int", "flags", 4, 1, 0 } } },
	[SE_SOCK_RECV] = { "sock", "sock_recv_length", 603, false,
			   { { "void *", "sk", 8, 0, 0 },
			     { "__u16", "family", 2, 0, 0 },
			     { "__u16", "protocol", 2, 0, 0 },
			     { "int", "ret", 4, 1, 0 },
			     { "int", "flags", 4, 1, 0 } } },
	[SE_SK_READY] = { "sock", "sk_data_ready", 601, false,
			  { { "const void *", "skaddr", 8, 0, 0 },
			    { "__u16", "family", 2, 0, 0 },
			    { "__u16", "protocol", 2, 0, 0 },
			    { "unsigned long", "ip", 8, 0, 0 } } },
	[SE_SOCK_STATE] = { "sock", "inet_sock_set_state", 602, false,
			    { { "const void *", "skaddr", 8, 0, 0 },
			      { "int", "oldstate", 4, 1, 0 },
			      { "int", "newstate", 4, 1, 0 },
			      { "__u16", "sport", 2, 0, 0 },
			      { "__u16", "dport", 2, 0, 0 },
			      { "__u16", "family", 2, 0, 0 },
			      { "__u16", "protocol", 2, 0, 0 },
			      { "__u8", "saddr[4]", 4, 0, 0 },
			      { "__u8", "daddr[4]", 4, 0, 0 } } },
};

/* the 4-byte prev_state variant: int, before prev_prio (an older layout) */
static const struct sdef switch_int = { "sched", "sched_switch", 316, true,
					{ { "char", "prev_comm[16]", 16, 0, 0 },
					  { "pid_t", "prev_pid", 4, 1, 0 },
					  { "int", "prev_state", 4, 1, 0 },
					  { "int", "prev_prio", 4, 1, 0 },
					  { "char", "next_comm[16]", 16, 0, 0 },
					  { "pid_t", "next_pid", 4, 1, 0 },
					  { "int", "next_prio", 4, 1, 0 } } };

struct buf {
	unsigned char *p;
	size_t len, cap;
};

static void put(struct buf *b, const void *d, size_t n)
{
	if (!n)
		return;
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 4096;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			abort();
	}
	memcpy(b->p + b->len, d, n);
	b->len += n;
}

static void put_u32(struct buf *b, uint32_t v)
{
	put(b, &v, 4);
}

static void put_u64(struct buf *b, uint64_t v)
{
	put(b, &v, 8);
}

struct rec {
	int cpu;
	size_t off, len; /* in pending */
};

struct synth {
	struct synth_opts o;
	const struct sdef *def[SE__COUNT];
	int offs[SE__COUNT][12];
	int fixed_end[SE__COUNT];
	struct buf head; /* pipe mode: header records */
	struct buf data; /* records written */
	struct buf pending; /* the current round */
	struct rec *recs;
	size_t nrecs, caprecs;
	bool scramble;
	struct buf out;
	int *targets;
	size_t ntargets;
	unsigned char preempt_count;
	int udp; /* the socket events' IPv4 protocol: UDP, else TCP */
};

/* attr ids: event k -> 1000 + k; second waking 1100; tracking 1200; cpu-clock 1300 */
#define ID_WAKING2 1100
#define ID_EXEC2 1101
#define ID_SWITCH2 1102
#define ID_TRACK 1200
#define ID_CLOCK 1300

static void layout(struct synth *s, int e)
{
	int off = 8;

	for (int i = 0; i < 12 && s->def[e]->f[i].name; i++) {
		const struct sfield *f = &s->def[e]->f[i];
		int align = strchr(f->name, '[') && !f->dyn ? 1 : (f->size > 8 ? 8 : f->size);

		if (align > 1)
			off = (off + align - 1) / align * align;
		s->offs[e][i] = off;
		off += f->size;
	}
	s->fixed_end[e] = off;
}

static void format_text(struct synth *s, int e, struct buf *b)
{
	char line[512];
	const struct sdef *d = s->def[e];
	int n;

	n = snprintf(line, sizeof(line),
		     "name: %s\nID: %d\nformat:\n"
		     "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		     "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		     "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		     "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n",
		     d->name, d->id);
	put(b, line, (size_t)n);
	for (int i = 0; i < 12 && d->f[i].name; i++) {
		n = snprintf(line, sizeof(line), "\tfield:%s %s;\toffset:%d;\tsize:%d;\tsigned:%d;\n",
			     d->f[i].type, d->f[i].name, s->offs[e][i], d->f[i].size,
			     d->f[i].is_signed);
		put(b, line, (size_t)n);
	}
	n = snprintf(line, sizeof(line), "\nprint fmt: \"%s\"\n", d->name);
	put(b, line, (size_t)n);
}

static void tracing_data(struct synth *s, struct buf *b)
{
	static const char hp[] =
		"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
		"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
		"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";
	static const char he[] = "# compressed entry header\n\ttype_len    :    5 bits\n";
	const char *systems[] = { "sched", "block", "irq", "sock" };
	uint8_t c;

	put(b, RSP_PF_TRACING_MAGIC, RSP_PF_TRACING_MAGIC_LEN);
	put(b, "0.6", 4);
	c = 0;
	put(b, &c, 1);
	c = 8;
	put(b, &c, 1);
	put_u32(b, 4096);
	put(b, "header_page", 12);
	put_u64(b, sizeof(hp) - 1);
	put(b, hp, sizeof(hp) - 1);
	put(b, "header_event", 13);
	put_u64(b, sizeof(he) - 1);
	put(b, he, sizeof(he) - 1);
	put_u32(b, 0);
	put_u32(b, 4);
	for (int k = 0; k < 4; k++) {
		uint32_t count = 0;

		put(b, systems[k], strlen(systems[k]) + 1);
		for (int e = 0; e < SE__COUNT; e++)
			count += !strcmp(s->def[e]->sys, systems[k]);
		put_u32(b, count);
		for (int e = 0; e < SE__COUNT; e++) {
			struct buf f = { 0 };

			if (strcmp(s->def[e]->sys, systems[k]))
				continue;
			format_text(s, e, &f);
			put_u64(b, f.len);
			put(b, f.p, f.len);
			free(f.p);
		}
	}
	if (s->o.kallsyms && s->o.kallsyms_zstd) {
		size_t n = strlen(s->o.kallsyms), bound = ZSTD_compressBound(n), zlen;
		unsigned char *z = malloc(bound);

		zlen = z ? ZSTD_compress(z, bound, s->o.kallsyms, n, 3) : 0;
		if (!z || ZSTD_isError(zlen))
			abort();
		if (s->o.kallsyms_damaged)
			z[zlen - 5] ^= 0x5a; /* past the frame's header: a block's bytes */
		put_u32(b, (uint32_t)zlen);
		put(b, z, zlen);
		free(z);
	} else if (s->o.kallsyms) {
		put_u32(b, (uint32_t)strlen(s->o.kallsyms));
		put(b, s->o.kallsyms, strlen(s->o.kallsyms));
	} else {
		put_u32(b, 0); /* kallsyms */
	}
	put_u32(b, 0); /* printk */
	put_u64(b, 0); /* saved cmdlines */
}

/* x86's perf registers BP (6), SP (7) and IP (8) */
#define SYNTH_UREGS ((1ull << 6) | (1ull << 7) | (1ull << 8))

static void make_attr(struct perf_event_attr *a, uint32_t type, uint64_t config, bool stack)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = type;
	a->config = config;
	a->sample_period = 1;
	a->sample_id_all = 1;
	a->read_format = PERF_FORMAT_ID;
	a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	if (type == PERF_TYPE_TRACEPOINT)
		a->sample_type |= PERF_SAMPLE_RAW;
	if (stack)
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
}

/* every attr of the file, in order, with its id */
static size_t all_attrs(struct synth *s, struct perf_event_attr *a, uint64_t *ids)
{
	size_t n = 0;

	make_attr(&a[n], PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY, false);
	a[n].sample_type &= ~(PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD);
	a[n].comm = a[n].task = a[n].mmap2 = 1;
	ids[n++] = ID_TRACK;
	for (int e = 0; e < SE__COUNT && !s->o.samples_only; e++) {
		make_attr(&a[n], PERF_TYPE_TRACEPOINT, (uint64_t)s->def[e]->id, s->def[e]->stack);
		if (e == SE_SWITCH && s->o.user_stack) {
			a[n].sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
			a[n].sample_regs_user = SYNTH_UREGS;
			a[n].sample_stack_user = 8192;
		}
		ids[n++] = 1000 + (uint64_t)e;
	}
	if (s->o.second_waking_attr) {
		make_attr(&a[n], PERF_TYPE_TRACEPOINT, (uint64_t)s->def[SE_WAKING]->id, false);
		ids[n++] = ID_WAKING2;
	}
	if (s->o.second_exec_attr) {
		make_attr(&a[n], PERF_TYPE_TRACEPOINT, (uint64_t)s->def[SE_EXEC]->id, false);
		ids[n++] = ID_EXEC2;
	}
	if (s->o.rsp_rings && !s->o.samples_only) {
		make_attr(&a[n], PERF_TYPE_TRACEPOINT, (uint64_t)s->def[SE_SWITCH]->id, false);
		a[n].inherit = 1;
		ids[n++] = ID_SWITCH2;
	}
	make_attr(&a[n], PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, true);
	/* a real sampler's order (1 ms: perf's and rsp's default rate) unless given */
	a[n].sample_period = s->o.clock_period ? s->o.clock_period : 1000000;
	a[n].freq = s->o.clock_period && s->o.clock_freq;
	ids[n++] = ID_CLOCK;
	for (size_t i = 0; s->o.rsp_rings && i < n; i++)
		a[i].watermark = ids[i] != ID_WAKING2; /* the ftrace copy's has none */
	return n;
}

struct synth *synth_new(const struct synth_opts *o)
{
	struct synth *s = calloc(1, sizeof(*s));
	struct perf_event_attr attrs[32];
	uint64_t ids[32];
	size_t n;

	if (!s)
		abort();
	if (o)
		s->o = *o;
	for (int e = 0; e < SE__COUNT; e++) {
		s->def[e] = &defs[e];
		if (e == SE_SWITCH && s->o.int_prev_state)
			s->def[e] = &switch_int;
		layout(s, e);
	}
	if (s->o.file_mode)
		return s;
	{
		struct rsp_pf_pipe_header h = { RSP_PF_MAGIC, 16 };
		uint32_t nr[2] = { 4, 4 };
		struct rsp_pf_feature_rec f = { { RSP_PF_RECORD_HEADER_FEATURE, 0,
						  sizeof(f) + 8 },
						RSP_PF_FEAT_NRCPUS };

		put(&s->head, &h, sizeof(h));
		put(&s->head, &f, sizeof(f));
		put(&s->head, nr, 8);
		if (s->o.version) {
			/* a string feature: its length (NUL and padding included: the record
			 * a multiple of 8 bytes), then it */
			uint32_t len = (uint32_t)(((4 + strlen(s->o.version) + 1 + 7) & ~(size_t)7) - 4);
			struct rsp_pf_feature_rec v = { { RSP_PF_RECORD_HEADER_FEATURE, 0,
							  (uint16_t)(sizeof(v) + 4 + len) },
							RSP_PF_FEAT_VERSION };
			char str[64] = { 0 };

			if (len > sizeof(str))
				abort();
			memcpy(str, s->o.version, strlen(s->o.version));
			put(&s->head, &v, sizeof(v));
			put(&s->head, &len, 4);
			put(&s->head, str, len);
		}
	}
	n = all_attrs(s, attrs, ids);
	for (size_t i = 0; i < n; i++) {
		struct perf_event_header h = { RSP_PF_RECORD_HEADER_ATTR, 0,
					       (uint16_t)(8 + sizeof(attrs[i]) + 8) };

		put(&s->head, &h, sizeof(h));
		put(&s->head, &attrs[i], sizeof(attrs[i]));
		put_u64(&s->head, ids[i]);
	}
	if (!s->o.no_tracing_data) {
		struct buf td = { 0 };
		struct rsp_pf_tracing_data r = { { RSP_PF_RECORD_HEADER_TRACING_DATA, 0, 16 }, 0, 0 };
		static const unsigned char zero[8];

		tracing_data(s, &td);
		r.size = (uint32_t)RSP_PF_ALIGN(td.len);
		put(&s->head, &r, sizeof(r));
		put(&s->head, td.p, td.len);
		put(&s->head, zero, RSP_PF_ALIGN(td.len) - td.len);
		free(td.p);
	}
	return s;
}

void synth_free(struct synth *s)
{
	if (!s)
		return;
	free(s->head.p);
	free(s->data.p);
	free(s->pending.p);
	free(s->recs);
	free(s->out.p);
	free(s->targets);
	free(s);
}

void synth_targets(struct synth *s, const int *pids, size_t n)
{
	s->targets = malloc(n * sizeof(int));
	memcpy(s->targets, pids, n * sizeof(int));
	s->ntargets = n;
}

void synth_scramble_rounds(struct synth *s, bool on)
{
	s->scramble = on;
}

static void emit(struct synth *s, int cpu, const struct buf *r)
{
	if (s->nrecs == s->caprecs) {
		s->caprecs = s->caprecs ? s->caprecs * 2 : 64;
		s->recs = realloc(s->recs, s->caprecs * sizeof(*s->recs));
	}
	s->recs[s->nrecs].cpu = cpu;
	s->recs[s->nrecs].off = s->pending.len;
	s->recs[s->nrecs].len = r->len;
	s->nrecs++;
	put(&s->pending, r->p, r->len);
}

void synth_tracing_data_record(struct synth *s, bool feature, bool garbage)
{
	struct buf td = { 0 }, r = { 0 };
	static const unsigned char zero[8];

	if (garbage)
		for (int i = 0; i < 500; i++)
			put_u32(&td, 0x9e3779b9u * (uint32_t)i);
	else
		tracing_data(s, &td);
	if (feature) {
		struct rsp_pf_feature_rec f = { { RSP_PF_RECORD_HEADER_FEATURE, 0, 0 },
						RSP_PF_FEAT_TRACING_DATA };
		size_t size = sizeof(f) + RSP_PF_ALIGN(td.len);

		if (size > 65535)
			abort();
		f.header.size = (uint16_t)size;
		put(&r, &f, sizeof(f));
	} else {
		struct rsp_pf_tracing_data h = { { RSP_PF_RECORD_HEADER_TRACING_DATA, 0, 16 }, 0,
						 0 };

		h.size = (uint32_t)RSP_PF_ALIGN(td.len);
		put(&r, &h, sizeof(h));
	}
	put(&r, td.p, td.len);
	put(&r, zero, RSP_PF_ALIGN(td.len) - td.len);
	emit(s, -1, &r);
	free(td.p);
	free(r.p);
}

void synth_raw(struct synth *s, const void *rec, size_t len)
{
	struct buf r = { 0 };

	put(&r, rec, len);
	emit(s, -1, &r);
	free(r.p);
}

size_t synth_cmdline_record(unsigned char *out, uint64_t t, uint32_t pid, const char *argv,
			    uint32_t len, uint32_t full_len)
{
	struct rsp_pf_cmdline h = {
		.header = { RSP_PF_RECORD_HEADER_EVENT_TYPE, 0,
			    (uint16_t)RSP_PF_ALIGN(sizeof(h) + len) },
		.magic = RSP_PF_CMDLINE_MAGIC,
		.time = t,
		.pid = pid,
		.len = len,
		.full_len = full_len,
	};

	memset(out, 0, h.header.size);
	memcpy(out, &h, sizeof(h));
	memcpy(out + sizeof(h), argv, len);
	return h.header.size;
}

void synth_cmdline(struct synth *s, uint64_t t, uint32_t pid, const char *argv, uint32_t len,
		   uint32_t full_len)
{
	unsigned char *rec = malloc(sizeof(struct rsp_pf_cmdline) + len + 8);

	synth_raw(s, rec, synth_cmdline_record(rec, t, pid, argv, len, full_len));
	free(rec);
}

void synth_auxtrace(struct synth *s, size_t payload)
{
	struct buf r = { 0 };
	struct perf_event_header h = { RSP_PF_RECORD_AUXTRACE, 0, 48 };

	put(&r, &h, sizeof(h));
	put_u64(&r, payload); /* size */
	put_u64(&r, 0); /* offset */
	put_u64(&r, 0); /* reference */
	put_u32(&r, 0); /* idx */
	put_u32(&r, 0); /* tid */
	put_u32(&r, 0); /* cpu */
	put_u32(&r, 0);
	for (size_t i = 0; i < payload; i++) {
		unsigned char c = (unsigned char)(i * 37 + 1); /* no record headers in it */

		put(&r, &c, 1);
	}
	emit(s, -1, &r);
	free(r.p);
}

void synth_round(struct synth *s)
{
	struct perf_event_header h = { RSP_PF_RECORD_FINISHED_ROUND, 0, 8 };

	if (s->scramble) {
		/* as a reader draining CPU buffers in turn: highest CPU first */
		for (int cpu = 63; cpu >= -1; cpu--)
			for (size_t i = 0; i < s->nrecs; i++)
				if (s->recs[i].cpu == cpu)
					put(&s->data, s->pending.p + s->recs[i].off, s->recs[i].len);
	} else {
		put(&s->data, s->pending.p, s->pending.len);
	}
	s->pending.len = 0;
	s->nrecs = 0;
	if (!s->o.file_mode)
		put(&s->data, &h, sizeof(h));
}

static void trailer(struct buf *r, int pid, int tid, uint64_t t, int cpu, uint64_t id)
{
	put_u32(r, (uint32_t)pid);
	put_u32(r, (uint32_t)tid);
	put_u64(r, t);
	put_u32(r, (uint32_t)cpu);
	put_u32(r, 0);
	put_u64(r, id);
}

static void side(struct synth *s, uint32_t type, uint16_t misc, const void *body, size_t blen,
		 int pid, int tid, uint64_t t)
{
	struct buf r = { 0 };
	struct perf_event_header h = { type, misc, 0 };
	size_t padded = RSP_PF_ALIGN(blen);
	static const unsigned char zero[8];

	h.size = (uint16_t)(8 + padded + 32);
	put(&r, &h, 8);
	put(&r, body, blen);
	put(&r, zero, padded - blen);
	trailer(&r, pid, tid, t, 0, s->o.sideband_id0 ? 0 : ID_TRACK);
	emit(s, -1, &r);
	free(r.p);
}

void synth_comm(struct synth *s, uint64_t t, int pid, int tid, const char *comm, bool exec)
{
	unsigned char body[8 + 16] = { 0 };

	memcpy(body, &pid, 4);
	memcpy(body + 4, &tid, 4);
	strncpy((char *)body + 8, comm, 15);
	side(s, PERF_RECORD_COMM, exec ? PERF_RECORD_MISC_COMM_EXEC : 0, body, sizeof(body), pid,
	     tid, t);
}

void synth_comm_untimed(struct synth *s, int pid, int tid, const char *comm)
{
	struct buf r = { 0 };
	unsigned char body[8 + 16] = { 0 };
	struct perf_event_header h = { PERF_RECORD_COMM, 0, 8 + sizeof(body) };

	memcpy(body, &pid, 4);
	memcpy(body + 4, &tid, 4);
	strncpy((char *)body + 8, comm, 15);
	put(&r, &h, 8);
	put(&r, body, sizeof(body));
	emit(s, -1, &r);
	free(r.p);
}

void synth_fork(struct synth *s, uint64_t t, int pid, int ppid, int tid, int ptid)
{
	uint32_t body[6] = { (uint32_t)pid, (uint32_t)ppid, (uint32_t)tid, (uint32_t)ptid };

	memcpy(&body[4], &t, 8);
	side(s, PERF_RECORD_FORK, 0, body, sizeof(body), pid, tid, t);
}

void synth_exit(struct synth *s, uint64_t t, int pid, int tid)
{
	uint32_t body[6] = { (uint32_t)pid, (uint32_t)pid, (uint32_t)tid, (uint32_t)tid };

	memcpy(&body[4], &t, 8);
	side(s, PERF_RECORD_EXIT, 0, body, sizeof(body), pid, tid, t);
}

void synth_mmap2(struct synth *s, uint64_t t, int pid, uint64_t start, uint64_t len,
		 uint64_t pgoff, const char *path)
{
	size_t n = strlen(path) + 1;
	unsigned char *body = calloc(1, 64 + n);
	uint32_t prot = 5, flags = 2; /* PROT_READ | PROT_EXEC, MAP_PRIVATE */

	if (!body)
		return;
	memcpy(body, &pid, 4);
	memcpy(body + 4, &pid, 4);
	memcpy(body + 8, &start, 8);
	memcpy(body + 16, &len, 8);
	memcpy(body + 24, &pgoff, 8);
	memcpy(body + 56, &prot, 4);
	memcpy(body + 60, &flags, 4);
	memcpy(body + 64, path, n);
	side(s, PERF_RECORD_MMAP2, 0, body, 64 + n, pid, pid, t);
	free(body);
}

/* A PERF_RECORD_LOST of @n on @cpu, in the ring of the attr of @id. */
static void lost_record(struct synth *s, uint64_t t, int cpu, uint64_t n, uint64_t id)
{
	struct buf r = { 0 };
	struct perf_event_header h = { PERF_RECORD_LOST, 0, 8 + 16 + 32 };

	put(&r, &h, 8);
	put_u64(&r, id);
	put_u64(&r, n);
	trailer(&r, 0, 0, t, cpu, id);
	emit(s, cpu, &r);
	free(r.p);
}

void synth_lost(struct synth *s, uint64_t t, int cpu, uint64_t n)
{
	lost_record(s, t, cpu, n, ID_TRACK);
}

void synth_lost_target(struct synth *s, uint64_t t, int cpu, uint64_t n)
{
	lost_record(s, t, cpu, n, ID_SWITCH2);
}

void synth_shed(struct synth *s, uint64_t t, int cpu, uint64_t n, bool begin)
{
	struct buf r = { 0 };
	struct perf_event_header h = { PERF_RECORD_LOST_SAMPLES,
				       begin ? RSP_PF_MISC_SHED_BEGIN : 0, 8 + 8 + 32 };

	put(&r, &h, 8);
	put_u64(&r, n);
	trailer(&r, 0, 0, t, cpu, ID_CLOCK);
	emit(s, cpu, &r);
	free(r.p);
}

/* ---- tracepoint samples --------------------------------------------------------------- */

struct payload {
	struct synth *s;
	int e;
	unsigned char p[512];
	int len;
};

static int field_index(struct payload *pl, const char *name)
{
	const struct sdef *d = pl->s->def[pl->e];
	size_t n = strlen(name);

	for (int i = 0; i < 12 && d->f[i].name; i++)
		if (!strncmp(d->f[i].name, name, n) &&
		    (d->f[i].name[n] == '\0' || d->f[i].name[n] == '['))
			return i;
	abort(); /* a test asked for a field its event does not have */
}

static void pl_begin(struct payload *pl, struct synth *s, int e, unsigned flags, int tid)
{
	uint16_t type = (uint16_t)s->def[e]->id;

	memset(pl, 0, sizeof(*pl));
	pl->s = s;
	pl->e = e;
	memcpy(pl->p, &type, 2);
	pl->p[2] = (unsigned char)flags;
	pl->p[3] = s->preempt_count;
	memcpy(pl->p + 4, &tid, 4);
	pl->len = s->fixed_end[e];
}

static void pl_int(struct payload *pl, const char *name, int64_t v)
{
	int i = field_index(pl, name);
	int size = pl->s->def[pl->e]->f[i].size;

	memcpy(pl->p + pl->s->offs[pl->e][i], &v, (size_t)size); /* little-endian */
}

static void pl_bytes(struct payload *pl, const char *name, const void *v, size_t n)
{
	int i = field_index(pl, name);

	memcpy(pl->p + pl->s->offs[pl->e][i], v, n);
}

static void pl_str(struct payload *pl, const char *name, const char *v)
{
	int i = field_index(pl, name);
	const struct sfield *f = &pl->s->def[pl->e]->f[i];
	size_t n = strlen(v);

	if (f->dyn) {
		uint32_t loc = (uint32_t)pl->len | (uint32_t)((n + 1) << 16);

		memcpy(pl->p + pl->s->offs[pl->e][i], &loc, 4);
		memcpy(pl->p + pl->len, v, n + 1);
		pl->len += (int)n + 1;
	} else {
		strncpy((char *)pl->p + pl->s->offs[pl->e][i], v, (size_t)f->size - 1);
	}
}

/* a user-stack copy to write with the next sample, if its attr takes one */
struct ucopy {
	const uint64_t *regs; /* NULL: none (a kernel thread's) */
	const void *data;
	size_t size;
	uint64_t dyn;
};

static void sample_u(struct synth *s, int cpu, uint64_t t, int pid, int tid, uint64_t id,
		     bool has_chain, const uint64_t *ips, size_t n, const void *raw, int rawlen,
		     const struct ucopy *u);

static void sample(struct synth *s, int cpu, uint64_t t, int pid, int tid, uint64_t id,
		   bool has_chain, const uint64_t *ips, size_t n, const void *raw, int rawlen)
{
	sample_u(s, cpu, t, pid, tid, id, has_chain, ips, n, raw, rawlen, NULL);
}

static void sample_u(struct synth *s, int cpu, uint64_t t, int pid, int tid, uint64_t id,
		     bool has_chain, const uint64_t *ips, size_t n, const void *raw, int rawlen,
		     const struct ucopy *u)
{
	struct buf r = { 0 };
	struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL, 0 };
	uint32_t raw_size = raw ? (uint32_t)(RSP_PF_ALIGN((size_t)rawlen + 4) - 4) : 0;
	static const unsigned char zero[8];

	put(&r, &h, 8);
	put_u64(&r, id);
	put_u64(&r, n ? ips[0] : 0);
	put_u32(&r, (uint32_t)pid);
	put_u32(&r, (uint32_t)tid);
	put_u64(&r, t);
	put_u32(&r, (uint32_t)cpu);
	put_u32(&r, 0);
	put_u64(&r, 1);
	if (has_chain) {
		put_u64(&r, n);
		put(&r, ips, n * 8);
	}
	if (raw) {
		put_u32(&r, raw_size);
		put(&r, raw, (size_t)rawlen);
		put(&r, zero, raw_size - (uint32_t)rawlen);
	}
	if (id == 1000 + SE_SWITCH && s->o.user_stack) {
		/* REGS_USER: the ABI, then the registers; STACK_USER: size, bytes, dyn_size */
		if (u && u->regs) {
			put_u64(&r, 2); /* PERF_SAMPLE_REGS_ABI_64 */
			put(&r, u->regs, 3 * 8);
			put_u64(&r, u->size);
			put(&r, u->data, u->size);
			put_u64(&r, u->dyn);
		} else {
			put_u64(&r, 0); /* no user registers */
			put_u64(&r, 0); /* and no copy */
		}
	}
	{
		uint16_t size = (uint16_t)r.len;

		memcpy(r.p + offsetof(struct perf_event_header, size), &size, sizeof(size));
	}
	emit(s, cpu, &r);
	free(r.p);
}

static void tp(struct synth *s, struct payload *pl, int cpu, uint64_t t, int tid, uint64_t id,
	       bool chain, const uint64_t *ips, size_t n)
{
	sample(s, cpu, t, tid, tid, id, chain, ips, n, pl->p, pl->len);
}

void synth_switch(struct synth *s, int cpu, uint64_t t, int prev, const char *prev_comm,
		  long prev_state, int next, const char *next_comm)
{
	uint64_t ip = 0xffffffff81000100ull;

	synth_switch_stack(s, cpu, t, prev, prev_comm, prev_state, next, next_comm, &ip, 1);
}

static void switch_payload(struct payload *pl, struct synth *s, int prev, const char *prev_comm,
			   long prev_state, int next, const char *next_comm)
{
	pl_begin(pl, s, SE_SWITCH, 0, prev);
	pl_str(pl, "prev_comm", prev_comm);
	pl_int(pl, "prev_pid", prev);
	pl_int(pl, "prev_prio", 120);
	pl_int(pl, "prev_state", prev_state);
	pl_str(pl, "next_comm", next_comm);
	pl_int(pl, "next_pid", next);
	pl_int(pl, "next_prio", 120);
}

void synth_switch_copy(struct synth *s, int cpu, uint64_t t, int prev, const char *prev_comm,
		       long prev_state, int next, const char *next_comm)
{
	struct payload pl;

	switch_payload(&pl, s, prev, prev_comm, prev_state, next, next_comm);
	tp(s, &pl, cpu, t, prev, ID_SWITCH2, false, NULL, 0);
}

void synth_switch_ustack(struct synth *s, int cpu, uint64_t t, int prev, const char *prev_comm,
			 long prev_state, int next, const char *next_comm, const uint64_t *stack,
			 size_t nstack, const uint64_t regs[3], const void *copy, size_t copy_size,
			 uint64_t dyn_size)
{
	struct ucopy u = { regs, copy, copy_size, dyn_size }; /* regs NULL: no copy */
	struct payload pl;

	switch_payload(&pl, s, prev, prev_comm, prev_state, next, next_comm);
	sample_u(s, cpu, t, prev, prev, 1000 + SE_SWITCH, true, stack, nstack, pl.p, pl.len, &u);
}

void synth_switch_stack(struct synth *s, int cpu, uint64_t t, int prev, const char *prev_comm,
			long prev_state, int next, const char *next_comm, const uint64_t *stack,
			size_t nstack)
{
	synth_switch_ustack(s, cpu, t, prev, prev_comm, prev_state, next, next_comm, stack, nstack,
			    NULL, NULL, 0, 0);
}

void synth_preempt_count(struct synth *s, unsigned n)
{
	s->preempt_count = (unsigned char)n;
}

void synth_sock_udp(struct synth *s, bool on)
{
	s->udp = on;
}

/* the protocol of a socket event of @family: AF_INET's TCP (6) or UDP (17) */
static int sock_protocol(const struct synth *s, int family)
{
	return family == 2 ? (s->udp ? 17 : 6) : 0;
}

void synth_waking(struct synth *s, int cpu, uint64_t t, int tid, unsigned flags, int pid,
		  const char *comm, int target_cpu, bool attr2, const uint64_t *stack,
		  size_t nstack)
{
	struct payload pl;

	pl_begin(&pl, s, SE_WAKING, flags, tid);
	pl_str(&pl, "comm", comm);
	pl_int(&pl, "pid", pid);
	pl_int(&pl, "prio", 120);
	pl_int(&pl, "target_cpu", target_cpu);
	if (attr2)
		tp(s, &pl, cpu, t, tid, ID_WAKING2, false, NULL, 0);
	else
		tp(s, &pl, cpu, t, tid, 1000 + SE_WAKING, true, stack, nstack);
}

void synth_wakeup(struct synth *s, int cpu, uint64_t t, int tid, unsigned flags, int pid,
		  int target_cpu)
{
	struct payload pl;

	pl_begin(&pl, s, SE_WAKEUP, flags, tid);
	pl_int(&pl, "pid", pid);
	pl_int(&pl, "target_cpu", target_cpu);
	tp(s, &pl, cpu, t, tid, 1000 + SE_WAKEUP, false, NULL, 0);
}

void synth_wakeup_new(struct synth *s, int cpu, uint64_t t, int tid, int pid, int target_cpu)
{
	struct payload pl;

	pl_begin(&pl, s, SE_WAKEUP_NEW, 0, tid);
	pl_int(&pl, "pid", pid);
	pl_int(&pl, "target_cpu", target_cpu);
	tp(s, &pl, cpu, t, tid, 1000 + SE_WAKEUP_NEW, false, NULL, 0);
}

void synth_fork_tp(struct synth *s, int cpu, uint64_t t, int parent, int child,
		   const char *child_comm)
{
	struct payload pl;

	pl_begin(&pl, s, SE_FORK, 0, parent);
	pl_int(&pl, "parent_pid", parent);
	pl_int(&pl, "child_pid", child);
	pl_str(&pl, "child_comm", child_comm);
	tp(s, &pl, cpu, t, parent, 1000 + SE_FORK, true, NULL, 0);
}

static void exec_tp(struct synth *s, int cpu, uint64_t t, int pid, const char *filename,
		    bool attr2)
{
	struct payload pl;

	pl_begin(&pl, s, SE_EXEC, 0, pid);
	pl_str(&pl, "filename", filename);
	pl_int(&pl, "pid", pid);
	pl_int(&pl, "old_pid", pid);
	if (attr2)
		tp(s, &pl, cpu, t, pid, ID_EXEC2, false, NULL, 0);
	else
		tp(s, &pl, cpu, t, pid, 1000 + SE_EXEC, true, NULL, 0);
}

void synth_exec_tp(struct synth *s, int cpu, uint64_t t, int pid, const char *filename)
{
	exec_tp(s, cpu, t, pid, filename, false);
}

void synth_exec_tp_copy(struct synth *s, int cpu, uint64_t t, int pid, const char *filename)
{
	exec_tp(s, cpu, t, pid, filename, true);
}

void synth_exit_tp(struct synth *s, int cpu, uint64_t t, int pid)
{
	struct payload pl;

	pl_begin(&pl, s, SE_EXIT, 0, pid);
	pl_int(&pl, "pid", pid);
	tp(s, &pl, cpu, t, pid, 1000 + SE_EXIT, false, NULL, 0);
}

void synth_block(struct synth *s, enum synth_ev which, int cpu, uint64_t t, int tid,
		 unsigned flags, uint32_t dev, uint64_t sector, uint32_t nr, const char *rwbs)
{
	struct payload pl;

	pl_begin(&pl, s, (int)which, flags, tid);
	pl_int(&pl, "dev", dev);
	pl_int(&pl, "sector", (int64_t)sector);
	pl_int(&pl, "nr_sector", nr);
	pl_str(&pl, "rwbs", rwbs);
	tp(s, &pl, cpu, t, tid, 1000 + (uint64_t)which, false, NULL, 0);
}

void synth_irq(struct synth *s, enum synth_ev which, int cpu, uint64_t t, int irq,
	       const char *name)
{
	struct payload pl;

	pl_begin(&pl, s, (int)which, SYN_HARDIRQ, 0);
	pl_int(&pl, "irq", irq);
	if (which == SE_IRQ_ENTRY)
		pl_str(&pl, "name", name);
	tp(s, &pl, cpu, t, 0, 1000 + (uint64_t)which, false, NULL, 0);
}

void synth_softirq(struct synth *s, enum synth_ev which, int cpu, uint64_t t, int tid,
		   unsigned vec)
{
	struct payload pl;

	pl_begin(&pl, s, (int)which, SYN_SOFTIRQ, tid);
	pl_int(&pl, "vec", vec);
	tp(s, &pl, cpu, t, tid, 1000 + (uint64_t)which, false, NULL, 0);
}

void synth_sock_send(struct synth *s, int cpu, uint64_t t, int tid, uint64_t sk, int family,
		     int len)
{
	struct payload pl;

	pl_begin(&pl, s, SE_SOCK_SEND, 0, tid);
	pl_int(&pl, "sk", (int64_t)sk);
	pl_int(&pl, "family", family);
	pl_int(&pl, "protocol", sock_protocol(s, family));
	pl_int(&pl, "ret", len);
	tp(s, &pl, cpu, t, tid, 1000 + SE_SOCK_SEND, false, NULL, 0);
}

void synth_sock_recv(struct synth *s, int cpu, uint64_t t, int tid, uint64_t sk, int family,
		     int len)
{
	struct payload pl;

	pl_begin(&pl, s, SE_SOCK_RECV, 0, tid);
	pl_int(&pl, "sk", (int64_t)sk);
	pl_int(&pl, "family", family);
	pl_int(&pl, "protocol", sock_protocol(s, family));
	pl_int(&pl, "ret", len);
	tp(s, &pl, cpu, t, tid, 1000 + SE_SOCK_RECV, false, NULL, 0);
}

void synth_sk_ready(struct synth *s, int cpu, uint64_t t, int tid, unsigned flags, uint64_t sk,
		    int family)
{
	struct payload pl;

	pl_begin(&pl, s, SE_SK_READY, flags, tid);
	pl_int(&pl, "skaddr", (int64_t)sk);
	pl_int(&pl, "family", family);
	pl_int(&pl, "protocol", sock_protocol(s, family));
	tp(s, &pl, cpu, t, tid, 1000 + SE_SK_READY, false, NULL, 0);
}

void synth_sock_state(struct synth *s, int cpu, uint64_t t, int tid, uint64_t sk,
		      const uint8_t saddr[4], uint16_t sport, const uint8_t daddr[4],
		      uint16_t dport, int newstate)
{
	struct payload pl;

	pl_begin(&pl, s, SE_SOCK_STATE, SYN_SOFTIRQ, tid);
	pl_int(&pl, "skaddr", (int64_t)sk);
	pl_int(&pl, "oldstate", 2);
	pl_int(&pl, "newstate", newstate);
	pl_int(&pl, "sport", sport);
	pl_int(&pl, "dport", dport);
	pl_int(&pl, "family", 2);
	pl_int(&pl, "protocol", 6);
	pl_bytes(&pl, "saddr", saddr, 4);
	pl_bytes(&pl, "daddr", daddr, 4);
	tp(s, &pl, cpu, t, tid, 1000 + SE_SOCK_STATE, false, NULL, 0);
}

void synth_sample(struct synth *s, int cpu, uint64_t t, int pid, int tid, const uint64_t *ips,
		  size_t n)
{
	sample(s, cpu, t, pid, tid, ID_CLOCK, true, ips, n, NULL, 0);
}

/* ---- the file ------------------------------------------------------------------------------ */

static const void *finish_file_mode(struct synth *s, size_t *len)
{
	struct perf_event_attr attrs[32];
	uint64_t ids[32];
	size_t n = all_attrs(s, attrs, ids);
	struct rsp_pf_file_header h;
	struct buf td = { 0 };
	uint32_t nr[2] = { 4, 4 };
	uint64_t attrs_off = sizeof(h), ids_off, data_off, feat_off;
	struct rsp_pf_section sec;

	tracing_data(s, &td);
	memset(&h, 0, sizeof(h));
	h.magic = RSP_PF_MAGIC;
	h.size = sizeof(h);
	h.attr_size = sizeof(struct perf_event_attr) + sizeof(struct rsp_pf_section);
	h.attrs.offset = attrs_off;
	h.attrs.size = n * h.attr_size;
	ids_off = attrs_off + h.attrs.size;
	data_off = ids_off + n * 8;
	h.data.offset = data_off;
	h.data.size = s->data.len;
	h.adds_features[0] = (1ull << RSP_PF_FEAT_TRACING_DATA) | (1ull << RSP_PF_FEAT_NRCPUS);
	put(&s->out, &h, sizeof(h));
	for (size_t i = 0; i < n; i++) {
		put(&s->out, &attrs[i], sizeof(attrs[i]));
		sec.offset = ids_off + 8 * i;
		sec.size = 8;
		put(&s->out, &sec, sizeof(sec));
	}
	put(&s->out, ids, n * 8);
	put(&s->out, s->data.p, s->data.len);
	feat_off = data_off + s->data.len + 2 * sizeof(sec);
	sec.offset = feat_off;
	sec.size = td.len;
	put(&s->out, &sec, sizeof(sec));
	sec.offset = feat_off + td.len;
	sec.size = 8;
	put(&s->out, &sec, sizeof(sec));
	put(&s->out, td.p, td.len);
	put(&s->out, nr, 8);
	free(td.p);
	*len = s->out.len;
	return s->out.p;
}

const void *synth_finish(struct synth *s, size_t *len)
{
	if (s->nrecs || s->pending.len)
		synth_round(s);
	s->out.len = 0;
	if (s->o.file_mode)
		return finish_file_mode(s, len);
	put(&s->out, s->head.p, s->head.len);
	if (s->ntargets) {
		struct buf r = { 0 };
		struct perf_event_header h = { RSP_PF_RECORD_THREAD_MAP, 0, 0 };

		h.size = (uint16_t)(16 + 24 * s->ntargets);
		put(&r, &h, 8);
		put_u64(&r, s->ntargets);
		for (size_t i = 0; i < s->ntargets; i++) {
			char comm[16] = "target";

			put_u64(&r, (uint64_t)s->targets[i]);
			put(&r, comm, 16);
		}
		put(&s->out, r.p, r.len);
		free(r.p);
	}
	put(&s->out, s->data.p, s->data.len);
	*len = s->out.len;
	return s->out.p;
}
