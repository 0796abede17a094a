// SPDX-License-Identifier: GPL-2.0-only
/*
 * SQ entries for sq_entries: what they name, valid variants of the good
 * task and single corruptions of a valid entry.
 *
 * Copyright (C) 2026 pto-npu authors
 */
#include <string.h>

#include "fuzz.h"

/* A valid entry other than the good task (not pristine: no result check). */
uint32_t fz_valid_variant(struct fz_rng *r, struct pto_test_sqe *e,
			  const struct fz_res *res)
{
	struct drm_pto_npu_tensor_arg t[2] = {
		pto_test_targ(res->in, PTO_ISA_I32, 0, 1, FZ_GOOD_COLS),
		pto_test_targ(res->out, PTO_ISA_I32, 0, 1, FZ_GOOD_COLS),
	};
	struct drm_pto_npu_predicate pred = { 0 };
	int64_t deps[4], arg = fz_below(r, 100);
	uint32_t nd = fz_below(r, 3), i, k = fz_below(r, 4);

	for (i = 0; i < nd; i++)
		deps[i] = -(int64_t)(1 + fz_below(r, 8));
	pred.tensor = 0;
	pred.op = (uint8_t)fz_below(r, PTO_CMP_LE + 1);
	pred.col = fz_below(r, FZ_GOOD_COLS);
	pred.literal = fz_below(r, 8) - 4;
	switch (k) {
	case 0: /* the good kernel, deps and maybe a predicate */
		pto_test_sqe_init_pred(e, res->kgood, 0,
				       1 + fz_below(r, 4), t, 2, &arg, 1, deps,
				       nd, fz_pct(r, 50) ? &pred : NULL);
		break;
	case 1: /* END, several blocks, maybe all at once */
		pto_test_sqe_init(e, res->kend_aiv, 0,
				  1 + fz_below(r, 16), NULL, 0, NULL, 0, deps, nd);
		if (fz_pct(r, 30)) {
			e->hdr.flags = DRM_PTO_NPU_TASK_F_SYNC_START;
			e->hdr.block_num = 1 + fz_below(r, res->cores[0]);
		}
		break;
	case 2: /* mixed */
		pto_test_sqe_init(e, res->kend_aiv,
				  res->kend_aic, 1 + fz_below(r, 4), NULL, 0,
				  NULL, 0, deps, nd);
		e->hdr.split_mode = (uint8_t)fz_below(r, 2);
		e->hdr.slot_num = (uint16_t)fz_below(r, 9);
		break;
	default: /* AIC alone, early resolve */
		pto_test_sqe_init(e, 0, res->kend_aic,
				  1 + fz_below(r, 4), NULL, 0, NULL, 0, deps, nd);
		e->hdr.flags = DRM_PTO_NPU_TASK_F_EARLY_RESOLVE;
		break;
	}
	e->hdr.user_data = fz_next(r) & ~FZ_PRISTINE_MASK;
	return e->hdr.num_slots;
}

static uint32_t fz_bad_kernel(struct fz_rng *r, const struct fz_res *res)
{
	const uint32_t k[] = { 0, res->kforeign, res->kdead, res->kend_aic,
			       res->kend_aiv, res->kgood, UINT32_MAX,
			       (uint32_t)fz_int(r) };

	return k[fz_below(r, FZ_N(k))];
}

static uint32_t fz_bad_bo(struct fz_rng *r, const struct fz_res *res)
{
	bool live;
	const uint32_t h[] = { 0, res->ring, res->foreign_bo, res->kgood,
			       fz_pool_pick(r, &res->bos, &live), UINT32_MAX,
			       (uint32_t)fz_int(r), res->in };

	return h[fz_below(r, FZ_N(h))];
}

/* Corrupt one field of a valid entry of @slots slots. */
void fz_mutate_entry(struct fz_rng *r, struct pto_test_sqe *e, uint32_t slots,
		     const struct fz_res *res)
{
	struct drm_pto_npu_sqe *h = &e->hdr;
	uint32_t nt = h->num_tensors, ns = h->num_scalars, nd = h->num_deps;
	struct drm_pto_npu_tensor_arg *t = (void *)e->body;
	int64_t *sc = (int64_t *)(e->body + nt * sizeof(*t));
	struct drm_pto_npu_predicate *p = (void *)(sc + ns + nd);
	uint32_t k = fz_below(r, 12);

	switch (k) {
	case 0:
		switch (fz_below(r, 10)) {
		case 0:
			h->kernel_aiv = fz_bad_kernel(r, res);
			break;
		case 1:
			h->kernel_aic = fz_bad_kernel(r, res);
			break;
		case 2:
			h->flags = fz_pct(r, 50) ? 1u << fz_below(r, 32) :
						   (uint32_t)fz_int(r);
			break;
		case 3: {
			const uint32_t b[] = { 0, 8193, UINT32_MAX, 64, 200,
					       res->cores[0] + 1 };

			/* The largest launch takes 20+ s under TCG: make fuzz only. */
			h->block_num = res->long_run && fz_pct(r, 2) ? 8192 :
				       b[fz_below(r, FZ_N(b))];
			if (fz_pct(r, 50))
				h->flags |= DRM_PTO_NPU_TASK_F_SYNC_START;
			break;
		}
		case 4:
			h->split_mode = (uint8_t)fz_int(r);
			break;
		case 5:
			h->slot_num = (uint16_t)fz_int(r);
			break;
		case 6:
			h->reserved[fz_below(r, 4)] = fz_int(r) | 1;
			break;
		case 7:
			h->flags |= DRM_PTO_NPU_TASK_F_PREDICATE;
			break;
		default:
			h->user_data = fz_next(r);
			break;
		}
		break;
	case 1:
	case 2:
		if (!nt)
			break;
		t += fz_below(r, nt);
		switch (fz_below(r, 8)) {
		case 0:
			t->handle = fz_bad_bo(r, res);
			break;
		case 1:
			t->dtype = (uint8_t)fz_int(r);
			break;
		case 2:
			t->ndim = (uint8_t)fz_int(r);
			break;
		case 3:
			t->flags = (uint16_t)fz_int(r) | 1;
			break;
		case 4:
			t->offset = fz_pct(r, 50) ? fz_below(r, 8192) : fz_int(r);
			break;
		case 5:
			t->shape[fz_below(r, 4)] = (uint32_t)fz_int(r);
			break;
		case 6:
			t->strides[fz_below(r, 4)] = (uint32_t)fz_int(r);
			break;
		default:
			/* A valid 4-D layout that still fits, or not. */
			t->ndim = 4;
			t->shape[0] = 1 + fz_below(r, 2);
			t->shape[1] = 1 + fz_below(r, 2);
			t->shape[2] = 1 + fz_below(r, 4);
			t->shape[3] = 1 + fz_below(r, 64);
			break;
		}
		break;
	case 3:
		if (ns)
			sc[fz_below(r, ns)] = (int64_t)fz_int(r);
		break;
	case 4:
		/* Dependencies: zero, the future, far past, random. */
		if (nd)
			sc[ns + fz_below(r, nd)] = fz_pct(r, 50) ?
				-(int64_t)fz_below(r, 1000) : (int64_t)fz_int(r);
		break;
	case 5:
		if (h->flags & DRM_PTO_NPU_TASK_F_PREDICATE)
			fz_flip(r, p, sizeof(*p));
		break;
	case 6:
		/* Counts past the caps or past the slots. */
		switch (fz_below(r, 3)) {
		case 0:
			h->num_tensors = (uint8_t)fz_int(r);
			break;
		case 1:
			h->num_scalars = (uint8_t)fz_int(r);
			break;
		default:
			h->num_deps = (uint8_t)fz_int(r);
			break;
		}
		break;
	case 7: {
		const uint16_t n[] = { 0, 1, (uint16_t)(slots - 1), (uint16_t)(slots + 1),
				       PTO_TEST_SQE_MAX_SLOTS, PTO_TEST_SQE_MAX_SLOTS + 1,
				       0xffff, (uint16_t)fz_int(r) };

		h->num_slots = n[fz_below(r, FZ_N(n))];
		break;
	}
	case 8:
	case 9:
		fz_flip(r, e, slots * DRM_PTO_NPU_SQ_SLOT_SIZE);
		break;
	default:
		fz_bytes(r, e->body, (slots - 1) * DRM_PTO_NPU_SQ_SLOT_SIZE);
		if (fz_pct(r, 50))
			fz_bytes(r, &e->hdr, sizeof(e->hdr));
		break;
	}
}

int fz_res_init(struct fz_res *res, int fd, int fd2,
		const struct drm_pto_npu_device_info *info)
{
	uint32_t h;
	int ret;

	memset(res, 0, sizeof(*res));
	res->cores[0] = info->aiv_cores;
	res->cores[1] = info->aic_cores;
	ret = fz_good_kernel(fd, &res->kgood) ?:
	      fz_end_kernel(fd, PTO_CORE_AIV, &res->kend_aiv) ?:
	      fz_end_kernel(fd, PTO_CORE_AIC, &res->kend_aic) ?:
	      fz_end_kernel(fd, PTO_CORE_AIV, &res->kdead) ?:
	      fz_kernel_destroy(fd, res->kdead) ?:
	      fz_end_kernel(fd2, PTO_CORE_AIV, &h);
	if (ret)
		return ret;
	/* A handle the other file has and this one does not. */
	res->kforeign = h;
	while (res->kforeign == res->kgood || res->kforeign == res->kend_aiv ||
	       res->kforeign == res->kend_aic) {
		ret = fz_end_kernel(fd2, PTO_CORE_AIV, &res->kforeign);
		if (ret)
			return ret;
	}
	ret = pto_test_bo_create(fd, 4096, &res->in, NULL) ?:
	      pto_test_bo_create(fd, 4096, &res->out, NULL) ?:
	      pto_test_bo_create(fd2, 8192, &res->foreign_bo, NULL);
	return ret;
}
