// SPDX-License-Identifier: GPL-2.0-only
/*
 * pto_npu: f32 tile math. This is the only file compiled with the FPU
 * enabled ($(CC_FLAGS_FPU)); every entry point takes and returns bit
 * patterns through pointers (never a float across the boundary) and does
 * its work in kernel_fpu_begin()/kernel_fpu_end() sections of at most
 * PTO_FP_CHUNK elements, so preemption is never held off for long.
 *
 * Numerics: add/sub/mul/div/max/min/sqrt are IEEE single precision
 * (correctly rounded); exp is computed in double and rounded, within 1 ulp;
 * matmul accumulates each dot product in f32 in k order.
 *
 * Copyright (C) 2026 pto-npu authors
 */

#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <asm/fpu/api.h>
#include <kunit/visibility.h>

#include "pto_exec.h"

#define PTO_FP_CHUNK 2048

/* MXCSR's precision (inexact) flag: sticky status, no effect on results. */
#define PTO_MXCSR_PE 0x0020

/*
 * kernel_fpu_begin() with the inexact flag already set. It changes no
 * result (exceptions stay masked), but qemu's TCG does an f32 op on the
 * host's FPU only while the flag is set, and in its softfloat library,
 * about 2.5x slower, until some op has rounded: exact data (small integers,
 * as in most tests) would never get there within a chunk.
 */
static void pto_fpu_begin(void)
{
	kernel_fpu_begin();
#ifdef CONFIG_X86_64
	{
		u32 mxcsr = MXCSR_DEFAULT | PTO_MXCSR_PE;

		asm volatile("ldmxcsr %0" : : "m" (mxcsr));
	}
#endif
}

static inline float pto_f(u32 bits)
{
	float f;

	memcpy(&f, &bits, sizeof(f));
	return f;
}

static inline u32 pto_bits(float f)
{
	u32 bits;

	memcpy(&bits, &f, sizeof(bits));
	return bits;
}

static inline float pto_sqrtf(float x)
{
#ifdef CONFIG_X86
	asm("sqrtss %1, %0" : "=x"(x) : "x"(x));
	return x;
#else
	double r = x > 1.0f ? x : 1.0;
	int i;

	if (!(x > 0.0f))
		return x == 0.0f ? x : pto_f(0x7fc00000);
	for (i = 0; i < 64; i++)
		r = 0.5 * (r + x / r);
	return (float)r;
#endif
}

/* exp(x) = 2^k * exp(r), r = x - k ln2, |r| <= ln2 / 2, in double. */
static float pto_expf(float xf)
{
	const double ln2 = 0.69314718055994530942;
	const double inv_ln2 = 1.44269504088896340736;
	double x = xf, r, p, scale;
	long k;
	u64 bits;

	if (xf != xf)
		return xf;
	if (xf > 88.7228394f)
		return pto_f(0x7f800000);
	if (xf < -103.972084f)
		return 0.0f;
	k = (long)(x * inv_ln2 + (x >= 0 ? 0.5 : -0.5));
	r = x - (double)k * ln2;
	/* Taylor to r^9: |error| < 2e-12 relative for |r| <= 0.347. */
	p = 1.0 + r * (1.0 + r * (1.0 / 2 + r * (1.0 / 6 + r * (1.0 / 24 +
	    r * (1.0 / 120 + r * (1.0 / 720 + r * (1.0 / 5040 +
	    r * (1.0 / 40320 + r * (1.0 / 362880)))))))));
	bits = (u64)(k + 1023) << 52;
	memcpy(&scale, &bits, sizeof(scale));
	return (float)(p * scale);
}

/*
 * Four lanes at a time: one SIMD instruction per four elements (under an
 * emulator, one helper call instead of four). Lanes are loaded and stored
 * with memcpy, so tiles need no alignment; every lane's arithmetic is the
 * scalar IEEE operation, so results are the same bits as the scalar loop.
 */
/* A type, spelled as a macro: kernel style has no new typedefs. */
#define pto_v4f float __attribute__((vector_size(16)))
typedef s32 pto_v4i __attribute__((vector_size(16)));

#define PTO_V4 4

static inline pto_v4f pto_v4_load(const u32 *p)
{
	pto_v4f v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline pto_v4f pto_v4_splat(float x)
{
	const float lanes[PTO_V4] = { x, x, x, x };
	pto_v4f v;

	memcpy(&v, lanes, sizeof(v));
	return v;
}

static inline void pto_v4_store(u32 *p, pto_v4f v)
{
	memcpy(p, &v, sizeof(v));
}

/* The first @n (< 4) lanes; the others are zero. */
static inline pto_v4f pto_v4_load_part(const u32 *p, size_t n)
{
	u32 lanes[PTO_V4] = {};

	memcpy(lanes, p, n * sizeof(*p));
	return pto_v4_load(lanes);
}

static inline void pto_v4_store_part(u32 *p, pto_v4f v, size_t n)
{
	u32 lanes[PTO_V4];

	pto_v4_store(lanes, v);
	memcpy(p, lanes, n * sizeof(*p));
}

/* a > b ? a : b per lane (x86 MAXPS semantics: NaN and ±0 give b). */
static inline pto_v4f pto_v4_select(pto_v4i take_a, pto_v4f a, pto_v4f b)
{
	pto_v4i ai, bi;

	memcpy(&ai, &a, sizeof(ai));
	memcpy(&bi, &b, sizeof(bi));
	ai = (ai & take_a) | (bi & ~take_a);
	memcpy(&a, &ai, sizeof(a));
	return a;
}

static inline pto_v4f pto_v4_bin(u32 op, pto_v4f a, pto_v4f b)
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
		return pto_v4_select(a > b, a, b);
	default:
		return pto_v4_select(a < b, a, b);
	}
}

/*
 * dst[i] = a[i] op (b ? b[i] : s). @op is a compile-time constant in each
 * caller below, so the switch is resolved outside the element loop. The
 * last 1..3 elements go through the same lanes, the unused ones zero
 * (their results, NaN for 0 / 0, are dropped; FP exceptions are masked).
 */
static __always_inline void pto_bin_chunk(u32 op, u32 *dst, const u32 *a,
					  const u32 *b, u32 s, size_t i,
					  size_t end)
{
	pto_v4f sv = pto_v4_splat(pto_f(s));

	for (; i + PTO_V4 <= end; i += PTO_V4)
		pto_v4_store(dst + i, pto_v4_bin(op, pto_v4_load(a + i),
						 b ? pto_v4_load(b + i) : sv));
	if (i < end)
		pto_v4_store_part(dst + i,
				  pto_v4_bin(op, pto_v4_load_part(a + i, end - i),
					     b ? pto_v4_load_part(b + i, end - i) : sv),
				  end - i);
}

static void pto_bin_range(u32 op, u32 *dst, const u32 *a, const u32 *b,
			  u32 s, size_t i, size_t end)
{
	switch (op) {
	case PTO_TBIN_ADD:
		pto_bin_chunk(PTO_TBIN_ADD, dst, a, b, s, i, end);
		break;
	case PTO_TBIN_SUB:
		pto_bin_chunk(PTO_TBIN_SUB, dst, a, b, s, i, end);
		break;
	case PTO_TBIN_MUL:
		pto_bin_chunk(PTO_TBIN_MUL, dst, a, b, s, i, end);
		break;
	case PTO_TBIN_DIV:
		pto_bin_chunk(PTO_TBIN_DIV, dst, a, b, s, i, end);
		break;
	case PTO_TBIN_MAX:
		pto_bin_chunk(PTO_TBIN_MAX, dst, a, b, s, i, end);
		break;
	case PTO_TBIN_MIN:
		pto_bin_chunk(PTO_TBIN_MIN, dst, a, b, s, i, end);
		break;
	default:
		memset(dst + i, 0, (end - i) * sizeof(*dst));
		break;
	}
}

#ifdef CONFIG_X86_64
/*
 * Eight lanes with AVX2, where the CPU has it and the kernel saves its
 * registers: half the instructions of the four-lane form, and under qemu's
 * TCG half the helper calls, which is most of an f32 tile op's time there
 * (Documentation/performance.rst, row 8). Same lane arithmetic, so the
 * same bits; the last 1..7 elements take the four-lane form.
 */
#define PTO_AVX2 __attribute__((target("avx2")))
#define pto_v8f float __attribute__((vector_size(32)))
typedef s32 pto_v8i __attribute__((vector_size(32)));

#define PTO_V8 8

static __always_inline PTO_AVX2 pto_v8f pto_v8_load(const u32 *p)
{
	pto_v8f v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static __always_inline PTO_AVX2 void pto_v8_store(u32 *p, pto_v8f v)
{
	memcpy(p, &v, sizeof(v));
}

static __always_inline PTO_AVX2 pto_v8f pto_v8_select(pto_v8i take_a,
						      pto_v8f a, pto_v8f b)
{
	pto_v8i ai, bi;

	memcpy(&ai, &a, sizeof(ai));
	memcpy(&bi, &b, sizeof(bi));
	ai = (ai & take_a) | (bi & ~take_a);
	memcpy(&a, &ai, sizeof(a));
	return a;
}

static __always_inline PTO_AVX2 pto_v8f pto_v8_bin(u32 op, pto_v8f a,
						   pto_v8f b)
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
		return pto_v8_select(a > b, a, b);
	default:
		return pto_v8_select(a < b, a, b);
	}
}

static __always_inline PTO_AVX2 void pto_bin_chunk8(u32 op, u32 *dst,
						    const u32 *a, const u32 *b,
						    u32 s, size_t i, size_t end)
{
	const u32 lanes[PTO_V8] = { s, s, s, s, s, s, s, s };
	pto_v8f sv = pto_v8_load(lanes);

	for (; i + PTO_V8 <= end; i += PTO_V8)
		pto_v8_store(dst + i, pto_v8_bin(op, pto_v8_load(a + i),
						 b ? pto_v8_load(b + i) : sv));
	pto_bin_chunk(op, dst, a, b, s, i, end);
}

static noinline PTO_AVX2 void pto_bin_range8(u32 op, u32 *dst, const u32 *a,
					     const u32 *b, u32 s, size_t i,
					     size_t end)
{
	/* The same switch as pto_bin_range()'s, to eight-lane chunks. */
	switch (op) {
	case PTO_TBIN_ADD:
		pto_bin_chunk8(PTO_TBIN_ADD, dst, a, b, s, i, end);
		break;
	case PTO_TBIN_SUB:
		pto_bin_chunk8(PTO_TBIN_SUB, dst, a, b, s, i, end);
		break;
	case PTO_TBIN_MUL:
		pto_bin_chunk8(PTO_TBIN_MUL, dst, a, b, s, i, end);
		break;
	case PTO_TBIN_DIV:
		pto_bin_chunk8(PTO_TBIN_DIV, dst, a, b, s, i, end);
		break;
	case PTO_TBIN_MAX:
		pto_bin_chunk8(PTO_TBIN_MAX, dst, a, b, s, i, end);
		break;
	case PTO_TBIN_MIN:
		pto_bin_chunk8(PTO_TBIN_MIN, dst, a, b, s, i, end);
		break;
	default:
		memset(dst + i, 0, (end - i) * sizeof(*dst));
		break;
	}
}

static bool pto_fp_has_avx2(void)
{
	return boot_cpu_has(X86_FEATURE_AVX2) &&
	       cpu_has_xfeatures(XFEATURE_MASK_SSE | XFEATURE_MASK_YMM, NULL);
}
#else
static void pto_bin_range8(u32 op, u32 *dst, const u32 *a, const u32 *b,
			   u32 s, size_t i, size_t end)
{
	pto_bin_range(op, dst, a, b, s, i, end);
}

static bool pto_fp_has_avx2(void)
{
	return false;
}
#endif

/**
 * pto_fp_bin - f32 elementwise binary operation, the form chosen
 * @op: &enum pto_tbin (an unknown one gives zeros)
 * @dst: out: @n results
 * @a: left operands
 * @b: right operands, or NULL for @s
 * @s: the scalar right operand when @b is NULL
 * @n: elements
 * @wide: eight lanes at a time if the CPU can (AVX2), else four
 *
 * dst = a op (b ? b : s), in FPU sections of at most PTO_FP_CHUNK
 * elements. Exported for KUnit, which checks that both forms give the
 * same bits.
 */
VISIBLE_IF_KUNIT void pto_fp_bin(u32 op, u32 *dst, const u32 *a,
				 const u32 *b, u32 s, size_t n, bool wide)
{
	size_t i, end;

	wide = wide && pto_fp_has_avx2();
	for (i = 0; i < n; i = end) {
		end = min(n, i + PTO_FP_CHUNK);
		pto_fpu_begin();
		if (wide)
			pto_bin_range8(op, dst, a, b, s, i, end);
		else
			pto_bin_range(op, dst, a, b, s, i, end);
		kernel_fpu_end();
		cond_resched();
	}
}
EXPORT_SYMBOL_IF_KUNIT(pto_fp_bin);

/**
 * pto_fp_tbin - TBIN on f32 tiles: dst = a op b
 * @op: &enum pto_tbin
 * @dst: out: @n results
 * @a: left operands
 * @b: right operands
 * @n: elements
 */
void pto_fp_tbin(u32 op, u32 *dst, const u32 *a, const u32 *b, size_t n)
{
	pto_fp_bin(op, dst, a, b, 0, n, true);
}

/**
 * pto_fp_tbins - TBINS on f32 tiles: dst = a op s
 * @op: &enum pto_tbin
 * @dst: out: @n results
 * @a: left operands
 * @s: the right operand, an f32 bit pattern
 * @n: elements
 */
void pto_fp_tbins(u32 op, u32 *dst, const u32 *a, u32 s, size_t n)
{
	pto_fp_bin(op, dst, a, NULL, s, n, true);
}

static float pto_unary(u32 op, float x)
{
	switch (op) {
	case PTO_TUNARY_EXP:
		return pto_expf(x);
	case PTO_TUNARY_SQRT:
		return pto_sqrtf(x);
	case PTO_TUNARY_RELU:
		return x > 0.0f ? x : 0.0f;
	case PTO_TUNARY_NEG:
		return -x;
	case PTO_TUNARY_ABS:
		return x < 0.0f ? -x : x;
	}
	return 0.0f;
}

/**
 * pto_fp_tunary - TUNARY on f32 tiles: dst = op(a)
 * @op: &enum pto_tunary (an unknown one gives zeros)
 * @dst: out: @n results
 * @a: operands
 * @n: elements
 */
void pto_fp_tunary(u32 op, u32 *dst, const u32 *a, size_t n)
{
	size_t i, end;

	for (i = 0; i < n; i = end) {
		end = min(n, i + PTO_FP_CHUNK);
		pto_fpu_begin();
		for (; i < end; i++)
			dst[i] = pto_bits(pto_unary(op, pto_f(a[i])));
		kernel_fpu_end();
		cond_resched();
	}
}

/**
 * pto_fp_rowred - TROWRED on an f32 tile: each row's sum or maximum
 * @op: &enum pto_rowred (PTO_ROWRED_SUM, else the maximum)
 * @dst: out: @rows results
 * @a: the tile, @rows x @cols, row-major
 * @rows: rows
 * @cols: columns (at least one)
 *
 * Sums are accumulated in f32 in column order.
 */
void pto_fp_rowred(u32 op, u32 *dst, const u32 *a, u32 rows, u32 cols)
{
	u32 r, c;

	for (r = 0; r < rows; r++) {
		const u32 *row = a + (size_t)r * cols;
		float acc;

		pto_fpu_begin();
		acc = pto_f(row[0]);
		for (c = 1; c < cols; c++) {
			float x = pto_f(row[c]);

			if (op == PTO_ROWRED_SUM)
				acc += x;
			else if (x > acc)
				acc = x;
		}
		dst[r] = pto_bits(acc);
		kernel_fpu_end();
	}
}

/* crow[j] += av * brow[j] from @j to @n: four lanes, then one by one. */
static __always_inline void pto_axpy4(u32 *crow, const u32 *brow, u32 av,
				      u32 j, u32 n)
{
	pto_v4f av4 = pto_v4_splat(pto_f(av));

	for (; j + PTO_V4 <= n; j += PTO_V4)
		pto_v4_store(crow + j, pto_v4_load(crow + j) +
			     av4 * pto_v4_load(brow + j));
	for (; j < n; j++)
		crow[j] = pto_bits(pto_f(crow[j]) + pto_f(av) * pto_f(brow[j]));
}

#ifdef CONFIG_X86_64
/* The same, eight lanes first (no FMA: a product is rounded, then summed). */
static noinline PTO_AVX2 void pto_axpy8(u32 *crow, const u32 *brow, u32 av,
					u32 n)
{
	const u32 lanes[PTO_V8] = { av, av, av, av, av, av, av, av };
	pto_v8f av8 = pto_v8_load(lanes);
	u32 j;

	for (j = 0; j + PTO_V8 <= n; j += PTO_V8)
		pto_v8_store(crow + j, pto_v8_load(crow + j) +
			     av8 * pto_v8_load(brow + j));
	pto_axpy4(crow, brow, av, j, n);
}
#else
static void pto_axpy8(u32 *crow, const u32 *brow, u32 av, u32 n)
{
	pto_axpy4(crow, brow, av, 0, n);
}
#endif

/**
 * pto_fp_matmul - rows of an f32 matrix product, the form chosen
 * @c: C (m x n), row-major: out, or in and out if @acc
 * @a: A (m x k), row-major
 * @b: B (k x n), row-major
 * @m0: first row of C to compute
 * @m1: one past the last
 * @k: columns of A, rows of B
 * @n: columns of B and C
 * @acc: add to C (else overwrite it)
 * @wide: eight columns of C at a time if the CPU can (AVX2), else four
 *
 * Rows @m0..@m1-1 of C = A x B (+ C). i-l-j order: B and C rows stream,
 * A[i][l] stays in a register. Each C element still sums its products in
 * l order, so both forms give the same bits (KUnit pto_fp).
 */
VISIBLE_IF_KUNIT void pto_fp_matmul(u32 *c, const u32 *a, const u32 *b,
				    u32 m0, u32 m1, u32 k, u32 n, bool acc,
				    bool wide)
{
	u32 i, l;

	wide = wide && pto_fp_has_avx2();
	pto_fpu_begin();
	for (i = m0; i < m1; i++) {
		u32 *crow = c + (size_t)i * n;
		const u32 *arow = a + (size_t)i * k;

		if (!acc)
			memset(crow, 0, sizeof(*crow) * n);
		for (l = 0; l < k; l++) {
			const u32 *brow = b + (size_t)l * n;

			if (wide)
				pto_axpy8(crow, brow, arow[l], n);
			else
				pto_axpy4(crow, brow, arow[l], 0, n);
		}
	}
	kernel_fpu_end();
}
EXPORT_SYMBOL_IF_KUNIT(pto_fp_matmul);

/**
 * pto_fp_matmul_rows - MATMUL: rows of C = A x B (+ C), f32
 * @c: C (m x n), row-major
 * @a: A (m x k), row-major
 * @b: B (k x n), row-major
 * @m0: first row of C to compute
 * @m1: one past the last
 * @k: columns of A, rows of B
 * @n: columns of B and C
 * @acc: add to C (else overwrite it)
 *
 * One FPU section: the caller bounds @m1 - @m0.
 */
void pto_fp_matmul_rows(u32 *c, const u32 *a, const u32 *b, u32 m0, u32 m1,
			u32 k, u32 n, bool acc)
{
	pto_fp_matmul(c, a, b, m0, m1, k, n, acc, true);
}

/**
 * pto_fp_to_int - f32 to s64, truncating toward zero, saturating
 * @dst: out: @n integers
 * @a: @n f32 bit patterns
 * @n: elements (one FPU section: the caller bounds it)
 *
 * NaN converts to 0.
 */
void pto_fp_to_int(s64 *dst, const u32 *a, size_t n)
{
	size_t i;

	pto_fpu_begin();
	for (i = 0; i < n; i++) {
		float x = pto_f(a[i]);

		if (x != x)
			dst[i] = 0;
		else if (x >= 9.2233720368547758e18f)
			dst[i] = S64_MAX;
		else if (x <= -9.2233720368547758e18f)
			dst[i] = S64_MIN;
		else
			dst[i] = (s64)x;
	}
	kernel_fpu_end();
}

/**
 * pto_fp_from_int - s64 to f32, rounded to nearest
 * @dst: out: @n f32 bit patterns
 * @a: @n integers
 * @n: elements (one FPU section: the caller bounds it)
 */
void pto_fp_from_int(u32 *dst, const s64 *a, size_t n)
{
	size_t i;

	pto_fpu_begin();
	for (i = 0; i < n; i++)
		dst[i] = pto_bits((float)a[i]);
	kernel_fpu_end();
}
