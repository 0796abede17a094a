// SPDX-License-Identifier: MIT
/*
 * The guide's "Build a mixed kernel": out = A (64x128) x B (128x64) + bias
 * (64x64), f32, five ways:
 *  (a) two tasks: a cube task (AIC) multiplies and writes the product to a
 *      GM scratch tensor; a vector task (AIV), depending on it, loads it
 *      back with the bias, adds and stores;
 *  (b) one mixed task, split NONE: the AIC produces the product in 4 row
 *      chunks of 16 (TLOAD a chunk of A into L0A, MATMUL into L0C, PUSH
 *      the L0C tile); the AIV pops each chunk, loads that chunk of the
 *      bias, adds and stores, while the AIC computes the next chunk;
 *  (c) the same, split UP_DOWN: each PUSH of 16 rows reaches the two AIVs
 *      of the cluster as two 8-row halves; each AIV picks its rows with
 *      its sub_block_id;
 *  (d) SPMD of mixed blocks: M = 128 over 2 blocks of (c), each block
 *      taking 64 rows from its block index;
 *  (e) the guide's own form: one matmul -> add as one mixed task, split
 *      UP_DOWN, slot_num 2. The AIC multiplies the whole 64x128 by 128x64
 *      and PUSHes the 64x64 product once; each AIV pops its 32 rows (the
 *      upper half to sub_block 0, the lower to 1), adds those rows of the
 *      bias and stores them. One tile crosses the ring, so the vector
 *      work can only start once the cube's has ended: what this form
 *      saves over (a) is the second dispatch and the GM round trip, not
 *      overlap (the chunked forms (b) to (d) show that).
 * Every result is checked against a double-precision CPU reference. Each
 * form prints its dispatch count and makespan (last finish - first
 * dispatch over all its records) and, for the mixed ones, the AIC and AIV
 * spans of each block and whether they overlap.
 */
#ifndef _GNU_SOURCE
#define _POSIX_C_SOURCE 200809L /* setenv() (example.h) under -std=c11 */
#endif
#include <math.h>
#include <string.h>

#include "example.h"

#define M 64
#define K 128
#define N 64
#define CH 16		/* rows of one chunk the AIC pushes */
#define NCH (M / CH)	/* chunks per block */
#define M2 (2 * M)	/* rows of the SPMD form, one block per M rows */
#define GUIDE_SLOTS 2	/* the guide's cross_core_slot(slot_num=2) */
/*
 * Ring slots of the chunked forms (b) to (d): fewer than the NCH chunks,
 * so the ring itself holds the cube until each AIV has popped (the cube's
 * third PUSH waits for a free slot on every AIV): the engines overlap by
 * construction, not by the host's scheduling (tools/demo/confirm.py).
 */
#define CHUNK_SLOTS 2
_Static_assert(CHUNK_SLOTS < NCH, "the ring must hold the cube");

/*
 * Tolerance: the device sums K f32 products; its error is bounded by about
 * K * 2^-24 of the sum of their magnitudes (+ the bias). Allow 1e-4 of it.
 */
#define REL_TOL 1e-4

/* Tensor arguments of the mixed tasks (both kernels share them). */
enum { ARG_A, ARG_B, ARG_BIAS, ARG_OUT };

/* (a) cube: scratch = A x B. Arguments: A, B, scratch. */
static struct pto_kernel *build_mm_store(struct pto_device *dev)
{
	struct pto_kb *kb;
	int ta, tb, tc;

	ex_check(pto_kb_new(dev, PTO_CORE_AIC, &kb), "kernel builder");
	ta = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_L0A, M, K);
	tb = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_L0B, K, N);
	tc = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_L0C, M, N);
	pto_kb_ldi(kb, 0, 0);
	pto_kb_tload(kb, ta, 0, 0, 0);
	pto_kb_tload(kb, tb, 1, 0, 0);
	pto_kb_matmul(kb, tc, ta, tb, false);
	pto_kb_tstore(kb, tc, 2, 0, 0);
	pto_kb_end(kb);
	return ex_finish(kb, "mm_store");
}

/* (a) vector: out = scratch + bias. Arguments: scratch, bias, out. */
static struct pto_kernel *build_add_bias(struct pto_device *dev)
{
	struct pto_kb *kb;
	int tp, tb, to;

	ex_check(pto_kb_new(dev, PTO_CORE_AIV, &kb), "kernel builder");
	tp = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, M, N);
	tb = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, M, N);
	to = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, M, N);
	pto_kb_ldi(kb, 0, 0);
	pto_kb_tload(kb, tp, 0, 0, 0);
	pto_kb_tload(kb, tb, 1, 0, 0);
	pto_kb_tbin(kb, PTO_TBIN_ADD, to, tp, tb);
	pto_kb_tstore(kb, to, 2, 0, 0);
	pto_kb_end(kb);
	return ex_finish(kb, "add_bias");
}

/*
 * Mixed, cube side: B once into L0B, then per chunk c: A rows
 * [base + 16c, +16) into L0A, MATMUL into L0C, PUSH. base = block index x M
 * (0 for a single block). s0 = 0, s1 = chunk, s2 = row, s5 = base.
 */
static struct pto_kernel *build_mix_cube(struct pto_device *dev)
{
	struct pto_kb *kb;
	int ta, tb, tc;

	ex_check(pto_kb_new(dev, PTO_CORE_AIC, &kb), "kernel builder");
	ta = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_L0A, CH, K);
	tb = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_L0B, K, N);
	tc = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_L0C, CH, N);
	pto_kb_ldi(kb, 0, 0);
	pto_kb_sreg(kb, 5, PTO_SREG_BLOCK_IDX);
	pto_kb_alui(kb, PTO_ALU_MUL, 5, 5, M);
	pto_kb_tload(kb, tb, ARG_B, 0, 0);
	pto_kb_loopi(kb, 1, NCH);
	pto_kb_alui(kb, PTO_ALU_MUL, 2, 1, CH);
	pto_kb_alu(kb, PTO_ALU_ADD, 2, 2, 5);
	pto_kb_tload(kb, ta, ARG_A, 2, 0);
	pto_kb_matmul(kb, tc, ta, tb, false);
	pto_kb_push(kb, tc);
	pto_kb_endloop(kb);
	pto_kb_end(kb);
	return ex_finish(kb, "mix_cube");
}

/*
 * Mixed, vector side: per chunk, POP its rows of the product, load the
 * same rows of the bias, add, store. Under UP_DOWN a POP brings 8 of the
 * chunk's 16 rows: the upper 8 to sub_block 0, the lower 8 to sub_block
 * 1, so the row is base + 16c + 8 x sub_block_id.
 */
static struct pto_kernel *build_mix_vector(struct pto_device *dev,
					   bool up_down)
{
	uint32_t rows = up_down ? CH / 2 : CH;
	struct pto_kb *kb;
	int tp, tb, to;

	ex_check(pto_kb_new(dev, PTO_CORE_AIV, &kb), "kernel builder");
	tp = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, rows, N);
	tb = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, rows, N);
	to = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, rows, N);
	pto_kb_ldi(kb, 0, 0);
	pto_kb_sreg(kb, 5, PTO_SREG_BLOCK_IDX);
	pto_kb_alui(kb, PTO_ALU_MUL, 5, 5, M);
	if (up_down) {
		pto_kb_sreg(kb, 6, PTO_SREG_SUB_BLOCK_ID);
		pto_kb_alui(kb, PTO_ALU_MUL, 6, 6, rows);
		pto_kb_alu(kb, PTO_ALU_ADD, 5, 5, 6);
	}
	pto_kb_loopi(kb, 1, NCH);
	pto_kb_alui(kb, PTO_ALU_MUL, 2, 1, CH);
	pto_kb_alu(kb, PTO_ALU_ADD, 2, 2, 5);
	pto_kb_pop(kb, tp);
	pto_kb_tload(kb, tb, ARG_BIAS, 2, 0);
	pto_kb_tbin(kb, PTO_TBIN_ADD, to, tp, tb);
	pto_kb_tstore(kb, to, ARG_OUT, 2, 0);
	pto_kb_endloop(kb);
	pto_kb_end(kb);
	return ex_finish(kb, up_down ? "mix_vector_up_down" : "mix_vector");
}

/* (e) cube: the whole product into L0C, PUSHed once. */
static struct pto_kernel *build_guide_cube(struct pto_device *dev)
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
	pto_kb_push(kb, tc);
	pto_kb_end(kb);
	return ex_finish(kb, "guide_cube");
}

/*
 * (e) vector, under UP_DOWN: POP this AIV's half of the product (rows
 * 32 x sub_block_id, +32), add the same rows of the bias, store them.
 */
static struct pto_kernel *build_guide_vector(struct pto_device *dev)
{
	struct pto_kb *kb;
	int tp, tb, to;

	ex_check(pto_kb_new(dev, PTO_CORE_AIV, &kb), "kernel builder");
	tp = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, M / 2, N);
	tb = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, M / 2, N);
	to = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, M / 2, N);
	pto_kb_ldi(kb, 0, 0);
	pto_kb_sreg(kb, 5, PTO_SREG_SUB_BLOCK_ID);
	pto_kb_alui(kb, PTO_ALU_MUL, 5, 5, M / 2);
	pto_kb_pop(kb, tp);
	pto_kb_tload(kb, tb, ARG_BIAS, 5, 0);
	pto_kb_tbin(kb, PTO_TBIN_ADD, to, tp, tb);
	pto_kb_tstore(kb, to, ARG_OUT, 5, 0);
	pto_kb_end(kb);
	return ex_finish(kb, "guide_vector");
}

static void fill(struct pto_tensor *t, size_t n, unsigned int seed)
{
	float *p = pto_tensor_data(t);
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (float)((i * 7919u + seed * 104729u) % 2000u) / 1000.0f -
		       1.0f;
}

static void check(const struct pto_tensor *out, const struct pto_tensor *a,
		  const struct pto_tensor *b, const struct pto_tensor *bias,
		  unsigned int rows, const char *what)
{
	const float *pa = pto_tensor_data(a), *pb = pto_tensor_data(b);
	const float *pc = pto_tensor_data(bias), *po = pto_tensor_data(out);
	unsigned int i, j, k;

	for (i = 0; i < rows; i++) {
		for (j = 0; j < N; j++) {
			double ref = pc[i * N + j], mag = fabs(ref);

			for (k = 0; k < K; k++) {
				double p = (double)pa[i * K + k] * pb[k * N + j];

				ref += p;
				mag += fabs(p);
			}
			if (fabs(po[i * N + j] - ref) > REL_TOL * mag)
				ex_fail("%s: out[%u][%u] = %.9g, want %.9g (tolerance %.3g)",
					what, i, j, po[i * N + j], ref,
					REL_TOL * mag);
		}
	}
}

static double us(uint64_t ns)
{
	return (double)ns / 1000.0;
}

/*
 * The AIC and AIV spans ([start, end]) of every block of a mixed task,
 * relative to the task's first dispatch, and whether they overlap (an AIV
 * starts before its AIC ends). Returns 1 when every block's spans overlap.
 */
static int print_overlap(const struct pto_graph *g, unsigned int idx)
{
	const struct pto_block_info *b;
	unsigned int n, i, blk, all = 1;
	uint64_t t0 = UINT64_MAX;

	if (pto_graph_task_blocks(g, idx, &b, &n) || !n)
		return 0;
	for (i = 0; i < n; i++)
		if (b[i].ts_dispatch < t0)
			t0 = b[i].ts_dispatch;
	for (blk = 0; blk <= b[n - 1].block; blk++) {
		const struct pto_block_info *aic = NULL;
		uint64_t aiv_start = UINT64_MAX, aiv_end = 0;

		printf("  block %u:", blk);
		for (i = 0; i < n; i++) {
			if (b[i].block != blk)
				continue;
			if (b[i].core_type == PTO_CORE_AIC)
				aic = &b[i];
			else {
				if (b[i].ts_start < aiv_start)
					aiv_start = b[i].ts_start;
				if (b[i].ts_end > aiv_end)
					aiv_end = b[i].ts_end;
			}
			printf(" %s%u (dispatched +%.1f) [%.1f, %.1f] us",
			       b[i].core_type == PTO_CORE_AIC ? "AIC" : "AIV",
			       b[i].core, us(b[i].ts_dispatch - t0),
			       us(b[i].ts_start - t0), us(b[i].ts_end - t0));
		}
		if (!aic || !aiv_end) {
			printf(" (incomplete)\n");
			all = 0;
			continue;
		}
		if (aiv_start < aic->ts_end) {
			uint64_t lo = aiv_start > aic->ts_start ? aiv_start :
								   aic->ts_start;
			uint64_t hi = aiv_end < aic->ts_end ? aiv_end :
							      aic->ts_end;

			printf("; overlap yes, %.1f us; the AIV ends %.1f us after the AIC\n",
			       us(hi - lo),
			       aiv_end > aic->ts_end ? us(aiv_end - aic->ts_end) :
						       0.0);
		} else {
			printf("; overlap no\n");
			all = 0;
		}
	}
	return all;
}

static void run_mixed(struct pto_device *dev, struct pto_queue *q,
		      const char *name, struct pto_kernel *cube,
		      struct pto_kernel *vec, enum pto_split_mode split,
		      unsigned int slot_num, unsigned int blocks,
		      struct pto_tensor *const *args,
		      const struct pto_tensor *b, unsigned int rows)
{
	struct pto_graph *g;
	int overlap;

	ex_check(pto_graph_new(dev, &g), "graph");
	ex_add(g, &(struct pto_task_desc){ .name = name,
					   .kernel_aic = cube,
					   .kernel_aiv = vec,
					   .split_mode = split,
					   .slot_num = slot_num,
					   .block_num = blocks,
					   .tensors = args,
					   .num_tensors = 4 });
	ex_run(g, q, name);
	check(args[ARG_OUT], args[ARG_A], b, args[ARG_BIAS], rows, name);
	ex_print_stats(g, name);
	overlap = print_overlap(g, 0);
	printf("%s: AIC and AIV spans overlap: %s\n", name,
	       overlap ? "yes" : "no");
	pto_graph_free(g);
}

int main(void)
{
	struct pto_tensor *a, *b, *bias, *scratch, *out_a, *out_b, *out_c;
	struct pto_tensor *a2, *bias2, *out_d, *out_e;
	struct pto_kernel *k_mm, *k_add, *k_cube, *k_vec, *k_vec_ud;
	struct pto_kernel *k_gcube, *k_gvec;
	struct pto_tensor *args_mm[3], *args_add[3], *args[4];
	struct pto_device *dev;
	struct pto_queue *q;
	struct pto_graph *g;
	char why[256];
	int t0;

	ex_name = "matmul_bias";
	ex_check(pto_device_open(0, &dev), "open device 0");
#define T2(t, r, c) \
	ex_check(pto_tensor_alloc(dev, PTO_DTYPE_F32, 2, \
				  (const int64_t[]){ r, c }, &t), "tensor " #t)
	T2(a, M, K);
	T2(b, K, N);
	T2(bias, M, N);
	T2(scratch, M, N);
	T2(out_a, M, N);
	T2(out_b, M, N);
	T2(out_c, M, N);
	T2(a2, M2, K);
	T2(bias2, M2, N);
	T2(out_d, M2, N);
	T2(out_e, M, N);
#undef T2
	fill(a, M * K, 1);
	fill(b, K * N, 2);
	fill(bias, M * N, 3);
	fill(a2, M2 * K, 4);
	fill(bias2, M2 * N, 5);

	k_mm = build_mm_store(dev);
	k_add = build_add_bias(dev);
	k_cube = build_mix_cube(dev);
	k_vec = build_mix_vector(dev, false);
	k_vec_ud = build_mix_vector(dev, true);
	k_gcube = build_guide_cube(dev);
	k_gvec = build_guide_vector(dev);
	ex_check(pto_queue_create(dev, 0, 0, &q), "queue");

	/* (a) two tasks, the product through GM. */
	ex_check(pto_graph_new(dev, &g), "graph");
	args_mm[0] = a;
	args_mm[1] = b;
	args_mm[2] = scratch;
	args_add[0] = scratch;
	args_add[1] = bias;
	args_add[2] = out_a;
	t0 = ex_add(g, &(struct pto_task_desc){ .name = "mm_store",
						.kernel_aic = k_mm,
						.block_num = 1,
						.tensors = args_mm,
						.num_tensors = 3 });
	ex_add(g, &(struct pto_task_desc){ .name = "add_bias",
					   .kernel_aiv = k_add,
					   .block_num = 1,
					   .tensors = args_add,
					   .num_tensors = 3,
					   .deps = (const int64_t[]){ t0 },
					   .num_deps = 1 });
	ex_run(g, q, "two tasks");
	check(out_a, a, b, bias, M, "two_tasks");
	ex_print_stats(g, "(a) two_tasks");
	ex_print_blocks(g, 0);
	ex_print_blocks(g, 1);
	pto_graph_free(g);

	/* (b), (c): one mixed task; (d): SPMD of mixed blocks. */
	args[ARG_A] = a;
	args[ARG_B] = b;
	args[ARG_BIAS] = bias;
	args[ARG_OUT] = out_b;
	run_mixed(dev, q, "(b) mixed_none", k_cube, k_vec, PTO_SPLIT_NONE,
		  CHUNK_SLOTS, 1, args, b, M);
	args[ARG_OUT] = out_c;
	run_mixed(dev, q, "(c) mixed_up_down", k_cube, k_vec_ud,
		  PTO_SPLIT_UP_DOWN, CHUNK_SLOTS, 1, args, b, M);
	args[ARG_A] = a2;
	args[ARG_BIAS] = bias2;
	args[ARG_OUT] = out_d;
	run_mixed(dev, q, "(d) mixed_up_down_spmd", k_cube, k_vec_ud,
		  PTO_SPLIT_UP_DOWN, CHUNK_SLOTS, M2 / M, args, b, M2);

	/* (e) the guide's form: one matmul -> add, UP_DOWN, slot_num 2. */
	if (pto_mixed_check(k_gcube, k_gvec, PTO_SPLIT_UP_DOWN, GUIDE_SLOTS, why,
			    sizeof(why)))
		ex_fail("(e) guide_one_matmul: pto_mixed_check(): %s", why);
	args[ARG_A] = a;
	args[ARG_BIAS] = bias;
	args[ARG_OUT] = out_e;
	run_mixed(dev, q, "(e) guide_one_matmul", k_gcube, k_gvec,
		  PTO_SPLIT_UP_DOWN, GUIDE_SLOTS, 1, args, b, M);

	ex_check(pto_queue_destroy(q), "destroy queue");
	pto_kernel_free(k_mm);
	pto_kernel_free(k_add);
	pto_kernel_free(k_cube);
	pto_kernel_free(k_vec);
	pto_kernel_free(k_vec_ud);
	pto_kernel_free(k_gcube);
	pto_kernel_free(k_gvec);
	pto_tensor_free(a);
	pto_tensor_free(b);
	pto_tensor_free(bias);
	pto_tensor_free(scratch);
	pto_tensor_free(out_a);
	pto_tensor_free(out_b);
	pto_tensor_free(out_c);
	pto_tensor_free(a2);
	pto_tensor_free(bias2);
	pto_tensor_free(out_d);
	pto_tensor_free(out_e);
	pto_device_close(dev);
	printf("PASS matmul_bias\n");
	return 0;
}
