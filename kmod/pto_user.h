/* SPDX-License-Identifier: GPL-2.0-only */
/* Copyright (C) 2026 pto-npu authors */
#ifndef __PTO_USER_H__
#define __PTO_USER_H__

struct pto_ctx;

int pto_user_open(struct pto_ctx *ctx);
void pto_user_close(struct pto_ctx *ctx);

#endif /* __PTO_USER_H__ */
