/* SPDX-License-Identifier: MIT */
/*
 * libpto kernels: programs for one core type (AIC or AIV) in the device's
 * instruction set (pto_npu_isa.h), uploaded once, verified by the module
 * and referenced by handle afterwards.
 *
 * The kernel builder (struct pto_kb) emits instructions through one call
 * per instruction family. Each call checks what libpto can know without
 * the device's verifier: register numbers, declared tiles, the core type
 * an instruction or local buffer belongs to, tile shapes and dtypes, the
 * tile budget of each local buffer, loop nesting, labels. The first error
 * sticks: later calls do nothing and return it, pto_kb_finish() refuses
 * the kernel and pto_kb_error() says why. Checking every call is therefore
 * optional; checking pto_kb_finish() is not.
 *
 * Register operands are plain numbers: s0..s31 (PTO_NUM_SREGS) for scalar
 * registers; a tile register is the value pto_kb_tile() returned. Tensor
 * arguments are indexes into the task's tensor list, scalar arguments into
 * its scalar list.
 */
#ifndef PTO_KERNEL_H
#define PTO_KERNEL_H

#include <pto/pto.h>

#include "pto_npu_isa.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pto_kernel;
struct pto_kb;

/**
 * enum pto_verify_error - why a kernel was refused
 *
 * The device verifier's codes (DRM_PTO_NPU_VERIFY_*); the kernel builder
 * uses the same code for the same rule when it refuses first.
 */
enum pto_verify_error {
	PTO_VERIFY_OK = 0,
	PTO_VERIFY_EMPTY = 1,
	PTO_VERIFY_TOO_LONG = 2,
	PTO_VERIFY_BAD_OPCODE = 3,
	PTO_VERIFY_RESERVED_OPCODE = 4,
	PTO_VERIFY_BAD_REG = 5,
	PTO_VERIFY_BAD_MODE = 6,
	PTO_VERIFY_BAD_FLAGS = 7,
	PTO_VERIFY_BAD_JUMP = 8,
	PTO_VERIFY_LOOP_NESTING = 9,
	PTO_VERIFY_CORE_TYPE = 10,
	PTO_VERIFY_TILE_SHAPE = 11,
	PTO_VERIFY_TILE_DTYPE = 12,
	PTO_VERIFY_TILE_BUF = 13,
	PTO_VERIFY_BUDGET = 14,
	PTO_VERIFY_BAD_TILE_DECL = 15,
	PTO_VERIFY_NO_END = 16,
	PTO_VERIFY_ARG_INDEX = 17,
	PTO_VERIFY_ARG_DTYPE = 18,
	PTO_VERIFY_RESERVED_FIELD = 19,
	PTO_VERIFY_LOOP_COUNT = 20,
};

/** PTO_NO_INDEX - "no instruction or tile" in error reports. */
#define PTO_NO_INDEX UINT32_MAX

/**
 * struct pto_verify_info - where and why the verifier refused a program
 * @code: &enum pto_verify_error
 * @index: index of the refused instruction (or tile declaration, for the
 *	   tile rules), PTO_NO_INDEX if none applies
 */
struct pto_verify_info {
	uint32_t code;
	uint32_t index;
};

/* ------------------------------------------------------------- kernels */

/**
 * pto_kernel_create_raw() - upload an encoded program as it is
 * @dev: device handle
 * @core_type: core type the program is for
 * @insns: @num_insns instructions
 * @num_insns: 1..&pto_limits.max_insns
 * @tiles: @num_tiles tile declarations (t0 first), or NULL with 0
 * @num_tiles: 0..PTO_NUM_TREGS
 * @log: buffer for the verifier's message, or NULL
 * @log_size: bytes at @log
 * @info: filled with the verifier's code and index, or NULL
 * @out: the new kernel, NULL on failure
 *
 * No library-side checks: this is how tests reach the device's verifier.
 * Programs built with struct pto_kb are uploaded by pto_kb_finish().
 *
 * Return: 0; -EINVAL when the verifier refuses the program (@log and
 * @info say why) or for a bad argument; -E2BIG for too many instructions;
 * -ENOSPC when the handle holds &pto_limits.max_kernels_per_context
 * kernels; -ENOMEM; or the ioctl's errno, negated.
 */
PTO_API int
pto_kernel_create_raw(struct pto_device *dev, enum pto_core_type core_type,
		      const struct pto_insn *insns, uint32_t num_insns,
		      const struct pto_tile_decl *tiles, uint32_t num_tiles,
		      char *log, size_t log_size, struct pto_verify_info *info,
		      struct pto_kernel **out);

/**
 * pto_kernel_free() - drop a kernel handle
 * @k: kernel, or NULL
 *
 * Tasks the device already took keep the program alive; a later task
 * naming the kernel is refused (PTO_REASON_KERNEL).
 */
PTO_API void pto_kernel_free(struct pto_kernel *k);

/**
 * pto_kernel_handle() - device handle of a kernel
 * @k: kernel
 *
 * Return: the handle, never 0.
 */
PTO_API uint32_t pto_kernel_handle(const struct pto_kernel *k);

/**
 * pto_kernel_core_type() - core type a kernel runs on
 * @k: kernel
 *
 * Return: PTO_CORE_AIV or PTO_CORE_AIC.
 */
PTO_API enum pto_core_type pto_kernel_core_type(const struct pto_kernel *k);

/**
 * pto_kernel_num_tensor_args() - tensor arguments a task must pass
 * @k: kernel
 *
 * Return: one more than the highest tensor argument index the program
 * uses, as the verifier counted it.
 */
PTO_API uint32_t pto_kernel_num_tensor_args(const struct pto_kernel *k);

/**
 * pto_kernel_num_scalar_args() - scalar arguments a task must pass
 * @k: kernel
 *
 * Return: one more than the highest scalar argument index the program
 * uses, as the verifier counted it.
 */
PTO_API uint32_t pto_kernel_num_scalar_args(const struct pto_kernel *k);

/**
 * pto_kernel_tensor_arg_dtype() - element type a kernel uses a tensor as
 * @k: kernel
 * @index: tensor argument index
 *
 * Known for kernels from the builder: TLOAD/TSTORE use the tile's dtype,
 * ATOMIC_ADD int32; GLD/GST take any dtype.
 *
 * Return: the dtype, or 0 when any dtype will do or it is not known.
 */
PTO_API enum pto_dtype pto_kernel_tensor_arg_dtype(const struct pto_kernel *k,
						   uint32_t index);

/**
 * struct pto_ring_tile - the tile a kernel moves through the cross-core ring
 * @dtype: &enum pto_dtype
 * @rows: rows
 * @cols: columns
 */
struct pto_ring_tile {
	uint32_t dtype;
	uint32_t rows;
	uint32_t cols;
};

/**
 * pto_kernel_push_tile() - shape of the tile every PUSH of a kernel moves
 * @k: kernel
 * @out: filled when the kernel has a PUSH, or NULL
 *
 * Known for every kernel, from the builder or raw: libpto reads it off the
 * program at upload (the verifier has checked that every PUSH moves one
 * shape).
 *
 * Return: 0, or -ENOENT when the kernel has no PUSH.
 */
PTO_API int pto_kernel_push_tile(const struct pto_kernel *k,
				 struct pto_ring_tile *out);

/**
 * pto_kernel_pop_tile() - shape of the tile every POP of a kernel fills
 * @k: kernel
 * @out: filled when the kernel has a POP, or NULL
 *
 * Return: 0, or -ENOENT when the kernel has no POP.
 */
PTO_API int pto_kernel_pop_tile(const struct pto_kernel *k,
				struct pto_ring_tile *out);

/**
 * pto_kernel_ub_used() - bytes of UB a kernel's tiles take
 * @k: kernel
 *
 * Tiles placed back to back, each 64-byte aligned, as the device places
 * them. In a mixed task the cross-core ring goes after them.
 *
 * Return: the bytes; 0 for an AIC kernel.
 */
PTO_API uint32_t pto_kernel_ub_used(const struct pto_kernel *k);

/* ------------------------------------------------------------- builder */

/**
 * pto_kb_new() - start a kernel
 * @dev: device whose budgets and limits the checks use
 * @core_type: PTO_CORE_AIV or PTO_CORE_AIC
 * @out: the new builder, NULL on failure
 *
 * Return: 0, -EINVAL for a bad argument, or -ENOMEM.
 */
PTO_API int pto_kb_new(struct pto_device *dev, enum pto_core_type core_type,
		       struct pto_kb **out);

/**
 * pto_kb_free() - free a builder
 * @kb: builder, or NULL
 *
 * A kernel pto_kb_finish() made lives on.
 */
PTO_API void pto_kb_free(struct pto_kb *kb);

/**
 * pto_kb_error() - why the builder or the device refused the kernel
 * @kb: builder
 *
 * For instance "tile t3 (f32 256x256 = 256 KiB) does not fit in UB:
 * 192 KiB budget, 160 KiB already used", or the verifier's log when the
 * device refused the upload.
 *
 * Return: the message, "" when there is no error; valid until the next
 * call on @kb.
 */
PTO_API const char *pto_kb_error(const struct pto_kb *kb);

/**
 * pto_kb_error_info() - code and index of the refusal
 * @kb: builder
 * @info: filled: &enum pto_verify_error (PTO_VERIFY_OK when the error is
 *	  not a verifier rule, e.g. -ENOMEM) and the instruction or tile index
 *
 * Return: the builder's sticky error: 0 or a negative errno.
 */
PTO_API int pto_kb_error_info(const struct pto_kb *kb,
			      struct pto_verify_info *info);

/**
 * pto_kb_tile() - declare a tile register
 * @kb: builder
 * @dtype: PTO_DTYPE_F32 or a signed integer type
 * @buf: local buffer of the kernel's core type: PTO_BUF_UB on AIV,
 *	 PTO_BUF_L1/L0A/L0B/L0C on AIC
 * @rows: 1..PTO_MAX_TILE_DIM
 * @cols: 1..PTO_MAX_TILE_DIM
 *
 * Tiles are placed in declaration order, each 64-byte aligned, after the
 * tiles already in @buf; the sum must fit the buffer's budget.
 *
 * Return: the tile register (t0 first), or -EINVAL, -E2BIG (more than
 * PTO_NUM_TREGS tiles) or -ENOSPC (over budget).
 */
PTO_API int pto_kb_tile(struct pto_kb *kb, enum pto_dtype dtype,
			enum pto_local_buf buf, uint32_t rows, uint32_t cols);

/**
 * pto_kb_label_new() - a label for forward jumps
 * @kb: builder
 *
 * Return: the label (>= 0) or a negative errno.
 */
PTO_API int pto_kb_label_new(struct pto_kb *kb);

/**
 * pto_kb_label_bind() - place a label before the next instruction
 * @kb: builder
 * @label: a label of @kb, bound at most once
 *
 * Jumps go forward only and stay in their loop body: a label must be
 * bound after every jump to it, in the loop body of those jumps (an
 * ENDLOOP belongs to its body), and before an instruction.
 *
 * Return: 0 or the sticky error.
 */
PTO_API int pto_kb_label_bind(struct pto_kb *kb, int label);

/*
 * Emitters. Each returns 0 or the builder's sticky error. Notation as in
 * pto_npu_isa.h: sN scalar register, tN tile register, gN tensor argument.
 */

/** pto_kb_end() - END: the block is done. Also the last instruction. */
PTO_API int pto_kb_end(struct pto_kb *kb);
/** pto_kb_ldi() - LDI: s[d] = @imm. */
PTO_API int pto_kb_ldi(struct pto_kb *kb, unsigned int d, int64_t imm);
/** pto_kb_mov() - MOV: s[d] = s[a]. */
PTO_API int pto_kb_mov(struct pto_kb *kb, unsigned int d, unsigned int a);
/** pto_kb_sreg() - SREG: s[d] = special register @sreg (block index, ...). */
PTO_API int pto_kb_sreg(struct pto_kb *kb, unsigned int d, enum pto_sreg sreg);
/** pto_kb_arg() - ARG: s[d] = scalar argument @index of the task. */
PTO_API int pto_kb_arg(struct pto_kb *kb, unsigned int d, unsigned int index);
/** pto_kb_alu() - ALU: s[d] = s[a] @op s[b] (64-bit, wrapping). */
PTO_API int pto_kb_alu(struct pto_kb *kb, enum pto_alu op, unsigned int d,
		       unsigned int a, unsigned int b);
/** pto_kb_alui() - ALU: s[d] = s[a] @op @imm. */
PTO_API int pto_kb_alui(struct pto_kb *kb, enum pto_alu op, unsigned int d,
			unsigned int a, int64_t imm);
/** pto_kb_cmp() - CMP: s[d] = s[a] @op s[b] ? 1 : 0 (signed). */
PTO_API int pto_kb_cmp(struct pto_kb *kb, enum pto_cmp op, unsigned int d,
		       unsigned int a, unsigned int b);
/** pto_kb_cmpi() - CMP: s[d] = s[a] @op @imm ? 1 : 0 (signed). */
PTO_API int pto_kb_cmpi(struct pto_kb *kb, enum pto_cmp op, unsigned int d,
			unsigned int a, int64_t imm);
/** pto_kb_jmp() - JMP: go forward to @label. */
PTO_API int pto_kb_jmp(struct pto_kb *kb, int label);
/** pto_kb_jz() - JZ: go forward to @label if s[a] == 0. */
PTO_API int pto_kb_jz(struct pto_kb *kb, unsigned int a, int label);
/** pto_kb_jnz() - JNZ: go forward to @label if s[a] != 0. */
PTO_API int pto_kb_jnz(struct pto_kb *kb, unsigned int a, int label);
/**
 * pto_kb_loop() - LOOP: run the body up to the matching pto_kb_endloop()
 * s[@count] times (fixed at entry; 0 skips it), s[@counter] = 0, 1, ...
 * At most PTO_MAX_LOOP_DEPTH loops nest; a count outside
 * 0..PTO_MAX_LOOP_COUNT fails the task with PTO_STATUS_LOOP_FAULT.
 */
PTO_API int pto_kb_loop(struct pto_kb *kb, unsigned int counter,
			unsigned int count);
/** pto_kb_loopi() - LOOP @count times, @count in 0..PTO_MAX_LOOP_COUNT. */
PTO_API int pto_kb_loopi(struct pto_kb *kb, unsigned int counter,
			 int64_t count);
/** pto_kb_endloop() - ENDLOOP: end of the innermost loop body. */
PTO_API int pto_kb_endloop(struct pto_kb *kb);

/** pto_kb_gld() - GLD: s[d] = g@tensor[s[row], s[col]], extended. */
PTO_API int pto_kb_gld(struct pto_kb *kb, unsigned int d, unsigned int tensor,
		       unsigned int row, unsigned int col);
/** pto_kb_gst() - GST: g@tensor[s[row], s[col]] = s[src], truncated. */
PTO_API int pto_kb_gst(struct pto_kb *kb, unsigned int tensor, unsigned int row,
		       unsigned int col, unsigned int src);
/**
 * pto_kb_atomic_add() - ATOMIC_ADD on an int32 tensor: s[d] = the old
 * g@tensor[s[row], s[col]], which becomes old + s[src].
 */
PTO_API int pto_kb_atomic_add(struct pto_kb *kb, unsigned int d,
			      unsigned int tensor, unsigned int row,
			      unsigned int col, unsigned int src);
/**
 * pto_kb_fence() - FENCE: publish this core's GM stores (under non-coherent
 * GM they reach the other cores here) before its later accesses.
 */
PTO_API int pto_kb_fence(struct pto_kb *kb);
/**
 * pto_kb_cacheinvalid() - CACHEINVALID of the whole GM: this core's later
 * loads see what other cores published (FENCE) before now.
 */
PTO_API int pto_kb_cacheinvalid(struct pto_kb *kb);
/**
 * pto_kb_cacheinvalid_tensor() - CACHEINVALID of one tensor argument: as
 * on the chip, only the 64-byte line holding its view's base address.
 */
PTO_API int pto_kb_cacheinvalid_tensor(struct pto_kb *kb, uint32_t tensor);
/**
 * pto_kb_syncall_hard() - SYNCALL HARD: every core of @type meets (FFTS
 * emulation); the task must be sync_start with one block per core of that
 * type (per cluster for AIC and MIX): pto_graph_add_task() checks it.
 */
PTO_API int pto_kb_syncall_hard(struct pto_kb *kb, enum pto_sync_type type);
/**
 * pto_kb_syncall_soft() - SYNCALL SOFT: s[@used_cores] participants meet on
 * the counter of tensor argument @workspace (16 x int32, zero-initialised,
 * used by nothing else). Works at any occupancy.
 */
PTO_API int pto_kb_syncall_soft(struct pto_kb *kb, unsigned int workspace,
				unsigned int used_cores);

/**
 * pto_kb_tload() - TLOAD: t[t] = the rows x cols window of g@tensor at
 * [s[row], s[col]] of its 2-D view (rows: product of the leading
 * dimensions, cols: the last). The tensor's dtype must be the tile's.
 * Not into L0C.
 */
PTO_API int pto_kb_tload(struct pto_kb *kb, unsigned int t, unsigned int tensor,
			 unsigned int row, unsigned int col);
/** pto_kb_tstore() - TSTORE: the reverse of TLOAD; on AIC from L1 or L0C. */
PTO_API int pto_kb_tstore(struct pto_kb *kb, unsigned int t,
			  unsigned int tensor, unsigned int row,
			  unsigned int col);
/** pto_kb_tmov() - TMOV: t[d] = t[a], same shape and dtype. */
PTO_API int pto_kb_tmov(struct pto_kb *kb, unsigned int d, unsigned int a);
/** pto_kb_tfill() - TFILL: every element of t[t] = s[s] (f32 bits for f32 tiles). */
PTO_API int pto_kb_tfill(struct pto_kb *kb, unsigned int t, unsigned int s);
/** pto_kb_tfillf() - TFILL an f32 tile with @value. */
PTO_API int pto_kb_tfillf(struct pto_kb *kb, unsigned int t, float value);
/** pto_kb_tfilli() - TFILL an integer tile with @value. */
PTO_API int pto_kb_tfilli(struct pto_kb *kb, unsigned int t, int64_t value);
/**
 * pto_kb_tbin() - TBIN: t[d] = t[a] @op t[b], elementwise, one shape and
 * dtype; DIV for f32 tiles only, AND/OR/XOR for integer tiles only. AIV.
 */
PTO_API int pto_kb_tbin(struct pto_kb *kb, enum pto_tbin op, unsigned int d,
			unsigned int a, unsigned int b);
/** pto_kb_tbins() - TBINS: t[d] = t[a] @op s[s] (f32 bits for f32 tiles). AIV. */
PTO_API int pto_kb_tbins(struct pto_kb *kb, enum pto_tbin op, unsigned int d,
			 unsigned int a, unsigned int s);
/** pto_kb_tbinsf() - TBINS with an f32 scalar, on f32 tiles. AIV. */
PTO_API int pto_kb_tbinsf(struct pto_kb *kb, enum pto_tbin op, unsigned int d,
			  unsigned int a, float value);
/** pto_kb_tbinsi() - TBINS with an integer scalar, on integer tiles. AIV. */
PTO_API int pto_kb_tbinsi(struct pto_kb *kb, enum pto_tbin op, unsigned int d,
			  unsigned int a, int64_t value);
/** pto_kb_tunary() - TUNARY: t[d] = @op(t[a]); EXP and SQRT on f32 tiles only. AIV. */
PTO_API int pto_kb_tunary(struct pto_kb *kb, enum pto_tunary op, unsigned int d,
			  unsigned int a);
/** pto_kb_trowred() - TROWRED: t[d] (rows x 1) = @op over each row of t[a]; f32. AIV. */
PTO_API int pto_kb_trowred(struct pto_kb *kb, enum pto_rowred op,
			   unsigned int d, unsigned int a);
/** pto_kb_tcast() - TCAST: t[d] = t[a] converted to t[d]'s dtype, same shape. AIV. */
PTO_API int pto_kb_tcast(struct pto_kb *kb, unsigned int d, unsigned int a);
/**
 * pto_kb_matmul() - MATMUL on AIC: t[d] (L0C, f32, MxN) = (or += with
 * @acc) t[a] (L0A, f32, MxK) x t[b] (L0B, f32, KxN).
 */
PTO_API int pto_kb_matmul(struct pto_kb *kb, unsigned int d, unsigned int a,
			  unsigned int b, bool acc);

/**
 * pto_kb_push() - PUSH: move t[t] into the cross-core ring of a mixed task
 *
 * From the AIC, to the cluster's AIV (under PTO_SPLIT_UP_DOWN the upper
 * half of the rows to sub_block 0, the lower half to sub_block 1); from an
 * AIV, to the AIC. Waits for a free slot. Every PUSH of a kernel moves one
 * tile shape and dtype (the ring's slot): a PUSH of another shape is
 * refused (PTO_VERIFY_TILE_SHAPE). A kernel with PUSH or POP runs only in
 * a mixed task.
 */
PTO_API int pto_kb_push(struct pto_kb *kb, unsigned int t);
/**
 * pto_kb_pop() - POP: t[t] = the oldest filled slot of the cross-core ring
 *
 * Waits for a filled slot, copies it and frees it. An AIC POP gathers the
 * halves both AIVs pushed under PTO_SPLIT_UP_DOWN. Every POP of a kernel
 * fills one tile shape and dtype.
 */
PTO_API int pto_kb_pop(struct pto_kb *kb, unsigned int t);

/**
 * pto_kb_program() - the encoded program, checked as for upload
 * @kb: builder
 * @insns: set to the instructions, or NULL
 * @num_insns: set to their count, or NULL
 * @tiles: set to the tile declarations, or NULL
 * @num_tiles: set to their count, or NULL
 *
 * Runs the checks of pto_kb_finish() (balanced loops, bound labels, END
 * last) and resolves the jumps, without uploading: for dumps, and for
 * tests that alter a valid program before pto_kernel_create_raw().
 *
 * Return: 0, or the sticky error; the arrays stay valid until the next
 * call on @kb.
 */
PTO_API int pto_kb_program(struct pto_kb *kb, const struct pto_insn **insns,
			   uint32_t *num_insns,
			   const struct pto_tile_decl **tiles,
			   uint32_t *num_tiles);

/**
 * pto_kb_finish() - check and upload the kernel
 * @kb: builder
 * @out: the new kernel, NULL on failure
 *
 * Uploads with the device's verifier log attached: when the device
 * refuses what the builder let through, pto_kb_error() returns the log
 * and pto_kb_error_info() the verifier's code and index. The builder may
 * be freed afterwards, or finished again for another copy.
 *
 * Return: 0; the sticky error; -EINVAL when the device refuses; or an
 * error of pto_kernel_create_raw().
 */
PTO_API int pto_kb_finish(struct pto_kb *kb, struct pto_kernel **out);

#ifdef __cplusplus
}
#endif

#endif /* PTO_KERNEL_H */
