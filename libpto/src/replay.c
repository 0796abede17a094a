// SPDX-License-Identifier: MIT
/*
 * Graph replay (uapi 7): a struct pto_graph recorded once on the device
 * with DRM_IOCTL_PTO_NPU_GRAPH_CREATE, then launched by one SQ entry each
 * (DRM_PTO_NPU_TASK_F_GRAPH) whose tensors and scalars are bound to the
 * recorded graph's parameters.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_internal.h"
#include "pto/graph.h"

/* A node's incoming edges when the device reports no max_deps (its cap). */
#define PTO_REC_MAX_DEPS 32
/* GRAPH_CREATE's error_detail with REASON_GRAPH (Documentation/uapi.rst). */
#define PTO_REC_EDGE_BACKWARD 0
#define PTO_REC_EDGE_OUTSIDE 1
#define PTO_REC_EDGE_OVER_CAP 2
#define PTO_REC_EDGE_DUPLICATE 3
#define PTO_REC_GRAPH_UNITS 4

/* What GRAPH_CREATE takes, built from the graph. */
struct pto_rec {
	struct pto_graph *g;
	uint8_t *entries;
	size_t entries_size;
	struct drm_pto_npu_graph_edge *edges;
	size_t nedges;
	struct drm_pto_npu_graph_binding *binds;
	size_t nbinds;
};

static const struct pto_graph_task *pto_rtask(const struct pto_graph *g,
					      size_t i)
{
	return PTO_VEC_AT(&g->tasks, struct pto_graph_task, i);
}

/*
 * The nodes back to back: each encoded by pto_sq_push() into a private
 * ring over a linear buffer large enough never to wrap.
 */
static int pto_rec_entries(struct pto_rec *r)
{
	const struct pto_graph *g = r->g;
	uint32_t head = 0, tail = 0, nslots = 1;
	size_t total = 0, i;
	struct pto_sq sq;

	for (i = 0; i < g->tasks.n; i++) {
		const struct pto_graph_task *t = pto_rtask(g, i);

		total += pto_task_slots(t->num_tensors, t->num_scalars, 0,
					t->flags & DRM_PTO_NPU_TASK_F_PREDICATE);
	}
	if (total > UINT32_MAX / DRM_PTO_NPU_SQ_SLOT_SIZE / 2)
		return -E2BIG;
	while (nslots < total)
		nslots <<= 1;
	r->entries = calloc(nslots, DRM_PTO_NPU_SQ_SLOT_SIZE);
	if (!r->entries)
		return -ENOMEM;
	sq = (struct pto_sq){ .slots = r->entries, .nslots = nslots,
			      .head = &head, .tail = &tail };
	for (i = 0; i < g->tasks.n; i++) {
		struct pto_sqe_parts e;
		int ret;

		pto_graph_sqe_parts(g, i, i, &e);
		ret = pto_sq_push(&sq, &e);
		if (ret)
			return ret;
	}
	r->entries_size = (size_t)tail * DRM_PTO_NPU_SQ_SLOT_SIZE;
	return 0;
}

/* A node's incoming edges: the device's max_deps, as an entry's. */
static uint32_t pto_rec_dep_cap(const struct pto_graph *g)
{
	uint32_t cap = g->dev->limits.max_deps;

	return cap && cap < PTO_MAX_ARGS ? cap : PTO_REC_MAX_DEPS;
}

/*
 * Named dependencies as edges, inferred ones as order-only edges; a task
 * with more producers than a node may have is refused, nothing sent.
 */
static int pto_rec_edges(struct pto_rec *r)
{
	const struct pto_graph *g = r->g;
	uint32_t cap = pto_rec_dep_cap(g);
	size_t n = 0, i;

	for (i = 0; i < g->tasks.n; i++) {
		const struct pto_graph_task *t = pto_rtask(g, i);
		char label[PTO_GRAPH_NAME_SIZE + 32];

		if (pto_graph_ndeps(t) > cap) {
			pto_graph_task_label(label, sizeof(label), i,
					     pto_graph_name_at(g, t->name));
			pto_msgf(r->g->msg, sizeof(r->g->msg),
				 "%s has %u producers (%u named, %u inferred from directions): a recorded node may have %u (max_deps); join them through intermediate tasks, or run the graph with pto_graph_run()",
				 label, pto_graph_ndeps(t), t->num_deps, t->num_ideps,
				 cap);
			return -E2BIG;
		}
		n += pto_graph_ndeps(t);
	}
	r->edges = calloc(n ? n : 1, sizeof(*r->edges));
	if (!r->edges)
		return -ENOMEM;
	for (i = 0; i < g->tasks.n; i++) {
		const struct pto_graph_task *t = pto_rtask(g, i);
		uint32_t d;

		for (d = 0; d < pto_graph_ndeps(t); d++)
			r->edges[r->nedges++] = (struct drm_pto_npu_graph_edge){
				.producer = pto_graph_dep(g, t, d),
				.consumer = (uint32_t)i,
				.flags = d < t->num_deps ?
						 0 :
						 DRM_PTO_NPU_GRAPH_EDGE_F_INFERRED,
			};
	}
	return 0;
}

static bool pto_same_view(const struct drm_pto_npu_tensor_arg *a,
			  const struct drm_pto_npu_tensor_arg *p)
{
	return a->handle == p->handle && a->offset == p->offset &&
	       a->dtype == p->dtype && a->ndim == p->ndim &&
	       !memcmp(a->shape, p->shape, sizeof(a->shape)) &&
	       !memcmp(a->strides, p->strides, sizeof(a->strides));
}

static int pto_rec_bind(struct pto_rec *r, uint32_t node, uint8_t kind,
			uint32_t arg, uint32_t param)
{
	void *p;

	if (!(r->nbinds & (r->nbinds + 1))) {
		p = realloc(r->binds, (r->nbinds * 2 + 1) * sizeof(*r->binds));
		if (!p)
			return -ENOMEM;
		r->binds = p;
	}
	r->binds[r->nbinds++] = (struct drm_pto_npu_graph_binding){
		.node = node, .kind = kind, .arg = (uint8_t)arg,
		.param = (uint16_t)param,
	};
	return 0;
}

/*
 * Every tensor argument showing the view of a parameter (same buffer,
 * offset and layout; the first such parameter) is bound to it.
 */
static int pto_rec_tensor_binds(struct pto_rec *r, struct pto_graph_exec *x)
{
	const struct pto_graph *g = r->g;
	size_t i;
	uint32_t k, p;
	int ret;

	for (i = 0; i < g->tasks.n; i++) {
		const struct pto_graph_task *t = pto_rtask(g, i);
		const struct drm_pto_npu_tensor_arg *a = PTO_VEC_AT(
			&g->tensors, struct drm_pto_npu_tensor_arg,
			t->tensor_off);

		for (k = 0; k < t->num_tensors; k++) {
			for (p = 0; p < x->ntp; p++)
				if (pto_same_view(&a[k], &x->tparam[p]))
					break;
			if (p == x->ntp)
				continue;
			ret = pto_rec_bind(r, (uint32_t)i, DRM_PTO_NPU_BIND_TENSOR,
					   k, p);
			if (ret)
				return ret;
			x->tparam[p].flags |= a[k].flags;
		}
	}
	return 0;
}

static __attribute__((format(printf, 2, 3))) int
pto_rec_fail(struct pto_graph *g, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(g->msg, sizeof(g->msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* The parameters' layouts, then every binding, checked as the device would. */
static int pto_rec_binds(struct pto_rec *r, struct pto_graph_exec *x,
			 const struct pto_tensor *const *params,
			 const struct pto_graph_scalar_param *sp)
{
	struct pto_graph *g = r->g;
	char why[160];
	uint32_t i;
	int ret;

	for (i = 0; i < x->ntp; i++) {
		if (!params[i] || params[i]->buf->dev != g->dev)
			return pto_rec_fail(g, "tensor parameter %u is NULL or of another device", i);
		if (pto_tensor_arg(params[i], &x->tparam[i], why, sizeof(why)))
			return pto_rec_fail(g, "tensor parameter %u: %s", i, why);
	}
	ret = pto_rec_tensor_binds(r, x);
	if (ret)
		return ret;
	for (i = 0; i < x->ntp; i++) {
		size_t b;

		for (b = 0; b < r->nbinds && r->binds[b].param != i; b++)
			;
		if (b == r->nbinds)
			return pto_rec_fail(g, "tensor parameter %u is no task's argument (BINDING)", i);
	}
	for (i = 0; i < x->nsp; i++) {
		if (sp[i].task >= g->tasks.n ||
		    sp[i].scalar >= pto_rtask(g, sp[i].task)->num_scalars)
			return pto_rec_fail(g, "scalar parameter %u: task %u has no scalar %u (BINDING)",
					    i, sp[i].task, sp[i].scalar);
		ret = pto_rec_bind(r, sp[i].task, DRM_PTO_NPU_BIND_SCALAR,
				   sp[i].scalar, i);
		if (ret)
			return ret;
	}
	return 0;
}

/* GRAPH_CREATE's REASON_GRAPH details (uapi.rst), in words. */
static const char *pto_rec_graph_why(uint64_t detail, const char *rt)
{
	switch (detail) {
	case PTO_REC_EDGE_BACKWARD:
		return "the edge is not forward (producer >= consumer)";
	case PTO_REC_EDGE_OUTSIDE:
		return "the edge's consumer is outside the graph";
	case PTO_REC_EDGE_OVER_CAP:
		return "its consumer has more incoming edges than max_deps";
	case PTO_REC_EDGE_DUPLICATE:
		return "the edge repeats an earlier one";
	default:
		return rt;
	}
}

/* What the device refused, in words, in the graph's message. */
static void pto_rec_explain(struct pto_rec *r,
			    const struct drm_pto_npu_graph_create *a)
{
	struct pto_graph *g = r->g;
	const char *rn = pto_reason_name((int)a->error_reason);
	const char *rt = pto_reason_text((int)a->error_reason);
	unsigned long long det = (unsigned long long)a->error_detail;
	uint32_t w = a->error_node;
	bool graph = a->error_reason == DRM_PTO_NPU_REASON_GRAPH;
	char nbuf[32];

	if (graph && det == PTO_REC_GRAPH_UNITS && w < g->tasks.n) {
		pto_rec_fail(g, "GRAPH_CREATE refused the graph at node %u (%s): the units of its nodes (blocks x parts) pass the device's in-flight cap, so no launch of it could ever be taken (%s, detail %llu)",
			     w, pto_trace_task_name(g, w, nbuf, sizeof(nbuf)),
			     rn, det);
	} else if (a->error_reason == DRM_PTO_NPU_REASON_BINDING && w < r->nbinds) {
		const struct drm_pto_npu_graph_binding *b = &r->binds[w];

		pto_rec_fail(g, "GRAPH_CREATE refused binding %u (task %u %s argument %u -> parameter %u): %s (%s, detail %llu)",
			     w, b->node,
			     b->kind == DRM_PTO_NPU_BIND_SCALAR ? "scalar" : "tensor",
			     b->arg, b->param, rt, rn, det);
	} else if (w == ~0u) {
		pto_rec_fail(g, "GRAPH_CREATE refused the graph: %s (%s, detail %llu)",
			     rt, rn, det);
	} else if ((a->error_reason == DRM_PTO_NPU_REASON_GRAPH ||
		    a->error_reason == DRM_PTO_NPU_REASON_RESERVED) &&
		   w < r->nedges) {
		pto_rec_fail(g, "GRAPH_CREATE refused edge %u (task %u -> task %u%s): %s (%s, detail %llu)",
			     w, r->edges[w].producer, r->edges[w].consumer,
			     r->edges[w].flags ? ", inferred" : "",
			     graph ? pto_rec_graph_why(det, rt) : rt, rn, det);
	} else {
		pto_rec_fail(g, "GRAPH_CREATE refused node %u (%s): %s (%s, detail %llu)",
			     w, pto_trace_task_name(g, w, nbuf, sizeof(nbuf)),
			     rt, rn, det);
	}
}

static int pto_rec_create(struct pto_rec *r, struct pto_graph_exec *x)
{
	struct drm_pto_npu_graph_create a = {
		.entries = (uintptr_t)r->entries,
		.edges = (uintptr_t)r->edges,
		.bindings = (uintptr_t)r->binds,
		.entries_size = (uint32_t)r->entries_size,
		.num_nodes = (uint32_t)r->g->tasks.n,
		.num_edges = (uint32_t)r->nedges,
		.num_bindings = (uint32_t)r->nbinds,
		.num_tensor_params = x->ntp,
		.num_scalar_params = x->nsp,
	};
	int ret;

	if (r->nedges > UINT32_MAX || r->nbinds > UINT32_MAX)
		return -E2BIG;
	ret = pto_ioctl(x->dev->fd, DRM_IOCTL_PTO_NPU_GRAPH_CREATE, &a);
	if (ret == -EINVAL && (a.error_reason || a.error_node != ~0u))
		pto_rec_explain(r, &a);
	else if (ret)
		pto_msgf(r->g->msg, sizeof(r->g->msg), "GRAPH_CREATE: %s",
			 pto_strerror(ret));
	x->handle = a.handle;
	return ret;
}

PTO_API int pto_graph_record(struct pto_graph *g,
			     const struct pto_tensor *const *params,
			     unsigned int nparams,
			     const struct pto_graph_scalar_param *sparams,
			     unsigned int nsparams,
			     struct pto_graph_exec **out)
{
	struct pto_rec r = { .g = g };
	struct pto_graph_exec *x;
	int ret;

	if (out)
		*out = NULL;
	if (!g || !out || (nparams && !params) || (nsparams && !sparams))
		return -EINVAL;
	g->msg[0] = '\0';
	if (!g->tasks.n)
		return pto_rec_fail(g, "the graph has no task");
	if (nparams > PTO_MAX_ARGS || nsparams > PTO_MAX_ARGS)
		return -E2BIG;
	x = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	*x = (struct pto_graph_exec){ .dev = g->dev, .ntp = nparams,
				      .nsp = nsparams, .graph_id = g->id,
				      .num_nodes = (uint32_t)g->tasks.n };
	ret = pto_rec_entries(&r);
	if (!ret)
		ret = pto_rec_edges(&r);
	if (!ret)
		ret = pto_rec_binds(&r, x, params, sparams);
	if (!ret)
		ret = pto_rec_create(&r, x);
	free(r.entries);
	free(r.edges);
	free(r.binds);
	if (ret) {
		free(x);
		return ret;
	}
	*out = x;
	return 0;
}

PTO_API unsigned int pto_graph_exec_nodes(const struct pto_graph_exec *x)
{
	return x ? x->num_nodes : 0;
}

PTO_API void pto_graph_exec_free(struct pto_graph_exec *x)
{
	struct drm_pto_npu_graph_destroy d;

	if (!x)
		return;
	d = (struct drm_pto_npu_graph_destroy){ .handle = x->handle };
	if (x->handle)
		pto_ioctl(x->dev->fd, DRM_IOCTL_PTO_NPU_GRAPH_DESTROY, &d);
	free(x);
}

PTO_API uint32_t pto_graph_exec_handle(const struct pto_graph_exec *x)
{
	return x ? x->handle : 0;
}
