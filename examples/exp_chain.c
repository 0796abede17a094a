// SPDX-License-Identifier: MIT
/*
 * A chain of 8 dependent tasks on one 64x128 f32 tile, each doing
 * x = exp(x) * 0.25 in place (the map converges, so errors do not grow),
 * checked against libm's expf.
 *
 * Then the same chain with task 3 pointed one tile past the end of x: it
 * must fail with a GM fault, the tasks after it with DEP_FAILED, and
 * pto_graph_first_error() must name task 3.
 *
 * Last, the chain with no dependency named, each task's tensor INOUT: the
 * dependencies are inferred (each task writes what the next reads), the
 * graph has the same edges and the result is the same.
 */
#ifndef _GNU_SOURCE
#define _POSIX_C_SOURCE 200809L /* setenv() (example.h) under -std=c11 */
#endif
#include <errno.h>
#include <math.h>

#include "example.h"

#define ROWS 64
#define COLS 128
#define CHAIN 8
#define SCALE 0.25f
#define BAD_TASK 3

/* |device - expf| <= REL_TOL * |expf|, element by element. */
#define REL_TOL 1e-5

/* x[s0.., 0..] = exp(x) * SCALE, s0 = scalar argument 0 (a row). */
static struct pto_kernel *build_step(struct pto_device *dev)
{
	struct pto_kb *kb;
	int tx, te;

	ex_check(pto_kb_new(dev, PTO_CORE_AIV, &kb), "kernel builder");
	tx = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, ROWS, COLS);
	te = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, ROWS, COLS);
	pto_kb_arg(kb, 0, 0);
	pto_kb_ldi(kb, 1, 0);
	pto_kb_tload(kb, tx, 0, 0, 1);
	pto_kb_tunary(kb, PTO_TUNARY_EXP, te, tx);
	pto_kb_tbinsf(kb, PTO_TBIN_MUL, tx, te, SCALE);
	pto_kb_tstore(kb, tx, 0, 0, 1);
	pto_kb_end(kb);
	return ex_finish(kb, "exp_step");
}

/* The chain; task @bad (if < CHAIN) addresses the rows past the tile. */
static struct pto_graph *build_chain(struct pto_device *dev,
				     struct pto_kernel *k, struct pto_tensor *x,
				     int bad, bool inferred)
{
	static const uint8_t inout = PTO_ARG_INOUT;
	struct pto_tensor *args[1] = { x };
	struct pto_graph *g;
	int i;

	ex_check(pto_graph_new(dev, &g), "graph");
	for (i = 0; i < CHAIN; i++) {
		int64_t row = i == bad ? ROWS : 0, dep = i - 1;
		char name[32];
		struct pto_task_desc d = {
			.name = name,
			.kernel_aiv = k,
			.block_num = 1,
			.tensors = args,
			.num_tensors = 1,
			.scalars = &row,
			.num_scalars = 1,
			.deps = &dep,
			.num_deps = i && !inferred ? 1 : 0,
			.tensor_dirs = inferred ? &inout : NULL,
		};

		snprintf(name, sizeof(name), "exp_chain_%d", i);
		ex_add(g, &d);
	}
	return g;
}

/* Task i > 0 depends on task i - 1 only, named or @inferred. */
static void check_chain_edges(const struct pto_graph *g, bool inferred)
{
	unsigned int i;

	for (i = 0; i < CHAIN; i++) {
		uint32_t dep = 0;
		uint8_t inf = 0;
		int n = pto_graph_task_deps(g, i, &dep, &inf, 1);

		if (n != (i ? 1 : 0) || (n && (dep != i - 1 || inf != inferred)))
			ex_fail("%s chain: task %u has %d deps (first %u, inferred %u), want %s",
				inferred ? "inferred" : "named", i, n, dep, inf,
				i ? "the one before" : "none");
	}
}

static void init_x(float *x, float *ref)
{
	unsigned int i;

	for (i = 0; i < ROWS * COLS; i++)
		x[i] = ref[i] = -2.0f + 3.0f * (float)(i % 1000) / 1000.0f;
}

int main(void)
{
	float ref[ROWS * COLS], *x;
	struct pto_device *dev;
	struct pto_kernel *k;
	struct pto_tensor *tx;
	struct pto_queue *q;
	struct pto_graph *g;
	char msg[256];
	unsigned int i, step;
	int ret, first, form;

	ex_name = "exp_chain";
	ex_check(pto_device_open(0, &dev), "open device 0");
	ex_check(pto_tensor_alloc(dev, PTO_DTYPE_F32, 2,
				  (const int64_t[]){ ROWS, COLS }, &tx),
		 "tensor x");
	x = pto_tensor_data(tx);
	k = build_step(dev);
	ex_check(pto_queue_create(dev, 0, 0, &q), "queue");

	/* The chain as it should be. */
	for (form = 0; form < 2; form++) {
		init_x(x, ref);
		g = build_chain(dev, k, tx, CHAIN, form);
		check_chain_edges(g, form);
		ex_run(g, q, form ? "chain, inferred deps" : "chain");
		for (step = 0; step < CHAIN; step++)
			for (i = 0; i < ROWS * COLS; i++)
				ref[i] = expf(ref[i]) * SCALE;
		for (i = 0; i < ROWS * COLS; i++)
			if (fabsf(x[i] - ref[i]) > REL_TOL * fabsf(ref[i]))
				ex_fail("%sx[%u][%u] = %.9g, want %.9g",
					form ? "inferred deps: " : "", i / COLS,
					i % COLS, x[i], ref[i]);
		for (i = 0; !form && i < CHAIN; i++)
			ex_print_blocks(g, i);
		pto_graph_free(g);
		if (form)
			printf("PASS exp_chain with inferred dependencies\n");
	}

	/* Task BAD_TASK reads past x: it fails, its dependants do not run. */
	init_x(x, ref);
	g = build_chain(dev, k, tx, BAD_TASK, false);
	ret = pto_graph_run(g, q, EX_TIMEOUT_NS);
	if (ret != -EIO)
		ex_fail("faulty chain: run returned %s, want EIO (%s)",
			pto_strerror(ret), pto_graph_error(g));
	first = pto_graph_first_error(g, msg, sizeof(msg));
	if (first != BAD_TASK)
		ex_fail("faulty chain: first error at task %d, want %d: %s",
			first, BAD_TASK, msg);
	printf("  expected failure: %s\n", msg);
	for (i = 0; i < CHAIN; i++) {
		int want = i < BAD_TASK	 ? PTO_STATUS_OK :
			   i == BAD_TASK ? PTO_STATUS_GM_FAULT :
					   PTO_STATUS_DEP_FAILED;
		int got = pto_graph_task_status(g, i, NULL, NULL);

		if (got != want)
			ex_fail("faulty chain: task %u is %s, want %s", i,
				pto_status_name(got), pto_status_name(want));
	}
	pto_graph_free(g);

	ex_check(pto_queue_destroy(q), "destroy queue");
	pto_kernel_free(k);
	pto_tensor_free(tx);
	pto_device_close(dev);
	printf("PASS exp_chain\n");
	return 0;
}
