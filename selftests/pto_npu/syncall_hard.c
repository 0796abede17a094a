// SPDX-License-Identifier: GPL-2.0-only
/*
 * HARD in-kernel syncall (SPEC 4.5): the FFTS barrier over every core of a
 * type. The launch must be sync_start and hold exactly one block per core
 * (per cluster for AIC and MIX), its barrier type must be the task's shape
 * and both kernels of a mixed task must carry it; anything else is refused
 * at submit with DRM_PTO_NPU_REASON_SYNCALL, detail = the block count it
 * needs. The grid sentinels DRM_PTO_NPU_BLOCKS_ALL_AIV / _ALL_CLUSTERS
 * (libpto: PTO_GRID_ALL_AIV / _ALL_CLUSTERS) are resolved at intake to
 * the device's count; the device takes a literal that matches, but libpto
 * refuses a literal grid for a HARD launch at graph build (the guide's
 * HardSyncallOccupancy: it breaks on another device). A participant that ends without arriving fails the others at
 * once with DRM_PTO_NPU_STATUS_BARRIER_FAULT (the 507018 equivalent) and
 * the device stays usable.
 *
 * Copyright (C) 2026 pto-npu authors
 */
#define PTO_TEST_LIBPTO
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "pto_test.h"

#define RUN_TIMEOUT PTO_TEST_SEC(60)
#define ROUNDS 10
/*
 * How soon a close must stop a launch in flight (generous: the VM shares
 * its host; a close that waits for the spinner ends at timeout_ms).
 */
#define CLOSE_MS 3000

FIXTURE(hard)
{
	struct pto_device *dev;
	struct pto_queue *q;
	unsigned int aiv, clusters;
	struct pto_tensor *vals, *mism;
	char err[512];
};

FIXTURE_SETUP(hard)
{
	ASSERT_EQ(0, pto_test_dev_open(&self->dev))
		TH_LOG("open %s", pto_test_device_path());
	/* Profiling: each block's barrier waits, arrival to release. */
	ASSERT_EQ(0, pto_test_queue_prof(self->dev, &self->q));
	self->aiv = pto_available_aiv_count(self->dev);
	self->clusters = pto_available_cluster_count(self->dev);
	ASSERT_LT(0U, self->clusters);
	/* Room for 3 rows (mixed UP_DOWN) of one entry per AIV. */
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I32, 3, self->aiv,
				       &self->vals));
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I32, 3, self->aiv,
				       &self->mism));
}

FIXTURE_TEARDOWN(hard)
{
	pto_tensor_free(self->mism);
	pto_tensor_free(self->vals);
	if (self->q)
		pto_queue_destroy(self->q);
	pto_device_close(self->dev);
}

/* vals and mism viewed as [nrows, blocks] (row-major, from offset 0). */
static void views(struct __test_metadata *_metadata, FIXTURE_DATA(hard) *self,
		  unsigned int nrows, unsigned int blocks,
		  struct pto_tensor **v, struct pto_tensor **m)
{
	const int64_t shape[2] = { nrows, blocks };

	ASSERT_EQ(0, pto_tensor_view(pto_tensor_buffer(self->vals), 0,
				     PTO_DTYPE_I32, 2, shape, NULL, v));
	ASSERT_EQ(0, pto_tensor_view(pto_tensor_buffer(self->mism), 0,
				     PTO_DTYPE_I32, 2, shape, NULL, m));
	memset(pto_tensor_data(*v), 0xff, (size_t)nrows * blocks * 4);
	memset(pto_tensor_data(*m), 0xff, (size_t)nrows * blocks * 4);
}

/* Every unit saw every other unit's value in every round. */
static void check_rounds(struct __test_metadata *_metadata,
			 struct pto_tensor *v, struct pto_tensor *m,
			 unsigned int nrows, unsigned int blocks)
{
	const int32_t *pv = pto_tensor_data(v), *pm = pto_tensor_data(m);
	unsigned int r, b;

	for (r = 0; r < nrows; r++) {
		for (b = 0; b < blocks; b++) {
			EXPECT_EQ(0, pm[r * blocks + b])
				TH_LOG("row %u block %u: %d stale reads", r, b,
				       pm[r * blocks + b]);
			EXPECT_EQ(pto_test_round_val(ROUNDS, r, b),
				  pv[r * blocks + b]);
		}
	}
}

/* One graph of one task; returns the run's result. */
static int run_one(struct __test_metadata *_metadata, FIXTURE_DATA(hard) *self,
		   const struct pto_task_desc *d, struct pto_graph **out)
{
	struct pto_graph *g;
	int ret;

	*out = NULL;
	ret = pto_graph_new(self->dev, &g);
	if (ret)
		return ret;
	ret = pto_graph_add_task(g, d);
	if (ret < 0) {
		TH_LOG("add: %s", pto_graph_error(g));
		pto_graph_free(g);
		return ret;
	}
	*out = g;
	return pto_graph_run(g, self->q, RUN_TIMEOUT);
}

/*
 * The profile of a rounds task: every unit met the barrier twice a round,
 * and no unit left one before the last arrived; its waits lie in its bar.
 */
static void barrier_ok(struct __test_metadata *_metadata,
		       FIXTURE_DATA(hard) *self, const struct pto_graph *g)
{
	EXPECT_EQ(0, pto_test_waits_sane(g, 0, 1U << PTO_WAIT_BARRIER_HARD,
					 self->err, sizeof(self->err)))
		TH_LOG("%s", self->err);
	EXPECT_EQ(0, pto_test_barrier_waits(g, 0, PTO_WAIT_BARRIER_HARD,
					    2 * ROUNDS, self->err,
					    sizeof(self->err)))
		TH_LOG("%s", self->err);
}

TEST_F_TIMEOUT(hard, aiv_rounds, 180)
{
	struct pto_kernel *k;
	struct pto_tensor *v, *m, *args[2];
	struct pto_graph *g;
	struct pto_task_desc d = { .block_num = PTO_GRID_ALL_AIV,
				   .flags = PTO_TASK_SYNC_START,
				   .num_tensors = 2, .tensors = args };

	ASSERT_EQ(0, pto_test_build_rounds(self->dev, PTO_CORE_AIV,
					   PTO_SYNC_HARD, PTO_SYNC_AIV, 0, 1,
					   ROUNDS, &k, self->err,
					   sizeof(self->err)))
		TH_LOG("%s", self->err);
	views(_metadata, self, 1, self->aiv, &v, &m);
	args[0] = v;
	args[1] = m;
	d.kernel_aiv = k;
	ASSERT_EQ(0, run_one(_metadata, self, &d, &g))
		TH_LOG("run: %s", pto_graph_error(g));
	EXPECT_EQ((int)self->aiv, pto_test_blocks_with(g, 0, PTO_BLOCK_RAN));
	check_rounds(_metadata, v, m, 1, self->aiv);
	barrier_ok(_metadata, self, g);
	pto_graph_free(g);
	pto_tensor_free(m);
	pto_tensor_free(v);
	pto_kernel_free(k);
}

TEST_F_TIMEOUT(hard, aic_rounds, 180)
{
	struct pto_kernel *k;
	struct pto_tensor *v, *m, *args[2];
	struct pto_graph *g;
	struct pto_task_desc d = { .block_num = PTO_GRID_ALL_CLUSTERS,
				   .flags = PTO_TASK_SYNC_START,
				   .num_tensors = 2, .tensors = args };

	ASSERT_EQ(0, pto_test_build_rounds(self->dev, PTO_CORE_AIC,
					   PTO_SYNC_HARD, PTO_SYNC_AIC, 0, 1,
					   ROUNDS, &k, self->err,
					   sizeof(self->err)))
		TH_LOG("%s", self->err);
	views(_metadata, self, 1, self->clusters, &v, &m);
	args[0] = v;
	args[1] = m;
	d.kernel_aic = k;
	ASSERT_EQ(0, run_one(_metadata, self, &d, &g))
		TH_LOG("run: %s", pto_graph_error(g));
	EXPECT_EQ((int)self->clusters,
		  pto_test_blocks_with(g, 0, PTO_BLOCK_RAN));
	check_rounds(_metadata, v, m, 1, self->clusters);
	barrier_ok(_metadata, self, g);
	pto_graph_free(g);
	pto_tensor_free(m);
	pto_tensor_free(v);
	pto_kernel_free(k);
}

/*
 * MIX: one block per cluster, the AIC writes row 0, the AIV(s) row
 * 1 + sub_block_id; every unit checks every row.
 */
static void mix_rounds(struct __test_metadata *_metadata,
		       FIXTURE_DATA(hard) *self, enum pto_split_mode split)
{
	unsigned int nrows = split == PTO_SPLIT_UP_DOWN ? 3 : 2;
	struct pto_kernel *kc, *kv;
	struct pto_tensor *v, *m, *args[2];
	struct pto_graph *g;
	struct pto_task_desc d = { .block_num = PTO_GRID_ALL_CLUSTERS,
				   .flags = PTO_TASK_SYNC_START,
				   .num_tensors = 2, .tensors = args,
				   .split_mode = split };
	int ret;

	ASSERT_EQ(0, pto_test_build_rounds(self->dev, PTO_CORE_AIC,
					   PTO_SYNC_HARD, PTO_SYNC_MIX, 0,
					   nrows, ROUNDS, &kc, self->err,
					   sizeof(self->err)))
		TH_LOG("%s", self->err);
	ASSERT_EQ(0, pto_test_build_rounds(self->dev, PTO_CORE_AIV,
					   PTO_SYNC_HARD, PTO_SYNC_MIX, -1,
					   nrows, ROUNDS, &kv, self->err,
					   sizeof(self->err)))
		TH_LOG("%s", self->err);
	views(_metadata, self, nrows, self->clusters, &v, &m);
	args[0] = v;
	args[1] = m;
	d.kernel_aic = kc;
	d.kernel_aiv = kv;
	ret = run_one(_metadata, self, &d, &g);
	if (!g) {
		pto_tensor_free(m);
		pto_tensor_free(v);
		pto_kernel_free(kv);
		pto_kernel_free(kc);
		SKIP(return, "libpto refuses the mixed task (%s)",
		     pto_strerror(ret));
	}
	ASSERT_EQ(0, ret) TH_LOG("run: %s", pto_graph_error(g));
	EXPECT_EQ((int)(self->clusters * nrows),
		  pto_test_blocks_with(g, 0, PTO_BLOCK_RAN));
	check_rounds(_metadata, v, m, nrows, self->clusters);
	barrier_ok(_metadata, self, g);
	pto_graph_free(g);
	pto_tensor_free(m);
	pto_tensor_free(v);
	pto_kernel_free(kv);
	pto_kernel_free(kc);
}

TEST_F_TIMEOUT(hard, mix_rounds_split_none, 180)
{
	mix_rounds(_metadata, self, PTO_SPLIT_NONE);
}

TEST_F_TIMEOUT(hard, mix_rounds_split_up_down, 180)
{
	mix_rounds(_metadata, self, PTO_SPLIT_UP_DOWN);
}

/* ------------------------------------------------------------ refusals */

/*
 * Push one task through the queue (libpto checks only the encoding) and
 * return its last CQE.
 */
static void submit_one(struct __test_metadata *_metadata,
		       FIXTURE_DATA(hard) *self, const struct pto_task_desc *d,
		       struct pto_cqe *last_out)
{
	struct pto_cqe cqes[256];
	const struct pto_cqe *last;
	uint32_t consumed = 0;
	uint64_t first = 0;
	int n;

	ASSERT_EQ(0, pto_queue_push_task(self->q, d));
	ASSERT_EQ(0, pto_queue_doorbell(self->q, 0, 0, &consumed, &first));
	ASSERT_EQ(1U, consumed);
	n = pto_test_reap_lasts(self->q, cqes, 256, 1, RUN_TIMEOUT);
	ASSERT_LE(1, n);
	last = pto_test_find_last(cqes, n, first);
	ASSERT_NE(NULL, last);
	*last_out = *last;
}

/* A HARD kernel of @core_type with barrier @type, refused as @blocks/@flags. */
static void expect_syncall_refusal(struct __test_metadata *_metadata,
				   FIXTURE_DATA(hard) *self,
				   struct pto_kernel *aiv,
				   struct pto_kernel *aic, unsigned int blocks,
				   uint32_t flags, int reason,
				   uint64_t detail)
{
	struct pto_tensor *args[2] = { self->vals, self->mism };
	struct pto_task_desc d = {
		.kernel_aiv = aiv, .kernel_aic = aic, .block_num = blocks,
		.flags = flags, .tensors = args, .num_tensors = 2,
	};
	struct pto_cqe c;

	submit_one(_metadata, self, &d, &c);
	EXPECT_EQ(PTO_STATUS_INVALID, c.info.status);
	EXPECT_EQ(reason, c.info.reason)
		TH_LOG("reason %d (%s), detail %llu", c.info.reason,
		       pto_reason_name(c.info.reason),
		       (unsigned long long)c.info.detail);
	EXPECT_EQ(detail, c.info.detail);
	EXPECT_EQ(0U, c.info.flags & PTO_BLOCK_RAN);
}

static struct pto_kernel *hard_kernel(struct __test_metadata *_metadata,
				      FIXTURE_DATA(hard) *self,
				      enum pto_core_type ct, unsigned int type)
{
	struct pto_kernel *k = NULL;

	EXPECT_EQ(0, pto_test_build_rounds(self->dev, ct, PTO_SYNC_HARD, type,
					   0, 1, 1, &k, self->err,
					   sizeof(self->err)))
		TH_LOG("%s", self->err);
	return k;
}

TEST_F(hard, refuse_aiv_one_block_short)
{
	struct pto_kernel *k = hard_kernel(_metadata, self, PTO_CORE_AIV,
					   PTO_SYNC_AIV);

	ASSERT_NE(NULL, k);
	expect_syncall_refusal(_metadata, self, k, NULL, self->aiv - 1,
			       PTO_TASK_SYNC_START, DRM_PTO_NPU_REASON_SYNCALL,
			       self->aiv);
	pto_kernel_free(k);
}

TEST_F(hard, refuse_aiv_one_block_over)
{
	struct pto_kernel *k = hard_kernel(_metadata, self, PTO_CORE_AIV,
					   PTO_SYNC_AIV);

	ASSERT_NE(NULL, k);
	expect_syncall_refusal(_metadata, self, k, NULL, self->aiv + 1, 0,
			       DRM_PTO_NPU_REASON_SYNCALL, self->aiv);
	pto_kernel_free(k);
}

/*
 * aiv + 1 blocks with sync_start break two rules; the HARD syncall one
 * (REASON_SYNCALL, "too many blocks") is the one the uapi documents for a
 * barrier launch.
 */
TEST_F(hard, refuse_aiv_one_block_over_sync_start)
{
	struct pto_kernel *k = hard_kernel(_metadata, self, PTO_CORE_AIV,
					   PTO_SYNC_AIV);

	ASSERT_NE(NULL, k);
	expect_syncall_refusal(_metadata, self, k, NULL, self->aiv + 1,
			       PTO_TASK_SYNC_START, DRM_PTO_NPU_REASON_SYNCALL,
			       self->aiv);
	pto_kernel_free(k);
}

TEST_F(hard, refuse_aiv_without_sync_start)
{
	struct pto_kernel *k = hard_kernel(_metadata, self, PTO_CORE_AIV,
					   PTO_SYNC_AIV);

	ASSERT_NE(NULL, k);
	expect_syncall_refusal(_metadata, self, k, NULL, self->aiv, 0,
			       DRM_PTO_NPU_REASON_SYNCALL, self->aiv);
	pto_kernel_free(k);
}

/* A MIX barrier (every core of every cluster) in a vector-only task. */
TEST_F(hard, refuse_mix_barrier_in_aiv_task)
{
	struct pto_kernel *k = hard_kernel(_metadata, self, PTO_CORE_AIV,
					   PTO_SYNC_MIX);

	ASSERT_NE(NULL, k);
	expect_syncall_refusal(_metadata, self, k, NULL, self->aiv,
			       PTO_TASK_SYNC_START, DRM_PTO_NPU_REASON_SYNCALL,
			       self->aiv);
	pto_kernel_free(k);
}

/* A MIX barrier in a cube-only task. */
TEST_F(hard, refuse_mix_barrier_in_aic_task)
{
	struct pto_kernel *k = hard_kernel(_metadata, self, PTO_CORE_AIC,
					   PTO_SYNC_MIX);

	ASSERT_NE(NULL, k);
	expect_syncall_refusal(_metadata, self, NULL, k, self->clusters,
			       PTO_TASK_SYNC_START, DRM_PTO_NPU_REASON_SYNCALL,
			       self->clusters);
	pto_kernel_free(k);
}

TEST_F(hard, refuse_aic_one_block_short)
{
	struct pto_kernel *k = hard_kernel(_metadata, self, PTO_CORE_AIC,
					   PTO_SYNC_AIC);

	ASSERT_NE(NULL, k);
	expect_syncall_refusal(_metadata, self, NULL, k, self->clusters - 1,
			       PTO_TASK_SYNC_START, DRM_PTO_NPU_REASON_SYNCALL,
			       self->clusters);
	pto_kernel_free(k);
}

/* A mixed task in which only the AIC kernel carries the MIX barrier. */
TEST_F(hard, refuse_mixed_task_one_side_barrier)
{
	struct pto_kernel *kc = hard_kernel(_metadata, self, PTO_CORE_AIC,
					    PTO_SYNC_MIX);
	struct pto_kernel *kv = NULL;
	struct pto_kb *kb;

	ASSERT_NE(NULL, kc);
	ASSERT_EQ(0, pto_kb_new(self->dev, PTO_CORE_AIV, &kb));
	pto_kb_end(kb);
	kv = pto_test_kb_finish(kb, self->err, sizeof(self->err));
	ASSERT_NE(NULL, kv) TH_LOG("%s", self->err);
	expect_syncall_refusal(_metadata, self, kv, kc, self->clusters,
			       PTO_TASK_SYNC_START, DRM_PTO_NPU_REASON_SYNCALL,
			       self->clusters);
	pto_kernel_free(kv);
	pto_kernel_free(kc);
}

/* A mixed task whose kernels meet at AIV and AIC barriers, not MIX. */
TEST_F(hard, refuse_mixed_task_single_type_barriers)
{
	struct pto_kernel *kc = hard_kernel(_metadata, self, PTO_CORE_AIC,
					    PTO_SYNC_AIC);
	struct pto_kernel *kv = hard_kernel(_metadata, self, PTO_CORE_AIV,
					    PTO_SYNC_AIV);

	ASSERT_NE(NULL, kc);
	ASSERT_NE(NULL, kv);
	expect_syncall_refusal(_metadata, self, kv, kc, self->clusters,
			       PTO_TASK_SYNC_START, DRM_PTO_NPU_REASON_SYNCALL,
			       self->clusters);
	pto_kernel_free(kv);
	pto_kernel_free(kc);
}

/* ------------------------------------------------------------ verifier */

/* Upload "SYNCALL mode @mode imm @imm; END" for @ct; expect @code at insn 0. */
static void expect_verify(struct __test_metadata *_metadata,
			  FIXTURE_DATA(hard) *self, enum pto_core_type ct,
			  uint8_t mode, int64_t imm, uint32_t code)
{
	struct pto_insn prog[2] = {
		{ .op = PTO_OP_SYNCALL, .mode = mode, .imm = imm },
		{ .op = PTO_OP_END },
	};
	struct pto_verify_info info;
	struct pto_kernel *k = NULL;
	int ret;

	ret = pto_kernel_create_raw(self->dev, ct, prog, 2, NULL, 0, self->err,
				    sizeof(self->err), &info, &k);
	EXPECT_EQ(-EINVAL, ret);
	EXPECT_EQ(code, info.code) TH_LOG("log: %s", self->err);
	EXPECT_EQ(0U, info.index);
	EXPECT_NE(0, self->err[0]);
	pto_kernel_free(k);
}

TEST_F(hard, verifier_refuses_aic_barrier_on_aiv_kernel)
{
	expect_verify(_metadata, self, PTO_CORE_AIV, PTO_SYNC_HARD,
		      PTO_SYNC_AIC, PTO_VERIFY_CORE_TYPE);
}

TEST_F(hard, verifier_refuses_aiv_barrier_on_aic_kernel)
{
	expect_verify(_metadata, self, PTO_CORE_AIC, PTO_SYNC_HARD,
		      PTO_SYNC_AIV, PTO_VERIFY_CORE_TYPE);
}

TEST_F(hard, verifier_refuses_bad_barrier_type_and_mode)
{
	expect_verify(_metadata, self, PTO_CORE_AIV, PTO_SYNC_HARD, 0,
		      PTO_VERIFY_CORE_TYPE);
	expect_verify(_metadata, self, PTO_CORE_AIV, PTO_SYNC_HARD, 4,
		      PTO_VERIFY_CORE_TYPE);
	expect_verify(_metadata, self, PTO_CORE_AIV, 2, PTO_SYNC_AIV,
		      PTO_VERIFY_BAD_MODE);
}

TEST_F(hard, verifier_refuses_two_barrier_types)
{
	struct pto_insn prog[3] = {
		{ .op = PTO_OP_SYNCALL, .mode = PTO_SYNC_HARD, .imm = PTO_SYNC_AIV },
		{ .op = PTO_OP_SYNCALL, .mode = PTO_SYNC_HARD, .imm = PTO_SYNC_MIX },
		{ .op = PTO_OP_END },
	};
	struct pto_verify_info info;
	struct pto_kernel *k = NULL;

	EXPECT_EQ(-EINVAL, pto_kernel_create_raw(self->dev, PTO_CORE_AIV, prog,
						 3, NULL, 0, self->err,
						 sizeof(self->err), &info, &k));
	EXPECT_EQ((uint32_t)PTO_VERIFY_BAD_MODE, info.code) TH_LOG("log: %s", self->err);
	EXPECT_EQ(1U, info.index);
	pto_kernel_free(k);
}

/* SPEC 4.5: libpto refuses a partial HARD launch when the task is built. */
TEST_F(hard, libpto_refuses_partial_launch_at_build_time)
{
	struct pto_kernel *k = hard_kernel(_metadata, self, PTO_CORE_AIV,
					   PTO_SYNC_AIV);
	struct pto_tensor *args[2] = { self->vals, self->mism };
	struct pto_task_desc d = {
		.kernel_aiv = k, .block_num = self->aiv - 1,
		.flags = PTO_TASK_SYNC_START, .tensors = args, .num_tensors = 2,
	};
	struct pto_graph *g;

	ASSERT_NE(NULL, k);
	ASSERT_EQ(0, pto_graph_new(self->dev, &g));
	EXPECT_EQ(-EINVAL, pto_graph_add_task(g, &d));
	EXPECT_NE(NULL, strstr(pto_graph_error(g), "HardSyncallOccupancy"))
		TH_LOG("%s", pto_graph_error(g));
	EXPECT_EQ(0U, pto_graph_task_count(g));
	pto_graph_free(g);
	pto_kernel_free(k);
}

/*
 * The guide's rule: a literal grid that matches today's device is refused
 * at build (it breaks on another); the message names the sentinel to use.
 * The wrong sentinel for the launch's shape and a missing sync_start are
 * refused too. @ct/@type: the kernel; @aiv_slot: it goes in kernel_aiv.
 */
static void expect_literal_refused(struct __test_metadata *_metadata,
				   FIXTURE_DATA(hard) *self,
				   enum pto_core_type ct, unsigned int type,
				   unsigned int literal, uint32_t wrong,
				   const char *want)
{
	struct pto_kernel *k = hard_kernel(_metadata, self, ct, type);
	struct pto_tensor *args[2] = { self->vals, self->mism };
	struct pto_task_desc d = {
		.block_num = literal, .flags = PTO_TASK_SYNC_START,
		.tensors = args, .num_tensors = 2,
	};
	struct pto_graph *g;

	ASSERT_NE(NULL, k);
	if (ct == PTO_CORE_AIV)
		d.kernel_aiv = k;
	else
		d.kernel_aic = k;
	ASSERT_EQ(0, pto_graph_new(self->dev, &g));
	EXPECT_EQ(-EINVAL, pto_graph_add_task(g, &d));
	EXPECT_NE(NULL, strstr(pto_graph_error(g), want))
		TH_LOG("%s", pto_graph_error(g));
	EXPECT_NE(NULL, strstr(pto_graph_error(g), "breaks on another"))
		TH_LOG("%s", pto_graph_error(g));
	TH_LOG("literal %u: %s", literal, pto_graph_error(g));
	d.block_num = wrong;
	EXPECT_EQ(-EINVAL, pto_graph_add_task(g, &d));
	EXPECT_NE(NULL, strstr(pto_graph_error(g), want))
		TH_LOG("%s", pto_graph_error(g));
	d.block_num = ct == PTO_CORE_AIV ? PTO_GRID_ALL_AIV :
					   PTO_GRID_ALL_CLUSTERS;
	d.flags = 0;
	EXPECT_EQ(-EINVAL, pto_graph_add_task(g, &d));
	EXPECT_NE(NULL, strstr(pto_graph_error(g), "PTO_TASK_SYNC_START"))
		TH_LOG("%s", pto_graph_error(g));
	d.flags = PTO_TASK_SYNC_START;
	EXPECT_EQ(0, pto_graph_add_task(g, &d)) TH_LOG("%s", pto_graph_error(g));
	EXPECT_EQ(1U, pto_graph_task_count(g));
	pto_graph_free(g);
	pto_kernel_free(k);
}

TEST_F(hard, libpto_refuses_literal_aiv_grid)
{
	expect_literal_refused(_metadata, self, PTO_CORE_AIV, PTO_SYNC_AIV,
			       self->aiv, PTO_GRID_ALL_CLUSTERS,
			       "PTO_GRID_ALL_AIV");
}

TEST_F(hard, libpto_refuses_literal_aic_grid)
{
	expect_literal_refused(_metadata, self, PTO_CORE_AIC, PTO_SYNC_AIC,
			       self->clusters, PTO_GRID_ALL_AIV,
			       "PTO_GRID_ALL_CLUSTERS");
}

/* ------------------------------------------------------------ sentinels */

/*
 * Raw queue: a HARD launch given as a grid sentinel runs on every core of
 * its type; its CQEs carry the resolved blocks 0..@blocks-1, @parts units
 * each. The device also takes the literal that matches (the refusal of
 * literals is libpto's, at graph build).
 */
static void sentinel_run(struct __test_metadata *_metadata,
			 FIXTURE_DATA(hard) *self, struct pto_kernel *aiv,
			 struct pto_kernel *aic, uint32_t grid,
			 unsigned int blocks, unsigned int parts)
{
	struct pto_tensor *args[2] = { self->vals, self->mism };
	struct pto_task_desc d = {
		.kernel_aiv = aiv, .kernel_aic = aic, .block_num = grid,
		.flags = PTO_TASK_SYNC_START, .tensors = args, .num_tensors = 2,
	};
	unsigned int max = blocks * parts + 8, i, pass;
	struct pto_cqe *c = calloc(max, sizeof(*c));
	uint32_t seen_hi;
	uint64_t id;
	int n;

	ASSERT_NE(NULL, c);
	for (pass = 0; pass < 2; pass++) {
		d.block_num = pass ? blocks : grid;
		n = pto_test_submit_one(self->q, &d, c, max, RUN_TIMEOUT, &id);
		ASSERT_EQ((int)(blocks * parts), n)
			TH_LOG("block_num 0x%x: %d CQEs", d.block_num, n);
		seen_hi = 0;
		for (i = 0; i < (unsigned int)n; i++) {
			EXPECT_EQ(id, c[i].task_id);
			EXPECT_EQ(PTO_STATUS_OK, c[i].info.status)
				TH_LOG("block %u: %s detail %llu", c[i].info.block,
				       pto_status_name(c[i].info.status),
				       (unsigned long long)c[i].info.detail);
			EXPECT_LT(c[i].info.block, blocks);
			if (c[i].info.block + 1 > seen_hi)
				seen_hi = c[i].info.block + 1;
		}
		EXPECT_EQ(blocks, seen_hi);
	}
	free(c);
}

TEST_F(hard, sentinel_all_aiv_raw_queue)
{
	struct pto_kernel *k = hard_kernel(_metadata, self, PTO_CORE_AIV,
					   PTO_SYNC_AIV);

	ASSERT_NE(NULL, k);
	sentinel_run(_metadata, self, k, NULL, PTO_GRID_ALL_AIV, self->aiv, 1);
	pto_kernel_free(k);
}

TEST_F(hard, sentinel_all_clusters_aic_raw_queue)
{
	struct pto_kernel *k = hard_kernel(_metadata, self, PTO_CORE_AIC,
					   PTO_SYNC_AIC);

	ASSERT_NE(NULL, k);
	sentinel_run(_metadata, self, NULL, k, PTO_GRID_ALL_CLUSTERS,
		     self->clusters, 1);
	pto_kernel_free(k);
}

TEST_F(hard, sentinel_all_clusters_mixed_raw_queue)
{
	struct pto_kernel *kc = hard_kernel(_metadata, self, PTO_CORE_AIC,
					    PTO_SYNC_MIX);
	struct pto_kernel *kv = NULL;

	ASSERT_NE(NULL, kc);
	ASSERT_EQ(0, pto_test_build_rounds(self->dev, PTO_CORE_AIV,
					   PTO_SYNC_HARD, PTO_SYNC_MIX, -1, 2,
					   1, &kv, self->err,
					   sizeof(self->err)))
		TH_LOG("%s", self->err);
	sentinel_run(_metadata, self, kv, kc, PTO_GRID_ALL_CLUSTERS,
		     self->clusters, 2);
	pto_kernel_free(kv);
	pto_kernel_free(kc);
}

/*
 * The wrong sentinel for the shape resolves to a count the barrier does
 * not fit: refused at intake as any other count (REASON_SYNCALL, detail =
 * the blocks it needs).
 */
TEST_F(hard, sentinel_of_other_shape_refused)
{
	struct pto_kernel *kv = hard_kernel(_metadata, self, PTO_CORE_AIV,
					    PTO_SYNC_AIV);
	struct pto_kernel *kc = hard_kernel(_metadata, self, PTO_CORE_AIC,
					    PTO_SYNC_AIC);

	ASSERT_NE(NULL, kv);
	ASSERT_NE(NULL, kc);
	expect_syncall_refusal(_metadata, self, kv, NULL,
			       PTO_GRID_ALL_CLUSTERS, PTO_TASK_SYNC_START,
			       DRM_PTO_NPU_REASON_SYNCALL, self->aiv);
	expect_syncall_refusal(_metadata, self, NULL, kc, PTO_GRID_ALL_AIV,
			       PTO_TASK_SYNC_START, DRM_PTO_NPU_REASON_SYNCALL,
			       self->clusters);
	/* Without sync_start the sentinel is resolved, the rule still applies. */
	expect_syncall_refusal(_metadata, self, kv, NULL, PTO_GRID_ALL_AIV, 0,
			       DRM_PTO_NPU_REASON_SYNCALL, self->aiv);
	pto_kernel_free(kc);
	pto_kernel_free(kv);
}

/* Sentinels neighbouring them are ordinary counts over the cap. */
TEST_F(hard, sentinel_neighbours_refused_as_block_num)
{
	struct pto_kernel *k = hard_kernel(_metadata, self, PTO_CORE_AIV,
					   PTO_SYNC_AIV);
	struct pto_tensor *args[2] = { self->vals, self->mism };
	struct pto_task_desc d = {
		.kernel_aiv = k, .block_num = 0xfffffffdu,
		.flags = PTO_TASK_SYNC_START, .tensors = args, .num_tensors = 2,
	};
	struct pto_cqe c;

	ASSERT_NE(NULL, k);
	submit_one(_metadata, self, &d, &c);
	EXPECT_EQ(PTO_STATUS_INVALID, c.info.status);
	EXPECT_EQ(PTO_REASON_BLOCK_NUM, c.info.reason);
	EXPECT_EQ(0xfffffffdull, c.info.detail);
	pto_kernel_free(k);
}

/* ------------------------------------------------------------ faults */

/*
 * Block 0 jumps over the syncall and ends: the others can never be
 * released. The task fails with BARRIER_FAULT long before timeout_ms, and
 * the device runs the next graph.
 */
TEST_F(hard, block_exits_early_barrier_fault)
{
	long timeout_ms = pto_test_param_read("timeout_ms");
	struct pto_kernel *bad, *good;
	struct pto_tensor *v, *m, *args[2];
	struct pto_task_desc d = { .block_num = PTO_GRID_ALL_AIV,
				   .flags = PTO_TASK_SYNC_START,
				   .num_tensors = 2, .tensors = args };
	struct pto_graph *g;
	struct pto_kb *kb;
	int64_t t0, ms;
	int over, ret, faults;

	ASSERT_LT(0, timeout_ms);
	ASSERT_EQ(0, pto_kb_new(self->dev, PTO_CORE_AIV, &kb));
	over = pto_kb_label_new(kb);
	pto_kb_sreg(kb, 0, PTO_SREG_BLOCK_IDX);
	pto_kb_cmpi(kb, PTO_CMP_EQ, 1, 0, 0);
	pto_kb_jnz(kb, 1, over);
	pto_kb_syncall_hard(kb, PTO_SYNC_AIV);
	pto_kb_label_bind(kb, over);
	pto_kb_end(kb);
	bad = pto_test_kb_finish(kb, self->err, sizeof(self->err));
	ASSERT_NE(NULL, bad) TH_LOG("%s", self->err);
	d.kernel_aiv = bad;
	views(_metadata, self, 1, self->aiv, &v, &m);
	args[0] = v;
	args[1] = m;
	t0 = pto_test_now_ns();
	ret = run_one(_metadata, self, &d, &g);
	ms = (pto_test_now_ns() - t0) / 1000000;
	ASSERT_NE(NULL, g);
	EXPECT_EQ(-EIO, ret);
	EXPECT_EQ(PTO_STATUS_BARRIER_FAULT,
		  pto_graph_task_status(g, 0, NULL, NULL))
		TH_LOG("status %s", pto_status_name(pto_graph_task_status(
					    g, 0, NULL, NULL)));
	faults = 0;
	{
		const struct pto_block_info *b;
		unsigned int n = 0, i;

		pto_graph_task_blocks(g, 0, &b, &n);
		for (i = 0; i < n; i++)
			faults += b[i].status == PTO_STATUS_BARRIER_FAULT;
	}
	TH_LOG("BARRIER_FAULT after %lld ms (timeout_ms %ld), %d blocks faulted",
	       (long long)ms, timeout_ms, faults);
	EXPECT_LT(ms, timeout_ms / 2);
	pto_graph_free(g);
	pto_kernel_free(bad);

	/* The device is fine: a full HARD launch right after. */
	ASSERT_EQ(0, pto_test_build_rounds(self->dev, PTO_CORE_AIV,
					   PTO_SYNC_HARD, PTO_SYNC_AIV, 0, 1,
					   ROUNDS, &good, self->err,
					   sizeof(self->err)))
		TH_LOG("%s", self->err);
	d.kernel_aiv = good;
	memset(pto_tensor_data(v), 0xff, self->aiv * 4);
	ASSERT_EQ(0, run_one(_metadata, self, &d, &g))
		TH_LOG("run after: %s", pto_graph_error(g));
	check_rounds(_metadata, v, m, 1, self->aiv);
	pto_graph_free(g);
	pto_kernel_free(good);
	pto_tensor_free(m);
	pto_tensor_free(v);
}

/*
 * A child process starts a full HARD launch whose block 0 spins (scalar
 * loops that never end by themselves) before its syncall while the others
 * wait at the barrier, then exits: the close must stop the waiters and
 * the spinner within CLOSE_MS, not at timeout_ms, and the parent's device
 * runs a HARD launch after.
 */
TEST_F(hard, close_mid_barrier)
{
	struct pto_kernel *good;
	struct pto_tensor *v, *m, *args[2];
	struct pto_task_desc d = { .block_num = PTO_GRID_ALL_AIV,
				   .flags = PTO_TASK_SYNC_START,
				   .num_tensors = 2, .tensors = args };
	struct pto_graph *g;
	int64_t *exit_at, t0, ms;
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
		struct pto_kernel *k = NULL;
		struct pto_tensor *cv, *cm, *ca[2];
		struct pto_task_desc cd = { .block_num = self->aiv,
					    .flags = PTO_TASK_SYNC_START,
					    .num_tensors = 2, .tensors = ca };
		/* A budget the spinner does not reach before the close. */
		struct pto_queue_params qp = { .work_budget = 1ull << 30 };
		struct pto_kb *kb;
		uint32_t consumed = 0;
		char err[256];
		int skip;

		if (pto_test_dev_open(&dev) ||
		    pto_queue_create_params(dev, &qp, &q) ||
		    pto_kb_new(dev, PTO_CORE_AIV, &kb))
			_exit(2);
		skip = pto_kb_label_new(kb);
		pto_kb_sreg(kb, 0, PTO_SREG_BLOCK_IDX);
		pto_kb_cmpi(kb, PTO_CMP_EQ, 1, 0, 0);
		pto_kb_jz(kb, 1, skip);
		/* Never ends by itself: only the close or timeout_ms stop it. */
		pto_kb_loopi(kb, 5, PTO_MAX_LOOP_COUNT);
		pto_kb_loopi(kb, 6, PTO_MAX_LOOP_COUNT);
		pto_kb_loopi(kb, 2, PTO_MAX_LOOP_COUNT);
		pto_kb_alui(kb, PTO_ALU_ADD, 3, 3, 1);
		pto_kb_endloop(kb);
		pto_kb_endloop(kb);
		pto_kb_endloop(kb);
		pto_kb_label_bind(kb, skip);
		pto_kb_syncall_hard(kb, PTO_SYNC_AIV);
		pto_kb_ldi(kb, 4, 0);
		pto_kb_gst(kb, 0, 4, 0, 3);
		pto_kb_gst(kb, 1, 4, 0, 3);
		pto_kb_end(kb);
		k = pto_test_kb_finish(kb, err, sizeof(err));
		if (!k)
			_exit(3);
		if (pto_test_tensor2d(dev, PTO_DTYPE_I32, 1, self->aiv, &cv) ||
		    pto_test_tensor2d(dev, PTO_DTYPE_I32, 1, self->aiv, &cm))
			_exit(4);
		ca[0] = cv;
		ca[1] = cm;
		cd.kernel_aiv = k;
		if (pto_queue_push_task(q, &cd) ||
		    pto_queue_doorbell(q, 0, 0, &consumed, NULL) || consumed != 1)
			_exit(5);
		usleep(200 * 1000);
		*exit_at = pto_test_now_ns();
		_exit(0);
	}
	t0 = pto_test_now_ns();
	for (;;) {
		pid_t r = waitpid(child, &status, WNOHANG);

		ASSERT_LE(0, r);
		if (r == child)
			break;
		if (pto_test_now_ns() - t0 > PTO_TEST_SEC(60)) {
			kill(child, SIGKILL);
			waitpid(child, &status, 0);
			ASSERT_TRUE(0) TH_LOG("the child's exit hangs");
		}
		usleep(10000);
	}
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	ASSERT_NE(0, *exit_at);
	ms = (pto_test_now_ns() - *exit_at) / 1000000;
	TH_LOG("child reaped %lld ms after its _exit() mid-barrier", (long long)ms);
	/* Cancelled at the close, not at the spinner's deadline (timeout_ms). */
	EXPECT_GT(CLOSE_MS, ms);
	munmap(exit_at, sizeof(*exit_at));

	ASSERT_EQ(0, pto_test_build_rounds(self->dev, PTO_CORE_AIV,
					   PTO_SYNC_HARD, PTO_SYNC_AIV, 0, 1,
					   ROUNDS, &good, self->err,
					   sizeof(self->err)))
		TH_LOG("%s", self->err);
	views(_metadata, self, 1, self->aiv, &v, &m);
	args[0] = v;
	args[1] = m;
	d.kernel_aiv = good;
	ASSERT_EQ(0, run_one(_metadata, self, &d, &g))
		TH_LOG("run after: %s", pto_graph_error(g));
	check_rounds(_metadata, v, m, 1, self->aiv);
	pto_graph_free(g);
	pto_kernel_free(good);
	pto_tensor_free(m);
	pto_tensor_free(v);
}

TEST_HARNESS_MAIN
