/* SPDX-License-Identifier: GPL-2.0-only */
/* Copyright (C) 2026 pto-npu authors */
#ifndef __PTO_KERNEL_H__
#define __PTO_KERNEL_H__

#include <linux/kref.h>
#include <linux/types.h>

#include "pto_drv.h"
#include "pto_npu_isa.h"

#define PTO_LOCAL_BUFS 6	/* indexed by enum pto_local_buf */

/*
 * Offset of local buffer @buf in its core's local memory: the AIV's UB at
 * 0, the AIC's L1 | L0A | L0B | L0C back to back.
 */
static inline u32 pto_buf_base(const struct pto_topology *t, u8 buf)
{
	switch (buf) {
	case PTO_BUF_L0A:
		return t->aic_l1;
	case PTO_BUF_L0B:
		return t->aic_l1 + t->aic_l0a;
	case PTO_BUF_L0C:
		return t->aic_l1 + t->aic_l0a + t->aic_l0b;
	}
	return 0;
}

#define PTO_TILE_ALIGN 64

/* How a task accesses a tensor argument: its direction, or its kernels' use. */
#define PTO_ACC_READ 0x1
#define PTO_ACC_WRITE 0x2

/**
 * struct pto_tile_layout - a verified tile register
 * @dtype: enum pto_isa_dtype
 * @buf: enum pto_local_buf
 * @esize: element bytes
 * @rows: rows
 * @cols: columns
 * @offset: byte offset in the core's local memory
 */
struct pto_tile_layout {
	u8 dtype;
	u8 buf;
	u8 esize;
	u32 rows;
	u32 cols;
	u32 offset;
};

/**
 * struct pto_ring_use - the tile a kernel moves through the cross-core ring
 * @used: the kernel has such an instruction
 * @dtype: tile dtype
 * @esize: element bytes
 * @rows: tile rows
 * @cols: tile columns
 */
struct pto_ring_use {
	bool used;
	u8 dtype;
	u8 esize;
	u32 rows;
	u32 cols;
};

/**
 * struct pto_kernel - a verified program
 * @ref: tasks and the handle table hold references
 * @acct: the context's account it counts in while alive (its own reference)
 * @core_type: enum pto_core_type
 * @num_insns: instruction count
 * @insns: the program, copied in
 * @match: per instruction: LOOP -> its ENDLOOP, ENDLOOP -> its LOOP
 * @num_tiles: tile registers declared
 * @tiles: their placement
 * @num_tensor_args: tensor arguments the program uses
 * @num_scalar_args: scalar arguments the program uses
 * @arg_dtype: dtype each tensor argument is used as (0: any)
 * @arg_load: bit i: the program reads tensor argument i (GLD, TLOAD,
 *            ATOMIC_ADD, a SOFT syncall's workspace)
 * @arg_store: bit i: the program writes it (GST, TSTORE, ATOMIC_ADD, SOFT)
 * @ub_used: bytes of UB the tiles take (AIV); the ring goes after them
 * @local_end: the end of the highest tile in the core's local memory (its
 *             buffers' bases added): all a unit of it can write there
 * @push: tile shape of every PUSH (cross-core ring), if any
 * @pop: tile shape of every POP, if any
 * @hard_sync: enum pto_sync_type of its HARD syncalls, 0 if none
 * @soft_ws: tensor arguments its SOFT syncalls take as workspace, a bit each
 */
struct pto_kernel {
	struct kref ref;
	struct pto_gm_account *acct;
	u32 core_type;
	u32 num_insns;
	struct pto_insn *insns;
	u16 *match;
	u32 num_tiles;
	struct pto_tile_layout tiles[PTO_NUM_TREGS];
	u32 num_tensor_args;
	u32 num_scalar_args;
	u8 arg_dtype[PTO_MAX_TENSOR_ARGS];
	u16 arg_load;
	u16 arg_store;
	u32 ub_used;
	u32 local_end;
	struct pto_ring_use push;
	struct pto_ring_use pop;
	u8 hard_sync;
	u16 soft_ws;
};

/* pto_verifier.c */
int pto_verify(const struct pto_topology *topo, u32 core_type,
	       const struct pto_insn *insns, u32 num_insns,
	       const struct pto_tile_decl *tiles, u32 num_tiles,
	       struct pto_kernel *k, u32 *err_idx, char *log, size_t log_size);
u8 pto_dtype_size(u8 dtype);

/* pto_kernel.c */
void pto_kernel_put(struct pto_kernel *k);
struct pto_kernel *pto_kernel_lookup(struct pto_ctx *ctx, u32 handle);
void pto_kernels_release(struct pto_ctx *ctx);
int pto_ioctl_kernel_create(struct drm_device *drm, void *data,
			    struct drm_file *file);
int pto_ioctl_kernel_destroy(struct drm_device *drm, void *data,
			     struct drm_file *file);

#endif /* __PTO_KERNEL_H__ */
