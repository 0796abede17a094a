/* SPDX-License-Identifier: MIT */
/*
 * Kernel builder internals. The builder needs only a topology and limits
 * to check a program, so the host unit tests build kernels without a
 * device through pto_kb_new_for_topology().
 */
#ifndef PTO_KERNEL_BUILDER_H
#define PTO_KERNEL_BUILDER_H

#include "internal.h"

/** PTO_KB_MSG_SIZE - bytes of an error message, the verifier log included. */
#define PTO_KB_MSG_SIZE 512
/** PTO_TILE_ALIGN - tiles start 64-byte aligned in their buffer. */
#define PTO_TILE_ALIGN 64
/** PTO_NO_REGION - the top level, outside every loop body. */
#define PTO_NO_REGION (-1)

/**
 * struct pto_kb_label - a jump target
 * @pos: instruction it is bound before, -1 until bound
 * @region: loop body it is bound in: index of the LOOP, or PTO_NO_REGION
 */
struct pto_kb_label {
	int32_t pos;
	int32_t region;
};

/**
 * struct pto_kb_jump - a jump waiting for its label
 * @insn: the jump instruction
 * @label: its label
 * @region: loop body the jump is in
 */
struct pto_kb_jump {
	uint32_t insn;
	uint32_t label;
	int32_t region;
};

/**
 * struct pto_kb_ring - the tile the PUSHes (or POPs) of a kernel move
 * @used: one was emitted
 * @dtype: its tile's dtype
 * @rows: rows
 * @cols: columns
 * @insn: the first such instruction
 */
struct pto_kb_ring {
	bool used;
	uint8_t dtype;
	uint32_t rows;
	uint32_t cols;
	uint32_t insn;
};

/**
 * struct pto_kb - a kernel under construction
 * @dev: device to upload to; NULL for a builder that only checks
 * @info: topology and buffer budgets the checks use
 * @limits: limits the checks use (0 fields are not checked)
 * @core_type: enum pto_core_type
 * @insns: instructions; jumps hold their label until resolved
 * @n: instructions emitted
 * @cap: room at @insns
 * @tiles: tile declarations
 * @num_tiles: tiles declared
 * @buf_used: bytes placed per local buffer (enum pto_local_buf)
 * @labels: labels
 * @num_labels: labels made
 * @labels_cap: room at @labels
 * @jumps: jumps to resolve
 * @num_jumps: their count
 * @jumps_cap: room at @jumps
 * @loops: open LOOP instructions, innermost last
 * @depth: open loops
 * @arg_dtype: dtype each tensor argument is used as so far, 0 for any
 * @arg_insn: first instruction that fixed @arg_dtype
 * @push: the tile of the kernel's PUSHes
 * @pop: the tile of its POPs
 * @err: sticky error, 0 or a negative errno
 * @err_info: its verifier code and index
 * @msg: its message
 */
struct pto_kb {
	struct pto_device *dev;
	struct pto_device_info info;
	struct pto_limits limits;
	uint32_t core_type;
	struct pto_insn *insns;
	uint32_t n;
	uint32_t cap;
	struct pto_tile_decl tiles[PTO_NUM_TREGS];
	uint32_t num_tiles;
	uint32_t buf_used[PTO_BUF_L0C + 1];
	struct pto_kb_label *labels;
	uint32_t num_labels;
	uint32_t labels_cap;
	struct pto_kb_jump *jumps;
	uint32_t num_jumps;
	uint32_t jumps_cap;
	uint32_t loops[PTO_MAX_LOOP_DEPTH];
	uint32_t depth;
	uint8_t arg_dtype[PTO_MAX_ARGS];
	uint32_t arg_insn[PTO_MAX_ARGS];
	struct pto_kb_ring push;
	struct pto_kb_ring pop;
	int err;
	struct pto_verify_info err_info;
	char msg[PTO_KB_MSG_SIZE];
};

/**
 * pto_kb_new_for_topology() - a builder that checks against given budgets
 * @info: topology and local buffer budgets
 * @limits: limits, or NULL for none
 * @core_type: PTO_CORE_AIV or PTO_CORE_AIC
 * @out: the new builder
 *
 * pto_kb_finish() on it runs every check and then returns -ENODEV.
 *
 * Return: 0, -EINVAL or -ENOMEM.
 */
int pto_kb_new_for_topology(const struct pto_device_info *info,
			    const struct pto_limits *limits,
			    enum pto_core_type core_type, struct pto_kb **out);

/* kernel.c: the upload shared by the builder and pto_kernel_create_raw() */
int pto_kernel_upload(struct pto_device *dev, uint32_t core_type,
		      const struct pto_insn *insns, uint32_t num_insns,
		      const struct pto_tile_decl *tiles, uint32_t num_tiles,
		      char *log, size_t log_size, struct pto_verify_info *info,
		      struct pto_kernel **out);

#endif /* PTO_KERNEL_BUILDER_H */
