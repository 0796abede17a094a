// SPDX-License-Identifier: GPL-2.0-only
/*
 * pto_npu: tensor arguments. A task's tensor argument is resolved once, at
 * submit, into a 2-D view of its buffer (rows and columns with their
 * strides, in elements: leading dimensions collapse into rows), checked to
 * lie within the buffer. The interpreter (pto_exec.c) and the scheduler's
 * predicates read and write GM only through these views, and check every
 * access against the view first.
 *
 * Copyright (C) 2026 pto-npu authors
 */

#include <linux/overflow.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "pto_kernel.h"
#include "pto_tensor.h"

/*
 * Strides in elements, the argument's or, if it gives none, row-major from
 * its shape; the leading dimensions must collapse into rows:
 * stride[i] = stride[i+1] * shape[i+1].
 */
static int pto_targ_strides(const struct drm_pto_npu_tensor_arg *arg,
			    u64 *strides)
{
	u32 n = arg->ndim, i;
	bool dflt = true;

	for (i = 0; i < 4; i++) {
		if (i < n ? !arg->shape[i] : (arg->shape[i] || arg->strides[i]))
			return DRM_PTO_NPU_REASON_TENSOR_LAYOUT;
		if (arg->strides[i])
			dflt = false;
	}
	for (i = n; i-- > 0;) {
		if (!dflt)
			strides[i] = arg->strides[i];
		else if (i == n - 1)
			strides[i] = 1;
		else if (check_mul_overflow(strides[i + 1], (u64)arg->shape[i + 1],
					    &strides[i]))
			return DRM_PTO_NPU_REASON_TENSOR_RANGE;
	}
	for (i = 0; i + 2 < n; i++) {
		u64 want;

		if (check_mul_overflow(strides[i + 1], (u64)arg->shape[i + 1], &want) ||
		    strides[i] != want)
			return DRM_PTO_NPU_REASON_TENSOR_LAYOUT;
	}
	return 0;
}

/* The byte end of the view's last element, all overflow checked, fits. */
static bool pto_targ_fits(const struct pto_targ *t, u64 offset, u64 bo_size)
{
	u64 last, end;

	return !(check_mul_overflow(t->rows - 1, t->row_stride, &last) ||
		 check_add_overflow(last, (t->cols - 1) * t->col_stride, &last) ||
		 check_add_overflow(last, 1ULL, &end) ||
		 check_mul_overflow(end, (u64)t->esize, &end) ||
		 check_add_overflow(end, offset, &end) || end > bo_size);
}

/**
 * pto_targ_resolve - validate a tensor argument and compute its 2-D view
 * @arg: the argument, copied out of the SQ
 * @bo_size: size of the buffer it names
 * @t: out: the view (bo and base are set by the caller)
 *
 * Return: 0, or a DRM_PTO_NPU_REASON_TENSOR_* code.
 */
int pto_targ_resolve(const struct drm_pto_npu_tensor_arg *arg, u64 bo_size,
		     struct pto_targ *t)
{
	u64 strides[4], rows = 1;
	u32 n = arg->ndim, i;
	int ret;

	t->esize = pto_dtype_size(arg->dtype);
	t->dtype = arg->dtype;
	if ((arg->flags & ~DRM_PTO_NPU_TENSOR_F_ALL) || !t->esize || n < 1 ||
	    n > 4 || arg->offset % t->esize)
		return DRM_PTO_NPU_REASON_TENSOR_LAYOUT;
	ret = pto_targ_strides(arg, strides);
	if (ret)
		return ret;
	for (i = 0; i + 1 < n; i++)
		if (check_mul_overflow(rows, (u64)arg->shape[i], &rows))
			return DRM_PTO_NPU_REASON_TENSOR_RANGE;
	t->cols = arg->shape[n - 1];
	t->col_stride = strides[n - 1];
	t->rows = rows;
	t->row_stride = n >= 2 ? strides[n - 2] : t->cols * t->col_stride;
	if (!pto_targ_fits(t, arg->offset, bo_size))
		return DRM_PTO_NPU_REASON_TENSOR_RANGE;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(pto_targ_resolve);

/**
 * pto_targ_elem_index - the element of a view a byte belongs to
 * @ta: the tensor
 * @byte: byte offset from the view's base (inside what it can address)
 *
 * Return: its index in the 2-D view, row * cols + col (the hazard
 * records' element offset).
 */
u64 pto_targ_elem_index(const struct pto_targ *ta, u64 byte)
{
	u64 e = byte / ta->esize, r = 0, c = 0;

	if (ta->rows > 1 && ta->row_stride) {
		r = min(e / ta->row_stride, ta->rows - 1);
		e -= r * ta->row_stride;
	}
	if (ta->col_stride)
		c = min(e / ta->col_stride, ta->cols - 1);
	return r * ta->cols + c;
}

/**
 * pto_targ_read - one element of a tensor as a 64-bit integer
 * @t: the tensor
 * @row: row, within the view
 * @col: column, within the view
 *
 * Signed dtypes are sign extended, unsigned ones zero extended.
 *
 * Return: the value.
 */
s64 pto_targ_read(const struct pto_targ *t, u64 row, u64 col)
{
	return pto_load_int(t->base + pto_targ_offset(t, row, col) * t->esize,
			    t->dtype);
}

/**
 * pto_targ_window_fits - whether a window of elements lies within a view
 * @t: the tensor
 * @row: the window's first row
 * @col: the window's first column
 * @rows: its rows
 * @cols: its columns
 * @bad_row: out: if it does not fit, the row of the first element outside
 * @bad_col: out: and its column
 *
 * The first element outside is [@row, @col] itself, unless that lies
 * within the view: then it is the first past the edge the window crosses.
 *
 * Return: true if every element of the window lies within the view.
 */
bool pto_targ_window_fits(const struct pto_targ *t, s64 row, s64 col,
			  u32 rows, u32 cols, s64 *bad_row, s64 *bad_col)
{
	*bad_row = row;
	*bad_col = col;
	if (row < 0 || col < 0)
		return false;
	if ((u64)row + rows <= t->rows && (u64)col + cols <= t->cols)
		return true;
	if ((u64)row < t->rows && (u64)col < t->cols) {
		if ((u64)row + rows > t->rows)
			*bad_row = t->rows;
		if ((u64)col + cols > t->cols)
			*bad_col = t->cols;
	}
	return false;
}

/* One row of a tile and its elements in GM, @t->col_stride apart. */
static void pto_targ_copy_row(const struct pto_targ *t, u8 *gm, u8 *lb,
			      const struct pto_tile_layout *tl, bool load)
{
	u32 j;

	for (j = 0; j < tl->cols; j++) {
		u8 *g = gm + (u64)j * t->col_stride * t->esize;

		if (load)
			memcpy(lb + j * tl->esize, g, tl->esize);
		else
			memcpy(g, lb + j * tl->esize, tl->esize);
	}
}

/**
 * pto_targ_copy_tile - copy a tile between local memory and a tensor
 * @t: the tensor
 * @row: first row of the window, which lies within the view
 *       (pto_targ_window_fits())
 * @col: its first column
 * @tl: the tile's layout: rows and columns of the window
 * @tile: the tile's local memory
 * @load: GM to the tile (TLOAD), else the tile to GM (TSTORE)
 */
void pto_targ_copy_tile(const struct pto_targ *t, u64 row, u64 col,
			const struct pto_tile_layout *tl, u8 *tile, bool load)
{
	size_t rowbytes = (size_t)tl->cols * tl->esize;
	u32 i;

	if (t->col_stride == 1 && t->row_stride == tl->cols) {
		/* Rows as long as the stride: the tile is one run of GM. */
		u8 *gm = t->base + (row * t->row_stride + col) * t->esize;

		if (load)
			memcpy(tile, gm, tl->rows * rowbytes);
		else
			memcpy(gm, tile, tl->rows * rowbytes);
		return;
	}
	for (i = 0; i < tl->rows; i++) {
		u8 *gm = t->base + pto_targ_offset(t, row + i, col) * t->esize;
		u8 *lb = tile + i * rowbytes;

		if (t->col_stride != 1)
			pto_targ_copy_row(t, gm, lb, tl, load);
		else if (load)
			memcpy(lb, gm, rowbytes);
		else
			memcpy(gm, lb, rowbytes);
	}
}
