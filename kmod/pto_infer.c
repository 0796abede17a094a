// SPDX-License-Identifier: GPL-2.0-only
/*
 * pto_npu: dependencies inferred from tensor directions, and the hazards
 * the sanitizer finds at intake.
 *
 * A tensor argument with a direction (DRM_PTO_NPU_TENSOR_F_IN / _OUT)
 * names the byte range its view can address: [offset, offset + extent),
 * every byte a strided view can reach. A context keeps, per buffer, two
 * interval trees of the ranges of its tasks not yet complete: reads (IN
 * only) and writes (OUT, INOUT). A task taken at intake depends on the
 * earlier tasks whose ranges overlap its own: a reader on the writers
 * (read-after-write), a writer on the writers and the readers
 * (write-after-write, write-after-read). Completed tasks leave the trees,
 * so only tasks still in flight get edges, and a directed write that
 * covers an earlier range takes that range out of the trees: any later
 * access of it overlaps the write and is ordered after it, and the write
 * after the earlier access. Intake costs O(log n + overlaps) per tensor.
 *
 * With DRM_PTO_NPU_QUEUE_F_SANITIZE, arguments without a direction go
 * into the trees too, as their kernels access them (the verifier's
 * &pto_kernel.arg_load, .arg_store), never inferred from: a task that
 * overlaps an unfinished one, one of them writing and one of them
 * directed, with no dependency path between them is a RACE (two views
 * without a direction say what their kernels may address, not what they
 * do); a predicate whose operand's last writer is
 * unfinished and not an ancestor is a PREDICATE hazard. The path search
 * visits at most PTO_INFER_PATH_MAX tasks; past that it assumes the two
 * are ordered (no false report, a missed one possible). The RACE and
 * PREDICATE scans of one task look at PTO_INFER_SCAN_MAX records at most,
 * with the same consequence past it.
 *
 * Everything under the scheduler lock, as explicit dependencies
 * (pto_deps.c); per-buffer trees are allocated ahead, under the
 * context's submit_lock.
 *
 * Copyright (C) 2026 pto-npu authors
 */

#include <linux/interval_tree_generic.h>
#include <linux/lockdep.h>
#include <linux/slab.h>

#include "pto_deps.h"
#include "pto_graph.h"
#include "pto_infer.h"
#include "pto_queue.h"
#include "pto_tensor.h"
#include "pto_trace.h"

static_assert(DRM_PTO_NPU_TENSOR_F_IN == PTO_ACC_READ);
static_assert(DRM_PTO_NPU_TENSOR_F_OUT == PTO_ACC_WRITE);

/* Byte offset of @ta's view in its buffer. */
static u64 pto_infer_off(const struct pto_targ *ta)
{
	return ta->base - (u8 *)ta->bo->vaddr;
}

/**
 * pto_infer_span - the bytes a view can address
 * @ta: the view, resolved (pto_targ_resolve() checked it fits its buffer)
 * @start: out: its first byte in its buffer
 * @last: out: the last byte it can address
 */
void pto_infer_span(const struct pto_targ *ta, u64 *start, u64 *last)
{
	*start = pto_infer_off(ta);
	*last = *start + ((ta->rows - 1) * ta->row_stride +
			  (ta->cols - 1) * ta->col_stride + 1) * ta->esize - 1;
}

/*
 * A task's access records: one per tensor argument, then for a launch one
 * per recorded buffer it enters (pto_graph_infer.c).
 */
static u32 pto_infer_nrecs(const struct pto_task *task)
{
	if (task->graph == PTO_GRAPH_LAUNCH && task->launch && task->launch->recs)
		return task->launch->nrecs;
	return task->num_tensors;
}

/* The buffer of @task's record @i. */
static struct pto_bo *pto_infer_bo(const struct pto_task *task, u32 i)
{
	if (i < task->num_tensors)
		return task->targs[i].bo;
	return task->launch->g->acc[i - task->num_tensors].bo;
}

/* The view a report names for record @r: the task's, or its node's. */
static const struct pto_targ *pto_infer_targ(const struct pto_infer_rec *r)
{
	const struct pto_graph *g;

	if (r->node == PTO_INFER_OWN)
		return &r->task->targs[r->tensor];
	g = r->task->launch->g;
	return &g->targs[g->nodes[r->node].targ0 + r->tensor];
}

/**
 * struct pto_infer_buf - the accesses of one buffer by a context's tasks
 * @node: in &pto_infer_ctx.bufs
 * @link: in &pto_infer_ctx.idle or &pto_infer_ctx.spare, or empty
 * @key: the buffer (never dereferenced: an empty tree may outlive it)
 * @rd: ranges read only
 * @wr: ranges written
 * @nrec: ranges in @rd and @wr
 */
struct pto_infer_buf {
	struct hlist_node node;
	struct list_head link;
	unsigned long key;
	struct rb_root_cached rd;
	struct rb_root_cached wr;
	u32 nrec;
};

#define PTO_REC_START(r) ((r)->start)
#define PTO_REC_LAST(r) ((r)->last)
INTERVAL_TREE_DEFINE(struct pto_infer_rec, rb, u64, subtree_last,
		     PTO_REC_START, PTO_REC_LAST, static, pto_itree)

/**
 * pto_infer_init - an empty set of trees
 * @ic: the context's
 */
void pto_infer_init(struct pto_infer_ctx *ic)
{
	hash_init(ic->bufs);
	INIT_LIST_HEAD(&ic->idle);
	INIT_LIST_HEAD(&ic->spare);
	ic->nidle = 0;
	ic->nspare = 0;
}

/**
 * pto_infer_fini - free a closed context's trees
 * @ic: the context's, with no task left
 */
void pto_infer_fini(struct pto_infer_ctx *ic)
{
	struct pto_infer_buf *b;
	struct hlist_node *tmp;
	u32 bkt;

	hash_for_each_safe(ic->bufs, bkt, tmp, b, node) {
		WARN_ON(b->nrec);
		hash_del(&b->node);
		kfree(b);
	}
	while (!list_empty(&ic->spare)) {
		b = list_first_entry(&ic->spare, struct pto_infer_buf, link);
		list_del(&b->link);
		kfree(b);
	}
	INIT_LIST_HEAD(&ic->idle);
	ic->nidle = 0;
	ic->nspare = 0;
}

/* How @task accesses tensor @i: its direction, else (sanitizing) its kernels'. */
static u8 pto_infer_acc(const struct pto_task *task, u32 i)
{
	u8 acc = 0;
	u32 ti;

	if (task->targs[i].dir)
		return task->targs[i].dir;
	if (!task->sanitized)
		return 0;
	/* A launch's bound tensor, as the kernels use it where it is bound. */
	if (task->graph == PTO_GRAPH_LAUNCH)
		return task->launch ? task->launch->g->tparam[i].acc : 0;
	for (ti = 0; ti < PTO_NUM_CIDX; ti++) {
		if (!task->kern[ti])
			continue;
		if (task->kern[ti]->arg_load & BIT(i))
			acc |= PTO_ACC_READ;
		if (task->kern[ti]->arg_store & BIT(i))
			acc |= PTO_ACC_WRITE;
	}
	return acc;
}

/* A launch's record of the recorded buffer merged in acc[@k] (pto_gacc). */
static void pto_infer_prepare_gacc(struct pto_task *task,
				   struct pto_infer_rec *r, u32 k)
{
	const struct pto_gacc *ga = &task->launch->g->acc[k];

	r->node = ga->node;
	r->tensor = ga->arg;
	/* Undirected ones only as the sanitizer's (pto_infer_acc()). */
	r->acc = ga->directed || task->sanitized ? ga->acc : 0;
	r->directed = ga->directed;
	r->start = ga->start;
	r->last = ga->last;
}

/**
 * pto_infer_prepare - fill a task's access records, allocate trees ahead
 * @ctx: its context, submit_lock held
 * @task: the task, validated (status OK)
 *
 * Outside the scheduler lock: a tree for each argument whose buffer may
 * have none yet, so that pto_infer_link() never allocates one.
 *
 * Return: 0, or -ENOMEM.
 */
int pto_infer_prepare(struct pto_ctx *ctx, struct pto_task *task)
{
	struct pto_infer_ctx *ic = &ctx->infer;
	u32 i, n, need = 0;

	lockdep_assert_held(&ctx->submit_lock);
	if (!task->irecs || task->status != DRM_PTO_NPU_STATUS_OK)
		return 0;
	n = pto_infer_nrecs(task);
	for (i = 0; i < n; i++) {
		struct pto_infer_rec *r = &task->irecs[i];

		r->task = task;
		if (i >= task->num_tensors) {
			pto_infer_prepare_gacc(task, r, i - task->num_tensors);
		} else {
			r->node = PTO_INFER_OWN;
			r->tensor = i;
			r->acc = pto_infer_acc(task, i);
			r->directed = task->targs[i].dir;
			pto_infer_span(&task->targs[i], &r->start, &r->last);
		}
		need += !!r->acc;
	}
	while (ic->nspare < need) {
		struct pto_infer_buf *b = kzalloc(sizeof(*b), GFP_KERNEL_ACCOUNT);

		if (!b)
			return -ENOMEM;
		list_add(&b->link, &ic->spare);
		ic->nspare++;
	}
	return 0;
}

static struct pto_infer_buf *pto_infer_buf_find(struct pto_infer_ctx *ic,
						const struct pto_bo *bo)
{
	unsigned long key = (unsigned long)bo;
	struct pto_infer_buf *b;

	hash_for_each_possible(ic->bufs, b, node, key)
		if (b->key == key)
			return b;
	return NULL;
}

/* The trees of @bo, a spare one (pto_infer_prepare()) if it has none. */
static struct pto_infer_buf *pto_infer_buf_get(struct pto_infer_ctx *ic,
					       const struct pto_bo *bo)
{
	struct pto_infer_buf *b = pto_infer_buf_find(ic, bo);

	if (b) {
		if (!list_empty(&b->link)) {
			list_del_init(&b->link);
			ic->nidle--;
		}
		return b;
	}
	b = list_first_entry(&ic->spare, struct pto_infer_buf, link);
	list_del_init(&b->link);
	ic->nspare--;
	b->key = (unsigned long)bo;
	b->rd = RB_ROOT_CACHED;
	b->wr = RB_ROOT_CACHED;
	b->nrec = 0;
	hash_add(ic->bufs, &b->node, b->key);
	return b;
}

/* Make room for one more edge in @task->edges (under a spinlock). */
static int pto_infer_grow(struct pto_task *task)
{
	u32 cap = max_t(u32, 8, task->edges_cap * 2), i;
	struct pto_edge *e;

	e = kmalloc_array(cap, sizeof(*e), GFP_NOWAIT | __GFP_ACCOUNT | __GFP_NOWARN);
	if (!e)
		return -ENOMEM;
	for (i = 0; i < task->num_edges; i++) {
		e[i] = task->edges[i];
		list_replace(&task->edges[i].link, &e[i].link);
	}
	if (task->edges_ext)
		kfree(task->edges);
	task->edges = e;
	task->edges_cap = cap;
	task->edges_ext = true;
	return 0;
}

/*
 * @task depends on @p (in flight), unless an edge links them already.
 * Every overlapping record looked at counts against @visits: the work
 * under the scheduler lock is bounded whatever the user keeps in flight.
 * -E2BIG past DRM_PTO_NPU_MAX_INFERRED_DEPS edges or PTO_INFER_MAX_VISITS
 * records.
 */
static int pto_infer_edge(struct pto_task *task, struct pto_task *p,
			  u32 *visits)
{
	struct pto_edge *e;

	if (++*visits > PTO_INFER_MAX_VISITS)
		return -E2BIG;
	if (p->infer_mark == task->id)
		return 0;
	if (task->num_inferred == DRM_PTO_NPU_MAX_INFERRED_DEPS)
		return -E2BIG;
	if (task->num_edges == task->edges_cap && pto_infer_grow(task))
		return -ENOMEM;
	p->infer_mark = task->id;
	e = &task->edges[task->num_edges++];
	e->consumer = task;
	e->producer = p;
	e->inferred = true;
	list_add_tail(&e->link, &p->fanout);
	task->fanin++;
	task->num_inferred++;
	return 0;
}

/* Edges for directed access @r: to the writers it overlaps; writing, the readers too. */
static int pto_infer_edges(struct pto_task *task, struct pto_infer_rec *r,
			   u32 *visits)
{
	struct pto_infer_rec *o;
	int ret;

	for (o = pto_itree_iter_first(&r->buf->wr, r->start, r->last); o;
	     o = pto_itree_iter_next(o, r->start, r->last)) {
		ret = o->directed ? pto_infer_edge(task, o->task, visits) : 0;
		if (ret)
			return ret;
	}
	if (!(r->acc & PTO_ACC_WRITE))
		return 0;
	for (o = pto_itree_iter_first(&r->buf->rd, r->start, r->last); o;
	     o = pto_itree_iter_next(o, r->start, r->last)) {
		ret = o->directed ? pto_infer_edge(task, o->task, visits) : 0;
		if (ret)
			return ret;
	}
	return 0;
}

static struct rb_root_cached *pto_infer_root(struct pto_infer_rec *r)
{
	return r->acc & PTO_ACC_WRITE ? &r->buf->wr : &r->buf->rd;
}

/*
 * @b is empty: keep a few empty trees for the buffers in use, and free
 * the oldest past PTO_INFER_IDLE_MAX (never @b, the newest).
 */
static void pto_infer_idle_add(struct pto_infer_ctx *ic, struct pto_infer_buf *b)
{
	list_add_tail(&b->link, &ic->idle);
	if (++ic->nidle > PTO_INFER_IDLE_MAX) {
		b = list_first_entry(&ic->idle, struct pto_infer_buf, link);
		list_del(&b->link);
		hash_del(&b->node);
		ic->nidle--;
		kfree(b);
	}
}

static void pto_infer_remove(struct pto_infer_ctx *ic, struct pto_infer_rec *r)
{
	struct pto_infer_buf *b = r->buf;

	pto_itree_remove(r, pto_infer_root(r));
	r->buf = NULL;
	if (!--b->nrec)
		pto_infer_idle_add(ic, b);
}

/*
 * Directed write @r covers these earlier directed ranges, now ordered
 * before it: take them out of the tree (pto_infer.c's header comment).
 */
static void pto_infer_shadow(struct pto_infer_ctx *ic, struct rb_root_cached *root,
			     struct pto_infer_rec *r)
{
	struct pto_infer_rec *o, *next;

	for (o = pto_itree_iter_first(root, r->start, r->last); o; o = next) {
		next = pto_itree_iter_next(o, r->start, r->last);
		if (o->directed && o->start >= r->start && o->last <= r->last)
			pto_infer_remove(ic, o);
	}
}

static void pto_infer_insert(struct pto_infer_ctx *ic, struct pto_infer_rec *r)
{
	struct pto_infer_buf *b = r->buf;

	if (r->directed && (r->acc & PTO_ACC_WRITE)) {
		pto_infer_shadow(ic, &b->wr, r);
		pto_infer_shadow(ic, &b->rd, r);
	}
	/* The shadowing may have left @b empty and idle: it is in use again. */
	if (!b->nrec && !list_empty(&b->link)) {
		list_del_init(&b->link);
		ic->nidle--;
	}
	pto_itree_insert(r, pto_infer_root(r));
	b->nrec++;
}

/*
 * Mark @task's ancestors still in flight (path_mark), breadth first.
 * Return: false when the search stopped at PTO_INFER_PATH_MAX tasks.
 */
static bool pto_infer_ancestors(struct pto_task *task)
{
	struct pto_task *q[PTO_INFER_PATH_MAX];
	u32 head = 0, tail = 0, i;

	task->path_mark = task->id;
	q[tail++] = task;
	while (head < tail) {
		struct pto_task *c = q[head++];

		for (i = 0; i < c->num_edges; i++) {
			struct pto_task *p = c->edges[i].producer;

			if (!p || p->path_mark == task->id)
				continue;
			if (tail == PTO_INFER_PATH_MAX)
				return false;
			p->path_mark = task->id;
			q[tail++] = p;
		}
	}
	return true;
}

/* The intake record: after the units' own (pto_task_haz()). */
static struct drm_pto_npu_hazard *pto_infer_haz(struct pto_task *task)
{
	return pto_task_haz(task) + task->units;
}

/* A node's report field: one more than the node, 0 for the task's own. */
static u16 pto_infer_node(const struct pto_infer_rec *r)
{
	return r->node == PTO_INFER_OWN ? 0 : r->node + 1;
}

static void pto_infer_report(struct pto_task *task, u32 kind, u32 tensor,
			     u64 elem, u16 node, const struct pto_infer_rec *o)
{
	struct drm_pto_npu_hazard *h = pto_infer_haz(task);

	if (!h->count++) {
		h->kind = kind;
		h->tensor = tensor;
		h->elem = elem;
		h->node = node;
		h->other_task = o->task->id;
		h->other_tensor = o->tensor;
		h->other_node = pto_infer_node(o);
	}
}

/* One more record looked at, if the scans' bound allows. */
static bool pto_infer_scan(u32 *scan)
{
	if (!*scan)
		return false;
	(*scan)--;
	return true;
}

/*
 * RACE: @r against the unordered in-flight accesses it conflicts with,
 * looking at @scan records at most (all of the task's scans together).
 */
static void pto_infer_races(struct pto_task *task, struct pto_infer_rec *r,
			    bool all_known, u32 *scan)
{
	const struct pto_targ *ta = pto_infer_targ(r);
	struct rb_root_cached *roots[2] = { &r->buf->wr, &r->buf->rd };
	struct pto_infer_rec *o;
	u64 at;
	u32 i;

	for (i = 0; i < ((r->acc & PTO_ACC_WRITE) ? 2 : 1); i++)
		for (o = pto_itree_iter_first(roots[i], r->start, r->last);
		     o && pto_infer_scan(scan);
		     o = pto_itree_iter_next(o, r->start, r->last)) {
			/*
			 * Two views without a direction name what their
			 * kernels may address, not what they do: tasks
			 * writing disjoint rows through one whole tensor
			 * are the common case. One side must be directed.
			 */
			if (o->task == task || !all_known ||
			    (!o->directed && !r->directed) ||
			    o->task->path_mark == task->id)
				continue;
			/* A merged record's hull may begin before the view. */
			at = max3(o->start, r->start, pto_infer_off(ta));
			pto_infer_report(task, DRM_PTO_NPU_HAZARD_RACE, r->tensor,
					 pto_targ_elem_index(ta, at - pto_infer_off(ta)),
					 pto_infer_node(r), o);
		}
}

/*
 * PREDICATE: the last writer in flight of predicate @p's operand (in view
 * @ta) is not an ancestor of @task; @node is the launch's node it is of
 * (one more than its index), 0 for the task's own.
 */
static void pto_infer_pred_check(struct pto_infer_ctx *ic, struct pto_task *task,
				 const struct drm_pto_npu_predicate *p,
				 const struct pto_targ *ta, u16 node,
				 bool all_known, u32 *scan)
{
	struct pto_infer_rec *o, *last = NULL;
	struct pto_infer_buf *b;
	u64 s;

	b = pto_infer_buf_find(ic, ta->bo);
	if (!b)
		return;
	s = pto_infer_off(ta) + pto_targ_offset(ta, p->row, p->col) * ta->esize;
	for (o = pto_itree_iter_first(&b->wr, s, s + ta->esize - 1);
	     o && pto_infer_scan(scan);
	     o = pto_itree_iter_next(o, s, s + ta->esize - 1))
		if (o->task != task && (!last || o->task->id > last->task->id))
			last = o;
	/* Not every writer seen: the last one may be another. */
	if (o)
		return;
	if (last && all_known && last->task->path_mark != task->id)
		pto_infer_report(task, DRM_PTO_NPU_HAZARD_PREDICATE, p->tensor,
				 p->row * ta->cols + p->col, node, last);
}

/*
 * The task's predicate; a launch's, then its predicated nodes' against the
 * writers outside the graph (inside, GRAPH_CREATE judged them).
 */
static void pto_infer_predicate(struct pto_infer_ctx *ic, struct pto_task *task,
				bool all_known, u32 *scan)
{
	const struct pto_graph *g;
	u32 i;

	if (task->flags & DRM_PTO_NPU_TASK_F_PREDICATE)
		pto_infer_pred_check(ic, task, &task->pred,
				     &task->targs[task->pred.tensor], 0, all_known,
				     scan);
	if (task->graph != PTO_GRAPH_LAUNCH || !task->launch)
		return;
	g = task->launch->g;
	for (i = 0; i < g->npreds; i++) {
		const struct pto_gpred *gp = &g->preds[i];
		const struct pto_gnode *gn = &g->nodes[gp->node];

		pto_infer_pred_check(ic, task, &gn->pred,
				     gp->param == PTO_GPRED_RECORDED ?
				     &g->targs[gn->targ0 + gn->pred.tensor] :
				     &task->targs[gp->param],
				     gp->node + 1, all_known, scan);
	}
}

/*
 * The intake hazards of @task. The scans look at PTO_INFER_SCAN_MAX
 * records at most, under the scheduler lock however many accesses are
 * in flight: past that a hazard may go unreported, never a false one.
 */
static u32 pto_infer_hazards(struct pto_infer_ctx *ic, struct pto_task *task)
{
	bool all_known = pto_infer_ancestors(task);
	u32 i, n = pto_infer_nrecs(task), scan = PTO_INFER_SCAN_MAX;

	for (i = 0; i < n; i++)
		if (task->irecs[i].buf)
			pto_infer_races(task, &task->irecs[i], all_known, &scan);
	pto_infer_predicate(ic, task, all_known, &scan);
	if (!pto_infer_haz(task)->count)
		return DRM_PTO_NPU_HAZARD_NONE;
	trace_pto_hazard(task, U32_MAX, pto_infer_haz(task));
	return pto_infer_haz(task)->kind;
}

/*
 * The task fails before it is entered: the edges inferred so far go, so
 * it waits only for the dependencies it named (and fails without running
 * once they are done). They are the last ones of @task->edges.
 */
static void pto_infer_unlink(struct pto_task *task)
{
	while (task->num_inferred) {
		struct pto_edge *e = &task->edges[--task->num_edges];

		list_del(&e->link);
		task->fanin--;
		task->num_inferred--;
	}
}

/**
 * pto_infer_link - infer a task's dependencies, enter its accesses
 * @ctx: its context, scheduler lock held
 * @task: the task, explicit dependencies linked (pto_deps_link())
 *
 * Adds an edge to each in-flight task an access of @task conflicts with
 * and no edge links to yet; checks the sanitizer's intake hazards; then
 * enters @task's accesses in the trees. Out of memory for edges, the task
 * fails (STATUS_NOMEM) and enters nothing; past the edge cap, or the
 * records one task may look at, it is refused (REASON_INFERRED_DEPS).
 */
void pto_infer_link(struct pto_ctx *ctx, struct pto_task *task)
{
	struct pto_infer_ctx *ic = &ctx->infer;
	u32 i, visits = 0, hazard = DRM_PTO_NPU_HAZARD_NONE, n;
	int ret;

	lockdep_assert_held(&ctx->pdev->sched->lock);
	if (!task->irecs || task->status != DRM_PTO_NPU_STATUS_OK)
		return;
	task->infer_mark = task->id;
	n = pto_infer_nrecs(task);
	for (i = 0; i < n; i++) {
		struct pto_infer_rec *r = &task->irecs[i];

		if (!r->acc)
			continue;
		r->buf = pto_infer_buf_get(ic, pto_infer_bo(task, i));
		ret = r->directed ? pto_infer_edges(task, r, &visits) : 0;
		if (ret)
			goto fail;
	}
	if (task->sanitized)
		hazard = pto_infer_hazards(ic, task);
	for (i = 0; i < n; i++)
		if (task->irecs[i].buf)
			pto_infer_insert(ic, &task->irecs[i]);
	trace_pto_infer(task, hazard);
	return;

fail:
	pto_infer_unlink(task);
	if (ret == -E2BIG) {
		task->status = DRM_PTO_NPU_STATUS_INVALID;
		task->reason = DRM_PTO_NPU_REASON_INFERRED_DEPS;
		task->detail = DRM_PTO_NPU_MAX_INFERRED_DEPS;
	} else {
		task->status = DRM_PTO_NPU_STATUS_NOMEM;
	}
	for (i = 0; i < n; i++) {
		struct pto_infer_buf *b = task->irecs[i].buf;

		/*
		 * A tree taken for this task alone goes back to idle, which
		 * stays bounded however often a user provokes the refusal.
		 */
		if (b && !b->nrec && list_empty(&b->link))
			pto_infer_idle_add(ic, b);
		task->irecs[i].buf = NULL;
	}
	trace_pto_infer(task, hazard);
}

/**
 * pto_infer_retire - a task completes: its accesses leave the trees
 * @ctx: its context, scheduler lock held
 * @task: the task
 */
void pto_infer_retire(struct pto_ctx *ctx, struct pto_task *task)
{
	u32 i, n;

	lockdep_assert_held(&ctx->pdev->sched->lock);
	if (!task->irecs)
		return;
	n = pto_infer_nrecs(task);
	for (i = 0; i < n; i++)
		if (task->irecs[i].buf)
			pto_infer_remove(&ctx->infer, &task->irecs[i]);
}
