// SPDX-License-Identifier: MIT
/*
 * The guide's `gated` (runtime-overhead, "Skip the task entirely"): an SPMD
 * task of 4 blocks computes out = a * 2 over a 256x128 f32 tensor, then a
 * second SPMD task, predicated on gate[0, 0] > 0 (gate: an int32 1x1
 * tensor) and depending on the first, does out += 1.
 *
 * Run with gate 0: out must be a * 2 and the second task SKIPPED, never on
 * a core (no block reported as run). With gate 1: out = a * 2 + 1.
 */
#ifndef _GNU_SOURCE
#define _POSIX_C_SOURCE 200809L /* setenv() (example.h) under -std=c11 */
#endif
#include <string.h>

#include "example.h"

#define BLOCKS 4
#define TILE_ROWS 64
#define COLS 128
#define ROWS (BLOCKS * TILE_ROWS)

/* out[tile] = in[tile] (op) value, the tile from the block index. */
static struct pto_kernel *build_tile_op(struct pto_device *dev,
					enum pto_tbin op, float value,
					const char *what)
{
	struct pto_kb *kb;
	int t;

	ex_check(pto_kb_new(dev, PTO_CORE_AIV, &kb), "kernel builder");
	t = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, TILE_ROWS, COLS);
	pto_kb_sreg(kb, 0, PTO_SREG_BLOCK_IDX);
	pto_kb_alui(kb, PTO_ALU_MUL, 0, 0, TILE_ROWS);
	pto_kb_ldi(kb, 1, 0);
	pto_kb_tload(kb, t, 0, 0, 1);
	pto_kb_tbinsf(kb, op, t, t, value);
	pto_kb_tstore(kb, t, 1, 0, 1);
	pto_kb_end(kb);
	return ex_finish(kb, what);
}

int main(void)
{
	const int64_t shape[2] = { ROWS, COLS };
	struct pto_predicate gate_pos = {
		.tensor = 2, .op = PTO_CMP_GT, .row = 0, .col = 0, .literal = 0,
	};
	struct pto_tensor *a, *out, *gate, *base_args[2], *bump_args[3];
	struct pto_kernel *k_base, *k_bump;
	struct pto_device *dev;
	struct pto_queue *q;
	struct pto_graph *g;
	float *pa, *po;
	int32_t *pg;
	int64_t dep;
	int gate_value;
	size_t i;

	ex_name = "gated";
	(void)ex_print_blocks;
	ex_check(pto_device_open(0, &dev), "open device 0");
	ex_check(pto_tensor_alloc(dev, PTO_DTYPE_F32, 2, shape, &a), "tensor a");
	ex_check(pto_tensor_alloc(dev, PTO_DTYPE_F32, 2, shape, &out),
		 "tensor out");
	ex_check(pto_tensor_alloc(dev, PTO_DTYPE_I32, 2, (const int64_t[]){ 1, 1 },
				  &gate),
		 "tensor gate");
	pa = pto_tensor_data(a);
	po = pto_tensor_data(out);
	pg = pto_tensor_data(gate);
	for (i = 0; i < (size_t)ROWS * COLS; i++)
		pa[i] = (float)((i * 37) % 1001) / 64.0f - 7.5f;

	k_base = build_tile_op(dev, PTO_TBIN_MUL, 2.0f, "base (x2)");
	k_bump = build_tile_op(dev, PTO_TBIN_ADD, 1.0f, "bump (+1)");
	ex_check(pto_queue_create(dev, 0, 0, &q), "queue");

	/* base: out = a * 2 (always). bump: out += 1 if gate[0, 0] > 0. */
	ex_check(pto_graph_new(dev, &g), "graph");
	base_args[0] = a;
	base_args[1] = out;
	ex_add(g, &(struct pto_task_desc){
			  .name = "base",
			  .kernel_aiv = k_base,
			  .block_num = BLOCKS,
			  .tensors = base_args,
			  .num_tensors = 2,
		  });
	/* The bump kernel reads tensor 0 and writes tensor 1: out, in place. */
	bump_args[0] = out;
	bump_args[1] = out;
	bump_args[2] = gate;
	dep = 0;
	ex_add(g, &(struct pto_task_desc){
			  .name = "bump",
			  .kernel_aiv = k_bump,
			  .block_num = BLOCKS,
			  .tensors = bump_args,
			  .num_tensors = 3,
			  .deps = &dep,
			  .num_deps = 1,
			  .predicate = &gate_pos,
		  });

	for (gate_value = 0; gate_value <= 1; gate_value++) {
		unsigned int dispatches, nb;
		const struct pto_block_info *b;
		uint64_t makespan;
		int st;

		*pg = gate_value;
		memset(po, 0, (size_t)ROWS * COLS * sizeof(*po));
		ex_run(g, q, gate_value ? "gate 1" : "gate 0");
		for (i = 0; i < (size_t)ROWS * COLS; i++) {
			float want = pa[i] * 2.0f;

			if (gate_value)
				want = want + 1.0f;
			if (po[i] != want)
				ex_fail("gate %d: out[%zu][%zu] = %.9g, want %.9g",
					gate_value, i / COLS, i % COLS, po[i],
					want);
		}
		st = pto_graph_task_status(g, 1, NULL, NULL);
		if (pto_graph_task_blocks(g, 1, &b, &nb))
			ex_fail("gate %d: no results for bump", gate_value);
		if (!gate_value) {
			if (st != PTO_STATUS_SKIPPED)
				ex_fail("gate 0: bump is %s, want SKIPPED",
					pto_status_name(st));
			for (i = 0; i < nb; i++)
				if (b[i].flags & PTO_BLOCK_RAN)
					ex_fail("gate 0: bump block %u ran on a core",
						b[i].block);
		} else {
			if (st != PTO_STATUS_OK)
				ex_fail("gate 1: bump is %s, want OK",
					pto_status_name(st));
			if (nb != BLOCKS)
				ex_fail("gate 1: bump reported %u blocks, want %d",
					nb, BLOCKS);
		}
		ex_run_figures(g, &dispatches, &makespan);
		printf("  gate %d: out = a*2%s; bump %s; dispatches %u, tasks %u, makespan %.1f us\n",
		       gate_value, gate_value ? "+1" : "", pto_status_name(st),
		       dispatches, pto_graph_task_count(g), makespan / 1e3);
		printf("PASS gated gate=%d\n", gate_value);
	}

	pto_graph_free(g);
	ex_check(pto_queue_destroy(q), "destroy queue");
	pto_kernel_free(k_bump);
	pto_kernel_free(k_base);
	pto_tensor_free(gate);
	pto_tensor_free(out);
	pto_tensor_free(a);
	pto_device_close(dev);
	printf("PASS gated\n");
	return 0;
}
