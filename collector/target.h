/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The processes a recording is about: a command rsp starts, or PIDs. */
#ifndef RSP_COLLECTOR_TARGET_H
#define RSP_COLLECTOR_TARGET_H

#include <stddef.h>
#include <sys/types.h>

/* A command forked now, held before exec until rsp_cmd_start(). */
struct rsp_cmd {
	pid_t pid;
	int go_fd; /* write a byte: exec */
	int err_fd; /* the child writes errno here if exec fails */
	int pidfd;
};

int rsp_cmd_prepare(struct rsp_cmd *c, char *const argv[], char *err, size_t errlen);
/* Let it exec.  Fails with "cannot run ..." if exec did. */
int rsp_cmd_start(struct rsp_cmd *c, char *const argv[], char *err, size_t errlen);
/* Kill and reap a prepared command that will not run. */
void rsp_cmd_abort(struct rsp_cmd *c);

/* 0 if @pid exists, else -ESRCH with "no process with PID N". */
int rsp_pid_check(pid_t pid, char *err, size_t errlen);
/* All thread ids of process @pid (malloc'd). */
int rsp_pid_threads(pid_t pid, pid_t **tids, size_t *n);
void rsp_pid_comm(pid_t pid, char *buf, size_t len);
/* A pidfd that polls readable when @pid exits; -errno if unsupported. */
int rsp_pidfd_open(pid_t pid);

#endif /* RSP_COLLECTOR_TARGET_H */
