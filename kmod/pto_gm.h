/* SPDX-License-Identifier: GPL-2.0-only */
/* Copyright (C) 2026 pto-npu authors */
#ifndef __PTO_GM_H__
#define __PTO_GM_H__

#include <linux/list.h>
#include <linux/types.h>

#include "pto_task.h"

/* Buckets of a unit's lines not yet published, and of its invalidated lines. */
#define PTO_GM_VIEW_BITS 8
#define PTO_GM_INVAL_BITS 4

/**
 * struct pto_gm_key - an entry of one of pto_gm.c's hash tables
 * @node: in its bucket
 * @key: the GM line's index (its address / PTO_GM_LINE)
 */
struct pto_gm_key {
	struct hlist_node node;
	unsigned long key;
};

/**
 * struct pto_gm_view - how one running unit sees GM (non-coherent GM)
 * @dirty: its stores not yet published (struct pto_gm_line, by line)
 * @inval: lines invalidated one by one (CACHEINVALID of a tensor), with
 *         the task's publication count then (struct pto_gm_inval)
 * @epoch: the task's publication count at its last CACHEINVALID of the
 *         whole GM (0: its block start; the task's first publication is 1)
 * @ndirty: entries of @dirty
 * @unit: the unit
 * @obs: bit i: the buffer of tensor argument i is read by some kernel of
 *       the task, so stores through it are buffered (others write through:
 *       no unit of the task can see the difference)
 * @on: the unit's queue is non-coherent (else every call goes to GM)
 * @live: the unit runs (its tables may hold entries)
 * @ninval: entries of @inval
 * @rep_work: the instruction count of the last hazard reported (one per
 *            instruction)
 */
struct pto_gm_view {
	struct hlist_head dirty[1 << PTO_GM_VIEW_BITS];
	struct hlist_head inval[1 << PTO_GM_INVAL_BITS];
	u64 epoch;
	u32 ndirty;
	u32 unit;
	u16 obs;
	bool on;
	bool live;
	u32 ninval;
	u64 rep_work;
};

/**
 * struct pto_gm_access - one GM access of a unit, for the sanitizer
 * @task: the task
 * @tensor: the tensor argument
 * @pc: the instruction
 * @work: the unit's instruction count (one report per instruction)
 */
struct pto_gm_access {
	struct pto_task *task;
	u32 tensor;
	u32 pc;
	u64 work;
};

void pto_gm_view_start(struct pto_gm_view *v, struct pto_task *t, u32 unit);
int pto_gm_view_end(struct pto_gm_view *v, struct pto_task *t);
void pto_gm_view_drop(struct pto_gm_view *v);
void pto_gm_load(struct pto_gm_view *v, const struct pto_gm_access *a,
		 const u8 *gm, u8 *dst, size_t len);
int pto_gm_store(struct pto_gm_view *v, const struct pto_gm_access *a,
		 u8 *gm, const u8 *src, size_t len);
int pto_gm_fence(struct pto_gm_view *v, struct pto_task *t);
int pto_gm_invalidate(struct pto_gm_view *v, struct pto_task *t,
		      const u8 *gm);
int pto_gm_copy_tile(struct pto_gm_view *v, const struct pto_gm_access *a,
		     u64 row, u64 col, const struct pto_tile_layout *tl,
		     u8 *tile, bool load);
int pto_gm_atomic_add(struct pto_gm_view *v, const struct pto_gm_access *a,
		      u8 *gm, s32 add, s32 *old);
void pto_gm_task_retire(struct pto_task *t);
void pto_gm_gc_flush(void);
void pto_gm_task_free(struct pto_task *t);

#endif /* __PTO_GM_H__ */
