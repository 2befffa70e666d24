/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared by test-timeline.c and test-read.c: a synthetic stream opened (as
 * written, or compressed in frames as rsp record writes it), a thread's
 * timeline as text, and the ping-pong stream with its known answer.  Static
 * inline, as tap.h: each test binary counts its own CHECKs.
 */
#ifndef RSP_TEST_TRACE_CHECK_H
#define RSP_TEST_TRACE_CHECK_H

#include "read/reader.h"
#include "rsp-model.h"
#include "synth-perf.h"
#include "tap.h"

#include <string.h>
#include <stdlib.h>

#define US(x) (1000000000ull + (uint64_t)(x) * 1000ull)
#define S_INT 1 /* prev_state S */
#define S_UNINT 2 /* D */
#define S_DEAD 0x10 /* X */

static inline struct rsp_trace *open_synth(struct synth *s, char *err, size_t errlen)
{
	struct rsp_trace_opts o = { .no_symbols = true };
	struct rsp_trace *t = NULL;
	size_t len;
	const void *buf = synth_finish(s, &len);

	if (rsp_trace_open_mem(buf, len, &o, &t, err, errlen))
		return NULL;
	return t;
}

/*
 * @s's stream compressed as rsp record writes it (a frame ends every @frame
 * input bytes and inflates on its own), opened; *@segments: how many the
 * reader found (more than one: it reads them a frame at a time).  *@z: the
 * compressed bytes, to free after the trace.
 */
static inline struct rsp_trace *open_framed(struct synth *s, size_t piece, size_t frame,
					    bool corrupt, size_t *segments, unsigned char **z,
					    char *err, size_t errlen)
{
	struct rsp_trace_opts o = { .no_symbols = true };
	struct rsp_trace *t = NULL;
	struct rsp_reader *r = NULL;
	size_t len, zlen;
	const void *buf = synth_finish(s, &len);

	*segments = 0;
	*z = synth_compress_framed(buf, len, piece, frame, corrupt, &zlen);
	if (!*z) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (rsp_reader_open_mem(*z, zlen, &r, err, errlen) == 0) {
		*segments = rsp_reader_n_segments(r);
		rsp_reader_free(r);
	}
	if (rsp_trace_open_mem(*z, zlen, &o, &t, err, errlen))
		return NULL;
	return t;
}

static inline size_t thread_of(struct rsp_trace *t, int tid)
{
	for (size_t i = 0; i < rsp_trace_n_threads(t); i++) {
		struct rsp_thread_info ti;

		rsp_trace_thread(t, i, &ti);
		if (ti.tid == tid)
			return i;
	}
	return RSP_NO_INDEX;
}

/* "R1000-1101 S1101-1201 ..." in us from 1 s; flags: i inferred, e exec, ? unknown */
static inline const char *dump(struct rsp_trace *t, int tid)
{
	static char buf[2048];
	size_t th = thread_of(t, tid), n = 0;

	buf[0] = '\0';
	if (th == RSP_NO_INDEX)
		return "(no thread)";
	for (size_t i = 0; i < rsp_thread_n_slices(t, th) && n < sizeof(buf) - 64; i++) {
		struct rsp_slice_info s;
		char k;

		rsp_thread_slice(t, th, i, &s);
		k = s.kind == RSP_SLICE_RUN ? 'R' : s.kind == RSP_SLICE_SLEEP ? 'S' : '?';
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%c%lld-%lld%s%s%s", i ? " " : "",
				      k, ((long long)s.start_ns - 1000000000ll) / 1000,
				      ((long long)s.end_ns - 1000000000ll) / 1000,
				      (s.flags & RSP_SLICE_INFERRED_START) ? "i" : "",
				      (s.flags & RSP_SLICE_EXEC) ? "e" : "",
				      k == '?' && (s.flags & RSP_SLICE_LOST) ? "L" : "");
	}
	return buf;
}

static inline void slice_of(struct rsp_trace *t, int tid, size_t i, struct rsp_slice_info *s)
{
	size_t th = thread_of(t, tid);

	memset(s, 0, sizeof(*s));
	if (th != RSP_NO_INDEX && i < rsp_thread_n_slices(t, th))
		rsp_thread_slice(t, th, i, s);
}

/* A and B pass control on one CPU */
static inline void pingpong_events(struct synth *s)
{
	synth_fork(s, 0, 100, 1, 100, 1);
	synth_comm(s, 0, 100, 100, "a", false);
	synth_fork(s, 0, 200, 1, 200, 1);
	synth_comm(s, 0, 200, 200, "b", false);
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, 100, "a");
	synth_waking(s, 0, US(1100), 100, 0, 200, "b", 0, false, NULL, 0);
	synth_switch(s, 0, US(1101), 100, "a", S_INT, 200, "b");
	synth_waking(s, 0, US(1200), 200, 0, 100, "a", 0, false, NULL, 0);
	synth_switch(s, 0, US(1201), 200, "b", S_INT, 100, "a");
	synth_round(s);
	synth_waking(s, 0, US(1300), 100, 0, 200, "b", 0, false, NULL, 0);
	synth_switch(s, 0, US(1301), 100, "a", S_UNINT, 200, "b");
	synth_switch(s, 0, US(1400), 200, "b", S_INT, 0, "swapper/0");
}

static inline void check_pingpong(struct rsp_trace *t, const char *how)
{
	struct rsp_slice_info s;
	struct rsp_link_info l;

	CHECK_STR(dump(t, 100), "S1000-1000 R1000-1101 S1101-1201 R1201-1301 S1301-1400",
		  how);
	CHECK_STR(dump(t, 200), "S1000-1101 R1101-1201 S1201-1301 R1301-1400 S1400-1400", how);
	slice_of(t, 100, 2, &s);
	CHECK(s.wake_ns == US(1200) && s.link < rsp_trace_n_links(t), "%s: A's sleep woken at 1200",
	      how);
	memset(&l, 0, sizeof(l));
	if (s.link < rsp_trace_n_links(t))
		rsp_trace_link(t, s.link, &l);
	CHECK(l.kind == RSP_LINK_WAKEUP && l.waker_thread == thread_of(t, 200) &&
		      l.waker_slice == 1 && l.wakee_slice == 3 && l.context == RSP_WAKE_TASK,
	      "%s: B's run (slice 1) woke A's run (slice 3) from task context", how);
	slice_of(t, 100, 4, &s);
	CHECK(s.state == RSP_SLEEP_UNINTERRUPTIBLE, "%s: prev_state 2 is D", how);
	slice_of(t, 100, 2, &s);
	CHECK(s.state == RSP_SLEEP_INTERRUPTIBLE && s.stack != 0, "%s: S, with its stack", how);
}

#endif /* RSP_TEST_TRACE_CHECK_H */
