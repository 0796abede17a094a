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

TRACE_EVENT(pto_intake,
	    TP_PROTO(u32 dev, u64 ctx, u64 task, u32 block_num, u32 flags,
		     s32 status, u32 reason),
	    TP_ARGS(dev, ctx, task, block_num, flags, status, reason),
	    TP_STRUCT__entry(__field(u32, dev)
			     __field(u64, ctx)
			     __field(u64, task)
			     __field(u32, block_num)
			     __field(u32, flags)
			     __field(s32, status)
			     __field(u32, reason)),
	    TP_fast_assign(__entry->dev = dev;
			   __entry->ctx = ctx;
			   __entry->task = task;
			   __entry->block_num = block_num;
			   __entry->flags = flags;
			   __entry->status = status;
			   __entry->reason = reason;),
	    TP_printk("dev=%u ctx=%llu task=%llu blocks=%u flags=0x%x status=%d reason=%u",
		      __entry->dev, __entry->ctx, __entry->task,
		      __entry->block_num, __entry->flags, __entry->status,
		      __entry->reason)
);

DECLARE_EVENT_CLASS(pto_unit_class,
		    TP_PROTO(u32 dev, u64 ctx, u64 task, u32 unit,
			     u32 core_type, u32 core, s32 status),
		    TP_ARGS(dev, ctx, task, unit, core_type, core, status),
		    TP_STRUCT__entry(__field(u32, dev)
				     __field(u64, ctx)
				     __field(u64, task)
				     __field(u32, unit)
				     __field(u32, core_type)
				     __field(u32, core)
				     __field(s32, status)),
		    TP_fast_assign(__entry->dev = dev;
				   __entry->ctx = ctx;
				   __entry->task = task;
				   __entry->unit = unit;
				   __entry->core_type = core_type;
				   __entry->core = core;
				   __entry->status = status;),
		    TP_printk("dev=%u ctx=%llu task=%llu unit=%u core=%s%u status=%d",
			      __entry->dev, __entry->ctx, __entry->task,
			      __entry->unit,
			      __entry->core_type == 2 ? "AIC_" : "AIV_",
			      __entry->core, __entry->status)
);

DEFINE_EVENT(pto_unit_class, pto_dispatch,
	     TP_PROTO(u32 dev, u64 ctx, u64 task, u32 unit, u32 core_type,
		      u32 core, s32 status),
	     TP_ARGS(dev, ctx, task, unit, core_type, core, status));

DEFINE_EVENT(pto_unit_class, pto_stage,
	     TP_PROTO(u32 dev, u64 ctx, u64 task, u32 unit, u32 core_type,
		      u32 core, s32 status),
	     TP_ARGS(dev, ctx, task, unit, core_type, core, status));

DEFINE_EVENT(pto_unit_class, pto_release,
	     TP_PROTO(u32 dev, u64 ctx, u64 task, u32 unit, u32 core_type,
		      u32 core, s32 status),
	     TP_ARGS(dev, ctx, task, unit, core_type, core, status));

DEFINE_EVENT(pto_unit_class, pto_start,
	     TP_PROTO(u32 dev, u64 ctx, u64 task, u32 unit, u32 core_type,
		      u32 core, s32 status),
	     TP_ARGS(dev, ctx, task, unit, core_type, core, status));

DEFINE_EVENT(pto_unit_class, pto_end,
	     TP_PROTO(u32 dev, u64 ctx, u64 task, u32 unit, u32 core_type,
		      u32 core, s32 status),
	     TP_ARGS(dev, ctx, task, unit, core_type, core, status));

DEFINE_EVENT(pto_unit_class, pto_barrier_enter,
	     TP_PROTO(u32 dev, u64 ctx, u64 task, u32 unit, u32 core_type,
		      u32 core, s32 status),
	     TP_ARGS(dev, ctx, task, unit, core_type, core, status));

DEFINE_EVENT(pto_unit_class, pto_barrier_leave,
	     TP_PROTO(u32 dev, u64 ctx, u64 task, u32 unit, u32 core_type,
		      u32 core, s32 status),
	     TP_ARGS(dev, ctx, task, unit, core_type, core, status));

DECLARE_EVENT_CLASS(pto_task_class,
		    TP_PROTO(u32 dev, u64 ctx, u64 task, s32 status, u64 detail),
		    TP_ARGS(dev, ctx, task, status, detail),
		    TP_STRUCT__entry(__field(u32, dev)
				     __field(u64, ctx)
				     __field(u64, task)
				     __field(s32, status)
				     __field(u64, detail)),
		    TP_fast_assign(__entry->dev = dev;
				   __entry->ctx = ctx;
				   __entry->task = task;
				   __entry->status = status;
				   __entry->detail = detail;),
		    TP_printk("dev=%u ctx=%llu task=%llu status=%d detail=0x%llx",
			      __entry->dev, __entry->ctx, __entry->task,
			      __entry->status,
			      __entry->detail)
);

DEFINE_EVENT(pto_task_class, pto_retire,
	     TP_PROTO(u32 dev, u64 ctx, u64 task, s32 status, u64 detail),
	     TP_ARGS(dev, ctx, task, status, detail));

DEFINE_EVENT(pto_task_class, pto_skip,
	     TP_PROTO(u32 dev, u64 ctx, u64 task, s32 status, u64 detail),
	     TP_ARGS(dev, ctx, task, status, detail));

DEFINE_EVENT(pto_task_class, pto_fault,
	     TP_PROTO(u32 dev, u64 ctx, u64 task, s32 status, u64 detail),
	     TP_ARGS(dev, ctx, task, status, detail));

#endif /* _PTO_TRACE_H_ */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE pto_trace
#include <trace/define_trace.h>
