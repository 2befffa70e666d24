/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rsp's private ftrace instance: the complete source for events that perf
 * drops (interrupt context on an idle CPU, ../shared/KERNEL-NOTES.md §1).
 * The instance lives under tracefs/instances/rsp-PID, so rsp never disturbs
 * other users of ftrace; instances left by a killed recorder are removed by
 * the next one.
 */
#ifndef RSP_COLLECTOR_FTRACE_H
#define RSP_COLLECTOR_FTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rsp_ftrace;

struct rsp_ftrace_opts {
	size_t buffer_kb; /* per CPU */
	const char *clock; /* trace_clock name, "mono" */
};

/* Remove rsp-PID instances whose recorder is gone.  Returns how many. */
int rsp_ftrace_remove_stale(void);

int rsp_ftrace_new(struct rsp_ftrace **ft, const struct rsp_ftrace_opts *opts, char *err,
		   size_t errlen);
/* -ENOENT if the kernel has no such event */
int rsp_ftrace_enable(struct rsp_ftrace *ft, const char *system, const char *name);
/* Switch an enabled event off or back on while recording (shedding). */
int rsp_ftrace_switch(struct rsp_ftrace *ft, const char *system, const char *name, bool on);
int rsp_ftrace_start(struct rsp_ftrace *ft, char *err, size_t errlen);
void rsp_ftrace_stop(struct rsp_ftrace *ft);

/* Called for each event, in time order per CPU.  @data is the raw payload
 * (common fields first), as perf's RAW field holds it. */
typedef int (*rsp_ftrace_event_fn)(void *ctx, int cpu, uint64_t ts, const void *data,
				   size_t size);
/* Called when the ring buffer reports @lost events missing before @ts. */
typedef void (*rsp_ftrace_lost_fn)(void *ctx, int cpu, uint64_t ts, uint64_t lost);

/* Whether there is room for the events of @bytes of ring buffer; NULL: always. */
typedef bool (*rsp_ftrace_room_fn)(void *ctx, size_t bytes);

/*
 * Read what is available now, without blocking, as long as @room says there
 * is room for one more sub-buffer, and at most @max_subbufs sub-buffers per
 * CPU (0: no limit); *@more (may be NULL) is set when a CPU had more.  A busy
 * CPU's ring refills as fast as it is read: the limit keeps one pass short so
 * that the perf rings are read in between.  Returns the number of events
 * delivered or -errno.
 */
long rsp_ftrace_drain(struct rsp_ftrace *ft, size_t max_subbufs, bool *more,
		      rsp_ftrace_event_fn ev, rsp_ftrace_lost_fn lost,
		      rsp_ftrace_room_fn room, void *ctx);

/* Per-CPU count of events the kernel could not store ("overrun" + "dropped
 * events" of per_cpu/cpuN/stats).  -1 if unreadable. */
int64_t rsp_ftrace_dropped(struct rsp_ftrace *ft, int cpu);

int rsp_ftrace_nr_cpus(const struct rsp_ftrace *ft);
/* Remove the instance.  Accepts NULL. */
void rsp_ftrace_free(struct rsp_ftrace *ft);

#endif /* RSP_COLLECTOR_FTRACE_H */
