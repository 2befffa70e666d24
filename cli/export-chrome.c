/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Chrome trace-event JSON for Perfetto's UI and chrome://tracing.  The
 * format's reference is Google's "Trace Event Format" document:
 *   X  complete events (ts + dur): runs and sleeps on a track per thread
 *   s/f flow events with one id, the f bound to its enclosing slice (bp "e"):
 *      a wakeup from the waker's run to the run it started
 *   b/e async events (cat + id): block requests from insert/issue to completion
 *   M  metadata: process and thread names
 * Written by hand: the numbers are µs with ns precision ("%.3f"), and names from
 * the trace are escaped as JSON strings with invalid UTF-8 replaced.
 */
#include "export.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct cw {
	FILE *f;
	struct rsp_trace *t;
	const uint8_t *sel;
	uint64_t t0;
	bool first;
	/* per thread index: rsp_trace_thread() sums the slices, too slow per link */
	int *pid, *tid;
	const char **comm;
};

/* the length of a valid UTF-8 sequence at @p, 0 if invalid */
static size_t utf8_len(const unsigned char *p)
{
	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		return (p[1] & 0xc0) == 0x80 ? 2 : 0;
	if (p[0] >= 0xe0 && p[0] <= 0xef) {
		if ((p[1] & 0xc0) != 0x80 || (p[2] & 0xc0) != 0x80)
			return 0;
		if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] > 0x9f))
			return 0;
		return 3;
	}
	if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		if ((p[1] & 0xc0) != 0x80 || (p[2] & 0xc0) != 0x80 || (p[3] & 0xc0) != 0x80)
			return 0;
		if ((p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] > 0x8f))
			return 0;
		return 4;
	}
	return 0;
}

static void jstr(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	fputc('"', f);
	while (*p) {
		size_t n;

		if (*p == '"' || *p == '\\') {
			fputc('\\', f);
			fputc(*p++, f);
			continue;
		}
		if (*p < 0x20) {
			fprintf(f, "\\u%04x", *p++);
			continue;
		}
		n = utf8_len(p);
		if (!n) {
			fputs("\\ufffd", f);
			p++;
			continue;
		}
		fwrite(p, 1, n, f);
		p += n;
	}
	fputc('"', f);
}

static double us(const struct cw *w, uint64_t ns)
{
	return ns > w->t0 ? (double)(ns - w->t0) / 1000.0 : 0.0;
}

static void begin(struct cw *w)
{
	fputs(w->first ? "\n" : ",\n", w->f);
	w->first = false;
}

static bool selected(const struct cw *w, size_t th)
{
	return th != RSP_NO_INDEX && th < rsp_trace_n_threads(w->t) && (!w->sel || w->sel[th]);
}

static void stack_array(struct cw *w, uint32_t stack, int pid, uint64_t time)
{
	size_t n = rsp_stack_n_frames(w->t, stack);

	fputs("\"stack\":[", w->f);
	for (size_t i = 0; i < n; i++) {
		struct rsp_frame_info fi;
		char buf[320], name[300];

		rsp_stack_frame(w->t, stack, i, pid, time, &fi);
		snprintf(buf, sizeof(buf), "%s%s", rsp_frame_name(&fi, name, sizeof(name)),
			 fi.kernel ? " [kernel]" : "");
		if (i)
			fputc(',', w->f);
		jstr(w->f, buf);
	}
	fputc(']', w->f);
}

/* "caller > inner" of a sleep's user stack, for the slice's name */
static void sleep_label(struct cw *w, uint32_t stack, int pid, uint64_t time, char *buf,
			size_t len)
{
	const char *inner, *caller;
	char names[2][300];

	buf[0] = '\0';
	rsp_stack_label_frames(w->t, stack, pid, time, names[0], sizeof(names[0]), &inner, &caller,
	                       NULL);
	if (inner && caller)
		snprintf(buf, len, "%s > %s", caller, inner);
	else if (inner)
		snprintf(buf, len, "%s", inner);
}

static void thread_track(struct cw *w, size_t th, const struct rsp_thread_info *ti)
{
	for (size_t i = 0; i < ti->n_slices; i++) {
		struct rsp_slice_info s;
		const char *what;
		char name[300], label[256];

		rsp_thread_slice(w->t, th, i, &s);
		if (s.end_ns <= s.start_ns)
			continue;
		begin(w);
		fprintf(w->f, "{\"ph\":\"X\",\"cat\":\"sched\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f,"
			      "\"dur\":%.3f,",
			ti->pid, ti->tid, us(w, s.start_ns), (double)(s.end_ns - s.start_ns) / 1000.0);
		if (s.kind == RSP_SLICE_RUN) {
			fprintf(w->f, "\"name\":\"running\",\"args\":{\"cpu\":%d,\"samples\":%zu",
				s.cpu, s.n_samples);
			if (s.link != RSP_NO_INDEX) {
				struct rsp_link_info l;

				rsp_trace_link(w->t, s.link, &l);
				fputs(",\"started_by\":", w->f);
				jstr(w->f, rsp_link_kind_name(l.kind));
			}
			fputs("}}", w->f);
			continue;
		}
		if (s.kind == RSP_SLICE_UNKNOWN) {
			fputs("\"name\":\"unknown\",\"args\":{\"why\":\"lost records or a broken state "
			      "chain\"}}",
			      w->f);
			continue;
		}
		what = s.state == RSP_SLEEP_PREEMPTED	     ? "preempted" :
		       s.state == RSP_SLEEP_UNINTERRUPTIBLE ? "D" :
							      "S";
		sleep_label(w, s.stack, ti->pid, s.start_ns, label, sizeof(label));
		snprintf(name, sizeof(name), "%s%s%s", what, label[0] ? ": " : "", label);
		fputs("\"name\":", w->f);
		jstr(w->f, name);
		fprintf(w->f, ",\"args\":{\"state\":\"%s\",",
			s.state == RSP_SLEEP_PREEMPTED ? "R" : what);
		if (s.wake_ns)
			fprintf(w->f, "\"wake_ts\":%.3f,", us(w, s.wake_ns));
		if (s.link != RSP_NO_INDEX) {
			struct rsp_link_info l;

			rsp_trace_link(w->t, s.link, &l);
			fputs("\"ended_by\":", w->f);
			jstr(w->f, rsp_link_kind_name(l.kind));
			if (l.waker_thread < rsp_trace_n_threads(w->t)) {
				fprintf(w->f, ",\"waker_tid\":%d,\"waker\":", w->tid[l.waker_thread]);
				jstr(w->f, w->comm[l.waker_thread]);
			}
			fputc(',', w->f);
		}
		stack_array(w, s.stack, ti->pid, s.start_ns);
		fputs("}}", w->f);
	}
}

static void names(struct cw *w)
{
	size_t nt = rsp_trace_n_threads(w->t), np = 0;
	int *pids = calloc(nt ? nt : 1, sizeof(int));

	for (size_t th = 0; th < nt; th++) {
		struct rsp_thread_info ti;
		bool seen = false;

		if (!selected(w, th))
			continue;
		rsp_trace_thread(w->t, th, &ti);
		/* one process_name per pid */
		for (size_t k = 0; pids && k < np && !seen; k++)
			seen = pids[k] == ti.pid;
		if (!seen) {
			size_t leader = rsp_trace_find_thread(w->t, ti.pid, UINT64_MAX);
			struct rsp_thread_info li = ti;

			if (pids)
				pids[np++] = ti.pid;
			if (leader != RSP_NO_INDEX)
				rsp_trace_thread(w->t, leader, &li);
			begin(w);
			fprintf(w->f,
				"{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"tid\":%d,"
				"\"args\":{\"name\":",
				ti.pid, ti.pid);
			jstr(w->f, li.pid == ti.pid ? li.comm : ti.comm);
			fputs("}}", w->f);
		}
		begin(w);
		fprintf(w->f,
			"{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%d,\"args\":{"
			"\"name\":",
			ti.pid, ti.tid);
		jstr(w->f, ti.comm);
		fputs("}}", w->f);
	}
	free(pids);
}

/* One end of a wakeup's arrow: @ph its start ("s") or its end ("f", bound to the slice
 * it enters), in thread @th at @ns. */
static void flow(struct cw *w, const char *ph, size_t id, enum rsp_link_kind kind, size_t th,
                 uint64_t ns)
{
	begin(w);
	fprintf(w->f,
	        "{\"ph\":%s,\"id\":%zu,\"cat\":\"wakeup\",\"name\":\"%s\",\"pid\":%d,"
	        "\"tid\":%d,\"ts\":%.3f}",
	        ph, id, rsp_link_kind_name(kind), w->pid[th], w->tid[th], us(w, ns));
}

static void flows(struct cw *w)
{
	size_t nl = rsp_trace_n_links(w->t);

	for (size_t i = 0; i < nl; i++) {
		struct rsp_link_info l;
		struct rsp_slice_info run;

		rsp_trace_link(w->t, i, &l);
		if (l.kind == RSP_LINK_PREEMPT || l.kind == RSP_LINK_EXEC ||
		    l.kind == RSP_LINK_UNKNOWN || l.context != RSP_WAKE_TASK)
			continue;
		if (!selected(w, l.waker_thread) || !selected(w, l.wakee_thread) ||
		    l.wakee_slice == RSP_NO_INDEX ||
		    l.wakee_slice >= rsp_thread_n_slices(w->t, l.wakee_thread))
			continue;
		rsp_thread_slice(w->t, l.wakee_thread, l.wakee_slice, &run);
		if (run.kind != RSP_SLICE_RUN || run.end_ns <= run.start_ns)
			continue;
		flow(w, "\"s\"", i + 1, l.kind, l.waker_thread, l.time_ns);
		flow(w, "\"f\",\"bp\":\"e\"", i + 1, l.kind, l.wakee_thread, run.start_ns);
	}
}

static void ios(struct cw *w)
{
	size_t n = rsp_trace_n_ios(w->t);

	for (size_t i = 0; i < n; i++) {
		struct rsp_io_info io;
		int pid = 0, tid = 0;
		uint64_t start;
		char name[96];

		rsp_trace_io(w->t, i, &io);
		start = io.insert_ns ? io.insert_ns : io.issue_ns;
		if (!start || !io.complete_ns || io.complete_ns < start)
			continue;
		if (io.thread != RSP_NO_INDEX) {
			if (!selected(w, io.thread))
				continue;
			pid = w->pid[io.thread];
			tid = w->tid[io.thread];
		} else if (w->sel) {
			continue;
		}
		snprintf(name, sizeof(name), "%s %u:%u", io.rwbs ? io.rwbs : "?", io.dev >> 20,
			 io.dev & 0xfffff);
		begin(w);
		fprintf(w->f, "{\"ph\":\"b\",\"cat\":\"io\",\"id\":%zu,\"pid\":%d,\"tid\":%d,"
			      "\"ts\":%.3f,\"name\":",
			i + 1, pid, tid, us(w, start));
		jstr(w->f, name);
		fprintf(w->f, ",\"args\":{\"sector\":%" PRIu64 ",\"sectors\":%u", io.sector,
			io.nr_sector);
		if (io.insert_ns)
			fprintf(w->f, ",\"queued_ts\":%.3f", us(w, io.insert_ns));
		if (io.issue_ns)
			fprintf(w->f, ",\"issued_ts\":%.3f", us(w, io.issue_ns));
		fputs("}}", w->f);
		begin(w);
		fprintf(w->f, "{\"ph\":\"e\",\"cat\":\"io\",\"id\":%zu,\"pid\":%d,\"tid\":%d,"
			      "\"ts\":%.3f,\"name\":",
			i + 1, pid, tid, us(w, io.complete_ns));
		jstr(w->f, name);
		fputc('}', w->f);
	}
}

int rsp_export_chrome(FILE *f, struct rsp_trace *t, const uint8_t *sel, const char *source)
{
	struct cw w = { .f = f, .t = t, .sel = sel, .first = true };
	struct rsp_trace_summary sum;
	size_t nt = rsp_trace_n_threads(t);

	rsp_trace_get_summary(t, &sum);
	w.t0 = sum.start_ns;
	w.pid = calloc(nt ? nt : 1, sizeof(int));
	w.tid = calloc(nt ? nt : 1, sizeof(int));
	w.comm = calloc(nt ? nt : 1, sizeof(char *));
	if (!w.pid || !w.tid || !w.comm) {
		free(w.pid);
		free(w.tid);
		free(w.comm);
		return -ENOMEM;
	}
	for (size_t th = 0; th < nt; th++) {
		struct rsp_thread_info ti;

		rsp_trace_thread(t, th, &ti);
		w.pid[th] = ti.pid;
		w.tid[th] = ti.tid;
		w.comm[th] = ti.comm;
	}
	fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"rsp export\",\"file\":",
	      f);
	jstr(f, source);
	fprintf(f, ",\"start_ns\":%" PRIu64 ",\"end_ns\":%" PRIu64 "},\"traceEvents\":[",
		sum.start_ns, sum.end_ns);
	names(&w);
	for (size_t th = 0; th < nt; th++) {
		struct rsp_thread_info ti;

		if (!selected(&w, th))
			continue;
		rsp_trace_thread(t, th, &ti);
		thread_track(&w, th, &ti);
	}
	flows(&w);
	ios(&w);
	fputs("\n]}\n", f);
	free(w.pid);
	free(w.tid);
	free(w.comm);
	return ferror(f) ? -EIO : 0;
}
