/* SPDX-License-Identifier: GPL-2.0-only */
/* Copyright (C) 2026 pto-npu authors */
#ifndef __PTO_BARRIER_H__
#define __PTO_BARRIER_H__

#include <linux/list.h>
#include <linux/types.h>
#include <linux/workqueue.h>

struct pto_core;
struct pto_sched;
struct pto_task;

/* pto_barrier_*(): the unit parked; its core's thread is free. */
#define PTO_STATUS_PARKED S32_MIN
/* Elements of a SOFT syncall workspace: 16 int32, one 64-byte line. */
#define PTO_SOFT_WS_ELEMS 16
/* pto_targ.soft_used of a workspace whose contract is broken. */
#define PTO_SOFT_BROKEN U16_MAX

s32 pto_barrier_hard(struct pto_task *task, struct pto_core *core);
s32 pto_barrier_soft(struct pto_task *task, struct pto_core *core,
		     s32 *counter, s64 used);
u64 pto_barrier_fault_detail(const struct pto_core *core, s32 st, u32 pc);
u8 pto_soft_intake(const struct pto_task *t, u64 *detail);
void pto_barrier_exit(struct pto_sched *s, struct pto_task *task);
void pto_release_task_waits(struct pto_sched *s, struct pto_task *task,
			    s32 st);
void pto_barrier_watchdog(struct work_struct *work);
void pto_barrier_watchdog_arm(struct pto_sched *s);
void pto_unpark_list(struct pto_sched *s, struct list_head *list, s32 st);
void pto_unpark_list_locked(struct pto_sched *s, struct list_head *list,
			    s32 st);

#endif /* __PTO_BARRIER_H__ */
