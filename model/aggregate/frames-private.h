/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared by causes, offcpu and folded: stacks symbolized once per (stack,
 * process) into name arrays, the thread filter, and two small hash maps.
 */
#ifndef RSP_FRAMES_PRIVATE_H
#define RSP_FRAMES_PRIVATE_H

#include "base/hashmap.h"
#include "timeline/trace-private.h"
#include "rsp-frames.h"
#include "rsp-strmap.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- named stacks ------------------------------------------------------------------ */

struct _rsp_names {
	const struct rsp_named_frame *f; /* leaf first */
	uint32_t n;
};

struct _rsp_namecache;

struct _rsp_namecache *_rsp_namecache_new(struct rsp_trace *t);
void _rsp_namecache_free(struct _rsp_namecache *c);
/*
 * The names of @stack as seen by process @pid at @time, and a small id for
 * them (equal ids: equal names; different ids may still have equal names).
 * Returns -ENOMEM or 0; a missing stack gives n = 0, id 0.
 */
int _rsp_namecache_get(struct _rsp_namecache *c, uint32_t stack, int pid, uint64_t time,
		       struct _rsp_names *out, uint32_t *id);

/* "f;g;h", root first, from @first to the leaf; ';' in names becomes ':' */
int _rsp_names_join(const struct _rsp_names *n, char **buf, size_t *cap, size_t *len,
		    const char *ksuffix);

/* The innermost user function and its caller, "caller > inner", or the first kernel
 * function that is not the scheduler; NULL if none.  In @buf. */
const char *_rsp_names_label(const struct _rsp_names *n, char *buf, size_t len);

#endif /* RSP_FRAMES_PRIVATE_H */
