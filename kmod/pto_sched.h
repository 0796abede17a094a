/* SPDX-License-Identifier: GPL-2.0-only */
/* Copyright (C) 2026 pto-npu authors */
#ifndef __PTO_SCHED_H__
#define __PTO_SCHED_H__

#include <linux/jiffies.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "pto_drv.h"
#include "pto_exec.h"
#include "pto_task.h"

/**
 * DOC: Locking
 *
 * The locks of the module, outermost first. A lock is taken only while
 * holding none below it in this list (lockdep checks the order on the
 * debug kernel; every function that expects a lock held asserts it, and a
 * ``_locked`` suffix means "the caller holds it"):
 *
 * 1. &pto_ctx.submit_lock (mutex): one QUEUE_SUBMIT, QUEUE_CREATE or
 *    QUEUE_DESTROY of a context at a time: task ids in submission order.
 * 2. A buffer's dma_resv lock (ww_mutex, pto_bo_vaddr()): its kernel
 *    mapping is made at intake, under submit_lock, never under a spinlock.
 * 3. The xarray locks of &pto_ctx.kernels and &pto_ctx.queues: handle
 *    lookup and removal; nothing is taken under them.
 * 4. &pto_sched.lock (spinlock): ready queues, placement, every core's
 *    slots and flags, task states, fanin/fanout, the context's task and
 *    failure hashes, the kick queue, parked tasks. Taken for the intake of
 *    each entry, once per unit a worker finishes, when a unit parks, per
 *    batch of freed tasks, on close and by the watchdog. Never held while
 *    a unit executes.
 * 5. &pto_task.xlock, &pto_sched.soft_lock, &pto_queue.cq_lock
 *    (spinlocks): a task's ring indices, ring waiters and HARD barrier;
 *    the parked SOFT waiters; a queue's CQ tail and held completions.
 *    Each may be taken under the scheduler lock or alone; never two of
 *    them at once. A barrier arrival or a PUSH/POP that releases parked
 *    units drops its lock before it takes the scheduler lock.
 * 6. Leaves, taken under any of the above and taking nothing: a batch's
 *    fence lock (&pto_batch.lock, dma_fence_signal()), wait-queue locks
 *    (wake_up() of &pto_ctx.wq and the cores' &pto_core.wake) and
 *    &pto_sched.spare_lock.
 */
/**
 * struct pto_core - one virtual AIC or AIV core
 * @pdev: device
 * @type: enum pto_core_type
 * @index: index among cores of its type
 * @sub_block: 0/1 for the AIVs of a cluster, 0 on AIC
 * @local: local buffer memory (UB, or L1|L0A|L0B|L0C)
 * @thread: the core's kernel thread, asleep on @wake when idle
 * @wake: the core's wait queue: a unit placed on it, or released, wakes it
 * @woken: the core was woken (sched_lock)
 * @run_task: running slot (sched_lock)
 * @run_unit: unit (block * nparts + part) in the running slot
 * @pend_task: pending (preloaded) slot (sched_lock)
 * @pend_unit: unit in the pending slot
 * @in_worker: a thread is running this core's units (sched_lock)
 * @partner: the AIV this core's mixed block keeps reserved (split NONE)
 * @owner: uid of the context whose data the local memory may hold
 * @dirty: bytes from the start of the local memory that units since the
 *         last scrub may have written: what the next scrub clears
 * @staged: the running slot holds a pre-staged unit waiting for its producer
 * @queued: on pto_sched.kickq: its unit waits for a worker instead of a
 *          wake-up of the core's own thread (sched_lock)
 * @awake: the core's thread is counted in pto_sched.awake (sched_lock)
 * @kick_link: in pto_sched.kickq
 * @kick_jiffies: when it joined pto_sched.kickq
 * @exec: interpreter state of the unit in the running slot (struct pto_run)
 * @defer_post: completions the worker owes, posted once the unit's kernel
 *              has started (its first check, pto_exec.c), NULL if none:
 *              the AICPU's work while the core runs
 * @defer_free: where the tasks they complete go
 * @parked: the unit waits at a barrier and no thread runs it (sched lock)
 * @resume: the parked unit was released: run it on from @exec (sched lock)
 * @park_st: how its barrier wait ended
 * @park_link: in its task's bar_waiters (HARD) or pto_sched.soft_waiters
 * @soft_counter: SOFT: the GM counter it waits on (soft_lock)
 * @soft_target: SOFT: the count that ends its round
 * @soft_seen: SOFT: the count last seen
 * @soft_ran: SOFT: its task's progress count last seen
 * @soft_progress: SOFT: when the watchdog saw the count move, 0 before its
 *                 first look
 */
struct pto_core {
	struct pto_device *pdev;
	u32 type;
	u16 index;
	u8 sub_block;
	void *local;
	struct task_struct *thread;
	wait_queue_head_t wake;
	bool woken;
	struct pto_task *run_task;
	u32 run_unit;
	struct pto_task *pend_task;
	u32 pend_unit;
	bool in_worker;
	struct pto_core *partner;
	u64 owner;
	u32 dirty;
	bool staged;
	bool queued;
	bool awake;
	struct list_head kick_link;
	unsigned long kick_jiffies;
	void *exec;
	struct list_head *defer_post;
	struct list_head *defer_free;
	bool parked;
	bool resume;
	s32 park_st;
	struct list_head park_link;
	s32 *soft_counter;
	s64 soft_target;
	s64 soft_seen;
	long soft_ran;
	u64 soft_progress;
};

/**
 * struct pto_sched - the emulated AICPU scheduler of one device
 * @lock: protects everything below, task scheduling fields and cores' slots
 * @ready: contexts with ready tasks, served round robin, [0] AIV, [1] AIC,
 *	[2] MIX (whole clusters); each context's own tasks in order
 *	(&pto_ctx.ready)
 * @cores: [0] AIV cores, [1] AIC cores
 * @ncores: core count per type
 * @idle: bitmap of cores with an empty running slot, per type
 * @local_size: local memory per core, per type
 * @buf_base: offset of each local buffer in its core's memory
 * @buf_size: budget of each local buffer
 * @no_preload: per type, no core can take a pending unit: the last scan
 *              found none and no core has started, finished or been
 *              released since (saves dispatch a scan of every core per
 *              task while a backlog waits)
 * @kickq: cores whose unit can run on any worker thread (it never waits
 *         for another unit), kicked while @awake reached @budget
 * @awake: core threads woken or running (none sleeps in a wait: waits park)
 * @budget: threads worth keeping awake: the CPUs (more only add
 *          context switches)
 * @pdev: the device
 * @parked_tasks: tasks with units parked at their HARD barrier
 * @soft_lock: protects @soft_waiters and the SOFT fields of their cores
 * @soft_waiters: cores whose unit is parked at a SOFT barrier
 * @watchdog: while units are parked: polls SOFT counters (GM may be
 *            written by anyone) and ends waits without progress for
 *            timeout_ms of @wd_clock
 * @wd_clock: the watchdog's clock, ns: advanced at each of its runs by the
 *            time since the last, at most PTO_WD_MAX_STEP_NS, so a guest
 *            stopped by its host (or a starved watchdog) counts as one
 *            short step, not as time its waits made no progress
 * @wd_last: CLOCK_MONOTONIC ns of the watchdog's last run
 * @spare_lock: protects @spares and @nspares
 * @spares: memory of freed small tasks, each with its unused failure
 *          record, reused by intake (last freed first); linked by
 *          held_link
 * @nspares: tasks on @spares, at most PTO_TASK_SPARES (fewer under KASAN)
 * @iter: the scheduler's iterations so far: intakes, unit ends and context
 *        cancels, each done under @lock (profile records number them)
 */
struct pto_sched {
	spinlock_t lock;	/* see the kernel-doc above */
	struct list_head ready[PTO_NUM_RQ];
	struct pto_core *cores[PTO_NUM_CIDX];
	u32 ncores[PTO_NUM_CIDX];
	unsigned long *idle[PTO_NUM_CIDX];
	u32 local_size[PTO_NUM_CIDX];
	u32 buf_base[PTO_LOCAL_BUFS];
	u32 buf_size[PTO_LOCAL_BUFS];
	bool no_preload[PTO_NUM_CIDX];
	struct list_head kickq;
	u32 awake;
	u32 budget;
	struct pto_device *pdev;
	struct list_head parked_tasks;
	spinlock_t soft_lock;	/* soft_waiters */
	struct list_head soft_waiters;
	struct delayed_work watchdog;
	u64 wd_clock;
	u64 wd_last;
	spinlock_t spare_lock;	/* spares, nspares */
	struct list_head spares;
	u32 nspares;
	u32 iter;
};

/* The scheduling quantum, in jiffies: 2 ms, at least one jiffy. */
#define PTO_QUANTUM_JIFFIES max_t(unsigned long, 1, msecs_to_jiffies(2))

/* The per-type index of @core. */
static inline enum pto_cidx pto_cidx(const struct pto_core *core)
{
	return pto_type_cidx(core->type);
}

int pto_sched_init(struct pto_device *pdev);
void pto_sched_fini(struct pto_device *pdev);
void pto_sched_add(struct pto_device *pdev, struct pto_task *task,
		   const s64 *deps, struct list_head *freeable);
void pto_sched_cancel_ctx(struct pto_ctx *ctx);
void pto_unit_done(struct pto_sched *s, struct pto_core *core,
		   struct pto_task *task, u32 unit,
		   const struct pto_exec_result *res,
		   struct list_head *freeable, struct pto_core **adopt,
		   struct list_head *post);
struct pto_core *pto_staged_core(struct pto_sched *s, struct pto_task *task,
				 u32 u);
void pto_release_staged_unit(struct pto_sched *s, struct pto_core *core,
			     struct pto_task *task, u32 u, u64 now);
void pto_release_staged(struct pto_sched *s, struct pto_task *task,
			struct pto_core **adopt, u64 *now);

/* pto_sched.c's own, shared with pto_cancel.c (the scheduler lock held). */
u64 pto_pass_ns(u64 *now);
void pto_ready_del(struct pto_task *task);
u64 pto_complete(struct pto_sched *s, struct pto_task *first,
		 struct list_head *freeable, struct pto_core **adopt,
		 struct list_head *post, u64 now);
void pto_sched_dispatch(struct pto_sched *s, struct pto_core *self, u64 now);
/* ... and with pto_launch.c (a launch's nodes joining the scheduler). */
void pto_make_ready(struct pto_sched *s, struct pto_task *task,
		    struct list_head *work, struct pto_core **adopt, u64 *now);
void pto_try_stage(struct pto_sched *s, struct pto_task *c);

#endif /* __PTO_SCHED_H__ */
