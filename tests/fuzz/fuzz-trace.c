/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target: arbitrary bytes as a perf.data file, through the reader,
 * the decoders and the timeline builder, then every query and a server's
 * requests.  Built as a
 * libFuzzer binary with clang (-Dfuzz=enabled), and as a replay program
 * that runs the kept corpus in the `fuzz` test suite.
 */
#include "rsp-model.h"
#include "rsp-requests.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* every thread's socket calls as a server's requests */
static void requests(struct rsp_trace *t)
{
	struct rsp_thread_filter f = { 0 };
	uint8_t *sel = rsp_thread_filter_apply(t, &f);
	struct rsp_requests *r = NULL;
	struct rsp_requests_stats st;
	struct rsp_requests_time tm;

	if (!sel || rsp_requests_find(t, sel, &r)) {
		free(sel);
		return;
	}
	rsp_requests_stats(r, &st);
	rsp_requests_time(r, &tm);
	for (size_t i = 0; i < rsp_requests_n(r); i++) {
		struct rsp_request_info q;

		rsp_requests_get(r, i, &q);
	}
	for (size_t i = 0; i < rsp_requests_n_conns(r); i++) {
		struct rsp_conn_info c;

		rsp_requests_conn(r, i, &c);
	}
	rsp_requests_free(r);
	free(sel);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rsp_trace_opts o = { .no_symbols = true };
	struct rsp_trace *t;
	struct rsp_trace_summary s;
	char err[256];

	if (rsp_trace_open_mem(data, size, &o, &t, err, sizeof(err)))
		return 0;
	rsp_trace_get_summary(t, &s);
	for (size_t i = 0; i < rsp_trace_n_threads(t); i++) {
		struct rsp_thread_info ti;

		rsp_trace_thread(t, i, &ti);
		for (size_t k = 0; k < rsp_thread_n_slices(t, i); k++) {
			struct rsp_slice_info sl;

			rsp_thread_slice(t, i, k, &sl);
			for (size_t f = 0; f < rsp_stack_n_frames(t, sl.stack); f++) {
				struct rsp_frame_info fr;

				rsp_stack_frame(t, sl.stack, f, ti.pid, sl.start_ns, &fr);
			}
			(void)rsp_thread_find_slice(t, i, sl.start_ns);
		}
	}
	for (size_t i = 0; i < rsp_trace_n_links(t); i++) {
		struct rsp_link_info l;

		rsp_trace_link(t, i, &l);
	}
	for (size_t i = 0; i < rsp_trace_n_sockets(t); i++) {
		struct rsp_socket_info so;

		rsp_trace_socket(t, i, &so);
	}
	requests(t);
	rsp_trace_free(t);
	return 0;
}
