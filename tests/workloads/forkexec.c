/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * forkexec - a make -j2 look-alike: fork/exec/wait with a grandchild.
 *
 * What it does:
 *   The main process (comm "forkexec") runs 12 jobs, at most two at a time
 *   (like make -j2). Each job is fork() + execv() of this same binary (the
 *   path /proc/self/exe points to) with the arguments "--job N". In job
 *   mode the process sets its comm to "fx-job", does ~20 ms of CPU work
 *   (job_compile()), writes a small output file
 *   "$RSP_WL_DIR|$TMPDIR|/tmp/rsp-forkexec.<parent pid>.job<N>.o" and exits
 *   with status 0. Jobs 0 and 6 (every job with N % 6 == 0) additionally
 *   fork+exec /bin/true and wait for it (job_run_tool()), so there is a
 *   grandchild. The main process waits for jobs with waitpid()
 *   (wait_for_jobs()), starting the next job whenever one finishes, then
 *   checks and removes every job's output file.
 *
 *   usage: forkexec [JOBS]        (default 12)
 *   (internal: forkexec --job N   runs one job)
 *
 * Processes / threads:
 *   forkexec   the main process ("make")
 *   fx-job     each job (12 processes; comm "forkexec" between exec and
 *              the prctl(PR_SET_NAME) at the start of job mode)
 *   true       /bin/true, grandchild of the main process, under jobs 0 and 6
 *
 * Functions that appear in stacks (built with frame pointers):
 *   run_jobs(), start_job(), wait_for_jobs()   in forkexec
 *   job_main(), job_compile(), job_write_output(), job_run_tool()  in fx-job
 *
 * Expected explanation shape (target: forkexec):
 *   The main process is almost always asleep in wait_for_jobs() -> wait4().
 *   Each of those sleeps is explained by the exit of a job; the job's whole
 *   life (exec, job_compile() CPU, the output write, and for jobs 0 and 6
 *   the nested wait4() on /bin/true, which is in turn explained by the
 *   /bin/true process's exec and run) becomes a child of the parent's
 *   wait, just as a callee is a child of a call. With two jobs in flight,
 *   each wait4() sleep overlaps two jobs. Total job CPU is ~12 x 20 ms,
 *   spread over both CPUs, so wall ~= 6 x 20 ms plus fork/exec costs.
 *   Measured on the reference machine (2 vCPU EPYC VM), default run:
 *   0.18 s wall (/usr/bin/time, 3 runs: 0.19 0.17 0.18), perf stat:
 *   ~340 ms task-clock over all processes (~1.9 CPUs utilized), 15
 *   processes (1 + 12 jobs + 2 /bin/true). Each fx-job uses ~27 ms of CPU
 *   (20 ms job_compile() + exec, dynamic loading and exit), so
 *   job_compile() is ~70 % of all CPU time; the main process uses ~8 ms
 *   of CPU (perf stat --no-inherit) and spends ~95 % of its wall time in
 *   wait_for_jobs() -> wait4() (12 calls, ~15 ms each, perf trace -s);
 *   jobs 0 and 6 each wait a few ms in wait4() for /bin/true.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#define WL_NAME "forkexec"
#include "wl.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#define DEFAULT_JOBS 12UL
#define MAX_JOBS 10000UL
#define PARALLEL 2
/* ~20 ms of CPU per job. */
#define COMPILE_ITERS (20000UL * WL_ITERS_PER_US)
#define TOOL_PATH "/bin/true"

static const char usage[] =
	"usage: forkexec [JOBS]\n"
	"  Runs JOBS jobs (default 12, about 0.2 s), two at a time, each a\n"
	"  fork + exec of this binary in job mode (comm fx-job) doing ~20 ms\n"
	"  of CPU and writing a small file in $RSP_WL_DIR, else $TMPDIR, else\n"
	"  /tmp (removed at the end). Jobs 0, 6, 12, ... also run /bin/true.\n"
	"  forkexec --job N  runs job N (internal).\n";

static char self_path[PATH_MAX];
static pid_t running_pid[PARALLEL];
static unsigned long njobs_started;

void job_compile(void);
void job_write_output(unsigned long job);
void job_run_tool(void);
void job_main(unsigned long job);
void start_job(unsigned long job);
void wait_for_jobs(void);
void run_jobs(unsigned long njobs);

static void output_path(char buf[PATH_MAX], pid_t parent, unsigned long job)
{
	wl_path(buf, "%s/rsp-forkexec.%ld.job%lu.o", wl_scratch_dir(),
		(long)parent, job);
}

/* ---- job mode --------------------------------------------------------- */

WL_STACK_FN void job_compile(void)
{
	wl_burn(COMPILE_ITERS);
}

WL_STACK_FN void job_write_output(unsigned long job)
{
	char path[PATH_MAX], buf[256];
	int fd, len;

	output_path(path, getppid(), job);
	len = snprintf(buf, sizeof(buf), "rsp forkexec job %lu output\n", job);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		wl_die("job: create output file");
	if (write(fd, buf, (size_t)len) != len)
		wl_die("job: write output file");
	if (close(fd) < 0)
		wl_die("job: close output file");
}

WL_STACK_FN void job_run_tool(void)
{
	char arg0[] = "true";
	char *args[] = { arg0, NULL };
	pid_t pid;
	int status;

	pid = fork();
	if (pid < 0)
		wl_die("job: fork");
	if (pid == 0) {
		execv(TOOL_PATH, args);
		wl_die("job: execv " TOOL_PATH);
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			wl_die("job: waitpid");
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		wl_fail("job: " TOOL_PATH " failed (wait status 0x%x)", status);
}

WL_STACK_FN void job_main(unsigned long job)
{
	if (prctl(PR_SET_NAME, "fx-job", 0, 0, 0) < 0)
		wl_die("job: prctl(PR_SET_NAME)");
	job_compile();
	job_write_output(job);
	if (job % 6 == 0)
		job_run_tool();
	WL_NO_TAILCALL();
}

/* ---- parent ("make") -------------------------------------------------- */

static void parent_on_die(void)
{
	char path[PATH_MAX];
	unsigned long j;
	int i;

	for (i = 0; i < PARALLEL; i++) {
		if (running_pid[i] > 0) {
			kill(running_pid[i], SIGKILL);
			waitpid(running_pid[i], NULL, 0);
			running_pid[i] = 0;
		}
	}
	for (j = 0; j < njobs_started; j++) {
		output_path(path, getpid(), j);
		unlink(path);
	}
}

WL_STACK_FN void start_job(unsigned long job)
{
	char arg0[] = "forkexec", arg1[] = "--job", arg2[32];
	char *args[] = { arg0, arg1, arg2, NULL };
	pid_t pid, parent = getpid();
	int slot;

	for (slot = 0; slot < PARALLEL; slot++)
		if (running_pid[slot] == 0)
			break;
	if (slot == PARALLEL)
		wl_fail("internal error: no free job slot");
	snprintf(arg2, sizeof(arg2), "%lu", job);

	pid = fork();
	if (pid < 0)
		wl_die("fork");
	if (pid == 0) {
		wl_on_die = NULL;
		/* Kept across exec: a killed "make" takes its jobs along. */
		if (prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0) < 0)
			wl_die("prctl(PR_SET_PDEATHSIG)");
		if (getppid() != parent)
			wl_fail("parent died before job %lu started", job);
		execv(self_path, args);
		wl_die("execv self");
	}
	running_pid[slot] = pid;
	njobs_started = job + 1;
}

/* Wait until one running job exits; fail unless it exited with 0. */
WL_STACK_FN void wait_for_jobs(void)
{
	pid_t pid;
	int status, slot;

	do
		pid = waitpid(-1, &status, 0);
	while (pid < 0 && errno == EINTR);
	if (pid < 0)
		wl_die("waitpid");
	for (slot = 0; slot < PARALLEL; slot++)
		if (running_pid[slot] == pid)
			break;
	if (slot == PARALLEL)
		wl_fail("waitpid returned unknown child %ld", (long)pid);
	running_pid[slot] = 0;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		wl_fail("job (pid %ld) failed (wait status 0x%x)", (long)pid,
			status);
}

WL_STACK_FN void run_jobs(unsigned long njobs)
{
	unsigned long next = 0;
	int running = 0;

	while (next < njobs || running > 0) {
		while (running < PARALLEL && next < njobs) {
			start_job(next++);
			running++;
		}
		wait_for_jobs();
		running--;
	}
}

int main(int argc, char **argv)
{
	char path[PATH_MAX];
	unsigned long njobs, j;
	ssize_t n;

	wl_catch_signals();
	alarm(60); /* in job mode too: fork cleared it, exec keeps it */

	if (argc >= 2 && strcmp(argv[1], "--job") == 0) {
		char *end;

		if (argc != 3)
			wl_fail("--job needs exactly one argument");
		errno = 0;
		j = strtoul(argv[2], &end, 10);
		if (errno != 0 || *end != '\0' || end == argv[2])
			wl_fail("bad job number '%s'", argv[2]);
		job_main(j);
		return 0;
	}

	njobs = wl_parse_count(argc, argv, DEFAULT_JOBS, MAX_JOBS, usage);
	if (prctl(PR_SET_NAME, "forkexec", 0, 0, 0) < 0)
		wl_die("prctl(PR_SET_NAME)");
	n = readlink("/proc/self/exe", self_path, sizeof(self_path) - 1);
	if (n < 0)
		wl_die("readlink /proc/self/exe");
	if (n >= (ssize_t)sizeof(self_path) - 1)
		wl_fail("readlink /proc/self/exe: path too long");
	self_path[n] = '\0';

	wl_on_die = parent_on_die;
	run_jobs(njobs);

	/* Every job must have left its output; remove them all. */
	for (j = 0; j < njobs; j++) {
		output_path(path, getpid(), j);
		if (unlink(path) < 0)
			wl_die("unlink job output (job did not write it?)");
	}
	wl_on_die = NULL;
	return 0;
}
