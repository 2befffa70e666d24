/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RSP_COLLECTOR_TRACING_DATA_H
#define RSP_COLLECTOR_TRACING_DATA_H

#include <stdbool.h>
#include <stddef.h>

struct rsp_tp_name {
	const char *system;
	const char *name;
};

/*
 * Build the tracing-data payload for the tracepoints @tps (events of one
 * system listed together or not: they are grouped here).  @kallsyms_path
 * (usually /proc/kallsyms) is stored too, as one zstd frame without the
 * functions' padding symbols (__pfx_), or nothing when NULL.  The result is
 * malloc'd into @data/@len.
 */
int rsp_tracing_data_build(const char *tracefs, const struct rsp_tp_name *tps, size_t n,
			   const char *kallsyms_path, void **data, size_t *len, char *err,
			   size_t errlen);

#endif /* RSP_COLLECTOR_TRACING_DATA_H */
