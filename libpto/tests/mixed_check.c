// SPDX-License-Identifier: MIT
/*
 * Mixed tasks without a device: the PUSH/POP emitters of the kernel
 * builder (one tile shape per PUSH and per POP), what libpto reads off a
 * program (UB bytes, ring tiles), pto_mixed_check()'s rules (shapes under
 * the split, slot_num, the UB budget and its message) and the graph's
 * refusals of ring misuse.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <pto/pto.h>

#include "kernel_builder.h"
#include "tap.h"
#include "topology.h"

/* A device handle for the checks: topology and limits, no fd. */
static struct pto_device dev = { .fd = -1, .info = topo, .limits = limits };

static void expect_text(const char *msg, const char *text)
{
	if (!strstr(msg, text)) {
		printf("#   message \"%s\" lacks \"%s\"\n", msg, text);
		TAP_CHECK(!"message");
	}
}

/* The kernel libpto would record for the builder's program. */
static void kernel_of(struct pto_kb *kb, struct pto_kernel *k)
{
	const struct pto_insn *insns;
	const struct pto_tile_decl *tiles;
	uint32_t n, nt;

	memset(k, 0, sizeof(*k));
	TAP_CHECK_EQ(pto_kb_program(kb, &insns, &n, &tiles, &nt), 0);
	k->dev = &dev;
	k->core_type = kb->core_type;
	pto_kernel_scan(k, insns, n, tiles, nt);
	pto_kb_free(kb);
}

/*
 * An AIC kernel that pushes @push_rows x @cols tiles (0: none) and pops
 * @pop_rows x @cols (0: none), f32 unless @dtype.
 */
static void aic_kernel(struct pto_kernel *k, uint32_t push_rows,
		       uint32_t pop_rows, uint32_t cols, enum pto_dtype dtype)
{
	struct pto_kb *kb = kb_new(PTO_CORE_AIC);
	int t;

	if (push_rows) {
		t = pto_kb_tile(kb, dtype, PTO_BUF_L0C, push_rows, cols);
		pto_kb_push(kb, t);
	}
	if (pop_rows) {
		t = pto_kb_tile(kb, dtype, PTO_BUF_L1, pop_rows, cols);
		pto_kb_pop(kb, t);
	}
	pto_kb_end(kb);
	kernel_of(kb, k);
}

/* An AIV kernel: pops/pushes like aic_kernel(), plus @extra_kib of tiles. */
static void aiv_kernel(struct pto_kernel *k, uint32_t pop_rows,
		       uint32_t push_rows, uint32_t cols, enum pto_dtype dtype,
		       uint32_t extra_kib)
{
	struct pto_kb *kb = kb_new(PTO_CORE_AIV);
	int t;

	if (pop_rows) {
		t = pto_kb_tile(kb, dtype, PTO_BUF_UB, pop_rows, cols);
		pto_kb_pop(kb, t);
	}
	if (push_rows) {
		t = pto_kb_tile(kb, dtype, PTO_BUF_UB, push_rows, cols);
		pto_kb_push(kb, t);
	}
	while (extra_kib) {
		uint32_t kib = extra_kib > 32 ? 32 : extra_kib;

		TAP_CHECK(pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, kib, 256) >= 0);
		extra_kib -= kib;
	}
	pto_kb_end(kb);
	kernel_of(kb, k);
}

static void push_pop_encoding(void)
{
	struct pto_kb *kb = kb_new(PTO_CORE_AIV);
	const struct pto_insn *insns;
	uint32_t n;
	int t0, t1;

	t0 = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, 32, 64);
	t1 = pto_kb_tile(kb, PTO_DTYPE_I32, PTO_BUF_UB, 8, 8);
	TAP_CHECK_EQ(pto_kb_pop(kb, t0), 0);
	TAP_CHECK_EQ(pto_kb_push(kb, t1), 0);
	TAP_CHECK_EQ(pto_kb_pop(kb, t0), 0);
	TAP_CHECK_EQ(pto_kb_end(kb), 0);
	TAP_CHECK_EQ(pto_kb_program(kb, &insns, &n, NULL, NULL), 0);
	TAP_CHECK_EQ(n, 4);
	TAP_CHECK_EQ(insns[0].op, PTO_OP_POP);
	TAP_CHECK_EQ(insns[0].dst, t0);
	TAP_CHECK_EQ(insns[0].a, 0);
	TAP_CHECK_EQ(insns[1].op, PTO_OP_PUSH);
	TAP_CHECK_EQ(insns[1].a, t1);
	TAP_CHECK_EQ(insns[1].dst, 0);
	TAP_CHECK_EQ(insns[2].op, PTO_OP_POP);
	pto_kb_free(kb);
}

static void push_shapes_must_agree(void)
{
	struct pto_kb *kb = kb_new(PTO_CORE_AIC);
	struct pto_verify_info info;
	int t0, t1;

	t0 = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_L0C, 16, 64);
	t1 = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_L1, 32, 64);
	TAP_CHECK_EQ(pto_kb_push(kb, t0), 0);
	TAP_CHECK_EQ(pto_kb_push(kb, t0), 0);
	TAP_CHECK_EQ(pto_kb_push(kb, t1), -EINVAL);
	TAP_CHECK_EQ(pto_kb_error_info(kb, &info), -EINVAL);
	TAP_CHECK_EQ(info.code, PTO_VERIFY_TILE_SHAPE);
	TAP_CHECK_EQ(info.index, 2);
	expect_text(pto_kb_error(kb),
		    "insn 2 (PUSH): every PUSH of a kernel moves one tile shape: t1 (f32 32x64 in L1), but insn 0 moved f32 16x64");
	pto_kb_free(kb);
}

static void pop_dtypes_must_agree(void)
{
	struct pto_kb *kb = kb_new(PTO_CORE_AIV);
	struct pto_verify_info info;
	int t0, t1, t2;

	t0 = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, 16, 64);
	t1 = pto_kb_tile(kb, PTO_DTYPE_I32, PTO_BUF_UB, 16, 64);
	t2 = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, 64, 16);
	TAP_CHECK_EQ(pto_kb_pop(kb, t0), 0);
	/* PUSH and POP have a shape each. */
	TAP_CHECK_EQ(pto_kb_push(kb, t2), 0);
	TAP_CHECK_EQ(pto_kb_pop(kb, t1), -EINVAL);
	TAP_CHECK_EQ(pto_kb_error_info(kb, &info), -EINVAL);
	TAP_CHECK_EQ(info.code, PTO_VERIFY_TILE_SHAPE);
	TAP_CHECK_EQ(info.index, 2);
	expect_text(pto_kb_error(kb), "every POP of a kernel moves one tile shape");
	pto_kb_free(kb);
}

static void push_needs_a_declared_tile(void)
{
	struct pto_kb *kb = kb_new(PTO_CORE_AIV);
	struct pto_verify_info info;

	pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, 16, 64);
	TAP_CHECK_EQ(pto_kb_push(kb, 1), -EINVAL);
	TAP_CHECK_EQ(pto_kb_error_info(kb, &info), -EINVAL);
	TAP_CHECK_EQ(info.code, PTO_VERIFY_BAD_REG);
	expect_text(pto_kb_error(kb), "insn 0 (PUSH): tile register t1 is not declared");
	pto_kb_free(kb);
}

static void kernel_scan_records_ring_and_ub(void)
{
	struct pto_kernel k;
	struct pto_ring_tile rt;
	struct pto_kb *kb = kb_new(PTO_CORE_AIV);
	int a, b;

	a = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, 1, 1); /* 4 bytes */
	b = pto_kb_tile(kb, PTO_DTYPE_I32, PTO_BUF_UB, 32, 64); /* at 64 */
	pto_kb_pop(kb, b);
	pto_kb_push(kb, a);
	pto_kb_end(kb);
	kernel_of(kb, &k);
	TAP_CHECK_EQ(pto_kernel_ub_used(&k), 64 + 32 * 64 * 4);
	TAP_CHECK_EQ(pto_kernel_pop_tile(&k, &rt), 0);
	TAP_CHECK_EQ(rt.dtype, PTO_DTYPE_I32);
	TAP_CHECK_EQ(rt.rows, 32);
	TAP_CHECK_EQ(rt.cols, 64);
	TAP_CHECK_EQ(pto_kernel_push_tile(&k, &rt), 0);
	TAP_CHECK_EQ(rt.rows, 1);

	aic_kernel(&k, 0, 0, 0, PTO_DTYPE_F32);
	TAP_CHECK_EQ(pto_kernel_push_tile(&k, NULL), -ENOENT);
	TAP_CHECK_EQ(pto_kernel_pop_tile(&k, NULL), -ENOENT);
	TAP_CHECK_EQ(pto_kernel_ub_used(&k), 0);
}

static void shapes_match_under_the_split(void)
{
	struct pto_kernel aic, aiv_full, aiv_half;
	char msg[256];

	aic_kernel(&aic, 64, 0, 64, PTO_DTYPE_F32);
	aiv_kernel(&aiv_full, 64, 0, 64, PTO_DTYPE_F32, 0);
	aiv_kernel(&aiv_half, 32, 0, 64, PTO_DTYPE_F32, 0);
	TAP_CHECK_EQ(pto_mixed_check(&aic, &aiv_full, PTO_SPLIT_NONE, 0, msg,
				     sizeof(msg)), 0);
	TAP_CHECK_EQ(msg[0], '\0');
	TAP_CHECK_EQ(pto_mixed_check(&aic, &aiv_half, PTO_SPLIT_UP_DOWN, 0, msg,
				     sizeof(msg)), 0);

	TAP_CHECK_EQ(pto_mixed_check(&aic, &aiv_half, PTO_SPLIT_NONE, 0, msg,
				     sizeof(msg)), -EINVAL);
	TAP_CHECK(!strcmp(msg,
			  "cross-core ring AIC -> AIV: the AIC pushes f32 64x64 tiles but the AIV pops f32 32x64; under NONE each AIV takes the whole tile of f32 64x64"));
	TAP_CHECK_EQ(pto_mixed_check(&aic, &aiv_full, PTO_SPLIT_UP_DOWN, 0, msg,
				     sizeof(msg)), -EINVAL);
	expect_text(msg, "under UP_DOWN each AIV takes half the rows of f32 32x64");
}

static void cols_and_dtype_must_match(void)
{
	struct pto_kernel aic, aiv;
	char msg[256];

	aic_kernel(&aic, 64, 0, 64, PTO_DTYPE_F32);
	aiv_kernel(&aiv, 64, 0, 32, PTO_DTYPE_F32, 0);
	TAP_CHECK_EQ(pto_mixed_check(&aic, &aiv, PTO_SPLIT_NONE, 0, msg,
				     sizeof(msg)), -EINVAL);
	aiv_kernel(&aiv, 64, 0, 64, PTO_DTYPE_I32, 0);
	TAP_CHECK_EQ(pto_mixed_check(&aic, &aiv, PTO_SPLIT_NONE, 0, msg,
				     sizeof(msg)), -EINVAL);
	expect_text(msg, "the AIV pops i32 64x64");
}

static void vector_to_cube_direction(void)
{
	struct pto_kernel aic, aiv;
	char msg[256];

	/* The AIC pops 64 rows: each AIV pushes 32 under UP_DOWN. */
	aic_kernel(&aic, 0, 64, 16, PTO_DTYPE_F32);
	aiv_kernel(&aiv, 0, 32, 16, PTO_DTYPE_F32, 0);
	TAP_CHECK_EQ(pto_mixed_check(&aic, &aiv, PTO_SPLIT_UP_DOWN, 2, msg,
				     sizeof(msg)), 0);
	TAP_CHECK_EQ(pto_mixed_check(&aic, &aiv, PTO_SPLIT_NONE, 2, msg,
				     sizeof(msg)), -EINVAL);
	expect_text(msg, "cross-core ring AIV -> AIC: the AIC pops f32 64x16 tiles but the AIV pushes f32 32x16");
}

static void odd_rows_do_not_split(void)
{
	struct pto_kernel aic, aiv;
	char msg[256];

	aic_kernel(&aic, 33, 0, 16, PTO_DTYPE_F32);
	aiv_kernel(&aiv, 0, 0, 0, PTO_DTYPE_F32, 0);
	TAP_CHECK_EQ(pto_mixed_check(&aic, &aiv, PTO_SPLIT_UP_DOWN, 0, msg,
				     sizeof(msg)), -EINVAL);
	expect_text(msg, "33 rows do not split between the 2 AIVs of UP_DOWN");
	TAP_CHECK_EQ(pto_mixed_check(&aic, &aiv, PTO_SPLIT_NONE, 0, msg,
				     sizeof(msg)), 0);
}

static void split_mode_and_slot_num_ranges(void)
{
	struct pto_kernel aic, aiv;
	char msg[256];

	aic_kernel(&aic, 16, 0, 16, PTO_DTYPE_F32);
	aiv_kernel(&aiv, 16, 0, 16, PTO_DTYPE_F32, 0);
	TAP_CHECK_EQ(pto_mixed_check(&aic, &aiv, (enum pto_split_mode)2, 0,
				     msg, sizeof(msg)), -EINVAL);
	expect_text(msg, "split_mode 2");
	TAP_CHECK_EQ(pto_mixed_check(&aic, &aiv, PTO_SPLIT_NONE, 65, msg,
				     sizeof(msg)), -EINVAL);
	expect_text(msg, "slot_num 65 over the most, 64");
	TAP_CHECK_EQ(pto_mixed_check(&aic, &aiv, PTO_SPLIT_NONE, 64, msg,
				     sizeof(msg)), 0);
	/* Kernels swapped, or missing. */
	TAP_CHECK_EQ(pto_mixed_check(&aiv, &aic, PTO_SPLIT_NONE, 0, msg,
				     sizeof(msg)), -EINVAL);
	TAP_CHECK_EQ(pto_mixed_check(NULL, &aiv, PTO_SPLIT_NONE, 0, NULL, 0),
		     -EINVAL);
}

/* The guide's example: the default 8 slots do not fit, 1 does. */
static void slot_budget_names_what_fits(void)
{
	struct pto_kernel aic, aiv;
	char msg[256];

	/* Slot: f32 64x128 = 32 KiB; tiles: the pop tile + 128 KiB = 160 KiB. */
	aic_kernel(&aic, 64, 0, 128, PTO_DTYPE_F32);
	aiv_kernel(&aiv, 64, 0, 128, PTO_DTYPE_F32, 128);
	TAP_CHECK_EQ(pto_kernel_ub_used(&aiv), 160 * KIB);
	TAP_CHECK_EQ(pto_mixed_check(&aic, &aiv, PTO_SPLIT_NONE, 0, msg,
				     sizeof(msg)), -ENOSPC);
	TAP_CHECK(!strcmp(msg,
			  "cross-core ring: 8 slots x 32 KiB + 160 KiB of tiles exceed the 192 KiB UB; slot_num <= 1 fits"));
	TAP_CHECK_EQ(pto_mixed_check(&aic, &aiv, PTO_SPLIT_NONE, 2, msg,
				     sizeof(msg)), -ENOSPC);
	expect_text(msg, "2 slots x 32 KiB");
	TAP_CHECK_EQ(pto_mixed_check(&aic, &aiv, PTO_SPLIT_NONE, 1, msg,
				     sizeof(msg)), 0);

	/* Under UP_DOWN a slot holds half the tile: 16 KiB, 2 fit. */
	aiv_kernel(&aiv, 32, 0, 128, PTO_DTYPE_F32, 144);
	TAP_CHECK_EQ(pto_mixed_check(&aic, &aiv, PTO_SPLIT_UP_DOWN, 0, msg,
				     sizeof(msg)), -ENOSPC);
	TAP_CHECK(!strcmp(msg,
			  "cross-core ring: 8 slots x 16 KiB + 160 KiB of tiles exceed the 192 KiB UB; slot_num <= 2 fits"));
	TAP_CHECK_EQ(pto_mixed_check(&aic, &aiv, PTO_SPLIT_UP_DOWN, 2, msg,
				     sizeof(msg)), 0);
}

static void slot_budget_counts_both_directions(void)
{
	struct pto_kernel aic, aiv;
	char msg[256];

	/* c2v 16 KiB + v2c 16 KiB per slot; 64 KiB of tiles: 4 fit. */
	aic_kernel(&aic, 32, 32, 128, PTO_DTYPE_F32);
	aiv_kernel(&aiv, 32, 32, 128, PTO_DTYPE_F32, 32);
	TAP_CHECK_EQ(pto_kernel_ub_used(&aiv), 64 * KIB);
	TAP_CHECK_EQ(pto_mixed_check(&aic, &aiv, PTO_SPLIT_NONE, 5, msg,
				     sizeof(msg)), -ENOSPC);
	TAP_CHECK(!strcmp(msg,
			  "cross-core ring: 5 slots x 32 KiB + 64 KiB of tiles exceed the 192 KiB UB; slot_num <= 4 fits"));
	TAP_CHECK_EQ(pto_mixed_check(&aic, &aiv, PTO_SPLIT_NONE, 4, msg,
				     sizeof(msg)), 0);

	/* A ring tile larger than what the tiles leave: nothing fits. */
	aic_kernel(&aic, 128, 0, 128, PTO_DTYPE_F32);
	aiv_kernel(&aiv, 128, 0, 128, PTO_DTYPE_F32, 96);
	TAP_CHECK_EQ(pto_mixed_check(&aic, &aiv, PTO_SPLIT_NONE, 1, msg,
				     sizeof(msg)), -ENOSPC);
	expect_text(msg, "no slot_num fits");
}

/* The graph applies the same rules, and refuses the ring outside a mixed task. */
static void graph_refuses_ring_misuse(void)
{
	struct pto_kernel aic, aiv, plain;
	struct pto_graph *g = NULL;
	struct pto_task_desc d;

	aic_kernel(&aic, 64, 0, 128, PTO_DTYPE_F32);
	aiv_kernel(&aiv, 64, 0, 128, PTO_DTYPE_F32, 128);
	aiv_kernel(&plain, 0, 0, 0, PTO_DTYPE_F32, 0);
	TAP_CHECK_EQ(pto_graph_new(&dev, &g), 0);

	d = (struct pto_task_desc){ .name = "mix", .kernel_aic = &aic,
				    .kernel_aiv = &aiv, .block_num = 1 };
	TAP_CHECK_EQ(pto_graph_add_task(g, &d), -ENOSPC);
	TAP_CHECK(!strcmp(pto_graph_error(g),
			  "task 0 'mix': cross-core ring: 8 slots x 32 KiB + 160 KiB of tiles exceed the 192 KiB UB; slot_num <= 1 fits"));
	d.slot_num = 1;
	TAP_CHECK_EQ(pto_graph_add_task(g, &d), 0);
	d.split_mode = PTO_SPLIT_UP_DOWN;
	TAP_CHECK_EQ(pto_graph_add_task(g, &d), -EINVAL);
	expect_text(pto_graph_error(g), "under UP_DOWN");

	d = (struct pto_task_desc){ .kernel_aic = &aic, .block_num = 1 };
	TAP_CHECK_EQ(pto_graph_add_task(g, &d), -EINVAL);
	expect_text(pto_graph_error(g),
		    "kernel_aic uses the cross-core ring (PUSH), which only a mixed task has");
	d = (struct pto_task_desc){ .kernel_aiv = &plain, .block_num = 1,
				    .slot_num = 2 };
	TAP_CHECK_EQ(pto_graph_add_task(g, &d), -EINVAL);
	expect_text(pto_graph_error(g), "are for mixed tasks");
	d = (struct pto_task_desc){ .kernel_aiv = &plain, .block_num = 1,
				    .split_mode = PTO_SPLIT_UP_DOWN };
	TAP_CHECK_EQ(pto_graph_add_task(g, &d), -EINVAL);
	d.split_mode = PTO_SPLIT_NONE;
	TAP_CHECK_EQ(pto_graph_add_task(g, &d), 1);
	TAP_CHECK_EQ(pto_graph_task_count(g), 2);
	pto_graph_free(g);
}

TAP_MAIN(TAP_TEST(push_pop_encoding), TAP_TEST(push_shapes_must_agree),
	 TAP_TEST(pop_dtypes_must_agree), TAP_TEST(push_needs_a_declared_tile),
	 TAP_TEST(kernel_scan_records_ring_and_ub),
	 TAP_TEST(shapes_match_under_the_split),
	 TAP_TEST(cols_and_dtype_must_match),
	 TAP_TEST(vector_to_cube_direction), TAP_TEST(odd_rows_do_not_split),
	 TAP_TEST(split_mode_and_slot_num_ranges),
	 TAP_TEST(slot_budget_names_what_fits),
	 TAP_TEST(slot_budget_counts_both_directions),
	 TAP_TEST(graph_refuses_ring_misuse))
