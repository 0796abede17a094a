/* SPDX-License-Identifier: GPL-2.0-only */
/* Copyright (C) 2026 pto-npu authors */
#ifndef __PTO_QUEUE_H__
#define __PTO_QUEUE_H__

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "pto_drv.h"

struct pto_batch;
struct pto_task;

/**
 * struct pto_queue - a dispatch queue
 * @ctx: owning context
 * @id: queue id in the context
 * @ring: ring memory (header, SQ, CQ), mapped by user space too
 * @hdr: ring header in @ring
 * @sq: SQ slot 0
 * @cq: CQE 0
 * @prof: profile record 0, one per CQE (DRM_PTO_NPU_QUEUE_F_PROFILE), or NULL
 * @haz: hazard record 0, one per CQE (sanitizing queues), or NULL
 * @sq_slots: SQ slots (power of two)
 * @cq_entries: CQ entries (power of two)
 * @sq_head: kernel's copy of slots taken (&pto_ctx.submit_lock)
 * @cq_lock: protects @cq_tail, @held and the posted count of their tasks
 * @cq_tail: kernel's copy of CQEs posted (@cq_lock)
 * @held: completed tasks waiting for CQ space (@cq_lock)
 * @nheld: tasks on @held (@cq_lock), what the header's cq_held reports
 * @live: tasks of this queue whose CQEs are not all posted
 * @waiters: threads in QUEUE_WAIT on this queue
 * @work_budget: instructions each unit of its tasks may execute
 * @noncoherent: its tasks see GM through per-core views (pto_gm.c)
 */
struct pto_queue {
	struct pto_ctx *ctx;
	u32 id;
	struct pto_bo *ring;
	struct drm_pto_npu_ring_header *hdr;
	u8 *sq;
	struct drm_pto_npu_cqe *cq;
	struct drm_pto_npu_prof *prof;
	struct drm_pto_npu_hazard *haz;
	u32 sq_slots;
	u32 cq_entries;
	u32 sq_head;
	spinlock_t cq_lock;	/* CQ tail and held list */
	u32 cq_tail;
	struct list_head held;
	u32 nheld;
	atomic_t live;
	atomic_t waiters;
	u64 work_budget;
	bool noncoherent;
};

/* pto_queue.c: queues, completions, doorbell fences */
struct pto_batch *pto_batch_create(void);
void pto_batch_retire(struct pto_batch *b, bool failed);
struct pto_queue *pto_queue_lookup(struct pto_ctx *ctx, u32 id);
void pto_queue_flush(struct pto_queue *q);
void pto_queue_task_done(struct pto_task *task, struct list_head *freeable);
void pto_queue_post(struct pto_task *task, struct list_head *freeable);
void pto_queue_post_list(struct list_head *post, struct list_head *freeable);
void pto_queues_drop_held(struct pto_ctx *ctx);
void pto_queues_release(struct pto_ctx *ctx);
__poll_t pto_queues_poll(struct pto_ctx *ctx);
int pto_ioctl_queue_create(struct drm_device *drm, void *data,
			   struct drm_file *file);
int pto_ioctl_queue_destroy(struct drm_device *drm, void *data,
			    struct drm_file *file);
int pto_ioctl_queue_wait(struct drm_device *drm, void *data,
			 struct drm_file *file);

#endif /* __PTO_QUEUE_H__ */
