// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tasks of random kernels run to their end (verifier_programs_run,
 * hostile_kernels): tensor buffers with guard pages, the LAST CQE.
 *
 * Copyright (C) 2026 pto-npu authors
 */
#include <string.h>

#include "fuzz.h"

int fz_slot_init(int fd, struct fz_slot *s)
{
	size_t page = pto_test_page_size();
	uint64_t size;
	int ret = pto_test_bo_create(fd, 3 * page, &s->handle, &size);

	if (ret)
		return ret;
	s->size = size;
	s->map = pto_test_bo_mmap(fd, s->handle, NULL);
	if (s->map == MAP_FAILED)
		return -errno;
	memset(s->map, FZ_GUARD_BYTE, s->size);
	return 0;
}

bool fz_slot_guards_ok(const struct fz_slot *s, size_t view_bytes)
{
	size_t page = pto_test_page_size();

	fz_count(FZ_GM_GUARD);
	return pto_test_all_bytes(s->map, page, FZ_GUARD_BYTE) &&
	       pto_test_all_bytes(s->map + page + view_bytes,
				  s->size - page - view_bytes, FZ_GUARD_BYTE);
}

void fz_run_last_cb(void *arg, const struct drm_pto_npu_cqe *c)
{
	struct fz_run_last *l = arg;

	l->status = (uint32_t)c->status;
	l->reason = c->reason;
	l->detail = c->detail;
	l->seen++;
}

/* Statuses a task of an accepted random kernel may end with. */
bool fz_run_status_ok(uint32_t s)
{
	switch (s) {
	case DRM_PTO_NPU_STATUS_OK:
	case DRM_PTO_NPU_STATUS_INVALID:
	case DRM_PTO_NPU_STATUS_GM_FAULT:
	case DRM_PTO_NPU_STATUS_TIMEOUT:
	case DRM_PTO_NPU_STATUS_WORK_BUDGET:
	case DRM_PTO_NPU_STATUS_ARITH_FAULT:
	case DRM_PTO_NPU_STATUS_LOOP_FAULT:
	case DRM_PTO_NPU_STATUS_BARRIER_FAULT:
	case DRM_PTO_NPU_STATUS_WORKSPACE:
		return true;
	}
	return false;
}
