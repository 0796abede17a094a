/* SPDX-License-Identifier: MIT */
/*
 * Tensor layout arithmetic: validation of dtype, shape, strides and offset,
 * and the sizes they imply. Pure functions, no device, so the host unit
 * tests cover every refusal.
 */
#ifndef PTO_TENSOR_LAYOUT_H
#define PTO_TENSOR_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pto/pto.h"

/**
 * struct pto_layout - a validated tensor layout
 * @dtype: element type
 * @ndim: dimensions, 1..PTO_MAX_DIMS
 * @shape: sizes, each > 0; entries past @ndim are 0
 * @strides: strides in elements, each >= 0; entries past @ndim are 0
 * @offset: byte offset of element [0, ..., 0], aligned to the element size
 * @numel: product of @shape
 * @nbytes: @numel times the element size
 * @extent: bytes from @offset to one past the last addressed byte
 */
struct pto_layout {
	enum pto_dtype dtype;
	unsigned int ndim;
	int64_t shape[PTO_MAX_DIMS];
	int64_t strides[PTO_MAX_DIMS];
	size_t offset;
	size_t numel;
	size_t nbytes;
	size_t extent;
};

/**
 * pto_layout_init() - validate a layout and compute its sizes
 * @l: filled on success
 * @dtype: element type
 * @ndim: dimensions
 * @shape: @ndim sizes
 * @strides: @ndim element strides, or NULL for row-major
 * @offset: byte offset
 *
 * Return: 0; -EINVAL for a bad dtype, ndim, dimension or stride, a NULL
 * @shape or a misaligned @offset; -EOVERFLOW when a size or address does
 * not fit (numel, bytes, extent, @offset + extent).
 */
int pto_layout_init(struct pto_layout *l, enum pto_dtype dtype,
		    unsigned int ndim, const int64_t *shape,
		    const int64_t *strides, size_t offset);

/**
 * pto_layout_check_bounds() - whether every addressed byte is in a buffer
 * @l: a layout from pto_layout_init()
 * @buffer_size: bytes of the buffer
 *
 * Return: 0, or -ERANGE when the layout reaches past @buffer_size.
 */
int pto_layout_check_bounds(const struct pto_layout *l, size_t buffer_size);

/**
 * pto_layout_is_contiguous() - dense row-major
 * @l: a layout from pto_layout_init()
 *
 * Dimensions of size 1 do not count: their stride is never used.
 */
bool pto_layout_is_contiguous(const struct pto_layout *l);

#endif /* PTO_TENSOR_LAYOUT_H */
