// SPDX-License-Identifier: GPL-2.0-only
/*
 * Dispatch predicates (SPEC 4.3): tensor[row, col] OP literal, evaluated by
 * the scheduler when the task becomes ready. A false predicate retires the
 * task as SKIPPED without it reaching a core; its consumers are released as
 * if it had run. The operand is a signed 8/16/32/64-bit integer read with
 * sign extension; anything else is refused, by the module when the entry
 * is taken and by libpto when the task is added to a graph.
 *
 * Copyright (C) 2026 pto-npu authors
 */
#define PTO_TEST_LIBPTO
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "pto_test.h"

#define RUN_TIMEOUT PTO_TEST_SEC(60)
#define SPMD_BLOCKS 16
#define SENTINEL (-7)

FIXTURE(pred)
{
	struct pto_device *dev;
	struct pto_queue *q;
	/* GST t0[ARG0, ARG1] = ARG2 after ARG3 idle loop iterations. */
	struct pto_kernel *k_store;
	/* t1[ARG2, ARG3] = t0[ARG0, ARG1] (GLD + GST). */
	struct pto_kernel *k_copy;
	/* t0[0, block] = ARG0. */
	struct pto_kernel *k_spmd;
	char err[512];
};

static struct pto_kernel *build_store(struct pto_device *dev, char *err,
				      size_t len)
{
	struct pto_kb *kb;

	if (pto_kb_new(dev, PTO_CORE_AIV, &kb))
		return NULL;
	pto_kb_arg(kb, 0, 0);
	pto_kb_arg(kb, 1, 1);
	pto_kb_arg(kb, 2, 2);
	pto_kb_arg(kb, 3, 3);
	pto_kb_loop(kb, 4, 3);
	pto_kb_alui(kb, PTO_ALU_ADD, 5, 5, 1);
	pto_kb_endloop(kb);
	pto_kb_gst(kb, 0, 0, 1, 2);
	pto_kb_end(kb);
	return pto_test_kb_finish(kb, err, len);
}

static struct pto_kernel *build_copy(struct pto_device *dev, char *err,
				     size_t len)
{
	struct pto_kb *kb;

	if (pto_kb_new(dev, PTO_CORE_AIV, &kb))
		return NULL;
	pto_kb_arg(kb, 0, 0);
	pto_kb_arg(kb, 1, 1);
	pto_kb_arg(kb, 2, 2);
	pto_kb_arg(kb, 3, 3);
	pto_kb_gld(kb, 4, 0, 0, 1);
	pto_kb_gst(kb, 1, 2, 3, 4);
	pto_kb_end(kb);
	return pto_test_kb_finish(kb, err, len);
}

/* t0[@row, block] = ARG@arg, on a core of @core_type. */
static struct pto_kernel *build_spmd(struct pto_device *dev,
				     enum pto_core_type core_type,
				     int64_t row, unsigned int arg, char *err,
				     size_t len)
{
	struct pto_kb *kb;

	if (pto_kb_new(dev, core_type, &kb))
		return NULL;
	pto_kb_sreg(kb, 0, PTO_SREG_BLOCK_IDX);
	pto_kb_ldi(kb, 1, row);
	pto_kb_arg(kb, 2, arg);
	pto_kb_gst(kb, 0, 1, 0, 2);
	pto_kb_end(kb);
	return pto_test_kb_finish(kb, err, len);
}

FIXTURE_SETUP(pred)
{
	ASSERT_EQ(0, pto_test_dev_open(&self->dev))
		TH_LOG("open %s", pto_test_device_path());
	ASSERT_EQ(0, pto_test_queue_long(self->dev, 0, 0, &self->q));
	self->k_store = build_store(self->dev, self->err, sizeof(self->err));
	ASSERT_NE(NULL, self->k_store) TH_LOG("store kernel: %s", self->err);
	self->k_copy = build_copy(self->dev, self->err, sizeof(self->err));
	ASSERT_NE(NULL, self->k_copy) TH_LOG("copy kernel: %s", self->err);
	self->k_spmd = build_spmd(self->dev, PTO_CORE_AIV, 0, 0, self->err,
				  sizeof(self->err));
	ASSERT_NE(NULL, self->k_spmd) TH_LOG("spmd kernel: %s", self->err);
}

FIXTURE_TEARDOWN(pred)
{
	pto_kernel_free(self->k_spmd);
	pto_kernel_free(self->k_copy);
	pto_kernel_free(self->k_store);
	if (self->q)
		pto_queue_destroy(self->q);
	pto_device_close(self->dev);
}

/* A store task: t0[row, col] = value, after @spin idle iterations. */
struct store_args {
	int64_t s[4];
};

static struct store_args store_at(int64_t row, int64_t col, int64_t value,
				  int64_t spin)
{
	return (struct store_args){ { row, col, value, spin } };
}

static int add_store(struct pto_graph *g, struct pto_kernel *k,
		     struct pto_tensor *const *tensors, uint32_t nt,
		     const struct store_args *a, const int64_t *deps,
		     uint32_t nd, const struct pto_predicate *pred)
{
	struct pto_task_desc d = {
		.kernel_aiv = k,
		.block_num = 1,
		.tensors = tensors,
		.num_tensors = nt,
		.scalars = a->s,
		.num_scalars = 4,
		.deps = deps,
		.num_deps = nd,
		.predicate = pred,
	};

	return pto_graph_add_task(g, &d);
}

/* A task that was skipped: one record, never on a core. */
#define EXPECT_SKIPPED(g, idx) do { \
	const struct pto_block_info *__b; \
	unsigned int __n = 0; \
	EXPECT_EQ(PTO_STATUS_SKIPPED, pto_graph_task_status(g, idx, NULL, NULL)); \
	ASSERT_EQ(0, pto_graph_task_blocks(g, idx, &__b, &__n)); \
	EXPECT_EQ(1U, __n); \
	if (__n) { \
		EXPECT_EQ(0U, __b[0].flags & PTO_BLOCK_RAN); \
		EXPECT_EQ(0U, __b[0].flags & PTO_BLOCK_STAGED); \
		EXPECT_EQ(0, __b[0].core_type); \
	} \
} while (0)

/* ------------------------------------------------------------ semantics */

/* Store @v into element @i of a row of @dtype (truncated to its width). */
static void put_int(void *base, enum pto_dtype dtype, unsigned int i,
		    int64_t v)
{
	switch (dtype) {
	case PTO_DTYPE_I8:
		((int8_t *)base)[i] = (int8_t)v;
		break;
	case PTO_DTYPE_I16:
		((int16_t *)base)[i] = (int16_t)v;
		break;
	case PTO_DTYPE_I32:
		((int32_t *)base)[i] = (int32_t)v;
		break;
	default:
		((int64_t *)base)[i] = v;
		break;
	}
}

static int cmp_eval(enum pto_cmp op, int64_t a, int64_t b)
{
	switch (op) {
	case PTO_CMP_EQ:
		return a == b;
	case PTO_CMP_NE:
		return a != b;
	case PTO_CMP_GT:
		return a > b;
	case PTO_CMP_LT:
		return a < b;
	case PTO_CMP_GE:
		return a >= b;
	default:
		return a <= b;
	}
}

#define NVALUES 4
#define NLITS 5
#define NOPS 6
#define NDTYPES 4
#define NCASES (NDTYPES * NVALUES * NLITS * NOPS)

/*
 * Every comparison, true and false, on i8/i16/i32/i64 operands holding -1
 * (all bits set: read as -1, never as 0xFF...), 5, the type's minimum and
 * maximum, against the value itself, its neighbours, 0 and -2, plus the
 * extreme literals. One graph, one task per case: the task stores 1 into
 * its own flag when it runs.
 */
TEST_F(pred, every_op_every_signed_dtype)
{
	static const enum pto_dtype dtypes[NDTYPES] = {
		PTO_DTYPE_I8, PTO_DTYPE_I16, PTO_DTYPE_I32, PTO_DTYPE_I64
	};
	static const int64_t mins[NDTYPES] = { INT8_MIN, INT16_MIN, INT32_MIN,
					       INT64_MIN };
	static const int64_t maxs[NDTYPES] = { INT8_MAX, INT16_MAX, INT32_MAX,
					       INT64_MAX };
	struct pto_tensor *flags, *operand[NDTYPES];
	struct pto_predicate preds[NCASES + 4 * NDTYPES];
	int expect[NCASES + 4 * NDTYPES];
	struct pto_graph *g;
	int32_t *fl;
	unsigned int n = 0, d, v, l, op, i, skipped = 0;
	int ret;

	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I32, 1,
				       NCASES + 4 * NDTYPES, &flags));
	fl = pto_tensor_data(flags);
	ASSERT_EQ(0, pto_graph_new(self->dev, &g));
	for (d = 0; d < NDTYPES; d++) {
		int64_t vals[NVALUES] = { -1, 5, mins[d], maxs[d] };

		ASSERT_EQ(0, pto_test_tensor2d(self->dev, dtypes[d], 1, NVALUES,
					       &operand[d]));
		for (v = 0; v < NVALUES; v++)
			put_int(pto_tensor_data(operand[d]), dtypes[d], v,
				vals[v]);
		for (v = 0; v < NVALUES; v++) {
			int64_t x = vals[v];
			/* Neighbours wrap at the int64 ends: still valid literals. */
			int64_t lits[NLITS] = {
				(int64_t)((uint64_t)x - 1), x,
				(int64_t)((uint64_t)x + 1), 0, -2
			};

			for (l = 0; l < NLITS; l++) {
				for (op = 0; op < NOPS; op++) {
					preds[n] = (struct pto_predicate){
						.tensor = 1, .op = op, .row = 0,
						.col = v, .literal = lits[l],
					};
					expect[n] = cmp_eval(op, x, lits[l]);
					n++;
				}
			}
		}
		/* -1 against the literals that tell sign from zero extension. */
		preds[n] = (struct pto_predicate){ 1, PTO_CMP_GT, 0, 0, -2 };
		expect[n++] = 1;
		preds[n] = (struct pto_predicate){ 1, PTO_CMP_GT, 0, 0, 0 };
		expect[n++] = 0;
		preds[n] = (struct pto_predicate){ 1, PTO_CMP_GE, 0, 2, INT64_MIN };
		expect[n++] = 1;
		preds[n] = (struct pto_predicate){ 1, PTO_CMP_LT, 0, 3, INT64_MAX };
		expect[n++] = d != 3;
	}
	ASSERT_EQ((unsigned int)(NCASES + 4 * NDTYPES), n);
	for (i = 0; i < n; i++) {
		/* Cases are grouped by dtype: NCASES / NDTYPES + 4 each. */
		struct pto_tensor *args[2] = {
			flags, operand[i / (NVALUES * NLITS * NOPS + 4)]
		};
		struct store_args a = store_at(0, i, 1, 0);

		ret = add_store(g, self->k_store, args, 2, &a, NULL, 0,
				&preds[i]);
		ASSERT_EQ((int)i, ret) TH_LOG("case %u: %s", i,
					      pto_graph_error(g));
	}
	ret = pto_graph_run(g, self->q, RUN_TIMEOUT);
	ASSERT_EQ(0, ret) TH_LOG("run: %s", pto_graph_error(g));
	for (i = 0; i < n; i++) {
		unsigned int dt = i / (NVALUES * NLITS * NOPS + 4);

		EXPECT_EQ(expect[i], fl[i])
			TH_LOG("case %u: %s operand[%u] op %u literal %lld", i,
			       pto_dtype_name(dtypes[dt]), preds[i].col,
			       preds[i].op, (long long)preds[i].literal);
		if (expect[i]) {
			EXPECT_EQ(PTO_STATUS_OK,
				  pto_graph_task_status(g, i, NULL, NULL));
			EXPECT_EQ(1, pto_test_blocks_with(g, i, PTO_BLOCK_RAN));
		} else {
			EXPECT_SKIPPED(g, i);
			skipped++;
		}
	}
	TH_LOG("%u predicated tasks, %u skipped", n, skipped);
	pto_graph_free(g);
	for (d = 0; d < NDTYPES; d++)
		pto_tensor_free(operand[d]);
	pto_tensor_free(flags);
}

/*
 * P writes x = 1; S (predicate false) would write x = 2; C, which depends
 * on S only, copies x to y. S is skipped, C still runs and sees x as if S
 * had never been there.
 */
TEST_F(pred, skipped_task_releases_consumers)
{
	struct pto_tensor *x, *y, *gate;
	struct pto_predicate never = { 2, PTO_CMP_GT, 0, 0, 0 };
	struct pto_graph *g;
	int32_t *px, *py;
	int64_t dep = 0;
	struct pto_tensor *a_x[3];
	struct store_args p = store_at(0, 0, 1, 0);
	struct store_args s = store_at(0, 0, 2, 0);
	struct store_args s2 = store_at(0, 0, 3, 0);
	int64_t c[4] = { 0, 0, 0, 0 };
	int64_t c2[4] = { 0, 0, 0, 1 };
	struct pto_task_desc copy = {
		.kernel_aiv = self->k_copy, .block_num = 1,
		.tensors = a_x, .num_tensors = 2, .scalars = c,
		.num_scalars = 4, .deps = &dep, .num_deps = 1,
	};

	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I32, 1, 4, &x));
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I32, 1, 4, &y));
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I32, 1, 1, &gate));
	a_x[0] = x;
	a_x[1] = y;
	a_x[2] = gate;
	px = pto_tensor_data(x);
	py = pto_tensor_data(y);
	py[0] = SENTINEL;
	py[1] = SENTINEL;
	ASSERT_EQ(0, pto_graph_new(self->dev, &g));
	ASSERT_EQ(0, add_store(g, self->k_store, a_x, 3, &p, NULL, 0, NULL));
	dep = 0;
	ASSERT_EQ(1, add_store(g, self->k_store, a_x, 3, &s, &dep, 1, &never))
		TH_LOG("%s", pto_graph_error(g));
	dep = 1;
	ASSERT_EQ(2, pto_graph_add_task(g, &copy))
		TH_LOG("%s", pto_graph_error(g));
	/* Two skipped tasks in a row, then a consumer of the second. */
	dep = 2;
	ASSERT_EQ(3, add_store(g, self->k_store, a_x, 3, &s2, &dep, 1, &never));
	dep = 3;
	ASSERT_EQ(4, add_store(g, self->k_store, a_x, 3, &s2, &dep, 1, &never));
	dep = 4;
	copy.scalars = c2;
	ASSERT_EQ(5, pto_graph_add_task(g, &copy))
		TH_LOG("%s", pto_graph_error(g));
	ASSERT_EQ(0, pto_graph_run(g, self->q, RUN_TIMEOUT))
		TH_LOG("run: %s", pto_graph_error(g));
	EXPECT_EQ(PTO_STATUS_OK, pto_graph_task_status(g, 0, NULL, NULL));
	EXPECT_SKIPPED(g, 1);
	EXPECT_EQ(PTO_STATUS_OK, pto_graph_task_status(g, 2, NULL, NULL));
	EXPECT_SKIPPED(g, 3);
	EXPECT_SKIPPED(g, 4);
	EXPECT_EQ(PTO_STATUS_OK, pto_graph_task_status(g, 5, NULL, NULL));
	EXPECT_EQ(1, pto_test_blocks_with(g, 5, PTO_BLOCK_RAN));
	EXPECT_EQ(1, px[0]);
	EXPECT_EQ(1, py[0]);
	EXPECT_EQ(1, py[1]);
	pto_graph_free(g);
	pto_tensor_free(gate);
	pto_tensor_free(y);
	pto_tensor_free(x);
}

/*
 * The predicate is read when the task becomes ready, after its producer
 * wrote the operand: the host leaves the gate at 0, a slow producer sets
 * it to 1, the consumer (gate EQ 1) must run. And the other way round: the
 * host sets 1, the producer clears it, the consumer must be skipped.
 */
TEST_F(pred, read_after_producer_write)
{
	struct pto_tensor *gate, *out;
	struct pto_predicate is_one = { 1, PTO_CMP_EQ, 0, 0, 1 };
	struct pto_graph *g;
	int32_t *pg, *po;
	int64_t dep = 0;
	int round;

	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I32, 1, 1, &gate));
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I32, 1, 1, &out));
	pg = pto_tensor_data(gate);
	po = pto_tensor_data(out);
	for (round = 0; round < 2; round++) {
		struct pto_tensor *a_prod[1] = { gate };
		struct pto_tensor *a_cons[2] = { out, gate };
		struct store_args p = store_at(0, 0, round ? 0 : 1, 20000);
		struct store_args c = store_at(0, 0, 7, 0);
		struct pto_task_desc cons = {
			.kernel_aiv = self->k_store, .block_num = 1,
			.tensors = a_cons, .num_tensors = 2, .scalars = c.s,
			.num_scalars = 4, .deps = &dep, .num_deps = 1,
			.predicate = &is_one,
		};

		*pg = round ? 1 : 0;
		*po = SENTINEL;
		ASSERT_EQ(0, pto_graph_new(self->dev, &g));
		ASSERT_EQ(0, add_store(g, self->k_store, a_prod, 1, &p, NULL, 0,
				       NULL));
		ASSERT_EQ(1, pto_graph_add_task(g, &cons))
			TH_LOG("%s", pto_graph_error(g));
		ASSERT_EQ(0, pto_graph_run(g, self->q, RUN_TIMEOUT))
			TH_LOG("run: %s", pto_graph_error(g));
		EXPECT_EQ(round ? 0 : 1, *pg);
		if (!round) {
			EXPECT_EQ(PTO_STATUS_OK,
				  pto_graph_task_status(g, 1, NULL, NULL));
			EXPECT_EQ(7, *po);
		} else {
			EXPECT_SKIPPED(g, 1);
			EXPECT_EQ(SENTINEL, *po);
		}
		pto_graph_free(g);
	}
	pto_tensor_free(out);
	pto_tensor_free(gate);
}

/* A predicated SPMD task: 16 blocks when true, one skipped record when not. */
TEST_F(pred, spmd_16_blocks)
{
	struct pto_tensor *out, *gate;
	struct pto_predicate pos = { 1, PTO_CMP_GT, 0, 0, 0 };
	int32_t *po;
	int round, i;

	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I32, 1,
				       SPMD_BLOCKS, &out));
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I64, 1, 1, &gate));
	po = pto_tensor_data(out);
	for (round = 0; round < 2; round++) {
		struct pto_tensor *args[2] = { out, gate };
		int64_t val = 40 + round;
		struct pto_task_desc d = {
			.kernel_aiv = self->k_spmd, .block_num = SPMD_BLOCKS,
			.tensors = args, .num_tensors = 2, .scalars = &val,
			.num_scalars = 1, .predicate = &pos,
		};
		struct pto_graph *g;

		*(int64_t *)pto_tensor_data(gate) = round ? 1 : -5;
		for (i = 0; i < SPMD_BLOCKS; i++)
			po[i] = SENTINEL;
		ASSERT_EQ(0, pto_graph_new(self->dev, &g));
		ASSERT_EQ(0, pto_graph_add_task(g, &d))
			TH_LOG("%s", pto_graph_error(g));
		ASSERT_EQ(0, pto_graph_run(g, self->q, RUN_TIMEOUT))
			TH_LOG("run: %s", pto_graph_error(g));
		if (round) {
			EXPECT_EQ(PTO_STATUS_OK,
				  pto_graph_task_status(g, 0, NULL, NULL));
			EXPECT_EQ(SPMD_BLOCKS,
				  pto_test_blocks_with(g, 0, PTO_BLOCK_RAN));
			for (i = 0; i < SPMD_BLOCKS; i++)
				EXPECT_EQ(val, po[i]) TH_LOG("block %d", i);
		} else {
			EXPECT_SKIPPED(g, 0);
			for (i = 0; i < SPMD_BLOCKS; i++)
				EXPECT_EQ(SENTINEL, po[i]) TH_LOG("block %d", i);
		}
		pto_graph_free(g);
	}
	pto_tensor_free(gate);
	pto_tensor_free(out);
}

/* A predicated mixed task: the AIC writes row 0, the AIV row 1. */
TEST_F(pred, mixed_task)
{
	struct pto_kernel *aic, *aiv;
	struct pto_tensor *out, *gate;
	struct pto_predicate pos = { 1, PTO_CMP_GT, 0, 0, 0 };
	const unsigned int blocks = 2;
	int32_t *po;
	int round, ret = 0;
	unsigned int i;

	aic = build_spmd(self->dev, PTO_CORE_AIC, 0, 0, self->err,
			 sizeof(self->err));
	ASSERT_NE(NULL, aic) TH_LOG("AIC kernel: %s", self->err);
	aiv = build_spmd(self->dev, PTO_CORE_AIV, 1, 1, self->err,
			 sizeof(self->err));
	ASSERT_NE(NULL, aiv) TH_LOG("AIV kernel: %s", self->err);
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I32, 2, blocks,
				       &out));
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I16, 1, 1, &gate));
	po = pto_tensor_data(out);
	for (round = 0; round < 2; round++) {
		struct pto_tensor *args[2] = { out, gate };
		int64_t vals[2] = { 11, 22 };
		struct pto_task_desc d = {
			.kernel_aiv = aiv, .kernel_aic = aic,
			.block_num = blocks, .tensors = args, .num_tensors = 2,
			.scalars = vals, .num_scalars = 2, .predicate = &pos,
		};
		struct pto_graph *g;

		*(int16_t *)pto_tensor_data(gate) = round ? 3 : 0;
		for (i = 0; i < 2 * blocks; i++)
			po[i] = SENTINEL;
		ASSERT_EQ(0, pto_graph_new(self->dev, &g));
		ret = pto_graph_add_task(g, &d);
		if (ret < 0) {
			TH_LOG("libpto refuses the mixed task: %s",
			       pto_graph_error(g));
			pto_graph_free(g);
			break;
		}
		ASSERT_EQ(0, pto_graph_run(g, self->q, RUN_TIMEOUT))
			TH_LOG("run: %s", pto_graph_error(g));
		if (round) {
			EXPECT_EQ(PTO_STATUS_OK,
				  pto_graph_task_status(g, 0, NULL, NULL));
			/* One record per block and core: AIC + one AIV (NONE). */
			EXPECT_EQ((int)(2 * blocks),
				  pto_test_blocks_with(g, 0, PTO_BLOCK_RAN));
			for (i = 0; i < blocks; i++) {
				EXPECT_EQ(11, po[i]);
				EXPECT_EQ(22, po[blocks + i]);
			}
		} else {
			EXPECT_SKIPPED(g, 0);
			for (i = 0; i < 2 * blocks; i++)
				EXPECT_EQ(SENTINEL, po[i]);
		}
		pto_graph_free(g);
	}
	pto_tensor_free(gate);
	pto_tensor_free(out);
	pto_kernel_free(aiv);
	pto_kernel_free(aic);
	if (ret < 0)
		SKIP(return, "libpto does not take mixed tasks yet");
}

/* ------------------------------------------------------------ module refusals */

/*
 * Push a store task with tensors [out i32 1x4, operand] and predicate @p
 * as raw bytes (libpto checks nothing), then a valid task after it; the
 * first must be refused with @reason and @detail, the second must run.
 */
static void refuse_one(struct __test_metadata *_metadata,
		       FIXTURE_DATA(pred) *self, uint8_t operand_dtype,
		       uint32_t rows, uint32_t cols,
		       const struct drm_pto_npu_predicate *p, int reason,
		       uint64_t detail)
{
	struct pto_test_sqe e;
	struct pto_cqe cqes[8];
	struct pto_tensor *out;
	const struct pto_cqe *last;
	uint32_t h_op, consumed = 0;
	uint64_t first = 0, bo_size;
	int64_t s[4] = { 0, 0, 9, 0 };
	struct drm_pto_npu_tensor_arg ta[2];
	size_t bytes;
	int32_t *po;
	int n;

	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I32, 1, 4, &out));
	po = pto_tensor_data(out);
	ASSERT_EQ(0, pto_test_bo_create(pto_device_fd(self->dev), 4096, &h_op,
					&bo_size));
	ta[0] = pto_test_targ_of(out);
	ta[1] = pto_test_targ(h_op, operand_dtype, 0, rows, cols);
	bytes = pto_test_sqe_init_pred(&e, pto_kernel_handle(self->k_store), 0,
				       1, ta, 2, s, 4, NULL, 0, p);
	ASSERT_EQ(0, pto_queue_push_raw(self->q, &e, bytes));
	/* The same entry without a predicate: must run. */
	bytes = pto_test_sqe_init_pred(&e, pto_kernel_handle(self->k_store), 0,
				       1, ta, 1, s, 4, NULL, 0, NULL);
	ASSERT_EQ(0, pto_queue_push_raw(self->q, &e, bytes));
	ASSERT_EQ(0, pto_queue_doorbell(self->q, 0, 0, &consumed, &first));
	ASSERT_EQ(2U, consumed);
	n = pto_test_reap_lasts(self->q, cqes, 8, 2, RUN_TIMEOUT);
	ASSERT_LE(2, n);
	last = pto_test_find_last(cqes, n, first);
	ASSERT_NE(NULL, last);
	EXPECT_EQ(PTO_STATUS_INVALID, last->info.status);
	EXPECT_EQ(reason, last->info.reason);
	EXPECT_EQ(detail, last->info.detail);
	EXPECT_EQ(0U, last->info.flags & PTO_BLOCK_RAN);
	last = pto_test_find_last(cqes, n, first + 1);
	ASSERT_NE(NULL, last);
	EXPECT_EQ(PTO_STATUS_OK, last->info.status);
	EXPECT_EQ(9, po[0]);
	pto_test_gem_close(pto_device_fd(self->dev), h_op);
	pto_tensor_free(out);
}

TEST_F(pred, module_refuses_unsigned_operand)
{
	static const uint8_t unsigned_types[] = { PTO_ISA_U8, PTO_ISA_U16,
						  PTO_ISA_U32, PTO_ISA_U64 };
	struct drm_pto_npu_predicate p = { .tensor = 1, .op = PTO_CMP_GT };
	unsigned int i;

	for (i = 0; i < sizeof(unsigned_types); i++)
		refuse_one(_metadata, self, unsigned_types[i], 1, 4, &p,
			   DRM_PTO_NPU_REASON_PREDICATE, 1);
}

TEST_F(pred, module_refuses_float_operand)
{
	struct drm_pto_npu_predicate p = { .tensor = 1, .op = PTO_CMP_GT };

	refuse_one(_metadata, self, PTO_ISA_F32, 1, 4, &p,
		   DRM_PTO_NPU_REASON_PREDICATE, 1);
}

TEST_F(pred, module_refuses_unknown_op)
{
	struct drm_pto_npu_predicate p = { .tensor = 1, .op = 6 };

	refuse_one(_metadata, self, PTO_ISA_I32, 1, 4, &p,
		   DRM_PTO_NPU_REASON_PREDICATE, 0);
	p.op = 255;
	refuse_one(_metadata, self, PTO_ISA_I32, 1, 4, &p,
		   DRM_PTO_NPU_REASON_PREDICATE, 0);
}

TEST_F(pred, module_refuses_row_out_of_range)
{
	struct drm_pto_npu_predicate p = { .tensor = 1, .row = 3 };

	refuse_one(_metadata, self, PTO_ISA_I32, 3, 4, &p,
		   DRM_PTO_NPU_REASON_PREDICATE, 2);
	p.row = UINT32_MAX;
	refuse_one(_metadata, self, PTO_ISA_I32, 3, 4, &p,
		   DRM_PTO_NPU_REASON_PREDICATE, 2);
}

TEST_F(pred, module_refuses_col_out_of_range)
{
	struct drm_pto_npu_predicate p = { .tensor = 1, .col = 4 };

	refuse_one(_metadata, self, PTO_ISA_I32, 3, 4, &p,
		   DRM_PTO_NPU_REASON_PREDICATE, 2);
}

TEST_F(pred, module_refuses_tensor_index)
{
	struct drm_pto_npu_predicate p = { .tensor = 2 };

	refuse_one(_metadata, self, PTO_ISA_I32, 1, 4, &p,
		   DRM_PTO_NPU_REASON_PREDICATE, 0);
	p.tensor = 255;
	refuse_one(_metadata, self, PTO_ISA_I32, 1, 4, &p,
		   DRM_PTO_NPU_REASON_PREDICATE, 0);
}

TEST_F(pred, module_refuses_nonzero_pad)
{
	struct drm_pto_npu_predicate p = { .tensor = 1, .pad = 1 };

	refuse_one(_metadata, self, PTO_ISA_I32, 1, 4, &p,
		   DRM_PTO_NPU_REASON_RESERVED, 0);
	p.pad = 0;
	p.pad2 = 0x80000000u;
	refuse_one(_metadata, self, PTO_ISA_I32, 1, 4, &p,
		   DRM_PTO_NPU_REASON_RESERVED, 0);
}

/* ------------------------------------------------------------ libpto refusals */

/*
 * pto_graph_add_task() on a store task with tensors [out i32, @operand] and
 * predicate @p must fail with -EINVAL and a message containing @needle,
 * leaving the graph as it was.
 */
static void lib_refuses(struct __test_metadata *_metadata,
			FIXTURE_DATA(pred) *self, struct pto_graph *g,
			struct pto_tensor *operand,
			const struct pto_predicate *p, const int64_t *deps,
			uint32_t nd, const char *needle)
{
	struct pto_tensor *out;
	struct pto_tensor *args[2];
	struct store_args a = store_at(0, 0, 1, 0);
	unsigned int before = pto_graph_task_count(g);
	int ret;

	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I32, 1, 4, &out));
	args[0] = out;
	args[1] = operand;
	ret = add_store(g, self->k_store, args, 2, &a, deps, nd, p);
	EXPECT_EQ(-EINVAL, ret);
	EXPECT_NE(NULL, strstr(pto_graph_error(g), needle))
		TH_LOG("message: '%s', wanted '%s'", pto_graph_error(g), needle);
	EXPECT_EQ(before, pto_graph_task_count(g));
	pto_tensor_free(out);
}

TEST_F(pred, libpto_refuses_unsigned_and_float_operands)
{
	static const enum pto_dtype bad[] = { PTO_DTYPE_U8, PTO_DTYPE_U16,
					      PTO_DTYPE_U32, PTO_DTYPE_U64,
					      PTO_DTYPE_F32 };
	struct pto_predicate p = { 1, PTO_CMP_GT, 0, 0, 0 };
	struct pto_graph *g;
	unsigned int i;

	ASSERT_EQ(0, pto_graph_new(self->dev, &g));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct pto_tensor *op;

		ASSERT_EQ(0, pto_test_tensor2d(self->dev, bad[i], 1, 4, &op));
		lib_refuses(_metadata, self, g, op, &p, NULL, 0, "signed");
		pto_tensor_free(op);
	}
	pto_graph_free(g);
}

TEST_F(pred, libpto_refuses_index_out_of_shape)
{
	struct pto_predicate p = { 1, PTO_CMP_GT, 2, 0, 0 };
	struct pto_tensor *op;
	struct pto_graph *g;

	ASSERT_EQ(0, pto_graph_new(self->dev, &g));
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I32, 2, 4, &op));
	lib_refuses(_metadata, self, g, op, &p, NULL, 0, "outside");
	p.row = 1;
	p.col = 4;
	lib_refuses(_metadata, self, g, op, &p, NULL, 0, "outside");
	p.col = 0;
	p.tensor = 2;
	lib_refuses(_metadata, self, g, op, &p, NULL, 0, "tensor 2");
	p.tensor = 1;
	p.op = 6;
	lib_refuses(_metadata, self, g, op, &p, NULL, 0, "comparison");
	pto_tensor_free(op);
	pto_graph_free(g);
}

/*
 * The stale-read trap: the operand is written by an earlier task of the
 * graph that is not a dependency. Refused; accepted with the dependency;
 * a writer of other elements of the same buffer does not count.
 */
TEST_F(pred, libpto_refuses_operand_writer_not_a_dep)
{
	struct pto_predicate p = { 1, PTO_CMP_GT, 0, 1, 0 };
	struct pto_tensor *gate, *out, *other;
	struct pto_tensor *w[1], *args[2];
	struct store_args a1 = store_at(0, 1, 1, 0);
	struct store_args a0 = store_at(0, 0, 1, 0);
	struct pto_graph *g;
	int64_t dep = 0;

	ASSERT_EQ(0, pto_graph_new(self->dev, &g));
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I32, 1, 4, &gate));
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I32, 1, 4, &out));
	w[0] = gate;
	args[0] = out;
	args[1] = gate;
	/* Task 0 writes gate[0, 1] (GST: libpto sees the kernel write t0). */
	ASSERT_EQ(0, add_store(g, self->k_store, w, 1, &a1, NULL, 0, NULL));
	lib_refuses(_metadata, self, g, gate, &p, NULL, 0, "not a dependency");
	ASSERT_EQ(1, add_store(g, self->k_store, args, 2, &a1, &dep, 1, &p))
		TH_LOG("%s", pto_graph_error(g));
	/* A view of the gate's first element only: it does not overlap [0, 1]. */
	ASSERT_EQ(0, pto_tensor_view(pto_tensor_buffer(gate), 0, PTO_DTYPE_I32,
				     2, (const int64_t[]){ 1, 1 }, NULL, &other));
	w[0] = other;
	ASSERT_EQ(2, add_store(g, self->k_store, w, 1, &a0, NULL, 0, NULL));
	/*
	 * Depends on 0 (which wrote [0, 1]), not on 1 (which wrote out) nor
	 * on 2 (which wrote [0, 0] only): fine.
	 */
	ASSERT_EQ(3, add_store(g, self->k_store, args, 2, &a0, &dep, 1, &p))
		TH_LOG("%s", pto_graph_error(g));
	ASSERT_EQ(0, pto_graph_run(g, self->q, RUN_TIMEOUT))
		TH_LOG("run: %s", pto_graph_error(g));
	EXPECT_EQ(PTO_STATUS_OK, pto_graph_task_status(g, 1, NULL, NULL));
	EXPECT_EQ(PTO_STATUS_OK, pto_graph_task_status(g, 3, NULL, NULL));
	pto_graph_free(g);
	pto_tensor_free(other);
	pto_tensor_free(out);
	pto_tensor_free(gate);
}

TEST_HARNESS_MAIN
