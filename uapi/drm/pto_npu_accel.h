/* SPDX-License-Identifier: MIT */
/*
 * pto_npu: a virtual Ascend-style NPU exposed as a DRM accel device.
 *
 * This header is the ioctl ABI between pto_npu.ko and user space (libpto).
 * Rules (Documentation/process/botching-up-ioctls.rst): fixed-width types,
 * __u64 for user pointers, explicit padding, every struct a multiple of 8
 * bytes, every flag/pad/reserved field must be zero or the ioctl fails with
 * -EINVAL, every count is capped (see struct drm_pto_npu_limits).
 */
#ifndef _UAPI_PTO_NPU_ACCEL_H_
#define _UAPI_PTO_NPU_ACCEL_H_

#include <linux/const.h>
#include "drm.h"
#include "pto_npu_isa.h"

#if defined(__cplusplus)
extern "C" {
#endif

/** DRM_PTO_NPU_UAPI_VERSION - bumped whenever the ABI grows. */
#define DRM_PTO_NPU_UAPI_VERSION 9

/*
 * Ioctl numbers, relative to DRM_COMMAND_BASE. Append only: a number is
 * never reused or renumbered.
 */
enum drm_pto_npu_ioctl_nr {
	/** @DRM_PTO_NPU_QUERY: size-negotiated device query. */
	DRM_PTO_NPU_QUERY = 0x00,
	/** @DRM_PTO_NPU_BO_CREATE: create a GM buffer object. */
	DRM_PTO_NPU_BO_CREATE = 0x01,
	/** @DRM_PTO_NPU_BO_INFO: size and mmap offset of a GM buffer. */
	DRM_PTO_NPU_BO_INFO = 0x02,
	/** @DRM_PTO_NPU_KERNEL_CREATE: upload and verify a kernel program. */
	DRM_PTO_NPU_KERNEL_CREATE = 0x03,
	/** @DRM_PTO_NPU_KERNEL_DESTROY: drop a kernel handle. */
	DRM_PTO_NPU_KERNEL_DESTROY = 0x04,
	/** @DRM_PTO_NPU_QUEUE_CREATE: create a dispatch queue (SQ + CQ rings). */
	DRM_PTO_NPU_QUEUE_CREATE = 0x05,
	/** @DRM_PTO_NPU_QUEUE_DESTROY: destroy an idle dispatch queue. */
	DRM_PTO_NPU_QUEUE_DESTROY = 0x06,
	/** @DRM_PTO_NPU_QUEUE_SUBMIT: ring the doorbell: take entries off the SQ. */
	DRM_PTO_NPU_QUEUE_SUBMIT = 0x07,
	/** @DRM_PTO_NPU_QUEUE_WAIT: flush held completions, wait for CQEs. */
	DRM_PTO_NPU_QUEUE_WAIT = 0x08,
	/** @DRM_PTO_NPU_GRAPH_CREATE: record a task graph for replay (uapi 7). */
	DRM_PTO_NPU_GRAPH_CREATE = 0x09,
	/** @DRM_PTO_NPU_GRAPH_DESTROY: drop a graph handle (uapi 7). */
	DRM_PTO_NPU_GRAPH_DESTROY = 0x0a,
};

/**
 * enum drm_pto_npu_query_type - what &drm_pto_npu_query.type asks for
 */
enum drm_pto_npu_query_type {
	/** @DRM_PTO_NPU_QUERY_DEVICE: &struct drm_pto_npu_device_info */
	DRM_PTO_NPU_QUERY_DEVICE = 0,
	/** @DRM_PTO_NPU_QUERY_LIMITS: &struct drm_pto_npu_limits */
	DRM_PTO_NPU_QUERY_LIMITS = 1,
	/** @DRM_PTO_NPU_QUERY_MEMORY: &struct drm_pto_npu_memory_info */
	DRM_PTO_NPU_QUERY_MEMORY = 2,
	/** @DRM_PTO_NPU_QUERY_COUNTERS: &struct drm_pto_npu_counters */
	DRM_PTO_NPU_QUERY_COUNTERS = 3,
};

/**
 * struct drm_pto_npu_query - DRM_IOCTL_PTO_NPU_QUERY
 *
 * Size negotiation: with @size 0 the kernel writes nothing and returns the
 * size of the structure it knows in @size. Otherwise it copies
 * min(@size, known size) bytes to @data and returns that count in @size;
 * bytes of a newer, larger user structure past that count are left as they
 * were, so user space zero-initialises its structure first.
 */
struct drm_pto_npu_query {
	/** @type: one of &enum drm_pto_npu_query_type. */
	__u32 type;
	/** @size: in: bytes available at @data; out: bytes written (or needed). */
	__u32 size;
	/** @data: user pointer to the result structure. */
	__u64 data;
	/** @flags: must be zero. */
	__u32 flags;
	/** @pad: must be zero. */
	__u32 pad;
};

/* Capability bits of &drm_pto_npu_device_info.capabilities. */
/** DRM_PTO_NPU_CAP_GM_MMAP: GM buffers can be mmap'd MAP_SHARED. */
#define DRM_PTO_NPU_CAP_GM_MMAP _BITULL(0)
/** DRM_PTO_NPU_CAP_SYNCOBJ: the device supports DRM syncobjs. */
#define DRM_PTO_NPU_CAP_SYNCOBJ _BITULL(1)
/**
 * DRM_PTO_NPU_CAP_PROFILE: queues take DRM_PTO_NPU_QUEUE_F_PROFILE (a
 * profile record beside each CQE: the unit's waits).
 */
#define DRM_PTO_NPU_CAP_PROFILE _BITULL(2)
/**
 * DRM_PTO_NPU_CAP_MEMORY_MODEL: tensor directions with inferred
 * dependencies (DRM_PTO_NPU_TENSOR_F_IN / _OUT), non-coherent GM
 * (DRM_PTO_NPU_QUEUE_F_COHERENT / _NONCOHERENT) and the hazard sanitizer
 * (DRM_PTO_NPU_QUEUE_F_SANITIZE): Documentation/memory-model.rst.
 */
#define DRM_PTO_NPU_CAP_MEMORY_MODEL _BITULL(3)

/**
 * struct drm_pto_npu_device_info - topology and local buffer budgets
 */
struct drm_pto_npu_device_info {
	/** @uapi_version: DRM_PTO_NPU_UAPI_VERSION of the running module. */
	__u32 uapi_version;
	/** @device_index: index of this device instance (0 for the first). */
	__u32 device_index;
	/** @clusters: number of clusters (1 AIC + 2 AIV each). */
	__u32 clusters;
	/** @aic_cores: number of cube cores (= @clusters). */
	__u32 aic_cores;
	/** @aiv_cores: number of vector cores (= 2 * @clusters). */
	__u32 aiv_cores;
	/** @aiv_ub_size: bytes of unified buffer per AIV. */
	__u32 aiv_ub_size;
	/** @aic_l1_size: bytes of L1 per AIC. */
	__u32 aic_l1_size;
	/** @aic_l0a_size: bytes of L0A per AIC. */
	__u32 aic_l0a_size;
	/** @aic_l0b_size: bytes of L0B per AIC. */
	__u32 aic_l0b_size;
	/** @aic_l0c_size: bytes of L0C per AIC. */
	__u32 aic_l0c_size;
	/** @capabilities: DRM_PTO_NPU_CAP_* bits. */
	__u64 capabilities;
};

/**
 * struct drm_pto_npu_limits - documented caps of every count and size
 *
 * Anything over a cap is refused with -EINVAL (or -ENOSPC/-E2BIG where
 * noted in Documentation/uapi.rst), never an out-of-memory.
 */
struct drm_pto_npu_limits {
	/** @max_bo_size: largest GM buffer, bytes. */
	__u64 max_bo_size;
	/** @max_gm_per_context: total GM bytes one open file may hold. */
	__u64 max_gm_per_context;
	/** @max_bos_per_context: GM buffers one open file may hold. */
	__u32 max_bos_per_context;
	/** @max_kernels_per_context: kernel handles one open file may hold. */
	__u32 max_kernels_per_context;
	/** @max_insns: instructions of one kernel. */
	__u32 max_insns;
	/** @max_queues_per_context: dispatch queues one open file may hold. */
	__u32 max_queues_per_context;
	/** @max_sq_slots: SQ slots of one queue (power of two). */
	__u32 max_sq_slots;
	/** @max_cq_entries: CQ entries of one queue (power of two). */
	__u32 max_cq_entries;
	/**
	 * @max_inflight_tasks: tasks taken but not yet completed, per
	 * context; a graph launch counts one and one per node (uapi 8).
	 */
	__u32 max_inflight_tasks;
	/** @max_tensor_args: tensor arguments of one task. */
	__u32 max_tensor_args;
	/** @max_scalar_args: scalar arguments of one task. */
	__u32 max_scalar_args;
	/** @max_deps: dependencies of one task. */
	__u32 max_deps;
	/** @max_block_num: blocks of one task. */
	__u32 max_block_num;
	/**
	 * @timeout_ms: the wall-clock last resort (module parameter): a wait
	 * in which no unit of its task has run for this long ends with
	 * STATUS_TIMEOUT, as does a core that hangs.
	 */
	__u32 timeout_ms;
	/** @pad: zero. */
	__u32 pad;
	/**
	 * @pad2: zero. Explicit, so that @work_budget is at offset 72 on
	 * 32-bit ABIs too (where __u64 is 4-byte aligned): the layout of
	 * 64-bit user space, unchanged.
	 */
	__u32 pad2;
	/**
	 * @work_budget: instructions a unit may execute before it ends with
	 * STATUS_WORK_BUDGET, for queues created without one (module
	 * parameter work_budget).
	 */
	__u64 work_budget;
	/** @min_work_budget: smallest &drm_pto_npu_queue_create.work_budget. */
	__u64 min_work_budget;
	/**
	 * @max_work_budget: largest &drm_pto_npu_queue_create.work_budget
	 * the caller may ask for (with CAP_SYS_NICE, or up to the module
	 * parameter max_user_work_budget without).
	 */
	__u64 max_work_budget;
	/** @max_graph_nodes: nodes of one recorded graph (uapi 7). */
	__u32 max_graph_nodes;
	/** @max_graph_edges: edges of one recorded graph (uapi 7). */
	__u32 max_graph_edges;
	/** @max_graph_bindings: bindings of one recorded graph (uapi 7). */
	__u32 max_graph_bindings;
	/**
	 * @max_graph_nodes_per_context: recorded nodes, over all its graphs,
	 * one open file may hold (uapi 7).
	 */
	__u32 max_graph_nodes_per_context;
	/**
	 * @max_inflight_units: block records (blocks times parts: 2 for a
	 * mixed LEFT_RIGHT task, 3 for UP_DOWN) one open file may have in
	 * flight; an entry that would pass it waits in its SQ, and a graph
	 * whose nodes hold more is refused at GRAPH_CREATE (uapi 8).
	 */
	__u32 max_inflight_units;
	/** @pad3: zero (uapi 8). */
	__u32 pad3;
};

/**
 * struct drm_pto_npu_memory_info - GM accounting of the device
 */
struct drm_pto_npu_memory_info {
	/** @device_bos: GM buffers alive on the device (all contexts). */
	__u64 device_bos;
	/** @device_bytes: bytes of GM alive on the device (all contexts). */
	__u64 device_bytes;
	/** @context_bos: GM buffers held by the calling file. */
	__u64 context_bos;
	/** @context_bytes: bytes of GM held by the calling file. */
	__u64 context_bytes;
};

/**
 * struct drm_pto_npu_counters - device-wide event counters since load
 */
struct drm_pto_npu_counters {
	/** @tasks: SQ entries taken (valid or not). */
	__u64 tasks;
	/** @invalid: entries refused (STATUS_INVALID). */
	__u64 invalid;
	/** @dispatches: tasks the scheduler put on cores (first unit placed). */
	__u64 dispatches;
	union {
		/** @units: units (a block's part on one core) handed to cores. */
		__u64 units;
		/** @blocks: former name of @units, an alias kept for old sources. */
		__u64 blocks;
	};
	/** @skips: predicated tasks retired without running. */
	__u64 skips;
	/** @stages: units pre-staged (allow_early_resolve). */
	__u64 stages;
	union {
		/** @releases: pre-staged units released as their producers completed. */
		__u64 releases;
		/** @doorbells: former name of @releases, an alias kept for old sources. */
		__u64 doorbells;
	};
	/** @barriers: syncall arrivals (HARD and SOFT). */
	__u64 barriers;
	/** @faults: tasks failed by a GM, arithmetic, loop, barrier or workspace fault. */
	__u64 faults;
	/** @timeouts: tasks failed with STATUS_TIMEOUT or STATUS_WORK_BUDGET. */
	__u64 timeouts;
	/** @retired: tasks completed, whatever their status. */
	__u64 retired;
	/** @reserved: zero. */
	__u64 reserved;
};

/**
 * struct drm_pto_npu_bo_create - DRM_IOCTL_PTO_NPU_BO_CREATE
 *
 * Creates a zero-filled GM buffer backed by shmem. The size is rounded up
 * to a page. Errors: -EINVAL for zero size, size over
 * &drm_pto_npu_limits.max_bo_size or non-zero @flags; -ENOSPC when the
 * context's GM caps would be exceeded.
 */
struct drm_pto_npu_bo_create {
	/** @size: in: requested bytes; out: allocated bytes (page aligned). */
	__u64 size;
	/** @flags: must be zero. */
	__u32 flags;
	/** @handle: out: GEM handle, never 0. Freed with DRM_IOCTL_GEM_CLOSE. */
	__u32 handle;
};

/**
 * struct drm_pto_npu_bo_info - DRM_IOCTL_PTO_NPU_BO_INFO
 *
 * Errors: -ENOENT if @handle names no buffer of this file; -EINVAL for
 * non-zero @flags.
 */
struct drm_pto_npu_bo_info {
	/** @handle: GEM handle of this file. */
	__u32 handle;
	/** @flags: must be zero. */
	__u32 flags;
	/** @size: out: size in bytes. */
	__u64 size;
	/** @mmap_offset: out: offset to pass to mmap(MAP_SHARED) on the fd. */
	__u64 mmap_offset;
};

/**
 * enum drm_pto_npu_verify_error - why the verifier refused a kernel
 *
 * Returned in &drm_pto_npu_kernel_create.error_code with the failing
 * instruction (or tile declaration) index; the log says it in words.
 */
enum drm_pto_npu_verify_error {
	/** @DRM_PTO_NPU_VERIFY_OK: accepted. */
	DRM_PTO_NPU_VERIFY_OK = 0,
	/** @DRM_PTO_NPU_VERIFY_EMPTY: no instruction. */
	DRM_PTO_NPU_VERIFY_EMPTY = 1,
	/**
	 * @DRM_PTO_NPU_VERIFY_TOO_LONG: more instructions than the limit (the
	 * ioctl says E2BIG first).
	 */
	DRM_PTO_NPU_VERIFY_TOO_LONG = 2,
	/** @DRM_PTO_NPU_VERIFY_BAD_OPCODE: an opcode that is not defined. */
	DRM_PTO_NPU_VERIFY_BAD_OPCODE = 3,
	/**
	 * @DRM_PTO_NPU_VERIFY_RESERVED_OPCODE: a reserved opcode (none is
	 * reserved today).
	 */
	DRM_PTO_NPU_VERIFY_RESERVED_OPCODE = 4,
	/**
	 * @DRM_PTO_NPU_VERIFY_BAD_REG: a scalar register past s31, or a tile
	 * register not declared.
	 */
	DRM_PTO_NPU_VERIFY_BAD_REG = 5,
	/**
	 * @DRM_PTO_NPU_VERIFY_BAD_MODE: a mode out of range or on an opcode
	 * without modes; HARD syncalls of two types.
	 */
	DRM_PTO_NPU_VERIFY_BAD_MODE = 6,
	/** @DRM_PTO_NPU_VERIFY_BAD_FLAGS: a flag the opcode does not take. */
	DRM_PTO_NPU_VERIFY_BAD_FLAGS = 7,
	/**
	 * @DRM_PTO_NPU_VERIFY_BAD_JUMP: a jump not forward, past the end, or
	 * into another loop body.
	 */
	DRM_PTO_NPU_VERIFY_BAD_JUMP = 8,
	/**
	 * @DRM_PTO_NPU_VERIFY_LOOP_NESTING: loops too deep, or LOOP and
	 * ENDLOOP unmatched.
	 */
	DRM_PTO_NPU_VERIFY_LOOP_NESTING = 9,
	/**
	 * @DRM_PTO_NPU_VERIFY_CORE_TYPE: a core type that is not AIV or AIC,
	 * or an opcode the core type lacks.
	 */
	DRM_PTO_NPU_VERIFY_CORE_TYPE = 10,
	/**
	 * @DRM_PTO_NPU_VERIFY_TILE_SHAPE: operand tiles whose shapes or dtypes
	 * do not agree.
	 */
	DRM_PTO_NPU_VERIFY_TILE_SHAPE = 11,
	/**
	 * @DRM_PTO_NPU_VERIFY_TILE_DTYPE: an operation the tiles' dtype does
	 * not support.
	 */
	DRM_PTO_NPU_VERIFY_TILE_DTYPE = 12,
	/**
	 * @DRM_PTO_NPU_VERIFY_TILE_BUF: a tile in a buffer the operation or
	 * the core type cannot use.
	 */
	DRM_PTO_NPU_VERIFY_TILE_BUF = 13,
	/**
	 * @DRM_PTO_NPU_VERIFY_BUDGET: a tile that does not fit in its buffer.
	 */
	DRM_PTO_NPU_VERIFY_BUDGET = 14,
	/**
	 * @DRM_PTO_NPU_VERIFY_BAD_TILE_DECL: a tile declaration with a bad
	 * dtype or shape.
	 */
	DRM_PTO_NPU_VERIFY_BAD_TILE_DECL = 15,
	/** @DRM_PTO_NPU_VERIFY_NO_END: the last instruction is not END. */
	DRM_PTO_NPU_VERIFY_NO_END = 16,
	/** @DRM_PTO_NPU_VERIFY_ARG_INDEX: an argument index out of range. */
	DRM_PTO_NPU_VERIFY_ARG_INDEX = 17,
	/**
	 * @DRM_PTO_NPU_VERIFY_ARG_DTYPE: one tensor argument used as two
	 * dtypes.
	 */
	DRM_PTO_NPU_VERIFY_ARG_DTYPE = 18,
	/**
	 * @DRM_PTO_NPU_VERIFY_RESERVED_FIELD: a reserved or unused field that
	 * is not zero.
	 */
	DRM_PTO_NPU_VERIFY_RESERVED_FIELD = 19,
	/**
	 * @DRM_PTO_NPU_VERIFY_LOOP_COUNT: an immediate LOOP count out of
	 * range.
	 */
	DRM_PTO_NPU_VERIFY_LOOP_COUNT = 20,
};

/**
 * struct drm_pto_npu_kernel_create - DRM_IOCTL_PTO_NPU_KERNEL_CREATE
 *
 * Copies the program in, verifies it once and returns a handle. A refused
 * program fails with -EINVAL and @error_code, @error_insn and, when @log is
 * given, a NUL-terminated message. Other errors: -EFAULT (pointers),
 * -ENOSPC (per-context kernel cap), -E2BIG (@num_insns over the cap).
 */
struct drm_pto_npu_kernel_create {
	/** @insns: user pointer to @num_insns &struct pto_insn. */
	__u64 insns;
	/** @tiles: user pointer to @num_tiles &struct pto_tile_decl. */
	__u64 tiles;
	/** @log: user pointer to @log_size bytes for the verifier log, or 0. */
	__u64 log;
	/** @num_insns: 1..&drm_pto_npu_limits.max_insns. */
	__u32 num_insns;
	/** @num_tiles: 0..PTO_NUM_TREGS. */
	__u32 num_tiles;
	/** @log_size: bytes at @log (0 with @log 0). */
	__u32 log_size;
	/** @core_type: &enum pto_core_type the program is for. */
	__u32 core_type;
	/** @flags: must be zero. */
	__u32 flags;
	/** @handle: out: kernel handle, never 0. */
	__u32 handle;
	/** @error_insn: out: index of the refused instruction or tile, ~0 if none. */
	__u32 error_insn;
	/** @error_code: out: &enum drm_pto_npu_verify_error. */
	__u32 error_code;
	/** @num_tensor_args: out: tensor arguments a task must pass. */
	__u32 num_tensor_args;
	/** @num_scalar_args: out: scalar arguments a task must pass. */
	__u32 num_scalar_args;
};

/**
 * struct drm_pto_npu_kernel_destroy - DRM_IOCTL_PTO_NPU_KERNEL_DESTROY
 *
 * Tasks already taken keep the program alive. -ENOENT for an unknown handle.
 */
struct drm_pto_npu_kernel_destroy {
	/** @handle: kernel handle. */
	__u32 handle;
	/** @pad: must be zero. */
	__u32 pad;
};

/*
 * Dispatch queues.
 *
 * A queue is one GEM buffer (mmap it with &drm_pto_npu_queue_create.handle
 * like any GM buffer) holding &struct drm_pto_npu_ring_header, the
 * submission ring (SQ) of 64-byte slots and the completion ring (CQ) of
 * &struct drm_pto_npu_cqe. Indices are free running u32 counters, masked
 * by the ring size. User space writes SQ entries, publishes them with a
 * release store of sq_tail and rings the doorbell (DRM_IOCTL_PTO_NPU_QUEUE_SUBMIT);
 * the kernel copies each entry out of the ring before validating it.
 */

/** DRM_PTO_NPU_SQ_SLOT_SIZE - bytes of one SQ slot. */
#define DRM_PTO_NPU_SQ_SLOT_SIZE 64

/**
 * struct drm_pto_npu_ring_header - shared indices at offset 0 of a queue
 *
 * Each index sits in its own 64-byte line. User space owns @sq_tail and
 * @cq_head, the kernel owns @sq_head and @cq_tail.
 */
struct drm_pto_npu_ring_header {
	/** @sq_head: slots the kernel has taken. */
	__u32 sq_head;
	/** @pad0: unused. */
	__u32 pad0[15];
	/** @sq_tail: slots user space has published. */
	__u32 sq_tail;
	/** @pad1: unused. */
	__u32 pad1[15];
	/** @cq_head: CQEs user space has consumed. */
	__u32 cq_head;
	/** @pad2: unused. */
	__u32 pad2[15];
	/** @cq_tail: CQEs the kernel has posted. */
	__u32 cq_tail;
	/** @cq_held: completions waiting for CQ space (back-pressure). */
	__u32 cq_held;
	/** @pad3: unused. */
	__u32 pad3[14];
};

/* Task flags, &drm_pto_npu_sqe.flags. */
/** DRM_PTO_NPU_TASK_F_SYNC_START: all blocks resident at once (SPMD). */
#define DRM_PTO_NPU_TASK_F_SYNC_START _BITUL(0)
/** DRM_PTO_NPU_TASK_F_EARLY_RESOLVE: allow_early_resolve (pre-staging). */
#define DRM_PTO_NPU_TASK_F_EARLY_RESOLVE _BITUL(1)
/** DRM_PTO_NPU_TASK_F_PREDICATE: a &struct drm_pto_npu_predicate follows. */
#define DRM_PTO_NPU_TASK_F_PREDICATE _BITUL(2)
/**
 * DRM_PTO_NPU_TASK_F_GRAPH: the entry is a graph launch (uapi 7):
 * @reserved[0] of &drm_pto_npu_sqe is a handle from
 * DRM_IOCTL_PTO_NPU_GRAPH_CREATE, the kernels are 0, @block_num is 1, and
 * the tensors and scalars that follow are the launch's bindings, in
 * parameter order (Documentation/techniques/graph-replay.rst). Only
 * DRM_PTO_NPU_TASK_F_PREDICATE may go with it.
 */
#define DRM_PTO_NPU_TASK_F_GRAPH _BITUL(3)
/** DRM_PTO_NPU_TASK_F_ALL: flags this module knows. */
#define DRM_PTO_NPU_TASK_F_ALL (DRM_PTO_NPU_TASK_F_SYNC_START | \
				DRM_PTO_NPU_TASK_F_EARLY_RESOLVE | \
				DRM_PTO_NPU_TASK_F_PREDICATE | \
				DRM_PTO_NPU_TASK_F_GRAPH)

/**
 * enum drm_pto_npu_split_mode - how a mixed task uses its cluster's AIVs
 * @DRM_PTO_NPU_SPLIT_NONE: AIV 0 runs the vector kernel on the whole tile
 *	(the cluster's second AIV stays reserved for the block)
 * @DRM_PTO_NPU_SPLIT_UP_DOWN: both AIVs run it, each on half the rows
 *	(sub_block_id 0: upper half, 1: lower half); the cube side is full size
 */
enum drm_pto_npu_split_mode {
	DRM_PTO_NPU_SPLIT_NONE = 0,
	DRM_PTO_NPU_SPLIT_UP_DOWN = 1,
};

/**
 * DRM_PTO_NPU_BLOCKS_ALL_AIV: a grid of every AIV core of the device (the
 * guide's available_aiv_count()), for a HARD syncall over PTO_SYNC_AIV.
 */
#define DRM_PTO_NPU_BLOCKS_ALL_AIV 0xffffffffu
/**
 * DRM_PTO_NPU_BLOCKS_ALL_CLUSTERS: a grid of every cluster (the guide's
 * available_cluster_count()): AIC launches and mixed launches.
 */
#define DRM_PTO_NPU_BLOCKS_ALL_CLUSTERS 0xfffffffeu

/** DRM_PTO_NPU_DEFAULT_SLOT_NUM - cross-core ring slots when slot_num is 0. */
#define DRM_PTO_NPU_DEFAULT_SLOT_NUM 8
/** DRM_PTO_NPU_MAX_SLOT_NUM - most cross-core ring slots. */
#define DRM_PTO_NPU_MAX_SLOT_NUM 64

/**
 * struct drm_pto_npu_sqe - header of one SQ entry (one task)
 *
 * An entry occupies @num_slots consecutive 64-byte slots (it may wrap
 * around the ring end): this header, then @num_tensors
 * &struct drm_pto_npu_tensor_arg, @num_scalars __s64 scalars, @num_deps
 * __s64 dependencies, and a &struct drm_pto_npu_predicate when
 * DRM_PTO_NPU_TASK_F_PREDICATE is set, packed in that order and padded to
 * a whole slot.
 *
 * A dependency > 0 is an absolute task id of this context, < 0 is relative
 * to this task's own id (-1: the entry taken just before). Task ids start
 * at 1 and count every entry taken from any queue of the context, valid
 * or not. A dependency on a task that already completed is satisfied, on
 * one that failed makes this task fail with DRM_PTO_NPU_STATUS_DEP_FAILED.
 */
struct drm_pto_npu_sqe {
	/** @user_data: copied to every CQE of the task. */
	__u64 user_data;
	/** @kernel_aiv: vector kernel handle, or 0. */
	__u32 kernel_aiv;
	/** @kernel_aic: cube kernel handle, or 0. */
	__u32 kernel_aic;
	/** @flags: DRM_PTO_NPU_TASK_F_*. */
	__u32 flags;
	/**
	 * @block_num: SPMD blocks, 1..&drm_pto_npu_limits.max_block_num, or
	 * DRM_PTO_NPU_BLOCKS_ALL_AIV / DRM_PTO_NPU_BLOCKS_ALL_CLUSTERS,
	 * resolved when the entry is taken (CQEs and traces show the count).
	 */
	__u32 block_num;
	/** @num_slots: slots this entry occupies, header included. */
	__u16 num_slots;
	/** @num_tensors: tensor arguments that follow. */
	__u8 num_tensors;
	/** @num_scalars: scalar arguments that follow. */
	__u8 num_scalars;
	/** @num_deps: dependencies that follow. */
	__u8 num_deps;
	/** @split_mode: &enum drm_pto_npu_split_mode (mixed tasks; else 0). */
	__u8 split_mode;
	/**
	 * @slot_num: cross-core ring slots of a mixed task, 0 for
	 * DRM_PTO_NPU_DEFAULT_SLOT_NUM; must be 0 for other tasks.
	 */
	__u16 slot_num;
	/** @reserved: must be zero. */
	__u64 reserved[4];
};

/* Tensor argument flags, &drm_pto_npu_tensor_arg.flags: its direction. */
/**
 * DRM_PTO_NPU_TENSOR_F_IN: the task reads the view. With _OUT: INOUT.
 * The context infers dependencies from directed views that overlap those
 * of earlier tasks: read-after-write, write-after-read, write-after-write.
 */
#define DRM_PTO_NPU_TENSOR_F_IN _BITUL(0)
/** DRM_PTO_NPU_TENSOR_F_OUT: the task writes the view. */
#define DRM_PTO_NPU_TENSOR_F_OUT _BITUL(1)
/** DRM_PTO_NPU_TENSOR_F_ALL: tensor flags this module knows. */
#define DRM_PTO_NPU_TENSOR_F_ALL (DRM_PTO_NPU_TENSOR_F_IN | \
				  DRM_PTO_NPU_TENSOR_F_OUT)

/**
 * struct drm_pto_npu_tensor_arg - one GM tensor argument of a task
 *
 * The kernel addresses a tensor as a 2-D [rows, cols] view: cols is the
 * last dimension, rows the product of the others, which must be laid out
 * contiguously over each other. Every byte the view can address must lie
 * inside the buffer.
 */
struct drm_pto_npu_tensor_arg {
	/** @handle: GEM handle of the buffer. */
	__u32 handle;
	/** @dtype: &enum pto_isa_dtype. */
	__u8 dtype;
	/** @ndim: 1..4. */
	__u8 ndim;
	/**
	 * @flags: DRM_PTO_NPU_TENSOR_F_* (its direction), others zero. A
	 * tensor with a direction takes part in dependency inference; one
	 * without is neither inferred from nor checked.
	 */
	__u16 flags;
	/** @offset: byte offset in the buffer, aligned to the element size. */
	__u64 offset;
	/** @shape: dims 0..ndim-1 (>= 1), the rest zero. */
	__u32 shape[4];
	/** @strides: element strides, or all zero for row-major. */
	__u32 strides[4];
};

/**
 * struct drm_pto_npu_predicate - dispatch predicate: tensor[row, col] OP literal
 */
struct drm_pto_npu_predicate {
	/** @tensor: index of the tensor argument holding the operand. */
	__u8 tensor;
	/** @op: &enum pto_cmp. */
	__u8 op;
	/** @pad: zero. */
	__u16 pad;
	/** @row: row of the operand element in the tensor's 2-D view. */
	__u32 row;
	/** @col: column of the operand element. */
	__u32 col;
	/** @pad2: zero. */
	__u32 pad2;
	/** @literal: right-hand side. */
	__s64 literal;
};

/**
 * enum drm_pto_npu_status - &drm_pto_npu_cqe.status
 */
enum drm_pto_npu_status {
	/** @DRM_PTO_NPU_STATUS_OK: the block ran to its END. */
	DRM_PTO_NPU_STATUS_OK = 0,
	/** @DRM_PTO_NPU_STATUS_INVALID: the entry was refused; see @reason. */
	DRM_PTO_NPU_STATUS_INVALID = 1,
	/**
	 * @DRM_PTO_NPU_STATUS_GM_FAULT: GM access outside a tensor;
	 * detail = tensor << 56 | element offset.
	 */
	DRM_PTO_NPU_STATUS_GM_FAULT = 2,
	/**
	 * @DRM_PTO_NPU_STATUS_TIMEOUT: the wall-clock last resort: a wait in
	 * which no unit of the task ran for timeout_ms, or a hung core;
	 * detail = the waiting instruction.
	 */
	DRM_PTO_NPU_STATUS_TIMEOUT = 3,
	/** @DRM_PTO_NPU_STATUS_DEP_FAILED: a dependency failed; not run. */
	DRM_PTO_NPU_STATUS_DEP_FAILED = 4,
	/** @DRM_PTO_NPU_STATUS_CANCELLED: the context went away first. */
	DRM_PTO_NPU_STATUS_CANCELLED = 5,
	/** @DRM_PTO_NPU_STATUS_ARITH_FAULT: scalar division by zero; detail = insn. */
	DRM_PTO_NPU_STATUS_ARITH_FAULT = 6,
	/** @DRM_PTO_NPU_STATUS_LOOP_FAULT: LOOP count negative or over the cap; detail = insn. */
	DRM_PTO_NPU_STATUS_LOOP_FAULT = 7,
	/** @DRM_PTO_NPU_STATUS_SKIPPED: predicate false, retired without running. */
	DRM_PTO_NPU_STATUS_SKIPPED = 8,
	/**
	 * @DRM_PTO_NPU_STATUS_BARRIER_FAULT: a HARD syncall that can never
	 * complete (a participant ended without arriving): the virtual
	 * device's equivalent of the hardware's 507018, without the hang.
	 */
	DRM_PTO_NPU_STATUS_BARRIER_FAULT = 9,
	/** @DRM_PTO_NPU_STATUS_NOMEM: out of kernel memory taking the entry. */
	DRM_PTO_NPU_STATUS_NOMEM = 10,
	/**
	 * @DRM_PTO_NPU_STATUS_WORK_BUDGET: the unit executed its queue's work
	 * budget of instructions without reaching END (a runaway kernel);
	 * detail = the instructions it executed. The same program with the
	 * same inputs ends here after the same count on every host.
	 */
	DRM_PTO_NPU_STATUS_WORK_BUDGET = 11,
	/**
	 * @DRM_PTO_NPU_STATUS_WORKSPACE: a SOFT syncall whose workspace breaks
	 * the contract, checked at each arrival before it adds: used_cores
	 * outside 1..the task's units that hold a SOFT syncall on that
	 * workspace (block_num, times the cluster's cores of a mixed task
	 * whose two kernels both do), or not the same at every arrival; the
	 * task's first arrival finding the counter not a whole number of
	 * rounds (negative or not a multiple of used_cores); a later one not
	 * finding it where the task's own arrivals left it (another writer).
	 * The arrival does not add, and the task's units waiting on that
	 * workspace fail with it, as none of them could leave correctly;
	 * detail = the counter's value (sign extended). A workspace of fewer
	 * than 16 elements is refused at intake (DRM_PTO_NPU_REASON_SYNCALL).
	 */
	DRM_PTO_NPU_STATUS_WORKSPACE = 12,
};

/**
 * enum drm_pto_npu_reason - why an entry was refused (STATUS_INVALID)
 *
 * &drm_pto_npu_cqe.detail names the argument index where one applies.
 */
enum drm_pto_npu_reason {
	/** @DRM_PTO_NPU_REASON_NONE: not refused. */
	DRM_PTO_NPU_REASON_NONE = 0,
	/**
	 * @DRM_PTO_NPU_REASON_SLOTS: num_slots does not match the counts,
	 * or exceeds what was published.
	 */
	DRM_PTO_NPU_REASON_SLOTS = 1,
	/** @DRM_PTO_NPU_REASON_FLAGS: unknown or not yet supported flag. */
	DRM_PTO_NPU_REASON_FLAGS = 2,
	/** @DRM_PTO_NPU_REASON_RESERVED: a reserved or pad field is not zero. */
	DRM_PTO_NPU_REASON_RESERVED = 3,
	/** @DRM_PTO_NPU_REASON_KERNEL: unknown kernel handle or none given. */
	DRM_PTO_NPU_REASON_KERNEL = 4,
	/** @DRM_PTO_NPU_REASON_KERNEL_TYPE: kernel of the wrong core type for its slot. */
	DRM_PTO_NPU_REASON_KERNEL_TYPE = 5,
	/** @DRM_PTO_NPU_REASON_BLOCK_NUM: block_num 0 or over the cap. */
	DRM_PTO_NPU_REASON_BLOCK_NUM = 6,
	/** @DRM_PTO_NPU_REASON_COUNTS: more tensors, scalars or deps than the caps. */
	DRM_PTO_NPU_REASON_COUNTS = 7,
	/** @DRM_PTO_NPU_REASON_ARG_COUNT: fewer arguments than the kernel uses. */
	DRM_PTO_NPU_REASON_ARG_COUNT = 8,
	/** @DRM_PTO_NPU_REASON_TENSOR_HANDLE: unknown buffer handle; detail = tensor. */
	DRM_PTO_NPU_REASON_TENSOR_HANDLE = 9,
	/**
	 * @DRM_PTO_NPU_REASON_TENSOR_LAYOUT: bad dtype, ndim, shape,
	 * strides or alignment; detail = tensor.
	 */
	DRM_PTO_NPU_REASON_TENSOR_LAYOUT = 10,
	/** @DRM_PTO_NPU_REASON_TENSOR_RANGE: view outside its buffer; detail = tensor. */
	DRM_PTO_NPU_REASON_TENSOR_RANGE = 11,
	/** @DRM_PTO_NPU_REASON_TENSOR_DTYPE: dtype not the kernel's; detail = tensor. */
	DRM_PTO_NPU_REASON_TENSOR_DTYPE = 12,
	/** @DRM_PTO_NPU_REASON_DEP: dependency not on an earlier task; detail = dep index. */
	DRM_PTO_NPU_REASON_DEP = 13,
	/** @DRM_PTO_NPU_REASON_PREDICATE: bad predicate operand, op or index. */
	DRM_PTO_NPU_REASON_PREDICATE = 14,
	/** @DRM_PTO_NPU_REASON_SYNC_START: more blocks than the device holds at once. */
	DRM_PTO_NPU_REASON_SYNC_START = 15,
	/**
	 * @DRM_PTO_NPU_REASON_RING: cross-core ring misuse: PUSH/POP in a task
	 * that is not mixed, tile shapes of the two sides that do not match
	 * (with the split), a bad split_mode or slot_num.
	 */
	DRM_PTO_NPU_REASON_RING = 16,
	/**
	 * @DRM_PTO_NPU_REASON_SLOT_BUDGET: ring slots plus the vector kernel's
	 * tiles exceed the AIV UB; detail = the largest slot_num that fits.
	 */
	DRM_PTO_NPU_REASON_SLOT_BUDGET = 17,
	/**
	 * @DRM_PTO_NPU_REASON_SYNCALL: a HARD syncall launch that does not
	 * occupy every core of its type (the HardSyncallOccupancy rule): not
	 * sync_start, too few or too many blocks, or a barrier core type that
	 * does not match the task; detail = the block count it needs. Or a
	 * SOFT syncall's workspace with fewer than 16 elements (the guide's
	 * 16 x INT32 line); detail = that tensor argument.
	 */
	DRM_PTO_NPU_REASON_SYNCALL = 18,
	/**
	 * @DRM_PTO_NPU_REASON_INFERRED_DEPS: inferring the task's
	 * dependencies would take more than DRM_PTO_NPU_MAX_INFERRED_DEPS
	 * edges, or look at more than four times as many in-flight accesses
	 * of its buffers; detail = DRM_PTO_NPU_MAX_INFERRED_DEPS. Name the
	 * dependencies, or keep fewer conflicting tasks in flight.
	 */
	DRM_PTO_NPU_REASON_INFERRED_DEPS = 19,
	/**
	 * @DRM_PTO_NPU_REASON_GRAPH: a graph launch naming no graph of the
	 * context, or with fields a launch does not take (kernels, a
	 * block_num other than 1, split_mode, slot_num, dependencies past
	 * the caps); at GRAPH_CREATE, an edge outside the graph or not from
	 * an earlier node to a later one, or a node that names dependencies
	 * or is itself a launch; detail = the field (launch) or the edge.
	 */
	DRM_PTO_NPU_REASON_GRAPH = 20,
	/**
	 * @DRM_PTO_NPU_REASON_BINDING: a launch's bindings do not match the
	 * graph: fewer or more tensors or scalars than its parameters, or a
	 * tensor whose dtype, ndim, shape, strides or direction differ from
	 * the recorded one; at GRAPH_CREATE, a binding naming no node,
	 * argument or parameter, a parameter unused, or bound to arguments
	 * of different layouts; detail = the parameter (or binding) index.
	 */
	DRM_PTO_NPU_REASON_BINDING = 21,
};

/*
 * DRM_PTO_NPU_MAX_INFERRED_DEPS - dependencies the device infers for one
 * task at most (DRM_PTO_NPU_REASON_INFERRED_DEPS past it).
 */
#define DRM_PTO_NPU_MAX_INFERRED_DEPS 1024

/* CQE flags, &drm_pto_npu_cqe.flags. */
/** DRM_PTO_NPU_CQE_F_LAST: last CQE of its task; status is the task's. */
#define DRM_PTO_NPU_CQE_F_LAST _BITUL(0)
/** DRM_PTO_NPU_CQE_F_RAN: this block ran on @core (timestamps valid). */
#define DRM_PTO_NPU_CQE_F_RAN _BITUL(1)
/** DRM_PTO_NPU_CQE_F_STAGED: this unit was pre-staged (allow_early_resolve). */
#define DRM_PTO_NPU_CQE_F_STAGED _BITUL(2)
/**
 * DRM_PTO_NPU_CQE_F_HAZARD: the sanitizer found a hazard; the queue's
 * &struct drm_pto_npu_hazard beside this CQE describes it.
 */
#define DRM_PTO_NPU_CQE_F_HAZARD _BITUL(3)
/**
 * DRM_PTO_NPU_CQE_F_GRAPH: the CQE of a graph launch (uapi 7), its only
 * one and LAST: @status is the first failing node's (in completion order;
 * SKIPPED nodes do not fail), @block that node's index (0 if none failed),
 * @detail its detail; the timestamps span the launch, from its first
 * node's dispatch to its last node's finish.
 */
#define DRM_PTO_NPU_CQE_F_GRAPH _BITUL(4)
/**
 * DRM_PTO_NPU_CQE_F_NODE: a CQE of one node of a graph launch, posted only
 * on a profiling queue, before the launch's own CQE: one per unit as for an
 * entry, with the launch's @task_id and the node's entry's @user_data (the
 * node's LAST CQE has DRM_PTO_NPU_CQE_F_LAST).
 */
#define DRM_PTO_NPU_CQE_F_NODE _BITUL(5)

/**
 * struct drm_pto_npu_cqe - one completion entry
 *
 * A task that ran posts one CQE per block, the last one flagged
 * DRM_PTO_NPU_CQE_F_LAST and carrying the task's status. A task that never
 * ran (refused, skipped, dependency failed, cancelled) posts one CQE.
 * Timestamps are CLOCK_MONOTONIC nanoseconds.
 */
struct drm_pto_npu_cqe {
	/** @user_data: from the SQ entry. */
	__u64 user_data;
	/** @task_id: id the entry was given when taken. */
	__u64 task_id;
	/** @status: &enum drm_pto_npu_status of this block (LAST: of the task). */
	__s32 status;
	/** @block: block index. */
	__u32 block;
	/** @core: core index among cores of @core_type. */
	__u16 core;
	/** @core_type: &enum pto_core_type, 0 if the block never ran. */
	__u8 core_type;
	/** @reason: &enum drm_pto_npu_reason for STATUS_INVALID. */
	__u8 reason;
	/** @flags: DRM_PTO_NPU_CQE_F_*. */
	__u32 flags;
	/** @detail: status-specific detail (fault location, argument index). */
	__u64 detail;
	/**
	 * @ts_dispatch: the scheduler placed the block on @core; a pre-staged
	 * unit (DRM_PTO_NPU_CQE_F_STAGED): when it was staged there, before
	 * its producers ended.
	 */
	__u64 ts_dispatch;
	/**
	 * @ts_receive: the core took the block: its thread picked the unit
	 * up; a pre-staged unit: the doorbell its last producer's end rang.
	 */
	__u64 ts_receive;
	/** @ts_start: the kernel's first instruction. */
	__u64 ts_start;
	/** @ts_end: the kernel returned. */
	__u64 ts_end;
	/**
	 * @ts_finish: the scheduler observed the completion; for a task that
	 * never ran (refused, skipped, dependency failed) when it retired.
	 */
	__u64 ts_finish;
};

/**
 * enum drm_pto_npu_wait_kind - what a unit waited for (&drm_pto_npu_wait.kind)
 */
enum drm_pto_npu_wait_kind {
	/** @DRM_PTO_NPU_WAIT_NONE: no wait (an unused record). */
	DRM_PTO_NPU_WAIT_NONE = 0,
	/**
	 * @DRM_PTO_NPU_WAIT_STAGED: pre-staged on its core (allow_early_resolve)
	 * from its placement to the doorbell its producer's end rang.
	 */
	DRM_PTO_NPU_WAIT_STAGED = 1,
	/** @DRM_PTO_NPU_WAIT_RING_POP: a POP from the empty cross-core ring. */
	DRM_PTO_NPU_WAIT_RING_POP = 2,
	/** @DRM_PTO_NPU_WAIT_RING_PUSH: a PUSH to the full cross-core ring. */
	DRM_PTO_NPU_WAIT_RING_PUSH = 3,
	/**
	 * @DRM_PTO_NPU_WAIT_BARRIER_HARD: a HARD SYNCALL, from this block's
	 * arrival to its release (the same instant for the last to arrive).
	 */
	DRM_PTO_NPU_WAIT_BARRIER_HARD = 4,
	/** @DRM_PTO_NPU_WAIT_BARRIER_SOFT: a SOFT SYNCALL, arrival to release. */
	DRM_PTO_NPU_WAIT_BARRIER_SOFT = 5,
};

/**
 * struct drm_pto_npu_wait - one interval a unit spent waiting, not working
 */
struct drm_pto_npu_wait {
	/** @begin: CLOCK_MONOTONIC ns the wait began (barrier: arrival). */
	__u64 begin;
	/** @end: CLOCK_MONOTONIC ns it ended (barrier: release). */
	__u64 end;
	/** @kind: &enum drm_pto_npu_wait_kind. */
	__u32 kind;
	/** @pc: index of the instruction that waited (0 for STAGED). */
	__u32 pc;
};

/** DRM_PTO_NPU_PROF_WAITS: waits a profile record lists. */
#define DRM_PTO_NPU_PROF_WAITS 6

/**
 * DRM_PTO_NPU_SCHED_F_STAGED: the unit was placed pre-staged
 * (allow_early_resolve): its placement was an early dispatch.
 */
#define DRM_PTO_NPU_SCHED_F_STAGED _BITUL(0)
/**
 * DRM_PTO_NPU_SCHED_F_EARLY: the unit's end released a pre-staged
 * consumer first; the scheduler retired the unit once that consumer had
 * started (@complete_begin is later than the CQE's ts_finish).
 */
#define DRM_PTO_NPU_SCHED_F_EARLY _BITUL(1)

/**
 * struct drm_pto_npu_sched - the emulated scheduler's work for one unit
 *
 * All scheduler work is done under one lock, by whichever thread has it
 * (the doorbell for an intake, the worker that ran a unit for its end): it
 * is one scheduler thread, whose *iterations* are numbered per device,
 * increasing (counted while some queue of the device profiles, so not
 * contiguous). An iteration is one intake or one unit's end, with the
 * placements it made. Intervals are CLOCK_MONOTONIC ns, 0 when the work
 * did not happen (a task that never ran was not dispatched). The intake
 * and resolve fields are the task's, the same in each of its records.
 */
struct drm_pto_npu_sched {
	/** @intake_begin: the doorbell began taking the task's entry. */
	__u64 intake_begin;
	/**
	 * @intake_end: the task joined the scheduler: its dependencies
	 * linked, ready or waiting (before any placement).
	 */
	__u64 intake_end;
	/** @resolve_begin: at its completion, the walk of its consumers began. */
	__u64 resolve_begin;
	/** @resolve_end: the walk ended: consumers released or pre-staged. */
	__u64 resolve_end;
	/**
	 * @dispatch_begin: the placement pass that placed the unit began (its
	 * first placement; the CQE's ts_dispatch).
	 */
	__u64 dispatch_begin;
	/** @dispatch_end: this unit's placement was done. */
	__u64 dispatch_end;
	/** @complete_begin: the scheduler began handling the unit's end. */
	__u64 complete_begin;
	/**
	 * @complete_end: it was handled: the unit's core freed and, for the
	 * task's last unit, the task completed (resolve included), before
	 * the next placement pass.
	 */
	__u64 complete_end;
	/** @intake_iter: the task's intake iteration. */
	__u32 intake_iter;
	/** @resolve_iter: the iteration that completed the task. */
	__u32 resolve_iter;
	/** @dispatch_iter: the iteration that placed the unit. */
	__u32 dispatch_iter;
	/** @complete_iter: the iteration that handled the unit's end. */
	__u32 complete_iter;
	/** @resolved: consumers the resolve walk visited. */
	__u32 resolved;
	/** @flags: DRM_PTO_NPU_SCHED_F_* bits. */
	__u32 flags;
};

/**
 * struct drm_pto_npu_prof - profile record of one CQE (one unit)
 *
 * Written with its CQE, at the same index, by a queue created with
 * DRM_PTO_NPU_QUEUE_F_PROFILE. The CQE's bar (ts_start to ts_end) is the
 * unit's run; the waits say which parts of it were not work; @sched what
 * the scheduler did for it. A CQE of a task that never ran has no waits
 * and only the task's scheduler fields. Records are
 * &drm_pto_npu_queue_create.prof_size apart: later versions may append
 * fields, and a reader takes the part it knows.
 */
struct drm_pto_npu_prof {
	/** @nwaits: waits of the unit (may exceed DRM_PTO_NPU_PROF_WAITS). */
	__u32 nwaits;
	/** @pad: zero. */
	__u32 pad;
	/** @wait_ns: their total length, those not listed included. */
	__u64 wait_ns;
	/** @waits: the first min(@nwaits, DRM_PTO_NPU_PROF_WAITS), in order. */
	struct drm_pto_npu_wait waits[DRM_PTO_NPU_PROF_WAITS];
	/** @sched: the scheduler's work for the unit (uapi 6). */
	struct drm_pto_npu_sched sched;
};

/**
 * enum drm_pto_npu_hazard_kind - what the sanitizer found
 * (&drm_pto_npu_hazard.kind)
 */
enum drm_pto_npu_hazard_kind {
	/** @DRM_PTO_NPU_HAZARD_NONE: no hazard (an unused record). */
	DRM_PTO_NPU_HAZARD_NONE = 0,
	/**
	 * @DRM_PTO_NPU_HAZARD_STALE_READ: a load of a line another unit of the
	 * task stored to and fenced after this unit's last CACHEINVALID (or
	 * its block start): on the chip it may read a stale cached line.
	 */
	DRM_PTO_NPU_HAZARD_STALE_READ = 1,
	/**
	 * @DRM_PTO_NPU_HAZARD_UNFENCED: a load of a line another unit of the
	 * task stored to and has not fenced (a store left unfenced before
	 * its syncall arrival): on the chip it may still sit in that core's
	 * cache.
	 */
	DRM_PTO_NPU_HAZARD_UNFENCED = 2,
	/**
	 * @DRM_PTO_NPU_HAZARD_PREDICATE: the predicate operand's last writer
	 * is unfinished or not among the task's (explicit or inferred)
	 * dependencies: the dispatch-point read can see stale data.
	 */
	DRM_PTO_NPU_HAZARD_PREDICATE = 3,
	/**
	 * @DRM_PTO_NPU_HAZARD_RACE: the task and an earlier one touch
	 * overlapping GM, at least one writing, with no dependency path
	 * between them (found at intake).
	 */
	DRM_PTO_NPU_HAZARD_RACE = 4,
};

/**
 * struct drm_pto_npu_hazard - a sanitizer report (one CQE)
 *
 * Written with its CQE, at the same index, by a queue created with
 * DRM_PTO_NPU_QUEUE_F_SANITIZE; valid when the CQE has
 * DRM_PTO_NPU_CQE_F_HAZARD. A unit reports the first hazard it met; a
 * hazard found at intake (PREDICATE, RACE) is reported by the task's
 * DRM_PTO_NPU_CQE_F_LAST CQE unless that unit met one of its own.
 * Hazards change no status: the task runs as it would on the chip.
 */
struct drm_pto_npu_hazard {
	/** @kind: &enum drm_pto_npu_hazard_kind. */
	__u32 kind;
	/** @count: hazards the unit (or task, at intake) met, this one included. */
	__u32 count;
	/** @pc: the instruction of this unit that met it (0 at intake). */
	__u32 pc;
	/** @tensor: this task's tensor argument. */
	__u32 tensor;
	/** @elem: element offset in @tensor's view (2-D: row * cols + col). */
	__u64 elem;
	/** @other_task: id of the task on the other side (this one: in-task). */
	__u64 other_task;
	/** @other_pc: the other side's instruction (0 at intake). */
	__u32 other_pc;
	/** @other_block: the other side's block. */
	__u32 other_block;
	/** @other_core: the other side's core, among cores of its type. */
	__u16 other_core;
	/** @other_core_type: &enum pto_core_type, 0 at intake. */
	__u8 other_core_type;
	/** @other_tensor: the other task's tensor argument. */
	__u8 other_tensor;
	/**
	 * @node: uapi 9: one more than the node of this launch that met it
	 * (@tensor is that node's argument); 0 when this is not a launch's
	 * CQE or the hazard is on the launch's bound tensors.
	 */
	__u16 node;
	/**
	 * @other_node: uapi 9: one more than the node of @other_task, a
	 * launch, on the other side (@other_tensor is that node's argument);
	 * 0 when the other side is not a node.
	 */
	__u16 other_node;
};

/* Queue flags, &drm_pto_npu_queue_create.flags. */
/**
 * DRM_PTO_NPU_QUEUE_F_PROFILE: each CQE has a &struct drm_pto_npu_prof
 * (DRM_PTO_NPU_CAP_PROFILE).
 */
#define DRM_PTO_NPU_QUEUE_F_PROFILE _BITUL(0)
/**
 * DRM_PTO_NPU_QUEUE_F_SANITIZE: check GM hazards; each CQE has a
 * &struct drm_pto_npu_hazard (DRM_PTO_NPU_CAP_MEMORY_MODEL). The module
 * parameter sanitize turns it on for every queue.
 */
#define DRM_PTO_NPU_QUEUE_F_SANITIZE _BITUL(1)
/**
 * DRM_PTO_NPU_QUEUE_F_COHERENT: GM is coherent for this queue's tasks
 * (every store visible at once), whatever the module parameter
 * noncoherent says.
 */
#define DRM_PTO_NPU_QUEUE_F_COHERENT _BITUL(2)
/**
 * DRM_PTO_NPU_QUEUE_F_NONCOHERENT: GM as on the chip for this queue's
 * tasks: each core sees it through its own view (stores visible to other
 * cores at FENCE or block end, loads stale until CACHEINVALID), whatever
 * the module parameter says. Not with _COHERENT.
 */
#define DRM_PTO_NPU_QUEUE_F_NONCOHERENT _BITUL(3)
/** DRM_PTO_NPU_QUEUE_F_ALL: queue flags this module knows. */
#define DRM_PTO_NPU_QUEUE_F_ALL (DRM_PTO_NPU_QUEUE_F_PROFILE | \
				 DRM_PTO_NPU_QUEUE_F_SANITIZE | \
				 DRM_PTO_NPU_QUEUE_F_COHERENT | \
				 DRM_PTO_NPU_QUEUE_F_NONCOHERENT)

/**
 * struct drm_pto_npu_queue_create - DRM_IOCTL_PTO_NPU_QUEUE_CREATE
 */
struct drm_pto_npu_queue_create {
	/** @sq_slots: in: power of two, 0 for the default (1024); out: actual. */
	__u32 sq_slots;
	/** @cq_entries: in: power of two, 0 for 4 * @sq_slots; out: actual. */
	__u32 cq_entries;
	/** @flags: DRM_PTO_NPU_QUEUE_F_* bits, others zero. */
	__u32 flags;
	/** @queue_id: out: queue id, never 0. */
	__u32 queue_id;
	/**
	 * @handle: out: GEM handle of the ring memory (mmap it; closing it
	 * does not destroy the queue).
	 */
	__u32 handle;
	/** @pad: must be zero. */
	__u32 pad;
	/** @mmap_offset: out: mmap offset of the ring memory. */
	__u64 mmap_offset;
	/** @ring_size: out: bytes to map. */
	__u64 ring_size;
	/** @sq_offset: out: byte offset of SQ slot 0. */
	__u32 sq_offset;
	/** @cq_offset: out: byte offset of CQE 0. */
	__u32 cq_offset;
	/**
	 * @work_budget: in: instructions each unit of this queue's tasks may
	 * execute (&drm_pto_npu_limits.min_work_budget to .max_work_budget),
	 * 0 for the device's default; out: the budget in effect. Past the
	 * module parameter max_user_work_budget (by default the default
	 * budget) a caller needs CAP_SYS_NICE: -EPERM. Appended:
	 * a caller built with an older header passes a shorter struct, which
	 * the DRM core zero-extends.
	 */
	__u64 work_budget;
	/**
	 * @prof_offset: out: with DRM_PTO_NPU_QUEUE_F_PROFILE, byte offset of
	 * the profile records in the ring memory: the record of CQE i is at
	 * @prof_offset + i * @prof_size; else 0. Appended, as @work_budget.
	 */
	__u32 prof_offset;
	/** @prof_size: out: sizeof(struct drm_pto_npu_prof) with the flag, else 0. */
	__u32 prof_size;
	/**
	 * @haz_offset: out: with DRM_PTO_NPU_QUEUE_F_SANITIZE (or the module
	 * parameter sanitize), byte offset of the hazard records: the record
	 * of CQE i is at @haz_offset + i * @haz_size; else 0. Appended.
	 */
	__u32 haz_offset;
	/** @haz_size: out: sizeof(struct drm_pto_npu_hazard) when sanitizing, else 0. */
	__u32 haz_size;
	/**
	 * @gm_model: out: 1 if the queue's tasks see non-coherent GM, 0 if
	 * coherent. Appended.
	 */
	__u32 gm_model;
	/** @pad2: must be zero. */
	__u32 pad2;
};

/**
 * struct drm_pto_npu_queue_destroy - DRM_IOCTL_PTO_NPU_QUEUE_DESTROY
 *
 * -EBUSY while tasks taken from the queue are in flight or held.
 */
struct drm_pto_npu_queue_destroy {
	/** @queue_id: queue id. */
	__u32 queue_id;
	/** @pad: must be zero. */
	__u32 pad;
};

/**
 * struct drm_pto_npu_queue_submit - DRM_IOCTL_PTO_NPU_QUEUE_SUBMIT (doorbell)
 *
 * Takes every entry published between sq_head and sq_tail, in order, until
 * the context's in-flight cap is reached (back-pressure: the rest stay in
 * the ring; @consumed says how many were taken). Invalid entries are taken
 * too and complete at once with STATUS_INVALID.
 */
struct drm_pto_npu_queue_submit {
	/** @queue_id: queue id. */
	__u32 queue_id;
	/** @flags: must be zero. */
	__u32 flags;
	/** @syncobj: 0, or a syncobj that signals when every task taken here retires. */
	__u32 syncobj;
	/** @consumed: out: entries taken. */
	__u32 consumed;
	/** @syncobj_point: timeline point for @syncobj, 0 for a binary syncobj. */
	__u64 syncobj_point;
	/** @first_task_id: out: id given to the first entry taken. */
	__u64 first_task_id;
};

/**
 * struct drm_pto_npu_queue_wait - DRM_IOCTL_PTO_NPU_QUEUE_WAIT
 *
 * Moves held completions into free CQ space, then waits until at least one
 * CQE is unconsumed or @timeout_ns (absolute CLOCK_MONOTONIC) passes
 * (-ETIME). @timeout_ns 0 does not wait.
 */
struct drm_pto_npu_queue_wait {
	/** @queue_id: queue id. */
	__u32 queue_id;
	/** @flags: must be zero. */
	__u32 flags;
	/** @timeout_ns: absolute CLOCK_MONOTONIC deadline. */
	__s64 timeout_ns;
	/** @available: out: unconsumed CQEs. */
	__u32 available;
	/** @inflight: out: tasks of this queue not yet fully posted. */
	__u32 inflight;
};

/*
 * Graph replay (uapi 7): a task graph recorded once with
 * DRM_IOCTL_PTO_NPU_GRAPH_CREATE, validated completely there, and run any
 * number of times by one SQ entry each (DRM_PTO_NPU_TASK_F_GRAPH), whose
 * tensors and scalars are bound to the graph's parameters at launch.
 * Documentation/techniques/graph-replay.rst.
 */

/** DRM_PTO_NPU_GRAPH_EDGE_F_INFERRED: the edge orders only (as an inferred dependency). */
#define DRM_PTO_NPU_GRAPH_EDGE_F_INFERRED _BITUL(0)

/**
 * struct drm_pto_npu_graph_edge - "node @consumer depends on node @producer"
 */
struct drm_pto_npu_graph_edge {
	/** @producer: node index, less than @consumer. */
	__u32 producer;
	/** @consumer: node index, below &drm_pto_npu_graph_create.num_nodes. */
	__u32 consumer;
	/**
	 * @flags: DRM_PTO_NPU_GRAPH_EDGE_F_INFERRED or 0. A named edge
	 * passes a failure on (the consumer ends DEP_FAILED), an inferred
	 * one only orders, as for entries.
	 */
	__u32 flags;
	/** @pad: must be zero. */
	__u32 pad;
};

/** enum drm_pto_npu_binding_kind - what a binding binds */
enum drm_pto_npu_binding_kind {
	/** @DRM_PTO_NPU_BIND_TENSOR: a tensor argument of a node. */
	DRM_PTO_NPU_BIND_TENSOR = 0,
	/** @DRM_PTO_NPU_BIND_SCALAR: a scalar argument of a node. */
	DRM_PTO_NPU_BIND_SCALAR = 1,
};

/**
 * struct drm_pto_npu_graph_binding - a node argument set at each launch
 *
 * Tensor parameter @param of a launch replaces tensor argument @arg of node
 * @node (its buffer and offset; the layout and direction must be the
 * recorded ones); scalar parameter @param replaces scalar argument @arg.
 * One parameter may be bound to several arguments; each must be used.
 */
struct drm_pto_npu_graph_binding {
	/** @node: node index. */
	__u32 node;
	/** @kind: &enum drm_pto_npu_binding_kind. */
	__u8 kind;
	/** @arg: argument index in the node's entry. */
	__u8 arg;
	/** @param: parameter index (tensors and scalars counted apart). */
	__u16 param;
};

/**
 * enum drm_pto_npu_graph_detail - &drm_pto_npu_graph_create.error_detail
 * of a GRAPH_CREATE refused with DRM_PTO_NPU_REASON_GRAPH
 */
enum drm_pto_npu_graph_detail {
	/**
	 * @DRM_PTO_NPU_GRAPH_EDGE_BACKWARD: edge @error_node's producer is
	 * not an earlier node than its consumer; or node @error_node is a
	 * launch.
	 */
	DRM_PTO_NPU_GRAPH_EDGE_BACKWARD = 0,
	/**
	 * @DRM_PTO_NPU_GRAPH_EDGE_OUTSIDE: edge @error_node's consumer is
	 * outside the graph; or node @error_node names dependencies.
	 */
	DRM_PTO_NPU_GRAPH_EDGE_OUTSIDE = 1,
	/**
	 * @DRM_PTO_NPU_GRAPH_EDGE_FANIN: edge @error_node is one more into
	 * its consumer than &drm_pto_npu_limits.max_deps (uapi 8).
	 */
	DRM_PTO_NPU_GRAPH_EDGE_FANIN = 2,
	/**
	 * @DRM_PTO_NPU_GRAPH_EDGE_DUPLICATE: edge @error_node repeats an
	 * earlier edge's producer and consumer (uapi 8).
	 */
	DRM_PTO_NPU_GRAPH_EDGE_DUPLICATE = 3,
	/**
	 * @DRM_PTO_NPU_GRAPH_UNITS: with node @error_node the graph's block
	 * records and its launch's own one pass
	 * &drm_pto_npu_limits.max_inflight_units: no launch of it could ever
	 * be taken (uapi 8).
	 */
	DRM_PTO_NPU_GRAPH_UNITS = 4,
	/**
	 * @DRM_PTO_NPU_GRAPH_INFERRED: node @error_node's accesses overlap
	 * earlier nodes' (directed, one of them writing) with no edge or
	 * path between them, and the edges inferred for them would take its
	 * fanin past &drm_pto_npu_limits.max_deps, or its inference would
	 * look at more than four times DRM_PTO_NPU_MAX_INFERRED_DEPS earlier
	 * accesses (uapi 9).
	 */
	DRM_PTO_NPU_GRAPH_INFERRED = 5,
};

/**
 * struct drm_pto_npu_graph_create - DRM_IOCTL_PTO_NPU_GRAPH_CREATE
 *
 * @entries holds @num_nodes SQ entries back to back, each exactly as it
 * would be written to an SQ (&struct drm_pto_npu_sqe and its body,
 * @num_slots slots of 64 bytes), without dependencies (@num_deps 0): the
 * edges say them. Every entry is validated as the doorbell validates one,
 * with the recorded buffers; the kernels and buffers stay referenced by
 * the graph until it is destroyed and its last launch has retired.
 *
 * Errors: -EINVAL for flags, pads, counts over the caps, and any refused
 * node, edge or binding: then @error_node names it (~0 if none),
 * @error_reason says why (&enum drm_pto_npu_reason) and @error_detail
 * what, as a CQE would (&enum drm_pto_npu_graph_detail for
 * DRM_PTO_NPU_REASON_GRAPH); -EFAULT (pointers); -ENOSPC (the context's
 * recorded nodes over &drm_pto_npu_limits.max_graph_nodes_per_context);
 * -ENOMEM.
 */
struct drm_pto_npu_graph_create {
	/** @entries: user pointer to @entries_size bytes of SQ entries. */
	__u64 entries;
	/** @edges: user pointer to @num_edges &struct drm_pto_npu_graph_edge. */
	__u64 edges;
	/** @bindings: user pointer to @num_bindings &struct drm_pto_npu_graph_binding. */
	__u64 bindings;
	/** @entries_size: bytes at @entries, a multiple of 64. */
	__u32 entries_size;
	/** @num_nodes: 1..&drm_pto_npu_limits.max_graph_nodes. */
	__u32 num_nodes;
	/** @num_edges: 0..&drm_pto_npu_limits.max_graph_edges. */
	__u32 num_edges;
	/** @num_bindings: 0..&drm_pto_npu_limits.max_graph_bindings. */
	__u32 num_bindings;
	/** @num_tensor_params: tensors a launch binds (up to the task tensor cap). */
	__u32 num_tensor_params;
	/** @num_scalar_params: scalars a launch binds (up to the task scalar cap). */
	__u32 num_scalar_params;
	/** @flags: must be zero. */
	__u32 flags;
	/** @handle: out: graph handle, never 0. */
	__u32 handle;
	/** @error_node: out: the refused node (edge, binding), ~0 if none. */
	__u32 error_node;
	/** @error_reason: out: &enum drm_pto_npu_reason, 0 if none. */
	__u32 error_reason;
	/** @error_detail: out: the refusal's detail. */
	__u64 error_detail;
};

/**
 * struct drm_pto_npu_graph_destroy - DRM_IOCTL_PTO_NPU_GRAPH_DESTROY
 *
 * The handle is gone at once; launches already taken keep the graph alive
 * until they retire (the destroy is deferred, never refused). -ENOENT for
 * an unknown handle.
 */
struct drm_pto_npu_graph_destroy {
	/** @handle: graph handle. */
	__u32 handle;
	/** @pad: must be zero. */
	__u32 pad;
};

#define DRM_IOCTL_PTO_NPU_QUERY \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_PTO_NPU_QUERY, struct drm_pto_npu_query)
#define DRM_IOCTL_PTO_NPU_BO_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_PTO_NPU_BO_CREATE, \
		 struct drm_pto_npu_bo_create)
#define DRM_IOCTL_PTO_NPU_BO_INFO \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_PTO_NPU_BO_INFO, \
		 struct drm_pto_npu_bo_info)
#define DRM_IOCTL_PTO_NPU_KERNEL_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_PTO_NPU_KERNEL_CREATE, \
		 struct drm_pto_npu_kernel_create)
#define DRM_IOCTL_PTO_NPU_KERNEL_DESTROY \
	DRM_IOW(DRM_COMMAND_BASE + DRM_PTO_NPU_KERNEL_DESTROY, \
		struct drm_pto_npu_kernel_destroy)
#define DRM_IOCTL_PTO_NPU_QUEUE_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_PTO_NPU_QUEUE_CREATE, \
		 struct drm_pto_npu_queue_create)
#define DRM_IOCTL_PTO_NPU_QUEUE_DESTROY \
	DRM_IOW(DRM_COMMAND_BASE + DRM_PTO_NPU_QUEUE_DESTROY, \
		struct drm_pto_npu_queue_destroy)
#define DRM_IOCTL_PTO_NPU_QUEUE_SUBMIT \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_PTO_NPU_QUEUE_SUBMIT, \
		 struct drm_pto_npu_queue_submit)
#define DRM_IOCTL_PTO_NPU_QUEUE_WAIT \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_PTO_NPU_QUEUE_WAIT, \
		 struct drm_pto_npu_queue_wait)
#define DRM_IOCTL_PTO_NPU_GRAPH_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_PTO_NPU_GRAPH_CREATE, \
		 struct drm_pto_npu_graph_create)
#define DRM_IOCTL_PTO_NPU_GRAPH_DESTROY \
	DRM_IOW(DRM_COMMAND_BASE + DRM_PTO_NPU_GRAPH_DESTROY, \
		struct drm_pto_npu_graph_destroy)

#if defined(__cplusplus)
}
#endif

#endif /* _UAPI_PTO_NPU_ACCEL_H_ */
