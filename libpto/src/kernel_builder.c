// SPDX-License-Identifier: MIT
/*
 * The kernel builder: one emitter per instruction family, each checking
 * at once what the device's verifier would refuse, with a message that
 * names the tile, register or label in the program's own terms. The
 * verifier stays the authority; these checks mirror its rules (tile
 * placement, core types, shapes and dtypes, loops, jumps) so that most
 * mistakes are caught where they are made, with no device needed.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_builder.h"

static const char *const pto_op_names[] = {
	[PTO_OP_END] = "END",
	[PTO_OP_LDI] = "LDI",
	[PTO_OP_MOV] = "MOV",
	[PTO_OP_SREG] = "SREG",
	[PTO_OP_ARG] = "ARG",
	[PTO_OP_ALU] = "ALU",
	[PTO_OP_CMP] = "CMP",
	[PTO_OP_JMP] = "JMP",
	[PTO_OP_JZ] = "JZ",
	[PTO_OP_JNZ] = "JNZ",
	[PTO_OP_LOOP] = "LOOP",
	[PTO_OP_ENDLOOP] = "ENDLOOP",
	[PTO_OP_GLD] = "GLD",
	[PTO_OP_GST] = "GST",
	[PTO_OP_ATOMIC_ADD] = "ATOMIC_ADD",
	[PTO_OP_FENCE] = "FENCE",
	[PTO_OP_CACHEINVALID] = "CACHEINVALID",
	[PTO_OP_TLOAD] = "TLOAD",
	[PTO_OP_TSTORE] = "TSTORE",
	[PTO_OP_TMOV] = "TMOV",
	[PTO_OP_TFILL] = "TFILL",
	[PTO_OP_TBIN] = "TBIN",
	[PTO_OP_TBINS] = "TBINS",
	[PTO_OP_TUNARY] = "TUNARY",
	[PTO_OP_TROWRED] = "TROWRED",
	[PTO_OP_TCAST] = "TCAST",
	[PTO_OP_MATMUL] = "MATMUL",
	[PTO_OP_SYNCALL] = "SYNCALL",
	[PTO_OP_PUSH] = "PUSH",
	[PTO_OP_POP] = "POP",
};

static const char *const pto_buf_names[] = {
	[PTO_BUF_UB] = "UB",   [PTO_BUF_L1] = "L1",   [PTO_BUF_L0A] = "L0A",
	[PTO_BUF_L0B] = "L0B", [PTO_BUF_L0C] = "L0C",
};

static const char *pto_core_name(uint32_t core_type)
{
	return core_type == PTO_CORE_AIC ? "AIC" : "AIV";
}

/* ------------------------------------------------------------- errors */

static __attribute__((format(printf, 5, 6))) int
pto_kb_fail(struct pto_kb *kb, int err, uint32_t code, uint32_t index,
	    const char *fmt, ...)
{
	va_list ap;

	if (kb->err)
		return kb->err;
	kb->err = err;
	kb->err_info = (struct pto_verify_info){ code, index };
	va_start(ap, fmt);
	vsnprintf(kb->msg, sizeof(kb->msg), fmt, ap);
	va_end(ap);
	return err;
}

/* An error of the instruction about to be emitted, prefixed with its place. */
static __attribute__((format(printf, 4, 5))) int
pto_kb_insn_fail(struct pto_kb *kb, uint8_t op, uint32_t code, const char *fmt,
		 ...)
{
	char what[PTO_KB_MSG_SIZE];
	va_list ap;

	if (kb->err)
		return kb->err;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return pto_kb_fail(kb, -EINVAL, code, kb->n, "insn %u (%s): %s", kb->n,
			   pto_op_names[op], what);
}

/* ------------------------------------------------------------- lifetime */

int pto_kb_new_for_topology(const struct pto_device_info *info,
			    const struct pto_limits *limits,
			    enum pto_core_type core_type, struct pto_kb **out)
{
	struct pto_kb *kb;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!info || (core_type != PTO_CORE_AIV && core_type != PTO_CORE_AIC))
		return -EINVAL;
	kb = calloc(1, sizeof(*kb));
	if (!kb)
		return -ENOMEM;
	kb->info = *info;
	if (limits)
		kb->limits = *limits;
	kb->core_type = core_type;
	kb->err_info = (struct pto_verify_info){ PTO_VERIFY_OK, PTO_NO_INDEX };
	*out = kb;
	return 0;
}

PTO_API int pto_kb_new(struct pto_device *dev, enum pto_core_type core_type,
		       struct pto_kb **out)
{
	int ret;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!dev)
		return -EINVAL;
	ret = pto_kb_new_for_topology(&dev->info, &dev->limits, core_type, out);
	if (!ret)
		(*out)->dev = dev;
	return ret;
}

PTO_API void pto_kb_free(struct pto_kb *kb)
{
	if (!kb)
		return;
	free(kb->insns);
	free(kb->labels);
	free(kb->jumps);
	free(kb);
}

PTO_API const char *pto_kb_error(const struct pto_kb *kb)
{
	return kb && kb->err ? kb->msg : "";
}

PTO_API int pto_kb_error_info(const struct pto_kb *kb,
			      struct pto_verify_info *info)
{
	if (!kb)
		return -EINVAL;
	if (info)
		*info = kb->err_info;
	return kb->err;
}

/* Grow *arr (of *cap elements of size @size) to hold @want elements. */
static int pto_grow(void **arr, uint32_t *cap, uint32_t want, size_t size)
{
	uint32_t ncap = *cap ? *cap : 16;
	void *p;

	if (want <= *cap)
		return 0;
	while (ncap < want) {
		if (ncap > UINT32_MAX / 2)
			return -ENOMEM;
		ncap *= 2;
	}
	p = realloc(*arr, (size_t)ncap * size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

/* ------------------------------------------------------------- tiles */

static uint32_t pto_kb_budget(const struct pto_kb *kb, uint32_t buf)
{
	switch (buf) {
	case PTO_BUF_UB:
		return kb->info.aiv_ub_size;
	case PTO_BUF_L1:
		return kb->info.aic_l1_size;
	case PTO_BUF_L0A:
		return kb->info.aic_l0a_size;
	case PTO_BUF_L0B:
		return kb->info.aic_l0b_size;
	case PTO_BUF_L0C:
		return kb->info.aic_l0c_size;
	}
	return 0;
}

static bool pto_buf_of_core(uint32_t core_type, uint32_t buf)
{
	if (core_type == PTO_CORE_AIV)
		return buf == PTO_BUF_UB;
	return buf >= PTO_BUF_L1 && buf <= PTO_BUF_L0C;
}

static bool pto_tile_dtype_ok(enum pto_dtype dtype)
{
	return dtype == PTO_DTYPE_F32 || pto_dtype_is_signed_int(dtype);
}

PTO_API int pto_kb_tile(struct pto_kb *kb, enum pto_dtype dtype,
			enum pto_local_buf buf, uint32_t rows, uint32_t cols)
{
	uint32_t t, budget;
	uint64_t bytes, start;
	char s1[32], s2[32], s3[32];

	if (!kb)
		return -EINVAL;
	if (kb->err)
		return kb->err;
	t = kb->num_tiles;
	if (t >= PTO_NUM_TREGS)
		return pto_kb_fail(kb, -E2BIG, PTO_VERIFY_BAD_TILE_DECL, t,
				   "tile t%u: at most %u tiles (t0..t%u)", t,
				   PTO_NUM_TREGS, PTO_NUM_TREGS - 1);
	if (!pto_tile_dtype_ok(dtype))
		return pto_kb_fail(
			kb, -EINVAL, PTO_VERIFY_BAD_TILE_DECL, t,
			"tile t%u: dtype %s is not a tile type (f32, i8, i16, i32, i64)",
			t, pto_dtype_name(dtype));
	if ((unsigned int)buf >= PTO_ARRAY_SIZE(pto_buf_names) ||
	    !pto_buf_names[buf])
		return pto_kb_fail(kb, -EINVAL, PTO_VERIFY_TILE_BUF, t,
				   "tile t%u: %d is not a local buffer", t,
				   (int)buf);
	if (!pto_buf_of_core(kb->core_type, buf))
		return pto_kb_fail(
			kb, -EINVAL, PTO_VERIFY_TILE_BUF, t,
			"tile t%u: %s is not a local buffer of an %s kernel (%s)",
			t, pto_buf_names[buf], pto_core_name(kb->core_type),
			kb->core_type == PTO_CORE_AIV ? "UB" :
							"L1, L0A, L0B, L0C");
	if (!rows || !cols || rows > PTO_MAX_TILE_DIM ||
	    cols > PTO_MAX_TILE_DIM)
		return pto_kb_fail(kb, -EINVAL, PTO_VERIFY_BAD_TILE_DECL, t,
				   "tile t%u: shape %ux%u outside 1..%u", t,
				   rows, cols, PTO_MAX_TILE_DIM);

	bytes = (uint64_t)rows * cols * pto_dtype_size(dtype);
	budget = pto_kb_budget(kb, buf);
	start = (kb->buf_used[buf] + PTO_TILE_ALIGN - 1) &
		~(uint64_t)(PTO_TILE_ALIGN - 1);
	if (start + bytes > budget)
		return pto_kb_fail(
			kb, -ENOSPC, PTO_VERIFY_BUDGET, t,
			"tile t%u (%s %ux%u = %s) does not fit in %s: %s budget, %s already used",
			t, pto_dtype_name(dtype), rows, cols,
			pto_fmt_size(s1, sizeof(s1), bytes), pto_buf_names[buf],
			pto_fmt_size(s2, sizeof(s2), budget),
			pto_fmt_size(s3, sizeof(s3), kb->buf_used[buf]));

	kb->tiles[t] = (struct pto_tile_decl){
		.dtype = (uint8_t)dtype,
		.buf = (uint8_t)buf,
		.rows = rows,
		.cols = cols,
	};
	kb->buf_used[buf] = (uint32_t)(start + bytes);
	kb->num_tiles++;
	return (int)t;
}

/* ------------------------------------------------------------- emission */

static int32_t pto_kb_region(const struct pto_kb *kb)
{
	return kb->depth ? (int32_t)kb->loops[kb->depth - 1] : PTO_NO_REGION;
}

static int pto_kb_emit(struct pto_kb *kb, uint8_t op, unsigned int dst,
		       unsigned int a, unsigned int b, unsigned int c,
		       unsigned int mode, uint16_t flags, int64_t imm)
{
	int ret;

	if (kb->limits.max_insns && kb->n >= kb->limits.max_insns)
		return pto_kb_fail(
			kb, -E2BIG, PTO_VERIFY_TOO_LONG, kb->n,
			"insn %u (%s): a kernel has at most %u instructions",
			kb->n, pto_op_names[op], kb->limits.max_insns);
	ret = pto_grow((void **)&kb->insns, &kb->cap, kb->n + 1,
		       sizeof(*kb->insns));
	if (ret)
		return pto_kb_fail(kb, ret, PTO_VERIFY_OK, kb->n,
				   "out of memory");
	kb->insns[kb->n++] = (struct pto_insn){
		.op = op,
		.dst = (uint8_t)dst,
		.a = (uint8_t)a,
		.b = (uint8_t)b,
		.c = (uint8_t)c,
		.mode = (uint8_t)mode,
		.flags = flags,
		.imm = imm,
	};
	return 0;
}

/* Scalar registers of one instruction: up to four, "-" ends the list. */
static int pto_kb_sregs(struct pto_kb *kb, uint8_t op, unsigned int n,
			const unsigned int *regs)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (regs[i] >= PTO_NUM_SREGS)
			return pto_kb_insn_fail(
				kb, op, PTO_VERIFY_BAD_REG,
				"scalar register s%u outside s0..s%u", regs[i],
				PTO_NUM_SREGS - 1);
	return 0;
}

#define PTO_KB_SREGS(kb, op, ...)                              \
	pto_kb_sregs(kb, op,                                   \
		     sizeof((unsigned int[]){ __VA_ARGS__ }) / \
			     sizeof(unsigned int),             \
		     (unsigned int[]){ __VA_ARGS__ })

/* A declared tile register, or NULL after recording the error. */
static const struct pto_tile_decl *pto_kb_treg(struct pto_kb *kb, uint8_t op,
					       unsigned int t)
{
	if (t >= kb->num_tiles) {
		pto_kb_insn_fail(kb, op, PTO_VERIFY_BAD_REG,
				 "tile register t%u is not declared (%u tiles)",
				 t, kb->num_tiles);
		return NULL;
	}
	return &kb->tiles[t];
}

static int pto_kb_core_only(struct pto_kb *kb, uint8_t op, uint32_t core)
{
	if (kb->core_type == core)
		return 0;
	return pto_kb_insn_fail(kb, op, PTO_VERIFY_CORE_TYPE,
				"runs on %s only; this is an %s kernel",
				pto_core_name(core),
				pto_core_name(kb->core_type));
}

static uint32_t pto_kb_max_tensor_args(const struct pto_kb *kb)
{
	uint32_t m = kb->limits.max_tensor_args;

	return m && m < PTO_MAX_ARGS ? m : PTO_MAX_ARGS;
}

static uint32_t pto_kb_max_scalar_args(const struct pto_kb *kb)
{
	uint32_t m = kb->limits.max_scalar_args;

	return m && m < PTO_MAX_ARGS ? m : PTO_MAX_ARGS;
}

/* Tensor argument @idx used by the instruction about to be emitted. */
static int pto_kb_use_arg(struct pto_kb *kb, uint8_t op, unsigned int idx,
			  enum pto_dtype dtype)
{
	uint32_t max = pto_kb_max_tensor_args(kb);

	if (idx >= max)
		return pto_kb_insn_fail(kb, op, PTO_VERIFY_ARG_INDEX,
					"tensor argument %u outside 0..%u", idx,
					max - 1);
	if (!dtype)
		return 0;
	if (kb->arg_dtype[idx] && kb->arg_dtype[idx] != dtype)
		return pto_kb_insn_fail(
			kb, op, PTO_VERIFY_ARG_DTYPE,
			"tensor argument %u used as %s here but as %s by insn %u",
			idx, pto_dtype_name(dtype),
			pto_dtype_name(kb->arg_dtype[idx]), kb->arg_insn[idx]);
	if (!kb->arg_dtype[idx]) {
		kb->arg_dtype[idx] = (uint8_t)dtype;
		kb->arg_insn[idx] = kb->n;
	}
	return 0;
}

#define PTO_KB_CHECK(expr)               \
	do {                             \
		int pto_ret_ = (expr);   \
		if (pto_ret_)            \
			return pto_ret_; \
	} while (0)

/* Entry of every emitter: a NULL builder, or one already failed. */
#define PTO_KB_ENTER(kb)                  \
	do {                              \
		if (!(kb))                \
			return -EINVAL;   \
		if ((kb)->err)            \
			return (kb)->err; \
	} while (0)

PTO_API int pto_kb_end(struct pto_kb *kb)
{
	PTO_KB_ENTER(kb);
	return pto_kb_emit(kb, PTO_OP_END, 0, 0, 0, 0, 0, 0, 0);
}

PTO_API int pto_kb_ldi(struct pto_kb *kb, unsigned int d, int64_t imm)
{
	PTO_KB_ENTER(kb);
	PTO_KB_CHECK(PTO_KB_SREGS(kb, PTO_OP_LDI, d));
	return pto_kb_emit(kb, PTO_OP_LDI, d, 0, 0, 0, 0, 0, imm);
}

PTO_API int pto_kb_mov(struct pto_kb *kb, unsigned int d, unsigned int a)
{
	PTO_KB_ENTER(kb);
	PTO_KB_CHECK(PTO_KB_SREGS(kb, PTO_OP_MOV, d, a));
	return pto_kb_emit(kb, PTO_OP_MOV, d, a, 0, 0, 0, 0, 0);
}

PTO_API int pto_kb_sreg(struct pto_kb *kb, unsigned int d, enum pto_sreg sreg)
{
	PTO_KB_ENTER(kb);
	PTO_KB_CHECK(PTO_KB_SREGS(kb, PTO_OP_SREG, d));
	if ((unsigned int)sreg > PTO_SREG_NUM_ARGS)
		return pto_kb_insn_fail(kb, PTO_OP_SREG, PTO_VERIFY_BAD_MODE,
					"unknown special register %d",
					(int)sreg);
	return pto_kb_emit(kb, PTO_OP_SREG, d, 0, 0, 0, sreg, 0, 0);
}

PTO_API int pto_kb_arg(struct pto_kb *kb, unsigned int d, unsigned int index)
{
	uint32_t max;

	PTO_KB_ENTER(kb);
	PTO_KB_CHECK(PTO_KB_SREGS(kb, PTO_OP_ARG, d));
	max = pto_kb_max_scalar_args(kb);
	if (index >= max)
		return pto_kb_insn_fail(kb, PTO_OP_ARG, PTO_VERIFY_ARG_INDEX,
					"scalar argument %u outside 0..%u",
					index, max - 1);
	return pto_kb_emit(kb, PTO_OP_ARG, d, 0, 0, 0, 0, 0, index);
}

static int pto_kb_alu_common(struct pto_kb *kb, uint8_t op, unsigned int mode,
			     unsigned int nmodes, unsigned int d,
			     unsigned int a, unsigned int b, bool imm_form,
			     int64_t imm)
{
	PTO_KB_ENTER(kb);
	if (imm_form)
		PTO_KB_CHECK(PTO_KB_SREGS(kb, op, d, a));
	else
		PTO_KB_CHECK(PTO_KB_SREGS(kb, op, d, a, b));
	if (mode >= nmodes)
		return pto_kb_insn_fail(kb, op, PTO_VERIFY_BAD_MODE,
					"unknown operation %u", mode);
	return pto_kb_emit(kb, op, d, a, imm_form ? 0 : b, 0, mode,
			   imm_form ? PTO_INSN_F_IMM : 0, imm_form ? imm : 0);
}

PTO_API int pto_kb_alu(struct pto_kb *kb, enum pto_alu op, unsigned int d,
		       unsigned int a, unsigned int b)
{
	return pto_kb_alu_common(kb, PTO_OP_ALU, op, PTO_ALU_MAX + 1, d, a, b,
				 false, 0);
}

PTO_API int pto_kb_alui(struct pto_kb *kb, enum pto_alu op, unsigned int d,
			unsigned int a, int64_t imm)
{
	return pto_kb_alu_common(kb, PTO_OP_ALU, op, PTO_ALU_MAX + 1, d, a, 0,
				 true, imm);
}

PTO_API int pto_kb_cmp(struct pto_kb *kb, enum pto_cmp op, unsigned int d,
		       unsigned int a, unsigned int b)
{
	return pto_kb_alu_common(kb, PTO_OP_CMP, op, PTO_CMP_LE + 1, d, a, b,
				 false, 0);
}

PTO_API int pto_kb_cmpi(struct pto_kb *kb, enum pto_cmp op, unsigned int d,
			unsigned int a, int64_t imm)
{
	return pto_kb_alu_common(kb, PTO_OP_CMP, op, PTO_CMP_LE + 1, d, a, 0,
				 true, imm);
}

/* ------------------------------------------------------------- control */

PTO_API int pto_kb_label_new(struct pto_kb *kb)
{
	int ret;

	PTO_KB_ENTER(kb);
	if (kb->num_labels >= INT32_MAX)
		return pto_kb_fail(kb, -E2BIG, PTO_VERIFY_OK, PTO_NO_INDEX,
				   "too many labels");
	ret = pto_grow((void **)&kb->labels, &kb->labels_cap,
		       kb->num_labels + 1, sizeof(*kb->labels));
	if (ret)
		return pto_kb_fail(kb, ret, PTO_VERIFY_OK, PTO_NO_INDEX,
				   "out of memory");
	kb->labels[kb->num_labels] = (struct pto_kb_label){ -1, PTO_NO_REGION };
	return (int)kb->num_labels++;
}

static struct pto_kb_label *pto_kb_get_label(struct pto_kb *kb, uint8_t op,
					     int label)
{
	if (label < 0 || (uint32_t)label >= kb->num_labels) {
		pto_kb_insn_fail(kb, op, PTO_VERIFY_BAD_JUMP,
				 "label %d was not made by pto_kb_label_new()",
				 label);
		return NULL;
	}
	return &kb->labels[label];
}

PTO_API int pto_kb_label_bind(struct pto_kb *kb, int label)
{
	struct pto_kb_label *l;

	PTO_KB_ENTER(kb);
	if (label < 0 || (uint32_t)label >= kb->num_labels)
		return pto_kb_fail(
			kb, -EINVAL, PTO_VERIFY_BAD_JUMP, kb->n,
			"label %d was not made by pto_kb_label_new()", label);
	l = &kb->labels[label];
	if (l->pos >= 0)
		return pto_kb_fail(kb, -EINVAL, PTO_VERIFY_BAD_JUMP, kb->n,
				   "label L%d bound twice (at insn %d and %u)",
				   label, l->pos, kb->n);
	l->pos = (int32_t)kb->n;
	l->region = pto_kb_region(kb);
	return 0;
}

static int pto_kb_jump(struct pto_kb *kb, uint8_t op, unsigned int a, int label)
{
	struct pto_kb_label *l;
	int ret;

	PTO_KB_ENTER(kb);
	if (op != PTO_OP_JMP)
		PTO_KB_CHECK(PTO_KB_SREGS(kb, op, a));
	l = pto_kb_get_label(kb, op, label);
	if (!l)
		return kb->err;
	if (l->pos >= 0)
		return pto_kb_insn_fail(
			kb, op, PTO_VERIFY_BAD_JUMP,
			"label L%d is bound at insn %d, before the jump: jumps go forward only (use a LOOP)",
			label, l->pos);
	ret = pto_grow((void **)&kb->jumps, &kb->jumps_cap, kb->num_jumps + 1,
		       sizeof(*kb->jumps));
	if (ret)
		return pto_kb_fail(kb, ret, PTO_VERIFY_OK, kb->n,
				   "out of memory");
	kb->jumps[kb->num_jumps] = (struct pto_kb_jump){
		.insn = kb->n,
		.label = (uint32_t)label,
		.region = pto_kb_region(kb),
	};
	ret = pto_kb_emit(kb, op, 0, op == PTO_OP_JMP ? 0 : a, 0, 0, 0, 0, 0);
	if (!ret)
		kb->num_jumps++;
	return ret;
}

PTO_API int pto_kb_jmp(struct pto_kb *kb, int label)
{
	return pto_kb_jump(kb, PTO_OP_JMP, 0, label);
}

PTO_API int pto_kb_jz(struct pto_kb *kb, unsigned int a, int label)
{
	return pto_kb_jump(kb, PTO_OP_JZ, a, label);
}

PTO_API int pto_kb_jnz(struct pto_kb *kb, unsigned int a, int label)
{
	return pto_kb_jump(kb, PTO_OP_JNZ, a, label);
}

static int pto_kb_loop_common(struct pto_kb *kb, unsigned int counter,
			      unsigned int count, bool imm_form, int64_t imm)
{
	uint32_t pc;
	int ret;

	PTO_KB_ENTER(kb);
	if (imm_form)
		PTO_KB_CHECK(PTO_KB_SREGS(kb, PTO_OP_LOOP, counter));
	else
		PTO_KB_CHECK(PTO_KB_SREGS(kb, PTO_OP_LOOP, counter, count));
	if (imm_form && (imm < 0 || imm > PTO_MAX_LOOP_COUNT))
		return pto_kb_insn_fail(kb, PTO_OP_LOOP, PTO_VERIFY_LOOP_COUNT,
					"loop count %lld outside 0..%u",
					(long long)imm, PTO_MAX_LOOP_COUNT);
	if (kb->depth >= PTO_MAX_LOOP_DEPTH)
		return pto_kb_insn_fail(
			kb, PTO_OP_LOOP, PTO_VERIFY_LOOP_NESTING,
			"loops nested deeper than %u (open loops at insn %u, %u, %u, %u)",
			PTO_MAX_LOOP_DEPTH, kb->loops[0], kb->loops[1],
			kb->loops[2], kb->loops[3]);
	pc = kb->n;
	ret = pto_kb_emit(kb, PTO_OP_LOOP, counter, 0, imm_form ? 0 : count, 0,
			  0, imm_form ? PTO_INSN_F_IMM : 0, imm_form ? imm : 0);
	if (!ret)
		kb->loops[kb->depth++] = pc;
	return ret;
}

_Static_assert(PTO_MAX_LOOP_DEPTH == 4,
	       "the loop nesting message names four open loops");

PTO_API int pto_kb_loop(struct pto_kb *kb, unsigned int counter,
			unsigned int count)
{
	return pto_kb_loop_common(kb, counter, count, false, 0);
}

PTO_API int pto_kb_loopi(struct pto_kb *kb, unsigned int counter, int64_t count)
{
	return pto_kb_loop_common(kb, counter, 0, true, count);
}

PTO_API int pto_kb_endloop(struct pto_kb *kb)
{
	int ret;

	PTO_KB_ENTER(kb);
	if (!kb->depth)
		return pto_kb_insn_fail(kb, PTO_OP_ENDLOOP,
					PTO_VERIFY_LOOP_NESTING,
					"ENDLOOP without an open LOOP");
	/* The ENDLOOP is the last instruction of its body. */
	ret = pto_kb_emit(kb, PTO_OP_ENDLOOP, 0, 0, 0, 0, 0, 0, 0);
	if (!ret)
		kb->depth--;
	return ret;
}

/* ------------------------------------------------------------- GM */

PTO_API int pto_kb_gld(struct pto_kb *kb, unsigned int d, unsigned int tensor,
		       unsigned int row, unsigned int col)
{
	PTO_KB_ENTER(kb);
	PTO_KB_CHECK(PTO_KB_SREGS(kb, PTO_OP_GLD, d, row, col));
	PTO_KB_CHECK(pto_kb_use_arg(kb, PTO_OP_GLD, tensor, 0));
	return pto_kb_emit(kb, PTO_OP_GLD, d, row, col, 0, 0, 0, tensor);
}

PTO_API int pto_kb_gst(struct pto_kb *kb, unsigned int tensor, unsigned int row,
		       unsigned int col, unsigned int src)
{
	PTO_KB_ENTER(kb);
	PTO_KB_CHECK(PTO_KB_SREGS(kb, PTO_OP_GST, row, col, src));
	PTO_KB_CHECK(pto_kb_use_arg(kb, PTO_OP_GST, tensor, 0));
	return pto_kb_emit(kb, PTO_OP_GST, 0, row, col, src, 0, 0, tensor);
}

PTO_API int pto_kb_atomic_add(struct pto_kb *kb, unsigned int d,
			      unsigned int tensor, unsigned int row,
			      unsigned int col, unsigned int src)
{
	PTO_KB_ENTER(kb);
	PTO_KB_CHECK(PTO_KB_SREGS(kb, PTO_OP_ATOMIC_ADD, d, row, col, src));
	PTO_KB_CHECK(
		pto_kb_use_arg(kb, PTO_OP_ATOMIC_ADD, tensor, PTO_DTYPE_I32));
	return pto_kb_emit(kb, PTO_OP_ATOMIC_ADD, d, row, col, src, 0, 0,
			   tensor);
}

PTO_API int pto_kb_fence(struct pto_kb *kb)
{
	PTO_KB_ENTER(kb);
	return pto_kb_emit(kb, PTO_OP_FENCE, 0, 0, 0, 0, 0, 0, 0);
}

PTO_API int pto_kb_cacheinvalid(struct pto_kb *kb)
{
	PTO_KB_ENTER(kb);
	return pto_kb_emit(kb, PTO_OP_CACHEINVALID, 0, 0, 0, 0, 0, 0, 0);
}

PTO_API int pto_kb_cacheinvalid_tensor(struct pto_kb *kb, uint32_t tensor)
{
	PTO_KB_ENTER(kb);
	PTO_KB_CHECK(pto_kb_use_arg(kb, PTO_OP_CACHEINVALID, tensor, 0));
	return pto_kb_emit(kb, PTO_OP_CACHEINVALID, 0, 0, 0, 0, PTO_CINV_TENSOR,
			   0, tensor);
}

PTO_API int pto_kb_syncall_hard(struct pto_kb *kb, enum pto_sync_type type)
{
	PTO_KB_ENTER(kb);
	if (type != PTO_SYNC_AIV && type != PTO_SYNC_AIC && type != PTO_SYNC_MIX)
		return pto_kb_fail(kb, -EINVAL, PTO_VERIFY_BAD_MODE, kb->n,
				   "insn %u (SYNCALL): HARD type %d is not AIV, AIC or MIX",
				   kb->n, (int)type);
	return pto_kb_emit(kb, PTO_OP_SYNCALL, 0, 0, 0, 0, PTO_SYNC_HARD, 0, type);
}

PTO_API int pto_kb_syncall_soft(struct pto_kb *kb, unsigned int workspace,
				unsigned int used_cores)
{
	PTO_KB_ENTER(kb);
	PTO_KB_CHECK(PTO_KB_SREGS(kb, PTO_OP_SYNCALL, used_cores));
	PTO_KB_CHECK(pto_kb_use_arg(kb, PTO_OP_SYNCALL, workspace, PTO_DTYPE_I32));
	return pto_kb_emit(kb, PTO_OP_SYNCALL, 0, used_cores, 0, 0, PTO_SYNC_SOFT,
			   0, workspace);
}

/* ------------------------------------------------------------- tiles */

static bool pto_same_shape(const struct pto_tile_decl *x,
			   const struct pto_tile_decl *y)
{
	return x->rows == y->rows && x->cols == y->cols;
}

static bool pto_is_f32(const struct pto_tile_decl *t)
{
	return t->dtype == PTO_DTYPE_F32;
}

/* "t3 (f32 64x128 in UB)" */
static const char *pto_tile_str(char *buf, size_t len, const struct pto_kb *kb,
				unsigned int t)
{
	const struct pto_tile_decl *d = &kb->tiles[t];

	snprintf(buf, len, "t%u (%s %ux%u in %s)", t, pto_dtype_name(d->dtype),
		 d->rows, d->cols, pto_buf_names[d->buf]);
	return buf;
}

/* t[d] and t[a] of one shape and dtype. */
static int pto_kb_same_tiles(struct pto_kb *kb, uint8_t op, unsigned int d,
			     unsigned int a)
{
	const struct pto_tile_decl *td = &kb->tiles[d], *ta = &kb->tiles[a];
	char s1[64], s2[64];

	if (pto_same_shape(td, ta) && td->dtype == ta->dtype)
		return 0;
	return pto_kb_insn_fail(kb, op, PTO_VERIFY_TILE_SHAPE,
				"%s and %s differ in shape or dtype",
				pto_tile_str(s1, sizeof(s1), kb, d),
				pto_tile_str(s2, sizeof(s2), kb, a));
}

PTO_API int pto_kb_tload(struct pto_kb *kb, unsigned int t, unsigned int tensor,
			 unsigned int row, unsigned int col)
{
	const struct pto_tile_decl *td;
	char s[64];

	PTO_KB_ENTER(kb);
	PTO_KB_CHECK(PTO_KB_SREGS(kb, PTO_OP_TLOAD, row, col));
	td = pto_kb_treg(kb, PTO_OP_TLOAD, t);
	if (!td)
		return kb->err;
	if (td->buf == PTO_BUF_L0C)
		return pto_kb_insn_fail(
			kb, PTO_OP_TLOAD, PTO_VERIFY_TILE_BUF,
			"cannot load into %s: load into L1, L0A or L0B",
			pto_tile_str(s, sizeof(s), kb, t));
	PTO_KB_CHECK(pto_kb_use_arg(kb, PTO_OP_TLOAD, tensor, td->dtype));
	return pto_kb_emit(kb, PTO_OP_TLOAD, t, row, col, 0, 0, 0, tensor);
}

PTO_API int pto_kb_tstore(struct pto_kb *kb, unsigned int t,
			  unsigned int tensor, unsigned int row,
			  unsigned int col)
{
	const struct pto_tile_decl *td;
	char s[64];

	PTO_KB_ENTER(kb);
	PTO_KB_CHECK(PTO_KB_SREGS(kb, PTO_OP_TSTORE, row, col));
	td = pto_kb_treg(kb, PTO_OP_TSTORE, t);
	if (!td)
		return kb->err;
	if (kb->core_type == PTO_CORE_AIC && td->buf != PTO_BUF_L0C &&
	    td->buf != PTO_BUF_L1)
		return pto_kb_insn_fail(
			kb, PTO_OP_TSTORE, PTO_VERIFY_TILE_BUF,
			"cannot store from %s: store from L0C or L1",
			pto_tile_str(s, sizeof(s), kb, t));
	PTO_KB_CHECK(pto_kb_use_arg(kb, PTO_OP_TSTORE, tensor, td->dtype));
	return pto_kb_emit(kb, PTO_OP_TSTORE, t, row, col, 0, 0, 0, tensor);
}

PTO_API int pto_kb_tmov(struct pto_kb *kb, unsigned int d, unsigned int a)
{
	PTO_KB_ENTER(kb);
	if (!pto_kb_treg(kb, PTO_OP_TMOV, d) ||
	    !pto_kb_treg(kb, PTO_OP_TMOV, a))
		return kb->err;
	PTO_KB_CHECK(pto_kb_same_tiles(kb, PTO_OP_TMOV, d, a));
	return pto_kb_emit(kb, PTO_OP_TMOV, d, a, 0, 0, 0, 0, 0);
}

static int64_t pto_f32_imm(float v)
{
	uint32_t bits;

	memcpy(&bits, &v, sizeof(bits));
	return (int64_t)bits;
}

/* TFILL and TBINS share the scalar operand: register, f32 or integer. */
enum pto_kb_scalar {
	PTO_KB_SCALAR_REG,
	PTO_KB_SCALAR_F32,
	PTO_KB_SCALAR_INT,
};

static int pto_kb_scalar_kind(struct pto_kb *kb, uint8_t op, unsigned int t,
			      enum pto_kb_scalar kind)
{
	bool f32 = pto_is_f32(&kb->tiles[t]);
	char s[64];

	if (kind == PTO_KB_SCALAR_F32 && !f32)
		return pto_kb_insn_fail(
			kb, op, PTO_VERIFY_TILE_DTYPE,
			"f32 scalar for integer tile %s: use the integer variant",
			pto_tile_str(s, sizeof(s), kb, t));
	if (kind == PTO_KB_SCALAR_INT && f32)
		return pto_kb_insn_fail(
			kb, op, PTO_VERIFY_TILE_DTYPE,
			"integer scalar for f32 tile %s: use the f32 variant",
			pto_tile_str(s, sizeof(s), kb, t));
	return 0;
}

static int pto_kb_tfill_common(struct pto_kb *kb, unsigned int t,
			       enum pto_kb_scalar kind, unsigned int s,
			       int64_t imm)
{
	bool reg = kind == PTO_KB_SCALAR_REG;

	PTO_KB_ENTER(kb);
	if (reg)
		PTO_KB_CHECK(PTO_KB_SREGS(kb, PTO_OP_TFILL, s));
	if (!pto_kb_treg(kb, PTO_OP_TFILL, t))
		return kb->err;
	PTO_KB_CHECK(pto_kb_scalar_kind(kb, PTO_OP_TFILL, t, kind));
	return pto_kb_emit(kb, PTO_OP_TFILL, t, 0, reg ? s : 0, 0, 0,
			   reg ? 0 : PTO_INSN_F_IMM, reg ? 0 : imm);
}

PTO_API int pto_kb_tfill(struct pto_kb *kb, unsigned int t, unsigned int s)
{
	return pto_kb_tfill_common(kb, t, PTO_KB_SCALAR_REG, s, 0);
}

PTO_API int pto_kb_tfillf(struct pto_kb *kb, unsigned int t, float value)
{
	return pto_kb_tfill_common(kb, t, PTO_KB_SCALAR_F32, 0,
				   pto_f32_imm(value));
}

PTO_API int pto_kb_tfilli(struct pto_kb *kb, unsigned int t, int64_t value)
{
	return pto_kb_tfill_common(kb, t, PTO_KB_SCALAR_INT, 0, value);
}

/* Elementwise op @op allowed on t[d]'s dtype. */
static int pto_kb_tbin_op(struct pto_kb *kb, uint8_t op, enum pto_tbin mode,
			  unsigned int d)
{
	bool f32 = pto_is_f32(&kb->tiles[d]);
	char s[64];

	if ((unsigned int)mode > PTO_TBIN_XOR)
		return pto_kb_insn_fail(kb, op, PTO_VERIFY_BAD_MODE,
					"unknown elementwise operation %d",
					(int)mode);
	if (mode == PTO_TBIN_DIV && !f32)
		return pto_kb_insn_fail(kb, op, PTO_VERIFY_TILE_DTYPE,
					"DIV is for f32 tiles, not %s",
					pto_tile_str(s, sizeof(s), kb, d));
	if (mode >= PTO_TBIN_AND && f32)
		return pto_kb_insn_fail(
			kb, op, PTO_VERIFY_TILE_DTYPE,
			"AND/OR/XOR are for integer tiles, not %s",
			pto_tile_str(s, sizeof(s), kb, d));
	return 0;
}

PTO_API int pto_kb_tbin(struct pto_kb *kb, enum pto_tbin op, unsigned int d,
			unsigned int a, unsigned int b)
{
	PTO_KB_ENTER(kb);
	PTO_KB_CHECK(pto_kb_core_only(kb, PTO_OP_TBIN, PTO_CORE_AIV));
	if (!pto_kb_treg(kb, PTO_OP_TBIN, d) ||
	    !pto_kb_treg(kb, PTO_OP_TBIN, a) ||
	    !pto_kb_treg(kb, PTO_OP_TBIN, b))
		return kb->err;
	PTO_KB_CHECK(pto_kb_same_tiles(kb, PTO_OP_TBIN, d, a));
	PTO_KB_CHECK(pto_kb_same_tiles(kb, PTO_OP_TBIN, d, b));
	PTO_KB_CHECK(pto_kb_tbin_op(kb, PTO_OP_TBIN, op, d));
	return pto_kb_emit(kb, PTO_OP_TBIN, d, a, b, 0, op, 0, 0);
}

static int pto_kb_tbins_common(struct pto_kb *kb, enum pto_tbin op,
			       unsigned int d, unsigned int a,
			       enum pto_kb_scalar kind, unsigned int s,
			       int64_t imm)
{
	bool reg = kind == PTO_KB_SCALAR_REG;

	PTO_KB_ENTER(kb);
	PTO_KB_CHECK(pto_kb_core_only(kb, PTO_OP_TBINS, PTO_CORE_AIV));
	if (reg)
		PTO_KB_CHECK(PTO_KB_SREGS(kb, PTO_OP_TBINS, s));
	if (!pto_kb_treg(kb, PTO_OP_TBINS, d) ||
	    !pto_kb_treg(kb, PTO_OP_TBINS, a))
		return kb->err;
	PTO_KB_CHECK(pto_kb_same_tiles(kb, PTO_OP_TBINS, d, a));
	PTO_KB_CHECK(pto_kb_tbin_op(kb, PTO_OP_TBINS, op, d));
	PTO_KB_CHECK(pto_kb_scalar_kind(kb, PTO_OP_TBINS, d, kind));
	return pto_kb_emit(kb, PTO_OP_TBINS, d, a, reg ? s : 0, 0, op,
			   reg ? 0 : PTO_INSN_F_IMM, reg ? 0 : imm);
}

PTO_API int pto_kb_tbins(struct pto_kb *kb, enum pto_tbin op, unsigned int d,
			 unsigned int a, unsigned int s)
{
	return pto_kb_tbins_common(kb, op, d, a, PTO_KB_SCALAR_REG, s, 0);
}

PTO_API int pto_kb_tbinsf(struct pto_kb *kb, enum pto_tbin op, unsigned int d,
			  unsigned int a, float value)
{
	return pto_kb_tbins_common(kb, op, d, a, PTO_KB_SCALAR_F32, 0,
				   pto_f32_imm(value));
}

PTO_API int pto_kb_tbinsi(struct pto_kb *kb, enum pto_tbin op, unsigned int d,
			  unsigned int a, int64_t value)
{
	return pto_kb_tbins_common(kb, op, d, a, PTO_KB_SCALAR_INT, 0, value);
}

PTO_API int pto_kb_tunary(struct pto_kb *kb, enum pto_tunary op, unsigned int d,
			  unsigned int a)
{
	char s[64];

	PTO_KB_ENTER(kb);
	PTO_KB_CHECK(pto_kb_core_only(kb, PTO_OP_TUNARY, PTO_CORE_AIV));
	if (!pto_kb_treg(kb, PTO_OP_TUNARY, d) ||
	    !pto_kb_treg(kb, PTO_OP_TUNARY, a))
		return kb->err;
	if ((unsigned int)op > PTO_TUNARY_ABS)
		return pto_kb_insn_fail(kb, PTO_OP_TUNARY, PTO_VERIFY_BAD_MODE,
					"unknown unary operation %d", (int)op);
	PTO_KB_CHECK(pto_kb_same_tiles(kb, PTO_OP_TUNARY, d, a));
	if ((op == PTO_TUNARY_EXP || op == PTO_TUNARY_SQRT) &&
	    !pto_is_f32(&kb->tiles[d]))
		return pto_kb_insn_fail(
			kb, PTO_OP_TUNARY, PTO_VERIFY_TILE_DTYPE,
			"EXP and SQRT are for f32 tiles, not %s",
			pto_tile_str(s, sizeof(s), kb, d));
	return pto_kb_emit(kb, PTO_OP_TUNARY, d, a, 0, 0, op, 0, 0);
}

PTO_API int pto_kb_trowred(struct pto_kb *kb, enum pto_rowred op,
			   unsigned int d, unsigned int a)
{
	const struct pto_tile_decl *td, *ta;
	char s1[64], s2[64];

	PTO_KB_ENTER(kb);
	PTO_KB_CHECK(pto_kb_core_only(kb, PTO_OP_TROWRED, PTO_CORE_AIV));
	td = pto_kb_treg(kb, PTO_OP_TROWRED, d);
	ta = pto_kb_treg(kb, PTO_OP_TROWRED, a);
	if (!td || !ta)
		return kb->err;
	if ((unsigned int)op > PTO_ROWRED_MAX)
		return pto_kb_insn_fail(kb, PTO_OP_TROWRED, PTO_VERIFY_BAD_MODE,
					"unknown row reduction %d", (int)op);
	if (!pto_is_f32(td) || !pto_is_f32(ta))
		return pto_kb_insn_fail(
			kb, PTO_OP_TROWRED, PTO_VERIFY_TILE_DTYPE,
			"row reductions are for f32 tiles: %s, %s",
			pto_tile_str(s1, sizeof(s1), kb, d),
			pto_tile_str(s2, sizeof(s2), kb, a));
	if (td->rows != ta->rows || td->cols != 1)
		return pto_kb_insn_fail(
			kb, PTO_OP_TROWRED, PTO_VERIFY_TILE_SHAPE,
			"row reduction of %s needs a %ux1 result, not %s",
			pto_tile_str(s2, sizeof(s2), kb, a), ta->rows,
			pto_tile_str(s1, sizeof(s1), kb, d));
	return pto_kb_emit(kb, PTO_OP_TROWRED, d, a, 0, 0, op, 0, 0);
}

PTO_API int pto_kb_tcast(struct pto_kb *kb, unsigned int d, unsigned int a)
{
	const struct pto_tile_decl *td, *ta;
	char s1[64], s2[64];

	PTO_KB_ENTER(kb);
	PTO_KB_CHECK(pto_kb_core_only(kb, PTO_OP_TCAST, PTO_CORE_AIV));
	td = pto_kb_treg(kb, PTO_OP_TCAST, d);
	ta = pto_kb_treg(kb, PTO_OP_TCAST, a);
	if (!td || !ta)
		return kb->err;
	if (!pto_same_shape(td, ta))
		return pto_kb_insn_fail(kb, PTO_OP_TCAST, PTO_VERIFY_TILE_SHAPE,
					"%s and %s differ in shape",
					pto_tile_str(s1, sizeof(s1), kb, d),
					pto_tile_str(s2, sizeof(s2), kb, a));
	return pto_kb_emit(kb, PTO_OP_TCAST, d, a, 0, 0, 0, 0, 0);
}

PTO_API int pto_kb_matmul(struct pto_kb *kb, unsigned int d, unsigned int a,
			  unsigned int b, bool acc)
{
	const struct pto_tile_decl *td, *ta, *tb;
	char s1[64], s2[64], s3[64];

	PTO_KB_ENTER(kb);
	PTO_KB_CHECK(pto_kb_core_only(kb, PTO_OP_MATMUL, PTO_CORE_AIC));
	td = pto_kb_treg(kb, PTO_OP_MATMUL, d);
	ta = pto_kb_treg(kb, PTO_OP_MATMUL, a);
	tb = pto_kb_treg(kb, PTO_OP_MATMUL, b);
	if (!td || !ta || !tb)
		return kb->err;
	pto_tile_str(s1, sizeof(s1), kb, d);
	pto_tile_str(s2, sizeof(s2), kb, a);
	pto_tile_str(s3, sizeof(s3), kb, b);
	if (ta->buf != PTO_BUF_L0A || tb->buf != PTO_BUF_L0B ||
	    td->buf != PTO_BUF_L0C)
		return pto_kb_insn_fail(
			kb, PTO_OP_MATMUL, PTO_VERIFY_TILE_BUF,
			"takes L0A x L0B into L0C: %s = %s x %s", s1, s2, s3);
	if (!pto_is_f32(ta) || !pto_is_f32(tb) || !pto_is_f32(td))
		return pto_kb_insn_fail(kb, PTO_OP_MATMUL,
					PTO_VERIFY_TILE_DTYPE,
					"is f32: %s = %s x %s", s1, s2, s3);
	if (ta->cols != tb->rows || td->rows != ta->rows ||
	    td->cols != tb->cols)
		return pto_kb_insn_fail(kb, PTO_OP_MATMUL,
					PTO_VERIFY_TILE_SHAPE,
					"shapes do not agree: %s = %s x %s", s1,
					s2, s3);
	return pto_kb_emit(kb, PTO_OP_MATMUL, d, a, b, 0, 0,
			   acc ? PTO_INSN_F_ACC : 0, 0);
}

/* ------------------------------------------------------------- ring */

/*
 * Every PUSH (or every POP) of a kernel moves one tile shape and dtype:
 * the ring's slot. The verifier's rule, with the first use named.
 */
static int pto_kb_ring(struct pto_kb *kb, uint8_t op, unsigned int t)
{
	struct pto_kb_ring *r = op == PTO_OP_PUSH ? &kb->push : &kb->pop;
	const struct pto_tile_decl *td;
	char s1[64], s2[64];
	int ret;

	PTO_KB_ENTER(kb);
	td = pto_kb_treg(kb, op, t);
	if (!td)
		return kb->err;
	if (r->used && (td->rows != r->rows || td->cols != r->cols ||
			td->dtype != r->dtype)) {
		snprintf(s2, sizeof(s2), "%s %ux%u", pto_dtype_name(r->dtype),
			 r->rows, r->cols);
		return pto_kb_insn_fail(
			kb, op, PTO_VERIFY_TILE_SHAPE,
			"every %s of a kernel moves one tile shape: %s, but insn %u moved %s",
			pto_op_names[op], pto_tile_str(s1, sizeof(s1), kb, t),
			r->insn, s2);
	}
	ret = pto_kb_emit(kb, op, op == PTO_OP_POP ? t : 0,
			  op == PTO_OP_PUSH ? t : 0, 0, 0, 0, 0, 0);
	if (ret || r->used)
		return ret;
	*r = (struct pto_kb_ring){
		.used = true,
		.dtype = td->dtype,
		.rows = td->rows,
		.cols = td->cols,
		.insn = kb->n - 1,
	};
	return 0;
}

PTO_API int pto_kb_push(struct pto_kb *kb, unsigned int t)
{
	return pto_kb_ring(kb, PTO_OP_PUSH, t);
}

PTO_API int pto_kb_pop(struct pto_kb *kb, unsigned int t)
{
	return pto_kb_ring(kb, PTO_OP_POP, t);
}

/* ------------------------------------------------------------- finish */

/*
 * Regions are the index of their LOOP. The label comes after the jump, so a
 * label region opened before the jump's is one the jump's body closed into.
 */
static const char *pto_jump_crossing(int32_t from, int32_t to)
{
	if (from == PTO_NO_REGION)
		return "enters a loop body";
	if (to == PTO_NO_REGION || to < from)
		return "leaves its loop body";
	return "leaves or enters a loop body";
}

/* What only the whole program can tell; resolves the jumps. */
static int pto_kb_complete(struct pto_kb *kb)
{
	uint32_t i;

	if (kb->err)
		return kb->err;
	if (!kb->n)
		return pto_kb_fail(kb, -EINVAL, PTO_VERIFY_EMPTY, 0,
				   "empty kernel: end it with pto_kb_end()");
	if (kb->depth)
		return pto_kb_fail(kb, -EINVAL, PTO_VERIFY_LOOP_NESTING,
				   kb->loops[kb->depth - 1],
				   "insn %u (LOOP): no matching ENDLOOP",
				   kb->loops[kb->depth - 1]);
	if (kb->insns[kb->n - 1].op != PTO_OP_END)
		return pto_kb_fail(
			kb, -EINVAL, PTO_VERIFY_NO_END, kb->n - 1,
			"insn %u (%s): the last instruction must be END",
			kb->n - 1, pto_op_names[kb->insns[kb->n - 1].op]);
	for (i = 0; i < kb->num_jumps; i++) {
		const struct pto_kb_jump *j = &kb->jumps[i];
		const struct pto_kb_label *l = &kb->labels[j->label];
		const char *op = pto_op_names[kb->insns[j->insn].op];

		if (l->pos < 0)
			return pto_kb_fail(
				kb, -EINVAL, PTO_VERIFY_BAD_JUMP, j->insn,
				"insn %u (%s): label L%u is never bound",
				j->insn, op, j->label);
		if ((uint32_t)l->pos >= kb->n)
			return pto_kb_fail(
				kb, -EINVAL, PTO_VERIFY_BAD_JUMP, j->insn,
				"insn %u (%s): label L%u is bound after the last instruction",
				j->insn, op, j->label);
		if (l->region != j->region)
			return pto_kb_fail(
				kb, -EINVAL, PTO_VERIFY_BAD_JUMP, j->insn,
				"insn %u (%s): the jump to label L%u (insn %d) %s",
				j->insn, op, j->label, l->pos,
				pto_jump_crossing(j->region, l->region));
		kb->insns[j->insn].imm = l->pos;
	}
	return 0;
}

PTO_API int pto_kb_program(struct pto_kb *kb, const struct pto_insn **insns,
			   uint32_t *num_insns,
			   const struct pto_tile_decl **tiles,
			   uint32_t *num_tiles)
{
	int ret;

	if (!kb)
		return -EINVAL;
	ret = pto_kb_complete(kb);
	if (ret)
		return ret;
	if (insns)
		*insns = kb->insns;
	if (num_insns)
		*num_insns = kb->n;
	if (tiles)
		*tiles = kb->tiles;
	if (num_tiles)
		*num_tiles = kb->num_tiles;
	return 0;
}

PTO_API int pto_kb_finish(struct pto_kb *kb, struct pto_kernel **out)
{
	char log[PTO_KB_MSG_SIZE];
	struct pto_verify_info info;
	int ret;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!kb)
		return -EINVAL;
	ret = pto_kb_complete(kb);
	if (ret)
		return ret;
	if (!kb->dev)
		return -ENODEV;
	ret = pto_kernel_upload(kb->dev, kb->core_type, kb->insns, kb->n,
				kb->tiles, kb->num_tiles, log, sizeof(log),
				&info, out);
	if (ret == -EINVAL && info.code != PTO_VERIFY_OK)
		return pto_kb_fail(kb, ret, info.code, info.index,
				   "refused by the device: %s",
				   log[0] ? log : "no log");
	/* Other failures (a full handle table, -ENOMEM) are not the program's. */
	return ret;
}
