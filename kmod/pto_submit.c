// SPDX-License-Identifier: GPL-2.0-only
/*
 * pto_npu: the doorbell (QUEUE_SUBMIT): SQ entry intake and validation.
 *
 * The doorbell ioctl drains the SQ in process context: each entry is
 * copied out of shared memory once, then validated from the copy (no
 * time-of-check/time-of-use window), then becomes a task handed to the
 * scheduler. A refused entry still becomes a task with an id and
 * completes at once with STATUS_INVALID and a reason, so entries before
 * and after it are unaffected.
 *
 * The data path runs one way, from the ioctl at the bottom of this file
 * up: pto_ioctl_queue_submit() creates the doorbell's fence, takes the
 * entries (pto_take_entries(), pto_take_entry()), each parsed
 * (pto_entry_parse(), pto_entry.c) and its arguments resolved, hands
 * each task to pto_sched_add(), then publishes the fence.
 *
 * Copyright (C) 2026 pto-npu authors
 */

#include <linux/dma-fence-chain.h>
#include <linux/ktime.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_print.h>
#include <drm/drm_syncobj.h>

#include "pto_entry.h"
#include "pto_gem.h"
#include "pto_graph.h"
#include "pto_infer.h"
#include "pto_kernel.h"
#include "pto_queue.h"
#include "pto_sched.h"
#include "pto_submit.h"
#include "pto_task_mem.h"
#include "pto_tensor.h"
#include "pto_xring.h"
#include "pto_trace.h"

#define PTO_SCRATCH_SIZE (PTO_SQE_MAX_SLOTS * PTO_SQE_SLOT)

static_assert(sizeof(struct drm_pto_npu_sqe) == PTO_SQE_SLOT);
static_assert(PTO_MIN_SQ_SLOTS >= PTO_SQE_MAX_SLOTS);

/* Entries a doorbell takes between two reschedule points. */
#define PTO_INTAKE_BATCH 64

/**
 * pto_ctx_scratch_alloc - a context's copy of one SQ entry (&pto_ctx.scratch)
 *
 * Room for the largest entry: intake copies each entry there out of the
 * ring before it reads any of it.
 *
 * Return: the memory, or NULL.
 */
void *pto_ctx_scratch_alloc(void)
{
	return kmalloc(PTO_SCRATCH_SIZE, GFP_KERNEL_ACCOUNT);
}

/**
 * struct pto_submit - one doorbell (QUEUE_SUBMIT) in progress
 * @pdev: device
 * @file: the caller's file: its tensor handles
 * @ctx: the caller's context
 * @args: the ioctl's arguments
 * @syncobj: the syncobj the doorbell's fence goes to, or NULL
 * @chain: the chain node of a timeline point (@args->syncobj_point)
 * @batch: the doorbell's fence, with @syncobj
 * @taken: entries taken
 * @full: the next entry did not fit beside the tasks and units in flight
 * @freeable: tasks completed at intake, freed once submit_lock is dropped
 */
struct pto_submit {
	struct pto_device *pdev;
	struct drm_file *file;
	struct pto_ctx *ctx;
	struct drm_pto_npu_queue_submit *args;
	struct drm_syncobj *syncobj;
	struct dma_fence_chain *chain;
	struct pto_batch *batch;
	u32 taken;
	bool full;
	struct list_head freeable;
};

/* ------------------------------------------------------------ intake */

/* Copy @n slots starting at ring index @head into @dst. */
static void pto_sq_copy(struct pto_queue *q, u32 head, u32 n, u8 *dst)
{
	u32 i;

	for (i = 0; i < n; i++)
		memcpy(dst + i * PTO_SQE_SLOT,
		       q->sq + ((head + i) & (q->sq_slots - 1)) * PTO_SQE_SLOT,
		       PTO_SQE_SLOT);
}

/*
 * Copy the entry at ring index @head (@avail slots published) into @e. A
 * slot count that cannot be right (zero, past what was published, past the
 * largest entry) leaves no way to find the next entry: take the header slot
 * alone, for pto_sqe_check_size() to refuse. Otherwise take the whole
 * entry, whatever else is wrong with it. Returns the slots taken.
 */
static u32 pto_sq_copy_entry(struct pto_queue *q, u32 head, u32 avail,
			     struct drm_pto_npu_sqe *e)
{
	u32 n;

	pto_sq_copy(q, head, 1, (u8 *)e);
	n = e->num_slots;
	if (!n || n > avail || n > PTO_SQE_MAX_SLOTS)
		return 1;
	pto_sq_copy(q, head + 1, n - 1, (u8 *)e + PTO_SQE_SLOT);
	return n;
}

/*
 * A task taken, before the scheduler sees it: counted, traced, joined to
 * the doorbell's fence, and counted against its queue and its context's
 * in-flight caps until its completions are posted.
 */
static void pto_task_account(struct pto_submit *sub, struct pto_queue *q,
			     struct pto_task *t)
{
	struct pto_device *pdev = sub->pdev;
	struct pto_ctx *ctx = sub->ctx;

	pto_count(pdev, tasks);
	if (t->status == DRM_PTO_NPU_STATUS_INVALID)
		pto_count(pdev, invalid);
	trace_pto_intake(t);
	if (sub->batch) {
		atomic_inc(&sub->batch->pending);
		t->batch = sub->batch;
		dma_fence_get(&sub->batch->base);
	}
	atomic_inc(&q->live);
	atomic_inc(&ctx->inflight);
	atomic_inc(&ctx->pending);
	atomic_add(t->units, &ctx->inflight_units);
}

/*
 * The graph launch entry @e names, with a reference, when its size is
 * right (@sized); NULL for any other entry. Looked up once: the in-flight
 * check counts its nodes and pto_launch_parse() takes it.
 */
static struct pto_graph *pto_entry_graph(struct pto_ctx *ctx,
					 const struct drm_pto_npu_sqe *e,
					 bool sized)
{
	if (!sized || !(e->flags & DRM_PTO_NPU_TASK_F_GRAPH) ||
	    e->reserved[0] > U32_MAX)
		return NULL;
	return pto_graph_lookup(ctx, e->reserved[0]);
}

/*
 * Does entry @e fit beside what the context has in flight? Counted before
 * anything is allocated: a task, its units (block records: blocks times
 * parts), and for a launch its graph @g's nodes and their units too. An
 * entry refused by its size (!@sized) is allocated without units.
 */
static bool pto_entry_fits(struct pto_ctx *ctx, const struct drm_pto_npu_sqe *e,
			   bool sized, const struct pto_graph *g)
{
	u32 units = 0, tasks = 1;

	if (sized)
		units = e->block_num * pto_sqe_nparts(e);
	if (g) {
		units += g->units;
		tasks += g->nnodes;
	}
	return atomic_read(&ctx->pending) + tasks <= PTO_MAX_INFLIGHT_TASKS &&
	       atomic_read(&ctx->inflight_units) + units <= PTO_MAX_INFLIGHT_UNITS;
}

/*
 * Take the entry at ring index @head (@avail slots published) as the next
 * task: copy it out, size it, count its units against the context's cap,
 * allocate it, parse it, hand it to the scheduler. Returns the slots it
 * used, 0 when it was not taken: out of memory, or @sub->full when it
 * does not fit beside what is in flight (the doorbell rung after
 * completions takes it).
 */
static u32 pto_take_entry(struct pto_submit *sub, struct pto_queue *q,
			  u32 head, u32 avail)
{
	struct pto_ctx *ctx = sub->ctx;
	struct drm_pto_npu_sqe *e = ctx->scratch;
	/* Profiling queues: the intake's begin, for the task's record. */
	u64 begin = q->prof ? ktime_get_ns() : 0;
	struct pto_graph *g __free(pto_graph_put) = NULL;
	struct drm_pto_npu_sched *r;
	s64 deps[PTO_MAX_DEPS];
	struct pto_task *t;
	u64 detail;
	u8 reason;
	u32 n;

	lockdep_assert_held(&ctx->submit_lock);
	n = pto_sq_copy_entry(q, head, avail, e);
	pto_sqe_resolve_grid(sub->pdev, e);
	reason = pto_sqe_check_size(e, n, &detail);
	g = pto_entry_graph(ctx, e, !reason);
	if (!pto_entry_fits(ctx, e, !reason, g)) {
		sub->full = true;
		return 0;
	}
	t = pto_entry_task_alloc(ctx, q, e, !reason, g ? g->nnodes : 0);
	if (!t)
		return 0;
	r = pto_task_sched(t, 0);
	if (r)
		r->intake_begin = begin;
	t->id = ctx->next_id;
	/* A launch's CQE is a graph CQE, refused by its size too. */
	if (reason && (e->flags & DRM_PTO_NPU_TASK_F_GRAPH))
		t->graph = PTO_GRAPH_LAUNCH;
	if (reason)
		pto_refuse(t, reason, detail);
	else if (e->flags & DRM_PTO_NPU_TASK_F_GRAPH)
		pto_launch_parse(sub->pdev, sub->file, q, t, e,
				 no_free_ptr(g), deps);
	else
		pto_entry_parse(sub->pdev, sub->file, t, e, deps);
	if (t->status == DRM_PTO_NPU_STATUS_OK && pto_infer_prepare(ctx, t)) {
		t->status = DRM_PTO_NPU_STATUS_NOMEM;
		t->num_deps = 0;
		t->block_num = 0;
	}
	ctx->next_id++;
	pto_task_account(sub, q, t);
	pto_sched_add(sub->pdev, t, deps, &sub->freeable);
	return n;
}

/*
 * Take the entries user space published on @q, up to the context's
 * in-flight caps, and move the kernel's SQ head past them.
 */
static int pto_take_entries(struct pto_submit *sub, struct pto_queue *q)
{
	u32 head = q->sq_head, tail;
	int ret = 0;

	lockdep_assert_held(&sub->ctx->submit_lock);
	/* Pairs with user space's release store: entries before the index. */
	tail = smp_load_acquire(&q->hdr->sq_tail);
	if (tail - head > q->sq_slots) {
		/* The user index is beyond the ring: take nothing. */
		drm_dbg(&sub->pdev->drm, "QUEUE_SUBMIT: sq_tail %u is %u slots past sq_head %u, the ring has %u\n",
			tail, tail - head, head, q->sq_slots);
		return -EINVAL;
	}
	while (head != tail) {
		u32 n = pto_take_entry(sub, q, head, tail - head);

		if (!n) {
			/* Out of memory: a failure only if nothing was taken. */
			if (!sub->full && !sub->taken)
				ret = -ENOMEM;
			break;
		}
		head += n;
		sub->taken++;
		/*
		 * A doorbell may take thousands of entries: let others run,
		 * but every so many entries, not after each one: the worker
		 * an entry woke would otherwise be switched to and back once
		 * per task. It runs the batch when the doorbell returns.
		 */
		if (sub->taken % PTO_INTAKE_BATCH == 0)
			cond_resched();
	}
	q->sq_head = head;
	return ret;
}

/* ------------------------------------------------------------ the ioctl */

static int pto_submit_check_args(struct drm_device *drm,
				 const struct drm_pto_npu_queue_submit *args)
{
	if (args->flags || (!args->syncobj && args->syncobj_point)) {
		drm_dbg(drm, "QUEUE_SUBMIT: flags 0x%x must be 0; syncobj_point %llu needs a syncobj\n",
			args->flags, args->syncobj_point);
		return -EINVAL;
	}
	return 0;
}

/*
 * With a syncobj: the doorbell's fence (signalled once every task it takes
 * has retired), and the chain node of a timeline point.
 */
static int pto_submit_batch_create(struct pto_submit *sub)
{
	const struct drm_pto_npu_queue_submit *args = sub->args;

	if (!args->syncobj)
		return 0;
	sub->syncobj = drm_syncobj_find(sub->file, args->syncobj);
	if (!sub->syncobj)
		return -ENOENT;
	if (args->syncobj_point) {
		sub->chain = dma_fence_chain_alloc();
		if (!sub->chain)
			return -ENOMEM;
	}
	sub->batch = pto_batch_create();
	return sub->batch ? 0 : -ENOMEM;
}

/*
 * Under submit_lock (task ids in submission order): post held completions,
 * take the published entries, then tell user space which slots it may
 * reuse and how many entries were taken, failure or not.
 */
static int pto_submit_take(struct pto_submit *sub)
{
	struct drm_pto_npu_queue_submit *args = sub->args;
	struct pto_queue *q;
	int ret;

	guard(mutex)(&sub->ctx->submit_lock);
	q = pto_queue_lookup(sub->ctx, args->queue_id);
	if (!q)
		return -ENOENT;
	args->first_task_id = sub->ctx->next_id;
	pto_queue_flush(q);
	ret = pto_take_entries(sub, q);
	/* Slots before the index are copied out: user space may reuse them. */
	smp_store_release(&q->hdr->sq_head, q->sq_head);
	args->consumed = sub->taken;
	return ret;
}

/*
 * The doorbell is over: after a success its fence goes to the syncobj (a
 * doorbell that failed took nothing and leaves the syncobj as it was),
 * and the doorbell drops its own count on the fence and what it holds.
 */
static void pto_submit_publish(struct pto_submit *sub, int ret)
{
	if (sub->batch && !ret) {
		if (sub->chain) {
			drm_syncobj_add_point(sub->syncobj, sub->chain,
					      &sub->batch->base,
					      sub->args->syncobj_point);
			sub->chain = NULL;
		} else {
			drm_syncobj_replace_fence(sub->syncobj, &sub->batch->base);
		}
	}
	if (sub->batch) {
		pto_batch_retire(sub->batch, false);
		dma_fence_put(&sub->batch->base);
	}
	dma_fence_chain_free(sub->chain);
	if (sub->syncobj)
		drm_syncobj_put(sub->syncobj);
}

/**
 * pto_ioctl_queue_submit - DRM_IOCTL_PTO_NPU_QUEUE_SUBMIT: the doorbell
 * @drm: device
 * @data: struct drm_pto_npu_queue_submit
 * @file: the caller's file
 *
 * Creates the doorbell's fence when a syncobj is given, takes the entries
 * published on the queue's SQ (up to the context's in-flight caps; each a
 * task, refused ones included), then publishes the fence.
 *
 * Return: 0; -EINVAL for flags, a syncobj_point without a syncobj, or an
 * SQ tail beyond the ring; -ENOENT for an unknown queue or syncobj;
 * -ENOMEM when not even the first entry could be taken.
 */
int pto_ioctl_queue_submit(struct drm_device *drm, void *data,
			   struct drm_file *file)
{
	struct pto_submit sub = {
		.pdev = to_pto_device(drm),
		.file = file,
		.ctx = file->driver_priv,
		.args = data,
		.freeable = LIST_HEAD_INIT(sub.freeable),
	};
	int ret;

	ret = pto_submit_check_args(drm, sub.args);
	if (!ret)
		ret = pto_submit_batch_create(&sub);
	if (!ret)
		ret = pto_submit_take(&sub);
	/* Tasks completed at intake, freed outside submit_lock. */
	pto_tasks_free_list(&sub.freeable);
	pto_submit_publish(&sub, ret);
	return ret;
}
