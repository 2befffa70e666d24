/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Writing an output path without ever destroying what was there.  rsp runs as
 * root, and an output path may name /dev/null, a FIFO, a device, a directory
 * or someone's file.  Every writer of rsp goes through here: `rsp record`'s
 * file (in place, with its .old rule), the exports, `rsp causes --log`.
 *
 *  - a regular file, or a path where nothing is yet: written to a temporary
 *    file beside it (created O_EXCL), flushed, fsynced and renamed over it
 *    only when everything was written; a failure removes the temporary file
 *    and nothing else.  A replaced file's mode (and, for root, owner) is kept.
 *  - a character device or a FIFO: written directly; never created,
 *    truncated, renamed or removed, not even on failure.
 *  - "-": standard output, written directly.
 *  - a directory, a block device, a socket, a dangling symbolic link, a
 *    missing directory: refused with one line, before anything is written.
 *  A symbolic link is followed: the file it names is replaced, the link kept.
 *
 * Errors are -errno with one line in @err that names the path, the reason
 * (ENOSPC, EFBIG with the limit, EACCES, ...) and what to do.  Plain C, no
 * GLib; never prints.  Shared by collector/ and cli/ (a static library of
 * its own: the collector must not depend on the CLI).
 */
#ifndef RSP_OUTPUT_H
#define RSP_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

enum rsp_output_kind {
	RSP_OUTPUT_NEW, /* nothing there yet: created */
	RSP_OUTPUT_REGULAR, /* an existing regular file (or a symbolic link to one) */
	RSP_OUTPUT_STREAM, /* a character device or a FIFO: written as it is */
	RSP_OUTPUT_STDOUT, /* "-" */
};

/* What an output path names, found without changing anything. */
struct rsp_output_target {
	enum rsp_output_kind kind;
	char *path; /* the file to write: a symbolic link resolved; owned */
	mode_t mode; /* RSP_OUTPUT_REGULAR: the file's mode, owner and group */
	uid_t uid;
	gid_t gid;
};

/*
 * Find what @path is (NULL or "-" with @allow_stdout: standard output) and
 * whether it can be written; nothing is created or changed.  -errno with one
 * line in @err (-EISDIR, -ENOENT for a missing directory, ...).
 */
int rsp_output_check(const char *path, bool allow_stdout, struct rsp_output_target *t,
		     char *err, size_t errlen);
void rsp_output_target_clear(struct rsp_output_target *t);

struct rsp_output_opts {
	bool allow_stdout; /* "-" (and NULL) is standard output; else refused */
	/*
	 * The caller writes by name (rsp_output_get_path(), e.g. a cairo
	 * surface): the temporary file's name ends in @suffix (".png": writers
	 * that pick a type by name), and a FIFO or device is written through a
	 * temporary file in $TMPDIR (or /tmp), copied to it at commit.
	 */
	bool by_name;
	const char *suffix;
};

struct rsp_output;

/* Open @path for writing as the rules above say.  -errno with one line in @err. */
int rsp_output_open(const char *path, const struct rsp_output_opts *opts, struct rsp_output **out,
		    char *err, size_t errlen);
/* The stream to write (NULL with by_name); borrowed, closed by commit or abort. */
FILE *rsp_output_get_file(struct rsp_output *o);
/* With by_name: the file to write (a temporary file); borrowed. */
const char *rsp_output_get_path(const struct rsp_output *o);
/* The path as given, or "standard output": for messages. */
const char *rsp_output_get_name(const struct rsp_output *o);
/*
 * Finish: flush, fsync, rename the temporary file over the target (or copy
 * it to a stream).  On failure nothing but the temporary file is removed.
 * Frees @o (NULL is fine).  -errno with one line in @err.
 */
int rsp_output_commit(struct rsp_output *o, char *err, size_t errlen);
/* Give up: remove the temporary file, leave the target as it was.  Frees @o (NULL is fine). */
void rsp_output_abort(struct rsp_output *o);
/*
 * A writer that wrote by name failed with @error: an -EIO (cairo says no
 * more) is told as -EFBIG when the temporary file reached the file-size
 * limit, as -ENOSPC when its file system is full.  Returns the -errno to tell.
 */
int rsp_output_diagnose(const struct rsp_output *o, int error);

/*
 * rsp record's file, written in place as a stream (after kill -9 of the
 * recorder the file up to the last write still opens): an existing regular
 * file is first renamed to @path.old (perf's rule; for a symbolic link, the
 * file it names), but only if @path.old is absent or a regular file; then
 * @path is created O_EXCL with @mode (whatever the umask).  A character
 * device or a FIFO is opened as it is, never renamed or created.  *@regular
 * says whether the file may be truncated back after a failed write.
 * -errno with one line in @err.
 */
int rsp_output_open_in_place(const char *path, mode_t mode, int *fd, bool *regular, char *err,
			     size_t errlen);

/*
 * One line for a failed write of @error (-errno) on @name: "cannot write
 * NAME: REASON", with what to do for the common reasons (a full file system,
 * the file-size limit, permissions).
 */
void rsp_output_error(char *err, size_t errlen, const char *name, int error);

#endif /* RSP_OUTPUT_H */
