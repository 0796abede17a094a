// SPDX-License-Identifier: GPL-2.0-only
/*
 * pto_npu: dispatch queues, completion entries, doorbell fences.
 *
 * A queue is one shmem buffer shared with user space: a header of indices,
 * the SQ (64-byte slots) and the CQ. The doorbell (pto_submit.c) turns SQ
 * entries into tasks. Completions go to the CQ; when it is full they
 * are held in the kernel (bounded by the in-flight cap) and moved in by the
 * next doorbell or wait: back-pressure, never loss.
 *
 * Copyright (C) 2026 pto-npu authors
 */

#include <linux/dma-fence.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/wait.h>

#include <drm/drm_file.h>
#include <drm/drm_gem.h>

#include "pto_gem.h"
#include "pto_queue.h"
#include "pto_task.h"
#include "pto_task_mem.h"

/* ------------------------------------------------------------ fences */

static const char *pto_fence_driver_name(struct dma_fence *f)
{
	return PTO_DRIVER_NAME;
}

static const char *pto_fence_timeline_name(struct dma_fence *f)
{
	return "queue";
}

static const struct dma_fence_ops pto_fence_ops = {
	.get_driver_name = pto_fence_driver_name,
	.get_timeline_name = pto_fence_timeline_name,
};

/**
 * pto_batch_create - the fence of one doorbell
 *
 * The doorbell holds one count on it until it has taken its entries, and
 * each task it takes one more until the task retires (pto_batch_retire()).
 *
 * Return: the fence with one reference, or NULL.
 */
struct pto_batch *pto_batch_create(void)
{
	struct pto_batch *b = kzalloc(sizeof(*b), GFP_KERNEL);

	if (!b)
		return NULL;
	spin_lock_init(&b->lock);
	atomic_set(&b->pending, 1);
	dma_fence_init(&b->base, &pto_fence_ops, &b->lock,
		       dma_fence_context_alloc(1), 1);
	return b;
}

/**
 * pto_batch_retire - one task of a doorbell batch (or the doorbell itself) is done
 * @b: batch, or NULL
 * @failed: the task failed
 */
void pto_batch_retire(struct pto_batch *b, bool failed)
{
	if (!b)
		return;
	if (failed)
		WRITE_ONCE(b->failed, true);
	if (atomic_dec_and_test(&b->pending)) {
		if (READ_ONCE(b->failed))
			dma_fence_set_error(&b->base, -EIO);
		dma_fence_signal(&b->base);
	}
}

/* ------------------------------------------------------------ completions */

static u32 pto_cq_free(struct pto_queue *q)
{
	u32 used = q->cq_tail - READ_ONCE(q->hdr->cq_head);

	/* A head user space moved past the tail leaves no room, not more. */
	return used > q->cq_entries ? 0 : q->cq_entries - used;
}

static void pto_fill_cqe(struct drm_pto_npu_cqe *cqe, const struct pto_task *t,
			 const struct pto_unit_rec *rec, u32 block, bool last)
{
	cqe->user_data = t->user_data;
	cqe->task_id = t->id;
	cqe->block = block;
	cqe->reason = last ? t->reason : 0;
	cqe->flags = last ? DRM_PTO_NPU_CQE_F_LAST : 0;
	if (rec && rec->core_type) {
		cqe->status = last ? t->status : rec->status;
		cqe->detail = last ? t->detail : rec->detail;
		cqe->core = rec->core;
		cqe->core_type = rec->core_type;
		if (rec->ran)
			cqe->flags |= DRM_PTO_NPU_CQE_F_RAN;
		if (rec->staged)
			cqe->flags |= DRM_PTO_NPU_CQE_F_STAGED;
		cqe->ts_dispatch = rec->ts[PTO_TS_DISPATCH];
		cqe->ts_receive = rec->ts[PTO_TS_RECEIVE];
		cqe->ts_start = rec->ts[PTO_TS_START];
		cqe->ts_end = rec->ts[PTO_TS_END];
		cqe->ts_finish = rec->ts[PTO_TS_FINISH];
	} else {
		cqe->status = t->status;
		cqe->detail = t->detail;
		cqe->core = 0;
		cqe->core_type = 0;
		cqe->ts_dispatch = 0;
		cqe->ts_receive = 0;
		cqe->ts_start = 0;
		cqe->ts_end = 0;
		/* A task that never ran still has a retire time (skip markers). */
		cqe->ts_finish = t->ts_retire;
	}
}

/*
 * Number of CQEs a task posts: one per unit placed if any of them ran,
 * else one (refused, skipped, dependency failed or cancelled while staged).
 */
static u32 pto_task_ncqe(const struct pto_task *t)
{
	return t->any_ran ? t->next_block * t->nparts : 1;
}

/*
 * A task's completions are all posted (or dropped, its context closing):
 * it no longer counts against its queue (QUEUE_DESTROY) or its context's
 * in-flight caps, although a worker frees it a little later.
 */
static void pto_task_unqueue(struct pto_task *t)
{
	if (t->unqueued)
		return;
	t->unqueued = true;
	atomic_dec(&t->queue->live);
	atomic_dec(&t->ctx->pending);
	atomic_sub(t->units, &t->ctx->inflight_units);
}

/* Post what fits of a task's CQEs; true when all are posted. */
static bool pto_post(struct pto_queue *q, struct pto_task *t)
{
	u32 total = pto_task_ncqe(t), room = pto_cq_free(q);

	lockdep_assert_held(&q->cq_lock);
	while (t->posted < total && room) {
		u32 b = t->posted;
		struct drm_pto_npu_cqe *cqe = &q->cq[q->cq_tail & (q->cq_entries - 1)];

		pto_fill_cqe(cqe, t, t->any_ran ? &t->recs[b] : NULL,
			     b / t->nparts, b == total - 1);
		q->cq_tail++;
		t->posted++;
		room--;
	}
	/*
	 * Fully posted: the task no longer counts against its queue, before
	 * user space can see its last CQE (a queue whose completions are all
	 * reaped can be destroyed at once; the task is freed later).
	 */
	if (t->posted == total)
		pto_task_unqueue(t);
	/* Entries before the index: user space reads cq_tail with acquire. */
	smp_store_release(&q->hdr->cq_tail, q->cq_tail);
	return t->posted == total;
}

static void pto_update_held(struct pto_queue *q)
{
	u32 n = 0;
	struct pto_task *t;

	list_for_each_entry(t, &q->held, held_link)
		n++;
	WRITE_ONCE(q->hdr->cq_held, n);
}

/**
 * pto_queue_task_done - post a completed task's CQEs or hold it
 * @task: task, DONE
 * @freeable: out: the task, once fully posted
 */
void pto_queue_task_done(struct pto_task *task, struct list_head *freeable)
{
	struct pto_queue *q = task->queue;
	bool all;

	spin_lock(&q->cq_lock);
	/*
	 * Under cq_lock, so the scheduler lock is not needed: a closing
	 * context is marked dead before pto_queues_drop_held() takes cq_lock,
	 * so either this sees it or the held list is emptied after this.
	 */
	if (READ_ONCE(task->ctx->dead)) {
		pto_task_unqueue(task);
		list_add_tail(&task->held_link, freeable);
		spin_unlock(&q->cq_lock);
		return;
	}
	all = list_empty(&q->held) && pto_post(q, task);
	if (all) {
		list_add_tail(&task->held_link, freeable);
	} else {
		list_add_tail(&task->held_link, &q->held);
		pto_update_held(q);
	}
	spin_unlock(&q->cq_lock);
	/*
	 * CQEs posted (or held: the waiters flush them): wake QUEUE_WAIT and
	 * poll() now, not when the task is freed, which a worker does in
	 * batches. Without sleepers this costs a barrier, not the lock.
	 */
	if (wq_has_sleeper(&task->ctx->wq))
		wake_up_all(&task->ctx->wq);
}

/* Move held completions into free CQ space. */
void pto_queue_flush(struct pto_queue *q)
{
	struct pto_task *t, *tmp;
	LIST_HEAD(freeable);

	spin_lock(&q->cq_lock);
	list_for_each_entry_safe(t, tmp, &q->held, held_link) {
		if (!pto_post(q, t))
			break;
		list_move_tail(&t->held_link, &freeable);
	}
	pto_update_held(q);
	spin_unlock(&q->cq_lock);
	pto_tasks_free_list(&freeable);
}

void pto_queues_drop_held(struct pto_ctx *ctx)
{
	struct pto_queue *q;
	unsigned long id;
	LIST_HEAD(freeable);

	xa_for_each(&ctx->queues, id, q) {
		struct pto_task *t;

		spin_lock(&q->cq_lock);
		list_for_each_entry(t, &q->held, held_link)
			pto_task_unqueue(t);
		list_splice_tail_init(&q->held, &freeable);
		spin_unlock(&q->cq_lock);
	}
	pto_tasks_free_list(&freeable);
}

/* Unconsumed CQEs, from the kernel's own tail (user space can scribble on the header). */
static u32 pto_cq_available(struct pto_queue *q)
{
	u32 n = READ_ONCE(q->cq_tail) - READ_ONCE(q->hdr->cq_head);

	return min(n, q->cq_entries);
}

static bool pto_cq_ready(struct pto_queue *q)
{
	return pto_cq_available(q) || !list_empty_careful(&q->held);
}

__poll_t pto_queues_poll(struct pto_ctx *ctx)
{
	struct pto_queue *q;
	unsigned long id;
	__poll_t mask = 0;

	mutex_lock(&ctx->submit_lock);
	xa_for_each(&ctx->queues, id, q) {
		if (pto_cq_ready(q)) {
			mask = EPOLLIN | EPOLLRDNORM;
			break;
		}
	}
	mutex_unlock(&ctx->submit_lock);
	return mask;
}

struct pto_queue *pto_queue_lookup(struct pto_ctx *ctx, u32 id)
{
	lockdep_assert_held(&ctx->submit_lock);
	return id ? xa_load(&ctx->queues, id) : NULL;
}

int pto_ioctl_queue_wait(struct drm_device *drm, void *data,
			 struct drm_file *file)
{
	struct drm_pto_npu_queue_wait *args = data;
	struct pto_ctx *ctx = file->driver_priv;
	struct pto_queue *q;
	u32 available, inflight;
	long left;
	s64 now;
	int ret;

	if (args->flags)
		return -EINVAL;
	mutex_lock(&ctx->submit_lock);
	q = pto_queue_lookup(ctx, args->queue_id);
	if (!q) {
		mutex_unlock(&ctx->submit_lock);
		return -ENOENT;
	}
	pto_queue_flush(q);
	/* A waiter keeps the queue from being destroyed under it. */
	atomic_inc(&q->waiters);
	mutex_unlock(&ctx->submit_lock);

	now = ktime_get_ns();
	ret = 0;
	if (!pto_cq_available(q) && args->timeout_ns > now) {
		left = nsecs_to_jiffies(args->timeout_ns - now);
		left = wait_event_interruptible_timeout(ctx->wq, pto_cq_ready(q),
							max(left, 1L));
		if (left < 0)
			ret = left;
	}
	mutex_lock(&ctx->submit_lock);
	pto_queue_flush(q);
	available = pto_cq_available(q);
	inflight = atomic_read(&q->live);
	/* Past this, QUEUE_DESTROY may free the queue: no access after. */
	atomic_dec(&q->waiters);
	mutex_unlock(&ctx->submit_lock);
	if (ret)
		return ret;
	args->available = available;
	args->inflight = inflight;
	return available ? 0 : -ETIME;
}

/* ------------------------------------------------------------ create/destroy */

static void pto_queue_free(struct pto_queue *q)
{
	drm_gem_object_put(&q->ring->base.base);
	kfree(q);
}

int pto_ioctl_queue_create(struct drm_device *drm, void *data,
			   struct drm_file *file)
{
	struct pto_device *pdev = to_pto_device(drm);
	struct drm_pto_npu_queue_create *args = data;
	struct pto_ctx *ctx = file->driver_priv;
	u32 sq = args->sq_slots ? args->sq_slots : PTO_DEFAULT_SQ_SLOTS;
	u32 cq = args->cq_entries ? args->cq_entries : 4 * sq;
	struct drm_gem_object *obj;
	struct pto_queue *q;
	u64 size;
	u32 id, handle;
	int ret;

	if (args->flags || args->pad || args->queue_id || args->handle)
		return -EINVAL;
	if (!is_power_of_2(sq) || sq < PTO_MIN_SQ_SLOTS || sq > PTO_MAX_SQ_SLOTS)
		return -EINVAL;
	if (!args->cq_entries)
		cq = min_t(u32, cq, PTO_MAX_CQ_ENTRIES);
	if (!is_power_of_2(cq) || cq > PTO_MAX_CQ_ENTRIES)
		return -EINVAL;
	if (args->work_budget && (args->work_budget < PTO_MIN_WORK_BUDGET ||
				  args->work_budget > PTO_MAX_WORK_BUDGET))
		return -EINVAL;

	q = kzalloc(sizeof(*q), GFP_KERNEL);
	if (!q)
		return -ENOMEM;
	args->sq_offset = sizeof(struct drm_pto_npu_ring_header);
	args->cq_offset = args->sq_offset + sq * DRM_PTO_NPU_SQ_SLOT_SIZE;
	size = args->cq_offset + (u64)cq * sizeof(struct drm_pto_npu_cqe);
	q->ring = pto_bo_create_kernel(pdev, ctx, size);
	if (IS_ERR(q->ring)) {
		ret = PTR_ERR(q->ring);
		kfree(q);
		return ret;
	}
	q->ctx = ctx;
	q->hdr = q->ring->vaddr;
	q->sq = (u8 *)q->ring->vaddr + args->sq_offset;
	q->cq = (void *)((u8 *)q->ring->vaddr + args->cq_offset);
	q->sq_slots = sq;
	q->cq_entries = cq;
	q->work_budget = args->work_budget ?: pto_default_work_budget();
	args->work_budget = q->work_budget;
	spin_lock_init(&q->cq_lock);
	INIT_LIST_HEAD(&q->held);
	atomic_set(&q->live, 0);
	atomic_set(&q->waiters, 0);

	obj = &q->ring->base.base;
	ret = drm_gem_create_mmap_offset(obj);
	if (ret)
		goto err_free;
	ret = drm_gem_handle_create(file, obj, &handle);
	if (ret)
		goto err_free;

	mutex_lock(&ctx->submit_lock);
	ret = xa_alloc(&ctx->queues, &id, q,
		       XA_LIMIT(1, PTO_MAX_QUEUES_PER_CONTEXT), GFP_KERNEL);
	mutex_unlock(&ctx->submit_lock);
	if (ret) {
		drm_gem_handle_delete(file, handle);
		ret = ret == -EBUSY ? -ENOSPC : ret;
		goto err_free;
	}
	q->id = id;
	args->queue_id = id;
	args->handle = handle;
	args->sq_slots = sq;
	args->cq_entries = cq;
	args->mmap_offset = drm_vma_node_offset_addr(&obj->vma_node);
	args->ring_size = obj->size;
	return 0;

err_free:
	pto_queue_free(q);
	return ret;
}

int pto_ioctl_queue_destroy(struct drm_device *drm, void *data,
			    struct drm_file *file)
{
	struct drm_pto_npu_queue_destroy *args = data;
	struct pto_ctx *ctx = file->driver_priv;
	struct pto_queue *q;
	int ret = 0;

	if (args->pad)
		return -EINVAL;
	mutex_lock(&ctx->submit_lock);
	q = pto_queue_lookup(ctx, args->queue_id);
	if (!q)
		ret = -ENOENT;
	else if (atomic_read(&q->live) || atomic_read(&q->waiters))
		ret = -EBUSY;
	else
		xa_erase(&ctx->queues, q->id);
	mutex_unlock(&ctx->submit_lock);
	if (ret)
		return ret;
	/*
	 * The last task stopped counting in q->live under cq_lock, in the
	 * worker that posted its last CQE: wait until that worker is out of
	 * the lock's section. Nothing else reaches the queue now.
	 */
	spin_lock(&q->cq_lock);
	spin_unlock(&q->cq_lock);
	pto_queue_free(q);
	return 0;
}

void pto_queues_release(struct pto_ctx *ctx)
{
	struct pto_queue *q;
	unsigned long id;

	xa_for_each(&ctx->queues, id, q)
		pto_queue_free(q);
	xa_destroy(&ctx->queues);
}

/* Signal a completed task's submission's fence and post its CQEs (or hold them). */
void pto_queue_post(struct pto_task *task, struct list_head *freeable)
{
	pto_batch_retire(task->batch,
			 task->status != DRM_PTO_NPU_STATUS_OK &&
			 task->status != DRM_PTO_NPU_STATUS_SKIPPED);
	pto_queue_task_done(task, freeable);
}

/**
 * pto_queue_post_list - post the completions a worker left for later
 * @post: completed tasks, linked by held_link
 * @freeable: out: tasks fully retired, to free outside the scheduler lock
 */
void pto_queue_post_list(struct list_head *post, struct list_head *freeable)
{
	struct pto_task *task, *tmp;

	list_for_each_entry_safe(task, tmp, post, held_link) {
		list_del_init(&task->held_link);
		pto_queue_post(task, freeable);
	}
}
