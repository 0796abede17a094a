/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pto_npu tracepoints: system "pto_npu" in tracefs
 * (/sys/kernel/tracing/events/pto_npu/). Every event names the device,
 * the task id and, for per-core events, the unit (block * parts + part),
 * the core type and the core index.
 *
 * Copyright (C) 2026 pto-npu authors
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM pto_npu

#if !defined(_PTO_TRACE_H_) || defined(TRACE_HEADER_MULTI_READ)
#define _PTO_TRACE_H_

#include <linux/tracepoint.h>

#include "pto_sched.h"

/*
 * Status, reason, core type and task flags by name in the text output
 * (trace-cmd and perf read the symbols from the format files).
 */
TRACE_DEFINE_ENUM(DRM_PTO_NPU_STATUS_OK);
TRACE_DEFINE_ENUM(DRM_PTO_NPU_STATUS_INVALID);
TRACE_DEFINE_ENUM(DRM_PTO_NPU_STATUS_GM_FAULT);
TRACE_DEFINE_ENUM(DRM_PTO_NPU_STATUS_TIMEOUT);
TRACE_DEFINE_ENUM(DRM_PTO_NPU_STATUS_DEP_FAILED);
TRACE_DEFINE_ENUM(DRM_PTO_NPU_STATUS_CANCELLED);
TRACE_DEFINE_ENUM(DRM_PTO_NPU_STATUS_ARITH_FAULT);
TRACE_DEFINE_ENUM(DRM_PTO_NPU_STATUS_LOOP_FAULT);
TRACE_DEFINE_ENUM(DRM_PTO_NPU_STATUS_SKIPPED);
TRACE_DEFINE_ENUM(DRM_PTO_NPU_STATUS_BARRIER_FAULT);
TRACE_DEFINE_ENUM(DRM_PTO_NPU_STATUS_NOMEM);
TRACE_DEFINE_ENUM(DRM_PTO_NPU_STATUS_WORK_BUDGET);
TRACE_DEFINE_ENUM(DRM_PTO_NPU_STATUS_WORKSPACE);
TRACE_DEFINE_ENUM(DRM_PTO_NPU_REASON_NONE);
TRACE_DEFINE_ENUM(DRM_PTO_NPU_REASON_SLOTS);
TRACE_DEFINE_ENUM(DRM_PTO_NPU_REASON_FLAGS);
TRACE_DEFINE_ENUM(DRM_PTO_NPU_REASON_RESERVED);
TRACE_DEFINE_ENUM(DRM_PTO_NPU_REASON_KERNEL);
TRACE_DEFINE_ENUM(DRM_PTO_NPU_REASON_KERNEL_TYPE);
TRACE_DEFINE_ENUM(DRM_PTO_NPU_REASON_BLOCK_NUM);
TRACE_DEFINE_ENUM(DRM_PTO_NPU_REASON_COUNTS);
TRACE_DEFINE_ENUM(DRM_PTO_NPU_REASON_ARG_COUNT);
TRACE_DEFINE_ENUM(DRM_PTO_NPU_REASON_TENSOR_HANDLE);
TRACE_DEFINE_ENUM(DRM_PTO_NPU_REASON_TENSOR_LAYOUT);
TRACE_DEFINE_ENUM(DRM_PTO_NPU_REASON_TENSOR_RANGE);
TRACE_DEFINE_ENUM(DRM_PTO_NPU_REASON_TENSOR_DTYPE);
TRACE_DEFINE_ENUM(DRM_PTO_NPU_REASON_DEP);
TRACE_DEFINE_ENUM(DRM_PTO_NPU_REASON_PREDICATE);
TRACE_DEFINE_ENUM(DRM_PTO_NPU_REASON_SYNC_START);
TRACE_DEFINE_ENUM(DRM_PTO_NPU_REASON_RING);
TRACE_DEFINE_ENUM(DRM_PTO_NPU_REASON_SLOT_BUDGET);
TRACE_DEFINE_ENUM(DRM_PTO_NPU_REASON_SYNCALL);
TRACE_DEFINE_ENUM(PTO_CORE_AIV);
TRACE_DEFINE_ENUM(PTO_CORE_AIC);
TRACE_DEFINE_ENUM(DRM_PTO_NPU_HAZARD_STALE_READ);
TRACE_DEFINE_ENUM(DRM_PTO_NPU_HAZARD_UNFENCED);
TRACE_DEFINE_ENUM(DRM_PTO_NPU_HAZARD_PREDICATE);
TRACE_DEFINE_ENUM(DRM_PTO_NPU_HAZARD_RACE);

#define pto_show_hazard(v) __print_symbolic(v, \
	{ DRM_PTO_NPU_HAZARD_STALE_READ, "STALE_READ" }, \
	{ DRM_PTO_NPU_HAZARD_UNFENCED, "UNFENCED" }, \
	{ DRM_PTO_NPU_HAZARD_PREDICATE, "PREDICATE" }, \
	{ DRM_PTO_NPU_HAZARD_RACE, "RACE" })

#define pto_show_status(v) __print_symbolic(v, \
	{ DRM_PTO_NPU_STATUS_OK, "OK" }, \
	{ DRM_PTO_NPU_STATUS_INVALID, "INVALID" }, \
	{ DRM_PTO_NPU_STATUS_GM_FAULT, "GM_FAULT" }, \
	{ DRM_PTO_NPU_STATUS_TIMEOUT, "TIMEOUT" }, \
	{ DRM_PTO_NPU_STATUS_DEP_FAILED, "DEP_FAILED" }, \
	{ DRM_PTO_NPU_STATUS_CANCELLED, "CANCELLED" }, \
	{ DRM_PTO_NPU_STATUS_ARITH_FAULT, "ARITH_FAULT" }, \
	{ DRM_PTO_NPU_STATUS_LOOP_FAULT, "LOOP_FAULT" }, \
	{ DRM_PTO_NPU_STATUS_SKIPPED, "SKIPPED" }, \
	{ DRM_PTO_NPU_STATUS_BARRIER_FAULT, "BARRIER_FAULT" }, \
	{ DRM_PTO_NPU_STATUS_NOMEM, "NOMEM" }, \
	{ DRM_PTO_NPU_STATUS_WORK_BUDGET, "WORK_BUDGET" }, \
	{ DRM_PTO_NPU_STATUS_WORKSPACE, "WORKSPACE" })

#define pto_show_reason(v) __print_symbolic(v, \
	{ DRM_PTO_NPU_REASON_NONE, "NONE" }, \
	{ DRM_PTO_NPU_REASON_SLOTS, "SLOTS" }, \
	{ DRM_PTO_NPU_REASON_FLAGS, "FLAGS" }, \
	{ DRM_PTO_NPU_REASON_RESERVED, "RESERVED" }, \
	{ DRM_PTO_NPU_REASON_KERNEL, "KERNEL" }, \
	{ DRM_PTO_NPU_REASON_KERNEL_TYPE, "KERNEL_TYPE" }, \
	{ DRM_PTO_NPU_REASON_BLOCK_NUM, "BLOCK_NUM" }, \
	{ DRM_PTO_NPU_REASON_COUNTS, "COUNTS" }, \
	{ DRM_PTO_NPU_REASON_ARG_COUNT, "ARG_COUNT" }, \
	{ DRM_PTO_NPU_REASON_TENSOR_HANDLE, "TENSOR_HANDLE" }, \
	{ DRM_PTO_NPU_REASON_TENSOR_LAYOUT, "TENSOR_LAYOUT" }, \
	{ DRM_PTO_NPU_REASON_TENSOR_RANGE, "TENSOR_RANGE" }, \
	{ DRM_PTO_NPU_REASON_TENSOR_DTYPE, "TENSOR_DTYPE" }, \
	{ DRM_PTO_NPU_REASON_DEP, "DEP" }, \
	{ DRM_PTO_NPU_REASON_PREDICATE, "PREDICATE" }, \
	{ DRM_PTO_NPU_REASON_SYNC_START, "SYNC_START" }, \
	{ DRM_PTO_NPU_REASON_RING, "RING" }, \
	{ DRM_PTO_NPU_REASON_SLOT_BUDGET, "SLOT_BUDGET" }, \
	{ DRM_PTO_NPU_REASON_SYNCALL, "SYNCALL" })

#define pto_show_core_type(v) __print_symbolic(v, \
	{ PTO_CORE_AIV, "AIV" }, \
	{ PTO_CORE_AIC, "AIC" })

#define pto_show_task_flags(v) __print_flags(v, "|", \
	{ DRM_PTO_NPU_TASK_F_SYNC_START, "SYNC_START" }, \
	{ DRM_PTO_NPU_TASK_F_EARLY_RESOLVE, "EARLY_RESOLVE" }, \
	{ DRM_PTO_NPU_TASK_F_PREDICATE, "PREDICATE" })

TRACE_EVENT(pto_intake,
	    TP_PROTO(const struct pto_task *t),
	    TP_ARGS(t),
	    TP_STRUCT__entry(__field(u64, ctx)
			     __field(u64, task)
			     __field(u32, dev)
			     __field(u32, block_num)
			     __field(u32, flags)
			     __field(s32, status)
			     __field(u32, reason)),
	    TP_fast_assign(__entry->ctx = t->ctx->uid;
			   __entry->task = t->id;
			   __entry->dev = t->ctx->pdev->index;
			   __entry->block_num = t->block_num;
			   __entry->flags = t->flags;
			   __entry->status = t->status;
			   __entry->reason = t->reason;),
	    TP_printk("dev=%u ctx=%llu task=%llu blocks=%u flags=%s status=%s reason=%s",
		      __entry->dev, __entry->ctx, __entry->task,
		      __entry->block_num,
		      pto_show_task_flags(__entry->flags),
		      pto_show_status(__entry->status),
		      pto_show_reason(__entry->reason))
);

/* Unit @unit of @task on @core. */
DECLARE_EVENT_CLASS(pto_unit_class,
		    TP_PROTO(const struct pto_task *t, u32 unit,
			     const struct pto_core *core, s32 status),
		    TP_ARGS(t, unit, core, status),
		    TP_STRUCT__entry(__field(u64, ctx)
				     __field(u64, task)
				     __field(u32, dev)
				     __field(u32, unit)
				     __field(u32, core_type)
				     __field(u32, core)
				     __field(s32, status)),
		    TP_fast_assign(__entry->ctx = t->ctx->uid;
				   __entry->task = t->id;
				   __entry->dev = core->pdev->index;
				   __entry->unit = unit;
				   __entry->core_type = core->type;
				   __entry->core = core->index;
				   __entry->status = status;),
		    TP_printk("dev=%u ctx=%llu task=%llu unit=%u core=%s_%u status=%s",
			      __entry->dev, __entry->ctx, __entry->task,
			      __entry->unit,
			      pto_show_core_type(__entry->core_type),
			      __entry->core,
			      pto_show_status(__entry->status))
);

DEFINE_EVENT(pto_unit_class, pto_dispatch,
	     TP_PROTO(const struct pto_task *t, u32 unit,
		      const struct pto_core *core, s32 status),
	     TP_ARGS(t, unit, core, status));

DEFINE_EVENT(pto_unit_class, pto_stage,
	     TP_PROTO(const struct pto_task *t, u32 unit,
		      const struct pto_core *core, s32 status),
	     TP_ARGS(t, unit, core, status));

DEFINE_EVENT(pto_unit_class, pto_release,
	     TP_PROTO(const struct pto_task *t, u32 unit,
		      const struct pto_core *core, s32 status),
	     TP_ARGS(t, unit, core, status));

DEFINE_EVENT(pto_unit_class, pto_start,
	     TP_PROTO(const struct pto_task *t, u32 unit,
		      const struct pto_core *core, s32 status),
	     TP_ARGS(t, unit, core, status));

DEFINE_EVENT(pto_unit_class, pto_end,
	     TP_PROTO(const struct pto_task *t, u32 unit,
		      const struct pto_core *core, s32 status),
	     TP_ARGS(t, unit, core, status));

DEFINE_EVENT(pto_unit_class, pto_barrier_enter,
	     TP_PROTO(const struct pto_task *t, u32 unit,
		      const struct pto_core *core, s32 status),
	     TP_ARGS(t, unit, core, status));

DEFINE_EVENT(pto_unit_class, pto_barrier_leave,
	     TP_PROTO(const struct pto_task *t, u32 unit,
		      const struct pto_core *core, s32 status),
	     TP_ARGS(t, unit, core, status));

/* @task as it retires: its status and detail. */
DECLARE_EVENT_CLASS(pto_task_class,
		    TP_PROTO(const struct pto_task *t),
		    TP_ARGS(t),
		    TP_STRUCT__entry(__field(u64, ctx)
				     __field(u64, task)
				     __field(u64, detail)
				     __field(u32, dev)
				     __field(s32, status)),
		    TP_fast_assign(__entry->ctx = t->ctx->uid;
				   __entry->task = t->id;
				   __entry->detail = t->detail;
				   __entry->dev = t->ctx->pdev->index;
				   __entry->status = t->status;),
		    TP_printk("dev=%u ctx=%llu task=%llu status=%s detail=0x%llx",
			      __entry->dev, __entry->ctx, __entry->task,
			      pto_show_status(__entry->status),
			      __entry->detail)
);

DEFINE_EVENT(pto_task_class, pto_retire,
	     TP_PROTO(const struct pto_task *t),
	     TP_ARGS(t));

DEFINE_EVENT(pto_task_class, pto_skip,
	     TP_PROTO(const struct pto_task *t),
	     TP_ARGS(t));

DEFINE_EVENT(pto_task_class, pto_fault,
	     TP_PROTO(const struct pto_task *t),
	     TP_ARGS(t));

/*
 * The sanitizer found a hazard: in unit @unit of @t (U32_MAX: at intake),
 * described by @h (struct drm_pto_npu_hazard).
 */
TRACE_EVENT(pto_hazard,
	    TP_PROTO(const struct pto_task *t, u32 unit,
		     const struct drm_pto_npu_hazard *h),
	    TP_ARGS(t, unit, h),
	    TP_STRUCT__entry(__field(u64, ctx)
			     __field(u64, task)
			     __field(u64, elem)
			     __field(u64, other_task)
			     __field(u32, dev)
			     __field(u32, unit)
			     __field(u32, kind)
			     __field(u32, pc)
			     __field(u32, tensor)
			     __field(u32, other_block)
			     __field(u32, other_pc)
			     __field(u32, other_core_type)
			     __field(u32, other_core)
			     __field(u32, other_tensor)),
	    TP_fast_assign(__entry->ctx = t->ctx->uid;
			   __entry->task = t->id;
			   __entry->elem = h->elem;
			   __entry->other_task = h->other_task;
			   __entry->dev = t->ctx->pdev->index;
			   __entry->unit = unit;
			   __entry->kind = h->kind;
			   __entry->pc = h->pc;
			   __entry->tensor = h->tensor;
			   __entry->other_block = h->other_block;
			   __entry->other_pc = h->other_pc;
			   __entry->other_core_type = h->other_core_type;
			   __entry->other_core = h->other_core;
			   __entry->other_tensor = h->other_tensor;),
	    TP_printk("dev=%u ctx=%llu task=%llu unit=%d kind=%s pc=%u tensor=%u elem=%llu other_task=%llu other_block=%u other_core=%s_%u other_pc=%u other_tensor=%u",
		      __entry->dev, __entry->ctx, __entry->task,
		      (int)__entry->unit, pto_show_hazard(__entry->kind),
		      __entry->pc, __entry->tensor, __entry->elem,
		      __entry->other_task, __entry->other_block,
		      __print_symbolic(__entry->other_core_type,
				       { 0, "none" },
				       { PTO_CORE_AIV, "AIV" },
				       { PTO_CORE_AIC, "AIC" }),
		      __entry->other_core, __entry->other_pc,
		      __entry->other_tensor)
);

/*
 * Dependency inference at intake: @edges linked in all, @inferred of them
 * inferred from tensor directions (the others named by the task), and the
 * kind of hazard the sanitizer found at intake (0: none; the hazard itself
 * in pto_hazard, unit -1).
 */
TRACE_EVENT(pto_infer,
	    TP_PROTO(const struct pto_task *t, u32 hazard),
	    TP_ARGS(t, hazard),
	    TP_STRUCT__entry(__field(u64, ctx)
			     __field(u64, task)
			     __field(u32, dev)
			     __field(u32, edges)
			     __field(u32, inferred)
			     __field(u32, hazard)),
	    TP_fast_assign(__entry->ctx = t->ctx->uid;
			   __entry->task = t->id;
			   __entry->dev = t->ctx->pdev->index;
			   __entry->edges = t->num_edges;
			   __entry->inferred = t->num_inferred;
			   __entry->hazard = hazard;),
	    TP_printk("dev=%u ctx=%llu task=%llu edges=%u inferred=%u hazard=%s",
		      __entry->dev, __entry->ctx, __entry->task,
		      __entry->edges, __entry->inferred,
		      __print_symbolic(__entry->hazard,
				       { 0, "NONE" },
				       { DRM_PTO_NPU_HAZARD_PREDICATE, "PREDICATE" },
				       { DRM_PTO_NPU_HAZARD_RACE, "RACE" }))
);

#endif /* _PTO_TRACE_H_ */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE pto_trace
#include <trace/define_trace.h>
