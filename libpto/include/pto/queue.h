/* SPDX-License-Identifier: MIT */
/*
 * libpto tasks and dispatch queues.
 *
 * A task is one dispatch of a kernel over block_num blocks (SPMD), with
 * its tensor and scalar arguments and its dependencies. A dispatch queue
 * is a submission ring (SQ) of 64-byte slots and a completion ring (CQ)
 * shared with the device: pto_queue_push_task() writes one entry and
 * publishes it, pto_queue_doorbell() hands the published entries to the
 * device, pto_queue_reap() reads completions (CQEs), pto_queue_wait()
 * sleeps until there are some.
 *
 * This is the low-level interface; pto/graph.h streams a whole task graph
 * through a queue and is what most programs use.
 *
 * Task ids: the device numbers the entries it takes from 1, per device
 * handle (all its queues), in the order taken; pto_queue_doorbell()
 * returns the id of the first entry it took, the others follow. A
 * dependency is an absolute id (> 0) or relative to the task's own id
 * (< 0: -1 is the entry taken just before).
 */
#ifndef PTO_QUEUE_H
#define PTO_QUEUE_H

#include <pto/pto.h>

#include "pto_npu_isa.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pto_kernel;
struct pto_queue;
struct pto_tensor;

/* Task flags, &pto_task_desc.flags. */
/** PTO_TASK_SYNC_START - all blocks resident at once (needed by barriers). */
#define PTO_TASK_SYNC_START (1U << 0)
/** PTO_TASK_EARLY_RESOLVE - consumers may be pre-staged before this task ends. */
#define PTO_TASK_EARLY_RESOLVE (1U << 1)

/**
 * enum pto_split_mode - how a mixed task uses the two AIVs of its cluster
 * @PTO_SPLIT_NONE: one AIV runs the vector kernel on whole tiles; the
 *		    cluster's other AIV stays reserved for the block
 * @PTO_SPLIT_UP_DOWN: both AIVs run it, each on half the rows of every
 *		       tile that crosses the ring: sub_block_id 0 gets the
 *		       upper half, 1 the lower half of what the AIC pushes,
 *		       and an AIC POP gathers both halves back. The cube side
 *		       stays full size.
 */
enum pto_split_mode {
	PTO_SPLIT_NONE = 0,
	PTO_SPLIT_UP_DOWN = 1,
};

/** PTO_DEFAULT_SLOT_NUM - cross-core ring slots of a mixed task with slot_num 0. */
#define PTO_DEFAULT_SLOT_NUM 8
/** PTO_MAX_SLOT_NUM - most cross-core ring slots of a mixed task. */
#define PTO_MAX_SLOT_NUM 64

/**
 * pto_mixed_check() - would a mixed task of these kernels be accepted?
 * @aic: the cube kernel (core type AIC)
 * @aiv: the vector kernel (core type AIV)
 * @split_mode: &enum pto_split_mode
 * @slot_num: cross-core ring slots, 0 for PTO_DEFAULT_SLOT_NUM
 * @msg: buffer for the reason of a refusal, or NULL
 * @len: bytes at @msg
 *
 * The build-time rules of the cross-core ring, the same the device applies
 * when it takes the task (pto_graph_add_task() applies them to every task
 * that has both kernels):
 *  - every PUSH of a kernel moves one tile shape, every POP too (the
 *    kernel builder and the verifier enforce it per kernel);
 *  - the AIC's PUSH tile is the AIV's POP tile under the split: rows =
 *    AIV rows x parts (2 under UP_DOWN, 1 under NONE), same columns and
 *    dtype; the same for the AIV's PUSH and the AIC's POP; the AIC's rows
 *    divide between the parts;
 *  - the ring lives in the AIV's UB after the vector kernel's tiles:
 *    ALIGN(tiles, 64) + slot_num x (bytes of one AIV's share of a
 *    cube-to-vector slot + of a vector-to-cube slot) must fit the UB.
 *    The refusal names the slot_num that would fit, for instance
 *    "cross-core ring: 8 slots x 32 KiB + 160 KiB of tiles exceed the
 *    192 KiB UB; slot_num <= 1 fits".
 *
 * Return: 0; -ENOSPC when the ring does not fit the UB; -EINVAL for
 * shapes that do not match, a bad split_mode or slot_num, kernels missing,
 * of the wrong core type or of different devices. @msg says which.
 */
PTO_API int pto_mixed_check(const struct pto_kernel *aic,
			    const struct pto_kernel *aiv,
			    enum pto_split_mode split_mode,
			    unsigned int slot_num, char *msg, size_t len);

/**
 * struct pto_predicate - dispatch predicate: run only if
 * tensors[@tensor][@row, @col] @op @literal
 * @tensor: index of the tensor argument holding the operand, a signed
 *	    integer tensor
 * @op: &enum pto_cmp
 * @row: row of the operand in the tensor's 2-D view
 * @col: column of the operand
 * @literal: right-hand side
 *
 * Evaluated by the device when the task becomes ready; a false predicate
 * retires the task as PTO_STATUS_SKIPPED without running it.
 */
struct pto_predicate {
	uint32_t tensor;
	enum pto_cmp op;
	uint32_t row;
	uint32_t col;
	int64_t literal;
};

/*
 * Grids sized from the device (&pto_task_desc.block_num), resolved when the
 * device takes the task, as the guide's available_aiv_count() and
 * available_cluster_count(): the only spellings that keep a HARD syncall
 * launch at full occupancy on every device.
 */
/** PTO_GRID_ALL_AIV - one block per AIV core: AIV launches (PTO_SYNC_AIV). */
#define PTO_GRID_ALL_AIV 0xffffffffu
/** PTO_GRID_ALL_CLUSTERS - one block per cluster: AIC and mixed launches. */
#define PTO_GRID_ALL_CLUSTERS 0xfffffffeu

/**
 * struct pto_task_desc - one task, for a queue or a graph
 * @name: for messages and traces, or NULL (graphs copy it; queues ignore it)
 * @kernel_aiv: vector kernel (core type AIV), or NULL
 * @kernel_aic: cube kernel (core type AIC), or NULL; at least one is set
 * @block_num: SPMD blocks, 1..&pto_limits.max_block_num, or a grid
 *	       sized from the device when the task is taken:
 *	       PTO_GRID_ALL_AIV (every AIV, pto_available_aiv_count()) or
 *	       PTO_GRID_ALL_CLUSTERS (every cluster,
 *	       pto_available_cluster_count()); a task with a HARD syncall
 *	       must use one of them in a graph
 * @flags: PTO_TASK_* bits
 * @tensors: @num_tensors tensors, argument 0 first
 * @num_tensors: at least the kernels' pto_kernel_num_tensor_args()
 * @scalars: @num_scalars scalar arguments
 * @num_scalars: at least the kernels' pto_kernel_num_scalar_args()
 * @deps: @num_deps dependencies. For pto_queue_push_task(): task ids,
 *	  absolute (> 0) or relative (< 0). For pto_graph_add_task(): indexes
 *	  of earlier tasks of the graph.
 * @num_deps: 0..&pto_limits.max_deps
 * @split_mode: mixed tasks (both kernels set): &enum pto_split_mode; must
 *		be PTO_SPLIT_NONE (0) for other tasks
 * @predicate: dispatch predicate, or NULL
 * @user_data: copied to the task's CQEs (queues only; graphs use their own)
 * @slot_num: mixed tasks: slots of the cross-core ring, 0 for
 *	      PTO_DEFAULT_SLOT_NUM, at most PTO_MAX_SLOT_NUM; must be 0 for
 *	      other tasks. The slots come out of the AIV's UB: see
 *	      pto_mixed_check().
 * @reserved32: zero
 * @tensor_dirs: NULL, or @num_tensors directions, one per tensor: PTO_ARG_IN,
 *		 PTO_ARG_OUT, PTO_ARG_INOUT or 0 (none). The device orders a
 *		 task after the earlier unfinished tasks of its device handle
 *		 whose directed tensors overlap its own, one of the two writing
 *		 (read-after-write, write-after-read, write-after-write): the
 *		 dependencies are inferred, @deps may be left empty (libpto 1.2)
 * @reserved0: the same 8 bytes as @tensor_dirs
 * @reserved: zero
 *
 * A task with both @kernel_aic and @kernel_aiv is a mixed task: each of
 * its blocks takes a whole cluster (the AIC and its two AIVs) and the two
 * kernels exchange tiles through the cross-core ring (PUSH/POP).
 *
 * Zero-initialise it: fields added later keep their old meaning at zero.
 */
struct pto_task_desc {
	const char *name;
	struct pto_kernel *kernel_aiv;
	struct pto_kernel *kernel_aic;
	uint32_t block_num;
	uint32_t flags;
	struct pto_tensor *const *tensors;
	uint32_t num_tensors;
	uint32_t num_scalars;
	const int64_t *scalars;
	const int64_t *deps;
	uint32_t num_deps;
	enum pto_split_mode split_mode;
	const struct pto_predicate *predicate;
	uint64_t user_data;
	uint32_t slot_num;
	uint32_t reserved32;
	union {
		const uint8_t *tensor_dirs;
		uint64_t reserved0;
	};
	uint64_t reserved[2];
};

/*
 * Directions of a tensor argument (&pto_task_desc.tensor_dirs): the task
 * reads it (IN), writes it (OUT), or both (INOUT).
 */
#define PTO_ARG_IN (1U << 0)
#define PTO_ARG_OUT (1U << 1)
#define PTO_ARG_INOUT (PTO_ARG_IN | PTO_ARG_OUT)

/**
 * enum pto_status - how a task or block ended
 * @PTO_STATUS_UNREPORTED: libpto only: the device did not say how a block
 *			   ended. No longer produced: the device sends every
 *			   block's own status (pto_graph_task_blocks()); kept
 *			   for the ABI.
 * @PTO_STATUS_PENDING: libpto only: no completion seen (yet)
 * @PTO_STATUS_OK: ran to its END
 * @PTO_STATUS_INVALID: the device refused the entry; see &enum pto_reason
 * @PTO_STATUS_GM_FAULT: GM access outside a tensor; detail:
 *			 PTO_GM_FAULT_TENSOR() and PTO_GM_FAULT_ELEMENT()
 * @PTO_STATUS_TIMEOUT: the wall-clock last resort: a wait in which no unit
 *			of the task ran for &pto_limits.timeout_ms, or a hung
 *			core; detail: the waiting instruction
 * @PTO_STATUS_DEP_FAILED: a dependency failed; not run
 * @PTO_STATUS_CANCELLED: the device handle went away first
 * @PTO_STATUS_ARITH_FAULT: scalar division by zero; detail: instruction
 * @PTO_STATUS_LOOP_FAULT: loop count negative or too large; detail:
 *			   instruction
 * @PTO_STATUS_SKIPPED: predicate false; retired without running (a success)
 * @PTO_STATUS_BARRIER_FAULT: a hard syncall with part of the cores
 * @PTO_STATUS_NOMEM: the device ran out of memory taking the entry
 * @PTO_STATUS_WORK_BUDGET: the unit executed its queue's work budget of
 *			    instructions without reaching END (a runaway
 *			    kernel); detail: the instructions it executed,
 *			    the same count on every host
 * @PTO_STATUS_WORKSPACE: a SOFT syncall whose workspace breaks the
 *			  contract (used_cores outside 1..the task's
 *			  participants, or a counter that is not a whole
 *			  number of rounds when the block arrives: not
 *			  zero-initialised, or written by someone else); no
 *			  block leaves the barrier; detail: the counter's value
 */
enum pto_status {
	PTO_STATUS_UNREPORTED = -2,
	PTO_STATUS_PENDING = -1,
	PTO_STATUS_OK = 0,
	PTO_STATUS_INVALID = 1,
	PTO_STATUS_GM_FAULT = 2,
	PTO_STATUS_TIMEOUT = 3,
	PTO_STATUS_DEP_FAILED = 4,
	PTO_STATUS_CANCELLED = 5,
	PTO_STATUS_ARITH_FAULT = 6,
	PTO_STATUS_LOOP_FAULT = 7,
	PTO_STATUS_SKIPPED = 8,
	PTO_STATUS_BARRIER_FAULT = 9,
	PTO_STATUS_NOMEM = 10,
	PTO_STATUS_WORK_BUDGET = 11,
	PTO_STATUS_WORKSPACE = 12,
};

/** PTO_GM_FAULT_TENSOR() - tensor argument of a GM fault detail. */
#define PTO_GM_FAULT_TENSOR(detail) ((uint32_t)((uint64_t)(detail) >> 56))
/** PTO_GM_FAULT_ELEMENT() - element offset of a GM fault detail. */
#define PTO_GM_FAULT_ELEMENT(detail) \
	((uint64_t)(detail) & ((UINT64_C(1) << 56) - 1))

/**
 * enum pto_reason - why the device refused an entry (PTO_STATUS_INVALID)
 *
 * The detail names the argument (tensor or dependency index) where one
 * applies.
 */
enum pto_reason {
	PTO_REASON_NONE = 0,
	PTO_REASON_SLOTS = 1,
	PTO_REASON_FLAGS = 2,
	PTO_REASON_RESERVED = 3,
	PTO_REASON_KERNEL = 4,
	PTO_REASON_KERNEL_TYPE = 5,
	PTO_REASON_BLOCK_NUM = 6,
	PTO_REASON_COUNTS = 7,
	PTO_REASON_ARG_COUNT = 8,
	PTO_REASON_TENSOR_HANDLE = 9,
	PTO_REASON_TENSOR_LAYOUT = 10,
	PTO_REASON_TENSOR_RANGE = 11,
	PTO_REASON_TENSOR_DTYPE = 12,
	PTO_REASON_DEP = 13,
	PTO_REASON_PREDICATE = 14,
	PTO_REASON_SYNC_START = 15,
	PTO_REASON_RING = 16,
	PTO_REASON_SLOT_BUDGET = 17,
	PTO_REASON_SYNCALL = 18,
	PTO_REASON_INFERRED_DEPS = 19,
	PTO_REASON_GRAPH = 20,
	PTO_REASON_BINDING = 21,
};

/**
 * pto_status_name() - name of a status ("OK", "GM_FAULT", ...)
 * @status: &enum pto_status
 *
 * Return: a constant string; "UNKNOWN" for a value libpto does not know.
 */
PTO_API const char *pto_status_name(int status);

/**
 * pto_reason_name() - name of a refusal reason ("TENSOR_RANGE", ...)
 * @reason: &enum pto_reason
 *
 * Return: a constant string; "UNKNOWN" for a value libpto does not know.
 */
PTO_API const char *pto_reason_name(int reason);

/* Block flags, &pto_block_info.flags and &pto_cqe.flags. */
/**
 * PTO_BLOCK_LAST - last completion of its task: its block's own status and
 * detail, which are also the task's (in a failed task the first failing
 * block's CQE is posted last; see pto_graph_task_blocks()).
 */
#define PTO_BLOCK_LAST (1U << 0)
/** PTO_BLOCK_RAN - the block ran on @core; its timestamps are valid. */
#define PTO_BLOCK_RAN (1U << 1)
/** PTO_BLOCK_STAGED - the block was pre-staged (early resolve). */
#define PTO_BLOCK_STAGED (1U << 2)
/**
 * PTO_BLOCK_HAZARD - the sanitizer found a hazard (PTO_QUEUE_SANITIZE):
 * pto_queue_reap_hazards() returns it with the completion.
 */
#define PTO_BLOCK_HAZARD (1U << 3)
/**
 * PTO_BLOCK_GRAPH - the completion of a graph launch (pto_graph_launch()),
 * its only one: @block is the first failing node (0 if none failed).
 */
#define PTO_BLOCK_GRAPH (1U << 4)
/**
 * PTO_BLOCK_NODE - a completion of one node of a graph launch, on a
 * profiling queue only, before the launch's own.
 */
#define PTO_BLOCK_NODE (1U << 5)

/**
 * struct pto_block_info - what one block of a task did
 * @block: block index, 0..block_num-1
 * @status: &enum pto_status of the block; in a CQE with PTO_BLOCK_LAST,
 *	    of the task
 * @core: core index among the cores of @core_type
 * @core_type: &enum pto_core_type, 0 if the block never ran
 * @reason: &enum pto_reason for PTO_STATUS_INVALID
 * @flags: PTO_BLOCK_* bits
 * @detail: status-specific detail (fault location, argument index)
 * @ts_dispatch: the scheduler handed the block to the core
 * @ts_receive: the core picked it up
 * @ts_start: the kernel started
 * @ts_end: the kernel returned
 * @ts_finish: the scheduler saw the completion
 *
 * Timestamps are CLOCK_MONOTONIC nanoseconds (pto_time_ns()).
 */
struct pto_block_info {
	uint32_t block;
	int32_t status;
	uint16_t core;
	uint8_t core_type;
	uint8_t reason;
	uint32_t flags;
	uint64_t detail;
	uint64_t ts_dispatch;
	uint64_t ts_receive;
	uint64_t ts_start;
	uint64_t ts_end;
	uint64_t ts_finish;
};

/**
 * struct pto_cqe - one completion: a block of a task
 * @user_data: from the task's entry
 * @task_id: id the device gave the task
 * @info: the block
 *
 * A task that ran posts one CQE per block, the last one flagged
 * PTO_BLOCK_LAST; a task that never ran (refused, skipped, dependency
 * failed, cancelled) posts a single one.
 */
struct pto_cqe {
	uint64_t user_data;
	uint64_t task_id;
	struct pto_block_info info;
};

/**
 * enum pto_hazard_kind - what the sanitizer found (&pto_hazard.kind)
 * @PTO_HAZARD_NONE: nothing
 * @PTO_HAZARD_STALE_READ: a load of bytes another block of the task
 *	published (FENCE) after this block's last CACHEINVALID
 * @PTO_HAZARD_UNFENCED: a load of bytes another block stored and never
 *	published with FENCE (before its syncall arrival)
 * @PTO_HAZARD_PREDICATE: the predicate operand's last writer is unfinished
 *	or not among the task's dependencies
 * @PTO_HAZARD_RACE: overlapping GM with an earlier task, one writing, and
 *	no dependency path between them
 */
enum pto_hazard_kind {
	PTO_HAZARD_NONE = 0,
	PTO_HAZARD_STALE_READ = 1,
	PTO_HAZARD_UNFENCED = 2,
	PTO_HAZARD_PREDICATE = 3,
	PTO_HAZARD_RACE = 4,
};

/**
 * struct pto_hazard - a sanitizer report, with the completion it came with
 * @kind: &enum pto_hazard_kind
 * @count: hazards the block (or the task, at intake) met, this one included
 * @pc: the block's instruction (0 at intake)
 * @tensor: the task's tensor argument
 * @elem: element of @tensor's 2-D view (row * cols + col)
 * @other_task: id of the task on the other side (the same for in-task)
 * @other_pc: the other side's instruction (0 at intake)
 * @other_block: the other side's block
 * @other_core: its core, among cores of @other_core_type
 * @other_core_type: &enum pto_core_type, 0 at intake
 * @other_tensor: the other task's tensor argument
 * @node: a graph launch's CQE: one more than the node that met it (@tensor
 *        is that node's argument), 0 when none (uapi 9; in the struct's
 *        former padding: its size, and its ABI, unchanged)
 * @other_node: one more than the node of @other_task (a launch) on the
 *              other side, 0 when that side is not a node
 */
struct pto_hazard {
	uint32_t kind;
	uint32_t count;
	uint32_t pc;
	uint32_t tensor;
	uint64_t elem;
	uint64_t other_task;
	uint32_t other_pc;
	uint32_t other_block;
	uint16_t other_core;
	uint8_t other_core_type;
	uint8_t other_tensor;
	uint16_t node;
	uint16_t other_node;
};

/**
 * pto_hazard_kind_name() - name of a hazard kind ("STALE_READ", ...)
 * @kind: &enum pto_hazard_kind
 *
 * Return: a constant string; "UNKNOWN" for a value libpto does not know.
 */
PTO_API const char *pto_hazard_kind_name(unsigned int kind);

/**
 * pto_hazard_str() - a hazard in words
 * @c: the completion it came with (task, block, core)
 * @h: the hazard
 * @buf: where the text goes (NUL-terminated, truncated to @len)
 * @len: its size
 *
 * For example "task 12 block 3 (AIV7) pc 41: load of arg 1 [elem 64] reads
 * bytes stored by block 2 (AIV2) at pc 17, published by FENCE after this
 * block's last CACHEINVALID (STALE_READ)". On a graph launch's CQE the
 * nodes follow: " [this launch's node 4]", " [task 9's node 2]", or both.
 *
 * Return: the length the full text has (as snprintf()), or -EINVAL.
 */
PTO_API int pto_hazard_str(const struct pto_cqe *c, const struct pto_hazard *h,
			   char *buf, size_t len);

/**
 * pto_time_ns() - CLOCK_MONOTONIC now, in nanoseconds
 *
 * The clock of pto_queue_wait() deadlines and of block timestamps.
 *
 * Return: the time.
 */
PTO_API int64_t pto_time_ns(void);

/**
 * pto_queue_create() - create a dispatch queue and map its rings
 * @dev: device handle
 * @sq_slots: SQ slots, a power of two up to &pto_limits.max_sq_slots and
 *	      at least what the largest entry takes (pto_task_slots() at the
 *	      device's caps), or 0 for the device's default
 * @cq_entries: CQ entries, a power of two up to &pto_limits.max_cq_entries,
 *		or 0 for 4 * the SQ slots
 * @out: the new queue, NULL on failure
 *
 * Return: 0; -EINVAL for bad sizes; -ENOSPC when the handle holds
 * &pto_limits.max_queues_per_context queues; -EPROTO when the ring layout
 * the device reports does not add up; -ENOMEM; or the errno of the ioctl
 * or mmap(2), negated.
 */
PTO_API int pto_queue_create(struct pto_device *dev, uint32_t sq_slots,
			     uint32_t cq_entries, struct pto_queue **out);

/**
 * PTO_QUEUE_PROFILE - &pto_queue_params.flags: the queue profiles, each
 * completion has its block's waits (pto_queue_reap_prof(),
 * pto_graph_task_waits()). Needs PTO_CAP_PROFILE. Queues are created
 * profiling without the flag too when the environment has PTO_TRACE_DIR
 * or PTO_PROFILE=1 and the device can.
 */
#define PTO_QUEUE_PROFILE (1U << 0)
/**
 * PTO_QUEUE_SANITIZE - &pto_queue_params.flags: the device checks GM
 * hazards of the queue's tasks (Documentation/memory-model.rst); a
 * completion flagged PTO_BLOCK_HAZARD has a &struct pto_hazard
 * (pto_queue_reap_hazards(), pto_graph_hazard()). Needs
 * PTO_CAP_MEMORY_MODEL; implies non-coherent GM. Also set, unless
 * PTO_QUEUE_COHERENT is, when the environment has PTO_SANITIZE=1.
 */
#define PTO_QUEUE_SANITIZE (1U << 1)
/**
 * PTO_QUEUE_COHERENT - &pto_queue_params.flags: GM is coherent for the
 * queue's tasks (every store visible at once). Without this flag or
 * PTO_QUEUE_NONCOHERENT the device's default applies (its module
 * parameter noncoherent, on unless changed), or the environment's
 * PTO_GM=coherent / PTO_GM=noncoherent.
 */
#define PTO_QUEUE_COHERENT (1U << 2)
/**
 * PTO_QUEUE_NONCOHERENT - &pto_queue_params.flags: GM as on the chip:
 * stores visible to other cores at FENCE (or at the block's end, to later
 * tasks only), loads stale until CACHEINVALID.
 */
#define PTO_QUEUE_NONCOHERENT (1U << 3)

/**
 * struct pto_queue_params - how pto_queue_create_params() makes a queue
 * @sq_slots: as pto_queue_create()'s, 0 for the default
 * @cq_entries: as pto_queue_create()'s, 0 for 4 * the SQ slots
 * @work_budget: instructions each unit of the queue's tasks may execute
 *		 before it fails with PTO_STATUS_WORK_BUDGET, from
 *		 &pto_limits.min_work_budget to .max_work_budget; 0 for the
 *		 device's default (&pto_limits.work_budget)
 * @flags: PTO_QUEUE_* bits
 * @reserved32: zero
 * @reserved: zero
 */
struct pto_queue_params {
	uint32_t sq_slots;
	uint32_t cq_entries;
	uint64_t work_budget;
	uint32_t flags;
	uint32_t reserved32;
	uint64_t reserved[3];
};

/**
 * enum pto_wait_kind - what a block waited for (&pto_wait.kind)
 * @PTO_WAIT_STAGED: pre-staged on its core (allow_early_resolve), from its
 *		     placement to the doorbell its producer's end rang
 * @PTO_WAIT_RING_POP: a POP from the empty cross-core ring
 * @PTO_WAIT_RING_PUSH: a PUSH to the full cross-core ring
 * @PTO_WAIT_BARRIER_HARD: a HARD syncall, from this block's arrival to its
 *			   release (the same instant for the last to arrive)
 * @PTO_WAIT_BARRIER_SOFT: a SOFT syncall, arrival to release
 */
enum pto_wait_kind {
	PTO_WAIT_STAGED = 1,
	PTO_WAIT_RING_POP = 2,
	PTO_WAIT_RING_PUSH = 3,
	PTO_WAIT_BARRIER_HARD = 4,
	PTO_WAIT_BARRIER_SOFT = 5,
};

/**
 * struct pto_wait - an interval a block spent waiting, not working
 * @begin: CLOCK_MONOTONIC ns it began (a barrier: the block's arrival)
 * @end: CLOCK_MONOTONIC ns it ended (a barrier: the release)
 * @kind: &enum pto_wait_kind
 * @pc: the instruction that waited (0 for PTO_WAIT_STAGED)
 */
struct pto_wait {
	uint64_t begin;
	uint64_t end;
	uint32_t kind;
	uint32_t pc;
};

/** PTO_PROF_WAITS - waits a &struct pto_block_prof lists. */
#define PTO_PROF_WAITS 6

/**
 * struct pto_block_prof - a block's waits (a profiling queue's completion)
 * @nwaits: the block's waits (may exceed PTO_PROF_WAITS)
 * @reserved: zero
 * @wait_ns: their total length, those not listed included
 * @waits: the first min(@nwaits, PTO_PROF_WAITS), in order
 *
 * Its &pto_block_info's bar (ts_start to ts_end) is the block's run; the
 * waits inside it are not work.
 */
struct pto_block_prof {
	uint32_t nwaits;
	uint32_t reserved;
	uint64_t wait_ns;
	struct pto_wait waits[PTO_PROF_WAITS];
};

/** PTO_SCHED_STAGED: the block was placed pre-staged (an early dispatch). */
#define PTO_SCHED_STAGED (1u << 0)
/**
 * PTO_SCHED_EARLY: the block's end released a pre-staged consumer first;
 * the scheduler handled the end once that consumer had started.
 */
#define PTO_SCHED_EARLY (1u << 1)

/**
 * struct pto_sched_rec - what the device's scheduler did for one block
 * @intake_begin: the doorbell began taking the task's entry (task)
 * @intake_end: the task joined the scheduler, before any placement (task)
 * @resolve_begin: at the task's completion, the walk of its consumers
 *		   began (task)
 * @resolve_end: that walk ended (task)
 * @dispatch_begin: the placement pass that placed the block began
 * @dispatch_end: the block's placement was done
 * @complete_begin: the scheduler began handling the block's end
 * @complete_end: the end was handled (for the task's last block, the task
 *		  completed, resolve included), before the next placements
 * @intake_iter: the scheduler iteration of the intake (task)
 * @resolve_iter: the iteration that completed the task (task)
 * @dispatch_iter: the iteration that placed the block
 * @complete_iter: the iteration that handled its end
 * @resolved: consumers the resolve walk visited (task)
 * @flags: PTO_SCHED_* bits
 *
 * The device's scheduler does all its work under one lock, one thread at
 * a time: its iterations (an intake, or one block's end, with the
 * placements made then) are numbered per device, increasing (not
 * contiguous: another context's work counts too). Times are
 * CLOCK_MONOTONIC ns, 0 for work that did not happen. Fields marked
 * (task) are the task's, the same in each of its records. All zero with a
 * module older than uapi 6.
 */
struct pto_sched_rec {
	uint64_t intake_begin;
	uint64_t intake_end;
	uint64_t resolve_begin;
	uint64_t resolve_end;
	uint64_t dispatch_begin;
	uint64_t dispatch_end;
	uint64_t complete_begin;
	uint64_t complete_end;
	uint32_t intake_iter;
	uint32_t resolve_iter;
	uint32_t dispatch_iter;
	uint32_t complete_iter;
	uint32_t resolved;
	uint32_t flags;
};

/**
 * pto_wait_kind_name() - name of a wait kind ("STAGED", "RING_POP", ...)
 * @kind: &enum pto_wait_kind
 *
 * Return: a constant string; "UNKNOWN" for a value libpto does not know.
 */
PTO_API const char *pto_wait_kind_name(unsigned int kind);

/**
 * pto_queue_profiling() - whether a queue profiles
 * @q: queue
 *
 * Return: true if its completions carry waits (PTO_QUEUE_PROFILE).
 */
PTO_API bool pto_queue_profiling(const struct pto_queue *q);

/**
 * pto_queue_sanitizing() - whether a queue's tasks are checked for hazards
 * @q: queue
 *
 * Return: true if its completions may carry hazards (PTO_QUEUE_SANITIZE,
 * PTO_SANITIZE=1 or the device's module parameter sanitize).
 */
PTO_API bool pto_queue_sanitizing(const struct pto_queue *q);

/**
 * pto_queue_noncoherent() - whether a queue's tasks see non-coherent GM
 * @q: queue
 *
 * Return: true if they do (the device said so when it made the queue).
 */
PTO_API bool pto_queue_noncoherent(const struct pto_queue *q);

/**
 * pto_queue_reap_hazards() - pto_queue_reap_prof(), and hazard records
 * @q: queue
 * @out: room for @max completions
 * @prof: room for @max profile records, or NULL
 * @haz: room for @max hazard records, or NULL; the record of a completion
 *	 without PTO_BLOCK_HAZARD is zeroed
 * @max: at most this many
 *
 * Return: as pto_queue_reap().
 */
PTO_API int pto_queue_reap_hazards(struct pto_queue *q, struct pto_cqe *out,
				   struct pto_block_prof *prof,
				   struct pto_hazard *haz, unsigned int max);

/**
 * pto_queue_reap_sched() - pto_queue_reap_hazards(), and scheduler records
 * @q: queue
 * @out: room for @max completions
 * @prof: room for @max profile records, or NULL
 * @sched: room for @max scheduler records, or NULL: what the device's
 *	   scheduler did for each completion's block; all zero unless the
 *	   queue profiles (PTO_QUEUE_PROFILE) on a module of uapi 6 or later
 * @haz: room for @max hazard records, or NULL
 * @max: at most this many
 *
 * The records a graph run keeps (pto_graph_task_sched()), for a program
 * that drives its queue itself.
 *
 * Return: as pto_queue_reap().
 */
PTO_API int pto_queue_reap_sched(struct pto_queue *q, struct pto_cqe *out,
				 struct pto_block_prof *prof,
				 struct pto_sched_rec *sched,
				 struct pto_hazard *haz, unsigned int max);

/**
 * pto_queue_create_params() - pto_queue_create() with more settings
 * @dev: device handle
 * @params: the settings
 * @out: the new queue, NULL on failure
 *
 * Return: as pto_queue_create(); -EINVAL also for a work budget out of
 * range or a non-zero reserved field.
 */
PTO_API int pto_queue_create_params(struct pto_device *dev,
				    const struct pto_queue_params *params,
				    struct pto_queue **out);

/**
 * pto_queue_work_budget() - the work budget of a queue's units
 * @q: queue
 *
 * Return: instructions, or 0 for NULL.
 */
PTO_API uint64_t pto_queue_work_budget(const struct pto_queue *q);

/**
 * pto_queue_destroy() - destroy an idle queue
 * @q: queue, or NULL
 *
 * Return: 0; or -EBUSY while tasks taken from @q are in flight or their
 * completions are held, and @q stays usable.
 */
PTO_API int pto_queue_destroy(struct pto_queue *q);

/**
 * pto_queue_sq_slots() - SQ slots of a queue
 * @q: queue
 *
 * Return: the number of 64-byte slots.
 */
PTO_API uint32_t pto_queue_sq_slots(const struct pto_queue *q);

/**
 * pto_queue_cq_entries() - CQ entries of a queue
 * @q: queue
 *
 * Return: the number of completion entries.
 */
PTO_API uint32_t pto_queue_cq_entries(const struct pto_queue *q);

/**
 * pto_task_slots() - SQ slots one entry takes
 * @num_tensors: tensor arguments
 * @num_scalars: scalar arguments
 * @num_deps: dependencies
 * @predicate: whether a predicate follows
 *
 * Return: the slot count: the 64-byte header, 48 bytes per tensor, 8 per
 * scalar and per dependency and 24 for a predicate, rounded up to slots.
 */
PTO_API uint32_t pto_task_slots(uint32_t num_tensors, uint32_t num_scalars,
				uint32_t num_deps, bool predicate);

/**
 * pto_queue_push_task() - write one task into the SQ and publish it
 * @q: queue
 * @desc: the task; @desc->deps are task ids
 *
 * Writes the entry's slots (wrapping around the ring end) and publishes
 * them with a release store of the SQ tail. The device takes it at the
 * next pto_queue_doorbell(). Only the encoding is checked here: the
 * device validates the entry when it takes it and refuses a bad one with
 * a PTO_STATUS_INVALID completion.
 *
 * Return: 0; -EAGAIN when the SQ has no room for the entry now (ring the
 * doorbell, reap, retry); -E2BIG when it could never fit (more slots than
 * the ring, or a count over 255); -EINVAL for a bad argument (no kernel, a
 * dependency of 0, a tensor of another device or whose layout the entry
 * cannot express, a split_mode or slot_num its fields cannot hold).
 */
PTO_API int pto_queue_push_task(struct pto_queue *q,
				const struct pto_task_desc *desc);

/**
 * pto_queue_push_raw() - write raw bytes as one SQ entry and publish them
 * @q: queue
 * @entry: a struct drm_pto_npu_sqe and what follows it, as the device
 *	   reads them; not checked
 * @size: bytes at @entry, > 0; padded with zeroes to whole slots
 *
 * For tests of the device's entry validation.
 *
 * Return: 0, -EAGAIN, -E2BIG or -EINVAL as pto_queue_push_task().
 */
PTO_API int pto_queue_push_raw(struct pto_queue *q, const void *entry,
			       size_t size);

/**
 * pto_queue_doorbell() - hand the published entries to the device
 * @q: queue
 * @syncobj: 0, or a DRM syncobj to signal when every task taken now retires
 * @point: timeline point of @syncobj, 0 for a binary syncobj
 * @consumed: set to the number of entries taken, or NULL
 * @first_id: set to the id of the first entry taken, or NULL
 *
 * The device takes the entries in order until the handle's in-flight cap
 * (&pto_limits.max_inflight_tasks): the rest stay in the SQ for the next
 * doorbell. Invalid entries are taken too and complete at once.
 *
 * Return: 0 or the ioctl's errno, negated.
 */
PTO_API int pto_queue_doorbell(struct pto_queue *q, uint32_t syncobj,
			       uint64_t point, uint32_t *consumed,
			       uint64_t *first_id);

/**
 * pto_queue_reap() - read completions
 * @q: queue
 * @out: room for @max completions
 * @max: how many to read at most
 *
 * Frees the CQ space it read (release store of the CQ head).
 *
 * Return: the number read, 0 if none is ready, or -EPROTO when the
 * device's CQ tail makes no sense.
 */
PTO_API int pto_queue_reap(struct pto_queue *q, struct pto_cqe *out,
			   unsigned int max);

/**
 * pto_queue_reap_prof() - read completions and their blocks' waits
 * @q: queue
 * @out: room for @max completions
 * @prof: room for @max profiles, the waits of @out's blocks (zeroed when
 *	  the queue does not profile), or NULL
 * @max: how many to read at most
 *
 * Return: as pto_queue_reap().
 */
PTO_API int pto_queue_reap_prof(struct pto_queue *q, struct pto_cqe *out,
				struct pto_block_prof *prof, unsigned int max);

/**
 * pto_queue_wait() - wait for completions
 * @q: queue
 * @deadline_ns: absolute pto_time_ns() deadline; 0 does not wait
 *
 * First moves completions the device held for lack of CQ space into the
 * space pto_queue_reap() freed.
 *
 * Return: 0 when at least one completion is ready; -ETIME at the deadline
 * (signals restart the wait); or the ioctl's errno, negated.
 */
PTO_API int pto_queue_wait(struct pto_queue *q, int64_t deadline_ns);

#ifdef __cplusplus
}
#endif

#endif /* PTO_QUEUE_H */
