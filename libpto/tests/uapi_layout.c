// SPDX-License-Identifier: MIT
/*
 * The uapi structures' layout, as the module asserts it too
 * (kmod/pto_drv.c): sizes and the offsets that padding keeps the same for
 * 32-bit and 64-bit user space. The size-negotiated query copies a prefix:
 * a structure only ever grows at its end, so an older binary's smaller
 * structure reads the fields it knows where it knows them.
 */
#include <stddef.h>

#include <pto_npu_accel.h>

#include "tap.h"

#define SIZE_IS(s, n) _Static_assert(sizeof(struct s) == (n), #s " is " #n " bytes")

SIZE_IS(drm_pto_npu_query, 24);
SIZE_IS(drm_pto_npu_device_info, 48);
SIZE_IS(drm_pto_npu_limits, 120);
SIZE_IS(drm_pto_npu_memory_info, 32);
SIZE_IS(drm_pto_npu_counters, 96);
SIZE_IS(drm_pto_npu_bo_create, 16);
SIZE_IS(drm_pto_npu_bo_info, 24);
SIZE_IS(drm_pto_npu_kernel_create, 64);
SIZE_IS(drm_pto_npu_kernel_destroy, 8);
SIZE_IS(drm_pto_npu_ring_header, 256);
SIZE_IS(drm_pto_npu_sqe, 64);
SIZE_IS(drm_pto_npu_tensor_arg, 48);
SIZE_IS(drm_pto_npu_predicate, 24);
SIZE_IS(drm_pto_npu_cqe, 80);
SIZE_IS(drm_pto_npu_wait, 24);
SIZE_IS(drm_pto_npu_sched, 88);
SIZE_IS(drm_pto_npu_prof, 248);
SIZE_IS(drm_pto_npu_hazard, 48);
SIZE_IS(drm_pto_npu_queue_create, 80);
SIZE_IS(drm_pto_npu_queue_destroy, 8);
SIZE_IS(drm_pto_npu_queue_submit, 32);
SIZE_IS(drm_pto_npu_queue_wait, 24);
SIZE_IS(drm_pto_npu_graph_edge, 16);
SIZE_IS(drm_pto_npu_graph_binding, 8);
SIZE_IS(drm_pto_npu_graph_create, 72);
SIZE_IS(drm_pto_npu_graph_destroy, 8);
/* The hole before work_budget is the named pad2 (4-byte __u64 on i386). */
_Static_assert(offsetof(struct drm_pto_npu_limits, pad2) == 68, "pad2 at 68");
_Static_assert(offsetof(struct drm_pto_npu_limits, work_budget) == 72,
	       "work_budget at 72");

/* The same at run time, so the test has results to report. */
static void limits_layout(void)
{
	TAP_CHECK_EQ(sizeof(struct drm_pto_npu_limits), 120);
	TAP_CHECK_EQ(offsetof(struct drm_pto_npu_limits, timeout_ms), 60);
	TAP_CHECK_EQ(offsetof(struct drm_pto_npu_limits, pad), 64);
	TAP_CHECK_EQ(offsetof(struct drm_pto_npu_limits, pad2), 68);
	TAP_CHECK_EQ(offsetof(struct drm_pto_npu_limits, work_budget), 72);
	TAP_CHECK_EQ(offsetof(struct drm_pto_npu_limits, min_work_budget), 80);
	TAP_CHECK_EQ(offsetof(struct drm_pto_npu_limits, max_work_budget), 88);
	TAP_CHECK_EQ(offsetof(struct drm_pto_npu_limits, max_graph_nodes), 96);
	TAP_CHECK_EQ(offsetof(struct drm_pto_npu_limits, max_graph_nodes_per_context), 108);
	TAP_CHECK_EQ(offsetof(struct drm_pto_npu_limits, max_inflight_units), 112);
}

/* Every field of the limits lies in its 120 bytes: no implicit padding. */
static void limits_has_no_implicit_padding(void)
{
	struct drm_pto_npu_limits l;
	size_t fields = 2 * sizeof(__u64) + 13 * sizeof(__u32) + sizeof(l.pad2) +
			3 * sizeof(__u64) + 6 * sizeof(__u32);

	TAP_CHECK_EQ(fields, sizeof(l));
}

TAP_MAIN(TAP_TEST(limits_layout), TAP_TEST(limits_has_no_implicit_padding))
