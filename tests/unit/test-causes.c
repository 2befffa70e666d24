/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Latency causes, off-CPU analysis and folded stacks with known answers:
 * the rule engine on frame lists; the shipped rule set on stacks of several
 * kernel generations; the accounting, off-CPU histograms and folded exports
 * on a synthetic perf.data stream whose kernel stacks symbolize through the
 * kallsyms it carries.  argv[1]: data/latency-causes.conf.
 */
#include "rsp-analysis.h"
#include "rsp-causes.h"
#include "rsp-folded.h"
#include "rsp-model.h"
#include "rsp-offcpu.h"
#include "synth-perf.h"
#include "tap.h"

#include <errno.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#define US(x) (1000000000ull + (uint64_t)(x) * 1000ull)
#define S_INT 1
#define S_UNINT 2

/* ---- the rule engine on frame lists ---------------------------------------------------------- */

/* "k:schedule k:anon_pipe_read u:main" -> frames (leaf first) */
static size_t frames_of(const char *spec, struct rsp_named_frame *f, size_t max)
{
	static char buf[4096];
	char *save = NULL;
	size_t n = 0;

	snprintf(buf, sizeof(buf), "%s", spec);
	for (char *tok = strtok_r(buf, " ", &save); tok && n < max; tok = strtok_r(NULL, " ", &save)) {
		f[n].kernel = tok[0] == 'k';
		f[n].func = tok + 2;
		n++;
	}
	return n;
}

static const char *match(const struct rsp_causes *c, const char *spec, enum rsp_wait_state st,
			 int woken)
{
	struct rsp_named_frame f[64];
	size_t n = frames_of(spec, f, 64);
	size_t cause = rsp_causes_match(c, f, n, st, woken, NULL);

	return cause == RSP_NO_INDEX ? "(none)" : rsp_causes_name(c, cause);
}

static struct rsp_causes *parse(const char *text, char *err, size_t errlen)
{
	struct rsp_causes *c = NULL;

	if (rsp_causes_parse(text, strlen(text), "t.conf", &c, err, errlen))
		return NULL;
	return c;
}

static void test_rules(void)
{
	static const char rules[] =
		"# comment line\n"
		"\n"
		"10 vfs_read        : read\n"
		"20 anon_pipe_read pipe_read : pipe   # trailing comment\r\n"
		"20 u:wait_token    : user wait\n"
		"30 k:do_sys_poll woken=timer : poll timed out\n"
		"25 do_sys_poll     : poll\n"
		"40 io_schedule*+vfs_read : disk read\n"
		"40 ext4_*          : disk read\n"
		"90 state=R         : cpu queue\n"
		"90 state=P         : preempted\n"
		"95 state=P u:spin  : preempted while spinning\n"
		"5  k:main          : kernel main\n";
	char err[256];
	struct rsp_causes *c = parse(rules, err, sizeof(err));

	CHECK(c != NULL, "rules parse (%s)", c ? "" : err);
	if (!c)
		return;
	CHECK_EQ_U64(rsp_causes_n_rules(c), 11, "rules");
	CHECK_EQ_U64(rsp_causes_n_causes(c), 10, "causes: same text is one group");
	CHECK_STR(match(c, "k:schedule k:vfs_read u:main", RSP_WAIT_S, 0), "read", "one pattern");
	CHECK_STR(match(c, "k:schedule k:anon_pipe_read k:vfs_read", RSP_WAIT_S, 0), "pipe",
		  "higher priority wins");
	/* pipe (20, frame 1) and user wait (20, frame 2): the one nearer the leaf */
	CHECK_STR(match(c, "k:schedule k:anon_pipe_read u:wait_token", RSP_WAIT_S, 0), "pipe",
		  "equal priority: nearer the leaf wins");
	CHECK_STR(match(c, "k:schedule k:pipe_read_x u:wait_token", RSP_WAIT_S, 0), "user wait",
		  "exact names are exact");
	CHECK_STR(match(c, "k:wait_token", RSP_WAIT_S, 0), "(none)", "u: only matches user frames");
	CHECK_STR(match(c, "u:main", RSP_WAIT_S, 0), "(none)", "k: only matches kernel frames");
	CHECK_STR(match(c, "k:do_sys_poll.constprop.0", RSP_WAIT_S, RSP_LINK_TIMER),
		  "poll timed out", "compiler suffix ignored; woken=timer");
	CHECK_STR(match(c, "k:do_sys_poll", RSP_WAIT_S, RSP_LINK_WAKEUP), "poll",
		  "woken=timer does not match a wakeup");
	CHECK_STR(match(c, "k:do_sys_poll", RSP_WAIT_S, 0), "poll",
		  "woken=timer does not match an unknown end");
	CHECK_STR(match(c, "k:io_schedule_timeout k:vfs_read", RSP_WAIT_D, 0), "disk read",
		  "A+B: both present");
	CHECK_STR(match(c, "k:io_schedule_timeout k:vfs_write", RSP_WAIT_D, 0), "(none)",
		  "A+B: one missing");
	CHECK_STR(match(c, "k:ext4_file_read_iter", RSP_WAIT_D, 0), "disk read", "glob");
	CHECK_STR(match(c, "k:schedule k:anon_pipe_read", RSP_WAIT_RUNNABLE, 0), "cpu queue",
		  "runnable: state rules only");
	CHECK_STR(match(c, "k:schedule u:spin", RSP_WAIT_PREEMPTED, 0), "preempted while spinning",
		  "state=P with a function");
	CHECK_STR(match(c, "k:schedule u:other", RSP_WAIT_PREEMPTED, 0), "preempted",
		  "state=P alone");
	CHECK_STR(match(c, "", RSP_WAIT_S, 0), "(none)", "no frames, no rule");
	{
		struct rsp_named_frame f[4];
		size_t n = frames_of("k:schedule k:anon_pipe_read", f, 4);
		unsigned line = 0;

		rsp_causes_match(c, f, n, RSP_WAIT_S, 0, &line);
		CHECK_EQ_U64(line, 4, "the matching rule's line");
	}
	rsp_causes_free(c);
	rsp_causes_free(NULL);
}

static void bad_rule(const char *text, const char *want, const char *what)
{
	char err[256] = "";
	struct rsp_causes *c = parse(text, err, sizeof(err));

	CHECK(!c && strstr(err, want), "%s: error '%s' has '%s'", what, err, want);
	rsp_causes_free(c);
}

static void test_bad_rules(void)
{
	bad_rule("10 a : x\nnot-a-number b : y\n", "t.conf:2: 'not-a-number' is not a priority",
		 "bad priority");
	bad_rule("10 a : x\n\n# c\n10 vfs_read Reading\n", "t.conf:4: no cause", "no ':'");
	bad_rule("10 vfs_read :   \n", "t.conf:1: empty cause", "empty cause");
	bad_rule("10 : x\n", "t.conf:1: a rule needs a function pattern or a condition",
		 "nothing to match");
	bad_rule("10 state=X a : x\n", "t.conf:1: unknown state 'X'", "bad state");
	bad_rule("10 woken=bus a : x\n", "t.conf:1: unknown woken= kind 'bus'", "bad woken");
	bad_rule("10 when=now a : x\n", "t.conf:1: unknown condition 'when=now'", "bad condition");
	bad_rule("10 a+ : x\n", "t.conf:1: 'a+' ends with '+'", "dangling +");
	bad_rule("# nothing\n", "no rules", "no rules at all");
	{
		static const char nul[] = "10 a : x\n10 b\0c : y\n";
		struct rsp_causes *c = NULL;
		char err[256] = "";

		CHECK(rsp_causes_parse(nul, sizeof(nul) - 1, "t.conf", &c, err, sizeof(err)) ==
				      -EINVAL &&
			      strstr(err, "t.conf:2: a NUL byte"),
		      "NUL byte: '%s'", err);
	}
	{
		struct rsp_causes *c = NULL;
		char err[256] = "";

		CHECK(rsp_causes_load("/nonexistent/rules.conf", &c, err, sizeof(err)) == -ENOENT &&
			      strstr(err, "/nonexistent/rules.conf"),
		      "missing file: '%s'", err);
	}
}

/* The shipped rules on stacks of this and older kernels. */
static void test_shipped(const char *path)
{
	static const struct {
		const char *stack;
		enum rsp_wait_state st;
		int woken;
		const char *cause;
	} cases[] = {
		/* 6.x, recorded on the reference VM */
		{ "k:schedule k:schedule_timeout k:io_schedule_timeout k:__iomap_dio_rw "
		  "k:iomap_dio_rw k:ext4_file_read_iter k:vfs_read k:__x64_sys_pread64 "
		  "k:do_syscall_64 u:pread u:read_blocks u:main",
		  RSP_WAIT_D, RSP_LINK_IO, "Disk I/O: read" },
		{ "k:schedule k:anon_pipe_read k:vfs_read k:ksys_read k:do_syscall_64 u:read "
		  "u:wait_token u:main",
		  RSP_WAIT_S, RSP_LINK_WAKEUP, "Pipe" },
		{ "k:schedule k:schedule_hrtimeout_range_clock k:poll_schedule_timeout.constprop.0 "
		  "k:do_sys_poll k:__x64_sys_poll u:poll u:wait_for_resolver",
		  RSP_WAIT_S, RSP_LINK_TIMER, "Waiting for event (poll), timed out" },
		{ "k:schedule k:schedule_hrtimeout_range_clock k:do_sys_poll u:poll",
		  RSP_WAIT_S, RSP_LINK_WAKEUP, "Waiting for event (poll)" },
		{ "k:schedule k:do_nanosleep k:hrtimer_nanosleep k:common_nsleep "
		  "k:__x64_sys_clock_nanosleep u:clock_nanosleep u:nanosleep",
		  RSP_WAIT_S, RSP_LINK_TIMER, "Sleeping (nanosleep)" },
		{ "k:schedule k:do_wait k:kernel_wait4 k:__do_sys_wait4 u:wait4 u:wait_for_jobs",
		  RSP_WAIT_S, RSP_LINK_WAKEUP, "Waiting for a child process (wait4/waitpid)" },
		{ "k:schedule k:futex_do_wait k:__futex_wait k:futex_wait k:do_futex "
		  "u:__lll_lock_wait u:pthread_mutex_lock u:locker_thread",
		  RSP_WAIT_S, RSP_LINK_WAKEUP, "User lock: mutex (pthread_mutex_lock)" },
		{ "k:schedule k:futex_do_wait k:__futex_wait k:futex_wait k:do_futex "
		  "u:__futex_abstimed_wait_common u:__pthread_clockjoin_ex u:run_lockers",
		  RSP_WAIT_S, RSP_LINK_WAKEUP, "Waiting for a thread to exit (pthread_join)" },
		{ "k:schedule k:futex_do_wait k:futex_wait u:syscall u:my_lock",
		  RSP_WAIT_S, RSP_LINK_WAKEUP, "User lock (futex)" },
		{ "k:schedule k:schedule_timeout k:io_schedule_timeout "
		  "k:wait_for_completion_io_timeout k:submit_bio_wait k:blkdev_issue_flush "
		  "k:ext4_sync_file k:do_fsync k:__x64_sys_fsync u:fsync u:backend_store",
		  RSP_WAIT_D, RSP_LINK_IO, "Disk I/O: fsync/sync" },
		{ "k:schedule k:schedule_timeout k:wait_woken k:sk_wait_data k:tcp_recvmsg_locked "
		  "k:tcp_recvmsg k:sock_recvmsg k:__sys_recvfrom u:recv u:client_call",
		  RSP_WAIT_S, RSP_LINK_NET, "Socket: receive" },
		{ "k:schedule k:schedule_timeout k:unix_stream_read_generic k:unix_stream_recvmsg "
		  "k:sock_recvmsg u:recv",
		  RSP_WAIT_S, RSP_LINK_WAKEUP, "Socket: receive" },
		{ "k:schedule k:schedule_timeout k:inet_csk_wait_for_connect k:inet_csk_accept "
		  "k:inet_accept k:do_accept k:__sys_accept4 u:accept",
		  RSP_WAIT_S, RSP_LINK_NET, "Socket: accept (waiting for a connection)" },
		{ "k:schedule k:schedule_timeout k:inet_wait_for_connect k:__inet_stream_connect "
		  "k:inet_stream_connect k:__sys_connect u:connect",
		  RSP_WAIT_S, RSP_LINK_NET, "Socket: connect" },
		{ "k:schedule k:io_schedule k:folio_wait_bit_common k:filemap_fault "
		  "k:__do_fault k:do_fault k:handle_mm_fault k:do_user_addr_fault "
		  "k:exc_page_fault k:asm_exc_page_fault u:memcpy",
		  RSP_WAIT_D, RSP_LINK_IO, "Page fault" },
		{ "k:schedule k:schedule_timeout k:wait_woken k:n_tty_read k:tty_read k:vfs_read "
		  "u:read u:readline",
		  RSP_WAIT_S, RSP_LINK_WAKEUP, "Console/terminal (tty)" },
		{ "k:schedule k:schedule_hrtimeout_range_clock k:ep_poll k:do_epoll_wait "
		  "k:__x64_sys_epoll_wait u:epoll_wait",
		  RSP_WAIT_S, RSP_LINK_WAKEUP, "Waiting for event (epoll)" },
		{ "k:schedule k:schedule_hrtimeout_range_clock k:do_select k:core_sys_select "
		  "k:kern_select u:select",
		  RSP_WAIT_S, RSP_LINK_TIMER, "Waiting for event (select), timed out" },
		{ "k:schedule k:__cond_resched k:stop_one_cpu k:sched_exec k:bprm_execve "
		  "k:do_execveat_common.isra.0 k:__x64_sys_execve u:execve",
		  RSP_WAIT_D, RSP_LINK_WAKEUP, "exec: loading a program" },
		{ "k:schedule k:wait_for_vfork_done k:kernel_clone k:__x64_sys_vfork u:vfork",
		  RSP_WAIT_D, RSP_LINK_WAKEUP, "fork: waiting for a vfork child to exec" },
		{ "k:schedule k:rwsem_down_write_slowpath k:down_write k:do_truncate u:ftruncate",
		  RSP_WAIT_D, RSP_LINK_WAKEUP, "Kernel lock (mutex/rwsem)" },
		/* older kernels: 4.x-5.x names */
		{ "k:schedule k:pipe_wait k:pipe_read k:__vfs_read k:vfs_read k:ksys_read u:read",
		  RSP_WAIT_S, RSP_LINK_WAKEUP, "Pipe" },
		{ "k:schedule k:futex_wait_queue_me k:futex_wait k:do_futex u:syscall",
		  RSP_WAIT_S, RSP_LINK_WAKEUP, "User lock (futex)" },
		{ "k:schedule k:io_schedule k:wait_on_page_bit_common k:generic_file_buffered_read "
		  "k:ext4_file_read_iter k:new_sync_read k:__vfs_read k:vfs_read u:read",
		  RSP_WAIT_D, RSP_LINK_IO, "Disk I/O: read" },
		{ "k:schedule k:jbd2_log_wait_commit k:ext4_sync_file k:vfs_fsync_range "
		  "k:do_fsync u:fdatasync",
		  RSP_WAIT_D, RSP_LINK_WAKEUP, "Disk I/O: fsync/sync" },
		{ "k:schedule k:schedule_hrtimeout_range_clock k:poll_schedule_timeout "
		  "k:do_sys_poll k:__x64_sys_poll u:poll",
		  RSP_WAIT_S, RSP_LINK_TIMER, "Waiting for event (poll), timed out" },
		{ "k:schedule k:io_schedule k:balance_dirty_pages k:balance_dirty_pages_ratelimited "
		  "k:generic_perform_write k:ext4_buffered_write_iter k:vfs_write u:write",
		  RSP_WAIT_D, RSP_LINK_TIMER, "Disk I/O: write" },
		/* the scheduler, from the state */
		{ "k:schedule k:anon_pipe_read u:read", RSP_WAIT_RUNNABLE, RSP_LINK_WAKEUP,
		  "Waiting for a CPU (scheduler queue)" },
		{ "k:schedule k:irqentry_exit_to_user_mode u:spin_work", RSP_WAIT_PREEMPTED, 0,
		  "Preempted (involuntary)" },
		/* kernel threads waiting for work */
		{ "k:schedule k:worker_thread k:kthread k:ret_from_fork", RSP_WAIT_S,
		  RSP_LINK_WAKEUP, "Kernel thread idle (waiting for work)" },
	};
	struct rsp_causes *c = NULL;
	char err[512];

	CHECK(rsp_causes_load(path, &c, err, sizeof(err)) == 0, "shipped rules load (%s)",
	      c ? "" : err);
	if (!c)
		return;
	CHECK(rsp_causes_n_rules(c) >= 40, "shipped rules: %zu", rsp_causes_n_rules(c));
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK_STR(match(c, cases[i].stack, cases[i].st, cases[i].woken), cases[i].cause,
			  cases[i].stack);
	rsp_causes_free(c);
}

/* ---- a synthetic trace with symbolized kernel stacks ---------------------------------------------- */

enum {
	F_SWITCH,
	F_SCHEDULE_OLD, /* 0x...100: synth_switch's default stack */
	F_SCHEDULE,
	F_PIPE_READ,
	F_VFS_READ,
	F_IO_SCHEDULE,
	F_EXT4_READ,
	F_POLL,
	F_DISPATCH,
	F_WORKER,
	F_PIPE_WRITE,
	F_TTWU,
	F_DO_WORK,
	F_END,
};
#define K(f) (0xffffffff81000000ull + (uint64_t)(f) * 0x100 + 0x10)

static const char kallsyms[] = "ffffffff81000000 T __traceiter_sched_switch\n"
			       "ffffffff81000100 T __schedule\n"
			       "ffffffff81000200 T schedule\n"
			       "ffffffff81000300 T anon_pipe_read\n"
			       "ffffffff81000400 T vfs_read\n"
			       "ffffffff81000500 T io_schedule\n"
			       "ffffffff81000600 T ext4_file_read_iter\n"
			       "ffffffff81000700 t do_sys_poll.constprop.0\n"
			       "ffffffff81000800 T dispatch_command\n"
			       "ffffffff81000900 T worker_loop\n"
			       "ffffffff81000a00 T anon_pipe_write\n"
			       "ffffffff81000b00 T try_to_wake_up\n"
			       "ffffffff81000c00 T do_work\n"
			       "ffffffff81000d00 T _etext\n";

/*
 * a (pid 100) and b (pid 200), us from 1 s:
 *   a: runs 1000-1100; S in pipe read 1100-1200 (woken by b at 1150); runs; D in
 *      a disk read 1300-1500 (woken by a timer irq at 1500); runs; preempted by b
 *      1600-1690; runs; S in pipe read under dispatch_command 1800-1860 (woken
 *      1850); runs; asleep from 1900 to the end
 *   b: asleep from the start; runs 1100-1200; S in poll 1200-1600, timed out at
 *      1590; runs; S in worker_loop 1690-1760 (woken by a at 1750, on CPU 1);
 *      runs; asleep from 1900 to the end
 *   samples of a: do_work at 1050 and 1060, dispatch_command > do_work at 1720
 */
static struct rsp_trace *make_trace(struct synth **sp)
{
	struct synth_opts o = { .kallsyms = kallsyms };
	struct synth *s = synth_new(&o);
	const uint64_t pipe_stack[] = { K(F_SCHEDULE), K(F_PIPE_READ), K(F_VFS_READ) };
	const uint64_t pipe_in_dispatch[] = { K(F_SCHEDULE), K(F_PIPE_READ), K(F_VFS_READ),
					      K(F_DISPATCH) };
	const uint64_t disk_stack[] = { K(F_SCHEDULE), K(F_IO_SCHEDULE), K(F_EXT4_READ),
					K(F_VFS_READ) };
	const uint64_t poll_stack[] = { K(F_SCHEDULE), K(F_POLL) };
	const uint64_t preempt_stack[] = { K(F_SCHEDULE), K(F_DO_WORK) };
	const uint64_t worker_stack[] = { K(F_SCHEDULE), K(F_WORKER) };
	const uint64_t waker_stack[] = { K(F_TTWU), K(F_PIPE_WRITE) };
	const uint64_t work[] = { K(F_DO_WORK) };
	const uint64_t work_in_dispatch[] = { K(F_DO_WORK), K(F_DISPATCH) };
	const uint64_t idle[] = { K(F_SCHEDULE) };
	const int targets[] = { 100 };
	struct rsp_trace_opts to = { 0 };
	struct rsp_trace *t = NULL;
	char err[256];
	const void *buf;
	size_t len;

	synth_targets(s, targets, 1);
	synth_fork(s, 0, 100, 1, 100, 1);
	synth_comm(s, 0, 100, 100, "a", false);
	synth_fork(s, 0, 200, 1, 200, 1);
	synth_comm(s, 0, 200, 200, "b", false);
	synth_switch(s, 0, US(1000), 0, "swapper/0", 0, 100, "a");
	synth_sample(s, 0, US(1050), 100, 100, work, 1);
	synth_sample(s, 0, US(1060), 100, 100, work, 1);
	synth_switch_stack(s, 0, US(1100), 100, "a", S_INT, 200, "b", pipe_stack, 3);
	synth_waking(s, 0, US(1150), 200, 0, 100, "a", 0, false, waker_stack, 2);
	synth_switch_stack(s, 0, US(1200), 200, "b", S_INT, 100, "a", poll_stack, 2);
	synth_round(s);
	synth_switch_stack(s, 0, US(1300), 100, "a", S_UNINT, 0, "swapper/0", disk_stack, 4);
	synth_waking(s, 0, US(1500), 0, SYN_HARDIRQ, 100, "a", 0, false, NULL, 0);
	synth_switch(s, 0, US(1500), 0, "swapper/0", 0, 100, "a");
	synth_waking(s, 0, US(1590), 100, SYN_HARDIRQ, 200, "b", 0, false, NULL, 0);
	synth_switch_stack(s, 0, US(1600), 100, "a", 0, 200, "b", preempt_stack, 2);
	synth_switch_stack(s, 0, US(1690), 200, "b", S_INT, 100, "a", worker_stack, 2);
	synth_round(s);
	synth_sample(s, 0, US(1720), 100, 100, work_in_dispatch, 2);
	synth_waking(s, 0, US(1750), 100, 0, 200, "b", 1, false, waker_stack, 2);
	synth_switch(s, 1, US(1760), 0, "swapper/1", 0, 200, "b");
	synth_switch_stack(s, 0, US(1800), 100, "a", S_INT, 0, "swapper/0", pipe_in_dispatch, 4);
	synth_waking(s, 0, US(1850), 0, SYN_HARDIRQ, 100, "a", 0, false, NULL, 0);
	synth_switch(s, 0, US(1860), 0, "swapper/0", 0, 100, "a");
	synth_round(s);
	synth_switch_stack(s, 0, US(1900), 100, "a", S_INT, 0, "swapper/0", idle, 1);
	synth_switch_stack(s, 1, US(1900), 200, "b", S_INT, 0, "swapper/1", idle, 1);
	buf = synth_finish(s, &len);
	*sp = s; /* the trace reads the buffer in place: freed after it */
	if (rsp_trace_open_mem(buf, len, &to, &t, err, sizeof(err))) {
		CHECK(0, "synthetic trace opens: %s", err);
		return NULL;
	}
	return t;
}

static const struct rsp_latency_row *row_of(const struct rsp_latency *l, size_t scope,
					    const char *cause)
{
	static struct rsp_latency_row r;
	struct rsp_scope_info si;

	rsp_latency_scope(l, scope, &si);
	for (size_t i = 0; i < si.n_rows; i++) {
		rsp_latency_row(l, scope, i, &r);
		if (!strcmp(r.name, cause))
			return &r;
	}
	return NULL;
}

static void check_row(const struct rsp_latency *l, size_t scope, const char *cause,
		      uint64_t count, uint64_t total_us, uint64_t max_us)
{
	const struct rsp_latency_row *r = row_of(l, scope, cause);

	CHECK(r && r->count == count && r->total_ns == total_us * 1000 && r->max_ns == max_us * 1000,
	      "scope %zu, %s: count %" PRIu64 " total %" PRIu64 " max %" PRIu64
	      " (want %" PRIu64 " %" PRIu64 "000 %" PRIu64 "000)",
	      scope, cause, r ? r->count : 0, r ? r->total_ns : 0, r ? r->max_ns : 0, count,
	      total_us, max_us);
}

static const char *row_name(const struct rsp_latency *l, size_t scope, size_t i)
{
	static struct rsp_latency_row r;

	rsp_latency_row(l, scope, i, &r);
	return r.name;
}

static void test_account(struct rsp_trace *t, const char *rules_path)
{
	struct rsp_latency_opts lo = { .per_thread = true };
	struct rsp_latency_summary sum;
	struct rsp_scope_info a, b, sys;
	struct rsp_causes *c = NULL;
	struct rsp_latency *l = NULL;
	char err[512];
	size_t sa = RSP_NO_INDEX, sb = RSP_NO_INDEX, ta = RSP_NO_INDEX;

	if (rsp_causes_load(rules_path, &c, err, sizeof(err)) ||
	    rsp_latency_account(t, c, &lo, &l, err, sizeof(err))) {
		CHECK(0, "accounting: %s", err);
		rsp_causes_free(c);
		return;
	}
	for (size_t i = 0; i < rsp_latency_n_scopes(l); i++) {
		struct rsp_scope_info s;

		rsp_latency_scope(l, i, &s);
		if (s.kind == RSP_SCOPE_PROCESS && s.pid == 100)
			sa = i;
		if (s.kind == RSP_SCOPE_PROCESS && s.pid == 200)
			sb = i;
		if (s.kind == RSP_SCOPE_THREAD && s.tid == 100)
			ta = i;
	}
	CHECK(sa != RSP_NO_INDEX && sb != RSP_NO_INDEX && ta != RSP_NO_INDEX,
	      "scopes for a, b and thread a");
	if (sa == RSP_NO_INDEX || sb == RSP_NO_INDEX || ta == RSP_NO_INDEX)
		goto out;
	rsp_latency_scope(l, 0, &sys);
	rsp_latency_scope(l, sa, &a);
	rsp_latency_scope(l, sb, &b);
	CHECK(sys.kind == RSP_SCOPE_SYSTEM && sys.total_ns == 920000 && sys.n_threads == 2,
	      "system: 920 us in 2 threads (%" PRIu64 ", %zu)", sys.total_ns, sys.n_threads);
	CHECK(a.total_ns == 450000 && !strcmp(a.comm, "a") && a.n_threads == 1,
	      "a: 450 us (%" PRIu64 ")", a.total_ns);
	CHECK(b.total_ns == 470000 && !strcmp(b.comm, "b"), "b: 470 us (%" PRIu64 ")", b.total_ns);
	check_row(l, sa, "Pipe", 2, 100, 50);
	check_row(l, sa, "Waiting for a CPU (scheduler queue)", 2, 60, 50);
	check_row(l, sa, "Disk I/O: read", 1, 200, 200);
	check_row(l, sa, "Preempted (involuntary)", 1, 90, 90);
	check_row(l, sb, "Waiting for event (poll), timed out", 1, 390, 390);
	check_row(l, sb, "Waiting for a CPU (scheduler queue)", 2, 20, 10);
	check_row(l, sb, "[no rule matched]", 1, 60, 60);
	check_row(l, 0, "Waiting for a CPU (scheduler queue)", 4, 80, 50);
	check_row(l, ta, "Disk I/O: read", 1, 200, 200);
	CHECK_STR(row_name(l, sa, 0), "Disk I/O: read", "a by total: 1st");
	CHECK_STR(row_name(l, sa, 1), "Pipe", "a by total: 2nd");
	CHECK_STR(row_name(l, sa, 2), "Preempted (involuntary)", "a by total: 3rd");
	rsp_latency_sort(l, RSP_LATENCY_BY_COUNT);
	CHECK_STR(row_name(l, sa, 0), "Pipe", "a by count: 1st (2, more total)");
	CHECK_STR(row_name(l, sa, 1), "Waiting for a CPU (scheduler queue)", "a by count: 2nd");
	rsp_latency_sort(l, RSP_LATENCY_BY_AVG);
	CHECK_STR(row_name(l, sa, 1), "Preempted (involuntary)", "a by average: 2nd (90)");
	CHECK_STR(row_name(l, sa, 3), "Waiting for a CPU (scheduler queue)", "a by average: last");
	rsp_latency_sort(l, RSP_LATENCY_BY_MAX);
	CHECK_STR(row_name(l, sa, 2), "Pipe", "a by max: 3rd (50, total 100 > 60)");
	rsp_latency_get_summary(l, &sum);
	CHECK(sum.intervals == 10 && sum.unmatched == 1 && sum.unmatched_ns == 60000 &&
		      sum.left_out >= 2,
	      "summary: %" PRIu64 " intervals, %" PRIu64 " unmatched, %" PRIu64 " left out",
	      sum.intervals, sum.unmatched, sum.left_out);
	/* the log: the worker_loop stack matched no rule */
	{
		size_t found = 0;

		for (size_t i = 0; i < rsp_latency_n_stacks(l); i++) {
			struct rsp_latency_stack st;
			struct rsp_named_frame f;

			rsp_latency_stack_info(l, i, &st);
			if (st.cause != RSP_NO_INDEX)
				continue;
			found++;
			rsp_latency_stack_frame(l, i, 1, &f);
			CHECK(st.state == RSP_WAIT_S && st.count == 1 && st.total_ns == 60000 &&
				      st.n_frames == 2 && f.kernel && !strcmp(f.func, "worker_loop"),
			      "unmatched stack: worker_loop, S, 60 us");
		}
		CHECK_EQ_U64(found, 1, "one unmatched stack");
	}
	rsp_latency_free(l);
	/* LatencyTOP's view of stack causes only */
	lo.states = RSP_WAIT_BLOCKED;
	lo.per_thread = false;
	if (rsp_latency_account(t, c, &lo, &l, err, sizeof(err)) == 0) {
		CHECK(row_of(l, 0, "Preempted (involuntary)") == NULL &&
			      row_of(l, 0, "Waiting for a CPU (scheduler queue)") == NULL,
		      "states S,D: no scheduler causes");
		CHECK_STR(row_name(l, 0, 0), "Waiting for event (poll), timed out",
			  "states S,D: top cause system-wide");
	} else {
		l = NULL;
	}
out:
	rsp_latency_free(l);
	rsp_causes_free(c);
}

/* ---- off-CPU ------------------------------------------------------------------------------------------ */

static size_t find_stack(const struct rsp_offcpu *o, enum rsp_offcpu_part p, const char *leaf2)
{
	for (size_t i = 0; i < rsp_offcpu_n_stacks(o, p); i++) {
		struct rsp_offcpu_stack s;
		struct rsp_named_frame f;

		rsp_offcpu_stack_info(o, p, i, &s);
		rsp_offcpu_stack_frame(o, p, i, s.n_frames - 1, &f);
		if (!strcmp(f.func, leaf2))
			return i;
	}
	return RSP_NO_INDEX;
}

static void test_offcpu(struct rsp_trace *t)
{
	const int pids[] = { 100 };
	struct rsp_offcpu_opts oo = { .threads = { .pids = pids, .n_pids = 1 } };
	struct rsp_offcpu_summary sum;
	struct rsp_offcpu_stack st;
	struct rsp_offcpu *o = NULL;
	char err[256];
	size_t i;

	CHECK_EQ_U64(rsp_offcpu_bucket(0), 0, "bucket of 0");
	CHECK_EQ_U64(rsp_offcpu_bucket(1), 1, "bucket of 1");
	CHECK_EQ_U64(rsp_offcpu_bucket(50000), 16, "bucket of 50 us");
	CHECK_EQ_U64(rsp_offcpu_bucket_value(16), 32768, "bucket 16 starts at 32768 ns");
	CHECK_EQ_U64(rsp_offcpu_bucket(65535), 16, "65535 in bucket 16");
	CHECK_EQ_U64(rsp_offcpu_bucket(65536), 17, "65536 in bucket 17");

	if (rsp_offcpu_build(t, &oo, &o, err, sizeof(err))) {
		CHECK(0, "offcpu: %s", err);
		return;
	}
	rsp_offcpu_get_summary(o, &sum);
	CHECK(sum.count[RSP_OFFCPU_BLOCKED] == 3 && sum.total_ns[RSP_OFFCPU_BLOCKED] == 300000,
	      "a blocked: 3 waits, 300 us (%" PRIu64 ", %" PRIu64 ")",
	      sum.count[RSP_OFFCPU_BLOCKED], sum.total_ns[RSP_OFFCPU_BLOCKED]);
	CHECK(sum.count[RSP_OFFCPU_RUNNABLE] == 3 && sum.total_ns[RSP_OFFCPU_RUNNABLE] == 150000,
	      "a runnable: 3 (50 + 10 after wakeups, 90 preempted), 150 us (%" PRIu64
	      ", %" PRIu64 ")",
	      sum.count[RSP_OFFCPU_RUNNABLE], sum.total_ns[RSP_OFFCPU_RUNNABLE]);
	CHECK_EQ_U64(sum.n_threads, 1, "one thread");
	CHECK_EQ_U64(rsp_offcpu_n_stacks(o, RSP_OFFCPU_BLOCKED), 3, "3 blocked stacks");
	rsp_offcpu_stack_info(o, RSP_OFFCPU_BLOCKED, 0, &st);
	CHECK(st.total_ns == 200000 && st.count == 1 && st.hist[18] == 1 && !strcmp(st.comm, "a"),
	      "largest first: the disk read, 200 us in bucket 18");
	i = find_stack(o, RSP_OFFCPU_RUNNABLE, "do_work");
	CHECK(i != RSP_NO_INDEX, "the preemption is dispatcher-queue time");
	if (i != RSP_NO_INDEX) {
		rsp_offcpu_stack_info(o, RSP_OFFCPU_RUNNABLE, i, &st);
		CHECK(st.total_ns == 90000 && st.hist[rsp_offcpu_bucket(90000)] == 1,
		      "preempted 90 us");
	}
	rsp_offcpu_free(o);

	/* the synchronous context: only waits inside dispatch_command */
	oo.within = "dispatch_*";
	if (rsp_offcpu_build(t, &oo, &o, err, sizeof(err)) == 0) {
		rsp_offcpu_get_summary(o, &sum);
		CHECK(sum.count[RSP_OFFCPU_BLOCKED] == 1 &&
			      sum.total_ns[RSP_OFFCPU_BLOCKED] == 50000 &&
			      sum.count[RSP_OFFCPU_RUNNABLE] == 1 &&
			      sum.total_ns[RSP_OFFCPU_RUNNABLE] == 10000 && sum.outside == 3,
		      "--within dispatch_*: the one wait under it (50 + 10 us), 3 outside");
		rsp_offcpu_free(o);
	}
	oo.within = NULL;

	oo.min_ns = 60000;
	if (rsp_offcpu_build(t, &oo, &o, err, sizeof(err)) == 0) {
		rsp_offcpu_get_summary(o, &sum);
		CHECK(sum.count[RSP_OFFCPU_BLOCKED] == 1 && sum.count[RSP_OFFCPU_RUNNABLE] == 1 &&
			      sum.below_min == 4,
		      "--min-us 60: the disk read and the preemption; 4 shorter");
		rsp_offcpu_free(o);
	}
	oo.min_ns = 0;

	oo.states = RSP_WAIT_D;
	if (rsp_offcpu_build(t, &oo, &o, err, sizeof(err)) == 0) {
		rsp_offcpu_get_summary(o, &sum);
		CHECK(sum.count[RSP_OFFCPU_BLOCKED] == 1 &&
			      sum.total_ns[RSP_OFFCPU_BLOCKED] == 200000 &&
			      sum.count[RSP_OFFCPU_RUNNABLE] == 0,
		      "--state D: the disk read only");
		rsp_offcpu_free(o);
	}
	oo.states = RSP_WAIT_PREEMPTED;
	if (rsp_offcpu_build(t, &oo, &o, err, sizeof(err)) == 0) {
		rsp_offcpu_get_summary(o, &sum);
		CHECK(sum.count[RSP_OFFCPU_BLOCKED] == 0 && sum.count[RSP_OFFCPU_RUNNABLE] == 1 &&
			      sum.total_ns[RSP_OFFCPU_RUNNABLE] == 90000,
		      "--state P: the preemption only");
		rsp_offcpu_free(o);
	}
	/* R is the runnable part after a wakeup, as in rsp causes: not a preemption */
	oo.states = RSP_WAIT_RUNNABLE;
	if (rsp_offcpu_build(t, &oo, &o, err, sizeof(err)) == 0) {
		rsp_offcpu_get_summary(o, &sum);
		CHECK(sum.count[RSP_OFFCPU_BLOCKED] == 0 && sum.count[RSP_OFFCPU_RUNNABLE] == 2 &&
			      sum.total_ns[RSP_OFFCPU_RUNNABLE] == 60000,
		      "--state R: the two sleeps' runnable parts, 50 + 10 us (%" PRIu64 ", %" PRIu64
		      " ns)",
		      sum.count[RSP_OFFCPU_RUNNABLE], sum.total_ns[RSP_OFFCPU_RUNNABLE]);
		rsp_offcpu_free(o);
	}
	oo.states = RSP_WAIT_S;
	if (rsp_offcpu_build(t, &oo, &o, err, sizeof(err)) == 0) {
		rsp_offcpu_get_summary(o, &sum);
		CHECK(sum.count[RSP_OFFCPU_BLOCKED] == 2 &&
			      sum.total_ns[RSP_OFFCPU_BLOCKED] == 100000 &&
			      sum.count[RSP_OFFCPU_RUNNABLE] == 0,
		      "--state S: the two pipe reads' blocked parts, 50 + 50 us");
		rsp_offcpu_free(o);
	}
	oo.states = RSP_WAIT_S | RSP_WAIT_RUNNABLE;
	if (rsp_offcpu_build(t, &oo, &o, err, sizeof(err)) == 0) {
		rsp_offcpu_get_summary(o, &sum);
		CHECK(sum.total_ns[RSP_OFFCPU_BLOCKED] == 100000 &&
			      sum.total_ns[RSP_OFFCPU_RUNNABLE] == 60000,
		      "--state S,R: the pipe reads whole, 100 + 60 us");
		rsp_offcpu_free(o);
	}
}

/* A list of states: one parser, one meaning per letter (rsp-frames.h) */
static void test_states(void)
{
	static const struct {
		const char *s;
		unsigned want; /* 0: refused */
		const char *err;
	} cases[] = {
		{ "S,D", RSP_WAIT_BLOCKED, NULL },
		{ "SD", RSP_WAIT_BLOCKED, NULL },
		{ "R", RSP_WAIT_RUNNABLE, NULL },
		{ "P", RSP_WAIT_PREEMPTED, NULL },
		{ "runnable,preempted", RSP_WAIT_RUNNABLE | RSP_WAIT_PREEMPTED, NULL },
		{ "S,,D,R,P", RSP_WAIT_ALL, NULL },
		{ "S,X", 0, "unknown state 'X': S (interruptible sleep)" },
		{ "s", 0, "unknown state 's'" },
		{ "Sx", 0, "unknown state 'Sx'" },
		{ "", 0, "no state listed" },
		{ ",", 0, "no state listed" },
	};
	char err[256], buf[16];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned got = 0;
		int ret;

		err[0] = '\0';
		ret = rsp_wait_states_parse(cases[i].s, &got, err, sizeof(err));
		if (cases[i].want)
			CHECK(ret == 0 && got == cases[i].want, "'%s': states 0x%x (0x%x)",
			      cases[i].s, cases[i].want, got);
		else
			CHECK(ret == -EINVAL && strstr(err, cases[i].err), "'%s' refused: %s",
			      cases[i].s, err);
	}
	CHECK_STR(rsp_wait_states_str(RSP_WAIT_ALL, buf, sizeof(buf)), "S,D,R,P", "all, named");
	CHECK_STR(rsp_wait_states_str(RSP_WAIT_D | RSP_WAIT_PREEMPTED, buf, sizeof(buf)), "D,P",
		  "D and P, named");
}

/* ---- folded stacks -------------------------------------------------------------------------------------- */

static bool folded_grammar(const struct rsp_folded *f, const char **bad)
{
	regex_t re;
	bool ok = true;

	/* frames without ';' or line breaks, joined by ';', a space, a positive integer */
	if (regcomp(&re, "^[^;\n]+(;[^;\n]+)* [1-9][0-9]*$", REG_EXTENDED | REG_NOSUB))
		return false;
	for (size_t i = 0; i < rsp_folded_n_lines(f) && ok; i++) {
		const char *stack;
		uint64_t v;
		char line[4096];

		rsp_folded_line(f, i, &stack, &v);
		snprintf(line, sizeof(line), "%s %" PRIu64, stack, v);
		if (regexec(&re, line, 0, NULL, 0)) {
			*bad = stack;
			ok = false;
		}
	}
	regfree(&re);
	return ok;
}

static uint64_t folded_value(const struct rsp_folded *f, const char *want)
{
	for (size_t i = 0; i < rsp_folded_n_lines(f); i++) {
		const char *stack;
		uint64_t v;

		rsp_folded_line(f, i, &stack, &v);
		if (!strcmp(stack, want))
			return v;
	}
	return 0;
}

static struct rsp_folded *folded(struct rsp_trace *t, struct rsp_analysis *a,
				 enum rsp_folded_kind k, bool mark)
{
	struct rsp_folded_opts fo = { .mark_frames = mark };
	struct rsp_folded *f = NULL;
	const char *bad = "";
	char err[256];

	if (rsp_folded_build(t, a, k, &fo, &f, err, sizeof(err))) {
		CHECK(0, "folded %s: %s", rsp_folded_kind_name(k), err);
		return NULL;
	}
	CHECK(folded_grammar(f, &bad), "folded %s: every line 'frame;frame value' (%s)",
	      rsp_folded_kind_name(k), bad);
	return f;
}

#define CHECK_FOLDED(f, stack, want)                                                             \
	CHECK_EQ_U64(folded_value(f, stack), want, stack)

static void test_folded(struct rsp_trace *t)
{
	struct rsp_folded *f;
	struct rsp_analysis *an = NULL;
	enum rsp_folded_kind k;
	char err[256];
	const int pid = 100;

	CHECK(rsp_folded_kind_parse("offwake", &k) == 0 && k == RSP_FOLDED_OFFWAKE &&
		      rsp_folded_kind_parse("nope", &k) == -EINVAL,
	      "kind names");

	if ((f = folded(t, NULL, RSP_FOLDED_CPU, false))) {
		CHECK_EQ_U64(rsp_folded_n_lines(f), 2, "cpu: two stacks");
		CHECK_FOLDED(f, "a;do_work", 2);
		CHECK_FOLDED(f, "a;dispatch_command;do_work", 1);
		rsp_folded_free(f);
	}
	if ((f = folded(t, NULL, RSP_FOLDED_OFFCPU, false))) {
		CHECK_EQ_U64(rsp_folded_n_lines(f), 6, "offcpu: six stacks");
		CHECK_FOLDED(f, "a;vfs_read;anon_pipe_read;schedule", 100);
		CHECK_FOLDED(f, "a;dispatch_command;vfs_read;anon_pipe_read;schedule", 60);
		CHECK_FOLDED(f, "a;vfs_read;ext4_file_read_iter;io_schedule;schedule", 200);
		CHECK_FOLDED(f, "a;do_work;schedule", 90);
		CHECK_FOLDED(f, "b;do_sys_poll.constprop.0;schedule", 400);
		CHECK_FOLDED(f, "b;worker_loop;schedule", 70);
		rsp_folded_free(f);
	}
	if ((f = folded(t, NULL, RSP_FOLDED_HOTCOLD, false))) {
		/* a's runs: 1000-1100 with 2 samples, 1200-1300, 1500-1600, 1690-1800 with 1,
		 * 1860-1900; b's: 1100-1200, 1600-1690, 1760-1900 */
		CHECK_FOLDED(f, "a;[on-cpu];do_work", 100);
		CHECK_FOLDED(f, "a;[on-cpu];dispatch_command;do_work", 110);
		CHECK_FOLDED(f, "a;[on-cpu];[unsampled]", 240);
		CHECK_FOLDED(f, "b;[on-cpu];[unsampled]", 330);
		CHECK_FOLDED(f, "a;[off-cpu];vfs_read;anon_pipe_read;schedule", 100);
		CHECK_FOLDED(f, "b;[off-cpu];do_sys_poll.constprop.0;schedule", 400);
		rsp_folded_free(f);
	}
	if ((f = folded(t, NULL, RSP_FOLDED_OFFWAKE, false))) {
		CHECK_FOLDED(f, "a;vfs_read;anon_pipe_read;schedule;--;try_to_wake_up;anon_pipe_write;b",
			     100);
		CHECK_FOLDED(f, "b;worker_loop;schedule;--;try_to_wake_up;anon_pipe_write;a", 70);
		CHECK_FOLDED(f, "b;do_sys_poll.constprop.0;schedule;--;[hardirq timer]", 400);
		CHECK_FOLDED(f, "a;do_work;schedule;--;b", 0); /* preemptions are not wakeups */
		rsp_folded_free(f);
	}
	if ((f = folded(t, NULL, RSP_FOLDED_OFFWAKE, true))) {
		CHECK_FOLDED(f,
			     "a;vfs_read_[k];anon_pipe_read_[k];schedule_[k];--;try_to_wake_up_[k]_[w];"
			     "anon_pipe_write_[k]_[w];b_[w]",
			     100);
		rsp_folded_free(f);
	}
	{
		const char *bad = "";
		struct rsp_folded *p = NULL;

		CHECK(rsp_folded_build(t, NULL, RSP_FOLDED_PSEUDO, NULL, &p, err, sizeof(err)) ==
				      -EINVAL,
		      "pseudo without an analysis: an error (%s)", err);
		if (rsp_analyze(t, &pid, 1, 0, NULL, &an, err, sizeof(err)) == 0) {
			struct rsp_explanation e;
			uint64_t sum = 0;

			rsp_analysis_explanation(an, &e);
			p = folded(t, an, RSP_FOLDED_PSEUDO, false);
			for (size_t i = 0; p && i < rsp_folded_n_lines(p); i++) {
				const char *stack;
				uint64_t v;

				rsp_folded_line(p, i, &stack, &v);
				sum += v;
				if (strncmp(stack, "a;", 2))
					bad = stack;
			}
			CHECK(p && !*bad, "pseudo: every stack starts at a's control path (%s)", bad);
			CHECK(p && sum + rsp_folded_n_lines(p) >= e.total_ns / 1000 &&
				      sum <= e.total_ns / 1000 + rsp_folded_n_lines(p),
			      "pseudo: the leaves add up to the explained time (%" PRIu64
			      " us of %" PRIu64 " ns)",
			      sum, e.total_ns);
			/* b's run has no sample: it is named by its site, the kernel code it
			 * was in before its next sleep */
			CHECK(p && folded_value(p, "a;a: sleep in [kernel] anon_pipe_read;"
						   "b: before do_sys_poll.constprop.0") > 0,
			      "pseudo: b ran inside a's pipe sleep");
			rsp_folded_free(p);
			rsp_analysis_free(an);
		} else {
			CHECK(0, "analysis: %s", err);
		}
	}
}

int main(int argc, char **argv)
{
	struct synth *s = NULL;
	struct rsp_trace *t;

	if (tap_init(argc, argv) < 2) {
		fprintf(stderr, "usage: test-causes [-p CASE] [-l] data/latency-causes.conf\n");
		return 2;
	}
	TAP_RUN("rules", test_rules());
	TAP_RUN("bad_rules", test_bad_rules());
	TAP_RUN("states", test_states());
	TAP_RUN("shipped", test_shipped(argv[1]));
	t = make_trace(&s);
	if (t) {
		TAP_RUN("account", test_account(t, argv[1]));
		TAP_RUN("offcpu", test_offcpu(t));
		TAP_RUN("folded", test_folded(t));
		rsp_trace_free(t);
	}
	synth_free(s);
	return tap_done();
}
