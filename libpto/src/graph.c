// SPDX-License-Identifier: MIT
/*
 * Task graphs. A task is stored as it will be encoded (handles, tensor
 * arguments in the uapi layout, scalars, dependencies as graph indexes)
 * in a few flat arrays the tasks index into, so a graph of many thousand
 * tasks is a handful of allocations and a few hundred bytes per task.
 *
 * pto_graph_run() streams the tasks through a queue in graph order. A
 * dependency on a task the device has already taken is its absolute id;
 * one on a task still in the SQ is the id distance (-(i - j)), which holds
 * because one doorbell numbers the entries it takes consecutively. What a
 * doorbell leaves in the SQ is withdrawn and pushed again, so a relative
 * id never spans two doorbells, whatever other queues of the device handle
 * submit in between. The CQEs' user_data carries the run number and the
 * task index, so completions of an earlier, abandoned run are told apart.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#include "graph_internal.h"

int pto_vec_reserve(struct pto_vec *v, size_t size, size_t extra)
{
	size_t want = v->n + extra, ncap = v->cap ? v->cap : 64;
	void *p;

	if (want <= v->cap)
		return 0;
	/* Offsets into the arrays are 32-bit. */
	if (want > UINT32_MAX)
		return -E2BIG;
	while (ncap < want)
		ncap *= 2;
	p = realloc(v->data, ncap * size);
	if (!p)
		return -ENOMEM;
	v->data = p;
	v->cap = ncap;
	return 0;
}

/* Append @count elements; the space must have been reserved. */
uint32_t pto_vec_append(struct pto_vec *v, size_t size, const void *src,
			size_t count)
{
	size_t at = v->n;

	if (count)
		memcpy((char *)v->data + at * size, src, count * size);
	v->n += count;
	return (uint32_t)at;
}

static void pto_vec_free(struct pto_vec *v)
{
	free(v->data);
}

static struct pto_graph_task *pto_task(const struct pto_graph *g, size_t i)
{
	return pto_graph_task_at(g, i);
}

/* The last &pto_graph.id given: a recording names its graph by it. */
static uint64_t pto_graph_ids;

PTO_API int pto_graph_new(struct pto_device *dev, struct pto_graph **out)
{
	struct pto_graph *g;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!dev)
		return -EINVAL;
	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	g->dev = dev;
	g->id = __atomic_add_fetch(&pto_graph_ids, 1, __ATOMIC_RELAXED);
	*out = g;
	return 0;
}

PTO_API void pto_graph_free(struct pto_graph *g)
{
	if (!g)
		return;
	pto_vec_free(&g->tasks);
	pto_vec_free(&g->tensors);
	pto_vec_free(&g->tensor_use);
	pto_vec_free(&g->scalars);
	pto_vec_free(&g->deps);
	pto_vec_free(&g->ideps);
	pto_vec_free(&g->access);
	pto_vec_free(&g->preds);
	pto_vec_free(&g->names);
	pto_vec_free(&g->hazards);
	free(g->blocks);
	free(g->profs);
	free(g->scheds);
	free(g);
}

PTO_API const char *pto_graph_error(const struct pto_graph *g)
{
	return g ? g->msg : "";
}

PTO_API int pto_graph_set_name(struct pto_graph *g, const char *name)
{
	if (!g || !name || strlen(name) >= sizeof(g->name))
		return -EINVAL;
	strcpy(g->name, name);
	return 0;
}

PTO_API const char *pto_graph_name(const struct pto_graph *g)
{
	return g ? g->name : "";
}

PTO_API unsigned int pto_graph_task_count(const struct pto_graph *g)
{
	return g ? (unsigned int)g->tasks.n : 0;
}

const char *pto_graph_task_name_at(const struct pto_graph *g,
				   const struct pto_graph_task *t)
{
	return t->name ? (const char *)g->names.data + t->name - 1 : "";
}

void pto_graph_task_label(char *buf, size_t len, size_t idx, const char *name)
{
	if (name && *name)
		pto_msgf(buf, len, "task %zu '%s'", idx, name);
	else
		pto_msgf(buf, len, "task %zu", idx);
}

/* ------------------------------------------------------------- building */

/* Checks of one task at add time, with its label for the messages. */
struct pto_add_ctx {
	struct pto_graph *g;
	const struct pto_task_desc *d;
	size_t idx;
	/* d->block_num, a grid sentinel resolved to the device's count */
	uint32_t blocks;
	char label[96];
	uint32_t *ideps;
	uint32_t nideps;
};

static __attribute__((format(printf, 3, 4))) int
pto_add_fail(struct pto_add_ctx *c, int err, const char *fmt, ...)
{
	char what[PTO_GRAPH_MSG_SIZE];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	pto_msgf(c->g->msg, sizeof(c->g->msg), "%s: %s", c->label, what);
	return err;
}

/* The cap when the device reports one, else what an entry can encode. */
static uint32_t pto_cap(uint32_t limit)
{
	return limit && limit < PTO_MAX_ARGS ? limit : PTO_MAX_ARGS;
}

static int pto_add_check_kernel(struct pto_add_ctx *c,
				const struct pto_kernel *k, uint32_t core,
				const char *slot)
{
	if (!k)
		return 0;
	if (k->dev != c->g->dev)
		return pto_add_fail(c, -EINVAL,
				    "%s is a kernel of another device", slot);
	if (k->core_type != core)
		return pto_add_fail(c, -EINVAL, "%s is a%s kernel", slot,
				    k->core_type == PTO_CORE_AIC ? "n AIC" :
								   "n AIV");
	if (c->d->num_tensors < k->num_tensor_args)
		return pto_add_fail(
			c, -EINVAL,
			"%s uses %u tensor arguments, the task passes %u", slot,
			k->num_tensor_args, c->d->num_tensors);
	if (c->d->num_scalars < k->num_scalar_args)
		return pto_add_fail(
			c, -EINVAL,
			"%s uses %u scalar arguments, the task passes %u", slot,
			k->num_scalar_args, c->d->num_scalars);
	return 0;
}

/* A kernel that uses the cross-core ring outside a mixed task. */
static const char *pto_ring_op_of(const struct pto_kernel *k)
{
	if (!k || (!k->push.used && !k->pop.used))
		return NULL;
	if (k->push.used && k->pop.used)
		return "PUSH and POP";
	return k->push.used ? "PUSH" : "POP";
}

/*
 * The cross-core ring: only a mixed task has one, and its two kernels'
 * tiles must match under the split and fit the AIV's UB with the slots.
 */
static int pto_add_check_ring(struct pto_add_ctx *c)
{
	const struct pto_task_desc *d = c->d;
	char why[PTO_GRAPH_MSG_SIZE];
	const char *op;
	int ret;

	if (d->kernel_aiv && d->kernel_aic) {
		ret = pto_mixed_check(d->kernel_aic, d->kernel_aiv,
				      d->split_mode, d->slot_num, why,
				      sizeof(why));
		return ret ? pto_add_fail(c, ret, "%s", why) : 0;
	}
	if (d->split_mode || d->slot_num)
		return pto_add_fail(
			c, -EINVAL,
			"split_mode %u and slot_num %u are for mixed tasks (kernel_aic and kernel_aiv both set)",
			(unsigned int)d->split_mode, d->slot_num);
	op = pto_ring_op_of(d->kernel_aiv ? d->kernel_aiv : d->kernel_aic);
	if (op)
		return pto_add_fail(
			c, -EINVAL,
			"%s uses the cross-core ring (%s), which only a mixed task has: set kernel_aic and kernel_aiv",
			d->kernel_aiv ? "kernel_aiv" : "kernel_aic", op);
	return 0;
}

/* The count a grid sentinel stands for on @dev; a literal is itself. */
static uint32_t pto_grid_blocks(const struct pto_device *dev, uint32_t n)
{
	if (n == PTO_GRID_ALL_AIV)
		return pto_available_aiv_count(dev);
	if (n == PTO_GRID_ALL_CLUSTERS)
		return pto_available_cluster_count(dev);
	return n;
}

/*
 * HardSyncallOccupancy: a HARD syncall launch occupies every core of the
 * barrier's type (one block per AIV, or per cluster for AIC and MIX), is
 * sync_start, and the barrier's type is the task's shape. On hardware
 * anything else deadlocks (507018); here it is refused before it is sent.
 * As the guide's verifier, the grid must be sized from the device
 * (PTO_GRID_ALL_AIV or PTO_GRID_ALL_CLUSTERS): a literal that matches
 * today's device breaks on another.
 */
static int pto_add_check_hard_sync(struct pto_add_ctx *c)
{
	const struct pto_task_desc *d = c->d;
	const struct pto_kernel *k[2] = { d->kernel_aiv, d->kernel_aic };
	bool mix = d->kernel_aiv && d->kernel_aic;
	bool aiv = d->kernel_aiv && !mix;
	uint8_t want = mix ? PTO_SYNC_MIX : d->kernel_aiv ? PTO_SYNC_AIV : PTO_SYNC_AIC;
	uint32_t grid = aiv ? PTO_GRID_ALL_AIV : PTO_GRID_ALL_CLUSTERS;
	const char *grid_name = aiv ? "PTO_GRID_ALL_AIV" : "PTO_GRID_ALL_CLUSTERS";
	const char *launch = mix ? "a mixed" : aiv ? "an AIV" : "an AIC";
	uint8_t type = 0;
	int i;

	for (i = 0; i < 2; i++)
		if (k[i] && k[i]->hard_sync)
			type = k[i]->hard_sync;
	if (!type)
		return 0;
	if (type != want)
		return pto_add_fail(c, -EINVAL,
				    "HardSyncallOccupancy: a HARD syncall of type %u in a task of type %u",
				    type, want);
	if (mix && (!k[0]->hard_sync || !k[1]->hard_sync))
		return pto_add_fail(c, -EINVAL,
				    "HardSyncallOccupancy: both kernels of a mixed task must carry the HARD syncall");
	if (d->block_num != grid)
		return pto_add_fail(c, -EINVAL,
				    "HardSyncallOccupancy: a HARD syncall needs the grid sized from the device, not %s%u blocks: a literal that matches today's device breaks on another; use block_num = %s (%s launch%s)",
				    d->block_num == PTO_GRID_ALL_AIV ||
				    d->block_num == PTO_GRID_ALL_CLUSTERS ?
				    "a grid of " : "a literal ",
				    c->blocks, grid_name, launch,
				    aiv ? ", PTO_SYNC_AIV" : "");
	if (!(d->flags & PTO_TASK_SYNC_START))
		return pto_add_fail(c, -EINVAL,
				    "HardSyncallOccupancy: a HARD syncall launch needs PTO_TASK_SYNC_START");
	return 0;
}

/*
 * A SOFT syncall's workspace is 16 int32 (one exclusive, zero-initialised
 * 64-byte line): the device refuses a smaller one (PTO_REASON_SYNCALL).
 */
static int pto_add_check_soft_ws(struct pto_add_ctx *c, uint32_t i,
				 const struct pto_tensor *t)
{
	const struct pto_task_desc *d = c->d;
	uint64_t n;

	if (!(d->kernel_aiv && d->kernel_aiv->soft_ws[i]) &&
	    !(d->kernel_aic && d->kernel_aic->soft_ws[i]))
		return 0;
	n = pto_tensor_numel(t);
	if (n >= PTO_SOFT_WS_ELEMS)
		return 0;
	return pto_add_fail(c, -EINVAL,
			    "tensor %u is a SOFT syncall workspace of %llu elements: it needs %u int32 (one zero-initialised 64-byte line)",
			    i, (unsigned long long)n, PTO_SOFT_WS_ELEMS);
}

/* Blocks of a SYNC_START task must all fit on the device at once. */
static uint32_t pto_sync_start_capacity(const struct pto_graph *g,
					const struct pto_task_desc *d)
{
	if (d->kernel_aiv && d->kernel_aic)
		return g->dev->info.clusters;
	return d->kernel_aic ? g->dev->info.aic_cores : g->dev->info.aiv_cores;
}

static int pto_add_check_shape(struct pto_add_ctx *c)
{
	const struct pto_task_desc *d = c->d;
	const struct pto_limits *lim = &c->g->dev->limits;
	uint32_t cap;

	if (!d->kernel_aiv && !d->kernel_aic)
		return pto_add_fail(c, -EINVAL,
				    "no kernel: set kernel_aiv or kernel_aic");
	c->blocks = pto_grid_blocks(c->g->dev, d->block_num);
	if (!c->blocks)
		return pto_add_fail(c, -EINVAL, "block_num is 0");
	if (lim->max_block_num && c->blocks > lim->max_block_num)
		return pto_add_fail(c, -E2BIG,
				    "block_num %u over the device's %u",
				    c->blocks, lim->max_block_num);
	if (d->flags & ~(PTO_TASK_SYNC_START | PTO_TASK_EARLY_RESOLVE))
		return pto_add_fail(c, -EINVAL, "unknown flags 0x%x",
				    d->flags & ~(PTO_TASK_SYNC_START |
						 PTO_TASK_EARLY_RESOLVE));
	if (pto_add_check_hard_sync(c))
		return -EINVAL;
	cap = pto_sync_start_capacity(c->g, d);
	if ((d->flags & PTO_TASK_SYNC_START) && c->blocks > cap)
		return pto_add_fail(
			c, -EINVAL,
			"sync_start with %u blocks: the device holds %u at once",
			c->blocks, cap);
	if (d->num_tensors > pto_cap(lim->max_tensor_args))
		return pto_add_fail(c, -E2BIG, "%u tensors, at most %u",
				    d->num_tensors,
				    pto_cap(lim->max_tensor_args));
	if (d->num_scalars > pto_cap(lim->max_scalar_args))
		return pto_add_fail(c, -E2BIG, "%u scalars, at most %u",
				    d->num_scalars,
				    pto_cap(lim->max_scalar_args));
	if (d->num_deps > pto_cap(lim->max_deps))
		return pto_add_fail(c, -E2BIG, "%u dependencies, at most %u",
				    d->num_deps, pto_cap(lim->max_deps));
	if ((d->num_tensors && !d->tensors) ||
	    (d->num_scalars && !d->scalars) || (d->num_deps && !d->deps))
		return pto_add_fail(c, -EINVAL,
				    "a count is set but its array is NULL");
	if (pto_add_check_kernel(c, d->kernel_aiv, PTO_CORE_AIV,
				 "kernel_aiv") ||
	    pto_add_check_kernel(c, d->kernel_aic, PTO_CORE_AIC, "kernel_aic"))
		return -EINVAL;
	return pto_add_check_ring(c);
}

static uint8_t pto_kernels_arg_use(const struct pto_task_desc *d, uint32_t i)
{
	return (d->kernel_aiv ? d->kernel_aiv->arg_use[i] : 0) |
	       (d->kernel_aic ? d->kernel_aic->arg_use[i] : 0);
}

static int pto_add_check_dtype(struct pto_add_ctx *c,
			       const struct pto_kernel *k, uint32_t i,
			       enum pto_dtype dtype)
{
	if (!k || !k->arg_dtype[i] || k->arg_dtype[i] == dtype)
		return 0;
	return pto_add_fail(c, -EINVAL,
			    "tensor %u is %s but the %s kernel uses it as %s",
			    i, pto_dtype_name(dtype),
			    k->core_type == PTO_CORE_AIC ? "AIC" : "AIV",
			    pto_dtype_name(k->arg_dtype[i]));
}

static int pto_add_tensors(struct pto_add_ctx *c,
			   struct drm_pto_npu_tensor_arg *args, uint8_t *use)
{
	const struct pto_task_desc *d = c->d;
	char why[160];
	uint32_t i;

	for (i = 0; i < d->num_tensors; i++) {
		const struct pto_tensor *t = d->tensors[i];

		if (!t)
			return pto_add_fail(c, -EINVAL, "tensor %u is NULL", i);
		if (t->buf->dev != c->g->dev)
			return pto_add_fail(c, -EINVAL,
					    "tensor %u lives on another device",
					    i);
		if (pto_tensor_arg(t, &args[i], why, sizeof(why)))
			return pto_add_fail(c, -EINVAL, "tensor %u: %s", i,
					    why);
		if (d->tensor_dirs && (d->tensor_dirs[i] & ~PTO_ARG_INOUT))
			return pto_add_fail(c, -EINVAL,
					    "tensor %u: direction 0x%x is not PTO_ARG_IN, _OUT or _INOUT",
					    i, d->tensor_dirs[i]);
		args[i].flags = d->tensor_dirs ? d->tensor_dirs[i] : 0;
		if (pto_add_check_dtype(c, d->kernel_aiv, i, t->layout.dtype) ||
		    pto_add_check_dtype(c, d->kernel_aic, i, t->layout.dtype) ||
		    pto_add_check_soft_ws(c, i, t))
			return -EINVAL;
		use[i] = pto_kernels_arg_use(d, i);
	}
	return 0;
}

/* Bytes from a tensor argument's offset to one past its last element. */
static uint64_t pto_arg_extent(const struct drm_pto_npu_tensor_arg *a)
{
	uint64_t last = 0;
	unsigned int i;

	for (i = 0; i < a->ndim; i++)
		last += (uint64_t)(a->shape[i] - 1) * a->strides[i];
	return (last + 1) * pto_dtype_size(a->dtype);
}

/* Byte offset in its buffer of element [row, col] of a tensor's 2-D view. */
static uint64_t pto_arg_element(const struct drm_pto_npu_tensor_arg *a,
				uint64_t row, uint64_t col)
{
	uint64_t elem = col * a->strides[a->ndim - 1];
	int i;

	for (i = (int)a->ndim - 2; i >= 0; i--) {
		elem += (row % a->shape[i]) * a->strides[i];
		row /= a->shape[i];
	}
	return a->offset + elem * pto_dtype_size(a->dtype);
}

static bool pto_has(const uint32_t *v, uint32_t n, uint32_t x)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

/* Task @k is a dependency of the task being added, named or inferred. */
static bool pto_is_dep(const struct pto_add_ctx *c, size_t k)
{
	uint32_t i;

	for (i = 0; i < c->d->num_deps; i++)
		if (c->d->deps[i] == (int64_t)k)
			return true;
	return pto_has(c->ideps, c->nideps, (uint32_t)k);
}

/*
 * The device reads the operand when the task's dependencies are done: a
 * task of the graph that writes it and is not one of them would race.
 */
static int pto_add_check_producers(struct pto_add_ctx *c,
				   const struct drm_pto_npu_tensor_arg *op,
				   uint64_t at)
{
	const struct pto_graph *g = c->g;
	uint64_t end = at + pto_dtype_size(op->dtype);
	size_t k;
	uint32_t j;

	for (k = 0; k < c->idx; k++) {
		const struct pto_graph_task *t = pto_task(g, k);

		if (pto_is_dep(c, k))
			continue;
		for (j = 0; j < t->num_tensors; j++) {
			const struct drm_pto_npu_tensor_arg *w = PTO_VEC_AT(
				&g->tensors, struct drm_pto_npu_tensor_arg,
				t->tensor_off + j);
			const uint8_t *use = PTO_VEC_AT(&g->tensor_use, uint8_t,
							t->tensor_off + j);
			char who[96];

			/*
			 * A directed read of the operand is ordered after
			 * every directed writer: inferred, transitively.
			 */
			if (!(*use & PTO_ARG_WRITTEN) ||
			    ((op->flags & PTO_ARG_IN) && (w->flags & PTO_ARG_OUT)) ||
			    w->handle != op->handle ||
			    at >= w->offset + pto_arg_extent(w) ||
			    end <= w->offset)
				continue;
			pto_graph_task_label(who, sizeof(who), k,
				       pto_graph_task_name_at(g, t));
			return pto_add_fail(
				c, -EINVAL,
				"the predicate's operand is written by %s (its tensor %u), which is not a dependency",
				who, j);
		}
	}
	return 0;
}

static int pto_add_predicate(struct pto_add_ctx *c,
			     const struct drm_pto_npu_tensor_arg *args,
			     struct drm_pto_npu_predicate *out)
{
	const struct pto_predicate *p = c->d->predicate;
	const struct drm_pto_npu_tensor_arg *a;
	uint64_t rows = 1;
	unsigned int i;

	if (p->tensor >= c->d->num_tensors)
		return pto_add_fail(c, -EINVAL, "predicate on tensor %u of %u",
				    p->tensor, c->d->num_tensors);
	if ((unsigned int)p->op > PTO_CMP_LE)
		return pto_add_fail(c, -EINVAL,
				    "unknown predicate comparison %d",
				    (int)p->op);
	a = &args[p->tensor];
	if (!pto_dtype_is_signed_int(a->dtype))
		return pto_add_fail(
			c, -EINVAL,
			"predicate on tensor %u of dtype %s: the operand must be a signed integer",
			p->tensor, pto_dtype_name(a->dtype));
	for (i = 0; i + 1 < a->ndim; i++)
		rows *= a->shape[i];
	if (p->row >= rows || p->col >= a->shape[a->ndim - 1])
		return pto_add_fail(
			c, -EINVAL,
			"predicate element [%u, %u] outside tensor %u's %llux%u view",
			p->row, p->col, p->tensor, (unsigned long long)rows,
			a->shape[a->ndim - 1]);
	pto_predicate_to_drm(p, out);
	return pto_add_check_producers(c, a,
				       pto_arg_element(a, p->row, p->col));
}

/* Dependencies, each an earlier task, repeats dropped. */
static int pto_add_deps(struct pto_add_ctx *c, uint32_t *deps, uint32_t *n)
{
	const struct pto_task_desc *d = c->d;
	uint32_t i, j;

	*n = 0;
	for (i = 0; i < d->num_deps; i++) {
		int64_t dep = d->deps[i];

		if (dep < 0 || (uint64_t)dep >= c->idx)
			return pto_add_fail(
				c, -EINVAL,
				"dependency %u is %lld: not an earlier task (0..%zu)",
				i, (long long)dep, c->idx ? c->idx - 1 : 0);
		for (j = 0; j < *n && deps[j] != dep; j++)
			;
		if (j == *n)
			deps[(*n)++] = (uint32_t)dep;
	}
	return 0;
}

static int pto_u32_cmp(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return a < b ? -1 : a > b;
}

/*
 * Dependencies inferred from directions, as the device infers them
 * (kmod/pto_infer.c): to each earlier task with a live directed range
 * overlapping a directed tensor of this one, one of the two writing, and
 * not already a named dependency. The device links only the tasks still
 * in flight: a subset of these.
 */
static int pto_add_infer(struct pto_add_ctx *c,
			 const struct drm_pto_npu_tensor_arg *args,
			 const uint32_t *deps, uint32_t ndeps)
{
	const struct pto_graph *g = c->g;
	size_t live = g->access.n, k;
	uint32_t i;

	if (!live || !c->d->tensor_dirs)
		return 0;
	c->ideps = malloc(live * sizeof(*c->ideps));
	if (!c->ideps)
		return pto_add_fail(c, -ENOMEM, "%s", pto_strerror(-ENOMEM));
	for (i = 0; i < c->d->num_tensors; i++) {
		const struct drm_pto_npu_tensor_arg *a = &args[i];
		uint64_t start = a->offset, last;

		if (!a->flags)
			continue;
		last = start + pto_arg_extent(a) - 1;
		for (k = 0; k < live; k++) {
			const struct pto_graph_access *r = PTO_VEC_AT(
				&g->access, struct pto_graph_access, k);

			if (r->handle != a->handle || r->last < start ||
			    r->start > last ||
			    !((a->flags | r->dir) & PTO_ARG_OUT) ||
			    pto_has(deps, ndeps, r->task) ||
			    pto_has(c->ideps, c->nideps, r->task))
				continue;
			c->ideps[c->nideps++] = r->task;
		}
	}
	qsort(c->ideps, c->nideps, sizeof(*c->ideps), pto_u32_cmp);
	return 0;
}

/*
 * Enter task @idx's directed ranges (room reserved): a directed write
 * takes out the earlier ranges it covers, now ordered before it.
 */
static void pto_add_access(struct pto_graph *g, uint32_t idx,
			   const struct drm_pto_npu_tensor_arg *args, uint32_t n)
{
	uint32_t i;
	size_t k;

	for (i = 0; i < n; i++) {
		struct pto_graph_access r = {
			.handle = args[i].handle,
			.task = idx,
			.start = args[i].offset,
			.dir = (uint8_t)args[i].flags,
		};

		if (!r.dir)
			continue;
		r.last = r.start + pto_arg_extent(&args[i]) - 1;
		for (k = 0; (r.dir & PTO_ARG_OUT) && k < g->access.n;) {
			struct pto_graph_access *o = PTO_VEC_AT(
				&g->access, struct pto_graph_access, k);

			if (o->handle == r.handle && o->start >= r.start &&
			    o->last <= r.last)
				*o = *PTO_VEC_AT(&g->access, struct pto_graph_access,
						 --g->access.n);
			else
				k++;
		}
		pto_vec_append(&g->access, sizeof(r), &r, 1);
	}
}

static int pto_graph_add_task_ctx(struct pto_add_ctx *cp);

PTO_API int pto_graph_add_task(struct pto_graph *g,
			       const struct pto_task_desc *desc)
{
	struct pto_add_ctx c = { .g = g, .d = desc };
	int ret;

	ret = pto_graph_add_task_ctx(&c);
	free(c.ideps);
	return ret;
}

static int pto_graph_add_task_ctx(struct pto_add_ctx *cp)
{
	struct pto_graph *g = cp->g;
	const struct pto_task_desc *desc = cp->d;
	struct drm_pto_npu_tensor_arg args[PTO_MAX_ARGS];
	struct drm_pto_npu_predicate pred;
	uint8_t use[PTO_MAX_ARGS];
	uint32_t deps[PTO_MAX_ARGS], ndeps;
	struct pto_graph_task t = { 0 };
	size_t name_len = 0;
	uint32_t records;
	int ret;

	if (!g)
		return -EINVAL;
	g->msg[0] = '\0';
	cp->idx = g->tasks.n;
	pto_graph_task_label(cp->label, sizeof(cp->label), cp->idx,
		       desc ? desc->name : NULL);
	if (!desc)
		return pto_add_fail(cp, -EINVAL, "no task description");
	if (cp->idx >= INT32_MAX)
		return pto_add_fail(cp, -E2BIG, "too many tasks");

	ret = pto_add_check_shape(cp);
	if (!ret)
		ret = pto_add_tensors(cp, args, use);
	if (!ret)
		ret = pto_add_deps(cp, deps, &ndeps);
	if (!ret)
		ret = pto_add_infer(cp, args, deps, ndeps);
	if (!ret && desc->predicate)
		ret = pto_add_predicate(cp, args, &pred);
	if (ret)
		return ret;
	records = cp->blocks *
		  pto_graph_task_parts(desc->kernel_aiv && desc->kernel_aic,
				 desc->split_mode);
	if (g->total_blocks + records > UINT32_MAX)
		return pto_add_fail(cp, -E2BIG, "too many blocks in the graph");

	if (desc->name)
		name_len = strlen(desc->name) + 1;
	ret = pto_vec_reserve(&g->tasks, sizeof(t), 1);
	if (!ret)
		ret = pto_vec_reserve(&g->tensors, sizeof(*args),
				      desc->num_tensors);
	if (!ret)
		ret = pto_vec_reserve(&g->tensor_use, 1, desc->num_tensors);
	if (!ret)
		ret = pto_vec_reserve(&g->scalars, sizeof(int64_t),
				      desc->num_scalars);
	if (!ret)
		ret = pto_vec_reserve(&g->deps, sizeof(uint32_t), ndeps);
	if (!ret)
		ret = pto_vec_reserve(&g->ideps, sizeof(uint32_t), cp->nideps);
	if (!ret)
		ret = pto_vec_reserve(&g->access, sizeof(struct pto_graph_access),
				      desc->num_tensors);
	if (!ret && desc->predicate)
		ret = pto_vec_reserve(&g->preds, sizeof(pred), 1);
	if (!ret)
		ret = pto_vec_reserve(&g->names, 1, name_len);
	if (ret)
		return pto_add_fail(cp, ret, "%s", pto_strerror(ret));

	t = (struct pto_graph_task){
		.block_off = g->total_blocks,
		.kernel = { desc->kernel_aiv ? desc->kernel_aiv->handle : 0,
			    desc->kernel_aic ? desc->kernel_aic->handle : 0 },
		.flags = desc->flags,
		.block_num = cp->blocks,
		.grid = desc->block_num != cp->blocks ? desc->block_num : 0,
		.status = PTO_STATUS_PENDING,
		.num_tensors = (uint8_t)desc->num_tensors,
		.num_scalars = (uint8_t)desc->num_scalars,
		.num_deps = (uint8_t)ndeps,
		.split_mode = (uint8_t)desc->split_mode,
		.slot_num = (uint16_t)desc->slot_num,
	};
	t.tensor_off = pto_vec_append(&g->tensors, sizeof(*args), args,
				      desc->num_tensors);
	pto_vec_append(&g->tensor_use, 1, use, desc->num_tensors);
	t.scalar_off = pto_vec_append(&g->scalars, sizeof(int64_t),
				      desc->scalars, desc->num_scalars);
	t.dep_off = pto_vec_append(&g->deps, sizeof(uint32_t), deps, ndeps);
	t.idep_off = pto_vec_append(&g->ideps, sizeof(uint32_t), cp->ideps,
				    cp->nideps);
	t.num_ideps = cp->nideps;
	pto_add_access(g, (uint32_t)cp->idx, args, desc->num_tensors);
	if (desc->predicate) {
		t.flags |= DRM_PTO_NPU_TASK_F_PREDICATE;
		t.pred = pto_vec_append(&g->preds, sizeof(pred), &pred, 1);
	}
	if (name_len)
		t.name = pto_vec_append(&g->names, 1, desc->name, name_len) + 1;
	g->total_blocks += records;
	pto_vec_append(&g->tasks, sizeof(t), &t, 1);
	return (int)cp->idx;
}
