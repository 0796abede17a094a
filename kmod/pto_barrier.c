// SPDX-License-Identifier: GPL-2.0-only
/*
 * pto_npu: in-kernel syncall.
 *
 * HARD emulates the FFTS barrier: every unit of the launch (the launch
 * occupies every core of the barrier's type, checked at submit) arrives
 * and sleeps until the last one arrives and releases the round. Waiting
 * participants sleep, they never spin, so 48 or 72 participants meet on a
 * 2-CPU VM. Where the hardware would deadlock (error 507018) because a
 * participant ended without arriving, the others fail at once with
 * DRM_PTO_NPU_STATUS_BARRIER_FAULT and the device stays usable.
 *
 * SOFT is the GM counter barrier: each of used_cores participants
 * atomically adds one to the workspace's first int32 and waits until the
 * counter reaches the next multiple of used_cores. The counter only grows,
 * so rounds need no reset. A wrong used_cores or a participant that never
 * arrives ends in DRM_PTO_NPU_STATUS_TIMEOUT once the counter has not
 * moved for timeout_ms (a HARD wait likewise: no new arrival for timeout_ms).
 *
 * Copyright (C) 2026 pto-npu authors
 */

#include <linux/atomic.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/wait.h>

#include "pto_task.h"

/* SOFT waiters also re-read GM at this interval: anything may write it. */
#define PTO_SOFT_POLL_MS 2

static DECLARE_WAIT_QUEUE_HEAD(pto_soft_wait);

static long pto_left(u64 deadline, u64 now)
{
	return max_t(long, nsecs_to_jiffies(deadline - now), 1);
}

/**
 * pto_barrier_hard - arrive at the task's HARD barrier and wait for the round
 * @task: the launch
 * @deadline: unused (waits end after timeout_ms without progress)
 *
 * Return: DRM_PTO_NPU_STATUS_OK, _BARRIER_FAULT, _TIMEOUT or _CANCELLED.
 */
s32 pto_barrier_hard(struct pto_task *task, u64 deadline)
{
	u64 timeout = (u64)pto_clamped_timeout_ms() * NSEC_PER_MSEC;
	u32 round, seen;
	s32 st;

	spin_lock(&task->xlock);
	if (task->bar_exited) {
		spin_unlock(&task->xlock);
		return DRM_PTO_NPU_STATUS_BARRIER_FAULT;
	}
	round = task->bar_round;
	if (++task->bar_arrived == task->bar_parties) {
		task->bar_arrived = 0;
		task->bar_round++;
		spin_unlock(&task->xlock);
		wake_up_all(&task->xwait);
		return DRM_PTO_NPU_STATUS_OK;
	}
	seen = task->bar_arrived;
	spin_unlock(&task->xlock);

	/* No progress = no new arrival for timeout_ms. */
	pto_sched_sleep_begin(task->ctx->pdev);
	deadline = ktime_get_ns() + timeout;
	for (;;) {
		u64 now;

		st = DRM_PTO_NPU_STATUS_OK;
		if (READ_ONCE(task->bar_round) != round)
			break;
		if (READ_ONCE(task->bar_arrived) != seen) {
			seen = READ_ONCE(task->bar_arrived);
			deadline = ktime_get_ns() + timeout;
		}
		st = DRM_PTO_NPU_STATUS_BARRIER_FAULT;
		if (READ_ONCE(task->bar_exited))
			break;
		st = DRM_PTO_NPU_STATUS_CANCELLED;
		if (atomic_read(&task->cancel))
			break;
		st = DRM_PTO_NPU_STATUS_TIMEOUT;
		now = ktime_get_ns();
		if (now >= deadline)
			break;
		wait_event_timeout(task->xwait,
				   READ_ONCE(task->bar_round) != round ||
				   READ_ONCE(task->bar_exited) ||
				   atomic_read(&task->cancel),
				   pto_left(deadline, now));
	}
	pto_sched_sleep_end(task->ctx->pdev);
	return st;
}

/**
 * pto_barrier_exit - a unit of a HARD syncall launch has ended
 * @task: the launch
 *
 * Participants still waiting can never be released: wake them to fail.
 */
void pto_barrier_exit(struct pto_task *task)
{
	spin_lock(&task->xlock);
	task->bar_exited++;
	spin_unlock(&task->xlock);
	wake_up_all(&task->xwait);
}

/**
 * pto_barrier_soft - the GM counter barrier
 * @task: the launch
 * @counter: the workspace counter (bounds checked by the caller, aligned)
 * @used: participants per round
 * @deadline: unused (waits end after timeout_ms without progress)
 *
 * Return: DRM_PTO_NPU_STATUS_OK, _TIMEOUT or _CANCELLED.
 */
s32 pto_barrier_soft(struct pto_task *task, s32 *counter, s64 used,
		     u64 deadline)
{
	u64 timeout = (u64)pto_clamped_timeout_ms() * NSEC_PER_MSEC;
	s64 old, target, seen;
	s32 st;

	if (used < 1 || used > S32_MAX)
		return DRM_PTO_NPU_STATUS_TIMEOUT;
	old = atomic_fetch_add(1, (atomic_t *)counter);
	/* The counter only grows: the round ends at the next multiple. */
	target = (old / used + 1) * used;
	/*
	 * Only the arrival that completes a round wakes the waiters: an
	 * arrival that does not would wake every participant to find the
	 * round still open (N^2 / 2 wake-ups a round). Writes that do not
	 * come from SOFT arrivals (the host, GST, ATOMIC_ADD) are seen at
	 * the next poll.
	 */
	if (old + 1 == target)
		wake_up_all(&pto_soft_wait);
	if (old + 1 == target)
		return DRM_PTO_NPU_STATUS_OK;
	/* No progress = the counter has not moved for timeout_ms. */
	pto_sched_sleep_begin(task->ctx->pdev);
	seen = old + 1;
	deadline = ktime_get_ns() + timeout;
	for (;;) {
		s64 cur = atomic_read((atomic_t *)counter);
		u64 now;

		st = DRM_PTO_NPU_STATUS_OK;
		if (cur >= target)
			break;
		if (cur != seen) {
			seen = cur;
			deadline = ktime_get_ns() + timeout;
		}
		st = DRM_PTO_NPU_STATUS_CANCELLED;
		if (atomic_read(&task->cancel))
			break;
		st = DRM_PTO_NPU_STATUS_TIMEOUT;
		now = ktime_get_ns();
		if (now >= deadline)
			break;
		wait_event_timeout(pto_soft_wait,
				   atomic_read((atomic_t *)counter) >= target ||
				   atomic_read(&task->cancel),
				   min(pto_left(deadline, now),
				       (long)msecs_to_jiffies(PTO_SOFT_POLL_MS)));
	}
	pto_sched_sleep_end(task->ctx->pdev);
	return st;
}
