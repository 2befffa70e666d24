/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The requests a target serves, for rsp report: its threads' and those of the
 * processes it forked (a postmaster's backends, a pre-fork server's workers),
 * split as model/rsp-requests.h does; the plain report opens with a paragraph
 * of them, --requests explains each.
 */
#ifndef RSP_CLI_REPORT_SERVED_H
#define RSP_CLI_REPORT_SERVED_H

#include "json.h"

#include "rsp-model.h"
#include "rsp-requests.h"

#include <stddef.h>
#include <stdint.h>

/* a process that served requests, and how many */
struct served_proc {
	int pid;
	const char *comm;
	size_t requests;
};

struct served {
	uint8_t *selected; /* the target's threads and its descendants' */
	struct rsp_requests *rq;
	/* connections: served (with a request), the target a client there, the
	 * target's own traffic (its client forked by the target too) */
	size_t n_served, n_client, n_internal;
	size_t cut_start, cut_end;
	struct served_proc *procs; /* most requests first */
	size_t n_procs;
	struct rsp_requests_stats stats;
	struct rsp_requests_time time;
	/* a process of them is known to serve (rsp_requests_known_servers()): the plain
	 * report's paragraph only then, not for a client whose connection predates the
	 * recording (its replies and requests would read as requests and replies) */
	bool known;
};

/* The requests of the target @pids (or thread @tid); -ENOMEM, else 0 and @out. */
int served_find(struct rsp_trace *t, const int *pids, size_t n_pids, int tid, struct served *out);
void served_free(struct served *s);

/* The plain report's opening paragraph (nothing without a request of a known
 * server), in each format. */
void served_text(const struct served *s);
void served_csv(const struct served *s);
void served_md(const struct served *s);
void served_json(const struct served *s, struct json *j);
/* "  served by N processes: PID (comm) N, ..." when more than one served */
void served_text_procs(const struct served *s, const char *pre);
void served_json_procs(const struct served *s, struct json *j);

#endif /* RSP_CLI_REPORT_SERVED_H */
