/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * truthpipe - a known-answer synchronous pipeline of three processes, each
 * stage doing CPU work of its own and fsync()ing its own file per item,
 * measured by the program itself (see truth.h and README.md, "Ground truth
 * side files").
 *
 * What it does:
 *   The main process is stage 1 (comm "truthpipe", the target). It forks
 *     - stage 3 (comm "tpipe-stage3"), which listens on TCP
 *       127.0.0.1:<ephemeral port> (passed back through a pipe), then
 *     - stage 2 (comm "tpipe-stage2"), which connects to stage 3.
 *   Items flow stage 1 -> pipe -> stage 2 -> TCP -> stage 3, and stage 3
 *   acknowledges each item to stage 1 directly over a back pipe, so the
 *   chain is synchronous (one item in flight). N items (default 40); each:
 *     stage 1: stage1_produce() ~150 µs CPU; stage1_save() pwrite 4 KiB +
 *              fsync() of its file; stage1_submit(): write the item to the
 *              pipe and block until stage 3's ack arrives on the back pipe
 *     stage 2: (blocked reading the pipe) stage2_transform() ~400 µs CPU;
 *              stage2_save() pwrite + fsync(); stage2_forward(): send the
 *              item over TCP (does not wait: stage 2 goes back to reading)
 *     stage 3: (blocked in recv) stage3_commit() ~250 µs CPU;
 *              stage3_save() pwrite + fsync(); stage3_ack(): write the ack
 *   Each stage's file is "$RSP_WL_DIR|$TMPDIR|/tmp/rsp-truthpipe.<stage 1
 *   pid>.stageN.dat", created and removed by that stage (stage 1 creates
 *   its own before the forks). Shutdown: stage 1 closes the pipe ->
 *   stage 2 sees EOF, closes the TCP connection -> stage 3 sees EOF; each
 *   removes its file and exits; stage 1 reaps both.
 *   On failure or SIGALRM/SIGTERM/SIGINT/SIGHUP stage 1 kills and reaps
 *   both children and removes all three files; the children have
 *   PR_SET_PDEATHSIG(SIGTERM) and remove their own file and stage 1's
 *   on it (so even a SIGKILLed stage 1 leaves nothing behind).
 *
 *   usage: truthpipe [ITEMS]     (default 40)
 *
 * Ground truth ($RSP_TRUTH set): three lines, stages 2 and 3 at their exit,
 * stage 1 last (after reaping both):
 *   role "stage2" comm tpipe-stage2: functions stage2_transform; waits
 *     fsync, idle (each blocking read of the next item from the pipe, the
 *     last one returning EOF: count = items + 1)
 *   role "stage3" comm tpipe-stage3: functions stage3_commit; waits fsync,
 *     idle (each blocking recv of the next item, count = items + 1)
 *   role "stage1" comm truthpipe: functions stage1_produce; waits fsync,
 *     call (stage1_submit(): pipe write + blocking read of the ack)
 *
 * Processes / threads:
 *   truthpipe     stage 1 (main process, the target)
 *   tpipe-stage2  stage 2, forked by stage 1
 *   tpipe-stage3  stage 3, forked by stage 1
 *
 * Functions that appear in stacks (built WITHOUT frame pointers,
 * -fomit-frame-pointer; needs DWARF/.eh_frame unwinding):
 *   stage1_main(), stage1_produce(), stage1_save(), stage1_submit()
 *   stage2_main(), stage2_transform(), stage2_save(), stage2_forward()
 *   stage3_main(), stage3_commit(), stage3_save(), stage3_ack()
 *   CPU leaves: stage1_produce, stage2_transform, stage3_commit. Sleeps:
 *   stageN_save() -> fsync(); stage1_submit() -> read(ack pipe);
 *   stage2_main() -> read(pipe) and stage3_main() -> recvfrom() when idle.
 *
 * Expected explanation shape (target: truthpipe):
 *   Stage 1's time is its own CPU and fsync() (disk) plus the
 *   stage1_submit() sleeps, each explained by stage 3's ack, inside which
 *   are stage 2's transform + fsync and stage 3's commit + fsync (two more
 *   disk waits per item). Nothing runs in parallel: the stages' idle time
 *   (waiting for the next item) is not work. Per item ~0.8 ms of CPU in
 *   named functions and three fsync() calls.
 *   Measured on the reference machine (2 vCPU EPYC VM, ext4 on virtio):
 *   default run ~0.1 s wall (/usr/bin/time, 3 runs without RSP_TRUTH:
 *   0.09 0.13 0.09; with it: 0.09 0.10 0.11; load average ~2.6 from other
 *   work; 10 more runs at load ~3: 0.10-0.19 s, 0.3-0.6 s when the VM was
 *   busier). Side file of those runs, per call: stage1_produce 165-172 µs,
 *   stage2_transform 446-527 µs, stage3_commit 277-283 µs; fsync 0.30-0.50
 *   ms in each stage (12-20 ms per stage); stage 1's call waits 60-72 ms
 *   (1.5-1.8 ms per item, ~70 % of its 87-108 ms wall); stages 2 and 3
 *   idle 44-63 ms each. CPU: stage 1 ~18 ms, stage 2 ~25 ms, stage 3
 *   ~17 ms. perf stat: ~59 ms task-clock, ~450 context switches.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#define WL_NAME "truthpipe"
#include "wl.h"
#include "truth.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/wait.h>

#define DEFAULT_ITEMS 40UL
#define MAX_ITEMS 1000000UL
#define MSG_SIZE 64
#define BLOCK_SIZE 4096
#define PRODUCE_ITERS (150UL * WL_ITERS_PER_US)
#define TRANSFORM_ITERS (400UL * WL_ITERS_PER_US)
#define COMMIT_ITERS (250UL * WL_ITERS_PER_US)

static const char usage[] =
	"usage: truthpipe [ITEMS]\n"
	"  Stage 1 (truthpipe) -> pipe -> stage 2 (tpipe-stage2) -> TCP\n"
	"  127.0.0.1 -> stage 3 (tpipe-stage3), which acks to stage 1 over a\n"
	"  back pipe. Per item each stage does CPU work (150, 400, 250 us) and\n"
	"  pwrite + fsync()s its own file. ITEMS defaults to 40 (~0.1 s).\n"
	"  With RSP_TRUTH=FILE each process appends one JSON line of its own\n"
	"  measurements to FILE. The files live in $RSP_WL_DIR, else $TMPDIR,\n"
	"  else /tmp, and are removed at the end.\n";

static char file_path[4][PATH_MAX]; /* [1..3]: each stage's data file */
static pid_t stage1_pid, stage2_pid = -1, stage3_pid = -1;
static int my_stage;
static struct truth tr; /* this process's measurements */
static int fn_work;	/* the stage's one named CPU function */

void stage1_produce(unsigned char *msg, uint32_t seq);
void stage1_save(int fd, const unsigned char *msg);
void stage1_submit(int out_fd, int ack_fd, unsigned char *msg);
void stage1_main(int fd, int out_fd, int ack_fd, unsigned long items);
void stage2_transform(unsigned char *msg);
void stage2_save(int fd, const unsigned char *msg);
void stage2_forward(int sock, const unsigned char *msg);
void stage2_main(int in_fd, uint16_t port);
void stage3_commit(unsigned char *msg);
void stage3_save(int fd, const unsigned char *msg);
void stage3_ack(int ack_fd, const unsigned char *msg);
void stage3_main(int ready_fd, int ack_fd);

/* ---- small helpers (static: they are not meant to show in stacks) ----- */

static void write_all(int fd, const void *buf, size_t len, const char *what)
{
	const char *p = buf;
	ssize_t n;

	while (len > 0) {
		n = write(fd, p, len); /* SIGPIPE is ignored: EPIPE */
		if (n < 0) {
			if (errno == EINTR)
				continue;
			wl_die(what);
		}
		p += n;
		len -= (size_t)n;
	}
}

/* Returns 1 when the full message arrived, 0 on EOF before any byte. */
static int read_all(int fd, void *buf, size_t len, const char *what)
{
	char *p = buf;
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		n = read(fd, p + got, len - got);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			wl_die(what);
		}
		if (n == 0) {
			if (got == 0)
				return 0;
			wl_fail("%s: closed mid-message", what);
		}
		got += (size_t)n;
	}
	return 1;
}

/* read_all() of the next item, timed as an "idle" wait. */
static int read_item(int fd, void *buf, const char *what)
{
	uint64_t t0 = truth_mono();
	int r = read_all(fd, buf, MSG_SIZE, what);

	truth_wait_end(&tr, TRUTH_IDLE, t0);
	return r;
}

static uint32_t get_seq(const unsigned char *msg)
{
	uint32_t seq;

	memcpy(&seq, msg, sizeof(seq));
	return seq;
}

/* Inlined into stageN_save(), so the fsync() stack names the stage. */
static inline __attribute__((always_inline)) void
save_item(int fd, const unsigned char *msg)
{
	static unsigned char block[BLOCK_SIZE];
	uint64_t t0;
	ssize_t n;

	memset(block, (int)(get_seq(msg) & 0xff), sizeof(block));
	n = pwrite(fd, block, sizeof(block), 0);
	if (n < 0)
		wl_die("pwrite data file");
	if (n != (ssize_t)sizeof(block))
		wl_fail("short pwrite on data file");
	t0 = truth_mono();
	if (fsync(fd) < 0)
		wl_die("fsync data file");
	truth_wait_end(&tr, TRUTH_FSYNC, t0);
}

static int create_file(int stage)
{
	int fd = open(file_path[stage], O_WRONLY | O_CREAT | O_TRUNC |
					O_CLOEXEC, 0600);

	if (fd < 0)
		wl_die("create data file");
	return fd;
}

static void remove_file(int stage, int fd)
{
	if (close(fd) < 0)
		wl_die("close data file");
	if (unlink(file_path[stage]) < 0)
		wl_die("unlink data file");
}

/* A child also removes stage 1's file: stage 1 may have been SIGKILLed. */
static void child_on_die(void)
{
	unlink(file_path[my_stage]);
	unlink(file_path[1]);
}

/* Common setup for both children. */
static void become_child(int stage, const char *comm)
{
	my_stage = stage;
	wl_on_die = child_on_die;
	alarm(60); /* not inherited across fork */
	if (prctl(PR_SET_NAME, comm, 0, 0, 0) < 0)
		wl_die("prctl(PR_SET_NAME) in child");
	if (prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0) < 0)
		wl_die("prctl(PR_SET_PDEATHSIG) in child");
	if (getppid() != stage1_pid)
		wl_fail("%s: stage 1 died before the child started", comm);
}

/* ---- stage 3 ---------------------------------------------------------- */

WL_STACK_FN void stage3_commit(unsigned char *msg)
{
	wl_burn(COMMIT_ITERS);
	msg[6] = '3';
}

WL_STACK_FN void stage3_save(int fd, const unsigned char *msg)
{
	save_item(fd, msg);
}

WL_STACK_FN void stage3_ack(int ack_fd, const unsigned char *msg)
{
	write_all(ack_fd, msg, MSG_SIZE, "stage 3: write ack");
}

WL_STACK_FN void stage3_main(int ready_fd, int ack_fd)
{
	unsigned char msg[MSG_SIZE];
	struct sockaddr_in sin;
	socklen_t slen = sizeof(sin);
	int lfd, conn, fd, one = 1;
	uint16_t port;
	uint64_t t0;

	truth_begin(&tr, "stage3");
	fn_work = truth_fn(&tr, "stage3_commit");
	truth_measures(&tr, TRUTH_FSYNC);
	truth_measures(&tr, TRUTH_IDLE);
	fd = create_file(3);

	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0)
		wl_die("stage 3: socket(AF_INET)");
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(lfd, (const struct sockaddr *)&sin, sizeof(sin)) < 0)
		wl_die("stage 3: bind 127.0.0.1:0");
	if (listen(lfd, 1) < 0)
		wl_die("stage 3: listen");
	if (getsockname(lfd, (struct sockaddr *)&sin, &slen) < 0)
		wl_die("stage 3: getsockname");
	port = ntohs(sin.sin_port);
	if (write(ready_fd, &port, sizeof(port)) != (ssize_t)sizeof(port))
		wl_die("stage 3: write port to pipe");
	close(ready_fd);
	do
		conn = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	while (conn < 0 && errno == EINTR);
	if (conn < 0)
		wl_die("stage 3: accept");
	close(lfd);
	if (setsockopt(conn, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0)
		wl_die("stage 3: setsockopt(TCP_NODELAY)");

	while (read_item(conn, msg, "stage 3: recv item")) {
		t0 = truth_cpu();
		stage3_commit(msg);
		truth_cpu_end(&tr, fn_work, t0);
		stage3_save(fd, msg);
		stage3_ack(ack_fd, msg);
	}
	close(conn);
	close(ack_fd);
	remove_file(3, fd);
	wl_on_die = NULL;
	truth_finish(&tr);
}

/* ---- stage 2 ---------------------------------------------------------- */

WL_STACK_FN void stage2_transform(unsigned char *msg)
{
	wl_burn(TRANSFORM_ITERS);
	msg[5] = '2';
}

WL_STACK_FN void stage2_save(int fd, const unsigned char *msg)
{
	save_item(fd, msg);
}

WL_STACK_FN void stage2_forward(int sock, const unsigned char *msg)
{
	write_all(sock, msg, MSG_SIZE, "stage 2: send item");
}

WL_STACK_FN void stage2_main(int in_fd, uint16_t port)
{
	unsigned char msg[MSG_SIZE];
	struct sockaddr_in sin;
	int sock, fd, one = 1;
	uint64_t t0;

	truth_begin(&tr, "stage2");
	fn_work = truth_fn(&tr, "stage2_transform");
	truth_measures(&tr, TRUTH_FSYNC);
	truth_measures(&tr, TRUTH_IDLE);
	fd = create_file(2);

	sock = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (sock < 0)
		wl_die("stage 2: socket(AF_INET)");
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons(port);
	if (connect(sock, (const struct sockaddr *)&sin, sizeof(sin)) < 0)
		wl_die("stage 2: connect to stage 3");
	if (setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0)
		wl_die("stage 2: setsockopt(TCP_NODELAY)");

	while (read_item(in_fd, msg, "stage 2: read item")) {
		t0 = truth_cpu();
		stage2_transform(msg);
		truth_cpu_end(&tr, fn_work, t0);
		stage2_save(fd, msg);
		stage2_forward(sock, msg);
	}
	/* EOF from stage 1: stage 3 sees EOF next. */
	close(sock);
	close(in_fd);
	remove_file(2, fd);
	wl_on_die = NULL;
	truth_finish(&tr);
}

/* ---- stage 1 ---------------------------------------------------------- */

static void stage1_on_die(void)
{
	int s;

	if (stage2_pid > 0)
		kill(stage2_pid, SIGKILL);
	if (stage3_pid > 0)
		kill(stage3_pid, SIGKILL);
	wl_reap(&stage2_pid, "tpipe-stage2", 0);
	wl_reap(&stage3_pid, "tpipe-stage3", 0);
	for (s = 1; s <= 3; s++)
		unlink(file_path[s]);
}

WL_STACK_FN void stage1_produce(unsigned char *msg, uint32_t seq)
{
	wl_burn(PRODUCE_ITERS);
	memset(msg, 0x5a, MSG_SIZE);
	memcpy(msg, &seq, sizeof(seq));
}

WL_STACK_FN void stage1_save(int fd, const unsigned char *msg)
{
	save_item(fd, msg);
}

WL_STACK_FN void stage1_submit(int out_fd, int ack_fd, unsigned char *msg)
{
	uint32_t seq = get_seq(msg);
	uint64_t t0 = truth_mono();

	write_all(out_fd, msg, MSG_SIZE, "stage 1: write item");
	if (!read_all(ack_fd, msg, MSG_SIZE, "stage 1: read ack"))
		wl_fail("stage 1: stage 3 closed the ack pipe");
	truth_wait_end(&tr, TRUTH_CALL, t0);
	if (get_seq(msg) != seq || msg[5] != '2' || msg[6] != '3')
		wl_fail("stage 1: bad ack for item %lu", (unsigned long)seq);
}

WL_STACK_FN void stage1_main(int fd, int out_fd, int ack_fd,
			    unsigned long items)
{
	unsigned char msg[MSG_SIZE];
	unsigned long i;
	uint64_t t0;

	for (i = 0; i < items; i++) {
		t0 = truth_cpu();
		stage1_produce(msg, (uint32_t)i);
		truth_cpu_end(&tr, fn_work, t0);
		stage1_save(fd, msg);
		stage1_submit(out_fd, ack_fd, msg);
	}
	remove_file(1, fd);
}

int main(int argc, char **argv)
{
	unsigned long items;
	int item_pipe[2], ack_pipe[2], ready[2], s, fd1;
	uint16_t port;
	ssize_t n;
	char c;

	wl_catch_signals();
	alarm(60);
	items = wl_parse_count(argc, argv, DEFAULT_ITEMS, MAX_ITEMS, usage);
	if (prctl(PR_SET_NAME, "truthpipe", 0, 0, 0) < 0)
		wl_die("prctl(PR_SET_NAME)");
	if (signal(SIGPIPE, SIG_IGN) == SIG_ERR)
		wl_die("signal(SIGPIPE)");
	truth_open();
	truth_begin(&tr, "stage1");
	fn_work = truth_fn(&tr, "stage1_produce");
	truth_measures(&tr, TRUTH_FSYNC);
	truth_measures(&tr, TRUTH_CALL);

	stage1_pid = getpid();
	for (s = 1; s <= 3; s++)
		wl_path(file_path[s], "%s/rsp-truthpipe.%ld.stage%d.dat",
			wl_scratch_dir(), (long)stage1_pid, s);
	wl_on_die = stage1_on_die;
	/* Created before the forks, so a child can remove it (child_on_die). */
	fd1 = create_file(1);

	if (pipe2(item_pipe, O_CLOEXEC) < 0 || pipe2(ack_pipe, O_CLOEXEC) < 0 ||
	    pipe2(ready, O_CLOEXEC) < 0)
		wl_die("pipe2");

	/* Stage 3 keeps only the ack pipe's write end and its ready pipe. */
	stage3_pid = fork();
	if (stage3_pid < 0)
		wl_die("fork");
	if (stage3_pid == 0) {
		close(item_pipe[0]);
		close(item_pipe[1]);
		close(ack_pipe[0]);
		close(ready[0]);
		close(fd1);
		become_child(3, "tpipe-stage3");
		stage3_main(ready[1], ack_pipe[1]);
		exit(0);
	}
	close(ready[1]);
	close(ack_pipe[1]);
	do
		n = read(ready[0], &port, sizeof(port));
	while (n < 0 && errno == EINTR);
	if (n < 0)
		wl_die("read ready pipe");
	if (n != (ssize_t)sizeof(port))
		wl_fail("tpipe-stage3 failed to start");
	close(ready[0]);

	/* Stage 2 keeps only the item pipe's read end. */
	stage2_pid = fork();
	if (stage2_pid < 0)
		wl_die("fork");
	if (stage2_pid == 0) {
		close(item_pipe[1]);
		close(ack_pipe[0]);
		close(fd1);
		become_child(2, "tpipe-stage2");
		stage2_main(item_pipe[0], port);
		exit(0);
	}
	close(item_pipe[0]);

	stage1_main(fd1, item_pipe[1], ack_pipe[0], items);

	/* EOF down the chain; stage 3 closes the ack pipe when it is done. */
	close(item_pipe[1]);
	do
		n = read(ack_pipe[0], &c, 1);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		wl_die("stage 1: read ack pipe at shutdown");
	if (n > 0)
		wl_fail("stage 1: unexpected ack at shutdown");
	close(ack_pipe[0]);

	wl_reap(&stage2_pid, "tpipe-stage2", 1);
	wl_reap(&stage3_pid, "tpipe-stage3", 1);
	wl_on_die = NULL;
	truth_finish(&tr);
	return 0;
}
