// SPDX-License-Identifier: MIT
/*
 * The guide's "Use SPMD": c = a + b on the vector cores, each form
 * checked against the CPU sum (the kernels and tasks are add.h's, shared
 * with elementwise_add); what this example adds is the cost of each.
 *  - per_block_tasks: one single-block task per tile, each told its first
 *    row by a scalar argument: a dispatch per tile;
 *  - spmd_blocks: one task of a block per tile, each block finding its
 *    tile from its block index (SREG_BLOCK_IDX): one dispatch.
 * First at the guide's size, ADD_TILES tiles of 64x128 f32 (each prints
 * its dispatches and makespan, last finish - first dispatch). Its three
 * saved dispatches are small beside four tiles' work, so the same two
 * forms then run where dispatch dominates, as make bench's row 3.48 does:
 * WIDE_TILES tiles of WIDE_ROWS x 128 (a block's work about as cheap as
 * its dispatch), each form TIMED_RUNS times in the order A B B A,
 * untraced, each run's makespan and wall time (push to last CQE,
 * pto_graph_run()) kept, then once traced (per_block_tasks-48,
 * spmd_blocks-48). With PTO_TRACE_DIR set the timed runs go to
 * spmd_add.timing.json (make demo's SPMD row: the makespans).
 */
#ifndef _GNU_SOURCE
#define _POSIX_C_SOURCE 200809L /* setenv() (example.h) under -std=c11 */
#endif
#include <string.h>

#include "add.h"

#define WIDE_TILES 48
#define WIDE_ROWS 1
#define TIMED_RUNS 12

static void fill_inputs(struct add_tensors *t)
{
	size_t i;

	for (i = 0; i < t->elems; i++) {
		t->pa[i] = (float)((i * 7919u) % 2000u) / 1000.0f - 1.0f;
		t->pb[i] = (float)((i * 104729u + 13u) % 2000u) / 1000.0f - 1.0f;
	}
}

/* Run @g once as @what, check c, print the figures; returns the wall us. */
static double run_checked(struct pto_graph *g, struct pto_queue *q,
			  struct add_tensors *t, const char *what)
{
	double t0;

	memset(t->pc, 0, t->elems * sizeof(*t->pc));
	t0 = ex_now_us();
	ex_run(g, q, what);
	t0 = ex_now_us() - t0;
	add_check(t, what);
	return t0;
}

/* Both forms of @tiles tiles of @rows rows: [0] per block, [1] SPMD. */
static void build_forms(struct pto_device *dev, struct add_tensors *t,
			int tiles, int rows, struct pto_kernel *k[2],
			struct pto_graph *g[2])
{
	add_alloc(dev, t, tiles, rows);
	fill_inputs(t);
	k[0] = add_kernel(dev, false, rows, "add_block");
	k[1] = add_kernel(dev, true, rows, "add_spmd");
	ex_check(pto_graph_new(dev, &g[0]), "graph");
	add_tile_tasks(g[0], k[0], t, "add_block_%d");
	ex_check(pto_graph_new(dev, &g[1]), "graph");
	add_spmd_task(g[1], k[1], t);
}

static void free_forms(struct add_tensors *t, struct pto_kernel *k[2],
		       struct pto_graph *g[2])
{
	int f;

	for (f = 0; f < 2; f++) {
		pto_graph_free(g[f]);
		pto_kernel_free(k[f]);
	}
	add_free(t);
}

/* The guide's size: each form once, traced, with its blocks. */
static void guide_size(struct pto_device *dev, struct pto_queue *q)
{
	struct pto_kernel *k[2];
	struct pto_graph *g[2];
	struct add_tensors t;
	int b;

	build_forms(dev, &t, ADD_TILES, ADD_TILE_ROWS, k, g);
	ex_trace_on(true);
	run_checked(g[0], q, &t, "per_block_tasks");
	ex_print_stats(g[0], "per_block_tasks");
	for (b = 0; b < ADD_TILES; b++)
		ex_print_blocks(g[0], (unsigned int)b);
	run_checked(g[1], q, &t, "spmd_blocks");
	ex_print_stats(g[1], "spmd_blocks");
	ex_print_blocks(g[1], 0);
	free_forms(&t, k, g);
}

/* WIDE_TILES tiles: TIMED_RUNS of each form (A B B A), then one traced. */
static void dispatch_bound(struct pto_device *dev, struct pto_queue *q)
{
	static const char *const what[2] = { "per_block_tasks-48",
					     "spmd_blocks-48" };
	static struct ex_timed timed[2];
	struct pto_kernel *k[2];
	struct pto_graph *g[2];
	struct add_tensors t;
	int runs = ex_timed_runs(TIMED_RUNS);
	double med[2];
	int i, f;

	build_forms(dev, &t, WIDE_TILES, WIDE_ROWS, k, g);
	for (f = 0; f < 2; f++)
		ex_timed_init(&timed[f], what[f]);
	ex_trace_on(false);
	for (i = 0; i < 2 * runs; i++) {
		f = (i & 1) ^ ((i >> 1) & 1);
		ex_timed_add(&timed[f], g[f],
			     run_checked(g[f], q, &t, what[f]));
	}
	ex_trace_on(true);
	for (f = 0; f < 2; f++) {
		run_checked(g[f], q, &t, what[f]);
		ex_print_stats(g[f], what[f]);
		med[f] = ex_median(timed[f].makespan_us, timed[f].n);
	}
	printf("%d tiles of %dx%d: makespan, median of %d runs: %d tasks %.1f us, one SPMD task %.1f us: %.2fx\n",
	       WIDE_TILES, WIDE_ROWS, ADD_COLS, runs, WIDE_TILES,
	       med[0], med[1], med[1] > 0 ? med[0] / med[1] : 0.0);
	ex_timed_write(timed, 2);
	free_forms(&t, k, g);
}

int main(void)
{
	struct pto_device *dev;
	struct pto_queue *q;

	ex_name = "spmd_add";
	ex_check(pto_device_open(0, &dev), "open device 0");
	/* Made with PTO_TRACE_DIR set (make demo): a profiling queue. */
	ex_check(pto_queue_create(dev, 0, 0, &q), "queue");
	ex_trace_hold();
	guide_size(dev, q);
	dispatch_bound(dev, q);
	ex_check(pto_queue_destroy(q), "destroy queue");
	pto_device_close(dev);
	printf("PASS spmd_add\n");
	return 0;
}
