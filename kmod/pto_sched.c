// SPDX-License-Identifier: GPL-2.0-only
/*
 * pto_npu: the emulated AICPU scheduler and the virtual cores.
 *
 * Tasks carry a fanin count (producers not yet complete) and a fanout list.
 * At fanin zero a task is ready and joins the ready queue of its core type.
 * Dispatch places blocks on idle cores lowest index first, then into the
 * pending slot of busy cores; more blocks than cores run in waves.
 *
 * Each virtual core has a kernel thread that sleeps on the core's dispatch
 * doorbell: a block landing in its empty running slot rings it. Sleeping,
 * never spinning, is what lets a 2-CPU VM run 72 cores, and a dedicated
 * thread per core means every placed block can be resident at once
 * (sync_start, barriers). The thread that finishes a block does the
 * scheduler's work itself under the scheduler lock (complete the task,
 * release its consumers, dispatch), then runs whatever its own core was
 * given next without a wake-up.
 *
 * Copyright (C) 2026 pto-npu authors
 */

#include <linux/bitmap.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include <drm/drm_gem.h>

#include "pto_task.h"
#include "pto_trace.h"

static u32 pto_task_type(const struct pto_task *task)
{
	if (task->kern[0] && task->kern[1])
		return PTO_TASK_MIX;
	return task->kern[0] ? PTO_TASK_AIV : PTO_TASK_AIC;
}

/*
 * Ready queues: one per context and type, the contexts that have ready
 * tasks served round robin, so a context with thousands of ready tasks
 * delays another's next task by one placement, not by its whole backlog.
 */
static void pto_ready_add(struct pto_sched *s, struct pto_task *task)
{
	struct pto_file *ctx = task->ctx;
	u32 ti = pto_task_type(task);

	list_add_tail(&task->ready_link, &ctx->ready[ti]);
	if (list_empty(&ctx->ready_link[ti]))
		list_add_tail(&ctx->ready_link[ti], &s->ready[ti]);
}

static void pto_ready_del(struct pto_task *task)
{
	struct pto_file *ctx = task->ctx;
	u32 ti = pto_task_type(task);

	list_del_init(&task->ready_link);
	if (list_empty(&ctx->ready[ti]))
		list_del_init(&ctx->ready_link[ti]);
}

/* Ring a core's doorbell unless a thread is already looping over it. */
static void pto_core_kick(struct pto_sched *s, struct pto_core *core,
			  struct pto_core *self)
{
	if (core != self && !core->in_worker) {
		core->rung = true;
		wake_up(&core->doorbell);
	}
}

/* Lowest cluster whose AIC and both AIVs are idle, or clusters if none. */
static u32 pto_idle_cluster(struct pto_sched *s)
{
	u32 c;

	for_each_set_bit(c, s->idle[PTO_TASK_AIC], s->ncores[PTO_TASK_AIC]) {
		if (test_bit(2 * c, s->idle[PTO_TASK_AIV]) &&
		    test_bit(2 * c + 1, s->idle[PTO_TASK_AIV]))
			return c;
	}
	return s->ncores[PTO_TASK_AIC];
}

static u32 pto_idle_clusters(struct pto_sched *s)
{
	u32 c, n = 0;

	for_each_set_bit(c, s->idle[PTO_TASK_AIC], s->ncores[PTO_TASK_AIC])
		n += test_bit(2 * c, s->idle[PTO_TASK_AIV]) &&
		     test_bit(2 * c + 1, s->idle[PTO_TASK_AIV]);
	return n;
}

/*
 * Another context's data must never be readable: clear a core's local
 * memory when it changes hands. Done when a unit lands on an idle core (or
 * its pending unit moves up), before any part of the block can touch the
 * memory: a mixed block's AIC writes ring slots into its AIVs' UB.
 */
static void pto_core_scrub(struct pto_sched *s, struct pto_core *core,
			   struct pto_task *task)
{
	if (core->owner == task->ctx->uid)
		return;
	memset(core->local, 0, s->local_size[core->type == PTO_CORE_AIC]);
	core->owner = task->ctx->uid;
}

static bool pto_can_preload(const struct pto_core *core)
{
	return core->run_task && !core->staged && !core->pend_task;
}

static void pto_count_dispatch(struct pto_device *pdev, struct pto_task *task,
			       u32 unit)
{
	if (!unit)
		pto_count(pdev, dispatches);
	pto_count(pdev, blocks);
}

/*
 * Put a unit in an idle core's running slot. A pre-staged unit waits there,
 * arguments resolved, until pto_doorbell() releases it.
 */
static void pto_core_start(struct pto_sched *s, struct pto_core *core,
			   struct pto_task *task, u32 unit,
			   struct pto_core *self, bool staged)
{
	u32 ti = core->type == PTO_CORE_AIC;

	__clear_bit(core->index, s->idle[ti]);
	pto_core_scrub(s, core, task);
	core->run_task = task;
	core->run_unit = unit;
	task->blocks[unit].ts[PTO_TS_DISPATCH] = ktime_get_ns();
	task->blocks_out++;
	pto_count_dispatch(core->pdev, task, unit);
	if (staged) {
		core->staged = true;
		task->blocks[unit].staged = true;
		task->staged_units++;
		pto_count(core->pdev, stages);
		trace_pto_stage(core->pdev->index, task->ctx->uid, task->id,
				unit, core->type, core->index, 0);
		return;
	}
	trace_pto_dispatch(core->pdev->index, task->ctx->uid, task->id, unit,
			   core->type, core->index, 0);
	pto_core_kick(s, core, self);
}

/* A mixed block takes a whole cluster: its AIC and both AIVs. */
static void pto_place_mix(struct pto_sched *s, struct pto_task *task,
			  struct pto_core *self, bool staged)
{
	u32 c = pto_idle_cluster(s), b = task->next_block++;
	struct pto_core *aic = &s->cores[PTO_TASK_AIC][c];
	struct pto_core *aiv0 = &s->cores[PTO_TASK_AIV][2 * c];
	struct pto_core *aiv1 = &s->cores[PTO_TASK_AIV][2 * c + 1];
	struct pto_xring_set *set = &task->rings[b];
	u32 unit = b * task->nparts;

	set->mem[0] = (u8 *)aiv0->local + task->ring_base;
	set->mem[1] = (u8 *)aiv1->local + task->ring_base;
	pto_core_start(s, aic, task, unit, self, staged);
	pto_core_start(s, aiv0, task, unit + 1, self, staged);
	if (task->split == DRM_PTO_NPU_SPLIT_UP_DOWN) {
		pto_core_start(s, aiv1, task, unit + 2, self, staged);
	} else {
		__clear_bit(aiv1->index, s->idle[PTO_TASK_AIV]);
		pto_core_scrub(s, aiv1, task);
		aiv0->partner = aiv1;
	}
}

static void pto_sched_dispatch(struct pto_sched *s, struct pto_core *self);

/*
 * allow_early_resolve: a consumer pre-stages once every producer it still
 * waits for carries the flag and has all its blocks on cores (so staging
 * can never take a core a producer's later wave needs). It takes idle
 * cores only, and only when nothing ready of its core type waits for them.
 * Predicated tasks are never pre-staged: the predicate is read at ready time.
 */
static void pto_try_stage(struct pto_sched *s, struct pto_task *c)
{
	u32 ti = pto_task_type(c), i;

	if (c->state != PTO_TASK_WAITING || !c->fanin || c->dep_failed ||
	    c->status != DRM_PTO_NPU_STATUS_OK || c->ctx->dead ||
	    (c->flags & (DRM_PTO_NPU_TASK_F_PREDICATE |
			 DRM_PTO_NPU_TASK_F_SYNC_START)) ||
	    c->next_block == c->block_num || !list_empty(&s->ready[ti]))
		return;
	for (i = 0; i < c->num_edges; i++) {
		struct pto_task *p = c->edges[i].producer;

		if (p && (!(p->flags & DRM_PTO_NPU_TASK_F_EARLY_RESOLVE) ||
			  p->next_block < p->block_num))
			return;
	}
	while (c->next_block < c->block_num) {
		if (ti == PTO_TASK_MIX) {
			if (pto_idle_cluster(s) == s->ncores[PTO_TASK_AIC])
				return;
			pto_place_mix(s, c, NULL, true);
			continue;
		}
		i = find_first_bit(s->idle[ti], s->ncores[ti]);
		if (i == s->ncores[ti])
			return;
		pto_core_start(s, &s->cores[ti][i], c, c->next_block++, NULL,
			       true);
	}
}

/*
 * Ring the doorbells of a task's pre-staged cores: they start at once, no
 * dispatch loop. The calling worker runs one of them itself (@adopt) when
 * it can, so the first consumer unit starts without even a wake-up.
 */
static void pto_doorbell(struct pto_sched *s, struct pto_task *task,
			 struct pto_core **adopt)
{
	u32 ti, i;

	for (ti = 0; ti < 2 && task->staged_units; ti++) {
		for (i = 0; i < s->ncores[ti] && task->staged_units; i++) {
			struct pto_core *core = &s->cores[ti][i];

			if (!core->staged || core->run_task != task)
				continue;
			core->staged = false;
			task->staged_units--;
			task->blocks[core->run_unit].ts[PTO_TS_DISPATCH] = ktime_get_ns();
			pto_count(core->pdev, doorbells);
			trace_pto_doorbell(core->pdev->index, task->ctx->uid,
					   task->id, core->run_unit, core->type,
					   core->index, 0);
			if (adopt && !*adopt && !core->in_worker) {
				core->in_worker = true;
				*adopt = core;
			} else {
				pto_core_kick(s, core, NULL);
			}
		}
	}
}

static void pto_place(struct pto_sched *s, struct pto_task *task,
		      struct pto_core *self)
{
	u32 ti = pto_task_type(task), n, i;
	struct pto_core *core;
	u32 block;

	if (ti == PTO_TASK_MIX) {
		pto_place_mix(s, task, self, false);
		goto placed;
	}
	n = s->ncores[ti];
	i = find_first_bit(s->idle[ti], n);
	if (i < n) {
		pto_core_start(s, &s->cores[ti][i], task, task->next_block++,
			       self, false);
	} else {
		/*
		 * Preload only cores that run something: not staged ones (their
		 * unit waits on others), not a mixed block's reserved AIV.
		 */
		for (i = 0; i < n; i++) {
			core = &s->cores[ti][i];
			if (pto_can_preload(core))
				break;
		}
		if (WARN_ON_ONCE(i == n))
			return;
		block = task->next_block++;
		core->pend_task = task;
		core->pend_unit = block;
		task->blocks[block].ts[PTO_TS_DISPATCH] = ktime_get_ns();
		task->blocks_out++;
		pto_count_dispatch(core->pdev, task, block);
		trace_pto_dispatch(core->pdev->index, task->ctx->uid, task->id,
				   block, core->type, core->index, 0);
	}
placed:
	if (task->next_block == task->block_num) {
		struct pto_edge *e;

		pto_ready_del(task);
		task->state = PTO_TASK_PLACED;
		/* Its consumers may now pre-stage. */
		list_for_each_entry(e, &task->fanout, link)
			pto_try_stage(s, e->consumer);
	}
}

static bool pto_has_slot(struct pto_sched *s, const struct pto_task *task)
{
	u32 ti = pto_task_type(task), n, i;
	u32 left = task->block_num - task->next_block;
	bool sync = task->flags & DRM_PTO_NPU_TASK_F_SYNC_START;

	/* sync_start: every block resident at once, so only idle cores count. */
	if (ti == PTO_TASK_MIX)
		return sync ? pto_idle_clusters(s) >= left :
			      pto_idle_cluster(s) < s->ncores[PTO_TASK_AIC];
	n = s->ncores[ti];
	if (sync)
		return bitmap_weight(s->idle[ti], n) >= left;
	if (find_first_bit(s->idle[ti], n) < n)
		return true;
	for (i = 0; i < n; i++)
		if (pto_can_preload(&s->cores[ti][i]))
			return true;
	return false;
}

static void pto_complete(struct pto_sched *s, struct pto_task *first,
			 struct list_head *freeable, struct pto_core **adopt);
static void pto_try_stage(struct pto_sched *s, struct pto_task *c);

/* A task stopped before all its blocks were placed. */
static void pto_unplace_rest(struct pto_task *task)
{
	if (task->state == PTO_TASK_READY) {
		pto_ready_del(task);
		task->state = PTO_TASK_PLACED;
	}
}

static void pto_sched_dispatch(struct pto_sched *s, struct pto_core *self)
{
	u32 ti;

	lockdep_assert_held(&s->lock);
	/* Whole clusters first, or single-core work would always split them. */
	for (ti = PTO_TASK_MIX + 1; ti-- > 0;) {
		while (!list_empty(&s->ready[ti])) {
			struct pto_file *ctx = list_first_entry(&s->ready[ti],
								struct pto_file,
								ready_link[ti]);
			struct pto_task *task = list_first_entry(&ctx->ready[ti],
								 struct pto_task,
								 ready_link);

			if (atomic_read(&task->cancel)) {
				pto_unplace_rest(task);
				continue;
			}
			if (!pto_has_slot(s, task))
				break;
			pto_place(s, task, self);
			/* The next placement goes to the next context. */
			if (!list_empty(&ctx->ready_link[ti]))
				list_move_tail(&ctx->ready_link[ti], &s->ready[ti]);
		}
	}
}

/* The dispatch predicate, read now that every producer has written it. */
static bool pto_predicate_true(const struct pto_task *task)
{
	const struct drm_pto_npu_predicate *p = &task->pred;

	return pto_cmp_eval(p->op, pto_targ_read(&task->targs[p->tensor],
						 p->row, p->col),
			    p->literal);
}

static void pto_make_ready(struct pto_sched *s, struct pto_task *task,
			   struct list_head *work, struct pto_core **adopt)
{
	if (task->ctx->dead && task->status == DRM_PTO_NPU_STATUS_OK)
		task->status = DRM_PTO_NPU_STATUS_CANCELLED;
	else if (task->dep_failed && task->status == DRM_PTO_NPU_STATUS_OK)
		task->status = DRM_PTO_NPU_STATUS_DEP_FAILED;
	else if ((task->flags & DRM_PTO_NPU_TASK_F_PREDICATE) &&
		 task->status == DRM_PTO_NPU_STATUS_OK && !pto_predicate_true(task))
		/* Retired inline as a dummy: never reaches a core. */
		task->status = DRM_PTO_NPU_STATUS_SKIPPED;
	if (task->status != DRM_PTO_NPU_STATUS_OK) {
		if (task->blocks_out) {
			/* Staged units run cancelled; the last one completes it. */
			atomic_set(&task->cancel, 1);
			task->state = PTO_TASK_PLACED;
			pto_doorbell(s, task, NULL);
			return;
		}
		/* Never runs: retire it through the completion loop. */
		list_add_tail(&task->ready_link, work);
		return;
	}
	pto_doorbell(s, task, adopt);
	if (task->next_block == task->block_num) {
		task->state = PTO_TASK_PLACED;
		return;
	}
	task->state = PTO_TASK_READY;
	pto_ready_add(s, task);
}

static void pto_count_retire(struct pto_device *pdev, struct pto_task *task)
{
	switch (task->status) {
	case DRM_PTO_NPU_STATUS_SKIPPED:
		pto_count(pdev, skips);
		trace_pto_skip(pdev->index, task->ctx->uid, task->id,
			       task->status, 0);
		break;
	case DRM_PTO_NPU_STATUS_GM_FAULT:
	case DRM_PTO_NPU_STATUS_ARITH_FAULT:
	case DRM_PTO_NPU_STATUS_LOOP_FAULT:
	case DRM_PTO_NPU_STATUS_BARRIER_FAULT:
		pto_count(pdev, faults);
		trace_pto_fault(pdev->index, task->ctx->uid, task->id,
				task->status, task->detail);
		break;
	case DRM_PTO_NPU_STATUS_TIMEOUT:
		pto_count(pdev, timeouts);
		trace_pto_fault(pdev->index, task->ctx->uid, task->id,
				task->status, task->detail);
		break;
	}
	pto_count(pdev, retired);
	trace_pto_retire(pdev->index, task->ctx->uid, task->id, task->status,
			 task->detail);
}

/*
 * Remember a failed id for dependents that arrive later. The slot was
 * reserved at intake, so storing cannot allocate or fail. Past
 * PTO_MAX_FAILED_REMEMBERED the oldest failure is forgotten (a dependency
 * on it then counts as satisfied; Documentation/uapi.rst).
 */
static void pto_remember_failed(struct pto_file *ctx, struct pto_task *task)
{
	unsigned long oldest = 0;

	xa_store(&ctx->failed, task->id, xa_mk_value(task->status), GFP_ATOMIC);
	if (++ctx->nfailed <= PTO_MAX_FAILED_REMEMBERED)
		return;
	if (xa_find(&ctx->failed, &oldest, ULONG_MAX, XA_PRESENT)) {
		xa_erase(&ctx->failed, oldest);
		ctx->nfailed--;
	}
}

/*
 * Complete @first and, iteratively, every consumer that can never run
 * because a producer failed (no recursion: chains can be 10^4 long).
 */
static void pto_complete(struct pto_sched *s, struct pto_task *first,
			 struct list_head *freeable, struct pto_core **adopt)
{
	LIST_HEAD(work);

	lockdep_assert_held(&s->lock);
	list_add_tail(&first->ready_link, &work);
	while (!list_empty(&work)) {
		struct pto_task *task = list_first_entry(&work, struct pto_task,
							 ready_link);
		struct pto_file *ctx = task->ctx;
		/* A skipped task releases its consumers as if it had run. */
		bool failed = task->status != DRM_PTO_NPU_STATUS_OK &&
			      task->status != DRM_PTO_NPU_STATUS_SKIPPED;
		struct pto_edge *e;

		list_del_init(&task->ready_link);
		task->state = PTO_TASK_DONE;
		task->ts_retire = ktime_get_ns();
		pto_count_retire(ctx->pdev, task);
		xa_erase(&ctx->tasks, task->id);
		if (failed)
			pto_remember_failed(ctx, task);
		else
			xa_release(&ctx->failed, task->id);

		list_for_each_entry(e, &task->fanout, link) {
			struct pto_task *c = e->consumer;

			e->producer = NULL;
			if (failed)
				c->dep_failed = true;
			if (!--c->fanin)
				pto_make_ready(s, c, &work, adopt);
			else
				pto_try_stage(s, c);
		}
		INIT_LIST_HEAD(&task->fanout);
		pto_batch_retire(task->batch, failed);
		pto_queue_task_done(task, freeable);
	}
}

static void pto_block_done(struct pto_sched *s, struct pto_core *core,
			   struct pto_task *task, u32 unit,
			   const struct pto_exec_result *res,
			   struct list_head *freeable, struct pto_core **adopt)
{
	u32 ti = core->type == PTO_CORE_AIC;

	task->blocks_out--;
	if (res->status != DRM_PTO_NPU_STATUS_OK &&
	    task->status == DRM_PTO_NPU_STATUS_OK) {
		task->status = res->status;
		task->detail = res->detail;
		atomic_set(&task->cancel, 1);
		/* Ring waiters of the other parts stop now, not at their deadline. */
		wake_up_all(&task->xwait);
	}
	if (atomic_read(&task->cancel))
		pto_unplace_rest(task);
	/*
	 * Only now, with this unit's own status recorded first, tell ring
	 * peers and barrier partners that it has ended.
	 */
	if (task->rings)
		pto_ring_side_done(task, unit / task->nparts,
				   core->type == PTO_CORE_AIC,
				   unit % task->nparts - 1);
	if (task->bar_parties)
		pto_barrier_exit(task);

	core->run_task = core->pend_task;
	core->run_unit = core->pend_unit;
	core->pend_task = NULL;
	if (core->run_task)
		pto_core_scrub(s, core, core->run_task);
	if (!core->run_task)
		__set_bit(core->index, s->idle[ti]);
	if (core->partner) {
		__set_bit(core->partner->index, s->idle[PTO_TASK_AIV]);
		core->partner = NULL;
	}

	if (!task->blocks_out && task->state == PTO_TASK_PLACED)
		pto_complete(s, task, freeable, adopt);
	pto_sched_dispatch(s, core);
}

static void pto_core_run(struct pto_core *core)
{
	struct pto_sched *s = core->pdev->sched;
	struct pto_core *adopt = NULL;
	LIST_HEAD(freeable);

	spin_lock(&s->lock);
	core->rung = false;
	if (core->in_worker) {
		/* Another core's thread adopted this one: it runs our unit. */
		spin_unlock(&s->lock);
		return;
	}
	core->in_worker = true;
next_core:
	/* A staged unit in our own slot waits for its doorbell like any other. */
	while (core->run_task && !core->staged) {
		struct pto_task *task = core->run_task;
		u32 unit = core->run_unit;
		struct pto_block_rec *rec = &task->blocks[unit];
		struct pto_exec_result res = {};

		spin_unlock(&s->lock);
		rec->ts[PTO_TS_RECEIVE] = ktime_get_ns();
		rec->core = core->index;
		rec->core_type = core->type;
		trace_pto_start(core->pdev->index, task->ctx->uid, task->id,
				unit, core->type, core->index, 0);
		rec->ts[PTO_TS_START] = ktime_get_ns();
		if (atomic_read(&task->cancel)) {
			res.status = DRM_PTO_NPU_STATUS_CANCELLED;
		} else {
			rec->ran = true;
			task->any_ran = true;
			pto_exec_block(core, task, unit, &res);
		}
		rec->ts[PTO_TS_END] = ktime_get_ns();
		trace_pto_end(core->pdev->index, task->ctx->uid, task->id, unit,
			      core->type, core->index, res.status);

		rec->status = res.status;
		rec->detail = res.detail;

		spin_lock(&s->lock);
		rec->ts[PTO_TS_FINISH] = ktime_get_ns();
		pto_block_done(s, core, task, unit, &res, &freeable, &adopt);
		if (adopt && core->run_task && !core->staged) {
			/*
			 * Our own core has a unit, and only this thread runs
			 * it: the adopted core goes back to its own thread (it
			 * may wait on our unit, at a barrier or a ring).
			 */
			adopt->in_worker = false;
			pto_core_kick(s, adopt, NULL);
			adopt = NULL;
		}
	}
	core->in_worker = false;
	if (adopt) {
		/* A pre-staged core released by our completion: run it here. */
		core = adopt;
		adopt = NULL;
		goto next_core;
	}
	spin_unlock(&s->lock);
	pto_tasks_free_list(&freeable);
}

static int pto_core_thread(void *data)
{
	struct pto_core *core = data;

	while (!kthread_should_stop()) {
		wait_event_interruptible(core->doorbell, READ_ONCE(core->rung) ||
					 kthread_should_stop());
		if (READ_ONCE(core->rung))
			pto_core_run(core);
	}
	return 0;
}

/**
 * pto_sched_add - hand a validated task to the scheduler
 * @pdev: device
 * @task: the task (id assigned, arguments resolved, or a refused entry
 *        with its status set)
 * @deps: its dependencies as absolute ids, validated to be earlier tasks
 * @freeable: out: tasks fully retired, to free outside the lock
 */
void pto_sched_add(struct pto_device *pdev, struct pto_task *task,
		   const s64 *deps, struct list_head *freeable)
{
	struct pto_sched *s = pdev->sched;
	struct pto_file *ctx = task->ctx;
	LIST_HEAD(work);
	u32 i, n = 0;

	spin_lock(&s->lock);
	list_add_tail(&task->ctx_link, &ctx->live);
	for (i = 0; i < task->num_deps; i++) {
		struct pto_task *p = xa_load(&ctx->tasks, deps[i]);

		if (p) {
			struct pto_edge *e = &task->edges[n++];

			e->consumer = task;
			e->producer = p;
			list_add_tail(&e->link, &p->fanout);
			task->fanin++;
		} else if (xa_is_value(xa_load(&ctx->failed, deps[i]))) {
			task->dep_failed = true;
		}
	}
	task->num_edges = n;
	if (!task->fanin) {
		pto_make_ready(s, task, &work, NULL);
		if (!list_empty(&work)) {
			list_del_init(&task->ready_link);
			pto_complete(s, task, freeable, NULL);
		} else {
			pto_sched_dispatch(s, NULL);
		}
	} else {
		pto_try_stage(s, task);
	}
	spin_unlock(&s->lock);
}

/**
 * pto_sched_cancel_ctx - stop everything of a closing context
 * @ctx: the context
 *
 * Marks the context dead, cancels its tasks (running blocks stop at their
 * next check, unplaced work retires at once), drops held completions and
 * waits until every task of the context has been freed.
 */
void pto_sched_cancel_ctx(struct pto_file *ctx)
{
	struct pto_sched *s = ctx->pdev->sched;
	struct pto_task *task, *tmp;
	LIST_HEAD(freeable);
	LIST_HEAD(stop);

	spin_lock(&s->lock);
	ctx->dead = true;
	list_for_each_entry(task, &ctx->live, ctx_link) {
		atomic_set(&task->cancel, 1);
		wake_up_all(&task->xwait);
		pto_doorbell(s, task, NULL);
		if (task->state == PTO_TASK_READY) {
			pto_ready_del(task);
			task->state = PTO_TASK_PLACED;
			if (!task->blocks_out)
				list_add_tail(&task->held_link, &stop);
		}
	}
	list_for_each_entry_safe(task, tmp, &stop, held_link) {
		list_del_init(&task->held_link);
		if (task->status == DRM_PTO_NPU_STATUS_OK)
			task->status = DRM_PTO_NPU_STATUS_CANCELLED;
		pto_complete(s, task, &freeable, NULL);
	}
	spin_unlock(&s->lock);
	pto_tasks_free_list(&freeable);
	pto_queues_drop_held(ctx);

	wait_event(ctx->wq, !atomic_read(&ctx->inflight));
	/* The last pto_task_free() wakes us under the lock: let it finish. */
	spin_lock(&s->lock);
	spin_unlock(&s->lock);
}

/**
 * pto_task_put_resources - drop what a task references
 * @task: task
 */
void pto_task_put_resources(struct pto_task *task)
{
	u32 i;

	for (i = 0; i < task->num_tensors; i++)
		if (task->targs[i].bo)
			drm_gem_object_put(&task->targs[i].bo->base.base);
	for (i = 0; i < 2; i++)
		if (task->kern[i])
			pto_kernel_put(task->kern[i]);
	if (task->batch)
		dma_fence_put(&task->batch->base);
}

/**
 * pto_task_free - release a fully retired task
 * @task: task, off every scheduler list
 */
void pto_task_free(struct pto_task *task)
{
	struct pto_file *ctx = task->ctx;
	struct pto_sched *s = ctx->pdev->sched;

	pto_task_put_resources(task);
	atomic_dec(&task->queue->live);

	spin_lock(&s->lock);
	list_del(&task->ctx_link);
	atomic_dec(&ctx->inflight);
	/* CQEs posted, back-pressure relieved, or the last task gone. */
	wake_up_all(&ctx->wq);
	spin_unlock(&s->lock);
	kvfree(task);
}

void pto_tasks_free_list(struct list_head *list)
{
	struct pto_task *task, *tmp;

	list_for_each_entry_safe(task, tmp, list, held_link) {
		list_del(&task->held_link);
		pto_task_free(task);
		/* A closing context may free thousands at once. */
		cond_resched();
	}
}

int pto_sched_init(struct pto_device *pdev)
{
	const struct pto_topology *t = &pdev->topo;
	struct pto_sched *s;
	u32 ti, i;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	pdev->sched = s;
	spin_lock_init(&s->lock);
	for (ti = 0; ti <= PTO_TASK_MIX; ti++)
		INIT_LIST_HEAD(&s->ready[ti]);
	s->ncores[0] = t->clusters * PTO_AIV_PER_CLUSTER;
	s->ncores[1] = t->clusters;

	/* AIV: UB at 0. AIC: L1 | L0A | L0B | L0C. */
	s->buf_base[PTO_BUF_UB] = 0;
	s->buf_size[PTO_BUF_UB] = t->aiv_ub;
	s->local_size[0] = t->aiv_ub;
	s->buf_base[PTO_BUF_L1] = 0;
	s->buf_size[PTO_BUF_L1] = t->aic_l1;
	s->buf_base[PTO_BUF_L0A] = t->aic_l1;
	s->buf_size[PTO_BUF_L0A] = t->aic_l0a;
	s->buf_base[PTO_BUF_L0B] = t->aic_l1 + t->aic_l0a;
	s->buf_size[PTO_BUF_L0B] = t->aic_l0b;
	s->buf_base[PTO_BUF_L0C] = t->aic_l1 + t->aic_l0a + t->aic_l0b;
	s->buf_size[PTO_BUF_L0C] = t->aic_l0c;
	s->local_size[1] = s->buf_base[PTO_BUF_L0C] + t->aic_l0c;

	for (ti = 0; ti < 2; ti++) {
		s->cores[ti] = kcalloc(s->ncores[ti], sizeof(struct pto_core),
				       GFP_KERNEL);
		s->idle[ti] = bitmap_zalloc(s->ncores[ti], GFP_KERNEL);
		if (!s->cores[ti] || !s->idle[ti])
			goto err;
		bitmap_fill(s->idle[ti], s->ncores[ti]);
		for (i = 0; i < s->ncores[ti]; i++) {
			struct pto_core *core = &s->cores[ti][i];

			core->pdev = pdev;
			core->type = ti ? PTO_CORE_AIC : PTO_CORE_AIV;
			core->index = i;
			core->sub_block = ti ? 0 : i % PTO_AIV_PER_CLUSTER;
			init_waitqueue_head(&core->doorbell);
			core->local = vzalloc(s->local_size[ti]);
			if (!core->local)
				goto err;
			core->thread = kthread_run(pto_core_thread, core,
						   "pto%u_%s%u", pdev->index,
						   ti ? "aic" : "aiv", i);
			if (IS_ERR(core->thread)) {
				core->thread = NULL;
				goto err;
			}
		}
	}
	return 0;

err:
	pto_sched_fini(pdev);
	return -ENOMEM;
}

void pto_sched_fini(struct pto_device *pdev)
{
	struct pto_sched *s = pdev->sched;
	u32 ti, i;

	if (!s)
		return;
	for (ti = 0; ti < 2; ti++) {
		for (i = 0; s->cores[ti] && i < s->ncores[ti]; i++) {
			if (s->cores[ti][i].thread)
				kthread_stop(s->cores[ti][i].thread);
			vfree(s->cores[ti][i].local);
		}
		kfree(s->cores[ti]);
		bitmap_free(s->idle[ti]);
	}
	kfree(s);
	pdev->sched = NULL;
}
