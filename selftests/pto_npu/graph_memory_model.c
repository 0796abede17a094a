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
 *  - a launch bound to a buffer it only reads is not ordered against an
 *    entry only reading it, while one reading the recorded buffer a node
 *    writes is;
 *  - inside the graph, a directed overlap without a recorded edge gets the
 *    edge inference would give entries (GRAPH_CREATE), up to a node's
 *    fanin cap, refused (GRAPH, INFERRED) past it;
 *  - on a sanitizing queue, each hazard kind met inside a replayed graph
 *    is reported on the launch's CQE as the same tasks, run as entries,
 *    report it: RACE and PREDICATE (against an entry, and between
 *    nodes), STALE_READ and UNFENCED (inside a node), with the
 *    node named (uapi 9); directed nodes report nothing.
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
/* A node's fanin: &drm_pto_npu_limits.max_deps. */
#define MAX_DEPS 32U
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

/* ------------------------------------------------------------ sanitizer */

/* A queue with DRM_PTO_NPU_QUEUE_F_SANITIZE (non-coherent GM), raw. */
struct san_queue {
	struct drm_pto_npu_queue_create c;
	uint8_t *map;
	struct drm_pto_npu_ring_header *hdr;
};

static int san_open(int fd, struct san_queue *sq)
{
	memset(sq, 0, sizeof(*sq));
	sq->c.flags = DRM_PTO_NPU_QUEUE_F_SANITIZE;
	sq->c.work_budget = PTO_TEST_LONG_BUDGET;
	if (drmIoctl(fd, DRM_IOCTL_PTO_NPU_QUEUE_CREATE, &sq->c))
		return -errno;
	sq->map = mmap(NULL, sq->c.ring_size, PROT_READ | PROT_WRITE,
		       MAP_SHARED, fd, (off_t)sq->c.mmap_offset);
	if (sq->map == MAP_FAILED)
		return -errno;
	sq->hdr = (struct drm_pto_npu_ring_header *)sq->map;
	return sq->c.haz_size == sizeof(struct drm_pto_npu_hazard) ? 0 : -EINVAL;
}

static void san_close(int fd, struct san_queue *sq)
{
	struct drm_pto_npu_queue_destroy d = { .queue_id = sq->c.queue_id };

	munmap(sq->map, sq->c.ring_size);
	drmIoctl(fd, DRM_IOCTL_PTO_NPU_QUEUE_DESTROY, &d);
}

static void san_push(struct san_queue *sq, const struct pto_test_sqe *e)
{
	uint32_t tail = sq->hdr->sq_tail, n = e->hdr.num_slots, i;

	for (i = 0; i < n; i++)
		memcpy(sq->map + sq->c.sq_offset +
		       ((tail + i) & (sq->c.sq_slots - 1)) * DRM_PTO_NPU_SQ_SLOT_SIZE,
		       (const uint8_t *)e + i * DRM_PTO_NPU_SQ_SLOT_SIZE,
		       DRM_PTO_NPU_SQ_SLOT_SIZE);
	__atomic_store_n(&sq->hdr->sq_tail, tail + n, __ATOMIC_RELEASE);
}

static uint64_t san_ring(struct __test_metadata *_metadata, int fd,
			 struct san_queue *sq, uint32_t want)
{
	struct drm_pto_npu_queue_submit s = { .queue_id = sq->c.queue_id };

	EXPECT_EQ(0, drmIoctl(fd, DRM_IOCTL_PTO_NPU_QUEUE_SUBMIT, &s));
	EXPECT_EQ(want, s.consumed);
	return s.first_task_id;
}

/*
 * Waits for the LAST CQE of task @id: returns it, *@haz its hazard
 * record, *@block0 (if not NULL) the hazard record of its block 0's CQE
 * and *@count (if not NULL) the hazards of all its CQEs. The CQ is never
 * reaped: the tests post fewer CQEs than it holds.
 */
static const struct drm_pto_npu_cqe *
san_last(struct __test_metadata *_metadata, int fd, struct san_queue *sq,
	 uint64_t id, const struct drm_pto_npu_hazard **haz,
	 const struct drm_pto_npu_hazard **block0, uint32_t *count)
{
	int64_t deadline = pto_test_now_ns() + RUN_TIMEOUT;
	const struct drm_pto_npu_cqe *last = NULL;

	for (;;) {
		uint32_t tail = __atomic_load_n(&sq->hdr->cq_tail, __ATOMIC_ACQUIRE), i;
		struct drm_pto_npu_queue_wait w = {
			.queue_id = sq->c.queue_id,
			.timeout_ns = pto_test_now_ns() + PTO_TEST_MSEC(100),
		};

		if (count)
			*count = 0;
		for (i = 0; i < tail; i++) {
			uint32_t at = i & (sq->c.cq_entries - 1);
			const struct drm_pto_npu_cqe *c = (const void *)
				(sq->map + sq->c.cq_offset + at * sizeof(*c));
			const struct drm_pto_npu_hazard *h = (const void *)
				(sq->map + sq->c.haz_offset + at * sq->c.haz_size);

			if (c->task_id != id || (c->flags & DRM_PTO_NPU_CQE_F_NODE))
				continue;
			if (count && (c->flags & DRM_PTO_NPU_CQE_F_HAZARD))
				*count += h->count;
			if (block0 && c->block == 0)
				*block0 = h;
			if (c->flags & DRM_PTO_NPU_CQE_F_LAST) {
				*haz = h;
				last = c;
			}
		}
		if (last)
			return last;
		if (pto_test_now_ns() > deadline) {
			EXPECT_TRUE(0) TH_LOG("no completion of task %llu",
					      (unsigned long long)id);
			return NULL;
		}
		drmIoctl(fd, DRM_IOCTL_PTO_NPU_QUEUE_WAIT, &w);
	}
}

/*
 * RACE: entry A (slow) writes buffer 1 (OUT); then B reads buffer 1 with
 * no direction and names no dependency: reported at B's intake. B as a
 * graph's node, buffer 1 recorded (not bound): the launch reports the
 * same RACE, naming its node (node 1: node 0) and the node's argument.
 */
TEST_F(gmm, race_on_a_recorded_buffer_as_entries_and_replayed)
{
	const struct drm_pto_npu_hazard *he, *hl;
	const struct drm_pto_npu_cqe *l;
	struct drm_pto_npu_hazard want;
	struct pto_test_sqe e[2];
	const struct copy a = {
		.src = 0, .dst = 1, .n = N, .add = 1, .spin = SLOW,
		.sflags = IN, .dflags = OUT,
	}, b = { .src = 1, .so = 2, .dst = 2, .n = 4, .add = 1 };
	struct san_queue sq;
	uint64_t first;
	uint32_t graph;

	ASSERT_EQ(0, san_open(self->fd, &sq));
	fill(self->m[0], 100, N);
	/* As entries. */
	copy_entry(self, &e[0], &a);
	copy_entry(self, &e[1], &b);
	san_push(&sq, &e[0]);
	san_push(&sq, &e[1]);
	first = san_ring(_metadata, self->fd, &sq, 2);
	l = san_last(_metadata, self->fd, &sq, first + 1, &he, NULL, NULL);
	ASSERT_NE(NULL, l);
	ASSERT_NE(0U, l->flags & DRM_PTO_NPU_CQE_F_HAZARD);
	EXPECT_EQ((uint32_t)DRM_PTO_NPU_HAZARD_RACE, he->kind);
	EXPECT_EQ(0U, he->tensor);
	EXPECT_EQ(first, he->other_task);
	EXPECT_EQ(1U, he->other_tensor);
	EXPECT_EQ(0U, he->node);
	EXPECT_EQ(0U, he->other_node);
	want = *he;
	ASSERT_NE(NULL, san_last(_metadata, self->fd, &sq, first, &he, NULL, NULL));
	/* Replayed: B as node 0 of a graph. */
	graph = one_node_graph(_metadata, self, &b);
	ASSERT_NE(0U, graph);
	pto_tg_launch_init(&e[1], graph, NULL, 0, NULL, 0, NULL, 0, NULL);
	san_push(&sq, &e[0]);
	san_push(&sq, &e[1]);
	first = san_ring(_metadata, self->fd, &sq, 2);
	l = san_last(_metadata, self->fd, &sq, first + 1, &hl, NULL, NULL);
	ASSERT_NE(NULL, l);
	EXPECT_EQ(DRM_PTO_NPU_STATUS_OK, l->status);
	EXPECT_NE(0U, l->flags & DRM_PTO_NPU_CQE_F_GRAPH);
	ASSERT_NE(0U, l->flags & DRM_PTO_NPU_CQE_F_HAZARD);
	EXPECT_EQ(want.kind, hl->kind);
	EXPECT_EQ(want.count, hl->count);
	EXPECT_EQ(want.tensor, hl->tensor);
	EXPECT_EQ(want.elem, hl->elem);
	EXPECT_EQ(first, hl->other_task);
	EXPECT_EQ(want.other_tensor, hl->other_tensor);
	EXPECT_EQ(1U, hl->node);
	EXPECT_EQ(0U, hl->other_node);
	ASSERT_NE(NULL, san_last(_metadata, self->fd, &sq, first, &he, NULL, NULL));
	EXPECT_EQ(0, pto_tg_destroy(self->fd, graph));
	/* The other way: the launch (slow) first, the entry races with its node. */
	graph = one_node_graph(_metadata, self, &(struct copy){
			       .src = 1, .so = 2, .dst = 2, .n = 4, .add = 1,
			       .spin = SLOW });
	ASSERT_NE(0U, graph);
	pto_tg_launch_init(&e[0], graph, NULL, 0, NULL, 0, NULL, 0, NULL);
	copy_entry(self, &e[1], &(struct copy){
		   .src = 0, .dst = 1, .n = N, .add = 1, .sflags = IN,
		   .dflags = OUT });
	san_push(&sq, &e[0]);
	san_push(&sq, &e[1]);
	first = san_ring(_metadata, self->fd, &sq, 2);
	l = san_last(_metadata, self->fd, &sq, first + 1, &hl, NULL, NULL);
	ASSERT_NE(NULL, l);
	ASSERT_NE(0U, l->flags & DRM_PTO_NPU_CQE_F_HAZARD);
	EXPECT_EQ((uint32_t)DRM_PTO_NPU_HAZARD_RACE, hl->kind);
	EXPECT_EQ(first, hl->other_task);
	EXPECT_EQ(0U, hl->other_tensor);
	EXPECT_EQ(1U, hl->other_node);
	EXPECT_EQ(0U, hl->node);
	ASSERT_NE(NULL, san_last(_metadata, self->fd, &sq, first, &he, NULL, NULL));
	EXPECT_EQ(0, pto_tg_destroy(self->fd, graph));
	san_close(self->fd, &sq);
}

/* The exchange kernel of memory_model.c, without its FENCE or CACHEINVALID. */
#define BLOCKS 20
#define VAL(b) (1000 + (b))

static uint32_t build_exchange(struct pto_device *dev, bool fence,
			       struct pto_kernel **k, char *err, size_t len)
{
	struct pto_kb *kb;

	if (pto_kb_new(dev, PTO_CORE_AIV, &kb))
		return 0;
	pto_kb_sreg(kb, 0, PTO_SREG_BLOCK_IDX);
	pto_kb_sreg(kb, 1, PTO_SREG_BLOCK_NUM);
	pto_kb_ldi(kb, 2, 0);
	pto_kb_ldi(kb, 3, 0);
	pto_kb_arg(kb, 12, 0);
	pto_kb_alui(kb, PTO_ALU_ADD, 5, 0, VAL(0));
	pto_kb_gst(kb, 0, 3, 0, 5);
	if (fence)
		pto_kb_fence(kb);
	pto_kb_syncall_soft(kb, 2, 12);
	if (!fence)
		pto_kb_cacheinvalid(kb);
	pto_kb_loop(kb, 8, 1);
	pto_kb_gld(kb, 9, 0, 3, 8);
	pto_kb_alui(kb, PTO_ALU_ADD, 10, 8, VAL(0));
	pto_kb_cmp(kb, PTO_CMP_NE, 11, 9, 10);
	pto_kb_alu(kb, PTO_ALU_ADD, 2, 2, 11);
	pto_kb_endloop(kb);
	pto_kb_gst(kb, 1, 3, 0, 2);
	pto_kb_end(kb);
	*k = pto_test_kb_finish(kb, err, len);
	return *k ? pto_kernel_handle(*k) : 0;
}

/*
 * The exchange of BLOCKS blocks (vals: buffer 0, mismatches: buffer 1,
 * SOFT syncall workspace: buffer 2), as an entry, then as a graph's node
 * on the same buffers (recorded): the entry's blocks each report @kind;
 * the launch's one CQE reports its node's lowest unit's (block 0's) and
 * counts them all.
 */
static void runtime_hazard(struct __test_metadata *_metadata,
			   FIXTURE_DATA(gmm) *self, bool fence, uint32_t kind)
{
	const struct drm_pto_npu_hazard *h, *h0 = NULL;
	struct drm_pto_npu_tensor_arg ta[3];
	const struct drm_pto_npu_cqe *l;
	struct drm_pto_npu_hazard want;
	struct pto_kernel *k = NULL;
	int64_t used = BLOCKS;
	struct pto_test_sqe e;
	struct san_queue sq;
	uint32_t kh, graph, count;
	uint64_t id;
	int i;

	ASSERT_LE(BLOCKS, (int)pto_available_aiv_count(self->dev));
	kh = build_exchange(self->dev, fence, &k, self->err, sizeof(self->err));
	ASSERT_NE(0U, kh) TH_LOG("exchange kernel: %s", self->err);
	ASSERT_EQ(0, san_open(self->fd, &sq));
	for (i = 0; i < 3; i++)
		ta[i] = pto_test_targ(self->h[i], PTO_ISA_I32, 0, 1,
				      i == 2 ? 16 : BLOCKS);
	memset(self->m[0], 0, 4096);
	memset(self->m[2], 0, 4096);
	pto_test_sqe_init(&e, kh, 0, BLOCKS, ta, 3, &used, 1, NULL, 0);
	e.hdr.flags |= DRM_PTO_NPU_TASK_F_SYNC_START;
	san_push(&sq, &e);
	id = san_ring(_metadata, self->fd, &sq, 1);
	l = san_last(_metadata, self->fd, &sq, id, &h, &h0, &count);
	ASSERT_NE(NULL, l);
	ASSERT_NE(NULL, h0);
	EXPECT_EQ(kind, h0->kind);
	EXPECT_EQ((uint32_t)(BLOCKS * (BLOCKS - 1)), count);
	want = *h0;
	/* Replayed. */
	memset(self->g, 0, sizeof(*self->g));
	pto_gb_node(self->g, &e);
	graph = create(_metadata, self);
	ASSERT_NE(0U, graph);
	memset(self->m[0], 0, 4096);
	memset(self->m[2], 0, 4096);
	pto_tg_launch_init(&e, graph, NULL, 0, NULL, 0, NULL, 0, NULL);
	san_push(&sq, &e);
	id = san_ring(_metadata, self->fd, &sq, 1);
	l = san_last(_metadata, self->fd, &sq, id, &h, NULL, NULL);
	ASSERT_NE(NULL, l);
	EXPECT_EQ(DRM_PTO_NPU_STATUS_OK, l->status);
	EXPECT_NE(0U, l->flags & DRM_PTO_NPU_CQE_F_GRAPH);
	ASSERT_NE(0U, l->flags & DRM_PTO_NPU_CQE_F_HAZARD);
	EXPECT_EQ(want.kind, h->kind);
	EXPECT_EQ(count, h->count);
	EXPECT_EQ(want.pc, h->pc);
	EXPECT_EQ(want.tensor, h->tensor);
	EXPECT_EQ(want.elem, h->elem);
	EXPECT_EQ(id, h->other_task);
	EXPECT_EQ(want.other_pc, h->other_pc);
	EXPECT_EQ(want.other_block, h->other_block);
	EXPECT_EQ(want.other_tensor, h->other_tensor);
	EXPECT_EQ(1U, h->node);
	for (i = 0; i < BLOCKS; i++)
		EXPECT_EQ(VAL(i), self->m[0][i]);
	EXPECT_EQ(0, pto_tg_destroy(self->fd, graph));
	san_close(self->fd, &sq);
	pto_kernel_free(k);
}

TEST_F(gmm, stale_read_inside_a_node_as_entries_and_replayed)
{
	runtime_hazard(_metadata, self, true, DRM_PTO_NPU_HAZARD_STALE_READ);
}

TEST_F(gmm, unfenced_inside_a_node_as_entries_and_replayed)
{
	runtime_hazard(_metadata, self, false, DRM_PTO_NPU_HAZARD_UNFENCED);
}

/* ------------------------------------------------------------ in-graph */

/* A copy entry (struct copy) with a third tensor, buffer @pb, and predicate. */
static size_t copy_pred_entry(FIXTURE_DATA(gmm) *self, struct pto_test_sqe *e,
			      const struct copy *c, int pb,
			      const struct drm_pto_npu_predicate *p)
{
	struct drm_pto_npu_tensor_arg ta[3];
	int64_t s[3] = { c->n, c->add, c->spin };

	ta[0] = pto_test_targ(self->h[c->src], PTO_ISA_I32, c->so * 4, 1, c->n);
	ta[0].flags = c->sflags;
	ta[1] = pto_test_targ(self->h[c->dst], PTO_ISA_I32, c->dof * 4, 1, c->n);
	ta[1].flags = c->dflags;
	ta[2] = pto_test_targ(self->h[pb], PTO_ISA_I32, 0, 1, 4);
	return pto_test_sqe_init_pred(e, self->kcopy, 0, 1, ta, 3, s, 3, NULL,
				      0, p);
}

/*
 * Node 0 (slow) writes buffer 1, node 1 reads it, both directed, and the
 * recording has no edge between them: GRAPH_CREATE infers it, as the
 * doorbell would for the same two entries, and node 1 reads what node 0
 * wrote.
 */
TEST_F(gmm, directed_overlap_without_an_edge_is_ordered_inside_the_graph)
{
	struct pto_test_sqe e;
	uint32_t graph;

	fill(self->m[0], 500, N);
	memset(self->g, 0, sizeof(*self->g));
	copy_entry(self, &e, &(struct copy){
		   .src = 0, .dst = 1, .n = N, .add = 1, .spin = SLOW,
		   .sflags = IN, .dflags = OUT });
	pto_gb_node(self->g, &e);
	copy_entry(self, &e, &(struct copy){
		   .src = 1, .dst = 2, .n = N, .add = 1, .sflags = IN,
		   .dflags = OUT });
	pto_gb_node(self->g, &e);
	graph = create(_metadata, self);
	ASSERT_NE(0U, graph);
	pto_tg_launch_init(&e, graph, NULL, 0, NULL, 0, NULL, 0, NULL);
	run(_metadata, self, &e, 1);
	expect_seq(_metadata, self->m[2], 502, N);
	EXPECT_EQ(0, pto_tg_destroy(self->fd, graph));
}

/*
 * @writers nodes each write one element of buffer 1 (OUT), then a node
 * reads them all (IN), no edge recorded: it needs @writers inferred
 * edges, a node's fanin. Returns GRAPH_CREATE's result.
 */
static int fanin_graph(FIXTURE_DATA(gmm) *self, uint32_t writers,
		       struct drm_pto_npu_graph_create *c)
{
	struct pto_test_sqe e;
	uint32_t i;

	memset(self->g, 0, sizeof(*self->g));
	for (i = 0; i < writers; i++) {
		copy_entry(self, &e, &(struct copy){
			   .src = 0, .so = i, .dst = 1, .dof = i, .n = 1,
			   .add = 1, .sflags = IN, .dflags = OUT });
		pto_gb_node(self->g, &e);
	}
	copy_entry(self, &e, &(struct copy){
		   .src = 1, .dst = 2, .n = writers, .add = 1, .sflags = IN,
		   .dflags = OUT });
	pto_gb_node(self->g, &e);
	return pto_gb_create(self->fd, self->g, c);
}

TEST_F(gmm, inferred_fanin_at_the_dependency_cap_runs)
{
	struct drm_pto_npu_graph_create c;
	struct pto_test_sqe e;

	fill(self->m[0], 600, 64);
	ASSERT_EQ(0, fanin_graph(self, MAX_DEPS, &c))
		TH_LOG("refused: node %u reason %u detail %llu", c.error_node,
		       c.error_reason, (unsigned long long)c.error_detail);
	pto_tg_launch_init(&e, c.handle, NULL, 0, NULL, 0, NULL, 0, NULL);
	run(_metadata, self, &e, 1);
	expect_seq(_metadata, self->m[2], 602, MAX_DEPS);
	EXPECT_EQ(0, pto_tg_destroy(self->fd, c.handle));
}

TEST_F(gmm, inferred_fanin_past_the_dependency_cap_is_refused)
{
	struct drm_pto_npu_graph_create c;

	EXPECT_EQ(-EINVAL, fanin_graph(self, MAX_DEPS + 1, &c));
	EXPECT_EQ(0U, c.handle);
	EXPECT_EQ(MAX_DEPS + 1, c.error_node);
	EXPECT_EQ((uint32_t)DRM_PTO_NPU_REASON_GRAPH, c.error_reason);
	EXPECT_EQ((uint64_t)DRM_PTO_NPU_GRAPH_INFERRED, c.error_detail);
}

/*
 * Entries A then B on a sanitizing queue, then a graph of nodes A and B
 * (no edge) launched there: the launch's CQE reports what B's did, naming
 * node B (2: node 1) and node A (1: node 0) on the other side.
 */
static void in_graph_hazard(struct __test_metadata *_metadata,
			    FIXTURE_DATA(gmm) *self,
			    const struct pto_test_sqe *ea,
			    const struct pto_test_sqe *eb, uint32_t kind)
{
	const struct drm_pto_npu_hazard *h;
	const struct drm_pto_npu_cqe *l;
	struct drm_pto_npu_hazard want;
	struct pto_test_sqe e;
	struct san_queue sq;
	uint64_t first;
	uint32_t graph;

	ASSERT_EQ(0, san_open(self->fd, &sq));
	fill(self->m[0], 100, N);
	san_push(&sq, ea);
	san_push(&sq, eb);
	first = san_ring(_metadata, self->fd, &sq, 2);
	l = san_last(_metadata, self->fd, &sq, first + 1, &h, NULL, NULL);
	ASSERT_NE(NULL, l);
	ASSERT_NE(0U, l->flags & DRM_PTO_NPU_CQE_F_HAZARD);
	EXPECT_EQ(kind, h->kind);
	EXPECT_EQ(first, h->other_task);
	want = *h;
	ASSERT_NE(NULL, san_last(_metadata, self->fd, &sq, first, &h, NULL, NULL));
	memset(self->g, 0, sizeof(*self->g));
	pto_gb_node(self->g, ea);
	pto_gb_node(self->g, eb);
	graph = create(_metadata, self);
	ASSERT_NE(0U, graph);
	pto_tg_launch_init(&e, graph, NULL, 0, NULL, 0, NULL, 0, NULL);
	san_push(&sq, &e);
	first = san_ring(_metadata, self->fd, &sq, 1);
	l = san_last(_metadata, self->fd, &sq, first, &h, NULL, NULL);
	ASSERT_NE(NULL, l);
	EXPECT_NE(0U, l->flags & DRM_PTO_NPU_CQE_F_GRAPH);
	ASSERT_NE(0U, l->flags & DRM_PTO_NPU_CQE_F_HAZARD);
	EXPECT_EQ(want.kind, h->kind);
	EXPECT_EQ(want.count, h->count);
	EXPECT_EQ(want.tensor, h->tensor);
	EXPECT_EQ(want.elem, h->elem);
	EXPECT_EQ(first, h->other_task);
	EXPECT_EQ(want.other_tensor, h->other_tensor);
	EXPECT_EQ(0U, h->pc);
	EXPECT_EQ(2U, h->node);
	EXPECT_EQ(1U, h->other_node);
	EXPECT_EQ(0, pto_tg_destroy(self->fd, graph));
	san_close(self->fd, &sq);
}

/* A (slow) writes buffer 1 (OUT); B reads it without a direction. */
TEST_F(gmm, race_between_nodes_as_entries_and_replayed)
{
	struct pto_test_sqe ea, eb;

	copy_entry(self, &ea, &(struct copy){
		   .src = 0, .dst = 1, .n = N, .add = 1, .spin = SLOW,
		   .sflags = IN, .dflags = OUT });
	copy_entry(self, &eb, &(struct copy){
		   .src = 1, .so = 2, .dst = 2, .n = 4, .add = 1 });
	in_graph_hazard(_metadata, self, &ea, &eb, DRM_PTO_NPU_HAZARD_RACE);
}

/*
 * A (slow) writes buffer 1 without a direction; B copies elsewhere,
 * predicated on buffer 1's element 1 (its tensor 2, untouched by its
 * kernel, no direction).
 */
TEST_F(gmm, predicate_between_nodes_as_entries_and_replayed)
{
	const struct drm_pto_npu_predicate p = {
		.tensor = 2, .op = PTO_CMP_GT, .row = 0, .col = 1, .literal = 0,
	};
	struct pto_test_sqe ea, eb;

	copy_entry(self, &ea, &(struct copy){
		   .src = 0, .dst = 1, .n = 4, .add = 1, .spin = SLOW });
	copy_pred_entry(self, &eb, &(struct copy){
			.src = 0, .dst = 2, .n = 4 }, 1, &p);
	in_graph_hazard(_metadata, self, &ea, &eb, DRM_PTO_NPU_HAZARD_PREDICATE);
}

/* With directions the same two nodes are ordered: nothing to report. */
TEST_F(gmm, directed_nodes_report_nothing)
{
	const struct drm_pto_npu_hazard *h;
	const struct drm_pto_npu_cqe *l;
	struct pto_test_sqe e;
	struct san_queue sq;
	uint32_t graph;
	uint64_t id;

	ASSERT_EQ(0, san_open(self->fd, &sq));
	fill(self->m[0], 700, N);
	memset(self->g, 0, sizeof(*self->g));
	copy_entry(self, &e, &(struct copy){
		   .src = 0, .dst = 1, .n = N, .add = 1, .spin = SLOW,
		   .sflags = IN, .dflags = OUT });
	pto_gb_node(self->g, &e);
	copy_entry(self, &e, &(struct copy){
		   .src = 1, .so = 2, .dst = 2, .n = 4, .add = 1, .sflags = IN,
		   .dflags = OUT });
	pto_gb_node(self->g, &e);
	graph = create(_metadata, self);
	ASSERT_NE(0U, graph);
	pto_tg_launch_init(&e, graph, NULL, 0, NULL, 0, NULL, 0, NULL);
	san_push(&sq, &e);
	id = san_ring(_metadata, self->fd, &sq, 1);
	l = san_last(_metadata, self->fd, &sq, id, &h, NULL, NULL);
	ASSERT_NE(NULL, l);
	EXPECT_EQ(DRM_PTO_NPU_STATUS_OK, l->status);
	EXPECT_EQ(0U, l->flags & DRM_PTO_NPU_CQE_F_HAZARD)
		TH_LOG("kind %u node %u", h->kind, h->node);
	expect_seq(_metadata, self->m[2], 704, 4);
	EXPECT_EQ(0, pto_tg_destroy(self->fd, graph));
	san_close(self->fd, &sq);
}

/*
 * The PREDICATE case against an entry: A (slow, an entry) writes buffer 1
 * without a direction, then B, predicated on buffer 1's element 1, as an
 * entry and then as a launch's node (the operand recorded, not bound):
 * the launch reports what B did, naming its node.
 */
TEST_F(gmm, predicate_against_an_entry_as_entries_and_replayed)
{
	const struct drm_pto_npu_predicate p = {
		.tensor = 2, .op = PTO_CMP_GT, .row = 0, .col = 1, .literal = 0,
	};
	const struct drm_pto_npu_hazard *h;
	const struct drm_pto_npu_cqe *l;
	struct drm_pto_npu_hazard want;
	struct pto_test_sqe ea, eb, e;
	struct san_queue sq;
	uint64_t first;
	uint32_t graph;

	ASSERT_EQ(0, san_open(self->fd, &sq));
	fill(self->m[0], 100, N);
	copy_entry(self, &ea, &(struct copy){
		   .src = 0, .dst = 1, .n = 4, .add = 1, .spin = SLOW });
	copy_pred_entry(self, &eb, &(struct copy){
			.src = 0, .dst = 2, .n = 4 }, 1, &p);
	san_push(&sq, &ea);
	san_push(&sq, &eb);
	first = san_ring(_metadata, self->fd, &sq, 2);
	l = san_last(_metadata, self->fd, &sq, first + 1, &h, NULL, NULL);
	ASSERT_NE(NULL, l);
	ASSERT_NE(0U, l->flags & DRM_PTO_NPU_CQE_F_HAZARD);
	EXPECT_EQ((uint32_t)DRM_PTO_NPU_HAZARD_PREDICATE, h->kind);
	want = *h;
	ASSERT_NE(NULL, san_last(_metadata, self->fd, &sq, first, &h, NULL, NULL));
	memset(self->g, 0, sizeof(*self->g));
	pto_gb_node(self->g, &eb);
	graph = create(_metadata, self);
	ASSERT_NE(0U, graph);
	pto_tg_launch_init(&e, graph, NULL, 0, NULL, 0, NULL, 0, NULL);
	san_push(&sq, &ea);
	san_push(&sq, &e);
	first = san_ring(_metadata, self->fd, &sq, 2);
	l = san_last(_metadata, self->fd, &sq, first + 1, &h, NULL, NULL);
	ASSERT_NE(NULL, l);
	EXPECT_NE(0U, l->flags & DRM_PTO_NPU_CQE_F_GRAPH);
	ASSERT_NE(0U, l->flags & DRM_PTO_NPU_CQE_F_HAZARD);
	EXPECT_EQ(want.kind, h->kind);
	EXPECT_EQ(want.count, h->count);
	EXPECT_EQ(want.tensor, h->tensor);
	EXPECT_EQ(want.elem, h->elem);
	EXPECT_EQ(first, h->other_task);
	EXPECT_EQ(want.other_tensor, h->other_tensor);
	EXPECT_EQ(1U, h->node);
	EXPECT_EQ(0U, h->other_node);
	ASSERT_NE(NULL, san_last(_metadata, self->fd, &sq, first, &h, NULL, NULL));
	EXPECT_EQ(0, pto_tg_destroy(self->fd, graph));
	san_close(self->fd, &sq);
}

TEST_HARNESS_MAIN
