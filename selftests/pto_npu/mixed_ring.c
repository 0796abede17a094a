// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mixed tasks: one task carrying a cube kernel (AIC) and a vector kernel
 * (AIV), each block on a whole cluster, the two exchanging tiles through
 * the cross-core ring (PUSH/POP).
 *
 *  - every form works and computes the right thing: split NONE and
 *    UP_DOWN, AIC -> AIV, AIV -> AIC, both directions in one kernel pair,
 *    SPMD of mixed blocks (one per cluster, and twice as many: waves);
 *    the per-unit records name the cluster's AIC and AIV cores;
 *  - sub_block_id is 0/1 on the two AIVs under UP_DOWN, 0 under NONE;
 *  - ring semantics: slot_num 1 with 16 pushes completes (a push waits for
 *    a free slot), slot_num 8 too; a pop waits for a push that comes late;
 *  - refusals, one test each: the slot budget in libpto (the message names
 *    the slot_num that fits) and in the module (REASON_SLOT_BUDGET, detail
 *    = the largest slot_num that fits); mismatched shapes; PUSH/POP in a
 *    task that is not mixed; split_mode 2; slot_num 65; split or slot_num
 *    on a task that is not mixed;
 *  - a ring that can never move fails the task quickly with STATUS_TIMEOUT
 *    (the AIV pops more than the AIC pushes; the AIC pushes into a ring
 *    nobody pops) and the device then runs a mixed graph as before;
 *  - the AIV a split-NONE block keeps reserved must not strand work that
 *    was queued on it meanwhile.
 *
 * Copyright (C) 2026 pto-npu authors
 */
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define PTO_TEST_LIBPTO
#include "pto_test.h"

/* The tile that crosses the ring: R x C int32, so results compare exactly. */
#define R 16
#define C 16
#define RUN_TIMEOUT PTO_TEST_SEC(60)

/* Tensor arguments of the pipe kernels. */
enum { ARG_X, ARG_OUT, ARG_AUX };

enum pipe_mode {
	/* AIC: TLOAD x, PUSH. AIV: POP, +1, TSTORE out. */
	PIPE_C2V,
	/* AIV: TLOAD x, +1, PUSH. AIC: POP, TSTORE out. */
	PIPE_V2C,
	/* AIC: TLOAD x, PUSH, POP, TSTORE out. AIV: POP, +1, PUSH. */
	PIPE_BOTH,
};

/*
 * A kernel pair: per block, step k moves rows [base + kR, +R) of x, base =
 * block index x steps x R, and out = x + 1 there. Each AIV handles its
 * R / parts rows of every tile (offset sub_block_id x R / parts).
 */
struct pipe {
	enum pipe_mode mode;
	enum pto_split_mode split;
	unsigned int aic_steps;
	unsigned int aiv_steps;
	/* AIC busy-loop iterations before its first step */
	unsigned int aic_spin;
	/* AIV busy-loop iterations before its first step */
	unsigned int aiv_spin;
};

static unsigned int pipe_rows_per_block(const struct pipe *p)
{
	unsigned int n = p->aic_steps > p->aiv_steps ? p->aic_steps : p->aiv_steps;

	return (n ? n : 1) * R;
}

static void spin(struct pto_kb *kb, unsigned int loops)
{
	if (!loops)
		return;
	pto_kb_ldi(kb, 9, 0);
	pto_kb_loopi(kb, 10, loops);
	pto_kb_alui(kb, PTO_ALU_ADD, 9, 9, 1);
	pto_kb_endloop(kb);
}

/*
 * s0 = 0, s1 = step, s2 = row, s3 = the block's (and part's) first row.
 */
static int build_pipe(struct pto_device *dev, const struct pipe *p,
		      struct pto_kernel **aic, struct pto_kernel **aiv,
		      char *err, size_t len)
{
	unsigned int half = p->split == PTO_SPLIT_UP_DOWN ? R / 2 : R;
	unsigned int per_block = pipe_rows_per_block(p);
	struct pto_kb *kb;
	int tx, tp, to;

	*aic = *aiv = NULL;
	if (pto_kb_new(dev, PTO_CORE_AIC, &kb))
		return -ENOMEM;
	tx = pto_kb_tile(kb, PTO_DTYPE_I32, PTO_BUF_L1, R, C);
	pto_kb_ldi(kb, 0, 0);
	pto_kb_sreg(kb, 3, PTO_SREG_BLOCK_IDX);
	pto_kb_alui(kb, PTO_ALU_MUL, 3, 3, per_block);
	spin(kb, p->aic_spin);
	pto_kb_loopi(kb, 1, p->aic_steps);
	pto_kb_alui(kb, PTO_ALU_MUL, 2, 1, R);
	pto_kb_alu(kb, PTO_ALU_ADD, 2, 2, 3);
	if (p->mode != PIPE_V2C) {
		pto_kb_tload(kb, tx, ARG_X, 2, 0);
		pto_kb_push(kb, tx);
	}
	if (p->mode != PIPE_C2V) {
		pto_kb_pop(kb, tx);
		pto_kb_tstore(kb, tx, ARG_OUT, 2, 0);
	}
	pto_kb_endloop(kb);
	pto_kb_end(kb);
	*aic = pto_test_kb_finish(kb, err, len);
	if (!*aic)
		return -EINVAL;

	if (pto_kb_new(dev, PTO_CORE_AIV, &kb))
		return -ENOMEM;
	tp = pto_kb_tile(kb, PTO_DTYPE_I32, PTO_BUF_UB, half, C);
	to = pto_kb_tile(kb, PTO_DTYPE_I32, PTO_BUF_UB, half, C);
	pto_kb_ldi(kb, 0, 0);
	pto_kb_sreg(kb, 3, PTO_SREG_BLOCK_IDX);
	pto_kb_alui(kb, PTO_ALU_MUL, 3, 3, per_block);
	pto_kb_sreg(kb, 6, PTO_SREG_SUB_BLOCK_ID);
	pto_kb_alui(kb, PTO_ALU_MUL, 6, 6, half);
	pto_kb_alu(kb, PTO_ALU_ADD, 3, 3, 6);
	spin(kb, p->aiv_spin);
	pto_kb_loopi(kb, 1, p->aiv_steps);
	pto_kb_alui(kb, PTO_ALU_MUL, 2, 1, R);
	pto_kb_alu(kb, PTO_ALU_ADD, 2, 2, 3);
	if (p->mode == PIPE_V2C)
		pto_kb_tload(kb, tp, ARG_X, 2, 0);
	else
		pto_kb_pop(kb, tp);
	pto_kb_tbinsi(kb, PTO_TBIN_ADD, to, tp, 1);
	if (p->mode == PIPE_C2V)
		pto_kb_tstore(kb, to, ARG_OUT, 2, 0);
	else
		pto_kb_push(kb, to);
	pto_kb_endloop(kb);
	pto_kb_end(kb);
	*aiv = pto_test_kb_finish(kb, err, len);
	return *aiv ? 0 : -EINVAL;
}

FIXTURE(mixed) {
	struct pto_device *dev;
	struct pto_queue *q;
	struct pto_device_info info;
	struct pto_limits limits;
	struct pto_kernel *aic, *aiv;
	struct pto_tensor *x, *out, *aux;
	char err[512];
};

FIXTURE_SETUP(mixed)
{
	ASSERT_EQ(0, pto_test_dev_open(&self->dev));
	/* Profiling: the units' ring waits. */
	ASSERT_EQ(0, pto_test_queue_prof(self->dev, &self->q));
	ASSERT_EQ(0, pto_device_query_info(self->dev, &self->info));
	ASSERT_EQ(0, pto_device_query_limits(self->dev, &self->limits));
}

/* Frees the test's kernels and tensors: the next pipe builds its own. */
static void drop_io(FIXTURE_DATA(mixed) *self)
{
	pto_kernel_free(self->aic);
	pto_kernel_free(self->aiv);
	pto_tensor_free(self->x);
	pto_tensor_free(self->out);
	pto_tensor_free(self->aux);
	self->aic = self->aiv = NULL;
	self->x = self->out = self->aux = NULL;
}

FIXTURE_TEARDOWN(mixed)
{
	drop_io(self);
	pto_queue_destroy(self->q);
	pto_device_close(self->dev);
}

/* x and out of @rows rows, x[i] = 7i + 3. */
static int alloc_io(FIXTURE_DATA(mixed) *self, unsigned int rows)
{
	int32_t *px;
	size_t i;
	int ret;

	ret = pto_test_tensor2d(self->dev, PTO_DTYPE_I32, rows, C, &self->x);
	if (!ret)
		ret = pto_test_tensor2d(self->dev, PTO_DTYPE_I32, rows, C,
					&self->out);
	if (!ret)
		ret = pto_test_tensor2d(self->dev, PTO_DTYPE_I32, 64, 4,
					&self->aux);
	if (ret)
		return ret;
	px = pto_tensor_data(self->x);
	for (i = 0; i < (size_t)rows * C; i++)
		px[i] = (int32_t)(7 * i + 3);
	return 0;
}

/* Rows [0, rows) of out that must equal x + 1, or -1 if they all do. */
static long first_bad(FIXTURE_DATA(mixed) *self, unsigned int rows)
{
	const int32_t *px = pto_tensor_data(self->x);
	const int32_t *po = pto_tensor_data(self->out);
	size_t i;

	for (i = 0; i < (size_t)rows * C; i++)
		if (po[i] != px[i] + 1)
			return (long)i;
	return -1;
}

/* A one-task graph of the fixture's kernels; returns pto_graph_run(). */
static int run_mixed(FIXTURE_DATA(mixed) *self, struct pto_graph **gp,
		     enum pto_split_mode split, unsigned int slot_num,
		     unsigned int blocks)
{
	struct pto_tensor *args[3] = { self->x, self->out, self->aux };
	struct pto_graph *g;
	int idx;

	*gp = NULL;
	if (pto_graph_new(self->dev, &g))
		return -ENOMEM;
	*gp = g;
	idx = pto_graph_add_task(g, &(struct pto_task_desc){
					    .name = "mixed",
					    .kernel_aic = self->aic,
					    .kernel_aiv = self->aiv,
					    .split_mode = split,
					    .slot_num = slot_num,
					    .block_num = blocks,
					    .tensors = args,
					    .num_tensors = 3,
				    });
	if (idx < 0)
		return idx;
	return pto_graph_run(g, self->q, RUN_TIMEOUT);
}

/*
 * The records of a mixed task that ran: AIC then its AIV(s) per block,
 * the AIVs of the AIC's cluster (2c, and 2c + 1 under UP_DOWN). Returns
 * the most blocks one AIC core ran.
 */
static unsigned int check_units(struct __test_metadata *_metadata,
				const struct pto_graph *g,
				enum pto_split_mode split, unsigned int blocks,
				unsigned int clusters)
{
	unsigned int parts = split == PTO_SPLIT_UP_DOWN ? 3 : 2, i, p, n = 0;
	unsigned int per_aic[256] = { 0 }, busiest = 0;
	const struct pto_block_info *b;

	EXPECT_EQ(0, pto_graph_task_blocks(g, 0, &b, &n));
	EXPECT_EQ(blocks * parts, n);
	if (n != blocks * parts)
		return 0;
	for (i = 0; i < blocks; i++) {
		const struct pto_block_info *u = &b[i * parts];

		EXPECT_EQ(i, u[0].block);
		EXPECT_EQ(PTO_CORE_AIC, u[0].core_type);
		EXPECT_LT(u[0].core, clusters);
		if (u[0].core < 256 && ++per_aic[u[0].core] > busiest)
			busiest = per_aic[u[0].core];
		for (p = 0; p < parts; p++) {
			EXPECT_EQ(PTO_STATUS_OK, u[p].status);
			EXPECT_EQ(i, u[p].block);
			EXPECT_TRUE(!!(u[p].flags & PTO_BLOCK_RAN));
			if (!p)
				continue;
			EXPECT_EQ(PTO_CORE_AIV, u[p].core_type);
			EXPECT_EQ(2U * u[0].core + p - 1, u[p].core)
			TH_LOG("block %u: AIC %u with AIV %u", i, u[0].core,
			       u[p].core);
		}
	}
	return busiest;
}

static void pipe_ok(struct __test_metadata *_metadata,
		    FIXTURE_DATA(mixed) *self, const struct pipe *p,
		    unsigned int slot_num, unsigned int blocks)
{
	unsigned int rows = blocks * pipe_rows_per_block(p), busiest;
	struct pto_graph *g;
	long bad;
	int ret;

	ASSERT_EQ(0, build_pipe(self->dev, p, &self->aic, &self->aiv, self->err,
				sizeof(self->err)))
	TH_LOG("%s", self->err);
	ASSERT_EQ(0, alloc_io(self, rows));
	ret = run_mixed(self, &g, p->split, slot_num, blocks);
	EXPECT_EQ(0, ret) TH_LOG("%s", pto_graph_error(g));
	bad = first_bad(self, rows);
	EXPECT_EQ(-1, bad) TH_LOG("out[%ld] = %d, want %d", bad,
				  ((int32_t *)pto_tensor_data(self->out))[bad],
				  ((int32_t *)pto_tensor_data(self->x))[bad] + 1);
	busiest = check_units(_metadata, g, p->split, blocks,
			      self->info.clusters);
	/* Ring waits only, each inside its unit's bar. */
	EXPECT_EQ(0, pto_test_waits_sane(g, 0,
					 (1U << PTO_WAIT_RING_POP) |
					 (1U << PTO_WAIT_RING_PUSH),
					 self->err, sizeof(self->err)))
		TH_LOG("%s", self->err);
	if (blocks > self->info.clusters) {
		EXPECT_LE(2U, busiest) TH_LOG("%u mixed blocks, no waves", blocks);
	}
	pto_graph_free(g);
}

TEST_F(mixed, none_cube_to_vector)
{
	const struct pipe p = { PIPE_C2V, PTO_SPLIT_NONE, 4, 4, 0, 0 };

	pipe_ok(_metadata, self, &p, 0, 1);
}

TEST_F(mixed, up_down_cube_to_vector)
{
	const struct pipe p = { PIPE_C2V, PTO_SPLIT_UP_DOWN, 4, 4, 0, 0 };

	pipe_ok(_metadata, self, &p, 0, 1);
}

TEST_F(mixed, none_vector_to_cube)
{
	const struct pipe p = { PIPE_V2C, PTO_SPLIT_NONE, 4, 4, 0, 0 };

	pipe_ok(_metadata, self, &p, 0, 1);
}

TEST_F(mixed, up_down_vector_to_cube)
{
	const struct pipe p = { PIPE_V2C, PTO_SPLIT_UP_DOWN, 4, 4, 0, 0 };

	pipe_ok(_metadata, self, &p, 0, 1);
}

TEST_F(mixed, none_both_directions)
{
	const struct pipe p = { PIPE_BOTH, PTO_SPLIT_NONE, 4, 4, 0, 0 };

	pipe_ok(_metadata, self, &p, 0, 1);
}

TEST_F(mixed, up_down_both_directions)
{
	const struct pipe p = { PIPE_BOTH, PTO_SPLIT_UP_DOWN, 4, 4, 0, 0 };

	pipe_ok(_metadata, self, &p, 2, 1);
}

/* One mixed block per cluster. */
TEST_F(mixed, spmd_one_block_per_cluster)
{
	const struct pipe p = { PIPE_BOTH, PTO_SPLIT_UP_DOWN, 2, 2, 0, 0 };

	pipe_ok(_metadata, self, &p, 0, self->info.clusters);
}

/* Twice as many mixed blocks as clusters: two waves. */
TEST_F(mixed, spmd_waves_of_mixed_blocks)
{
	const struct pipe p = { PIPE_BOTH, PTO_SPLIT_UP_DOWN, 2, 2, 0, 0 };

	pipe_ok(_metadata, self, &p, 0, 2 * self->info.clusters);
}

TEST_F(mixed, spmd_none_waves)
{
	const struct pipe p = { PIPE_C2V, PTO_SPLIT_NONE, 2, 2, 0, 0 };

	pipe_ok(_metadata, self, &p, 0, 2 * self->info.clusters);
}

/* slot_num 1: each of 16 pushes waits for the AIV to free the slot. */
TEST_F(mixed, slot_num_1_sixteen_pushes)
{
	const struct pipe p = { PIPE_C2V, PTO_SPLIT_NONE, 16, 16, 0, 0 };

	pipe_ok(_metadata, self, &p, 1, 1);
}

TEST_F(mixed, slot_num_8_sixteen_pushes)
{
	const struct pipe p = { PIPE_C2V, PTO_SPLIT_UP_DOWN, 16, 16, 0, 0 };

	pipe_ok(_metadata, self, &p, 8, 1);
}

/*
 * The AIV pops at once; the AIC spins first (4 x 10^5 instructions, far
 * longer than a wake-up of the AIV's thread, which a scheduling quantum
 * bounds), then pushes: the pop waits.
 */
TEST_F(mixed, pop_waits_for_a_late_push)
{
	const struct pipe p = { PIPE_C2V, PTO_SPLIT_NONE, 1, 1, 200000, 0 };
	const struct pto_block_info *b;
	unsigned int n;

	pipe_ok(_metadata, self, &p, 0, 1);
	/* pipe_ok freed its graph: run once more to look at the spans. */
	{
		struct pto_graph *g;

		ASSERT_EQ(0, run_mixed(self, &g, PTO_SPLIT_NONE, 0, 1));
		ASSERT_EQ(0, pto_graph_task_blocks(g, 0, &b, &n));
		ASSERT_EQ(2U, n);
		/* The AIV started before the AIC ended and waited for it. */
		EXPECT_LT(b[1].ts_start, b[0].ts_end);
		EXPECT_GT(b[1].ts_end, b[0].ts_start);
		TH_LOG("AIC ran %.3f ms; the AIV started %.3f ms before the AIC ended",
		       (double)(b[0].ts_end - b[0].ts_start) / 1e6,
		       (double)(int64_t)(b[0].ts_end - b[1].ts_start) / 1e6);
		pto_graph_free(g);
	}
}

/* sub_block_id: AIV writes aux[block][sub] = 100 + sub, core id + 1 beside. */
static void sub_block_ids(struct __test_metadata *_metadata,
			  FIXTURE_DATA(mixed) *self, enum pto_split_mode split)
{
	unsigned int blocks = 3, i;
	struct pto_kb *kb;
	struct pto_graph *g;
	const int32_t *aux;
	int ret;

	ASSERT_EQ(0, pto_kb_new(self->dev, PTO_CORE_AIC, &kb));
	pto_kb_end(kb);
	self->aic = pto_test_kb_finish(kb, self->err, sizeof(self->err));
	ASSERT_NE(NULL, self->aic) TH_LOG("%s", self->err);
	ASSERT_EQ(0, pto_kb_new(self->dev, PTO_CORE_AIV, &kb));
	pto_kb_sreg(kb, 0, PTO_SREG_BLOCK_IDX);
	pto_kb_sreg(kb, 1, PTO_SREG_SUB_BLOCK_ID);
	pto_kb_sreg(kb, 2, PTO_SREG_CORE_ID);
	pto_kb_alui(kb, PTO_ALU_ADD, 3, 1, 100);
	pto_kb_gst(kb, ARG_AUX, 0, 1, 3);
	pto_kb_alui(kb, PTO_ALU_ADD, 4, 1, 2);
	pto_kb_alui(kb, PTO_ALU_ADD, 5, 2, 1);
	pto_kb_gst(kb, ARG_AUX, 0, 4, 5);
	pto_kb_end(kb);
	self->aiv = pto_test_kb_finish(kb, self->err, sizeof(self->err));
	ASSERT_NE(NULL, self->aiv) TH_LOG("%s", self->err);
	ASSERT_EQ(0, alloc_io(self, R));

	ret = run_mixed(self, &g, split, 0, blocks);
	ASSERT_EQ(0, ret) TH_LOG("%s", pto_graph_error(g));
	check_units(_metadata, g, split, blocks, self->info.clusters);
	aux = pto_tensor_data(self->aux);
	for (i = 0; i < blocks; i++) {
		const int32_t *row = &aux[i * 4];

		EXPECT_EQ(100, row[0]);
		if (split == PTO_SPLIT_UP_DOWN) {
			EXPECT_EQ(101, row[1]);
			/* Sub-block 0 on the cluster's even AIV, 1 on the odd. */
			EXPECT_EQ(0, (row[2] - 1) % 2);
			EXPECT_EQ(row[2] + 1, row[3]);
		} else {
			EXPECT_EQ(0, row[1]) TH_LOG("a second AIV ran under NONE");
			EXPECT_EQ(0, (row[2] - 1) % 2);
			EXPECT_EQ(0, row[3]);
		}
	}
	pto_graph_free(g);
}

TEST_F(mixed, sub_block_id_up_down)
{
	sub_block_ids(_metadata, self, PTO_SPLIT_UP_DOWN);
}

TEST_F(mixed, sub_block_id_none)
{
	sub_block_ids(_metadata, self, PTO_SPLIT_NONE);
}

/* ------------------------------------------------------------ refusals */

/*
 * The guide's case: an f32 64x128 tile (32 KiB) crosses the ring and the
 * vector kernel's tiles take 160 KiB of the 192 KiB UB: the default 8
 * slots do not fit, 1 does.
 */
static void build_budget_pair(struct __test_metadata *_metadata,
			      FIXTURE_DATA(mixed) *self)
{
	struct pto_kb *kb;
	int t, i;

	ASSERT_EQ(192U * 1024, self->info.aiv_ub_size)
	TH_LOG("the figures below assume the default 192 KiB UB");
	ASSERT_EQ(0, pto_kb_new(self->dev, PTO_CORE_AIC, &kb));
	t = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_L0C, 64, 128);
	pto_kb_push(kb, t);
	pto_kb_end(kb);
	self->aic = pto_test_kb_finish(kb, self->err, sizeof(self->err));
	ASSERT_NE(NULL, self->aic) TH_LOG("%s", self->err);
	ASSERT_EQ(0, pto_kb_new(self->dev, PTO_CORE_AIV, &kb));
	t = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, 64, 128);
	for (i = 0; i < 4; i++)
		pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, 64, 128);
	pto_kb_pop(kb, t);
	pto_kb_end(kb);
	self->aiv = pto_test_kb_finish(kb, self->err, sizeof(self->err));
	ASSERT_NE(NULL, self->aiv) TH_LOG("%s", self->err);
	ASSERT_EQ(160U * 1024, pto_kernel_ub_used(self->aiv));
	ASSERT_EQ(0, alloc_io(self, R));
}

#define BUDGET_MSG \
	"cross-core ring: 8 slots x 32 KiB + 160 KiB of tiles exceed the 192 KiB UB; slot_num <= 1 fits"

TEST_F(mixed, libpto_refuses_slot_budget)
{
	struct pto_graph *g;
	char msg[256];

	build_budget_pair(_metadata, self);
	EXPECT_EQ(-ENOSPC, pto_mixed_check(self->aic, self->aiv, PTO_SPLIT_NONE,
					   0, msg, sizeof(msg)));
	EXPECT_STREQ(BUDGET_MSG, msg);
	EXPECT_EQ(0, pto_mixed_check(self->aic, self->aiv, PTO_SPLIT_NONE, 1,
				     msg, sizeof(msg)));
	/* The graph refuses the task at build time with the same words. */
	EXPECT_EQ(-ENOSPC, run_mixed(self, &g, PTO_SPLIT_NONE, 0, 1));
	EXPECT_NE(NULL, strstr(pto_graph_error(g), BUDGET_MSG))
	TH_LOG("message: %s", pto_graph_error(g));
	EXPECT_EQ(0U, pto_graph_task_count(g));
	pto_graph_free(g);
	/* And the slot_num it names runs. */
	EXPECT_EQ(0, run_mixed(self, &g, PTO_SPLIT_NONE, 1, 1))
	TH_LOG("%s", pto_graph_error(g));
	pto_graph_free(g);
}

/* A raw entry of the fixture's kernels and x, out, aux. */
static size_t raw_entry(FIXTURE_DATA(mixed) *self, struct pto_test_sqe *e,
			bool aiv, bool aic, uint8_t split, uint16_t slot_num)
{
	struct drm_pto_npu_tensor_arg targs[3] = {
		pto_test_targ_of(self->x), pto_test_targ_of(self->out),
		pto_test_targ_of(self->aux),
	};
	size_t size = pto_test_sqe_init(e,
					aiv ? pto_kernel_handle(self->aiv) : 0,
					aic ? pto_kernel_handle(self->aic) : 0,
					1, targs, 3, NULL, 0, NULL, 0);

	e->hdr.split_mode = split;
	e->hdr.slot_num = slot_num;
	return size;
}

/* The device's refusal of a raw entry: status, reason and detail. */
static void expect_refused(struct __test_metadata *_metadata,
			   FIXTURE_DATA(mixed) *self, bool aiv, bool aic,
			   uint8_t split, uint16_t slot_num, int reason,
			   int64_t detail)
{
	struct pto_test_sqe e;
	struct pto_cqe cqe[4];
	size_t size = raw_entry(self, &e, aiv, aic, split, slot_num);
	int n;

	n = pto_test_submit_raw_one(self->q, &e, size, cqe, 4, RUN_TIMEOUT,
				    NULL);
	ASSERT_EQ(1, n);
	EXPECT_EQ(PTO_STATUS_INVALID, cqe[0].info.status);
	EXPECT_EQ(reason, cqe[0].info.reason)
	TH_LOG("reason %s, detail %llu", pto_reason_name(cqe[0].info.reason),
	       (unsigned long long)cqe[0].info.detail);
	if (detail >= 0)
		EXPECT_EQ((uint64_t)detail, cqe[0].info.detail);
	EXPECT_FALSE(!!(cqe[0].info.flags & PTO_BLOCK_RAN));
	TH_LOG("refused: %s, detail %llu", pto_reason_name(cqe[0].info.reason),
	       (unsigned long long)cqe[0].info.detail);
}

TEST_F(mixed, module_refuses_slot_budget)
{
	build_budget_pair(_metadata, self);
	/* Default slot_num: detail = the largest slot_num that fits. */
	expect_refused(_metadata, self, true, true, DRM_PTO_NPU_SPLIT_NONE, 0,
		       PTO_REASON_SLOT_BUDGET, 1);
}

TEST_F(mixed, module_refuses_slot_budget_explicit_slots)
{
	build_budget_pair(_metadata, self);
	expect_refused(_metadata, self, true, true, DRM_PTO_NPU_SPLIT_NONE, 2,
		       PTO_REASON_SLOT_BUDGET, 1);
}

/* R-row pushes but R-row pops under UP_DOWN: each AIV should pop R/2. */
TEST_F(mixed, module_refuses_mismatched_shapes)
{
	const struct pipe p = { PIPE_C2V, PTO_SPLIT_NONE, 1, 1, 0, 0 };

	ASSERT_EQ(0, build_pipe(self->dev, &p, &self->aic, &self->aiv,
				self->err, sizeof(self->err)));
	ASSERT_EQ(0, alloc_io(self, R));
	expect_refused(_metadata, self, true, true, DRM_PTO_NPU_SPLIT_UP_DOWN,
		       0, PTO_REASON_RING, -1);
}

TEST_F(mixed, libpto_refuses_mismatched_shapes)
{
	const struct pipe p = { PIPE_C2V, PTO_SPLIT_NONE, 1, 1, 0, 0 };
	struct pto_graph *g;

	ASSERT_EQ(0, build_pipe(self->dev, &p, &self->aic, &self->aiv,
				self->err, sizeof(self->err)));
	ASSERT_EQ(0, alloc_io(self, R));
	EXPECT_EQ(-EINVAL, run_mixed(self, &g, PTO_SPLIT_UP_DOWN, 0, 1));
	EXPECT_NE(NULL, strstr(pto_graph_error(g),
			       "the AIC pushes i32 16x16 tiles but the AIV pops i32 16x16; under UP_DOWN each AIV takes half the rows of i32 8x16"))
	TH_LOG("message: %s", pto_graph_error(g));
	pto_graph_free(g);
}

/* A kernel with POP in a vector-only task. */
TEST_F(mixed, module_refuses_pop_outside_mixed_task)
{
	const struct pipe p = { PIPE_C2V, PTO_SPLIT_NONE, 1, 1, 0, 0 };

	ASSERT_EQ(0, build_pipe(self->dev, &p, &self->aic, &self->aiv,
				self->err, sizeof(self->err)));
	ASSERT_EQ(0, alloc_io(self, R));
	expect_refused(_metadata, self, true, false, 0, 0, PTO_REASON_RING, -1);
}

/* A kernel with PUSH in a cube-only task. */
TEST_F(mixed, module_refuses_push_outside_mixed_task)
{
	const struct pipe p = { PIPE_C2V, PTO_SPLIT_NONE, 1, 1, 0, 0 };

	ASSERT_EQ(0, build_pipe(self->dev, &p, &self->aic, &self->aiv,
				self->err, sizeof(self->err)));
	ASSERT_EQ(0, alloc_io(self, R));
	expect_refused(_metadata, self, false, true, 0, 0, PTO_REASON_RING, -1);
}

TEST_F(mixed, libpto_refuses_ring_outside_mixed_task)
{
	const struct pipe p = { PIPE_C2V, PTO_SPLIT_NONE, 1, 1, 0, 0 };
	struct pto_tensor *args[3];
	struct pto_graph *g;

	ASSERT_EQ(0, build_pipe(self->dev, &p, &self->aic, &self->aiv,
				self->err, sizeof(self->err)));
	ASSERT_EQ(0, alloc_io(self, R));
	args[0] = self->x;
	args[1] = self->out;
	args[2] = self->aux;
	ASSERT_EQ(0, pto_graph_new(self->dev, &g));
	EXPECT_EQ(-EINVAL, pto_graph_add_task(g, &(struct pto_task_desc){
						      .kernel_aiv = self->aiv,
						      .block_num = 1,
						      .tensors = args,
						      .num_tensors = 3 }));
	EXPECT_NE(NULL, strstr(pto_graph_error(g),
			       "kernel_aiv uses the cross-core ring (POP), which only a mixed task has"))
	TH_LOG("message: %s", pto_graph_error(g));
	pto_graph_free(g);
}

TEST_F(mixed, module_refuses_split_mode_2)
{
	const struct pipe p = { PIPE_C2V, PTO_SPLIT_NONE, 1, 1, 0, 0 };

	ASSERT_EQ(0, build_pipe(self->dev, &p, &self->aic, &self->aiv,
				self->err, sizeof(self->err)));
	ASSERT_EQ(0, alloc_io(self, R));
	expect_refused(_metadata, self, true, true, 2, 0, PTO_REASON_RING, -1);
}

TEST_F(mixed, module_refuses_slot_num_65)
{
	const struct pipe p = { PIPE_C2V, PTO_SPLIT_NONE, 1, 1, 0, 0 };

	ASSERT_EQ(0, build_pipe(self->dev, &p, &self->aic, &self->aiv,
				self->err, sizeof(self->err)));
	ASSERT_EQ(0, alloc_io(self, R));
	expect_refused(_metadata, self, true, true, 0,
		       DRM_PTO_NPU_MAX_SLOT_NUM + 1, PTO_REASON_RING, -1);
}

/* split_mode or slot_num on a task that has no ring. */
TEST_F(mixed, module_refuses_ring_fields_outside_mixed_task)
{
	const struct pipe p = { PIPE_V2C, PTO_SPLIT_NONE, 0, 0, 0, 0 };
	struct pto_kb *kb;

	ASSERT_EQ(0, build_pipe(self->dev, &p, &self->aic, &self->aiv,
				self->err, sizeof(self->err)));
	ASSERT_EQ(0, alloc_io(self, R));
	/* A vector kernel without PUSH/POP. */
	pto_kernel_free(self->aiv);
	ASSERT_EQ(0, pto_kb_new(self->dev, PTO_CORE_AIV, &kb));
	pto_kb_end(kb);
	self->aiv = pto_test_kb_finish(kb, self->err, sizeof(self->err));
	ASSERT_NE(NULL, self->aiv);
	expect_refused(_metadata, self, true, false, 0, 2, PTO_REASON_RING, -1);
	expect_refused(_metadata, self, true, false, 1, 0, PTO_REASON_RING, -1);
}

/* ------------------------------------------------------------ deadlocks */

/*
 * A ring that can never move fails its task with STATUS_TIMEOUT soon after
 * the other side ends (not after the device's timeout), and the device
 * then runs a mixed graph as before.
 */
static void ring_stuck(struct __test_metadata *_metadata,
		       FIXTURE_DATA(mixed) *self, const struct pipe *p,
		       unsigned int slot_num)
{
	const struct pipe good = { PIPE_BOTH, PTO_SPLIT_UP_DOWN, 2, 2, 0, 0 };
	unsigned int rows = pipe_rows_per_block(p);
	struct pto_graph *g;
	int64_t t0, took;
	int status;

	ASSERT_EQ(0, build_pipe(self->dev, p, &self->aic, &self->aiv, self->err,
				sizeof(self->err)))
	TH_LOG("%s", self->err);
	ASSERT_EQ(0, alloc_io(self, rows));
	t0 = pto_test_now_ns();
	EXPECT_EQ(-EIO, run_mixed(self, &g, p->split, slot_num, 1));
	took = pto_test_now_ns() - t0;
	status = pto_graph_task_status(g, 0, NULL, NULL);
	EXPECT_EQ(PTO_STATUS_TIMEOUT, status)
	TH_LOG("status %s: %s", pto_status_name(status), pto_graph_error(g));
	EXPECT_LT(took, PTO_TEST_LIMIT_MSEC(self->limits.timeout_ms) / 2)
	TH_LOG("the stuck ring took %.3f s to fail (timeout %u ms)",
	       (double)took / 1e9, self->limits.timeout_ms);
	TH_LOG("failed after %.3f s: %s", (double)took / 1e9,
	       pto_graph_error(g));
	pto_graph_free(g);

	/* The device goes on. */
	drop_io(self);
	pipe_ok(_metadata, self, &good, 0, 4);
}

TEST_F(mixed, aiv_pops_more_than_pushed_times_out)
{
	const struct pipe p = { PIPE_C2V, PTO_SPLIT_NONE, 1, 2, 0, 0 };

	ring_stuck(_metadata, self, &p, 0);
}

TEST_F(mixed, up_down_pops_more_than_pushed_times_out)
{
	const struct pipe p = { PIPE_C2V, PTO_SPLIT_UP_DOWN, 2, 3, 0, 0 };

	ring_stuck(_metadata, self, &p, 0);
}

TEST_F(mixed, aic_pushes_into_ring_nobody_pops_times_out)
{
	const struct pipe p = { PIPE_C2V, PTO_SPLIT_NONE, 20, 0, 0, 0 };

	ring_stuck(_metadata, self, &p, 2);
}

/* A kernel that POPs a tile and then PUSHes it back (the same shape both ways). */
static struct pto_kernel *pop_then_push(struct pto_device *dev,
					enum pto_core_type core, char *err,
					size_t len)
{
	struct pto_kb *kb;
	int t;

	if (pto_kb_new(dev, core, &kb))
		return NULL;
	t = pto_kb_tile(kb, PTO_DTYPE_I32,
			core == PTO_CORE_AIC ? PTO_BUF_L1 : PTO_BUF_UB, R, C);
	pto_kb_pop(kb, t);
	pto_kb_push(kb, t);
	pto_kb_end(kb);
	return pto_test_kb_finish(kb, err, len);
}

/*
 * Both sides POP first: each waits for the other, and neither ends. No
 * tile moves, so once the block's rings have not moved for timeout_ms the
 * watchdog ends both waits with STATUS_TIMEOUT (detail: the POP's index),
 * not sooner, and the device goes on.
 */
TEST_F_TIMEOUT(mixed, both_sides_pop_first_time_out_without_progress, 120)
{
	const struct pipe good = { PIPE_BOTH, PTO_SPLIT_UP_DOWN, 2, 2, 0, 0 };
	long old = pto_test_param_read("timeout_ms");
	const struct pto_block_info *b;
	unsigned int n = 0, i;
	struct pto_graph *g;
	int64_t t0, took;
	int status, ret;

	ASSERT_LT(0, old);
	self->aic = pop_then_push(self->dev, PTO_CORE_AIC, self->err,
				  sizeof(self->err));
	ASSERT_NE(NULL, self->aic) TH_LOG("%s", self->err);
	self->aiv = pop_then_push(self->dev, PTO_CORE_AIV, self->err,
				  sizeof(self->err));
	ASSERT_NE(NULL, self->aiv) TH_LOG("%s", self->err);
	ASSERT_EQ(0, alloc_io(self, R));
	ASSERT_EQ(0, pto_test_param_write("timeout_ms", 1000));
	t0 = pto_test_now_ns();
	ret = run_mixed(self, &g, PTO_SPLIT_NONE, 1, 1);
	took = pto_test_now_ns() - t0;
	pto_test_param_write("timeout_ms", old);
	EXPECT_EQ(-EIO, ret);
	status = pto_graph_task_status(g, 0, NULL, NULL);
	EXPECT_EQ(PTO_STATUS_TIMEOUT, status)
	TH_LOG("status %s: %s", pto_status_name(status), pto_graph_error(g));
	/* No sooner than the limit (a watchdog pass may round it down by 2 ms). */
	EXPECT_LE(PTO_TEST_MSEC(990), took);
	EXPECT_GT(PTO_TEST_SEC(30), took);
	EXPECT_EQ(0, pto_graph_task_blocks(g, 0, &b, &n));
	EXPECT_EQ(2u, n);
	for (i = 0; i < n; i++) {
		/*
		 * Each record carries its own status: the first to time out
		 * is the task's LAST (pto_graph_task_blocks()), the other
		 * timed out at its POP too, or was released CANCELLED there.
		 */
		if (b[i].flags & PTO_BLOCK_LAST) {
			EXPECT_EQ(PTO_STATUS_TIMEOUT, b[i].status);
		} else {
			EXPECT_TRUE(b[i].status == PTO_STATUS_TIMEOUT ||
				    b[i].status == PTO_STATUS_CANCELLED)
				TH_LOG("%s", pto_status_name(b[i].status));
		}
		/* The POP, instruction 0 of both kernels. */
		EXPECT_EQ(0u, b[i].detail);
	}
	TH_LOG("timed out after %.3f s (timeout_ms 1000)", (double)took / 1e9);
	pto_graph_free(g);

	drop_io(self);
	pipe_ok(_metadata, self, &good, 0, 4);
}

/*
 * A process killed while its units are parked on a ring (both sides POP
 * first): closing its file releases them as CANCELLED at once; the close
 * does not wait for timeout_ms, and the device goes on.
 */
TEST_F_TIMEOUT(mixed, close_releases_units_parked_on_a_ring, 120)
{
	const struct pipe good = { PIPE_BOTH, PTO_SPLIT_UP_DOWN, 2, 2, 0, 0 };
	long old = pto_test_param_read("timeout_ms");
	int64_t t0, took;
	int ready[2], wstatus = 0;
	char byte;
	pid_t pid;

	ASSERT_LT(0, old);
	ASSERT_EQ(0, pto_test_param_write("timeout_ms", 30000));
	ASSERT_EQ(0, pipe(ready));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		FIXTURE_DATA(mixed) c = { 0 };
		struct pto_graph *g;

		close(ready[0]);
		if (pto_test_dev_open(&c.dev) ||
		    pto_test_queue_long(c.dev, 0, 0, &c.q))
			_exit(2);
		c.aic = pop_then_push(c.dev, PTO_CORE_AIC, c.err, sizeof(c.err));
		c.aiv = pop_then_push(c.dev, PTO_CORE_AIV, c.err, sizeof(c.err));
		if (!c.aic || !c.aiv || alloc_io(&c, R))
			_exit(3);
		if (write(ready[1], "r", 1) != 1)
			_exit(4);
		/* Returns only when the waits time out, 30 s on. */
		run_mixed(&c, &g, PTO_SPLIT_NONE, 1, 1);
		_exit(5);
	}
	close(ready[1]);
	EXPECT_EQ(1, read(ready[0], &byte, 1));
	close(ready[0]);
	/* Long enough for the task to be taken and both units to park. */
	usleep(300 * 1000);
	t0 = pto_test_now_ns();
	kill(pid, SIGKILL);
	EXPECT_EQ(pid, waitpid(pid, &wstatus, 0));
	took = pto_test_now_ns() - t0;
	pto_test_param_write("timeout_ms", old);
	EXPECT_TRUE(WIFSIGNALED(wstatus))
	TH_LOG("the child ended on its own: status 0x%x", wstatus);
	EXPECT_GT(PTO_TEST_SEC(10), took)
	TH_LOG("the close took %.3f s", (double)took / 1e9);
	TH_LOG("killed and closed in %.3f s (timeout_ms 30000)",
	       (double)took / 1e9);
	pipe_ok(_metadata, self, &good, 0, 4);
}

/* ------------------------------------------------------------ scheduling */

/* Reads CQEs until the tasks @ids[0..n) have their LAST one. */
static int wait_lasts(struct pto_queue *q, const uint64_t *ids, unsigned int n,
		      int32_t *status, int64_t timeout_ns)
{
	int64_t deadline = pto_test_now_ns() + timeout_ns;
	unsigned int done = 0, i;
	struct pto_cqe cqe[64];

	for (;;) {
		int got = pto_queue_reap(q, cqe, 64), j, ret;

		if (got < 0)
			return got;
		for (j = 0; j < got; j++) {
			if (!(cqe[j].info.flags & PTO_BLOCK_LAST))
				continue;
			for (i = 0; i < n; i++)
				if (cqe[j].task_id == ids[i]) {
					status[i] = cqe[j].info.status;
					done++;
				}
		}
		if (done >= n)
			return 0;
		if (got)
			continue;
		ret = pto_queue_wait(q, deadline);
		if (ret == -ETIME && pto_test_now_ns() >= deadline)
			return -ETIME;
		if (ret && ret != -ETIME && ret != -EINTR)
			return ret;
	}
}

/*
 * A split-NONE block keeps its cluster's second AIV reserved. Vector work
 * queued while every AIV is taken lands in the cores' pending slots, the
 * reserved AIVs' included. When the mixed block ends the reserved AIV is
 * released: its pending block must run then, not wait for unrelated work
 * to arrive on that core.
 */
TEST_F_TIMEOUT(mixed, reserved_aiv_runs_its_pending_block, 120)
{
	unsigned int aivs = self->info.aiv_cores, clusters = self->info.clusters;
	struct pto_kernel *mix_aic, *mix_aiv, *vec;
	struct pto_tensor *out;
	struct pto_kb *kb;
	uint64_t ids[3];
	int32_t st[3] = { -1, -1, -1 };
	uint32_t consumed;
	int ret;

	/* Mixed, no ring: both sides spin, so every AIV is busy or reserved. */
	ASSERT_EQ(0, pto_kb_new(self->dev, PTO_CORE_AIC, &kb));
	spin(kb, 50000);
	pto_kb_end(kb);
	mix_aic = pto_test_kb_finish(kb, self->err, sizeof(self->err));
	ASSERT_NE(NULL, mix_aic) TH_LOG("%s", self->err);
	ASSERT_EQ(0, pto_kb_new(self->dev, PTO_CORE_AIV, &kb));
	spin(kb, 50000);
	pto_kb_end(kb);
	mix_aiv = pto_test_kb_finish(kb, self->err, sizeof(self->err));
	ASSERT_NE(NULL, mix_aiv) TH_LOG("%s", self->err);
	/* Vector: out[block][0] += 1. */
	ASSERT_EQ(0, pto_kb_new(self->dev, PTO_CORE_AIV, &kb));
	pto_kb_sreg(kb, 0, PTO_SREG_BLOCK_IDX);
	pto_kb_ldi(kb, 1, 0);
	pto_kb_ldi(kb, 2, 1);
	pto_kb_atomic_add(kb, 3, 0, 0, 1, 2);
	pto_kb_end(kb);
	vec = pto_test_kb_finish(kb, self->err, sizeof(self->err));
	ASSERT_NE(NULL, vec) TH_LOG("%s", self->err);
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I32, aivs, 1, &out));

	/* One doorbell: the mixed task on every cluster, then one AIV block per AIV. */
	ASSERT_EQ(0, pto_queue_push_task(self->q, &(struct pto_task_desc){
						     .kernel_aic = mix_aic,
						     .kernel_aiv = mix_aiv,
						     .split_mode = PTO_SPLIT_NONE,
						     .block_num = clusters }));
	ASSERT_EQ(0, pto_queue_push_task(self->q, &(struct pto_task_desc){
						     .kernel_aiv = vec,
						     .block_num = aivs,
						     .tensors = &out,
						     .num_tensors = 1 }));
	ASSERT_EQ(0, pto_queue_doorbell(self->q, 0, 0, &consumed, &ids[0]));
	ASSERT_EQ(2U, consumed);
	ids[1] = ids[0] + 1;

	ret = wait_lasts(self->q, ids, 2, st, PTO_TEST_SEC(10));
	EXPECT_EQ(0, ret)
	TH_LOG("after 10 s: mixed task %s, vector task %s: vector blocks queued on the AIVs a split-NONE block kept reserved never ran",
	       st[0] < 0 ? "not done" : pto_status_name(st[0]),
	       st[1] < 0 ? "not done" : pto_status_name(st[1]));
	if (ret) {
		unsigned int i, ran = 0, k = 0;
		int32_t rst[3] = { -1, -1, -1 };
		uint64_t rest[3];

		for (i = 0; i < aivs; i++)
			ran += ((int32_t *)pto_tensor_data(out))[i] == 1;
		TH_LOG("%u of %u vector blocks ran", ran, aivs);
		/* Unwedge: new work on those cores runs the stranded blocks. */
		ASSERT_EQ(0, pto_queue_push_task(self->q, &(struct pto_task_desc){
							     .kernel_aiv = vec,
							     .block_num = aivs,
							     .tensors = &out,
							     .num_tensors = 1 }));
		ASSERT_EQ(0, pto_queue_doorbell(self->q, 0, 0, &consumed,
						&ids[2]));
		ASSERT_EQ(1U, consumed);
		for (i = 0; i < 2; i++)
			if (st[i] < 0)
				rest[k++] = ids[i];
		rest[k++] = ids[2];
		EXPECT_EQ(0, wait_lasts(self->q, rest, k, rst, PTO_TEST_SEC(30)));
		TH_LOG("once more vector work arrived, the stuck task(s) completed: %s",
		       rst[0] == PTO_STATUS_OK ? "yes" : "no");
	} else {
		EXPECT_EQ(PTO_STATUS_OK, st[0]);
		EXPECT_EQ(PTO_STATUS_OK, st[1]);
	}
	pto_tensor_free(out);
	pto_kernel_free(vec);
	pto_kernel_free(mix_aic);
	pto_kernel_free(mix_aiv);
}

TEST_HARNESS_MAIN
