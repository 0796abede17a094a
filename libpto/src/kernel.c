// SPDX-License-Identifier: MIT
/*
 * Kernel upload (DRM_IOCTL_PTO_NPU_KERNEL_CREATE) and the kernel handle.
 * The device verifies the program and counts its arguments; libpto also
 * notes how each tensor argument is used, the UB its tiles take and the
 * tiles its PUSHes and POPs move, so a graph can check a task's tensors
 * and a mixed task's cross-core ring before the device does.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "kernel_builder.h"

_Static_assert((int)PTO_VERIFY_LOOP_COUNT ==
			       (int)DRM_PTO_NPU_VERIFY_LOOP_COUNT &&
		       (int)PTO_VERIFY_RESERVED_FIELD ==
			       (int)DRM_PTO_NPU_VERIFY_RESERVED_FIELD &&
		       (int)PTO_VERIFY_BUDGET == (int)DRM_PTO_NPU_VERIFY_BUDGET,
	       "public verifier codes mirror the uapi");

/* The first PUSH (or POP) names the ring tile: the verifier saw to the rest. */
static void pto_kernel_ring_use(struct pto_ring_use *u,
				const struct pto_tile_decl *tiles,
				uint32_t num_tiles, unsigned int t)
{
	if (u->used || t >= num_tiles)
		return;
	*u = (struct pto_ring_use){
		.used = true,
		.dtype = tiles[t].dtype,
		.rows = tiles[t].rows,
		.cols = tiles[t].cols,
	};
}

/*
 * Tensor arguments the program reads or writes, and as which dtype; the UB
 * its tiles take; the tiles its PUSHes and POPs move.
 */
void pto_kernel_scan(struct pto_kernel *k, const struct pto_insn *insns,
		     uint32_t n, const struct pto_tile_decl *tiles,
		     uint32_t num_tiles)
{
	uint64_t ub = 0;
	uint32_t i;

	/* Placed as the verifier places them: back to back, 64-byte aligned. */
	for (i = 0; i < num_tiles; i++) {
		if (tiles[i].buf != PTO_BUF_UB)
			continue;
		ub = (ub + 63) & ~(uint64_t)63;
		ub += (uint64_t)tiles[i].rows * tiles[i].cols *
		      pto_dtype_size(tiles[i].dtype);
	}
	k->ub_used = ub > UINT32_MAX ? UINT32_MAX : (uint32_t)ub;

	for (i = 0; i < n; i++) {
		const struct pto_insn *in = &insns[i];
		uint8_t use = 0, dtype = 0;

		switch (in->op) {
		case PTO_OP_SYNCALL:
			if (in->mode == PTO_SYNC_HARD) {
				k->hard_sync = (uint8_t)in->imm;
				continue;
			}
			/* SOFT: the workspace counter is read and written. */
			if (in->imm >= 0 && in->imm < PTO_MAX_ARGS)
				k->soft_ws[in->imm] = true;
			use = PTO_ARG_READ | PTO_ARG_WRITTEN;
			dtype = PTO_DTYPE_I32;
			break;
		case PTO_OP_PUSH:
			pto_kernel_ring_use(&k->push, tiles, num_tiles, in->a);
			continue;
		case PTO_OP_POP:
			pto_kernel_ring_use(&k->pop, tiles, num_tiles, in->dst);
			continue;
		case PTO_OP_GLD:
			use = PTO_ARG_READ;
			break;
		case PTO_OP_GST:
			use = PTO_ARG_WRITTEN;
			break;
		case PTO_OP_ATOMIC_ADD:
			use = PTO_ARG_READ | PTO_ARG_WRITTEN;
			dtype = PTO_DTYPE_I32;
			break;
		case PTO_OP_TLOAD:
		case PTO_OP_TSTORE:
			use = in->op == PTO_OP_TLOAD ? PTO_ARG_READ :
						       PTO_ARG_WRITTEN;
			if (in->dst < num_tiles)
				dtype = tiles[in->dst].dtype;
			break;
		default:
			continue;
		}
		if (in->imm < 0 || in->imm >= PTO_MAX_ARGS)
			continue;
		k->arg_use[in->imm] |= use;
		if (dtype && !k->arg_dtype[in->imm])
			k->arg_dtype[in->imm] = dtype;
	}
}

int pto_kernel_upload(struct pto_device *dev, uint32_t core_type,
		      const struct pto_insn *insns, uint32_t num_insns,
		      const struct pto_tile_decl *tiles, uint32_t num_tiles,
		      char *log, size_t log_size, struct pto_verify_info *info,
		      struct pto_kernel **out)
{
	struct drm_pto_npu_kernel_create c = {
		.insns = (uintptr_t)insns,
		.tiles = (uintptr_t)tiles,
		.log = log_size ? (uintptr_t)log : 0,
		.num_insns = num_insns,
		.num_tiles = num_tiles,
		.log_size = log ? (uint32_t)(log_size > UINT32_MAX ?
						     UINT32_MAX :
						     log_size) :
				  0,
		.core_type = core_type,
	};
	struct pto_kernel *k;
	int ret;

	if (info)
		*info = (struct pto_verify_info){ PTO_VERIFY_OK, PTO_NO_INDEX };
	if (log && log_size)
		log[0] = '\0';
	if (!c.log_size)
		c.log = 0;
	k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;

	ret = pto_ioctl(dev->fd, DRM_IOCTL_PTO_NPU_KERNEL_CREATE, &c);
	if (ret) {
		if (info && ret == -EINVAL)
			*info = (struct pto_verify_info){ c.error_code,
							  c.error_insn };
		if (log && log_size)
			log[log_size - 1] = '\0';
		free(k);
		return ret;
	}
	k->dev = dev;
	k->handle = c.handle;
	k->core_type = core_type;
	k->num_tensor_args = c.num_tensor_args;
	k->num_scalar_args = c.num_scalar_args;
	pto_kernel_scan(k, insns, num_insns, tiles, num_tiles);
	*out = k;
	return 0;
}

PTO_API int
pto_kernel_create_raw(struct pto_device *dev, enum pto_core_type core_type,
		      const struct pto_insn *insns, uint32_t num_insns,
		      const struct pto_tile_decl *tiles, uint32_t num_tiles,
		      char *log, size_t log_size, struct pto_verify_info *info,
		      struct pto_kernel **out)
{
	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!dev || (num_insns && !insns) || (num_tiles && !tiles))
		return -EINVAL;
	return pto_kernel_upload(dev, core_type, insns, num_insns, tiles,
				 num_tiles, log, log_size, info, out);
}

PTO_API void pto_kernel_free(struct pto_kernel *k)
{
	struct drm_pto_npu_kernel_destroy d;

	if (!k)
		return;
	d = (struct drm_pto_npu_kernel_destroy){ .handle = k->handle };
	/* Nothing to do about a failure; closing the device frees it anyway. */
	if (k->dev)
		(void)pto_ioctl(k->dev->fd, DRM_IOCTL_PTO_NPU_KERNEL_DESTROY,
				&d);
	free(k);
}

PTO_API uint32_t pto_kernel_handle(const struct pto_kernel *k)
{
	return k->handle;
}

PTO_API enum pto_core_type pto_kernel_core_type(const struct pto_kernel *k)
{
	return (enum pto_core_type)k->core_type;
}

PTO_API uint32_t pto_kernel_num_tensor_args(const struct pto_kernel *k)
{
	return k->num_tensor_args;
}

PTO_API uint32_t pto_kernel_num_scalar_args(const struct pto_kernel *k)
{
	return k->num_scalar_args;
}

PTO_API enum pto_dtype pto_kernel_tensor_arg_dtype(const struct pto_kernel *k,
						   uint32_t index)
{
	if (index >= PTO_MAX_ARGS)
		return 0;
	return (enum pto_dtype)k->arg_dtype[index];
}

static int pto_ring_tile_out(const struct pto_ring_use *u,
			     struct pto_ring_tile *out)
{
	if (!u->used)
		return -ENOENT;
	if (out)
		*out = (struct pto_ring_tile){ u->dtype, u->rows, u->cols };
	return 0;
}

PTO_API int pto_kernel_push_tile(const struct pto_kernel *k,
				 struct pto_ring_tile *out)
{
	if (!k)
		return -EINVAL;
	return pto_ring_tile_out(&k->push, out);
}

PTO_API int pto_kernel_pop_tile(const struct pto_kernel *k,
				struct pto_ring_tile *out)
{
	if (!k)
		return -EINVAL;
	return pto_ring_tile_out(&k->pop, out);
}

PTO_API uint32_t pto_kernel_ub_used(const struct pto_kernel *k)
{
	return k ? k->ub_used : 0;
}
