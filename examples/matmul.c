// SPDX-License-Identifier: MIT
/*
 * c = a x b, 128x128x128 f32, on a cube core (AIC), two ways in one graph:
 *  - whole: a into an L0A tile, b into L0B, one MATMUL into L0C, TSTORE;
 *  - K-split: L0C filled with zeros, then a loop over four 32-wide slices
 *    of K, each loaded into smaller L0A/L0B tiles and accumulated
 *    (MATMUL with the ACC flag).
 * Both are checked against a double-precision CPU product.
 */
#ifndef _GNU_SOURCE
#define _POSIX_C_SOURCE 200809L /* setenv() (example.h) under -std=c11 */
#endif
#include <math.h>
#include <string.h>

#include "example.h"

#define M 128
#define K 128
#define N 128
#define K_SLICE 32

/*
 * Tolerance: the device sums K f32 products; its rounding error is bounded
 * by about K * 2^-24 times the sum of the products' magnitudes. Allow
 * 1e-4 of that sum (with K = 128 the bound is ~7.6e-6 of it).
 */
#define REL_TOL 1e-4

enum { ARG_A, ARG_B, ARG_C };

static struct pto_kernel *build_whole(struct pto_device *dev)
{
	struct pto_kb *kb;
	int ta, tb, tc;

	ex_check(pto_kb_new(dev, PTO_CORE_AIC, &kb), "kernel builder");
	ta = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_L0A, M, K);
	tb = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_L0B, K, N);
	tc = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_L0C, M, N);
	pto_kb_ldi(kb, 0, 0);
	pto_kb_tload(kb, ta, ARG_A, 0, 0);
	pto_kb_tload(kb, tb, ARG_B, 0, 0);
	pto_kb_matmul(kb, tc, ta, tb, false);
	pto_kb_tstore(kb, tc, ARG_C, 0, 0);
	pto_kb_end(kb);
	return ex_finish(kb, "matmul_whole");
}

static struct pto_kernel *build_ksplit(struct pto_device *dev)
{
	struct pto_kb *kb;
	int ta, tb, tc;

	ex_check(pto_kb_new(dev, PTO_CORE_AIC, &kb), "kernel builder");
	ta = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_L0A, M, K_SLICE);
	tb = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_L0B, K_SLICE, N);
	tc = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_L0C, M, N);
	pto_kb_ldi(kb, 0, 0);
	pto_kb_tfillf(kb, tc, 0.0f);
	pto_kb_loopi(kb, 1, K / K_SLICE); /* s1 = slice */
	pto_kb_alui(kb, PTO_ALU_MUL, 2, 1, K_SLICE); /* s2 = its first k */
	pto_kb_tload(kb, ta, ARG_A, 0, 2); /* a[0.., s2..] */
	pto_kb_tload(kb, tb, ARG_B, 2, 0); /* b[s2.., 0..] */
	pto_kb_matmul(kb, tc, ta, tb, true);
	pto_kb_endloop(kb);
	pto_kb_tstore(kb, tc, ARG_C, 0, 0);
	pto_kb_end(kb);
	return ex_finish(kb, "matmul_ksplit");
}

static void check_product(const float *a, const float *b, const float *c,
			  const char *what)
{
	unsigned int i, j, k;

	for (i = 0; i < M; i++) {
		for (j = 0; j < N; j++) {
			double ref = 0, mag = 0;

			for (k = 0; k < K; k++) {
				double p = (double)a[i * K + k] * b[k * N + j];

				ref += p;
				mag += fabs(p);
			}
			if (fabs(c[i * N + j] - ref) > REL_TOL * mag)
				ex_fail("%s: c[%u][%u] = %.9g, want %.9g (tolerance %.3g)",
					what, i, j, c[i * N + j], ref,
					REL_TOL * mag);
		}
	}
}

int main(void)
{
	struct pto_tensor *a, *b, *c1, *c2, *args1[3], *args2[3];
	struct pto_kernel *k_whole, *k_ksplit;
	struct pto_device *dev;
	struct pto_queue *q;
	struct pto_graph *g;
	float *pa, *pb;
	unsigned int i;

	ex_name = "matmul";
	ex_check(pto_device_open(0, &dev), "open device 0");
	ex_check(pto_tensor_alloc(dev, PTO_DTYPE_F32, 2,
				  (const int64_t[]){ M, K }, &a),
		 "tensor a");
	ex_check(pto_tensor_alloc(dev, PTO_DTYPE_F32, 2,
				  (const int64_t[]){ K, N }, &b),
		 "tensor b");
	ex_check(pto_tensor_alloc(dev, PTO_DTYPE_F32, 2,
				  (const int64_t[]){ M, N }, &c1),
		 "tensor c1");
	ex_check(pto_tensor_alloc(dev, PTO_DTYPE_F32, 2,
				  (const int64_t[]){ M, N }, &c2),
		 "tensor c2");
	pa = pto_tensor_data(a);
	pb = pto_tensor_data(b);
	/* Deterministic values in [-1, 1). */
	for (i = 0; i < M * K; i++)
		pa[i] = (float)((i * 7919u) % 2000u) / 1000.0f - 1.0f;
	for (i = 0; i < K * N; i++)
		pb[i] = (float)((i * 104729u + 13u) % 2000u) / 1000.0f - 1.0f;

	k_whole = build_whole(dev);
	k_ksplit = build_ksplit(dev);
	ex_check(pto_queue_create(dev, 0, 0, &q), "queue");
	ex_check(pto_graph_new(dev, &g), "graph");

	args1[ARG_A] = a;
	args1[ARG_B] = b;
	args1[ARG_C] = c1;
	memcpy(args2, args1, sizeof(args2));
	args2[ARG_C] = c2;
	ex_add(g, &(struct pto_task_desc){ .name = "matmul_whole",
					   .kernel_aic = k_whole,
					   .block_num = 1,
					   .tensors = args1,
					   .num_tensors = 3 });
	ex_add(g, &(struct pto_task_desc){ .name = "matmul_ksplit",
					   .kernel_aic = k_ksplit,
					   .block_num = 1,
					   .tensors = args2,
					   .num_tensors = 3 });
	ex_run(g, q, "matmul graph");
	check_product(pa, pb, pto_tensor_data(c1), "matmul_whole");
	check_product(pa, pb, pto_tensor_data(c2), "matmul_ksplit");
	ex_print_blocks(g, 0);
	ex_print_blocks(g, 1);

	pto_graph_free(g);
	ex_check(pto_queue_destroy(q), "destroy queue");
	pto_kernel_free(k_whole);
	pto_kernel_free(k_ksplit);
	pto_tensor_free(a);
	pto_tensor_free(b);
	pto_tensor_free(c1);
	pto_tensor_free(c2);
	pto_device_close(dev);
	printf("PASS matmul\n");
	return 0;
}
