/* SPDX-License-Identifier: GPL-2.0-only */
/* Copyright (C) 2026 pto-npu authors */
#ifndef __PTO_TENSOR_H__
#define __PTO_TENSOR_H__

#include <linux/types.h>

#include "pto_npu_accel.h"
#include "pto_npu_isa.h"
#include "pto_task.h"

int pto_targ_resolve(const struct drm_pto_npu_tensor_arg *arg, u64 bo_size,
		     struct pto_targ *t);
s64 pto_targ_read(const struct pto_targ *t, u64 row, u64 col);
u64 pto_targ_elem_index(const struct pto_targ *ta, u64 byte);
bool pto_targ_window_fits(const struct pto_targ *t, s64 row, s64 col,
			  u32 rows, u32 cols, s64 *bad_row, s64 *bad_col);
void pto_targ_copy_tile(const struct pto_targ *t, u64 row, u64 col,
			const struct pto_tile_layout *tl, u8 *tile, bool load);

/**
 * pto_targ_offset - element offset of [row, col] of a tensor's view
 * @t: the tensor
 * @row: row (a negative one wraps, as the GM fault detail expects)
 * @col: column
 *
 * Return: row * row_stride + col * col_stride, in elements, modulo 2^64.
 */
static inline u64 pto_targ_offset(const struct pto_targ *t, u64 row, u64 col)
{
	return row * t->row_stride + col * t->col_stride;
}

/**
 * pto_targ_elem - address of [row, col] of a tensor's view
 * @t: the tensor
 * @row: row
 * @col: column
 *
 * Return: the element's kernel address, or NULL if it lies outside the view.
 */
static inline u8 *pto_targ_elem(const struct pto_targ *t, s64 row, s64 col)
{
	if (row < 0 || col < 0 || row >= t->rows || col >= t->cols)
		return NULL;
	return t->base + pto_targ_offset(t, row, col) * t->esize;
}

/**
 * pto_load_int - an integer element, widened to 64 bits
 * @p: the element
 * @dtype: its enum pto_isa_dtype (F32: its bit pattern)
 *
 * Return: the value, sign extended for signed dtypes, else zero extended.
 */
static inline s64 pto_load_int(const void *p, u8 dtype)
{
	switch (dtype) {
	case PTO_ISA_I8:
		return *(const s8 *)p;
	case PTO_ISA_U8:
		return *(const u8 *)p;
	case PTO_ISA_I16:
		return *(const s16 *)p;
	case PTO_ISA_U16:
		return *(const u16 *)p;
	case PTO_ISA_I32:
		return *(const s32 *)p;
	case PTO_ISA_U32:
	case PTO_ISA_F32:
		return *(const u32 *)p;
	default:
		return *(const s64 *)p;
	}
}

/**
 * pto_store_int - store an integer element, truncated to its size
 * @p: the element
 * @esize: its size in bytes (1, 2, 4 or 8)
 * @v: the value
 */
static inline void pto_store_int(void *p, u8 esize, s64 v)
{
	switch (esize) {
	case 1:
		*(u8 *)p = v;
		break;
	case 2:
		*(u16 *)p = v;
		break;
	case 4:
		*(u32 *)p = v;
		break;
	default:
		*(u64 *)p = v;
		break;
	}
}

#endif /* __PTO_TENSOR_H__ */
