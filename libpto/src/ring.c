// SPDX-License-Identifier: MIT
/*
 * SQ entry encoding and CQE reading over the shared rings. The indices are
 * free-running u32 counters masked by the ring size; each side publishes
 * its own index with a release store and reads the other's with an
 * acquire load, so the bytes behind an index are visible before it is.
 */
#include <errno.h>
#include <string.h>

#include "ring.h"

#define PTO_SLOT DRM_PTO_NPU_SQ_SLOT_SIZE

_Static_assert(sizeof(struct drm_pto_npu_sqe) == PTO_SLOT,
	       "the SQ entry header is one slot");
_Static_assert(sizeof(struct drm_pto_npu_tensor_arg) % 8 == 0,
	       "tensor arguments keep the scalars 8-byte aligned");
_Static_assert(sizeof(struct drm_pto_npu_predicate) % 8 == 0,
	       "the predicate is 8-byte aligned");

/* Writes bytes at a position of the ring, wrapping at its end. */
struct pto_sq_cursor {
	uint8_t *base;
	size_t size;
	size_t pos;
};

static void pto_cursor_write(struct pto_sq_cursor *c, const void *src, size_t n)
{
	const uint8_t *p = src;

	while (n) {
		size_t room = c->size - c->pos;
		size_t chunk = n < room ? n : room;

		if (p)
			memcpy(c->base + c->pos, p, chunk);
		else
			memset(c->base + c->pos, 0, chunk);
		c->pos = (c->pos + chunk) % c->size;
		if (p)
			p += chunk;
		n -= chunk;
	}
}

size_t pto_sqe_bytes(uint32_t num_tensors, uint32_t num_scalars,
		     uint32_t num_deps, bool pred)
{
	return sizeof(struct drm_pto_npu_sqe) +
	       (size_t)num_tensors * sizeof(struct drm_pto_npu_tensor_arg) +
	       (size_t)num_scalars * sizeof(int64_t) +
	       (size_t)num_deps * sizeof(int64_t) +
	       (pred ? sizeof(struct drm_pto_npu_predicate) : 0);
}

static uint32_t pto_sq_tail(const struct pto_sq *sq)
{
	/* Only this side writes the tail. */
	return __atomic_load_n(sq->tail, __ATOMIC_RELAXED);
}

uint32_t pto_sq_space(const struct pto_sq *sq)
{
	uint32_t head = __atomic_load_n(sq->head, __ATOMIC_ACQUIRE);
	uint32_t used = pto_sq_tail(sq) - head;

	/* A head past the tail is the device's bug: claim no room. */
	return used > sq->nslots ? 0 : sq->nslots - used;
}

/* Room for @slots slots, and a cursor at the tail. */
static int pto_sq_reserve(struct pto_sq *sq, size_t slots,
			  struct pto_sq_cursor *c)
{
	if (slots > sq->nslots || slots > UINT16_MAX)
		return -E2BIG;
	if (slots > pto_sq_space(sq))
		return -EAGAIN;
	c->base = sq->slots;
	c->size = (size_t)sq->nslots * PTO_SLOT;
	c->pos = (size_t)(pto_sq_tail(sq) & (sq->nslots - 1)) * PTO_SLOT;
	return 0;
}

static void pto_sq_publish(struct pto_sq *sq, uint32_t slots)
{
	__atomic_store_n(sq->tail, pto_sq_tail(sq) + slots, __ATOMIC_RELEASE);
}

int pto_sq_push(struct pto_sq *sq, struct pto_sqe_parts *e)
{
	struct drm_pto_npu_sqe *h = &e->hdr;
	bool pred = h->flags & DRM_PTO_NPU_TASK_F_PREDICATE;
	size_t bytes = pto_sqe_bytes(h->num_tensors, h->num_scalars,
				     h->num_deps, pred);
	size_t slots = (bytes + PTO_SLOT - 1) / PTO_SLOT;
	struct pto_sq_cursor c;
	int ret;

	ret = pto_sq_reserve(sq, slots, &c);
	if (ret)
		return ret;
	h->num_slots = (uint16_t)slots;

	pto_cursor_write(&c, h, sizeof(*h));
	pto_cursor_write(&c, e->tensors, h->num_tensors * sizeof(*e->tensors));
	pto_cursor_write(&c, e->scalars, h->num_scalars * sizeof(*e->scalars));
	pto_cursor_write(&c, e->deps, h->num_deps * sizeof(*e->deps));
	if (pred)
		pto_cursor_write(&c, e->pred, sizeof(*e->pred));
	pto_cursor_write(&c, NULL, slots * PTO_SLOT - bytes);

	pto_sq_publish(sq, (uint32_t)slots);
	return 0;
}

int pto_sq_push_raw(struct pto_sq *sq, const void *bytes, size_t size)
{
	size_t slots = (size + PTO_SLOT - 1) / PTO_SLOT;
	struct pto_sq_cursor c;
	int ret;

	if (!size)
		return -EINVAL;
	ret = pto_sq_reserve(sq, slots, &c);
	if (ret)
		return ret;
	pto_cursor_write(&c, bytes, size);
	pto_cursor_write(&c, NULL, slots * PTO_SLOT - size);
	pto_sq_publish(sq, (uint32_t)slots);
	return 0;
}

uint32_t pto_sq_retract(struct pto_sq *sq)
{
	uint32_t head = __atomic_load_n(sq->head, __ATOMIC_ACQUIRE);
	uint32_t tail = pto_sq_tail(sq);

	if (tail - head > sq->nslots)
		return 0;
	__atomic_store_n(sq->tail, head, __ATOMIC_RELEASE);
	return tail - head;
}

int pto_cq_reap(struct pto_cq *cq, struct drm_pto_npu_cqe *out,
		unsigned int max)
{
	return pto_cq_reap_prof(cq, out, NULL, max);
}

int pto_cq_reap_prof(struct pto_cq *cq, struct drm_pto_npu_cqe *out,
		     struct drm_pto_npu_prof *prof, unsigned int max)
{
	return pto_cq_reap_ext(cq, out, prof, NULL, max);
}

int pto_cq_reap_ext(struct pto_cq *cq, struct drm_pto_npu_cqe *out,
		    struct drm_pto_npu_prof *prof,
		    struct drm_pto_npu_hazard *haz, unsigned int max)
{
	uint32_t tail = __atomic_load_n(cq->tail, __ATOMIC_ACQUIRE);
	uint32_t head = __atomic_load_n(cq->head, __ATOMIC_RELAXED);
	uint32_t avail = tail - head, n, i;
	size_t stride, take;

	if (avail > cq->nentries)
		return -EPROTO;
	n = avail < max ? avail : max;
	for (i = 0; i < n; i++)
		out[i] = cq->cqes[(head + i) & (cq->nentries - 1)];
	/* Records prof_stride apart; what ours has past theirs reads 0. */
	stride = cq->prof_stride ? cq->prof_stride : sizeof(*prof);
	take = stride < sizeof(*prof) ? stride : sizeof(*prof);
	for (i = 0; prof && i < n; i++) {
		memset(&prof[i], 0, sizeof(prof[i]));
		if (cq->profs)
			memcpy(&prof[i], (const uint8_t *)cq->profs +
				 ((head + i) & (cq->nentries - 1)) * stride,
			       take);
	}
	for (i = 0; haz && i < n; i++) {
		if (cq->hazs)
			haz[i] = cq->hazs[(head + i) & (cq->nentries - 1)];
		else
			memset(&haz[i], 0, sizeof(haz[i]));
	}
	if (n)
		__atomic_store_n(cq->head, head + n, __ATOMIC_RELEASE);
	return (int)n;
}
