// SPDX-License-Identifier: GPL-2.0-only
/*
 * pto_npu: in-kernel syncall.
 *
 * HARD emulates the FFTS barrier: every unit of the launch (the launch
 * occupies every core of the barrier's type, checked at submit) arrives,
 * and the last arrival releases the round. Where the hardware would
 * deadlock (error 507018) because a participant ended without arriving,
 * the others fail at once with DRM_PTO_NPU_STATUS_BARRIER_FAULT and the
 * device stays usable.
 *
 * SOFT is the GM counter barrier: each of used_cores participants
 * atomically adds one to the workspace's first int32 and waits until the
 * counter reaches the next multiple of used_cores. The counter only grows,
 * so rounds need no reset. The workspace contract is checked, so that no
 * unit leaves a barrier the others have not reached: 16 elements (at
 * intake), and at each arrival, before it adds, used_cores within the
 * task's participants and the counter where a whole number of rounds and
 * the task's own arrivals put it; otherwise DRM_PTO_NPU_STATUS_WORKSPACE,
 * for the waiters too.
 *
 * A unit that has to wait parks (pto_exec.c): its state stays in its
 * core's interpreter state, the core stays occupied, and its thread goes
 * on with other units (ring waits park the same way, pto_xring.c, and the
 * watchdog below times them out too). No thread sleeps at a barrier, so
 * 48 or 72 participants meet on one CPU without a context switch each. The arrival
 * that completes a round makes the parked units runnable
 * (pto_sched_unpark()); so do a failure, a cancel, and the watchdog, which
 * runs every PTO_PARK_POLL_MS while anything is parked: it re-reads SOFT
 * counters (GM may be written by anyone: the host, GST, ATOMIC_ADD) and,
 * as the wall-clock last resort, ends waits without progress for
 * timeout_ms with DRM_PTO_NPU_STATUS_TIMEOUT (HARD: no new arrival; SOFT:
 * the counter has not moved; and in both, no unit of the task has run: a
 * partner that is merely slow, computing or starved of CPU by a loaded
 * host, keeps its waiters waiting).
 *
 * Locks: the scheduler lock, then a task's xlock or soft_lock.
 *
 * Copyright (C) 2026 pto-npu authors
 */

#include <linux/atomic.h>
#include <linux/cleanup.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/lockdep.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "pto_barrier.h"
#include "pto_sched.h"
#include "pto_worker.h"
#include "pto_xring.h"

/* Watchdog period while units are parked (and SOFT counters polled). */
#define PTO_PARK_POLL_MS 2
/* Most the watchdog's clock advances in one run (pto_sched.wd_clock). */
#define PTO_WD_MAX_STEP_NS (100 * NSEC_PER_MSEC)

/**
 * pto_unpark_list_locked - release parked units (barrier or ring waits)
 * @s: scheduler (the caller holds its lock)
 * @list: their cores, by park_link (emptied)
 * @st: how their waits ended
 */
void pto_unpark_list_locked(struct pto_sched *s, struct list_head *list,
			    s32 st)
{
	struct pto_core *core, *tmp;

	lockdep_assert_held(&s->lock);
	list_for_each_entry_safe(core, tmp, list, park_link) {
		list_del_init(&core->park_link);
		pto_sched_unpark(s, core, st);
	}
}

/**
 * pto_unpark_list - release parked units, taking the scheduler lock
 * @s: scheduler (its lock not held: taken if @list is not empty)
 * @list: the cores, by park_link (emptied)
 * @st: how their waits ended
 *
 * For a caller that has just dropped a task's xlock or the soft_lock,
 * which rank below the scheduler lock.
 */
void pto_unpark_list(struct pto_sched *s, struct list_head *list, s32 st)
{
	if (list_empty(list))
		return;
	spin_lock(&s->lock);
	pto_unpark_list_locked(s, list, st);
	spin_unlock(&s->lock);
}

/*
 * A HARD arrival, under the task's xlock. The arrival that completes the
 * round moves its waiters to @release; any other waits.
 */
static s32 pto_barrier_arrive_locked(struct pto_task *task,
				     struct pto_core *core,
				     struct list_head *release)
{
	lockdep_assert_held(&task->xlock);
	if (task->bar_exited)
		return DRM_PTO_NPU_STATUS_BARRIER_FAULT;
	/* Set before the canceller takes xlock to release the waiters. */
	if (atomic_read(&task->cancel))
		return DRM_PTO_NPU_STATUS_CANCELLED;
	/* Progress for the watchdog, which reads the clock itself. */
	task->bar_seq++;
	if (++task->bar_arrived == task->bar_parties) {
		task->bar_arrived = 0;
		task->bar_round++;
		list_splice_init(&task->bar_waiters, release);
		return DRM_PTO_NPU_STATUS_OK;
	}
	list_add_tail(&core->park_link, &task->bar_waiters);
	return PTO_STATUS_PARKED;
}

/**
 * pto_barrier_hard - arrive at the task's HARD barrier
 * @task: the launch
 * @core: the arriving unit's core
 *
 * Return: DRM_PTO_NPU_STATUS_OK (the round is complete), PTO_STATUS_PARKED
 * (wait parked: the core's unit goes on once released),
 * _BARRIER_FAULT or _CANCELLED.
 */
s32 pto_barrier_hard(struct pto_task *task, struct pto_core *core)
{
	LIST_HEAD(release);
	s32 st;

	spin_lock(&task->xlock);
	st = pto_barrier_arrive_locked(task, core, &release);
	spin_unlock(&task->xlock);

	/* With xlock dropped: the scheduler lock ranks above it. */
	pto_unpark_list(task->ctx->pdev->sched, &release,
			DRM_PTO_NPU_STATUS_OK);
	return st;
}

/**
 * pto_barrier_exit - a unit of a HARD syncall launch has ended
 * @s: scheduler (the caller holds its lock)
 * @task: the launch
 *
 * Participants still waiting can never be released: they fail.
 */
void pto_barrier_exit(struct pto_sched *s, struct pto_task *task)
{
	LIST_HEAD(release);

	lockdep_assert_held(&s->lock);
	scoped_guard(spinlock, &task->xlock) {
		task->bar_exited++;
		list_splice_init(&task->bar_waiters, &release);
	}
	pto_unpark_list_locked(s, &release, DRM_PTO_NPU_STATUS_BARRIER_FAULT);
}

/*
 * SOFT waiters whose round is complete go to @ok; with @timeout, the ones
 * whose counter has not moved for that long go to @late.
 */
static void pto_soft_scan(struct pto_sched *s, u64 now, u64 timeout,
			  struct list_head *ok, struct list_head *late)
{
	struct pto_core *core, *tmp;

	spin_lock(&s->soft_lock);
	list_for_each_entry_safe(core, tmp, &s->soft_waiters, park_link) {
		s64 cur = atomic_read((atomic_t *)core->soft_counter);
		long ran = atomic_long_read(&core->run_task->progress);

		if (cur >= core->soft_target) {
			list_move_tail(&core->park_link, ok);
		} else if (cur != core->soft_seen || ran != core->soft_ran ||
			   !core->soft_progress) {
			core->soft_seen = cur;
			core->soft_ran = ran;
			core->soft_progress = now;
		} else if (timeout && pto_stalled(now, core->soft_progress, timeout)) {
			list_move_tail(&core->park_link, late);
		}
	}
	spin_unlock(&s->soft_lock);
}

/*
 * A SOFT arrival that did not complete its round (@seen: the counter after
 * its add): the unit waits for the counter to reach @target.
 */
static s32 pto_soft_wait_locked(struct pto_task *task, struct pto_core *core,
				s32 *counter, s64 seen, s64 target)
{
	struct pto_sched *s = task->ctx->pdev->sched;

	lockdep_assert_held(&s->soft_lock);
	if (atomic_read(&task->cancel))
		return DRM_PTO_NPU_STATUS_CANCELLED;
	core->soft_counter = counter;
	core->soft_target = target;
	core->soft_seen = seen;
	/* The watchdog reads the clock at its next look. */
	core->soft_progress = 0;
	list_add_tail(&core->park_link, &s->soft_waiters);
	return PTO_STATUS_PARKED;
}

/* Every unit of @task whose kernel has a SOFT syncall on tensor @ws. */
static s64 pto_soft_parties(const struct pto_task *task, u32 ws)
{
	u32 per = 0;

	/* kern[0]: the AIV kernel, on every AIV of a mixed task's cluster. */
	if (task->kern[0] && (task->kern[0]->soft_ws & BIT(ws)))
		per += task->kern[1] ? task->nparts - 1 : 1;
	if (task->kern[1] && (task->kern[1]->soft_ws & BIT(ws)))
		per += 1;
	return (s64)task->block_num * per;
}

/* The SOFT workspace argument whose counter is @counter (its [0, 0]). */
static struct pto_targ *pto_soft_ws(struct pto_task *task, s32 *counter,
				    s64 *parties)
{
	u32 mask = 0, i;

	if (task->kern[0])
		mask |= task->kern[0]->soft_ws;
	if (task->kern[1])
		mask |= task->kern[1]->soft_ws;
	for (i = 0; i < task->num_tensors; i++) {
		if ((mask & BIT(i)) && (s32 *)task->targs[i].base == counter) {
			*parties = pto_soft_parties(task, i);
			return &task->targs[i];
		}
	}
	return NULL;
}

/*
 * The workspace contract, checked at each arrival before it adds (under
 * soft_lock, so the task's own arrivals are ordered): used_cores within
 * 1..@parties and the same at every arrival; the first arrival finds a
 * whole number of rounds (a multiple of used_cores, not negative): the
 * base; arrival n finds base + n, nobody else having moved the counter.
 *
 * Return: true if @cur keeps the contract.
 */
static bool pto_soft_keeps(struct pto_targ *ws, s64 parties, s32 cur,
			   s64 used)
{
	/* parties <= PTO_MAX_BLOCK_NUM * 3: used_cores fits soft_used. */
	BUILD_BUG_ON((u64)PTO_MAX_BLOCK_NUM * 3 >= PTO_SOFT_BROKEN);
	if (ws->soft_used == PTO_SOFT_BROKEN || used < 1 || used > parties ||
	    cur == S32_MAX)
		return false;
	if (!ws->soft_used) {
		if (cur < 0 || cur % used)
			return false;
		ws->soft_used = used;
		ws->soft_next = cur;
		return true;
	}
	return used == ws->soft_used && cur == ws->soft_next;
}

/*
 * The contract is broken: no unit of @task may leave a barrier on @ws
 * again. The first break names the counter's value; the task's units
 * waiting on it go to @release and later arrivals fail at once.
 */
static s32 pto_soft_break_locked(struct pto_sched *s, struct pto_task *task,
				 struct pto_core *core, struct pto_targ *ws,
				 s32 cur, struct list_head *release)
{
	struct pto_core *w, *tmp;

	lockdep_assert_held(&s->soft_lock);
	if (ws->soft_used != PTO_SOFT_BROKEN) {
		ws->soft_used = PTO_SOFT_BROKEN;
		ws->soft_next = cur;
	}
	list_for_each_entry_safe(w, tmp, &s->soft_waiters, park_link) {
		if (w->run_task == task &&
		    w->soft_counter == (s32 *)ws->base) {
			w->soft_seen = ws->soft_next;
			list_move_tail(&w->park_link, release);
		}
	}
	core->soft_seen = ws->soft_next;
	return DRM_PTO_NPU_STATUS_WORKSPACE;
}

/**
 * pto_barrier_soft - the GM counter barrier
 * @task: the launch
 * @core: the arriving unit's core
 * @counter: the workspace counter (bounds checked by the caller, aligned)
 * @used: participants per round
 *
 * The arrival is checked against the workspace contract first
 * (pto_soft_keeps()); one that breaks it does not add, and fails with
 * DRM_PTO_NPU_STATUS_WORKSPACE together with the task's units waiting on
 * that workspace (pto_barrier_fault_detail(): the counter's value).
 *
 * Return: DRM_PTO_NPU_STATUS_OK, PTO_STATUS_PARKED, _WORKSPACE or
 * _CANCELLED.
 */
s32 pto_barrier_soft(struct pto_task *task, struct pto_core *core,
		     s32 *counter, s64 used)
{
	struct pto_sched *s = task->ctx->pdev->sched;
	struct pto_targ *ws;
	s64 parties = 0, target;
	LIST_HEAD(release);
	s32 cur, st;

	ws = pto_soft_ws(task, counter, &parties);
	spin_lock(&s->soft_lock);
	cur = atomic_read((atomic_t *)counter);
	if (WARN_ON_ONCE(!ws) || !pto_soft_keeps(ws, parties, cur, used) ||
	    atomic_cmpxchg((atomic_t *)counter, cur, cur + 1) != cur) {
		if (!ws) {
			core->soft_seen = cur;
			st = DRM_PTO_NPU_STATUS_WORKSPACE;
		} else {
			st = pto_soft_break_locked(s, task, core, ws, cur,
						   &release);
		}
		spin_unlock(&s->soft_lock);
		pto_unpark_list(s, &release, DRM_PTO_NPU_STATUS_WORKSPACE);
		return st;
	}
	ws->soft_next = cur + 1;
	/* The counter only grows: the round ends at the next multiple. */
	target = ((s64)cur / used + 1) * used;
	if (cur + 1 != target) {
		st = pto_soft_wait_locked(task, core, counter, cur + 1, target);
		spin_unlock(&s->soft_lock);
		return st;
	}
	spin_unlock(&s->soft_lock);
	/* This arrival completes the round: release its waiters. */
	pto_soft_scan(s, READ_ONCE(s->wd_clock), 0, &release, NULL);
	pto_unpark_list(s, &release, DRM_PTO_NPU_STATUS_OK);
	return DRM_PTO_NPU_STATUS_OK;
}

/**
 * pto_barrier_fault_detail - the detail of a unit that left a barrier failing
 * @core: its core
 * @st: how it left
 * @pc: the SYNCALL
 *
 * Return: for DRM_PTO_NPU_STATUS_WORKSPACE the workspace counter's value
 * that broke the contract, sign extended (the same for every unit of the
 * task), else @pc.
 */
u64 pto_barrier_fault_detail(const struct pto_core *core, s32 st, u32 pc)
{
	if (st == DRM_PTO_NPU_STATUS_WORKSPACE)
		return (u64)core->soft_seen;
	return pc;
}

/**
 * pto_soft_intake - the SOFT workspaces of a task taken at intake
 * @t: the task, kernels and tensors resolved
 * @detail: out: the tensor argument refused
 *
 * A workspace is 16 int32 (one exclusive 64-byte line, the guide's
 * 16 x INT32): a view of fewer elements is refused.
 *
 * Return: DRM_PTO_NPU_REASON_SYNCALL, or 0.
 */
u8 pto_soft_intake(const struct pto_task *t, u64 *detail)
{
	u32 mask = 0, i;

	if (t->kern[0])
		mask |= t->kern[0]->soft_ws;
	if (t->kern[1])
		mask |= t->kern[1]->soft_ws;
	for (i = 0; i < t->num_tensors; i++) {
		if ((mask & BIT(i)) &&
		    t->targs[i].rows * t->targs[i].cols < PTO_SOFT_WS_ELEMS) {
			*detail = i;
			return DRM_PTO_NPU_REASON_SYNCALL;
		}
	}
	return 0;
}

/**
 * pto_release_task_waits - end every barrier and ring wait of a task
 * @s: scheduler (the caller holds its lock)
 * @task: the task (cancelled: set before this is called)
 * @st: status the waits end with
 */
void pto_release_task_waits(struct pto_sched *s, struct pto_task *task,
			    s32 st)
{
	struct pto_core *core, *tmp;
	LIST_HEAD(release);

	lockdep_assert_held(&s->lock);
	scoped_guard(spinlock, &task->xlock) {
		list_splice_init(&task->bar_waiters, &release);
		pto_xring_release_task(task, &release);
	}
	scoped_guard(spinlock, &s->soft_lock) {
		list_for_each_entry_safe(core, tmp, &s->soft_waiters, park_link)
			if (core->run_task == task)
				list_move_tail(&core->park_link, &release);
	}
	pto_unpark_list_locked(s, &release, st);
}

/**
 * pto_barrier_watchdog_arm - a unit has parked: make sure the watchdog runs
 * @s: scheduler
 */
void pto_barrier_watchdog_arm(struct pto_sched *s)
{
	queue_delayed_work(pto_system_percpu_wq, &s->watchdog,
			   msecs_to_jiffies(PTO_PARK_POLL_MS));
}

/*
 * The watchdog's clock: real time, but advanced at most PTO_WD_MAX_STEP_NS
 * per run. The only writer: the work item does not run concurrently with
 * itself.
 */
static u64 pto_wd_tick(struct pto_sched *s)
{
	u64 real = ktime_get_ns(), now;

	now = s->wd_clock + min_t(u64, real - s->wd_last, PTO_WD_MAX_STEP_NS);
	s->wd_last = real;
	WRITE_ONCE(s->wd_clock, now);
	return now;
}

/*
 * The watchdog's look at a task with parked units: barrier and ring waits
 * without progress for @timeout go to @stalled; a task left with no waits
 * leaves pto_sched.parked_tasks.
 */
static void pto_wd_scan_task(struct pto_task *task, u64 now, u64 timeout,
			     struct list_head *stalled)
{
	long ran = atomic_long_read(&task->progress);
	bool moved = ran != task->wd_progress;
	bool ring_waits;

	/*
	 * A unit of the task ran since the last look: whoever waits may
	 * still be released (its partner is slow, not stuck).
	 */
	task->wd_progress = ran;
	spin_lock(&task->xlock);
	/* Ring waits: no change of their block's set for timeout. */
	ring_waits = pto_xring_scan_stalled(task, now, timeout, moved, stalled);
	if (!list_empty(&task->bar_waiters)) {
		if (moved || task->bar_seq != task->bar_wd_seq ||
		    !task->bar_progress) {
			task->bar_wd_seq = task->bar_seq;
			task->bar_progress = now;
		} else if (pto_stalled(now, task->bar_progress, timeout)) {
			list_splice_init(&task->bar_waiters, stalled);
		}
	} else if (!ring_waits) {
		list_del_init(&task->park_link);
	}
	spin_unlock(&task->xlock);
}

/*
 * Release the SOFT waiters pto_soft_scan() found (@ok, @late), then time
 * out the stalled waits of every parked task.
 *
 * Return: whether any task still has parked units.
 */
static bool pto_wd_release_locked(struct pto_sched *s, u64 now, u64 timeout,
				  struct list_head *ok, struct list_head *late)
{
	struct pto_task *task, *tmp;

	lockdep_assert_held(&s->lock);
	pto_unpark_list_locked(s, ok, DRM_PTO_NPU_STATUS_OK);
	pto_unpark_list_locked(s, late, DRM_PTO_NPU_STATUS_TIMEOUT);
	list_for_each_entry_safe(task, tmp, &s->parked_tasks, park_link) {
		LIST_HEAD(stalled);

		pto_wd_scan_task(task, now, timeout, &stalled);
		pto_unpark_list_locked(s, &stalled, DRM_PTO_NPU_STATUS_TIMEOUT);
	}
	return !list_empty(&s->parked_tasks);
}

/**
 * pto_barrier_watchdog - poll SOFT counters, time out stalled waits
 * @work: pto_sched.watchdog
 */
void pto_barrier_watchdog(struct work_struct *work)
{
	struct pto_sched *s = container_of(to_delayed_work(work),
					   struct pto_sched, watchdog);
	u64 timeout = (u64)pto_clamped_timeout_ms() * NSEC_PER_MSEC;
	u64 now = pto_wd_tick(s);
	LIST_HEAD(ok);
	LIST_HEAD(late);
	bool more;

	pto_soft_scan(s, now, timeout, &ok, &late);
	scoped_guard(spinlock, &s->lock)
		more = pto_wd_release_locked(s, now, timeout, &ok, &late);
	scoped_guard(spinlock, &s->soft_lock)
		more |= !list_empty(&s->soft_waiters);
	if (more)
		pto_barrier_watchdog_arm(s);
}
