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
 *      overlap (the chunked forms (b) to (d) show that);
 *  (f) where the overlap shows: 16 tiles streamed by one cluster, the
 *      vector epilogue about as long as the cube's work, two tasks
 *      against one mixed task, each timed over PIPE_RUNS runs (make
 *      demo's mixed kernel row; pto-bench's row 4 runs the same kernels).
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
#include "mm_pipe.h"

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

/*
 * (f) Where the ring's overlap shows, as make bench's row 4 does: one
 * cluster streams PIPE.t row tiles of 64x24 by 24x128, the vector
 * epilogue exp(x + bias) about as long as the cube's work (mm_pipe.h).
 * Two tasks: the cube task stores every product tile to GM, then the
 * vector task (two blocks) loads them back: the engines' work in series,
 * a dispatch and a GM round trip between. One mixed task: each tile
 * through a ring of PIPE.slots slots, the vector work of a tile beside the
 * cube work of the next (on cores running at once). Each form runs
 * PIPE_RUNS times in the order A B B A, untraced, each run's makespan and
 * wall time kept, then once traced (pipe_two_tasks-16, pipe_mixed-16);
 * every run's result is checked. With PTO_TRACE_DIR set the timed runs go
 * to matmul_bias.timing.json (make demo's mixed kernel row: the
 * makespans).
 */
#define PIPE_RUNS 12
static const struct mm_shape PIPE = { .tr = 64, .kd = 24, .nd = 128,
				      .t = 16, .blocks = 1, .slots = 4,
				      .exp = true };

struct pipe {
	struct pto_tensor *a, *b, *c, *bias, *out;
	struct pto_kernel *k[4];	/* cube, vector; mixed cube, vector */
	struct pto_graph *g[2];		/* [0] two tasks, [1] one mixed task */
};

static struct pto_kernel *pipe_kernel(struct pto_device *dev, bool cube,
				      bool mixed)
{
	struct pto_kb *kb;

	ex_check(pto_kb_new(dev, cube ? PTO_CORE_AIC : PTO_CORE_AIV, &kb),
		 "kernel builder");
	if (cube)
		mm_pipe_cube(kb, &PIPE, mixed);
	else
		mm_pipe_vec(kb, &PIPE, mixed);
	return ex_finish(kb, cube ? "pipe_cube" : "pipe_vector");
}

static void pipe_build(struct pto_device *dev, struct pipe *p)
{
	unsigned int rows = PIPE.blocks * PIPE.t * PIPE.tr;
	struct pto_tensor *mm[3], *add[3], *mix[4];
	char why[256];
	int i, t0;

#define PT(t, r, c) \
	ex_check(pto_tensor_alloc(dev, PTO_DTYPE_F32, 2, \
				  (const int64_t[]){ r, c }, &p->t), "tensor " #t)
	PT(a, rows, PIPE.kd);
	PT(b, PIPE.kd, PIPE.nd);
	PT(c, rows, PIPE.nd);
	PT(bias, PIPE.tr, PIPE.nd);
	PT(out, rows, PIPE.nd);
#undef PT
	fill(p->a, (size_t)rows * PIPE.kd, 6);
	fill(p->b, PIPE.kd * PIPE.nd, 7);
	fill(p->bias, PIPE.tr * PIPE.nd, 8);
	for (i = 0; i < 4; i++)
		p->k[i] = pipe_kernel(dev, !(i & 1), i >= 2);
	if (pto_mixed_check(p->k[2], p->k[3], PTO_SPLIT_UP_DOWN, PIPE.slots,
			    why, sizeof(why)))
		ex_fail("(f) pipe_mixed: pto_mixed_check(): %s", why);
	mm[0] = p->a, mm[1] = p->b, mm[2] = p->c;
	add[0] = p->c, add[1] = p->bias, add[2] = p->out;
	mix[0] = p->a, mix[1] = p->b, mix[2] = p->bias, mix[3] = p->out;
	ex_check(pto_graph_new(dev, &p->g[0]), "graph");
	t0 = ex_add(p->g[0], &(struct pto_task_desc){
		.name = "pipe_cube", .kernel_aic = p->k[0],
		.block_num = PIPE.blocks, .tensors = mm, .num_tensors = 3 });
	ex_add(p->g[0], &(struct pto_task_desc){
		.name = "pipe_vector", .kernel_aiv = p->k[1],
		.block_num = 2 * PIPE.blocks, .tensors = add, .num_tensors = 3,
		.deps = (const int64_t[]){ t0 }, .num_deps = 1 });
	ex_check(pto_graph_new(dev, &p->g[1]), "graph");
	ex_add(p->g[1], &(struct pto_task_desc){
		.name = "pipe_mixed", .kernel_aic = p->k[2],
		.kernel_aiv = p->k[3], .split_mode = PTO_SPLIT_UP_DOWN,
		.slot_num = PIPE.slots, .block_num = PIPE.blocks,
		.tensors = mix, .num_tensors = 4 });
}

/* out = exp(A x B + bias[r % tr]): exp(x) moves by exp(x) dx. */
static void pipe_check(const struct pipe *p, const char *what)
{
	const float *pa = pto_tensor_data(p->a), *pb = pto_tensor_data(p->b);
	const float *pc = pto_tensor_data(p->bias);
	const float *po = pto_tensor_data(p->out);
	unsigned int rows = PIPE.blocks * PIPE.t * PIPE.tr, r, j, k;

	for (r = 0; r < rows; r++) {
		for (j = 0; j < PIPE.nd; j++) {
			double x = pc[(r % PIPE.tr) * PIPE.nd + j], mag = fabs(x);
			double e, got = po[r * PIPE.nd + j];

			for (k = 0; k < PIPE.kd; k++) {
				double v = (double)pa[r * PIPE.kd + k] *
					   pb[k * PIPE.nd + j];

				x += v;
				mag += fabs(v);
			}
			e = exp(x);
			if (fabs(got - e) > e * (REL_TOL * mag + 1e-6))
				ex_fail("%s: out[%u][%u] = %.9g, want %.9g",
					what, r, j, got, e);
		}
	}
}

/* Run form @f once as @what and check it; returns the wall us. */
static double pipe_run(struct pipe *p, struct pto_queue *q, int f,
		       const char *what)
{
	double t0;

	memset(pto_tensor_data(p->out), 0, pto_tensor_nbytes(p->out));
	t0 = ex_now_us();
	ex_run(p->g[f], q, what);
	t0 = ex_now_us() - t0;
	pipe_check(p, what);
	return t0;
}

static void pipe_free(struct pipe *p)
{
	int i;

	for (i = 0; i < 2; i++)
		pto_graph_free(p->g[i]);
	for (i = 0; i < 4; i++)
		pto_kernel_free(p->k[i]);
	pto_tensor_free(p->a);
	pto_tensor_free(p->b);
	pto_tensor_free(p->c);
	pto_tensor_free(p->bias);
	pto_tensor_free(p->out);
}

static void pipelined(struct pto_device *dev, struct pto_queue *q)
{
	struct pto_queue *plain;
	static const char *const what[2] = { "pipe_two_tasks-16",
					     "pipe_mixed-16" };
	static struct ex_timed timed[2];
	int runs = ex_timed_runs(PIPE_RUNS);
	struct pipe p;
	double med[2];
	int i, f;

	if (PIPE.t != 16)
		ex_fail("the pipelined forms' names say 16 tiles");
	pipe_build(dev, &p);
	for (f = 0; f < 2; f++)
		ex_timed_init(&timed[f], what[f]);
	/*
	 * The timed runs on a queue that does not profile: a profiling
	 * queue records every ring wait of the mixed form, a cost of the
	 * measurement, not of the technique.
	 */
	ex_trace_on(false);
	ex_check(pto_queue_create(dev, 0, 0, &plain), "queue");
	for (i = 0; i < 2 * runs; i++) {
		f = (i & 1) ^ ((i >> 1) & 1);
		ex_timed_add(&timed[f], p.g[f],
			     pipe_run(&p, plain, f, what[f]));
	}
	ex_check(pto_queue_destroy(plain), "destroy queue");
	ex_trace_on(true);
	for (f = 0; f < 2; f++) {
		pipe_run(&p, q, f, what[f]);
		ex_print_stats(p.g[f], what[f]);
		med[f] = ex_median(timed[f].makespan_us, timed[f].n);
	}
	if (!print_overlap(p.g[1], 0))
		printf("(f) pipe_mixed: the AIC and AIV spans do not overlap\n");
	printf("(f) %u tiles of %ux%ux%u through a ring of %u slots: makespan, median of %d runs: two tasks %.1f us, one mixed task %.1f us: %.2fx\n",
	       PIPE.t, PIPE.tr, PIPE.kd, PIPE.nd, PIPE.slots, runs, med[0],
	       med[1], med[1] > 0 ? med[0] / med[1] : 0.0);
	ex_timed_write(timed, 2);
	pipe_free(&p);
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
	/* Made with PTO_TRACE_DIR set (make demo): a profiling queue. */
	ex_check(pto_queue_create(dev, 0, 0, &q), "queue");
	ex_trace_hold();
	ex_trace_on(true);

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

	pipelined(dev, q);

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
