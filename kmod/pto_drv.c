// SPDX-License-Identifier: GPL-2.0-only
/*
 * pto_npu: module init/exit, device creation, the drm_driver and its ioctl
 * table, and the device query.
 *
 * Copyright (C) 2026 pto-npu authors
 */

#include <linux/capability.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <kunit/visibility.h>

#include <drm/drm_accel.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_ioctl.h>

#include "pto_deps.h"
#include "pto_gem.h"
#include "pto_gm.h"
#include "pto_graph.h"
#include "pto_kernel.h"
#include "pto_queue.h"
#include "pto_sched.h"
#include "pto_submit.h"
#include "pto_task_mem.h"
#include "pto_user.h"

static unsigned int clusters = 24;
module_param(clusters, uint, 0444);
MODULE_PARM_DESC(clusters, "Clusters per device, 1 AIC + 2 AIV each (1-64, default 24)");

static unsigned int aiv_ub_kib = 192;
module_param(aiv_ub_kib, uint, 0444);
MODULE_PARM_DESC(aiv_ub_kib, "AIV unified buffer in KiB (16-4096, default 192)");

static unsigned int aic_l1_kib = 512;
module_param(aic_l1_kib, uint, 0444);
MODULE_PARM_DESC(aic_l1_kib, "AIC L1 buffer in KiB (16-4096, default 512)");

static unsigned int aic_l0a_kib = 64;
module_param(aic_l0a_kib, uint, 0444);
MODULE_PARM_DESC(aic_l0a_kib, "AIC L0A buffer in KiB (16-4096, default 64)");

static unsigned int aic_l0b_kib = 64;
module_param(aic_l0b_kib, uint, 0444);
MODULE_PARM_DESC(aic_l0b_kib, "AIC L0B buffer in KiB (16-4096, default 64)");

static unsigned int aic_l0c_kib = 128;
module_param(aic_l0c_kib, uint, 0444);
MODULE_PARM_DESC(aic_l0c_kib, "AIC L0C buffer in KiB (16-4096, default 128)");

static unsigned int pto_timeout_ms = 10000;

static int pto_timeout_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, PTO_MIN_TIMEOUT_MS,
				     PTO_MAX_TIMEOUT_MS);
}

static const struct kernel_param_ops pto_timeout_ops = {
	.set = pto_timeout_set,
	.get = param_get_uint,
};

module_param_cb(timeout_ms, &pto_timeout_ops, &pto_timeout_ms, 0644);
MODULE_PARM_DESC(timeout_ms, "Last resort: longest a wait may go without its task making progress, and a hung core, in ms (100-600000, default 10000)");

static unsigned long long pto_work_budget = PTO_DEFAULT_WORK_BUDGET;
static unsigned long long pto_max_budget = PTO_DEFAULT_MAX_WORK_BUDGET;

static int pto_work_budget_set(const char *val, const struct kernel_param *kp)
{
	unsigned long long v;
	int ret = kstrtoull(val, 0, &v);

	if (ret)
		return ret;
	if (v < PTO_MIN_WORK_BUDGET || v > PTO_WORK_BUDGET_CEILING)
		return -EINVAL;
	WRITE_ONCE(*(unsigned long long *)kp->arg, v);
	return 0;
}

static const struct kernel_param_ops pto_work_budget_ops = {
	.set = pto_work_budget_set,
	.get = param_get_ullong,
};

module_param_cb(work_budget, &pto_work_budget_ops, &pto_work_budget, 0644);
MODULE_PARM_DESC(work_budget, "Instructions a unit may execute, for queues created without a budget (1024-2^48, at most max_work_budget, default 2^18)");

module_param_cb(max_work_budget, &pto_work_budget_ops, &pto_max_budget, 0644);
MODULE_PARM_DESC(max_work_budget, "Largest work budget a queue may ask for at creation (1024-2^48, default 2^40)");

static unsigned long long pto_user_budget = PTO_DEFAULT_WORK_BUDGET;
module_param_cb(max_user_work_budget, &pto_work_budget_ops, &pto_user_budget, 0644);
MODULE_PARM_DESC(max_user_work_budget, "Largest work budget a caller without CAP_SYS_NICE may ask for (1024-2^48, at most max_work_budget, default 2^18: the default budget)");

static bool pto_noncoherent = true;
module_param_named(noncoherent, pto_noncoherent, bool, 0644);
MODULE_PARM_DESC(noncoherent, "GM as on the chip for queues that do not choose: per-core views, stores visible at FENCE or block end, loads stale until CACHEINVALID (default 1)");

static bool pto_sanitize;
module_param_named(sanitize, pto_sanitize, bool, 0644);
MODULE_PARM_DESC(sanitize, "Check GM hazards on every queue (implies non-coherent GM unless the queue asks for coherent; default 0)");

/**
 * pto_default_noncoherent - non-coherent GM for queues that do not choose
 *
 * Return: the module parameter noncoherent.
 */
bool pto_default_noncoherent(void)
{
	return READ_ONCE(pto_noncoherent);
}

/**
 * pto_default_sanitize - the sanitizer for every queue
 *
 * Return: the module parameter sanitize.
 */
bool pto_default_sanitize(void)
{
	return READ_ONCE(pto_sanitize);
}

static unsigned int devices = 1;
module_param(devices, uint, 0444);
MODULE_PARM_DESC(devices, "Device instances to create (1-8, default 1)");

static struct pto_device *pto_devices[PTO_MAX_DEVICES];

static bool pto_local_buf_ok(u32 bytes)
{
	return bytes >= PTO_MIN_LOCAL_BUF && bytes <= PTO_MAX_LOCAL_BUF;
}

/**
 * pto_topology_validate - check a topology built from module parameters
 * @topo: topology
 *
 * Return: 0 or -EINVAL.
 */
VISIBLE_IF_KUNIT int pto_topology_validate(const struct pto_topology *topo)
{
	if (topo->clusters < 1 || topo->clusters > PTO_MAX_CLUSTERS)
		return -EINVAL;
	if (!pto_local_buf_ok(topo->aiv_ub) || !pto_local_buf_ok(topo->aic_l1) ||
	    !pto_local_buf_ok(topo->aic_l0a) || !pto_local_buf_ok(topo->aic_l0b) ||
	    !pto_local_buf_ok(topo->aic_l0c))
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(pto_topology_validate);

/**
 * pto_query_copy_size - bytes a size-negotiated query copies out
 * @user_size: bytes user space offered (0: asks for the size)
 * @known_size: size of the structure this module knows
 *
 * Return: bytes to copy, 0 when only the size is asked for.
 */
VISIBLE_IF_KUNIT u32 pto_query_copy_size(u32 user_size, u32 known_size)
{
	return min(user_size, known_size);
}
EXPORT_SYMBOL_IF_KUNIT(pto_query_copy_size);

/* The parameter is writable at run time; clamp what the scheduler uses. */
u32 pto_clamped_timeout_ms(void)
{
	return clamp_t(u32, READ_ONCE(pto_timeout_ms), PTO_MIN_TIMEOUT_MS,
		       PTO_MAX_TIMEOUT_MS);
}

/**
 * pto_max_work_budget - the largest work budget a queue may be given
 *
 * Return: the module parameter max_work_budget.
 */
u64 pto_max_work_budget(void)
{
	return clamp_t(u64, READ_ONCE(pto_max_budget), PTO_MIN_WORK_BUDGET,
		       PTO_WORK_BUDGET_CEILING);
}

/**
 * pto_caller_max_work_budget - the largest work budget the caller's queues
 *                              may ask for
 * @audit: a decision (QUEUE_CREATE), not a report (the limits query)
 *
 * A unit holds its core until its budget ends, and nothing preempts it:
 * past the default, how long one user may hold a core while others wait is
 * the administrator's choice (max_user_work_budget), or needs CAP_SYS_NICE,
 * as GPU drivers gate high-priority contexts.
 *
 * Return: max_work_budget with CAP_SYS_NICE, else max_user_work_budget,
 * at most max_work_budget.
 */
u64 pto_caller_max_work_budget(bool audit)
{
	u64 max = pto_max_work_budget();

	if (audit ? capable(CAP_SYS_NICE) :
		    ns_capable_noaudit(&init_user_ns, CAP_SYS_NICE))
		return max;
	return clamp_t(u64, READ_ONCE(pto_user_budget), PTO_MIN_WORK_BUDGET, max);
}

/**
 * pto_default_work_budget - the work budget of queues created without one
 *
 * Return: the module parameter work_budget, at most max_work_budget.
 */
u64 pto_default_work_budget(void)
{
	return clamp_t(u64, READ_ONCE(pto_work_budget), PTO_MIN_WORK_BUDGET,
		       pto_max_work_budget());
}

static void pto_fill_device_info(struct pto_device *pdev,
				 struct drm_pto_npu_device_info *info)
{
	const struct pto_topology *t = &pdev->topo;

	info->uapi_version = DRM_PTO_NPU_UAPI_VERSION;
	info->device_index = pdev->index;
	info->clusters = t->clusters;
	info->aic_cores = t->clusters;
	info->aiv_cores = t->clusters * PTO_AIV_PER_CLUSTER;
	info->aiv_ub_size = t->aiv_ub;
	info->aic_l1_size = t->aic_l1;
	info->aic_l0a_size = t->aic_l0a;
	info->aic_l0b_size = t->aic_l0b;
	info->aic_l0c_size = t->aic_l0c;
	info->capabilities = DRM_PTO_NPU_CAP_GM_MMAP | DRM_PTO_NPU_CAP_SYNCOBJ |
			     DRM_PTO_NPU_CAP_PROFILE |
			     DRM_PTO_NPU_CAP_MEMORY_MODEL;
}

/*
 * The uapi structures' layout: the same for 32-bit and 64-bit user space
 * (no implicit padding), and never changed but by growing at the end.
 */
static_assert(sizeof(struct drm_pto_npu_query) == 24);
static_assert(sizeof(struct drm_pto_npu_device_info) == 48);
static_assert(sizeof(struct drm_pto_npu_limits) == 120);
static_assert(offsetof(struct drm_pto_npu_limits, pad2) == 68);
static_assert(offsetof(struct drm_pto_npu_limits, work_budget) == 72);
static_assert(sizeof(struct drm_pto_npu_memory_info) == 32);
static_assert(sizeof(struct drm_pto_npu_counters) == 96);
static_assert(sizeof(struct drm_pto_npu_bo_create) == 16);
static_assert(sizeof(struct drm_pto_npu_bo_info) == 24);
static_assert(sizeof(struct drm_pto_npu_kernel_create) == 64);
static_assert(sizeof(struct drm_pto_npu_kernel_destroy) == 8);
static_assert(sizeof(struct drm_pto_npu_queue_create) == 80);
static_assert(sizeof(struct drm_pto_npu_queue_destroy) == 8);
static_assert(sizeof(struct drm_pto_npu_queue_submit) == 32);
static_assert(sizeof(struct drm_pto_npu_queue_wait) == 24);
static_assert(sizeof(struct drm_pto_npu_ring_header) == 256);
static_assert(sizeof(struct drm_pto_npu_cqe) == 80);
static_assert(sizeof(struct drm_pto_npu_prof) == 248);
static_assert(sizeof(struct drm_pto_npu_graph_edge) == 16);
static_assert(sizeof(struct drm_pto_npu_graph_binding) == 8);
static_assert(sizeof(struct drm_pto_npu_graph_create) == 72);
static_assert(sizeof(struct drm_pto_npu_graph_destroy) == 8);

static void pto_fill_limits(struct drm_pto_npu_limits *lim)
{
	lim->max_bo_size = PTO_MAX_BO_SIZE;
	lim->max_gm_per_context = PTO_MAX_GM_PER_CONTEXT;
	lim->max_bos_per_context = PTO_MAX_BOS_PER_CONTEXT;
	lim->max_kernels_per_context = PTO_MAX_KERNELS_PER_CONTEXT;
	lim->max_insns = PTO_MAX_INSNS;
	lim->max_queues_per_context = PTO_MAX_QUEUES_PER_CONTEXT;
	lim->max_sq_slots = PTO_MAX_SQ_SLOTS;
	lim->max_cq_entries = PTO_MAX_CQ_ENTRIES;
	lim->max_inflight_tasks = PTO_MAX_INFLIGHT_TASKS;
	lim->max_tensor_args = PTO_MAX_TENSOR_ARGS;
	lim->max_scalar_args = PTO_MAX_SCALAR_ARGS;
	lim->max_deps = PTO_MAX_DEPS;
	lim->max_block_num = PTO_MAX_BLOCK_NUM;
	lim->timeout_ms = pto_clamped_timeout_ms();
	lim->pad = 0;
	lim->pad2 = 0;
	lim->work_budget = pto_default_work_budget();
	lim->min_work_budget = PTO_MIN_WORK_BUDGET;
	lim->max_work_budget = pto_caller_max_work_budget(false);
	lim->max_graph_nodes = PTO_MAX_GRAPH_NODES;
	lim->max_graph_edges = PTO_MAX_GRAPH_EDGES;
	lim->max_graph_bindings = PTO_MAX_GRAPH_BINDINGS;
	lim->max_graph_nodes_per_context = PTO_MAX_GRAPH_NODES_PER_CONTEXT;
	lim->max_inflight_units = PTO_MAX_INFLIGHT_UNITS;
}

static void pto_fill_memory_info(struct pto_device *pdev, struct pto_ctx *ctx,
				 struct drm_pto_npu_memory_info *mem)
{
	mem->device_bos = atomic64_read(&pdev->bos);
	mem->device_bytes = atomic64_read(&pdev->bytes);
	mem->context_bos = atomic64_read(&ctx->gm->bos);
	mem->context_bytes = atomic64_read(&ctx->gm->bytes);
}

static void pto_fill_counters(struct pto_device *pdev,
			      struct drm_pto_npu_counters *cnt)
{
	u64 *out = (u64 *)cnt;
	u32 i;

	for (i = 0; i < ARRAY_SIZE(pdev->counters.c); i++)
		out[i] = atomic64_read(&pdev->counters.c[i]);
	cnt->reserved = 0;
}

static int pto_ioctl_query(struct drm_device *drm, void *data,
			   struct drm_file *file)
{
	struct pto_device *pdev = to_pto_device(drm);
	struct drm_pto_npu_query *q = data;
	union {
		struct drm_pto_npu_device_info dev;
		struct drm_pto_npu_limits lim;
		struct drm_pto_npu_memory_info mem;
		struct drm_pto_npu_counters cnt;
	} out = {};
	u32 known, n;

	if (q->flags || q->pad)
		return -EINVAL;

	switch (q->type) {
	case DRM_PTO_NPU_QUERY_DEVICE:
		pto_fill_device_info(pdev, &out.dev);
		known = sizeof(out.dev);
		break;
	case DRM_PTO_NPU_QUERY_LIMITS:
		pto_fill_limits(&out.lim);
		known = sizeof(out.lim);
		break;
	case DRM_PTO_NPU_QUERY_MEMORY:
		pto_fill_memory_info(pdev, file->driver_priv, &out.mem);
		known = sizeof(out.mem);
		break;
	case DRM_PTO_NPU_QUERY_COUNTERS:
		pto_fill_counters(pdev, &out.cnt);
		known = sizeof(out.cnt);
		break;
	default:
		return -EINVAL;
	}

	n = pto_query_copy_size(q->size, known);
	if (!n) {
		q->size = known;
		return 0;
	}
	if (copy_to_user(u64_to_user_ptr(q->data), &out, n))
		return -EFAULT;
	q->size = n;
	return 0;
}

static int pto_open(struct drm_device *drm, struct drm_file *file)
{
	struct pto_ctx *ctx;
	u32 i;
	int ret;

	/* Over a page (the task hashes): a failure is open()'s -ENOMEM. */
	ctx = kvzalloc(sizeof(*ctx), GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!ctx)
		return -ENOMEM;
	ctx->gm = pto_gm_account_alloc();
	if (!ctx->gm) {
		kvfree(ctx);
		return -ENOMEM;
	}
	ctx->scratch = pto_ctx_scratch_alloc();
	ret = ctx->scratch ? pto_user_open(ctx) : -ENOMEM;
	if (ret) {
		kfree(ctx->scratch);
		pto_gm_account_put(ctx->gm);
		kvfree(ctx);
		return ret;
	}
	mutex_init(&ctx->submit_lock);
	/*
	 * The DRM client id: what /proc/<pid>/fdinfo/<fd> shows as
	 * drm-client-id, so a tracepoint's ctx names the open file.
	 */
	ctx->uid = file->client_id;
	ctx->pdev = to_pto_device(drm);
	xa_init_flags(&ctx->kernels, XA_FLAGS_ALLOC1);
	xa_init_flags(&ctx->queues, XA_FLAGS_ALLOC1);
	xa_init_flags(&ctx->graphs, XA_FLAGS_ALLOC1);
	atomic_set(&ctx->graph_nodes, 0);
	hash_init(ctx->tasks);
	hash_init(ctx->failed);
	pto_infer_init(&ctx->infer);
	INIT_LIST_HEAD(&ctx->failed_fifo);
	ctx->next_id = 1;
	atomic_set(&ctx->inflight, 0);
	atomic_set(&ctx->pending, 0);
	atomic_set(&ctx->inflight_units, 0);
	INIT_LIST_HEAD(&ctx->live);
	for (i = 0; i < ARRAY_SIZE(ctx->ready); i++) {
		INIT_LIST_HEAD(&ctx->ready[i]);
		INIT_LIST_HEAD(&ctx->ready_link[i]);
	}
	init_waitqueue_head(&ctx->wq);
	file->driver_priv = ctx;
	return 0;
}

static void pto_postclose(struct drm_device *drm, struct drm_file *file)
{
	struct pto_ctx *ctx = file->driver_priv;

	/* Cancel what is in flight and wait for running blocks to stop. */
	pto_sched_cancel_ctx(ctx);
	pto_queues_release(ctx);
	pto_graphs_release(ctx);
	pto_kernels_release(ctx);
	pto_deps_forget_failed(ctx);
	pto_infer_fini(&ctx->infer);
	pto_gm_account_put(ctx->gm);
	pto_user_close(ctx);
	mutex_destroy(&ctx->submit_lock);
	kfree(ctx->scratch);
	kvfree(ctx);
}

static __poll_t pto_poll(struct file *filp, struct poll_table_struct *wait)
{
	struct drm_file *file = filp->private_data;
	struct pto_ctx *ctx = file->driver_priv;

	poll_wait(filp, &ctx->wq, wait);
	return drm_poll(filp, wait) | pto_queues_poll(ctx);
}

static const struct drm_ioctl_desc pto_ioctls[] = {
	DRM_IOCTL_DEF_DRV(PTO_NPU_QUERY, pto_ioctl_query, 0),
	DRM_IOCTL_DEF_DRV(PTO_NPU_BO_CREATE, pto_ioctl_bo_create, 0),
	DRM_IOCTL_DEF_DRV(PTO_NPU_BO_INFO, pto_ioctl_bo_info, 0),
	DRM_IOCTL_DEF_DRV(PTO_NPU_KERNEL_CREATE, pto_ioctl_kernel_create, 0),
	DRM_IOCTL_DEF_DRV(PTO_NPU_KERNEL_DESTROY, pto_ioctl_kernel_destroy, 0),
	DRM_IOCTL_DEF_DRV(PTO_NPU_QUEUE_CREATE, pto_ioctl_queue_create, 0),
	DRM_IOCTL_DEF_DRV(PTO_NPU_QUEUE_DESTROY, pto_ioctl_queue_destroy, 0),
	DRM_IOCTL_DEF_DRV(PTO_NPU_QUEUE_SUBMIT, pto_ioctl_queue_submit, 0),
	DRM_IOCTL_DEF_DRV(PTO_NPU_QUEUE_WAIT, pto_ioctl_queue_wait, 0),
	DRM_IOCTL_DEF_DRV(PTO_NPU_GRAPH_CREATE, pto_ioctl_graph_create, 0),
	DRM_IOCTL_DEF_DRV(PTO_NPU_GRAPH_DESTROY, pto_ioctl_graph_destroy, 0),
};

/*
 * DRM_ACCEL_FOPS, with a poll() that also reports completion entries, and
 * the DRM core's fdinfo (drm-driver, drm-client-id, memory stats).
 */
static const struct file_operations pto_fops = {
	.owner = THIS_MODULE,
	.open = accel_open,
	.release = drm_release,
	.unlocked_ioctl = drm_ioctl,
	.compat_ioctl = drm_compat_ioctl,
	.poll = pto_poll,
	.read = drm_read,
	.llseek = noop_llseek,
	.mmap = drm_gem_mmap,
	.fop_flags = FOP_UNSIGNED_OFFSET,
	.show_fdinfo = drm_show_fdinfo,
};

static const struct drm_driver pto_drm_driver = {
	.driver_features = DRIVER_COMPUTE_ACCEL | DRIVER_GEM |
			   DRIVER_SYNCOBJ | DRIVER_SYNCOBJ_TIMELINE,
	.open = pto_open,
	.postclose = pto_postclose,
	.gem_create_object = pto_gem_create_object,
	.ioctls = pto_ioctls,
	.num_ioctls = ARRAY_SIZE(pto_ioctls),
	.fops = &pto_fops,
	.name = PTO_DRIVER_NAME,
	.desc = "Virtual Ascend-style NPU",
	.major = 1,
	.minor = 0,
};

static struct pto_device *pto_device_create(u32 index,
					    const struct pto_topology *topo)
{
	struct platform_device *plat;
	struct pto_device *pdev;
	int ret;

	plat = platform_device_register_simple(PTO_DRIVER_NAME, index, NULL, 0);
	if (IS_ERR(plat))
		return ERR_CAST(plat);

	if (!devres_open_group(&plat->dev, NULL, GFP_KERNEL)) {
		ret = -ENOMEM;
		goto err_unregister;
	}

	pdev = devm_drm_dev_alloc(&plat->dev, &pto_drm_driver,
				  struct pto_device, drm);
	if (IS_ERR(pdev)) {
		ret = PTR_ERR(pdev);
		goto err_devres;
	}
	pdev->plat = plat;
	pdev->index = index;
	pdev->topo = *topo;
	atomic64_set(&pdev->bos, 0);
	atomic64_set(&pdev->bytes, 0);

	ret = pto_sched_init(pdev);
	if (ret)
		goto err_devres;
	ret = drm_dev_register(&pdev->drm, 0);
	if (ret)
		goto err_sched;
	pto_debugfs_init(pdev);
	return pdev;

err_sched:
	pto_sched_fini(pdev);
err_devres:
	devres_release_group(&plat->dev, NULL);
err_unregister:
	platform_device_unregister(plat);
	return ERR_PTR(ret);
}

static void pto_device_destroy(struct pto_device *pdev)
{
	struct platform_device *plat = pdev->plat;

	drm_dev_unplug(&pdev->drm);
	pto_sched_fini(pdev);
	devres_release_group(&plat->dev, NULL);
	platform_device_unregister(plat);
}

static void pto_destroy_all(void)
{
	int i;

	for (i = PTO_MAX_DEVICES - 1; i >= 0; i--) {
		if (pto_devices[i])
			pto_device_destroy(pto_devices[i]);
		pto_devices[i] = NULL;
	}
}

static int __init pto_init(void)
{
	struct pto_topology topo = {
		.clusters = clusters,
		.aiv_ub = aiv_ub_kib * SZ_1K,
		.aic_l1 = aic_l1_kib * SZ_1K,
		.aic_l0a = aic_l0a_kib * SZ_1K,
		.aic_l0b = aic_l0b_kib * SZ_1K,
		.aic_l0c = aic_l0c_kib * SZ_1K,
	};
	u32 i;

	if (devices < 1 || devices > PTO_MAX_DEVICES) {
		pr_err(PTO_DRIVER_NAME ": devices=%u out of range 1-%u\n",
		       devices, PTO_MAX_DEVICES);
		return -EINVAL;
	}
	/* KiB parameters are bounded before multiplying so nothing wraps. */
	if (aiv_ub_kib > SZ_4K || aic_l1_kib > SZ_4K || aic_l0a_kib > SZ_4K ||
	    aic_l0b_kib > SZ_4K || aic_l0c_kib > SZ_4K ||
	    pto_topology_validate(&topo)) {
		pr_err(PTO_DRIVER_NAME ": invalid topology: clusters 1-%u, buffers 16-4096 KiB\n",
		       PTO_MAX_CLUSTERS);
		return -EINVAL;
	}

	if (pto_task_caches_init())
		return -ENOMEM;
	for (i = 0; i < devices; i++) {
		struct pto_device *pdev = pto_device_create(i, &topo);

		if (IS_ERR(pdev)) {
			pto_destroy_all();
			pto_task_caches_exit();
			return PTR_ERR(pdev);
		}
		pto_devices[i] = pdev;
	}
	pr_info(PTO_DRIVER_NAME ": %u device(s), %u clusters (%u AIC, %u AIV) each\n",
		devices, topo.clusters, topo.clusters,
		topo.clusters * PTO_AIV_PER_CLUSTER);
	return 0;
}

static void __exit pto_exit(void)
{
	pto_destroy_all();
	pto_gm_gc_flush();
	pto_task_caches_exit();
}

module_init(pto_init);
module_exit(pto_exit);

MODULE_DESCRIPTION("pto_npu: virtual Ascend-style NPU (DRM accel)");
MODULE_AUTHOR("pto-npu authors");
MODULE_LICENSE("GPL");
