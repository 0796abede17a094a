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
 *  - HARD: one SPMD task over every AIV (PTO_GRID_ALL_AIV, sync_start)
 *    with a HARD AIV syncall between the phases (pto_kb_syncall_hard());
 *  - SOFT: 20 blocks (partial occupancy), sync_start, a SOFT syncall on a
 *    zero-initialised 16 x int32 workspace with used_cores 20
 *    (pto_kb_syncall_soft());
 *  - split: the phases as two tasks, the second depending on the first.
 * x holds small integers, so every sum is exact in f32 and int32.
 *
 * Then the SOFT form without the pattern, on the chip's non-coherent GM:
 * wrong the same way every run, and reported by the sanitizer.
 *
 * Then HARD's occupancy rule: the HARD kernel launched one AIV short (a
 * partial launch, which deadlocks real hardware: 507018) is refused twice,
 * by pto_graph_add_task() (HardSyncallOccupancy) and, pushed straight into
 * the queue, by the device at intake (INVALID, REASON_SYNCALL, detail: the
 * block count it needs), without any block running.
 */
#ifndef _GNU_SOURCE
#define _POSIX_C_SOURCE 200809L /* setenv() (example.h) under -std=c11 */
#endif
#include <errno.h>
#include <string.h>

#include "example.h"

#define SLICE_ROWS 64
#define COLS 128
#define SOFT_BLOCKS 20
#define WS_INTS 16

/* Tensor arguments. */
enum { ARG_X, ARG_ROWSUM, ARG_PARTIAL, ARG_OUT, ARG_WS };

enum form { FORM_HARD, FORM_SOFT, FORM_SPLIT };
enum phases { PHASE_1 = 1, PHASE_2 = 2, PHASE_BOTH = 3, NO_PATTERN = 4 };

/*
 * Registers: s0 block, s1 blocks, s2 first row, s3 zero, s4 accumulator,
 * s5 loop counter, s6/s7 temporaries, s12 used_cores (SOFT).
 */
static struct pto_kernel *build(struct pto_device *dev, enum form form,
				enum phases phases)
{
	bool pattern = !(phases & NO_PATTERN);
	const char *what = phases == PHASE_1 ? "phase 1" :
			   phases == PHASE_2 ? "phase 2" :
			   !pattern ? "fused, without the pattern" :
			   form == FORM_HARD ? "fused, HARD syncall" :
					       "fused, SOFT syncall";
	struct pto_kb *kb;
	int tx, tr, ti;

	phases &= PHASE_BOTH;
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
		if (pattern) {
			pto_kb_cacheinvalid(kb);
			pto_kb_fence(kb);
		}
		if (form == FORM_HARD) {
			pto_kb_syncall_hard(kb, PTO_SYNC_AIV);
		} else {
			pto_kb_arg(kb, 12, 0);
			pto_kb_syncall_soft(kb, ARG_WS, 12);
		}
		if (pattern)
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
	return ex_finish(kb, what);
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
				  /* HARD: every AIV of whatever device this is. */
				  .block_num = form == FORM_HARD ?
						       PTO_GRID_ALL_AIV :
						       blocks,
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

/*
 * The SOFT form without the pattern (no FENCE before the arrival, no
 * CACHEINVALID after the release), on a queue with the chip's non-coherent
 * GM and the sanitizer: each block's partial stays in its core's view, so
 * every block sums its own partial only, the same wrong answer on every
 * run, and the sanitizer names the load and the store. (On coherent
 * memory the program would get the right total by luck.)
 */
static void run_without_pattern(struct pto_device *dev)
{
	struct pto_queue_params p = { .flags = PTO_QUEUE_SANITIZE };
	unsigned int blocks = SOFT_BLOCKS, i, nh;
	struct pto_kernel *k = build(dev, FORM_SOFT, PHASE_BOTH | NO_PATTERN);
	struct pto_tensor *args[5];
	int64_t used = blocks;
	const int32_t *po, *pp;
	struct pto_graph *g;
	struct pto_queue *q;
	char text[400];
	struct bufs b;
	int ret;

	ex_check(pto_queue_create_params(dev, &p, &q), "sanitizing queue");
	alloc_bufs(dev, blocks, &b);
	args[ARG_X] = b.x;
	args[ARG_ROWSUM] = b.rowsum;
	args[ARG_PARTIAL] = b.partial;
	args[ARG_OUT] = b.out;
	args[ARG_WS] = b.ws;
	ex_check(pto_graph_new(dev, &g), "graph");
	ex_add(g, &(struct pto_task_desc){
			  .name = "reduce_soft_no_pattern",
			  .kernel_aiv = k,
			  .block_num = blocks,
			  .flags = PTO_TASK_SYNC_START,
			  .tensors = args,
			  .num_tensors = 5,
			  .scalars = &used,
			  .num_scalars = 1,
		  });
	ex_name_graph(g, "SOFT without the pattern");
	ret = pto_graph_run(g, q, EX_TIMEOUT_NS);
	if (ret)
		ex_fail("without the pattern: %s: %s", pto_strerror(ret),
			pto_graph_error(g));
	po = pto_tensor_data(b.out);
	pp = pto_tensor_data(b.partial);
	for (i = 0; i < blocks; i++)
		if (po[i] != pp[i])
			ex_fail("without the pattern: out[0, %u] = %d, want its own partial %d (the others' stay in their cores' views)",
				i, po[i], pp[i]);
	nh = pto_graph_hazard_count(g);
	if (nh != blocks)
		ex_fail("without the pattern: %u hazards reported, want one per block (%u)",
			nh, blocks);
	pto_graph_hazard_str(g, 0, text, sizeof(text));
	printf("  without the pattern: every out[block] is the block's own partial, not the total %lld; %u hazards, the first: %s\n",
	       (long long)b.total, nh, text);
	printf("PASS barrier SOFT without the pattern is wrong and reported\n");
	pto_graph_free(g);
	pto_kernel_free(k);
	free_bufs(&b);
	ex_check(pto_queue_destroy(q), "destroy sanitizing queue");
}

/*
 * The HARD kernel over every AIV but one. libpto refuses the task when it
 * is built; the same entry pushed into the queue is refused by the device
 * when it takes it. Neither runs a block.
 */
static void run_partial_hard(struct pto_device *dev, struct pto_queue *q)
{
	unsigned int need = pto_available_aiv_count(dev), blocks = need - 1;
	struct pto_kernel *k = build(dev, FORM_HARD, PHASE_BOTH);
	struct pto_tensor *args[4];
	struct pto_task_desc d;
	int64_t deadline = pto_time_ns() + EX_TIMEOUT_NS;
	uint32_t consumed = 0;
	uint64_t id = 0;
	struct pto_graph *g;
	struct pto_cqe c;
	struct bufs b;
	int ret, n;

	alloc_bufs(dev, need, &b);
	args[ARG_X] = b.x;
	args[ARG_ROWSUM] = b.rowsum;
	args[ARG_PARTIAL] = b.partial;
	args[ARG_OUT] = b.out;
	d = (struct pto_task_desc){
		.name = "reduce_hard_partial",
		.kernel_aiv = k,
		.block_num = blocks,
		.flags = PTO_TASK_SYNC_START,
		.tensors = args,
		.num_tensors = 4,
	};

	/* At build time: pto_graph_add_task() applies HardSyncallOccupancy. */
	ex_check(pto_graph_new(dev, &g), "graph");
	ret = pto_graph_add_task(g, &d);
	if (ret != -EINVAL || !strstr(pto_graph_error(g), "HardSyncallOccupancy"))
		ex_fail("HARD over %u of %u AIVs: pto_graph_add_task() returned %d (%s), want -EINVAL for HardSyncallOccupancy",
			blocks, need, ret, pto_graph_error(g));
	printf("  HARD partial: %u of %u AIVs refused by pto_graph_add_task(): %s\n",
	       blocks, need, pto_graph_error(g));
	/* So is a literal that matches this device: it breaks on another. */
	d.block_num = need;
	ret = pto_graph_add_task(g, &d);
	if (ret != -EINVAL || !strstr(pto_graph_error(g), "PTO_GRID_ALL_AIV"))
		ex_fail("HARD over a literal %u blocks: pto_graph_add_task() returned %d (%s), want -EINVAL naming PTO_GRID_ALL_AIV",
			need, ret, pto_graph_error(g));
	printf("  HARD literal grid: %u blocks refused by pto_graph_add_task(): %s\n",
	       need, pto_graph_error(g));
	d.block_num = blocks;
	pto_graph_free(g);

	/* At intake: the device refuses the entry with REASON_SYNCALL. */
	ex_check(pto_queue_push_task(q, &d), "push the partial HARD task");
	ex_check(pto_queue_doorbell(q, 0, 0, &consumed, &id), "doorbell");
	if (consumed != 1)
		ex_fail("HARD partial: the doorbell took %u entries, want 1",
			consumed);
	for (;;) {
		n = pto_queue_reap(q, &c, 1);
		ex_check(n, "reap");
		if (n)
			break;
		ret = pto_queue_wait(q, deadline);
		if (ret && ret != -EINTR)
			ex_fail("HARD partial: no completion: %s",
				pto_strerror(ret));
	}
	if (c.task_id != id || !(c.info.flags & PTO_BLOCK_LAST) ||
	    c.info.status != PTO_STATUS_INVALID ||
	    c.info.reason != PTO_REASON_SYNCALL || c.info.detail != need ||
	    (c.info.flags & PTO_BLOCK_RAN))
		ex_fail("HARD partial: completion of task %llu: %s, reason %s, detail %llu, flags 0x%x; want task %llu INVALID, reason SYNCALL, detail %u, LAST, not RAN",
			(unsigned long long)c.task_id,
			pto_status_name(c.info.status),
			pto_reason_name(c.info.reason),
			(unsigned long long)c.info.detail, c.info.flags,
			(unsigned long long)id, need);
	printf("  HARD partial: %u of %u AIVs refused by the device at intake: %s, reason %s, detail %llu (the blocks it needs); no block ran\n",
	       blocks, need, pto_status_name(c.info.status),
	       pto_reason_name(c.info.reason),
	       (unsigned long long)c.info.detail);
	printf("PASS barrier HARD partial launch refused\n");
	pto_kernel_free(k);
	free_bufs(&b);
}

int main(void)
{
	struct pto_device *dev;
	struct pto_queue *q;

	ex_name = "barrier";
	(void)ex_print_blocks;
	ex_check(pto_device_open(0, &dev), "open device 0");
	ex_check(pto_queue_create(dev, 0, 0, &q), "queue");
	run_form(dev, q, FORM_HARD);
	run_form(dev, q, FORM_SOFT);
	run_form(dev, q, FORM_SPLIT);
	run_without_pattern(dev);
	run_partial_hard(dev, q);
	ex_check(pto_queue_destroy(q), "destroy queue");
	pto_device_close(dev);
	printf("PASS barrier\n");
	return 0;
}
