/* SPDX-License-Identifier: MIT */
/*
 * The virtual NPU's default topology and limits, for the host unit tests
 * that build and check kernels without a device, and a kernel builder for
 * them.
 */
#ifndef PTO_TESTS_TOPOLOGY_H
#define PTO_TESTS_TOPOLOGY_H

#include <pto/pto.h>

#include "kernel_builder.h"
#include "tap.h"

#define KIB 1024

static const struct pto_device_info topo = {
	.uapi_version = 2,
	.clusters = 24,
	.aic_cores = 24,
	.aiv_cores = 48,
	.aiv_ub_size = 192 * KIB,
	.aic_l1_size = 512 * KIB,
	.aic_l0a_size = 64 * KIB,
	.aic_l0b_size = 64 * KIB,
	.aic_l0c_size = 128 * KIB,
};

static const struct pto_limits limits = {
	.max_insns = 4096,
	.max_tensor_args = 16,
	.max_scalar_args = 16,
	.max_deps = 32,
	.max_block_num = 8192,
};

/* A builder for @core on the default topology and limits. */
static inline struct pto_kb *kb_new(enum pto_core_type core)
{
	struct pto_kb *kb = NULL;

	TAP_CHECK_EQ(pto_kb_new_for_topology(&topo, &limits, core, &kb), 0);
	return kb;
}

#endif /* PTO_TESTS_TOPOLOGY_H */
