/* SPDX-License-Identifier: GPL-2.0-only */
/* Copyright (C) 2026 pto-npu authors */
#ifndef __PTO_WORKER_H__
#define __PTO_WORKER_H__

#include <linux/types.h>

struct pto_core;
struct pto_device;
struct pto_sched;

void pto_core_kick(struct pto_sched *s, struct pto_core *core,
		   struct pto_core *self);
void pto_sched_unpark(struct pto_sched *s, struct pto_core *core, s32 st);
void pto_sched_flush_kicks(struct pto_device *pdev, u64 uid, bool all);
int pto_cores_init(struct pto_sched *s);
void pto_cores_fini(struct pto_sched *s);

#endif /* __PTO_WORKER_H__ */
