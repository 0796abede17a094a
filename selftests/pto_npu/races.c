// SPDX-License-Identifier: GPL-2.0-only
/*
 * Completion races (issue #29, finding 1). A completion that cannot be
 * posted (the CQ is full) is held in the kernel; QUEUE_WAIT and the doorbell
 * move held completions into freed CQ space and free their tasks, and
 * close() frees what is still held. An early-resolve producer's completion
 * is posted by the worker of the consumer it released, once that consumer
 * has started, with no scheduler lock held: it must not touch the task, or
 * its context, once the task is on the held list, where another thread may
 * free it (and close() the context) at any moment.
 *
 * Each round a child process (its own context) streams chains of
 * early-resolve tasks into a queue with a one-entry CQ, one thread pushing
 * and ringing, another in QUEUE_WAIT and reaping the whole time; odd rounds drain and
 * check every task's completion (nothing accepted is lost), even rounds
 * exit with everything in flight (close() against the deferred posts).
 * Under KASAN (the debug kernel) a use after free is a splat, which fails
 * the run; the child must also exit promptly and the device then still run
 * work.
 *
 * Copyright (C) 2026 pto-npu authors
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#define PTO_TEST_LIBPTO
#include "pto_test.h"

#define ROUNDS 24
/* Chains per round, tasks per chain (one doorbell each). */
#define CHAINS 40
#define CHAIN 8
#define SPIN 300
#define REAP_MAX 64

struct waiter {
	struct pto_queue *q;
	int stop;
	unsigned int lasts;
	unsigned int bad;
	int err;
};

/* Reads what the CQ has; counts LAST completions and failed ones. */
static int reap(struct pto_queue *q, unsigned int *lasts, unsigned int *bad)
{
	struct pto_cqe c[REAP_MAX];
	int n, i;

	n = pto_queue_reap(q, c, REAP_MAX);
	for (i = 0; i < n; i++) {
		if (!(c[i].info.flags & PTO_BLOCK_LAST))
			continue;
		__atomic_add_fetch(lasts, 1, __ATOMIC_RELEASE);
		if (c[i].info.status != PTO_STATUS_OK)
			(*bad)++;
	}
	return n < 0 ? n : 0;
}

/*
 * The CQ's side, over and over: each QUEUE_WAIT moves held completions
 * into the space the last reap freed, and frees their tasks, while the
 * other thread rings and the cores post.
 */
static void *wait_thread(void *arg)
{
	struct waiter *w = arg;

	while (!__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE) && !w->err) {
		pto_queue_wait(w->q, pto_test_now_ns() + PTO_TEST_MSEC(1));
		w->err = reap(w->q, &w->lasts, &w->bad);
	}
	return NULL;
}

static struct pto_kernel *build_spin(struct pto_device *dev)
{
	struct pto_kb *kb;

	if (pto_kb_new(dev, PTO_CORE_AIV, &kb))
		return NULL;
	pto_kb_ldi(kb, 0, 0);
	pto_kb_loopi(kb, 1, SPIN);
	pto_kb_alui(kb, PTO_ALU_ADD, 0, 0, 1);
	pto_kb_endloop(kb);
	pto_kb_end(kb);
	return pto_test_kb_finish(kb, NULL, 0);
}

/* One chain of early-resolve tasks, each depending on the one before. */
static int push_chain(struct pto_queue *q, struct pto_kernel *k)
{
	static const int64_t prev = -1;
	unsigned int i;
	int ret;

	for (i = 0; i < CHAIN; i++) {
		struct pto_task_desc d = {
			.kernel_aiv = k, .block_num = 1,
			.flags = PTO_TASK_EARLY_RESOLVE,
			.deps = i ? &prev : NULL, .num_deps = i ? 1 : 0,
		};

		while ((ret = pto_queue_push_task(q, &d)) == -EAGAIN) {
			ret = pto_queue_doorbell(q, 0, 0, NULL, NULL);
			if (ret)
				return ret;
			usleep(100);
		}
		if (ret)
			return ret;
	}
	return pto_queue_doorbell(q, 0, 0, NULL, NULL);
}

/* The child's round: exit codes 0 (good) or the step that failed. */
static int child_round(int drain)
{
	struct waiter w = { 0 };
	struct pto_device *dev;
	struct pto_kernel *k;
	unsigned int i;
	pthread_t th;
	int64_t end;

	if (pto_test_dev_open(&dev) || pto_queue_create(dev, 0, 1, &w.q))
		return 2;
	k = build_spin(dev);
	if (!k || pthread_create(&th, NULL, wait_thread, &w))
		return 3;
	for (i = 0; i < CHAINS; i++)
		if (push_chain(w.q, k))
			return 4;
	if (!drain)
		_exit(0);	/* close() with the chains in flight */
	end = pto_test_now_ns() + PTO_TEST_SEC(60);
	while (__atomic_load_n(&w.lasts, __ATOMIC_ACQUIRE) < CHAINS * CHAIN &&
	       !__atomic_load_n(&w.err, __ATOMIC_ACQUIRE) &&
	       pto_test_now_ns() < end)
		usleep(1000);
	__atomic_store_n(&w.stop, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	if (w.err)
		return 5;
	if (w.lasts != CHAINS * CHAIN) {
		fprintf(stderr, "# %u of %u tasks completed\n", w.lasts,
			CHAINS * CHAIN);
		return 6;
	}
	if (w.bad) {
		fprintf(stderr, "# %u tasks failed\n", w.bad);
		return 7;
	}
	return 0;
}

FIXTURE(races)
{
	int unused;
};

FIXTURE_SETUP(races)
{
}

FIXTURE_TEARDOWN(races)
{
}

TEST_F_TIMEOUT(races, early_resolve_chains_one_entry_cq_against_wait_and_close, 600)
{
	struct pto_device *dev;
	struct pto_kernel *k;
	struct pto_queue *q;
	unsigned int i, lasts = 0, bad = 0;
	int status;

	for (i = 0; i < ROUNDS; i++) {
		int64_t end = pto_test_now_ns() + PTO_TEST_SEC(60);
		pid_t pid = fork(), r;

		ASSERT_LE(0, pid);
		if (!pid)
			_exit(child_round(i & 1));
		while ((r = waitpid(pid, &status, WNOHANG)) == 0 &&
		       pto_test_now_ns() < end)
			usleep(5000);
		if (!r) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
		}
		ASSERT_EQ(pid, r) TH_LOG("round %u: the child hangs", i);
		ASSERT_TRUE(WIFEXITED(status)) TH_LOG("round %u: status 0x%x", i, status);
		ASSERT_EQ(0, WEXITSTATUS(status))
			TH_LOG("round %u (%s): step %d failed", i,
			       i & 1 ? "drained" : "closed in flight",
			       WEXITSTATUS(status));
	}
	/* The device still runs work, every completion posted. */
	ASSERT_EQ(0, pto_test_dev_open(&dev));
	ASSERT_EQ(0, pto_queue_create(dev, 0, 1, &q));
	k = build_spin(dev);
	ASSERT_NE(NULL, k);
	ASSERT_EQ(0, push_chain(q, k));
	while (lasts < CHAIN) {
		ASSERT_EQ(0, pto_queue_wait(q, pto_test_now_ns() + PTO_TEST_SEC(30)));
		ASSERT_EQ(0, reap(q, &lasts, &bad));
	}
	EXPECT_EQ(0U, bad);
	pto_kernel_free(k);
	pto_queue_destroy(q);
	pto_device_close(dev);
	printf("# %d rounds of %d early-resolve chains of %d on a 1-entry CQ\n",
	       ROUNDS, CHAINS, CHAIN);
}

TEST_HARNESS_MAIN
