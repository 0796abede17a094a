// SPDX-License-Identifier: GPL-2.0-only
/*
 * pto_npu: task memory.
 *
 * A task is one allocation (the task, a launch's state, its tensor and
 * scalar arguments, edges, unit records and ring sets), with a failure
 * record allocated beside it at intake so that remembering a failure
 * never allocates under the scheduler lock. Small tasks, the common case,
 * come from their own cache and are kept as spares per device for the
 * next intake; tasks are freed in batches, one scheduler-lock section per
 * batch.
 *
 * Copyright (C) 2026 pto-npu authors
 */

#include <linux/slab.h>

#include <drm/drm_gem.h>

#include "pto_gm.h"
#include "pto_graph.h"
#include "pto_kernel.h"
#include "pto_sched.h"
#include "pto_task_mem.h"
#include "pto_xring.h"

/*
 * Small tasks (the common case: one block, a few arguments) come from a
 * cache of exact-size objects rather than the next kmalloc size, which
 * would double their memory; failure records from one of their own.
 */
/*
 * 768: a one-block task with a tensor and three scalars on the debug
 * kernel (struct pto_task about 552 bytes with dependency inference, the
 * memory model and graph replay, a 64-byte argument and unit record).
 */
#define PTO_TASK_SMALL 768
static struct kmem_cache *pto_task_cache;
static struct kmem_cache *pto_failed_cache;

/**
 * pto_task_caches_init - create the task and failure-record caches
 *
 * Return: 0 or -ENOMEM.
 */
int pto_task_caches_init(void)
{
	pto_task_cache = kmem_cache_create("pto_task", PTO_TASK_SMALL, 0, 0,
					   NULL);
	pto_failed_cache = KMEM_CACHE(pto_failed, 0);
	if (!pto_task_cache || !pto_failed_cache) {
		pto_task_caches_exit();
		return -ENOMEM;
	}
	return 0;
}

/* Destroy the caches (every task freed). */
void pto_task_caches_exit(void)
{
	kmem_cache_destroy(pto_task_cache);
	kmem_cache_destroy(pto_failed_cache);
	pto_task_cache = NULL;
	pto_failed_cache = NULL;
}

/*
 * Small tasks kept for reuse per device, with their failure records: a
 * doorbell's worth of the common case. Allocating and freeing them through
 * the slab cost about a third of an empty task's overhead (two objects
 * each way, the task zeroed whole); a spare is zeroed only as far as the
 * new task reaches (Documentation/performance.rst).
 */
#define PTO_TASK_SPARES 1024
/* A few under KASAN: a task freed through the slab is checked for late use. */
#define PTO_TASK_SPARES_MAX (IS_ENABLED(CONFIG_KASAN) ? 16 : PTO_TASK_SPARES)

/**
 * pto_task_mem_alloc - zeroed memory for a task of @size bytes
 * @s: scheduler of the device
 * @size: the task with its variable parts
 *
 * The task comes with @fail_rec, room to remember a failure without
 * allocating under the scheduler lock. A spare is taken first.
 *
 * Return: the task (free it with pto_task_mem_free() or
 * pto_tasks_free_list()), or NULL.
 */
struct pto_task *pto_task_mem_alloc(struct pto_sched *s, size_t size)
{
	struct pto_task *t = NULL;
	struct pto_failed *f;

	if (size <= PTO_TASK_SMALL) {
		spin_lock(&s->spare_lock);
		t = list_first_entry_or_null(&s->spares, struct pto_task,
					     held_link);
		if (t) {
			list_del(&t->held_link);
			s->nspares--;
		}
		spin_unlock(&s->spare_lock);
		if (t) {
			f = t->fail_rec;
			memset(t, 0, size);
			t->fail_rec = f;
			t->mem_size = size;
			return t;
		}
		t = kmem_cache_zalloc(pto_task_cache, GFP_KERNEL_ACCOUNT);
	} else {
		t = kvzalloc(size, GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	}
	if (!t)
		return NULL;
	t->mem_size = size;
	t->fail_rec = kmem_cache_alloc(pto_failed_cache, GFP_KERNEL_ACCOUNT);
	if (!t->fail_rec) {
		pto_task_mem_free(t);
		return NULL;
	}
	return t;
}

/**
 * pto_task_mem_free - free a task's memory and its unused failure record
 * @task: the task
 */
void pto_task_mem_free(struct pto_task *task)
{
	if (task->fail_rec)
		kmem_cache_free(pto_failed_cache, task->fail_rec);
	if (task->mem_size <= PTO_TASK_SMALL)
		kmem_cache_free(pto_task_cache, task);
	else
		kvfree(task);
}

/* Keep what fits of @list (freed tasks, by held_link) as spares. */
static void pto_task_keep_spares(struct pto_sched *s, struct list_head *list)
{
	struct pto_task *task, *tmp;

	spin_lock(&s->spare_lock);
	list_for_each_entry_safe(task, tmp, list, held_link) {
		if (s->nspares >= PTO_TASK_SPARES_MAX)
			break;
		if (task->mem_size > PTO_TASK_SMALL || !task->fail_rec)
			continue;
		list_move(&task->held_link, &s->spares);
		s->nspares++;
	}
	spin_unlock(&s->spare_lock);
}

/* The most spares a device keeps. */
u32 pto_task_spares_max(void)
{
	return PTO_TASK_SPARES_MAX;
}

/**
 * pto_task_spares - spare task memory a device keeps
 * @s: scheduler of the device
 * @bytes: out: their size, failure records included (or NULL)
 *
 * Return: the number of spares.
 */
u32 pto_task_spares(struct pto_sched *s, size_t *bytes)
{
	u32 n;

	spin_lock(&s->spare_lock);
	n = s->nspares;
	spin_unlock(&s->spare_lock);
	if (bytes)
		*bytes = (size_t)n * (kmem_cache_size(pto_task_cache) +
				      kmem_cache_size(pto_failed_cache));
	return n;
}

/**
 * pto_task_put_resources - drop what a task references
 * @task: task
 */
void pto_task_put_resources(struct pto_task *task)
{
	u32 i;

	if (task->graph == PTO_GRAPH_LAUNCH)
		pto_launch_free(task);
	pto_gm_task_free(task);
	pto_xring_free_spills(task);
	for (i = 0; i < task->num_tensors; i++)
		if (task->targs[i].bo)
			drm_gem_object_put(&task->targs[i].bo->base.base);
	for (i = 0; i < PTO_NUM_CIDX; i++)
		if (task->kern[i])
			pto_kernel_put(task->kern[i]);
	if (task->batch)
		dma_fence_put(&task->batch->base);
	if (task->edges_ext)
		kfree(task->edges);
}

/**
 * pto_tasks_free_list - release fully retired tasks
 * @list: tasks (linked by held_link), off every scheduler list
 *
 * One scheduler-lock section for the whole list, one wake-up per context.
 */
void pto_tasks_free_list(struct list_head *list)
{
	struct pto_task *task, *tmp;
	struct pto_ctx *woke = NULL;
	struct pto_sched *s;

	if (list_empty(list))
		return;
	list_for_each_entry(task, list, held_link) {
		pto_task_put_resources(task);
	}
	task = list_first_entry(list, struct pto_task, held_link);
	s = task->ctx->pdev->sched;
	spin_lock(&s->lock);
	list_for_each_entry(task, list, held_link) {
		struct pto_ctx *ctx = task->ctx;

		list_del(&task->ctx_link);
		atomic_dec(&ctx->inflight);
		/* CQEs posted, back-pressure relieved, or the last task gone. */
		if (ctx != woke) {
			if (woke)
				wake_up_all(&woke->wq);
			woke = ctx;
		}
	}
	wake_up_all(&woke->wq);
	spin_unlock(&s->lock);
	pto_task_keep_spares(s, list);
	list_for_each_entry_safe(task, tmp, list, held_link) {
		list_del(&task->held_link);
		pto_task_mem_free(task);
		/* A closing context may free thousands at once. */
		cond_resched();
	}
}

/**
 * pto_failed_free - free a failure record no longer remembered
 * @f: the record
 */
void pto_failed_free(struct pto_failed *f)
{
	kmem_cache_free(pto_failed_cache, f);
}

/**
 * pto_task_spares_free - free a device's spare tasks
 * @s: its scheduler, no longer used
 */
void pto_task_spares_free(struct pto_sched *s)
{
	struct pto_task *task, *tmp;

	list_for_each_entry_safe(task, tmp, &s->spares, held_link)
		pto_task_mem_free(task);
	INIT_LIST_HEAD(&s->spares);
	s->nspares = 0;
}
