// SPDX-License-Identifier: GPL-2.0-only
/*
 * Dependencies inferred from tensor directions (DRM_PTO_NPU_TENSOR_F_IN /
 * _OUT): a task reading a range an earlier, unfinished task writes waits
 * for it (read-after-write), a task writing a range waits for the earlier
 * readers and writers (write-after-read, write-after-write), across
 * doorbells and queues of one context; ranges that do not overlap give no
 * edge; explicit dependencies add to the inferred ones. Raw SQ entries,
 * so the tensor flags are exactly what the test writes.
 *
 * Copyright (C) 2026 pto-npu authors
 */
#define PTO_TEST_LIBPTO
#include <stdio.h>
#include <string.h>

#include "pto_test.h"

#define RUN_TIMEOUT PTO_TEST_SEC(60)
/* Idle iterations of a slow task: long next to an intake and a dispatch. */
#define SLOW 200000
#define N 16
#define IN DRM_PTO_NPU_TENSOR_F_IN
#define OUT DRM_PTO_NPU_TENSOR_F_OUT

FIXTURE(infer)
{
	struct pto_device *dev;
	struct pto_queue *q;
	struct pto_queue *q2;
	/*
	 * After ARG2 idle iterations: for j < ARG0: t1[0, j] = t0[0, j] + ARG1
	 * (every load after the wait, so an unordered writer shows).
	 */
	struct pto_kernel *k_copy;
	uint32_t h[3];
	int32_t *m[3];
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

FIXTURE_SETUP(infer)
{
	uint64_t size;
	int i;

	ASSERT_EQ(0, pto_test_dev_open(&self->dev))
		TH_LOG("open %s", pto_test_device_path());
	/* SLOW spins run past the default work budget. */
	ASSERT_EQ(0, pto_test_queue_long(self->dev, 0, 0, &self->q));
	ASSERT_EQ(0, pto_test_queue_long(self->dev, 0, 0, &self->q2));
	self->k_copy = build_copy(self->dev, self->err, sizeof(self->err));
	ASSERT_NE(NULL, self->k_copy) TH_LOG("copy kernel: %s", self->err);
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, pto_test_bo_create(pto_device_fd(self->dev), 4096,
						&self->h[i], &size));
		self->m[i] = pto_test_bo_mmap(pto_device_fd(self->dev),
					      self->h[i], &size);
		ASSERT_NE(NULL, self->m[i]);
	}
}

FIXTURE_TEARDOWN(infer)
{
	pto_kernel_free(self->k_copy);
	if (self->q2)
		pto_queue_destroy(self->q2);
	if (self->q)
		pto_queue_destroy(self->q);
	pto_device_close(self->dev);
}

/* One copy task: buffer @src[@so..] -> @dst[@dof..], @n int32 each. */
struct copy {
	int src, dst;
	uint32_t so, dof, n;
	uint8_t sflags, dflags;
	int64_t add, spin;
	const int64_t *deps;
	uint32_t nd;
};

static void push_copy(struct __test_metadata *_metadata,
		      FIXTURE_DATA(infer) *self, struct pto_queue *q,
		      const struct copy *c)
{
	struct drm_pto_npu_tensor_arg ta[2];
	int64_t s[3] = { c->n, c->add, c->spin };
	struct pto_test_sqe e;
	size_t bytes;

	ta[0] = pto_test_targ(self->h[c->src], PTO_ISA_I32, c->so * 4, 1, c->n);
	ta[0].flags = c->sflags;
	ta[1] = pto_test_targ(self->h[c->dst], PTO_ISA_I32, c->dof * 4, 1, c->n);
	ta[1].flags = c->dflags;
	bytes = pto_test_sqe_init(&e, pto_kernel_handle(self->k_copy), 0, 1,
				  ta, 2, s, 3, c->deps, c->nd);
	ASSERT_EQ(0, pto_queue_push_raw(q, &e, bytes));
}

static uint64_t ring(struct __test_metadata *_metadata, struct pto_queue *q,
		     uint32_t want)
{
	uint32_t consumed = 0;
	uint64_t first = 0;

	EXPECT_EQ(0, pto_queue_doorbell(q, 0, 0, &consumed, &first));
	EXPECT_EQ(want, consumed);
	return first;
}

/* The LAST CQEs of tasks @first.. (@n of them) on @q, all OK. */
static void reap(struct __test_metadata *_metadata, struct pto_queue *q,
		 uint64_t first, unsigned int n, struct pto_block_info *out)
{
	struct pto_cqe cqes[32];
	unsigned int i;
	int got;

	got = pto_test_reap_lasts(q, cqes, 32, n, RUN_TIMEOUT);
	ASSERT_LE((int)n, got);
	for (i = 0; i < n; i++) {
		const struct pto_cqe *l = pto_test_find_last(cqes, got, first + i);

		ASSERT_NE(NULL, l) TH_LOG("task %llu", (unsigned long long)(first + i));
		EXPECT_EQ(PTO_STATUS_OK, l->info.status)
			TH_LOG("task %llu reason %u", (unsigned long long)(first + i),
			       l->info.reason);
		out[i] = l->info;
	}
}

static void fill(int32_t *p, int32_t base, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		p[i] = base + (int32_t)i;
}

/* @b ran after @a ended. */
static void expect_after(struct __test_metadata *_metadata,
			 const struct pto_block_info *a,
			 const struct pto_block_info *b)
{
	EXPECT_LE(a->ts_end, b->ts_start)
		TH_LOG("ts_end %llu ts_start %llu",
		       (unsigned long long)a->ts_end,
		       (unsigned long long)b->ts_start);
}

#define EXPECT_AFTER(a, b) expect_after(_metadata, &(a), &(b))

TEST_F(infer, read_after_write_waits_for_the_writer)
{
	struct pto_block_info bi[2];
	uint64_t first;
	unsigned int j;

	fill(self->m[0], 100, N);
	/* A: buf1 = buf0 + 1, slowly; B: buf2 = buf1 + 1. */
	push_copy(_metadata, self, self->q, &(struct copy){
		  .src = 0, .dst = 1, .n = N, .sflags = IN, .dflags = OUT,
		  .add = 1, .spin = SLOW });
	push_copy(_metadata, self, self->q, &(struct copy){
		  .src = 1, .dst = 2, .n = N, .sflags = IN, .dflags = OUT,
		  .add = 1 });
	first = ring(_metadata, self->q, 2);
	reap(_metadata, self->q, first, 2, bi);
	EXPECT_AFTER(bi[0], bi[1]);
	for (j = 0; j < N; j++)
		EXPECT_EQ(102 + (int32_t)j, self->m[2][j]);
}

TEST_F(infer, write_after_read_waits_for_the_reader)
{
	struct pto_block_info bi[2];
	uint64_t first;
	unsigned int j;

	fill(self->m[0], 100, N);
	fill(self->m[2], 500, N);
	/* A: buf1 = buf0, slowly (loads after the wait); B: buf0 = buf2. */
	push_copy(_metadata, self, self->q, &(struct copy){
		  .src = 0, .dst = 1, .n = N, .sflags = IN, .dflags = OUT,
		  .spin = SLOW });
	push_copy(_metadata, self, self->q, &(struct copy){
		  .src = 2, .dst = 0, .n = N, .sflags = IN, .dflags = OUT });
	first = ring(_metadata, self->q, 2);
	reap(_metadata, self->q, first, 2, bi);
	EXPECT_AFTER(bi[0], bi[1]);
	for (j = 0; j < N; j++) {
		EXPECT_EQ(100 + (int32_t)j, self->m[1][j]);
		EXPECT_EQ(500 + (int32_t)j, self->m[0][j]);
	}
}

TEST_F(infer, write_after_write_keeps_the_last_value)
{
	struct pto_block_info bi[3];
	uint64_t first;
	unsigned int j;

	fill(self->m[0], 0, N);
	/* Three writers of buf1, the first the slowest: the last one wins. */
	push_copy(_metadata, self, self->q, &(struct copy){
		  .src = 0, .dst = 1, .n = N, .sflags = IN, .dflags = OUT,
		  .add = 10, .spin = SLOW });
	push_copy(_metadata, self, self->q, &(struct copy){
		  .src = 0, .dst = 1, .n = N, .sflags = IN, .dflags = OUT,
		  .add = 20, .spin = SLOW / 4 });
	push_copy(_metadata, self, self->q, &(struct copy){
		  .src = 0, .dst = 1, .n = N, .sflags = IN, .dflags = OUT,
		  .add = 30 });
	first = ring(_metadata, self->q, 3);
	reap(_metadata, self->q, first, 3, bi);
	EXPECT_AFTER(bi[0], bi[1]);
	EXPECT_AFTER(bi[1], bi[2]);
	for (j = 0; j < N; j++)
		EXPECT_EQ(30 + (int32_t)j, self->m[1][j]);
}

TEST_F(infer, inout_chain_runs_in_order)
{
	struct pto_block_info bi[8];
	uint64_t first;
	unsigned int i, j;

	fill(self->m[1], 0, N);
	/* buf1 += 1, eight times, INOUT (src and dst the same view). */
	for (i = 0; i < 8; i++)
		push_copy(_metadata, self, self->q, &(struct copy){
			  .src = 1, .dst = 1, .n = N, .sflags = IN | OUT,
			  .dflags = IN | OUT, .add = 1,
			  .spin = i % 2 ? SLOW / 8 : 0 });
	first = ring(_metadata, self->q, 8);
	reap(_metadata, self->q, first, 8, bi);
	for (i = 1; i < 8; i++)
		EXPECT_AFTER(bi[i - 1], bi[i]);
	for (j = 0; j < N; j++)
		EXPECT_EQ(8 + (int32_t)j, self->m[1][j]);
}

TEST_F(infer, partial_overlap_orders)
{
	struct pto_block_info bi[2];
	uint64_t first;
	unsigned int j;

	fill(self->m[0], 100, N);
	memset(self->m[1], 0, 4 * 2 * N);
	/* A writes buf1[0..N), B reads buf1[N-1..2N-1): one element shared. */
	push_copy(_metadata, self, self->q, &(struct copy){
		  .src = 0, .dst = 1, .n = N, .sflags = IN, .dflags = OUT,
		  .add = 1, .spin = SLOW });
	push_copy(_metadata, self, self->q, &(struct copy){
		  .src = 1, .so = N - 1, .dst = 2, .n = N, .sflags = IN,
		  .dflags = OUT });
	first = ring(_metadata, self->q, 2);
	reap(_metadata, self->q, first, 2, bi);
	EXPECT_AFTER(bi[0], bi[1]);
	EXPECT_EQ(100 + N, self->m[2][0]);
	for (j = 1; j < N; j++)
		EXPECT_EQ(0, self->m[2][j]);
}

TEST_F(infer, disjoint_ranges_run_concurrently)
{
	struct pto_block_info bi[2];
	uint64_t first;

	/* A writes buf1[0..N) slowly, B writes buf1[N..2N): no edge. */
	push_copy(_metadata, self, self->q, &(struct copy){
		  .src = 0, .dst = 1, .n = N, .sflags = IN, .dflags = OUT,
		  .spin = SLOW * 4 });
	push_copy(_metadata, self, self->q, &(struct copy){
		  .src = 0, .dst = 1, .dof = N, .n = N, .sflags = IN,
		  .dflags = OUT });
	first = ring(_metadata, self->q, 2);
	reap(_metadata, self->q, first, 2, bi);
	EXPECT_LT(bi[1].ts_start, bi[0].ts_end)
		TH_LOG("B started at %llu, after A ended at %llu: an edge?",
		       (unsigned long long)bi[1].ts_start,
		       (unsigned long long)bi[0].ts_end);
}

TEST_F(infer, undirected_tensors_are_not_inferred_from)
{
	struct pto_block_info bi[2];
	uint64_t first;

	/* Same ranges as a RAW, no directions: no edge, B does not wait. */
	push_copy(_metadata, self, self->q, &(struct copy){
		  .src = 0, .dst = 1, .n = N, .spin = SLOW * 4 });
	push_copy(_metadata, self, self->q, &(struct copy){
		  .src = 1, .dst = 2, .n = N });
	first = ring(_metadata, self->q, 2);
	reap(_metadata, self->q, first, 2, bi);
	EXPECT_LT(bi[1].ts_start, bi[0].ts_end);
}

TEST_F(infer, explicit_and_inferred_deps_add_up)
{
	struct pto_block_info bi[3];
	int64_t dep = -2;
	uint64_t first;
	unsigned int j;

	fill(self->m[0], 100, N);
	/*
	 * A: buf2[N..) = buf0 (slow, undirected: only the explicit dep orders
	 * C after it); B: buf1 = buf0 + 1 (slow); C reads buf1 (inferred
	 * from B) and names A.
	 */
	push_copy(_metadata, self, self->q, &(struct copy){
		  .src = 0, .dst = 2, .dof = 2 * N, .n = N, .spin = SLOW });
	push_copy(_metadata, self, self->q, &(struct copy){
		  .src = 0, .dst = 1, .n = N, .sflags = IN, .dflags = OUT,
		  .add = 1, .spin = SLOW / 2 });
	push_copy(_metadata, self, self->q, &(struct copy){
		  .src = 1, .dst = 2, .n = N, .sflags = IN, .dflags = OUT,
		  .add = 1, .deps = &dep, .nd = 1 });
	first = ring(_metadata, self->q, 3);
	reap(_metadata, self->q, first, 3, bi);
	EXPECT_AFTER(bi[0], bi[2]);
	EXPECT_AFTER(bi[1], bi[2]);
	for (j = 0; j < N; j++)
		EXPECT_EQ(102 + (int32_t)j, self->m[2][j]);
}

TEST_F(infer, explicit_dep_that_is_also_inferred_is_one_edge)
{
	struct pto_block_info bi[2];
	int64_t dep = -1;
	uint64_t first;
	unsigned int j;

	fill(self->m[0], 100, N);
	push_copy(_metadata, self, self->q, &(struct copy){
		  .src = 0, .dst = 1, .n = N, .sflags = IN, .dflags = OUT,
		  .add = 1, .spin = SLOW });
	push_copy(_metadata, self, self->q, &(struct copy){
		  .src = 1, .dst = 2, .n = N, .sflags = IN, .dflags = OUT,
		  .add = 1, .deps = &dep, .nd = 1 });
	first = ring(_metadata, self->q, 2);
	reap(_metadata, self->q, first, 2, bi);
	EXPECT_AFTER(bi[0], bi[1]);
	for (j = 0; j < N; j++)
		EXPECT_EQ(102 + (int32_t)j, self->m[2][j]);
}

TEST_F(infer, across_two_doorbells)
{
	struct pto_block_info bi[2];
	uint64_t first, second;
	unsigned int j;

	fill(self->m[0], 100, N);
	push_copy(_metadata, self, self->q, &(struct copy){
		  .src = 0, .dst = 1, .n = N, .sflags = IN, .dflags = OUT,
		  .add = 1, .spin = SLOW });
	first = ring(_metadata, self->q, 1);
	push_copy(_metadata, self, self->q, &(struct copy){
		  .src = 1, .dst = 2, .n = N, .sflags = IN, .dflags = OUT,
		  .add = 1 });
	second = ring(_metadata, self->q, 1);
	EXPECT_EQ(first + 1, second);
	reap(_metadata, self->q, first, 2, bi);
	EXPECT_AFTER(bi[0], bi[1]);
	for (j = 0; j < N; j++)
		EXPECT_EQ(102 + (int32_t)j, self->m[2][j]);
}

TEST_F(infer, across_two_queues_of_one_context)
{
	struct pto_block_info a, b;
	uint64_t first, second;
	unsigned int j;

	fill(self->m[0], 100, N);
	push_copy(_metadata, self, self->q, &(struct copy){
		  .src = 0, .dst = 1, .n = N, .sflags = IN, .dflags = OUT,
		  .add = 1, .spin = SLOW });
	first = ring(_metadata, self->q, 1);
	push_copy(_metadata, self, self->q2, &(struct copy){
		  .src = 1, .dst = 2, .n = N, .sflags = IN, .dflags = OUT,
		  .add = 1 });
	second = ring(_metadata, self->q2, 1);
	reap(_metadata, self->q2, second, 1, &b);
	reap(_metadata, self->q, first, 1, &a);
	EXPECT_AFTER(a, b);
	for (j = 0; j < N; j++)
		EXPECT_EQ(102 + (int32_t)j, self->m[2][j]);
}

TEST_F(infer, completed_producer_needs_no_edge)
{
	struct pto_block_info a, b;
	uint64_t first, second;
	unsigned int j;

	fill(self->m[0], 100, N);
	push_copy(_metadata, self, self->q, &(struct copy){
		  .src = 0, .dst = 1, .n = N, .sflags = IN, .dflags = OUT,
		  .add = 1 });
	first = ring(_metadata, self->q, 1);
	reap(_metadata, self->q, first, 1, &a);
	push_copy(_metadata, self, self->q, &(struct copy){
		  .src = 1, .dst = 2, .n = N, .sflags = IN, .dflags = OUT,
		  .add = 1 });
	second = ring(_metadata, self->q, 1);
	reap(_metadata, self->q, second, 1, &b);
	for (j = 0; j < N; j++)
		EXPECT_EQ(102 + (int32_t)j, self->m[2][j]);
}

/* Long chains of many buffers: the trees shrink back as tasks retire. */
TEST_F(infer, long_raw_chain_over_two_buffers)
{
	struct pto_cqe cqes[64];
	unsigned int i, done = 0;
	uint64_t first = 0, f;
	int got, k;

	self->m[0][0] = 0;
	for (i = 0; i < 1000; i++) {
		push_copy(_metadata, self, self->q, &(struct copy){
			  .src = i % 2, .dst = (i + 1) % 2, .n = 1,
			  .sflags = IN, .dflags = OUT, .add = 1 });
		if (i % 16 == 15) {
			f = ring(_metadata, self->q, 16);
			if (!first)
				first = f;
			got = pto_test_reap_lasts(self->q, cqes, 64, 16, RUN_TIMEOUT);
			ASSERT_LE(16, got);
			for (k = 0; k < got; k++)
				if (cqes[k].info.flags & PTO_BLOCK_LAST) {
					EXPECT_EQ(PTO_STATUS_OK, cqes[k].info.status);
					done++;
				}
		}
	}
	f = ring(_metadata, self->q, 1000 % 16);
	got = pto_test_reap_lasts(self->q, cqes, 64, 1000 % 16, RUN_TIMEOUT);
	ASSERT_LE(1000 % 16, got);
	EXPECT_EQ(1000, self->m[0][0]);
	(void)done;
	(void)f;
}

TEST_F(infer, unknown_tensor_flag_is_refused)
{
	struct drm_pto_npu_tensor_arg ta[2];
	int64_t s[3] = { 1, 0, 0 };
	struct pto_test_sqe e;
	struct pto_cqe cqes[8];
	const struct pto_cqe *l;
	uint64_t first;
	unsigned int bit;
	size_t bytes;
	int got;

	for (bit = 2; bit < 16; bit += 13) {
		ta[0] = pto_test_targ(self->h[0], PTO_ISA_I32, 0, 1, 1);
		ta[1] = pto_test_targ(self->h[1], PTO_ISA_I32, 0, 1, 1);
		ta[1].flags = OUT | (1U << bit);
		bytes = pto_test_sqe_init(&e, pto_kernel_handle(self->k_copy), 0,
					  1, ta, 2, s, 3, NULL, 0);
		ASSERT_EQ(0, pto_queue_push_raw(self->q, &e, bytes));
		/* And a good one after it runs. */
		ta[1].flags = OUT;
		bytes = pto_test_sqe_init(&e, pto_kernel_handle(self->k_copy), 0,
					  1, ta, 2, s, 3, NULL, 0);
		ASSERT_EQ(0, pto_queue_push_raw(self->q, &e, bytes));
		first = ring(_metadata, self->q, 2);
		got = pto_test_reap_lasts(self->q, cqes, 8, 2, RUN_TIMEOUT);
		ASSERT_LE(2, got);
		l = pto_test_find_last(cqes, got, first);
		ASSERT_NE(NULL, l);
		EXPECT_EQ(PTO_STATUS_INVALID, l->info.status);
		EXPECT_EQ(DRM_PTO_NPU_REASON_TENSOR_LAYOUT, l->info.reason);
		EXPECT_EQ(1U, l->info.detail);
		l = pto_test_find_last(cqes, got, first + 1);
		ASSERT_NE(NULL, l);
		EXPECT_EQ(PTO_STATUS_OK, l->info.status);
	}
}

TEST_F(infer, refused_writer_is_not_waited_for)
{
	struct drm_pto_npu_tensor_arg ta[2];
	int64_t s[3] = { N, 1, 0 };
	struct pto_block_info bi;
	struct pto_cqe cqes[8];
	struct pto_test_sqe e;
	uint64_t first;
	size_t bytes;
	int got;

	/* A refused (bad dtype for its kernel) writer of buf1, then a reader. */
	ta[0] = pto_test_targ(self->h[0], PTO_ISA_I32, 0, 1, N);
	ta[0].flags = IN;
	ta[1] = pto_test_targ(self->h[1], PTO_ISA_I32, 0, 1, N);
	ta[1].flags = OUT;
	bytes = pto_test_sqe_init(&e, pto_kernel_handle(self->k_copy), 0, 1,
				  ta, 2, s, 3, NULL, 0);
	e.hdr.reserved[0] = 1;
	ASSERT_EQ(0, pto_queue_push_raw(self->q, &e, bytes));
	first = ring(_metadata, self->q, 1);
	got = pto_test_reap_lasts(self->q, cqes, 8, 1, RUN_TIMEOUT);
	ASSERT_LE(1, got);
	EXPECT_EQ(PTO_STATUS_INVALID, pto_test_find_last(cqes, got, first)->info.status);
	push_copy(_metadata, self, self->q, &(struct copy){
		  .src = 1, .dst = 2, .n = N, .sflags = IN, .dflags = OUT });
	first = ring(_metadata, self->q, 1);
	reap(_metadata, self->q, first, 1, &bi);
}

/* ------------------------------------------------------------ sanitizer */

/* A queue with DRM_PTO_NPU_QUEUE_F_SANITIZE, created and mapped raw. */
struct san_queue {
	struct drm_pto_npu_queue_create c;
	uint8_t *map;
	struct drm_pto_npu_ring_header *hdr;
	uint32_t seen;
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

static void san_push(struct san_queue *sq, const struct pto_test_sqe *e,
		     size_t bytes)
{
	uint32_t tail = sq->hdr->sq_tail, n = bytes / DRM_PTO_NPU_SQ_SLOT_SIZE, i;

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

/* The LAST CQE of task @id (waiting for it) and its hazard record. */
static const struct drm_pto_npu_cqe *
san_last(struct __test_metadata *_metadata, int fd, struct san_queue *sq,
	 uint64_t id, const struct drm_pto_npu_hazard **haz)
{
	int64_t deadline = pto_test_now_ns() + RUN_TIMEOUT;

	for (;;) {
		uint32_t tail = __atomic_load_n(&sq->hdr->cq_tail, __ATOMIC_ACQUIRE), i;
		struct drm_pto_npu_queue_wait w = {
			.queue_id = sq->c.queue_id,
			.timeout_ns = pto_test_now_ns() + PTO_TEST_MSEC(100),
		};

		for (i = 0; i < tail; i++) {
			uint32_t at = i & (sq->c.cq_entries - 1);
			const struct drm_pto_npu_cqe *c = (const void *)
				(sq->map + sq->c.cq_offset + at * sizeof(*c));

			if (c->task_id == id && (c->flags & DRM_PTO_NPU_CQE_F_LAST)) {
				*haz = (const void *)(sq->map + sq->c.haz_offset +
						      at * sq->c.haz_size);
				return c;
			}
		}
		if (pto_test_now_ns() > deadline) {
			EXPECT_TRUE(0) TH_LOG("no completion of task %llu",
					      (unsigned long long)id);
			return NULL;
		}
		drmIoctl(fd, DRM_IOCTL_PTO_NPU_QUEUE_WAIT, &w);
	}
}

/* A copy entry (struct copy) with an optional third tensor and predicate. */
static size_t san_copy(FIXTURE_DATA(infer) *self, struct pto_test_sqe *e,
		       const struct copy *c, int pred_buf,
		       const struct drm_pto_npu_predicate *p, uint8_t pflags)
{
	struct drm_pto_npu_tensor_arg ta[3];
	int64_t s[3] = { c->n, c->add, c->spin };

	ta[0] = pto_test_targ(self->h[c->src], PTO_ISA_I32, c->so * 4, 1, c->n);
	ta[0].flags = c->sflags;
	ta[1] = pto_test_targ(self->h[c->dst], PTO_ISA_I32, c->dof * 4, 1, c->n);
	ta[1].flags = c->dflags;
	if (pred_buf >= 0) {
		ta[2] = pto_test_targ(self->h[pred_buf], PTO_ISA_I32, 0, 1, 4);
		ta[2].flags = pflags;
	}
	return pto_test_sqe_init_pred(e, pto_kernel_handle(self->k_copy), 0, 1,
				      ta, pred_buf >= 0 ? 3 : 2, s, 3, c->deps,
				      c->nd, p);
}

/*
 * A writes buf1 slowly (OUT, unless @a_undirected), B reads it; B names
 * no dependency and, unless @dirs, has no direction: a RACE found at B's
 * intake. Two views without a direction are not checked (what a kernel
 * may address, not what it does): no report then either.
 */
static void race_case(struct __test_metadata *_metadata,
		      FIXTURE_DATA(infer) *self, bool dirs, bool dep,
		      bool a_undirected)
{
	int fd = pto_device_fd(self->dev);
	const struct drm_pto_npu_hazard *h;
	const struct drm_pto_npu_cqe *l;
	struct pto_test_sqe e;
	struct san_queue sq;
	int64_t d = -1;
	uint64_t first;
	size_t bytes;
	unsigned int j;

	ASSERT_EQ(0, san_open(fd, &sq));
	fill(self->m[0], 100, N);
	bytes = san_copy(self, &e, &(struct copy){
			 .src = 0, .dst = 1, .n = N, .add = 1, .spin = SLOW,
			 .sflags = a_undirected ? 0 : IN,
			 .dflags = a_undirected ? 0 : OUT },
			 -1, NULL, 0);
	san_push(&sq, &e, bytes);
	bytes = san_copy(self, &e, &(struct copy){
			 .src = 1, .so = 2, .dst = 2, .n = 4, .add = 1,
			 .sflags = dirs ? IN : 0, .dflags = dirs ? OUT : 0,
			 .deps = dep ? &d : NULL, .nd = dep ? 1 : 0 },
			 -1, NULL, 0);
	san_push(&sq, &e, bytes);
	first = san_ring(_metadata, fd, &sq, 2);
	l = san_last(_metadata, fd, &sq, first, &h);
	ASSERT_NE(NULL, l);
	EXPECT_EQ(0U, l->flags & DRM_PTO_NPU_CQE_F_HAZARD);
	l = san_last(_metadata, fd, &sq, first + 1, &h);
	ASSERT_NE(NULL, l);
	EXPECT_EQ(DRM_PTO_NPU_STATUS_OK, l->status);
	if (dirs || dep || a_undirected) {
		EXPECT_EQ(0U, l->flags & DRM_PTO_NPU_CQE_F_HAZARD)
			TH_LOG("kind %u other_task %llu", h->kind,
			       (unsigned long long)h->other_task);
		for (j = 0; !a_undirected && j < 4; j++)
			EXPECT_EQ(104 + (int32_t)j, self->m[2][j]);
		return;
	}
	ASSERT_NE(0U, l->flags & DRM_PTO_NPU_CQE_F_HAZARD);
	EXPECT_EQ((uint32_t)DRM_PTO_NPU_HAZARD_RACE, h->kind);
	EXPECT_EQ(1U, h->count);
	EXPECT_EQ(0U, h->pc);
	EXPECT_EQ(0U, h->tensor);
	EXPECT_EQ(0U, h->elem);
	EXPECT_EQ(first, h->other_task);
	EXPECT_EQ(1U, h->other_tensor);
	EXPECT_EQ(0U, h->other_pc);
}

TEST_F(infer, sanitizer_reports_race_at_intake)
{
	race_case(_metadata, self, false, false, false);
}

TEST_F(infer, sanitizer_race_fixed_by_directions)
{
	race_case(_metadata, self, true, false, false);
}

TEST_F(infer, sanitizer_race_fixed_by_a_named_dependency)
{
	race_case(_metadata, self, false, true, false);
}

TEST_F(infer, sanitizer_does_not_check_two_undirected_views)
{
	race_case(_metadata, self, false, false, true);
}

/*
 * A writes buf1[0] slowly; B (copying elsewhere) is predicated on buf1[0]
 * (its tensor 2, which its kernel never touches) without naming A: a
 * PREDICATE hazard, unless the operand is IN (inferred) or A is named.
 */
static void predicate_case(struct __test_metadata *_metadata,
			   FIXTURE_DATA(infer) *self, uint8_t pflags, bool dep)
{
	struct drm_pto_npu_predicate p = { .tensor = 2, .op = PTO_CMP_GT,
					   .row = 0, .col = 1, .literal = 0 };
	int fd = pto_device_fd(self->dev);
	const struct drm_pto_npu_hazard *h;
	const struct drm_pto_npu_cqe *l;
	struct pto_test_sqe e;
	struct san_queue sq;
	int64_t d = -1;
	uint64_t first;
	size_t bytes;

	ASSERT_EQ(0, san_open(fd, &sq));
	fill(self->m[0], 100, N);
	bytes = san_copy(self, &e, &(struct copy){
			 .src = 0, .dst = 1, .n = 4, .add = 1, .spin = SLOW,
			 .dflags = pflags ? OUT : 0 }, -1, NULL, 0);
	san_push(&sq, &e, bytes);
	bytes = san_copy(self, &e, &(struct copy){
			 .src = 0, .dst = 2, .n = 4,
			 .deps = dep ? &d : NULL, .nd = dep ? 1 : 0 },
			 1, &p, pflags);
	san_push(&sq, &e, bytes);
	first = san_ring(_metadata, fd, &sq, 2);
	l = san_last(_metadata, fd, &sq, first + 1, &h);
	ASSERT_NE(NULL, l);
	if (pflags || dep) {
		EXPECT_EQ(DRM_PTO_NPU_STATUS_OK, l->status);
		EXPECT_EQ(0U, l->flags & DRM_PTO_NPU_CQE_F_HAZARD)
			TH_LOG("kind %u other_task %llu", h->kind,
			       (unsigned long long)h->other_task);
		return;
	}
	ASSERT_NE(0U, l->flags & DRM_PTO_NPU_CQE_F_HAZARD);
	EXPECT_EQ((uint32_t)DRM_PTO_NPU_HAZARD_PREDICATE, h->kind);
	EXPECT_EQ(1U, h->count);
	EXPECT_EQ(2U, h->tensor);
	EXPECT_EQ(1U, h->elem);
	EXPECT_EQ(first, h->other_task);
	EXPECT_EQ(1U, h->other_tensor);
	san_last(_metadata, fd, &sq, first, &h);
}

TEST_F(infer, sanitizer_reports_unordered_predicate_writer)
{
	predicate_case(_metadata, self, 0, false);
}

TEST_F(infer, sanitizer_predicate_fixed_by_direction)
{
	predicate_case(_metadata, self, IN, false);
}

TEST_F(infer, sanitizer_predicate_fixed_by_a_named_dependency)
{
	predicate_case(_metadata, self, 0, true);
}

/*
 * The same RACE through the graph API: A (slow) writes t1 OUT, B reads t1
 * and names no dependency. Without a direction on B's view the device
 * reports it with B's completion (pto_graph_hazard()); with IN on it the
 * edge is inferred (by libpto's graph and the device) and nothing is.
 */
static void graph_race(struct __test_metadata *_metadata,
		       FIXTURE_DATA(infer) *self, bool dir)
{
	struct pto_queue_params p = { .flags = PTO_QUEUE_SANITIZE,
				      .work_budget = PTO_TEST_LONG_BUDGET };
	static const uint8_t da[2] = { PTO_ARG_IN, PTO_ARG_OUT };
	const uint8_t db[2] = { dir ? PTO_ARG_IN : 0, dir ? PTO_ARG_OUT : 0 };
	int64_t sa[3] = { N, 1, SLOW }, sb[3] = { 4, 1, 0 };
	struct pto_tensor *t[3], *ta[2], *tb[2];
	struct pto_hazard h;
	struct pto_graph *g;
	struct pto_queue *q;
	unsigned int task, i;
	int32_t *p0, *p2;
	char text[400];

	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I32, 1, N,
					       &t[i]));
	p0 = pto_tensor_data(t[0]);
	p2 = pto_tensor_data(t[2]);
	fill(p0, 100, N);
	ta[0] = t[0];
	ta[1] = t[1];
	tb[0] = t[1];
	tb[1] = t[2];
	ASSERT_EQ(0, pto_queue_create_params(self->dev, &p, &q));
	ASSERT_EQ(0, pto_graph_new(self->dev, &g));
	ASSERT_EQ(0, pto_graph_add_task(g, &(struct pto_task_desc){
		.kernel_aiv = self->k_copy, .block_num = 1, .tensors = ta,
		.num_tensors = 2, .tensor_dirs = da, .scalars = sa,
		.num_scalars = 3 })) TH_LOG("%s", pto_graph_error(g));
	ASSERT_EQ(1, pto_graph_add_task(g, &(struct pto_task_desc){
		.kernel_aiv = self->k_copy, .block_num = 1, .tensors = tb,
		.num_tensors = 2, .tensor_dirs = dir ? db : NULL,
		.scalars = sb, .num_scalars = 3 })) TH_LOG("%s",
							   pto_graph_error(g));
	ASSERT_EQ(0, pto_graph_run(g, q, PTO_TEST_SEC(60)))
		TH_LOG("%s", pto_graph_error(g));
	if (dir) {
		EXPECT_EQ(0, (int)pto_graph_hazard_count(g));
		for (i = 0; i < 4; i++)
			EXPECT_EQ(102 + (int32_t)i, p2[i]);
	} else {
		ASSERT_EQ(1, (int)pto_graph_hazard_count(g));
		ASSERT_EQ(0, pto_graph_hazard(g, 0, &task, NULL, &h));
		EXPECT_EQ(1, (int)task);
		EXPECT_EQ(PTO_HAZARD_RACE, (int)h.kind);
		EXPECT_EQ(0, (int)h.tensor);
		EXPECT_EQ(0, (int)h.elem);
		EXPECT_EQ(pto_graph_task_id(g, 0), h.other_task);
		EXPECT_EQ(1, (int)h.other_tensor);
		ASSERT_LT(0, pto_graph_hazard_str(g, 0, text, sizeof(text)));
		EXPECT_NE(NULL, strstr(text, "RACE")) TH_LOG("%s", text);
		TH_LOG("%s", text);
	}
	pto_graph_free(g);
	pto_queue_destroy(q);
	for (i = 0; i < 3; i++)
		pto_tensor_free(t[i]);
}

TEST_F(infer, graph_reports_race)
{
	graph_race(_metadata, self, false);
}

TEST_F(infer, graph_race_fixed_by_directions)
{
	graph_race(_metadata, self, true);
}

TEST_HARNESS_MAIN
