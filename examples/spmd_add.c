// SPDX-License-Identifier: MIT
/*
 * The guide's "Use SPMD": c = a + b over BLOCKS tiles of 64x128 f32 on
 * the vector cores, computed twice.
 *  - per_block_tasks: BLOCKS single-block tasks, each told its first row
 *    by a scalar argument: BLOCKS dispatches;
 *  - spmd_blocks: one task of BLOCKS blocks, each block finding its tile
 *    from its block index (SREG_BLOCK_IDX): one dispatch.
 * Both are checked against the CPU sum; each prints its dispatch count and
 * makespan (last finish - first dispatch over all blocks).
 */
#include <string.h>

#include "example.h"

#define BLOCKS 4
#define TILE_ROWS 64
#define COLS 128
#define ROWS (BLOCKS * TILE_ROWS)

enum { ARG_A, ARG_B, ARG_C };

/* s0 = the tile's first row (scalar argument 0, or block index x 64). */
static struct pto_kernel *build_add(struct pto_device *dev, bool spmd)
{
	struct pto_kb *kb;
	int ta, tb, tc;

	ex_check(pto_kb_new(dev, PTO_CORE_AIV, &kb), "kernel builder");
	ta = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, TILE_ROWS, COLS);
	tb = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, TILE_ROWS, COLS);
	tc = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, TILE_ROWS, COLS);
	if (spmd) {
		pto_kb_sreg(kb, 0, PTO_SREG_BLOCK_IDX);
		pto_kb_alui(kb, PTO_ALU_MUL, 0, 0, TILE_ROWS);
	} else {
		pto_kb_arg(kb, 0, 0);
	}
	pto_kb_ldi(kb, 1, 0);
	pto_kb_tload(kb, ta, ARG_A, 0, 1);
	pto_kb_tload(kb, tb, ARG_B, 0, 1);
	pto_kb_tbin(kb, PTO_TBIN_ADD, tc, ta, tb);
	pto_kb_tstore(kb, tc, ARG_C, 0, 1);
	pto_kb_end(kb);
	return ex_finish(kb, spmd ? "add_spmd" : "add_block");
}

static void check_sum(const float *a, const float *b, const float *c,
		      const char *what)
{
	size_t i;

	/* One f32 addition each: the device must match bit for bit. */
	for (i = 0; i < (size_t)ROWS * COLS; i++)
		if (c[i] != a[i] + b[i])
			ex_fail("%s: c[%zu][%zu] = %g, want %g", what, i / COLS,
				i % COLS, c[i], a[i] + b[i]);
}

int main(void)
{
	const int64_t shape[2] = { ROWS, COLS };
	struct pto_tensor *a, *b, *c, *args[3];
	struct pto_kernel *k_block, *k_spmd;
	int64_t rows[BLOCKS];
	struct pto_device *dev;
	struct pto_queue *q;
	struct pto_graph *g;
	float *pa, *pb, *pc;
	size_t i;
	int t;

	ex_name = "spmd_add";
	ex_check(pto_device_open(0, &dev), "open device 0");
	ex_check(pto_tensor_alloc(dev, PTO_DTYPE_F32, 2, shape, &a), "tensor a");
	ex_check(pto_tensor_alloc(dev, PTO_DTYPE_F32, 2, shape, &b), "tensor b");
	ex_check(pto_tensor_alloc(dev, PTO_DTYPE_F32, 2, shape, &c), "tensor c");
	pa = pto_tensor_data(a);
	pb = pto_tensor_data(b);
	pc = pto_tensor_data(c);
	for (i = 0; i < (size_t)ROWS * COLS; i++) {
		pa[i] = (float)((i * 7919u) % 2000u) / 1000.0f - 1.0f;
		pb[i] = (float)((i * 104729u + 13u) % 2000u) / 1000.0f - 1.0f;
	}
	args[ARG_A] = a;
	args[ARG_B] = b;
	args[ARG_C] = c;
	k_block = build_add(dev, false);
	k_spmd = build_add(dev, true);
	ex_check(pto_queue_create(dev, 0, 0, &q), "queue");

	/* per_block_tasks: BLOCKS dispatches. */
	ex_check(pto_graph_new(dev, &g), "graph");
	for (t = 0; t < BLOCKS; t++) {
		char name[32];

		rows[t] = (int64_t)t * TILE_ROWS;
		snprintf(name, sizeof(name), "add_block_%d", t);
		ex_add(g, &(struct pto_task_desc){ .name = name,
						   .kernel_aiv = k_block,
						   .block_num = 1,
						   .tensors = args,
						   .num_tensors = 3,
						   .scalars = &rows[t],
						   .num_scalars = 1 });
	}
	ex_run(g, q, "per_block_tasks");
	check_sum(pa, pb, pc, "per_block_tasks");
	ex_print_stats(g, "per_block_tasks");
	for (t = 0; t < BLOCKS; t++)
		ex_print_blocks(g, (unsigned int)t);
	pto_graph_free(g);

	/* spmd_blocks: one dispatch of BLOCKS blocks. */
	memset(pc, 0, (size_t)ROWS * COLS * sizeof(*pc));
	ex_check(pto_graph_new(dev, &g), "graph");
	ex_add(g, &(struct pto_task_desc){ .name = "add_spmd",
					   .kernel_aiv = k_spmd,
					   .block_num = BLOCKS,
					   .tensors = args,
					   .num_tensors = 3 });
	ex_run(g, q, "spmd_blocks");
	check_sum(pa, pb, pc, "spmd_blocks");
	ex_print_stats(g, "spmd_blocks");
	ex_print_blocks(g, 0);
	pto_graph_free(g);

	ex_check(pto_queue_destroy(q), "destroy queue");
	pto_kernel_free(k_block);
	pto_kernel_free(k_spmd);
	pto_tensor_free(a);
	pto_tensor_free(b);
	pto_tensor_free(c);
	pto_device_close(dev);
	printf("PASS spmd_add\n");
	return 0;
}
