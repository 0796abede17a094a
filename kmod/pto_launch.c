// SPDX-License-Identifier: GPL-2.0-only
/*
 * pto_npu: graph launches (an SQ entry with DRM_PTO_NPU_TASK_F_GRAPH).
 *
 * A launch is one task of its context, with one id, its dependencies, its
 * inferred accesses (its bound tensors) and its predicate. At intake its
 * bindings are checked against the graph's parameters and one task per
 * node is made by copying the node's template (no entry is parsed); when
 * the launch becomes ready the nodes join the scheduler at once, linked
 * along the recorded edges (pto_launch_expand()), and the launch completes
 * as its last node does (pto_launch_node_done()), with one CQE.
 * Documentation/techniques/graph-replay.rst.
 *
 * Copyright (C) 2026 pto-npu authors
 */

#include <linux/ktime.h>
#include <linux/slab.h>

#include <drm/drm_gem.h>

#include "pto_entry.h"
#include "pto_graph.h"
#include "pto_queue.h"
#include "pto_sched.h"
#include "pto_task.h"
#include "pto_task_mem.h"
#include "pto_xring.h"

/* Flags a launch may carry. */
#define PTO_LAUNCH_FLAGS (DRM_PTO_NPU_TASK_F_GRAPH | DRM_PTO_NPU_TASK_F_PREDICATE)

/* The launch's own fields: what a launch does not take is refused. */
static int pto_launch_check(struct pto_task *t, const struct drm_pto_npu_sqe *e)
{
	if (e->flags & ~PTO_LAUNCH_FLAGS)
		return pto_refuse(t, DRM_PTO_NPU_REASON_FLAGS, e->flags);
	if (e->reserved[1] || e->reserved[2] || e->reserved[3] ||
	    e->reserved[0] > U32_MAX)
		return pto_refuse(t, DRM_PTO_NPU_REASON_RESERVED, 0);
	if (e->kernel_aiv || e->kernel_aic)
		return pto_refuse(t, DRM_PTO_NPU_REASON_GRAPH, 1);
	if (e->block_num != 1)
		return pto_refuse(t, DRM_PTO_NPU_REASON_GRAPH, 2);
	if (e->split_mode || e->slot_num)
		return pto_refuse(t, DRM_PTO_NPU_REASON_GRAPH, 3);
	return 0;
}

/* The bound tensors: each of its parameter's layout and direction. */
static int pto_launch_check_bindings(struct pto_task *t, const struct pto_graph *g,
				     const struct drm_pto_npu_sqe *e)
{
	const struct drm_pto_npu_tensor_arg *a = (const void *)(e + 1);
	u32 i;

	if (e->num_tensors != g->ntp)
		return pto_refuse(t, DRM_PTO_NPU_REASON_BINDING, g->ntp);
	if (e->num_scalars != g->nsp)
		return pto_refuse(t, DRM_PTO_NPU_REASON_BINDING, g->nsp);
	for (i = 0; i < g->ntp; i++) {
		const struct drm_pto_npu_tensor_arg *p = &g->tparam[i].layout;

		if (a[i].dtype != p->dtype || a[i].ndim != p->ndim ||
		    memcmp(a[i].shape, p->shape, sizeof(p->shape)) ||
		    memcmp(a[i].strides, p->strides, sizeof(p->strides)) ||
		    a[i].flags != g->tparam[i].dir)
			return pto_refuse(t, DRM_PTO_NPU_REASON_BINDING, i);
	}
	return 0;
}

/*
 * A sanitizing launch's node @n: the hazards GRAPH_CREATE found inside the
 * graph (pto_graph_infer.c) go in the first one's node's intake record,
 * reported as an entry's intake hazard is (pto_launch_node_haz()).
 */
static void pto_launch_node_static_haz(const struct pto_task *t,
				       struct pto_task *n,
				       const struct pto_graph *g)
{
	struct drm_pto_npu_hazard *h;

	if (!n->sanitized || !g->haz_count || n->node != g->haz_node)
		return;
	h = pto_task_haz(n) + n->units;
	*h = g->haz;
	h->count = g->haz_count;
	h->other_task = t->id;
}

/* Node @idx's task, made from its record, the launch's bindings applied. */
static struct pto_task *pto_launch_node(struct pto_task *t, struct pto_launch *la,
					u32 idx)
{
	const struct pto_graph *g = la->g;
	const struct pto_gnode *gn = &g->nodes[idx];
	const struct pto_task_shape sh = {
		.nt = gn->num_tensors, .ns = gn->num_scalars, .nd = gn->nedges,
		.nb = gn->block_num, .nparts = gn->nparts,
		.node = true,
	};
	struct pto_task *n;
	u32 i;

	/* Hazard records when the launch's queue sanitizes: pto_gm.c's. */
	n = pto_task_alloc_shaped(t->ctx, t->queue, &sh, t->queue->prof,
				  t->sanitized);
	if (!n)
		return NULL;
	n->id = t->id;
	n->user_data = gn->user_data;
	n->launch = la;
	n->node = idx;
	n->graph = PTO_GRAPH_NODE;
	n->flags = gn->flags;
	n->block_num = gn->block_num;
	n->num_tensors = gn->num_tensors;
	n->num_scalars = gn->num_scalars;
	n->split = gn->split;
	n->slot_num = gn->slot_num;
	n->ring_base = gn->ring_base;
	n->pred = gn->pred;
	n->bar_parties = gn->bar_parties;
	memcpy(n->targs, &g->targs[gn->targ0], gn->num_tensors * sizeof(*n->targs));
	memcpy(n->scalars, &g->scalars[gn->scal0],
	       gn->num_scalars * sizeof(*n->scalars));
	for (i = 0; n->rings && i < n->block_num; i++) {
		n->rings[i].nparts = gn->nparts - 1;
		n->rings[i].slot_num = gn->slot_num;
		n->rings[i].c2v_bytes = gn->c2v_bytes;
		n->rings[i].v2c_bytes = gn->v2c_bytes;
	}
	for (i = gn->bind0; i < gn->bind0 + gn->nbind; i++) {
		const struct drm_pto_npu_graph_binding *b = &g->bind[i];
		u8 dir;

		if (b->kind == DRM_PTO_NPU_BIND_SCALAR) {
			n->scalars[b->arg] = t->scalars[b->param];
			continue;
		}
		dir = n->targs[b->arg].dir;
		n->targs[b->arg] = t->targs[b->param];
		n->targs[b->arg].dir = dir;
	}
	for (i = 0; i < n->num_tensors; i++)
		drm_gem_object_get(&n->targs[i].bo->base.base);
	for (i = 0; i < PTO_NUM_CIDX; i++) {
		n->kern[i] = gn->kern[i];
		if (n->kern[i])
			kref_get(&n->kern[i]->ref);
	}
	pto_launch_node_static_haz(t, n, g);
	return n;
}

/* Nodes 0 to @n - 1, never handed to the scheduler, stop counting. */
static void pto_launch_uncount(struct pto_launch *la, u32 n)
{
	u32 i;

	if (la->released)
		return;
	la->released = true;
	for (i = 0; i < n; i++) {
		atomic_dec(&la->nodes[i]->ctx->pending);
		atomic_sub(la->nodes[i]->units, &la->nodes[i]->ctx->inflight_units);
	}
}

/* Free node tasks that never joined the scheduler. */
static void pto_launch_free_nodes(struct pto_launch *la, u32 n)
{
	u32 i;

	pto_launch_uncount(la, n);
	for (i = 0; i < n; i++) {
		pto_task_put_resources(la->nodes[i]);
		pto_task_mem_free(la->nodes[i]);
	}
}

/*
 * The launch's access records: its bound tensors', then one per merged
 * access of a recorded buffer it enters (pto_graph_infer.c), in place of
 * the records allocated with the task. Filled by pto_infer_prepare().
 */
static int pto_launch_recs(struct pto_task *t, struct pto_launch *la)
{
	const struct pto_graph *g = la->g;
	u32 n = t->sanitized ? g->nacc : g->nacc_dir;

	/* Its nodes' predicates are checked with its records (sanitizing). */
	if (!n && !(t->sanitized && g->npreds))
		return 0;
	la->recs = kvcalloc(max(t->num_tensors + n, 1U), sizeof(*la->recs),
			    GFP_KERNEL_ACCOUNT);
	if (!la->recs)
		return -ENOMEM;
	la->nrecs = t->num_tensors + n;
	t->irecs = la->recs;
	return 0;
}

/*
 * The launch's state, allocated zeroed with its task, sized for its
 * graph's nodes (pto_take_entry(): &pto_task_shape.nnodes).
 */
static struct pto_launch *pto_task_launch(struct pto_task *t)
{
	return (struct pto_launch *)(t + 1);
}

/* One task per node, counted against the context's tasks and units in flight. */
static int pto_launch_make_nodes(struct pto_task *t, struct pto_graph *g)
{
	struct pto_launch *la = pto_task_launch(t);
	u32 i;

	la->nnodes = g->nnodes;
	la->g = g;
	la->launch = t;
	la->haz_node = U32_MAX;
	if (pto_launch_recs(t, la))
		return -ENOMEM;
	for (i = 0; i < g->nnodes; i++) {
		la->nodes[i] = pto_launch_node(t, la, i);
		if (!la->nodes[i]) {
			pto_launch_free_nodes(la, i);
			/* Never entered: the launch fails with no records. */
			if (la->recs)
				t->irecs = NULL;
			kvfree(la->recs);
			return -ENOMEM;
		}
		/* Counted as pto_entry_fits() (pto_submit.c) did. */
		atomic_inc(&t->ctx->pending);
		atomic_add(la->nodes[i]->units, &t->ctx->inflight_units);
	}
	t->launch = la;
	return 0;
}

/**
 * pto_launch_parse - validate a launch entry into its task
 * @pdev: device
 * @file: the caller's file (its handles)
 * @q: the queue it came from
 * @t: its task, sized from the header
 * @e: the entry (copied out of the ring)
 * @g: the graph it names, with a reference the launch takes (dropped if
 *     it is refused), or NULL when the context has no such graph
 * @deps: out: its dependencies as absolute ids
 *
 * Return: 0, or -EINVAL / -ENOMEM with @t's status and reason set.
 */
int pto_launch_parse(struct pto_device *pdev, struct drm_file *file,
		     struct pto_queue *q, struct pto_task *t,
		     const struct drm_pto_npu_sqe *e, struct pto_graph *g,
		     s64 *deps)
{
	const u8 *body = (const u8 *)(e + 1);
	const s64 *scalars = (const void *)(body + e->num_tensors * PTO_TENSOR_ARG_SIZE);
	const s64 *raw_deps = scalars + e->num_scalars;
	int ret;
	u32 i;

	t->graph = PTO_GRAPH_LAUNCH;
	ret = pto_launch_check(t, e);
	if (!ret && !g)
		ret = pto_refuse(t, DRM_PTO_NPU_REASON_GRAPH, 0);
	if (ret)
		goto refused;
	t->flags = e->flags;
	t->num_tensors = e->num_tensors;
	t->num_scalars = e->num_scalars;
	t->num_deps = e->num_deps;
	for (i = 0; i < t->num_scalars; i++)
		t->scalars[i] = scalars[i];
	ret = pto_launch_check_bindings(t, g, e);
	if (!ret)
		ret = pto_resolve_tensors(t, file, (const void *)body);
	if (!ret)
		ret = pto_resolve_deps(t, raw_deps, deps);
	if (!ret)
		ret = pto_resolve_predicate(t, e, (const void *)(raw_deps + e->num_deps));
	if (!ret && pto_launch_make_nodes(t, g)) {
		t->status = DRM_PTO_NPU_STATUS_NOMEM;
		ret = -ENOMEM;
	}
	if (ret)
		goto refused;
	/* The launch runs nothing itself: its nodes do. */
	t->block_num = 0;
	return 0;
refused:
	pto_graph_put(g);
	t->num_deps = 0;
	t->block_num = 0;
	return ret;
}

/**
 * pto_launch_expand - a ready launch's nodes join the scheduler
 * @s: scheduler (its lock held)
 * @t: the launch, its dependencies met and its predicate true
 * @work: the completion loop's list (nodes that retire without running)
 * @adopt: as for pto_make_ready()
 * @now: the pass's clock
 *
 * O(nodes + edges) stores: each node goes live with its fanin, its
 * incoming edges linked to its producers' fanout; roots become ready, the
 * others may be pre-staged.
 */
void pto_launch_expand(struct pto_sched *s, struct pto_task *t,
		       struct list_head *work, struct pto_core **adopt,
		       u64 *now)
{
	struct pto_launch *la = t->launch;
	const struct pto_graph *g = la->g;
	struct pto_ctx *ctx = t->ctx;
	u32 i, k;

	lockdep_assert_held(&s->lock);
	for (i = 0; i < la->nnodes; i++) {
		struct pto_task *n = la->nodes[i];
		const struct pto_gnode *gn = &g->nodes[i];
		u32 nedges = gn->nedges;

		/* Sized from @nedges (pto_launch_node()): never written past. */
		if (WARN_ON_ONCE(nedges > n->edges_cap))
			nedges = n->edges_cap;
		list_add_tail(&n->ctx_link, &ctx->live);
		atomic_inc(&ctx->inflight);
		for (k = 0; k < nedges; k++) {
			const struct pto_gin *in = &g->in[gn->edge0 + k];
			struct pto_edge *e = &n->edges[k];

			e->consumer = n;
			e->producer = la->nodes[in->producer];
			e->inferred = in->inferred;
			list_add_tail(&e->link, &e->producer->fanout);
		}
		n->num_edges = nedges;
		n->fanin = nedges;
	}
	la->expanded = true;
	la->left = la->nnodes;
	t->units_out = la->nnodes;
	t->state = PTO_TASK_PLACED;
	t->recs[0].ts[PTO_TS_DISPATCH] = pto_pass_ns(now);
	for (i = 0; i < la->nnodes; i++) {
		struct pto_task *n = la->nodes[i];

		if (!n->fanin)
			pto_make_ready(s, n, work, adopt, now);
		else
			pto_try_stage(s, n);
	}
}

/*
 * A sanitizing launch's node has completed: its first hazard (its lowest
 * unit's, else the one GRAPH_CREATE found for it) is kept if no lower
 * node's is; every hazard it met is counted.
 */
static void pto_launch_node_haz(struct pto_launch *la, struct pto_task *n)
{
	const struct drm_pto_npu_hazard *h = pto_task_haz(n), *first = NULL;
	u32 i;

	if (!h)
		return;
	for (i = 0; i <= n->units; i++) {
		if (!h[i].kind)
			continue;
		la->haz_count += h[i].count;
		if (!first)
			first = &h[i];
	}
	if (!first || n->node >= la->haz_node)
		return;
	la->haz = *first;
	la->haz.node = n->node + 1;
	la->haz_node = n->node;
}

/*
 * The launch's last node has completed: the hazard its CQE reports. One
 * found at the launch's intake (its own records, against tasks outside
 * the graph) comes first, then the lowest node's; the count is them all.
 */
static void pto_launch_haz(struct pto_launch *la)
{
	struct drm_pto_npu_hazard *h = pto_task_haz(la->launch);

	if (!h || !la->haz_count)
		return;
	h += la->launch->units;
	if (!h->kind) {
		*h = la->haz;
		h->count = 0;
	}
	h->count += la->haz_count;
}

/**
 * pto_launch_node_done - a node of a launch has completed
 * @n: the node (DONE, its consumers walked)
 * @work: the completion loop's list: the launch joins it after its last node
 */
void pto_launch_node_done(struct pto_task *n, struct list_head *work)
{
	struct pto_launch *la = n->launch;
	struct pto_task *t = la->launch;

	if (n->status != DRM_PTO_NPU_STATUS_OK &&
	    n->status != DRM_PTO_NPU_STATUS_SKIPPED &&
	    t->status == DRM_PTO_NPU_STATUS_OK) {
		t->status = n->status;
		t->detail = n->detail;
		la->fail_node = n->node;
	}
	pto_launch_node_haz(la, n);
	t->units_out--;
	if (!--la->left) {
		pto_launch_haz(la);
		list_add_tail(&t->ready_link, work);
	}
}

/**
 * pto_launch_fill_cqe - the launch's one CQE
 * @cqe: filled as for a task that never ran
 * @t: the launch
 *
 * Flagged DRM_PTO_NPU_CQE_F_GRAPH; @block is the first failing node; the
 * timestamps span the launch, from its nodes' expansion to its retire.
 */
void pto_launch_fill_cqe(struct drm_pto_npu_cqe *cqe, const struct pto_task *t)
{
	cqe->flags |= DRM_PTO_NPU_CQE_F_GRAPH;
	if (!t->launch)
		return;
	cqe->block = t->launch->fail_node;
	cqe->ts_dispatch = t->recs[0].ts[PTO_TS_DISPATCH];
}

/**
 * pto_launch_unqueue - a launch's CQE is posted (or dropped)
 * @t: the task (nothing unless a launch)
 *
 * Nodes that never joined the scheduler (the launch refused, skipped,
 * cancelled or its dependency failed) stop counting against the
 * context's tasks and units in flight now, with the launch itself: a
 * doorbell rung once its CQE is seen finds the room, not only after a
 * worker frees the launch. Expanded nodes stopped as each completed.
 */
void pto_launch_unqueue(struct pto_task *t)
{
	if (t->graph == PTO_GRAPH_LAUNCH && t->launch && !t->launch->expanded)
		pto_launch_uncount(t->launch, t->launch->nnodes);
}

/**
 * pto_launch_free - release a launch's state with its task
 * @t: the launch, retired
 *
 * Nodes never handed to the scheduler (the launch was refused, skipped,
 * cancelled or its dependency failed) are freed here; the others have
 * freed themselves.
 */
void pto_launch_free(struct pto_task *t)
{
	struct pto_launch *la = t->launch;

	if (!la)
		return;
	if (!la->expanded)
		pto_launch_free_nodes(la, la->nnodes);
	pto_graph_put(la->g);
	kvfree(la->recs);
	t->launch = NULL;
}
