// SPDX-License-Identifier: GPL-2.0-only
/*
 * allow_early_resolve (SPEC 4.4): a consumer whose every unfinished
 * producer carries DRM_PTO_NPU_TASK_F_EARLY_RESOLVE and has all its blocks
 * on cores is pre-staged onto idle cores and started by a doorbell when
 * the producer completes; its CQEs carry DRM_PTO_NPU_CQE_F_STAGED. It is a
 * pure scheduling hint: results, statuses and the graph never change, no
 * deadlock with waves, a predicated consumer is never staged, a failed
 * producer fails its staged consumer with DEP_FAILED, closing the device
 * with staged work in flight does not hang.
 *
 * Copyright (C) 2026 pto-npu authors
 */
#define PTO_TEST_LIBPTO
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "pto_test.h"

#define RUN_TIMEOUT PTO_TEST_SEC(60)
#define COLS 128
/* Rows of the tile one block of the add kernel handles. */
#define TR 8
/* How long a "slow" producer block should take. */
#define SLOW_MS 100
#define CAL_ITERS 200

FIXTURE(early)
{
	struct pto_device *dev;
	struct pto_queue *q;
	/* out[blk*TR.., :] = in[blk*TR.., :] + ARG0 (ARG0 additions of 1.0). */
	struct pto_kernel *k_add;
	unsigned int aiv;
	int64_t slow_iters;
	/* timeout_ms to restore at teardown, 0 if untouched. */
	long old_timeout;
	char err[512];
};

static struct pto_kernel *build_add(struct pto_device *dev, char *err,
				    size_t len)
{
	struct pto_kb *kb;
	int t;

	if (pto_kb_new(dev, PTO_CORE_AIV, &kb))
		return NULL;
	t = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, TR, COLS);
	pto_kb_sreg(kb, 0, PTO_SREG_BLOCK_IDX);
	pto_kb_alui(kb, PTO_ALU_MUL, 0, 0, TR);
	pto_kb_ldi(kb, 1, 0);
	pto_kb_arg(kb, 2, 0);
	pto_kb_tload(kb, t, 0, 0, 1);
	pto_kb_loop(kb, 3, 2);
	pto_kb_tbinsf(kb, PTO_TBIN_ADD, t, t, 1.0f);
	pto_kb_endloop(kb);
	pto_kb_tstore(kb, t, 1, 0, 1);
	pto_kb_end(kb);
	return pto_test_kb_finish(kb, err, len);
}

static int add_add(struct pto_graph *g, struct pto_kernel *k,
		   struct pto_tensor *in, struct pto_tensor *out,
		   unsigned int blocks, const int64_t *iters, uint32_t flags,
		   const int64_t *deps, uint32_t nd,
		   const struct pto_predicate *pred, struct pto_tensor *extra)
{
	struct pto_tensor *args[3] = { in, out, extra };
	struct pto_task_desc d = {
		.kernel_aiv = k,
		.block_num = blocks,
		.flags = flags,
		.tensors = args,
		.num_tensors = extra ? 3 : 2,
		.scalars = iters,
		.num_scalars = 1,
		.deps = deps,
		.num_deps = nd,
		.predicate = pred,
	};

	return pto_graph_add_task(g, &d);
}

static struct pto_tensor *ftensor(struct pto_device *dev, int64_t rows,
				  float base)
{
	struct pto_tensor *t;
	float *p;
	int64_t i;

	if (pto_test_tensor2d(dev, PTO_DTYPE_F32, rows, COLS, &t))
		return NULL;
	p = pto_tensor_data(t);
	for (i = 0; i < rows * COLS; i++)
		p[i] = base + (float)(i % 13);
	return t;
}

/* max ts_end / min ts_start over the blocks of graph task @idx that ran. */
static uint64_t task_end(const struct pto_graph *g, unsigned int idx)
{
	const struct pto_block_info *b;
	unsigned int n = 0, i;
	uint64_t m = 0;

	pto_graph_task_blocks(g, idx, &b, &n);
	for (i = 0; i < n; i++)
		if ((b[i].flags & PTO_BLOCK_RAN) && b[i].ts_end > m)
			m = b[i].ts_end;
	return m;
}

static uint64_t task_start(const struct pto_graph *g, unsigned int idx)
{
	const struct pto_block_info *b;
	unsigned int n = 0, i;
	uint64_t m = UINT64_MAX;

	pto_graph_task_blocks(g, idx, &b, &n);
	for (i = 0; i < n; i++)
		if ((b[i].flags & PTO_BLOCK_RAN) && b[i].ts_start < m)
			m = b[i].ts_start;
	return m;
}

FIXTURE_SETUP(early)
{
	struct pto_tensor *a, *b;
	struct pto_graph *g;
	const struct pto_block_info *blk;
	unsigned int n = 0;
	int64_t iters = CAL_ITERS, per;

	ASSERT_EQ(0, pto_test_dev_open(&self->dev))
		TH_LOG("open %s", pto_test_device_path());
	/* Profiling: a staged unit's STAGED wait, placement to doorbell. */
	ASSERT_EQ(0, pto_test_queue_prof(self->dev, &self->q));
	self->aiv = pto_available_aiv_count(self->dev);
	self->k_add = build_add(self->dev, self->err, sizeof(self->err));
	ASSERT_NE(NULL, self->k_add) TH_LOG("add kernel: %s", self->err);

	/* Calibrate: how many additions make a SLOW_MS block here. */
	a = ftensor(self->dev, TR, 0);
	b = ftensor(self->dev, TR, 0);
	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, b);
	ASSERT_EQ(0, pto_graph_new(self->dev, &g));
	ASSERT_EQ(0, add_add(g, self->k_add, a, b, 1, &iters, 0, NULL, 0, NULL,
			     NULL));
	ASSERT_EQ(0, pto_graph_run(g, self->q, RUN_TIMEOUT));
	ASSERT_EQ(0, pto_graph_task_blocks(g, 0, &blk, &n));
	ASSERT_EQ(1U, n);
	per = (int64_t)(blk[0].ts_end - blk[0].ts_start) / CAL_ITERS;
	if (per < 1)
		per = 1;
	self->slow_iters = PTO_TEST_MSEC(SLOW_MS) / per;
	if (self->slow_iters < CAL_ITERS)
		self->slow_iters = CAL_ITERS;
	if (self->slow_iters > 200000)
		self->slow_iters = 200000;
	pto_graph_free(g);
	pto_tensor_free(b);
	pto_tensor_free(a);
}

FIXTURE_TEARDOWN(early)
{
	if (self->old_timeout > 0)
		pto_test_param_write("timeout_ms", self->old_timeout);
	pto_kernel_free(self->k_add);
	if (self->q)
		pto_queue_destroy(self->q);
	pto_device_close(self->dev);
}

/* Element i of @t equals element i of @ref + @plus for i in [from, to). */
static long first_mismatch(const struct pto_tensor *t,
			   const struct pto_tensor *ref, float plus,
			   int64_t from, int64_t to)
{
	const float *p = pto_tensor_data(t), *r = pto_tensor_data(ref);
	int64_t i;

	for (i = from; i < to; i++)
		if (p[i] != r[i] + plus)
			return (long)i;
	return -1;
}

/* Index of the first element of @t not as ftensor(@base) made it, or -1. */
static long pattern_mismatch(const struct pto_tensor *t, float base, int64_t n)
{
	const float *p = pto_tensor_data(t);
	int64_t i;

	for (i = 0; i < n; i++)
		if (p[i] != base + (float)(i % 13))
			return (long)i;
	return -1;
}

/*
 * A flagged slow producer (4 blocks) and its consumer (4 blocks): every
 * consumer unit is pre-staged, starts only after the producer ended, and
 * computes the right thing.
 */
TEST_F(early, staged_consumer_of_flagged_producer)
{
	struct pto_tensor *a, *b, *c;
	struct pto_graph *g;
	int64_t one = 1, dep = 0;

	a = ftensor(self->dev, 4 * TR, 1);
	b = ftensor(self->dev, 4 * TR, 0);
	c = ftensor(self->dev, 4 * TR, 0);
	ASSERT_NE(NULL, c);
	ASSERT_EQ(0, pto_graph_new(self->dev, &g));
	ASSERT_EQ(0, add_add(g, self->k_add, a, b, 4, &self->slow_iters,
			     PTO_TASK_EARLY_RESOLVE, NULL, 0, NULL, NULL));
	ASSERT_EQ(1, add_add(g, self->k_add, b, c, 4, &one, 0, &dep, 1, NULL,
			     NULL));
	ASSERT_EQ(0, pto_graph_run(g, self->q, RUN_TIMEOUT))
		TH_LOG("run: %s", pto_graph_error(g));
	EXPECT_EQ(0, pto_test_blocks_with(g, 0, PTO_BLOCK_STAGED));
	EXPECT_EQ(4, pto_test_blocks_with(g, 1, PTO_BLOCK_RAN));
	EXPECT_EQ(4, pto_test_blocks_with(g, 1, PTO_BLOCK_STAGED | PTO_BLOCK_RAN));
	EXPECT_LE(task_end(g, 0), task_start(g, 1));
	EXPECT_EQ(-1, first_mismatch(b, a, (float)self->slow_iters, 0,
				     4 * TR * COLS));
	EXPECT_EQ(-1, first_mismatch(c, a, (float)self->slow_iters + 1, 0,
				     4 * TR * COLS));
	TH_LOG("producer %lld additions, end -> staged consumer start %lld ns",
	       (long long)self->slow_iters,
	       (long long)(task_start(g, 1) - task_end(g, 0)));
	pto_graph_free(g);
	pto_tensor_free(c);
	pto_tensor_free(b);
	pto_tensor_free(a);
}

/*
 * A chain of one-block flagged tasks behind a slow first one: every
 * consumer is pre-staged and released by its producer's end (the early
 * release that starts it before the producer is retired,
 * Documentation/techniques/early-resolve.rst). Each starts after its
 * producer ended, was dispatched (released) no earlier than that end, and
 * adds to what its producer wrote.
 */
TEST_F(early, one_block_chain_released_at_producer_end)
{
	struct pto_tensor *t[7];
	struct pto_graph *g;
	int64_t one = 1;
	int i;

	for (i = 0; i < 7; i++) {
		t[i] = ftensor(self->dev, TR, i ? 0 : 3);
		ASSERT_NE(NULL, t[i]);
	}
	ASSERT_EQ(0, pto_graph_new(self->dev, &g));
	for (i = 0; i < 6; i++) {
		int64_t dep = i - 1;

		ASSERT_EQ(i, add_add(g, self->k_add, t[i], t[i + 1], 1,
				     i ? &one : &self->slow_iters,
				     PTO_TASK_EARLY_RESOLVE, &dep, i ? 1 : 0,
				     NULL, NULL));
	}
	ASSERT_EQ(0, pto_graph_run(g, self->q, RUN_TIMEOUT))
		TH_LOG("run: %s", pto_graph_error(g));
	for (i = 1; i < 6; i++) {
		const struct pto_block_info *b;
		unsigned int n = 0;

		ASSERT_EQ(0, pto_graph_task_blocks(g, i, &b, &n));
		ASSERT_EQ(1U, n);
		EXPECT_EQ(PTO_BLOCK_STAGED | PTO_BLOCK_RAN,
			  b[0].flags & (PTO_BLOCK_STAGED | PTO_BLOCK_RAN))
			TH_LOG("task %d", i);
		/* Placed (staged), released by its producer's end, started. */
		EXPECT_LE(b[0].ts_dispatch, b[0].ts_receive) TH_LOG("task %d", i);
		EXPECT_LE(task_end(g, i - 1), b[0].ts_receive) TH_LOG("task %d", i);
		EXPECT_LE(b[0].ts_receive, b[0].ts_start) TH_LOG("task %d", i);
		EXPECT_EQ(0, pto_test_waits_sane(g, i, 0, self->err,
						 sizeof(self->err)))
			TH_LOG("task %d: %s", i, self->err);
		{
			const struct pto_sched_rec *s;
			unsigned int ns = 0;

			/* Placed pre-staged; its walk found its one consumer. */
			ASSERT_EQ(0, pto_graph_task_sched(g, i, &s, &ns));
			ASSERT_EQ(1U, ns);
			EXPECT_NE(0U, s[0].flags & PTO_SCHED_STAGED) TH_LOG("task %d", i);
			EXPECT_EQ(i < 5 ? 1U : 0U, s[0].resolved) TH_LOG("task %d", i);
		}
		EXPECT_EQ(-1, first_mismatch(t[i + 1], t[0],
					     (float)self->slow_iters + i, 0,
					     TR * COLS)) TH_LOG("task %d", i);
	}
	TH_LOG("end -> start of the released consumers: %lld ns (task 1)",
	       (long long)(task_start(g, 1) - task_end(g, 0)));
	pto_graph_free(g);
	for (i = 0; i < 7; i++)
		pto_tensor_free(t[i]);
}

/*
 * A one-block consumer of two flagged one-block producers, the second
 * three times slower: it is staged once both are on cores, and only the
 * end of the last one releases it (not the first: it still waits for the
 * second).
 */
TEST_F(early, one_block_consumer_of_two_waits_for_the_last)
{
	struct pto_tensor *a, *b1, *b2, *c;
	struct pto_graph *g;
	int64_t one = 1, slow3 = 3 * self->slow_iters, deps[2] = { 0, 1 };

	a = ftensor(self->dev, TR, 2);
	b1 = ftensor(self->dev, TR, 0);
	b2 = ftensor(self->dev, TR, 0);
	c = ftensor(self->dev, TR, 0);
	ASSERT_NE(NULL, c);
	ASSERT_EQ(0, pto_graph_new(self->dev, &g));
	ASSERT_EQ(0, add_add(g, self->k_add, a, b1, 1, &self->slow_iters,
			     PTO_TASK_EARLY_RESOLVE, NULL, 0, NULL, NULL));
	ASSERT_EQ(1, add_add(g, self->k_add, a, b2, 1, &slow3,
			     PTO_TASK_EARLY_RESOLVE, NULL, 0, NULL, NULL));
	ASSERT_EQ(2, add_add(g, self->k_add, b2, c, 1, &one, 0, deps, 2, NULL,
			     NULL));
	ASSERT_EQ(0, pto_graph_run(g, self->q, RUN_TIMEOUT))
		TH_LOG("run: %s", pto_graph_error(g));
	EXPECT_EQ(1, pto_test_blocks_with(g, 2, PTO_BLOCK_STAGED | PTO_BLOCK_RAN));
	EXPECT_LE(task_end(g, 0), task_start(g, 2));
	EXPECT_LE(task_end(g, 1), task_start(g, 2));
	EXPECT_EQ(-1, first_mismatch(c, a, (float)slow3 + 1, 0, TR * COLS));
	pto_graph_free(g);
	pto_tensor_free(c);
	pto_tensor_free(b2);
	pto_tensor_free(b1);
	pto_tensor_free(a);
}

/*
 * A consumer of two slow producers: with one of them unflagged, nothing is
 * staged; with both flagged, the consumer is. The second producer runs
 * three times longer, so the flagged one never ends first and leaves the
 * consumer with only flagged producers to wait for (it would then stage,
 * rightly).
 */
TEST_F(early, one_unflagged_producer_no_staging)
{
	struct pto_tensor *a, *b1, *b2, *c;
	int64_t one = 1, deps[2] = { 0, 1 }, longer = 3 * self->slow_iters;
	int round;

	a = ftensor(self->dev, 2 * TR, 2);
	b1 = ftensor(self->dev, 2 * TR, 0);
	b2 = ftensor(self->dev, 2 * TR, 0);
	c = ftensor(self->dev, 2 * TR, 0);
	ASSERT_NE(NULL, c);
	for (round = 0; round < 2; round++) {
		struct pto_graph *g;

		ASSERT_EQ(0, pto_graph_new(self->dev, &g));
		ASSERT_EQ(0, add_add(g, self->k_add, a, b1, 2, &self->slow_iters,
				     PTO_TASK_EARLY_RESOLVE, NULL, 0, NULL, NULL));
		ASSERT_EQ(1, add_add(g, self->k_add, a, b2, 2, &longer,
				     round ? PTO_TASK_EARLY_RESOLVE : 0, NULL, 0,
				     NULL, NULL));
		/* c = b1 + 1; b2 is the second producer's output. */
		ASSERT_EQ(2, add_add(g, self->k_add, b1, c, 2, &one, 0, deps, 2,
				     NULL, b2));
		ASSERT_EQ(0, pto_graph_run(g, self->q, RUN_TIMEOUT))
			TH_LOG("run: %s", pto_graph_error(g));
		EXPECT_EQ(2, pto_test_blocks_with(g, 2, PTO_BLOCK_RAN));
		EXPECT_EQ(round ? 2 : 0,
			  pto_test_blocks_with(g, 2, PTO_BLOCK_STAGED))
			TH_LOG("round %d (second producer %s)", round,
			       round ? "flagged" : "unflagged");
		EXPECT_LE(task_end(g, 0), task_start(g, 2));
		EXPECT_LE(task_end(g, 1), task_start(g, 2));
		EXPECT_EQ(-1, first_mismatch(c, a, (float)self->slow_iters + 1,
					     0, 2 * TR * COLS));
		pto_graph_free(g);
	}
	pto_tensor_free(c);
	pto_tensor_free(b2);
	pto_tensor_free(b1);
	pto_tensor_free(a);
}

/*
 * A flagged producer of 100 blocks (waves: more blocks than AIVs) and a
 * consumer of 10: the consumer may stage only once every producer block is
 * placed, must not take a core the producer still needs, and the run ends.
 */
TEST_F(early, producer_in_waves_no_deadlock)
{
	const unsigned int pb = 100, cb = 10;
	struct pto_tensor *a, *b, *c;
	struct pto_graph *g;
	int64_t iters = self->slow_iters / 10 + 1, one = 1, dep = 0;

	a = ftensor(self->dev, pb * TR, 3);
	b = ftensor(self->dev, pb * TR, 0);
	c = ftensor(self->dev, cb * TR, 0);
	ASSERT_NE(NULL, c);
	ASSERT_EQ(0, pto_graph_new(self->dev, &g));
	ASSERT_EQ(0, add_add(g, self->k_add, a, b, pb, &iters,
			     PTO_TASK_EARLY_RESOLVE, NULL, 0, NULL, NULL));
	ASSERT_EQ(1, add_add(g, self->k_add, b, c, cb, &one, 0, &dep, 1, NULL,
			     NULL));
	ASSERT_EQ(0, pto_graph_run(g, self->q, RUN_TIMEOUT))
		TH_LOG("run: %s", pto_graph_error(g));
	EXPECT_EQ((int)pb, pto_test_blocks_with(g, 0, PTO_BLOCK_RAN));
	EXPECT_EQ((int)cb, pto_test_blocks_with(g, 1, PTO_BLOCK_RAN));
	EXPECT_LE(task_end(g, 0), task_start(g, 1));
	EXPECT_EQ(-1, first_mismatch(b, a, (float)iters, 0, pb * TR * COLS));
	EXPECT_EQ(-1, first_mismatch(c, a, (float)iters + 1, 0, cb * TR * COLS));
	TH_LOG("%d of %u consumer units staged",
	       pto_test_blocks_with(g, 1, PTO_BLOCK_STAGED), cb);
	pto_graph_free(g);
	pto_tensor_free(c);
	pto_tensor_free(b);
	pto_tensor_free(a);
}

/*
 * Most AIVs busy with an independent filler (aiv - 8 blocks), a flagged
 * producer on one more, a consumer of 60 blocks: the idle cores take some
 * consumer units staged, the rest go through the ordinary ready path.
 */
TEST_F(early, partly_staged_spmd_consumer)
{
	const unsigned int cb = 60, fb = self->aiv > 8 ? self->aiv - 8 : 1;
	struct pto_tensor *a, *b, *c, *fa, *fo;
	struct pto_graph *g;
	int64_t one = 1, dep = 1;
	int staged, ran;

	a = ftensor(self->dev, cb * TR, 4);
	b = ftensor(self->dev, cb * TR, 100);
	c = ftensor(self->dev, cb * TR, 0);
	fa = ftensor(self->dev, fb * TR, 0);
	fo = ftensor(self->dev, fb * TR, 0);
	ASSERT_NE(NULL, fo);
	ASSERT_EQ(0, pto_graph_new(self->dev, &g));
	ASSERT_EQ(0, add_add(g, self->k_add, fa, fo, fb, &self->slow_iters, 0,
			     NULL, 0, NULL, NULL));
	/* One producer block: rows 0..TR-1 of b become a + slow. */
	ASSERT_EQ(1, add_add(g, self->k_add, a, b, 1, &self->slow_iters,
			     PTO_TASK_EARLY_RESOLVE, NULL, 0, NULL, NULL));
	ASSERT_EQ(2, add_add(g, self->k_add, b, c, cb, &one, 0, &dep, 1, NULL,
			     NULL));
	ASSERT_EQ(0, pto_graph_run(g, self->q, RUN_TIMEOUT))
		TH_LOG("run: %s", pto_graph_error(g));
	staged = pto_test_blocks_with(g, 2, PTO_BLOCK_STAGED);
	ran = pto_test_blocks_with(g, 2, PTO_BLOCK_RAN);
	EXPECT_EQ((int)cb, ran);
	EXPECT_LE(1, staged);
	EXPECT_GT((int)cb, staged);
	EXPECT_LE(task_end(g, 1), task_start(g, 2));
	EXPECT_EQ(-1, first_mismatch(c, a, (float)self->slow_iters + 1, 0,
				     TR * COLS));
	/* Rows past the producer's: c = b's initial values + 1. */
	EXPECT_EQ(-1, first_mismatch(c, b, 1, TR * COLS, (int64_t)cb * TR * COLS));
	TH_LOG("%d of %u consumer units staged (%u AIVs, filler %u)", staged,
	       cb, self->aiv, fb);
	pto_graph_free(g);
	pto_tensor_free(fo);
	pto_tensor_free(fa);
	pto_tensor_free(c);
	pto_tensor_free(b);
	pto_tensor_free(a);
}

/*
 * Two consumers of one flagged producer: the predicated one (true) runs
 * and is never staged, the other is staged.
 */
TEST_F(early, predicated_consumer_never_staged)
{
	struct pto_tensor *a, *b, *c1, *c2, *gate;
	struct pto_predicate pos = { 2, PTO_CMP_GT, 0, 0, 0 };
	struct pto_graph *g;
	int64_t one = 1, dep = 0;

	a = ftensor(self->dev, 4 * TR, 5);
	b = ftensor(self->dev, 4 * TR, 0);
	c1 = ftensor(self->dev, 4 * TR, 0);
	c2 = ftensor(self->dev, 4 * TR, 0);
	ASSERT_NE(NULL, c2);
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I32, 1, 1, &gate));
	*(int32_t *)pto_tensor_data(gate) = 1;
	ASSERT_EQ(0, pto_graph_new(self->dev, &g));
	ASSERT_EQ(0, add_add(g, self->k_add, a, b, 4, &self->slow_iters,
			     PTO_TASK_EARLY_RESOLVE, NULL, 0, NULL, NULL));
	ASSERT_EQ(1, add_add(g, self->k_add, b, c1, 4, &one, 0, &dep, 1, &pos,
			     gate)) TH_LOG("%s", pto_graph_error(g));
	ASSERT_EQ(2, add_add(g, self->k_add, b, c2, 4, &one, 0, &dep, 1, NULL,
			     NULL));
	ASSERT_EQ(0, pto_graph_run(g, self->q, RUN_TIMEOUT))
		TH_LOG("run: %s", pto_graph_error(g));
	EXPECT_EQ(PTO_STATUS_OK, pto_graph_task_status(g, 1, NULL, NULL));
	EXPECT_EQ(4, pto_test_blocks_with(g, 1, PTO_BLOCK_RAN));
	EXPECT_EQ(0, pto_test_blocks_with(g, 1, PTO_BLOCK_STAGED));
	EXPECT_EQ(4, pto_test_blocks_with(g, 2, PTO_BLOCK_STAGED));
	EXPECT_EQ(-1, first_mismatch(c1, a, (float)self->slow_iters + 1, 0,
				     4 * TR * COLS));
	EXPECT_EQ(-1, first_mismatch(c2, a, (float)self->slow_iters + 1, 0,
				     4 * TR * COLS));
	pto_graph_free(g);
	pto_tensor_free(gate);
	pto_tensor_free(c2);
	pto_tensor_free(c1);
	pto_tensor_free(b);
	pto_tensor_free(a);
}

/*
 * A flagged producer that faults (its output is half a tile: GM fault at
 * the TSTORE, after the slow part) with a staged consumer: the consumer
 * never runs and ends DEP_FAILED; the device runs the next graph fine.
 */
static void run_failing_producer(struct __test_metadata *_metadata,
				 FIXTURE_DATA(early) *self,
				 struct pto_graph **out)
{
	struct pto_tensor *a, *small, *c;
	struct pto_graph *g;
	int64_t one = 1, dep = 0;
	int ret;

	a = ftensor(self->dev, 4 * TR, 6);
	small = ftensor(self->dev, TR / 2, 0);
	c = ftensor(self->dev, 4 * TR, 0);
	ASSERT_NE(NULL, c);
	ASSERT_EQ(0, pto_graph_new(self->dev, &g));
	ASSERT_EQ(0, add_add(g, self->k_add, a, small, 1, &self->slow_iters,
			     PTO_TASK_EARLY_RESOLVE, NULL, 0, NULL, NULL));
	ASSERT_EQ(1, add_add(g, self->k_add, a, c, 4, &one, 0, &dep, 1, NULL,
			     NULL));
	ret = pto_graph_run(g, self->q, RUN_TIMEOUT);
	EXPECT_EQ(-EIO, ret) TH_LOG("run: %s", pto_graph_error(g));
	EXPECT_EQ(PTO_STATUS_GM_FAULT, pto_graph_task_status(g, 0, NULL, NULL));
	EXPECT_EQ(PTO_STATUS_DEP_FAILED, pto_graph_task_status(g, 1, NULL, NULL));
	EXPECT_EQ(0, pto_test_blocks_with(g, 1, PTO_BLOCK_RAN));
	/* c untouched: still its initial pattern. */
	EXPECT_EQ(-1, pattern_mismatch(c, 0, 4 * TR * COLS));
	pto_tensor_free(c);
	pto_tensor_free(small);
	pto_tensor_free(a);
	*out = g;
}

static void run_ok_graph(struct __test_metadata *_metadata,
			 FIXTURE_DATA(early) *self)
{
	struct pto_tensor *a, *b;
	struct pto_graph *g;
	int64_t one = 1;

	a = ftensor(self->dev, 4 * TR, 7);
	b = ftensor(self->dev, 4 * TR, 0);
	ASSERT_NE(NULL, b);
	ASSERT_EQ(0, pto_graph_new(self->dev, &g));
	ASSERT_EQ(0, add_add(g, self->k_add, a, b, 4, &one, 0, NULL, 0, NULL,
			     NULL));
	ASSERT_EQ(0, pto_graph_run(g, self->q, RUN_TIMEOUT))
		TH_LOG("run after: %s", pto_graph_error(g));
	EXPECT_EQ(-1, first_mismatch(b, a, 1, 0, 4 * TR * COLS));
	pto_graph_free(g);
	pto_tensor_free(b);
	pto_tensor_free(a);
}

TEST_F(early, failed_producer_staged_consumer_dep_failed)
{
	struct pto_graph *g = NULL;

	run_failing_producer(_metadata, self, &g);
	TH_LOG("consumer: %d records, %d of them flagged STAGED",
	       pto_test_block_count(g, 1),
	       pto_test_blocks_with(g, 1, PTO_BLOCK_STAGED));
	pto_graph_free(g);
	run_ok_graph(_metadata, self);
}

/*
 * The uapi: "A task that never ran (refused, skipped, dependency failed,
 * cancelled) posts one CQE." That holds for a staged consumer too: its
 * staged units return without running and the task posts the CQE of a
 * task that never reached a core (DEP_FAILED, block 0, no core, LAST
 * only: not STAGED), not a CANCELLED one per staged unit.
 */
TEST_F(early, staged_then_dep_failed_posts_one_cqe)
{
	const struct pto_block_info *b;
	struct pto_graph *g = NULL;
	unsigned int n = 0;

	run_failing_producer(_metadata, self, &g);
	EXPECT_EQ(1, pto_test_block_count(g, 1))
		TH_LOG("a DEP_FAILED consumer that never ran posted %d CQEs",
		       pto_test_block_count(g, 1));
	ASSERT_EQ(0, pto_graph_task_blocks(g, 1, &b, &n));
	ASSERT_LE(1u, n);
	EXPECT_EQ(PTO_STATUS_DEP_FAILED, b[0].status)
		TH_LOG("record 0: %s", pto_status_name(b[0].status));
	EXPECT_EQ(0u, b[0].block);
	EXPECT_EQ(0, b[0].core_type);
	EXPECT_EQ((uint32_t)PTO_BLOCK_LAST, b[0].flags);
	EXPECT_EQ(0u, b[0].ts_start);
	EXPECT_NE(0u, b[0].ts_finish);
	pto_graph_free(g);
}

/*
 * A child process submits a flagged producer (several times SLOW_MS) and
 * two staged consumers, then exits while they are in flight: the close
 * must neither hang nor disturb the parent's device.
 */
TEST_F(early, close_with_staged_consumers_in_flight)
{
	int64_t t0, waited = 0, *exit_at;
	int status = 0;
	pid_t child;

	exit_at = mmap(NULL, sizeof(*exit_at), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, (void *)exit_at);
	*exit_at = 0;
	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		struct pto_device *dev;
		struct pto_queue *q;
		struct pto_kernel *k;
		struct pto_tensor *a, *b, *c;
		int64_t slow = self->slow_iters * 5, one = 1;
		int64_t dep1 = -1, dep2 = -2;
		struct pto_tensor *pa[2], *pc[2];
		struct pto_task_desc p = { .block_num = 2, .num_tensors = 2,
					   .num_scalars = 1,
					   .flags = PTO_TASK_EARLY_RESOLVE };
		struct pto_task_desc cons = { .block_num = 2, .num_tensors = 2,
					      .num_scalars = 1, .num_deps = 1 };
		uint32_t consumed = 0;
		char err[256];

		if (pto_test_dev_open(&dev) || pto_test_queue_long(dev, 0, 0, &q))
			_exit(2);
		k = build_add(dev, err, sizeof(err));
		a = ftensor(dev, 2 * TR, 0);
		b = ftensor(dev, 2 * TR, 0);
		c = ftensor(dev, 2 * TR, 0);
		if (!k || !a || !b || !c)
			_exit(3);
		pa[0] = a;
		pa[1] = b;
		pc[0] = b;
		pc[1] = c;
		p.kernel_aiv = k;
		p.tensors = pa;
		p.scalars = &slow;
		cons.kernel_aiv = k;
		cons.tensors = pc;
		cons.scalars = &one;
		if (pto_queue_push_task(q, &p))
			_exit(4);
		cons.deps = &dep1;
		if (pto_queue_push_task(q, &cons))
			_exit(5);
		cons.deps = &dep2;
		if (pto_queue_push_task(q, &cons))
			_exit(6);
		if (pto_queue_doorbell(q, 0, 0, &consumed, NULL) || consumed != 3)
			_exit(7);
		usleep(SLOW_MS * 1000 / 2);
		/* Exit with everything in flight: the fd closes here. */
		*exit_at = pto_test_now_ns();
		_exit(0);
	}
	t0 = pto_test_now_ns();
	for (;;) {
		pid_t r = waitpid(child, &status, WNOHANG);

		ASSERT_LE(0, r);
		if (r == child)
			break;
		waited = pto_test_now_ns() - t0;
		if (waited > PTO_TEST_SEC(30)) {
			kill(child, SIGKILL);
			waitpid(child, &status, 0);
			ASSERT_TRUE(0) TH_LOG("the child's exit hangs");
		}
		usleep(10000);
	}
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	ASSERT_NE(0, *exit_at);
	TH_LOG("child reaped %lld ms after its _exit() (producer ~%d ms)",
	       (long long)((pto_test_now_ns() - *exit_at) / 1000000),
	       5 * SLOW_MS);
	munmap(exit_at, sizeof(*exit_at));
	run_ok_graph(_metadata, self);
}

/* ------------------------------------------------------------ with a barrier */

/* HARD AIV syncall, then flags[0, block] = 1. */
static struct pto_kernel *build_hard_flag(struct __test_metadata *_metadata,
					  FIXTURE_DATA(early) *self)
{
	struct pto_kernel *k = NULL;
	struct pto_kb *kb;

	if (pto_kb_new(self->dev, PTO_CORE_AIV, &kb))
		return NULL;
	pto_kb_syncall_hard(kb, PTO_SYNC_AIV);
	pto_kb_sreg(kb, 0, PTO_SREG_BLOCK_IDX);
	pto_kb_ldi(kb, 1, 0);
	pto_kb_ldi(kb, 2, 1);
	pto_kb_gst(kb, 0, 1, 0, 2);
	pto_kb_end(kb);
	k = pto_test_kb_finish(kb, self->err, sizeof(self->err));
	EXPECT_NE(NULL, k) TH_LOG("hard kernel: %s", self->err);
	return k;
}

/*
 * A HARD AIV syncall launch (every AIV, sync_start) that consumes a flagged
 * one-block producer. A SYNC_START task is never pre-staged (uapi.rst): it
 * is placed whole once the producer has ended, so no unit of it carries
 * PTO_BLOCK_STAGED. Early resolve is a pure hint: it must complete OK, as
 * it does with the producer unflagged.
 */
TEST_F(early, flagged_producer_hard_syncall_consumer)
{
	long old = pto_test_param_read("timeout_ms");
	struct pto_tensor *a, *b, *flags;
	struct pto_kernel *hard;
	int round;

	ASSERT_LT(0, old);
	hard = build_hard_flag(_metadata, self);
	ASSERT_NE(NULL, hard);
	a = ftensor(self->dev, TR, 8);
	b = ftensor(self->dev, TR, 0);
	ASSERT_NE(NULL, b);
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I32, 1, self->aiv,
				       &flags));
	/* Bound the damage of a barrier that never completes. */
	self->old_timeout = old;
	ASSERT_EQ(0, pto_test_param_write("timeout_ms", 3000));
	for (round = 0; round < 2; round++) {
		struct pto_tensor *fa[1] = { flags };
		int64_t dep = 0, t0;
		int32_t *pf = pto_tensor_data(flags);
		struct pto_task_desc d = {
			.kernel_aiv = hard, .block_num = PTO_GRID_ALL_AIV,
			.flags = PTO_TASK_SYNC_START, .tensors = fa,
			.num_tensors = 1, .deps = &dep, .num_deps = 1,
		};
		struct pto_graph *g;
		unsigned int i, unset = 0;
		int ret;

		memset(pf, 0, self->aiv * sizeof(*pf));
		ASSERT_EQ(0, pto_graph_new(self->dev, &g));
		ASSERT_EQ(0, add_add(g, self->k_add, a, b, 1, &self->slow_iters,
				     round ? PTO_TASK_EARLY_RESOLVE : 0, NULL, 0,
				     NULL, NULL));
		ASSERT_EQ(1, pto_graph_add_task(g, &d))
			TH_LOG("%s", pto_graph_error(g));
		t0 = pto_test_now_ns();
		ret = pto_graph_run(g, self->q, RUN_TIMEOUT);
		TH_LOG("producer %s: run %d (%s) in %lld ms, %d units staged",
		       round ? "flagged" : "unflagged", ret, pto_graph_error(g),
		       (long long)((pto_test_now_ns() - t0) / 1000000),
		       pto_test_blocks_with(g, 1, PTO_BLOCK_STAGED));
		EXPECT_EQ(0, ret);
		EXPECT_EQ(PTO_STATUS_OK, pto_graph_task_status(g, 1, NULL, NULL));
		EXPECT_EQ(0, pto_test_blocks_with(g, 1, PTO_BLOCK_STAGED));
		for (i = 0; i < self->aiv; i++)
			unset += pf[i] != 1;
		EXPECT_EQ(0U, unset) TH_LOG("%u blocks did not pass the barrier",
					    unset);
		pto_graph_free(g);
	}
	pto_test_param_write("timeout_ms", old);
	self->old_timeout = 0;
	run_ok_graph(_metadata, self);
	pto_tensor_free(flags);
	pto_tensor_free(b);
	pto_tensor_free(a);
	pto_kernel_free(hard);
}

/* SOFT syncall (used_cores = every AIV), then flags[0, block] = 1. */
static struct pto_kernel *build_soft_flag(struct __test_metadata *_metadata,
					  FIXTURE_DATA(early) *self)
{
	struct pto_kernel *k = NULL;
	struct pto_kb *kb;

	if (pto_kb_new(self->dev, PTO_CORE_AIV, &kb))
		return NULL;
	pto_kb_arg(kb, 12, 0);
	pto_kb_syncall_soft(kb, 1, 12);
	pto_kb_sreg(kb, 0, PTO_SREG_BLOCK_IDX);
	pto_kb_ldi(kb, 1, 0);
	pto_kb_ldi(kb, 2, 1);
	pto_kb_gst(kb, 0, 1, 0, 2);
	pto_kb_end(kb);
	k = pto_test_kb_finish(kb, self->err, sizeof(self->err));
	EXPECT_NE(NULL, k) TH_LOG("soft kernel: %s", self->err);
	return k;
}

/*
 * The same shape with a SOFT syncall and no sync_start: a launch over every
 * AIV whose blocks all meet (used_cores = block count), consuming a flagged
 * one-block producer. Staged on the idle AIVs, its last block placed when
 * the producer ends: it must complete OK, flagged or not.
 */
TEST_F(early, flagged_producer_soft_syncall_consumer)
{
	long old = pto_test_param_read("timeout_ms");
	struct pto_tensor *a, *b, *flags, *ws;
	struct pto_kernel *soft;
	int round;

	ASSERT_LT(0, old);
	soft = build_soft_flag(_metadata, self);
	ASSERT_NE(NULL, soft);
	a = ftensor(self->dev, TR, 8);
	b = ftensor(self->dev, TR, 0);
	ASSERT_NE(NULL, b);
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I32, 1, self->aiv,
				       &flags));
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I32, 1, 16, &ws));
	self->old_timeout = old;
	ASSERT_EQ(0, pto_test_param_write("timeout_ms", 3000));
	for (round = 0; round < 2; round++) {
		struct pto_tensor *fa[2] = { flags, ws };
		int64_t dep = 0, used = self->aiv, t0;
		int32_t *pf = pto_tensor_data(flags);
		struct pto_task_desc d = {
			.kernel_aiv = soft, .block_num = self->aiv,
			.tensors = fa, .num_tensors = 2, .scalars = &used,
			.num_scalars = 1, .deps = &dep, .num_deps = 1,
		};
		struct pto_graph *g;
		unsigned int i, unset = 0;
		int ret;

		memset(pf, 0, self->aiv * sizeof(*pf));
		ASSERT_EQ(0, pto_graph_new(self->dev, &g));
		ASSERT_EQ(0, add_add(g, self->k_add, a, b, 1, &self->slow_iters,
				     round ? PTO_TASK_EARLY_RESOLVE : 0, NULL, 0,
				     NULL, NULL));
		ASSERT_EQ(1, pto_graph_add_task(g, &d))
			TH_LOG("%s", pto_graph_error(g));
		t0 = pto_test_now_ns();
		ret = pto_graph_run(g, self->q, RUN_TIMEOUT);
		TH_LOG("producer %s: run %d (%s) in %lld ms, %d units staged",
		       round ? "flagged" : "unflagged", ret, pto_graph_error(g),
		       (long long)((pto_test_now_ns() - t0) / 1000000),
		       pto_test_blocks_with(g, 1, PTO_BLOCK_STAGED));
		EXPECT_EQ(0, ret);
		EXPECT_EQ(PTO_STATUS_OK, pto_graph_task_status(g, 1, NULL, NULL));
		for (i = 0; i < self->aiv; i++)
			unset += pf[i] != 1;
		EXPECT_EQ(0U, unset) TH_LOG("%u blocks did not pass the barrier",
					    unset);
		pto_graph_free(g);
	}
	pto_test_param_write("timeout_ms", old);
	self->old_timeout = 0;
	run_ok_graph(_metadata, self);
	pto_tensor_free(ws);
	pto_tensor_free(flags);
	pto_tensor_free(b);
	pto_tensor_free(a);
	pto_kernel_free(soft);
}

/*
 * A producer and its consumer pushed by hand on a profiling queue: the
 * CQEs carry the scheduler's records, as a graph run keeps them. Which of
 * the consumer's intake and the producer's completion came first depends
 * on the host; the records must say the same either way. A plain queue's
 * records read zero.
 */
TEST_F(early, raw_queue_reaps_sched_records)
{
	struct pto_tensor *a = ftensor(self->dev, TR, 0);
	struct pto_tensor *b = ftensor(self->dev, TR, 0);
	struct pto_tensor *c = ftensor(self->dev, TR, 0);
	struct pto_tensor *args[2][2] = { { a, b }, { b, c } };
	struct pto_sched_rec s[4], zero = { 0 };
	const struct pto_sched_rec *sp, *sc;
	struct pto_cqe cqe[4];
	struct pto_queue *plain;
	int64_t one = 1, dep = -1;
	uint64_t first = 0;
	uint32_t consumed = 0;
	int n, i, ip = -1, ic = -1;
	const struct pto_task_desc solo = {
		.kernel_aiv = self->k_add,
		.block_num = 1,
		.tensors = args[0],
		.num_tensors = 2,
		.scalars = &one,
		.num_scalars = 1,
	};

	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, b);
	ASSERT_NE(NULL, c);
	for (i = 0; i < 2; i++) {
		struct pto_task_desc d = {
			.kernel_aiv = self->k_add,
			.block_num = 1,
			.tensors = args[i],
			.num_tensors = 2,
			.scalars = &one,
			.num_scalars = 1,
			.deps = i ? &dep : NULL,
			.num_deps = i ? 1 : 0,
		};

		ASSERT_EQ(0, pto_queue_push_task(self->q, &d));
	}
	ASSERT_EQ(0, pto_queue_doorbell(self->q, 0, 0, &consumed, &first));
	ASSERT_EQ(2U, consumed);
	n = pto_test_reap_lasts_sched(self->q, cqe, s, 4, 2, RUN_TIMEOUT);
	ASSERT_EQ(2, n);
	for (i = 0; i < n; i++) {
		const struct pto_block_info *bi = &cqe[i].info;

		ASSERT_EQ(PTO_STATUS_OK, bi->status);
		if (cqe[i].task_id == first)
			ip = i;
		else if (cqe[i].task_id == first + 1)
			ic = i;
		/* Intake, then placement, then the end, in that order. */
		EXPECT_NE(0U, s[i].intake_iter);
		EXPECT_LE(s[i].intake_begin, s[i].intake_end);
		EXPECT_LE(s[i].intake_iter, s[i].dispatch_iter);
		EXPECT_LT(s[i].dispatch_iter, s[i].complete_iter);
		EXPECT_EQ(bi->ts_dispatch, s[i].dispatch_begin);
		EXPECT_LE(s[i].dispatch_begin, s[i].dispatch_end);
		EXPECT_EQ(0U, s[i].flags & PTO_SCHED_STAGED);
		if (!(s[i].flags & PTO_SCHED_EARLY)) {
			EXPECT_EQ(bi->ts_finish, s[i].complete_begin);
		}
		EXPECT_LE(s[i].complete_begin, s[i].complete_end);
		/* One block: its end completed the task, walk inside. */
		EXPECT_EQ(s[i].complete_iter, s[i].resolve_iter);
		EXPECT_LE(s[i].complete_begin, s[i].resolve_begin);
		EXPECT_LE(s[i].resolve_begin, s[i].resolve_end);
		EXPECT_LE(s[i].resolve_end, s[i].complete_end);
	}
	ASSERT_LE(0, ip);
	ASSERT_LE(0, ic);
	sp = &s[ip];
	sc = &s[ic];
	EXPECT_LT(sp->intake_iter, sc->intake_iter);
	EXPECT_LE(sp->intake_end, sc->intake_begin);
	/* The consumer was placed once its producer had completed... */
	EXPECT_LE(sp->resolve_iter, sc->dispatch_iter);
	/* ...whose walk found it only if it had been taken by then. */
	EXPECT_EQ(sc->intake_iter < sp->resolve_iter ? 1U : 0U, sp->resolved)
		TH_LOG("consumer intake iteration %u, producer completed in %u",
		       sc->intake_iter, sp->resolve_iter);
	EXPECT_EQ(0U, sc->resolved);

	/* Without PTO_QUEUE_PROFILE: no records, all zero. */
	ASSERT_EQ(0, pto_queue_create(self->dev, 0, 0, &plain));
	ASSERT_EQ(0, pto_queue_push_task(plain, &solo));
	ASSERT_EQ(0, pto_queue_doorbell(plain, 0, 0, &consumed, &first));
	memset(s, 0xa5, sizeof(s));
	n = pto_test_reap_lasts_sched(plain, cqe, s, 4, 1, RUN_TIMEOUT);
	ASSERT_EQ(1, n);
	EXPECT_EQ(PTO_STATUS_OK, cqe[0].info.status);
	EXPECT_EQ(0, memcmp(&zero, &s[0], sizeof(zero)));
	pto_queue_destroy(plain);
	pto_tensor_free(c);
	pto_tensor_free(b);
	pto_tensor_free(a);
}

TEST_HARNESS_MAIN
