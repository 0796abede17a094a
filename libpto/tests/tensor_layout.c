// SPDX-License-Identifier: MIT
/*
 * Tensor layout validation, one test per refusal, and pto_tensor_view()
 * over a host-memory stand-in for a GM buffer (no device needed).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "internal.h"
#include "tap.h"

#define BUF_SIZE 4096

static int layout(enum pto_dtype dtype, unsigned int ndim, const int64_t *shape,
		  const int64_t *strides, size_t offset, struct pto_layout *l)
{
	return pto_layout_init(l, dtype, ndim, shape, strides, offset);
}

/* A layout that passes init, checked against a buffer of @size bytes. */
static int layout_in(size_t size, enum pto_dtype dtype, unsigned int ndim,
		     const int64_t *shape, const int64_t *strides,
		     size_t offset)
{
	struct pto_layout l;
	int ret = layout(dtype, ndim, shape, strides, offset, &l);

	return ret ? ret : pto_layout_check_bounds(&l, size);
}

static void row_major_default(void)
{
	const int64_t shape[] = { 2, 3, 4, 5 };
	struct pto_layout l;

	TAP_CHECK_EQ(layout(PTO_DTYPE_F32, 4, shape, NULL, 0, &l), 0);
	TAP_CHECK_EQ(l.strides[0], 60);
	TAP_CHECK_EQ(l.strides[1], 20);
	TAP_CHECK_EQ(l.strides[2], 5);
	TAP_CHECK_EQ(l.strides[3], 1);
	TAP_CHECK_EQ(l.numel, 120);
	TAP_CHECK_EQ(l.nbytes, 480);
	TAP_CHECK_EQ(l.extent, 480);
	TAP_CHECK(pto_layout_is_contiguous(&l));
}

static void one_dim_every_dtype(void)
{
	const int64_t shape[] = { 7 };
	enum pto_dtype d;

	for (d = PTO_DTYPE_F32; d <= PTO_DTYPE_U64; d++) {
		struct pto_layout l;

		TAP_CHECK_EQ(layout(d, 1, shape, NULL, 0, &l), 0);
		TAP_CHECK_EQ(l.nbytes, 7 * pto_dtype_size(d));
	}
}

static void refuses_bad_dtype(void)
{
	const int64_t shape[] = { 4 };
	struct pto_layout l;

	TAP_CHECK_EQ(layout((enum pto_dtype)0, 1, shape, NULL, 0, &l), -EINVAL);
	TAP_CHECK_EQ(layout((enum pto_dtype)(PTO_DTYPE_U64 + 1), 1, shape, NULL,
			    0, &l),
		     -EINVAL);
	TAP_CHECK_EQ(layout((enum pto_dtype)(-1), 1, shape, NULL, 0, &l),
		     -EINVAL);
}

static void refuses_ndim_0(void)
{
	const int64_t shape[] = { 4 };
	struct pto_layout l;

	TAP_CHECK_EQ(layout(PTO_DTYPE_F32, 0, shape, NULL, 0, &l), -EINVAL);
}

static void refuses_ndim_5(void)
{
	const int64_t shape[] = { 1, 1, 1, 1, 1 };
	struct pto_layout l;

	TAP_CHECK_EQ(layout(PTO_DTYPE_F32, PTO_MAX_DIMS + 1, shape, NULL, 0,
			    &l),
		     -EINVAL);
}

static void refuses_null_shape(void)
{
	struct pto_layout l;

	TAP_CHECK_EQ(layout(PTO_DTYPE_F32, 1, NULL, NULL, 0, &l), -EINVAL);
}

static void refuses_zero_dim(void)
{
	const int64_t shape[] = { 4, 0, 4 };
	struct pto_layout l;

	TAP_CHECK_EQ(layout(PTO_DTYPE_F32, 3, shape, NULL, 0, &l), -EINVAL);
}

static void refuses_negative_dim(void)
{
	const int64_t shape[] = { 4, -2 };
	struct pto_layout l;

	TAP_CHECK_EQ(layout(PTO_DTYPE_F32, 2, shape, NULL, 0, &l), -EINVAL);
}

static void refuses_numel_overflow(void)
{
	const int64_t shape[] = { INT64_C(1) << 31, INT64_C(1) << 31,
				  INT64_C(1) << 31 };
	struct pto_layout l;

	TAP_CHECK_EQ(layout(PTO_DTYPE_U8, 3, shape, NULL, 0, &l), -EOVERFLOW);
}

static void refuses_bytes_overflow(void)
{
	/* numel fits in int64, numel * 8 does not fit in a size_t. */
	const int64_t shape[] = { INT64_MAX };
	const int64_t shape2[] = { INT64_C(1) << 32, INT64_C(1) << 30 };
	struct pto_layout l;

	TAP_CHECK_EQ(layout(PTO_DTYPE_I64, 1, shape, NULL, 0, &l), -EOVERFLOW);
	TAP_CHECK_EQ(layout(PTO_DTYPE_F32, 2, shape2, NULL, 0, &l), -EOVERFLOW);
}

static void refuses_stride_overflow(void)
{
	const int64_t shape[] = { 3, 4 };
	const int64_t strides[] = { INT64_MAX / 2, 1 };
	const int64_t big[] = { INT64_MAX, 1 };
	struct pto_layout l;

	TAP_CHECK_EQ(layout(PTO_DTYPE_F32, 2, shape, strides, 0, &l),
		     -EOVERFLOW);
	TAP_CHECK_EQ(layout(PTO_DTYPE_U8, 2, shape, big, 0, &l), -EOVERFLOW);
}

static void refuses_offset_overflow(void)
{
	const int64_t shape[] = { 4 };
	struct pto_layout l;

	TAP_CHECK_EQ(layout(PTO_DTYPE_F32, 1, shape, NULL, SIZE_MAX - 3, &l),
		     -EOVERFLOW);
}

static void refuses_misaligned_offset(void)
{
	const int64_t shape[] = { 4 };
	struct pto_layout l;

	TAP_CHECK_EQ(layout(PTO_DTYPE_F32, 1, shape, NULL, 2, &l), -EINVAL);
	TAP_CHECK_EQ(layout(PTO_DTYPE_I64, 1, shape, NULL, 4, &l), -EINVAL);
	TAP_CHECK_EQ(layout(PTO_DTYPE_I16, 1, shape, NULL, 1, &l), -EINVAL);
	TAP_CHECK_EQ(layout(PTO_DTYPE_U8, 1, shape, NULL, 1, &l), 0);
	TAP_CHECK_EQ(layout(PTO_DTYPE_I64, 1, shape, NULL, 8, &l), 0);
}

static void refuses_beyond_buffer(void)
{
	const int64_t shape[] = { 16, 16 };

	/* 1 KiB exactly fits; one more element or byte of offset does not. */
	TAP_CHECK_EQ(layout_in(1024, PTO_DTYPE_F32, 2, shape, NULL, 0), 0);
	TAP_CHECK_EQ(layout_in(1023, PTO_DTYPE_F32, 2, shape, NULL, 0),
		     -ERANGE);
	TAP_CHECK_EQ(layout_in(1024, PTO_DTYPE_F32, 2, shape, NULL, 4),
		     -ERANGE);
	TAP_CHECK_EQ(layout_in(1028, PTO_DTYPE_F32, 2, shape, NULL, 4), 0);
	TAP_CHECK_EQ(layout_in(1024, PTO_DTYPE_F32, 2, shape, NULL, 4096),
		     -ERANGE);
	TAP_CHECK_EQ(layout_in(0, PTO_DTYPE_U8, 1, shape, NULL, 0), -ERANGE);
}

static void custom_strides_padded_rows(void)
{
	/* 4 rows of 3 f32 with a row pitch of 8 elements. */
	const int64_t shape[] = { 4, 3 };
	const int64_t strides[] = { 8, 1 };
	struct pto_layout l;

	TAP_CHECK_EQ(layout(PTO_DTYPE_F32, 2, shape, strides, 0, &l), 0);
	TAP_CHECK_EQ(l.numel, 12);
	TAP_CHECK_EQ(l.nbytes, 48);
	TAP_CHECK_EQ(l.extent, (3 * 8 + 2 + 1) * 4);
	TAP_CHECK(!pto_layout_is_contiguous(&l));
	TAP_CHECK_EQ(pto_layout_check_bounds(&l, 108), 0);
	TAP_CHECK_EQ(pto_layout_check_bounds(&l, 107), -ERANGE);
}

static void custom_strides_transposed(void)
{
	const int64_t shape[] = { 3, 5 };
	const int64_t strides[] = { 1, 3 };
	struct pto_layout l;

	TAP_CHECK_EQ(layout(PTO_DTYPE_I16, 2, shape, strides, 0, &l), 0);
	TAP_CHECK_EQ(l.extent, 15 * 2);
	TAP_CHECK(!pto_layout_is_contiguous(&l));
}

static void custom_strides_row_major_is_contiguous(void)
{
	const int64_t shape[] = { 2, 1, 3 };
	/* The stride of a size-1 dimension is never used. */
	const int64_t strides[] = { 3, 999, 1 };
	struct pto_layout l;

	TAP_CHECK_EQ(layout(PTO_DTYPE_U32, 3, shape, strides, 0, &l), 0);
	TAP_CHECK(pto_layout_is_contiguous(&l));
	TAP_CHECK_EQ(l.extent, 24);
}

static void custom_strides_broadcast(void)
{
	const int64_t shape[] = { 1000, 4 };
	const int64_t strides[] = { 0, 1 };
	struct pto_layout l;

	TAP_CHECK_EQ(layout(PTO_DTYPE_F32, 2, shape, strides, 0, &l), 0);
	TAP_CHECK_EQ(l.numel, 4000);
	TAP_CHECK_EQ(l.extent, 16);
}

static void refuses_negative_stride(void)
{
	const int64_t shape[] = { 4, 4 };
	const int64_t strides[] = { 4, -1 };
	struct pto_layout l;

	TAP_CHECK_EQ(layout(PTO_DTYPE_F32, 2, shape, strides, 0, &l), -EINVAL);
}

/* pto_tensor_view() over a malloc'd stand-in for a mapped GM buffer. */
static void tensor_view_accessors(void)
{
	struct pto_buffer buf = { .size = BUF_SIZE, .handle = 1 };
	const int64_t shape[] = { 4, 3 };
	const int64_t strides[] = { 8, 1 };
	struct pto_tensor *t = NULL;

	buf.map = calloc(1, BUF_SIZE);
	TAP_CHECK(buf.map != NULL);
	if (!buf.map)
		return;
	TAP_CHECK_EQ(pto_tensor_view(&buf, 64, PTO_DTYPE_F32, 2, shape, strides,
				     &t),
		     0);
	TAP_CHECK(t != NULL);
	if (t) {
		TAP_CHECK(pto_tensor_data(t) == (char *)buf.map + 64);
		TAP_CHECK(pto_tensor_buffer(t) == &buf);
		TAP_CHECK_EQ(pto_tensor_dtype(t), PTO_DTYPE_F32);
		TAP_CHECK_EQ(pto_tensor_ndim(t), 2);
		TAP_CHECK_EQ(pto_tensor_shape(t)[0], 4);
		TAP_CHECK_EQ(pto_tensor_shape(t)[1], 3);
		TAP_CHECK_EQ(pto_tensor_strides(t)[0], 8);
		TAP_CHECK_EQ(pto_tensor_strides(t)[1], 1);
		TAP_CHECK_EQ(pto_tensor_offset(t), 64);
		TAP_CHECK_EQ(pto_tensor_numel(t), 12);
		TAP_CHECK_EQ(pto_tensor_nbytes(t), 48);
		TAP_CHECK(!pto_tensor_is_contiguous(t));
	}
	/* A view leaves its buffer alone (ASan would flag a bad free). */
	pto_tensor_free(t);
	free(buf.map);
}

static void tensor_view_refusals(void)
{
	struct pto_buffer buf = { .size = BUF_SIZE, .handle = 1 };
	const int64_t shape[] = { 32, 32 };
	const int64_t small[] = { 4 };
	struct pto_tensor *t = (struct pto_tensor *)(uintptr_t)0x1;

	buf.map = calloc(1, BUF_SIZE);
	TAP_CHECK(buf.map != NULL);
	if (!buf.map)
		return;
	TAP_CHECK_EQ(
		pto_tensor_view(&buf, 0, PTO_DTYPE_F32, 2, shape, NULL, &t), 0);
	pto_tensor_free(t);
	TAP_CHECK_EQ(pto_tensor_view(&buf, 4, PTO_DTYPE_F32, 2, shape, NULL,
				     &t),
		     -ERANGE);
	TAP_CHECK(t == NULL);
	TAP_CHECK_EQ(pto_tensor_view(&buf, 2, PTO_DTYPE_F32, 1, small, NULL,
				     &t),
		     -EINVAL);
	TAP_CHECK_EQ(pto_tensor_view(&buf, 0, (enum pto_dtype)0, 1, small, NULL,
				     &t),
		     -EINVAL);
	TAP_CHECK_EQ(pto_tensor_view(NULL, 0, PTO_DTYPE_F32, 1, small, NULL,
				     &t),
		     -EINVAL);
	TAP_CHECK_EQ(pto_tensor_view(&buf, 0, PTO_DTYPE_F32, 1, small, NULL,
				     NULL),
		     -EINVAL);
	TAP_CHECK(t == NULL);
	free(buf.map);
}

TAP_MAIN(TAP_TEST(row_major_default), TAP_TEST(one_dim_every_dtype),
	 TAP_TEST(refuses_bad_dtype), TAP_TEST(refuses_ndim_0),
	 TAP_TEST(refuses_ndim_5), TAP_TEST(refuses_null_shape),
	 TAP_TEST(refuses_zero_dim), TAP_TEST(refuses_negative_dim),
	 TAP_TEST(refuses_numel_overflow), TAP_TEST(refuses_bytes_overflow),
	 TAP_TEST(refuses_stride_overflow), TAP_TEST(refuses_offset_overflow),
	 TAP_TEST(refuses_misaligned_offset), TAP_TEST(refuses_beyond_buffer),
	 TAP_TEST(custom_strides_padded_rows),
	 TAP_TEST(custom_strides_transposed),
	 TAP_TEST(custom_strides_row_major_is_contiguous),
	 TAP_TEST(custom_strides_broadcast), TAP_TEST(refuses_negative_stride),
	 TAP_TEST(tensor_view_accessors), TAP_TEST(tensor_view_refusals))
