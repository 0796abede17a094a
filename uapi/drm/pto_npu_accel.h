/* SPDX-License-Identifier: MIT */
/*
 * pto_npu: a virtual Ascend-style NPU exposed as a DRM accel device.
 *
 * This header is the ioctl ABI between pto_npu.ko and user space (libpto).
 * Rules (Documentation/process/botching-up-ioctls.rst): fixed-width types,
 * __u64 for user pointers, explicit padding, every struct a multiple of 8
 * bytes, every flag/pad/reserved field must be zero or the ioctl fails with
 * -EINVAL, every count is capped (see struct drm_pto_npu_limits).
 */
#ifndef _UAPI_PTO_NPU_ACCEL_H_
#define _UAPI_PTO_NPU_ACCEL_H_

#include "drm.h"

#if defined(__cplusplus)
extern "C" {
#endif

/** DRM_PTO_NPU_UAPI_VERSION - bumped whenever the ABI grows. */
#define DRM_PTO_NPU_UAPI_VERSION 1

/*
 * Ioctl numbers, relative to DRM_COMMAND_BASE. Append only: a number is
 * never reused or renumbered.
 */
enum drm_pto_npu_ioctl_nr {
	/** @DRM_PTO_NPU_QUERY: size-negotiated device query. */
	DRM_PTO_NPU_QUERY = 0x00,
	/** @DRM_PTO_NPU_BO_CREATE: create a GM buffer object. */
	DRM_PTO_NPU_BO_CREATE = 0x01,
	/** @DRM_PTO_NPU_BO_INFO: size and mmap offset of a GM buffer. */
	DRM_PTO_NPU_BO_INFO = 0x02,
};

/**
 * enum drm_pto_npu_query_type - what &drm_pto_npu_query.type asks for
 */
enum drm_pto_npu_query_type {
	/** @DRM_PTO_NPU_QUERY_DEVICE: &struct drm_pto_npu_device_info */
	DRM_PTO_NPU_QUERY_DEVICE = 0,
	/** @DRM_PTO_NPU_QUERY_LIMITS: &struct drm_pto_npu_limits */
	DRM_PTO_NPU_QUERY_LIMITS = 1,
	/** @DRM_PTO_NPU_QUERY_MEMORY: &struct drm_pto_npu_memory_info */
	DRM_PTO_NPU_QUERY_MEMORY = 2,
};

/**
 * struct drm_pto_npu_query - DRM_IOCTL_PTO_NPU_QUERY
 *
 * Size negotiation: with @size 0 the kernel writes nothing and returns the
 * size of the structure it knows in @size. Otherwise it copies
 * min(@size, known size) bytes to @data and returns that count in @size;
 * bytes of a newer, larger user structure past that count are left as they
 * were, so user space zero-initialises its structure first.
 */
struct drm_pto_npu_query {
	/** @type: one of &enum drm_pto_npu_query_type. */
	__u32 type;
	/** @size: in: bytes available at @data; out: bytes written (or needed). */
	__u32 size;
	/** @data: user pointer to the result structure. */
	__u64 data;
	/** @flags: must be zero. */
	__u32 flags;
	/** @pad: must be zero. */
	__u32 pad;
};

/* Capability bits of &drm_pto_npu_device_info.capabilities. */
/** DRM_PTO_NPU_CAP_GM_MMAP: GM buffers can be mmap'd MAP_SHARED. */
#define DRM_PTO_NPU_CAP_GM_MMAP (1ULL << 0)
/** DRM_PTO_NPU_CAP_SYNCOBJ: the device supports DRM syncobjs. */
#define DRM_PTO_NPU_CAP_SYNCOBJ (1ULL << 1)

/**
 * struct drm_pto_npu_device_info - topology and local buffer budgets
 */
struct drm_pto_npu_device_info {
	/** @uapi_version: DRM_PTO_NPU_UAPI_VERSION of the running module. */
	__u32 uapi_version;
	/** @device_index: index of this device instance (0 for the first). */
	__u32 device_index;
	/** @clusters: number of clusters (1 AIC + 2 AIV each). */
	__u32 clusters;
	/** @aic_cores: number of cube cores (= @clusters). */
	__u32 aic_cores;
	/** @aiv_cores: number of vector cores (= 2 * @clusters). */
	__u32 aiv_cores;
	/** @aiv_ub_size: bytes of unified buffer per AIV. */
	__u32 aiv_ub_size;
	/** @aic_l1_size: bytes of L1 per AIC. */
	__u32 aic_l1_size;
	/** @aic_l0a_size: bytes of L0A per AIC. */
	__u32 aic_l0a_size;
	/** @aic_l0b_size: bytes of L0B per AIC. */
	__u32 aic_l0b_size;
	/** @aic_l0c_size: bytes of L0C per AIC. */
	__u32 aic_l0c_size;
	/** @capabilities: DRM_PTO_NPU_CAP_* bits. */
	__u64 capabilities;
};

/**
 * struct drm_pto_npu_limits - documented caps of every count and size
 *
 * Anything over a cap is refused with -EINVAL (or -ENOSPC/-E2BIG where
 * noted in Documentation/uapi.rst), never an out-of-memory.
 */
struct drm_pto_npu_limits {
	/** @max_bo_size: largest GM buffer, bytes. */
	__u64 max_bo_size;
	/** @max_gm_per_context: total GM bytes one open file may hold. */
	__u64 max_gm_per_context;
	/** @max_bos_per_context: GM buffers one open file may hold. */
	__u32 max_bos_per_context;
	/** @pad: zero. */
	__u32 pad;
};

/**
 * struct drm_pto_npu_memory_info - GM accounting of the device
 */
struct drm_pto_npu_memory_info {
	/** @device_bos: GM buffers alive on the device (all contexts). */
	__u64 device_bos;
	/** @device_bytes: bytes of GM alive on the device (all contexts). */
	__u64 device_bytes;
	/** @context_bos: GM buffers held by the calling file. */
	__u64 context_bos;
	/** @context_bytes: bytes of GM held by the calling file. */
	__u64 context_bytes;
};

/**
 * struct drm_pto_npu_bo_create - DRM_IOCTL_PTO_NPU_BO_CREATE
 *
 * Creates a zero-filled GM buffer backed by shmem. The size is rounded up
 * to a page. Errors: -EINVAL for zero size, size over
 * &drm_pto_npu_limits.max_bo_size or non-zero @flags; -ENOSPC when the
 * context's GM caps would be exceeded.
 */
struct drm_pto_npu_bo_create {
	/** @size: in: requested bytes; out: allocated bytes (page aligned). */
	__u64 size;
	/** @flags: must be zero. */
	__u32 flags;
	/** @handle: out: GEM handle, never 0. Freed with DRM_IOCTL_GEM_CLOSE. */
	__u32 handle;
};

/**
 * struct drm_pto_npu_bo_info - DRM_IOCTL_PTO_NPU_BO_INFO
 *
 * Errors: -ENOENT if @handle names no buffer of this file; -EINVAL for
 * non-zero @flags.
 */
struct drm_pto_npu_bo_info {
	/** @handle: GEM handle of this file. */
	__u32 handle;
	/** @flags: must be zero. */
	__u32 flags;
	/** @size: out: size in bytes. */
	__u64 size;
	/** @mmap_offset: out: offset to pass to mmap(MAP_SHARED) on the fd. */
	__u64 mmap_offset;
};

#define DRM_IOCTL_PTO_NPU_QUERY \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_PTO_NPU_QUERY, struct drm_pto_npu_query)
#define DRM_IOCTL_PTO_NPU_BO_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_PTO_NPU_BO_CREATE, \
		 struct drm_pto_npu_bo_create)
#define DRM_IOCTL_PTO_NPU_BO_INFO \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_PTO_NPU_BO_INFO, \
		 struct drm_pto_npu_bo_info)

#if defined(__cplusplus)
}
#endif

#endif /* _UAPI_PTO_NPU_ACCEL_H_ */
