// SPDX-License-Identifier: MIT
/*
 * In-kernel syncall (runtime-overhead, "Synchronize inside the kernel"): a
 * two-phase global reduction.
 *
 * Phase 1: each block sums its 64x128 slice of x (TROWRED to a 64x1
 * column, cast to int32, then a scalar accumulation of the 64 row sums)
 * into partial[0, block]. Phase 2: every block adds up all partials and
 * writes the total into out[0, block]. Between the phases every block must
 * see every partial: the documented pattern cacheinvalid + fence, syncall,
 * cacheinvalid.
 *
 * Three forms, each checked against the CPU total in every out[0, block]:
 *  - HARD: one SPMD task over every AIV (available_aiv_count(), sync_start)
 *    with a HARD AIV syncall between the phases;
 *  - SOFT: 20 blocks (partial occupancy), sync_start, a SOFT syncall on a
 *    zero-initialised 16 x int32 workspace with used_cores 20;
 *  - split: the phases as two tasks, the second depending on the first.
 * x holds small integers, so every sum is exact in f32 and int32.
 *
 * The kernel builder has no SYNCALL emitter: the kernel is built with a
 * placeholder (LDI s31, magic) where the barrier goes, and the placeholder
 * is swapped for the SYNCALL instruction before pto_kernel_create_raw().
 */
#include <string.h>

#include "example.h"

#define SLICE_ROWS 64
#define COLS 128
#define SOFT_BLOCKS 20
#define WS_INTS 16

/* Tensor arguments. */
enum { ARG_X, ARG_ROWSUM, ARG_PARTIAL, ARG_OUT, ARG_WS };

enum form { FORM_HARD, FORM_SOFT, FORM_SPLIT };
enum phases { PHASE_1 = 1, PHASE_2 = 2, PHASE_BOTH = 3 };

#define SYNC_MAGIC 0x5bcf000000000000LL
#define SYNC_MASK 0x7fff000000000000LL
#define SYNC_REG 31

/* Placeholder of a SYNCALL: LDI s31 with the mode, s[a] and imm encoded. */
static void kb_syncall(struct pto_kb *kb, unsigned int mode, unsigned int areg,
		       unsigned int imm)
{
	pto_kb_ldi(kb, SYNC_REG,
		   SYNC_MAGIC | (int64_t)mode << 16 | (int64_t)areg << 8 | imm);
}

/* Swap the placeholders for SYNCALLs and upload. */
static struct pto_kernel *finish_with_syncalls(struct pto_device *dev,
					       struct pto_kb *kb,
					       const char *what)
{
	const struct pto_insn *insns;
	const struct pto_tile_decl *tiles;
	struct pto_insn *prog;
	struct pto_kernel *k;
	uint32_t n, nt, i;
	char log[512];
	int ret;

	ret = pto_kb_program(kb, &insns, &n, &tiles, &nt);
	if (ret)
		ex_fail("kernel %s: %s", what, pto_kb_error(kb));
	prog = malloc(n * sizeof(*prog));
	if (!prog)
		ex_fail("kernel %s: out of memory", what);
	memcpy(prog, insns, n * sizeof(*prog));
	for (i = 0; i < n; i++) {
		struct pto_insn *in = &prog[i];
		int64_t v = in->imm;
		uint8_t mode = (uint8_t)(v >> 16);

		if (in->op != PTO_OP_LDI || in->dst != SYNC_REG ||
		    (v & SYNC_MASK) != SYNC_MAGIC)
			continue;
		*in = (struct pto_insn){
			.op = PTO_OP_SYNCALL,
			.mode = mode,
			/* SOFT: s[a] = used_cores; HARD: no register. */
			.a = mode == PTO_SYNC_SOFT ? (uint8_t)(v >> 8) : 0,
			.imm = v & 0xff,
		};
	}
	ret = pto_kernel_create_raw(dev, PTO_CORE_AIV, prog, n, tiles, nt, log,
				    sizeof(log), NULL, &k);
	free(prog);
	pto_kb_free(kb);
	if (ret)
		ex_fail("kernel %s: %s (%s)", what, log, pto_strerror(ret));
	return k;
}

/*
 * Registers: s0 block, s1 blocks, s2 first row, s3 zero, s4 accumulator,
 * s5 loop counter, s6/s7 temporaries, s12 used_cores (SOFT).
 */
static struct pto_kernel *build(struct pto_device *dev, enum form form,
				enum phases phases)
{
	const char *what = phases == PHASE_1 ? "phase 1" :
			   phases == PHASE_2 ? "phase 2" :
			   form == FORM_HARD ? "fused, HARD syncall" :
					       "fused, SOFT syncall";
	struct pto_kb *kb;
	int tx, tr, ti;

	ex_check(pto_kb_new(dev, PTO_CORE_AIV, &kb), "kernel builder");
	tx = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, SLICE_ROWS, COLS);
	tr = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, SLICE_ROWS, 1);
	ti = pto_kb_tile(kb, PTO_DTYPE_I32, PTO_BUF_UB, SLICE_ROWS, 1);
	pto_kb_sreg(kb, 0, PTO_SREG_BLOCK_IDX);
	pto_kb_sreg(kb, 1, PTO_SREG_BLOCK_NUM);
	pto_kb_ldi(kb, 3, 0);
	if (phases & PHASE_1) {
		/* partial[0, block] = sum of the block's slice. */
		pto_kb_alui(kb, PTO_ALU_MUL, 2, 0, SLICE_ROWS);
		pto_kb_tload(kb, tx, ARG_X, 2, 3);
		pto_kb_trowred(kb, PTO_ROWRED_SUM, tr, tx);
		pto_kb_tcast(kb, ti, tr);
		pto_kb_tstore(kb, ti, ARG_ROWSUM, 2, 3);
		pto_kb_fence(kb);
		pto_kb_ldi(kb, 4, 0);
		pto_kb_loopi(kb, 5, SLICE_ROWS);
		pto_kb_alu(kb, PTO_ALU_ADD, 6, 2, 5);
		pto_kb_gld(kb, 7, ARG_ROWSUM, 6, 3);
		pto_kb_alu(kb, PTO_ALU_ADD, 4, 4, 7);
		pto_kb_endloop(kb);
		pto_kb_gst(kb, ARG_PARTIAL, 3, 0, 4);
	}
	if (phases == PHASE_BOTH) {
		pto_kb_cacheinvalid(kb);
		pto_kb_fence(kb);
		if (form == FORM_HARD) {
			kb_syncall(kb, PTO_SYNC_HARD, 0, PTO_SYNC_AIV);
		} else {
			pto_kb_arg(kb, 12, 0);
			kb_syncall(kb, PTO_SYNC_SOFT, 12, ARG_WS);
		}
		pto_kb_cacheinvalid(kb);
	}
	if (phases & PHASE_2) {
		/* out[0, block] = sum of every partial. */
		pto_kb_ldi(kb, 4, 0);
		pto_kb_loop(kb, 5, 1);
		pto_kb_gld(kb, 7, ARG_PARTIAL, 3, 5);
		pto_kb_alu(kb, PTO_ALU_ADD, 4, 4, 7);
		pto_kb_endloop(kb);
		pto_kb_gst(kb, ARG_OUT, 3, 0, 4);
	}
	pto_kb_end(kb);
	return finish_with_syncalls(dev, kb, what);
}

struct bufs {
	struct pto_tensor *x, *rowsum, *partial, *out, *ws;
	int64_t total;
};

static void alloc_bufs(struct pto_device *dev, unsigned int blocks,
		       struct bufs *b)
{
	float *px;
	int64_t i, n = (int64_t)blocks * SLICE_ROWS * COLS;

	ex_check(pto_tensor_alloc(dev, PTO_DTYPE_F32, 2,
				  (const int64_t[]){ blocks * SLICE_ROWS, COLS },
				  &b->x),
		 "tensor x");
	ex_check(pto_tensor_alloc(dev, PTO_DTYPE_I32, 2,
				  (const int64_t[]){ blocks * SLICE_ROWS, 1 },
				  &b->rowsum),
		 "tensor rowsum");
	ex_check(pto_tensor_alloc(dev, PTO_DTYPE_I32, 2,
				  (const int64_t[]){ 1, blocks }, &b->partial),
		 "tensor partial");
	ex_check(pto_tensor_alloc(dev, PTO_DTYPE_I32, 2,
				  (const int64_t[]){ 1, blocks }, &b->out),
		 "tensor out");
	/* Exclusive, zero-initialised: a fresh buffer is zero-filled. */
	ex_check(pto_tensor_alloc(dev, PTO_DTYPE_I32, 2,
				  (const int64_t[]){ 1, WS_INTS }, &b->ws),
		 "tensor workspace");
	px = pto_tensor_data(b->x);
	b->total = 0;
	for (i = 0; i < n; i++) {
		px[i] = (float)((i * 7 + i / COLS) % 16);
		b->total += (int64_t)px[i];
	}
}

static void free_bufs(struct bufs *b)
{
	pto_tensor_free(b->ws);
	pto_tensor_free(b->out);
	pto_tensor_free(b->partial);
	pto_tensor_free(b->rowsum);
	pto_tensor_free(b->x);
}

static void run_form(struct pto_device *dev, struct pto_queue *q,
		     enum form form)
{
	static const char *const names[] = { "HARD syncall", "SOFT syncall",
					     "two tasks" };
	unsigned int blocks = form == FORM_SOFT ? SOFT_BLOCKS :
						  pto_available_aiv_count(dev);
	struct pto_kernel *k1 = NULL, *k2 = NULL, *kf = NULL;
	struct pto_tensor *args[5];
	int64_t used = blocks, dep = 0;
	unsigned int dispatches, i;
	struct pto_graph *g;
	uint64_t makespan;
	struct bufs b;
	int32_t *po, *pw;

	alloc_bufs(dev, blocks, &b);
	args[ARG_X] = b.x;
	args[ARG_ROWSUM] = b.rowsum;
	args[ARG_PARTIAL] = b.partial;
	args[ARG_OUT] = b.out;
	args[ARG_WS] = b.ws;
	ex_check(pto_graph_new(dev, &g), "graph");
	if (form == FORM_SPLIT) {
		k1 = build(dev, form, PHASE_1);
		k2 = build(dev, form, PHASE_2);
		ex_add(g, &(struct pto_task_desc){
				  .name = "phase_1",
				  .kernel_aiv = k1,
				  .block_num = blocks,
				  .tensors = args,
				  .num_tensors = 4,
			  });
		ex_add(g, &(struct pto_task_desc){
				  .name = "phase_2",
				  .kernel_aiv = k2,
				  .block_num = blocks,
				  .tensors = args,
				  .num_tensors = 4,
				  .deps = &dep,
				  .num_deps = 1,
			  });
	} else {
		kf = build(dev, form, PHASE_BOTH);
		ex_add(g, &(struct pto_task_desc){
				  .name = form == FORM_HARD ? "reduce_hard" :
							      "reduce_soft",
				  .kernel_aiv = kf,
				  .block_num = blocks,
				  .flags = PTO_TASK_SYNC_START,
				  .tensors = args,
				  .num_tensors = form == FORM_SOFT ? 5 : 4,
				  .scalars = &used,
				  .num_scalars = form == FORM_SOFT ? 1 : 0,
			  });
	}
	ex_run(g, q, names[form]);
	po = pto_tensor_data(b.out);
	for (i = 0; i < blocks; i++)
		if (po[i] != b.total)
			ex_fail("%s: out[0, %u] = %d, want the total %lld",
				names[form], i, po[i], (long long)b.total);
	pw = pto_tensor_data(b.ws);
	if (form == FORM_SOFT && pw[0] != (int32_t)blocks)
		ex_fail("%s: workspace counter %d, want %u arrivals",
			names[form], pw[0], blocks);
	ex_run_figures(g, &dispatches, &makespan);
	printf("  %-12s: %2u blocks, total %lld in every out[block]; dispatches %u, tasks %u, makespan %.1f us\n",
	       names[form], blocks, (long long)b.total, dispatches,
	       pto_graph_task_count(g), makespan / 1e3);
	printf("PASS barrier %s\n", names[form]);
	pto_graph_free(g);
	pto_kernel_free(kf);
	pto_kernel_free(k2);
	pto_kernel_free(k1);
	free_bufs(&b);
}

int main(void)
{
	struct pto_device *dev;
	struct pto_queue *q;

	ex_name = "barrier";
	(void)ex_print_blocks;
	(void)ex_finish;
	ex_check(pto_device_open(0, &dev), "open device 0");
	ex_check(pto_queue_create(dev, 0, 0, &q), "queue");
	run_form(dev, q, FORM_HARD);
	run_form(dev, q, FORM_SOFT);
	run_form(dev, q, FORM_SPLIT);
	ex_check(pto_queue_destroy(q), "destroy queue");
	pto_device_close(dev);
	printf("PASS barrier\n");
	return 0;
}
