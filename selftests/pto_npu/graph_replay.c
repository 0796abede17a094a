// SPDX-License-Identifier: GPL-2.0-only
/*
 * Graph replay (uapi 7), what a launch does: a graph recorded once with
 * GRAPH_CREATE runs by one SQ entry (DRM_PTO_NPU_TASK_F_GRAPH), its tensor
 * and scalar parameters bound at each launch. One task id and one CQE per
 * launch (LAST | GRAPH: the first failing node's status, its index in
 * block), NODE CQEs before it on a profiling queue.
 *
 *  - a chain of 62 nodes plus a SOFT and a HARD syncall node, with an SPMD
 *    node, an early-resolve node, a mixed (ring) node and a node predicated
 *    on a bound gate, launched 20 times on other buffers and scalars;
 *    every result against the CPU's;
 *  - dependencies into and out of a launch, named and inferred from the
 *    bound tensors' directions; a node's GM fault is the launch's status
 *    (block = the node) and fails the named consumers and a later entry;
 *  - destroy and close with launches in flight; 10 000 launches;
 *  - a profiling queue: each node's unit CQEs, then the launch's.
 *
 * The refusals, the launch's predicate and random fields are in
 * graph_replay_fuzz.c.
 *
 * Copyright (C) 2026 pto-npu authors
 */
#define PTO_TEST_LIBPTO
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "pto_test.h"
#include "lib/pto_test_graph.h"

#define RUN_TIMEOUT PTO_TEST_SEC(240)
/* Every tensor of the add kernel: int32 [ROWS, COLS], TBYTES apart. */
#define ROWS PTO_TG_ROWS
#define COLS PTO_TG_COLS
#define TELEMS PTO_TG_TELEMS
#define TBYTES PTO_TG_TBYTES
#define SENTINEL PTO_TG_SENTINEL
#define IN DRM_PTO_NPU_TENSOR_F_IN
#define OUT DRM_PTO_NPU_TENSOR_F_OUT
/* The big graph: its special chain nodes, the syncall nodes' shape. */
#define BIG_NODES 64
#define SPMD_NODE 5
#define EARLY_NODE 9
#define PRED_NODE 12
#define MIX_NODE 20
#define SOFT_BLOCKS 4
#define SYNC_ROUNDS 2
#define BIG_LAUNCHES 20
/* Idle iterations that make a producer slow enough to be overtaken. */
#define SLOW_SPIN 20000

/*
 * ------------------------------------------------------------ helpers
 * (the shared ones: lib/pto_test_graph.c)
 */

/* A launch's CQE: LAST | GRAPH, not NODE, @status at node @block. */
static void check_launch(struct __test_metadata *_metadata,
			 const struct pto_cqe *c, int status, uint32_t block)
{
	ASSERT_NE(NULL, c);
	EXPECT_EQ(status, c->info.status)
		TH_LOG("task %llu: %s reason %s detail %llu block %u",
		       (unsigned long long)c->task_id,
		       pto_status_name(c->info.status),
		       pto_reason_name(c->info.reason),
		       (unsigned long long)c->info.detail, c->info.block);
	EXPECT_EQ(block, c->info.block);
	EXPECT_TRUE(!!(c->info.flags & DRM_PTO_NPU_CQE_F_GRAPH));
	EXPECT_FALSE(!!(c->info.flags & DRM_PTO_NPU_CQE_F_NODE));
	if (status == PTO_STATUS_OK)
		EXPECT_LE(c->info.ts_dispatch, c->info.ts_finish);
}

FIXTURE(gr)
{
	struct pto_device *dev;
	struct pto_queue *q;
	struct pto_kernel *k_add;
	uint32_t kadd;
	int fd;
	struct drm_pto_npu_limits lim;
	struct drm_pto_npu_graph_create c;
	char err[512];
};

FIXTURE_SETUP(gr)
{
	ASSERT_EQ(0, pto_test_dev_open(&self->dev))
		TH_LOG("open %s", pto_test_device_path());
	self->fd = pto_device_fd(self->dev);
	ASSERT_EQ(0, pto_test_limits(self->fd, &self->lim));
	ASSERT_LT(0U, self->lim.max_graph_nodes) TH_LOG("no graph replay (uapi < 7)");
	ASSERT_EQ(0, pto_test_queue_long(self->dev, 0, 0, &self->q));
	self->k_add = pto_tg_build_add(self->dev, self->err, sizeof(self->err));
	ASSERT_NE(NULL, self->k_add) TH_LOG("add kernel: %s", self->err);
	self->kadd = pto_kernel_handle(self->k_add);
}

FIXTURE_TEARDOWN(gr)
{
	pto_kernel_free(self->k_add);
	if (self->q)
		pto_queue_destroy(self->q);
	pto_device_close(self->dev);
}

/* ------------------------------------------------------------ the big graph */

/* The big graph's recorded buffers and the syncall nodes' results. */
struct big {
	uint32_t hp, hs, hv, hm, hw, hhv, hhm, chain, aiv;
	int32_t *pp, *sv, *sm, *sw, *hv_p, *hm_p;
	struct pto_kernel *k_soft, *k_hard, *k_aic, *k_aiv;
};

/*
 * Chain node i reads the node before's output (node 0: tensor parameter 0)
 * and writes its own scratch slot (the last: tensor parameter 1); the
 * predicated node (gate: tensor parameter 2, [0, 0] != 0) adds in place.
 */
static void big_chain(FIXTURE_DATA(gr) *self, struct pto_gb *g, struct big *b)
{
	struct drm_pto_npu_predicate gate = { .tensor = 2, .op = PTO_CMP_NE };
	struct drm_pto_npu_tensor_arg t[3];
	uint32_t i, last = b->chain - 1;
	struct pto_test_sqe e;
	uint64_t prev = 0, off;

	for (i = 0; i < b->chain; i++) {
		off = i == PRED_NODE ? prev : (uint64_t)i * TBYTES;
		t[0] = i ? pto_tg_targ(b->hs, prev, IN) : pto_tg_targ(b->hp, 0, IN);
		t[1] = i == last ? pto_tg_targ(b->hp, TBYTES, OUT) :
				   pto_tg_targ(b->hs, off, OUT);
		t[2] = pto_tg_targ(b->hp, 2 * TBYTES, IN);
		if (i == MIX_NODE)
			pto_test_sqe_init(&e, pto_kernel_handle(b->k_aiv),
					  pto_kernel_handle(b->k_aic), 1, t, 2,
					  NULL, 0, NULL, 0);
		else
			pto_tg_add_entry(&e, self->kadd,
					 i == SPMD_NODE ? 4 : 1, t,
					 i == PRED_NODE ? 3 : 2, 1, 0, NULL, 0,
					 i == PRED_NODE ? &gate : NULL);
		if (i == EARLY_NODE)
			e.hdr.flags |= DRM_PTO_NPU_TASK_F_EARLY_RESOLVE;
		pto_gb_node(g, &e);
		if (i)
			pto_gb_edge(g, i - 1, i, 0);
		prev = off;
	}
	pto_gb_bind(g, 0, DRM_PTO_NPU_BIND_TENSOR, 0, 0);
	pto_gb_bind(g, last, DRM_PTO_NPU_BIND_TENSOR, 1, 1);
	pto_gb_bind(g, PRED_NODE, DRM_PTO_NPU_BIND_TENSOR, 2, 2);
	pto_gb_bind(g, 0, DRM_PTO_NPU_BIND_SCALAR, 0, 0);
}

/* After node 0: a SOFT syncall node (4 blocks), then a HARD one (every AIV). */
static void big_side(struct pto_gb *g, struct big *b)
{
	struct drm_pto_npu_tensor_arg t[3] = {
		pto_test_targ(b->hv, PTO_ISA_I32, 0, 1, SOFT_BLOCKS),
		pto_test_targ(b->hm, PTO_ISA_I32, 0, 1, SOFT_BLOCKS),
		pto_test_targ(b->hw, PTO_ISA_I32, 0, 1, PTO_SOFT_WS_ELEMS),
	};
	int64_t used = SOFT_BLOCKS;
	struct pto_test_sqe e;
	uint32_t soft, hard;

	pto_test_sqe_init(&e, pto_kernel_handle(b->k_soft), 0, SOFT_BLOCKS, t,
			  3, &used, 1, NULL, 0);
	soft = pto_gb_node(g, &e);
	pto_gb_edge(g, 0, soft, 0);
	t[0] = pto_test_targ(b->hhv, PTO_ISA_I32, 0, 1, b->aiv);
	t[1] = pto_test_targ(b->hhm, PTO_ISA_I32, 0, 1, b->aiv);
	pto_test_sqe_init(&e, pto_kernel_handle(b->k_hard), 0,
			  DRM_PTO_NPU_BLOCKS_ALL_AIV, t, 2, NULL, 0, NULL, 0);
	e.hdr.flags = DRM_PTO_NPU_TASK_F_SYNC_START;
	hard = pto_gb_node(g, &e);
	pto_gb_edge(g, soft, hard, 0);
}

static void big_buffers(struct __test_metadata *_metadata,
			FIXTURE_DATA(gr) *self, struct big *b)
{
	ASSERT_NE(NULL, b->pp = pto_tg_bo_new(self->fd, 3 * TBYTES, &b->hp));
	ASSERT_NE(NULL, pto_tg_bo_new(self->fd, (size_t)b->chain * TBYTES, &b->hs));
	ASSERT_NE(NULL, b->sv = pto_tg_bo_new(self->fd, 4096, &b->hv));
	ASSERT_NE(NULL, b->sm = pto_tg_bo_new(self->fd, 4096, &b->hm));
	ASSERT_NE(NULL, b->sw = pto_tg_bo_new(self->fd, 4096, &b->hw));
	ASSERT_NE(NULL, b->hv_p = pto_tg_bo_new(self->fd, 4 * b->aiv, &b->hhv));
	ASSERT_NE(NULL, b->hm_p = pto_tg_bo_new(self->fd, 4 * b->aiv, &b->hhm));
	pto_tg_fill(b->pp, 3 * TELEMS, SENTINEL);
	pto_tg_fill(b->sv, SOFT_BLOCKS, -1);
	pto_tg_fill(b->sm, SOFT_BLOCKS, -1);
	pto_tg_fill(b->hv_p, b->aiv, -1);
	pto_tg_fill(b->hm_p, b->aiv, -1);
	ASSERT_EQ(0, pto_test_build_rounds(self->dev, PTO_CORE_AIV,
					   PTO_SYNC_SOFT, 2, 0, 1, SYNC_ROUNDS,
					   &b->k_soft, self->err,
					   sizeof(self->err))) TH_LOG("%s", self->err);
	ASSERT_EQ(0, pto_test_build_rounds(self->dev, PTO_CORE_AIV,
					   PTO_SYNC_HARD, PTO_SYNC_AIV, 0, 1,
					   SYNC_ROUNDS, &b->k_hard, self->err,
					   sizeof(self->err))) TH_LOG("%s", self->err);
	ASSERT_EQ(0, pto_tg_build_mix(self->dev, &b->k_aic, &b->k_aiv, self->err,
			       sizeof(self->err))) TH_LOG("%s", self->err);
}

/* Launch @l's input, output and gate views, its scalar. */
#define BIG_IN(l) ((uint64_t)(l) * TBYTES)
#define BIG_OUT_BUF(l) ((l) % 4)
#define BIG_OUT(l) ((uint64_t)((l) / 4) * TBYTES)
#define BIG_S(l) (100 * (l) + 3)
#define BIG_GATE(l) ((l) % 3 != 0)

static void big_check(struct __test_metadata *_metadata, const struct big *b,
		      const int32_t *in, int32_t *const *out)
{
	unsigned int l, k, blk;

	for (l = 0; l < BIG_LAUNCHES; l++)
		for (k = 0; k < TELEMS; k++)
			EXPECT_EQ(in[l * TELEMS + k] + (int32_t)BIG_S(l) +
				  (int32_t)b->chain - 1 - !BIG_GATE(l),
				  out[BIG_OUT_BUF(l)][(l / 4) * TELEMS + k])
				TH_LOG("launch %u element %u", l, k);
	/* The recorded output and gate were bound away: never touched. */
	EXPECT_EQ(2 * TELEMS, pto_tg_count_eq(b->pp + TELEMS, 2 * TELEMS, SENTINEL));
	for (blk = 0; blk < SOFT_BLOCKS; blk++) {
		EXPECT_EQ(0, b->sm[blk]) TH_LOG("SOFT block %u", blk);
		EXPECT_EQ(pto_test_round_val(SYNC_ROUNDS, 0, blk), b->sv[blk]);
	}
	EXPECT_EQ(BIG_LAUNCHES * SOFT_BLOCKS * 2 * SYNC_ROUNDS, b->sw[0]);
	for (blk = 0; blk < b->aiv; blk++) {
		EXPECT_EQ(0, b->hm_p[blk]) TH_LOG("HARD block %u", blk);
		EXPECT_EQ(pto_test_round_val(SYNC_ROUNDS, 0, blk), b->hv_p[blk]);
	}
}

/*
 * 62 chain nodes and two syncall nodes, launched 20 times in a row (each
 * on the one before: they share the recorded scratch), every launch on
 * other buffers and offsets, another scalar, a gate that is 0 for every
 * third launch (the predicated node skipped, the launch still OK): out =
 * in + s + 61, one less when gated off.
 */
/* The 20 launches of graph @graph: their inputs, gates and outputs. */
static void big_launches(struct __test_metadata *_metadata,
			 FIXTURE_DATA(gr) *self, uint32_t graph,
			 struct pto_test_sqe *es, int32_t **in, int32_t **out)
{
	uint32_t hin, hgate, hout[4], l, k;
	int64_t dep = -1, s;
	int32_t *gate;

	ASSERT_NE(NULL, *in = pto_tg_bo_new(self->fd, BIG_LAUNCHES * TBYTES, &hin));
	ASSERT_NE(NULL, gate = pto_tg_bo_new(self->fd, BIG_LAUNCHES * TBYTES, &hgate));
	for (k = 0; k < 4; k++) {
		ASSERT_NE(NULL, out[k] = pto_tg_bo_new(self->fd, 5 * TBYTES, &hout[k]));
		pto_tg_fill(out[k], 5 * TELEMS, SENTINEL);
	}
	for (l = 0; l < BIG_LAUNCHES; l++) {
		struct drm_pto_npu_tensor_arg t[3] = {
			pto_tg_targ(hin, BIG_IN(l), IN),
			pto_tg_targ(hout[BIG_OUT_BUF(l)], BIG_OUT(l), OUT),
			pto_tg_targ(hgate, BIG_IN(l), IN),
		};

		for (k = 0; k < TELEMS; k++)
			(*in)[l * TELEMS + k] = (int32_t)(l * 1000 + k * 7);
		gate[l * TELEMS] = BIG_GATE(l);
		s = BIG_S(l);
		pto_tg_launch_init(&es[l], graph, t, 3, &s, 1, &dep, !!l, NULL);
		es[l].hdr.user_data = 0x5000 + l;
	}
}

TEST_F_TIMEOUT(gr, replay_big_graph, 900)
{
	struct big b = { .aiv = pto_available_aiv_count(self->dev) };
	struct pto_test_sqe *es = calloc(BIG_LAUNCHES, sizeof(*es));
	struct pto_gb *g = calloc(1, sizeof(*g));
	uint64_t ids[BIG_LAUNCHES];
	int32_t *in, *out[4];
	struct pto_cqe *cqes;
	uint32_t l, cap;
	int n;

	ASSERT_NE(NULL, es);
	ASSERT_NE(NULL, g);
	b.chain = (self->lim.max_graph_nodes < BIG_NODES ?
		   self->lim.max_graph_nodes : BIG_NODES) - 2;
	ASSERT_LT(MIX_NODE + 1, (int)b.chain);
	big_buffers(_metadata, self, &b);
	big_chain(self, g, &b);
	big_side(g, &b);
	ASSERT_EQ(0, pto_gb_create(self->fd, g, &self->c))
		TH_LOG("node %u reason %s detail %llu", self->c.error_node,
		       pto_reason_name(self->c.error_reason),
		       (unsigned long long)self->c.error_detail);
	ASSERT_NE(0U, self->c.handle);
	/* The graph holds its kernels. */
	pto_kernel_free(b.k_soft);
	pto_kernel_free(b.k_hard);
	pto_kernel_free(b.k_aic);
	pto_kernel_free(b.k_aiv);
	big_launches(_metadata, self, self->c.handle, es, &in, out);
	cap = BIG_LAUNCHES * (b.chain * 8 + b.aiv + 16);
	ASSERT_NE(NULL, cqes = calloc(cap, sizeof(*cqes)));
	n = pto_tg_run(self->q, es, BIG_LAUNCHES, cqes, cap, ids, RUN_TIMEOUT);
	ASSERT_LT(0, n) TH_LOG("run: %s", strerror(-n));
	if (!pto_queue_profiling(self->q))
		EXPECT_EQ(BIG_LAUNCHES, n) TH_LOG("one CQE per launch");
	for (l = 0; l < BIG_LAUNCHES; l++) {
		const struct pto_cqe *c = pto_tg_find_final(cqes, n, ids[l]);

		check_launch(_metadata, c, PTO_STATUS_OK, 0);
		EXPECT_EQ(0x5000 + l, c->user_data);
	}
	big_check(_metadata, &b, in, out);
	EXPECT_EQ(0, pto_tg_destroy(self->fd, self->c.handle));
	free(cqes);
	free(es);
	free(g);
}

/*
 * Entry A (slow) -> a launch of a 3-node pipe -> entry C, ordered by the
 * directions of A's and C's tensors and the launch's bound ones (@named
 * 0), or by named dependencies on the entry before (@named 1, no
 * directions on A and C). z = x0 + 5 + (7 + 2) + 11.
 */
static void deps_through(struct __test_metadata *_metadata,
			 FIXTURE_DATA(gr) *self, int named)
{
	uint16_t din = named ? 0 : IN, dout = named ? 0 : OUT;
	uint32_t h0, hx, hy, hz, k;
	int32_t *x0, *x, *y, *z;
	struct drm_pto_npu_tensor_arg t[2];
	int64_t dep = -1, sc[2] = { 11, 0 };
	struct pto_test_sqe es[3];
	const struct pto_cqe *a, *l, *c;
	struct pto_cqe cqes[64];
	uint64_t ids[3];
	int n;

	ASSERT_EQ(0, pto_tg_pipe_graph(self->fd, self->kadd, 3, SLOW_SPIN, ~0u, &self->c));
	ASSERT_NE(NULL, x0 = pto_tg_bo_new(self->fd, TBYTES, &h0));
	ASSERT_NE(NULL, x = pto_tg_bo_new(self->fd, TBYTES, &hx));
	ASSERT_NE(NULL, y = pto_tg_bo_new(self->fd, TBYTES, &hy));
	ASSERT_NE(NULL, z = pto_tg_bo_new(self->fd, TBYTES, &hz));
	for (k = 0; k < TELEMS; k++)
		x0[k] = (int32_t)(3 * k + 1);
	t[0] = pto_tg_targ(h0, 0, din);
	t[1] = pto_tg_targ(hx, 0, dout);
	pto_tg_add_entry(&es[0], self->kadd, 1, t, 2, 5, 4 * SLOW_SPIN, NULL, 0, NULL);
	pto_tg_pipe_launch(&es[1], self->c.handle, hx, 0, hy, 0, 7, &dep, named, NULL);
	t[0] = pto_tg_targ(hy, 0, din);
	t[1] = pto_tg_targ(hz, 0, dout);
	pto_test_sqe_init_pred(&es[2], self->kadd, 0, 1, t, 2, sc, 2, &dep,
			       named, NULL);
	n = pto_tg_run(self->q, es, 3, cqes, 64, ids, RUN_TIMEOUT);
	ASSERT_LT(0, n) TH_LOG("run: %s", strerror(-n));
	a = pto_tg_find_final(cqes, n, ids[0]);
	l = pto_tg_find_final(cqes, n, ids[1]);
	c = pto_tg_find_final(cqes, n, ids[2]);
	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, c);
	check_launch(_metadata, l, PTO_STATUS_OK, 0);
	EXPECT_EQ(PTO_STATUS_OK, a->info.status);
	EXPECT_EQ(PTO_STATUS_OK, c->info.status);
	EXPECT_EQ(ids[0] + 1, ids[1]);
	EXPECT_EQ(ids[1] + 1, ids[2]) TH_LOG("a launch takes one task id");
	EXPECT_LE(a->info.ts_end, l->info.ts_dispatch);
	EXPECT_LE(l->info.ts_finish, c->info.ts_dispatch);
	for (k = 0; k < TELEMS; k++)
		EXPECT_EQ(x0[k] + 25, z[k]) TH_LOG("element %u", k);
	EXPECT_EQ(0, pto_tg_destroy(self->fd, self->c.handle));
}

TEST_F(gr, deps_inferred_into_and_out_of_launch)
{
	deps_through(_metadata, self, 0);
}

TEST_F(gr, deps_named_into_and_out_of_launch)
{
	deps_through(_metadata, self, 1);
}

/*
 * Node 1 reads row 1 of a 1-row view: GM_FAULT, the same detail as the
 * same entry outside a graph. Node 2 (named edge from 1) ends DEP_FAILED
 * and never writes the output; node 3 (an inferred edge from 1) still
 * runs; the launch ends GM_FAULT, block 1; an entry on it DEP_FAILED.
 */
static void fault_graph(FIXTURE_DATA(gr) *self, struct pto_gb *g, uint32_t hp,
			uint32_t hs, uint32_t hside, struct pto_test_sqe *bad)
{
	struct drm_pto_npu_tensor_arg t[2];
	struct pto_test_sqe e;

	t[0] = pto_tg_targ(hp, 0, IN);
	t[1] = pto_tg_targ(hs, 0, OUT);
	pto_tg_add_entry(&e, self->kadd, 1, t, 2, 1, 0, NULL, 0, NULL);
	pto_gb_node(g, &e);
	t[0] = pto_test_targ(hs, PTO_ISA_I32, 0, 1, COLS);
	t[0].flags = IN;
	t[1] = pto_tg_targ(hs, TBYTES, OUT);
	pto_tg_add_entry(bad, self->kadd, 1, t, 2, 1, 0, NULL, 0, NULL);
	pto_gb_node(g, bad);
	t[0] = pto_tg_targ(hs, TBYTES, IN);
	t[1] = pto_tg_targ(hp, TBYTES, OUT);
	pto_tg_add_entry(&e, self->kadd, 1, t, 2, 1, 0, NULL, 0, NULL);
	pto_gb_node(g, &e);
	t[0] = pto_tg_targ(hs, 0, IN);
	t[1] = pto_tg_targ(hside, 0, OUT);
	pto_tg_add_entry(&e, self->kadd, 1, t, 2, 1, 0, NULL, 0, NULL);
	pto_gb_node(g, &e);
	pto_gb_edge(g, 0, 1, 0);
	pto_gb_edge(g, 1, 2, 0);
	pto_gb_edge(g, 0, 3, 0);
	pto_gb_edge(g, 1, 3, DRM_PTO_NPU_GRAPH_EDGE_F_INFERRED);
	pto_gb_bind(g, 0, DRM_PTO_NPU_BIND_TENSOR, 0, 0);
	pto_gb_bind(g, 2, DRM_PTO_NPU_BIND_TENSOR, 1, 1);
	pto_gb_bind(g, 0, DRM_PTO_NPU_BIND_SCALAR, 0, 0);
}

TEST_F(gr, node_fault_fails_launch_and_consumers)
{
	struct pto_gb *g = calloc(1, sizeof(*g));
	uint32_t hp, hs, hside, hin, hout, hz, k;
	int32_t *in, *out, *side, *z;
	struct pto_test_sqe bad, es[2];
	struct pto_cqe cqes[64], ref;
	const struct pto_cqe *c;
	int64_t dep = -1, sc[2] = { 1, 0 };
	struct drm_pto_npu_tensor_arg t[2];
	uint64_t ids[2], id;
	int n;

	ASSERT_NE(NULL, g);
	ASSERT_EQ(0, pto_test_bo_create(self->fd, 2 * TBYTES, &hp, NULL));
	ASSERT_EQ(0, pto_test_bo_create(self->fd, 2 * TBYTES, &hs, NULL));
	ASSERT_NE(NULL, side = pto_tg_bo_new(self->fd, TBYTES, &hside));
	ASSERT_NE(NULL, in = pto_tg_bo_new(self->fd, TBYTES, &hin));
	ASSERT_NE(NULL, out = pto_tg_bo_new(self->fd, TBYTES, &hout));
	ASSERT_NE(NULL, z = pto_tg_bo_new(self->fd, TBYTES, &hz));
	pto_tg_fill(out, TELEMS, SENTINEL);
	pto_tg_fill(z, TELEMS, SENTINEL);
	for (k = 0; k < TELEMS; k++)
		in[k] = (int32_t)(k + 40);
	fault_graph(self, g, hp, hs, hside, &bad);
	ASSERT_EQ(0, pto_gb_create(self->fd, g, &self->c))
		TH_LOG("node %u reason %s", self->c.error_node,
		       pto_reason_name(self->c.error_reason));
	/* The faulting node as a plain entry: the detail a launch repeats. */
	n = pto_test_submit_raw_one(self->q, &bad, (size_t)bad.hdr.num_slots *
				    DRM_PTO_NPU_SQ_SLOT_SIZE, cqes, 64,
				    RUN_TIMEOUT, &id);
	ASSERT_LT(0, n);
	ASSERT_NE(NULL, c = pto_tg_find_final(cqes, n, id));
	ref = *c;
	ASSERT_EQ(PTO_STATUS_GM_FAULT, ref.info.status);
	EXPECT_EQ(0U, PTO_GM_FAULT_TENSOR(ref.info.detail));
	pto_tg_pipe_launch(&es[0], self->c.handle, hin, 0, hout, 0, 9, NULL, 0, NULL);
	t[0] = pto_tg_targ(hout, 0, IN);
	t[1] = pto_tg_targ(hz, 0, OUT);
	pto_test_sqe_init_pred(&es[1], self->kadd, 0, 1, t, 2, sc, 2, &dep, 1,
			       NULL);
	n = pto_tg_run(self->q, es, 2, cqes, 64, ids, RUN_TIMEOUT);
	ASSERT_LT(0, n) TH_LOG("run: %s", strerror(-n));
	c = pto_tg_find_final(cqes, n, ids[0]);
	check_launch(_metadata, c, PTO_STATUS_GM_FAULT, 1);
	EXPECT_EQ(ref.info.detail, c->info.detail);
	ASSERT_NE(NULL, c = pto_tg_find_final(cqes, n, ids[1]));
	EXPECT_EQ(PTO_STATUS_DEP_FAILED, c->info.status);
	EXPECT_EQ(TELEMS, pto_tg_count_eq(out, TELEMS, SENTINEL)) TH_LOG("node 2 ran");
	EXPECT_EQ(TELEMS, pto_tg_count_eq(z, TELEMS, SENTINEL));
	for (k = 0; k < TELEMS; k++)
		EXPECT_EQ(in[k] + 9 + 1, side[k]) TH_LOG("node 3, element %u", k);
	pto_test_gem_close(self->fd, hp);
	pto_test_gem_close(self->fd, hs);
	free(g);
}

/* Units of the profiled pipe's nodes: node 1 is SPMD. */
static const unsigned int prof_units[3] = { 1, 2, 1 };

/* Launch @id's CQEs in order: each node's units (NODE, its user_data), then its own. */
static void prof_check(struct __test_metadata *_metadata,
		       const struct pto_cqe *cqes, int n, uint64_t id,
		       uint64_t user_data)
{
	unsigned int node = 0, unit = 0;
	int i, seen_final = 0;

	for (i = 0; i < n; i++) {
		const struct pto_cqe *c = &cqes[i];

		if (c->task_id != id)
			continue;
		ASSERT_FALSE(seen_final) TH_LOG("CQE %d after the launch's", i);
		if (pto_tg_is_final(c)) {
			EXPECT_EQ(3U, node) TH_LOG("launch CQE before node %u's", node);
			EXPECT_EQ(user_data, c->user_data);
			check_launch(_metadata, c, PTO_STATUS_OK, 0);
			seen_final = 1;
			continue;
		}
		ASSERT_GT(3U, node) TH_LOG("CQE %d: a 4th node", i);
		EXPECT_TRUE(!!(c->info.flags & DRM_PTO_NPU_CQE_F_NODE));
		EXPECT_FALSE(!!(c->info.flags & DRM_PTO_NPU_CQE_F_GRAPH));
		EXPECT_EQ(0x100U + node, c->user_data) TH_LOG("CQE %d", i);
		EXPECT_EQ(PTO_STATUS_OK, c->info.status);
		EXPECT_TRUE(!!(c->info.flags & PTO_BLOCK_RAN));
		EXPECT_EQ(unit + 1 == prof_units[node],
			  !!(c->info.flags & PTO_BLOCK_LAST))
			TH_LOG("node %u unit %u", node, unit);
		if (++unit == prof_units[node]) {
			unit = 0;
			node++;
		}
	}
	EXPECT_TRUE(seen_final);
}

/* A profiling queue: NODE CQEs, per unit, before each launch's CQE. */
TEST_F(gr, profiling_node_cqes)
{
	struct pto_test_sqe es[3];
	struct pto_cqe cqes[64];
	struct pto_queue *qp;
	uint32_t hin, hout, l, k;
	int32_t *in, *out;
	uint64_t ids[3];
	int64_t dep = -1;
	int n;

	ASSERT_EQ(0, pto_test_queue_prof(self->dev, &qp));
	ASSERT_EQ(0, pto_tg_pipe_graph(self->fd, self->kadd, 3, 0, 1, &self->c));
	ASSERT_NE(NULL, in = pto_tg_bo_new(self->fd, 3 * TBYTES, &hin));
	ASSERT_NE(NULL, out = pto_tg_bo_new(self->fd, 3 * TBYTES, &hout));
	for (k = 0; k < 3 * TELEMS; k++)
		in[k] = (int32_t)k - 20;
	for (l = 0; l < 3; l++) {
		pto_tg_pipe_launch(&es[l], self->c.handle, hin, l * TBYTES, hout,
			    l * TBYTES, 10 * l, &dep, !!l, NULL);
		es[l].hdr.user_data = 0xabc0 + l;
	}
	n = pto_tg_run(qp, es, 3, cqes, 64, ids, RUN_TIMEOUT);
	ASSERT_LT(0, n) TH_LOG("run: %s", strerror(-n));
	EXPECT_EQ(3 * (1 + 2 + 1 + 1), n);
	for (l = 0; l < 3; l++)
		prof_check(_metadata, cqes, n, ids[l], 0xabc0 + l);
	for (k = 0; k < 3 * TELEMS; k++)
		EXPECT_EQ(in[k] + (int32_t)(10 * (k / TELEMS)) + 2, out[k]);
	EXPECT_EQ(0, pto_tg_destroy(self->fd, self->c.handle));
	EXPECT_EQ(0, pto_queue_destroy(qp));
}


#define FLIGHT 32

/*
 * 32 launches of a 4-node pipe in a row, the graph destroyed as soon as
 * they are taken: the handle is gone at once (-ENOENT, a launch naming it
 * refused), the launches taken complete, every result right.
 */
TEST_F_TIMEOUT(gr, destroy_while_in_flight, 600)
{
	struct pto_test_sqe es[FLIGHT];
	struct pto_cqe cqes[FLIGHT * 8];
	uint64_t ids[FLIGHT];
	uint32_t hin, hout, l, k;
	int32_t *in, *out;
	int64_t dep = -1;
	int n;

	ASSERT_EQ(0, pto_tg_pipe_graph(self->fd, self->kadd, 4, 2000, ~0u, &self->c));
	ASSERT_NE(NULL, in = pto_tg_bo_new(self->fd, FLIGHT * TBYTES, &hin));
	ASSERT_NE(NULL, out = pto_tg_bo_new(self->fd, FLIGHT * TBYTES, &hout));
	for (k = 0; k < FLIGHT * TELEMS; k++)
		in[k] = (int32_t)k;
	for (l = 0; l < FLIGHT; l++)
		pto_tg_pipe_launch(&es[l], self->c.handle, hin, l * TBYTES, hout,
			    l * TBYTES, l, &dep, !!l, NULL);
	ASSERT_EQ(0, pto_tg_submit(self->q, es, FLIGHT, NULL, ids));
	EXPECT_EQ(0, pto_tg_destroy(self->fd, self->c.handle));
	EXPECT_EQ(-ENOENT, pto_tg_destroy(self->fd, self->c.handle));
	n = pto_tg_reap(self->q, cqes, FLIGHT * 8, FLIGHT, RUN_TIMEOUT);
	ASSERT_LT(0, n) TH_LOG("reap: %s", strerror(-n));
	for (l = 0; l < FLIGHT; l++)
		check_launch(_metadata, pto_tg_find_final(cqes, n, ids[l]),
			     PTO_STATUS_OK, 0);
	for (k = 0; k < FLIGHT * TELEMS; k++)
		EXPECT_EQ(in[k] + (int32_t)(k / TELEMS) + 3, out[k]);
	n = pto_tg_run(self->q, es, 1, cqes, 8, ids, RUN_TIMEOUT);
	ASSERT_LT(0, n);
	ASSERT_NE(NULL, pto_tg_find_final(cqes, n, ids[0]));
	EXPECT_EQ(PTO_STATUS_INVALID, pto_tg_find_final(cqes, n, ids[0])->info.status);
	EXPECT_EQ(DRM_PTO_NPU_REASON_GRAPH, pto_tg_find_final(cqes, n, ids[0])->info.reason);
}

/* Buffers the device holds, all contexts (QUERY_MEMORY), or -1. */
static long device_bos(int fd)
{
	struct drm_pto_npu_memory_info m;

	return pto_test_memory(fd, &m) ? -1 : (long)m.device_bos;
}

/*
 * The child: a context of its own, 64 launches of a 8-node pipe of slow
 * nodes, one after the other; writes 'R' once they are taken and exits
 * (its file's release cancels them). Exit 0 if all went to plan.
 */
static int close_child(int wr)
{
	struct drm_pto_npu_graph_create c;
	struct pto_test_sqe *es = calloc(64, sizeof(*es));
	struct pto_device *dev;
	struct pto_kernel *k;
	struct pto_queue *q;
	uint32_t hin, hout, l;
	int64_t dep = -1;
	uint64_t ids[64];
	char err[256];

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (!es || pto_test_dev_open(&dev) || pto_test_queue_long(dev, 0, 0, &q))
		return 2;
	k = pto_tg_build_add(dev, err, sizeof(err));
	if (!k || pto_tg_pipe_graph(pto_device_fd(dev), pto_kernel_handle(k), 8,
			     100000, ~0u, &c))
		return 3;
	if (!pto_tg_bo_new(pto_device_fd(dev), TBYTES, &hin) ||
	    !pto_tg_bo_new(pto_device_fd(dev), 64 * TBYTES, &hout))
		return 4;
	for (l = 0; l < 64; l++)
		pto_tg_pipe_launch(&es[l], c.handle, hin, 0, hout, l * TBYTES, l,
			    &dep, !!l, NULL);
	if (pto_tg_submit(q, es, 64, NULL, ids))
		return 5;
	return write(wr, "R", 1) == 1 ? 0 : 6;
}

/*
 * A context closes with launches of a long graph in flight: it goes at
 * once, its buffers with it (the device's count back where it was), and
 * the device runs launches and entries as before.
 */
TEST_F_TIMEOUT(gr, close_while_in_flight, 600)
{
	long before = device_bos(self->fd);
	int64_t deadline;
	int fds[2], status = -1;
	struct pto_test_sqe es[2];
	struct drm_pto_npu_tensor_arg t[2];
	struct pto_cqe cqes[16];
	uint32_t hin, hout, k;
	int32_t *in, *out;
	uint64_t ids[2];
	pid_t pid;
	char ch;
	int n;

	ASSERT_LE(0, before);
	ASSERT_EQ(0, pipe(fds));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(close_child(fds[1]));
	close(fds[1]);
	EXPECT_EQ(1, read(fds[0], &ch, 1)) TH_LOG("the child did not submit");
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("child status %#x", status);
	deadline = pto_test_now_ns() + PTO_TEST_SEC(30);
	while (device_bos(self->fd) != before && pto_test_now_ns() < deadline)
		usleep(10000);
	EXPECT_EQ(before, device_bos(self->fd)) TH_LOG("the closed context's buffers");
	ASSERT_EQ(0, pto_tg_pipe_graph(self->fd, self->kadd, 3, 0, ~0u, &self->c));
	ASSERT_NE(NULL, in = pto_tg_bo_new(self->fd, TBYTES, &hin));
	ASSERT_NE(NULL, out = pto_tg_bo_new(self->fd, 2 * TBYTES, &hout));
	for (k = 0; k < TELEMS; k++)
		in[k] = (int32_t)k * 2;
	pto_tg_pipe_launch(&es[0], self->c.handle, hin, 0, hout, 0, 4, NULL, 0, NULL);
	t[0] = pto_tg_targ(hin, 0, IN);
	t[1] = pto_tg_targ(hout, TBYTES, OUT);
	pto_tg_add_entry(&es[1], self->kadd, 1, t, 2, 9, 0, NULL, 0, NULL);
	n = pto_tg_run(self->q, es, 2, cqes, 16, ids, RUN_TIMEOUT);
	ASSERT_LT(0, n) TH_LOG("run: %s", strerror(-n));
	check_launch(_metadata, pto_tg_find_final(cqes, n, ids[0]), PTO_STATUS_OK, 0);
	EXPECT_EQ(PTO_STATUS_OK, pto_tg_find_final(cqes, n, ids[1])->info.status);
	for (k = 0; k < TELEMS; k++) {
		EXPECT_EQ(in[k] + 4 + 2, out[k]);
		EXPECT_EQ(in[k] + 9, out[TELEMS + k]);
	}
}

#define MANY_BATCH 200
#define MANY_LAUNCHES 10000

/*
 * 10 000 launches of a one-node graph (out = in + s), 200 at a time, each
 * on its own views and scalar; every CQE OK, every result checked.
 */
TEST_F_TIMEOUT(gr, ten_thousand_launches, 1800)
{
	struct pto_test_sqe *es = calloc(MANY_BATCH, sizeof(*es));
	unsigned int cap = MANY_BATCH * 4, b, j, k, ok = 0;
	struct pto_cqe *cqes = calloc(cap, sizeof(*cqes));
	uint64_t ids[MANY_BATCH];
	uint32_t hin, hout;
	int32_t *in, *out;
	int n;

	ASSERT_NE(NULL, es);
	ASSERT_NE(NULL, cqes);
	ASSERT_EQ(0, pto_tg_pipe_graph(self->fd, self->kadd, 1, 0, ~0u, &self->c));
	ASSERT_NE(NULL, in = pto_tg_bo_new(self->fd, MANY_BATCH * TBYTES, &hin));
	ASSERT_NE(NULL, out = pto_tg_bo_new(self->fd, MANY_BATCH * TBYTES, &hout));
	for (k = 0; k < MANY_BATCH * TELEMS; k++)
		in[k] = (int32_t)(k * 3);
	for (b = 0; b < MANY_LAUNCHES / MANY_BATCH; b++) {
		for (j = 0; j < MANY_BATCH; j++)
			pto_tg_pipe_launch(&es[j], self->c.handle, hin, j * TBYTES,
				    hout, j * TBYTES, b * 1000 + j, NULL, 0,
				    NULL);
		pto_tg_fill(out, MANY_BATCH * TELEMS, SENTINEL);
		n = pto_tg_run(self->q, es, MANY_BATCH, cqes, cap, ids,
				RUN_TIMEOUT);
		ASSERT_LT(0, n) TH_LOG("batch %u: %s", b, strerror(-n));
		for (j = 0; j < MANY_BATCH; j++) {
			const struct pto_cqe *c = pto_tg_find_final(cqes, n, ids[j]);

			ASSERT_NE(NULL, c) TH_LOG("batch %u launch %u", b, j);
			ok += c->info.status == PTO_STATUS_OK &&
			      (c->info.flags & DRM_PTO_NPU_CQE_F_GRAPH);
			for (k = 0; k < TELEMS; k++)
				ASSERT_EQ(in[j * TELEMS + k] + (int32_t)(b * 1000 + j),
					  out[j * TELEMS + k])
					TH_LOG("batch %u launch %u element %u", b, j, k);
		}
	}
	EXPECT_EQ(MANY_LAUNCHES, (int)ok);
	EXPECT_EQ(0, pto_tg_destroy(self->fd, self->c.handle));
	free(cqes);
	free(es);
}

TEST_HARNESS_MAIN
