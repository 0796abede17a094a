// SPDX-License-Identifier: GPL-2.0-only
/*
 * pto_npu: cancelling a closing context's work (pto_sched_cancel_ctx()).
 *
 * Everything of the context stops without waiting for another context:
 * running blocks stop at their next check, units waiting in pending slots
 * (not started) and units placed nowhere retire at once, held completions
 * are dropped. Documentation/robustness.rst.
 *
 * Copyright (C) 2026 pto-npu authors
 */

#include <linux/ktime.h>
#include <linux/wait.h>

#include "pto_barrier.h"
#include "pto_queue.h"
#include "pto_sched.h"
#include "pto_task_mem.h"
#include "pto_trace.h"

/*
 * A unit of a closing context in a core's pending slot has not started:
 * it ends CANCELLED now instead of after the unit running ahead of it,
 * which may be another context's and run for its whole work budget.
 */
static void pto_reclaim_unit(struct pto_sched *s, struct pto_core *core,
			     u64 now)
{
	struct pto_task *task = core->pend_task;
	u32 u = core->pend_unit, i;
	struct pto_unit_rec *rec = &task->recs[u];

	lockdep_assert_held(&s->lock);
	core->pend_task = NULL;
	s->no_preload[pto_cidx(core)] = false;
	rec->core = core->index;
	rec->core_type = core->type;
	rec->status = DRM_PTO_NPU_STATUS_CANCELLED;
	rec->detail = 0;
	for (i = PTO_TS_RECEIVE; i <= PTO_TS_FINISH; i++)
		rec->ts[i] = now;
	trace_pto_start(task, u, core, 0);
	trace_pto_end(task, u, core, DRM_PTO_NPU_STATUS_CANCELLED);
	task->units_out--;
	if (task->bar_parties)
		pto_barrier_exit(s, task);
}

/* Take back every unit of @ctx waiting in a pending slot. */
static void pto_reclaim_pending(struct pto_sched *s, struct pto_ctx *ctx,
				u64 *now)
{
	u32 ti, i;

	lockdep_assert_held(&s->lock);
	for (ti = 0; ti < PTO_NUM_CIDX; ti++)
		for (i = 0; i < s->ncores[ti]; i++) {
			struct pto_core *core = &s->cores[ti][i];

			if (core->pend_task && core->pend_task->ctx == ctx)
				pto_reclaim_unit(s, core, pto_pass_ns(now));
		}
}

/**
 * pto_sched_cancel_ctx - stop everything of a closing context
 * @ctx: the context
 *
 * Marks the context dead, cancels its tasks (running blocks stop at their
 * next check; units in pending slots, which have not started, and unplaced
 * work retire at once), drops held completions and waits until every task
 * of the context has been freed: for no unit of another context.
 */
void pto_sched_cancel_ctx(struct pto_ctx *ctx)
{
	struct pto_sched *s = ctx->pdev->sched;
	struct pto_task *task, *tmp;
	LIST_HEAD(freeable);
	LIST_HEAD(stop);
	u64 now = 0;

	spin_lock(&s->lock);
	if (pto_profiling())
		s->iter++;
	ctx->dead = true;
	list_for_each_entry(task, &ctx->live, ctx_link) {
		atomic_set(&task->cancel, 1);
		pto_release_task_waits(s, task, DRM_PTO_NPU_STATUS_CANCELLED);
		pto_release_staged(s, task, NULL, &now);
	}
	pto_reclaim_pending(s, ctx, &now);
	/* What is placed nowhere, or only was in pending slots, retires now. */
	list_for_each_entry(task, &ctx->live, ctx_link) {
		if (task->state == PTO_TASK_READY) {
			pto_ready_del(task);
			task->state = PTO_TASK_PLACED;
		}
		if (task->state == PTO_TASK_PLACED && !task->units_out)
			list_add_tail(&task->held_link, &stop);
	}
	list_for_each_entry_safe(task, tmp, &stop, held_link) {
		list_del_init(&task->held_link);
		if (task->status == DRM_PTO_NPU_STATUS_OK)
			task->status = DRM_PTO_NPU_STATUS_CANCELLED;
		pto_complete(s, task, &freeable, NULL, NULL, now);
	}
	/* Pending slots given back: other contexts' work may take them. */
	pto_sched_dispatch(s, NULL, now);
	spin_unlock(&s->lock);
	pto_tasks_free_list(&freeable);
	pto_queues_drop_held(ctx);

	wait_event(ctx->wq, !atomic_read(&ctx->inflight));
	/* The last pto_tasks_free_list() wakes us under the lock: let it finish. */
	spin_lock(&s->lock);
	spin_unlock(&s->lock);
}
