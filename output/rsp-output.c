/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Output paths that are never destroyed: see rsp-output.h. */
#include "rsp-output.h"

#include "rsp-errf.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

struct rsp_output {
	struct rsp_output_target t;
	char *name; /* as given, for messages */
	char *tmp; /* the temporary file, NULL if written directly */
	bool by_name;
	int fd; /* what the stream writes to; -1 */
	FILE *f;
	int werr; /* the first write error, -errno */
};

static const char *kind_name(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISSOCK(m))
		return "a socket";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISLNK(m))
		return "a symbolic link";
	return "not a regular file";
}

/* "dir" of "dir/name" ("." for "name", "/" for "/name"); malloc'ed */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

static void limit_hint(char *buf, size_t len)
{
	struct rlimit rl;

	buf[0] = '\0';
	if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		snprintf(buf, len, " (the file-size limit, `ulimit -f`, is %llu bytes: raise it)",
			 (unsigned long long)rl.rlim_cur);
}

void rsp_output_error(char *err, size_t errlen, const char *name, int error)
{
	char hint[128] = "";

	switch (-error) {
	case ENOSPC:
		snprintf(hint, sizeof(hint), " (free space or write elsewhere)");
		break;
	case EDQUOT:
		snprintf(hint, sizeof(hint), " (over the disk quota: free space or write elsewhere)");
		break;
	case EFBIG:
		limit_hint(hint, sizeof(hint));
		break;
	case EACCES:
	case EPERM:
		snprintf(hint, sizeof(hint), " (write somewhere you may)");
		break;
	case EROFS:
		snprintf(hint, sizeof(hint), " (write elsewhere)");
		break;
	}
	rsp_errf(err, errlen, error, "cannot write %s: %s%s", name, strerror(-error), hint);
}

void rsp_output_target_clear(struct rsp_output_target *t)
{
	if (!t)
		return;
	free(t->path);
	memset(t, 0, sizeof(*t));
}

static int check_new(const char *path, struct rsp_output_target *t, char *err, size_t errlen)
{
	char *dir = dir_of(path);
	struct stat st;
	int ret = 0;

	if (!dir)
		return -ENOMEM;
	if (stat(dir, &st) < 0)
		ret =
		    rsp_errf(err, errlen, -errno,
		             errno == ENOENT ? "cannot create %s: no directory %s (create it first)"
		                             : "cannot create %s: %s: %s",
		             path, dir, strerror(errno));
	else if (!S_ISDIR(st.st_mode))
		ret = rsp_errf(err, errlen, -ENOTDIR, "cannot create %s: %s is not a directory",
		               path, dir);
	free(dir);
	if (ret)
		return ret;
	t->kind = RSP_OUTPUT_NEW;
	t->path = strdup(path);
	return t->path ? 0 : -ENOMEM;
}

int rsp_output_check(const char *path, bool allow_stdout, struct rsp_output_target *t,
		     char *err, size_t errlen)
{
	struct stat st;

	memset(t, 0, sizeof(*t));
	if (!path || !strcmp(path, "-")) {
		if (!allow_stdout)
			return rsp_errf(
			    err, errlen, -EINVAL,
			    "'-' (standard output) cannot be written here: give a file name");
		t->kind = RSP_OUTPUT_STDOUT;
		return 0;
	}
	if (!*path)
		return rsp_errf(err, errlen, -EINVAL, "an empty output name: give a file name");
	if (lstat(path, &st) < 0) {
		if (errno == ENOENT)
			return check_new(path, t, err, errlen);
		return rsp_errf(err, errlen, -errno, "cannot write %s: %s", path, strerror(errno));
	}
	if (S_ISLNK(st.st_mode)) {
		char *real;

		if (stat(path, &st) < 0)
			return rsp_errf(err, errlen, errno == ENOENT ? -ENOENT : -errno,
			                errno == ENOENT
			                    ? "%s is a symbolic link to nothing: remove it "
			                      "or give another name"
			                    : "cannot write %s: %s",
			                path, strerror(errno));
		real = realpath(path, NULL);
		if (!real)
			return rsp_errf(err, errlen, -errno, "cannot write %s: %s", path,
			                strerror(errno));
		t->path = real;
	}
	if (S_ISREG(st.st_mode)) {
		t->kind = RSP_OUTPUT_REGULAR;
		t->mode = st.st_mode & 07777;
		t->uid = st.st_uid;
		t->gid = st.st_gid;
	} else if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
		t->kind = RSP_OUTPUT_STREAM;
	} else {
		rsp_output_target_clear(t);
		return rsp_errf(err, errlen, S_ISDIR(st.st_mode) ? -EISDIR : -ENOTSUP,
		                S_ISDIR(st.st_mode) ? "%s is a directory: give a file name"
		                                    : "%s is %s: give a file name",
		                path, kind_name(st.st_mode));
	}
	if (!t->path)
		t->path = strdup(path);
	return t->path ? 0 : -ENOMEM;
}

/* ---- the stream ------------------------------------------------------------------------------ */

/* 0 on failure (glibc's contract for cookie writers: -1 corrupts the buffer) */
static ssize_t cookie_write(void *c, const char *buf, size_t size)
{
	struct rsp_output *o = c;
	size_t done = 0;

	if (o->werr)
		return 0;
	while (done < size) {
		ssize_t n = write(o->fd, buf + done, size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			o->werr = n < 0 ? -errno : -EIO;
			return 0;
		}
		done += (size_t)n;
	}
	return (ssize_t)size;
}

static int cookie_close(void *c)
{
	return 0; /* the fd is the output's, closed at commit */
}

static int make_stream(struct rsp_output *o)
{
	static const cookie_io_functions_t io = { .write = cookie_write, .close = cookie_close };

	o->f = fopencookie(o, "w", io);
	if (!o->f)
		return -errno;
	setvbuf(o->f, NULL, _IOFBF, 64 << 10);
	return 0;
}

/*
 * The mode a new file gets from open(..., 0666): the umask applied.  Read from
 * /proc (umask() to read it would change it for a moment, under other threads:
 * the viewer's); the umask() pair where /proc has no Umask line.
 */
static mode_t new_file_mode(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[128];
	mode_t m;

	while (f && fgets(line, sizeof(line), f)) {
		unsigned u;

		if (sscanf(line, "Umask: %o", &u) == 1) {
			fclose(f);
			return 0666 & ~(mode_t)u;
		}
	}
	if (f)
		fclose(f);
	m = umask(022);
	umask(m);
	return 0666 & ~m;
}

/* A temporary file beside @o->t.path (or in $TMPDIR with @in_tmpdir), @suffix at the end. */
static int make_temp(struct rsp_output *o, bool in_tmpdir, const char *suffix, char *err,
		     size_t errlen)
{
	const char *base = strrchr(o->t.path, '/');
	char *dir = NULL;
	int n, ret;

	suffix = suffix ? suffix : "";
	base = base ? base + 1 : o->t.path;
	if (in_tmpdir) {
		const char *td = getenv("TMPDIR");

		n = asprintf(&o->tmp, "%s/rsp-output.XXXXXX%s", td && *td ? td : "/tmp", suffix);
	} else {
		dir = dir_of(o->t.path);
		if (!dir)
			return -ENOMEM;
		/* a name of at most NAME_MAX bytes: the base cut if need be */
		n = asprintf(&o->tmp, "%s/.%.*s.XXXXXX%s", dir, 200, base, suffix);
	}
	if (n < 0) {
		o->tmp = NULL;
		free(dir);
		return -ENOMEM;
	}
	o->fd = mkostemps(o->tmp, (int)strlen(suffix), O_CLOEXEC);
	if (o->fd < 0) {
		ret = -errno;
		free(o->tmp);
		o->tmp = NULL;
		if (in_tmpdir)
			rsp_errf(err, errlen, ret,
			         "cannot write %s: cannot create a temporary file in %s: %s",
			         o->name, getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
			         strerror(-ret));
		else
			rsp_errf(
			    err, errlen, ret, "cannot create %s: %s%s", o->name, strerror(-ret),
			    ret == -EACCES || ret == -EPERM ? " (its directory must be writable)"
			                                    : "");
		free(dir);
		return ret;
	}
	free(dir);
	if (in_tmpdir)
		return 0;
	if (o->t.kind == RSP_OUTPUT_REGULAR) {
		/* the replacement keeps the replaced file's mode and owner */
		if (geteuid() == 0 && (o->t.uid != 0 || o->t.gid != 0))
			(void)!fchown(o->fd, o->t.uid, o->t.gid);
		fchmod(o->fd, o->t.mode);
	} else {
		fchmod(o->fd, new_file_mode());
	}
	return 0;
}

int rsp_output_open(const char *path, const struct rsp_output_opts *opts, struct rsp_output **out,
		    char *err, size_t errlen)
{
	struct rsp_output_opts none = { 0 };
	struct rsp_output *o;
	int ret;

	*out = NULL;
	opts = opts ? opts : &none;
	o = calloc(1, sizeof(*o));
	if (!o)
		return rsp_errf(err, errlen, -ENOMEM, "out of memory");
	o->fd = -1;
	o->by_name = opts->by_name;
	ret = rsp_output_check(path, opts->allow_stdout, &o->t, err, errlen);
	if (ret)
		goto fail;
	o->name = strdup(o->t.kind == RSP_OUTPUT_STDOUT ? "the standard output" : path);
	if (!o->name) {
		ret = -ENOMEM;
		goto fail;
	}
	switch (o->t.kind) {
	case RSP_OUTPUT_STDOUT:
		if (o->by_name) {
			ret = make_temp(o, true, opts->suffix, err, errlen);
			break;
		}
		o->f = stdout;
		break;
	case RSP_OUTPUT_STREAM:
		if (o->by_name) {
			ret = make_temp(o, true, opts->suffix, err, errlen);
			break;
		}
		o->fd = open(o->t.path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
		if (o->fd < 0) {
			ret = rsp_errf(err, errlen, -errno, "cannot open %s: %s", path,
			               strerror(errno));
			break;
		}
		ret = make_stream(o);
		break;
	case RSP_OUTPUT_NEW:
	case RSP_OUTPUT_REGULAR:
		ret = make_temp(o, false, opts->suffix, err, errlen);
		if (!ret && !o->by_name)
			ret = make_stream(o);
		break;
	}
	if (ret)
		goto fail;
	*out = o;
	return 0;
fail:
	if (ret == -ENOMEM)
		rsp_errf(err, errlen, ret, "out of memory");
	rsp_output_abort(o);
	return ret;
}

FILE *rsp_output_get_file(struct rsp_output *o)
{
	return o->f;
}

const char *rsp_output_get_path(const struct rsp_output *o)
{
	return o->tmp;
}

const char *rsp_output_get_name(const struct rsp_output *o)
{
	return o->name;
}

static void output_free(struct rsp_output *o)
{
	if (o->f && o->f != stdout)
		fclose(o->f);
	if (o->fd >= 0)
		close(o->fd);
	rsp_output_target_clear(&o->t);
	free(o->name);
	free(o->tmp);
	free(o);
}

void rsp_output_abort(struct rsp_output *o)
{
	if (!o)
		return;
	if (!o->werr)
		o->werr = -ECANCELED; /* what the stream still buffers is not written */
	if (o->tmp)
		unlink(o->tmp);
	output_free(o);
}

static int write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The temporary file (by name, in $TMPDIR) copied to the stream or standard output. */
static int copy_out(struct rsp_output *o)
{
	char buf[64 << 10];
	int in, to = 1, ret = 0;

	in = open(o->tmp, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -errno;
	if (o->t.kind == RSP_OUTPUT_STREAM) {
		to = open(o->t.path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
		if (to < 0) {
			ret = -errno;
			close(in);
			return ret;
		}
	} else {
		fflush(stdout); /* what the verb printed comes first */
	}
	for (;;) {
		ssize_t n = read(in, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			ret = -errno;
		if (n <= 0)
			break;
		ret = write_all(to, buf, (size_t)n);
		if (ret)
			break;
	}
	close(in);
	if (to != 1 && close(to) < 0 && !ret)
		ret = -errno;
	return ret;
}

int rsp_output_commit(struct rsp_output *o, char *err, size_t errlen)
{
	struct stat st;
	int ret = 0;

	if (!o)
		return 0;
	if (o->f == stdout) {
		errno = 0;
		if (fflush(stdout) || ferror(stdout))
			ret = errno ? -errno : -EIO;
	} else if (o->f) {
		if (fflush(o->f) && !o->werr)
			o->werr = -EIO;
		ret = o->werr;
		fclose(o->f);
		o->f = NULL;
	}
	if (!ret && o->tmp && o->t.kind != RSP_OUTPUT_NEW && o->t.kind != RSP_OUTPUT_REGULAR) {
		ret = copy_out(o);
	} else if (!ret && o->tmp) {
		if (fsync(o->fd) < 0)
			ret = -errno;
		if (close(o->fd) < 0 && !ret)
			ret = -errno;
		o->fd = -1;
		/* what was checked is still so: a regular file or nothing */
		if (!ret && lstat(o->t.path, &st) == 0 && !S_ISREG(st.st_mode)) {
			ret = rsp_errf(err, errlen, -EEXIST,
			               "%s became %s while rsp wrote it: left as it is", o->name,
			               kind_name(st.st_mode));
			rsp_output_abort(o);
			return ret;
		}
		if (!ret && rename(o->tmp, o->t.path) < 0)
			ret = -errno;
	} else if (!ret && o->fd >= 0 && o->t.kind == RSP_OUTPUT_STREAM) {
		if (close(o->fd) < 0)
			ret = -errno;
		o->fd = -1;
	}
	if (ret) {
		rsp_output_error(err, errlen, o->name, ret);
		rsp_output_abort(o);
		return ret;
	}
	if (o->tmp && (o->t.kind == RSP_OUTPUT_STREAM || o->t.kind == RSP_OUTPUT_STDOUT))
		unlink(o->tmp); /* copied */
	free(o->tmp);
	o->tmp = NULL;
	output_free(o);
	return 0;
}

int rsp_output_diagnose(const struct rsp_output *o, int error)
{
	struct statvfs vfs;
	struct rlimit rl;
	struct stat st;

	if (error != -EIO || !o->tmp || stat(o->tmp, &st) < 0)
		return error;
	if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    (uint64_t)st.st_size >= (uint64_t)rl.rlim_cur)
		return -EFBIG;
	if (statvfs(o->tmp, &vfs) == 0 && (geteuid() == 0 ? vfs.f_bfree : vfs.f_bavail) == 0)
		return -ENOSPC;
	return error;
}

/* ---- in place (rsp record) -------------------------------------------------------------------- */

int rsp_output_open_in_place(const char *path, mode_t mode, int *fd, bool *regular, char *err,
			     size_t errlen)
{
	struct rsp_output_target t;
	char *old = NULL;
	struct stat st;
	int ret;

	*fd = -1;
	*regular = false;
	ret = rsp_output_check(path, false, &t, err, errlen);
	if (ret)
		return ret;
	if (t.kind == RSP_OUTPUT_STREAM) {
		*fd = open(t.path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
		if (*fd < 0)
			ret = rsp_errf(err, errlen, -errno, "cannot open %s: %s", path,
			               strerror(errno));
		rsp_output_target_clear(&t);
		return ret;
	}
	if (t.kind == RSP_OUTPUT_REGULAR) {
		/* perf's rule: the existing file is kept as FILE.old, if that may be replaced */
		if (asprintf(&old, "%s.old", t.path) < 0) {
			rsp_output_target_clear(&t);
			return rsp_errf(err, errlen, -ENOMEM, "out of memory");
		}
		if (lstat(old, &st) == 0 && !S_ISREG(st.st_mode)) {
			ret =
			    rsp_errf(err, errlen, -EEXIST,
			             "cannot keep the existing %s as %s: that is %s (move it away)",
			             path, old, kind_name(st.st_mode));
		} else if (rename(t.path, old) < 0) {
			ret = rsp_errf(err, errlen, -errno, "cannot move the existing %s to %s: %s",
			               path, old, strerror(errno));
		}
		free(old);
		if (ret) {
			rsp_output_target_clear(&t);
			return ret;
		}
	}
	*fd = open(t.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (*fd < 0) {
		ret = rsp_errf(err, errlen, -errno, "cannot create %s: %s", path, strerror(errno));
	} else if (fchmod(*fd, mode) < 0) {
		/* the umask may be looser than @mode */
		ret = rsp_errf(err, errlen, -errno, "cannot set the mode of %s: %s", path,
		               strerror(errno));
		close(*fd);
		*fd = -1;
		unlink(t.path); /* created just now, O_EXCL */
	} else {
		*regular = true;
	}
	rsp_output_target_clear(&t);
	return ret;
}
