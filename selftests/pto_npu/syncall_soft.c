// SPDX-License-Identifier: GPL-2.0-only
/*
 * SOFT in-kernel syncall (SPEC 4.5): a counter in a caller-provided GM
 * workspace (16 int32, zero-initialised). Each of used_cores participants
 * adds 1 to element [0, 0] and waits for the next multiple of used_cores;
 * the counter only grows, so rounds (and runs) need no reset. Works at
 * partial occupancy. A barrier that can never complete (wrong used_cores,
 * a participant that never arrives) fails the task with TIMEOUT at the
 * block deadline (timeout_ms), and the device goes on.
 *
 * Copyright (C) 2026 pto-npu authors
 */
#define PTO_TEST_LIBPTO
#include <stdio.h>
#include <string.h>

#include "pto_test.h"

#define RUN_TIMEOUT PTO_TEST_SEC(60)
#define ROUNDS 10
#define BLOCKS 20
#define WS_INTS 16
/* Two barriers per round. */
#define ARRIVALS(units) ((units) * 2 * ROUNDS)
/* timeout_ms while the timeout tests run. */
#define SHORT_TIMEOUT_MS 1000

struct soft_bufs {
	struct pto_tensor *vals, *mism, *ws;
};

static void bufs_alloc(struct __test_metadata *_metadata,
		       struct pto_device *dev, unsigned int nrows,
		       unsigned int blocks, enum pto_dtype ws_dtype,
		       struct soft_bufs *b)
{
	ASSERT_EQ(0, pto_test_tensor2d(dev, PTO_DTYPE_I32, nrows, blocks,
				       &b->vals));
	ASSERT_EQ(0, pto_test_tensor2d(dev, PTO_DTYPE_I32, nrows, blocks,
				       &b->mism));
	ASSERT_EQ(0, pto_test_tensor2d(dev, ws_dtype, 1, WS_INTS, &b->ws));
	memset(pto_tensor_data(b->mism), 0xff, (size_t)nrows * blocks * 4);
}

static void bufs_free(struct soft_bufs *b)
{
	pto_tensor_free(b->ws);
	pto_tensor_free(b->mism);
	pto_tensor_free(b->vals);
}

static void check_rounds(struct __test_metadata *_metadata,
			 const struct soft_bufs *b, unsigned int nrows,
			 unsigned int blocks, int32_t arrivals)
{
	const int32_t *pv = pto_tensor_data(b->vals);
	const int32_t *pm = pto_tensor_data(b->mism);
	const int32_t *pw = pto_tensor_data(b->ws);
	unsigned int r, i;

	for (r = 0; r < nrows; r++) {
		for (i = 0; i < blocks; i++) {
			EXPECT_EQ(0, pm[r * blocks + i])
				TH_LOG("row %u block %u: %d stale reads", r, i,
				       pm[r * blocks + i]);
			EXPECT_EQ(pto_test_round_val(ROUNDS, r, i),
				  pv[r * blocks + i]);
		}
	}
	EXPECT_EQ(arrivals, pw[0]);
	for (i = 1; i < WS_INTS; i++)
		EXPECT_EQ(0, pw[i]) TH_LOG("workspace[%u]", i);
}

static int add_soft(struct pto_graph *g, struct pto_kernel *aiv,
		    struct pto_kernel *aic, unsigned int blocks,
		    uint32_t flags, const struct soft_bufs *b,
		    const int64_t *used)
{
	struct pto_tensor *args[3] = { b->vals, b->mism, b->ws };
	struct pto_task_desc d = {
		.kernel_aiv = aiv, .kernel_aic = aic, .block_num = blocks,
		.flags = flags, .tensors = args, .num_tensors = 3,
		.scalars = used, .num_scalars = 1,
	};

	return pto_graph_add_task(g, &d);
}

FIXTURE(soft)
{
	struct pto_device *dev;
	struct pto_queue *q;
	unsigned int aiv;
	/* SOFT rounds kernel, vector cores, row 0. */
	struct pto_kernel *k;
	char err[512];
};

FIXTURE_SETUP(soft)
{
	ASSERT_EQ(0, pto_test_dev_open(&self->dev))
		TH_LOG("open %s", pto_test_device_path());
	/* Profiling: each block's barrier waits, arrival to release. */
	ASSERT_EQ(0, pto_test_queue_prof(self->dev, &self->q));
	self->aiv = pto_available_aiv_count(self->dev);
	ASSERT_LT(BLOCKS, (int)self->aiv) TH_LOG("partial occupancy needs > %d AIVs",
					   BLOCKS);
	ASSERT_EQ(0, pto_test_build_rounds(self->dev, PTO_CORE_AIV,
					   PTO_SYNC_SOFT, 2, 0, 1, ROUNDS,
					   &self->k, self->err,
					   sizeof(self->err)))
		TH_LOG("%s", self->err);
}

FIXTURE_TEARDOWN(soft)
{
	pto_kernel_free(self->k);
	if (self->q)
		pto_queue_destroy(self->q);
	pto_device_close(self->dev);
}

static void run_soft(struct __test_metadata *_metadata,
		     FIXTURE_DATA(soft) *self, uint32_t flags)
{
	struct soft_bufs b;
	struct pto_graph *g;
	int64_t used = BLOCKS;

	bufs_alloc(_metadata, self->dev, 1, BLOCKS, PTO_DTYPE_I32, &b);
	ASSERT_EQ(0, pto_graph_new(self->dev, &g));
	ASSERT_EQ(0, add_soft(g, self->k, NULL, BLOCKS, flags, &b, &used))
		TH_LOG("%s", pto_graph_error(g));
	ASSERT_EQ(0, pto_graph_run(g, self->q, RUN_TIMEOUT))
		TH_LOG("run: %s", pto_graph_error(g));
	EXPECT_EQ(BLOCKS, pto_test_blocks_with(g, 0, PTO_BLOCK_RAN));
	check_rounds(_metadata, &b, 1, BLOCKS, ARRIVALS(BLOCKS));
	/* No block left a barrier before the last one arrived. */
	EXPECT_EQ(0, pto_test_waits_sane(g, 0, 1U << PTO_WAIT_BARRIER_SOFT,
					 self->err, sizeof(self->err)))
		TH_LOG("%s", self->err);
	EXPECT_EQ(0, pto_test_barrier_waits(g, 0, PTO_WAIT_BARRIER_SOFT,
					    2 * ROUNDS, self->err,
					    sizeof(self->err)))
		TH_LOG("%s", self->err);
	pto_graph_free(g);
	bufs_free(&b);
}

/* 20 of the AIVs, sync_start, 10 rounds of two barriers. */
TEST_F_TIMEOUT(soft, rounds_partial_occupancy, 180)
{
	run_soft(_metadata, self, PTO_TASK_SYNC_START);
}

/* The same without sync_start: on an idle device the 20 blocks all land. */
TEST_F_TIMEOUT(soft, rounds_without_sync_start, 180)
{
	run_soft(_metadata, self, 0);
}

/* The counter only grows: a second run on the same workspace needs no reset. */
TEST_F(soft, workspace_never_reset)
{
	struct soft_bufs b;
	struct pto_graph *g;
	int64_t used = BLOCKS;
	int run;

	bufs_alloc(_metadata, self->dev, 1, BLOCKS, PTO_DTYPE_I32, &b);
	ASSERT_EQ(0, pto_graph_new(self->dev, &g));
	ASSERT_EQ(0, add_soft(g, self->k, NULL, BLOCKS, PTO_TASK_SYNC_START,
			      &b, &used));
	for (run = 1; run <= 3; run++) {
		memset(pto_tensor_data(b.mism), 0xff, BLOCKS * 4);
		ASSERT_EQ(0, pto_graph_run(g, self->q, RUN_TIMEOUT))
			TH_LOG("run %d: %s", run, pto_graph_error(g));
		check_rounds(_metadata, &b, 1, BLOCKS, run * ARRIVALS(BLOCKS));
	}
	pto_graph_free(g);
	bufs_free(&b);
}

/*
 * A mixed task of 8 clusters (AIC + one AIV each, split NONE): 16 units
 * meet at a SOFT barrier with used_cores 16, at partial occupancy.
 */
TEST_F(soft, mixed_task_partial_occupancy)
{
	const unsigned int blocks = 8;
	struct pto_kernel *kc, *kv;
	struct soft_bufs b;
	struct pto_graph *g;
	int64_t used = 2 * blocks;
	int ret;

	ASSERT_EQ(0, pto_test_build_rounds(self->dev, PTO_CORE_AIC,
					   PTO_SYNC_SOFT, 2, 0, 2, ROUNDS, &kc,
					   self->err, sizeof(self->err)))
		TH_LOG("%s", self->err);
	ASSERT_EQ(0, pto_test_build_rounds(self->dev, PTO_CORE_AIV,
					   PTO_SYNC_SOFT, 2, -1, 2, ROUNDS, &kv,
					   self->err, sizeof(self->err)))
		TH_LOG("%s", self->err);
	bufs_alloc(_metadata, self->dev, 2, blocks, PTO_DTYPE_I32, &b);
	ASSERT_EQ(0, pto_graph_new(self->dev, &g));
	ret = add_soft(g, kv, kc, blocks, PTO_TASK_SYNC_START, &b, &used);
	if (ret < 0) {
		TH_LOG("add: %s", pto_graph_error(g));
		pto_graph_free(g);
		bufs_free(&b);
		pto_kernel_free(kv);
		pto_kernel_free(kc);
		SKIP(return, "libpto refuses the mixed task");
	}
	ASSERT_EQ(0, pto_graph_run(g, self->q, RUN_TIMEOUT))
		TH_LOG("run: %s", pto_graph_error(g));
	check_rounds(_metadata, &b, 2, blocks, ARRIVALS(2 * blocks));
	pto_graph_free(g);
	bufs_free(&b);
	pto_kernel_free(kv);
	pto_kernel_free(kc);
}

/* The workspace is an int32 tensor: an int64 one is refused at submit. */
TEST_F(soft, refuse_workspace_not_int32)
{
	struct soft_bufs b;
	struct pto_tensor *args[3];
	struct pto_cqe cqes[4];
	const struct pto_cqe *last;
	int64_t used = BLOCKS;
	struct pto_task_desc d = {
		.kernel_aiv = self->k, .block_num = BLOCKS,
		.flags = PTO_TASK_SYNC_START, .tensors = args,
		.num_tensors = 3, .scalars = &used, .num_scalars = 1,
	};
	uint32_t consumed = 0;
	uint64_t first = 0;
	int n;

	bufs_alloc(_metadata, self->dev, 1, BLOCKS, PTO_DTYPE_I64, &b);
	args[0] = b.vals;
	args[1] = b.mism;
	args[2] = b.ws;
	ASSERT_EQ(0, pto_queue_push_task(self->q, &d));
	ASSERT_EQ(0, pto_queue_doorbell(self->q, 0, 0, &consumed, &first));
	n = pto_test_reap_lasts(self->q, cqes, 4, 1, RUN_TIMEOUT);
	ASSERT_LE(1, n);
	last = pto_test_find_last(cqes, n, first);
	ASSERT_NE(NULL, last);
	EXPECT_EQ(PTO_STATUS_INVALID, last->info.status);
	EXPECT_EQ(PTO_REASON_TENSOR_DTYPE, last->info.reason);
	EXPECT_EQ(2U, last->info.detail);
	bufs_free(&b);
}

/* used_cores 0 can never be met: the task fails, it does not wait forever. */
TEST_F(soft, used_cores_zero_fails)
{
	struct soft_bufs b;
	struct pto_graph *g;
	int64_t used = 0;
	int ret;

	bufs_alloc(_metadata, self->dev, 1, BLOCKS, PTO_DTYPE_I32, &b);
	ASSERT_EQ(0, pto_graph_new(self->dev, &g));
	ASSERT_EQ(0, add_soft(g, self->k, NULL, BLOCKS, PTO_TASK_SYNC_START,
			      &b, &used));
	ret = pto_graph_run(g, self->q, RUN_TIMEOUT);
	EXPECT_EQ(-EIO, ret);
	EXPECT_EQ(PTO_STATUS_TIMEOUT, pto_graph_task_status(g, 0, NULL, NULL));
	pto_graph_free(g);
	bufs_free(&b);
	run_soft(_metadata, self, PTO_TASK_SYNC_START);
}

/* ------------------------------------------------------------ timeouts */

FIXTURE(soft_to)
{
	struct pto_device *dev;
	struct pto_queue *q;
	struct pto_kernel *k;
	long old_timeout;
	char err[512];
};

FIXTURE_SETUP(soft_to)
{
	self->old_timeout = pto_test_param_read("timeout_ms");
	ASSERT_LT(0, self->old_timeout);
	ASSERT_EQ(0, pto_test_param_write("timeout_ms", SHORT_TIMEOUT_MS));
	ASSERT_EQ(0, pto_test_dev_open(&self->dev));
	ASSERT_EQ(0, pto_queue_create(self->dev, 0, 0, &self->q));
	ASSERT_EQ(0, pto_test_build_rounds(self->dev, PTO_CORE_AIV,
					   PTO_SYNC_SOFT, 2, 0, 1, 1, &self->k,
					   self->err, sizeof(self->err)))
		TH_LOG("%s", self->err);
}

FIXTURE_TEARDOWN(soft_to)
{
	pto_kernel_free(self->k);
	if (self->q)
		pto_queue_destroy(self->q);
	pto_device_close(self->dev);
	if (self->old_timeout > 0)
		pto_test_param_write("timeout_ms", self->old_timeout);
}

/* The next graph after a timeout runs: a one-round barrier that is right. */
static void run_after(struct __test_metadata *_metadata,
		      FIXTURE_DATA(soft_to) *self)
{
	struct soft_bufs b;
	struct pto_graph *g;
	int64_t used = BLOCKS;

	bufs_alloc(_metadata, self->dev, 1, BLOCKS, PTO_DTYPE_I32, &b);
	ASSERT_EQ(0, pto_graph_new(self->dev, &g));
	ASSERT_EQ(0, add_soft(g, self->k, NULL, BLOCKS, PTO_TASK_SYNC_START,
			      &b, &used));
	ASSERT_EQ(0, pto_graph_run(g, self->q, RUN_TIMEOUT))
		TH_LOG("run after: %s", pto_graph_error(g));
	EXPECT_EQ(BLOCKS * 2, ((int32_t *)pto_tensor_data(b.ws))[0]);
	pto_graph_free(g);
	bufs_free(&b);
}

/* 20 blocks, used_cores 21: nobody is ever released; TIMEOUT at the deadline. */
TEST_F(soft_to, wrong_used_cores_times_out)
{
	struct soft_bufs b;
	struct pto_graph *g;
	int64_t used = BLOCKS + 1, t0, ms;
	int ret;

	bufs_alloc(_metadata, self->dev, 1, BLOCKS, PTO_DTYPE_I32, &b);
	ASSERT_EQ(0, pto_graph_new(self->dev, &g));
	ASSERT_EQ(0, add_soft(g, self->k, NULL, BLOCKS, PTO_TASK_SYNC_START,
			      &b, &used));
	t0 = pto_test_now_ns();
	ret = pto_graph_run(g, self->q, RUN_TIMEOUT);
	ms = (pto_test_now_ns() - t0) / 1000000;
	EXPECT_EQ(-EIO, ret);
	EXPECT_EQ(PTO_STATUS_TIMEOUT, pto_graph_task_status(g, 0, NULL, NULL));
	EXPECT_LE(SHORT_TIMEOUT_MS * 9 / 10, ms);
	EXPECT_GT(SHORT_TIMEOUT_MS * 8, ms);
	EXPECT_EQ(BLOCKS, ((int32_t *)pto_tensor_data(b.ws))[0]);
	TH_LOG("TIMEOUT after %lld ms (timeout_ms %d)", (long long)ms,
	       SHORT_TIMEOUT_MS);
	pto_graph_free(g);
	bufs_free(&b);
	run_after(_metadata, self);
}

/* Block 0 jumps over the SOFT barrier: the others time out, then all is well. */
TEST_F(soft_to, block_exits_early_times_out)
{
	struct pto_kernel *bad;
	struct soft_bufs b;
	struct pto_graph *g;
	struct pto_kb *kb;
	int64_t used = BLOCKS;
	int over, ret;

	ASSERT_EQ(0, pto_kb_new(self->dev, PTO_CORE_AIV, &kb));
	over = pto_kb_label_new(kb);
	pto_kb_arg(kb, 12, 0);
	pto_kb_sreg(kb, 0, PTO_SREG_BLOCK_IDX);
	pto_kb_cmpi(kb, PTO_CMP_EQ, 1, 0, 0);
	pto_kb_jnz(kb, 1, over);
	pto_kb_syncall_soft(kb, 2, 12);
	pto_kb_label_bind(kb, over);
	/* Use tensors 0 and 1 like the rounds kernel. */
	pto_kb_ldi(kb, 2, 0);
	pto_kb_gst(kb, 1, 2, 0, 2);
	pto_kb_gst(kb, 0, 2, 0, 0);
	pto_kb_end(kb);
	bad = pto_test_kb_finish(kb, self->err, sizeof(self->err));
	ASSERT_NE(NULL, bad) TH_LOG("%s", self->err);
	bufs_alloc(_metadata, self->dev, 1, BLOCKS, PTO_DTYPE_I32, &b);
	ASSERT_EQ(0, pto_graph_new(self->dev, &g));
	ASSERT_EQ(0, add_soft(g, bad, NULL, BLOCKS, PTO_TASK_SYNC_START, &b,
			      &used));
	ret = pto_graph_run(g, self->q, RUN_TIMEOUT);
	EXPECT_EQ(-EIO, ret);
	EXPECT_EQ(PTO_STATUS_TIMEOUT, pto_graph_task_status(g, 0, NULL, NULL));
	EXPECT_EQ(BLOCKS - 1, ((int32_t *)pto_tensor_data(b.ws))[0]);
	pto_graph_free(g);
	bufs_free(&b);
	pto_kernel_free(bad);
	run_after(_metadata, self);
}

TEST_HARNESS_MAIN
