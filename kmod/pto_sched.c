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
 * wait queue: a unit landing in its empty running slot wakes it. Sleeping,
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
#include <linux/cpumask.h>
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
	struct pto_ctx *ctx = task->ctx;
	u32 ti = pto_task_type(task);

	list_add_tail(&task->ready_link, &ctx->ready[ti]);
	if (list_empty(&ctx->ready_link[ti]))
		list_add_tail(&ctx->ready_link[ti], &s->ready[ti]);
}

static void pto_ready_del(struct pto_task *task)
{
	struct pto_ctx *ctx = task->ctx;
	u32 ti = pto_task_type(task);

	list_del_init(&task->ready_link);
	if (list_empty(&ctx->ready[ti]))
		list_del_init(&ctx->ready_link[ti]);
}

/*
 * A unit any worker thread may run: no unit sleeps waiting for another
 * (barrier and ring waits park and free the thread), so running it on a
 * thread that is not its core's own cannot deadlock. A unit that polls GM
 * for another's write gets it a thread of its own within a scheduling
 * quantum, PTO_QUANTUM_NS (pto_exec.c). A staged unit waits for its producer to complete.
 */
static bool pto_free_running(const struct pto_core *core)
{
	return core->run_task && !core->staged;
}

static void pto_core_wake(struct pto_sched *s, struct pto_core *core)
{
	core->woken = true;
	if (!core->awake) {
		core->awake = true;
		s->awake++;
	}
	wake_up(&core->wake);
}

/*
 * Wake a core unless a thread is already looping over it or
 * has been woken for it. With as many threads awake as there are CPUs, a
 * unit any worker can run waits on the kick queue instead: the next worker
 * to run out of work takes it, so N blocks cost N units of work, not N
 * wake-ups and context switches (Documentation/scheduler.rst).
 */
static void pto_core_kick(struct pto_sched *s, struct pto_core *core,
			  struct pto_core *self)
{
	if (core == self || core->in_worker || core->queued || core->woken)
		return;
	if (s->awake >= s->budget && pto_free_running(core)) {
		core->queued = true;
		core->kick_jiffies = jiffies;
		list_add_tail(&core->kick_link, &s->kickq);
		return;
	}
	pto_core_wake(s, core);
}

/**
 * pto_sched_unpark - release a unit parked at a barrier
 * @s: scheduler, locked
 * @core: its core
 * @st: how its wait ended
 *
 * Its thread may not have left yet: then it finds @core->resume set and
 * goes on at once.
 */
void pto_sched_unpark(struct pto_sched *s, struct pto_core *core, s32 st)
{
	lockdep_assert_held(&s->lock);
	core->park_st = st;
	core->resume = true;
	if (core->parked) {
		core->parked = false;
		pto_core_kick(s, core, NULL);
	}
}

/**
 * pto_sched_flush_kicks - hand queued units threads of their own
 * @pdev: device
 * @uid: context of the calling unit
 * @all: the calling unit's first quantum
 *
 * Called by running units once per quantum. A queued core is usually
 * taken by a worker that runs out of work, with no wake-up. At its first
 * quantum a unit wakes every queued core: whatever it may poll GM for
 * then runs. Later it wakes the cores of other contexts that have waited
 * a whole quantum: a unit placed on an idle core starts within about two
 * quanta whatever other contexts run, while a context's own backlog does
 * not wake a thread per unit (more threads than CPUs only switch). The
 * queue is in kick order: the walk stops at the first core too young.
 */
void pto_sched_flush_kicks(struct pto_device *pdev, u64 uid, bool all)
{
	struct pto_sched *s = pdev->sched;
	unsigned long now = jiffies;
	struct pto_core *core, *tmp;

	spin_lock(&s->lock);
	list_for_each_entry_safe(core, tmp, &s->kickq, kick_link) {
		if (!all) {
			if (time_before(now, core->kick_jiffies + PTO_QUANTUM_JIFFIES))
				break;
			if (core->run_task && core->run_task->ctx->uid == uid)
				continue;
		}
		list_del(&core->kick_link);
		core->queued = false;
		pto_core_wake(s, core);
	}
	spin_unlock(&s->lock);
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
	return self && ti != PTO_TASK_MIX &&
	       (self->type == PTO_CORE_AIC) == (ti == PTO_TASK_AIC);
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

/*
 * Put a unit in an idle core's running slot. A pre-staged unit waits there,
 * arguments resolved, until pto_release_staged() releases it.
 */
/*
 * Small tasks (the common case: one block, a few arguments) come from a
 * cache of exact-size objects rather than the next kmalloc size, which
 * would double their memory; failure records from one of their own.
 */
#define PTO_TASK_SMALL 640
static struct kmem_cache *pto_task_cache;
static struct kmem_cache *pto_failed_cache;

int pto_sched_caches_init(void)
{
	pto_task_cache = kmem_cache_create("pto_task", PTO_TASK_SMALL, 0, 0,
					   NULL);
	pto_failed_cache = KMEM_CACHE(pto_failed, 0);
	if (!pto_task_cache || !pto_failed_cache) {
		pto_sched_caches_exit();
		return -ENOMEM;
	}
	return 0;
}

void pto_sched_caches_exit(void)
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
		t = kmem_cache_zalloc(pto_task_cache, GFP_KERNEL);
	} else {
		t = kvzalloc(size, GFP_KERNEL | __GFP_NOWARN);
	}
	if (!t)
		return NULL;
	t->mem_size = size;
	t->fail_rec = kmem_cache_alloc(pto_failed_cache, GFP_KERNEL);
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

/* One clock read per dispatch pass: its placements happen at one instant. */
static u64 pto_pass_ns(u64 *now)
{
	if (!*now)
		*now = ktime_get_ns();
	return *now;
}

static void pto_core_start(struct pto_sched *s, struct pto_core *core,
			   struct pto_task *task, u32 unit,
			   struct pto_core *self, bool staged, u64 *now)
{
	u32 ti = core->type == PTO_CORE_AIC;

	__clear_bit(core->index, s->idle[ti]);
	pto_core_scrub(s, core, task);
	core->run_task = task;
	core->run_unit = unit;
	task->blocks[unit].ts[PTO_TS_DISPATCH] = pto_pass_ns(now);
	task->blocks_out++;
	pto_count_dispatch(core->pdev, task, unit);
	if (staged) {
		core->staged = true;
		task->blocks[unit].staged = true;
		task->staged_units++;
		/* For pto_release_staged(); set again when the unit starts. */
		task->blocks[unit].core = core->index;
		task->blocks[unit].core_type = core->type;
		pto_count(core->pdev, stages);
		trace_pto_stage(core->pdev->index, task->ctx->uid, task->id,
				unit, core->type, core->index, 0);
		return;
	}
	trace_pto_dispatch(core->pdev->index, task->ctx->uid, task->id, unit,
			   core->type, core->index, 0);
	/* A core that runs something can take a pending unit. */
	s->no_preload[ti] = false;
	pto_core_kick(s, core, self);
}

/* A mixed block takes a whole cluster: its AIC and both AIVs. */
static void pto_place_mix(struct pto_sched *s, struct pto_task *task,
			  struct pto_core *self, bool staged, u64 *now)
{
	u32 c = pto_idle_cluster(s), b = task->next_block++;
	struct pto_core *aic = &s->cores[PTO_TASK_AIC][c];
	struct pto_core *aiv0 = &s->cores[PTO_TASK_AIV][2 * c];
	struct pto_core *aiv1 = &s->cores[PTO_TASK_AIV][2 * c + 1];
	struct pto_xring_set *set = &task->rings[b];
	u32 unit = b * task->nparts;

	set->mem[0] = (u8 *)aiv0->local + task->ring_base;
	set->mem[1] = (u8 *)aiv1->local + task->ring_base;
	pto_core_start(s, aic, task, unit, self, staged, now);
	pto_core_start(s, aiv0, task, unit + 1, self, staged, now);
	if (task->split == DRM_PTO_NPU_SPLIT_UP_DOWN) {
		pto_core_start(s, aiv1, task, unit + 2, self, staged, now);
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
	u64 now = 0;

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
 * Release a task's pre-staged units: they start at once, no
 * dispatch loop. The calling worker runs one of them itself (@adopt) when
 * it can, so the first consumer unit starts without even a wake-up.
 */
/*
 * The core unit @u of @task is still staged on, or NULL. Staged units are
 * placed units: each record names its core.
 */
static struct pto_core *pto_staged_core(struct pto_sched *s,
					struct pto_task *task, u32 u)
{
	const struct pto_unit_rec *rec = &task->blocks[u];
	struct pto_core *core;

	if (!rec->staged)
		return NULL;
	core = &s->cores[rec->core_type == PTO_CORE_AIC][rec->core];
	if (!core->staged || core->run_task != task || core->run_unit != u)
		return NULL;
	return core;
}

/* Release staged unit @u of @task from @core: released at @now. */
static void pto_release_staged_unit(struct pto_sched *s, struct pto_core *core,
			       struct pto_task *task, u32 u, u64 now)
{
	core->staged = false;
	s->no_preload[core->type == PTO_CORE_AIC] = false;
	task->staged_units--;
	task->blocks[u].ts[PTO_TS_DISPATCH] = now;
	pto_count(core->pdev, releases);
	trace_pto_release(core->pdev->index, task->ctx->uid, task->id, u,
			   core->type, core->index, 0);
}

static void pto_release_staged(struct pto_sched *s, struct pto_task *task,
			 struct pto_core **adopt, u64 *now)
{
	u32 u;

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

	if (ti == PTO_TASK_MIX) {
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
		task->blocks[block].ts[PTO_TS_DISPATCH] = pto_pass_ns(now);
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

static bool pto_has_slot(struct pto_sched *s, const struct pto_task *task,
			 struct pto_core *self)
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

static void pto_complete(struct pto_sched *s, struct pto_task *first,
			 struct list_head *freeable, struct pto_core **adopt,
			 struct list_head *post, u64 now);
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
	u64 now = 0;
	u32 ti;

	lockdep_assert_held(&s->lock);
	/* Whole clusters first, or single-core work would always split them. */
	for (ti = PTO_TASK_MIX + 1; ti-- > 0;) {
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

static void pto_make_ready(struct pto_sched *s, struct pto_task *task,
			   struct list_head *work, struct pto_core **adopt,
			   u64 *now)
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
			pto_release_staged(s, task, NULL, now);
			return;
		}
		/* Never runs: retire it through the completion loop. */
		list_add_tail(&task->ready_link, work);
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
	case DRM_PTO_NPU_STATUS_WORK_BUDGET:
		pto_count(pdev, timeouts);
		trace_pto_fault(pdev->index, task->ctx->uid, task->id,
				task->status, task->detail);
		break;
	}
	pto_count(pdev, retired);
	trace_pto_retire(pdev->index, task->ctx->uid, task->id, task->status,
			 task->detail);
}

static void pto_failed_drop(struct pto_ctx *ctx, struct pto_failed *f)
{
	hash_del(&f->node);
	list_del(&f->link);
	ctx->nfailed--;
	kmem_cache_free(pto_failed_cache, f);
}

/*
 * Remember a failed id for dependents that arrive later, in the record
 * allocated at intake. Past PTO_MAX_FAILED_REMEMBERED the oldest failure
 * is forgotten (a dependency on it then counts as satisfied;
 * Documentation/uapi.rst).
 */
static void pto_remember_failed(struct pto_ctx *ctx, struct pto_task *task)
{
	struct pto_failed *f = task->fail_rec;

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

	hash_for_each_possible(ctx->tasks, t, hnode, id)
		if (t->id == id)
			return t;
	return NULL;
}

static bool pto_failed_id(struct pto_ctx *ctx, u64 id)
{
	struct pto_failed *f;

	hash_for_each_possible(ctx->failed, f, node, id)
		if (f->id == id)
			return true;
	return false;
}

/**
 * pto_sched_forget_failed - free a closed context's failure records
 * @ctx: the context, with no task left
 */
void pto_sched_forget_failed(struct pto_ctx *ctx)
{
	struct pto_failed *f, *tmp;

	list_for_each_entry_safe(f, tmp, &ctx->failed_fifo, link)
		pto_failed_drop(ctx, f);
}

/* Signal a completed task's doorbell fence and post its CQEs (or hold them). */
static void pto_task_post(struct pto_task *task, struct list_head *freeable)
{
	pto_batch_retire(task->batch,
			 task->status != DRM_PTO_NPU_STATUS_OK &&
			 task->status != DRM_PTO_NPU_STATUS_SKIPPED);
	pto_queue_task_done(task, freeable);
}

static void pto_post_list(struct list_head *post, struct list_head *freeable)
{
	struct pto_task *task, *tmp;

	list_for_each_entry_safe(task, tmp, post, held_link) {
		list_del_init(&task->held_link);
		pto_task_post(task, freeable);
	}
}

/*
 * Complete @first and, iteratively, every consumer that can never run
 * because a producer failed (no recursion: chains can be 10^4 long).
 * With @post, the completed tasks' fences and CQEs are left to the caller
 * (linked by held_link): a worker that released a pre-staged consumer
 * runs it first (Documentation/techniques/early-resolve.rst).
 */
static void pto_complete(struct pto_sched *s, struct pto_task *first,
			 struct list_head *freeable, struct pto_core **adopt,
			 struct list_head *post, u64 now)
{
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
		struct pto_edge *e;

		list_del_init(&task->ready_link);
		task->state = PTO_TASK_DONE;
		/* One clock read per pass (@now: the caller's, if it has one). */
		task->ts_retire = pto_pass_ns(&now);
		pto_count_retire(ctx->pdev, task);
		hash_del(&task->hnode);
		list_del_init(&task->park_link);
		if (failed)
			pto_remember_failed(ctx, task);

		list_for_each_entry(e, &task->fanout, link) {
			struct pto_task *c = e->consumer;

			e->producer = NULL;
			if (failed)
				c->dep_failed = true;
			if (!--c->fanin)
				pto_make_ready(s, c, &work, adopt, &now);
			else
				pto_try_stage(s, c);
		}
		INIT_LIST_HEAD(&task->fanout);
		if (post)
			list_add_tail(&task->held_link, post);
		else
			pto_task_post(task, freeable);
	}
}

/*
 * allow_early_resolve, its common case: @task, one unit that has just ended
 * OK, is the last producer of a one-unit consumer pre-staged on a core no
 * thread runs. Release that consumer now, before the producer's completion:
 * the calling worker starts it at once and retires the producer after
 * (pto_core_run()), as the hardware starts a staged core while
 * the AICPU is still retiring the producer. pto_release_staged() leaves the unit
 * alone later: its core is no longer staged.
 *
 * Return: the consumer's core, taken by the calling worker, or NULL.
 */
static struct pto_core *pto_early_release(struct pto_sched *s,
					  struct pto_task *task,
					  const struct pto_exec_result *res,
					  u64 now)
{
	struct pto_edge *e;

	lockdep_assert_held(&s->lock);
	if (!(task->flags & DRM_PTO_NPU_TASK_F_EARLY_RESOLVE) ||
	    res->status != DRM_PTO_NPU_STATUS_OK ||
	    task->status != DRM_PTO_NPU_STATUS_OK || task->units != 1 ||
	    task->blocks_out != 1 || task->state != PTO_TASK_PLACED ||
	    atomic_read(&task->cancel))
		return NULL;
	list_for_each_entry(e, &task->fanout, link) {
		struct pto_task *c = e->consumer;
		struct pto_core *core;

		if (c->fanin != 1 || c->units != 1 || !c->staged_units ||
		    c->dep_failed || c->status != DRM_PTO_NPU_STATUS_OK ||
		    c->ctx->dead || atomic_read(&c->cancel))
			continue;
		core = pto_staged_core(s, c, 0);
		if (!core || core->in_worker)
			continue;
		pto_release_staged_unit(s, core, c, 0, now);
		core->in_worker = true;
		return core;
	}
	return NULL;
}

static void pto_unit_done(struct pto_sched *s, struct pto_core *core,
			   struct pto_task *task, u32 unit,
			   const struct pto_exec_result *res,
			   struct list_head *freeable, struct pto_core **adopt,
			   struct list_head *post)
{
	u32 ti = core->type == PTO_CORE_AIC;

	task->blocks_out--;
	/* Our running slot frees up: this core (or its pending unit's) can preload. */
	s->no_preload[ti] = false;
	if (res->status != DRM_PTO_NPU_STATUS_OK &&
	    task->status == DRM_PTO_NPU_STATUS_OK) {
		task->status = res->status;
		task->detail = res->detail;
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
		pto_ring_side_done(s, task, unit / task->nparts,
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
		__set_bit(core->partner->index, s->idle[PTO_TASK_AIV]);
		core->partner = NULL;
	}

	if (!task->blocks_out && task->state == PTO_TASK_PLACED)
		pto_complete(s, task, freeable, adopt, post,
			     task->blocks[unit].ts[PTO_TS_FINISH]);
	pto_sched_dispatch(s, core);
}

/*
 * Retire the unit whose end released a consumer early (pto_early_release()),
 * once that consumer has started on the calling worker. The producer's core
 * goes back to the scheduler: its thread, or the kick queue, runs what it
 * has next; a further consumer its completion releases goes the same way.
 */
static void pto_early_retire(struct pto_sched *s, struct pto_core *pcore,
			     struct pto_task *ptask, u32 punit,
			     const struct pto_exec_result *pres,
			     struct list_head *freeable, struct list_head *post)
{
	struct pto_core *adopt = NULL;

	pto_unit_done(s, pcore, ptask, punit, pres, freeable, &adopt, post);
	if (adopt) {
		adopt->in_worker = false;
		pto_core_kick(s, adopt, NULL);
	}
	pcore->in_worker = false;
	if (pcore->run_task && !pcore->staged && !pcore->parked)
		pto_core_kick(s, pcore, NULL);
}

/* A worker's own core has a unit to run and no thread running it. */
static bool pto_own_has_work(const struct pto_core *own)
{
	return !own->in_worker && own->run_task && !own->staged &&
	       !own->parked;
}

/* Units a worker runs on one core in a row while others are queued. */
#define PTO_YIELD_UNITS 8

/* Free what a worker retired every so many units, not only when it stops. */
#define PTO_FREE_BATCH 32

static void pto_core_run(struct pto_core *own)
{
	struct pto_sched *s = own->pdev->sched;
	struct pto_core *core = own, *adopt = NULL, *early, *pcore = NULL;
	struct pto_exec_result pres = {};
	struct pto_task *ptask = NULL;
	LIST_HEAD(freeable);
	LIST_HEAD(post);
	u32 ran = 0, streak, punit = 0;

	spin_lock(&s->lock);
	own->woken = false;
	if (own->in_worker) {
		/* Another thread adopted this core: it runs our unit. */
		goto out;
	}
	if (own->queued) {
		list_del(&own->kick_link);
		own->queued = false;
	}
	own->in_worker = true;
next_core:
	streak = 0;
	/*
	 * A staged unit in our own slot waits for its release like any other;
	 * a parked one for its barrier.
	 */
	while (core->run_task && !core->staged && !core->parked) {
		struct pto_task *task = core->run_task;
		u32 unit = core->run_unit;
		struct pto_unit_rec *rec = &task->blocks[unit];
		struct pto_exec_result res = {};
		bool resume = core->resume;

		core->resume = false;
		spin_unlock(&s->lock);
		if (resume) {
			/* Released from its barrier: on from where it parked. */
			if (pto_exec_unit(core, task, unit, &res, true))
				goto parked;
		} else {
			/* The core takes the unit and starts it: one clock read. */
			rec->ts[PTO_TS_RECEIVE] = ktime_get_ns();
			rec->ts[PTO_TS_START] = rec->ts[PTO_TS_RECEIVE];
			rec->core = core->index;
			rec->core_type = core->type;
			trace_pto_start(core->pdev->index, task->ctx->uid,
					task->id, unit, core->type, core->index,
					0);
			if (ptask) {
				/*
				 * Released early by its producer's end: retire
				 * the producer now that this unit has started.
				 */
				spin_lock(&s->lock);
				pto_early_retire(s, pcore, ptask, punit, &pres,
						 &freeable, &post);
				spin_unlock(&s->lock);
				ptask = NULL;
			}
			/*
			 * The producers whose completion released this unit:
			 * their completions are posted now that it has started
			 * (the AICPU would do it while the core runs).
			 */
			pto_post_list(&post, &freeable);
			if (++ran % PTO_FREE_BATCH == 0)
				pto_tasks_free_list(&freeable);
			if (atomic_read(&task->cancel)) {
				res.status = DRM_PTO_NPU_STATUS_CANCELLED;
			} else {
				rec->ran = true;
				task->any_ran = true;
				if (pto_exec_unit(core, task, unit, &res, false))
					goto parked;
			}
		}
		rec->ts[PTO_TS_END] = ktime_get_ns();
		trace_pto_end(core->pdev->index, task->ctx->uid, task->id, unit,
			      core->type, core->index, res.status);

		rec->status = res.status;
		rec->detail = res.detail;

		spin_lock(&s->lock);
		/* Those of a resumed unit (parked before they could be posted). */
		pto_post_list(&post, &freeable);
		rec->ts[PTO_TS_FINISH] = ktime_get_ns();
		early = pto_early_release(s, task, &res, rec->ts[PTO_TS_FINISH]);
		if (early) {
			/* Its consumer first; this unit is retired once it starts. */
			pcore = core;
			ptask = task;
			punit = unit;
			pres = res;
			core = early;
			continue;
		}
		pto_unit_done(s, core, task, unit, &res, &freeable, &adopt,
			       &post);
		if (adopt && core->run_task && !core->staged) {
			/*
			 * This core has a unit, and only this thread runs it:
			 * the adopted core goes back to its own thread (it may
			 * wait on our unit, at a barrier or a ring).
			 */
			adopt->in_worker = false;
			pto_core_kick(s, adopt, NULL);
			adopt = NULL;
		}
		/*
		 * A consumer released by its producer runs next, here, before
		 * the scheduler's completion work for its producers (fences,
		 * CQEs): that work is off its critical path. Anything else
		 * completes now.
		 */
		if (!adopt)
			pto_post_list(&post, &freeable);
		/*
		 * Between units: our own core first, then the kick queue in
		 * order, so that a core that keeps getting units (ours, with
		 * placement on the finishing core) cannot starve the queued
		 * ones: after PTO_YIELD_UNITS in a row this core goes to the
		 * back of the queue.
		 */
		if ((core != own && pto_own_has_work(own)) ||
		    (!adopt && !list_empty(&s->kickq) &&
		     ++streak >= PTO_YIELD_UNITS))
			break;
		continue;
parked:
		spin_lock(&s->lock);
		/* Producers of an adopted unit that parked: their CQEs now. */
		pto_post_list(&post, &freeable);
		/* Not released in the meantime: the thread goes on without it. */
		if (!core->resume) {
			core->parked = true;
			if ((task->bar_parties || task->rings) &&
			    list_empty(&task->park_link))
				list_add_tail(&task->park_link, &s->parked_tasks);
			pto_sched_park_armed(s);
		}
	}
	core->in_worker = false;
	/* Left for our own core's unit: another thread takes the rest. */
	if (core->run_task && !core->staged && !core->parked)
		pto_core_kick(s, core, NULL);
	if (adopt) {
		/* A pre-staged core released by our completion: run it here. */
		core = adopt;
		adopt = NULL;
		goto next_core;
	}
	if (core != own && pto_own_has_work(own)) {
		/* Our own core got a unit while we ran another's: go back. */
		if (own->queued) {
			list_del(&own->kick_link);
			own->queued = false;
		}
		own->woken = false;
		own->in_worker = true;
		core = own;
		goto next_core;
	}
	if (!list_empty(&s->kickq)) {
		/* A unit no thread was woken for: run it here. */
		core = list_first_entry(&s->kickq, struct pto_core, kick_link);
		list_del(&core->kick_link);
		core->queued = false;
		core->in_worker = true;
		goto next_core;
	}
	pto_post_list(&post, &freeable);
out:
	if (own->awake && !own->woken) {
		own->awake = false;
		s->awake--;
	}
	spin_unlock(&s->lock);
	pto_tasks_free_list(&freeable);
}

static int pto_core_thread(void *data)
{
	struct pto_core *core = data;

	while (!kthread_should_stop()) {
		wait_event_interruptible(core->wake, READ_ONCE(core->woken) ||
					 kthread_should_stop());
		if (READ_ONCE(core->woken))
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
	struct pto_ctx *ctx = task->ctx;
	LIST_HEAD(work);
	u32 i, n = 0;

	spin_lock(&s->lock);
	list_add_tail(&task->ctx_link, &ctx->live);
	hash_add(ctx->tasks, &task->hnode, task->id);
	for (i = 0; i < task->num_deps; i++) {
		struct pto_task *p = pto_find_task(ctx, deps[i]);

		if (p) {
			struct pto_edge *e = &task->edges[n++];

			e->consumer = task;
			e->producer = p;
			list_add_tail(&e->link, &p->fanout);
			task->fanin++;
		} else if (pto_failed_id(ctx, deps[i])) {
			task->dep_failed = true;
		}
	}
	task->num_edges = n;
	if (!task->fanin) {
		u64 now = 0;

		pto_make_ready(s, task, &work, NULL, &now);
		if (!list_empty(&work)) {
			list_del_init(&task->ready_link);
			pto_complete(s, task, freeable, NULL, NULL, now);
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
void pto_sched_cancel_ctx(struct pto_ctx *ctx)
{
	struct pto_sched *s = ctx->pdev->sched;
	struct pto_task *task, *tmp;
	LIST_HEAD(freeable);
	LIST_HEAD(stop);
	u64 now = 0;

	spin_lock(&s->lock);
	ctx->dead = true;
	list_for_each_entry(task, &ctx->live, ctx_link) {
		atomic_set(&task->cancel, 1);
		pto_release_task_waits(s, task, DRM_PTO_NPU_STATUS_CANCELLED);
		pto_release_staged(s, task, NULL, &now);
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
		pto_complete(s, task, &freeable, NULL, NULL, now);
	}
	spin_unlock(&s->lock);
	pto_tasks_free_list(&freeable);
	pto_queues_drop_held(ctx);

	wait_event(ctx->wq, !atomic_read(&ctx->inflight));
	/* The last pto_tasks_free_list() wakes us under the lock: let it finish. */
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
	INIT_LIST_HEAD(&s->kickq);
	s->budget = max(1U, num_online_cpus());
	s->pdev = pdev;
	INIT_LIST_HEAD(&s->parked_tasks);
	spin_lock_init(&s->soft_lock);
	INIT_LIST_HEAD(&s->soft_waiters);
	INIT_DELAYED_WORK(&s->watchdog, pto_barrier_watchdog);
	spin_lock_init(&s->spare_lock);
	INIT_LIST_HEAD(&s->spares);
	s->ncores[0] = t->clusters * PTO_AIV_PER_CLUSTER;
	s->ncores[1] = t->clusters;

	/* AIV: UB at 0. AIC: L1 | L0A | L0B | L0C (pto_buf_base()). */
	s->buf_size[PTO_BUF_UB] = t->aiv_ub;
	s->buf_size[PTO_BUF_L1] = t->aic_l1;
	s->buf_size[PTO_BUF_L0A] = t->aic_l0a;
	s->buf_size[PTO_BUF_L0B] = t->aic_l0b;
	s->buf_size[PTO_BUF_L0C] = t->aic_l0c;
	for (i = 0; i < PTO_LOCAL_BUFS; i++)
		s->buf_base[i] = pto_buf_base(t, i);
	s->local_size[0] = t->aiv_ub;
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
			init_waitqueue_head(&core->wake);
			INIT_LIST_HEAD(&core->kick_link);
			INIT_LIST_HEAD(&core->park_link);
			core->local = vzalloc(s->local_size[ti]);
			core->exec = pto_exec_state_alloc();
			if (!core->local || !core->exec)
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
	struct pto_task *task, *tmp;
	u32 ti, i;

	if (!s)
		return;
	cancel_delayed_work_sync(&s->watchdog);
	list_for_each_entry_safe(task, tmp, &s->spares, held_link)
		pto_task_mem_free(task);
	for (ti = 0; ti < 2; ti++) {
		for (i = 0; s->cores[ti] && i < s->ncores[ti]; i++) {
			if (s->cores[ti][i].thread)
				kthread_stop(s->cores[ti][i].thread);
			vfree(s->cores[ti][i].local);
			kfree(s->cores[ti][i].exec);
		}
		kfree(s->cores[ti]);
		bitmap_free(s->idle[ti]);
	}
	kfree(s);
	pdev->sched = NULL;
}
