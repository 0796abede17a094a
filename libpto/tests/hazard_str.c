// SPDX-License-Identifier: MIT
/*
 * pto_hazard_str(): each kind's text, a graph launch's nodes after it,
 * truncation (the length of the whole text returned), bad arguments.
 */
#include <errno.h>
#include <string.h>

#include <pto/pto.h>

#include "tap.h"

static const struct pto_cqe cqe = { .task_id = 12 };

static void hazard_str_race_without_nodes(void)
{
	struct pto_hazard h = { .kind = PTO_HAZARD_RACE, .tensor = 1,
				.elem = 64, .other_task = 9, .other_tensor = 2 };
	char buf[512];
	int n = pto_hazard_str(&cqe, &h, buf, sizeof(buf));

	TAP_CHECK_EQ(n, (int)strlen(buf));
	TAP_CHECK(strstr(buf, "task 12: arg 1 [elem 64] overlaps arg 2 of task 9"));
	TAP_CHECK(!strstr(buf, "node"));
}

static void hazard_str_names_the_nodes(void)
{
	struct pto_hazard h = { .kind = PTO_HAZARD_RACE, .other_task = 9,
				.node = 5, .other_node = 3 };
	char buf[512];

	pto_hazard_str(&cqe, &h, buf, sizeof(buf));
	TAP_CHECK(strstr(buf, "(RACE) [this launch's node 4; task 9's node 2]"));
	h.other_node = 0;
	pto_hazard_str(&cqe, &h, buf, sizeof(buf));
	TAP_CHECK(strstr(buf, "(RACE) [this launch's node 4]"));
	h.node = 0;
	h.other_node = 1;
	h.kind = PTO_HAZARD_PREDICATE;
	pto_hazard_str(&cqe, &h, buf, sizeof(buf));
	TAP_CHECK(strstr(buf, "(PREDICATE) [task 9's node 0]"));
	h.kind = PTO_HAZARD_STALE_READ;
	h.node = 1;
	pto_hazard_str(&cqe, &h, buf, sizeof(buf));
	TAP_CHECK(strstr(buf, "(STALE_READ) [this launch's node 0; task 9's node 0]"));
}

/* Cut short anywhere, the same length comes back and the text is a prefix. */
static void hazard_str_truncates(void)
{
	struct pto_hazard h = { .kind = PTO_HAZARD_UNFENCED, .other_task = 12,
				.node = 2, .other_node = 2 };
	char full[512], cut[512];
	int n = pto_hazard_str(&cqe, &h, full, sizeof(full));
	size_t len;

	TAP_CHECK(n > 0 && n == (int)strlen(full));
	TAP_CHECK_EQ(pto_hazard_str(&cqe, &h, NULL, 0), n);
	for (len = 1; len <= (size_t)n + 1; len++) {
		memset(cut, 'x', sizeof(cut));
		TAP_CHECK_EQ(pto_hazard_str(&cqe, &h, cut, len), n);
		TAP_CHECK_EQ(strlen(cut), len - 1);
		TAP_CHECK(!strncmp(cut, full, len - 1));
	}
}

static void hazard_str_bad_arguments(void)
{
	struct pto_hazard h = { .kind = PTO_HAZARD_RACE };
	char buf[8];

	TAP_CHECK_EQ(pto_hazard_str(NULL, &h, buf, sizeof(buf)), -EINVAL);
	TAP_CHECK_EQ(pto_hazard_str(&cqe, NULL, buf, sizeof(buf)), -EINVAL);
	TAP_CHECK_EQ(pto_hazard_str(&cqe, &h, NULL, sizeof(buf)), -EINVAL);
	h.kind = 77;
	TAP_CHECK(pto_hazard_str(&cqe, &h, buf, sizeof(buf)) > 0);
}

TAP_MAIN(TAP_TEST(hazard_str_race_without_nodes),
	 TAP_TEST(hazard_str_names_the_nodes), TAP_TEST(hazard_str_truncates),
	 TAP_TEST(hazard_str_bad_arguments))
