// SPDX-License-Identifier: GPL-2.0-only
/*
 * SOFT in-kernel syncall (SPEC 4.5): a counter in a caller-provided GM
 * workspace (16 int32, zero-initialised). Each of used_cores participants
 * adds 1 to element [0, 0] and waits for the next multiple of used_cores;
 * the counter only grows, so rounds (and runs) need no reset. Works at
 * partial occupancy. The workspace contract is checked: a workspace of
 * fewer than 16 elements is refused at submit (REASON_SYNCALL, detail =
 * the tensor); used_cores outside 1..the task's participants, or a
 * counter that is not a whole number of rounds when a block arrives (not
 * zero-initialised: 5 with used_cores 4), fails the task at once with
 * STATUS_WORKSPACE (detail = the counter), no block leaving the barrier
 * and the blocks already waiting released with the failure. A barrier
 * that can never complete otherwise (a participant that never arrives)
 * fails the task with TIMEOUT at the block deadline (timeout_ms), and the
 * device goes on.
 *
 * Copyright (C) 2026 pto-npu authors
 */
#define PTO_TEST_LIBPTO
#include <stdint.h>
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

/* Any detail, for expect_workspace() and run_broken(). */
#define ANY_DETAIL INT64_MIN

/* The task failed with STATUS_WORKSPACE, @detail; no block left the barrier. */
static void expect_workspace(struct __test_metadata *_metadata,
			     struct pto_graph *g, unsigned int blocks,
			     int64_t detail)
{
	const struct pto_block_info *b;
	unsigned int n = 0, i;
	uint64_t d = 0;

	EXPECT_EQ(PTO_STATUS_WORKSPACE, pto_graph_task_status(g, 0, NULL, &d))
		TH_LOG("%s", pto_graph_error(g));
	if (detail != ANY_DETAIL)
		EXPECT_EQ((uint64_t)detail, d);
	EXPECT_NE(NULL, strstr(pto_graph_error(g), "workspace"))
		TH_LOG("%s", pto_graph_error(g));
	EXPECT_EQ(0, pto_graph_task_blocks(g, 0, &b, &n));
	EXPECT_EQ(blocks, n);
	for (i = 0; i < n; i++)
		EXPECT_NE(PTO_STATUS_OK, b[i].status)
			TH_LOG("block %u left the barrier", b[i].block);
}

/* used_cores 0 can never be met: the task fails at once, counter untouched. */
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
	expect_workspace(_metadata, g, BLOCKS, 0);
	EXPECT_EQ(0, ((int32_t *)pto_tensor_data(b.ws))[0]);
	pto_graph_free(g);
	bufs_free(&b);
	run_soft(_metadata, self, PTO_TASK_SYNC_START);
}

/* 20 blocks, used_cores 21: more than can ever arrive; it fails at once. */
TEST_F(soft, used_cores_over_participants_fails)
{
	struct soft_bufs b;
	struct pto_graph *g;
	int64_t used = BLOCKS + 1, t0, ms;

	bufs_alloc(_metadata, self->dev, 1, BLOCKS, PTO_DTYPE_I32, &b);
	ASSERT_EQ(0, pto_graph_new(self->dev, &g));
	ASSERT_EQ(0, add_soft(g, self->k, NULL, BLOCKS, PTO_TASK_SYNC_START,
			      &b, &used));
	t0 = pto_test_now_ns();
	EXPECT_EQ(-EIO, pto_graph_run(g, self->q, RUN_TIMEOUT));
	ms = (pto_test_now_ns() - t0) / 1000000;
	expect_workspace(_metadata, g, BLOCKS, 0);
	EXPECT_EQ(0, ((int32_t *)pto_tensor_data(b.ws))[0]);
	TH_LOG("WORKSPACE after %lld ms", (long long)ms);
	pto_graph_free(g);
	bufs_free(&b);
	run_soft(_metadata, self, PTO_TASK_SYNC_START);
}

/*
 * "SYNCALL SOFT on tensor 1 with used_cores s12 (@block0_used for block 0,
 * after a delay, else scalar 0); then vals[0, block] = 1": what left the
 * barrier shows in vals.
 */
static struct pto_kernel *flag_kernel(struct __test_metadata *_metadata,
				      FIXTURE_DATA(soft) *self,
				      int64_t block0_used)
{
	struct pto_kernel *k;
	struct pto_kb *kb;
	int others;

	EXPECT_EQ(0, pto_kb_new(self->dev, PTO_CORE_AIV, &kb));
	others = pto_kb_label_new(kb);
	pto_kb_arg(kb, 12, 0);
	pto_kb_sreg(kb, 0, PTO_SREG_BLOCK_IDX);
	pto_kb_jnz(kb, 0, others);
	if (block0_used >= 0) {
		/* Block 0 arrives late, with its own used_cores. */
		pto_kb_loopi(kb, 5, 20000);
		pto_kb_alui(kb, PTO_ALU_ADD, 3, 3, 1);
		pto_kb_endloop(kb);
		pto_kb_ldi(kb, 12, block0_used);
	}
	pto_kb_label_bind(kb, others);
	pto_kb_syncall_soft(kb, 1, 12);
	pto_kb_ldi(kb, 1, 0);
	pto_kb_ldi(kb, 2, 1);
	pto_kb_gst(kb, 0, 1, 0, 2);
	pto_kb_end(kb);
	k = pto_test_kb_finish(kb, self->err, sizeof(self->err));
	EXPECT_NE(NULL, k) TH_LOG("%s", self->err);
	return k;
}

/*
 * Run flag_kernel over @blocks with used_cores @used and the counter at
 * @counter; expect STATUS_WORKSPACE (detail @detail, or ANY_DETAIL), no
 * block past the barrier, the counter at @after (or ANY_DETAIL) and no
 * wait for timeout_ms.
 */
static void run_broken(struct __test_metadata *_metadata,
		       FIXTURE_DATA(soft) *self, unsigned int blocks,
		       int64_t block0_used, int64_t used, int32_t counter,
		       int64_t detail, int64_t after)
{
	long timeout_ms = pto_test_param_read("timeout_ms");
	struct pto_tensor *vals, *ws, *args[2];
	struct pto_task_desc d = {
		.block_num = blocks, .flags = PTO_TASK_SYNC_START,
		.tensors = args, .num_tensors = 2, .scalars = &used,
		.num_scalars = 1,
	};
	struct pto_kernel *k = flag_kernel(_metadata, self, block0_used);
	const int32_t *pv;
	struct pto_graph *g;
	int64_t t0, ms;
	unsigned int i;

	ASSERT_NE(NULL, k);
	ASSERT_LT(0, timeout_ms);
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I32, 1, blocks,
				       &vals));
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I32, 1, WS_INTS,
				       &ws));
	memset(pto_tensor_data(vals), 0, blocks * 4);
	((int32_t *)pto_tensor_data(ws))[0] = counter;
	args[0] = vals;
	args[1] = ws;
	d.kernel_aiv = k;
	ASSERT_EQ(0, pto_graph_new(self->dev, &g));
	ASSERT_EQ(0, pto_graph_add_task(g, &d)) TH_LOG("%s", pto_graph_error(g));
	t0 = pto_test_now_ns();
	EXPECT_EQ(-EIO, pto_graph_run(g, self->q, RUN_TIMEOUT));
	ms = (pto_test_now_ns() - t0) / 1000000;
	expect_workspace(_metadata, g, blocks, detail);
	pv = pto_tensor_data(vals);
	for (i = 0; i < blocks; i++)
		EXPECT_EQ(0, pv[i]) TH_LOG("block %u left the barrier", i);
	if (after != ANY_DETAIL)
		EXPECT_EQ(after, ((int32_t *)pto_tensor_data(ws))[0]);
	/* Failed as soon as it was certain, not at the wall-clock deadline. */
	EXPECT_GT(timeout_ms / 2, ms);
	TH_LOG("%s after %lld ms, counter %d", pto_graph_error(g),
	       (long long)ms, ((int32_t *)pto_tensor_data(ws))[0]);
	pto_graph_free(g);
	pto_tensor_free(ws);
	pto_tensor_free(vals);
	pto_kernel_free(k);
}

/*
 * The case: a workspace holding 5 with used_cores 4. Unchecked,
 * arrivals 5, 6, 7 end the round at 8 and 3 of 4 blocks leave a barrier
 * only 3 reached. Checked: the first arrival finds 5, not a multiple of
 * 4: STATUS_WORKSPACE, detail 5, nobody adds, nobody leaves.
 */
TEST_F(soft, counter_not_whole_rounds_fails)
{
	run_broken(_metadata, self, 4, -1, 4, 5, 5, 5);
}

/* Not zero-initialised but a whole number of rounds (8, used 4): it runs. */
TEST_F(soft, counter_whole_rounds_runs)
{
	struct pto_tensor *vals, *ws, *args[2];
	int64_t used = 4;
	struct pto_task_desc d = {
		.block_num = 4, .flags = PTO_TASK_SYNC_START,
		.tensors = args, .num_tensors = 2, .scalars = &used,
		.num_scalars = 1,
	};
	struct pto_kernel *k = flag_kernel(_metadata, self, -1);
	struct pto_graph *g;
	unsigned int i;

	ASSERT_NE(NULL, k);
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I32, 1, 4, &vals));
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I32, 1, WS_INTS,
				       &ws));
	memset(pto_tensor_data(vals), 0, 16);
	((int32_t *)pto_tensor_data(ws))[0] = 8;
	args[0] = vals;
	args[1] = ws;
	d.kernel_aiv = k;
	ASSERT_EQ(0, pto_graph_new(self->dev, &g));
	ASSERT_EQ(0, pto_graph_add_task(g, &d)) TH_LOG("%s", pto_graph_error(g));
	ASSERT_EQ(0, pto_graph_run(g, self->q, RUN_TIMEOUT))
		TH_LOG("%s", pto_graph_error(g));
	for (i = 0; i < 4; i++)
		EXPECT_EQ(1, ((int32_t *)pto_tensor_data(vals))[i]);
	EXPECT_EQ(12, ((int32_t *)pto_tensor_data(ws))[0]);
	pto_graph_free(g);
	pto_tensor_free(ws);
	pto_tensor_free(vals);
	pto_kernel_free(k);
}

/* A negative counter is no whole number of rounds either. */
TEST_F(soft, counter_negative_fails)
{
	run_broken(_metadata, self, 4, -1, 4, -4, -4, -4);
}

/*
 * Blocks 1..7 arrive with used_cores 8 and wait; block 0 arrives late with
 * used_cores 0. The waiters are released with the failure (none leaves),
 * and the task fails at once, not at timeout_ms.
 */
TEST_F(soft, waiters_released_on_break)
{
	run_broken(_metadata, self, 8, 0, 8, 0, ANY_DETAIL, ANY_DETAIL);
}

/* Block 0 with a different used_cores (4, within 1..8) breaks it too. */
TEST_F(soft, used_cores_differs_between_blocks_fails)
{
	run_broken(_metadata, self, 8, 4, 8, 0, ANY_DETAIL, ANY_DETAIL);
}

/* A workspace of 8 int32: libpto refuses it; the device refuses the entry. */
TEST_F(soft, refuse_workspace_too_small)
{
	struct soft_bufs b;
	struct pto_tensor *small, *args[3];
	struct pto_cqe cqes[4];
	const struct pto_cqe *last;
	int64_t used = BLOCKS;
	struct pto_task_desc d = {
		.kernel_aiv = self->k, .block_num = BLOCKS,
		.flags = PTO_TASK_SYNC_START, .tensors = args,
		.num_tensors = 3, .scalars = &used, .num_scalars = 1,
	};
	struct pto_graph *g;
	uint32_t consumed = 0;
	uint64_t first = 0;
	int n;

	bufs_alloc(_metadata, self->dev, 1, BLOCKS, PTO_DTYPE_I32, &b);
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I32, 1,
				       WS_INTS / 2, &small));
	args[0] = b.vals;
	args[1] = b.mism;
	args[2] = small;
	ASSERT_EQ(0, pto_graph_new(self->dev, &g));
	EXPECT_EQ(-EINVAL, pto_graph_add_task(g, &d));
	EXPECT_NE(NULL, strstr(pto_graph_error(g), "SOFT syncall workspace"))
		TH_LOG("%s", pto_graph_error(g));
	TH_LOG("%s", pto_graph_error(g));
	pto_graph_free(g);

	ASSERT_EQ(0, pto_queue_push_task(self->q, &d));
	ASSERT_EQ(0, pto_queue_doorbell(self->q, 0, 0, &consumed, &first));
	n = pto_test_reap_lasts(self->q, cqes, 4, 1, RUN_TIMEOUT);
	ASSERT_LE(1, n);
	last = pto_test_find_last(cqes, n, first);
	ASSERT_NE(NULL, last);
	EXPECT_EQ(PTO_STATUS_INVALID, last->info.status);
	EXPECT_EQ(PTO_REASON_SYNCALL, last->info.reason);
	EXPECT_EQ(2U, last->info.detail);
	EXPECT_EQ(0U, last->info.flags & PTO_BLOCK_RAN);
	EXPECT_EQ(0, ((int32_t *)pto_tensor_data(small))[0]);
	pto_tensor_free(small);
	bufs_free(&b);
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
	ASSERT_EQ(0, pto_test_queue_long(self->dev, 0, 0, &self->q));
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
