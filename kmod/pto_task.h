/* SPDX-License-Identifier: GPL-2.0-only */
/* Copyright (C) 2026 pto-npu authors */
#ifndef __PTO_TASK_H__
#define __PTO_TASK_H__

#include <linux/atomic.h>
#include <linux/dma-fence.h>
#include <linux/jump_label.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "pto_kernel.h"

struct pto_infer_rec;
struct pto_xring_set;
struct pto_queue;
struct pto_gm_task;
struct pto_launch;

/**
 * struct pto_targ - a resolved tensor argument (2-D view)
 * @bo: buffer, referenced for the task's lifetime
 * @base: kernel address of element [0, 0]
 * @rows: rows of the view
 * @cols: columns of the view
 * @row_stride: elements between rows
 * @col_stride: elements between columns
 * @dtype: enum pto_isa_dtype
 * @esize: element bytes
 * @dir: DRM_PTO_NPU_TENSOR_F_* (its direction, 0 if none)
 * @soft_used: SOFT syncall workspace (pto_barrier.c, soft_lock): the
 *             used_cores of the task's first arrival, 0 before it,
 *             PTO_SOFT_BROKEN once the contract is broken
 * @soft_next: the counter the task's next arrival must find; once broken,
 *             the value that broke it (every unit's detail)
 */
struct pto_targ {
	struct pto_bo *bo;
	u8 *base;
	u64 rows;
	u64 cols;
	u64 row_stride;
	u64 col_stride;
	u8 dtype;
	u8 esize;
	u8 dir;
	u16 soft_used;
	s32 soft_next;
};

enum pto_ts {
	PTO_TS_DISPATCH,
	PTO_TS_RECEIVE,
	PTO_TS_START,
	PTO_TS_END,
	PTO_TS_FINISH,
	PTO_TS_COUNT,
};

/**
 * struct pto_unit_rec - what one block did
 * @ts: timestamps, enum pto_ts
 * @detail: fault detail
 * @status: enum drm_pto_npu_status
 * @core: core index among its type
 * @core_type: enum pto_core_type, 0 if it was never placed
 * @ran: the kernel ran (not cancelled before it started)
 * @staged: the unit was pre-staged (early resolve)
 */
struct pto_unit_rec {
	u64 ts[PTO_TS_COUNT];
	u64 detail;
	s32 status;
	u16 core;
	u8 core_type;
	bool ran;
	bool staged;
};

/**
 * struct pto_unit_prof - the waits of one unit (queues with
 * DRM_PTO_NPU_QUEUE_F_PROFILE): what its CQE's profile record carries
 * @cur: the wait in progress (begin, kind, pc)
 * @nwaits: waits so far
 * @wait_ns: their total length
 * @waits: the first DRM_PTO_NPU_PROF_WAITS of them
 * @sched: the scheduler's work for the unit; unit 0's also holds the
 *         task's (intake, resolve), copied into each of its records
 *
 * Only the unit's own thread of execution writes the waits (a unit runs on
 * one core at a time), @sched only the scheduler, under its lock; the CQE
 * is posted after the task has completed.
 */
struct pto_unit_prof {
	struct drm_pto_npu_wait cur;
	u32 nwaits;
	u64 wait_ns;
	struct drm_pto_npu_wait waits[DRM_PTO_NPU_PROF_WAITS];
	struct drm_pto_npu_sched sched;
};

/**
 * struct pto_edge - "consumer depends on producer"
 * @link: in the producer's fanout list
 * @consumer: the dependent task
 * @producer: the task depended on; NULL once it has completed
 * @inferred: inferred from tensor directions, not named by the task
 *            (orders only: a failed producer does not fail the consumer)
 */
struct pto_edge {
	struct list_head link;
	struct pto_task *consumer;
	struct pto_task *producer;
	bool inferred;
};

/**
 * struct pto_batch - one doorbell's completion fence
 * @base: the fence signalled when every task taken by the doorbell retired
 * @lock: fence lock
 * @pending: tasks not yet retired, plus one while the doorbell runs
 * @failed: a task of the batch failed
 */
struct pto_batch {
	struct dma_fence base;
	spinlock_t lock;	/* the fence's lock */
	atomic_t pending;
	bool failed;
};

enum pto_task_state {
	PTO_TASK_WAITING,	/* fanin > 0 */
	PTO_TASK_READY,		/* in a ready queue, blocks left to place */
	PTO_TASK_PLACED,	/* every block placed, some still running */
	PTO_TASK_DONE,		/* completed, CQEs being posted */
};

/**
 * struct pto_task - one task taken from a queue
 * @ctx: owning context
 * @queue: queue it came from (CQEs go there)
 * @id: context-wide task id
 * @user_data: copied to CQEs
 * @kern: [0] AIV kernel, [1] AIC kernel (either may be NULL)
 * @flags: DRM_PTO_NPU_TASK_F_*
 * @block_num: blocks
 * @next_block: next block to place
 * @units_out: units placed and not yet returned
 * @fanin: producers not yet complete
 * @dep_failed: a producer failed: retire without running
 * @state: enum pto_task_state
 * @status: task status (first failure wins)
 * @fail_unit: one more than the unit whose failure set @status, 0 if none
 *             (its CQE is posted last: pto_queue.c)
 * @reason: refusal reason for STATUS_INVALID
 * @detail: status detail
 * @cancel: set to stop running blocks early (fault, close, timeout)
 * @ready_link: in the device ready queue of its core type
 * @ctx_link: in the context's list of live tasks
 * @held_link: in the queue's list of completions waiting for CQ space
 * @fanout: edges to consumers
 * @batch: doorbell fence, or NULL
 * @posted: CQEs already written
 * @num_tensors: tensor arguments
 * @num_scalars: scalar arguments
 * @num_deps: dependencies (edges[] entries)
 * @targs: tensor arguments
 * @scalars: scalar arguments
 * @edges: this task's edges in its producers' fanout lists
 * @recs: per-unit records (unit = block * @nparts + part)
 * @nparts: core parts per block: 1, or for a mixed task AIC + 1 or 2 AIVs
 * @split: enum drm_pto_npu_split_mode
 * @slot_num: ring slots (mixed tasks)
 * @ring_base: offset of the ring in each AIV's local memory
 * @rings: per-block ring sets (mixed tasks)
 * @xlock: ring indices and ring waiters, barrier state
 * @num_edges: edges linked into producers' fanout lists
 * @staged_units: units pre-staged on cores, waiting for their release
 * @pred: the dispatch predicate (DRM_PTO_NPU_TASK_F_PREDICATE)
 * @bar_parties: units meeting at the HARD barrier (0: no HARD syncall)
 * @bar_arrived: units waiting at the current round (xlock)
 * @bar_round: completed rounds (xlock)
 * @bar_exited: units that have ended (xlock)
 * @ts_retire: when the task completed (CLOCK_MONOTONIC ns)
 * @any_ran: some unit's kernel ran (else the task posts one CQE)
 * @profiled: its queue profiles: the units' waits follow @recs
 * @sanitized: its queue sanitizes: the hazard records follow (pto_task_haz())
 * @gm: its units' GM history under non-coherent GM (pto_gm.c), allocated
 *      by the first unit that publishes a store others may read, or NULL
 * @unqueued: all its CQEs are posted: no longer counted in its queue's live
 * @hnode: in pto_ctx.tasks while the task is not complete (sched lock)
 * @mem_size: bytes allocated for the task (pto_task_mem_alloc())
 * @fail_rec: allocated at intake, so remembering a failure never allocates
 *            under the scheduler lock; handed to pto_ctx.failed if it fails
 * @units: block records allocated, counted in the context's inflight_units until posted
 * @bar_waiters: cores whose unit is parked at the HARD barrier (xlock)
 * @bar_seq: arrivals at the HARD barrier so far (xlock)
 * @bar_wd_seq: @bar_seq as the watchdog last saw it (xlock)
 * @bar_progress: when the watchdog saw @bar_seq move, 0 before its first
 *                look (xlock)
 * @park_link: in pto_sched.parked_tasks while it has HARD waiters (sched lock)
 * @progress: bumped by its running units at each check: the watchdog ends
 *            a wait only when no unit of the task has run for timeout_ms
 * @wd_progress: @progress as the watchdog last saw it (sched lock)
 * @irecs: per tensor argument, its access in the context's trees
 *         (pto_infer.c), NULL when no argument has a direction and the
 *         queue does not sanitize
 * @edges_cap: room in @edges
 * @edges_ext: @edges was allocated apart from the task (kfree at free)
 * @num_inferred: edges inferred from directions (not named by the task)
 * @infer_mark: id of the task being linked that already has an edge to
 *              this one (sched lock)
 * @path_mark: id of the task whose ancestors the sanitizer found this one
 *             among (sched lock)
 * @launch: a graph launch's state (pto_launch.c): the launch's own, or
 *          that of the launch a node belongs to; NULL for an entry
 * @node: a node's index in its graph
 * @graph: enum pto_graph_role
 */
struct pto_task {
	struct pto_ctx *ctx;
	struct pto_queue *queue;
	u64 id;
	u64 user_data;
	struct pto_kernel *kern[PTO_NUM_CIDX];
	u32 flags;
	u32 block_num;
	u32 next_block;
	u32 units_out;
	u32 fanin;
	bool dep_failed;
	u8 reason;
	u32 state;
	s32 status;
	u32 fail_unit;
	u64 detail;
	atomic_t cancel;
	struct list_head ready_link;
	struct list_head ctx_link;
	struct list_head held_link;
	struct list_head fanout;
	struct pto_batch *batch;
	u32 posted;
	bool unqueued;
	u32 num_tensors;
	u32 num_scalars;
	u32 num_deps;
	struct pto_targ *targs;
	s64 *scalars;
	struct pto_edge *edges;
	struct pto_unit_rec *recs;
	u32 nparts;
	u32 split;
	u32 slot_num;
	u32 ring_base;
	struct pto_xring_set *rings;
	spinlock_t xlock;	/* see above */
	u32 num_edges;
	u32 staged_units;
	struct drm_pto_npu_predicate pred;
	u32 bar_parties;
	u32 bar_arrived;
	u32 bar_round;
	u32 bar_exited;
	u64 ts_retire;
	bool any_ran;
	bool profiled;
	bool sanitized;
	struct pto_gm_task *gm;
	struct hlist_node hnode;
	struct pto_failed *fail_rec;
	size_t mem_size;
	u32 units;
	struct list_head bar_waiters;
	u64 bar_seq;
	u64 bar_wd_seq;
	u64 bar_progress;
	struct list_head park_link;
	atomic_long_t progress;
	long wd_progress;
	struct pto_infer_rec *irecs;
	u32 edges_cap;
	bool edges_ext;
	u32 num_inferred;
	u64 infer_mark;
	u64 path_mark;
	struct pto_launch *launch;
	u32 node;
	u8 graph;
};

/*
 * No progress since @since for @timeout. @now may be older than @since: a
 * wait that moved after the caller read the clock is not stalled.
 */
static inline bool pto_stalled(u64 now, u64 since, u64 timeout)
{
	return now > since && now - since >= timeout;
}

/*
 * The per-unit waits of @task, right after its records (pto_task_alloc()),
 * or NULL unless its queue profiles. Not a field: a small task must stay
 * within its cache object (pto_task_mem.c).
 */
static inline struct pto_unit_prof *pto_task_prof(const struct pto_task *task)
{
	if (likely(!task->profiled))
		return NULL;
	return (struct pto_unit_prof *)(task->recs + task->units);
}

DECLARE_STATIC_KEY_FALSE(pto_prof_key);

/* Whether some queue of the module profiles (pto_queue.c). */
static inline bool pto_profiling(void)
{
	return static_branch_unlikely(&pto_prof_key);
}

/*
 * Profiling queues: the scheduler record of @task's unit @unit, or NULL
 * (the queue does not profile, or a refused task has no unit). Without a
 * profiling queue, a jump patched over the test.
 */
static inline struct drm_pto_npu_sched *pto_task_sched(const struct pto_task *task,
						       u32 unit)
{
	struct pto_unit_prof *p;

	if (!pto_profiling())
		return NULL;
	p = pto_task_prof(task);
	return likely(!p) || unit >= task->units ? NULL : &p[unit].sched;
}

/*
 * The hazard records of @task (queues that sanitize): one per unit, then
 * one for the hazards found at intake; after the waits when profiling.
 * NULL unless its queue sanitizes.
 */
static inline struct drm_pto_npu_hazard *
pto_task_haz(const struct pto_task *task)
{
	u8 *p = (u8 *)(task->recs + task->units);

	if (likely(!task->sanitized))
		return NULL;
	if (task->profiled)
		p += task->units * sizeof(struct pto_unit_prof);
	return (struct drm_pto_npu_hazard *)p;
}

/*
 * Profiling queues: unit @unit of @task begins a wait of @kind at
 * instruction @pc (its clock read only when profiling).
 */
static inline void pto_prof_wait_begin(struct pto_task *task, u32 unit,
				       u32 kind, u32 pc)
{
	struct pto_unit_prof *p = pto_task_prof(task);

	if (likely(!p))
		return;
	p += unit;
	p->cur.begin = ktime_get_ns();
	p->cur.kind = kind;
	p->cur.pc = pc;
}

/* A wait of @task's @unit from @begin to @end, recorded. */
static inline void pto_prof_wait_add(struct pto_task *task, u32 unit,
				     u32 kind, u32 pc, u64 begin, u64 end)
{
	struct pto_unit_prof *p = pto_task_prof(task) + unit;

	if (p->nwaits < DRM_PTO_NPU_PROF_WAITS)
		p->waits[p->nwaits] = (struct drm_pto_npu_wait){
			.begin = begin, .end = end, .kind = kind, .pc = pc,
		};
	p->nwaits++;
	p->wait_ns += end - begin;
}

/* The wait pto_prof_wait_begin() began has ended. */
static inline void pto_prof_wait_end(struct pto_task *task, u32 unit)
{
	struct pto_unit_prof *p = pto_task_prof(task);

	if (likely(!p))
		return;
	p += unit;
	if (p->cur.kind)
		pto_prof_wait_add(task, unit, p->cur.kind, p->cur.pc,
				  p->cur.begin, ktime_get_ns());
	p->cur.kind = DRM_PTO_NPU_WAIT_NONE;
}

#endif /* __PTO_TASK_H__ */
