// SPDX-License-Identifier: GPL-2.0-only
/*
 * pto_npu: kernels (programs): upload (KERNEL_CREATE, which runs the
 * verifier of pto_verifier.c), the context's handles and the references
 * tasks hold.
 *
 * Copyright (C) 2026 pto-npu authors
 */

#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <drm/drm_file.h>

#include "pto_kernel.h"

static void pto_kernel_release(struct kref *ref)
{
	struct pto_kernel *k = container_of(ref, struct pto_kernel, ref);

	kvfree(k->insns);
	kvfree(k->match);
	kfree(k);
}

void pto_kernel_put(struct pto_kernel *k)
{
	kref_put(&k->ref, pto_kernel_release);
}

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

void pto_kernels_release(struct pto_ctx *ctx)
{
	struct pto_kernel *k;
	unsigned long id;

	xa_for_each(&ctx->kernels, id, k)
		pto_kernel_put(k);
	xa_destroy(&ctx->kernels);
}

static int pto_kernel_report(struct drm_pto_npu_kernel_create *args,
			     const char *log, int code)
{
	size_t n = min_t(size_t, args->log_size - 1, strlen(log));
	char __user *dst = u64_to_user_ptr(args->log);

	args->error_code = code;
	/* Cut to the user's buffer, always NUL-terminated. */
	if (args->log_size &&
	    (copy_to_user(dst, log, n) || put_user('\0', dst + n)))
		return -EFAULT;
	return -EINVAL;
}

int pto_ioctl_kernel_create(struct drm_device *drm, void *data,
			    struct drm_file *file)
{
	struct pto_device *pdev = to_pto_device(drm);
	struct drm_pto_npu_kernel_create *args = data;
	struct pto_ctx *ctx = file->driver_priv;
	struct pto_tile_decl *tiles = NULL;
	char log[PTO_VERIFIER_LOG_MAX];
	struct pto_kernel *k;
	u32 handle;
	int ret;

	args->error_insn = U32_MAX;
	args->error_code = 0;
	if (args->flags || args->handle || !args->log != !args->log_size)
		return -EINVAL;
	if (args->num_insns > PTO_MAX_INSNS)
		return -E2BIG;
	if (args->num_tiles > PTO_NUM_TREGS)
		return -EINVAL;

	k = kzalloc(sizeof(*k), GFP_KERNEL);
	if (!k)
		return -ENOMEM;
	kref_init(&k->ref);
	k->num_insns = args->num_insns;
	/* One spare entry so an empty program reaches the verifier's message. */
	/* A failure is the caller's -ENOMEM, not a kernel warning. */
	k->insns = kvmalloc_array(args->num_insns + 1, sizeof(*k->insns),
				  GFP_KERNEL | __GFP_NOWARN);
	k->match = kvcalloc(args->num_insns + 1, sizeof(*k->match),
			    GFP_KERNEL | __GFP_NOWARN);
	if (args->num_tiles)
		tiles = kcalloc(args->num_tiles, sizeof(*tiles), GFP_KERNEL);
	if (!k->insns || !k->match || (args->num_tiles && !tiles)) {
		ret = -ENOMEM;
		goto err;
	}
	if (copy_from_user(k->insns, u64_to_user_ptr(args->insns),
			   array_size(args->num_insns, sizeof(*k->insns))) ||
	    (tiles && copy_from_user(tiles, u64_to_user_ptr(args->tiles),
				     array_size(args->num_tiles, sizeof(*tiles))))) {
		ret = -EFAULT;
		goto err;
	}

	ret = pto_verify(&pdev->topo, args->core_type, k->insns, args->num_insns,
			 tiles, args->num_tiles, k, &args->error_insn, log,
			 sizeof(log));
	if (ret > 0) {
		ret = pto_kernel_report(args, log, ret);
		goto err;
	}
	if (ret)
		goto err;

	ret = xa_alloc(&ctx->kernels, &handle, k,
		       XA_LIMIT(1, PTO_MAX_KERNELS_PER_CONTEXT), GFP_KERNEL);
	if (ret == -EBUSY)
		ret = -ENOSPC;
	if (ret)
		goto err;
	kfree(tiles);
	args->handle = handle;
	args->num_tensor_args = k->num_tensor_args;
	args->num_scalar_args = k->num_scalar_args;
	return 0;

err:
	kfree(tiles);
	pto_kernel_put(k);
	return ret;
}

int pto_ioctl_kernel_destroy(struct drm_device *drm, void *data,
			     struct drm_file *file)
{
	struct drm_pto_npu_kernel_destroy *args = data;
	struct pto_ctx *ctx = file->driver_priv;
	struct pto_kernel *k;

	if (args->pad)
		return -EINVAL;
	k = xa_erase(&ctx->kernels, args->handle);
	if (!k)
		return -ENOENT;
	pto_kernel_put(k);
	return 0;
}
