/* SPDX-License-Identifier: GPL-2.0-only */
/* Copyright (C) 2026 pto-npu authors */
#ifndef __PTO_INFER_H__
#define __PTO_INFER_H__

#include <linux/hashtable.h>
#include <linux/limits.h>
#include <linux/list.h>
#include <linux/rbtree_types.h>
#include <linux/types.h>

struct pto_ctx;
struct pto_targ;
struct pto_task;
struct pto_infer_buf;

#define PTO_INFER_HASH_BITS 6
/* Empty per-buffer trees a context keeps for reuse (pto_infer.c). */
#define PTO_INFER_IDLE_MAX 64
/* Tasks the sanitizer's dependency path search visits (pto_infer.c). */
#define PTO_INFER_PATH_MAX 32
/* &pto_infer_rec.node of a task's own tensor argument. */
#define PTO_INFER_OWN U32_MAX
/*
 * In-flight access records one task's inference may look at, under the
 * scheduler lock: with the edge cap, what bounds the lock's hold.
 */
#define PTO_INFER_MAX_VISITS (4 * DRM_PTO_NPU_MAX_INFERRED_DEPS)
/*
 * In-flight access records the sanitizer's RACE and PREDICATE scans of
 * one task look at, under the scheduler lock (pto_infer_hazards()).
 */
#define PTO_INFER_SCAN_MAX (4 * DRM_PTO_NPU_MAX_INFERRED_DEPS)

/**
 * struct pto_infer_rec - one tensor argument's access, in its buffer's tree
 * @rb: in &pto_infer_buf.rd (reads only) or &pto_infer_buf.wr (writes)
 * @start: first byte of the view in the buffer
 * @last: last byte the view can address
 * @subtree_last: interval tree bookkeeping
 * @task: the task
 * @buf: the buffer's trees, NULL when not in a tree
 * @node: PTO_INFER_OWN for the task's own tensor argument; for a launch's
 *        record of a recorded buffer (&pto_gacc), the lowest node that
 *        accesses it: reports name that node's argument
 * @tensor: the task's tensor argument, or that node's
 * @acc: PTO_ACC_* (the direction, or the kernels' use when undirected)
 * @directed: the argument has a direction: it is inferred from
 */
struct pto_infer_rec {
	struct rb_node rb;
	u64 start;
	u64 last;
	u64 subtree_last;
	struct pto_task *task;
	struct pto_infer_buf *buf;
	u32 node;
	u8 tensor;
	u8 acc;
	bool directed;
};

/**
 * struct pto_infer_ctx - a context's accesses of tasks not yet complete
 * @bufs: per-buffer trees, hashed by buffer (sched lock)
 * @idle: empty trees kept for reuse, oldest first (sched lock)
 * @nidle: trees on @idle
 * @spare: trees allocated ahead of intake (submit_lock)
 * @nspare: trees on @spare
 */
struct pto_infer_ctx {
	DECLARE_HASHTABLE(bufs, PTO_INFER_HASH_BITS);
	struct list_head idle;
	u32 nidle;
	struct list_head spare;
	u32 nspare;
};

void pto_infer_init(struct pto_infer_ctx *ic);
void pto_infer_fini(struct pto_infer_ctx *ic);
int pto_infer_prepare(struct pto_ctx *ctx, struct pto_task *task);
void pto_infer_link(struct pto_ctx *ctx, struct pto_task *task);
void pto_infer_retire(struct pto_ctx *ctx, struct pto_task *task);
void pto_infer_span(const struct pto_targ *ta, u64 *start, u64 *last);

#endif /* __PTO_INFER_H__ */
