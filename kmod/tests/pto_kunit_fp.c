// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit: f32 tile math (pto_exec_fp.c). The eight-lane (AVX2) and the
 * four-lane forms of every binary op and of matmul must give the same
 * bits, tails and chunk boundaries included, and leave everything past the
 * tile alone.
 * This file has no floating point: values are bit patterns.
 *
 * Copyright (C) 2026 pto-npu authors
 */

#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/prandom.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "../pto_exec.h"

#define PTO_FPT_MAX 4200	/* past two 2048-element chunks */
#define PTO_FPT_CANARY 0xdeadbeef

/* Zeros, ones, extremes, subnormals, infinities, NaNs, and plain values. */
static const u32 pto_fpt_special[] = {
	0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x40000000,
	0x00000001, 0x807fffff, 0x00800000, 0x7f7fffff, 0xff7fffff,
	0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001, 0x7fa00000,
	0x3fc00000, 0x40400000, 0x0da24260, 0x7149f2ca, 0xc2f6e979,
};

static void pto_fpt_fill(u32 *v, size_t n, struct rnd_state *rnd)
{
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = i % 3 ? prandom_u32_state(rnd) :
		       pto_fpt_special[prandom_u32_state(rnd) %
				       ARRAY_SIZE(pto_fpt_special)];
}

static const u32 pto_fpt_ops[] = {
	PTO_TBIN_ADD, PTO_TBIN_SUB, PTO_TBIN_MUL,
	PTO_TBIN_DIV, PTO_TBIN_MAX, PTO_TBIN_MIN,
};

static const size_t pto_fpt_sizes[] = {
	0, 1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 2047, 2048, 2049, 4103,
	PTO_FPT_MAX,
};

static void pto_fp_wide_matches_narrow(struct kunit *test)
{
	size_t bytes = (PTO_FPT_MAX + 1) * sizeof(u32);
	u32 *a = kunit_kmalloc(test, bytes, GFP_KERNEL);
	u32 *b = kunit_kmalloc(test, bytes, GFP_KERNEL);
	u32 *w = kunit_kmalloc(test, bytes, GFP_KERNEL);
	u32 *nw = kunit_kmalloc(test, bytes, GFP_KERNEL);
	struct rnd_state rnd;
	size_t o, z, i;

	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_ASSERT_NOT_NULL(test, nw);
	prandom_seed_state(&rnd, 0x70746f);
	pto_fpt_fill(a, PTO_FPT_MAX, &rnd);
	pto_fpt_fill(b, PTO_FPT_MAX, &rnd);

	for (o = 0; o < ARRAY_SIZE(pto_fpt_ops); o++) {
		for (z = 0; z < ARRAY_SIZE(pto_fpt_sizes); z++) {
			size_t n = pto_fpt_sizes[z];
			/* Odd offsets: no alignment to lean on. */
			size_t off = z & 1;
			u32 s = b[z];
			int scalar;

			if (n + off > PTO_FPT_MAX)
				n = PTO_FPT_MAX - off;
			for (scalar = 0; scalar < 2; scalar++) {
				const u32 *bb = scalar ? NULL : b + off;

				memset32(w, PTO_FPT_CANARY, PTO_FPT_MAX + 1);
				memset32(nw, PTO_FPT_CANARY, PTO_FPT_MAX + 1);
				pto_fp_bin(pto_fpt_ops[o], w + off, a + off, bb,
					   s, n, true);
				pto_fp_bin(pto_fpt_ops[o], nw + off, a + off,
					   bb, s, n, false);
				for (i = 0; i <= PTO_FPT_MAX; i++)
					if (w[i] != nw[i])
						break;
				KUNIT_EXPECT_EQ_MSG(test, i, PTO_FPT_MAX + 1,
						    "op %u n %zu scalar %d: 0x%08x vs 0x%08x",
						    pto_fpt_ops[o], n, scalar,
						    i <= PTO_FPT_MAX ? w[i] : 0,
						    i <= PTO_FPT_MAX ? nw[i] : 0);
				KUNIT_EXPECT_EQ(test, w[off + n], PTO_FPT_CANARY);
				if (off)
					KUNIT_EXPECT_EQ(test, w[0], PTO_FPT_CANARY);
			}
		}
	}
}

/* A few results whose bits are known, through both forms. */
static void pto_fp_bin_known_bits(struct kunit *test)
{
	static const struct {
		u32 op, a, b, r;
	} c[] = {
		{ PTO_TBIN_ADD, 0x3f800000, 0x40000000, 0x40400000 }, /* 1+2 */
		{ PTO_TBIN_ADD, 0x00000000, 0x80000000, 0x00000000 }, /* 0+-0 */
		{ PTO_TBIN_ADD, 0x7f7fffff, 0x7f7fffff, 0x7f800000 }, /* inf */
		{ PTO_TBIN_SUB, 0x40400000, 0x3f800000, 0x40000000 }, /* 3-1 */
		{ PTO_TBIN_MUL, 0x3fc00000, 0x40000000, 0x40400000 }, /* 1.5*2 */
		{ PTO_TBIN_MUL, 0x00000001, 0x3f000000, 0x00000000 }, /* RNE */
		{ PTO_TBIN_DIV, 0x3f800000, 0x00000000, 0x7f800000 }, /* 1/0 */
		{ PTO_TBIN_DIV, 0x00000000, 0x00000000, 0xffc00000 }, /* 0/0 */
		{ PTO_TBIN_MAX, 0x3f800000, 0x40000000, 0x40000000 },
		{ PTO_TBIN_MAX, 0x7fc00000, 0x3f800000, 0x3f800000 }, /* NaN */
		{ PTO_TBIN_MIN, 0x3f800000, 0x40000000, 0x3f800000 },
		{ PTO_TBIN_MIN, 0x80000000, 0x00000000, 0x00000000 }, /* -0,0 */
	};
	u32 a[16], b[16], r[16];
	size_t i;
	int wide;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		for (wide = 0; wide < 2; wide++) {
			/* 16 lanes: the eight-lane loop, then the tail. */
			memset32(a, c[i].a, ARRAY_SIZE(a));
			memset32(b, c[i].b, ARRAY_SIZE(b));
			pto_fp_bin(c[i].op, r, a, b, 0, 13, wide);
			KUNIT_EXPECT_EQ_MSG(test, r[0], c[i].r, "case %zu", i);
			KUNIT_EXPECT_EQ_MSG(test, r[12], c[i].r, "case %zu", i);
			pto_fp_bin(c[i].op, r, a, NULL, c[i].b, 11, wide);
			KUNIT_EXPECT_EQ_MSG(test, r[10], c[i].r, "case %zu", i);
		}
	}
}

/* Finite values whose sums round: products of random mantissas. */
static void pto_fpt_fill_finite(u32 *v, size_t n, struct rnd_state *rnd)
{
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = (prandom_u32_state(rnd) & 0x807fffff) |
		       ((120 + prandom_u32_state(rnd) % 16) << 23);
}

static void pto_fp_matmul_wide_matches_narrow(struct kunit *test)
{
	static const u32 ns[] = { 1, 3, 4, 7, 8, 9, 16, 17, 33, 128 };
	enum { M = 5, K = 7, NMAX = 128 };
	u32 *a = kunit_kmalloc_array(test, M * K, sizeof(u32), GFP_KERNEL);
	u32 *b = kunit_kmalloc_array(test, K * NMAX, sizeof(u32), GFP_KERNEL);
	u32 *cw = kunit_kmalloc_array(test, M * NMAX + 1, sizeof(u32),
				      GFP_KERNEL);
	u32 *cn = kunit_kmalloc_array(test, M * NMAX + 1, sizeof(u32),
				      GFP_KERNEL);
	struct rnd_state rnd;
	size_t z, i;
	int acc;

	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_ASSERT_NOT_NULL(test, cw);
	KUNIT_ASSERT_NOT_NULL(test, cn);
	prandom_seed_state(&rnd, 0x6d6d);
	pto_fpt_fill_finite(a, M * K, &rnd);
	pto_fpt_fill_finite(b, K * NMAX, &rnd);
	a[3] = 0x7fc00000;	/* a NaN row element and an infinity */
	b[5] = 0x7f800000;
	for (z = 0; z < ARRAY_SIZE(ns); z++) {
		u32 n = ns[z];

		for (acc = 0; acc < 2; acc++) {
			pto_fpt_fill_finite(cw, M * n, &rnd);
			memcpy(cn, cw, M * n * sizeof(u32));
			cw[M * n] = PTO_FPT_CANARY;
			cn[M * n] = PTO_FPT_CANARY;
			/* Rows 1..M-1 only: row 0 must stay as it was. */
			pto_fp_matmul(cw, a, b, 1, M, K, n, acc, true);
			pto_fp_matmul(cn, a, b, 1, M, K, n, acc, false);
			for (i = 0; i <= M * n; i++)
				if (cw[i] != cn[i])
					break;
			KUNIT_EXPECT_EQ_MSG(test, i, (size_t)M * n + 1,
					    "n %u acc %d: 0x%08x vs 0x%08x", n,
					    acc, i <= M * n ? cw[i] : 0,
					    i <= M * n ? cn[i] : 0);
			KUNIT_EXPECT_EQ(test, cw[M * n], PTO_FPT_CANARY);
		}
	}
}

/* [1 2; 3 4] x [5 6; 7 8] = [19 22; 43 50], then accumulated once more. */
static void pto_fp_matmul_known_bits(struct kunit *test)
{
	static const u32 a[] = { 0x3f800000, 0x40000000, 0x40400000, 0x40800000 };
	static const u32 b[] = { 0x40a00000, 0x40c00000, 0x40e00000, 0x41000000 };
	static const u32 r[] = { 0x41980000, 0x41b00000, 0x422c0000, 0x42480000 };
	static const u32 r2[] = { 0x42180000, 0x42300000, 0x42ac0000, 0x42c80000 };
	u32 c[4];
	int wide, i;

	for (wide = 0; wide < 2; wide++) {
		memset(c, 0xff, sizeof(c));
		pto_fp_matmul(c, a, b, 0, 2, 2, 2, false, wide);
		for (i = 0; i < 4; i++)
			KUNIT_EXPECT_EQ(test, c[i], r[i]);
		pto_fp_matmul(c, a, b, 0, 2, 2, 2, true, wide);
		for (i = 0; i < 4; i++)
			KUNIT_EXPECT_EQ(test, c[i], r2[i]);
	}
}

static struct kunit_case pto_fp_cases[] = {
	KUNIT_CASE(pto_fp_wide_matches_narrow),
	KUNIT_CASE(pto_fp_bin_known_bits),
	KUNIT_CASE(pto_fp_matmul_wide_matches_narrow),
	KUNIT_CASE(pto_fp_matmul_known_bits),
	{}
};

static struct kunit_suite pto_fp_suite = {
	.name = "pto_fp",
	.test_cases = pto_fp_cases,
};

kunit_test_suites(&pto_fp_suite);
