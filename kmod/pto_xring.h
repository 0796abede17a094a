/* SPDX-License-Identifier: GPL-2.0-only */
/* Copyright (C) 2026 pto-npu authors */
#ifndef __PTO_XRING_H__
#define __PTO_XRING_H__

#include <linux/list.h>
#include <linux/types.h>

struct pto_core;
struct pto_sched;
struct pto_task;

/**
 * struct pto_xring - one AIV part's two rings
 * @c2v_head: cube-to-vector slots consumed
 * @c2v_tail: cube-to-vector slots filled
 * @v2c_head: vector-to-cube slots consumed
 * @v2c_tail: vector-to-cube slots filled
 */
struct pto_xring {
	u32 c2v_head;
	u32 c2v_tail;
	u32 v2c_head;
	u32 v2c_tail;
};

/**
 * struct pto_xring_set - the cross-core rings of one block of a mixed task
 * @nparts: participating AIVs (1, or 2 under UP_DOWN)
 * @slot_num: slots per ring
 * @c2v_bytes: bytes of one cube-to-vector slot (an AIV's share)
 * @v2c_bytes: bytes of one vector-to-cube slot (an AIV's share)
 * @mem: slot memory in each AIV's UB: c2v slots, then v2c slots
 * @spill: an ended AIV part's filled v2c slots, copied out of its UB before
 *         its core went back to the scheduler (pto_xring_spill()), or NULL
 * @ring: indices per AIV part
 * @aic_done: the AIC part has ended
 * @aic_ended: the AIC part's kernel has ended and its worker dropped the
 *             spills: none is kept again (xlock; set before @aic_done,
 *             which waits for the unit's status)
 * @aiv_done: the AIV parts have ended
 * @seq: bumped on every change
 * @waiters: cores whose unit is parked on a full or empty ring of this set
 *           (by park_link); released by the next change
 * @wd_seq: @seq as the watchdog last saw it (no-progress timeout)
 * @wd_progress: when the watchdog saw @seq move (CLOCK_MONOTONIC ns), 0
 *               before its first look
 */
struct pto_xring_set {
	u32 nparts;
	u32 slot_num;
	u32 c2v_bytes;
	u32 v2c_bytes;
	u8 *mem[2];
	u8 *spill[2];
	struct pto_xring ring[2];
	bool aic_done;
	bool aic_ended;
	bool aiv_done[2];
	u64 seq;
	struct list_head waiters;
	u64 wd_seq;
	u64 wd_progress;
};

#if IS_ENABLED(CONFIG_KUNIT)
int pto_xring_try_push(struct pto_xring_set *set, bool from_aic, u32 part,
		       const u8 *tile, u32 rows, u32 row_bytes);
int pto_xring_try_pop(struct pto_xring_set *set, bool to_aic, u32 part,
		      u8 *tile, u32 rows, u32 row_bytes);
#endif
s32 pto_xring_op(struct pto_task *task, u32 block, struct pto_core *core,
		 u32 part, bool push, u8 *tile, u32 rows, u32 row_bytes);
void pto_xring_side_done(struct pto_sched *s, struct pto_task *task,
			 u32 block, bool aic, u32 part);
int pto_xring_spill(struct pto_task *task, u32 block, u32 part);
void pto_xring_drop_spills(struct pto_task *task, u32 block);
void pto_xring_free_spills(struct pto_task *task);
void pto_xring_release_task(struct pto_task *task, struct list_head *release);
bool pto_xring_scan_stalled(struct pto_task *task, u64 now, u64 timeout,
			    bool moved, struct list_head *stalled);

#endif /* __PTO_XRING_H__ */
