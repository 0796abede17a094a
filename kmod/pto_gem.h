/* SPDX-License-Identifier: GPL-2.0-only */
/* Copyright (C) 2026 pto-npu authors */
#ifndef __PTO_GEM_H__
#define __PTO_GEM_H__

#include <linux/types.h>

#include "pto_drv.h"

struct drm_gem_object *pto_gem_create_object(struct drm_device *drm,
					     size_t size);
struct pto_gm_account *pto_gm_account_alloc(void);
void pto_gm_account_put(struct pto_gm_account *gm);
int pto_ioctl_bo_create(struct drm_device *drm, void *data,
			struct drm_file *file);
int pto_ioctl_bo_info(struct drm_device *drm, void *data,
		      struct drm_file *file);

void *pto_bo_vaddr(struct pto_bo *bo);
struct pto_bo *pto_bo_create_kernel(struct pto_device *pdev,
				    struct pto_ctx *ctx, u64 size);

#endif /* __PTO_GEM_H__ */
