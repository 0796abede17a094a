// SPDX-License-Identifier: GPL-2.0-only
/*
 * The device's hang detection is bounded by work, not by the host's speed:
 *  - a queue's work budget (QUEUE_CREATE.work_budget, module parameter
 *    work_budget by default) is validated and reported back;
 *  - a kernel that loops for ever ends with STATUS_WORK_BUDGET after the
 *    same number of instructions on every block and every run;
 *  - a unit that runs longer than timeout_ms in wall time is not failed:
 *    only its budget bounds it;
 *  - a block that is slow only because its CPU was taken (a real-time CPU
 *    hog on every CPU of the guest, as a host that deschedules the VM's
 *    vCPUs) for three times timeout_ms completes, and so do the units
 *    waiting for it at a HARD barrier: a wait ends with TIMEOUT only when
 *    no unit of its task has run for timeout_ms of the watchdog's own
 *    clock.
 *
 * Copyright (C) 2026 pto-npu authors
 */
#include <linux/capability.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define PTO_TEST_LIBPTO
#include "pto_test.h"

/* A small budget: a runaway kernel ends fast, even under KASAN and TCG. */
#define SMALL_BUDGET (1u << 16)
/* The interpreter checks its budget at least every this many instructions. */
#define CHECK_EVERY 256
#define RUNS 3
/*
 * interpreter_rate's budget for one block (a sixteenth of it for each of
 * 48): about a second under TCG with KASAN.
 */
#define RATE_BUDGET (1u << 20)
/* The long kernels' (2 x 10^7 instructions): past the default budget. */
#define LONG_BUDGET (1u << 26)
#define BLOCKS 8
#define RUN_TIMEOUT_NS PTO_TEST_SEC(60)
/* The wall-clock last resort these tests lower timeout_ms to. */
#define LOW_TIMEOUT_MS 100
/*
 * The starved test's: real-time throttling stops other threads for 950 ms
 * of each second (one step of the watchdog's clock, at most 100 ms) and
 * lets them run for 50 ms, in which that clock moves on as the starved
 * block competes for the CPU: about 150 ms a second.
 */
#define STARVED_TIMEOUT_MS 1000
/* How long the CPU hog holds every CPU, ms: three times the timeout. */
#define HOG_MS 3000

FIXTURE(budget)
{
	int fd;
	struct pto_device *dev;
	struct drm_pto_npu_limits lim;
	struct pto_device_info info;
	long old_timeout;
	long old_max;
	long old_user;
	char err[256];
};

FIXTURE_SETUP(budget)
{
	self->old_timeout = 0;
	self->old_max = 0;
	self->old_user = 0;
	self->fd = pto_test_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pto_test_limits(self->fd, &self->lim));
	ASSERT_EQ(0, pto_test_dev_open(&self->dev));
	ASSERT_EQ(0, pto_device_query_info(self->dev, &self->info));
}

FIXTURE_TEARDOWN(budget)
{
	if (self->old_timeout > 0)
		pto_test_param_write("timeout_ms", self->old_timeout);
	if (self->old_max > 0)
		pto_test_param_write("max_work_budget", self->old_max);
	if (self->old_user > 0)
		pto_test_param_write("max_user_work_budget", self->old_user);
	pto_device_close(self->dev);
	close(self->fd);
}

static void lower_timeout(struct __test_metadata *_metadata,
			  FIXTURE_DATA(budget) *self, long ms)
{
	self->old_timeout = pto_test_param_read("timeout_ms");
	ASSERT_LT(0, self->old_timeout);
	ASSERT_EQ(0, pto_test_param_write("timeout_ms", ms));
}

static int queue_create_raw(int fd, uint64_t budget,
			    struct drm_pto_npu_queue_create *c)
{
	memset(c, 0, sizeof(*c));
	c->sq_slots = 64;
	c->work_budget = budget;
	return pto_test_ret(ioctl(fd, DRM_IOCTL_PTO_NPU_QUEUE_CREATE, c));
}

static void queue_destroy_raw(int fd, const struct drm_pto_npu_queue_create *c)
{
	struct drm_pto_npu_queue_destroy d = { .queue_id = c->queue_id };

	ioctl(fd, DRM_IOCTL_PTO_NPU_QUEUE_DESTROY, &d);
	pto_test_gem_close(fd, c->handle);
}

/* An AIV kernel: s3 += 1, @outer x PTO_MAX_LOOP_COUNT^2 times. */
static struct pto_kernel *spin_kernel(struct pto_device *dev, int64_t outer,
				      char *err, size_t len)
{
	struct pto_kb *kb;

	if (pto_kb_new(dev, PTO_CORE_AIV, &kb))
		return NULL;
	pto_kb_ldi(kb, 3, 0);
	pto_kb_loopi(kb, 5, outer);
	pto_kb_loopi(kb, 6, PTO_MAX_LOOP_COUNT);
	pto_kb_loopi(kb, 2, PTO_MAX_LOOP_COUNT);
	pto_kb_alui(kb, PTO_ALU_ADD, 3, 3, 1);
	pto_kb_endloop(kb);
	pto_kb_endloop(kb);
	pto_kb_endloop(kb);
	pto_kb_end(kb);
	return pto_test_kb_finish(kb, err, len);
}

/* Loops of @outer x @inner iterations of s3 += 1 (two instructions each). */
static void count_loops(struct pto_kb *kb, int64_t outer, int64_t inner)
{
	pto_kb_loopi(kb, 5, outer);
	pto_kb_loopi(kb, 2, inner);
	pto_kb_alui(kb, PTO_ALU_ADD, 3, 3, 1);
	pto_kb_endloop(kb);
	pto_kb_endloop(kb);
}

/* An AIV kernel: the loops above, then END. */
static struct pto_kernel *count_kernel(struct pto_device *dev, int64_t outer,
				       int64_t inner, char *err, size_t len)
{
	struct pto_kb *kb;

	if (pto_kb_new(dev, PTO_CORE_AIV, &kb))
		return NULL;
	pto_kb_ldi(kb, 3, 0);
	count_loops(kb, outer, inner);
	pto_kb_end(kb);
	return pto_test_kb_finish(kb, err, len);
}

TEST_F(budget, out_of_range_budget_is_rejected)
{
	struct drm_pto_npu_queue_create c;

	ASSERT_LT(0ull, self->lim.min_work_budget);
	ASSERT_LE(self->lim.min_work_budget, self->lim.work_budget);
	ASSERT_LE(self->lim.work_budget, self->lim.max_work_budget);
	EXPECT_EQ(-EINVAL, queue_create_raw(self->fd, self->lim.min_work_budget - 1, &c));
	EXPECT_EQ(-EINVAL, queue_create_raw(self->fd, self->lim.max_work_budget + 1, &c));
	EXPECT_EQ(-EINVAL, queue_create_raw(self->fd, UINT64_MAX, &c));
	EXPECT_EQ(-EINVAL, queue_create_raw(self->fd, 1, &c));
}

TEST_F(budget, default_and_given_budgets_are_reported)
{
	struct pto_queue_params p = { .work_budget = SMALL_BUDGET };
	struct drm_pto_npu_queue_create c;
	struct pto_queue *q;

	ASSERT_EQ(0, queue_create_raw(self->fd, 0, &c));
	EXPECT_EQ(self->lim.work_budget, c.work_budget);
	queue_destroy_raw(self->fd, &c);
	ASSERT_EQ(0, queue_create_raw(self->fd, self->lim.min_work_budget, &c));
	EXPECT_EQ(self->lim.min_work_budget, c.work_budget);
	queue_destroy_raw(self->fd, &c);
	ASSERT_EQ(0, queue_create_raw(self->fd, self->lim.max_work_budget, &c));
	EXPECT_EQ(self->lim.max_work_budget, c.work_budget);
	queue_destroy_raw(self->fd, &c);

	ASSERT_EQ(0, pto_queue_create_params(self->dev, &p, &q));
	EXPECT_EQ((uint64_t)SMALL_BUDGET, pto_queue_work_budget(q));
	EXPECT_EQ(0, pto_queue_destroy(q));
	p.reserved[2] = 1;
	EXPECT_EQ(-EINVAL, pto_queue_create_params(self->dev, &p, &q));
	EXPECT_EQ(NULL, q);
}

/*
 * max_work_budget, the administrator's bound on what a queue may ask for:
 * validated, reported in the limits, enforced at QUEUE_CREATE, and the
 * default budget never above it.
 */
TEST_F(budget, max_work_budget_parameter_bounds_queue_budgets)
{
	struct drm_pto_npu_limits lim;
	struct drm_pto_npu_queue_create c;
	const long lower = 1 << 20, tiny = 1 << 12;

	self->old_max = pto_test_param_read("max_work_budget");
	ASSERT_LT(0, self->old_max);
	EXPECT_EQ((uint64_t)self->old_max, self->lim.max_work_budget);
	EXPECT_EQ(-EINVAL, pto_test_param_write("max_work_budget", 1023));
	EXPECT_EQ(-EINVAL, pto_test_param_write("max_work_budget", (1L << 48) + 1));
	EXPECT_EQ(self->old_max, pto_test_param_read("max_work_budget"));

	ASSERT_EQ(0, pto_test_param_write("max_work_budget", lower));
	ASSERT_EQ(0, pto_test_limits(self->fd, &lim));
	EXPECT_EQ((uint64_t)lower, lim.max_work_budget);
	EXPECT_EQ(0u, lim.pad2);
	/* At the max: accepted; above it: refused, as any bad size. */
	ASSERT_EQ(0, queue_create_raw(self->fd, lower, &c));
	EXPECT_EQ((uint64_t)lower, c.work_budget);
	queue_destroy_raw(self->fd, &c);
	EXPECT_EQ(-EINVAL, queue_create_raw(self->fd, lower + 1, &c));
	EXPECT_EQ(-EINVAL, queue_create_raw(self->fd, self->old_max, &c));

	/* Below the default budget: the default follows it down. */
	ASSERT_EQ(0, pto_test_param_write("max_work_budget", tiny));
	ASSERT_EQ(0, pto_test_limits(self->fd, &lim));
	EXPECT_EQ((uint64_t)tiny, lim.max_work_budget);
	EXPECT_EQ((uint64_t)tiny, lim.work_budget);
	ASSERT_EQ(0, queue_create_raw(self->fd, 0, &c));
	EXPECT_EQ((uint64_t)tiny, c.work_budget);
	queue_destroy_raw(self->fd, &c);

	ASSERT_EQ(0, pto_test_param_write("max_work_budget", self->old_max));
	ASSERT_EQ(0, pto_test_limits(self->fd, &lim));
	EXPECT_EQ((uint64_t)self->old_max, lim.max_work_budget);
	EXPECT_EQ(self->lim.work_budget, lim.work_budget);
}

/* This process without CAP_SYS_NICE (raw capset: no libcap). */
static int drop_sys_nice(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
	const uint32_t bit = 1u << (CAP_SYS_NICE % 32);

	if (syscall(SYS_capget, &h, d))
		return -1;
	d[CAP_SYS_NICE / 32].effective &= ~bit;
	d[CAP_SYS_NICE / 32].permitted &= ~bit;
	d[CAP_SYS_NICE / 32].inheritable &= ~bit;
	return syscall(SYS_capset, &h, d) ? -1 : 0;
}

/*
 * In a child without CAP_SYS_NICE: the limits report @user as the largest
 * budget, a queue may have it and the default, and one more is -EPERM.
 * Returns 0, or the step that failed.
 */
static int unprivileged_budgets(int fd, uint64_t user, uint64_t dflt)
{
	struct drm_pto_npu_queue_create c;
	struct drm_pto_npu_limits lim;

	if (drop_sys_nice())
		return 1;
	if (pto_test_limits(fd, &lim) || lim.max_work_budget != user)
		return 2;
	if (queue_create_raw(fd, user, &c) || c.work_budget != user)
		return 3;
	queue_destroy_raw(fd, &c);
	if (queue_create_raw(fd, 0, &c) || c.work_budget != dflt)
		return 4;
	queue_destroy_raw(fd, &c);
	if (queue_create_raw(fd, user + 1, &c) != -EPERM)
		return 5;
	return 0;
}

static int unprivileged_child(int fd, uint64_t user, uint64_t dflt)
{
	pid_t pid = fork();
	int st = 0;

	if (pid == 0)
		_exit(unprivileged_budgets(fd, user, dflt));
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/*
 * A unit holds its core until its budget ends: past the default budget a
 * caller needs CAP_SYS_NICE, or the administrator's max_user_work_budget
 * (Documentation/robustness.rst). Root keeps max_work_budget.
 */
TEST_F(budget, budget_past_the_default_needs_cap_sys_nice)
{
	const long raised = 1L << 22;

	self->old_user = pto_test_param_read("max_user_work_budget");
	ASSERT_EQ((long)self->lim.work_budget, self->old_user)
		TH_LOG("max_user_work_budget defaults to the default budget");
	EXPECT_EQ(self->lim.max_work_budget,
		  (uint64_t)pto_test_param_read("max_work_budget"));
	EXPECT_EQ(0, unprivileged_child(self->fd, self->old_user,
					self->lim.work_budget));
	EXPECT_EQ(-EINVAL, pto_test_param_write("max_user_work_budget", 1023));
	ASSERT_EQ(0, pto_test_param_write("max_user_work_budget", raised));
	EXPECT_EQ(0, unprivileged_child(self->fd, raised, self->lim.work_budget));
}

TEST_F(budget, runaway_kernel_ends_after_the_same_count_every_run)
{
	struct pto_queue_params p = { .work_budget = SMALL_BUDGET };
	struct pto_task_desc d = { .block_num = BLOCKS };
	struct pto_cqe cqes[BLOCKS + 4];
	uint64_t first = 0;
	struct pto_queue *q;
	struct pto_kernel *k;
	int run, i, n;

	k = spin_kernel(self->dev, PTO_MAX_LOOP_COUNT, self->err, sizeof(self->err));
	ASSERT_NE(NULL, k) TH_LOG("%s", self->err);
	ASSERT_EQ(0, pto_queue_create_params(self->dev, &p, &q));
	d.kernel_aiv = k;
	for (run = 0; run < RUNS; run++) {
		const struct pto_cqe *last;

		n = pto_test_submit_one(q, &d, cqes, BLOCKS + 4, RUN_TIMEOUT_NS, NULL);
		ASSERT_EQ(BLOCKS, n);
		last = &cqes[n - 1];
		ASSERT_TRUE(!!(last->info.flags & PTO_BLOCK_LAST));
		/* The task: the first unit past its budget, and its count. */
		EXPECT_EQ(PTO_STATUS_WORK_BUDGET, last->info.status);
		EXPECT_LT((uint64_t)SMALL_BUDGET, last->info.detail);
		EXPECT_GE((uint64_t)SMALL_BUDGET + CHECK_EVERY, last->info.detail);
		if (!first)
			first = last->info.detail;
		/* Same program, same budget: the same count, every run. */
		EXPECT_EQ(first, last->info.detail) TH_LOG("run %d", run);
		/*
		 * Every other block reached the same count, or was cancelled
		 * by the first one's failure before it did.
		 */
		for (i = 0; i < n - 1; i++) {
			if (cqes[i].info.status == PTO_STATUS_CANCELLED)
				continue;
			EXPECT_EQ(PTO_STATUS_WORK_BUDGET, cqes[i].info.status);
			EXPECT_EQ(first, cqes[i].info.detail)
				TH_LOG("run %d block %u", run, cqes[i].info.block);
		}
	}
	printf("# work_budget: %d runs x %d blocks ended after %llu instructions (budget %u)\n",
	       RUNS, BLOCKS, (unsigned long long)first, SMALL_BUDGET);

	/* The device goes on: a kernel within the budget ends OK. */
	pto_kernel_free(k);
	k = count_kernel(self->dev, 1, SMALL_BUDGET / 4, self->err, sizeof(self->err));
	ASSERT_NE(NULL, k) TH_LOG("%s", self->err);
	d.kernel_aiv = k;
	n = pto_test_submit_one(q, &d, cqes, BLOCKS + 4, RUN_TIMEOUT_NS, NULL);
	ASSERT_EQ(BLOCKS, n);
	for (i = 0; i < n; i++)
		EXPECT_EQ(PTO_STATUS_OK, cqes[i].info.status);
	EXPECT_EQ(0, pto_queue_destroy(q));
	pto_kernel_free(k);
}

/*
 * Runs @blocks blocks of the endless kernel @k on @q; every block must end
 * with STATUS_WORK_BUDGET (or CANCELLED, after the first one's failure).
 * Returns the LAST CQE's count of instructions, 0 on a failure; *@ns gets
 * the wall time from the doorbell to the last CQE.
 */
static uint64_t run_runaway(struct __test_metadata *_metadata,
			    struct pto_queue *q, struct pto_kernel *k,
			    uint32_t blocks, int64_t *ns)
{
	struct pto_task_desc d = { .block_num = blocks, .kernel_aiv = k };
	struct pto_cqe *cqes = calloc(blocks + 4, sizeof(*cqes));
	uint64_t count = 0;
	int64_t t0;
	int n, i;

	EXPECT_NE(NULL, cqes);
	if (!cqes)
		return 0;
	t0 = pto_test_now_ns();
	n = pto_test_submit_one(q, &d, cqes, blocks + 4, RUN_TIMEOUT_NS, NULL);
	*ns = pto_test_now_ns() - t0;
	EXPECT_EQ((int)blocks, n);
	if (n == (int)blocks) {
		const struct pto_cqe *last = &cqes[n - 1];

		EXPECT_EQ(PTO_STATUS_WORK_BUDGET, last->info.status);
		if (last->info.status == PTO_STATUS_WORK_BUDGET)
			count = last->info.detail;
		for (i = 0; i < n - 1; i++)
			if (cqes[i].info.status != PTO_STATUS_CANCELLED)
				EXPECT_EQ(PTO_STATUS_WORK_BUDGET, cqes[i].info.status);
	}
	free(cqes);
	return count;
}

/*
 * The interpreter's speed in this VM, for choosing the default budget:
 * instructions per second of one block alone, and of every AIV core at
 * once (all the VM's vCPUs). Prints; asserts only the statuses.
 */
TEST_F_TIMEOUT(budget, interpreter_rate, 120)
{
	struct pto_queue_params p = { .work_budget = RATE_BUDGET };
	uint32_t aiv = self->info.aiv_cores;
	struct pto_queue *q, *qall;
	struct pto_kernel *k;
	uint64_t n1, nall;
	int64_t t1, tall;

	k = spin_kernel(self->dev, PTO_MAX_LOOP_COUNT, self->err, sizeof(self->err));
	ASSERT_NE(NULL, k) TH_LOG("%s", self->err);
	ASSERT_EQ(0, pto_queue_create_params(self->dev, &p, &q));
	p.work_budget = RATE_BUDGET / 16;
	ASSERT_EQ(0, pto_queue_create_params(self->dev, &p, &qall));
	n1 = run_runaway(_metadata, q, k, 1, &t1);
	nall = run_runaway(_metadata, qall, k, aiv, &tall);
	ASSERT_LT(0, t1);
	ASSERT_LT(0, tall);
	printf("# work_budget: rate: 1 block: %llu instructions in %lld ms: %.3g/s\n",
	       (unsigned long long)n1, (long long)(t1 / 1000000),
	       n1 * 1e9 / (double)t1);
	printf("# work_budget: rate: %u blocks: %llu instructions in %lld ms: %.3g/s in all, %ld CPUs\n",
	       aiv, (unsigned long long)nall * aiv, (long long)(tall / 1000000),
	       (double)nall * aiv * 1e9 / (double)tall,
	       sysconf(_SC_NPROCESSORS_ONLN));
	EXPECT_EQ(0, pto_queue_destroy(q));
	EXPECT_EQ(0, pto_queue_destroy(qall));
	pto_kernel_free(k);
}

/*
 * The done-when of the default budget: an endless kernel on every AIV
 * core (48 blocks) of a queue created without a budget ends with
 * STATUS_WORK_BUDGET, after the same count on every run. The time is
 * printed, not asserted (the budget is work, not time).
 */
TEST_F_TIMEOUT(budget, default_budget_ends_an_endless_kernel_on_every_core, 120)
{
	uint32_t aiv = self->info.aiv_cores;
	struct pto_kernel *k;
	struct pto_queue *q;
	uint64_t n[2];
	int64_t t[2];
	int run;

	k = spin_kernel(self->dev, PTO_MAX_LOOP_COUNT, self->err, sizeof(self->err));
	ASSERT_NE(NULL, k) TH_LOG("%s", self->err);
	ASSERT_EQ(0, pto_queue_create(self->dev, 0, 0, &q));
	ASSERT_EQ(self->lim.work_budget, pto_queue_work_budget(q));
	for (run = 0; run < 2; run++) {
		n[run] = run_runaway(_metadata, q, k, aiv, &t[run]);
		ASSERT_LT(self->lim.work_budget, n[run]);
		ASSERT_GE(self->lim.work_budget + CHECK_EVERY, n[run]);
		printf("# work_budget: default budget %llu: %u endless blocks ended after %llu instructions each in %lld ms\n",
		       (unsigned long long)self->lim.work_budget, aiv,
		       (unsigned long long)n[run], (long long)(t[run] / 1000000));
	}
	EXPECT_EQ(n[0], n[1]);
	EXPECT_EQ(0, pto_queue_destroy(q));
	pto_kernel_free(k);
}

/*
 * A unit that runs for much longer than timeout_ms (the wall-clock last
 * resort) ends OK: running units are bounded by their budget only.
 */
TEST_F(budget, long_unit_is_bounded_by_work_not_wall_time)
{
	struct pto_queue_params p = { .work_budget = LONG_BUDGET };
	struct pto_task_desc d = { .block_num = 1 };
	struct pto_cqe cqes[4];
	struct pto_kernel *k;
	struct pto_queue *q;
	int64_t ran;
	int n;

	lower_timeout(_metadata, self, LOW_TIMEOUT_MS);
	/* About 2 x 10^7 instructions: seconds under TCG. */
	k = count_kernel(self->dev, 10, 1000000, self->err, sizeof(self->err));
	ASSERT_NE(NULL, k) TH_LOG("%s", self->err);
	ASSERT_EQ(0, pto_queue_create_params(self->dev, &p, &q));
	d.kernel_aiv = k;
	n = pto_test_submit_one(q, &d, cqes, 4, RUN_TIMEOUT_NS, NULL);
	ASSERT_EQ(1, n);
	EXPECT_EQ(PTO_STATUS_OK, cqes[0].info.status);
	ran = (int64_t)(cqes[0].info.ts_end - cqes[0].info.ts_start);
	printf("# work_budget: a unit ran %lld ms with timeout_ms %d: %s\n",
	       (long long)(ran / 1000000), LOW_TIMEOUT_MS,
	       pto_status_name(cqes[0].info.status));
	/* The point of the test, where the host is fast enough to show it. */
	if (ran < PTO_TEST_MSEC(LOW_TIMEOUT_MS))
		TH_LOG("note: the unit ran only %lld ms", (long long)(ran / 1000000));
	EXPECT_EQ(0, pto_queue_destroy(q));
	pto_kernel_free(k);
}

/* One child per CPU, each pinned to it, SCHED_FIFO, spinning @ms. */
static int start_hogs(pid_t *pids, int ncpu, int ms)
{
	int i;

	for (i = 0; i < ncpu; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			return -errno;
		if (!pids[i]) {
			struct sched_param sp = { .sched_priority = 1 };
			cpu_set_t set;
			int64_t end;

			prctl(PR_SET_PDEATHSIG, SIGKILL);
			CPU_ZERO(&set);
			CPU_SET(i, &set);
			if (sched_setaffinity(0, sizeof(set), &set) ||
			    sched_setscheduler(0, SCHED_FIFO, &sp))
				_exit(2);
			end = pto_test_now_ns() + PTO_TEST_MSEC(ms);
			while (pto_test_now_ns() < end)
				;
			_exit(0);
		}
	}
	return 0;
}

/*
 * Every AIV core meets at a HARD barrier; block 0 first computes for a
 * while. Real-time hogs take every CPU from the device's threads (and the
 * watchdog) for many times timeout_ms. Nothing may time out: the slow
 * block was starved, not stuck, and its waiters wait for it.
 */
TEST_F(budget, starved_block_and_its_waiters_complete)
{
	uint32_t aiv = self->info.aiv_cores;
	struct pto_queue_params p = { .work_budget = LONG_BUDGET };
	struct pto_task_desc d = { .block_num = aiv, .flags = PTO_TASK_SYNC_START };
	int ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN), i, n, status;
	struct pto_cqe *cqes;
	struct pto_kernel *k;
	struct pto_queue *q;
	struct pto_kb *kb;
	uint32_t consumed = 0;
	pid_t hogs[64];
	int skip;

	ASSERT_LT(0, ncpu);
	ASSERT_GE(64, ncpu);
	cqes = calloc(aiv + 4, sizeof(*cqes));
	ASSERT_NE(NULL, cqes);
	ASSERT_EQ(0, pto_kb_new(self->dev, PTO_CORE_AIV, &kb));
	skip = pto_kb_label_new(kb);
	pto_kb_sreg(kb, 0, PTO_SREG_BLOCK_IDX);
	pto_kb_jnz(kb, 0, skip);
	/* Block 0: about 2 x 10^7 instructions before the barrier. */
	count_loops(kb, 10, 1000000);
	pto_kb_label_bind(kb, skip);
	pto_kb_syncall_hard(kb, PTO_SYNC_AIV);
	pto_kb_end(kb);
	k = pto_test_kb_finish(kb, self->err, sizeof(self->err));
	ASSERT_NE(NULL, k) TH_LOG("%s", self->err);
	ASSERT_EQ(0, pto_queue_create_params(self->dev, &p, &q));
	lower_timeout(_metadata, self, STARVED_TIMEOUT_MS);
	d.kernel_aiv = k;
	ASSERT_EQ(0, pto_queue_push_task(q, &d));
	ASSERT_EQ(0, pto_queue_doorbell(q, 0, 0, &consumed, NULL));
	ASSERT_EQ(1u, consumed);
	/* The other blocks reach the barrier; block 0 computes. */
	usleep(20 * 1000);
	ASSERT_EQ(0, start_hogs(hogs, ncpu, HOG_MS));
	n = pto_test_reap_lasts(q, cqes, aiv + 4, 1, RUN_TIMEOUT_NS);
	for (i = 0; i < ncpu; i++) {
		waitpid(hogs[i], &status, 0);
		EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
			TH_LOG("hog %d could not take its CPU", i);
	}
	ASSERT_EQ((int)aiv, n);
	for (i = 0; i < n; i++)
		EXPECT_EQ(PTO_STATUS_OK, cqes[i].info.status)
			TH_LOG("block %u: %s", cqes[i].info.block,
			       pto_status_name(cqes[i].info.status));
	printf("# work_budget: %u blocks at a HARD barrier, %d CPUs hogged %d ms, timeout_ms %d\n",
	       aiv, ncpu, HOG_MS, STARVED_TIMEOUT_MS);
	EXPECT_EQ(0, pto_queue_destroy(q));
	pto_kernel_free(k);
	free(cqes);
}

TEST_HARNESS_MAIN
