// SPDX-License-Identifier: MIT
/*
 * The orchestration of make bench-peer on simpler's CPU simulator
 * (tensormap_and_ringbuffer runtime). Scalars: 0 = workload, 1 = count.
 *   0 fan     N one-block AIV tasks, independent
 *   1 chain   N one-block AIV tasks, each depending on the previous
 *   2 dummy   N dependency-only tasks (never reach a core)
 *   3 singles N forms of 48 one-block AIV tasks
 *   4 spmd    N forms of one 48-block AIV task
 */
#include <cstdint>

#include "pto_orchestration_api.h"

extern "C" {

__attribute__((visibility("default"))) PTO2OrchestrationConfig aicpu_orchestration_config(const ChipTaskArgs &a)
{
	(void)a;
	return PTO2OrchestrationConfig{ .expected_arg_count = 0 };
}

__attribute__((visibility("default"))) void aicpu_orchestration_entry(const ChipTaskArgs &a)
{
	const uint64_t kind = a.scalar(0), n = a.scalar(1);
	const uint64_t tasks = kind == 3 ? n * 48 : n;
	PTO2TaskId prev{};

	for (uint64_t i = 0; i < tasks; i++) {
		CoreTaskArgs t;

		if (kind == 1 && i)
			t.set_dependencies(&prev, 1);
		if (kind == 4)
			t.launch_spec.set_block_num(48);
		if (kind == 2)
			rt_submit_dummy_task(t);
		else
			prev = rt_submit_aiv_task(0, t).task_id();
	}
}

}
