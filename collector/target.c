/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "target.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int rsp_pidfd_open(pid_t pid)
{
#ifdef SYS_pidfd_open
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);

	return fd < 0 ? -errno : fd;
#else
	return -ENOSYS;
#endif
}

int rsp_cmd_prepare(struct rsp_cmd *c, char *const argv[], char *err, size_t errlen)
{
	int go[2], ex[2];

	c->pid = -1;
	c->go_fd = c->err_fd = c->pidfd = -1;
	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(ex, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "cannot create a pipe: %s", strerror(errno));
		return -errno;
	}
	c->pid = fork();
	if (c->pid < 0) {
		int e = errno;

		snprintf(err, errlen, "cannot fork: %s", strerror(e));
		close(go[0]);
		close(go[1]);
		close(ex[0]);
		close(ex[1]);
		return -e;
	}
	if (c->pid == 0) {
		sigset_t none;
		char b;
		int e;

		close(go[1]);
		close(ex[0]);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGCHLD, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		/* EOF instead of a byte: rsp gave up, don't run */
		if (read(go[0], &b, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		e = errno;
		if (write(ex[1], &e, sizeof(e)) < 0) {
			/* nothing else to tell */
		}
		_exit(127);
	}
	close(go[0]);
	close(ex[1]);
	c->go_fd = go[1];
	c->err_fd = ex[0];
	c->pidfd = rsp_pidfd_open(c->pid);
	return 0;
}

int rsp_cmd_start(struct rsp_cmd *c, char *const argv[], char *err, size_t errlen)
{
	char b = 1;
	int e = 0;
	ssize_t n;

	if (write(c->go_fd, &b, 1) != 1) {
		snprintf(err, errlen, "cannot start '%s': %s", argv[0], strerror(errno));
		return -errno;
	}
	close(c->go_fd);
	c->go_fd = -1;
	do
		n = read(c->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(c->err_fd);
	c->err_fd = -1;
	if (n == sizeof(e)) {
		if (e == ENOENT)
			snprintf(err, errlen, "cannot run '%s': command not found", argv[0]);
		else
			snprintf(err, errlen, "cannot run '%s': %s", argv[0], strerror(e));
		return -e;
	}
	return 0;
}

void rsp_cmd_abort(struct rsp_cmd *c)
{
	if (c->pid > 0) {
		kill(c->pid, SIGKILL);
		while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
			;
		c->pid = -1;
	}
	if (c->go_fd >= 0)
		close(c->go_fd);
	if (c->err_fd >= 0)
		close(c->err_fd);
	if (c->pidfd >= 0)
		close(c->pidfd);
	c->go_fd = c->err_fd = c->pidfd = -1;
}

int rsp_pid_check(pid_t pid, char *err, size_t errlen)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	if (pid <= 0 || access(path, F_OK) < 0) {
		snprintf(err, errlen, "no process with PID %d", (int)pid);
		return -ESRCH;
	}
	return 0;
}

int rsp_pid_threads(pid_t pid, pid_t **tids, size_t *n)
{
	char path[64];
	struct dirent *de;
	size_t cap = 16;
	DIR *d;

	*n = 0;
	*tids = malloc(cap * sizeof(pid_t));
	if (!*tids)
		return -ENOMEM;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d) {
		/* gone meanwhile: the main thread id still names it */
		(*tids)[(*n)++] = pid;
		return 0;
	}
	while ((de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		if (*n == cap) {
			pid_t *g = realloc(*tids, 2 * cap * sizeof(pid_t));

			if (!g) {
				closedir(d);
				return -ENOMEM;
			}
			*tids = g;
			cap *= 2;
		}
		(*tids)[(*n)++] = (pid_t)atoi(de->d_name);
	}
	closedir(d);
	if (*n == 0)
		(*tids)[(*n)++] = pid;
	return 0;
}

void rsp_pid_comm(pid_t pid, char *buf, size_t len)
{
	char path[64];
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}
