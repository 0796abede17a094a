// SPDX-License-Identifier: GPL-2.0-only
/*
 * pto_npu: kernels (programs): upload (KERNEL_CREATE, which runs the
 * verifier of pto_verifier.c), the context's handles and the references
 * tasks hold.
 *
 * Copyright (C) 2026 pto-npu authors
 */

#include <linux/cleanup.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <drm/drm_file.h>
#include <drm/drm_print.h>

#include "pto_gem.h"
#include "pto_kernel.h"

static void pto_kernel_release(struct kref *ref)
{
	struct pto_kernel *k = container_of(ref, struct pto_kernel, ref);

	if (k->acct) {
		atomic_dec(&k->acct->kernels);
		pto_gm_account_put(k->acct);
	}
	kvfree(k->insns);
	kvfree(k->match);
	kfree(k);
}

/**
 * pto_kernel_put - drop a reference to a kernel
 * @k: the kernel, freed with its last reference (handle or task); or NULL
 */
void pto_kernel_put(struct pto_kernel *k)
{
	if (k)
		kref_put(&k->ref, pto_kernel_release);
}

DEFINE_FREE(pto_kernel_put, struct pto_kernel *, pto_kernel_put(_T))

/**
 * pto_kernel_lookup - the kernel behind a handle of the context
 * @ctx: the context
 * @handle: its handle
 *
 * Takes the xarray lock of &pto_ctx.kernels, so that a KERNEL_DESTROY of
 * the handle cannot drop the last reference between the lookup and the
 * reference taken here.
 *
 * Return: the kernel with a reference for the caller, or NULL.
 */
struct pto_kernel *pto_kernel_lookup(struct pto_ctx *ctx, u32 handle)
{
	struct pto_kernel *k;

	xa_lock(&ctx->kernels);
	k = xa_load(&ctx->kernels, handle);
	if (k)
		kref_get(&k->ref);
	xa_unlock(&ctx->kernels);
	return k;
}

/**
 * pto_kernels_release - drop every handle of a closing context
 * @ctx: the context; tasks still running keep their kernels
 */
void pto_kernels_release(struct pto_ctx *ctx)
{
	struct pto_kernel *k;
	unsigned long id;

	xa_for_each(&ctx->kernels, id, k)
		pto_kernel_put(k);
	xa_destroy(&ctx->kernels);
}

/* The verifier refused the program: its reason and message to user space. */
static int pto_kernel_report(struct drm_device *drm,
			     struct drm_pto_npu_kernel_create *args,
			     const char *log, int code)
{
	size_t n = min_t(size_t, args->log_size - 1, strlen(log));
	char __user *dst = u64_to_user_ptr(args->log);

	drm_dbg(drm, "KERNEL_CREATE: refused (%d): %s\n", code, log);
	args->error_code = code;
	/* Cut to the user's buffer, always NUL-terminated. */
	if (args->log_size &&
	    (copy_to_user(dst, log, n) || put_user('\0', dst + n)))
		return -EFAULT;
	return -EINVAL;
}

static int pto_kernel_check_args(struct drm_device *drm,
				 const struct drm_pto_npu_kernel_create *args)
{
	if (args->flags || args->handle || !args->log != !args->log_size) {
		drm_dbg(drm, "KERNEL_CREATE: flags 0x%x, handle %u (both must be 0), log and log_size %u (both or neither)\n",
			args->flags, args->handle, args->log_size);
		return -EINVAL;
	}
	if (args->num_insns > PTO_MAX_INSNS) {
		drm_dbg(drm, "KERNEL_CREATE: %u instructions, at most %u\n",
			args->num_insns, PTO_MAX_INSNS);
		return -E2BIG;
	}
	if (args->num_tiles > PTO_NUM_TREGS) {
		drm_dbg(drm, "KERNEL_CREATE: %u tiles, at most %u\n",
			args->num_tiles, PTO_NUM_TREGS);
		return -EINVAL;
	}
	return 0;
}

/*
 * Count a kernel of @acct before it exists, so two racing creates cannot
 * both squeeze under the cap; kernels whose handles are gone count while
 * a task or a graph holds them.
 */
static int pto_kernel_charge(struct drm_device *drm, struct pto_gm_account *acct)
{
	if (atomic_inc_return(&acct->kernels) <= PTO_MAX_KERNELS_PER_CONTEXT)
		return 0;
	atomic_dec(&acct->kernels);
	drm_dbg(drm, "KERNEL_CREATE: the context has %u kernels alive already (destroyed handles count while a task or graph holds their kernel)\n",
		PTO_MAX_KERNELS_PER_CONTEXT);
	return -ENOSPC;
}

/* A kernel of @acct (charged) for @num_insns instructions, before they are copied in. */
static struct pto_kernel *pto_kernel_alloc(struct pto_gm_account *acct,
					   u32 num_insns)
{
	struct pto_kernel *k = kzalloc(sizeof(*k), GFP_KERNEL_ACCOUNT);

	if (!k) {
		atomic_dec(&acct->kernels);
		return NULL;
	}
	kref_init(&k->ref);
	kref_get(&acct->ref);
	k->acct = acct;
	k->num_insns = num_insns;
	/* One spare entry so an empty program reaches the verifier's message. */
	/* A failure is the caller's -ENOMEM, not a kernel warning. */
	k->insns = kvmalloc_array(num_insns + 1, sizeof(*k->insns),
				  GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	k->match = kvcalloc(num_insns + 1, sizeof(*k->match),
			    GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!k->insns || !k->match) {
		pto_kernel_put(k);
		return NULL;
	}
	return k;
}

/* Give @k a handle in @ctx; the reference passed in goes to the handle. */
static int pto_kernel_add(struct drm_device *drm, struct pto_ctx *ctx,
			  struct pto_kernel *k,
			  struct drm_pto_npu_kernel_create *args)
{
	/* Once it has a handle, a KERNEL_DESTROY may free it: read it first. */
	u32 nt = k->num_tensor_args, ns = k->num_scalar_args;
	u32 handle;
	int ret;

	ret = xa_alloc(&ctx->kernels, &handle, k,
		       XA_LIMIT(1, PTO_MAX_KERNELS_PER_CONTEXT), GFP_KERNEL);
	if (ret) {
		pto_kernel_put(k);
		if (ret != -EBUSY)
			return ret;
		drm_dbg(drm, "KERNEL_CREATE: the context has %u kernels already\n",
			PTO_MAX_KERNELS_PER_CONTEXT);
		return -ENOSPC;
	}
	args->handle = handle;
	args->num_tensor_args = nt;
	args->num_scalar_args = ns;
	return 0;
}

/**
 * pto_ioctl_kernel_create - DRM_IOCTL_PTO_NPU_KERNEL_CREATE: upload a program
 * @drm: device
 * @data: struct drm_pto_npu_kernel_create
 * @file: the context's file
 *
 * Copies the program and its tile declarations in, verifies them
 * (pto_verify()) and gives the kernel a handle.
 *
 * Return: 0; -EINVAL for a malformed argument or a refused program (its
 * reason in error_code, the instruction in error_insn, the message in the
 * log); -E2BIG past PTO_MAX_INSNS; -EFAULT; -ENOSPC past the context's
 * kernels alive (handles, and kernels tasks or graphs hold); -ENOMEM.
 */
int pto_ioctl_kernel_create(struct drm_device *drm, void *data,
			    struct drm_file *file)
{
	struct pto_device *pdev = to_pto_device(drm);
	struct drm_pto_npu_kernel_create *args = data;
	struct pto_ctx *ctx = file->driver_priv;
	struct pto_tile_decl *tiles __free(kfree) = NULL;
	struct pto_kernel *k __free(pto_kernel_put) = NULL;
	char log[PTO_VERIFIER_LOG_MAX];
	int ret;

	args->error_insn = U32_MAX;
	args->error_code = 0;
	ret = pto_kernel_check_args(drm, args);
	if (ret)
		return ret;

	ret = pto_kernel_charge(drm, ctx->gm);
	if (ret)
		return ret;
	k = pto_kernel_alloc(ctx->gm, args->num_insns);
	if (args->num_tiles)
		tiles = kcalloc(args->num_tiles, sizeof(*tiles), GFP_KERNEL_ACCOUNT);
	if (!k || (args->num_tiles && !tiles))
		return -ENOMEM;
	if (copy_from_user(k->insns, u64_to_user_ptr(args->insns),
			   array_size(args->num_insns, sizeof(*k->insns))) ||
	    (tiles && copy_from_user(tiles, u64_to_user_ptr(args->tiles),
				     array_size(args->num_tiles, sizeof(*tiles)))))
		return -EFAULT;

	ret = pto_verify(&pdev->topo, args->core_type, k->insns, args->num_insns,
			 tiles, args->num_tiles, k, &args->error_insn, log,
			 sizeof(log));
	if (ret > 0)
		return pto_kernel_report(drm, args, log, ret);
	if (ret)
		return ret;
	return pto_kernel_add(drm, ctx, no_free_ptr(k), args);
}

/**
 * pto_ioctl_kernel_destroy - DRM_IOCTL_PTO_NPU_KERNEL_DESTROY: drop a handle
 * @drm: device
 * @data: struct drm_pto_npu_kernel_destroy
 * @file: the context's file
 *
 * Tasks that use the kernel keep it until they are freed.
 *
 * Return: 0; -EINVAL for a pad not zero; -ENOENT for an unknown handle.
 */
int pto_ioctl_kernel_destroy(struct drm_device *drm, void *data,
			     struct drm_file *file)
{
	struct drm_pto_npu_kernel_destroy *args = data;
	struct pto_ctx *ctx = file->driver_priv;
	struct pto_kernel *k;

	if (args->pad) {
		drm_dbg(drm, "KERNEL_DESTROY: pad %u must be 0\n", args->pad);
		return -EINVAL;
	}
	k = xa_erase(&ctx->kernels, args->handle);
	if (!k)
		return -ENOENT;
	pto_kernel_put(k);
	return 0;
}
