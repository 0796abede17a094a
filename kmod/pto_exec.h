/* SPDX-License-Identifier: GPL-2.0-only */
/* Copyright (C) 2026 pto-npu authors */
#ifndef __PTO_EXEC_H__
#define __PTO_EXEC_H__

#include <linux/types.h>

#include "pto_npu_accel.h"
#include "pto_tensor.h"

struct pto_core;
struct pto_task;

/**
 * struct pto_exec_result - how a unit ended
 * @status: enum drm_pto_npu_status
 * @detail: status detail
 */
struct pto_exec_result {
	s32 status;
	u64 detail;
};

bool pto_cmp_eval(u32 op, s64 a, s64 b);
bool pto_exec_unit(struct pto_core *core, struct pto_task *task, u32 unit,
		   struct pto_exec_result *res, bool resume);
void *pto_exec_state_alloc(void);
void pto_exec_state_free(void *state);

/* pto_exec_fp.c: f32 math; callers pass bit patterns, never floats. */
void pto_fp_tbin(u32 op, u32 *dst, const u32 *a, const u32 *b, size_t n);
void pto_fp_tbins(u32 op, u32 *dst, const u32 *a, u32 s, size_t n);
#if IS_ENABLED(CONFIG_KUNIT)
void pto_fp_bin(u32 op, u32 *dst, const u32 *a, const u32 *b, u32 s,
		size_t n, bool wide);
void pto_fp_matmul(u32 *c, const u32 *a, const u32 *b, u32 m0, u32 m1,
		   u32 k, u32 n, bool acc, bool wide);
#endif
void pto_fp_tunary(u32 op, u32 *dst, const u32 *a, size_t n);
void pto_fp_rowred(u32 op, u32 *dst, const u32 *a, u32 rows, u32 cols);
void pto_fp_matmul_rows(u32 *c, const u32 *a, const u32 *b, u32 m0, u32 m1,
			u32 k, u32 n, bool acc);
void pto_fp_to_int(s64 *dst, const u32 *a, size_t n);
void pto_fp_from_int(u32 *dst, const s64 *a, size_t n);

#endif /* __PTO_EXEC_H__ */
