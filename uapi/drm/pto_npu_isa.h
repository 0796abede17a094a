/* SPDX-License-Identifier: MIT */
/*
 * pto_npu kernel instruction set: the encoding of programs uploaded with
 * DRM_IOCTL_PTO_NPU_KERNEL_CREATE. Documentation/isa.rst describes every
 * opcode, which core type may use it and the errors it can raise.
 *
 * A program is an array of struct pto_insn (16 bytes each) for one core
 * type, plus a table of tile declarations (struct pto_tile_decl). Opcode
 * numbers are append only; reserved numbers are refused by the verifier
 * until the feature that owns them lands.
 */
#ifndef _UAPI_PTO_NPU_ISA_H_
#define _UAPI_PTO_NPU_ISA_H_

#include <linux/const.h>
#include <linux/types.h>

#if defined(__cplusplus)
extern "C" {
#endif

/** PTO_NUM_SREGS - scalar registers s0..s31, 64-bit signed. */
#define PTO_NUM_SREGS 32
/** PTO_NUM_TREGS - tile registers t0..t15, declared per kernel. */
#define PTO_NUM_TREGS 16
/** PTO_MAX_LOOP_DEPTH - nesting of LOOP/ENDLOOP. */
#define PTO_MAX_LOOP_DEPTH 4
/** PTO_MAX_LOOP_COUNT - iterations of one LOOP; more is a runtime fault. */
#define PTO_MAX_LOOP_COUNT 1048576
/** PTO_MAX_TILE_DIM - rows or columns of one tile. */
#define PTO_MAX_TILE_DIM 4096

/**
 * enum pto_core_type - the two kinds of virtual core
 * @PTO_CORE_AIV: vector core (2 per cluster)
 * @PTO_CORE_AIC: cube core (1 per cluster)
 */
enum pto_core_type {
	PTO_CORE_AIV = 1,
	PTO_CORE_AIC = 2,
};

/**
 * enum pto_isa_dtype - element types of tiles and GM tensors
 *
 * Same numbering as libpto's enum pto_dtype.
 */
enum pto_isa_dtype {
	/** @PTO_ISA_F32: 32-bit IEEE float. */
	PTO_ISA_F32 = 1,
	/** @PTO_ISA_I8: signed 8-bit integer. */
	PTO_ISA_I8 = 2,
	/** @PTO_ISA_I16: signed 16-bit integer. */
	PTO_ISA_I16 = 3,
	/** @PTO_ISA_I32: signed 32-bit integer. */
	PTO_ISA_I32 = 4,
	/** @PTO_ISA_I64: signed 64-bit integer. */
	PTO_ISA_I64 = 5,
	/** @PTO_ISA_U8: unsigned 8-bit integer. */
	PTO_ISA_U8 = 6,
	/** @PTO_ISA_U16: unsigned 16-bit integer. */
	PTO_ISA_U16 = 7,
	/** @PTO_ISA_U32: unsigned 32-bit integer. */
	PTO_ISA_U32 = 8,
	/** @PTO_ISA_U64: unsigned 64-bit integer. */
	PTO_ISA_U64 = 9,
};

/**
 * enum pto_local_buf - local buffers a tile can live in
 * @PTO_BUF_UB: AIV unified buffer
 * @PTO_BUF_L1: AIC L1
 * @PTO_BUF_L0A: AIC L0A (matmul left operand)
 * @PTO_BUF_L0B: AIC L0B (matmul right operand)
 * @PTO_BUF_L0C: AIC L0C (matmul accumulator)
 */
enum pto_local_buf {
	PTO_BUF_UB = 1,
	PTO_BUF_L1 = 2,
	PTO_BUF_L0A = 3,
	PTO_BUF_L0B = 4,
	PTO_BUF_L0C = 5,
};

/**
 * struct pto_tile_decl - one tile register of a kernel
 * @dtype: &enum pto_isa_dtype (unsigned types are not tile types)
 * @buf: &enum pto_local_buf, must belong to the kernel's core type
 * @pad: zero
 * @rows: 1..PTO_MAX_TILE_DIM
 * @cols: 1..PTO_MAX_TILE_DIM
 * @reserved: zero
 *
 * The verifier places tiles back to back (64-byte aligned) in their buffer
 * and refuses the kernel when a buffer's tiles exceed its budget.
 */
struct pto_tile_decl {
	__u8 dtype;
	__u8 buf;
	__u16 pad;
	__u32 rows;
	__u32 cols;
	__u32 reserved;
};

/**
 * struct pto_insn - one instruction
 * @op: &enum pto_opcode
 * @dst: destination register (scalar or tile, by opcode)
 * @a: first source register
 * @b: second source register
 * @c: third source register
 * @mode: sub-operation (ALU op, compare op, special register, ...)
 * @flags: PTO_INSN_F_* bits
 * @imm: immediate / jump target / argument index, by opcode
 */
struct pto_insn {
	__u8 op;
	__u8 dst;
	__u8 a;
	__u8 b;
	__u8 c;
	__u8 mode;
	__u16 flags;
	__s64 imm;
};

/** PTO_INSN_F_IMM - use @imm in place of register @b (ALU, tile-scalar ops). */
#define PTO_INSN_F_IMM _BITUL(0)
/** PTO_INSN_F_ACC - MATMUL accumulates into @dst instead of overwriting it. */
#define PTO_INSN_F_ACC _BITUL(1)

/**
 * enum pto_opcode - instruction opcodes
 *
 * Notation: sN scalar register, tN tile register, gN tensor argument N of
 * the task, "b|imm" register b or, with PTO_INSN_F_IMM, the immediate.
 */
enum pto_opcode {
	/** @PTO_OP_END: the block is done. */
	PTO_OP_END = 0x00,
	/** @PTO_OP_LDI: s[dst] = imm. */
	PTO_OP_LDI = 0x01,
	/** @PTO_OP_MOV: s[dst] = s[a]. */
	PTO_OP_MOV = 0x02,
	/** @PTO_OP_SREG: s[dst] = special register @mode (&enum pto_sreg). */
	PTO_OP_SREG = 0x03,
	/** @PTO_OP_ARG: s[dst] = scalar argument imm of the task. */
	PTO_OP_ARG = 0x04,
	/** @PTO_OP_ALU: s[dst] = s[a] (mode: &enum pto_alu) s[b]|imm. */
	PTO_OP_ALU = 0x05,
	/** @PTO_OP_CMP: s[dst] = s[a] (mode: &enum pto_cmp) s[b]|imm ? 1 : 0. */
	PTO_OP_CMP = 0x06,
	/** @PTO_OP_JMP: jump forward to instruction imm. */
	PTO_OP_JMP = 0x07,
	/** @PTO_OP_JZ: if s[a] == 0 jump forward to instruction imm. */
	PTO_OP_JZ = 0x08,
	/** @PTO_OP_JNZ: if s[a] != 0 jump forward to instruction imm. */
	PTO_OP_JNZ = 0x09,
	/**
	 * @PTO_OP_LOOP: run the body up to the matching ENDLOOP s[b]|imm
	 * times (count fixed at entry, 0 skips the body), s[dst] = 0, 1, ...
	 */
	PTO_OP_LOOP = 0x0a,
	/** @PTO_OP_ENDLOOP: end of the innermost LOOP body. */
	PTO_OP_ENDLOOP = 0x0b,

	/** @PTO_OP_GLD: s[dst] = g(imm)[s[a], s[b]], sign/zero extended. */
	PTO_OP_GLD = 0x10,
	/** @PTO_OP_GST: g(imm)[s[a], s[b]] = s[c] (truncated to the dtype). */
	PTO_OP_GST = 0x11,
	/** @PTO_OP_ATOMIC_ADD: s[dst] = old g(imm)[s[a], s[b]] (int32); add s[c]. */
	PTO_OP_ATOMIC_ADD = 0x12,
	/**
	 * @PTO_OP_FENCE: publish this core's GM stores (non-coherent GM: they
	 * become visible to other cores here, not before) and order them
	 * before its later accesses.
	 */
	PTO_OP_FENCE = 0x13,
	/**
	 * @PTO_OP_CACHEINVALID: make other cores' fenced GM stores visible to
	 * this core's later loads. mode PTO_CINV_ALL: the whole GM; mode
	 * PTO_CINV_TENSOR: imm = tensor argument, and only the 64-byte line
	 * holding its view's base address is invalidated (as on the chip).
	 */
	PTO_OP_CACHEINVALID = 0x14,

	/** @PTO_OP_TLOAD: t[dst] = g(imm)[s[a] .. +rows, s[b] .. +cols]. */
	PTO_OP_TLOAD = 0x20,
	/** @PTO_OP_TSTORE: g(imm)[s[a] .., s[b] ..] = t[dst]. */
	PTO_OP_TSTORE = 0x21,
	/** @PTO_OP_TMOV: t[dst] = t[a] (same shape and dtype). */
	PTO_OP_TMOV = 0x22,
	/** @PTO_OP_TFILL: every element of t[dst] = s[b]|imm (f32 bits for f32 tiles). */
	PTO_OP_TFILL = 0x23,
	/** @PTO_OP_TBIN: t[dst] = t[a] (mode: &enum pto_tbin) t[b]. */
	PTO_OP_TBIN = 0x24,
	/** @PTO_OP_TBINS: t[dst] = t[a] (mode: &enum pto_tbin) s[b]|imm. */
	PTO_OP_TBINS = 0x25,
	/** @PTO_OP_TUNARY: t[dst] = (mode: &enum pto_tunary)(t[a]). */
	PTO_OP_TUNARY = 0x26,
	/** @PTO_OP_TROWRED: t[dst] (rows x 1) = (mode: &enum pto_rowred) over each row of t[a]. */
	PTO_OP_TROWRED = 0x27,
	/** @PTO_OP_TCAST: t[dst] = t[a] converted to t[dst]'s dtype (same shape). */
	PTO_OP_TCAST = 0x28,
	/**
	 * @PTO_OP_MATMUL: t[dst] (L0C, f32, MxN) (+)= t[a] (L0A, MxK) x
	 * t[b] (L0B, KxN). AIC only.
	 */
	PTO_OP_MATMUL = 0x29,

	/**
	 * @PTO_OP_SYNCALL: barrier across the blocks of one launch.
	 * mode PTO_SYNC_HARD: imm = &enum pto_sync_type; the launch must be
	 * sync_start and occupy every core of that type.
	 * mode PTO_SYNC_SOFT: imm = tensor argument of an exclusive,
	 * zero-initialised int32 workspace of 16 elements (one 64-byte line;
	 * the counter is element [0, 0]), s[a] = used_cores.
	 */
	PTO_OP_SYNCALL = 0x30,
	/**
	 * @PTO_OP_PUSH: push t[a] into the cross-core ring of a mixed task
	 * (AIC -> its AIVs, split by rows under UP_DOWN; AIV -> its AIC); waits
	 * for a free slot.
	 */
	PTO_OP_PUSH = 0x31,
	/**
	 * @PTO_OP_POP: t[dst] = the oldest filled slot of the ring from the
	 * other side (an AIC pop gathers both AIVs' halves under UP_DOWN);
	 * waits for a filled slot, then frees it.
	 */
	PTO_OP_POP = 0x32,
};

/** enum pto_cinv_mode - PTO_OP_CACHEINVALID modes */
enum pto_cinv_mode {
	/** @PTO_CINV_ALL: every line of GM. */
	PTO_CINV_ALL = 0,
	/** @PTO_CINV_TENSOR: the line of tensor argument imm's base address. */
	PTO_CINV_TENSOR = 1,
};

/** PTO_GM_LINE - bytes of a GM cache line (the unit of non-coherence). */
#define PTO_GM_LINE 64

/** enum pto_sync_mode - PTO_OP_SYNCALL modes */
enum pto_sync_mode {
	/** @PTO_SYNC_HARD: FFTS hardware barrier emulation, full occupancy. */
	PTO_SYNC_HARD = 0,
	/** @PTO_SYNC_SOFT: GM counter barrier, any occupancy. */
	PTO_SYNC_SOFT = 1,
};

/** enum pto_sync_type - participants of a HARD syncall */
enum pto_sync_type {
	/** @PTO_SYNC_AIV: every AIV core (an AIV launch). */
	PTO_SYNC_AIV = 1,
	/** @PTO_SYNC_AIC: every AIC core (an AIC launch). */
	PTO_SYNC_AIC = 2,
	/** @PTO_SYNC_MIX: every core of every cluster (a mixed launch). */
	PTO_SYNC_MIX = 3,
};

/** enum pto_sreg - special registers read by PTO_OP_SREG */
enum pto_sreg {
	/** @PTO_SREG_BLOCK_IDX: this block's index, 0..block_num-1. */
	PTO_SREG_BLOCK_IDX = 0,
	/** @PTO_SREG_BLOCK_NUM: blocks of the launch. */
	PTO_SREG_BLOCK_NUM = 1,
	/** @PTO_SREG_SUB_BLOCK_ID: 0 or 1: which AIV of its cluster (0 on AIC). */
	PTO_SREG_SUB_BLOCK_ID = 2,
	/** @PTO_SREG_CORE_ID: index of the core among cores of its type. */
	PTO_SREG_CORE_ID = 3,
	/** @PTO_SREG_CORE_TYPE: &enum pto_core_type. */
	PTO_SREG_CORE_TYPE = 4,
	/** @PTO_SREG_NUM_ARGS: tensor arguments of the task. */
	PTO_SREG_NUM_ARGS = 5,
};

/** enum pto_alu - scalar ALU operations (64-bit, wrapping) */
enum pto_alu {
	PTO_ALU_ADD = 0,
	PTO_ALU_SUB = 1,
	PTO_ALU_MUL = 2,
	/** @PTO_ALU_DIV: truncating; division by zero is a runtime fault. */
	PTO_ALU_DIV = 3,
	/** @PTO_ALU_MOD: remainder; by zero is a runtime fault. */
	PTO_ALU_MOD = 4,
	PTO_ALU_AND = 5,
	PTO_ALU_OR = 6,
	PTO_ALU_XOR = 7,
	/** @PTO_ALU_SHL: shift count taken modulo 64. */
	PTO_ALU_SHL = 8,
	/** @PTO_ALU_SHR: arithmetic; shift count taken modulo 64. */
	PTO_ALU_SHR = 9,
	PTO_ALU_MIN = 10,
	PTO_ALU_MAX = 11,
};

/** enum pto_cmp - comparisons (signed 64-bit); shared with predicates */
enum pto_cmp {
	PTO_CMP_EQ = 0,
	PTO_CMP_NE = 1,
	PTO_CMP_GT = 2,
	PTO_CMP_LT = 3,
	PTO_CMP_GE = 4,
	PTO_CMP_LE = 5,
};

/** enum pto_tbin - elementwise binary tile operations */
enum pto_tbin {
	PTO_TBIN_ADD = 0,
	PTO_TBIN_SUB = 1,
	PTO_TBIN_MUL = 2,
	/** @PTO_TBIN_DIV: f32 tiles only. */
	PTO_TBIN_DIV = 3,
	PTO_TBIN_MAX = 4,
	PTO_TBIN_MIN = 5,
	/** @PTO_TBIN_AND: integer tiles only. */
	PTO_TBIN_AND = 6,
	/** @PTO_TBIN_OR: integer tiles only. */
	PTO_TBIN_OR = 7,
	/** @PTO_TBIN_XOR: integer tiles only. */
	PTO_TBIN_XOR = 8,
};

/** enum pto_tunary - elementwise unary tile ops (EXP, SQRT: f32 tiles only) */
enum pto_tunary {
	PTO_TUNARY_EXP = 0,
	PTO_TUNARY_SQRT = 1,
	PTO_TUNARY_RELU = 2,
	PTO_TUNARY_NEG = 3,
	PTO_TUNARY_ABS = 4,
};

/** enum pto_rowred - row reductions (f32 tiles) */
enum pto_rowred {
	PTO_ROWRED_SUM = 0,
	PTO_ROWRED_MAX = 1,
};

#if defined(__cplusplus)
}
#endif

#endif /* _UAPI_PTO_NPU_ISA_H_ */
