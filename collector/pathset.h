/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The set of files mapped during a recording, for their build ids. */
#ifndef RSP_COLLECTOR_PATHSET_H
#define RSP_COLLECTOR_PATHSET_H

#include <stddef.h>

struct rsp_pathset {
	char **slots; /* open addressing, NULL is empty */
	size_t cap;
	size_t n;
};

/* 1 if added, 0 if present, -ENOMEM */
int rsp_pathset_add(struct rsp_pathset *s, const char *path);
void rsp_pathset_free(struct rsp_pathset *s);

#define rsp_pathset_for_each(s, i, p)                                                      \
	for ((i) = 0; (i) < (s)->cap; (i)++)                                               \
		if (((p) = (s)->slots[(i)]) != NULL)

#endif /* RSP_COLLECTOR_PATHSET_H */
