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

TRACE_EVENT(pto_intake,
	    TP_PROTO(const struct pto_task *t),
	    TP_ARGS(t),
	    TP_STRUCT__entry(__field(u32, dev)
			     __field(u64, ctx)
			     __field(u64, task)
			     __field(u32, block_num)
			     __field(u32, flags)
			     __field(s32, status)
			     __field(u32, reason)),
	    TP_fast_assign(__entry->dev = t->ctx->pdev->index;
			   __entry->ctx = t->ctx->uid;
			   __entry->task = t->id;
			   __entry->block_num = t->block_num;
			   __entry->flags = t->flags;
			   __entry->status = t->status;
			   __entry->reason = t->reason;),
	    TP_printk("dev=%u ctx=%llu task=%llu blocks=%u flags=0x%x status=%d reason=%u",
		      __entry->dev, __entry->ctx, __entry->task,
		      __entry->block_num, __entry->flags, __entry->status,
		      __entry->reason)
);

/* Unit @unit of @task on @core. */
DECLARE_EVENT_CLASS(pto_unit_class,
		    TP_PROTO(const struct pto_task *t, u32 unit,
			     const struct pto_core *core, s32 status),
		    TP_ARGS(t, unit, core, status),
		    TP_STRUCT__entry(__field(u32, dev)
				     __field(u64, ctx)
				     __field(u64, task)
				     __field(u32, unit)
				     __field(u32, core_type)
				     __field(u32, core)
				     __field(s32, status)),
		    TP_fast_assign(__entry->dev = core->pdev->index;
				   __entry->ctx = t->ctx->uid;
				   __entry->task = t->id;
				   __entry->unit = unit;
				   __entry->core_type = core->type;
				   __entry->core = core->index;
				   __entry->status = status;),
		    TP_printk("dev=%u ctx=%llu task=%llu unit=%u core=%s%u status=%d",
			      __entry->dev, __entry->ctx, __entry->task,
			      __entry->unit,
			      __entry->core_type == 2 ? "AIC_" : "AIV_",
			      __entry->core, __entry->status)
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
		    TP_STRUCT__entry(__field(u32, dev)
				     __field(u64, ctx)
				     __field(u64, task)
				     __field(s32, status)
				     __field(u64, detail)),
		    TP_fast_assign(__entry->dev = t->ctx->pdev->index;
				   __entry->ctx = t->ctx->uid;
				   __entry->task = t->id;
				   __entry->status = t->status;
				   __entry->detail = t->detail;),
		    TP_printk("dev=%u ctx=%llu task=%llu status=%d detail=0x%llx",
			      __entry->dev, __entry->ctx, __entry->task,
			      __entry->status,
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

#endif /* _PTO_TRACE_H_ */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE pto_trace
#include <trace/define_trace.h>
