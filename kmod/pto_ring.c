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
 * complete" (the other side has ended). pto_ring_op() waits on -EAGAIN,
 * bounded by the block's deadline and the task's cancel flag.
 *
 * Copyright (C) 2026 pto-npu authors
 */

#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "pto_task.h"

static u8 *pto_slot(const struct pto_xring_set *set, u32 part, bool c2v,
		    u32 index)
{
	u32 slot = index % set->slot_num;

	if (c2v)
		return set->mem[part] + (size_t)slot * set->c2v_bytes;
	return set->mem[part] + (size_t)set->slot_num * set->c2v_bytes +
	       (size_t)slot * set->v2c_bytes;
}

/**
 * pto_xring_try_push - move a tile into the ring
 * @set: the block's ring set (lock held)
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
 * @set: the block's ring set (lock held)
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

/**
 * pto_ring_op - PUSH or POP for a running block, waiting as needed
 * @task: the mixed task
 * @block: block index
 * @aic: the caller is the block's AIC (else AIV @part)
 * @part: AIV part
 * @push: PUSH (else POP)
 * @tile: the tile
 * @rows: its rows
 * @row_bytes: bytes per row
 * @deadline: unused (waits end after timeout_ms without progress)
 *
 * Return: DRM_PTO_NPU_STATUS_OK, _TIMEOUT (deadline passed, or the other
 * side ended so the ring can never move) or _CANCELLED.
 */
s32 pto_ring_op(struct pto_task *task, u32 block, bool aic, u32 part,
		bool push, u8 *tile, u32 rows, u32 row_bytes, u64 deadline)
{
	struct pto_xring_set *set = &task->rings[block];
	u64 timeout = (u64)pto_clamped_timeout_ms() * NSEC_PER_MSEC;
	u64 last = U64_MAX;
	bool slept = false;
	s32 st;

	/* No progress = the block's rings have not moved for timeout_ms. */
	deadline = ktime_get_ns() + timeout;
	for (;;) {
		u64 now, seen;
		int ret;

		spin_lock(&task->xlock);
		ret = push ? pto_xring_try_push(set, aic, part, tile, rows, row_bytes) :
			     pto_xring_try_pop(set, aic, part, tile, rows, row_bytes);
		seen = set->seq;
		spin_unlock(&task->xlock);
		if (seen != last) {
			last = seen;
			deadline = ktime_get_ns() + timeout;
		}
		if (!ret) {
			wake_up_all(&task->xwait);
			st = DRM_PTO_NPU_STATUS_OK;
			break;
		}
		st = DRM_PTO_NPU_STATUS_TIMEOUT;
		if (ret == -EPIPE)
			break;
		if (atomic_read(&task->cancel)) {
			st = DRM_PTO_NPU_STATUS_CANCELLED;
			break;
		}
		now = ktime_get_ns();
		if (now >= deadline)
			break;
		if (!slept) {
			pto_sched_sleep_begin(task->ctx->pdev);
			slept = true;
		}
		/* Sleep, not spin: the VM may have far fewer CPUs than cores. */
		wait_event_timeout(task->xwait,
				   READ_ONCE(set->seq) != seen ||
				   atomic_read(&task->cancel),
				   max(nsecs_to_jiffies(deadline - now), 1UL));
	}
	if (slept)
		pto_sched_sleep_end(task->ctx->pdev);
	return st;
}

/**
 * pto_ring_side_done - a block's AIC or AIV part has ended
 * @task: the mixed task
 * @block: block index
 * @aic: the AIC part (else AIV @part)
 * @part: AIV part
 */
void pto_ring_side_done(struct pto_task *task, u32 block, bool aic, u32 part)
{
	struct pto_xring_set *set = &task->rings[block];

	spin_lock(&task->xlock);
	if (aic)
		set->aic_done = true;
	else
		set->aiv_done[part] = true;
	set->seq++;
	spin_unlock(&task->xlock);
	wake_up_all(&task->xwait);
}
