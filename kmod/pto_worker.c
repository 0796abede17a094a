// SPDX-License-Identifier: GPL-2.0-only
/*
 * pto_npu: the virtual cores' worker threads.
 *
 * Each virtual core has a kernel thread that sleeps on the core's wait
 * queue: a unit landing in its empty running slot wakes it. Sleeping,
 * never spinning, is what lets a 2-CPU VM run 72 cores, and a thread per
 * core means every placed unit can be resident at once (sync_start,
 * barriers). A woken thread is a *worker*: it runs its core's units, then
 * whatever it adopted or found on the kick queue, and does the scheduler's
 * work for each unit it finishes itself (pto_unit_done(), under the
 * scheduler lock): complete the task, release its consumers, dispatch.
 *
 * With as many threads awake as there are CPUs, a kicked core waits on the
 * kick queue instead of waking its thread: the next worker to run out of
 * work takes it. Early release (allow_early_resolve) lets the worker that
 * finished a producer start its staged consumer before retiring the
 * producer.
 *
 * A device's scheduler and cores are made and torn down here too
 * (pto_sched_init(), pto_sched_fini()).
 *
 * Copyright (C) 2026 pto-npu authors
 */

#include <linux/bitmap.h>
#include <linux/kthread.h>
#include <linux/sched/mm.h>
#include <linux/ktime.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "pto_barrier.h"
#include "pto_exec.h"
#include "pto_queue.h"
#include "pto_sched.h"
#include "pto_task_mem.h"
#include "pto_trace.h"
#include "pto_worker.h"
#include "pto_xring.h"

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
	lockdep_assert_held(&s->lock);
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
void pto_core_kick(struct pto_sched *s, struct pto_core *core,
		   struct pto_core *self)
{
	lockdep_assert_held(&s->lock);
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
	    task->units_out != 1 || task->state != PTO_TASK_PLACED ||
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

/* @core has a unit a thread can run now: neither staged nor parked. */
static bool pto_core_runnable(const struct pto_core *core)
{
	return core->run_task && !core->staged && !core->parked;
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
	struct drm_pto_npu_sched *r = pto_task_sched(ptask, punit);
	struct pto_core *adopt = NULL;

	lockdep_assert_held(&s->lock);
	if (r) {
		/* Its end is handled now, not at its finish. */
		r->complete_begin = ktime_get_ns();
		r->flags |= DRM_PTO_NPU_SCHED_F_EARLY;
	}
	pto_unit_done(s, pcore, ptask, punit, pres, freeable, &adopt, post);
	if (adopt) {
		adopt->in_worker = false;
		pto_core_kick(s, adopt, NULL);
	}
	pcore->in_worker = false;
	if (pto_core_runnable(pcore))
		pto_core_kick(s, pcore, NULL);
}

/* A worker's own core has a unit to run and no thread running it. */
static bool pto_own_has_work(const struct pto_core *own)
{
	return !own->in_worker && pto_core_runnable(own);
}

/* Units a worker runs on one core in a row while others are queued. */
#define PTO_YIELD_UNITS 8

/* Free what a worker retired every so many units, not only when it stops. */
#define PTO_FREE_BATCH 32

/**
 * struct pto_worker - one core thread's run over the cores it serves
 * @s: scheduler, locked except while a unit executes
 * @own: the thread's own core
 * @core: the core whose units it runs now
 * @adopt: a pre-staged core released by a completion of ours, run next
 * @pcore: core of the producer unit whose end released @core's unit early,
 *         retired once that unit has started (NULL if none)
 * @ptask: that producer's task
 * @punit: that producer's unit
 * @pres: how that producer's unit ended
 * @ran: units started, to free retired tasks in batches
 * @streak: units run in a row on @core
 * @freeable: retired tasks to free outside the lock
 * @post: completed tasks whose fences and CQEs are still to post
 */
struct pto_worker {
	struct pto_sched *s;
	struct pto_core *own;
	struct pto_core *core;
	struct pto_core *adopt;
	struct pto_core *pcore;
	struct pto_task *ptask;
	u32 punit;
	struct pto_exec_result pres;
	u32 ran;
	u32 streak;
	struct list_head freeable;
	struct list_head post;
};

/* The calling worker takes @core off the kick queue and runs it. */
static void pto_worker_claim(struct pto_sched *s, struct pto_core *core)
{
	lockdep_assert_held(&s->lock);
	if (core->queued) {
		list_del(&core->kick_link);
		core->queued = false;
	}
	core->in_worker = true;
}

/*
 * A unit starts: the core takes it (received: a pre-staged unit was at
 * its doorbell), a producer that released it early is retired, then its
 * kernel starts; the completions left for later are posted as it runs.
 * Called unlocked.
 *
 * Return: true if the unit parked at a barrier or a ring.
 */
static bool pto_unit_start(struct pto_worker *w, struct pto_task *task,
			   u32 unit, struct pto_exec_result *res)
{
	struct pto_core *core = w->core;
	struct pto_unit_rec *rec = &task->recs[unit];
	/* A staged unit's receive is its doorbell: its start needs a read. */
	bool worked = rec->staged, parked;

	if (!rec->staged)
		rec->ts[PTO_TS_RECEIVE] = ktime_get_ns();
	rec->core = core->index;
	rec->core_type = core->type;
	if (w->ptask) {
		worked = true;
		/* Released early by its producer's end: retire the producer. */
		spin_lock(&w->s->lock);
		pto_early_retire(w->s, w->pcore, w->ptask, w->punit, &w->pres,
				 &w->freeable, &w->post);
		spin_unlock(&w->s->lock);
		w->ptask = NULL;
	}
	if (++w->ran % PTO_FREE_BATCH == 0) {
		pto_tasks_free_list(&w->freeable);
		worked = true;
	}
	/*
	 * With nothing done since the receive, the kernel starts at that
	 * moment: one clock read per unit on the common path.
	 */
	rec->ts[PTO_TS_START] = worked ? ktime_get_ns() : rec->ts[PTO_TS_RECEIVE];
	trace_pto_start(task, unit, core, 0);
	if (atomic_read(&task->cancel)) {
		res->status = DRM_PTO_NPU_STATUS_CANCELLED;
		return false;
	}
	rec->ran = true;
	task->any_ran = true;
	/*
	 * The producers whose completion released this unit: their
	 * completions (fences, CQEs, waking their waiters) are posted once
	 * its kernel has started, at its first check (pto_exec.c), as the
	 * AICPU posts them while the released core runs; or when it parks
	 * or ends, whichever comes first. Their time is in this unit's bar,
	 * not between its release and its start.
	 */
	if (!list_empty(&w->post)) {
		core->defer_post = &w->post;
		core->defer_free = &w->freeable;
	}
	parked = pto_exec_unit(core, task, unit, res, false);
	core->defer_post = NULL;
	return parked;
}

/*
 * The unit parked at a barrier or a ring (called locked). Unless released
 * in the meantime, the thread goes on without it.
 */
static void pto_unit_park(struct pto_worker *w, struct pto_task *task)
{
	struct pto_sched *s = w->s;

	lockdep_assert_held(&s->lock);
	/* Producers of an adopted unit that parked: their CQEs now. */
	pto_queue_post_list(&w->post, &w->freeable);
	if (w->core->resume)
		return;
	w->core->parked = true;
	if ((task->bar_parties || task->rings) && list_empty(&task->park_link))
		list_add_tail(&task->park_link, &s->parked_tasks);
	pto_barrier_watchdog_arm(s);
}

/*
 * The unit ended (called locked): release a staged consumer early, or
 * retire the unit and complete its task.
 *
 * Return: false when the worker should leave this core for another.
 */
static bool pto_unit_finish(struct pto_worker *w, struct pto_task *task,
			    u32 unit, const struct pto_exec_result *res)
{
	struct pto_sched *s = w->s;
	struct pto_core *core = w->core, *early;
	struct pto_unit_rec *rec = &task->recs[unit];

	lockdep_assert_held(&s->lock);
	/* Those of a resumed unit (parked before they could be posted). */
	pto_queue_post_list(&w->post, &w->freeable);
	rec->ts[PTO_TS_FINISH] = ktime_get_ns();
	early = pto_early_release(s, task, res, rec->ts[PTO_TS_FINISH]);
	if (early) {
		/* Its consumer first; this unit is retired once it starts. */
		w->pcore = core;
		w->ptask = task;
		w->punit = unit;
		w->pres = *res;
		w->core = early;
		return true;
	}
	pto_unit_done(s, core, task, unit, res, &w->freeable, &w->adopt,
		      &w->post);
	if (w->adopt && core->run_task && !core->staged) {
		/*
		 * This core has a unit, and only this thread runs it: the
		 * adopted core goes back to its own thread (it may wait on our
		 * unit, at a barrier or a ring).
		 */
		w->adopt->in_worker = false;
		pto_core_kick(s, w->adopt, NULL);
		w->adopt = NULL;
	}
	/*
	 * A consumer released by its producer runs next, here, before the
	 * scheduler's completion work for its producers (fences, CQEs): that
	 * work is off its critical path. Anything else completes now.
	 */
	if (!w->adopt)
		pto_queue_post_list(&w->post, &w->freeable);
	/*
	 * Between units: our own core first, then the kick queue in order,
	 * so that a core that keeps getting units (ours, with placement on
	 * the finishing core) cannot starve the queued ones: after
	 * PTO_YIELD_UNITS in a row this core goes to the back of the queue.
	 */
	if (core != w->own && pto_own_has_work(w->own))
		return false;
	return w->adopt || list_empty(&s->kickq) ||
	       ++w->streak < PTO_YIELD_UNITS;
}

/*
 * An AIV part of a mixed block ended: the v2c slots its AIC has not popped
 * leave the core's UB before the core goes back to the scheduler (called
 * unlocked). Without memory for them the unit fails.
 */
static void pto_unit_spill(struct pto_task *task, u32 unit,
			   struct pto_exec_result *res)
{
	if (pto_xring_spill(task, unit / task->nparts,
			    unit % task->nparts - 1) &&
	    res->status == DRM_PTO_NPU_STATUS_OK) {
		res->status = DRM_PTO_NPU_STATUS_NOMEM;
		res->detail = 0;
	}
}

/*
 * Run the unit in the current core's running slot, from its start or, if
 * released from a barrier, from where it parked. Called and returns locked.
 *
 * Return: false when the worker should leave this core for another.
 */
static bool pto_worker_step(struct pto_worker *w)
	__must_hold(&w->s->lock)
{
	struct pto_sched *s = w->s;
	struct pto_core *core = w->core;
	struct pto_task *task = core->run_task;
	u32 unit = core->run_unit;
	struct pto_exec_result res = {};
	bool resume = core->resume, parked;
	struct mem_cgroup *memcg;

	core->resume = false;
	spin_unlock(&s->lock);
	/* What the unit makes the core allocate is its context's. */
	memcg = set_active_memcg(task->ctx->memcg);
	if (resume)
		parked = pto_exec_unit(core, task, unit, &res, true);
	else
		parked = pto_unit_start(w, task, unit, &res);
	if (!parked && task->rings && core->type == PTO_CORE_AIV)
		pto_unit_spill(task, unit, &res);
	else if (!parked && task->rings)
		pto_xring_drop_spills(task, unit / task->nparts);
	set_active_memcg(memcg);
	if (parked) {
		spin_lock(&s->lock);
		pto_unit_park(w, task);
		return true;
	}
	task->recs[unit].ts[PTO_TS_END] = ktime_get_ns();
	trace_pto_end(task, unit, core, res.status);
	task->recs[unit].status = res.status;
	task->recs[unit].detail = res.detail;
	spin_lock(&s->lock);
	return pto_unit_finish(w, task, unit, &res);
}

/*
 * The worker leaves its current core and picks the next: a core adopted by
 * our completion, our own core if it got a unit meanwhile, or the head of
 * the kick queue. Called locked.
 *
 * Return: false if there is none: the worker stops.
 */
static bool pto_worker_next(struct pto_worker *w)
{
	struct pto_sched *s = w->s;
	struct pto_core *core = w->core;

	lockdep_assert_held(&s->lock);
	core->in_worker = false;
	/* Left for our own core's unit: another thread takes the rest. */
	if (pto_core_runnable(core))
		pto_core_kick(s, core, NULL);
	w->streak = 0;
	if (w->adopt) {
		/* A pre-staged core released by our completion: run it here. */
		w->core = w->adopt;
		w->adopt = NULL;
		return true;
	}
	if (core != w->own && pto_own_has_work(w->own)) {
		/* Our own core got a unit while we ran another's: go back. */
		pto_worker_claim(s, w->own);
		w->own->woken = false;
		w->core = w->own;
		return true;
	}
	if (!list_empty(&s->kickq)) {
		/* A unit no thread was woken for: run it here. */
		w->core = list_first_entry(&s->kickq, struct pto_core,
					   kick_link);
		pto_worker_claim(s, w->core);
		return true;
	}
	return false;
}

/* A woken core thread's work: its core's units, then whatever it finds. */
static void pto_core_run(struct pto_core *own)
{
	struct pto_worker w = {
		.s = own->pdev->sched,
		.own = own,
		.core = own,
		.freeable = LIST_HEAD_INIT(w.freeable),
		.post = LIST_HEAD_INIT(w.post),
	};
	struct pto_sched *s = w.s;

	spin_lock(&s->lock);
	own->woken = false;
	/* Unless another thread adopted this core: then it runs our unit. */
	if (!own->in_worker) {
		pto_worker_claim(s, own);
		do {
			while (pto_core_runnable(w.core) && pto_worker_step(&w))
				;
		} while (pto_worker_next(&w));
		pto_queue_post_list(&w.post, &w.freeable);
	}
	if (own->awake && !own->woken) {
		own->awake = false;
		s->awake--;
	}
	spin_unlock(&s->lock);
	pto_tasks_free_list(&w.freeable);
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

/* Start a core's thread. Return: 0 or a negative errno. */
static int pto_worker_start(struct pto_core *core)
{
	struct task_struct *t;

	t = kthread_run(pto_core_thread, core, "pto%u_%s%u", core->pdev->index,
			core->type == PTO_CORE_AIC ? "aic" : "aiv", core->index);
	if (IS_ERR(t))
		return PTR_ERR(t);
	core->thread = t;
	return 0;
}

/* Stop a core's thread, if it was started. */
static void pto_worker_stop(struct pto_core *core)
{
	if (core->thread)
		kthread_stop(core->thread);
	core->thread = NULL;
}

/* The cores of type @ti, idle, their threads started. */
static int pto_cores_init_type(struct pto_sched *s, enum pto_cidx ti)
{
	u32 i;
	int ret;

	s->cores[ti] = kcalloc(s->ncores[ti], sizeof(struct pto_core),
			       GFP_KERNEL);
	s->idle[ti] = bitmap_zalloc(s->ncores[ti], GFP_KERNEL);
	if (!s->cores[ti] || !s->idle[ti])
		return -ENOMEM;
	bitmap_fill(s->idle[ti], s->ncores[ti]);
	for (i = 0; i < s->ncores[ti]; i++) {
		struct pto_core *core = &s->cores[ti][i];

		core->pdev = s->pdev;
		core->type = pto_cidx_core_type(ti);
		core->index = i;
		core->sub_block = ti == PTO_AIC ? 0 : i % PTO_AIV_PER_CLUSTER;
		init_waitqueue_head(&core->wake);
		INIT_LIST_HEAD(&core->kick_link);
		INIT_LIST_HEAD(&core->park_link);
		core->local = vzalloc(s->local_size[ti]);
		core->exec = pto_exec_state_alloc();
		if (!core->local || !core->exec)
			return -ENOMEM;
		ret = pto_worker_start(core);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * pto_cores_init - the virtual cores of a device, idle, threads started
 * @s: its scheduler, the local memory layout set
 *
 * Return: 0 or a negative errno (pto_cores_fini() frees what was made).
 */
int pto_cores_init(struct pto_sched *s)
{
	enum pto_cidx ti;
	int ret;

	for (ti = 0; ti < PTO_NUM_CIDX; ti++) {
		ret = pto_cores_init_type(s, ti);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * pto_cores_fini - stop the cores' threads and free the cores
 * @s: the scheduler (its cores may be half set up)
 */
void pto_cores_fini(struct pto_sched *s)
{
	enum pto_cidx ti;
	u32 i;

	for (ti = 0; ti < PTO_NUM_CIDX; ti++) {
		for (i = 0; s->cores[ti] && i < s->ncores[ti]; i++) {
			pto_worker_stop(&s->cores[ti][i]);
			vfree(s->cores[ti][i].local);
			pto_exec_state_free(s->cores[ti][i].exec);
		}
		kfree(s->cores[ti]);
		bitmap_free(s->idle[ti]);
	}
}

/* Local memory layout: AIV: UB at 0. AIC: L1 | L0A | L0B | L0C. */
static void pto_sched_layout(struct pto_sched *s, const struct pto_topology *t)
{
	u32 i;

	s->ncores[PTO_AIV] = t->clusters * PTO_AIV_PER_CLUSTER;
	s->ncores[PTO_AIC] = t->clusters;
	s->buf_size[PTO_BUF_UB] = t->aiv_ub;
	s->buf_size[PTO_BUF_L1] = t->aic_l1;
	s->buf_size[PTO_BUF_L0A] = t->aic_l0a;
	s->buf_size[PTO_BUF_L0B] = t->aic_l0b;
	s->buf_size[PTO_BUF_L0C] = t->aic_l0c;
	for (i = 0; i < PTO_LOCAL_BUFS; i++)
		s->buf_base[i] = pto_buf_base(t, i);
	s->local_size[PTO_AIV] = t->aiv_ub;
	s->local_size[PTO_AIC] = s->buf_base[PTO_BUF_L0C] + t->aic_l0c;
}

/**
 * pto_sched_init - the scheduler and the cores of a device
 * @pdev: device, its topology set
 *
 * Return: 0 or a negative errno.
 */
int pto_sched_init(struct pto_device *pdev)
{
	struct pto_sched *s;
	u32 q;
	int ret;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	pdev->sched = s;
	spin_lock_init(&s->lock);
	for (q = 0; q < PTO_NUM_RQ; q++)
		INIT_LIST_HEAD(&s->ready[q]);
	INIT_LIST_HEAD(&s->kickq);
	s->budget = max(1U, num_online_cpus());
	s->pdev = pdev;
	INIT_LIST_HEAD(&s->parked_tasks);
	spin_lock_init(&s->soft_lock);
	INIT_LIST_HEAD(&s->soft_waiters);
	INIT_DELAYED_WORK(&s->watchdog, pto_barrier_watchdog);
	spin_lock_init(&s->spare_lock);
	INIT_LIST_HEAD(&s->spares);
	pto_sched_layout(s, &pdev->topo);
	ret = pto_cores_init(s);
	if (ret)
		pto_sched_fini(pdev);
	return ret;
}

/**
 * pto_sched_fini - stop the cores and free the scheduler
 * @pdev: device (its scheduler may be half set up)
 */
void pto_sched_fini(struct pto_device *pdev)
{
	struct pto_sched *s = pdev->sched;

	if (!s)
		return;
	cancel_delayed_work_sync(&s->watchdog);
	pto_task_spares_free(s);
	pto_cores_fini(s);
	kfree(s);
	pdev->sched = NULL;
}
