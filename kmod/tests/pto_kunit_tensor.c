// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit: tensor argument resolution (pto_targ_resolve()), the comparison
 * shared by CMP and predicates (pto_cmp_eval()) and pto_dtype_size().
 *
 * Copyright (C) 2026 pto-npu authors
 */

#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/string.h>

#include "../pto_exec.h"
#include "../pto_task.h"

#define LAYOUT DRM_PTO_NPU_REASON_TENSOR_LAYOUT
#define RANGE DRM_PTO_NPU_REASON_TENSOR_RANGE

/* Resolve @a against a buffer of @size bytes; @t is poisoned first. */
static int pto_tres(const struct drm_pto_npu_tensor_arg *a, u64 size,
		    struct pto_targ *t)
{
	memset(t, 0xa5, sizeof(*t));
	return pto_targ_resolve(a, size, t);
}

/* The 2-D view of a resolved argument. */
static void pto_texpect(struct kunit *test, const struct pto_targ *t,
			u64 rows, u64 cols, u64 row_stride, u64 col_stride)
{
	KUNIT_EXPECT_EQ(test, t->rows, rows);
	KUNIT_EXPECT_EQ(test, t->cols, cols);
	KUNIT_EXPECT_EQ(test, t->row_stride, row_stride);
	KUNIT_EXPECT_EQ(test, t->col_stride, col_stride);
}

/* ------------------------------------------------------------ row major */

static void pto_targ_row_major_1d(struct kunit *test)
{
	struct drm_pto_npu_tensor_arg a = {
		.dtype = PTO_ISA_F32, .ndim = 1, .shape = { 10 },
	};
	struct pto_targ t;

	KUNIT_EXPECT_EQ(test, pto_tres(&a, 40, &t), 0);
	pto_texpect(test, &t, 1, 10, 10, 1);
	KUNIT_EXPECT_EQ(test, t.dtype, PTO_ISA_F32);
	KUNIT_EXPECT_EQ(test, t.esize, 4);
}

static void pto_targ_row_major_2d(struct kunit *test)
{
	struct drm_pto_npu_tensor_arg a = {
		.dtype = PTO_ISA_I16, .ndim = 2, .shape = { 3, 5 },
	};
	struct pto_targ t;

	KUNIT_EXPECT_EQ(test, pto_tres(&a, 30, &t), 0);
	pto_texpect(test, &t, 3, 5, 5, 1);
	KUNIT_EXPECT_EQ(test, t.dtype, PTO_ISA_I16);
	KUNIT_EXPECT_EQ(test, t.esize, 2);
}

static void pto_targ_row_major_3d(struct kunit *test)
{
	struct drm_pto_npu_tensor_arg a = {
		.dtype = PTO_ISA_F32, .ndim = 3, .shape = { 2, 3, 4 },
	};
	struct pto_targ t;

	KUNIT_EXPECT_EQ(test, pto_tres(&a, 2 * 3 * 4 * 4, &t), 0);
	pto_texpect(test, &t, 6, 4, 4, 1);
}

static void pto_targ_row_major_4d(struct kunit *test)
{
	struct drm_pto_npu_tensor_arg a = {
		.dtype = PTO_ISA_I64, .ndim = 4, .shape = { 2, 3, 4, 5 },
	};
	struct pto_targ t;

	KUNIT_EXPECT_EQ(test, pto_tres(&a, 2 * 3 * 4 * 5 * 8, &t), 0);
	pto_texpect(test, &t, 24, 5, 5, 1);
	KUNIT_EXPECT_EQ(test, t.esize, 8);

	/* Explicit row-major strides give the same view. */
	a.strides[0] = 60;
	a.strides[1] = 20;
	a.strides[2] = 5;
	a.strides[3] = 1;
	KUNIT_EXPECT_EQ(test, pto_tres(&a, 2 * 3 * 4 * 5 * 8, &t), 0);
	pto_texpect(test, &t, 24, 5, 5, 1);
}

static void pto_targ_unit_dims(struct kunit *test)
{
	struct drm_pto_npu_tensor_arg a = {
		.dtype = PTO_ISA_U8, .ndim = 4, .shape = { 1, 1, 1, 1 },
	};
	struct pto_targ t;

	KUNIT_EXPECT_EQ(test, pto_tres(&a, 1, &t), 0);
	pto_texpect(test, &t, 1, 1, 1, 1);
	KUNIT_EXPECT_EQ(test, pto_tres(&a, 0, &t), RANGE);

	/* A column vector: cols 1. */
	a.ndim = 2;
	a.shape[0] = 7;
	a.shape[2] = 0;
	a.shape[3] = 0;
	KUNIT_EXPECT_EQ(test, pto_tres(&a, 7, &t), 0);
	pto_texpect(test, &t, 7, 1, 1, 1);
}

/* ------------------------------------------------------------------ strides */

static void pto_targ_padded_rows(struct kunit *test)
{
	/* 3 rows of 5 f32 every 8: last element 2 * 8 + 4 = 20, 84 bytes. */
	struct drm_pto_npu_tensor_arg a2 = {
		.dtype = PTO_ISA_F32, .ndim = 2, .shape = { 3, 5 },
		.strides = { 8, 1 },
	};
	/* 2 x 3 rows of 5 every 8: rows 6, last 5 * 8 + 4 = 44, 180 bytes. */
	struct drm_pto_npu_tensor_arg a3 = {
		.dtype = PTO_ISA_F32, .ndim = 3, .shape = { 2, 3, 5 },
		.strides = { 24, 8, 1 },
	};
	/* 2 x 2 x 3 rows of 5 every 8: rows 12, last 11 * 8 + 4 = 92. */
	struct drm_pto_npu_tensor_arg a4 = {
		.dtype = PTO_ISA_I8, .ndim = 4, .shape = { 2, 2, 3, 5 },
		.strides = { 48, 24, 8, 1 },
	};
	struct pto_targ t;

	KUNIT_EXPECT_EQ(test, pto_tres(&a2, 84, &t), 0);
	pto_texpect(test, &t, 3, 5, 8, 1);
	KUNIT_EXPECT_EQ(test, pto_tres(&a2, 83, &t), RANGE);

	KUNIT_EXPECT_EQ(test, pto_tres(&a3, 180, &t), 0);
	pto_texpect(test, &t, 6, 5, 8, 1);
	KUNIT_EXPECT_EQ(test, pto_tres(&a3, 179, &t), RANGE);

	KUNIT_EXPECT_EQ(test, pto_tres(&a4, 93, &t), 0);
	pto_texpect(test, &t, 12, 5, 8, 1);
	KUNIT_EXPECT_EQ(test, pto_tres(&a4, 92, &t), RANGE);
}

static void pto_targ_not_collapsible(struct kunit *test)
{
	/* dim 0 should step 8 * 3 = 24 */
	struct drm_pto_npu_tensor_arg a3 = {
		.dtype = PTO_ISA_F32, .ndim = 3, .shape = { 2, 3, 5 },
		.strides = { 30, 8, 1 },
	};
	struct drm_pto_npu_tensor_arg a4 = {
		.dtype = PTO_ISA_F32, .ndim = 4, .shape = { 2, 2, 3, 5 },
		.strides = { 48, 24, 8, 1 },
	};
	struct pto_targ t;

	KUNIT_EXPECT_EQ(test, pto_tres(&a3, SZ_1M, &t), LAYOUT);
	/* Transposed leading dims. */
	a3.strides[0] = 5;
	a3.strides[1] = 10;
	KUNIT_EXPECT_EQ(test, pto_tres(&a3, SZ_1M, &t), LAYOUT);

	KUNIT_EXPECT_EQ(test, pto_tres(&a4, SZ_1M, &t), 0);
	a4.strides[1] = 25;
	KUNIT_EXPECT_EQ(test, pto_tres(&a4, SZ_1M, &t), LAYOUT);
	a4.strides[1] = 24;
	a4.strides[0] = 50;
	KUNIT_EXPECT_EQ(test, pto_tres(&a4, SZ_1M, &t), LAYOUT);
	/* Dim 1 must collapse onto the row stride (dim 2) as well. */
	a4.strides[0] = 48;
	a4.strides[2] = 7;
	KUNIT_EXPECT_EQ(test, pto_tres(&a4, SZ_1M, &t), LAYOUT);
}

static void pto_targ_col_stride(struct kunit *test)
{
	/* Every other f32 of rows 16 apart: last 2 * 16 + 3 * 2 = 38. */
	struct drm_pto_npu_tensor_arg a = {
		.dtype = PTO_ISA_F32, .ndim = 2, .shape = { 3, 4 },
		.strides = { 16, 2 },
	};
	/* Column major 3x4: last 2 * 1 + 3 * 3 = 11. */
	struct drm_pto_npu_tensor_arg cm = {
		.dtype = PTO_ISA_I32, .ndim = 2, .shape = { 3, 4 },
		.strides = { 1, 3 },
	};
	/* 1-D with stride 3: last 4 * 3 = 12. */
	struct drm_pto_npu_tensor_arg v = {
		.dtype = PTO_ISA_I16, .ndim = 1, .shape = { 5 },
		.strides = { 3 },
	};
	/* 3-D, rows collapse, columns every 2: last 5 * 8 + 3 * 2 = 46. */
	struct drm_pto_npu_tensor_arg a3 = {
		.dtype = PTO_ISA_U8, .ndim = 3, .shape = { 2, 3, 4 },
		.strides = { 24, 8, 2 },
	};
	struct pto_targ t;

	KUNIT_EXPECT_EQ(test, pto_tres(&a, 39 * 4, &t), 0);
	pto_texpect(test, &t, 3, 4, 16, 2);
	KUNIT_EXPECT_EQ(test, pto_tres(&a, 39 * 4 - 1, &t), RANGE);

	KUNIT_EXPECT_EQ(test, pto_tres(&cm, 12 * 4, &t), 0);
	pto_texpect(test, &t, 3, 4, 1, 3);
	KUNIT_EXPECT_EQ(test, pto_tres(&cm, 12 * 4 - 1, &t), RANGE);

	KUNIT_EXPECT_EQ(test, pto_tres(&v, 13 * 2, &t), 0);
	pto_texpect(test, &t, 1, 5, 15, 3);
	KUNIT_EXPECT_EQ(test, pto_tres(&v, 13 * 2 - 1, &t), RANGE);

	KUNIT_EXPECT_EQ(test, pto_tres(&a3, 47, &t), 0);
	pto_texpect(test, &t, 6, 4, 8, 2);
	KUNIT_EXPECT_EQ(test, pto_tres(&a3, 46, &t), RANGE);
}

/* Zero strides inside ndim are allowed: broadcast views. */
static void pto_targ_zero_stride(struct kunit *test)
{
	/* One row of 8 f32 seen 4 times: 32 bytes. */
	struct drm_pto_npu_tensor_arg rows = {
		.dtype = PTO_ISA_F32, .ndim = 2, .shape = { 4, 8 },
		.strides = { 0, 1 },
	};
	/* One element per row, rows 8 apart: last 3 * 8 = 24. */
	struct drm_pto_npu_tensor_arg cols = {
		.dtype = PTO_ISA_F32, .ndim = 2, .shape = { 4, 8 },
		.strides = { 8, 0 },
	};
	/* Leading dims still have to collapse onto the row stride. */
	struct drm_pto_npu_tensor_arg a3 = {
		.dtype = PTO_ISA_F32, .ndim = 3, .shape = { 2, 3, 8 },
		.strides = { 0, 0, 1 },
	};
	struct pto_targ t;

	KUNIT_EXPECT_EQ(test, pto_tres(&rows, 32, &t), 0);
	pto_texpect(test, &t, 4, 8, 0, 1);
	KUNIT_EXPECT_EQ(test, pto_tres(&rows, 31, &t), RANGE);

	KUNIT_EXPECT_EQ(test, pto_tres(&cols, 100, &t), 0);
	pto_texpect(test, &t, 4, 8, 8, 0);
	KUNIT_EXPECT_EQ(test, pto_tres(&cols, 99, &t), RANGE);

	KUNIT_EXPECT_EQ(test, pto_tres(&a3, 32, &t), 0);
	pto_texpect(test, &t, 6, 8, 0, 1);
	a3.strides[1] = 8;
	KUNIT_EXPECT_EQ(test, pto_tres(&a3, SZ_1M, &t), LAYOUT);
}

/* ------------------------------------------------------------------- layout */

static void pto_targ_bad_ndim(struct kunit *test)
{
	static const u8 bad[] = { 0, 5, 255 };
	struct drm_pto_npu_tensor_arg a = {
		.dtype = PTO_ISA_F32, .shape = { 1, 1, 1, 1 },
	};
	struct pto_targ t;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		a.ndim = bad[i];
		KUNIT_EXPECT_EQ(test, pto_tres(&a, SZ_1M, &t), LAYOUT);
	}
	a.ndim = 4;
	KUNIT_EXPECT_EQ(test, pto_tres(&a, SZ_1M, &t), 0);
}

static void pto_targ_zero_dim(struct kunit *test)
{
	struct drm_pto_npu_tensor_arg a = {
		.dtype = PTO_ISA_F32, .ndim = 3, .shape = { 2, 3, 4 },
	};
	struct pto_targ t;
	u32 i;

	for (i = 0; i < 3; i++) {
		a.shape[i] = 0;
		KUNIT_EXPECT_EQ(test, pto_tres(&a, SZ_1M, &t), LAYOUT);
		a.shape[i] = i + 2;
	}
	KUNIT_EXPECT_EQ(test, pto_tres(&a, SZ_1M, &t), 0);
}

static void pto_targ_dim_past_ndim(struct kunit *test)
{
	struct drm_pto_npu_tensor_arg a = {
		.dtype = PTO_ISA_F32, .ndim = 2, .shape = { 3, 5 },
	};
	struct pto_targ t;

	KUNIT_EXPECT_EQ(test, pto_tres(&a, SZ_1M, &t), 0);
	/* A trailing 1 past ndim is no dimension either. */
	a.shape[2] = 1;
	KUNIT_EXPECT_EQ(test, pto_tres(&a, SZ_1M, &t), LAYOUT);
	a.shape[2] = 0;
	a.shape[3] = 7;
	KUNIT_EXPECT_EQ(test, pto_tres(&a, SZ_1M, &t), LAYOUT);
	a.shape[3] = 0;
	a.strides[2] = 1;
	KUNIT_EXPECT_EQ(test, pto_tres(&a, SZ_1M, &t), LAYOUT);
	a.strides[2] = 0;
	a.strides[3] = 1;
	KUNIT_EXPECT_EQ(test, pto_tres(&a, SZ_1M, &t), LAYOUT);
	/* ... also with explicit strides for the real dims. */
	a.strides[0] = 5;
	a.strides[1] = 1;
	KUNIT_EXPECT_EQ(test, pto_tres(&a, SZ_1M, &t), LAYOUT);
	a.strides[3] = 0;
	KUNIT_EXPECT_EQ(test, pto_tres(&a, SZ_1M, &t), 0);
}

static void pto_targ_misaligned_offset(struct kunit *test)
{
	struct drm_pto_npu_tensor_arg a = {
		.dtype = PTO_ISA_F32, .ndim = 1, .shape = { 4 },
	};
	struct pto_targ t;
	u64 off;

	for (off = 1; off < 4; off++) {
		a.offset = off;
		KUNIT_EXPECT_EQ(test, pto_tres(&a, SZ_1M, &t), LAYOUT);
	}
	a.offset = 4;
	KUNIT_EXPECT_EQ(test, pto_tres(&a, SZ_1M, &t), 0);

	a.dtype = PTO_ISA_I16;
	a.offset = 1;
	KUNIT_EXPECT_EQ(test, pto_tres(&a, SZ_1M, &t), LAYOUT);
	a.dtype = PTO_ISA_U64;
	a.offset = 4;
	KUNIT_EXPECT_EQ(test, pto_tres(&a, SZ_1M, &t), LAYOUT);
	a.offset = 8;
	KUNIT_EXPECT_EQ(test, pto_tres(&a, SZ_1M, &t), 0);
	/* Bytes are aligned anywhere. */
	a.dtype = PTO_ISA_I8;
	a.offset = 3;
	KUNIT_EXPECT_EQ(test, pto_tres(&a, SZ_1M, &t), 0);
}

static void pto_targ_unknown_dtype(struct kunit *test)
{
	static const u8 bad[] = { 0, 10, 128, 255 };
	struct drm_pto_npu_tensor_arg a = {
		.ndim = 1, .shape = { 4 },
	};
	struct pto_targ t;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		a.dtype = bad[i];
		KUNIT_EXPECT_EQ(test, pto_tres(&a, SZ_1M, &t), LAYOUT);
	}
}

static void pto_targ_dtypes(struct kunit *test)
{
	static const u8 esize[] = { 0, 4, 1, 2, 4, 8, 1, 2, 4, 8 };
	struct drm_pto_npu_tensor_arg a = {
		.ndim = 2, .shape = { 2, 3 },
	};
	struct pto_targ t;
	u8 d;

	for (d = PTO_ISA_F32; d <= PTO_ISA_U64; d++) {
		a.dtype = d;
		KUNIT_EXPECT_EQ(test, pto_tres(&a, 6 * esize[d], &t), 0);
		KUNIT_EXPECT_EQ(test, t.dtype, d);
		KUNIT_EXPECT_EQ(test, t.esize, esize[d]);
		KUNIT_EXPECT_EQ(test, pto_tres(&a, 6 * esize[d] - 1, &t), RANGE);
	}
}

static void pto_targ_flags(struct kunit *test)
{
	struct drm_pto_npu_tensor_arg a = {
		.dtype = PTO_ISA_F32, .ndim = 1, .shape = { 4 },
	};
	struct pto_targ t;
	u32 bit;

	/* The direction bits are known; every other bit is refused. */
	for (bit = 0; bit < 16; bit++) {
		a.flags = 1U << bit;
		KUNIT_EXPECT_EQ(test, pto_tres(&a, SZ_1M, &t),
				a.flags & DRM_PTO_NPU_TENSOR_F_ALL ? 0 : LAYOUT);
	}
	a.flags = DRM_PTO_NPU_TENSOR_F_ALL;
	KUNIT_EXPECT_EQ(test, pto_tres(&a, SZ_1M, &t), 0);
	a.flags = DRM_PTO_NPU_TENSOR_F_ALL | 4;
	KUNIT_EXPECT_EQ(test, pto_tres(&a, SZ_1M, &t), LAYOUT);
}

/* -------------------------------------------------------------------- range */

static void pto_targ_exact_fit(struct kunit *test)
{
	struct drm_pto_npu_tensor_arg a = {
		.dtype = PTO_ISA_F32, .ndim = 1, .shape = { 1024 },
	};
	struct drm_pto_npu_tensor_arg m = {
		.dtype = PTO_ISA_F32, .ndim = 2, .shape = { 4, 16 },
	};
	struct pto_targ t;

	KUNIT_EXPECT_EQ(test, pto_tres(&a, 4096, &t), 0);
	a.shape[0] = 1025;
	KUNIT_EXPECT_EQ(test, pto_tres(&a, 4096, &t), RANGE);

	KUNIT_EXPECT_EQ(test, pto_tres(&m, 256, &t), 0);
	KUNIT_EXPECT_EQ(test, pto_tres(&m, 255, &t), RANGE);
	m.shape[1] = 17;
	KUNIT_EXPECT_EQ(test, pto_tres(&m, 256, &t), RANGE);
	m.shape[0] = 5;
	m.shape[1] = 16;
	KUNIT_EXPECT_EQ(test, pto_tres(&m, 256, &t), RANGE);
}

static void pto_targ_offset_fit(struct kunit *test)
{
	struct drm_pto_npu_tensor_arg a = {
		.dtype = PTO_ISA_F32, .ndim = 2, .shape = { 4, 16 }, .offset = 64,
	};
	struct pto_targ t;

	KUNIT_EXPECT_EQ(test, pto_tres(&a, 320, &t), 0);
	KUNIT_EXPECT_EQ(test, pto_tres(&a, 319, &t), RANGE);
	/* An offset at or past the end holds nothing. */
	a.shape[0] = 1;
	a.shape[1] = 1;
	a.offset = 4096;
	KUNIT_EXPECT_EQ(test, pto_tres(&a, 4096, &t), RANGE);
	a.offset = 4092;
	KUNIT_EXPECT_EQ(test, pto_tres(&a, 4096, &t), 0);
	a.offset = 1ULL << 40;
	KUNIT_EXPECT_EQ(test, pto_tres(&a, 4096, &t), RANGE);
}

/* Nothing below may wrap into a small "end" that fits. */
static void pto_targ_overflow_shape(struct kunit *test)
{
	/* rows (2^32-1)^2 fits a u64, (rows - 1) * row_stride does not. */
	struct drm_pto_npu_tensor_arg a3 = {
		.dtype = PTO_ISA_I8, .ndim = 3,
		.shape = { U32_MAX, U32_MAX, U32_MAX },
	};
	/* The default stride of dim 0, (2^32-1)^3, does not fit. */
	struct drm_pto_npu_tensor_arg a4 = {
		.dtype = PTO_ISA_I8, .ndim = 4,
		.shape = { U32_MAX, U32_MAX, U32_MAX, U32_MAX },
	};
	/* Strides fit; rows (2^32-1)^3 does not. */
	struct drm_pto_npu_tensor_arg r4 = {
		.dtype = PTO_ISA_I8, .ndim = 4,
		.shape = { U32_MAX, U32_MAX, U32_MAX, 1 },
	};
	/* 2^31 x 2^31 elements of 8 bytes: 2^65 bytes. */
	struct drm_pto_npu_tensor_arg w = {
		.dtype = PTO_ISA_I64, .ndim = 2,
		.shape = { 1U << 31, 1U << 31 },
	};
	/*
	 * 2^22 x 2^21 x 2^21 = 2^64 elements: every stride and the last
	 * element index (U64_MAX) fit, the element count wraps to 0.
	 */
	struct drm_pto_npu_tensor_arg c3 = {
		.dtype = PTO_ISA_I8, .ndim = 3,
		.shape = { 1U << 22, 1U << 21, 1U << 21 },
	};
	struct drm_pto_npu_tensor_arg c4 = {
		.dtype = PTO_ISA_U8, .ndim = 4,
		.shape = { 1U << 16, 1U << 16, 1U << 16, 1U << 16 },
	};
	struct pto_targ t;

	KUNIT_EXPECT_EQ(test, pto_tres(&a3, U64_MAX, &t), RANGE);
	KUNIT_EXPECT_EQ(test, pto_tres(&a4, U64_MAX, &t), RANGE);
	KUNIT_EXPECT_EQ(test, pto_tres(&c3, U64_MAX, &t), RANGE);
	KUNIT_EXPECT_EQ(test, pto_tres(&c3, SZ_256M, &t), RANGE);
	KUNIT_EXPECT_EQ(test, pto_tres(&c4, U64_MAX, &t), RANGE);
	KUNIT_EXPECT_EQ(test, pto_tres(&c4, 0, &t), RANGE);
	KUNIT_EXPECT_EQ(test, pto_tres(&r4, U64_MAX, &t), RANGE);
	KUNIT_EXPECT_EQ(test, pto_tres(&w, U64_MAX, &t), RANGE);
	KUNIT_EXPECT_EQ(test, pto_tres(&w, SZ_256M, &t), RANGE);
}

static void pto_targ_overflow_strides(struct kunit *test)
{
	/* Each term fits, their sum does not. */
	struct drm_pto_npu_tensor_arg a2 = {
		.dtype = PTO_ISA_I8, .ndim = 2,
		.shape = { U32_MAX, U32_MAX },
		.strides = { U32_MAX, U32_MAX },
	};
	/* The last element index fits, its byte end times 8 does not. */
	struct drm_pto_npu_tensor_arg a1 = {
		.dtype = PTO_ISA_I64, .ndim = 1,
		.shape = { U32_MAX },
		.strides = { U32_MAX },
	};
	/* Huge strides on a 2-element tensor. */
	struct drm_pto_npu_tensor_arg s = {
		.dtype = PTO_ISA_F32, .ndim = 2,
		.shape = { 2, 2 },
		.strides = { U32_MAX, U32_MAX },
	};
	/* A collapsible 3-D view whose row stride is huge. */
	struct drm_pto_npu_tensor_arg a3 = {
		.dtype = PTO_ISA_F32, .ndim = 3,
		.shape = { 3, 2, 2 },
		.strides = { 2 * (U32_MAX / 2), U32_MAX / 2, 1 },
	};
	struct pto_targ t;

	KUNIT_EXPECT_EQ(test, pto_tres(&a2, U64_MAX, &t), RANGE);
	KUNIT_EXPECT_EQ(test, pto_tres(&a1, U64_MAX, &t), RANGE);
	KUNIT_EXPECT_EQ(test, pto_tres(&s, SZ_256M, &t), RANGE);
	/* 2^32 - 1 + 2^32 - 1 + 1 elements of 4 bytes: about 32 GiB. */
	KUNIT_EXPECT_EQ(test, pto_tres(&s, 8ULL * U32_MAX + 3, &t), RANGE);
	KUNIT_EXPECT_EQ(test, pto_tres(&s, 8ULL * U32_MAX + 4, &t), 0);
	pto_texpect(test, &t, 2, 2, U32_MAX, U32_MAX);
	KUNIT_EXPECT_EQ(test, pto_tres(&a3, SZ_256M, &t), RANGE);
}

static void pto_targ_overflow_offset(struct kunit *test)
{
	struct drm_pto_npu_tensor_arg a = {
		.dtype = PTO_ISA_I64, .ndim = 1, .shape = { 2 },
		.offset = U64_MAX - 7,
	};
	struct pto_targ t;

	KUNIT_EXPECT_EQ(test, pto_tres(&a, U64_MAX, &t), RANGE);
	/* The end would be exactly 2^64, 0 once wrapped. */
	a.offset = U64_MAX - 15;
	KUNIT_EXPECT_EQ(test, pto_tres(&a, U64_MAX, &t), RANGE);
	/* The end is U64_MAX - 7. */
	a.offset = U64_MAX - 23;
	KUNIT_EXPECT_EQ(test, pto_tres(&a, U64_MAX, &t), 0);
	KUNIT_EXPECT_EQ(test, pto_tres(&a, U64_MAX - 7, &t), 0);
	KUNIT_EXPECT_EQ(test, pto_tres(&a, U64_MAX - 8, &t), RANGE);
}

/* ------------------------------------------------------------- pto_cmp_eval */

struct pto_cmp_case {
	u32 op;
	s64 a;
	s64 b;
	bool want;
};

static void pto_cmp_eval_table(struct kunit *test)
{
	static const struct pto_cmp_case c[] = {
		{ PTO_CMP_EQ, 5, 5, true },
		{ PTO_CMP_EQ, 5, 6, false },
		{ PTO_CMP_EQ, S64_MIN, S64_MIN, true },
		{ PTO_CMP_EQ, S64_MIN, S64_MAX, false },
		{ PTO_CMP_EQ, -1, S64_MAX, false },
		{ PTO_CMP_NE, 5, 5, false },
		{ PTO_CMP_NE, S64_MAX, S64_MIN, true },
		{ PTO_CMP_NE, 0, -1, true },
		{ PTO_CMP_GT, S64_MAX, S64_MIN, true },
		{ PTO_CMP_GT, S64_MIN, S64_MAX, false },
		{ PTO_CMP_GT, 1, -1, true },
		{ PTO_CMP_GT, -1, 1, false },
		{ PTO_CMP_GT, S64_MAX, S64_MAX, false },
		{ PTO_CMP_GT, S64_MIN + 1, S64_MIN, true },
		{ PTO_CMP_LT, S64_MIN, S64_MAX, true },
		{ PTO_CMP_LT, S64_MAX, S64_MIN, false },
		{ PTO_CMP_LT, -1, 0, true },
		{ PTO_CMP_LT, 0, -1, false },
		{ PTO_CMP_LT, S64_MIN, S64_MIN, false },
		{ PTO_CMP_LT, S64_MAX - 1, S64_MAX, true },
		{ PTO_CMP_GE, S64_MIN, S64_MIN, true },
		{ PTO_CMP_GE, S64_MAX, S64_MIN, true },
		{ PTO_CMP_GE, S64_MIN, S64_MAX, false },
		{ PTO_CMP_GE, -1, 0, false },
		{ PTO_CMP_GE, 0, -1, true },
		{ PTO_CMP_LE, S64_MAX, S64_MAX, true },
		{ PTO_CMP_LE, S64_MIN, S64_MAX, true },
		{ PTO_CMP_LE, S64_MAX, S64_MIN, false },
		{ PTO_CMP_LE, 0, -1, false },
		{ PTO_CMP_LE, -1, 0, true },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(c); i++)
		KUNIT_EXPECT_EQ_MSG(test, pto_cmp_eval(c[i].op, c[i].a, c[i].b),
				    c[i].want, "op %u, %lld vs %lld", c[i].op,
				    c[i].a, c[i].b);
}

/* Signed order on every pair of edge values, one op against another. */
static void pto_cmp_eval_consistent(struct kunit *test)
{
	static const s64 v[] = {
		S64_MIN, S64_MIN + 1, (s64)S32_MIN - 1, -2, -1, 0, 1, 2,
		(s64)U32_MAX, (s64)U32_MAX + 1, S64_MAX - 1, S64_MAX,
	};
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(v); i++) {
		for (j = 0; j < ARRAY_SIZE(v); j++) {
			s64 a = v[i], b = v[j];
			bool eq = pto_cmp_eval(PTO_CMP_EQ, a, b);
			bool lt = pto_cmp_eval(PTO_CMP_LT, a, b);
			bool gt = pto_cmp_eval(PTO_CMP_GT, a, b);

			/* v[] is sorted and distinct. */
			KUNIT_EXPECT_EQ(test, eq, i == j);
			KUNIT_EXPECT_EQ(test, lt, i < j);
			KUNIT_EXPECT_EQ(test, gt, i > j);
			KUNIT_EXPECT_EQ(test, pto_cmp_eval(PTO_CMP_NE, a, b), !eq);
			KUNIT_EXPECT_EQ(test, pto_cmp_eval(PTO_CMP_GE, a, b), !lt);
			KUNIT_EXPECT_EQ(test, pto_cmp_eval(PTO_CMP_LE, a, b), !gt);
		}
	}
}

/* ----------------------------------------------------------- pto_dtype_size */

static void pto_dtype_size_all(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, pto_dtype_size(PTO_ISA_F32), 4);
	KUNIT_EXPECT_EQ(test, pto_dtype_size(PTO_ISA_I8), 1);
	KUNIT_EXPECT_EQ(test, pto_dtype_size(PTO_ISA_I16), 2);
	KUNIT_EXPECT_EQ(test, pto_dtype_size(PTO_ISA_I32), 4);
	KUNIT_EXPECT_EQ(test, pto_dtype_size(PTO_ISA_I64), 8);
	KUNIT_EXPECT_EQ(test, pto_dtype_size(PTO_ISA_U8), 1);
	KUNIT_EXPECT_EQ(test, pto_dtype_size(PTO_ISA_U16), 2);
	KUNIT_EXPECT_EQ(test, pto_dtype_size(PTO_ISA_U32), 4);
	KUNIT_EXPECT_EQ(test, pto_dtype_size(PTO_ISA_U64), 8);
	KUNIT_EXPECT_EQ(test, pto_dtype_size(0), 0);
	KUNIT_EXPECT_EQ(test, pto_dtype_size(PTO_ISA_U64 + 1), 0);
	KUNIT_EXPECT_EQ(test, pto_dtype_size(255), 0);
}

static struct kunit_case pto_tensor_cases[] = {
	KUNIT_CASE(pto_targ_row_major_1d),
	KUNIT_CASE(pto_targ_row_major_2d),
	KUNIT_CASE(pto_targ_row_major_3d),
	KUNIT_CASE(pto_targ_row_major_4d),
	KUNIT_CASE(pto_targ_unit_dims),
	KUNIT_CASE(pto_targ_padded_rows),
	KUNIT_CASE(pto_targ_not_collapsible),
	KUNIT_CASE(pto_targ_col_stride),
	KUNIT_CASE(pto_targ_zero_stride),
	KUNIT_CASE(pto_targ_bad_ndim),
	KUNIT_CASE(pto_targ_zero_dim),
	KUNIT_CASE(pto_targ_dim_past_ndim),
	KUNIT_CASE(pto_targ_misaligned_offset),
	KUNIT_CASE(pto_targ_unknown_dtype),
	KUNIT_CASE(pto_targ_dtypes),
	KUNIT_CASE(pto_targ_flags),
	KUNIT_CASE(pto_targ_exact_fit),
	KUNIT_CASE(pto_targ_offset_fit),
	KUNIT_CASE(pto_targ_overflow_shape),
	KUNIT_CASE(pto_targ_overflow_strides),
	KUNIT_CASE(pto_targ_overflow_offset),
	KUNIT_CASE(pto_cmp_eval_table),
	KUNIT_CASE(pto_cmp_eval_consistent),
	KUNIT_CASE(pto_dtype_size_all),
	{}
};

static struct kunit_suite pto_tensor_suite = {
	.name = "pto_tensor",
	.test_cases = pto_tensor_cases,
};

kunit_test_suites(&pto_tensor_suite);
