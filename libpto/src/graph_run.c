// SPDX-License-Identifier: MIT
/*
 * Running a task graph: pto_graph_run() streams the tasks through a queue
 * (graph.c's top comment says how dependencies are named) and reads their
 * completions into the graph's results; pto_graph_replay() (replay_run.c)
 * reads a launch's through the same helpers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_internal.h"

/* While nothing of ours is in flight yet the doorbell took nothing, other
 * queues of the device handle hold the in-flight cap: poll this often. */
#define PTO_GRAPH_BACKOFF_NS 1000000
/* CQEs read per ring access. */
#define PTO_GRAPH_REAP_BATCH 64

/**
 * struct pto_run - the state of one pto_graph_run()
 * @g: graph
 * @q: queue
 * @seq: this run's number, the upper half of user_data
 * @next: next task to push
 * @taken: tasks the device has taken (ids known)
 * @done: tasks whose last CQE arrived
 */
struct pto_run {
	struct pto_graph *g;
	struct pto_queue *q;
	uint32_t seq;
	size_t next;
	size_t taken;
	size_t done;
};

/* Task @i's entry as it is sent, without dependencies (replay.c too). */
void pto_graph_sqe_parts(const struct pto_graph *g, size_t i,
			 uint64_t user_data, struct pto_sqe_parts *e)
{
	const struct pto_graph_task *t = pto_graph_task_at(g, i);

	memset(e, 0, sizeof(*e));
	e->hdr = (struct drm_pto_npu_sqe){
		.user_data = user_data,
		.kernel_aiv = t->kernel[0],
		.kernel_aic = t->kernel[1],
		.flags = t->flags,
		/* A grid sentinel goes as is: the device resolves it. */
		.block_num = t->grid ? t->grid : t->block_num,
		.num_tensors = t->num_tensors,
		.num_scalars = t->num_scalars,
		.split_mode = t->split_mode,
		.slot_num = t->slot_num,
	};
	e->tensors = PTO_VEC_AT(&g->tensors, struct drm_pto_npu_tensor_arg,
				t->tensor_off);
	e->scalars = PTO_VEC_AT(&g->scalars, int64_t, t->scalar_off);
	if (t->flags & DRM_PTO_NPU_TASK_F_PREDICATE)
		e->pred = PTO_VEC_AT(&g->preds, struct drm_pto_npu_predicate,
				     t->pred);
}

static int pto_run_push(struct pto_run *r, size_t i)
{
	struct pto_graph *g = r->g;
	const struct pto_graph_task *t = pto_graph_task_at(g, i);
	const uint32_t *gdeps = PTO_VEC_AT(&g->deps, uint32_t, t->dep_off);
	int64_t deps[PTO_MAX_ARGS];
	struct pto_sqe_parts e;
	uint32_t k;

	for (k = 0; k < t->num_deps; k++) {
		size_t j = gdeps[k];

		deps[k] = j < r->taken ? (int64_t)pto_graph_task_at(g, j)->task_id :
					 -(int64_t)(i - j);
	}
	pto_graph_sqe_parts(g, i, (uint64_t)r->seq << 32 | i, &e);
	e.hdr.num_deps = t->num_deps;
	e.deps = deps;
	return pto_sq_push(&r->q->sq, &e);
}

/*
 * Block order; within a mixed task's block the AIC record first, then its
 * AIVs by core index (sub_block 0 before 1 under UP_DOWN).
 */
static int pto_block_cmp(const void *x, const void *y)
{
	const struct pto_block_info *a = x, *b = y;

	if (a->block != b->block)
		return (a->block > b->block) - (a->block < b->block);
	if (a->core_type != b->core_type)
		return (a->core_type < b->core_type) -
		       (a->core_type > b->core_type);
	return (a->core > b->core) - (a->core < b->core);
}

/* A task's records and their profiles, sorted together by pto_block_cmp(). */
struct pto_block_pair {
	struct pto_block_info info;
	struct pto_block_prof prof;
	struct pto_sched_rec sched;
};

static int pto_block_pair_cmp(const void *x, const void *y)
{
	const struct pto_block_pair *a = x, *b = y;

	return pto_block_cmp(&a->info, &b->info);
}

static void pto_sort_blocks(struct pto_graph *g, struct pto_graph_task *t)
{
	struct pto_block_info *b = &g->blocks[t->block_off];
	struct pto_block_prof *p;
	struct pto_sched_rec *s;
	struct pto_block_pair *tmp;
	uint32_t i;

	if (!g->profs) {
		qsort(b, t->nblocks, sizeof(*b), pto_block_cmp);
		return;
	}
	p = &g->profs[t->block_off];
	s = &g->scheds[t->block_off];
	tmp = malloc(t->nblocks * sizeof(*tmp));
	if (!tmp) {
		/* Unsorted, but each record keeps its own profile. */
		return;
	}
	for (i = 0; i < t->nblocks; i++)
		tmp[i] = (struct pto_block_pair){ b[i], p[i], s[i] };
	qsort(tmp, t->nblocks, sizeof(*tmp), pto_block_pair_cmp);
	for (i = 0; i < t->nblocks; i++) {
		b[i] = tmp[i].info;
		p[i] = tmp[i].prof;
		s[i] = tmp[i].sched;
	}
	free(tmp);
}

/* Keep a hazard of the run (a failed allocation loses only the report). */
static void pto_run_hazard(struct pto_graph *g, uint32_t idx,
			   const struct pto_cqe *c,
			   const struct drm_pto_npu_hazard *in)
{
	struct pto_graph_hazard h = { .task = idx, .cqe = *c };

	pto_hazard_from_drm(&h.h, in);
	if (!pto_vec_reserve(&g->hazards, sizeof(h), 1))
		pto_vec_append(&g->hazards, sizeof(h), &h, 1);
}

bool pto_graph_run_record(struct pto_graph *g, size_t idx,
			  const struct drm_pto_npu_cqe *cqe,
			  const struct drm_pto_npu_prof *prof,
			  const struct drm_pto_npu_hazard *haz)
{
	struct pto_graph_task *t = pto_graph_task_at(g, idx);
	struct pto_cqe c;

	if (t->status != PTO_STATUS_PENDING)
		return false;
	pto_cqe_from_drm(&c, cqe);
	if (haz && (cqe->flags & DRM_PTO_NPU_CQE_F_HAZARD))
		pto_run_hazard(g, (uint32_t)idx, &c, haz);
	if (t->nblocks < pto_graph_task_records(t)) {
		if (g->profs) {
			pto_prof_from_drm(&g->profs[t->block_off + t->nblocks],
					  prof);
			pto_sched_from_drm(&g->scheds[t->block_off + t->nblocks],
					   &prof->sched);
		}
		g->blocks[t->block_off + t->nblocks++] = c.info;
	}
	if (!t->task_id)
		t->task_id = cqe->task_id;
	if (!(cqe->flags & DRM_PTO_NPU_CQE_F_LAST))
		return false;
	t->status = cqe->status;
	t->reason = cqe->reason;
	t->detail = cqe->detail;
	if (t->nblocks > 1)
		pto_sort_blocks(g, t);
	return true;
}

static void pto_run_complete(struct pto_run *r,
			     const struct drm_pto_npu_cqe *cqe,
			     const struct drm_pto_npu_prof *prof,
			     const struct drm_pto_npu_hazard *haz)
{
	uint64_t idx = cqe->user_data & UINT32_MAX;

	/* Another run's, or not a graph's: not ours to record. */
	if (cqe->user_data >> 32 != r->seq || idx >= r->g->tasks.n)
		return;
	if (pto_graph_run_record(r->g, idx, cqe, prof, haz))
		r->done++;
}

/* Every CQE ready now; returns how many were read. */
static int pto_run_reap(struct pto_run *r)
{
	struct drm_pto_npu_cqe batch[PTO_GRAPH_REAP_BATCH];
	struct drm_pto_npu_prof pbatch[PTO_GRAPH_REAP_BATCH];
	struct drm_pto_npu_hazard hbatch[PTO_GRAPH_REAP_BATCH];
	bool san = r->q->cq.hazs;
	int total = 0, n, i;

	do {
		n = pto_cq_reap_ext(&r->q->cq, batch,
				    r->g->profs ? pbatch : NULL,
				    san ? hbatch : NULL, PTO_GRAPH_REAP_BATCH);
		if (n < 0)
			return n;
		for (i = 0; i < n; i++)
			pto_run_complete(r, &batch[i], &pbatch[i],
					 san ? &hbatch[i] : NULL);
		total += n;
	} while (n == PTO_GRAPH_REAP_BATCH);
	return total;
}

static int pto_run_doorbell(struct pto_run *r)
{
	uint32_t consumed = 0, k;
	uint64_t first = 0;
	int ret;

	ret = r->q->ops->submit(r->q, 0, 0, &consumed, &first);
	if (ret)
		return ret;
	if (consumed > r->next - r->taken || (consumed && !first))
		return -EPROTO;
	for (k = 0; k < consumed; k++)
		pto_graph_task_at(r->g, r->taken + k)->task_id = first + k;
	r->taken += consumed;
	/*
	 * The rest may hold relative ids of tasks just taken, and the next
	 * doorbell's ids need not follow on. Withdraw them: pushed again,
	 * they name those tasks by absolute id.
	 */
	if (r->taken < r->next) {
		pto_sq_retract(&r->q->sq);
		r->next = r->taken;
	}
	return 0;
}

static int pto_run_loop(struct pto_run *r, int64_t deadline)
{
	size_t n = r->g->tasks.n;
	int ret;

	for (;;) {
		uint32_t available, inflight;
		int64_t now, until;
		int reaped;

		while (r->next < n) {
			ret = pto_run_push(r, r->next);
			if (ret == -EAGAIN)
				break;
			if (ret == -E2BIG) {
				pto_msgf(
					r->g->msg, sizeof(r->g->msg),
					"task %zu needs more SQ slots than the queue's %u",
					r->next, r->q->sq.nslots);
				return ret;
			}
			if (ret)
				return ret;
			r->next++;
		}
		if (r->taken < r->next) {
			ret = pto_run_doorbell(r);
			if (ret)
				return ret;
		}
		reaped = pto_run_reap(r);
		if (reaped < 0)
			return reaped;
		if (r->done == n)
			return 0;
		if (reaped)
			continue;

		now = pto_time_ns();
		if (now >= deadline)
			return -ETIME;
		until = deadline;
		if (r->taken == r->done && until - now > PTO_GRAPH_BACKOFF_NS)
			until = now + PTO_GRAPH_BACKOFF_NS;
		ret = r->q->ops->wait(r->q, until, &available, &inflight);
		if (ret && ret != -ETIME)
			return ret;
	}
}

static void pto_graph_reset_results(struct pto_graph *g)
{
	size_t i;

	for (i = 0; i < g->tasks.n; i++) {
		struct pto_graph_task *t = pto_graph_task_at(g, i);

		t->task_id = 0;
		t->detail = 0;
		t->nblocks = 0;
		t->status = PTO_STATUS_PENDING;
		t->reason = 0;
	}
}

/* Block, profile and scheduler records for every task of @g. */
static int pto_graph_alloc_results(struct pto_graph *g, bool profiling)
{
	size_t n = g->total_blocks ? g->total_blocks : 1;
	struct pto_block_info *blocks;

	blocks = realloc(g->blocks, n * sizeof(*blocks));
	if (!blocks)
		return -ENOMEM;
	g->blocks = blocks;
	free(g->profs);
	free(g->scheds);
	g->profs = NULL;
	g->scheds = NULL;
	if (!profiling)
		return 0;
	g->profs = calloc(n, sizeof(*g->profs));
	g->scheds = calloc(n, sizeof(*g->scheds));
	if (g->profs && g->scheds)
		return 0;
	free(g->profs);
	free(g->scheds);
	g->profs = NULL;
	g->scheds = NULL;
	return -ENOMEM;
}

int pto_graph_run_begin(struct pto_graph *g, struct pto_queue *q)
{
	int ret;

	g->msg[0] = '\0';
	if (!q || q->dev != g->dev) {
		pto_msgf(g->msg, sizeof(g->msg),
			 "the queue is not one of the graph's device");
		return -EINVAL;
	}
	if (pto_sq_space(&q->sq) != q->sq.nslots) {
		pto_msgf(
			g->msg, sizeof(g->msg),
			"the queue holds entries not yet taken: ring its doorbell first");
		return -EBUSY;
	}
	ret = pto_graph_alloc_results(g, pto_queue_profiling(q));
	if (ret)
		return ret;
	pto_graph_reset_results(g);
	memset(&g->replay, 0, sizeof(g->replay));
	g->hazards.n = 0;
	g->ran = true;
	return 0;
}

int pto_graph_run_end(struct pto_graph *g, struct pto_queue *q, int ret,
		      size_t done, size_t taken)
{
	size_t i;

	g->runs++;
	pto_trace_export(g);
	pto_graph_print_hazards(g);
	if (ret) {
		/* Nothing may run that this call no longer accounts for. */
		pto_sq_retract(&q->sq);
		if (!g->msg[0])
			pto_msgf(g->msg, sizeof(g->msg),
				 "%zu of %zu tasks completed, %zu taken: %s",
				 done, g->tasks.n, taken,
				 ret == -ETIME ? "timed out" :
						 pto_strerror(ret));
		return ret;
	}
	for (i = 0; i < g->tasks.n; i++)
		if (!pto_graph_status_ok(pto_graph_task_at(g, i)->status))
			break;
	if (i == g->tasks.n)
		return 0;
	pto_graph_first_error(g, g->msg, sizeof(g->msg));
	return -EIO;
}

int64_t pto_graph_deadline(int64_t timeout_ns)
{
	if (timeout_ns > 0 && timeout_ns < INT64_MAX - pto_time_ns())
		return pto_time_ns() + timeout_ns;
	return INT64_MAX;
}

PTO_API int pto_graph_run(struct pto_graph *g, struct pto_queue *q,
			  int64_t timeout_ns)
{
	struct pto_run r = { .g = g, .q = q };
	int64_t deadline;
	int ret;

	if (!g)
		return -EINVAL;
	ret = pto_graph_run_begin(g, q);
	if (ret)
		return ret;
	r.seq = ++q->run_seq;
	deadline = pto_graph_deadline(timeout_ns);
	ret = pto_run_loop(&r, deadline);
	return pto_graph_run_end(g, q, ret, r.done, r.taken);
}
