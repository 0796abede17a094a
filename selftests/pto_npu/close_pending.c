// SPDX-License-Identifier: GPL-2.0-only
/*
 * A context that closes while its units wait in pending slots behind
 * another context's long units is not held up by them: its units have not
 * started, so the close takes them back (STATUS_CANCELLED) and returns at
 * once, not when the units running ahead of them end.
 *
 * The hog (this process) runs an endless kernel on every AIV core, its
 * budget seconds of work; a child fills every pending slot behind it (and
 * has one more task unplaced), then exits. The child's exit (the file's
 * release) must be over before any of the hog's blocks has ended: the
 * hog's CQ is still empty when the child has been reaped.
 *
 * Copyright (C) 2026 pto-npu authors
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define PTO_TEST_LIBPTO
#include "pto_test.h"

/*
 * The hog's budget per block: 48 blocks of it take about a minute on the
 * 2-vCPU debug VM (work_budget's interpreter_rate: about 3 x 10^6
 * instructions a second in all).
 */
#define HOG_BUDGET (1ull << 22)
/* How long the child's exit may take before the test gives up on it. */
#define EXIT_DEADLINE_NS PTO_TEST_SEC(120)
#define DEBUGFS_CORES "/sys/kernel/debug/accel/pto_npu.0/cores"

FIXTURE(hold)
{
	struct pto_device *dev;
	struct pto_device_info info;
	char err[256];
};

FIXTURE_SETUP(hold)
{
	ASSERT_EQ(0, pto_test_dev_open(&self->dev));
	ASSERT_EQ(0, pto_device_query_info(self->dev, &self->info));
}

FIXTURE_TEARDOWN(hold)
{
	pto_device_close(self->dev);
}

/* An AIV kernel that never ends (its budget ends it): s3 += 1 for ever. */
static struct pto_kernel *spin_kernel(struct pto_device *dev, char *err,
				      size_t len)
{
	struct pto_kb *kb;

	if (pto_kb_new(dev, PTO_CORE_AIV, &kb))
		return NULL;
	pto_kb_ldi(kb, 3, 0);
	pto_kb_loopi(kb, 5, PTO_MAX_LOOP_COUNT);
	pto_kb_loopi(kb, 6, PTO_MAX_LOOP_COUNT);
	pto_kb_loopi(kb, 2, PTO_MAX_LOOP_COUNT);
	pto_kb_alui(kb, PTO_ALU_ADD, 3, 3, 1);
	pto_kb_endloop(kb);
	pto_kb_endloop(kb);
	pto_kb_endloop(kb);
	pto_kb_end(kb);
	return pto_test_kb_finish(kb, err, len);
}

/* An AIV kernel of a few instructions. */
static struct pto_kernel *short_kernel(struct pto_device *dev, char *err,
				       size_t len)
{
	struct pto_kb *kb;

	if (pto_kb_new(dev, PTO_CORE_AIV, &kb))
		return NULL;
	pto_kb_ldi(kb, 3, 1);
	pto_kb_end(kb);
	return pto_test_kb_finish(kb, err, len);
}

/* Cores whose pending slot holds a unit (debugfs), or -1 without it. */
static int pending_units(void)
{
	char line[256];
	FILE *f = fopen(DEBUGFS_CORES, "r");
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n += !!strstr(line, " pending ");
	fclose(f);
	return n;
}

/*
 * The child: a context of its own; @blocks short blocks (they land in the
 * pending slots), and a second such task (no slot left: unplaced). Writes
 * 'R' once both are taken, then exits when the parent writes. Exit 0 if
 * all went to plan.
 */
static int waiter(int rd, int wr, uint32_t blocks)
{
	struct pto_task_desc d = { .block_num = blocks };
	struct pto_device *dev;
	struct pto_kernel *k;
	struct pto_queue *q;
	uint32_t consumed = 0;
	char err[256], c;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (pto_test_dev_open(&dev))
		return 2;
	k = short_kernel(dev, err, sizeof(err));
	if (!k || pto_queue_create(dev, 0, 0, &q))
		return 3;
	d.kernel_aiv = k;
	if (pto_queue_push_task(q, &d) || pto_queue_push_task(q, &d) ||
	    pto_queue_doorbell(q, 0, 0, &consumed, NULL) || consumed != 2)
		return 4;
	if (write(wr, "R", 1) != 1 || read(rd, &c, 1) != 1)
		return 5;
	/* Exit with both tasks in flight: the release cancels them. */
	return 0;
}

/* Reaps @pid, polling, for up to @timeout_ns. Returns its status or -1. */
static int reap_child(pid_t pid, int64_t timeout_ns)
{
	int64_t deadline = pto_test_now_ns() + timeout_ns;
	int status;

	while (pto_test_now_ns() < deadline) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			return status;
		if (r < 0)
			return -1;
		usleep(1000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return -1;
}

TEST_F_TIMEOUT(hold, close_does_not_wait_behind_another_context, 300)
{
	struct pto_queue_params p = { .work_budget = HOG_BUDGET };
	uint32_t aiv = self->info.aiv_cores;
	struct pto_task_desc d = { .block_num = aiv };
	int to_child[2], to_parent[2], status, pend, n;
	uint32_t consumed = 0;
	struct pto_cqe *cqes;
	struct pto_kernel *k;
	struct pto_queue *q;
	int64_t t0, took;
	pid_t pid;
	char c;

	cqes = calloc(aiv + 4, sizeof(*cqes));
	ASSERT_NE(NULL, cqes);
	k = spin_kernel(self->dev, self->err, sizeof(self->err));
	ASSERT_NE(NULL, k) TH_LOG("%s", self->err);
	ASSERT_EQ(0, pto_queue_create_params(self->dev, &p, &q));
	/* The hog: every AIV core runs one of its blocks. */
	d.kernel_aiv = k;
	ASSERT_EQ(0, pto_queue_push_task(q, &d));
	ASSERT_EQ(0, pto_queue_doorbell(q, 0, 0, &consumed, NULL));
	ASSERT_EQ(1u, consumed);

	ASSERT_EQ(0, pipe(to_child));
	ASSERT_EQ(0, pipe(to_parent));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(waiter(to_child[0], to_parent[1], aiv));
	ASSERT_EQ(1, read(to_parent[0], &c, 1));
	pend = pending_units();
	printf("# close_pending: %d of %u AIV cores' pending slots hold the child's units\n",
	       pend, aiv);
	if (pend >= 0)
		EXPECT_EQ((int)aiv, pend);

	t0 = pto_test_now_ns();
	ASSERT_EQ(1, write(to_child[1], "G", 1));
	status = reap_child(pid, EXIT_DEADLINE_NS);
	took = pto_test_now_ns() - t0;
	/* Before any of the hog's blocks ended: its CQ is still empty. */
	n = pto_queue_reap(q, cqes, aiv + 4);
	printf("# close_pending: the child's exit took %lld ms; the hog had %d CQEs then\n",
	       (long long)(took / 1000000), n);
	EXPECT_NE(-1, status);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("child status %#x", status);
	EXPECT_EQ(0, n);
	EXPECT_EQ(0, pending_units() > 0);

	/* The hog closes too: its running blocks stop at their next check. */
	close(to_child[0]);
	close(to_child[1]);
	close(to_parent[0]);
	close(to_parent[1]);
	free(cqes);
	pto_kernel_free(k);
}

TEST_HARNESS_MAIN
