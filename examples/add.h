/* SPDX-License-Identifier: MIT */
/*
 * What elementwise_add and spmd_add share: c = a + b over a [rows,
 * ADD_COLS] f32 tensor in tiles of tile_rows rows on the vector cores
 * (AIV), computed either by one single-block task per tile, each told its
 * tile's first row by a scalar argument, or by one SPMD task of one block
 * per tile, each finding its tile from its block index. The guide's size
 * is ADD_TILES tiles of ADD_TILE_ROWS rows.
 */
#ifndef PTO_EXAMPLE_ADD_H
#define PTO_EXAMPLE_ADD_H

#include <stdbool.h>

#include "example.h"

#define ADD_TILES 4
#define ADD_TILE_ROWS 64
#define ADD_COLS 128
/* Most tiles of a tensor (spmd_add's dispatch-bound form has 48). */
#define ADD_MAX_TILES 64

/* Tensor arguments of the kernel. */
enum { ARG_A, ARG_B, ARG_C };

struct add_tensors {
	struct pto_tensor *a, *b, *c;
	struct pto_tensor *args[3];	/* a, b, c by ARG_* */
	float *pa, *pb, *pc;		/* their data */
	int tiles, tile_rows;
	size_t elems;			/* tiles * tile_rows * ADD_COLS */
};

/* @tiles tiles of @tile_rows rows. */
static void add_alloc(struct pto_device *dev, struct add_tensors *t,
		      int tiles, int tile_rows)
{
	const int64_t shape[2] = { (int64_t)tiles * tile_rows, ADD_COLS };

	if (tiles < 1 || tiles > ADD_MAX_TILES)
		ex_fail("%d tiles: want 1..%d", tiles, ADD_MAX_TILES);
	t->tiles = tiles;
	t->tile_rows = tile_rows;
	t->elems = (size_t)tiles * tile_rows * ADD_COLS;

	ex_check(pto_tensor_alloc(dev, PTO_DTYPE_F32, 2, shape, &t->a),
		 "tensor a");
	ex_check(pto_tensor_alloc(dev, PTO_DTYPE_F32, 2, shape, &t->b),
		 "tensor b");
	ex_check(pto_tensor_alloc(dev, PTO_DTYPE_F32, 2, shape, &t->c),
		 "tensor c");
	t->pa = pto_tensor_data(t->a);
	t->pb = pto_tensor_data(t->b);
	t->pc = pto_tensor_data(t->c);
	t->args[ARG_A] = t->a;
	t->args[ARG_B] = t->b;
	t->args[ARG_C] = t->c;
}

static void add_free(struct add_tensors *t)
{
	pto_tensor_free(t->a);
	pto_tensor_free(t->b);
	pto_tensor_free(t->c);
}

/*
 * s0 = first row of the tile: scalar argument 0, or (@spmd) block index *
 * @rows; s1 = column 0. t2 = t0 + t1 over the @rows-row tile. @what names
 * the kernel in a failure.
 */
static struct pto_kernel *add_kernel(struct pto_device *dev, bool spmd,
				     int rows, const char *what)
{
	struct pto_kb *kb;
	int ta, tb, tc;

	ex_check(pto_kb_new(dev, PTO_CORE_AIV, &kb), "kernel builder");
	ta = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, (uint32_t)rows, ADD_COLS);
	tb = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, (uint32_t)rows, ADD_COLS);
	tc = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, (uint32_t)rows, ADD_COLS);
	if (spmd) {
		pto_kb_sreg(kb, 0, PTO_SREG_BLOCK_IDX);
		pto_kb_alui(kb, PTO_ALU_MUL, 0, 0, rows);
	} else {
		pto_kb_arg(kb, 0, 0);
	}
	pto_kb_ldi(kb, 1, 0);
	pto_kb_tload(kb, ta, ARG_A, 0, 1);
	pto_kb_tload(kb, tb, ARG_B, 0, 1);
	pto_kb_tbin(kb, PTO_TBIN_ADD, tc, ta, tb);
	pto_kb_tstore(kb, tc, ARG_C, 0, 1);
	pto_kb_end(kb);
	return ex_finish(kb, what);
}

/* One single-block task per tile, named @name_fmt (with the tile's index). */
static void add_tile_tasks(struct pto_graph *g, struct pto_kernel *k,
			   struct add_tensors *t, const char *name_fmt)
{
	static int64_t rows[ADD_MAX_TILES];
	int i;

	for (i = 0; i < t->tiles; i++) {
		char name[32];

		rows[i] = (int64_t)i * t->tile_rows;
		snprintf(name, sizeof(name), name_fmt, i);
		ex_add(g, &(struct pto_task_desc){ .name = name,
						   .kernel_aiv = k,
						   .block_num = 1,
						   .tensors = t->args,
						   .num_tensors = 3,
						   .scalars = &rows[i],
						   .num_scalars = 1 });
	}
}

/* One SPMD task "add_spmd" of one block per tile. */
static void add_spmd_task(struct pto_graph *g, struct pto_kernel *k,
			  struct add_tensors *t)
{
	ex_add(g, &(struct pto_task_desc){ .name = "add_spmd",
					   .kernel_aiv = k,
					   .block_num = (uint32_t)t->tiles,
					   .tensors = t->args,
					   .num_tensors = 3 });
}

/* c against the CPU's sum. */
static void add_check(const struct add_tensors *t, const char *what)
{
	size_t i;

	/* One IEEE f32 addition each: the device must match bit for bit. */
	for (i = 0; i < t->elems; i++)
		if (t->pc[i] != t->pa[i] + t->pb[i])
			ex_fail("%s: c[%zu][%zu] = %g, want %g + %g = %g", what,
				i / ADD_COLS, i % ADD_COLS, t->pc[i], t->pa[i],
				t->pb[i], t->pa[i] + t->pb[i]);
}

#endif /* PTO_EXAMPLE_ADD_H */
