// SPDX-License-Identifier: MIT
/*
 * Dispatch queues: one GEM object holding the ring header, the SQ and the
 * CQ, mapped MAP_SHARED. The ring arithmetic lives in ring.c; here are the
 * ioctls and the conversion from the public task description.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "internal.h"

/* The nodes took the padding: arrays of it keep their ABI (uapi 9). */
_Static_assert(sizeof(struct pto_hazard) == 48, "struct pto_hazard is ABI");
_Static_assert(PTO_PROF_WAITS == DRM_PTO_NPU_PROF_WAITS &&
	       (int)PTO_WAIT_STAGED == (int)DRM_PTO_NPU_WAIT_STAGED &&
	       (int)PTO_WAIT_RING_POP == (int)DRM_PTO_NPU_WAIT_RING_POP &&
	       (int)PTO_WAIT_RING_PUSH == (int)DRM_PTO_NPU_WAIT_RING_PUSH &&
	       (int)PTO_WAIT_BARRIER_HARD == (int)DRM_PTO_NPU_WAIT_BARRIER_HARD &&
	       (int)PTO_WAIT_BARRIER_SOFT == (int)DRM_PTO_NPU_WAIT_BARRIER_SOFT,
	       "wait records mirror the uapi");
_Static_assert(sizeof(struct pto_queue_params) == 48,
	       "flags took reserved space: the parameters keep their size");
_Static_assert(PTO_TASK_SYNC_START == DRM_PTO_NPU_TASK_F_SYNC_START,
	       "public task flags mirror the uapi");
_Static_assert(PTO_TASK_EARLY_RESOLVE == DRM_PTO_NPU_TASK_F_EARLY_RESOLVE,
	       "public task flags mirror the uapi");
#if UINTPTR_MAX == UINT64_MAX
/* split_mode and slot_num took reserved space: nothing else moved. */
_Static_assert(sizeof(struct pto_task_desc) == 120 &&
		       offsetof(struct pto_task_desc, split_mode) == 68 &&
		       offsetof(struct pto_task_desc, predicate) == 72 &&
		       offsetof(struct pto_task_desc, slot_num) == 88 &&
		       offsetof(struct pto_task_desc, tensor_dirs) == 96,
	       "struct pto_task_desc keeps its size and field offsets");
#endif
_Static_assert(PTO_ARG_IN == DRM_PTO_NPU_TENSOR_F_IN &&
		       PTO_ARG_OUT == DRM_PTO_NPU_TENSOR_F_OUT,
	       "tensor directions mirror the uapi");
_Static_assert(PTO_BLOCK_LAST == DRM_PTO_NPU_CQE_F_LAST &&
		       PTO_BLOCK_RAN == DRM_PTO_NPU_CQE_F_RAN &&
		       PTO_BLOCK_STAGED == DRM_PTO_NPU_CQE_F_STAGED,
	       "public block flags mirror the uapi");

PTO_API int64_t pto_time_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int pto_queue_ioctl_submit(struct pto_queue *q, uint32_t syncobj,
				  uint64_t point, uint32_t *consumed,
				  uint64_t *first_id)
{
	struct drm_pto_npu_queue_submit s = {
		.queue_id = q->id,
		.syncobj = syncobj,
		.syncobj_point = point,
	};
	int ret;

	ret = pto_ioctl(q->dev->fd, DRM_IOCTL_PTO_NPU_QUEUE_SUBMIT, &s);
	if (ret)
		return ret;
	*consumed = s.consumed;
	*first_id = s.first_task_id;
	return 0;
}

static int pto_queue_ioctl_wait(struct pto_queue *q, int64_t deadline_ns,
				uint32_t *available, uint32_t *inflight)
{
	struct drm_pto_npu_queue_wait w = {
		.queue_id = q->id,
		.timeout_ns = deadline_ns,
	};
	int ret;

	ret = pto_ioctl(q->dev->fd, DRM_IOCTL_PTO_NPU_QUEUE_WAIT, &w);
	*available = w.available;
	*inflight = w.inflight;
	/* A poll (deadline 0) that finds nothing is a timeout too. */
	if (!ret && !w.available)
		ret = -ETIME;
	return ret;
}

static const struct pto_queue_ops pto_queue_device_ops = {
	.submit = pto_queue_ioctl_submit,
	.wait = pto_queue_ioctl_wait,
};

static bool pto_is_pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

/* The layout the device reported must fit in the mapping, and not overlap. */
int pto_queue_init_rings(struct pto_queue *q, void *map, size_t map_size,
			 uint32_t sq_offset, uint32_t sq_slots,
			 uint32_t cq_offset, uint32_t cq_entries)
{
	struct drm_pto_npu_ring_header *hdr = map;
	uint64_t sq_end =
		sq_offset + (uint64_t)sq_slots * DRM_PTO_NPU_SQ_SLOT_SIZE;
	uint64_t cq_end =
		cq_offset + (uint64_t)cq_entries * sizeof(*q->cq.cqes);

	if (!pto_is_pow2(sq_slots) || !pto_is_pow2(cq_entries) ||
	    sq_offset < sizeof(*hdr) || cq_offset < sizeof(*hdr) ||
	    sq_offset % DRM_PTO_NPU_SQ_SLOT_SIZE ||
	    cq_offset % _Alignof(struct drm_pto_npu_cqe) || sq_end > map_size ||
	    cq_end > map_size || (sq_offset < cq_end && cq_offset < sq_end))
		return -EPROTO;

	q->map = map;
	q->map_size = map_size;
	q->sq = (struct pto_sq){
		.slots = (uint8_t *)map + sq_offset,
		.nslots = sq_slots,
		.head = &hdr->sq_head,
		.tail = &hdr->sq_tail,
	};
	q->cq = (struct pto_cq){
		.cqes = (struct drm_pto_npu_cqe *)((uint8_t *)map + cq_offset),
		.nentries = cq_entries,
		.head = &hdr->cq_head,
		.tail = &hdr->cq_tail,
	};
	return 0;
}

/* A profiling queue's records: one per CQE, inside the mapping. */
int pto_queue_init_prof(struct pto_queue *q, uint32_t prof_offset,
			uint32_t prof_size)
{
	uint64_t end = prof_offset + (uint64_t)q->cq.nentries * prof_size;
	uint64_t cq_off = (uint64_t)((uint8_t *)q->cq.cqes - (uint8_t *)q->map);
	uint64_t cq_end = cq_off + (uint64_t)q->cq.nentries * sizeof(*q->cq.cqes);

	if (!prof_offset && !prof_size)
		return 0;
	/* At least the waits (the record before uapi 6); what follows may differ. */
	if (prof_size < offsetof(struct drm_pto_npu_prof, sched) ||
	    prof_size % _Alignof(struct drm_pto_npu_prof) ||
	    prof_offset < sizeof(struct drm_pto_npu_ring_header) ||
	    prof_offset % _Alignof(struct drm_pto_npu_prof) ||
	    end > q->map_size || (prof_offset < cq_end && cq_off < end))
		return -EPROTO;
	q->cq.profs = (const uint8_t *)q->map + prof_offset;
	q->cq.prof_stride = prof_size;
	return 0;
}

/* A sanitizing queue's hazard records: one per CQE, inside the mapping. */
static int pto_queue_init_haz(struct pto_queue *q, uint32_t off, uint32_t size)
{
	uint64_t end = off + (uint64_t)q->cq.nentries * size;
	uint64_t cq_off = (uint64_t)((uint8_t *)q->cq.cqes - (uint8_t *)q->map);
	uint64_t cq_end = cq_off + (uint64_t)q->cq.nentries * sizeof(*q->cq.cqes);

	if (!off && !size)
		return 0;
	if (size != sizeof(struct drm_pto_npu_hazard) ||
	    off < sizeof(struct drm_pto_npu_ring_header) ||
	    off % _Alignof(struct drm_pto_npu_hazard) || end > q->map_size ||
	    (off < cq_end && cq_off < end))
		return -EPROTO;
	q->cq.hazs = (const struct drm_pto_npu_hazard *)((uint8_t *)q->map +
							 off);
	return 0;
}

_Static_assert(PTO_BLOCK_HAZARD == DRM_PTO_NPU_CQE_F_HAZARD,
	       "block flags mirror the CQE's");

/*
 * The GM flags of a queue: those asked for, else the environment's
 * (PTO_SANITIZE=1, PTO_GM=coherent|noncoherent), when the device can.
 */
static uint32_t pto_queue_gm_flags(const struct pto_device *dev,
				   uint32_t flags)
{
	const char *san = getenv("PTO_SANITIZE"), *gm = getenv("PTO_GM");
	uint32_t out = 0;

	if (flags & PTO_QUEUE_SANITIZE)
		out |= DRM_PTO_NPU_QUEUE_F_SANITIZE;
	if (flags & PTO_QUEUE_COHERENT)
		out |= DRM_PTO_NPU_QUEUE_F_COHERENT;
	if (flags & PTO_QUEUE_NONCOHERENT)
		out |= DRM_PTO_NPU_QUEUE_F_NONCOHERENT;
	if (!(dev->info.capabilities & PTO_CAP_MEMORY_MODEL))
		return out;
	if (!(flags & (PTO_QUEUE_COHERENT | PTO_QUEUE_NONCOHERENT)) && gm) {
		if (!strcmp(gm, "coherent"))
			out |= DRM_PTO_NPU_QUEUE_F_COHERENT;
		else if (!strcmp(gm, "noncoherent"))
			out |= DRM_PTO_NPU_QUEUE_F_NONCOHERENT;
	}
	if (!(out & DRM_PTO_NPU_QUEUE_F_COHERENT) && san && *san &&
	    strcmp(san, "0"))
		out |= DRM_PTO_NPU_QUEUE_F_SANITIZE;
	return out;
}

/* Profiling: asked for, or PTO_TRACE_DIR / PTO_PROFILE=1 and the device can. */
static bool pto_queue_wants_prof(const struct pto_device *dev, uint32_t flags)
{
	const char *trace = getenv("PTO_TRACE_DIR"), *prof = getenv("PTO_PROFILE");

	if (flags & PTO_QUEUE_PROFILE)
		return true;
	if (!(dev->info.capabilities & PTO_CAP_PROFILE))
		return false;
	if (prof && *prof)
		return strcmp(prof, "0") != 0;
	return trace && *trace;
}

static int pto_queue_ioctl_destroy(int fd, uint32_t id)
{
	struct drm_pto_npu_queue_destroy d = { .queue_id = id };

	return pto_ioctl(fd, DRM_IOCTL_PTO_NPU_QUEUE_DESTROY, &d);
}

static void pto_queue_close_gem(int fd, uint32_t handle)
{
	struct drm_gem_close c = { .handle = handle };

	(void)pto_ioctl(fd, DRM_IOCTL_GEM_CLOSE, &c);
}

PTO_API int pto_queue_create(struct pto_device *dev, uint32_t sq_slots,
			     uint32_t cq_entries, struct pto_queue **out)
{
	struct pto_queue_params p = {
		.sq_slots = sq_slots,
		.cq_entries = cq_entries,
	};

	return pto_queue_create_params(dev, &p, out);
}

PTO_API uint64_t pto_queue_work_budget(const struct pto_queue *q)
{
	return q ? q->work_budget : 0;
}

PTO_API int pto_queue_create_params(struct pto_device *dev,
				    const struct pto_queue_params *params,
				    struct pto_queue **out)
{
	struct drm_pto_npu_queue_create c = { 0 };
	struct pto_queue *q;
	void *map;
	size_t i;
	int ret;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!dev || !params)
		return -EINVAL;
	for (i = 0; i < sizeof(params->reserved) / sizeof(params->reserved[0]); i++)
		if (params->reserved[i])
			return -EINVAL;
	if ((params->flags & ~(PTO_QUEUE_PROFILE | PTO_QUEUE_SANITIZE |
			       PTO_QUEUE_COHERENT | PTO_QUEUE_NONCOHERENT)) ||
	    params->reserved32)
		return -EINVAL;
	if ((params->flags & PTO_QUEUE_COHERENT) &&
	    (params->flags & (PTO_QUEUE_SANITIZE | PTO_QUEUE_NONCOHERENT)))
		return -EINVAL;
	c.sq_slots = params->sq_slots;
	c.cq_entries = params->cq_entries;
	c.work_budget = params->work_budget;
	if (pto_queue_wants_prof(dev, params->flags))
		c.flags |= DRM_PTO_NPU_QUEUE_F_PROFILE;
	c.flags |= pto_queue_gm_flags(dev, params->flags);
	q = calloc(1, sizeof(*q));
	if (!q)
		return -ENOMEM;

	ret = pto_ioctl(dev->fd, DRM_IOCTL_PTO_NPU_QUEUE_CREATE, &c);
	if (ret)
		goto err_free;
	q->dev = dev;
	q->ops = &pto_queue_device_ops;
	q->id = c.queue_id;
	q->handle = c.handle;
	q->work_budget = c.work_budget;
	q->noncoherent = c.gm_model != 0;
	if (!c.ring_size || (size_t)c.ring_size != c.ring_size ||
	    (off_t)c.mmap_offset < 0 ||
	    (uint64_t)(off_t)c.mmap_offset != c.mmap_offset) {
		ret = -EPROTO;
		goto err_destroy;
	}
	map = mmap(NULL, c.ring_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		   dev->fd, (off_t)c.mmap_offset);
	if (map == MAP_FAILED) {
		ret = -errno;
		goto err_destroy;
	}
	ret = pto_queue_init_rings(q, map, c.ring_size, c.sq_offset, c.sq_slots,
				   c.cq_offset, c.cq_entries);
	if (!ret && (c.flags & DRM_PTO_NPU_QUEUE_F_PROFILE))
		ret = c.prof_size ? pto_queue_init_prof(q, c.prof_offset,
							c.prof_size) :
				    -EPROTO;
	if (!ret)
		ret = pto_queue_init_haz(q, c.haz_offset, c.haz_size);
	if (!ret && (c.flags & DRM_PTO_NPU_QUEUE_F_SANITIZE) && !q->cq.hazs)
		ret = -EPROTO;
	if (ret) {
		munmap(map, c.ring_size);
		goto err_destroy;
	}
	*out = q;
	return 0;

err_destroy:
	pto_queue_ioctl_destroy(dev->fd, q->id);
	pto_queue_close_gem(dev->fd, q->handle);
err_free:
	free(q);
	return ret;
}

PTO_API int pto_queue_destroy(struct pto_queue *q)
{
	int ret;

	if (!q)
		return 0;
	ret = pto_queue_ioctl_destroy(q->dev->fd, q->id);
	if (ret == -EBUSY)
		return ret;
	/* Any other failure leaves nothing a second call could do better. */
	munmap(q->map, q->map_size);
	pto_queue_close_gem(q->dev->fd, q->handle);
	free(q);
	return ret;
}

PTO_API uint32_t pto_queue_sq_slots(const struct pto_queue *q)
{
	return q->sq.nslots;
}

PTO_API uint32_t pto_queue_cq_entries(const struct pto_queue *q)
{
	return q->cq.nentries;
}

PTO_API uint32_t pto_task_slots(uint32_t num_tensors, uint32_t num_scalars,
				uint32_t num_deps, bool predicate)
{
	size_t bytes =
		pto_sqe_bytes(num_tensors, num_scalars, num_deps, predicate);

	return (uint32_t)((bytes + DRM_PTO_NPU_SQ_SLOT_SIZE - 1) /
			  DRM_PTO_NPU_SQ_SLOT_SIZE);
}

PTO_API int pto_queue_push_task(struct pto_queue *q,
				const struct pto_task_desc *desc)
{
	struct drm_pto_npu_tensor_arg targs[PTO_MAX_ARGS];
	struct drm_pto_npu_predicate pred;
	struct pto_sqe_parts e = { 0 };
	uint32_t i;
	int ret;

	if (!q || !desc || (!desc->kernel_aiv && !desc->kernel_aic))
		return -EINVAL;
	if ((desc->num_tensors && !desc->tensors) ||
	    (desc->num_scalars && !desc->scalars) ||
	    (desc->num_deps && !desc->deps))
		return -EINVAL;
	if (desc->num_tensors > PTO_MAX_ARGS ||
	    desc->num_scalars > PTO_MAX_ARGS || desc->num_deps > PTO_MAX_ARGS)
		return -E2BIG;
	/* What the entry's fields can hold; the device judges the values. */
	if ((unsigned int)desc->split_mode > UINT8_MAX ||
	    desc->slot_num > UINT16_MAX)
		return -EINVAL;
	if ((desc->kernel_aiv && desc->kernel_aiv->dev != q->dev) ||
	    (desc->kernel_aic && desc->kernel_aic->dev != q->dev))
		return -EINVAL;
	for (i = 0; i < desc->num_deps; i++)
		if (!desc->deps[i])
			return -EINVAL;
	for (i = 0; i < desc->num_tensors; i++) {
		if (!desc->tensors[i] || desc->tensors[i]->buf->dev != q->dev)
			return -EINVAL;
		ret = pto_tensor_arg(desc->tensors[i], &targs[i], NULL, 0);
		if (ret)
			return ret;
		if (desc->tensor_dirs) {
			if (desc->tensor_dirs[i] & ~PTO_ARG_INOUT)
				return -EINVAL;
			targs[i].flags = desc->tensor_dirs[i];
		}
	}

	e.hdr = (struct drm_pto_npu_sqe){
		.user_data = desc->user_data,
		.kernel_aiv = desc->kernel_aiv ? desc->kernel_aiv->handle : 0,
		.kernel_aic = desc->kernel_aic ? desc->kernel_aic->handle : 0,
		.flags = desc->flags,
		.block_num = desc->block_num,
		.num_tensors = (uint8_t)desc->num_tensors,
		.num_scalars = (uint8_t)desc->num_scalars,
		.num_deps = (uint8_t)desc->num_deps,
		.split_mode = (uint8_t)desc->split_mode,
		.slot_num = (uint16_t)desc->slot_num,
	};
	e.tensors = targs;
	e.scalars = desc->scalars;
	e.deps = desc->deps;
	if (desc->predicate) {
		if (desc->predicate->tensor > PTO_MAX_ARGS)
			return -EINVAL;
		pto_predicate_to_drm(desc->predicate, &pred);
		e.hdr.flags |= DRM_PTO_NPU_TASK_F_PREDICATE;
		e.pred = &pred;
	}
	return pto_sq_push(&q->sq, &e);
}

PTO_API int pto_queue_push_raw(struct pto_queue *q, const void *entry,
			       size_t size)
{
	if (!q || !entry)
		return -EINVAL;
	return pto_sq_push_raw(&q->sq, entry, size);
}

PTO_API int pto_queue_doorbell(struct pto_queue *q, uint32_t syncobj,
			       uint64_t point, uint32_t *consumed,
			       uint64_t *first_id)
{
	uint32_t n = 0;
	uint64_t id = 0;
	int ret;

	if (!q)
		return -EINVAL;
	ret = q->ops->submit(q, syncobj, point, &n, &id);
	if (consumed)
		*consumed = n;
	if (first_id)
		*first_id = id;
	return ret;
}

void pto_cqe_from_drm(struct pto_cqe *out, const struct drm_pto_npu_cqe *in)
{
	*out = (struct pto_cqe){
		.user_data = in->user_data,
		.task_id = in->task_id,
		.info = {
			.block = in->block,
			.status = in->status,
			.core = in->core,
			.core_type = in->core_type,
			.reason = in->reason,
			.flags = in->flags,
			.detail = in->detail,
			.ts_dispatch = in->ts_dispatch,
			.ts_receive = in->ts_receive,
			.ts_start = in->ts_start,
			.ts_end = in->ts_end,
			.ts_finish = in->ts_finish,
		},
	};
}

void pto_prof_from_drm(struct pto_block_prof *out,
		       const struct drm_pto_npu_prof *in)
{
	unsigned int i;

	*out = (struct pto_block_prof){
		.nwaits = in->nwaits,
		.wait_ns = in->wait_ns,
	};
	for (i = 0; i < PTO_PROF_WAITS && i < in->nwaits; i++)
		out->waits[i] = (struct pto_wait){
			.begin = in->waits[i].begin,
			.end = in->waits[i].end,
			.kind = in->waits[i].kind,
			.pc = in->waits[i].pc,
		};
}

_Static_assert(PTO_SCHED_STAGED == DRM_PTO_NPU_SCHED_F_STAGED,
	       "sched flags match the uapi");
_Static_assert(PTO_SCHED_EARLY == DRM_PTO_NPU_SCHED_F_EARLY,
	       "sched flags match the uapi");

void pto_sched_from_drm(struct pto_sched_rec *out,
			const struct drm_pto_npu_sched *in)
{
	*out = (struct pto_sched_rec){
		.intake_begin = in->intake_begin,
		.intake_end = in->intake_end,
		.resolve_begin = in->resolve_begin,
		.resolve_end = in->resolve_end,
		.dispatch_begin = in->dispatch_begin,
		.dispatch_end = in->dispatch_end,
		.complete_begin = in->complete_begin,
		.complete_end = in->complete_end,
		.intake_iter = in->intake_iter,
		.resolve_iter = in->resolve_iter,
		.dispatch_iter = in->dispatch_iter,
		.complete_iter = in->complete_iter,
		.resolved = in->resolved,
		.flags = in->flags,
	};
}

PTO_API bool pto_queue_profiling(const struct pto_queue *q)
{
	return q && q->cq.profs;
}

PTO_API const char *pto_wait_kind_name(unsigned int kind)
{
	static const char *const names[] = {
		[PTO_WAIT_STAGED] = "STAGED",
		[PTO_WAIT_RING_POP] = "RING_POP",
		[PTO_WAIT_RING_PUSH] = "RING_PUSH",
		[PTO_WAIT_BARRIER_HARD] = "BARRIER_HARD",
		[PTO_WAIT_BARRIER_SOFT] = "BARRIER_SOFT",
	};

	return kind < PTO_ARRAY_SIZE(names) && names[kind] ? names[kind] :
							     "UNKNOWN";
}

PTO_API bool pto_queue_sanitizing(const struct pto_queue *q)
{
	return q && q->cq.hazs;
}

PTO_API bool pto_queue_noncoherent(const struct pto_queue *q)
{
	return q && q->noncoherent;
}

PTO_API const char *pto_hazard_kind_name(unsigned int kind)
{
	static const char *const names[] = {
		[PTO_HAZARD_NONE] = "NONE",
		[PTO_HAZARD_STALE_READ] = "STALE_READ",
		[PTO_HAZARD_UNFENCED] = "UNFENCED",
		[PTO_HAZARD_PREDICATE] = "PREDICATE",
		[PTO_HAZARD_RACE] = "RACE",
	};

	return kind < PTO_ARRAY_SIZE(names) && names[kind] ? names[kind] :
							     "UNKNOWN";
}

static const char *pto_core_label(unsigned int type)
{
	return type == PTO_CORE_AIC ? "AIC" : type == PTO_CORE_AIV ? "AIV" : "?";
}

/* The hazard's text, then where in a launch each side was, if anywhere. */
static int pto_hazard_nodes(const struct pto_hazard *h, int n, char *buf,
			    size_t len)
{
	/* Past a truncation nothing more is written, only counted. */
	char *dst = n >= 0 && (size_t)n < len ? buf + n : NULL;
	size_t room = dst ? len - (size_t)n : 0;
	int m = 0;

	if (n < 0 || (!h->node && !h->other_node))
		return n;
	if (h->node && h->other_node)
		m = snprintf(dst, room, " [this launch's node %u; task %llu's node %u]",
			     h->node - 1u, (unsigned long long)h->other_task,
			     h->other_node - 1u);
	else if (h->node)
		m = snprintf(dst, room, " [this launch's node %u]", h->node - 1u);
	else
		m = snprintf(dst, room, " [task %llu's node %u]",
			     (unsigned long long)h->other_task, h->other_node - 1u);
	return m < 0 ? m : n + m;
}

static int pto_hazard_text(const struct pto_cqe *c, const struct pto_hazard *h,
			   char *buf, size_t len)
{
	const char *oc = pto_core_label(h->other_core_type);

	switch (h->kind) {
	case PTO_HAZARD_STALE_READ:
	case PTO_HAZARD_UNFENCED:
		return snprintf(buf, len,
				"task %llu block %u (%s%u) pc %u: load of arg %u [elem %llu] reads bytes block %u (%s%u) stored at pc %u %s (%s)",
				(unsigned long long)c->task_id, c->info.block,
				pto_core_label(c->info.core_type), c->info.core,
				h->pc, h->tensor, (unsigned long long)h->elem,
				h->other_block, oc, h->other_core, h->other_pc,
				h->kind == PTO_HAZARD_STALE_READ ?
				"and published by FENCE after this block's last CACHEINVALID" :
				"without a FENCE before this load could see them",
				pto_hazard_kind_name(h->kind));
	case PTO_HAZARD_PREDICATE:
		return snprintf(buf, len,
				"task %llu: predicate operand arg %u [elem %llu] is written by task %llu (arg %u), which is unfinished or not among its dependencies: the dispatch-point read can see stale data (PREDICATE)",
				(unsigned long long)c->task_id, h->tensor,
				(unsigned long long)h->elem,
				(unsigned long long)h->other_task,
				h->other_tensor);
	case PTO_HAZARD_RACE:
		return snprintf(buf, len,
				"task %llu: arg %u [elem %llu] overlaps arg %u of task %llu, one of them writing, with no dependency path between the two tasks (RACE)",
				(unsigned long long)c->task_id, h->tensor,
				(unsigned long long)h->elem, h->other_tensor,
				(unsigned long long)h->other_task);
	}
	return snprintf(buf, len, "task %llu block %u: hazard kind %u (%s)",
			(unsigned long long)c->task_id, c->info.block, h->kind,
			pto_hazard_kind_name(h->kind));
}

PTO_API int pto_hazard_str(const struct pto_cqe *c, const struct pto_hazard *h,
			   char *buf, size_t len)
{
	if (!c || !h || (len && !buf))
		return -EINVAL;
	return pto_hazard_nodes(h, pto_hazard_text(c, h, buf, len), buf, len);
}

PTO_API int pto_queue_reap(struct pto_queue *q, struct pto_cqe *out,
			   unsigned int max)
{
	return pto_queue_reap_hazards(q, out, NULL, NULL, max);
}

PTO_API int pto_queue_reap_prof(struct pto_queue *q, struct pto_cqe *out,
				struct pto_block_prof *prof, unsigned int max)
{
	return pto_queue_reap_hazards(q, out, prof, NULL, max);
}

void pto_hazard_from_drm(struct pto_hazard *out,
			 const struct drm_pto_npu_hazard *in)
{
	*out = (struct pto_hazard){
		.kind = in->kind,
		.count = in->count,
		.pc = in->pc,
		.tensor = in->tensor,
		.elem = in->elem,
		.other_task = in->other_task,
		.other_pc = in->other_pc,
		.other_block = in->other_block,
		.other_core = in->other_core,
		.other_core_type = in->other_core_type,
		.other_tensor = in->other_tensor,
		.node = in->node,
		.other_node = in->other_node,
	};
}

PTO_API int pto_queue_reap_hazards(struct pto_queue *q, struct pto_cqe *out,
				   struct pto_block_prof *prof,
				   struct pto_hazard *haz, unsigned int max)
{
	return pto_queue_reap_sched(q, out, prof, NULL, haz, max);
}

PTO_API int pto_queue_reap_sched(struct pto_queue *q, struct pto_cqe *out,
				 struct pto_block_prof *prof,
				 struct pto_sched_rec *sched,
				 struct pto_hazard *haz, unsigned int max)
{
	struct drm_pto_npu_cqe batch[32];
	struct drm_pto_npu_prof pbatch[32];
	struct drm_pto_npu_hazard hbatch[32];
	unsigned int done = 0;

	if (!q || (max && !out))
		return -EINVAL;
	if (max > INT32_MAX)
		max = INT32_MAX;
	while (done < max) {
		unsigned int want = max - done, i;
		int n;

		if (want > PTO_ARRAY_SIZE(batch))
			want = PTO_ARRAY_SIZE(batch);
		n = pto_cq_reap_ext(&q->cq, batch,
				    prof || sched ? pbatch : NULL,
				    haz ? hbatch : NULL, want);
		if (n < 0)
			return done ? (int)done : n;
		for (i = 0; i < (unsigned int)n; i++) {
			pto_cqe_from_drm(&out[done + i], &batch[i]);
			if (prof)
				pto_prof_from_drm(&prof[done + i], &pbatch[i]);
			if (sched)
				pto_sched_from_drm(&sched[done + i],
						   &pbatch[i].sched);
			if (haz)
				pto_hazard_from_drm(&haz[done + i], &hbatch[i]);
		}
		done += n;
		if ((unsigned int)n < want)
			break;
	}
	return (int)done;
}

PTO_API int pto_queue_wait(struct pto_queue *q, int64_t deadline_ns)
{
	uint32_t available, inflight;

	if (!q)
		return -EINVAL;
	return q->ops->wait(q, deadline_ns, &available, &inflight);
}
