/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Files by build id from debuginfod servers, through elfutils' client
 * (libdebuginfod): the servers of DEBUGINFOD_URLS, elfutils' own cache
 * ($DEBUGINFOD_CACHE_PATH, else ~/.cache/debuginfod_client), its own time-outs.
 * Asked only when the caller turned it on (rsp: DEBUGINFOD_URLS is set); each
 * download is announced through the progress callback first.  Without the
 * library at build time, nothing is found.  The library is opened (dlopen) at
 * the first question, as elfutils' libdw does: linked in, it and its 25
 * libraries (libcurl, GnuTLS, Kerberos, LDAP...) doubled every rsp command's
 * start-up (6.5 -> 13 ms) for a client most runs never ask.
 */
#include "rsp-config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if RSP_HAVE_DEBUGINFOD
#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#include <pthread.h>
#endif

#include "symbols/symbols-private.h"

#if RSP_HAVE_DEBUGINFOD
/* the client's functions, from the library opened once per process */
static struct {
	debuginfod_client *(*begin)(void);
	int (*find_executable)(debuginfod_client *, const unsigned char *, int, char **);
	int (*find_debuginfo)(debuginfod_client *, const unsigned char *, int, char **);
	void (*end)(debuginfod_client *);
	char why[256]; /* empty: loaded */
} lib;
static pthread_once_t lib_once = PTHREAD_ONCE_INIT;

static void lib_open(void)
{
	void *h = dlopen("libdebuginfod.so.1", RTLD_LAZY | RTLD_LOCAL);
	const char *err;

	if (!h) {
		err = dlerror();
		snprintf(lib.why, sizeof(lib.why), "%s", err ? err : "libdebuginfod.so.1: not found");
		return;
	}
	*(void **)&lib.begin = dlsym(h, "debuginfod_begin");
	*(void **)&lib.find_executable = dlsym(h, "debuginfod_find_executable");
	*(void **)&lib.find_debuginfo = dlsym(h, "debuginfod_find_debuginfo");
	*(void **)&lib.end = dlsym(h, "debuginfod_end");
	if (!lib.begin || !lib.find_executable || !lib.find_debuginfo || !lib.end) {
		snprintf(lib.why, sizeof(lib.why), "libdebuginfod.so.1 lacks debuginfod_begin()");
		lib.begin = NULL;
	}
	/* kept open: its client may be in use until the end */
}

char *_rsp_debuginfod_find(struct rsp_sym *sym, const uint8_t *id, size_t len, const char *name,
			   bool executable)
{
	char msg[PATH_MAX + 128], hex[2 * _RSP_BUILD_ID_MAX + 1];
	char *path = NULL;
	int fd;

	if (!sym->debuginfod || sym->debuginfod_failed || !len || len > _RSP_BUILD_ID_MAX)
		return NULL;
	if (!sym->debuginfod_client) {
		pthread_once(&lib_once, lib_open);
		if (!lib.begin) {
			sym->debuginfod_failed = true;
			if (sym->progress) {
				snprintf(msg, sizeof(msg),
					 "debuginfod: not asked: %s (apt-get install libdebuginfod1)",
					 lib.why);
				sym->progress(msg, sym->progress_ctx);
			}
			return NULL;
		}
		sym->debuginfod_client = lib.begin();
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
	fd = executable ? lib.find_executable(sym->debuginfod_client, id, (int)len, &path)
			: lib.find_debuginfo(sym->debuginfod_client, id, (int)len, &path);
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
		lib.end(sym->debuginfod_client);
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
