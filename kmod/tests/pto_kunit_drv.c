// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit: the module's pure helpers (topology validation, query size
 * negotiation, GM buffer sizing).
 *
 * Copyright (C) 2026 pto-npu authors
 */

#include <kunit/test.h>
#include <linux/module.h>

#include "../pto_drv.h"

static const struct pto_topology pto_default_topo = {
	.clusters = 24,
	.aiv_ub = 192 * SZ_1K,
	.aic_l1 = 512 * SZ_1K,
	.aic_l0a = 64 * SZ_1K,
	.aic_l0b = 64 * SZ_1K,
	.aic_l0c = 128 * SZ_1K,
};

static void pto_topology_default_ok(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, pto_topology_validate(&pto_default_topo), 0);
}

static void pto_topology_cluster_bounds(struct kunit *test)
{
	struct pto_topology t = pto_default_topo;

	t.clusters = 0;
	KUNIT_EXPECT_EQ(test, pto_topology_validate(&t), -EINVAL);
	t.clusters = 1;
	KUNIT_EXPECT_EQ(test, pto_topology_validate(&t), 0);
	t.clusters = PTO_MAX_CLUSTERS;
	KUNIT_EXPECT_EQ(test, pto_topology_validate(&t), 0);
	t.clusters = PTO_MAX_CLUSTERS + 1;
	KUNIT_EXPECT_EQ(test, pto_topology_validate(&t), -EINVAL);
}

static void pto_topology_buffer_bounds(struct kunit *test)
{
	u32 *fields[5];
	struct pto_topology t;
	int i;

	for (i = 0; i < ARRAY_SIZE(fields); i++) {
		t = pto_default_topo;
		fields[0] = &t.aiv_ub;
		fields[1] = &t.aic_l1;
		fields[2] = &t.aic_l0a;
		fields[3] = &t.aic_l0b;
		fields[4] = &t.aic_l0c;
		*fields[i] = PTO_MIN_LOCAL_BUF - 1;
		KUNIT_EXPECT_EQ(test, pto_topology_validate(&t), -EINVAL);
		*fields[i] = PTO_MAX_LOCAL_BUF + 1;
		KUNIT_EXPECT_EQ(test, pto_topology_validate(&t), -EINVAL);
		*fields[i] = PTO_MAX_LOCAL_BUF;
		KUNIT_EXPECT_EQ(test, pto_topology_validate(&t), 0);
	}
}

static void pto_query_size_negotiation(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, pto_query_copy_size(0, 48), 0);
	KUNIT_EXPECT_EQ(test, pto_query_copy_size(16, 48), 16);
	KUNIT_EXPECT_EQ(test, pto_query_copy_size(48, 48), 48);
	KUNIT_EXPECT_EQ(test, pto_query_copy_size(4096, 48), 48);
}

static void pto_bo_size_rules(struct kunit *test)
{
	u64 aligned = 0;

	KUNIT_EXPECT_EQ(test, pto_bo_size_check(0, &aligned), -EINVAL);
	KUNIT_EXPECT_EQ(test, pto_bo_size_check(PTO_MAX_BO_SIZE + 1, &aligned),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, pto_bo_size_check(U64_MAX, &aligned), -EINVAL);
	KUNIT_EXPECT_EQ(test, pto_bo_size_check(1, &aligned), 0);
	KUNIT_EXPECT_EQ(test, aligned, (u64)PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, pto_bo_size_check(PAGE_SIZE + 1, &aligned), 0);
	KUNIT_EXPECT_EQ(test, aligned, (u64)2 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, pto_bo_size_check(PTO_MAX_BO_SIZE, &aligned), 0);
	KUNIT_EXPECT_EQ(test, aligned, PTO_MAX_BO_SIZE);
}

static struct kunit_case pto_drv_cases[] = {
	KUNIT_CASE(pto_topology_default_ok),
	KUNIT_CASE(pto_topology_cluster_bounds),
	KUNIT_CASE(pto_topology_buffer_bounds),
	KUNIT_CASE(pto_query_size_negotiation),
	KUNIT_CASE(pto_bo_size_rules),
	{}
};

static struct kunit_suite pto_drv_suite = {
	.name = "pto_drv",
	.test_cases = pto_drv_cases,
};

kunit_test_suites(&pto_drv_suite);

MODULE_DESCRIPTION("pto_npu KUnit tests");
MODULE_LICENSE("GPL");
PTO_IMPORT_KUNIT_NS();
