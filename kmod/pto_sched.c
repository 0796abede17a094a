// SPDX-License-Identifier: GPL-2.0-only
/*
 * pto_npu: the emulated AICPU scheduler: ready queues, placement,
 * pre-staging and completion.
 *
 * Tasks carry a fanin count (producers not yet complete) and a fanout list
 * (pto_deps.c). At fanin zero a task is ready and joins the ready queue of
 * its type. Dispatch places units on idle cores lowest index first, then
 * into the pending slot of busy cores; more blocks than cores run in waves.
 * The core threads (pto_worker.c) run the units and, for each one that
 * ends, call pto_unit_done() under the scheduler lock: complete the task,
 * release its consumers, dispatch. Locking: pto_sched.h.
 *
 * Copyright (C) 2026 pto-npu authors
 */

#include <linux/bitmap.h>
#include <linux/cpumask.h>
#include <linux/ktime.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "pto_barrier.h"
#include "pto_deps.h"
#include "pto_exec.h"
#include "pto_gm.h"
#include "pto_graph.h"
#include "pto_infer.h"
#include "pto_queue.h"
#include "pto_sched.h"
#include "pto_task_mem.h"
#include "pto_trace.h"
#include "pto_worker.h"
#include "pto_xring.h"

static u32 pto_task_type(const struct pto_task *task)
{
	if (task->kern[0] && task->kern[1])
		return PTO_RQ_MIX;
	return task->kern[PTO_AIV] ? PTO_RQ_AIV : PTO_RQ_AIC;
}

/*
 * Ready queues: one per context and type, the contexts that have ready
 * tasks served round robin, so a context with thousands of ready tasks
 * delays another's next task by one placement, not by its whole backlog.
 */
static void pto_ready_add(struct pto_sched *s, struct pto_task *task)
{
	struct pto_ctx *ctx = task->ctx;
	u32 ti = pto_task_type(task);

	lockdep_assert_held(&s->lock);
	list_add_tail(&task->ready_link, &ctx->ready[ti]);
	if (list_empty(&ctx->ready_link[ti]))
		list_add_tail(&ctx->ready_link[ti], &s->ready[ti]);
}

void pto_ready_del(struct pto_task *task)
{
	struct pto_ctx *ctx = task->ctx;
	u32 ti = pto_task_type(task);

	lockdep_assert_held(&task->ctx->pdev->sched->lock);
	list_del_init(&task->ready_link);
	if (list_empty(&ctx->ready[ti]))
		list_del_init(&ctx->ready_link[ti]);
}

/* Lowest cluster whose AIC and both AIVs are idle, or clusters if none. */
static u32 pto_idle_cluster(struct pto_sched *s)
{
	u32 c;

	for_each_set_bit(c, s->idle[PTO_AIC], s->ncores[PTO_AIC]) {
		if (test_bit(2 * c, s->idle[PTO_AIV]) &&
		    test_bit(2 * c + 1, s->idle[PTO_AIV]))
			return c;
	}
	return s->ncores[PTO_AIC];
}

static u32 pto_idle_clusters(struct pto_sched *s)
{
	u32 c, n = 0;

	for_each_set_bit(c, s->idle[PTO_AIC], s->ncores[PTO_AIC])
		n += test_bit(2 * c, s->idle[PTO_AIV]) &&
		     test_bit(2 * c + 1, s->idle[PTO_AIV]);
	return n;
}

/*
 * Bytes from the start of @core's local memory a unit of @task may write:
 * its kernel's tiles, and on the AIVs of a mixed task the whole UB (the
 * ring's slots follow the tiles, written by the AIC too).
 */
static u32 pto_local_footprint(struct pto_sched *s, struct pto_core *core,
			       const struct pto_task *task)
{
	bool aic = core->type == PTO_CORE_AIC;

	if (!aic && task->kern[0] && task->kern[1])
		return s->local_size[0];
	return task->kern[aic] ? task->kern[aic]->local_end : s->local_size[aic];
}

/*
 * Another context's data must never be readable: clear a core's local
 * memory when it changes hands. Done when a unit lands on an idle core (or
 * its pending unit moves up), before any part of the block can touch the
 * memory: a mixed block's AIC writes ring slots into its AIVs' UB. Only
 * what the units since the last scrub may have written is cleared: a
 * kernel writes nothing outside its tiles (the verifier places them), so
 * contexts taking turns with small kernels clear little.
 */
static void pto_core_scrub(struct pto_sched *s, struct pto_core *core,
			   struct pto_task *task)
{
	lockdep_assert_held(&s->lock);
	if (core->owner != task->ctx->uid) {
		memset(core->local, 0, core->dirty);
		core->owner = task->ctx->uid;
		core->dirty = 0;
	}
	core->dirty = max(core->dirty, pto_local_footprint(s, core, task));
}

/* @self (the calling worker's core, or NULL) is a core of type @ti. */
static bool pto_own_core(const struct pto_core *self, u32 ti)
{
	return self && ti != PTO_RQ_MIX &&
	       pto_cidx(self) == ti;
}

/*
 * An idle core of type @ti for a block of @task, or s->ncores[ti] if none:
 * @self (the finishing worker's core: no wake-up, no scan), or the lowest
 * idle core, preferring, among those, one whose local memory already
 * belongs to @task's context. A core changing hands is scrubbed (hundreds
 * of KiB zeroed), which costs more than any scan: with several contexts
 * taking turns on a device, their blocks stay on the cores they had. The
 * scan runs only when the lowest idle core belongs to another context.
 */
static u32 pto_idle_core(struct pto_sched *s, u32 ti,
			 const struct pto_task *task,
			 const struct pto_core *self)
{
	u32 n = s->ncores[ti], first = find_first_bit(s->idle[ti], n), i;
	bool self_idle = pto_own_core(self, ti) &&
			 test_bit(self->index, s->idle[ti]);
	u64 uid = task->ctx->uid;

	if (self_idle && self->owner == uid)
		return self->index;
	if (first == n || s->cores[ti][first].owner == uid)
		return first;
	for (i = find_next_bit(s->idle[ti], n, first + 1); i < n;
	     i = find_next_bit(s->idle[ti], n, i + 1))
		if (s->cores[ti][i].owner == uid)
			return i;
	return self_idle ? self->index : first;
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
	pto_count(pdev, units);
}

/* One clock read per dispatch pass: its placements happen at one instant. */
u64 pto_pass_ns(u64 *now)
{
	if (!*now)
		*now = ktime_get_ns();
	return *now;
}

/*
 * Profiling queues: unit @unit of @task has been placed, pre-staged or
 * not, in the pass its ts_dispatch began.
 */
static void pto_prof_placed(struct pto_sched *s, struct pto_task *task,
			    u32 unit, bool staged)
{
	struct drm_pto_npu_sched *r = pto_task_sched(task, unit);

	if (likely(!r))
		return;
	r->dispatch_begin = task->recs[unit].ts[PTO_TS_DISPATCH];
	r->dispatch_end = ktime_get_ns();
	r->dispatch_iter = s->iter;
	if (staged)
		r->flags |= DRM_PTO_NPU_SCHED_F_STAGED;
}

/*
 * Put a unit in an idle core's running slot. A pre-staged unit waits there,
 * arguments resolved, until pto_release_staged() releases it.
 */
static void pto_core_start(struct pto_sched *s, struct pto_core *core,
			   struct pto_task *task, u32 unit,
			   struct pto_core *self, bool staged, u64 *now)
{
	u32 ti = pto_cidx(core);

	lockdep_assert_held(&s->lock);
	__clear_bit(core->index, s->idle[ti]);
	pto_core_scrub(s, core, task);
	core->run_task = task;
	core->run_unit = unit;
	task->recs[unit].ts[PTO_TS_DISPATCH] = pto_pass_ns(now);
	task->units_out++;
	pto_count_dispatch(core->pdev, task, unit);
	if (staged) {
		core->staged = true;
		task->recs[unit].staged = true;
		task->staged_units++;
		/* For pto_release_staged(); set again when the unit starts. */
		task->recs[unit].core = core->index;
		task->recs[unit].core_type = core->type;
		pto_count(core->pdev, stages);
		trace_pto_stage(task, unit, core, 0);
		pto_prof_placed(s, task, unit, true);
		return;
	}
	trace_pto_dispatch(task, unit, core, 0);
	/* A core that runs something can take a pending unit. */
	s->no_preload[ti] = false;
	pto_core_kick(s, core, self);
	pto_prof_placed(s, task, unit, false);
}

/* A mixed block takes a whole cluster: its AIC and both AIVs. */
static void pto_place_mix(struct pto_sched *s, struct pto_task *task,
			  struct pto_core *self, bool staged, u64 *now)
{
	u32 c = pto_idle_cluster(s), b = task->next_block++;
	struct pto_core *aic = &s->cores[PTO_AIC][c];
	struct pto_core *aiv0 = &s->cores[PTO_AIV][2 * c];
	struct pto_core *aiv1 = &s->cores[PTO_AIV][2 * c + 1];
	struct pto_xring_set *set = &task->rings[b];
	u32 unit = b * task->nparts;

	lockdep_assert_held(&s->lock);
	set->mem[0] = (u8 *)aiv0->local + task->ring_base;
	set->mem[1] = (u8 *)aiv1->local + task->ring_base;
	pto_core_start(s, aic, task, unit, self, staged, now);
	pto_core_start(s, aiv0, task, unit + 1, self, staged, now);
	if (task->split == DRM_PTO_NPU_SPLIT_UP_DOWN) {
		pto_core_start(s, aiv1, task, unit + 2, self, staged, now);
	} else {
		__clear_bit(aiv1->index, s->idle[PTO_AIV]);
		pto_core_scrub(s, aiv1, task);
		aiv0->partner = aiv1;
	}
}

/*
 * allow_early_resolve: a consumer pre-stages once every producer it still
 * waits for carries the flag and has all its blocks on cores (so staging
 * can never take a core a producer's later wave needs). It takes idle
 * cores only, and only when nothing ready of its core type waits for them.
 * Predicated tasks are never pre-staged: the predicate is read at ready time.
 */
void pto_try_stage(struct pto_sched *s, struct pto_task *c)
{
	u32 ti = pto_task_type(c), i;
	u64 now = 0;

	lockdep_assert_held(&s->lock);
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
		if (ti == PTO_RQ_MIX) {
			if (pto_idle_cluster(s) == s->ncores[PTO_AIC])
				return;
			pto_place_mix(s, c, NULL, true, &now);
			continue;
		}
		i = pto_idle_core(s, ti, c, NULL);
		if (i == s->ncores[ti])
			return;
		pto_core_start(s, &s->cores[ti][i], c, c->next_block++, NULL,
			       true, &now);
	}
}

/*
 * The core unit @u of @task is still staged on, or NULL. Staged units are
 * placed units: each record names its core.
 */
struct pto_core *pto_staged_core(struct pto_sched *s, struct pto_task *task,
				 u32 u)
{
	const struct pto_unit_rec *rec = &task->recs[u];
	struct pto_core *core;

	lockdep_assert_held(&s->lock);
	if (!rec->staged)
		return NULL;
	core = &s->cores[pto_type_cidx(rec->core_type)][rec->core];
	if (!core->staged || core->run_task != task || core->run_unit != u)
		return NULL;
	return core;
}

/* Release staged unit @u of @task from @core: released at @now. */
void pto_release_staged_unit(struct pto_sched *s, struct pto_core *core,
			     struct pto_task *task, u32 u, u64 now)
{
	lockdep_assert_held(&s->lock);
	core->staged = false;
	s->no_preload[pto_cidx(core)] = false;
	task->staged_units--;
	/* Its doorbell: the core has it (dispatch stays its placement). */
	task->recs[u].ts[PTO_TS_RECEIVE] = now;
	if (pto_task_prof(task))
		pto_prof_wait_add(task, u, DRM_PTO_NPU_WAIT_STAGED, 0,
				  task->recs[u].ts[PTO_TS_DISPATCH], now);
	pto_count(core->pdev, releases);
	trace_pto_release(task, u, core, 0);
}

/*
 * Release a task's pre-staged units: they start at once, no
 * dispatch loop. The calling worker runs one of them itself (@adopt) when
 * it can, so the first consumer unit starts without even a wake-up.
 */
void pto_release_staged(struct pto_sched *s, struct pto_task *task,
			struct pto_core **adopt, u64 *now)
{
	u32 u;

	lockdep_assert_held(&s->lock);
	for (u = 0; u < task->next_block * task->nparts && task->staged_units;
	     u++) {
		struct pto_core *core = pto_staged_core(s, task, u);

		if (!core)
			continue;
		pto_release_staged_unit(s, core, task, u, pto_pass_ns(now));
		if (adopt && !*adopt && !core->in_worker) {
			core->in_worker = true;
			*adopt = core;
		} else {
			pto_core_kick(s, core, NULL);
		}
	}
}

static void pto_place(struct pto_sched *s, struct pto_task *task,
		      struct pto_core *self, u64 *now)
{
	u32 ti = pto_task_type(task), n, i;
	struct pto_core *core;
	u32 block;

	lockdep_assert_held(&s->lock);
	if (ti == PTO_RQ_MIX) {
		pto_place_mix(s, task, self, false, now);
		goto placed;
	}
	n = s->ncores[ti];
	/*
	 * The worker that finished a unit takes the next one on its own core
	 * when it can: it runs it without waking anyone, and the placement
	 * costs no scan (pto_idle_core()).
	 */
	i = pto_idle_core(s, ti, task, self);
	if (i < n) {
		pto_core_start(s, &s->cores[ti][i], task, task->next_block++,
			       self, false, now);
	} else {
		/*
		 * Preload only cores that run something: not staged ones (their
		 * unit waits on others), not a mixed block's reserved AIV.
		 */
		core = self;
		if (!pto_own_core(self, ti) || !pto_can_preload(self)) {
			for (i = 0; i < n; i++) {
				core = &s->cores[ti][i];
				if (pto_can_preload(core))
					break;
			}
			if (WARN_ON_ONCE(i == n))
				return;
		}
		block = task->next_block++;
		core->pend_task = task;
		core->pend_unit = block;
		task->recs[block].ts[PTO_TS_DISPATCH] = pto_pass_ns(now);
		task->units_out++;
		pto_count_dispatch(core->pdev, task, block);
		trace_pto_dispatch(task, block, core, 0);
		pto_prof_placed(s, task, block, false);
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

static bool pto_has_slot(struct pto_sched *s, const struct pto_task *task,
			 struct pto_core *self)
{
	u32 ti = pto_task_type(task), n, i;
	u32 left = task->block_num - task->next_block;
	bool sync = task->flags & DRM_PTO_NPU_TASK_F_SYNC_START;

	lockdep_assert_held(&s->lock);
	/* sync_start: every block resident at once, so only idle cores count. */
	if (ti == PTO_RQ_MIX)
		return sync ? pto_idle_clusters(s) >= left :
			      pto_idle_cluster(s) < s->ncores[PTO_AIC];
	n = s->ncores[ti];
	if (sync)
		return bitmap_weight(s->idle[ti], n) >= left;
	if (pto_own_core(self, ti) &&
	    (test_bit(self->index, s->idle[ti]) || pto_can_preload(self)))
		return true;
	if (find_first_bit(s->idle[ti], n) < n)
		return true;
	if (s->no_preload[ti])
		return false;
	for (i = 0; i < n; i++)
		if (pto_can_preload(&s->cores[ti][i]))
			return true;
	s->no_preload[ti] = true;
	return false;
}

/* A task stopped before all its blocks were placed. */
static void pto_unplace_rest(struct pto_task *task)
{
	lockdep_assert_held(&task->ctx->pdev->sched->lock);
	if (task->state == PTO_TASK_READY) {
		pto_ready_del(task);
		task->state = PTO_TASK_PLACED;
	}
}

/*
 * A placement pass. @now: its clock if the caller has just read it, else 0
 * (read at the first placement, if any).
 */
void pto_sched_dispatch(struct pto_sched *s, struct pto_core *self, u64 now)
{
	u32 ti;

	lockdep_assert_held(&s->lock);
	/* Whole clusters first, or single-core work would always split them. */
	for (ti = PTO_RQ_MIX + 1; ti-- > 0;) {
		while (!list_empty(&s->ready[ti])) {
			struct pto_ctx *ctx = list_first_entry(&s->ready[ti],
								struct pto_ctx,
								ready_link[ti]);
			struct pto_task *task = list_first_entry(&ctx->ready[ti],
								 struct pto_task,
								 ready_link);

			if (atomic_read(&task->cancel)) {
				pto_unplace_rest(task);
				continue;
			}
			if (!pto_has_slot(s, task, self))
				break;
			pto_place(s, task, self, &now);
			/*
			 * A SYNC_START task takes all its cores in one pass:
			 * another context's task taking one in between could
			 * leave it half placed, its units waiting at their
			 * barrier for cores that never come free together.
			 */
			if ((task->flags & DRM_PTO_NPU_TASK_F_SYNC_START) &&
			    task->state == PTO_TASK_READY)
				continue;
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

void pto_make_ready(struct pto_sched *s, struct pto_task *task,
		    struct list_head *work, struct pto_core **adopt, u64 *now)
{
	lockdep_assert_held(&s->lock);
	if (task->ctx->dead && task->status == DRM_PTO_NPU_STATUS_OK)
		task->status = DRM_PTO_NPU_STATUS_CANCELLED;
	else if (task->dep_failed && task->status == DRM_PTO_NPU_STATUS_OK)
		task->status = DRM_PTO_NPU_STATUS_DEP_FAILED;
	else if ((task->flags & DRM_PTO_NPU_TASK_F_PREDICATE) &&
		 task->status == DRM_PTO_NPU_STATUS_OK && !pto_predicate_true(task))
		/* Retired inline as a dummy: never reaches a core. */
		task->status = DRM_PTO_NPU_STATUS_SKIPPED;
	if (task->status != DRM_PTO_NPU_STATUS_OK) {
		if (task->units_out) {
			/* Staged units run cancelled; the last one completes it. */
			atomic_set(&task->cancel, 1);
			task->state = PTO_TASK_PLACED;
			pto_release_staged(s, task, NULL, now);
			return;
		}
		/* Never runs: retire it through the completion loop. */
		list_add_tail(&task->ready_link, work);
		return;
	}
	if (task->graph == PTO_GRAPH_LAUNCH) {
		pto_launch_expand(s, task, work, adopt, now);
		return;
	}
	pto_release_staged(s, task, adopt, now);
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
		trace_pto_skip(task);
		break;
	case DRM_PTO_NPU_STATUS_GM_FAULT:
	case DRM_PTO_NPU_STATUS_ARITH_FAULT:
	case DRM_PTO_NPU_STATUS_LOOP_FAULT:
	case DRM_PTO_NPU_STATUS_BARRIER_FAULT:
	case DRM_PTO_NPU_STATUS_WORKSPACE:
		pto_count(pdev, faults);
		trace_pto_fault(task);
		break;
	case DRM_PTO_NPU_STATUS_TIMEOUT:
	case DRM_PTO_NPU_STATUS_WORK_BUDGET:
		pto_count(pdev, timeouts);
		trace_pto_fault(task);
		break;
	}
	pto_count(pdev, retired);
	trace_pto_retire(task);
}

/*
 * Complete @first and, iteratively, every consumer that can never run
 * because a producer failed (no recursion: chains can be 10^4 long).
 * With @post, the completed tasks' fences and CQEs are left to the caller
 * (linked by held_link): a worker that released a pre-staged consumer
 * runs it first (Documentation/techniques/early-resolve.rst).
 *
 * Return: for profiling queues, the clock read at the end of the last
 * walk, else 0.
 */
u64 pto_complete(struct pto_sched *s, struct pto_task *first,
		 struct list_head *freeable, struct pto_core **adopt,
		 struct list_head *post, u64 now)
{
	u64 end = 0;
	LIST_HEAD(work);

	lockdep_assert_held(&s->lock);
	list_add_tail(&first->ready_link, &work);
	while (!list_empty(&work)) {
		struct pto_task *task = list_first_entry(&work, struct pto_task,
							 ready_link);
		struct pto_ctx *ctx = task->ctx;
		/* A skipped task releases its consumers as if it had run. */
		bool failed = task->status != DRM_PTO_NPU_STATUS_OK &&
			      task->status != DRM_PTO_NPU_STATUS_SKIPPED;
		struct drm_pto_npu_sched *r = pto_task_sched(task, 0);
		struct pto_edge *e;
		u32 visited = 0;

		list_del_init(&task->ready_link);
		task->state = PTO_TASK_DONE;
		/* One clock read per pass (@now: the caller's, if it has one). */
		task->ts_retire = pto_pass_ns(&now);
		pto_count_retire(ctx->pdev, task);
		hash_del(&task->hnode);
		pto_infer_retire(ctx, task);
		pto_gm_task_retire(task);
		list_del_init(&task->park_link);
		/* A node has no id of its own: its launch's failure is remembered. */
		if (failed && task->graph != PTO_GRAPH_NODE)
			pto_deps_remember_failed(ctx, task);

		if (r)
			r->resolve_begin = ktime_get_ns();
		list_for_each_entry(e, &task->fanout, link) {
			struct pto_task *c = e->consumer;

			visited++;
			e->producer = NULL;
			/* Inferred edges order; named ones also pass failure on. */
			if (failed && !e->inferred)
				c->dep_failed = true;
			if (!--c->fanin)
				pto_make_ready(s, c, &work, adopt, &now);
			else
				pto_try_stage(s, c);
		}
		INIT_LIST_HEAD(&task->fanout);
		if (task->graph == PTO_GRAPH_NODE)
			pto_launch_node_done(task, &work);
		if (r) {
			r->resolve_end = ktime_get_ns();
			r->resolve_iter = s->iter;
			r->resolved = visited;
			end = r->resolve_end;
		}
		if (post)
			list_add_tail(&task->held_link, post);
		else
			pto_queue_post(task, freeable);
	}
	return end;
}

void pto_unit_done(struct pto_sched *s, struct pto_core *core,
		   struct pto_task *task, u32 unit,
		   const struct pto_exec_result *res,
		   struct list_head *freeable, struct pto_core **adopt,
		   struct list_head *post)
{
	struct drm_pto_npu_sched *r = pto_task_sched(task, unit);
	u32 ti = pto_cidx(core);
	u64 end = 0;

	lockdep_assert_held(&s->lock);
	if (pto_profiling())
		s->iter++;
	if (r) {
		/* An early retire began later (pto_early_retire()). */
		if (!r->complete_begin)
			r->complete_begin = task->recs[unit].ts[PTO_TS_FINISH];
		r->complete_iter = s->iter;
	}
	task->units_out--;
	/* Our running slot frees up: this core (or its pending unit's) can preload. */
	s->no_preload[ti] = false;
	if (res->status != DRM_PTO_NPU_STATUS_OK &&
	    task->status == DRM_PTO_NPU_STATUS_OK) {
		task->status = res->status;
		task->detail = res->detail;
		task->fail_unit = unit + 1;
		atomic_set(&task->cancel, 1);
		/* Ring waiters of the other parts stop now, not at their deadline. */
		pto_release_task_waits(s, task, DRM_PTO_NPU_STATUS_CANCELLED);
	}
	if (atomic_read(&task->cancel))
		pto_unplace_rest(task);
	/*
	 * Only now, with this unit's own status recorded first, tell ring
	 * peers and barrier partners that it has ended.
	 */
	if (task->rings)
		pto_xring_side_done(s, task, unit / task->nparts,
				    core->type == PTO_CORE_AIC,
				    unit % task->nparts - 1);
	if (task->bar_parties)
		pto_barrier_exit(s, task);

	core->run_task = core->pend_task;
	core->run_unit = core->pend_unit;
	core->pend_task = NULL;
	if (core->run_task)
		pto_core_scrub(s, core, core->run_task);
	if (!core->run_task)
		__set_bit(core->index, s->idle[ti]);
	if (core->partner) {
		__set_bit(core->partner->index, s->idle[PTO_AIV]);
		core->partner = NULL;
	}

	if (!task->units_out && task->state == PTO_TASK_PLACED)
		end = pto_complete(s, task, freeable, adopt, post,
				   task->recs[unit].ts[PTO_TS_FINISH]);
	/*
	 * Its CQEs wait on @post: the record is still ours to write. The
	 * completion's last walk ended the handling (one clock read less).
	 */
	if (r)
		r->complete_end = end ? end : ktime_get_ns();
	pto_sched_dispatch(s, core, 0);
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
	struct drm_pto_npu_sched *r = pto_task_sched(task, 0);
	struct pto_ctx *ctx = task->ctx;
	LIST_HEAD(work);

	spin_lock(&s->lock);
	if (pto_profiling())
		s->iter++;
	list_add_tail(&task->ctx_link, &ctx->live);
	hash_add(ctx->tasks, &task->hnode, task->id);
	pto_deps_link(ctx, task, deps);
	pto_infer_link(ctx, task);
	if (r) {
		r->intake_iter = s->iter;
		r->intake_end = ktime_get_ns();
	}
	if (!task->fanin) {
		/* The pass that follows begins as the intake ends. */
		u64 now = r ? r->intake_end : 0;

		pto_make_ready(s, task, &work, NULL, &now);
		/*
		 * What retires at once: the task, or a launch's nodes that
		 * never run (a predicate false, a closing context).
		 */
		while (!list_empty(&work)) {
			struct pto_task *w = list_first_entry(&work, struct pto_task,
							      ready_link);

			list_del_init(&w->ready_link);
			pto_complete(s, w, freeable, NULL, NULL, now);
		}
		if (task->state != PTO_TASK_DONE)
			pto_sched_dispatch(s, NULL, now);
	} else {
		pto_try_stage(s, task);
	}
	spin_unlock(&s->lock);
}
