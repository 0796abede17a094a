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
 * Copyright (C) 2026 pto-npu authors
 */

#include <linux/dma-fence-chain.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_syncobj.h>

#include "pto_gem.h"
#include "pto_kernel.h"
#include "pto_queue.h"
#include "pto_sched.h"
#include "pto_task_mem.h"
#include "pto_tensor.h"
#include "pto_xring.h"
#include "pto_trace.h"

#define PTO_TENSOR_ARG_SIZE sizeof(struct drm_pto_npu_tensor_arg)
#define PTO_SQE_SLOT DRM_PTO_NPU_SQ_SLOT_SIZE
/* Largest entry: header + every argument at its cap + a predicate. */
#define PTO_SQE_MAX_SLOTS (1 + DIV_ROUND_UP(PTO_MAX_TENSOR_ARGS * PTO_TENSOR_ARG_SIZE + \
					    (PTO_MAX_SCALAR_ARGS + PTO_MAX_DEPS) * sizeof(s64) + \
					    sizeof(struct drm_pto_npu_predicate), PTO_SQE_SLOT))
#define PTO_SCRATCH_SIZE (PTO_SQE_MAX_SLOTS * PTO_SQE_SLOT)

static_assert(sizeof(struct drm_pto_npu_sqe) == PTO_SQE_SLOT);
static_assert(PTO_MIN_SQ_SLOTS >= PTO_SQE_MAX_SLOTS);

/* ------------------------------------------------------------ intake */

static u32 pto_sqe_slots(u32 nt, u32 ns, u32 nd, bool pred)
{
	u32 body = nt * PTO_TENSOR_ARG_SIZE + (ns + nd) * sizeof(s64) +
		   (pred ? sizeof(struct drm_pto_npu_predicate) : 0);

	return 1 + DIV_ROUND_UP(body, PTO_SQE_SLOT);
}

static bool pto_counts_ok(const struct drm_pto_npu_sqe *e)
{
	return e->num_tensors <= PTO_MAX_TENSOR_ARGS &&
	       e->num_scalars <= PTO_MAX_SCALAR_ARGS &&
	       e->num_deps <= PTO_MAX_DEPS;
}

static struct pto_task *pto_task_alloc(struct pto_ctx *ctx,
				       struct pto_queue *q,
				       const struct drm_pto_npu_sqe *e,
				       bool sized)
{
	u32 nt = sized ? e->num_tensors : 0, ns = sized ? e->num_scalars : 0;
	u32 nd = sized ? e->num_deps : 0, nb = sized ? e->block_num : 0;
	bool mix = e->kernel_aiv && e->kernel_aic;
	u32 nparts = !mix ? 1 : e->split_mode == DRM_PTO_NPU_SPLIT_UP_DOWN ? 3 : 2;
	u32 nrings = mix ? nb : 0;
	struct pto_task *t;
	size_t size = sizeof(*t);
	u32 i;
	u8 *p;

	size += nt * sizeof(struct pto_targ) + ns * sizeof(s64) +
		nd * sizeof(struct pto_edge) +
		(size_t)nb * nparts * sizeof(struct pto_unit_rec) +
		nrings * sizeof(struct pto_xring_set);
	t = pto_task_mem_alloc(ctx->pdev->sched, size);
	if (!t)
		return NULL;
	p = (u8 *)(t + 1);
	t->rings = nrings ? (struct pto_xring_set *)p : NULL;
	for (i = 0; i < nrings; i++)
		INIT_LIST_HEAD(&t->rings[i].waiters);
	p += nrings * sizeof(struct pto_xring_set);
	t->targs = (struct pto_targ *)p;
	p += nt * sizeof(struct pto_targ);
	t->scalars = (s64 *)p;
	p += ns * sizeof(s64);
	t->edges = (struct pto_edge *)p;
	p += nd * sizeof(struct pto_edge);
	t->recs = (struct pto_unit_rec *)p;

	t->ctx = ctx;
	t->queue = q;
	t->user_data = e->user_data;
	t->nparts = nparts;
	t->units = nb * nparts;
	spin_lock_init(&t->xlock);
	INIT_LIST_HEAD(&t->bar_waiters);
	INIT_LIST_HEAD(&t->park_link);
	INIT_LIST_HEAD(&t->ready_link);
	INIT_LIST_HEAD(&t->ctx_link);
	INIT_LIST_HEAD(&t->held_link);
	INIT_LIST_HEAD(&t->fanout);
	atomic_set(&t->cancel, 0);
	return t;
}

static int pto_refuse(struct pto_task *t, u8 reason, u64 detail)
{
	t->status = DRM_PTO_NPU_STATUS_INVALID;
	t->reason = reason;
	t->detail = detail;
	return -EINVAL;
}

static u32 pto_ring_share(const struct pto_ring_use *u, u32 div)
{
	return u->used ? u->rows / div * u->cols * u->esize : 0;
}

/* Does one side's tile match the other's share under the split? */
static bool pto_ring_match(const struct pto_ring_use *cube,
			   const struct pto_ring_use *vec, u32 parts)
{
	if (!cube->used || !vec->used)
		return true;
	return cube->rows == vec->rows * parts && cube->cols == vec->cols &&
	       cube->dtype == vec->dtype;
}

/* Mixed task: ring shapes, split, slot_num, and slots + tiles within the UB. */
static int pto_resolve_ring(struct pto_device *pdev, struct pto_task *t,
			    const struct drm_pto_npu_sqe *e)
{
	const struct pto_kernel *aiv = t->kern[0], *aic = t->kern[1];
	u32 parts = t->nparts - 1, c2v, v2c, per, fit;
	u64 need;

	if (e->split_mode > DRM_PTO_NPU_SPLIT_UP_DOWN ||
	    e->slot_num > DRM_PTO_NPU_MAX_SLOT_NUM)
		return pto_refuse(t, DRM_PTO_NPU_REASON_RING, 0);
	if ((aic->push.used && aic->push.rows % parts) ||
	    (aic->pop.used && aic->pop.rows % parts) ||
	    !pto_ring_match(&aic->push, &aiv->pop, parts) ||
	    !pto_ring_match(&aic->pop, &aiv->push, parts))
		return pto_refuse(t, DRM_PTO_NPU_REASON_RING, 1);
	t->split = e->split_mode;
	t->slot_num = e->slot_num ? e->slot_num : DRM_PTO_NPU_DEFAULT_SLOT_NUM;
	c2v = aic->push.used ? pto_ring_share(&aic->push, parts) :
			       pto_ring_share(&aiv->pop, 1);
	v2c = aic->pop.used ? pto_ring_share(&aic->pop, parts) :
			      pto_ring_share(&aiv->push, 1);
	t->ring_base = ALIGN(aiv->ub_used, PTO_TILE_ALIGN);
	per = c2v + v2c;
	need = t->ring_base + (u64)t->slot_num * per;
	if (need > pdev->topo.aiv_ub) {
		fit = per ? (pdev->topo.aiv_ub - t->ring_base) / per : 0;
		return pto_refuse(t, DRM_PTO_NPU_REASON_SLOT_BUDGET, fit);
	}
	for (fit = 0; fit < e->block_num; fit++) {
		struct pto_xring_set *set = &t->rings[fit];

		set->nparts = parts;
		set->slot_num = t->slot_num;
		set->c2v_bytes = c2v;
		set->v2c_bytes = v2c;
	}
	return 0;
}

/*
 * HardSyncallOccupancy: a HARD syncall launch is sync_start and has exactly
 * one block per core of the barrier's type (per cluster for AIC and MIX),
 * and the barrier type is the task's own shape.
 */
static int pto_resolve_hard_sync(struct pto_task *t,
				 const struct drm_pto_npu_sqe *e, bool mix,
				 u32 holds)
{
	u8 want = mix ? PTO_SYNC_MIX : e->kernel_aiv ? PTO_SYNC_AIV : PTO_SYNC_AIC;
	u32 ti;
	bool hard = false;

	for (ti = 0; ti < PTO_NUM_CIDX; ti++) {
		if (!t->kern[ti] || !t->kern[ti]->hard_sync)
			continue;
		hard = true;
		if (t->kern[ti]->hard_sync != want)
			return pto_refuse(t, DRM_PTO_NPU_REASON_SYNCALL, holds);
	}
	if (!hard)
		return 0;
	if (!(e->flags & DRM_PTO_NPU_TASK_F_SYNC_START) || e->block_num != holds)
		return pto_refuse(t, DRM_PTO_NPU_REASON_SYNCALL, holds);
	/* Every unit meets: both kernels of a mixed task carry the barrier. */
	if (mix && (!t->kern[0]->hard_sync || !t->kern[1]->hard_sync))
		return pto_refuse(t, DRM_PTO_NPU_REASON_SYNCALL, holds);
	t->bar_parties = e->block_num * t->nparts;
	return 0;
}

static int pto_resolve_kernels(struct pto_device *pdev, struct pto_task *t,
			       const struct drm_pto_npu_sqe *e)
{
	u32 handles[PTO_NUM_CIDX] = { e->kernel_aiv, e->kernel_aic };
	bool mix = e->kernel_aiv && e->kernel_aic;
	u32 ti, holds;

	if (!e->kernel_aiv && !e->kernel_aic)
		return pto_refuse(t, DRM_PTO_NPU_REASON_KERNEL, 0);
	for (ti = 0; ti < PTO_NUM_CIDX; ti++) {
		struct pto_kernel *k;

		if (!handles[ti])
			continue;
		k = pto_kernel_lookup(t->ctx, handles[ti]);
		if (!k)
			return pto_refuse(t, DRM_PTO_NPU_REASON_KERNEL, ti);
		t->kern[ti] = k;
		if (k->core_type != pto_cidx_core_type(ti))
			return pto_refuse(t, DRM_PTO_NPU_REASON_KERNEL_TYPE, ti);
		if (e->num_tensors < k->num_tensor_args ||
		    e->num_scalars < k->num_scalar_args)
			return pto_refuse(t, DRM_PTO_NPU_REASON_ARG_COUNT, ti);
		if (!mix && (k->push.used || k->pop.used))
			return pto_refuse(t, DRM_PTO_NPU_REASON_RING, 2);
	}
	if (!mix && (e->split_mode || e->slot_num))
		return pto_refuse(t, DRM_PTO_NPU_REASON_RING, 3);
	if (mix && pto_resolve_ring(pdev, t, e))
		return -EINVAL;
	/* Cores (clusters for a mixed task) the device holds at once. */
	holds = pdev->sched->ncores[mix || !e->kernel_aiv ? PTO_AIC : PTO_AIV];
	/* HardSyncallOccupancy first: it names the more specific rule. */
	if (pto_resolve_hard_sync(t, e, mix, holds))
		return -EINVAL;
	if ((e->flags & DRM_PTO_NPU_TASK_F_SYNC_START) && e->block_num > holds)
		return pto_refuse(t, DRM_PTO_NPU_REASON_SYNC_START, holds);
	return 0;
}

/* The dtype every kernel of the task uses tensor @i as, 0 for any. */
static u8 pto_arg_dtype(const struct pto_task *t, u32 i)
{
	u32 ti;

	for (ti = 0; ti < PTO_NUM_CIDX; ti++)
		if (t->kern[ti] && t->kern[ti]->arg_dtype[i])
			return t->kern[ti]->arg_dtype[i];
	return 0;
}

static int pto_resolve_tensors(struct pto_task *t, struct drm_file *file,
			       const struct drm_pto_npu_tensor_arg *args)
{
	u32 i;

	/* Both kernels of a mixed task must agree on each tensor's dtype. */
	for (i = 0; t->kern[0] && t->kern[1] && i < PTO_MAX_TENSOR_ARGS; i++)
		if (t->kern[0]->arg_dtype[i] && t->kern[1]->arg_dtype[i] &&
		    t->kern[0]->arg_dtype[i] != t->kern[1]->arg_dtype[i])
			return pto_refuse(t, DRM_PTO_NPU_REASON_TENSOR_DTYPE, i);

	for (i = 0; i < t->num_tensors; i++) {
		const struct drm_pto_npu_tensor_arg *a = &args[i];
		struct pto_targ *ta = &t->targs[i];
		struct drm_gem_object *obj;
		u8 *vaddr;
		int r;

		obj = drm_gem_object_lookup(file, a->handle);
		if (!obj)
			return pto_refuse(t, DRM_PTO_NPU_REASON_TENSOR_HANDLE, i);
		ta->bo = to_pto_bo(obj);
		r = pto_targ_resolve(a, obj->size, ta);
		if (r)
			return pto_refuse(t, r, i);
		if (pto_arg_dtype(t, i) && pto_arg_dtype(t, i) != a->dtype)
			return pto_refuse(t, DRM_PTO_NPU_REASON_TENSOR_DTYPE, i);
		vaddr = pto_bo_vaddr(ta->bo);
		if (!vaddr) {
			t->status = DRM_PTO_NPU_STATUS_NOMEM;
			t->detail = i;
			return -ENOMEM;
		}
		ta->base = vaddr + a->offset;
	}
	return 0;
}

static int pto_resolve_deps(struct pto_task *t, const s64 *raw, s64 *deps)
{
	u32 i;

	for (i = 0; i < t->num_deps; i++) {
		s64 d = raw[i] > 0 ? raw[i] : (s64)t->id + raw[i];

		if (!raw[i] || d < 1 || d >= (s64)t->id)
			return pto_refuse(t, DRM_PTO_NPU_REASON_DEP, i);
		deps[i] = d;
	}
	return 0;
}

/*
 * The operand is one element of a signed integer tensor argument, read
 * with sign extension when the task becomes ready; unsigned operands are
 * refused, not compared.
 */
static int pto_resolve_predicate(struct pto_task *t,
				 const struct drm_pto_npu_sqe *e,
				 const struct drm_pto_npu_predicate *p)
{
	const struct pto_targ *ta;

	if (!(e->flags & DRM_PTO_NPU_TASK_F_PREDICATE))
		return 0;
	if (p->pad || p->pad2)
		return pto_refuse(t, DRM_PTO_NPU_REASON_RESERVED, 0);
	if (p->tensor >= t->num_tensors || p->op > PTO_CMP_LE)
		return pto_refuse(t, DRM_PTO_NPU_REASON_PREDICATE, 0);
	ta = &t->targs[p->tensor];
	if (ta->dtype < PTO_ISA_I8 || ta->dtype > PTO_ISA_I64)
		return pto_refuse(t, DRM_PTO_NPU_REASON_PREDICATE, 1);
	if (p->row >= ta->rows || p->col >= ta->cols)
		return pto_refuse(t, DRM_PTO_NPU_REASON_PREDICATE, 2);
	t->pred = *p;
	return 0;
}

/*
 * Validate one entry (copied out of the ring) into @t. On refusal @t carries
 * the status and reason and the caller still hands it to the scheduler.
 */
static void pto_task_parse(struct pto_device *pdev, struct drm_file *file,
			   struct pto_task *t, const struct drm_pto_npu_sqe *e,
			   u32 nslots, s64 *deps)
{
	const u8 *body = (const u8 *)(e + 1);
	const struct drm_pto_npu_tensor_arg *targs = (const void *)body;
	const s64 *scalars = (const void *)(body + e->num_tensors * PTO_TENSOR_ARG_SIZE);
	const s64 *raw_deps = scalars + e->num_scalars;
	u32 i;

	if (e->flags & ~DRM_PTO_NPU_TASK_F_ALL) {
		pto_refuse(t, DRM_PTO_NPU_REASON_FLAGS, e->flags);
		return;
	}
	if (e->reserved[0] || e->reserved[1] || e->reserved[2] || e->reserved[3]) {
		pto_refuse(t, DRM_PTO_NPU_REASON_RESERVED, 0);
		return;
	}
	if (!pto_counts_ok(e)) {
		pto_refuse(t, DRM_PTO_NPU_REASON_COUNTS, 0);
		return;
	}
	if (nslots != pto_sqe_slots(e->num_tensors, e->num_scalars, e->num_deps,
				    e->flags & DRM_PTO_NPU_TASK_F_PREDICATE)) {
		pto_refuse(t, DRM_PTO_NPU_REASON_SLOTS, nslots);
		return;
	}
	if (!e->block_num || e->block_num > PTO_MAX_BLOCK_NUM) {
		pto_refuse(t, DRM_PTO_NPU_REASON_BLOCK_NUM, e->block_num);
		return;
	}
	t->flags = e->flags;
	t->block_num = e->block_num;
	t->num_tensors = e->num_tensors;
	t->num_scalars = e->num_scalars;
	t->num_deps = e->num_deps;
	for (i = 0; i < t->num_scalars; i++)
		t->scalars[i] = scalars[i];
	if (pto_resolve_kernels(pdev, t, e) ||
	    pto_resolve_tensors(t, file, targs) ||
	    pto_resolve_deps(t, raw_deps, deps) ||
	    pto_resolve_predicate(t, e, (const void *)(raw_deps + e->num_deps))) {
		/* Refused entries have no dependencies to wait for. */
		t->num_deps = 0;
		t->block_num = 0;
	}
}

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
 * Take one entry at @head (@avail slots published). Returns the slots it
 * used, 0 when out of memory (nothing taken).
 */
static u32 pto_take_entry(struct pto_device *pdev, struct drm_file *file,
			  struct pto_queue *q, u32 head, u32 avail,
			  struct pto_batch *batch, struct list_head *freeable)
{
	struct pto_ctx *ctx = file->driver_priv;
	struct drm_pto_npu_sqe *e = ctx->scratch;
	s64 deps[PTO_MAX_DEPS];
	struct pto_task *t;
	u32 n, bad_slots = 1;
	bool sized;

	pto_sq_copy(q, head, 1, (u8 *)e);
	n = READ_ONCE(e->num_slots);
	/*
	 * A slot count that cannot be right (zero, past what was published,
	 * past the largest entry) leaves no way to find the next entry: take
	 * the header slot alone and refuse it. Otherwise take the whole
	 * entry, whatever else is wrong with it.
	 */
	sized = n >= 1 && n <= avail && n <= PTO_SQE_MAX_SLOTS;
	if (sized) {
		pto_sq_copy(q, head + 1, n - 1, (u8 *)e + PTO_SQE_SLOT);
	} else {
		bad_slots = n;
		n = 1;
	}
	sized = sized && pto_counts_ok(e) && e->block_num <= PTO_MAX_BLOCK_NUM;

	t = pto_task_alloc(ctx, q, e, sized);
	if (!t)
		return 0;
	t->id = ctx->next_id;
	if (n == 1 && bad_slots != 1)
		pto_refuse(t, DRM_PTO_NPU_REASON_SLOTS, bad_slots);
	else if (!pto_counts_ok(e))
		pto_refuse(t, DRM_PTO_NPU_REASON_COUNTS, 0);
	else if (!e->block_num || e->block_num > PTO_MAX_BLOCK_NUM)
		pto_refuse(t, DRM_PTO_NPU_REASON_BLOCK_NUM, e->block_num);
	else
		pto_task_parse(pdev, file, t, e, n, deps);

	ctx->next_id++;
	pto_count(pdev, tasks);
	if (t->status == DRM_PTO_NPU_STATUS_INVALID)
		pto_count(pdev, invalid);
	trace_pto_intake(pdev->index, ctx->uid, t->id, t->block_num, t->flags,
			 t->status, t->reason);
	if (batch) {
		atomic_inc(&batch->pending);
		t->batch = batch;
		dma_fence_get(&batch->base);
	}
	atomic_inc(&q->live);
	atomic_inc(&ctx->inflight);
	atomic_inc(&ctx->pending);
	atomic_add(t->units, &ctx->inflight_units);
	pto_sched_add(pdev, t, deps, freeable);
	return n;
}

/* Entries a doorbell takes between two reschedule points. */
#define PTO_INTAKE_BATCH 64

int pto_ioctl_queue_submit(struct drm_device *drm, void *data,
			   struct drm_file *file)
{
	struct pto_device *pdev = to_pto_device(drm);
	struct drm_pto_npu_queue_submit *args = data;
	struct pto_ctx *ctx = file->driver_priv;
	struct dma_fence_chain *chain = NULL;
	struct drm_syncobj *syncobj = NULL;
	struct pto_batch *batch = NULL;
	struct pto_queue *q;
	LIST_HEAD(freeable);
	u32 head, tail, taken = 0;
	int ret = 0;

	if (args->flags || (!args->syncobj && args->syncobj_point))
		return -EINVAL;
	if (args->syncobj) {
		syncobj = drm_syncobj_find(file, args->syncobj);
		if (!syncobj)
			return -ENOENT;
		batch = kzalloc(sizeof(*batch), GFP_KERNEL);
		if (args->syncobj_point)
			chain = dma_fence_chain_alloc();
		if (!batch || (args->syncobj_point && !chain)) {
			ret = -ENOMEM;
			goto out_put;
		}
		spin_lock_init(&batch->lock);
		atomic_set(&batch->pending, 1);
	}

	mutex_lock(&ctx->submit_lock);
	q = pto_queue_get(ctx, args->queue_id);
	if (!q) {
		ret = -ENOENT;
		goto out_unlock;
	}
	if (batch)
		dma_fence_init(&batch->base, &pto_fence_ops, &batch->lock,
			       dma_fence_context_alloc(1), 1);
	args->first_task_id = ctx->next_id;
	pto_queue_flush(q);

	head = q->sq_head;
	/* Pairs with user space's release store: entries before the index. */
	tail = smp_load_acquire(&q->hdr->sq_tail);
	if (tail - head > q->sq_slots) {
		/* The user index is beyond the ring: take nothing. */
		ret = -EINVAL;
		goto out_publish;
	}
	while (head != tail) {
		u32 n;

		if (atomic_read(&ctx->pending) >= PTO_MAX_INFLIGHT_TASKS ||
		    atomic_read(&ctx->inflight_units) >= PTO_MAX_INFLIGHT_UNITS)
			break;
		n = pto_take_entry(pdev, file, q, head, tail - head, batch,
				   &freeable);
		if (!n) {
			if (!taken)
				ret = -ENOMEM;
			break;
		}
		head += n;
		taken++;
		/*
		 * A doorbell may take thousands of entries: let others run,
		 * but every so many entries, not after each one: the worker
		 * an entry woke would otherwise be switched to and back once
		 * per task. It runs the batch when the doorbell returns.
		 */
		if (taken % PTO_INTAKE_BATCH == 0)
			cond_resched();
	}
	q->sq_head = head;
out_publish:
	/* Slots before the index are copied out: user space may reuse them. */
	smp_store_release(&q->hdr->sq_head, head);
	args->consumed = taken;
out_unlock:
	mutex_unlock(&ctx->submit_lock);
	pto_tasks_free_list(&freeable);

	if (batch && q && ret) {
		/* Nothing was taken: the syncobj is left as it was. */
		pto_batch_retire(batch, false);
		dma_fence_put(&batch->base);
		batch = NULL;
	} else if (batch && q) {
		if (chain) {
			drm_syncobj_add_point(syncobj, chain, &batch->base,
					      args->syncobj_point);
			chain = NULL;
		} else {
			drm_syncobj_replace_fence(syncobj, &batch->base);
		}
		pto_batch_retire(batch, false);
		dma_fence_put(&batch->base);
		batch = NULL;
	}
out_put:
	dma_fence_chain_free(chain);
	kfree(batch);
	if (syncobj)
		drm_syncobj_put(syncobj);
	return ret;
}

void *pto_ctx_scratch_alloc(void)
{
	return kmalloc(PTO_SCRATCH_SIZE, GFP_KERNEL);
}
