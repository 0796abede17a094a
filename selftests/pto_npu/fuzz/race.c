// SPDX-License-Identifier: GPL-2.0-only
/*
 * The threads of race_close_submit_wait: push (half the entries as
 * early-resolve chains), ring, reap and wait on a file that another thread
 * closes; one of the queues has a one-entry CQ, so completions are held.
 *
 * Copyright (C) 2026 pto-npu authors
 */
#include "fuzz.h"

static const int E_RACE_SUBMIT[] = { EINVAL, ENOENT, ENOMEM, EBADF, 0 };
static const int E_RACE_WAIT[] = { EINVAL, ENOENT, ETIME, EINTR, EBADF, 0 };

/*
 * An early-resolve link: the entry reads in and updates out, so the good
 * entries of a burst form a chain of inferred dependencies, each consumer
 * pre-staged behind its flagged producer. Its producer's completion is
 * then posted by the consumer's worker, racing QUEUE_WAIT, the reaping and
 * close() (issue #29, finding 1).
 */
static void fz_race_chain(struct pto_test_sqe *e)
{
	struct drm_pto_npu_tensor_arg *t = (void *)(&e->hdr + 1);

	e->hdr.flags |= DRM_PTO_NPU_TASK_F_EARLY_RESOLVE;
	t[0].flags = DRM_PTO_NPU_TENSOR_F_IN;
	t[1].flags = DRM_PTO_NPU_TENSOR_F_IN | DRM_PTO_NPU_TENSOR_F_OUT;
}

void *fz_race_thread(void *arg)
{
	struct fz_race *x = arg;
	struct fz_rng r = { .s = x->seed };
	struct fz_cqe_seen seen = { 0 };

	while (!__atomic_load_n(&x->stop, __ATOMIC_ACQUIRE)) {
		struct drm_pto_npu_queue_wait w = {
			.queue_id = x->q->c.queue_id,
			.timeout_ns = pto_test_now_ns() + PTO_TEST_MSEC(1 + fz_below(&r, 3)),
		};
		int ret;

		if (!x->waiter) {
			struct pto_test_sqe e;
			uint32_t n = fz_good_entry(&e, x->kernel, x->in, x->out,
						   fz_next(&r) & ~FZ_PRISTINE_MASK);
			uint32_t i, burst = 1 + fz_below(&r, 4);

			if (fz_pct(&r, 50))
				fz_race_chain(&e);

			for (i = 0; i < burst && fz_q_room(x->q, n); i++)
				fz_q_push(x->q, &e, n);
			ret = fz_q_doorbell(x->fd, x->q, 0, 0, NULL, NULL);
			fz_note(FZ_QUEUE_SUBMIT, ret, E_RACE_SUBMIT, "racing doorbell");
			if (ret == -EBADF)
				break;
		}
		ret = fz_ioctl(x->fd, DRM_IOCTL_PTO_NPU_QUEUE_WAIT, &w);
		fz_note(FZ_QUEUE_WAIT, ret, E_RACE_WAIT, "racing wait");
		if (ret == -EBADF)
			break;
		if (!x->waiter)
			fz_q_reap(x->q, &seen);
	}
	return NULL;
}
