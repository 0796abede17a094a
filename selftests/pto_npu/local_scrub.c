// SPDX-License-Identifier: GPL-2.0-only
/*
 * A core's local memory never shows one context's data to another: when a
 * core changes hands the module clears what the units since the last clear
 * may have written (their kernels' tiles, the ring of a mixed task), and
 * that high-water mark grows with every unit of the owning context. Here
 * context A fills a core's whole UB (and an AIC's L0C), then runs a kernel
 * with one small tile; context B then reads a tile placed past A's small
 * one without writing it, on every core: it must read zeros.
 *
 * Copyright (C) 2026 pto-npu authors
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define PTO_TEST_LIBPTO
#include "pto_test.h"

#define RUN_TIMEOUT_NS PTO_TEST_SEC(60)
#define PATTERN 0x5a5a5a5a
/* B's tiles: two of 8 x 1024 i32 (32 KiB each) back to back. */
#define B_ROWS 8
#define B_COLS 1024

FIXTURE(scrub)
{
	struct pto_device *a, *b;
	struct pto_queue *qa, *qb;
	struct pto_device_info info;
	char err[256];
};

FIXTURE_SETUP(scrub)
{
	ASSERT_EQ(0, pto_test_dev_open(&self->a));
	ASSERT_EQ(0, pto_test_dev_open(&self->b));
	ASSERT_EQ(0, pto_test_queue_long(self->a, 0, 0, &self->qa));
	ASSERT_EQ(0, pto_test_queue_long(self->b, 0, 0, &self->qb));
	ASSERT_EQ(0, pto_device_query_info(self->a, &self->info));
}

FIXTURE_TEARDOWN(scrub)
{
	pto_queue_destroy(self->qa);
	pto_queue_destroy(self->qb);
	pto_device_close(self->a);
	pto_device_close(self->b);
}

/* A kernel of @type that fills one @rows x @cols i32 tile in @buf. */
static struct pto_kernel *fill_kernel(struct pto_device *dev,
				      enum pto_core_type type,
				      enum pto_local_buf buf, uint32_t rows,
				      uint32_t cols, char *err, size_t len)
{
	struct pto_kb *kb;
	int t;

	if (pto_kb_new(dev, type, &kb))
		return NULL;
	if (buf == PTO_BUF_L0C) {
		/* L1 and L0A, L0B lie before L0C: fill them too. */
		pto_kb_tfilli(kb, pto_kb_tile(kb, PTO_DTYPE_I32, PTO_BUF_L1, 8, 16), PATTERN);
	}
	t = pto_kb_tile(kb, PTO_DTYPE_I32, buf, rows, cols);
	pto_kb_tfilli(kb, t, PATTERN);
	pto_kb_end(kb);
	return pto_test_kb_finish(kb, err, len);
}

static void run_all(struct __test_metadata *_metadata, struct pto_queue *q,
		    struct pto_kernel *k, bool aic, uint32_t blocks,
		    struct pto_tensor *out)
{
	struct pto_task_desc d = { .block_num = blocks };
	struct pto_cqe *cqes = calloc(blocks + 4, sizeof(*cqes));
	int n, i;

	ASSERT_NE(NULL, cqes);
	if (aic)
		d.kernel_aic = k;
	else
		d.kernel_aiv = k;
	if (out) {
		d.tensors = &out;
		d.num_tensors = 1;
	}
	n = pto_test_submit_one(q, &d, cqes, blocks + 4, RUN_TIMEOUT_NS, NULL);
	ASSERT_EQ((int)blocks, n);
	for (i = 0; i < n; i++)
		EXPECT_EQ(PTO_STATUS_OK, cqes[i].info.status);
	free(cqes);
}

/*
 * B: two tiles in @buf; stores the second, never written, to its rows of
 * @out (block b at rows b * B_ROWS).
 */
static struct pto_kernel *peek_kernel(struct pto_device *dev,
				      enum pto_core_type type,
				      enum pto_local_buf buf, char *err,
				      size_t len)
{
	struct pto_kb *kb;
	int t;

	if (pto_kb_new(dev, type, &kb))
		return NULL;
	pto_kb_tile(kb, PTO_DTYPE_I32, buf, B_ROWS, B_COLS);
	t = pto_kb_tile(kb, PTO_DTYPE_I32, buf, B_ROWS, B_COLS);
	pto_kb_sreg(kb, 1, PTO_SREG_BLOCK_IDX);
	pto_kb_alui(kb, PTO_ALU_MUL, 1, 1, B_ROWS);
	pto_kb_ldi(kb, 2, 0);
	pto_kb_tstore(kb, t, 0, 1, 2);
	pto_kb_end(kb);
	return pto_test_kb_finish(kb, err, len);
}

static void check_no_leftovers(struct __test_metadata *_metadata,
			       FIXTURE_DATA(scrub) *self,
			       enum pto_core_type type, enum pto_local_buf buf,
			       uint32_t big_rows, uint32_t big_cols,
			       uint32_t cores)
{
	bool aic = type == PTO_CORE_AIC;
	struct pto_kernel *big, *small, *peek;
	struct pto_tensor *out;
	const int32_t *v;
	size_t i, n = (size_t)cores * B_ROWS * B_COLS, bad = 0;

	big = fill_kernel(self->a, type, buf, big_rows, big_cols, self->err,
			  sizeof(self->err));
	ASSERT_NE(NULL, big) TH_LOG("%s", self->err);
	small = fill_kernel(self->a, type, buf, 1, 16, self->err, sizeof(self->err));
	ASSERT_NE(NULL, small) TH_LOG("%s", self->err);
	peek = peek_kernel(self->b, type, buf, self->err, sizeof(self->err));
	ASSERT_NE(NULL, peek) TH_LOG("%s", self->err);
	ASSERT_EQ(0, pto_test_tensor2d(self->b, PTO_DTYPE_I32, cores * B_ROWS,
				       B_COLS, &out));
	memset(pto_tensor_data(out), 0xff, n * sizeof(int32_t));

	/* A: every core of the type, twice; its last unit writes 64 bytes. */
	run_all(_metadata, self->qa, big, aic, cores, NULL);
	run_all(_metadata, self->qa, small, aic, cores, NULL);
	/* B on the same cores: its second tile lies past A's small one. */
	run_all(_metadata, self->qb, peek, aic, cores, out);
	v = pto_tensor_data(out);
	for (i = 0; i < n; i++)
		bad += v[i] != 0;
	EXPECT_EQ(0u, bad) TH_LOG("%zu of %zu words not zero; first: 0x%x", bad, n,
				  (unsigned int)v[0]);
	pto_tensor_free(out);
	pto_kernel_free(peek);
	pto_kernel_free(small);
	pto_kernel_free(big);
}

TEST_F(scrub, aiv_ub_of_another_context_reads_zero)
{
	/* 48 x 1024 i32: 192 KiB, the whole default UB. */
	check_no_leftovers(_metadata, self, PTO_CORE_AIV, PTO_BUF_UB, 48, 1024,
			   self->info.aiv_cores);
}

TEST_F(scrub, aic_buffers_of_another_context_read_zero)
{
	/* B's tiles sit in L0C; A fills L1 and the whole L0C (128 KiB). */
	check_no_leftovers(_metadata, self, PTO_CORE_AIC, PTO_BUF_L0C, 32, 1024,
			   self->info.aic_cores);
}

TEST_HARNESS_MAIN
