/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A growable byte buffer for building variable-size payloads. */
#ifndef RSP_COLLECTOR_BUF_H
#define RSP_COLLECTOR_BUF_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct rsp_buf {
	unsigned char *p;
	size_t len;
	size_t cap;
	int err; /* sticky -ENOMEM */
};

static inline int rsp_buf_put(struct rsp_buf *b, const void *data, size_t len)
{
	if (b->err)
		return b->err;
	if (b->len + len > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		unsigned char *np;

		while (cap < b->len + len)
			cap *= 2;
		np = realloc(b->p, cap);
		if (!np)
			return b->err = -ENOMEM;
		b->p = np;
		b->cap = cap;
	}
	if (len)
		memcpy(b->p + b->len, data, len);
	b->len += len;
	return 0;
}

static inline int rsp_buf_put_u32(struct rsp_buf *b, uint32_t v)
{
	return rsp_buf_put(b, &v, sizeof(v));
}

static inline int rsp_buf_put_u64(struct rsp_buf *b, uint64_t v)
{
	return rsp_buf_put(b, &v, sizeof(v));
}

static inline void rsp_buf_free(struct rsp_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

#endif /* RSP_COLLECTOR_BUF_H */
