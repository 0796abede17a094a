/* SPDX-License-Identifier: GPL-2.0-only */
/* Copyright (C) 2026 pto-npu authors */
#ifndef __PTO_DEPS_H__
#define __PTO_DEPS_H__

#include <linux/types.h>

#include "pto_sched.h"

void pto_deps_link(struct pto_ctx *ctx, struct pto_task *task,
		   const s64 *deps);
void pto_deps_remember_failed(struct pto_ctx *ctx, struct pto_task *task);
void pto_deps_forget_failed(struct pto_ctx *ctx);

#endif /* __PTO_DEPS_H__ */
