// SPDX-License-Identifier: MIT
/*
 * Launches of a recorded graph (graph replay, uapi 7): the launch entry
 * (its bindings checked against the recorded parameters, a predicate and
 * dependencies if asked), the doorbell, and the wait for one launch's
 * completion that leaves the other launches' completions in the CQ.
 * Recording is replay.c's; pto_graph_replay() is replay_run.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "graph_internal.h"
#include "pto/graph.h"

/* A launch's dependencies when the device reports no max_deps (its cap). */
#define PTO_LAUNCH_MAX_DEPS 32
/* pto_graph_exec_wait()'s poll while other launches' completions wait. */
#define PTO_WAIT_BACKOFF_NS 20000
#define PTO_WAIT_BACKOFF_MAX_NS 1000000

/* "[4, 16]": the first @ndim extents of @v. */
static const char *pto_launch_dims(char *buf, size_t len, const uint32_t *v,
				   unsigned int ndim)
{
	size_t off = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < ndim && i < 4 && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%u",
					i ? ", " : "[",
					v[i]);
	if (off < len)
		snprintf(buf + off, len - off, "]");
	return buf;
}

/* Which field of bound tensor @a differs from parameter @i's layout @p. */
static int pto_launch_differs(uint32_t i,
			      const struct drm_pto_npu_tensor_arg *a,
			      const struct drm_pto_npu_tensor_arg *p,
			      char *why, size_t len)
{
	char have[96], want[96];

	if (a->dtype != p->dtype) {
		pto_msgf(why, len, "tensor parameter %u: dtype %s, recorded %s", i,
			 pto_dtype_name(a->dtype), pto_dtype_name(p->dtype));
	} else if (a->ndim != p->ndim ||
		   memcmp(a->shape, p->shape, sizeof(p->shape))) {
		pto_msgf(why, len, "tensor parameter %u: shape %s, recorded %s", i,
			 pto_launch_dims(have, sizeof(have), a->shape, a->ndim),
			 pto_launch_dims(want, sizeof(want), p->shape, p->ndim));
	} else if (memcmp(a->strides, p->strides, sizeof(p->strides))) {
		pto_msgf(why, len, "tensor parameter %u: strides %s, recorded %s",
			 i,
			 pto_launch_dims(have, sizeof(have), a->strides, a->ndim),
			 pto_launch_dims(want, sizeof(want), p->strides, p->ndim));
	} else {
		return 0;
	}
	return -EINVAL;
}

/* The launch's bound tensors: each of its parameter's layout and direction. */
static int pto_launch_args(const struct pto_graph_exec *x,
			   const struct pto_tensor *const *tensors,
			   struct drm_pto_npu_tensor_arg *a, char *why,
			   size_t len)
{
	char what[128];
	uint32_t i;
	int ret;

	for (i = 0; i < x->ntp; i++) {
		if (!tensors[i] || tensors[i]->buf->dev != x->dev) {
			pto_msgf(why, len, "tensor parameter %u: %s", i,
				 tensors[i] ? "device: of another device" :
					      "NULL");
			return -EINVAL;
		}
		ret = pto_tensor_arg(tensors[i], &a[i], what, sizeof(what));
		if (ret) {
			pto_msgf(why, len, "tensor parameter %u: %s", i, what);
			return ret;
		}
		ret = pto_launch_differs(i, &a[i], &x->tparam[i], why, len);
		if (ret)
			return ret;
		a[i].flags = x->tparam[i].flags;
	}
	return 0;
}

/* What the extras may hold: the device's counts, deps never 0. */
static int pto_launch_opts_check(const struct pto_graph_exec *x,
				 const struct pto_graph_launch_opts *o,
				 char *why, size_t len)
{
	uint32_t cap = x->dev->limits.max_deps, i;

	if (!cap || cap > PTO_MAX_ARGS)
		cap = PTO_LAUNCH_MAX_DEPS;
	if (o->reserved32 || o->reserved[0] || o->reserved[1] ||
	    o->reserved[2] || o->reserved[3] || (o->num_deps && !o->deps)) {
		pto_msgf(why, len, "launch options: reserved fields set or no deps");
		return -EINVAL;
	}
	if (o->num_deps > cap) {
		pto_msgf(why, len, "launch options: %u dependencies, the device takes %u",
			 o->num_deps, cap);
		return -E2BIG;
	}
	for (i = 0; i < o->num_deps; i++)
		if (!o->deps[i]) {
			pto_msgf(why, len, "launch options: dependency %u is 0", i);
			return -EINVAL;
		}
	if (o->predicate && o->predicate->tensor >= x->ntp) {
		pto_msgf(why, len, "launch options: the predicate reads tensor %u, the graph has %u tensor parameters",
			 o->predicate->tensor, x->ntp);
		return -EINVAL;
	}
	return 0;
}

int pto_graph_launch_entry(struct pto_graph_exec *x, struct pto_queue *q,
			   const struct pto_tensor *const *tensors,
			   const int64_t *scalars,
			   const struct pto_graph_launch_opts *o, char *why,
			   size_t len)
{
	struct drm_pto_npu_tensor_arg a[PTO_MAX_ARGS];
	struct drm_pto_npu_predicate pred;
	struct pto_sqe_parts e;
	int ret;

	if (!x || !q || q->dev != x->dev || (x->ntp && !tensors) ||
	    (x->nsp && !scalars)) {
		pto_msgf(why, len, "no graph, no queue, a queue of another device, or no tensors or scalars for the parameters");
		return -EINVAL;
	}
	ret = o ? pto_launch_opts_check(x, o, why, len) : 0;
	if (!ret)
		ret = pto_launch_args(x, tensors, a, why, len);
	if (ret)
		return ret;
	memset(&e, 0, sizeof(e));
	e.hdr = (struct drm_pto_npu_sqe){
		.user_data = o ? o->user_data : 0,
		.flags = DRM_PTO_NPU_TASK_F_GRAPH,
		.block_num = 1,
		.num_tensors = (uint8_t)x->ntp,
		.num_scalars = (uint8_t)x->nsp,
		.num_deps = o ? (uint8_t)o->num_deps : 0,
		.reserved = { x->handle },
	};
	e.tensors = a;
	e.scalars = scalars;
	e.deps = o ? o->deps : NULL;
	if (o && o->predicate) {
		pto_predicate_to_drm(o->predicate, &pred);
		e.hdr.flags |= DRM_PTO_NPU_TASK_F_PREDICATE;
		e.pred = &pred;
	}
	return pto_sq_push(&q->sq, &e);
}

PTO_API int pto_graph_launch_push_ex(struct pto_graph_exec *x,
				     struct pto_queue *q,
				     const struct pto_tensor *const *tensors,
				     const int64_t *scalars,
				     const struct pto_graph_launch_opts *opts)
{
	char why[160];

	return pto_graph_launch_entry(x, q, tensors, scalars, opts, why,
				      sizeof(why));
}

PTO_API int pto_graph_launch_push(struct pto_graph_exec *x,
				  struct pto_queue *q,
				  const struct pto_tensor *const *tensors,
				  const int64_t *scalars, uint64_t user_data)
{
	const struct pto_graph_launch_opts o = { .user_data = user_data };

	return pto_graph_launch_push_ex(x, q, tensors, scalars, &o);
}

PTO_API int pto_graph_launch_ex(struct pto_graph_exec *x, struct pto_queue *q,
				const struct pto_tensor *const *tensors,
				const int64_t *scalars,
				const struct pto_graph_launch_opts *opts,
				uint64_t *task_id)
{
	uint32_t consumed = 0;
	uint64_t first = 0;
	int ret;

	if (task_id)
		*task_id = 0;
	ret = pto_graph_launch_push_ex(x, q, tensors, scalars, opts);
	if (ret)
		return ret;
	ret = pto_queue_doorbell(q, 0, 0, &consumed, &first);
	if (ret)
		return ret;
	/* Ours is the last entry published; the doorbell took it or not. */
	if (pto_sq_space(&q->sq) != q->sq.nslots)
		return -EBUSY;
	if (task_id && consumed)
		*task_id = first + consumed - 1;
	return 0;
}

PTO_API int pto_graph_launch(struct pto_graph_exec *x, struct pto_queue *q,
			     const struct pto_tensor *const *tensors,
			     const int64_t *scalars, uint64_t *task_id)
{
	return pto_graph_launch_ex(x, q, tensors, scalars, NULL, task_id);
}

/* ------------------------------------------------------------ the wait */

static bool pto_wait_is_final(const struct drm_pto_npu_cqe *c)
{
	return (c->flags & DRM_PTO_NPU_CQE_F_LAST) &&
	       !(c->flags & DRM_PTO_NPU_CQE_F_NODE);
}

/* A completion the wait for @task_id leaves in the CQ: another launch's. */
static bool pto_wait_keeps(const struct drm_pto_npu_cqe *c, uint64_t task_id)
{
	return c->task_id != task_id && pto_wait_is_final(c) &&
	       (c->flags & DRM_PTO_NPU_CQE_F_GRAPH);
}

/* Position @from's CQE, profile and hazard records to position @to. */
static void pto_cq_move(struct pto_cq *cq, uint32_t from, uint32_t to)
{
	size_t stride = cq->prof_stride ? cq->prof_stride :
					  sizeof(struct drm_pto_npu_prof);

	cq->cqes[to] = cq->cqes[from];
	/* The records are ours between head and tail, as the CQEs are. */
	if (cq->profs)
		memmove((uint8_t *)(uintptr_t)cq->profs + to * stride,
			(const uint8_t *)cq->profs + from * stride, stride);
	if (cq->hazs)
		((struct drm_pto_npu_hazard *)(uintptr_t)cq->hazs)[to] =
			cq->hazs[from];
}

/*
 * One pass over the posted completions, newest first: @task_id's final
 * CQE into *@res; other launches' final ones slide, in order, to the end
 * of the posted range and stay; the rest is consumed (head moves up to
 * the kept ones). Return: 1 found, 0 not yet, -ENOSPC when the CQ is full
 * of kept completions, -EPROTO.
 */
static int pto_wait_scan(struct pto_cq *cq, uint64_t task_id,
			 struct drm_pto_npu_cqe *res)
{
	uint32_t tail = __atomic_load_n(cq->tail, __ATOMIC_ACQUIRE);
	uint32_t head = __atomic_load_n(cq->head, __ATOMIC_RELAXED);
	uint32_t mask = cq->nentries - 1, avail = tail - head, w = tail, i;
	int found = 0;

	if (avail > cq->nentries)
		return -EPROTO;
	for (i = avail; i-- > 0;) {
		uint32_t p = (head + i) & mask;
		const struct drm_pto_npu_cqe *c = &cq->cqes[p];

		if (pto_wait_keeps(c, task_id)) {
			/* w - head > i: nothing not yet visited is overwritten. */
			if ((--w & mask) != p)
				pto_cq_move(cq, p, w & mask);
		} else if (c->task_id == task_id && pto_wait_is_final(c)) {
			*res = *c;
			found = 1;
		}
	}
	if (w != head)
		__atomic_store_n(cq->head, w, __ATOMIC_RELEASE);
	if (!found && tail - w == cq->nentries)
		return -ENOSPC;
	return found;
}

/*
 * Other launches' completions wait in the CQ: QUEUE_WAIT would return at
 * once. Poll (the wait, deadline 0, moves held completions into the
 * room the scan made), sleeping @*backoff (doubled up to 1 ms).
 */
static int pto_wait_poll(struct pto_queue *q, int64_t deadline,
			 int64_t *backoff)
{
	struct timespec ts = { 0, (long)*backoff };
	int ret;

	if (pto_time_ns() >= deadline)
		return -ETIME;
	ret = pto_queue_wait(q, 0);
	if (ret && ret != -ETIME && ret != -EINTR)
		return ret;
	nanosleep(&ts, NULL);
	if (*backoff < PTO_WAIT_BACKOFF_MAX_NS)
		*backoff *= 2;
	return 0;
}

PTO_API int pto_graph_exec_wait(struct pto_queue *q, uint64_t task_id,
				int64_t timeout_ns, struct pto_cqe *res)
{
	int64_t deadline = INT64_MAX, backoff = PTO_WAIT_BACKOFF_NS;
	struct drm_pto_npu_cqe c;
	int ret;

	if (!q || !task_id)
		return -EINVAL;
	if (timeout_ns > 0 && timeout_ns < INT64_MAX - pto_time_ns())
		deadline = pto_time_ns() + timeout_ns;
	for (;;) {
		ret = pto_wait_scan(&q->cq, task_id, &c);
		if (ret < 0)
			return ret;
		if (ret) {
			if (res)
				pto_cqe_from_drm(res, &c);
			return c.status == PTO_STATUS_OK ? 0 : -EIO;
		}
		if (*q->cq.head != __atomic_load_n(q->cq.tail, __ATOMIC_ACQUIRE)) {
			ret = pto_wait_poll(q, deadline, &backoff);
		} else {
			backoff = PTO_WAIT_BACKOFF_NS;
			ret = pto_queue_wait(q, deadline);
			if (ret == -EINTR)
				ret = 0;
		}
		if (ret)
			return ret;
	}
}
