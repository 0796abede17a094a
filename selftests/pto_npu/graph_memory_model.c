// SPDX-License-Identifier: GPL-2.0-only
/*
 * Replay keeps the memory model (issue #46, item 6): a launch's nodes
 * access buffers they were recorded on, not bound to the launch, and
 * those accesses order the launch against the context's other tasks as
 * the same tasks submitted as entries would be ordered
 * (Documentation/techniques/graph-replay.rst, "The memory model").
 *
 *  - an entry reading a recorded buffer a slow node writes waits for the
 *    launch; a launch whose node reads a recorded buffer a slow entry
 *    writes waits for the entry (before uapi 9 neither did: the reader
 *    read the buffer before it was written);
 *  - a recorded buffer touched by no node orders nothing;
 *  - a node's access outside the others' views, inside their hull, is
 *    ordered against the whole launch (hull over-ordering, documented).
 *
 * Raw SQ entries and raw GRAPH_CREATE (lib/pto_test_graph.h), so the
 * directions are exactly what the test writes.
 *
 * Copyright (C) 2026 pto-npu authors
 */
#define PTO_TEST_LIBPTO
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "pto_test.h"
#include "lib/pto_test_graph.h"

#define RUN_TIMEOUT PTO_TEST_SEC(120)
/* Idle iterations of a slow task: long next to an intake and a dispatch. */
#define SLOW 200000
#define N 16
#define NBUF 4
#define IN DRM_PTO_NPU_TENSOR_F_IN
#define OUT DRM_PTO_NPU_TENSOR_F_OUT

FIXTURE(gmm)
{
	struct pto_device *dev;
	struct pto_queue *q;
	/*
	 * After ARG2 idle iterations: for j < ARG0: t1[0, j] = t0[0, j] + ARG1
	 * (every load after the wait, so an unordered writer shows).
	 */
	struct pto_kernel *k_copy;
	uint32_t kcopy;
	uint32_t h[NBUF];
	int32_t *m[NBUF];
	int fd;
	struct pto_gb *g;
	char err[512];
};

static struct pto_kernel *build_copy(struct pto_device *dev, char *err,
				     size_t len)
{
	struct pto_kb *kb;

	if (pto_kb_new(dev, PTO_CORE_AIV, &kb))
		return NULL;
	pto_kb_arg(kb, 0, 0);
	pto_kb_arg(kb, 1, 1);
	pto_kb_arg(kb, 2, 2);
	pto_kb_ldi(kb, 3, 0);
	pto_kb_loop(kb, 4, 2);
	pto_kb_alui(kb, PTO_ALU_ADD, 5, 5, 1);
	pto_kb_endloop(kb);
	pto_kb_loop(kb, 6, 0);
	pto_kb_gld(kb, 7, 0, 3, 6);
	pto_kb_alu(kb, PTO_ALU_ADD, 7, 7, 1);
	pto_kb_gst(kb, 1, 3, 6, 7);
	pto_kb_endloop(kb);
	pto_kb_end(kb);
	return pto_test_kb_finish(kb, err, len);
}

FIXTURE_SETUP(gmm)
{
	uint64_t size;
	int i;

	ASSERT_EQ(0, pto_test_dev_open(&self->dev))
		TH_LOG("open %s", pto_test_device_path());
	self->fd = pto_device_fd(self->dev);
	ASSERT_EQ(0, pto_test_queue_long(self->dev, 0, 0, &self->q));
	self->k_copy = build_copy(self->dev, self->err, sizeof(self->err));
	ASSERT_NE(NULL, self->k_copy) TH_LOG("copy kernel: %s", self->err);
	self->kcopy = pto_kernel_handle(self->k_copy);
	for (i = 0; i < NBUF; i++) {
		ASSERT_EQ(0, pto_test_bo_create(self->fd, 4096, &self->h[i],
						&size));
		self->m[i] = pto_test_bo_mmap(self->fd, self->h[i], &size);
		ASSERT_NE(NULL, self->m[i]);
		pto_tg_fill(self->m[i], 4096 / 4, PTO_TG_SENTINEL);
	}
	ASSERT_NE(NULL, self->g = calloc(1, sizeof(*self->g)));
}

FIXTURE_TEARDOWN(gmm)
{
	free(self->g);
	pto_kernel_free(self->k_copy);
	if (self->q)
		pto_queue_destroy(self->q);
	pto_device_close(self->dev);
}

static void fill(int32_t *p, int32_t base, unsigned int n)
{
	unsigned int j;

	for (j = 0; j < n; j++)
		p[j] = base + (int32_t)j;
}

/* One copy: buffer @src[@so..] -> @dst[@dof..], @n int32 each. */
struct copy {
	int src, dst;
	uint32_t so, dof, n;
	uint8_t sflags, dflags;
	int64_t add, spin;
	const int64_t *deps;
	uint32_t nd;
};

static size_t copy_entry(FIXTURE_DATA(gmm) *self, struct pto_test_sqe *e,
			 const struct copy *c)
{
	struct drm_pto_npu_tensor_arg ta[2];
	int64_t s[3] = { c->n, c->add, c->spin };

	ta[0] = pto_test_targ(self->h[c->src], PTO_ISA_I32, c->so * 4, 1, c->n);
	ta[0].flags = c->sflags;
	ta[1] = pto_test_targ(self->h[c->dst], PTO_ISA_I32, c->dof * 4, 1, c->n);
	ta[1].flags = c->dflags;
	return pto_test_sqe_init(e, self->kcopy, 0, 1, ta, 2, s, 3, c->deps,
				 c->nd);
}

/* GRAPH_CREATE of self->g as recorded so far: the handle. */
static uint32_t create(struct __test_metadata *_metadata,
		       FIXTURE_DATA(gmm) *self)
{
	struct drm_pto_npu_graph_create c;

	EXPECT_EQ(0, pto_gb_create(self->fd, self->g, &c))
		TH_LOG("refused: node %u reason %u detail %llu", c.error_node,
		       c.error_reason, (unsigned long long)c.error_detail);
	return c.handle;
}

/* A graph of one copy node (no parameters): its handle. */
static uint32_t one_node_graph(struct __test_metadata *_metadata,
			       FIXTURE_DATA(gmm) *self, const struct copy *c)
{
	struct pto_test_sqe e;

	memset(self->g, 0, sizeof(*self->g));
	copy_entry(self, &e, c);
	pto_gb_node(self->g, &e);
	return create(_metadata, self);
}

/* @n entries in one doorbell, all their final CQEs OK. */
static void run(struct __test_metadata *_metadata, FIXTURE_DATA(gmm) *self,
		const struct pto_test_sqe *es, unsigned int n)
{
	struct pto_cqe cqes[64];
	uint64_t ids[8];
	unsigned int i;
	int got;

	ASSERT_EQ(0, pto_tg_submit(self->q, es, n, NULL, ids));
	got = pto_tg_reap(self->q, cqes, 64, n, RUN_TIMEOUT);
	ASSERT_LT(0, got);
	for (i = 0; i < n; i++) {
		const struct pto_cqe *c = pto_tg_find_final(cqes, got, ids[i]);

		ASSERT_NE(NULL, c) TH_LOG("task %u", i);
		EXPECT_EQ(PTO_STATUS_OK, c->info.status)
			TH_LOG("task %u: reason %u", i, c->info.reason);
	}
}

static void expect_seq(struct __test_metadata *_metadata, const int32_t *p,
		       int32_t base, unsigned int n)
{
	unsigned int j;

	for (j = 0; j < n; j++)
		EXPECT_EQ(base + (int32_t)j, p[j]) TH_LOG("element %u", j);
}

/*
 * The launch's node (slow) writes recorded buffer 1; an entry submitted
 * after it in the same doorbell reads buffer 1: it waits for the launch.
 */
TEST_F(gmm, entry_after_launch_waits_for_a_node_writing_a_recorded_buffer)
{
	struct pto_test_sqe e[2];
	uint32_t graph;

	fill(self->m[0], 100, N);
	graph = one_node_graph(_metadata, self, &(struct copy){
			       .src = 0, .dst = 1, .n = N, .add = 1,
			       .spin = SLOW, .sflags = IN, .dflags = OUT });
	ASSERT_NE(0U, graph);
	pto_tg_launch_init(&e[0], graph, NULL, 0, NULL, 0, NULL, 0, NULL);
	copy_entry(self, &e[1], &(struct copy){
		   .src = 1, .dst = 2, .n = N, .add = 1, .sflags = IN,
		   .dflags = OUT });
	run(_metadata, self, e, 2);
	expect_seq(_metadata, self->m[1], 101, N);
	expect_seq(_metadata, self->m[2], 102, N);
	EXPECT_EQ(0, pto_tg_destroy(self->fd, graph));
}

/*
 * An entry (slow) writes buffer 1; a launch after it whose node reads
 * buffer 1, recorded, not bound: the launch waits for the entry.
 */
TEST_F(gmm, launch_after_entry_waits_for_it_on_a_recorded_buffer)
{
	struct pto_test_sqe e[2];
	uint32_t graph;

	fill(self->m[0], 200, N);
	graph = one_node_graph(_metadata, self, &(struct copy){
			       .src = 1, .dst = 2, .n = N, .add = 1,
			       .sflags = IN, .dflags = OUT });
	ASSERT_NE(0U, graph);
	copy_entry(self, &e[0], &(struct copy){
		   .src = 0, .dst = 1, .n = N, .add = 1, .spin = SLOW,
		   .sflags = IN, .dflags = OUT });
	pto_tg_launch_init(&e[1], graph, NULL, 0, NULL, 0, NULL, 0, NULL);
	run(_metadata, self, e, 2);
	expect_seq(_metadata, self->m[2], 202, N);
	EXPECT_EQ(0, pto_tg_destroy(self->fd, graph));
}

/*
 * A launch's node writes recorded buffer 1 (slow) while the launch is
 * also bound to buffer 3 (IN): an entry reading only buffer 3 is not
 * ordered after it (bound IN against IN), one reading buffer 1 is.
 * Checked through the entries' start times against the launch's end.
 */
TEST_F(gmm, only_conflicting_recorded_accesses_order)
{
	struct drm_pto_npu_tensor_arg t;
	struct pto_test_sqe e[3];
	struct pto_cqe cqes[64];
	const struct pto_cqe *cl, *cr, *cw;
	uint64_t ids[3];
	uint32_t graph;
	int got;

	fill(self->m[0], 300, N);
	fill(self->m[3], 400, N);
	memset(self->g, 0, sizeof(*self->g));
	{
		struct drm_pto_npu_tensor_arg ta[3];
		int64_t s[3] = { N, 1, SLOW };
		struct pto_test_sqe n;

		ta[0] = pto_test_targ(self->h[0], PTO_ISA_I32, 0, 1, N);
		ta[0].flags = IN;
		ta[1] = pto_test_targ(self->h[1], PTO_ISA_I32, 0, 1, N);
		ta[1].flags = OUT;
		/* Parameter 0: never accessed by the kernel, bound IN. */
		ta[2] = pto_test_targ(self->h[3], PTO_ISA_I32, 0, 1, N);
		ta[2].flags = IN;
		pto_test_sqe_init(&n, self->kcopy, 0, 1, ta, 3, s, 3, NULL, 0);
		pto_gb_node(self->g, &n);
		pto_gb_bind(self->g, 0, DRM_PTO_NPU_BIND_TENSOR, 2, 0);
	}
	graph = create(_metadata, self);
	ASSERT_NE(0U, graph);
	t = pto_test_targ(self->h[3], PTO_ISA_I32, 0, 1, N);
	t.flags = IN;
	pto_tg_launch_init(&e[0], graph, &t, 1, NULL, 0, NULL, 0, NULL);
	/* Reads buffer 3 only: runs beside the launch. */
	copy_entry(self, &e[1], &(struct copy){
		   .src = 3, .dst = 2, .n = N, .add = 1, .sflags = IN,
		   .dflags = OUT });
	/* Reads buffer 1: after the launch. */
	copy_entry(self, &e[2], &(struct copy){
		   .src = 1, .so = 4, .dst = 2, .dof = N, .n = 4, .add = 1,
		   .sflags = IN, .dflags = OUT });
	ASSERT_EQ(0, pto_tg_submit(self->q, e, 3, NULL, ids));
	got = pto_tg_reap(self->q, cqes, 64, 3, RUN_TIMEOUT);
	ASSERT_LT(0, got);
	cl = pto_tg_find_final(cqes, got, ids[0]);
	cr = pto_tg_find_final(cqes, got, ids[1]);
	cw = pto_tg_find_final(cqes, got, ids[2]);
	ASSERT_NE(NULL, cl);
	ASSERT_NE(NULL, cr);
	ASSERT_NE(NULL, cw);
	EXPECT_EQ(PTO_STATUS_OK, cl->info.status);
	EXPECT_EQ(PTO_STATUS_OK, cr->info.status);
	EXPECT_EQ(PTO_STATUS_OK, cw->info.status);
	/* The launch's CQE spans its nodes: ts_finish is its retire. */
	EXPECT_LT(cr->info.ts_start, cl->info.ts_finish);
	EXPECT_GE(cw->info.ts_start, cl->info.ts_finish);
	expect_seq(_metadata, self->m[2], 401, N);
	expect_seq(_metadata, self->m[2] + N, 306, 4);
	EXPECT_EQ(0, pto_tg_destroy(self->fd, graph));
}

TEST_HARNESS_MAIN
