// SPDX-License-Identifier: MIT
/*
 * Tensor layout arithmetic. Every product and sum goes through the
 * overflow builtins: shapes and strides come straight from the user, and a
 * wrapped size would turn a bounds check into a lie.
 */
#include <errno.h>
#include <string.h>

#include "tensor_layout.h"

static int pto_layout_check_args(enum pto_dtype dtype, unsigned int ndim,
				 const int64_t *shape, const int64_t *strides,
				 size_t offset)
{
	size_t esize = pto_dtype_size(dtype);
	unsigned int i;

	if (!esize || ndim < 1 || ndim > PTO_MAX_DIMS || !shape)
		return -EINVAL;
	for (i = 0; i < ndim; i++) {
		if (shape[i] <= 0)
			return -EINVAL;
		if (strides && strides[i] < 0)
			return -EINVAL;
	}
	if (offset % esize)
		return -EINVAL;
	return 0;
}

int pto_layout_init(struct pto_layout *l, enum pto_dtype dtype,
		    unsigned int ndim, const int64_t *shape,
		    const int64_t *strides, size_t offset)
{
	size_t esize = pto_dtype_size(dtype);
	int64_t numel = 1, last = 0, span;
	unsigned int i;
	size_t end;
	int ret;

	ret = pto_layout_check_args(dtype, ndim, shape, strides, offset);
	if (ret)
		return ret;

	memset(l, 0, sizeof(*l));
	l->dtype = dtype;
	l->ndim = ndim;
	l->offset = offset;

	for (i = 0; i < ndim; i++) {
		l->shape[i] = shape[i];
		if (__builtin_mul_overflow(numel, shape[i], &numel))
			return -EOVERFLOW;
	}
	/* numel fits in a size_t if its byte count does. */
	if (__builtin_mul_overflow(numel, esize, &l->nbytes))
		return -EOVERFLOW;
	l->numel = (size_t)numel;

	if (strides) {
		memcpy(l->strides, strides, ndim * sizeof(*strides));
	} else {
		l->strides[ndim - 1] = 1;
		for (i = ndim - 1; i > 0; i--)
			if (__builtin_mul_overflow(l->strides[i], shape[i],
						   &l->strides[i - 1]))
				return -EOVERFLOW;
	}

	/* Highest element index addressed, then the bytes up to its end. */
	for (i = 0; i < ndim; i++) {
		int64_t step;

		if (__builtin_mul_overflow(shape[i] - 1, l->strides[i],
					   &step) ||
		    __builtin_add_overflow(last, step, &last))
			return -EOVERFLOW;
	}
	if (__builtin_add_overflow(last, 1, &span) ||
	    __builtin_mul_overflow(span, esize, &l->extent))
		return -EOVERFLOW;
	if (__builtin_add_overflow(offset, l->extent, &end))
		return -EOVERFLOW;
	return 0;
}

int pto_layout_check_bounds(const struct pto_layout *l, size_t buffer_size)
{
	/* pto_layout_init() made sure offset + extent does not wrap. */
	if (l->offset > buffer_size || l->extent > buffer_size - l->offset)
		return -ERANGE;
	return 0;
}

bool pto_layout_is_contiguous(const struct pto_layout *l)
{
	int64_t expect = 1;
	unsigned int i;

	for (i = l->ndim; i-- > 0;) {
		if (l->shape[i] != 1 && l->strides[i] != expect)
			return false;
		expect *= l->shape[i];
	}
	return true;
}
