// SPDX-License-Identifier: GPL-2.0-only
/*
 * pto_npu: tracepoint definitions.
 *
 * Copyright (C) 2026 pto-npu authors
 */

#define CREATE_TRACE_POINTS
#include "pto_trace.h"
