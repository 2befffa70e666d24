/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What every file of the recorder uses (record-private.h): its messages, the
 * stop requests the signal handler makes, and the table of streams.  The
 * other files call in here, never the other way.
 */
#include "record-private.h"

#include "rsp-time.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

volatile sig_atomic_t _rsp_record_stop_requested;
volatile sig_atomic_t _rsp_record_abort;

/*
 * One Ctrl-C can arrive twice: the terminal sends it to the foreground process
 * group, and a wrapper in that group passes its own on (timeout(1) sends it to
 * its child and to its group).  A second request this soon after the first is
 * the same one, not a user's second Ctrl-C.
 */
#define SAME_STOP_NS 250000000ull

static uint64_t stop_first_ns; /* written and read by the signal handler only */

/* Async-signal-safe (clock_gettime is). */
void rsp_record_request_stop(void)
{
	struct timespec ts;
	uint64_t now = 0;

	if (!clock_gettime(CLOCK_MONOTONIC, &ts))
		now = (uint64_t)ts.tv_sec * RSP_NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
	if (_rsp_record_stop_requested) {
		if (!now || now - stop_first_ns >= SAME_STOP_NS)
			_rsp_record_abort = 1;
		return;
	}
	stop_first_ns = now;
	_rsp_record_stop_requested = 1;
}

bool rsp_record_aborted(void)
{
	return _rsp_record_abort != 0;
}

void _rsp_record_log(struct recorder *r, enum rsp_log_level lvl, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (!r->o->log)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	r->o->log(lvl, msg, r->o->log_ctx);
}

int _rsp_record_fail(struct recorder *r, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, r->errlen, fmt, ap);
	va_end(ap);
	return ret < 0 ? ret : -EINVAL;
}

struct stream *_rsp_add_stream(struct recorder *r, enum stream_kind kind, int row, unsigned tp_id)
{
	struct stream *s = realloc(r->streams, (r->n_streams + 1) * sizeof(*s));

	if (!s)
		return NULL;
	r->streams = s;
	s = &r->streams[r->n_streams++];
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	s->row = row;
	s->tp_id = tp_id;
	return s;
}
