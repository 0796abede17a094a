// SPDX-License-Identifier: GPL-2.0-only
/*
 * End-to-end results of every class of operation against a CPU reference
 * computed here: elementwise f32 (tile-tile and tile-scalar), unary ops,
 * row reductions, casts, integer tile ops, matmul, scalar GM access and
 * atomics, the scalar ALU with its faults, loops and branches, the SPMD
 * special registers and per-block timestamps, GM faults with their detail
 * and the dependants they fail, and loop count faults.
 *
 * Copyright (C) 2026 pto-npu authors
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PTO_TEST_LIBPTO
#include "pto_test.h"

/* How long one graph of these tests may run. */
#define RUN_TIMEOUT_NS PTO_TEST_SEC(60)

/* Shape of the f32 tiles of the elementwise tests. */
/* 15 x 63: the element count is not a multiple of the device's SIMD width. */
#define EW_ROWS 15
#define EW_COLS 63
#define EW_N (EW_ROWS * EW_COLS)

/* The scalar of the tile-scalar tests. */
#define EW_SCALAR (-2.75f)

static uint32_t f2u(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

/* Bit-for-bit equality, any NaN equal to any NaN. */
static int same_f32(float a, float b)
{
	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b);
	return f2u(a) == f2u(b);
}

/* Deterministic f32 inputs in about [-37, 37], never 0, with two NaNs. */
static void fill_a(float *a, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		a[i] = (float)((int)((i * 37) % 201) - 100) * 0.37f + 0.11f;
	a[5] = NAN;
	a[n - 3] = INFINITY;
}

static void fill_b(float *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = (float)((int)((i * 53) % 157) - 78) * 0.53f + 0.07f;
	b[9] = NAN;
	b[17] = 0.0f;
	b[18] = -0.0f;
}

/* The documented f32 semantics of TBIN/TBINS. */
static float ref_bin(int op, float a, float b)
{
	switch (op) {
	case PTO_TBIN_ADD:
		return a + b;
	case PTO_TBIN_SUB:
		return a - b;
	case PTO_TBIN_MUL:
		return a * b;
	case PTO_TBIN_DIV:
		return a / b;
	case PTO_TBIN_MAX:
		return a > b ? a : b;
	case PTO_TBIN_MIN:
		return a < b ? a : b;
	}
	return 0.0f;
}

/* Runs one task as a graph; returns its status, or -1000 - errno. */
static int run_one(struct pto_device *dev, struct pto_queue *q,
		   const struct pto_task_desc *d, uint64_t *detail,
		   char *err, size_t len)
{
	struct pto_graph *g;
	int ret, st;

	if (detail)
		*detail = 0;
	err[0] = '\0';
	ret = pto_graph_new(dev, &g);
	if (ret)
		return -1000 + ret;
	ret = pto_graph_add_task(g, d);
	if (ret < 0) {
		snprintf(err, len, "add: %s", pto_graph_error(g));
		pto_graph_free(g);
		return -1000 + ret;
	}
	ret = pto_graph_run(g, q, RUN_TIMEOUT_NS);
	if (ret && ret != -EIO) {
		snprintf(err, len, "run: %s", pto_graph_error(g));
		pto_graph_free(g);
		return -1000 + ret;
	}
	st = pto_graph_task_status(g, 0, NULL, detail);
	if (st)
		pto_graph_first_error(g, err, len);
	pto_graph_free(g);
	return st;
}

#define KERNEL(k, kb) do { \
	char __err[256]; \
	(k) = pto_test_kb_finish((kb), __err, sizeof(__err)); \
	ASSERT_NE(NULL, (k)) TH_LOG("kernel: %s", __err); \
} while (0)

/* Runs @desc and asserts it ends with @want. */
#define RUN_EXPECT(want, desc) do { \
	char __err[256]; \
	int __st = run_one(self->dev, self->q, (desc), NULL, __err, sizeof(__err)); \
	ASSERT_EQ((want), __st) TH_LOG("%s", __err); \
} while (0)

/* ------------------------------------------------------------------ elementwise */

FIXTURE(ew)
{
	struct pto_device *dev;
	struct pto_queue *q;
};

FIXTURE_VARIANT(ew)
{
	int op;
	bool scalar;
};

FIXTURE_VARIANT_ADD(ew, add) { .op = PTO_TBIN_ADD };
FIXTURE_VARIANT_ADD(ew, sub) { .op = PTO_TBIN_SUB };
FIXTURE_VARIANT_ADD(ew, mul) { .op = PTO_TBIN_MUL };
FIXTURE_VARIANT_ADD(ew, div) { .op = PTO_TBIN_DIV };
FIXTURE_VARIANT_ADD(ew, max) { .op = PTO_TBIN_MAX };
FIXTURE_VARIANT_ADD(ew, min) { .op = PTO_TBIN_MIN };
FIXTURE_VARIANT_ADD(ew, add_scalar) { .op = PTO_TBIN_ADD, .scalar = true };
FIXTURE_VARIANT_ADD(ew, sub_scalar) { .op = PTO_TBIN_SUB, .scalar = true };
FIXTURE_VARIANT_ADD(ew, mul_scalar) { .op = PTO_TBIN_MUL, .scalar = true };
FIXTURE_VARIANT_ADD(ew, div_scalar) { .op = PTO_TBIN_DIV, .scalar = true };
FIXTURE_VARIANT_ADD(ew, max_scalar) { .op = PTO_TBIN_MAX, .scalar = true };
FIXTURE_VARIANT_ADD(ew, min_scalar) { .op = PTO_TBIN_MIN, .scalar = true };

FIXTURE_SETUP(ew)
{
	ASSERT_EQ(0, pto_test_dev_open(&self->dev));
	ASSERT_EQ(0, pto_queue_create(self->dev, 0, 0, &self->q));
}

FIXTURE_TEARDOWN(ew)
{
	pto_device_close(self->dev);
}

TEST_F(ew, f32_matches_cpu_bit_for_bit)
{
	struct pto_tensor *a, *b, *c, *args[3];
	struct pto_kernel *k;
	struct pto_kb *kb;
	float *pa, *pb, *pc;
	int ta, tb, tc, i, bad = 0;

	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_F32, EW_ROWS, EW_COLS, &a));
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_F32, EW_ROWS, EW_COLS, &b));
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_F32, EW_ROWS, EW_COLS, &c));
	pa = pto_tensor_data(a);
	pb = pto_tensor_data(b);
	pc = pto_tensor_data(c);
	fill_a(pa, EW_N);
	fill_b(pb, EW_N);
	args[0] = a;
	args[1] = b;
	args[2] = c;

	ASSERT_EQ(0, pto_kb_new(self->dev, PTO_CORE_AIV, &kb));
	ta = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, EW_ROWS, EW_COLS);
	tb = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, EW_ROWS, EW_COLS);
	tc = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, EW_ROWS, EW_COLS);
	pto_kb_ldi(kb, 0, 0);
	pto_kb_tload(kb, ta, 0, 0, 0);
	if (variant->scalar) {
		pto_kb_tbinsf(kb, variant->op, tc, ta, EW_SCALAR);
	} else {
		pto_kb_tload(kb, tb, 1, 0, 0);
		pto_kb_tbin(kb, variant->op, tc, ta, tb);
	}
	pto_kb_tstore(kb, tc, 2, 0, 0);
	pto_kb_end(kb);
	KERNEL(k, kb);

	RUN_EXPECT(PTO_STATUS_OK, (&(struct pto_task_desc){
		.kernel_aiv = k, .block_num = 1, .tensors = args,
		.num_tensors = 3 }));
	for (i = 0; i < EW_N; i++) {
		float want = ref_bin(variant->op, pa[i],
				     variant->scalar ? EW_SCALAR : pb[i]);

		if (!same_f32(want, pc[i]) && bad++ < 5)
			TH_LOG("[%d] %a op %a: got %a (0x%08x), want %a (0x%08x)",
			       i, pa[i], variant->scalar ? EW_SCALAR : pb[i],
			       pc[i], f2u(pc[i]), want, f2u(want));
	}
	EXPECT_EQ(0, bad);
}

/* ------------------------------------------------------------------ the rest */

FIXTURE(run)
{
	struct pto_device *dev;
	struct pto_queue *q;
	struct pto_device_info info;
};

FIXTURE_SETUP(run)
{
	ASSERT_EQ(0, pto_test_dev_open(&self->dev));
	ASSERT_EQ(0, pto_queue_create(self->dev, 0, 0, &self->q));
	ASSERT_EQ(0, pto_device_query_info(self->dev, &self->info));
}

FIXTURE_TEARDOWN(run)
{
	pto_device_close(self->dev);
}

TEST_F(run, tile_scalar_from_register_matches_cpu)
{
	struct pto_tensor *a, *c, *args[2];
	struct pto_kernel *k;
	struct pto_kb *kb;
	float *pa, *pc, s = 1.0f / 3.0f;
	int64_t scalar = f2u(s);
	int ta, tc, i, bad = 0;

	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_F32, EW_ROWS, EW_COLS, &a));
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_F32, EW_ROWS, EW_COLS, &c));
	pa = pto_tensor_data(a);
	pc = pto_tensor_data(c);
	fill_a(pa, EW_N);
	args[0] = a;
	args[1] = c;

	/* The scalar (f32 bits) comes from a task argument through s3. */
	ASSERT_EQ(0, pto_kb_new(self->dev, PTO_CORE_AIV, &kb));
	ta = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, EW_ROWS, EW_COLS);
	tc = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, EW_ROWS, EW_COLS);
	pto_kb_ldi(kb, 0, 0);
	pto_kb_arg(kb, 3, 0);
	pto_kb_tload(kb, ta, 0, 0, 0);
	pto_kb_tbins(kb, PTO_TBIN_MUL, tc, ta, 3);
	pto_kb_tstore(kb, tc, 1, 0, 0);
	pto_kb_end(kb);
	KERNEL(k, kb);
	RUN_EXPECT(PTO_STATUS_OK, (&(struct pto_task_desc){
		.kernel_aiv = k, .block_num = 1, .tensors = args,
		.num_tensors = 2, .scalars = &scalar, .num_scalars = 1 }));
	for (i = 0; i < EW_N; i++)
		if (!same_f32(pa[i] * s, pc[i]) && bad++ < 5)
			TH_LOG("[%d] %a * %a: got %a", i, pa[i], s, pc[i]);
	EXPECT_EQ(0, bad);
}

/* Runs TUNARY @op over @n inputs (n <= EW_N); results in @out. */
static int run_unary(struct __test_metadata *_metadata,
		     struct pto_device *dev, struct pto_queue *q, int op,
		     const float *in, float *out, int n)
{
	struct pto_tensor *a, *c, *args[2];
	struct pto_kernel *k;
	struct pto_kb *kb;
	char err[256];
	int ta, tc, st;

	ASSERT_EQ(0, pto_test_tensor2d(dev, PTO_DTYPE_F32, 1, n, &a));
	ASSERT_EQ(0, pto_test_tensor2d(dev, PTO_DTYPE_F32, 1, n, &c));
	memcpy(pto_tensor_data(a), in, n * sizeof(float));
	args[0] = a;
	args[1] = c;
	ASSERT_EQ(0, pto_kb_new(dev, PTO_CORE_AIV, &kb));
	ta = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, 1, n);
	tc = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, 1, n);
	pto_kb_ldi(kb, 0, 0);
	pto_kb_tload(kb, ta, 0, 0, 0);
	pto_kb_tunary(kb, op, tc, ta);
	pto_kb_tstore(kb, tc, 1, 0, 0);
	pto_kb_end(kb);
	k = pto_test_kb_finish(kb, err, sizeof(err));
	ASSERT_NE(NULL, k) TH_LOG("kernel: %s", err);
	st = run_one(dev, q, &(struct pto_task_desc){
		.kernel_aiv = k, .block_num = 1, .tensors = args,
		.num_tensors = 2 }, NULL, err, sizeof(err));
	ASSERT_EQ(PTO_STATUS_OK, st) TH_LOG("%s", err);
	memcpy(out, pto_tensor_data(c), n * sizeof(float));
	pto_kernel_free(k);
	pto_tensor_free(a);
	pto_tensor_free(c);
	return 0;
}

TEST_F(run, exp_within_rel_1e6)
{
	float in[EW_N], out[EW_N];
	int i, bad = 0;

	for (i = 0; i < EW_N; i++)
		in[i] = -10.0f + 20.0f * (float)i / EW_N;
	in[0] = 0.0f;
	in[1] = 1.0f;
	in[2] = 100.0f;		/* overflows: +inf */
	in[3] = -200.0f;	/* underflows: +0 */
	in[4] = NAN;
	run_unary(_metadata, self->dev, self->q, PTO_TUNARY_EXP, in, out, EW_N);
	EXPECT_EQ(1.0f, out[0]);
	EXPECT_TRUE(isinf(out[2]) && out[2] > 0);
	EXPECT_EQ(0u, f2u(out[3]));
	EXPECT_TRUE(isnan(out[4]));
	for (i = 5; i < EW_N; i++) {
		double want = exp((double)in[i]);

		if (fabs(out[i] - want) > 1e-6 * want && bad++ < 5)
			TH_LOG("exp(%a) = %.9g, want %.9g", in[i], out[i], want);
	}
	EXPECT_EQ(0, bad);
	EXPECT_LE(fabs(out[1] - M_E), 1e-6 * M_E);
}

TEST_F(run, sqrt_correctly_rounded)
{
	float in[EW_N], out[EW_N];
	int i, bad = 0;

	for (i = 0; i < EW_N; i++)
		in[i] = (float)i * 0.731f + (float)(i % 7) * 1e-3f;
	in[1] = 2.0f;
	in[2] = 1e-30f;
	in[3] = 1e30f;
	in[4] = -1.0f;
	in[5] = INFINITY;
	run_unary(_metadata, self->dev, self->q, PTO_TUNARY_SQRT, in, out, EW_N);
	EXPECT_TRUE(isnan(out[4]));
	for (i = 0; i < EW_N; i++) {
		if (i == 4)
			continue;
		if (!same_f32(sqrtf(in[i]), out[i]) && bad++ < 5)
			TH_LOG("sqrt(%a) = %a, want %a", in[i], out[i], sqrtf(in[i]));
	}
	EXPECT_EQ(0, bad);
}

TEST_F(run, relu_neg_abs_exact)
{
	static const int ops[3] = { PTO_TUNARY_RELU, PTO_TUNARY_NEG,
				    PTO_TUNARY_ABS };
	float in[EW_N], out[EW_N];
	int i, j, bad = 0;

	fill_a(in, EW_N);
	in[0] = -0.0f;
	in[1] = 0.0f;
	in[2] = -INFINITY;
	in[3] = FLT_MIN;
	in[4] = -FLT_MAX;
	for (j = 0; j < 3; j++) {
		run_unary(_metadata, self->dev, self->q, ops[j], in, out, EW_N);
		for (i = 0; i < EW_N; i++) {
			float x = in[i], want;

			/* Documented: RELU x > 0 ? x : 0; NEG flips; ABS x < 0 ? -x : x. */
			if (ops[j] == PTO_TUNARY_RELU)
				want = x > 0 ? x : 0.0f;
			else if (ops[j] == PTO_TUNARY_NEG)
				want = -x;
			else
				want = x < 0 ? -x : x;
			if (!same_f32(want, out[i]) && bad++ < 5)
				TH_LOG("op %d (%a) = %a, want %a", ops[j], x,
				       out[i], want);
		}
	}
	EXPECT_EQ(0, bad);
}

TEST_F(run, row_sum_and_max_match_cpu)
{
	struct pto_tensor *a, *sum, *max, *args[3];
	struct pto_kernel *k;
	struct pto_kb *kb;
	float *pa, *ps, *pm;
	int ta, ts, tm, r, c;

	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_F32, EW_ROWS, EW_COLS, &a));
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_F32, EW_ROWS, 1, &sum));
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_F32, EW_ROWS, 1, &max));
	pa = pto_tensor_data(a);
	ps = pto_tensor_data(sum);
	pm = pto_tensor_data(max);
	for (r = 0; r < EW_ROWS; r++)
		for (c = 0; c < EW_COLS; c++)
			pa[r * EW_COLS + c] = (float)(((r * 131 + c * 71) % 1000) - 500) / 64.0f +
					      (float)c * 1e-3f;
	args[0] = a;
	args[1] = sum;
	args[2] = max;

	ASSERT_EQ(0, pto_kb_new(self->dev, PTO_CORE_AIV, &kb));
	ta = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, EW_ROWS, EW_COLS);
	ts = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, EW_ROWS, 1);
	tm = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, EW_ROWS, 1);
	pto_kb_ldi(kb, 0, 0);
	pto_kb_tload(kb, ta, 0, 0, 0);
	pto_kb_trowred(kb, PTO_ROWRED_SUM, ts, ta);
	pto_kb_trowred(kb, PTO_ROWRED_MAX, tm, ta);
	pto_kb_tstore(kb, ts, 1, 0, 0);
	pto_kb_tstore(kb, tm, 2, 0, 0);
	pto_kb_end(kb);
	KERNEL(k, kb);
	RUN_EXPECT(PTO_STATUS_OK, (&(struct pto_task_desc){
		.kernel_aiv = k, .block_num = 1, .tensors = args,
		.num_tensors = 3 }));

	for (r = 0; r < EW_ROWS; r++) {
		/* Documented: left to right in f32, from element 0. */
		float s = pa[r * EW_COLS], m = pa[r * EW_COLS];
		double exact = 0, mag = 0;

		for (c = 1; c < EW_COLS; c++) {
			s += pa[r * EW_COLS + c];
			if (pa[r * EW_COLS + c] > m)
				m = pa[r * EW_COLS + c];
		}
		for (c = 0; c < EW_COLS; c++) {
			exact += pa[r * EW_COLS + c];
			mag += fabs(pa[r * EW_COLS + c]);
		}
		EXPECT_TRUE(same_f32(s, ps[r]))
			TH_LOG("row %d: sum %a, want %a", r, ps[r], s);
		/* And within the f32 error bound of the exact sum. */
		EXPECT_LE(fabs(ps[r] - exact), EW_COLS * mag * FLT_EPSILON)
			TH_LOG("row %d: sum %.9g, exact %.9g", r, ps[r], exact);
		EXPECT_TRUE(same_f32(m, pm[r]))
			TH_LOG("row %d: max %a, want %a", r, pm[r], m);
	}
}

/* ------------------------------------------------------------------ casts */

static const float cast_inputs[] = {
	1000.0f, -1000.0f, 2.7f, -2.7f, 0.5f, -0.5f, 127.9f, -128.9f,
	NAN, 3e9f, -3e9f, 1e20f, -1e20f, 0.0f, -0.0f, 126.5f,
	32767.9f, -32768.9f, 40000.0f, -40000.0f, 2147483520.0f,
	2147483648.0f, -2147483648.0f, 9.2233720368547758e18f,
	-9.2233720368547758e18f, INFINITY, -INFINITY, 1.0f, -1.0f, 99.99f,
	-99.99f, 255.0f,
};

#define NCAST (sizeof(cast_inputs) / sizeof(cast_inputs[0]))

/* Documented: truncate toward zero, saturate, NaN -> 0. */
static int64_t ref_f2i(float x, int bits)
{
	double lo = -ldexp(1.0, bits - 1), hi = ldexp(1.0, bits - 1);
	double t;

	if (isnan(x))
		return 0;
	t = trunc((double)x);
	if (t <= lo)
		return bits == 64 ? INT64_MIN : (int64_t)lo;
	if (t >= hi)
		return bits == 64 ? INT64_MAX : (int64_t)hi - 1;
	return (int64_t)t;
}

static int64_t load_int(const void *p, int bytes, int index)
{
	switch (bytes) {
	case 1:
		return ((const int8_t *)p)[index];
	case 2:
		return ((const int16_t *)p)[index];
	case 4:
		return ((const int32_t *)p)[index];
	default:
		return ((const int64_t *)p)[index];
	}
}

static void store_int(void *p, int bytes, int index, int64_t v)
{
	switch (bytes) {
	case 1:
		((int8_t *)p)[index] = (int8_t)v;
		break;
	case 2:
		((int16_t *)p)[index] = (int16_t)v;
		break;
	case 4:
		((int32_t *)p)[index] = (int32_t)v;
		break;
	default:
		((int64_t *)p)[index] = v;
		break;
	}
}

/* A kernel: t1 (@to, 1 x @n) = TCAST t0 (@from), g0 -> g1. */
static struct pto_kernel *cast_kernel(struct pto_device *dev,
				      enum pto_dtype from, enum pto_dtype to,
				      int n, char *err, size_t len)
{
	struct pto_kb *kb;
	int t0, t1;

	if (pto_kb_new(dev, PTO_CORE_AIV, &kb))
		return NULL;
	t0 = pto_kb_tile(kb, from, PTO_BUF_UB, 1, n);
	t1 = pto_kb_tile(kb, to, PTO_BUF_UB, 1, n);
	pto_kb_ldi(kb, 0, 0);
	pto_kb_tload(kb, t0, 0, 0, 0);
	pto_kb_tcast(kb, t1, t0);
	pto_kb_tstore(kb, t1, 1, 0, 0);
	pto_kb_end(kb);
	return pto_test_kb_finish(kb, err, len);
}

/* Casts @n elements at @src (@from) to @dst (@to) on the device. */
static void run_cast(struct __test_metadata *_metadata, struct pto_device *dev,
		     struct pto_queue *q, enum pto_dtype from, const void *src,
		     enum pto_dtype to, void *dst, int n)
{
	struct pto_tensor *a, *b, *args[2];
	struct pto_kernel *k;
	char err[256];
	int st;

	ASSERT_EQ(0, pto_test_tensor2d(dev, from, 1, n, &a));
	ASSERT_EQ(0, pto_test_tensor2d(dev, to, 1, n, &b));
	memcpy(pto_tensor_data(a), src, n * pto_dtype_size(from));
	args[0] = a;
	args[1] = b;
	k = cast_kernel(dev, from, to, n, err, sizeof(err));
	ASSERT_NE(NULL, k) TH_LOG("kernel: %s", err);
	st = run_one(dev, q, &(struct pto_task_desc){
		.kernel_aiv = k, .block_num = 1, .tensors = args,
		.num_tensors = 2 }, NULL, err, sizeof(err));
	ASSERT_EQ(PTO_STATUS_OK, st) TH_LOG("%s", err);
	memcpy(dst, pto_tensor_data(b), n * pto_dtype_size(to));
	pto_kernel_free(k);
	pto_tensor_free(a);
	pto_tensor_free(b);
}

TEST_F(run, cast_f32_to_int_saturates_truncates_nan_zero)
{
	static const enum pto_dtype to[4] = { PTO_DTYPE_I8, PTO_DTYPE_I16,
					      PTO_DTYPE_I32, PTO_DTYPE_I64 };
	int64_t out[NCAST];
	unsigned int d, i;
	int bad = 0;

	for (d = 0; d < 4; d++) {
		int bytes = (int)pto_dtype_size(to[d]);

		run_cast(_metadata, self->dev, self->q, PTO_DTYPE_F32,
			 cast_inputs, to[d], out, NCAST);
		for (i = 0; i < NCAST; i++) {
			int64_t got = load_int(out, bytes, i);
			int64_t want = ref_f2i(cast_inputs[i], 8 * bytes);

			if (got != want && bad++ < 10)
				TH_LOG("f32 %a -> %s: got %lld, want %lld",
				       cast_inputs[i], pto_dtype_name(to[d]),
				       (long long)got, (long long)want);
		}
		/* The cases the documentation spells out, by name. */
		EXPECT_EQ(8 * bytes == 8 ? 127 : 1000, load_int(out, bytes, 0));
		EXPECT_EQ(8 * bytes == 8 ? -128 : -1000, load_int(out, bytes, 1));
		EXPECT_EQ(2, load_int(out, bytes, 2));
		EXPECT_EQ(-2, load_int(out, bytes, 3));
		EXPECT_EQ(0, load_int(out, bytes, 8));
	}
	EXPECT_EQ(0, bad);
}

TEST_F(run, cast_int_to_f32_rounds_to_nearest)
{
	static const int64_t vals[8] = {
		-128, 127, 0, -1, 16777217, -2147483647 - 1, INT64_MAX,
		9007199254740993LL,
	};
	static const enum pto_dtype from[4] = { PTO_DTYPE_I8, PTO_DTYPE_I16,
						PTO_DTYPE_I32, PTO_DTYPE_I64 };
	uint8_t src[8 * 8];
	float out[8];
	unsigned int d, i;
	int bad = 0;

	for (d = 0; d < 4; d++) {
		int bytes = (int)pto_dtype_size(from[d]);

		for (i = 0; i < 8; i++)
			store_int(src, bytes, i, vals[i]);
		run_cast(_metadata, self->dev, self->q, from[d], src,
			 PTO_DTYPE_F32, out, 8);
		for (i = 0; i < 8; i++) {
			float want = (float)load_int(src, bytes, i);

			if (!same_f32(want, out[i]) && bad++ < 10)
				TH_LOG("%s %lld -> f32: got %a, want %a",
				       pto_dtype_name(from[d]),
				       (long long)load_int(src, bytes, i), out[i], want);
		}
	}
	EXPECT_EQ(0, bad);
}

TEST_F(run, cast_int_to_int_wraps_and_sign_extends)
{
	static const int32_t in32[8] = { 300, -129, 128, 127, -1, 65535, 0, -300 };
	int8_t out8[8], back8[8];
	int64_t out64[8];
	int i;

	run_cast(_metadata, self->dev, self->q, PTO_DTYPE_I32, in32,
		 PTO_DTYPE_I8, out8, 8);
	for (i = 0; i < 8; i++) {
		EXPECT_EQ((int8_t)(uint8_t)(uint32_t)in32[i], out8[i])
			TH_LOG("i32 %d -> i8", in32[i]);
	}
	memcpy(back8, out8, sizeof(back8));
	run_cast(_metadata, self->dev, self->q, PTO_DTYPE_I8, back8,
		 PTO_DTYPE_I64, out64, 8);
	for (i = 0; i < 8; i++) {
		EXPECT_EQ((int64_t)back8[i], out64[i]) TH_LOG("i8 %d -> i64", back8[i]);
	}
}

/* ------------------------------------------------------------------ int tiles */

static int32_t ref_int_bin(int op, int32_t a, int32_t b)
{
	switch (op) {
	case PTO_TBIN_ADD:
		return (int32_t)((uint32_t)a + (uint32_t)b);
	case PTO_TBIN_SUB:
		return (int32_t)((uint32_t)a - (uint32_t)b);
	case PTO_TBIN_MUL:
		return (int32_t)((uint32_t)a * (uint32_t)b);
	case PTO_TBIN_MAX:
		return a > b ? a : b;
	case PTO_TBIN_MIN:
		return a < b ? a : b;
	case PTO_TBIN_AND:
		return a & b;
	case PTO_TBIN_OR:
		return a | b;
	case PTO_TBIN_XOR:
		return a ^ b;
	}
	return 0;
}

TEST_F(run, int32_tile_ops_match_cpu)
{
	static const int ops[] = { PTO_TBIN_ADD, PTO_TBIN_SUB, PTO_TBIN_MUL,
				   PTO_TBIN_MAX, PTO_TBIN_MIN, PTO_TBIN_AND,
				   PTO_TBIN_OR, PTO_TBIN_XOR };
	const int nops = sizeof(ops) / sizeof(ops[0]);
	struct pto_tensor *a, *b, *c[8 + 2], *args[3];
	struct pto_kernel *k[8 + 2];
	struct pto_graph *g;
	int32_t *pa, *pb;
	int i, j, bad = 0;

	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I32, EW_ROWS, EW_COLS, &a));
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I32, EW_ROWS, EW_COLS, &b));
	pa = pto_tensor_data(a);
	pb = pto_tensor_data(b);
	for (i = 0; i < EW_N; i++) {
		pa[i] = (int32_t)pto_test_pattern(1, i);
		pb[i] = (int32_t)pto_test_pattern(2, i);
	}
	pa[0] = INT32_MAX;
	pb[0] = 1;
	pa[1] = INT32_MIN;
	pb[1] = -1;
	pa[2] = 65536;
	pb[2] = 65536;

	/* One task per op, plus two tile-scalar ones, in one graph. */
	ASSERT_EQ(0, pto_graph_new(self->dev, &g));
	for (j = 0; j < nops + 2; j++) {
		struct pto_kb *kb;
		int ta, tb, tc;

		ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I32, EW_ROWS,
					       EW_COLS, &c[j]));
		ASSERT_EQ(0, pto_kb_new(self->dev, PTO_CORE_AIV, &kb));
		ta = pto_kb_tile(kb, PTO_DTYPE_I32, PTO_BUF_UB, EW_ROWS, EW_COLS);
		tb = pto_kb_tile(kb, PTO_DTYPE_I32, PTO_BUF_UB, EW_ROWS, EW_COLS);
		tc = pto_kb_tile(kb, PTO_DTYPE_I32, PTO_BUF_UB, EW_ROWS, EW_COLS);
		pto_kb_ldi(kb, 0, 0);
		pto_kb_tload(kb, ta, 0, 0, 0);
		pto_kb_tload(kb, tb, 1, 0, 0);
		if (j < nops)
			pto_kb_tbin(kb, ops[j], tc, ta, tb);
		else if (j == nops)
			pto_kb_tbinsi(kb, PTO_TBIN_ADD, tc, ta, 7);
		else
			pto_kb_tbinsi(kb, PTO_TBIN_XOR, tc, ta, 0x5555);
		pto_kb_tstore(kb, tc, 2, 0, 0);
		pto_kb_end(kb);
		KERNEL(k[j], kb);
		args[0] = a;
		args[1] = b;
		args[2] = c[j];
		ASSERT_LE(0, pto_graph_add_task(g, &(struct pto_task_desc){
			.kernel_aiv = k[j], .block_num = 1, .tensors = args,
			.num_tensors = 3 })) TH_LOG("%s", pto_graph_error(g));
	}
	ASSERT_EQ(0, pto_graph_run(g, self->q, RUN_TIMEOUT_NS))
		TH_LOG("%s", pto_graph_error(g));
	for (j = 0; j < nops + 2; j++) {
		const int32_t *pc = pto_tensor_data(c[j]);

		for (i = 0; i < EW_N; i++) {
			int32_t want = j < nops ? ref_int_bin(ops[j], pa[i], pb[i]) :
				       j == nops ? ref_int_bin(PTO_TBIN_ADD, pa[i], 7) :
						   (pa[i] ^ 0x5555);

			if (pc[i] != want && bad++ < 10)
				TH_LOG("task %d [%d]: %d op %d = %d, want %d", j, i,
				       pa[i], pb[i], pc[i], want);
		}
	}
	EXPECT_EQ(0, bad);
	pto_graph_free(g);
}

/* ------------------------------------------------------------------ matmul */

#define MM_M 64
#define MM_K 32
#define MM_N 45

/*
 * Within 1e-4 of the exact (double) product, and bit for bit the
 * documented f32 sum in k order. N = 45 is not a multiple of the SIMD width.
 */
TEST_F(run, matmul_64x32x45_f32_in_k_order)
{
	struct pto_tensor *a, *b, *c, *args[3];
	struct pto_kernel *k;
	struct pto_kb *kb;
	float *pa, *pb, *pc;
	int ta, tb, tc, i, j, l, bad = 0;

	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_F32, MM_M, MM_K, &a));
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_F32, MM_K, MM_N, &b));
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_F32, MM_M, MM_N, &c));
	pa = pto_tensor_data(a);
	pb = pto_tensor_data(b);
	pc = pto_tensor_data(c);
	for (i = 0; i < MM_M * MM_K; i++)
		pa[i] = (float)((i * 7919u) % 2000u) / 1000.0f - 1.0f;
	for (i = 0; i < MM_K * MM_N; i++)
		pb[i] = (float)((i * 104729u + 13u) % 2000u) / 1000.0f - 1.0f;
	args[0] = a;
	args[1] = b;
	args[2] = c;

	ASSERT_EQ(0, pto_kb_new(self->dev, PTO_CORE_AIC, &kb));
	ta = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_L0A, MM_M, MM_K);
	tb = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_L0B, MM_K, MM_N);
	tc = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_L0C, MM_M, MM_N);
	pto_kb_ldi(kb, 0, 0);
	pto_kb_tload(kb, ta, 0, 0, 0);
	pto_kb_tload(kb, tb, 1, 0, 0);
	pto_kb_matmul(kb, tc, ta, tb, false);
	pto_kb_tstore(kb, tc, 2, 0, 0);
	pto_kb_end(kb);
	KERNEL(k, kb);
	RUN_EXPECT(PTO_STATUS_OK, (&(struct pto_task_desc){
		.kernel_aic = k, .block_num = 1, .tensors = args,
		.num_tensors = 3 }));
	for (i = 0; i < MM_M; i++) {
		for (j = 0; j < MM_N; j++) {
			double ref = 0, mag = 0;
			volatile float sum = 0;

			for (l = 0; l < MM_K; l++) {
				double p = (double)pa[i * MM_K + l] * pb[l * MM_N + j];
				volatile float pf = pa[i * MM_K + l] * pb[l * MM_N + j];

				ref += p;
				mag += fabs(p);
				sum = sum + pf;
			}
			if ((fabs(pc[i * MM_N + j] - ref) > 1e-4 * mag ||
			     !same_f32(sum, pc[i * MM_N + j])) && bad++ < 5)
				TH_LOG("c[%d][%d] = %a, want %a (f32 sum %a)", i, j,
				       pc[i * MM_N + j], ref, sum);
		}
	}
	EXPECT_EQ(0, bad);
}

/* ------------------------------------------------------------------ GM scalars */

#define GS_BLOCKS 16

TEST_F(run, gld_gst_extend_and_truncate)
{
	static const int16_t v16[GS_BLOCKS] = { -32768, -1, 0, 1, 32767, -300,
						300, 12345, -12345, 2, -2, 100,
						-100, 7, -7, 255 };
	static const uint8_t v8[GS_BLOCKS] = { 0, 1, 127, 128, 200, 255, 3, 4,
					       5, 6, 7, 8, 250, 251, 129, 130 };
	struct pto_tensor *t16, *o16, *t8, *o8, *trunc, *args[5];
	struct pto_kernel *k;
	struct pto_kb *kb;
	int i;

	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I16, 1, GS_BLOCKS, &t16));
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I64, 1, GS_BLOCKS, &o16));
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_U8, 1, GS_BLOCKS, &t8));
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I64, 1, GS_BLOCKS, &o8));
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I8, 1, GS_BLOCKS, &trunc));
	memcpy(pto_tensor_data(t16), v16, sizeof(v16));
	memcpy(pto_tensor_data(t8), v8, sizeof(v8));
	args[0] = t16;
	args[1] = o16;
	args[2] = t8;
	args[3] = o8;
	args[4] = trunc;

	/* Block b: o16[b] = t16[b]; o8[b] = t8[b]; trunc[b] = t16[b] * 1000. */
	ASSERT_EQ(0, pto_kb_new(self->dev, PTO_CORE_AIV, &kb));
	pto_kb_sreg(kb, 0, PTO_SREG_BLOCK_IDX);
	pto_kb_ldi(kb, 1, 0);
	pto_kb_gld(kb, 2, 0, 1, 0);
	pto_kb_gst(kb, 1, 1, 0, 2);
	pto_kb_gld(kb, 3, 2, 1, 0);
	pto_kb_gst(kb, 3, 1, 0, 3);
	pto_kb_alui(kb, PTO_ALU_MUL, 4, 2, 1000);
	pto_kb_gst(kb, 4, 1, 0, 4);
	pto_kb_end(kb);
	KERNEL(k, kb);
	RUN_EXPECT(PTO_STATUS_OK, (&(struct pto_task_desc){
		.kernel_aiv = k, .block_num = GS_BLOCKS, .tensors = args,
		.num_tensors = 5 }));
	for (i = 0; i < GS_BLOCKS; i++) {
		EXPECT_EQ((int64_t)v16[i], ((int64_t *)pto_tensor_data(o16))[i])
			TH_LOG("i16 sign extension, block %d", i);
		EXPECT_EQ((int64_t)v8[i], ((int64_t *)pto_tensor_data(o8))[i])
			TH_LOG("u8 zero extension, block %d", i);
		EXPECT_EQ((int8_t)(uint8_t)((int64_t)v16[i] * 1000),
			  ((int8_t *)pto_tensor_data(trunc))[i])
			TH_LOG("i8 truncation, block %d", i);
	}
}

/*
 * TLOAD and TSTORE through 2-D views of every kind: row-major (one run of
 * GM), padded rows, a column stride, and rows overlapping so that the row
 * stride equals the tile's width (one run of GM again, from a column
 * offset). Each case loads a 4x8 int32 tile from one view and stores it
 * into another; the whole destination buffer is checked against a CPU
 * model, so a copy that strays past the window shows too.
 */
#define SV_ROWS 4
#define SV_COLS 8
#define SV_ELEMS 256
#define SV_SENTINEL (-7)

struct sv_view {
	int64_t off, rs, cs, shape_cols;
	int64_t col;	/* the window's first column */
};

static const struct sv_view sv_contig = { 0, 8, 1, 8, 0 };
static const struct sv_view sv_padded = { 3, 12, 1, 8, 0 };
static const struct sv_view sv_colstride = { 64, 16, 2, 8, 0 };
static const struct sv_view sv_overlap = { 128, 8, 1, 12, 4 };

static void sv_case(struct __test_metadata *_metadata, struct pto_device *dev,
		    struct pto_queue *q, const struct sv_view *sv,
		    const struct sv_view *dv, const char *what)
{
	struct pto_buffer *sb, *db;
	struct pto_tensor *st, *dt, *args[2];
	int64_t shape[2], strides[2], want[SV_ELEMS];
	int32_t *src, *dst;
	struct pto_kernel *k;
	struct pto_kb *kb;
	int t, i, j, bad = 0;

	ASSERT_EQ(0, pto_buffer_alloc(dev, SV_ELEMS * 4, &sb));
	ASSERT_EQ(0, pto_buffer_alloc(dev, SV_ELEMS * 4, &db));
	src = pto_buffer_map(sb);
	dst = pto_buffer_map(db);
	for (i = 0; i < SV_ELEMS; i++) {
		src[i] = 1000 + i;
		dst[i] = SV_SENTINEL;
		want[i] = SV_SENTINEL;
	}
	shape[0] = SV_ROWS;
	shape[1] = sv->shape_cols;
	strides[0] = sv->rs;
	strides[1] = sv->cs;
	ASSERT_EQ(0, pto_tensor_view(sb, sv->off * 4, PTO_DTYPE_I32, 2, shape,
				     strides, &st));
	shape[1] = dv->shape_cols;
	strides[0] = dv->rs;
	strides[1] = dv->cs;
	ASSERT_EQ(0, pto_tensor_view(db, dv->off * 4, PTO_DTYPE_I32, 2, shape,
				     strides, &dt));
	args[0] = st;
	args[1] = dt;

	ASSERT_EQ(0, pto_kb_new(dev, PTO_CORE_AIV, &kb));
	t = pto_kb_tile(kb, PTO_DTYPE_I32, PTO_BUF_UB, SV_ROWS, SV_COLS);
	pto_kb_ldi(kb, 0, 0);
	pto_kb_ldi(kb, 1, sv->col);
	pto_kb_ldi(kb, 2, dv->col);
	pto_kb_tload(kb, t, 0, 0, 1);
	pto_kb_tstore(kb, t, 1, 0, 2);
	pto_kb_end(kb);
	KERNEL(k, kb);
	{
		struct pto_task_desc d = { .kernel_aiv = k, .block_num = 1,
					   .tensors = args, .num_tensors = 2 };
		char err[256];

		ASSERT_EQ(PTO_STATUS_OK,
			  run_one(dev, q, &d, NULL, err, sizeof(err)))
			TH_LOG("%s: %s", what, err);
	}

	for (i = 0; i < SV_ROWS; i++)
		for (j = 0; j < SV_COLS; j++)
			want[dv->off + i * dv->rs + (dv->col + j) * dv->cs] =
				src[sv->off + i * sv->rs + (sv->col + j) * sv->cs];
	for (i = 0; i < SV_ELEMS; i++)
		if (dst[i] != want[i] && bad++ < 5)
			TH_LOG("%s: dst[%d] = %d, want %lld", what, i, dst[i],
			       (long long)want[i]);
	EXPECT_EQ(0, bad) TH_LOG("%s", what);
	pto_kernel_free(k);
	pto_tensor_free(st);
	pto_tensor_free(dt);
	pto_buffer_free(sb);
	pto_buffer_free(db);
}

TEST_F(run, tile_load_store_through_strided_views)
{
	sv_case(_metadata, self->dev, self->q, &sv_contig, &sv_padded,
		"row-major -> padded rows");
	sv_case(_metadata, self->dev, self->q, &sv_padded, &sv_contig,
		"padded rows -> row-major");
	sv_case(_metadata, self->dev, self->q, &sv_colstride, &sv_overlap,
		"column stride 2 -> overlapping rows from column 4");
	sv_case(_metadata, self->dev, self->q, &sv_overlap, &sv_colstride,
		"overlapping rows from column 4 -> column stride 2");
}

TEST_F(run, atomic_add_from_48_blocks_counts_exactly_48)
{
	const int blocks = 48;
	struct pto_tensor *counter, *olds, *args[2];
	struct pto_kernel *k;
	struct pto_kb *kb;
	int64_t *po;
	int seen[48] = { 0 }, i;

	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I32, 1, 1, &counter));
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I64, 1, blocks, &olds));
	args[0] = counter;
	args[1] = olds;

	/* olds[b] = the counter before this block's +1. */
	ASSERT_EQ(0, pto_kb_new(self->dev, PTO_CORE_AIV, &kb));
	pto_kb_sreg(kb, 0, PTO_SREG_BLOCK_IDX);
	pto_kb_ldi(kb, 1, 0);
	pto_kb_ldi(kb, 2, 1);
	pto_kb_atomic_add(kb, 3, 0, 1, 1, 2);
	pto_kb_gst(kb, 1, 1, 0, 3);
	pto_kb_end(kb);
	KERNEL(k, kb);
	RUN_EXPECT(PTO_STATUS_OK, (&(struct pto_task_desc){
		.kernel_aiv = k, .block_num = blocks, .tensors = args,
		.num_tensors = 2 }));
	EXPECT_EQ(48, *(int32_t *)pto_tensor_data(counter));
	/* Each old value 0..47 exactly once: every add was atomic. */
	po = pto_tensor_data(olds);
	for (i = 0; i < blocks; i++) {
		ASSERT_LE(0, po[i]);
		ASSERT_GT(blocks, po[i]);
		seen[po[i]]++;
	}
	for (i = 0; i < blocks; i++) {
		EXPECT_EQ(1, seen[i]) TH_LOG("old value %d", i);
	}
}

/* ------------------------------------------------------------------ scalar ALU */

#define ALU_RESULTS 22

static void ref_alu(int64_t a, int64_t b, int64_t *r)
{
	uint64_t ua = (uint64_t)a, ub = (uint64_t)b;

	r[0] = (int64_t)(ua + ub);
	r[1] = (int64_t)(ua - ub);
	r[2] = (int64_t)(ua * ub);
	if (a == INT64_MIN && b == -1) {
		r[3] = INT64_MIN;
		r[4] = 0;
	} else {
		r[3] = a / b;
		r[4] = a % b;
	}
	r[5] = a & b;
	r[6] = a | b;
	r[7] = a ^ b;
	r[8] = (int64_t)(ua << (b & 63));
	r[9] = a >> (b & 63);
	r[10] = a < b ? a : b;
	r[11] = a > b ? a : b;
	r[12] = a == b;
	r[13] = a != b;
	r[14] = a > b;
	r[15] = a < b;
	r[16] = a >= b;
	r[17] = a <= b;
	r[18] = (int64_t)(ua + (uint64_t)-7);
	r[19] = (int64_t)(ua * 3);
	r[20] = a;
	r[21] = a > -5;
}

TEST_F(run, scalar_alu_ops_match_cpu)
{
	static const int64_t pairs[][2] = {
		{ 17, 5 }, { -17, 5 }, { 17, -5 }, { -17, -5 },
		{ INT64_MAX, 1 }, { INT64_MIN, -1 }, { 1, 65 }, { -256, 68 },
		{ 0x0123456789abcdefLL, 0x00ff00ff00ff00ffLL }, { 5, 5 },
		{ -5, 3 },
	};
	const int npairs = sizeof(pairs) / sizeof(pairs[0]);
	struct pto_tensor *out, *args[1];
	struct pto_kernel *k;
	struct pto_graph *g;
	struct pto_kb *kb;
	int64_t *po, want[ALU_RESULTS];
	int i, j, col;

	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I64, npairs,
				       ALU_RESULTS, &out));
	args[0] = out;

	/* s0 = a, s1 = b, s2 = row; each result through s3 into its column. */
	ASSERT_EQ(0, pto_kb_new(self->dev, PTO_CORE_AIV, &kb));
	pto_kb_arg(kb, 0, 0);
	pto_kb_arg(kb, 1, 1);
	pto_kb_arg(kb, 2, 2);
	for (col = 0; col < ALU_RESULTS; col++) {
		if (col < 12)
			pto_kb_alu(kb, (enum pto_alu)col, 3, 0, 1);
		else if (col < 18)
			pto_kb_cmp(kb, (enum pto_cmp)(col - 12), 3, 0, 1);
		else if (col == 18)
			pto_kb_alui(kb, PTO_ALU_ADD, 3, 0, -7);
		else if (col == 19)
			pto_kb_alui(kb, PTO_ALU_MUL, 3, 0, 3);
		else if (col == 20)
			pto_kb_mov(kb, 3, 0);
		else
			pto_kb_cmpi(kb, PTO_CMP_GT, 3, 0, -5);
		pto_kb_ldi(kb, 4, col);
		pto_kb_gst(kb, 0, 2, 4, 3);
	}
	pto_kb_end(kb);
	KERNEL(k, kb);

	ASSERT_EQ(0, pto_graph_new(self->dev, &g));
	for (i = 0; i < npairs; i++) {
		int64_t sc[3] = { pairs[i][0], pairs[i][1], i };

		ASSERT_LE(0, pto_graph_add_task(g, &(struct pto_task_desc){
			.kernel_aiv = k, .block_num = 1, .tensors = args,
			.num_tensors = 1, .scalars = sc, .num_scalars = 3 }));
	}
	ASSERT_EQ(0, pto_graph_run(g, self->q, RUN_TIMEOUT_NS))
		TH_LOG("%s", pto_graph_error(g));
	po = pto_tensor_data(out);
	for (i = 0; i < npairs; i++) {
		ref_alu(pairs[i][0], pairs[i][1], want);
		for (j = 0; j < ALU_RESULTS; j++) {
			EXPECT_EQ(want[j], po[i * ALU_RESULTS + j])
				TH_LOG("a %lld b %lld result %d",
				       (long long)pairs[i][0], (long long)pairs[i][1], j);
		}
	}
	pto_graph_free(g);
}

/* Index of the first instruction with @op (and ALU @mode) in @kb's program. */
static int find_insn(struct pto_kb *kb, uint8_t op, int mode)
{
	const struct pto_insn *insns;
	uint32_t n, i;

	if (pto_kb_program(kb, &insns, &n, NULL, NULL))
		return -1;
	for (i = 0; i < n; i++)
		if (insns[i].op == op && (mode < 0 || insns[i].mode == mode))
			return (int)i;
	return -1;
}

static void div_fault_case(struct __test_metadata *_metadata,
			   struct pto_device *dev, struct pto_queue *q,
			   enum pto_alu op)
{
	struct pto_tensor *out, *args[1];
	struct pto_kernel *k;
	struct pto_kb *kb;
	int64_t sc0[2] = { 100, 0 }, sc7[2] = { 100, 7 };
	int64_t *po;
	uint64_t detail;
	char err[256];
	int idx, st;

	ASSERT_EQ(0, pto_test_tensor2d(dev, PTO_DTYPE_I64, 1, 4, &out));
	args[0] = out;
	po = pto_tensor_data(out);

	/* out[0] = 11; out[1] = a op b; out[2] = 22. */
	ASSERT_EQ(0, pto_kb_new(dev, PTO_CORE_AIV, &kb));
	pto_kb_arg(kb, 0, 0);
	pto_kb_arg(kb, 1, 1);
	pto_kb_ldi(kb, 5, 0);
	pto_kb_ldi(kb, 6, 0);
	pto_kb_ldi(kb, 7, 11);
	pto_kb_gst(kb, 0, 5, 6, 7);
	pto_kb_alu(kb, op, 2, 0, 1);
	pto_kb_ldi(kb, 6, 1);
	pto_kb_gst(kb, 0, 5, 6, 2);
	pto_kb_ldi(kb, 6, 2);
	pto_kb_ldi(kb, 7, 22);
	pto_kb_gst(kb, 0, 5, 6, 7);
	pto_kb_end(kb);
	idx = find_insn(kb, PTO_OP_ALU, op);
	ASSERT_LT(0, idx);
	k = pto_test_kb_finish(kb, err, sizeof(err));
	ASSERT_NE(NULL, k) TH_LOG("kernel: %s", err);

	st = run_one(dev, q, &(struct pto_task_desc){
		.kernel_aiv = k, .block_num = 1, .tensors = args,
		.num_tensors = 1, .scalars = sc0, .num_scalars = 2 },
		&detail, err, sizeof(err));
	EXPECT_EQ(PTO_STATUS_ARITH_FAULT, st) TH_LOG("%s", err);
	EXPECT_EQ((uint64_t)idx, detail);
	/* Stopped at the fault: what came before is done, nothing after. */
	EXPECT_EQ(11, po[0]);
	EXPECT_EQ(0, po[1]);
	EXPECT_EQ(0, po[2]);

	/* The same kernel with a non-zero divisor runs to the end. */
	st = run_one(dev, q, &(struct pto_task_desc){
		.kernel_aiv = k, .block_num = 1, .tensors = args,
		.num_tensors = 1, .scalars = sc7, .num_scalars = 2 },
		&detail, err, sizeof(err));
	EXPECT_EQ(PTO_STATUS_OK, st) TH_LOG("%s", err);
	EXPECT_EQ(op == PTO_ALU_DIV ? 14 : 2, po[1]);
	EXPECT_EQ(22, po[2]);
}

TEST_F(run, div_by_zero_arith_fault_names_insn)
{
	div_fault_case(_metadata, self->dev, self->q, PTO_ALU_DIV);
}

TEST_F(run, mod_by_zero_arith_fault_names_insn)
{
	div_fault_case(_metadata, self->dev, self->q, PTO_ALU_MOD);
}

/* ------------------------------------------------------------------ control */

TEST_F(run, loops_count_from_scalar_args)
{
	static const int64_t nm[][2] = {
		{ 0, 5 }, { 5, 0 }, { 1, 1 }, { 10, 3 }, { 1000, 7 }, { 3, 1000 },
	};
	const int ncases = sizeof(nm) / sizeof(nm[0]);
	struct pto_tensor *out, *args[1];
	struct pto_kernel *k;
	struct pto_graph *g;
	struct pto_kb *kb;
	int64_t *po;
	int i;

	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I64, ncases + 1, 4, &out));
	args[0] = out;

	/*
	 * s0 = n, s1 = m, s9 = row. s5 += i over the outer loop; s6 counts
	 * inner iterations; s7 += j over them. Row ncases: a 4-deep loop
	 * nest with immediate counts 3 x 4 x 5 x 6.
	 */
	ASSERT_EQ(0, pto_kb_new(self->dev, PTO_CORE_AIV, &kb));
	pto_kb_arg(kb, 0, 0);
	pto_kb_arg(kb, 1, 1);
	pto_kb_arg(kb, 9, 2);
	pto_kb_ldi(kb, 5, 0);
	pto_kb_ldi(kb, 6, 0);
	pto_kb_ldi(kb, 7, 0);
	pto_kb_ldi(kb, 8, 0);
	pto_kb_loop(kb, 2, 0);
	pto_kb_alu(kb, PTO_ALU_ADD, 5, 5, 2);
	pto_kb_loop(kb, 3, 1);
	pto_kb_alui(kb, PTO_ALU_ADD, 6, 6, 1);
	pto_kb_alu(kb, PTO_ALU_ADD, 7, 7, 3);
	pto_kb_endloop(kb);
	pto_kb_endloop(kb);
	pto_kb_loopi(kb, 10, 3);
	pto_kb_loopi(kb, 11, 4);
	pto_kb_loopi(kb, 12, 5);
	pto_kb_loopi(kb, 13, 6);
	pto_kb_alui(kb, PTO_ALU_ADD, 8, 8, 1);
	pto_kb_endloop(kb);
	pto_kb_endloop(kb);
	pto_kb_endloop(kb);
	pto_kb_endloop(kb);
	pto_kb_ldi(kb, 4, 0);
	pto_kb_gst(kb, 0, 9, 4, 5);
	pto_kb_ldi(kb, 4, 1);
	pto_kb_gst(kb, 0, 9, 4, 6);
	pto_kb_ldi(kb, 4, 2);
	pto_kb_gst(kb, 0, 9, 4, 7);
	pto_kb_ldi(kb, 4, 3);
	pto_kb_gst(kb, 0, 9, 4, 8);
	pto_kb_end(kb);
	KERNEL(k, kb);

	ASSERT_EQ(0, pto_graph_new(self->dev, &g));
	for (i = 0; i < ncases; i++) {
		int64_t sc[3] = { nm[i][0], nm[i][1], i };

		ASSERT_LE(0, pto_graph_add_task(g, &(struct pto_task_desc){
			.kernel_aiv = k, .block_num = 1, .tensors = args,
			.num_tensors = 1, .scalars = sc, .num_scalars = 3 }));
	}
	ASSERT_EQ(0, pto_graph_run(g, self->q, RUN_TIMEOUT_NS))
		TH_LOG("%s", pto_graph_error(g));
	po = pto_tensor_data(out);
	for (i = 0; i < ncases; i++) {
		int64_t n = nm[i][0], m = nm[i][1];

		EXPECT_EQ(n * (n - 1) / 2, po[i * 4 + 0]) TH_LOG("n %lld m %lld", (long long)n, (long long)m);
		EXPECT_EQ(n * m, po[i * 4 + 1]) TH_LOG("n %lld m %lld", (long long)n, (long long)m);
		EXPECT_EQ(n * (m * (m - 1) / 2), po[i * 4 + 2]) TH_LOG("n %lld m %lld", (long long)n, (long long)m);
		EXPECT_EQ(3 * 4 * 5 * 6, po[i * 4 + 3]);
	}
	pto_graph_free(g);
}

TEST_F(run, jz_jnz_take_the_right_branch)
{
	static const int64_t xs[] = { 0, 7, -1, 1 };
	const int ncases = sizeof(xs) / sizeof(xs[0]);
	struct pto_tensor *out, *args[1];
	struct pto_kernel *k;
	struct pto_graph *g;
	struct pto_kb *kb;
	int64_t *po;
	int i, l_zero, l_end1, l_nz, l_end2, l_skip;

	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I64, ncases, 4, &out));
	args[0] = out;

	/*
	 * s0 = x, s9 = row.
	 * out[0] = x == 0 ? 2 : 1 (JZ); out[1] = x != 0 ? 4 : 3 (JNZ);
	 * out[2] = even i in 0..x-1 (JNZ inside a loop body, x >= 0).
	 */
	ASSERT_EQ(0, pto_kb_new(self->dev, PTO_CORE_AIV, &kb));
	l_zero = pto_kb_label_new(kb);
	l_end1 = pto_kb_label_new(kb);
	l_nz = pto_kb_label_new(kb);
	l_end2 = pto_kb_label_new(kb);
	l_skip = pto_kb_label_new(kb);
	pto_kb_arg(kb, 0, 0);
	pto_kb_arg(kb, 9, 1);
	pto_kb_ldi(kb, 4, 0);
	pto_kb_jz(kb, 0, l_zero);
	pto_kb_ldi(kb, 5, 1);
	pto_kb_gst(kb, 0, 9, 4, 5);
	pto_kb_jmp(kb, l_end1);
	pto_kb_label_bind(kb, l_zero);
	pto_kb_ldi(kb, 5, 2);
	pto_kb_gst(kb, 0, 9, 4, 5);
	pto_kb_label_bind(kb, l_end1);
	pto_kb_ldi(kb, 4, 1);
	pto_kb_jnz(kb, 0, l_nz);
	pto_kb_ldi(kb, 5, 3);
	pto_kb_gst(kb, 0, 9, 4, 5);
	pto_kb_jmp(kb, l_end2);
	pto_kb_label_bind(kb, l_nz);
	pto_kb_ldi(kb, 5, 4);
	pto_kb_gst(kb, 0, 9, 4, 5);
	pto_kb_label_bind(kb, l_end2);
	pto_kb_ldi(kb, 6, 0);
	pto_kb_alui(kb, PTO_ALU_MAX, 7, 0, 0);
	pto_kb_loop(kb, 1, 7);
	pto_kb_alui(kb, PTO_ALU_AND, 2, 1, 1);
	pto_kb_jnz(kb, 2, l_skip);
	pto_kb_alui(kb, PTO_ALU_ADD, 6, 6, 1);
	pto_kb_label_bind(kb, l_skip);
	pto_kb_endloop(kb);
	pto_kb_ldi(kb, 4, 2);
	pto_kb_gst(kb, 0, 9, 4, 6);
	pto_kb_end(kb);
	KERNEL(k, kb);

	ASSERT_EQ(0, pto_graph_new(self->dev, &g));
	for (i = 0; i < ncases; i++) {
		int64_t sc[2] = { xs[i], i };

		ASSERT_LE(0, pto_graph_add_task(g, &(struct pto_task_desc){
			.kernel_aiv = k, .block_num = 1, .tensors = args,
			.num_tensors = 1, .scalars = sc, .num_scalars = 2 }));
	}
	ASSERT_EQ(0, pto_graph_run(g, self->q, RUN_TIMEOUT_NS))
		TH_LOG("%s", pto_graph_error(g));
	po = pto_tensor_data(out);
	for (i = 0; i < ncases; i++) {
		int64_t x = xs[i];

		EXPECT_EQ(x == 0 ? 2 : 1, po[i * 4 + 0]) TH_LOG("x %lld", (long long)x);
		EXPECT_EQ(x != 0 ? 4 : 3, po[i * 4 + 1]) TH_LOG("x %lld", (long long)x);
		EXPECT_EQ(x > 0 ? (x + 1) / 2 : 0, po[i * 4 + 2]) TH_LOG("x %lld", (long long)x);
	}
	pto_graph_free(g);
}

/* ------------------------------------------------------------------ SPMD */

#define SREG_COLS 8

/* out[block, 0..5] = BLOCK_IDX, BLOCK_NUM, SUB_BLOCK_ID, CORE_ID, CORE_TYPE, NUM_ARGS. */
static struct pto_kernel *sreg_kernel(struct pto_device *dev,
				      enum pto_core_type core, char *err,
				      size_t len)
{
	struct pto_kb *kb;
	int i;

	if (pto_kb_new(dev, core, &kb))
		return NULL;
	for (i = 0; i <= PTO_SREG_NUM_ARGS; i++)
		pto_kb_sreg(kb, 10 + i, (enum pto_sreg)i);
	for (i = 0; i <= PTO_SREG_NUM_ARGS; i++) {
		pto_kb_ldi(kb, 1, i);
		pto_kb_gst(kb, 0, 10, 1, 10 + i);
	}
	pto_kb_end(kb);
	return pto_test_kb_finish(kb, err, len);
}

static void spmd_case(struct __test_metadata *_metadata, struct pto_device *dev,
		      struct pto_queue *q, enum pto_core_type core,
		      unsigned int blocks, unsigned int ncores)
{
	struct pto_tensor *out, *args[2];
	const struct pto_block_info *bi;
	struct pto_kernel *k;
	struct pto_graph *g;
	char err[256];
	int64_t *po;
	unsigned int i, n, lasts = 0;

	ASSERT_EQ(0, pto_test_tensor2d(dev, PTO_DTYPE_I64, blocks, SREG_COLS, &out));
	po = pto_tensor_data(out);
	for (i = 0; i < blocks * SREG_COLS; i++)
		po[i] = -1;
	/* A second tensor, unused, so NUM_ARGS is 2. */
	args[0] = out;
	args[1] = out;
	k = sreg_kernel(dev, core, err, sizeof(err));
	ASSERT_NE(NULL, k) TH_LOG("kernel: %s", err);
	ASSERT_EQ(0, pto_graph_new(dev, &g));
	ASSERT_LE(0, pto_graph_add_task(g, &(struct pto_task_desc){
		.kernel_aiv = core == PTO_CORE_AIV ? k : NULL,
		.kernel_aic = core == PTO_CORE_AIC ? k : NULL,
		.block_num = blocks, .tensors = args, .num_tensors = 2 }))
		TH_LOG("%s", pto_graph_error(g));
	ASSERT_EQ(0, pto_graph_run(g, q, RUN_TIMEOUT_NS))
		TH_LOG("%s", pto_graph_error(g));

	/* Each block wrote its own row: every index once. */
	for (i = 0; i < blocks; i++) {
		int64_t *row = &po[i * SREG_COLS];

		ASSERT_EQ((int64_t)i, row[0]) TH_LOG("row %u", i);
		EXPECT_EQ((int64_t)blocks, row[1]);
		EXPECT_LE(0, row[3]);
		EXPECT_GT((int64_t)ncores, row[3]) TH_LOG("block %u core id", i);
		if (core == PTO_CORE_AIV) {
			EXPECT_EQ(row[3] % 2, row[2]) TH_LOG("block %u sub_block_id", i);
		} else {
			EXPECT_EQ(0, row[2]);
		}
		EXPECT_EQ((int64_t)core, row[4]);
		EXPECT_EQ(2, row[5]);
		EXPECT_EQ(-1, row[6]);
	}

	/* One CQE per block, in block order after the run, with its core. */
	ASSERT_EQ(0, pto_graph_task_blocks(g, 0, &bi, &n));
	ASSERT_EQ(blocks, n);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(i, bi[i].block);
		EXPECT_EQ(PTO_STATUS_OK, bi[i].status);
		EXPECT_EQ((uint8_t)core, bi[i].core_type);
		EXPECT_EQ(po[i * SREG_COLS + 3], (int64_t)bi[i].core) TH_LOG("block %u", i);
		EXPECT_TRUE((bi[i].flags & PTO_BLOCK_RAN) != 0);
		lasts += !!(bi[i].flags & PTO_BLOCK_LAST);
		EXPECT_LT(0ull, bi[i].ts_dispatch);
		EXPECT_LE(bi[i].ts_dispatch, bi[i].ts_receive) TH_LOG("block %u", i);
		EXPECT_LE(bi[i].ts_receive, bi[i].ts_start) TH_LOG("block %u", i);
		EXPECT_LE(bi[i].ts_start, bi[i].ts_end) TH_LOG("block %u", i);
		EXPECT_LE(bi[i].ts_end, bi[i].ts_finish) TH_LOG("block %u", i);
	}
	EXPECT_EQ(1u, lasts);
	pto_graph_free(g);
	pto_kernel_free(k);
	pto_tensor_free(out);
}

TEST_F(run, spmd_registers_of_100_aiv_blocks)
{
	spmd_case(_metadata, self->dev, self->q, PTO_CORE_AIV, 100,
		  self->info.aiv_cores);
}

TEST_F(run, spmd_registers_of_30_aic_blocks)
{
	spmd_case(_metadata, self->dev, self->q, PTO_CORE_AIC, 30,
		  self->info.aic_cores);
}

/* ------------------------------------------------------------------ faults */

#define GF_ROWS 8
#define GF_COLS 16
#define GF_TILE 4

TEST_F(run, gm_fault_names_tensor_and_element_and_fails_dependants)
{
	struct pto_tensor *x, *y, *z, *bad_args[2], *ok_args[2];
	const struct pto_block_info *bi;
	struct pto_kernel *k;
	struct pto_graph *g;
	struct pto_kb *kb;
	float *px, *py, *pz;
	uint64_t detail;
	int64_t row_bad = GF_ROWS - 2, row0 = 0, row4 = 4;
	int64_t dep0 = 0, dep1 = 1;
	int t, i, reason;
	unsigned int n;

	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_F32, GF_ROWS, GF_COLS, &x));
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_F32, GF_ROWS, GF_COLS, &y));
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_F32, GF_ROWS, GF_COLS, &z));
	px = pto_tensor_data(x);
	py = pto_tensor_data(y);
	pz = pto_tensor_data(z);
	for (i = 0; i < GF_ROWS * GF_COLS; i++)
		px[i] = (float)i + 0.5f;

	/* g0[s0.., 0..] = g1[s0.., 0..], a 4-row tile, s0 = scalar 0. */
	ASSERT_EQ(0, pto_kb_new(self->dev, PTO_CORE_AIV, &kb));
	t = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, GF_TILE, GF_COLS);
	pto_kb_arg(kb, 0, 0);
	pto_kb_ldi(kb, 1, 0);
	pto_kb_tload(kb, t, 1, 0, 1);
	pto_kb_tstore(kb, t, 0, 0, 1);
	pto_kb_end(kb);
	KERNEL(k, kb);

	bad_args[0] = y;
	bad_args[1] = x;
	ok_args[0] = z;
	ok_args[1] = x;
	ASSERT_EQ(0, pto_graph_new(self->dev, &g));
	/* 0: rows 6..9 of 8: faults. 1 <- 0, 2 <- 1. 3: independent. */
	ASSERT_EQ(0, pto_graph_add_task(g, &(struct pto_task_desc){
		.name = "faulty", .kernel_aiv = k, .block_num = 1,
		.tensors = bad_args, .num_tensors = 2, .scalars = &row_bad,
		.num_scalars = 1 }));
	ASSERT_EQ(1, pto_graph_add_task(g, &(struct pto_task_desc){
		.name = "child", .kernel_aiv = k, .block_num = 1,
		.tensors = bad_args, .num_tensors = 2, .scalars = &row0,
		.num_scalars = 1, .deps = &dep0, .num_deps = 1 }));
	ASSERT_EQ(2, pto_graph_add_task(g, &(struct pto_task_desc){
		.name = "grandchild", .kernel_aiv = k, .block_num = 1,
		.tensors = bad_args, .num_tensors = 2, .scalars = &row4,
		.num_scalars = 1, .deps = &dep1, .num_deps = 1 }));
	ASSERT_EQ(3, pto_graph_add_task(g, &(struct pto_task_desc){
		.name = "unrelated", .kernel_aiv = k, .block_num = 1,
		.tensors = ok_args, .num_tensors = 2, .scalars = &row4,
		.num_scalars = 1 }));
	EXPECT_EQ(-EIO, pto_graph_run(g, self->q, RUN_TIMEOUT_NS))
		TH_LOG("%s", pto_graph_error(g));

	EXPECT_EQ(PTO_STATUS_GM_FAULT, pto_graph_task_status(g, 0, &reason, &detail));
	/* Tensor 1 (the source), first element outside: row 8, col 0. */
	EXPECT_EQ((UINT64_C(1) << 56) | (GF_ROWS * GF_COLS), detail);
	EXPECT_EQ(1u, PTO_GM_FAULT_TENSOR(detail));
	EXPECT_EQ((uint64_t)GF_ROWS * GF_COLS, PTO_GM_FAULT_ELEMENT(detail));
	ASSERT_EQ(0, pto_graph_task_blocks(g, 0, &bi, &n));
	ASSERT_EQ(1u, n);
	EXPECT_TRUE((bi[0].flags & PTO_BLOCK_RAN) != 0);
	EXPECT_EQ((uint8_t)PTO_CORE_AIV, bi[0].core_type);

	EXPECT_EQ(PTO_STATUS_DEP_FAILED, pto_graph_task_status(g, 1, NULL, NULL));
	EXPECT_EQ(PTO_STATUS_DEP_FAILED, pto_graph_task_status(g, 2, NULL, NULL));
	ASSERT_EQ(0, pto_graph_task_blocks(g, 1, &bi, &n));
	ASSERT_EQ(1u, n);
	EXPECT_EQ(0u, (uint32_t)bi[0].core_type);
	EXPECT_EQ(0u, bi[0].flags & PTO_BLOCK_RAN);
	EXPECT_EQ(PTO_STATUS_OK, pto_graph_task_status(g, 3, NULL, NULL));
	EXPECT_EQ(0, pto_graph_first_error(g, NULL, 0));

	/* y untouched (nothing was stored), z rows 4..7 copied. */
	for (i = 0; i < GF_ROWS * GF_COLS; i++) {
		EXPECT_EQ(0u, f2u(py[i])) TH_LOG("y[%d]", i);
		if (i >= 4 * GF_COLS) {
			EXPECT_EQ(px[i], pz[i]) TH_LOG("z[%d]", i);
		} else {
			EXPECT_EQ(0u, f2u(pz[i])) TH_LOG("z[%d]", i);
		}
	}
	pto_graph_free(g);
}

TEST_F(run, gm_fault_of_gst_names_element)
{
	static const int64_t cases[][3] = {
		/* row, col, element offset in a [4, 8] i64 tensor */
		{ 1, 9, 1 * 8 + 9 },
		{ 4, 0, 4 * 8 },
		{ 3, 8, 3 * 8 + 8 },
	};
	struct pto_tensor *out, *args[1];
	struct pto_kernel *k;
	struct pto_kb *kb;
	uint64_t detail;
	char err[256];
	unsigned int i;
	int st;

	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I64, 4, 8, &out));
	args[0] = out;
	ASSERT_EQ(0, pto_kb_new(self->dev, PTO_CORE_AIV, &kb));
	pto_kb_arg(kb, 0, 0);
	pto_kb_arg(kb, 1, 1);
	pto_kb_ldi(kb, 2, 77);
	pto_kb_gst(kb, 0, 0, 1, 2);
	pto_kb_end(kb);
	KERNEL(k, kb);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int64_t sc[2] = { cases[i][0], cases[i][1] };

		st = run_one(self->dev, self->q, &(struct pto_task_desc){
			.kernel_aiv = k, .block_num = 1, .tensors = args,
			.num_tensors = 1, .scalars = sc, .num_scalars = 2 },
			&detail, err, sizeof(err));
		EXPECT_EQ(PTO_STATUS_GM_FAULT, st) TH_LOG("%s", err);
		EXPECT_EQ((uint64_t)cases[i][2], detail)
			TH_LOG("[%lld, %lld]", (long long)cases[i][0], (long long)cases[i][1]);
	}
	/* The last element is inside. */
	{
		int64_t sc[2] = { 3, 7 };

		RUN_EXPECT(PTO_STATUS_OK, (&(struct pto_task_desc){
			.kernel_aiv = k, .block_num = 1, .tensors = args,
			.num_tensors = 1, .scalars = sc, .num_scalars = 2 }));
	}
	EXPECT_EQ(77, ((int64_t *)pto_tensor_data(out))[31]);
}

TEST_F(run, loop_count_out_of_range_loop_fault)
{
	static const int64_t counts[] = { -1, INT64_MIN, PTO_MAX_LOOP_COUNT + 1,
					  INT64_MAX };
	struct pto_tensor *out, *args[1];
	struct pto_kernel *k;
	struct pto_kb *kb;
	uint64_t detail;
	char err[256];
	unsigned int i;
	int idx, st;

	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I64, 1, 2, &out));
	args[0] = out;
	/* out[0] = iterations of a loop of scalar 0 iterations. */
	ASSERT_EQ(0, pto_kb_new(self->dev, PTO_CORE_AIV, &kb));
	pto_kb_arg(kb, 0, 0);
	pto_kb_ldi(kb, 2, 0);
	pto_kb_ldi(kb, 3, 0);
	pto_kb_loop(kb, 1, 0);
	pto_kb_alui(kb, PTO_ALU_ADD, 2, 2, 1);
	pto_kb_endloop(kb);
	pto_kb_gst(kb, 0, 3, 3, 2);
	pto_kb_end(kb);
	idx = find_insn(kb, PTO_OP_LOOP, -1);
	ASSERT_LT(0, idx);
	KERNEL(k, kb);

	for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		st = run_one(self->dev, self->q, &(struct pto_task_desc){
			.kernel_aiv = k, .block_num = 1, .tensors = args,
			.num_tensors = 1, .scalars = &counts[i], .num_scalars = 1 },
			&detail, err, sizeof(err));
		EXPECT_EQ(PTO_STATUS_LOOP_FAULT, st)
			TH_LOG("count %lld: %s", (long long)counts[i], err);
		EXPECT_EQ((uint64_t)idx, detail);
		EXPECT_EQ(0, ((int64_t *)pto_tensor_data(out))[0]);
	}
	/* In range, the same kernel runs. */
	{
		int64_t n = 1000;

		RUN_EXPECT(PTO_STATUS_OK, (&(struct pto_task_desc){
			.kernel_aiv = k, .block_num = 1, .tensors = args,
			.num_tensors = 1, .scalars = &n, .num_scalars = 1 }));
	}
	EXPECT_EQ(1000, ((int64_t *)pto_tensor_data(out))[0]);
}

TEST_HARNESS_MAIN
