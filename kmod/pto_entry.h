/* SPDX-License-Identifier: GPL-2.0-only */
/* Copyright (C) 2026 pto-npu authors */
#ifndef __PTO_ENTRY_H__
#define __PTO_ENTRY_H__

#include <linux/math.h>
#include <linux/types.h>

#include "pto_drv.h"

struct drm_file;
struct pto_ctx;
struct pto_queue;
struct pto_task;

/* pto_entry.c: one SQ entry's validation into a task (doorbell, GRAPH_CREATE) */

#define PTO_TENSOR_ARG_SIZE sizeof(struct drm_pto_npu_tensor_arg)
#define PTO_SQE_SLOT DRM_PTO_NPU_SQ_SLOT_SIZE
/* Largest entry: header + every argument at its cap + a predicate. */
#define PTO_SQE_MAX_SLOTS (1 + DIV_ROUND_UP(PTO_MAX_TENSOR_ARGS * PTO_TENSOR_ARG_SIZE + \
					    (PTO_MAX_SCALAR_ARGS + PTO_MAX_DEPS) * sizeof(s64) + \
					    sizeof(struct drm_pto_npu_predicate), PTO_SQE_SLOT))

/**
 * struct pto_task_shape - the counts a task's allocation is laid out for
 * @nt: tensor arguments
 * @ns: scalar arguments
 * @nd: dependencies (edge records)
 * @nb: blocks
 * @nparts: units per block (1, or 2-3 for a mixed task)
 * @directed: some tensor argument has a direction (access records)
 * @node: a launch's node: no access records (its launch holds them)
 * @nnodes: a launch's graph's nodes: room for its &pto_launch first
 *          (pto_task_launch()), 0 for any other task
 */
struct pto_task_shape {
	u32 nt;
	u32 ns;
	u32 nd;
	u32 nb;
	u32 nparts;
	u32 nnodes;
	bool directed;
	bool node;
};

struct pto_task *pto_task_alloc_shaped(struct pto_ctx *ctx, struct pto_queue *q,
				       const struct pto_task_shape *sh,
				       bool prof, bool haz);
u32 pto_sqe_nparts(const struct drm_pto_npu_sqe *e);
struct pto_task *pto_entry_task_alloc(struct pto_ctx *ctx, struct pto_queue *q,
				      const struct drm_pto_npu_sqe *e, bool sized,
				      u32 nnodes);
int pto_refuse(struct pto_task *t, u8 reason, u64 detail);
int pto_resolve_tensors(struct pto_task *t, struct drm_file *file,
			const struct drm_pto_npu_tensor_arg *args);
int pto_resolve_deps(struct pto_task *t, const s64 *raw, s64 *deps);
int pto_resolve_predicate(struct pto_task *t, const struct drm_pto_npu_sqe *e,
			  const struct drm_pto_npu_predicate *p);
u32 pto_sqe_slots(u32 nt, u32 ns, u32 nd, bool pred);
void pto_sqe_resolve_grid(const struct pto_device *pdev,
			  struct drm_pto_npu_sqe *e);
u8 pto_sqe_check_size(const struct drm_pto_npu_sqe *e, u32 nslots, u64 *detail);
int pto_entry_parse(struct pto_device *pdev, struct drm_file *file,
		    struct pto_task *t, const struct drm_pto_npu_sqe *e, s64 *deps);

#endif /* __PTO_ENTRY_H__ */
