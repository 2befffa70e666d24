/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Block I/O in the timeline: requests matched by (device, sector), oldest
 * first, through insert, issue and completion (flushes, which carry no
 * sector, in order per device); the completion is kept per CPU as the cause
 * of a wakeup that follows in the same interrupt context.
 */
#include "timeline/builder-private.h"

#include <stdlib.h>
#include <string.h>

static uint64_t io_key(uint32_t dev, uint64_t sector)
{
	return (sector * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)dev << 1) ^ ((uint64_t)dev << 40);
}

static bool io_grow(struct builder *b)
{
	size_t cap = b->io_cap ? b->io_cap * 2 : 1024;
	struct io_slot *ns = malloc(cap * sizeof(*ns));

	if (!ns)
		return false;
	for (size_t i = 0; i < cap; i++)
		ns[i].op = RSP_NONE;
	b->io_used = 0;
	for (size_t i = 0; i < b->io_cap; i++) {
		size_t j;

		if (b->io[i].op >= RSP_NONE - 1)
			continue;
		for (j = b->io[i].key & (cap - 1); ns[j].op != RSP_NONE; j = (j + 1) & (cap - 1))
			;
		ns[j] = b->io[i];
		b->io_used++;
	}
	free(b->io);
	b->io = ns;
	b->io_cap = cap;
	return true;
}

static void io_put(struct builder *b, uint32_t op)
{
	const struct io_op *o = &b->t->ios.v[op];
	uint64_t k = io_key(o->dev, o->sector);
	size_t j;

	if ((b->io_used + 1) * 2 > b->io_cap && !io_grow(b))
		return;
	for (j = k & (b->io_cap - 1); b->io[j].op < RSP_NONE - 1; j = (j + 1) & (b->io_cap - 1))
		;
	if (b->io[j].op == RSP_NONE)
		b->io_used++;
	b->io[j].key = k;
	b->io[j].op = op;
}

/* The oldest pending request for (dev, sector) that @pred accepts; removed if @take. */
static uint32_t io_find(struct builder *b, uint32_t dev, uint64_t sector, bool want_unissued,
			bool take)
{
	uint64_t k = io_key(dev, sector);
	size_t best_j = 0;
	uint32_t best = RSP_NONE;

	if (!b->io_cap)
		return RSP_NONE;
	for (size_t j = k & (b->io_cap - 1); b->io[j].op != RSP_NONE;
	     j = (j + 1) & (b->io_cap - 1)) {
		uint32_t op = b->io[j].op;
		const struct io_op *o;

		if (op == RSP_NONE - 1 || b->io[j].key != k)
			continue;
		o = &b->t->ios.v[op];
		if (o->dev != dev || o->sector != sector || (want_unissued && o->issue))
			continue;
		if (best == RSP_NONE || op < best) {
			best = op;
			best_j = j;
		}
	}
	if (best != RSP_NONE && take)
		b->io[best_j].op = RSP_NONE - 1;
	return best;
}

static uint32_t io_new(struct builder *b, const struct rsp_dev *ev, uint32_t issuer)
{
	struct io_op o;

	memset(&o, 0, sizeof(o));
	o.dev = ev->u.blk.dev;
	o.sector = ev->u.blk.sector;
	o.nr_sector = ev->u.blk.nr_sector;
	o.tid = issuer;
	o.woke = RSP_NONE;
	memcpy(o.rwbs, ev->u.blk.rwbs, sizeof(o.rwbs));
	if (!vec_push(&b->t->ios, o))
		return RSP_NONE;
	return (uint32_t)(b->t->ios.n - 1);
}

static bool is_flush(const struct rsp_dev *ev)
{
	return ev->u.blk.nr_sector == 0 && ev->u.blk.rwbs[0] == 'F';
}

/* The oldest pending flush of @dev, removed from the list. */
static uint32_t take_flush(struct builder *b, uint32_t dev)
{
	for (size_t i = 0; i < b->flushes.n; i++) {
		uint32_t op = b->flushes.v[i];

		if (b->t->ios.v[op].dev != dev)
			continue;
		memmove(&b->flushes.v[i], &b->flushes.v[i + 1],
			(b->flushes.n - i - 1) * sizeof(uint32_t));
		b->flushes.n--;
		return op;
	}
	return RSP_NONE;
}

void _rsp_on_block(struct builder *b, uint64_t t, uint32_t cpu, const struct rsp_dev *ev)
{
	uint32_t issuer = RSP_NONE, op;
	struct io_op *o;

	b->t->have_block = true;
	if (ev->ctx == RSP_CTX_TASK && ev->tid) {
		issuer = _rsp_builder_thread(b, ev->tid, 0, t);
		_rsp_builder_evidence(b, issuer, cpu, t);
	}
	switch (ev->kind) {
	case TP_BLK_INSERT:
		op = io_new(b, ev, issuer);
		if (op == RSP_NONE)
			return;
		b->t->ios.v[op].insert = t;
		if (is_flush(ev))
			vec_push(&b->flushes, op);
		else
			io_put(b, op);
		break;
	case TP_BLK_ISSUE:
		if (is_flush(ev)) {
			for (size_t i = 0; i < b->flushes.n; i++) {
				o = &b->t->ios.v[b->flushes.v[i]];
				if (o->dev == ev->u.blk.dev && !o->issue) {
					o->issue = t;
					return;
				}
			}
			op = io_new(b, ev, issuer);
			if (op == RSP_NONE)
				return;
			b->t->ios.v[op].insert = b->t->ios.v[op].issue = t;
			vec_push(&b->flushes, op);
			return;
		}
		op = io_find(b, ev->u.blk.dev, ev->u.blk.sector, true, false);
		if (op == RSP_NONE)
			/* issued again, not completed: a requeue (block_rq_requeue is not
			 * recorded; a virtio disk under load requeues): the same request,
			 * in service from its last issue.  (Two requests for one sector
			 * in flight at once without inserts would be taken for one.) */
			op = io_find(b, ev->u.blk.dev, ev->u.blk.sector, false, false);
		if (op == RSP_NONE) {
			/* issued without an insert (no scheduler queue): it starts here */
			op = io_new(b, ev, issuer);
			if (op == RSP_NONE)
				return;
			b->t->ios.v[op].insert = t;
			io_put(b, op);
		}
		b->t->ios.v[op].issue = t;
		break;
	case TP_BLK_COMPLETE:
		op = ev->u.blk.nr_sector == 0 && ev->u.blk.rwbs[0] == 'F' ?
			     take_flush(b, ev->u.blk.dev) :
			     io_find(b, ev->u.blk.dev, ev->u.blk.sector, false, true);
		if (op == RSP_NONE) {
			/* its start was not recorded (before the trace, or a flush
			 * sequence's completion): the start stays unknown (0) */
			op = io_new(b, ev, RSP_NONE);
			if (op == RSP_NONE)
				return;
		}
		o = &b->t->ios.v[op];
		o->complete = t;
		/* still in the queue when it completed: issued right after insert */
		if (!o->issue && o->insert)
			o->issue = o->insert;
		b->cpus[cpu].last_io = op;
		b->cpus[cpu].last_io_time = t;
		b->cpus[cpu].io_ctx = ev->ctx;
		b->cpus[cpu].io_gen = b->cpus[cpu].gen;
		break;
	default:
		break;
	}
}

