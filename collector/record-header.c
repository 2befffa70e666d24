/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The records rsp writes itself around the ones it drains: at the start the
 * header features (host, CPUs, clock, command line, compression), an attr
 * with its ids per stream, the tracing data, the kernel's build id and the
 * targets' thread map; at the end, as perf record does, the build ids of the
 * files the samples' processes mapped.
 */
#include "record-private.h"

#include "rsp-buildid.h"
#include "rsp-perf-format.h"
#include "records.h"

#include "rsp-config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>


static int write_features(struct recorder *r)
{
	struct utsname u;
	char host[256], ver[64];
	uint32_t nrcpus[2];
	uint64_t res_ns = 1, mem_kb;
	struct sysinfo si;
	struct timespec res;
	int ret = 0;

	if (uname(&u) == 0) {
		ret |= rsp_rec_feature_string(r->w, RSP_PF_FEAT_OSRELEASE, u.release);
		ret |= rsp_rec_feature_string(r->w, RSP_PF_FEAT_ARCH, u.machine);
	}
	if (gethostname(host, sizeof(host)) == 0) {
		host[sizeof(host) - 1] = '\0';
		ret |= rsp_rec_feature_string(r->w, RSP_PF_FEAT_HOSTNAME, host);
	}
	snprintf(ver, sizeof(ver), "rsp %s", RSP_VERSION);
	ret |= rsp_rec_feature_string(r->w, RSP_PF_FEAT_VERSION, ver);
	nrcpus[0] = (uint32_t)sysconf(_SC_NPROCESSORS_CONF);
	nrcpus[1] = (uint32_t)sysconf(_SC_NPROCESSORS_ONLN);
	ret |= rsp_rec_feature(r->w, RSP_PF_FEAT_NRCPUS, nrcpus, sizeof(nrcpus));
	if (sysinfo(&si) == 0) {
		mem_kb = (uint64_t)si.totalram * si.mem_unit / 1024;
		ret |= rsp_rec_feature(r->w, RSP_PF_FEAT_TOTAL_MEM, &mem_kb, sizeof(mem_kb));
	}
	if (clock_getres(CLOCK_MONOTONIC, &res) == 0)
		res_ns = (uint64_t)res.tv_sec * RSP_NSEC_PER_SEC + res.tv_nsec;
	ret |= rsp_rec_feature(r->w, RSP_PF_FEAT_CLOCKID, &res_ns, sizeof(res_ns));
	{
		/* CLOCK_DATA: version 1, clockid, wall-clock and monotonic reference */
		struct {
			uint32_t version, clockid;
			uint64_t tod_ns, clk_ns;
		} cd = { 1, CLOCK_MONOTONIC, 0, 0 };
		struct timespec rt, mono;

		clock_gettime(CLOCK_REALTIME, &rt);
		clock_gettime(CLOCK_MONOTONIC, &mono);
		cd.tod_ns = (uint64_t)rt.tv_sec * RSP_NSEC_PER_SEC + rt.tv_nsec;
		cd.clk_ns = (uint64_t)mono.tv_sec * RSP_NSEC_PER_SEC + mono.tv_nsec;
		ret |= rsp_rec_feature(r->w, RSP_PF_FEAT_CLOCK_DATA, &cd, sizeof(cd));
	}
	if (r->o->n_cmdline) {
		char exe[4096];
		const char **v = calloc(r->o->n_cmdline + 1, sizeof(*v));
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

		if (!v)
			return -ENOMEM;
		exe[n > 0 ? n : 0] = '\0';
		/* perf's layout: the executable, then argv */
		v[0] = exe;
		for (size_t i = 0; i < r->o->n_cmdline; i++)
			v[i + 1] = r->o->cmdline[i];
		ret |= rsp_rec_feature_strings(r->w, RSP_PF_FEAT_CMDLINE, v, r->o->n_cmdline + 1);
		free(v);
	}
	if (_rsp_compression_level(r) > 0) {
		/* perf's HEADER_COMPRESSED: version, type (1: zstd), level, ratio,
		 * and the size of the buffer one record decompresses into */
		uint32_t comp[5] = { 1, 1, (uint32_t)_rsp_compression_level(r), 0,
				     4 * RSP_COMPRESS_PIECE };

		ret |= rsp_rec_feature(r->w, RSP_PF_FEAT_COMPRESSED, comp, sizeof(comp));
	}
	return ret ? -ENOMEM : 0;
}

int _rsp_write_head(struct recorder *r, const struct tp_list *tps)
{
	void *td = NULL;
	size_t td_len = 0;
	uint8_t kbid[20];
	int ret, kbid_len;

	ret = write_features(r);
	/*
	 * Attrs with user-stack copies first: perf script (6.1, pipe mode) picks
	 * DWARF unwinding only if the first attr of a type already needs it.
	 */
	for (int pass = 0; pass < 2 && !ret; pass++) {
		for (size_t i = 0; i < r->n_streams && !ret; i++) {
			const struct stream *s = &r->streams[i];
			bool copies = s->attr.sample_type & PERF_SAMPLE_STACK_USER;

			if (copies == (pass == 0))
				ret = rsp_rec_attr(r->w, &s->attr, s->ids, s->n_ids);
		}
	}
	if (ret)
		return _rsp_record_fail(r, ret, "out of memory writing the file header");
	ret = rsp_tracing_data_build(r->tracefs, tps->v, tps->n,
				     r->o->no_kallsyms ? NULL : "/proc/kallsyms", &td, &td_len, r->err,
				     r->errlen);
	if (ret)
		return ret;
	ret = rsp_rec_tracing_data(r->w, td, td_len);
	free(td);
	if (ret)
		return _rsp_record_fail(r, ret, "tracing data too large (%zu bytes)", td_len);
	kbid_len = rsp_build_id_of_kernel(kbid, sizeof(kbid));
	if (kbid_len > 0)
		rsp_rec_build_id(r->w, -1, kbid, (size_t)kbid_len, "[kernel.kallsyms]",
				 PERF_RECORD_MISC_KERNEL);
	if (r->n_target_pids) {
		const char **comms = calloc(r->n_target_pids, sizeof(*comms));
		char(*names)[16] = calloc(r->n_target_pids, sizeof(*names));
		int *pids = calloc(r->n_target_pids, sizeof(*pids));

		if (!comms || !names || !pids) {
			free(comms);
			free(names);
			free(pids);
			return -ENOMEM;
		}
		for (size_t i = 0; i < r->n_target_pids; i++) {
			pids[i] = r->target_pids[i];
			if (r->have_cmd && i == 0)
				snprintf(names[i], sizeof(names[i]), "%s", r->o->argv[0]);
			else
				rsp_pid_comm(r->target_pids[i], names[i], sizeof(names[i]));
			comms[i] = names[i];
		}
		ret = rsp_rec_thread_map(r->w, pids, comms, r->n_target_pids);
		free(comms);
		free(names);
		free(pids);
	}
	return ret;
}

/* perf record's way: build ids of the mapped files, after the samples */
void _rsp_write_build_ids(struct recorder *r)
{
	const char *path;
	size_t i;

	rsp_pathset_for_each(&r->paths, i, path)
	{
		uint8_t id[20];
		int len = rsp_build_id_of_file(path, id, sizeof(id));

		if (len > 0)
			rsp_rec_build_id(r->w, -1, id, (size_t)len, path, PERF_RECORD_MISC_USER);
	}
}
