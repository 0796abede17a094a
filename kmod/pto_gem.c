// SPDX-License-Identifier: GPL-2.0-only
/*
 * pto_npu: GM buffers. GM is shmem-backed GEM memory shared with user space
 * through mmap(MAP_SHARED). Each buffer is charged to the context that
 * created it; the charge is dropped when the last reference (handle or
 * mapping) goes away.
 *
 * Copyright (C) 2026 pto-npu authors
 */

#include <linux/dma-resv.h>
#include <linux/iosys-map.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_gem_shmem_helper.h>
#include <drm/drm_print.h>

#include "pto_gem.h"

/**
 * pto_gm_account_alloc - the GM accounting of a new context
 *
 * Return: the account with one reference (the context's), or NULL.
 */
struct pto_gm_account *pto_gm_account_alloc(void)
{
	struct pto_gm_account *gm = kzalloc(sizeof(*gm), GFP_KERNEL_ACCOUNT);

	if (gm)
		kref_init(&gm->ref);
	return gm;
}

static void pto_gm_account_release(struct kref *ref)
{
	kfree(container_of(ref, struct pto_gm_account, ref));
}

/**
 * pto_gm_account_put - drop a reference to a GM account
 * @gm: the account; freed with its last reference (context or buffer)
 */
void pto_gm_account_put(struct pto_gm_account *gm)
{
	kref_put(&gm->ref, pto_gm_account_release);
}

static void pto_bo_uncharge(struct pto_device *pdev, struct pto_gm_account *gm,
			    u64 size)
{
	atomic64_dec(&gm->bos);
	atomic64_sub(size, &gm->bytes);
	atomic64_dec(&pdev->bos);
	atomic64_sub(size, &pdev->bytes);
}

/*
 * Charge a buffer to a context before it exists, so two racing creates
 * cannot both squeeze under the cap.
 */
static int pto_bo_charge(struct pto_device *pdev, struct pto_gm_account *gm,
			 u64 size)
{
	if (atomic64_inc_return(&gm->bos) > PTO_MAX_BOS_PER_CONTEXT) {
		atomic64_dec(&gm->bos);
		drm_dbg(&pdev->drm, "GM: the context holds %d buffers already\n",
			PTO_MAX_BOS_PER_CONTEXT);
		return -ENOSPC;
	}
	if (atomic64_add_return(size, &gm->bytes) > PTO_MAX_GM_PER_CONTEXT) {
		atomic64_sub(size, &gm->bytes);
		atomic64_dec(&gm->bos);
		drm_dbg(&pdev->drm, "GM: %llu more bytes pass the context's %llu\n",
			size, PTO_MAX_GM_PER_CONTEXT);
		return -ENOSPC;
	}
	atomic64_inc(&pdev->bos);
	atomic64_add(size, &pdev->bytes);
	return 0;
}

static void pto_bo_free(struct drm_gem_object *obj)
{
	struct pto_bo *bo = to_pto_bo(obj);

	if (bo->vaddr) {
		struct iosys_map map = IOSYS_MAP_INIT_VADDR(bo->vaddr);

		dma_resv_lock(obj->resv, NULL);
		pto_shmem_vunmap_locked(&bo->base, &map);
		dma_resv_unlock(obj->resv);
	}

	if (bo->gm) {
		pto_bo_uncharge(to_pto_device(obj->dev), bo->gm, obj->size);
		pto_gm_account_put(bo->gm);
	}
	drm_gem_shmem_free(&bo->base);
}

static const struct drm_gem_object_funcs pto_bo_funcs = {
	.free = pto_bo_free,
	.print_info = drm_gem_shmem_object_print_info,
	.pin = drm_gem_shmem_object_pin,
	.unpin = drm_gem_shmem_object_unpin,
	.get_sg_table = drm_gem_shmem_object_get_sg_table,
	.vmap = drm_gem_shmem_object_vmap,
	.vunmap = drm_gem_shmem_object_vunmap,
	.mmap = drm_gem_shmem_object_mmap,
	.vm_ops = &drm_gem_shmem_vm_ops,
};

/**
 * pto_gem_create_object - &drm_driver.gem_create_object: a struct pto_bo
 * @drm: device
 * @size: bytes (the shmem helper sets the object up)
 *
 * Return: the GEM object inside a zeroed struct pto_bo, or ERR_PTR(-ENOMEM).
 */
struct drm_gem_object *pto_gem_create_object(struct drm_device *drm,
					     size_t size)
{
	struct pto_bo *bo = kzalloc(sizeof(*bo), GFP_KERNEL_ACCOUNT);

	if (!bo)
		return ERR_PTR(-ENOMEM);
	/* GM is shared with the CPU: write-back cached, never write-combined. */
	bo->base.map_wc = false;
	bo->base.base.funcs = &pto_bo_funcs;
	return &bo->base.base;
}

/**
 * pto_bo_vaddr - kernel mapping of a GM buffer, made on first use
 * @bo: buffer
 *
 * The mapping pins the pages and lives as long as the buffer, so buffers
 * that no task touches stay lazily allocated.
 *
 * Return: the address, or NULL when mapping fails.
 */
void *pto_bo_vaddr(struct pto_bo *bo)
{
	struct drm_gem_object *obj = &bo->base.base;
	struct iosys_map map;
	void *vaddr;

	/* Pairs with the release below: a seen address is a complete mapping. */
	vaddr = smp_load_acquire(&bo->vaddr);
	if (vaddr)
		return vaddr;
	dma_resv_lock(obj->resv, NULL);
	vaddr = bo->vaddr;
	if (!vaddr && !pto_shmem_vmap_locked(&bo->base, &map)) {
		vaddr = map.vaddr;
		/* Publish only after the mapping is fully set up. */
		smp_store_release(&bo->vaddr, vaddr);
	}
	dma_resv_unlock(obj->resv);
	return vaddr;
}

/*
 * The one way a GM buffer is made: charged to @gm, then created, then
 * holding a reference to @gm that pto_bo_free() drops with the charge.
 * @size is page aligned.
 */
static struct pto_bo *pto_bo_create(struct pto_device *pdev,
				    struct pto_gm_account *gm, u64 size)
{
	struct drm_gem_shmem_object *shmem;
	struct pto_bo *bo;
	int ret;

	ret = pto_bo_charge(pdev, gm, size);
	if (ret)
		return ERR_PTR(ret);
	shmem = drm_gem_shmem_create(&pdev->drm, size);
	if (IS_ERR(shmem)) {
		pto_bo_uncharge(pdev, gm, size);
		return ERR_CAST(shmem);
	}
	bo = container_of(shmem, struct pto_bo, base);
	kref_get(&gm->ref);
	bo->gm = gm;
	return bo;
}

/**
 * pto_bo_create_kernel - a buffer the module owns and maps (queue rings)
 * @pdev: device
 * @ctx: context charged for it
 * @size: bytes, rounded up to a page
 *
 * Return: the buffer with one reference and a kernel mapping, or ERR_PTR:
 * -ENOSPC past the context's GM caps, -ENOMEM.
 */
struct pto_bo *pto_bo_create_kernel(struct pto_device *pdev,
				    struct pto_ctx *ctx, u64 size)
{
	struct pto_bo *bo = pto_bo_create(pdev, ctx->gm, PAGE_ALIGN(size));

	if (IS_ERR(bo))
		return bo;
	if (!pto_bo_vaddr(bo)) {
		drm_gem_object_put(&bo->base.base);
		return ERR_PTR(-ENOMEM);
	}
	return bo;
}

/**
 * pto_bo_size_check - validate a requested GM buffer size
 * @size: bytes asked for
 * @aligned: out: @size rounded up to a page
 *
 * Return: 0, or -EINVAL for 0 or more than PTO_MAX_BO_SIZE.
 */
VISIBLE_IF_KUNIT int pto_bo_size_check(u64 size, u64 *aligned)
{
	if (!size || size > PTO_MAX_BO_SIZE)
		return -EINVAL;
	*aligned = PAGE_ALIGN(size);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(pto_bo_size_check);

/**
 * pto_ioctl_bo_create - DRM_IOCTL_PTO_NPU_BO_CREATE: a GM buffer and its handle
 * @drm: device
 * @data: struct drm_pto_npu_bo_create
 * @file: the context's file
 *
 * Return: 0; -EINVAL for flags, a handle passed in or a size of 0 or past
 * PTO_MAX_BO_SIZE; -ENOSPC past the context's GM caps; -ENOMEM.
 */
int pto_ioctl_bo_create(struct drm_device *drm, void *data,
			struct drm_file *file)
{
	struct drm_pto_npu_bo_create *args = data;
	struct pto_ctx *ctx = file->driver_priv;
	struct pto_bo *bo;
	u64 size;
	int ret;

	if (args->flags || args->handle) {
		drm_dbg(drm, "BO_CREATE: flags 0x%x, handle %u: must be 0\n",
			args->flags, args->handle);
		return -EINVAL;
	}
	ret = pto_bo_size_check(args->size, &size);
	if (ret) {
		drm_dbg(drm, "BO_CREATE: size %llu outside 1..%llu\n",
			args->size, PTO_MAX_BO_SIZE);
		return ret;
	}
	bo = pto_bo_create(to_pto_device(drm), ctx->gm, size);
	if (IS_ERR(bo))
		return PTR_ERR(bo);
	ret = drm_gem_handle_create(file, &bo->base.base, &args->handle);
	/* The handle holds the reference now (or creation failed: free). */
	drm_gem_object_put(&bo->base.base);
	if (ret)
		return ret;
	args->size = size;
	return 0;
}

/**
 * pto_ioctl_bo_info - DRM_IOCTL_PTO_NPU_BO_INFO: a buffer's size and mmap offset
 * @drm: device
 * @data: struct drm_pto_npu_bo_info
 * @file: the context's file
 *
 * Return: 0; -EINVAL for flags; -ENOENT for an unknown handle; -ENOMEM.
 */
int pto_ioctl_bo_info(struct drm_device *drm, void *data,
		      struct drm_file *file)
{
	struct drm_pto_npu_bo_info *args = data;
	struct drm_gem_object *obj;
	int ret;

	if (args->flags) {
		drm_dbg(drm, "BO_INFO: flags 0x%x: must be 0\n", args->flags);
		return -EINVAL;
	}
	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj)
		return -ENOENT;
	ret = drm_gem_create_mmap_offset(obj);
	if (!ret) {
		args->size = obj->size;
		args->mmap_offset = drm_vma_node_offset_addr(&obj->vma_node);
	}
	drm_gem_object_put(obj);
	return ret;
}
