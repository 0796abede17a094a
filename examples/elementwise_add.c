// SPDX-License-Identifier: MIT
/*
 * c = a + b over a 256x128 f32 tensor, in 64x128 tiles on the vector
 * cores (AIV): first one task per tile, the tile's first row passed as a
 * scalar argument; then the same as one SPMD task of four blocks, each
 * block finding its tile from its block index (add.h has both, shared
 * with spmd_add).
 */
#ifndef _GNU_SOURCE
#define _POSIX_C_SOURCE 200809L /* setenv() (example.h) under -std=c11 */
#endif
#include <string.h>

#include "add.h"

int main(void)
{
	struct pto_kernel *k_tile, *k_spmd;
	struct pto_device *dev;
	struct add_tensors t;
	struct pto_queue *q;
	struct pto_graph *g;
	size_t i;

	ex_name = "elementwise_add";
	ex_check(pto_device_open(0, &dev), "open device 0");
	add_alloc(dev, &t, ADD_TILES, ADD_TILE_ROWS);
	for (i = 0; i < t.elems; i++) {
		t.pa[i] = (float)i * 0.25f;
		t.pb[i] = 1000.0f - (float)(i % 977) * 1.5f;
	}

	k_tile = add_kernel(dev, false, ADD_TILE_ROWS, "add_tile");
	k_spmd = add_kernel(dev, true, ADD_TILE_ROWS, "add_spmd");
	ex_check(pto_queue_create(dev, 0, 0, &q), "queue");

	/* One task per tile. */
	ex_check(pto_graph_new(dev, &g), "graph");
	add_tile_tasks(g, k_tile, &t, "add_tile_%d");
	ex_run(g, q, "per-tile tasks");
	add_check(&t, "per-tile tasks");
	pto_graph_free(g);

	/* The same as one SPMD task. */
	memset(t.pc, 0, t.elems * sizeof(*t.pc));
	ex_check(pto_graph_new(dev, &g), "graph");
	add_spmd_task(g, k_spmd, &t);
	ex_run(g, q, "SPMD task");
	add_check(&t, "SPMD task");
	ex_print_blocks(g, 0);
	pto_graph_free(g);

	ex_check(pto_queue_destroy(q), "destroy queue");
	pto_kernel_free(k_tile);
	pto_kernel_free(k_spmd);
	add_free(&t);
	pto_device_close(dev);
	printf("PASS elementwise_add\n");
	return 0;
}
