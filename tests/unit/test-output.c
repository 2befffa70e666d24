/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * output/rsp-output.h: what an output path is never made to lose.  Each case
 * writes through the module and then looks at every path that existed before
 * (type, inode, contents) and at the directory (no temporary file left).
 */
#include "tap.h"

#include "rsp-output.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[] = "/tmp/rsp-output-XXXXXX";

static char *at(const char *name)
{
	static char buf[4][256];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", dir, name);
	return buf[k];
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	fputs(text, f);
	fclose(f);
}

static char *get(const char *path)
{
	static char buf[4096];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* entries of the test directory (., .. left out) */
static int n_entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static int write_text(const char *path, const struct rsp_output_opts *o, const char *text,
		      char *err, size_t errlen)
{
	struct rsp_output *out;
	int ret = rsp_output_open(path, o, &out, err, errlen);

	if (ret)
		return ret;
	fputs(text, rsp_output_get_file(out));
	return rsp_output_commit(out, err, errlen);
}

static void regular_files(void)
{
	struct stat a, b;
	struct rsp_output *out;
	char err[256];

	umask(022);
	CHECK(write_text(at("new.txt"), NULL, "one", err, sizeof(err)) == 0, "a new file: %s",
	      err);
	CHECK_STR(get(at("new.txt")), "one", "its contents");
	CHECK(stat(at("new.txt"), &a) == 0 && (a.st_mode & 0777) == 0644,
	      "created with the umask's mode (%o)", a.st_mode & 0777);
	CHECK(n_entries() == 1, "no temporary file left");

	chmod(at("new.txt"), 0640);
	stat(at("new.txt"), &a);
	CHECK(write_text(at("new.txt"), NULL, "two", err, sizeof(err)) == 0,
	      "an existing file replaced");
	stat(at("new.txt"), &b);
	CHECK_STR(get(at("new.txt")), "two", "the new contents");
	CHECK((b.st_mode & 0777) == 0640, "the replaced file's mode kept (%o)", b.st_mode & 0777);
	CHECK(a.st_ino != b.st_ino, "replaced by a rename, not rewritten in place");

	/* given up half-way: the file is as it was, the temporary file gone */
	CHECK(rsp_output_open(at("new.txt"), NULL, &out, err, sizeof(err)) == 0, "opened again");
	fputs("half", rsp_output_get_file(out));
	fflush(rsp_output_get_file(out));
	CHECK(n_entries() == 2, "the temporary file is beside the target");
	rsp_output_abort(out);
	CHECK_STR(get(at("new.txt")), "two", "abort leaves the file");
	CHECK(n_entries() == 1, "abort removes the temporary file");

	/* a symbolic link: the file it names is replaced, the link kept */
	symlink("new.txt", at("link.txt"));
	CHECK(write_text(at("link.txt"), NULL, "three", err, sizeof(err)) == 0,
	      "through a symbolic link");
	CHECK(lstat(at("link.txt"), &a) == 0 && S_ISLNK(a.st_mode), "the link is still a link");
	CHECK_STR(get(at("new.txt")), "three", "the file it names replaced");
	symlink("nothing-here", at("dangling"));
	CHECK(write_text(at("dangling"), NULL, "x", err, sizeof(err)) == -ENOENT &&
		      strstr(err, "symbolic link to nothing"),
	      "a dangling link refused: %s", err);
	CHECK(lstat(at("dangling"), &a) == 0 && S_ISLNK(a.st_mode) &&
		      access(at("nothing-here"), F_OK) < 0,
	      "and nothing created");
	unlink(at("dangling"));
	unlink(at("link.txt"));
	unlink(at("new.txt"));
}

static void refused(void)
{
	char err[256], path[300];
	struct stat st;

	mkdir(at("d"), 0755);
	CHECK(write_text(at("d"), NULL, "x", err, sizeof(err)) == -EISDIR &&
		      strstr(err, "is a directory") && strstr(err, at("d")),
	      "a directory: %s", err);
	CHECK(stat(at("d"), &st) == 0 && S_ISDIR(st.st_mode) && n_entries() == 1,
	      "the directory is left, nothing created");
	rmdir(at("d"));
	snprintf(path, sizeof(path), "%s/no/such/dir/x", dir);
	CHECK(write_text(path, NULL, "x", err, sizeof(err)) == -ENOENT &&
		      strstr(err, "no directory") && strstr(err, path),
	      "a missing directory: %s", err);
	CHECK(write_text("-", NULL, "x", err, sizeof(err)) == -EINVAL,
	      "'-' refused unless standard output is allowed: %s", err);
	CHECK(write_text("", NULL, "x", err, sizeof(err)) == -EINVAL, "an empty name refused");
}

static void devices(void)
{
	struct rsp_output_opts by_name = { .by_name = true, .suffix = ".png" };
	struct rsp_output *out;
	char err[256];
	struct stat st;
	char buf[1 << 16];

	memset(buf, 'x', sizeof(buf));
	CHECK(write_text("/dev/null", NULL, "x", err, sizeof(err)) == 0, "/dev/null written");
	CHECK(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode), "/dev/null still a device");
	CHECK(rsp_output_open("/dev/full", NULL, &out, err, sizeof(err)) == 0, "/dev/full opens");
	fwrite(buf, 1, sizeof(buf), rsp_output_get_file(out));
	fwrite(buf, 1, sizeof(buf), rsp_output_get_file(out));
	CHECK(rsp_output_commit(out, err, sizeof(err)) == -ENOSPC &&
		      strstr(err, "cannot write /dev/full: No space left on device"),
	      "/dev/full: the real reason: %s", err);
	CHECK(stat("/dev/full", &st) == 0 && S_ISCHR(st.st_mode), "/dev/full still a device");

	/* by name (cairo): through a temporary file in $TMPDIR, copied to the device */
	setenv("TMPDIR", dir, 1);
	CHECK(rsp_output_open("/dev/full", &by_name, &out, err, sizeof(err)) == 0,
	      "/dev/full by name");
	CHECK(rsp_output_get_path(out) && !strncmp(rsp_output_get_path(out), dir, strlen(dir)) &&
		      strstr(rsp_output_get_path(out), ".png"),
	      "the temporary file is in $TMPDIR and ends in .png: %s", rsp_output_get_path(out));
	put(rsp_output_get_path(out), "image");
	CHECK(rsp_output_commit(out, err, sizeof(err)) == -ENOSPC, "copying fails: %s", err);
	CHECK(stat("/dev/full", &st) == 0 && S_ISCHR(st.st_mode) && n_entries() == 0,
	      "/dev/full still a device, the temporary file removed");
	unsetenv("TMPDIR");
}

static void fifo(void)
{
	char err[256], got[64] = "";
	struct stat st;
	pid_t pid;
	int p[2];

	mkfifo(at("fifo"), 0600);
	pipe(p);
	pid = fork();
	if (pid == 0) {
		int fd = open(at("fifo"), O_RDONLY);
		ssize_t n = read(fd, got, sizeof(got) - 1);

		(void)!write(p[1], got, n > 0 ? (size_t)n : 0);
		_exit(0);
	}
	close(p[1]);
	CHECK(write_text(at("fifo"), NULL, "through", err, sizeof(err)) == 0, "a FIFO written");
	waitpid(pid, NULL, 0);
	(void)!read(p[0], got, sizeof(got) - 1);
	close(p[0]);
	CHECK_STR(got, "through", "the reader got it");
	CHECK(lstat(at("fifo"), &st) == 0 && S_ISFIFO(st.st_mode) && n_entries() == 1,
	      "the FIFO is still a FIFO, nothing beside it");

	/* given up: what the stream buffered never reaches the reader */
	pipe(p);
	pid = fork();
	if (pid == 0) {
		int fd = open(at("fifo"), O_RDONLY);
		char buf[64];
		ssize_t n = read(fd, buf, sizeof(buf));

		(void)!write(p[1], n > 0 ? "got" : "eof", 3);
		_exit(0);
	}
	close(p[1]);
	{
		struct rsp_output *out;

		CHECK(rsp_output_open(at("fifo"), NULL, &out, err, sizeof(err)) == 0,
		      "a FIFO opened again");
		fputs("never", rsp_output_get_file(out));
		rsp_output_abort(out);
	}
	waitpid(pid, NULL, 0);
	memset(got, 0, sizeof(got));
	(void)!read(p[0], got, 3);
	close(p[0]);
	CHECK_STR(got, "eof", "abort: the reader got nothing");
	unlink(at("fifo"));
}

/* In a child: the file-size limit reached writing a file that existed. */
static void size_limit(void)
{
	char err[256];
	int status = 0;
	pid_t pid;

	put(at("big.txt"), "before");
	pid = fork();
	if (pid == 0) {
		struct rlimit rl = { 4096, 4096 };
		struct rsp_output_opts by_name = { .by_name = true, .suffix = ".svg" };
		struct rsp_output *out;
		char buf[8192];
		FILE *f;
		int ret;

		signal(SIGXFSZ, SIG_IGN);
		setrlimit(RLIMIT_FSIZE, &rl);
		memset(buf, 'y', sizeof(buf));
		if (rsp_output_open(at("big.txt"), NULL, &out, err, sizeof(err)))
			_exit(10);
		fwrite(buf, 1, sizeof(buf), rsp_output_get_file(out));
		ret = rsp_output_commit(out, err, sizeof(err));
		if (ret != -EFBIG || !strstr(err, "File too large") || !strstr(err, "ulimit -f") ||
		    !strstr(err, "4096 bytes"))
			_exit(11);
		/* a writer by name that only says -EIO (cairo) */
		if (rsp_output_open(at("big.txt"), &by_name, &out, err, sizeof(err)))
			_exit(12);
		f = fopen(rsp_output_get_path(out), "w");
		fwrite(buf, 1, sizeof(buf), f);
		fclose(f);
		if (rsp_output_diagnose(out, -EIO) != -EFBIG)
			_exit(13);
		rsp_output_abort(out);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "the file-size limit told as EFBIG with the limit (child status %d)",
	      WEXITSTATUS(status));
	CHECK_STR(get(at("big.txt")), "before", "the file that was there is unchanged");
	CHECK(n_entries() == 1, "no temporary file left");
	unlink(at("big.txt"));
}

static void in_place(void)
{
	char err[256];
	struct stat st;
	bool regular;
	int fd;

	put(at("r.data"), "first");
	CHECK(rsp_output_open_in_place(at("r.data"), 0600, &fd, &regular, err, sizeof(err)) == 0 &&
		      regular,
	      "in place: opened");
	close(fd);
	CHECK_STR(get(at("r.data.old")), "first", "the existing file kept as .old");
	CHECK(stat(at("r.data"), &st) == 0 && (st.st_mode & 0777) == 0600 && st.st_size == 0,
	      "a fresh private file");
	unlink(at("r.data.old"));
	mkdir(at("r.data.old"), 0755);
	put(at("r.data"), "second");
	CHECK(rsp_output_open_in_place(at("r.data"), 0600, &fd, &regular, err, sizeof(err)) ==
			  -EEXIST &&
		      strstr(err, "is a directory"),
	      "a directory in the .old's place: refused: %s", err);
	CHECK_STR(get(at("r.data")), "second", "and the file left");
	CHECK(stat(at("r.data.old"), &st) == 0 && S_ISDIR(st.st_mode), "and the directory");
	rmdir(at("r.data.old"));
	unlink(at("r.data"));
	CHECK(rsp_output_open_in_place("/dev/null", 0600, &fd, &regular, err, sizeof(err)) == 0 &&
		      !regular,
	      "a device opened as it is");
	close(fd);
	CHECK(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode) && (st.st_mode & 0777) == 0666 &&
		      access("/dev/null.old", F_OK) < 0,
	      "/dev/null neither renamed nor made private");
	CHECK(rsp_output_open_in_place(dir, 0600, &fd, &regular, err, sizeof(err)) == -EISDIR,
	      "a directory refused: %s", err);
}

int main(int argc, char **argv)
{
	tap_init(argc, argv);
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	TAP_RUN("regular_files", regular_files());
	TAP_RUN("refused", refused());
	TAP_RUN("devices", devices());
	TAP_RUN("fifo", fifo());
	TAP_RUN("size_limit", size_limit());
	TAP_RUN("in_place", in_place());
	rmdir(dir);
	return tap_done();
}
