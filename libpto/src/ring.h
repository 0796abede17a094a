/* SPDX-License-Identifier: MIT */
/*
 * The SQ and CQ rings of a dispatch queue, as plain memory: encoding of
 * SQ entries into 64-byte slots and reading of CQEs. No device here, so
 * the host unit tests run them over a ring in ordinary memory.
 */
#ifndef PTO_RING_H
#define PTO_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pto_npu_accel.h"

/**
 * struct pto_sq - the submission ring, as user space sees it
 * @slots: slot 0
 * @nslots: slots, a power of two
 * @head: slots the device has taken (device-owned, read with acquire)
 * @tail: slots published (ours, written with release)
 */
struct pto_sq {
	uint8_t *slots;
	uint32_t nslots;
	uint32_t *head;
	uint32_t *tail;
};

/**
 * struct pto_cq - the completion ring, as user space sees it
 * @cqes: CQE 0
 * @profs: profile record 0 (one per CQE), NULL unless the queue profiles
 * @prof_stride: bytes from one record to the next (the module's
 *		 prof_size; 0: sizeof(struct drm_pto_npu_prof)). A module's
 *		 record may be longer than ours (fields we do not know,
 *		 ignored) or shorter (an older module: ours past its end
 *		 read as zero).
 * @nentries: entries, a power of two
 * @head: CQEs consumed (ours, written with release)
 * @tail: CQEs posted (device-owned, read with acquire)
 */
struct pto_cq {
	struct drm_pto_npu_cqe *cqes;
	const void *profs;
	uint32_t prof_stride;
	const struct drm_pto_npu_hazard *hazs;
	uint32_t nentries;
	uint32_t *head;
	uint32_t *tail;
};

/**
 * struct pto_sqe_parts - one SQ entry before encoding
 * @hdr: header; the counts and flags say what follows, @hdr.num_slots is
 *	 filled in by pto_sq_push()
 * @tensors: @hdr.num_tensors tensor arguments
 * @scalars: @hdr.num_scalars scalars
 * @deps: @hdr.num_deps dependencies
 * @pred: the predicate, read when @hdr.flags has DRM_PTO_NPU_TASK_F_PREDICATE
 */
struct pto_sqe_parts {
	struct drm_pto_npu_sqe hdr;
	const struct drm_pto_npu_tensor_arg *tensors;
	const int64_t *scalars;
	const int64_t *deps;
	const struct drm_pto_npu_predicate *pred;
};

/**
 * pto_sqe_bytes() - bytes of an entry before padding
 * @num_tensors: tensor arguments
 * @num_scalars: scalars
 * @num_deps: dependencies
 * @pred: whether a predicate follows
 *
 * Return: the byte count.
 */
size_t pto_sqe_bytes(uint32_t num_tensors, uint32_t num_scalars,
		     uint32_t num_deps, bool pred);

/**
 * pto_sq_space() - free slots of an SQ
 * @sq: ring
 *
 * Return: slots not yet published or already taken by the device.
 */
uint32_t pto_sq_space(const struct pto_sq *sq);

/**
 * pto_sq_push() - encode one entry into the SQ and publish it
 * @sq: ring
 * @e: the entry; @e->hdr.num_slots is set
 *
 * Header, tensors, scalars, dependencies and predicate packed in that
 * order, zero-padded to a whole slot, wrapping at the ring's end; then a
 * release store of the tail.
 *
 * Return: 0; -EAGAIN when the ring has no room now; -E2BIG when the entry
 * is larger than the ring or than num_slots can say.
 */
int pto_sq_push(struct pto_sq *sq, struct pto_sqe_parts *e);

/**
 * pto_sq_push_raw() - publish raw bytes as one entry
 * @sq: ring
 * @bytes: the entry
 * @size: its length, > 0
 *
 * Return: 0, -EAGAIN, -E2BIG, or -EINVAL for a zero @size.
 */
int pto_sq_push_raw(struct pto_sq *sq, const void *bytes, size_t size);

/**
 * pto_sq_retract() - withdraw entries the device has not taken
 * @sq: ring
 *
 * Only when no doorbell can run concurrently: the device reads entries
 * between head and tail only when the doorbell rings.
 *
 * Return: the number of slots withdrawn.
 */
uint32_t pto_sq_retract(struct pto_sq *sq);

/**
 * pto_cq_reap() - copy out posted CQEs and free their space
 * @cq: ring
 * @out: room for @max CQEs
 * @max: at most this many
 *
 * Return: the number copied, or -EPROTO when the device's tail is more
 * than a ring ahead of the head.
 */
int pto_cq_reap(struct pto_cq *cq, struct drm_pto_npu_cqe *out,
		unsigned int max);

/**
 * pto_cq_reap_prof() - pto_cq_reap(), and each CQE's profile record
 * @cq: ring
 * @out: room for @max CQEs
 * @prof: room for @max records (zeroed without @cq->profs), or NULL
 * @max: at most this many
 *
 * Return: as pto_cq_reap().
 */
int pto_cq_reap_prof(struct pto_cq *cq, struct drm_pto_npu_cqe *out,
		     struct drm_pto_npu_prof *prof, unsigned int max);

/**
 * pto_cq_reap_ext() - pto_cq_reap_prof(), and each CQE's hazard record
 * @cq: ring
 * @out: room for @max CQEs
 * @prof: room for @max profile records, or NULL
 * @haz: room for @max hazard records (zeroed without @cq->hazs), or NULL
 * @max: at most this many
 *
 * Return: as pto_cq_reap().
 */
int pto_cq_reap_ext(struct pto_cq *cq, struct drm_pto_npu_cqe *out,
		    struct drm_pto_npu_prof *prof,
		    struct drm_pto_npu_hazard *haz, unsigned int max);

#endif /* PTO_RING_H */
