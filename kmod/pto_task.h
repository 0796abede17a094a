/* SPDX-License-Identifier: GPL-2.0-only */
/* Copyright (C) 2026 pto-npu authors */
#ifndef __PTO_TASK_H__
#define __PTO_TASK_H__

#include <linux/dma-fence.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "pto_drv.h"

/* Caps reported in struct drm_pto_npu_limits. */
#define PTO_MAX_KERNELS_PER_CONTEXT 1024
#define PTO_MAX_INSNS 4096
#define PTO_MAX_QUEUES_PER_CONTEXT 16
#define PTO_MIN_SQ_SLOTS 32
#define PTO_DEFAULT_SQ_SLOTS 1024
#define PTO_MAX_SQ_SLOTS 65536
#define PTO_MAX_CQ_ENTRIES 262144
#define PTO_MAX_INFLIGHT_TASKS 16384
#define PTO_MAX_TENSOR_ARGS 16
#define PTO_MAX_SCALAR_ARGS 16
#define PTO_MAX_DEPS 32
#define PTO_MAX_BLOCK_NUM 8192
/*
 * Block records (block_num * parts) of the tasks a context has in flight,
 * so that memory, not only the task count, is bounded: intake stops once
 * this many are held (the entry that crosses it is still taken).
 */
#define PTO_MAX_INFLIGHT_UNITS BIT(18)
/* Failed task ids remembered per context for late dependents. */
#define PTO_MAX_FAILED_REMEMBERED 65536
#define PTO_VERIFIER_LOG_MAX 256

#define PTO_TASK_AIV 0
#define PTO_TASK_AIC 1
#define PTO_TASK_MIX 2

#define PTO_LOCAL_BUFS 6	/* indexed by enum pto_local_buf */

/*
 * Offset of local buffer @buf in its core's local memory: the AIV's UB at
 * 0, the AIC's L1 | L0A | L0B | L0C back to back.
 */
static inline u32 pto_buf_base(const struct pto_topology *t, u8 buf)
{
	switch (buf) {
	case PTO_BUF_L0A:
		return t->aic_l1;
	case PTO_BUF_L0B:
		return t->aic_l1 + t->aic_l0a;
	case PTO_BUF_L0C:
		return t->aic_l1 + t->aic_l0a + t->aic_l0b;
	}
	return 0;
}

#define PTO_TILE_ALIGN 64

/* pto_barrier_*(): the unit parked; its core's thread is free. */
#define PTO_STATUS_PARKED S32_MIN

struct pto_ctx;
struct pto_queue;

/**
 * struct pto_tile_layout - a verified tile register
 * @dtype: enum pto_isa_dtype
 * @buf: enum pto_local_buf
 * @esize: element bytes
 * @rows: rows
 * @cols: columns
 * @offset: byte offset in the core's local memory
 */
struct pto_tile_layout {
	u8 dtype;
	u8 buf;
	u8 esize;
	u32 rows;
	u32 cols;
	u32 offset;
};

/**
 * struct pto_ring_use - the tile a kernel moves through the cross-core ring
 * @used: the kernel has such an instruction
 * @dtype: tile dtype
 * @esize: element bytes
 * @rows: tile rows
 * @cols: tile columns
 */
struct pto_ring_use {
	bool used;
	u8 dtype;
	u8 esize;
	u32 rows;
	u32 cols;
};

/**
 * struct pto_kernel - a verified program
 * @ref: tasks and the handle table hold references
 * @core_type: enum pto_core_type
 * @num_insns: instruction count
 * @insns: the program, copied in
 * @match: per instruction: LOOP -> its ENDLOOP, ENDLOOP -> its LOOP
 * @num_tiles: tile registers declared
 * @tiles: their placement
 * @num_tensor_args: tensor arguments the program uses
 * @num_scalar_args: scalar arguments the program uses
 * @arg_dtype: dtype each tensor argument is used as (0: any)
 * @ub_used: bytes of UB the tiles take (AIV); the ring goes after them
 * @local_end: the end of the highest tile in the core's local memory (its
 *             buffers' bases added): all a unit of it can write there
 * @push: tile shape of every PUSH (cross-core ring), if any
 * @pop: tile shape of every POP, if any
 * @hard_sync: enum pto_sync_type of its HARD syncalls, 0 if none
 */
struct pto_kernel {
	struct kref ref;
	u32 core_type;
	u32 num_insns;
	struct pto_insn *insns;
	u16 *match;
	u32 num_tiles;
	struct pto_tile_layout tiles[PTO_NUM_TREGS];
	u32 num_tensor_args;
	u32 num_scalar_args;
	u8 arg_dtype[PTO_MAX_TENSOR_ARGS];
	u32 ub_used;
	u32 local_end;
	struct pto_ring_use push;
	struct pto_ring_use pop;
	u8 hard_sync;
};

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
 * struct pto_edge - "consumer depends on producer"
 * @link: in the producer's fanout list
 * @consumer: the dependent task
 * @producer: the task depended on; NULL once it has completed
 */
struct pto_edge {
	struct list_head link;
	struct pto_task *consumer;
	struct pto_task *producer;
};

/**
 * struct pto_xring - one AIV part's two rings
 * @c2v_head: cube-to-vector slots consumed
 * @c2v_tail: cube-to-vector slots filled
 * @v2c_head: vector-to-cube slots consumed
 * @v2c_tail: vector-to-cube slots filled
 */
struct pto_xring {
	u32 c2v_head;
	u32 c2v_tail;
	u32 v2c_head;
	u32 v2c_tail;
};

/**
 * struct pto_xring_set - the cross-core rings of one block of a mixed task
 * @nparts: participating AIVs (1, or 2 under UP_DOWN)
 * @slot_num: slots per ring
 * @c2v_bytes: bytes of one cube-to-vector slot (an AIV's share)
 * @v2c_bytes: bytes of one vector-to-cube slot (an AIV's share)
 * @mem: slot memory in each AIV's UB: c2v slots, then v2c slots
 * @ring: indices per AIV part
 * @aic_done: the AIC part has ended
 * @aiv_done: the AIV parts have ended
 * @seq: bumped on every change
 * @waiters: cores whose unit is parked on a full or empty ring of this set
 *           (by park_link); released by the next change
 * @wd_seq: @seq as the watchdog last saw it (no-progress timeout)
 * @wd_progress: when the watchdog saw @seq move (CLOCK_MONOTONIC ns), 0
 *               before its first look
 */
struct pto_xring_set {
	u32 nparts;
	u32 slot_num;
	u32 c2v_bytes;
	u32 v2c_bytes;
	u8 *mem[2];
	struct pto_xring ring[2];
	bool aic_done;
	bool aiv_done[2];
	u64 seq;
	struct list_head waiters;
	u64 wd_seq;
	u64 wd_progress;
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
 * @blocks_out: blocks placed and not yet returned
 * @fanin: producers not yet complete
 * @dep_failed: a producer failed: retire without running
 * @state: enum pto_task_state
 * @status: task status (first failure wins)
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
 * @blocks: per-unit records (unit = block * @nparts + part)
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
 */
struct pto_task {
	struct pto_ctx *ctx;
	struct pto_queue *queue;
	u64 id;
	u64 user_data;
	struct pto_kernel *kern[2];
	u32 flags;
	u32 block_num;
	u32 next_block;
	u32 blocks_out;
	u32 fanin;
	bool dep_failed;
	u32 state;
	s32 status;
	u8 reason;
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
	struct pto_unit_rec *blocks;
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
};

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
 */
struct pto_sched {
	spinlock_t lock;	/* see the kernel-doc above */
	struct list_head ready[3];
	struct pto_core *cores[2];
	u32 ncores[2];
	unsigned long *idle[2];
	u32 local_size[2];
	u32 buf_base[PTO_LOCAL_BUFS];
	u32 buf_size[PTO_LOCAL_BUFS];
	bool no_preload[2];
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
};

/**
 * struct pto_queue - a dispatch queue
 * @ctx: owning context
 * @id: queue id in the context
 * @ring: ring memory (header, SQ, CQ), mapped by user space too
 * @hdr: ring header in @ring
 * @sq: SQ slot 0
 * @cq: CQE 0
 * @sq_slots: SQ slots (power of two)
 * @cq_entries: CQ entries (power of two)
 * @sq_head: kernel's copy of slots taken (context's submit_lock)
 * @cq_lock: CQ tail and @held
 * @cq_tail: kernel's copy of CQEs posted
 * @held: completed tasks waiting for CQ space
 * @live: tasks of this queue whose CQEs are not all posted
 * @waiters: threads in QUEUE_WAIT on this queue
 * @work_budget: instructions each unit of its tasks may execute
 */
struct pto_queue {
	struct pto_ctx *ctx;
	u32 id;
	struct pto_bo *ring;
	struct drm_pto_npu_ring_header *hdr;
	u8 *sq;
	struct drm_pto_npu_cqe *cq;
	u32 sq_slots;
	u32 cq_entries;
	u32 sq_head;
	spinlock_t cq_lock;	/* CQ tail and held list */
	u32 cq_tail;
	struct list_head held;
	atomic_t live;
	atomic_t waiters;
	u64 work_budget;
};

/* pto_kernel.c */
#if IS_ENABLED(CONFIG_KUNIT)
int pto_verify(const struct pto_topology *topo, u32 core_type,
	       const struct pto_insn *insns, u32 num_insns,
	       const struct pto_tile_decl *tiles, u32 num_tiles,
	       struct pto_kernel *k, u32 *err_idx, char *log, size_t log_size);
#endif
void pto_kernel_put(struct pto_kernel *k);
struct pto_kernel *pto_kernel_lookup(struct pto_ctx *ctx, u32 handle);
void pto_kernels_release(struct pto_ctx *ctx);
int pto_ioctl_kernel_create(struct drm_device *drm, void *data,
			    struct drm_file *file);
int pto_ioctl_kernel_destroy(struct drm_device *drm, void *data,
			     struct drm_file *file);

/* pto_gem.c */
void *pto_bo_vaddr(struct pto_bo *bo);
struct pto_bo *pto_bo_create_kernel(struct pto_device *pdev,
				    struct pto_ctx *ctx, u64 size);

/* pto_exec.c */
struct pto_exec_result {
	s32 status;
	u64 detail;
};

bool pto_cmp_eval(u32 op, s64 a, s64 b);
s64 pto_targ_read(const struct pto_targ *t, u64 row, u64 col);
bool pto_exec_unit(struct pto_core *core, struct pto_task *task, u32 unit,
		    struct pto_exec_result *res, bool resume);
void *pto_exec_state_alloc(void);
int pto_targ_resolve(const struct drm_pto_npu_tensor_arg *arg, u64 bo_size,
		     struct pto_targ *t);

/*
 * No progress since @since for @timeout. @now may be older than @since: a
 * wait that moved after the caller read the clock is not stalled.
 */
static inline bool pto_stalled(u64 now, u64 since, u64 timeout)
{
	return now > since && now - since >= timeout;
}

/* pto_ring.c */
#if IS_ENABLED(CONFIG_KUNIT)
int pto_xring_try_push(struct pto_xring_set *set, bool from_aic, u32 part,
		       const u8 *tile, u32 rows, u32 row_bytes);
int pto_xring_try_pop(struct pto_xring_set *set, bool to_aic, u32 part,
		      u8 *tile, u32 rows, u32 row_bytes);
#endif
s32 pto_ring_op(struct pto_task *task, u32 block, struct pto_core *core,
		u32 part, bool push, u8 *tile, u32 rows, u32 row_bytes);
void pto_ring_side_done(struct pto_sched *s, struct pto_task *task, u32 block,
			bool aic, u32 part);
void pto_ring_release_task(struct pto_task *task, struct list_head *release);
bool pto_ring_scan_stalled(struct pto_task *task, u64 now, u64 timeout,
			   bool moved, struct list_head *stalled);

/* pto_barrier.c */
s32 pto_barrier_hard(struct pto_task *task, struct pto_core *core);
s32 pto_barrier_soft(struct pto_task *task, struct pto_core *core,
		     s32 *counter, s64 used);
void pto_barrier_exit(struct pto_sched *s, struct pto_task *task);
void pto_release_task_waits(struct pto_sched *s, struct pto_task *task,
			    s32 st);
void pto_barrier_watchdog(struct work_struct *work);
void pto_unpark_list(struct pto_sched *s, struct list_head *list, s32 st);
void pto_unpark_list_unlocked(struct pto_sched *s, struct list_head *list,
			      s32 st);

/* pto_sched.c */
int pto_sched_init(struct pto_device *pdev);
void pto_sched_fini(struct pto_device *pdev);
void pto_sched_add(struct pto_device *pdev, struct pto_task *task,
		   const s64 *deps, struct list_head *done);
void pto_sched_cancel_ctx(struct pto_ctx *ctx);
void pto_sched_forget_failed(struct pto_ctx *ctx);
int pto_sched_caches_init(void);
void pto_sched_caches_exit(void);
struct pto_task *pto_task_mem_alloc(struct pto_sched *s, size_t size);
void pto_task_mem_free(struct pto_task *task);
u32 pto_task_spares(struct pto_sched *s, size_t *bytes);
u32 pto_task_spares_max(void);
/* The scheduling quantum, in jiffies: 2 ms, at least one jiffy. */
#define PTO_QUANTUM_JIFFIES max_t(unsigned long, 1, msecs_to_jiffies(2))
void pto_sched_flush_kicks(struct pto_device *pdev, u64 uid, bool all);
void pto_sched_unpark(struct pto_sched *s, struct pto_core *core, s32 st);
void pto_sched_park_armed(struct pto_sched *s);
void pto_task_put_resources(struct pto_task *task);
void pto_tasks_free_list(struct list_head *list);

/* pto_queue.c */
void pto_queue_task_done(struct pto_task *task, struct list_head *freeable);
void pto_queues_release(struct pto_ctx *ctx);
void pto_batch_retire(struct pto_batch *b, bool failed);
void *pto_ctx_scratch_alloc(void);
void pto_queues_drop_held(struct pto_ctx *ctx);
int pto_ioctl_queue_create(struct drm_device *drm, void *data,
			   struct drm_file *file);
int pto_ioctl_queue_destroy(struct drm_device *drm, void *data,
			    struct drm_file *file);
int pto_ioctl_queue_submit(struct drm_device *drm, void *data,
			   struct drm_file *file);
int pto_ioctl_queue_wait(struct drm_device *drm, void *data,
			 struct drm_file *file);
__poll_t pto_queues_poll(struct pto_ctx *ctx);

/* pto_exec_fp.c: f32 math; callers pass bit patterns, never floats. */
void pto_fp_tbin(u32 op, u32 *dst, const u32 *a, const u32 *b, size_t n);
void pto_fp_tbins(u32 op, u32 *dst, const u32 *a, u32 s, size_t n);
#if IS_ENABLED(CONFIG_KUNIT)
void pto_fp_bin(u32 op, u32 *dst, const u32 *a, const u32 *b, u32 s,
		size_t n, bool wide);
void pto_fp_matmul(u32 *c, const u32 *a, const u32 *b, u32 m0, u32 m1,
		   u32 k, u32 n, bool acc, bool wide);
#endif
void pto_fp_tunary(u32 op, u32 *dst, const u32 *a, size_t n);
void pto_fp_rowred(u32 op, u32 *dst, const u32 *a, u32 rows, u32 cols);
void pto_fp_matmul_rows(u32 *c, const u32 *a, const u32 *b, u32 m0, u32 m1,
			u32 k, u32 n, bool acc);
void pto_fp_to_int(s64 *dst, const u32 *a, size_t n);
void pto_fp_from_int(u32 *dst, const s64 *a, size_t n);

#endif /* __PTO_TASK_H__ */
