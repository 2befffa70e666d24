/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * FILE.jit: the JIT runtimes' perf-PID.map and jit-PID.dump files of the
 * recorded processes, copied beside the recording (jitmaps.h).
 *
 * The copies go into a new directory beside FILE first, which then takes the
 * place of an older FILE.jit, so that a reader never sees the maps of one
 * recording beside another.  Only files rsp writes there (perf-*.map,
 * jit-*.dump) are removed from the older one; a directory that holds
 * anything else is left alone and said.
 */
#include "jitmaps.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct copy {
	char *src;
	char name[64]; /* in FILE.jit */
};

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static bool regular(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* "jit-PID.dump" at the end of @path: its pid, else 0 */
static unsigned jitdump_pid(const char *path)
{
	const char *base = strrchr(path, '/');
	unsigned pid;
	int n = 0;

	base = base ? base + 1 : path;
	if (sscanf(base, "jit-%u.dump%n", &pid, &n) == 1 && n && !base[n] && pid)
		return pid;
	return 0;
}

static bool ours(const char *name)
{
	unsigned pid;
	int n = 0;

	return (sscanf(name, "perf-%u.map%n", &pid, &n) == 1 && n && !name[n]) ||
	       ((n = 0), sscanf(name, "jit-%u.dump%n", &pid, &n) == 1 && n && !name[n]);
}

/* @dir's perf-*.map and jit-*.dump removed, then @dir: 0, or -errno */
static int remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[4096];

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((e = readdir(d)))
		if (ours(e->d_name) &&
		    snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) < (int)sizeof(path))
			unlink(path);
	closedir(d);
	return rmdir(dir) ? -errno : 0;
}

/* @src to @dst (created, 0600: as the recording): 0 or -errno */
static int copy_file(const char *src, const char *dst)
{
	char buf[1 << 16];
	int in = open(src, O_RDONLY | O_CLOEXEC), out = -1, ret = 0;
	ssize_t n;

	if (in < 0)
		return -errno;
	out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (out < 0) {
		ret = -errno;
		goto done;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		for (ssize_t at = 0; at < n;) {
			ssize_t w = write(out, buf + at, (size_t)(n - at));

			if (w < 0) {
				if (errno == EINTR)
					continue;
				ret = -errno;
				goto done;
			}
			at += w;
		}
	}
	if (n < 0)
		ret = -errno;
done:
	if (out >= 0 && close(out) && !ret)
		ret = -errno;
	close(in);
	return ret;
}

/* the tgids of @tids, sorted, each once: *n of them (NULL with ENOMEM) */
static uint32_t *tgids(const struct rsp_tidmap *tids, size_t *n)
{
	uint32_t *v = malloc((tids->n ? tids->n : 1) * sizeof(*v));
	size_t k = 0;

	*n = 0;
	if (!v)
		return NULL;
	for (uint32_t i = 0; i < tids->cap; i++)
		if (tids->keys[i] && k < tids->n)
			v[k++] = tids->vals[i];
	qsort(v, k, sizeof(*v), cmp_u32);
	for (size_t i = 0; i < k; i++)
		if (!*n || v[*n - 1] != v[i])
			v[(*n)++] = v[i];
	return v;
}

int rsp_jitmaps_copy(const char *out, const char *map_dir, const struct rsp_tidmap *tids,
		     const struct rsp_pathset *paths, char *err, size_t errlen)
{
	char dir[4096], tmp[4096], path[4096 + 80];
	struct copy *v = NULL;
	uint32_t *pids = NULL;
	size_t n = 0, n_pids = 0, i;
	const char *p;
	int ret = 0;

	err[0] = '\0';
	if (snprintf(dir, sizeof(dir), "%s.jit", out) >= (int)sizeof(dir) ||
	    snprintf(tmp, sizeof(tmp), "%s.jit.XXXXXX", out) >= (int)sizeof(tmp)) {
		snprintf(err, errlen, "%s: path too long for its .jit directory", out);
		return -ENAMETOOLONG;
	}
	pids = tids->n ? tgids(tids, &n_pids) : NULL;
	if (tids->n && !pids)
		return -ENOMEM;
	v = calloc(n_pids + (paths ? paths->n : 0) + 1, sizeof(*v));
	if (!v) {
		free(pids);
		return -ENOMEM;
	}
	for (i = 0; i < n_pids; i++) {
		if (snprintf(path, sizeof(path), "%s/perf-%u.map", map_dir, pids[i]) <
			    (int)sizeof(path) &&
		    pids[i] && regular(path)) {
			v[n].src = strdup(path);
			snprintf(v[n].name, sizeof(v[n].name), "perf-%u.map", pids[i]);
			if (!v[n++].src)
				ret = -ENOMEM;
		}
	}
	if (paths) {
		rsp_pathset_for_each(paths, i, p)
		{
			unsigned pid = jitdump_pid(p);

			if (pid && regular(p)) {
				v[n].src = strdup(p);
				snprintf(v[n].name, sizeof(v[n].name), "jit-%u.dump", pid);
				if (!v[n++].src)
					ret = -ENOMEM;
			}
		}
	}
	if (ret)
		goto out;
	if (!n) { /* nothing of this recording: no maps of another beside it */
		ret = remove_dir(dir);
		if (ret && ret != -ENOTEMPTY && ret != -EEXIST)
			snprintf(err, errlen, "%s: an older recording's directory cannot be removed: %s",
				 dir, strerror(-ret));
		else if (ret)
			snprintf(err, errlen, "%s: holds files rsp did not write there: left as it is "
					      "(it does not belong to this recording)", dir);
		goto out;
	}
	if (!mkdtemp(tmp)) {
		ret = -errno;
		snprintf(err, errlen, "%s: cannot create it: %s (the JIT frames will not be named)",
			 tmp, strerror(-ret));
		goto out;
	}
	for (i = 0; i < n && !ret; i++) {
		snprintf(path, sizeof(path), "%s/%s", tmp, v[i].name);
		ret = copy_file(v[i].src, path);
		if (ret == -EEXIST) /* two dumps of one pid: the first */
			ret = 0;
		else if (ret)
			snprintf(err, errlen, "%s: cannot be copied to %s: %s", v[i].src, path,
				 strerror(-ret));
	}
	if (!ret) {
		ret = remove_dir(dir);
		if (ret)
			snprintf(err, errlen, "%s: cannot be replaced: %s", dir, strerror(-ret));
	}
	if (!ret && rename(tmp, dir)) {
		ret = -errno;
		snprintf(err, errlen, "%s: cannot be made: %s", dir, strerror(-ret));
	}
	if (ret)
		remove_dir(tmp);
out:
	for (i = 0; i < n; i++)
		free(v[i].src);
	free(v);
	free(pids);
	return ret ? ret : (int)n;
}
