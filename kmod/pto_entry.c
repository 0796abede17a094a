// SPDX-License-Identifier: GPL-2.0-only
/*
 * pto_npu: one SQ entry validated into a task.
 *
 * The doorbell (pto_submit.c) takes each entry through here from its copy
 * out of the ring; GRAPH_CREATE (pto_graph.c) takes each recorded node
 * through the same rules once, at creation. A refused entry leaves its
 * task with STATUS_INVALID and a reason (pto_refuse()).
 *
 * Copyright (C) 2026 pto-npu authors
 */

#include <linux/slab.h>

#include <drm/drm_file.h>
#include <drm/drm_gem.h>

#include "pto_barrier.h"
#include "pto_entry.h"
#include "pto_gem.h"
#include "pto_graph.h"
#include "pto_infer.h"
#include "pto_kernel.h"
#include "pto_queue.h"
#include "pto_sched.h"
#include "pto_task_mem.h"
#include "pto_tensor.h"
#include "pto_xring.h"

/* ------------------------------------------------------------ tasks */

/**
 * pto_task_alloc_shaped - a task with its arrays laid out for @sh
 * @ctx: its context
 * @q: its queue, or NULL (a graph node's template)
 * @sh: the counts that size it
 * @prof: room for the units' waits (a profiling queue)
 * @haz: room for access and hazard records (a sanitizing queue)
 *
 * Return: the task, its lists initialised, or NULL.
 */
struct pto_task *pto_task_alloc_shaped(struct pto_ctx *ctx, struct pto_queue *q,
				       const struct pto_task_shape *sh,
				       bool prof, bool haz)
{
	u32 nt = sh->nt, nb = sh->nb, nparts = sh->nparts;
	u32 nrings = nparts > 1 ? nb : 0;
	u32 nrecs = (haz || sh->directed) && !sh->node ? nt : 0;
	size_t units = (size_t)nb * nparts;
	size_t launch = sh->nnodes ?
			struct_size_t(struct pto_launch, nodes, sh->nnodes) : 0;
	struct pto_task *t;
	u32 i;
	u8 *p;

	/* Access records when some argument has a direction or the queue sanitizes. */
	t = pto_task_mem_alloc(ctx->pdev->sched, sizeof(*t) + launch +
			       nt * sizeof(struct pto_targ) + sh->ns * sizeof(s64) +
			       (sh->nd + nrecs) * sizeof(struct pto_edge) +
			       nrecs * sizeof(struct pto_infer_rec) +
			       units * sizeof(struct pto_unit_rec) +
			       nrings * sizeof(struct pto_xring_set) +
			       (prof ? units * sizeof(struct pto_unit_prof) : 0) +
			       (haz ? (units + 1) * sizeof(struct drm_pto_npu_hazard) : 0));
	if (!t)
		return NULL;
	/* A launch's state first, aligned as the task is (pto_task_launch()). */
	p = (u8 *)(t + 1) + launch;
	t->rings = nrings ? (struct pto_xring_set *)p : NULL;
	for (i = 0; i < nrings; i++)
		INIT_LIST_HEAD(&t->rings[i].waiters);
	p += nrings * sizeof(struct pto_xring_set);
	t->targs = (struct pto_targ *)p;
	p += nt * sizeof(struct pto_targ);
	t->scalars = (s64 *)p;
	p += sh->ns * sizeof(s64);
	t->edges = (struct pto_edge *)p;
	t->edges_cap = sh->nd + nrecs;
	p += (sh->nd + nrecs) * sizeof(struct pto_edge);
	t->irecs = nrecs ? (struct pto_infer_rec *)p : NULL;
	p += nrecs * sizeof(struct pto_infer_rec);
	/*
	 * Then, when the queue profiles, the waits (pto_task_prof()), and
	 * when it sanitizes, the hazard records (pto_task_haz()).
	 */
	t->recs = (struct pto_unit_rec *)p;
	t->profiled = prof;
	t->sanitized = haz;
	t->ctx = ctx;
	t->queue = q;
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

/* Units a block of entry @e's task runs: 1, or 2-3 parts of a mixed task. */
u32 pto_sqe_nparts(const struct drm_pto_npu_sqe *e)
{
	if (!e->kernel_aiv || !e->kernel_aic)
		return 1;
	return e->split_mode == DRM_PTO_NPU_SPLIT_UP_DOWN ? 3 : 2;
}

/*
 * The task of entry @e, its arrays sized from the header's counts when
 * @sized (pto_sqe_check_size() found them within their caps), else empty;
 * for a launch with room for its graph's @nnodes nodes. Profile and
 * hazard records as queue @q (NULL: none) keeps them.
 */
struct pto_task *pto_entry_task_alloc(struct pto_ctx *ctx, struct pto_queue *q,
				      const struct drm_pto_npu_sqe *e, bool sized,
				      u32 nnodes)
{
	const struct drm_pto_npu_tensor_arg *args = (const void *)(e + 1);
	struct pto_task_shape sh = {
		.nparts = pto_sqe_nparts(e), .nnodes = nnodes,
	};
	struct pto_task *t;
	u32 i;

	if (sized) {
		sh.nt = e->num_tensors;
		sh.ns = e->num_scalars;
		sh.nd = e->num_deps;
		sh.nb = e->block_num;
	}
	for (i = 0; i < sh.nt && !sh.directed; i++)
		sh.directed = args[i].flags;
	t = pto_task_alloc_shaped(ctx, q, &sh, q && q->prof, q && q->haz);
	if (t)
		t->user_data = e->user_data;
	return t;
}

/* Refuse the entry of @t: it completes at once, STATUS_INVALID. */
int pto_refuse(struct pto_task *t, u8 reason, u64 detail)
{
	t->status = DRM_PTO_NPU_STATUS_INVALID;
	t->reason = reason;
	t->detail = detail;
	return -EINVAL;
}

/* ------------------------------------------------------------ arguments */

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

int pto_resolve_tensors(struct pto_task *t, struct drm_file *file,
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
		ta->dir = a->flags;
	}
	return 0;
}

/* SOFT syncall workspaces of at least 16 elements (pto_soft_intake()). */
static int pto_resolve_soft_ws(struct pto_task *t)
{
	u64 detail;
	u8 reason = pto_soft_intake(t, &detail);

	return reason ? pto_refuse(t, reason, detail) : 0;
}

int pto_resolve_deps(struct pto_task *t, const s64 *raw, s64 *deps)
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
int pto_resolve_predicate(struct pto_task *t,
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

/* ------------------------------------------------------------ parsing */

/* Slots an entry of these counts takes: the header and its body. */
u32 pto_sqe_slots(u32 nt, u32 ns, u32 nd, bool pred)
{
	u32 body = nt * PTO_TENSOR_ARG_SIZE + (ns + nd) * sizeof(s64) +
		   (pred ? sizeof(struct drm_pto_npu_predicate) : 0);

	return 1 + DIV_ROUND_UP(body, PTO_SQE_SLOT);
}

/*
 * The grid sentinels, resolved when the entry is taken: every AIV core, or
 * every cluster, of the device (the guide's available_aiv_count() and
 * available_cluster_count()). The checks that follow, the task and its
 * CQEs see the count.
 */
void pto_sqe_resolve_grid(const struct pto_device *pdev,
			  struct drm_pto_npu_sqe *e)
{
	if (e->block_num == DRM_PTO_NPU_BLOCKS_ALL_AIV)
		e->block_num = pdev->sched->ncores[PTO_AIV];
	else if (e->block_num == DRM_PTO_NPU_BLOCKS_ALL_CLUSTERS)
		e->block_num = pdev->sched->ncores[PTO_AIC];
}

/*
 * The rules that size an entry's task, checked before it is allocated: the
 * slots taken are the header's count (pto_sq_copy_entry() takes the header
 * slot alone when that count cannot be right), the argument counts within
 * their caps and exactly filling those slots (nothing reads an argument
 * past the entry: a graph's last node ends its buffer), block_num within
 * its cap.
 *
 * Return: the refusal reason with its @detail, 0 when the task can be
 * sized from the header.
 */
u8 pto_sqe_check_size(const struct drm_pto_npu_sqe *e, u32 nslots,
		      u64 *detail)
{
	*detail = 0;
	if (e->num_slots != nslots) {
		*detail = e->num_slots;
		return DRM_PTO_NPU_REASON_SLOTS;
	}
	if (e->num_tensors > PTO_MAX_TENSOR_ARGS ||
	    e->num_scalars > PTO_MAX_SCALAR_ARGS || e->num_deps > PTO_MAX_DEPS)
		return DRM_PTO_NPU_REASON_COUNTS;
	/* The body the counts describe, before anything reads it. */
	if (nslots != pto_sqe_slots(e->num_tensors, e->num_scalars, e->num_deps,
				    e->flags & DRM_PTO_NPU_TASK_F_PREDICATE)) {
		*detail = e->num_slots;
		return DRM_PTO_NPU_REASON_SLOTS;
	}
	if (!e->block_num || e->block_num > PTO_MAX_BLOCK_NUM) {
		*detail = e->block_num;
		return DRM_PTO_NPU_REASON_BLOCK_NUM;
	}
	return 0;
}

/*
 * Validate one entry (copied out of the ring, sized by
 * pto_sqe_check_size(), its slots its body's) into @t: its flags and
 * reserved fields, then its kernels, tensors, dependencies (into @deps)
 * and predicate. On refusal @t carries the status and reason, and the
 * caller still hands it to the scheduler.
 */
int pto_entry_parse(struct pto_device *pdev, struct drm_file *file,
		    struct pto_task *t, const struct drm_pto_npu_sqe *e, s64 *deps)
{
	const u8 *body = (const u8 *)(e + 1);
	const struct drm_pto_npu_tensor_arg *targs = (const void *)body;
	const s64 *scalars = (const void *)(body + e->num_tensors * PTO_TENSOR_ARG_SIZE);
	const s64 *raw_deps = scalars + e->num_scalars;
	int ret;
	u32 i;

	if (e->flags & ~DRM_PTO_NPU_TASK_F_ALL)
		return pto_refuse(t, DRM_PTO_NPU_REASON_FLAGS, e->flags);
	if (e->reserved[0] || e->reserved[1] || e->reserved[2] || e->reserved[3])
		return pto_refuse(t, DRM_PTO_NPU_REASON_RESERVED, 0);
	t->flags = e->flags;
	t->block_num = e->block_num;
	t->num_tensors = e->num_tensors;
	t->num_scalars = e->num_scalars;
	t->num_deps = e->num_deps;
	for (i = 0; i < t->num_scalars; i++)
		t->scalars[i] = scalars[i];
	ret = pto_resolve_kernels(pdev, t, e);
	if (!ret)
		ret = pto_resolve_tensors(t, file, targs);
	if (!ret)
		ret = pto_resolve_soft_ws(t);
	if (!ret)
		ret = pto_resolve_deps(t, raw_deps, deps);
	if (!ret)
		ret = pto_resolve_predicate(t, e, (const void *)(raw_deps + e->num_deps));
	if (ret) {
		/* Refused entries have no dependencies to wait for. */
		t->num_deps = 0;
		t->block_num = 0;
	}
	return ret;
}
