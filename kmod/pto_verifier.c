// SPDX-License-Identifier: GPL-2.0-only
/*
 * pto_npu: the verifier of uploaded programs (KERNEL_CREATE).
 *
 * A program is verified once, at upload, like a BPF program: every opcode,
 * register, mode and flag; which core type may use it; tile shapes, dtypes
 * and buffers; tile placement against the core's local buffer budgets;
 * forward-only jumps that stay inside their loop body; balanced LOOP/ENDLOOP
 * no deeper than PTO_MAX_LOOP_DEPTH; an END as the last instruction. The
 * interpreter then trusts all of it and checks only what depends on run
 * time values (GM bounds, loop counts, division by zero).
 *
 * Copyright (C) 2026 pto-npu authors
 */

#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/sprintf.h>
#include <kunit/visibility.h>

#include "pto_kernel.h"

struct pto_vctx {
	const struct pto_topology *topo;
	u32 core_type;
	const struct pto_insn *insns;
	u32 n;
	struct pto_kernel *k;
	char *log;
	size_t log_size;
	u32 *err_idx;
	bool in_tiles;
};

static __printf(4, 5) int pto_vfail(struct pto_vctx *v, u32 idx, int code,
				    const char *fmt, ...)
{
	va_list ap;
	int len = 0;

	*v->err_idx = idx;
	if (v->log && v->log_size) {
		/* Tile declarations are checked before any instruction. */
		len = scnprintf(v->log, v->log_size, "%s %u: ",
				v->in_tiles ? "tile" : "insn", idx);
		va_start(ap, fmt);
		vscnprintf(v->log + len, v->log_size - len, fmt, ap);
		va_end(ap);
	}
	return code;
}

/**
 * pto_dtype_size - bytes of one element of a dtype
 * @dtype: enum pto_isa_dtype
 *
 * Return: 1, 2, 4 or 8; 0 for a value that is no dtype.
 */
u8 pto_dtype_size(u8 dtype)
{
	switch (dtype) {
	case PTO_ISA_I8:
	case PTO_ISA_U8:
		return 1;
	case PTO_ISA_I16:
	case PTO_ISA_U16:
		return 2;
	case PTO_ISA_F32:
	case PTO_ISA_I32:
	case PTO_ISA_U32:
		return 4;
	case PTO_ISA_I64:
	case PTO_ISA_U64:
		return 8;
	default:
		return 0;
	}
}
EXPORT_SYMBOL_IF_KUNIT(pto_dtype_size);

static bool pto_tile_dtype_ok(u8 dtype)
{
	return dtype >= PTO_ISA_F32 && dtype <= PTO_ISA_I64;
}

static bool pto_buf_of_core(u32 core_type, u8 buf)
{
	if (core_type == PTO_CORE_AIV)
		return buf == PTO_BUF_UB;
	return buf >= PTO_BUF_L1 && buf <= PTO_BUF_L0C;
}

static u32 pto_buf_budget(const struct pto_topology *t, u8 buf)
{
	switch (buf) {
	case PTO_BUF_UB:
		return t->aiv_ub;
	case PTO_BUF_L1:
		return t->aic_l1;
	case PTO_BUF_L0A:
		return t->aic_l0a;
	case PTO_BUF_L0B:
		return t->aic_l0b;
	case PTO_BUF_L0C:
		return t->aic_l0c;
	}
	return 0;
}

static const char *const pto_buf_names[PTO_LOCAL_BUFS] = {
	[PTO_BUF_UB] = "UB", [PTO_BUF_L1] = "L1", [PTO_BUF_L0A] = "L0A",
	[PTO_BUF_L0B] = "L0B", [PTO_BUF_L0C] = "L0C",
};

/* Place tiles 64-byte aligned, back to back in their buffer. */
static int pto_verify_tiles(struct pto_vctx *v, const struct pto_tile_decl *d,
			    u32 num)
{
	u64 used[PTO_LOCAL_BUFS] = {}, end = 0;
	u32 i;

	if (num > PTO_NUM_TREGS)
		return pto_vfail(v, num, DRM_PTO_NPU_VERIFY_BAD_TILE_DECL,
				 "%u tiles declared, at most %u", num,
				 PTO_NUM_TREGS);
	for (i = 0; i < num; i++) {
		struct pto_tile_layout *t = &v->k->tiles[i];
		u64 bytes, budget;

		if (d[i].pad || d[i].reserved)
			return pto_vfail(v, i, DRM_PTO_NPU_VERIFY_RESERVED_FIELD,
					 "reserved field not zero");
		if (!pto_tile_dtype_ok(d[i].dtype))
			return pto_vfail(v, i, DRM_PTO_NPU_VERIFY_BAD_TILE_DECL,
					 "dtype %u is not a tile type",
					 d[i].dtype);
		if (d[i].buf >= PTO_LOCAL_BUFS || !pto_buf_of_core(v->core_type, d[i].buf))
			return pto_vfail(v, i, DRM_PTO_NPU_VERIFY_TILE_BUF,
					 "buffer %u is not a local buffer of this core type",
					 d[i].buf);
		if (!d[i].rows || !d[i].cols || d[i].rows > PTO_MAX_TILE_DIM ||
		    d[i].cols > PTO_MAX_TILE_DIM)
			return pto_vfail(v, i, DRM_PTO_NPU_VERIFY_BAD_TILE_DECL,
					 "shape %ux%u outside 1..%u",
					 d[i].rows, d[i].cols, PTO_MAX_TILE_DIM);
		t->dtype = d[i].dtype;
		t->buf = d[i].buf;
		t->esize = pto_dtype_size(d[i].dtype);
		t->rows = d[i].rows;
		t->cols = d[i].cols;
		bytes = (u64)t->rows * t->cols * t->esize;
		budget = pto_buf_budget(v->topo, t->buf);
		used[t->buf] = ALIGN(used[t->buf], PTO_TILE_ALIGN);
		if (used[t->buf] + bytes > budget)
			return pto_vfail(v, i, DRM_PTO_NPU_VERIFY_BUDGET,
					 "t%u (%llu bytes) does not fit in %s: budget %llu, %llu used",
					 i, bytes, pto_buf_names[t->buf], budget,
					 used[t->buf]);
		/* Offset within the buffer; the core adds the buffer's base. */
		t->offset = used[t->buf];
		used[t->buf] += bytes;
		end = max_t(u64, end, pto_buf_base(v->topo, t->buf) + used[t->buf]);
	}
	v->k->num_tiles = num;
	v->k->ub_used = used[PTO_BUF_UB];
	v->k->local_end = end;
	return 0;
}

static bool pto_is_int_tile(const struct pto_tile_layout *t)
{
	return t->dtype != PTO_ISA_F32;
}

static bool pto_same_shape(const struct pto_tile_layout *a,
			   const struct pto_tile_layout *b)
{
	return a->rows == b->rows && a->cols == b->cols;
}

#define R_DST BIT(0)
#define R_A BIT(1)
#define R_B BIT(2)
#define R_C BIT(3)

/* Which fields of an instruction name scalar registers. */
static u32 pto_sreg_fields(const struct pto_insn *in)
{
	bool imm = in->flags & PTO_INSN_F_IMM;

	switch (in->op) {
	case PTO_OP_LDI:
	case PTO_OP_SREG:
	case PTO_OP_ARG:
		return R_DST;
	case PTO_OP_MOV:
		return R_DST | R_A;
	case PTO_OP_ALU:
	case PTO_OP_CMP:
		return R_DST | R_A | (imm ? 0 : R_B);
	case PTO_OP_JZ:
	case PTO_OP_JNZ:
		return R_A;
	case PTO_OP_LOOP:
		return R_DST | (imm ? 0 : R_B);
	case PTO_OP_GLD:
		return R_DST | R_A | R_B;
	case PTO_OP_GST:
		return R_A | R_B | R_C;
	case PTO_OP_ATOMIC_ADD:
		return R_DST | R_A | R_B | R_C;
	case PTO_OP_TLOAD:
	case PTO_OP_TSTORE:
		return R_A | R_B;
	case PTO_OP_TFILL:
	case PTO_OP_TBINS:
		return imm ? 0 : R_B;
	case PTO_OP_SYNCALL:
		return in->mode == PTO_SYNC_SOFT ? R_A : 0;
	}
	return 0;
}

/* Which fields name tile registers. */
static u32 pto_treg_fields(const struct pto_insn *in)
{
	switch (in->op) {
	case PTO_OP_TLOAD:
	case PTO_OP_TSTORE:
	case PTO_OP_TFILL:
		return R_DST;
	case PTO_OP_PUSH:
		return R_A;
	case PTO_OP_POP:
		return R_DST;
	case PTO_OP_TMOV:
	case PTO_OP_TBINS:
	case PTO_OP_TUNARY:
	case PTO_OP_TROWRED:
	case PTO_OP_TCAST:
		return R_DST | R_A;
	case PTO_OP_TBIN:
	case PTO_OP_MATMUL:
		return R_DST | R_A | R_B;
	}
	return 0;
}

static u16 pto_allowed_flags(u8 op)
{
	switch (op) {
	case PTO_OP_ALU:
	case PTO_OP_CMP:
	case PTO_OP_LOOP:
	case PTO_OP_TFILL:
	case PTO_OP_TBINS:
		return PTO_INSN_F_IMM;
	case PTO_OP_MATMUL:
		return PTO_INSN_F_ACC;
	}
	return 0;
}

static bool pto_uses_imm(const struct pto_insn *in)
{
	switch (in->op) {
	case PTO_OP_LDI:
	case PTO_OP_ARG:
	case PTO_OP_JMP:
	case PTO_OP_JZ:
	case PTO_OP_JNZ:
	case PTO_OP_GLD:
	case PTO_OP_GST:
	case PTO_OP_ATOMIC_ADD:
	case PTO_OP_TLOAD:
	case PTO_OP_TSTORE:
	case PTO_OP_SYNCALL:
		return true;
	case PTO_OP_CACHEINVALID:
		return in->mode == PTO_CINV_TENSOR;
	case PTO_OP_ALU:
	case PTO_OP_CMP:
	case PTO_OP_LOOP:
	case PTO_OP_TFILL:
	case PTO_OP_TBINS:
		return in->flags & PTO_INSN_F_IMM;
	}
	return false;
}

/* Number of valid modes for opcodes that have one, 0 for "mode must be 0". */
static u32 pto_num_modes(u8 op)
{
	switch (op) {
	case PTO_OP_SREG:
		return PTO_SREG_NUM_ARGS + 1;
	case PTO_OP_ALU:
		return PTO_ALU_MAX + 1;
	case PTO_OP_CMP:
		return PTO_CMP_LE + 1;
	case PTO_OP_TBIN:
	case PTO_OP_TBINS:
		return PTO_TBIN_XOR + 1;
	case PTO_OP_TUNARY:
		return PTO_TUNARY_ABS + 1;
	case PTO_OP_TROWRED:
		return PTO_ROWRED_MAX + 1;
	case PTO_OP_SYNCALL:
		return PTO_SYNC_SOFT + 1;
	case PTO_OP_CACHEINVALID:
		return PTO_CINV_TENSOR + 1;
	}
	return 0;
}

static bool pto_op_known(u8 op)
{
	return op <= PTO_OP_ENDLOOP ||
	       (op >= PTO_OP_GLD && op <= PTO_OP_CACHEINVALID) ||
	       (op >= PTO_OP_TLOAD && op <= PTO_OP_MATMUL) ||
	       op == PTO_OP_PUSH || op == PTO_OP_POP || op == PTO_OP_SYNCALL;
}

/* Every PUSH (or every POP) of a kernel moves one tile shape: the slot. */
static int pto_use_ring(struct pto_vctx *v, u32 pc, struct pto_ring_use *u,
			const struct pto_tile_layout *t)
{
	if (u->used && (u->rows != t->rows || u->cols != t->cols ||
			u->dtype != t->dtype))
		return pto_vfail(v, pc, DRM_PTO_NPU_VERIFY_TILE_SHAPE,
				 "every %s of a kernel must move one tile shape",
				 u == &v->k->push ? "PUSH" : "POP");
	u->used = true;
	u->rows = t->rows;
	u->cols = t->cols;
	u->dtype = t->dtype;
	u->esize = t->esize;
	return 0;
}

/* How an instruction uses its tensor argument (struct pto_kernel masks). */
#define PTO_USE_LOAD 1
#define PTO_USE_STORE 2

static int pto_use_arg(struct pto_vctx *v, u32 pc, s64 idx, u8 dtype,
		       u32 use)
{
	struct pto_kernel *k = v->k;

	if (idx < 0 || idx >= PTO_MAX_TENSOR_ARGS)
		return pto_vfail(v, pc, DRM_PTO_NPU_VERIFY_ARG_INDEX,
				 "tensor argument %lld outside 0..%u", idx,
				 PTO_MAX_TENSOR_ARGS - 1);
	k->num_tensor_args = max_t(u32, k->num_tensor_args, idx + 1);
	if (use & PTO_USE_LOAD)
		k->arg_load |= BIT(idx);
	if (use & PTO_USE_STORE)
		k->arg_store |= BIT(idx);
	if (!dtype)
		return 0;
	if (k->arg_dtype[idx] && k->arg_dtype[idx] != dtype)
		return pto_vfail(v, pc, DRM_PTO_NPU_VERIFY_ARG_DTYPE,
				 "tensor argument %lld used as dtype %u and %u",
				 idx, k->arg_dtype[idx], dtype);
	k->arg_dtype[idx] = dtype;
	return 0;
}

/*
 * HARD: the barrier's core type must include this kernel's core type, and
 * one kernel uses one type. SOFT: the workspace is an int32 tensor.
 */
static int pto_verify_syncall(struct pto_vctx *v, u32 pc,
			      const struct pto_insn *in)
{
	struct pto_kernel *k = v->k;

	if (in->mode == PTO_SYNC_SOFT) {
		int ret = pto_use_arg(v, pc, in->imm, PTO_ISA_I32,
				      PTO_USE_LOAD | PTO_USE_STORE);

		if (!ret)
			k->soft_ws |= BIT(in->imm);
		return ret;
	}
	if (in->imm != PTO_SYNC_MIX &&
	    in->imm != (v->core_type == PTO_CORE_AIV ? PTO_SYNC_AIV : PTO_SYNC_AIC))
		return pto_vfail(v, pc, DRM_PTO_NPU_VERIFY_CORE_TYPE,
				 "HARD syncall of type %lld on an %s kernel", in->imm,
				 v->core_type == PTO_CORE_AIV ? "AIV" : "AIC");
	if (k->hard_sync && k->hard_sync != in->imm)
		return pto_vfail(v, pc, DRM_PTO_NPU_VERIFY_BAD_MODE,
				 "HARD syncalls of two core types in one kernel");
	k->hard_sync = in->imm;
	return 0;
}

/* TBIN and TBINS: elementwise, one shape and dtype; DIV f32, bitwise integer. */
static int pto_verify_tbin(struct pto_vctx *v, u32 pc, const struct pto_insn *in,
			   const struct pto_tile_layout *d,
			   const struct pto_tile_layout *a,
			   const struct pto_tile_layout *b)
{
	if (!pto_same_shape(d, a) || d->dtype != a->dtype ||
	    (in->op == PTO_OP_TBIN &&
	     (!pto_same_shape(d, b) || d->dtype != b->dtype)))
		return pto_vfail(v, pc, DRM_PTO_NPU_VERIFY_TILE_SHAPE,
				 "elementwise operands need one shape and dtype");
	if (in->mode == PTO_TBIN_DIV && pto_is_int_tile(d))
		return pto_vfail(v, pc, DRM_PTO_NPU_VERIFY_TILE_DTYPE,
				 "DIV is for f32 tiles");
	if (in->mode >= PTO_TBIN_AND && !pto_is_int_tile(d))
		return pto_vfail(v, pc, DRM_PTO_NPU_VERIFY_TILE_DTYPE,
				 "bitwise ops are for integer tiles");
	return 0;
}

/* TUNARY: one shape and dtype; EXP and SQRT f32. */
static int pto_verify_tunary(struct pto_vctx *v, u32 pc,
			     const struct pto_insn *in,
			     const struct pto_tile_layout *d,
			     const struct pto_tile_layout *a)
{
	if (!pto_same_shape(d, a) || d->dtype != a->dtype)
		return pto_vfail(v, pc, DRM_PTO_NPU_VERIFY_TILE_SHAPE,
				 "unary operands need one shape and dtype");
	if ((in->mode == PTO_TUNARY_EXP || in->mode == PTO_TUNARY_SQRT) &&
	    pto_is_int_tile(d))
		return pto_vfail(v, pc, DRM_PTO_NPU_VERIFY_TILE_DTYPE,
				 "EXP and SQRT are for f32 tiles");
	return 0;
}

/* TROWRED: f32, rows x cols into rows x 1. */
static int pto_verify_trowred(struct pto_vctx *v, u32 pc,
			      const struct pto_tile_layout *d,
			      const struct pto_tile_layout *a)
{
	if (pto_is_int_tile(a) || pto_is_int_tile(d))
		return pto_vfail(v, pc, DRM_PTO_NPU_VERIFY_TILE_DTYPE,
				 "row reductions are for f32 tiles");
	if (d->rows != a->rows || d->cols != 1)
		return pto_vfail(v, pc, DRM_PTO_NPU_VERIFY_TILE_SHAPE,
				 "row reduction of %ux%u needs a %ux1 result",
				 a->rows, a->cols, a->rows);
	return 0;
}

/* MATMUL: f32, L0A x L0B into L0C, shapes that agree. */
static int pto_verify_matmul(struct pto_vctx *v, u32 pc,
			     const struct pto_tile_layout *d,
			     const struct pto_tile_layout *a,
			     const struct pto_tile_layout *b)
{
	if (a->buf != PTO_BUF_L0A || b->buf != PTO_BUF_L0B ||
	    d->buf != PTO_BUF_L0C)
		return pto_vfail(v, pc, DRM_PTO_NPU_VERIFY_TILE_BUF,
				 "MATMUL takes L0A x L0B into L0C");
	if (a->dtype != PTO_ISA_F32 || b->dtype != PTO_ISA_F32 ||
	    d->dtype != PTO_ISA_F32)
		return pto_vfail(v, pc, DRM_PTO_NPU_VERIFY_TILE_DTYPE,
				 "MATMUL is f32");
	if (a->cols != b->rows || d->rows != a->rows || d->cols != b->cols)
		return pto_vfail(v, pc, DRM_PTO_NPU_VERIFY_TILE_SHAPE,
				 "MATMUL shapes %ux%u x %ux%u -> %ux%u do not agree",
				 a->rows, a->cols, b->rows, b->cols,
				 d->rows, d->cols);
	return 0;
}

/* Tile-level rules of one instruction; registers are already in range. */
static int pto_verify_tile_op(struct pto_vctx *v, u32 pc,
			      const struct pto_insn *in)
{
	const struct pto_tile_layout *t = v->k->tiles;
	const struct pto_tile_layout *d = &t[in->dst];
	/* a and b may be scalar registers here: clamp, only tile uses read them. */
	const struct pto_tile_layout *a = &t[min_t(u8, in->a, PTO_NUM_TREGS - 1)];
	const struct pto_tile_layout *b = &t[min_t(u8, in->b, PTO_NUM_TREGS - 1)];
	bool aiv = v->core_type == PTO_CORE_AIV;

	switch (in->op) {
	case PTO_OP_TLOAD:
		if (d->buf == PTO_BUF_L0C)
			return pto_vfail(v, pc, DRM_PTO_NPU_VERIFY_TILE_BUF,
					 "TLOAD into L0C: load into L1/L0A/L0B");
		return pto_use_arg(v, pc, in->imm, d->dtype, PTO_USE_LOAD);
	case PTO_OP_TSTORE:
		if (!aiv && d->buf != PTO_BUF_L0C && d->buf != PTO_BUF_L1)
			return pto_vfail(v, pc, DRM_PTO_NPU_VERIFY_TILE_BUF,
					 "TSTORE from %s: store from L0C or L1",
					 pto_buf_names[d->buf]);
		return pto_use_arg(v, pc, in->imm, d->dtype, PTO_USE_STORE);
	case PTO_OP_TFILL:
		return 0;
	case PTO_OP_PUSH:
		return pto_use_ring(v, pc, &v->k->push, a);
	case PTO_OP_POP:
		return pto_use_ring(v, pc, &v->k->pop, d);
	case PTO_OP_TMOV:
		if (!pto_same_shape(d, a) || d->dtype != a->dtype)
			return pto_vfail(v, pc, DRM_PTO_NPU_VERIFY_TILE_SHAPE,
					 "TMOV needs the same shape and dtype");
		return 0;
	case PTO_OP_TBIN:
	case PTO_OP_TBINS:
		return pto_verify_tbin(v, pc, in, d, a, b);
	case PTO_OP_TUNARY:
		return pto_verify_tunary(v, pc, in, d, a);
	case PTO_OP_TROWRED:
		return pto_verify_trowred(v, pc, d, a);
	case PTO_OP_TCAST:
		if (!pto_same_shape(d, a))
			return pto_vfail(v, pc, DRM_PTO_NPU_VERIFY_TILE_SHAPE,
					 "TCAST needs the same shape");
		return 0;
	case PTO_OP_MATMUL:
		return pto_verify_matmul(v, pc, d, a, b);
	}
	return 0;
}

static bool pto_op_vector_only(u8 op)
{
	return op == PTO_OP_TBIN || op == PTO_OP_TBINS ||
	       op == PTO_OP_TUNARY || op == PTO_OP_TROWRED ||
	       op == PTO_OP_TCAST;
}

/* The opcode is known, its flags and mode valid, its core type this one. */
static int pto_verify_opcode(struct pto_vctx *v, u32 pc,
			     const struct pto_insn *in)
{
	u32 modes;

	if (!pto_op_known(in->op))
		return pto_vfail(v, pc, DRM_PTO_NPU_VERIFY_BAD_OPCODE,
				 "unknown opcode 0x%02x", in->op);
	if (in->flags & ~pto_allowed_flags(in->op))
		return pto_vfail(v, pc, DRM_PTO_NPU_VERIFY_BAD_FLAGS,
				 "flags 0x%x not allowed", in->flags);
	modes = pto_num_modes(in->op);
	if (modes ? in->mode >= modes : in->mode)
		return pto_vfail(v, pc, DRM_PTO_NPU_VERIFY_BAD_MODE,
				 "mode %u not valid", in->mode);
	if (in->op == PTO_OP_MATMUL && v->core_type != PTO_CORE_AIC)
		return pto_vfail(v, pc, DRM_PTO_NPU_VERIFY_CORE_TYPE,
				 "MATMUL runs on AIC only");
	if (pto_op_vector_only(in->op) && v->core_type != PTO_CORE_AIV)
		return pto_vfail(v, pc, DRM_PTO_NPU_VERIFY_CORE_TYPE,
				 "vector tile op 0x%02x runs on AIV only", in->op);
	return 0;
}

/*
 * Every register field names a scalar register, a declared tile or, unused,
 * is zero; so is an immediate the opcode does not use.
 */
static int pto_verify_fields(struct pto_vctx *v, u32 pc,
			     const struct pto_insn *in)
{
	const u8 regs[4] = { in->dst, in->a, in->b, in->c };
	u32 sfields = pto_sreg_fields(in), tfields = pto_treg_fields(in), f;

	if (in->imm && !pto_uses_imm(in))
		return pto_vfail(v, pc, DRM_PTO_NPU_VERIFY_RESERVED_FIELD,
				 "immediate not used by this instruction must be zero");
	for (f = 0; f < 4; f++) {
		if (sfields & BIT(f)) {
			if (regs[f] >= PTO_NUM_SREGS)
				return pto_vfail(v, pc, DRM_PTO_NPU_VERIFY_BAD_REG,
						 "scalar register s%u outside s0..s%u",
						 regs[f], PTO_NUM_SREGS - 1);
		} else if (tfields & BIT(f)) {
			if (regs[f] >= v->k->num_tiles)
				return pto_vfail(v, pc, DRM_PTO_NPU_VERIFY_BAD_REG,
						 "tile register t%u not declared (%u tiles)",
						 regs[f], v->k->num_tiles);
		} else if (regs[f]) {
			return pto_vfail(v, pc, DRM_PTO_NPU_VERIFY_RESERVED_FIELD,
					 "unused register field %u not zero", f);
		}
	}
	return 0;
}

/* One instruction: its encoding, then what its operands refer to. */
static int pto_verify_insn(struct pto_vctx *v, u32 pc)
{
	const struct pto_insn *in = &v->insns[pc];
	int ret;

	ret = pto_verify_opcode(v, pc, in);
	if (!ret)
		ret = pto_verify_fields(v, pc, in);
	if (ret)
		return ret;

	switch (in->op) {
	case PTO_OP_ARG:
		if (in->imm < 0 || in->imm >= PTO_MAX_SCALAR_ARGS)
			return pto_vfail(v, pc, DRM_PTO_NPU_VERIFY_ARG_INDEX,
					 "scalar argument %lld outside 0..%u",
					 in->imm, PTO_MAX_SCALAR_ARGS - 1);
		v->k->num_scalar_args = max_t(u32, v->k->num_scalar_args,
					      in->imm + 1);
		return 0;
	case PTO_OP_GLD:
		return pto_use_arg(v, pc, in->imm, 0, PTO_USE_LOAD);
	case PTO_OP_GST:
		return pto_use_arg(v, pc, in->imm, 0, PTO_USE_STORE);
	case PTO_OP_ATOMIC_ADD:
		return pto_use_arg(v, pc, in->imm, PTO_ISA_I32,
				   PTO_USE_LOAD | PTO_USE_STORE);
	case PTO_OP_SYNCALL:
		return pto_verify_syncall(v, pc, in);
	case PTO_OP_LOOP:
		if ((in->flags & PTO_INSN_F_IMM) &&
		    (in->imm < 0 || in->imm > PTO_MAX_LOOP_COUNT))
			return pto_vfail(v, pc, DRM_PTO_NPU_VERIFY_LOOP_COUNT,
					 "loop count %lld outside 0..%u", in->imm,
					 PTO_MAX_LOOP_COUNT);
		return 0;
	case PTO_OP_END:
	case PTO_OP_LDI:
	case PTO_OP_MOV:
	case PTO_OP_SREG:
	case PTO_OP_ALU:
	case PTO_OP_CMP:
	case PTO_OP_JMP:
	case PTO_OP_JZ:
	case PTO_OP_JNZ:
	case PTO_OP_ENDLOOP:
	case PTO_OP_FENCE:
		return 0;
	case PTO_OP_CACHEINVALID:
		/* Only CACHEINVALID's mode names a tensor form (isa.rst). */
		return in->mode == PTO_CINV_TENSOR ?
		       pto_use_arg(v, pc, in->imm, 0, 0) : 0;
	}
	return pto_verify_tile_op(v, pc, in);
}

/*
 * Match LOOP/ENDLOOP and give each instruction its innermost loop (the
 * index of its LOOP, or U16_MAX at top level). A body is (LOOP, ENDLOOP].
 */
static int pto_verify_control(struct pto_vctx *v, u16 *loop_of)
{
	u16 stack[PTO_MAX_LOOP_DEPTH];
	u32 depth = 0, pc;

	for (pc = 0; pc < v->n; pc++) {
		const struct pto_insn *in = &v->insns[pc];

		loop_of[pc] = depth ? stack[depth - 1] : U16_MAX;
		if (in->op == PTO_OP_LOOP) {
			if (depth == PTO_MAX_LOOP_DEPTH)
				return pto_vfail(v, pc, DRM_PTO_NPU_VERIFY_LOOP_NESTING,
						 "loops nested deeper than %u",
						 PTO_MAX_LOOP_DEPTH);
			stack[depth++] = pc;
		} else if (in->op == PTO_OP_ENDLOOP) {
			if (!depth)
				return pto_vfail(v, pc, DRM_PTO_NPU_VERIFY_LOOP_NESTING,
						 "ENDLOOP without LOOP");
			depth--;
			v->k->match[pc] = stack[depth];
			v->k->match[stack[depth]] = pc;
		}
	}
	if (depth)
		return pto_vfail(v, stack[depth - 1], DRM_PTO_NPU_VERIFY_LOOP_NESTING,
				 "LOOP without ENDLOOP");

	for (pc = 0; pc < v->n; pc++) {
		const struct pto_insn *in = &v->insns[pc];

		if (in->op != PTO_OP_JMP && in->op != PTO_OP_JZ &&
		    in->op != PTO_OP_JNZ)
			continue;
		if (in->imm <= pc || in->imm >= v->n)
			return pto_vfail(v, pc, DRM_PTO_NPU_VERIFY_BAD_JUMP,
					 "jump target %lld is not a later instruction",
					 in->imm);
		if (loop_of[in->imm] != loop_of[pc])
			return pto_vfail(v, pc, DRM_PTO_NPU_VERIFY_BAD_JUMP,
					 "jump to %lld leaves or enters a loop body",
					 in->imm);
	}
	return 0;
}

/**
 * pto_verify - verify a program and fill in its kernel
 * @topo: device topology (buffer budgets)
 * @core_type: enum pto_core_type
 * @insns: program
 * @num_insns: its length
 * @tiles: tile declarations
 * @num_tiles: their count
 * @k: kernel to fill; @k->match must hold @num_insns entries
 * @err_idx: out: failing instruction or tile index
 * @log: out: message, may be NULL
 * @log_size: bytes at @log
 *
 * Return: DRM_PTO_NPU_VERIFY_OK (0) or the reason the program is refused.
 */
int pto_verify(const struct pto_topology *topo, u32 core_type,
	       const struct pto_insn *insns, u32 num_insns,
	       const struct pto_tile_decl *tiles, u32 num_tiles,
	       struct pto_kernel *k, u32 *err_idx, char *log, size_t log_size)
{
	struct pto_vctx v = {
		.topo = topo, .core_type = core_type, .insns = insns,
		.n = num_insns, .k = k, .log = log, .log_size = log_size,
		.err_idx = err_idx,
	};
	u16 *loop_of;
	u32 pc;
	int ret;

	*err_idx = U32_MAX;
	if (log && log_size)
		log[0] = '\0';
	if (core_type != PTO_CORE_AIV && core_type != PTO_CORE_AIC)
		return pto_vfail(&v, 0, DRM_PTO_NPU_VERIFY_CORE_TYPE,
				 "core type %u is neither AIV nor AIC", core_type);
	if (!num_insns)
		return pto_vfail(&v, 0, DRM_PTO_NPU_VERIFY_EMPTY, "empty program");
	if (num_insns > PTO_MAX_INSNS)
		return pto_vfail(&v, PTO_MAX_INSNS, DRM_PTO_NPU_VERIFY_TOO_LONG,
				 "%u instructions, at most %u", num_insns,
				 PTO_MAX_INSNS);
	k->core_type = core_type;
	v.in_tiles = true;
	ret = pto_verify_tiles(&v, tiles, num_tiles);
	if (ret)
		return ret;
	v.in_tiles = false;
	for (pc = 0; pc < num_insns; pc++) {
		ret = pto_verify_insn(&v, pc);
		if (ret)
			return ret;
	}
	if (insns[num_insns - 1].op != PTO_OP_END)
		return pto_vfail(&v, num_insns - 1, DRM_PTO_NPU_VERIFY_NO_END,
				 "the last instruction must be END");

	/* A failure is the caller's -ENOMEM, not a kernel warning. */
	loop_of = kvmalloc_array(num_insns, sizeof(*loop_of),
				 GFP_KERNEL | __GFP_NOWARN);
	if (!loop_of)
		return -ENOMEM;
	ret = pto_verify_control(&v, loop_of);
	kvfree(loop_of);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(pto_verify);
