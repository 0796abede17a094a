// SPDX-License-Identifier: GPL-2.0-only
/*
 * pto_npu: recorded task graphs (GRAPH_CREATE, GRAPH_DESTROY).
 *
 * A graph is validated once, completely, when it is created: every node's
 * entry through the doorbell's own rules (pto_entry.c) with the recorded
 * buffers, every edge forward inside the graph (so it is acyclic), every
 * binding onto an argument that exists, each parameter used and of one
 * layout. A launch (pto_launch.c) then only binds and copies.
 * Documentation/techniques/graph-replay.rst.
 *
 * Copyright (C) 2026 pto-npu authors
 */

#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/sched.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>

#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_print.h>

#include "pto_entry.h"
#include "pto_gem.h"
#include "pto_graph.h"
#include "pto_kernel.h"
#include "pto_task.h"
#include "pto_task_mem.h"
#include "pto_xring.h"

/**
 * struct pto_gbuild - one GRAPH_CREATE in progress
 * @pdev: device
 * @file: the caller's file (its handles)
 * @args: the ioctl's arguments (the refusal is written back here)
 * @g: the graph being built
 * @edges: the user's edges, copied
 * @entries: the user's entries, copied
 * @entry: each node's entry in @entries
 */
struct pto_gbuild {
	struct pto_device *pdev;
	struct drm_file *file;
	struct drm_pto_npu_graph_create *args;
	struct pto_graph *g;
	struct drm_pto_npu_graph_edge *edges;
	u8 *entries;
	const struct drm_pto_npu_sqe **entry;
};

/* Refuse the graph: @what (node, edge or binding index) for @reason. */
static int pto_graph_refuse(struct pto_gbuild *b, u32 what, u8 reason,
			    u64 detail)
{
	b->args->error_node = what;
	b->args->error_reason = reason;
	b->args->error_detail = detail;
	return -EINVAL;
}

static void pto_graph_free(struct pto_graph *g)
{
	u32 i, k;

	for (i = 0; g->nodes && i < g->nnodes; i++)
		for (k = 0; k < PTO_NUM_CIDX; k++)
			if (g->nodes[i].kern[k])
				pto_kernel_put(g->nodes[i].kern[k]);
	for (i = 0; i < g->ntargs; i++)
		if (g->targs[i].bo)
			drm_gem_object_put(&g->targs[i].bo->base.base);
	atomic_sub(g->nnodes, &g->ctx->graph_nodes);
	kvfree(g->nodes);
	kvfree(g->in);
	kvfree(g->bind);
	kvfree(g->targs);
	kvfree(g->scalars);
	kvfree(g->acc);
	kvfree(g->preds);
	kfree(g);
}

static void pto_graph_release(struct kref *ref)
{
	pto_graph_free(container_of(ref, struct pto_graph, ref));
}

/**
 * pto_graph_put - drop a reference to a graph
 * @g: the graph, or NULL
 */
void pto_graph_put(struct pto_graph *g)
{
	if (g)
		kref_put(&g->ref, pto_graph_release);
}

/**
 * pto_graph_lookup - the graph behind a handle of the context
 * @ctx: the context
 * @handle: its handle
 *
 * Return: the graph with a reference for the caller, or NULL.
 */
struct pto_graph *pto_graph_lookup(struct pto_ctx *ctx, u32 handle)
{
	struct pto_graph *g;

	xa_lock(&ctx->graphs);
	g = xa_load(&ctx->graphs, handle);
	if (g)
		kref_get(&g->ref);
	xa_unlock(&ctx->graphs);
	return g;
}

/**
 * pto_graphs_release - drop every graph handle of a closing context
 * @ctx: the context, its tasks all freed
 */
void pto_graphs_release(struct pto_ctx *ctx)
{
	struct pto_graph *g;
	unsigned long id;

	xa_for_each(&ctx->graphs, id, g) {
		xa_erase(&ctx->graphs, id);
		pto_graph_put(g);
	}
	xa_destroy(&ctx->graphs);
}

static int pto_graph_check_args(struct drm_device *drm,
				const struct drm_pto_npu_graph_create *a)
{
	if (a->flags || !a->num_nodes || a->num_nodes > PTO_MAX_GRAPH_NODES ||
	    a->num_edges > PTO_MAX_GRAPH_EDGES ||
	    a->num_bindings > PTO_MAX_GRAPH_BINDINGS ||
	    a->num_tensor_params > PTO_MAX_TENSOR_ARGS ||
	    a->num_scalar_params > PTO_MAX_SCALAR_ARGS ||
	    !a->entries_size || a->entries_size % PTO_SQE_SLOT ||
	    a->entries_size / PTO_SQE_SLOT > (u64)a->num_nodes * PTO_SQE_MAX_SLOTS) {
		drm_dbg(drm, "GRAPH_CREATE: flags 0x%x, %u nodes, %u edges, %u bindings, %u+%u parameters or %u bytes of entries out of range\n",
			a->flags, a->num_nodes, a->num_edges, a->num_bindings,
			a->num_tensor_params, a->num_scalar_params,
			a->entries_size);
		return -EINVAL;
	}
	return 0;
}

/* Copy the user's arrays in: entries, edges, bindings. */
static int pto_graph_copy_in(struct pto_gbuild *b)
{
	const struct drm_pto_npu_graph_create *a = b->args;
	struct pto_graph *g = b->g;

	b->entries = kvmalloc(a->entries_size, GFP_KERNEL_ACCOUNT);
	b->entry = kvmalloc_array(a->num_nodes, sizeof(*b->entry), GFP_KERNEL);
	b->edges = kvmalloc_array(a->num_edges, sizeof(*b->edges),
				  GFP_KERNEL_ACCOUNT);
	g->bind = kvmalloc_array(a->num_bindings, sizeof(*g->bind),
				 GFP_KERNEL_ACCOUNT);
	g->nodes = kvcalloc(a->num_nodes, sizeof(*g->nodes), GFP_KERNEL_ACCOUNT);
	g->in = kvmalloc_array(a->num_edges, sizeof(*g->in), GFP_KERNEL_ACCOUNT);
	if (!b->entries || !b->entry || !g->nodes || (a->num_edges && (!b->edges || !g->in)) ||
	    (a->num_bindings && !g->bind))
		return -ENOMEM;
	if (copy_from_user(b->entries, u64_to_user_ptr(a->entries),
			   a->entries_size) ||
	    copy_from_user(b->edges, u64_to_user_ptr(a->edges),
			   array_size(a->num_edges, sizeof(*b->edges))) ||
	    copy_from_user(g->bind, u64_to_user_ptr(a->bindings),
			   array_size(a->num_bindings, sizeof(*g->bind))))
		return -EFAULT;
	return 0;
}

/* Keep what node @i's validated task @t resolved to; @t keeps nothing. */
static void pto_graph_keep(struct pto_graph *g, u32 i, struct pto_task *t)
{
	struct pto_gnode *n = &g->nodes[i];
	u32 k;

	*n = (struct pto_gnode){
		.user_data = t->user_data, .flags = t->flags,
		.block_num = t->block_num, .ring_base = t->ring_base,
		.bar_parties = t->bar_parties, .targ0 = g->ntargs,
		.scal0 = n->scal0, .pred = t->pred, .slot_num = t->slot_num,
		.num_tensors = t->num_tensors, .num_scalars = t->num_scalars,
		.split = t->split, .nparts = t->nparts,
		.directed = !!t->irecs,
	};
	if (t->rings) {
		n->c2v_bytes = t->rings[0].c2v_bytes;
		n->v2c_bytes = t->rings[0].v2c_bytes;
	}
	/* The references move from the task to the graph. */
	for (k = 0; k < PTO_NUM_CIDX; k++) {
		n->kern[k] = t->kern[k];
		t->kern[k] = NULL;
	}
	for (k = 0; k < t->num_tensors; k++) {
		g->targs[g->ntargs++] = t->targs[k];
		t->targs[k].bo = NULL;
	}
	memcpy(&g->scalars[n->scal0], t->scalars,
	       t->num_scalars * sizeof(*t->scalars));
}

/* Node @i's entry, validated once through a task, kept compact. */
static int pto_graph_node(struct pto_gbuild *b, u32 i,
			  struct drm_pto_npu_sqe *e, u32 nslots, u32 *scal0)
{
	struct pto_ctx *ctx = b->file->driver_priv;
	struct pto_task *t;
	u64 detail;
	u8 reason;
	int ret = 0;

	pto_sqe_resolve_grid(b->pdev, e);
	reason = pto_sqe_check_size(e, nslots, &detail);
	if (reason)
		return pto_graph_refuse(b, i, reason, detail);
	if (e->num_deps || (e->flags & DRM_PTO_NPU_TASK_F_GRAPH))
		return pto_graph_refuse(b, i, DRM_PTO_NPU_REASON_GRAPH,
					e->num_deps ? DRM_PTO_NPU_GRAPH_EDGE_OUTSIDE :
					DRM_PTO_NPU_GRAPH_EDGE_BACKWARD);
	t = pto_entry_task_alloc(ctx, NULL, e, true, 0);
	if (!t)
		return -ENOMEM;
	if (pto_entry_parse(b->pdev, b->file, t, e, NULL)) {
		ret = t->status == DRM_PTO_NPU_STATUS_NOMEM ? -ENOMEM :
		      pto_graph_refuse(b, i, t->reason, t->detail);
	} else if (b->g->units + t->units >= PTO_MAX_INFLIGHT_UNITS) {
		/*
		 * A launch takes its nodes' units and its own record at once:
		 * this one never could.
		 */
		ret = pto_graph_refuse(b, i, DRM_PTO_NPU_REASON_GRAPH,
				       DRM_PTO_NPU_GRAPH_UNITS);
	} else {
		b->g->units += t->units;
		b->g->nodes[i].scal0 = *scal0;
		*scal0 += t->num_scalars;
		pto_graph_keep(b->g, i, t);
		b->entry[i] = e;
	}
	pto_task_put_resources(t);
	pto_task_mem_free(t);
	return ret;
}

/* The entries' slots, each node's at its place; room for their arguments. */
static int pto_graph_slots(struct pto_gbuild *b, u32 *offs)
{
	const struct drm_pto_npu_graph_create *a = b->args;
	u32 off = 0, nt = 0, ns = 0, i;

	for (i = 0; i < a->num_nodes; i++) {
		const struct drm_pto_npu_sqe *e = (void *)(b->entries + off);
		u32 n;

		if (off >= a->entries_size)
			return pto_graph_refuse(b, i, DRM_PTO_NPU_REASON_SLOTS, 0);
		n = e->num_slots;
		if (!n || n > PTO_SQE_MAX_SLOTS ||
		    n > (a->entries_size - off) / PTO_SQE_SLOT)
			return pto_graph_refuse(b, i, DRM_PTO_NPU_REASON_SLOTS, n);
		/* Counts over their caps are refused by the node's own checks. */
		nt += min_t(u32, e->num_tensors, PTO_MAX_TENSOR_ARGS);
		ns += min_t(u32, e->num_scalars, PTO_MAX_SCALAR_ARGS);
		offs[i] = off;
		off += n * PTO_SQE_SLOT;
	}
	if (off != a->entries_size)
		return pto_graph_refuse(b, ~0u, DRM_PTO_NPU_REASON_SLOTS, off);
	b->g->targs = kvcalloc(nt, sizeof(*b->g->targs), GFP_KERNEL_ACCOUNT);
	b->g->scalars = kvmalloc_array(ns, sizeof(s64), GFP_KERNEL_ACCOUNT);
	if ((nt && !b->g->targs) || (ns && !b->g->scalars))
		return -ENOMEM;
	return 0;
}

/* Walk the entries: their slots, then each node's validation. */
static int pto_graph_nodes(struct pto_gbuild *b)
{
	u32 n = b->args->num_nodes, scal0 = 0, i;
	u32 *offs;
	int ret;

	offs = kvmalloc_array(n, sizeof(*offs), GFP_KERNEL);
	if (!offs)
		return -ENOMEM;
	ret = pto_graph_slots(b, offs);
	for (i = 0; !ret && i < n; i++) {
		struct drm_pto_npu_sqe *e = (void *)(b->entries + offs[i]);

		ret = pto_graph_node(b, i, e, e->num_slots, &scal0);
		/* Thousands of nodes, each a task validated: let others run. */
		cond_resched();
	}
	kvfree(offs);
	return ret;
}

/*
 * Edges forward inside the graph (acyclic), each pair once, at most
 * PTO_MAX_DEPS into a node (its task's edge records are sized from that
 * count at every launch), grouped by consumer.
 */
static int pto_graph_edges(struct pto_gbuild *b)
{
	struct pto_graph *g = b->g;
	u32 n = b->args->num_edges, i, at = 0;

	for (i = 0; i < n; i++) {
		const struct drm_pto_npu_graph_edge *e = &b->edges[i];

		if (e->pad || e->flags & ~DRM_PTO_NPU_GRAPH_EDGE_F_INFERRED)
			return pto_graph_refuse(b, i, DRM_PTO_NPU_REASON_RESERVED, 0);
		if (e->consumer >= g->nnodes || e->producer >= e->consumer)
			return pto_graph_refuse(b, i, DRM_PTO_NPU_REASON_GRAPH,
						e->consumer >= g->nnodes ?
						DRM_PTO_NPU_GRAPH_EDGE_OUTSIDE :
						DRM_PTO_NPU_GRAPH_EDGE_BACKWARD);
		/* A node's fanin: an SQ entry's dependencies at most. */
		if (++g->nodes[e->consumer].nedges > PTO_MAX_DEPS)
			return pto_graph_refuse(b, i, DRM_PTO_NPU_REASON_GRAPH,
						DRM_PTO_NPU_GRAPH_EDGE_FANIN);
	}
	for (i = 0; i < g->nnodes; i++) {
		g->nodes[i].edge0 = at;
		at += g->nodes[i].nedges;
		g->nodes[i].nedges = 0;
	}
	for (i = 0; i < n; i++) {
		const struct drm_pto_npu_graph_edge *e = &b->edges[i];
		struct pto_gnode *c = &g->nodes[e->consumer];
		u32 k;

		for (k = c->edge0; k < c->edge0 + c->nedges; k++)
			if (g->in[k].producer == e->producer)
				return pto_graph_refuse(b, i, DRM_PTO_NPU_REASON_GRAPH,
							DRM_PTO_NPU_GRAPH_EDGE_DUPLICATE);
		g->in[c->edge0 + c->nedges++] = (struct pto_gin){
			.producer = e->producer,
			.inferred = e->flags & DRM_PTO_NPU_GRAPH_EDGE_F_INFERRED,
		};
	}
	return 0;
}

static bool pto_same_layout(const struct drm_pto_npu_tensor_arg *x,
			    const struct drm_pto_npu_tensor_arg *y)
{
	return x->dtype == y->dtype && x->ndim == y->ndim &&
	       !memcmp(x->shape, y->shape, sizeof(x->shape)) &&
	       !memcmp(x->strides, y->strides, sizeof(x->strides));
}

/* One binding: onto an argument that exists, of its parameter's layout. */
static int pto_graph_bind_one(struct pto_gbuild *b, u32 i, u32 *tused,
			      u32 *sused)
{
	const struct drm_pto_npu_graph_binding *bd = &b->g->bind[i];
	struct pto_graph *g = b->g;
	const struct drm_pto_npu_sqe *e;
	const struct drm_pto_npu_tensor_arg *arg;
	struct pto_gparam *p;
	u16 *bound;

	if (bd->node >= g->nnodes || bd->kind > DRM_PTO_NPU_BIND_SCALAR)
		return pto_graph_refuse(b, i, DRM_PTO_NPU_REASON_BINDING, 0);
	e = b->entry[bd->node];
	bound = bd->kind == DRM_PTO_NPU_BIND_SCALAR ? &g->nodes[bd->node].sbound :
		&g->nodes[bd->node].tbound;
	if (bd->kind == DRM_PTO_NPU_BIND_SCALAR) {
		if (bd->arg >= e->num_scalars || bd->param >= g->nsp)
			return pto_graph_refuse(b, i, DRM_PTO_NPU_REASON_BINDING, 1);
	} else if (bd->arg >= e->num_tensors || bd->param >= g->ntp) {
		return pto_graph_refuse(b, i, DRM_PTO_NPU_REASON_BINDING, 1);
	}
	/* An argument is set by one parameter: a node holds 32 bindings at most. */
	if (*bound & BIT(bd->arg))
		return pto_graph_refuse(b, i, DRM_PTO_NPU_REASON_BINDING, 3);
	*bound |= BIT(bd->arg);
	if (bd->kind == DRM_PTO_NPU_BIND_SCALAR) {
		*sused |= BIT(bd->param);
		return 0;
	}
	arg = (const struct drm_pto_npu_tensor_arg *)(e + 1) + bd->arg;
	p = &g->tparam[bd->param];
	if (*tused & BIT(bd->param) && !pto_same_layout(&p->layout, arg))
		return pto_graph_refuse(b, i, DRM_PTO_NPU_REASON_BINDING, 2);
	p->layout = *arg;
	p->dir |= arg->flags;
	if (!arg->flags)
		p->acc |= pto_gnode_acc(&g->nodes[bd->node], bd->arg);
	*tused |= BIT(bd->param);
	return 0;
}

/* Bindings grouped by node; every parameter used. */
static int pto_graph_bindings(struct pto_gbuild *b)
{
	struct pto_graph *g = b->g;
	u32 n = b->args->num_bindings, i, tused = 0, sused = 0, at = 0;
	struct drm_pto_npu_graph_binding *sorted;
	int ret;

	for (i = 0; i < n; i++) {
		ret = pto_graph_bind_one(b, i, &tused, &sused);
		if (ret)
			return ret;
		g->nodes[g->bind[i].node].nbind++;
	}
	if (tused != (u32)(BIT(g->ntp) - 1) || sused != (u32)(BIT(g->nsp) - 1))
		return pto_graph_refuse(b, ~0u, DRM_PTO_NPU_REASON_BINDING,
					tused != (u32)(BIT(g->ntp) - 1) ?
					ffz(tused) : ffz(sused));
	sorted = kvmalloc_array(n, sizeof(*sorted), GFP_KERNEL_ACCOUNT);
	if (n && !sorted)
		return -ENOMEM;
	for (i = 0; i < g->nnodes; i++) {
		g->nodes[i].bind0 = at;
		at += g->nodes[i].nbind;
		g->nodes[i].nbind = 0;
	}
	for (i = 0; i < n; i++) {
		struct pto_gnode *node = &g->nodes[g->bind[i].node];

		sorted[node->bind0 + node->nbind++] = g->bind[i];
	}
	kvfree(g->bind);
	g->bind = sorted;
	return 0;
}

static int pto_graph_build(struct pto_gbuild *b)
{
	u32 bad = 0;
	int ret;

	ret = pto_graph_copy_in(b);
	if (!ret)
		ret = pto_graph_nodes(b);
	if (!ret)
		ret = pto_graph_edges(b);
	if (!ret)
		ret = pto_graph_bindings(b);
	if (!ret)
		ret = pto_graph_accesses(b->g);
	if (!ret)
		ret = pto_graph_preds(b->g);
	if (!ret)
		ret = pto_graph_infer(b->g, &bad);
	if (ret == -E2BIG)
		ret = pto_graph_refuse(b, bad, DRM_PTO_NPU_REASON_GRAPH,
				       DRM_PTO_NPU_GRAPH_INFERRED);
	return ret;
}

static struct pto_graph *pto_graph_alloc(struct pto_ctx *ctx,
					 const struct drm_pto_npu_graph_create *a)
{
	struct pto_graph *g;

	if (atomic_add_return(a->num_nodes, &ctx->graph_nodes) >
	    PTO_MAX_GRAPH_NODES_PER_CONTEXT) {
		atomic_sub(a->num_nodes, &ctx->graph_nodes);
		return ERR_PTR(-ENOSPC);
	}
	g = kzalloc(sizeof(*g), GFP_KERNEL_ACCOUNT);
	if (!g) {
		atomic_sub(a->num_nodes, &ctx->graph_nodes);
		return ERR_PTR(-ENOMEM);
	}
	kref_init(&g->ref);
	g->ctx = ctx;
	g->nnodes = a->num_nodes;
	g->ntp = a->num_tensor_params;
	g->nsp = a->num_scalar_params;
	return g;
}

/**
 * pto_ioctl_graph_create - DRM_IOCTL_PTO_NPU_GRAPH_CREATE
 * @drm: device
 * @data: struct drm_pto_npu_graph_create
 * @file: the caller's file
 *
 * Return: 0 with the handle; -EINVAL (a refused node, edge or binding is
 * named in @data), -EFAULT, -ENOSPC, -ENOMEM.
 */
int pto_ioctl_graph_create(struct drm_device *drm, void *data,
			   struct drm_file *file)
{
	struct pto_gbuild b = {
		.pdev = to_pto_device(drm), .file = file, .args = data,
	};
	struct pto_ctx *ctx = file->driver_priv;
	u32 handle;
	int ret;

	b.args->handle = 0;
	b.args->error_node = ~0u;
	b.args->error_reason = 0;
	b.args->error_detail = 0;
	ret = pto_graph_check_args(drm, b.args);
	if (ret)
		return ret;
	b.g = pto_graph_alloc(ctx, b.args);
	if (IS_ERR(b.g))
		return PTR_ERR(b.g);
	ret = pto_graph_build(&b);
	kvfree(b.edges);
	kvfree(b.entries);
	kvfree(b.entry);
	if (!ret)
		ret = xa_alloc(&ctx->graphs, &handle, b.g, xa_limit_32b,
			       GFP_KERNEL_ACCOUNT);
	if (ret) {
		if (b.args->error_reason)
			drm_dbg(drm, "GRAPH_CREATE: refused: index %u, reason %u, detail %llu\n",
				b.args->error_node, b.args->error_reason,
				b.args->error_detail);
		pto_graph_free(b.g);
		return ret;
	}
	b.args->handle = handle;
	return 0;
}

/**
 * pto_ioctl_graph_destroy - DRM_IOCTL_PTO_NPU_GRAPH_DESTROY
 * @drm: device
 * @data: struct drm_pto_npu_graph_destroy
 * @file: the caller's file
 *
 * The handle goes at once; launches taken keep the graph until they retire.
 *
 * Return: 0; -EINVAL for a pad; -ENOENT for an unknown handle.
 */
int pto_ioctl_graph_destroy(struct drm_device *drm, void *data,
			    struct drm_file *file)
{
	struct drm_pto_npu_graph_destroy *args = data;
	struct pto_ctx *ctx = file->driver_priv;
	struct pto_graph *g;

	if (args->pad)
		return -EINVAL;
	g = xa_erase(&ctx->graphs, args->handle);
	if (!g)
		return -ENOENT;
	pto_graph_put(g);
	return 0;
}
