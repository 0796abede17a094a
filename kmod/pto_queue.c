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

#include <linux/cleanup.h>
#include <linux/dma-fence.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/lockdep.h>
#include <linux/log2.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/wait.h>

#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_print.h>

#include "pto_gem.h"
#include "pto_graph.h"
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
	struct pto_batch *b = kzalloc(sizeof(*b), GFP_KERNEL_ACCOUNT);

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

/* Free CQ entries, from the kernel's own tail (cq_lock). */
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
	if (t->graph == PTO_GRAPH_NODE)
		cqe->flags |= DRM_PTO_NPU_CQE_F_NODE;
	if (rec && rec->core_type) {
		cqe->status = rec->status;
		cqe->detail = rec->detail;
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
	if (t->graph == PTO_GRAPH_LAUNCH)
		pto_launch_fill_cqe(cqe, t);
}

/*
 * The profile record beside CQE @b of @t: its unit's waits (none for a task
 * that never ran) and the scheduler's work, the task's part from unit 0.
 */
static void pto_fill_prof(struct drm_pto_npu_prof *out,
			  const struct pto_task *t, u32 b)
{
	const struct pto_unit_prof *p = pto_task_prof(t);
	const struct pto_unit_prof *u = p && t->any_ran ? p + b : NULL;
	u32 n = u ? min_t(u32, u->nwaits, DRM_PTO_NPU_PROF_WAITS) : 0;

	out->nwaits = u ? u->nwaits : 0;
	out->pad = 0;
	out->wait_ns = u ? u->wait_ns : 0;
	if (n)
		memcpy(out->waits, u->waits, n * sizeof(u->waits[0]));
	memset(&out->waits[n], 0,
	       (DRM_PTO_NPU_PROF_WAITS - n) * sizeof(out->waits[0]));
	if (!p || !t->units) {
		memset(&out->sched, 0, sizeof(out->sched));
		return;
	}
	out->sched = u ? u->sched : p->sched;
	out->sched.intake_begin = p->sched.intake_begin;
	out->sched.intake_end = p->sched.intake_end;
	out->sched.intake_iter = p->sched.intake_iter;
	out->sched.resolve_begin = p->sched.resolve_begin;
	out->sched.resolve_end = p->sched.resolve_end;
	out->sched.resolve_iter = p->sched.resolve_iter;
	out->sched.resolved = p->sched.resolved;
}

/*
 * The hazard record beside a CQE: unit @unit's first hazard (@unit equal
 * to the task's units: none of its own), else, for the last CQE, the one
 * found at intake. True if it reports one.
 */
static bool pto_fill_haz(struct drm_pto_npu_hazard *out,
			 const struct pto_task *t, u32 unit, bool last)
{
	const struct drm_pto_npu_hazard *h = pto_task_haz(t);

	if (h && unit < t->units && h[unit].kind)
		h += unit;
	else if (h && last && h[t->units].kind)
		h += t->units;
	else
		h = NULL;
	if (h)
		*out = *h;
	else
		memset(out, 0, sizeof(*out));
	return h;
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
	lockdep_assert_held(&t->queue->cq_lock);
	if (t->unqueued)
		return;
	t->unqueued = true;
	/* A launch's node counts as a task in flight, not in its queue's. */
	if (t->graph != PTO_GRAPH_NODE)
		atomic_dec(&t->queue->live);
	pto_launch_unqueue(t);
	atomic_dec(&t->ctx->pending);
	atomic_sub(t->units, &t->ctx->inflight_units);
}

/*
 * The unit whose CQE is the task's next of @total: units in order, except
 * that the unit whose failure failed the task comes last, so that every
 * CQE carries its own unit's status and the LAST one's is the task's.
 */
static u32 pto_cqe_unit(const struct pto_task *t, u32 total)
{
	u32 f = t->fail_unit;

	if (!f || f > total || t->posted + 1 < f)
		return t->posted;
	return t->posted == total - 1 ? f - 1 : t->posted + 1;
}

/* Post what fits of a task's CQEs; true when all are posted. */
static bool pto_cq_post(struct pto_queue *q, struct pto_task *t)
{
	u32 total = pto_task_ncqe(t), room = pto_cq_free(q);

	lockdep_assert_held(&q->cq_lock);
	while (t->posted < total && room) {
		u32 b = pto_cqe_unit(t, total);
		struct drm_pto_npu_cqe *cqe = &q->cq[q->cq_tail & (q->cq_entries - 1)];
		bool last = t->posted == total - 1;

		pto_fill_cqe(cqe, t, t->any_ran ? &t->recs[b] : NULL,
			     b / t->nparts, last);
		if (q->prof)
			pto_fill_prof(&q->prof[q->cq_tail & (q->cq_entries - 1)],
				      t, b);
		if (q->haz && pto_fill_haz(&q->haz[q->cq_tail & (q->cq_entries - 1)],
					   t, t->any_ran ? b : t->units, last))
			cqe->flags |= DRM_PTO_NPU_CQE_F_HAZARD;
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

/*
 * Tell user space how many completed tasks wait for CQ space: the count
 * kept beside the list, not a walk of it (under the scheduler lock too).
 */
static void pto_cq_update_held(struct pto_queue *q)
{
	lockdep_assert_held(&q->cq_lock);
	WRITE_ONCE(q->hdr->cq_held, q->nheld);
}

/**
 * pto_queue_task_done - post a completed task's CQEs or hold it
 * @task: task, DONE
 * @freeable: out: the task, once fully posted
 */
void pto_queue_task_done(struct pto_task *task, struct list_head *freeable)
{
	struct pto_queue *q = task->queue;

	scoped_guard(spinlock, &q->cq_lock) {
		/*
		 * Under cq_lock, so the scheduler lock is not needed: a closing
		 * context is marked dead before pto_queues_drop_held() takes
		 * cq_lock, so either this sees it or the held list is emptied
		 * after this.
		 */
		if (READ_ONCE(task->ctx->dead)) {
			pto_task_unqueue(task);
			list_add_tail(&task->held_link, freeable);
			return;
		}
		if (list_empty(&q->held) && pto_cq_post(q, task)) {
			list_add_tail(&task->held_link, freeable);
		} else {
			list_add_tail(&task->held_link, &q->held);
			q->nheld++;
			pto_cq_update_held(q);
		}
		/*
		 * CQEs posted (or held: the waiters flush them): wake
		 * QUEUE_WAIT and poll() now, not when the task is freed, which
		 * a worker does in batches. Still under cq_lock: once a task is
		 * on q->held, QUEUE_WAIT or close may free it, and close then
		 * the context, as soon as the lock drops (a deferred post holds
		 * no scheduler lock). Without sleepers this costs a barrier.
		 */
		if (wq_has_sleeper(&q->ctx->wq))
			wake_up_all(&q->ctx->wq);
	}
}

/**
 * pto_queue_flush - move held completions into free CQ space
 * @q: the queue
 *
 * Frees the tasks whose completions are then all posted. Called by the
 * doorbell and QUEUE_WAIT, under submit_lock: the queue cannot go away.
 */
void pto_queue_flush(struct pto_queue *q)
{
	struct pto_task *t, *tmp;
	LIST_HEAD(freeable);

	lockdep_assert_held(&q->ctx->submit_lock);
	scoped_guard(spinlock, &q->cq_lock) {
		list_for_each_entry_safe(t, tmp, &q->held, held_link) {
			if (!pto_cq_post(q, t))
				break;
			list_move_tail(&t->held_link, &freeable);
			q->nheld--;
		}
		pto_cq_update_held(q);
	}
	pto_tasks_free_list(&freeable);
}

/**
 * pto_queues_drop_held - free the held completions of a closing context
 * @ctx: the context, already marked dead (pto_sched_cancel_ctx())
 */
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
		q->nheld = 0;
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

/**
 * pto_queues_poll - poll() of a context's file: any queue with CQEs to read
 * @ctx: the context
 *
 * Return: EPOLLIN | EPOLLRDNORM when a queue has CQEs or held completions.
 */
__poll_t pto_queues_poll(struct pto_ctx *ctx)
{
	struct pto_queue *q;
	unsigned long id;

	guard(mutex)(&ctx->submit_lock);
	xa_for_each(&ctx->queues, id, q) {
		if (pto_cq_ready(q))
			return EPOLLIN | EPOLLRDNORM;
	}
	return 0;
}

/**
 * pto_queue_lookup - a queue of the context by its id
 * @ctx: the context, its submit_lock held (the queue stays while it is)
 * @id: queue id
 *
 * Return: the queue, or NULL.
 */
struct pto_queue *pto_queue_lookup(struct pto_ctx *ctx, u32 id)
{
	lockdep_assert_held(&ctx->submit_lock);
	return id ? xa_load(&ctx->queues, id) : NULL;
}

/*
 * Sleep until @q has CQEs to read, a signal, or the CLOCK_MONOTONIC
 * deadline @timeout_ns. Returns 0, or -ERESTARTSYS on a signal.
 */
static int pto_queue_sleep(struct pto_ctx *ctx, struct pto_queue *q,
			   s64 timeout_ns)
{
	for (;;) {
		s64 now = ktime_get_ns();
		int ret;

		if (pto_cq_available(q) || timeout_ns <= now)
			return 0;
		/*
		 * An hrtimer on CLOCK_MONOTONIC, the deadline's clock, not
		 * jiffies: under a loaded VM jiffies ran ahead of it and the
		 * wait ended 96 ms into a 200 ms deadline. Woken early, the
		 * clock decides.
		 */
		ret = wait_event_interruptible_hrtimeout(ctx->wq, pto_cq_ready(q),
							 ns_to_ktime(timeout_ns - now));
		if (ret != -ETIME)
			return ret;
	}
}

/**
 * pto_ioctl_queue_wait - DRM_IOCTL_PTO_NPU_QUEUE_WAIT: wait for CQEs
 * @drm: device
 * @data: struct drm_pto_npu_queue_wait
 * @file: the caller's file
 *
 * Moves held completions into the CQ, then sleeps until the CQ has
 * entries to read or the deadline passes.
 *
 * Return: 0 with CQEs available; -ETIME without; -EINVAL for flags;
 * -ENOENT for an unknown queue; -ERESTARTSYS on a signal.
 */
int pto_ioctl_queue_wait(struct drm_device *drm, void *data,
			 struct drm_file *file)
{
	struct drm_pto_npu_queue_wait *args = data;
	struct pto_ctx *ctx = file->driver_priv;
	struct pto_queue *q;
	u32 available, inflight;
	int ret;

	if (args->flags) {
		drm_dbg(drm, "QUEUE_WAIT: flags 0x%x must be 0\n", args->flags);
		return -EINVAL;
	}
	scoped_guard(mutex, &ctx->submit_lock) {
		q = pto_queue_lookup(ctx, args->queue_id);
		if (!q)
			return -ENOENT;
		pto_queue_flush(q);
		/* A waiter keeps the queue from being destroyed under it. */
		atomic_inc(&q->waiters);
	}
	ret = pto_queue_sleep(ctx, q, args->timeout_ns);
	scoped_guard(mutex, &ctx->submit_lock) {
		pto_queue_flush(q);
		available = pto_cq_available(q);
		inflight = atomic_read(&q->live);
		/* Past this, QUEUE_DESTROY may free the queue: no access after. */
		atomic_dec(&q->waiters);
	}
	if (ret)
		return ret;
	args->available = available;
	args->inflight = inflight;
	return available ? 0 : -ETIME;
}

/* ------------------------------------------------------------ create/destroy */

/*
 * pto_prof_key: on while a profiling queue exists. The scheduler's records
 * (pto_task_sched()) cost the tasks of other queues nothing then: a patched
 * jump, not a test per task (Documentation/uapi.rst, "Profile records").
 */
DEFINE_STATIC_KEY_FALSE(pto_prof_key);

static void pto_queue_free(struct pto_queue *q)
{
	if (q->prof)
		static_branch_dec(&pto_prof_key);
	drm_gem_object_put(&q->ring->base.base);
	kfree(q);
}

static int pto_queue_check_args(struct drm_device *drm,
				const struct drm_pto_npu_queue_create *args,
				u32 *sq_slots, u32 *cq_entries)
{
	u32 sq = args->sq_slots ? args->sq_slots : PTO_DEFAULT_SQ_SLOTS;
	u32 cq = args->cq_entries ? args->cq_entries : 4 * sq;
	u64 max_budget;

	if ((args->flags & ~DRM_PTO_NPU_QUEUE_F_ALL) || args->pad ||
	    args->queue_id || args->handle || args->prof_offset ||
	    args->prof_size || args->haz_offset || args->haz_size ||
	    args->gm_model || args->pad2) {
		drm_dbg(drm, "QUEUE_CREATE: flags 0x%x (known 0x%lx), pad %u, queue_id %u, handle %u, prof_offset %u, prof_size %u, haz_offset %u, haz_size %u, gm_model %u, pad2 %u: must be 0\n",
			args->flags, DRM_PTO_NPU_QUEUE_F_ALL, args->pad,
			args->queue_id, args->handle, args->prof_offset,
			args->prof_size, args->haz_offset, args->haz_size,
			args->gm_model, args->pad2);
		return -EINVAL;
	}
	if ((args->flags & DRM_PTO_NPU_QUEUE_F_COHERENT) &&
	    (args->flags & (DRM_PTO_NPU_QUEUE_F_NONCOHERENT |
			    DRM_PTO_NPU_QUEUE_F_SANITIZE))) {
		drm_dbg(drm, "QUEUE_CREATE: flags 0x%x: COHERENT with NONCOHERENT or SANITIZE (the sanitizer checks the chip's non-coherent GM)\n",
			args->flags);
		return -EINVAL;
	}
	if (!is_power_of_2(sq) || sq < PTO_MIN_SQ_SLOTS || sq > PTO_MAX_SQ_SLOTS) {
		drm_dbg(drm, "QUEUE_CREATE: sq_slots %u is no power of two in %u..%u\n",
			sq, PTO_MIN_SQ_SLOTS, PTO_MAX_SQ_SLOTS);
		return -EINVAL;
	}
	if (!args->cq_entries)
		cq = min_t(u32, cq, PTO_MAX_CQ_ENTRIES);
	if (!is_power_of_2(cq) || cq > PTO_MAX_CQ_ENTRIES) {
		drm_dbg(drm, "QUEUE_CREATE: cq_entries %u is no power of two up to %u\n",
			cq, PTO_MAX_CQ_ENTRIES);
		return -EINVAL;
	}
	max_budget = pto_max_work_budget();
	if (args->work_budget && (args->work_budget < PTO_MIN_WORK_BUDGET ||
				  args->work_budget > max_budget)) {
		drm_dbg(drm, "QUEUE_CREATE: work_budget %llu outside %llu..%llu\n",
			args->work_budget, PTO_MIN_WORK_BUDGET, max_budget);
		return -EINVAL;
	}
	if (args->work_budget > pto_caller_max_work_budget(true)) {
		drm_dbg(drm, "QUEUE_CREATE: work_budget %llu needs CAP_SYS_NICE (or a larger module parameter max_user_work_budget)\n",
			args->work_budget);
		return -EPERM;
	}
	*sq_slots = sq;
	*cq_entries = cq;
	return 0;
}

/*
 * A queue of @sq SQ slots and @cq CQ entries in one ring buffer, charged
 * to @ctx and mapped by the module; the ring's layout and the queue's work
 * budget go to @args.
 */
static struct pto_queue *pto_queue_alloc(struct pto_device *pdev,
					 struct pto_ctx *ctx,
					 struct drm_pto_npu_queue_create *args,
					 u32 sq, u32 cq)
{
	struct pto_queue *q __free(kfree) = kzalloc(sizeof(*q), GFP_KERNEL);
	u64 size;

	if (!q)
		return ERR_PTR(-ENOMEM);
	args->sq_offset = sizeof(struct drm_pto_npu_ring_header);
	args->cq_offset = args->sq_offset + sq * DRM_PTO_NPU_SQ_SLOT_SIZE;
	size = args->cq_offset + (u64)cq * sizeof(struct drm_pto_npu_cqe);
	if (args->flags & DRM_PTO_NPU_QUEUE_F_PROFILE) {
		args->prof_offset = size;
		args->prof_size = sizeof(struct drm_pto_npu_prof);
		size += (u64)cq * sizeof(struct drm_pto_npu_prof);
	}
	/* The sanitizer: asked for, or the module's, unless coherent. */
	if ((args->flags & DRM_PTO_NPU_QUEUE_F_SANITIZE) ||
	    (pto_default_sanitize() &&
	     !(args->flags & DRM_PTO_NPU_QUEUE_F_COHERENT))) {
		args->haz_offset = size;
		args->haz_size = sizeof(struct drm_pto_npu_hazard);
		size += (u64)cq * sizeof(struct drm_pto_npu_hazard);
	}
	if (args->flags & DRM_PTO_NPU_QUEUE_F_COHERENT)
		args->gm_model = 0;
	else
		args->gm_model = args->haz_size ||
				 (args->flags & DRM_PTO_NPU_QUEUE_F_NONCOHERENT) ||
				 pto_default_noncoherent();
	q->ring = pto_bo_create_kernel(pdev, ctx, size);
	if (IS_ERR(q->ring))
		return ERR_CAST(q->ring);
	q->ctx = ctx;
	q->hdr = q->ring->vaddr;
	q->sq = (u8 *)q->ring->vaddr + args->sq_offset;
	q->cq = (void *)((u8 *)q->ring->vaddr + args->cq_offset);
	if (args->prof_size) {
		q->prof = (void *)((u8 *)q->ring->vaddr + args->prof_offset);
		static_branch_inc(&pto_prof_key);
	}
	if (args->haz_size)
		q->haz = (void *)((u8 *)q->ring->vaddr + args->haz_offset);
	q->noncoherent = args->gm_model;
	q->sq_slots = sq;
	q->cq_entries = cq;
	q->work_budget = args->work_budget ?: pto_default_work_budget();
	args->work_budget = q->work_budget;
	spin_lock_init(&q->cq_lock);
	INIT_LIST_HEAD(&q->held);
	atomic_set(&q->live, 0);
	atomic_set(&q->waiters, 0);
	return_ptr(q);
}

/*
 * Give the ring an mmap offset, the queue an id, then the ring a handle
 * and the id its queue. The handle comes last but for a store that cannot
 * fail: from then on other threads of the file may close it and reuse its
 * number, so nothing after it may fail and delete a handle by number. The
 * id is only reserved until then (pto_queue_lookup() sees NULL); once the
 * queue is stored QUEUE_DESTROY may free it, so what @args reports is read
 * before.
 */
static int pto_queue_publish(struct drm_device *drm, struct drm_file *file,
			     struct pto_queue *q,
			     struct drm_pto_npu_queue_create *args)
{
	struct drm_gem_object *obj = &q->ring->base.base;
	struct pto_ctx *ctx = file->driver_priv;
	u32 id, handle;
	int ret;

	ret = drm_gem_create_mmap_offset(obj);
	if (ret)
		return ret;
	scoped_guard(mutex, &ctx->submit_lock)
		ret = xa_alloc(&ctx->queues, &id, NULL,
			       XA_LIMIT(1, PTO_MAX_QUEUES_PER_CONTEXT), GFP_KERNEL);
	if (ret == -EBUSY) {
		drm_dbg(drm, "QUEUE_CREATE: the context has %u queues already\n",
			PTO_MAX_QUEUES_PER_CONTEXT);
		return -ENOSPC;
	}
	if (ret)
		return ret;
	ret = drm_gem_handle_create(file, obj, &handle);
	if (ret) {
		xa_release(&ctx->queues, id);
		return ret;
	}
	args->queue_id = id;
	args->handle = handle;
	args->mmap_offset = drm_vma_node_offset_addr(&obj->vma_node);
	args->ring_size = obj->size;
	scoped_guard(mutex, &ctx->submit_lock) {
		/* Before the lock is dropped: QUEUE_DESTROY erases by q->id. */
		q->id = id;
		/* Into the reserved slot: no allocation, no failure. */
		WARN_ON(xa_is_err(xa_store(&ctx->queues, id, q, GFP_KERNEL)));
	}
	return 0;
}

/**
 * pto_ioctl_queue_create - DRM_IOCTL_PTO_NPU_QUEUE_CREATE: a dispatch queue
 * @drm: device
 * @data: struct drm_pto_npu_queue_create
 * @file: the caller's file
 *
 * Return: 0; -EINVAL for a malformed argument; -ENOSPC past the context's
 * queues or GM caps; -ENOMEM.
 */
int pto_ioctl_queue_create(struct drm_device *drm, void *data,
			   struct drm_file *file)
{
	struct drm_pto_npu_queue_create *args = data;
	struct pto_queue *q;
	u32 sq, cq;
	int ret;

	ret = pto_queue_check_args(drm, args, &sq, &cq);
	if (ret)
		return ret;
	q = pto_queue_alloc(to_pto_device(drm), file->driver_priv, args, sq, cq);
	if (IS_ERR(q))
		return PTR_ERR(q);
	ret = pto_queue_publish(drm, file, q, args);
	if (ret) {
		pto_queue_free(q);
		return ret;
	}
	args->sq_slots = sq;
	args->cq_entries = cq;
	return 0;
}

/**
 * pto_ioctl_queue_destroy - DRM_IOCTL_PTO_NPU_QUEUE_DESTROY
 * @drm: device
 * @data: struct drm_pto_npu_queue_destroy
 * @file: the caller's file
 *
 * The ring buffer lives on while its handle or a mapping does.
 *
 * Return: 0; -EINVAL for a pad not zero; -ENOENT for an unknown queue;
 * -EBUSY while tasks of the queue are in flight or held, or a thread waits.
 */
int pto_ioctl_queue_destroy(struct drm_device *drm, void *data,
			    struct drm_file *file)
{
	struct drm_pto_npu_queue_destroy *args = data;
	struct pto_ctx *ctx = file->driver_priv;
	struct pto_queue *q;

	if (args->pad) {
		drm_dbg(drm, "QUEUE_DESTROY: pad %u must be 0\n", args->pad);
		return -EINVAL;
	}
	scoped_guard(mutex, &ctx->submit_lock) {
		q = pto_queue_lookup(ctx, args->queue_id);
		if (!q)
			return -ENOENT;
		if (atomic_read(&q->live) || atomic_read(&q->waiters))
			return -EBUSY;
		xa_erase(&ctx->queues, q->id);
	}
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

/**
 * pto_queues_release - free the queues of a closed context
 * @ctx: the context, none of its tasks left
 */
void pto_queues_release(struct pto_ctx *ctx)
{
	struct pto_queue *q;
	unsigned long id;

	xa_for_each(&ctx->queues, id, q)
		pto_queue_free(q);
	xa_destroy(&ctx->queues);
}

/**
 * pto_queue_post - a task completed: its doorbell's fence, then its CQEs
 * @task: the task, DONE
 * @freeable: out: the task, once its CQEs are all posted
 *
 * Retires the task from its doorbell's fence (failed unless OK or
 * SKIPPED), then posts its CQEs or holds them (pto_queue_task_done()).
 */
void pto_queue_post(struct pto_task *task, struct list_head *freeable)
{
	/* A node posts CQEs only on a profiling queue: else it is freed. */
	if (task->graph == PTO_GRAPH_NODE && !task->profiled) {
		task->unqueued = true;
		atomic_dec(&task->ctx->pending);
		atomic_sub(task->units, &task->ctx->inflight_units);
		list_add_tail(&task->held_link, freeable);
		return;
	}
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
