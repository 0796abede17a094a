// SPDX-License-Identifier: GPL-2.0-only
/*
 * No process can stall another: while process A's long kernels keep every
 * CPU of the guest busy (2 AIV blocks, then all 48), a one-block AIC task
 * of process B, placed on an idle core, starts within a bounded delay (the
 * scheduling quantum, PTO_QUANTUM_NS = 2 ms, plus the guest's scheduling
 * latency), not when A's units end. Runs at the default timeout_ms.
 *
 * Copyright (C) 2026 pto-npu authors
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define PTO_TEST_LIBPTO
#include "pto_test.h"

/*
 * A's kernels: about 4 x 10^7 instructions in all (2 per iteration),
 * seconds under TCG, however many blocks share them.
 */
#define A_ITERATIONS 20000000
/* A's queue's work budget: room for all of them on one block. */
#define A_WORK_BUDGET (1ull << 26)
#define RUN_TIMEOUT_NS PTO_TEST_SEC(120)
/*
 * B's start delay allowed, on an unloaded reference machine: once B's core
 * has a thread, that thread waits its turn among the running ones, 48 of
 * A's on 4 vCPUs of the debug kernel (up to 240 ms seen; under 1 ms beside
 * 2 blocks). Before the quantum, B waited for A's units to end: seconds.
 */
#define START_DELAY_LIMIT_MS 1000
/* B runs this many times while A computes. */
#define B_RUNS 5

FIXTURE(quantum)
{
	struct pto_device *dev;
	struct pto_device_info info;
	char err[256];
};

FIXTURE_SETUP(quantum)
{
	ASSERT_EQ(0, pto_test_dev_open(&self->dev));
	ASSERT_EQ(0, pto_device_query_info(self->dev, &self->info));
}

FIXTURE_TEARDOWN(quantum)
{
	pto_device_close(self->dev);
}

/*
 * Process A: @blocks AIV blocks of a long kernel on a context of its own.
 * Writes 'R' once they are submitted, then waits for them and exits 0 if
 * they all ended OK.
 */
static void process_a(int to_parent, uint32_t blocks)
{
	/* Past the default budget: the kernel is 2 x A_ITERATIONS / blocks. */
	struct pto_queue_params qp = { .work_budget = A_WORK_BUDGET };
	struct pto_task_desc d = { .block_num = blocks };
	struct pto_device *dev;
	struct pto_queue *q;
	struct pto_kernel *k;
	struct pto_cqe *cqes;
	struct pto_kb *kb;
	int64_t per_block = A_ITERATIONS / blocks;
	int64_t outer = (per_block + PTO_MAX_LOOP_COUNT - 1) / PTO_MAX_LOOP_COUNT;
	char err[256], r = 'R';
	uint32_t consumed = 0;
	int n, i, bad = 0;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	cqes = calloc(blocks + 4, sizeof(*cqes));
	if (!cqes || pto_test_dev_open(&dev) ||
	    pto_queue_create_params(dev, &qp, &q) ||
	    pto_kb_new(dev, PTO_CORE_AIV, &kb))
		_exit(2);
	pto_kb_ldi(kb, 3, 0);
	pto_kb_loopi(kb, 5, outer);
	pto_kb_loopi(kb, 2, per_block / outer);
	pto_kb_alui(kb, PTO_ALU_ADD, 3, 3, 1);
	pto_kb_endloop(kb);
	pto_kb_endloop(kb);
	pto_kb_end(kb);
	k = pto_test_kb_finish(kb, err, sizeof(err));
	if (!k)
		_exit(3);
	d.kernel_aiv = k;
	if (pto_queue_push_task(q, &d) ||
	    pto_queue_doorbell(q, 0, 0, &consumed, NULL) || consumed != 1)
		_exit(4);
	/* Let A's units reach the cores before B comes. */
	usleep(50 * 1000);
	if (write(to_parent, &r, 1) != 1)
		_exit(5);
	n = pto_test_reap_lasts(q, cqes, blocks + 4, 1, RUN_TIMEOUT_NS);
	if (n != (int)blocks)
		_exit(6);
	for (i = 0; i < n; i++)
		bad |= cqes[i].info.status != PTO_STATUS_OK;
	_exit(bad ? 7 : 0);
}

static void idle_core_starts(struct __test_metadata *_metadata,
			     FIXTURE_DATA(quantum) *self, uint32_t a_blocks)
{
	struct pto_task_desc d = { .block_num = 1 };
	int64_t worst = 0, limit = PTO_TEST_LIMIT_MSEC(START_DELAY_LIMIT_MS);
	int pipefd[2], status, i, n;
	struct pto_cqe cqes[4];
	struct pto_kernel *k;
	struct pto_queue *q;
	struct pto_kb *kb;
	pid_t a;
	char c;

	ASSERT_EQ(0, pto_kb_new(self->dev, PTO_CORE_AIC, &kb));
	pto_kb_ldi(kb, 0, 1);
	pto_kb_end(kb);
	k = pto_test_kb_finish(kb, self->err, sizeof(self->err));
	ASSERT_NE(NULL, k) TH_LOG("%s", self->err);
	ASSERT_EQ(0, pto_queue_create(self->dev, 0, 0, &q));
	d.kernel_aic = k;

	ASSERT_EQ(0, pipe(pipefd));
	a = fork();
	ASSERT_LE(0, a);
	if (!a) {
		close(pipefd[0]);
		process_a(pipefd[1], a_blocks);
	}
	close(pipefd[1]);
	ASSERT_EQ(1, read(pipefd[0], &c, 1));
	close(pipefd[0]);
	for (i = 0; i < B_RUNS; i++) {
		int64_t delay;

		n = pto_test_submit_one(q, &d, cqes, 4, RUN_TIMEOUT_NS, NULL);
		ASSERT_EQ(1, n);
		EXPECT_EQ(PTO_STATUS_OK, cqes[0].info.status);
		delay = (int64_t)(cqes[0].info.ts_start - cqes[0].info.ts_dispatch);
		if (delay > worst)
			worst = delay;
	}
	/* A must still be running: else B met idle CPUs, proving nothing. */
	EXPECT_EQ(0, waitpid(a, &status, WNOHANG))
		TH_LOG("A's %u blocks ended before B's runs", a_blocks);
	ASSERT_EQ(a, waitpid(a, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("A: exit %d", WEXITSTATUS(status));
	printf("# quantum: with %u of A's AIV blocks computing, B's AIC task started at most %lld us after its dispatch (limit %lld us)\n",
	       a_blocks, (long long)(worst / 1000), (long long)(limit / 1000));
	EXPECT_GE(limit, worst);
	EXPECT_EQ(0, pto_queue_destroy(q));
	pto_kernel_free(k);
}

TEST_F_TIMEOUT(quantum, idle_core_starts_beside_two_long_blocks, 300)
{
	idle_core_starts(_metadata, self, 2);
}

TEST_F_TIMEOUT(quantum, idle_core_starts_with_every_aiv_busy, 600)
{
	idle_core_starts(_metadata, self, self->info.aiv_cores);
}

TEST_HARNESS_MAIN
