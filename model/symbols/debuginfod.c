/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Files by build id from debuginfod servers, through elfutils' client
 * (libdebuginfod): the servers of DEBUGINFOD_URLS, elfutils' own cache
 * ($DEBUGINFOD_CACHE_PATH, else ~/.cache/debuginfod_client), its own time-outs.
 * Asked only when the caller turned it on (rsp: DEBUGINFOD_URLS is set); each
 * download is announced through the progress callback first.  Without the
 * library at build time, nothing is found.
 */
#include "rsp-config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if RSP_HAVE_DEBUGINFOD
#include <elfutils/debuginfod.h>
#endif

#include "symbols/symbols-private.h"

#if RSP_HAVE_DEBUGINFOD
char *_rsp_debuginfod_find(struct rsp_sym *sym, const uint8_t *id, size_t len, const char *name,
			   bool executable)
{
	char msg[PATH_MAX + 128], hex[2 * _RSP_BUILD_ID_MAX + 1];
	char *path = NULL;
	int fd;

	if (!sym->debuginfod || sym->debuginfod_failed || !len || len > _RSP_BUILD_ID_MAX)
		return NULL;
	if (!sym->debuginfod_client) {
		sym->debuginfod_client = debuginfod_begin();
		if (!sym->debuginfod_client) {
			sym->debuginfod_failed = true;
			return NULL;
		}
	}
	for (size_t i = 0; i < len; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	if (sym->progress) {
		snprintf(msg, sizeof(msg), "debuginfod: %s %s (build id %s)",
			 executable ? "fetching" : "fetching debug info of", name, hex);
		sym->progress(msg, sym->progress_ctx);
	}
	fd = executable ? debuginfod_find_executable(sym->debuginfod_client, id, (int)len, &path)
			: debuginfod_find_debuginfo(sym->debuginfod_client, id, (int)len, &path);
	if (fd < 0) {
		free(path);
		return NULL;
	}
	close(fd);
	return path;
}

void _rsp_debuginfod_end(struct rsp_sym *sym)
{
	if (sym->debuginfod_client)
		debuginfod_end(sym->debuginfod_client);
	sym->debuginfod_client = NULL;
}
#else
char *_rsp_debuginfod_find(struct rsp_sym *sym, const uint8_t *id, size_t len, const char *name,
			   bool executable)
{
	(void)sym, (void)id, (void)len, (void)name, (void)executable;
	return NULL;
}

void _rsp_debuginfod_end(struct rsp_sym *sym)
{
	(void)sym;
}
#endif
