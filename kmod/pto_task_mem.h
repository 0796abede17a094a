/* SPDX-License-Identifier: GPL-2.0-only */
/* Copyright (C) 2026 pto-npu authors */
#ifndef __PTO_TASK_MEM_H__
#define __PTO_TASK_MEM_H__

#include <linux/list.h>
#include <linux/types.h>

struct pto_failed;
struct pto_sched;
struct pto_task;

int pto_task_caches_init(void);
void pto_task_caches_exit(void);
struct pto_task *pto_task_mem_alloc(struct pto_sched *s, size_t size);
void pto_task_mem_free(struct pto_task *task);
u32 pto_task_spares(struct pto_sched *s, size_t *bytes);
u32 pto_task_spares_max(void);
void pto_task_spares_free(struct pto_sched *s);
void pto_failed_free(struct pto_failed *f);
void pto_task_put_resources(struct pto_task *task);
void pto_tasks_free_list(struct list_head *list);

#endif /* __PTO_TASK_MEM_H__ */
