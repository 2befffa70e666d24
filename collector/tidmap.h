/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tid -> tgid, fed by the FORK/COMM records the collector writes and copies,
 * so samples built from ftrace events (which carry only the tid) name their
 * process.  Open addressing, grows at 50% load.
 */
#ifndef RSP_COLLECTOR_TIDMAP_H
#define RSP_COLLECTOR_TIDMAP_H

#include <stdint.h>

struct rsp_tidmap {
	uint32_t *keys; /* tid + 1; 0 is empty */
	uint32_t *vals;
	uint32_t cap;
	uint32_t n;
};

int rsp_tidmap_set(struct rsp_tidmap *m, uint32_t tid, uint32_t tgid);
/* -1 if unknown */
int64_t rsp_tidmap_get(const struct rsp_tidmap *m, uint32_t tid);
void rsp_tidmap_free(struct rsp_tidmap *m);

#endif /* RSP_COLLECTOR_TIDMAP_H */
