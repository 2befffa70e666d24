/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Builders for the perf-tool records at the head of a pipe-mode perf.data. */
#ifndef RSP_COLLECTOR_RECORDS_H
#define RSP_COLLECTOR_RECORDS_H

#include "writer.h"

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

int rsp_rec_attr(struct rsp_writer *w, const struct perf_event_attr *attr, const uint64_t *ids,
		 size_t n_ids);
int rsp_rec_event_name(struct rsp_writer *w, uint64_t id, const char *name);
int rsp_rec_feature(struct rsp_writer *w, int feat, const void *data, size_t len);
/* perf_header_string: u32 length (padded to 64) then the NUL-padded string */
int rsp_rec_feature_string(struct rsp_writer *w, int feat, const char *s);
/* u32 count then that many perf_header_strings (HEADER_CMDLINE) */
int rsp_rec_feature_strings(struct rsp_writer *w, int feat, const char *const *s, size_t n);
int rsp_rec_thread_map(struct rsp_writer *w, const int *pids, const char *const *comms, size_t n);
int rsp_rec_tracing_data(struct rsp_writer *w, const void *data, size_t len);
int rsp_rec_build_id(struct rsp_writer *w, int pid, const uint8_t *bid, size_t bid_len,
		     const char *filename, uint16_t misc);
int rsp_rec_finished_init(struct rsp_writer *w);

#endif /* RSP_COLLECTOR_RECORDS_H */
