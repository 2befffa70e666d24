/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * truthpool - a known-answer thread-pool server daemon: an acceptor/IO
 * thread with an epoll loop hands each request to N worker threads through
 * a queue (a mutex and a condition variable); the workers do CPU work, then
 * contend for one mutex around a synchronous disk write, and reply. Measured
 * by the program itself (see truth.h and README.md, "Ground truth side
 * files"). The sibling of truthserve (one thread); same client, truthclient,
 * same protocol.
 *
 * What it does:
 *   One process (comm "truthpool"). It listens on TCP 127.0.0.1:<ephemeral
 *   port> and, once listening, publishes the port as "PORT\n" in PORTFILE
 *   (written to PORTFILE.tmp.<pid> and renamed, so a reader never sees a
 *   partial file). Each request is 64 bytes: a request number (uint64_t,
 *   host byte order), the client's send time and 48 bytes of 0x5a (daemon.h);
 *   the reply is the request number,
 *   a check value, 'P' 'C' 'W' marks (as truthserve's).
 *   Threads:
 *     tpool-io   (pool_io_loop()) blocks only in epoll_wait() on the
 *                listening socket, a signalfd and the client sockets (all
 *                non-blocking, EPOLLONESHOT). pool_accept() accepts;
 *                pool_readable() does one recv() per readiness event and,
 *                when a request is complete, pool_push() appends the
 *                connection to the queue (queue_lock + queue_cond) and
 *                signals one worker. The connection is not read again
 *                until its reply has been sent (one request at a time per
 *                client, like truthserve).
 *     tpool-wN   (N = 0..WORKERS-1, default 2; pool_worker()) pool_take():
 *                wait on queue_cond while the queue is empty, pop the
 *                oldest request; then pool_request():
 *                  pool_parse()    ~30 µs of CPU, checks the request
 *                  pool_compute()  ~200 µs of CPU, the check value
 *                  pthread_mutex_lock(store_lock)   (the workers contend)
 *                  pool_store()    ~50 µs of CPU, then pwrite 4 KiB at
 *                                  offset 0 of the shared data file and
 *                                  fdatasync()
 *                  pthread_mutex_unlock(store_lock)
 *                  pool_reply()    send the reply from the worker; if the
 *                                  socket buffer is full, tpool-io sends
 *                                  the rest on EPOLLOUT
 *                then the connection is armed for reading again.
 *     truthpool  (the main thread) starts the others, then waits in
 *                pthread_join() until they stop; it writes the server's
 *                lines.
 *   A client that closes (or resets) its connection is dropped; the server
 *   goes on. The data file is
 *   "$RSP_WL_DIR|$TMPDIR|/tmp/rsp-truthpool.<pid>.dat".
 *
 *   It runs until SIGTERM or SIGINT (blocked in every thread, and read from
 *   a signalfd in tpool-io's epoll set, so no signal is lost between two
 *   epoll_wait()s), or until a client sends the stop request (request
 *   number UINT64_MAX: answered by tpool-io with the same 64 bytes, no work,
 *   not queued, not counted; then the server stops). Stopping: tpool-io
 *   leaves its loop and tells the workers; each finishes the request it is
 *   on (requests still queued are dropped, not counted); the main thread
 *   joins them, closes every connection, removes its data file and
 *   PORTFILE, writes its side-file lines and exits 0. Fail-safe:
 *   alarm(120). SIGALRM and SIGHUP (killed by the signal) and a failed
 *   system call (exit 1) are failures: the data file and PORTFILE are
 *   removed and no line of the main thread is written. A client that is
 *   still connected when the server stops sees its connection closed (or
 *   reset, when its request was still unread).
 *
 *   usage: truthpool PORTFILE [WORKERS]   (default 2, 1..16)
 *
 * Ground truth ($RSP_TRUTH set), written at the end (README.md,
 * "truthpool"), in this order:
 *   one line per thread, as it stops (so their order varies):
 *     role "io" comm tpool-io: no functions; waits idle (each epoll_wait()
 *       of pool_io_loop(); count = calls, including those that returned at
 *       once);
 *     role "worker" comm tpool-wN: functions pool_parse, pool_compute,
 *       pool_store (its arithmetic only, timed inside it: the CPU of its
 *       pwrite() and fdatasync() is in no function); waits fsync (each
 *       fdatasync()), lock (each wait to acquire store_lock:
 *       CLOCK_MONOTONIC just before and just after pthread_mutex_lock(),
 *       count = requests the worker did, uncontended ones included),
 *       queue (per request the worker popped: from when tpool-io linked
 *       it into the queue to when the worker unlinked it,
 *       both under queue_lock), idle (each time the worker found the queue
 *       empty: from then until it held a request or was told to stop, its
 *       pthread_cond_wait()s and the mutex re-acquisitions included);
 *   a stats line {"stats":"to_send", ...}: the same requests to just
 *     before the send() that completed the reply began (key "to_send_ns";
 *     as truthserve's: the service time less that send(), the reply's
 *     delivery and any preemption on the way back from it);
 *   a stats line {"stats":"from_recv", ...}: the same requests from just
 *     before the recv() that completed the request began (key
 *     "from_recv_ns"; as truthserve's);
 *   a stats line {"stats":"service", ...} (README.md, "Stats lines"):
 *     requests served and the distribution of their service time
 *     (CLOCK_MONOTONIC from just after the recv() that completed the
 *     request to just after the send() that completed the reply: the time
 *     in the queue, pool_parse() and pool_compute(), the wait for
 *     store_lock, pool_store() with its fdatasync() and the reply),
 *     count, sum, mean, min, p50, p90, p99, max in ns, plus
 *     "connections" and "workers";
 *   per client port, a line {"stats":"queued","peer_port":P,"requests":N,
 *     "waited_ns":W,"queued_ns":Q} (as truthserve's): W sums, over that
 *     connection's requests, (1) the time from the client's send (its
 *     clock, in the request) to a worker's taking the request from the
 *     queue and (2) the worker's wait for store_lock; Q the parts of them
 *     behind other connections: of (1), while the worker that took it was
 *     serving another connection's request (from its taking to its reply's
 *     send() returned); of (2), while store_lock was held for another
 *     connection's request (its acquisition to just before its release).
 *     N: requests that got store_lock;
 *   role "server" comm truthpool (the main thread's tid), last: the
 *     process as a whole: functions pool_parse, pool_compute, pool_store
 *     summed over the workers; waits fsync, lock, queue, idle summed over
 *     the workers (tpool-io's epoll_wait()s are not in it); cpu_ns is
 *     CLOCK_PROCESS_CPUTIME_ID (all threads), wall from main()'s start.
 *   The server line and the worker lines count the same work twice: compare
 *   per thread with the worker lines, or per process with the server line.
 *
 * Processes / threads: truthpool (main thread, in pthread_join()),
 *   tpool-io (the event loop), tpool-w0 .. tpool-w<N-1> (the workers).
 *
 * Functions that appear in stacks (built with frame pointers):
 *   tpool-io: pool_io_loop(), pool_accept(), pool_readable(), pool_push(),
 *     pool_reply() (stop request, EPOLLOUT);
 *   tpool-wN: pool_worker(), pool_take(), pool_request(), pool_parse(),
 *     pool_compute(), pool_store(), pool_reply().
 *   CPU leaves: pool_parse, pool_compute, pool_store. Sleeps:
 *   pool_io_loop() -> epoll_wait() (idle); pool_take() ->
 *   pthread_cond_wait() (futex: no request queued); pool_request() ->
 *   pthread_mutex_lock(store_lock) (futex: another worker is in
 *   pool_store()); pool_store() -> fdatasync() (disk).
 *
 * Expected explanation shape (target: a truthclient, the server running):
 *   Each of the client's requests is a sleep in recv() explained by the
 *   server: tpool-io's recv() and pool_push() wake a worker (its futex
 *   sleep in pool_take() ends), which runs pool_parse() + pool_compute()
 *   (~0.23 ms of CPU), may sleep on store_lock while the other worker is in
 *   pool_store() (its fdatasync(), disk), then runs pool_store() and its
 *   own fdatasync() (disk) and sends the reply. With one client the queue
 *   is mostly empty and store_lock uncontended (one request in flight);
 *   with two, two requests are in flight and the workers overlap their CPU
 *   but serialize on store_lock: when they collide, a request's lock wait
 *   is the other's pool_store() + fdatasync().
 *   Measured (2 vCPU EPYC VM, ext4 on virtio, load average 0.2-2 from
 *   other work; 3 runs of each; the commands and the whole table: README.md,
 *   "truthpool"), per call: pool_parse() 30-31 µs, pool_compute() 198-212
 *   µs, pool_store() 49-50 µs of CPU, fdatasync() 108-118 µs.
 *     one truthclient of 300 requests: service time mean 425-434 µs, client
 *     latency 435-450 µs; store_lock never contended (0 µs), queue wait
 *     17-25 µs; server CPU 107-108 ms over a 183-187 ms wall.
 *     two truthclients of 300 at once: service time 465-501 µs, latency
 *     480-520 µs (truthserve in the same minutes: 648-671 µs, each client
 *     waiting for the other's requests); store_lock waits 18-27 µs mean
 *     (10.8-16.4 ms over 600: the two requests mostly drift apart), queue
 *     9-12 µs; CPU 218-222 ms over a 196-208 ms wall (the two workers in
 *     parallel). Four clients: the queue (2 workers: 473 µs per request)
 *     or, with 4 workers, store_lock (489 µs) dominates the wait.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#define WL_NAME "truthpool"
#include "wl.h"
#include "truth.h"
#include "daemon.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#define BLOCK_SIZE 4096
#define PARSE_ITERS (30UL * WL_ITERS_PER_US)
#define COMPUTE_ITERS (200UL * WL_ITERS_PER_US)
#define STORE_ITERS (50UL * WL_ITERS_PER_US)
#define MAX_EVENTS 64
#define FAILSAFE_S 120
#define DEFAULT_WORKERS 2
#define MAX_WORKERS 16

static const char usage[] =
	"usage: truthpool PORTFILE [WORKERS]\n"
	"  Thread-pool server on TCP 127.0.0.1:<ephemeral port>; the port is\n"
	"  written as \"PORT\\n\" to PORTFILE (atomically) once it listens.\n"
	"  Thread tpool-io (epoll) queues each 64-byte request for WORKERS\n"
	"  (default 2, 1..16) threads tpool-wN: pool_parse (~30 us CPU),\n"
	"  pool_compute (~200 us CPU), then under a shared mutex pool_store\n"
	"  (~50 us CPU, pwrite 4 KiB + fdatasync), 64-byte reply. Clients:\n"
	"  truthclient.\n"
	"  Runs until SIGTERM/SIGINT or a stop request (request number\n"
	"  UINT64_MAX; truthclient --stop), then removes its data file and\n"
	"  PORTFILE and exits 0; gives up after 120 s (SIGALRM).\n"
	"  With RSP_TRUTH=FILE it appends a line per thread, a stats line\n"
	"  (requests served, service time distribution) and the server's\n"
	"  truth line to FILE at exit.\n"
	"  The data file lives in $RSP_WL_DIR, else $TMPDIR, else /tmp.\n";

/*
 * One client connection (epoll data.ptr). Owned by one thread at a time:
 * tpool-io while it is armed in epoll (EPOLLONESHOT), the queue once pushed,
 * then the worker that popped it until it re-arms it (its last access).
 */
struct conn {
	int fd;
	int stop_after;		/* the reply is to the stop request */
	size_t in_len;		/* bytes of the current request received */
	size_t out_len, out_off;
	uint64_t recv_done_ns;	/* CLOCK_MONOTONIC when the request was complete */
	uint64_t recv_begin_ns;	/* ... before the recv() that completed it began */
	uint64_t send_begin_ns;	/* ... before the reply's last send() began */
	uint64_t queued_ns;	/* CLOCK_MONOTONIC when it was queued */
	uint64_t sent_ns;	/* the client's CLOCK_MONOTONIC at its send */
	uint64_t popped_ns;	/* CLOCK_MONOTONIC when a worker unlinked it */
	unsigned port;		/* the client's port */
	atomic_uint handoff;	/* a worker's release before it arms c */
	struct conn *qnext;	/* the queue (queue_lock) */
	struct conn *prev, *next; /* all connections (conns_lock) */
	unsigned char in[MSG_SIZE];
	unsigned char out[MSG_SIZE];
};

/*
 * Queueing behind other connections (README.md, "truthpool"): a span of time
 * a thread served a request of the client on @port (a worker: from taking the
 * request to its reply sent) or held store_lock for it.
 */
#define QWIN 64
#define QPORTS 64
struct qwin {
	uint64_t s, e;
	unsigned port;
};
struct qport {
	unsigned port;
	uint64_t requests, waited_ns, queued_ns;
};

/* A thread's own measurements: written by it alone, read after the join. */
struct pool_thread {
	pthread_t id;
	int index;		/* worker number; -1 for tpool-io */
	struct truth tr;
	struct daemon_times service; /* one per reply this thread completed */
	struct daemon_times to_send; /* the same, to the start of the reply's last send() */
	struct daemon_times from_recv; /* from the start of the recv() that completed it */
	uint64_t replied_ns;	/* when its last complete reply's send() returned */
	struct qwin served[QWIN]; /* the last QWIN requests it served */
	size_t n_served;
	struct qport qport[QPORTS]; /* per client port, the requests it took */
	size_t n_qport;
};

static uint64_t accepted;	   /* connections accepted (tpool-io) */
static int nworkers = DEFAULT_WORKERS;
static struct pool_thread io_thread, workers[MAX_WORKERS];

static pthread_mutex_t conns_lock = PTHREAD_MUTEX_INITIALIZER;
static struct conn *conns;	   /* all open connections */

static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t queue_cond = PTHREAD_COND_INITIALIZER;
static struct conn *queue_head, *queue_tail;
static int queue_stop;		   /* the workers must stop */

static pthread_mutex_t store_lock = PTHREAD_MUTEX_INITIALIZER;
/* the last QWIN holds of store_lock (written and read under it) */
static struct qwin holds[QWIN];
static size_t n_holds;

enum { FN_PARSE, FN_COMPUTE, FN_STORE };

void pool_parse(const unsigned char *req);
void pool_compute(uint64_t reqno, unsigned char *reply);
void pool_store(struct pool_thread *me, uint64_t reqno);
int pool_reply(struct pool_thread *me, struct conn *c);
void pool_request(struct pool_thread *me, struct conn *c);
struct conn *pool_take(struct pool_thread *me);
void *pool_worker(void *arg);
void pool_push(struct conn *c);
int pool_readable(struct conn *c);
void pool_accept(void);
void pool_io_loop(void);
void *pool_io(void *arg);





static void lock(pthread_mutex_t *m)
{
	int err = pthread_mutex_lock(m);

	if (err) {
		errno = err;
		wl_die("pthread_mutex_lock");
	}
}

static void unlock(pthread_mutex_t *m)
{
	int err = pthread_mutex_unlock(m);

	if (err) {
		errno = err;
		wl_die("pthread_mutex_unlock");
	}
}


/*
 * Before a worker arms c in epoll (hands it to tpool-io): its writes to c
 * happen before tpool-io's reads after the event (conn_acquire()). The
 * epoll_ctl()/epoll_wait() pair orders them in practice; the atomic says so
 * to the compiler and to ThreadSanitizer.
 */
static void conn_release(struct conn *c)
{
	atomic_fetch_add_explicit(&c->handoff, 1, memory_order_release);
}

static void conn_acquire(struct conn *c)
{
	(void)atomic_load_explicit(&c->handoff, memory_order_acquire);
}

/* Hand c back to tpool-io: read its next request. Last access to c. */
static void conn_arm_read(struct conn *c)
{
	int fd = c->fd;

	conn_release(c);
	epoll_set(fd, EPOLLIN | EPOLLONESHOT, c, EPOLL_CTL_MOD,
		  "epoll_ctl(MOD, EPOLLIN)");
}

/* Close c (by the thread that owns it). */
static void conn_close(struct conn *c)
{
	/* close() also removes the fd from the epoll set */
	close(c->fd);
	lock(&conns_lock);
	if (c->prev)
		c->prev->next = c->next;
	else
		conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	unlock(&conns_lock);
	free(c);
}

/* The part of [@s, @e] inside those of the last QWIN spans @w of other ports than @port. */
static uint64_t overlap_others(const struct qwin *w, size_t n, unsigned port, uint64_t s,
			       uint64_t e)
{
	uint64_t q = 0;

	for (size_t i = 0; i < n && i < QWIN; i++) {
		uint64_t a = w[i].s > s ? w[i].s : s, b = w[i].e < e ? w[i].e : e;

		if (w[i].port != port && b > a)
			q += b - a;
	}
	return q;
}

static void qwin_add(struct qwin *w, size_t *n, uint64_t s, uint64_t e, unsigned port)
{
	w[*n % QWIN] = (struct qwin){ s, e, port };
	(*n)++;
}

/* One request of @port waited @waited ns, @queued of them behind other connections. */
static void qport_add(struct qport *t, size_t *n, unsigned port, uint64_t waited,
		      uint64_t queued)
{
	size_t i;

	for (i = 0; i < *n && t[i].port != port; i++)
		;
	if (i == *n) {
		if (*n == QPORTS)
			return;
		t[(*n)++].port = port;
	}
	t[i].requests++;
	t[i].waited_ns += waited;
	t[i].queued_ns += queued;
}

static void sum_add(struct truth_sum *to, const struct truth_sum *s)
{
	to->ns += s->ns;
	to->count += s->count;
}

/* ---- the workers -------------------------------------------------------- */

WL_STACK_FN void pool_parse(const unsigned char *req)
{
	wl_burn(PARSE_ITERS);
	daemon_check_request(req);
}

WL_STACK_FN void pool_compute(uint64_t reqno, unsigned char *reply)
{
	wl_burn(COMPUTE_ITERS);
	daemon_fill_reply(reqno, reply);
}

/*
 * Called with store_lock held. Its CPU is timed around its arithmetic
 * only: the system calls' CPU would be in other leaves of its samples
 * (pwrite64, fdatasync), so it is in no named function, as in truthserve.
 */
WL_STACK_FN void pool_store(struct pool_thread *me, uint64_t reqno)
{
	unsigned char block[BLOCK_SIZE];
	uint64_t t0;
	ssize_t n;

	t0 = truth_cpu();
	wl_burn(STORE_ITERS);
	truth_cpu_end(&me->tr, FN_STORE, t0);
	memset(block, (int)(reqno & 0xff), sizeof(block));
	n = pwrite(data_fd, block, sizeof(block), 0);
	if (n < 0)
		wl_die("pwrite data file");
	if (n != (ssize_t)sizeof(block))
		wl_fail("short pwrite on data file");
	t0 = truth_mono();
	if (fdatasync(data_fd) < 0)
		wl_die("fdatasync data file");
	truth_wait_end(&me->tr, TRUTH_FSYNC, t0);
}

/*
 * Send what is left of c's reply (a worker, or tpool-io on EPOLLOUT).
 * Returns 1 when it is all sent (c is then handed back to tpool-io for
 * reading, unless it answered the stop request: the caller must not touch
 * it otherwise), 0 when the socket buffer is full (EPOLLOUT is armed:
 * tpool-io sends the rest), -1 when the client is gone (the caller closes
 * the connection).
 */
WL_STACK_FN int pool_reply(struct pool_thread *me, struct conn *c)
{
	ssize_t n;

	while (c->out_off < c->out_len) {
		c->send_begin_ns = truth_mono();
		n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
			 MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				int fd = c->fd;

				conn_release(c);
				epoll_set(fd, EPOLLOUT | EPOLLONESHOT, c,
					  EPOLL_CTL_MOD,
					  "epoll_ctl(MOD, EPOLLOUT)");
				return 0;
			}
			if (errno == EPIPE || errno == ECONNRESET)
				return -1;
			wl_die("send reply");
		}
		c->out_off += (size_t)n;
	}
	me->replied_ns = truth_mono();
	if (c->stop_after)
		return 1;
	daemon_times_add(&me->service, me->replied_ns - c->recv_done_ns);
	daemon_times_add(&me->to_send, c->send_begin_ns - c->recv_done_ns);
	daemon_times_add(&me->from_recv, me->replied_ns - c->recv_begin_ns);
	conn_arm_read(c);
	return 1;
}

/* A request from the queue: the work, then the reply. */
WL_STACK_FN void pool_request(struct pool_thread *me, struct conn *c)
{
	uint64_t reqno = get_u64(c->in), t0, t1, popped = c->popped_ns, sent = c->sent_ns;
	uint64_t waited, queued;
	unsigned port = c->port;
	int r;

	/* its wait until a worker took it, the part while this one served others */
	waited = popped > sent ? popped - sent : 0;
	queued = overlap_others(me->served, me->n_served, port, sent, popped);
	c->out_off = 0;
	c->out_len = MSG_SIZE;
	memset(c->out, 0, MSG_SIZE);
	t0 = truth_cpu();
	pool_parse(c->in);
	truth_cpu_end(&me->tr, FN_PARSE, t0);
	t0 = truth_cpu();
	pool_compute(reqno, c->out);
	truth_cpu_end(&me->tr, FN_COMPUTE, t0);

	t0 = truth_mono();
	lock(&store_lock);
	t1 = truth_mono();
	truth_wait_add(&me->tr, TRUTH_LOCK, t1 - t0);
	/* its wait for store_lock, the part while others' requests held it */
	waited += t1 - t0;
	queued += overlap_others(holds, n_holds, port, t0, t1);
	pool_store(me, reqno);
	qwin_add(holds, &n_holds, t1, truth_mono(), port);
	unlock(&store_lock);
	qport_add(me->qport, &me->n_qport, port, waited, queued);

	c->out[18] = 'W';
	r = pool_reply(me, c);
	if (r < 0)
		conn_close(c);
	/* what it served: from its taking to the reply's send() returned (or to
	 * its hand-over to tpool-io, or to the client found gone) */
	qwin_add(me->served, &me->n_served, popped, r > 0 ? me->replied_ns : truth_mono(), port);
	WL_NO_TAILCALL();
}

/* The oldest queued request, waiting for one; NULL: stop. */
WL_STACK_FN struct conn *pool_take(struct pool_thread *me)
{
	struct conn *c;
	uint64_t t0;
	int err;

	lock(&queue_lock);
	if (!queue_head && !queue_stop) {
		t0 = truth_mono();
		while (!queue_head && !queue_stop) {
			err = pthread_cond_wait(&queue_cond, &queue_lock);
			if (err) {
				errno = err;
				wl_die("pthread_cond_wait");
			}
		}
		truth_wait_end(&me->tr, TRUTH_IDLE, t0);
	}
	if (queue_stop) {
		unlock(&queue_lock);
		return NULL;
	}
	c = queue_head;
	queue_head = c->qnext;
	if (!queue_head)
		queue_tail = NULL;
	c->qnext = NULL;
	c->popped_ns = truth_mono();
	truth_wait_add(&me->tr, TRUTH_QUEUE, c->popped_ns - c->queued_ns);
	unlock(&queue_lock);
	return c;
}

WL_STACK_FN void *pool_worker(void *arg)
{
	struct pool_thread *me = arg;
	char name[16];
	struct conn *c;

	snprintf(name, sizeof(name), "tpool-w%d", me->index);
	if (pthread_setname_np(pthread_self(), name))
		wl_fail("pthread_setname_np(%s) failed", name);
	truth_begin(&me->tr, "worker");
	truth_fn(&me->tr, "pool_parse");
	truth_fn(&me->tr, "pool_compute");
	truth_fn(&me->tr, "pool_store");
	truth_measures(&me->tr, TRUTH_FSYNC);
	truth_measures(&me->tr, TRUTH_IDLE);
	truth_measures(&me->tr, TRUTH_LOCK);
	truth_measures(&me->tr, TRUTH_QUEUE);

	while ((c = pool_take(me)))
		pool_request(me, c);

	truth_finish(&me->tr);
	return NULL;
}

/* ---- tpool-io ----------------------------------------------------------- */

/* c holds a complete request: queue it for a worker. */
WL_STACK_FN void pool_push(struct conn *c)
{
	lock(&queue_lock);
	c->qnext = NULL;
	c->queued_ns = truth_mono();
	if (queue_tail)
		queue_tail->qnext = c;
	else
		queue_head = c;
	queue_tail = c;
	pthread_cond_signal(&queue_cond);
	unlock(&queue_lock);
}

/*
 * EPOLLIN on a client: one recv(), a request queued when it completes one.
 * Returns 1 when c holds the stop request (its reply is ready to send; c is
 * still tpool-io's), else 0 (c was re-armed, queued or closed: hands off).
 */
WL_STACK_FN int pool_readable(struct conn *c)
{
	uint64_t before = truth_mono();
	ssize_t n;

	do
		n = recv(c->fd, c->in + c->in_len, MSG_SIZE - c->in_len, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK) {
			conn_arm_read(c);
			return 0;
		}
		if (errno == ECONNRESET) {
			conn_close(c);
			return 0;
		}
		wl_die("recv request");
	}
	if (n == 0) {
		/* the client closed (mid-request or not): drop it */
		conn_close(c);
		return 0;
	}
	c->in_len += (size_t)n;
	if (c->in_len < MSG_SIZE) {
		conn_arm_read(c);
		return 0;
	}
	c->recv_done_ns = truth_mono();
	c->recv_begin_ns = before;
	c->sent_ns = get_u64(c->in + 8);
	c->in_len = 0;
	if (get_u64(c->in) == STOP_REQUEST) {
		/* answered here, no work; pool_io_loop() stops once it is sent */
		memcpy(c->out, c->in, MSG_SIZE);
		c->out_off = 0;
		c->out_len = MSG_SIZE;
		c->stop_after = 1;
		return 1;
	}
	pool_push(c);
	return 0;
}

/* EPOLLIN on the listening socket: accept everyone waiting. */
WL_STACK_FN void pool_accept(void)
{
	struct conn *c;
	int fd;

	while ((fd = daemon_accept()) >= 0) {
		c = calloc(1, sizeof(*c));
		if (!c)
			wl_fail("out of memory (connection)");
		c->fd = fd;
		{
			struct sockaddr_in peer;
			socklen_t len = sizeof(peer);

			if (getpeername(fd, (struct sockaddr *)&peer, &len) == 0)
				c->port = ntohs(peer.sin_port);
		}
		lock(&conns_lock);
		c->next = conns;
		if (conns)
			conns->prev = c;
		conns = c;
		unlock(&conns_lock);
		accepted++;
		epoll_set(fd, EPOLLIN | EPOLLONESHOT, c, EPOLL_CTL_ADD,
			  "epoll_ctl(ADD, client)");
	}
}

WL_STACK_FN void pool_io_loop(void)
{
	struct pool_thread *me = &io_thread;
	struct epoll_event ev[MAX_EVENTS];
	struct conn *c;
	int n, i, r, stopping = 0;
	uint64_t t0;

	while (!stopping) {
		t0 = truth_mono();
		n = epoll_wait(epfd, ev, MAX_EVENTS, -1);
		truth_wait_end(&me->tr, TRUTH_IDLE, t0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			wl_die("epoll_wait");
		}
		for (i = 0; i < n && !stopping; i++) {
			if (ev[i].data.ptr == &signal_tag) {
				daemon_read_signal();
				stopping = 1;
				continue;
			}
			if (ev[i].data.ptr == &listen_tag) {
				pool_accept();
				continue;
			}
			c = ev[i].data.ptr;
			conn_acquire(c);
			if (c->out_off < c->out_len) {
				/* EPOLLOUT (or an error: send sees it) */
				r = pool_reply(me, c);
			} else {
				if (!pool_readable(c))
					continue; /* queued, re-armed or closed */
				r = pool_reply(me, c);
			}
			if (r < 0)
				conn_close(c);
			else if (r > 0 && c->stop_after)
				stopping = 1;
		}
	}
}

WL_STACK_FN void *pool_io(void *arg)
{
	struct pool_thread *me = arg;

	if (pthread_setname_np(pthread_self(), "tpool-io"))
		wl_fail("pthread_setname_np(tpool-io) failed");
	truth_begin(&me->tr, "io");
	truth_measures(&me->tr, TRUTH_IDLE);

	pool_io_loop();

	lock(&queue_lock);
	queue_stop = 1;
	pthread_cond_broadcast(&queue_cond);
	unlock(&queue_lock);
	truth_finish(&me->tr);
	return NULL;
}

/* ---- setup and exit --------------------------------------------------- */


static void start_thread(struct pool_thread *t, void *(*fn)(void *))
{
	int err = pthread_create(&t->id, NULL, fn, t);

	if (err) {
		errno = err;
		wl_die("pthread_create");
	}
}

static void join_thread(struct pool_thread *t)
{
	int err = pthread_join(t->id, NULL);

	if (err) {
		errno = err;
		wl_die("pthread_join");
	}
}

/* Per client port, the workers' sums: a "queued" line each (README.md, "truthpool"). */
static void queue_lines(void)
{
	struct qport all[QPORTS];
	size_t n = 0;

	if (truth_fd < 0)
		return;
	for (int w = 0; w < nworkers; w++)
		for (size_t i = 0; i < workers[w].n_qport; i++) {
			const struct qport *p = &workers[w].qport[i];
			size_t j;

			for (j = 0; j < n && all[j].port != p->port; j++)
				;
			if (j == n) {
				if (n == QPORTS)
					continue;
				all[n++] = (struct qport){ .port = p->port };
			}
			all[j].requests += p->requests;
			all[j].waited_ns += p->waited_ns;
			all[j].queued_ns += p->queued_ns;
		}
	for (size_t i = 0; i < n; i++)
		truth_queued_line(all[i].port, all[i].requests, all[i].waited_ns, all[i].queued_ns);
}

/* The stats line (README.md, "Stats lines"), then the queued lines and the server's line. */
static void write_server_lines(struct truth *srv)
{
	struct daemon_times all = { 0 }, to_send = { 0 }, from_recv = { 0 };
	char extra[96];
	unsigned int f, k;
	int i;

	for (size_t j = 0; j < io_thread.service.n; j++)
		daemon_times_add(&all, io_thread.service.v[j]);
	for (size_t j = 0; j < io_thread.to_send.n; j++)
		daemon_times_add(&to_send, io_thread.to_send.v[j]);
	for (size_t j = 0; j < io_thread.from_recv.n; j++)
		daemon_times_add(&from_recv, io_thread.from_recv.v[j]);
	for (i = 0; i < nworkers; i++) {
		struct pool_thread *w = &workers[i];

		for (size_t j = 0; j < w->service.n; j++)
			daemon_times_add(&all, w->service.v[j]);
		for (size_t j = 0; j < w->to_send.n; j++)
			daemon_times_add(&to_send, w->to_send.v[j]);
		for (size_t j = 0; j < w->from_recv.n; j++)
			daemon_times_add(&from_recv, w->from_recv.v[j]);
		for (f = 0; f < srv->nfn; f++) {
			srv->fn[f].ns += w->tr.fn[f].ns;
			srv->fn[f].count += w->tr.fn[f].count;
		}
		for (k = 0; k < TRUTH_NWAITS; k++)
			sum_add(&srv->wait[k], &w->tr.wait[k]);
	}
	snprintf(extra, sizeof(extra),
		 "\"connections\":%" PRIu64 ",\"workers\":%d,", accepted,
		 nworkers);
	truth_stats("server", "to_send", "to_send_ns", to_send.v, to_send.n, extra);
	truth_stats("server", "from_recv", "from_recv_ns", from_recv.v, from_recv.n, extra);
	truth_stats("server", "service", "service_ns", all.v, all.n, extra);
	queue_lines();
	truth_finish_cpu(srv, truth_clock(CLOCK_PROCESS_CPUTIME_ID,
					  "clock_gettime(CLOCK_PROCESS_CPUTIME_ID)"));
	free(all.v);
	free(to_send.v);
	free(from_recv.v);
}

static int parse_workers(const char *arg)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (arg[0] < '0' || arg[0] > '9' || *end != '\0' || errno != 0 ||
	    v < 1 || v > MAX_WORKERS) {
		fprintf(stderr, "%s: bad argument '%s' (want 1..%d)\n",
			WL_NAME, arg, MAX_WORKERS);
		fputs(usage, stderr);
		exit(2);
	}
	return (int)v;
}

int main(int argc, char **argv)
{
	struct truth srv;
	uint16_t port;
	int i;

	wl_catch_signals();
	alarm(FAILSAFE_S);
	if (argc >= 2 && (strcmp(argv[1], "-h") == 0 ||
			  strcmp(argv[1], "--help") == 0)) {
		fputs(usage, stdout);
		return 0;
	}
	if (argc < 2 || argc > 3 || argv[1][0] == '\0' ||
	    argv[1][0] == '-') {
		fputs(usage, stderr);
		return 2;
	}
	if (argc == 3)
		nworkers = parse_workers(argv[2]);
	if (prctl(PR_SET_NAME, "truthpool", 0, 0, 0) < 0)
		wl_die("prctl(PR_SET_NAME)");
	truth_open();
	truth_begin(&srv, "server");
	truth_fn(&srv, "pool_parse");
	truth_fn(&srv, "pool_compute");
	truth_fn(&srv, "pool_store");
	truth_measures(&srv, TRUTH_FSYNC);
	truth_measures(&srv, TRUTH_IDLE);
	truth_measures(&srv, TRUTH_LOCK);
	truth_measures(&srv, TRUTH_QUEUE);

	port = daemon_open("truthpool", argv[1]);

	for (i = 0; i < nworkers; i++) {
		workers[i].index = i;
		start_thread(&workers[i], pool_worker);
	}
	io_thread.index = -1;
	start_thread(&io_thread, pool_io);
	daemon_publish(port);

	join_thread(&io_thread);
	for (i = 0; i < nworkers; i++)
		join_thread(&workers[i]);

	while (conns)
		conn_close(conns);
	daemon_close();
	write_server_lines(&srv);
	free(io_thread.service.v);
	free(io_thread.to_send.v);
	free(io_thread.from_recv.v);
	for (i = 0; i < nworkers; i++) {
		free(workers[i].service.v);
		free(workers[i].to_send.v);
		free(workers[i].from_recv.v);
	}
	return 0;
}
