/* SPDX-License-Identifier: GPL-2.0-only */
/* Copyright (C) 2026 pto-npu authors */
#ifndef __PTO_DRV_H__
#define __PTO_DRV_H__

#include <linux/atomic.h>
#include <linux/hashtable.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/xarray.h>
#include <linux/memcontrol.h>
#include <drm/drm_device.h>

#include "pto_infer.h"
#include <drm/drm_gem_shmem_helper.h>

#include "pto_compat.h"
#include "pto_npu_accel.h"

#define PTO_DRIVER_NAME "pto_npu"

/* Topology bounds accepted for the module parameters. */
#define PTO_MAX_CLUSTERS 64
#define PTO_AIV_PER_CLUSTER 2
#define PTO_MAX_DEVICES 8
#define PTO_MIN_TIMEOUT_MS 100
#define PTO_MAX_TIMEOUT_MS 600000
/*
 * Instructions a unit may execute (module parameter work_budget, per queue
 * at creation): bounds a runaway kernel by its work, the same on every
 * host. The default ends an endless kernel on every core of the default
 * topology within seconds in the 2-vCPU test VM (debug kernel: about
 * 3 x 10^6 instructions a second in all, Documentation/robustness.rst),
 * far more than the project's kernels execute.
 *
 * The largest budget a queue may ask for is the module parameter
 * max_work_budget (PTO_DEFAULT_MAX_WORK_BUDGET), at most
 * PTO_WORK_BUDGET_CEILING, and for a caller without CAP_SYS_NICE the
 * parameter max_user_work_budget (by default the default budget): how
 * long one user may hold a core with one unit while others wait is the
 * administrator's choice.
 */
#define PTO_DEFAULT_WORK_BUDGET BIT_ULL(18)
#define PTO_MIN_WORK_BUDGET BIT_ULL(10)
#define PTO_DEFAULT_MAX_WORK_BUDGET BIT_ULL(40)
#define PTO_WORK_BUDGET_CEILING BIT_ULL(48)
#define PTO_MIN_LOCAL_BUF SZ_16K
#define PTO_MAX_LOCAL_BUF SZ_4M

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
#define PTO_MAX_BO_SIZE ((u64)SZ_256M)
#define PTO_MAX_GM_PER_CONTEXT ((u64)SZ_1G)
#define PTO_MAX_BOS_PER_CONTEXT 4096
/* Graph replay (pto_graph.c): one graph, and a context's recorded nodes. */
#define PTO_MAX_GRAPH_NODES 4096
#define PTO_MAX_GRAPH_EDGES 65536
#define PTO_MAX_GRAPH_BINDINGS 4096
#define PTO_MAX_GRAPH_NODES_PER_CONTEXT 16384

/**
 * struct pto_topology - shape of one virtual NPU
 * @clusters: clusters (1 AIC + 2 AIV each)
 * @aiv_ub: AIV unified buffer bytes
 * @aic_l1: AIC L1 bytes
 * @aic_l0a: AIC L0A bytes
 * @aic_l0b: AIC L0B bytes
 * @aic_l0c: AIC L0C bytes
 */
struct pto_topology {
	u32 clusters;
	u32 aiv_ub;
	u32 aic_l1;
	u32 aic_l0a;
	u32 aic_l0b;
	u32 aic_l0c;
};

/**
 * struct pto_gm_account - GM and kernels held by one context, outliving it
 * while any of its buffers is still mapped or any of its kernels alive
 * @ref: one for the context, one per live buffer, one per live kernel
 * @bos: live buffers
 * @bytes: live bytes
 * @kernels: live kernels: with a handle, or held by a task or a recorded
 *           graph after their handle was destroyed
 */
struct pto_gm_account {
	struct kref ref;
	atomic64_t bos;
	atomic64_t bytes;
	atomic_t kernels;
};

struct pto_sched;

/*
 * Index of a core type in the per-type arrays (cores, idle maps, a task's
 * kernels): enum pto_core_type is uapi and starts at 1.
 */
enum pto_cidx {
	PTO_AIV,
	PTO_AIC,
	PTO_NUM_CIDX,
};

/* The ready queues: one per core type, one of whole clusters (mixed). */
enum pto_rq {
	PTO_RQ_AIV = PTO_AIV,
	PTO_RQ_AIC = PTO_AIC,
	PTO_RQ_MIX,
	PTO_NUM_RQ,
};

/* The per-type index of enum pto_core_type @core_type (AIV or AIC). */
static inline enum pto_cidx pto_type_cidx(u32 core_type)
{
	return core_type == PTO_CORE_AIC ? PTO_AIC : PTO_AIV;
}

/* The enum pto_core_type of per-type index @i. */
static inline u32 pto_cidx_core_type(enum pto_cidx i)
{
	return i == PTO_AIC ? PTO_CORE_AIC : PTO_CORE_AIV;
}

/**
 * struct pto_counters - what DRM_PTO_NPU_QUERY_COUNTERS reports
 * @c: one counter per __u64 of struct drm_pto_npu_counters, same order
 */
struct pto_counters {
	atomic64_t c[sizeof(struct drm_pto_npu_counters) / sizeof(__u64)];
};

#define PTO_CNT(field) (offsetof(struct drm_pto_npu_counters, field) / sizeof(__u64))
#define pto_count(pdev, field) atomic64_inc(&(pdev)->counters.c[PTO_CNT(field)])

/**
 * struct pto_device - one virtual NPU instance
 * @drm: the DRM accel device
 * @plat: platform device it hangs from
 * @index: instance number
 * @topo: topology, fixed at creation
 * @bos: live GM buffers of all contexts
 * @bytes: live GM bytes of all contexts
 * @sched: the emulated AICPU scheduler and the virtual cores
 * @counters: event counters
 * @inject_hang: fault injection (debugfs): units that stall when they
 *	start, until cancelled or timed out
 */
struct pto_device {
	struct drm_device drm;
	struct platform_device *plat;
	u32 index;
	struct pto_topology topo;
	atomic64_t bos;
	atomic64_t bytes;
	struct pto_sched *sched;
	struct pto_counters counters;
	atomic_t inject_hang;
};

/* Buckets of a context's task and failed-task hashes (2^bits). */
#define PTO_TASK_HASH_BITS 10

/**
 * struct pto_failed - a failed task remembered for later dependents
 * @node: in pto_ctx.failed
 * @link: in pto_ctx.failed_fifo
 * @id: task id
 * @status: how it ended
 */
struct pto_failed {
	struct hlist_node node;
	struct list_head link;
	u64 id;
	s32 status;
};

/**
 * struct pto_ctx - per open file state (a context)
 * @pdev: device
 * @gm: GM accounting shared with the buffers this context created
 * @kernels: kernel handles
 * @queues: dispatch queues
 * @tasks: tasks taken and not yet complete, hashed by id (deps look them
 *         up; sched lock). A hash of nodes embedded in the tasks: intake
 *         and completion never allocate, unlike an xarray whose leaf nodes
 *         come and go with every task that completes at intake.
 * @failed: records of recently failed tasks, hashed by id (sched lock)
 * @failed_fifo: the same records, oldest first (sched lock)
 * @next_id: id of the next entry taken (submit_lock)
 * @inflight: tasks taken and not yet freed
 * @pending: tasks taken whose CQEs are not all posted, a launch's nodes
 *           among them until they end (the in-flight cap)
 * @inflight_units: block records (units) the @pending tasks hold
 * @live: list of those tasks (sched lock)
 * @dead: the file is closing: cancel everything (sched lock)
 * @wq: woken when CQEs are posted and when @inflight drops
 * @submit_lock: serialises doorbells (id order) and queue create/destroy
 * @scratch: one SQ entry copied out of the ring (submit_lock)
 * @uid: unique id of the context, never reused: the DRM client id (fdinfo drm-client-id)
 * @user: the opener's user id in the initial namespace (pto_user.c)
 * @memcg: the opener's memory cgroup, charged for what the cores allocate
 *         for the context's units (a reference; NULL without memcg)
 * @nfailed: records in @failed (sched lock)
 * @ready: its ready tasks per queue type, in order (sched lock)
 * @ready_link: in the scheduler's round robin of contexts with ready
 *	tasks, per queue type (sched lock)
 * @infer: accesses of its tasks in flight, for dependency inference
 *	(pto_infer.c)
 * @graphs: its recorded graphs by handle (pto_graph.c)
 * @graph_nodes: nodes of its graphs alive, handles destroyed or not
 */
struct pto_ctx {
	struct pto_device *pdev;
	struct pto_gm_account *gm;
	struct xarray kernels;
	struct xarray queues;
	struct xarray graphs;
	atomic_t graph_nodes;
	DECLARE_HASHTABLE(tasks, PTO_TASK_HASH_BITS);
	DECLARE_HASHTABLE(failed, PTO_TASK_HASH_BITS);
	struct list_head failed_fifo;
	u64 next_id;
	atomic_t inflight;
	atomic_t pending;
	atomic_t inflight_units;
	struct list_head live;
	bool dead;
	wait_queue_head_t wq;
	struct mutex submit_lock;	/* doorbells, queue create/destroy */
	void *scratch;
	u64 uid;
	unsigned long user;
	struct mem_cgroup *memcg;
	u32 nfailed;
	struct list_head ready[PTO_NUM_RQ];
	struct list_head ready_link[PTO_NUM_RQ];
	struct pto_infer_ctx infer;
};

/**
 * struct pto_bo - a GM buffer
 * @base: shmem GEM object
 * @gm: accounting of the context that created it
 * @vaddr: kernel mapping, made on first use by a task (pto_bo_vaddr())
 */
struct pto_bo {
	struct drm_gem_shmem_object base;
	struct pto_gm_account *gm;
	void *vaddr;
};

static inline struct pto_device *to_pto_device(struct drm_device *drm)
{
	return container_of(drm, struct pto_device, drm);
}

static inline struct pto_bo *to_pto_bo(struct drm_gem_object *obj)
{
	return container_of(to_drm_gem_shmem_obj(obj), struct pto_bo, base);
}

/*
 * Visible for the KUnit module only: static (VISIBLE_IF_KUNIT) on kernels
 * without KUnit, so declared only where they are not.
 */
#if IS_ENABLED(CONFIG_KUNIT)
/* pto_drv.c */
int pto_topology_validate(const struct pto_topology *topo);
u32 pto_query_copy_size(u32 user_size, u32 known_size);
/* pto_gem.c */
int pto_bo_size_check(u64 size, u64 *aligned);
#endif

u32 pto_clamped_timeout_ms(void);
u64 pto_default_work_budget(void);
u64 pto_max_work_budget(void);
u64 pto_caller_max_work_budget(bool audit);
bool pto_default_noncoherent(void);
bool pto_default_sanitize(void);

/* pto_debugfs.c */
void pto_debugfs_init(struct pto_device *pdev);

#endif /* __PTO_DRV_H__ */
