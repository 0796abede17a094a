// SPDX-License-Identifier: MIT
/*
 * The kernel builder without a device: every refusal it makes on its own
 * (tile budgets and placement, core types, shapes and dtypes, registers,
 * arguments, loops, labels, END) and the encoding of a valid program.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <pto/pto.h>

#include "kernel_builder.h"
#include "tap.h"
#include "topology.h"

/* The sticky error: its errno, code, index, and a piece of its message. */
static void expect_error(struct pto_kb *kb, int err, uint32_t code,
			 uint32_t index, const char *text)
{
	struct pto_verify_info info;
	struct pto_kernel *k = (struct pto_kernel *)1;

	TAP_CHECK_EQ(pto_kb_error_info(kb, &info), err);
	TAP_CHECK_EQ(info.code, code);
	TAP_CHECK_EQ(info.index, index);
	if (!strstr(pto_kb_error(kb), text)) {
		printf("#   message \"%s\" lacks \"%s\"\n", pto_kb_error(kb),
		       text);
		TAP_CHECK(!"message");
	}
	/* Sticky: later calls do nothing and return it; finish refuses. */
	TAP_CHECK_EQ(pto_kb_ldi(kb, 0, 1), err);
	TAP_CHECK_EQ(pto_kb_end(kb), err);
	TAP_CHECK_EQ(pto_kb_finish(kb, &k), err);
	TAP_CHECK(k == NULL);
	pto_kb_free(kb);
}

static void budget_refusal_names_tile_and_buffer(void)
{
	struct pto_kb *kb = kb_new(PTO_CORE_AIV);

	TAP_CHECK_EQ(pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, 128, 128), 0);
	TAP_CHECK_EQ(pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, 128, 128), 1);
	TAP_CHECK_EQ(pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, 32, 256), 2);
	TAP_CHECK_EQ(pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, 256, 256),
		     -ENOSPC);
	TAP_CHECK(!strcmp(
		pto_kb_error(kb),
		"tile t3 (f32 256x256 = 256 KiB) does not fit in UB: 192 KiB budget, 160 KiB already used"));
	expect_error(kb, -ENOSPC, PTO_VERIFY_BUDGET, 3, "UB");
}

static void tiles_are_placed_64_byte_aligned(void)
{
	struct pto_kb *kb = kb_new(PTO_CORE_AIV);

	/* 1 byte, then one that ends exactly at the budget once aligned */
	TAP_CHECK_EQ(pto_kb_tile(kb, PTO_DTYPE_I8, PTO_BUF_UB, 1, 1), 0);
	TAP_CHECK_EQ(pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, 16, 3071), 1);
	/* unaligned, 1 + 196544 + 1 would still fit in 196608 */
	TAP_CHECK_EQ(pto_kb_tile(kb, PTO_DTYPE_I8, PTO_BUF_UB, 1, 1), -ENOSPC);
	expect_error(kb, -ENOSPC, PTO_VERIFY_BUDGET, 2,
		     "192 KiB budget, 192 KiB already used");
}

static void budgets_are_per_buffer(void)
{
	struct pto_kb *kb = kb_new(PTO_CORE_AIC);

	/* L0A and L0B full to the byte; L0C and L1 untouched by them */
	TAP_CHECK_EQ(pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_L0A, 128, 128), 0);
	TAP_CHECK_EQ(pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_L0B, 128, 128), 1);
	TAP_CHECK_EQ(pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_L0C, 128, 256), 2);
	TAP_CHECK_EQ(pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_L1, 256, 512), 3);
	TAP_CHECK_EQ(pto_kb_tile(kb, PTO_DTYPE_I8, PTO_BUF_L0A, 1, 1), -ENOSPC);
	expect_error(
		kb, -ENOSPC, PTO_VERIFY_BUDGET, 4,
		"tile t4 (i8 1x1 = 1 byte) does not fit in L0A: 64 KiB budget, 64 KiB already used");
}

static void too_many_tiles(void)
{
	struct pto_kb *kb = kb_new(PTO_CORE_AIV);
	int i;

	for (i = 0; i < PTO_NUM_TREGS; i++)
		TAP_CHECK_EQ(pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, 1, 1),
			     i);
	TAP_CHECK_EQ(pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, 1, 1), -E2BIG);
	expect_error(kb, -E2BIG, PTO_VERIFY_BAD_TILE_DECL, 16, "at most 16");
}

static void bad_tile_declarations(void)
{
	struct pto_kb *kb = kb_new(PTO_CORE_AIV);

	TAP_CHECK_EQ(pto_kb_tile(kb, PTO_DTYPE_U8, PTO_BUF_UB, 1, 1), -EINVAL);
	expect_error(kb, -EINVAL, PTO_VERIFY_BAD_TILE_DECL, 0,
		     "u8 is not a tile type");

	kb = kb_new(PTO_CORE_AIV);
	TAP_CHECK_EQ(pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, 0, 8), -EINVAL);
	expect_error(kb, -EINVAL, PTO_VERIFY_BAD_TILE_DECL, 0, "0x8");

	kb = kb_new(PTO_CORE_AIV);
	TAP_CHECK_EQ(pto_kb_tile(kb, PTO_DTYPE_I8, PTO_BUF_UB, 1, 4097),
		     -EINVAL);
	expect_error(kb, -EINVAL, PTO_VERIFY_BAD_TILE_DECL, 0, "1..4096");
}

static void ub_tiles_only_on_aiv(void)
{
	struct pto_kb *kb = kb_new(PTO_CORE_AIC);

	TAP_CHECK_EQ(pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, 8, 8), -EINVAL);
	expect_error(kb, -EINVAL, PTO_VERIFY_TILE_BUF, 0,
		     "UB is not a local buffer of an AIC kernel");
}

static void cube_buffers_only_on_aic(void)
{
	enum pto_local_buf bufs[] = { PTO_BUF_L1, PTO_BUF_L0A, PTO_BUF_L0B,
				      PTO_BUF_L0C };
	unsigned int i;

	for (i = 0; i < 4; i++) {
		struct pto_kb *kb = kb_new(PTO_CORE_AIV);

		TAP_CHECK_EQ(pto_kb_tile(kb, PTO_DTYPE_F32, bufs[i], 8, 8),
			     -EINVAL);
		expect_error(kb, -EINVAL, PTO_VERIFY_TILE_BUF, 0,
			     "of an AIV kernel");
	}
}

static void matmul_only_on_aic(void)
{
	struct pto_kb *kb = kb_new(PTO_CORE_AIV);

	pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, 8, 8);
	TAP_CHECK_EQ(pto_kb_matmul(kb, 0, 0, 0, false), -EINVAL);
	expect_error(kb, -EINVAL, PTO_VERIFY_CORE_TYPE, 0,
		     "insn 0 (MATMUL): runs on AIC only");
}

static void vector_ops_only_on_aiv(void)
{
	struct pto_kb *kb = kb_new(PTO_CORE_AIC);

	pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_L1, 8, 8);
	pto_kb_ldi(kb, 0, 0);
	TAP_CHECK_EQ(pto_kb_tbin(kb, PTO_TBIN_ADD, 0, 0, 0), -EINVAL);
	expect_error(kb, -EINVAL, PTO_VERIFY_CORE_TYPE, 1,
		     "insn 1 (TBIN): runs on AIV only");

	kb = kb_new(PTO_CORE_AIC);
	pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_L1, 8, 8);
	TAP_CHECK_EQ(pto_kb_tunary(kb, PTO_TUNARY_EXP, 0, 0), -EINVAL);
	expect_error(kb, -EINVAL, PTO_VERIFY_CORE_TYPE, 0, "AIV only");
}

/* An AIC builder with a (L0C f32 MxN) = b (L0A MxK) x c (L0B KxN). */
static struct pto_kb *matmul_kb(enum pto_local_buf abuf, enum pto_dtype cdt,
				uint32_t k2)
{
	struct pto_kb *kb = kb_new(PTO_CORE_AIC);

	pto_kb_tile(kb, cdt, PTO_BUF_L0C, 32, 16);
	pto_kb_tile(kb, PTO_DTYPE_F32, abuf, 32, 8);
	pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_L0B, k2, 16);
	return kb;
}

static void matmul_operand_rules(void)
{
	struct pto_kb *kb = matmul_kb(PTO_BUF_L0A, PTO_DTYPE_F32, 8);

	TAP_CHECK_EQ(pto_kb_matmul(kb, 0, 1, 2, true), 0);
	TAP_CHECK_EQ(pto_kb_end(kb), 0);
	TAP_CHECK_EQ(pto_kb_program(kb, NULL, NULL, NULL, NULL), 0);
	pto_kb_free(kb);

	kb = matmul_kb(PTO_BUF_L1, PTO_DTYPE_F32, 8);
	TAP_CHECK_EQ(pto_kb_matmul(kb, 0, 1, 2, false), -EINVAL);
	expect_error(
		kb, -EINVAL, PTO_VERIFY_TILE_BUF, 0,
		"takes L0A x L0B into L0C: t0 (f32 32x16 in L0C) = t1 (f32 32x8 in L1) x t2 (f32 8x16 in L0B)");

	kb = matmul_kb(PTO_BUF_L0A, PTO_DTYPE_I32, 8);
	TAP_CHECK_EQ(pto_kb_matmul(kb, 0, 1, 2, false), -EINVAL);
	expect_error(kb, -EINVAL, PTO_VERIFY_TILE_DTYPE, 0, "is f32");

	kb = matmul_kb(PTO_BUF_L0A, PTO_DTYPE_F32, 9);
	TAP_CHECK_EQ(pto_kb_matmul(kb, 0, 1, 2, false), -EINVAL);
	expect_error(kb, -EINVAL, PTO_VERIFY_TILE_SHAPE, 0,
		     "shapes do not agree");
}

static void tile_dtype_rules(void)
{
	struct pto_kb *kb;

	kb = kb_new(PTO_CORE_AIV);
	pto_kb_tile(kb, PTO_DTYPE_I32, PTO_BUF_UB, 8, 8);
	TAP_CHECK_EQ(pto_kb_tunary(kb, PTO_TUNARY_EXP, 0, 0), -EINVAL);
	expect_error(kb, -EINVAL, PTO_VERIFY_TILE_DTYPE, 0,
		     "EXP and SQRT are for f32 tiles, not t0 (i32 8x8 in UB)");

	kb = kb_new(PTO_CORE_AIV);
	pto_kb_tile(kb, PTO_DTYPE_I32, PTO_BUF_UB, 8, 8);
	TAP_CHECK_EQ(pto_kb_tunary(kb, PTO_TUNARY_ABS, 0, 0), 0);
	TAP_CHECK_EQ(pto_kb_tbin(kb, PTO_TBIN_XOR, 0, 0, 0), 0);
	TAP_CHECK_EQ(pto_kb_tbin(kb, PTO_TBIN_DIV, 0, 0, 0), -EINVAL);
	expect_error(kb, -EINVAL, PTO_VERIFY_TILE_DTYPE, 2, "DIV is for f32");

	kb = kb_new(PTO_CORE_AIV);
	pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, 8, 8);
	TAP_CHECK_EQ(pto_kb_tbinsi(kb, PTO_TBIN_AND, 0, 0, 1), -EINVAL);
	expect_error(kb, -EINVAL, PTO_VERIFY_TILE_DTYPE, 0,
		     "AND/OR/XOR are for integer tiles");

	kb = kb_new(PTO_CORE_AIV);
	pto_kb_tile(kb, PTO_DTYPE_I32, PTO_BUF_UB, 8, 8);
	pto_kb_tile(kb, PTO_DTYPE_I32, PTO_BUF_UB, 8, 1);
	TAP_CHECK_EQ(pto_kb_trowred(kb, PTO_ROWRED_SUM, 1, 0), -EINVAL);
	expect_error(kb, -EINVAL, PTO_VERIFY_TILE_DTYPE, 0,
		     "row reductions are for f32 tiles");

	kb = kb_new(PTO_CORE_AIV);
	pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, 8, 8);
	pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, 8, 2);
	TAP_CHECK_EQ(pto_kb_trowred(kb, PTO_ROWRED_MAX, 1, 0), -EINVAL);
	expect_error(kb, -EINVAL, PTO_VERIFY_TILE_SHAPE, 0, "needs a 8x1");

	kb = kb_new(PTO_CORE_AIV);
	pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, 8, 8);
	TAP_CHECK_EQ(pto_kb_tfilli(kb, 0, 3), -EINVAL);
	expect_error(kb, -EINVAL, PTO_VERIFY_TILE_DTYPE, 0,
		     "use the f32 variant");

	kb = kb_new(PTO_CORE_AIV);
	pto_kb_tile(kb, PTO_DTYPE_I16, PTO_BUF_UB, 8, 8);
	TAP_CHECK_EQ(pto_kb_tbinsf(kb, PTO_TBIN_MUL, 0, 0, 2.0f), -EINVAL);
	expect_error(kb, -EINVAL, PTO_VERIFY_TILE_DTYPE, 0,
		     "use the integer variant");

	kb = kb_new(PTO_CORE_AIV);
	pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, 8, 8);
	pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, 8, 4);
	TAP_CHECK_EQ(pto_kb_tbin(kb, PTO_TBIN_ADD, 0, 0, 1), -EINVAL);
	expect_error(kb, -EINVAL, PTO_VERIFY_TILE_SHAPE, 0,
		     "differ in shape or dtype");

	/* TCAST changes the dtype, not the shape */
	kb = kb_new(PTO_CORE_AIV);
	pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, 8, 8);
	pto_kb_tile(kb, PTO_DTYPE_I32, PTO_BUF_UB, 8, 8);
	pto_kb_tile(kb, PTO_DTYPE_I32, PTO_BUF_UB, 4, 8);
	TAP_CHECK_EQ(pto_kb_tcast(kb, 1, 0), 0);
	TAP_CHECK_EQ(pto_kb_tcast(kb, 2, 0), -EINVAL);
	expect_error(kb, -EINVAL, PTO_VERIFY_TILE_SHAPE, 1, "differ in shape");
}

static void load_store_buffers(void)
{
	struct pto_kb *kb = kb_new(PTO_CORE_AIC);

	pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_L0C, 8, 8);
	pto_kb_ldi(kb, 0, 0);
	TAP_CHECK_EQ(pto_kb_tload(kb, 0, 0, 0, 0), -EINVAL);
	expect_error(kb, -EINVAL, PTO_VERIFY_TILE_BUF, 1,
		     "cannot load into t0 (f32 8x8 in L0C)");

	kb = kb_new(PTO_CORE_AIC);
	pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_L0A, 8, 8);
	pto_kb_ldi(kb, 0, 0);
	TAP_CHECK_EQ(pto_kb_tload(kb, 0, 0, 0, 0), 0);
	TAP_CHECK_EQ(pto_kb_tstore(kb, 0, 1, 0, 0), -EINVAL);
	expect_error(kb, -EINVAL, PTO_VERIFY_TILE_BUF, 2,
		     "store from L0C or L1");
}

static void registers_in_range(void)
{
	struct pto_kb *kb = kb_new(PTO_CORE_AIV);

	TAP_CHECK_EQ(pto_kb_ldi(kb, 31, 1), 0);
	TAP_CHECK_EQ(pto_kb_alu(kb, PTO_ALU_ADD, 0, 31, 32), -EINVAL);
	expect_error(kb, -EINVAL, PTO_VERIFY_BAD_REG, 1,
		     "insn 1 (ALU): scalar register s32 outside s0..s31");

	kb = kb_new(PTO_CORE_AIV);
	pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, 8, 8);
	TAP_CHECK_EQ(pto_kb_tmov(kb, 0, 1), -EINVAL);
	expect_error(kb, -EINVAL, PTO_VERIFY_BAD_REG, 0,
		     "tile register t1 is not declared (1 tiles)");

	kb = kb_new(PTO_CORE_AIV);
	TAP_CHECK_EQ(pto_kb_alui(kb, (enum pto_alu)12, 0, 0, 1), -EINVAL);
	expect_error(kb, -EINVAL, PTO_VERIFY_BAD_MODE, 0, "unknown operation");

	kb = kb_new(PTO_CORE_AIV);
	TAP_CHECK_EQ(pto_kb_sreg(kb, 0, (enum pto_sreg)6), -EINVAL);
	expect_error(kb, -EINVAL, PTO_VERIFY_BAD_MODE, 0, "special register");
}

static void argument_indexes(void)
{
	struct pto_kb *kb = kb_new(PTO_CORE_AIV);

	TAP_CHECK_EQ(pto_kb_arg(kb, 0, 15), 0);
	TAP_CHECK_EQ(pto_kb_arg(kb, 0, 16), -EINVAL);
	expect_error(kb, -EINVAL, PTO_VERIFY_ARG_INDEX, 1,
		     "scalar argument 16 outside 0..15");

	kb = kb_new(PTO_CORE_AIV);
	TAP_CHECK_EQ(pto_kb_gld(kb, 0, 16, 1, 2), -EINVAL);
	expect_error(kb, -EINVAL, PTO_VERIFY_ARG_INDEX, 0,
		     "tensor argument 16 outside 0..15");
}

static void tensor_argument_dtype_conflicts(void)
{
	struct pto_kb *kb = kb_new(PTO_CORE_AIV);

	pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, 8, 8);
	pto_kb_tile(kb, PTO_DTYPE_I32, PTO_BUF_UB, 8, 8);
	pto_kb_ldi(kb, 0, 0);
	TAP_CHECK_EQ(pto_kb_tload(kb, 0, 2, 0, 0), 0);
	TAP_CHECK_EQ(pto_kb_gld(kb, 1, 2, 0, 0), 0); /* any dtype */
	TAP_CHECK_EQ(pto_kb_tstore(kb, 1, 2, 0, 0), -EINVAL);
	expect_error(kb, -EINVAL, PTO_VERIFY_ARG_DTYPE, 3,
		     "tensor argument 2 used as i32 here but as f32 by insn 1");

	kb = kb_new(PTO_CORE_AIV);
	pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, 8, 8);
	pto_kb_ldi(kb, 0, 0);
	TAP_CHECK_EQ(pto_kb_tload(kb, 0, 0, 0, 0), 0);
	TAP_CHECK_EQ(pto_kb_atomic_add(kb, 1, 0, 0, 0, 0), -EINVAL);
	expect_error(kb, -EINVAL, PTO_VERIFY_ARG_DTYPE, 2, "used as i32 here");
}

static void loop_nesting_deeper_than_four(void)
{
	struct pto_kb *kb = kb_new(PTO_CORE_AIV);
	int i;

	for (i = 0; i < PTO_MAX_LOOP_DEPTH; i++)
		TAP_CHECK_EQ(pto_kb_loopi(kb, i, 2), 0);
	TAP_CHECK_EQ(pto_kb_loopi(kb, 4, 2), -EINVAL);
	expect_error(
		kb, -EINVAL, PTO_VERIFY_LOOP_NESTING, 4,
		"loops nested deeper than 4 (open loops at insn 0, 1, 2, 3)");
}

static void unbalanced_loops(void)
{
	struct pto_kb *kb = kb_new(PTO_CORE_AIV);

	TAP_CHECK_EQ(pto_kb_endloop(kb), -EINVAL);
	expect_error(kb, -EINVAL, PTO_VERIFY_LOOP_NESTING, 0,
		     "ENDLOOP without an open LOOP");

	kb = kb_new(PTO_CORE_AIV);
	pto_kb_ldi(kb, 1, 3);
	pto_kb_loop(kb, 0, 1);
	pto_kb_loopi(kb, 2, 5);
	pto_kb_endloop(kb);
	TAP_CHECK_EQ(pto_kb_end(kb), 0);
	TAP_CHECK_EQ(pto_kb_program(kb, NULL, NULL, NULL, NULL), -EINVAL);
	expect_error(kb, -EINVAL, PTO_VERIFY_LOOP_NESTING, 1,
		     "insn 1 (LOOP): no matching ENDLOOP");

	kb = kb_new(PTO_CORE_AIV);
	TAP_CHECK_EQ(pto_kb_loopi(kb, 0, PTO_MAX_LOOP_COUNT + 1), -EINVAL);
	expect_error(kb, -EINVAL, PTO_VERIFY_LOOP_COUNT, 0,
		     "loop count 1048577 outside 0..1048576");
}

static void unbound_label(void)
{
	struct pto_kb *kb = kb_new(PTO_CORE_AIV);
	int l = pto_kb_label_new(kb);

	TAP_CHECK_EQ(l, 0);
	pto_kb_ldi(kb, 0, 0);
	TAP_CHECK_EQ(pto_kb_jz(kb, 0, l), 0);
	TAP_CHECK_EQ(pto_kb_end(kb), 0);
	TAP_CHECK_EQ(pto_kb_program(kb, NULL, NULL, NULL, NULL), -EINVAL);
	expect_error(kb, -EINVAL, PTO_VERIFY_BAD_JUMP, 1,
		     "insn 1 (JZ): label L0 is never bound");
}

static void label_misuse(void)
{
	struct pto_kb *kb = kb_new(PTO_CORE_AIV);
	int l = pto_kb_label_new(kb);

	/* backward */
	pto_kb_label_bind(kb, l);
	pto_kb_ldi(kb, 0, 0);
	TAP_CHECK_EQ(pto_kb_jmp(kb, l), -EINVAL);
	expect_error(kb, -EINVAL, PTO_VERIFY_BAD_JUMP, 1,
		     "jumps go forward only");

	/* bound twice */
	kb = kb_new(PTO_CORE_AIV);
	l = pto_kb_label_new(kb);
	pto_kb_jmp(kb, l);
	pto_kb_label_bind(kb, l);
	pto_kb_ldi(kb, 0, 0);
	TAP_CHECK_EQ(pto_kb_label_bind(kb, l), -EINVAL);
	expect_error(kb, -EINVAL, PTO_VERIFY_BAD_JUMP, 2, "bound twice");

	/* a label that was never made */
	kb = kb_new(PTO_CORE_AIV);
	TAP_CHECK_EQ(pto_kb_jmp(kb, 3), -EINVAL);
	expect_error(kb, -EINVAL, PTO_VERIFY_BAD_JUMP, 0,
		     "label 3 was not made");

	/* bound after the last instruction */
	kb = kb_new(PTO_CORE_AIV);
	l = pto_kb_label_new(kb);
	pto_kb_jmp(kb, l);
	pto_kb_end(kb);
	pto_kb_label_bind(kb, l);
	TAP_CHECK_EQ(pto_kb_program(kb, NULL, NULL, NULL, NULL), -EINVAL);
	expect_error(kb, -EINVAL, PTO_VERIFY_BAD_JUMP, 0,
		     "bound after the last instruction");
}

static void jumps_stay_in_their_loop_body(void)
{
	struct pto_kb *kb = kb_new(PTO_CORE_AIV);
	int l = pto_kb_label_new(kb);

	/* out of a body */
	pto_kb_loopi(kb, 0, 4);
	pto_kb_jz(kb, 0, l);
	pto_kb_endloop(kb);
	pto_kb_label_bind(kb, l);
	pto_kb_end(kb);
	TAP_CHECK_EQ(pto_kb_program(kb, NULL, NULL, NULL, NULL), -EINVAL);
	expect_error(
		kb, -EINVAL, PTO_VERIFY_BAD_JUMP, 1,
		"insn 1 (JZ): the jump to label L0 (insn 3) leaves its loop body");

	/* into a body */
	kb = kb_new(PTO_CORE_AIV);
	l = pto_kb_label_new(kb);
	pto_kb_jmp(kb, l);
	pto_kb_loopi(kb, 0, 4);
	pto_kb_label_bind(kb, l);
	pto_kb_ldi(kb, 1, 1);
	pto_kb_endloop(kb);
	pto_kb_end(kb);
	TAP_CHECK_EQ(pto_kb_program(kb, NULL, NULL, NULL, NULL), -EINVAL);
	expect_error(kb, -EINVAL, PTO_VERIFY_BAD_JUMP, 0, "enters a loop body");
}

static void jumps_within_a_body_and_over_loops(void)
{
	const struct pto_insn *insns;
	struct pto_kb *kb = kb_new(PTO_CORE_AIV);
	int skip = pto_kb_label_new(kb), cont = pto_kb_label_new(kb);
	uint32_t n;

	pto_kb_ldi(kb, 5, 1); /* 0 */
	pto_kb_jnz(kb, 5, skip); /* 1: over the whole loop */
	pto_kb_loopi(kb, 0, 4); /* 2 */
	pto_kb_cmpi(kb, PTO_CMP_EQ, 1, 0, 2); /* 3 */
	pto_kb_jnz(kb, 1, cont); /* 4: "continue" */
	pto_kb_ldi(kb, 2, 7); /* 5 */
	pto_kb_label_bind(kb, cont);
	pto_kb_endloop(kb); /* 6: in the body */
	pto_kb_label_bind(kb, skip);
	pto_kb_end(kb); /* 7 */
	TAP_CHECK_EQ(pto_kb_program(kb, &insns, &n, NULL, NULL), 0);
	TAP_CHECK_EQ(n, 8);
	TAP_CHECK_EQ(insns[1].op, PTO_OP_JNZ);
	TAP_CHECK_EQ(insns[1].a, 5);
	TAP_CHECK_EQ(insns[1].imm, 7);
	TAP_CHECK_EQ(insns[4].imm, 6);
	TAP_CHECK_EQ(insns[2].flags, PTO_INSN_F_IMM);
	TAP_CHECK_EQ(insns[2].imm, 4);
	TAP_CHECK_EQ(insns[3].mode, PTO_CMP_EQ);
	pto_kb_free(kb);
}

static void end_must_be_last(void)
{
	struct pto_kb *kb = kb_new(PTO_CORE_AIV);

	TAP_CHECK_EQ(pto_kb_program(kb, NULL, NULL, NULL, NULL), -EINVAL);
	expect_error(kb, -EINVAL, PTO_VERIFY_EMPTY, 0, "empty kernel");

	kb = kb_new(PTO_CORE_AIV);
	pto_kb_end(kb);
	pto_kb_ldi(kb, 0, 1);
	TAP_CHECK_EQ(pto_kb_program(kb, NULL, NULL, NULL, NULL), -EINVAL);
	expect_error(kb, -EINVAL, PTO_VERIFY_NO_END, 1,
		     "insn 1 (LDI): the last instruction must be END");
}

static void instruction_cap(void)
{
	struct pto_limits small = limits;
	struct pto_kb *kb = NULL;
	int i;

	small.max_insns = 4;
	TAP_CHECK_EQ(pto_kb_new_for_topology(&topo, &small, PTO_CORE_AIV, &kb),
		     0);
	for (i = 0; i < 4; i++)
		TAP_CHECK_EQ(pto_kb_ldi(kb, 0, i), 0);
	TAP_CHECK_EQ(pto_kb_end(kb), -E2BIG);
	expect_error(kb, -E2BIG, PTO_VERIFY_TOO_LONG, 4,
		     "at most 4 instructions");
}

/* The elementwise add of examples/elementwise_add.c, instruction by instruction. */
static void encodes_a_valid_kernel(void)
{
	const struct pto_tile_decl *tiles;
	const struct pto_insn *in;
	struct pto_kb *kb = kb_new(PTO_CORE_AIV);
	struct pto_kernel *k = NULL;
	uint32_t n, nt;
	int ta, tb, tc;

	TAP_CHECK_EQ(pto_kb_error(kb)[0], '\0');
	ta = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, 64, 128);
	tb = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, 64, 128);
	tc = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, 64, 128);
	pto_kb_sreg(kb, 0, PTO_SREG_BLOCK_IDX);
	pto_kb_alui(kb, PTO_ALU_MUL, 0, 0, 64);
	pto_kb_ldi(kb, 1, 0);
	pto_kb_tload(kb, ta, 0, 0, 1);
	pto_kb_tload(kb, tb, 1, 0, 1);
	pto_kb_tbin(kb, PTO_TBIN_ADD, tc, ta, tb);
	pto_kb_tbinsf(kb, PTO_TBIN_MUL, tc, tc, 0.5f);
	pto_kb_tfillf(kb, ta, -2.0f);
	pto_kb_tstore(kb, tc, 2, 0, 1);
	TAP_CHECK_EQ(pto_kb_end(kb), 0);
	TAP_CHECK_EQ(pto_kb_program(kb, &in, &n, &tiles, &nt), 0);

	TAP_CHECK_EQ(nt, 3);
	TAP_CHECK_EQ(tiles[2].dtype, PTO_ISA_F32);
	TAP_CHECK_EQ(tiles[2].buf, PTO_BUF_UB);
	TAP_CHECK_EQ(tiles[2].rows, 64);
	TAP_CHECK_EQ(tiles[2].cols, 128);
	TAP_CHECK_EQ(tiles[2].pad | tiles[2].reserved, 0);
	TAP_CHECK_EQ(n, 10);
	TAP_CHECK_EQ(in[0].op, PTO_OP_SREG);
	TAP_CHECK_EQ(in[0].mode, PTO_SREG_BLOCK_IDX);
	TAP_CHECK_EQ(in[1].op, PTO_OP_ALU);
	TAP_CHECK_EQ(in[1].mode, PTO_ALU_MUL);
	TAP_CHECK_EQ(in[1].flags, PTO_INSN_F_IMM);
	TAP_CHECK_EQ(in[1].imm, 64);
	TAP_CHECK_EQ(in[1].b, 0);
	TAP_CHECK_EQ(in[4].op, PTO_OP_TLOAD);
	TAP_CHECK_EQ(in[4].dst, 1);
	TAP_CHECK_EQ(in[4].a, 0);
	TAP_CHECK_EQ(in[4].b, 1);
	TAP_CHECK_EQ(in[4].imm, 1);
	TAP_CHECK_EQ(in[5].op, PTO_OP_TBIN);
	TAP_CHECK_EQ(in[5].dst, 2);
	TAP_CHECK_EQ(in[5].a, 0);
	TAP_CHECK_EQ(in[5].b, 1);
	/* f32 immediates: the bit pattern in the low 32 bits */
	TAP_CHECK_EQ(in[6].op, PTO_OP_TBINS);
	TAP_CHECK_EQ(in[6].flags, PTO_INSN_F_IMM);
	TAP_CHECK_EQ(in[6].imm, 0x3f000000);
	TAP_CHECK_EQ(in[7].op, PTO_OP_TFILL);
	TAP_CHECK_EQ(in[7].imm, 0xc0000000);
	TAP_CHECK_EQ(in[7].b, 0);
	TAP_CHECK_EQ(in[8].op, PTO_OP_TSTORE);
	TAP_CHECK_EQ(in[8].imm, 2);
	TAP_CHECK_EQ(in[9].op, PTO_OP_END);

	/* Without a device: every check passes, then -ENODEV, not sticky. */
	TAP_CHECK_EQ(pto_kb_finish(kb, &k), -ENODEV);
	TAP_CHECK(k == NULL);
	TAP_CHECK_EQ(pto_kb_error_info(kb, NULL), 0);
	pto_kb_free(kb);
}

static void null_arguments(void)
{
	struct pto_kb *kb = (struct pto_kb *)1;

	TAP_CHECK_EQ(pto_kb_new(NULL, PTO_CORE_AIV, &kb), -EINVAL);
	TAP_CHECK(kb == NULL);
	TAP_CHECK_EQ(pto_kb_new_for_topology(&topo, NULL, (enum pto_core_type)3,
					     &kb),
		     -EINVAL);
	TAP_CHECK_EQ(pto_kb_ldi(NULL, 0, 0), -EINVAL);
	TAP_CHECK_EQ(pto_kb_tile(NULL, PTO_DTYPE_F32, PTO_BUF_UB, 1, 1),
		     -EINVAL);
	TAP_CHECK_EQ(pto_kb_error(NULL)[0], '\0');
	pto_kb_free(NULL);
	pto_kernel_free(NULL);
}

TAP_MAIN(TAP_TEST(budget_refusal_names_tile_and_buffer),
	 TAP_TEST(tiles_are_placed_64_byte_aligned),
	 TAP_TEST(budgets_are_per_buffer), TAP_TEST(too_many_tiles),
	 TAP_TEST(bad_tile_declarations), TAP_TEST(ub_tiles_only_on_aiv),
	 TAP_TEST(cube_buffers_only_on_aic), TAP_TEST(matmul_only_on_aic),
	 TAP_TEST(vector_ops_only_on_aiv), TAP_TEST(matmul_operand_rules),
	 TAP_TEST(tile_dtype_rules), TAP_TEST(load_store_buffers),
	 TAP_TEST(registers_in_range), TAP_TEST(argument_indexes),
	 TAP_TEST(tensor_argument_dtype_conflicts),
	 TAP_TEST(loop_nesting_deeper_than_four), TAP_TEST(unbalanced_loops),
	 TAP_TEST(unbound_label), TAP_TEST(label_misuse),
	 TAP_TEST(jumps_stay_in_their_loop_body),
	 TAP_TEST(jumps_within_a_body_and_over_loops),
	 TAP_TEST(end_must_be_last), TAP_TEST(instruction_cap),
	 TAP_TEST(encodes_a_valid_kernel), TAP_TEST(null_arguments))
