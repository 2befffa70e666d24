/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * truthfsyncd - a known-answer daemon whose main thread waits on its own
 * fsync thread (redis's AOF, a database's WAL writer), measured by the
 * program itself (see truth.h and README.md, "Ground truth side files").
 *
 * What it does:
 *   One process. Its main thread (comm "truthfsyncd") listens on TCP
 *   127.0.0.1:<ephemeral port>, starts its fsync thread (comm "tfsd-sync")
 *   and publishes the port as "PORT\n" in PORTFILE (written to
 *   PORTFILE.tmp.<pid> and renamed). It serves one connection at a time
 *   (blocking accept() and recv()), truthserve's protocol: its client is
 *   truthclient. For each 64-byte request the main thread:
 *     fsd_parse()      ~40 µs of CPU, checks the request
 *     fsd_handoff()    queues the request for the fsync thread (a mutex and a
 *                      condition variable) and waits on a second condition
 *                      variable until that thread says it is written
 *     replies          64 bytes (the request number, its check value, 'P'
 *                      'C' 'W')
 *   The fsync thread, for each request it is handed:
 *     sync_prepare()   ~150 µs of CPU (the record to write)
 *     sync_write()     pwrite 4 KiB at offset 0 of its data file, then
 *                      fdatasync()
 *   and signals the main thread. A stop request (request number UINT64_MAX,
 *   truthclient --stop) is answered with its own 64 bytes; the main thread
 *   then stops the fsync thread, joins it, removes the data file and
 *   PORTFILE, writes the side-file lines and exits 0. Fail-safe:
 *   alarm(120); a signal or a failed call removes the files, writes no line.
 *   The data file is "$RSP_WL_DIR|$TMPDIR|/tmp/rsp-truthfsyncd.<pid>.dat".
 *
 *   usage: truthfsyncd PORTFILE
 *
 * Ground truth ($RSP_TRUTH set): two lines, the fsync thread's first:
 *   role "sync" comm tfsd-sync: functions sync_prepare; waits fsync (each
 *     fdatasync()), idle (each wait for the next request to write, from the
 *     lock taken to the request in hand)
 *   role "main" comm truthfsyncd: functions fsd_parse; waits call (each wait
 *     for the fsync thread, from the hand-off's signal to its done seen
 *     under the lock), idle (each blocking recv() of the next request)
 *
 * Processes / threads (one process):
 *   truthfsyncd   main thread (the target; the daemon's loop)
 *   tfsd-sync     its fsync thread
 *
 * Functions that appear in stacks (built with frame pointers):
 *   main(), serve(), fsd_parse(), fsd_handoff()               main thread
 *   sync_thread(), sync_prepare(), sync_write()               fsync thread
 *   Sleeps: main() -> accept4() and serve() -> recv() (idle: the next
 *   connection, the next request); fsd_handoff() ->
 *   pthread_cond_wait() (the fsync thread's work); sync_thread() ->
 *   pthread_cond_wait() (idle: nothing to write); sync_write() ->
 *   fdatasync() (disk).
 *
 * Expected explanation shape (target: truthfsyncd, docs/ANALYSIS.md "Waiting
 *   on one's own helper"): the main thread's waits in fsd_handoff() are
 *   calls into the fsync thread's work: its sync_prepare() CPU and its
 *   fdatasync()'s disk, not "waiting on another control path"; its waits in
 *   recv() and the fsync thread's waits for work are idle. Measured on the
 *   reference machine: README.md, "truthfsyncd".
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#define WL_NAME "truthfsyncd"
#include "wl.h"
#include "truth.h"
#include "daemon.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sys/socket.h>

#define PARSE_ITERS (40UL * WL_ITERS_PER_US)
#define PREPARE_ITERS (150UL * WL_ITERS_PER_US)
#define BLOCK_SIZE 4096

static const char usage[] =
	"usage: truthfsyncd PORTFILE\n"
	"  A daemon on TCP 127.0.0.1:<ephemeral port> (written to PORTFILE) whose\n"
	"  main thread hands each request to its fsync thread and waits for it:\n"
	"  the fsync thread's sync_prepare (~150 us CPU), a pwrite of 4 KiB and\n"
	"  fdatasync. Clients: truthclient (truthclient --stop stops it).\n"
	"  With RSP_TRUTH=FILE each thread appends its own measurements (CPU per\n"
	"  function, waits) to FILE at exit.\n";

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work_cv = PTHREAD_COND_INITIALIZER, done_cv = PTHREAD_COND_INITIALIZER;
static int pending, done, stopping;
/* data_fd, data_path: daemon.h's */
static struct truth tr_main, tr_sync;
static int fn_parse, fn_prepare;
static unsigned char block[BLOCK_SIZE];

WL_STACK_FN static void fsd_parse(const unsigned char *req)
{
	uint64_t t0 = truth_cpu();

	wl_burn(PARSE_ITERS);
	daemon_check_request(req);
	truth_cpu_end(&tr_main, fn_parse, t0);
	WL_NO_TAILCALL();
}

WL_STACK_FN static void sync_prepare(void)
{
	uint64_t t0 = truth_cpu();

	wl_burn(PREPARE_ITERS);
	block[0]++;
	truth_cpu_end(&tr_sync, fn_prepare, t0);
	WL_NO_TAILCALL();
}

WL_STACK_FN static void sync_write(void)
{
	uint64_t t0;

	if (pwrite(data_fd, block, sizeof(block), 0) != (ssize_t)sizeof(block))
		wl_die("pwrite");
	t0 = truth_mono();
	if (fdatasync(data_fd) < 0)
		wl_die("fdatasync");
	truth_wait_end(&tr_sync, TRUTH_FSYNC, t0);
	WL_NO_TAILCALL();
}

static void *sync_thread(void *arg)
{
	(void)arg;
	if (prctl(PR_SET_NAME, "tfsd-sync", 0, 0, 0) < 0)
		wl_die("prctl(PR_SET_NAME)");
	truth_begin(&tr_sync, "sync");
	fn_prepare = truth_fn(&tr_sync, "sync_prepare");
	truth_measures(&tr_sync, TRUTH_FSYNC);
	for (;;) {
		uint64_t t0 = truth_mono();

		pthread_mutex_lock(&mu);
		while (!pending && !stopping)
			pthread_cond_wait(&work_cv, &mu);
		if (!pending) {
			pthread_mutex_unlock(&mu);
			break;
		}
		pending = 0;
		pthread_mutex_unlock(&mu);
		truth_wait_end(&tr_sync, TRUTH_IDLE, t0);
		sync_prepare();
		sync_write();
		pthread_mutex_lock(&mu);
		done = 1;
		pthread_cond_signal(&done_cv);
		pthread_mutex_unlock(&mu);
	}
	truth_finish(&tr_sync);
	return NULL;
}

/* The request to the fsync thread, and the wait for it to be written. */
WL_STACK_FN static void fsd_handoff(void)
{
	uint64_t t0;

	pthread_mutex_lock(&mu);
	pending = 1;
	done = 0;
	pthread_cond_signal(&work_cv);
	t0 = truth_mono();
	while (!done)
		pthread_cond_wait(&done_cv, &mu);
	truth_wait_end(&tr_main, TRUTH_CALL, t0);
	pthread_mutex_unlock(&mu);
	WL_NO_TAILCALL();
}

/* One connection served until the client closes it: 1 when it asked to stop. */
WL_STACK_FN static int serve(int fd)
{
	unsigned char req[MSG_SIZE];

	for (;;) {
		uint64_t t0 = truth_mono(), reqno;
		int more = wl_recv_all(fd, req, sizeof(req), "recv");

		truth_wait_end(&tr_main, TRUTH_IDLE, t0);
		if (!more)
			return 0;
		reqno = get_u64(req);
		if (reqno == STOP_REQUEST) {
			wl_send_all(fd, req, sizeof(req), "send");
			return 1;
		}
		fsd_parse(req);
		fsd_handoff();
		daemon_fill_reply(reqno, req);
		req[18] = 'W'; /* written */
		wl_send_all(fd, req, sizeof(req), "send");
	}
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t alen = sizeof(a);
	pthread_t sync;
	int lfd, stop = 0, one = 1;

	if (argc != 2 || argv[1][0] == '-') {
		fputs(usage, argc == 2 && !strcmp(argv[1], "--help") ? stdout : stderr);
		return argc == 2 && !strcmp(argv[1], "--help") ? 0 : 2;
	}
	wl_catch_signals();
	alarm(120);
	truth_open();
	truth_begin(&tr_main, "main");
	fn_parse = truth_fn(&tr_main, "fsd_parse");
	truth_measures(&tr_main, TRUTH_CALL);
	wl_path(port_path, "%s", argv[1]);
	wl_on_die = daemon_on_die;
	wl_path(data_path, "%s/rsp-truthfsyncd.%ld.dat", wl_scratch_dir(), (long)getpid());
	data_fd = open(data_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (data_fd < 0)
		wl_die("create data file");
	data_created = 1;
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(lfd, 8) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&a, &alen) < 0)
		wl_die("listen on 127.0.0.1");
	if (pthread_create(&sync, NULL, sync_thread, NULL))
		wl_fail("pthread_create failed");
	daemon_publish(ntohs(a.sin_port));
	while (!stop) {
		int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			wl_die("accept4");
		}
		if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0)
			wl_die("setsockopt(TCP_NODELAY)");
		stop = serve(fd);
		close(fd);
	}
	close(lfd);
	pthread_mutex_lock(&mu);
	stopping = 1;
	pthread_cond_signal(&work_cv);
	pthread_mutex_unlock(&mu);
	if (pthread_join(sync, NULL))
		wl_fail("pthread_join failed");
	close(data_fd);
	daemon_on_die();
	truth_finish(&tr_main);
	return 0;
}
