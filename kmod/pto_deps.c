// SPDX-License-Identifier: GPL-2.0-only
/*
 * pto_npu: dependencies between a context's tasks.
 *
 * A task names the earlier tasks it depends on by id. At intake each one
 * still live becomes an edge in that producer's fanout list and counts in
 * the consumer's fanin; one that failed, found in the context's store of
 * failed ids, fails the consumer (DEP_FAILED); one already complete is
 * satisfied. Completion (pto_sched.c) walks the fanout. All under the
 * scheduler lock.
 *
 * Copyright (C) 2026 pto-npu authors
 */

#include "pto_deps.h"
#include "pto_task_mem.h"

static void pto_failed_drop(struct pto_ctx *ctx, struct pto_failed *f)
{
	hash_del(&f->node);
	list_del(&f->link);
	ctx->nfailed--;
	pto_failed_free(f);
}

/*
 * Remember a failed id for dependents that arrive later, in the record
 * allocated at intake. Past PTO_MAX_FAILED_REMEMBERED the oldest failure
 * is forgotten (a dependency on it then counts as satisfied;
 * Documentation/uapi.rst).
 */
void pto_deps_remember_failed(struct pto_ctx *ctx, struct pto_task *task)
{
	struct pto_failed *f = task->fail_rec;

	lockdep_assert_held(&ctx->pdev->sched->lock);
	task->fail_rec = NULL;
	f->id = task->id;
	f->status = task->status;
	hash_add(ctx->failed, &f->node, f->id);
	list_add_tail(&f->link, &ctx->failed_fifo);
	if (++ctx->nfailed > PTO_MAX_FAILED_REMEMBERED)
		pto_failed_drop(ctx, list_first_entry(&ctx->failed_fifo,
						      struct pto_failed, link));
}

static struct pto_task *pto_find_task(struct pto_ctx *ctx, u64 id)
{
	struct pto_task *t;

	lockdep_assert_held(&ctx->pdev->sched->lock);
	hash_for_each_possible(ctx->tasks, t, hnode, id)
		if (t->id == id)
			return t;
	return NULL;
}

static bool pto_failed_id(struct pto_ctx *ctx, u64 id)
{
	struct pto_failed *f;

	lockdep_assert_held(&ctx->pdev->sched->lock);
	hash_for_each_possible(ctx->failed, f, node, id)
		if (f->id == id)
			return true;
	return false;
}

/**
 * pto_deps_forget_failed - free a closed context's failure records
 * @ctx: the context, with no task left
 */
void pto_deps_forget_failed(struct pto_ctx *ctx)
{
	struct pto_failed *f, *tmp;

	list_for_each_entry_safe(f, tmp, &ctx->failed_fifo, link)
		pto_failed_drop(ctx, f);
}

/**
 * pto_deps_link - link a task to the producers it depends on
 * @ctx: its context, scheduler lock held
 * @task: the task, its edges[] room for @task->num_deps
 * @deps: its dependencies as absolute ids, validated to be earlier tasks
 *
 * Sets @task->fanin, @task->num_edges and, if a producer failed,
 * @task->dep_failed.
 */
void pto_deps_link(struct pto_ctx *ctx, struct pto_task *task,
		   const s64 *deps)
{
	u32 i, n = 0;

	lockdep_assert_held(&ctx->pdev->sched->lock);
	for (i = 0; i < task->num_deps; i++) {
		struct pto_task *p = pto_find_task(ctx, deps[i]);

		if (p) {
			struct pto_edge *e = &task->edges[n++];

			/* An inferred edge to @p would duplicate this one. */
			p->infer_mark = task->id;
			e->consumer = task;
			e->producer = p;
			e->inferred = false;
			list_add_tail(&e->link, &p->fanout);
			task->fanin++;
		} else if (pto_failed_id(ctx, deps[i])) {
			task->dep_failed = true;
		}
	}
	task->num_edges = n;
}
