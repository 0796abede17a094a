/* SPDX-License-Identifier: GPL-2.0-only */
/* Copyright (C) 2026 pto-npu authors */
#ifndef __PTO_SUBMIT_H__
#define __PTO_SUBMIT_H__

struct drm_device;
struct drm_file;

/* pto_submit.c: the doorbell (QUEUE_SUBMIT), SQ entry intake */
void *pto_ctx_scratch_alloc(void);
int pto_ioctl_queue_submit(struct drm_device *drm, void *data,
			   struct drm_file *file);

#endif /* __PTO_SUBMIT_H__ */
