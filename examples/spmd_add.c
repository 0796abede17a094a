// SPDX-License-Identifier: MIT
/*
 * The guide's "Use SPMD": c = a + b over ADD_TILES tiles of 64x128 f32 on
 * the vector cores, computed twice (the kernels and tasks are add.h's,
 * shared with elementwise_add); what this example adds is the cost of each.
 *  - per_block_tasks: ADD_TILES single-block tasks, each told its first
 *    row by a scalar argument: ADD_TILES dispatches;
 *  - spmd_blocks: one task of ADD_TILES blocks, each block finding its
 *    tile from its block index (SREG_BLOCK_IDX): one dispatch.
 * Both are checked against the CPU sum; each prints its dispatch count and
 * makespan (last finish - first dispatch over all blocks).
 */
#include <string.h>

#include "add.h"

int main(void)
{
	struct pto_kernel *k_block, *k_spmd;
	struct pto_device *dev;
	struct add_tensors t;
	struct pto_queue *q;
	struct pto_graph *g;
	size_t i;
	int b;

	ex_name = "spmd_add";
	ex_check(pto_device_open(0, &dev), "open device 0");
	add_alloc(dev, &t);
	for (i = 0; i < ADD_ELEMS; i++) {
		t.pa[i] = (float)((i * 7919u) % 2000u) / 1000.0f - 1.0f;
		t.pb[i] = (float)((i * 104729u + 13u) % 2000u) / 1000.0f - 1.0f;
	}
	k_block = add_kernel(dev, false, "add_block");
	k_spmd = add_kernel(dev, true, "add_spmd");
	ex_check(pto_queue_create(dev, 0, 0, &q), "queue");

	/* per_block_tasks: ADD_TILES dispatches. */
	ex_check(pto_graph_new(dev, &g), "graph");
	add_tile_tasks(g, k_block, &t, "add_block_%d");
	ex_run(g, q, "per_block_tasks");
	add_check(&t, "per_block_tasks");
	ex_print_stats(g, "per_block_tasks");
	for (b = 0; b < ADD_TILES; b++)
		ex_print_blocks(g, (unsigned int)b);
	pto_graph_free(g);

	/* spmd_blocks: one dispatch of ADD_TILES blocks. */
	memset(t.pc, 0, ADD_ELEMS * sizeof(*t.pc));
	ex_check(pto_graph_new(dev, &g), "graph");
	add_spmd_task(g, k_spmd, &t);
	ex_run(g, q, "spmd_blocks");
	add_check(&t, "spmd_blocks");
	ex_print_stats(g, "spmd_blocks");
	ex_print_blocks(g, 0);
	pto_graph_free(g);

	ex_check(pto_queue_destroy(q), "destroy queue");
	pto_kernel_free(k_block);
	pto_kernel_free(k_spmd);
	add_free(&t);
	pto_device_close(dev);
	printf("PASS spmd_add\n");
	return 0;
}
