// SPDX-License-Identifier: MIT
/*
 * What queues and graphs share about tasks: the tensor argument encoding
 * and the names of statuses and refusal reasons.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

_Static_assert((int)PTO_STATUS_OK == (int)DRM_PTO_NPU_STATUS_OK &&
		       (int)PTO_STATUS_NOMEM == (int)DRM_PTO_NPU_STATUS_NOMEM &&
		       (int)PTO_STATUS_WORK_BUDGET ==
			       (int)DRM_PTO_NPU_STATUS_WORK_BUDGET &&
		       (int)PTO_STATUS_SKIPPED ==
			       (int)DRM_PTO_NPU_STATUS_SKIPPED &&
		       (int)PTO_STATUS_WORKSPACE ==
			       (int)DRM_PTO_NPU_STATUS_WORKSPACE,
	       "public statuses mirror the uapi");
_Static_assert((int)PTO_REASON_SLOT_BUDGET ==
			       (int)DRM_PTO_NPU_REASON_SLOT_BUDGET &&
		       (int)PTO_REASON_SYNC_START ==
			       (int)DRM_PTO_NPU_REASON_SYNC_START &&
		       (int)PTO_REASON_DEP == (int)DRM_PTO_NPU_REASON_DEP &&
		       (int)PTO_REASON_INFERRED_DEPS ==
			       (int)DRM_PTO_NPU_REASON_INFERRED_DEPS &&
		       (int)PTO_REASON_GRAPH == (int)DRM_PTO_NPU_REASON_GRAPH &&
		       (int)PTO_REASON_BINDING == (int)DRM_PTO_NPU_REASON_BINDING &&
		       (int)PTO_BLOCK_GRAPH == (int)DRM_PTO_NPU_CQE_F_GRAPH &&
		       (int)PTO_BLOCK_NODE == (int)DRM_PTO_NPU_CQE_F_NODE,
	       "public reasons mirror the uapi");
_Static_assert(PTO_GRID_ALL_AIV == DRM_PTO_NPU_BLOCKS_ALL_AIV &&
		       PTO_GRID_ALL_CLUSTERS == DRM_PTO_NPU_BLOCKS_ALL_CLUSTERS,
	       "grid sentinels mirror the uapi");
_Static_assert((int)PTO_DTYPE_F32 == PTO_ISA_F32 &&
		       (int)PTO_DTYPE_I64 == PTO_ISA_I64 &&
		       (int)PTO_DTYPE_U64 == PTO_ISA_U64,
	       "libpto dtypes and ISA dtypes share their numbers");

static const char *const pto_status_names[] = {
	[PTO_STATUS_OK] = "OK",
	[PTO_STATUS_INVALID] = "INVALID",
	[PTO_STATUS_GM_FAULT] = "GM_FAULT",
	[PTO_STATUS_TIMEOUT] = "TIMEOUT",
	[PTO_STATUS_DEP_FAILED] = "DEP_FAILED",
	[PTO_STATUS_CANCELLED] = "CANCELLED",
	[PTO_STATUS_ARITH_FAULT] = "ARITH_FAULT",
	[PTO_STATUS_LOOP_FAULT] = "LOOP_FAULT",
	[PTO_STATUS_SKIPPED] = "SKIPPED",
	[PTO_STATUS_BARRIER_FAULT] = "BARRIER_FAULT",
	[PTO_STATUS_NOMEM] = "NOMEM",
	[PTO_STATUS_WORK_BUDGET] = "WORK_BUDGET",
	[PTO_STATUS_WORKSPACE] = "WORKSPACE",
};

static const struct {
	const char *name;
	const char *text;
} pto_reasons[] = {
	[PTO_REASON_NONE] = { "NONE", "no reason given" },
	[PTO_REASON_SLOTS] = { "SLOTS",
			       "entry size does not match its counts" },
	[PTO_REASON_FLAGS] = { "FLAGS", "unknown or unsupported task flag" },
	[PTO_REASON_RESERVED] = { "RESERVED", "reserved field not zero" },
	[PTO_REASON_KERNEL] = { "KERNEL", "unknown kernel handle" },
	[PTO_REASON_KERNEL_TYPE] = { "KERNEL_TYPE",
				     "kernel of the wrong core type" },
	[PTO_REASON_BLOCK_NUM] = { "BLOCK_NUM", "block_num 0 or over the cap" },
	[PTO_REASON_COUNTS] = { "COUNTS",
				"more tensors, scalars or deps than allowed" },
	[PTO_REASON_ARG_COUNT] = { "ARG_COUNT",
				   "fewer arguments than the kernel uses" },
	[PTO_REASON_TENSOR_HANDLE] = { "TENSOR_HANDLE",
				       "unknown buffer handle" },
	[PTO_REASON_TENSOR_LAYOUT] = { "TENSOR_LAYOUT",
				       "tensor layout the device refuses" },
	[PTO_REASON_TENSOR_RANGE] = { "TENSOR_RANGE",
				      "tensor reaches outside its buffer" },
	[PTO_REASON_TENSOR_DTYPE] = { "TENSOR_DTYPE",
				      "tensor dtype differs from the kernel's use" },
	[PTO_REASON_DEP] = { "DEP", "dependency not on an earlier task" },
	[PTO_REASON_PREDICATE] = { "PREDICATE", "bad predicate" },
	[PTO_REASON_SYNC_START] = { "SYNC_START",
				    "more blocks than the device holds at once" },
	[PTO_REASON_RING] = { "RING", "cross-core ring misuse" },
	[PTO_REASON_SLOT_BUDGET] = { "SLOT_BUDGET",
				     "cross-core ring slots do not fit in the UB" },
	[PTO_REASON_SYNCALL] = { "SYNCALL",
				 "HARD syncall launch does not occupy every core of its type, or a SOFT syncall workspace under 16 elements" },
	[PTO_REASON_INFERRED_DEPS] = { "INFERRED_DEPS",
				       "more inferred dependencies than the device takes for one task" },
	[PTO_REASON_GRAPH] = { "GRAPH",
			       "graph launch or recorded edge the device refuses" },
	[PTO_REASON_BINDING] = { "BINDING",
				 "graph parameter binding does not match the recorded graph" },
};

PTO_API const char *pto_status_name(int status)
{
	if (status == PTO_STATUS_PENDING)
		return "PENDING";
	if (status == PTO_STATUS_UNREPORTED)
		return "UNREPORTED";
	if (status < 0 || (size_t)status >= PTO_ARRAY_SIZE(pto_status_names) ||
	    !pto_status_names[status])
		return "UNKNOWN";
	return pto_status_names[status];
}

PTO_API const char *pto_reason_name(int reason)
{
	if (reason < 0 || (size_t)reason >= PTO_ARRAY_SIZE(pto_reasons))
		return "UNKNOWN";
	return pto_reasons[reason].name;
}

const char *pto_reason_text(int reason)
{
	if (reason < 0 || (size_t)reason >= PTO_ARRAY_SIZE(pto_reasons))
		return "unknown reason";
	return pto_reasons[reason].text;
}

static __attribute__((format(printf, 3, 4))) int
pto_arg_fail(char *msg, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (msg && len) {
		va_start(ap, fmt);
		vsnprintf(msg, len, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/*
 * The device sees a tensor as [rows, cols]: cols the last dimension, rows
 * the others, which must stack evenly (dimensions of size 1 aside).
 */
static bool pto_rows_collapse(const struct pto_layout *l)
{
	int outer = -1;
	unsigned int i;

	for (i = 0; i + 1 < l->ndim; i++) {
		int64_t span;

		if (l->shape[i] == 1)
			continue;
		if (outer >= 0 && (__builtin_mul_overflow(l->strides[i],
							  l->shape[i], &span) ||
				   l->strides[outer] != span))
			return false;
		outer = (int)i;
	}
	return true;
}

int pto_tensor_arg(const struct pto_tensor *t,
		   struct drm_pto_npu_tensor_arg *arg, char *msg, size_t len)
{
	const struct pto_layout *l = &t->layout;
	bool all_zero = true;
	unsigned int i;

	memset(arg, 0, sizeof(*arg));
	arg->handle = t->buf->handle;
	arg->dtype = (uint8_t)l->dtype;
	arg->ndim = (uint8_t)l->ndim;
	arg->offset = l->offset;
	for (i = 0; i < l->ndim; i++) {
		if (l->shape[i] > UINT32_MAX || l->strides[i] > UINT32_MAX)
			return pto_arg_fail(
				msg, len,
				"dimension %u (size %lld, stride %lld) does not fit the device's 32-bit fields",
				i, (long long)l->shape[i],
				(long long)l->strides[i]);
		arg->shape[i] = (uint32_t)l->shape[i];
		arg->strides[i] = (uint32_t)l->strides[i];
		if (l->strides[i])
			all_zero = false;
	}
	/* To the device, all-zero strides mean row-major, not a broadcast. */
	if (all_zero && l->numel > 1)
		return pto_arg_fail(
			msg, len,
			"all-zero strides (a broadcast) cannot be passed to the device");
	if (!pto_rows_collapse(l))
		return pto_arg_fail(
			msg, len,
			"leading dimensions do not stack into rows of a 2-D view");
	return 0;
}

void pto_predicate_to_drm(const struct pto_predicate *p,
			  struct drm_pto_npu_predicate *out)
{
	*out = (struct drm_pto_npu_predicate){
		.tensor = (uint8_t)p->tensor,
		.op = (uint8_t)p->op,
		.row = p->row,
		.col = p->col,
		.literal = p->literal,
	};
}
