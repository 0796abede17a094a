// SPDX-License-Identifier: MIT
/*
 * pto_graph_replay(): one launch of a recorded graph, its completions read
 * into the graph's results as pto_graph_run() reads its tasks'. A node's
 * completions (a profiling queue only) carry the launch's task id and the
 * node's user_data, its graph index (pto_graph_record()); the launch's own
 * completion (DRM_PTO_NPU_CQE_F_GRAPH, never F_NODE) comes after them all.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_internal.h"
#include "pto/graph.h"

/* While the device's in-flight cap leaves the launch in the SQ: poll. */
#define PTO_REPLAY_BACKOFF_NS 1000000
#define PTO_REPLAY_REAP_BATCH 64

/**
 * struct pto_replay - the state of one pto_graph_replay()
 * @g: graph
 * @q: queue
 * @launch: the launch's task id, 0 until the device took it
 * @done: nodes whose last completion arrived
 * @ended: the launch's completion arrived
 */
struct pto_replay {
	struct pto_graph *g;
	struct pto_queue *q;
	uint64_t launch;
	size_t done;
	bool ended;
};

/* Publish the launch and ring until the device takes it. */
static int pto_replay_take(struct pto_replay *r, struct pto_graph_exec *x,
			   const struct pto_tensor *const *tensors,
			   const int64_t *scalars, int64_t deadline)
{
	uint32_t consumed = 0, available, inflight;
	uint64_t first = 0;
	char why[160];
	int64_t now;
	int ret;

	ret = pto_graph_launch_entry(x, r->q, tensors, scalars, NULL, why,
				     sizeof(why));
	if (ret == -EINVAL) {
		pto_msgf(r->g->msg, sizeof(r->g->msg),
			 "a bound tensor does not match its parameter: %s", why);
		return ret;
	} else if (ret) {
		pto_msgf(r->g->msg, sizeof(r->g->msg), "the launch entry: %s",
			 pto_strerror(ret));
		return ret;
	}
	for (;;) {
		ret = r->q->ops->submit(r->q, 0, 0, &consumed, &first);
		if (ret)
			return ret;
		if (consumed) {
			r->launch = first;
			return 0;
		}
		/* Other queues of the device hold the in-flight cap. */
		now = pto_time_ns();
		if (now >= deadline)
			return -ETIME;
		ret = r->q->ops->wait(r->q, now + PTO_REPLAY_BACKOFF_NS,
				      &available, &inflight);
		if (ret && ret != -ETIME)
			return ret;
	}
}

/* The launch's completion: kept for the traces, and on a queue without
 * node completions, what it says of the nodes (pto_graph_replay()). */
static void pto_replay_end(struct pto_replay *r,
			   const struct drm_pto_npu_cqe *cqe,
			   const struct drm_pto_npu_prof *prof)
{
	struct pto_graph *g = r->g;
	size_t i;

	r->ended = true;
	g->replay.launch = r->launch;
	pto_cqe_from_drm(&g->replay.cqe, cqe);
	if (g->profs)
		pto_sched_from_drm(&g->replay.sched, &prof->sched);
	for (i = 0; i < g->tasks.n; i++) {
		struct pto_graph_task *t = pto_graph_task_at(g, i);

		if (t->status != PTO_STATUS_PENDING)
			continue;
		t->task_id = r->launch;
		if (cqe->status == PTO_STATUS_OK) {
			t->status = PTO_STATUS_OK;
		} else if (!cqe->ts_dispatch || cqe->block == i) {
			/* Ended before its nodes were expanded, or this node
			 * is the one that failed. */
			t->status = cqe->status;
			t->reason = cqe->reason;
			t->detail = cqe->detail;
		}
	}
}

static void pto_replay_complete(struct pto_replay *r,
				const struct drm_pto_npu_cqe *cqe,
				const struct drm_pto_npu_prof *prof,
				const struct drm_pto_npu_hazard *haz)
{
	if (!r->launch || cqe->task_id != r->launch)
		return;
	if (!(cqe->flags & DRM_PTO_NPU_CQE_F_NODE)) {
		if (cqe->flags & DRM_PTO_NPU_CQE_F_LAST)
			pto_replay_end(r, cqe, prof);
		return;
	}
	if (cqe->user_data < r->g->tasks.n &&
	    pto_graph_run_record(r->g, cqe->user_data, cqe, prof, haz))
		r->done++;
}

static int pto_replay_reap(struct pto_replay *r)
{
	struct drm_pto_npu_cqe batch[PTO_REPLAY_REAP_BATCH];
	struct drm_pto_npu_prof pbatch[PTO_REPLAY_REAP_BATCH];
	struct drm_pto_npu_hazard hbatch[PTO_REPLAY_REAP_BATCH];
	bool san = r->q->cq.hazs;
	int total = 0, n, i;

	do {
		n = pto_cq_reap_ext(&r->q->cq, batch,
				    r->g->profs ? pbatch : NULL,
				    san ? hbatch : NULL, PTO_REPLAY_REAP_BATCH);
		if (n < 0)
			return n;
		for (i = 0; i < n; i++)
			pto_replay_complete(r, &batch[i], &pbatch[i],
					    san ? &hbatch[i] : NULL);
		total += n;
	} while (n == PTO_REPLAY_REAP_BATCH && !r->ended);
	return total;
}

static int pto_replay_loop(struct pto_replay *r, int64_t deadline)
{
	uint32_t available, inflight;
	int ret;

	for (;;) {
		int reaped = pto_replay_reap(r);

		if (reaped < 0)
			return reaped;
		if (r->ended)
			return 0;
		if (reaped)
			continue;
		if (pto_time_ns() >= deadline)
			return -ETIME;
		ret = r->q->ops->wait(r->q, deadline, &available, &inflight);
		if (ret && ret != -ETIME)
			return ret;
	}
}

PTO_API int pto_graph_replay(struct pto_graph *g, struct pto_graph_exec *x,
			     struct pto_queue *q,
			     const struct pto_tensor *const *tensors,
			     const int64_t *scalars, int64_t timeout_ns)
{
	struct pto_replay r = { .g = g, .q = q };
	int64_t deadline;
	int ret;

	if (!g || !x)
		return -EINVAL;
	if (x->graph_id != g->id) {
		pto_msgf(g->msg, sizeof(g->msg),
			 "the recording (graph handle %u) was made from another graph, not recorded from it: replay it with its own graph",
			 x->handle);
		return -EINVAL;
	}
	if (x->num_nodes != g->tasks.n) {
		pto_msgf(g->msg, sizeof(g->msg),
			 "the recorded graph has %u nodes, this graph %zu tasks now: tasks were added since it was recorded",
			 x->num_nodes, g->tasks.n);
		return -EINVAL;
	}
	ret = pto_graph_run_begin(g, q);
	if (ret)
		return ret;
	g->replay.on = true;
	g->replay.graph = x->handle;
	deadline = pto_graph_deadline(timeout_ns);
	ret = pto_replay_take(&r, x, tensors, scalars, deadline);
	if (!ret)
		ret = pto_replay_loop(&r, deadline);
	return pto_graph_run_end(g, q, ret, r.done, r.launch ? g->tasks.n : 0);
}
