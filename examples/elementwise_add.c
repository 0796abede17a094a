// SPDX-License-Identifier: MIT
/*
 * c = a + b over a 256x128 f32 tensor, in 64x128 tiles on the vector
 * cores (AIV): first one task per tile, the tile's first row passed as a
 * scalar argument; then the same as one SPMD task of four blocks, each
 * block finding its tile from its block index.
 */
#include <string.h>

#include "example.h"

#define ROWS 256
#define COLS 128
#define TILE_ROWS 64
#define NTILES (ROWS / TILE_ROWS)

/* Tensor arguments of the kernel. */
enum { ARG_A, ARG_B, ARG_C };

/*
 * s0 = first row of the tile: scalar argument 0, or block index * 64;
 * s1 = column 0. t2 = t0 + t1 over the tile.
 */
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
	return ex_finish(kb, spmd ? "add_spmd" : "add_tile");
}

static void check_sum(const float *a, const float *b, const float *c,
		      const char *what)
{
	size_t i;

	/* One IEEE f32 addition each: the device must match bit for bit. */
	for (i = 0; i < (size_t)ROWS * COLS; i++)
		if (c[i] != a[i] + b[i])
			ex_fail("%s: c[%zu][%zu] = %g, want %g + %g = %g", what,
				i / COLS, i % COLS, c[i], a[i], b[i],
				a[i] + b[i]);
}

int main(void)
{
	const int64_t shape[2] = { ROWS, COLS };
	struct pto_kernel *k_tile, *k_spmd;
	struct pto_tensor *a, *b, *c, *args[3];
	struct pto_device *dev;
	struct pto_queue *q;
	struct pto_graph *g;
	float *pa, *pb, *pc;
	size_t i;
	int t;

	ex_name = "elementwise_add";
	ex_check(pto_device_open(0, &dev), "open device 0");
	ex_check(pto_tensor_alloc(dev, PTO_DTYPE_F32, 2, shape, &a),
		 "tensor a");
	ex_check(pto_tensor_alloc(dev, PTO_DTYPE_F32, 2, shape, &b),
		 "tensor b");
	ex_check(pto_tensor_alloc(dev, PTO_DTYPE_F32, 2, shape, &c),
		 "tensor c");
	pa = pto_tensor_data(a);
	pb = pto_tensor_data(b);
	pc = pto_tensor_data(c);
	for (i = 0; i < (size_t)ROWS * COLS; i++) {
		pa[i] = (float)i * 0.25f;
		pb[i] = 1000.0f - (float)(i % 977) * 1.5f;
	}
	args[ARG_A] = a;
	args[ARG_B] = b;
	args[ARG_C] = c;

	k_tile = build_add(dev, false);
	k_spmd = build_add(dev, true);
	ex_check(pto_queue_create(dev, 0, 0, &q), "queue");

	/* One task per tile. */
	ex_check(pto_graph_new(dev, &g), "graph");
	for (t = 0; t < NTILES; t++) {
		int64_t row = (int64_t)t * TILE_ROWS;
		char name[32];
		struct pto_task_desc d = {
			.name = name,
			.kernel_aiv = k_tile,
			.block_num = 1,
			.tensors = args,
			.num_tensors = 3,
			.scalars = &row,
			.num_scalars = 1,
		};

		snprintf(name, sizeof(name), "add_tile_%d", t);
		ex_add(g, &d);
	}
	ex_run(g, q, "per-tile tasks");
	check_sum(pa, pb, pc, "per-tile tasks");
	pto_graph_free(g);

	/* The same as one SPMD task. */
	memset(pc, 0, (size_t)ROWS * COLS * sizeof(*pc));
	ex_check(pto_graph_new(dev, &g), "graph");
	{
		struct pto_task_desc d = {
			.name = "add_spmd",
			.kernel_aiv = k_spmd,
			.block_num = NTILES,
			.tensors = args,
			.num_tensors = 3,
		};

		ex_add(g, &d);
	}
	ex_run(g, q, "SPMD task");
	check_sum(pa, pb, pc, "SPMD task");
	ex_print_blocks(g, 0);
	pto_graph_free(g);

	ex_check(pto_queue_destroy(q), "destroy queue");
	pto_kernel_free(k_tile);
	pto_kernel_free(k_spmd);
	pto_tensor_free(a);
	pto_tensor_free(b);
	pto_tensor_free(c);
	pto_device_close(dev);
	printf("PASS elementwise_add\n");
	return 0;
}
