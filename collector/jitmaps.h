/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The JIT runtimes' symbol files of a recording, copied beside it.
 *
 * A runtime that compiles code at run time names it in files perf reads:
 * /tmp/perf-PID.map (V8's --perf-basic-prof, Java agents, Python 3.12's
 * -X perf) and jit-PID.dump files in a directory of its choosing, which it
 * maps executable so that the mmap record names them (perf's jitdump
 * convention).  Both live on the recording machine only: at the end of
 * rsp record they are copied into FILE.jit/ beside the recording, as
 * perf-PID.map and jit-PID.dump, for every process the recording saw (the
 * model reads that directory when it is there; docs/perf-data.md).
 */
#ifndef RSP_COLLECTOR_JITMAPS_H
#define RSP_COLLECTOR_JITMAPS_H

#include "pathset.h"
#include "tidmap.h"

#include <stddef.h>

/*
 * Copy into @out.jit the perf-PID.map files in @map_dir ("/tmp" but for
 * tests) of the processes in @tids (their tgids) and the files of @paths
 * named jit-PID.dump; a @out.jit left by an earlier recording to @out is
 * replaced (removed when there is nothing to copy).  Returns the files
 * copied, or -errno with one line in @err (the recording itself is whole).
 */
int rsp_jitmaps_copy(const char *out, const char *map_dir, const struct rsp_tidmap *tids,
		     const struct rsp_pathset *paths, char *err, size_t errlen);

#endif /* RSP_COLLECTOR_JITMAPS_H */
