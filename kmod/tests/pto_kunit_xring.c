// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit: an ended AIV part's filled v2c slots (pto_xring_spill()) and the
 * AIC's drop of them (pto_xring_drop_spills()), in either order: an AIV
 * part that ends after its AIC's kernel has ended keeps nothing, even
 * before the AIC's unit is retired (issue #46, item 5).
 *
 * Copyright (C) 2026 pto-npu authors
 */

#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "../pto_task.h"
#include "../pto_xring.h"

#define SLOTS 2
#define V2C 32

/* A one-block mixed task whose AIV part 0 filled one v2c slot. */
static struct pto_task *pto_xr_task(struct kunit *test)
{
	struct pto_task *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	struct pto_xring_set *set;
	u8 *ub;

	KUNIT_ASSERT_NOT_NULL(test, t);
	set = kunit_kzalloc(test, sizeof(*set), GFP_KERNEL);
	ub = kunit_kzalloc(test, SLOTS * V2C, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, set);
	KUNIT_ASSERT_NOT_NULL(test, ub);
	spin_lock_init(&t->xlock);
	t->rings = set;
	t->block_num = 1;
	set->nparts = 1;
	set->slot_num = SLOTS;
	set->v2c_bytes = V2C;
	set->mem[0] = ub;
	INIT_LIST_HEAD(&set->waiters);
	memset(ub, 0x5a, V2C);
	set->ring[0].v2c_tail = 1;
	return t;
}

/* The AIC still running: the filled slot is kept, then dropped with it. */
static void pto_xring_spill_kept_while_the_cube_runs(struct kunit *test)
{
	struct pto_task *t = pto_xr_task(test);
	u8 want[V2C];

	KUNIT_EXPECT_EQ(test, pto_xring_spill(t, 0, 0), 0);
	KUNIT_ASSERT_NOT_NULL(test, t->rings[0].spill[0]);
	memset(want, 0x5a, sizeof(want));
	KUNIT_EXPECT_MEMEQ(test, t->rings[0].spill[0], want, V2C);
	pto_xring_drop_spills(t, 0);
	KUNIT_EXPECT_NULL(test, t->rings[0].spill[0]);
}

/*
 * The AIC's kernel ended and dropped the spills, its unit not yet
 * retired (aic_done still false): an AIV part ending now keeps nothing.
 */
static void pto_xring_spill_after_the_drop_keeps_nothing(struct kunit *test)
{
	struct pto_task *t = pto_xr_task(test);

	pto_xring_drop_spills(t, 0);
	KUNIT_EXPECT_FALSE(test, t->rings[0].aic_done);
	KUNIT_EXPECT_EQ(test, pto_xring_spill(t, 0, 0), 0);
	KUNIT_EXPECT_NULL(test, t->rings[0].spill[0]);
}

/* Nothing filled: nothing is allocated. */
static void pto_xring_spill_empty_ring(struct kunit *test)
{
	struct pto_task *t = pto_xr_task(test);

	t->rings[0].ring[0].v2c_head = 1;
	KUNIT_EXPECT_EQ(test, pto_xring_spill(t, 0, 0), 0);
	KUNIT_EXPECT_NULL(test, t->rings[0].spill[0]);
}

static struct kunit_case pto_xring_cases[] = {
	KUNIT_CASE(pto_xring_spill_kept_while_the_cube_runs),
	KUNIT_CASE(pto_xring_spill_after_the_drop_keeps_nothing),
	KUNIT_CASE(pto_xring_spill_empty_ring),
	{}
};

static struct kunit_suite pto_xring_suite = {
	.name = "pto_xring",
	.test_cases = pto_xring_cases,
};

kunit_test_suites(&pto_xring_suite);
