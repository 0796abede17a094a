// SPDX-License-Identifier: GPL-2.0-only
/*
 * A queue driven through its mapped ring as user space may drive it
 * (pushes, scribbles on the header, doorbells, reaps), the checks of every
 * CQE read, and the good task every test runs amid the fuzz.
 *
 * Copyright (C) 2026 pto-npu authors
 */
#include <string.h>
#include <sys/mman.h>

#include "fuzz.h"

int fz_q_open_budget(int fd, uint32_t sq, uint32_t cq, uint64_t budget,
		     struct fz_q *q)
{
	int ret;

	memset(q, 0, sizeof(*q));
	q->c.sq_slots = sq;
	q->c.cq_entries = cq;
	q->c.work_budget = budget;
	ret = fz_ioctl(fd, DRM_IOCTL_PTO_NPU_QUEUE_CREATE, &q->c);
	if (ret)
		return ret;
	q->map = mmap(NULL, q->c.ring_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		      fd, (off_t)q->c.mmap_offset);
	if (q->map == MAP_FAILED) {
		q->map = NULL;
		return -errno;
	}
	q->hdr = (struct drm_pto_npu_ring_header *)q->map;
	q->sq = q->map + q->c.sq_offset;
	q->cq = (struct drm_pto_npu_cqe *)(q->map + q->c.cq_offset);
	return 0;
}

/* Random kernels that never end stop after FZ_WORK_BUDGET instructions. */
int fz_q_open(int fd, uint32_t sq, uint32_t cq, struct fz_q *q)
{
	return fz_q_open_budget(fd, sq, cq, FZ_WORK_BUDGET, q);
}

/* Unmaps, destroys, closes the ring handle. Returns QUEUE_DESTROY's result. */
int fz_q_close(int fd, struct fz_q *q)
{
	struct drm_pto_npu_queue_destroy d = { .queue_id = q->c.queue_id };
	int ret;

	if (q->map)
		munmap(q->map, q->c.ring_size);
	q->map = NULL;
	ret = fz_ioctl(fd, DRM_IOCTL_PTO_NPU_QUEUE_DESTROY, &d);
	pto_test_gem_close(fd, q->c.handle);
	return ret;
}

uint32_t fz_q_sq_head(const struct fz_q *q)
{
	return __atomic_load_n(&q->hdr->sq_head, __ATOMIC_ACQUIRE);
}

bool fz_q_room(const struct fz_q *q, uint32_t n)
{
	return q->tail - fz_q_sq_head(q) + n <= q->c.sq_slots;
}

/* Writes @n slots of @e at our tail and publishes them. */
void fz_q_push(struct fz_q *q, const void *e, uint32_t n)
{
	uint32_t i, mask = q->c.sq_slots - 1;

	for (i = 0; i < n; i++)
		memcpy(q->sq + ((q->tail + i) & mask) * DRM_PTO_NPU_SQ_SLOT_SIZE,
		       (const uint8_t *)e + i * DRM_PTO_NPU_SQ_SLOT_SIZE,
		       DRM_PTO_NPU_SQ_SLOT_SIZE);
	q->tail += n;
	__atomic_store_n(&q->hdr->sq_tail, q->tail, __ATOMIC_RELEASE);
}

/*
 * Entries the kernel has taken stay in the SQ's memory, and a scribbled
 * tail may hand them in again, cut short or twice: such a rerun is fuzz,
 * not an untouched entry. With nothing pending, mark every header there
 * as stale.
 */
void fz_q_unmark(struct fz_q *q)
{
	uint32_t i;

	for (i = 0; i < q->c.sq_slots; i++) {
		struct drm_pto_npu_sqe *e = (void *)(q->sq + (size_t)i *
						     DRM_PTO_NPU_SQ_SLOT_SIZE);

		if ((e->user_data & FZ_PRISTINE_MASK) == FZ_PRISTINE)
			e->user_data = FZ_STALE | (e->user_data & ~FZ_PRISTINE_MASK);
	}
}

/* After a doorbell with a scribbled header: our indices back in the ring. */
void fz_q_resync(struct fz_q *q)
{
	uint32_t h = fz_q_sq_head(q);

	/* The kernel may have taken stale slots past our tail. */
	if ((int32_t)(h - q->tail) > 0)
		q->tail = h;
	q->hdr->cq_head = q->head;
	__atomic_store_n(&q->hdr->sq_tail, q->tail, __ATOMIC_RELEASE);
}

int fz_q_doorbell(int fd, struct fz_q *q, uint32_t syncobj,
		  uint64_t point, uint32_t *consumed, uint64_t *first)
{
	struct drm_pto_npu_queue_submit s = {
		.queue_id = q->c.queue_id, .syncobj = syncobj,
		.syncobj_point = point,
	};
	int ret = fz_ioctl(fd, DRM_IOCTL_PTO_NPU_QUEUE_SUBMIT, &s);

	if (consumed)
		*consumed = s.consumed;
	if (first)
		*first = s.first_task_id;
	return ret;
}

static void fz_check_cqe(const struct drm_pto_npu_cqe *c, struct fz_cqe_seen *s)
{
	bool last = c->flags & DRM_PTO_NPU_CQE_F_LAST;

	fz_count(FZ_CQE);
	s->cqes++;
	if (c->status < 0 || c->status > DRM_PTO_NPU_STATUS_WORKSPACE) {
		fz_unexpected(FZ_CQE, "task %llu: status %d",
			      (unsigned long long)c->task_id, c->status);
		return;
	}
	/*
	 * HAZARD: under the sanitizer (make check), random tasks with no
	 * dependencies on shared buffers race, and intake says so. GRAPH: a
	 * random flag word with DRM_PTO_NPU_TASK_F_GRAPH is a launch (of no
	 * graph: refused), whose one CQE says so, and only on its LAST one.
	 */
	if (c->flags & ~(uint32_t)(DRM_PTO_NPU_CQE_F_LAST | DRM_PTO_NPU_CQE_F_RAN |
				   DRM_PTO_NPU_CQE_F_STAGED |
				   DRM_PTO_NPU_CQE_F_HAZARD |
				   DRM_PTO_NPU_CQE_F_GRAPH) ||
	    ((c->flags & DRM_PTO_NPU_CQE_F_GRAPH) && !last))
		fz_unexpected(FZ_CQE, "task %llu: flags 0x%x",
			      (unsigned long long)c->task_id, c->flags);
	if (c->core_type > PTO_CORE_AIC)
		fz_unexpected(FZ_CQE, "task %llu: core_type %u",
			      (unsigned long long)c->task_id, c->core_type);
	if (!last) {
		if (c->reason)
			fz_unexpected(FZ_CQE, "task %llu: reason %u on a non-LAST CQE",
				      (unsigned long long)c->task_id, c->reason);
		return;
	}
	s->lasts++;
	s->status[c->status]++;
	if ((c->status == DRM_PTO_NPU_STATUS_INVALID) != (c->reason != 0) ||
	    c->reason > DRM_PTO_NPU_REASON_BINDING)
		fz_unexpected(FZ_CQE, "task %llu: status %d with reason %u",
			      (unsigned long long)c->task_id, c->status, c->reason);
	if ((c->user_data & FZ_PRISTINE_MASK) == FZ_PRISTINE) {
		s->pristine++;
		if (c->status != DRM_PTO_NPU_STATUS_OK)
			fz_unexpected(FZ_CQE,
				      "valid entry (task %llu) among fuzzed ones: status %d reason %u detail %llu",
				      (unsigned long long)c->task_id, c->status,
				      c->reason, (unsigned long long)c->detail);
	}
	if (s->last)
		s->last(s->arg, c);
}

void fz_q_reap(struct fz_q *q, struct fz_cqe_seen *s)
{
	uint32_t tail = __atomic_load_n(&q->hdr->cq_tail, __ATOMIC_ACQUIRE);

	/*
	 * The kernel never posts more than the CQ holds past our head, unless
	 * we lied about the head: then what was overwritten is lost.
	 */
	if (tail - q->head > q->c.cq_entries) {
		if (!q->scribbled)
			fz_unexpected(FZ_CQE, "cq_tail %u is %u past cq_head %u (%u entries)",
				      tail, tail - q->head, q->head, q->c.cq_entries);
		q->head = tail - q->c.cq_entries;
	}
	for (; q->head != tail; q->head++)
		fz_check_cqe(&q->cq[q->head & (q->c.cq_entries - 1)], s);
	__atomic_store_n(&q->hdr->cq_head, q->head, __ATOMIC_RELEASE);
}

/*
 * Ring and wait until every published entry is taken and every task of the
 * queue has posted all its CQEs, checking each. 0, or -ETIME.
 */
int fz_q_drain(int fd, struct fz_q *q, struct fz_cqe_seen *s,
	       int64_t timeout_ns)
{
	int64_t deadline = pto_test_now_ns() + timeout_ns;

	/* Undo any scribbling on the header. */
	q->hdr->cq_head = q->head;
	__atomic_store_n(&q->hdr->sq_tail, q->tail, __ATOMIC_RELEASE);
	for (;;) {
		struct drm_pto_npu_queue_wait w = {
			.queue_id = q->c.queue_id,
			.timeout_ns = pto_test_now_ns() + PTO_TEST_MSEC(20),
		};
		int ret;

		ret = fz_q_doorbell(fd, q, 0, 0, NULL, NULL);
		fz_note(FZ_QUEUE_SUBMIT, ret, E_SUBMIT, "drain doorbell");
		ret = fz_ioctl(fd, DRM_IOCTL_PTO_NPU_QUEUE_WAIT, &w);
		fz_note(FZ_QUEUE_WAIT, ret, E_WAIT, "drain wait");
		fz_q_reap(q, s);
		if (ret == -ETIME && !w.inflight && fz_q_sq_head(q) == q->tail &&
		    !q->hdr->cq_held &&
		    __atomic_load_n(&q->hdr->cq_tail, __ATOMIC_ACQUIRE) == q->head) {
			q->scribbled = false;
			return 0;
		}
		if (pto_test_now_ns() > deadline)
			return -ETIME;
	}
}

/* out[0, j] = in[0, j] * 3 + arg0 for j < 16: g0 in, g1 out (int32). */
static const struct pto_insn fz_good_prog[] = {
	INSN(PTO_OP_ARG, 4, 0, 0, 0, 0, 0, 0),
	INSN(PTO_OP_LDI, 1, 0, 0, 0, 0, 0, 0),
	INSN(PTO_OP_LOOP, 2, 0, 0, 0, 0, PTO_INSN_F_IMM, 16),
	INSN(PTO_OP_GLD, 3, 1, 2, 0, 0, 0, 0),
	INSN(PTO_OP_ALU, 3, 3, 0, 0, PTO_ALU_MUL, PTO_INSN_F_IMM, 3),
	INSN(PTO_OP_ALU, 3, 3, 4, 0, PTO_ALU_ADD, 0, 0),
	INSN(PTO_OP_GST, 0, 1, 2, 3, 0, 0, 1),
	INSN(PTO_OP_ENDLOOP, 0, 0, 0, 0, 0, 0, 0),
	INSN(PTO_OP_END, 0, 0, 0, 0, 0, 0, 0),
};

static const struct pto_insn fz_end_prog[] = {
	INSN(PTO_OP_END, 0, 0, 0, 0, 0, 0, 0),
};

int fz_good_kernel(int fd, uint32_t *handle)
{
	return fz_kernel_create(fd, PTO_CORE_AIV, fz_good_prog,
				FZ_N(fz_good_prog), NULL, 0, handle);
}

int fz_end_kernel(int fd, uint32_t core, uint32_t *handle)
{
	return fz_kernel_create(fd, core, fz_end_prog, 1, NULL, 0, handle);
}

/* The good task's entry: in, out int32 [1, 16] in buffers @in and @out. */
uint32_t fz_good_entry(struct pto_test_sqe *e, uint32_t kernel, uint32_t in,
		       uint32_t out, uint64_t user_data)
{
	struct drm_pto_npu_tensor_arg t[2] = {
		pto_test_targ(in, PTO_ISA_I32, 0, 1, FZ_GOOD_COLS),
		pto_test_targ(out, PTO_ISA_I32, 0, 1, FZ_GOOD_COLS),
	};
	int64_t arg = FZ_GOOD_ARG;

	pto_test_sqe_init(e, kernel, 0, 1, t, 2, &arg, 1,
			  NULL, 0);
	e->hdr.user_data = user_data;
	return e->hdr.num_slots;
}
