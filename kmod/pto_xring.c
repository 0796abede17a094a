// SPDX-License-Identifier: GPL-2.0-only
/*
 * pto_npu: the cross-core ring of a mixed task.
 *
 * Each block of a mixed task owns one ring set: per participating AIV, a
 * cube-to-vector ring and a vector-to-cube ring of slot_num slots each,
 * living in that AIV's unified buffer right after the vector kernel's tiles
 * (so the slots come out of the UB budget, checked at submit). Under
 * UP_DOWN the AIC's PUSH scatters the upper half of the tile's rows to
 * AIV 0 and the lower half to AIV 1, and its POP gathers them back.
 *
 * The try_ functions are the ring's semantics, run under the task's ring
 * lock: -EAGAIN for "full"/"empty, try again", -EPIPE for "can never
 * complete" (the other side has ended).
 *
 * A PUSH to a full ring or a POP from an empty one parks, as a barrier
 * wait does (pto_barrier.c): the unit's state stays with its core, it is
 * listed on its block's ring set, and its thread goes on with other units.
 * The next change of the set (a PUSH, a POP, a side ending) makes its
 * waiters runnable, and each retries its instruction; a cancel releases
 * them, and the scheduler's watchdog ends waits on a set that has not
 * moved for timeout_ms. No thread sleeps in a ring wait, so a mixed task's
 * units can run on any worker thread, and a hand-off between cube and
 * vector costs no wake-up or context switch.
 *
 * Copyright (C) 2026 pto-npu authors
 */

#include <linux/cleanup.h>
#include <linux/lockdep.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "pto_barrier.h"
#include "pto_sched.h"
#include "pto_xring.h"

static u8 *pto_slot(const struct pto_xring_set *set, u32 part, bool c2v,
		    u32 index)
{
	u32 slot = index % set->slot_num;

	if (c2v)
		return set->mem[part] + (size_t)slot * set->c2v_bytes;
	if (set->spill[part])
		return set->spill[part] + (size_t)slot * set->v2c_bytes;
	return set->mem[part] + (size_t)set->slot_num * set->c2v_bytes +
	       (size_t)slot * set->v2c_bytes;
}

/**
 * pto_xring_try_push - move a tile into the ring
 * @set: the block's ring set (the caller holds its task's xlock)
 * @from_aic: the AIC pushes (to every AIV part) or AIV @part pushes
 * @part: pushing AIV part (ignored for the AIC)
 * @tile: tile data, rows of @row_bytes
 * @rows: rows of the pushed tile
 * @row_bytes: bytes per row
 *
 * Return: 0, -EAGAIN when a slot is not free, -EPIPE when a consumer has ended.
 */
VISIBLE_IF_KUNIT int pto_xring_try_push(struct pto_xring_set *set,
					bool from_aic, u32 part,
					const u8 *tile, u32 rows, u32 row_bytes)
{
	u32 p, per = rows / set->nparts;

	if (!from_aic) {
		struct pto_xring *r = &set->ring[part];

		if (set->aic_done)
			return -EPIPE;
		if (r->v2c_tail - r->v2c_head >= set->slot_num)
			return -EAGAIN;
		memcpy(pto_slot(set, part, false, r->v2c_tail), tile,
		       (size_t)rows * row_bytes);
		r->v2c_tail++;
		set->seq++;
		return 0;
	}
	for (p = 0; p < set->nparts; p++) {
		if (set->aiv_done[p])
			return -EPIPE;
		if (set->ring[p].c2v_tail - set->ring[p].c2v_head >= set->slot_num)
			return -EAGAIN;
	}
	for (p = 0; p < set->nparts; p++) {
		struct pto_xring *r = &set->ring[p];

		memcpy(pto_slot(set, p, true, r->c2v_tail),
		       tile + (size_t)p * per * row_bytes, (size_t)per * row_bytes);
		r->c2v_tail++;
	}
	set->seq++;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(pto_xring_try_push);

/**
 * pto_xring_try_pop - take the oldest filled slot and free it
 * @set: the block's ring set (the caller holds its task's xlock)
 * @to_aic: the AIC pops (gathering every AIV part) or AIV @part pops
 * @part: popping AIV part (ignored for the AIC)
 * @tile: destination, rows of @row_bytes
 * @rows: rows of the destination tile
 * @row_bytes: bytes per row
 *
 * Return: 0, -EAGAIN when empty, -EPIPE when empty and the producer has ended.
 */
VISIBLE_IF_KUNIT int pto_xring_try_pop(struct pto_xring_set *set, bool to_aic,
				       u32 part, u8 *tile, u32 rows,
				       u32 row_bytes)
{
	u32 p, per = rows / set->nparts;

	if (!to_aic) {
		struct pto_xring *r = &set->ring[part];

		if (r->c2v_tail == r->c2v_head)
			return set->aic_done ? -EPIPE : -EAGAIN;
		memcpy(tile, pto_slot(set, part, true, r->c2v_head),
		       (size_t)rows * row_bytes);
		r->c2v_head++;
		set->seq++;
		return 0;
	}
	for (p = 0; p < set->nparts; p++) {
		if (set->ring[p].v2c_tail == set->ring[p].v2c_head)
			return set->aiv_done[p] ? -EPIPE : -EAGAIN;
	}
	for (p = 0; p < set->nparts; p++) {
		struct pto_xring *r = &set->ring[p];

		memcpy(tile + (size_t)p * per * row_bytes,
		       pto_slot(set, p, false, r->v2c_head),
		       (size_t)per * row_bytes);
		r->v2c_head++;
	}
	set->seq++;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(pto_xring_try_pop);

/*
 * How a PUSH or POP's try (@ret) ends, under the task's xlock: a set that
 * moved releases its waiters to @release; on a full or empty ring the unit
 * waits, unless the other side has ended or the task is cancelled.
 */
static s32 pto_xring_settle(struct pto_task *task, struct pto_xring_set *set,
			    struct pto_core *core, int ret,
			    struct list_head *release)
{
	lockdep_assert_held(&task->xlock);
	if (!ret) {
		/* The set moved: its waiters try again. */
		list_splice_init(&set->waiters, release);
		return DRM_PTO_NPU_STATUS_OK;
	}
	if (ret == -EPIPE)
		return DRM_PTO_NPU_STATUS_TIMEOUT;
	/* Set before the canceller takes xlock to release the waiters. */
	if (atomic_read(&task->cancel))
		return DRM_PTO_NPU_STATUS_CANCELLED;
	/* The watchdog reads the clock at its next look. */
	if (list_empty(&set->waiters))
		set->wd_progress = 0;
	list_add_tail(&core->park_link, &set->waiters);
	return PTO_STATUS_PARKED;
}

/**
 * pto_xring_op - PUSH or POP for a running unit
 * @task: the mixed task
 * @block: block index
 * @core: the unit's core (the block's AIC, or AIV @part)
 * @part: AIV part
 * @push: PUSH (else POP)
 * @tile: the tile
 * @rows: its rows
 * @row_bytes: bytes per row
 *
 * Return: DRM_PTO_NPU_STATUS_OK, PTO_STATUS_PARKED (full or empty: the
 * unit waits parked and retries the instruction once released),
 * _TIMEOUT (the other side has ended, so the ring can never move) or
 * _CANCELLED.
 */
s32 pto_xring_op(struct pto_task *task, u32 block, struct pto_core *core,
		 u32 part, bool push, u8 *tile, u32 rows, u32 row_bytes)
{
	struct pto_xring_set *set = &task->rings[block];
	bool aic = core->type == PTO_CORE_AIC;
	LIST_HEAD(release);
	s32 st;

	scoped_guard(spinlock, &task->xlock) {
		int ret = push ?
			  pto_xring_try_push(set, aic, part, tile, rows, row_bytes) :
			  pto_xring_try_pop(set, aic, part, tile, rows, row_bytes);

		st = pto_xring_settle(task, set, core, ret, &release);
	}
	/* With xlock dropped: the scheduler lock ranks above it. */
	pto_unpark_list(task->ctx->pdev->sched, &release, DRM_PTO_NPU_STATUS_OK);
	return st;
}

/**
 * pto_xring_side_done - a block's AIC or AIV part has ended
 * @s: scheduler (the caller holds its lock)
 * @task: the mixed task
 * @block: block index
 * @aic: the AIC part (else AIV @part)
 * @part: AIV part
 *
 * Its peers parked on the set retry, and find they can never complete.
 */
void pto_xring_side_done(struct pto_sched *s, struct pto_task *task,
			 u32 block, bool aic, u32 part)
{
	struct pto_xring_set *set = &task->rings[block];
	LIST_HEAD(release);

	lockdep_assert_held(&s->lock);
	scoped_guard(spinlock, &task->xlock) {
		if (aic)
			set->aic_done = true;
		else
			set->aiv_done[part] = true;
		set->seq++;
		list_splice_init(&set->waiters, &release);
	}
	pto_unpark_list_locked(s, &release, DRM_PTO_NPU_STATUS_OK);
}

/* Filled v2c slots of AIV part @part that its AIC has not popped yet. */
static bool pto_xring_v2c_filled(const struct pto_xring_set *set, u32 part)
{
	return !set->aic_done && set->v2c_bytes &&
	       set->ring[part].v2c_tail != set->ring[part].v2c_head;
}

/**
 * pto_xring_spill - keep an ended AIV part's filled v2c slots
 * @task: the mixed task
 * @block: block index
 * @part: the AIV part, whose kernel has ended (no more PUSHes)
 *
 * Called by the part's worker before the unit is retired, while its core
 * (and so its UB) is still the block's: once retired, the core may run
 * another unit, of this context or another, before the AIC has popped the
 * slots. Their contents move into memory of the task's own, where the
 * AIC's POPs read them; the UB is the next owner's (scrubbed for another
 * context, pto_core_scrub()).
 *
 * Return: 0, or -ENOMEM: the slots are dropped, so a POP finds the ring
 * ended, and the caller fails the unit.
 */
int pto_xring_spill(struct pto_task *task, u32 block, u32 part)
{
	struct pto_xring_set *set = &task->rings[block];
	struct pto_xring *r = &set->ring[part];
	bool filled;
	u8 *buf;
	u32 i;

	spin_lock(&task->xlock);
	filled = pto_xring_v2c_filled(set, part);
	spin_unlock(&task->xlock);
	if (!filled)
		return 0;
	buf = kvmalloc_array(set->slot_num, set->v2c_bytes,
			     GFP_KERNEL_ACCOUNT);
	spin_lock(&task->xlock);
	if (!buf) {
		r->v2c_head = r->v2c_tail;
		set->seq++;
	} else if (set->aic_done || set->aic_ended) {
		/*
		 * The cube has ended meanwhile (its spills dropped, its
		 * unit maybe not yet retired): nothing will pop them.
		 */
		filled = false;
	} else {
		/* Only the AIC moves v2c_head meanwhile: copy what is filled. */
		for (i = r->v2c_head; i != r->v2c_tail; i++)
			memcpy(buf + (size_t)(i % set->slot_num) * set->v2c_bytes,
			       pto_slot(set, part, false, i), set->v2c_bytes);
		set->spill[part] = buf;
	}
	spin_unlock(&task->xlock);
	if (buf && !filled)
		kvfree(buf);
	return buf ? 0 : -ENOMEM;
}
EXPORT_SYMBOL_IF_KUNIT(pto_xring_spill);

/**
 * pto_xring_drop_spills - a block's AIC part has ended: nothing reads its spills
 * @task: the mixed task
 * @block: block index
 *
 * Called by the AIC's worker, unlocked: a completed task waiting for CQ
 * space keeps no ring memory.
 */
void pto_xring_drop_spills(struct pto_task *task, u32 block)
{
	struct pto_xring_set *set = &task->rings[block];
	u8 *spill[2];

	scoped_guard(spinlock, &task->xlock) {
		/* An AIV part ending from now on keeps nothing (pto_xring_spill()). */
		set->aic_ended = true;
		spill[0] = set->spill[0];
		spill[1] = set->spill[1];
		set->spill[0] = NULL;
		set->spill[1] = NULL;
	}
	kvfree(spill[0]);
	kvfree(spill[1]);
}
EXPORT_SYMBOL_IF_KUNIT(pto_xring_drop_spills);

/**
 * pto_xring_free_spills - free a task's spilled slots
 * @task: the task, its units all ended
 */
void pto_xring_free_spills(struct pto_task *task)
{
	u32 b;

	for (b = 0; task->rings && b < task->block_num; b++) {
		kvfree(task->rings[b].spill[0]);
		kvfree(task->rings[b].spill[1]);
		task->rings[b].spill[0] = NULL;
		task->rings[b].spill[1] = NULL;
	}
}

/**
 * pto_xring_release_task - take every ring waiter of a task
 * @task: the task (its xlock held)
 * @release: out: the waiters' cores, by park_link
 */
void pto_xring_release_task(struct pto_task *task, struct list_head *release)
{
	u32 b;

	lockdep_assert_held(&task->xlock);
	/* Only blocks placed so far can have waiters. */
	for (b = 0; task->rings && b < task->next_block; b++)
		list_splice_init(&task->rings[b].waiters, release);
}

/**
 * pto_xring_scan_stalled - the watchdog's look at a task's rings
 * @task: the task (its xlock held)
 * @now: CLOCK_MONOTONIC ns
 * @timeout: no-progress timeout, ns
 * @moved: a unit of the task ran since the last look: every set progressed
 * @stalled: out: waiters on sets that have not moved for @timeout
 *
 * Return: whether any unit still waits on one of the task's rings.
 */
bool pto_xring_scan_stalled(struct pto_task *task, u64 now, u64 timeout,
			    bool moved, struct list_head *stalled)
{
	bool waiting = false;
	u32 b;

	lockdep_assert_held(&task->xlock);
	for (b = 0; task->rings && b < task->next_block; b++) {
		struct pto_xring_set *set = &task->rings[b];

		if (list_empty(&set->waiters))
			continue;
		if (moved || set->seq != set->wd_seq || !set->wd_progress) {
			set->wd_seq = set->seq;
			set->wd_progress = now;
		} else if (pto_stalled(now, set->wd_progress, timeout)) {
			list_splice_init(&set->waiters, stalled);
			continue;
		}
		waiting = true;
	}
	return waiting;
}
